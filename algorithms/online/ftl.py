"""private-online A5: Follow-the-Leader (Section 5, lines 173-175), the non-private full-information
learner FTNL privatises: round t plays the action with the largest cumulative reward over rounds
1..t-1 (the highest empirical mean over all history; ties, including round 1, go to the lowest
action, the paper being silent).

Paths: the per-round reference (``choose``/``observe``) and a block fast path. One round changes any
two actions' cumulative rewards' difference by at most 1 (rewards lie in [0, 1]), so if the leader J
leads every other action by d, it still leads by more than 0 after any i < d rounds, whatever the
rewards: the block plays J for 1 + max(0, floor(d) - 1) rounds (one round of the lead is kept as
slack, so float rounding of the sums never decides), with every action's reward sum over the block.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import integer


class FollowTheLeader:
    """Follow-the-Leader over K actions, full information (module docstring)."""

    owner: ClassVar[str] = "FollowTheLeader"
    feedback: ClassVar[str] = "full"
    paper: ClassVar[str] = "private-online"
    source: ClassVar[str] = "FTL, Section 5 (A5)"
    anytime: ClassVar[bool] = True

    def __init__(self) -> None:
        self.name = "FTL"

    def __repr__(self) -> str:
        return self.name

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        self.runs = integer(self.owner, "runs", runs, 0)
        self.K = integer(self.owner, "arms", arms, 1)
        integer(self.owner, "horizon", horizon, 1)
        self.sums = np.zeros((self.runs, self.K))  # cumulative reward of every action

    def choose(self, t: int) -> np.ndarray:
        return np.argmax(self.sums, axis=1)

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        self.sums += rewards

    def next_block(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        leader = np.argmax(self.sums, axis=1)
        lead = self.sums[np.arange(self.runs), leader][:, None] - self.sums
        lead[np.arange(self.runs), leader] = np.inf
        margin = lead.min(axis=1) if self.K > 1 else np.full(self.runs, np.inf)
        extra = np.clip(np.floor(np.minimum(margin, 2.0**62)) - 1, 0, None).astype(np.int64)
        return leader, 1 + extra

    def observe_block(self, t: np.ndarray, arms: np.ndarray, pulls: Any) -> None:
        self.sums += pulls.sums


__all__ = ["FollowTheLeader"]
