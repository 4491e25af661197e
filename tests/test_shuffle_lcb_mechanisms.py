"""shuffle-lcb's protocols P_Vec and P_Amp and the local Gaussian randomizer: parameters recomputed
from the paper's formulas, fast and per-user paths against the exact laws (conformance audits,
false-failure rate 1e-6 each), A_Vec's unbiasedness (Theorem C.1), the exact privacy audits with
power checks, Lemma B.4, and the refusals outside the theorems' ranges."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit import ApproxDP
from dpaudit.core.neighbours import ReplaceUser
from dpaudit.mechanisms import noise
from dpaudit.mechanisms.shuffle.shuffle_amp import (
    CloneLikelihoodRatio,
    GaussianRandomizer,
    ShuffledGaussianProtocol,
    ldp_sigma,
    returning_user_batch_budget,
    returning_user_sigma,
    shuffle_amplification,
    unique_user_ldp_budget,
    unique_user_sigma,
)
from dpaudit.mechanisms.shuffle.shuffle_vec import (
    ReturningUserTranscript,
    ShuffledVectorProtocol,
    ldp_parameters,
    returning_user_parameters,
    unique_user_parameters,
    user_entries,
)
from dpaudit.mechanisms.shuffle.shuffled_response import fmt_shuffle_epsilon

# -- parameters, recomputed from the printed formulas (natural log) ----------------------------------


@pytest.mark.parametrize("eps, delta, d, B, g", [(1.0, 0.1, 5, 20, 9), (15.0, 0.4, 2, 16, 8), (0.5, 0.01, 3, 100, 20)])
def test_theorem_3_5_parameters(eps, delta, d, B, g):
    # g = max{2 sqrt B, d, 4} rounded up; b = 24 10^4 g^2 log^2(4 (d^2 + 1) / delta) / (eps^2 B) rounded up
    assert g == max(math.ceil(2 * B**0.5), d, 4)
    b = math.ceil(240_000 * g * g * math.log(4 * (d * d + 1) / delta) ** 2 / (eps * eps * B))
    assert unique_user_parameters(eps, delta, d, B) == (g, b)
    p = ShuffledVectorProtocol.unique_users(eps, delta, d, B)
    assert (p.g, p.b, p.p, p.labels, p.bits_per_entry) == (g, b, 0.25, d + d * (d + 1) // 2, 2 * g + b)


def test_the_experiments_b_values():
    """d = 5, B = 20, delta = 0.1: log(4 * 26 / 0.1) = log(1040) = 6.94698; b = 24e4 * 81 * 6.94698^2 / (eps^2 * 20)."""
    assert math.log(1040) == pytest.approx(6.946976, abs=1e-6)
    assert [unique_user_parameters(e, 0.1, 5, 20)[1] for e in (0.2, 1.0, 10.0)] == [1_172_729_554, 46_909_183, 469_092]


@pytest.mark.parametrize("eps0, delta0, d", [(15.0, 0.4, 2), (1.0, 0.1, 2), (2.0, 0.05, 7)])
def test_corollary_c3_parameters(eps0, delta0, d):
    g = max(d, 4)
    b = math.ceil(240_000 * g * g * math.log(4 * (d * d + 1) / delta0) ** 2 / eps0**2)
    assert ldp_parameters(eps0, delta0, d) == (g, b)
    assert ldp_parameters(eps0, delta0, d) == unique_user_parameters(eps0, delta0, d, 1)  # the B = 1 case


@pytest.mark.parametrize("eps, delta, d, B, T", [(15.0, 0.4, 2, 16, 64), (1.0, 0.1, 5, 20, 20_000)])
def test_theorem_e5_parameters(eps, delta, d, B, T):
    g = max(math.ceil(2 * B**0.5), d, 4)
    log_term = math.log(8 * T * (d * d + 1) / (B * delta))
    b = math.ceil(1e7 * math.log(2 / delta) * g * g * T * log_term**2 / (eps * eps * B * B))
    assert returning_user_parameters(eps, delta, d, B, T) == (g, b)
    assert returning_user_parameters(15.0, 0.4, 2, 16, 64) == (8, 41_084_470)


@pytest.mark.parametrize("eps0, delta0, sigma", [(1.0, 1e-5, 19.9433), (0.2, 0.1, 50.7454)])
def test_ldp_sigma(eps0, delta0, sigma):
    expected = 4 * math.sqrt(2 * math.log(2.5 / delta0)) / eps0
    assert ldp_sigma(eps0, delta0) == pytest.approx(expected, rel=1e-14)
    assert expected == pytest.approx(sigma, abs=1e-4)
    assert GaussianRandomizer.ldp(eps0, delta0, 3).sigma == ldp_sigma(eps0, delta0)


@pytest.mark.parametrize("eps, delta, B", [(0.2, 0.1, 20), (0.1, 0.1, 200)])
def test_theorem_3_2_sigma_is_the_ldp_sigma_at_the_proofs_budget(eps, delta, B):
    sigma = 4 * math.sqrt(2 * math.log(2.5 * B / delta) * math.log(2 / delta)) / (eps * math.sqrt(B))
    assert unique_user_sigma(eps, delta, B) == pytest.approx(sigma, rel=1e-14)
    eps0, delta0 = unique_user_ldp_budget(eps, delta, B)
    assert (eps0, delta0) == pytest.approx((eps * math.sqrt(B / math.log(2 / delta)), delta / B), rel=1e-14)
    assert ldp_sigma(eps0, delta0) == pytest.approx(sigma, rel=1e-12)


@pytest.mark.parametrize("eps, delta, B, T", [(1.0, 0.1, 20, 20_000), (0.5, 0.01, 100, 10_000)])
def test_theorem_e3_sigma(eps, delta, B, T):
    sigma = 16 * math.log(2 / delta) * math.sqrt(T * math.log(5 * T / delta)) / (eps * B)
    assert returning_user_sigma(eps, delta, B, T) == pytest.approx(sigma, rel=1e-14)
    # its per-user LDP level (delta0 = delta / (2T), the proof's delta_m / B):
    # eps0 = sqrt 2 eps B / (4 log(2/delta) sqrt T)
    eps0 = 4 * math.sqrt(2 * math.log(2.5 * 2 * T / delta)) / sigma
    assert eps0 == pytest.approx(math.sqrt(2) * eps * B / (4 * math.log(2 / delta) * math.sqrt(T)), rel=1e-12)
    # the printed sigma vs Theorem B.1's sigma at the proof's per-batch budget (eps_m, delta_m): the
    # substitution gives a factor sqrt(log(4T/(delta B)) / log(2/delta)) more noise than printed
    eps_m, delta_m = returning_user_batch_budget(eps, delta, B, T)
    substituted = 4 * math.sqrt(2 * math.log(2.5 * B / delta_m) * math.log(2 / delta_m)) / (eps_m * math.sqrt(B))
    ratio = math.sqrt(math.log(4 * T / (delta * B)) / math.log(2 / delta))
    assert substituted / sigma == pytest.approx(ratio, rel=1e-12)


@pytest.mark.parametrize("eps0, delta0, n, dp", [(0.8170784, 5e-4, 200, 0.05), (1.0, 0.0, 1000, 1e-6)])
def test_lemma_b4(eps0, delta0, n, dp):
    e = math.exp(eps0)
    eps_t = math.log(1 + (e - 1) / (e + 1) * (8 * math.sqrt(e * math.log(4 / dp)) / math.sqrt(n) + 8 * e / n))
    delta_t = dp + (math.exp(eps_t) + 1) * (1 + math.exp(-eps0) / 2) * n * delta0
    assert shuffle_amplification(eps0, delta0, n, dp) == pytest.approx((eps_t, delta_t), rel=1e-13)
    assert eps_t == pytest.approx(fmt_shuffle_epsilon(eps0, n, dp), rel=1e-15)  # the same statement as FMT Thm 3.1
    with pytest.raises(ValueError, match="Theorem 3.1 needs"):
        shuffle_amplification(math.log(n / (16 * math.log(2 / dp))) + 0.01, delta0, n, dp)


def test_lemma_b4_does_not_apply_at_the_experiments_batch():
    """B = 20, delta = 0.1, eps = 0.2: eps0 = 0.517 but log(B / (16 log(2/delta'))) < 0."""
    eps0, delta0 = unique_user_ldp_budget(0.2, 0.1, 20)
    assert eps0 == pytest.approx(0.51677, abs=1e-5)
    with pytest.raises(ValueError, match="Theorem 3.1 needs"):
        shuffle_amplification(eps0, delta0, 20, 0.05)


# -- inputs ------------------------------------------------------------------------------------------


def rows(d: int, users: int, rng: np.random.Generator) -> np.ndarray:
    """Random valid rows (phi, y): ||phi|| <= 1, |y| <= 1."""
    phi = rng.normal(size=(users, d))
    phi *= (rng.random((users, 1)) / np.linalg.norm(phi, axis=1, keepdims=True))
    return np.concatenate([phi, rng.uniform(-1, 1, (users, 1))], axis=1)


def test_user_entries_are_phi_y_and_the_upper_triangle():
    phi, y = np.array([0.6, -0.8]), -0.5
    e = user_entries("t", np.array([[*phi, y]]), 1, 2)[0]
    assert np.allclose(e, [-0.3, 0.4, 0.36, -0.48, 0.64])


def test_the_worst_r_amp_pair_has_distance_sqrt_4_5_and_random_pairs_stay_below():
    from dpaudit.mechanisms.counters.central_tree import WORST_ROW_PAIR

    a, b = (user_entries("t", np.array([p]), 1, 2)[0] for p in WORST_ROW_PAIR)
    assert np.sum((a - b) ** 2) == pytest.approx(4.5, abs=1e-12)
    rng = np.random.default_rng(5)
    for d in (2, 4):
        x = rows(d, 200_000, rng)
        x[:, :d] /= np.linalg.norm(x[:, :d], axis=1, keepdims=True)  # unit features
        x[:, d] = np.sign(x[:, d])
        e = user_entries("t", x, len(x), d)
        assert np.sum((e[::2] - e[1::2]) ** 2, axis=1).max() <= 4.5 + 1e-9


# -- P_Vec: paths, analyzer, unbiasedness --------------------------------------------------------------


def small_p_vec(B: int = 3) -> ShuffledVectorProtocol:
    return ShuffledVectorProtocol(g=4, b=40, d=2, B=B)


def test_p_vec_fast_and_per_user_paths_have_the_exact_law():
    p = small_p_vec()
    data = rows(2, 3, np.random.default_rng(1))
    laws = p.count_laws(data)
    for draw in (p.sample, p.sample_per_user):
        for k in (0, 2, 4):  # a vector label, a diagonal and an off-diagonal matrix label
            reference = noise.FiniteIntegerLaw(laws[k].offset, laws[k].probs, name=f"count of label {k}")
            result = dpaudit.audit_sampler(lambda size, rng, draw=draw, k=k: draw(data, size, rng)[:, k],
                                           reference, samples=300_000, seed=k)
            assert result.verdict == "not-refuted", (draw.__name__, k, result.witness)
    # labels are independent in the fast path as in the per-user one: correlation of two labels ~ 0
    views = p.sample_per_user(data, 200_000, np.random.default_rng(3))
    assert abs(np.corrcoef(views[:, 0], views[:, 2])[0, 1]) < 0.02  # sd 1/sqrt(2e5) = 0.0022: 9 sd


def test_run_bits_shuffles_and_groups_without_changing_counts():
    p = small_p_vec()
    data = rows(2, 3, np.random.default_rng(4))
    for seed in range(5):
        counts = p.run_bits(data, np.random.default_rng(seed))
        assert np.array_equal(counts, p.randomize(data, 1, np.random.default_rng(seed))[0].sum(axis=0))


def test_a_vec_is_unbiased_and_subtracting_delta_is_not():
    """Theorem C.1's accuracy: E[o] = sum_i x_i for every label (from the exact count laws), while
    Cheu et al.'s re-centring by Delta leaves a bias (B - 1) Delta."""
    for p in (small_p_vec(5), ShuffledVectorProtocol.unique_users(1.0, 0.1, 3, 20)):
        data = rows(p.d, p.B, np.random.default_rng(6))
        means = np.array([law.mean for law in p.count_laws(data)])
        vec, mat = p.analyze(means)
        phi, y = data[:, : p.d], data[:, p.d]
        assert np.allclose(vec, (phi * y[:, None]).sum(axis=0), atol=1e-6)
        assert np.allclose(mat, phi.T @ phi, atol=1e-6)
        cheu = 1 / p.g * (means - p.p * p.b * p.B) - 1.0
        assert np.allclose(cheu - p.debias(means), (p.B - 1) * 1.0)


def test_p_vec_error_law_has_the_derived_variance():
    """Var of one label's error x g/Delta = sum_i f_i (1 - f_i) + B b p (1 - p), f_i the fractions of w_i g."""
    p = ShuffledVectorProtocol.unique_users(10.0, 0.1, 2, 16)
    data = np.zeros((16, 3))
    data[:, 0], data[:, 2] = 1.0, 1 / (2 * p.g)  # phi y = 1/(2g): w g = g + 1/2, fraction 1/2
    law = p.error_law(data, 0)
    assert abs(law.mean) < 1e-6
    assert law.var == pytest.approx(16 * 0.25 + 16 * p.b * 3 / 16, rel=1e-9)


# -- P_Amp: paths and shuffling -----------------------------------------------------------------------


def test_p_amp_sums_fast_and_per_user_paths_have_the_exact_law():
    protocol = ShuffledGaussianProtocol(GaussianRandomizer(0.7, 2), 6)
    data = rows(2, 6, np.random.default_rng(7))
    law = protocol.sum_distribution(data)
    for draw in (protocol.sample_sums, protocol.sample_sums_per_user):
        for k in (0, 2, 3):  # a vector coordinate, a diagonal and an off-diagonal matrix entry
            ref = noise.Gaussian(float(law.coordinates[k].sigma), loc=float(law.coordinates[k].mean))
            result = dpaudit.audit_sampler(lambda size, rng, draw=draw, k=k: draw(data, size, rng)[:, k],
                                           ref, samples=200_000, seed=k)
            assert result.verdict == "not-refuted", (draw.__name__, k, result.witness)


def test_s_amp_permutes_uniformly_and_the_two_lists_independently():
    """With tiny noise each message shows its sender: user 0's position in each list is uniform on the
    B positions, and the two positions are independent (chi-square on B^2 cells, p > 1e-6)."""
    B = 4
    protocol = ShuffledGaussianProtocol(GaussianRandomizer(1e-6, 1), B)
    data = np.array([[0.9, 1.0], [0.1, 1.0], [0.2, 1.0], [0.3, 1.0]])  # vector messages 0.9, 0.1, 0.2, 0.3
    view = protocol.sample_per_user(data, 80_000, np.random.default_rng(9))
    pos_vec = np.argmax(np.abs(view[:, :, 0] - 0.9) < 1e-3, axis=1)
    pos_mat = np.argmax(np.abs(view[:, :, 1] - 0.81) < 1e-3, axis=1)
    table = np.bincount(pos_vec * B + pos_mat, minlength=B * B)
    assert stats.chisquare(table).pvalue > 1e-6


def test_clone_likelihood_ratio_is_the_exact_loss_of_the_view():
    """For B = 3 the law of the shuffled view is the average over the 3! assignments of the messages to
    the users, in each list: the statistic equals log p(view | target) - log p(view | clones)."""
    randomizer = GaussianRandomizer(0.8, 2)
    protocol = ShuffledGaussianProtocol(randomizer, 3)
    base, target = np.array([0.3, -0.2, 0.5]), np.array([-0.6, 0.7, -1.0])
    lr = CloneLikelihoodRatio(protocol, base, target)
    clones = np.tile(base, (3, 1))
    one = clones.copy()
    one[0] = target
    views = protocol.sample_per_user(one, 50, np.random.default_rng(10))

    def log_density(view, data):
        means = randomizer.means(data, users=3)
        total = 0.0
        for part in (slice(0, 2), slice(2, None)):
            terms = [stats.norm.logpdf(view[:, part], means[list(perm)][:, part], 0.8).sum()
                     for perm in itertools.permutations(range(3))]
            total += np.logaddexp.reduce(terms) - math.log(6)
        return total

    brute = [log_density(v, one) - log_density(v, clones) for v in views]
    assert np.allclose(lr.statistic(views), brute, atol=1e-9)


def test_clone_likelihood_ratio_is_the_same_on_the_shuffled_view_as_on_the_users_messages():
    """The statistic is drawn from the users' messages without S_Amp: on the same noise (the same seed; the
    shufflers draw after the randomizers) the shuffled view gives the same L to rounding, and a view whose
    lists are permuted at random in the opposite direction too, so the shufflers cannot move its law."""
    protocol = ShuffledGaussianProtocol(GaussianRandomizer(0.8, 2), 7)
    base, target = np.array([0.3, -0.2, 0.5]), np.array([-0.6, 0.7, -1.0])
    lr = CloneLikelihoodRatio(protocol, base, target)
    one = np.tile(base, (7, 1))
    one[2] = target
    messages = protocol.randomized(one, 40, np.random.default_rng(3))
    view = protocol.sample_per_user(one, 40, np.random.default_rng(3))
    assert not np.allclose(view, messages)  # the shufflers moved messages
    assert np.allclose(np.sort(view, axis=1), np.sort(messages, axis=1))  # the same messages, each list permuted
    assert np.allclose(lr.statistic(view), lr.statistic(messages), rtol=0, atol=1e-12)
    reversed_lists = messages[:, ::-1].copy()
    reversed_lists[..., 2:] = messages[:, np.roll(np.arange(7), 3), 2:]  # the second list by another permutation
    assert np.allclose(lr.statistic(reversed_lists), lr.statistic(messages), rtol=0, atol=1e-12)
    draws = lr.sample(one, 40, np.random.default_rng(3))
    assert np.allclose(draws, lr.statistic(messages), rtol=0, atol=1e-12)


def test_clone_likelihood_ratio_audit_has_power():
    """The statistical entry's test refutes Lemma B.4's claim for a randomizer with far too little
    noise (sigma = 0.5 at B = 50: the view is then nearly (1, ...)-distinguishable). Seeded; the
    audit's false-refutation rate is its 1 - confidence = 1e-3."""
    protocol = ShuffledGaussianProtocol(GaussianRandomizer(0.5, 2), 50)
    from dpaudit.mechanisms.counters.central_tree import WORST_ROW_PAIR
    lr = CloneLikelihoodRatio(protocol, WORST_ROW_PAIR[1], WORST_ROW_PAIR[0])
    clones = np.tile(WORST_ROW_PAIR[1], (50, 1))
    one = clones.copy()
    one[0] = WORST_ROW_PAIR[0]
    result = dpaudit.audit_privacy(lr, ApproxDP(0.5, 0.05), pairs=[(one, clones)],
                                   neighbours=ReplaceUser(batch_size=50),
                                   auditor="statistical", samples=40_000, confidence=0.999, seed=11)
    assert result.verdict == "refuted", result.witness


# -- exact privacy: power of the audits -------------------------------------------------------------


def test_p_vec_exact_audit_refutes_too_few_noise_bits():
    """Theorem 3.5's claim with b = 50 noise bits (instead of 65,297) at (1, 0.01): one label moved
    by 2g is visible through Bin(16 * 50, 1/4) noise."""
    weak = ShuffledVectorProtocol(g=8, b=50, d=2, B=16)
    a, b = np.zeros((16, 3)), np.zeros((16, 3))
    a[0], b[0] = [1, 0, 1], [-1, 0, 1]
    assert dpaudit.audit_privacy(weak, ApproxDP(1.0, 0.01), pairs=[(a, b)], auditor="exact").verdict == "refuted"
    proper = ShuffledVectorProtocol.unique_users(1.0, 0.01, 2, 16)
    assert dpaudit.audit_privacy(proper, ApproxDP(1.0, 0.01), pairs=[(a, b)], auditor="exact").verdict == "verified"


def test_r_amp_exact_delta_is_the_analytic_gaussian_curve():
    """R_Amp's exact delta(eps0) on the worst pair is Balle-Wang's curve at mu = sqrt(4.5) / sigma, and
    a tenth of the noise is refuted."""
    from dpaudit.mechanisms.classic.gaussian import analytic_gaussian_delta
    from dpaudit.mechanisms.counters.central_tree import WORST_ROW_PAIR

    r = GaussianRandomizer.ldp(1.0, 1e-5, 2)
    pair = ([WORST_ROW_PAIR[0]], [WORST_ROW_PAIR[1]])
    res = dpaudit.audit_privacy(r, ApproxDP(1.0, 1e-5), pairs=[pair], auditor="exact")
    assert res.verdict == "verified"
    assert res.statistic.value == pytest.approx(analytic_gaussian_delta(1.0, r.sigma, math.sqrt(4.5)), rel=1e-6)
    weak = GaussianRandomizer(r.sigma / 10, 2)
    assert dpaudit.audit_privacy(weak, ApproxDP(1.0, 1e-5), pairs=[pair], auditor="exact").verdict == "refuted"


def test_returning_transcript_is_the_product_over_batches():
    p = ShuffledVectorProtocol(g=4, b=30, d=2, B=2)
    t = ReturningUserTranscript(p, 3)
    data = np.zeros((2, 3, 3))
    data[0, :, 0] = [0.5, -0.5, 1.0]
    dist = t.distribution(data)
    assert len(dist.coordinates) == 3 * p.labels
    batch1 = p.distribution(data[:, 1])
    assert np.allclose(dist.coordinates[p.labels].log_probs, batch1.coordinates[0].log_probs)
    assert t.sample(data, 7, np.random.default_rng(0)).shape == (7, 3 * p.labels)


# -- ranges and inputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("make, message", [
    (lambda: unique_user_parameters(16.0, 0.1, 2, 4), "epsilon must be in \\(0, 15\\]"),
    (lambda: unique_user_parameters(1.0, 0.5, 2, 4), "delta must be in \\(0, 1/2\\)"),
    (lambda: ldp_parameters(1.0, 0.6, 2), "delta0 must be in"),
    (lambda: returning_user_parameters(1.0, 0.1, 2, 40, 20), "B must be in \\[T\\]"),
    (lambda: ldp_sigma(1.5, 0.1), "epsilon0 must be in \\(0, 1\\]"),
    (lambda: ldp_sigma(0.5, 1.5), "delta0 must be in \\(0, 1\\]"),
    (lambda: unique_user_sigma(1.0, 0.1, 20), "needs epsilon in \\(0, sqrt\\(log\\(2/delta\\)/B\\)\\]"),
    (lambda: GaussianRandomizer.unique_users(10.0, 0.1, 20, 5), "Theorem 3.2 / B.1 needs epsilon"),
    (lambda: returning_user_sigma(100.0, 0.1, 20, 100), "needs epsilon <= \\(2/B\\) log\\(2/delta\\) sqrt\\(2T\\)"),
    (lambda: returning_user_sigma(1.0, 0.1, 200, 100), "B must be in \\[T\\]"),
    (lambda: shuffle_amplification(1.0, 0.1, 20, 0.05), "Theorem 3.1 needs"),
    (lambda: shuffle_amplification(0.5, 1.5, 2000, 0.05), "delta0 must be in \\[0, 1\\]"),
    (lambda: small_p_vec().sample(np.zeros((2, 3)), 5, np.random.default_rng()), "3 users' rows"),
    (lambda: small_p_vec().sample(np.array([[1.0, 1.0, 0.0]] * 3), 5, np.random.default_rng()),
     "\\|\\|phi\\|\\|_2 <= 1"),
    (lambda: small_p_vec().sample(np.array([[0.0, 0.0, 1.5]] * 3), 5, np.random.default_rng()), "\\|y\\| <= 1"),
    (lambda: GaussianRandomizer(1.0, 2).sample(np.zeros((2, 3)), 5, np.random.default_rng()), "one user's row"),
    (lambda: GaussianRandomizer(-1.0, 2), "sigma must be > 0"),
    (lambda: ShuffledVectorProtocol.unique_users(1.0, 0.1, 2, 16).run_bits(np.zeros((16, 3)), np.random.default_rng()),
     "run_bits materialises"),
    (lambda: ShuffledVectorProtocol(4, 40, 2, 3).error_law(np.full((3, 3), 0.1), 0), "not on the integers"),
])
def test_out_of_range_parameters_and_inputs_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("k", [100, 1000])
def test_theorem_e2_entries_verify_and_four_times_the_per_mechanism_eps_is_refuted(k):
    """thmE.2@k...: verified exactly at both eps'; the formula is conservative here (three times its eps still holds at
    delta' = 0.05: true delta 0.018 at k = 100), and four times it is refuted (0.058 > 0.05)."""
    import math

    from dpaudit.mechanisms.classic.composition import RepeatedResponseCount
    from dpaudit.suite import find_entry

    for eps_total in (0.5, 0.9):
        entry = find_entry(f"shuffle-lcb/thmE.2@k{k},eps-total{eps_total:g},delta-slack0.05")
        assert dpaudit.audit_privacy(entry.subject, entry.claim, pairs=entry.pairs,
                                     auditor="exact").verdict == "verified"
    e = 4 * 0.9 / (2 * math.sqrt(2 * k * math.log(1 / 0.05)))
    assert dpaudit.audit_privacy(RepeatedResponseCount(e, k), dpaudit.ApproxDP(0.9, 0.05), pairs=[([1], [0])],
                                 auditor="exact").verdict == "refuted"


def test_the_unbiasedness_entries_verify_and_cheus_recentring_fails_them():
    """thmC.1-accuracy@...: verified; the analyzer re-centred by Delta alone (Cheu et al.'s, which Theorem C.1's proof
    corrects to B Delta) is off by (B - 1) Delta and fails the step."""
    from dpaudit.auditors.lower_bound import evaluate_step
    from dpaudit.audits import shuffle_lcb
    from dpaudit.suite import find_entry

    for point in ("eps1,delta0.1,d3,B20", "eps10,delta0.1,d5,B20"):
        entry = find_entry(f"shuffle-lcb/thmC.1-accuracy@{point}")
        assert dpaudit.audit_lower_bound(entry.claim).verdict == "verified"

    class Cheu(ShuffledVectorProtocol):
        def debias(self, counts):
            return super().debias(counts) + (self.B - 1) * 1.0

    rows_ = shuffle_lcb.seeded_rows(3, 20, 0)
    assert evaluate_step(shuffle_lcb.unbiased_step(ShuffledVectorProtocol.unique_users(1.0, 0.1, 3, 20), rows_),
                         {})["status"] == "holds"
    assert evaluate_step(shuffle_lcb.unbiased_step(Cheu.unique_users(1.0, 0.1, 3, 20), rows_),
                         {})["status"] == "fails"
