"""A release beside the inputs it leaves out: (M(D_{-I}), D_I), the construction of Lemma B.5 of concurrent-shuffle
(Tenenbaum et al.): releasing the inputs in I next to an (eps, delta)-DP output keeps (eps, delta)-DP with respect to
the inputs outside I, and reveals the inputs in I entirely.

**True privacy, derived.** For neighbours that differ outside I, D_I is the same on both sides, so the output's
second coordinate is the same point mass and the privacy profile is M's own. For neighbours that differ inside I the
point masses are disjoint: delta(eps) = 1 for every eps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, ProductDistribution

from ..base import ExactRelease


class ReleasedInputs(ExactRelease):
    """(M(D_{-I}), D_I): ``inner`` on the first ``m`` bits of D, the remaining bits released as they are (encoded as
    one integer, bit j of the code the j-th released bit). Output shape (size, 2)."""

    paper = "concurrent-shuffle"
    source = "Lemma B.5: an (eps, delta)-DP output released beside the inputs in I"

    def __init__(self, inner: Any, m: int, released: int):
        self.inner, self.m, self.released = inner, int(m), int(released)
        self.name = f"({inner!r}, D_I) with {self.released} released bits"

    def _input(self, data: Any) -> np.ndarray:
        x = np.asarray(data)
        if x.shape != (self.m + self.released,) or not np.isin(x, (0, 1)).all():
            raise ValueError(f"{self.owner}: data must be {self.m + self.released} bits, got {data!r}")
        return x.astype(np.int64)

    def _code(self, x: np.ndarray) -> int:
        return int(sum(int(b) << j for j, b in enumerate(x[self.m:])))

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.column_stack([self.inner.sample(x[:self.m], size, rng), np.full(size, self._code(x))])

    def _distribution(self, x: np.ndarray) -> ProductDistribution:
        point = FiniteDistribution(np.array([self._code(x)]), np.array([0.0]))
        return ProductDistribution((self.inner.distribution(x[:self.m]), point))


__all__ = ["ReleasedInputs"]
