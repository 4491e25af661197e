"""Piecewise-exponential laws (clamped and bounded-domain Laplace, the staircase) and their exact privacy.

The exact quantities are checked against direct numerical integration of the floats the laws also
give (deterministic, to the grid's accuracy), and against what the mechanisms' docstrings derive. The
sampler checks are conformance audits at alpha = 1e-6 with fixed seeds (each fails a correct sampler
with probability at most 1e-6 over seeds; with the seeds fixed, the verdicts are fixed)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.integrate import quad

import dpaudit
from dpaudit import exact
from dpaudit.core.distributions import FiniteDistribution, LogConstant
from dpaudit.core.errors import MechanismError, UnsupportedAudit
from dpaudit.core.piecewise_exponential import PiecewiseExponentialDistribution
from dpaudit.exact import finite
from dpaudit.exact.enclosure import Enclosure
from dpaudit.mechanisms import BoundedDomainLaplaceMechanism, ClampedLaplaceMechanism, StaircaseMechanism
from dpaudit.mechanisms.noise import Staircase


def law(dist):
    return dist.exact_distribution() if hasattr(dist, "exact_distribution") else dist


def numeric(p, q, lo, hi, eps, alpha, n=2_000_001):
    """delta(eps) and D_alpha(P || Q) by the trapezoid rule on [lo, hi], plus the atoms."""
    p, q = law(p), law(q)
    x = np.linspace(lo, hi, n)
    fp, fq = np.exp(p.log_density(x)), np.exp(q.log_density(x))
    delta = np.trapezoid(np.maximum(fp - math.exp(eps) * fq, 0), x)
    with np.errstate(divide="ignore", invalid="ignore"):
        renyi = np.trapezoid(np.where(fp > 0, fp**alpha * fq ** (1 - alpha), 0), x)
    q_atoms = dict(q.point_masses)
    for at, mass in p.point_masses:
        delta += max(mass - math.exp(eps) * q_atoms.get(at, 0.0), 0.0)
        renyi += mass**alpha * q_atoms.get(at, 0.0) ** (1 - alpha)
    return delta, math.log(renyi) / (alpha - 1)


CASES = [
    ("staircase, one step apart", StaircaseMechanism(1.0), 0.0, 1.0, (-40, 41)),
    ("staircase, half a step", StaircaseMechanism(1.0), 0.0, 0.5, (-40, 41)),
    ("staircase, gamma 0.3, off the grid", StaircaseMechanism(0.7, 2.0, gamma=0.3), 0.25, 1.9, (-90, 92)),
    ("clamped, at the lower bound", ClampedLaplaceMechanism(1.0, 0.0, 5.0), 0.0, 1.0, (0, 5)),
    ("clamped, inside", ClampedLaplaceMechanism(0.5, 0.0, 5.0), 2.0, 3.0, (0, 5)),
    ("clamped, both inputs below the range", ClampedLaplaceMechanism(1.0, 0.0, 5.0), -3.0, -2.0, (0, 5)),
    ("bounded domain, at a bound", BoundedDomainLaplaceMechanism(1.5889, 0.0, 5.0), 0.0, 1.0, (0, 5)),
    ("bounded domain, inside", BoundedDomainLaplaceMechanism(1.5889, 0.0, 5.0), 2.0, 3.0, (0, 5)),
]


@pytest.mark.parametrize(("label", "mech", "d0", "d1", "window"), CASES, ids=[c[0] for c in CASES])
def test_delta_and_renyi_match_numerical_integration(label, mech, d0, d1, window):
    p, q = mech.distribution(d0), mech.distribution(d1)
    delta = exact.privacy_profile(p, q, 0.4).delta
    renyi = exact.renyi_divergence(p, q, 2.5)
    assert float(delta.hi - delta.lo) < 1e-15 and float(renyi.hi - renyi.lo) < 1e-15
    want_delta, want_renyi = numeric(p, q, *window, 0.4, 2.5)
    assert float(delta.lo) == pytest.approx(want_delta, abs=2e-5)
    assert float(renyi.lo) == pytest.approx(want_renyi, rel=1e-4, abs=1e-6)


def test_the_staircase_is_exactly_epsilon_dp_for_every_gamma():
    """A shift of one step maps each step onto the next, e^-eps lower: the loss is exactly eps."""
    for gamma in (0.0, 0.2, None, 1.0):
        mech = StaircaseMechanism(0.8, 1.5, gamma=gamma)
        for d0, d1 in ((0.0, 1.5), (0.0, 0.6), (3.0, 1.5)):
            eps = exact.pure_epsilon(mech.distribution(d0), mech.distribution(d1)).epsilon
            assert eps.hi <= Fraction(0.8)
        assert exact.pure_epsilon(mech.distribution(0.0), mech.distribution(1.5)).epsilon.lo == Fraction(0.8)
    # two steps apart: twice eps, exactly
    mech = StaircaseMechanism(0.8, 1.5)
    assert exact.pure_epsilon(mech.distribution(0.0), mech.distribution(3.0)).epsilon.lo == 2 * Fraction(0.8)


def test_the_clamped_laplace_is_exactly_epsilon_dp_through_its_atoms():
    mech = ClampedLaplaceMechanism(1.0, 0.0, 5.0)
    loss = exact.pure_epsilon(mech.distribution(2.0), mech.distribution(3.0))
    assert loss.epsilon.lo == loss.epsilon.hi == 1
    verified = dpaudit.audit_privacy(mech, dpaudit.PureDP(1.0), pairs=[(0, 1), (2, 3), (4, 5)], auditor="exact")
    assert verified.verdict == "verified"


def test_the_bounded_domain_laplace_loses_more_than_its_scale_says():
    """epsilon = sensitivity / b + log of the largest normaliser ratio (Holohan et al.): with b from the
    library's equation for epsilon = 1, the exact loss at a bound is 1 to rounding, not 1 / b."""
    diam, b = 5.0, 1.5889381066059731  # diffprivlib's LaplaceBoundedDomain(epsilon=1, sensitivity=1) on [0, 5]
    mech = BoundedDomainLaplaceMechanism(b, 0.0, diam)
    ratio = (2 - math.exp(-1 / b) - math.exp(-(diam - 1) / b)) / (1 - math.exp(-diam / b))
    eps = exact.pure_epsilon(mech.distribution(0.0), mech.distribution(1.0)).epsilon
    assert float(eps.lo) == pytest.approx(1 / b + math.log(ratio), rel=1e-12)
    assert float(eps.lo) == pytest.approx(1.0, abs=1e-9)
    # a scale 1% narrower is refuted exactly
    narrow = BoundedDomainLaplaceMechanism(0.99 * b, 0.0, diam)
    assert dpaudit.audit_privacy(narrow, dpaudit.PureDP(1.0), pairs=[(0.0, 1.0)]).verdict == "refuted"


