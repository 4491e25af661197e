"""The exact law of Hybrid-UCB's decisions on two arms (HybridUCB.decision_distribution,
algorithms/online/hybrid_law.py, with the polyhedron integrator algorithms/online/polytope_law.py): against
the per-round sampler (seeded chi-square goodness-of-fit tests, false-failure rate stated beside each),
against an independent computation by numerical integration with scipy at T = 4 and T = 5, its ball
enclosures (against a 60-digit recomputation, under a broken ball operation, canonical thresholds, precision
retries), the integrator's own safeguards (merged identical bounds, exact zeros, the LP pruning), its size
limit and the half-noise option. The privacy audits that read the law (the private-online suite entry, the
noise at half and a quarter of its scale) are in tests/test_hybrid_ucb_audits.py."""

from __future__ import annotations

import math
import re
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
from scipy import integrate

from dpaudit.algorithms.online import HybridUCB, hybrid_law, hybrid_ucb, lazy_law, polytope_law
from dpaudit.algorithms.online.registry import ALGORITHMS
from dpaudit.bandits.transcripts import DecisionTranscript, ExactDecisionTranscript

ALPHA = 1e-4  # false-failure rate of each chi-square test below


@pytest.fixture(autouse=True)
def _law_computed_afresh():
    """HybridUCB remembers the laws it computed (hybrid_ucb._law): each test here computes its own, so that it
    tests the law's code as it is now, not a law an earlier test (or mutation testing's unmutated warm-up run,
    whose process forks the mutants' runs) left in the cache."""
    hybrid_ucb._law.cache_clear()
    yield
    hybrid_ucb._law.cache_clear()


def _bonus(t: int, pulls: int, eps: float) -> float:
    """Eq. 35's bonus, written out here independently of the policy (base-2 logs)."""
    return (math.sqrt(3 * math.log2(t) / pulls)
            + 6 * math.sqrt(8) * math.log2(t) * math.floor(math.log2(pulls + 1)) / (pulls * eps))


@pytest.mark.slow
@pytest.mark.parametrize("policy, table", [
    (HybridUCB(1.0), np.random.default_rng(3).uniform(size=(6, 2)).round(2)),
    (HybridUCB(4.0), np.random.default_rng(4).uniform(size=(5, 2)).round(2)),
    (HybridUCB(0.5, noise_scale="1/eps"), np.tile([0.7, 0.4], (6, 1))),
])
@pytest.mark.parametrize("path", ["per-round", "blocks", "blocks, every round"])
def test_exact_law_matches_the_samplers(policy, table, path):
    """60,000 runs of each path (the per-round reference; the blocks the transcript's sample plays, the
    fast path's draws) against the exact law: the law sums to 1, every run's sequence is an outcome of
    the law, and a chi-square test (cells of expected count < 5 pooled, a pool below 5 merged into the
    smallest cell) passes at level 1e-4 (its false-failure rate)."""
    assert_sampler_matches_law(policy, table, ALPHA, path=path)


# -- an independent computation: nested scipy quadratures over the two initial array noises ----------------

class _Laplace:
    """Lap(scale) with pdf, sf and cdf in closed form (scipy's frozen distributions are too slow inside nested
    quadratures)."""

    def __init__(self, scale: float):
        self.b = scale

    def pdf(self, x: float) -> float:
        return math.exp(-abs(x) / self.b) / (2 * self.b)

    def sf(self, x: float) -> float:
        return 0.5 * math.exp(-x / self.b) if x >= 0 else 1 - 0.5 * math.exp(x / self.b)

    def cdf(self, x: float) -> float:
        return self.sf(-x)


def _quad(f, lo: float, hi: float, breaks=()) -> float:
    """The integral of f over (lo, hi), split at the kinks ``breaks`` (and 0) so that quad sees smooth pieces."""
    cuts = sorted({lo, hi, *[b for b in (0.0, *breaks) if lo < b < hi]})
    return sum(integrate.quad(f, a, b, epsabs=1e-20, epsrel=1e-10, limit=200)[0] for a, b in zip(cuts, cuts[1:]))


def _path_probability(eps: float, theta3: float, above3: bool, factors) -> float:
    """integral f(za) f(zb) 1{za - zb >= theta3 (or <)} prod_i factor_i(za, zb) dza dzb, Z ~ Lap(2/eps) (arrays)
    and each factor a Laplace tail of a p-sum noise given (za, zb), with its kink in za as a function of zb."""
    z = _Laplace(2 / eps)

    def inner(zb: float) -> float:
        lo, hi = (zb + theta3, np.inf) if above3 else (-np.inf, zb + theta3)
        kinks = [kink(zb) for _, kink in factors]
        return z.pdf(zb) * _quad(lambda za: z.pdf(za) * math.prod([f(za, zb) for f, _ in factors]), lo, hi, kinks)

    # the inner integral is smooth in zb except where two of its kinks (0, the round-3 edge zb + theta3, the
    # factors' kinks, all linear in zb) meet
    lines = [(0.0, 0.0), (1.0, theta3)] + [(kink(1.0) - kink(0.0), kink(0.0)) for _, kink in factors]
    meets = [(b2 - b1) / (a1 - a2) for i, (a1, b1) in enumerate(lines) for a2, b2 in lines[i + 1:] if a1 != a2]
    return _quad(inner, -np.inf, np.inf, meets)


