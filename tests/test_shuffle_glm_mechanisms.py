"""shuffle-glm's mechanisms: the shuffled vector / matrix summation (Algorithms 4-6), P_GD
(Algorithm 7) and Algorithm 2's symmetric Gaussian trees. Parameters recomputed from the paper's
formulas, fast and per-user paths against the exact laws (conformance audits, false-failure rate
1e-6 each unless stated), the analyzer's unbiasedness from the exact laws, exact privacy audits
with power checks, and clear errors outside the stated ranges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dpaudit.mechanisms.exploration_set import (
    RankOneLeaves,
    SymmetricGaussianTree,
    classical_gaussian_sigma,
    generic_node_budget,
    node_noise_sigma,
    tree_depth,
)
from dpaudit.mechanisms.noise import FiniteIntegerLaw, Gaussian, convolve
from dpaudit.mechanisms.private_gd import (
    LinearLossTranscript,
    PrivateGD,
    advanced_composition,
    logistic_gradient,
)
from dpaudit.mechanisms.bit_summation import binomial_table
from dpaudit.mechanisms.vector_summation import (
    OuterProductSummation,
    ShuffledMatrixSummation,
    ShuffledVectorSummation,
    summation_parameters,
)
from scipy import stats

import dpaudit
from dpaudit import ApproxDP

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
        res = dpaudit.audit_sampler(lambda size, rng: protocol.sample_inputs(np.broadcast_to(x, (size, 16, 2)), rng)[:, 0],
                                    FiniteIntegerLaw(laws[0].offset, laws[0].probs, name="count of label 0"),
                                    samples=200_000, seed=13)
        assert res.verdict == "not-refuted", res.witness
        # labels independent: the sum of the two counts has the convolution's law
        total = convolve(laws[0], laws[1])
        res = dpaudit.audit_sampler(lambda size, rng, draw=draw: draw(x, size, rng).sum(axis=1),
                                    FiniteIntegerLaw(total.offset, total.probs, name="sum of labels"), samples=200_000, seed=3)
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
        res = dpaudit.audit_sampler(lambda size, rng, node=node, coord=coord: tree.sample(leaves, size, rng)[:, node, coord],
                                    Gaussian(mean, 3.0), samples=200_000, seed=7 + coord)
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
                                FiniteIntegerLaw(law.offset, law.probs, name="iteration 4's count"), samples=100_000, seed=9)
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
    (lambda: ShuffledVectorSummation(1.0, 0.1, 2, 2, 1.0).distribution([[1.0, 0.5], [0.0, 0.0]]), "\\|\\|x_i\\|\\|_2 <= Delta"),
    (lambda: ShuffledVectorSummation(1.0, 0.1, 2, 2, 1.0).sample(np.zeros((3, 2)), 4, np.random.default_rng()), "shape \\(2, 2\\)"),
    (lambda: ShuffledMatrixSummation(1.0, 0.1, 2, 1, 1.0).distribution([[[0.0, 0.5], [0.4, 0.0]]]), "symmetric"),
    (lambda: ShuffledMatrixSummation(1.0, 0.1, 2, 1, 1.0).distribution([2 * np.eye(2)]), "operator norm"),
    (lambda: PrivateGD(1.0, 1.0, 8, 1, 1.0, 1.0), "delta must be in \\(0, 1\\)"),
    (lambda: PrivateGD(1.0, 0.1, 8, 1, 1.0, 1.0, step="alg1"), "needs reward_bound"),
    (lambda: PrivateGD(1.0, 0.1, 8, 1, 1.0, 1.0, step="sgd"), "step must be one of"),
    (lambda: PrivateGD(1.0, 0.1, 2, 1, 0.1, 1.0).run(logistic_gradient(), (np.ones(2), np.ones((2, 1))), 3,
                                                     np.random.default_rng()), "norm above L"),
    (lambda: RankOneLeaves(SymmetricGaussianTree(4, 2, 1.0), 0.25).distribution(np.ones((4, 2))), "\\|\\|y\\|\\|\\^2 <= 0.25"),
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