@pytest.mark.parametrize("scale, lower, upper, sensitivity", [
    (1.0, 0.0, 2.0, 1.0), (0.7, 0.0, 1.0, 0.8), (2.0, -1.0, 3.0, 0.5), (1.0, 0.0, 1.0, 3.0)])
def test_the_bounded_domain_true_epsilon_is_the_largest_exact_loss_over_answers_within_the_sensitivity(
        scale, lower, upper, sensitivity):
    """true_epsilon's formula (answers lower and lower + d, d = min(sensitivity, range)) against the exact
    auditor's pure epsilon over a grid of answer pairs within the sensitivity, both orders: no pair exceeds it
    and the formula's pair attains it (to 1e-12); sensitivities below, above half and above the whole range."""
    mech = BoundedDomainLaplaceMechanism(scale, lower, upper)
    d = min(sensitivity, upper - lower)
    pairs = [(q, min(q + t, upper)) for q in np.linspace(lower, upper, 9) for t in (0.25 * d, 0.5 * d, d)]
    pairs.append((lower, lower + d))
    losses = [float(exact.pure_epsilon(mech.distribution(a), mech.distribution(b)).epsilon.hi)
              for a, b in pairs if a != b]
    formula = mech.true_epsilon(sensitivity)
    assert max(losses) <= formula + 1e-12
    assert losses[-1] == pytest.approx(formula, abs=1e-12)


def test_the_bounded_domain_calibration_is_the_librarys_and_gives_the_epsilon_asked_for():
    """calibrated(eps, ...) solves true_epsilon = eps: diffprivlib's scales for eps = 1 on [0, 5] and [0, 2]
    (its LaplaceBoundedDomain._find_scale, recorded), and eps itself back, also where the sensitivity exceeds
    the range (d = the range, where the normalisers are equal and the scale is d / eps unwidened)."""
    assert float(BoundedDomainLaplaceMechanism.calibrated(1.0, 0.0, 5.0).scale) == pytest.approx(
        1.5889381066059731, rel=1e-12)
    assert float(BoundedDomainLaplaceMechanism.calibrated(1.0, 0.0, 2.0).scale) == pytest.approx(
        1.4133426977378734, rel=1e-12)
    for eps, lower, upper, sensitivity in [(0.3, 0.0, 10.0, 1.0), (2.0, -1.0, 1.0, 1.5), (1.0, 0.0, 1.0, 4.0)]:
        mech = BoundedDomainLaplaceMechanism.calibrated(eps, lower, upper, sensitivity)
        assert mech.true_epsilon(sensitivity) == pytest.approx(eps, abs=1e-12)
        d = min(sensitivity, upper - lower)
        # widened where the normalisers differ; answers a whole range apart have equal normalisers (b = d / eps)
        assert float(mech.scale) > d / eps if d < upper - lower else float(mech.scale) == pytest.approx(d / eps)


def test_mass_outside_the_other_support_is_an_infinite_loss():
    """Two bounded-domain laws on different ranges: P has mass where Q has none."""
    p = BoundedDomainLaplaceMechanism(1.0, 0.0, 5.0).distribution(1.0)
    q = BoundedDomainLaplaceMechanism(1.0, 0.0, 4.0).distribution(1.0)
    assert exact.pure_epsilon(p, q).epsilon.hi == math.inf
    outside = float(p.sf(4.0)[()])
    delta = exact.privacy_profile(p, q, 50.0).delta  # e^50 Q dwarfs P wherever Q > 0
    assert float(delta.lo) == pytest.approx(outside, rel=1e-9)
    assert exact.renyi_divergence(p, q, 2.0).hi == math.inf
    assert exact.renyi_divergence(q, p, 2.0).hi < math.inf


def test_tails_that_differ_are_not_analysed():
    with pytest.raises(UnsupportedAudit, match="tails differ"):
        exact.pure_epsilon(Staircase(1.0).exact_distribution(), Staircase(0.5).exact_distribution())


def piece_integral(constant, segment, upto, k):
    """Quadrature of x^k exp(constant + offset + slope (x - left)) over the segment, up to ``upto``."""
    left, slope, offset = float(segment.left), float(segment.slope), float(segment.offset)
    right = min(float(segment.right), upto)
    if right <= left:
        return 0.0
    return quad(lambda x: x**k * math.exp(constant + offset + slope * (x - left)), left, right, epsabs=1e-14)[0]


