"""From event counts to certified bounds on the privacy parameters.

For an event S let p = P[M(d_num) in S] and q = P[M(d_den) in S]. Given confidence intervals
for p and q that hold together with probability >= 1 - alpha:

- pure DP:        epsilon >= log(p_lo / q_hi);
- approximate DP: delta >= p_lo - e^epsilon q_hi      (at the claimed epsilon);
- Renyi DP:       D_alpha(M(d_num) || M(d_den)) >= min over the box of D_alpha(Ber(p) || Ber(q))
                  (data processing); Renyi divergence between Bernoullis is zero on the diagonal and
                  grows away from it in each argument, so the minimum over the box is 0 when the
                  intervals overlap and otherwise sits at the corner nearest the diagonal;
- zCDP:           rho >= max over a grid of alpha of (the Renyi bound) / alpha.

Intervals are Clopper-Pearson for a fixed sample size, or anytime-valid confidence sequences for
sequential audits. All functions are vectorised over candidate events (for selection scores).

A pure-DP bound confirmed at a fixed sample size is certified instead by one test at level alpha, the
coupled-thinning Fisher test (:func:`certify_pure_thinned`, :func:`~dpaudit.stats.thinned_fisher_lower`),
which is narrower than the pair of Clopper-Pearson bounds; selection keeps scoring events by the pair.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..core.claims import ZCDP, ApproxDP, Claim, PureDP, RenyiDP
from ..core.errors import UnsupportedAudit
from ..stats import (
    binomial_confidence_sequence,
    binomial_interval,
    binomial_lower,
    binomial_upper,
    thinned_fisher_lower,
)

RHO_ORDERS = np.concatenate([np.geomspace(1.001, 2.0, 40), np.geomspace(2.0, 1e4, 160)[1:]])
SUPPORTED = (PureDP, ApproxDP, RenyiDP, ZCDP)


def check_supported(claim: Claim) -> None:
    if not isinstance(claim, SUPPORTED):
        raise UnsupportedAudit(
            f"black-box audits test pure, approximate, Renyi and zero-concentrated DP; got a {claim.kind} claim"
        )


def bernoulli_renyi(alpha: float, p, q):
    """D_alpha(Ber(p) || Ber(q)), vectorised; alpha = inf gives the max log-ratio over the outcomes
    Ber(p) gives mass to."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if math.isinf(alpha):
            one, zero = np.log(p) - np.log(q), np.log1p(-p) - np.log1p(-q)
        else:
            one = alpha * np.log(p) + (1 - alpha) * np.log(q)
            zero = alpha * np.log1p(-p) + (1 - alpha) * np.log1p(-q)
        # 0 * log 0 conventions: an outcome with zero mass on the left side contributes nothing
        # (so D(Ber(0) || Ber(0)) = D(Ber(1) || Ber(1)) = 0 at every order, alpha = inf included)
        one, zero = np.where(p == 0, -np.inf, one), np.where(p == 1, -np.inf, zero)
        out = np.maximum(one, zero) if math.isinf(alpha) else np.logaddexp(one, zero) / (alpha - 1)
        return np.maximum(out, 0.0)


def bernoulli_rho(p, q):
    """max over :data:`RHO_ORDERS` of D_alpha(Ber(p) || Ber(q)) / alpha, vectorised: the two-point law's rho on the
    orders a zCDP certificate uses."""
    return np.max(np.stack([bernoulli_renyi(a, p, q) / a for a in RHO_ORDERS]), axis=0)


def renyi_lower(alpha: float, p_lo, p_hi, q_lo, q_hi):
    """min of D_alpha(Ber(p) || Ber(q)) over the box [p_lo, p_hi] x [q_lo, q_hi]."""
    above = np.asarray(p_lo) > np.asarray(q_hi)
    below = np.asarray(p_hi) < np.asarray(q_lo)
    p = np.where(above, p_lo, np.where(below, p_hi, 0.5))
    q = np.where(above, q_hi, np.where(below, q_lo, 0.5))
    return np.where(above | below, bernoulli_renyi(alpha, p, q), 0.0)


@dataclass
class Bound:
    """A certified bound on the claim's parameter (``name``), its point estimate, and the excess
    over the claim (positive means refuted). For Renyi curves ``detail`` names the worst order."""

    name: str
    value: np.ndarray
    estimate: np.ndarray
    excess: np.ndarray
    detail: dict
    intervals: tuple = (None, None, None, None)  # p_lo, p_hi, q_lo, q_hi (None: not needed)


@functools.lru_cache(maxsize=4096)
def _sequence(k: int, n: int, level: float) -> tuple[float, float]:
    """:func:`~dpaudit.stats.binomial_confidence_sequence`, kept: a stated power asks for the same counts' bounds
    again and again while it bisects."""
    return binomial_confidence_sequence(k, n, level)


