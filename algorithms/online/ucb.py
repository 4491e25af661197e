"""UCB1 (Auer, Cesa-Bianchi & Fischer 2002), the non-private reference private-online compares
Hybrid-UCB with at large eps (Section 6: "with large eps Hybrid-UCB is essentially UCB1").

Every arm is pulled once first (rounds 1..K play arms 0..K-1), then round t plays

    argmax_j  mu^_j + sqrt(2 ln t / O_j)

with mu^_j the empirical mean of arm j's O_j pulls (ties: the lowest arm). This is Auer et al.'s
UCB1 as printed (natural log, constant 2); private-online prints no UCB1 of its own.

Paths: the per-round reference (``choose``/``observe``) and the block certificate of
:class:`~dpaudit.algorithms.online.indices.PerPullIndexPolicy` (J's mean after i more pulls is at
least S / (O + i), its value with rewards 0).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .indices import PerPullIndexPolicy


class UCB1(PerPullIndexPolicy):
    """UCB1: empirical mean plus sqrt(2 ln t / O_j), every arm pulled once first (module docstring)."""

    owner: ClassVar[str] = "UCB1"
    source: ClassVar[str] = "UCB1 (Auer et al. 2002), the non-private reference of Section 6"
    anytime: ClassVar[bool] = True  # sqrt(2 ln t / O_j) reads the round, never the horizon

    def __init__(self) -> None:
        self.name = "UCB1"

    def bonus(self, t: Any, pulls: Any) -> np.ndarray:
        return np.sqrt(2 * np.log(t) / pulls)

    def bonus_form(self) -> tuple[str, float, float, float]:
        return "log", 2.0, 0.0, 1.0

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        self.sums = np.zeros((self.runs, self.K))

    def _add(self, rows: np.ndarray, arms: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        self.pulls[rows, arms] += counts
        self.sums[rows, arms] += sums
        self.estimates[rows, arms] = self.sums[rows, arms] / self.pulls[rows, arms]

    def _capacity(self, rows: np.ndarray, arms: np.ndarray) -> np.ndarray:
        return np.full(rows.size, self.horizon, dtype=np.int64)

    def _lower_estimates(self, rows: np.ndarray, arms: np.ndarray, extra: np.ndarray) -> np.ndarray:
        return self.sums[rows, arms][:, None] / (self.pulls[rows, arms][:, None] + extra)

    def lower_parts(self, rows: np.ndarray, arms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.sums[rows, arms], np.empty((0, 0, 0)), np.zeros(rows.size, dtype=np.int64)


__all__ = ["UCB1"]
