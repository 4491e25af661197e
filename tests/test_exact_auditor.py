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