def test_the_floats_describe_the_same_law():
    """cdf, mean and variance against quadrature of the density piece by piece, plus the atoms."""
    for dist in (Staircase(0.7, 2.0, 0.3, loc=0.5).exact_distribution(),
                 ClampedLaplaceMechanism(1.0, 0.0, 5.0).distribution(4.0),
                 BoundedDomainLaplaceMechanism(2.0, -1.0, 3.0).distribution(0.5)):
        lo, hi = max(dist.support[0], -150.0), min(dist.support[1], 150.0)  # all but e^-50 of the mass
        segments, c = dist.segments(Fraction(lo), Fraction(hi)), dist.constant.approx
        moments = [sum(piece_integral(c, s, math.inf, k) for s in segments)
                   + sum(m * at**k for at, m in dist.point_masses) for k in range(3)]
        assert moments[0] == pytest.approx(1.0, abs=1e-9)
        assert dist.mean == pytest.approx(moments[1], abs=1e-9)
        assert dist.var == pytest.approx(moments[2] - moments[1] ** 2, rel=1e-8)
        for at in np.linspace(float(dist.breaks[0]) - 1, float(dist.breaks[-1]) + 1, 9):
            below = sum(piece_integral(c, s, at, 0) for s in segments)
            below += sum(m for point, m in dist.point_masses if point <= at)
            assert float(dist.cdf(at)) == pytest.approx(below, abs=1e-9)


def test_the_laws_own_samplers_conform_to_them():
    """alpha = 1e-6 each, fixed seeds."""
    laws = [Staircase(1.0, 1.0), Staircase(0.7, 2.0, 0.3, loc=0.5).exact_distribution(),
            ClampedLaplaceMechanism(1.0, 0.0, 2.0).distribution(0.5),
            BoundedDomainLaplaceMechanism(1.0, 0.0, 2.0).distribution(2.0)]
    for i, reference in enumerate(laws):
        res = dpaudit.audit_sampler(reference.sample, reference, samples=200_000, seed=i)
        assert res.verdict == "not-refuted", (reference, res.witness)
    clamped = ClampedLaplaceMechanism(1.0, 0.0, 2.0)
    res = dpaudit.audit_sampler(lambda n, rng: clamped.sample(0.5, n, rng), clamped.distribution(0.5),
                                samples=200_000, seed=9)
    assert res.verdict == "not-refuted"
    assert {t["test"] for t in res.parameters["tests"]} == {"Kolmogorov-Smirnov (with atoms)", "atom counts", "mean"}


def test_a_staircase_sampler_with_the_wrong_gamma_fails_conformance():
    """Power: gamma 0.2 drawn, the default 0.378 stated (same epsilon: only the steps' inner widths move)."""
    stated, drawn = Staircase(1.0, 1.0), Staircase(1.0, 1.0, 0.2)
    assert dpaudit.audit_sampler(drawn.sample, stated, samples=200_000, seed=0).verdict == "refuted"


def test_malformed_laws_are_refused():
    assert PiecewiseExponentialDistribution.build([0, 1], [0], [0], None).mean == 0.5  # the uniform law
    with pytest.raises(ValueError, match="sum to"):
        PiecewiseExponentialDistribution.build([0, 2], [0], [0], None)  # mass 2
    with pytest.raises(ValueError, match="strictly increasing"):
        PiecewiseExponentialDistribution.build([0, 1, 0.5], [0, 0], [0, 0], None)
    with pytest.raises(ValueError, match="period"):
        PiecewiseExponentialDistribution.build([0, 1], [0], [0], None, right_tail=(2, -1))
    with pytest.raises(ValueError, match="lower < upper"):
        ClampedLaplaceMechanism(1.0, 2.0, 2.0)
    with pytest.raises(ValueError, match="gamma"):
        Staircase(1.0, 1.0, 1.5)


def test_loss_range_and_the_infinite_order_on_step_densities_and_disjoint_supports():
    """D_inf is the supremum of the loss (the pure epsilon of one direction), and the loss range says
    where it is reached, on laws whose loss is a step function written down by hand: P with density
    3/2 then 1/2 on the halves of [0, 1) against the uniform law (loss log 3/2, then log 1/2); two
    uniform laws overlapping on half their support (loss +inf on P's own part, at its midpoint 1/4, and
    -inf on Q's, at 5/4); and a discrete and a continuous Laplace pair (log-linear laws: the loss runs
    from -|shift| / b to |shift| / b, reached at the two locations)."""
    from dpaudit import exact
    from dpaudit.exact.enclosure import Enclosure
    from dpaudit.mechanisms import DiscreteLaplace, Laplace

    uniform = PiecewiseExponentialDistribution.build([0, 1], [0], [0], None)
    steps = PiecewiseExponentialDistribution.build([0, 0.5, 1], [0, 0], [math.log(1.5), math.log(0.5)], None)
    loss = exact.loss_range(steps, uniform)
    assert loss.sup.floats() == (pytest.approx(math.log(1.5), rel=1e-15),) * 2
    assert loss.inf.floats() == (pytest.approx(math.log(0.5), rel=1e-15),) * 2
    assert 0 <= loss.sup_at < 0.5 <= loss.inf_at < 1
    for p, q, sup in ((steps, uniform, math.log(1.5)), (uniform, steps, -math.log(0.5))):
        d = exact.renyi_divergence(p, q, math.inf)
        assert d.floats() == (pytest.approx(sup, rel=1e-15),) * 2 and d.hi - d.lo < 1e-15
    assert exact.renyi_divergence(steps, uniform, 2.0).floats()[0] == pytest.approx(
        math.log(0.5 * 1.5**2 + 0.5 * 0.5**2), rel=1e-14)
    shifted = PiecewiseExponentialDistribution.build([0.5, 1.5], [0], [0], None)
    apart = exact.loss_range(uniform, shifted)
    assert apart.sup == Enclosure.point(math.inf) and apart.inf == Enclosure.point(-math.inf)
    assert apart.sup_at == 0.25 and apart.inf_at == 1.25
    assert exact.renyi_divergence(uniform, shifted, math.inf) == Enclosure.point(math.inf)
    for p, q, bound, ends in ((Laplace(2.0, loc=0.0), Laplace(2.0, loc=1.0), 0.5, (0, 1)),
                              (DiscreteLaplace(2.0, loc=0), DiscreteLaplace(2.0, loc=3), 1.5, (0, 3))):
        loss = exact.loss_range(p, q)
        assert loss.sup == Enclosure.point(bound) and loss.inf == Enclosure.point(-bound)
        assert (loss.sup_at, loss.inf_at) == ends
        assert exact.renyi_divergence(p, q, math.inf) == Enclosure.point(bound)
        assert exact.renyi_divergence(q, p, math.inf) == Enclosure.point(bound)


