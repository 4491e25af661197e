"""shuffle-glm's mechanisms: the shuffled vector / matrix summation (Algorithms 4-6), P_GD
(Algorithm 7) and Algorithm 2's symmetric Gaussian trees. Parameters recomputed from the paper's
formulas, fast and per-user paths against the exact laws (conformance audits, false-failure rate
1e-6 each unless stated), the analyzer's unbiasedness from the exact laws, exact privacy audits
with power checks, and clear errors outside the stated ranges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit import ApproxDP
from dpaudit.mechanisms.accounting import advanced_composition
from dpaudit.mechanisms.glm.exploration_set import (
    RankOneLeaves,
    SymmetricGaussianTree,
    classical_gaussian_sigma,
    generic_node_budget,
    max_prefix_noise_norm,
    node_noise_sigma,
    symmetric_gaussian_norms,
    tree_depth,
)
from dpaudit.mechanisms.glm.glm_links import logistic_gradient
from dpaudit.mechanisms.glm.pgd_views import LinearLossTranscript
from dpaudit.mechanisms.glm.private_gd import PrivateGD
from dpaudit.mechanisms.noise import FiniteIntegerLaw, Gaussian, convolve
from dpaudit.mechanisms.shuffle.bit_summation import binomial_table
from dpaudit.mechanisms.shuffle.vector_summation import (
    OuterProductSummation,
    ShuffledMatrixSummation,
    ShuffledVectorSummation,
    summation_parameters,
)

# -- parameters, recomputed from the printed formulas -------------------------------------------


@pytest.mark.parametrize("eps, delta, d, n", [(15.0, 0.4, 2, 16), (1.0, 0.01, 3, 100)])
def test_summation_parameters_follow_eq_127(eps, delta, d, n):
    # (127): g = max{2 sqrt n, d, 4}, b = 24 10^4 g^2 (log(4(d^2 + 1)/delta))^2 / (eps^2 n), p = 1/4
    g = max(math.ceil(2 * math.sqrt(n)), d, 4)
    b = math.ceil(240_000 * g * g * math.log(4 * (d * d + 1) / delta) ** 2 / (eps * eps * n))
    assert summation_parameters(eps, delta, d, n) == (g, b, 0.25)
    protocol = ShuffledVectorSummation(eps, delta, d, n, 1.0)
    assert (protocol.g, protocol.b, protocol.bits_per_entry) == (g, b, 2 * g + b)
    # the worked numbers: (15, 0.4, 2, 16) -> g = 8, b = 65297; (1, 0.01, 3, 100) -> g = 20
    assert (g, b) in {(8, 65297), (20, math.ceil(240_000 * 400 * math.log(4000) ** 2 / 100))}


@pytest.mark.parametrize("eps, delta, n, d, T_it", [(1.0, 0.4, 8, 1, 2), (2.0, 0.4, 4, 1, 5)])
def test_private_gd_parameters_follow_algorithm_7(eps, delta, n, d, T_it):
    pgd = PrivateGD(eps, delta, n, d, lipschitz=2.0, radius=1.5)
    assert pgd.T_it == T_it == max(1, math.floor(eps**2 * n**2 / (d * math.log(n * d / delta) ** 3)))
    assert pgd.eta == pytest.approx(2 * 3.0 / (2.0 * math.sqrt(T_it)), rel=1e-15)  # 2 D / (L sqrt T_it), D = 2S
    assert (pgd.round_epsilon, pgd.round_delta) == pytest.approx(
        (eps / (2 * math.sqrt(2 * T_it * math.log(1 / delta))), delta / (T_it + 1)), rel=1e-15)
    assert pgd.protocol.Delta == 2.0 and pgd.protocol.epsilon == pgd.round_epsilon
    lemma = PrivateGD(eps, delta, n, d, lipschitz=2.0, radius=1.5, step="lemT.2")
    assert lemma.eta == pytest.approx(2 * 1.5 / (2.0 * math.sqrt(T_it)))
    alg1 = PrivateGD(eps, delta, n, d, lipschitz=2.0, radius=1.5, step="alg1", reward_bound=1.0)
    assert alg1.eta == pytest.approx(2 * 1.5 / (1.0 * 1.5 * math.sqrt(T_it)))
    e4 = PrivateGD(eps, delta, n, d, lipschitz=2.0, radius=1.5, iteration_rule="lemE.4")
    assert e4.T_it == max(1, math.floor(eps**2 * n**2 / (d * math.log(n * d / delta))))


def test_composition_accounting_of_lemma_t2():
    """Advanced composition (Dwork & Roth 3.20) of the per-iteration budgets, delta' = delta/(T_it + 1).
    At (1, 0.4, n = 8) it stays within (eps, delta); at (2, 0.4, n = 4) (T_it = 5) it gives 2.37 > 2:
    the printed per-iteration epsilon uses log(1/delta) where the composition needs log((T_it+1)/delta)."""
    small = PrivateGD(1.0, 0.4, 8, 1, 1.0, 1.0)
    eps, delta = small.composed_budget()
    assert eps <= 1.0 and delta == pytest.approx(0.4)
    wide = PrivateGD(2.0, 0.4, 4, 1, 1.0, 1.0)
    e0 = wide.round_epsilon
    by_hand = math.sqrt(2 * 5 * math.log(6 / 0.4)) * e0 + 5 * e0 * (math.exp(e0) - 1)
    assert wide.composed_budget()[0] == pytest.approx(by_hand) and by_hand > 2.0
    assert advanced_composition(1, 0.5, 0.0, 0.1)[1] == 0.1


@pytest.mark.parametrize("T, eps, delta, kappa", [(64, 1.0, 0.02, 4.0), (5000, 4.0, 0.02, 2.507)])
def test_tree_noise_follows_lemma_i4(T, eps, delta, kappa):
    m = math.ceil(math.log2(T) + 1)
    assert tree_depth(T) == m and m in (7, 14)
    assert node_noise_sigma(T, eps, delta, kappa) == pytest.approx(
        math.sqrt(36 * m * math.log(32 / delta) ** 2 / (kappa**2 * eps**2)), rel=1e-15)
    eps0, delta0 = generic_node_budget(eps, delta, m)
    assert (eps0, delta0) == pytest.approx((eps / math.sqrt(8 * m * math.log(2 / delta)), delta / (2 * m)))
    assert classical_gaussian_sigma(eps0, delta0) == pytest.approx(math.sqrt(2 * math.log(1.25 / delta0)) / eps0)


# -- fast and per-user paths against the exact law ------------------------------------------------


def _column(draw, data, k):
    return lambda size, rng: draw(data, size, rng)[:, k]


def test_vector_summation_paths_have_the_exact_law():
    protocol = ShuffledVectorSummation(15.0, 0.4, 2, 16, 1.0)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(16, 2))
    x /= np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))
    laws = protocol.count_laws(x)
    for draw in (protocol.sample, protocol.sample_per_user):
        for k in range(2):
            ref = FiniteIntegerLaw(laws[k].offset, laws[k].probs, name=f"count of label {k}")
            res = dpaudit.audit_sampler(_column(draw, x, k), ref, samples=200_000, seed=11 + k)
            assert res.verdict == "not-refuted", (draw.__name__, k, res.witness)
        # the per-run-input path P_GD uses draws the same law
        res = dpaudit.audit_sampler(lambda size, rng: protocol.sample_inputs(np.broadcast_to(x, (size, 16, 2)),
                                                                             rng)[:, 0],
                                    FiniteIntegerLaw(laws[0].offset, laws[0].probs, name="count of label 0"),
                                    samples=200_000, seed=13)
        assert res.verdict == "not-refuted", res.witness
        # labels independent: the sum of the two counts has the convolution's law
        total = convolve(laws[0], laws[1])
        res = dpaudit.audit_sampler(lambda size, rng, draw=draw: draw(x, size, rng).sum(axis=1),
                                    FiniteIntegerLaw(total.offset, total.probs, name="sum of labels"), samples=200_000,
                                    seed=3)
        assert res.verdict == "not-refuted", (draw.__name__, res.witness)


def test_matrix_summation_paths_have_the_exact_law():
    protocol = ShuffledMatrixSummation(15.0, 0.4, 2, 4, 0.5)
    y = np.array([[0.5, 0.2], [-0.3, 0.4], [0.0, 0.0], [0.6, -0.3]])
    y *= math.sqrt(0.5) / np.linalg.norm(y, axis=1, keepdims=True).clip(min=1.0)
    rank_one = OuterProductSummation(protocol)
    matrices = rank_one.matrices(y)
    laws = protocol.count_laws(matrices)
    assert len(laws) == 3
    for draw in (protocol.sample, protocol.sample_per_user):
        k = 1  # the off-diagonal label (0, 1)
        ref = FiniteIntegerLaw(laws[k].offset, laws[k].probs, name="count of label (0, 1)")
        res = dpaudit.audit_sampler(_column(draw, matrices, k), ref, samples=200_000, seed=21)
        assert res.verdict == "not-refuted", (draw.__name__, res.witness)


def test_analyzer_is_unbiased_from_the_exact_laws():
    """Lemma S.1 / S.2 (accuracy): E[o] = sum_i x_i, computed from the exact count laws."""
    vec = ShuffledVectorSummation(15.0, 0.4, 3, 16, 2.0)
    x = np.random.default_rng(1).uniform(-1, 1, (16, 3))
    means = np.array([law.mean for law in vec.count_laws(x)])
    assert np.allclose(vec.analyze(means), x.sum(axis=0), atol=1e-6)
    mat = ShuffledMatrixSummation(15.0, 0.4, 2, 8, 1.0)
    y = np.random.default_rng(2).uniform(-0.7, 0.7, (8, 2))
    y /= np.maximum(1.0, np.linalg.norm(y, axis=1, keepdims=True))
    X = np.einsum("ni,nj->nij", y, y)
    means = np.array([law.mean for law in mat.count_laws(X)])
    assert np.allclose(mat.analyze(means), X.sum(axis=0), atol=1e-6)
    # the error variance: (Delta/g)^2 [sum frac (1 - frac) + n b p (1 - p)], from the exact law too
    var = vec.error_variance(x)
    exact = np.array([law.var for law in vec.count_laws(x)]) * (vec.Delta / vec.g) ** 2
    assert np.allclose(var, exact, rtol=1e-6)


def test_binomial_table_keeps_its_mass_and_bounds_the_rest():
    table = binomial_table(10**9, 0.25)
    sd = math.sqrt(10**9 * 3 / 16)
    assert table.probs.size == pytest.approx(24 * sd, rel=1e-3)
    assert 0 < table.tail_mass < 1e-23 and abs(table.probs.sum() - 1) < 1e-12
    assert binomial_table(20, 0.25).tail_mass == 0.0  # the whole support fits


def test_private_gd_paths_agree_and_stay_in_the_ball():
    """Fast and per-user P_GD runs (T_it = 5): two-sample KS test on theta_bar (false-failure rate 1e-6)."""
    pgd = PrivateGD(2.0, 0.4, 4, 1, lipschitz=2.0, radius=1.0)
    assert pgd.T_it == 5
    contexts = np.array([[0.5], [-0.6], [0.2], [0.9]])
    data = (np.array([1.0, 0.0, 1.0, 1.0]), contexts)
    gradient = logistic_gradient(regularisation=0.1)
    fast = pgd.run(gradient, data, 4000, np.random.default_rng(1))
    slow = pgd.run(gradient, data, 4000, np.random.default_rng(2), per_user=True)
    assert np.abs(fast).max() <= 1.0 + 1e-12 and fast.std() > 0.1  # iterates move (and are projected)
    assert stats.ks_2samp(fast[:, 0], slow[:, 0]).pvalue > 1e-6


def test_logistic_gradient_is_the_derivative_of_the_loss():
    rng = np.random.default_rng(3)
    r, x, theta = rng.integers(0, 2, 5).astype(float), rng.normal(size=(5, 3)), rng.normal(size=(1, 3))
    def loss(th):
        return -r * (x @ th) + np.log1p(np.exp(x @ th)) + 0.05 * th @ th

    grad = logistic_gradient(0.1)(theta, (r, x))[0]
    h = 1e-6
    numeric = np.stack([(loss(theta[0] + h * e) - loss(theta[0] - h * e)) / (2 * h) for e in np.eye(3)], axis=1)
    assert np.allclose(grad, numeric, atol=1e-6)


def test_symmetric_tree_noise_and_prefix_sums():
    tree = SymmetricGaussianTree(8, 2, 3.0)
    leaves = np.einsum("ti,tj->tij", *(2 * [np.random.default_rng(4).uniform(-0.7, 0.7, (8, 2))]))
    # zero noise through the whitening: the prefix matrices are the running sums of the leaves
    exact = tree.tree.node_sums(tree.whiten(leaves))
    assert np.allclose(tree.prefix_matrices(exact), np.cumsum(leaves, axis=0))
    # Z = (Z' + Z'^T)/2 whitened has i.i.d. N(0, sigma^2) entries: conformance per coordinate kind
    for node, coord in [(0, 0), (3, 1)]:  # a diagonal entry and the off-diagonal one
        mean = exact[node, coord]
        res = dpaudit.audit_sampler(lambda size, rng, node=node, coord=coord:
                                    tree.sample(leaves, size, rng)[:, node, coord],
                                    Gaussian(3.0, loc=mean), samples=200_000, seed=7 + coord)
        assert res.verdict == "not-refuted", res.witness


# -- exact privacy audits, with power -------------------------------------------------------------


def test_summation_privacy_is_decided_exactly_with_power():
    protocol = ShuffledVectorSummation(15.0, 0.4, 2, 16, 1.0)
    a, b = np.zeros((16, 2)), np.zeros((16, 2))
    a[0], b[0] = [-1.0, 0.0], [1.0, 0.0]
    assert dpaudit.audit_privacy(protocol, ApproxDP(15.0, 0.4), pairs=[(a, b)], auditor="exact").verdict == "verified"
    # the shift of 2g = 16 counts against Bin(n b, 1/4) of sd 443 is far from (0.02, 1e-6)
    tight = dpaudit.audit_privacy(protocol, ApproxDP(0.02, 1e-6), pairs=[(a, b)], auditor="exact")
    assert tight.verdict == "refuted" and tight.statistic.interval[0] > 1e-4


def test_pgd_transcript_law_is_the_product_of_its_iterations():
    pgd = PrivateGD(2.0, 0.4, 4, 1, 1.0, 1.0)
    transcript = LinearLossTranscript(pgd)
    u = np.array([[0.5], [-1.0], [0.25], [0.0]])
    dist = transcript.distribution(u)
    assert len(dist.coordinates) == pgd.T_it == 5
    law = pgd.protocol.count_laws(-u)[0]
    res = dpaudit.audit_sampler(lambda size, rng: transcript.sample(u, size, rng)[:, 3],
                                FiniteIntegerLaw(law.offset, law.probs, name="iteration 4's count"), samples=100_000,
                                seed=9)
    assert res.verdict == "not-refuted", res.witness


def test_v_tree_is_refuted_only_when_kappa_star_is_large():
    """Lemma I.4's sigma_noise is calibrated to leaves of norm 1/kappa*; B_V's leaves have norm 1."""
    T, d = 16, 2
    unit = np.eye(d)
    a, b = np.zeros((T, d)), np.zeros((T, d))
    a[0], b[0] = unit[0], unit[1]
    for kappa, verdict in [(4.0, "verified"), (20.0, "refuted")]:
        v = RankOneLeaves(SymmetricGaussianTree(T, d, node_noise_sigma(T, 1.0, 0.02, kappa)), 1.0)
        assert dpaudit.audit_privacy(v, ApproxDP(1 / 3, 0.02 / 6), pairs=[(a, b)], auditor="exact").verdict == verdict


# -- parameters outside the stated ranges ---------------------------------------------------------


@pytest.mark.parametrize("make, message", [
    (lambda: ShuffledVectorSummation(16.0, 0.1, 2, 4, 1.0), "epsilon must be in \\(0, 15\\]"),
    (lambda: ShuffledVectorSummation(1.0, 0.5, 2, 4, 1.0), "delta must be in \\(0, 1/2\\)"),
    (lambda: ShuffledVectorSummation(1.0, 0.1, 2, 0, 1.0), "n must be an integer >= 1"),
    (lambda: ShuffledVectorSummation(1.0, 0.1, 2, 2, 1.0).distribution([[1.0, 0.5], [0.0, 0.0]]),
     "\\|\\|x_i\\|\\|_2 <= Delta"),
    (lambda: ShuffledVectorSummation(1.0, 0.1, 2, 2, 1.0).sample(np.zeros((3, 2)), 4, np.random.default_rng()),
     "shape \\(2, 2\\)"),
    (lambda: ShuffledMatrixSummation(1.0, 0.1, 2, 1, 1.0).distribution([[[0.0, 0.5], [0.4, 0.0]]]), "symmetric"),
    (lambda: ShuffledMatrixSummation(1.0, 0.1, 2, 1, 1.0).distribution([2 * np.eye(2)]), "operator norm"),
    (lambda: PrivateGD(1.0, 1.0, 8, 1, 1.0, 1.0), "delta must be in \\(0, 1\\)"),
    (lambda: PrivateGD(1.0, 0.1, 8, 1, 1.0, 1.0, step="alg1"), "needs reward_bound"),
    (lambda: PrivateGD(1.0, 0.1, 8, 1, 1.0, 1.0, step="sgd"), "step must be one of"),
    (lambda: PrivateGD(1.0, 0.1, 2, 1, 0.1, 1.0).run(logistic_gradient(), (np.ones(2), np.ones((2, 1))), 3,
                                                     np.random.default_rng()), "norm above L"),
    (lambda: RankOneLeaves(SymmetricGaussianTree(4, 2, 1.0), 0.25).distribution(np.ones((4, 2))),
     "\\|\\|y\\|\\|\\^2 <= 0.25"),
    (lambda: SymmetricGaussianTree(4, 2, 1.0).distribution(np.ones((4, 2, 3))), "leaves must have shape"),
    (lambda: classical_gaussian_sigma(1.5, 0.1), "epsilon must be in \\(0, 1\\)"),
    (lambda: node_noise_sigma(64, 1.0, 1.5, 4.0), "delta must be in \\(0, 1\\)"),
])
def test_out_of_range_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("eps, delta, cutoff", [(1.0, 0.02, 10), (4.0, 0.02, 100), (1.0, 1e-5, 1000)])
def test_optimizer_budget_split_of_algorithm_2_composes_within_its_share(eps, delta, cutoff):
    """Lemma I.6: cutoff calls at (eps / (6 sqrt(2 cutoff log(4/delta))), delta / (6 cutoff)) compose
    (advanced composition, delta' = delta/6) to at most (eps/3, delta/3); each group (theta_o calls on
    the T_o users, theta_tau calls on the others) is about disjoint users, so each needs its own share."""
    per_eps = eps / (6 * math.sqrt(2 * cutoff * math.log(4 / delta)))
    total_eps, total_delta = advanced_composition(cutoff, per_eps, delta / (6 * cutoff), delta / 6)
    assert total_eps <= eps / 3 and total_eps > eps / 6  # within the share, which the first term alone nearly fills
    assert total_delta == pytest.approx(delta / 3)


# -- Algorithm 2's criterion-II call, Algorithm 1's batch release ---------------------------------

from dpaudit import exact  # noqa: E402
from dpaudit.algorithms.glm.parameters import (  # noqa: E402  (grouped with the tests that use them)
    algorithm1_lambdas,
    algorithm1_optimizer,
    algorithm2_parameters,
    criterion_two_optimizer,
)
from dpaudit.mechanisms.glm.geometry import Ball, Ellipsoid  # noqa: E402
from dpaudit.mechanisms.glm.pgd_views import BatchRelease, FirstIterationView  # noqa: E402


@pytest.mark.parametrize("eps, delta, T, zeta, d, kappa, kappa_star, n", [
    (40.0, 0.9, 64, 0.45, 2, 5.09, 4.0, 4), (4.0, 0.02, 5000, 0.01, 3, 222.15, 2.507, 50)])
def test_criterion_two_call_follows_algorithm_2(eps, delta, T, zeta, d, kappa, kappa_star, n):
    R, S = 1.0, 1.0
    p = algorithm2_parameters(eps, delta, T, zeta, d, R, S, kappa, kappa_star)
    r = math.sqrt(d)
    lam = (64 * (4 * r + 1) * math.log(32 / delta) * math.log(T) * (math.log(16 * T / zeta) + r)
           / (eps * kappa_star))  # (19)
    gamma = R**5 * S**4 * d * math.log(T * d / zeta) ** 2 * math.log(32 / delta) / (min(eps, 1) * kappa_star**2)  # (21)
    lam_min, lam_max = 4 * r * lam / (4 * r + 1), (4 * r + 2) * lam / (4 * r + 1)
    c2 = math.log2(lam_max / lam_min + (T / kappa_star**2) / (lam_min * d))
    assert 0 < c2 < 1  # as printed the cutoff is below one call at both points: rounded up to 1
    assert (p.lam, p.gamma, p.lam_min, p.lam_max) == pytest.approx((lam, gamma, lam_min, lam_max), rel=1e-13)
    assert p.count2_cutoff == 1 and p.count1_cutoff == math.ceil(8 * d * R**2 * kappa * gamma**2 * math.log(T))
    assert p.switch_budget == pytest.approx((eps / (6 * math.sqrt(2 * math.log(4 / delta))), delta / 6), rel=1e-14)
    theta_o, V = np.full(d, 0.1), lam * np.eye(d) + np.diag(np.arange(1.0, d + 1))
    pgd, gradient = criterion_two_optimizer(p, n, theta_o, V)
    radius = gamma * math.sqrt(kappa)
    assert pgd.domain.radius == pytest.approx(radius)
    assert pgd.domain.diameter == pytest.approx(2 * radius / math.sqrt(lam + 1))  # lambda_min(V) = lambda + 1
    L = R + lam_max * (np.linalg.norm(theta_o) + radius / math.sqrt(lam + 1)) / n
    assert pgd.lipschitz == pytest.approx(L, rel=1e-12) and pgd.protocol.Delta == pgd.lipschitz
    eps_tau, delta_tau = p.switch_budget
    T_it = max(1, math.floor(eps_tau**2 * n**2 / (d * math.log(n * d / delta_tau) ** 3)))
    assert pgd.T_it == T_it == 1 and pgd.eta == pytest.approx(2 * pgd.domain.diameter / (L * math.sqrt(T_it)))
    # theta_0 = Pi_Theta(0) = 0 here, so the view's inputs are the loss gradients (1/2 - r) x
    rows = np.column_stack([np.arange(n) % 2, np.tile(np.eye(d)[0], (n, 1))])
    assert np.allclose(FirstIterationView(pgd, gradient).inputs(rows), (0.5 - rows[:, :1]) * rows[:, 1:])


@pytest.mark.parametrize("eps, delta, d, n, T", [(4.0, 0.1, 2, 4, 1000), (2.0, 0.2, 3, 16, 10**4)])
def test_algorithm1_optimizer_follows_eqs_8_15_and_d2(eps, delta, d, n, T):
    kappa_star, R, S = 4.0, 1.0, 1.0
    M = math.ceil(math.log2(math.log2(T)))
    g = max(math.ceil(2 * math.sqrt(n)), d, 4)
    b = math.ceil(240_000 * g * g * math.log(4 * (d * d + 1) / (delta / 2)) ** 2 / ((eps / 2) ** 2 * n))
    sigma = (1 / kappa_star) / g * math.sqrt(n / 4 + n * b * 3 / 16)  # the choice for (10)'s sigma
    lam = 20 * d * R * math.log(T) + sigma * 6 * math.sqrt(math.log(2 * d * M * T / delta))  # (8)
    lam_max = lam + (8 * R * math.log(d * d / delta) / (kappa_star * eps)
                     * (math.sqrt(d) + 6 * math.sqrt(math.log(2 * M * T / delta))))  # (15)
    assert algorithm1_lambdas(eps, delta, d, n, T, kappa_star) == pytest.approx((sigma, lam, lam_max), rel=1e-13)
    pgd, _ = algorithm1_optimizer(eps, delta, d, n, T, kappa_star, R, S)
    assert pgd.lipschitz == pytest.approx(R * S + S + S * lam_max / n, rel=1e-13)  # D.2
    T_it = max(1, math.floor((eps / 2) ** 2 * n**2 / (d * math.log(n * d / (delta / 2)) ** 3)))
    assert pgd.T_it == T_it and pgd.eta == pytest.approx(2 * S / (R * S * math.sqrt(T_it)))
    assert (pgd.epsilon, pgd.delta, pgd.domain.radius) == (eps / 2, delta / 2, S)


def test_ellipsoid_projection_is_the_euclidean_projection():
    """Inside points stay; outside points land on the boundary with y - p = nu V (p - c), nu > 0 (KKT)."""
    V = np.array([[4.0, 1.0], [1.0, 2.0]])
    ell = Ellipsoid([0.5, -0.2], V, 1.0)
    y = np.random.default_rng(6).normal(scale=2.0, size=(500, 2))
    p = ell.project(y)
    inside = ell.contains(y)
    assert inside.any() and (~inside).any()
    assert np.array_equal(p[inside], y[inside]) and ell.contains(p).all()
    q = p[~inside] - ell.center
    assert np.allclose(np.einsum("ni,ij,nj->n", q, V, q), 1.0, rtol=1e-9)
    normal = q @ V
    nu = np.einsum("ni,ni->n", y[~inside] - p[~inside], normal) / np.einsum("ni,ni->n", normal, normal)
    assert (nu > 0).all() and np.allclose(y[~inside] - p[~inside], nu[:, None] * normal, atol=1e-9)
    # V = I centred at 0 is the ball
    assert np.allclose(Ellipsoid([0.0, 0.0], np.eye(2), 1.5).project(y), Ball(1.5).project(y), atol=1e-12)


def test_private_gd_on_an_ellipsoid_paths_agree():
    """Fast and per-user P_GD runs on an ellipsoid (T_it = 4, 0 outside Theta so theta_0 is projected):
    two-sample KS test on each coordinate of theta_bar (false-failure rate 2e-6)."""
    domain = Ellipsoid([1.0, 0.0], np.diag([4.0, 1.0]), 1.0)
    pgd = PrivateGD(4.0, 0.4, 4, 2, lipschitz=3.0, domain=domain)
    assert pgd.T_it == 4 and np.allclose(pgd.start(1), [[0.5, 0.0]])
    data = (np.array([1.0, 0.0, 1.0, 1.0]), np.array([[0.5, 0.1], [-0.6, 0.3], [0.2, -0.2], [0.9, 0.0]]))
    gradient = logistic_gradient(regularisation=0.1)
    fast = pgd.run(gradient, data, 4000, np.random.default_rng(1))
    slow = pgd.run(gradient, data, 4000, np.random.default_rng(2), per_user=True)
    assert domain.contains(fast).all() and fast.std(axis=0).min() > 0.01  # averages of points of the convex Theta
    for k in range(2):
        assert stats.ks_2samp(fast[:, k], slow[:, k]).pvalue > 1e-6


def _batch(eps=4.0, delta=0.1, n=4, Delta=1.0, weighted=False, summation_budget=None):
    pgd, gradient = algorithm1_optimizer(eps, delta, 2, n, 1000, 4.0)
    budget = summation_budget or (eps / 2, delta / 2)
    return BatchRelease(ShuffledMatrixSummation(*budget, 2, n, Delta), FirstIterationView(pgd, gradient),
                        weighted=weighted)


def test_batch_release_samples_have_its_exact_law():
    """Conformance of one P_2 label and one P_GD label of the composed release (false-failure rate 1e-6 each)."""
    release = _batch(Delta=0.25, weighted=True)
    rows = np.array([[1.0, 0.6, 0.8, 0.25], [0.0, 1.0, 0.0, 0.1], [1.0, 0.0, -1.0, 0.2], [0.0, 0.0, 0.0, 0.0]])
    coords = release.distribution(rows).coordinates
    assert len(coords) == 3 + 2
    matrices, _ = release.parts(rows)
    assert np.allclose(matrices[0], 0.25 * np.outer([0.6, 0.8], [0.6, 0.8]))
    gradients = release.optimizer.inputs(rows[:, :3])
    laws = release.summation.count_laws(matrices) + release.optimizer.pgd.protocol.count_laws(gradients)
    for k in (1, 3):  # P_2's off-diagonal label, P_GD's first label
        ref = FiniteIntegerLaw(laws[k].offset, laws[k].probs, name=f"coordinate {k}")
        res = dpaudit.audit_sampler(lambda size, rng, k=k: release.sample(rows, size, rng)[:, k], ref,
                                    samples=100_000, seed=31 + k)
        assert res.verdict == "not-refuted", (k, res.witness)


def test_batch_release_composes_its_parts_and_has_power():
    """The product's delta is at least its P_2 part's (adding independent coordinates cannot hide a loss);
    with P_2 calibrated for (15, 0.4) (delta(0.05) = 2.5e-4) the release is refuted at (0.05, 1e-4)."""
    a, b = np.zeros((4, 3)), np.zeros((4, 3))
    a[0], b[0] = [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]
    weak = _batch(eps=4.9, delta=0.49, summation_budget=(15.0, 0.4))  # the smallest P_GD tables in Theorem 5.1's range
    whole = exact.privacy_profile(weak.distribution(a), weak.distribution(b), 0.05).delta
    matrices = [weak.parts(x)[0] for x in (a, b)]
    part = exact.privacy_profile(*(weak.summation.distribution(m) for m in matrices), 0.05).delta
    assert whole.hi >= part.lo and part.lo > 2e-4
    res = dpaudit.audit_privacy(weak, ApproxDP(0.05, 1e-4), pairs=[(a, b)], auditor="exact")
    assert res.verdict == "refuted"


@pytest.mark.parametrize("make, message", [
    (lambda: algorithm2_parameters(1.0, 0.02, 64, 0.02, 2, 1.0, 1.0, 5.0, 4.0), "zeta must be < delta"),
    (lambda: algorithm2_parameters(1.0, 1.5, 64, 0.01, 2, 1.0, 1.0, 5.0, 4.0), "delta must be in \\(0, 1\\)"),
    (lambda: algorithm1_lambdas(6.0, 0.1, 2, 4, 1000, 4.0), "Theorem 5.1 covers eps in \\(0, 5\\)"),
    (lambda: algorithm1_optimizer(1.0, 0.6, 2, 4, 1000, 4.0), "delta in \\(0, 1/2\\)"),
    (lambda: Ellipsoid([0.0, 0.0], [[1.0, 0.0], [0.0, -1.0]], 1.0), "positive definite"),
    (lambda: Ellipsoid([0.0, 0.0], [[1.0, 0.5], [0.0, 1.0]], 1.0), "symmetric"),
    (lambda: Ellipsoid([0.0, 0.0], np.eye(2), 0.0), "radius must be > 0"),
    (lambda: PrivateGD(1.0, 0.1, 8, 2, 1.0, 1.0, domain=Ball(1.0)), "exactly one of radius"),
    (lambda: PrivateGD(1.0, 0.1, 8, 2, 1.0, domain=Ellipsoid([0.0], [[1.0]], 1.0)), "domain is in R\\^1"),
    (lambda: _batch(eps=4.0, delta=0.4, n=16), "only with T_it = 1"),
    (lambda: _batch().distribution(np.zeros((4, 4))), "shape \\(4, 3\\)"),
    (lambda: _batch(Delta=0.25, weighted=True).distribution(np.full((4, 4), -0.1)), "weights"),
])
def test_out_of_range_parameters_of_the_algorithm_calls_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# -- Algorithm 2's released view for one criterion-II user (Lemma I.7 / Theorem 6.2) ------------------

from dpaudit.algorithms.glm.parameters import criterion_two_user_view  # noqa: E402
from dpaudit.core.distributions import ProductDistribution  # noqa: E402
from dpaudit.mechanisms.glm.pgd_views import CriterionTwoUserView  # noqa: E402

_LOGISTIC_KAPPA = 1 / stats.logistic.pdf(1.0)  # kappa = 1/mu'(1) for R = S = 1


def _view(eps=40.0, delta=0.9, T=64, zeta=0.45, d=2, rounds=(4, 5, 6, 7), theta_o=(0.5, 0.0)):
    params = algorithm2_parameters(eps, delta, T, zeta, d, 1.0, 1.0, _LOGISTIC_KAPPA, 4.0)
    V = params.lam * np.eye(d) + np.diag(np.arange(1.0, d + 1))
    return params, criterion_two_user_view(params, list(rounds), list(theta_o), V)


@pytest.mark.parametrize("eps, delta, T, zeta, d, rounds, theta_o", [
    (40.0, 0.9, 64, 0.45, 2, (4, 5, 6, 7), (0.5, 0.0)), (20.0, 0.5, 32, 0.25, 3, (2, 5, 9), (0.2, -0.1, 0.3))])
def test_criterion_two_user_view_follows_algorithm_2(eps, delta, T, zeta, d, rounds, theta_o):
    """sigma_noise of Lemma I.4, line 12's call (n = the criterion-II rounds before tau, (eps_tau, delta_tau)
    with count2_cutoff = 1, L = R + lambda_max max_Theta ||theta|| / n) and line 24's leaf, from the formulas."""
    kappa_star, n = 4.0, len(rounds)
    _, view = _view(eps, delta, T, zeta, d, rounds, theta_o)
    m = math.ceil(math.log2(T) + 1)
    assert view.tree.sigma == pytest.approx(math.sqrt(36 * m * math.log(32 / delta) ** 2 / (kappa_star * eps) ** 2))
    r = math.sqrt(d)
    lam = 64 * (4 * r + 1) * math.log(32 / delta) * math.log(T) * (math.log(16 * T / zeta) + r) / (eps * kappa_star)
    lam_min, lam_max = 4 * r * lam / (4 * r + 1), (4 * r + 2) * lam / (4 * r + 1)
    assert math.ceil(math.log2(lam_max / lam_min + (T / kappa_star**2) / (lam_min * d))) == 1  # one criterion-II call
    gamma = d * math.log(T * d / zeta) ** 2 * math.log(32 / delta) / (min(eps, 1) * kappa_star**2)
    pgd = view.optimizer.pgd
    assert (pgd.n, pgd.d, pgd.T_it) == (n, d, 1)
    assert (pgd.epsilon, pgd.delta) == pytest.approx((eps / (6 * math.sqrt(2 * math.log(4 / delta))), delta / 6))
    radius = gamma * math.sqrt(_LOGISTIC_KAPPA)
    L = 1 + lam_max * (np.linalg.norm(theta_o) + radius / math.sqrt(lam + 1)) / n
    assert pgd.lipschitz == pytest.approx(L, rel=1e-12)
    rows = np.column_stack([np.arange(n) % 2, np.eye(n, d, k=0) * 0.9])
    leaves = view.leaves(rows)
    for j, t in enumerate(rounds):
        x = rows[j, 1:]
        assert np.allclose(leaves[t - 1], stats.logistic.pdf(x @ np.asarray(theta_o)) / math.e * np.outer(x, x))
    assert np.count_nonzero(np.abs(leaves).sum(axis=(1, 2))) == np.count_nonzero(np.abs(rows[:, 1:]).sum(axis=1))
    assert len(view.distribution(rows).coordinates) == T * d * (d + 1) // 2 + d


