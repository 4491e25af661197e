"""shuffle-glm's Algorithm 2 on the engine (JDP-GLM with the printed parameters, Private-GLM as the experiments
run it): the vectorised policy makes the per-run reference's decisions given the same private draws, its
noise has its mechanisms' laws, the DP-SGD release and the tree stream have their exact laws, and the
registry entries and errors."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms import ALGORITHMS
from dpaudit.algorithms.environments.glm import GLMBandit
from dpaudit.algorithms.glm import algorithm2
from dpaudit.algorithms.glm.algorithm2_reference import algorithm2_one_run
from dpaudit.algorithms.glm.jdp_glm import JDPGLM
from dpaudit.algorithms.glm.private_glm import PrivateGLM, per_call_budget
from dpaudit.algorithms.registry import describe
from dpaudit.mechanisms.accounting import advanced_composition
from dpaudit.mechanisms.glm.exploration_set import SymmetricGaussianTree, node_noise_sigma
from dpaudit.mechanisms.training.dp_sgd import DPSGD, rdp_epsilon

# the experiments' delta = zeta is outside Theorem 6.2 (delta > zeta): Private-GLM warns, tested below
pytestmark = pytest.mark.filterwarnings("ignore:.*needs delta > zeta:UserWarning")


def _play(policy, env, runs, horizon, seed):
    """Drive the policy by hand on pre-drawn contexts (horizon, runs, K, d) and reward tables (runs, horizon, K)."""
    rng = np.random.default_rng(seed)
    inst = env.instances(runs, rng)
    contexts = np.stack([inst.contexts(rng) for _ in range(horizon)])
    table = np.stack([(rng.random(c.shape[:2]) < inst.expected(c)) for c in contexts], axis=1).astype(float)
    policy.start(runs, env.arms, horizon, rng)
    played = np.empty((runs, horizon), dtype=np.int64)
    for t in range(1, horizon + 1):
        arms = policy.choose(t, contexts[t - 1])
        played[:, t - 1] = arms
        policy.observe(t, arms, table[np.arange(runs), t - 1, arms])
    return contexts, table, played


def _replay(policy, contexts, table, played, runs):
    trace = policy.trace
    code_tree = getattr(policy, "tree", None) == "released-code"
    if code_tree:  # per round {node: (runs, d, d)}: per run, every node's draw
        noise_V, noise_H = ([{c: v[r] for step in trace[key] for c, v in step.items()} for r in range(runs)]
                            for key in ("noise_V", "noise_H"))
    else:
        noise_V, noise_H = np.stack(trace["noise_V"], axis=1), np.stack(trace["noise_H"], axis=1)
    calls_made = 0
    for r in range(runs):
        fits = {(kind, t): (int(n[list(idx).index(r)]), out[list(idx).index(r)])
                for kind, t, idx, n, out in trace["fits"] if r in idx}

        def fitted(kind, t, n, fits=fits):
            size, theta = fits[(kind, t)]  # a KeyError: the reference calls where the policy did not
            assert size == n
            return theta

        arms, calls = algorithm2_one_run(policy.config, policy.link, contexts[:, r], table[r], noise_V[r], noise_H[r],
                                         fitted, variant=policy.variant,
                                         tree="released-code" if code_tree else "binary")
        np.testing.assert_array_equal(played[r], arms)
        assert sorted(calls) == sorted((kind, t, size) for (kind, t), (size, _) in fits.items())
        calls_made += len(calls)
    return calls_made


class ShortScale(PrivateGLM):
    """Private-GLM with lambda, the threshold, the trees' noise and count1_cutoff scaled down, so that within a
    short test criterion I fires in some rounds, criterion II switches (det(H) doubles), and theta_o's stop
    rule acts."""

    def settings(self, d, T):
        return dataclasses.replace(super().settings(d, T), lam=2.0, threshold=0.08, count1_cutoff=5, count2_cutoff=3,
                                   sigma_V=0.2, sigma_H=0.05)


def test_private_glm_decisions_are_the_per_run_references():
    # both branches, both optimizers and the stop rule of theta_o are exercised
    runs, horizon = 4, 300
    policy = ShortScale(eps=500, S=2.0, record=True)
    contexts, table, played = _play(policy, GLMBandit(6, 2, 2.0), runs, horizon, seed=1)
    summary = policy.summary()
    assert (summary["explore_rounds"] > 0).all() and (summary["explore_rounds"] < horizon).all()
    assert (summary["count1"] == policy.config.count1_cutoff).any() and (summary["count2"] > 0).any()
    assert _replay(policy, contexts, table, played, runs) > 0


def test_the_released_codes_algorithm_two_makes_the_per_run_references_decisions():
    # the cited code's departures (variant="released-code"), both branches and both optimizers exercised
    runs, horizon = 4, 300
    policy = ShortScale(eps=500, S=2.0, record=True, variant="released-code")
    contexts, table, played = _play(policy, GLMBandit(6, 2, 2.0), runs, horizon, seed=1)
    assert (policy.count1 > 0).all() and (policy.count2 > 0).any()
    assert _replay(policy, contexts, table, played, runs) > 0
    assert policy.in_both.any() and (policy.in_both <= policy.in_T_o).all()  # criterion-I points in II's data
    paper = ShortScale(eps=500, S=2.0, record=True)
    _, _, paper_played = _play(paper, GLMBandit(6, 2, 2.0), runs, horizon, seed=1)
    assert not np.array_equal(paper_played, played) and not paper.in_both.any()


class NarrowElimination(ShortScale):
    """ShortScale with a narrow elimination (eqs. 16-17), so that which V it reads changes the arms it keeps."""

    def settings(self, d, T):
        return dataclasses.replace(super().settings(d, T), elimination_width=0.3)


def test_the_released_codes_tree_makes_the_per_run_references_decisions():
    # the code's tree as it runs (not a prefix sum), under both the paper's and the code's Algorithm 2 (whose
    # elimination reads V after the round's own leaf)
    runs, horizon = 4, 300
    for variant in ("released-code", "paper"):
        policy = NarrowElimination(eps=500, S=2.0, record=True, variant=variant, tree="released-code")
        contexts, table, played = _play(policy, GLMBandit(6, 2, 2.0), runs, horizon, seed=1)
        assert (policy.count1 > 0).all() and (policy.count2 > 0).any()
        assert _replay(policy, contexts, table, played, runs) > 0
        # the released matrices are projected onto the PSD cone (the paper's tree's need not be)
        assert np.linalg.eigvalsh(policy.V).min() > 0 and np.linalg.eigvalsh(policy.H).min() > 0
        binary = NarrowElimination(eps=500, S=2.0, record=True, variant=variant)
        _, _, binary_played = _play(binary, GLMBandit(6, 2, 2.0), runs, horizon, seed=1)
        assert not np.array_equal(binary_played, played)


def test_the_released_codes_optimizer_calls_start_at_the_midpoint():
    starts = []

    class Spy(ShortScale):
        def fit(self, kind, n, data, start, theta_o, V, rng):
            starts.append((kind, start.copy(), (self.theta_o + self.theta_tau) / 2, self.theta_o.copy(),
                           self.theta_tau.copy()))
            return super().fit(kind, n, data, start, theta_o, V, rng)

    for variant in ("released-code", "paper"):
        starts.clear()
        _play(Spy(eps=500, S=2.0, variant=variant), GLMBandit(6, 2, 2.0), 1, 300, seed=1)  # one run: its rows
        assert {kind for kind, *_ in starts} == {"explore", "switch"}
        for kind, start, midpoint, theta_o, theta_tau in starts:
            expected = midpoint if variant == "released-code" else (theta_o if kind == "explore" else theta_tau)
            np.testing.assert_array_equal(start, expected)


def test_projection_keeps_the_criterion_one_estimates_in_the_ball():
    policy = ShortScale(eps=4, S=2.0, project=True)
    _play(policy, GLMBandit(6, 2, 2.0), 3, 120, seed=8)
    assert (policy.count1 > 0).all() and (np.linalg.norm(policy.theta_o, axis=1) <= 2.0 + 1e-9).all()


def test_jdp_glm_decisions_are_the_per_run_references():
    # the printed parameters: every round is a criterion-I round (the module's finding)
    runs, horizon = 3, 60
    policy = JDPGLM(eps=2, delta=0.05, zeta=0.01, S=1.0, link="probit", record=True)
    contexts, table, played = _play(policy, GLMBandit(5, 3, 1.0, link="probit"), runs, horizon, seed=2)
    assert (policy.summary()["explore_rounds"] == horizon).all()
    assert _replay(policy, contexts, table, played, runs) == runs * horizon


class ShortScaleJDP(JDPGLM):
    """JDP-GLM with lambda, the threshold and the trees' noise scaled down, so that criterion II switches and
    line 12's P_GD call on the ellipsoid around theta_o is made within a short test."""

    def settings(self, d, T):
        return dataclasses.replace(super().settings(d, T), lam=2.0, threshold=0.08, sigma_V=0.2, sigma_H=0.05,
                                   elimination_width=3.0, beta=1.0)


