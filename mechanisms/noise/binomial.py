"""Binomial noise, Bernoulli coins and the two discretisation steps of distributed protocols:
randomized rounding to precision g and reduction modulo m (with the analyzer's wrap-around fix)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import stats

from dpaudit.core.validation import integer, non_negative, probability

from ._lattice import TABLE_LOG_ERROR, FiniteIntegerLaw, IntegerLaw, ScipyIntegerLaw, convolve_tables


@dataclass(frozen=True)
class Binomial(ScipyIntegerLaw):
    """Binomial(m, p): the number of successes in ``m`` independent Bernoulli(p) trials."""

    m: int = 1
    p: float = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "m", integer(type(self).__name__, "m", self.m, minimum=1))
        object.__setattr__(self, "p", probability(type(self).__name__, "p", self.p, open_low=False, open_high=False))

    @property
    def _offset(self) -> int:
        return 0

    @property
    def _scipy(self):
        return stats.binom(self.m, self.p, loc=self._offset)

    @property
    def mean(self) -> float:
        return self._offset + self.m * self.p

    @property
    def var(self) -> float:
        return self.m * self.p * (1 - self.p)

    @property
    def support(self) -> tuple[float, float]:
        return float(self._offset), float(self._offset + self.m)

    cgf_domain = (-math.inf, math.inf)

    def cgf(self, lam) -> np.ndarray:
        """lam offset + m log(1 - p + p e^lam): log1p(p expm1(lam)) keeps full relative precision for
        small lam (where m in the billions multiplies it); logaddexp takes over for large lam."""
        lam = np.asarray(lam, dtype=float)
        with np.errstate(divide="ignore", over="ignore"):
            lq, lp = math.log1p(-self.p) if self.p < 1 else -math.inf, math.log(self.p) if self.p > 0 else -math.inf
            small = np.log1p(self.p * np.expm1(np.minimum(lam, 1.0)))
            large = np.logaddexp(lq, lp + lam)
        return lam * self._offset + self.m * np.where(lam < 1.0, small, large)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return self._offset + rng.binomial(self.m, self.p, size)


class SymmetricBinomial(Binomial):
    """Binomial(m, 1/2) - m/2: centred binomial noise (``m`` even, so that it is integer-valued)."""

    def __init__(self, m: int):
        m = integer("SymmetricBinomial", "m", m, minimum=2)
        if m % 2:
            raise ValueError(f"SymmetricBinomial: m must be even (Binomial(m, 1/2) - m/2 is then integer), got {m}")
        super().__init__(m, 0.5)

    def __repr__(self) -> str:
        return f"SymmetricBinomial(m={self.m})"

    @property
    def _offset(self) -> int:
        return -self.m // 2


@dataclass(frozen=True)
class BernoulliExp(IntegerLaw):
    """Bernoulli(exp(-x)) for x >= 0: the coin of exact discrete Laplace and Gaussian samplers."""

    x: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", non_negative("BernoulliExp", "x", self.x))

    @property
    def p(self) -> float:
        return math.exp(-self.x)

    @cached_property
    def _law(self) -> FiniteIntegerLaw:
        return FiniteIntegerLaw(0, [-math.expm1(-self.x), self.p])

    def logpmf(self, k) -> np.ndarray:
        return self._law.logpmf(k)

    def cdf(self, k) -> np.ndarray:
        return self._law.cdf(k)

    def sf(self, k) -> np.ndarray:
        return self._law.sf(k)

    @property
    def mean(self) -> float:
        return self.p

    @property
    def var(self) -> float:
        return self.p * -math.expm1(-self.x)

    support = (0.0, 1.0)
    cgf_domain = (-math.inf, math.inf)

    def cgf(self, lam) -> np.ndarray:
        return np.logaddexp(math.log(-math.expm1(-self.x)) if self.x > 0 else -math.inf,
                            -self.x + np.asarray(lam, dtype=float))

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return (rng.random(size) < self.p).astype(np.int64)


@dataclass(frozen=True)
class RandomizedRounding:
    """Unbiased randomized rounding to precision ``g`` (dist-mab, Algorithm 1, line 20).

    x in [0, 1] becomes x_hat = floor(x g) + Bernoulli(x g - floor(x g)), an integer in {0, ..., g}
    with E[x_hat] = x g; the rounding error iota = x_hat - x g lies in [-1, 1] with mean 0.
    """

    g: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "g", integer("RandomizedRounding", "g", self.g, minimum=1))

    def _scaled(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if not np.isfinite(x).all() or (x < 0).any() or (x > 1).any():
            raise ValueError("RandomizedRounding: inputs must lie in [0, 1]")
        return x * self.g

    def round(self, x, rng: np.random.Generator) -> np.ndarray:
        """Round every entry of ``x`` independently (vectorised; the output has x's shape)."""
        return self.round_scaled(self._scaled(x), rng)

    def round_in_range(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """:meth:`round` of a float array whose caller has made sure it lies in [0, 1]: the same draws without
        the check (a vector tree rounds one round's entries at every one of its levels' precisions)."""
        return self.round_scaled(x * self.g, rng)

    @staticmethod
    def round_scaled(xg: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Randomized rounding of values already scaled by their precision (x g, any g per entry, unchecked):
        floor(x g) + Bernoulli(x g - floor(x g)), one uniform per entry, as int64."""
        low = np.floor(xg)
        return (low + (rng.random(xg.shape) < xg - low)).astype(np.int64)

    def law(self, x: float) -> FiniteIntegerLaw:
        """The exact law of x_hat for one input."""
        xg = float(self._scaled(x))
        low = math.floor(xg)
        frac = xg - low
        return FiniteIntegerLaw(low, [1 - frac, frac]) if frac > 0 else FiniteIntegerLaw(low, [1.0])

    def sum_law(self, xs) -> FiniteIntegerLaw:
        """The exact law of sum_i x_hat_i for independent roundings of the inputs ``xs``: the
        deterministic parts (inputs on the grid) shift it, the others are convolved."""
        xg = self._scaled(np.asarray(xs, dtype=float).ravel())
        low = np.floor(xg)
        frac = xg - low
        parts = ([(0, np.array([1 - f, f]), 0.0, TABLE_LOG_ERROR) for f in frac[frac > 0]]
                 or [(0, np.array([1.0]), 0.0, TABLE_LOG_ERROR)])
        offset, probs, tail_mass, log_error = convolve_tables(parts)
        return FiniteIntegerLaw(offset + int(low.sum()), probs, tail_mass, log_error,
                                name=f"sum of {xg.size} inputs rounded to precision {self.g}")


@dataclass(frozen=True)
class ModularReduction:
    """Reduction modulo ``m`` (secure aggregation reveals only the sum mod m) and the analyzer's
    wrap-around correction (dist-mab, Algorithm 1, lines 22-30).

    :meth:`correct` maps y in {0, ..., m - 1} to y - m when y > ``threshold`` (the analyzer uses
    threshold = n g + tau), so every integer in [threshold - m + 1, threshold] is recovered exactly.
    """

    m: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "m", integer("ModularReduction", "modulus m", self.m, minimum=2))

    def reduce(self, y) -> np.ndarray:
        """Mathematical mod: a value in {0, ..., m - 1} even for negative y."""
        return np.mod(np.asarray(y), self.m)

    def correct(self, y, threshold: int) -> np.ndarray:
        threshold = self._threshold(threshold)
        y = np.asarray(y)
        return np.where(y > threshold, y - self.m, y)

    def _threshold(self, threshold: int) -> int:
        threshold = integer("ModularReduction", "threshold", threshold)
        if not 0 <= threshold <= self.m - 1:
            raise ValueError(f"ModularReduction: threshold must be in [0, m - 1] = [0, {self.m - 1}], got {threshold}")
        return threshold

    def _folded(self, law) -> tuple[np.ndarray, object]:
        t = law.table()
        return np.bincount(np.mod(t.values, self.m), weights=t.probs, minlength=self.m), t

    def wrap(self, law) -> FiniteIntegerLaw:
        """The exact law of X mod m for an integer-valued ``law`` (its table folded onto Z_m)."""
        folded, t = self._folded(law)
        return FiniteIntegerLaw(0, folded, tail_mass=t.tail_mass, log_error=t.log_error)

    def corrected(self, law, threshold: int) -> FiniteIntegerLaw:
        """The exact law of the analyzer's output correct(X mod m) on [threshold - m + 1, threshold]:
        X itself when X lies in that range, a wrapped value otherwise."""
        threshold = self._threshold(threshold)
        folded, t = self._folded(law)
        probs = np.concatenate([folded[threshold + 1:], folded[: threshold + 1]])
        return FiniteIntegerLaw(threshold + 1 - self.m, probs, tail_mass=t.tail_mass, log_error=t.log_error)


__all__ = ["BernoulliExp", "Binomial", "ModularReduction", "RandomizedRounding", "SymmetricBinomial"]