def _p_sums_by_hand(leaves, T):
    """Block t of the binary mechanism: the leaves (t - lowbit(t), t], upper triangle, off-diagonal times sqrt 2."""
    d = leaves.shape[1]
    upper = np.triu_indices(d)
    scale = np.where(upper[0] == upper[1], 1.0, math.sqrt(2))
    return np.array([leaves[t - (t & -t): t].sum(axis=0)[upper] * scale for t in range(1, T + 1)])


def test_criterion_two_user_view_is_the_product_of_its_parts():
    """On a tiny instance (T = 8): the Gaussian coordinates are the p-sums recomputed by hand with
    sigma_noise, the finite ones P_1's count laws of the gradients (1/2 - r) x (theta_0 = 0 is inside
    Theta); and samples of a node holding two users' leaves and of one count conform to them
    (false-failure rate 1e-6 each)."""
    _, view = _view(T=8, rounds=(2, 3, 5, 6))
    rows = np.array([[1.0, 0.6, 0.8], [0.0, 0.0, -1.0], [1.0, 1.0, 0.0], [0.0, -0.6, 0.0]])
    law = view.distribution(rows).coordinates
    assert np.allclose(view.optimizer.pgd.start(1), 0.0)
    gaussians, counts = law[:8 * 3], law[8 * 3:]
    assert all(g.sigma == view.tree.sigma for g in gaussians)
    assert np.allclose([g.loc for g in gaussians], _p_sums_by_hand(view.leaves(rows), 8).ravel(), atol=1e-15)
    expected = view.optimizer.pgd.protocol.count_laws((0.5 - rows[:, :1]) * rows[:, 1:])
    for got, want in zip(counts, expected, strict=True):
        reference = want.finite_distribution()
        assert np.array_equal(got.outcomes, reference.outcomes) and np.array_equal(got.log_probs, reference.log_probs)
    for k, ref in [(3 * 3 + 2, gaussians[3 * 3 + 2]),  # node ending at 4 (leaves 2, 3), entry (2, 2)
                   (8 * 3, FiniteIntegerLaw(expected[0].offset, expected[0].probs, name="P_1's first count"))]:
        res = dpaudit.audit_sampler(_column(view.sample, rows, k), ref, samples=100_000, seed=70 + k)
        assert res.verdict == "not-refuted", (k, res.witness)


