"""The distributional optimal design and the per-set G-optimal design (dpaudit.algorithms.glm.distributional_design),
behind shuffle-glm/remark4.4@design: the log-det policy reaches Q = d (the minimum over policies) on finite
distributions of sets, agrees with a brute-force grid on a tiny case, every policy has Q >= d, the per-set
G-optimal design meets Kiefer-Wolfowitz on each set and Claim 2's d^2, and the spike family's closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.algorithms.glm.design import g_optimal_design
from dpaudit.algorithms.glm.distributional_design import (
    TOLERANCE,
    design_value,
    distributional_design,
    expected_design_matrix,
    norms_squared,
    per_set_g_optimal_policy,
    spike_sets,
)


def random_sets(rng, n, K, d):
    """n sets of K arms in the unit ball of R^d (random directions, radii uniform on [0.2, 1])."""
    x = rng.normal(size=(n, K, d))
    return x / np.linalg.norm(x, axis=-1, keepdims=True) * rng.uniform(0.2, 1.0, size=(n, K, 1))


@pytest.mark.parametrize("d", [2, 3, 4])
def test_distributional_design_reaches_d(d):
    rng = np.random.default_rng(40 + d)
    sets = random_sets(rng, 6, 4, d)
    p = rng.dirichlet(np.ones(6))
    pi, iterations = distributional_design(sets, p)
    assert iterations < 20000
    q = design_value(sets, pi, p)
    assert d * (1 - 1e-9) <= q <= d * (1 + TOLERANCE)
    # the start (uniform on each set) is not already optimal: the iteration and its stopping rule matter
    assert design_value(sets, np.full(sets.shape[:2], 1 / 4), p) > d * (1 + 100 * TOLERANCE)


def test_the_probabilities_weight_the_sets():
    rng = np.random.default_rng(7)
    sets = random_sets(rng, 5, 3, 3)
    p = np.array([0.6, 0.25, 0.1, 0.04, 0.01])
    pi_p, _ = distributional_design(sets, p)
    pi_uniform, _ = distributional_design(sets)
    assert design_value(sets, pi_p, p) <= 3 * (1 + TOLERANCE)
    # the design for uniformly drawn sets is not optimal for p: a solver ignoring p would fail the line above
    assert design_value(sets, pi_uniform, p) > 3 * (1 + 100 * TOLERANCE)


def test_every_policy_has_value_at_least_d():
    """Q(pi) >= sum_i p_i sum_k pi_ik g_ik = tr(W^-1 W) = d for every policy: d is the minimum."""
    rng = np.random.default_rng(11)
    sets = random_sets(rng, 8, 5, 3)
    p = rng.dirichlet(np.ones(8))
    for _ in range(50):
        pi = rng.dirichlet(np.ones(5) * 0.3, size=8)
        g = norms_squared(sets, expected_design_matrix(sets, pi, p))
        assert np.isclose(p @ (pi * g).sum(axis=1), 3.0)
        assert design_value(sets, pi, p) >= 3.0 * (1 - 1e-12)


def test_against_brute_force_on_two_sets_of_two_arms():
    """d = 2, two sets of two arms: every policy is (a, b) in [0, 1]^2; the solver's policy is at least as good
    as the best grid point in log det W and in Q (to the solver's tolerance)."""
    sets = np.array([[[1.0, 0.0], [0.6, 0.8]], [[0.0, 0.9], [0.5, -0.5]]])
    p = np.array([0.7, 0.3])
    a, b = np.meshgrid(np.linspace(0, 1, 401), np.linspace(0, 1, 401), indexing="ij")
    pis = np.stack([np.stack([a, 1 - a], -1), np.stack([b, 1 - b], -1)], axis=-2).reshape(-1, 2, 2)
    W = np.einsum("i,gik,ika,ikb->gab", p, pis, sets, sets)
    logdet = np.linalg.slogdet(W)[1]
    g = np.einsum("ika,gab,ikb->gik", sets, np.linalg.inv(W), sets)
    q_grid = (p * g.max(axis=2)).sum(axis=1)
    pi, _ = distributional_design(sets, p)
    assert np.linalg.slogdet(expected_design_matrix(sets, pi, p))[1] >= logdet.max() - 1e-9
    assert q_grid.min() >= 2 * (1 - 1e-12)
    assert design_value(sets, pi, p) <= min(q_grid.min(), 2 * (1 + TOLERANCE))
    # the grid's best Q sits where the log det is largest (the equivalence of the two criteria)
    assert np.linalg.norm(pis[np.argmin(q_grid)] - pis[np.argmax(logdet)]) < 0.02


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3, 5])
def test_per_set_g_optimal_meets_kiefer_wolfowitz_and_claim2(d):
    rng = np.random.default_rng(70 + d)
    sets = random_sets(rng, 10, 6, d)
    pi, _ = per_set_g_optimal_policy(sets)
    W = np.einsum("ik,ika,ikb->iab", pi, sets, sets)
    g_max = norms_squared(sets, W).max(axis=1)
    assert np.all(g_max <= d * (1 + TOLERANCE)) and np.all(g_max >= d * (1 - 1e-9))
    assert design_value(sets, pi) <= d**2
    # the same per-set criterion as Algorithm 1's solver run to the same bound
    pi_fw, _ = g_optimal_design(sets, np.ones(sets.shape[:2], dtype=bool), bound=d * (1 + TOLERANCE),
                                max_iterations=20000)
    W_fw = np.einsum("ik,ika,ikb->iab", pi_fw, sets, sets)
    # (its stopping rule sees W + 1e-8 I: without the ridge g can be up to 1e-3 relative above)
    assert np.all(norms_squared(sets, W_fw).max(axis=1) <= d * (1 + 1e-3))
    # D-optimal designs of a set share one information matrix (log det is strictly concave in W)
    assert np.allclose(W, W_fw, atol=1e-2)