# quad may warn (roundoff, subdivisions) on pieces where the integrand is tiny; the 1e-8 agreement is the check
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
def test_exact_law_at_T4_equals_direct_integration():
    """T = 4: rounds 1, 2 pull arms 0, 1; round 3 compares Za - Zb with theta_3 = r_2,1 - r_1,0; round 4 reads the
    pulled arm's second estimate, (Z + Y)/2 with Y block 1's first p-sum (Lap(2/eps)). Each of the four paths'
    probabilities by nested quad over (Za, Zb) of Y's Laplace tail, with eq. 35 written out here."""
    eps, table = 1.0, np.array([[0.3, 0.9], [0.2, 0.6], [0.5, 0.1], [0.8, 0.4]])
    y = _Laplace(2 / eps)
    theta3 = table[1, 1] - table[0, 0]
    direct = {}
    for a3 in (0, 1):
        if a3 == 0:  # O = (2, 1): (Za + Ya)/2 - Zb >= theta4  <=>  Ya >= 2 (theta4 + Zb) - Za
            theta4 = _bonus(4, 1, eps) - _bonus(4, 2, eps) + table[1, 1] - (table[0, 0] + table[2, 0]) / 2
            edge = lambda zb, th=theta4: 2 * (th + zb)  # noqa: E731  (the kink in za)
            arm0 = lambda za, zb, th=theta4: y.sf(2 * (th + zb) - za)  # noqa: E731
        else:  # O = (1, 2): Za - (Zb + Yb)/2 >= theta4  <=>  Yb <= 2 (Za - theta4) - Zb
            theta4 = _bonus(4, 2, eps) - _bonus(4, 1, eps) + (table[1, 1] + table[2, 1]) / 2 - table[0, 0]
            edge = lambda zb, th=theta4: th + zb / 2  # noqa: E731
            arm0 = lambda za, zb, th=theta4: y.cdf(2 * (za - th) - zb)  # noqa: E731
        for a4 in (0, 1):
            factor = arm0 if a4 == 0 else (lambda za, zb, g=arm0: 1 - g(za, zb))
            direct[(0, 1, a3, a4)] = _path_probability(eps, theta3, a3 == 0, [(factor, edge)])
    law = sequence_law(HybridUCB(eps), table)
    assert law.keys() == direct.keys()
    for key, p in direct.items():
        assert math.isclose(law[key], p, rel_tol=1e-8), (key, law[key], p)


# quad may warn (roundoff, subdivisions) on pieces where the integrand is tiny; the 1e-8 agreement is the check
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
def test_exact_law_at_T5_equals_direct_integration():
    """T = 5, the paths that keep pulling one arm after the initialisation (arm 0 at rounds 3, 4 or arm 1 at rounds
    3, 4): its estimates at pulls 2 and 3 read Z + Y1 and Z + Y2 (block 1's p-sums ending at leaves 1 and 2, each
    Lap(2/eps), independent), so given (Za, Zb) rounds 4 and 5 are two independent Laplace tails."""
    eps, table = 1.0, np.array([[0.9, 0.1], [0.2, 0.0], [1.0, 0.3], [0.8, 0.1], [0.5, 0.5]])
    y = _Laplace(2 / eps)
    theta3 = table[1, 1] - table[0, 0]
    law = sequence_law(HybridUCB(eps), table)
    # arm 0 at rounds 3 and 4: O = (2, 1) at round 4 and (3, 1) at round 5
    s0 = np.cumsum([table[0, 0], table[2, 0], table[3, 0]])
    theta4 = _bonus(4, 1, eps) - _bonus(4, 2, eps) + table[1, 1] - s0[1] / 2
    theta5 = _bonus(5, 1, eps) - _bonus(5, 3, eps) + table[1, 1] - s0[2] / 3
    round4 = (lambda za, zb: y.sf(2 * (theta4 + zb) - za), lambda zb: 2 * (theta4 + zb))
    for a5 in (0, 1):
        side = y.sf if a5 == 0 else y.cdf
        tail = lambda za, zb, side=side: side(3 * (theta5 + zb) - za)  # noqa: E731
        direct = _path_probability(eps, theta3, True, [round4, (tail, lambda zb: 3 * (theta5 + zb))])
        assert math.isclose(law[(0, 1, 0, 0, a5)], direct, rel_tol=1e-8), (a5, law[(0, 1, 0, 0, a5)], direct)
    # arm 1 at rounds 3 and 4: O = (1, 2) at round 4, (1, 3) at round 5; arm 1 iff Za - (Zb + Yb)/O_1 < theta
    s1 = np.cumsum([table[1, 1], table[2, 1], table[3, 1]])
    theta4 = _bonus(4, 2, eps) - _bonus(4, 1, eps) + s1[1] / 2 - table[0, 0]
    theta5 = _bonus(5, 3, eps) - _bonus(5, 1, eps) + s1[2] / 3 - table[0, 0]
    round4 = (lambda za, zb: y.sf(2 * (za - theta4) - zb), lambda zb: theta4 + zb / 2)
    for a5 in (0, 1):
        side = y.cdf if a5 == 0 else y.sf
        tail = lambda za, zb, side=side: side(3 * (za - theta5) - zb)  # noqa: E731
        direct = _path_probability(eps, theta3, False, [round4, (tail, lambda zb: theta5 + zb / 3)])
        assert math.isclose(law[(0, 1, 1, 1, a5)], direct, rel_tol=1e-8), (a5, law[(0, 1, 1, 1, a5)], direct)


