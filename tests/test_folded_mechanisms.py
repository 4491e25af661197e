"""The folded Laplace and folded geometric laws (diffprivlib's LaplaceFolded, GeometricFolded) and the discrete
Gaussian's delta: their exact laws against brute-force sums over the reflected images, the exact privacy
loss and delta(eps) of the folded Laplace (dpaudit.exact.folded) against a dense grid and mpmath quadrature of
the brute-force densities, and the samplers (dpaudit's own and diffprivlib's) against the laws.

Goodness-of-fit tests are seeded and pass at p > 1e-6 (P_MIN): a correct sampler fails one with probability
below 1e-6."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpaudit import exact
from dpaudit.core.errors import UnsupportedAudit
from dpaudit.core.folded_laplace import FoldedLaplaceDistribution, fold
from dpaudit.exact import folded
from dpaudit.exact.loglinear import interval_ctx, rational
from dpaudit.mechanisms import FoldedGeometricMechanism, FoldedLaplaceMechanism

P_MIN = 1e-6


def _mp(v):
    """A number as an mpmath number, exactly (mpmath's own numbers pass through)."""
    if isinstance(v, mpmath.mpf):
        return v
    v = Fraction(v)
    return mpmath.mpf(v.numerator) / v.denominator


def _images_density(y, q, b, lower, upper):
    """The folded density at y by brute force: the Laplace(q, b) density summed over the images y + 2kW and
    2 lower - y + 2kW, |k| <= K (the rest is below e^{-2 K W / b} < 1e-24 relative), in 40-digit mpmath."""
    terms = max(3, math.ceil(28 * float(b) / (float(upper) - float(lower))))
    with mpmath.workdps(40):
        y, q, b, lo, w = (_mp(v) for v in (y, q, b, lower, Fraction(upper) - Fraction(lower)))
        total = mpmath.mpf(0)
        for k in range(-terms, terms + 1):
            for image in (y + 2 * k * w, 2 * lo - y + 2 * k * w):
                total += mpmath.exp(-abs(image - q) / b) / (2 * b)
        return total


CASES = [(0.0, 1.0, 0.0, 2.0), (0.3, 1.0, 0.0, 2.0), (1.0, 0.5, -1.0, 3.0), (2.0, 1.0, 0.0, 2.0),
         (0.7, 4.0, 0.0, 1.5)]


@pytest.mark.slow
@pytest.mark.parametrize("q, b, lower, upper", CASES)
def test_the_folded_laplace_density_is_the_sum_over_the_images_and_its_cdf_integrates_it(q, b, lower, upper):
    d = FoldedLaplaceDistribution.build(q, b, lower, upper)
    ys = np.linspace(lower, upper, 9)
    brute = np.array([float(_images_density(y, q, b, lower, upper)) for y in ys])
    np.testing.assert_allclose(d.pdf(ys), brute, rtol=1e-13)
    # the exact pieces (a e^z + d e^-z, in intervals) give the same density
    ctx = interval_ctx()
    for z0, z1, a, dd in d.pieces(ctx):
        for z in (z0, (z0 + z1) / 2, z1):
            y = lower + b * float(z)
            value = (a * ctx.exp(ctx.mpf(float(z))) + dd * ctx.exp(-ctx.mpf(float(z)))) / b
            assert float(value.a) == pytest.approx(float(_images_density(y, q, b, lower, upper)), rel=1e-14)
    # the cdf integrates the density; total mass 1
    for y in (lower + 0.25 * (upper - lower), q, upper):
        mass = mpmath.quad(lambda t: _images_density(t, q, b, lower, upper), [lower, q, y] if lower < q < y
                           else [lower, y])
        assert float(d.cdf(y)) == pytest.approx(float(mass), abs=1e-13)
    assert d.cdf(upper) == 1.0 and d.cdf(lower - 1) == 0.0


def test_a_centre_outside_the_range_is_folded_first():
    """The law at q is the law at F(q) (F is invariant under both reflections, the noise symmetric)."""
    assert fold(Fraction(-7, 10), Fraction(0), Fraction(2)) == Fraction(7, 10)
    assert fold(Fraction(52, 10), Fraction(0), Fraction(2)) == Fraction(12, 10)
    far = FoldedLaplaceDistribution.build(5.2, 1.0, 0.0, 2.0)
    ys = np.linspace(0, 2, 5)
    brute = [float(_images_density(y, 5.2, 1.0, 0.0, 2.0)) for y in ys]
    np.testing.assert_allclose(far.pdf(ys), brute, rtol=1e-12)


PAIRS = [((0.0, 1.0), 1.0, 0.0, 2.0), ((1.0, 2.0), 1.0, 0.0, 2.0), ((0.0, 2.0), 1.0, 0.0, 2.0),
         ((0.5, 1.5), 1.0, 0.0, 2.0), ((0.2, 0.9), 0.3, -1.0, 1.0), ((1.0, 1.25), 2.0, 1.0, 1.5)]


@pytest.mark.parametrize("pair, b, lower, upper", PAIRS)
def test_the_exact_folded_loss_is_the_extreme_of_a_dense_grid_of_the_brute_force_density_ratio(pair, b, lower,
                                                                                              upper):
    """sup and inf of log p/q from the exact module contain the extremes of the brute-force ratio over a 2001-point
    grid that includes the break points (where the module says they are), and no grid point exceeds them."""
    p, q = (FoldedLaplaceDistribution.build(c, b, lower, upper) for c in pair)
    loss = folded.loss_range(p, q)
    grid = np.unique(np.concatenate([np.linspace(lower, upper, 2001), [float(p.centre), float(q.centre)]]))
    ratio = np.log(p.pdf(grid)) - np.log(q.pdf(grid))  # floats, but the pdf matches the image sums to 1e-13
    top, bottom = ratio.max(), ratio.min()
    assert float(loss.sup.lo) - 1e-12 <= top <= float(loss.sup.hi) + 1e-12
    assert float(loss.inf.lo) - 1e-12 <= bottom <= float(loss.inf.hi) + 1e-12
    assert loss.sup.hi - loss.sup.lo < 1e-60 and loss.inf.hi - loss.inf.lo < 1e-60
    # the end points the module names are outputs (in the range: the folded density is symmetric about its ends, so
    # the ratio alone would not tell y from its mirror image) where the brute-force ratio is largest and smallest
    assert all(lower <= at <= upper for at in (loss.sup_at, loss.inf_at))
    with mpmath.workdps(40):
        for at, end in ((loss.sup_at, loss.sup), (loss.inf_at, loss.inf)):
            brute = mpmath.log(_images_density(at, pair[0], b, lower, upper)
                               / _images_density(at, pair[1], b, lower, upper))
            assert abs(brute - _mp(end.lo)) < 1e-20


#: PAIRS' 0, 3 and 4, and 3 and 4 with the centres swapped: p - e^eps q then grows across a cut's sign change, so
#: the positive part lies right of the root (in the pairs as listed it always lies left of it)
HOCKEY_PAIRS = [PAIRS[0], PAIRS[3], PAIRS[4], ((1.5, 0.5), 1.0, 0.0, 2.0), ((0.9, 0.2), 0.3, -1.0, 1.0)]


@pytest.mark.slow
@pytest.mark.parametrize("pair, b, lower, upper", HOCKEY_PAIRS)
@pytest.mark.parametrize("eps", [0.0, 0.5])
def test_the_folded_hockey_stick_is_the_quadrature_of_the_brute_force_densities(pair, b, lower, upper, eps):
    """delta(eps) = the integral of (p - e^eps q)_+, by mpmath quadrature of the image sums, split at the
    break points and at the sign change (found by bisection on the brute-force difference); the enclosure is
    within 1e-20 of it and contains it."""
    p, q = (FoldedLaplaceDistribution.build(c, b, lower, upper) for c in pair)
    delta = folded.hockey_stick(p, q, eps)
    with mpmath.workdps(40):
        factor = mpmath.exp(eps)

        def diff(y):
            return _images_density(y, pair[0], b, lower, upper) - factor * _images_density(y, pair[1], b, lower,
                                                                                            upper)

        points = sorted({lower, upper, *(float(c) for c in (p.centre, q.centre))})
        cuts = []
        for left, right in zip(points, points[1:]):
            cuts.append(left)
            if diff(left) * diff(right) < 0:
                cuts.append(mpmath.findroot(diff, (left, right), solver="bisect"))
        cuts.append(upper)
        reference = mpmath.fsum(max(mpmath.quad(diff, [x0, x1]), 0) for x0, x1 in zip(cuts, cuts[1:]))
        assert _mp(delta.lo) - 1e-20 <= reference <= _mp(delta.hi) + 1e-20
    assert delta.hi - delta.lo < 1e-20


def _closed_form(a, d, z0, z1):
    """The integral of e^{-z} (a e^{2z} + d) = a e^z + d e^{-z} over [z0, z1] (at the caller's mpmath precision)."""
    return a * (mpmath.exp(z1) - mpmath.exp(z0)) - d * (mpmath.exp(-z1) - mpmath.exp(-z0))


@pytest.mark.parametrize("a, d, case", [
    (1, 1, "positive at both ends"), (-1, -1, "negative at both ends"), (-1, 3, "a root, positive on its left"),
    (1, -3, "a root, positive on its right"), (-4, 5, "a root, the left end exactly 1"),
    (1, -1, "zero at the left end, positive after"),
    (-1, 1, "zero at the left end, negative after")])
def test_the_positive_part_of_a_cut_is_its_closed_form_on_each_branch(a, d, case):
    """The integral over [0, 1] of e^{-z} (A e^{2z} + D)_+ for exact A and D on each branch of the module's case
    split: the closed form a e^z + d e^{-z} integrated over where A u + D > 0 (the root at z = log(-D/A) / 2),
    enclosed within 1e-40 and containing the closed form at 120 digits (every branch but the undecided one is
    exact up to the interval arithmetic). An end value of exactly 0 is decided (0 is not positive, and not a sign
    change). Deterministic."""
    ctx = interval_ctx()
    part = folded._positive_part(ctx, rational(ctx, Fraction(a)), rational(ctx, Fraction(d)), Fraction(0),
                                 Fraction(1))
    with mpmath.workdps(120):  # beyond the enclosure's 256 bits (77 digits)
        positive = [z for z in (0, 1) if a * mpmath.exp(2 * z) + d > 0]
        if a * d < 0 and 0 < mpmath.log(-mpmath.mpf(d) / a) / 2 < 1:
            root = mpmath.log(-mpmath.mpf(d) / a) / 2
            truth = _closed_form(a, d, 0, root) if positive == [0] else _closed_form(a, d, root, 1)
        else:
            truth = _closed_form(a, d, 0, 1) if a + d >= 0 and a * mpmath.e**2 + d >= 0 else mpmath.mpf(0)
        assert _mp(part.lo) <= truth <= _mp(part.hi), (case, part, truth)
    assert part.hi - part.lo < 1e-40, case
    assert (truth > 0.01) == (case not in ("negative at both ends", "zero at the left end, negative after"))


def test_an_undecided_end_is_bounded_by_the_largest_end_value_times_the_mass_of_e_to_the_minus_z():
    """The crude bound of an undecided cut, as the module docstring states it: below by max(0, the integral of
    A e^z + D e^{-z}), above by the largest end value of (A u + D)_+ times the integral of e^{-z} over the cut.
    A in [-1.001, -0.999], D = 1 over [0, 1]: A + D straddles 0 at z = 0, and at z = 1 it is about 1 - e^2 < 0.
    The upper end is 0.001 (the largest end value) times 1 - 1/e, to 1e-12; the lower end 0 (the integral is
    negative). Deterministic."""
    ctx = interval_ctx()
    a = ctx.mpf([rational(ctx, Fraction(-1001, 1000)).a, rational(ctx, Fraction(-999, 1000)).b])
    part = folded._positive_part(ctx, a, rational(ctx, Fraction(1)), Fraction(0), Fraction(1))
    assert part.lo == 0
    assert float(part.hi) == pytest.approx(0.001 * (1 - math.exp(-1)), rel=1e-12, abs=0)
    # the same on [1/2, 1] with D = e: A e^{2z} + D = e (A + 1) straddles 0 at z = 1/2; the largest end value is
    # 0.001 e, the mass of e^{-z} over the cut e^{-1/2} - e^{-1}
    part = folded._positive_part(ctx, a, ctx.exp(rational(ctx, Fraction(1))), Fraction(1, 2), Fraction(1))
    assert part.lo == 0
    assert float(part.hi) == pytest.approx(0.001 * math.e * (math.exp(-0.5) - math.exp(-1)), rel=1e-9, abs=0)


def test_an_undecided_sign_is_bounded_rigorously():
    """The fallback of the hockey stick's positive part, when the sign of A u + D at a cut end cannot be decided
    (a tie at the audited eps): for A and D at every corner of their intervals the true integral of e^{-z}
    (A e^{2z} + D)_+ over [0, 1] lies in the enclosure. Here A u + D decreases in u, straddles 0 at u = 1 and is
    negative at u = e^2: the positive part sits on the left of the cut (0.536 at the corner A = -1, D = 3), so
    taking the root branch's right side (or dropping the case) would miss it."""
    ctx = interval_ctx()

    def between(lo, hi):
        return ctx.mpf([rational(ctx, Fraction(lo)).a, rational(ctx, Fraction(hi)).b])

    part = folded._positive_part(ctx, between(-2, -1), between(Fraction(1, 2), 3), Fraction(0), Fraction(1))
    values = []
    with mpmath.workdps(40):
        for a in (-2, -1):
            for d in (mpmath.mpf(1) / 2, 3):
                root = [0, 1] if a + d <= 0 else [0, min(1, mpmath.log(-d / a) / 2), 1]
                value = mpmath.quad(lambda z, a=a, d=d: mpmath.exp(-z) * max(a * mpmath.exp(2 * z) + d, 0), root)
                values.append(value)
                assert _mp(part.lo) <= value <= _mp(part.hi), (a, d, part, value)
    assert max(values) > 0.5


@pytest.mark.parametrize("pair", [(0.0, 1.0), (0.5, 1.5)])
def test_pure_epsilon_and_delta_dispatch_to_the_folded_analysis(pair):
    m = FoldedLaplaceMechanism(1.0, lower=0.0, upper=2.0)
    p, q = m.distribution(pair[0]), m.distribution(pair[1])
    assert exact.pure_epsilon(p, q).epsilon == exact.pure_epsilon_of(folded.loss_range(p, q)).epsilon
    assert exact.privacy_profile(p, q, 0.3).delta == folded.hockey_stick(p, q, 0.3)
    assert exact.renyi_divergence(p, q, math.inf) == folded.renyi(p, q, math.inf)
    with pytest.raises(UnsupportedAudit, match=r"^Renyi divergences of folded Laplace laws are not computed exactly "
                       r"\(no closed form for the integral of a power of a sum of exponentials\); audit pure or "
                       r"approximate DP$"):
        exact.renyi_divergence(p, q, 2.0)


def test_laws_of_two_scales_or_ranges_are_not_compared():
    """Only one scale and one range: anything else is an unsupported audit that says so, for the loss and delta."""
    p = FoldedLaplaceDistribution.build(0.0, 1.0, 0.0, 2.0)
    others = (FoldedLaplaceDistribution.build(0.0, 2.0, 0.0, 2.0), FoldedLaplaceDistribution.build(0.0, 1.0, 0.0, 3.0))
    message = r"^folded Laplace laws are compared exactly only at one scale and one range, got "
    for q in others:
        with pytest.raises(UnsupportedAudit, match=message):
            folded.loss_range(p, q)
        with pytest.raises(UnsupportedAudit, match=message):
            folded.hockey_stick(p, q, 0.5)


def test_the_infinite_order_divergence_is_the_loss_supremum_where_it_is_small():
    """D_inf = sup log p/q, here 0.14 (two close centres, a wide scale): the enclosure is the loss supremum's, not
    raised to 1 or cut at 0. The point where the loss is smallest is where the brute-force ratio is (its location
    as the module reports it). Deterministic."""
    p, q = (FoldedLaplaceDistribution.build(c, 2.0, 0.0, 2.0) for c in (0.5, 1.0))
    loss = folded.loss_range(p, q)
    d_inf = folded.renyi(p, q, math.inf)
    assert 0.1 < float(d_inf.lo) <= float(d_inf.hi) < 0.2 and d_inf == loss.sup
    with mpmath.workdps(40):
        brute = mpmath.log(_images_density(loss.inf_at, 0.5, 2.0, 0.0, 2.0)
                           / _images_density(loss.inf_at, 1.0, 2.0, 0.0, 2.0))
        assert abs(brute - _mp(loss.inf.lo)) < 1e-20


def test_one_hockey_stick_on_the_fast_tier_is_its_quadrature():
    """The slow tier's quadrature check for one pair whose positive parts lie right of the sign change (centres
    1.5 and 0.5 on [0, 2], scale 1, eps 0.5), at 20 digits: contained within 1e-15, enclosed within 1e-20."""
    pair, b, lower, upper, eps = (1.5, 0.5), 1.0, 0.0, 2.0, 0.5
    p, q = (FoldedLaplaceDistribution.build(c, b, lower, upper) for c in pair)
    delta = folded.hockey_stick(p, q, eps)
    with mpmath.workdps(20):
        def diff(y):
            return _images_density(y, pair[0], b, lower, upper) - mpmath.exp(eps) * _images_density(y, pair[1], b,
                                                                                                      lower, upper)
        root = mpmath.findroot(diff, (1.0, 1.5), solver="bisect")  # p < e^eps q left of it, > right of it
        reference = mpmath.quad(diff, [root, 1.5, upper])
        assert 0.05 < reference and _mp(delta.lo) - 1e-15 <= reference <= _mp(delta.hi) + 1e-15
    assert delta.hi - delta.lo < 1e-20


def test_folding_stays_below_the_unfolded_epsilon():
    """Post-processing: every adjacent pair of answers has loss at most sensitivity / scale (0.8912 at the bounds
    of [0, 2], 0.7353 in the middle, for scale 1)."""
    m = FoldedLaplaceMechanism(1.0, lower=0.0, upper=2.0)
    values = [float(exact.pure_epsilon(m.distribution(q), m.distribution(q + 1)).epsilon.hi)
              for q in np.linspace(0, 1, 11)]
    assert max(values) < 1 and values[0] == pytest.approx(0.8912219168748372, abs=1e-15)
    assert min(values) == pytest.approx(0.7353256640555192, abs=1e-15)


@pytest.mark.parametrize("q", [0.0, 0.4, 2.0, -0.7])
def test_the_folded_laplace_sampler_follows_its_law(q):
    """Kolmogorov-Smirnov, 50,000 draws, p > 1e-6."""
    m = FoldedLaplaceMechanism(1.0, lower=0.0, upper=2.0)
    x = m.sample(q, 50_000, np.random.default_rng(5))
    assert x.min() >= 0.0 and x.max() <= 2.0
    assert stats.kstest(x, m.distribution(q).cdf).pvalue > P_MIN


def test_diffprivlibs_laplace_folded_follows_the_law():
    """diffprivlib's own sampler (one Python call per draw: 20,000 draws) against the law, KS p > 1e-6."""
    mechanisms = pytest.importorskip("diffprivlib.mechanisms", reason="diffprivlib is not installed")
    mech = mechanisms.LaplaceFolded(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0,
                                    random_state=np.random.RandomState(7))
    x = np.array([mech.randomise(0.3) for _ in range(20_000)])
    law = FoldedLaplaceMechanism(1.0, lower=0.0, upper=2.0).distribution(0.3)
    assert stats.kstest(x, law.cdf).pvalue > P_MIN
    # power: the same draws against the law at the wrong centre (0.5) are rejected
    assert stats.kstest(x, FoldedLaplaceMechanism(1.0, lower=0.0, upper=2.0).distribution(0.5).cdf).pvalue < P_MIN


# -- folded geometric ------------------------------------------------------------------------------------------

def _folded_geometric_brute(q, a, lower, upper, reach=400):
    """P[F(q + Z) = j] by summing the two-sided geometric pmf over q + z, |z| <= reach, each folded (mpmath)."""
    with mpmath.workdps(40):
        a = mpmath.mpf(Fraction(a).numerator) / Fraction(a).denominator
        c = (1 - a) / (1 + a)
        out = {}
        for z in range(-reach, reach + 1):
            j = int(fold(Fraction(q + z), Fraction(lower), Fraction(upper)))
            out[j] = out.get(j, 0) + c * a ** abs(z)
        return out


@pytest.mark.parametrize("q, lower, upper, eps", [(0, 0, 5, 1.0), (3, 0, 5, 0.3), (0, -0.5, 3.5, 0.5),
                                                  (7, 0, 5, 1.0), (2, 1, 2, 2.0)])
def test_the_folded_geometric_law_is_the_brute_force_sum(q, lower, upper, eps):
    m = FoldedGeometricMechanism(eps, lower, upper)
    law = m.distribution(q)
    brute = _folded_geometric_brute(q, math.exp(-eps), lower, upper)
    assert sorted(brute) == law.outcomes.tolist()
    np.testing.assert_allclose(np.exp(law.log_probs), [float(brute[j]) for j in sorted(brute)], rtol=1e-13)


@pytest.mark.slow
def test_the_folded_geometric_samplers_follow_the_law():
    """dpaudit's (100,000 draws) and diffprivlib's (20,000) against the law: chi-square, p > 1e-6; the outputs
    have at least 60 expected counts per cell."""
    m = FoldedGeometricMechanism(1.0, 0, 5)
    law = np.exp(m.distribution(1).log_probs)
    ours = m.sample(1, 100_000, np.random.default_rng(2))
    assert stats.chisquare(np.bincount(ours, minlength=6), law * 100_000).pvalue > P_MIN
    mechanisms = pytest.importorskip("diffprivlib.mechanisms", reason="diffprivlib is not installed")
    lib = mechanisms.GeometricFolded(epsilon=1.0, sensitivity=1, lower=0, upper=5,
                                     random_state=np.random.RandomState(4))
    theirs = np.array([lib.randomise(1) for _ in range(20_000)])
    assert stats.chisquare(np.bincount(theirs, minlength=6), law * 20_000).pvalue > P_MIN


# -- discrete Gaussian -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sigma", [3.0, 0.8])
def test_the_discrete_gaussian_truth_is_cks_theorem_7_and_the_exact_profile(sigma):
    """The classic suite's truth for the discrete Gaussian entries (CKS Theorem 7 from the law's tail sums) and
    the exact profile of dpaudit's N-query discrete Gaussian, against the sum over the integers in mpmath."""
    from dpaudit.audits.classic import _discrete_gaussian_delta
    from dpaudit.mechanisms.distributed.distributed_sum import IntegerQueryNoise

    with mpmath.workdps(40):
        s = mpmath.mpf(sigma)
        w = {k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s * s)) for k in range(-200, 201)}
        z = mpmath.fsum(w.values())
        reference = mpmath.fsum(max(w[k] - mpmath.exp(mpmath.mpf(0.5)) * w.get(k - 1, 0), 0) for k in w) / z
    assert _discrete_gaussian_delta(sigma, 0.5) == pytest.approx(float(reference), rel=1e-9)
    m = IntegerQueryNoise.discrete_gaussian(sigma, 1)
    profile = exact.privacy_profile(m.distribution(0), m.distribution(1), 0.5)
    assert float(profile.delta.lo) * (1 - 1e-9) <= reference <= float(profile.delta.hi) * (1 + 1e-9)
