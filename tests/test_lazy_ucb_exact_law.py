"""The exact law of Anytime-Lazy-UCB's decisions on two arms (AnytimeLazyUCB.decision_distribution,
algorithms/online/lazy_law.py): against the per-round sampler (seeded chi-square goodness-of-fit
tests, false-failure rate stated beside each), against an independent computation by numerical
integration with scipy on small horizons, its ball enclosures (against a 60-digit recomputation, under a
broken ball operation, exact ordering of break points, precision retries), its size limit, the half-noise bug
refuted exactly, and the private-online suite entries that use it."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from decision_laws import (
    assert_logs_within_stated_error,
    assert_sampler_matches_law,
    contains_reference,
    flint_precision,
    sequence_law,
)
from flint import arb
from scipy import integrate, stats

from dpaudit import PureDP, audit_privacy
from dpaudit.algorithms.online import AnytimeLazyUCB, lazy_law
from dpaudit.audits import private_online
from dpaudit.bandits.transcripts import DecisionTranscript, ExactDecisionTranscript
from dpaudit.suite import RunContext

ALPHA = 1e-4  # false-failure rate of each chi-square test below


def _bonus(t: int, lam: int, eps: float) -> float:
    """Eq. 4's bonus, written out here independently of the policy."""
    return math.sqrt(3 * math.log(t) / lam) + 3 * math.log(t) / (eps * lam)


@pytest.mark.parametrize("policy, table", [
    (AnytimeLazyUCB(1.0), np.random.default_rng(3).uniform(size=(10, 2)).round(2)),
    (AnytimeLazyUCB(1.0, literal_init=True), np.random.default_rng(4).uniform(size=(10, 2)).round(2)),
    (AnytimeLazyUCB(1.0, literal_init=True), np.ones((9, 2))),  # both initial means 1: a tie, to arm 0
    (AnytimeLazyUCB(0.5, noise_scale="1/(2eps)"), np.tile([0.7, 0.4], (11, 1))),
])
@pytest.mark.parametrize("path", ["per-round", "blocks"])
def test_exact_law_matches_the_samplers(policy, table, path):
    """60,000 runs of each path (the per-round reference; the blocks the transcript's sample plays, the
    fast path's draws) against the exact law: every run's sequence is an outcome of the law, and a
    chi-square test (cells of expected count < 5 pooled, a pool below 5 merged into the smallest cell)
    passes at level 1e-4 (its false-failure rate)."""
    assert_sampler_matches_law(policy, table, ALPHA, path=path)


def _laplace_sf(x: np.ndarray, eps: float) -> np.ndarray:
    return stats.laplace.sf(x, scale=1 / eps)


def test_exact_law_at_T4_equals_direct_integration():
    """T = 4: rounds 1, 2 play arms 0, 1; rounds 3 and 4 compare z = v0 - v1 with thresholds theta_3,
    theta_4 (no array fills in between). Each outcome's probability by scipy's quad over v1 of Laplace
    tails, with the thresholds from eq. 4 written out here."""
    eps, table = 1.0, np.array([[0.3, 0.9], [0.2, 0.6], [0.5, 0.1], [0.8, 0.4]])
    theta = {t: _bonus(t, 1, eps) - _bonus(t, 1, eps) + table[1, 1] - table[0, 0] for t in (3, 4)}
    pdf = stats.laplace(scale=1 / eps).pdf

    def prob(lo: float, hi: float) -> float:  # P(lo <= v0 - v1 < hi)
        f = lambda v1: pdf(v1) * (_laplace_sf(v1 + lo, eps) - _laplace_sf(v1 + hi, eps))  # noqa: E731
        return integrate.quad(f, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12, points=None)[0]

    top, bottom = max(theta.values()), min(theta.values())
    # arm 0 at t iff z >= theta_t: the index difference is monotone, so arm 0 then arm 1 cannot follow
    # each other here except as the thresholds allow
    direct = {(0, 1, 0, 0): prob(top, np.inf), (0, 1, 1, 1): prob(-np.inf, bottom)}
    if theta[3] < theta[4]:
        direct[(0, 1, 0, 1)] = prob(theta[3], theta[4])
    else:
        direct[(0, 1, 1, 0)] = prob(theta[4], theta[3])
    law = sequence_law(AnytimeLazyUCB(eps), table)
    direct = {k: v for k, v in direct.items() if v > 0}
    assert law.keys() == direct.keys()
    for key, p in direct.items():
        assert math.isclose(law[key], p, rel_tol=1e-9), (key, law[key], p)


