"""The ``rows`` event family (exact cells over distinct output rows) and the projected selection score.

Every test runs on fixed seeds. The statistical assertions state their false-failure rates."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

import dpaudit
from dpaudit import PureDP
from dpaudit.auditors.events import RowSet, candidates, default_families, row_candidates
from dpaudit.mechanisms.sparse_vector import SparseVector

QUERIES = [1.0, 1.0, 0.0, 0.0, 0.0]
NEIGHBOUR = [2.0, 2.0, 1.0, 1.0, -1.0]  # every answer moved by at most 1


def exact_losses(mech, a, b):
    p, q = mech.distribution(a), mech.distribution(b)
    return p.outcomes, p.log_probs - q.log_probs


def test_rows_rank_the_optimal_row_first():
    """On SVT with 5 queries (7 distinct rows, more coordinates than cells look at), the top-1 row
    of the rows family is the row of largest exact loss. The two largest losses are 0.85 and 0.34;
    with 10^5 samples per side per half the log-ratio estimates have standard errors below 0.05,
    so ranking them the wrong way round has probability below 0.05 (and this seed does not)."""
    mech = SparseVector(1.0, threshold=0.5, cutoff=1)
    outcomes, loss = exact_losses(mech, QUERIES, NEIGHBOUR)
    rng = np.random.default_rng(1)
    x0 = mech.sample(QUERIES, 200_000, rng).astype(float)
    x1 = mech.sample(NEIGHBOUR, 200_000, rng).astype(float)
    assert "rows" in default_families(x0.shape[1])
    (rows,) = row_candidates(x0, x1)
    best = rows.event(0)
    assert isinstance(best, RowSet) and len(best.members) == 1
    top = outcomes[np.argmax(loss)].astype(float)
    assert best.contains(top[None])[0]
    assert best.describe() == f"x = {top.tolist()!r}"
    # the classifier is skipped: the rows already are the Neyman-Pearson family
    assert [c.family for c in candidates(x0, x1, default_families(5))] == ["rows"]


def test_rows_family_gives_up_on_many_rows_and_continuous_outputs():
    rng = np.random.default_rng(0)
    assert row_candidates(rng.normal(size=(2000, 4)), rng.normal(size=(2000, 4))) == []
    wide = rng.integers(0, 8, size=(20_000, 6)).astype(float)  # 8^6 possible rows: thousands seen
    assert row_candidates(wide, wide[::-1]) == []


def test_audit_certifies_close_to_the_best_exact_loss():
    """The black-box audit at 2 * 10^6 samples per side selects the best row on this pair: its bound
    lies below the exact maximal loss (a valid bound at confidence 0.99) and within 0.06 of it (the
    Clopper-Pearson width at this size is about 0.03)."""
    mech = SparseVector(1.0, threshold=0.5, cutoff=1)
    _, loss = exact_losses(mech, QUERIES, NEIGHBOUR)
    r = dpaudit.audit_privacy(mech, PureDP(1.0), pairs=[(QUERIES, NEIGHBOUR)], auditor="statistical",
                              samples=2_000_000, confidence=0.99, seed=0)
    assert r.witness["family"] == "rows"
    assert loss.max() - 0.06 <= r.epsilon_lower <= loss.max()


def randomized_response_with_noise(epsilon: float):
    """A 4-coordinate output exactly epsilon-DP in its input bit: the bit by randomized response,
    then three independent uniform digits that carry no information. Its largest loss is attained
    by every row, so an audit of the claim epsilon sits exactly on the boundary."""
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))

    def mechanism(bit, size, rng):
        first = np.where(rng.random(size) < keep, bit, 1 - bit)
        return np.column_stack([first, rng.integers(0, 3, size=(size, 3))]).astype(float)

    return mechanism


def test_confidence_holds_exactly_at_the_claimed_epsilon():
    """Validity: 40 seeded audits of a mechanism exactly at its claimed epsilon, at confidence 0.8.
    Each refutes with probability <= 0.2, so the count is stochastically below Binomial(40, 0.2); the
    limit is that law's 1 - 1e-4 quantile (17), so a valid auditor fails this test with probability
    below 1e-4. Measured: 1 refutation in 40 (Clopper-Pearson on both sides is conservative)."""
    limit = stats.binom.isf(1e-4, 40, 0.2)
    mech = randomized_response_with_noise(0.5)
    refuted = 0
    for seed in range(40):
        r = dpaudit.audit_privacy(mech, PureDP(0.5), pairs=[(0, 1)], auditor="statistical", samples=20_000,
                                  confidence=0.8, seed=seed)
        assert r.witness["family"] == "rows"
        refuted += r.verdict == "refuted"
    assert refuted <= limit


def test_a_score_threshold_event_includes_its_threshold_on_either_side():
    from dpaudit.auditors.events import ScoreThreshold

    class Identity:  # a fitted model's decision_function, here the output itself
        def decision_function(self, x):
            return np.asarray(x, dtype=float).ravel()

    x = np.array([-1.0, 0.5, 1.0, 2.0])
    assert ScoreThreshold(Identity(), ">=", 1.0).contains(x).tolist() == [False, False, True, True]
    assert ScoreThreshold(Identity(), "<=", 0.5).contains(x).tolist() == [True, True, False, False]
