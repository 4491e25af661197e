"""Certified privacy-loss distributions on a uniform grid: a dominating pair and a dominated pair of every step,
composed by FFT under exponential tilting, with every rounding and float error carried into the bounds.

**The P-side form.** A pair (P, Q) has hockey-stick divergence delta(eps) = E_P[(1 - e^(eps - L))_+], L = log dP/dQ
(infinite where Q = 0). Composing pairs adds their losses, and the integrand is increasing in L and in the mass,
so only P's law of L is carried: masses on the knots eps_i = i h (h a power of two, so every knot and every sum of
knots is an exact float) and a mass at +inf.

**The dominating pair of a step** (``side="upper"``): every cell [eps_j, eps_(j+1)) of the true loss, with P-mass
P_j and Q-mass Q_j, is split between its two knots so that both masses are kept: (P_j - e^eps_j Q_j) / (1 - e^-h)
to eps_(j+1), the rest to eps_j. This is Doroshenko, Ghazi, Kamath, Kumar & Manurangsi's "connect the dots"
(PETS 2022): the split pair dominates the true one (merging the two knots back gives it), so its composition
bounds the true composition from above, and its hockey-stick curve touches the true one at every knot, so the
error is second order in h. Rounding the split towards the upper knot and the masses upwards only raises the
bound. Mass below the first knot goes to that knot, mass above the last to +inf.

**The dominated pair** (``side="lower"``): a garbling of the true pair whose outcomes have losses at or above the
knots they are put on. Outcomes are grouped by cells (their loss at or above the cell's lower knot); cell j's
excess at its lower knot, A_j = P_j - e^eps_j Q_j >= 0, balances cell j-1's deficit at the same knot,
D_(j-1) = e^eps_j Q_(j-1) - P_(j-1): knot j's bucket takes a fraction a_j of cell j and what cell j-1 has left,
with a_j A_j >= r D_(j-1), so its loss is at least eps_j. Buckets are then a garbling with losses rounded down
(never up), which can only lower delta; the balance keeps them within a second-order distance of the knots. Masses
enter at lower bounds, and mass that cannot be balanced goes to its cell's lower knot.

**Composition.** k steps by repeated squaring, each product an FFT convolution (scipy.fft). To keep relative
accuracy where the answer lives (delta of 1e-12 sits in the far tail of the composed loss), masses are tilted by
e^(theta l) before the transforms and untilted when read: the convolution of tilted masses is the tilted
convolution. Every FFT's error is bounded in the 1-norm (:func:`dpaudit.exact.pld.convolution_error`, after
Higham) and carried forward; a cell's true mass is pmf_i 2^E e^(C - theta l_i), with E an integer exponent (the
masses are renormalised by powers of two, exactly) and C a float integer (exact sums).

Truncation: after each product both tails are cut where a Chernoff bound certifies their true P-mass below TAIL:
P(L >= l) <= e^(-s l) E[e^(s L)] and P(L <= l) <= e^(s l) E[e^(-s L)] for any s > 0, the moments the products of
the steps' (carried through every product as logarithms, rounded up), so the bounds hold whatever the float error
of the cells. The upper side sends the upper tail's bound to +inf and moves the lower tail's bound up to the cut
(raising the upper moments by as much); the lower side drops both, and also an upper tail whose tilted mass is a
negligible fraction of the total.

Queries read delta(eps) as an upper or lower bound with every remaining error added or subtracted
(:meth:`Composed.delta`), and eps(delta) by bisection on it (:meth:`Composed.epsilon`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import fft as sp_fft

from ..pld import _convolution_error as convolution_error

UPPER, LOWER = "upper", "lower"
#: the default knot spacing, a power of two
KNOT = 2.0**-13
_U = 2.0**-53  # a rounding's relative error (a factor 1 + _U rounds to 1.0: rounding up takes 1 + 2 _U)
#: a float operation's relative error allowance in the bounds below (numpy's exp, expm1 and log are within
#: 1-2 units in the last place; the allowance covers a few operations chained)
ULPS = 16
#: the smallest positive float: the absolute rounding of a subnormal result is at most half of it
_SUBNORMAL = 5e-324
#: truncation: each tail is cut where a Chernoff bound certifies its true P-mass below this (module docstring)
TAIL = 1e-30
#: the lower side also drops an upper tail whose tilted mass is below this fraction of the total (always valid)
NEGLIGIBLE = 1e-24


def _check_side(side: str) -> None:
    if side not in (UPPER, LOWER):
        raise ValueError(f"side must be {UPPER!r} or {LOWER!r}, got {side!r}")


def check_knot(h: float) -> float:
    """h must be a positive power of two (knots and their sums are then exact floats)."""
    h = float(h)
    mantissa, _ = math.frexp(h)
    if not (h > 0 and math.isfinite(h) and mantissa == 0.5):
        raise ValueError(f"the knot spacing must be a positive power of two, got {h!r}")
    return h


@dataclass(frozen=True)
class Cells:
    """One step's privacy loss in cells, enclosed: cell j (j = first, first + 1, ...) holds the outcomes whose
    loss lies in [eps_j, eps_(j+1)] (``exact=True``: monotone-loss pairs, cut at the knots' preimages) or at or
    above eps_j (``exact=False``: outcomes grouped by the lower end of their loss's enclosure; only the lower
    side may use those). ``p_lo <= P_j <= p_hi`` and ``g_lo <= G_j <= g_hi`` for the cell's P-mass P_j and its
    excess at its lower knot G_j = P_j - e^eps_j Q_j (carried directly rather than through Q_j: the split and the
    merge need it to a relative accuracy that a difference of enclosed masses would lose by a factor 1/h);
    ``below_hi`` bounds the P-mass whose loss is below eps_first, ``above_lo``/``above_hi`` the P-mass at or above
    the last knot eps_(first + len) (finite losses), ``infinite_hi`` the P-mass where Q is 0."""

    h: float
    first: int
    p_lo: np.ndarray
    p_hi: np.ndarray
    g_lo: np.ndarray
    g_hi: np.ndarray
    below_hi: float
    above_lo: float
    above_hi: float
    infinite_hi: float = 0.0
    exact: bool = True

    def knots(self) -> np.ndarray:
        """eps_j at the lower end of every cell (exact floats)."""
        return (self.first + np.arange(len(self.p_lo))) * self.h


def cells_from_outcomes(p_lo: np.ndarray, p_hi: np.ndarray, q_lo: np.ndarray, q_hi: np.ndarray,
                        loss_lo: np.ndarray, h: float) -> Cells:
    """Finite outcomes with enclosed masses and a lower bound on each one's loss, grouped into cells by that
    bound (merging outcomes is a garbling): the input of :func:`lower_step` for a pair whose loss is not
    monotone in anything. Outcomes with Q = 0 (loss_lo = inf) are set aside as infinite."""
    h = check_knot(h)
    p_lo, p_hi, q_lo, q_hi, loss_lo = (np.asarray(v, dtype=float) for v in (p_lo, p_hi, q_lo, q_hi, loss_lo))
    infinite = np.isposinf(loss_lo)
    finite = ~infinite & (p_hi > 0)
    infinite_mass = float(p_hi[infinite].sum()) * (1 + len(p_hi) * _U)
    cell = np.floor(loss_lo[finite] / h).astype(np.int64)
    if not len(cell):
        empty = np.zeros(1)
        return Cells(h, 0, empty, empty, empty, empty, 0.0, 0.0, 0.0, float(p_hi[infinite].sum()), exact=False)
    first = int(cell.min())
    idx = cell - first
    n = int(idx.max()) + 1
    sums = [np.bincount(idx, weights=v[finite], minlength=n) for v in (p_lo, p_hi, q_lo, q_hi)]
    # bincount adds at most len(idx) terms per cell: round the bounds outwards by that many roundings
    grow = len(idx) * _U
    p_lo, p_hi = sums[0] * (1 - grow), sums[1] * (1 + grow)
    q_lo, q_hi = sums[2] * (1 - grow), sums[3] * (1 + grow)
    e_lo, e_hi = _exp_bounds((first + np.arange(n)) * h)
    g_lo = (p_lo - e_hi * q_hi) - 4 * _U * (p_lo + e_hi * q_hi)
    g_hi = (p_hi - e_lo * q_lo) + 4 * _U * (p_hi + e_lo * q_lo)
    return Cells(h, first, p_lo, p_hi, g_lo, g_hi, 0.0, 0.0, 0.0, infinite_mass, exact=False)


@dataclass(frozen=True)
class Step:
    """One step's P-side loss law on the knots: ``mass[i]`` at loss (offset + i) h, and ``infinite`` at +inf;
    an upper (dominating) or lower (dominated) representation of the true step (module docstring)."""

    side: str
    h: float
    offset: int
    mass: np.ndarray
    infinite: float

    def __post_init__(self) -> None:
        _check_side(self.side)
        if self.side == LOWER and self.infinite:
            raise ValueError("a lower step carries no mass at +inf")

    @property
    def losses(self) -> np.ndarray:
        return (self.offset + np.arange(len(self.mass))) * self.h

    def q_mass(self) -> float:
        """An upper bound on sum_i mass_i e^(-l_i), the Q-mass the representation implies (at most 1 up to
        rounding for a true pair): the Chernoff bound of the lower tail uses it."""
        with np.errstate(over="ignore"):
            return float(np.sum(self.mass * np.exp(-self.losses))) * (1 + (len(self.mass) + ULPS) * _U)

    def log_mgf(self, s: float) -> float:
        """log sum_i mass_i e^(s l_i) over the finite part (float; for choosing tilts and cuts)."""
        keep = self.mass > 0
        if not keep.any():
            return -math.inf
        x = np.log(self.mass[keep]) + s * self.losses[keep]
        top = float(x.max())
        return top + math.log(float(np.exp(x - top).sum()))


def _exp_bounds(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """e^x enclosed, x exact (numpy's exp is within 1 ulp; ULPS covers it)."""
    v = np.exp(x)
    return v * (1 - ULPS * _U), v * (1 + ULPS * _U)


def _up(x: np.ndarray, times: int = 1) -> np.ndarray:
    """x >= 0 rounded up by ``times`` floats (a zero stays: every zero here is exact). One float per rounding of
    a result covers it, subnormal results included, which a factor 1 + 2^-52 would not round."""
    for _ in range(times):
        x = np.where(x > 0, np.nextafter(x, np.inf), x)
    return x


def _down(x: np.ndarray, times: int = 1) -> np.ndarray:
    """x >= 0 rounded down by ``times`` floats (never below 0)."""
    for _ in range(times):
        x = np.nextafter(x, 0.0)
    return x


def upper_step(cells: Cells) -> Step:
    """The dominating "connect the dots" split of ``cells`` (module docstring), every rounding upwards."""
    if not cells.exact:
        raise ValueError("the dominating split needs cells cut exactly at the knots (a monotone-loss pair)")
    h, n = cells.h, len(cells.p_lo)
    gap = -math.expm1(-h)  # 1 - e^-h
    gap_lo, gap_hi = gap * (1 - ULPS * _U), gap * (1 + ULPS * _U)
    # the P-mass sent to the upper knot, G_j / (1 - e^-h), bounded above and below; the lower bound is rounded down
    # at once (P_j minus it may cancel to far below it), the upper bound's rounding is covered below
    up_hi = np.minimum(np.maximum(cells.g_hi, 0.0) / gap_lo, cells.p_hi)
    up_lo = np.minimum(_down(np.maximum(cells.g_lo, 0.0) / gap_hi), cells.p_hi)
    low_hi = np.maximum(cells.p_hi - up_lo, 0.0)
    mass = np.zeros(n + 1)
    mass[:n] += low_hi
    mass[1:] += up_hi
    mass[0] += cells.below_hi
    # at every knot three roundings to nearest, each at most half a float of the knot's sum (the subtraction's and
    # the quotient's results are at most the sum): three floats up cover them, also where the computed sum fell
    # below a power of two (whose floats below are half as wide)
    mass = _up(mass, 3)
    infinite = min(1.0, float(_up(np.array([cells.above_hi + cells.infinite_hi]))[0]))
    return _trimmed(Step(UPPER, h, cells.first, mass, infinite))


@dataclass(frozen=True)
class Garbling:
    """The dominated garbling's plan (module docstring): cell j keeps the fraction ``own[j]`` on its lower knot j and
    moves ``up[j]`` to knot j + 1, with own + up <= 1, so that every knot's bucket has
    own[j] excess[j] >= up[j - 1] deficit[j - 1] (its loss at or above the knot), the cells' excess at their lower
    knot (a lower bound on A_j) and deficit at their upper knot (an upper bound on D_j) as certified."""

    excess: np.ndarray
    deficit: np.ndarray
    own: np.ndarray
    up: np.ndarray


def garbling(cells: Cells) -> Garbling:
    """The plan of :func:`lower_step`: which fraction of each cell goes to which knot."""
    h = cells.h
    # excess of cell j at its lower knot (>= 0 in truth) and deficit at its upper knot,
    # D_j = e^eps_(j+1) Q_j - P_j = (e^h - 1) P_j - e^h G_j (may be < 0 in truth for grouped outcomes)
    grow_hi = math.expm1(h) * (1 + ULPS * _U)
    # e^h at the end of its enclosure that makes -e^h G_lo largest (G_lo < 0 where a cell's enclosure straddles 0)
    e_h = np.where(cells.g_lo >= 0, math.exp(h) * (1 - ULPS * _U), math.exp(h) * (1 + ULPS * _U))
    excess = np.maximum(cells.g_lo, 0.0)
    # (three roundings relative to the terms, and as many absolute ones where they are subnormal)
    deficit = np.maximum((grow_hi * cells.p_hi - e_h * cells.g_lo) + 4 * _U * (grow_hi * cells.p_hi
                                                                               + e_h * np.abs(cells.g_lo))
                         + 4 * _SUBNORMAL, 0.0)
    own, up = _merge(excess, deficit)
    return Garbling(excess, deficit, own, up)


def lower_step(cells: Cells) -> Step:
    """The dominated garbling of ``cells`` with every bucket's loss at or above its knot (module docstring),
    every rounding downwards."""
    plan = garbling(cells)
    n = len(cells.p_lo)
    mass = np.zeros(n + 1)
    mass[:n] = plan.own * cells.p_lo
    mass[1:] += plan.up * cells.p_lo
    mass[n] += cells.above_lo
    # a product and an addition per knot, each rounding by at most half a float of the sum: three floats down
    mass = _down(mass, 3)
    return _trimmed(Step(LOWER, cells.h, cells.first, mass, 0.0))


#: below this a float product or quotient may be subnormal and lose its relative accuracy: exact arithmetic instead
_SMALL = 2.0**-900
_LARGEST_FLOAT = float(np.finfo(float).max)
_LARGEST = Fraction(_LARGEST_FLOAT)


def _ratio(x: float, y: float, z: float, upward: bool) -> float:
    """x y / z rounded up (``upward``) or down, for x, y >= 0 and z > 0: in floats with a relative margin where every
    value is far from the subnormal range, else exactly in rationals and rounded to the next float."""
    if min(x, y, z) > _SMALL and z < 2.0**900:
        v = x * y / z
        if _SMALL < v < 2.0**900:
            return v * (1 + 4 * _U) if upward else v * (1 - 4 * _U)
    exact = Fraction(x) * Fraction(y) / Fraction(z)
    if exact > _LARGEST:  # beyond the floats (a subnormal excess below a normal deficit): float() would raise
        return math.inf if upward else _LARGEST_FLOAT
    v = float(exact)
    if upward and Fraction(v) < exact:
        v = math.nextafter(v, math.inf)
    if not upward and Fraction(v) > exact:
        v = math.nextafter(v, 0.0)
    return v


def _exceeds_one(x: Any, y: Any) -> Any:
    """Whether x + y > 1 in exact arithmetic, for finite x, y >= 0 (floats or arrays of them), decided in floats:
    s = fl(x + y) and its rounding error e are exact (Knuth's TwoSum), and rounding is monotone, so x + y > 1
    exactly when s > 1, or s = 1 and e > 0."""
    s = x + y
    back = s - x
    e = (x - (s - back)) + (y - back)
    return (s > 1.0) | ((s == 1.0) & (e > 0.0))


def _merge(excess: np.ndarray, deficit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(own, up) of :class:`Garbling`: bucket j takes the fraction a_j of cell j and the fraction r of cell j - 1
    still unassigned, with a_j excess_j >= r deficit_(j-1) (a_j rounded up); what cannot be balanced stays on its
    cell's own knot. A scalar recurrence, so a Python loop over the cells; the fractions given to a cell are checked
    in exact arithmetic to sum to at most 1."""
    n = len(excess)
    own, up = np.zeros(n), np.zeros(n)
    ex_l, de_l = excess.tolist(), deficit.tolist()
    r = 0.0  # fraction of the previous cell not yet assigned
    for j in range(n):
        d = de_l[j - 1] if j else 0.0
        if r == 0.0 or d <= 0.0:  # nothing to balance: the remainder goes to knot j as it is
            a = 0.0
            if j:
                up[j - 1] = r
        else:
            a = _ratio(r, d, ex_l[j], upward=True) if ex_l[j] > 0.0 else math.inf
            if a <= 1.0:
                up[j - 1] = r
            else:  # unbalanced: what cell j cannot balance goes back to cell j-1's own knot
                a = 1.0
                used = min(r, _ratio(ex_l[j], 1.0, d, upward=False)) if ex_l[j] > 0.0 else 0.0
                up[j - 1] = used
                own[j - 1] += r - used
        own[j] = a
        r = 1.0 - a
        if a < 0.5 and _exceeds_one(r, a):  # 1 - a rounded up
            r = math.nextafter(r, 0.0)
    own[n - 1] += r  # the last cell's remainder stays on its lower knot
    # own[j] + up[j] may exceed 1 by a rounding of the additions above: own becomes the largest float at most
    # 1 - up[j], exactly (at once, not a float at a time: a remainder rounded the wrong way would take 2^60 steps)
    over = _exceeds_one(own, up)
    room = 1.0 - up[over]  # 1 - up rounded to nearest: one float down where that rounded up
    own[over] = np.where(_exceeds_one(room, up[over]), np.nextafter(room, 0.0), room)
    return own, up


def _trimmed(step: Step) -> Step:
    nz = np.flatnonzero(step.mass > 0)
    if not len(nz):
        return replace(step, offset=0, mass=np.zeros(1))
    return replace(step, offset=step.offset + int(nz[0]), mass=step.mass[nz[0]:nz[-1] + 1].copy())


# -- composition ---------------------------------------------------------------------------------------------

#: the exponents s of the lower tail's Chernoff bound e^(s l) E_P[e^(-s L)]^k (carried through every product)
#: the exponents s of the tails' Chernoff bounds, P(L <= l) <= e^(s l) E[e^(-s L)] and P(L >= l) <= e^(-s l) E[e^(s L)]
#: (the moments carried through every product as logarithms, at -s and at +s)
CHERNOFF = (0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0)


@dataclass(frozen=True)
class Composed:
    """A composition's P-side loss law on the knots, tilted: the true mass at loss l_i = (offset + i) h is
    ``pmf[i] * 2**exponent * exp(log_base - theta * l_i)``, within ``error`` (summed over the cells, in pmf's
    units) of the computed ``pmf``; ``infinite`` is P-mass at +inf (upper side), ``steps`` the number of steps
    composed, and ``log_mgf_neg[k]`` / ``log_mgf_pos[k]`` upper bounds on log E[e^(-s L)] / log E[e^(s L)] over the
    finite part of the exact (float-free) representation at s = CHERNOFF[k]: the tails' Chernoff bounds."""

    side: str
    h: float
    offset: int
    pmf: np.ndarray
    theta: float
    log_base: float
    exponent: int
    error: float
    infinite: float
    steps: int
    log_mgf_neg: tuple[float, ...]
    log_mgf_pos: tuple[float, ...]

    @property
    def losses(self) -> np.ndarray:
        return (self.offset + np.arange(len(self.pmf))) * self.h

    def _log_weight(self, losses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """log of the untilt factor at ``losses`` and a bound on its float error (absolute, in log units)."""
        value = self.log_base - self.theta * losses + self.exponent * _LOG2
        slack = ULPS * _U * (1 + abs(self.log_base) + np.abs(self.theta * losses) + abs(self.exponent) * _LOG2)
        return value, slack

    def delta(self, eps: float) -> float:
        """An upper (upper side) or lower (lower side) bound on delta(eps) of the composition."""
        eps = float(eps)
        losses = self.losses
        above = (losses > eps) & (self.pmf > 0)
        log_w, slack = self._log_weight(losses[above])
        with np.errstate(divide="ignore"):
            terms = np.log(self.pmf[above]) + log_w + np.log(-np.expm1(eps - losses[above]))
        # each term's error: log of pmf, the untilt, log(-expm1) and the two additions; then the pairwise sum
        slack = slack + ULPS * _U * (2 + np.abs(terms) + abs(eps) + np.abs(losses[above]))
        n = len(terms)
        if n:
            top = float(terms.max())
            total = float(np.exp(terms - top).sum())
            rel = float(slack.max()) + (n + ULPS) * _U
            log_total = top + math.log(total)
        else:
            rel, log_total = 0.0, -math.inf
        # the computed pmf is within `error` of the exact one in 1-norm, and every weight above eps is at most the
        # untilt factor at eps (theta >= 0; 1 - e^(eps - l) <= 1)
        w_eps, s_eps = self._log_weight(np.array([eps]))
        tail = self.error * _exp_capped(float(w_eps[0]) + float(s_eps[0]))
        if self.side == UPPER:
            return min(1.0, (self.infinite + _exp_capped(log_total + rel) + tail) * (1 + 2 * _U))
        return max(0.0, (_exp_capped(log_total - rel) - tail) * (1 - 2 * _U))

    def epsilon(self, delta: float, tolerance: float = 1e-7, hint: float | None = None) -> float:
        """Upper side: an eps with delta(eps) <= ``delta`` (inf if even the top of the support does not reach
        it); lower side: an eps with delta(eps) > ``delta`` (-inf if none found). By bisection to ``tolerance``;
        the answer returned is the end of the final bracket on which :meth:`delta` was evaluated, so it carries
        the certification of that evaluation. The true eps(delta) is at most (at least) the answer. ``hint``
        (the other side's answer) is where the lower side starts looking."""
        delta = float(delta)
        if not len(self.pmf):
            return -math.inf if self.side == LOWER else (math.inf if self.infinite > delta else -math.inf)
        losses = self.losses
        bottom, top = float(losses[0]) - 1.0, float(losses[-1])
        if self.side == UPPER:
            if self.delta(top) > delta:
                return math.inf
            if self.delta(bottom) <= delta:
                return bottom
            lo, hi = bottom, top  # delta(lo) > delta >= delta(hi)
            while hi - lo > tolerance * max(1.0, abs(hi)):
                mid = (lo + hi) / 2
                lo, hi = (lo, mid) if self.delta(mid) <= delta else (mid, hi)
            return hi
        # the lower bound is not monotone where its error term takes over (far below the tilt's target): scan down
        # from the hint (or the top) in widening steps, and if that finds nothing over the whole range on a uniform
        # grid, for an eps where it exceeds delta, then bisect up from there
        start = min(top, hint) if hint is not None and math.isfinite(hint) else top
        near = [c for c in (start - 1e-3 * (2.0**k - 1) for k in range(40)) if c >= bottom]
        hi, lo = self._first_above(near, delta)
        if lo is None:  # stepped over a narrow window, or none: the whole range, finely
            hi, lo = self._first_above(np.linspace(start, bottom, 257).tolist(), delta)
        if lo is None:
            return -math.inf
        if hi is None:  # the start itself
            return lo
        while hi - lo > tolerance * max(1.0, abs(hi)):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if self.delta(mid) > delta else (lo, mid)
        return lo


    def _first_above(self, candidates: list[float], delta: float) -> tuple[float | None, float | None]:
        """(the candidate before, the first candidate) at which :meth:`delta` exceeds ``delta``, scanning the
        decreasing ``candidates`` in order; (.., None) if none does."""
        before = None
        for c in candidates:
            if self.delta(c) > delta:
                return before, c
            before = c
        return before, None


_LOG2 = math.log(2.0)


def _exp_capped(x: float) -> float:
    return math.exp(min(x, 700.0))


def tilt(steps: Sequence[tuple[Step, int]], delta: float | None = None, eps: float | None = None) -> float:
    """A tilt theta >= 0 that puts the composed law's relative accuracy near the answer: for a delta, the theta
    minimising the Chernoff epsilon (k K(theta) + log(1/delta)) / theta, K the log moment generating function of
    the steps' losses (the tilt whose exponential family has its mean at that epsilon); for an eps, the theta
    minimising k K(theta) - theta eps. A choice of accuracy only: every bound holds at any theta."""
    if (delta is None) == (eps is None):
        raise ValueError("give exactly one of delta and eps")
    thetas = np.concatenate([np.linspace(0.0, 2.0, 41)[1:], np.geomspace(2.0, 200.0, 30)[1:]])
    best, value = 0.0, math.inf
    for th in thetas:
        k_total = sum(k * s.log_mgf(float(th)) for s, k in steps)
        if not math.isfinite(k_total):
            continue
        v = (k_total + math.log(1 / delta)) / th if delta is not None else k_total - th * eps
        if v < value:
            best, value = float(th), v
    return best


def compose(steps: Sequence[tuple[Step, int]], theta: float = 0.0) -> Composed:
    """The composition of ``count`` copies of each step (all of one side and knot spacing), tilted by
    ``theta`` >= 0 (module docstring)."""
    if not steps:
        raise ValueError("nothing to compose")
    sides, hs = {s.side for s, _ in steps}, {s.h for s, _ in steps}
    if len(sides) != 1 or len(hs) != 1:
        raise ValueError("steps to compose must share their side and knot spacing")
    theta = float(theta)
    if not (theta >= 0 and math.isfinite(theta)):
        raise ValueError(f"theta must be finite and >= 0, got {theta!r}")
    result: Composed | None = None
    for step, count in steps:
        if count < 0 or int(count) != count:
            raise ValueError(f"a step's count must be a non-negative integer, got {count!r}")
        if count == 0:
            continue
        power = _power(_tilted(step, theta), int(count))
        result = power if result is None else _product(result, power)
    if result is None:
        raise ValueError("nothing to compose (every count is 0)")
    return result


def _log_mgf(step: Step, sign: float) -> tuple[float, ...]:
    """Upper bounds on log sum_i mass_i e^(sign s l_i) at every s of CHERNOFF."""
    out = []
    for s in CHERNOFF:
        v = step.log_mgf(sign * s)
        out.append(v + ULPS * _U * (2 + abs(v) + s * float(np.abs(step.losses).max())) + len(step.mass) * _U)
    return tuple(out)


def _tilted(step: Step, theta: float) -> Composed:
    losses = step.losses
    pos = step.mass > 0
    log_mass = np.full(len(step.mass), -np.inf)
    log_mass[pos] = np.log(step.mass[pos])
    x = log_mass + theta * losses
    base = float(np.round(np.max(x[pos]))) if pos.any() else 0.0  # an integer: sums of bases are exact
    with np.errstate(under="ignore"):
        pmf = np.where(pos, np.exp(x - base), 0.0)
    # per cell, the float error of log, the product, the sum, the subtraction and exp, relative to the exact tilt
    err = np.where(pos, ULPS * _U * (2 + np.abs(np.where(pos, log_mass, 0.0)) + np.abs(theta * losses) + abs(base)),
                   0.0)
    pmf = pmf * np.exp(err) if step.side == UPPER else pmf * np.exp(-err)
    return _normalised(Composed(step.side, step.h, step.offset, pmf, theta, base, 0, 0.0, step.infinite, 1,
                                _log_mgf(step, -1.0), _log_mgf(step, 1.0)))


def _normalised(c: Composed) -> Composed:
    total = float(c.pmf.sum())
    if total <= 0 or not math.isfinite(total):
        return c
    _, e = math.frexp(total)
    return replace(c, pmf=np.ldexp(c.pmf, -e), exponent=c.exponent + e, error=math.ldexp(c.error, -e))


def _power(base: Composed, k: int) -> Composed:
    result: Composed | None = None
    square = base
    while k:
        if k & 1:
            result = square if result is None else _product(result, square)
        k >>= 1
        if k:
            square = _product(square, square)
    assert result is not None
    return result


def _fft_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = len(a) + len(b) - 1
    size = sp_fft.next_fast_len(n, real=True)
    out = sp_fft.irfft(sp_fft.rfft(a, size) * sp_fft.rfft(b, size), size)[:n]
    return np.maximum(out, 0.0)  # the exact cells are >= 0: clipping only nears them


#: a product whose operand holds almost all its mass in at most this many cells convolves those cells directly
SPIKE_CELLS = 32
#: ... where "almost all" is all but this fraction
SPIKE_REST = 1e-3


def _split(x: np.ndarray) -> np.ndarray | None:
    """The indices of x's few heaviest cells when they hold all but SPIKE_REST of its mass (a spiky step: a rarely
    sampled example's loss is near 0 most of the time), else None."""
    if len(x) <= SPIKE_CELLS:
        return None
    top = np.argpartition(x, -SPIKE_CELLS)[-SPIKE_CELLS:]
    top = top[np.argsort(x[top])[::-1]]
    cum = np.cumsum(x[top])
    total = float(x.sum())
    enough = np.flatnonzero(cum >= (1 - SPIKE_REST) * total)
    return top[: int(enough[0]) + 1] if len(enough) else None


def _convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """a * b and a bound on its error in the 1-norm. A spiky operand's heavy cells are convolved directly (shifted
    copies of the other, each cell rounding at most once per copy added); the rest by FFT, whose error bound
    (Higham) grows with the operands' 2-norms, which the heavy cells would dominate."""
    if len(a) * len(b) <= 1:
        out = a * b
        return out, _U * float(out.sum())
    heavy, x, y = _split(a), a, b
    other = _split(b)
    if heavy is None or (other is not None and len(other) < len(heavy)):
        heavy, x, y = other, b, a
    if heavy is None:
        return _fft_convolve(x, y), convolution_error(x, y)
    light = x.copy()
    light[heavy] = 0.0
    out = _fft_convolve(light, y) if light.any() else np.zeros(len(x) + len(y) - 1)
    error = convolution_error(light, y) if light.any() else 0.0
    for i in heavy:
        out[i: i + len(y)] += x[i] * y
    # each heavy copy: one product and one addition per cell, at most len(heavy) + 1 roundings of the cell's sum
    error += (len(heavy) + 2) * _U * float(x[heavy].sum()) * float(y.sum())
    return out, error


def _product(a: Composed, b: Composed) -> Composed:
    pmf, stage = _convolve(a.pmf, b.pmf)
    sa, sb = float(a.pmf.sum()) * (1 + len(a.pmf) * _U), float(b.pmf.sum()) * (1 + len(b.pmf) * _U)
    error = (a.error * (sb + b.error) + sa * b.error + stage) * (1 + 4 * _U)
    infinite = min(1.0, (a.infinite + b.infinite) * (1 + 2 * _U)) if a.side == UPPER else 0.0
    def added(x: tuple[float, ...], y: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(v + _U * (abs(v) + 1) for v in (p + r for p, r in zip(x, y)))

    out = Composed(a.side, a.h, a.offset + b.offset, pmf, a.theta, a.log_base + b.log_base,
                   a.exponent + b.exponent, error, infinite, a.steps + b.steps,
                   added(a.log_mgf_neg, b.log_mgf_neg), added(a.log_mgf_pos, b.log_mgf_pos))
    return _truncated(_normalised(out))


def _truncated(c: Composed) -> Composed:
    """Cut both tails where a Chernoff bound certifies their true mass below TAIL (module docstring): the upper
    side sends the upper tail's bound to +inf and moves the lower tail's bound up to the cut (raising the upper
    moments by as much); the lower side drops both, and also an upper tail of negligible tilted mass."""
    pmf = c.pmf
    n = len(pmf)
    if n < 64:
        return c
    losses = c.losses
    infinite, mgf_pos = c.infinite, c.log_mgf_pos
    # upper tail: the first index whose tail from there up is certified below TAIL
    i_hi = _cut_index(c, TAIL, upper=True)
    if c.side == LOWER:
        from_top = np.cumsum(pmf[::-1])[::-1]
        keep = np.flatnonzero(from_top > NEGLIGIBLE * float(from_top[0]))
        if len(keep):
            i_hi = min(i_hi, int(keep[-1]) + 1)
    if i_hi < n:
        if c.side == UPPER:
            infinite = min(1.0, infinite + _chernoff(c, float(losses[i_hi]), upper=True))
        pmf = pmf[:i_hi]
    i_lo = _cut_index(c, TAIL, upper=False)
    i_lo = min(i_lo, len(pmf) - 1)
    offset = c.offset
    if i_lo > 0:
        l_cut = float(losses[i_lo])
        bound = _chernoff(c, float(losses[i_lo - 1]), upper=False)
        pmf = pmf[i_lo:].copy()
        offset = c.offset + i_lo
        if c.side == UPPER:  # the cut's true mass, at most `bound`, moved up to the cut (tilted and scaled)
            w, slack = c._log_weight(np.array([l_cut]))
            pmf[0] += bound * _exp_capped(-float(w[0]) + float(slack[0])) * (1 + 2 * _U)
            mgf_pos = tuple(_log_add_up(m, math.log(bound) + s * l_cut) if bound > 0 else m
                            for s, m in zip(CHERNOFF, mgf_pos))
    return replace(c, pmf=pmf, offset=offset, infinite=infinite, log_mgf_pos=mgf_pos)


def _log_add_up(a: float, b: float) -> float:
    """An upper bound on log(e^a + e^b) for a and b computed to within ULPS roundings of their size."""
    return float(np.logaddexp(a, b)) + ULPS * _U * (2 + abs(a) + abs(b))


def _chernoff(c: Composed, level: float, upper: bool) -> float:
    """A bound on the true P-mass at or above ``level`` (``upper``) or at or below it: the best of the Chernoff
    bounds e^(-+s level) E[e^(+-s L)]."""
    moments = c.log_mgf_pos if upper else c.log_mgf_neg
    sign = -1.0 if upper else 1.0
    best = min(sign * s * level + m for s, m in zip(CHERNOFF, moments))
    return min(1.0, math.exp(min(best, 0.0)) * (1 + 4 * _U))


def _cut_index(c: Composed, tail: float, upper: bool) -> int:
    """Upper: the smallest index i with the true mass at or above l_i certified below ``tail`` (len if none);
    lower: the largest i with the mass at or below l_(i-1) certified below it (0 if none)."""
    moments = c.log_mgf_pos if upper else c.log_mgf_neg
    # e^(-+s l) M_s <= tail  <=>  l >= (log M_s - log tail) / s (upper), l <= (log tail - log M_s) / s (lower)
    if upper:
        level = min((m - math.log(tail)) / s for s, m in zip(CHERNOFF, moments))
        i = math.ceil(level / c.h) - c.offset
        return max(1, min(i, len(c.pmf)))
    level = max((math.log(tail) - m) / s for s, m in zip(CHERNOFF, moments))
    i = math.floor(level / c.h) - c.offset + 1
    return max(0, min(i, len(c.pmf) - 1))
