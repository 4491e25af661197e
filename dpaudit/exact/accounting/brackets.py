"""Certified epsilon(delta) and delta(epsilon) brackets for DP-SGD configurations (:mod:`dpaudit.core.dpsgd`).

Each step (or epoch) of a configuration is given, on the knots of :mod:`.grid`, a dominating representation (its
composition bounds delta from above) and dominated ones (realised by actual neighbouring datasets, so their
composition bounds delta from below), in both orders of the two datasets; the parts of a composition are composed
on one grid. Steps are in units of the clip norm C, the noise's standard deviation being the noise multiplier z.
Every step lets the adversary choose its query adaptively (the ABLQ abstraction of Chua et al.: each step sums any
function of norm at most 1 over its batch), which is what the accountants' claims are about.

**Poisson sampling** (rate q). Add-remove and zero-out (a zero-out neighbour is an added example that contributes
nothing, so the two coincide): the pair ((1 - q) N(0, z^2) + q N(1, z^2), N(0, z^2)) dominates every step with the
larger dataset first, and its reverse every step the other way (Zhu, Dong & Wang, AISTATS 2022, Theorem 11); since
the larger dataset is the same at every step, the two orders are composed separately and delta is the larger.
Realised by every other example contributing 0: tight. Replace-one: the symmetric pair ((1 - q) N(0) + q N(1),
(1 - q) N(0) + q N(-1)), as dp_accounting's REPLACE_ONE PLD. It dominates every step: for any test f, the values
g(m) = E f(m + Z) of its Gaussian smoothing satisfy |Phi^-1(g(m)) - Phi^-1(g(m'))| <= |m - m'| / z (Salman et al.,
NeurIPS 2019, Lemma 2; Bakry & Ledoux), the differing example's two contributions lie in the unit ball, 0 being the
common component, so every step's hockey-stick divergence is at most the supremum over such values, which the
one-dimensional antipodal threshold test attains. Realised by contributions +1 and -1: tight.

**Fixed-size batches without replacement** (gamma = b / n), replace-one: the same argument gives per step the
pair A = ((1 - gamma) N(0) + gamma N(2), N(0)) for eps >= 0 and its reverse for eps < 0 (the others contribute -1,
the differing example +1 or -1). The adversary may pick either order at each step, so the dominating pair is the
symmetrised one whose curve is the larger of the two everywhere (Lebeda, Regehr, Kamath & Steinke, 2024: a
worst-case pair of one step need not be the composition's): :func:`symmetrised`. Lower: A composed in one order.
Zero-out: lower from the realised pairs ((1 - g) N(0) + g N(2), (1 - g) N(0) + g N(1)) and (N(0), (1 - g) N(0) +
g N(1)), upper from replace-one's (a zero-out neighbour is a replacement): not tight.

**With replacement** (b draws of n): lower from the realised pair sum_k Bin(b, 1/n)(k) N(2k) against N(0)
(replace-one; zero-out: against sum_k Bin(b, 1/n)(k) N(k)); no dominating pair is known to dpaudit, so there is no
upper bound (a claim can be refuted, never verified).

**Shuffling and balls-and-bins**: the upper bound is the no-amplification Gaussian, N(mu, 1) against N(0, 1) with
mu = sqrt(E) Delta / z_min per example (each example is in one released batch per epoch: joint convexity, then
composition), Delta = 2 for replace-one, z_min the smallest noise multiplier of any batch (a partial batch averaged
over its own m examples under the full batch's noise has z m / b). The lower bound is the mixture-of-Gaussians
pair seen through its largest coordinate (:mod:`.allocation`), over the realisable choices of the other examples'
contributions. Not tight; shuffling is not known to amplify.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from ...core.dpsgd import (
    ADD_REMOVE,
    REPLACE_ONE,
    ZERO_OUT,
    BallsAndBins,
    BatchesWithReplacement,
    ComposedDPSGD,
    DPSGDConfig,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
    as_parts,
)
from . import allocation, grid, mixtures
from .grid import KNOT, UPPER, Step

FORWARD, BACKWARD = "forward", "backward"
#: the finest and coarsest knot spacings chosen automatically (:func:`choose_knot`)
FINEST, COARSEST = 2.0**-16, 2.0**-2
#: at most this many knots in one step's cells
MAX_KNOTS = 2**19
DIRECTIONS = (FORWARD, BACKWARD)
#: per-step mass beyond the cells' range (charged to +inf on the upper side, dropped on the lower)
STEP_TAIL = 1e-30
_U = 2.0**-53


@dataclass(frozen=True)
class Piece:
    """One repeated unit of a configuration: ``count`` copies of a step (or an epoch), with its dominating steps
    per order (None: no upper bound known) and its dominated candidates per order (each a realised pair; the best
    is used), and what they are."""

    count: int
    upper: dict[str, Step] | None
    lower: dict[str, list[tuple[str, Step]]]
    upper_pair: str
    tight: bool


@dataclass
class Bracket:
    """What the certified accounting says about a configuration: eps(delta) in [eps_lower, eps_upper] and
    delta(eps) in [delta_lower, delta_upper] (whichever were asked), the witness behind the lower bound (the order
    of the datasets and the realised pair per part), what the upper bound stands on, and how it was computed."""

    delta: float | None = None
    eps_lower: float | None = None
    eps_upper: float | None = None
    epsilon: float | None = None
    delta_lower: float | None = None
    delta_upper: float | None = None
    witness: dict[str, Any] = field(default_factory=dict)
    upper_footing: str = ""
    tight: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items()}


# -- per-step pairs -------------------------------------------------------------------------------------------


def _mixture_steps(pair: mixtures.MixturePair, h: float, upper: bool = True) -> tuple[Step | None, Step]:
    first, last = mixtures.tail_to_loss_range(pair, STEP_TAIL, h)
    cells = pair.cells(h, first, last)
    return (grid.upper_step(cells) if upper else None), grid.lower_step(cells)


@functools.lru_cache(maxsize=64)
def _poisson(q: float, z: float, relation: str, h: float) -> Piece:
    if q >= 1:  # the Gaussian mechanism: symmetric
        shift = 2.0 if relation == REPLACE_ONE else 1.0
        up, lo = _mixture_steps(mixtures.MixturePair(mixtures.gaussian(z, shift), mixtures.gaussian(z), True), h)
        name = f"N({shift:g}, z^2) against N(0, z^2)"
        return Piece(1, {FORWARD: up, BACKWARD: up}, {d: [(name, lo)] for d in DIRECTIONS}, name, True)
    if relation == REPLACE_ONE:
        pair = mixtures.MixturePair(mixtures.subsampled(q, 1.0, z), mixtures.subsampled(q, -1.0, z), True)
        up, lo = _mixture_steps(pair, h)
        name = f"(1-q) N(0, z^2) + q N(1, z^2) against (1-q) N(0, z^2) + q N(-1, z^2), q = {q:g}"
        return Piece(1, {FORWARD: up, BACKWARD: up}, {d: [(name, lo)] for d in DIRECTIONS}, name, True)
    pair = mixtures.MixturePair(mixtures.subsampled(q, 1.0, z), mixtures.gaussian(z), True)
    up_f, lo_f = _mixture_steps(pair, h)
    up_b, lo_b = _mixture_steps(pair.reversed(), h)
    name = f"(1-q) N(0, z^2) + q N(1, z^2) against N(0, z^2), q = {q:g}"
    return Piece(1, {FORWARD: up_f, BACKWARD: up_b}, {FORWARD: [(name, lo_f)], BACKWARD: [("its reverse", lo_b)]},
                 name + " (each order composed on its own)", True)


@functools.lru_cache(maxsize=64)
def _fixed_size(gamma: float, z: float, relation: str, h: float) -> Piece:
    a2 = mixtures.MixturePair(mixtures.subsampled(gamma, 2.0, z), mixtures.gaussian(z), True)
    up_f, lo_f = _mixture_steps(a2, h)
    up_b, lo_b = _mixture_steps(a2.reversed(), h)
    sym = symmetrised(up_f, up_b)
    upper_name = (f"the symmetrised pair of (1-g) N(0, z^2) + g N(2, z^2) against N(0, z^2), g = {gamma:g} "
                  "(either order at every step)")
    name = f"(1-g) N(0, z^2) + g N(2, z^2) against N(0, z^2), g = {gamma:g}"
    if relation == REPLACE_ONE:
        return Piece(1, {FORWARD: sym, BACKWARD: sym}, {FORWARD: [(name, lo_f)], BACKWARD: [("its reverse", lo_b)]},
                     upper_name, False)
    # zero-out: the realised pairs (others -1: shifts 2 and 1; others 0: shifts 1 and 0)
    x_pair = (mixtures.subsampled(gamma, 2.0, z), mixtures.subsampled(gamma, 1.0, z))
    x_f = _binned_lower(*x_pair, h)
    x_b = _binned_lower(*x_pair[::-1], h)
    a1 = mixtures.MixturePair(mixtures.subsampled(gamma, 1.0, z), mixtures.gaussian(z), True)
    _, a1_f = _mixture_steps(a1, h, upper=False)
    _, a1_b = _mixture_steps(a1.reversed(), h, upper=False)
    x_name = f"(1-g) N(0, z^2) + g N(2, z^2) against (1-g) N(0, z^2) + g N(1, z^2), g = {gamma:g}"
    a_name = f"(1-g) N(0, z^2) + g N(1, z^2) against N(0, z^2), g = {gamma:g}"
    return Piece(1, {FORWARD: sym, BACKWARD: sym},
                 {FORWARD: [(x_name, x_f), (a_name, a1_f)], BACKWARD: [("reverse of " + x_name, x_b),
                                                                       ("reverse of " + a_name, a1_b)]},
                 upper_name + ", replace-one's (a zero-out neighbour is a replacement)", False)


def _binned_lower(p: mixtures.GaussianMixture, q: mixtures.GaussianMixture, h: float, width: float = 2.0**-11,
                  ) -> Step:
    """The dominated step of a pair whose loss need not be monotone: x binned (a garbling), masses enclosed."""
    means = (*p.means, *q.means)
    lo = min(means) - mixtures.WINDOW_SIGMAS * p.sigma
    hi = max(means) + mixtures.WINDOW_SIGMAS * p.sigma
    edges = np.arange(math.floor(lo / (width * p.sigma)), math.ceil(hi / (width * p.sigma)) + 1) * width * p.sigma
    a, b = edges[:-1], edges[1:]
    p_lo, p_hi = p.mass(a, a, b, b)
    q_lo, q_hi = q.mass(a, a, b, b)
    keep = p_lo > 0
    with np.errstate(divide="ignore"):
        loss_lo = np.where(q_hi[keep] > 0, np.log(p_lo[keep]) - np.log(q_hi[keep]), np.inf)
    loss_lo = np.where(np.isfinite(loss_lo), loss_lo - 16 * _U * (2 + np.abs(np.log(p_lo[keep]))
                                                                   + np.abs(np.log(np.maximum(q_hi[keep], 1e-300)))),
                       loss_lo)
    cells = grid.cells_from_outcomes(p_lo[keep], p_hi[keep], q_lo[keep], q_hi[keep], loss_lo, h)
    return grid.lower_step(cells)


def _with_replacement_mixtures(batch: int, size: int, z: float, relation: str,
                               ) -> tuple[mixtures.GaussianMixture, mixtures.GaussianMixture]:
    """sum_k Bin(batch, 1/size)(k) N(2k, z^2) and its zero-out or replace-one counterpart, the binomial cut where its
    tail is below 1e-20 (the cut mass is dropped: the lower side may drop mass; its weights are renormalised over
    what is kept, which can only move mass towards fewer draws, lower losses)."""
    binom = stats.binom(batch, 1.0 / size)
    top = int(binom.isf(1e-20)) + 1
    ks = np.arange(0, top + 1)
    w = binom.pmf(ks)
    keep = w > 0
    weights, ks = tuple(float(v) for v in w[keep] / w[keep].sum()), ks[keep]
    p = mixtures.GaussianMixture(weights, tuple(2.0 * float(k) for k in ks), z, weight_error=64 * _U * len(ks))
    q_shift = 1.0 if relation == ZERO_OUT else 0.0
    q = mixtures.GaussianMixture(weights, tuple(q_shift * float(k) for k in ks), z, weight_error=64 * _U * len(ks))
    return p, q


@functools.lru_cache(maxsize=32)
def _with_replacement(batch: int, size: int, z: float, relation: str, h: float) -> Piece:
    p, q = _with_replacement_mixtures(batch, size, z, relation)
    name = (f"sum_k Bin({batch}, 1/{size})(k) N(2k, z^2) against "
            + ("sum_k Bin(k) N(k, z^2)" if relation == ZERO_OUT else "N(0, z^2)"))
    width = 2.0**-10
    return Piece(1, None, {FORWARD: [(name, _binned_lower(p, q, h, width))],
                           BACKWARD: [("its reverse", _binned_lower(q, p, h, width))]},
                 "none known (with-replacement batches)", False)


def _allocation_candidates(classes_p: list[tuple[int, float, float]], dropped: float, relation: str,
                           ) -> list[tuple[str, allocation.Allocation]]:
    """The realisable one-epoch pairs: classes (count, weight, scale) with scale = 1 / (that batch's noise
    multiplier); the differing example's shift in P and Q per relation and the other examples' contribution."""
    out = []
    if relation == REPLACE_ONE:
        out.append(("others -1, the differing example +1 or -1: MoG(2) against N(0)",
                    [(c, w, 2 * s, 0.0) for c, w, s in classes_p]))
        out.append(("others 0, the differing example +1 or -1: MoG(1) against MoG(-1)",
                    [(c, w, s, -s) for c, w, s in classes_p]))
    else:  # zero-out, add-remove
        out.append(("others -1, the differing example +1 or 0: MoG(2) against MoG(1)",
                    [(c, w, 2 * s, s) for c, w, s in classes_p]))
        out.append(("others 0, the differing example +1 or 0: MoG(1) against N(0)",
                    [(c, w, s, 0.0) for c, w, s in classes_p]))
    return [(name, allocation.Allocation(tuple(cls), dropped)) for name, cls in out]


@functools.lru_cache(maxsize=32)
def _allocated(sampler: ShuffledBatches | BallsAndBins, z: float, relation: str, epochs: int, h: float) -> Piece:
    if isinstance(sampler, BallsAndBins):
        t = sampler.batches
        classes, dropped, scales = [(t, 1.0 / t, 1.0 / z)], 0.0, [1.0 / z]
        repeated, persistent = epochs, False
        # balls-and-bins: the other examples land at random, so only "others 0" is realised
        candidates = _allocation_candidates(classes, dropped, relation)[1:]
    else:
        n, b, m = sampler.size, sampler.batch, sampler.remainder
        classes = [(sampler.full_batches, b / n, 1.0 / z)]
        dropped = 0.0
        if m:
            if sampler.partial == "drop":
                dropped = m / n
            else:
                scale = (b / m) / z if sampler.partial == "own" else 1.0 / z
                classes.append((1, m / n, scale))
        scales = [s for _, _, s in classes]
        persistent = not sampler.reshuffle
        repeated = 1 if persistent else epochs
        candidates = _allocation_candidates(classes, dropped, relation)
    factor = math.sqrt(epochs) if persistent else 1.0
    delta_shift = 2.0 if relation == REPLACE_ONE else 1.0
    mu = delta_shift * max(scales) * factor
    up, _ = _mixture_steps(mixtures.MixturePair(mixtures.gaussian(1.0, mu), mixtures.gaussian(1.0), True), h)
    lower: dict[str, list[tuple[str, Step]]] = {FORWARD: [], BACKWARD: []}
    for name, pair in candidates:
        pair = pair.scaled(factor)
        lower[FORWARD].append((name + " (largest coordinate)", grid.lower_step(allocation.statistic_cells(pair, h))))
        lower[BACKWARD].append(("reverse of " + name, grid.lower_step(allocation.statistic_cells(pair.swapped(), h))))
    upper_name = (f"no amplification: N({mu:.6g}, 1) against N(0, 1) per {'run' if persistent else 'epoch'} "
                  "(each example in one released batch per epoch)")
    return Piece(repeated, {FORWARD: up, BACKWARD: up}, lower, upper_name, False)


def _representative(part: DPSGDConfig) -> mixtures.MixturePair:
    """A pair whose loss has the scale of the part's steps (for choosing the knots only)."""
    s, z = part.sampler, part.noise_multiplier
    shift = 2.0 if part.relation == REPLACE_ONE else 1.0
    if isinstance(s, PoissonBatches):
        return mixtures.MixturePair(mixtures.subsampled(s.rate, shift if s.rate >= 1 else 1.0, z),
                                    mixtures.gaussian(z), True)
    if isinstance(s, FixedSizeBatches):
        return mixtures.MixturePair(mixtures.subsampled(s.rate, 2.0, z), mixtures.gaussian(z), True)
    if isinstance(s, BatchesWithReplacement):
        p, q = _with_replacement_mixtures(s.batch, s.size, z, part.relation)
        return mixtures.MixturePair(p, mixtures.gaussian(z), True)
    # epoch samplers: the no-amplification Gaussian of the whole run (its largest per-batch shift)
    scale = 1.0
    if isinstance(s, ShuffledBatches) and s.remainder and s.partial == "own":
        scale = s.batch / s.remainder
    epochs = int(part.epochs or 1)
    return mixtures.MixturePair(mixtures.gaussian(1.0, shift * scale * math.sqrt(epochs) / z), mixtures.gaussian(1.0),
                                True)


