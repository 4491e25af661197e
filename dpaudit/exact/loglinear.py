"""Exact privacy quantities of two log-piecewise-linear densities (Laplace, discrete Laplace, ...).

Between consecutive knots of either density both log-densities are linear, so on each such piece
p(x) = exp(A_p + B_p x) and q(x) = exp(A_q + B_q x), with rational slopes B and constants A that
are rational up to the irrational normalising constant. Hence:

- the privacy loss L = log p - log q is piecewise linear: its supremum sits at a knot (on the
  integers: an integer next to a knot) or is infinite along a tail whose slopes differ;
- delta(eps) = sum over pieces of the integral of (p - e^eps q) over {L > eps}: on a piece that set
  is a half-line cut at x* = (eps - (A_p - A_q)) / (B_p - B_q), and the integrals of exponentials
  (sums of geometric series on the integers) have closed forms;
- D_alpha = log(sum over pieces of the integral of exp(alpha(A_p + B_p x) + (1 - alpha)(A_q + B_q x)))
  / (alpha - 1), infinite when a tail's combined slope does not decay.

Rational parts are exact; constants and closed forms are evaluated in 256-bit mpmath interval
arithmetic, so every result is a rigorous enclosure. Where the cut x* is itself only known to lie
in an interval, the contribution of the piece is bracketed: the integral of (p - e^eps q) from a
boundary b is largest at b = x*, so any b inside the interval gives a lower bound and the
p-integral from the earliest possible boundary minus the e^eps q-integral from the latest gives an
upper bound.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpmath.ctx_iv import MPIntervalContext

from ..core.distributions import LogConstant, LogLinearDistribution
from ..core.errors import MechanismError
from .enclosure import Enclosure
from .loss import LossRange

INF = math.inf
BITS = 256


def interval_ctx() -> MPIntervalContext:
    ctx = MPIntervalContext()
    ctx.prec = BITS
    return ctx


def rational(ctx: MPIntervalContext, x: Fraction) -> Any:
    return ctx.mpf(x.numerator) / ctx.mpf(x.denominator)


def _check(p: LogLinearDistribution, q: LogLinearDistribution) -> None:
    if p.lattice != q.lattice:
        raise MechanismError("cannot compare a pmf on the integers with a density on the reals")


def enclose_constant(ctx: MPIntervalContext, c: LogConstant | None) -> Any:
    """A log-density's irrational constant as an interval (0 when there is none)."""
    return c.enclose(ctx) if c is not None else ctx.mpf(0)


def constant_gap(cp: LogConstant | None, cq: LogConstant | None) -> Enclosure:
    """cp - cq; constants with equal keys cancel exactly."""
    if cp == cq:
        return Enclosure.point(0)
    ctx = interval_ctx()
    return Enclosure.from_interval(enclose_constant(ctx, cp) - enclose_constant(ctx, cq))


def constant_difference(p: LogLinearDistribution, q: LogLinearDistribution) -> Enclosure:
    """The constant part of log p - log q."""
    return constant_gap(p.constant, q.constant)


def _candidate_points(p: LogLinearDistribution, q: LogLinearDistribution) -> list[Fraction]:
    knots = sorted(set(p.knots) | set(q.knots))
    if not p.lattice:
        return knots
    return sorted({Fraction(f(k)) for k in knots for f in (math.floor, math.ceil)})


def loss_range(p: LogLinearDistribution, q: LogLinearDistribution) -> LossRange:
    _check(p, q)
    points = _candidate_points(p, q)
    losses = [p.offset(x) - q.offset(x) for x in points]
    i_max = max(range(len(points)), key=losses.__getitem__)
    i_min = min(range(len(points)), key=losses.__getitem__)
    c = constant_difference(p, q)
    sup, sup_at = Enclosure.point(losses[i_max]) + c, points[i_max]
    inf, inf_at = Enclosure.point(losses[i_min]) + c, points[i_min]
    # Along a tail the loss is linear with slope (slope_P - slope_Q): unbounded unless equal.
    left, right = p.slopes[0] - q.slopes[0], p.slopes[-1] - q.slopes[-1]
    if left < 0:
        sup, sup_at = Enclosure.point(INF), -INF
    if right > 0:
        sup, sup_at = Enclosure.point(INF), INF
    if left > 0:
        inf, inf_at = Enclosure.point(-INF), -INF
    if right < 0:
        inf, inf_at = Enclosure.point(-INF), INF
    return LossRange(sup, inf, sup_at, inf_at)


