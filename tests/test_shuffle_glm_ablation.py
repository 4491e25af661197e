"""shuffle-glm Remark 4.4's non-private batched ablation of Algorithm 1 (BatchedGLMAblation) and its environment:
parameter checks, the vectorised policy makes the per-run reference's decisions (both designs, with
elimination), each design plays the policy it names, the regret is sublinear on a tiny instance, the distributional
policy in the survivors' span, the finite-sets environment, and the two rate-in-d suite entries."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from regret_suites import QUICK, audit_in_a_run
from scipy import stats

import dpaudit
from dpaudit.algorithms import ALGORITHMS
from dpaudit.algorithms.environments.glm import FiniteSetsGLMBandit, spike_bandit
from dpaudit.algorithms.glm.batched_ablation import (
    BatchedGLMAblation,
    ablation_gamma,
    ablation_schedule,
    distinct_arms,
    distributional_policy,
    eliminate,
)
from dpaudit.algorithms.glm.batched_ablation_reference import batched_ablation_one_run
from dpaudit.algorithms.glm.design import g_optimal_design
from dpaudit.algorithms.glm.distributional_design import (
    design_value,
    distributional_design,
    expected_design_matrix,
    per_set_g_optimal_policy,
    spike_sets,
)
from dpaudit.algorithms.registry import describe
from dpaudit.audits.shuffle_glm import regret, suite
from dpaudit.core.claims import RegretRate

C = 1 / math.sqrt(2)
#: two sets in R^2 where the designs differ: pi^G (Algorithm 1's, at Lemma 4.3's 2d bound) is uniform on each,
#: the distributional design puts about 1/2 on the last two arms of X_1 and on arms 1 and 3 of X_2
MIXED = np.array([[[1, 0], [0, 1], [C, C]], [[1, 0], [0, 0.5], [-C, C]]])


def _play(policy, env, runs, horizon, seed):
    """The policy round by round on the environment's instances; (contexts, reward table, arms played)."""
    rng = np.random.default_rng(seed)
    inst = env.instances(runs, rng)
    contexts = np.stack([inst.contexts(rng) for _ in range(horizon)])  # (T, runs, K, d)
    table = np.stack([inst.rewards(rng, c) for c in contexts], axis=1)  # (runs, T, K)
    policy.start(runs, env.arms, horizon, np.random.default_rng(seed + 1))
    played = np.empty((runs, horizon), dtype=np.int64)
    for t in range(1, horizon + 1):
        arms = policy.choose(t, contexts[t - 1])
        played[:, t - 1] = arms
        policy.observe(t, arms, table[np.arange(runs), t - 1, arms])
    return contexts, table, played


def test_parameters_are_checked():
    sets = spike_sets(3, 0.1)
    with pytest.raises(ValueError, match="design must be one of"):
        BatchedGLMAblation(sets, "d-optimal")
    with pytest.raises(ValueError, match=r"shape \(n, K, d\)"):
        BatchedGLMAblation(sets[0], "g-optimal")
    with pytest.raises(ValueError, match="must be finite"):
        BatchedGLMAblation(np.full((2, 3, 2), np.nan))
    with pytest.raises(ValueError, match="probabilities must be a distribution on the 3 sets"):
        BatchedGLMAblation(sets, probabilities=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="lam"):
        BatchedGLMAblation(sets, lam=0)
    with pytest.raises(ValueError, match="gamma"):
        BatchedGLMAblation(sets, gamma=-1.0)
    with pytest.raises(ValueError, match="T must be an integer >= 5"):
        BatchedGLMAblation(sets, T=4)
    policy = BatchedGLMAblation(sets, "distributional")
    with pytest.raises(ValueError, match="the environment has 4 arms, the family's sets 3"):
        policy.start(2, 4, 10, np.random.default_rng(0))
    policy.start(2, 3, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="contexts have dimension 2, the family's sets 3"):
        policy.choose(1, np.zeros((2, 3, 2)))
    policy.start(2, 3, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="not in the family"):
        policy.choose(1, np.broadcast_to(sets[0] * 0.5, (2, 3, 3)))
    with pytest.raises(ValueError, match="sets must have shape"):
        FiniteSetsGLMBandit(sets[0], np.zeros(3))
    with pytest.raises(ValueError, match="unit ball"):
        FiniteSetsGLMBandit(2 * sets, np.zeros(3))
    with pytest.raises(ValueError, match="probabilities must be a distribution"):
        FiniteSetsGLMBandit(sets, np.zeros(3), probabilities=[1.0, 0.0])
    with pytest.raises(ValueError, match="theta must be"):
        FiniteSetsGLMBandit(sets, np.zeros(2))
    with pytest.raises(ValueError, match="spikes s e_k must lie in the unit ball"):
        spike_bandit(3, s=1.5)
    assert describe("glm-ablation").startswith("shuffle-glm Remark 4.4")
    made = ALGORITHMS["glm-ablation"](design="distributional", d=5)
    assert made.design == "distributional" and made.sets.shape == (5, 5, 5)
    assert made.anytime is False and ALGORITHMS["glm-ablation"](T=100).anytime is True