def test_tiny_horizons_have_their_closed_forms():
    """T = 1, 2: the forced pulls (arm 0, then arm 1), probability 1. T = 3: arm 0 iff Za - Zb >= r_2,1 - r_1,0
    (equal pulls: the bonuses cancel), and the difference D of two Lap(2) has P(D >= d) = (2 + d/2) e^{-d/2}/4."""
    policy = HybridUCB(1.0)
    for table, played in ((np.array([[0.5, 0.5]]), [0]), (np.array([[0.5, 0.5], [0.1, 0.2]]), [0, 1])):
        law = policy.decision_distribution(table, range(1, len(table) + 1))
        assert law.outcomes.tolist() == [played] and law.probs.tolist() == [1.0]
    law = sequence_law(policy, np.array([[0.5, 0.5], [0.1, 0.9], [0.1, 0.2]]))
    d = 0.9 - 0.5
    assert math.isclose(law[(0, 1, 0)], (2 + d / 2) * math.exp(-d / 2) / 4, rel_tol=1e-12)


# -- enclosures, exact thresholds, retries ------------------------------------------------------------------

_TABLE = np.random.default_rng(5).uniform(size=(5, 2))


def test_enclosures_contain_the_60_digit_value_and_are_tiny():
    """Each path's ball at the working precision (40 digits), and at lower ones (where a ball operation
    understating its radius would show), holds the value recomputed at 200 bits (60 digits); at the working
    precision the balls' relative widths are below 1e-30, and the stated error of the float64 log-probabilities
    covers their distance to the 60-digit logs while being only their float64 rounding."""
    high = hybrid_law.path_probabilities(_TABLE, 1.0, 1.0, precision=200)
    for bits in (24, 48, 64):
        assert contains_reference(hybrid_law.path_probabilities(_TABLE, 1.0, 1.0, bits), high), bits
    low = hybrid_law.path_probabilities(_TABLE, 1.0, 1.0)
    assert contains_reference(low, high)
    assert max(float(b.rad()) / float(b.mid()) for b in low.values()) < 1e-30
    outcomes, logs, error = hybrid_law.decision_law(_TABLE, range(1, 6), 1.0, 1.0)
    assert_logs_within_stated_error(high, outcomes, logs, error)


def test_a_broken_ball_operation_is_caught(monkeypatch):
    """Mutation: e^x returned as an exact number 1e-30 (relative) off, the radius dropped. Some path's ball then
    misses the 60-digit value, so the containment check above fails."""
    high = hybrid_law.path_probabilities(_TABLE, 1.0, 1.0, precision=200)
    monkeypatch.setattr(lazy_law, "_exp", lambda x: arb((x.exp() * (1 + arb(10) ** -30)).mid()))
    low = hybrid_law.path_probabilities(_TABLE, 1.0, 1.0)
    assert low.keys() == high.keys()
    assert not contains_reference(low, high)


def test_thresholds_are_exact_and_canonical():
    """The bonus form's value is eq. 35's (the policy's float bonus); numbers equal in fact get equal forms
    (sqrt(3 log2 4 / 2) = sqrt(3 log2 8 / 3) = sqrt(3), sqrt(3 log2 9 / 2) = sqrt(3 log2 3), and the log2 t of
    the second term split over primes, log2 6 = 1 + log2 3), so they compare equal exactly; different ones are
    ordered by their balls."""
    P, eps = lazy_law.Point, Fraction(1)
    policy = HybridUCB(1.0)
    with flint_precision(lazy_law.PRECISION):
        for t in (2, 3, 4, 5, 6, 8, 9, 12, 16):
            for pulls in (1, 2, 3, 4, 5, 7):
                value = float(P(hybrid_law.bonus_form(t, pulls, eps)).ball.mid())
                assert math.isclose(value, _bonus(t, pulls, 1.0), rel_tol=1e-14)
                assert math.isclose(value, float(policy.bonus(t, pulls)), rel_tol=1e-12)

        def sqrt_part(t: int, pulls: int) -> dict:
            return {a: c for a, c in hybrid_law.bonus_form(t, pulls, eps).items() if a[0] in ("sqrt", "sqlog2", "1")
                    and a != ("sqrt", 2)}

        assert sqrt_part(4, 2) == sqrt_part(8, 3) == {("sqrt", 3): 1}
        # sqrt(3 log2 8 / 1) = 3 and sqrt(3 log2 16 / 3) = 2 are rationals: the atom of rationals, where a
        # threshold's sums of rewards go, not sqrt(1)
        eight = hybrid_law.bonus_form(8, 1, eps)
        assert eight[lazy_law.ONE] == 3 and ("sqrt", 1) not in eight
        assert hybrid_law.bonus_form(16, 3, eps)[lazy_law.ONE] == 2
        with pytest.raises(ValueError, match="^no base for 1$"):  # t = s^j needs t >= 2
            hybrid_law._base(1)
        assert sqrt_part(9, 2) == sqrt_part(3, 1) == {("sqlog2", 3, 3): 1}
        six = hybrid_law.bonus_form(6, 1, eps)
        assert six[("sqrt", 2)] == six[("r2log2", 3)] == 12  # 12 sqrt(2) (1 + log2 3) floor(log2 2) / 1
        assert lazy_law.compare(P(hybrid_law.bonus_form(4, 2, eps)), P(hybrid_law.bonus_form(4, 2, eps))) == 0
        assert lazy_law.compare(P(hybrid_law.bonus_form(5, 1, eps)), P(hybrid_law.bonus_form(5, 2, eps))) == 1