@dataclass(frozen=True)
class Piece:
    """[left, right) with exp(A + B x) for each density (A as intervals, B rational), and the
    loss L(x) = gap + (b_p - b_q) x with ``gap`` enclosed exactly when the constants cancel."""

    left: Fraction | float
    right: Fraction | float
    a_p: Any
    b_p: Fraction
    a_q: Any
    b_q: Fraction
    gap: Enclosure


def _pieces(ctx: MPIntervalContext, p: LogLinearDistribution, q: LogLinearDistribution) -> list[Piece]:
    knots = sorted(set(p.knots) | set(q.knots))
    bounds = [-INF, *knots, INF]
    cp, cq = enclose_constant(ctx, p.constant), enclose_constant(ctx, q.constant)
    constant_gap = constant_difference(p, q)
    out = []
    for left, right in zip(bounds, bounds[1:]):
        anchor = left if left != -INF else right  # a point of the piece's closure
        forms = []
        for d in (p, q):
            slope = d.slopes[0] if left == -INF else d.slopes[bisect.bisect_right(d.knots, left)]
            forms.append((d.offset(anchor) - slope * anchor, slope))
        (rp, bp), (rq, bq) = forms
        out.append(Piece(left, right, cp + rational(ctx, rp), bp, cq + rational(ctx, rq), bq,
                          Enclosure.point(rp - rq) + constant_gap))
    return out


def integral(ctx: MPIntervalContext, a: Any, b: Fraction, left: Any, right: Any, lattice: bool) -> Any:
    """Integral of exp(a + b x) over [left, right), or its sum over the integers in it.

    ``left``/``right`` are rationals or +-inf; the result is an interval (inf if it diverges)."""
    if lattice:
        lo = -INF if left == -INF else math.ceil(left)
        hi = INF if right == INF else math.ceil(right) - 1  # last integer < right
        if lo != -INF and hi != INF and hi < lo:
            return ctx.mpf(0)
        if b == 0:
            return ctx.mpf(INF) if INF in (abs(lo), abs(hi)) else ctx.exp(a) * (hi - lo + 1)
        r = ctx.exp(rational(ctx, b))  # ratio of consecutive terms
        if lo == -INF:
            return ctx.mpf(INF) if b <= 0 else ctx.exp(a + rational(ctx, b * hi)) / (1 - 1 / r)
        if hi == INF:
            return ctx.mpf(INF) if b >= 0 else ctx.exp(a + rational(ctx, b * lo)) / (1 - r)
        return ctx.exp(a + rational(ctx, b * lo)) * (1 - r ** (hi - lo + 1)) / (1 - r)
    if left == -INF and b <= 0 or right == INF and b >= 0:
        return ctx.mpf(INF)
    if b == 0:
        return ctx.exp(a) * rational(ctx, Fraction(right) - Fraction(left))
    bb = rational(ctx, b)
    upper = ctx.mpf(0) if right == INF else ctx.exp(a + bb * rational(ctx, Fraction(right)))
    lower = ctx.mpf(0) if left == -INF else ctx.exp(a + bb * rational(ctx, Fraction(left)))
    return (upper - lower) / bb


def _cut_points(gap: Enclosure, eps: Fraction, slope: Fraction, lattice: bool) -> tuple[Fraction, Fraction]:
    """Rational end points bracketing the cut x* = (eps - gap) / slope: (earliest, latest)."""
    ends = ((eps - gap.hi) / slope, (eps - gap.lo) / slope)
    lo, hi = min(ends), max(ends)
    if lattice:  # boundaries between integers: the region is {k > x}, i.e. k >= floor(x) + 1
        return Fraction(math.floor(lo) + 1), Fraction(math.floor(hi) + 1)
    return lo, hi


