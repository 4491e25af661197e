"""private-online's algorithms on the simulation engine: UCB1, Anytime-Lazy-UCB (Algorithm 1),
Hybrid-UCB (Algorithm 4), FTNL and naive FTNL (Algorithm 2, Section 5), FTL and Appendix H's
batch-to-online selector.

What is tested: the releases' vectorised entry points against their exact laws, the policies' noise
against the mechanisms' exact laws, the fast paths against the per-round paths (exact equality of
decisions where both consume the same draws; seeded two-sample tests on the final pseudo-regret
otherwise), the registry and bad input. Every statistical test states its false-failure rate."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms.environments.bandits import BernoulliBandit, BernoulliExperts
from dpaudit.algorithms.online import (
    UCB1,
    AnytimeLazyUCB,
    BatchToOnlineSelector,
    FollowTheLeader,
    FollowTheNoisyLeader,
    HybridUCB,
)
from dpaudit.algorithms.registry import ALGORITHMS, describe
from dpaudit.bandits.policies import check_policy
from dpaudit.mechanisms.counters.hybrid_counter import HybridCounter
from dpaudit.mechanisms.counters.lazy_laplace import LazyLaplaceArrays

ALPHA = 1e-5  # false-failure rate of each KS test below


class BlockPulls:
    """What the engine hands ``observe_block``: counts and reward sums (bandit: (R,), full: (R, K))."""

    def __init__(self, counts: np.ndarray, sums: np.ndarray):
        self.counts, self.sums = counts, sums


def drive(policy, table: np.ndarray, horizon: int, seed: int, path: str, cut_seed: int | None = None) -> np.ndarray:
    """The arms a bandit policy plays over ``horizon`` rounds when arm j's k-th pull of run r returns
    ``table[r, j, k]``, by the per-round path or the fast path (blocks cut at random lengths when
    ``cut_seed`` is given, as the engine may cut them). Returns the decisions, shape (R, horizon)."""
    runs, arms, _ = table.shape
    policy = copy.deepcopy(policy)
    policy.start(runs, arms, horizon, np.random.default_rng(seed))
    rows = np.arange(runs)
    made = np.zeros((runs, arms), dtype=np.int64)
    played = np.full((runs, horizon), -1)
    if path == "reference":
        for t in range(1, horizon + 1):
            arm = policy.choose(t)
            played[:, t - 1] = arm
            policy.observe(t, arm, table[rows, arm, made[rows, arm]])
            made[rows, arm] += 1
        return played
    cuts = np.random.default_rng(cut_seed)
    t = np.ones(runs, dtype=np.int64)
    cumulative = np.concatenate([np.zeros((runs, arms, 1)), np.cumsum(table, axis=2)], axis=2)
    while (t <= horizon).any():
        arm, length = policy.next_block(t.copy())
        if cut_seed is not None:
            length = np.minimum(length, cuts.integers(1, 6, runs))
        counts = np.where(t <= horizon, np.minimum(length, horizon - t + 1), 0)
        for r in np.flatnonzero(counts):  # the test's own bookkeeping, run by run
            played[r, t[r] - 1: t[r] - 1 + counts[r]] = arm[r]
        start = made[rows, arm]
        sums = cumulative[rows, arm, start + counts] - cumulative[rows, arm, start]
        policy.observe_block(t.copy(), arm, BlockPulls(counts, sums))
        made[rows, arm] += counts
        t += counts
    return played


def final_regret(result) -> np.ndarray:
    """The final pseudo-regret, rounded: the paths add the gaps in different orders, and a float atom
    split in two would mislead the KS test."""
    return np.round(result.pseudo_regret[:, -1], 6)


def ks_exact(draws: np.ndarray, law) -> float:
    return stats.kstest(draws, law.cdf).pvalue


# -- the releases' vectorised entry points against their exact laws ------------------------------------

def test_lazy_release_noise_entry_point_has_eq3_law():
    release = LazyLaplaceArrays(0.7, 15)
    rng = np.random.default_rng(1)
    noise = release.sample_sum_noise((20_000, 4), rng)
    for r in range(4):  # (sum + Lap(1/eps)) / 2^r - sum / 2^r ~ Lap(1/(eps 2^r)), the release's error law
        error = release.noisy_mean(3.0, noise[:, r], r) - 3.0 / 2**r
        assert ks_exact(error, release.error_law(r)) > ALPHA


def test_hybrid_counter_noise_entry_points_have_eqs32_33_laws():
    counter = HybridCounter(0.5, 1)
    rng = np.random.default_rng(2)
    assert ks_exact(counter.sample_array_noise(20_000, rng), counter.array_noise) > ALPHA
    blocks = np.array([1, 3, 3, 7])
    nodes = counter.sample_node_noise(np.repeat(blocks, 5000), 3, rng)
    for i, r in enumerate(blocks):
        column = nodes[np.repeat(blocks, 5000) == r][:, i % 3]
        assert ks_exact(column, counter.node_noise(int(r))) > ALPHA
    assert float(counter.node_noise(3).scale) == pytest.approx(2 * 3 / 0.5)
    with pytest.raises(ValueError, match="blocks"):
        counter.sample_node_noise([0, 1], 2, rng)


# -- the policies' noise against the mechanisms' exact laws --------------------------------------------

@pytest.mark.parametrize("literal_init", [False, True])
def test_lazy_ucb_means_follow_the_lazy_release(literal_init):
    """One arm's stream of 15 pulls: the means after pulls 1, 3, 7, 15 are LazyLaplaceArrays' releases
    (independent Laplace(mean_r, 1/(eps 2^r))); the literal box releases the first reward itself."""
    eps, runs = 0.8, 20_000
    x = np.random.default_rng(3).uniform(size=15)
    policy = AnytimeLazyUCB(eps, literal_init=literal_init)
    policy.start(runs, 1, 15, np.random.default_rng(4))
    means = []
    for t in range(1, 16):
        policy.observe(t, np.zeros(runs, dtype=np.int64), np.full(runs, x[t - 1]))
        if t in (1, 3, 7, 15):
            means.append(policy.means[:, 0].copy())
            assert (policy.sizes[:, 0] == 2 ** (len(means) - 1)).all()
    law = LazyLaplaceArrays(eps, 15).distribution(x).coordinates
    for r in range(4):
        if literal_init and r == 0:
            assert (means[0] == x[0]).all()
        else:
            assert ks_exact(means[r], law[r]) > ALPHA
    assert abs(np.corrcoef(means[1], means[2])[0, 1]) < 0.05  # independent draws (|rho| > 0.05: z > 7)


class SmallChunks(HybridUCB):
    chunk = 4  # trees of 8 and 16 leaves span several chunks of p-sum noises


@pytest.mark.parametrize("policy_class", [HybridUCB, SmallChunks])
def test_hybrid_ucb_estimates_follow_the_hybrid_counter(policy_class):
    """One arm's stream of 40 pulls: the estimate after each pull against HybridCounter's estimates
    (two-sample KS at 10 pulls and on one combination across blocks)."""
    eps, runs = 1.0, 20_000
    x = np.random.default_rng(5).uniform(size=40)
    policy = policy_class(eps)
    policy.start(runs, 1, 40, np.random.default_rng(6))
    estimates = np.empty((runs, 40))
    for t in range(1, 41):
        policy.observe(t, np.zeros(runs, dtype=np.int64), np.full(runs, x[t - 1]))
        estimates[:, t - 1] = policy.estimates[:, 0]
    reference = HybridCounter(eps, 40).sample(x, runs, np.random.default_rng(7))
    for pull in (1, 2, 3, 7, 8, 13, 16, 24, 31, 40):
        assert stats.ks_2samp(estimates[:, pull - 1], reference[:, pull - 1]).pvalue > ALPHA, pull
    combination = np.array([21, -11, 5])  # pulls 21, 11, 5: shares array and p-sum noises across blocks
    assert stats.ks_2samp(estimates[:, [20, 10, 4]] @ combination,
                          reference[:, [20, 10, 4]] @ combination).pvalue > ALPHA


# -- fast path against per-round path: the same decisions from the same draws ---------------------------

@pytest.mark.parametrize("eps, cut", [(0.5, None), (4.0, None), (4.0, 9)])
def test_lazy_ucb_fast_path_makes_the_per_round_decisions(eps, cut):
    table = np.random.default_rng(8).binomial(1, [[0.7], [0.5], [0.6]], size=(6, 3, 3000)).astype(float)
    policy = AnytimeLazyUCB(eps)
    reference = drive(policy, table, 3000, 10, "reference")
    assert (drive(policy, table, 3000, 10, "fast", cut) == reference).all()
    assert (np.diff(reference, axis=1) != 0).sum() > 20  # the runs switch arms: the bisection is exercised


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("policy", [UCB1(), HybridUCB(2.0), SmallChunks(8.0)])
def test_per_pull_index_fast_paths_make_the_per_round_decisions(policy, seed):
    """One run (the chunks of p-sum noise are drawn at the same pulls on both paths, so with one run
    the two paths read the same draws), uniform rewards; blocks also cut at random."""
    runs = 4 if isinstance(policy, UCB1) else 1
    table = np.random.default_rng(20 + seed).uniform(size=(runs, 3, 2000)) * np.array([1.0, 0.8, 0.9])[:, None]
    reference = drive(policy, table, 2000, seed, "reference")
    assert (drive(policy, table, 2000, seed, "fast") == reference).all()
    assert (drive(policy, table, 2000, seed, "fast", cut_seed=seed) == reference).all()


def test_ftl_fast_path_makes_the_per_round_decisions():
    env = BernoulliExperts([0.5, 0.52, 0.45])
    instances = env.instances(5, np.random.default_rng(0))
    rows = np.random.default_rng(1)
    table = np.stack([instances.rewards(rows) for _ in range(3000)], axis=1)  # (runs, T, K)
    ftl = FollowTheLeader()
    ftl.start(5, 3, 3000, None)
    reference = np.empty((5, 3000), dtype=np.int64)
    for t in range(3000):
        reference[:, t] = ftl.choose(t + 1)
        ftl.observe(t + 1, reference[:, t], table[:, t])
    ftl.start(5, 3, 3000, None)
    fast = np.full((5, 3000), -1)
    t = np.ones(5, dtype=np.int64)
    cumulative = np.concatenate([np.zeros((5, 1, 3)), np.cumsum(table, axis=1)], axis=1)
    blocks = 0
    while (t <= 3000).any():
        arm, length = ftl.next_block(t.copy())
        counts = np.where(t <= 3000, np.minimum(length, 3001 - t), 0)
        for r in np.flatnonzero(counts):
            fast[r, t[r] - 1: t[r] - 1 + counts[r]] = arm[r]
        sums = cumulative[np.arange(5), t - 1 + counts] - cumulative[np.arange(5), t - 1]
        ftl.observe_block(t.copy(), arm, BlockPulls(counts, sums))
        t += counts
        blocks += 1
    assert (fast == reference).all() and blocks < 1500


# -- fast path against per-round path in law, through the engine -------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name, kwargs, horizon", [
    ("anytime-lazy-ucb", {"eps": 1.0}, 600),
    ("hybrid-ucb", {"eps": 4.0}, 600),
    ("ucb", {}, 600),
])
def test_bandit_paths_agree_in_law(name, kwargs, horizon):
    """Final pseudo-regret of 400 runs on each path, two-sample KS (false-failure rate 1e-5)."""
    env = BernoulliBandit([0.7, 0.5, 0.6])
    policy = ALGORITHMS[name](**kwargs)
    fast = dpaudit.simulate(policy, env, horizon, 400, seed=31, path="fast")
    reference = dpaudit.simulate(policy, env, horizon, 400, seed=32, path="reference")
    assert fast.path == "fast" and reference.path == "reference"
    assert stats.ks_2samp(final_regret(fast), final_regret(reference), method="asymp").pvalue > ALPHA


@pytest.mark.parametrize("name, kwargs", [("ftnl", {"eps": 1.0}), ("naive-ftnl", {"eps": 1.0}), ("ftl", {})])
def test_full_information_paths_agree_in_law(name, kwargs):
    """Final pseudo-regret of 400 runs on each path, two-sample KS (false-failure rate 1e-5; KS is
    conservative on these discrete laws)."""
    env = BernoulliExperts([0.6, 0.5, 0.55])
    policy = ALGORITHMS[name](**kwargs)
    fast = dpaudit.simulate(policy, env, 500, 400, seed=41, path="fast")
    reference = dpaudit.simulate(policy, env, 500, 400, seed=42, path="reference")
    assert stats.ks_2samp(final_regret(fast), final_regret(reference), method="asymp").pvalue > ALPHA


# -- the algorithms as printed -----------------------------------------------------------------------

def test_index_policies_pull_every_arm_once_first_and_follow_their_indices():
    for policy in (UCB1(), AnytimeLazyUCB(1.0), HybridUCB(1.0)):
        policy.start(3, 4, 100, np.random.default_rng(0))
        for t in range(1, 5):
            assert (policy.choose(t) == t - 1).all()
            policy.observe(t, np.full(3, t - 1), np.full(3, 0.5))
    ucb = UCB1()
    ucb.start(1, 2, 10, None)
    ucb.observe(1, np.array([0]), np.array([1.0]))
    ucb.observe(2, np.array([1]), np.array([0.0]))
    assert ucb.index(3)[0] == pytest.approx([1 + np.sqrt(2 * np.log(3)), np.sqrt(2 * np.log(3))])
    lazy = AnytimeLazyUCB(0.5, literal_init=True)
    lazy.start(1, 1, 10, np.random.default_rng(0))
    lazy.observe(1, np.array([0]), np.array([0.25]))
    assert lazy.index(7)[0, 0] == pytest.approx(0.25 + np.sqrt(3 * np.log(7)) + 3 * np.log(7) / 0.5)  # eq. 4
    hybrid = HybridUCB(2.0)
    hybrid.start(1, 1, 10, np.random.default_rng(1))
    hybrid.observe(1, np.array([0]), np.array([0.25]))
    hybrid.observe(2, np.array([0]), np.array([0.75]))
    mu = hybrid.estimates[0, 0]
    expected = mu + np.sqrt(3 * np.log2(9) / 2) + 6 * np.sqrt(8) * np.log2(9) * 1 / (2 * 2.0)  # eq. 35
    assert hybrid.index(9)[0, 0] == pytest.approx(expected)


def test_ftnl_takes_K_from_start_and_keeps_its_explicit_K_form():
    policy = ALGORITHMS["ftnl"](eps=0.5)
    assert policy.K is None and policy.name == "FTNL(eps=0.5)" and check_policy(policy).feedback == "full"
    result = dpaudit.simulate(policy, BernoulliExperts([0.6, 0.5, 0.4, 0.3]), 64, 10, seed=1)
    assert result.pulls.shape == (10, 4) and (result.pulls.sum(axis=1) == 64).all()
    explicit = FollowTheNoisyLeader(1.0, 2)
    assert explicit.name == "FTNL(eps=1, K=2)" and explicit.noise_scale == pytest.approx(1.0)
    with pytest.raises(ValueError, match="K = 2"):
        explicit.start(1, 3, 8, np.random.default_rng(0))
    wide = ALGORITHMS["ftnl"](eps=0.5, noise_scale="2/eps")
    wide.start(1, 3, 8, np.random.default_rng(0))
    assert float(wide.noisy_max(3).scale) == pytest.approx(4.0)  # Lap(2/eps)
    assert float(ALGORITHMS["naive-ftnl"](eps=0.5).noisy_max(3).scale) == pytest.approx(6.0)  # Lap(K/eps)
    with pytest.raises(ValueError, match="noise_scale"):
        FollowTheNoisyLeader(1.0, 2, variant="naive", noise_scale="2/eps")
    with pytest.raises(ValueError, match="noise_scale"):
        ALGORITHMS["ftnl"](eps=1.0, noise_scale="3/eps")


def test_batch_to_online_selector_outputs_the_most_played_action():
    batches = np.zeros((6, 40, 3))
    batches[:, :, 2] = 1.0  # action 2 always pays
    batches[3, :, 1] = 1.0  # run 3: actions 1 and 2 tie in reward; FTL follows the lowest
    selector = BatchToOnlineSelector(FollowTheLeader())
    weights = selector.weights(batches, np.random.default_rng(0))
    assert (weights.sum(axis=1) == 40).all()
    assert list(selector.select(batches, np.random.default_rng(0))) == [2, 2, 2, 1, 2, 2]
    private = BatchToOnlineSelector(FollowTheNoisyLeader(50.0))  # large eps: RNM picks the leader
    assert (private.select(batches[[0, 1]], np.random.default_rng(1)) == 2).all()
    bandit = BatchToOnlineSelector(UCB1())
    assert bandit.select(batches, np.random.default_rng(2)).shape == (6,)
    with pytest.raises(ValueError, match="batches"):
        selector.select(np.zeros((2, 3)), np.random.default_rng(0))


def test_registry_entries_name_their_paper_and_check_their_parameters():
    for name in ("ucb", "anytime-lazy-ucb", "hybrid-ucb", "ftnl", "naive-ftnl", "ftl"):
        assert describe(name).startswith("private-online "), name
        assert len(ALGORITHMS[name].__doc__.strip().splitlines()) > 1  # says where the paper was silent
    assert describe("anytime-lazy-ucb").startswith("private-online Algorithm 1: Anytime-Lazy-UCB")
    assert describe("hybrid-ucb").startswith("private-online Algorithm 4: Hybrid-UCB")
    for name in ("anytime-lazy-ucb", "hybrid-ucb", "ftnl", "naive-ftnl"):
        with pytest.raises(ValueError, match="epsilon"):
            ALGORITHMS[name](eps=0.0)
    with pytest.raises(ValueError, match="literal_init"):
        ALGORITHMS["anytime-lazy-ucb"](eps=1.0, literal_init="yes")


def test_the_registry_passes_anytime_lazy_ucbs_options_on():
    from dpaudit.algorithms import ALGORITHMS

    policy = ALGORITHMS["anytime-lazy-ucb"](eps=0.5, literal_init=True, noise_scale="1/(2eps)")
    assert (policy.epsilon, policy.literal_init, policy.scale_rule) == (0.5, True, "1/(2eps)")
    assert ALGORITHMS["anytime-lazy-ucb"](eps=0.5).scale_rule == "1/eps"
