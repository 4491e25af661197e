"""Double spending of a privacy budget: several independent runs of one mechanism on the same input.

Basic composition (Dwork & Roth 2014, Theorem 3.16): releasing r independent epsilon-DP answers
costs r epsilon. The classic mistake is to release r independent Laplace(Delta/epsilon) answers of
one query and claim epsilon, as if the budget were spent once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer

from .base import Release


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


__all__ = ["RepeatedRelease"]