def test_jdp_glm_criterion_two_decisions_are_the_per_run_references():
    runs, horizon = 3, 300
    policy = ShortScaleJDP(eps=2, delta=0.05, zeta=0.01, S=1.0, record=True)
    contexts, table, played = _play(policy, GLMBandit(6, 2, 1.0), runs, horizon, seed=4)
    assert (policy.summary()["count2"] > 0).all()
    assert _replay(policy, contexts, table, played, runs) > 0


def test_the_policys_tree_noise_has_the_mechanisms_law():
    # the node noises the policy drew (whitened: diagonal, off-diagonal times sqrt 2) are i.i.d. N(0, sigma^2)
    # with Lemma I.4's sigma_noise; KS test at level 1e-3 (false-failure rate 1e-3 at this fixed seed)
    policy = JDPGLM(eps=2, delta=0.05, zeta=0.01, S=1.0, record=True)
    _play(policy, GLMBandit(5, 3, 1.0), 4, 40, seed=3)
    sigma = node_noise_sigma(policy._T, 2, 0.05, policy.kappa_star)
    tree = SymmetricGaussianTree(40, 3, sigma)
    noise = np.stack(policy.trace["noise_V"] + policy.trace["noise_H"])
    whitened = (noise[..., tree.upper[0], tree.upper[1]] * tree.scale).ravel()
    assert stats.kstest(whitened / sigma, "norm").pvalue > 1e-3
    assert policy.config.sigma_V == policy.config.sigma_H == pytest.approx(sigma)


