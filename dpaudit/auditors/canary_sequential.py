"""Many-run canary audits that stop as soon as the runs refute the claim: bets on events chosen from the runs before
them (:mod:`.betting`'s e-process), and the fixed-size many-run bound of :mod:`.canary` on every run if the bets never
cross.

Training runs are the expensive part of a canary audit; a sequential audit takes them in order (as they arrive, or
as :class:`~dpaudit.suite.CanaryEntry` draws them) and may stop after any batch:

- the first ``FIRST_BATCH`` runs per side only choose the first bet's event;
- each later batch is bet on: its event (a threshold among the pooled earlier scores' 64 quantiles, its side and
  which distribution comes first) and the bet's size are chosen from the runs before it only, by the growth a bet on
  it would have if the earlier runs' rates (the second side's smoothed to (k + 1) / (n + 2)) were the truth;
  batches grow by half of what has been drawn. The i-th run of each side in a batch are paired, as
  :class:`~.betting.EventBets` pairs outputs; a side with more runs than the other has its extra runs unused;
- the audit stops, refuted, when the bets' wealth reaches 1 / (BETTING_SHARE alpha): by Ville's inequality a true
  claim lets that happen with probability at most BETTING_SHARE alpha, however the events were chosen and whenever
  the audit looks;
- if the runs run out first, :func:`~.canary.multi_run_epsilon` bounds epsilon from all of them at the rest of alpha
  (a union bound: the two tests together refute a true claim with probability at most alpha).

BETTING_SHARE is a half (the black-box auditor gives its bets a tenth): here stopping early is the point, every run
being a training run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.claims import ApproxDP, PureDP
from .betting import EventBets, kelly_growth
from .canary import ORIENTATIONS, candidate_thresholds, multi_run_epsilon, selection_rates

#: share of alpha the bets spend; the rest goes to the fixed-size bound of all the runs if the bets never cross
BETTING_SHARE = 0.5
#: runs per side drawn before the first bet (they only choose its event)
FIRST_BATCH = 100
#: each batch after the first draws this share of the runs drawn so far (at least FIRST_BATCH)
GROWTH = 0.5

Draw = Callable[[str, int], np.ndarray]  # (side "in" or "out", runs) -> that many new scores


def choose_bet(seen: dict[str, np.ndarray], claim: PureDP | ApproxDP) -> tuple[tuple[str, str, float], tuple[float,
                                                                                                             float]]:
    """The event to bet on next, from the runs ``seen`` so far: ((side, first, threshold), (p, q) forecast), the
    event whose bet would grow fastest at the earlier runs' rates."""
    taus = candidate_thresholds(np.concatenate([seen["in"], seen["out"]]))
    best: tuple[float, tuple[str, str, float], tuple[float, float]] = (-1.0, (">=", "in", float(taus[0])), (0.0, 0.0))
    for side, first in ORIENTATIONS:
        second = "out" if first == "in" else "in"
        p, q = selection_rates(seen[first], seen[second], taus, side)
        edge = p - math.exp(float(claim.epsilon)) * q - float(getattr(claim, "delta", 0.0))
        for i in np.flatnonzero(edge > 0):  # a bet grows only where the payoff's mean is positive
            _, growth = kelly_growth(claim, float(p[i]), float(q[i]))
            if growth > best[0]:
                best = (growth, (side, first, float(taus[i])), (float(p[i]), float(q[i])))
    return best[1], best[2]


def _inside(values: np.ndarray, side: str, tau: float) -> np.ndarray:
    return values >= tau if side == ">=" else values < tau


def sequential_canary(draw: Draw, budget: int, claim: PureDP | ApproxDP, alpha: float, rng: np.random.Generator
                      ) -> dict[str, Any]:
    """Run the sequential many-run audit (module docstring) on at most ``budget`` runs per side taken from ``draw``:
    whether the bets crossed, the runs per side used, the bets' wealth and, if they crossed, their certified lower
    bound on the claim's parameter (delta at the claimed epsilon, or epsilon of a pure claim); if the runs ran out,
    the fixed-size many-run result on all of them."""
    if not isinstance(claim, (PureDP, ApproxDP)):
        raise TypeError(f"a sequential canary audit tests pure and approximate DP claims, got {claim!r}")
    if budget < 2 * FIRST_BATCH:
        raise ValueError(f"a sequential canary audit needs at least {2 * FIRST_BATCH} runs per side, got {budget}")
    bets = EventBets(claim, BETTING_SHARE * alpha)
    seen = {side: np.asarray(draw(side, FIRST_BATCH), dtype=float) for side in ("in", "out")}
    batches = 0
    while len(seen["in"]) < budget:
        size = min(max(FIRST_BATCH, int(len(seen["in"]) * GROWTH)), budget - len(seen["in"]))
        (side, first, tau), forecast = choose_bet(seen, claim)
        second = "out" if first == "in" else "in"
        fresh = {s: np.asarray(draw(s, size), dtype=float) for s in ("in", "out")}
        batches += 1
        crossed = bets.add(_inside(fresh[first], side, tau), _inside(fresh[second], side, tau), forecast)
        seen = {s: np.concatenate([seen[s], fresh[s]]) for s in ("in", "out")}
        if crossed:
            return {"crossed": True, "runs": len(seen["in"]), "batches": batches, "log_wealth": bets.peak(),
                    "level": bets.alpha, "parameter_lower": bets.lower_bound(),
                    "event": {"side": side, "threshold": tau, "first": first}}
    fixed = multi_run_epsilon(seen["in"], seen["out"], float(getattr(claim, "delta", 0.0)),
                              (1 - BETTING_SHARE) * alpha, rng)
    return {"crossed": False, "runs": len(seen["in"]), "batches": batches, "log_wealth": bets.peak(),
            "level": bets.alpha, "fixed": fixed}


def array_draw(in_scores: np.ndarray, out_scores: np.ndarray) -> tuple[Draw, int]:
    """A draw that reads two arrays of scores in their order (the runs as they arrived), and the budget they allow
    (the shorter side's length)."""
    position = {"in": 0, "out": 0}
    arrays = {"in": in_scores, "out": out_scores}

    def draw(side: str, count: int) -> np.ndarray:
        start = position[side]
        position[side] = start + count
        return arrays[side][start:start + count]

    return draw, min(len(in_scores), len(out_scores))


__all__ = ["BETTING_SHARE", "FIRST_BATCH", "GROWTH", "array_draw", "choose_bet", "sequential_canary"]
