"""shuffle-glm's Algorithm 1 (ShuffleGLM) on the engine: the vectorised policy makes the per-run reference's
decisions and sends it the same P_2 inputs, given the same draws; the G-optimal design; P_2's all-runs entry
point has the release's law; the printed parameters' schedule; the scaled warm-up variant (B_1 = alpha): its batches
k >= 2 run, it matches the reference, and the default is unchanged; registry and errors."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms import ALGORITHMS
from dpaudit.algorithms.environments.glm import GLMBandit
from dpaudit.algorithms.glm.design import g_optimal_design, g_optimal_design_one_run, sample_design
from dpaudit.algorithms.glm.shuffle_glm import ShuffleGLM, algorithm1_settings, batch_schedule, grid_schedule
from dpaudit.algorithms.glm.shuffle_glm_reference import shuffle_glm_one_run
from dpaudit.algorithms.registry import describe
from dpaudit.mechanisms.shuffle.vector_summation import OuterProductSummation, ShuffledMatrixSummation


class ShortBatches(ShuffleGLM):
    """ShuffleGLM with three short batches and small lambda and gamma, so that a short test has elimination,
    scaling and P_GD estimates."""

    def settings(self, d, T):
        return dataclasses.replace(super().settings(d, T), lam=1.0, gamma=0.3, batches=(40, 50, T - 90))


class NarrowScaled(ShuffleGLM):
    """The scaled warm-up's own batches with small lambda and gamma, so that its batches k >= 2 eliminate arms."""

    def settings(self, d, T):
        return dataclasses.replace(super().settings(d, T), lam=1.0, gamma=0.3)


def run_by_hand(policy, runs, horizon, seed, K=6, d=2, S=1.5):
    """The policy driven round by round on a GLMBandit(K, d, S): (contexts (T, runs, K, d), arms played (runs, T))."""
    rng = np.random.default_rng(seed)
    env = GLMBandit(K, d, S)
    inst = env.instances(runs, rng)
    contexts = np.stack([inst.contexts(rng) for _ in range(horizon)])
    table = np.stack([(rng.random(c.shape[:2]) < inst.expected(c)) for c in contexts], axis=1).astype(float)
    policy.start(runs, env.arms, horizon, rng)
    played = np.empty((runs, horizon), dtype=np.int64)
    for t in range(1, horizon + 1):
        arms = policy.choose(t, contexts[t - 1])
        played[:, t - 1] = arms
        policy.observe(t, arms, table[np.arange(runs), t - 1, arms])
    return contexts, played


def test_vectorised_decisions_are_the_per_run_references():
    runs, horizon = 4, 130
    policy = ShortBatches(eps=4, S=1.5, record=True)
    contexts, played = run_by_hand(policy, runs, horizon, 11)
    assert len(policy.estimates) == 2 and policy.batch == 2
    uniforms = np.stack(policy.trace["uniforms"], axis=1)
    eliminated = 0
    for r in range(runs):
        releases = [(W[r], None if theta is None else theta[r]) for W, theta in policy.trace["releases"]]
        arms, messages = shuffle_glm_one_run(policy.config, policy, contexts[:, r], uniforms[r], releases)
        np.testing.assert_array_equal(played[r], arms)
        for sent, recorded in zip(messages, policy.trace["messages"], strict=True):
            np.testing.assert_allclose(sent, recorded[r], rtol=1e-12, atol=1e-15)
    # the last batches' designs put no mass on eliminated arms: some arm was eliminated somewhere
    for t in range(91, horizon + 1):
        x = contexts[t - 1]
        for theta, W_inv in policy.estimates:
            centre = np.einsum("rkd,rd->rk", x, theta)
            spread = policy.width * np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", x @ W_inv, x), 0.0))
            eliminated += int(((centre + spread) < (centre - spread).max(axis=1, keepdims=True)).sum())
    assert eliminated > 0


def test_g_optimal_design_reaches_its_bound():
    rng = np.random.default_rng(12)
    arms = rng.standard_normal((30, 25, 4))
    arms[:, :3] *= 5  # a few long arms: the uniform design is far from G-optimal
    allowed = rng.random((30, 25)) < 0.7
    allowed[:, 0] = True
    pi, steps = g_optimal_design(arms, allowed, bound=4 * 1.05)
    A = np.einsum("rk,rki,rkj->rij", pi, arms, arms)
    g = np.einsum("rki,rij,rkj->rk", arms, np.linalg.inv(A), arms)
    assert (np.where(allowed, g, 0).max(axis=1) <= 4 * 1.05 + 1e-9).all() and steps.max() > 0
    assert np.allclose(pi.sum(axis=1), 1) and (pi[~allowed] == 0).all()
    for r in range(3):
        np.testing.assert_allclose(pi[r], g_optimal_design_one_run(arms[r], allowed[r], bound=4 * 1.05), atol=1e-10)
    draws = sample_design(np.broadcast_to(pi[0], (20000, 25)), rng.random(20000))
    assert allowed[0, draws].all()
    # draws follow pi: chi-square at level 1e-3 (false-failure rate 1e-3) over the arms with mass
    seen = np.bincount(draws, minlength=25)[pi[0] > 0]
    assert stats.chisquare(seen, 20000 * pi[0][pi[0] > 0] / pi[0].sum()).pvalue > 1e-3