def choose_knot(run: DPSGDConfig | ComposedDPSGD) -> float:
    """The knot spacing: fine enough to resolve one step's bulk (an eighth of the standard deviation of its loss
    under P: a dominated representation rounds what it cannot balance, and a step whose mass sits within one or
    two knots, as a rarely sampled example's does, leaves most of it unbalanced), never coarser than KNOT, never
    finer than FINEST; and coarse enough that a step's cells stay below MAX_KNOTS."""
    h = KNOT
    for part in as_parts(run):
        pair = _representative(part)
        lo_x, hi_x = pair.window()
        x = np.linspace(lo_x, hi_x, 40001)
        loss, _ = pair.loss(x)
        density = np.zeros(len(x))
        for w, m in zip(pair.p.weights, pair.p.means):
            density += w * np.exp(-((x - m) / pair.sigma) ** 2 / 2)
        density /= density.sum()
        mean = float((density * loss).sum())
        sd = math.sqrt(max(float((density * (loss - mean) ** 2).sum()), 0.0))
        if sd > 0:
            h = min(h, 2.0 ** math.floor(math.log2(sd / 8)))
        low, high = pair.loss_range(STEP_TAIL)
        h = max(h, FINEST, 2.0 ** math.ceil(math.log2(max(high - low, 1e-300) / MAX_KNOTS)))
    return min(h, COARSEST) if h <= COARSEST else h


