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

:class:`PiecewiseExp` carries out this algebra exactly (rational break points, flint rationals as
coefficients, exponents as integers over a common denominator); the result is a finite
sum ``sum_t c_t exp(u_t)`` with rational ``c_t`` and ``u_t``, which :func:`enclose` evaluates with
ball arithmetic, so the probability is known to lie in a rigorous interval (the sum may
mix signs; the precision is raised until the interval is narrow relative to its value).
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, fmpq
from flint import ctx as flint_context
from mpmath.ctx_iv import MPIntervalContext

# A piece: {(R, S): c} for the function sum c * exp((S + R z) / D), D the function's ``denominator``.
# Exponents share one integer denominator so that a piece's keys are pairs of ints and its coefficients
# flint rationals: a product of pieces is then plain integer addition and hashing, about 30 times faster
# than pairs of Fractions (an exact sparse-vector law multiplies some 65,000 pieces). Exact either way.
Piece = dict[tuple[int, int], fmpq]

HALF = Fraction(1, 2)
START_BITS = 192
MAX_BITS = 4096
# Relative width of an enclosure accepted as final (far below anything a verdict depends on).
TARGET_RELATIVE_WIDTH = Fraction(1, 2**100)


def _clean(piece: Piece) -> Piece:
    return {k: c for k, c in piece.items() if c != 0}


def _multiply(a: Piece, b: Piece) -> Piece:
    out: Piece = {}
    zero = fmpq(0)
    for (ra, sa), ca in a.items():
        for (rb, sb), cb in b.items():
            key = (ra + rb, sa + sb)
            out[key] = out.get(key, zero) + ca * cb
    return _clean(out)


def _rescaled(piece: Piece, factor: int) -> Piece:
    """``piece`` on a denominator ``factor`` times its own (the same function)."""
    return piece if factor == 1 else {(r * factor, s * factor): c for (r, s), c in piece.items()}


def _reduced(numerator: int, denominator: int) -> tuple[int, int]:
    g = math.gcd(numerator, denominator)
    return numerator // g, denominator // g