def test_schedule_and_gamma():
    assert ablation_schedule(20000) == (287, 287, 4860, 14566)  # M = 4, alpha = 20000^(1/1.75) = 286.7
    assert ablation_schedule(5) == (5,)
    for T in (5, 17, 100, 5000, 123457):
        batches = ablation_schedule(T)
        assert sum(batches) == T and min(batches) >= 1
    # N = 2d distinct arms on the spike family (e_k and s e_k), M = 4 batches at T = 5000
    assert distinct_arms(spike_sets(4, 0.1)) == 8
    assert ablation_gamma(8, 4, 0.02) == pytest.approx(math.sqrt(2 * math.log(2 * 8 * 4 / 0.02)))
    policy = BatchedGLMAblation(spike_sets(4, 0.1))
    assert policy.settings(5000) == (ablation_schedule(5000), ablation_gamma(8, 4, 0.02))


@pytest.mark.parametrize("design", ["g-optimal", "distributional"])
@pytest.mark.parametrize("family", ["spikes", "mixed"])
def test_vectorised_decisions_are_the_per_run_references(design, family):
    """A small gamma so that arms are eliminated within 300 rounds (asserted), on the spike family (whose
    survivors then span a subspace: the distributional policy in the span) and on a mixed family."""
    runs, horizon = 4, 300
    if family == "spikes":
        env = spike_bandit(3, 0.1, S=1.0)
    else:
        env = FiniteSetsGLMBandit(MIXED, [0.8, -0.4], probabilities=[0.3, 0.7])
    policy = BatchedGLMAblation(env.sets, design, env.probabilities, gamma=0.3, record=True)
    contexts, table, played = _play(policy, env, runs, horizon, seed=3)
    assert policy.batches == (27, 27, 133, 113) and policy.batch == 3
    uniforms = np.stack(policy.trace["uniforms"], axis=1)
    for r in range(runs):
        np.testing.assert_array_equal(batched_ablation_one_run(policy, contexts[:, r], table[r], uniforms[r]),
                                      played[r])
    # elimination happened: the last batch's policy puts no mass on some arm of some set
    assert (policy.trace["policies"][-1] == 0).any()
    assert not (policy.trace["policies"][0] == 0).all(axis=2).any()


def _frequencies_match(played, index, pi, alpha):
    """Per set: a chi-square test of the arms played against pi over the arms with pi >= 0.01 (given the
    number of draws there), and a binomial test of the number of draws on the others; each at alpha."""
    for i in range(pi.shape[0]):
        arms = played[index == i]
        counts = np.bincount(arms, minlength=pi.shape[1])
        major = pi[i] >= 0.01
        n_major = counts[major].sum()
        p_major = pi[i, major] / pi[i, major].sum()
        if stats.chisquare(counts[major], n_major * p_major).pvalue < alpha:
            return False
        rest = float(pi[i, ~major].sum())
        if stats.binomtest(int(counts[~major].sum()), arms.size, min(max(rest, 1e-12), 1.0)).pvalue < alpha:
            return False
    return True