def pieces(run: DPSGDConfig | ComposedDPSGD, h: float = KNOT) -> list[Piece]:
    """The repeated units of a configuration (module docstring)."""
    out = []
    for part in as_parts(run):
        s, z = part.sampler, part.noise_multiplier
        if isinstance(s, PoissonBatches):
            piece = _poisson(s.rate, z, part.relation, h)
            out.append(_times(piece, part.steps))
        elif isinstance(s, FixedSizeBatches):
            if part.relation == ADD_REMOVE:  # refused by DPSGDConfig; kept for a hand-built part
                raise ValueError("fixed-size batches are defined under zero-out or replace-one neighbours")
            out.append(_times(_fixed_size(s.rate, z, part.relation, h), part.steps))
        elif isinstance(s, BatchesWithReplacement):
            out.append(_times(_with_replacement(s.batch, s.size, z, part.relation, h), part.steps))
        elif isinstance(s, (ShuffledBatches, BallsAndBins)):
            out.append(_allocated(s, z, part.relation, int(part.epochs), h))
        else:
            raise TypeError(f"no certified accounting for the sampler {s!r}")
    return out


def _times(piece: Piece, count: int) -> Piece:
    return Piece(count, piece.upper, piece.lower, piece.upper_pair, piece.tight)


# -- the symmetrised dominating pair --------------------------------------------------------------------------


