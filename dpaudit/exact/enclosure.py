"""Rigorous enclosures [lo, hi] of real quantities, with exact rational end points.

End points are :class:`fractions.Fraction` (floats convert exactly), or the floats ``-inf`` /
``inf``. Sums and comparisons are then exact, so a claim equal to the true value is verified when
the arithmetic was exact, and the only widening is the error bound an algorithm states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpmath import libmp

Number = Fraction | float  # floats only for +-inf

UNIT_ROUNDOFF = Fraction(1, 2**53)


def as_number(x: float | int | Fraction) -> Number:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float) and math.isinf(x):
        return x
    if isinstance(x, float) and math.isnan(x):
        raise ValueError("an enclosure end point cannot be NaN")
    return Fraction(x)


def float_down(x: Number) -> float:
    """The largest float <= x."""
    f = float(x)
    return math.nextafter(f, -math.inf) if math.isfinite(f) and Fraction(f) > x else f


def float_up(x: Number) -> float:
    """The smallest float >= x."""
    f = float(x)
    return math.nextafter(f, math.inf) if math.isfinite(f) and Fraction(f) < x else f


@dataclass(frozen=True)
class Enclosure:
    """lo <= true value <= hi."""

    lo: Number
    hi: Number

    def __post_init__(self) -> None:
        object.__setattr__(self, "lo", as_number(self.lo))
        object.__setattr__(self, "hi", as_number(self.hi))
        if self.lo > self.hi:
            raise ArithmeticError(f"empty enclosure [{float(self.lo)}, {float(self.hi)}]")

    @classmethod
    def point(cls, x: float | int | Fraction) -> Enclosure:
        return cls(x, x)

    @classmethod
    def around(cls, value: float, abs_error: float | Fraction = 0, rel_error: float | Fraction = 0) -> Enclosure:
        """[value - e, value + e] with e = abs_error + rel_error |value|, computed exactly."""
        if math.isinf(value):
            return cls(value, value)
        v = Fraction(value)
        e = Fraction(abs_error) + Fraction(rel_error) * abs(v)
        return cls(v - e, v + e)

    @classmethod
    def from_interval(cls, x: Any) -> Enclosure:
        """From an mpmath interval (ctx_iv)."""
        lo, hi = x._mpi_
        return cls(_mpf_to_number(lo), _mpf_to_number(hi))

    @property
    def is_exact(self) -> bool:
        return self.lo == self.hi

    @property
    def width(self) -> Number:
        return self.hi - self.lo

    @property
    def midpoint(self) -> float:
        if math.isinf(self.lo) or math.isinf(self.hi):
            return float(self.hi if math.isinf(self.lo) else self.lo) if self.lo != -self.hi else 0.0
        return float((self.lo + self.hi) / 2)

    def floats(self) -> tuple[float, float]:
        """Outward-rounded float end points."""
        return float_down(self.lo), float_up(self.hi)

    def __add__(self, other: Enclosure) -> Enclosure:
        return Enclosure(_add(self.lo, other.lo), _add(self.hi, other.hi))

    def __neg__(self) -> Enclosure:
        return Enclosure(-self.hi, -self.lo)

    def scale(self, factor: Fraction) -> Enclosure:
        """Multiply by a positive rational."""
        return Enclosure(self.lo * factor if math.isfinite(self.lo) else self.lo,
                         self.hi * factor if math.isfinite(self.hi) else self.hi)


def _add(a: Number, b: Number) -> Number:
    # an end is a Fraction or a float infinity (as_number): asking math.isinf of a Fraction beyond the
    # float range (10^400) would overflow, so only a float end is asked
    a_inf, b_inf = isinstance(a, float) and math.isinf(a), isinstance(b, float) and math.isinf(b)
    if a_inf or b_inf:
        if a_inf and b_inf and (a > 0) != (b > 0):
            raise ArithmeticError("inf - inf in an enclosure")
        return a if a_inf else b
    return a + b


def _mpf_to_number(raw: tuple) -> Number:
    if raw == libmp.finf:
        return math.inf
    if raw == libmp.fninf:
        return -math.inf
    if raw == libmp.fnan:
        raise ArithmeticError("NaN in an interval computation")
    return Fraction(*libmp.to_rational(raw))


def maximum(values: list[Enclosure]) -> Enclosure:
    """Enclosure of the maximum of several enclosed values."""
    return Enclosure(max(v.lo for v in values), max(v.hi for v in values))
