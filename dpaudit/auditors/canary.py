"""Canary audits from scores: a lower bound on epsilon at a claimed delta from an attack's scores of canaries that
were in the training data and canaries that were not, valid at level alpha by construction, with the ceiling the
data allows stated beside it. Any framework's training can be audited this way: its scores are two arrays.

Two readings of the same two arrays:

- **many runs** (:func:`multi_run_epsilon`): each score is one training run's, the canary in (``in_scores``) or out
  (``out_scores``). The runs are split at random, per side, into a selection share and a confirmation share. On the
  selection share one event is chosen: a threshold among the pooled selection scores' quantiles, the side
  ({score >= tau} or {score < tau}) and which distribution comes first in the DP inequality, by the bound its
  selection rates anticipate on the confirmation share's sizes (:func:`anticipated_bound`). On the confirmation share
  only that event is measured: a one-sided Clopper-Pearson lower
  bound on the first distribution's probability and an upper bound on the second's, each at alpha / 2, give

      epsilon >= log((p_lower - delta) / q_upper),

  true with probability at least 1 - alpha whatever the selection did (it never sees the confirmation runs). The
  ceiling is that bound with the event perfectly separating the confirmation runs: log(((alpha/2)^(1/n_P) - delta) /
  (1 - (alpha/2)^(1/n_Q))).
- **one run** (:func:`one_run_bound`): each score is one canary's in a single run, each canary included
  independently with probability 1/2 (the user's design; the bound is valid only then). Steinke, Nasr and
  Jagielski's bound (:mod:`.one_run`) on the guesses "in" for the k+ highest scores and "out" for the k- lowest, the
  canaries put in random order first so that ties are not broken by membership; several (k+, k-) are tested at
  alpha / (their number) each.

Neither takes an uncorrected best over thresholds: the many-run estimator selects on data it does not confirm on, the
one-run estimator pays a Bonferroni share for each guess it tries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..stats import binomial_lower, binomial_upper
from .one_run import best_one_run_epsilon, guess_grid

#: the default share of each side's runs that selects the event (the rest confirms it): a fifth, which certified more
#: than a half on Gaussian and randomized-response scores at 10^3 and 10^4 runs (benchmarks/canary_peers.py)
SELECTION_SHARE = 0.2
#: thresholds tried on the selection share: the pooled selection scores' quantiles
THRESHOLDS = 64
#: the events' sides and orders: (side, first) with side ">=" or "<" and first "in" or "out"
ORIENTATIONS = ((">=", "in"), (">=", "out"), ("<", "in"), ("<", "out"))


def scores(owner: str, name: str, values: Any, least: int = 1) -> np.ndarray:
    """A side's scores as a finite 1-D float array of at least ``least`` entries, or a ValueError naming it."""
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: {name} must be an array of numbers, got {type(values).__name__}") from None
    if x.ndim != 1 or x.size < least or not np.isfinite(x).all():
        raise ValueError(f"{owner}: {name} must be a finite 1-D array of at least {least} scores, got shape "
                         f"{x.shape}" + ("" if np.isfinite(x).all() else " with non-finite entries"))
    return x