def _align(a: Step, b: Step) -> tuple[int, np.ndarray, np.ndarray]:
    lo = min(a.offset, b.offset)
    hi = max(a.offset + len(a.mass), b.offset + len(b.mass))
    out = []
    for s in (a, b):
        arr = np.zeros(hi - lo)
        arr[s.offset - lo: s.offset - lo + len(s.mass)] = s.mass
        out.append(arr)
    return lo, out[0], out[1]


def _curve(mass: np.ndarray, losses: np.ndarray, infinite: float) -> tuple[np.ndarray, np.ndarray]:
    """The P-side hockey-stick value of a knot representation at each of its knots (floats), and a bound on each
    value's float error: delta(eps_i) = inf + sum_(l_k > eps_i) m_k - e^eps_i sum_(l_k > eps_i) m_k e^-l_k, by
    suffix sums (pairwise-free cumsum: at most n roundings of its terms' total)."""
    tail_p = np.concatenate([np.cumsum(mass[::-1])[::-1][1:], [0.0]])
    with np.errstate(over="ignore"):
        tail_q = np.concatenate([np.cumsum((mass * np.exp(-losses))[::-1])[::-1][1:], [0.0]]) * np.exp(losses)
    value = infinite + tail_p - tail_q
    error = 8 * (len(mass) + 4) * _U * (infinite + tail_p + tail_q)
    return value, error


