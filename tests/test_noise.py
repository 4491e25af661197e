"""The noise layer: exact laws agree with each other and with closed forms, every sampler conforms
to its exact law, sums and modular steps are exact, and bad parameters are clear errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import dpaudit
from dpaudit.core.laws import as_law
from dpaudit.mechanisms import noise as N

INTEGER_LAWS = [
    N.DiscreteLaplace(2.0), N.DiscreteLaplace(0.4, loc=3), N.DiscreteLaplace.from_decay(0.97),
    N.DiscreteGaussian(0.7), N.DiscreteGaussian(5.0, loc=3), N.DiscreteGaussian(40.0),
    N.Skellam(4.0), N.Skellam(0.3, loc=-2),
    N.Polya(0.3, 0.8), N.Polya(2.5, 0.2), N.Geometric(0.6),
    N.PolyaDifference(0.1, 0.9), N.PolyaDifference.share(5, math.exp(-0.5)),
    N.Binomial(20, 0.3), N.SymmetricBinomial(10), N.BernoulliExp(0.5), N.BernoulliExp(3.0),
    N.iid_sum(N.DiscreteGaussian(2.0), 5), N.ModularReduction(50).corrected(N.DiscreteLaplace(3.0, loc=20), 45),
    N.IndependentSum(N.Binomial(40, 0.5), N.Skellam(9.0), name="Bin(40, 1/2) + Sk(0, 9)"),
]
CONTINUOUS_LAWS = [N.Laplace(1.5), N.Laplace(0.1, loc=-1), N.Gaussian(2, loc=1), N.Gaussian(0.01)]
ALL_LAWS = INTEGER_LAWS + CONTINUOUS_LAWS


@pytest.mark.slow
@pytest.mark.parametrize("law", ALL_LAWS, ids=repr)
def test_every_sampler_conforms_to_its_exact_law(law):
    """The conformance audit (false-failure rate 1e-6 per law, so about 2e-5 for this test)."""
    result = dpaudit.audit_sampler(law, law, samples=1_000_000, seed=20261122)
    assert result.verdict == "not-refuted", result.notes


@pytest.mark.parametrize("law", INTEGER_LAWS, ids=repr)
def test_integer_law_tables_agree_with_closed_forms(law):
    t = law.table()
    assert t.probs.sum() == pytest.approx(1, abs=1e-12)
    k = np.arange(t.offset - 2, t.offset + t.probs.size + 2)
    cumulative = np.concatenate([[0.0, 0.0], np.cumsum(t.probs), [1.0, 1.0]])
    assert np.allclose(law.cdf(k), cumulative, atol=1e-12)
    assert np.allclose(law.cdf(k) + law.sf(k), 1, atol=1e-12)
    assert np.allclose(law.cdf(k + 0.5), law.cdf(k))  # a lattice law's cdf is flat between integers
    assert t.mean == pytest.approx(law.mean, abs=1e-9 * (1 + math.sqrt(law.var)))
    assert t.var == pytest.approx(law.var, rel=1e-9)
    lo, hi = law.cgf_domain
    lams = np.array([-0.5, -0.1, 0.05, 0.3, 2.0])
    lams = lams[(lams > lo) & (lams < hi)]
    # far from the edge of the domain, where the table carries the whole cumulant function
    lams = lams[np.abs(lams) < 0.5 * min(-lo, hi)] if math.isfinite(hi) else lams
    lams = lams[np.abs(lams) * math.sqrt(law.var) <= 5]  # the tilted law stays inside the table
    assert np.allclose(t.cgf(lams), law.cgf(lams), rtol=1e-9, atol=1e-12)
    assert np.isneginf(law.logpmf(np.array([0.5]))).all()
    law_view = as_law(law)
    assert law_view.lattice and law_view.cgf is not None


@pytest.mark.parametrize("law", CONTINUOUS_LAWS, ids=repr)
def test_continuous_laws_agree_with_scipy(law):
    ref = stats.laplace(law.loc, law.scale) if isinstance(law, N.Laplace) else stats.norm(law.loc, law.sigma)
    x = law.loc + np.linspace(-30, 30, 121) * math.sqrt(law.var)
    assert np.allclose(law.cdf(x), ref.cdf(x), rtol=1e-12, atol=1e-300)
    assert np.allclose(law.sf(x), ref.sf(x), rtol=1e-9, atol=1e-300)
    assert law.mean == ref.mean() and law.var == pytest.approx(ref.var())
    lams = np.array([-0.3, 0.2]) / math.sqrt(law.var)
    sd = math.sqrt(law.var)
    numeric = [math.log(ref.expect(lambda v, lam=lam: math.exp(lam * v), lb=law.loc - 60 * sd, ub=law.loc + 60 * sd))
               for lam in lams]
    assert np.allclose(law.cgf(lams), numeric, rtol=1e-6)


def test_cgf_is_infinite_outside_its_domain():
    for law in (N.DiscreteLaplace(2.0), N.Laplace(2.0), N.Polya(1.5, 0.5), N.PolyaDifference(0.5, 0.5)):
        lo, hi = law.cgf_domain
        assert np.isinf(law.cgf(np.array([hi * 1.01, hi + 1]))).all()
        if math.isfinite(lo):
            assert np.isinf(law.cgf(np.array([lo * 1.01]))).all()


def test_discrete_laplace_tails_and_variance_in_closed_form():
    """dist-mab 2.4(a): P[X >= k] = e^{-k/b} / (1 + e^{-1/b}) for k >= 0, Var = 2e^{-1/b} / (1 - e^{-1/b})^2."""
    b = 2.5
    law = N.DiscreteLaplace(b)
    k = np.arange(0, 2000, 37)
    assert np.allclose(law.sf(k - 1), np.exp(-k / b) / (1 + math.exp(-1 / b)), rtol=1e-12, atol=0)
    assert law.var == pytest.approx(2 * math.exp(-1 / b) / (1 - math.exp(-1 / b)) ** 2, rel=1e-14)
    assert N.DiscreteLaplace.from_decay(math.exp(-1 / b)).scale == pytest.approx(b, rel=1e-15)


def test_polya_shares_of_n_users_sum_to_the_discrete_laplace():
    """dist-mab Fact 1: sum over n of (Polya(1/n, beta) - Polya(1/n, beta)) is Lap_Z with ratio beta; checked by
    the closed form and by convolving the n share tables."""
    beta = math.exp(-1 / 3)
    target = N.DiscreteLaplace.from_decay(beta)
    k = np.arange(-60, 61)
    for n in (1, 4, 7):
        share = N.PolyaDifference.share(n, beta)
        assert np.allclose(share.sum_of(n).logpmf(k), target.logpmf(k), atol=1e-11)
        summed = N.iid_sum(share, n)
        assert np.allclose(np.log(summed.pmf(k)), target.logpmf(k), atol=1e-9)


def test_polya_difference_far_tails_match_mpmath():
    """Where scipy's hyp2f1 fails (beta near 1, far tails) the tilted FFT table takes over."""
    import mpmath
    for r, beta in [(1 / 1024, 0.999), (0.5, 0.975), (1.0, 0.99)]:
        law = N.PolyaDifference(r, beta)
        d = np.array([1, 40, 900, 6000, 40_000])
        d = d[d < N.Polya(r, beta).window()[1] // 2]
        exact = [float(2 * r * mpmath.log1p(-beta) + k * mpmath.log(beta) + mpmath.loggamma(k + r) - mpmath.loggamma(r)
                       - mpmath.loggamma(k + 1) + mpmath.log(mpmath.hyp2f1(r, k + r, k + 1, beta * beta))) for k in d]
        assert np.allclose(law.logpmf(d), exact, atol=1e-8, rtol=0)
    assert law.table().probs.sum() == pytest.approx(1, abs=1e-9)


def test_polya_difference_pmf_matches_a_convolution_of_polya_tables():
    law = N.PolyaDifference(0.37, 0.85)
    pos = N.Polya(0.37, 0.85).table()
    diff = np.convolve(pos.probs, pos.probs[::-1])  # P[X - Y = d], d from -(len-1)
    d = np.arange(-(pos.probs.size - 1), pos.probs.size)
    keep = diff > 1e-250
    assert np.allclose(law.logpmf(d[keep]), np.log(diff[keep]), atol=1e-9)


def test_skellam_sums_and_its_bessel_pmf():
    """dist-mab Definition 5: pmf e^{-s^2} I_{x - mu}(s^2); Sk(m1, s1^2) + Sk(m2, s2^2) = Sk(m1 + m2, s1^2 + s2^2)."""
    from scipy.special import ive
    a, b = N.Skellam(2.5, loc=1), N.Skellam(1.5, loc=-3)
    k = np.arange(-25, 25)
    assert np.allclose(a.pmf(k), ive(k - 1, 2.5), rtol=1e-10)  # ive(v, x) = I_v(x) e^{-x}
    assert np.allclose(N.convolve(a, b).pmf(k), (a + b).pmf(k), rtol=1e-9, atol=1e-300)


def test_wrapped_skellam_is_the_folded_table_and_keeps_far_residues_in_log_space():
    """Skellam.wrapped_logpmf: equal to the folded pmf table where the table has normal floats
    (heavy and light wrapping, a location), and to 50-digit Bessel values where it has not."""
    import mpmath

    for variance, loc, m in [(16.0, 3, 167), (4.0, 0, 7), (100.0, -5, 30), (0.3, 1, 5)]:
        law = N.Skellam(variance, loc=loc)
        folded = N.ModularReduction(m).wrap(law)
        r = np.arange(m)
        assert np.allclose(law.wrapped_logpmf(r, m), np.log(folded.pmf(r)), atol=1e-12)
    law, m = N.Skellam(400.0), 2_501  # residues out to e^-1400, far below the smallest double
    r = np.array([300, 900, 1_200, m // 2])
    got = law.wrapped_logpmf(r, m)
    mpmath.mp.dps = 50
    log_pmf = [[mpmath.log(mpmath.besseli(abs(int(k)), 400)) - 400 for k in (x, x - m, x + m)] for x in r]
    want = np.array([float(mpmath.log(sum(mpmath.exp(v) for v in terms))) for terms in log_pmf])
    assert np.all(np.abs(got - want) <= law.wrapped_log_error(m)) and got.min() < -1300
    assert law.wrapped_log_error(m) < 1e-10
    with pytest.raises(ValueError, match="modulus m must be >= 2"):
        law.wrapped_logpmf([0], 1)
    with pytest.raises(ValueError, match="need lo <= hi"):
        law.log_table(5, 4)


def test_discrete_gaussian_normaliser_variance_and_cgf_for_small_and_large_sigma():
    for sigma in (0.3, 1.0, 2.9, 3.0, 12.5):
        law = N.DiscreteGaussian(sigma)
        y = np.arange(-int(60 * sigma) - 5, int(60 * sigma) + 6)
        w = np.exp(-(y**2) / (2 * sigma**2))
        p = w / w.sum()
        assert np.allclose(law.pmf(y), p, rtol=1e-12, atol=1e-300)
        assert law.var == pytest.approx(float((y * y) @ p), rel=1e-12)
        lam = np.array([-0.7, 0.2, 1.3]) / sigma
        assert np.allclose(law.cgf(lam), np.log(np.exp(np.outer(lam, y)) @ p), rtol=1e-10)
    assert N.DiscreteGaussian(0.5).var < 0.25  # below sigma^2 (Canonne, Kamath and Steinke)


def test_convolution_tracks_error_and_dropped_mass():
    a = N.DiscreteGaussian(2.0)
    s = N.convolve(a, a, a)
    assert s.probs.sum() == pytest.approx(1, abs=1e-12)
    assert s.log_error > a.table().log_error
    fd = s.finite_distribution()
    assert fd.outcomes.shape == s.probs.shape and fd.tail_mass == s.tail_mass
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        N.iid_sum(a, 0)


def test_modular_analyzer_recovers_every_sum_in_its_range():
    """dist-mab App. D.1 exactness: with m = n g + 2 tau + 1, every S in [-tau, n g + tau] comes back exactly."""
    for n, g, tau in [(3, 4, 5), (8, 2, 0), (1, 1, 7)]:
        m = n * g + 2 * tau + 1
        mod = N.ModularReduction(m)
        s = np.arange(-tau, n * g + tau + 1)
        assert np.array_equal(mod.correct(mod.reduce(s), n * g + tau), s)
        outside = np.array([-tau - 1, n * g + tau + 1])
        assert not np.array_equal(mod.correct(mod.reduce(outside), n * g + tau), outside)


def test_modular_wrap_and_corrected_laws_are_exact_foldings():
    law = N.DiscreteLaplace(3.0, loc=20)
    mod = N.ModularReduction(50)
    wrapped = mod.wrap(law)
    assert wrapped.support == (0.0, 49.0) and wrapped.probs.sum() == pytest.approx(1, abs=1e-12)
    k = np.arange(0, 50)
    direct = sum(law.pmf(k + j * 50) for j in range(-40, 41))
    assert np.allclose(wrapped.pmf(k), direct, rtol=1e-12)
    fixed = mod.corrected(law, 45)
    assert fixed.support == (-4.0, 45.0)
    inside = np.arange(-4, 46)
    # inside the recoverable range the corrected law is the law itself plus what wrapped onto it
    assert (fixed.pmf(inside) >= law.pmf(inside) * (1 - 1e-12)).all()
    assert fixed.pmf(np.array([20]))[0] == pytest.approx(law.pmf(np.array([20]))[0], rel=1e-6)


def test_randomized_rounding_is_unbiased_and_stays_in_range():
    rr = N.RandomizedRounding(7)
    x = np.array([0.0, 0.13, 0.5, 0.99, 1.0])
    out = rr.round(np.tile(x, (200_000, 1)), np.random.default_rng(3))
    assert out.min() >= 0 and out.max() <= 7
    se = out.std(axis=0) / math.sqrt(out.shape[0]) + 1e-12
    assert (np.abs(out.mean(axis=0) - 7 * x) < 6 * se + 1e-9).all()  # 6 sd: false failure < 1e-8
    for v in x:
        law = rr.law(v)
        assert law.mean == pytest.approx(7 * v, abs=1e-12)
        assert law.support[1] - law.support[0] <= 1
    # the unchecked path for inputs known to be in range draws the same
    y = np.random.default_rng(4).random((3, 5))
    np.testing.assert_array_equal(rr.round_in_range(y, np.random.default_rng(9)), rr.round(y, np.random.default_rng(9)))


def test_discrete_gaussian_sampler_handles_shapes_and_loc():
    law = N.DiscreteGaussian(3.3, loc=-4)
    x = law.sample((50, 7), np.random.default_rng(0))
    assert x.shape == (50, 7) and x.dtype.kind == "i"
    assert np.array_equal(law.sample(10, np.random.default_rng(5)), law.sample(10, np.random.default_rng(5)))


@pytest.mark.parametrize("make, message", [
    (lambda: N.DiscreteLaplace(-1.0), "scale must be > 0"),
    (lambda: N.DiscreteLaplace(1.0, loc=0.5), "loc must be an integer"),
    (lambda: N.DiscreteLaplace.from_decay(1.0), r"beta must be in \(0, 1\)"),
    (lambda: N.Laplace(0), "scale must be > 0"),
    (lambda: N.Gaussian(-2), "sigma must be > 0"),
    (lambda: N.DiscreteGaussian(0.0), "sigma must be > 0"),
    (lambda: N.DiscreteGaussian(1.0, loc=0.5), "loc must be an integer"),
    (lambda: N.Skellam(-1.0), "variance must be > 0"),
    (lambda: N.Polya(0.0, 0.5), "shape r must be > 0"),
    (lambda: N.Polya(-1.0, 0.5), "shape r must be > 0"),
    (lambda: N.Polya(1.0, 1.2), r"beta must be in \(0, 1\)"),
    (lambda: N.Geometric(0.0), r"beta must be in \(0, 1\)"),
    (lambda: N.PolyaDifference(float("nan"), 0.5), "shape r must be > 0"),
    (lambda: N.PolyaDifference.share(0, 0.5), "n must be an integer >= 1"),
    (lambda: N.PolyaDifference(2.0, 0.5), "shape r must be <= 1"),
    (lambda: N.Binomial(0, 0.5), "m must be an integer >= 1"),
    (lambda: N.Binomial(5, 1.5), r"p must be in \[0, 1\]"),
    (lambda: N.SymmetricBinomial(7), "m must be even"),
    (lambda: N.BernoulliExp(-0.1), "x must be >= 0"),
    (lambda: N.RandomizedRounding(0), "g must be an integer >= 1"),
    (lambda: N.RandomizedRounding(4).round(np.array([1.2]), np.random.default_rng()), r"inputs must lie in \[0, 1\]"),
    (lambda: N.ModularReduction(1), "modulus m must be an integer >= 2"),
    (lambda: N.ModularReduction(10).correct([3], 10), r"threshold must be in \[0, m - 1\]"),
    (lambda: N.DiscreteGaussian(1e9).cdf(0), "pmf table would need"),
])
def test_invalid_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@settings(max_examples=30, deadline=None)
@given(st.floats(1e-3, 1.0), st.floats(0.05, 0.95))
def test_polya_difference_cgf_matches_its_table(r, beta):
    law = N.PolyaDifference(r, beta)
    t = law.table()
    assert t.probs.sum() == pytest.approx(1, abs=1e-9)
    lam = np.array([-0.3, 0.3]) * -math.log(beta)
    assert np.allclose(t.cgf(lam), law.cgf(lam), rtol=1e-8, atol=1e-12)


def test_laplace_sum_has_exact_tails():
    """The sum of n Laplace(b): n = 1 is the Laplace law; the tails match a numerical convolution
    of densities and integrate the density; the sampler conforms."""
    from scipy import integrate
    x = np.array([-7.0, -0.3, 0.0, 0.4, 3.0, 25.0])
    assert np.allclose(N.LaplaceSum(1, 2.0).sf(x), stats.laplace(0, 2.0).sf(x), rtol=1e-12)
    law = N.LaplaceSum(4, 0.5)
    for t in (0.5, 2.0, 6.0):
        conv = integrate.quad(lambda v: math.exp(law.logpdf(np.array([v]))[0]), t, 60)[0]
        assert law.sf(np.array([t]))[0] == pytest.approx(conv, rel=1e-8)
    assert integrate.quad(lambda v: math.exp(law.logpdf(np.array([v]))[0]), -60, 60)[0] == pytest.approx(1, rel=1e-9)
    assert dpaudit.audit_sampler(law, law, samples=1_000_000, seed=4).verdict == "not-refuted"
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        N.LaplaceSum(0, 1.0)


def test_independent_sum_adds_cumulants_and_convolves_on_demand():
    parts = (N.Binomial(20, 0.5), N.Binomial(300, 0.25), N.DiscreteLaplace(3.0))
    s = N.IndependentSum(*parts, name="three noises")
    t = N.convolve(*parts)
    lam = np.array([-0.2, 0.1, 0.3])
    assert np.allclose(s.cgf(lam), t.cgf(lam), rtol=1e-10)
    assert s.mean == pytest.approx(t.mean, abs=1e-9) and s.var == pytest.approx(t.var, rel=1e-9)
    k = np.array([50.0, 75.5, 100.0])
    assert np.allclose(s.sf(k), t.sf(k)) and repr(s) == "three noises"
    assert s.cgf_domain == (-1 / 3.0, 1 / 3.0)


def test_integer_plus_continuous_tails_are_exact_mixtures():
    law = N.IntegerPlusContinuous(N.Binomial(10, 0.3), N.LaplaceSum(2, 1.0))
    x = np.array([-3.0, 0.0, 2.5, 10.0])
    direct = [sum(N.Binomial(10, 0.3).pmf(np.array([k]))[0] * N.LaplaceSum(2, 1.0).sf(np.array([v - k]))[0]
                  for k in range(11)) for v in x]
    assert np.allclose(law.sf(x), direct, rtol=1e-12)
    assert np.allclose(law.cdf(x) + law.sf(x), 1)
    assert law.mean == pytest.approx(3.0) and law.var == pytest.approx(2.1 + 4.0)
    assert dpaudit.audit_sampler(law, law, samples=500_000, seed=2).verdict == "not-refuted"


def test_lazy_law_builds_on_first_use():
    from dpaudit.core.laws import LazyLaw
    built = []

    def build():
        built.append(1)
        return N.iid_sum(N.Geometric(0.5), 3)

    lazy = LazyLaw(build, "three geometrics")
    assert built == [] and repr(lazy) == "three geometrics"
    assert as_law(lazy).name == "three geometrics" and built == [1]
    assert lazy.mean == pytest.approx(3.0)


@pytest.mark.parametrize("mech, value", [
    (lambda: __import__("dpaudit.mechanisms", fromlist=["x"]).RandomizedResponse(1.0), 1),
    (lambda: __import__("dpaudit.mechanisms", fromlist=["x"]).KaryRandomizedResponse(0.5, 7), 3),
])
def test_randomized_response_samplers_conform_to_their_exact_laws(mech, value):
    """Binary and k-ary randomized response (in dpaudit.mechanisms) against their exact output laws."""
    m = mech()
    law = N.FiniteIntegerLaw(0, m.distribution(value).probs, name=repr(m))
    result = dpaudit.audit_sampler(lambda size, rng: m.sample(value, size, rng), law, samples=1_000_000, seed=9)
    assert result.verdict == "not-refuted", result.witness


def test_randomized_rounding_sampler_conforms_to_its_law():
    rr = N.RandomizedRounding(16)
    for x in (0.0, 0.3, 0.71875, 1.0):
        law = rr.law(x)
        result = dpaudit.audit_sampler(lambda size, rng, x=x: rr.round(np.full(size, x), rng), law,
                                       samples=500_000, seed=11)
        assert result.verdict == "not-refuted", (x, result.witness)


def test_exact_coins_have_their_stated_probabilities():
    """Bernoulli(exp(-num/den)) from integer comparisons only. Each mean is checked at 6 standard
    errors (false failure below 2e-9 per check)."""
    from dpaudit.mechanisms.noise import exact_coins
    rng = np.random.default_rng(31)
    n = 1_000_000
    for num, den in [(0, 5), (7, 10), (10, 10), (23, 10), (1, 3)]:
        p = math.exp(-num / den)
        mean = exact_coins.bernoulli_exp(np.full(n, num), den, rng).mean()
        assert abs(mean - p) < 6 * math.sqrt(p * (1 - p) / n) + 1e-12, (num, den)
    coins = exact_coins._bernoulli_exp_minus_one(n, rng)
    assert abs(coins.mean() - math.exp(-1)) < 6 * math.sqrt(0.2325 / n)
    with pytest.raises(ValueError, match="num >= 0 and den > 0"):
        exact_coins.bernoulli_exp(np.array([-1]), 3, rng)


@pytest.mark.parametrize("sigma", [10.0, 0.7, math.pi])
def test_discrete_gaussian_exact_and_fast_samplers_conform(sigma):
    """The exact sampler (integer coins; pi^2 is no small rational, so it falls back) and the
    float-coin sampler both pass the conformance audit (false-failure rate 1e-6 each)."""
    law = N.DiscreteGaussian(sigma, loc=2)
    assert law.exact_sampling == (sigma != math.pi)
    for draw in (law.sample, law.sample_fast):
        assert dpaudit.audit_sampler(draw, law, samples=1_000_000, seed=17).verdict == "not-refuted"
    from dpaudit.mechanisms.noise import exact_coins
    lap = N.DiscreteLaplace(7.0)
    assert dpaudit.audit_sampler(lambda size, rng: exact_coins.discrete_laplace(7, size, rng), lap,
                                 samples=1_000_000, seed=5).verdict == "not-refuted"


def test_sums_of_one_law_name_a_new_object():
    coin = N.FiniteIntegerLaw(0, [0.5, 0.5], name="coin")
    assert repr(N.convolve(coin, name="renamed")) == "renamed" and repr(N.iid_sum(coin, 1)) == "sum of 1 i.i.d. coin"
    assert repr(coin) == "coin"  # the caller's law keeps its name


def test_a_sum_of_roundings_is_the_convolution_of_its_two_point_laws_to_the_last_bit():
    """RandomizedRounding.sum_law convolves its inputs' two-point laws as tables (convolve_tables), without a law
    object per step; it must be exactly what convolve gives on those laws (probabilities, offset, tail mass and
    log error, bit for bit), and against a Poisson-binomial pmf by brute force to float accuracy. Inputs on the
    grid only shift the law."""
    from itertools import product as cartesian

    rounding = N.RandomizedRounding(7)
    xs = np.random.default_rng(5).random(12)
    xs[[2, 7]] = [3 / 7, 1.0]  # on the grid: deterministic parts
    law = rounding.sum_law(xs)
    xg = xs * 7
    frac = xg - np.floor(xg)
    parts = [N.FiniteIntegerLaw(0, [1 - f, f]) for f in frac[frac > 0]]
    reference = N.convolve(*parts)
    assert law.offset == reference.offset + int(np.floor(xg).sum())
    assert np.array_equal(law.probs, reference.probs)
    assert (law.tail_mass, law.log_error) == (reference.tail_mass, reference.log_error)
    bound = 1e-12  # each two-point table's own log error, plus each convolution's roundings (convolve's docstring)
    for _ in parts[1:]:
        bound = bound + 1e-12 + 1.01 * 2 * 2.0**-53
    assert law.log_error == bound
    brute = np.zeros(len(parts) + 1)
    for bits in cartesian((0, 1), repeat=len(parts)):
        brute[sum(bits)] += math.prod(f if b else 1 - f for f, b in zip(frac[frac > 0], bits, strict=True))
    assert np.allclose(law.probs, brute[brute > 0], rtol=1e-12, atol=0)
    on_grid = rounding.sum_law([3 / 7, 1.0])
    assert on_grid.offset == 10 and on_grid.probs.tolist() == [1.0]


def test_log_sum_exp_is_scipys_on_real_arrays_with_empty_slices():
    """The exact laws' lean log-sum-exp agrees with scipy.special.logsumexp to a few roundings, along either axis,
    with huge and tiny terms (max-shifted: nothing overflows or underflows to a wrong value), and gives -inf for a
    slice of only -inf terms."""
    from scipy.special import logsumexp

    from dpaudit.core.logspace import log_sum_exp

    rng = np.random.default_rng(2)
    x = rng.normal(size=(40, 7)) * 300
    x[3] = -np.inf
    x[5, :3] = -np.inf
    x[:, 2] = -np.inf
    for axis in (0, 1, -1):
        expected = logsumexp(x, axis=axis)
        got = log_sum_exp(x, axis=axis)
        finite = np.isfinite(expected)
        assert np.array_equal(finite, np.isfinite(got)) and np.all(got[~finite] == -np.inf)
        np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-15, atol=1e-12)
    assert log_sum_exp(np.array([[800.0, 800.0]]), axis=1)[0] == pytest.approx(800 + math.log(2), rel=1e-15)
    assert log_sum_exp(np.array([[-800.0, -801.0]]), axis=1)[0] == pytest.approx(-800 + math.log1p(math.exp(-1)),
                                                                                rel=1e-15)


def test_grouped_log_sum_exp_is_scipys_per_group():
    """Within groups (the decision laws' merge of paths): scipy's logsumexp of each group's entries, with groups of
    one, an empty group and an all -inf group giving -inf, huge and tiny terms, entries in no particular order."""
    from scipy.special import logsumexp

    from dpaudit.core.logspace import grouped_log_sum_exp

    rng = np.random.default_rng(5)
    x = rng.normal(size=500) * 300
    group = rng.integers(0, 9, size=500)
    group[group == 4] = 5  # group 4 empty
    x[group == 7] = -np.inf  # group 7 all -inf
    group[0], x[0] = 8, 900.0  # a huge term
    got = grouped_log_sum_exp(x, group, 10)  # group 9 empty too
    for g in range(10):
        members = x[group == g]
        if not members.size or np.all(members == -np.inf):
            assert got[g] == -np.inf, g
        else:
            assert got[g] == pytest.approx(logsumexp(members), rel=1e-15, abs=1e-12), g
    assert grouped_log_sum_exp(np.array([-800.0, 3.0, -801.0]), np.array([0, 1, 0]), 2)[0] == pytest.approx(
        -800 + math.log1p(math.exp(-1)), rel=1e-15)
