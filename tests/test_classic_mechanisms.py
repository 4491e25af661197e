"""The classic suite's mechanisms: (a) each sampler follows its exact distribution, (b) the true
privacy derived in its docstring, recomputed here independently (numpy/scipy on the exact laws, and
the exact laws themselves checked against independent computations: closed forms, scipy numerical
integration, scipy's binomial pmf), never through dpaudit's auditors, (c) parameter validation, and
(d) the exact auditor's value on every exact entry against a reference computed from the mechanism's
documented parameters alone (closed forms, quadrature, 60-digit mpmath), so that a changed noise scale,
threshold or probability in a mechanism's law fails here even where its sampler still agrees with it.

Every goodness-of-fit test is seeded and rejects only at p < 1e-6, so a correct sampler fails any
one of them with probability 1e-6 (and the whole file, with its 30 or so such tests, with
probability below 1e-4).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from mpmath import iv, libmp
from scipy import integrate, stats
from scipy.special import logsumexp, softmax

import dpaudit
from dpaudit import ZCDP, ApproxDP, PureDP, exact
from dpaudit.audits import classic
from dpaudit.core.distributions import FiniteDistribution, GaussianDistribution, ProductDistribution
from dpaudit.core.errors import UnsupportedAudit
from dpaudit.mechanisms import (
    ClampedLaplaceMechanism,
    ClippedSum,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    KaryRandomizedResponse,
    Laplace,
    LaplaceMechanism,
    NoisyHistogram,
    RandomizedResponse,
    RepeatedRelease,
    ReportNoisyMax,
    ReportNoisyMaxWithValue,
    ShuffledRandomizedResponse,
    SparseVector,
    TruncatedGeometric,
    ZCDPGaussianMechanism,
    above_threshold,
    analytic_gaussian_delta,
    fmt_shuffle_epsilon,
)

P_MIN = 1e-6  # rejection level of every goodness-of-fit test
ENTRIES = {e.id: e for e in classic.suite.entries}
#: the entries that audit a mechanism on pairs of neighbouring inputs (the canary audits of a training loop have none)
MECHANISMS = {key: e for key, e in ENTRIES.items() if hasattr(e, "pairs")}


# -- helpers -----------------------------------------------------------------------------------

def entry(claim_id: str):
    return ENTRIES[claim_id]


def outcome_index(outputs: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
    """The index in ``outcomes`` of every output row (every output must be an outcome)."""
    outcomes = np.asarray(outcomes)
    if outcomes.ndim == 1:
        lookup = {float(v): i for i, v in enumerate(outcomes)}
        return np.array([lookup[float(v)] for v in np.asarray(outputs)])
    lookup = {tuple(row): i for i, row in enumerate(outcomes.tolist())}
    return np.array([lookup[tuple(row)] for row in np.asarray(outputs).tolist()])


def assert_follows(outputs: np.ndarray, dist: FiniteDistribution) -> None:
    """Chi-square goodness of fit of outputs to a finite law, cells of expected count < 5 pooled;
    outcomes of probability zero must never occur."""
    idx = outcome_index(outputs, dist.outcomes)
    observed = np.bincount(idx, minlength=len(dist.log_probs)).astype(float)
    probs = dist.probs
    assert observed[probs == 0].sum() == 0, "an outcome of probability zero occurred"
    expected = len(idx) * probs
    big = expected >= 5
    obs = list(observed[big])
    exp = list(expected[big])
    if (~big).any() and expected[~big].sum() > 0:
        obs.append(observed[~big].sum())
        exp.append(expected[~big].sum())
    exp = np.array(exp) * (sum(obs) / sum(exp))  # probs sum to 1 up to rounding
    if len(obs) > 1:
        assert stats.chisquare(obs, exp).pvalue > P_MIN


def finite_loss(p: FiniteDistribution, q: FiniteDistribution) -> float:
    """max over outcomes of |log p - log q| (infinite where one side is zero and the other not)."""
    assert np.array_equal(p.outcomes, q.outcomes)
    lp, lq = p.log_probs, q.log_probs
    both_zero = np.isneginf(lp) & np.isneginf(lq)
    with np.errstate(invalid="ignore"):
        diff = np.abs(lp - lq)
    return float(np.max(np.where(both_zero, 0.0, diff)))


def max_loss(mech, pairs) -> float:
    return max(finite_loss(mech.distribution(a), mech.distribution(b)) for a, b in pairs)


def laplace_cdf(x, loc, scale):
    return stats.laplace.cdf(x, loc, scale)


# -- suite-level consistency -------------------------------------------------------------------

def test_suite_has_at_least_15_distinct_mechanisms_and_consistent_truths():
    subjects = {e.subject_name for e in classic.suite.entries}
    assert len(subjects) >= 15
    for e in classic.suite.entries:
        assert e.id.startswith("classic/") and e.id == e.id.lower()
        if e.truth is None:
            continue
        truths = e.truth if isinstance(e.truth, list) else [e.truth]
        if isinstance(e.claim, PureDP):
            bounds = [e.claim.epsilon]
        elif isinstance(e.claim, ApproxDP):
            bounds = [e.claim.delta]
        elif isinstance(e.claim, ZCDP):
            bounds = [e.claim.rho]
        else:  # Renyi DP: one truth per claimed order
            bounds = [eps for _, eps in e.claim.points]
        assert len(truths) == len(bounds), e.id
        if e.expected == "refuted":
            assert any(t > b for t, b in zip(truths, bounds)), e.id
        else:
            assert all(t <= b for t, b in zip(truths, bounds)), e.id
    for e in MECHANISMS.values():  # every pair is a pair of neighbours under the entry's relation
        for d0, d1 in e.pairs:
            e.relation.check(d0, d1)


@pytest.mark.parametrize("claim_id", sorted(MECHANISMS))
def test_every_subject_samples_numeric_rows_deterministically(claim_id):
    e = entry(claim_id)
    for data in e.pairs[0]:
        a = e.subject.sample(data, 7, np.random.default_rng(3))
        b = e.subject.sample(data, 7, np.random.default_rng(3))
        assert a.shape[0] == 7 and np.array_equal(a, b)
        assert a.dtype.kind in "if" and np.isfinite(a).all()


# -- noisy histogram ---------------------------------------------------------------------------

def test_histogram_sampler_follows_product_of_laplace():
    """One KS test per bin (5 tests at p < 1e-6 each)."""
    mech = NoisyHistogram(0.7, bins=5)
    data = [0, 1, 1, 2, 3, 4, 4, 4]
    x = mech.sample(data, 40_000, np.random.default_rng(11))
    assert x.shape == (40_000, 5)
    for j, count in enumerate([1, 2, 1, 1, 3]):
        assert stats.kstest(x[:, j], lambda v, c=count: laplace_cdf(v, c, 1 / 0.7)).pvalue > P_MIN
    dist = mech.distribution(data)
    assert isinstance(dist, ProductDistribution) and [c.loc for c in dist.coordinates] == [1, 2, 1, 1, 3]


@pytest.mark.parametrize(("claim_id", "truth"), [("classic/histogram-eps0.7", 0.7),
                                                 ("classic/histogram-scale-eps", 1 / 0.7)])
def test_histogram_true_epsilon(claim_id, truth):
    """Neighbouring datasets change exactly one bin by 1; that bin's Laplace log-ratio reaches 1/b."""
    e = entry(claim_id)
    grid = np.linspace(-30, 30, 6001)
    worst = 0.0
    for d0, d1 in e.pairs:
        c0, c1 = e.subject.counts(d0), e.subject.counts(d1)
        assert np.abs(c0 - c1).sum() == 1
        j = int(np.argmax(c0 != c1))
        b = float(e.subject.scale)
        loss = stats.laplace.logpdf(grid, c0[j], b) - stats.laplace.logpdf(grid, c1[j], b)
        worst = max(worst, np.abs(loss).max())
    assert worst == pytest.approx(truth, rel=1e-12)
    assert e.truth == pytest.approx(truth, rel=1e-12)


@pytest.mark.parametrize(("kwargs", "data", "match"), [
    ({"epsilon": 0, "bins": 3}, None, "epsilon"), ({"epsilon": 1, "bins": 0}, None, "bins"),
    ({"epsilon": 1, "bins": 3, "scale": -1}, None, "scale"), ({"epsilon": 1, "bins": 3}, [0, 3], "labels"),
    ({"epsilon": 1, "bins": 3}, [0.5], "integers"), ({"epsilon": 1, "bins": 3}, [[0, 1]], "1-d"),
])
def test_histogram_validation(kwargs, data, match):
    with pytest.raises(ValueError, match=match):
        NoisyHistogram(**kwargs).sample(data, 3, np.random.default_rng(0))


# -- report noisy max and the exponential mechanism ----------------------------------------------

def _laplace_pdf(x: float, b: float) -> float:
    return math.exp(-abs(x) / b) / (2 * b)


def _laplace_cdf(x: float, b: float) -> float:
    """The Laplace(0, b) cdf in floats (scipy's frozen laws cost ~50 us a call inside quadrature)."""
    return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)


