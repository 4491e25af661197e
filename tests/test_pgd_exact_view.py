"""The exact law of P_GD's whole adaptive view for the logistic loss (shuffle-glm, Appendix T, Lemma T.2):
:class:`~dpaudit.mechanisms.glm.pgd_views.Transcript`'s keyed mixture over theta_1, and the harness's exact
hockey-stick and loss range of keyed mixtures (:mod:`dpaudit.exact.mixture`), against brute force on joint
tables, against the sampler, and with power against a weakened P_GD."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit import ApproxDP, exact
from dpaudit.core.distributions import FiniteDistribution, KeyedMixtureDistribution
from dpaudit.core.errors import MechanismError
from dpaudit.core.neighbours import one_changed
from dpaudit.mechanisms.glm import pgd_views
from dpaudit.mechanisms.glm.glm_links import logistic_gradient, logistic_mean
from dpaudit.mechanisms.glm.pgd_views import Transcript
from dpaudit.mechanisms.glm.private_gd import PrivateGD

ZERO_RECORDS = np.zeros((8, 2))
PAIRS = [one_changed(ZERO_RECORDS, [0.0, 1.0], [1.0, 1.0]), one_changed(ZERO_RECORDS, [0.0, 1.0], [0.0, -1.0])]


def _pgd(noise_bits: int | None = None) -> PrivateGD:
    """The suite's point (eps, delta) = (1, 0.4), n = 8, d = 1, T_it = 2; with ``noise_bits`` P_1's b is replaced
    (a weakened protocol: the tiny instance for brute force, and the miscalibrated variant)."""
    pgd = PrivateGD(1.0, 0.4, 8, 1, lipschitz=1.0, radius=1.0)
    assert pgd.T_it == 2
    if noise_bits is not None:
        pgd.protocol.b = noise_bits
        pgd.protocol.bits_per_entry = 2 * pgd.protocol.g + noise_bits
        pgd.protocol._noise = None
    return pgd


def _brute_joint(pgd: PrivateGD, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(outcomes (m, 2), probabilities) of (v1, v2), written out independently of the release's code: each
    user's randomized rounding of (gradient + 1)/2 at precision 2g, summed, plus Bin(n b, 1/4), at theta_0 = 0
    and at theta_1 = clip(-eta (1/n) A(v1), -1, 1) with A(c) = (c - b n / 4) / g - n."""
    p = pgd.protocol
    r, x = records[:, 0], records[:, 1]

    def view(theta: float) -> tuple[np.ndarray, np.ndarray]:
        scaled = 2 * p.g * ((logistic_mean(theta * x) - r) * x + 1) / 2
        law = np.array([1.0])
        for s in scaled:
            lo = math.floor(s)
            step = np.zeros(lo + 2)
            step[lo], step[lo + 1] = 1 - (s - lo), s - lo
            law = np.convolve(law, step)
        law = np.convolve(law, stats.binom(pgd.n * p.b, 0.25).pmf(np.arange(pgd.n * p.b + 1)))
        return np.arange(len(law)), law

    first, first_p = view(0.0)
    rows, probs = [], []
    for v1, q1 in zip(first, first_p):
        theta = -pgd.eta * ((v1 - p.b * pgd.n / 4) / p.g - pgd.n) / pgd.n
        second, second_p = view(float(np.clip(theta, -1.0, 1.0)))
        rows.append(np.column_stack([np.full(len(second), v1), second]))
        probs.append(q1 * second_p)
    return np.concatenate(rows), np.concatenate(probs)


def _joint_of(mixture: KeyedMixtureDistribution) -> dict[tuple[int, int], float]:
    out = {}
    for x, lp, block in zip(mixture.first.outcomes, mixture.first.log_probs, mixture.block_of):
        (cond,) = mixture.conditionals[block].coordinates
        for y, ly in zip(cond.outcomes, cond.log_probs):
            out[(int(x), int(y))] = math.exp(lp + ly)
    return out


