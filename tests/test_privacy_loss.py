"""Exact privacy quantities (dpaudit.exact) against closed forms, brute force and dp-accounting.

Everything here is deterministic: enclosures must contain the true value (closed forms evaluated
in 60-digit mpmath, or brute-force sums) and be narrow. The dp-accounting comparisons use its
pessimistic and optimistic privacy-loss distributions, which bracket the true delta(eps) from above
and below up to their discretisation.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp

import dpaudit
from dpaudit import ZCDP, ApproxDP, PureDP, RenyiDP, exact
from dpaudit.auditors.exact_privacy import ExactUndecided
from dpaudit.core.distributions import (
    FiniteDistribution,
    GaussianDistribution,
    LogLinearDistribution,
    ProductDistribution,
)
from dpaudit.exact import Enclosure
from dpaudit.mechanisms import DiscreteLaplace, Laplace, RandomizedResponse


@pytest.fixture(autouse=True)
def sixty_digits():
    """Reference values in 60-digit arithmetic (mpmath's global precision, restored after)."""
    with mpmath.workdps(60):
        yield


REF = 1e-55  # error allowance of a 60-digit reference value


def contains(e: Enclosure, value, slack: float = 0.0) -> bool:
    v = Fraction(value) if not isinstance(value, Fraction) else value
    return e.lo - Fraction(slack) <= v <= e.hi + Fraction(slack)


def width(e: Enclosure) -> float:
    return float(e.hi - e.lo)


class DistributionMechanism:
    """A mechanism given by a table data -> exact distribution (for audits of hand-built laws)."""

    def __init__(self, table):
        self.table = table

    def sample(self, data, size, rng):
        d = self.table[data]
        if isinstance(d, GaussianDistribution):
            return rng.normal(float(d.mean), float(d.sigma), size)
        return rng.choice(d.outcomes, size=size, p=d.probs / d.probs.sum())

    def distribution(self, data):
        return self.table[data]


# -- closed forms ---------------------------------------------------------------------------------


@pytest.mark.parametrize("b, shift", [(1.0, 1.0), (10.0, 1.0), (0.5, 2.0), (Fraction(7, 3), 0.25)])
@pytest.mark.parametrize("eps_share", [0.0, 0.3, 0.9])
def test_laplace_profile_closed_form(b, shift, eps_share):
    """Laplace(0, b) vs Laplace(s, b): delta(eps) = 1 - exp((eps - s/b) / 2) for eps < s/b."""
    mu = Fraction(shift) / Fraction(b)
    eps = float(mu) * eps_share
    true = 1 - mpmath.exp((mpmath.mpf(eps) - mpmath.mpf(mu.numerator) / mu.denominator) / 2)
    for p, q in ((Laplace(b), Laplace(b, loc=shift)), (Laplace(b, loc=shift), Laplace(b))):
        delta = exact.privacy_profile(p, q, eps).delta
        assert contains(delta, Fraction(*true.as_integer_ratio()), slack=REF) and width(delta) < 1e-40


def test_laplace_profile_vanishes_beyond_pure_epsilon():
    assert exact.privacy_profile(Laplace(1), Laplace(1, loc=1), 1.0).delta.hi == 0
    assert exact.privacy_profile(Laplace(1), Laplace(1, loc=1), 1.5).delta.hi == 0


@pytest.mark.parametrize("scale, shift", [(1.0, 1), (2.5, 1), (0.5, 3)])
@pytest.mark.parametrize("eps", [0.0, 0.2, 0.7])
def test_discrete_laplace_profile_matches_brute_force(scale, shift, eps):
    """The log-linear closed form against a sum over the pmf on |x| <= 400 (the tail beyond holds
    less than e^-400/scale, far below the asserted precision)."""
    x = np.arange(-400, 401)
    r = math.exp(-1 / scale)
    log_norm = math.log((1 - r) / (1 + r))
    p = mpmath.matrix([mpmath.exp(-abs(mpmath.mpf(int(v))) / scale) for v in x])
    q = mpmath.matrix([mpmath.exp(-abs(mpmath.mpf(int(v) - shift)) / scale) for v in x])
    c = mpmath.exp(log_norm)
    brute = mpmath.fsum(max(c * pi - mpmath.exp(eps) * c * qi, 0) for pi, qi in zip(p, q))
    delta = exact.privacy_profile(DiscreteLaplace(scale), DiscreteLaplace(scale, loc=shift), eps).delta
    assert contains(delta, Fraction(*brute.as_integer_ratio()), slack=1e-14) and width(delta) < 1e-30


@pytest.mark.parametrize("sigma, shift", [(1.0, 1.0), (3.0, 1.0), (0.5, 2.0)])
def test_gaussian_closed_forms(sigma, shift):
    """Balle-Wang delta(eps), D_alpha = alpha mu^2/2 and rho = mu^2/2 for N(0, s^2) vs N(d, s^2)."""
    p, q = GaussianDistribution(0.0, sigma), GaussianDistribution(shift, sigma)
    mu = mpmath.mpf(shift) / sigma
    for eps in (0.0, 0.5, 2.0):
        true = mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)
        delta = exact.privacy_profile(p, q, eps).delta
        assert contains(delta, Fraction(*true.as_integer_ratio()), slack=1e-50)
        assert width(delta) < 1e-50
    mu2 = (Fraction(shift) / Fraction(sigma)) ** 2
    assert exact.renyi_divergence(p, q, 3.0) == Enclosure.point(3 * mu2 / 2)
    assert exact.zcdp_rho(p, q).rho == Enclosure.point(mu2 / 2)
    assert exact.pure_epsilon(p, q).epsilon.hi == math.inf


def test_gaussian_renyi_with_unequal_variances_matches_numerical_integration():
    p, q = GaussianDistribution(0.0, 1.0), GaussianDistribution(0.5, 1.3)
    for alpha in (1.5, 2.0, 4.0):
        # integrated just below, in this iteration: the default only makes the binding of alpha explicit
        def f(x, alpha=alpha):
            return mpmath.npdf(x, 0, 1) ** alpha * mpmath.npdf(x, 0.5, 1.3) ** (1 - alpha)

        true = mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, mpmath.inf])) / (alpha - 1)
        got = exact.renyi_divergence(p, q, alpha)
        assert contains(got, Fraction(*true.as_integer_ratio()), slack=1e-25)
    # alpha s1^2 + (1 - alpha) s0^2 <= 0 for large alpha when s0 > s1: infinite
    assert exact.renyi_divergence(GaussianDistribution(0, 2.0), GaussianDistribution(0, 1.0), 5.0).hi == math.inf


def test_gaussian_vector_adds_mu_squared():
    p = ProductDistribution((GaussianDistribution(0, 1.0), GaussianDistribution(0, 2.0)))
    q = ProductDistribution((GaussianDistribution(1, 1.0), GaussianDistribution(2, 2.0)))  # mu^2 = 1 + 1
    delta = exact.privacy_profile(p, q, 0.5).delta
    one = exact.privacy_profile(GaussianDistribution(0, 1.0), GaussianDistribution(math.sqrt(2), 1.0), 0.5).delta
    assert abs(float(delta.lo) - float(one.lo)) < 1e-15


def _balle_wang(mu, e):
    return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)


@settings(max_examples=300)
@given(st.floats(-60.0, 60.0), st.floats(1e-3, 40.0))
@example(700.0, 30.0).via("far right: both terms below 1e-300")
@example(-700.0, 0.01).via("far left: delta_G -> 1")
@example(5.0, 1e-3).via("tiny mu: a and b near -5000")
def test_float_balle_wang_stays_within_its_error_bound(e, mu):
    """The PLD's per-cell Gaussian delta (floats through log Phi) against 60-digit mpmath."""
    from dpaudit.exact.pld import gaussian_delta

    value, error = gaussian_delta(np.array([e]), mu)
    true = _balle_wang(mpmath.mpf(mu), mpmath.mpf(e))
    assert abs(mpmath.mpf(float(value[0])) - true) <= float(error[0]), (e, mu, float(value[0]), true, error)


def test_product_of_finite_and_gaussian_coordinates_conditions_on_the_finite_loss():
    """delta(eps) of RR x two Gaussians = E over RR's loss l of delta_G(eps - l), mu^2 summed over the
    Gaussians (a 60-digit sum over RR's two outcomes); the enclosure is rigorous and narrow."""
    rr = RandomizedResponse(1.0)
    p = ProductDistribution((rr.distribution([0]), GaussianDistribution(0, 1.0), GaussianDistribution(0, 2.0)))
    q = ProductDistribution((rr.distribution([1]), GaussianDistribution(0.5, 1.0), GaussianDistribution(1.0, 2.0)))
    mu, keep = mpmath.sqrt(mpmath.mpf(0.5)), mpmath.e / (1 + mpmath.e)
    for eps in (0.0, 0.5, 1.2, 3.0):
        e = mpmath.mpf(eps)
        true = keep * _balle_wang(mu, e - 1) + (1 - keep) * _balle_wang(mu, e + 1)
        for a, b in ((p, q), (q, p)):  # symmetric pair: both directions have the same delta
            delta = exact.privacy_profile(a, b, eps).delta
            assert contains(delta, Fraction(*true.as_integer_ratio()), slack=REF), (eps, delta.floats(), true)
            assert width(delta) < 1e-3 * float(true) + 1e-15  # the loss grid's rounding (2^16 cells)
    # more than either part alone, and the audit runs exactly (no fall-back to samples)
    assert float(exact.privacy_profile(p, q, 0.5).delta.lo) > float(
        exact.privacy_profile(rr.distribution([0]), rr.distribution([1]), 0.5).delta.hi)


@pytest.mark.parametrize("eps0", [0.5, 1.0, 3.0])
def test_randomized_response_closed_forms(eps0):
    """Binary RR: delta(eps) = (e^eps0 - e^eps) / (1 + e^eps0) for eps < eps0; pure epsilon eps0;
    D_alpha = log(p^a q^(1-a) + q^a p^(1-a)) / (a - 1)."""
    m = RandomizedResponse(eps0)
    p, q = m.distribution([0]), m.distribution([1])
    e0 = mpmath.mpf(eps0)
    for eps in (0.0, eps0 / 2):
        true = (mpmath.exp(e0) - mpmath.exp(eps)) / (1 + mpmath.exp(e0))
        assert contains(exact.privacy_profile(p, q, eps).delta, Fraction(*true.as_integer_ratio()))
    assert contains(exact.pure_epsilon(p, q).epsilon, Fraction(eps0))
    keep = mpmath.exp(e0) / (1 + mpmath.exp(e0))
    for a in (2.0, 10.0):
        true = mpmath.log(keep**a * (1 - keep) ** (1 - a) + (1 - keep) ** a * keep ** (1 - a)) / (a - 1)
        assert contains(exact.renyi_divergence(p, q, a), Fraction(*true.as_integer_ratio()))


@pytest.mark.parametrize("alpha", [1.5, 2.0, 7.0, 50.0])
def test_laplace_renyi_closed_form(alpha):
    """Mironov 2017, Prop. 6: D_a = log(a/(2a-1) e^((a-1)/b) + (a-1)/(2a-1) e^(-a/b)) / (a-1)."""
    for b in (1.0, 0.5):
        a = mpmath.mpf(alpha)
        true = mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) / b)
                          + (a - 1) / (2 * a - 1) * mpmath.exp(-a / b)) / (a - 1)
        got = exact.renyi_divergence(Laplace(b), Laplace(b, loc=1), alpha)
        assert contains(got, Fraction(*true.as_integer_ratio()), slack=REF) and width(got) < 1e-40


def test_laplace_rho_is_bracketed_around_its_supremum():
    """For Laplace, D_alpha / alpha is largest as alpha -> 1 (the KL divergence e^-eps + eps - 1)."""
    eps = 1.0
    rho = exact.zcdp_rho(Laplace(1 / eps), Laplace(1 / eps, loc=1)).rho
    kl = math.exp(-eps) + eps - 1
    assert float(rho.lo) <= kl + 1e-12 and float(rho.hi) >= kl and float(rho.hi) < kl * 1.01


# -- finite distributions and products ------------------------------------------------------------


def _random_pair(rng: np.random.Generator, m: int,
                 zeros: bool = False) -> tuple[FiniteDistribution, FiniteDistribution]:
    p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
    if zeros:
        p[0] = 0.0
        p /= p.sum()
    return FiniteDistribution.from_probs(np.arange(m), p), FiniteDistribution.from_probs(np.arange(m), q)


def _brute_delta(p: np.ndarray, q: np.ndarray, eps: float) -> mpmath.mpf:
    return mpmath.fsum(max(mpmath.mpf(a) - mpmath.exp(eps) * mpmath.mpf(b), 0) for a, b in zip(p, q))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 30), st.floats(0, 3), st.booleans())
def test_finite_quantities_contain_brute_force(seed, m, eps, zeros):
    rng = np.random.default_rng(seed)
    P, Q = _random_pair(rng, m, zeros)
    p, q = P.probs, Q.probs
    brute = _brute_delta(p, q, eps)
    assert contains(exact.privacy_profile(P, Q, eps).delta, Fraction(*brute.as_integer_ratio()), slack=1e-300)
    with np.errstate(divide="ignore"):
        loss = np.log(p) - np.log(q)
    pe = exact.pure_epsilon(P, Q).epsilon
    true_eps = max(loss.max(), -loss.min())
    if math.isinf(true_eps):
        assert pe.lo == math.inf
    else:
        assert contains(pe, true_eps, slack=1e-12 * (1 + true_eps))
    alpha = 2.5  # P << Q even with zeros (P has the zero), so D_alpha(P || Q) is finite
    s = mpmath.fsum(mpmath.mpf(a) ** alpha * mpmath.mpf(b) ** (1 - alpha) for a, b in zip(p, q) if a > 0)
    true = mpmath.log(s) / (alpha - 1)
    assert contains(exact.renyi_divergence(P, Q, alpha), Fraction(*true.as_integer_ratio()), slack=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0, 2))
def test_profile_decreases_in_epsilon_and_renyi_increases_in_order(seed, eps):
    P, Q = _random_pair(np.random.default_rng(seed), 12)
    d1 = exact.privacy_profile(P, Q, eps).delta
    d2 = exact.privacy_profile(P, Q, eps + 0.25).delta
    assert d2.lo <= d1.hi
    r = exact.renyi_curve(P, Q, [1.5, 2.0, 4.0, 16.0, math.inf])
    assert all(a.lo <= b.hi for a, b in zip(r, r[1:]))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8))
@example(44772957, 2)  # rho ~ 2e-5: orders near 1 need the monotone bound, not the chord
@example(669, 2)
@example(1311, 6)  # the peak falls between orders of the dense grid
def test_rho_brackets_a_dense_numerical_maximum(seed, m):
    """rho = sup D_alpha / alpha against the maximum over 4000 orders in (1, 10^5] computed directly
    (and the KL limit at alpha -> 1): the enclosure must contain it and be within 1% of it."""
    P, Q = _random_pair(np.random.default_rng(seed), m)
    p, q = P.probs, Q.probs
    alphas = 1 + np.geomspace(1e-6, 1e5, 4000)

    def ratio(a):
        a = np.atleast_1d(a)
        return logsumexp(np.outer(a, np.log(p)) + np.outer(1 - a, np.log(q)), axis=1) / ((a - 1) * a)

    d = ratio(alphas)
    i = int(np.argmax(d))
    # the grid's best order, polished between its neighbours (a grid alone can miss the peak by 1e-8)
    peak = minimize_scalar(lambda a: -ratio(a)[0], bounds=(alphas[max(i - 1, 0)], alphas[min(i + 1, 3999)]),
                           method="bounded", options={"xatol": 1e-12})
    kl = float(np.sum(p * np.log(p / q)))
    dense = max(float(d[i]), -float(peak.fun), kl)
    r = exact.zcdp_rho(P, Q).rho
    assert float(r.lo) <= dense * (1 + 1e-9) and float(r.hi) >= dense * (1 - 1e-9)
    assert float(r.hi) <= dense * 1.01


def test_rho_of_a_discrete_gaussian_is_tight():
    sigma = 30.0
    x = np.arange(-3000, 3001)  # both laws on the same outcomes, so the loss is bounded
    logp, logq = -(x / sigma) ** 2 / 2, -((x - 1) / sigma) ** 2 / 2
    P = FiniteDistribution(x, logp - logsumexp(logp), log_error=1e-13)
    Q = FiniteDistribution(x, logq - logsumexp(logq), log_error=1e-13)
    r = exact.zcdp_rho(P, Q).rho
    assert float(r.lo) <= 1 / (2 * sigma**2) <= float(r.hi) <= 1.002 / (2 * sigma**2)


def test_product_profile_by_pld_brackets_brute_force():
    """delta(eps) of a product of three finite coordinates through the PLD, against the sum over the
    joint outcomes (6 * 5 * 4 = 120 of them)."""
    rng = np.random.default_rng(7)
    pairs = [_random_pair(rng, m) for m in (6, 5, 4)]
    joint_p = np.einsum("i,j,k->ijk", *[p.probs for p, _ in pairs]).ravel()
    joint_q = np.einsum("i,j,k->ijk", *[q.probs for _, q in pairs]).ravel()
    P = ProductDistribution(tuple(p for p, _ in pairs))
    Q = ProductDistribution(tuple(q for _, q in pairs))
    for eps in (0.0, 0.5, 1.5):
        brute = float(_brute_delta(joint_p, joint_q, eps))
        delta = exact.privacy_profile(P, Q, eps).delta
        assert contains(delta, brute)
        assert width(delta) < 1e-3 * max(brute, 1e-3)


