"""The Skellam distribution Sk(loc, variance): loc + N_1 - N_2, N_i i.i.d. Poisson(variance / 2).

dist-mab's Definition 5 writes Sk(mu, sigma^2) with pmf e^{-sigma^2} I_{x - mu}(sigma^2): location mu
and variance sigma^2. It is closed under sums (locations and variances add), and its cumulant
function is lam loc + variance (cosh lam - 1), finite for every lam.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._checks import integer, positive
from ._lattice import ScipyIntegerLaw


@dataclass(frozen=True)
class Skellam(ScipyIntegerLaw):
    """Sk(loc, variance) as in dist-mab's Definition 5 (``variance`` is its sigma^2)."""

    variance: float = 1.0
    loc: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "variance", float(positive("Skellam", "variance", self.variance)))
        object.__setattr__(self, "loc", integer("Skellam", "loc", self.loc))

    @property
    def _scipy(self):
        mu = self.variance / 2
        return stats.skellam(mu, mu, loc=self.loc)

    @property
    def mean(self) -> float:
        return float(self.loc)

    @property
    def var(self) -> float:
        return self.variance

    support = (-math.inf, math.inf)
    cgf_domain = (-math.inf, math.inf)

    def cgf(self, lam) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        with np.errstate(over="ignore"):
            return lam * self.loc + self.variance * (np.cosh(lam) - 1)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        mu = self.variance / 2
        return self.loc + rng.poisson(mu, size) - rng.poisson(mu, size)

    def __add__(self, other: Skellam) -> Skellam:
        """Sk(mu_1, s_1^2) + Sk(mu_2, s_2^2) = Sk(mu_1 + mu_2, s_1^2 + s_2^2) for independent terms."""
        if not isinstance(other, Skellam):
            return NotImplemented
        return Skellam(self.variance + other.variance, self.loc + other.loc)


__all__ = ["Skellam"]