def _noisy_max_by_quadrature(q, scale, noise):
    """P[index i] = integral pdf(v - q_i) prod_{j != i} cdf(v - q_j) dv, by scipy quadrature."""
    if noise == "laplace":
        pdf, cdf = _laplace_pdf, _laplace_cdf
    else:
        def pdf(x, b):
            return math.exp(-x / b) / b if x >= 0 else 0.0

        def cdf(x, b):
            return -math.expm1(-x / b) if x >= 0 else 0.0
    out = []
    for i in range(len(q)):
        def f(v, i=i):
            return pdf(v - q[i], scale) * math.prod(cdf(v - q[j], scale) for j in range(len(q)) if j != i)

        lo = min(q) - 60 * scale if noise == "laplace" else q[i]
        out.append(integrate.quad(f, lo, max(q) + 60 * scale, points=sorted(set(q)), limit=500, epsabs=1e-14,
                                  epsrel=1e-11)[0])
    return np.array(out)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_max_exact_law_matches_quadrature_and_sampler(noise):
    mech = ReportNoisyMax(0.7, k=5, noise=noise)
    q = [1.0, 2.0, 0.0, 1.0, 1.5]
    dist = mech.distribution(q)
    assert np.allclose(dist.probs, _noisy_max_by_quadrature(q, 2 / 0.7, noise), rtol=1e-7, atol=1e-12)
    assert dist.log_error < 1e-12
    assert_follows(mech.sample(q, 200_000, np.random.default_rng(5)), dist)


def test_noisy_max_true_epsilon():
    """Laplace: below 0.7 on every pair, approaching 0.7 as the other answers move away (a supremum);
    exponential noise: exactly 0.7 on StatDP's one-below-rest-above pair."""
    lap = entry("classic/noisy-max-laplace-eps0.7")
    assert max_loss(lap.subject, lap.pairs[:-1]) < 0.69
    losses = [max_loss(lap.subject, [([0.0] + [m] * 4, [-1.0] + [m + 1] * 4)]) for m in (2.0, 5.0, 10.0)]
    assert losses == sorted(losses) and 0.69999 < losses[-1] < 0.7
    expo = entry("classic/noisy-max-exponential-eps0.7")
    assert max_loss(expo.subject, expo.pairs) == pytest.approx(0.7, abs=1e-12)
    p, q = expo.subject.distribution([1.0] * 5), expo.subject.distribution([0.0] + [2.0] * 4)
    assert p.log_probs[0] - q.log_probs[0] == pytest.approx(0.7, abs=1e-12)
    assert lap.truth == expo.truth == 0.7


def test_exponential_mechanism_law_sampler_and_epsilon():
    mech = ExponentialMechanism(0.7, k=5)
    q = [1.0, 2.0, 0.0, 1.0, 1.5]
    dist = mech.distribution(q)
    assert np.allclose(dist.log_probs, np.log(softmax(np.array(q) * 0.7 / 2)), atol=1e-14)
    assert_follows(mech.sample(q, 200_000, np.random.default_rng(6)), dist)
    e = entry("classic/exponential-mechanism-eps0.7")
    # closed form: the loss of output 0 on (0, m, ...) vs (-1, m+1, ...) tends to 0.7 from below
    for m, expected in ((10.0, 0.6962208924585882), (40.0, 0.6999998953490714)):
        u0, u1 = np.array([0.0] + [m] * 4) * 0.35, np.array([-1.0] + [m + 1] * 4) * 0.35
        closed = (u0[0] - logsumexp(u0)) - (u1[0] - logsumexp(u1))
        assert closed == pytest.approx(expected, abs=1e-12)
    assert max_loss(e.subject, e.pairs) == pytest.approx(0.6962208924585882, abs=1e-12)


def test_noisy_max_with_value_sampler():
    """Index frequencies follow report-noisy-max's law; the value follows the law of the max of
    independent shifted Laplace variables, CDF prod_j F(v - q_j) (KS)."""
    mech = ReportNoisyMaxWithValue(0.7, k=3)
    q = [1.0, 2.0, 0.0]
    x = mech.sample(q, 100_000, np.random.default_rng(8))
    assert x.shape == (100_000, 2)
    assert_follows(x[:, 0], ReportNoisyMax(0.7, k=3).distribution(q))

    def cdf(v):
        return np.prod([laplace_cdf(v, qj, 2 / 0.7) for qj in q], axis=0)

    assert stats.kstest(x[:, 1], cdf).pvalue > P_MIN
    assert np.array_equal(np.sort(np.unique(x[:, 0])), [0.0, 1.0, 2.0])


def test_noisy_max_with_value_true_epsilon():
    """The density f(i, v) = p(v - q_i) prod F(v - q_j): its log-ratio on the all-above pair is exactly
    k eps / 2 = 1.05 for v <= min q and never larger anywhere (on a fine grid and every pattern)."""
    e = entry("classic/noisy-max-value-blackbox")
    b = 2 / 0.7
    v = np.linspace(-40, 40, 8001)

    def log_density(q, i):
        others = sum(stats.laplace.logcdf(v, qj, b) for j, qj in enumerate(q) if j != i)
        return stats.laplace.logpdf(v, q[i], b) + others

    worst = 0.0
    for d0, d1 in e.pairs:
        for i in range(3):
            worst = max(worst, np.abs(log_density(d0, i) - log_density(d1, i)).max())
    assert worst == pytest.approx(1.05, rel=1e-9)
    below = v <= 1.0
    loss = log_density([1.0] * 3, 0)[below] - log_density([2.0] * 3, 0)[below]
    assert np.allclose(loss, 1.05, rtol=1e-9)
    assert e.truth == pytest.approx(1.05) and e.subject.true_epsilon == pytest.approx(1.05)


