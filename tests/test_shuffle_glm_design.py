"""shuffle-glm Appendix O (audits/shuffle_glm/design.py): the design-matrix lemmas on their sequences. Every audit here
is exact (deterministic floats on fixed sequences): no false-failure rate to state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit import audit_lower_bound
from dpaudit.audits.shuffle_glm import design
from dpaudit.suite import find_entry


def test_the_switch_rule_is_the_printed_one():
    # running maximum doubling against the running maximum at the last switch; t closes the set
    assert design.switch_times(np.array([1.0, 1.5, 2.0, 1.0, 3.9, 4.0, 4.1])) == [0, 2, 5, 6]
    assert design.switch_times(np.array([1.0, 0.5, 1.9])) == [0, 2]  # t closes the set without a doubling
    assert design.switch_times(np.array([1.0])) == [0]
    # a dip does not lower the reference: 2.0 doubles 1.0, then 3.0 < 4.0 even after the dip to 0.1
    assert design.switch_times(np.array([1.0, 2.0, 0.1, 3.0, 3.0])) == [0, 1, 4]


@pytest.mark.parametrize("d, t", sorted(design.HORIZONS.items()))
def test_the_adversarial_designs_meet_the_hypotheses_and_double_once(d, t):
    T, noisy = design.adversarial(d, t, 1e-3, 1.0)
    bound = design.noise_bound(1.0, d)
    gaps = np.linalg.eigvalsh(noisy - T)
    assert np.abs(gaps).max() <= bound * (1 + 1e-12)
    assert np.allclose(gaps[0], -bound)  # the first design at the noise's bound below T_1 = lambda I
    assert np.allclose(noisy, np.swapaxes(noisy, 1, 2))
    taus = design.switch_times(np.linalg.det(noisy))
    assert len(taus) == 3 and taus[0] == 0 and taus[-1] == t - 1
    # the switch is triggered exactly: its determinant is twice the first one's, to the bisection's precision
    assert np.linalg.det(noisy[taus[1]]) == pytest.approx(2 * np.linalg.det(noisy[0]), rel=1e-9)


def test_the_printed_count_fails_below_d_3_and_holds_from_it():
    for d, t in design.HORIZONS.items():
        m, bound = design._printed_a({"d": d, "t": t, "L2": 1e-3, "lam": 1.0})
        assert m == 3 and (bound < 3) == (d <= 2)
    # the algebra: the printed form follows from the corrected chain iff d >= 2 + d log2(1 + 1/(4 sqrt d))
    # - d log2(1 - 1/(4 (sqrt d + 1)))
    needed = {d: 2 + d * math.log2(1 + 1 / (4 * math.sqrt(d))) - d * math.log2(1 - 1 / (4 * (math.sqrt(d) + 1)))
              for d in range(1, 8)}
    assert [d for d, need in needed.items() if d < need] == [1, 2]
    assert needed[3] == pytest.approx(2.999, abs=1e-3)


@pytest.mark.parametrize("claim_id, verdict", [
    ("shuffle-glm/lemO.4@a,d1,t634", "refuted"), ("shuffle-glm/lemO.4@a,d2,t333", "refuted"),
    ("shuffle-glm/lemO.4@a,d3,t165", "verified"), ("shuffle-glm/lemO.4@a,d5,t30", "verified"),
    ("shuffle-glm/lemO.4@a,noiseless,d1,t2", "refuted"),
    ("shuffle-glm/lemO.4@a,proof,d1,t634", "verified"), ("shuffle-glm/lemO.4@a,proof,d2,t333", "refuted"),
    ("shuffle-glm/lemO.4@a,proof,d5,t30", "refuted"),
    ("shuffle-glm/lemO.4@a,corrected,d1,t634", "verified"), ("shuffle-glm/lemO.4@a,corrected,d5,t30", "verified"),
    ("shuffle-glm/lemO.4@b,d2,t333", "verified"),
    ("shuffle-glm/lemO.1@one-direction,d1,t1000", "verified"), ("shuffle-glm/lemO.1@basis,d5,t1000", "verified"),
    ("shuffle-glm/lemO.3@basis,d3,t1000", "verified"),
])
def test_each_entry_comes_out_as_its_suite_says(claim_id, verdict):
    entry = find_entry(claim_id)
    assert audit_lower_bound(entry.claim).verdict == verdict
    assert entry.expected == ("refuted" if verdict == "refuted" else "not-refuted")


def test_a_sequence_outside_the_hypotheses_is_an_error_not_a_refutation():
    """Noise beyond the lemma's bound, or a lambda below L^2 for the elliptic potential, is refused."""
    from dpaudit.core.errors import UnsupportedAudit

    p = {"d": 2, "t": 50, "L": 2.0, "lam": 1.0, "sequence": "basis"}  # lambda < L^2
    with pytest.raises((UnsupportedAudit, ValueError), match="lambda >= L"):
        audit_lower_bound(design.lemo1_claim(p))