@dataclass(frozen=True)
class PiecewiseExp:
    """A function on the real line, piecewise a finite sum of ``c * exp(s + r z)``.

    ``breaks`` are strictly increasing rationals; ``pieces[0]`` holds on ``(-inf, breaks[0])``,
    ``pieces[i]`` on ``(breaks[i-1], breaks[i])`` and ``pieces[-1]`` on ``(breaks[-1], inf)``.
    Values at the break points themselves are irrelevant (a null set for the integral). A piece maps
    ``(R, S)`` to ``c`` for the term ``c * exp((S + R z) / denominator)`` (:data:`Piece`); build one with
    the constructors or :meth:`from_terms`.
    """

    breaks: tuple[Fraction, ...]
    pieces: tuple[Piece, ...]
    denominator: int = 1

    def __post_init__(self) -> None:
        if len(self.pieces) != len(self.breaks) + 1:
            raise ValueError("PiecewiseExp needs one more piece than break points")
        if any(b <= a for a, b in zip(self.breaks, self.breaks[1:])):
            raise ValueError("PiecewiseExp break points must be strictly increasing")
        if not isinstance(self.denominator, int) or self.denominator < 1:
            raise ValueError(f"PiecewiseExp's denominator must be a positive int, got {self.denominator!r}")

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def from_terms(cls, breaks: Sequence[Fraction],
                   pieces: Sequence[dict[tuple[Fraction, Fraction], Fraction | int]]) -> PiecewiseExp:
        """The function whose piece ``i`` is ``sum c * exp(s + r z)`` over ``pieces[i]``, a dict
        ``{(r, s): c}`` of rationals, on the common denominator of every ``r`` and ``s``."""
        exact = [{(Fraction(r), Fraction(s)): Fraction(c) for (r, s), c in piece.items()} for piece in pieces]
        d = math.lcm(1, *(x.denominator for piece in exact for key in piece for x in key))
        return cls(tuple(Fraction(b) for b in breaks),
                   tuple(_clean({(int(r * d), int(s * d)): fmpq(c.numerator, c.denominator)
                                 for (r, s), c in piece.items()}) for piece in exact), d)

    @classmethod
    def constant(cls, value: Fraction | int) -> PiecewiseExp:
        return cls.from_terms((), ({(0, 0): value},))

    @classmethod
    def indicator_below(cls, at: Fraction) -> PiecewiseExp:
        """1 on (-inf, at), 0 on (at, inf)."""
        return cls.from_terms((at,), ({(0, 0): 1}, {}))

    @classmethod
    def indicator_above(cls, at: Fraction) -> PiecewiseExp:
        """0 on (-inf, at), 1 on (at, inf)."""
        return cls.from_terms((at,), ({}, {(0, 0): 1}))

    @classmethod
    def laplace_pdf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """Density of loc + Laplace(scale): exp(-|z - loc| / scale) / (2 scale)."""
        r = 1 / Fraction(scale)
        c = r / 2
        return cls.from_terms((loc,), ({(r, -loc * r): c}, {(-r, loc * r): c}))

    @classmethod
    def laplace_cdf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """P[loc + Laplace(scale) <= z]: exp((z - loc)/scale)/2 below loc, 1 - exp(-(z - loc)/scale)/2 above."""
        r = 1 / Fraction(scale)
        return cls.from_terms((loc,), ({(r, -loc * r): HALF}, {(0, 0): 1, (-r, loc * r): -HALF}))

    @classmethod
    def laplace_sf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """P[loc + Laplace(scale) > z] = 1 - CDF."""
        return cls.constant(1) - cls.laplace_cdf(loc, scale)

    @classmethod
    def exponential_pdf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """Density of loc + Exponential(scale): exp(-(z - loc)/scale)/scale for z > loc, else 0."""
        r = 1 / Fraction(scale)
        return cls.from_terms((loc,), ({}, {(-r, loc * r): r}))

    @classmethod
    def exponential_cdf(cls, loc: Fraction, scale: Fraction) -> PiecewiseExp:
        """P[loc + Exponential(scale) <= z]: 0 below loc, 1 - exp(-(z - loc)/scale) above."""
        r = 1 / Fraction(scale)
        return cls.from_terms((loc,), ({}, {(0, 0): 1, (-r, loc * r): -1}))

    # -- algebra ------------------------------------------------------------------------------
    def refined(self, breaks: Sequence[Fraction]) -> PiecewiseExp:
        """The same function with extra break points (a superset of ``self.breaks``)."""
        # (breaks[i-1], breaks[i]) lies inside the piece of self whose index is the number of
        # self's break points <= breaks[i-1]; the leftmost interval lies in self's first piece.
        pieces = [self.pieces[0]]
        pieces += [self.pieces[bisect.bisect_right(self.breaks, b)] for b in breaks]
        return PiecewiseExp(tuple(breaks), tuple(pieces), self.denominator)

    def on_denominator(self, denominator: int) -> PiecewiseExp:
        """The same function with its exponents on ``denominator`` (a multiple of :attr:`denominator`)."""
        factor, rest = divmod(denominator, self.denominator)
        if rest:
            raise ValueError(f"{denominator} is not a multiple of the denominator {self.denominator}")
        if factor == 1:
            return self
        return PiecewiseExp(self.breaks, tuple(_rescaled(p, factor) for p in self.pieces), denominator)

    def _aligned(self, other: PiecewiseExp) -> tuple[PiecewiseExp, PiecewiseExp]:
        a, b = self, other
        if a.denominator != b.denominator:
            d = math.lcm(a.denominator, b.denominator)
            a, b = a.on_denominator(d), b.on_denominator(d)
        if a.breaks == b.breaks:
            return a, b
        breaks = tuple(sorted(set(a.breaks) | set(b.breaks)))
        return a.refined(breaks), b.refined(breaks)

    def __mul__(self, other: PiecewiseExp) -> PiecewiseExp:
        a, b = self._aligned(other)
        return PiecewiseExp(a.breaks, tuple(_multiply(p, q) for p, q in zip(a.pieces, b.pieces)), a.denominator)

    def __add__(self, other: PiecewiseExp) -> PiecewiseExp:
        a, b = self._aligned(other)
        pieces = []
        zero = fmpq(0)
        for p, q in zip(a.pieces, b.pieces):
            out = dict(p)
            for k, c in q.items():
                out[k] = out.get(k, zero) + c
            pieces.append(_clean(out))
        return PiecewiseExp(a.breaks, tuple(pieces), a.denominator)

    def __neg__(self) -> PiecewiseExp:
        return PiecewiseExp(self.breaks, tuple({k: -c for k, c in p.items()} for p in self.pieces), self.denominator)

    def __sub__(self, other: PiecewiseExp) -> PiecewiseExp:
        return self + (-other)

    def __call__(self, z: Fraction) -> float:
        """The function's value at ``z`` (not a break point), in floating point: for checking, not for use."""
        piece = self.pieces[bisect.bisect_right(self.breaks, Fraction(z))]
        return math.fsum(float(Fraction(int(c.p), int(c.q))) * math.exp((s + r * Fraction(z)) / self.denominator)
                         for (r, s), c in piece.items())

    def integral(self) -> list[tuple[fmpq, Fraction]]:
        """The integral over the real line as exact terms ``[(c, u), ...]`` meaning sum c exp(u), equal
        exponents merged (``c`` a flint rational, ``u`` a Fraction).

        Raises ``ValueError`` if a tail term does not decay (the integral would diverge)."""
        d = self.denominator
        # keyed by u = numerator/denominator in lowest terms, so equal exponents merge (and cancel exactly)
        out: dict[tuple[int, int], fmpq] = {}
        zero = fmpq(0)

        def add(c: fmpq, u: tuple[int, int]) -> None:
            out[u] = out.get(u, zero) + c

        edges = (None, *self.breaks, None)
        for i, piece in enumerate(self.pieces):
            lo, hi = edges[i], edges[i + 1]
            for (r, s), c in piece.items():
                if r == 0:
                    if lo is None or hi is None:
                        raise ValueError("PiecewiseExp.integral: a constant term on an infinite interval diverges")
                    width = hi - lo
                    add(c * fmpq(width.numerator, width.denominator), _reduced(s, d))
                    continue
                if (lo is None and r < 0) or (hi is None and r > 0):
                    raise ValueError("PiecewiseExp.integral: a tail term grows; the integral diverges")
                # integral of c exp((s + r z)/d) from lo to hi = c d/r (exp((s + r hi)/d) - exp((s + r lo)/d))
                step = c * fmpq(d, r)
                if hi is not None:
                    add(step, _reduced(s * hi.denominator + r * hi.numerator, d * hi.denominator))
                if lo is not None:
                    add(-step, _reduced(s * lo.denominator + r * lo.numerator, d * lo.denominator))
        return [(c, Fraction(*u)) for u, c in out.items() if c != 0]


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


