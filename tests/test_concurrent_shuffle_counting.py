"""The pieces concurrent-shuffle's lower-bound entries run on: the counter's online stream
(:meth:`ConcurrentShuffleCounter.stream`) against the counter's exact law and estimates, the one-pass
covers against Definition 3.1's walk, the exact bit-loss tails, Theorem 4.1's hard streams
(:class:`RepeatedBitStream`) and the counter run as a policy (:class:`ContinualCounter`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms.counting import ContinualCounter, erred
from dpaudit.algorithms.environments import RepeatedBitStream
from dpaudit.mechanisms.counters.concurrent_shuffle import Batch, ConcurrentShuffleCounter
from dpaudit.mechanisms.counters.concurrent_tree import binomial_delta
from dpaudit.mechanisms.noise import FiniteIntegerLaw

EPS, DELTA = 0.9, 1e-3

SCHEDULES = [
    lambda: ConcurrentShuffleCounter.sequential(12, 3, EPS, DELTA),
    lambda: ConcurrentShuffleCounter.binary_tree(16, EPS, DELTA),
    lambda: ConcurrentShuffleCounter.tree(27, 1, EPS, DELTA, 9, 3),
    lambda: ConcurrentShuffleCounter.tree(32, 2, EPS, DELTA, 4, 2),
    lambda: ConcurrentShuffleCounter.lowest_levels(16, 2, EPS, DELTA),
    lambda: ConcurrentShuffleCounter.highest_levels(16, 2, EPS, DELTA),
    # two batches with the same start and size on different shufflers: the tie goes to the lower index
    lambda: ConcurrentShuffleCounter(6, [Batch(0, 0, 3, EPS, DELTA), Batch(1, 0, 3, EPS, DELTA),
                                         Batch(0, 3, 3, EPS, DELTA), Batch(1, 3, 2, EPS, DELTA)]),
]


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_one_pass_covers_are_the_walk(schedule):
    counter = schedule()
    assert [counter._cover(t) for t in range(counter.n + 1)] == counter._covers


@pytest.mark.slow
@pytest.mark.parametrize("schedule", SCHEDULES[:4])
def test_stream_estimates_are_the_counters_and_its_counts_follow_the_law(schedule):
    """Per run different bits: the stream's counts give the counter's own estimates exactly. On one
    input, a batch's count follows its exact law, the bits' sum plus Bin(N', 1/2) (conformance,
    false-failure rate 1e-6)."""
    counter = schedule()
    runs = 2_000
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2, (runs, counter.n))
    stream = counter.stream(runs, np.random.default_rng(4))
    estimates = np.stack([stream.add(bits[:, t]) for t in range(counter.n)], axis=1)
    assert not np.isnan(stream.counts).any()
    assert np.allclose(estimates, counter.estimates(stream.counts))

    x = bits[0]
    law = counter.distribution(x)

    def counts(size, rng):
        fresh = counter.stream(size, rng)
        for t in range(counter.n):
            fresh.add(np.full(size, x[t]))
        return fresh.counts

    for i in (0, len(counter.batches) - 1):
        c = law.coordinates[i]
        reference = FiniteIntegerLaw(int(c.outcomes[0]), np.exp(c.log_probs), name=f"batch {i} count")
        result = dpaudit.audit_sampler(lambda size, rng, i=i: counts(size, rng)[:, i].astype(int), reference,
                                       samples=50_000, seed=5)
        assert result.verdict == "not-refuted", result.witness
    with pytest.raises(ValueError, match="no room"):
        stream.add(bits[:, 0])
    with pytest.raises(ValueError, match="0 or 1"):
        counter.stream(2, rng).add(np.array([0, 2]))


def test_bit_loss_tails_exact():
    """One batch: the log-ratio at count offset j is log(j/(N' - j + 1)); the masses outside [-r, r] are
    binomial tails, and at r = eps they are at most the node's delta-profile bound (Lemma B.2's sets)."""
    counter = ConcurrentShuffleCounter.sequential(8, 4, EPS, DELTA)
    coins = int(counter.coins[0])
    j = np.arange(coins + 2)
    with np.errstate(divide="ignore"):
        ratio = np.log(j) - np.log(coins - j + 1.0)
    ratio[-1] = np.inf
    for r in (0.5, EPS, 2 * EPS):
        out = np.abs(ratio) > r
        p0 = stats.binom.pmf(j, coins, 0.5)[out].sum()
        p1 = stats.binom.pmf(j - 1, coins, 0.5)[out].sum()
        assert counter.bit_loss_tails(1, r) == pytest.approx((p0, p1), rel=1e-12, abs=1e-300)
    # Lemma B.3's bound with the batch's exact delta(eps) (the batch is (eps, delta(eps))-DP)
    assert counter.bit_loss_tails(0, 2 * EPS)[0] <= 2 * binomial_delta(coins, EPS) / min(EPS, 1)
    # two levels: the ratio is the product over the user's batches, a symmetric law under the swap b -> 1 - b
    tree = ConcurrentShuffleCounter.tree(32, 2, EPS, DELTA, 4, 2)
    p0, p1 = tree.bit_loss_tails(5, 2 * EPS)
    assert p0 == pytest.approx(p1, rel=1e-9) and 0 < p0 < 2 * DELTA / min(EPS, 1)
    with pytest.raises(ValueError, match="user must be"):
        tree.bit_loss_tails(32, 1.0)


def test_repeated_bit_stream_is_the_hard_family():
    """Prefix constants, then single / `copies` copies of one fresh bit, fresh bits independent Ber(1/2)."""
    env = RepeatedBitStream(40, 3, (1, 1))
    bits = env.bits(4000, np.random.default_rng(0))
    assert bits.shape == (4000, 40) and (bits[:, :2] == 1).all()
    body = bits[:, 2:]
    for start in range(0, 38, 4):  # single at start, segment at start + 1 .. start + 3
        segment = body[:, start + 1: start + 4]
        assert (segment == segment[:, :1]).all()
    singles, segments = body[:, 0::4], body[:, 1::4]
    fresh = np.concatenate([singles, segments], axis=1).astype(float)
    assert abs(fresh.mean() - 0.5) < 0.01
    corr = np.corrcoef(fresh.T)
    assert np.abs(corr[~np.eye(len(corr), dtype=bool)]).max() < 0.08  # independent fresh bits
    inst = env.instances(2, np.random.default_rng(1))
    rows = [inst.rewards(np.random.default_rng(2)) for _ in range(42)]
    assert (rows[-1] == [0, 1]).all() and (rows[0][:, 0] == 1).all()  # past n: zeros; row = (b, 1 - b)
    with pytest.raises(ValueError, match="prefix"):
        RepeatedBitStream(4, 1, (0, 2))


def test_continual_counter_reads_out_the_error_event():
    """The arm played at round t + 1 flags |S_t - sum b| >= threshold; replayed offline from the same
    stream (same seeds), the flags match; the exact running sum never errs."""
    counter = ConcurrentShuffleCounter.tree(27, 1, EPS, DELTA, 9, 3)
    env = RepeatedBitStream(27, 2, (1,))
    policy = ContinualCounter(counter, threshold=2.0)
    res = dpaudit.simulate(policy, env, 28, 60, seed=7, grid=[28])
    # replay: the engine's streams for the single block of runs (dpaudit.bandits.simulation's seeding)
    root = np.random.SeedSequence(7)
    seq = np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + (0,))
    _, reward_rng, policy_rng, _ = (np.random.default_rng(s) for s in seq.spawn(4))
    runs = 50
    inst = env.instances(runs, None)
    bits = np.stack([inst.rewards(reward_rng)[:, 0] for _ in range(27)], axis=1).astype(int)
    stream = counter.stream(runs, policy_rng)
    errors = np.stack([stream.add(bits[:, t]) for t in range(27)], axis=1) - np.cumsum(bits, axis=1)
    flags = (np.abs(errors) >= 2.0).sum(axis=1)
    assert np.array_equal(res.pulls[:runs, 1], flags)
    assert np.array_equal(erred(res)[:runs], flags > 0)
    exact = dpaudit.simulate(ContinualCounter(None, 0.5), env, 28, 60, seed=7, grid=[28])
    assert not erred(exact).any()
    with pytest.raises(ValueError, match="n \\+ 1"):
        dpaudit.simulate(policy, env, 27, 2, seed=0)


def test_continual_counter_copies_share_the_schedule():
    import copy

    policy = ContinualCounter(ConcurrentShuffleCounter.sequential(8, 4, EPS, DELTA), 1.0)
    twin = copy.deepcopy(policy)
    assert twin is not policy and twin.counter is policy.counter
    assert math.isclose(twin.threshold, 1.0)