def test_exact_law_across_an_array_release_equals_direct_integration():
    """T = 6, arm 0 paying 1 and arm 1 nothing (then mirrored): on the path 0, 1, 0, 0, 0, 0 arm 0's array 1 fills at
    round 4 (its third pull) and rounds 5, 6 compare v0'/2 - v1 with the new noise v0' (a transfer).
    Its probability is the integral over v1 of P(v0 >= v1 + max theta_3,4) P(v0' >= 2 (v1 + max
    theta_5,6)), computed here by scipy's quad."""
    eps, table = 1.0, np.tile([1.0, 0.0], (6, 1))
    first = max(_bonus(t, 1, eps) - _bonus(t, 1, eps) + 0.0 - 1.0 for t in (3, 4))
    second = max(_bonus(t, 1, eps) - _bonus(t, 2, eps) + 0.0 - 2.0 / 2 for t in (5, 6))
    pdf = stats.laplace(scale=1 / eps).pdf
    f = lambda v1: pdf(v1) * _laplace_sf(v1 + first, eps) * _laplace_sf(2 * (v1 + second), eps)  # noqa: E731
    direct = integrate.quad(f, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12)[0]
    law = sequence_law(AnytimeLazyUCB(eps), table)
    assert math.isclose(law[(0, 1, 0, 0, 0, 0)], direct, rel_tol=1e-9)
    # mirrored: arm 1 pays 1; on 0, 1, 1, 1, 1, 1 arm 1's array 1 fills at round 4, and the comparisons
    # are v0 - v1 < min theta_3,4, then v0 - v1'/2 < min theta_5,6: the integral over v0
    table = np.tile([0.0, 1.0], (6, 1))
    first = 1.0  # theta_3 = theta_4 = S_1 - S_0 (equal sizes, equal bonuses)
    second = min(_bonus(t, 2, eps) - _bonus(t, 1, eps) + 2.0 / 2 - 0.0 for t in (5, 6))
    f = lambda v0: pdf(v0) * _laplace_sf(v0 - first, eps) * _laplace_sf(2 * (v0 - second), eps)  # noqa: E731
    direct = integrate.quad(f, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12)[0]
    law = sequence_law(AnytimeLazyUCB(eps), table)
    assert math.isclose(law[(0, 1, 1, 1, 1, 1)], direct, rel_tol=1e-9)


_TABLE = np.random.default_rng(5).uniform(size=(9, 2))


def test_enclosures_contain_the_60_digit_value_and_are_tiny():
    """The two-precision comparison, as a check: each path's ball at the working precision (40 digits), and
    at lower ones (where the balls are wide enough that a ball operation understating its radius shows),
    holds the value recomputed at 200 bits (60 digits); at the working precision the balls' relative widths
    are below 1e-30, and the stated error of the float64 log-probabilities covers their distance to the
    60-digit logs while being only their float64 rounding (a unit in the last place at most)."""
    high = lazy_law.path_probabilities(_TABLE, 1.0, Fraction(1), False, precision=200)
    for bits in (20, 24, 48, 64):
        assert contains_reference(lazy_law.path_probabilities(_TABLE, 1.0, Fraction(1), False, bits), high), bits
    low = lazy_law.path_probabilities(_TABLE, 1.0, Fraction(1), False)
    assert contains_reference(low, high)
    assert max(float(b.rad()) / float(b.mid()) for b in low.values()) < 1e-30
    outcomes, logs, error = lazy_law.decision_law(_TABLE, range(1, 10), 1.0, Fraction(1), False)
    assert_logs_within_stated_error(high, outcomes, logs, error)


def test_a_broken_ball_operation_is_caught(monkeypatch):
    """Mutation: e^x returned as an exact number 1e-30 (relative) off, the radius dropped. Some path's ball
    then misses the 60-digit value, so the containment check above fails."""
    high = lazy_law.path_probabilities(_TABLE, 1.0, Fraction(1), False, precision=200)
    monkeypatch.setattr(lazy_law, "_exp", lambda x: arb((x.exp() * (1 + arb(10) ** -30)).mid()))
    low = lazy_law.path_probabilities(_TABLE, 1.0, Fraction(1), False)
    assert low.keys() == high.keys()
    assert not contains_reference(low, high)


