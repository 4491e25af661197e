"""shuffle-lcb's Claim A.6 entries (dpaudit.audits.shuffle_lcb.batch_potential): Psi and Psi-hat against a
plain per-round computation, the recorded features, the cited determinant inequality, the steps' power (a bound
without its factor d is caught) and the entries' verdicts. The simulations are seeded and every check on them
is exact, so no false-failure rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from regret_suites import as_expected, audit_in_a_run

from dpaudit import ProofStep
from dpaudit.auditors.lower_bound import evaluate_step
from dpaudit.audits.shuffle_lcb import batch_potential as bp
from dpaudit.audits.shuffle_lcb import suite

IDS = [e.id for e in suite.entries if e.id.startswith("shuffle-lcb/claimA.6@")]
POINT = {"d": 5, "K": 10, "B": 20, "T": 4000, "lam": 1.0, "runs": 20, "seed": 0}


def by_hand(x: np.ndarray, B: int, lam: float) -> tuple[int, int]:
    """|Psi| and |Psi-hat| of one run, round by round with explicit inverses and determinants."""
    T, d = x.shape
    V = [lam * np.eye(d)]
    for row in x:
        V.append(V[-1] + np.outer(row, row))
    psi = 0
    for t in range(1, T + 1):
        m = B * ((t - 1) // B)
        stale = math.sqrt(x[t - 1] @ np.linalg.inv(V[m]) @ x[t - 1])
        fresh = math.sqrt(x[t - 1] @ np.linalg.inv(V[t - 1]) @ x[t - 1])
        psi += stale / fresh > 2
    psi_hat = sum(math.log(np.linalg.det(V[m + B]) / np.linalg.det(V[m])) > 2 * math.log(2) for m in range(0, T, B))
    return psi, psi_hat


def test_potentials_against_a_plain_computation():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 48, 3))
    x /= np.linalg.norm(x, axis=2, keepdims=True)
    x[1, :12] = [1.0, 0.0, 0.0]  # one run that repeats a direction (equality in the determinant inequality)
    out = bp.potentials(x, 4, 0.5)
    for run in range(3):
        assert (out["psi"][run], out["psi_hat"][run]) == by_hand(x[run], 4, 0.5)
    assert out["psi"].max() > 0 and out["psi_hat"].max() > 0  # not vacuous


def test_a_hand_counted_sequence():
    """d = 1, lambda = 1, B = 2, x = 1 every round: V_t = 1 + t. Round t's squared-width ratio is
    (1 + t - 1)/(1 + m_t) <= 2 (t - 1 - m_t <= 1), never above 4; batch m's determinant rises by the factor
    (2m + 3)/(2m + 1) <= 3, never above 4. With one batch of 8 and lambda = 0.1 the ratio (0.1 + t - 1)/0.1
    passes 4 from t = 2, and the one batch's determinant rises 81-fold."""
    x = np.ones((1, 8, 1))
    out = bp.potentials(x, 2, 1.0)
    assert out["psi"][0] == 0 and out["psi_hat"][0] == 0
    out = bp.potentials(np.ones((1, 8, 1)), 8, 0.1)
    assert out["psi"][0] == 7 and out["psi_hat"][0] == 1


def test_the_recorded_features_are_the_played_arms():
    x = bp.played_features(3, 10, 20, 400, 1.0, 4, 0)
    assert x.shape == (4, 400, 3)
    assert np.allclose(np.linalg.norm(x, axis=2), np.linalg.norm(x, axis=2)[:, :1])  # the generator's arms
    assert len({tuple(np.round(row, 12)) for row in x[0]}) <= 10  # at most K distinct arms (fixed contexts)


def test_the_cited_determinant_inequality_holds_on_the_runs():
    assert evaluate_step(bp.DETERMINANT, POINT)["status"] in ("holds", "tight")


def test_a_bound_without_its_factor_d_is_caught():
    """Power: at d = 5 the largest |Psi-hat| (5) exceeds the bound divided by d (4.8), so a step with the
    printed d dropped fails; the printed steps hold."""
    cut = ProofStep("cut", "", lambda p: (bp._of(p)["psi_hat"], bp._telescoped(p) / (2 * math.log(2) * p["d"])), "<=")
    assert evaluate_step(cut, POINT)["status"] == "fails"
    assert all(evaluate_step(s, POINT)["status"] == "holds" for s in bp.STEPS)


def test_ids():
    assert IDS == ["shuffle-lcb/claimA.6@d3,K10,B20,T4000", "shuffle-lcb/claimA.6@d3,K10,B100,T4000",
                   "shuffle-lcb/claimA.6@d5,K10,B20,T4000"]


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", IDS)
def test_entries_verify(claim_id):
    entry = next(e for e in suite.entries if e.id == claim_id)
    finding = audit_in_a_run(entry, suite)
    assert finding.verdict == "verified" and as_expected(entry, finding.verdict), finding.notes
