"""private-online's per-epoch private releases (Hu, Huang & Mehta, "Near-Optimal Algorithms for
Private Online Learning in a Stochastic Environment"): the mechanisms its privacy theorems rest on,
each on the data one release reads.

- :class:`LazyArrayRelease` (M1, eq. 3, Anytime-Lazy-UCB, Theorem 2): when arm j's array r (its
  pulls 2^r .. 2^{r+1} - 1) is full, release (sum of the array + Lap(1/eps)) / 2^r, once.
- Hybrid-UCB's releases (M2, Theorem 5) are in :mod:`dpaudit.mechanisms.counters.hybrid_counter`.
- :class:`EpochNoisyMax` (M3, Algorithm 3, FTNL, Theorem 6): argmax_j (G_j + Lap(1/eps)) over the
  K actions' reward sums G_j of the epoch's 2^s complete reward vectors; :func:`epoch_comparison`,
  the exact law of the comparison G~_j - G~_1 it makes (Lemma 13) on Bernoulli rewards.
- :class:`NaiveEpochLaplace` (M4, Section 5, naive FTNL): every action's epoch sum plus Lap(K/eps)
  (the paper says only "(eps/K)-DP per action"; Lap(K/eps) is the choice that gives it, since one
  reward vector moves each sum by at most 1).
- :class:`NoisyArmSums` (M5, the baseline DP-SE's private step, Sajed & Sheffet 2019): each arm's
  reward sum over its pulls of the epoch plus Lap(1/eps); DP-SE's epochs and elimination rule live
  with the algorithms (``algorithms.mab.dp_se``).

Data: the rewards the release reads, in [0, 1]: one arm's array (M1: shape (2^r,)), or the
epoch's reward vectors (M3, M4: shape (2^s, K), rounds x actions). Neighbouring relation
(Definition 1): one round's reward (vector) replaced, i.e. ``ReplaceOne`` on an array and
``ReplaceRewardVector`` on an epoch table. Every class has ``distribution`` for the exact auditor.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer, positive

from ..base import Adapter, ExactRelease
from ..classic.noisy_max import ReportNoisyMax
from ..noise import (
    Binomial,
    FiniteIntegerLaw,
    IntegerPlusContinuous,
    Laplace,
    LaplaceSum,
    convolve,
)


def _rewards(owner: str, data: Any, shape: tuple[int, ...]) -> np.ndarray:
    x = np.asarray(data, dtype=float)
    if x.shape != shape or not np.isfinite(x).all() or (x < 0).any() or (x > 1).any():
        raise ValueError(f"{owner}: data must be rewards in [0, 1] of shape {shape}, got shape {x.shape}")
    return x


class LazyArrayRelease(ExactRelease):
    """M1: the noisy mean (sum + Lap(1/eps)) / 2^r of one full array of 2^r rewards (eq. 3). The
    scale 1/(eps 2^r) of the released mean is kept as an exact rational."""

    paper = "private-online"
    source = "M1 of Anytime-Lazy-UCB: eq. 3 (Theorem 2)"

    def __init__(self, epsilon: float, r: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.r = integer(self.owner, "r", r, 0)
        self.size = 2**self.r
        self.noise = Laplace(Fraction(1) / (Fraction(self.epsilon) * self.size))
        self.name = f"LazyArrayRelease(eps={self.epsilon:g}, array {self.r} of {self.size} rewards)"

    def _input(self, data: Any) -> np.ndarray:
        return _rewards(self.owner, data, (self.size,))

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return x.sum() / self.size + self.noise.sample(size, rng)

    def _distribution(self, x: np.ndarray) -> Laplace:
        return self.noise.shifted(float(x.sum()) / self.size)


class EpochNoisyMax(Adapter):
    """M3 (Algorithm 3): the index argmax_j (G_j + Lap(1/eps)) of the epoch's K reward sums.

    The exact law is :class:`~dpaudit.mechanisms.ReportNoisyMax`'s on the answers G with noise scale
    1/eps (that class's scale 2 Delta/eps' at eps' = 2 eps). One reward vector replaced moves every
    G_j by at most 1, in either direction. The release is that mechanism's (:attr:`inner`) on the
    sums (:meth:`sums`)."""

    paper = "private-online"
    source = "M3 of FTNL: Algorithm 3 (Theorem 6)"

    def __init__(self, epsilon: float, K: int, s: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.K = integer(self.owner, "K", K, 2)
        self.s = integer(self.owner, "s", s, 0)
        self.rounds = 2**self.s
        self.inner = ReportNoisyMax(2 * self.epsilon, self.K, sensitivity=1.0, noise="laplace")
        self.name = f"EpochNoisyMax(eps={self.epsilon:g}, K={self.K}, epoch of 2^{self.s} rounds)"

    def sums(self, data: Any) -> np.ndarray:
        return _rewards(self.owner, data, (self.rounds, self.K)).sum(axis=0)

    def _input(self, data: Any) -> np.ndarray:
        return self.sums(data)


def epoch_comparison(r: int, gap: float, eps: float) -> IntegerPlusContinuous:
    """G_j - G_1 + Z_j - Z_1: G ~ Binomial(2^r, 1/2 -+ gap/2), Z i.i.d. Lap(1/eps)."""
    rounds = 2**r
    worse = Binomial(rounds, 0.5 - gap / 2)
    best_complement = Binomial(rounds, 0.5 - gap / 2)  # rounds - G_1 ~ Binomial(rounds, 1 - mu_1)
    counts = convolve(worse, best_complement)
    shifted = FiniteIntegerLaw(counts.offset - rounds, counts.probs, counts.tail_mass, counts.log_error)
    return IntegerPlusContinuous(shifted, LaplaceSum(2, 1 / eps),
                                 name=f"G~_j - G~_1, epoch r = {r}, gap {gap:g}, eps {eps:g}")


class NaiveEpochLaplace(ExactRelease):
    """M4 (naive FTNL): every action's epoch sum G_j plus its own Lap(K/eps), all K released."""

    paper = "private-online"
    source = "M4: naive FTNL, Section 5"

    def __init__(self, epsilon: float, K: int, s: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.K = integer(self.owner, "K", K, 2)
        self.s = integer(self.owner, "s", s, 0)
        self.rounds = 2**self.s
        self.noise = Laplace(Fraction(self.K) / Fraction(self.epsilon))
        self.name = f"NaiveEpochLaplace(eps={self.epsilon:g}, K={self.K}, epoch of 2^{self.s} rounds)"

    def sums(self, data: Any) -> np.ndarray:
        return _rewards(self.owner, data, (self.rounds, self.K)).sum(axis=0)

    def _input(self, data: Any) -> np.ndarray:
        return self.sums(data)

    def _sample(self, sums: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return sums + self.noise.sample((size, self.K), rng)

    def _distribution(self, sums: np.ndarray) -> ProductDistribution:
        return ProductDistribution(tuple(self.noise.shifted(float(g)) for g in sums))


class NoisyArmSums(ExactRelease):
    """Each of ``arms`` arms' reward sum over its ``pulls`` observations, plus its own Lap(1/eps): the
    private step of DP-SE (Sajed & Sheffet 2019), whose epoch means are these sums over ``pulls``.

    Data: the arms' observations arm by arm, shape (arms * pulls,) (``data[i pulls : (i + 1) pulls]``
    are arm i's), rewards in [0, 1]. Output: the noisy sums, shape (size, arms). One observation
    replaced moves one arm's sum by at most 1, so Lap(1/eps) per sum is eps-DP. Exact law: independent
    Laplace(sum_i, 1/eps), the scale kept as an exact rational."""

    paper = "Sajed & Sheffet 2019"
    source = "DP-SE: an epoch's noisy sums (reconstructed as private-online A3, dist-mab 3.5)"

    def __init__(self, epsilon: float, arms: int, pulls: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.arms = integer(self.owner, "arms", arms, 1)
        self.pulls = integer(self.owner, "pulls", pulls, 1)
        self.noise = Laplace(1 / Fraction(self.epsilon))  # Lap(1/eps) on each arm's sum
        self.name = f"NoisyArmSums(eps={self.epsilon:g}, {self.arms} arms, {self.pulls} pulls each)"

    def _input(self, data: Any) -> np.ndarray:
        """The observations, checked: arms * pulls rewards in [0, 1], arm by arm."""
        return _rewards(self.owner, data, (self.arms * self.pulls,))

    def _sums(self, x: np.ndarray) -> np.ndarray:
        return x.reshape(self.arms, self.pulls).sum(axis=1)

    def sums(self, data: Any) -> np.ndarray:
        """Each arm's reward sum over its ``pulls`` observations."""
        return self._sums(self._input(data))

    def add_noise(self, sums: Any, rng: np.random.Generator) -> np.ndarray:
        """The release on sums already formed, any leading shape (one row per run): sums + Lap(1/eps)."""
        sums = np.asarray(sums, dtype=float)
        if sums.ndim == 0 or sums.shape[-1] != self.arms:
            raise ValueError(f"{self.owner}: sums must end with an axis of {self.arms} arms, got shape {sums.shape}")
        return sums + self.noise.sample(sums.shape, rng)

    def add_shared_noise(self, sums: Any, rng: np.random.Generator) -> np.ndarray:
        """dist-mab's released DP-SE: one Lap(1/eps) per row added to every arm's sum (a variant, not
        this release: each arm's sum alone is eps-DP, but the differences between arms come out exact,
        so the vector is not private at all)."""
        sums = np.asarray(sums, dtype=float)
        if sums.ndim == 0 or sums.shape[-1] != self.arms:
            raise ValueError(f"{self.owner}: sums must end with an axis of {self.arms} arms, got shape {sums.shape}")
        return sums + self.noise.sample(sums.shape[:-1] + (1,), rng)

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return self._sums(x) + self.noise.sample((size, self.arms), rng)

    def _distribution(self, x: np.ndarray) -> ProductDistribution:
        return ProductDistribution(tuple(self.noise.shifted(float(v)) for v in self._sums(x)))


__all__ = ["EpochNoisyMax", "LazyArrayRelease", "NaiveEpochLaplace", "NoisyArmSums", "epoch_comparison"]
