"""DP-SE's noisy epoch means: the private step of differentially private successive elimination
(Sajed & Sheffet, ICML 2019), the baseline of private-online's experiments (Hu, Huang & Mehta,
Section 6, beta = 1/T) and of dist-mab's.

Neither paper prints DP-SE; this follows the reconstruction both specs give (private-online A3,
dist-mab 3.5, which agree): in epoch e (e = 1, 2, ...) with the set S of surviving arms,
Delta_e = 2^-e and every arm of S is pulled

    R_e = ceil( max{ 32 ln(8 |S| e^2 / beta) / Delta_e^2 ,  8 ln(4 |S| e^2 / beta) / (eps Delta_e) } )

times on fresh rounds; its private mean is (sum of its R_e rewards + Lap(1/eps)) / R_e, i.e. the
mean plus Lap(1/(eps R_e)). :meth:`DPSEEpoch.sample` releases the noisy sums (sum + Lap(1/eps));
the means are their post-processing (:meth:`DPSEEpoch.noisy_means`), kept apart so that the exact
law's locations are exact sums rather than rounded quotients. With h_e = sqrt(ln(8 |S| e^2 / beta) / (2 R_e)) and
c_e = ln(4 |S| e^2 / beta) / (eps R_e), arm i is eliminated when max_i' mu~_i' - mu~_i > 2 (h_e + c_e).

Choices where the sources are silent: R_e rounds up with ceil (dist-mab's released code uses
1 + int(.), equal except when the maximum is an integer); within the epoch the arms are pulled one
after another, each R_e times, so the epoch's data is the vector of |S| R_e observations arm by arm
(``data[i R_e : (i + 1) R_e]`` are arm i's). Natural logarithms throughout.

Neighbouring relation: one round's reward vector replaced changes the one observation of that
round's pulled arm (``ReplaceOne`` over the epoch's observations), moving one arm's sum by at most
1: Lap(1/eps) per arm's sum is eps-DP, and disjoint epochs compose in parallel. Exact law
(:meth:`DPSEEpoch.distribution`): independent Laplace coordinates.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.densities import ProductDensity

from .lazy_laplace import rewards
from .noise import Laplace
from .params import integer, positive, probability, sample_size


def epoch_length(epsilon: float, beta: float, arms: int, epoch: int) -> int:
    """R_e = ceil(max{32 ln(8|S|e^2/beta)/Delta_e^2, 8 ln(4|S|e^2/beta)/(eps Delta_e)}), Delta_e = 2^-e."""
    gap = 2.0**-epoch
    return math.ceil(max(32 * math.log(8 * arms * epoch**2 / beta) / gap**2,
                         8 * math.log(4 * arms * epoch**2 / beta) / (epsilon * gap)))


class DPSEEpoch:
    """One epoch of DP-SE: ``arms`` surviving arms, each pulled R_e times, released as noisy
    sums, whose post-processing is the noisy means (module docstring). Output of :meth:`sample`:
    shape (size, arms)."""

    owner = "DPSEEpoch"

    def __init__(self, epsilon: float, beta: float, arms: int, epoch: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.beta = probability(self.owner, "beta", beta)
        self.arms = integer(self.owner, "arms", arms, 1)
        self.epoch = integer(self.owner, "epoch", epoch, 1)
        self.pulls = epoch_length(self.epsilon, self.beta, self.arms, self.epoch)
        self.noise = Laplace(0.0, 1 / Fraction(self.epsilon))  # Lap(1/eps) on each arm's sum
        log8 = math.log(8 * self.arms * self.epoch**2 / self.beta)
        log4 = math.log(4 * self.arms * self.epoch**2 / self.beta)
        self.h = math.sqrt(log8 / (2 * self.pulls))
        self.c = log4 / (self.epsilon * self.pulls)
        self.name = f"DPSEEpoch(eps={self.epsilon:g}, beta={self.beta:g}, {self.arms} arms, epoch {self.epoch}: R_e={self.pulls})"

    def __repr__(self) -> str:
        return self.name

    def sums(self, data: Any) -> np.ndarray:
        """Each arm's reward sum over its R_e pulls of the epoch."""
        x = rewards(self.owner, data, self.arms * self.pulls)
        return x.reshape(self.arms, self.pulls).sum(axis=1)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """The noisy sums, shape (size, arms)."""
        size = sample_size(self.owner, size)
        return self.sums(data) + self.noise.sample((size, self.arms), rng)

    def noisy_means(self, noisy_sums: Any) -> np.ndarray:
        """mu~_i = (sum_i + Lap(1/eps)) / R_e."""
        return np.asarray(noisy_sums, dtype=float) / self.pulls

    def sample_means(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.noisy_means(self.sample(data, size, rng))

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)

    def survivors(self, noisy_means: Any) -> np.ndarray:
        """The elimination rule: keep arm i unless max_i' mu~_i' - mu~_i > 2 (h_e + c_e)."""
        mu = np.asarray(noisy_means, dtype=float)
        return mu.max(axis=-1, keepdims=True) - mu <= 2 * (self.h + self.c)

    def distribution(self, data: Any) -> ProductDensity:
        """Exact law of :meth:`sample`: independent Laplace(sum_i, 1/eps)."""
        return ProductDensity(tuple(self.noise.shifted(float(v)) for v in self.sums(data)))


__all__ = ["DPSEEpoch", "epoch_length"]