def test_an_undecided_comparison_is_retried_at_a_higher_precision(monkeypatch):
    """Started at 8 bits (where thresholds' balls overlap and probabilities' balls reach 0), the law is recomputed
    at doubled precisions until everything is decided (the retries counted), its balls exclude 0 and hold the
    60-digit values; a comparison that stays undecided at MAX_PRECISION raises instead of returning a law."""
    paths = hybrid_law._paths
    high = hybrid_law.path_probabilities(_TABLE, 1.0, 1.0, precision=200)
    calls: list[int] = []
    monkeypatch.setattr(hybrid_law, "_paths", lambda *a: calls.append(lazy_law.ctx.prec) or paths(*a))
    low = hybrid_law.path_probabilities(_TABLE, 1.0, 1.0, precision=8)
    assert len(calls) > 1 and calls == [8 * 2**i for i in range(len(calls))]
    assert all(b > 0 for b in low.values()) and contains_reference(low, high)

    def undecided(*args):
        raise lazy_law.PrecisionNeeded("always")

    monkeypatch.setattr(hybrid_law, "_paths", undecided)
    with pytest.raises(ArithmeticError, match="undecided"):
        hybrid_law.path_probabilities(_TABLE, 1.0, 1.0)


def test_the_closed_form_at_T3_reads_the_noise_budget_not_the_index_budget():
    """T = 3 at eps = 0.5, called on the law's module directly: arm 0 iff Za - Zb >= r_2,1 - r_1,0, with Z ~
    Lap(2 / noise_eps) (the bonuses cancel, so the index's eps plays no part): Lap(4) at the printed scales, Lap(2)
    at half noise (noise eps 1), and P(D >= d) = (2 + d/b) e^{-d/b} / 4 for the difference of two Lap(b)."""
    table, d = np.array([[0.5, 0.5], [0.1, 0.9], [0.1, 0.2]]), 0.9 - 0.5
    for noise_eps in (0.5, 1.0):
        b = 2 / noise_eps
        paths = hybrid_law.path_probabilities(table, 0.5, noise_eps)
        assert paths.keys() == {(0, 1, 0), (0, 1, 1)}
        assert math.isclose(float(paths[(0, 1, 0)].mid()), (2 + d / b) * math.exp(-d / b) / 4, rel_tol=1e-12)


def test_every_decision_path_has_positive_probability():
    """The module docstring's argument: each comparison from round 4 on reads a noise no earlier one read, so all
    2^(T-2) paths have positive probability (T = 3, 4, 5; their balls sum to 1), and the forced rounds of T = 1, 2
    give their one path probability exactly 1 (a ball of radius 0)."""
    for horizon in (3, 4, 5):
        paths = hybrid_law.path_probabilities(np.random.default_rng(horizon).uniform(size=(horizon, 2)), 1.0, 1.0)
        assert len(paths) == 2 ** (horizon - 2) and all(p > 0 for p in paths.values())
        with flint_precision(lazy_law.PRECISION):
            assert sum(paths.values()).contains(arb(1))
    for table, path in ((np.zeros((1, 2)), (0,)), (np.zeros((2, 2)), (0, 1))):
        paths = hybrid_law.path_probabilities(table, 1.0, 1.0)
        assert list(paths) == [path] and paths[path].is_exact() and paths[path] == 1


def test_noises_and_their_rates_are_the_tree_of_the_module_docstring():
    """Per arm, the noises of the estimate after O pulls as the module docstring lists them (pull 1 reads Z0; 2:
    Z0 + Y1; 3: Z0 + Y2; 4: Z0 + Z1 + Y'1; 5: Z0 + Z1 + Y'2; 6: Z0 + Z1 + Y'2 + Y'3; 7: Z0 + Z1 + Y'4) and on to
    O = 12 (block 3: Z0 + Z1 + Z2 + the p-sums of leaf 5's decomposition, 5 = 4 + 1); the arrays are Lap(2/eps)
    (rate eps/2) and block r's p-sums Lap(2r/eps)."""
    Z = lambda i: ("Z", 1, i)  # noqa: E731
    Y = lambda r, n: ("Y", 1, r, n)  # noqa: E731
    listed = {1: [Z(0)], 2: [Z(0), Y(1, 1)], 3: [Z(0), Y(1, 2)], 4: [Z(0), Z(1), Y(2, 1)],
              5: [Z(0), Z(1), Y(2, 2)], 6: [Z(0), Z(1), Y(2, 3), Y(2, 2)], 7: [Z(0), Z(1), Y(2, 4)],
              12: [Z(0), Z(1), Z(2), Y(3, 5), Y(3, 4)]}
    for pulls, names in listed.items():
        assert hybrid_law.noise_of(1, pulls) == names, pulls
    eps = Fraction(3, 5)
    assert hybrid_law._rate(Z(2), eps) == Fraction(3, 10)
    assert [hybrid_law._rate(Y(r, 1), eps) for r in (1, 2, 3)] == [Fraction(3, 10), Fraction(3, 20), Fraction(1, 10)]