def test_p2_all_runs_entry_point_has_the_releases_law():
    # release_runs's counts on 3000 copies of one batch against the release's own sample: two-sample KS per
    # label at level 1e-3 (3 labels: false-failure rate < 3e-3)
    rng = np.random.default_rng(13)
    y = rng.standard_normal((8, 2))
    y /= 2 * np.linalg.norm(y, axis=1, keepdims=True)
    protocol = OuterProductSummation(ShuffledMatrixSummation(2.0, 0.01, 2, 8, 0.25))
    batched = protocol.counts_runs(np.broadcast_to(y, (3000, 8, 2)), rng)
    direct = protocol.sample(y, 3000, rng)
    for label in range(3):
        assert stats.ks_2samp(batched[:, label], direct[:, label]).pvalue > 1e-3
    with pytest.raises(ValueError, match=r"\|\|y\|\|\^2 <= Delta"):
        protocol.counts_runs(np.ones((1, 8, 2)), rng)


def test_printed_parameters_make_the_horizon_one_warm_up():
    # Table 2's S = 2 probit instance at eps = 4: B_1 from eq. (6) is far above T
    settings = algorithm1_settings(4, 0.02, 3, 5000, 2.0, 18.4, 2.5)
    assert settings.batches == (5000,)
    assert batch_schedule(10**6, 2, 0.1, 1.0, 1.0)[1] > 100  # small gamma: several batches, alpha = B_2
    assert sum(batch_schedule(10**6, 2, 0.1, 1.0, 1.0)) == 10**6
    res = dpaudit.simulate(ALGORITHMS["shuffle-glm"](eps=4, S=2.0, link="probit"), GLMBandit(20, 3, 2.0, "probit"),
                           horizon=200, runs=2, seed=0)
    assert res.pulls.sum() == 400


def test_scaled_warm_up_plays_batches_after_the_warm_up():
    # T = 2000, d = 2: B_1 = B_2 = alpha = 77, B_3 = alpha sqrt(B_2), the last cut at T (eq. (6)'s B_1 covers T)
    policy = ShuffleGLM(eps=4, S=1.5, warm_up="scaled", record=True)
    settings = policy.settings(2, 2000)
    assert settings.batches == (77, 77, 676, 1170) == grid_schedule(2000, lambda alpha: alpha)
    assert algorithm1_settings(4, 0.02, 2, 2000, 1.5, policy.kappa, policy.kappa_star).batches == (2000,)
    printed = ShuffleGLM(eps=4, S=1.5).settings(2, 2000)
    assert dataclasses.replace(settings, batches=printed.batches) == printed  # only the batches differ
    _, played = run_by_hand(policy, 2, 2000, 21, K=4)
    assert policy.batch == 3 and len(policy.estimates) == 3 and policy.V_inv is not None
    assert len(policy.trace["releases"]) == 4 and policy.trace["releases"][-1][1] is None
    assert [m.shape[1] for m in policy.trace["messages"]] == [77, 77, 676, 1170]
    # batches k >= 2 send scaled arms sqrt(mu'(<x, theta_1>)/beta(x)) x: the width gamma sqrt(kappa) ||x||_{V^-1}
    # exceeds 2S for every arm, so beta = e^(2S), and the logistic mu' <= 1/4 (arms in the unit ball)
    later = np.concatenate(policy.trace["messages"][1:], axis=1)
    assert np.linalg.norm(later, axis=2).max() <= math.sqrt(0.25 * math.exp(-2 * 1.5)) + 1e-12
    assert played.shape == (2, 2000)


