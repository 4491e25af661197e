"""Noise distributions and additive mechanisms: exact laws, and samplers that follow them."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpaudit.core.distributions import ProductDistribution
from dpaudit.mechanisms import (
    AdditiveNoiseMechanism,
    DiscreteLaplace,
    DiscreteLaplaceMechanism,
    Laplace,
    LaplaceMechanism,
)


def test_laplace_matches_scipy():
    d = Laplace(2.0, loc=1.5)
    x = np.linspace(-10, 10, 41)
    ref = stats.laplace(1.5, 2.0)
    assert np.allclose(d.logpdf(x), ref.logpdf(x))
    assert np.allclose(d.cdf(x), ref.cdf(x))
    assert np.allclose(d.sf(x), ref.sf(x))
    assert np.allclose(d.exact_distribution().log_density(x), ref.logpdf(x))


@pytest.mark.parametrize("scale", [0.3, 1.0, Fraction(10, 3), 25.0])
def test_discrete_laplace_pmf(scale):
    d = DiscreteLaplace(scale, loc=2)
    k = np.arange(-2000, 2001)
    pmf = np.exp(d.logpmf(k))
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(d.cdf(k), np.cumsum(pmf), atol=1e-12)
    assert np.allclose(d.sf(k), 1 - np.cumsum(pmf), atol=1e-12)
    assert np.allclose(d.exact_distribution().log_density(k), d.logpmf(k))
    assert d.logpmf(0.5) == -np.inf


def test_discrete_laplace_sampler_follows_pmf():
    """Seeded chi-square goodness of fit on 200,000 draws, cells with expected count >= 5 and the
    tails pooled. Rejecting at p < 1e-6 means a correct sampler fails this test with
    probability 1e-6."""
    d = DiscreteLaplace(2.0)
    x = d.sample(200_000, np.random.default_rng(2024))
    k = np.arange(-20, 21)
    observed = np.array([(x < -20).sum(), *[(x == v).sum() for v in k], (x > 20).sum()])
    expected = 200_000 * np.array([d.cdf(-21), *np.exp(d.logpmf(k)), d.sf(20)])
    assert stats.chisquare(observed, expected).pvalue > 1e-6


def test_laplace_sampler_follows_cdf():
    """Seeded KS test, false-failure probability 1e-6 for a correct sampler."""
    d = Laplace(3.0, loc=0.5)
    x = d.sample(100_000, np.random.default_rng(7))
    assert stats.kstest(x, d.cdf).pvalue > 1e-6


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, "1"])
def test_invalid_scales(bad):
    with pytest.raises(ValueError, match="scale"):
        Laplace(bad)
    with pytest.raises(ValueError, match="scale"):
        DiscreteLaplace(bad)


def test_discrete_laplace_loc_must_be_integer():
    with pytest.raises(ValueError, match="integer"):
        DiscreteLaplace(1.0, loc=0.5)


def test_mechanism_shapes_and_distributions():
    rng = np.random.default_rng(0)
    m = LaplaceMechanism(0.5)
    assert m.sample(3.0, 10, rng).shape == (10,)
    assert m.sample([1.0, 2.0], 10, rng).shape == (10, 2)
    assert m.distribution(3.0) == Laplace(Fraction(2), loc=3.0)
    assert isinstance(m.distribution([1.0, 2.0]), ProductDistribution)
    g = DiscreteLaplaceMechanism(1.0)
    assert g.sample(4, 5, rng).dtype.kind == "i"
    with pytest.raises(ValueError, match="integers"):
        g.sample(0.5, 5, rng)
    with pytest.raises(ValueError, match="epsilon"):
        LaplaceMechanism(0)
    with pytest.raises(ValueError, match="query answer"):
        AdditiveNoiseMechanism(Laplace()).sample("x", 3, rng)


def test_laplace_mechanism_scale_is_exact():
    assert LaplaceMechanism(0.7).noise.scale == Fraction(1) / Fraction(0.7)