def test_a_profile_curve_is_the_profile_at_each_epsilon():
    """privacy_profile_curve builds a product's loss distribution once for every epsilon: each value must be the
    enclosure privacy_profile gives at that epsilon alone, for finite products with and without Gaussians, in
    both directions, and for a law that is not a product (evaluated one epsilon at a time)."""
    rng = np.random.default_rng(11)
    pairs = [_random_pair(rng, m) for m in (6, 5, 4)]
    P = ProductDistribution(tuple(p for p, _ in pairs))
    Q = ProductDistribution(tuple(q for _, q in pairs))
    rr = RandomizedResponse(1.0)
    mixed = (ProductDistribution((rr.distribution([0]), GaussianDistribution(0, 1.0))),
             ProductDistribution((rr.distribution([1]), GaussianDistribution(0.5, 1.0))))
    grid = [0.0, 0.25, 0.5, 1.5, 3.0]
    for a, b in ((P, Q), (Q, P), mixed, (pairs[0][0], pairs[0][1])):
        curve = exact.privacy_profile_curve(a, b, grid)
        assert curve == [exact.privacy_profile(a, b, eps).delta for eps in grid]
        assert float(curve[0].lo) > float(curve[-1].hi)  # not one value repeated


def test_pure_epsilon_and_renyi_add_over_coordinates():
    rng = np.random.default_rng(3)
    (p1, q1), (p2, q2) = _random_pair(rng, 5), _random_pair(rng, 7)
    P, Q = ProductDistribution((p1, p2)), ProductDistribution((q1, q2))
    whole = exact.renyi_divergence(P, Q, 3.0)
    parts = [exact.renyi_divergence(p1, q1, 3.0), exact.renyi_divergence(p2, q2, 3.0)]
    assert whole == parts[0] + parts[1]
    loss = exact.loss_range(P, Q)
    assert loss.sup == exact.loss_range(p1, q1).sup + exact.loss_range(p2, q2).sup


def test_support_mismatch_is_infinite_in_one_direction_only():
    P = FiniteDistribution.from_probs([0, 1, 2], [0.5, 0.5, 0.0])
    Q = FiniteDistribution.from_probs([0, 1, 2], [0.25, 0.25, 0.5])
    assert exact.renyi_divergence(P, Q, 2.0).hi < math.inf  # P << Q
    assert exact.renyi_divergence(Q, P, 2.0).hi == math.inf
    assert exact.pure_epsilon(P, Q).epsilon.lo == math.inf
    assert contains(exact.privacy_profile(Q, P, 0.0).delta, 0.5)


def test_unlocated_tail_mass_only_counts_against_a_claim():
    """A truncated law with tail_mass: pure epsilon cannot be bounded and delta widens by the tail."""
    x = np.arange(-50, 51)
    logp = -(x**2) / 8.0
    logq = -((x - 1) ** 2) / 8.0
    P = FiniteDistribution(x, logp - np.logaddexp.reduce(logp), tail_mass=1e-9)
    Q = FiniteDistribution(x, logq - np.logaddexp.reduce(logq), tail_mass=1e-9)
    assert exact.pure_epsilon(P, Q).epsilon.hi == math.inf
    tight = FiniteDistribution(x, P.log_probs)
    d_tail, d_tight = exact.privacy_profile(P, Q, 0.5).delta, exact.privacy_profile(tight, Q, 0.5).delta
    assert d_tail.hi >= d_tight.hi + Fraction(9, 10**10) and d_tail.lo == d_tight.lo


def test_million_point_support_is_decided_exactly():
    """Discrete Gaussian-like laws on 10^6 outcomes (the benchmark times this)."""
    x = np.arange(-500_000, 500_000)
    sigma = 1e5
    logp = -(x.astype(float) ** 2) / (2 * sigma**2)
    logq = -((x - 1.0) ** 2) / (2 * sigma**2)
    P = FiniteDistribution(x, logp - np.logaddexp.reduce(logp), log_error=1e-12)
    Q = FiniteDistribution(x, logq - np.logaddexp.reduce(logq), log_error=1e-12)
    # the loss is (2x - 1) / (2 sigma^2): largest in magnitude at x = -500000
    pe = exact.pure_epsilon(P, Q).epsilon
    assert contains(pe, (2 * 500_000 + 1) / (2 * sigma**2), slack=1e-11)
    mech = DistributionMechanism({0: P, 1: Q})
    assert dpaudit.audit_privacy(mech, PureDP(5.1e-5), pairs=[(0, 1)], auditor="exact").verdict == "verified"
    assert dpaudit.audit_privacy(mech, PureDP(4.9e-5), pairs=[(0, 1)], auditor="exact").verdict == "refuted"
    # delta at 0 is the total variation: Gaussian TV with mu = 1e-5 is about mu / sqrt(2 pi)
    tv = exact.privacy_profile(P, Q, 0.0).delta
    assert contains(tv, 1e-5 / math.sqrt(2 * math.pi), slack=1e-9)


# -- the auditor on every claim type --------------------------------------------------------------


def test_gaussian_renyi_and_zcdp_claims_are_verified_at_their_exact_value():
    mech = DistributionMechanism({0: GaussianDistribution(0.0, 2.0), 1: GaussianDistribution(1.0, 2.0)})
    rho = 1 / 8  # mu^2 / 2 with mu = 1/2
    audit = lambda c: dpaudit.audit_privacy(mech, c, pairs=[(0, 1)], auditor="exact")  # noqa: E731
    assert audit(ZCDP(rho)).verdict == "verified"
    r = audit(ZCDP(rho * 0.99))
    assert r.verdict == "refuted" and r.witness["rho"] == pytest.approx(rho)
    assert audit(RenyiDP((2.0, 10.0), (2 * rho, 10 * rho))).verdict == "verified"
    r = audit(RenyiDP((2.0, 10.0), (2 * rho, 9 * rho)))
    assert r.verdict == "refuted" and r.witness["alpha"] == 10.0
    assert r.parameters["renyi_divergences"]["2"] == [0.25, 0.25]


def test_approx_dp_claim_on_gaussian_uses_the_profile_in_both_directions():
    mech = DistributionMechanism({0: GaussianDistribution(0.0, 1.0), 1: GaussianDistribution(1.0, 1.0)})
    true = float(exact.privacy_profile(GaussianDistribution(0.0, 1.0), GaussianDistribution(1.0, 1.0), 1.0).delta.hi)
    ok = dpaudit.audit_privacy(mech, ApproxDP(1.0, true * 1.001), pairs=[(0, 1)], auditor="exact")
    bad = dpaudit.audit_privacy(mech, ApproxDP(1.0, true * 0.999), pairs=[(0, 1)], auditor="exact")
    assert ok.verdict == "verified" and bad.verdict == "refuted"
    assert bad.witness["delta"] == pytest.approx(true) and bad.witness["margin"] < 0


def test_approx_dp_is_decided_per_direction_on_asymmetric_laws():
    """P = (0.5, 0.5, 0), Q = (0.25, 0.25, 0.5): delta_P||Q(0) = 0.5 = delta_Q||P(0), but at eps = 0.5
    only Q||P keeps delta 0.5 (the outcome P cannot produce)."""
    P = FiniteDistribution.from_probs([0, 1, 2], [0.5, 0.5, 0.0])
    Q = FiniteDistribution.from_probs([0, 1, 2], [0.25, 0.25, 0.5])
    r = dpaudit.audit_privacy(DistributionMechanism({0: P, 1: Q}), ApproxDP(0.5, 0.4), pairs=[(0, 1)], auditor="exact")
    assert r.verdict == "refuted" and r.witness["direction"] == "M(d1) against M(d0)"
    assert r.witness["delta"] == pytest.approx(0.5)


def test_an_enclosure_too_wide_to_decide_is_undecided_not_a_verdict():
    """log-probabilities accurate only to 1e-3: a claim within that of the truth cannot be decided."""
    P = FiniteDistribution.from_probs([0, 1], [0.6, 0.4], log_error=1e-3)
    Q = FiniteDistribution.from_probs([0, 1], [0.4, 0.6], log_error=1e-3)
    mech = DistributionMechanism({0: P, 1: Q})
    with pytest.raises(ExactUndecided, match="too wide"):
        dpaudit.audit_privacy(mech, PureDP(math.log(1.5)), pairs=[(0, 1)], auditor="exact")
    r = dpaudit.audit_privacy(mech, PureDP(math.log(1.5)), pairs=[(0, 1)], samples=20_000, seed=1)
    assert r.auditor == "black-box" and "could not decide" in r.notes[0]


# -- dp-accounting as an independent oracle ---------------------------------------------------------

def dp_accounting_module(name: str):
    """A module of dp-accounting, for the oracle tests only: they are skipped when it is not installed (it
    comes with the test extra), and fail when it is installed but does not import."""
    from importlib import import_module, metadata

    try:
        metadata.version("dp-accounting")
    except metadata.PackageNotFoundError:
        pytest.skip("dp-accounting is not installed: pip install -e '.[test]' runs the oracle comparisons")
    return import_module(name)


@pytest.fixture
def pld():
    return dp_accounting_module("dp_accounting.pld.privacy_loss_distribution")


EPSILONS = (0.0, 0.3, 1.0)


def _agrees_with_oracle(make, profile) -> None:
    """dp-accounting's pessimistic and optimistic PLDs bracket the true delta(eps) up to their
    discretisation, and to about 1e-12 in floating point (slack 1e-5 relative): our enclosure must meet
    that bracket (a 0.3% error in the shift of a Laplace mechanism already misses it)."""
    upper, lower = make(pessimistic_estimate=True), make(pessimistic_estimate=False)
    for eps in EPSILONS:
        hi, lo = upper.get_delta_for_epsilon(eps), lower.get_delta_for_epsilon(eps)
        delta = profile(eps)
        slack = 1e-5 * max(hi, 1e-12)
        assert float(delta.lo) <= hi + slack and float(delta.hi) >= lo - slack, (eps, delta.floats(), (lo, hi))


@pytest.mark.parametrize("b", [0.5, 1.0, 4.0])
def test_oracle_laplace(b, pld):
    _agrees_with_oracle(lambda **kw: pld.from_laplace_mechanism(b, 1.0, value_discretization_interval=1e-5, **kw),
                        lambda eps: exact.privacy_profile(Laplace(b), Laplace(b, loc=1), eps).delta)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 5.0])
def test_oracle_gaussian(sigma, pld):
    _agrees_with_oracle(
        lambda **kw: pld.from_gaussian_mechanism(sigma, 1.0, value_discretization_interval=1e-4, **kw),
        lambda eps: exact.privacy_profile(GaussianDistribution(0, sigma), GaussianDistribution(1, sigma), eps).delta,
    )


@pytest.mark.parametrize("a", [0.3, 1.0, 2.0])
def test_oracle_discrete_laplace(a, pld):
    """dp-accounting's discrete Laplace has pmf proportional to exp(-a |x|): scale 1/a."""
    scale = Fraction(1) / Fraction(a)
    _agrees_with_oracle(
        lambda **kw: pld.from_discrete_laplace_mechanism(a, 1, value_discretization_interval=1e-5, **kw),
        lambda eps: exact.privacy_profile(DiscreteLaplace(scale), DiscreteLaplace(scale, loc=1), eps).delta,
    )


def _discrete_gaussian(sigma: float, bound: int, shift: int) -> FiniteDistribution:
    """The discrete Gaussian truncated to [-bound, bound] and renormalised, shifted (dp-accounting's model)."""
    x = np.arange(-bound, bound + 1)
    logp = -(x.astype(float) ** 2) / (2 * sigma**2)
    return FiniteDistribution(x + shift, logp - np.logaddexp.reduce(logp), log_error=1e-13)


@pytest.mark.parametrize("sigma, bound", [(1.0, 10), (3.0, 30)])
def test_oracle_discrete_gaussian(sigma, bound, pld):
    _agrees_with_oracle(
        lambda **kw: pld.from_discrete_gaussian_mechanism(sigma, 1, truncation_bound=bound,
                                                          value_discretization_interval=1e-5, **kw),
        lambda eps: exact.privacy_profile(_discrete_gaussian(sigma, bound, 0), _discrete_gaussian(sigma, bound, 1),
                                          eps).delta,
    )


@pytest.mark.parametrize("noise, k", [(0.3, 2), (0.5, 4), (0.9, 10)])
def test_oracle_randomized_response(noise, k, pld):
    """dp-accounting's RR keeps the value with probability 1 - noise, else reports a uniform bucket."""
    keep, other = 1 - noise + noise / k, noise / k
    P = FiniteDistribution.from_probs(np.arange(k), [keep] + [other] * (k - 1))
    Q = FiniteDistribution.from_probs(np.arange(k), [other, keep] + [other] * (k - 2))
    _agrees_with_oracle(
        lambda **kw: pld.from_randomized_response(noise, k, value_discretization_interval=1e-5, **kw),
        lambda eps: exact.privacy_profile(P, Q, eps).delta,
    )


@pytest.mark.slow
@pytest.mark.parametrize("noise, sigma", [(0.5, 1.0), (0.9, 3.0)])
def test_oracle_randomized_response_composed_with_gaussian(noise, sigma, pld):
    """A binary RR coordinate and a Gaussian coordinate together: dp-accounting composes their PLDs."""
    keep, other = 1 - noise / 2, noise / 2
    rr0, rr1 = (FiniteDistribution.from_probs(np.arange(2), probs) for probs in ([keep, other], [other, keep]))
    p = ProductDistribution((rr0, GaussianDistribution(0, sigma)))
    q = ProductDistribution((rr1, GaussianDistribution(1, sigma)))
    _agrees_with_oracle(
        lambda **kw: pld.from_randomized_response(noise, 2, value_discretization_interval=1e-5, **kw).compose(
            pld.from_gaussian_mechanism(sigma, 1.0, value_discretization_interval=1e-5, **kw)),
        lambda eps: exact.privacy_profile(p, q, eps).delta,
    )


def test_oracle_renyi_of_gaussian_and_laplace():
    """dp-accounting's RDP accountant for one Gaussian (and Laplace) release."""
    dp_accounting = dp_accounting_module("dp_accounting")

    orders = [1.5, 2.0, 8.0, 32.0]
    acc = dp_accounting.rdp.RdpAccountant(orders)
    acc.compose(dp_accounting.GaussianDpEvent(2.0))  # noise multiplier: sigma / sensitivity
    for alpha, value in zip(orders, acc._rdp):
        assert contains(exact.renyi_divergence(GaussianDistribution(0, 2.0), GaussianDistribution(1, 2.0), alpha),
                        value, slack=1e-12)
    acc = dp_accounting.rdp.RdpAccountant(orders)
    acc.compose(dp_accounting.LaplaceDpEvent(1.0))
    for alpha, value in zip(orders, acc._rdp):
        assert contains(exact.renyi_divergence(Laplace(1.0), Laplace(1.0, loc=1), alpha), value, slack=1e-10)


def test_a_broken_dp_accounting_fails_the_oracle_tests_instead_of_skipping_them(monkeypatch):
    """Installed but not importable (a broken dependency): an error, not a silent skip; not installed: a skip."""
    import sys
    from importlib import metadata

    monkeypatch.setattr(metadata, "version", lambda name: "0.4.4")
    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # None in sys.modules makes the import fail
    with pytest.raises(ImportError):
        dp_accounting_module("dp_accounting")

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        dp_accounting_module("dp_accounting")


def test_a_law_that_does_not_sum_to_one_is_rejected():
    with pytest.raises(ValueError, match="sum to 0.5"):
        FiniteDistribution.from_probs([0, 1], [0.25, 0.25])
    with pytest.raises(ValueError, match="sum to 1.5"):
        FiniteDistribution.from_probs([0, 1], [0.75, 0.75])
    # unlisted tail mass covers a shortfall, up to its stated size
    FiniteDistribution.from_probs([0, 1], [0.5, 0.5 - 1e-3], tail_mass=1e-3)
    with pytest.raises(ValueError, match="tail_mass"):
        FiniteDistribution.from_probs([0, 1], [0.5, 0.4], tail_mass=1e-3)


def test_a_distribution_dpaudit_cannot_analyse_is_a_clear_error_with_the_exact_auditor():
    class Opaque:
        def sample(self, d, size, rng):
            return rng.normal(d, 1.0, size)

        def distribution(self, d):
            return {"mean": d}

    with pytest.raises(dpaudit.UnsupportedAudit, match="no exact density"):
        dpaudit.audit_privacy(Opaque(), PureDP(1.0), pairs=[(0, 1)], auditor="exact")