def hockey_stick(p: LogLinearDistribution, q: LogLinearDistribution, eps: float) -> Enclosure:
    """delta(eps) = integral (or sum) of (p - e^eps q)_+ ."""
    _check(p, q)
    ctx = interval_ctx()
    lower, upper = hockey_stick_sum(ctx, _pieces(ctx, p, q), Fraction(eps), p.lattice)
    return Enclosure(lower, min(upper, 1) if upper != INF else 1)


def hockey_stick_sum(ctx: MPIntervalContext, pieces: list[Piece], eps: Fraction,
                     lattice: bool) -> tuple[Fraction, Fraction | float]:
    """Bounds (lower, upper) of the sum over ``pieces`` of the integral of (p - e^eps q)_+ ."""
    factor = ctx.exp(rational(ctx, eps))
    lower_total, upper_total = Fraction(0), Fraction(0)

    def part(a: Any, b: Fraction, left: Any, right: Any) -> Any:
        return integral(ctx, a, b, left, right, lattice)

    for piece in pieces:
        slope = piece.b_p - piece.b_q  # L(x) = gap + slope x on this piece

        if slope == 0:
            g = piece.gap
            if g.hi <= eps:
                continue
            whole = (part(piece.a_p, piece.b_p, piece.left, piece.right)
                     - factor * part(piece.a_q, piece.b_q, piece.left, piece.right))
            w = Enclosure.from_interval(whole)
            upper_total += max(w.hi, 0)
            if g.lo > eps:
                lower_total += max(w.lo, 0)
            continue
        early, late = _cut_points(piece.gap, eps, slope, lattice)
        if slope > 0:  # region {x > x*} within [left, right)
            regions = ((max(early, piece.left), piece.right), (max(late, piece.left), piece.right))
        else:  # region {x < x*}: the latest cut gives the largest region
            regions = ((piece.left, min(late, piece.right)), (piece.left, min(early, piece.right)))
        (l_big, r_big), (l_small, r_small) = regions
        if not l_big < r_big:
            continue
        p_big = part(piece.a_p, piece.b_p, l_big, r_big)
        q_small = part(piece.a_q, piece.b_q, l_small, r_small) if l_small < r_small else ctx.mpf(0)
        upper = Enclosure.from_interval(p_big - factor * q_small).hi
        upper_total += max(upper, 0)
        if l_small < r_small:
            lower = Enclosure.from_interval(part(piece.a_p, piece.b_p, l_small, r_small) - factor * q_small).lo
            lower_total += max(lower, 0)
    return lower_total, upper_total


def renyi(p: LogLinearDistribution, q: LogLinearDistribution, alpha: float) -> Enclosure:
    """D_alpha(P || Q) for alpha > 1 (alpha = inf: sup of the loss)."""
    _check(p, q)
    if math.isinf(alpha):
        sup = loss_range(p, q).sup
        return Enclosure(max(sup.lo, 0), max(sup.hi, 0))
    ctx = interval_ctx()
    return renyi_from_sum(ctx, renyi_sum(ctx, _pieces(ctx, p, q), Fraction(alpha), p.lattice), Fraction(alpha))


def renyi_sum(ctx: MPIntervalContext, pieces: list[Piece], alpha: Fraction, lattice: bool) -> Any:
    """The sum over ``pieces`` of the integral of p^alpha q^(1 - alpha), as an interval (inf if it diverges)."""
    aa = rational(ctx, alpha)
    total = ctx.mpf(0)
    for piece in pieces:
        exponent_a = aa * piece.a_p + (1 - aa) * piece.a_q
        exponent_b = alpha * piece.b_p + (1 - alpha) * piece.b_q
        total = total + integral(ctx, exponent_a, exponent_b, piece.left, piece.right, lattice)
    return total


def renyi_from_sum(ctx: MPIntervalContext, total: Any, alpha: Fraction) -> Enclosure:
    """D_alpha = log(total) / (alpha - 1), clipped below at 0."""
    s = Enclosure.from_interval(total)
    if s.hi == INF:
        return Enclosure.point(INF)
    d = Enclosure.from_interval(ctx.log(total) / (rational(ctx, alpha) - 1))
    return Enclosure(max(d.lo, 0), max(d.hi, 0))
