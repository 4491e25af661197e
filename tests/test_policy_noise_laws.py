"""Every private policy's noise against the law its paper prints, drawn through the policy's own entry points.

The neighbouring tests check that a policy's paths agree with its release's exact law; both follow the
release's calibration, so a noise scale halved in the release (or an eps doubled in the call that builds it)
moves them together and they still agree. Here the reference law is written from the paper's formula
(scale, sigma, variance, noise bits), independently of the release, and the noise is drawn where the policy
draws it (its fast path, its per-user or per-pull reference path, its noise drawn ahead at ``start``), so a
noise halved anywhere on the way fails a test. ``tools/mutation/noise_sweep.py`` halves each place in turn.

False-failure rates, computed:
- conformance audits (:func:`dpaudit.audit_sampler`): at most ``ALPHA`` = 1e-6 each (the auditor's
  Bonferroni over its tests), 26 audits;
- report-noisy-max decisions: an exact two-sided binomial test at ``ALPHA`` on the count of one action, whose
  probability is the closed form P(Z_0 - Z_1 > c) = e^{-c/b} (1 + c/(2b)) / 2 for i.i.d. Lap(b), 3 tests;
- calibrations (g, b, sigma, tau, a budget split, the analytic Gaussian's tight delta): exact (or to 1e-9
  relative), no false failures.
At most 29e-6 for the file; the tests are seeded, so a pass is reproducible.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms import ALGORITHMS
from dpaudit.mechanisms.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    Laplace,
    ModularReduction,
    Skellam,
    iid_sum,
)

ALPHA = 1e-6
SAMPLES = 20_000
T = 1000


def conforms(sampler, law, samples=SAMPLES, seed=0):
    """Audit ``sampler(size, rng)`` against ``law``: fails a correct sampler with probability <= ALPHA."""
    result = dpaudit.audit_sampler(sampler, law, samples=samples, seed=seed, alpha=ALPHA)
    assert result.verdict == "not-refuted", result.witness


def drive(policy, env, *, runs: int, horizon: int, rng: np.random.Generator) -> None:
    """Play ``policy`` on ``runs`` instances of the contextual ``env`` for ``horizon`` rounds, one generator for
    the instances, the contexts, the policy and the Bernoulli rewards."""
    inst = env.instances(runs, rng)
    policy.start(runs, env.arms, horizon, rng)
    for t in range(1, horizon + 1):
        contexts = inst.contexts(rng)
        arms = policy.choose(t, contexts)
        policy.observe(t, arms, (rng.random(runs) < inst.expected(contexts)[np.arange(runs), arms]).astype(float))


def signed(residues, m):
    """Residues mod m as integers in (-m/2, m/2]: the noise itself when the input was 0 and |noise| < m/2
    (every test below takes m/2 beyond 20 standard deviations of its noise)."""
    r = np.mod(np.asarray(residues, dtype=np.int64), m)
    return np.where(r > m // 2, r - m, r)


# -- dist-mab Algorithm 1: each protocol's noise at batch b = 6 (n = 64 users), eps = 0.5 ------------------

N_USERS, BATCH = 64, 6


def dist_release(name, eps, **kwargs):
    policy = ALGORITHMS[name](eps=eps, T=T, **kwargs)
    release = policy.release(BATCH, T)
    assert release.n == N_USERS
    return release


# (registry name, eps, g of the theorem, the total noise's law in units of 1/g)
SECAGG = [
    ("dist-dp-se", 0.5, math.ceil(0.5 * 8), lambda g, eps: DiscreteLaplace(g / eps)),  # Theorem 1
    ("dist-rdp-se", 0.5, math.ceil(10 * 0.5 * 8), lambda g, eps: Skellam(g**2 / eps**2)),  # Theorem 2, s = 10
    ("dist-cdp-se", 0.5, math.ceil(10 * 0.5 * 8),  # Theorem 4: n shares N_Z(0, g^2/(n eps^2))
     lambda g, eps: iid_sum(DiscreteGaussian(g / (math.sqrt(N_USERS) * eps)), N_USERS)),
]


@pytest.mark.parametrize("name, eps, g, law", SECAGG, ids=[s[0] for s in SECAGG])
def test_secure_aggregation_protocols_draw_the_theorems_noise_on_both_paths(name, eps, g, law):
    release = dist_release(name, eps)
    assert release.g == g  # the noise in reward units is the integer noise over g
    reference = law(g, eps)
    # fast path (the policy's observe_block then _end_batch): the users' total noise from secure_sum
    conforms(lambda size, rng: signed(release.secure_sum(np.zeros(size, dtype=np.int64), rng), release.m), reference)
    # reference path (the policy's observe): every user's message, summed mod m as SecAgg does
    conforms(lambda size, rng: signed(release.messages(np.zeros((size, N_USERS)), rng).sum(axis=1), release.m),
             reference, samples=5_000, seed=1)


def test_central_protocol_adds_one_discrete_laplace_of_scale_g_over_eps():
    eps = 0.5
    release = dist_release("cdp-se", eps)
    g = math.ceil(eps * math.sqrt(N_USERS))  # Theorem 5 takes Theorem 1's parameters
    assert release.g == g
    reference = DiscreteLaplace(g / eps)
    conforms(lambda size, rng: signed(release.secure_sum(np.zeros(size, dtype=np.int64), rng), release.m), reference)
    # the trusted analyzer's draw (Algorithm 3, the per-round path)
    conforms(lambda size, rng: signed(release.add_central_noise(np.zeros(size, dtype=np.int64), rng), release.m),
             reference, seed=1)


def test_local_protocol_gives_every_user_a_discrete_laplace_of_scale_g_over_eps():
    eps = 0.5
    release = dist_release("ldp-se", eps)
    g = math.ceil(eps * math.sqrt(N_USERS))  # Theorem 6
    assert release.g == g
    one_user = DiscreteLaplace(g / eps)
    # the per-round path: each user's message (Algorithm 4)
    conforms(lambda size, rng: signed(release.messages(np.zeros(size), rng), release.m), one_user)
    # the exact law of one message, where wrapping mod m adds nothing visible (|noise| < m/4)
    law = release.distribution(0.0)
    noise = signed(np.asarray(law.outcomes), release.m)
    near = np.abs(noise) < release.m // 4
    assert np.allclose(np.exp(np.asarray(law.log_probs)[near]), np.exp(one_user.logpmf(noise[near])), rtol=1e-9)
    # the fast path's total of the users' noise, mod m, at a batch of 8 users (its exact law is cheap there)
    small = ALGORITHMS["ldp-se"](eps=eps, T=T).release(3, T)
    assert (small.n, small.g) == (8, math.ceil(eps * math.sqrt(8)))
    total = ModularReduction(small.m).wrap(iid_sum(DiscreteLaplace(small.g / eps), small.n))
    conforms(lambda size, rng: np.mod(small.secure_sum(np.zeros(size, dtype=np.int64), rng), small.m), total, seed=1)


def test_shuffle_protocol_draws_theorem_3s_printed_shares():
    eps = 1.0
    release = dist_release("shuffle-dp-se", eps)
    g = math.ceil(eps / 2 * math.sqrt(N_USERS))  # eps' = eps / 2 sets g; the shares decay as e^{-eps/g}
    assert release.g == g
    reference = DiscreteLaplace(g / eps)
    conforms(lambda size, rng: signed(release.secure_sum(np.zeros(size, dtype=np.int64), rng), release.m), reference)
    conforms(lambda size, rng: signed(release.messages(np.zeros((size, N_USERS)), rng).sum(axis=1), release.m),
             reference, samples=5_000, seed=1)


# -- DP-SE: Lap(1/eps) on each surviving arm's sum -------------------------------------------------------------

def test_dp_se_adds_laplace_one_over_eps_to_every_arms_sum():
    eps = 0.7
    policy = ALGORITHMS["dp-se"](eps=eps, T=T)
    release = policy.stage(2, 1).release  # what _end_epoch draws from
    conforms(lambda size, rng: release.add_noise(np.zeros((size, 2)), rng)[:, 1], Laplace(1 / eps))


def test_dp_se_shared_variant_adds_one_laplace_one_over_eps_to_all_arms():
    """The released code's variant (shared_noise=True): one Lap(1/eps) per epoch, the same on every arm. Its
    decisions read only differences, in which the draw cancels, so only the draw itself can show its scale."""
    eps = 0.7
    policy = ALGORITHMS["dp-se"](eps=eps, T=T, shared_noise=True)
    release = policy.stage(3, 1).release

    def shared_draw(size, rng):
        noisy = release.add_shared_noise(np.zeros((size, 3)), rng)
        assert np.array_equal(noisy, np.repeat(noisy[:, :1], 3, axis=1))
        return noisy[:, 0]

    conforms(shared_draw, Laplace(1 / eps))


# -- private-online: Anytime-Lazy-UCB (eq. 3: Lap(1/eps) on each full array's sum) ------------------------------

def test_lazy_ucb_draws_laplace_one_over_eps_for_every_array_at_start():
    eps = 0.3
    policy = ALGORITHMS["anytime-lazy-ucb"](eps=eps)

    def noise_drawn_at_start(size, rng):
        policy.start(size, 1, 1, rng)  # horizon 1: one array per arm
        return policy.noise[:, 0, 0]

    conforms(noise_drawn_at_start, Laplace(1 / eps))
    policy.start(1, 2, 7, np.random.default_rng(0))
    release = policy.release  # what forms eq. 3's means
    assert release.pulls == 7 and [release.error_law(r).scale for r in range(3)] == [
        1 / (Fraction(eps) * 2**r) for r in range(3)]


@pytest.mark.parametrize("path", ["sample", "sample_per_pull"])
def test_lazy_release_paths_draw_laplace_one_over_eps_two_to_the_r(path):
    eps = 0.3
    policy = ALGORITHMS["anytime-lazy-ucb"](eps=eps)
    policy.start(1, 1, 7, np.random.default_rng(0))
    draw = getattr(policy.release, path)
    conforms(lambda size, rng: draw(np.zeros(7), size, rng)[:, 2], Laplace(1 / (eps * 4)))  # array 2: 4 pulls


def test_lazy_array_release_m1_draws_laplace_one_over_eps_two_to_the_r():
    from dpaudit.mechanisms.counters.online_releases import LazyArrayRelease

    eps = 0.3
    release = LazyArrayRelease(eps, 2)
    assert release.noise.scale == 1 / (Fraction(eps) * 4)
    conforms(lambda size, rng: release.sample(np.zeros(4), size, rng), Laplace(1 / (eps * 4)), seed=2)


# -- private-online: Hybrid-UCB (eqs. 32-33: arrays Lap(2/eps), block r's p-sums Lap(2r/eps)) ------------------

def test_hybrid_ucb_draws_its_array_and_p_sum_noise_at_the_printed_scales():
    eps = 0.4
    policy = ALGORITHMS["hybrid-ucb"](eps=eps)

    def array_noise(size, rng):
        policy.start(size, 1, 1, rng)
        return policy.array_noise[:, 0, 0]

    conforms(array_noise, Laplace(2 / eps))
    conforms(lambda size, rng: policy.counter.sample_node_noise(np.full(size, 3), 1, rng)[:, 0],
             Laplace(2 * 3 / eps), seed=1)


def test_hybrid_counter_releases_and_error_laws_have_the_printed_scales():
    eps = 0.4
    counter = type(ALGORITHMS["hybrid-ucb"](eps=eps).counter)(eps, 7)  # pulls 1..7: blocks 1 and 2
    releases = counter.sample_releases(np.zeros(7), SAMPLES, np.random.default_rng(3))
    assert releases.shape[1] == 2 + 2 + 4  # two array sums, then block 1's 2 p-sums, block 2's 4
    conforms(lambda size, rng: counter.sample_releases(np.zeros(7), size, rng)[:, -1], Laplace(2 * 2 / eps), seed=3)
    conforms(lambda size, rng: counter.sample_per_pull(np.zeros(7), size, rng)[:, 0], Laplace(2 / eps), seed=4)
    array_law, tree_law = counter.error_laws(6)  # pull 6: r = 2, n = 3 leaves of block 2
    assert (array_law.n, array_law.scale) == (2, pytest.approx(2 / eps))
    assert (tree_law.n, tree_law.scale) == (2, pytest.approx(2 * 2 / eps))


# -- private-online: FTNL and naive FTNL (report-noisy-max with Lap(b)) ------------------------------------------

def laplace_difference_sf(c, b):
    """P(Z_0 - Z_1 > c), Z i.i.d. Lap(b), c >= 0."""
    return math.exp(-c / b) * (1 + c / (2 * b)) / 2


@pytest.mark.parametrize("name, kwargs, b", [
    ("ftnl", {"eps": 1.0}, 1.0),  # Algorithm 3: Lap(1/eps)
    ("ftnl", {"eps": 2.0, "noise_scale": "2/eps"}, 1.0),  # report-noisy-max's usual Lap(2/eps)
    ("naive-ftnl", {"eps": 2.0}, 1.0),  # Section 5: Lap(K/eps), K = 2
], ids=["ftnl", "ftnl-2-over-eps", "naive-ftnl"])
def test_follow_the_noisy_leader_picks_the_leader_with_the_printed_noise(name, kwargs, b):
    """Epoch 0's sums are (0, 1): action 0 is played in epoch 1 when Z_0 - Z_1 > 1, on both paths."""
    policy = ALGORITHMS[name](**kwargs)
    p = laplace_difference_sf(1.0, b)
    table = np.array([[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    fast = policy.decisions(table, [2], SAMPLES, np.random.default_rng(5))[:, 0]
    policy.start(SAMPLES, 2, 3, np.random.default_rng(6))
    policy.choose(1)
    policy.observe(1, np.zeros(SAMPLES, dtype=np.int64), np.tile(table[0], (SAMPLES, 1)))
    per_round = policy.choose(2)
    for played in (fast, per_round):
        assert stats.binomtest(int((played == 0).sum()), SAMPLES, p).pvalue > ALPHA


def test_ftnl_epoch_releases_have_the_printed_scales():
    from dpaudit.mechanisms.counters.online_releases import EpochNoisyMax, NaiveEpochLaplace

    eps, K = 0.6, 3
    assert EpochNoisyMax(eps, K, 2).inner.scale == 1 / Fraction(eps)  # M3: Lap(1/eps)
    assert NaiveEpochLaplace(eps, K, 2).noise.scale == K / Fraction(eps)  # M4: Lap(K/eps)


# -- shuffle-lcb: the Gaussian randomizer and P_Amp (u~'s first entry on all-zero rows) -----------------------

D = 2


def first_entry_of_u(statistics, batch):
    """u~'s first entry after one batch of ``batch`` all-zero rows (phi, y), drawn through the policy's
    statistics as its run draws them (one run per sample)."""
    def draw(size, rng):
        statistics.start(size, D, T, rng)
        _, u = statistics.release(batch, np.zeros((size, batch, D)), np.zeros((size, batch)))
        return u[:, 0].copy()

    return draw


def ldp_sigma(eps0, delta0):
    return 4 * math.sqrt(2 * math.log(2.5 / delta0)) / eps0  # Corollary B.3


@pytest.mark.parametrize("name, kwargs, batch, sigma", [
    ("linucb-ldp", {"eps": 0.5, "delta": 0.1}, 1, ldp_sigma(0.5, 0.1)),
    ("batched-local-linucb", {"eps": 0.5, "delta": 0.1, "B": 4}, 4, ldp_sigma(0.5, 0.1)),
    # Theorem 3.2: 4 sqrt(2 log(2.5 B/delta) log(2/delta)) / (eps sqrt B)
    ("linucb-sdp-amp", {"eps": 0.3, "delta": 0.1, "B": 4}, 4,
     4 * math.sqrt(2 * math.log(2.5 * 4 / 0.1) * math.log(2 / 0.1)) / (0.3 * 2)),
    # Theorem 4.2(i): 16 log(2/delta) sqrt(T log(5T/delta)) / (eps B)
    ("linucb-sdp-amp-returning", {"eps": 0.3, "delta": 0.1, "B": 4}, 4,
     16 * math.log(2 / 0.1) * math.sqrt(T * math.log(5 * T / 0.1)) / (0.3 * 4)),
], ids=["linucb-ldp", "batched-local-linucb", "linucb-sdp-amp", "linucb-sdp-amp-returning"])
def test_gaussian_variants_add_the_theorems_sigma_per_user(name, kwargs, batch, sigma):
    statistics = ALGORITHMS[name](T=T, **kwargs).statistics
    conforms(first_entry_of_u(statistics, batch), Gaussian(sigma * math.sqrt(batch)))  # B users' noise summed


def p_vec_parameters(eps, delta, B, returning=False):
    """(g, b) of Theorem 3.5 (unique users) or Theorem 4.2(ii) (returning users), p = 1/4."""
    g = max(math.ceil(2 * math.sqrt(B)), D, 4)
    if returning:
        return g, math.ceil(1e7 * math.log(2 / delta) * g**2 * T * math.log(8 * T * (D**2 + 1) / (B * delta)) ** 2
                            / (eps**2 * B**2))
    return g, math.ceil(24e4 * g**2 * math.log(4 * (D**2 + 1) / delta) ** 2 / (eps**2 * B))


@pytest.mark.parametrize("name, returning", [("linucb-sdp-vec", False), ("linucb-sdp-vec-returning", True)])
def test_vector_variants_use_the_theorems_noise_bits(name, returning):
    """The error of an entry is (1/g)(rounding + Bin(B b, 1/4) - B b/4): g and b set its scale."""
    statistics = ALGORITHMS[name](eps=2.0, delta=0.1, B=4, T=T).statistics
    statistics.start(1, D, T, np.random.default_rng(0))
    protocol = statistics.mechanism
    assert (protocol.g, protocol.b, protocol.p) == (*p_vec_parameters(2.0, 0.1, 4, returning), 0.25)


# -- the central tree (LinUCB-JDP and its batched and user-level forms, the concurrent-shuffle baseline) -------

def analytic_gaussian_delta(sigma, eps, sensitivity):
    """The exact delta(eps) of the Gaussian mechanism (Balle & Wang 2018, Theorem 8)."""
    a, b = sensitivity / (2 * sigma), eps * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)


def tree_sigma(eps, delta, leaves, rounds_per_user=1):
    """Node sigma: the analytic Gaussian at l2 sensitivity 2 sqrt 2 sqrt L, L = ceil(log2 N) + 1 nodes per
    leaf, solved here from its exact delta (not the mechanism's calibration), times M0."""
    from scipy.optimize import brentq

    sensitivity = 2 * math.sqrt(2) * math.sqrt(math.ceil(math.log2(leaves)) + 1)
    return rounds_per_user * brentq(lambda s: analytic_gaussian_delta(s, eps, sensitivity) - delta,
                                    1e-3 * sensitivity, 1e3 * sensitivity, xtol=1e-14, rtol=1e-14)


@pytest.mark.parametrize("name, kwargs, batch, leaves, rounds_per_user", [
    ("linucb-jdp", {"eps": 0.5, "delta": 0.1}, 1, T, 1),
    ("batched-central-linucb", {"eps": 0.5, "delta": 0.1, "B": 10}, 10, T // 10, 1),
    ("linucb-jdp-user-level", {"eps": 0.5, "delta": 0.1, "M0": 4}, 1, T, 4),
], ids=["linucb-jdp", "batched-central-linucb", "linucb-jdp-user-level"])
def test_central_tree_variants_draw_the_analytic_gaussian_node_noise(name, kwargs, batch, leaves, rounds_per_user):
    statistics = ALGORITHMS[name](T=T, **kwargs).statistics
    sigma = tree_sigma(0.5, 0.1, leaves, rounds_per_user)
    statistics.start(1, D, T, np.random.default_rng(0))
    assert statistics.mechanism.leaves == leaves
    assert statistics.mechanism.sigma == pytest.approx(sigma, rel=1e-6)
    # the first leaf's prefix is its node alone: N(0, sigma^2) on every entry of u~ when the rows are 0
    conforms(first_entry_of_u(statistics, batch), Gaussian(sigma), seed=1)


def test_cs_linucb_central_baseline_draws_the_analytic_gaussian_node_noise():
    statistics = ALGORITHMS["cs-linucb-central"](eps=0.5, delta=0.1).statistics
    statistics.start(1, D, T, np.random.default_rng(0))
    mechanism = statistics.mechanism
    assert mechanism.sigma == pytest.approx(tree_sigma(0.5, 0.1, T), rel=1e-6)
    first_leaf = np.zeros((SAMPLES, 1, D + 1))
    conforms(lambda size, rng: mechanism.runs(size, rng).add(first_leaf[:size])[:, 0, D], Gaussian(mechanism.sigma),
             seed=2)


def test_cs_linucb_runs_every_block_at_eps_over_k_with_theorem_3_5s_bits():
    eps, delta = 0.5, 0.1
    statistics = ALGORITHMS["cs-linucb"](eps=eps, delta=delta, k=2).statistics
    tree = statistics.tree(64, D)
    assert tree.k == 2 and (tree.epsilon, tree.delta) == (eps / 2, delta / 2)
    for protocol in tree.protocols:
        B = protocol.B
        g = max(math.ceil(2 * math.sqrt(B)), D, 4)
        b = math.ceil(24e4 * g**2 * math.log(4 * (D**2 + 1) / (delta / 2)) ** 2 / ((eps / 2) ** 2 * B))
        assert (protocol.g, protocol.b) == (g, b)


# -- shuffle-glm Algorithm 2: JDP-GLM and Private-GLM -----------------------------------------------------------

GLM_T, GLM_D = 200, 3


def lemma_i4_sigma(eps, delta, kappa_star):
    """sigma_noise = sqrt(36 m log^2(32/delta) / (kappa*^2 eps^2)), m = ceil(log2 T + 1)."""
    m = math.ceil(math.log2(GLM_T) + 1)
    return math.sqrt(36 * m * math.log(32 / delta) ** 2 / (kappa_star**2 * eps**2))


def started(policy, runs, rng):
    policy.start(runs, 2, GLM_T, rng)
    policy._begin(GLM_D)  # the dimension the first contexts would give
    return policy


def test_jdp_glm_trees_draw_lemma_i4s_node_noise():
    eps, delta = 2.0, 0.05
    policy = ALGORITHMS["jdp-glm"](eps=eps, delta=delta, T=GLM_T)
    sigma = lemma_i4_sigma(eps, delta, policy.kappa_star)
    assert policy.settings(GLM_D, GLM_T).sigma_V == policy.settings(GLM_D, GLM_T).sigma_H == pytest.approx(sigma)
    # a node's noise is (Z + Z^T)/2, Z_ij ~ N(0, sigma^2): its diagonal is N(0, sigma^2)
    conforms(lambda size, rng: started(policy, size, rng).tree_V.tree.node_noise(size, rng)[:, 0, 0],
             Gaussian(sigma))


def zcdp_epsilon(sigma, sensitivity, delta):
    """(eps, delta)-DP of m Gaussian nodes at sigma (rho = m Delta^2 / (2 sigma^2) zCDP; Bun & Steinke 2016)."""
    rho = (math.ceil(math.log2(GLM_T)) + 1) * sensitivity**2 / (2 * sigma**2)
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


@pytest.mark.filterwarnings("ignore:.*needs delta > zeta:UserWarning")  # the experiments' delta = zeta
def test_private_glm_trees_spend_a_third_of_the_budget_each():
    eps, delta = 2.0, 0.02
    policy = ALGORITHMS["private-glm"](eps=eps, delta=delta, T=GLM_T)
    settings = policy.settings(GLM_D, GLM_T)
    assert zcdp_epsilon(settings.sigma_V, 1.0, delta / 3) == pytest.approx(eps / 3, rel=1e-9)
    assert zcdp_epsilon(settings.sigma_H, 1 / policy.kappa_star, delta / 3) == pytest.approx(eps / 3, rel=1e-9)
    printed = ALGORITHMS["private-glm"](eps=eps, delta=delta, T=GLM_T, tree="printed")
    assert printed.settings(GLM_D, GLM_T).sigma_V == pytest.approx(lemma_i4_sigma(eps, delta, printed.kappa_star))
    conforms(lambda size, rng: started(policy, size, rng).tree_H.tree.node_noise(size, rng)[:, 1, 1],
             Gaussian(settings.sigma_H))


@pytest.mark.filterwarnings("ignore:.*needs delta > zeta:UserWarning")  # the experiments' delta = zeta
def test_private_glm_calls_dp_sgd_at_a_third_of_the_budget_split_over_its_calls(monkeypatch):
    import dataclasses

    import dpaudit.algorithms.glm.private_glm as private_glm
    from dpaudit.algorithms.environments.glm import GLMBandit

    budgets = []

    class Recorded(private_glm.DPSGD):
        def __init__(self, epsilon, delta, n, d, *args, **kwargs):
            budgets.append((epsilon, delta))
            super().__init__(epsilon, delta, n, d, *args, **kwargs)

    class ShortScale(private_glm.PrivateGLM):
        """Small lambda, threshold and tree noise, so that criterion I fires within a short run."""

        def settings(self, d, T):
            return dataclasses.replace(super().settings(d, T), lam=2.0, threshold=0.08, count1_cutoff=5,
                                       count2_cutoff=3, sigma_V=0.2, sigma_H=0.05)

    monkeypatch.setattr(private_glm, "DPSGD", Recorded)
    eps, delta = 4.0, 0.02
    policy = ShortScale(eps=eps, delta=delta, S=2.0)
    drive(policy, GLMBandit(6, 2, 2.0), runs=2, horizon=60, rng=np.random.default_rng(8))
    # at most 10 calls: (eps/3, delta/3) split evenly over the cutoff's calls
    assert budgets and set(budgets) <= {(eps / 3 / 5, delta / 3 / 5), (eps / 3 / 3, delta / 3 / 3)}
    optimizer = private_glm.DPSGD(*budgets[0], 40, 2)
    assert optimizer.sigma == optimizer.noise_multiplier * optimizer.clip
    assert optimizer.composed_epsilon() <= budgets[0][0]
    conforms(lambda size, rng: optimizer.noisy_sums(np.zeros((size, 1, 2)), rng)[:, 0],
             Gaussian(optimizer.noise_multiplier * optimizer.clip), seed=3)


# -- shuffle-glm Algorithm 1: P_2 and P_GD at (eps/2, delta/2) -------------------------------------------------

def summation_bits(eps, delta, d, n):
    """(g, b) of eq. (127): g = max{ceil(2 sqrt n), d, 4}, b = ceil(24e4 g^2 log^2(4(d^2+1)/delta)/(eps^2 n))."""
    g = max(math.ceil(2 * math.sqrt(n)), d, 4)
    return g, math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (eps**2 * n))


def test_shuffle_glm_runs_p2_and_p_gd_at_half_the_budget(monkeypatch):
    import dataclasses

    import dpaudit.algorithms.glm.parameters as parameters
    import dpaudit.algorithms.glm.shuffle_glm as shuffle_glm
    from dpaudit.algorithms.environments.glm import GLMBandit

    built = []

    class RecordedP2(shuffle_glm.ShuffledMatrixSummation):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self)

    class RecordedPGD(parameters.PrivateGD):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self)

    class ShortBatches(shuffle_glm.ShuffleGLM):
        def settings(self, d, T):
            return dataclasses.replace(super().settings(d, T), lam=1.0, gamma=0.3, batches=(40, 50, T - 90))

    monkeypatch.setattr(shuffle_glm, "ShuffledMatrixSummation", RecordedP2)
    monkeypatch.setattr(parameters, "PrivateGD", RecordedPGD)
    eps, delta, d = 4.0, 0.02, 2
    policy = ShortBatches(eps=eps, delta=delta, S=1.5)
    drive(policy, GLMBandit(6, d, 1.5), runs=2, horizon=100, rng=np.random.default_rng(11))
    p2 = [m for m in built if isinstance(m, RecordedP2)]
    pgd = [m for m in built if isinstance(m, RecordedPGD)]
    assert len(p2) == 3 and len(pgd) == 2  # three batches end; the last one's estimate is used by no decision
    for m in p2:
        assert (m.epsilon, m.delta) == (eps / 2, delta / 2)
        assert (m.g, m.b) == summation_bits(eps / 2, delta / 2, d, m.n)
    for m in pgd:
        assert (m.epsilon, m.delta) == (eps / 2, delta / 2)
        round_eps = eps / 2 / (2 * math.sqrt(2 * m.T_it * math.log(2 / delta)))  # Algorithm 7's per-iteration budget
        assert m.round_epsilon == pytest.approx(round_eps, rel=1e-12)
        assert (m.protocol.g, m.protocol.b) == summation_bits(m.round_epsilon, m.round_delta, d, m.n)


def test_jdp_glm_criterion_one_runs_p_gd_at_the_printed_explore_budget():
    """Algorithm 2 line 8: P_GD on the criterion-I points at (eps_o, delta_o) = (eps / (6 sqrt(2 c1 log(4 /
    delta))), delta / (6 c1)), c1 the rounded criterion-I cutoff; the noise P_GD draws is set by that budget."""
    from dpaudit.algorithms.glm import algorithm2_parameters
    from dpaudit.algorithms.glm.jdp_glm import criterion_one_optimizer

    eps, delta = 2.0, 0.1
    params = algorithm2_parameters(eps, delta, 10**4, 0.05, 3, 1.0, 1.0, 2.0, 4.0)
    c1 = params.count1_cutoff
    pgd = criterion_one_optimizer(params, 16)
    assert (pgd.epsilon, pgd.delta) == pytest.approx(
        (eps / (6 * math.sqrt(2 * c1 * math.log(4 / delta))), delta / (6 * c1)), rel=1e-14)
