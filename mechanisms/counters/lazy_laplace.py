"""private-online M1: the lazy, forgetful Laplace release of Anytime-Lazy-UCB (Hu, Huang & Mehta,
Algorithm 1, eq. 3, Appendix A), on one arm's whole stream of observations.

Arm j's pulls fill arrays of doubling size: array r (size 2^r) holds its pulls 2^r .. 2^{r+1} - 1
(array 0 holds the initialisation pull). Exactly when array r becomes full (at the arm's
(2^{r+1} - 1)-th pull) the release is

    mu~_{j, 2^r, r} = (sum of array r + Lap(1/eps)) / 2^r                                     (eq. 3)

with a fresh Laplace draw used once and never refreshed ("lazy": one release per array;
"forgetful": each release reads its own array only). The UCB index (eq. 4) is a post-processing of
the latest release, so the releases are the mechanism's whole output.

:class:`LazyLaplaceArrays` takes one arm's ``pulls`` observations (rewards in [0, 1], in pull order)
and releases the noisy means of every array that is full by then: floor(log2(pulls + 1)) of them;
the observations of a partly filled last array are read by no release.

Two paths with one law: :meth:`LazyLaplaceArrays.sample` sums each array directly;
:meth:`LazyLaplaceArrays.sample_per_pull` runs Appendix A's update pull by pull (a tuple
(N, S, lambda): count, running sum and size of the array being filled; release when N = lambda).

Choices where the paper is silent: the initialisation pull's mean is released by eq. 3 with r = 0
(a Lap(1/eps) draw; Algorithm 1 only says "pull j once to initialize mu~_{j,1,0}"); the scale
1/(eps 2^r) of a released mean is kept as an exact rational, so the exact auditor audits the
calibration as printed.

Neighbouring relation (Definition 1, one round's reward vector replaced): on one arm's stream it
changes at most one observation, by at most 1 (``ReplaceOne`` over ``Datasets(pulls, Box(0, 1))``).
Privacy claim: Theorem 2 (eps-DP): every observation lies in exactly one array, whose sum has
sensitivity 1 and gets Lap(1/eps).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer, positive, sample_size

from ..base import ExactRelease
from ..noise import Laplace


def full_arrays(pulls: int) -> int:
    """How many arrays are full after ``pulls`` pulls: array r is full at pull 2^{r+1} - 1."""
    return (pulls + 1).bit_length() - 1


def rewards(owner: str, data: Any, length: int) -> np.ndarray:
    """One arm's observations: a finite vector of ``length`` rewards in [0, 1]."""
    x = np.asarray(data, dtype=float)
    if x.shape != (length,) or not np.isfinite(x).all() or (x < 0).any() or (x > 1).any():
        raise ValueError(f"{owner}: data must be {length} rewards in [0, 1] (one arm's observations in pull order), "
                         f"got shape {x.shape}")
    return x


class LazyLaplaceArrays(ExactRelease):
    """M1 on one arm's first ``pulls`` observations: the noisy means (sum_r + Lap(1/eps)) / 2^r of
    the full arrays r = 0 .. R - 1, R = floor(log2(pulls + 1)) (module docstring).

    Output of :meth:`sample`: shape (size, R), column r the release of array r."""

    paper = "private-online"
    source = "M1 of Anytime-Lazy-UCB: Algorithm 1, eq. 3, Appendix A"

    def __init__(self, epsilon: float, pulls: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.pulls = integer(self.owner, "pulls", pulls, 1)
        self.arrays = full_arrays(self.pulls)
        self.sizes = [2**r for r in range(self.arrays)]
        # Lap(1/eps) on the sum is Lap(1/(eps 2^r)) on the mean
        self.scales = [1 / (Fraction(self.epsilon) * size) for size in self.sizes]
        self.name = f"LazyLaplaceArrays(eps={self.epsilon:g}, {self.pulls} pulls, {self.arrays} full arrays)"

    def released_at(self) -> list[int]:
        """The pull (1-based) at which each array's mean is released: 2^{r+1} - 1."""
        return [2 * size - 1 for size in self.sizes]

    def means(self, data: Any) -> np.ndarray:
        """The exact means of the full arrays (array r: observations 2^r .. 2^{r+1} - 1, 1-based)."""
        x = rewards(self.owner, data, self.pulls)
        return np.array([x[size - 1: 2 * size - 1].sum() / size for size in self.sizes])

    def _input(self, data: Any) -> np.ndarray:
        return self.means(data)

    def _sample(self, means: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        noise = rng.laplace(0.0, 1 / self.epsilon, (size, self.arrays))  # Lap(1/eps) on each array's sum
        return means + noise / np.array(self.sizes, dtype=float)

    def sample_per_pull(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Appendix A's efficient implementation, pull by pull (vectorised over the ``size`` runs):
        the tuple (N, S, lambda) of the array being filled; when N = lambda, release
        (S + Lap(1/eps)) / lambda and open an empty array of size 2 lambda."""
        x = rewards(self.owner, data, self.pulls)
        size = sample_size(self.owner, size)
        out = np.empty((size, self.arrays))
        count, running, capacity, done = 0, 0.0, 1, 0
        for reward in x:
            count, running = count + 1, running + reward
            if count == capacity:
                out[:, done] = (running + rng.laplace(0.0, 1 / self.epsilon, size)) / capacity
                count, running, capacity, done = 0, 0.0, 2 * capacity, done + 1
        return out

    @property
    def sum_noise(self) -> Laplace:
        """The law of the noise eq. 3 adds to an array's sum before dividing by its size: Lap(1/eps)."""
        return Laplace(1 / Fraction(self.epsilon))

    def sample_sum_noise(self, shape: Any, rng: np.random.Generator) -> np.ndarray:
        """Independent draws of :attr:`sum_noise`, any shape: the vectorised entry point of a policy
        that runs many arms and runs at once and draws each array's noise ahead of its release."""
        return self.sum_noise.sample(shape, rng)

    @staticmethod
    def noisy_mean(array_sum: Any, noise: Any, r: Any) -> np.ndarray:
        """Eq. 3 on sums already formed: (sum of array r + noise) / 2^r, elementwise."""
        return (np.asarray(array_sum, dtype=float) + noise) / np.exp2(r)

    def error_law(self, r: int) -> Laplace:
        """The law of release r's error mu~ - mu^ (the released mean minus the array's true mean)."""
        r = integer(self.owner, "r", r, 0)
        if r >= self.arrays:
            raise ValueError(f"{self.owner}: r must be < {self.arrays} (the full arrays after {self.pulls} pulls), "
                             f"got {r}")
        return Laplace(self.scales[r])

    def _distribution(self, means: np.ndarray) -> ProductDistribution:
        """Exact law of the releases: independent Laplace(mean_r, 1/(eps 2^r)) coordinates."""
        return ProductDistribution(tuple(Laplace(scale).shifted(float(m))
                                    for m, scale in zip(means, self.scales, strict=True)))


__all__ = ["LazyLaplaceArrays", "full_arrays", "rewards"]