def symmetrised(forward: Step, backward: Step) -> Step:
    """A dominating representation of both ``forward`` and ``backward`` at every eps, so of any step dominated by
    one or the other: forward's masses above loss 0, backward's below, and a mass at loss 0 and at +inf chosen so
    that its curve is at least both at every knot (checked, with each value's float error allowed for) and at both
    ends, y = e^eps -> 0 (total mass) and beyond the top knot (the mass at +inf). Between two knots every curve is
    linear in y, so dominating at the knots and the ends dominates everywhere. When, as for the subsampled Gaussian,
    forward's curve is the larger for eps >= 0 and backward's for eps <= 0, nothing is added but rounding."""
    if forward.side != UPPER or backward.side != UPPER or forward.h != backward.h:
        raise ValueError("symmetrise two upper steps on one grid")
    h = forward.h
    offset, f, b = _align(forward, backward)
    losses = (offset + np.arange(len(f))) * h
    zero = -offset
    if not 0 <= zero < len(f):
        raise ValueError("the steps' knots do not span loss 0")
    mass = np.zeros(len(f))
    mass[zero + 1:] = f[zero + 1:]
    mass[:zero] = b[:zero]
    cf, ef = _curve(f, losses, forward.infinite)
    cb, eb = _curve(b, losses, backward.infinite)
    cs, es = _curve(mass, losses, 0.0)
    need = np.maximum(cf + ef, cb + eb) - (cs - es)  # what the mass at 0 and at +inf must add at each knot
    upper_half = slice(zero, len(f))  # knots >= 0: the mass at loss 0 adds nothing there
    infinite = max(forward.infinite, backward.infinite, float(np.max(need[upper_half])), 0.0) * (1 + 4 * _U)
    below = np.arange(zero)  # knots < 0: the mass at 0 adds m (1 - e^eps) there
    at_zero = 0.0
    if len(below):
        weight = -np.expm1(losses[below]) * (1 - 4 * _U)
        at_zero = float(np.max((need[below] - infinite) / weight))
    # y -> 0: the total P-mass (with +inf's) must be at least each side's
    total_s = float(mass.sum()) * (1 - len(f) * _U) + infinite
    total = max(float(f.sum()) + forward.infinite, float(b.sum()) + backward.infinite) * (1 + len(f) * _U)
    at_zero = max(at_zero, total - total_s, 0.0) * (1 + 4 * _U)
    mass[zero] = at_zero
    return Step(UPPER, h, offset, mass, min(1.0, infinite))