def test_the_integrator_prunes_only_when_asked(monkeypatch):
    """``prune`` (the default) reaches the integrator's float LP, which then looks at every cell; ``prune=False``
    never calls it. The paths agree (speed only)."""
    calls: list[int] = []
    real = polytope_law.infeasible
    monkeypatch.setattr(polytope_law, "infeasible", lambda c: calls.append(len(c)) or real(c))
    table = np.random.default_rng(8).uniform(size=(5, 2))
    pruned = hybrid_law.path_probabilities(table, 1.0, 1.0)
    assert len(calls) > 8
    calls.clear()
    plain = hybrid_law.path_probabilities(table, 1.0, 1.0, prune=False)
    assert calls == [] and plain.keys() == pruned.keys()
    assert all(plain[k].overlaps(pruned[k]) for k in plain)


def test_a_path_whose_ball_reaches_0_is_retried_and_then_refused_in_the_policys_name(monkeypatch):
    """A probability ball holding 0 but not exactly 0 is not a path of positive probability, even when 0 is its
    lower end (the nonnegative part of [-1, 1], about [0, 1]: at or above 0, not above it): the law is recomputed
    at twice the precision, up to MAX_PRECISION, then refused with an error naming Hybrid-UCB and the undecided
    path."""
    at_zero = arb(0, 1).nonnegative_part()
    assert at_zero.lower() == 0 and not at_zero.is_zero()
    monkeypatch.setattr(hybrid_law, "probability", lambda *args, **kwargs: at_zero)
    with pytest.raises(ArithmeticError, match=r"^HybridUCB: undecided at \d+ bits \(a path's probability .* is "
                                              r"not separated from 0 at \d+ bits\)$"):
        hybrid_law.path_probabilities(_TABLE, 1.0, 1.0)


def test_a_log_probability_that_is_not_finite_is_refused_in_the_policys_name(monkeypatch):
    monkeypatch.setattr(hybrid_law, "path_probabilities", lambda *args: {(0, 1, 0): arb(0.5, math.inf)})
    with pytest.raises(ArithmeticError, match="^HybridUCB: a log-probability's ball is not finite$"):
        hybrid_law.decision_law(_TABLE[:3], [3], 1.0, 1.0)


# -- the integrator's safeguards ----------------------------------------------------------------------------

def _rational(q) -> lazy_law.Point:
    return lazy_law.Point.rational(Fraction(q))


def test_integrator_matches_closed_forms_and_exact_zeros():
    """P(v0 - v1 >= 0.7) for two Lap(1) is (2 + 0.7) e^{-0.7} / 4 (inside the ball); an empty polyhedron (x >= 1,
    x <= 0) and one of measure zero (x - y >= 0 and y - x >= 0) have probability exactly 0 (radius 0), decided
    by exact comparisons of constants; P(x >= 0) = 1/2 where the constraint's bound 0 is the same as the
    density's split at 0 (merged once: counted twice, or compared with itself, it would be wrong)."""
    F = Fraction
    with flint_precision(100):
        p = polytope_law.probability([F(1), F(1)], [((F(1), F(-1)), _rational(F(-7, 10)))])
        half = polytope_law.probability([F(1)], [((F(1),), _rational(0))])
        empty = polytope_law.probability([F(1)], [((F(1),), _rational(-1)), ((F(-1),), _rational(0))])
        flat = polytope_law.probability([F(1), F(2)], [((F(1), F(-1)), _rational(0)), ((F(-1), F(1)), _rational(0))])
    with mpmath.workdps(60):
        exact = (2 + mpmath.mpf(7) / 10) * mpmath.exp(-mpmath.mpf(7) / 10) / 4
        assert p.rad() < 1e-25 and abs(mpmath.mpf(p.mid().str(50, radius=False)) - exact) <= float(p.rad())
    assert half.contains(arb(0.5)) and half.rad() < 1e-25
    assert empty.is_zero() and flat.is_zero()


def test_integrator_matches_a_three_variable_integration():
    """Three Laplace variables of different rates, two constraints: the integrator's ball against nested scipy
    quad over (v0, v1) of v2's Laplace tail (both constraints bound v2 below: its tail at the larger bound)."""
    F = Fraction
    rates = [F(1), F(1, 2), F(2)]
    cons = [((F(1), F(-1, 2), F(1, 3)), _rational(F(1, 5))), ((F(-1), F(0), F(1)), _rational(F(1, 2)))]
    with flint_precision(100):
        p = polytope_law.probability(rates, cons)
    lap = [_Laplace(1 / float(r)) for r in rates]

    def given(v0: float, v1: float) -> float:  # v2 >= max(v0 - 1/2, 3 (v1/2 - v0 - 1/5))
        return lap[2].sf(max(v0 - 0.5, 3 * (v1 / 2 - v0 - 0.2)))

    def outer(v1: float) -> float:  # kinks in v0: 0, where the two bounds cross, where each crosses 0
        kinks = [(1.5 * v1 - 0.1) / 4, 0.5, v1 / 2 - 0.2]
        return lap[1].pdf(v1) * _quad(lambda v0: lap[0].pdf(v0) * given(v0, v1), -np.inf, np.inf, kinks)

    direct = _quad(outer, -np.inf, np.inf)
    assert math.isclose(float(p.mid()), direct, rel_tol=1e-7)


def _one_variable_term(k: int, rate) -> dict:
    """The integrand x^k e^{rate x} of one variable, coefficient 1."""
    return {((k,), polytope_law._Vec((polytope_law._fmpq(Fraction(rate)),))): arb(1)}


