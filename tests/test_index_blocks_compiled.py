"""The compiled block certificate of the per-pull index policies (algorithms/online/blocks_compiled.py) against
the numpy certificate: the same arms, the same blocks, the same next windows, hence the same trajectory from the
same draws. Deterministic (no statistical test)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from dpaudit import simulate
from dpaudit.algorithms.environments.bandits import BernoulliBandit
from dpaudit.algorithms.online import indices
from dpaudit.algorithms.online.hybrid_ucb import HybridUCB
from dpaudit.algorithms.online.ucb import UCB1

pytest.importorskip("numba")


class SmallChunks(HybridUCB):
    chunk = 4  # trees of 8 and 16 leaves span several chunks of p-sum noises


def _pair(policy, runs: int, arms: int, horizon: int, seed: int):
    """The policy twice, started on the same seed: numpy's certificate and the compiled one."""
    numpy_path, compiled = copy.deepcopy(policy), copy.deepcopy(policy)
    numpy_path.compiled_blocks = False
    for p in (numpy_path, compiled):
        p.start(runs, arms, horizon, np.random.default_rng(seed))
    return numpy_path, compiled


POLICIES = [UCB1(), HybridUCB(0.5), HybridUCB(8.0), HybridUCB(64.0), SmallChunks(4.0)]


def _label(policy) -> str:
    return policy.name + (" small chunks" if getattr(policy, "chunk", 0) == 4 else "")


@pytest.mark.parametrize("policy", POLICIES, ids=_label)
@pytest.mark.parametrize("limited", [False, True])
def test_compiled_blocks_makes_the_numpy_blocks(policy, limited):
    """Both paths in lock step over 1,500 rounds of 5 runs on 4 arms (Bernoulli block sums from one stream fed to
    both), blocks cut by a random limit or not: the arms, the block lengths and every run's next windows agree at
    every step, and so do the estimates the blocks leave."""
    runs, arms, horizon = 5, 4, 1500
    means = np.array([0.6, 0.55, 0.58, 0.4])
    numpy_path, compiled = _pair(policy, runs, arms, horizon, seed=11)
    rewards, cuts = np.random.default_rng(12), np.random.default_rng(13)
    t = np.ones(runs, dtype=np.int64)
    steps = certified = 0
    while (t <= horizon).any():
        limit = cuts.integers(1, 300, runs) if limited else None
        played, lengths = numpy_path.next_block(t.copy(), limit=limit)
        played_c, lengths_c = compiled.next_block(t.copy(), limit=limit)
        np.testing.assert_array_equal(played_c, played)
        np.testing.assert_array_equal(lengths_c, lengths)
        np.testing.assert_array_equal(compiled._window, numpy_path._window)
        counts = np.where(t <= horizon, np.minimum(lengths, horizon - t + 1), 0)
        sums = rewards.binomial(counts, means[played]).astype(float)
        block = type("Pulls", (), {"counts": counts, "sums": sums})()
        numpy_path.observe_block(t.copy(), played, block)
        compiled.observe_block(t.copy(), played, block)
        np.testing.assert_array_equal(compiled.estimates, numpy_path.estimates)
        t += counts
        steps += 1
        certified += int((lengths > 1).sum())
    assert certified > 50 and steps < horizon  # blocks were certified, and the runs also switched arms


@pytest.mark.parametrize("policy", [UCB1(), HybridUCB(1.0), SmallChunks(8.0)], ids=_label)
def test_the_per_round_path_makes_the_same_choices_compiled(policy):
    """choose and observe round by round (a decision transcript's path), numpy and compiled, from one seed: the same
    arms and estimates at every round of 400."""
    runs, arms = 6, 3
    numpy_path, compiled = _pair(policy, runs, arms, 400, seed=21)
    rewards = np.random.default_rng(22)
    for t in range(1, 401):
        played = numpy_path.choose(t)
        np.testing.assert_array_equal(compiled.choose(t), played)
        reward = (rewards.random(runs) < np.array([0.5, 0.45, 0.4])[played]).astype(float)
        numpy_path.observe(t, played, reward)
        compiled.observe(t, played, reward)
        np.testing.assert_array_equal(compiled.estimates, numpy_path.estimates)


