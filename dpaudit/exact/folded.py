"""Exact privacy quantities of two folded-Laplace laws (:mod:`dpaudit.core.folded_laplace`, diffprivlib's
``LaplaceFolded``) with the same scale and range.

In z = (y - lower) / b both densities are, on each cut between the break points {0, z_q, z_q', w}, of the form
a e^z + d e^{-z} with a, d > 0. The density ratio there is (a_p u + d_p) / (a_q u + d_q) with u = e^{2z}: a
Moebius map of u, monotone (the sign of its derivative is that of a_p d_q - a_q d_p, a constant). So, with no
critical point inside a cut, the loss's supremum and infimum lie at cut end points, where it is evaluated in
256-bit interval arithmetic.

delta(eps): on a cut p - e^eps q = e^{-z} (A u + D) / b with A = a_p - e^eps a_q, D = d_p - e^eps d_q, linear in
u, so it changes sign at most once, at u* = -D / A. The positive part's integral is the closed form
A (e^{z1} - e^{z0}) - D (e^{-z1} - e^{-z0}) over the side where A u + D > 0, with the end point u* enclosed as
an interval (the integrand vanishes there, so the interval end widens the result by a second-order amount
only). Where the sign of A u + D at a cut end cannot be decided in the working precision (a tie at the
audited eps), the cut is bounded crudely but rigorously: below by max(0, the integral of p - e^eps q over the
cut), above by its largest end value of (A u + D)_+ times the integral of e^{-z}.

Renyi divergences of order alpha < inf have no closed form here and are not computed
(:class:`~dpaudit.core.errors.UnsupportedAudit`); alpha = inf is the loss's supremum.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..core.errors import UnsupportedAudit
from ..core.folded_laplace import FoldedLaplaceDistribution
from .enclosure import Enclosure
from .loglinear import interval_ctx, rational
from .loss import LossRange

Dist = FoldedLaplaceDistribution


def _check(p: Dist, q: Dist) -> None:
    if (p.scale, p.lower, p.upper) != (q.scale, q.lower, q.upper):
        raise UnsupportedAudit("folded Laplace laws are compared exactly only at one scale and one range, got "
                               f"{p} and {q}")


def _cuts(ctx: Any, p: Dist, q: Dist) -> list[tuple[Fraction, Fraction, Any, Any, Any, Any]]:
    """(z0, z1, a_p, d_p, a_q, d_q) on each cut between the two laws' break points."""
    pp, pq = p.pieces(ctx), q.pieces(ctx)
    points = sorted({z for z0, z1, _, _ in pp + pq for z in (z0, z1)})
    out = []
    for z0, z1 in zip(points, points[1:]):
        a = next(piece for piece in pp if piece[0] <= z0 and z1 <= piece[1])
        b = next(piece for piece in pq if piece[0] <= z0 and z1 <= piece[1])
        out.append((z0, z1, a[2], a[3], b[2], b[3]))
    return out


def _log_density(ctx: Any, a: Any, d: Any, z: Any) -> Any:
    return ctx.log(a * ctx.exp(z) + d * ctx.exp(-z))


def loss_range(p: Dist, q: Dist) -> LossRange:
    """Enclosures of sup and inf of log p/q (monotone on each cut: its end points)."""
    _check(p, q)
    ctx = interval_ctx()
    values: list[tuple[Enclosure, Fraction]] = []
    for z0, z1, ap, dp, aq, dq in _cuts(ctx, p, q):
        for z in (z0, z1):
            zz = rational(ctx, z)
            value = Enclosure.from_interval(_log_density(ctx, ap, dp, zz) - _log_density(ctx, aq, dq, zz))
            values.append((value, p.lower + p.scale * z))
    sup, sup_at = max(values, key=lambda v: (v[0].hi, v[0].lo))
    inf, inf_at = min(values, key=lambda v: (v[0].lo, v[0].hi))
    return LossRange(Enclosure(max(v.lo for v, _ in values), sup.hi), Enclosure(inf.lo, min(v.hi for v, _ in values)),
                     sup_at, inf_at)


def _integral(ctx: Any, a: Any, d: Any, z0: Any, z1: Any) -> Any:
    """The integral of a e^z + d e^{-z} over [z0, z1] (the density's mass there, times 1, since dy = b dz)."""
    return a * (ctx.exp(z1) - ctx.exp(z0)) - d * (ctx.exp(-z1) - ctx.exp(-z0))


def _positive_part(ctx: Any, big_a: Any, big_d: Any, left: Fraction, right: Fraction) -> Enclosure:
    """The integral over [left, right] of e^{-z} (A e^{2z} + D)_+ dz (module docstring)."""
    z0, z1 = rational(ctx, left), rational(ctx, right)
    ends = [Enclosure.from_interval(big_a * ctx.exp(2 * z) + big_d) for z in (z0, z1)]
    if all(e.lo >= 0 for e in ends):
        return Enclosure.from_interval(_integral(ctx, big_a, big_d, z0, z1))
    if all(e.hi <= 0 for e in ends):
        return Enclosure.point(0)
    if all(e.lo > 0 or e.hi < 0 for e in ends):  # a decided sign change: the root is strictly inside
        found = Enclosure.from_interval(ctx.log(-big_d / big_a) / 2)
        root = ctx.mpf([rational(ctx, max(found.lo, left)).a, rational(ctx, min(found.hi, right)).b])
        if ends[0].lo > 0:
            return _clip(Enclosure.from_interval(_integral(ctx, big_a, big_d, z0, root)))
        return _clip(Enclosure.from_interval(_integral(ctx, big_a, big_d, root, z1)))
    whole = Enclosure.from_interval(_integral(ctx, big_a, big_d, z0, z1))
    top = max(max(e.hi, 0) for e in ends)
    weight = Enclosure.from_interval(ctx.exp(-z0) - ctx.exp(-z1))
    return Enclosure(max(whole.lo, 0), top * weight.hi)


def _clip(e: Enclosure) -> Enclosure:
    return Enclosure(max(e.lo, 0), max(e.hi, 0))


def hockey_stick(p: Dist, q: Dist, eps: float) -> Enclosure:
    """delta(eps) = the integral of (p - e^eps q)_+ over the range (module docstring)."""
    _check(p, q)
    ctx = interval_ctx()
    factor = ctx.exp(rational(ctx, Fraction(eps)))
    lower, upper = Fraction(0), Fraction(0)
    for z0, z1, ap, dp, aq, dq in _cuts(ctx, p, q):
        part = _positive_part(ctx, ap - factor * aq, dp - factor * dq, z0, z1)
        lower, upper = lower + part.lo, upper + part.hi
    return Enclosure(lower, min(upper, 1))


def renyi(p: Dist, q: Dist, alpha: float) -> Enclosure:
    """D_alpha(P || Q) for alpha = inf only (the supremum of the loss)."""
    if math.isinf(alpha):
        sup = loss_range(p, q).sup
        return Enclosure(max(sup.lo, 0), max(sup.hi, 0))
    raise UnsupportedAudit("Renyi divergences of folded Laplace laws are not computed exactly (no closed form for "
                           "the integral of a power of a sum of exponentials); audit pure or approximate DP")


__all__ = ["hockey_stick", "loss_range", "renyi"]
