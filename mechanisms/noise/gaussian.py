"""The Gaussian distribution and the discrete Gaussian N_Z(loc, sigma^2) on the integers.

The discrete Gaussian's sampler is the rejection algorithm of Canonne, Kamath and Steinke (2020,
Algorithm 3), vectorised: propose Y from a discrete Laplace of scale t = floor(sigma) + 1 and
accept with probability exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)).

- :meth:`DiscreteGaussian.sample` is exact when sigma^2 is (to double precision) a rational p/q
  with q <= 10^6 whose arithmetic fits in int64 (sigma = 10, sigma^2 = 0.49, ...): every coin is a
  comparison of uniform integers (:mod:`.exact_coins`), so the output law is exactly N_Z(loc, p/q).
  Otherwise it falls back to :meth:`~DiscreteGaussian.sample_fast` (``exact_sampling`` says which).
- :meth:`DiscreteGaussian.sample_fast` proposes with the float discrete Laplace and accepts with a
  float64 coin, so each acceptance probability is off by at most a few units in 2^-53; about ten
  times faster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np
from scipy import special, stats
from scipy.special import logsumexp

from dpaudit.core.distributions import GaussianDistribution
from dpaudit.core.validation import finite_number, integer, positive

from ._lattice import IntegerLaw
from .exact_coins import discrete_gaussian as exact_discrete_gaussian
from .exact_coins import gaussian_fits
from .laplace import two_sided_geometric

#: below this sigma the normaliser is summed directly; above it the Poisson-summation (theta)
#: series has converged to double precision after its first term
_DIRECT_SIGMA = 3.0
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


@dataclass(frozen=True)
class Gaussian:
    """Normal(loc, sigma^2) on the reals: Gaussian(sigma, loc=0)."""

    sigma: float = 1.0
    loc: float = field(default=0.0, kw_only=True)
    lattice = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "loc", finite_number("Gaussian", "loc", self.loc))
        object.__setattr__(self, "sigma", float(positive("Gaussian", "sigma", self.sigma)))

    @property
    def mean(self) -> float:
        return self.loc

    @property
    def var(self) -> float:
        return self.sigma**2

    support = (-math.inf, math.inf)
    cgf_domain = (-math.inf, math.inf)

    def cgf(self, lam) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        return lam * self.loc + 0.5 * (lam * self.sigma) ** 2

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return rng.normal(self.loc, self.sigma, size)

    def logpdf(self, x) -> np.ndarray:
        return stats.norm.logpdf(x, self.loc, self.sigma)

    def cdf(self, x) -> np.ndarray:
        return special.ndtr((np.asarray(x, dtype=float) - self.loc) / self.sigma)

    def sf(self, x) -> np.ndarray:
        return special.ndtr((self.loc - np.asarray(x, dtype=float)) / self.sigma)

    def shifted(self, by: float) -> Gaussian:
        return Gaussian(self.sigma, loc=self.loc + by)

    def exact_distribution(self) -> GaussianDistribution:
        return GaussianDistribution(self.loc, self.sigma)


def _log_theta(sigma: float, shift: np.ndarray) -> np.ndarray:
    """log sum over integers y of exp(-(y - shift)^2 / (2 sigma^2)), for real shifts."""
    shift = np.asarray(shift, dtype=float)
    if sigma >= _DIRECT_SIGMA:
        # Poisson summation: sigma sqrt(2 pi) (1 + 2 sum_j exp(-2 pi^2 sigma^2 j^2) cos(2 pi j shift));
        # for sigma >= 3 the j = 1 term is below e^-177, far under double precision
        j = np.arange(1, 4)[:, None]
        series = 2 * np.sum(np.exp(-2 * math.pi**2 * sigma**2 * j**2) * np.cos(2 * math.pi * j * shift.ravel()), axis=0)
        return (math.log(sigma) + _LOG_SQRT_2PI + np.log1p(series)).reshape(shift.shape)
    reach = math.ceil(40 * sigma) + 2
    frac = shift - np.floor(shift)
    y = np.arange(-reach, reach + 1)[:, None]
    return logsumexp(-((y - frac.ravel()) ** 2) / (2 * sigma**2), axis=0).reshape(shift.shape)


@dataclass(frozen=True)
class DiscreteGaussian(IntegerLaw):
    """N_Z(loc, sigma^2): P[X = x] proportional to exp(-(x - loc)^2 / (2 sigma^2)) on the integers.

    ``sigma`` is the parameter the papers write as sigma (their N_Z(0, sigma^2)); the variance is
    slightly below sigma^2 (:attr:`var` is exact). ``loc`` must be an integer.
    """

    sigma: float = 1.0
    loc: int = field(default=0, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", float(positive("DiscreteGaussian", "sigma", self.sigma)))
        object.__setattr__(self, "loc", integer("DiscreteGaussian", "loc", self.loc))

    @cached_property
    def _log_norm(self) -> float:
        return float(_log_theta(self.sigma, np.zeros(1))[0])

    def logpmf(self, k) -> np.ndarray:
        k = np.asarray(k, dtype=float)
        out = -((k - self.loc) ** 2) / (2 * self.sigma**2) - self._log_norm
        return np.where(k == np.round(k), out, -np.inf)

    @property
    def mean(self) -> float:
        return float(self.loc)

    @cached_property
    def var(self) -> float:
        """E (X - loc)^2, summed over the pmf table for small sigma; for sigma >= 3 it equals sigma^2
        to within a relative 1e-70 (Poisson summation), below double precision."""
        if self.sigma >= _DIRECT_SIGMA:
            return self.sigma**2
        return self.table().var

    support = (-math.inf, math.inf)
    cgf_domain = (-math.inf, math.inf)

    def cgf(self, lam) -> np.ndarray:
        """Completing the square: lam loc + lam^2 sigma^2 / 2 + log theta(lam sigma^2) - log theta(0)."""
        lam = np.asarray(lam, dtype=float)
        return (lam * self.loc + 0.5 * (lam * self.sigma) ** 2 + _log_theta(self.sigma, lam * self.sigma**2)
                - self._log_norm)

    def window(self) -> tuple[int, int]:
        reach = math.ceil(math.sqrt(-2 * -750.0) * self.sigma) + 1  # exp(-reach^2 / 2 sigma^2) < e^-750
        return self.loc - reach, self.loc + reach

    @cached_property
    def variance_fraction(self) -> Fraction | None:
        """sigma^2 as a rational p/q (q <= 10^6) equal to it to double precision, if the exact
        sampler's integer arithmetic fits in int64; else None."""
        sigma2 = self.sigma**2
        rational = Fraction(sigma2).limit_denominator(10**6)
        if abs(float(rational) - sigma2) > 2 * math.ulp(sigma2):
            return None
        return rational if gaussian_fits(rational.numerator, rational.denominator) else None

    @property
    def exact_sampling(self) -> bool:
        return self.variance_fraction is not None

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        """Exact samples (see the module) when :attr:`exact_sampling`, else :meth:`sample_fast`."""
        rational = self.variance_fraction
        if rational is None:
            return self.sample_fast(size, rng)
        shape = (size,) if np.isscalar(size) else tuple(size)
        n = int(np.prod(shape))
        return (exact_discrete_gaussian(rational.numerator, rational.denominator, n, rng) + self.loc).reshape(shape)

    def sample_fast(self, size, rng: np.random.Generator) -> np.ndarray:
        """The same algorithm with a float discrete Laplace proposal and a float64 acceptance coin."""
        shape = (size,) if np.isscalar(size) else tuple(size)
        n = int(np.prod(shape))
        sigma2 = self.sigma**2
        t = math.floor(self.sigma) + 1
        out = np.empty(n, dtype=np.int64)
        filled, rate = 0, 0.5
        while filled < n:
            m = int((n - filled) / rate * 1.05) + 16
            y = two_sided_geometric(t, m, rng)
            keep = y[rng.random(m) < np.exp(-((np.abs(y) - sigma2 / t) ** 2) / (2 * sigma2))]
            rate = max(keep.size / m, 0.05)
            take = min(keep.size, n - filled)
            out[filled: filled + take] = keep[:take]
            filled += take
        return (out + self.loc).reshape(shape)

    def shifted(self, by: int) -> DiscreteGaussian:
        return DiscreteGaussian(self.sigma, loc=self.loc + by)


__all__ = ["DiscreteGaussian", "Gaussian"]