@pytest.mark.parametrize("design", ["g-optimal", "distributional"])
def test_each_design_plays_the_policy_it_names(design):
    """In batch 1 (no elimination, 464 rounds at T = 10^5) the arms played on each set follow the named design:
    pi^G = uniform on MIXED (Algorithm 1's Frank-Wolfe stops at once: uniform meets Lemma 4.3's 2d bound, checked)
    or the distributional design (computed here by distributional_design), which differ by >= 1/6 on every set.
    30 runs x 464 rounds; 4 tests per design (2 sets x chi-square and binomial) at alpha = 2.5e-5 each:
    false-failure rate <= 1e-4 per design (Bonferroni); seeded."""
    runs, T = 30, 10**5
    n = ablation_schedule(T)[0]
    env = FiniteSetsGLMBandit(MIXED, [0.8, -0.4])
    expected = {"g-optimal": g_optimal_design(MIXED, np.ones((2, 3), dtype=bool))[0],
                "distributional": distributional_design(MIXED)[0]}
    g = np.einsum("ika,iab,ikb->ik", MIXED, np.linalg.inv(np.einsum("ik,ika,ikb->iab", expected["g-optimal"],
                                                                        MIXED, MIXED)), MIXED)
    assert np.allclose(expected["g-optimal"], 1 / 3) and g.max() <= 2 * 2
    assert np.abs(expected["g-optimal"] - expected["distributional"]).max(axis=1).min() >= 1 / 6
    policy = BatchedGLMAblation(MIXED, design, T=T)
    rng = np.random.default_rng(20)
    inst = env.instances(runs, rng)
    policy.start(runs, env.arms, n, np.random.default_rng(21))
    played, index = np.empty((runs, n), dtype=np.int64), np.empty((runs, n), dtype=np.int64)
    for t in range(1, n + 1):
        x = inst.contexts(rng)
        index[:, t - 1] = inst.last_index
        played[:, t - 1] = policy.choose(t, x)
        policy.observe(t, played[:, t - 1], inst.rewards(rng, x)[np.arange(runs), played[:, t - 1]])
    alpha = 1e-4 / 4
    assert _frequencies_match(played, index, expected[design], alpha)
    other = "distributional" if design == "g-optimal" else "g-optimal"
    assert not _frequencies_match(played, index, expected[other], alpha)


def test_regret_is_sublinear_on_a_tiny_instance():
    """One set {e_1, e_2, -e_1}, theta* = 2 e_1 (gaps 0.38 and 0.76): the mean regret per round of the last batch is
    under a tenth of the first batch's for both designs (10 runs, T = 4000; seeded, the margin is wide: measured
    per-round regret in the last batch is about 0, in the first about 0.4)."""
    env = FiniteSetsGLMBandit([[[1, 0], [0, 1], [-1, 0]]], [2.0, 0.0])
    batches = ablation_schedule(4000)
    for design in ("g-optimal", "distributional"):
        res = dpaudit.simulate(BatchedGLMAblation(env.sets, design, S=2.0), env, horizon=4000, runs=10, seed=4,
                               grid=np.cumsum(batches))
        per_batch = np.diff(np.concatenate([[0.0], res.pseudo_regret.mean(axis=0)])) / np.array(batches)
        assert per_batch[-1] < 0.1 * per_batch[0], (design, per_batch)


def test_distributional_policy_in_the_survivors_span():
    """Survivors spanning a subspace: W(pi) is singular on R^d, and the policy is the log-det one in the span's
    coordinates, whose design value there is its dimension (the minimum over policies)."""
    sets = spike_sets(3, 0.1)
    allowed = np.zeros((3, 3), dtype=bool)
    allowed[0, 0] = True  # X_1 keeps e_1
    allowed[1:, 0] = True  # X_2, X_3 keep s e_1
    allowed[2, 1] = True  # X_3 also keeps s e_2: the span is {e_1, e_2}
    pi = distributional_policy(sets, allowed)
    assert np.all(pi[~allowed] == 0) and np.allclose(pi.sum(axis=1), 1)
    coords = sets[..., :2]  # the span's coordinates (e_1, e_2) up to rotation
    assert design_value(coords, pi, allowed=allowed) == pytest.approx(2, rel=1e-5)
    assert np.linalg.matrix_rank(expected_design_matrix(sets, pi)) == 2
    # on the whole family it is the distributional design
    full = np.ones((3, 3), dtype=bool)
    np.testing.assert_allclose(distributional_policy(sets, full), distributional_design(sets)[0], atol=1e-12)
    # and elimination keeps each set's best-LCB arm
    x = np.broadcast_to(sets, (2, 3, 3, 3))
    theta = np.array([[1.0, 0, 0], [-1.0, 0, 0]])[:, None]
    kept = eliminate(x, [(theta, np.broadcast_to(np.eye(3) * 1e-4, (2, 1, 3, 3)))], 1.0)
    assert kept.sum(axis=-1).min() >= 1 and kept[0, 0].tolist() == [True, False, False]


