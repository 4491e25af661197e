"""The Laplace distribution and its integer counterpart, the discrete Laplace (two-sided
geometric) distribution.

Both are exact: ``logpdf``/``logpmf``, ``cdf``/``sf`` in closed form, and an
:meth:`exact_density` in the log-piecewise-linear form the exact auditor analyses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpaudit.densities import LogConstant, LogLinearDensity, exact


def _positive(owner: str, name: str, value: float | Fraction) -> float | Fraction:
    """A positive finite parameter; a Fraction is kept exact (for exact audits), else a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not 0 < value < math.inf:
        raise ValueError(f"{owner}: {name} must be > 0 and finite, got {value!r}")
    return value if isinstance(value, Fraction) else float(value)


def _finite(owner: str, name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Laplace:
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale) on the reals.

    ``scale`` may be a :class:`fractions.Fraction` such as ``Fraction(1) / Fraction(0.7)``: the
    exact density then has exactly that scale, and sampling uses its nearest float.
    """

    loc: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "loc", _finite("Laplace", "loc", self.loc))
        object.__setattr__(self, "scale", _positive("Laplace", "scale", self.scale))

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(self.loc, float(self.scale), size)

    def logpdf(self, x) -> np.ndarray:
        scale = float(self.scale)
        return -np.abs(np.asarray(x, dtype=float) - self.loc) / scale - math.log(2 * scale)

    def cdf(self, x) -> np.ndarray:
        z = (np.asarray(x, dtype=float) - self.loc) / float(self.scale)
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))

    def sf(self, x) -> np.ndarray:
        return self.cdf(2 * self.loc - np.asarray(x, dtype=float))

    def shifted(self, by: float) -> Laplace:
        return Laplace(self.loc + by, self.scale)

    def exact_density(self) -> LogLinearDensity:
        b = exact(self.scale)
        return LogLinearDensity.build(
            knots=[self.loc],
            slopes=[1 / b, -1 / b],
            offset_at_first_knot=0,
            constant=LogConstant(
                key=("laplace", b),
                enclose=lambda ctx: -ctx.log(2 * ctx.mpf(b.numerator) / ctx.mpf(b.denominator)),
                approx=-math.log(2 * float(self.scale)),
            ),
            lattice=False,
        )


@dataclass(frozen=True)
class DiscreteLaplace:
    """Discrete Laplace on the integers: P[X = k] = (1 - a)/(1 + a) * a^|k - loc|, a = exp(-1/scale).

    Parameterised by ``scale`` t (so that adding it to an integer query of sensitivity D gives
    (D/t)-DP, as for the continuous Laplace); ``loc`` must be an integer. ``scale`` may be a
    :class:`fractions.Fraction` (kept exact for exact audits; sampling uses its float). Sampled as the
    difference of two i.i.d. geometric variables with success probability 1 - a, which has
    exactly this law.
    """

    loc: int = 0
    scale: float = 1.0

    def __post_init__(self) -> None:
        loc = self.loc
        if isinstance(loc, bool) or not float(loc).is_integer():
            raise ValueError(f"DiscreteLaplace: loc must be an integer, got {loc!r}")
        object.__setattr__(self, "loc", int(loc))
        object.__setattr__(self, "scale", _positive("DiscreteLaplace", "scale", self.scale))

    @property
    def a(self) -> float:
        return math.exp(-1.0 / float(self.scale))

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        p = -math.expm1(-1.0 / float(self.scale))  # 1 - a, computed without cancellation
        return self.loc + rng.geometric(p, size) - rng.geometric(p, size)

    def logpmf(self, k) -> np.ndarray:
        k = np.asarray(k)
        log_norm = math.log(-math.expm1(-1.0 / float(self.scale))) - math.log1p(self.a)
        out = log_norm - np.abs(k - self.loc) / float(self.scale)
        return np.where(k == np.round(k), out, -np.inf)

    def cdf(self, k) -> np.ndarray:
        """P[X <= k] for real k."""
        j = np.floor(np.asarray(k, dtype=float)) - self.loc
        a = self.a
        below = a ** np.maximum(-j, 0) / (1 + a)  # j < 0: P[X - loc <= j] = a^{-j} / (1 + a)
        above = 1 - a ** (np.maximum(j, 0) + 1) / (1 + a)  # j >= 0
        return np.where(j < 0, below, above)

    def sf(self, k) -> np.ndarray:
        """P[X > k] for real k (computed directly, so small tails keep their precision)."""
        j = np.floor(np.asarray(k, dtype=float)) - self.loc
        a = self.a
        above = a ** (np.maximum(j, 0) + 1) / (1 + a)  # j >= 0: P[X - loc > j] = a^{j+1} / (1 + a)
        below = 1 - a ** np.maximum(-j, 0) / (1 + a)
        return np.where(j >= 0, above, below)

    def shifted(self, by: int) -> DiscreteLaplace:
        return DiscreteLaplace(self.loc + by, self.scale)

    def exact_density(self) -> LogLinearDensity:
        t = exact(self.scale)

        def enclose(ctx):
            a = ctx.exp(-ctx.mpf(t.denominator) / ctx.mpf(t.numerator))
            return ctx.log(1 - a) - ctx.log(1 + a)

        return LogLinearDensity.build(
            knots=[self.loc],
            slopes=[1 / t, -1 / t],
            offset_at_first_knot=0,
            constant=LogConstant(
                key=("discrete-laplace", t),
                enclose=enclose,
                approx=math.log(-math.expm1(-1.0 / float(self.scale))) - math.log1p(self.a),
            ),
            lattice=True,
        )


__all__ = ["DiscreteLaplace", "Laplace"]