def test_criterion_two_user_view_composes_its_parts_and_has_power():
    """At the suite's point the product's delta is at least each part's (independent coordinates cannot hide
    a loss) and within the claim; with B_H's sigma_noise divided by 20 (a miscalibrated tree: mu = 15.9 on
    this pair) the same pair refutes Lemma I.7's (2 eps/3, 2 delta/3)."""
    params, view = _view()
    a = np.tile([0.0, 1.0, 0.0], (4, 1))
    b = a.copy()
    b[0] = [1.0, 0.0, -1.0]
    eps = 2 * params.epsilon / 3
    P, Q = view.distribution(a).coordinates, view.distribution(b).coordinates
    whole = exact.privacy_profile(ProductDistribution(Q), ProductDistribution(P), eps).delta
    nodes = exact.privacy_profile(ProductDistribution(Q[:192]), ProductDistribution(P[:192]), eps).delta
    call = exact.privacy_profile(ProductDistribution(Q[192:]), ProductDistribution(P[192:]), eps).delta
    # the true delta is ~0: the upper end is the bound on the FFT convolution's error summed over the grid (~1e-10)
    assert whole.hi >= max(nodes.lo, call.lo) and whole.hi < 1e-9
    claim = ApproxDP(eps, 2 * params.delta / 3)
    assert dpaudit.audit_privacy(view, claim, pairs=[(a, b)], auditor="exact").verdict == "verified"
    weak = CriterionTwoUserView(SymmetricGaussianTree(64, 2, view.tree.sigma / 20), view.optimizer, [4, 5, 6, 7])
    res = dpaudit.audit_privacy(weak, claim, pairs=[(a, b)], auditor="exact")
    assert res.verdict == "refuted" and res.witness["delta"] > 0.99