@pytest.mark.parametrize("policy", [UCB1(), HybridUCB(8.0), HybridUCB(64.0)], ids=lambda p: p.name)
def test_a_simulation_is_the_same_with_either_certificate(policy):
    """The engine's whole result (every recorded regret of every run) is the same bit for bit."""
    env = BernoulliBandit([0.75, 0.70, 0.70, 0.70, 0.70])
    results = []
    for flag in (False, True):
        p = copy.deepcopy(policy)
        p.compiled_blocks = flag
        results.append(simulate(p, env, 2000, 4, 5))
    np.testing.assert_array_equal(results[1].regret, results[0].regret)
    np.testing.assert_array_equal(results[1].pseudo_regret, results[0].pseudo_regret)


def test_the_argmax_is_numpys_with_unpulled_arms_and_nan():
    """An arm never pulled has index +inf (the lowest such arm wins), ties go to the lowest arm, and a NaN
    estimate wins the argmax as numpy's first NaN does."""
    policy = HybridUCB(1.0)
    policy.start(5, 4, 100, np.random.default_rng(0))
    policy.pulls[:] = [[3, 0, 2, 0], [3, 5, 2, 4], [1, 1, 1, 1], [4, 4, 4, 4], [2, 6, 3, 1]]
    policy.estimates[:] = [[0.5, 0.0, 0.1, 0.0], [0.2, 0.9, 0.2, 0.3], [0.4, 0.4, 0.4, 0.4], [0.1, np.nan, 0.2, np.nan],
                           [0.3, 0.8, 0.1, 0.5]]
    t = np.array([10, 11, 12, 13, 14])
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.argmax(policy.index(t), axis=1)
    form = policy.bonus_form()
    played = np.empty(5, dtype=np.int64)
    indices._compiled.choose_arms(t, policy.estimates, policy.pulls, indices.log_table("log2", 100),
                                  indices.log_table("log2", 100), *form[1:], played)
    np.testing.assert_array_equal(played, expected)
    assert (expected[0], expected[2], expected[3]) == (1, 0, 1)  # unpulled arms, a tie, a NaN


@pytest.mark.parametrize("name, function", [("log2", np.log2), ("log", np.log)])
def test_log_tables_are_numpys_logarithms_in_every_layout(name, function):
    """The tables hold what numpy gives for the same integers in small arrays, as the numpy certificate computes
    them (numpy's logarithms are not the C library's, which compiled code would call); a larger size grows them."""
    table = indices.log_table(name, 70_000)
    values = np.random.default_rng(1).integers(1, 70_000, 4000)
    for shape in [(4000,), (1000, 4), (40, 20, 5)]:
        np.testing.assert_array_equal(function(values.reshape(shape).astype(float)), table[values].reshape(shape))
    grown = indices.log_table(name, 300_000)
    assert grown.size >= 300_000 and not grown.flags.writeable
    np.testing.assert_array_equal(grown[:70_000], table[:70_000])


@pytest.mark.parametrize("policy", [UCB1(), HybridUCB(2.0)], ids=lambda p: p.name)
def test_the_compiled_bonus_is_the_numpy_bonus(policy):
    """The compiled bonus (bonus_form) at 10^5 (t, pulls) pairs equals the policy's numpy bonus to the bit."""
    rng = np.random.default_rng(2)
    t = rng.integers(2, 200_000, 100_000)
    pulls = rng.integers(1, 150_000, 100_000)
    form = policy.bonus_form()
    table = indices.log_table(form[0], 200_001)
    log2 = indices.log_table("log2", 150_002)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = policy.bonus(t.astype(float), pulls)
    got = indices._compiled.bonus_values(t, pulls, table, log2, *form[1:])
    np.testing.assert_array_equal(got, expected)
