"""The GLM bandits' fast path: a GLMBandit draws blocks of rounds (the per-round path's contexts and realised kappa,
the played arm's reward from one uniform per round and run, with its law), every GLM policy plays them, and
RS-GLinUCB's compiled rounds make the round-by-round decisions (against the per-run reference too), in blocks of
any size, with warm-up rounds and switches inside a block."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
import dpaudit.bandits.simulation
from dpaudit.algorithms import ALGORITHMS, GLMBandit
from dpaudit.algorithms.environments.glm import PlayedGLMRewards
from dpaudit.algorithms.glm import rs_glinucb
from dpaudit.algorithms.glm.base import play_round_by_round
from dpaudit.algorithms.glm.rs_glinucb import RSGLinUCB, rs_glinucb_one_run
from dpaudit.mechanisms.glm.glm_links import LINKS


@pytest.mark.parametrize("generator", ["paper", "repository"])
def test_a_block_of_rounds_is_the_per_round_contexts_kappa_and_means(generator):
    env = GLMBandit(6, 3, 2.5, link="probit", generator=generator)
    one, block = (env.instances(4, np.random.default_rng(1)) for _ in range(2))
    context_one, context_block = np.random.default_rng(2), np.random.default_rng(2)
    one.round = block.round = 250  # the repository's block crosses a chunk of arm sets
    rounds = [one.contexts(context_one) for _ in range(9)]
    reward_rng = np.random.default_rng(3)
    first, _ = block.draw_rounds(4, reward_rng, context_block)  # kappa runs on across blocks
    np.testing.assert_array_equal(first, np.stack(rounds[:4]))
    contexts, draws = block.draw_rounds(5, reward_rng, context_block)
    np.testing.assert_array_equal(contexts, np.stack(rounds[4:]))
    np.testing.assert_allclose(block.kappa, one.kappa, rtol=1e-12)
    np.testing.assert_allclose(block.kappa_star, one.kappa_star, rtol=1e-12)
    np.testing.assert_allclose(block.expected(contexts), np.stack([one.expected(c) for c in rounds[4:]]), rtol=1e-13)
    assert isinstance(draws, PlayedGLMRewards) and draws.noise.shape == (5, 4) and block.round == one.round
    np.testing.assert_allclose(block.expected(rounds[0]), one.expected(rounds[0]))  # other contexts: computed
    assert float(context_one.random()) == float(context_block.random())  # the same draws from the context stream


def test_the_other_glm_instances_draw_their_own_arm_sets_in_blocks():
    from dpaudit.algorithms.environments.glm import FixedArmsGLMBandit, spike_bandit
    for env in (spike_bandit(3), FixedArmsGLMBandit(np.eye(3)[:, :2] * 0.5, np.array([1.0, -1.0]))):
        one, block = (env.instances(3, np.random.default_rng(1)) for _ in range(2))
        context_one, context_block = np.random.default_rng(4), np.random.default_rng(4)
        rounds = [one.contexts(context_one) for _ in range(6)]
        contexts, draws = block.draw_rounds(6, np.random.default_rng(5), context_block)
        np.testing.assert_array_equal(contexts, np.stack(rounds))
        np.testing.assert_allclose(draws.means, np.stack([one.expected(c) for c in rounds]), rtol=1e-13)
        np.testing.assert_array_equal(block.kappa, one.kappa)
        assert block.round == one.round == 6
        if hasattr(one, "last_index"):
            np.testing.assert_array_equal(block.last_index, one.last_index)
    assert dpaudit.simulate(ALGORITHMS["glm-ucb"](S=1.0), spike_bandit(3), 20, 2, seed=0).path == "fast"


def test_the_played_arms_reward_is_bernoulli_of_its_mean():
    env = GLMBandit(3, 2, 1.5, link="logistic")
    inst = env.instances(5, np.random.default_rng(3))
    n = 20_000
    contexts, draws = inst.draw_rounds(n, np.random.default_rng(4), np.random.default_rng(5))
    played = np.tile(np.arange(5) % 3, (n, 1))
    rewards = np.stack([draws.rewards(s, played[s]) for s in range(n)])
    mu = draws.means[np.arange(n)[:, None], np.arange(5), played]
    np.testing.assert_array_equal(rewards, draws.noise < mu)
    # each run's rewards average to their means within 4.5 standard errors (false-failure rate < 5 * 7e-6)
    assert np.all(np.abs((rewards - mu).mean(axis=0)) < 4.5 * np.sqrt((mu * (1 - mu)).mean(axis=0) / n))


GLM_POLICIES = ["glm-ucb", "gloc", "private-glm", "rs-glinucb"]


@pytest.mark.parametrize("name", GLM_POLICIES)
def test_every_glm_policy_plays_blocks_on_a_glm_bandit(name):
    env = GLMBandit(5, 3, 2.0, link="probit")
    kwargs = {"eps": 8.0} if name == "private-glm" else {}
    res = dpaudit.simulate(ALGORITHMS[name](link="probit", S=2.0, **kwargs), env, horizon=60, runs=3, seed=1)
    assert res.path == "fast"
    reference = dpaudit.simulate(ALGORITHMS[name](link="probit", S=2.0, **kwargs), env, horizon=60, runs=3, seed=1,
                                 path="reference")
    assert reference.path == "reference"
    np.testing.assert_array_equal(res.pulls.sum(axis=1), 60)


def test_round_by_round_play_on_a_table_is_the_policys_own_rounds():
    rng = np.random.default_rng(7)
    inst = GLMBandit(5, 3, 2.0, link="probit").instances(3, rng)
    contexts = np.stack([inst.contexts(rng) for _ in range(40)])
    table = (rng.random((40, 3, 5)) < inst.expected(contexts[0])).astype(float)
    a, b = RSGLinUCB("probit", S=2.0), RSGLinUCB("probit", S=2.0)
    for p in (a, b):
        p.start(3, 5, 40, np.random.default_rng(0))
    played, collected = play_round_by_round(a, 1, contexts, table)
    for s in range(40):
        arms = b.choose(s + 1, contexts[s])
        np.testing.assert_array_equal(arms, played[s])
        b.observe(s + 1, arms, table[s, np.arange(3), arms])
    np.testing.assert_array_equal(collected, table[np.arange(40)[:, None], np.arange(3), played])
    with pytest.raises(ValueError, match="table of rewards"):
        play_round_by_round(b, 41, contexts[:2], table[:3])


needs_numba = pytest.mark.skipif(not rs_glinucb.AVAILABLE, reason="numba is not installed (pip install dpaudit[fast])")


@needs_numba
@pytest.mark.parametrize("generator, link, S", [("paper", "probit", 2.0), ("paper", "logistic", 3.0),
                                                ("repository", "probit", 2.5)])
def test_rs_glinucb_compiled_rounds_decide_as_round_by_round(generator, link, S, monkeypatch):
    """Blocks of 7 rounds: refits fall inside blocks and at their ends; both phases and switches occur."""
    monkeypatch.setattr(dpaudit.bandits.simulation, "MAX_BLOCK_ROUNDS", 7)
    env = GLMBandit(8, 3, S, link=link, generator=generator)
    results = {}
    for compiled in (True, False):
        monkeypatch.setattr(rs_glinucb, "AVAILABLE", compiled)
        policy = RSGLinUCB(link, S=S)
        assert policy.compiled_rounds is compiled
        results[compiled] = dpaudit.simulate(policy, env, horizon=400, runs=4, seed=5, grid=[100, 400])
    np.testing.assert_array_equal(results[True].pulls, results[False].pulls)
    np.testing.assert_allclose(results[True].pseudo_regret, results[False].pseudo_regret, rtol=1e-12)
    np.testing.assert_allclose(results[True].regret, results[False].regret, rtol=1e-12)


@needs_numba
@pytest.mark.parametrize("gamma", [None, 0.05])  # 0.05: the elimination by theta_o's bounds binds
def test_rs_glinucb_compiled_rounds_are_the_per_run_reference_and_use_both_phases(gamma, monkeypatch):
    rng = np.random.default_rng(8)
    inst = GLMBandit(6, 3, 2.0, link="probit").instances(3, rng)
    contexts = np.stack([inst.contexts(rng) for _ in range(300)])
    table = (rng.random((300, 3, 6)) < np.stack([inst.expected(c) for c in contexts])).astype(float)
    policy, by_round = RSGLinUCB("probit", S=2.0, gamma=gamma), RSGLinUCB("probit", S=2.0, gamma=gamma)
    for p in (policy, by_round):
        p.start(3, 6, 300, np.random.default_rng(0))
    assert policy.compiled_rounds
    played = np.concatenate([policy.play_rounds(1, contexts[:130], table[:130])[0],
                             policy.play_rounds(131, contexts[130:], table[130:])[0]])
    assert np.all(policy.warmup_counts > 0) and np.all(policy.warmup_counts < 300)
    assert np.all(policy.switches >= 1)
    for r in range(3):
        np.testing.assert_array_equal(played[:, r], rs_glinucb_one_run(policy, contexts[:, r], table[:, r]))
    # the state the rounds leave is the round-by-round path's: the same switches, the same estimates to rounding
    monkeypatch.setattr(rs_glinucb, "AVAILABLE", False)
    np.testing.assert_array_equal(by_round.play_rounds(1, contexts, table)[0], played)
    np.testing.assert_array_equal(policy.switches, by_round.switches)
    np.testing.assert_array_equal(policy.warmup_counts, by_round.warmup_counts)
    for name in ("V_inv", "H", "H_tau_inv", "logdet_tau", "theta_o", "theta_tau"):
        np.testing.assert_allclose(getattr(policy, name), getattr(by_round, name), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(policy.history.contexts, by_round.history.contexts)


@needs_numba
def test_rs_glinucb_compiled_rounds_refuse_bad_blocks():
    policy = RSGLinUCB("probit", S=2.0)
    policy.start(2, 4, 10, np.random.default_rng(0))
    draws = PlayedGLMRewards(np.full((3, 2, 4), 0.5), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="RSGLinUCB: a block of rounds needs contexts of shape"):
        policy.play_rounds(1, np.zeros((3, 4, 3)), draws)
    with pytest.raises(ValueError, match="RSGLinUCB: a table of rewards must have shape"):
        policy.play_rounds(1, np.zeros((3, 2, 4, 3)), np.zeros((3, 2, 5)))
    policy.play_rounds(1, np.full((3, 2, 4, 3), 0.1), draws)
    with pytest.raises(ValueError, match="changed dimension from 3 to 2"):
        policy.play_rounds(4, np.zeros((3, 2, 4, 2)), draws)


def test_only_the_registered_links_are_compiled():
    from dataclasses import replace
    policy = RSGLinUCB(replace(LINKS["probit"], name="probit"), S=2.0)  # the same functions: the same link
    assert policy.compiled_rounds is rs_glinucb.AVAILABLE
    other = RSGLinUCB(replace(LINKS["probit"], mean=LINKS["logistic"].mean), S=2.0)
    assert not other.compiled_rounds
