"""The simulation engine (dpaudit.simulate): both paths, recording, seeding, common random numbers,
and the errors a user's policy or bad arguments get."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms import ALGORITHMS
from dpaudit.algorithms.environments import BernoulliBandit, BernoulliExperts, GaussianBandit, UniformMeans
from dpaudit.bandits import simulation
from dpaudit.bandits.simulation import RUN_BLOCK, SimulationResult, regret_grid, simulate


class ExploreThenCommit:
    """Pull every arm m times in index order, then commit to the best sum: a user-style policy with a
    per-round path and an exact block path."""

    feedback = "bandit"
    name = "ETC"

    def __init__(self, m: int):
        self.m = m

    def start(self, runs, arms, horizon, rng):
        self.K, self.sums, self.best = arms, np.zeros((runs, arms)), np.full(runs, -1)
        self.done = np.zeros(runs, dtype=np.int64)  # exploration pulls made

    def _commit(self, rows):
        self.best[rows] = np.argmax(self.sums[rows], axis=1)

    def choose(self, t):
        return np.where(self.best >= 0, self.best, np.minimum(self.done // self.m, self.K - 1))

    def observe(self, t, arms, rewards):
        exploring = self.best < 0
        self.sums[exploring, arms[exploring]] += rewards[exploring]
        self.done[exploring] += 1
        self._commit(np.flatnonzero(exploring & (self.done == self.K * self.m)))

    def next_block(self, t):
        left = self.m - self.done % self.m
        return self.choose(0), np.where(self.best >= 0, 1 << 40, left)

    def observe_block(self, t, arms, pulls):
        exploring = (self.best < 0) & (pulls.counts > 0)
        self.sums[exploring, arms[exploring]] += pulls.sums[exploring]
        self.done[exploring] += pulls.counts[exploring]
        self._commit(np.flatnonzero(exploring & (self.done == self.K * self.m)))


class Constant:
    """Always the same arm (bandit or full information), recording what it is shown."""

    def __init__(self, arm: int, feedback: str = "bandit", draws: bool = False):
        self.arm, self.feedback, self.draws = arm, feedback, draws

    def start(self, runs, arms, horizon, rng):
        self.runs, self.rng, self.seen = runs, rng, []

    def choose(self, t):
        if self.draws:  # uses its own stream: must not move the environment's
            self.rng.random(7)
        return np.full(self.runs, self.arm)

    def observe(self, t, arms, rewards):
        self.seen.append(np.array(rewards, copy=True))


BANDIT = BernoulliBandit([0.7, 0.5, 0.4])


def test_grid_is_log_spaced_and_ends_with_the_horizon():
    grid = regret_grid(1000)
    assert grid[0] == 1 and grid[-1] == 1000 and np.all(np.diff(grid) > 0)
    assert regret_grid(1).tolist() == [1]
    res = simulate(Constant(0), BANDIT, horizon=50, runs=2, seed=0, grid=[3, 10])
    assert res.grid.tolist() == [3, 10, 50]


@pytest.mark.parametrize("path", ["reference", "fast"])
def test_pseudo_regret_at_the_recorded_rounds(path):
    # ETC with m = 4 on 3 arms: rounds 1-4 arm 0 (gap 0), 5-8 arm 1 (0.2), 9-12 arm 2 (0.3)
    res = simulate(ExploreThenCommit(4), BANDIT, horizon=12, runs=5, seed=1, grid=[2, 6, 9, 12], path=path)
    assert res.path == path
    np.testing.assert_allclose(res.pseudo_regret, np.tile([0.0, 0.4, 1.1, 2.0], (5, 1)), atol=1e-12)
    assert res.pulls.tolist() == [[4, 4, 4]] * 5


def test_fast_and_reference_paths_agree_in_law():
    # The committed arm after 3 x 10 Bernoulli pulls has one law on both paths. A chi-square test of
    # homogeneity on the 3 x 2 table of committed arms, at level 1e-4: false failures 1 in 10^4.
    runs = 3000
    counts = []
    for path in ("reference", "fast"):
        res = simulate(ExploreThenCommit(10), BernoulliBandit([0.55, 0.5, 0.45]), horizon=31, runs=runs, seed=7,
                       path=path)
        committed = np.argmax(res.pulls - 10, axis=1)  # the arm pulled in round 31
        counts.append(np.bincount(committed, minlength=3))
    assert stats.chi2_contingency(np.array(counts)).pvalue > 1e-4


def test_power_of_the_path_comparison():
    # the same test tells a different law apart (means shifted by 0.1): it must reject
    counts = []
    for means in ([0.55, 0.5, 0.45], [0.45, 0.5, 0.55]):
        res = simulate(ExploreThenCommit(10), BernoulliBandit(means), horizon=31, runs=3000, seed=7)
        counts.append(np.bincount(np.argmax(res.pulls - 10, axis=1), minlength=3))
    assert stats.chi2_contingency(np.array(counts)).pvalue < 1e-4


def test_same_seed_same_result_and_independent_of_workers():
    # worker processes unpickle the policy, so it must be importable there: a built-in one
    runs = RUN_BLOCK + 7  # two seed blocks
    policy = ALGORITHMS["dist-dp-se"](eps=1.0, p=0.1)
    one = simulate(policy, BANDIT, horizon=300, runs=runs, seed=3)
    again = simulate(policy, BANDIT, horizon=300, runs=runs, seed=3)
    two = simulate(policy, BANDIT, horizon=300, runs=runs, seed=3, workers=2)
    for res in (again, two):
        np.testing.assert_array_equal(res.pseudo_regret, one.pseudo_regret)
        np.testing.assert_array_equal(res.regret, one.regret)
    assert simulate(policy, BANDIT, horizon=300, runs=runs, seed=4).regret.tolist() != one.regret.tolist()
    assert one.seed.to_dict()["entropy"] == 3


def test_the_policy_passed_in_is_left_as_it_was():
    policy = ExploreThenCommit(2)
    simulate(policy, BANDIT, horizon=10, runs=2, seed=0)
    assert not hasattr(policy, "sums")


class Recorder(Constant):
    """A constant policy that keeps what it is shown where the test can read it (the engine runs a
    copy of the policy)."""

    shown: list = []

    def observe(self, t, arms, rewards):
        Recorder.shown.append(np.array(rewards, copy=True))


def test_common_random_numbers_across_policies():
    # the instances and the reward table depend on the seed only, not on the policy or its draws
    env = BernoulliExperts(UniformMeans(4, 0.2, 0.8))
    tables, means = [], []
    for policy in (Recorder(0, "full"), Recorder(3, "full", draws=True)):
        Recorder.shown = []
        means.append(simulate(policy, env, horizon=15, runs=4, seed=5, path="reference").means)
        tables.append(np.array(Recorder.shown))
    np.testing.assert_array_equal(means[0], means[1])
    np.testing.assert_array_equal(tables[0], tables[1])
    assert tables[0].shape == (15, 4, 4)


def test_realised_regret_has_the_pseudo_regret_as_mean():
    # E[regret - pseudo-regret] = 0; the mean over 4000 runs of a difference with sd <= sqrt(T)/2 is
    # within 4.5 standard errors: false failures about 7 in 10^6.
    res = simulate(ExploreThenCommit(5), GaussianBandit([0.6, 0.5, 0.5], 0.3), horizon=60, runs=4000, seed=2)
    diff = res.regret[:, -1] - res.pseudo_regret[:, -1]
    assert abs(diff.mean()) < 4.5 * diff.std(ddof=1) / np.sqrt(diff.size)


def test_long_blocks_are_cut_to_a_memory_bound(monkeypatch):
    monkeypatch.setattr(simulation, "MAX_BLOCK_PULLS", 8)
    res = simulate(ExploreThenCommit(50), GaussianBandit([0.6, 0.4], 0.1), horizon=300, runs=4, seed=0, path="fast")
    assert res.pulls.sum(axis=1).tolist() == [300] * 4
    gap = res.means[:, 0] - res.means[:, 1]  # the clipped rewards' means
    plays = res.pseudo_regret[:, -1] / gap  # of the worse arm: 50 in exploration, 0 or 250 after
    assert np.all(np.isclose(plays, 50) | np.isclose(plays, 300))


def test_result_summary_and_npz_round_trip(tmp_path):
    res = simulate(ExploreThenCommit(2), BANDIT, horizon=30, runs=3, seed=9)
    assert res.mean().shape == res.grid.shape == res.stderr("realised").shape
    json.dumps(res.summary())
    res.save(tmp_path / "r.npz")
    back = SimulationResult.load(tmp_path / "r.npz")
    np.testing.assert_array_equal(back.pseudo_regret, res.pseudo_regret)
    assert back.algorithm == "ETC" and back.seed == res.seed and back.horizon == 30
    with pytest.raises(ValueError, match="kind must be"):
        res.mean("expected")


class Broken(Constant):
    def __init__(self, fault):
        super().__init__(0)
        self.fault = fault

    def choose(self, t):
        arms = np.zeros(self.runs, dtype=int)
        if t == 5:
            if self.fault == "range":
                arms[3] = 7
            elif self.fault == "nan":
                return np.where(np.arange(self.runs) == 2, np.nan, 0.0)
            elif self.fault == "shape":
                return arms[:2]
        return arms


@pytest.mark.parametrize("fault, message", [("range", r"played arm 7 in run 3 at round 5"),
                                            ("nan", r"returned nan for run 2 at round 5"),
                                            ("shape", r"arms of shape \(2,\) at round 5, expected \(4,\)")])
def test_a_bad_policy_is_named_with_its_round_and_run(fault, message):
    with pytest.raises(ValueError, match=message):
        simulate(Broken(fault), BANDIT, horizon=10, runs=4, seed=0)


@pytest.mark.parametrize("kwargs, message", [
    ({"horizon": 0}, "horizon must be an integer >= 1"),
    ({"runs": 0}, "runs must be an integer >= 1"),
    ({"path": "quick"}, "path must be one of"),
    ({"grid": [0, 5]}, "grid rounds must lie in 1..10"),
    ({"grid": [1.5]}, "grid must be a non-empty list of rounds"),
    ({"workers": 0}, "workers must be an integer >= 1"),
])
def test_bad_arguments(kwargs, message):
    args = {"horizon": 10, "runs": 2, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        simulate(ExploreThenCommit(1), BANDIT, **args)


def test_protocol_mismatches_are_refused():
    with pytest.raises(ValueError, match="full-information feedback"):
        simulate(Constant(0, "full"), BANDIT, horizon=5, runs=1)
    with pytest.raises(ValueError, match="has no fast path"):
        simulate(Constant(0), BANDIT, horizon=5, runs=1, path="fast")
    with pytest.raises(TypeError, match="is not a policy"):
        simulate(object(), BANDIT, horizon=5, runs=1)
    with pytest.raises(TypeError, match="is not an environment"):
        simulate(Constant(0), object(), horizon=5, runs=1)


def test_top_level_exports():
    assert dpaudit.simulate is simulate and dpaudit.SimulationResult is SimulationResult
