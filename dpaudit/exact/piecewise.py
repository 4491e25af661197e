"""Exact privacy quantities of two piecewise-exponential distributions (:mod:`dpaudit.core.piecewise_exponential`):
clamped and bounded-domain Laplace noise, the staircase mechanism.

The two densities are cut at the pieces of both over a window that holds every explicit piece of
either. On each cut both log-densities are linear, so the loss, delta(eps) and the Renyi integrals are
those of :mod:`dpaudit.exact.loglinear` on that cut. Where only P has density, the loss is +inf (its mass
there counts in full towards delta, and D_alpha is infinite); where only Q has, -inf. Atoms pair up by
location (an atom of P where Q has none is an infinite loss). Tails: when both distributions repeat
one period scaled by the same ratio r on a side (a location family such as the staircase), the pair
repeats too past the window: the loss over one period is the loss over all of them, and delta's and
the Renyi integrals' contributions of the first period beyond the window are multiplied by
1 / (1 - r). Tails that differ are not analysed (:class:`~dpaudit.core.errors.UnsupportedAudit`).

Every result is a rigorous enclosure: rational parts are exact, constants are evaluated in mpmath
interval arithmetic (256 bits).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpmath.ctx_iv import MPIntervalContext

from ..core.errors import UnsupportedAudit
from ..core.piecewise_exponential import PeriodicTail, PiecewiseExponentialDistribution, Segment
from .enclosure import Enclosure
from .loglinear import (
    Piece,
    constant_gap,
    enclose_constant,
    hockey_stick_sum,
    integral,
    interval_ctx,
    rational,
    renyi_from_sum,
    renyi_sum,
)
from .loss import LossRange

INF = math.inf
Dist = PiecewiseExponentialDistribution


@dataclass(frozen=True)
class _Region:
    """The cuts of one region (the window, or one tail period) and the factor its contributions carry."""

    both: list[Piece]  # P and Q both have density
    p_only: list[tuple[Fraction, Fraction, Any, Fraction]]  # (left, right, A_p, B_p): Q is 0 there
    q_only: list[tuple[Fraction, Fraction]]  # P is 0 there
    factor: Any  # an interval: 1, or 1 / (1 - r) for a tail period


def _shared_tail(p: PeriodicTail | None, q: PeriodicTail | None, side: str) -> PeriodicTail | None:
    if p != q:
        raise UnsupportedAudit(f"the two distributions' {side} tails differ ({p} and {q}): only tails that repeat "
                               "with the same period and ratio (a location family) are analysed exactly")
    return p


def _cuts(ctx: MPIntervalContext, p: Dist, q: Dist, lo: Fraction, hi: Fraction, factor: Any) -> _Region:
    sp, sq = p.segments(lo, hi), q.segments(lo, hi)
    points = sorted({lo, hi} | {s.left for s in sp + sq} | {s.right for s in sp + sq})
    cp, cq = enclose_constant(ctx, p.constant), enclose_constant(ctx, q.constant)
    gap_constant = constant_gap(p.constant, q.constant)
    region = _Region([], [], [], factor)
    for left, right in zip(points, points[1:]):
        a, b = _covering(sp, left), _covering(sq, left)
        if a is None and b is None:
            continue
        if b is None:
            rp = a.offset - a.slope * a.left
            region.p_only.append((left, right, cp + rational(ctx, rp), a.slope))
        elif a is None:
            region.q_only.append((left, right))
        else:
            rp, rq = a.offset - a.slope * a.left, b.offset - b.slope * b.left  # log f = c + r + slope x
            region.both.append(Piece(left, right, cp + rational(ctx, rp), a.slope, cq + rational(ctx, rq), b.slope,
                                     Enclosure.point(rp - rq) + gap_constant))
    return region


def _covering(segments: list[Segment], x: Fraction) -> Segment | None:
    i = bisect.bisect_right([s.left for s in segments], x) - 1
    return segments[i] if i >= 0 and x < segments[i].right else None


def _regions(ctx: MPIntervalContext, p: Dist, q: Dist) -> list[_Region]:
    """The window holding every explicit piece of both, and one period of each shared tail past it."""
    lo, hi = min(p.breaks[0], q.breaks[0]), max(p.breaks[-1], q.breaks[-1])
    regions = [_cuts(ctx, p, q, lo, hi, ctx.mpf(1))]
    right = _shared_tail(p.right_tail, q.right_tail, "right")
    left = _shared_tail(p.left_tail, q.left_tail, "left")
    if right is not None:
        regions.append(_cuts(ctx, p, q, hi, hi + right.period, _geometric(ctx, right)))
    if left is not None:
        regions.append(_cuts(ctx, p, q, lo - left.period, lo, _geometric(ctx, left)))
    return regions


def _geometric(ctx: MPIntervalContext, tail: PeriodicTail) -> Any:
    """1 / (1 - r): the first period past the window and every later one (each r times the one before)."""
    return 1 / (1 - ctx.exp(rational(ctx, tail.log_ratio)))


def _atoms(ctx: MPIntervalContext, p: Dist, q: Dist) -> list[tuple[Fraction, Any, Any, Enclosure | None]]:
    """(location, log P{x} or None, log Q{x} or None, their difference when both are atoms)."""
    ap, aq = {a.at: a for a in p.atoms}, {a.at: a for a in q.atoms}
    out = []
    for x in sorted(set(ap) | set(aq)):
        a, b = ap.get(x), aq.get(x)
        la = None if a is None else enclose_constant(ctx, a.constant) + rational(ctx, a.offset)
        lb = None if b is None else enclose_constant(ctx, b.constant) + rational(ctx, b.offset)
        gap = None
        if a is not None and b is not None:
            gap = Enclosure.point(a.offset - b.offset) + constant_gap(a.constant, b.constant)
        out.append((x, la, lb, gap))
    return out


def loss_range(p: Dist, q: Dist) -> LossRange:
    """Enclosures of sup and inf of log P/Q (densities on the pieces, masses at the atoms)."""
    ctx = interval_ctx()
    sups: list[tuple[Enclosure, Any]] = []
    infs: list[tuple[Enclosure, Any]] = []
    for region in _regions(ctx, p, q):
        for piece in region.both:
            slope = piece.b_p - piece.b_q
            for x in (piece.left, piece.right):  # the loss is linear on the cut: extremes at its ends
                value = piece.gap + Enclosure.point(slope * x)
                sups.append((value, x))
                infs.append((value, x))
        sups += [(Enclosure.point(INF), (left + right) / 2) for left, right, _, _ in region.p_only]
        infs += [(Enclosure.point(-INF), (left + right) / 2) for left, right in region.q_only]
    for x, la, _, gap in _atoms(ctx, p, q):
        if gap is not None:
            sups.append((gap, x))
            infs.append((gap, x))
        elif la is not None:
            sups.append((Enclosure.point(INF), x))
        else:
            infs.append((Enclosure.point(-INF), x))
    sup, sup_at = max(sups, key=lambda v: (v[0].hi, v[0].lo))
    inf, inf_at = min(infs, key=lambda v: (v[0].lo, v[0].hi))
    sup = Enclosure(max(v.lo for v, _ in sups), sup.hi)
    inf = Enclosure(inf.lo, min(v.hi for v, _ in infs))
    return LossRange(sup, inf, sup_at, inf_at)


def hockey_stick(p: Dist, q: Dist, eps: float) -> Enclosure:
    """delta(eps) = the integral of (p - e^eps q)_+ plus the sum over atoms of (P{x} - e^eps Q{x})_+."""
    ctx = interval_ctx()
    e = Fraction(eps)
    lower, upper = Fraction(0), Fraction(0)
    for region in _regions(ctx, p, q):
        factor = Enclosure.from_interval(region.factor)
        lo, hi = hockey_stick_sum(ctx, region.both, e, False)
        for left, right, a, b in region.p_only:  # Q is 0: all of P's mass there is in the event
            mass = Enclosure.from_interval(integral(ctx, a, b, left, right, False))
            lo, hi = lo + mass.lo, hi + mass.hi
        lower += lo * factor.lo
        upper = upper + hi * factor.hi if hi != INF else INF
    factor = ctx.exp(rational(ctx, e))
    for _, la, lb, _ in _atoms(ctx, p, q):
        if la is None:
            continue
        term = Enclosure.from_interval(ctx.exp(la) - (factor * ctx.exp(lb) if lb is not None else 0))
        lower += max(term.lo, 0)
        upper = upper + max(term.hi, 0) if upper != INF else INF
    return Enclosure(lower, min(upper, 1) if upper != INF else 1)


def renyi(p: Dist, q: Dist, alpha: float) -> Enclosure:
    """D_alpha(P || Q) for alpha > 1 (alpha = inf: sup of the loss)."""
    if math.isinf(alpha):
        sup = loss_range(p, q).sup
        return Enclosure(max(sup.lo, 0), max(sup.hi, 0))
    ctx = interval_ctx()
    a = Fraction(alpha)
    total = ctx.mpf(0)
    for region in _regions(ctx, p, q):
        if region.p_only:
            return Enclosure.point(INF)
        total = total + region.factor * renyi_sum(ctx, region.both, a, False)
    aa = rational(ctx, a)
    for _, la, lb, _ in _atoms(ctx, p, q):
        if la is None:
            continue
        if lb is None:
            return Enclosure.point(INF)
        total = total + ctx.exp(aa * la + (1 - aa) * lb)
    return renyi_from_sum(ctx, total, a)


__all__ = ["hockey_stick", "loss_range", "renyi"]
