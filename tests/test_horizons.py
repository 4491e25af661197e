"""Regret claims about horizon-aware policies are audited on runs of that horizon (dpaudit.bandits.horizons).

Explore-then-commit with m = ceil(T^(2/3)) pulls per arm is started with its horizon T and uses it. Read
off one long run, as every policy used to be, its regret at small T is that of a run still exploring,
and at large T that of a run committed long ago: a true bound on E[R_T] is refuted and a false rate is
not. Audited on one run per horizon, both verdicts come out right.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import ALGORITHMS, BernoulliBandit
from dpaudit.bandits.horizons import simulate_horizons
from dpaudit.bandits.policies import _declared_anytime, horizon_use
from dpaudit.bandits.simulation import ONE_RUN, PER_HORIZON, horizon_grid
from dpaudit.testing import ExploreThenCommit

ENV = BernoulliBandit([0.6, 0.5])
HORIZONS = np.unique(np.round(np.geomspace(1024, 131_072, 15)).astype(int))  # a factor sqrt 2 apart
TRUE_BOUND = dpaudit.RegretBound(lambda T: 0.15 * T ** (2 / 3) + 10, "0.15 T^(2/3) + 10")


class TunedExploreThenCommit:
    """Explore-then-commit tuned to its horizon, as a user writes it: m = ceil(T^(2/3)) pulls of each arm
    in turn, then the arm with the larger sum (ties to arm 0). It declares nothing about the horizon, and
    its start() reads it. Its blocks (each arm's exploration, then the rest of the run) make it fast."""

    def start(self, runs, arms, horizon, rng):
        self.m = math.ceil(horizon ** (2 / 3))
        self.arms, self.horizon = arms, horizon
        self.sums = np.zeros((runs, arms))
        self.best = None

    def _arm(self, t):
        t = np.asarray(t)
        exploring = t <= self.arms * self.m
        explored = np.minimum((t - 1) // self.m, self.arms - 1)
        if self.best is None and not exploring.all():
            self.best = np.argmax(self.sums, axis=1)
        return np.where(exploring, explored, self.best if self.best is not None else 0)

    def choose(self, t):
        return np.broadcast_to(self._arm(t), self.sums.shape[:1]).astype(np.int64)

    def observe(self, t, arms, rewards):
        if t <= self.arms * self.m:
            self.sums[np.arange(len(arms)), arms] += rewards

    def next_block(self, t):
        t = np.asarray(t)
        end = np.where(t <= self.arms * self.m, ((t - 1) // self.m + 1) * self.m, self.horizon)
        return self._arm(t).astype(np.int64), (end - t + 1).astype(np.int64)

    def observe_block(self, t, arms, pulls):
        rows = np.flatnonzero((np.asarray(t) <= self.arms * self.m) & (pulls.counts > 0))
        self.sums[rows, arms[rows]] += pulls.sums[rows]


class PlainExploreThenCommit:
    """Fixed-exploration explore-then-commit with no fast path (every run on the reference path, where a
    run's first T rounds are the same draws whatever its horizon); ``anytime`` as given."""

    def __init__(self, m, anytime):
        self.m, self.anytime = m, anytime

    def start(self, runs, arms, horizon, rng):
        self.arms = arms
        self.sums = np.zeros((runs, arms))

    def choose(self, t):
        if t <= self.arms * self.m:
            return np.full(len(self.sums), (t - 1) // self.m)
        return np.argmax(self.sums, axis=1)

    def observe(self, t, arms, rewards):
        if t <= self.arms * self.m:
            self.sums[np.arange(len(arms)), arms] += rewards


def test_a_horizon_aware_policy_is_audited_on_runs_of_each_horizon():
    """The issue's case. Bound: at T = 1,024 a run of horizon T has E[R_T] about 17 against 0.15 T^(2/3) +
    10 = 25; read off the run of horizon 131,072 (m = 2,581, arm 1 explored from round 2,582), the regret
    at T = 4,096 is 0.1 (4096 - 2581) = 152 against 48 in every run. Rate: E[R_T] ~ 0.1 T^(2/3) of runs
    of horizon T (fitted slope about 0.67), while the long run's regret is flat after it commits. Seeded;
    over seeds the per-horizon verdicts fail with probability below 0.01 each (the audits' level) and the
    one-run verdicts, which are off by the whole exploration, essentially never differ."""
    policy = TunedExploreThenCommit()
    assert horizon_use(policy) == (False, "TunedExploreThenCommit does not declare anytime and its start() reads "
                                          "the horizon: taken as horizon-aware")
    bound = dpaudit.audit_regret(policy, ENV, TRUE_BOUND, horizons=HORIZONS, runs=200, seed=0)
    assert bound.verdict == "not-refuted"
    assert bound.parameters["reading"]["rounds"].startswith("one run per recorded round T")
    assert bound.parameters["simulation"]["reading"] == PER_HORIZON
    rate = dpaudit.audit_regret(policy, ENV, dpaudit.RegretRate(0.5), horizons=HORIZONS, runs=200, seed=0)
    assert rate.verdict == "refuted" and rate.statistic.value == pytest.approx(2 / 3, abs=0.05)
    assert "each from its own run of horizon T" in rate.parameters["rule"]
    # the old reading, kept for figures: regret against t within one run of the largest horizon
    figure_bound = dpaudit.audit_regret(policy, ENV, TRUE_BOUND, horizons=HORIZONS, runs=200, seed=0,
                                        reading="figure")
    figure_rate = dpaudit.audit_regret(policy, ENV, dpaudit.RegretRate(0.5), horizons=HORIZONS, runs=200, seed=0,
                                       reading="figure")
    assert figure_bound.verdict == "refuted" and figure_rate.verdict == "not-refuted"
    assert figure_bound.parameters["reading"]["rounds"] == "one run of horizon 131072, read at every recorded round"


def test_an_anytime_policy_gives_the_same_verdicts_under_both_readings():
    """On the reference path a run's first T rounds are the same draws whatever its horizon, so the runs of
    each horizon reproduce the long run's prefix exactly: every regret, and so every verdict, is equal."""
    grid = np.unique(np.round(np.geomspace(50, 3200, 13)).astype(int))
    anytime, aware = PlainExploreThenCommit(5, True), PlainExploreThenCommit(5, False)
    env = BernoulliBandit([0.6, 0.5])  # 5 pulls each commit to the worse arm about a third of the time
    claims = [dpaudit.RegretBound(lambda T: 0.1 * T, "0.1 T"), dpaudit.RegretBound(lambda T: 0.003 * T + 4),
              dpaudit.RegretRate(1.0), dpaudit.RegretRate(0.5)]
    verdicts = []
    for claim in claims:
        one = dpaudit.audit_regret(anytime, env, claim, horizons=grid, runs=100, seed=4, bootstrap=200)
        each = dpaudit.audit_regret(aware, env, claim, horizons=grid, runs=100, seed=4, bootstrap=200)
        assert one.parameters["reading"]["rounds"].startswith("one run of horizon 3200")
        assert each.parameters["reading"]["rounds"].startswith("one run per recorded round T")
        assert one.verdict == each.verdict
        assert one.statistic.value == each.statistic.value
        verdicts.append(one.verdict)
    assert verdicts == ["not-refuted", "refuted", "not-refuted", "refuted"]  # the regret is linear in T

    def run(policy):
        return simulate_horizons(lambda T, rounds: dpaudit.simulate(policy, env, T, 100, seed=4, grid=rounds),
                                 policy, grid)

    sims = [run(p) for p in (anytime, aware)]
    assert [s.reading for s in sims] == [ONE_RUN, PER_HORIZON]
    assert np.array_equal(sims[0].pseudo_regret, sims[1].pseudo_regret)
    assert np.array_equal(sims[0].regret, sims[1].regret)


def test_orderings_at_every_round_run_each_horizon_and_final_orderings_one_run():
    series = {"etc-tuned": TunedExploreThenCommit(), "etc-fixed": ExploreThenCommit(30)}
    grid = np.array([256, 512, 1024, 2048])
    at_grid = dpaudit.audit_regret(series, ENV, dpaudit.RegretOrder([["etc-tuned"], ["etc-fixed"]], at="grid"),
                                   horizons=grid, runs=40, seed=1)
    readings = at_grid.parameters["reading"]
    assert readings["TunedExploreThenCommit"]["rounds"].startswith("one run per recorded round T")
    assert readings["ExploreThenCommit(m=30)"]["rounds"].startswith("one run of horizon 2048")
    final = dpaudit.audit_regret(series, ENV, dpaudit.RegretOrder([["etc-tuned"], ["etc-fixed"]]), horizons=grid,
                                 runs=40, seed=1)
    assert final.parameters["reading"]["why"] == "at='final'"
    # the anytime series is the same one run either way
    assert final.parameters["final_mean"]["etc-fixed"] == at_grid.parameters["final_mean"]["etc-fixed"]


def test_an_int_horizon_gives_a_coarser_grid_for_horizon_aware_policies():
    res = dpaudit.audit_regret(TunedExploreThenCommit(), ENV, TRUE_BOUND, horizons=4096, runs=20, seed=0)
    assert np.array_equal(res.parameters["grid"], horizon_grid(4096))
    assert horizon_grid(4096).sum() < 3.5 * 4096
    anytime = dpaudit.audit_regret(ExploreThenCommit(30), ENV, TRUE_BOUND, horizons=4096, runs=20, seed=0,
                                   auditor="statistical")
    assert np.array_equal(anytime.parameters["grid"], dpaudit.bandits.simulation.regret_grid(4096))


def test_what_a_policy_says_about_its_horizon_is_read_with_care():
    class Reads:
        def start(self, runs, arms, horizon, rng):
            self.cut = horizon // 2

        def choose(self, t):
            return np.zeros(1, dtype=int)

        def observe(self, t, arms, rewards):
            pass

    class Ignores(Reads):
        def start(self, runs, arms, T, rng):
            self.n = runs

    class Declares(Reads):
        anytime = True

    class Overrides(ExploreThenCommit):  # declared anytime above an overriding start(): not its declaration
        def start(self, runs, arms, horizon, rng):
            super().start(runs, arms, horizon, rng)

    class Stars(Reads):
        def start(self, *args):
            pass

    assert horizon_use(Reads())[0] is False
    assert horizon_use(Ignores()) == (True, "Ignores does not declare anytime, and its start() never reads the horizon")
    assert horizon_use(Declares()) == (True, "Declares declares anytime = True")
    assert horizon_use(Overrides(3))[0] is False and "reads the horizon" in horizon_use(Overrides(3))[1]
    assert horizon_use(Stars()) == (False, "Stars does not declare anytime and its start() cannot be inspected: "
                                           "taken as horizon-aware")
    instance = Reads()
    instance.anytime = True
    assert horizon_use(instance)[0] is True
    with pytest.raises(TypeError, match="anytime must be True or False"):
        instance.anytime = "yes"
        dpaudit.simulate(instance, ENV, 10, 2, seed=0)


def test_a_policy_without_feedback_gets_bandit_feedback():
    class NoFeedback(PlainExploreThenCommit):
        pass

    policy = NoFeedback(5, True)
    assert not hasattr(policy, "feedback")
    res = dpaudit.simulate(policy, ENV, 100, 10, seed=0)
    ref = dpaudit.simulate(ExploreThenCommit(5), ENV, 100, 10, seed=0, path="reference")
    assert res.pulls.sum() == 1000 and np.array_equal(res.pseudo_regret[:, -1] > 0, ref.pseudo_regret[:, -1] > 0)
    res = dpaudit.audit_regret(policy, ENV, dpaudit.RegretBound(lambda T: 0.1 * T), horizons=[50, 100], runs=10,
                               seed=0)
    assert res.verdict == "not-refuted"


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_every_built_in_algorithm_declares_whether_it_is_anytime(name):
    """Each registry algorithm says it, on the class whose start() runs (or below it); those whose
    constants are tuned to T are anytime exactly when T (or the parameter that reads it) is given."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        policy = ALGORITHMS[name](**{p: {"eps": 0.5, "M0": 2}[p] for p in _required(name)})
        assert _declared_anytime(policy) is not None
        if hasattr(policy, "T") and "T" in _parameters(name):
            fixed = ALGORITHMS[name](**{p: {"eps": 0.5, "M0": 2}[p] for p in _required(name)}, T=10_000)
            assert horizon_use(fixed)[0] is True


def _parameters(name):
    import inspect

    return inspect.signature(ALGORITHMS[name]).parameters


def _required(name):
    return [p.name for p in _parameters(name).values() if p.default is p.empty]


def test_the_papers_tuned_algorithms_are_horizon_aware_by_default():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aware = {name for name in ALGORITHMS
                 if not horizon_use(ALGORITHMS[name](**{p: {"eps": 0.5, "M0": 2}[p] for p in _required(name)}))[0]}
    assert {"dp-se", "dist-dp-se", "se", "linucb", "linucb-ldp", "cs-linucb", "shuffle-glm", "private-glm"} <= aware
    assert not aware & {"ucb", "anytime-lazy-ucb", "hybrid-ucb", "ftnl", "naive-ftnl", "ftl", "gloc", "ecolog"}
    assert horizon_use(ALGORITHMS["dp-se"](eps=1.0, beta=0.01))[0] is True
    assert horizon_use(ALGORITHMS["dist-dp-se"](eps=1.0, p=0.1))[0] is True
    assert horizon_use(ALGORITHMS["linucb"](alpha=0.01))[0] is True


def test_a_subject_reads_its_horizons_as_the_claim_means_them_unless_told_otherwise(monkeypatch):
    """RegretSubject.simulate_horizons without a reading reads the rounds as E[R_T] of runs of horizon T:
    a horizon-aware policy gets one run per round (each started with that T, on the one seed), the same
    runs as asked for with reading="horizon", not the one run of the largest horizon a figure reads. The
    regret at the last round is that run's either way. Without ``workers`` every simulation runs in this
    process (one worker). Seeded: deterministic."""
    import dpaudit.bandits.cache as cache
    from dpaudit.auditors import RegretSubject

    asked, original = [], cache.cached_simulate

    def spy(*args, workers, **kwargs):
        asked.append(workers)
        return original(*args, workers=workers, **kwargs)

    monkeypatch.setattr(cache, "cached_simulate", spy)
    subject = RegretSubject(TunedExploreThenCommit(), ENV, "etc-tuned", {})
    grid, seed = np.array([64, 128, 256]), np.random.SeedSequence(5)
    default = subject.simulate_horizons(grid, 30, seed)
    horizon = subject.simulate_horizons(grid, 30, seed, "horizon")
    figure = subject.simulate_horizons(grid, 30, seed, "figure")
    assert asked == [1] * 7  # three runs each for the two horizon readings, one for the figure
    assert default.reading == horizon.reading == PER_HORIZON and figure.reading == ONE_RUN
    assert default.grid.tolist() == grid.tolist()
    assert np.array_equal(default.pseudo_regret, horizon.pseudo_regret)
    assert np.array_equal(default.regret, horizon.regret)
    each = [dpaudit.simulate(TunedExploreThenCommit(), ENV, int(T), 30, seed=seed, grid=[T]).pseudo_regret[:, -1]
            for T in grid]
    assert np.array_equal(default.pseudo_regret, np.stack(each, axis=1))
    assert not np.array_equal(default.pseudo_regret[:, 0], figure.pseudo_regret[:, 0])
    assert np.array_equal(default.pseudo_regret[:, -1], figure.pseudo_regret[:, -1])