def test_finite_sets_environment_draws_its_sets_with_their_law():
    """Set indices drawn with probabilities (0.2, 0.8): a binomial test at alpha = 1e-4 (false-failure rate 1e-4,
    seeded); the contexts are the indexed sets and the means mu(<x, theta*>)."""
    env = FiniteSetsGLMBandit(MIXED, [0.8, -0.4], probabilities=[0.2, 0.8])
    rng = np.random.default_rng(7)
    inst = env.instances(50, rng)
    hits = 0
    for _ in range(100):
        x = inst.contexts(rng)
        np.testing.assert_array_equal(x, MIXED[inst.last_index])
        hits += int((inst.last_index == 0).sum())
        np.testing.assert_allclose(inst.expected(x), 1 / (1 + np.exp(-(x @ np.array([0.8, -0.4])))))
    assert stats.binomtest(hits, 5000, 0.2).pvalue > 1e-4
    spikes = spike_bandit(4, 0.1, S=2.0)
    np.testing.assert_array_equal(spikes.sets, spike_sets(4, 0.1))
    assert spikes.theta.tolist() == [2.0, 0, 0, 0]
    # the per-set G-optimal design is uniform on the spike family (Algorithm 1's and Kiefer-Wolfowitz's)
    np.testing.assert_allclose(g_optimal_design(spikes.sets, np.ones((4, 4), dtype=bool))[0], 0.25)
    np.testing.assert_allclose(per_set_g_optimal_policy(spikes.sets)[0], 0.25)


def _rate_entries():
    return {e.id: e for e in suite.entries if e.id.startswith("shuffle-glm/remark4.4@") and "design" not in e.id}


def test_rate_entries_are_the_remarks_claims():
    entries = _rate_entries()
    assert sorted(entries) == ["shuffle-glm/remark4.4@distributional,spikes,s0.1,d2-8",
                               "shuffle-glm/remark4.4@g-optimal,spikes,s0.1,d2-8"]
    for design, exponent in (("g-optimal", 1.5), ("distributional", 1.0)):
        entry = entries[f"shuffle-glm/remark4.4@{design},spikes,s0.1,d2-8"]
        assert entry.claim == RegretRate(exponent, "d") and entry.expected == "not-refuted"
        settings = entry.settings(QUICK)
        assert settings["horizons"] == 5000 and settings["runs"] == 20
        assert settings["values"] == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        policy, env = entry.subject(3.0)
        assert policy.design == design and env.dimension == 3 and policy.T is None  # started with horizon T
        np.testing.assert_array_equal(policy.sets, env.sets)
    assert "remark4.4's regret rate" not in regret.__doc__.partition("Left out")[2]


def test_a_rate_entry_runs_end_to_end(tmp_path):
    """The distributional entry at a reduced budget (T = 400, 4 runs, d = 2..8): the audit runs and fits an
    exponent (the entry at its own quick budget takes about 10 s: measured, not run here)."""
    entry = copy.copy(_rate_entries()["shuffle-glm/remark4.4@distributional,spikes,s0.1,d2-8"])
    entry.horizons, entry.runs = {"quick": 400}, {"quick": 4}
    finding = audit_in_a_run(entry, suite, tmp_path)
    assert finding.verdict == "not-refuted" and finding.statistic.value is not None
    assert finding.parameters["fitted"].tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
