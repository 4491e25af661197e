"""Counters for binary private summation under continual observation (PSCO, concurrent-shuffle
Section 2.1) run as full-information policies, so that the lower-bound auditor
(:mod:`dpaudit.auditors.lower_bound`) can hold them to Theorem 4.1 on its hard inputs
(:class:`~dpaudit.algorithms.environments.streams.RepeatedBitStream`) with the engine that runs
every other algorithm (:func:`dpaudit.simulate`).

:class:`ContinualCounter` feeds round t's bit b_t (column 0 of the full-information row) to user t of
a counter, an Algorithm 1 schedule of M^sum_bin batches
(:class:`~dpaudit.mechanisms.counters.concurrent_shuffle.ConcurrentShuffleCounter` through its online
:meth:`~dpaudit.mechanisms.counters.concurrent_shuffle.ConcurrentShuffleCounter.stream`), whose estimate S_t
is computed from the released counts only. The arm played at round t + 1 is the harness's read-out of
Definition 2.1's error event at time t: arm 1 when |S_t - sum_{i <= t} b_i| >= ``threshold``, arm 0
otherwise (arm 0 at round 1: no user yet). The read-out uses the true running sum, so the plays are
not a release of the counter: they only let the simulation record, per run, at how many times the
estimate was off (``pulls[:, 1]``; a run erred at some time iff it played arm 1). The simulation
runs n + 1 rounds, the last one reading the estimate after user n.

``counter=None`` is the exact running sum (no noise, not private): outside every privacy class, it
shows that the error event is not met by construction.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import non_negative


class ContinualCounter:
    """A PSCO counter as a full-information policy over two arms (module docstring)."""

    feedback: ClassVar[str] = "full"
    owner: ClassVar[str] = "ContinualCounter"
    anytime: ClassVar[bool] = False  # a counter of n users runs exactly n + 1 rounds

    def __init__(self, counter: Any, threshold: float, label: str | None = None):
        self.counter = counter
        self.threshold = non_negative(self.owner, "threshold", threshold)
        inner = "the exact running sum" if counter is None else counter.name
        self.name = label or f"{inner}, error >= {self.threshold:.4g} read out"

    def __deepcopy__(self, memo: dict) -> ContinualCounter:
        # the engine copies a policy per block of runs; the counter's schedule is never changed, and
        # start() rebinds every piece of state, so a shallow copy is a fresh policy
        twin = copy.copy(self)
        memo[id(self)] = twin
        return twin

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        if arms != 2:
            raise ValueError(f"{self.owner}: plays arm 1 when the estimate errs and arm 0 otherwise, so it needs "
                             f"2 arms, got {arms}")
        self.n = None if self.counter is None else self.counter.n
        if self.n is not None and horizon != self.n + 1:
            raise ValueError(f"{self.owner}: {self.counter.name} holds n = {self.n} users; simulate n + 1 = "
                             f"{self.n + 1} rounds (the last reads the estimate after user n), got {horizon}")
        self.stream = None if self.counter is None else self.counter.stream(runs, rng)
        self.truth = np.zeros(runs)
        self.flag = np.zeros(runs, dtype=np.int64)

    def choose(self, t: int) -> np.ndarray:
        return self.flag

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        if self.n is not None and t > self.n:
            return  # the read-out round after the last user
        bits = np.asarray(rewards)[:, 0]
        self.truth += bits
        estimate = self.truth if self.stream is None else self.stream.add(bits.astype(np.int64))
        self.flag = (np.abs(estimate - self.truth) >= self.threshold).astype(np.int64)


def erred(result: Any, member: int = 0) -> np.ndarray:
    """Per run of a :class:`ContinualCounter` simulation: whether the estimate erred by at least the
    threshold at some time (it played arm 1 at least once)."""
    return np.asarray(result.pulls)[:, 1] > 0


__all__ = ["ContinualCounter", "erred"]
