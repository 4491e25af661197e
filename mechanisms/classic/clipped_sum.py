"""A noisy sum of real-valued records with clipping: the Laplace mechanism on a bounded sum
(Dwork & Roth 2014, Section 3.3; clipping as in e.g. Abadi et al. 2016 or any DP library's bounded
sum), and the classic bug of calibrating to the clipping bound without clipping."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.validation import positive

from ..base import ExactRelease
from ..noise import Laplace


class ClippedSum(ExactRelease):
    """Release sum_i clip(x_i, -C, C) + Lap(C/epsilon).

    Input (``data``): a dataset, a sequence of real numbers (possibly empty). Output: a number,
    shape (size,). The sum is computed with ``math.fsum`` (correctly rounded), so the sampled
    mechanism and its exact distribution use the same float.

    ``clip_records=False`` builds the classic bug: noise calibrated to the bound C, but the records
    are summed unclipped.

    **True epsilon, derived.** The output is Laplace(s(D), b) with b = C/epsilon, whose log-ratio
    between sums s and s' is (|x - s'| - |x - s|)/b, at most |s - s'|/b, attained for x beyond both.
    So epsilon = (sensitivity of s) / b:

    - clipped, add/remove one record: s changes by clip(x) in [-C, C]: **exactly epsilon**;
    - clipped, replace one record: s changes by up to 2C (x = C replaced by -C): **exactly 2 epsilon**
      (the bound was computed for the wrong relation);
    - unclipped, add/remove one record x: s changes by |x|, unbounded over records: **infinite**
      (a pair adding a record of value V has loss |V| epsilon / C).

    Exact distribution: :class:`~dpaudit.mechanisms.noise.Laplace` at the computed sum with the exact
    rational scale C/epsilon of the floats given.
    """

    paper = "Dwork & Roth 2014"
    source = "Section 3.3, the Laplace mechanism on a sum of records clipped to [-C, C]"

    def __init__(self, epsilon: float, clip: float, clip_records: bool = True):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.clip = positive(self.owner, "clip", clip)
        if not isinstance(clip_records, bool):
            raise ValueError(f"{self.owner}: clip_records must be True or False, got {clip_records!r}")
        self.clip_records = clip_records
        self.scale = Fraction(self.clip) / Fraction(self.epsilon)
        what = "clipped" if clip_records else "NOT clipped"
        self.name = f"ClippedSum(eps={self.epsilon:g}, C={self.clip:g}, records {what})"

    def total(self, data: Any) -> float:
        """The (clipped) sum of the records, checked, correctly rounded."""
        try:
            x = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{self.owner}: data must be a sequence of numbers, got {data!r}") from None
        if x.ndim != 1 or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: data must be a 1-d sequence of finite numbers, got {data!r}")
        if self.clip_records:
            x = np.clip(x, -self.clip, self.clip)
        return math.fsum(x.tolist())

    def _input(self, data: Any) -> float:
        return self.total(data)

    def _sample(self, s: float, size: int, rng: np.random.Generator) -> np.ndarray:
        return s + rng.laplace(0.0, float(self.scale), size)

    def _distribution(self, s: float) -> Laplace:
        return Laplace(self.scale, loc=s)


__all__ = ["ClippedSum"]