def log_of(r):
    """The constant log r of a rational r, enclosed exactly (laws written down by hand)."""
    r = Fraction(r)
    return LogConstant(("log", r), lambda ctx: ctx.log(ctx.mpf(r.numerator) / r.denominator), math.log(r))


def assert_encloses(enclosure, truth, width=Fraction(1, 10**60)):
    """lo <= truth <= hi, truth given in mpmath at 100 digits, and the enclosure no wider than ``width``."""
    with mpmath.workdps(100):
        assert mpmath.mpf(enclosure.lo.numerator) / enclosure.lo.denominator <= truth
        assert truth <= mpmath.mpf(enclosure.hi.numerator) / enclosure.hi.denominator
    assert enclosure.hi - enclosure.lo < width


def test_an_atom_on_one_side_only_is_an_infinite_loss_that_counts_in_full():
    """P = 1/2 uniform on [0, 1) + 1/2 at 3; Q = the same density, 1/4 at 2 and 1/4 at 3. The loss is 0 on
    the density, log 2 at 3, -inf at Q's own atom 2 (+inf at 2 for the reversed pair). By hand: delta_P||Q(eps)
    = (1/2 - e^eps / 4)_+ from the atom at 3, which comes after Q's lone atom; delta_Q||P(eps) = 1/4 for
    eps >= 0 (Q's lone atom in full, the shared one under e^eps); D_alpha(P || Q) = log(1/2 + 2^(alpha - 2))
    / (alpha - 1), while P has no mass at 2, so D_alpha(Q || P) is infinite. Values by mpmath at 100 digits."""
    half, quarter = log_of(Fraction(1, 2)), log_of(Fraction(1, 4))
    p = PiecewiseExponentialDistribution.build([0, 1], [0], [0], half, atoms=[(3, 0, half)])
    q = PiecewiseExponentialDistribution.build([0, 1], [0], [0], half, atoms=[(2, 0, quarter), (3, 0, quarter)])
    with mpmath.workdps(100):
        log2, minus_log2 = mpmath.log(2), -mpmath.log(2)
    loss = exact.loss_range(p, q)
    assert_encloses(loss.sup, log2)
    assert loss.inf == Enclosure.point(-math.inf) and (loss.sup_at, loss.inf_at) == (3, 2)
    back = exact.loss_range(q, p)
    assert back.sup == Enclosure.point(math.inf)
    assert_encloses(back.inf, minus_log2)
    assert (back.sup_at, back.inf_at) == (2, 3)
    assert exact.pure_epsilon(p, q).epsilon == Enclosure.point(math.inf)
    for eps in (0.0, 0.4):
        with mpmath.workdps(100):
            assert_encloses(exact.privacy_profile(p, q, eps).delta, mpmath.mpf(1) / 2 - mpmath.exp(eps) / 4)
            assert_encloses(exact.privacy_profile(q, p, eps).delta, mpmath.mpf(1) / 4)
    for alpha in (2.0, 3.5):
        with mpmath.workdps(100):
            assert_encloses(exact.renyi_divergence(p, q, alpha),
                            mpmath.log(mpmath.mpf(1) / 2 + mpmath.mpf(2) ** (alpha - 2)) / (alpha - 1))
        assert exact.renyi_divergence(q, p, alpha) == Enclosure.point(math.inf)


def test_laws_on_disjoint_ranges_are_apart_and_delta_is_one_not_more():
    """Bounded-domain Laplace laws on [0, 1] and [2, 3], nothing in between: each output of one is an
    infinite loss, reached inside its own range; delta(eps) is 1 for every eps, in both directions, and its
    enclosure (a sum of interval integrals, 1 + 1e-76 before the clip) never exceeds the probability 1."""
    p = BoundedDomainLaplaceMechanism(1.0, 0.0, 1.0).distribution(0.3)
    q = BoundedDomainLaplaceMechanism(1.0, 2.0, 3.0).distribution(2.5)
    for a, b, (a_lo, a_hi), (b_lo, b_hi) in ((p, q, (0, 1), (2, 3)), (q, p, (2, 3), (0, 1))):
        loss = exact.loss_range(a, b)
        assert loss.sup == Enclosure.point(math.inf) and loss.inf == Enclosure.point(-math.inf)
        assert a_lo <= loss.sup_at < a_hi and b_lo <= loss.inf_at < b_hi
        for eps in (0.0, 5.0):
            delta = exact.privacy_profile(a, b, eps).delta
            assert_encloses(delta, mpmath.mpf(1))
            assert delta.hi == 1
        assert exact.renyi_divergence(a, b, 2.0) == Enclosure.point(math.inf)