def _exact_logs_pairs(count=400):
    """Random pairs of finite laws whose float log-probabilities are taken as exact (log_error = 0), so
    an enclosure has no slack but its own roundings: the probabilities are exp of the stored floats,
    summed in 60 digits. Half the pairs put most of P's mass where Q has little (the terms p - e^eps q
    are then nearly p, and a rounding factor applied the wrong way shows)."""
    rng = np.random.default_rng(20261125)
    for k in range(count):
        m = int(rng.integers(2, 9))
        lp = np.log(rng.dirichlet(np.ones(m)))
        lq = np.log(rng.dirichlet(np.ones(m) * (0.2 if k % 2 else 1.0)))
        if k % 2:
            lq = lq - np.where(np.arange(m) < m // 2, 8.0, 0.0)
            lq = lq - float(logsumexp(lq))
        lp, lq = lp - float(logsumexp(lp)), lq - float(logsumexp(lq))
        P = FiniteDistribution(np.arange(m), lp, log_error=0.0)
        Q = FiniteDistribution(np.arange(m), lq, log_error=0.0)
        yield P, Q, lp, lq, float(rng.uniform(0, 2))


def test_finite_enclosures_contain_the_truth_with_no_slack_but_their_own_rounding():
    """delta(eps) and D_alpha of laws whose logs are exact: every enclosure contains the 60-digit value
    and is within a few hundred units of rounding of it (400 seeded pairs, deterministic)."""
    for P, Q, lp, lq, eps in _exact_logs_pairs():
        p = [mpmath.exp(mpmath.mpf(x)) for x in lp]
        q = [mpmath.exp(mpmath.mpf(x)) for x in lq]
        f = mpmath.exp(mpmath.mpf(eps))
        truth = mpmath.fsum(max(a - f * b, 0) for a, b in zip(p, q))
        d = exact.finite.hockey_stick(P, Q, eps)
        assert contains(d.delta, Fraction(*truth.as_integer_ratio())), (eps, float(truth), d.delta.floats())
        assert width(d.delta) <= 1e-14 * float(mpmath.fsum(p) + f * mpmath.fsum(q))  # a few roundings of the terms
        inside = [i for i in range(len(lp)) if lp[i] - lq[i] > eps]
        assert d.event_size == len(inside)
        assert d.p_mass == pytest.approx(float(mpmath.fsum(p[i] for i in inside)), rel=1e-12, abs=1e-300)
        assert d.q_mass == pytest.approx(float(mpmath.fsum(q[i] for i in inside)), rel=1e-12, abs=1e-300)
        gains = sorted(inside, key=lambda i: -(p[i] - f * q[i]))[:5]
        assert [int(x) for x in d.top] == gains
        for alpha in (1.5, 4.0):
            s = mpmath.fsum(a**alpha * b ** (1 - alpha) for a, b in zip(p, q))
            true = mpmath.log(s) / (alpha - 1)
            r = exact.renyi_divergence(P, Q, alpha)
            assert contains(r, Fraction(*true.as_integer_ratio())), (alpha, float(true), r.floats())
            assert width(r) <= 1e-6 * abs(float(true)) + 1e-12


@pytest.mark.parametrize("m0, s0, m1, s1", [(0.3, 0.8, -0.4, 1.1), (1.5, 1.7, 0.25, 1.2)])
def test_gaussian_renyi_with_unequal_variances_is_enclosed_to_sixty_digits(m0, s0, m1, s1):
    """D_alpha of N(m0, s0^2) against N(m1, s1^2), both means non-zero and neither sigma 1, against
    numerical integration in 72 digits: the enclosure (half-width 2^-200 (1 + |D|)) contains it with no
    slack of the test's own. Where alpha s1^2 + (1 - alpha) s0^2 <= 0 the divergence is infinite; at
    alpha = inf it is the (infinite) supremum of the loss; for equal laws it is 0."""
    p, q = GaussianDistribution(m0, s0), GaussianDistribution(m1, s1)
    with mpmath.workdps(72):
        for alpha in (1.5, 3.0):
            if alpha * s1**2 + (1 - alpha) * s0**2 <= 0:
                continue

            def f(x, alpha=alpha):
                return mpmath.npdf(x, m0, s0) ** alpha * mpmath.npdf(x, m1, s1) ** (1 - alpha)

            true = mpmath.log(mpmath.quad(f, [-mpmath.inf, m0, m1, mpmath.inf])) / (alpha - 1)
            got = exact.renyi_divergence(p, q, alpha)
            assert contains(got, Fraction(*true.as_integer_ratio())), (alpha, float(true))
            assert 0 < width(got) < 1e-55
    edge = s0**2 / (s0**2 - s1**2) if s0 > s1 else None  # alpha s1^2 + (1 - alpha) s0^2 = 0 here
    if edge is not None:
        assert exact.renyi_divergence(p, q, edge * 1.01).hi == math.inf
        assert exact.renyi_divergence(p, q, edge * 0.99).hi < math.inf
    assert exact.renyi_divergence(p, q, math.inf) == Enclosure.point(math.inf)
    same = exact.loss_range(p, GaussianDistribution(m0, s0))
    assert same.sup == same.inf == Enclosure.point(0) and same.sup_at is None and same.inf_at is None
    assert exact.renyi_divergence(p, GaussianDistribution(m0, s0), math.inf) == Enclosure.point(0)
    apart = exact.loss_range(p, q)
    assert apart.sup == Enclosure.point(math.inf) and apart.inf == Enclosure.point(-math.inf)
    assert apart.sup_at == math.inf and apart.inf_at == -math.inf


def test_a_product_loss_range_adds_the_coordinates_and_lists_where_each_is_reached():
    """Three Laplace-type coordinates with losses in [-1/2, 1/2], [-3/2, 3/2] and [-1, 1]: the product's loss
    runs from -3 to 3, reached at the output whose coordinates reach each one's end."""
    p = ProductDistribution((Laplace(2.0, loc=0.0), DiscreteLaplace(2.0, loc=0), Laplace(1.0, loc=0.0)))
    q = ProductDistribution((Laplace(2.0, loc=1.0), DiscreteLaplace(2.0, loc=3), Laplace(1.0, loc=-1.0)))
    loss = exact.loss_range(p, q)
    assert loss.sup == Enclosure.point(3) and loss.inf == Enclosure.point(-3)
    assert loss.sup_at == [0, 0, 0] and loss.inf_at == [1, 3, -1]


def test_the_gaussian_loss_of_a_law_against_itself_is_zero():
    """N(1/2, 1) written with floats and with fractions is one law: its loss against itself is 0 with no
    location (exact.loss_range skips equal coordinates; the Gaussian kernel answers it too)."""
    p, q = GaussianDistribution(0.5, 1.0), GaussianDistribution(Fraction(1, 2), Fraction(1))
    for loss in (exact.loss_range(p, q), exact.gaussian.loss_range(p, q)):
        assert loss.sup == loss.inf == Enclosure.point(0) and loss.sup_at is None and loss.inf_at is None
    assert exact.renyi_divergence(p, q, math.inf) == Enclosure.point(0)
    assert exact.gaussian.renyi(p, q, math.inf) == Enclosure.point(0)
    assert exact.gaussian.renyi(p, GaussianDistribution(0.5, 2.0), math.inf) == Enclosure.point(math.inf)


# -- the engines' safeguards, each at the input that needs it -------------------------------------


def test_the_maximum_of_enclosed_values_takes_each_end_from_its_own_largest():
    """max of values known to lie in [0, 5], [1, 2] and [1/3, 3] lies in [1, 5]: the lower end is the
    largest lower end (here not from the value with the largest upper end)."""
    values = [Enclosure(0, 5), Enclosure(1, 2), Enclosure(Fraction(1, 3), 3)]
    assert exact.enclosure.maximum(values) == Enclosure(1, 5)
    assert exact.enclosure.maximum([Enclosure(-math.inf, 0), Enclosure(-1, math.inf)]) == Enclosure(-1, math.inf)


def _exp_off_by(x: float, side: int, allowance: float) -> float:
    """exp(x) (x a float, or -inf) wrong by the whole relative ``allowance`` in the direction ``side``
    (+1 too large, -1 too small), rounded to the float on the allowed side: a worst case of an exp
    accurate to that allowance."""
    if x == -math.inf:
        return 0.0
    v = mpmath.exp(mpmath.mpf(x)) * (1 + side * mpmath.mpf(allowance))
    target, f = Fraction(*v.as_integer_ratio()), float(v)
    if side < 0 and Fraction(f) < target:
        f = math.nextafter(f, math.inf)
    if side > 0 and Fraction(f) > target:
        f = math.nextafter(f, -math.inf)
    return f


class _SkewedModule:
    """A stand-in for numpy or math inside dpaudit.exact.finite whose exp errs by ``allowance`` in the
    direction ``side(x)`` gives for its argument (0: exact); everything else is the real module's."""

    def __init__(self, module, side, allowance):
        self._module, self._side, self._allowance = module, side, allowance

    def __getattr__(self, name):
        return getattr(self._module, name)

    def exp(self, x):
        side = self._side(x)
        if not side:
            return self._module.exp(x)
        if np.ndim(x) == 0:
            return _exp_off_by(float(x), side, self._allowance)
        return np.array([_exp_off_by(float(v), side, self._allowance) for v in np.ravel(x)]).reshape(np.shape(x))


@pytest.mark.parametrize("end", ["upper", "lower"])
@pytest.mark.parametrize("lp, lq, eps", [
    ([math.log(0.75), math.log(0.25)], [-math.inf, 0.0], 0.0),  # delta is p(0): the p side alone
    ([math.log(0.5), math.log(0.5)], [math.log(0.45), math.log(0.55)], 0.1),  # p - e^eps q cancels to 0.003
])
def test_a_finite_profile_stays_rigorous_when_exp_errs_by_its_whole_allowance(monkeypatch, end, lp, lq, eps):
    """dpaudit.exact.finite takes numpy's and math's exp to be accurate to finite.U (relative); its
    enclosure of delta(eps) must hold whatever errors of that size exp makes. Here exp errs by all of
    it, in the direction that pushes each end towards the truth: for the upper end p = exp(log p) too
    small and q, e^eps too large, for the lower end the reverse. The truth is the 60-digit sum over
    the laws exp(log p), exp(log q) of the stored floats (log_error 0). Cancelling p - e^eps q shows a
    missing factor on the q side; a lone p shows one on the p side."""
    lp, lq = np.array(lp), np.array(lq)
    P = FiniteDistribution(np.arange(2), lp, log_error=0.0)
    Q = FiniteDistribution(np.arange(2), lq, log_error=0.0)
    toward = -1 if end == "upper" else 1  # the error of exp on P's probabilities; Q's and e^eps get the other

    def side(x):
        if np.ndim(x) == 0:
            return -toward
        return toward if np.array_equal(x, lp) else -toward if np.array_equal(x, lq) else 0

    monkeypatch.setattr(exact.finite, "np", _SkewedModule(np, side, exact.finite.U))
    monkeypatch.setattr(exact.finite, "math", _SkewedModule(math, side, exact.finite.U))
    delta = exact.finite.hockey_stick(P, Q, eps).delta
    f = mpmath.exp(mpmath.mpf(eps))
    truth = mpmath.fsum(max(mpmath.exp(mpmath.mpf(a)) - f * mpmath.exp(mpmath.mpf(b)), 0) for a, b in zip(lp, lq))
    true = Fraction(*truth.as_integer_ratio())
    assert (delta.hi >= true) if end == "upper" else (delta.lo <= true), (end, float(truth), delta.floats())


def test_a_finite_profile_holds_for_every_law_within_the_stated_log_error():
    """P = (0.4, 0.6) with log-probabilities known to 1e-3, Q = (0.1, 0.9) exactly: the laws allowed
    include P' = (0.4 e^0.001, 1 - 0.4 e^0.001) and P'' = (0.4 e^-0.001, 1 - 0.4 e^-0.001) (both within
    1e-3 in log), whose delta(0) are 0.4 e^+-0.001 - 0.1 (60 digits): the enclosure must hold both,
    and be no wider than the error allows (about 2 * 0.4 * 1e-3 + 2 * 0.1 * 1e-3)."""
    P = FiniteDistribution(np.arange(2), np.log([0.4, 0.6]), log_error=1e-3)
    Q = FiniteDistribution(np.arange(2), np.log([0.1, 0.9]), log_error=0.0)
    delta = exact.privacy_profile(P, Q, 0.0).delta
    p0, q0 = (mpmath.exp(mpmath.mpf(x)) for x in (P.log_probs[0], Q.log_probs[0]))
    e = mpmath.mpf(1e-3)
    highest, lowest = p0 * mpmath.exp(e) - q0, p0 * mpmath.exp(-e) - q0
    assert delta.hi >= Fraction(*highest.as_integer_ratio()) and delta.lo <= Fraction(*lowest.as_integer_ratio())
    assert width(delta) <= 1.0001 * float(2 * (p0 + q0) * mpmath.sinh(e))


def test_an_outcome_whose_loss_equals_epsilon_is_not_in_the_event():
    """P = (0.5, 0.3, 0.2), Q = (0.5, 0.2, 0.3) at eps = 0: outcome 0 has loss exactly 0, and the event
    {p > e^eps q} that the profile reports holds outcome 1 alone (p = 0.3, q = 0.2)."""
    P = FiniteDistribution.from_probs([0, 1, 2], [0.5, 0.3, 0.2])
    Q = FiniteDistribution.from_probs([0, 1, 2], [0.5, 0.2, 0.3])
    assert P.log_probs[0] == Q.log_probs[0]
    event = exact.privacy_profile(P, Q, 0.0).event
    assert event["outcomes"] == 1 and [int(x) for x in event["top"]] == [1]
    assert event["P"] == pytest.approx(0.3, rel=1e-14) and event["Q"] == pytest.approx(0.2, rel=1e-14)


def _balle_wang_100(mu2: Fraction, eps: float) -> mpmath.mpf:
    """Balle and Wang's delta(eps) in 100 digits (far below the engine's 2^-200 margin)."""
    with mpmath.workdps(100):
        mu = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
        return +_balle_wang(mu, mpmath.mpf(eps))


@pytest.mark.parametrize("mean, sigma, eps", [
    (1.0, 1.0, 0.5),  # delta about 0.13
    (3.0, 2.0, 0.0),
    (1.0, 0.5, -1.0),  # eps < 0: the margin's e^eps term is below 1
    (1000.0, 1.0, 0.0),  # delta = 1 - 10^-54000: the upper end stops at 1
])
def test_a_gaussian_profile_is_the_closed_form_widened_by_its_stated_margin(mean, sigma, eps):
    """N(0, s^2) against N(m, s^2): the enclosure of delta(eps) holds the 100-digit Balle-Wang value
    with no slack, and is exactly as wide as documented: the value +- 2^-200 (1 + delta + e^eps),
    clipped to [0, 1] (a margin that cannot miss, and no wider: it is all the claim's precision)."""
    mu2 = (Fraction(mean) / Fraction(sigma)) ** 2
    delta = exact.privacy_profile(GaussianDistribution(0.0, sigma), GaussianDistribution(mean, sigma), eps).delta
    with mpmath.workdps(100):
        truth = _balle_wang_100(mu2, eps)
        true = Fraction(*truth.as_integer_ratio())
        margin = Fraction(1, 2**200) * (1 + true + Fraction(*mpmath.exp(mpmath.mpf(eps)).as_integer_ratio()))
    assert delta.lo <= true <= delta.hi
    assert delta.hi <= 1
    stated = min(true + margin, 1) - max(true - margin, 0)
    assert abs(delta.width - stated) <= Fraction(1, 10**6) * stated, (float(delta.width), float(stated))


def test_equal_gaussians_have_no_profile():
    """mu = 0 (the same law twice): delta(eps) = 0 at every eps, exactly."""
    for eps in (0.0, 1.0):
        assert exact.gaussian.delta_from_mu_squared(Fraction(0), eps) == Enclosure.point(0)


def _gaussian_renyi_by_completing_the_square(m0, s0, m1, s1, alpha, dps=250):
    """D_alpha(N(m0, s0^2) || N(m1, s1^2)) from first principles: p^a q^(1 - a) = exp(-A x^2 + B x - C)
    over the normalisers, integrated as sqrt(pi / A) exp(B^2 / 4A) (A > 0)."""
    with mpmath.workdps(dps):
        a, m0, s0, m1, s1 = (mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator
                             for v in (alpha, m0, s0, m1, s1))
        A = a / (2 * s0**2) + (1 - a) / (2 * s1**2)
        B = a * m0 / s0**2 + (1 - a) * m1 / s1**2
        C = a * m0**2 / (2 * s0**2) + (1 - a) * m1**2 / (2 * s1**2)
        log_integral = -mpmath.log(2 * A) / 2 + B**2 / (4 * A) - C - a * mpmath.log(s0) - (1 - a) * mpmath.log(s1)
        return Fraction(*(log_integral / (a - 1)).as_integer_ratio())


@pytest.mark.parametrize("m0, s0, m1, s1, alpha", [
    (0.3, 0.8, -0.4, 1.1, 2.5),
    (0.0, 1.0, 1e20, 1.5, 3.0),  # D about 1e40: a margin relative to |D| is needed
])
def test_gaussian_renyi_with_unequal_variances_holds_the_truth_within_its_stated_margin(m0, s0, m1, s1, alpha):
    """The enclosure holds D_alpha computed independently in 250 digits with no slack, and has the
    documented width 2 * 2^-200 (1 + |D|): at D ~ 1e40 the 256-bit value carries an error ~1e-37, which
    only a margin growing with |D| covers."""
    got = exact.renyi_divergence(GaussianDistribution(m0, s0), GaussianDistribution(m1, s1), alpha)
    true = _gaussian_renyi_by_completing_the_square(m0, s0, m1, s1, alpha)
    assert got.lo <= true <= got.hi
    stated = 2 * Fraction(1, 2**200) * (1 + true)
    assert abs(got.width - stated) <= Fraction(1, 10**6) * stated


def test_gaussian_renyi_is_infinite_exactly_where_the_integral_stops_converging():
    """N(0, 5^2) against N(1, 3^2): alpha s1^2 + (1 - alpha) s0^2 = 0 at alpha = 25/16, where p^a q^(1-a)
    is the exponential of a linear function of x (its x^2 terms cancel), so D_alpha is infinite there;
    just below it is finite and agrees with the first-principles value."""
    p, q = GaussianDistribution(0.0, 5.0), GaussianDistribution(1.0, 3.0)
    assert exact.renyi_divergence(p, q, 1.5625) == Enclosure.point(math.inf)
    below = exact.renyi_divergence(p, q, 1.5)
    assert contains(below, _gaussian_renyi_by_completing_the_square(0.0, 5.0, 1.0, 3.0, 1.5))


def _log_linear(knots, slopes) -> LogLinearDistribution:
    """A density exp(offset(x)) with no constant: the knots and slopes below are chosen so it
    integrates to exactly 1 (sum over the pieces of the integral of e^(slope x))."""
    return LogLinearDistribution.build(knots=knots, slopes=slopes, offset_at_first_knot=0, constant=None,
                                       lattice=False)


def test_the_loss_between_laplace_laws_of_two_scales_peaks_at_their_common_centre():
    """Laplace(1/2, 0.3) against Laplace(1, 0.3): log p/q = log 2 - |x - 0.3|, largest (log 2) at 0.3
    only, and unbounded below along both tails."""
    loss = exact.loss_range(Laplace(0.5, loc=0.3), Laplace(1.0, loc=0.3))
    assert contains(loss.sup, Fraction(*mpmath.log(2).as_integer_ratio()), slack=REF) and width(loss.sup) < 1e-50
    assert loss.sup_at == 0.3 and loss.inf == Enclosure.point(-math.inf)


def test_a_flat_topped_law_has_a_bounded_loss_against_laplace_with_its_tails():
    """T: density 1 on [0, 1/2] with tails e^(4x) left and e^(-4(x - 1/2)) right (1/4 + 1/2 + 1/4 = 1), against
    Laplace(1/4), log q = log 2 - 4|x|. The tails' slopes agree, so the loss is bounded: log t/q runs from
    -log 2 (x <= 0) to 2 - log 2 (x >= 1/2), found here on a grid from the two densities' formulas; a
    check that compared the wrong tails (the flat middle's slope 0 against 4) would call it unbounded."""
    T, L = _log_linear([0, 0.5], [4, 0, -4]), Laplace(0.25)
    x = np.linspace(-3, 3, 6001)
    log_t = np.where(x < 0, 4 * x, np.where(x > 0.5, -4 * (x - 0.5), 0.0))
    log_q = math.log(2) - 4 * np.abs(x)
    high, low = float((log_t - log_q).max()), float((log_t - log_q).min())
    forward, backward = exact.loss_range(T, L), exact.loss_range(L, T)
    assert contains(forward.sup, high, slack=1e-12) and contains(forward.inf, low, slack=1e-12)
    assert contains(backward.sup, -low, slack=1e-12) and contains(backward.inf, -high, slack=1e-12)
    assert forward.sup_at == 0.5 and forward.inf_at == 0
    assert contains(exact.pure_epsilon(T, L).epsilon, 2 - math.log(2), slack=1e-12)


def test_a_loss_unbounded_along_a_tail_is_infinite_there_and_says_which_tail():
    """P with slopes 3 and -3/2 (1/3 + 2/3 = 1) against Q with slopes 2 and -2 (1/2 + 1/2 = 1), both peaked
    at 0: log p/q = x on the left and x/2 on the right, so sup = +inf along the right tail and
    inf = -inf along the left one; reversed, sup = +inf on the left and inf = -inf on the right."""
    P, Q = _log_linear([0], [3, -1.5]), _log_linear([0], [2, -2])
    forward, backward = exact.loss_range(P, Q), exact.loss_range(Q, P)
    assert forward.sup == Enclosure.point(math.inf) and forward.sup_at == math.inf
    assert forward.inf == Enclosure.point(-math.inf) and forward.inf_at == -math.inf
    assert backward.sup == Enclosure.point(math.inf) and backward.sup_at == -math.inf
    assert backward.inf == Enclosure.point(-math.inf) and backward.inf_at == math.inf


@pytest.mark.parametrize("scale, shift, alpha", [(1.0, 1, 2.0), (2.5, 3, 3.5)])
def test_discrete_laplace_renyi_matches_the_sum_over_the_integers(scale, shift, alpha):
    """D_alpha of two discrete Laplace laws against the 60-digit sum over |k| <= 400 of p^a q^(1-a)
    (the terms beyond are below e^-100): a pmf's divergence is a sum, not an integral."""
    r = mpmath.exp(-1 / mpmath.mpf(scale))
    c = (1 - r) / (1 + r)
    total = mpmath.fsum(c * r ** (alpha * abs(k) + (1 - alpha) * abs(k - shift)) for k in range(-400, 401))
    true = mpmath.log(total) / (alpha - 1)
    got = exact.renyi_divergence(DiscreteLaplace(scale), DiscreteLaplace(scale, loc=shift), alpha)
    assert contains(got, Fraction(*true.as_integer_ratio()), slack=1e-40) and width(got) < 1e-40


def test_laplace_renyi_between_two_scales_is_finite_until_the_integral_diverges():
    """Laplace(2) against Laplace(1): p^a q^(1-a) decays as e^(-(1 - a/2)|x|), so D_alpha is finite for
    alpha < 2 (D_1.5 = log 2 in closed form: the integral is sqrt 2) and infinite from alpha = 2 on."""
    p, q = Laplace(2.0), Laplace(1.0)
    assert contains(exact.renyi_divergence(p, q, 1.5), Fraction(*mpmath.log(2).as_integer_ratio()), slack=REF)
    assert exact.renyi_divergence(p, q, 2.0) == Enclosure.point(math.inf)
    assert exact.renyi_divergence(p, q, 3.0) == Enclosure.point(math.inf)


def test_a_profile_at_a_very_negative_epsilon_is_at_most_one():
    """delta(-1000) = 1 - e^-1000 (every outcome has loss above -1000): the enclosure holds it and, delta
    being a difference of probabilities, its upper end is 1 (the interval arithmetic alone exceeds 1
    by rounding)."""
    for p, q in ((Laplace(1.0), Laplace(1.0, loc=1)), (DiscreteLaplace(1.0), DiscreteLaplace(1.0, loc=1))):
        delta = exact.privacy_profile(p, q, -1000.0).delta
        assert delta.hi == 1 and delta.lo >= 1 - Fraction(1, 10**70)


def test_output_locations_become_plain_numbers():
    """point_value turns the places where a loss peaks into plain ints and floats for witnesses:
    integral values become ints, others stay floats, lists recurse, None and non-numbers stay."""
    value = exact.loss.point_value([Fraction(3), 0.25, np.float64(2.0), None, "a", [Fraction(1, 2), np.int64(7)]])
    assert value == [3, 0.25, 2, None, "a", [0.5, 7]]
    assert [type(v) for v in value[:3]] == [int, float, int] and [type(v) for v in value[5]] == [float, int]
    assert exact.loss.point_value(None) is None and exact.loss.point_value(-math.inf) == -math.inf


def test_pure_epsilon_is_never_negative_even_inside_its_error():
    """Two laws closer than their stated log error (1e-12): both directions' bounds reach below 0, but
    pure epsilon (a maximum that includes the two laws' equal total mass) is at least 0."""
    P = FiniteDistribution.from_probs([0, 1], [0.5, 0.5])
    Q = FiniteDistribution.from_probs([0, 1], [0.5 + 1e-15, 0.5 - 1e-15])
    pe = exact.pure_epsilon(P, Q).epsilon
    assert pe.lo == 0 and 2e-15 <= float(pe.hi) < 1e-11


def test_pure_epsilon_reports_the_direction_and_output_of_the_worse_loss():
    """P = (0.2, 0.8), Q = (0.5, 0.5): log q/p = log 2.5 at outcome 0 beats log p/q = log 1.6 at outcome 1,
    so the worse direction is d1/d0 there; swapped, it is d0/d1. A symmetric pair (Laplace shifted by its
    scale: the loss runs from -1 to 1) ties, and names the forward direction at the loss's peak (x <= 0)."""
    P, Q = FiniteDistribution.from_probs([0, 1], [0.2, 0.8]), FiniteDistribution.from_probs([0, 1], [0.5, 0.5])
    backward, forward = exact.pure_epsilon(P, Q), exact.pure_epsilon(Q, P)
    assert backward.direction == "d1/d0" and backward.output == 0 and contains(backward.epsilon, math.log(2.5), 1e-11)
    assert forward.direction == "d0/d1" and forward.output == 0 and contains(forward.epsilon, math.log(2.5), 1e-11)
    tie = exact.pure_epsilon(Laplace(1.0), Laplace(1.0, loc=1))
    assert tie.epsilon == Enclosure.point(1) and tie.direction == "d0/d1" and tie.output == 0


def test_a_product_reports_where_its_loss_peaks_as_one_flat_output():
    """A scalar coordinate and a coordinate with 2-vector outcomes: the product's loss peaks at the joint
    output (found by enumerating all 2 x 3 of them) reported as the flat list of its released values."""
    P1, Q1 = FiniteDistribution.from_probs([0, 1], [0.7, 0.3]), FiniteDistribution.from_probs([0, 1], [0.4, 0.6])
    rows = [[0, 0], [0, 1], [1, 1]]
    P2, Q2 = FiniteDistribution.from_probs(rows, [0.2, 0.5, 0.3]), FiniteDistribution.from_probs(rows, [0.5, 0.1, 0.4])
    joint = {(a, *row): math.log(p1 * p2 / (q1 * q2))
             for a, p1, q1 in zip([0, 1], P1.probs, Q1.probs) for row, p2, q2 in zip(rows, P2.probs, Q2.probs)}
    peak, trough = max(joint, key=joint.get), min(joint, key=joint.get)
    loss = exact.loss_range(ProductDistribution((P1, P2)), ProductDistribution((Q1, Q2)))
    assert loss.sup_at == list(peak) and loss.inf_at == list(trough)
    assert contains(loss.sup, joint[peak], slack=1e-11) and contains(loss.inf, joint[trough], slack=1e-11)


def _three_point_laplace() -> tuple[FiniteDistribution, FiniteDistribution, float]:
    """P = (1/2, (1 - 1/e)/2, 1/(2e)) and its mirror image Q: losses 1, 0, -1, like Laplace shifted by its
    scale. Var L < 2 KL under P, so D_alpha / alpha falls from alpha = 1 on and rho is the KL divergence
    (computed here in 60 digits from the stored log-probabilities, which are taken as exact)."""
    e1 = math.exp(-1)
    lp = np.log([0.5, (1 - e1) / 2, e1 / 2])
    lq = lp[::-1].copy()
    kl = mpmath.fsum(mpmath.exp(mpmath.mpf(a)) * (mpmath.mpf(a) - mpmath.mpf(b)) for a, b in zip(lp, lq))
    return (FiniteDistribution(np.arange(3), lp, log_error=0.0), FiniteDistribution(np.arange(3), lq, log_error=0.0),
            kl)


@pytest.mark.parametrize("side", [1, -1])
def test_a_zcdp_claim_a_hair_from_the_kl_limit_is_decided_with_orders_closer_to_one(side):
    """rho of the three-point pair is its KL divergence, approached only as alpha -> 1, and the first order of
    the grid (1 + 2^-10) bounds it only to about 1e-4 relative. A claim 1e-5 above it must be verified and
    one 1e-5 below refuted, which takes orders between 1 and the grid's first."""
    P, Q, kl = _three_point_laplace()
    claim = Fraction(*(kl * (1 + side * mpmath.mpf("1e-5"))).as_integer_ratio())
    r = exact.zcdp_rho(P, Q, claim=claim).rho
    assert contains(r, Fraction(*kl.as_integer_ratio()))
    assert (r.hi <= claim) if side > 0 else (r.lo > claim), (float(r.lo), float(r.hi), float(claim))


def test_rho_of_a_rare_event_whose_divergence_peaks_beyond_the_grid_is_bracketed():
    """P = (1 - e^-299.9, e^-299.9) against Q = (1 - e^-300, e^-300): the rare outcome's loss is only 0.1, and
    D_alpha / alpha peaks near alpha = 6000, past the grid's last order 4096 (only orders beyond it bound
    the tail by D_inf / alpha = 0.1 / alpha). rho must hold the maximum over 10000 orders up to 1e7
    computed directly (the KL limit is far lower), and be within 0.2% of it."""
    lp = np.array([math.log1p(-math.exp(-299.9)), -299.9])
    lq = np.array([math.log1p(-math.exp(-300.0)), -300.0])
    alphas = 1 + np.geomspace(1e-6, 1e7, 10000)
    dense = float((logsumexp(np.outer(alphas, lp) + np.outer(1 - alphas, lq), axis=1) / ((alphas - 1) * alphas)).max())
    r = exact.zcdp_rho(FiniteDistribution(np.arange(2), lp, log_error=0.0),
                       FiniteDistribution(np.arange(2), lq, log_error=0.0)).rho
    assert float(r.lo) <= dense * (1 + 1e-9) and float(r.hi) >= dense * (1 - 1e-9)
    assert float(r.hi) <= dense * 1.002


def test_rho_of_laws_closer_than_their_log_error_is_bracketed_from_zero():
    """Two laws 2e-9 apart with log-probabilities known to 1e-6: no order's D_alpha is known to be positive,
    so the lower end is 0 and the grid is refined towards no target; the upper end is finite (the loss is
    bounded by about 2e-6) and above the true rho."""
    P = FiniteDistribution.from_probs([0, 1], [0.5, 0.5], log_error=1e-6)
    Q = FiniteDistribution.from_probs([0, 1], [0.5 + 1e-9, 0.5 - 1e-9], log_error=1e-6)
    r = exact.zcdp_rho(P, Q).rho
    kl = float(np.sum(P.probs * (P.log_probs - Q.log_probs)))
    assert r.lo == 0 and kl <= float(r.hi) < 1e-5


def test_rho_with_an_unbounded_loss_keeps_an_open_upper_end():
    """N(0, 1) against N(1/2, 1.3^2): the loss is unbounded above, so no order bounds D_alpha / alpha beyond
    the grid and a claim above the lower bound stays open (upper end inf) instead of failing; the lower
    end is below the true rho, the KL divergence log 1.3 + (1 + 1/4) / (2 * 1.69) - 1/2 (the limit at
    alpha -> 1, where D_alpha / alpha is largest), and within 0.1% of it."""
    kl = mpmath.log(mpmath.mpf("1.3")) + (1 + mpmath.mpf("0.25")) / (2 * mpmath.mpf("1.69")) - mpmath.mpf("0.5")
    r = exact.zcdp_rho(GaussianDistribution(0.0, 1.0), GaussianDistribution(0.5, 1.3), claim=0.2).rho
    assert r.hi == math.inf and float(kl) * 0.999 <= float(r.lo) <= float(kl)


# -- the rho bracketing (dpaudit.exact.rho) on hand-computable inputs ----------------------------------

def test_the_chord_bound_is_the_maximum_of_the_chord_over_its_interval_computed_by_hand():
    """chord_bound(a, b, K_a, K_b) bounds max over [a, b] of (c0 + c1 x) / (x (x - 1)), the chord
    c0 + c1 x through (a, K_a) and (b, K_b). Hand-picked chords whose critical points (roots of
    c1 x^2 + 2 c0 x - c0) are rational:
    - c0 = -4, c1 = 3: roots 2 and 2/3, and g(2) = (6 - 4) / 2 = 1 is the maximum on [3/2, 3]
      (g(3/2) = 2/3, g(3) = 5/6); on [6/5, 3/2], left of the root, g rises to g(3/2) = 2/3;
    - c0 = -4/3, c1 = 1 (a slope of exactly 1): roots 2 and 2/3, maximum g(2) = (2/3) / 2 = 1/3 on
      [3/2, 3] (g(3/2) = 2/9, g(3) = 5/18);
    - c0 = -1, c1 = 1 (K = alpha - 1, D_alpha = 1 at every order, as for P on one outcome against Q
      uniform on two up to the constant): g = 1/x, largest at a; c0 (c0 + c1) = 0;
    - one end infinite: the bound is infinite.
    The interior maximum is evaluated in interval arithmetic over the float-wide box around the root, so
    it may exceed the truth by about one float rounding (1e-16 relative), never more than 1e-14."""
    from dpaudit.exact.rho import chord_bound

    def k(c0, c1, x):
        return c0 + c1 * x

    F = Fraction
    cases = [((F(3, 2), F(3)), (F(-4), F(3)), F(1)),
             ((F(6, 5), F(3, 2)), (F(-4), F(3)), F(2, 3)),
             ((F(3, 2), F(3)), (F(-4, 3), F(1)), F(1, 3)),
             ((F(2), F(3)), (F(-1), F(1)), F(1, 2))]
    for (a, b), (c0, c1), top in cases:
        bound = chord_bound(a, b, k(c0, c1, a), k(c0, c1, b))
        assert top <= bound <= top * (1 + F(1, 10**14)), (a, b, c0, c1, float(bound))
    assert chord_bound(F(2), F(3), F(1), math.inf) == math.inf
    assert chord_bound(F(2), F(3), math.inf, F(1)) == math.inf


def test_orders_added_below_the_grid_quarter_the_distance_to_one_and_stop_at_two_to_the_minus_thirty():
    """The orders added between 1 and the first order a_1 are 1 + (a_1 - 1) / 4 and 1 + (a_1 - 1) / 16;
    none are added once a_1 is within 2^-30 of 1 (a D_alpha enclosure computed in floats is then no
    better than the bound it would give: the absolute error of K = (alpha - 1) D_alpha, about 1e-16, is
    divided by alpha - 1)."""
    from dpaudit.exact.rho import _below

    assert _below(1.5) == [1.125, 1.03125]
    assert _below(1 + 2.0**-10) == [1 + 2.0**-12, 1 + 2.0**-14]
    assert _below(1 + 2.0**-29) == [1 + 2.0**-31, 1 + 2.0**-33]
    assert _below(1 + 2.0**-30) == []
    assert _below(1 + 2.0**-40) == []


def test_orders_beyond_the_grid_double_until_the_supremum_bound_reaches_the_target():
    """Beyond the last order a, D_alpha / alpha <= D_inf / alpha; the grid is extended by the orders
    2a, 4a, ... up to one doubling past the first where D_inf / alpha <= target (at most 16 doublings),
    and not at all when D_inf / a is already at most the target, the supremum is infinite or the target
    is not positive. By hand: a = 4096, D_inf = 1, target 1e-4: 1 / alpha <= 1e-4 from alpha = 16384 on,
    so the orders are 8192, 16384 and 32768; a target of 1/4096 is met at a itself."""
    from dpaudit.exact.rho import _extension

    F = Fraction
    assert _extension(4096.0, F(1), F(1, 10**4)) == [8192.0, 16384.0, 32768.0]
    assert _extension(4096.0, F(1), F(1, 5000)) == [8192.0, 16384.0]
    assert _extension(4096.0, F(1), F(1, 10**12)) == [4096.0 * 2**k for k in range(1, 17)]
    assert _extension(4096.0, F(1), F(1, 4096)) == []
    assert _extension(4096.0, F(1), F(1, 1000)) == []
    assert _extension(4096.0, F(4096) + F(1, 10**20), F(1)) == [8192.0]  # above the target by 1e-20 / 4096
    assert _extension(4096.0, math.inf, F(1)) == []
    assert _extension(4096.0, F(1), F(0)) == []


def _counting(monkeypatch) -> list[list[float]]:
    """Record the orders of every evaluation of the Renyi curve that exact.zcdp_rho asks for."""
    batches: list[list[float]] = []
    curve = exact.renyi_curve

    def counted(dist0, dist1, alphas):
        batches.append(list(alphas))
        return curve(dist0, dist1, alphas)

    monkeypatch.setattr(exact, "renyi_curve", counted)
    return batches


def test_rho_is_refined_at_most_the_given_number_of_rounds_and_starts_from_the_documented_grid():
    """A curve with D_alpha = alpha / 8 (a Gaussian pair with rho = 1/8) known exactly up to order 3 and with no
    upper end beyond: the interval straddling order 3 never gets a finite bound and would be split forever,
    so every round refines it: the curve is evaluated for the starting grid and once per round, and no more than
    once after the last (a round's new orders are evaluated at its end): 7 or 8 times with the default six
    refinements, 3 or 4 with two, 1 or 2 with none. The starting grid is the 97 orders 1 + geomspace(2^-10, 2^12 - 1)
    without a claim, and every fourth of them (25 orders) to decide a claim (module docstring). The lower end
    is exactly 1/8 (every order gives D_alpha / alpha = 1/8, first reached at the smallest order) and the upper
    end stays open."""
    from dpaudit.exact import rho

    batches = []

    def curve(alphas):
        batches.append(list(alphas))
        return [Enclosure(Fraction(a) / 8, Fraction(a) / 8 if a <= 3 else math.inf) for a in alphas]

    unbounded = Enclosure(0, math.inf)
    assert len(rho.GRID) == 97 and rho.GRID == (1 + np.geomspace(2.0**-10, 2.0**12 - 1, 97)).tolist()
    assert rho.COARSE_GRID == rho.GRID[::4] and len(rho.COARSE_GRID) == 25
    for claim, refinements, start in [(None, None, rho.GRID), (Fraction(1, 8), 2, rho.COARSE_GRID),
                                      (None, 0, rho.GRID)]:
        batches.clear()
        extra = {} if refinements is None else {"refinements": refinements}
        r = rho.zcdp_rho(curve, unbounded, claim, **extra)
        rounds = 7 if refinements is None else refinements + 1
        assert rounds <= len(batches) <= rounds + 1 and batches[0] == start
        assert r.rho.lo == Fraction(1, 8) and r.rho.hi == math.inf and 1 < r.alpha <= start[0]


def test_exact_zcdp_rho_hands_its_claim_and_refinements_to_the_bracketing(monkeypatch):
    """exact.zcdp_rho of a non-Gaussian pair brackets rho with dpaudit.exact.rho.zcdp_rho, passing on the
    supremum of the loss, the claim (as an exact Fraction) and the number of refinement rounds (six by default)."""
    seen = []

    def spy(curve, sup, claim, refinements):
        seen.append((sup, claim, refinements))
        return exact.Rho(Enclosure.point(0), 2.0)

    monkeypatch.setattr(exact.rho, "zcdp_rho", spy)
    P = FiniteDistribution.from_probs([0, 1], [0.5, 0.5], log_error=0.0)
    Q = FiniteDistribution.from_probs([0, 1], [0.25, 0.75], log_error=0.0)
    exact.zcdp_rho(P, Q)
    exact.zcdp_rho(P, Q, claim=0.125, refinements=2)
    sup = exact.loss_range(P, Q).sup
    assert seen == [(sup, None, 6), (sup, Fraction(1, 8), 2)] and isinstance(seen[1][1], Fraction)


@pytest.mark.parametrize("refinements", [-1, -6, 1.5, math.nan, "2", None])
def test_rho_refuses_a_number_of_refinements_that_is_not_a_count(refinements):
    """A negative or fractional number of refinement rounds is an error naming the argument, at both levels and
    whatever the pair (identical laws and the Gaussian closed form included). Before the check, -1 ran no round
    and returned the placeholder bracket [0, 0] for a pair whose rho is 1/8."""
    from dpaudit.exact import rho

    P = FiniteDistribution.from_probs([0, 1], [0.5, 0.5], log_error=0.0)
    Q = FiniteDistribution.from_probs([0, 1], [0.25, 0.75], log_error=0.0)
    G0, G1 = GaussianDistribution(0.0, 2.0), GaussianDistribution(1.0, 2.0)
    for pair in ((P, Q), (P, P), (G0, G1)):
        with pytest.raises(ValueError, match="refinements"):
            exact.zcdp_rho(*pair, refinements=refinements)
    with pytest.raises(ValueError, match="refinements"):
        rho.zcdp_rho(lambda alphas: [Enclosure.point(Fraction(a) / 8) for a in alphas], Enclosure(0, math.inf),
                     refinements=refinements)
    # zero rounds is allowed: the first grid's bracket, whose lower end is rho's 1/8 here
    assert exact.zcdp_rho(G0, G1, refinements=0).rho.lo == Fraction(1, 8)


def test_rho_of_identical_laws_is_exactly_zero_without_evaluating_any_order(monkeypatch):
    """Two equal laws: every D_alpha is 0, so rho is exactly 0, reported at order 1 (no order is evaluated)."""
    batches = _counting(monkeypatch)
    P = FiniteDistribution.from_probs([0, 1], [0.3, 0.7])
    r = exact.zcdp_rho(P, FiniteDistribution.from_probs([0, 1], [0.3, 0.7]), claim=0.1)
    assert r.rho == Enclosure.point(0) and r.rho.lo == 0 and r.alpha == 1.0 and isinstance(r.alpha, float)
    assert batches == []


def test_rho_of_a_rare_event_peaking_in_the_last_grid_interval_is_bracketed_within_a_tenth_of_a_percent():
    """P = (1 - e^-189.9, e^-189.9) against Q = (1 - e^-190, e^-190): D_alpha / alpha peaks near alpha = 3800,
    between the grid's last two orders (3495 and 4096). rho must hold the maximum over 20000 orders up to 1e7
    computed directly, and the bracket be within 0.1% of its lower end (the documented refinement target)."""
    x = 190.0
    lp = np.array([math.log1p(-math.exp(-x + 0.1)), -x + 0.1])
    lq = np.array([math.log1p(-math.exp(-x)), -x])
    alphas = 1 + np.geomspace(1e-6, 1e7, 20000)
    dense = float((logsumexp(np.outer(alphas, lp) + np.outer(1 - alphas, lq), axis=1) / ((alphas - 1) * alphas)).max())
    r = exact.zcdp_rho(FiniteDistribution(np.arange(2), lp, log_error=0.0),
                       FiniteDistribution(np.arange(2), lq, log_error=0.0))
    assert float(r.rho.lo) <= dense * (1 + 1e-9) and float(r.rho.hi) >= dense * (1 - 1e-9)
    assert r.rho.hi <= r.rho.lo * Fraction(1001, 1000)
    assert 3494 < r.alpha < 4096


def test_laplace_rho_is_bracketed_within_a_tenth_of_a_percent_of_its_lower_end():
    """Laplace(1) against Laplace(1) shifted by 1: rho is the KL divergence (the limit alpha -> 1), which for
    a shift t of the scale is t + e^-t - 1 = e^-1 here; without a claim the bracket holds it and is within 0.1%
    of its lower end."""
    kl = mpmath.exp(-1)
    r = exact.zcdp_rho(Laplace(1.0), Laplace(1.0, loc=1)).rho
    assert contains(r, Fraction(*kl.as_integer_ratio())) and r.hi <= r.lo * Fraction(1001, 1000)


def test_a_zcdp_claim_the_starting_grid_settles_costs_one_evaluation_and_refinement_stays_where_needed(monkeypatch):
    """The rare-event pair (1 - e^-299.9, e^-299.9) against (1 - e^-300, e^-300): D_alpha / alpha peaks near
    alpha = 6000 at about 8.33e-6, and D_inf = 0.1 bounds it beyond the grid's last order 4096 by
    0.1 / 4096 = 2.44e-5. A claim of 2.5e-5 is above every bound of the starting (coarse) grid and one of 5e-6
    below its lower end (D_4096 / 4096 = 6.5e-6): each is decided from that single evaluation. Without a claim,
    the bound is refined only where it exceeds the target (near the peak and beyond the grid): no order below
    the grid's first (1 + 2^-10) is ever evaluated, orders beyond 4096 are, and the bracket holds the truth
    (maximum over 10000 orders computed directly)."""
    from dpaudit.exact.rho import COARSE_GRID, GRID

    lp = np.array([math.log1p(-math.exp(-299.9)), -299.9])
    lq = np.array([math.log1p(-math.exp(-300.0)), -300.0])
    P, Q = FiniteDistribution(np.arange(2), lp, log_error=0.0), FiniteDistribution(np.arange(2), lq, log_error=0.0)
    batches = _counting(monkeypatch)
    r = exact.zcdp_rho(P, Q, claim=2.5e-5).rho
    assert r.hi <= Fraction(2.5e-5) and batches == [COARSE_GRID]
    batches.clear()
    r = exact.zcdp_rho(P, Q, claim=5e-6).rho
    assert r.lo > Fraction(5e-6) and batches == [COARSE_GRID]
    batches.clear()
    r = exact.zcdp_rho(P, Q).rho
    alphas = 1 + np.geomspace(1e-6, 1e7, 10000)
    dense = float((logsumexp(np.outer(alphas, lp) + np.outer(1 - alphas, lq), axis=1) / ((alphas - 1) * alphas)).max())
    assert float(r.lo) <= dense * (1 + 1e-9) and float(r.hi) >= dense * (1 - 1e-9)
    orders = [a for batch in batches for a in batch]
    assert batches[0] == GRID and min(orders) == GRID[0] and max(orders) > 4096


def test_rho_refinement_stops_when_the_grid_already_brackets_it_or_refining_stops_helping(monkeypatch):
    """Without a claim the target is 0.1% above the lower end. Laplace(1) against Laplace(1) shifted by 1:
    D_alpha / alpha is largest as alpha -> 1, and the grid's first order 1 + 2^-10 already brackets rho between
    D_a / a and D_a (a ratio a < 1.001), so the starting grid is the only evaluation. Two laws 2e-9 apart whose
    log-probabilities are known to 1e-6: the bound is limited by the enclosures, not the grid, so the first
    round of refinement (orders between the grid's) fails to halve the excess over the target and refining
    stops there: two evaluations in all."""
    from dpaudit.exact.rho import GRID

    batches = _counting(monkeypatch)
    r = exact.zcdp_rho(Laplace(1.0), Laplace(1.0, loc=1)).rho
    assert batches == [GRID] and r.hi <= r.lo * Fraction(1001, 1000)
    batches.clear()
    P = FiniteDistribution.from_probs([0, 1], [0.5, 0.5], log_error=1e-6)
    Q = FiniteDistribution.from_probs([0, 1], [0.5 + 1e-9, 0.5 - 1e-9], log_error=1e-6)
    exact.zcdp_rho(P, Q)
    assert len(batches) == 2 and batches[0] == GRID


# -- the PLD of a product: each end of the enclosure at the input that needs it ------------------


def _law(probs, log_error=0.0, tail_mass=0.0) -> FiniteDistribution:
    """A law on 0..m-1 given by its probabilities (zeros allowed), whose stored log-probabilities are taken as
    exact unless told otherwise."""
    with np.errstate(divide="ignore"):
        logs = np.log(np.array(probs, dtype=float))
    return FiniteDistribution(np.arange(len(logs)), logs, log_error=log_error, tail_mass=tail_mass)


def _joint_delta(pairs, eps) -> Fraction:
    """delta(eps) of the product of ``pairs`` summed over every joint outcome in 60 digits, each law being
    exp of its stored log-probabilities (a P outcome where Q is 0 counts fully)."""
    factor = mpmath.exp(mpmath.mpf(eps))
    joint = [(mpmath.mpf(1), mpmath.mpf(1))]
    for p, q in pairs:
        terms = [(mpmath.exp(mpmath.mpf(a)), mpmath.exp(mpmath.mpf(b))) for a, b in zip(p.log_probs, q.log_probs)]
        joint = [(jp * a, jq * b) for jp, jq in joint for a, b in terms]
    return Fraction(*mpmath.fsum(max(a - factor * b, 0) for a, b in joint).as_integer_ratio())


def test_a_product_profile_holds_for_every_law_within_the_stated_log_error():
    """The PLD's version of the finite check: P = (0.4, 0.6) with log-probabilities known to 1e-3, Q = (0.1, 0.9)
    exactly, at eps = 0. The laws allowed include P' = (0.4 e^0.001, 1 - 0.4 e^0.001) and
    P'' = (0.4 e^-0.001, 1 - 0.4 e^-0.001), with delta(0) = 0.4 e^+-0.001 - 0.1 (outcome 1 never counts): the
    enclosure must hold both, and be no wider than the error allows (2 * 0.4 sinh(0.001)) plus the loss grid's
    rounding (a cell of log(6) / 2^16 on outcome 0's loss, weighed by e^-L p = 0.1)."""
    P = _law([0.4, 0.6], log_error=1e-3)
    Q = _law([0.1, 0.9])
    delta = exact.pld.product_hockey_stick([(P, Q)], 0.0)
    p0, q0 = (mpmath.exp(mpmath.mpf(x)) for x in (P.log_probs[0], Q.log_probs[0]))
    e = mpmath.mpf(1e-3)
    highest, lowest = p0 * mpmath.exp(e) - q0, p0 * mpmath.exp(-e) - q0
    assert delta.hi >= Fraction(*highest.as_integer_ratio()) and delta.lo <= Fraction(*lowest.as_integer_ratio())
    cell = math.log(6) / 2**16
    assert width(delta) <= float(2 * p0 * mpmath.sinh(e)) + 2 * 0.11 * cell, (width(delta), float(2 * p0 * e))


@pytest.mark.parametrize("eps", [-0.5, 0.3])
def test_mass_at_infinite_loss_counts_fully_in_both_ends_of_a_product_profile(eps):
    """Three coordinates: the first has P-mass 1/4 where Q has none (infinite loss) and 3/4 at loss 0 (and Q-mass
    1/4 where P has none), the other two are ordinary pairs, the third with the wider loss range. delta(eps) is
    the sum over the 3 * 2 * 3 joint outcomes (60 digits): the 1/4 counts fully, once, in both ends, and the
    enclosure is as narrow as the grid allows (the joint loss on 2^16 cells of its range)."""
    pairs = [
        (_law([0.25, 0.75, 0.0]), _law([0.0, 0.75, 0.25])),
        (_law([0.6, 0.4]), _law([0.3, 0.7])),
        (_law([0.5, 0.3, 0.2]), _law([0.05, 0.35, 0.6])),
    ]
    true = _joint_delta(pairs, eps)
    delta = exact.pld.product_hockey_stick(pairs, eps)
    assert delta.lo <= true <= delta.hi, (float(true), delta.floats())
    assert true >= Fraction(1, 4) and width(delta) <= 1e-4, delta.floats()
    public = exact.privacy_profile(ProductDistribution(tuple(p for p, _ in pairs)),
                                   ProductDistribution(tuple(q for _, q in pairs)), eps).delta
    assert public == delta


@pytest.mark.parametrize("total", [1.0, 1.0 + 5e-7])
def test_a_coordinate_with_disjoint_supports_makes_a_product_profile_one(total):
    """P and Q of the first coordinate have no outcome in common, so every outcome of P has infinite loss and
    delta(eps) = 1 at every eps, whatever the other coordinate. The enclosure is [1 - a few roundings, 1]: never
    above 1 (a difference of probabilities), also when P's listed probabilities sum to a hair over 1 (allowed as
    rounding) and when the other coordinate's loss spreads over many grid cells."""
    first = (_law([total / 2, total / 2, 0.0]), _law([0.0, 0.0, 1.0]))
    other = (_law([0.6, 0.4]), _law([0.3, 0.7]))
    for eps in (-1.0, 0.0, 2.0):
        delta = exact.pld.product_hockey_stick([first, other], eps)
        assert delta.hi == 1 and delta.lo >= 1 - Fraction(1, 10**14), (eps, delta.floats())


def test_unlocated_tail_mass_counts_against_a_product_claim_only():
    """A coordinate whose P lists 0.99 of its mass (tail_mass 0.01, unlocated) times an ordinary pair. The tail
    may lie where its loss is infinite (delta = listed delta + 0.01) or where Q outweighs it (delta = listed delta),
    so the enclosure must hold both, and be no wider than that 0.01 and the grid's rounding."""
    pairs = [(_law([0.5, 0.29, 0.2], tail_mass=0.01), _law([0.25, 0.25, 0.45], tail_mass=0.05)),
             (_law([0.6, 0.4]), _law([0.3, 0.7]))]
    for eps in (0.0, 0.4):
        listed = _joint_delta(pairs, eps)
        delta = exact.pld.product_hockey_stick(pairs, eps)
        assert delta.lo <= listed and delta.hi >= listed + Fraction(1, 100), (eps, float(listed), delta.floats())
        assert width(delta) <= 0.01 + 1e-4


@pytest.mark.parametrize("mu2, eps", [(16, 0.0), (1, 3.0), (1, -1.0)])
def test_a_gaussian_coordinate_times_an_identical_pair_is_balle_wang_within_its_stated_errors(mu2, eps):
    """A finite coordinate with P = Q (loss 0 on every outcome, so no grid rounding at all) times Gaussians of
    total mu^2: delta(eps) is Balle and Wang's closed form exactly, and the PLD's enclosure must hold its
    100-digit value with no slack of the test's own, however its float terms and their error margins fall
    (at mu = 4 the per-cell error margin exceeds the FFT margin; at eps = 3 the reverse)."""
    P = _law([0.5, 0.25, 0.25])
    delta = exact.pld.product_hockey_stick([(P, P)], eps, Fraction(mu2))
    true = Fraction(*_balle_wang_100(Fraction(mu2), eps).as_integer_ratio())
    assert delta.lo <= true <= delta.hi, (float(true), delta.floats())
    assert width(delta) <= 1e-12


def test_a_cell_certain_to_be_in_the_event_weighs_at_most_one_however_wide_its_error_margin():
    """P = (1/2, 1/2) against Q = (e^-50 / 2, 1 - e^-50 / 2), times a Gaussian with mu = 10^-3: outcome 0 has loss 50,
    so its cell's delta_G(eps - 50) is 1 - e^-50 to double precision, but with mu this small its float error margin
    is about 3.6e-5 (it grows with (50 / mu)^2). delta_G never exceeds 1, so the upper end may not charge that cell
    more than its mass: the enclosure's upper end is within 1e-9 of the 100-digit E[delta_G(eps - L)]."""
    P, Q = _law([0.5, 0.5]), _law([math.exp(-50) / 2, 1 - math.exp(-50) / 2])
    mu2 = Fraction(1, 10**6)
    delta = exact.pld.product_hockey_stick([(P, Q)], 0.0, mu2)
    with mpmath.workdps(100):
        p = [mpmath.exp(mpmath.mpf(x)) for x in P.log_probs]
        loss = [mpmath.mpf(a) - mpmath.mpf(b) for a, b in zip(P.log_probs, Q.log_probs)]
        mu = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
        true = Fraction(*mpmath.fsum(w * _balle_wang(mu, -x) for w, x in zip(p, loss)).as_integer_ratio())
    assert delta.lo <= true <= delta.hi <= true + Fraction(1, 10**9), (float(true), delta.floats())


# -- log-linear laws: the sums and integrals of each piece ----------------------------------------


@pytest.mark.parametrize("b, left, right, terms", [
    (Fraction(1, 3), Fraction(2), Fraction(7), range(2, 7)),  # [2, 7): k = 2..6, away from 0
    (Fraction(-5, 4), Fraction(-7, 2), Fraction(3, 2), range(-3, 2)),  # fractional ends: k = -3..1
    (Fraction(0), Fraction(3, 2), Fraction(5), range(2, 5)),  # flat: three equal terms
    (Fraction(1, 2), -math.inf, Fraction(7, 2), None),  # left tail, k <= 3
    (Fraction(-1, 2), Fraction(5, 2), math.inf, None),  # right tail, k >= 3
    (Fraction(2), Fraction(1, 5), Fraction(7, 10), range(0)),  # no integer in [0.2, 0.7)
])
def test_a_log_linear_sum_over_the_integers_matches_adding_its_terms(b, left, right, terms):
    """integral(..., lattice=True) is the sum of e^(a + b k) over the integers k in [left, right): against the
    terms added one by one (60 digits; a tail summed by mpmath's nsum), for ranges away from 0 (where k and
    k - lo, or b k and b / k, part ways), with fractional ends, a flat piece, both tails, and an empty range."""
    from dpaudit.exact import loglinear

    a = Fraction(-3, 7)
    ctx = loglinear.interval_ctx()
    got = Enclosure.from_interval(loglinear.integral(ctx, loglinear.rational(ctx, a), b, left, right, True))
    term = lambda k: mpmath.exp(mpmath.mpf(a.numerator) / a.denominator + mpmath.mpf(b.numerator) / b.denominator * k)  # noqa: E731
    if terms is not None:
        true = mpmath.fsum(term(k) for k in terms)
    elif left == -math.inf:
        true = mpmath.nsum(term, [-mpmath.inf, math.ceil(right) - 1])
    else:
        true = mpmath.nsum(term, [math.ceil(left), mpmath.inf])
    assert contains(got, Fraction(*true.as_integer_ratio()), slack=REF), (got.floats(), true)
    assert width(got) <= 1e-60


@pytest.mark.parametrize("b, left, right", [
    (Fraction(0), -math.inf, Fraction(3)), (Fraction(0), Fraction(-2), math.inf),  # flat tails
    (Fraction(-1, 3), -math.inf, Fraction(4)), (Fraction(1, 3), Fraction(-4), math.inf),  # growing tails
])
def test_a_log_linear_sum_along_a_tail_that_does_not_decay_is_infinite(b, left, right):
    """Over the integers, a tail whose terms do not decay (flat, or growing outwards, however slowly) diverges:
    the sum is +inf, not the (negative) value of the geometric-series formula outside its range."""
    from dpaudit.exact import loglinear

    ctx = loglinear.interval_ctx()
    got = Enclosure.from_interval(loglinear.integral(ctx, ctx.mpf(0), b, left, right, True))
    assert got == Enclosure.point(math.inf)


def test_discrete_laplace_divergences_away_from_zero_match_the_sums_over_the_integers():
    """Discrete Laplace laws centred at 2 and 5 (so no piece starts at 0 or 1): D_2 against the 60-digit sum
    over |k| <= 400 of p^2 / q, and delta(0.5) against the sum of (p - e^0.5 q)_+."""
    scale = 1.5
    P, Q = DiscreteLaplace(scale, loc=2), DiscreteLaplace(scale, loc=5)
    r = mpmath.exp(-1 / mpmath.mpf(scale))
    c = (1 - r) / (1 + r)
    p = {k: c * r ** abs(k - 2) for k in range(-400, 401)}
    q = {k: c * r ** abs(k - 5) for k in range(-400, 401)}
    renyi = mpmath.log(mpmath.fsum(p[k] ** 2 / q[k] for k in p))
    got = exact.renyi_divergence(P, Q, 2.0)
    assert contains(got, Fraction(*renyi.as_integer_ratio()), slack=1e-40) and width(got) < 1e-40
    f = mpmath.exp(mpmath.mpf(0.5))
    delta = mpmath.fsum(max(p[k] - f * q[k], 0) for k in p)
    got = exact.privacy_profile(P, Q, 0.5).delta
    assert contains(got, Fraction(*delta.as_integer_ratio()), slack=1e-40) and width(got) < 1e-40


@pytest.mark.parametrize("eps", [0.0, 0.7])
def test_a_profile_counts_the_pieces_after_one_whose_event_is_empty(eps):
    """P = Laplace(1/2) (slopes 2, -2) against Q with slopes 4/3 left of 0 and -4 right of it (3/4 + 1/4 = 1):
    the loss is 2x/3 on the left (never above eps >= 0, so that piece's event is empty) and 2x on the right, so
    delta(eps) = int_{eps/2}^inf (e^-2x - e^eps e^-4x) dx = e^-eps / 4, all from the second piece."""
    P, Q = _log_linear([0], [2, -2]), _log_linear([0], [Fraction(4, 3), -4])
    true = mpmath.exp(-mpmath.mpf(eps)) / 4
    delta = exact.privacy_profile(P, Q, eps).delta
    assert contains(delta, Fraction(*true.as_integer_ratio()), slack=REF) and width(delta) < 1e-60, delta.floats()


def test_a_pmf_and_a_density_cannot_be_compared():
    """A law on the integers against one on the reals has no privacy loss: the loss range, profile and
    divergence all refuse with the same message."""
    density, pmf = Laplace(1.0), DiscreteLaplace(1.0)
    message = "^cannot compare a pmf on the integers with a density on the reals$"
    for call in (lambda: exact.loglinear.loss_range(density, pmf),
                 lambda: exact.loglinear.hockey_stick(pmf, density, 0.0),
                 lambda: exact.loglinear.renyi(density, pmf, 2.0)):
        with pytest.raises(dpaudit.core.errors.MechanismError, match=message):
            call()


def _known_to_within(half_width: float):
    """A log-constant known only to lie in [-half_width, half_width] (a rigorous but wide enclosure)."""
    from dpaudit.core.distributions import LogConstant

    return LogConstant(key=("known to within", half_width), enclose=lambda ctx: ctx.mpf([-half_width, half_width]),
                       approx=0.0)


def test_a_piece_whose_cut_is_only_known_to_an_interval_is_bracketed_as_documented():
    """Q: density 1 on [0, 1) with tails e^x and e^-(x - 1); P = e^c Q e^L0 with L0 = -1 left of 0, -1 + 2x on
    [0, 1), +1 right of 1, and the constant c only known to lie in [-1/8, 1/8]. At eps = 1 the cut
    x* = 1 - c/2 may lie on either side of the knot at 1. delta(c) = e (e^c - 1)_+ + e (e^c - 1 - c)_+ / 2 (the
    right tail, and [x*, 1)): the enclosure holds it at c = -1/8, 0, 1/8. Its ends are the documented bracket:
    nothing is certainly in the event (lower end 0); the upper end is the right tail's integral at c = 1/8 plus
    the integral of p alone from the earliest cut 15/16 to the knot (the q-integral from the latest cut, 17/16,
    is over nothing, so it subtracts nothing). That p-integral, (e^(c + 1) - e^(c + 7/8)) / 2, is evaluated in
    interval arithmetic with c an interval, so its first term is taken at c = 1/8 and its second at c = -1/8."""
    Q = LogLinearDistribution.build(knots=[0, 1], slopes=[1, 0, -1], offset_at_first_knot=0, constant=None,
                                    lattice=False)
    P = LogLinearDistribution.build(knots=[0, 1], slopes=[1, 2, -1], offset_at_first_knot=-1,
                                    constant=_known_to_within(0.125), lattice=False)
    delta = exact.privacy_profile(P, Q, 1.0).delta
    e, hi = mpmath.e, mpmath.mpf(0.125)
    for c in (-hi, mpmath.mpf(0), hi):
        true = e * max(mpmath.exp(c) - 1, 0) + e * max(mpmath.exp(c) - 1 - c, 0) / 2
        assert contains(delta, Fraction(*true.as_integer_ratio())), (float(c), float(true), delta.floats())
    documented = e * (mpmath.exp(hi) - 1) + (mpmath.exp(1 + hi) - mpmath.exp(mpmath.mpf(0.75))) / 2
    assert delta.lo == 0 and abs(delta.hi - Fraction(*documented.as_integer_ratio())) <= Fraction(1, 10**60)


def test_a_pmf_whose_cut_is_only_known_to_an_interval_starts_its_event_after_the_earliest_cut():
    """The lattice version: Q = e^-2 on 0..3 with tails e^(k - 2) and e^-(k - 2); P = e^c Q e^L0 with L0 = -1
    below 0, -1 + k/2 on 0..3, +1 from 4, and c only known to lie in [-1/2, 1/2]. At eps = 1 the cut
    k* = 4 - 2c lies in [3, 5]; the event is {k > k*}, and at k = 3 (the earliest cut itself) the loss is at most
    eps, so only the right tail can count: delta(c) = e^-1 (e^c - 1)_+ / (1 - 1/e). The upper end is that at
    c = 1/2 (60 digits), the lower end 0."""
    Q = LogLinearDistribution.build(knots=[0, 4], slopes=[1, 0, -1], offset_at_first_knot=-2, constant=None,
                                    lattice=True)
    P = LogLinearDistribution.build(knots=[0, 4], slopes=[1, Fraction(1, 2), -1], offset_at_first_knot=-3,
                                    constant=_known_to_within(0.5), lattice=True)
    delta = exact.privacy_profile(P, Q, 1.0).delta
    e = mpmath.e
    true = Fraction(*((mpmath.exp(mpmath.mpf(0.5)) - 1) / (e - 1)).as_integer_ratio())
    assert delta.lo == 0 and true <= delta.hi <= true + Fraction(1, 10**60), (float(true), delta.floats())


def test_a_cut_whose_latest_end_falls_on_a_knot_subtracts_nothing_from_the_upper_end():
    """The constant on Q's side: Q = e^c e^-x right of 0 (tail e^x left of it), c only known to lie in
    [-1/8, 1/8]; P = Q e^(L0 - c) with L0 = -1 left of 0, -1 + 2x on [0, 1), +1 right of 1. At eps = 7/8 the cut
    x* = 15/16 + c/2 lies in [7/8, 1], its latest end exactly on the knot. delta(c) (mpmath quadrature, split at
    x*) is held at c = -1/8, 0, 1/8, and the ends are the documented bracket: lower 0; upper = the p-integral from
    the earliest cut, 1 - e^-1/8, minus the e^eps q-integral from the latest cut (over nothing: no subtraction,
    however wide Q's constant makes q), plus the right tail at c = -1/8, 1 - e^-1/4."""
    Q = LogLinearDistribution.build(knots=[0, 1], slopes=[1, -1, -1], offset_at_first_knot=0,
                                    constant=_known_to_within(0.125), lattice=False)
    P = LogLinearDistribution.build(knots=[0, 1], slopes=[1, 1, -1], offset_at_first_knot=-1, constant=None,
                                    lattice=False)
    eps = mpmath.mpf(0.875)
    delta = exact.privacy_profile(P, Q, 0.875).delta
    for c in (-mpmath.mpf(0.125), mpmath.mpf(0), mpmath.mpf(0.125)):
        def gain(x, c=c):
            loss = -1 if x < 0 else (-1 + 2 * x if x < 1 else 1)
            q = mpmath.exp(c + (x if x < 0 else -x))
            return max(q * mpmath.exp(loss - c) - mpmath.exp(eps) * q, 0)
        true = mpmath.quad(gain, [-mpmath.inf, 0, mpmath.mpf(15) / 16 + c / 2, 1, mpmath.inf])
        assert contains(delta, Fraction(*true.as_integer_ratio()), slack=1e-40), (float(c), float(true), delta.floats())
    documented = 2 - mpmath.exp(-mpmath.mpf(0.125)) - mpmath.exp(-mpmath.mpf(0.25))
    assert delta.lo == 0 and abs(delta.hi - Fraction(*documented.as_integer_ratio())) <= Fraction(1, 10**60)


@pytest.mark.parametrize("n1, n2", [(65536, 65536), (131072, 3), (4096, 4096)])
def test_the_fft_error_bound_holds_summed_over_the_cells_of_a_wide_grid(n1, n2):
    """A product profile weighs every cell of the convolved pmf, so the FFT's error must be bounded summed
    over the cells, not per cell. Spikes (three in one pmf, two in the other) are the hard case: the FFT
    spreads their rounding over every cell. Each cell of the exact convolution here is a single product (the
    spikes' sums of positions are distinct), computed in fractions. The bound must hold the summed error
    (about 2e-14 on 2^17 cells) and stay small enough to be of use (below 1e-10)."""
    from scipy.signal import fftconvolve

    from dpaudit.exact.pld import _convolution_error

    a, b = np.zeros(n1), np.zeros(n2)
    a[[0, n1 // 3, n1 - 1]] = 0.3, 0.3, 0.4
    b[[0, n2 - 2]] = 0.6, 0.4
    computed = np.maximum(fftconvolve(a, b), 0.0)
    exact = {i + j: Fraction(float(a[i])) * Fraction(float(b[j])) for i in np.flatnonzero(a) for j in np.flatnonzero(b)}
    assert len(exact) == 6
    spikes = np.array(sorted(exact))
    off = np.ones(len(computed), bool)
    off[spikes] = False
    summed = sum(abs(Fraction(float(computed[k])) - exact[k]) for k in spikes) + Fraction(float(np.sum(computed[off])))
    bound = _convolution_error(a, b)
    assert summed <= Fraction(bound)
    assert bound < 1e-10


# -- the documented error accounting of the PLD, pinned on cases small enough to work by hand ----------------

_U53 = mpmath.mpf(2) ** -53


def _five_smooth_at_least(n: int) -> int:
    """The least 2^i 3^j 5^k >= n: the lengths of real FFTs scipy's pocketfft treats as fast."""
    m = n
    while True:
        r = m
        for f in (2, 3, 5):
            while r % f == 0:
                r //= f
        if r == 1:
            return m
        m += 1


def _documented_convolution_error(a, b) -> mpmath.mpf:
    """_convolution_error's docstring in 30 digits: 1.01 sqrt(n) (3 eta + 4 u) (|a|_2 sum b + sum a |b|_2), with
    n = len(a) + len(b) - 1 the cells kept, eta = 16 u log2(N), N the real FFT's fast length (at least 2)."""
    with mpmath.workdps(30):
        n = len(a) + len(b) - 1
        eta = 16 * _U53 * mpmath.log(max(_five_smooth_at_least(n), 2), 2)
        norm = [mpmath.sqrt(mpmath.fsum(mpmath.mpf(float(x)) ** 2 for x in v)) for v in (a, b)]
        total = [mpmath.fsum(mpmath.mpf(float(x)) for x in v) for v in (a, b)]
        return mpmath.mpf("1.01") * mpmath.sqrt(n) * (3 * eta + 4 * _U53) * (norm[0] * total[1] + total[0] * norm[1])


@pytest.mark.parametrize("a, b", [
    ([0.75], [0.5, 2.0]),  # n = 2: the FFT length's floor of 2 applies
    ([0.5, 0.25, 0.125, 2.0], [3.0, 0.1, 0.7, 0.2]),  # n = 7: the real fast length is 8 (a complex one would be 7)
    (list(np.linspace(0.1, 3.0, 50)), list(np.linspace(2.0, 0.05, 48))),  # n = 97: real fast length 100, not 98
])
def test_the_fft_error_bound_is_the_documented_one(a, b):
    """This pins the documented bound: _convolution_error must return exactly its docstring's
    1.01 sqrt(n) (3 eta + 4 u)(|a|_2 sum b + sum a |b|_2), eta = 16 u log2(next_fast_len(n, real=True)), u = 2^-53,
    recomputed here in 30-digit mpmath (the real fast length found independently as the least 5-smooth number
    >= n). Sums and norms other than 1 and lengths whose real and complex fast lengths differ make every constant
    and every factor show; the float evaluation is within 1e-13 of it relatively."""
    from dpaudit.exact.pld import _convolution_error

    got = _convolution_error(np.array(a), np.array(b))
    want = _documented_convolution_error(a, b)
    assert abs(got - want) <= 1e-13 * want, (got, float(want))


def _documented_product_bounds(coordinates, weight, infinite=(Fraction(0), Fraction(0))):
    """The ends of product_hockey_stick's enclosure by its documented error accounting, in fractions, for
    coordinates whose finite losses all fall in one cell. ``coordinates`` lists per coordinate (binned mass
    upward, binned mass downward, number of finite-loss outcomes); every cell weighs ``weight`` (a float).
    Per stage: binning error f_error = 1.01 * outcomes * 2^-53 * sum f; a product of two one-cell pmfs costs
    one rounding U = 8 * 2^-53 of its mass; pmf_error <- pmf_error (sum f + f_error) + mass f_error + stage.
    The weighted sum is enclosed within 2 * 2^-53 relatively (one term), widened by (1 +- U), and the
    infinite-loss mass (upward, downward) enters times (1 +- U)."""
    U = Fraction(8, 2**53)
    ends = []
    for side in (0, 1):
        mass, error = Fraction(1), Fraction(0)
        for coordinate in coordinates:
            f, outcomes = coordinate[side], coordinate[2]
            f_error = Fraction(101, 100) * outcomes * Fraction(1, 2**53) * f
            error = error * (f + f_error) + mass * f_error + U * mass * f
            mass *= f
        total = Fraction(float(mass) * weight)  # the float product the pmf holds, times the float weight
        if side == 0:
            ends.append(total * (1 + Fraction(2, 2**53)) * (1 + U) + error + infinite[0] * (1 + U))
        else:
            ends.append(total * (1 - Fraction(2, 2**53)) * (1 - U) - error + infinite[1] * (1 - U))
    return ends


def _within_the_ends_own_roundings(got: Fraction, want: Fraction) -> bool:
    """The ends are sums of floats and fractions that Python evaluates in floats (Fraction times float is a
    float), so they may differ from the exact accounting by three roundings of their size."""
    return abs(got - want) <= Fraction(3, 2**53) * abs(want)


def test_a_product_of_identical_pairs_has_the_documented_error_accounting():
    """This pins the documented error accounting of product_hockey_stick. Two coordinates with P = Q,
    (1/2, 1/2) and (1/4, 1/4, 1/2), stored exactly: every loss is 0 (one cell, no grid rounding), and at
    eps = -0.01 every cell weighs 1 - e^-0.01 (about 0.01), so delta(-0.01) = 1 - e^-0.01. Each mass enters
    times (1 +- U), U = 8 * 2^-53, so both coordinates bin to 1 +- U exactly. The ends must be what the
    accounting gives by hand (about 2.5e-15 from the estimate) to within the ends' own float roundings (3e-18
    here): the binning, product, propagation and final (1 +- U) each move an end by more."""
    U = Fraction(8, 2**53)
    pairs = [(_law([0.5, 0.5]), _law([0.5, 0.5])), (_law([0.25, 0.25, 0.5]), _law([0.25, 0.25, 0.5]))]
    weight = float(-np.expm1(-0.01))
    delta = exact.pld.product_hockey_stick(pairs, -0.01)
    hi, lo = _documented_product_bounds([(1 + U, 1 - U, 2), (1 + U, 1 - U, 3)], weight)
    assert lo <= Fraction(*(1 - mpmath.exp(mpmath.mpf(-0.01))).as_integer_ratio()) <= hi
    assert _within_the_ends_own_roundings(delta.hi, hi), (float(delta.hi - hi), float(hi))
    assert _within_the_ends_own_roundings(delta.lo, lo), (float(delta.lo - lo), float(lo))


def test_mass_at_infinite_loss_enters_a_product_profile_with_the_documented_roundings():
    """This pins the documented accounting of infinite-loss mass. The first coordinate has P = (1/2, 1/2, 0)
    against Q = (1/2, 0, 1/2): outcome 1 (P-mass 1/2) has infinite loss, outcome 0 loss 0; the second has
    P = Q = (1/4, 1/4, 1/2). At eps = 1 no finite loss counts, so delta(1) = 1/2. The infinite mass is
    1/2 (1 +- U) (1 +- U) (the mass's bound, then the sum's), which in floats is 1/2 (1 +- 2U); it enters the
    upper end times (1 + U) and the lower times (1 - U), beside the finite pmf's error. Both ends must be what
    the accounting gives by hand, to within the ends' own float roundings (two parts in 2^53 of the ends, a
    quarter of the smallest term pinned)."""
    U = Fraction(8, 2**53)
    pairs = [(_law([0.5, 0.5, 0.0]), _law([0.5, 0.0, 0.5])), (_law([0.25, 0.25, 0.5]), _law([0.25, 0.25, 0.5]))]
    delta = exact.pld.product_hockey_stick(pairs, 1.0)
    infinite = (Fraction(1, 2) * (1 + 2 * U), Fraction(1, 2) * (1 - 2 * U))
    hi, lo = _documented_product_bounds([((1 + U) / 2, (1 - U) / 2, 1), (1 + U, 1 - U, 3)], 0.0, infinite)
    assert lo <= Fraction(1, 2) <= hi
    assert _within_the_ends_own_roundings(delta.hi, hi), (float(delta.hi - hi), float(hi))
    assert _within_the_ends_own_roundings(delta.lo, lo), (float(delta.lo - lo), float(lo))


def test_a_pmf_spread_over_two_cells_is_charged_the_fft_bound():
    """P = (1/2, 1/2) against Q = (1/2 + 1.25e-13, 1/2 - 1.25e-13): losses -+2.5e-13, so the grid's cell is its
    floor of 1e-12 and P's two outcomes fall in two cells (upward: cells 0 and 1). Convolving the starting pmf
    (1) with these two cells is an FFT convolution, charged _convolution_error's documented bound, and at eps = 1
    no cell is in the event, so the upper end is exactly the pmf's error: binning (1.01 * 2 * 2^-53 * (1 + U)) plus
    the documented FFT bound of ([1], [(1 + U)/2, (1 + U)/2]), to 1e-9 relatively; the lower end is 0."""
    U = 8 * 2.0**-53
    P, Q = _law([0.5, 0.5]), _law([0.5 + 1.25e-13, 0.5 - 1.25e-13])
    delta = exact.pld.product_hockey_stick([(P, Q)], 1.0)
    mass = 0.5 * (1 + U)
    want = 1.01 * 2 * 2.0**-53 * (2 * mass) + _documented_convolution_error([1.0], [mass, mass])
    assert delta.lo == 0
    assert abs(delta.hi / Fraction(*want.as_integer_ratio()) - 1) <= 1e-9, (float(delta.hi), float(want))


def test_a_profile_with_gaussians_evaluates_the_upper_end_at_mu_rounded_up_and_the_lower_at_mu_rounded_down(
        monkeypatch):
    """delta_G grows with mu, so (module docstring) the upper end must use mu rounded up and the lower end mu
    rounded down, past the square root's own rounding. The mu each end hands to gaussian_delta is recorded and
    compared with the 60-digit sqrt(mu^2), for mu^2 below and above 1 (a float sqrt rounded either way)."""
    seen = []
    original = exact.pld.gaussian_delta

    def spy(e, mu):
        seen.append(mu)
        return original(e, mu)

    monkeypatch.setattr(exact.pld, "gaussian_delta", spy)
    P = _law([0.5, 0.5])
    for mu2 in (Fraction(1, 2), Fraction(1, 3), Fraction(2, 7), Fraction(2), Fraction(7, 3), Fraction(10, 3)):
        seen.clear()
        exact.pld.product_hockey_stick([(P, P)], 0.0, mu2)
        root = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
        assert len(seen) == 2 and seen[1] < root < seen[0], (mu2, seen)


def test_a_cell_whose_gaussian_weight_may_be_negative_weighs_nothing_in_the_lower_end(monkeypatch):
    """Each cell's Balle-Wang value is known to within its error margin, and where value - margin < 0 the lower
    end must weigh the cell 0 (delta_G >= 0), not less. Here gaussian_delta is made to report 0 +- 1/4 at every
    cell, for a coordinate with P-mass 1/2 at infinite loss and 1/2 at loss 0: the upper end then charges the
    finite half 1/4, and the lower end must be exactly the one with no finite cell counting (the same
    coordinate with no Gaussians at eps = 1), the infinite half less its error."""
    pairs = [(_law([0.5, 0.5, 0.0]), _law([0.5, 0.0, 0.5]))]
    without = exact.pld.product_hockey_stick(pairs, 1.0)
    monkeypatch.setattr(exact.pld, "gaussian_delta", lambda e, mu: (np.zeros_like(e), np.full_like(e, 0.25)))
    with_gaussians = exact.pld.product_hockey_stick(pairs, 1.0, Fraction(1))
    assert with_gaussians.lo == without.lo and without.lo >= Fraction(1, 2) - Fraction(1, 10**14)
    assert abs(with_gaussians.hi - Fraction(5, 8)) <= Fraction(1, 10**14), with_gaussians.floats()


def test_a_coordinate_with_disjoint_supports_leaves_a_narrow_grid_as_documented():
    """A coordinate with disjoint supports (no finite loss: its loss range contributes nothing) next to one whose
    losses span only about 0.41: the grid divides the 0.41 into 2^16 cells. delta(eps) = 1, and the enclosure is
    [1 - a few roundings, 1], computed at once (a grid sized from a wrong span would have some 10^11 cells)."""
    pairs = [(_law([0.5, 0.5, 0.0]), _law([0.0, 0.0, 1.0])), (_law([0.5, 0.5]), _law([0.4, 0.6]))]
    delta = exact.pld.product_hockey_stick(pairs, 0.0)
    assert delta.hi == 1 and delta.lo >= 1 - Fraction(1, 10**14), delta.floats()


def test_a_loss_on_a_grid_point_is_moved_a_cell_out_for_its_float_rounding():
    """P = (1, 0) against Q = (e^-L, 1 - e^-L), stored as log-probabilities with no error, where L = k * 1e-12
    (k = 693147180559) is a point of the grid (the loss range is one point, so the cell is its floor of 1e-12).
    The float loss 0 - (-L) is exact here, but the PLD cannot know that: it allows the float loss to be U|L| off
    the true one, which moves L past the grid point, so the upper end is charged at the next point up,
    (k + 1) * 1e-12, and the lower at the point below, (k - 1) * 1e-12 (delta(0) = 1 - e^-L)."""
    k, h = 693147180559, 1e-12
    L = k * h
    assert L / h == k
    P = FiniteDistribution(np.arange(2), np.array([0.0, -np.inf]), log_error=0.0)
    Q = FiniteDistribution(np.arange(2), np.array([-L, math.log(-math.expm1(-L))]), log_error=0.0)
    delta = exact.pld.product_hockey_stick([(P, Q)], 0.0)
    above, below = (1 - mpmath.exp(-mpmath.mpf(j) * mpmath.mpf(h)) for j in (k + 1, k - 1))
    assert delta.hi >= Fraction(*above.as_integer_ratio()) and delta.lo <= Fraction(*below.as_integer_ratio())
    assert width(delta) <= 2.1 * h * 0.5, delta.floats()


# -- exact ends, documented margins and the rho bracketing on hand-built inputs --------------------


def test_an_end_beyond_the_float_range_adds_exactly_whichever_side_it_is_on():
    """Enclosure ends are exact rationals, and one too large for a float (10^400) must add exactly to a
    finite end and be absorbed by an infinite one, whether it is the left or the right operand's end:
    [10^400, 10^400] + [1/3, inf] = [10^400 + 1/3, inf], and [-10^400, 2] + [-inf, 1] = [-inf, 3]. Asking
    whether such an end is infinite by turning it into a float would overflow instead."""
    huge = Fraction(10**400)
    total = Enclosure(huge, huge) + Enclosure(Fraction(1, 3), math.inf)
    assert total.lo == huge + Fraction(1, 3) and total.hi == math.inf
    total = Enclosure(-huge, 2) + Enclosure(-math.inf, 1)
    assert total.lo == -math.inf and total.hi == 3
    total = Enclosure(huge, huge) + Enclosure(huge, huge)
    assert total == Enclosure.point(2 * huge)


def test_gaussians_with_both_means_away_from_zero_have_mu_from_the_difference_of_their_means():
    """N(1, 2^2) against N(4, 2^2): mu = |1 - 4| / 2 = 3/2, so D_alpha = alpha mu^2 / 2 = 27/8 at alpha = 3
    and rho = mu^2 / 2 = 9/8, exactly; delta(1/2) holds the 60-digit Balle-Wang value at mu = 3/2. As a
    vector, (N(1, 2^2), N(-2, 1)) against (N(4, 2^2), N(1, 1)) has mu^2 = 9/4 + 9 = 45/4. (The means' sum
    would give 25/4 and 25/4 + 1.)"""
    p, q = GaussianDistribution(1.0, 2.0), GaussianDistribution(4.0, 2.0)
    assert exact.renyi_divergence(p, q, 3.0) == Enclosure.point(Fraction(27, 8))
    assert exact.zcdp_rho(p, q).rho == Enclosure.point(Fraction(9, 8))
    true = _balle_wang(mpmath.mpf(3) / 2, mpmath.mpf("0.5"))
    assert contains(exact.privacy_profile(p, q, 0.5).delta, Fraction(*true.as_integer_ratio()), slack=1e-50)
    vp = ProductDistribution((GaussianDistribution(1.0, 2.0), GaussianDistribution(-2.0, 1.0)))
    vq = ProductDistribution((GaussianDistribution(4.0, 2.0), GaussianDistribution(1.0, 1.0)))
    assert exact.zcdp_rho(vp, vq).rho == Enclosure.point(Fraction(45, 8))
    assert exact.renyi_divergence(vp, vq, 2.0) == Enclosure.point(Fraction(45, 4))


def _mp256_fraction(x) -> Fraction:
    return Fraction(*x.as_integer_ratio())


@pytest.mark.parametrize("mu2, eps", [(Fraction(1, 3), 0.5), (Fraction(9, 4), -0.3), (Fraction(7, 5), 0.1)])
def test_a_gaussian_profile_is_the_256_bit_closed_form_widened_by_its_margin_exactly(mu2, eps):
    """The module docstring: results that are not rational are evaluated with mpmath at 256 bits and widened by
    2^-200 relative (plus e^eps 2^-200 for delta). So delta(eps)'s enclosure is centred exactly on the
    Balle-Wang value evaluated at 256 bits, here recomputed in mpmath's own context at that precision, with
    half-width 2^-200 (1 + |v|) + 2^-200 e^eps: the same inputs always give the same exact ends. (A 257-bit
    evaluation differs from the 256-bit one in its last bits for most inputs, as at these three.)"""
    delta = exact.gaussian.delta_from_mu_squared(mu2, eps)
    with mpmath.workprec(256):
        mu = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
        e = mpmath.mpf(eps)
        v = _mp256_fraction(mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu))
    assert (delta.lo + delta.hi) / 2 == v
    assert delta.hi - v == Fraction(1, 2**200) * (1 + abs(v)) + Fraction(1, 2**200) * Fraction(math.exp(eps))


@pytest.mark.parametrize("m0, s0, m1, s1, alpha", [(0.0, 1.0, 0.5, 1.3, 2.0), (1.0, 2.0, -1.0, 1.5, 1.5),
                                                   (0.25, 0.5, 0.0, 0.75, 3.0)])
def test_gaussian_renyi_with_unequal_variances_is_the_256_bit_closed_form_widened_by_its_margin_exactly(
        m0, s0, m1, s1, alpha):
    """With different variances, D_alpha = log(s1/s0) + log(s1^2 / s_a^2) / (2 (alpha - 1)) + alpha d^2 / (2 s_a^2),
    s_a^2 = alpha s1^2 + (1 - alpha) s0^2 (module docstring), evaluated at 256 bits and widened by 2^-200 (1 + |v|):
    the enclosure is centred exactly on that value recomputed in mpmath at 256 bits, from the exact rationals."""
    got = exact.renyi_divergence(GaussianDistribution(m0, s0), GaussianDistribution(m1, s1), alpha)
    a, f0, f1, d = Fraction(alpha), Fraction(s0), Fraction(s1), Fraction(m0) - Fraction(m1)
    sa2 = a * f1**2 + (1 - a) * f0**2
    with mpmath.workprec(256):
        def f(x: Fraction):
            return mpmath.mpf(x.numerator) / x.denominator

        v = _mp256_fraction(mpmath.log(f(f1) / f(f0)) + mpmath.log(f(f1**2) / f(sa2)) / (2 * (f(a) - 1))
                            + f(a) * f(d**2) / (2 * f(sa2)))
    assert got.lo > 0 and (got.lo + got.hi) / 2 == v
    assert got.hi - v == Fraction(1, 2**200) * (1 + abs(v))


@pytest.mark.parametrize("e, mu", [(0.0, 1.0), (0.5, 1.0), (-1.0, 2.0), (2.0, 0.5), (1.0, 3.0)])
def test_the_balle_wang_error_allowance_of_a_pld_cell_is_the_documented_one(e, mu):
    """This pins gaussian_delta's documented allowance: GAUSSIAN_ULPS = 64 units of 2^-53, scaled by
    1 + a^2 + b^2 + |e| (a = mu/2 - e/mu, b = -mu/2 - e/mu) and by the size of the two terms Phi(a) + e^e Phi(b),
    plus 1e-300; recomputed here in 60 digits from mpmath's Phi, to within 1e-12 relatively (the float terms are
    within a few ulps of the true ones). At these points each part of the scale shows: 1 alone, a^2 + b^2, and
    |e| of either sign. The returned value must also lie within its allowance of the true delta_G."""
    from dpaudit.exact.pld import gaussian_delta

    value, error = gaussian_delta(np.array([e]), mu)
    m, x = mpmath.mpf(mu), mpmath.mpf(e)
    a, b = m / 2 - x / m, -m / 2 - x / m
    first, second = mpmath.ncdf(a), mpmath.exp(x) * mpmath.ncdf(b)
    want = 64 * mpmath.mpf(2) ** -53 * (1 + a**2 + b**2 + abs(x)) * (first + second) + mpmath.mpf("1e-300")
    assert abs(float(error[0]) - want) <= 1e-12 * want, (float(error[0]), float(want))
    assert abs(mpmath.mpf(float(value[0])) - (first - second)) <= float(error[0])


def test_the_first_coordinates_pmf_error_grows_by_the_second_coordinates_mass_and_binning_error():
    """This pins the propagation of product_hockey_stick's pmf error (module docstring: convolving with a pmf of
    mass m scales a summed error by at most m; the binning error f_error of the new pmf adds, as it can only
    enlarge that mass): pmf_error <- pmf_error (sum f + f_error) + mass f_error + stage error. Two coordinates
    with P = Q uniform on 1024 outcomes (probabilities 2^-10, stored exactly): every loss is 0, so each binned pmf
    is one cell (a product, charged U = 8 * 2^-53 of its mass), and at eps = 1 no cell is in the event, so the
    upper end is exactly the pmf's error bound. Each outcome enters with mass 2^-10 (1 + U), summed one by one
    (numpy's bincount; recomputed here in float order), and the accounting is then exact in fractions. 1024
    outcomes make f_error about 1024 * 2^-53, so the second stage's pmf_error * f_error term moves the end by
    about 1000 of its roundings; the end must be the accounting's to within 8 roundings, and the lower end 0."""
    U = 8 * 2.0**-53
    law = FiniteDistribution(np.arange(1024), np.full(1024, math.log(2.0**-10)), log_error=0.0)
    assert np.exp(law.log_probs[0]) == 2.0**-10
    binned = []
    for mass in (2.0**-10 * (1 + U), 2.0**-10 * (1 - U)):
        total = 0.0
        for _ in range(1024):
            total += mass
        binned.append(Fraction(total))
    hi, _ = _documented_product_bounds([(binned[0], binned[1], 1024)] * 2, 0.0)
    delta = exact.pld.product_hockey_stick([(law, law), (law, law)], 1.0)
    assert abs(delta.hi - hi) <= Fraction(8, 2**53) * hi, (float(delta.hi), float(hi))
    assert delta.lo == 0


def _one_round_bound(alphas, his, sup_hi, lower) -> mpmath.mpf:
    """The module docstring's bound on rho from one grid, in 40 digits: on [a, b] between consecutive orders the
    smaller of the chord bound (the maximum over [a, b] of (c0 + c1 x) / (x (x - 1)), c0 + c1 x the chord through
    (a, (a - 1) hi_a) and (b, (b - 1) hi_b): at an end or at a root of c1 x^2 + 2 c0 x - c0 inside, where the
    derivative vanishes) and the monotone bound min_{c >= b} hi_c / a; on (1, a_1], min over the grid of hi;
    beyond the last order, D_inf / a_max; and the lower bound. The largest of these."""
    with mpmath.workdps(40):
        A = [mpmath.mpf(a) for a in alphas]
        H = [mpmath.mpf(h.numerator) / h.denominator for h in his]
        pieces = []
        for i in range(len(A) - 1):
            a, b = A[i], A[i + 1]
            c1 = ((b - 1) * H[i + 1] - (a - 1) * H[i]) / (b - a)
            c0 = (a - 1) * H[i] - c1 * a
            points = [a, b]
            if c1 != 0 and c0 * (c0 + c1) >= 0:
                roots = ((-c0 + s * mpmath.sqrt(c0 * (c0 + c1))) / c1 for s in (1, -1))
                points += [x for x in roots if a <= x <= b]
            chord = max((c0 + c1 * x) / (x * (x - 1)) for x in points)
            pieces.append(min(chord, min(H[i + 1:]) / a))
        return max(pieces + [min(H), mpmath.mpf(sup_hi) / A[-1], mpmath.mpf(lower)])


@pytest.mark.parametrize("width_of_k", [Fraction(0), Fraction(1, 1000)])
def test_one_round_of_the_rho_bracketing_is_the_documented_bound(width_of_k):
    """One round (no refinement) on the full grid for a curve like a Gaussian with rho = 1/8: D_alpha enclosed in
    [alpha/8, alpha/8 + w / (alpha - 1)], i.e. K = (alpha - 1) D_alpha known to within w, as a finite law's
    log-error makes it, and a loss bounded by 512. With w = 0 the largest bound is the chord bound of the last
    interval, [3495, 4096] (the chord's excess grows with alpha); with w = 1/1000 the chord bound blows up near
    alpha = 1 (it divides w by alpha (alpha - 1)), the monotone bound D_c / a takes over on the first intervals,
    and the bound on (1, a_1] (the smallest upper end, D at about 1.09) is the largest. The lower end is 1/8
    (every D_alpha / alpha), reached at the first order; the upper end must be the documented bound recomputed in
    40 digits, to within the 128-bit interval evaluation's rounding (1e-12 relative is far beyond it)."""
    from dpaudit.exact import rho

    def hi(a: float) -> Fraction:
        return Fraction(a) / 8 + width_of_k / (Fraction(a) - 1)

    def curve(alphas):
        return [Enclosure(Fraction(a) / 8, hi(a)) for a in alphas]

    r = rho.zcdp_rho(curve, Enclosure(0, 512), None, refinements=0)
    want = _one_round_bound(rho.GRID, [hi(a) for a in rho.GRID], 512, Fraction(1, 8))
    assert r.rho.lo == Fraction(1, 8) and r.alpha == rho.GRID[0]
    assert abs(r.rho.hi - Fraction(*want.as_integer_ratio())) <= Fraction(1, 10**12) * r.rho.hi, (
        float(r.rho.hi), float(want))


def _recording(batches, bounds, known=lambda a: 0):
    """A curve for rho.zcdp_rho: D_alpha enclosed in [known(alpha), bounds(alpha)], recording the orders of each
    call."""
    def curve(alphas):
        batches.append(list(alphas))
        return [Enclosure(known(a), bounds(a)) for a in alphas]
    return curve


def test_without_a_claim_rho_is_refined_until_the_bracket_is_within_a_tenth_of_a_percent():
    """Without a claim the target is the lower end plus 0.1% (module docstring). D_alpha = 1 at every order (as
    for P on one outcome against a Q giving it probability 1/e), with a supremum of the loss known only to be
    below S = 4096 * 1.0015 / a_1 (a_1 = 1 + 2^-10, the first order): one round gives the lower end 1 / a_1
    (D_a / a at a_1), the bound 1 on (1, a_1] and S / 4096 = 1.0015 / a_1 beyond the last order 4096, which is
    above the target 1.001 / a_1. So the grid is extended by doubling: S / alpha falls below the target at 8192,
    and one more doubling gives the orders 8192 and 16384; then the bracket [1 / a_1, 1] is within 0.1% (a_1 is
    1.00098) and refinement stops: two evaluations."""
    from dpaudit.exact import rho

    batches: list[list[float]] = []
    a1 = Fraction(rho.GRID[0])
    assert a1 == 1 + Fraction(1, 1024)
    r = rho.zcdp_rho(_recording(batches, lambda a: 1, lambda a: 1), Enclosure(0, 4096 * Fraction(10015, 10000) / a1))
    assert batches[1:] == [[8192.0, 16384.0]]
    assert r.rho == Enclosure(1 / a1, 1) and r.rho.hi <= r.rho.lo * Fraction(1001, 1000)


def test_a_claim_on_the_bound_below_the_grid_adds_no_orders_below_it_and_the_tail_doubles_from_the_last_order():
    """D_alpha enclosed in [0, 1] at every order and a loss bounded by 16384, claim rho <= 1. Each interval's bound
    is 1 / a (the chord through (a, a - 1) and (b, b - 1) is x - 1), below the claim; the bound on (1, a_1] is D_{a_1}
    <= 1, equal to the claim, so it needs no orders closer to 1 (only a bound above the target does); beyond the
    last order 4096 the bound is 16384 / 4096 = 4, above it, so the grid is extended by doubling the last order
    until 16384 / alpha <= 1 (at 16384) and once more: 8192, 16384, 32768 and nothing else. The bracket is
    [0, 4] after the one round."""
    from dpaudit.exact import rho

    batches: list[list[float]] = []
    r = rho.zcdp_rho(_recording(batches, lambda a: 1), Enclosure(0, 16384), Fraction(1), refinements=0)
    assert batches == [rho.COARSE_GRID, [8192.0, 16384.0, 32768.0]]
    assert r.rho == Enclosure(0, 4)


def test_intervals_whose_bound_equals_the_claim_are_not_split():
    """D_alpha enclosed in [0, 1] at every order of the claim's (coarse) grid a_1 < a_2 < ..., a loss bounded by 1
    and the claim rho <= 1 / a_3: the bound on [a_i, a_i+1] is exactly 1 / a_i, above the claim for the first two
    intervals and equal to it on the third, which needs no splitting; the bound 1 on (1, a_1] exceeds it too. So
    the next orders are the geometric midpoints 1 + sqrt((a_1 - 1)(a_2 - 1)) and 1 + sqrt((a_2 - 1)(a_3 - 1)) and
    the two orders below a_1, 1 + (a_1 - 1)/4 and 1 + (a_1 - 1)/16, and no others."""
    from dpaudit.exact import rho

    batches: list[list[float]] = []
    g = rho.COARSE_GRID
    rho.zcdp_rho(_recording(batches, lambda a: 1), Enclosure(0, 1), 1 / Fraction(g[2]), refinements=0)
    midpoints = [1 + math.sqrt((g[0] - 1) * (g[1] - 1)), 1 + math.sqrt((g[1] - 1) * (g[2] - 1))]
    assert batches[1:] == [midpoints + [1 + 2.0**-12, 1 + 2.0**-14]]


def test_refinement_goes_on_while_each_round_at_least_halves_the_excess_over_the_claim():
    """Claim rho <= T = 1/8, and D_alpha enclosed in [0, T (1 + t/10)] on the grid and [0, T (1 + t/25)] closer to
    1 (t = 2^-10, the first order's distance to 1). In the first two rounds every interval's monotone bound
    hi_b / a is below T, so only the bound on (1, a_1], the smallest upper end, exceeds the claim: round one's
    excess is T t/10, and the orders 1 + t/4 and 1 + t/16 are added below; round two's excess is T t/25, cut by
    2.5, at least half, so refining goes on (orders 1 + t/64 and 1 + t/256); in round three no bound exceeds
    T (1 + t/25) (the new intervals' T (1 + t/25) / a is below it), so the excess is again T t/25, not halved,
    and refining stops: three evaluations, and the bracket [0, T (1 + t/25)]."""
    from dpaudit.exact import rho

    T, t = Fraction(1, 8), Fraction(1, 1024)
    batches: list[list[float]] = []
    r = rho.zcdp_rho(_recording(batches, lambda a: T * (1 + t / 10) if Fraction(a) - 1 >= t else T * (1 + t / 25)),
                     Enclosure(0, T), T)
    assert batches[1:] == [[1 + 2.0**-12, 1 + 2.0**-14], [1 + 2.0**-16, 1 + 2.0**-18]]
    assert r.rho == Enclosure(0, T * (1 + t / 25))


def test_a_pairs_coordinates_are_remembered_by_identity_and_turned_round_for_the_other_direction():
    """differing_coordinates keeps its answers for the last pairs by identity: asked again it gives the same tuple,
    asked about (Q, P) it gives each coordinate's (Q_i, P_i), never (P_i, Q_i); a new pair equal to an old one is
    compared afresh, and each direction's profile and Renyi divergence are what a cold memory gives."""
    rng = np.random.default_rng(5)
    (p1, q1), (p2, q2) = _random_pair(rng, 5), _random_pair(rng, 4)
    P, Q = ProductDistribution((p1, p2)), ProductDistribution((q1, q2))

    def cold(a, b):
        exact._RECENT.clear()
        exact._RECENT_PRODUCTS.clear()
        return exact.privacy_profile(a, b, 0.3).delta, exact.renyi_divergence(a, b, 2.0)

    answers = {(P, Q): cold(P, Q), (Q, P): cold(Q, P)}
    assert answers[(P, Q)] != answers[(Q, P)]  # the pair is not symmetric: a direction mixed up would show
    forward = exact.differing_coordinates(P, Q)
    assert exact.differing_coordinates(P, Q) is forward
    for a, b in ((Q, P), (P, Q), (Q, P), (P, Q)):  # warm, in both orders
        assert (exact.privacy_profile(a, b, 0.3).delta, exact.renyi_divergence(a, b, 2.0)) == answers[(a, b)]
    backward = exact.differing_coordinates(Q, P)
    assert [(k, p, q) for k, q, p in backward] == list(forward)
    assert backward[0][1] is q1 and backward[0][2] is p1
    twin = ProductDistribution((p1, p2))
    assert exact.differing_coordinates(twin, Q) is not forward and exact.differing_coordinates(twin, Q) == forward
    for _ in range(exact.RECENT_PAIRS + 2):  # the memory is bounded
        exact.differing_coordinates(*_random_pair(rng, 3))
    assert len(exact._RECENT) == exact.RECENT_PAIRS
