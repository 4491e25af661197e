"""Explore-then-commit with a fixed exploration: the reference policy whose expected regret is known in closed
form, for validating the regret auditors (``dpaudit.testing`` offers it to users' tests too)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import integer
from .environments import bernoulli_means


class ExploreThenCommit:
    """Fixed-exploration explore-then-commit, a policy whose expected regret is known exactly (for
    validating the regret auditors): pull arm 0 for rounds 1..m, arm 1 for m+1..2m, ..., then play the
    arm with the largest reward sum to the end (ties broken uniformly at random). It has the block
    fast path (its arm is fixed in advance for each phase); :func:`explore_then_commit_regret` gives
    its expected pseudo-regret on Bernoulli arms. ``reverse=True`` explores the arms in the reverse
    order (the last arm first): from round K m on its expected regret is exactly the same, while on
    common random numbers its runs differ, which makes it the null case of an ordering test."""

    feedback = "bandit"
    anytime = True  # m is fixed: the exploration does not depend on the horizon

    def __init__(self, m: int, reverse: bool = False):
        self.m = integer("ExploreThenCommit", "m", m, 1)
        self.reverse = bool(reverse)
        self.name = f"ExploreThenCommit(m={self.m}{', reverse' if self.reverse else ''})"

    def exact_regret(self, environment: Any, rounds: Any, horizon: int) -> Any:
        """The exact expected pseudo-regret on a two-armed Bernoulli bandit with fixed means
        (:func:`explore_then_commit_regret`; the order of exploration does not change it after round 2m,
        and before it the explored arm's gap is charged round by round)."""

        means = bernoulli_means(environment, arms=2)
        t = np.asarray(rounds, dtype=float)
        regret = explore_then_commit_regret(means, self.m, t)
        if self.reverse:  # the exploration phase charges the arms' gaps in the other order
            gaps = means.max() - means
            forward = np.minimum(t, self.m) * gaps[0] + np.clip(t - self.m, 0, self.m) * gaps[1]
            backward = np.minimum(t, self.m) * gaps[1] + np.clip(t - self.m, 0, self.m) * gaps[0]
            regret = regret - forward + backward
        return regret

    def _explored(self, t: Any) -> Any:
        """The arm explored at round(s) t <= K m."""
        arm = (t - 1) // self.m
        return self.arms - 1 - arm if self.reverse else arm

    def start(self, runs: int, arms: int, horizon: int, rng: Any) -> None:

        self.rng, self.arms, self.horizon = rng, arms, horizon
        self.sums = np.zeros((runs, arms))
        self.leader = np.full(runs, -1, dtype=np.int64)

    def _commit(self, rows: Any) -> None:

        sums = self.sums[rows]
        best = sums == sums.max(axis=1, keepdims=True)
        self.leader[rows] = np.argmax(self.rng.random(sums.shape) * best, axis=1)  # uniform among the ties

    def choose(self, t: int) -> Any:

        if t <= self.arms * self.m:
            return np.full(len(self.sums), self._explored(t), dtype=np.int64)
        return self.leader

    def observe(self, t: int, arms: Any, rewards: Any) -> None:

        if t <= self.arms * self.m:
            self.sums[np.arange(len(arms)), arms] += rewards
            if t == self.arms * self.m:
                self._commit(slice(None))

    def next_block(self, t: Any) -> tuple[Any, Any]:

        exploring = t <= self.arms * self.m
        arms = np.where(exploring, self._explored(t), np.maximum(self.leader, 0))
        lengths = np.where(exploring, self.m - (t - 1) % self.m, np.maximum(self.horizon - t + 1, 1))
        return arms.astype(np.int64), lengths.astype(np.int64)

    def observe_block(self, t: Any, arms: Any, pulls: Any) -> None:

        exploring = (t <= self.arms * self.m) & (pulls.counts > 0)
        rows = np.flatnonzero(exploring)
        self.sums[rows, arms[rows]] += pulls.sums[rows]
        done = rows[t[rows] + pulls.counts[rows] - 1 == self.arms * self.m]
        if done.size:
            self._commit(done)


def explore_then_commit_regret(means: Any, m: int, rounds: Any) -> Any:
    """The exact expected pseudo-regret of :class:`ExploreThenCommit` (``m`` pulls per arm) on two
    Bernoulli arms with ``means`` at each of ``rounds``: the exploration's gaps, then
    (T - 2m) Delta P(wrong commit), with P(wrong commit) = P(S_worse > S_better) + P(S_worse = S_better) / 2
    for independent S ~ Binomial(m, mu), summed exactly over the binomial laws."""
    from scipy import stats

    mu = np.asarray(means, dtype=float)
    if mu.shape != (2,):
        raise ValueError(f"explore_then_commit_regret: two arms' means, got {means!r}")
    t = np.asarray(rounds, dtype=float)
    gaps = mu.max() - mu
    k = np.arange(m + 1)
    worse, better = (1, 0) if mu[0] >= mu[1] else (0, 1)
    p_worse, p_better = stats.binom.pmf(k, m, mu[worse]), stats.binom.pmf(k, m, mu[better])
    below = np.concatenate([[0.0], np.cumsum(p_better)[:-1]])  # P(S_better < k)
    wrong = float(np.sum(p_worse * below) + 0.5 * np.sum(p_worse * p_better))
    explore = np.minimum(t, m) * gaps[0] + np.clip(t - m, 0, m) * gaps[1]
    return explore + np.clip(t - 2 * m, 0, None) * gaps.max() * wrong

__all__ = ["ExploreThenCommit", "explore_then_commit_regret"]