@pytest.mark.parametrize(("narrow_range", "excess"), [((0, 4), (4, 5)), ((1, 5), (0, 1))], ids=["right", "left"])
def test_nested_ranges_lose_without_bound_only_past_the_narrower_one(narrow_range, excess):
    """Bounded-domain Laplace at 1 (b = 1) on [0, 5] and on a narrower range, [0, 4] or [1, 5]: on the
    narrower range the loss is the constant log(Z_narrow / Z_wide), Z(l, u) = 2 - e^-(1 - l) - e^-(u - 1)
    the mass of e^-|x - 1| on [l, u] (Holohan et al.), and on the excess ([4, 5) or [0, 1)) only the wider
    law has density. delta_wide||narrow(eps) = P_wide(excess) = |e^-|a - 1| - e^-|b - 1|| / Z_wide for eps >= 0."""
    wide = BoundedDomainLaplaceMechanism(1.0, 0.0, 5.0).distribution(1.0)
    narrow = BoundedDomainLaplaceMechanism(1.0, *narrow_range).distribution(1.0)
    (lo, hi), (a, b) = narrow_range, excess
    with mpmath.workdps(100):
        z_narrow, z_wide = (2 - mpmath.exp(-(1 - left)) - mpmath.exp(-(right - 1))
                            for left, right in (narrow_range, (0, 5)))
        outside = abs(mpmath.exp(-abs(a - 1)) - mpmath.exp(-abs(b - 1))) / z_wide
        gap, minus_gap = mpmath.log(z_narrow / z_wide), mpmath.log(z_wide / z_narrow)
    loss = exact.loss_range(wide, narrow)
    assert loss.sup == Enclosure.point(math.inf) and a <= loss.sup_at < b
    assert_encloses(loss.inf, gap)
    assert lo <= loss.inf_at < hi
    back = exact.loss_range(narrow, wide)
    assert back.inf == Enclosure.point(-math.inf) and a <= back.inf_at < b
    assert_encloses(back.sup, minus_gap)
    assert lo <= back.sup_at < hi
    for eps in (0.0, 1.0):
        assert_encloses(exact.privacy_profile(wide, narrow, eps).delta, outside)


@pytest.mark.parametrize("side", ["left", "right"])
def test_a_tail_on_one_side_only_is_refused_and_the_message_names_the_side(side):
    """One law repeats [0, 1) past one end with ratio e^-1 (density 1 - e^-1 on each copy's base, total
    mass 1), the other is uniform on [0, 1) with no tail: the pair does not repeat, so it is refused, the
    message naming the side whose tails differ and both tails."""
    constant = LogConstant(("1 - 1/e",), lambda ctx: ctx.log(1 - ctx.exp(-1)), math.log(-math.expm1(-1)))
    tailed = PiecewiseExponentialDistribution.build([0, 1], [0], [0], constant, **{f"{side}_tail": (1, -1)})
    uniform = PiecewiseExponentialDistribution.build([0, 1], [0], [0], None)
    tail = "PeriodicTail(period=Fraction(1, 1), log_ratio=Fraction(-1, 1))"
    for p, q, pair in ((tailed, uniform, f"{tail} and None"), (uniform, tailed, f"None and {tail}")):
        expected = (f"the two distributions' {side} tails differ ({pair}): only tails that repeat with the same "
                    "period and ratio (a location family) are analysed exactly")
        for compute in (exact.loss_range, lambda a, b: exact.privacy_profile(a, b, 0.5),
                        lambda a, b: exact.renyi_divergence(a, b, 2.0)):
            with pytest.raises(UnsupportedAudit) as refused:
                compute(p, q)
            assert str(refused.value) == expected


# exact laws on finite supports (dpaudit.exact.finite) ----------------------------------------------------------

UNITS = mpmath.mpf(8) * mpmath.mpf(2) ** -53  # the rounding finite.py allows each float operation (8 units)


def as_mpf(x):
    """An enclosure end (a Fraction) as a 100-digit mpf."""
    with mpmath.workdps(100):
        return mpmath.mpf(x.numerator) / x.denominator


def renyi_50(lp, lq, alpha):
    """D_alpha of the laws with these log-probabilities (taken as exact), at 50 digits: the log of
    sum p^alpha q^(1 - alpha), over alpha - 1."""
    with mpmath.workdps(50):
        a = mpmath.mpf(alpha)
        total = mpmath.fsum(mpmath.exp(a * mpmath.mpf(x) + (1 - a) * mpmath.mpf(y)) for x, y in zip(lp, lq))
        return mpmath.log(total) / (a - 1)


def test_a_finite_loss_range_names_the_first_outcome_of_each_infinite_loss():
    """P = (1/4, 1/4, 1/4, 1/4, 0, 0) and Q = (1/2, 0, 0, 1/4, 1/8, 1/8) on outcomes 10..15: P has mass
    where Q has none at 11 and 12, Q where P has none at 14 and 15, so the loss runs from -inf to +inf,
    and the outputs reported are the first listed of each kind, 11 and 14 (10 and 13 have a finite loss)."""
    p = FiniteDistribution.from_probs(np.arange(10, 16), [0.25, 0.25, 0.25, 0.25, 0, 0])
    q = FiniteDistribution.from_probs(np.arange(10, 16), [0.5, 0, 0, 0.25, 0.125, 0.125])
    loss = exact.loss_range(p, q)
    assert loss.sup == Enclosure.point(math.inf) and loss.inf == Enclosure.point(-math.inf)
    assert (loss.sup_at, loss.inf_at) == (11, 14)
    back = exact.loss_range(q, p)
    assert back.sup == Enclosure.point(math.inf) and back.inf == Enclosure.point(-math.inf)
    assert (back.sup_at, back.inf_at) == (14, 11)


