"""Linear contextual bandits on the engine: shuffle-lcb's instance generators, contexts handed to a
contextual policy, per-round regret against the round's best mean, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import BernoulliBandit, LinearBandit


class Recorder:
    """A contextual policy that plays arm 0 and keeps the contexts it is shown (the engine runs a copy)."""

    feedback = "bandit"
    contextual = True
    shown: list = []

    def start(self, runs, arms, horizon, rng):
        self.runs, self.rng = runs, rng

    def choose(self, t, contexts):
        Recorder.shown.append(np.array(contexts, copy=True))
        self.rng.random(3)  # its own stream: must not move the contexts
        return np.zeros(self.runs, dtype=int)

    def observe(self, t, arms, rewards):
        pass


class FirstArm:
    """A K-armed policy that ignores contexts."""

    feedback = "bandit"

    def start(self, runs, arms, horizon, rng):
        self.runs = runs

    def choose(self, t):
        return np.zeros(self.runs, dtype=int)

    def observe(self, t, arms, rewards):
        pass


def test_the_papers_generator():
    inst = LinearBandit(100, 5).instances(7, np.random.default_rng(0))
    assert inst.features.shape == (7, 100, 5) and inst.theta.shape == (7, 5)
    np.testing.assert_allclose(np.linalg.norm(inst.features, axis=-1), 1.0)
    np.testing.assert_allclose(np.linalg.norm(inst.theta, axis=-1), 1.0)
    np.testing.assert_allclose(inst.features[..., -1], 1 / np.sqrt(2))
    assert inst.means.shape == (7, 100) and inst.means.min() >= 0 and inst.means.max() <= 1


def test_the_released_codes_generator():
    inst = LinearBandit(100, 5, "released-code").instances(3, np.random.default_rng(1))
    basis = np.eye(5)
    basis[:, -1] = 1.0
    np.testing.assert_array_equal(inst.features[:, :5], np.broadcast_to(basis, (3, 5, 5)))
    np.testing.assert_allclose(np.linalg.norm(inst.features[:, 5:], axis=-1), np.sqrt(2))
    np.testing.assert_allclose(np.linalg.norm(inst.theta, axis=-1), 1 / np.sqrt(2))
    np.testing.assert_allclose(inst.theta[:, -1], 0.5)
    assert inst.means.min() >= 0 and inst.means.max() <= 1


def test_contexts_reach_the_policy_and_are_common_to_policies_on_one_seed():
    env = LinearBandit(6, 3, fresh_contexts=True)
    seen = []
    for _ in range(2):
        Recorder.shown = []
        res = dpaudit.simulate(Recorder(), env, horizon=5, runs=4, seed=3)
        seen.append(np.array(Recorder.shown))
    assert seen[0].shape == (5, 4, 6, 3)
    np.testing.assert_array_equal(seen[0], seen[1])
    assert not np.allclose(seen[0][0], seen[0][1])  # fresh every round
    assert res.path == "reference" and np.isnan(res.means).all()


def test_fixed_arms_regret_is_the_gap_of_the_arm_played():
    res = dpaudit.simulate(FirstArm(), LinearBandit(10, 4), horizon=50, runs=5, seed=0, grid=[10])
    gap = res.means.max(axis=1) - res.means[:, 0]
    np.testing.assert_allclose(res.pseudo_regret, np.column_stack([10 * gap, 50 * gap]), atol=1e-9)


def test_fresh_contexts_regret_is_against_each_rounds_best_arm():
    # arm 0 every round: the pseudo-regret grows by max_a mu_a(t) - mu_0(t) >= 0, strictly on average
    res = dpaudit.simulate(FirstArm(), LinearBandit(8, 3, fresh_contexts=True), horizon=40, runs=6, seed=2)
    assert (np.diff(res.pseudo_regret, axis=1) >= -1e-12).all() and res.pseudo_regret[:, -1].min() > 0


def test_mismatches_and_bad_parameters():
    with pytest.raises(ValueError, match="chooses from contexts"):
        dpaudit.simulate(Recorder(), BernoulliBandit([0.5, 0.4]), horizon=5, runs=2)
    with pytest.raises(ValueError, match="has no fast path"):
        dpaudit.simulate(dpaudit.algorithms.ALGORITHMS["se"](), LinearBandit(4, 2), horizon=5, runs=2, path="fast")
    with pytest.raises(ValueError, match="needs arms >= dimension"):
        LinearBandit(3, 5, "released-code")
    with pytest.raises(ValueError, match="fresh contexts are drawn with the paper's generator"):
        LinearBandit(10, 5, "released-code", fresh_contexts=True)
    with pytest.raises(ValueError, match="dimension must be an integer >= 2"):
        LinearBandit(10, 1)
    with pytest.raises(ValueError, match="generator must be one of"):
        LinearBandit(10, 3, "vaswani")
    with pytest.raises(ValueError, match="Gaussian rewards need their standard deviation"):
        LinearBandit(10, 3, rewards="gaussian")
    with pytest.raises(ValueError, match="Bernoulli rewards have none"):
        LinearBandit(10, 3, sigma=0.1)
    with pytest.raises(ValueError, match="rewards must be one of"):
        LinearBandit(10, 3, rewards="poisson")


def test_gaussian_rewards_are_clipped_normals_with_the_clipped_means():
    env = LinearBandit(4, 3, rewards="gaussian", sigma=0.5)
    inst = env.instances(2, np.random.default_rng(0))
    assert not inst.binary and "Gaussian rewards sigma=0.5" in env.name
    rng = np.random.default_rng(1)
    draws = np.stack([inst.rewards(rng, inst.features) for _ in range(20000)])  # (n, runs, K)
    assert draws.min() >= 0 and draws.max() <= 1 and 0 < np.mean(draws == 0) and 0 < np.mean(draws == 1)
    # 20000 draws of a [0, 1] variable: standard error <= 0.5/sqrt(20000) = 0.0035; 0.02 is 5.6 of them
    # (false failure < 1e-7 per coordinate)
    np.testing.assert_allclose(draws.mean(axis=0), inst.means, atol=0.02)
    loc = np.einsum("rkd,rd->rk", inst.features, inst.theta)
    assert (np.argsort(inst.means, axis=1) == np.argsort(loc, axis=1)).all()  # same arm order
