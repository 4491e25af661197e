"""concurrent-shuffle Algorithm 4 (cs-linucb) and its central-tree baseline on the engine: the mechanisms'
vectorised streams have the releases' exact laws, the released sums are Definition 3.1's V^t, the
vectorised policy makes the per-run reference's decisions, and the registry entries and their errors."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms import ALGORITHMS, LinearBandit
from dpaudit.algorithms.environments.linear import paper_vectors
from dpaudit.algorithms.linear.cs_linucb import (
    CentralTreeStatistics,
    ConcurrentShuffleStatistics,
    TreeLinUCB,
    central_release_one_run,
    linucb_released_one_run,
    shuffler_count,
    tree_release_one_run,
    tree_shape,
)
from dpaudit.algorithms.registry import describe
from dpaudit.mechanisms.counters.central_tree import CentralTreeMechanism
from dpaudit.mechanisms.counters.concurrent_shuffle import VectorConcurrentTree

ROWS = np.array([[0.6, 0.8, 1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 1.0], [0.3, 0.3, 0.5]])  # (phi, y), dim 2
PIT_LEVEL = 1e-6  # false-failure rate of each probability-integral-transform test below


def _pit(samples: np.ndarray, law) -> np.ndarray:
    """Every coordinate's samples through its exact CDF (the laws have ~1e5 support points per sd, so the
    transform is uniform up to ~1e-5, far below the KS test's resolution at these sample sizes)."""
    out = []
    for c, coordinate in enumerate(law.coordinates):
        cdf = np.cumsum(coordinate.probs)
        index = np.searchsorted(coordinate.outcomes, samples[:, c], side="right") - 1  # P(X <= x)
        out.append(np.where(index >= 0, cdf[np.clip(index, 0, None)], 0.0))
    return np.concatenate(out)


def _stream_counts(tree: VectorConcurrentTree, rows: np.ndarray, runs: int, seed: int) -> np.ndarray:
    stream = tree.stream(runs, np.random.default_rng(seed))
    released = {}
    for row in rows:
        released.update(stream.add(np.broadcast_to(row, (runs, len(row)))))
    return np.concatenate([released[i] for i in range(len(tree.blocks))], axis=1)


@pytest.mark.slow
def test_the_vector_trees_stream_has_the_releases_exact_law():
    tree = VectorConcurrentTree(4, 2, 0.5, 0.1, 2, 1, dim=2)  # blocks of 1 and 2 users
    law = tree.distribution(ROWS)
    streamed = _stream_counts(tree, ROWS, 4000, 1)
    assert streamed.shape == (4000, len(law.coordinates))
    assert stats.kstest(_pit(streamed, law), "uniform").pvalue > PIT_LEVEL
    # the test itself: the mechanism's own sampler passes it, and the stream's noise scaled by 1.1 about the
    # exact means (a block calibrated for eps / 1.1) fails it
    assert stats.kstest(_pit(tree.sample(ROWS, 4000, np.random.default_rng(2)), law), "uniform").pvalue > PIT_LEVEL
    means = np.array([c.outcomes @ c.probs for c in law.coordinates])
    louder = np.round(means + 1.1 * (_stream_counts(tree, ROWS, 4000, 3) - means)).astype(np.int64)
    assert stats.kstest(_pit(louder, law), "uniform").pvalue < PIT_LEVEL


def test_the_binary_trees_stream_has_the_releases_law():
    T, runs = 6, 3000
    mechanism = CentralTreeMechanism.event_level(T, 2, 0.5, 0.1)
    z = np.concatenate([ROWS, ROWS[:2]], axis=0)
    leaves = mechanism.leaf_stream(z)
    stream = mechanism.tree.stream(runs, np.random.default_rng(5))
    prefixes = np.stack([stream.add(np.broadcast_to(leaf, (runs, leaf.size))) for leaf in leaves], axis=1)
    batch = mechanism.tree.release(leaves, runs, np.random.default_rng(6))
    exact = np.cumsum(leaves, axis=0)
    popcount = np.array([bin(t).count("1") for t in range(1, T + 1)])
    for released in (prefixes, batch):  # both are exact + N(0, sigma^2 popcount(t)) per entry
        z_scores = (released - exact) / (mechanism.sigma * np.sqrt(popcount))[None, :, None]
        assert stats.kstest(z_scores.ravel(), "norm").pvalue > PIT_LEVEL


def test_the_noise_proxy_sums_over_the_cover():
    tree = VectorConcurrentTree(27, 3, 0.5, 0.1, 3, 1, dim=2)
    proxies = tree.entry_proxies()
    for t in range(28):
        expected = sum(proxies[tree.blocks[i][0]] for i in tree.cover(t))
        assert tree.noise_proxy(t)[0] == pytest.approx(expected, rel=1e-12)
        assert all(tree.blocks[i][1] + tree.blocks[i][2] <= t for i in tree.cover(t))
    assert len(tree.cover(27)) == 3  # V^n: the d children of the root


