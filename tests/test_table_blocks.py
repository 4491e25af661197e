"""A policy's blocks over a fixed reward table (dpaudit.bandits.table_blocks): the table's rewards served block by
block (hand-computed), the decisions the blocks give equal to the per-round reference's decision for decision where
the two paths draw alike (DP-SE, whose noise is drawn at an epoch's end on both; the deterministic UCB1 and Follow
the Leader), DP-SE's first elimination against its exact probability, and clear errors. The exact-law tests of
Anytime-Lazy-UCB and Hybrid-UCB (test_lazy_ucb_exact_law.py, test_hybrid_ucb_exact_law.py) hold their blocks to
their laws; the binomial test below fails falsely with probability 1e-4, the rest is deterministic."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpaudit.algorithms.mab.dp_se import DPSEEpoch, DPSuccessiveElimination
from dpaudit.algorithms.online.ftl import FollowTheLeader
from dpaudit.algorithms.online.ucb import UCB1
from dpaudit.bandits.table_blocks import TableRewards
from dpaudit.bandits.transcripts import DecisionTranscript
from dpaudit.mechanisms.noise import LaplaceSum

TABLE = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]])


def test_the_table_is_served_block_by_block_from_each_runs_round():
    rewards = TableRewards(TABLE, t=np.array([1, 2, 3, 4]))
    arms, counts = np.array([0, 1, 1, 0]), np.array([2, 3, 0, 1])
    assert np.allclose(rewards.sums(arms, counts), [0.1 + 0.3, 0.4 + 0.6 + 0.8, 0.0, 0.7])
    assert np.allclose(rewards.values(arms, counts), [0.1, 0.3, 0.4, 0.6, 0.8, 0.7])
    assert np.allclose(rewards.vector_sums(counts), [[0.4, 0.6], [1.5, 1.8], [0, 0], [0.7, 0.8]])
    assert not rewards.binary and TableRewards(np.array([[0.0, 1.0]])).binary
    with pytest.raises(ValueError, match="within the table's 4 rounds"):
        rewards.sums(arms, np.array([2, 3, 0, 2]))


def dp_se_table() -> tuple[DPSuccessiveElimination, np.ndarray, int, float]:
    """DP-SE (eps 1, beta 0.5) on two arms over 3 R_1 rounds: arm 0 pays nothing, arm 1 pays 1 on the first
    ceil(threshold) - 3 of its epoch-1 pulls, so that arm 0 is eliminated when the two Laplace draws'
    difference falls below k - threshold (probability 0.133)."""
    stage = DPSEEpoch(1.0, 0.5, 2, 1)
    R, threshold = stage.pulls, 2 * (stage.h + stage.c) * stage.pulls
    k = int(np.ceil(threshold)) - 3
    table = np.zeros((3 * R, 2))
    table[R:R + k, 1] = 1.0
    return DPSuccessiveElimination(1.0, beta=0.5, T=3 * R), table, R, float(LaplaceSum(2, 1.0).cdf(k - threshold))


def test_dp_se_blocks_decide_as_the_per_round_run_and_eliminate_at_the_exact_rate():
    policy, table, R, p = dp_se_table()
    transcript = DecisionTranscript(policy, arms=2, horizon=len(table), rounds=[R, R + 1, 2 * R + 1, 3 * R])
    assert transcript.plays_blocks
    blocks = transcript.sample(table, 40_000, np.random.default_rng(7))
    per_round = transcript.sample_per_round(table, 40_000, np.random.default_rng(7))
    assert np.array_equal(blocks, per_round)
    # after epoch 1: arm 1 alone if arm 0 went, else arm 0 (both left: arm 0 starts epoch 2)
    eliminated = int((blocks[:, 2] == 1).sum())
    assert 0.1 < p < 0.2 and stats.binomtest(eliminated, len(blocks), p).pvalue > 1e-4
    assert (blocks[:, 0] == 0).all() and (blocks[:, 1] == 1).all() and np.array_equal(blocks[:, 3], blocks[:, 2])


@pytest.mark.parametrize("policy, arms, horizon, rounds", [
    (UCB1(), 3, 300, [3, 4, 40, 41, 200, 300]),  # bandit feedback, sums
    (FollowTheLeader(), 3, 60, [1, 7, 8, 60]),  # full information, every arm's sums
])
def test_deterministic_policies_play_the_same_decisions_by_blocks(policy, arms, horizon, rounds):
    table = np.random.default_rng(horizon).random((horizon, arms)).round(3)
    transcript = DecisionTranscript(policy, arms=arms, horizon=horizon, rounds=rounds)
    assert transcript.plays_blocks
    assert np.array_equal(transcript.sample(table, 3, np.random.default_rng(0)),
                          transcript.sample_per_round(table, 3, np.random.default_rng(0)))


class Blocky:
    """Plays arm 0 in blocks of ``length`` (the per-round path plays arm 0 too)."""

    feedback = "bandit"

    def __init__(self, length):
        self.length = length

    def start(self, runs, arms, horizon, rng):
        self.runs = runs

    def choose(self, t):
        return np.zeros(self.runs, dtype=np.int64)

    def observe(self, t, arms, rewards):
        pass

    def next_block(self, t):
        return np.zeros(self.runs, dtype=np.int64), np.asarray(self.length)

    def observe_block(self, t, arms, pulls):
        pass


@pytest.mark.parametrize("length", [np.zeros(2, dtype=np.int64), np.ones(2), np.ones(3, dtype=np.int64)])
def test_bad_block_lengths_are_a_clear_error(length):
    transcript = DecisionTranscript(Blocky(length), arms=2, horizon=4)
    with pytest.raises(ValueError, match="next_block must give block lengths >= 1 of shape"):
        transcript.sample(np.zeros((4, 2)), 2, np.random.default_rng(0))
    assert (transcript.sample_per_round(np.zeros((4, 2)), 2, np.random.default_rng(0)) == 0).all()