@pytest.mark.parametrize("make, message", [
    (lambda: _view(rounds=(4, 5, 6, 64)), "rounds must be"),
    (lambda: _view(rounds=(4, 4, 6, 7)), "rounds must be"),
    (lambda: CriterionTwoUserView(_view()[1].tree, _view()[1].optimizer, [4, 5, 6]), "rounds must be"),
    (lambda: _view()[1].distribution(np.array([[0.0, 1.0, 0.5]] * 4)), "\\|\\|x\\|\\| <= 1"),
    (lambda: _view()[1].distribution(np.zeros((4, 4))), "shape \\(4, 3\\)"),
    (lambda: CriterionTwoUserView(SymmetricGaussianTree(8, 2, 1.0), FirstIterationView(
        PrivateGD(4.0, 0.4, 4, 2, 3.0, domain=Ellipsoid([1.0, 0.0], np.diag([4.0, 1.0]), 1.0)), logistic_gradient()),
        [1, 2, 3, 4]), "only with T_it = 1"),
    (lambda: CriterionTwoUserView(SymmetricGaussianTree(8, 2, 1.0), FirstIterationView(
        PrivateGD(1.0, 0.1, 8, 2, 1.0, 1.0), logistic_gradient()), list(range(1, 9))), "ellipsoid"),
    (lambda: CriterionTwoUserView(SymmetricGaussianTree(8, 3, 1.0), _view()[1].optimizer, [1, 2, 3, 4]), "d = 3"),
])
def test_out_of_range_parameters_of_the_user_view_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_the_unbiasedness_entries_hold_and_a_debiasing_off_by_one_count_fails():
    """lemS.1-accuracy / lemS.2-accuracy: verified on their points; a protocol whose analyzer subtracts one count
    too many (bias Delta/g = 1/8) fails the step."""
    from dpaudit.auditors.lower_bound import evaluate_step
    from dpaudit.audits.shuffle_glm import summation
    from dpaudit.suite import find_entry

    for cid in ("lemS.1-accuracy@eps15,delta0.4,d2,n16", "lemS.1-accuracy@eps1,delta0.01,d2,n16",
                "lemS.2-accuracy@eps15,delta0.4,d2,n16,rank1"):
        entry = find_entry(f"shuffle-glm/{cid}")
        assert dpaudit.audit_lower_bound(entry.claim).verdict == "verified", cid

    class OffByOne(ShuffledVectorSummation):
        def debias(self, counts):
            return super().debias(np.asarray(counts) - 1)

    x = summation._in_ball(16, 2, 1)
    assert evaluate_step(summation.unbiased_step(ShuffledVectorSummation(15.0, 0.4, 2, 16, 1.0), x),
                         {})["status"] == "holds"
    assert evaluate_step(summation.unbiased_step(OffByOne(15.0, 0.4, 2, 16, 1.0), x), {})["status"] == "fails"