def test_points_are_ordered_exactly_or_not_at_all():
    """Equal expressions compare equal (a threshold with equal sizes: the bonuses cancel exactly); different
    expressions are ordered only when their difference's ball excludes 0: a rational within 1e-45 of
    sqrt(3 ln 2) is undecided at 136 bits and decided at 272, and sqrt(3 ln 4) against sqrt(2) sqrt(3 ln 2)
    (equal in fact, different expressions) is undecided at every precision."""
    P = lazy_law.Point
    eps = Fraction(1)
    with flint_precision(lazy_law.PRECISION):
        bonus = P(lazy_law._bonus_form(7, 2, eps))
        assert lazy_law.compare(bonus - bonus, lazy_law.ZERO) == 0
        assert lazy_law.compare(P.rational(Fraction(1, 3)), P.rational(Fraction(1, 3) + Fraction(1, 10**60))) == -1
    with mpmath.workdps(80):
        approx = Fraction(mpmath.nstr(mpmath.sqrt(3 * mpmath.log(2)), 70)) + Fraction(1, 10**45)
    with flint_precision(lazy_law.PRECISION), pytest.raises(lazy_law.PrecisionNeeded):
        lazy_law.compare(P({("sq", 2, 0): Fraction(1)}), P.rational(approx))
    with flint_precision(2 * lazy_law.PRECISION):
        assert lazy_law.compare(P({("sq", 2, 0): Fraction(1)}), P.rational(approx)) == -1
    for bits in (lazy_law.PRECISION, lazy_law.MAX_PRECISION):
        with flint_precision(bits), pytest.raises(lazy_law.PrecisionNeeded):
            lazy_law.compare(P({("sq", 4, 0): Fraction(1)}), P({("sq", 2, 1): Fraction(1)}))


def test_an_undecided_comparison_is_retried_at_a_higher_precision(monkeypatch):
    """Started at 8 bits (where two thresholds' balls overlap) or 10 (where a path probability's ball holds
    0), the law is recomputed at doubled precisions until everything is decided (the retries counted), its
    balls exclude 0 and hold the 60-digit values; a comparison that stays undecided at MAX_PRECISION raises
    instead of returning a law."""
    paths = lazy_law._paths
    high = lazy_law.path_probabilities(_TABLE, 1.0, Fraction(1), False, precision=200)
    for start in (8, 10):
        calls: list[int] = []
        monkeypatch.setattr(lazy_law, "_paths", lambda *a, calls=calls: calls.append(lazy_law.ctx.prec) or paths(*a))
        low = lazy_law.path_probabilities(_TABLE, 1.0, Fraction(1), False, precision=start)
        assert len(calls) > 1 and calls == [start * 2**i for i in range(len(calls))]
        assert all(b > 0 for b in low.values()) and contains_reference(low, high)

    def undecided(*args):
        raise lazy_law.PrecisionNeeded("always")

    monkeypatch.setattr(lazy_law, "_paths", undecided)
    with pytest.raises(ArithmeticError, match="undecided"):
        lazy_law.path_probabilities(_TABLE, 1.0, Fraction(1), False)


def test_rounds_are_a_marginal_of_the_whole_sequence():
    policy, table = AnytimeLazyUCB(1.0), np.random.default_rng(6).uniform(size=(9, 2))
    whole = sequence_law(policy, table)
    part = policy.decision_distribution(table, [3, 7])
    for row, p in zip(part.outcomes, part.probs, strict=True):
        assert math.isclose(p, sum(q for k, q in whole.items() if (k[2], k[6]) == tuple(row)), rel_tol=1e-12)


def test_exact_law_is_refused_beyond_its_size_limit_but_sampling_is_not():
    policy = AnytimeLazyUCB(1.0)
    with pytest.raises(ValueError, match="two arms and at most"):
        policy.decision_distribution(np.zeros((15, 2)), [3])
    with pytest.raises(ValueError, match="two arms and at most"):
        policy.decision_distribution(np.zeros((6, 3)), [3])
    transcript = DecisionTranscript(policy, arms=2, horizon=500)  # refused only when the law is asked for
    assert isinstance(transcript, ExactDecisionTranscript)
    assert transcript.sample(np.zeros((500, 2)), 4, np.random.default_rng(0)).shape == (4, 500)


def test_half_the_noise_scale_is_refuted_with_certainty():
    """Lap(1/(2 eps)) instead of Lap(1/eps) on the arrays' sums: the exact audit refutes 1-DP (loss near
    2, its enclosure above 1.9) on the table pair that keeps the printed noise verified (below 1)."""
    table = np.zeros((6, 2))
    changed = table.copy()
    changed[0] = 1.0
    for scale, verdict in (("1/eps", "verified"), ("1/(2eps)", "refuted")):
        transcript = DecisionTranscript(AnytimeLazyUCB(1.0, noise_scale=scale), arms=2, horizon=6)
        result = audit_privacy(transcript, PureDP(1.0), pairs=[(table, changed)], auditor="exact", seed=0)
        assert result.verdict == verdict
        lo, hi = result.statistic.interval
        assert (hi < 1.0) if verdict == "verified" else (lo > 1.9)


