"""The exact pure-DP auditor against closed forms."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpaudit
from dpaudit import ZCDP, ApproxDP, PureDP, RenyiDP, SubGaussian
from dpaudit.auditors.base import Support
from dpaudit.auditors.exact_privacy import ExactPrivacyAuditor, pair_epsilon
from dpaudit.core.distributions import FiniteDistribution, LogLinearDistribution, ProductDistribution
from dpaudit.core.results import Statistic
from dpaudit.core.subjects import Mechanism
from dpaudit.mechanisms import (
    AdditiveNoiseMechanism,
    DiscreteLaplace,
    DiscreteLaplaceMechanism,
    Laplace,
    LaplaceMechanism,
    RandomizedResponse,
)


def audit(mech, claim, pairs, **kw):
    return dpaudit.audit_privacy(mech, claim, pairs=pairs, auditor="exact", **kw)


@pytest.mark.parametrize("eps", [0.1, 0.3, 0.7, 1.0, 2.5])
def test_laplace_is_verified_at_its_epsilon(eps):
    r = audit(LaplaceMechanism(eps), PureDP(eps), [(0.0, 1.0)])
    assert r.verdict == "verified"
    assert r.statistic.interval == (r.epsilon_lower, r.statistic.interval[1])
    assert r.epsilon_lower == pytest.approx(eps, rel=1e-15)
    assert r.confidence == 1.0 and r.samples == 0


def test_scale_bug_is_refuted_with_epsilon_ten():
    r = audit(AdditiveNoiseMechanism(Laplace(0.1)), PureDP(0.1), [(0.0, 1.0)])
    assert r.verdict == "refuted"
    lo, hi = r.statistic.interval  # the true value 1/float(0.1) = 9.99999999999999944...
    assert lo <= 1 / Fraction(0.1) <= hi and hi - lo <= 4e-15
    assert r.witness["pair"] == [0.0, 1.0] and r.witness["loss"] == pytest.approx(10.0)
    assert r.witness["margin"] == pytest.approx(-9.9)


def test_overclaim_is_refuted_and_slack_is_verified():
    assert audit(LaplaceMechanism(1.0), PureDP(0.999), [(0, 1)]).verdict == "refuted"
    assert audit(LaplaceMechanism(1.0), PureDP(1.001), [(0, 1)]).verdict == "verified"


@given(
    st.floats(0.01, 100), st.floats(-50, 50), st.floats(-5, 5).filter(lambda d: d != 0),
)
def test_laplace_shift_closed_form(scale, loc, shift):
    """Laplace(loc, b) vs Laplace(loc + s, b): epsilon = |s| / b exactly (in rationals)."""
    r = pair_epsilon(Laplace(scale, loc=loc), Laplace(scale, loc=loc + shift))
    expected = abs(Fraction(loc + shift) - Fraction(loc)) / Fraction(scale)
    assert r.lo == r.hi == expected


@given(st.integers(-20, 20), st.integers(-6, 6), st.sampled_from([0.2, 0.5, 1.0, Fraction(7, 3)]))
def test_discrete_laplace_shift_closed_form(loc, shift, scale):
    r = pair_epsilon(DiscreteLaplace(scale, loc=loc), DiscreteLaplace(scale, loc=loc + shift))
    assert r.lo == r.hi == abs(shift) / Fraction(scale)


def test_different_scales_give_infinite_epsilon():
    r = pair_epsilon(Laplace(1.0), Laplace(2.0))
    assert r.hi == math.inf and r.lo == math.inf
    assert r.output == [-math.inf] or r.output == [math.inf]


def test_identical_distributions_have_zero_loss():
    r = pair_epsilon(DiscreteLaplace(1.0), DiscreteLaplace(1.0))
    assert r.hi == 0


def test_irrational_constants_are_enclosed():
    """Truncation-free check of the interval path: a log-linear density with the same shape but a
    different normaliser; the loss is the constant difference log(2)."""
    from dpaudit.core.distributions import LogConstant

    def density(c, key):
        return LogLinearDistribution.build([0], [1, -1], 0, LogConstant(key, lambda ctx: ctx.log(ctx.mpf(c))), False)

    r = pair_epsilon(density(2, ("a",)), density(1, ("b",)))
    assert float(r.lo) == pytest.approx(math.log(2), abs=1e-15)
    assert r.lo < Fraction(math.log(2)) * (1 + Fraction(1, 10**15)) and r.hi - r.lo < Fraction(1, 10**30)


def test_vector_losses_add_over_coordinates():
    m = LaplaceMechanism(0.5)
    one = audit(m, PureDP(0.5), [([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])])
    every = audit(m, PureDP(0.5), [([0.0, 0.0, 0.0], [1.0, 1.0, -1.0])])
    assert one.verdict == "verified"
    assert every.verdict == "refuted" and every.statistic.interval == (1.5, 1.5)
    assert every.witness["output"] == [0, 0, 0] or len(every.witness["output"]) == 3


def test_worst_pair_and_direction_are_reported():
    r = audit(DiscreteLaplaceMechanism(1.0), PureDP(1.5), [(0, 1), (5, 3)])
    assert r.verdict == "refuted"
    assert r.witness["pair_index"] == 1 and r.witness["pair"] == [5, 3]
    assert r.statistic.interval == (2.0, 2.0)


def test_float_rounding_of_parameters_is_not_a_refutation():
    """Noise scale float(1/0.7) is a hair below 1/0.7: its epsilon exceeds 0.7 by ~3e-17."""
    r = audit(AdditiveNoiseMechanism(Laplace(1 / 0.7)), PureDP(0.7), [(0, 1)])
    assert r.verdict == "not-refuted"
    assert "resolution" in r.notes[0]
    assert audit(AdditiveNoiseMechanism(Laplace(1 / 0.7)), PureDP(0.7), [(0, 1)], tolerance=0).verdict == "refuted"


def test_approx_dp_is_verified_when_pure_epsilon_suffices():
    assert audit(LaplaceMechanism(1.0), ApproxDP(1.0, 1e-6), [(0, 1)]).verdict == "verified"
    # below the pure epsilon the privacy profile decides: Laplace(1) has delta(0.5) = 1 - e^(-1/4)
    r = audit(LaplaceMechanism(1.0), ApproxDP(0.5, 1e-6), [(0, 1)])
    assert r.verdict == "refuted"
    lo, hi = r.statistic.interval
    assert lo <= 1 - math.exp(-0.25) <= hi and hi - lo < 1e-15
    assert audit(LaplaceMechanism(1.0), ApproxDP(0.5, 0.222), [(0, 1)]).verdict == "verified"


def test_mixing_lattice_and_continuous_is_an_error():
    class Mixed:
        def sample(self, d, n, rng):
            return np.zeros(n)

        def distribution(self, d):
            return Laplace(1) if d == 0 else DiscreteLaplace(1)

    with pytest.raises(dpaudit.MechanismError, match="integers"):
        audit(Mixed(), PureDP(1), [(0, 1)])


def test_product_density_requires_coordinates():
    with pytest.raises(ValueError):
        ProductDistribution(())
    with pytest.raises(ValueError, match="decay"):
        LogLinearDistribution.build([0], [-1, -1], 0, None, False)


# -- approximate, Renyi and zCDP records against closed forms -------------------------------------
#
# Laplace(1 / eps) at distance 1: delta(eps') = 1 - exp((eps' - eps) / 2) for eps' <= eps. A Gaussian
# N(0, sigma^2) against N(D, sigma^2): D_alpha = alpha D^2 / (2 sigma^2), rho = D^2 / (2 sigma^2). The
# pairs list the far pair second, so a finding that reports the wrong pair, or the wrong order of a
# curve, fails; each claim sits 1e-6 either side of the truth, or within the float resolution (1e-9
# relative) of it, where the exact auditor says "not-refuted" and why.

FAR_LAST = [(0.0, 0.5), (0.0, 1.0)]


def test_approx_dp_record_is_the_laplace_closed_form():
    from dpaudit.mechanisms import LaplaceMechanism

    mech = LaplaceMechanism(1.0)
    truth = 1 - math.exp(-0.25)
    for claimed, verdict in ((truth * (1 + 1e-6), "verified"), (truth * (1 - 1e-6), "refuted")):
        r = audit(mech, ApproxDP(0.5, claimed), FAR_LAST)
        assert r.verdict == verdict
        assert r.statistic.name == "delta" and r.statistic.kind == "exact"
        lo, hi = r.statistic.interval
        assert lo <= truth * (1 + 1e-15) and hi >= truth * (1 - 1e-15) and hi - lo < 1e-15
        assert r.delta_lower == pytest.approx(truth, rel=1e-14)
        w = r.witness
        assert w["pair"] == [0.0, 1.0] and w["pair_index"] == 1 and w["epsilon"] == 0.5
        assert w["delta"] == pytest.approx(truth, rel=1e-14) and w["pure_epsilon"] == pytest.approx(1.0, rel=1e-14)
        assert w["margin"] == pytest.approx(claimed - truth, rel=1e-6)
        assert r.parameters["tolerance"] == 1e-9 and r.parameters["pure_epsilon"] == [pytest.approx(1.0)] * 2
        assert r.plot_data["claimed"] == (0.5, claimed) and r.notes == []
        # the plotted profile is the closed form too
        grid = np.asarray(r.plot_data["eps"])
        assert grid.size > 10 and grid.min() <= 0.5 <= grid.max()
        assert np.asarray(r.plot_data["delta"]) == pytest.approx(np.where(grid < 1, -np.expm1((grid - 1) / 2), 0.0),
                                                                 abs=1e-12)
    # delta(eps) = 0 once eps reaches the pure epsilon: said, with the reason, and a zero delta
    r = audit(mech, ApproxDP(1.0, 0.0), FAR_LAST)
    assert r.verdict == "verified" and r.witness["delta"] == 0 and r.statistic.value == 0
    assert "pure epsilon is at most 1 <= the claimed epsilon" in r.notes[0]
    # eps a hair under the pure epsilon: the tiny delta is within the float resolution, not a refutation
    r = audit(mech, ApproxDP(1.0 - 1e-12, 0.0), FAR_LAST)
    assert r.verdict == "not-refuted" and r.witness["delta"] > 0
    assert any("below the resolution attributed to floating-point parameters" in n for n in r.notes)
    assert audit(mech, ApproxDP(1.0 - 1e-6, 0.0), FAR_LAST).verdict == "refuted"
    assert audit(mech, ApproxDP(1.0 - 1e-6, 1e-6), FAR_LAST).verdict == "verified"


def test_renyi_record_is_the_gaussian_closed_form_at_the_worst_order():
    from dpaudit import RenyiDP
    from dpaudit.mechanisms import ZCDPGaussianMechanism

    mech = ZCDPGaussianMechanism(0.125)  # sigma = 2: D_alpha = alpha / 8 at distance 1
    r = audit(mech, RenyiDP((2.0, 8.0), (0.25, 1.0)), FAR_LAST)
    assert r.verdict == "verified" and r.notes == []
    assert r.parameters["renyi_divergences"] == {"2": [0.25, 0.25], "8": [1.0, 1.0]}
    # the order reported is the one with the largest excess over its claim, not the largest divergence
    r = audit(mech, RenyiDP((2.0, 8.0), (0.2, 0.99)), FAR_LAST)
    assert r.verdict == "refuted" and r.statistic.name == "D_2" and r.statistic.value == pytest.approx(0.25)
    assert r.witness["alpha"] == 2.0 and r.witness["pair_index"] == 1
    assert r.witness["renyi_divergence"] == pytest.approx(0.25) and r.witness["margin"] == pytest.approx(-0.05)
    assert r.plot_data is not None and r.plot_data["alpha"] is not None
    r = audit(mech, RenyiDP((2.0, 8.0), (0.25, 1.0 * (1 - 1e-6))), FAR_LAST)
    assert r.verdict == "refuted" and r.statistic.name == "D_8" and r.witness["margin"] == pytest.approx(-1e-6)
    # within the resolution at one order, verified at the other: not refuted, with the order named
    r = audit(mech, RenyiDP((2.0, 8.0), (0.25 * (1 - 1e-12), 1.5)), FAR_LAST)
    assert r.verdict == "not-refuted" and any(n.startswith("D_2 exceeds the claim") for n in r.notes)


def test_zcdp_record_is_the_gaussian_closed_form():
    from dpaudit.mechanisms import ZCDPGaussianMechanism

    for rho in (0.125, 2.0):
        mech = ZCDPGaussianMechanism(rho)
        r = audit(mech, dpaudit.ZCDP(rho * (1 + 1e-6)), FAR_LAST)
        assert r.verdict == "verified" and r.statistic.name == "rho"
        assert r.statistic.value == pytest.approx(rho, rel=1e-12)
        assert r.witness["rho"] == pytest.approx(rho, rel=1e-12) and r.witness["pair_index"] == 1
        assert r.witness["margin"] == pytest.approx(rho * 1e-6, rel=1e-6)
        assert r.parameters["resolution"] == pytest.approx(1e-9 * max(1.0, rho * (1 + 1e-6)))
        assert r.plot_data is not None and r.plot_data["rho"] == pytest.approx(rho * (1 + 1e-6))
        assert audit(mech, dpaudit.ZCDP(rho * (1 - 1e-6)), FAR_LAST).verdict == "refuted"
        near = audit(mech, dpaudit.ZCDP(rho * (1 - 1e-12)), FAR_LAST)
        assert near.verdict == "not-refuted" and near.notes[0].startswith("rho exceeds the claim")


# -- every field of a finding: at the resolution's exact boundary, on finite and asymmetric laws --------
#
# Laplace(1) against Laplace(1) shifted by 1 + x has epsilon exactly 1 + x (rationals) and, for eps = 1,
# delta(1) = 1 - exp(-x / 2). With the claim 1 and tolerance 2^-10 the resolution is exactly 2^-10, so
# x = 2^-10 lies on the boundary between "within rounding" and "refuted". Reference values of finite laws
# are 60-digit mpmath sums over their outcomes.

STEP = 2.0**-10  # a tolerance, and an excess over the claim, that floats and fractions hold exactly


class TableMechanism:
    """A mechanism given by a table data -> exact output law (after tests/test_privacy_loss.py); never
    sampled here, every audit is exact."""

    def __init__(self, table):
        self.table = table

    def sample(self, data, size, rng):
        return np.zeros(size)

    def distribution(self, data):
        return self.table[data]


# P = (1/2, 1/2) against Q = (9/10, 1/10): every divergence of P || Q is larger than that of Q || P
HALF, SKEWED = (Fraction(1, 2), Fraction(1, 2)), (Fraction(9, 10), Fraction(1, 10))
ASYMMETRIC = TableMechanism({0: FiniteDistribution.from_probs([0, 1], HALF),
                             1: FiniteDistribution.from_probs([0, 1], SKEWED)})


def renyi_mp(alpha, p, q):
    """D_alpha(P || Q) = log(sum p^alpha q^(1 - alpha)) / (alpha - 1) at mpmath's working precision (the callers
    set 60 digits)."""
    a = mpmath.mpf(alpha)
    p, q = [mpmath.mpf(x.numerator) / x.denominator for x in p], [mpmath.mpf(x.numerator) / x.denominator for x in q]
    return mpmath.log(sum(x**a * y ** (1 - a) for x, y in zip(p, q))) / (a - 1)


def float_of_upper_end(value, hi):
    """A witness's value is the float nearest the enclosure's upper end, whose outward rounding is ``hi``."""
    return value in (hi, math.nextafter(hi, -math.inf))


@pytest.mark.parametrize("excess, verdict", [(0.0, "verified"), (STEP, "not-refuted"), (STEP + 2.0**-30, "refuted")])
def test_pure_epsilon_on_the_resolution_boundary_is_within_rounding_and_just_past_it_refuted(excess, verdict):
    """epsilon = 1 + x claimed as 1 with resolution 2^-10: on the claim verified with no note, exactly on the
    boundary not refuted with the note giving the excess and the resolution, a hair past it refuted. The
    record's statistic, parameters, witness and plotted loss (|x - s| - |x|, Laplace's closed form) too."""
    shift = 1.0 + excess
    r = audit(AdditiveNoiseMechanism(Laplace(1.0)), PureDP(1.0), [(0.0, shift)], tolerance=STEP)
    assert r.verdict == verdict and r.auditor == "exact"
    assert r.statistic == Statistic("epsilon", shift, (shift, shift), "exact") and r.epsilon_lower == shift
    assert r.parameters == {"tolerance": STEP, "resolution": STEP}
    assert r.notes == ([] if verdict != "not-refuted" else [
        "epsilon exceeds the claim by at most 0.000977, below the resolution 0.000977 attributed to floating-point "
        "parameters"])
    w = r.witness
    assert w.pop("output") <= 0  # log P/Q = |x - s| - |x| reaches s on x <= 0
    assert w == {"pair": [0.0, shift], "pair_index": 0, "direction": "M(d0) against M(d1)", "loss": shift,
                 "margin": -excess}
    plot = r.plot_data
    assert plot["kind"] == "privacy-loss" and plot["claimed"] == 1.0 and plot["lattice"] is False
    x = np.asarray(plot["x"])
    assert x.min() < 0 < shift < x.max()
    assert np.asarray(plot["loss"]) == pytest.approx(np.abs(x - shift) - np.abs(x), abs=1e-12)


@pytest.mark.parametrize("excess", [STEP, STEP + 2.0**-30])
def test_a_delta_excess_from_a_pure_epsilon_on_the_resolution_boundary_is_not_a_refutation(excess):
    """ApproxDP(1, 1e-6): delta(1) = 1 - exp(-x / 2) ~ 4.9e-4 exceeds the claimed delta, but it comes from a pure
    epsilon 1 + x; with x exactly the resolution that is rounding (not refuted, said with the excess 2^-10),
    a hair more is refuted. The interval encloses the closed form, its lower end is the certified delta."""
    shift = 1.0 + excess
    r = audit(AdditiveNoiseMechanism(Laplace(1.0)), ApproxDP(1.0, 1e-6), [(0.0, shift)], tolerance=STEP)
    with mpmath.workdps(60):
        truth = -mpmath.expm1(-mpmath.mpf(excess) / 2)
    lo, hi = r.statistic.interval
    assert r.statistic.name == "delta" and lo <= truth <= hi and 0 < hi - lo < 1e-18 and r.delta_lower == lo
    if excess == STEP:
        assert r.verdict == "not-refuted" and r.notes == [
            "delta(1) exceeds the claim, but pure epsilon exceeds the claimed epsilon by at most 0.000977, below the "
            "resolution attributed to floating-point parameters"]
    else:
        assert r.verdict == "refuted" and r.notes == []
    margin = r.witness.pop("margin")
    assert margin == pytest.approx(1e-6 - float(truth), rel=1e-12)
    assert float_of_upper_end(r.witness.pop("delta"), hi)
    # Laplace's profile event is not summarised: the witness has no "event"
    assert r.witness == {"pair": [0.0, shift], "pair_index": 0, "direction": "M(d0) against M(d1)", "epsilon": 1.0,
                         "pure_epsilon": shift}


def test_a_delta_within_its_resolution_of_the_claim_is_not_refuted_and_the_note_says_by_how_much():
    """Laplace(1) at distance 1: delta(1/2) = 1 - e^(-1/4) = 0.2212; claimed 1e-4 below it (relative) with
    tolerance 1e-3, the excess 2.21e-5 is below the resolution 1e-3 x claim = 0.000221."""
    with mpmath.workdps(60):
        truth = -mpmath.expm1(mpmath.mpf(-0.25))
    r = audit(LaplaceMechanism(1.0), ApproxDP(0.5, float(truth * (1 - mpmath.mpf(1e-4)))), [(0, 1)], tolerance=1e-3)
    assert r.verdict == "not-refuted"
    assert r.notes == ["delta exceeds the claim by at most 2.21e-05, below the resolution 0.000221 attributed to "
                       "floating-point parameters"]


def test_randomized_response_findings_give_the_lower_end_the_midpoint_and_the_event():
    """Binary randomized response at eps0 = 1 (keep = e / (1 + e)): its log-probabilities are enclosed, so the
    enclosures are a few units of rounding wide. Pure epsilon 1: the certified lower bound is the lower end, the
    estimate the midpoint. delta(1/2) = (e - e^(1/2)) / (1 + e), the event {P > e^(1/2) Q} is the report 0
    alone, with P = keep and Q = 1 - keep."""
    rr = RandomizedResponse(1.0)
    r = audit(rr, PureDP(1 + 1e-6), [([0], [1])])
    lo, hi = r.statistic.interval
    assert r.verdict == "verified" and lo < 1 < hi and hi - lo < 1e-14
    assert r.epsilon_lower == lo and lo < r.statistic.value < hi
    assert r.witness.pop("margin") == pytest.approx(1e-6, rel=1e-6)
    assert float_of_upper_end(r.witness.pop("loss"), hi)
    assert r.witness == {"pair": [[0], [1]], "pair_index": 0, "direction": "M(d0) against M(d1)", "output": 0}
    r = audit(rr, ApproxDP(0.5, 1e-3), [([0], [1])])
    with mpmath.workdps(60):
        e = mpmath.e
        truth, keep = (e - mpmath.sqrt(e)) / (1 + e), e / (1 + e)
    lo, hi = r.statistic.interval
    assert r.verdict == "refuted" and r.notes == [] and lo <= truth <= hi and hi - lo < 1e-14 and r.delta_lower == lo
    assert r.witness["direction"] == "M(d0) against M(d1)"
    assert r.witness["event"] == {"outcomes": 1, "P": pytest.approx(float(keep), rel=1e-15),
                                  "Q": pytest.approx(float(1 - keep), rel=1e-15), "top": [0]}


def test_renyi_finding_takes_the_worse_direction_of_an_asymmetric_pair():
    """D_2(P || Q) = log(25/9) = 1.02 but D_2(Q || P) = log(1.64) = 0.49: a claim of 0.75 is refuted by M(d0)
    against M(d1), whose divergence is reported (a table computed in one direction only would verify it)."""
    r = audit(ASYMMETRIC, RenyiDP(2.0, 0.75), [(0, 1)])
    with mpmath.workdps(60):
        truth, reverse = renyi_mp(2, HALF, SKEWED), renyi_mp(2, SKEWED, HALF)
    assert reverse < 0.75 < truth
    lo, hi = r.statistic.interval
    assert r.verdict == "refuted" and r.statistic.name == "D_2" and lo <= truth <= hi and hi - lo < 1e-10
    assert r.parameters == {"tolerance": 1e-9, "renyi_divergences": {"2": [lo, hi]}}
    assert r.witness.pop("margin") == pytest.approx(0.75 - float(truth), rel=1e-10)
    assert float_of_upper_end(r.witness.pop("renyi_divergence"), hi)
    assert r.witness == {"pair": [0, 1], "pair_index": 0, "direction": "M(d0) against M(d1)", "alpha": 2.0}
    assert r.plot_data["claimed"] == [(2.0, 0.75)] and r.plot_data["direction"] == "M(d0) against M(d1)"


@pytest.mark.parametrize("rel, verdict", [(1e-5, "verified"), (-1e-5, "refuted")])
def test_a_zcdp_claim_close_to_rho_is_decided_by_refining_towards_it(rel, verdict):
    """rho of P || Q = sup D_alpha / alpha = 0.53244 at alpha* = 1.4669 (60 digits, the derivative's root); of
    Q || P only 0.368. The bracket of rho is refined until the claim 1e-5 either side of it is decided (refined
    to 0.1% of its lower end, as without a claim, it would straddle both); the estimate is the bracket's centre,
    not an end. The witness names the order where the certified lower bound is attained: D_alpha / alpha there
    is that bound, up to D_alpha's enclosure."""
    with mpmath.workdps(60):
        def ratio(a):
            return renyi_mp(a, HALF, SKEWED) / a

        a_star = mpmath.findroot(lambda a: mpmath.diff(ratio, a), 1.5)
        rho = ratio(a_star)
    assert 1.46 < a_star < 1.47 and 0.5324 < rho < 0.5325
    claimed = float(rho * (1 + rel))
    r = audit(ASYMMETRIC, ZCDP(claimed), [(0, 1)])
    lo, hi = r.statistic.interval
    assert r.verdict == verdict and r.statistic.name == "rho" and lo <= rho <= hi
    assert hi - lo > 1e-7 and r.statistic.value == pytest.approx((lo + hi) / 2, abs=1e-15)  # the estimate: the centre
    assert r.parameters == {"tolerance": 1e-9, "resolution": pytest.approx(1e-9)}
    with mpmath.workdps(60):
        assert 0 <= ratio(r.witness.pop("alpha")) - lo < 1e-10
    assert r.witness.pop("margin") == pytest.approx(claimed - hi, rel=1e-9)
    assert float_of_upper_end(r.witness.pop("rho"), hi)
    assert r.witness == {"pair": [0, 1], "pair_index": 0, "direction": "M(d0) against M(d1)"}
    assert r.notes == []


def test_laws_of_different_scales_have_infinite_epsilon_and_an_infinitely_negative_margin():
    """Laplace(1) against Laplace(2): the wider law's tails make log M(d1)/M(d0) unbounded."""
    r = audit(TableMechanism({0: Laplace(1.0), 1: Laplace(2.0)}), PureDP(1.0), [(0, 1)])
    assert r.verdict == "refuted" and r.statistic.interval == (math.inf, math.inf) and r.epsilon_lower == math.inf
    assert abs(r.witness.pop("output")) == math.inf
    assert r.witness == {"pair": [0, 1], "pair_index": 0, "direction": "M(d1) against M(d0)", "loss": math.inf,
                         "margin": -math.inf}


def laplace_sampler(data, size, rng):
    return rng.laplace(data, 1.0, size)


def test_the_exact_auditor_decides_pure_dp_attempts_the_rest_and_says_why_it_declines():
    """Pure DP is always decided (the plan gives it no share of alpha); approximate, Renyi and zCDP may be left
    undecided. A non-privacy claim, or a plain sampler, is declined with the reason; a sampler's declining is the
    expected path (not noted in the record)."""
    auditor = ExactPrivacyAuditor()
    laplace = Mechanism(LaplaceMechanism(1.0))
    assert auditor.supports(laplace, PureDP(1.0)) == Support("decides")
    for claim in (ApproxDP(1.0, 1e-6), RenyiDP(2.0, 1.0), ZCDP(1.0)):
        assert auditor.supports(laplace, claim) == Support("attempts")

    declines = [
        (laplace, SubGaussian(1.0), "the exact auditor decides privacy claims; got a sub-gaussian claim", True),
        (Mechanism(laplace_sampler), PureDP(1.0),
         "laplace_sampler exposes no .distribution(data); use a statistical auditor", False),
    ]
    for subject, claim, reason, noted in declines:
        assert auditor.supports(subject, claim) == Support("no", reason, noted)
        with pytest.raises(dpaudit.UnsupportedAudit, match=f"^{re.escape(reason)}$"):
            auditor.audit(subject, claim, pairs=[(0, 1)])


@pytest.mark.parametrize("tolerance", [-1e-9, 1.0, 1.5])
def test_a_tolerance_outside_zero_to_one_is_an_error(tolerance):
    with pytest.raises(ValueError, match=rf"^tolerance must be in \[0, 1\), got {re.escape(repr(tolerance))}$"):
        audit(LaplaceMechanism(1.0), PureDP(1.0), [(0, 1)], tolerance=tolerance)


def test_outcomes_that_cannot_be_compared_are_an_unsupported_audit_giving_the_reason():
    """Two finite laws on outcomes of mixed types (None, strings) cannot be aligned: numpy cannot sort their
    union. The audit says so (the TypeError's message), rather than failing with a bare TypeError."""
    def law(answer):
        outcomes = np.empty(2, dtype=object)
        outcomes[:] = [None, answer]
        return FiniteDistribution(outcomes, np.log([0.5, 0.5]))

    with pytest.raises(dpaudit.UnsupportedAudit, match=r"^'<' not supported between instances of '\w+' and '\w+'$") \
            as info:
        audit(TableMechanism({0: law("yes"), 1: law("no")}), PureDP(1.0), [(0, 1)])
    assert isinstance(info.value.__cause__, TypeError)


def test_pair_epsilon_lists_one_output_per_differing_coordinate_and_names_the_direction():
    """Coordinates shifted by 1 (scale 1) and -1 (scale 2), one unchanged: epsilon 1 + 1/2, reached where both
    losses peak (x <= 0 in the first, x >= 0 in the other). P = (1/2, 1/2) against Q = (9/10, 1/10): log P/Q
    peaks at log 5 on outcome 1 (d0/d1), and reversed the larger loss is log Q/P (d1/d0)."""
    r = pair_epsilon(ProductDistribution((Laplace(1.0), Laplace(1.0), Laplace(2.0))),
                     ProductDistribution((Laplace(1.0, loc=1), Laplace(1.0), Laplace(2.0, loc=-1))))
    assert r.lo == r.hi == Fraction(3, 2) and len(r.output) == 2 and r.output[0] <= 0 <= r.output[1]
    p, q = (FiniteDistribution.from_probs([0, 1], probs) for probs in (HALF, SKEWED))
    for dists, direction in (((p, q), "d0/d1"), ((q, p), "d1/d0")):
        r = pair_epsilon(*dists)
        assert r.direction == direction and r.output == [1] and r.lo <= Fraction(math.log(5)) <= r.hi


def test_outputs_that_cannot_be_compared_coordinate_by_coordinate_are_a_mechanism_error_saying_why():
    """The exact auditor compares M(d0) and M(d1) coordinate by coordinate: outputs with different numbers of
    coordinates, or a coordinate that is a finite law for one input and a Gaussian for the other, are a mistake in
    the mechanism, and the error says which (the counts, and the two kinds in the order d0, d1)."""
    from dpaudit.core.distributions import GaussianDistribution

    finite = FiniteDistribution.from_probs([0, 1], HALF)
    gaussian = GaussianDistribution(0.0, 1.0)
    cases = [
        ({0: ProductDistribution((Laplace(1.0), Laplace(1.0))), 1: Laplace(1.0)},
         "the two outputs have 2 and 1 coordinates"),
        ({0: finite, 1: gaussian}, "cannot compare a finite coordinate with a gaussian one"),
        ({0: ProductDistribution((Laplace(1.0), gaussian)), 1: ProductDistribution((Laplace(1.0), finite))},
         "cannot compare a gaussian coordinate with a finite one"),
    ]
    for table, message in cases:
        with pytest.raises(dpaudit.MechanismError) as info:
            audit(TableMechanism(table), PureDP(1.0), [(0, 1)])
        assert str(info.value) == message


def test_the_worst_pair_and_direction_ties_on_rounding_and_is_the_first_then():
    """The witness is the candidate with the largest upper end; candidates within rounding of it (a symmetric
    pair's two directions) tie, and the first of them (lowest pair index, forward first) is reported, so a change
    in the last bits does not flip the reported direction. The enclosure keeps the largest upper end and the
    largest lower end whichever candidate is named."""
    from dpaudit.auditors.exact_privacy import TIE, _Worst, _worst
    from dpaudit.exact import Enclosure

    def candidate(lo, hi, index, direction):
        return _Worst(Enclosure(Fraction(lo), hi if hi == math.inf else Fraction(hi)), index, direction, {})

    x = Fraction(1, 3)
    bit = x * Fraction(2) ** -52
    tied = _worst([candidate(x - 2 * bit, x, 0, "forward"), candidate(x - bit, x + bit, 0, "backward")])
    assert (tied.index, tied.direction) == (0, "forward")
    assert tied.value == Enclosure(x - bit, x + bit)
    apart = _worst([candidate(x / 2, x, 0, "forward"), candidate(x, x * (1 + 100 * TIE), 1, "backward")])
    assert (apart.index, apart.direction) == (1, "backward")
    first_is_below = _worst([candidate(0, x * (1 - 2 * TIE), 0, "forward"), candidate(0, x, 1, "forward"),
                             candidate(0, x - bit, 1, "backward")])
    assert (first_is_below.index, first_is_below.direction) == (1, "forward")
    infinite = _worst([candidate(1, 2, 0, "forward"), candidate(1, math.inf, 0, "backward")])
    assert infinite.direction == "backward" and infinite.value.hi == math.inf