@pytest.mark.parametrize("T, d", [(256, 3), (16, 2), (8, 5), (1, 3)])
def test_the_largest_prefix_noise_norm_is_every_prefixs_largest(T, d):
    """max over t of the prefix noise's spectral norm, decomposing only the prefixes whose Frobenius norm reaches
    the run's floor: the same numbers, bit for bit, as every prefix's eigenvalues (the same draws), over blocks of
    runs (300 runs at T = 256, d = 3: four blocks); a tree of one round included."""
    tree = SymmetricGaussianTree(T, d, 0.7)
    fast = max_prefix_noise_norm(300, np.random.default_rng(4), tree)
    rng, zeros, block = np.random.default_rng(4), np.zeros((T, d, d)), max(1, 200_000 // (T * d * d))
    every = np.concatenate([np.abs(np.linalg.eigvalsh(tree.prefix_matrices(tree.sample(zeros, min(block, 300 - s),
                                                                                          rng)))).max(axis=(1, 2))
                            for s in range(0, 300, block)])
    np.testing.assert_array_equal(fast, every)


@pytest.mark.parametrize("d", [1, 3, 20])
def test_symmetric_gaussian_norms_are_the_symmetrised_draws_norms(d):
    """||Z|| of each draw's upper triangle made symmetric, computed from the transposed draws' lower triangle (what
    eigvalsh reads): the same numbers, bit for bit, over blocks of draws."""
    size = 2500
    fast = symmetric_gaussian_norms(size, np.random.default_rng(5), d)
    rng, block, out = np.random.default_rng(5), max(1, min(size, 20_000 // d)), []
    for start in range(0, size, block):
        upper = np.triu(rng.standard_normal((min(block, size - start), d, d)))
        z = upper + np.transpose(np.triu(upper, 1), (0, 2, 1))
        assert np.array_equal(z, np.swapaxes(z, 1, 2))
        out.append(np.abs(np.linalg.eigvalsh(z)).max(axis=1))
    np.testing.assert_array_equal(fast, np.concatenate(out))