def test_tree_stream_is_the_trees_release():
    # the stream's prefix sums are the tree's prefix sums of its p-sums (exact), and its node noises have
    # the release's law (KS at level 1e-3 on the whitened noise: false-failure rate 1e-3)
    rng = np.random.default_rng(5)
    T, d, runs, sigma = 13, 3, 50, 0.7
    tree = SymmetricGaussianTree(T, d, sigma)
    stream = tree.stream(runs)
    leaves = rng.standard_normal((runs, T, d, d))
    leaves = leaves + np.swapaxes(leaves, 2, 3)
    prefixes, noises = [], []
    for t in range(T):
        prefixes.append(stream.insert(leaves[:, t], rng))
        noises.append(stream.last_noise)
    prefixes, noises = np.stack(prefixes, axis=1), np.stack(noises, axis=1)
    psums = np.stack([tree.tree.node_sums(tree.whiten(leaves[r])) for r in range(runs)]) + (
        noises[..., tree.upper[0], tree.upper[1]] * tree.scale)
    np.testing.assert_allclose(prefixes, tree.prefix_matrices(psums), atol=1e-12)
    whitened = noises[..., tree.upper[0], tree.upper[1]] * tree.scale
    assert stats.kstest(whitened.ravel() / sigma, "norm").pvalue > 1e-3
    # with zero noise and unit leaves the prefix at t is t (the spec's check of the query procedure)
    ones = tree.stream(1)
    out = [ones.insert(np.eye(d)[None], rng, noise=np.zeros((1, d, d)))[0, 0, 0] for _ in range(T)]
    assert out == list(range(1, T + 1))


def test_the_tree_streams_compiled_insertion_is_the_numpy_one_bit_for_bit(monkeypatch):
    from dpaudit.mechanisms.glm import exploration_set
    if not exploration_set.AVAILABLE:
        pytest.skip("numba is not installed (pip install dpaudit[fast])")
    rng = np.random.default_rng(6)
    T, d, runs = 37, 3, 4
    tree = SymmetricGaussianTree(T, d, 0.7)
    leaves = rng.standard_normal((T, runs, d, d))
    leaves = leaves + np.swapaxes(leaves, 2, 3)
    noise = rng.standard_normal((T, runs, d, d))
    noise = (noise + np.swapaxes(noise, 2, 3)) / 2
    compiled = tree.stream(runs)
    got = [compiled.insert(leaves[t], None, noise[t]) for t in range(T)]
    monkeypatch.setattr(exploration_set, "binary_tree_insert", None)
    by_numpy = tree.stream(runs)
    for t in range(T):
        assert np.array_equal(got[t], by_numpy.insert(leaves[t], None, noise[t])), t
    for name in ("_exact", "_noisy", "node_noise", "t"):
        assert np.array_equal(getattr(compiled.inner, name), getattr(by_numpy.inner, name)), name
    with pytest.raises(ValueError, match="finite"):  # a bad leaf is the numpy path's error
        tree.stream(runs).insert(np.full((runs, d, d), np.nan), rng)