def _ball(x: Fraction | fmpq) -> arb:
    """A rational as an arb ball at the working precision (exact where it fits, else a rigorous ball)."""
    return arb(x if isinstance(x, fmpq) else fmpq(x.numerator, x.denominator))


def _dyadic(x: arb) -> Fraction:
    """An exact arb (an end point of a ball) as a Fraction."""
    mantissa, exponent = (int(v) for v in x.man_exp())
    return Fraction(mantissa * 2**exponent) if exponent >= 0 else Fraction(mantissa, 2**-exponent)


def enclose(terms: Sequence[tuple[Fraction | fmpq, Fraction | fmpq]]) -> tuple[Fraction, Fraction]:
    """A rigorous enclosure [lo, hi] (exact rationals) of ``sum c exp(u)`` over ``terms`` (Fractions or
    flint rationals).

    Evaluated in ball arithmetic (python-flint's arb: every operation's rounding error is carried in the
    ball's radius, so the ball holds the exact sum; about 20 times faster than mpmath's intervals). The
    precision doubles from 192 bits until the enclosure's width is below 2^-100 of its lower end.
    ``(0, 0)`` for an empty sum (an exact zero). Raises ``ArithmeticError`` if the sum cannot be
    separated from zero at 4096 bits."""
    if not terms:
        return Fraction(0), Fraction(0)
    bits = START_BITS
    saved = flint_context.prec
    try:
        while True:
            flint_context.prec = bits
            total = arb(0)
            for c, u in terms:
                total += _ball(c) * _ball(u).exp()
            lo, hi = _dyadic(total.lower()), _dyadic(total.upper())
            if lo > 0 and (hi - lo) <= TARGET_RELATIVE_WIDTH * lo:
                return lo, hi
            if bits >= MAX_BITS:
                raise ArithmeticError(f"could not separate an exact sum from zero at {bits} bits "
                                      f"(enclosure [{float(lo)}, {float(hi)}])")
            bits *= 2
    finally:
        flint_context.prec = saved


__all__ = ["PiecewiseExp", "enclose", "interval_context", "product"]
