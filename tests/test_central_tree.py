"""shuffle-lcb's central baselines (LinUCB-JDP's tree, its user-level variant, Batched-Central-LinUCB):
the calibration recomputed from its formulas, the leaves and prefix sums against brute force, the
returning-user placement against a per-user loop, the leaf sensitivity, the worst placement of a
user's rounds over every subset, exact audits with power checks, and clear errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit import ApproxDP
from dpaudit.core.neighbours import ReplaceUser
from dpaudit.mechanisms.classic.gaussian import analytic_gaussian_sigma
from dpaudit.mechanisms.counters.central_tree import (
    LEAF_SENSITIVITY,
    WORST_ROW_PAIR,
    CentralTreeMechanism,
    ReturningUserStream,
    group_privacy,
    node_sigma,
    tree_levels,
)


def upper(z: np.ndarray) -> np.ndarray:
    i, j = np.triu_indices(len(z))
    return np.outer(z, z)[i, j]


def balle_wang_delta(eps: float, sigma: float, sensitivity: float) -> float:
    """Balle & Wang (2018), Theorem 8, written out with scipy (independent of the mpmath version)."""
    a, b = sensitivity / (2 * sigma), eps * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)


# -- calibration, recomputed ------------------------------------------------------------------------

@pytest.mark.parametrize("leaves, levels", [(1, 1), (2, 2), (5, 4), (8, 4), (16, 5), (17, 6)])
def test_levels_are_ceil_log2_plus_one(leaves, levels):
    assert tree_levels(leaves) == levels == math.ceil(math.log2(leaves)) + 1


@pytest.mark.parametrize("eps, delta, leaves", [(1.0, 0.1, 16), (0.2, 0.1, 5)])
def test_node_sigma_meets_the_analytic_gaussian_curve_at_sensitivity_2_sqrt2_sqrt_L(eps, delta, leaves):
    sigma = node_sigma(eps, delta, leaves)
    whole = 2 * math.sqrt(2) * math.sqrt(math.ceil(math.log2(leaves)) + 1)
    assert balle_wang_delta(eps, sigma, whole) == pytest.approx(delta, abs=1e-9)
    assert balle_wang_delta(eps, sigma * (1 - 1e-6), whole) > delta  # the smallest such sigma
    classic = whole * math.sqrt(2 * math.log(1.25 / delta)) / eps  # Dwork & Roth, valid for eps < 1
    assert sigma < classic
    assert node_sigma(eps, delta, leaves, rounds_per_user=4) == pytest.approx(4 * sigma, rel=1e-12)


def test_analytic_sigma_never_undershoots():
    for eps, delta in [(0.1, 1e-5), (1.0, 0.1), (10.0, 0.1), (3.0, 1e-9)]:
        sigma = analytic_gaussian_sigma(eps, delta, 1.7)
        assert dpaudit.mechanisms.analytic_gaussian_delta(eps, sigma, 1.7) <= delta


def test_constructors_use_the_calibration():
    event = CentralTreeMechanism.event_level(20, 2, 0.2, 0.1, batch=4)
    assert event.leaves == 5 and event.sigma == node_sigma(0.2, 0.1, 5)
    user = CentralTreeMechanism.user_level(16, 2, 1.0, 0.1, 4)
    assert user.sigma == pytest.approx(4 * CentralTreeMechanism.event_level(16, 2, 1.0, 0.1).sigma, rel=1e-12)


def test_group_privacy_formula():
    assert group_privacy(0.2, 0.1, 2) == pytest.approx((0.4, 2 * math.exp(0.2) * 0.1))
    assert group_privacy(0.2, 0.1, 4) == pytest.approx((0.8, 4 * math.exp(0.6) * 0.1))
    assert group_privacy(0.5, 0.01, 1) == (0.5, 0.01)


# -- leaves, prefix sums, placement -----------------------------------------------------------------

def ball_rows(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    phi = rng.normal(size=(n, d))
    phi *= rng.uniform(0, 1, (n, 1)) / np.linalg.norm(phi, axis=1, keepdims=True)
    return np.column_stack([phi, rng.uniform(-1, 1, n)])


@pytest.mark.parametrize("T, batch", [(16, 1), (20, 4), (7, 3)])
def test_leaves_and_prefix_matrices_match_brute_force(T, batch):
    rng = np.random.default_rng(1)
    rows = ball_rows(rng, T, 2)
    mech = CentralTreeMechanism(T, 2, 1.0, batch)
    leaves = mech.leaf_stream(rows)
    for leaf in range(mech.leaves):
        chunk = rows[leaf * batch: (leaf + 1) * batch]  # the last batch may be partial
        assert np.allclose(leaves[leaf], sum(upper(z) for z in chunk))
    prefixes = mech.prefix_matrices(mech.tree.node_sums(leaves))
    for leaf in range(mech.leaves):
        seen = rows[: min((leaf + 1) * batch, T)]
        assert np.allclose(prefixes[leaf], sum(np.outer(z, z) for z in seen))


@pytest.mark.parametrize("schedule", ["consecutive", "spread"])
def test_returning_user_stream_matches_a_per_user_loop(schedule):
    rng = np.random.default_rng(2)
    users, m0 = 4, 4
    data = ball_rows(rng, users * m0, 2).reshape(users, m0, 3)
    stream = ReturningUserStream(CentralTreeMechanism(16, 2, 1.0), m0, schedule).stream(data)
    for u in range(users):
        for k in range(m0):
            t = u * m0 + k if schedule == "consecutive" else k * users + u
            assert np.array_equal(stream[t], data[u, k])


def test_samples_follow_the_exact_law():
    """Sampled nodes standardised by the exact law: mean and variance within 6 standard errors
    (false-failure rate below 1e-8)."""
    rng = np.random.default_rng(3)
    mech = CentralTreeMechanism(8, 2, 2.5)
    rows = ball_rows(rng, 8, 2)
    draws = mech.sample(rows, 20_000, rng)
    centre = np.array([c.loc for c in mech.distribution(rows).coordinates]).reshape(draws.shape[1:])
    z = (draws - centre) / 2.5
    assert abs(z.mean()) < 6 / math.sqrt(z.size)
    assert abs(z.var() - 1) < 6 * math.sqrt(2 / z.size)
    assert mech.error_law(7).sigma == pytest.approx(2.5 * math.sqrt(3))


# -- sensitivity and the worst placement of a user's rounds ------------------------------------------

def test_leaf_sensitivity_bounds_every_pair_and_the_worst_pair_is_3_over_sqrt2():
    rng = np.random.default_rng(4)
    for d in (1, 2, 5):
        a, b = ball_rows(rng, 20_000, d), ball_rows(rng, 20_000, d)
        i, j = np.triu_indices(d + 1)
        gap = np.linalg.norm(a[:, i] * a[:, j] - b[:, i] * b[:, j], axis=1)
        assert gap.max() <= LEAF_SENSITIVITY
    worst = np.linalg.norm(upper(WORST_ROW_PAIR[0]) - upper(WORST_ROW_PAIR[1]))
    assert worst == pytest.approx(3 / math.sqrt(2), rel=1e-12)


@pytest.mark.parametrize("m0", [2, 4])
def test_aligned_consecutive_rounds_give_the_largest_joint_shift_and_it_is_within_M0_squared_L(m0):
    """A user's rows all moved by the same vector shift node n by k_n times it (k_n = her rows in n):
    the release moves by sqrt(sum k_n^2) times the leaf change. Over every M0-subset of T = 16
    rounds the largest sum k_n^2 is the aligned consecutive block, and at most M0^2 L (the M0^2
    variance scaling of Prop 4.3 covers it)."""
    tree = CentralTreeMechanism(16, 2, 1.0).tree
    member = np.array([[s <= t <= e for t in range(1, 17)] for s, e in tree.nodes], dtype=int)
    best = max(((member[:, list(rounds)].sum(axis=1) ** 2).sum(), rounds)
               for rounds in itertools.combinations(range(16), m0))
    aligned = (member[:, :m0].sum(axis=1) ** 2).sum()
    assert best[0] == aligned <= m0**2 * tree_levels(16)


# -- exact audits and power -----------------------------------------------------------------------

def user_pair(users, m0):
    a = np.zeros((users, m0, 3))
    b = a.copy()
    a[0], b[0] = WORST_ROW_PAIR
    return a, b


USER_LEVEL_CLAIM = ApproxDP(1.0, 0.1)


def audit_user_level(sigma, m0, schedule="consecutive", claim=USER_LEVEL_CLAIM):
    subject = ReturningUserStream(CentralTreeMechanism(16, 2, sigma), m0, schedule)
    return dpaudit.audit_privacy(subject, claim, pairs=[user_pair(16 // m0, m0)],
                                 neighbours=ReplaceUser(batch_size=16 // m0), auditor="exact", seed=0)


def test_variance_scaled_by_M0_squared_holds_and_by_M0_is_refuted():
    """Power: scaling the variance by M0 (sigma by sqrt M0) instead of M0^2 fails for 4 consecutive rounds."""
    event = CentralTreeMechanism.event_level(16, 2, 1.0, 0.1).sigma
    assert audit_user_level(4 * event, 4).verdict == "verified"
    result = audit_user_level(2 * event, 4)
    assert result.verdict == "refuted"
    assert result.statistic.value > 0.17  # exact delta(1) = 0.176 against the claimed 0.1


def test_a_tree_calibrated_for_add_remove_sensitivity_is_refuted_on_the_worst_pair():
    """Power: sensitivity ||z z^T||_F <= 2 (adding a row) used for replacement, where the worst pair
    is 3/sqrt 2 apart: sigma 6% too small; the tight analytic calibration makes the exact audit see it."""
    whole = 2 * math.sqrt(tree_levels(16))
    mech = CentralTreeMechanism(16, 2, analytic_gaussian_sigma(1.0, 0.1, whole))
    a, b = np.zeros((16, 3)), np.zeros((16, 3))
    a[0], b[0] = WORST_ROW_PAIR
    result = dpaudit.audit_privacy(mech, ApproxDP(1.0, 0.1), pairs=[(a, b)], neighbours=ReplaceUser(batch_size=16),
                                   auditor="exact", seed=0)
    assert result.verdict == "refuted"


# -- errors ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda: CentralTreeMechanism(0, 2, 1.0), "T"),
    (lambda: CentralTreeMechanism(8, 0, 1.0), "d"),
    (lambda: CentralTreeMechanism(8, 2, -1.0), "sigma"),
    (lambda: CentralTreeMechanism(8, 2, 1.0, batch=9), "batch"),
    (lambda: CentralTreeMechanism.event_level(8, 2, 0.0, 0.1), "epsilon"),
    (lambda: CentralTreeMechanism.event_level(8, 2, 1.0, 1.0), "delta"),
    (lambda: CentralTreeMechanism.user_level(8, 2, 1.0, 0.1, 0), "M0"),
    (lambda: ReturningUserStream(CentralTreeMechanism(8, 2, 1.0), 3), "divide"),
    (lambda: ReturningUserStream(CentralTreeMechanism(8, 2, 1.0), 2, "random"), "schedule"),
    (lambda: CentralTreeMechanism(2, 2, 1.0).leaf_stream([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), "Assumption 3.1"),
    (lambda: CentralTreeMechanism(2, 2, 1.0).leaf_stream(np.zeros((3, 3))), "data must be"),
    (lambda: ReturningUserStream(CentralTreeMechanism(8, 2, 1.0), 2).stream(np.zeros((8, 3))), "data must be"),
    (lambda: group_privacy(0.2, 0.1, 0), "k"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_noise_ahead_is_the_noise_the_stream_adds_leaf_by_leaf():
    """A stream's noise drawn ahead (for a compiled loop that adds the exact sums itself) is, leaf after leaf, the
    prefix the stream releases on all-zero leaves from the same seed, bit for bit, in pieces as in one; the stream
    then refuses leaves, and a stream that took leaves refuses noise ahead."""
    mechanism = CentralTreeMechanism.event_level(23, 2, 1.0, 0.1)
    by_leaf = mechanism.tree.stream(3, np.random.default_rng(4))
    ahead = mechanism.tree.stream(3, np.random.default_rng(4))
    zeros = np.zeros((3, len(mechanism.upper[0])))
    released = np.stack([by_leaf.add(zeros) for _ in range(23)])
    pieces = np.concatenate([ahead.noise_ahead(n) for n in (1, 6, 0, 16)])
    np.testing.assert_array_equal(pieces, released)
    np.testing.assert_array_equal(ahead.node_noise, by_leaf.node_noise)
    with pytest.raises(ValueError, match="overflow"):
        ahead.noise_ahead(1)
    fresh = mechanism.tree.stream(3, np.random.default_rng(4))
    fresh.noise_ahead(2)
    with pytest.raises(ValueError, match="no exact sums"):
        fresh.add(zeros)
    with pytest.raises(ValueError, match="has not added"):
        by_leaf_too = mechanism.tree.stream(3, np.random.default_rng(4))
        by_leaf_too.add(zeros)
        by_leaf_too.noise_ahead(1)