def _delta(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    return float(np.maximum(p - math.exp(eps) * q, 0.0).sum())


def test_tiny_instance_law_is_the_brute_force_joint_and_its_profile_encloses_the_joint_one():
    """b = 2 (Bin(16, 1/4) noise: ~20 first views, ~400 joint outcomes): the keyed mixture's joint probabilities
    are the hand-written joint's, and delta(eps) and the loss range from the blocks enclose those of the joint
    table (to within its rounding), at eps where the blocks carry different theta_1."""
    pgd = _pgd(noise_bits=2)
    tr = Transcript(pgd, logistic_gradient())
    for d0, d1 in PAIRS:
        laws = [tr.distribution(d) for d in (d0, d1)]
        assert all(isinstance(law, KeyedMixtureDistribution) for law in laws)
        assert len(laws[0].labels) > 3  # interior iterates as well as the two ends
        brute = [_brute_joint(pgd, d) for d in (d0, d1)]
        for law, (rows, probs) in zip(laws, brute):
            got = _joint_of(law)
            want = {(int(a), int(b)): float(w) for (a, b), w in zip(rows, probs) if w > 0}
            assert set(k for k, v in got.items() if v > 1e-300) == set(want)
            assert max(abs(got[k] - want[k]) for k in want) < 1e-12
        keys = sorted(set(map(tuple, brute[0][0].astype(int))) | set(map(tuple, brute[1][0].astype(int))))
        index = {k: i for i, k in enumerate(keys)}
        p, q = np.zeros(len(keys)), np.zeros(len(keys))
        for vec, (rows, probs) in ((p, brute[0]), (q, brute[1])):
            vec[[index[tuple(r)] for r in rows.astype(int)]] = probs
        for eps in (0.0, 0.5, 1.0, 2.0):
            for (a, b), (u, v) in (((laws[0], laws[1]), (p, q)), ((laws[1], laws[0]), (q, p))):
                lo, hi = exact.privacy_profile(a, b, eps).delta.floats()
                truth = _delta(u, v, eps)
                assert lo - 1e-12 <= truth <= hi + 1e-12
                assert hi - lo < 1e-9 + 1e-6 * truth
        both = (p > 0) & (q > 0)
        loss = np.log(p[both]) - np.log(q[both])
        r = exact.loss_range(*laws)
        sup = math.inf if ((p > 0) & (q == 0)).any() else loss.max()
        assert float(r.sup.lo) - 1e-9 <= sup <= float(r.sup.hi) + 1e-9


def test_sampler_has_the_exact_law_on_the_tiny_instance():
    """Transcript.sample (the adaptive sampler P_GD runs) against the keyed mixture on the tiny instance:
    chi-square over the joint (v1, v2) cells (cells with expected count < 5 pooled), 200 000 samples, seeded;
    a correct law fails with probability 1e-3."""
    pgd = _pgd(noise_bits=2)
    tr = Transcript(pgd, logistic_gradient())
    data = PAIRS[0][1]
    law = _joint_of(tr.distribution(data))
    views = tr.sample(data, 200_000, np.random.default_rng(20261126))
    keys = list(law)
    index = {k: i for i, k in enumerate(keys)}
    codes = np.array([index.get((int(a), int(b)), -1) for a, b in views])
    assert (codes >= 0).all()  # no sample outside the support
    observed = np.bincount(codes, minlength=len(keys)).astype(float)
    expected = np.array([law[k] for k in keys]) * len(views)
    small = expected < 5
    obs = np.append(observed[~small], observed[small].sum())
    exp_ = np.append(expected[~small], expected[small].sum())
    exp_ *= obs.sum() / exp_.sum()
    assert stats.chisquare(obs, exp_).pvalue > 1e-3


@pytest.mark.slow
def test_sampler_has_the_exact_law_at_the_suite_point():
    """At the suite's point (b = 2.65e8, tables of 4.8e5 counts) the sampler against the keyed mixture through
    a coarse statistic: where theta_1 lies (-1, interior, +1) crossed with deciles of the second view (cut at
    the -1 block's conditional deciles), 100 000 samples, chi-square; a correct law fails with probability 1e-3."""
    pgd = _pgd()
    tr = Transcript(pgd, logistic_gradient())
    data = PAIRS[1][1]
    law = tr.distribution(data)
    labels = law.labels[:, 0]
    cls = np.where(labels <= -1 + 1e-12, 0, np.where(labels >= 1 - 1e-12, 2, 1))
    block_mass = np.bincount(law.block_of, weights=np.exp(law.first.log_probs), minlength=len(labels))
    (ref,) = law.conditionals[int(np.argmax(np.where(cls == 0, block_mass, -1)))].coordinates
    cdf = np.cumsum(np.exp(ref.log_probs))
    cuts = ref.outcomes[np.searchsorted(cdf, np.arange(1, 10) / 10)]
    expected = np.zeros((3, 10))
    for k, cond in enumerate(law.conditionals):
        (c,) = cond.coordinates
        bins = np.searchsorted(cuts, c.outcomes, side="right")
        expected[cls[k]] += block_mass[k] * np.bincount(bins, weights=np.exp(c.log_probs), minlength=10)
    views = tr.sample(data, 100_000, np.random.default_rng(5))
    theta_1 = tr.path(views)[:, 0, 0]
    row = np.where(theta_1 <= -1 + 1e-12, 0, np.where(theta_1 >= 1 - 1e-12, 2, 1))
    observed = np.zeros((3, 10))
    np.add.at(observed, (row, np.searchsorted(cuts, views[:, 1], side="right")), 1)
    assert expected[1].sum() > 0 and observed[1].sum() > 0  # interior iterates do occur
    obs = np.concatenate([observed[0], observed[2], [observed[1].sum()]])
    exp_ = np.concatenate([expected[0], expected[2], [expected[1].sum()]]) * len(views)
    exp_ *= obs.sum() / exp_.sum()
    assert stats.chisquare(obs, exp_).pvalue > 1e-3


@pytest.mark.slow
def test_suite_point_is_verified_exactly_and_a_weakened_p_gd_is_refuted():
    """The logistic P_GD's whole view at (1, 0.4), n = 8: verified exactly on the suite's first pair; with P_1's
    noise cut to b = 1 (Bin(8, 1/4) against one user's shift of g = 6 counts per iteration) refuted exactly."""
    sound = Transcript(_pgd(), logistic_gradient())
    res = dpaudit.audit_privacy(sound, ApproxDP(1.0, 0.4), pairs=PAIRS[:1], auditor="exact")
    assert res.verdict == "verified"
    weak = Transcript(_pgd(noise_bits=1), logistic_gradient())
    res = dpaudit.audit_privacy(weak, ApproxDP(1.0, 0.4), pairs=PAIRS, auditor="exact")
    assert res.verdict == "refuted"


# -- the harness: keyed mixtures against brute force ------------------------------------------------------------

def _hand_mixture(first_p, block_of, labels, conditionals, log_error=1e-12, tail_mass=0.0):
    first = FiniteDistribution.from_probs(np.arange(len(first_p)), first_p, log_error=log_error, tail_mass=tail_mass)
    conds = tuple(FiniteDistribution.from_probs(np.arange(len(c)), c) for c in conditionals)
    return KeyedMixtureDistribution(first, np.array(block_of), np.array(labels, dtype=float), conds)


BLOCKS = [0, 0, 0, 1, 2, 2]  # a block of three outcomes (one impossible under P), one of one, one of two
P_FIRST = np.array([0.3, 0.1, 0.0, 0.3, 0.15, 0.15])
Q_FIRST = np.array([0.1, 0.2, 0.2, 0.1, 0.1, 0.3])
P_COND = [[0.5, 0.3, 0.2, 0.0], [0.7, 0.1, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25]]
Q_COND = [[0.2, 0.3, 0.3, 0.2], [0.1, 0.1, 0.1, 0.7], [0.25, 0.25, 0.25, 0.25]]


def _brute(first_p, first_q):
    p = (first_p[:, None] * np.array(P_COND)[BLOCKS]).ravel()
    q = (first_q[:, None] * np.array(Q_COND)[BLOCKS]).ravel()
    return p, q


@pytest.mark.parametrize("eps", [-0.5, 0.0, 0.3, 1.0])
def test_keyed_mixture_profile_is_the_joint_one(eps):
    """Every kind of block (several outcomes, one outcome, identical conditionals), both directions, against the
    joint table; with log_error = 0.03 on the first stage the enclosure holds the delta of the worst laws that
    error allows (P raised and Q lowered by e^0.03, and the reverse): the log-error terms are needed."""
    for err in (1e-12, 0.03):
        laws = _hand_mixture(P_FIRST, BLOCKS, [0, 1, 2], P_COND, err), _hand_mixture(Q_FIRST, BLOCKS, [0, 1, 2],
                                                                                     Q_COND, err)
        forward = _brute(P_FIRST, Q_FIRST)
        for (a, b), (p, q) in (((laws[0], laws[1]), forward), ((laws[1], laws[0]), forward[::-1])):
            lo, hi = exact.privacy_profile(a, b, eps).delta.floats()
            s = math.exp(err)
            assert lo <= _delta(p / s, q * s, eps) + 1e-12
            assert _delta(p * s, q / s, eps) - 1e-12 <= hi
            if err < 1e-9:  # the blocks of several outcomes go through the PLD's grid
                assert hi - lo < 1e-4


def test_keyed_mixture_loss_range_and_pure_epsilon():
    laws = _hand_mixture(P_FIRST, BLOCKS, [0, 1, 2], P_COND), _hand_mixture(Q_FIRST, BLOCKS, [0, 1, 2], Q_COND)
    p, q = _brute(P_FIRST, Q_FIRST)
    both = (p > 0) & (q > 0)
    r = exact.loss_range(*laws)
    assert r.sup.lo - 1e-9 <= np.log(p[both] / q[both]).max() <= r.sup.hi + 1e-9
    assert ((q > 0) & (p == 0)).any() and r.inf.hi == -math.inf  # P_COND's block 0 misses an outcome Q has
    # without that outcome both directions are finite
    p_first, p_cond = np.array([0.3, 0.1, 0.1, 0.2, 0.15, 0.15]), [[0.5, 0.3, 0.1, 0.1], *P_COND[1:]]
    laws = _hand_mixture(p_first, BLOCKS, [0, 1, 2], p_cond), laws[1]
    p = (p_first[:, None] * np.array(p_cond)[BLOCKS]).ravel()
    loss = np.log(p / q)
    r = exact.loss_range(*laws)
    assert r.sup.lo - 1e-9 <= loss.max() <= r.sup.hi + 1e-9 and r.inf.lo - 1e-9 <= loss.min() <= r.inf.hi + 1e-9
    assert r.sup.hi - r.sup.lo < 1e-9 and r.inf.hi - r.inf.lo < 1e-9
    pure = exact.pure_epsilon(*laws).epsilon
    assert pure.lo - 1e-9 <= np.abs(loss).max() <= pure.hi + 1e-9


def test_unlisted_first_stage_mass_counts_against_the_claim():
    """tail_mass of the first stage is added to delta's upper bound (it could sit anywhere) and unbounds the loss."""
    first = P_FIRST * 0.99
    laws = (_hand_mixture(first, BLOCKS, [0, 1, 2], P_COND, tail_mass=0.01),
            _hand_mixture(Q_FIRST, BLOCKS, [0, 1, 2], Q_COND))
    p, q = _brute(first, Q_FIRST)
    lo, hi = exact.privacy_profile(*laws, 1.0).delta.floats()
    assert lo <= _delta(p, q, 1.0) and hi >= _delta(p, q, 1.0) + 0.01 - 1e-12
    assert math.isinf(exact.loss_range(*laws).sup.hi)


def test_blocks_must_be_keyed_by_the_observed_first_stage():
    """The decomposition holds only if both inputs label each first outcome alike: a relabelled outcome is refused."""
    laws = (_hand_mixture(P_FIRST, BLOCKS, [0, 1, 2], P_COND),
            _hand_mixture(Q_FIRST, [0, 0, 1, 1, 2, 2], [0, 1, 2], Q_COND))
    with pytest.raises(MechanismError, match="labelled"):
        exact.privacy_profile(*laws, 1.0)
    with pytest.raises(MechanismError, match="labelled"):
        exact.loss_range(*laws)


def test_transcript_refuses_beyond_its_limits(monkeypatch):
    tr = Transcript(_pgd(noise_bits=2), logistic_gradient())
    monkeypatch.setattr(pgd_views, "MAX_BLOCKS", 3)
    with pytest.raises(ValueError, match="MAX_BLOCKS"):
        tr.distribution(PAIRS[0][0])
    monkeypatch.setattr(pgd_views, "MAX_FIRST_OUTCOMES", 10)
    with pytest.raises(ValueError, match="MAX_FIRST_OUTCOMES"):
        tr.distribution(PAIRS[0][0])
    longer = PrivateGD(2.0, 0.4, 4, 1, lipschitz=1.0, radius=1.0)
    assert longer.T_it > 2
    with pytest.raises(ValueError, match="T_it <= 2"):
        Transcript(longer, logistic_gradient()).distribution(np.zeros((4, 2)))


# -- the finite kernels' fast paths the blocks rely on ------------------------------------------------------------

def test_finite_hockey_stick_keeps_outcomes_within_the_log_error_of_the_event():
    """Outcomes just below the event {log p - log q > eps} still count in the upper bound when the log-error could
    lift them above it (the kernel skips only outcomes at least 2 log_error below)."""
    p = FiniteDistribution.from_probs(np.arange(3), [0.5, 0.3, 0.2], log_error=0.03)
    q = FiniteDistribution.from_probs(np.arange(3), [0.5 / math.exp(0.98), 0.3, 0.2 + 0.5 - 0.5 / math.exp(0.98)],
                                      log_error=0.03)
    lo, hi = exact.finite.hockey_stick(p, q, 1.0).delta.floats()
    s = math.exp(0.03)
    worst = float(np.maximum(p.probs * s - math.exp(1.0) * q.probs / s, 0).sum())
    assert lo == 0.0 and hi >= worst > 0


def test_finite_align_of_integer_runs_is_the_general_alignment():
    """Two runs of consecutive integers (overlapping, nested, touching, apart) are aligned as the sorting path aligns
    them (runs apart take the sorting path: no unlisted outcomes in between)."""
    for (a0, a1), (b0, b1) in [((0, 5), (3, 9)), ((2, 4), (0, 9)), ((0, 2), (2, 7)), ((0, 2), (5, 7))]:
        p = FiniteDistribution.from_probs(np.arange(a0, a1), np.full(a1 - a0, 1 / (a1 - a0)))
        q = FiniteDistribution.from_probs(np.arange(b0, b1), np.full(b1 - b0, 1 / (b1 - b0)))
        fast = exact.finite.align(p, q)
        slow = exact.finite.align(FiniteDistribution(p.outcomes.astype(float), p.log_probs),
                                  FiniteDistribution(q.outcomes.astype(float), q.log_probs))
        assert np.array_equal(fast.outcomes, slow.outcomes.astype(int))
        assert np.array_equal(fast.logp, slow.logp) and np.array_equal(fast.logq, slow.logq)


def test_suite_audits_the_logistic_view_exactly_and_keeps_the_black_box_cross_check():
    from dpaudit.audits.shuffle_glm import suite

    entries = {e.id: e for e in suite.entries if e.id.startswith("shuffle-glm/lemT.2-privacy@transcript,logistic")}
    exact_entry = entries["shuffle-glm/lemT.2-privacy@transcript,logistic,exact,eps1,delta0.4,n8,d1"]
    black_box = entries["shuffle-glm/lemT.2-privacy@transcript,logistic,eps1,delta0.4,n8,d1"]
    assert (exact_entry.auditor, black_box.auditor) == ("exact", "statistical")
    assert isinstance(exact_entry.subject, Transcript) and exact_entry.subject.pgd.T_it == 2
    assert (exact_entry.claim.epsilon, exact_entry.claim.delta) == (1.0, 0.4) == (black_box.claim.epsilon,
                                                                                  black_box.claim.delta)
    for (a0, a1), (b0, b1) in zip(exact_entry.pairs, black_box.pairs):
        assert np.array_equal(a0, b0) and np.array_equal(a1, b1)
