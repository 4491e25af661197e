"""Laplace noise on a bounded output range, two ways: clamped (the excess piles up at the bounds) and
conditioned (the bounded-domain Laplace of Holohan, Antonatos, Braghin & Mac Aonghusa 2018).

The input is a query answer (a number); neighbouring answers are within the query's sensitivity. Both
have exact laws in the piecewise-exponential form (a density on [lower, upper], and atoms at the
bounds for the clamped one), which the exact auditor analyses in closed form.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import LogConstant, exact
from dpaudit.core.piecewise_exponential import PiecewiseExponentialDistribution
from dpaudit.core.validation import finite_number, positive

from ..base import ExactRelease


def _bounds(owner: str, lower: float, upper: float) -> tuple[float, float]:
    lower, upper = finite_number(owner, "lower", lower), finite_number(owner, "upper", upper)
    if not lower < upper:
        raise ValueError(f"{owner}: need lower < upper, got lower={lower!r}, upper={upper!r}")
    return lower, upper


def _q(ctx: Any, x: Fraction) -> Any:
    return ctx.mpf(x.numerator) / ctx.mpf(x.denominator)


def _mass_over_scale(left: float, right: float, b: float) -> float:
    """The mass of exp(-|x - q| / b) on [lower, upper], over b, for q at distances ``left`` = q - lower and
    ``right`` = upper - q from the bounds (floats)."""
    return 2 - math.exp(-left / b) - math.exp(-right / b)


def _laplace_pieces(q: Fraction, b: Fraction, lo: Fraction, hi: Fraction) -> tuple[list, list, list]:
    """breaks, slopes and offsets of exp(-|x - q| / b) on [lo, hi) (log-density up to a constant)."""
    if lo < q < hi:
        return [lo, q, hi], [1 / b, -1 / b], [-(q - lo) / b, Fraction(0)]
    slope = -1 / b if q <= lo else 1 / b
    return [lo, hi], [slope], [-abs(q - lo) / b]


class ClampedLaplaceMechanism(ExactRelease):
    """M(q) = min(max(q + Lap(b), lower), upper), b = sensitivity / epsilon (diffprivlib's
    ``LaplaceTruncated``).

    **True epsilon: exactly epsilon** for answers within the sensitivity: clamping is post-processing of
    the Laplace mechanism, so at most epsilon; and the atom at ``lower`` has probability
    1/2 e^{-(q - lower)/b} for q >= lower, whose ratio between q and q' = q + sensitivity (both inside)
    is e^{epsilon}.

    Exact law: density e^{-|x - q|/b} / (2b) on (lower, upper), atoms P[q + Z <= lower] at ``lower``
    and P[q + Z >= upper] at ``upper``. ``scale`` may be given instead of epsilon (an exact rational
    is kept as such).
    """

    def __init__(self, epsilon: float | None = None, lower: float = 0.0, upper: float = 1.0,
                 sensitivity: float = 1.0, *, scale: float | Fraction | None = None):
        if (epsilon is None) == (scale is None):
            raise ValueError("ClampedLaplaceMechanism: give epsilon or scale, not both")
        self.lower, self.upper = _bounds("ClampedLaplaceMechanism", lower, upper)
        if scale is None:
            positive("ClampedLaplaceMechanism", "epsilon", epsilon)
            scale = Fraction(positive("ClampedLaplaceMechanism", "sensitivity", sensitivity)) / Fraction(epsilon)
        self.scale = positive("ClampedLaplaceMechanism", "scale", scale, exact=True)
        self.name = f"ClampedLaplace(scale={float(self.scale):.6g}, [{self.lower:g}, {self.upper:g}])"

    def _input(self, data: Any) -> float:
        return finite_number(self.name, "the query answer", float(np.asarray(data)))

    def _sample(self, q: float, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.clip(q + rng.laplace(0.0, float(self.scale), size), self.lower, self.upper)

    def _distribution(self, q: float) -> PiecewiseExponentialDistribution:
        v, b, lo, hi = exact(q), exact(self.scale), exact(self.lower), exact(self.upper)
        breaks, slopes, offsets = _laplace_pieces(v, b, lo, hi)
        density = LogConstant(("laplace", b), lambda ctx: -ctx.log(2 * _q(ctx, b)), -math.log(2 * float(b)))
        return PiecewiseExponentialDistribution.build(
            breaks, slopes, offsets, density, atoms=[_tail_atom(lo, v - lo, b), _tail_atom(hi, hi - v, b)],
            name=f"{self.name} at {q:g}")


def _tail_atom(at: Fraction, distance: Fraction, b: Fraction) -> tuple[Fraction, Fraction, LogConstant]:
    """The mass of a Laplace(q, b) beyond a bound at signed ``distance`` from q (positive: q inside):
    1/2 e^{-distance/b}, or 1 - 1/2 e^{distance/b} when q lies beyond the bound."""
    if distance >= 0:
        return at, -distance / b, LogConstant(("log", Fraction(1, 2)), lambda ctx: -ctx.log(2), -math.log(2))
    t = -distance / b
    return at, Fraction(0), LogConstant(("clamped-laplace-atom", t), lambda ctx: ctx.log(1 - ctx.exp(-_q(ctx, t)) / 2),
                                        math.log1p(-math.exp(-float(t)) / 2))


class BoundedDomainLaplaceMechanism(ExactRelease):
    """The bounded-domain Laplace mechanism (Holohan et al. 2018; diffprivlib's ``LaplaceBoundedDomain``):
    the answer clamped into [lower, upper], then Laplace noise of ``scale`` b conditioned on the output
    lying in [lower, upper] (resampled until it does).

    **True epsilon**, derived: for answers q < q' the loss log p_q(x)/p_q'(x) is
    (|x - q'| - |x - q|)/b + log(Z(q')/Z(q)), with Z(q) = b (2 - e^{-(q - lower)/b} - e^{-(upper - q)/b})
    the mass of exp(-|x - q|/b) on the range. So epsilon = sensitivity/b + log of the largest ratio
    Z(q')/Z(q) over neighbouring answers, attained at a bound (Holohan et al., Lemma 2); the library
    chooses b so that this equals the epsilon asked for, and reports sensitivity/b alone as its
    "effective epsilon". The default audit pairs sit at the bounds for that reason.

    Exact law: density exp(-|x - q|/b) / Z(q) on [lower, upper], with Z(q) enclosed in interval
    arithmetic.
    """

    def __init__(self, scale: float | Fraction, lower: float, upper: float):
        self.lower, self.upper = _bounds("BoundedDomainLaplaceMechanism", lower, upper)
        self.scale = positive("BoundedDomainLaplaceMechanism", "scale", scale, exact=True)
        self.name = f"BoundedDomainLaplace(scale={float(self.scale):.6g}, [{self.lower:g}, {self.upper:g}])"

    @classmethod
    def calibrated(cls, epsilon: float, lower: float, upper: float,
                   sensitivity: float = 1.0) -> BoundedDomainLaplaceMechanism:
        """The mechanism whose true epsilon (:meth:`true_epsilon`) is ``epsilon`` for answers ``sensitivity``
        apart: the scale b solving d / b + log(Z(lower + d) / Z(lower)) = epsilon, d = min(sensitivity, upper -
        lower) (Holohan et al.'s calibration, which diffprivlib's ``_find_scale`` approximates by bisection),
        found by Brent's method to the floats' resolution. The widened scale b > d / epsilon pays for the
        normaliser's change between neighbouring answers."""
        from scipy.optimize import brentq

        positive("BoundedDomainLaplaceMechanism", "epsilon", epsilon)
        sensitivity = positive("BoundedDomainLaplaceMechanism", "sensitivity", sensitivity)
        lower, upper = _bounds("BoundedDomainLaplaceMechanism", lower, upper)

        def excess(b: float) -> float:
            return cls._loss(b, lower, upper, sensitivity) - epsilon

        low = min(sensitivity, upper - lower) / epsilon  # the loss is at least epsilon there (Z(lower + d) >= Z(lower))
        high = 2 * low
        while excess(high) > 0:  # the loss falls to sensitivity / b + o(1/b) as b grows
            high *= 2
        return cls(brentq(excess, low, high, xtol=1e-15, rtol=4 * np.finfo(float).eps), lower, upper)

    @staticmethod
    def _loss(b: float, lower: float, upper: float, sensitivity: float) -> float:
        def z(q: float) -> float:
            return _mass_over_scale(q - lower, upper - q, b)

        d = min(sensitivity, upper - lower)  # answers are clamped into the range first
        return d / b + math.log(z(lower + d) / z(lower))

    def true_epsilon(self, sensitivity: float = 1.0) -> float:
        """The largest privacy loss between answers ``sensitivity`` apart (class docstring), derived: for answers
        q < q' (clamped into the range) the loss is at most (q' - q) / b + log Z(q') - log Z(q), reached at the
        output ``lower``. log Z is concave, so for a fixed distance t the normaliser's term is largest from
        q = lower; and t / b + log Z(lower + t) does not decrease in t (b |Z'| <= Z, since 2 - x - y >= |x - y|
        on [0, 1]^2), so the largest distance wins: d = min(sensitivity, upper - lower), loss d / b +
        log Z(lower + d) / Z(lower). A float (the audit's exact enclosure is the reference; this is the
        formula the tests check against it)."""
        sensitivity = positive("BoundedDomainLaplaceMechanism", "sensitivity", sensitivity)
        return self._loss(float(self.scale), self.lower, self.upper, sensitivity)

    def _input(self, data: Any) -> float:
        q = finite_number(self.name, "the query answer", float(np.asarray(data)))
        return min(max(q, self.lower), self.upper)

    def _sample(self, q: float, size: int, rng: np.random.Generator) -> np.ndarray:
        return self._distribution(q).sample(size, rng)  # by inversion: the law of resampling until inside

    def _distribution(self, q: float) -> PiecewiseExponentialDistribution:
        v, b, lo, hi = exact(q), exact(self.scale), exact(self.lower), exact(self.upper)
        breaks, slopes, offsets = _laplace_pieces(v, b, lo, hi)

        def enclose(ctx: Any) -> Any:
            bb = _q(ctx, b)
            return -ctx.log(bb * (2 - ctx.exp(-_q(ctx, v - lo) / bb) - ctx.exp(-_q(ctx, hi - v) / bb)))

        fb = float(b)
        approx = -math.log(fb) - math.log(_mass_over_scale(float(v - lo), float(hi - v), fb))
        return PiecewiseExponentialDistribution.build(
            breaks, slopes, offsets, LogConstant(("bounded-laplace", b, lo, hi, v), enclose, approx),
            name=f"{self.name} at {q:g}")


__all__ = ["BoundedDomainLaplaceMechanism", "ClampedLaplaceMechanism"]
