"""concurrent-shuffle's Algorithm 4 compiled (algorithms/linear/cs_compiled.py) and the tree's compiled round
(mechanisms/counters/tree_stream_compiled.py) against the numpy path. Deterministic (no statistical test)."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import LinearBandit
from dpaudit.algorithms.environments.linear import paper_vectors
from dpaudit.algorithms.linear.cs_linucb import ConcurrentShuffleStatistics, TreeLinUCB
from dpaudit.mechanisms.shuffle.shuffle_vec import upper_indices

pytest.importorskip("numba")
from dpaudit.mechanisms.counters.tree_stream_compiled import tree_round  # noqa: E402


@pytest.mark.parametrize("k, n", [(1, 40), (2, 30), ("log n", 32), ("log n", 27)])
def test_the_compiled_round_releases_the_numpy_sums(k, n):
    """The same rows into two streams on one seed, one through ``add`` and the statistics' analysis, the other
    through ``draws_ahead`` (in pieces) and the compiled round: the levels' running counts and released sums agree
    bit for bit after every round, and so do the streams' generators at the end (the same draws, in the same
    order)."""
    runs, d = 3, 3
    rng = np.random.default_rng(1)
    X, y = paper_vectors(rng, (runs, n, d - 1)), rng.random((runs, n))
    numpy_path, compiled = ConcurrentShuffleStatistics(0.5, 0.1, k), ConcurrentShuffleStatistics(0.5, 0.1, k)
    numpy_path.start(runs, d, n, np.random.default_rng(2))
    compiled.start(runs, d, n, np.random.default_rng(2))
    stream = compiled.stream
    sizes = np.asarray(stream.tree.sizes, dtype=np.int64)
    constants = stream.debias_constants()
    upper_i, upper_j = (np.ascontiguousarray(a, dtype=np.int64) for a in upper_indices(d))
    fractions = np.empty(stream._rounded.shape[2])
    t = 0
    for piece in (1, 5, 11, n):
        uniforms, noise = stream.draws_ahead(min(piece, n - t))
        for s in range(uniforms.shape[0]):
            t += 1
            gram, u = numpy_path.release(t, X[:, t - 1: t], y[:, t - 1: t])
            for r in range(runs):
                row = np.append(X[r, t - 1], y[r, t - 1])
                tree_round(t, row, d, uniforms[s, :, r], noise[s, :, r], sizes, *constants, upper_i, upper_j,
                           stream._rounded[:, r], compiled._gram[:, r], compiled._u[:, r], fractions)
            stream.t += 1
            np.testing.assert_array_equal(stream._rounded, numpy_path.stream._rounded)
            np.testing.assert_array_equal(compiled._gram, numpy_path._gram)
            np.testing.assert_array_equal(compiled._u, numpy_path._u)
            np.testing.assert_array_equal(compiled._gram.sum(axis=0), gram)
        if t == n:
            break
    assert stream.rng.random() == numpy_path.stream.rng.random()
    with pytest.raises(ValueError, match="overflow"):
        stream.draws_ahead(stream.tree.n - stream.t + 1)  # the tree holds N >= n users (padded)


def test_the_debias_constants_are_the_analyzers():
    statistics = ConcurrentShuffleStatistics(0.5, 0.1, "log n")
    statistics.start(2, 3, 64, np.random.default_rng(0))
    precision, scale, offset, shift = statistics.stream.debias_constants()
    counts = np.random.default_rng(1).integers(0, 10**9, (6, 9))
    for level, protocol in enumerate(statistics.mechanism.protocols):
        assert precision[level] == protocol.rounding.g
        np.testing.assert_array_equal(scale[level] * (counts.astype(float) - offset[level]) - shift[level],
                                      protocol.debias(counts))


def _simulate(k, compiled: bool, environment, horizon: int, runs: int, seed: int):
    policy = dpaudit.algorithms.ALGORITHMS["cs-linucb"](eps=0.5, delta=0.1, k=k)
    policy.compiled_tree_rounds = compiled
    return dpaudit.simulate(policy, environment, horizon, runs, seed=seed)


@pytest.mark.parametrize("k", [1, 2, "log n"])
@pytest.mark.parametrize("fresh", [True, False])
def test_a_simulation_is_the_numpy_paths(k, fresh):
    """Whole simulations (Bernoulli rewards drawn for the played arm, fresh or fixed arms), compiled and numpy: the
    same regret at every recorded round of every run."""
    environment = LinearBandit(6, 4, fresh_contexts=fresh)
    numpy_path = _simulate(k, False, environment, 300, 9, 3)
    compiled = _simulate(k, True, environment, 300, 9, 3)
    assert compiled.path == numpy_path.path == "fast"
    np.testing.assert_array_equal(compiled.pseudo_regret, numpy_path.pseudo_regret)
    np.testing.assert_array_equal(compiled.regret, numpy_path.regret)


@pytest.mark.parametrize("lam", [30.0, 0.3])  # lam 30: some V indefinite; 0.3: the radius grows fast with t
def test_the_model_after_a_block_is_the_numpy_paths(lam):
    """A block of 50 rounds from a reward table in two calls: the arms, the released sums bit for bit, the model to
    rounding, the stream's position and the next radius."""
    runs, n, K, d = 4, 50, 5, 3
    rng = np.random.default_rng(5)
    contexts = paper_vectors(rng, (n, runs, K, d - 1))
    rewards = (rng.random((n, runs, K)) < 0.5).astype(float)
    policies = []
    for compiled in (False, True):
        policy = TreeLinUCB(ConcurrentShuffleStatistics(0.5, 0.1, 2), 0.5, 0.1, lam=lam)
        policy.compiled_tree_rounds = compiled
        policy.start(runs, K, n, np.random.default_rng(6))
        arms = np.concatenate([policy.play_rounds(1, contexts[:17], rewards[:17])[0],
                               policy.play_rounds(18, contexts[17:], rewards[17:])[0]])
        policies.append((policy, arms))
    (numpy_policy, numpy_arms), (policy, arms) = policies
    np.testing.assert_array_equal(arms, numpy_arms)
    np.testing.assert_array_equal(policy.statistics._gram, numpy_policy.statistics._gram)
    np.testing.assert_allclose(policy.V_inv, numpy_policy.V_inv, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(policy.theta, numpy_policy.theta, rtol=1e-9, atol=1e-12)
    assert policy.statistics.stream.t == numpy_policy.statistics.stream.t == n
    assert policy.beta == numpy_policy.beta
    assert policy.indefinite == numpy_policy.indefinite > 0


def test_arms_outside_the_unit_ball_go_round_by_round_and_are_refused():
    """A block whose arms break Assumption 3.1 is played by the numpy path, whose randomizer names the check."""
    runs, K, d = 2, 3, 3
    policy = TreeLinUCB(ConcurrentShuffleStatistics(0.5, 0.1, 1), 0.5, 0.1)
    policy.start(runs, K, 10, np.random.default_rng(0))
    contexts = np.full((4, runs, K, d), 0.9)  # norm 1.56
    with pytest.raises(ValueError, match=r"\|\|phi\|\|"):
        policy.play_rounds(1, contexts, np.zeros((4, runs, K)))
    with pytest.raises(ValueError, match="the rewards are for 2 arms, the contexts for 3"):
        policy.play_rounds(1, np.full((4, runs, K, d), 0.5), np.zeros((4, runs, 2)))


def test_each_round_reads_the_radius_the_per_round_path_reads(monkeypatch):
    """Round t scores with beta_{t-1}, the radius the per-round path set after round t - 1 (one scalar call per
    round there, one array call here: the same values)."""
    from dpaudit.algorithms.linear import cs_linucb

    seen = []
    kernel = cs_linucb.tree_linucb_rounds

    def spy(lo, hi, t0, *args):
        seen.append((t0, args[7].copy()))  # betas
        kernel(lo, hi, t0, *args)

    monkeypatch.setattr(cs_linucb, "tree_linucb_rounds", spy)
    policy = TreeLinUCB(ConcurrentShuffleStatistics(0.5, 0.1, 1), 0.5, 0.1, lam=0.7)
    policy.start(2, 4, 200, np.random.default_rng(0))
    contexts = paper_vectors(np.random.default_rng(1), (150, 2, 4, 2))
    policy.play_rounds(1, contexts, np.zeros((150, 2, 4)))
    assert [t0 for t0, _ in seen] == [1, 65, 129]
    for t0, betas in seen:
        np.testing.assert_array_equal(betas, [float(policy.radius(t - 1, 3)) for t in range(t0, t0 + betas.size)])
