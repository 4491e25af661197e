"""zCDP rho = sup over alpha > 1 of D_alpha(P || Q) / alpha, bracketed from a grid of orders.

K(alpha) = (alpha - 1) D_alpha(P || Q) = log E_Q[(P/Q)^alpha] is the cumulant generating function of
the privacy loss, so it is convex with K(1) = 0. That gives rigorous bounds between grid orders:

- lower bound: the largest D_a / a over the grid (lower ends of the enclosures);
- on [a, b] between consecutive orders: K lies below its chord, which lies below the chord
  through the upper ends, c0 + c1 alpha; so D_alpha / alpha <= (c0 + c1 alpha) / (alpha (alpha - 1)),
  whose maximum over [a, b] is at an end or at a root of c1 x^2 + 2 c0 x - c0 = 0 (evaluated in
  interval arithmetic); D_alpha is also nondecreasing in alpha, so D_alpha / alpha <= D_c / a for
  every grid order c >= b, and the smallest of these bounds is used;
- on (1, a_1]: D_alpha <= D_a for every grid order a (orders closer to 1 are added when that
  bound exceeds the target);
- beyond the last order: D_alpha <= D_inf (the supremum of the loss), so D_alpha / alpha <= D_inf / a_max;
  when that exceeds the target the grid is extended by doubling orders.

The chord bound is tight to second order in the grid spacing, so a grid geometric in alpha - 1
(ratio about 1.17) brackets rho within about 1% before any refinement (to decide a claim, a grid
of every fourth of those orders is the start); intervals whose bound
exceeds the target (the claim, or the lower bound plus 0.1%) are split at their geometric midpoint,
for as long as that at least halves the bound's excess over the target each round (it stops
helping once the width of the D_alpha enclosures, not the grid, limits it).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from mpmath.ctx_iv import MPIntervalContext

from ..core.validation import integer
from .enclosure import Enclosure, Number, float_down, float_up

GRID = (1 + np.geomspace(2.0**-10, 2.0**12 - 1, 97)).tolist()
COARSE_GRID = GRID[::4]  # to decide a claim: refined only where the bound is near the claim
_BITS = 128


@functools.cache
def _interval_context() -> MPIntervalContext:
    """One 128-bit interval context for every chord bound: building a context costs about a
    millisecond (most of a zCDP audit's time when it was built per call), and chord_bound only
    reads it (nothing here changes its precision), so sharing it changes no bound."""
    ctx = MPIntervalContext()
    ctx.prec = _BITS
    return ctx


@dataclass(frozen=True)
class Rho:
    """rho of P against Q (one direction), and the order where D_alpha / alpha peaks on the grid."""

    rho: Enclosure
    alpha: float


def _iv(ctx: MPIntervalContext, x: Fraction):
    return ctx.mpf(x.numerator) / ctx.mpf(x.denominator)


def chord_bound(a: Fraction, b: Fraction, ka: Number, kb: Number) -> Number:
    """Upper bound on max over [a, b] of (c0 + c1 x) / (x (x - 1)), the chord through (a, ka), (b, kb)."""
    if math.isinf(ka) or math.isinf(kb):
        return math.inf
    c1 = (kb - ka) / (b - a)
    c0 = ka - c1 * a

    def f(x: Fraction) -> Fraction:
        return (c0 + c1 * x) / (x * (x - 1))

    best: Number = max(f(a), f(b))
    if c1 == 0 or c0 * (c0 + c1) < 0:
        return best
    ctx = _interval_context()
    root = ctx.sqrt(_iv(ctx, c0 * (c0 + c1)))
    for sign in (1, -1):
        x = (_iv(ctx, -c0) + sign * root) / _iv(ctx, c1)
        root_range = Enclosure.from_interval(x)
        if root_range.hi < a or root_range.lo > b:
            continue
        x = ctx.mpf([float_down(max(root_range.lo, a)), float_up(min(root_range.hi, b))])
        value = (_iv(ctx, c0) + _iv(ctx, c1) * x) / (x * (x - 1))
        best = max(best, Enclosure.from_interval(value).hi)
    return best


def _suffix_minima(values: list[Enclosure]) -> list[Number]:
    """m_i = min over j >= i of the upper end of D_{a_j}. D_alpha is nondecreasing in alpha, so
    D_alpha <= m_i for every alpha <= a_i, and D_alpha / alpha <= m_{i+1} / a_i on [a_i, a_{i+1}].
    Close to alpha = 1 this beats the chord: K = (alpha - 1) D_alpha is tiny there, and the chord
    divides the absolute width of the enclosures of K by alpha (alpha - 1)."""
    out: list[Number] = []
    best: Number = math.inf
    for v in reversed(values):
        best = min(best, v.hi)
        out.append(best)
    return out[::-1]


def _extension(last: float, sup: Number, target: Number) -> list[float]:
    """Orders beyond ``last`` (doubling) until D_inf / alpha falls to ``target`` (a loss bounded by
    D_inf makes D_alpha / alpha vanish as alpha grows; an unbounded one never does)."""
    if not math.isfinite(sup) or target <= 0 or sup / Fraction(last) <= target:
        return []
    steps = min(math.ceil(math.log2(float(sup / target) / last)) + 1, 16)
    return [last * 2.0**k for k in range(1, max(steps, 1) + 1)]


def _below(first: float) -> list[float]:
    """Orders between 1 and ``first``: the bound D_{a_1} on (1, a_1] tightens as a_1 -> 1."""
    return [1 + (first - 1) / 4**k for k in (1, 2)] if first - 1 > 2.0**-30 else []


def zcdp_rho(
    curve: Callable[[list[float]], list[Enclosure]],
    sup_loss: Enclosure,
    claim: Fraction | None = None,
    refinements: int = 6,
) -> Rho:
    """Bracket rho from ``curve(alphas) -> [D_alpha enclosures]`` and the enclosure of sup log P/Q, refining the
    grid of orders at most ``refinements`` times (0: the first grid only)."""
    refinements = integer("zcdp_rho", "refinements", refinements, minimum=0)
    alphas = list(GRID if claim is None else COARSE_GRID)
    values = curve(alphas)
    result, previous = Rho(Enclosure.point(0), alphas[0]), math.inf
    for _ in range(refinements + 1):
        ratios = [v.lo / Fraction(a) if math.isfinite(v.lo) else v.lo for a, v in zip(alphas, values)]
        best = max(range(len(alphas)), key=lambda i: ratios[i])
        k_hi = [(Fraction(a) - 1) * v.hi if math.isfinite(v.hi) else math.inf for a, v in zip(alphas, values)]
        monotone = _suffix_minima(values)
        pieces = [min(chord_bound(Fraction(alphas[i]), Fraction(alphas[i + 1]), k_hi[i], k_hi[i + 1]),
                      monotone[i + 1] / Fraction(alphas[i]))
                  for i in range(len(alphas) - 1)]
        ends = [monotone[0], sup_loss.hi / Fraction(alphas[-1]) if math.isfinite(sup_loss.hi) else math.inf]
        lower = max(ratios[best], 0)
        upper = max(pieces + ends + [lower])
        result = Rho(Enclosure(lower, upper), alphas[best])
        if claim is not None and (upper <= claim or lower > claim):
            return result
        target = claim if claim is not None else lower * Fraction(1001, 1000)
        split = [i for i, bound in enumerate(pieces) if bound > target]
        if ends[1] > target:
            split.append(len(pieces))  # the tail beyond the last order: extend the grid
        below = _below(alphas[0]) if ends[0] > target else []
        # stop when refining no longer helps: the enclosures of D_alpha, not the grid, limit the bound
        excess = upper - target
        if not (split or below) or excess > previous / 2:
            return result
        previous = excess
        new = [1 + math.sqrt((alphas[i] - 1) * (alphas[i + 1] - 1)) for i in split if i < len(pieces)]
        new = [a for a, i in zip(new, split) if alphas[i] < a < alphas[i + 1]]
        new += _extension(alphas[-1], sup_loss.hi, target) + below
        if not new:
            return result
        merged = sorted(zip(alphas + new, values + curve(new)), key=lambda t: t[0])
        alphas, values = [a for a, _ in merged], [v for _, v in merged]
    return result