_ORIGIN = ((polytope_law._ZERO,), lazy_law.ZERO)  # the bound x = 0 of one variable


def test_a_term_that_does_not_vanish_at_infinity_raises():
    """An infinite bound is taken only by decaying terms: a constant or a growing exponential there is an error
    naming the term and the end (+inf or -inf), not a silent 0, whether or not the other end is finite; a rate of
    1/2 grows as surely as a rate of 1."""
    with flint_precision(100):
        with pytest.raises(ArithmeticError, match="does not vanish"):
            polytope_law._integrate(_one_variable_term(0, 0), 0, lazy_law.NEG_INF, lazy_law.POS_INF)
        for rate, lo, hi, end in [(0, _ORIGIN, lazy_law.POS_INF, "+inf"), (1, _ORIGIN, lazy_law.POS_INF, "+inf"),
                                  (Fraction(1, 2), _ORIGIN, lazy_law.POS_INF, "+inf"),
                                  (0, lazy_law.NEG_INF, _ORIGIN, "-inf"),
                                  (Fraction(-1, 2), lazy_law.NEG_INF, _ORIGIN, "-inf")]:
            message = f"polytope_law: a term x^0 e^({rate} x) does not vanish at {end}"
            with pytest.raises(ArithmeticError, match=f"^{re.escape(message)}$"):
                polytope_law._integrate(_one_variable_term(0, rate), 0, lo, hi)


def test_integrals_of_powers_times_exponentials_have_their_factorial_closed_forms():
    """_integrate's antiderivative of x^k e^{a x} (repeated integration by parts: the falling factorials
    k!/(k-j)!), each exponent alone for k = 0..4: int_0^inf x^k e^{-x/2} dx = k! 2^(k+1),
    int_-inf^0 x^k e^x dx = (-1)^k k!, and with a = 0 (a polynomial) int_0^1 x^k dx = 1/(k+1); the result is one
    constant term (x integrated away), its ball tiny."""
    one = ((polytope_law._ZERO,), _rational(1))
    constant = ((0,), polytope_law._Vec((polytope_law._ZERO,)))
    with flint_precision(100):
        for k in range(5):
            for rate, lo, hi, exact in [(Fraction(-1, 2), _ORIGIN, lazy_law.POS_INF, math.factorial(k) * 2 ** (k + 1)),
                                        (1, lazy_law.NEG_INF, _ORIGIN, (-1) ** k * math.factorial(k)),
                                        (0, _ORIGIN, one, Fraction(1, k + 1))]:
                out = polytope_law._integrate(_one_variable_term(k, rate), 0, lo, hi)
                assert list(out) == [constant], (k, rate)
                value = out[constant]
                assert value.contains(arb(exact.numerator) / exact.denominator if isinstance(exact, Fraction)
                                      else arb(exact)) and value.rad() < 1e-25, (k, rate, value)


def test_constants_keep_exact_forms_that_decide_zeros_and_signs():
    """A constraint's constant is an exact expression with its ball: a - b and q a keep their forms exactly (a
    difference of equal numbers is the empty form, exactly 0, whatever its ball), and a sign is decided by the
    form when it is empty, else by the ball, which must exclude 0: a ball ending exactly at 0 (either end) or
    holding 0 is undecided, a PrecisionNeeded naming the constant."""
    F, q = Fraction, polytope_law._fmpq(Fraction(1, 3))
    with flint_precision(lazy_law.PRECISION):
        root = lazy_law.Point({("sqrt", 2): F(3), lazy_law.ONE: F(1, 2)})
        same = lazy_law.Point({("sqrt", 2): F(3), lazy_law.ONE: F(1, 2)})
        other = lazy_law.Point({("sqrt", 2): F(1)})
        assert polytope_law._minus(root, same).form == {} and polytope_law._sign(polytope_law._minus(root, same)) == 0
        assert polytope_law._minus(root, other).form == {("sqrt", 2): F(2), lazy_law.ONE: F(1, 2)}
        assert polytope_law._minus(other, root).form == {("sqrt", 2): F(-2), lazy_law.ONE: F(-1, 2)}
        third = polytope_law._scaled(root, q)
        assert third.form == {("sqrt", 2): F(1), lazy_law.ONE: F(1, 6)} and third.ball.overlaps(root.ball / 3)
        assert polytope_law._sign(root) == 1 and polytope_law._sign(root.scale(F(-1))) == -1
        at_zero = arb(0, 1).nonnegative_part()
        for ball in (at_zero, -at_zero, arb(0, 1e-3), arb(0.5, 1)):
            undecided = polytope_law._point({("sqrt", 2): F(1)}, ball)
            with pytest.raises(lazy_law.PrecisionNeeded, match=r"^cannot decide the sign of Point\(\{\('sqrt', "
                                                              r"2\): Fraction\(1, 1\)\}, .* at \d+ bits$"):
                polytope_law._sign(undecided)