# -- closed forms for allocations whose losses the grid cannot hold ------------------------------------------

#: an allocation whose no-amplification Gaussian has mu above this (losses of mu^2 / 2 = 800 and more, e^loss
#: beyond floats) is bracketed in closed form
HUGE_MU = 40.0


def _allocation_parameters(part: DPSGDConfig) -> tuple[float, list[tuple[str, allocation.Allocation]], bool]:
    """(mu of the whole run's no-amplification Gaussian, the realised one-epoch pairs, persistent order)."""
    s, z = part.sampler, part.noise_multiplier
    if isinstance(s, BallsAndBins):
        classes, dropped = [(s.batches, 1.0 / s.batches, 1.0 / z)], 0.0
        candidates = _allocation_candidates(classes, dropped, part.relation)[1:]
        persistent = False
    else:
        n, b, m = s.size, s.batch, s.remainder
        classes, dropped = [(s.full_batches, b / n, 1.0 / z)], 0.0
        if m:
            if s.partial == "drop":
                dropped = m / n
            else:
                classes.append((1, m / n, (b / m) / z if s.partial == "own" else 1.0 / z))
        candidates = _allocation_candidates(classes, dropped, part.relation)
        persistent = not s.reshuffle
    shift = 2.0 if part.relation == REPLACE_ONE else 1.0
    mu = shift * max(c[2] for c in classes) * math.sqrt(int(part.epochs))
    return mu, candidates, persistent


def _gaussian_mu2(part: DPSGDConfig) -> Fraction:
    """mu^2 of the whole run's no-amplification Gaussian, exactly (from the float parameters)."""
    s, z = part.sampler, Fraction(part.noise_multiplier)
    shift = Fraction(2 if part.relation == REPLACE_ONE else 1)
    scale = Fraction(1)
    if isinstance(s, ShuffledBatches) and s.remainder and s.partial == "own":
        scale = Fraction(s.batch, s.remainder)
    return (shift * scale / z) ** 2 * int(part.epochs)


def gaussian_delta(mu2: Fraction, eps: float) -> tuple[float, float]:
    """Balle-Wang delta(eps) of the Gaussian pair with parameter mu^2, as floats (lo, hi): 256-bit mpmath, whose
    two terms are each at most 1, so the value is within 2^-200 of the computed one (as
    :mod:`dpaudit.exact.gaussian`), widened by that and by a float's rounding. Floats rather than that module's
    exact fractions: a huge mu^2 makes the terms too small for a fraction to hold quickly."""
    if mu2 == 0:
        return 0.0, 0.0
    ctx = mpmath.mp.clone() if hasattr(mpmath.mp, "clone") else mpmath.mp
    with mpmath.workprec(256):
        mu = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
        e = mpmath.mpf(eps)
        value = mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
        v = float(value)
    del ctx
    slack = 2.0**-199 + abs(v) * 2.0**-52
    return max(v - slack, 0.0), min(v + slack, 1.0)


