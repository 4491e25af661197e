"""The sum of an independent integer-valued and continuous noise, with exact tails.

X = K + Y with K an integer law (a pmf table) and Y a continuous law: P[X <= x] = sum_k P[K = k]
P[Y <= x - k], summed over K's table (the mass beyond it is below e^-750 per point). Used where a
count and a Laplace draw are added, as in report-noisy-max comparisons of epoch sums.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class IntegerPlusContinuous:
    """K + Y for independent K (integer law with ``table()``) and Y (continuous law with cdf/sf)."""

    lattice = False

    def __init__(self, integer_law: Any, continuous_law: Any, name: str | None = None):
        self.integer_law, self.continuous_law = integer_law, continuous_law
        self.name = name or f"{integer_law!r} + {continuous_law!r}"
        self._table = integer_law.table()

    def __repr__(self) -> str:
        return self.name

    @property
    def mean(self) -> float:
        return float(self.integer_law.mean + self.continuous_law.mean)

    @property
    def var(self) -> float:
        return float(self.integer_law.var + self.continuous_law.var)

    support = (-math.inf, math.inf)

    def _mix(self, x: Any, fn: Any) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        flat = x.ravel()
        k, p = self._table.values.astype(float), self._table.probs
        out = np.empty(flat.shape)
        for start in range(0, flat.size, 16):  # blocks of points: a (16, len(table)) work array
            rows = flat[start: start + 16]
            out[start: start + 16] = fn(rows[:, None] - k[None, :]) @ p
        return np.clip(out, 0.0, 1.0).reshape(x.shape)

    def cdf(self, x: Any) -> np.ndarray:
        return self._mix(x, self.continuous_law.cdf)

    def sf(self, x: Any) -> np.ndarray:
        return self._mix(x, self.continuous_law.sf)

    @property
    def cgf_domain(self) -> tuple[float, float]:
        a, b = self.continuous_law.cgf_domain
        c, d = getattr(self.integer_law, "cgf_domain", (-math.inf, math.inf))
        return max(a, c), min(b, d)

    def cgf(self, lam: Any) -> np.ndarray:
        return (np.asarray(self.integer_law.cgf(lam), dtype=float)
                + np.asarray(self.continuous_law.cgf(lam), dtype=float))

    def sample(self, size: Any, rng: np.random.Generator) -> np.ndarray:
        return self.integer_law.sample(size, rng) + self.continuous_law.sample(size, rng)


__all__ = ["IntegerPlusContinuous"]
