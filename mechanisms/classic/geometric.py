"""The truncated (range-restricted) geometric mechanism of Ghosh, Roughgarden & Sundararajan,
"Universally utility-maximizing privacy mechanisms", STOC 2009 / SICOMP 2012 (Definition of the
alpha-geometric mechanism and its range-restricted form on {0, ..., n})."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, interval_bounds
from dpaudit.core.validation import integer, positive

from ..base import ExactRelease
from ..enclosures import from_log_enclosures
from ..piecewise import interval_context


class TruncatedGeometric(ExactRelease):
    """Release a count f in {0, ..., n} as min(max(f + Z, 0), n), with Z two-sided geometric:
    P[Z = z] = (1 - a)/(1 + a) a^|z|, a = e^-epsilon.

    Input (``data``): the true count f, an integer in {0..n}. Output: an integer in {0..n}, shape
    (size,). Neighbouring relation: counts differing by at most 1 (``QueryDistance(1)`` on the
    count; a count query under add/remove-one). GRS 2009 state the mechanism for counts in
    {0..n} and alpha = e^-epsilon; the clamp is their range restriction, i.e. post-processing of the
    unrestricted geometric mechanism (here: sampled as the difference of two geometric variables of
    success probability 1 - a, which has exactly Z's law, then clamped).

    Output law: P[j] = (1 - a)/(1 + a) a^|j - f| for 0 < j < n, P[0] = P[Z <= -f] = a^f/(1 + a) and
    P[n] = P[Z >= n - f] = a^(n - f)/(1 + a) (for f = 0, P[0] = 1/(1 + a), consistent).

    **True epsilon: exactly epsilon, at every output**, derived: for neighbours f and f + 1 the
    log-ratio at an interior j is epsilon (|j - f - 1| - |j - f|) = +-epsilon; at j = 0 it is
    log(a^f / a^(f+1)) = epsilon and at j = n it is log(a^(n-f) / a^(n-f-1)) = -epsilon. So
    |loss| = epsilon for every output and every neighbouring pair (n >= 1).

    Exact distribution: log-probabilities enclosed with 192-bit interval arithmetic (epsilon is the
    exact rational value of the float given).
    """

    paper = "Ghosh, Roughgarden & Sundararajan 2009"
    source = "the alpha-geometric mechanism, range-restricted to {0, ..., n}"

    def __init__(self, epsilon: float, n: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.n = integer(self.owner, "n", n, 1)
        self.name = f"TruncatedGeometric(eps={self.epsilon:g}, n={self.n})"

    def _input(self, data: Any) -> int:
        """The true count f, checked: an integer in {0..n}."""
        arr = np.asarray(data)
        if arr.ndim != 0 or arr.dtype.kind not in "biuf" or float(arr) != round(float(arr)):
            raise ValueError(f"{self.owner}: data must be an integer count, got {data!r}")
        f = round(float(arr))
        if not 0 <= f <= self.n:
            raise ValueError(f"{self.owner}: the count must be in 0..{self.n}, got {f}")
        return f

    def _sample(self, f: int, size: int, rng: np.random.Generator) -> np.ndarray:
        p = -np.expm1(-self.epsilon)  # 1 - a without cancellation
        z = rng.geometric(p, size) - rng.geometric(p, size)
        return np.clip(f + z, 0, self.n).astype(np.int64)

    def _distribution(self, f: int) -> FiniteDistribution:
        ctx = interval_context(192)
        e = Fraction(self.epsilon)
        eps = ctx.mpf(e.numerator) / ctx.mpf(e.denominator)
        a = ctx.exp(-eps)
        log_interior = ctx.log(1 - a) - ctx.log(1 + a)
        log_edge = -ctx.log(1 + a)
        logs = []
        for j in range(self.n + 1):
            if j == 0:
                value = log_edge - eps * f
            elif j == self.n:
                value = log_edge - eps * (self.n - f)
            else:
                value = log_interior - eps * abs(j - f)
            logs.append(interval_bounds(value))
        return from_log_enclosures(np.arange(self.n + 1), logs)


__all__ = ["TruncatedGeometric"]
