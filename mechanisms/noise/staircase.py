"""The staircase distribution (Geng & Viswanath, "The optimal mechanism in differential privacy", 2014).

For privacy parameter eps, sensitivity Delta and gamma in [0, 1], the density is a * e^(-k eps) for |x|
in [k Delta, (k + gamma) Delta) and a * e^(-(k + 1) eps) for |x| in [(k + gamma) Delta, (k + 1) Delta),
k = 0, 1, ..., with a = (1 - e^-eps) / (2 Delta (gamma + (1 - gamma) e^-eps)): a geometric mixture of
uniforms. Added to a query of sensitivity Delta it is eps-DP for every gamma; gamma =
1 / (1 + e^(eps / 2)) minimises the expected |noise| (the paper's optimum, and diffprivlib's default).

Exact: its :meth:`Staircase.exact_distribution` is a piecewise-exponential law whose tails repeat one
step pair scaled by e^-eps, which the exact auditor analyses in closed form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np

from dpaudit.core.distributions import LogConstant, exact
from dpaudit.core.piecewise_exponential import PiecewiseExponentialDistribution
from dpaudit.core.validation import finite_number, positive, probability


@dataclass(frozen=True)
class Staircase:
    """Staircase(epsilon, sensitivity, gamma, loc=0): noise of the staircase mechanism (module docstring).
    ``gamma`` None is 1 / (1 + e^(epsilon / 2)). Parameters are kept as exact rationals of the floats given."""

    epsilon: float
    sensitivity: float = 1.0
    gamma: float | None = None
    loc: float = field(default=0.0, kw_only=True)

    lattice = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive("Staircase", "epsilon", self.epsilon))
        object.__setattr__(self, "sensitivity", positive("Staircase", "sensitivity", self.sensitivity))
        object.__setattr__(self, "loc", finite_number("Staircase", "loc", self.loc))
        gamma = 1 / (1 + math.exp(self.epsilon / 2)) if self.gamma is None else self.gamma
        object.__setattr__(self, "gamma", probability("Staircase", "gamma", gamma, open_low=False, open_high=False))

    def __repr__(self) -> str:
        return (f"Staircase(eps={self.epsilon:g}, sensitivity={self.sensitivity:g}, gamma={self.gamma:.6g}"
                + (f", loc={self.loc:g})" if self.loc else ")"))

    def shifted(self, by: float) -> Staircase:
        return Staircase(self.epsilon, self.sensitivity, self.gamma, loc=self.loc + by)

    @property
    def _inner_share(self) -> float:
        """P[the noise lies in a step's first (gamma) part], given its step."""
        e = math.exp(-self.epsilon)
        return self.gamma / (self.gamma + (1 - self.gamma) * e)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        """The geometric mixture of uniforms: sign * Delta * (G + gamma U) or Delta * (G + gamma + (1 - gamma) U),
        G geometric on {0, 1, ...} with ratio e^-eps."""
        shape = (size,) if np.isscalar(size) else tuple(size)
        sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
        steps = rng.geometric(-math.expm1(-self.epsilon), shape) - 1
        u = rng.random(shape)
        inner = rng.random(shape) < self._inner_share
        within = np.where(inner, self.gamma * u, self.gamma + (1 - self.gamma) * u)
        return self.loc + sign * self.sensitivity * (steps + within)

    def exact_distribution(self) -> PiecewiseExponentialDistribution:
        e, d, g, v = exact(self.epsilon), exact(self.sensitivity), exact(self.gamma), exact(self.loc)

        def enclose(ctx):
            def q(x: Fraction):
                return ctx.mpf(x.numerator) / ctx.mpf(x.denominator)
            drop = ctx.exp(-q(e))
            return ctx.log((1 - drop) / (2 * q(d) * (q(g) + (1 - q(g)) * drop)))

        x = math.exp(-self.epsilon)
        approx = (math.log(-math.expm1(-self.epsilon))
                  - math.log(2 * self.sensitivity * (self.gamma + (1 - self.gamma) * x)))
        return PiecewiseExponentialDistribution.build(
            [v - d, v - g * d, v, v + g * d, v + d], [0, 0, 0, 0], [-e, 0, 0, -e],
            LogConstant(("staircase", e, d, g), enclose, approx),
            left_tail=(d, -e), right_tail=(d, -e), name=repr(self))

    @cached_property
    def _law(self) -> PiecewiseExponentialDistribution:
        return self.exact_distribution()

    @property
    def support(self) -> tuple[float, float]:
        return -math.inf, math.inf

    @property
    def mean(self) -> float:
        return self.loc

    @property
    def var(self) -> float:
        return self._law.var

    def logpdf(self, x) -> np.ndarray:
        return self._law.log_density(x)

    def cdf(self, x) -> np.ndarray:
        return self._law.cdf(x)

    def sf(self, x) -> np.ndarray:
        return self._law.sf(x)


__all__ = ["Staircase"]