def test_parallel_constraints_are_scaled_and_the_tightest_kept():
    """_decide scales each constraint so that its first nonzero coefficient is +-1 and keeps, of parallel ones,
    the one with the smallest constant: 2x + 1 >= 0 and x + 1 >= 0 are x >= -1/2 and x >= -1, one constraint
    x + 1/2 >= 0; -3x + 3 >= 0 stays apart (x <= 1: the other direction), as -x + 1 >= 0; a constant
    constraint decides itself (positive: dropped; negative: the cell is empty)."""
    F = Fraction

    def decided(*rows):
        return [(tuple(F(int(c.p), int(c.q)) for c in coef), point.form)
                for coef, point in polytope_law._decide(_system(*rows))]

    with flint_precision(lazy_law.PRECISION):
        half = ((F(1), F(0)), {lazy_law.ONE: F(1, 2)})
        assert decided((2, 0, 1), (1, 0, 1), (-3, 0, 3)) == [half, ((F(-1), F(0)), {lazy_law.ONE: F(1)})]
        assert decided((1, 0, 1), (2, 0, 1)) == [half]
        assert decided((0, 0, 1), (0, 1, 0)) == [((F(0), F(1)), {})]
        assert polytope_law._decide(_system((0, 1, 0), (0, 0, -1))) is None


def _system(*rows) -> list:
    """Constraints a . v + p >= 0 from rows (a_0, ..., a_k, p) of fractions (strings allowed)."""
    return [(tuple(polytope_law._fmpq(Fraction(a)) for a in row[:-1]), _rational(Fraction(row[-1]))) for row in rows]


def test_the_lp_cuts_a_cell_only_when_its_best_slack_is_clearly_negative():
    """The float LP on its own (it never meets a cell of LP_MIN_CONSTRAINTS = 5 constraints in Hybrid-UCB's laws
    up to T = 6, so these are its only fast tests): each system is x >= c, x <= 0 (best slack -c/2 after scaling
    each constraint to unit norm) plus three constraints of a box around a point of negative coordinates (y in
    [-3, -2], free of x). Cut when -c/2 < -LP_MARGIN; kept for c = 1e-7 and 1.4e-6 (slack -5e-8 and -7e-7, inside
    the margin), the same constraints scaled by 1000 give the same answers (unit norms), a feasible system whose
    points all have negative coordinates is kept (the variables are free, not >= 0), and with four constraints the
    LP is not tried at all."""
    box = [(0, 1, 3), (0, -1, -2), (1, 1, 10)]  # y >= -3, y <= -2, x + y >= -10

    def cut(c, scale=1):
        return polytope_law.infeasible(_system((scale, 0, -scale * Fraction(c)), (-1, 0, 0), *box))

    assert polytope_law.LP_MARGIN == 1e-6 and polytope_law.LP_MIN_CONSTRAINTS == 5
    assert cut(1) and cut("1e-5") and cut("2.2e-6") and cut(1, scale=1000)
    assert not cut("1e-7") and not cut("1.4e-6") and not cut("1.4e-6", scale=1000) and not cut(0)
    assert not polytope_law.infeasible(_system((1, 0, 2), (-1, 0, -1), *box))  # x in [-2, -1], y in [-3, -2]
    assert not polytope_law.infeasible(_system((1, 0, -1), (-1, 0, 0), *box[:2]))  # empty, but four constraints
    assert polytope_law.infeasible(_system((1, 0, 0, -1), (-1, 0, 0, 0), (0, 0, 1, 0), *[(0, *r) for r in box[:2]]))


def _rows(*rows) -> list:
    """The constraints of :func:`_system` as ``probability`` takes them (coefficients as fractions)."""
    return [(tuple(Fraction(a) for a in row[:-1]), _rational(Fraction(row[-1]))) for row in rows]


def test_a_system_its_constants_decide_is_exactly_0_or_1():
    """Constraints without variables decide themselves before any integration: a false one makes the probability
    exactly 0, true ones alone leave exactly 1 (radius 0 both), and beside a real constraint they change nothing."""
    F = Fraction
    with flint_precision(100):
        empty = polytope_law.probability([F(1)], _rows((0, -1)))
        sure = polytope_law.probability([F(1), F(2)], _rows((0, 0, 1), (0, 0, "1/3")))
        half = polytope_law.probability([F(1)], _rows((0, 1), (1, 0)))
    assert empty.is_zero() and sure.is_exact() and sure == 1
    assert half.contains(arb(0.5)) and half.rad() < 1e-25


def test_the_variable_held_by_the_fewest_constraints_is_eliminated_first(monkeypatch):
    """The elimination order of the module docstring, read from the first variable eliminated: held by 2, 3 and
    1 constraints, v2 goes first; held by 3, 1 and 1, the tie goes to the lower index, v1."""
    seen: list[int] = []
    real = polytope_law._eliminate
    monkeypatch.setattr(polytope_law, "_eliminate", lambda c, t, x, r: seen.append(x) or real(c, t, x, r))
    F = Fraction
    with flint_precision(100):
        polytope_law.probability([F(1)] * 3, _rows((1, 1, 0, 1), (1, -1, 0, 1), (0, 1, 1, 1)))
        assert seen[0] == 2
        seen.clear()
        polytope_law.probability([F(1)] * 3, _rows((1, 1, 0, 1), (1, 0, 1, 1), (1, 0, 0, 1)))
        assert seen[0] == 1