def test_a_finite_loss_range_holds_the_exact_difference_of_the_stored_log_probabilities():
    """P = (0.1, 0.9), Q = (0.9, 0.1), log-probabilities exact (log_error 0): the loss at each outcome is
    the exact difference of the two stored floats (computed here in fractions), which the float
    subtraction rounds (log 0.1 - log 0.9 is not a float): both ends must hold it, widened by no more
    than the stated U relative."""
    p = FiniteDistribution.from_probs([0, 1], [0.1, 0.9], log_error=0.0)
    q = FiniteDistribution.from_probs([0, 1], [0.9, 0.1], log_error=0.0)
    low, high = (Fraction(a) - Fraction(b) for a, b in zip(p.log_probs, q.log_probs))
    assert Fraction(float(low)) != low and Fraction(float(high)) != high  # the subtractions round
    loss = exact.loss_range(p, q)
    for got, true in ((loss.inf, low), (loss.sup, high)):
        assert got.lo <= true <= got.hi
        assert got.width <= 2 * Fraction(finite.U) * abs(true) * Fraction(1001, 1000)
    assert (loss.sup_at, loss.inf_at) == (1, 0)


def test_finite_laws_with_no_outcome_of_positive_probability_are_refused():
    """P lists its two outcomes with probability 0 (all but 5e-7 of its mass unlisted in tail_mass,
    within the 1e-6 allowance for the sum): no outcome has a finite loss under P, so the loss range is
    undefined and refused with its message, whatever Q is."""
    nothing = FiniteDistribution([0, 1], [-math.inf, -math.inf], tail_mass=0.9999995)
    for q in (FiniteDistribution.from_probs([0, 1], [0.5, 0.5]), FiniteDistribution.from_probs([2, 3], [0.5, 0.5])):
        with pytest.raises(MechanismError) as refused:
            exact.loss_range(nothing, q)
        assert str(refused.value) == "two output distributions with no outcome of positive probability"


def test_unlisted_mass_leaves_the_finite_loss_unbounded_on_its_own_side():
    """P lists 0.5 and 0.49 with 0.01 unlisted (tail_mass), Q = (0.5, 0.5): P's unlisted mass may sit
    where Q has none, so sup log P/Q is only bounded below (by the listed 0); Q's own loss range against
    P is unbounded below instead. Against R = (0.7, 0.3), D_2(P || R) has no upper bound either, while its
    lower end is that of the listed part, log(0.5^2 / 0.7 + 0.49^2 / 0.3) (50 digits)."""
    p = FiniteDistribution.from_probs([0, 1], [0.5, 0.49], tail_mass=0.01)
    q = FiniteDistribution.from_probs([0, 1], [0.5, 0.5])
    loss = exact.loss_range(p, q)
    assert loss.sup.hi == math.inf and loss.sup.lo == -2 * Fraction(1e-12)  # the listed loss 0, less the log errors
    assert loss.inf.lo > -0.0203 and loss.inf.hi < -0.0202  # log(0.49 / 0.5) = -0.020203
    back = exact.loss_range(q, p)
    assert back.inf.lo == -math.inf and back.inf.hi == 2 * Fraction(1e-12)
    assert 0.0202 < back.sup.lo and back.sup.hi < 0.0203
    r = FiniteDistribution.from_probs([0, 1], [0.7, 0.3])
    d = exact.renyi_divergence(p, r, 2.0)
    listed = renyi_50(p.log_probs, r.log_probs, 2.0)
    assert d.hi == math.inf and 0 <= listed - as_mpf(d.lo) < 1e-11  # less the log errors' 2 * 2e-12


@pytest.mark.parametrize("sign", [1, -1], ids=["listed above", "listed below"])
@pytest.mark.parametrize("error", [1e-7, 0.03])
def test_finite_renyi_holds_every_law_within_the_stated_log_error(error, sign):
    """P = (0.5, 0.3, 0.2) listed with every log-probability off by the whole stated log_error (all up,
    or all down), Q = (0.25, 0.25, 0.5) exact: the true law is exp(listed -+ error), whose D_3(P || Q)
    (50 digits) differs from the listed floats' by 3/2 error, the most the error allows; the enclosure
    must hold it. At error 1e-7 the bound's own slack is about 1e-6 relative, at 0.03 the factor
    e^(3 error) matters."""
    true_p = np.array([0.5, 0.3, 0.2])
    listed = np.log(true_p) + sign * error
    p = FiniteDistribution(np.arange(3), listed, log_error=error)
    q = FiniteDistribution.from_probs(np.arange(3), [0.25, 0.25, 0.5], log_error=0.0)
    truth = renyi_50([mpmath.mpf(x) - sign * mpmath.mpf(error) for x in listed], q.log_probs, 3.0)
    d = exact.renyi_divergence(p, q, 3.0)
    assert as_mpf(d.lo) <= truth <= as_mpf(d.hi)
    assert d.hi - d.lo < 4 * error  # the error moves D by 3/2 error either way


def documented_renyi(lp, lq, alpha, error):
    """The enclosure of D_alpha that finite._renyi_at's docstring describes, at 50 digits: centre s / (alpha - 1)
    with s = log sum exp(t_i), t_i = alpha lp_i + (1 - alpha) lq_i; half-width (-log(1 - r) + 4 U (1 + |s|)) /
    (alpha - 1), where r = e^(max d) sum w_i d_i (1 + 1e-6 for the dot products) plus the pairwise sum's
    relative width 2 (n - 1 + 2) 2^-53 (n < 8 terms), w_i = exp(t_i) / sum exp(t), d_i = alpha error + U (alpha |lp_i|
    + (alpha - 1) |lq_i| + 2 |t_i| + |max t| + 1) (the affine combination, the shift by max t, exp), and max d
    taking each magnitude at its largest."""
    with mpmath.workdps(50):
        a, e = mpmath.mpf(alpha), mpmath.mpf(error)
        lp, lq = [mpmath.mpf(x) for x in lp], [mpmath.mpf(y) for y in lq]
        t = [a * x + (1 - a) * y for x, y in zip(lp, lq)]
        top = max(t)
        w = [mpmath.exp(x - top) for x in t]
        d = [a * e + UNITS * (a * abs(x) + (a - 1) * abs(y) + 2 * abs(z) + abs(top) + 1) for x, y, z in zip(lp, lq, t)]
        d_max = a * e + UNITS * (a * max(map(abs, lp)) + (a - 1) * max(map(abs, lq)) + 2 * max(map(abs, t))
                                 + abs(top) + 1)
        r = mpmath.exp(d_max) * mpmath.fsum(x * y for x, y in zip(w, d)) / mpmath.fsum(w) * (1 + mpmath.mpf(1e-6))
        r += 2 * (len(t) - 1 + 2) * mpmath.mpf(2) ** -53  # fewer than 8 terms: numpy adds them in a plain loop
        s = top + mpmath.log(mpmath.fsum(w))
        return s / (a - 1), (-mpmath.log1p(-r) + 4 * UNITS * (1 + abs(s))) / (a - 1)


