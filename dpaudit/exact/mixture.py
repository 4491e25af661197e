"""Exact privacy quantities of a pair of :class:`~dpaudit.core.distributions.KeyedMixtureDistribution`: a
two-stage output (X, Y) whose second stage's law depends on X only through a block label computed from the
observed X (an adaptive mechanism's next state).

Both distributions of a pair label every outcome x of X the same way (checked on the outcomes both list), so
the outcomes (x, y) split into blocks B common to both, and on B the two laws are the sub-probability
products P_X|_B x P_B and Q_X|_B x Q_B. Hence, exactly,

    delta(eps) = sum_B sum_{x in B, y} (P_X(x) P_B(y) - e^eps Q_X(x) Q_B(y))_+,
    sup L      = max_B (sup_{x in B} L_X(x) + sup L_B),   inf L = min_B (inf_{x in B} L_X(x) + inf L_B).

A block's term is a(B) times the hockey-stick divergence at eps'(B) = eps + log(c(B) / a(B)) of two
normalised products, a(B) = P_X(B), c(B) = Q_X(B):

  - a block of one outcome x (the usual case for the few interior iterates): a = P_X(x), c = Q_X(x), and the
    divergence is that of the conditionals alone (:func:`dpaudit.exact.finite.hockey_stick` on one coordinate,
    the privacy-loss distribution otherwise), evaluated at both ends of an enclosure of eps' (delta(eps) falls
    as eps grows), so the rounding of log a and log c only widens the result;
  - a larger block: each end separately. The term grows with P_X's masses and falls with Q_X's, so its upper
    end is that of P_X e^(error) and Q_X e^(-error) taken as exact (the lower end the reverse); with A the
    P-measure of B, P_X|_B / A is a probability law (the privacy-loss distribution needs one: it counts the
    mass of infinite loss as one minus the rest) and Q_X|_B e^(eps - eps') / A at eps' = eps + log(c / A) its
    counterpart, so the term is A times the divergence of their products with the conditionals at eps'
    (:func:`dpaudit.exact.pld.product_hockey_stick`), up to the rounding of log A (carried as ``log_error``).

Mass of X outside the listed outcomes (``tail_mass``) is unlocated: it is added to the upper bound of delta
and leaves the loss range unbounded on its side.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.special import logsumexp

from ..core.distributions import FiniteDistribution, KeyedMixtureDistribution
from ..core.errors import MechanismError, UnsupportedAudit
from . import finite
from .enclosure import Enclosure
from .finite import U
from .loss import ZERO, LossRange
from .pld import product_hockey_stick


@dataclass(frozen=True)
class Block:
    """One block of a pair: its label, the union outcomes of X in it (in the union's order, so that the block's
    sums do not depend on the sorting algorithm) with both sides' log-probabilities, and the two conditionals (None
    on a side with no outcome in the block)."""

    label: Any
    outcomes: np.ndarray
    logp: np.ndarray
    logq: np.ndarray
    p: Any
    q: Any


def blocks(dist0: KeyedMixtureDistribution, dist1: KeyedMixtureDistribution) -> list[Block]:
    """The pair's common blocks (module docstring); MechanismError if an outcome of X listed by both is
    labelled differently (then the blocks are not keyed by the observation and the decomposition is void)."""
    p, q = dist0.first, dist1.first
    if p.outcomes.ndim != q.outcomes.ndim or p.outcomes.shape[1:] != q.outcomes.shape[1:]:
        raise MechanismError("the two first stages have outcomes of different shapes")
    if dist0.labels.ndim != dist1.labels.ndim or dist0.labels.shape[1:] != dist1.labels.shape[1:]:
        raise MechanismError("the two keyed mixtures have labels of different shapes")
    a = finite.align(p, q)
    if a.outcomes is p.outcomes:  # one outcome array for both
        where0 = where1 = np.arange(len(p.outcomes))
    else:
        where0, where1 = _positions(a.outcomes, p.outcomes), _positions(a.outcomes, q.outcomes)
    labels, inverse = np.unique(np.concatenate([dist0.labels, dist1.labels]), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    own0, own1 = inverse[:len(dist0.labels)], inverse[len(dist0.labels):]
    block = np.full(len(a.outcomes), -1, dtype=np.int64)
    block[where0] = own0[dist0.block_of]
    other = np.full(len(a.outcomes), -1, dtype=np.int64)
    other[where1] = own1[dist1.block_of]
    both = (block >= 0) & (other >= 0)
    if (block[both] != other[both]).any():
        i = int(np.flatnonzero(both & (block != other))[0])
        raise MechanismError(f"the outcome {a.outcomes[i].tolist()} of the first stage is labelled "
                             f"{labels[block[i]].tolist()} under one input and {labels[other[i]].tolist()} under the "
                             "other: the blocks must be a function of the observed first stage")
    block = np.where(block >= 0, block, other)
    cond0 = {int(g): dist0.conditionals[i] for i, g in enumerate(own0)}
    cond1 = {int(g): dist1.conditionals[i] for i, g in enumerate(own1)}
    order = np.argsort(block, kind="stable")
    bounds = np.searchsorted(block[order], np.arange(len(labels) + 1))
    out = []
    for g in range(len(labels)):
        idx = order[bounds[g]:bounds[g + 1]]
        if len(idx):
            out.append(Block(labels[g], a.outcomes[idx], a.logp[idx], a.logq[idx], cond0.get(g), cond1.get(g)))
    return out


def _positions(union: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
    """Index in the (sorted, unique) union of each of ``outcomes`` (scalars, or rows compared whole)."""
    if union.ndim == 1:
        return np.searchsorted(union, outcomes)
    _, inverse = np.unique(np.concatenate([union, outcomes]), axis=0, return_inverse=True)
    return inverse.reshape(-1)[len(union):]


Coordinates = Callable[[Any, Any], list[tuple[str, Any, Any]]]


def _conditional_pairs(p: Any, q: Any, coordinates: Coordinates) -> list[tuple[FiniteDistribution,
                                                                                FiniteDistribution]]:
    coords = coordinates(p, q)
    if not all(isinstance(a, FiniteDistribution) and isinstance(b, FiniteDistribution) for _, a, b in coords):
        raise UnsupportedAudit("a keyed mixture's conditionals are audited exactly only when they are finite laws "
                               "(or products of them)")
    return [(a, b) for _, a, b in coords]


def _mass(logs: np.ndarray, error: float) -> Enclosure:
    """sum exp(logs) over finite entries, each log within ``error``."""
    logs = logs[np.isfinite(logs)]
    if not len(logs):
        return Enclosure.point(0)
    total = finite.positive_sum(np.exp(logs))
    return Enclosure(total.lo * Fraction(math.exp(-error)) * (1 - Fraction(U)),
                     total.hi * Fraction(math.exp(error)) * (1 + Fraction(U)))


def _single(pairs: list[tuple[FiniteDistribution, FiniteDistribution]], eps: float,
            aligned: finite.Aligned | None = None) -> Enclosure:
    if not pairs:
        # identical conditionals and one outcome of X: (1 - e^eps')_+
        return Enclosure.around(-math.expm1(eps), 0, U) if eps < 0 else Enclosure.point(0)
    if len(pairs) == 1:
        return finite.hockey_stick(*pairs[0], eps, aligned=aligned).delta
    return product_hockey_stick(pairs, eps)


def _block_bound(b: Block, error_p: float, error_q: float, pairs: list[tuple[FiniteDistribution, FiniteDistribution]],
                 eps: float, upward: bool) -> Fraction:
    """One end of a block's term (of several first-stage outcomes). The term grows with the P-masses and falls
    with the Q-masses, so its upper (lower) end is that of the measures P_X e^(+-error_p), Q_X e^(-+error_q)
    taken as exact; with A = P-measure(B) (enclosed) the term is A times the divergence of the normalised
    P-measure (a law: the privacy-loss distribution counts the mass of infinite loss as 1 minus the rest) and
    Q-measure e^(eps - eps') / A at eps' = eps + log(Q-measure(B) / A), up to the rounding of log A."""
    sign = 1 if upward else -1
    raise_p, lower_q = sign * error_p, -sign * error_q
    # the float sums lie on the safe side of the exact ones: a few roundings of their size moved outward
    fp, fq = np.isfinite(b.logp), np.isfinite(b.logq)
    lp, lq = np.full(len(b.logp), -np.inf), np.full(len(b.logq), -np.inf)
    lp[fp] = b.logp[fp] + raise_p + sign * 4 * U * (np.abs(b.logp[fp]) + error_p)
    lq[fq] = b.logq[fq] + lower_q - sign * 4 * U * (np.abs(b.logq[fq]) + error_q)
    mass = finite.positive_sum(np.exp(lp[fp]))  # A, the exact sum of exp(lp): each exp within U, then the sum
    a_lo, a_hi = mass.lo * (1 - Fraction(U)), mass.hi * (1 + Fraction(U))
    la, lc = float(np.log(float(mass.lo + mass.hi) / 2)), float(logsumexp(lq[fq]))
    eps_b = eps + lc - la
    s = eps - eps_b
    normalising = float(math.log(a_hi / a_lo)) + 4 * U * (abs(la) + 1)  # |la - log A| and its rounding
    err_p = normalising + 4 * U * (float(np.abs(lp[fp]).max()) + abs(la) + 1)
    err_q = normalising + 4 * U * (float(np.abs(lq[fq]).max()) + 2 * abs(s) + abs(la) + 1)
    first_p = FiniteDistribution(b.outcomes, lp - la, log_error=err_p)
    first_q = FiniteDistribution(b.outcomes, lq + s - la, log_error=err_q)
    value = _single([(first_p, first_q), *pairs], eps_b)
    return min(value.hi * a_hi, a_hi) if upward else value.lo * a_lo


def hockey_stick(dist0: KeyedMixtureDistribution, dist1: KeyedMixtureDistribution, eps: float,
                 coordinates: Coordinates) -> tuple[Enclosure, dict[str, Any]]:
    """delta(eps) of P = dist0 against Q = dist1, and a summary (blocks, the block contributing most: the first in
    label order on a tie).
    ``coordinates(P_B, Q_B)``: the (kind, P_i, Q_i) where two conditionals differ
    (:func:`dpaudit.exact.differing_coordinates`, passed in: the package imports this module)."""
    error = dist0.first.log_error + dist1.first.log_error
    total = Enclosure.point(0)
    worst, worst_value = None, -1.0
    parts = blocks(dist0, dist1)
    for b in parts:
        fp, fq = np.isfinite(b.logp), np.isfinite(b.logq)
        if not fp.any():
            continue  # no P-mass in the block
        if not fq.any():  # no Q-mass: the block counts fully
            term = _mass(b.logp, dist0.first.log_error)
        elif len(b.outcomes) == 1:
            lp, lq = float(b.logp[0]), float(b.logq[0])
            shift = eps + lq - lp
            slack = error + 4 * U * (abs(eps) + abs(lp) + abs(lq) + 1)  # the two roundings and the log errors
            pairs = _conditional_pairs(b.p, b.q, coordinates)
            aligned = finite.align(*pairs[0]) if len(pairs) == 1 else None
            hi, lo = _single(pairs, shift - slack, aligned), _single(pairs, shift + slack, aligned)
            a = _mass(b.logp, dist0.first.log_error)
            term = Enclosure(lo.lo * a.lo, min(hi.hi * a.hi, a.hi))
        else:
            pairs = _conditional_pairs(b.p, b.q, coordinates)
            term = Enclosure(_block_bound(b, dist0.first.log_error, dist1.first.log_error, pairs, eps, False),
                             _block_bound(b, dist0.first.log_error, dist1.first.log_error, pairs, eps, True))
        total = total + term
        if float(term.hi) > worst_value:
            worst, worst_value = b, float(term.hi)
    tail = Fraction(dist0.first.tail_mass)
    total = Enclosure(total.lo, min(total.hi + tail, 1))
    event = {"blocks": len(parts)}
    if worst is not None:
        event |= {"worst block": np.asarray(worst.label).tolist(), "its delta": worst_value,
                  "its first-stage outcomes": len(worst.outcomes)}
    return total, event


def loss_range(dist0: KeyedMixtureDistribution, dist1: KeyedMixtureDistribution,
               coordinates_loss: Callable[[Any, Any], LossRange]) -> LossRange:
    """sup and inf of log P(x, y) - log Q(x, y) (module docstring); ``coordinates_loss``: the loss range of two
    conditionals (:func:`dpaudit.exact.loss_range`, passed in: the package imports this module)."""

    error = dist0.first.log_error + dist1.first.log_error
    sups: list[tuple[Enclosure, Any]] = []
    infs: list[tuple[Enclosure, Any]] = []
    for b in blocks(dist0, dist1):
        fp, fq = np.isfinite(b.logp), np.isfinite(b.logq)
        if (fp & ~fq).any():
            sups.append((Enclosure.point(math.inf), b.outcomes[np.flatnonzero(fp & ~fq)[0]].tolist()))
        if (fq & ~fp).any():
            infs.append((Enclosure.point(-math.inf), b.outcomes[np.flatnonzero(fq & ~fp)[0]].tolist()))
        both = fp & fq
        if not both.any():
            continue
        idx = np.flatnonzero(both)
        loss = b.logp[idx] - b.logq[idx]
        rest = coordinates_loss(b.p, b.q) if b.p is not None and b.q is not None else ZERO
        i_max, i_min = int(idx[np.argmax(loss)]), int(idx[np.argmin(loss)])
        sups.append((Enclosure.around(float(loss.max()), error, U) + rest.sup, [b.outcomes[i_max].tolist(),
                                                                                 rest.sup_at]))
        infs.append((Enclosure.around(float(loss.min()), error, U) + rest.inf, [b.outcomes[i_min].tolist(),
                                                                                 rest.inf_at]))
    if not sups or not infs:
        raise MechanismError("two keyed mixtures with no outcome of positive probability")
    sup, sup_at = max(sups, key=lambda s: s[0].hi)
    inf, inf_at = min(infs, key=lambda s: s[0].lo)
    sup = Enclosure(max(s.lo for s, _ in sups), sup.hi)
    inf = Enclosure(inf.lo, min(s.hi for s, _ in infs))
    if dist0.first.tail_mass > 0:
        sup = Enclosure(sup.lo, math.inf)
    if dist1.first.tail_mass > 0:
        inf = Enclosure(-math.inf, inf.hi)
    return LossRange(sup, inf, sup_at, inf_at)
