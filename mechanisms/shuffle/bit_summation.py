"""The bit-based shuffled summation of Cheu, Joseph, Mao & Peng, "Shuffle private stochastic convex
optimization" (ICLR 2022), which both shuffle-lcb (P_Vec, Appendix C) and shuffle-glm (P_1 and
P_2, Appendix S) run on every entry of their users' vectors and matrices.

Each user holds one entry per label, as a fraction f in [0, 1] of its range (the entry shifted by
Delta and divided by 2 Delta). The scalar randomizer rounds it to precision 2g,
x_hat = floor(2 g f) + Bernoulli(2 g f - floor(2 g f)), draws gamma2 ~ Bin(b, p), and sends a
multiset of 2g + b bits with x_hat + gamma2 ones. The shuffler permutes all bits of the batch and
groups them by label, so a label's view is its count of ones (a multiset of bits is its size and its
count of ones): C = sum_i x_hat_i + Bin(n b, p), independent across labels. The analyzer returns
(Delta / g)(C - p b n) - n Delta per label.

:class:`BitSummation` holds what the two papers share: the exact law of the view (a product of
finite laws, for the exact auditor), the fast path that draws each count from its law, the per-user
path that runs every user's randomizer, and the analyzer. Subclasses say how a user's input becomes
its fractions (:meth:`BitSummation.fractions`) and how the parameters follow from the paper.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer, sample_size

from ..base import ExactRelease
from ..noise import FiniteIntegerLaw, RandomizedRounding, convolve

P_BITS = 0.25
#: half-width of the binomial table in standard deviations: Hoeffding puts the mass outside below
#: 2 exp(-2 (12 sd)^2 / (n b)) = 2 exp(-2 * 12^2 * 3/16) < 1e-23, carried as tail mass (it adds at
#: most that to an audited delta, and keeps the tables of the papers' large b small)
TABLE_SDS = 12.0


def binomial_table(trials: int, p: float) -> FiniteIntegerLaw:
    """Bin(trials, p) on mean +- 12 sd (clipped to [0, trials]); the mass outside, bounded by
    Hoeffding's inequality P[|X - mean| >= t] <= 2 exp(-2 t^2 / trials), is its tail_mass."""
    law = stats.binom(trials, p)
    sd = math.sqrt(trials * p * (1 - p))
    lo = max(0, math.floor(trials * p - TABLE_SDS * sd))
    hi = min(trials, math.ceil(trials * p + TABLE_SDS * sd))
    t = min(trials * p - lo, hi - trials * p) + 1
    tail = 0.0 if (lo == 0 and hi == trials) else min(1.0, 2 * math.exp(-2 * t * t / trials))
    probs = law.pmf(np.arange(lo, hi + 1))
    return FiniteIntegerLaw(lo, probs, tail_mass=tail, name=f"Bin({trials}, {p:g}) on [{lo}, {hi}]")


class BitSummation(ExactRelease):
    """``labels`` scalars summed over ``users`` users, with accuracy ``g``, ``b`` noise bits per
    entry and p = 1/4 (module docstring). Subclasses implement :meth:`fractions`, the checked input
    of both :meth:`sample` and :meth:`distribution`. ``b = 0`` (no noise bits, only the rounding) is
    accepted: the papers' calibrations never give it, but a released code's does at large eps (shuffle-lcb's
    SDP-Vec at eps = 10 truncates its b = 0.61 to 0)."""

    paper = "Cheu, Joseph, Mao & Peng 2022"
    source = "the bit-based shuffled summation: scalar randomizer, shuffler, analyzer"
    p = P_BITS

    def __init__(self, g: int, b: int, users: int, labels: int):
        self.g = integer(self.owner, "g", g, 1)
        self.b = integer(self.owner, "b", b, 0)
        self.users = integer(self.owner, "users", users, 1)
        self.labels = integer(self.owner, "labels", labels, 1)
        # choice: after the shift x_hat reaches 2g, while the papers print g + b bits per message
        # (whose count of zeros could then be negative): 2g + b bits; the analyzer counts only ones
        self.bits_per_entry = 2 * self.g + self.b
        self.rounding = RandomizedRounding(2 * self.g)  # floor(w g / Delta) = floor(2 g f)
        self._noise: FiniteIntegerLaw | None = None

    def fractions(self, data: Any) -> np.ndarray:
        """The users' entries as fractions of their range, shape (users, labels), in [0, 1]."""
        raise NotImplementedError

    def noise(self) -> FiniteIntegerLaw:
        """The exact law of sum_i gamma2_i = Bin(n b, p), tabled once."""
        if self._noise is None:
            self._noise = binomial_table(self.users * self.b, self.p)
        return self._noise

    def count_laws(self, data: Any) -> list[FiniteIntegerLaw]:
        """Per label, the exact law of its count of ones: the rounding sum convolved with the noise."""
        return self._count_laws(self.fractions(data))

    def _count_laws(self, fractions: np.ndarray) -> list[FiniteIntegerLaw]:
        noise = self.noise()
        return [convolve(self.rounding.sum_law(fractions[:, k]), noise, name=f"count of label {k}")
                for k in range(self.labels)]

    def mean_counts(self, data: Any) -> np.ndarray:
        """Per label, the mean of its count of ones from the exact count law, summed exactly
        (:attr:`~dpaudit.mechanisms.noise.FiniteIntegerLaw.summed_mean`): the analyzer is affine, so it maps these to
        the output's mean."""
        return np.array([law.summed_mean for law in self.count_laws(data)])

    def count_resolution(self, Delta: float) -> float:
        """How far from the exact mean a debiased mean computed in floats may be: 2^-40 of the largest count,
        users (2g + b), on the analyzer's scale Delta / g."""
        return Delta / self.g * self.users * self.bits_per_entry * 2.0**-40

    def _input(self, data: Any) -> np.ndarray:
        return self.fractions(data)

    def _distribution(self, fractions: np.ndarray) -> ProductDistribution:
        """The exact law of the shuffled view: independent per-label counts."""
        return ProductDistribution(tuple(law.finite_distribution() for law in self._count_laws(fractions)))

    def _sample(self, fractions: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` views, shape (size, labels): each label's rounding sum from its exact law plus
        one Bin(n b, p)."""
        rounded = np.stack([self.rounding.sum_law(fractions[:, k]).sample(size, rng) for k in range(self.labels)],
                           axis=1)
        return rounded + rng.binomial(self.users * self.b, self.p, (size, self.labels))

    def randomize_fractions(self, fractions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The scalar randomizer on every entry (any shape): each message's count of ones, x_hat + gamma2."""
        return self.rounding.round(fractions, rng) + rng.binomial(self.b, self.p, np.shape(fractions))

    def sample_per_user(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """The views as printed: every user randomizes every entry; the shuffler groups the bits by label."""
        size = sample_size(self.owner, size)
        fractions = np.broadcast_to(self.fractions(data), (size, self.users, self.labels))
        return self.randomize_fractions(fractions, rng).sum(axis=1)

    def debias(self, counts: Any, Delta: float) -> np.ndarray:
        """The analyzer and the re-centring, per label: o = (Delta / g)(C - p b n) - n Delta."""
        counts = np.asarray(counts, dtype=float)
        return Delta / self.g * (counts - self.p * self.b * self.users) - self.users * Delta
