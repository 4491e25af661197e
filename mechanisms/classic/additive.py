"""Additive-noise mechanisms: release a query answer plus independent noise per coordinate.

The input ``data`` is the query answer f(d) (a scalar or a vector); neighbouring inputs are
answers within the query's sensitivity (:class:`dpaudit.core.neighbours.QueryDistance`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution

from ..base import ExactRelease
from ..noise import DiscreteLaplace, Laplace, Staircase


class AdditiveNoiseMechanism(ExactRelease):
    """M(q) = q + Z, with Z drawn independently per coordinate from ``noise``.

    ``noise`` is a distribution with ``sample(size, rng)`` and ``shifted(by)``; when it also has
    ``exact_distribution()``, :meth:`distribution` gives the exact output law (a product over
    coordinates for vector answers), which enables exact auditing.
    """

    def __init__(self, noise: Any, name: str | None = None, integer: bool = False):
        self.noise = noise
        self.integer = integer
        self.name = name or f"{type(noise).__name__}Noise({noise})"

    def _input(self, data: Any) -> np.ndarray:
        """The query answer, checked: a number or a vector (integers for integer noise)."""
        q = np.asarray(data)
        if q.dtype.kind not in "biuf" or q.ndim > 1:
            raise ValueError(f"{self.name}: data must be a number or a vector of numbers (a query answer), "
                             f"got {data!r}")
        if self.integer and not np.all(q == np.round(q)):
            raise ValueError(f"{self.name}: query answers must be integers, got {data!r}")
        return q.astype(np.int64) if self.integer else q.astype(float)

    def _sample(self, q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return q + self.noise.sample((size, *q.shape), rng)

    def _distribution(self, q: np.ndarray) -> Any:
        if q.ndim == 0:
            return self.noise.shifted(q.item())
        return ProductDistribution(tuple(self.noise.shifted(v) for v in q.tolist()))


def _epsilon(owner: str, epsilon: float, sensitivity: float) -> None:
    for name, value in (("epsilon", epsilon), ("sensitivity", sensitivity)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
            raise ValueError(f"{owner}: {name} must be > 0 and finite, got {value!r}")


class LaplaceMechanism(AdditiveNoiseMechanism):
    """The Laplace mechanism (Dwork, McSherry, Nissim, Smith 2006): M(q) = q + Lap(sensitivity/epsilon)
    per coordinate; epsilon-DP for queries of l1-sensitivity ``sensitivity`` (for vector answers the
    sensitivity is the l1 distance between neighbouring answers).

    The scale is kept as the exact rational sensitivity/epsilon of the two floats given, so the
    exact auditor audits the mechanism as specified; sampling uses the nearest float scale."""

    def __init__(self, epsilon: float, sensitivity: float = 1.0):
        _epsilon("LaplaceMechanism", epsilon, sensitivity)
        self.epsilon, self.sensitivity = float(epsilon), float(sensitivity)
        super().__init__(Laplace(Fraction(sensitivity) / Fraction(epsilon)),
                         name=f"Laplace(eps={epsilon:g}, sensitivity={sensitivity:g})")


class DiscreteLaplaceMechanism(AdditiveNoiseMechanism):
    """The geometric mechanism (Ghosh, Roughgarden, Sundararajan 2009): integer answer plus
    discrete Laplace noise of scale sensitivity/epsilon, P[Z = k] proportional to exp(-epsilon |k| / sensitivity);
    epsilon-DP for integer queries of sensitivity ``sensitivity``. The scale is kept exact, as for
    :class:`LaplaceMechanism`."""

    def __init__(self, epsilon: float, sensitivity: int = 1):
        _epsilon("DiscreteLaplaceMechanism", epsilon, sensitivity)
        self.epsilon, self.sensitivity = float(epsilon), sensitivity
        super().__init__(
            DiscreteLaplace(Fraction(sensitivity) / Fraction(epsilon)),
            name=f"DiscreteLaplace(eps={epsilon:g}, sensitivity={sensitivity:g})",
            integer=True,
        )


class StaircaseMechanism(AdditiveNoiseMechanism):
    """The staircase mechanism (Geng & Viswanath 2014): M(q) = q + staircase noise
    (:class:`~dpaudit.mechanisms.noise.Staircase`) per coordinate; epsilon-DP for queries of
    sensitivity ``sensitivity``, for every ``gamma`` in [0, 1] (default 1 / (1 + e^(epsilon/2)), which
    minimises the expected |noise|).

    **True epsilon: exactly epsilon** for answers ``sensitivity`` apart, derived: shifting the noise by
    one step width Delta maps each step onto the next, whose density is e^-epsilon times smaller, so
    the loss is epsilon on a set of positive mass and never more (for a shift s < Delta the two
    staircases' steps overlap with ratio at most e^epsilon)."""

    def __init__(self, epsilon: float, sensitivity: float = 1.0, gamma: float | None = None):
        _epsilon("StaircaseMechanism", epsilon, sensitivity)
        self.epsilon, self.sensitivity = float(epsilon), float(sensitivity)
        noise = Staircase(epsilon, sensitivity, gamma)
        self.gamma = noise.gamma
        super().__init__(noise, name=f"Staircase(eps={epsilon:g}, sensitivity={sensitivity:g}, "
                                     f"gamma={noise.gamma:.6g})")