RENYI_CASES = [
    ("exact floats", [0.5, 0.3, 0.2], [0.25, 0.25, 0.5], 0.0, 0.0),
    ("log errors 1e-10 and 2e-10", [0.5, 0.3, 0.2], [0.25, 0.25, 0.5], 1e-10, 2e-10),
]


@pytest.mark.parametrize(("label", "p", "q", "p_error", "q_error"), RENYI_CASES + [
    ("far tails carrying the sum", None, None, 0.0, 0.0)], ids=[c[0] for c in RENYI_CASES] + ["far tails"])
def test_finite_renyi_is_exactly_as_wide_as_its_documented_bound(label, p, q, p_error, q_error):
    """D_3(P || Q) of P = (0.5, 0.3, 0.2) against Q = (0.25, 0.25, 0.5), with exact log-probabilities or
    log errors, and of laws whose far tails carry the sum: P = (1, e^-1e6, e^(-1e6 + 0.5)) against
    Q = (1, e^-2e6, e^(-2e6 + 1)) (p^3 / q^2 = e^1e6 and e^(1e6 - 0.5) there, every magnitude large). The
    enclosure holds the 50-digit value and its half-width is the documented bound (documented_renyi) to
    1e-12 relative (the code's float dot products err by about 1e-16): neither narrower (rigour) nor wider."""
    if p is None:
        P = FiniteDistribution([0, 1, 2], [0.0, -1e6, -1e6 + 0.5], log_error=p_error)
        Q = FiniteDistribution([0, 1, 2], [0.0, -2e6, -2e6 + 1], log_error=q_error)
    else:
        P = FiniteDistribution.from_probs([0, 1, 2], p, log_error=p_error)
        Q = FiniteDistribution.from_probs([0, 1, 2], q, log_error=q_error)
    d = exact.renyi_divergence(P, Q, 3.0)
    centre, half = documented_renyi(P.log_probs, Q.log_probs, 3.0, p_error + q_error)
    with mpmath.workdps(50):
        assert as_mpf(d.lo) <= centre <= as_mpf(d.hi)
        assert abs((as_mpf(d.hi) - as_mpf(d.lo)) / 2 / half - 1) < 1e-12, label


def test_finite_renyi_gives_up_to_zero_and_infinity_when_the_log_error_is_too_large():
    """P = (0.5, 0.3, 0.2) with log_error 0.22 against Q = (0.25, 0.25, 0.5): at alpha = 3 every term
    p^3 / q^2 is known only within a factor e^0.66, too loose for the bound (its relative error would be
    0.66 e^0.66 > 1), so the enclosure is everything a divergence can be, [0, inf], and not an error;
    D_3 itself is about 0.45, below 1."""
    p = FiniteDistribution.from_probs([0, 1, 2], [0.5, 0.3, 0.2], log_error=0.22)
    q = FiniteDistribution.from_probs([0, 1, 2], [0.25, 0.25, 0.5], log_error=0.0)
    assert exact.renyi_divergence(p, q, 3.0) == Enclosure(0, math.inf)
    assert exact.renyi_divergence(p, q, 3.0).lo < renyi_50(p.log_probs, q.log_probs, 3.0) < 1


def test_the_infinite_order_of_finite_laws_is_the_largest_log_ratio_at_every_place_in_a_curve():
    """P = (0.5, 0.3, 0.2), Q = (0.25, 0.25, 0.5): D_inf(P || Q) = max log p / q = log 2 (about 0.69, below
    1), and a curve of orders [inf, 2, inf] gives it at both ends and D_2 = log(0.5^2 / 0.25 + 0.3^2 / 0.25
    + 0.2^2 / 0.5) (50 digits) in the middle; the same when Q lists its outcomes in another order."""
    p = FiniteDistribution.from_probs([0, 1, 2], [0.5, 0.3, 0.2])
    q = FiniteDistribution.from_probs([0, 1, 2], [0.25, 0.25, 0.5])
    backwards = FiniteDistribution.from_probs([2, 1, 0], [0.5, 0.25, 0.25])
    log2 = mpmath.log(2)
    for other in (q, backwards):
        curve = exact.renyi_curve(p, other, [math.inf, 2.0, math.inf])
        assert len(curve) == 3
        for d, truth in ((curve[0], log2), (curve[1], renyi_50(p.log_probs, q.log_probs, 2.0)), (curve[2], log2)):
            assert as_mpf(d.lo) <= truth <= as_mpf(d.hi) and d.hi - d.lo < 1e-11
        assert exact.renyi_divergence(p, other, math.inf) == curve[0]


