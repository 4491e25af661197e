"""The one-run canary audit of Steinke, Nasr and Jagielski ("Privacy Auditing with One (1) Training Run",
NeurIPS 2023): m canaries, each included in the training set independently with probability 1/2, one run, and a
guess per canary from the run's output (in, out, or abstain); r guesses are made and v of them are right.

If the run is (eps, delta)-DP with respect to each canary, then for every v (their Theorem 3.1 with the delta term
of their Section 5)

    P[V >= v] <= p(eps) = P[Bin(r, q) >= v] + 2 m delta max_{1 <= i <= v} P[v - i <= Bin(r, q) < v] / i,

q = e^eps / (1 + e^eps), the accuracy of eps-DP randomized response. p is the p-value of "the run is
(eps, delta)-DP" given v right guesses; it grows with eps, so the claims it rejects at level alpha are the eps
below the root of p(eps) = alpha, whose supremum :func:`one_run_epsilon` reports as the lower bound (0 where
p(0) > alpha already). The binomial tails are exact (scipy.stats.binom), the delta term's maximum taken over every
i, and the root bracketed by bisection and reported from below (its lower end), so the bound never exceeds the
exact root.

Choices of guesses (Steinke et al. guess "in" for the k+ highest scores and "out" for the k- lowest): a fixed
(k+, k-) made before the memberships are seen keeps alpha; several are tested each at alpha / (their number)
(Bonferroni), so the best of them is a valid bound too (:func:`guess_grid`; no uncorrected best of many
thresholds). The ceiling (:func:`one_run_ceiling`) is the bound of all r guesses right: no attack on these m, r,
delta and alpha can certify more (5.78 at m = r = 1000, delta 1e-5, alpha 0.05).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

#: the largest epsilon the bisection considers (p(eps) is then 1 up to rounding for any r below 10^12)
EPSILON_CEILING = 60.0
_BISECTIONS = 56  # the root to 60 / 2^56, about 1e-15


def randomized_response_accuracy(epsilon: float) -> float:
    """q = e^eps / (1 + e^eps), computed as 1 / (1 + e^-eps)."""
    return 1.0 / (1.0 + math.exp(-epsilon))


def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """p(eps) of the module docstring: the probability, under (eps, delta)-DP, of v or more right guesses out of r
    made on m canaries (at most 1)."""
    if not 0 <= v <= r <= m:
        raise ValueError(f"one_run_p_value: need 0 <= v <= r <= m, got m={m}, r={r}, v={v}")
    if v == 0:
        return 1.0
    q = randomized_response_accuracy(epsilon)
    tail = float(stats.binom.sf(v - 1, r, q))  # P[Bin(r, q) >= v]
    if delta == 0:
        return min(tail, 1.0)
    # P[v - i <= Bin < v] for i = 1..v: the pmf at v - 1, v - 2, .., 0 summed from v - 1 down
    below = np.cumsum(stats.binom.pmf(np.arange(v - 1, -1, -1), r, q))
    term = float(np.max(below / np.arange(1, v + 1)))
    return min(tail + 2 * m * delta * term, 1.0)


@functools.lru_cache(maxsize=4096)
def one_run_epsilon(m: int, r: int, v: int, delta: float, alpha: float) -> float:
    """The one-run lower bound on epsilon at level alpha (module docstring): the supremum of the eps whose
    (eps, delta)-DP the count v rejects at level alpha, from below; 0 where none is rejected. Kept per arguments (a
    bisection of binomial tails; audits of many runs meet the same counts again)."""
    if not 0 < alpha < 1:
        raise ValueError(f"one_run_epsilon: alpha must be in (0, 1), got {alpha!r}")
    if not 0 <= delta < 1:
        raise ValueError(f"one_run_epsilon: delta must be in [0, 1), got {delta!r}")
    if one_run_p_value(m, r, v, 0.0, delta) > alpha:
        return 0.0
    low, high = 0.0, EPSILON_CEILING
    if one_run_p_value(m, r, v, high, delta) <= alpha:
        return high
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        if one_run_p_value(m, r, v, middle, delta) <= alpha:
            low = middle
        else:
            high = middle
    return low


def one_run_ceiling(m: int, r: int, delta: float, alpha: float) -> float:
    """The largest bound r guesses on m canaries can give at ``delta`` and ``alpha``: every guess right."""
    return one_run_epsilon(m, r, r, delta, alpha)


def guess_grid(m: int, points: int = 8) -> list[tuple[int, int]]:
    """The default guesses: k+ = k- = k for k the integer parts of ``points`` geometric steps from max(1, m // 100)
    to m // 2 (the whole set guessed at the largest), duplicates dropped, each a (k+, k-) pair."""
    if m < 2:
        raise ValueError(f"guess_grid: need at least 2 canaries, got {m}")
    ks = np.unique(np.geomspace(max(1, m // 100), m // 2, points).astype(int))
    return [(int(k), int(k)) for k in ks]


def guesses_right(scores: np.ndarray, members: np.ndarray, k_in: int, k_out: int) -> tuple[int, int]:
    """(r, v) for the guess "in" on the k_in highest scores and "out" on the k_out lowest (ties broken by the
    order of the canaries, which must not depend on their memberships)."""
    order = np.argsort(scores, kind="stable")
    if k_in + k_out > len(scores):
        raise ValueError(f"guesses: k+ + k- = {k_in + k_out} exceeds the {len(scores)} canaries")
    right = int(members[order[len(order) - k_in:]].sum()) + int((~members[order[:k_out]]).sum())
    return k_in + k_out, right


def best_one_run_epsilon(scores: np.ndarray, members: np.ndarray, delta: float, alpha: float,
                         grid: Sequence[tuple[int, int]]) -> dict[str, float | int]:
    """The best one-run bound over the guesses ``grid``, each tested at alpha / len(grid): the bound, the (k+, k-)
    that gave it, its r and v, and the ceiling of the grid (its best bound with every guess right)."""
    level = alpha / len(grid)
    m = len(scores)
    best: dict[str, float | int] = {"epsilon": 0.0, "k_in": grid[0][0], "k_out": grid[0][1], "r": 0, "v": 0}
    ceiling = 0.0
    for k_in, k_out in grid:
        r, v = guesses_right(scores, members, k_in, k_out)
        bound = one_run_epsilon(m, r, v, delta, level)
        ceiling = max(ceiling, one_run_ceiling(m, r, delta, level))
        if bound > best["epsilon"] or best["r"] == 0:
            best = {"epsilon": bound, "k_in": k_in, "k_out": k_out, "r": r, "v": v}
    return {**best, "ceiling": ceiling, "level": level}


__all__ = ["best_one_run_epsilon", "guess_grid", "guesses_right", "one_run_ceiling", "one_run_epsilon",
           "one_run_p_value", "randomized_response_accuracy"]
