"""Exact integrals of products of piecewise-exponential functions.

Many classic mechanisms have finite outputs whose probabilities are one-dimensional integrals of
products of Laplace or exponential densities and distribution functions: report-noisy-max
(P[index i] = integral of the density of the i-th noisy answer times the others' CDFs) and the
sparse vector technique (P[pattern] = integral over the threshold noise of a product of the queries'
CDFs and survival functions). On each interval between the locations of those noises every factor
is a finite sum of terms ``c * exp(s + r z)`` with rational ``c``, ``s`` and ``r``, so the product is
again such a sum and its integral has a closed form:

    integral over [a, b] of c exp(s + r z) dz = c/r (exp(s + r b) - exp(s + r a))    (r != 0)
                                              = c (b - a) exp(s)                     (r == 0).

:class:`PiecewiseExp` carries out this algebra exactly (Python fractions); the result is a finite
sum ``sum_t c_t exp(u_t)`` with rational ``c_t`` and ``u_t``, which :func:`enclose` evaluates with
mpmath interval arithmetic, so the probability is known to lie in a rigorous interval (the sum may
mix signs; the precision is raised until the interval is narrow relative to its value).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from mpmath.ctx_iv import MPIntervalContext

from dpaudit.core.distributions import interval_bounds

# A piece: {(rate, constant): coefficient} for the function sum coefficient * exp(constant + rate * z).
Piece = dict[tuple[Fraction, Fraction], Fraction]

HALF = Fraction(1, 2)
START_BITS = 192
MAX_BITS = 4096
# Relative width of an enclosure accepted as final (far below anything a verdict depends on).
TARGET_RELATIVE_WIDTH = Fraction(1, 2**100)


def _clean(piece: Piece) -> Piece:
    return {k: c for k, c in piece.items() if c != 0}


def _multiply(a: Piece, b: Piece) -> Piece:
    out: Piece = {}
    for (ra, sa), ca in a.items():
        for (rb, sb), cb in b.items():
            key = (ra + rb, sa + sb)
            out[key] = out.get(key, Fraction(0)) + ca * cb
    return _clean(out)


@dataclass(frozen=True)
class PiecewiseExp:
    """A function on the real line, piecewise a finite sum of ``c * exp(s + r z)``.

    ``breaks`` are strictly increasing rationals; ``pieces[0]`` holds on ``(-inf, breaks[0])``,
    ``pieces[i]`` on ``(breaks[i-1], breaks[i])`` and ``pieces[-1]`` on ``(breaks[-1], inf)``.
    Values at the break points themselves are irrelevant (a null set for the integral).
    """

    breaks: tuple[Fraction, ...]
    pieces: tuple[Piece, ...]

    def __post_init__(self) -> None:
        if len(self.pieces) != len(self.breaks) + 1:
            raise ValueError("PiecewiseExp needs one more piece than break points")
        if any(b <= a for a, b in zip(self.breaks, self.breaks[1:])):
            raise ValueError("PiecewiseExp break points must be strictly increasing")

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def constant(cls, value: Fraction | int) -> PiecewiseExp:
        return cls((), (_clean({(Fraction(0), Fraction(0)): Fraction(value)}),))

    @classmethod
    def indicator_below(cls, at: Fraction) -> PiecewiseExp:
        """1 on (-inf, at), 0 on (at, inf)."""
        return cls((at,), ({(Fraction(0), Fraction(0)): Fraction(1)}, {}))

    @classmethod
    def indicator_above(cls, at: Fraction) -> PiecewiseExp:
        """0 on (-inf, at), 1 on (at, inf)."""
        return cls((at,), ({}, {(Fraction(0), Fraction(0)): Fraction(1)}))

    @classmethod
    def laplace_pdf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """Density of loc + Laplace(scale): exp(-|z - loc| / scale) / (2 scale)."""
        r = 1 / scale
        c = 1 / (2 * scale)
        return cls((loc,), ({(r, -loc * r): c}, {(-r, loc * r): c}))

    @classmethod
    def laplace_cdf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """P[loc + Laplace(scale) <= z]: exp((z - loc)/scale)/2 below loc, 1 - exp(-(z - loc)/scale)/2 above."""
        r = 1 / scale
        return cls((loc,), ({(r, -loc * r): HALF}, {(Fraction(0), Fraction(0)): Fraction(1), (-r, loc * r): -HALF}))

    @classmethod
    def laplace_sf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """P[loc + Laplace(scale) > z] = 1 - CDF."""
        return cls.constant(1) - cls.laplace_cdf(loc, scale)

    @classmethod
    def exponential_pdf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """Density of loc + Exponential(scale): exp(-(z - loc)/scale)/scale for z > loc, else 0."""
        r = 1 / scale
        return cls((loc,), ({}, {(-r, loc * r): r}))

    @classmethod
    def exponential_cdf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """P[loc + Exponential(scale) <= z]: 0 below loc, 1 - exp(-(z - loc)/scale) above."""
        r = 1 / scale
        return cls((loc,), ({}, {(Fraction(0), Fraction(0)): Fraction(1), (-r, loc * r): Fraction(-1)}))

    # -- algebra ------------------------------------------------------------------------------
    def refined(self, breaks: Sequence[Fraction]) -> PiecewiseExp:
        """The same function with extra break points (a superset of ``self.breaks``)."""
        # (breaks[i-1], breaks[i]) lies inside the piece of self whose index is the number of
        # self's break points <= breaks[i-1]; the leftmost interval lies in self's first piece.
        pieces = [self.pieces[0]]
        pieces += [self.pieces[bisect.bisect_right(self.breaks, b)] for b in breaks]
        return PiecewiseExp(tuple(breaks), tuple(pieces))

    def _aligned(self, other: PiecewiseExp) -> tuple[PiecewiseExp, PiecewiseExp]:
        if self.breaks == other.breaks:
            return self, other
        breaks = tuple(sorted(set(self.breaks) | set(other.breaks)))
        return self.refined(breaks), other.refined(breaks)

    def __mul__(self, other: PiecewiseExp) -> PiecewiseExp:
        a, b = self._aligned(other)
        return PiecewiseExp(a.breaks, tuple(_multiply(p, q) for p, q in zip(a.pieces, b.pieces)))

    def __add__(self, other: PiecewiseExp) -> PiecewiseExp:
        a, b = self._aligned(other)
        pieces = []
        for p, q in zip(a.pieces, b.pieces):
            out = dict(p)
            for k, c in q.items():
                out[k] = out.get(k, Fraction(0)) + c
            pieces.append(_clean(out))
        return PiecewiseExp(a.breaks, tuple(pieces))

    def __neg__(self) -> PiecewiseExp:
        return PiecewiseExp(self.breaks, tuple({k: -c for k, c in p.items()} for p in self.pieces))

    def __sub__(self, other: PiecewiseExp) -> PiecewiseExp:
        return self + (-other)

    def integral(self) -> list[tuple[Fraction, Fraction]]:
        """The integral over the real line as exact terms ``[(c, u), ...]`` meaning sum c exp(u).

        Raises ``ValueError`` if a tail term does not decay (the integral would diverge)."""
        out: dict[Fraction, Fraction] = {}

        def add(c: Fraction, u: Fraction) -> None:
            out[u] = out.get(u, Fraction(0)) + c

        edges = (None, *self.breaks, None)
        for i, piece in enumerate(self.pieces):
            lo, hi = edges[i], edges[i + 1]
            for (r, s), c in piece.items():
                if r == 0:
                    if lo is None or hi is None:
                        raise ValueError("PiecewiseExp.integral: a constant term on an infinite interval diverges")
                    add(c * (hi - lo), s)
                    continue
                if (lo is None and r < 0) or (hi is None and r > 0):
                    raise ValueError("PiecewiseExp.integral: a tail term grows; the integral diverges")
                if hi is not None:
                    add(c / r, s + r * hi)
                if lo is not None:
                    add(-c / r, s + r * lo)
        return [(c, u) for u, c in out.items() if c != 0]


def product(factors: Iterable[PiecewiseExp]) -> PiecewiseExp:
    """The product of the factors (1 if there are none)."""
    out = PiecewiseExp.constant(1)
    for f in factors:
        out = out * f
    return out


@functools.cache
def interval_context(bits: int) -> MPIntervalContext:
    """A private mpmath interval context at ``bits`` of precision, made once (creating one is slow)
    and never changed afterwards."""
    ctx = MPIntervalContext()
    ctx.prec = bits
    return ctx


def _iv_rational(ctx: MPIntervalContext, x: Fraction):
    return ctx.mpf(x.numerator) / ctx.mpf(x.denominator)


def enclose(terms: Sequence[tuple[Fraction, Fraction]]) -> tuple[Fraction, Fraction]:
    """A rigorous enclosure [lo, hi] (exact rationals) of ``sum c exp(u)`` over ``terms``.

    Evaluated in interval arithmetic; the precision doubles from 192 bits until the enclosure's
    width is below 2^-100 of its lower end. ``(0, 0)`` for an empty sum (an exact zero). Raises
    ``ArithmeticError`` if the sum cannot be separated from zero at 4096 bits."""
    if not terms:
        return Fraction(0), Fraction(0)
    bits = START_BITS
    while True:
        ctx = interval_context(bits)
        total = ctx.mpf(0)
        for c, u in terms:
            total += _iv_rational(ctx, c) * ctx.exp(_iv_rational(ctx, u))
        lo, hi = interval_bounds(total)
        if lo > 0 and (hi - lo) <= TARGET_RELATIVE_WIDTH * lo:
            return lo, hi
        if bits >= MAX_BITS:
            raise ArithmeticError(
                f"could not separate an exact sum from zero at {bits} bits (enclosure [{float(lo)}, {float(hi)}])"
            )
        bits *= 2


__all__ = ["PiecewiseExp", "enclose", "interval_context", "product"]