def _gaussian_epsilon(mu2: Fraction, delta: float) -> float:
    """The smallest eps (to a relative 1e-9, rounded up) at which the Gaussian of mu^2 has delta(eps) <= delta,
    every evaluation enclosed (:func:`gaussian_delta`)."""
    lo, hi = 0.0, 1.0
    while gaussian_delta(mu2, hi)[1] > delta:
        lo, hi = hi, hi * 2
    while hi - lo > 1e-9 * hi:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if gaussian_delta(mu2, mid)[1] <= delta else (mid, hi)
    return hi


def _closed_form(part: DPSGDConfig, delta: float | None, epsilon: float | None) -> Bracket:
    """An allocation sampler's bracket without the grid: the Gaussian's curve exactly for the upper bound, and for
    the lower the best single largest-coordinate test of one epoch (of the whole run in one order: the shifts
    times sqrt(E)), a lower bound for any number of reshuffled epochs too (dropping the other epochs' outputs is
    post-processing); the test's masses enclosed and compared in logarithms."""
    mu, candidates, persistent = _allocation_parameters(part)
    mu2 = _gaussian_mu2(part)
    factor = math.sqrt(int(part.epochs)) if persistent else 1.0
    bracket = Bracket(delta=delta, epsilon=epsilon, tight=False)
    bracket.upper_footing = f"no amplification: N({math.sqrt(float(mu2)):.6g}, 1) against N(0, 1) for the whole run"
    epochs = 1 if persistent else int(part.epochs)
    best: tuple[float, dict[str, Any]] = (-math.inf, {})
    best_d: tuple[float, dict[str, Any]] = (-math.inf, {})
    for name, pair in candidates:
        for order, oriented in ((FORWARD, pair.scaled(factor)), (BACKWARD, pair.scaled(factor).swapped())):
            about = {"order": order, "pairs": [name + " (some batch's sum above its threshold, in some epoch)"]}
            if delta is not None:
                value, thresholds = allocation.threshold_test(oriented, epochs, delta=delta)
                if value > best[0]:
                    best = (value, {**about, "thresholds": thresholds})
            if epsilon is not None:
                value, thresholds = allocation.threshold_test(oriented, epochs, eps=float(epsilon))
                if value > best_d[0]:
                    best_d = (value, {**about, "thresholds": thresholds})
    if delta is not None:
        bracket.eps_lower = max(best[0], 0.0)
        bracket.eps_upper = _gaussian_epsilon(mu2, delta)
        bracket.witness = {**best[1], "delta": delta, "eps": bracket.eps_lower}
    if epsilon is not None:
        bracket.delta_upper = gaussian_delta(mu2, float(epsilon))[1]
        bracket.delta_lower = max(best_d[0], 0.0)
        if delta is None:
            bracket.witness = {**best_d[1], "eps": epsilon, "delta": bracket.delta_lower}
    bracket.details = {"closed_form": True, "mu": mu}
    return bracket


# -- brackets -------------------------------------------------------------------------------------------------