def test_lemma_o2_and_o3_are_tight_where_they_should_be():
    # O.2's sup ratio is at most det A / det B, with equality when A - B has rank one
    ratio, det_ratio, _ = design._ratio_det({"d": 2, "pairs": 200})
    assert np.all(ratio <= det_ratio * (1 + 1e-12)) and np.any(np.isclose(ratio, det_ratio, rtol=1e-9))
    # O.3 on the cycled basis: T_1000 holds 999 = 5 * 199 + 4 vectors, eigenvalues 201 (four) and 200 (one), against
    # the bound's 201 in every direction: one factor 201/200 short
    lhs, rhs = design._det_bound({"d": 5, "t": 1000, "L": 1.0, "lam": 1.0, "sequence": "basis"})
    assert lhs == pytest.approx(4 * math.log(201) + math.log(200), rel=1e-12)
    assert rhs - lhs == pytest.approx(math.log(201 / 200), rel=1e-9)


def test_lemma_4_3_is_witnessed_on_every_arm_set_and_its_bound_is_tight():
    """The near-optimal design's value at eps = 0 is within a hair of d (Kiefer-Wolfowitz: the optimum is d, so a
    value below d - 1e-9 would mean a bug in the design's value), and eps > 0 brings it below d."""
    for K, d, norms in design.ARM_SETS:
        x, pi = design.arm_set(K, d, norms), design.near_optimal_design(K, d, norms)
        assert pi.min() >= 0 and pi.sum() == pytest.approx(1.0)
        g0 = np.einsum("ki,ij,kj->k", x, np.linalg.inv((x.T * pi) @ x), x).max()
        assert d - 1e-9 <= g0 <= d * (1 + 2e-3)
        values, bound, _ = design._design_value({"K": K, "d": d, "norms": norms, "epsilons": (1e-2, 1e-3)})
        assert np.all(values < bound) and np.all(np.diff(values) > 0)  # smaller eps, closer to d
        computed, twice = design._computable_design({"K": K, "d": d, "norms": norms})
        assert d - 1e-6 <= computed <= twice
    entry = find_entry("shuffle-glm/lem4.3@mixed,K100,d5")
    assert audit_lower_bound(entry.claim).verdict == "verified"
    # a design that is not near-optimal (uniform on the mixed set) does not witness the bound at eps = 1e-3
    x = design.arm_set(100, 5, "mixed")
    uniform = np.einsum("ki,ij,kj->k", x, np.linalg.inv(1e-3 * np.eye(5) + x.T @ x / 100), x).max()
    assert uniform > 5


def test_the_noise_bound_is_the_lemmas():
    """Lemma O.4's ||T^_s - T_s||_2 <= lambda/(4(sqrt d + 1)), pinned to numbers (the adversarial designs and the
    conditions both read noise_bound, so a wrong formula would pass them alike)."""
    assert design.noise_bound(1.0, 1) == pytest.approx(1 / 8)
    assert design.noise_bound(2.0, 4) == pytest.approx(2 / 12)