def _sequence_bounds(k, n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Confidence-sequence bounds of every count in ``k`` (any shape; a scalar gives np.float64 bounds)."""
    counts = np.asarray(k)
    pairs = np.array([_sequence(int(c), int(n), level) for c in counts.ravel()], dtype=float).reshape(
        (*counts.shape, 2))
    if counts.ndim == 0:
        return np.float64(pairs[0]), np.float64(pairs[1])
    return pairs[..., 0], pairs[..., 1]


def _intervals(k_num, k_den, n, alpha: float, sequential: bool, two_sided: bool):
    if sequential:
        level = alpha / 2
        (p_lo, p_hi), (q_lo, q_hi) = (_sequence_bounds(k, n, level) for k in (k_num, k_den))
        return p_lo, p_hi, q_lo, q_hi
    if two_sided:
        (p_lo, p_hi), (q_lo, q_hi) = binomial_interval(k_num, n, alpha / 2), binomial_interval(k_den, n, alpha / 2)
        return p_lo, p_hi, q_lo, q_hi
    return binomial_lower(k_num, n, alpha / 2), None, None, binomial_upper(k_den, n, alpha / 2)


def plugin_estimate(claim: PureDP | ApproxDP, k_num, k_den, n: int) -> np.ndarray:
    """The point estimate :func:`certify` states for a pure or approximate DP claim (its ``estimate``), read off
    the counts without any interval: epsilon log(p/q) (0 where p = 0), delta p - e^epsilon q. The certified value
    at the same counts is at most max(estimate, 0), since the intervals hold p below and q above their
    estimates (a one-sided Clopper-Pearson limit at a level below one half lies beyond the estimate)."""
    p_hat, q_hat = np.asarray(k_num) / n, np.asarray(k_den) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        if isinstance(claim, PureDP):
            return np.where(p_hat > 0, np.log(p_hat) - np.log(q_hat), 0.0)
        return p_hat - math.exp(claim.epsilon) * q_hat


def certify(claim: Claim, k_num, k_den, n: int, alpha: float, sequential: bool = False) -> Bound:
    """Bound on the claim's parameter from counts of one event (or arrays of candidate events)
    among ``n`` outputs per side; holds with probability >= 1 - alpha."""
    k_num, k_den = np.asarray(k_num), np.asarray(k_den)
    p_hat, q_hat = k_num / n, k_den / n
    two_sided = isinstance(claim, (RenyiDP, ZCDP))
    box = _intervals(k_num, k_den, n, alpha, sequential, two_sided)
    p_lo, p_hi, q_lo, q_hi = box
    with np.errstate(divide="ignore", invalid="ignore"):
        if isinstance(claim, PureDP):
            value = np.maximum(np.log(p_lo) - np.log(q_hi), 0.0)
            return Bound("epsilon", value, plugin_estimate(claim, k_num, k_den, n), value - claim.epsilon, {}, box)
        if isinstance(claim, ApproxDP):
            value = np.maximum(p_lo - math.exp(claim.epsilon) * q_hi, 0.0)
            return Bound("delta", value, plugin_estimate(claim, k_num, k_den, n), value - claim.delta, {}, box)
        if isinstance(claim, RenyiDP):
            best = None
            for order, eps in claim.points:
                value = renyi_lower(order, p_lo, p_hi, q_lo, q_hi)
                excess = value - eps
                if best is None:
                    best = (value, excess, bernoulli_renyi(order, p_hat, q_hat), np.full(np.shape(value), order))
                else:
                    better = excess > best[1]
                    best = tuple(np.where(better, new, old) for new, old in
                                 zip((value, excess, bernoulli_renyi(order, p_hat, q_hat), order), best))
            value, excess, estimate, order = best
            return Bound("renyi", value, estimate, excess, {"alpha": order}, box)
        if isinstance(claim, ZCDP):
            ratios = np.stack([renyi_lower(a, p_lo, p_hi, q_lo, q_hi) / a for a in RHO_ORDERS])
            arg = np.argmax(ratios, axis=0)
            value = np.take_along_axis(ratios, arg[None], 0)[0]
            estimate = bernoulli_rho(p_hat, q_hat)
            return Bound("rho", value, estimate, value - claim.rho, {"alpha": RHO_ORDERS[arg]}, box)
    check_supported(claim)
    raise AssertionError("unreachable")


def certify_pure_thinned(claim: PureDP, k_num: int, k_den: int, n: int, alpha: float,
                         rng: np.random.Generator) -> Bound:
    """The pure-DP bound of one confirmed event by the coupled-thinning Fisher test at level ``alpha``
    (:func:`~dpaudit.stats.thinned_fisher_lower`; one draw from ``rng``, made only when the test rejects at
    epsilon = 0). ``detail["fisher_threshold"]``: the smallest kept count the test rejects (0: none)."""
    value, kept = thinned_fisher_lower(k_num, k_den, n, alpha, rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.log(k_num / n) - np.log(k_den / n) if k_num > 0 else 0.0
    value, estimate = np.float64(value), np.float64(estimate)
    return Bound("epsilon", value, estimate, value - claim.epsilon, {"fisher_threshold": kept})
