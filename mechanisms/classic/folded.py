"""Noise folded back into the output range at its bounds (diffprivlib's ``LaplaceFolded`` and
``GeometricFolded``): the noisy answer x is reflected at whichever bound it crossed, F(x) = 2 lower - x below the
range and 2 upper - x above it, until it lies inside.

The input is a query answer; neighbouring answers are within the query's sensitivity. Folding is
post-processing of the unfolded mechanism, so each is at most as private as its noise allows (epsilon at most
sensitivity / scale), and the exact laws say how much the folding saves: the folded Laplace law is a sum of two
exponentials on each side of the answer (:mod:`dpaudit.core.folded_laplace`), the folded geometric law a finite
law in closed form.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, interval_bounds
from dpaudit.core.folded_laplace import FoldedLaplaceDistribution, fold, fold_floats
from dpaudit.core.validation import finite_number, positive

from ..base import ExactRelease
from ..enclosures import from_log_enclosures
from ..piecewise import interval_context


class FoldedLaplaceMechanism(ExactRelease):
    """M(q) = F(q + Lap(b)), b = sensitivity / epsilon, F the folding into [lower, upper] (module docstring;
    diffprivlib's ``LaplaceFolded``, which scales by sensitivity / (epsilon - log(1 - delta)) and folds by
    recursion; here vectorised: the position modulo the period 2 (upper - lower), reflected in its second half).

    **True epsilon: below epsilon**, derived: folding is post-processing of the Laplace mechanism, so at most
    sensitivity / b; and on each side of the answers the density is a e^z + d e^{-z} (z = (y - lower) / b), so
    the density ratio of two answers is a Moebius map of e^{2z}, monotone between the break points {lower, q,
    q', upper}: the loss's extremes lie there (:mod:`dpaudit.exact.folded` encloses them). Mass folded back
    from beyond a bound makes both laws flatter near it, so the extremes stay strictly below sensitivity / b on a
    bounded range. The paper (the library) is silent on inputs outside the range: they are folded first, which
    leaves the law unchanged (F is invariant under both reflections and the noise is symmetric).

    ``scale`` may be given instead of epsilon (an exact rational is kept as such).
    """

    def __init__(self, epsilon: float | None = None, lower: float = 0.0, upper: float = 1.0,
                 sensitivity: float = 1.0, *, scale: float | Fraction | None = None):
        if (epsilon is None) == (scale is None):
            raise ValueError("FoldedLaplaceMechanism: give epsilon or scale, not both")
        self.lower, self.upper = finite_number(self.owner, "lower", lower), finite_number(self.owner, "upper", upper)
        if not self.lower < self.upper:
            raise ValueError(f"{self.owner}: need lower < upper, got lower={lower!r}, upper={upper!r}")
        if scale is None:
            positive(self.owner, "epsilon", epsilon)
            scale = Fraction(positive(self.owner, "sensitivity", sensitivity)) / Fraction(epsilon)
        self.scale = positive(self.owner, "scale", scale, exact=True)
        self.name = f"FoldedLaplace(scale={float(self.scale):.6g}, [{self.lower:g}, {self.upper:g}])"

    def _input(self, data: Any) -> float:
        return finite_number(self.name, "the query answer", float(np.asarray(data)))

    def _sample(self, q: float, size: int, rng: np.random.Generator) -> np.ndarray:
        return fold_floats(q + rng.laplace(0.0, float(self.scale), size), self.lower, self.upper)

    def _distribution(self, q: float) -> FoldedLaplaceDistribution:
        return FoldedLaplaceDistribution.build(q, self.scale, self.lower, self.upper, name=f"{self.name} at {q:g}")


class FoldedGeometricMechanism(ExactRelease):
    """M(q) = F(q + Z) for an integer answer q, Z two-sided geometric, P[Z = k] = (1 - a)/(1 + a) a^|k|,
    a = e^{-epsilon / sensitivity}, F the folding into [lower, upper] (integer or half-integer bounds, as
    diffprivlib's ``GeometricFolded`` allows: reflections at them map integers to integers). ``ratio`` sets a
    directly (for the alpha-for-epsilon bug: Ghosh, Roughgarden & Sundararajan parameterise the geometric
    mechanism by alpha = e^-epsilon).

    Exact law, derived: with period P = 2 (upper - lower) (an integer), the outputs j come from the inputs of
    the residue classes j and 2 lower - j modulo P (one class when they coincide: j at a bound). A class at
    offset t = (v - q) mod P in [0, P) has mass (1 - a)/(1 + a) (a^t + a^{P - t}) / (1 - a^P) (two geometric
    series). Log-probabilities enclosed in 192-bit interval arithmetic.

    **True epsilon: at most -log a** (post-processing of the geometric mechanism, epsilon = sensitivity * (-log
    a) per unit of sensitivity), below it on a bounded range as for the folded Laplace; the exact law decides.
    """

    def __init__(self, epsilon: float | None, lower: float, upper: float, sensitivity: int = 1, *,
                 ratio: float | None = None):
        if (epsilon is None) == (ratio is None):
            raise ValueError("FoldedGeometricMechanism: give epsilon or ratio, not both")
        for name, bound in (("lower", lower), ("upper", upper)):
            if not float(2 * bound).is_integer():
                raise ValueError(f"{self.owner}: {name} must be an integer or a half-integer, got {bound!r}")
        self.lower, self.upper = Fraction(lower), Fraction(upper)
        if not self.lower < self.upper:
            raise ValueError(f"{self.owner}: need lower < upper, got lower={lower!r}, upper={upper!r}")
        if ratio is None:
            positive(self.owner, "epsilon", epsilon)
            self.log_ratio = -Fraction(epsilon) / Fraction(positive(self.owner, "sensitivity", sensitivity))
        else:
            if not 0 < ratio < 1:
                raise ValueError(f"{self.owner}: ratio must be in (0, 1), got {ratio!r}")
            self.log_ratio = None
        self.ratio = ratio
        self.period = int(2 * (self.upper - self.lower))
        self.outputs = np.arange(math.ceil(self.lower), math.floor(self.upper) + 1)
        a = f"a={ratio:g}" if ratio is not None else f"eps={float(-self.log_ratio):g}"
        self.name = f"FoldedGeometric({a}, [{float(self.lower):g}, {float(self.upper):g}])"

    def _input(self, data: Any) -> int:
        arr = np.asarray(data)
        if arr.ndim != 0 or arr.dtype.kind not in "biuf" or float(arr) != round(float(arr)):
            raise ValueError(f"{self.owner}: data must be an integer answer, got {data!r}")
        return round(float(arr))

    def _a(self) -> float:
        return self.ratio if self.ratio is not None else math.exp(float(self.log_ratio))

    def _sample(self, q: int, size: int, rng: np.random.Generator) -> np.ndarray:
        p = 1 - self._a()
        z = rng.geometric(p, size) - rng.geometric(p, size)  # the two-sided geometric law
        return np.rint(fold_floats(q + z, float(self.lower), float(self.upper))).astype(np.int64)

    def _distribution(self, q: int) -> FiniteDistribution:
        ctx = interval_context(192)
        if self.ratio is not None:
            r = Fraction(self.ratio)
            log_a = ctx.log(ctx.mpf(r.numerator) / r.denominator)
        else:
            log_a = ctx.mpf(self.log_ratio.numerator) / self.log_ratio.denominator
        period = self.period
        log_scale = ctx.log(-ctx.expm1(log_a)) - ctx.log(1 + ctx.exp(log_a)) - ctx.log(-ctx.expm1(period * log_a))
        centre = fold(Fraction(q), self.lower, self.upper)

        def series(t: int) -> Any:
            return ctx.exp(t * log_a) + ctx.exp((period - t) * log_a)

        logs = []
        for j in self.outputs.tolist():  # one per output: the range, not the samples
            first, second = int((j - centre) % period), int((2 * self.lower - j - centre) % period)
            total = series(first) if first == second else series(first) + series(second)
            logs.append(interval_bounds(log_scale + ctx.log(total)))
        return from_log_enclosures(self.outputs, logs)


__all__ = ["FoldedGeometricMechanism", "FoldedLaplaceMechanism"]