def test_noise_scale_option_is_checked():
    with pytest.raises(ValueError, match="noise_scale"):
        AnytimeLazyUCB(1.0, noise_scale="2/eps")
    assert "Lap(1/(2eps))" in AnytimeLazyUCB(1.0, noise_scale="1/(2eps)").name


def test_suite_keeps_black_box_entries_statistical_beside_the_exact_ones():
    entries = {e.id: e for e in private_online.suite.entries}
    for point in ("thm2@algorithm,eps1,K2,T10", "thm2@algorithm,literal-init,eps1,K2,T10"):
        assert entries[f"private-online/{point}"].plan.statistical
    for point in ("thm2@algorithm,exact,eps1,K2,T10", "thm2@algorithm,exact,literal-init,eps1,K2,T10"):
        assert not entries[f"private-online/{point}"].plan.statistical
    assert entries["private-online/thm2@algorithm,exact,literal-init,eps1,K2,T10"].expected == "refuted"


def test_piecewise_algebra_integrates_a_laplace_difference():
    """The algebra alone: the density of v0 - v1 (two Lap(1)) integrated by one transfer is 1/2 on v0 > v1,
    and its CDF at 0.7 matches the closed form 1 - (2 + 0.7) e^{-0.7} / 4, each inside the ball returned."""
    laplace = lazy_law.Piecewise.laplace
    with flint_precision(100):
        h = lazy_law.transfer(laplace(Fraction(1)), laplace(Fraction(1)), Fraction(1), lazy_law.ZERO,
                              lazy_law.POS_INF)  # v0 in (v1, inf): P(v0 - v1 > 0) = 1/2
        p = lazy_law.total(h)
        assert p.contains(arb(0.5)) and p.rad() < 1e-25
        point = lazy_law.Point.rational(Fraction(7, 10))
        h = lazy_law.transfer(laplace(Fraction(1)), laplace(Fraction(1)), Fraction(1), lazy_law.NEG_INF, point)
        p = lazy_law.total(h)  # P(v0 - v1 < 0.7)
    with mpmath.workdps(60):
        exact = 1 - (2 + mpmath.mpf(7) / 10) * mpmath.exp(-mpmath.mpf(7) / 10) / 4
        assert p.rad() < 1e-25 and abs(mpmath.mpf(p.mid().str(50, radius=False)) - exact) <= float(p.rad())


def test_tiny_horizons_have_their_closed_forms():
    """T = 1, 2: the forced pulls (arm 0, then arm 1), probability 1. T = 3: arm 0 iff v0 - v1 >= S_1 - S_0,
    and v0 - v1 (two Lap(1)) has P(D < -d) = (2 + d) e^{-d} / 4 for d >= 0."""
    policy = AnytimeLazyUCB(1.0)
    for table, played in ((np.array([[0.5, 0.5]]), [0]), (np.array([[0.5, 0.5], [0.1, 0.2]]), [0, 1])):
        law = policy.decision_distribution(table, range(1, len(table) + 1))
        assert law.outcomes.tolist() == [played] and law.probs.tolist() == [1.0]
    law = sequence_law(policy, np.array([[0.5, 0.5], [0.1, 0.2], [0.1, 0.2]]))
    assert math.isclose(law[(0, 1, 1)], (2 + 0.3) * math.exp(-0.3) / 4, rel_tol=1e-12)


@pytest.mark.slow
def test_suite_exact_entries_keep_their_verdicts():
    """The private-online exact entries at the quick budget: the printed noise is not refuted (verified now
    that the law's error is a bound: the loss 1 - 7.6e-15 at the sequence that plays arm 1 from round 2
    on, its enclosure below 1), and the literal initialisation is refuted with an infinite loss."""
    entries = {e.id: e for e in private_online.suite.entries}
    ctx = RunContext(0, "quick", 0.01, np.random.SeedSequence(0))
    finding = entries["private-online/thm2@algorithm,exact,eps1,K2,T10"].audit(ctx).finding
    lo, hi = finding.statistic.interval
    assert finding.verdict == "verified"
    assert 1 - 1e-13 < lo <= 1 - 7.6e-15 <= hi < 1
    finding = entries["private-online/thm2@algorithm,exact,literal-init,eps1,K2,T10"].audit(ctx).finding
    assert finding.verdict == "refuted" and finding.statistic.interval[0] == math.inf