def _play(policy: TreeLinUCB, contexts: np.ndarray, rewards: np.ndarray, seed: int) -> np.ndarray:
    runs, n = contexts.shape[:2]
    policy.start(runs, contexts.shape[2], n, np.random.default_rng(seed))
    played = np.empty((runs, n), dtype=np.int64)
    for t in range(1, n + 1):
        arms = policy.choose(t, contexts[:, t - 1])
        played[:, t - 1] = arms
        policy.observe(t, arms, rewards[np.arange(runs), t - 1, arms])
    return played


def _tables(runs: int, n: int, K: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    contexts = paper_vectors(rng, (runs, n, K, d - 1))  # fresh contexts every round (adversarial setting)
    theta = paper_vectors(rng, (runs, d - 1))
    means = np.clip(np.einsum("rnkd,rd->rnk", contexts, theta), 0, 1)
    return contexts, (rng.random(means.shape) < means).astype(float)


@pytest.mark.parametrize("k", [1, 2, "log n"])
@pytest.mark.parametrize("lam", [None, 20.0])  # 20: released V's are often indefinite, so the guard acts
def test_cs_linucb_makes_the_per_run_references_decisions(k, lam):
    runs, n, K, d = 4, 40, 5, 3
    contexts, rewards = _tables(runs, n, K, d, 7)
    statistics = ConcurrentShuffleStatistics(0.5, 0.1, k, record=True)
    policy = TreeLinUCB(statistics, 0.5, 0.1, lam=lam)
    played = _play(policy, contexts, rewards, 8)
    assert policy.lam == (lam if lam is not None else 2 * policy.sigma_tilde * math.sqrt(d))
    if lam is not None:
        assert policy.indefinite > 0
    for r in range(runs):
        release = tree_release_one_run(statistics.mechanism, statistics.block_noise, r)
        np.testing.assert_array_equal(played[r], linucb_released_one_run(policy, contexts[r], rewards[r], release))


@pytest.mark.parametrize("lam", [None, 2.0])
def test_the_central_baseline_makes_the_per_run_references_decisions(lam):
    runs, n, K, d = 4, 40, 5, 3
    contexts, rewards = _tables(runs, n, K, d, 9)
    statistics = CentralTreeStatistics(0.5, 0.1, record=True)
    policy = TreeLinUCB(statistics, 0.5, 0.1, lam=lam)
    played = _play(policy, contexts, rewards, 10)
    for r in range(runs):
        release = central_release_one_run(statistics.mechanism, statistics.node_noise, r)
        np.testing.assert_array_equal(played[r], linucb_released_one_run(policy, contexts[r], rewards[r], release))


@pytest.mark.parametrize("make", [lambda: ConcurrentShuffleStatistics(0.5, 0.1, 2),
                                  lambda: CentralTreeStatistics(0.5, 0.1)])
def test_tree_linucb_plays_a_linear_bandits_blocks_round_by_round(make):
    runs, n, K, d = 3, 30, 5, 3
    contexts, rewards = _tables(runs, n, K, d, 11)
    by_round = TreeLinUCB(make(), 0.5, 0.1)
    played = _play(by_round, contexts, rewards, 12)
    blocks = TreeLinUCB(make(), 0.5, 0.1)
    assert blocks.block_rounds and not blocks.compiled_rounds  # never LinUCB's kernel: it knows no trees
    blocks.start(runs, K, n, np.random.default_rng(12))
    x, table = np.swapaxes(contexts, 0, 1), np.swapaxes(rewards, 0, 1)  # (n, runs, ...)
    arms = np.concatenate([blocks.play_rounds(1, x[:13], table[:13])[0], blocks.play_rounds(14, x[13:], table[13:])[0]])
    np.testing.assert_array_equal(arms.T, played)
    res = dpaudit.simulate(TreeLinUCB(make(), 0.5, 0.1), LinearBandit(K, d, fresh_contexts=True), 30, runs, seed=1)
    assert res.path == "fast"


def test_the_released_sums_are_the_blocks_of_v_t():
    # the vectorised running sums per level against V^t from the tree's closed form, block by block
    runs, n, d = 2, 30, 2
    rng = np.random.default_rng(11)
    X = paper_vectors(rng, (runs, n, d - 1))
    y = rng.random((runs, n))
    statistics = ConcurrentShuffleStatistics(0.5, 0.1, 2, record=True)
    statistics.start(runs, d, n, np.random.default_rng(12))
    tree = statistics.mechanism
    assert (tree.n, tree.shape[2], tree.shape[3]) == tree_shape(n, 2) == (32, 4, 2)  # padded from n = 30
    for t in range(1, n + 1):
        gram, u = statistics.release(t, X[:, t - 1: t], y[:, t - 1: t])
        for r in range(runs):
            cover = tree.cover(t)
            want_u = sum((X[r, s: s + m].T @ y[r, s: s + m] + statistics.block_noise[i][0][r]
                          for i, (_, s, m) in ((i, tree.blocks[i]) for i in cover)), np.zeros(d))
            np.testing.assert_allclose(u[r], want_u, rtol=1e-9, atol=1e-6)
            assert gram[r].shape == (d, d) and np.allclose(gram[r], gram[r].T)


def test_tree_shapes_and_shuffler_counts():
    assert tree_shape(4096, 1) == (4096, 256, 16)  # n^(2/3) = 256 exactly: no rounding up
    assert tree_shape(3**5, 2) == (243, 9, 3)  # the paper's shape d = q^2, d_low = q
    assert tree_shape(256, 8) == (256, 2, 1)
    N, d, d_low = tree_shape(1000, 2)
    assert N == d_low * d**2 >= 1000 and d == math.ceil(1000 ** 0.4)
    assert shuffler_count("log n", 256) == 8 and shuffler_count("logn", 1000) == 10
    with pytest.raises(ValueError, match="k = 9 shufflers exceed ceil.log2 n. = 8 for n = 256"):
        shuffler_count(9, 256)
    with pytest.raises(ValueError, match="k must be an integer >= 1 or 'log n'"):
        shuffler_count("sqrt n", 256)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        shuffler_count(0, 256)


def test_registry_and_bad_input():
    assert describe("cs-linucb").startswith("concurrent-shuffle Algorithm 4: Concurrent Shuffle Private LinUCB")
    assert describe("cs-linucb-central").startswith("concurrent-shuffle Sec. 5 baseline: central-tree LinUCB,")
    policy = ALGORITHMS["cs-linucb"](eps=0.5, delta=0.1, k="log n")
    assert policy.statistics.k_arg == "log n" and policy.notes == []
    with pytest.warns(UserWarning, match="eps = 1.5 is outside Theorem 5.1's range"):
        wide = ALGORITHMS["cs-linucb"](eps=1.5, k=1)
    assert any("eps = 1.5" in note for note in wide.notes)
    with pytest.warns(UserWarning, match="delta = 0.6 is outside"):
        ALGORITHMS["cs-linucb-central"](delta=0.6)
    with pytest.raises(ValueError, match="eps must be > 0"):
        ALGORITHMS["cs-linucb"](eps=0)
    with pytest.raises(ValueError, match="k = 20 shufflers exceed"):
        dpaudit.simulate(ALGORITHMS["cs-linucb"](k=20), LinearBandit(3, 2, fresh_contexts=True), horizon=16, runs=2,
                         seed=0)


def test_notes_reach_the_result_and_the_central_baseline_learns():
    # at eps = 200 (outside the theorem's range: warned and noted) the central tree's noise is small, so the
    # regret of the last rounds falls well below uniform play's (a wide margin, no test statistic)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        policy = ALGORITHMS["cs-linucb-central"](eps=200.0)
    res = dpaudit.simulate(policy, LinearBandit(10, 3), horizon=1500, runs=6, seed=0)
    uniform = (res.means.max(axis=1) - res.means.mean(axis=1)).mean()
    late = (res.pseudo_regret[:, -1] - res.pseudo_regret[:, -10]).mean() / (res.grid[-1] - res.grid[-10])
    assert late < 0.5 * uniform
    assert any("eps = 200" in note for note in res.notes)


def test_the_presets_run_small(tmp_path):
    from dpaudit.audits.experiments import concurrent_shuffle
    from dpaudit.cli import main

    assert concurrent_shuffle.summation_grid(256) == [64, 128, 256] and concurrent_shuffle.summation_grid(32) == [32]
    assert main(["simulate", "concurrent-shuffle/summation", "--runs", "3", "--horizon", "128", "--out",
                 str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "concurrent-shuffle" / "summation" / "summary.json").read_text())
    assert [(r["k"], r["n"], r["shufflers"]) for r in summary["rows"]] == [
        ("1", 64, 1), ("1", 128, 1), ("2", 64, 2), ("2", 128, 2), ("log n", 64, 6), ("log n", 128, 7)]
    assert all(r["median"] >= 0 for r in summary["rows"])
    done = dpaudit.run_preset("concurrent-shuffle/linucb", runs=2, horizon=64, out=tmp_path, workers=1,
                              progress=False)
    assert {label for (_, _, label) in done.results} == {"cs-linucb k=1", "cs-linucb k=log n", "central tree",
                                                        "LinUCB (non-private)"}
    assert all(res.pulls.sum() == 2 * 64 for res in done.results.values())