@pytest.mark.parametrize("policy_class", [ShuffleGLM, NarrowScaled])
def test_scaled_warm_up_decisions_are_the_per_run_references(policy_class):
    # T = 300: batches (27, 27, 133, 113) on the scaled grid; NarrowScaled also eliminates arms in batches k >= 2
    runs, horizon = 3, 300
    policy = policy_class(eps=4, S=1.5, warm_up="scaled", record=True)
    contexts, played = run_by_hand(policy, runs, horizon, 31)
    assert policy.config.batches == grid_schedule(horizon, lambda alpha: alpha) == (27, 27, 133, 113)
    assert len(policy.estimates) == 3 and policy.batch == 3
    uniforms = np.stack(policy.trace["uniforms"], axis=1)
    for r in range(runs):
        releases = [(W[r], None if theta is None else theta[r]) for W, theta in policy.trace["releases"]]
        arms, messages = shuffle_glm_one_run(policy.config, policy, contexts[:, r], uniforms[r], releases,
                                             warm_up="scaled")
        np.testing.assert_array_equal(played[r], arms)
        for sent, recorded in zip(messages, policy.trace["messages"], strict=True):
            np.testing.assert_allclose(sent, recorded[r], rtol=1e-12, atol=1e-15)
    if policy_class is NarrowScaled:
        eliminated = 0
        ends = np.cumsum(policy.config.batches)
        for t in range(ends[0] + 1, horizon + 1):
            x = contexts[t - 1]
            for theta, W_inv in policy.estimates[: int((ends < t).sum())]:
                centre = np.einsum("rkd,rd->rk", x, theta)
                spread = policy.width * np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", x @ W_inv, x), 0.0))
                eliminated += int(((centre + spread) < (centre - spread).max(axis=1, keepdims=True)).sum())
        assert eliminated > 0


def test_default_warm_up_is_the_printed_one():
    # eq. (6) as before the option: the same schedules, names and draws
    assert batch_schedule(10**6, 2, 0.1, 1.0, 1.0) == batch_schedule(10**6, 2, 0.1, 1.0, 1.0, "printed") == (
        1942, 1585, 63096, 398108, 535269)
    assert algorithm1_settings(4, 0.02, 3, 5000, 2.0, 18.4, 2.5) == algorithm1_settings(4, 0.02, 3, 5000, 2.0, 18.4,
                                                                                        2.5, warm_up="printed")
    default, printed = ShuffleGLM(eps=4, S=2.0, link="probit"), ShuffleGLM(eps=4, S=2.0, link="probit",
                                                                          warm_up="printed")
    assert default.warm_up == "printed" and default.name == printed.name and "warm-up" not in default.name
    assert ShuffleGLM(eps=4, S=2.0, link="probit", warm_up="scaled").name == default.name[:-1] + ", warm-up=scaled)"
    env = GLMBandit(20, 3, 2.0, "probit")
    a = dpaudit.simulate(default, env, horizon=200, runs=2, seed=0)
    b = dpaudit.simulate(printed, env, horizon=200, runs=2, seed=0)
    np.testing.assert_array_equal(a.pulls, b.pulls)
    np.testing.assert_array_equal(a.pseudo_regret, b.pseudo_regret)
    registered = ALGORITHMS["shuffle-glm"](eps=4, S=2.0, link="probit", warm_up="scaled")
    assert registered.warm_up == "scaled" and registered.settings(3, 2000).batches == (77, 77, 676, 1170)


def test_registry_and_bad_input():
    assert describe("shuffle-glm").startswith("shuffle-glm Algorithm 1: ShuffleGLM")
    with pytest.raises(ValueError, match="Theorem 5.1 covers eps in"):
        ShuffleGLM(eps=6)
    with pytest.raises(ValueError, match="Theorem 5.1 covers eps in"):
        ShuffleGLM(eps=1, delta=0.6)
    with pytest.raises(ValueError, match="kappa must be >= kappa_star"):
        ShuffleGLM(eps=1, kappa=1.0, kappa_star=4.0)
    with pytest.raises(ValueError, match="ShuffleGLM: warm_up must be one of 'printed', 'scaled', got 'short'"):
        ShuffleGLM(eps=1, warm_up="short")
    with pytest.raises(ValueError, match="warm_up must be one of"):
        ALGORITHMS["shuffle-glm"](eps=1, warm_up="Scaled")
    with pytest.raises(ValueError, match="batch_schedule: warm_up must be one of"):
        batch_schedule(1000, 2, 1.0, 1.0, 1.0, "alpha")
    policy = ShuffleGLM(eps=1)
    policy.start(2, 3, 10, np.random.default_rng(0))
    policy.choose(1, np.full((2, 3, 4), 0.3))
    policy.observe(1, np.zeros(2, dtype=int), np.zeros(2))
    with pytest.raises(ValueError, match="changed dimension from 4 to 5"):
        policy.choose(2, np.zeros((2, 3, 5)))