def certify(run: DPSGDConfig | ComposedDPSGD, *, delta: float | None = None, epsilon: float | None = None,
            knot: float | None = None) -> Bracket:
    """The certified bracket of ``run`` at ``delta`` (eps(delta) in [eps_lower, eps_upper]) and/or at ``epsilon``
    (delta(eps) in [delta_lower, delta_upper]); see the module docstring for what each bound stands on."""
    if delta is None and epsilon is None:
        raise ValueError("certify needs delta (for eps(delta)) or epsilon (for delta(eps)), or both")
    if delta is not None and not (0 < delta < 1):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    if epsilon is not None and not (math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be finite and >= 0, got {epsilon!r}")
    start = time.perf_counter()
    parts = as_parts(run)
    huge = [isinstance(p.sampler, (ShuffledBatches, BallsAndBins)) and _allocation_parameters(p)[0] > HUGE_MU
            for p in parts]
    if any(huge):
        if len(parts) == 1:
            bracket = _closed_form(parts[0], delta, epsilon)
        else:  # the composition is at least each part alone; no upper bound here
            alone = [certify(p, delta=delta, epsilon=epsilon) for p in parts]
            bracket = max(alone, key=lambda b: (b.eps_lower or 0.0, b.delta_lower or 0.0))
            bracket = Bracket(delta=delta, epsilon=epsilon, eps_lower=bracket.eps_lower,
                              eps_upper=math.inf if delta is not None else None, delta_lower=bracket.delta_lower,
                              delta_upper=1.0 if epsilon is not None else None,
                              witness={**bracket.witness, "part": alone.index(bracket)},
                              upper_footing="none: a part's losses exceed what the grid holds, and the composition "
                                            "is bounded below by that part alone")
        bracket.details["seconds"] = time.perf_counter() - start
        return bracket
    knot = choose_knot(run) if knot is None else grid.check_knot(knot)
    units = pieces(run, knot)
    bracket = Bracket(delta=delta, epsilon=epsilon)
    has_upper = all(u.upper is not None for u in units)
    bracket.tight = has_upper and all(u.tight for u in units)
    bracket.upper_footing = "; ".join(dict.fromkeys(u.upper_pair for u in units))
    details: dict[str, Any] = {"knot": knot, "directions": {}}
    best_eps_lower, best_delta_lower, witness = -math.inf, 0.0, {}
    eps_upper, delta_upper = -math.inf, 0.0
    for direction in DIRECTIONS:
        steps_up = [(u.upper[direction], u.count) for u in units] if has_upper else None
        info: dict[str, Any] = {}
        # each query composes each side under its own tilt (the one that puts that side's relative accuracy near
        # the answer): a tilt chosen for the other side, or the other query, may leave the answer in a far tail
        if delta is not None:
            chosen = [_best_lower(u, direction, delta, None) for u in units]
            steps_lo = [(step, u.count) for u, (_, step) in zip(units, chosen)]
            lower = grid.compose(steps_lo, grid.tilt(steps_lo, delta=delta))
            hint = None
            if steps_up is not None:
                upper = grid.compose(steps_up, grid.tilt(steps_up, delta=delta))
                hint = upper.epsilon(delta)
                info.update(eps_upper=hint, upper_theta=upper.theta, upper_error=upper.error,
                            upper_infinite=upper.infinite)
                eps_upper = max(eps_upper, hint)
            el = lower.epsilon(delta, hint=hint)
            info.update(eps_lower=el, lower_theta=lower.theta, lower_error=lower.error,
                        lower_pairs=[n for n, _ in chosen])
            if el > best_eps_lower:
                best_eps_lower = el
                witness = {"order": direction, "pairs": [n for n, _ in chosen], "delta": delta, "eps": el}
        if epsilon is not None:
            chosen = [_best_lower(u, direction, None, epsilon) for u in units]
            steps_lo = [(step, u.count) for u, (_, step) in zip(units, chosen)]
            lower = grid.compose(steps_lo, grid.tilt(steps_lo, eps=epsilon))
            dl = lower.delta(epsilon)
            info.update(delta_lower=dl, lower_theta_at_eps=lower.theta)
            if dl > best_delta_lower:
                best_delta_lower = dl
                if delta is None or not witness:
                    witness = {"order": direction, "pairs": [n for n, _ in chosen], "eps": epsilon, "delta": dl}
            if steps_up is not None:
                upper = grid.compose(steps_up, grid.tilt(steps_up, eps=epsilon))
                du = upper.delta(epsilon)
                info.update(delta_upper=du, upper_theta_at_eps=upper.theta)
                delta_upper = max(delta_upper, du)
        details["directions"][direction] = info
    if delta is not None:  # epsilon is reported >= 0 (a negative eps(delta) means (0, delta)-DP already)
        bracket.eps_lower = max(best_eps_lower, 0.0) if best_eps_lower > -math.inf else 0.0
        bracket.eps_upper = max(eps_upper, 0.0) if has_upper else math.inf
    if epsilon is not None:
        bracket.delta_lower = best_delta_lower
        bracket.delta_upper = delta_upper if has_upper else 1.0
    bracket.witness = witness
    details["seconds"] = time.perf_counter() - start
    bracket.details = details
    return bracket


def _best_lower(piece: Piece, direction: str, delta: float | None, epsilon: float | None) -> tuple[str, Step]:
    """The dominated candidate of ``piece`` in ``direction`` whose own composition reaches furthest (at the
    query): any choice is valid, this one is tightest for a composition of copies of the piece."""
    candidates = piece.lower[direction]
    if len(candidates) == 1:
        return candidates[0]
    best, score = candidates[0], -math.inf
    for name, step in candidates:
        c = grid.compose([(step, piece.count)], grid.tilt([(step, piece.count)], delta=delta, eps=None)
                         if delta is not None else grid.tilt([(step, piece.count)], eps=epsilon))
        value = c.epsilon(delta) if delta is not None else c.delta(epsilon)
        if value > score:
            best, score = (name, step), value
    return best


__all__ = ["BACKWARD", "DIRECTIONS", "FORWARD", "Bracket", "Piece", "certify", "pieces", "symmetrised"]
