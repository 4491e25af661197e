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
from dpaudit.algorithms.online.lazy_ucb import AnytimeLazyUCB
from dpaudit.algorithms.online.ucb import UCB1
from dpaudit.bandits.policies import takes_limit
from dpaudit.bandits.table_blocks import TableRewards, run_decision_blocks
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


@pytest.mark.parametrize("policy, horizon, rounds", [
    (AnytimeLazyUCB(1.0), 40, None),  # its noise drawn at start: the same draws on both paths
    (AnytimeLazyUCB(1.0), 40, [5, 6, 20, 40]),
    (UCB1(), 40, None),
])
def test_blocks_cut_to_one_round_play_the_per_round_decisions(policy, horizon, rounds):
    """Every round recorded: every block is one round, and the policy, told so by ``limit``, skips its
    certificate; the decisions stay the per-round run's, decision for decision (which is why a transcript
    recording every round runs round by round)."""
    table = np.random.default_rng(horizon).random((horizon, 2)).round(3)
    transcript = DecisionTranscript(policy, arms=2, horizon=horizon, rounds=rounds)
    assert transcript.plays_blocks and takes_limit(policy)
    blocks = run_decision_blocks(policy, table, transcript.rounds, 200, np.random.default_rng(5))
    assert np.array_equal(blocks, transcript.sample_per_round(table, 200, np.random.default_rng(5)))
    assert np.array_equal(blocks, transcript.sample(table, 200, np.random.default_rng(5)))


def test_a_transcript_plays_blocks_only_when_a_round_goes_unrecorded():
    """Rounds 1..4 of 6 recorded: every block would be one round, so ``sample`` runs round by round and never
    asks for a block; rounds 2 and 4 recorded: it plays blocks."""
    asked = []

    class Counting(Blocky):
        def next_block(self, t):
            asked.append(1)
            return super().next_block(t)

    table = np.zeros((6, 2))
    every = DecisionTranscript(Counting(np.ones(3, dtype=np.int64)), arms=2, horizon=6, rounds=[1, 2, 3, 4])
    assert every.plays_blocks and not every.skips_rounds
    assert every.sample(table, 3, np.random.default_rng(0)).shape == (3, 4) and not asked
    some = DecisionTranscript(Counting(np.ones(3, dtype=np.int64)), arms=2, horizon=6, rounds=[2, 4])
    assert some.skips_rounds and some.sample(table, 3, np.random.default_rng(0)).shape == (3, 2) and asked


@pytest.mark.parametrize("policy", [AnytimeLazyUCB(1.0), UCB1()])
def test_a_limited_certificate_is_the_full_ones_prefix(policy):
    """From the same states, ``next_block(t, limit)`` plays the same arms for min(the unlimited length, limit)
    rounds: the limit only saves work."""
    import copy

    runs, horizon = 300, 200
    rng = np.random.default_rng(2)
    policy.start(runs, 2, horizon, rng)
    table = np.column_stack([0.8 + 0.2 * rng.random(horizon), 0.2 * rng.random(horizon)])  # arm 0 far ahead
    limits = np.random.default_rng(3).integers(1, 6, runs)
    checked = 0
    for t in range(1, 120):
        if t > 2:
            free, cut = copy.deepcopy(policy), copy.deepcopy(policy)
            when = np.full(runs, t)
            arms, lengths = free.next_block(when)
            arms_cut, lengths_cut = cut.next_block(when, limit=limits)
            assert np.array_equal(arms, arms_cut)
            assert np.array_equal(lengths_cut, np.minimum(lengths, limits))
            checked += int((lengths > limits).sum())
            policy = free  # its windows grown by the certificates
        played = policy.choose(t)
        policy.observe(t, played, table[t - 1, played])
    assert checked > 100  # the limit bound often


def test_the_runner_tells_the_policy_each_blocks_cut():
    """Rounds 2 and 5 recorded out of 6: the blocks from rounds 1 and 3 may hold 2 and 3 rounds, and the runner
    says so; a policy without the keyword is called without it."""
    seen = []

    class Told(Blocky):
        def next_block(self, t, limit):
            seen.append(limit.tolist())
            return np.zeros(self.runs, dtype=np.int64), np.full(self.runs, 10)

    out = run_decision_blocks(Told(None), np.zeros((6, 2)), (2, 5), 2, np.random.default_rng(0))
    assert seen == [[2, 2], [3, 3]] and (out == 0).all()
    assert takes_limit(Told(None)) and not takes_limit(Blocky(None)) and not takes_limit(object())


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
    transcript = DecisionTranscript(Blocky(length), arms=2, horizon=4, rounds=[2, 4])  # blocks of two rounds
    with pytest.raises(ValueError, match="next_block must give block lengths >= 1 of shape"):
        transcript.sample(np.zeros((4, 2)), 2, np.random.default_rng(0))
    assert (transcript.sample_per_round(np.zeros((4, 2)), 2, np.random.default_rng(0)) == 0).all()