def test_node_noise_drawn_ahead_is_what_the_insertions_draw():
    """Two streams (sigma 0.7 and 0.05) inserted in turn for 9 rounds: the noise drawn ahead is each insertion's node
    noise bit for bit, and the generator ends in the same state; the node noise as numpy's normal(0, sigma) draw;
    a compiled loop's insertions booked by ``inserted`` (the count checked against T)."""
    from dpaudit.mechanisms.glm.exploration_set import node_noise_ahead
    runs, d, T = 3, 3, 12
    trees = SymmetricGaussianTree(T, d, 0.7), SymmetricGaussianTree(T, d, 0.05)
    streams = tuple(tree.stream(runs) for tree in trees)
    rng, ahead_rng = np.random.default_rng(8), np.random.default_rng(8)
    ahead = node_noise_ahead(streams, 9, ahead_rng)
    for s in range(9):
        for k, stream in enumerate(streams):
            stream.insert(np.zeros((runs, d, d)), rng)
            assert np.array_equal(ahead[s, k], stream.last_noise), (s, k)
    assert rng.bit_generator.state == ahead_rng.bit_generator.state
    z = np.random.default_rng(3).normal(0.0, 0.7, (runs, d, d))
    assert np.array_equal(trees[0].node_noise(runs, np.random.default_rng(3)), (z + np.swapaxes(z, 1, 2)) / 2)
    with pytest.raises(ValueError, match="same runs"):
        node_noise_ahead((streams[0], SymmetricGaussianTree(T, d, 1.0).stream(runs + 1)), 2, rng)
    streams[0].inserted(2, ahead[0, 0])
    assert streams[0].t == 11 and np.array_equal(streams[0].last_noise, ahead[0, 0])
    with pytest.raises(ValueError, match="T = 12"):
        streams[0].inserted(2, ahead[0, 0])


def test_dp_sgd_release_and_calibration():
    rng = np.random.default_rng(6)
    sgd = DPSGD(1.0, 1e-3, 500, 3)  # 500 <= 2048: the full batch, q = 1, no amplification
    assert sgd.q == 1 and not sgd.subsampled and sgd.steps == 50
    assert sgd.composed_epsilon() <= 1.0 < rdp_epsilon(sgd.noise_multiplier * 0.999, sgd.steps, 1.0, 1e-3)
    sub = DPSGD(1.0, 1e-3, 5000, 3)  # q = 2048/5000: Poisson subsampling amplifies
    assert sub.subsampled and sub.steps == 150 and sub.composed_epsilon() <= 1.0
    assert sub.noise_multiplier < sgd.noise_multiplier * math.sqrt(3)
    # sample (the release on one batch) and noisy_sums (the optimizer's entry point on runs' batches) have the
    # exact law: KS of the standardised outputs against N(0, 1), level 1e-3 each (false-failure rate 2e-3)
    clipped = sgd.clip_gradients(rng.standard_normal((7, 3)))
    law = sgd.distribution(clipped)
    means = np.array([c.loc for c in law.coordinates])
    np.testing.assert_allclose(means, clipped.sum(axis=0))
    draws = sgd.sample(clipped, 4000, rng)
    assert stats.kstest(((draws - means) / sgd.sigma).ravel(), "norm").pvalue > 1e-3
    batched = sgd.noisy_sums(np.broadcast_to(clipped, (4000, 7, 3)), rng)
    assert stats.kstest(((batched - means) / sgd.sigma).ravel(), "norm").pvalue > 1e-3
    with pytest.raises(ValueError, match="norm <= clip"):
        sgd.sample(np.ones((2, 3)), 1, rng)


