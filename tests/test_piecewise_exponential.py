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
from dpaudit.distributions import LogConstant
from dpaudit.errors import UnsupportedAudit
from dpaudit.exact.enclosure import Enclosure
from dpaudit.mechanisms import BoundedDomainLaplaceMechanism, ClampedLaplaceMechanism, StaircaseMechanism
from dpaudit.mechanisms.noise import Staircase
from dpaudit.piecewise_exponential import PiecewiseExponentialDistribution


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