@pytest.mark.parametrize(("make", "match"), [
    (lambda: ReportNoisyMax(0, 5), "epsilon"), (lambda: ReportNoisyMax(1, 1), "k"),
    (lambda: ReportNoisyMax(1, 5, noise="gumbel"), "noise"),
    (lambda: ReportNoisyMax(1, 5, sensitivity=-2), "sensitivity"),
    (lambda: ReportNoisyMaxWithValue(math.inf, 3), "epsilon"), (lambda: ExponentialMechanism(1, 2.5), "k"),
    (lambda: ReportNoisyMax(1, 3).sample([1.0, 2.0], 4, np.random.default_rng(0)), "k=3"),
    (lambda: ExponentialMechanism(1, 2).distribution([1.0, math.nan]), "finite"),
])
def test_noisy_max_validation(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# -- sparse vector -----------------------------------------------------------------------------

def _svt_by_quadrature(mech: SparseVector, q, pattern):
    """P[pattern] = integral p_rho(z) prod_below F(T + z - q_i) prod_above S(T + z - q_i) dz (scipy)."""
    b_nu = None if mech.query_scale is None else float(mech.query_scale)
    return _svt_pattern_probability(q, pattern, mech.threshold, float(mech.threshold_scale), b_nu)


def _svt_pattern_probability(q, pattern, T: float, b_rho: float, b_nu: float | None) -> float:
    """_svt_by_quadrature with the threshold T and the scales of the threshold and query noise given."""

    def factor(z, i, code):
        x = T + z - q[i]
        if b_nu is None:
            return float(x > 0) if code == 0 else float(x <= 0)
        return _laplace_cdf(x, b_nu) if code == 0 else _laplace_cdf(-x, b_nu)

    def f(z):
        out = _laplace_pdf(z, b_rho)
        for i, code in enumerate(pattern):
            if code != -1:
                out *= factor(z, i, code)
        return out

    points = sorted({qi - T for qi in q} | {0.0})
    return integrate.quad(f, -80 * b_rho, 80 * b_rho, points=points, limit=1000, epsabs=1e-15, epsrel=1e-11)[0]


@pytest.mark.parametrize(("variant", "cutoff", "threshold"), [
    ("lyu-alg1", 1, 0.5), ("lyu-alg1", 2, 0.5), ("lee-clifton", 1, 1.0), ("stoddard", None, 1.0), ("chen", None, 1.0)])
def test_sparse_vector_exact_law_matches_quadrature_and_sampler(variant, cutoff, threshold):
    mech = SparseVector(0.7, threshold, variant=variant, cutoff=cutoff)
    q = [1.0, 2.0, 0.0, 1.5]
    dist = mech.distribution(q)
    reference = [_svt_by_quadrature(mech, q, row) for row in dist.outcomes]
    assert np.allclose(dist.probs, reference, rtol=1e-7, atol=1e-13)
    assert dist.probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert_follows(mech.sample(q, 200_000, np.random.default_rng(9)), dist)


def test_sparse_vector_output_encoding():
    mech = above_threshold(0.7, 0.5)
    rows = mech.sample([0.0, 3.0, 5.0, 0.0], 1000, np.random.default_rng(1))
    for row in rows:  # below (0)*, then at most one above (1), then not answered (-1)
        s = "".join({0: "b", 1: "a", -1: "n"}[v] for v in row)
        assert s.rstrip("n") in {"b" * len(s.rstrip("n")), "b" * (len(s.rstrip("n")) - 1) + "a"}
        assert "n" not in s or "a" in s
    assert set(np.unique(mech.patterns(3)).tolist()) == {-1, 0, 1}
    assert len(mech.patterns(4)) == 5  # b b b b, a n n n, b a n n, b b a n, b b b a
    assert len(SparseVector(0.7, 1.0, variant="chen").patterns(4)) == 16


def test_svt_roth_sampler():
    """Codes follow Lyu Alg. 3's pattern law (quadrature); the value released with the first query's
    "above" follows p_nu(v - q_1) P[rho <= v - T] / P[first above] (KS against a numerical CDF)."""
    mech = SparseVector(0.7, 1.0, variant="roth", cutoff=1)
    q = [1.0, 0.0, 2.0]
    x = mech.sample(q, 200_000, np.random.default_rng(12))
    assert x.shape == (200_000, 6)
    codes, values = x[:, :3].astype(int), x[:, 3:]
    outcomes = SparseVector(0.7, 1.0, variant="lyu-alg1", cutoff=1).patterns(3)
    probs = [_svt_by_quadrature(mech, q, row) for row in outcomes]
    assert_follows(codes, FiniteDistribution.from_probs(outcomes, probs))
    assert np.all(values[codes != 1] == 0)
    b_nu, b_rho = float(mech.query_scale), float(mech.threshold_scale)
    grid = np.linspace(q[0] - 60 * b_nu, q[0] + 60 * b_nu, 400_001)
    dens = stats.laplace.pdf(grid, q[0], b_nu) * stats.laplace.cdf(grid - 1.0, 0, b_rho)
    cdf = integrate.cumulative_trapezoid(dens, grid, initial=0)
    cdf /= cdf[-1]
    first = values[codes[:, 0] == 1, 0]
    assert stats.kstest(first, lambda v: np.interp(v, grid, cdf)).pvalue > P_MIN


def test_svt_above_threshold_true_epsilon():
    """Below 0.7 on StatDP's pairs and the derived pair, and tending to 0.7 along the derived family."""
    e = entry("classic/svt-above-threshold-eps0.7")
    mech = e.subject
    assert max_loss(mech, e.pairs[:-1]) == pytest.approx(0.642939395758551, abs=1e-9)
    assert max_loss(mech, e.pairs[-1:]) == pytest.approx(0.698268423837904, abs=1e-9)
    far = max_loss(mech, [([40.5] * 5 + [0.5], [41.5] * 5 + [-0.5])])
    assert 0.69999 < far < 0.7
    assert e.truth == 0.7


def test_svt_lee_clifton_true_epsilon():
    """(1 + 6c) eps / 4 = 1.225: reached on the derived pair, never exceeded, 1.2173 on StatDP's."""
    e = entry("classic/svt-lee-clifton")
    assert max_loss(e.subject, e.pairs[:-1]) == pytest.approx(1.2173480567171886, abs=1e-9)
    derived = max_loss(e.subject, e.pairs[-1:])
    assert derived == pytest.approx(1.225, abs=1e-8) and derived < 1.225 + 1e-12
    assert e.truth == pytest.approx(1.225)


def test_svt_stoddard_true_epsilon_is_infinite():
    e = entry("classic/svt-stoddard")
    p = e.subject.distribution([1.0] * 10)
    q = e.subject.distribution([2.0] + [0.0] * 9)
    pattern = outcome_index(np.array([[1] + [0] * 9]), p.outcomes)[0]
    assert np.isneginf(p.log_probs[pattern]) and np.isfinite(q.log_probs[pattern])
    assert max_loss(e.subject, e.pairs) == math.inf and e.truth == math.inf


@pytest.mark.slow
def test_svt_chen_loss_grows_with_the_number_of_queries():
    e = entry("classic/svt-chen")
    losses = [max_loss(e.subject, [([1.0] * k, [2.0] * (k // 2) + [0.0] * (k - k // 2))]) for k in (2, 4, 6, 8)]
    assert all(b - a > 0.5 for a, b in itertools.pairwise(losses))  # roughly linear growth: unbounded
    assert max_loss(e.subject, [e.pairs[4]]) == pytest.approx(3.0918008598676012, abs=1e-9)
    assert e.truth == math.inf


def test_svt_roth_loss_on_the_left_tail_is_k_eps_over_2c():
    """Density of (below^(k-1), above at v) = p_nu(v - q_k) int_{z <= v - T} p_rho(z) prod F(T + z - q_i) dz;
    on all answers raised by 1 and v <= min q its log-ratio is exactly k/b_nu = 3.5 for k = 10."""
    mech = SparseVector(0.7, 1.0, variant="roth", cutoff=1)
    b_nu, b_rho, T, k = float(mech.query_scale), float(mech.threshold_scale), 1.0, 10

    def log_density(q, v):
        inner = integrate.quad(lambda z: stats.laplace.pdf(z, 0, b_rho) * np.prod(
            [stats.laplace.cdf(T + z - qi, 0, b_nu) for qi in q[:-1]]),
            -200, v - T, epsabs=0, epsrel=1e-12, limit=500)[0]
        return stats.laplace.logpdf(v, q[-1], b_nu) + math.log(inner)

    for v in (-2.0, 0.5):
        assert log_density([1.0] * k, v) - log_density([2.0] * k, v) == pytest.approx(k / b_nu, rel=1e-7)
    assert k / b_nu == pytest.approx(3.5)


@pytest.mark.parametrize(("make", "match"), [
    (lambda: SparseVector(0.7, 1.0, variant="dwork"), "variant"),
    (lambda: SparseVector(0.7, 1.0, variant="chen", cutoff=1), "cutoff"),
    (lambda: SparseVector(0.7, 1.0, cutoff=0), "cutoff"),
    (lambda: SparseVector(-0.7, 1.0), "epsilon"),
    (lambda: SparseVector(0.7, math.nan), "threshold"),
    (lambda: SparseVector(0.7, 1.0).sample([], 3, np.random.default_rng(0)), "non-empty"),
    (lambda: SparseVector(0.7, 1.0, variant="roth").distribution([1.0]), "no finite distribution"),
])
def test_sparse_vector_validation(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


# -- truncated geometric -----------------------------------------------------------------------

def test_truncated_geometric_law_sampler_and_epsilon():
    mech = TruncatedGeometric(0.5, n=10)
    a = math.exp(-0.5)
    z = np.arange(-400, 401)
    pz = (1 - a) / (1 + a) * a ** np.abs(z)  # two-sided geometric, clamped by summing its tails
    for f in (0, 3, 10):
        reference = np.array([pz[np.clip(f + z, 0, 10) == j].sum() for j in range(11)])
        assert np.allclose(mech.distribution(f).probs, reference, rtol=1e-12, atol=0)
    assert_follows(mech.sample(3, 200_000, np.random.default_rng(13)), mech.distribution(3))
    e = entry("classic/truncated-geometric-eps0.5")
    for d0, d1 in e.pairs:  # |loss| = eps at every output
        p, q = e.subject.distribution(d0), e.subject.distribution(d1)
        assert np.allclose(np.abs(p.log_probs - q.log_probs), 0.5, atol=1e-12)
    assert e.truth == 0.5


@pytest.mark.parametrize(("make", "match"), [
    (lambda: TruncatedGeometric(0.5, 0), "n"), (lambda: TruncatedGeometric(0, 5), "epsilon"),
    (lambda: TruncatedGeometric(0.5, 5).distribution(6), "0..5"),
    (lambda: TruncatedGeometric(0.5, 5).sample(1.5, 2, np.random.default_rng(0)), "integer"),
])
def test_truncated_geometric_validation(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# -- Gaussian mechanism ------------------------------------------------------------------------

def _delta_scipy(eps, sigma):
    """Balle & Wang (2018) Thm 8 with scipy's normal CDF, for sensitivity 1."""
    return (stats.norm.cdf(1 / (2 * sigma) - eps * sigma)
            - math.exp(eps) * stats.norm.cdf(-1 / (2 * sigma) - eps * sigma))


@pytest.mark.parametrize(("eps", "documented", "fails"), [(0.5, 1.6078539930874326e-08, False),
                                                          (5.0, 1.3490037186027805e-06, False),
                                                          (10.0, 2.2653743647934293e-05, True)])
def test_gaussian_true_delta(eps, documented, fails):
    e = entry(f"classic/gaussian-classic-eps{eps:g}")
    mech = e.subject
    assert mech.sigma == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / eps, rel=1e-15)
    delta = _delta_scipy(eps, mech.sigma)
    assert delta == pytest.approx(documented, rel=1e-6)
    assert e.truth == pytest.approx(delta, rel=1e-6) and mech.true_delta() == pytest.approx(delta, rel=1e-6)
    # the hockey-stick divergence by quadrature agrees (integrand positive left of the crossing point)
    s = mech.sigma
    cross = 0.5 - eps * s**2  # N(0,s) density = e^eps N(1,s) density
    hs = integrate.quad(lambda x: stats.norm.pdf(x, 0, s) - math.exp(eps) * stats.norm.pdf(x, 1, s), -np.inf, cross,
                        epsabs=0, epsrel=1e-10)[0]
    assert hs == pytest.approx(delta, rel=1e-5)
    assert (delta > 1e-5) == fails == (e.expected == "refuted")
    assert isinstance(e.claim, ApproxDP) and e.claim.delta == 1e-5


def test_gaussian_sampler_and_distribution():
    mech = GaussianMechanism(0.5, 1e-5)
    x = mech.sample(2.0, 100_000, np.random.default_rng(14))
    assert stats.kstest(x, stats.norm(2.0, mech.sigma).cdf).pvalue > P_MIN
    assert mech.distribution(2.0) == GaussianDistribution(2.0, mech.sigma)
    assert isinstance(mech.distribution([1.0, 2.0]), ProductDistribution)
    assert mech.in_theorem_range and not GaussianMechanism(5.0, 1e-5).in_theorem_range
    assert analytic_gaussian_delta(0.0, 1.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-12)


@pytest.mark.parametrize(("args", "match"), [((0.5, 0.0), "delta"), ((0.5, 1.0), "delta"), ((0.0, 1e-5), "epsilon"),
                                             ((0.5, 1e-5, 0.0), "sensitivity")])
def test_gaussian_validation(args, match):
    with pytest.raises(ValueError, match=match):
        GaussianMechanism(*args)


@pytest.mark.parametrize(("rho", "calibration", "sigma", "true_rho"),
                         [(0.5, "correct", 1.0, 0.5), (2.0, "correct", 0.5, 2.0), (2.0, "variance-as-sigma", 0.25, 8.0),
                          (0.125, "variance-as-sigma", 4.0, 1 / 32)])
def test_zcdp_gaussian_calibration_sampler_and_true_rho(rho, calibration, sigma, true_rho):
    """sigma = Delta / sqrt(2 rho); the bug uses the variance Delta^2 / (2 rho) as sigma, harmless
    below rho = 1/2 and four times the claim at rho = 2. True rho = Delta^2 / (2 sigma^2)."""
    mech = ZCDPGaussianMechanism(rho, calibration=calibration)
    assert mech.sigma == sigma and mech.true_rho == true_rho
    x = mech.sample(1.0, 100_000, np.random.default_rng(15))
    assert stats.kstest(x, stats.norm(1.0, sigma).cdf).pvalue > P_MIN
    assert exact.zcdp_rho(mech.distribution(0.0), mech.distribution(1.0)).rho == exact.Enclosure.point(true_rho)


def test_zcdp_gaussian_validation():
    with pytest.raises(ValueError, match="rho"):
        ZCDPGaussianMechanism(0.0)
    with pytest.raises(ValueError, match="calibration"):
        ZCDPGaussianMechanism(0.5, calibration="sloppy")


# -- double spending ---------------------------------------------------------------------------

def test_double_spending_sampler_and_true_epsilon():
    mech = RepeatedRelease(LaplaceMechanism(0.5), times=2)
    x = mech.sample(1.0, 100_000, np.random.default_rng(15))
    assert x.shape == (100_000, 2)
    for col in x.T:
        assert stats.kstest(col, lambda v: laplace_cdf(v, 1.0, 2.0)).pvalue > P_MIN
    table = np.histogram2d(x[:, 0] > 1.0, x[:, 1] > 1.0, bins=2)[0]  # independence of the releases
    assert stats.chi2_contingency(table).pvalue > P_MIN
    assert mech.distribution(1.0) == ProductDistribution((Laplace(2, loc=1.0),) * 2)
    e = entry("classic/double-spending-laplace-eps0.5")
    g = np.linspace(-20, 20, 801)
    x1, x2 = np.meshgrid(g, g)
    loss = sum(stats.laplace.logpdf(v, 0, 2) - stats.laplace.logpdf(v, 1, 2) for v in (x1, x2))
    assert np.abs(loss).max() == pytest.approx(1.0, rel=1e-12) and e.truth == 1.0


def test_double_spending_validation():
    with pytest.raises(ValueError, match="times"):
        RepeatedRelease(LaplaceMechanism(0.5), times=0)
    with pytest.raises(ValueError, match="base"):
        RepeatedRelease(object())
    class SamplerOnly:
        def sample(self, data, size, rng):
            return rng.random(size)

    assert not hasattr(RepeatedRelease(SamplerOnly()), "distribution")


# -- randomized response -----------------------------------------------------------------------

@pytest.mark.parametrize(("mech", "truth"), [
    (RandomizedResponse(1.0), 1.0), (KaryRandomizedResponse(1.0, 4), 1.0),
    (KaryRandomizedResponse(1.0, 4, calibration="binary"), 1.0 + math.log(3))])
def test_randomized_response_law_sampler_and_epsilon(mech, truth):
    k, e = mech.k, math.e
    for x in range(k):
        if mech.calibration == "k-ary":
            reference = np.where(np.arange(k) == x, e / (e + k - 1), 1 / (e + k - 1))
        else:
            reference = np.where(np.arange(k) == x, e / (e + 1), 1 / ((e + 1) * (k - 1)))
        dist = mech.distribution([x])
        assert np.allclose(dist.probs, reference, rtol=1e-14)
        assert_follows(mech.sample([x], 100_000, np.random.default_rng(16 + x)), dist)
    worst = max(finite_loss(mech.distribution(a), mech.distribution(b)) for a in range(k) for b in range(k))
    assert worst == pytest.approx(truth, abs=1e-12)
    assert mech.true_epsilon == pytest.approx(truth, abs=1e-12)


@pytest.mark.parametrize(("make", "match"), [
    (lambda: KaryRandomizedResponse(1.0, 1), "k"), (lambda: RandomizedResponse(0.0), "epsilon"),
    (lambda: KaryRandomizedResponse(1.0, 3, calibration="unary"), "calibration"),
    (lambda: RandomizedResponse(1.0).distribution([2]), "0..1"),
    (lambda: RandomizedResponse(1.0).sample([0, 1], 3, np.random.default_rng(0)), "one user"),
])
def test_randomized_response_validation(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# -- shuffled randomized response --------------------------------------------------------------

def _count_logpmf(n1, n0, p):
    """log P[Bin(n1, p) + Bin(n0, 1 - p) = s] with scipy (float), by log-space convolution."""
    a = stats.binom.logpmf(np.arange(n1 + 1), n1, p)
    b = stats.binom.logpmf(np.arange(n0 + 1), n0, 1 - p)
    out = np.full(n1 + n0 + 1, -np.inf)
    for j in range(n1 + 1):
        out[j:j + n0 + 1] = np.logaddexp(out[j:j + n0 + 1], a[j] + b)
    return out


def test_shuffled_rr_law_and_sampler():
    mech = ShuffledRandomizedResponse(1.0, 60)
    bits = np.array([1] * 20 + [0] * 40)
    dist = mech.distribution(bits)
    ref = _count_logpmf(20, 40, math.e / (1 + math.e))
    big = ref > -200
    assert np.allclose(dist.log_probs[big], ref[big], atol=1e-9)
    assert_follows(mech.sample(bits, 200_000, np.random.default_rng(17)), dist)


def test_fmt21_claim_and_exact_delta():
    """FMT21 Thm 3.1 at n = 1000, eps0 = 1, delta = 1e-6: the condition holds (1 <= 1.46), the bound
    is eps = 0.5662; the exact hockey-stick divergence at that eps is below 1e-40 on every audited
    pair (the claim holds), and the pure epsilon of the count is eps0."""
    n, e0, delta = 1000, 1.0, 1e-6
    assert math.log(n / (16 * math.log(2 / delta))) == pytest.approx(1.4604, abs=1e-4)
    e = math.e  # e^eps0
    eps = math.log(1 + (e - 1) / (e + 1) * (8 * math.sqrt(e * math.log(4 / delta)) / math.sqrt(n) + 8 * e / n))
    assert fmt_shuffle_epsilon(e0, n, delta) == pytest.approx(eps, rel=1e-15)
    assert eps == pytest.approx(0.5662014894828, abs=1e-12)
    e = entry("classic/shuffled-randomized-response-fmt21")
    assert isinstance(e.claim, ApproxDP) and e.expected == "not-refuted"
    assert e.claim.epsilon == pytest.approx(eps, rel=1e-15) and e.claim.delta == delta
    for d0, d1 in e.pairs:
        p, q = e.subject.distribution(d0), e.subject.distribution(d1)
        ones = int(np.sum(d0))
        ref = _count_logpmf(ones, n - ones, math.e / (1 + math.e))
        big = p.log_probs > -600
        assert np.allclose(p.log_probs[big], ref[big], atol=1e-8)
        for a, b in ((p, q), (q, p)):
            hockey = np.sum(np.clip(np.exp(a.log_probs) - np.exp(eps + b.log_probs), 0, None))
            assert hockey < 1e-40
        assert finite_loss(p, q) == pytest.approx(e0, abs=1e-9)


@pytest.mark.parametrize(("make", "match"), [
    (lambda: ShuffledRandomizedResponse(1.0, 0), "n"), (lambda: ShuffledRandomizedResponse(-1.0, 10), "epsilon0"),
    (lambda: ShuffledRandomizedResponse(1.0, 3).distribution([0, 1]), "n=3"),
    (lambda: ShuffledRandomizedResponse(1.0, 3).distribution([0, 1, 2]), "bit"),
    (lambda: fmt_shuffle_epsilon(2.0, 1000, 1e-6), "Theorem 3.1 needs"),
    (lambda: fmt_shuffle_epsilon(1.0, 1000, 0.0), "delta"),
])
def test_shuffle_validation(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# -- clipped sum and the geometric mechanism with the wrong sensitivity --------------------------

def test_clipped_sum_sampler_and_distribution():
    mech = ClippedSum(1.0, clip=1.0)
    assert mech.total([0.25, -3.0, 2.0]) == 0.25
    assert ClippedSum(1.0, 1.0, clip_records=False).total([0.25, -3.0, 2.0]) == -0.75
    x = mech.sample([0.25, -3.0, 2.0], 100_000, np.random.default_rng(18))
    assert stats.kstest(x, lambda v: laplace_cdf(v, 0.25, 1.0)).pvalue > P_MIN
    assert mech.distribution([0.25, 2.0]) == Laplace(1, loc=1.25)


@pytest.mark.parametrize(("claim_id", "at_pairs"), [("classic/clipped-sum-eps1", 1.0),
                                                    ("classic/clipped-sum-replace-one", 2.0),
                                                    ("classic/sum-without-clipping", 10.0),
                                                    ("classic/discrete-laplace-sensitivity2", 2.0)])
def test_sum_and_sensitivity_true_epsilon(claim_id, at_pairs):
    """Laplace log-ratio |s - s'|/b, maximised on a grid reaching both tails."""
    e = entry(claim_id)
    grid = np.arange(-60.0, 60.0, 0.25)
    worst = 0.0
    for d0, d1 in e.pairs:
        if isinstance(e.subject, DiscreteLaplaceMechanism):
            lp = stats.dlaplace.logpmf(grid.astype(int) - d0, 1.0) - stats.dlaplace.logpmf(grid.astype(int) - d1, 1.0)
        else:
            s0, s1 = e.subject.total(d0), e.subject.total(d1)
            lp = stats.laplace.logpdf(grid, s0, 1.0) - stats.laplace.logpdf(grid, s1, 1.0)
        worst = max(worst, np.abs(lp).max())
    assert worst == pytest.approx(at_pairs, rel=1e-12)
    assert e.truth == (math.inf if claim_id == "classic/sum-without-clipping" else at_pairs)


@pytest.mark.parametrize(("make", "match"), [
    (lambda: ClippedSum(1.0, 0.0), "clip"), (lambda: ClippedSum(1.0, 1.0, clip_records="yes"), "clip_records"),
    (lambda: ClippedSum(1.0, 1.0).total([[1.0]]), "1-d"), (lambda: ClippedSum(1.0, 1.0).total([math.inf]), "finite"),
])
def test_clipped_sum_validation(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# -- the exact auditor on every exact entry, against values computed another way ----------------------
# Each reference is computed from the mechanism's documented parameters (never from the mechanism
# object): closed forms, scipy quadrature of the output law, or sums in 60-digit mpmath. A mechanism whose
# noise scale, threshold or probability changed moves its audited value away from its reference.

def _max_log_ratio(p, q) -> float:
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return float(np.max(np.abs(np.log(p) - np.log(q))))


def _laplace_noisy_max_loss(pair, scale: float) -> float:
    return _max_log_ratio(*(_noisy_max_by_quadrature(q, scale, "laplace") for q in pair))


def _exponential_noisy_max_loss(pair, scale: float) -> float:
    return _max_log_ratio(*(_noisy_max_by_quadrature(q, scale, "exponential") for q in pair))


def _svt_loss(pair, T: float, b_rho: float, b_nu: float) -> float:
    """Largest |log-ratio| over the patterns of a stream with cutoff 1: j "below" answers, then one "above"
    and the rest unanswered, or every answer "below"."""
    k = len(pair[0])
    patterns = [[0] * j + [1] + [-1] * (k - j - 1) for j in range(k)] + [[0] * k]
    return _max_log_ratio(*([_svt_pattern_probability(q, row, T, b_rho, b_nu) for row in patterns] for q in pair))


def _exponential_mechanism_loss(pairs, eps: float) -> float:
    """The softmax law P[i] proportional to exp(eps q_i / 2), in closed form, over every pair."""
    return max(_max_log_ratio(softmax(np.array(a) * eps / 2), softmax(np.array(b) * eps / 2)) for a, b in pairs)


def _truncated_geometric_loss(pairs, eps: float, n: int) -> float:
    """The two-sided geometric P[Z = z] proportional to e^(-eps |z|), clamped to {0..n} by summing its tails."""
    z = np.arange(-400, 401)
    pz = math.exp(-eps) ** np.abs(z)

    def law(f):
        return np.array([pz[np.clip(f + z, 0, n) == j].sum() for j in range(n + 1)]) / pz.sum()

    return max(_max_log_ratio(law(a), law(b)) for a, b in pairs)


def _gaussian_delta(eps: float, delta: float, at: float) -> float:
    """Balle & Wang's delta(at) for sensitivity 1, in 60-digit mpmath, at the classic calibration
    sigma = sqrt(2 ln(1.25/delta)) / eps."""
    import mpmath

    with mpmath.workdps(60):
        sigma = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(1.25) / delta)) / eps
        a = mpmath.mpf(at)
        return float(mpmath.ncdf(1 / (2 * sigma) - a * sigma)
                     - mpmath.exp(a) * mpmath.ncdf(-1 / (2 * sigma) - a * sigma))


def _shuffled_rr_delta(n: int, eps0: float, eps: float) -> float:
    """delta(eps) of the count of ones among n users' binary randomized responses (each keeps its bit with
    probability e^eps0 / (1 + e^eps0)): all zeros against the last user's bit set to one, summed in
    60-digit mpmath over the counts (binomial coefficients exact)."""
    import mpmath

    with mpmath.workdps(60):
        flip = 1 / (1 + mpmath.exp(eps0))  # P[a zero is reported as one]
        rest = [mpmath.binomial(n - 1, s) * flip**s * (1 - flip) ** (n - 1 - s) for s in range(n)]

        def count(s, last_one):  # P[count = s], the last user's report added to the other n - 1
            p_one = 1 - flip if last_one else flip
            return (rest[s] * (1 - p_one) if s < n else 0) + (rest[s - 1] * p_one if s > 0 else 0)

        factor = mpmath.exp(eps)
        return float(mpmath.fsum(max(count(s, False) - factor * count(s, True), 0) for s in range(n + 1)))


def _bounded_domain_epsilon(scale: float, lower: float, upper: float) -> float:
    """The bounded-domain Laplace's loss between answers lower and lower + 1 at output lower (Holohan et al.):
    1/b + log Z(lower + 1) / Z(lower), Z(q) = 2 - e^{-(q - lower)/b} - e^{-(upper - q)/b}, in 60-digit mpmath."""
    import mpmath

    with mpmath.workdps(60):
        b, lo, hi = mpmath.mpf(scale), mpmath.mpf(lower), mpmath.mpf(upper)

        def z(q):
            return 2 - mpmath.exp(-(q - lo) / b) - mpmath.exp(-(hi - q) / b)

        return float(1 / b + mpmath.log(z(lo + 1) / z(lo)))


def _folded_laplace_epsilon(pairs, b: float, lower: float, upper: float) -> float:
    """The folded Laplace's largest |log p/q| over the pairs, from the density summed by brute force over the
    images y + 2kW and 2 lower - y + 2kW (|k| <= 40) at the break points {lower, q, q', upper}, where the loss's
    extremes lie (a Moebius map of e^{2y/b} between them; tests/test_folded_mechanisms.py checks that against a
    dense grid), in 40-digit mpmath."""
    import mpmath

    with mpmath.workdps(40):
        bb, lo, w = mpmath.mpf(b), mpmath.mpf(lower), mpmath.mpf(upper) - mpmath.mpf(lower)

        def density(y, q):
            images = [image for k in range(-40, 41) for image in (y + 2 * k * w, 2 * lo - y + 2 * k * w)]
            return mpmath.fsum(mpmath.exp(-abs(x - q) / bb) for x in images) / (2 * bb)

        return float(max(abs(mpmath.log(density(mpmath.mpf(y), q0) / density(mpmath.mpf(y), q1)))
                         for q0, q1 in pairs for y in (lower, q0, q1, upper)))


def _folded_geometric_epsilon(pairs, a: float, lower: float, upper: float) -> float:
    """The folded geometric's largest |log P/Q| over the pairs, its law summed by brute force: the two-sided
    geometric pmf (1 - a)/(1 + a) a^|z| over |z| <= 600, each q + z reflected at the bounds until inside, in
    40-digit mpmath."""
    import mpmath

    def fold(x):
        while x < lower or x > upper:
            x = 2 * lower - x if x < lower else 2 * upper - x
        return int(x)

    with mpmath.workdps(40):
        aa = mpmath.mpf(a)

        def law(q):
            out = {}
            for z in range(-600, 601):
                j = fold(q + z)
                out[j] = out.get(j, 0) + (1 - aa) / (1 + aa) * aa ** abs(z)
            return out

        worst = 0
        for q0, q1 in pairs:
            p, r = law(q0), law(q1)
            worst = max([worst] + [abs(mpmath.log(p[j] / r[j])) for j in p])
        return float(worst)


def _discrete_gaussian_delta(sigma: float, eps: float) -> float:
    """delta(eps) of N_Z(0, sigma^2) against N_Z(1, sigma^2): the sum over the integers |k| <= 60 sigma of
    (p(k) - e^eps p(k - 1))_+, normalised, in 40-digit mpmath."""
    import mpmath

    with mpmath.workdps(40):
        s = mpmath.mpf(sigma)
        reach = int(60 * sigma) + 2
        w = {k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s * s)) for k in range(-reach, reach + 2)}
        factor = mpmath.exp(mpmath.mpf(eps))
        return float(mpmath.fsum(max(w[k] - factor * w[k - 1], 0) for k in range(-reach + 1, reach + 2))
                     / mpmath.fsum(w.values()))


# claim id -> (the audited pairs, or None for all the entry's; the reference value; its allowance)
EXACT_PINS = {
    # Laplace, discrete Laplace, clipped sums and histograms: epsilon = sensitivity / scale exactly
    "classic/laplace-eps0.1": (None, 0.1, 1e-15),
    "classic/laplace-eps1": (None, 1.0, 1e-15),
    "classic/laplace-scale-eps": (None, 1 / 0.1, 1e-14),
    "classic/discrete-laplace-eps1": (None, 1.0, 1e-15),
    "classic/discrete-laplace-sensitivity2": (None, 2.0, 1e-15),
    "classic/laplace-vector-eps0.5": (None, 0.5, 1e-15),
    "classic/histogram-eps0.7": (None, 0.7, 1e-15),
    "classic/histogram-scale-eps": (None, 1 / 0.7, 1e-15),
    "classic/clipped-sum-eps1": (None, 1.0, 1e-15),
    "classic/clipped-sum-replace-one": (None, 2.0, 1e-15),
    "classic/sum-without-clipping": (None, 10.0, 1e-14),
    "classic/double-spending-laplace-eps0.5": (None, 2 * 0.5, 1e-15),
    # clamped Laplace (the atom at a bound) and staircase noise (one step per unit shift): sensitivity / scale
    "classic/clamped-laplace-eps1": (None, 1.0, 1e-15),
    "classic/clamped-laplace-scale-eps": (None, 1 / 0.5, 1e-15),
    "classic/staircase-eps1": (None, 1.0, 1e-15),
    "classic/staircase-sensitivity2": (None, 2.0, 1e-15),
    # bounded-domain Laplace on [0, 2]: the calibrated scale's loss (1 up to the scale's rounding) and the
    # unwidened scale 1's, at the pair (0, 1), in mpmath
    "classic/bounded-domain-laplace-eps1": (
        "first", lambda _: _bounded_domain_epsilon(float(classic.BOUNDED.scale), 0.0, 2.0), 1e-15),
    "classic/bounded-domain-laplace-unwidened": ("first", lambda _: _bounded_domain_epsilon(1.0, 0.0, 2.0), 1e-15),
    # folded Laplace (scale 1 on [0, 2]) and folded geometric (on {0..5}): brute-force sums over the reflected
    # images; the discrete Gaussian's delta(0.5) at sigma = 9.6896 and at sqrt(9.6896): the sum over the integers
    "classic/folded-laplace-eps1": (None, lambda pairs: _folded_laplace_epsilon(pairs, 1.0, 0.0, 2.0), 1e-12),
    "classic/folded-laplace-half-width": (None, lambda pairs: _folded_laplace_epsilon(pairs, 1.0, 0.0, 2.0), 1e-12),
    "classic/folded-geometric-eps1": (
        None, lambda pairs: _folded_geometric_epsilon(pairs, math.exp(-1), 0, 5), 1e-12),
    "classic/folded-geometric-alpha-for-epsilon": (
        None, lambda pairs: _folded_geometric_epsilon(pairs, 0.2, 0, 5), 1e-12),
    "classic/discrete-gaussian-eps0.5": (
        None, lambda _: _discrete_gaussian_delta(math.sqrt(2 * math.log(1.25e5)) / 0.5, 0.5), 1e-9 * 1.7e-8),
    "classic/discrete-gaussian-sigma-as-variance": (
        None, lambda _: _discrete_gaussian_delta(math.sqrt(math.sqrt(2 * math.log(1.25e5)) / 0.5), 0.5),
        1e-9 * 1.1e-2),
    # report noisy max, scale 2/eps: the pair the entry derives (Laplace) and StatDP's one-below-rest-above
    # (exponential noise), by quadrature
    "classic/noisy-max-laplace-eps0.7": (
        "derived", lambda pair: _laplace_noisy_max_loss(pair, 2 / 0.7), 1e-9),
    "classic/noisy-max-exponential-eps0.7": (
        ([1.0] * 5, [0.0] + [2.0] * 4), lambda pair: _exponential_noisy_max_loss(pair, 2 / 0.7), 1e-9),
    "classic/exponential-mechanism-eps0.7": (None, lambda pairs: _exponential_mechanism_loss(pairs, 0.7), 1e-12),
    # sparse vector on its derived pair, by quadrature: AboveThreshold with threshold noise Lap(2/eps) and
    # query noise Lap(4/eps); Lee & Clifton with Lap(4/eps) and Lap(4/(3 eps))
    "classic/svt-above-threshold-eps0.7": (
        "derived", lambda pair: _svt_loss(pair, 0.5, 2 / 0.7, 4 / 0.7), 1e-9),
    "classic/svt-lee-clifton": ("derived", lambda pair: _svt_loss(pair, 1.0, 4 / 0.7, 4 / (3 * 0.7)), 1e-9),
    "classic/truncated-geometric-eps0.5": (None, lambda pairs: _truncated_geometric_loss(pairs, 0.5, 10), 1e-12),
    # Gaussian: delta(eps) at the classic sigma; rho and D_alpha = alpha / (2 sigma^2) with sigma = 1/sqrt(2 rho)
    # (and the variance 1/(2 rho) = 1/4 used as sigma for the bug)
    "classic/gaussian-classic-eps0.5": (None, lambda _: _gaussian_delta(0.5, 1e-5, 0.5), 1e-9 * 1.6e-8),
    "classic/gaussian-classic-eps5": (None, lambda _: _gaussian_delta(5.0, 1e-5, 5.0), 1e-9 * 1.3e-6),
    "classic/gaussian-classic-eps10": (None, lambda _: _gaussian_delta(10.0, 1e-5, 10.0), 1e-9 * 2.3e-5),
    "classic/gaussian-zcdp-rho0.5": (None, 0.5, 1e-15),
    "classic/gaussian-renyi-curve-rho0.5": (None, {"2": 1.0, "8": 4.0, "32": 16.0}, 1e-14),
    "classic/gaussian-zcdp-variance-as-sigma": (None, 1 / (2 * 0.25**2), 1e-14),
    # Laplace(1) as zCDP: rho is the KL divergence eps + e^-eps - 1 = e^-1 (the limit alpha -> 1 of
    # Mironov's closed form); the enclosure is 1e-3 wide
    "classic/zcdp-of-laplace-eps1": (None, math.exp(-1), 1e-3),
    # randomized response: log(keep / other) = eps, and 1 + ln 3 for k = 4 with the binary keep probability
    "classic/randomized-response-eps1": (None, 1.0, 1e-14),
    "classic/kary-randomized-response-eps1": (None, 1.0, 1e-14),
    "classic/kary-randomized-response-binary-keep": (None, 1 + math.log(3), 1e-14),
    # shuffled randomized response on its first pair (the worst of the three), in mpmath
    "classic/shuffled-randomized-response-fmt21": (
        "first", lambda pair: _shuffled_rr_delta(1000, 1.0, fmt_shuffle_epsilon(1.0, 1000, 1e-6)), 1e-9 * 1.9e-51),
    # DP-SE's epoch release: two arms' sums plus Lap(1/eps) each, one sum moved by 1 (the Laplace loss)
    "classic/dp-se-epoch-eps1": (None, 1.0, 1e-12),
}
EXACT_UNPINNED = {
    "classic/svt-stoddard": "infinite whatever the noise: a pattern possible on one input is impossible on the other",
    "classic/svt-chen": "its exact audit takes 40 s (1024 patterns per input); its law is checked against "
                        "quadrature above and its loss on the half-half pair by value",
}


def test_every_exact_entry_is_pinned_or_says_why_not():
    exact_ids = {e.id for e in classic.suite.entries if e.auditor == "exact"}
    assert exact_ids == set(EXACT_PINS) | set(EXACT_UNPINNED)
    assert not set(EXACT_PINS) & set(EXACT_UNPINNED)


@pytest.mark.parametrize("claim_id", sorted(EXACT_PINS))
def test_exact_auditor_value_matches_an_independent_computation(claim_id):
    """The exact auditor's enclosure of the entry's epsilon, delta, rho or Renyi curve contains the reference
    and is within its allowance of it (the allowance is the quadrature's or the enclosure's accuracy)."""
    e = entry(claim_id)
    pairs, reference, allowance = EXACT_PINS[claim_id]
    if pairs == "derived":  # the pair the entry's comment derives, listed last
        pairs = e.pairs[-1]
    elif pairs == "first":
        pairs = e.pairs[0]
    audited = e.pairs if pairs is None else [pairs]
    if callable(reference):
        reference = reference(e.pairs if pairs is None else pairs)
    r = dpaudit.audit_privacy(e.subject, e.claim, pairs=audited, auditor="exact")
    enclosures = ({order: r.parameters["renyi_divergences"][order] for order in reference}
                  if isinstance(reference, dict) else {"": r.statistic.interval})
    for key, (lo, hi) in enclosures.items():
        value = reference[key] if isinstance(reference, dict) else reference
        assert lo - allowance <= value <= hi + allowance and hi - lo <= allowance, (key, lo, hi, value)


# -- dpaudit.exact's privacy profiles and enclosures, against closed forms ---------------------------------
# delta(eps) of one and several coordinates against closed forms in 50-digit mpmath (Laplace: 1 - e^{(eps -
# eps0)/2}; Gaussian: Balle & Wang's formula in mu; finite laws: the sum over outcomes of (P - e^eps Q)_+),
# the summary of the event each kind reports, the message of the mixtures it does not compute, and the
# rounding of the enclosures themselves against exact fractions.

def _mp(x) -> mpmath.mpf:
    """An exact Fraction (or float) as a 50-digit mpmath number."""
    x = Fraction(x)
    with mpmath.workdps(50):
        return mpmath.mpf(x.numerator) / x.denominator


def _contains(enclosure, reference, tol) -> bool:
    """lo - tol <= reference <= hi + tol, and the enclosure is at most tol wide (in 50-digit mpmath)."""
    lo, hi = _mp(enclosure.lo), _mp(enclosure.hi)
    with mpmath.workdps(50):
        return lo - tol <= reference <= hi + tol and hi - lo <= tol


def _laplace_delta(eps: float, eps0: float) -> mpmath.mpf:
    """delta(eps) of Laplace(0, b) against Laplace(1, b), eps0 = 1/b, eps >= 0: max(0, 1 - e^{(eps - eps0)/2})."""
    with mpmath.workdps(50):
        return max(mpmath.mpf(0), 1 - mpmath.exp((mpmath.mpf(eps) - eps0) / 2))


def _gaussian_mu_delta(eps, mu) -> mpmath.mpf:
    """Balle & Wang: delta(eps) of N(0, 1) against N(mu, 1), valid for every real eps."""
    with mpmath.workdps(50):
        eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
        return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _rr_law(bit: int, eps0: float) -> FiniteDistribution:
    """Binary randomized response on ``bit``: keep it with probability e^eps0 / (1 + e^eps0)."""
    keep = math.exp(eps0) / (1 + math.exp(eps0))
    log_probs = [math.log(keep), math.log(1 - keep)]
    return FiniteDistribution(np.array([0.0, 1.0]), np.array(log_probs if bit == 0 else log_probs[::-1]))


def _rr_probs(bit: int, eps0: float) -> list:
    """The law of ``_rr_law`` in 50-digit mpmath."""
    with mpmath.workdps(50):
        keep = mpmath.exp(eps0) / (1 + mpmath.exp(eps0))
        return [keep, 1 - keep] if bit == 0 else [1 - keep, keep]


@pytest.mark.parametrize("pair", [
    (Laplace(1), Laplace(1)),
    (ProductDistribution((Laplace(2), GaussianDistribution(0, 1))),
     ProductDistribution((Laplace(2), GaussianDistribution(0, 1)))),
], ids=["laplace", "laplace-gaussian"])
def test_the_privacy_profile_of_identical_outputs_is_exactly_zero_with_no_event(pair):
    """Two identical output laws cannot be told apart: delta(eps) is exactly 0 (a point enclosure) for every
    eps, even eps < 0 where 1 - e^eps > 0, and there is no event {P > e^eps Q} to summarise."""
    for eps in (-1.0, 0.0, 0.5):
        profile = exact.privacy_profile(*pair, eps)
        assert profile.delta == exact.Enclosure(0, 0) and profile.delta.is_exact
        assert profile.event == {}


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.5, 2.5])
def test_the_laplace_privacy_profile_is_the_closed_form_log_linear_and_clamped(eps):
    """delta(eps) of Laplace(b) at 0 against at 1, b = 1/2 (eps0 = 2), is 1 - e^{(eps - eps0)/2} (0 beyond
    eps0), for the log-linear law and for the law clamped to [-1, 2] (a piecewise-exponential law with atoms):
    the event {p > e^eps q} is x < (1 - eps b)/2, inside (-1, 2), and the atom at -1 carries exactly the
    tail of that event below -1 while the atom at 2 has likelihood ratio e^{-2} and adds nothing. Neither
    kind reports an event summary."""
    reference = _laplace_delta(eps, 2)
    clamped = ClampedLaplaceMechanism(scale=Fraction(1, 2), lower=-1.0, upper=2.0)
    for p, q in [(Laplace(Fraction(1, 2)), Laplace(Fraction(1, 2), loc=1.0)),
                 (clamped.distribution(0.0), clamped.distribution(1.0))]:
        profile = exact.privacy_profile(p, q, eps)
        assert _contains(profile.delta, reference, 1e-40), (profile.delta, reference)
        assert profile.event == {}


def test_the_privacy_profile_of_gaussian_coordinates_is_balle_wang_in_the_total_mu():
    """Two independent N(., 2^2) coordinates shifted by (3, 4) are one Gaussian shifted by 5 standard
    deviations of 2: mu = 5/2, delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), and the event
    summary is that mu."""
    p = ProductDistribution((GaussianDistribution(0, 2), GaussianDistribution(0, 2)))
    q = ProductDistribution((GaussianDistribution(3, 2), GaussianDistribution(4, 2)))
    for eps in (0.0, 1.0, 3.0):
        profile = exact.privacy_profile(p, q, eps)
        assert _contains(profile.delta, _gaussian_mu_delta(eps, 2.5), 1e-40), (eps, profile.delta)
        assert profile.event == {"mu": 2.5}


def test_the_privacy_profile_of_finite_coordinates_is_the_sum_over_outcomes():
    """Two randomized-response coordinates (eps0 = 1 and 0.5), all bits 0 against all bits 1: delta(0.7) is
    the sum over the four output pairs of (P - e^0.7 Q)_+, computed here in mpmath; the privacy-loss
    discretisation makes the enclosure about 2e-5 wide. The event summary counts the coordinates."""
    p = ProductDistribution((_rr_law(0, 1.0), _rr_law(0, 0.5)))
    q = ProductDistribution((_rr_law(1, 1.0), _rr_law(1, 0.5)))
    p1, p2, q1, q2 = _rr_probs(0, 1), _rr_probs(0, 0.5), _rr_probs(1, 1), _rr_probs(1, 0.5)
    with mpmath.workdps(50):
        factor = mpmath.exp(mpmath.mpf(0.7))
        reference = mpmath.fsum(max(0, p1[i] * p2[j] - factor * q1[i] * q2[j]) for i in (0, 1) for j in (0, 1))
    profile = exact.privacy_profile(p, q, 0.7)
    assert _contains(profile.delta, reference, 1e-4), (profile.delta, reference)
    assert profile.event == {"coordinates": 2}


def test_the_privacy_profile_of_a_finite_and_a_gaussian_coordinate_averages_balle_wang():
    """Randomized response (eps0 = 1) next to N(0, 1) against N(1/2, 1): with L the randomized response's
    privacy loss (+-eps0), delta(eps) = E_P[delta_G(eps - L)], delta_G Balle & Wang's with mu = 1/2 (valid for
    negative arguments too). The event summary counts the coordinates and gives the Gaussian mu."""
    p = ProductDistribution((_rr_law(0, 1.0), GaussianDistribution(0, 1)))
    q = ProductDistribution((_rr_law(1, 1.0), GaussianDistribution(Fraction(1, 2), 1)))
    keep, flip = _rr_probs(0, 1)
    with mpmath.workdps(50):
        reference = keep * _gaussian_mu_delta(0.7 - 1, 0.5) + flip * _gaussian_mu_delta(0.7 + 1, 0.5)
    profile = exact.privacy_profile(p, q, 0.7)
    assert _contains(profile.delta, reference, 1e-4), (profile.delta, reference)
    assert profile.event == {"coordinates": 2, "gaussian mu": 0.5}


@pytest.mark.parametrize("first, second, message", [
    ((Laplace(1), GaussianDistribution(0, 1)), (Laplace(1, loc=1.0), GaussianDistribution(1, 1)),
     "2 independent gaussian/log-linear coordinates"),
    ((Laplace(1), Laplace(2)), (Laplace(1, loc=1.0), Laplace(2, loc=1.0)), "2 independent log-linear coordinates"),
    ((GaussianDistribution(0, 1), GaussianDistribution(0, 1)), (GaussianDistribution(1, 1), GaussianDistribution(0, 2)),
     "2 independent gaussian coordinates"),
], ids=["laplace-gaussian", "laplace-laplace", "gaussians-of-unequal-variances"])
def test_the_privacy_profile_of_an_unsupported_product_says_what_it_does_not_compute(first, second, message):
    """Products other than finite coordinates with or without Gaussians of equal variances (within each
    coordinate) are refused, with a message naming the number and kinds of differing coordinates, rather than
    given a wrong delta (0 for Laplace coordinates, or the Gaussians' delta alone)."""
    with pytest.raises(UnsupportedAudit) as info:
        exact.privacy_profile(ProductDistribution(first), ProductDistribution(second), 0.5)
    assert str(info.value) == (
        f"delta(eps) of {message} is not computed exactly "
        "(supported: one coordinate; finite coordinates, with or without Gaussians of equal variances)")


@pytest.mark.parametrize("alpha", [1, 1.0, 0.5])
def test_a_renyi_order_of_one_or_less_is_refused(alpha):
    """D_alpha is defined here for alpha > 1 only (alpha = 1 is the KL divergence, another quantity): an
    order of 1 or below is refused with its value, even on Gaussians whose closed form alpha mu^2 / 2 would
    return a number."""
    with pytest.raises(ValueError) as info:
        exact.renyi_divergence(GaussianDistribution(0, 1), GaussianDistribution(1, 1), alpha)
    assert str(info.value) == f"Renyi order alpha must be > 1, got {alpha!r}"


def test_enclosure_around_widens_by_the_stated_errors_exactly_and_keeps_infinities():
    """[v - e, v + e] with e = abs_error + rel_error |v| in exact rationals; no error given is the exact point
    v; an infinite value stays the point at that infinity whatever the errors."""
    v = Fraction(0.1)
    assert exact.Enclosure.around(0.1) == exact.Enclosure(v, v)
    assert exact.Enclosure.around(0.1, rel_error=2.0**-53) == exact.Enclosure(v - v / 2**53, v + v / 2**53)
    e = Fraction(1, 2**60) + Fraction(3, 2**53) * v
    assert exact.Enclosure.around(-0.1, 2.0**-60, 3 * 2.0**-53) == exact.Enclosure(-v - e, -v + e)
    assert exact.Enclosure.around(math.inf, 1.0, 0.5) == exact.Enclosure(math.inf, math.inf)
    assert exact.Enclosure.around(-math.inf, 1.0) == exact.Enclosure(-math.inf, -math.inf)


def test_enclosure_scale_multiplies_finite_ends_exactly_and_keeps_infinite_ones():
    """Scaling by a positive rational multiplies finite end points exactly and leaves infinite ones infinite,
    even for rationals beyond the float range (10^400 overflows a float, 10^-400 underflows to 0.0, and
    inf * 0.0 would be NaN)."""
    assert exact.Enclosure(Fraction(1, 3), Fraction(1, 2)).scale(Fraction(3)) == exact.Enclosure(1, Fraction(3, 2))
    big, tiny = Fraction(10**400), Fraction(1, 10**400)
    assert exact.Enclosure(-math.inf, 2).scale(big) == exact.Enclosure(-math.inf, 2 * big)
    assert exact.Enclosure(2, math.inf).scale(tiny) == exact.Enclosure(2 * tiny, math.inf)
    assert exact.Enclosure(-math.inf, math.inf).scale(tiny) == exact.Enclosure(-math.inf, math.inf)


def test_enclosure_floats_round_outward_to_the_neighbouring_floats():
    """floats() gives the largest float <= lo and the smallest float >= hi: for 1 -+ 2^-60 (which round to 1.0)
    the floats next to 1.0, for end points that are floats those floats themselves."""
    one = Fraction(1)
    tiny = Fraction(1, 2**60)
    assert exact.Enclosure(one - tiny, one + tiny).floats() == (math.nextafter(1.0, 0.0), math.nextafter(1.0, 2.0))
    assert exact.Enclosure(Fraction(0.1), one).floats() == (0.1, 1.0)
    for x in (Fraction(1, 3), Fraction(2, 3), Fraction(-1, 3)):
        lo, hi = exact.Enclosure(x, x).floats()
        assert Fraction(lo) <= x <= Fraction(hi) and lo < hi
        assert Fraction(math.nextafter(lo, math.inf)) > x and Fraction(math.nextafter(hi, -math.inf)) < x


def test_enclosure_from_an_mpmath_interval_keeps_infinities_and_refuses_nan():
    """An mpmath interval's end points convert exactly (infinities included, -inf staying -inf), and an
    interval with NaN end points is an error with its message, not an enclosure."""
    assert exact.Enclosure.from_interval(iv.mpf(["-inf", 0.25])) == exact.Enclosure(-math.inf, Fraction(1, 4))
    assert exact.Enclosure.from_interval(iv.mpf([-0.5, "inf"])) == exact.Enclosure(Fraction(-1, 2), math.inf)
    with pytest.raises(ArithmeticError) as info:
        exact.Enclosure.from_interval(iv.make_mpf((libmp.fnan, libmp.fnan)))
    assert str(info.value) == "NaN in an interval computation"


def test_an_enclosure_holds_its_ends_as_exact_numbers_and_refuses_an_empty_one():
    """An enclosure's ends are exact rationals (or infinities), whatever they were given as: a float end is
    read as the exact rational it stands for, so sums and comparisons of ends never round. lo > hi is no
    enclosure at all, and the error names both ends; a NaN end is refused by name."""
    e = exact.Enclosure(0.1, 1)
    assert type(e.lo) is Fraction and e.lo == Fraction(0.1)
    assert type(e.hi) is Fraction and e.hi == 1
    assert exact.Enclosure(-math.inf, 0.5).lo == -math.inf
    with pytest.raises(ArithmeticError) as raised:
        exact.Enclosure(2.0, 1)
    assert str(raised.value) == "empty enclosure [2.0, 1.0]"
    with pytest.raises(ValueError) as raised:
        exact.Enclosure(math.nan, 1)
    assert str(raised.value) == "an enclosure end point cannot be NaN"


def test_enclosures_add_exactly_and_an_infinite_end_absorbs_any_finite_one():
    """Adding enclosures adds their ends exactly. An infinite end stays infinite whatever finite end is
    added to it, even one too large for a float (10^400: turning it into a float to add would overflow);
    two infinite ends of one sign add to that infinity; of opposite signs (inf - inf) they have no sum,
    and the addition refuses with that message rather than return a NaN end."""
    huge = Fraction(10**400)
    total = exact.Enclosure(Fraction(1, 3), math.inf) + exact.Enclosure(huge, huge)
    assert total.lo == Fraction(1, 3) + huge and total.hi == math.inf
    total = exact.Enclosure(-math.inf, 1) + exact.Enclosure(-huge, 2)
    assert total.lo == -math.inf and total.hi == 3
    total = exact.Enclosure(0, math.inf) + exact.Enclosure(0, math.inf)
    assert total.lo == 0 and total.hi == math.inf
    with pytest.raises(ArithmeticError) as raised:
        exact.Enclosure(-math.inf, 0) + exact.Enclosure(math.inf, math.inf)
    assert str(raised.value) == "inf - inf in an enclosure"


# -- DP-SE (its decisions through the policy's blocks) ---------------------------------------------------------

def _difference_cdf(x: float, scale: float) -> float:
    """P[L0 - L1 <= x] for two independent Lap(scale) draws, x <= 0: (1/2)(1 + |x|/(2 scale)) e^(-|x|/scale)
    (written out here, apart from dpaudit's LaplaceSum)."""
    return 0.5 * (1 + abs(x) / (2 * scale)) * math.exp(-abs(x) / scale)


def test_dp_se_decisions_eliminate_at_the_laplace_rates_and_lose_0_778_on_the_pair():
    """Arm 0 goes after epoch 1 when the noises' difference is below k - 61.02 (k = 59 on one table, 58 on its
    neighbour): binomial tests of 40,000 runs per table at level 1e-6 each; the pair's loss is 0.778 < 1, the
    entry's comment. Halving the per-arm noise (the noise sweep's dp-se/arm-sums-draw) would make it 1.71."""
    e = entry("classic/dp-se-decisions-eps1-blackbox")
    stage = classic.DP_SE_EPOCH
    threshold = 2 * (stage.h + stage.c) * stage.pulls
    assert round(threshold, 2) == 61.02
    rates = []
    for table, k in zip(e.pairs[0], (59, 58), strict=True):
        assert table[:, 1].sum() == k and table[:, 0].sum() == 0
        p = _difference_cdf(k - threshold, 1.0)
        decided = e.subject.sample(table, 40_000, np.random.default_rng(k)).ravel()
        assert stats.binomtest(int((decided == 1).sum()), decided.size, p).pvalue > P_MIN
        rates.append(p)
    assert math.log(rates[0] / rates[1]) == pytest.approx(0.778, abs=1e-3)
    halved = [_difference_cdf(k - threshold, 0.5) for k in (59, 58)]
    assert math.log(halved[0] / halved[1]) == pytest.approx(1.71, abs=1e-2)


def test_dist_mabs_shared_noise_dp_se_decides_as_the_non_private_rule():
    e = entry("classic/dp-se-shared-noise-decisions-eps1-blackbox")
    first, second = e.pairs[0]
    assert (first[:, 1].sum(), second[:, 1].sum()) == (62, 61)
    assert (e.subject.sample(first, 500, np.random.default_rng(0)) == 1).all()
    assert (e.subject.sample(second, 500, np.random.default_rng(0)) == 0).all()
