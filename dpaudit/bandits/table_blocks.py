"""A policy's fast path over a fixed reward table: the decisions of
:class:`dpaudit.bandits.transcripts.DecisionTranscript` by blocks.

:func:`dpaudit.simulate` plays a policy's blocks (``next_block``/``observe_block``, :mod:`dpaudit.bandits.policies`)
against a stochastic environment. A privacy audit of the decisions runs the policy on a fixed reward table instead,
and until now did so round by round, so the draws of the fast path (the noise a block prepares ahead, an epoch's
release made at a block's end) were held only by the tests that compare the two paths, never by an audit.
:func:`run_decision_blocks` plays the same blocks over the table: :class:`TableRewards` serves the table's rewards
as the environment's instances serve theirs (a block's sums, its rewards one by one, every arm's sums under full
information), each run at its own next round.

The law is the per-round run's: a block's arm is, by the fast path's contract, the arm the per-round path would
play at every round of the block given the same state, and the rewards are the table's. Blocks are cut at the
recorded rounds (the arm of the block that ends at a recorded round is the decision there), at the memory bound of
the simulation's fast path, and before the last recorded round's reward, which no recorded decision reads (the
per-round run does not observe it either). A block's sums are differences of the table's cumulative sums:
exact for 0/1 rewards, within a few ulps of the per-round additions otherwise (a difference that moves a decision
only on a tie of measure zero under the policies' continuous noise).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .environments import Pulls
from .policies import checked_decisions, feedback_of, takes_limit
from .simulation import MAX_BLOCK_PULLS


class TableRewards:
    """The rewards of a fixed table of shape (horizon, arms) as the instances of a block of runs (the
    :class:`~dpaudit.bandits.environments.Instances` methods a block reads): run r's block starts at its round
    ``t[r]`` (1-based; set before each block) and holds ``counts[r]`` rounds of the table, whatever the runs'
    clocks. Deterministic: the generator the protocol passes is not read."""

    def __init__(self, table: np.ndarray, t: np.ndarray | None = None):
        self.table = np.asarray(table, dtype=float)
        horizon, arms = self.table.shape
        self.cumulative = np.zeros((horizon + 1, arms))
        np.cumsum(self.table, axis=0, out=self.cumulative[1:])
        self.binary = bool(np.isin(self.table, (0.0, 1.0)).all())
        self.means = self.table.mean(axis=0)
        self.t = t

    def _start(self, counts: np.ndarray) -> np.ndarray:
        start = np.asarray(self.t, dtype=np.int64) - 1
        if start.shape != np.shape(counts) or (start < 0).any() or (start + counts > len(self.table)).any():
            raise ValueError(f"TableRewards: blocks must lie within the table's {len(self.table)} rounds")
        return start

    def sums(self, arms: np.ndarray, counts: np.ndarray, rng: Any = None) -> np.ndarray:
        """Run r's reward sum over its block's rounds of arm ``arms[r]``, shape (runs,)."""
        counts = np.asarray(counts, dtype=np.int64)
        start, arms = self._start(counts), np.asarray(arms, dtype=np.int64)
        return self.cumulative[start + counts, arms] - self.cumulative[start, arms]

    def vector_sums(self, counts: np.ndarray, rng: Any = None) -> np.ndarray:
        """Every arm's reward sum over run r's block, shape (runs, arms) (full information)."""
        counts = np.asarray(counts, dtype=np.int64)
        start = self._start(counts)
        return self.cumulative[start + counts] - self.cumulative[start]

    def values(self, arms: np.ndarray, counts: np.ndarray, rng: Any = None) -> np.ndarray:
        """The block's rewards one by one, run after run (``counts[r]`` of arm ``arms[r]`` for run r)."""
        counts = np.asarray(counts, dtype=np.int64)
        start, arms = self._start(counts), np.asarray(arms, dtype=np.int64)
        run = np.repeat(np.arange(counts.size), counts)
        step = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        return self.table[start[run] + step, arms[run]]


def run_decision_blocks(policy: Any, table: np.ndarray, rounds: tuple[int, ...], size: int,
                        rng: np.random.Generator, owner: str = "DecisionTranscript") -> np.ndarray:
    """The arms ``policy`` plays at ``rounds`` (1-based, increasing) in ``size`` runs over ``table`` (shape
    (horizon, arms)), by the policy's blocks (module docstring); the same law as
    :func:`dpaudit.bandits.policies.run_decisions`, the per-round reference."""
    horizon, arms = table.shape
    policy.start(size, arms, horizon, rng)
    full = feedback_of(policy) == "full"
    rewards = TableRewards(table)
    marks = np.asarray(rounds, dtype=np.int64)
    out = np.empty((size, marks.size), dtype=np.int64)
    t = np.ones(size, dtype=np.int64)  # each run's next round
    column = np.zeros(size, dtype=np.int64)  # each run's next recorded round
    longest = max(1, MAX_BLOCK_PULLS // max(size, 1))  # the values of a block stay within the engine's bound
    limited = takes_limit(policy)
    while True:
        active = column < marks.size
        if not active.any():
            return out
        first = int(t[active].min())
        until = marks[np.minimum(column, marks.size - 1)]  # cut at the next recorded round
        cut = np.where(active, np.minimum(until - t + 1, longest), 1)
        # with every round recorded every block is cut to one round: told so, a policy skips its certificate
        played, lengths = policy.next_block(t.copy(), limit=cut.copy()) if limited else policy.next_block(t.copy())
        played, lengths = np.asarray(played), np.asarray(lengths)
        where = f"block starting at round {first} (or later)"
        if played.shape == (size,):
            played = np.where(active, played, 0)  # a finished run's arm is never read
        played = checked_decisions(owner, played, (size,), arms, where)
        if lengths.shape != (size,) or lengths.dtype.kind not in "iu" or (lengths[active] < 1).any():
            raise ValueError(f"{owner}: the policy's next_block must give block lengths >= 1 of shape ({size},) "
                             f"in the {where}, got {lengths!r}")
        counts = np.where(active, np.minimum(lengths, cut), 0)
        reached = active & (t + counts - 1 == until)
        out[reached, column[reached]] = played[reached]
        last = reached & (column == marks.size - 1)  # its reward is read by no recorded decision
        rewards.t = t
        policy.observe_block(t.copy(), played, Pulls(rewards, played, counts - last, rng, full))
        t = t + counts
        column = column + reached


__all__ = ["TableRewards", "run_decision_blocks"]
