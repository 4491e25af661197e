"""The noisy histogram: Laplace noise on every bin count of a dataset of category labels.

Source: Dwork, McSherry, Nissim & Smith (2006); Dwork & Roth (2014), Section 3.3 ("histogram
queries", the Laplace mechanism with Lap(1/epsilon) per bin); audited as StatDP's ``histogram`` and
``histogram_eps`` (Ding et al. CCS 2018).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer, positive

from ..base import ExactRelease
from ..noise import Laplace


class NoisyHistogram(ExactRelease):
    """Release the counts of ``bins`` categories, each plus independent Laplace noise.

    Input (``data``): a dataset, a sequence of category labels in {0, ..., bins-1} (possibly
    empty). Output: the noisy counts, shape (size, bins). Neighbouring relation: add or remove one
    record (``AddRemoveOne``).

    Noise scale b = 1/epsilon by default. ``scale`` overrides it, to build the classic bug of
    StatDP's ``histogram_eps``: scale epsilon instead of 1/epsilon.

    **True epsilon, derived.** Adding or removing one record changes exactly one count by 1 (the
    record's bin) and no other, so the l1 distance between neighbouring count vectors is 1. The
    output density is a product of Laplace(count_j, b) densities; the log-ratio is
    (|x_j - c_j - 1| - |x_j - c_j|)/b for the changed bin j only, at most 1/b in absolute value and
    equal to 1/b for every x_j <= c_j. So the true epsilon is exactly 1/b: epsilon for the correct
    scale, 1/epsilon for the bug (e.g. 1/0.7 = 1.43 against a claim of 0.7). Under replace-one
    (a record moves between two bins) two counts change and the true epsilon is 2/b.

    Exact distribution: a :class:`~dpaudit.core.distributions.ProductDistribution` of the shifted Laplace laws, with
    b kept as the exact rational 1/epsilon of the float given (sampling uses its nearest float).
    """

    paper = "Dwork & Roth 2014"
    source = "Section 3.3, histogram queries: the Laplace mechanism with Lap(1/epsilon) per bin"

    def __init__(self, epsilon: float, bins: int, scale: float | None = None):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.bins = integer(self.owner, "bins", bins, 1)
        if scale is None:
            self.scale: float | Fraction = 1 / Fraction(self.epsilon)
            self.name = f"NoisyHistogram(eps={self.epsilon:g}, bins={self.bins})"
        else:
            self.scale = positive(self.owner, "scale", scale)
            self.name = f"NoisyHistogram(eps={self.epsilon:g}, bins={self.bins}, noise scale {self.scale:g})"

    def counts(self, data: Any) -> np.ndarray:
        """The bin counts of a dataset of category labels, checked."""
        labels = np.asarray(data)
        if labels.ndim != 1:
            raise ValueError(f"{self.owner}: data must be a 1-d sequence of category labels, got shape {labels.shape}")
        if labels.size == 0:
            return np.zeros(self.bins, dtype=np.int64)
        if labels.dtype.kind not in "biuf" or not np.all(labels == np.round(labels)):
            raise ValueError(f"{self.owner}: category labels must be integers, got {data!r}")
        labels = labels.astype(np.int64)
        if labels.min() < 0 or labels.max() >= self.bins:
            raise ValueError(f"{self.owner}: category labels must be in 0..{self.bins - 1}, got {data!r}")
        return np.bincount(labels, minlength=self.bins)

    def _input(self, data: Any) -> np.ndarray:
        return self.counts(data)

    def _sample(self, c: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return c + rng.laplace(0.0, float(self.scale), (size, self.bins))

    def _distribution(self, c: np.ndarray) -> ProductDistribution:
        return ProductDistribution(tuple(Laplace(self.scale, loc=float(v)) for v in c))


__all__ = ["NoisyHistogram"]