def test_pruning_every_cell_keeps_the_probability(monkeypatch):
    """With the float LP tried on every cell (LP_MIN_CONSTRAINTS lowered to 1), the three-variable system of
    test_integrator_matches_a_three_variable_integration has cells cut, and the probability is the same ball as
    without pruning: a cut cell is skipped and the cells after it at its level still count. ``prune`` is the
    default of ``probability``."""
    monkeypatch.setattr(polytope_law, "LP_MIN_CONSTRAINTS", 1)
    cuts: list[bool] = []
    real = polytope_law.infeasible
    monkeypatch.setattr(polytope_law, "infeasible", lambda c: cuts.append(real(c)) or cuts[-1])
    F = Fraction
    rates = [F(1), F(1, 2), F(2)]
    with flint_precision(100):
        cons = _rows((1, "-1/2", "1/3", "1/5"), (-1, 0, 1, "1/2"))
        pruned = polytope_law.probability(rates, cons)
        assert any(cuts) and not all(cuts)
        cuts.clear()
        plain = polytope_law.probability(rates, cons, prune=False)
    assert cuts == [] and pruned.overlaps(plain) and pruned.rad() < 1e-25 and plain.rad() < 1e-25
    assert abs(float(pruned.mid()) - float(plain.mid())) < 1e-25


def test_a_cell_whose_integrand_cancelled_counts_exactly_0(monkeypatch):
    """A cell left with no variables and no terms (its integrand cancelled to an exact 0, which _add drops)
    adds exactly 0 to the probability: not 1, not an error."""
    monkeypatch.setattr(polytope_law, "_eliminate", lambda constraints, terms, x, rate: [([], {})])
    with flint_precision(100):
        p = polytope_law.probability([Fraction(1)], _rows((1, 0)))
    assert p.is_zero()


def test_eliminating_a_free_variable_or_an_empty_integrand():
    """_eliminate on the cells the integrator never builds but its contract covers: a variable in no constraint
    integrates over its two half-lines to 1/2 each (its size read from the terms), and a cell whose integrand is
    empty (size read from the constraints) gives cells whose integrands are empty."""
    rate = polytope_law._fmpq(1)
    constant = ((0,), polytope_law._Vec((polytope_law._ZERO,)))
    with flint_precision(100):
        halves = polytope_law._eliminate([], _one_variable_term(0, 0), 0, rate)
        assert [(cell, list(terms)) for cell, terms in halves] == [([], [constant])] * 2
        assert all(terms[constant].contains(arb(0.5)) and terms[constant].rad() < 1e-25 for _, terms in halves)
        nothing = polytope_law._eliminate(_system((1, 0)), {}, 0, rate)
        assert nothing and all(terms == {} for _, terms in nothing)


@pytest.mark.slow
def test_lp_pruning_drops_no_mass(monkeypatch):
    """The float LP only cuts cells whose polyhedra are empty: the paths and their balls are those
    of the computation without it. A margin of the wrong sign (cutting cells with a small positive slack) is
    caught: paths are lost or the law no longer sums to 1."""
    monkeypatch.setattr(polytope_law, "LP_MIN_CONSTRAINTS", 2)  # the LP on every cell
    table = np.random.default_rng(8).uniform(size=(5, 2))
    pruned = hybrid_law.path_probabilities(table, 1.0, 1.0, prune=True)
    plain = hybrid_law.path_probabilities(table, 1.0, 1.0, prune=False)
    assert pruned.keys() == plain.keys()
    assert all(pruned[k].overlaps(plain[k]) for k in plain)
    with flint_precision(lazy_law.PRECISION):
        assert sum(plain.values()).contains(arb(1))
    monkeypatch.setattr(polytope_law, "LP_MARGIN", -0.5)
    broken = hybrid_law.path_probabilities(table, 1.0, 1.0, prune=True)
    with flint_precision(lazy_law.PRECISION):
        assert broken.keys() != plain.keys() or not sum(broken.values()).contains(arb(1))


# -- the policy's interface ---------------------------------------------------------------------------------

def test_rounds_are_a_marginal_of_the_whole_sequence():
    policy, table = HybridUCB(1.0), np.random.default_rng(6).uniform(size=(5, 2))
    whole = sequence_law(policy, table)
    part = policy.decision_distribution(table, [3, 5])
    for row, p in zip(part.outcomes, part.probs, strict=True):
        assert math.isclose(p, sum(q for k, q in whole.items() if (k[2], k[4]) == tuple(row)), rel_tol=1e-12)


def test_exact_law_is_refused_beyond_its_size_limit_but_sampling_is_not():
    policy = HybridUCB(1.0)
    for table in (np.zeros((7, 2)), np.zeros((4, 3)), np.full((4, 2), 1.5), np.zeros((0, 2))):
        with pytest.raises(ValueError, match="two arms and at most 6 rounds"):
            policy.decision_distribution(table, [1])
    with pytest.raises(ValueError, match="rounds must lie in 1..4"):
        policy.decision_distribution(np.zeros((4, 2)), [5])
    transcript = DecisionTranscript(policy, arms=2, horizon=500)  # refused only when the law is asked for
    assert isinstance(transcript, ExactDecisionTranscript)
    assert transcript.sample(np.zeros((500, 2)), 4, np.random.default_rng(0)).shape == (4, 500)


def test_noise_scale_option_is_checked_and_reaches_the_noise():
    with pytest.raises(ValueError, match="noise_scale"):
        HybridUCB(1.0, noise_scale="1/(4eps)")
    half = ALGORITHMS["hybrid-ucb"](eps=0.5, noise_scale="1/eps")
    assert half.name == "Hybrid-UCB(eps=0.5, half noise)" and half.noise_epsilon == 1.0
    assert half.counter.array_noise.scale == 2 and half.counter.node_noise(3).scale == 6  # Lap(1/eps), Lap(r/eps)
    assert HybridUCB(0.5).counter.array_noise.scale == 4  # Lap(2/eps) as printed