def epsilon_from_rates(p_lower: Any, q_upper: Any, delta: float) -> np.ndarray:
    """log((p_lower - delta) / q_upper), 0 where p_lower <= delta or the ratio is below 1 (no bound)."""
    p, q = np.asarray(p_lower, dtype=float), np.asarray(q_upper, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.log((p - delta) / q)
    return np.where((p > delta) & (bound > 0), bound, 0.0)


def _event_counts(first: np.ndarray, second: np.ndarray, tau: np.ndarray, side: str) -> tuple[np.ndarray, np.ndarray]:
    """How many of each side's scores fall in {score >= tau} (or {score < tau}), for every tau."""
    a, b = np.sort(first), np.sort(second)
    if side == ">=":
        return len(a) - np.searchsorted(a, tau, "left"), len(b) - np.searchsorted(b, tau, "left")
    return np.searchsorted(a, tau, "left"), np.searchsorted(b, tau, "left")


def multi_run_ceiling(first_runs: int, second_runs: int, delta: float, alpha: float) -> float:
    """The largest many-run bound ``first_runs`` and ``second_runs`` confirmation runs can give: an event holding in
    every run of the first side and none of the second."""
    return float(epsilon_from_rates(binomial_lower(first_runs, first_runs, alpha / 2),
                                    binomial_upper(0, second_runs, alpha / 2), delta))


def candidate_thresholds(pooled: np.ndarray, thresholds: int = THRESHOLDS) -> np.ndarray:
    """The thresholds an event is chosen among: the pooled scores' ``thresholds`` upper quantiles, each a score."""
    return np.unique(np.quantile(pooled, np.linspace(0, 1, thresholds + 1)[1:], method="higher"))


def selection_rates(first: np.ndarray, second: np.ndarray, tau: np.ndarray, side: str
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The rates of the events at ``tau`` on the runs a choice is made from: the first side's as observed, the
    second side's smoothed to (k + 1) / (n + 2) (an event no run of the second side fell in is not taken for one that
    never happens there)."""
    k_first, k_second = _event_counts(first, second, tau, side)
    return k_first / len(first), (k_second + 1) / (len(second) + 2)


def anticipated_bound(first: np.ndarray, second: np.ndarray, tau: np.ndarray, side: str, first_runs: int,
                      second_runs: int, delta: float, alpha: float) -> np.ndarray:
    """The bound each event at ``tau`` would give on ``first_runs`` and ``second_runs`` confirmation runs if their
    rates were the selection's: the Clopper-Pearson bounds (alpha / 2 per side) at the counts rate * runs, the second
    side's rate smoothed to (k + 1) / (n + 2) so that an event no selection run of the second side fell in is not
    taken for one that never happens there.

    Selecting by this rather than by the selection runs' own bound keeps the event the larger confirmation share can
    certify (an event of a few in a thousand needs the confirmation's size to be seen): on Gaussian scores its mean
    bound is 92-94% of the best fixed event's at 10^4 runs per side against 87-93% for the selection runs' own bound,
    and as high or higher at 10^3 (:mod:`.canary_limits`; tests/test_canary_audits.py). It decides only which event
    is confirmed, so validity never rests on it."""
    p, q = selection_rates(first, second, tau, side)
    return epsilon_from_rates(binomial_lower(p * first_runs, first_runs, alpha / 2),
                              binomial_upper(q * second_runs, second_runs, alpha / 2), delta)


def multi_run_epsilon(in_scores: Any, out_scores: Any, delta: float, alpha: float, rng: np.random.Generator,
                      selection: float = SELECTION_SHARE, thresholds: int = THRESHOLDS) -> dict[str, Any]:
    """The many-run lower bound (module docstring): the bound, the event (side, threshold, which side first), the
    confirmation counts and sizes, and the ceiling of the confirmation sizes."""
    owner = "multi_run_epsilon"
    x_in, x_out = scores(owner, "in_scores", in_scores, 2), scores(owner, "out_scores", out_scores, 2)
    if not 0 < selection < 1:
        raise ValueError(f"{owner}: selection must be a share in (0, 1), got {selection!r}")
    x_in, x_out = rng.permutation(x_in), rng.permutation(x_out)
    cut_in = min(max(1, int(len(x_in) * selection)), len(x_in) - 1)
    cut_out = min(max(1, int(len(x_out) * selection)), len(x_out) - 1)
    select = {"in": x_in[:cut_in], "out": x_out[:cut_out]}
    confirm = {"in": x_in[cut_in:], "out": x_out[cut_out:]}
    pooled = np.concatenate(list(select.values()))
    taus = candidate_thresholds(pooled, thresholds)
    best = (-1.0, ORIENTATIONS[0], float(taus[0]))
    for side, first in ORIENTATIONS:
        second = "out" if first == "in" else "in"
        values = anticipated_bound(select[first], select[second], taus, side, len(confirm[first]),
                                   len(confirm[second]), delta, alpha)
        i = int(np.argmax(values))
        if values[i] > best[0]:
            best = (float(values[i]), (side, first), float(taus[i]))
    _, (side, first), tau = best
    second = "out" if first == "in" else "in"
    k_first, k_second = (int(k[0]) for k in _event_counts(confirm[first], confirm[second], np.array([tau]), side))
    n_first, n_second = len(confirm[first]), len(confirm[second])
    p_lower = float(binomial_lower(k_first, n_first, alpha / 2))
    q_upper = float(binomial_upper(k_second, n_second, alpha / 2))
    return {"epsilon": float(epsilon_from_rates(p_lower, q_upper, delta)), "side": side, "threshold": tau,
            "first": first, "counts": {first: k_first, second: k_second}, "runs": {first: n_first, second: n_second},
            "selection_runs": {"in": cut_in, "out": cut_out}, "p_lower": p_lower, "q_upper": q_upper,
            "ceiling": multi_run_ceiling(n_first, n_second, delta, alpha)}


def multi_run_power(first_runs: int, second_runs: int, q: float, delta: float, alpha: float, epsilon: float,
                    probability: float = 0.9) -> float:
    """The smallest epsilon' = log((p - delta) / q) at which the confirmation counts of an event refute ``epsilon``
    with probability ``probability``: the event's rate is p on the ``first_runs`` runs of the first side and ``q`` on
    the ``second_runs`` of the second, the counts binomial, and the refutation the Clopper-Pearson bound's (alpha / 2
    per side) above ``epsilon``. Exact over both counts; inf where no p <= 1 reaches ``probability``."""
    from scipy import optimize, stats

    k1, k2 = np.arange(first_runs + 1), np.arange(second_runs + 1)
    lower = binomial_lower(k1, first_runs, alpha / 2) - delta  # increasing in k1
    upper = binomial_upper(k2, second_runs, alpha / 2)
    # the fewest first-side counts that refute, for each second-side count
    needed = np.searchsorted(lower, math.exp(epsilon) * upper, side="right")
    weights = stats.binom.pmf(k2, second_runs, q)

    def refuted(p: float) -> float:
        return float(np.sum(weights * stats.binom.sf(needed - 1, first_runs, p))) - probability

    if refuted(1.0) < 0:
        return math.inf
    low = min(1.0, q * math.exp(epsilon) + delta)  # below this the claim holds on the event: never refuted w.p. 0.9
    if refuted(low) >= 0:
        return epsilon
    p = optimize.brentq(refuted, low, 1.0, xtol=1e-12)
    return math.log((p - delta) / q) if q > 0 else math.inf


def one_run_power(m: int, r: int, delta: float, alpha: float, epsilon: float, probability: float = 0.9) -> float:
    """The smallest epsilon' at which r guesses on m canaries refute ``epsilon`` (at level ``alpha``) with probability
    ``probability`` when each guess is right independently with the accuracy e^eps' / (1 + e^eps') of eps'-DP
    randomized response; inf where even all-right guesses do not refute it."""
    from scipy import optimize, stats

    from .one_run import one_run_epsilon

    if one_run_epsilon(m, r, r, delta, alpha) <= epsilon:
        return math.inf  # even every guess right does not refute it
    # the fewest right guesses that refute: the bound grows with the right guesses, so bisect over them
    low, votes = -1, r  # low refutes nothing (or is -1), votes refutes
    while votes - low > 1:
        middle = (low + votes) // 2
        if one_run_epsilon(m, r, middle, delta, alpha) > epsilon:
            votes = middle
        else:
            low = middle

    def refuted(eps: float) -> float:
        return float(stats.binom.sf(votes - 1, r, 1 / (1 + math.exp(-eps)))) - probability

    high = 60.0
    if refuted(high) < 0:
        return math.inf
    return optimize.brentq(refuted, 0.0, high, xtol=1e-9) if refuted(0.0) < 0 else 0.0


def one_run_bound(in_scores: Any, out_scores: Any, delta: float, alpha: float, rng: np.random.Generator,
                  guesses: Sequence[tuple[int, int]] | None = None) -> dict[str, Any]:
    """The one-run lower bound (module docstring) over ``guesses`` ((k+, k-) pairs; default :func:`~.one_run.
    guess_grid`), the canaries in random order first: the bound, the guesses that gave it, r and v, the ceiling."""
    owner = "one_run_bound"
    x_in, x_out = scores(owner, "in_scores", in_scores), scores(owner, "out_scores", out_scores)
    values = np.concatenate([x_in, x_out])
    members = np.concatenate([np.ones(len(x_in), dtype=bool), np.zeros(len(x_out), dtype=bool)])
    order = rng.permutation(len(values))  # ties among scores are then broken at random, not by membership
    m = len(values)
    grid = list(guess_grid(m) if guesses is None else guesses)
    if not grid or any(not (isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)))
                       or a < 0 or b < 0 or a + b < 1 or a + b > m for a, b in grid):
        raise ValueError(f"{owner}: guesses must be (k+, k-) pairs of non-negative integers with 1 <= k+ + k- <= "
                         f"{m} (the canaries), got {guesses!r}")
    out = best_one_run_epsilon(values[order], members[order], delta, alpha, grid)
    return {**out, "canaries": m, "members": int(members.sum()), "guesses_tried": len(grid)}


def canary_epsilon(in_scores: Any, out_scores: Any, delta: float, alpha: float, rng: np.random.Generator,
                   runs: str, **options: Any) -> dict[str, Any]:
    """:func:`multi_run_epsilon` (``runs="many"``) or :func:`one_run_bound` (``runs="one"``)."""
    if runs == "many":
        return multi_run_epsilon(in_scores, out_scores, delta, alpha, rng, **options)
    if runs == "one":
        return one_run_bound(in_scores, out_scores, delta, alpha, rng, **options)
    raise ValueError(f"canary audits: runs must be 'many' (a score per run) or 'one' (a score per canary of one run), "
                     f"got {runs!r}")


def ceiling_note(result: dict[str, Any], runs: str, delta: float) -> str:
    """What the data could certify at most, in words."""
    if runs == "many":
        sizes = result["runs"]
        return (f"ceiling {result['ceiling']:.4g}: no event can certify more from {sizes['in']} + {sizes['out']} "
                f"confirmation runs at delta {delta:g}")
    return (f"ceiling {result['ceiling']:.4g}: every guess right would certify no more on {result['canaries']} "
            f"canaries at delta {delta:g} ({result['guesses_tried']} guess sets, each at alpha / "
            f"{result['guesses_tried']})")


__all__ = ["ORIENTATIONS", "SELECTION_SHARE", "THRESHOLDS", "anticipated_bound", "candidate_thresholds",
           "canary_epsilon", "ceiling_note", "epsilon_from_rates", "multi_run_ceiling", "multi_run_epsilon",
           "multi_run_power", "one_run_bound", "one_run_power", "scores", "selection_rates"]