def test_dp_sgd_shuffled_batches_are_the_released_codes():
    # n = 5, batch 2: each epoch three batches of 2, 2 and 1 points, each averaged over its own size; eps = 1e5
    # puts the noise at its floor (sd 0.001 per step), and lr0 = 1, no regulariser, gradients constant in theta
    rng = np.random.default_rng(11)
    runs, n, d = 4000, 5, 3
    sgd = DPSGD(1e5, 1e-3, n, d, batch=2, epochs=2, burn_in=1, lr0=1.0, regulariser=0.0, batches="shuffled")
    assert "shuffled batches" in sgd.name and sgd.batches_per_epoch == 3
    lr = 1 / np.sqrt(np.arange(1, 7))
    noise = sgd.sigma / sgd.batch * np.sqrt((lr**2).sum())  # sd of the output's noise
    # 1. the same gradient at every point: every batch's mean is it, whatever the order, so every run ends at
    #    -sum(lr) v (Poisson batches, or a last batch not averaged over its own size, would not)
    v = np.array([0.2, 0.0, 0.0])
    same = sgd.run(lambda theta, data: np.broadcast_to(v, (theta.shape[0], n, d)), None, np.zeros((runs, d)), rng)
    np.testing.assert_allclose(same, np.broadcast_to(-lr.sum() * v, same.shape), atol=6 * noise)
    poisson = DPSGD(1e5, 1e-3, n, d, batch=2, epochs=2, burn_in=1, lr0=1.0, regulariser=0.0)
    spread = poisson.run(lambda theta, data: np.broadcast_to(v, (theta.shape[0], n, d)), None,
                         np.zeros((runs, d)), rng)
    assert np.abs(spread[:, 0] + lr.sum() * 0.2).max() > 0.1
    # 2. a gradient at point 0 only, in coordinate 0 during epoch 1 and coordinate 1 during epoch 2 (the
    #    gradient is called once per step): each epoch point 0 is in exactly one batch, the j-th with
    #    probability m_j / n, drawn afresh per run and epoch, and its step is lr_t * 0.2 / m_j. Epoch 1's batch
    #    is read off coordinate 0 (three values, gaps >= 9 noise sds); epoch 2's, whether it was the last
    #    (singleton) batch, off coordinate 1 (gap > 20 sds); the 3 x 2 counts are checked by chi-squared at level
    #    1e-3 (false-failure rate 1e-3)
    sizes = np.array([2, 2, 1])
    first = 0.2 * lr[:3] / sizes
    second = 0.2 * lr[3:] / sizes
    assert np.diff(np.sort(first)).min() > 9 * noise and second[2] - second[:2].max() > 20 * noise
    calls = []

    def point_zero(theta, data):
        g = np.zeros((theta.shape[0], n, d))
        g[:, 0, len(calls) // 3] = 0.2
        calls.append(1)
        return g

    out = -sgd.run(point_zero, None, np.zeros((runs, d)), rng)
    j1 = np.abs(out[:, [0]] - first[None, :]).argmin(axis=1)
    last = out[:, 1] > (second[2] + second[:2].max()) / 2
    assert np.abs(out[:, 0] - first[j1]).max() < 6 * noise and np.abs(out[:, 2]).max() < 6 * noise
    counts = np.bincount(j1 * 2 + last, minlength=6)
    expected = runs * np.outer(sizes / n, [0.8, 0.2]).ravel()
    assert stats.chisquare(counts, expected).pvalue > 1e-3
    with pytest.raises(ValueError, match="batches must be one of"):
        DPSGD(1.0, 1e-3, 5, 3, batches="fixed")


def test_dp_sgd_learns_with_little_noise():
    # eps = 1e3: noise multiplier at its floor; the fit must point along theta* (cosine > 0.9, a wide margin)
    rng = np.random.default_rng(7)
    theta_star = np.array([2.0, -1.0, 0.5])
    x = rng.standard_normal((2, 800, 3)) / math.sqrt(3)
    y = (rng.random((2, 800)) < 1 / (1 + np.exp(-x @ theta_star))).astype(float)
    from dpaudit.algorithms.glm.algorithm2 import cumulant_gradient
    from dpaudit.mechanisms.glm.glm_links import link

    theta = DPSGD(1e3, 1e-3, 800, 3).run(cumulant_gradient(link("logistic"), 0.0), (y, x), np.zeros((2, 3)), rng)
    cos = theta @ theta_star / (np.linalg.norm(theta, axis=1) * np.linalg.norm(theta_star))
    assert (cos > 0.9).all()


def test_per_call_budget_is_the_codes():
    assert per_call_budget(1.0, 0.01, 4) == (0.25, 0.0025)
    eps0, delta0 = per_call_budget(1.0, 0.01, 30)
    eps, delta = advanced_composition(30, eps0, delta0, 0.005)
    assert eps <= 1.0 and eps == pytest.approx(1.0, rel=1e-6) and delta == pytest.approx(0.01)


def test_it_learns_on_the_papers_instances():
    # Private-GLM at eps = 8 on Table 2's S = 2 probit instance, 1500 rounds: the last rounds' mean regret
    # is well below playing uniformly at random (a wide margin, no test statistic)
    env = GLMBandit(20, 3, 2.0, link="probit", generator="repository")
    res = dpaudit.simulate(ALGORITHMS["private-glm"](eps=8, S=2.0, link="probit"), env, horizon=1500, runs=3, seed=0,
                           grid=np.arange(1, 1501))
    late = (res.pseudo_regret[:, -1] - res.pseudo_regret[:, -501]).mean() / 500
    rng = np.random.default_rng(0)
    inst = env.instances(1, rng)
    means = np.concatenate([inst.expected(inst.contexts(rng)) for _ in range(300)])
    uniform = (means.max(axis=1) - means.mean(axis=1)).mean()
    assert late < 0.5 * uniform


def test_registry_and_bad_input(refuses_bad_contexts):
    assert describe("jdp-glm").startswith("shuffle-glm Algorithm 2: JDP-GLM")
    assert describe("private-glm").startswith("shuffle-glm Algorithm 2: Private-GLM")
    with pytest.warns(UserWarning, match="needs delta > zeta"):
        policy = ALGORITHMS["private-glm"](eps=6, S=2.5, link="probit")
    assert (policy.eps, policy.delta, policy.zeta, policy.S) == (6, 0.02, 0.02, 2.5)
    assert any("needs delta > zeta" in note for note in policy.notes)
    with pytest.raises(ValueError, match="zeta must be < delta"):
        JDPGLM(eps=1, delta=0.01, zeta=0.02, S=1.0)
    with pytest.raises(ValueError, match="kappa must be >= kappa_star"):
        PrivateGLM(eps=1, S=1.0, kappa=2.0, kappa_star=4.0)
    with pytest.raises(ValueError, match="link must be one of"):
        PrivateGLM(eps=1, S=1.0, link="cauchit")
    with pytest.raises(ValueError, match="S must be > 0"):
        JDPGLM(eps=1, delta=0.05, zeta=0.01, S=0.0)
    refuses_bad_contexts(policy)
    with pytest.raises(ValueError, match="below the simulated horizon"):
        JDPGLM(eps=1, delta=0.05, zeta=0.01, S=1.0, T=5).start(1, 3, 10, np.random.default_rng(0))


class NoisySwitches(ShortScale):
    """ShortScale with one criterion-II call and a noisier H, so that switches come after count2's cutoff and
    det(H) at a switch falls below the running maximum."""

    def settings(self, d, T):
        return dataclasses.replace(super().settings(d, T), count2_cutoff=1, sigma_H=0.6)


def test_the_released_codes_switches_stop_at_the_cutoff_and_restart_from_det_h():
    runs, horizon = 4, 300
    code = NoisySwitches(eps=500, S=2.0, record=True, variant="released-code")
    contexts, table, played = _play(code, GLMBandit(6, 2, 2.0), runs, horizon, seed=3)
    assert _replay(code, contexts, table, played, runs) > 0
    assert (code.switches == code.count2).all() and (code.count2 <= 1).all()  # no switch after the one call
    paper = NoisySwitches(eps=500, S=2.0, record=True)
    contexts, table, played = _play(paper, GLMBandit(6, 2, 2.0), runs, horizon, seed=3)
    assert _replay(paper, contexts, table, played, runs) > 0
    assert (paper.switches > paper.count2).any()  # Algorithm 2 keeps moving tau after the cutoff


class OneSwitchCall(NarrowElimination):
    """NarrowElimination with one theta_tau call: the switches after it (Algorithm 2's) or their stop (the code's)
    are exercised."""

    def settings(self, d, T):
        return dataclasses.replace(super().settings(d, T), count2_cutoff=1)


@pytest.mark.skipif(not algorithm2.COMPILED, reason="numba is not installed (pip install dpaudit[fast])")
@pytest.mark.parametrize("variant, tree", [("paper", "repository"), ("released-code", "repository"),
                                           ("paper", "released-code"), ("released-code", "released-code")])
@pytest.mark.parametrize("generator", ["paper", "repository"])  # fresh arms per run, or one arm set for all
def test_the_compiled_choice_makes_the_numpy_paths_choices(variant, tree, generator):
    """A policy that records its trace keeps the numpy path (its per-run reference replays it); one that does not
    runs the compiled passes: the same decisions, the same optimizer calls and switches, the same state."""
    runs, horizon = 4, 300
    env = GLMBandit(6, 2, 2.0, generator=generator)
    compiled = OneSwitchCall(eps=500, S=2.0, variant=variant, tree=tree)
    by_numpy = OneSwitchCall(eps=500, S=2.0, variant=variant, tree=tree, record=True)
    assert compiled.compiled_choice and not by_numpy.compiled_choice
    _, _, played = _play(compiled, env, runs, horizon, seed=1)
    _, _, expected = _play(by_numpy, env, runs, horizon, seed=1)
    np.testing.assert_array_equal(played, expected)
    assert (compiled.count1 > 0).all() and (compiled.count2 > 0).any() and compiled.in_T_o.any()
    if variant == "paper":  # switches go on after the last call
        assert (compiled.switches > compiled.count2).any()
    for name in ("count1", "count2", "switches", "in_T_o", "in_both"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(by_numpy, name))
    for name in ("V", "H", "V_inv", "H_tau_inv", "theta_o", "theta_tau", "det_max", "det_switch"):
        np.testing.assert_allclose(getattr(compiled, name), getattr(by_numpy, name), rtol=1e-9, atol=1e-12)


def _play_blocks(policy, env, runs, horizon, seed, block):
    """:func:`_play`'s contexts and rewards (the same draws from the same seed), played through ``play_rounds`` in
    blocks of ``block`` rounds (the engine's fast path)."""
    rng = np.random.default_rng(seed)
    inst = env.instances(runs, rng)
    contexts = np.stack([inst.contexts(rng) for _ in range(horizon)])
    table = np.stack([(rng.random(c.shape[:2]) < inst.expected(c)) for c in contexts]).astype(float)
    policy.start(runs, env.arms, horizon, rng)
    played = np.concatenate([policy.play_rounds(t + 1, contexts[t: t + block], table[t: t + block])[0]
                             for t in range(0, horizon, block)])
    return played.T


def _short_private(**kw):
    return ShortScale(eps=500, S=2.0, **kw)


def _short_jdp(**kw):
    return ShortScaleJDP(eps=2, delta=0.05, zeta=0.01, S=2.0, **kw)


def _one_switch_call(**kw):
    return OneSwitchCall(eps=500, S=2.0, **kw)


@pytest.mark.skipif(not algorithm2.COMPILED, reason="numba is not installed (pip install dpaudit[fast])")
@pytest.mark.parametrize("make", [_short_private, _short_jdp, _one_switch_call])
@pytest.mark.parametrize("generator", ["paper", "repository"])  # fresh arms per run, or one arm set for all
def test_compiled_blocks_make_the_round_by_round_choices_and_draws(make, generator, monkeypatch):
    """Algorithm 2's compiled blocks stop at every switch and every criterion-I call, which the per-round path plays;
    against the numpy path round by round (a recording policy): the same arms, calls, switches and state, and the
    generator in the same state at the end (the node noise drawn ahead is set back at each stop). Short noise chunks
    (2 rounds doubling up to 7) and blocks that do not line up with them."""
    monkeypatch.setattr(algorithm2, "FIRST_AHEAD", 2)
    monkeypatch.setattr(algorithm2, "NOISE_AHEAD", 7)
    runs, horizon = 4, 300
    env = GLMBandit(6, 2, 2.0, generator=generator)
    reference = make(record=True)
    _, _, expected = _play(reference, env, runs, horizon, seed=1)
    stops = []
    kernel = algorithm2.algorithm2_rounds

    def spy(s0, end, *args):
        stop = kernel(s0, end, *args)
        stops.append(stop < end)
        return stop

    monkeypatch.setattr(algorithm2, "algorithm2_rounds", spy)
    policy = make()
    assert policy.compiled_choice and not reference.compiled_choice
    played = _play_blocks(policy, env, runs, horizon, seed=1, block=37)
    assert policy.compiled_rounds and sum(stops) > 0 and len(stops) > sum(stops)
    np.testing.assert_array_equal(played, expected)
    assert policy.rng.bit_generator.state == reference.rng.bit_generator.state
    assert (policy.switches > 0).any() and (policy.count2 > 0).any()
    if make is not _short_jdp:
        assert (policy.count1 > 0).all() and policy.in_T_o.any()
    for name in ("count1", "count2", "switches", "in_T_o", "X", "Y"):
        np.testing.assert_array_equal(getattr(policy, name), getattr(reference, name))
    for name in ("V", "H", "V_inv", "H_tau_inv", "theta_o", "theta_tau", "det_max", "det_switch"):
        np.testing.assert_allclose(getattr(policy, name), getattr(reference, name), rtol=1e-9, atol=1e-12)
    for tree in ("tree_V", "tree_H"):
        assert getattr(policy, tree).t == horizon
        np.testing.assert_array_equal(getattr(policy, tree).last_noise, getattr(reference, tree).last_noise)


@pytest.mark.skipif(not algorithm2.COMPILED, reason="numba is not installed (pip install dpaudit[fast])")
@pytest.mark.parametrize("eps", [4.0, 8.0])
def test_private_glm_simulated_in_compiled_blocks_is_the_round_by_round_simulation(eps, monkeypatch):
    """Table 2's setting (probit, the repository's arms at S = 3, the played arm's rewards from shared uniforms):
    ``simulate`` through the compiled blocks and round by round give the same pulls and regrets."""
    results = {}
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(PrivateGLM, "compiled_rounds", False)
        env = GLMBandit(20, 3, 3.0, link="probit", generator="repository")
        with pytest.warns(UserWarning, match="zeta"):
            policy = PrivateGLM(eps=eps, S=3.0, link="probit")
        results[compiled] = dpaudit.simulate(policy, env, horizon=1500, runs=2, seed=1, grid=[500, 1500])
    np.testing.assert_array_equal(results[True].pulls, results[False].pulls)
    np.testing.assert_array_equal(results[True].regret, results[False].regret)


@pytest.mark.skipif(not algorithm2.COMPILED, reason="numba is not installed (pip install dpaudit[fast])")
@pytest.mark.parametrize("options", [{"record": True}, {"variant": "released-code"}, {"tree": "released-code"}])
def test_what_the_compiled_blocks_do_not_cover_plays_round_by_round(options, monkeypatch):
    """A recording policy, the code's variant and the code's tree play round by round."""
    monkeypatch.setattr(algorithm2, "algorithm2_rounds", None)  # a call would raise
    policy = _short_private(**options)
    played = _play_blocks(policy, GLMBandit(6, 2, 2.0), 3, 60, seed=2, block=25)
    assert not (policy.compiled_rounds and policy._compiled_trees()) and played.shape == (3, 60)
    _, _, expected = _play(_short_private(**options), GLMBandit(6, 2, 2.0), 3, 60, seed=2)
    np.testing.assert_array_equal(played, expected)


@pytest.mark.skipif(not algorithm2.COMPILED, reason="numba is not installed (pip install dpaudit[fast])")
def test_a_compiled_block_with_a_non_finite_estimate_fails_as_round_by_round():
    """theta_o with inf and -inf makes criterion II's H leaf NaN: the block plays round by round, whose tree refuses
    it (a ValueError), instead of inserting NaN in a compiled loop."""
    errors = []
    for compiled in (True, False):
        policy = _short_private(record=not compiled)
        rng = np.random.default_rng(2)
        env = GLMBandit(6, 2, 2.0)
        inst = env.instances(3, rng)
        contexts = np.stack([inst.contexts(rng) for _ in range(40)])
        table = np.stack([(rng.random(c.shape[:2]) < inst.expected(c)) for c in contexts]).astype(float)
        policy.start(3, env.arms, 40, rng)
        policy.play_rounds(1, contexts[:20], table[:20])
        policy.theta_o[0] = [np.inf, -np.inf]
        with pytest.raises(ValueError, match="finite") as error:
            policy.play_rounds(21, contexts[20:], table[20:])
        errors.append(str(error.value))
    assert errors[0] == errors[1]


@pytest.mark.skipif(not algorithm2.COMPILED, reason="numba is not installed (pip install dpaudit[fast])")
@pytest.mark.parametrize("fixed", [True, False])  # one arm set handed over once, or arms that change by round
@pytest.mark.parametrize("make", [lambda: JDPGLM(eps=1, delta=0.02, zeta=0.01, S=2.0), lambda: _short_jdp()])
def test_a_jdp_transcript_through_compiled_blocks_is_the_per_round_transcript(fixed, make, monkeypatch):
    """A contextual transcript plays a policy with compiled rounds through ``play_rounds`` (a fixed arm set as one
    (runs, K, d) array): JDP-GLM's published actions are the per-round path's, run for run (40 rounds: fewer go round
    by round)."""
    from dpaudit.bandits.contextual_transcripts import ContextualTranscript
    T, rng = 40, np.random.default_rng(5)
    arms = rng.standard_normal((1 if fixed else T, 2, 2))
    arms /= 1.5 * np.linalg.norm(arms, axis=-1, keepdims=True)
    data = np.concatenate([np.broadcast_to(arms, (T, 2, 2)), rng.integers(0, 2, (T, 2, 1))], axis=2)
    outputs, calls, kernel = {}, [], algorithm2.algorithm2_rounds
    monkeypatch.setattr(algorithm2, "algorithm2_rounds", lambda *args: calls.append(1) or kernel(*args))
    for compiled in (True, False):
        calls.clear()
        if not compiled:
            monkeypatch.setattr(JDPGLM, "compiled_rounds", False)
        transcript = ContextualTranscript(make(), 2, 2, T, output="jdp", protected=1)
        rng = np.random.default_rng(7)  # two samples: the second starts where the first left the generator
        outputs[compiled] = np.stack([transcript.sample(data, 200, rng) for _ in range(2)]), rng.bit_generator.state
        assert bool(calls) is compiled
    np.testing.assert_array_equal(outputs[True][0], outputs[False][0])
    assert outputs[True][1] == outputs[False][1] and 0 < outputs[True][0].mean() < 1
