"""Double spending of a privacy budget: several independent runs of one mechanism on the same input.

Basic composition (Dwork & Roth 2014, Theorem 3.16): releasing r independent epsilon-DP answers
costs r epsilon. The classic mistake is to release r independent Laplace(Delta/epsilon) answers of
one query and claim epsilon, as if the budget were spent once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.stats import binom

from dpaudit.core.distributions import FiniteDistribution, ProductDistribution
from dpaudit.core.validation import integer

from ..base import ExactRelease, Release


class RepeatedRelease(Release):
    """Release ``times`` independent outputs of ``base`` on the same input.

    ``base`` is a mechanism with ``sample(data, size, rng)`` (scalar outputs) and optionally
    ``distribution(data)`` (a scalar exact distribution). Output: shape (size, times), one column per
    release; the input and the neighbouring relation are the base mechanism's.

    **True epsilon, derived, for base = Laplace(Delta/epsilon) on a query of sensitivity Delta:
    exactly times * epsilon.** The releases are independent given the input, so the log-ratio is the
    sum of the per-release log-ratios, each epsilon (|x_i - q - Delta| - |x_i - q|)/Delta, at most
    epsilon, and all equal to epsilon at once on the positive-probability region {x_i <= q for all i}
    (neighbour q + Delta). So the budget spent is times * epsilon, attained; composition is tight here.

    Exact distribution (only when the base mechanism has one): the product of ``times`` copies of the
    base distribution.
    """

    paper = "Dwork & Roth 2014"
    source = "Theorem 3.16 (basic composition)"

    def __init__(self, base: Any, times: int = 2, name: str | None = None):
        if not callable(getattr(base, "sample", None)):
            raise ValueError(f"{self.owner}: base must be a mechanism with .sample(data, size, rng), got {base!r}")
        self.base = base
        self.times = integer(self.owner, "times", times, 1)
        self.name = name or f"{self.times} independent releases of {getattr(base, 'name', repr(base))}"
        if callable(getattr(base, "distribution", None)):
            # a Release, not an ExactRelease: the harness decides exactly only what has a distribution method,
            # and this one has it iff its base does
            self.distribution = self._distribution

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        columns = [np.asarray(self.base.sample(data, size, rng)) for _ in range(self.times)]
        if any(c.shape != (size,) for c in columns):
            raise ValueError(f"{self.owner}: the base mechanism must return scalar outputs, shape (size,)")
        return np.column_stack(columns)

    def _distribution(self, data: Any) -> ProductDistribution:
        one = self.base.distribution(data)
        return ProductDistribution((one,) * self.times)


class RepeatedResponseCount(ExactRelease):
    """k independent binary randomized responses at eps of one user's bit, released as the number of
    responses equal to 1: Bin(k, a) on a 1, Bin(k, 1 - a) on a 0, a = e^eps/(1 + e^eps). The count is a
    sufficient statistic of the k responses (their likelihood ratio is e^{eps (2 c - k)} for c ones), so
    this release has the privacy profile of the k-fold composition
    (:class:`~dpaudit.mechanisms.classic.composition.RepeatedRelease` of
    :class:`~dpaudit.mechanisms.RandomizedResponse`, checked against the 2^k answer vectors in
    tests/test_dist_mab_conversions.py) with k + 1 outcomes instead of 2^k. Used by dist-mab's Theorem 7
    entries (an audit fixture, not a mechanism of that paper).
    log_error = 1e-9 bounds the rounding of scipy's log binomial coefficients (a few ulps of values up to
    k log 2) with a wide margin."""

    paper = "Kairouz, Oh & Viswanath 2015"
    source = "randomized response composed k times (the worst case of Theorem 3.3 for pure eps)"

    def __init__(self, epsilon: float, k: int):
        self.epsilon, self.k = float(epsilon), int(k)
        self.name = f"RepeatedResponseCount(eps={self.epsilon:.4g}, k={self.k})"

    def _input(self, data: Any) -> int:
        x = int(np.asarray(data).ravel()[0])
        if x not in (0, 1):
            raise ValueError(f"{self.owner}: the user's bit must be 0 or 1, got {x}")
        return x

    def _keep(self) -> float:
        return 1 / (1 + math.exp(-self.epsilon))

    def _sample(self, x: int, size: int, rng: np.random.Generator) -> np.ndarray:
        p = self._keep() if x == 1 else 1 - self._keep()
        return rng.binomial(self.k, p, size).astype(np.int64)

    def _distribution(self, x: int) -> FiniteDistribution:
        c = np.arange(self.k + 1)
        # log pmf: log C(k, c) + c log p + (k - c) log(1 - p), with log p = -log1p(e^-eps) for the kept answer
        log_keep, log_flip = -math.log1p(math.exp(-self.epsilon)), -math.log1p(math.exp(self.epsilon))
        ones, zeros = (log_keep, log_flip) if x == 1 else (log_flip, log_keep)
        log_pmf = binom.logpmf(c, self.k, 0.5) + self.k * math.log(2) + c * ones + (self.k - c) * zeros
        return FiniteDistribution(c, log_pmf, log_error=1e-9)


__all__ = ["RepeatedRelease", "RepeatedResponseCount"]