@pytest.mark.parametrize("d", [2, 3, 6])
def test_spike_family_closed_forms(d):
    s = 0.1
    sets = spike_sets(d, s)
    pi_g, _ = per_set_g_optimal_policy(sets)
    pi_d, _ = distributional_design(sets)
    assert np.allclose(pi_g, 1 / d)
    assert np.isclose(design_value(sets, pi_g), d**2 / (1 + (d - 1) * s**2))
    assert np.allclose(pi_d, np.eye(d), atol=1e-5)  # the unit arm of each set
    assert d <= design_value(sets, pi_d) <= d * (1 + TOLERANCE)
    # the entry's distributional step would fail on the G-optimal design: it can discriminate
    assert design_value(sets, pi_g) > d * (1 + TOLERANCE)


def _remark44_entry():
    from dpaudit.audits.shuffle_glm import regret, suite

    return regret, next(e for e in suite.entries if e.id.startswith("shuffle-glm/remark4.4@design,spikes"))


def test_remark44_entry_steps_hold_and_condition_is_met():
    from dpaudit.auditors.lower_bound import evaluate_step

    _, entry = _remark44_entry()
    claim = entry.claim
    statuses = [evaluate_step(s, claim.parameters)["status"] for s in (*claim.steps, *claim.conditions)]
    assert statuses == ["holds", "holds", "holds"]


def test_remark44_entry_detects_a_design_that_is_not_optimal(monkeypatch):
    """Both safeguards of the entry can go red: a per-set design that is not G-optimal (half the mass on the
    unit arm) fails the Kiefer-Wolfowitz condition, and a distributional solver that returned the per-set
    G-optimal policy fails the Q <= d step."""
    from dpaudit.auditors.lower_bound import evaluate_step

    regret, entry = _remark44_entry()
    claim = entry.claim

    def lopsided(sets):
        n, K, _ = sets.shape
        pi = np.full((n, K), 0.5 / (K - 1))
        pi[np.arange(n), np.arange(n)] = 0.5
        return pi, 0

    monkeypatch.setattr(regret, "per_set_g_optimal_policy", lopsided)
    assert evaluate_step(claim.conditions[0], claim.parameters)["status"] == "fails"
    monkeypatch.undo()
    monkeypatch.setattr(regret, "distributional_design", lambda sets: per_set_g_optimal_policy(sets))
    assert evaluate_step(claim.steps[0], claim.parameters)["status"] == "fails"
