"""Exact privacy quantities of two finite distributions, vectorised over their outcomes.

Log-probabilities are float64 with a stated absolute error ``log_error``; every result is an
enclosure that accounts for it, for float rounding (numpy's exp, log and log-add-exp are taken
to be accurate to ``ULPS`` units in the last place, which their implementations meet with room
to spare; sums of non-negative terms use numpy's pairwise summation, whose relative error is at
most k units of rounding, k the most additions one term passes through (see ``pairwise_roundings``:
about log2(n) + 17 for large n, n - 1 below 8 terms)), and for ``tail_mass`` (probability
outside the listed outcomes: it can only count against a claim, so it widens upper bounds).
Supports of a million outcomes take well under a second.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.distributions import FiniteDistribution
from ..core.errors import MechanismError
from .enclosure import Enclosure
from .loss import LossRange

ULPS = 8
U = ULPS * 2.0**-53  # relative error allowed per elementary float operation


@dataclass(frozen=True)
class Aligned:
    """Two distributions on one outcome array (rows of ``outcomes``)."""

    outcomes: np.ndarray
    logp: np.ndarray
    logq: np.ndarray
    error: float  # log_error of P plus log_error of Q
    p: FiniteDistribution
    q: FiniteDistribution


def same_distribution(p: FiniteDistribution, q: FiniteDistribution) -> bool:
    return p is q or (
        p.outcomes.shape == q.outcomes.shape and np.array_equal(p.outcomes, q.outcomes)
        and np.array_equal(p.log_probs, q.log_probs) and p.tail_mass == q.tail_mass
    )


def align(p: FiniteDistribution, q: FiniteDistribution) -> Aligned:
    """Both distributions on the union of their outcomes (missing outcomes get probability 0)."""
    if p.outcomes.ndim != q.outcomes.ndim or p.outcomes.shape[1:] != q.outcomes.shape[1:]:
        raise MechanismError(
            f"the two output distributions have outcomes of shapes {p.outcomes.shape[1:]} and {q.outcomes.shape[1:]}"
        )
    error = p.log_error + q.log_error
    if p.outcomes is q.outcomes or (p.outcomes.shape == q.outcomes.shape and np.array_equal(p.outcomes, q.outcomes)):
        _check_distinct(p.outcomes)
        return Aligned(p.outcomes, p.log_probs, q.log_probs, error, p, q)
    if _integer_run(p.outcomes) and _integer_run(q.outcomes) and (  # two runs of consecutive integers that
            int(p.outcomes[0]) <= int(q.outcomes[-1]) + 1 and int(q.outcomes[0]) <= int(p.outcomes[-1]) + 1):  # meet
        lo = min(int(p.outcomes[0]), int(q.outcomes[0]))
        hi = max(int(p.outcomes[-1]), int(q.outcomes[-1]))
        union = np.arange(lo, hi + 1, dtype=np.result_type(p.outcomes.dtype, q.outcomes.dtype))
        logp = np.full(len(union), -np.inf)
        logq = np.full(len(union), -np.inf)
        logp[int(p.outcomes[0]) - lo:int(p.outcomes[-1]) - lo + 1] = p.log_probs
        logq[int(q.outcomes[0]) - lo:int(q.outcomes[-1]) - lo + 1] = q.log_probs
        return Aligned(union, logp, logq, error, p, q)
    both = np.concatenate([p.outcomes, q.outcomes])
    union, inverse = np.unique(both, axis=0 if both.ndim == 2 else None, return_inverse=True)
    inverse = inverse.reshape(-1)
    m = len(p.outcomes)
    if np.bincount(inverse[:m]).max() > 1 or np.bincount(inverse[m:]).max() > 1:
        raise MechanismError("a FiniteDistribution lists the same outcome twice")
    logp = np.full(len(union), -np.inf)
    logq = np.full(len(union), -np.inf)
    logp[inverse[:m]] = p.log_probs
    logq[inverse[m:]] = q.log_probs
    return Aligned(union, logp, logq, error, p, q)


def _integer_run(outcomes: np.ndarray) -> bool:
    """Whether the outcomes are k, k + 1, ..., k + m - 1 (integer scalars, in that order)."""
    return (outcomes.ndim == 1 and np.issubdtype(outcomes.dtype, np.integer)
            and int(outcomes[-1]) - int(outcomes[0]) == len(outcomes) - 1 and bool((np.diff(outcomes) == 1).all()))


def _check_distinct(outcomes: np.ndarray) -> None:
    if len(outcomes) <= 1:
        return
    if outcomes.ndim == 1:
        ordered = np.sort(outcomes)
        duplicate = bool((ordered[1:] == ordered[:-1]).any())
    else:
        duplicate = len(np.unique(outcomes, axis=0)) != len(outcomes)
    if duplicate:
        raise MechanismError("a FiniteDistribution lists the same outcome twice")


@functools.cache
def pairwise_roundings(n: int) -> int:
    """The most roundings one term meets in numpy's pairwise sum of n floats (numpy's pairwise_sum): a plain
    loop below 8 terms; up to 128, eight running sums (n // 8 terms each) joined in a tree of depth 3, then
    the n % 8 terms left over added one by one; above, the two halves (the first a multiple of 8) summed
    alike and added."""
    if n < 8:
        return max(n - 1, 0)
    if n <= 128:
        return n // 8 - 1 + 3 + n % 8
    half = n // 2 - (n // 2) % 8
    return 1 + max(pairwise_roundings(half), pairwise_roundings(n - half))


def positive_sum(terms: np.ndarray) -> Enclosure:
    """Enclosure of the exact sum of non-negative float terms summed pairwise by numpy: after k roundings
    the relative error is at most k u / (1 - k u) < (k + 1) u, u = 2^-53; one unit more to spare."""
    total = float(np.sum(terms))
    return Enclosure.around(total, 0, (pairwise_roundings(len(terms)) + 2) * 2.0**-53)


def _outcome(a: Aligned, i: int) -> Any:
    return a.outcomes[i].tolist()


def loss_range(p: FiniteDistribution, q: FiniteDistribution) -> LossRange:
    """sup and inf of log p(x) - log q(x) over the outcomes (support mismatch gives +-inf)."""
    a = align(p, q)
    fp, fq = np.isfinite(a.logp), np.isfinite(a.logq)
    both = fp & fq
    sup: Enclosure | None = None
    inf: Enclosure | None = None
    sup_at = inf_at = None
    if (fp & ~fq).any():  # P has mass where Q has none
        i = int(np.flatnonzero(fp & ~fq)[0])
        sup, sup_at = Enclosure.point(math.inf), _outcome(a, i)
    if (fq & ~fp).any():
        i = int(np.flatnonzero(fq & ~fp)[0])
        inf, inf_at = Enclosure.point(-math.inf), _outcome(a, i)
    if both.any():
        idx = np.flatnonzero(both)
        loss = a.logp[idx] - a.logq[idx]
        i_max, i_min = int(np.argmax(loss)), int(np.argmin(loss))
        if sup is None:
            v = float(loss[i_max])
            sup, sup_at = Enclosure.around(v, a.error, U), _outcome(a, int(idx[i_max]))
        if inf is None:
            v = float(loss[i_min])
            inf, inf_at = Enclosure.around(v, a.error, U), _outcome(a, int(idx[i_min]))
    if sup is None or inf is None:
        raise MechanismError("two output distributions with no outcome of positive probability")
    # unlisted mass can sit anywhere: its loss is unknown
    if p.tail_mass > 0:
        sup = Enclosure(sup.lo, math.inf)
    if q.tail_mass > 0:
        inf = Enclosure(-math.inf, inf.hi)
    return LossRange(sup, inf, sup_at, inf_at)


@dataclass(frozen=True)
class HockeyStick:
    """delta(eps) = sum over x of (p(x) - e^eps q(x))_+ , with the event {p > e^eps q}."""

    delta: Enclosure
    event_size: int
    p_mass: float
    q_mass: float
    top: list[Any]


def hockey_stick(p: FiniteDistribution, q: FiniteDistribution, eps: float,
                 aligned: Aligned | None = None) -> HockeyStick:
    a = aligned or align(p, q)
    e = a.error
    # Only outcomes with log p - log q > eps - 2 e can have a positive upper term: below that (with 1e-9 to
    # spare for the roundings, each far under 1e-12 here) p_hi <= f_lo q_lo (1 - U) holds in floats, so the
    # terms left out are exactly 0 in both sums.
    with np.errstate(invalid="ignore"):  # outcomes impossible under both laws: -inf - -inf
        near = np.flatnonzero(a.logp - a.logq > eps - 2 * e - 1e-9)
    logp, logq = a.logp[near], a.logq[near]
    # upper bound: largest p, smallest e^eps q; lower bound: the reverse
    with np.errstate(over="ignore"):
        p_hi = np.exp(logp + e) * (1 + U)
        p_lo = np.exp(logp - e) * (1 - U)
        q_hi = np.exp(logq + e) * (1 + U)
        q_lo = np.exp(logq - e) * (1 - U)
    factor = math.exp(eps)
    f_hi, f_lo = factor * (1 + U), factor * (1 - U)
    # The products are inflated (deflated) beyond their own rounding, so each subtraction is of
    # two floats that bound the true terms, and IEEE subtraction errs by at most one rounding of
    # its result: hence the final (1 +- U) factors.
    upper_terms = np.maximum(p_hi - f_lo * (q_lo * (1 - U)), 0.0) * (1 + U)
    lower_terms = np.maximum(p_lo - f_hi * (q_hi * (1 + U)), 0.0) * (1 - U)
    upper = positive_sum(upper_terms).hi + Fraction(p.tail_mass)
    lower = positive_sum(lower_terms).lo
    inside = logp - logq > eps  # the event {p > e^eps q}, within ``near``
    gain = np.where(inside, np.exp(logp) - factor * np.exp(logq), 0.0)
    top = min(5, int(inside.sum()))
    largest = np.argpartition(-gain, top - 1)[:top] if 0 < top < len(gain) else np.arange(len(gain))
    order = largest[np.argsort(-gain[largest])][:top]
    return HockeyStick(
        Enclosure(max(lower, 0), upper),
        int(inside.sum()),
        float(np.exp(logp[inside]).sum()),
        float(np.exp(logq[inside]).sum()),
        [_outcome(a, int(near[i])) for i in order],
    )


# pragma: no mutate start (data for the report's plots, not a verdict's statistics)
def profile_curve(p: FiniteDistribution, q: FiniteDistribution, eps: np.ndarray) -> np.ndarray:
    """delta(eps) at many eps at once, in plain floats (for plots: an estimate, not an enclosure).
    Sorting the outcomes by loss turns every delta into two prefix sums."""
    a = align(p, q)
    keep = np.isfinite(a.logp)
    with np.errstate(invalid="ignore"):
        loss = (a.logp - a.logq)[keep]
    order = np.argsort(-loss)
    cp = np.concatenate([[0.0], np.cumsum(np.exp(a.logp[keep][order]))])
    cq = np.concatenate([[0.0], np.cumsum(np.exp(a.logq[keep][order]))])
    inside = np.searchsorted(-loss[order], -np.asarray(eps, dtype=float), side="left")  # outcomes with loss > eps
    return np.maximum(cp[inside] - np.exp(eps) * cq[inside], 0.0) + p.tail_mass
# pragma: no mutate end


def renyi(p: FiniteDistribution, q: FiniteDistribution, alpha: float) -> Enclosure:
    """D_alpha(P || Q) = log(sum p^alpha q^(1 - alpha)) / (alpha - 1) for alpha > 1."""
    return renyi_curve(align(p, q), [alpha])[0]


def _renyi_at(lp: np.ndarray, lq: np.ndarray, abs_lp: np.ndarray, abs_lq: np.ndarray, alpha: float, error: float,
              tail_mass: float) -> Enclosure:
    """D_alpha from log p and log q (same outcomes, p > 0 there) with a rigorous error bound.

    Term i is t_i = alpha lp_i + (1 - alpha) lq_i, known to within d_i = alpha * error (the inputs)
    plus the rounding of the affine combination, of the shift by max t and of exp (a few units of
    rounding of each magnitude). Writing S = sum exp(t_i) and w_i = exp(t_i) / S, the relative error
    of S is at most r = e^(max d) sum w_i d_i: terms too small to matter carry no weight, so far
    tails with huge |log p| do not widen the bound. Pairwise summation and the final log add their
    own. (The weighted sum is taken as dot products, each accurate far beyond the 1e-6 allowed.)
    """
    terms = alpha * lp + (1 - alpha) * lq
    top = float(terms.max())
    shifted = np.exp(terms - top)
    total = positive_sum(shifted)
    abs_terms = np.abs(terms)
    weighted = (alpha * (error * float(total.hi) + U * float(shifted @ abs_lp))
                + (alpha - 1) * U * float(shifted @ abs_lq)
                + U * (2 * float(shifted @ abs_terms) + (abs(top) + 1) * float(total.hi)))
    d_max = alpha * error + U * (alpha * float(abs_lp.max()) + (alpha - 1) * float(abs_lq.max())
                                 + 2 * float(abs_terms.max()) + abs(top) + 1)
    relative = weighted * math.exp(min(d_max, 700)) / float(total.lo) * (1 + 1e-6) + float(total.width / total.lo)
    if not relative < 0.5:
        return Enclosure(0, math.inf)
    s = top + math.log(float(total.lo))
    log_error = -math.log1p(-relative) + 4 * U * (1 + abs(s))
    value = Enclosure.around(s, log_error).scale(Fraction(1) / (Fraction(alpha) - 1))
    return Enclosure(max(value.lo, 0), math.inf if tail_mass > 0 else max(value.hi, 0))


def renyi_curve(a: Aligned, alphas: Any) -> list[Enclosure]:
    """D_alpha(P || Q) at every order in ``alphas`` (alpha > 1; inf gives sup log p/q)."""
    fp = np.isfinite(a.logp)
    if (fp & ~np.isfinite(a.logq)).any():
        return [Enclosure.point(math.inf) for _ in alphas]
    lp, lq = a.logp[fp], a.logq[fp]
    abs_lp, abs_lq = np.abs(lp), np.abs(lq)
    out = []
    for alpha in alphas:
        if math.isinf(alpha):
            sup = loss_range(a.p, a.q).sup
            out.append(Enclosure(max(sup.lo, 0), max(sup.hi, 0)))
            continue
        out.append(_renyi_at(lp, lq, abs_lp, abs_lq, alpha, a.error, a.p.tail_mass))
    return out