def test_finite_laws_with_outcomes_of_different_shapes_are_refused_naming_both():
    """Outcomes are rows: pairs under P, triples under Q cannot be compared."""
    p = FiniteDistribution.from_probs([[0, 0], [0, 1]], [0.5, 0.5])
    q = FiniteDistribution.from_probs([[0, 0, 0], [0, 0, 1]], [0.5, 0.5])
    with pytest.raises(MechanismError) as refused:
        exact.loss_range(p, q)
    assert str(refused.value) == "the two output distributions have outcomes of shapes (2,) and (3,)"


def test_laws_listing_the_same_outcomes_keep_their_own_order():
    """P = (1/4, 1/4, 1/2) and Q = (1/8, 1/8, 3/4) on outcomes listed 2, 0, 1 (two equal arrays): the
    alignment is the laws' own arrays, in the mechanism's order, so among the tied largest losses (log 2
    at 2 and at 0) the one reported is the first listed, 2."""
    p = FiniteDistribution.from_probs([2, 0, 1], [0.25, 0.25, 0.5])
    q = FiniteDistribution.from_probs([2, 0, 1], [0.125, 0.125, 0.75])
    a = finite.align(p, q)
    assert a.outcomes.tolist() == [2, 0, 1]
    assert np.array_equal(a.logp, p.log_probs) and np.array_equal(a.logq, q.log_probs)
    assert exact.loss_range(p, q).sup_at == 2


def test_vector_outcomes_listed_differently_are_aligned_row_by_row():
    """P on rows (0, 0), (0, 1), (1, 0) with 1/2, 1/4, 1/4; Q on (1, 0), (0, 1), (1, 1) with 1/2, 1/4, 1/4:
    the union has four rows; the loss is +inf at (0, 0), 0 at (0, 1), log 1/2 at (1, 0), -inf at (1, 1)."""
    p = FiniteDistribution.from_probs([[0, 0], [0, 1], [1, 0]], [0.5, 0.25, 0.25])
    q = FiniteDistribution.from_probs([[1, 0], [0, 1], [1, 1]], [0.5, 0.25, 0.25])
    a = finite.align(p, q)
    assert a.outcomes.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert np.exp(a.logp).tolist() == [0.5, 0.25, 0.25, 0.0] and np.exp(a.logq).tolist() == [0.0, 0.25, 0.5, 0.25]
    loss = exact.loss_range(p, q)
    assert loss.sup == Enclosure.point(math.inf) and loss.inf == Enclosure.point(-math.inf)
    assert (loss.sup_at, loss.inf_at) == ([0, 0], [1, 1])
    delta = exact.privacy_profile(p, q, 0.0).delta  # P's own row (0, 0) in full
    assert delta.lo <= Fraction(1, 2) <= delta.hi and delta.hi - delta.lo < 1e-11  # the log errors, 1e-12 each


@pytest.mark.parametrize("outcomes, others", [
    ([7, 7], None),  # two outcomes, both the same
    ([0, 1, 1], None),  # the repeat is not the smallest outcome
    ([[0, 1], [0, 1], [1, 0]], None),  # a repeated row
    ([0, 1, 1], [0, 1, 2]),  # P repeats, Q does not
    ([0, 1, 2], [0, 1, 1]),  # Q repeats, P does not
], ids=["pair", "not the smallest", "rows", "P only", "Q only"])
def test_a_finite_law_listing_an_outcome_twice_is_refused(outcomes, others):
    """A law that lists one outcome twice has no single probability there: refused with the message,
    whether or not the other law lists the same outcomes."""
    m = len(outcomes)
    p = FiniteDistribution.from_probs(outcomes, np.full(m, 1 / m))
    q = FiniteDistribution.from_probs(others if others is not None else outcomes, [0.25] + [0.75 / (m - 1)] * (m - 1))
    with pytest.raises(MechanismError) as refused:
        exact.loss_range(p, q)
    assert str(refused.value) == "a FiniteDistribution lists the same outcome twice"


@pytest.mark.parametrize(("n", "roundings"), [(2, 1), (7, 6), (8, 3), (15, 10), (127, 24), (128, 18), (129, 12),
                                              (1000, 21)])
def test_a_pairwise_sum_encloses_the_exact_sum_however_often_numpy_rounds_a_term(n, roundings):
    """numpy sums fewer than 8 floats in a plain loop, up to 128 in eight running sums (n // 8 terms each)
    joined by a tree of depth 3 and then the n % 8 left over one by one, and more by halves (the first a
    multiple of 8): a term can meet `roundings` additions (by hand: 7 terms, 6 in the loop; 8, the tree's
    3; 15, one term per running sum, 3, then 7 left over: 10; 127, 14 additions per running sum, 3, 7:
    24; 128, 15 + 3; 129, 1 + the 11 of its 65-term half; 1000, halves of 496 and 504 terms, halved into
    248 (120 + 128) and 256 (128 + 128): 1 + 1 + 1 + 18). 1 followed by n - 1 terms just under half a unit
    of 1, each lost when added to it, is the worst case: the exact sum (in fractions) exceeds numpy's by
    up to `roundings` units (the enclosure of (ceil(log2 n) + 2) units that finite.py had missed it at 7,
    15, 127, 128 and 1000 terms). The enclosure must hold it, and is (roundings + 2) units either side."""
    h = 0.999 * 2.0**-53
    for terms in (np.array([1.0] + [h] * (n - 1)), np.where(np.arange(n) % 8 == 0, 1.0, h)):
        total = sum((Fraction(x) for x in terms), Fraction(0))
        enclosure = finite.positive_sum(terms)
        assert enclosure.lo <= total <= enclosure.hi
        centre = (enclosure.lo + enclosure.hi) / 2
        assert centre == Fraction(float(np.sum(terms)))
        assert enclosure.hi - centre == (roundings + 2) * Fraction(2.0**-53) * centre
    assert finite.pairwise_roundings(n) == roundings
