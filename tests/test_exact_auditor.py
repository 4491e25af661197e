"""The exact pure-DP auditor against closed forms."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpaudit
from dpaudit import ApproxDP, PureDP
from dpaudit.auditors.exact_privacy import pair_epsilon
from dpaudit.distributions import LogLinearDistribution, ProductDistribution
from dpaudit.mechanisms import (
    AdditiveNoiseMechanism,
    DiscreteLaplace,
    DiscreteLaplaceMechanism,
    Laplace,
    LaplaceMechanism,
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
    from dpaudit.distributions import LogConstant

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
