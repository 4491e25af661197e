"""Regret bounds decided exactly from an algorithm's expected regret (dpaudit.auditors.exact_regret)."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.algorithms.mab.dp_se import DPSuccessiveElimination
from dpaudit.suite import RunContext, Suite
from dpaudit.testing import ExploreThenCommit


def _agree(policy, env, horizon, runs, seed):
    """The exact regret against a simulation: within 4.5 standard errors where the runs vary (each of
    the 12 comparisons fails with probability below 1e-5 if the exact value is right); where every run
    has the same regret, an event that no run saw moves the mean by at most (T x gap) x its
    probability, and an event of probability >= 5 / runs is missed with probability <= e^-5 = 0.007."""
    grid = np.unique(np.geomspace(10, horizon, 12).astype(int))
    exact = policy.exact_regret(env, grid, horizon)
    sim = dpaudit.simulate(policy, env, horizon, runs, seed=seed, grid=grid)
    varies = sim.stderr() > 1e-6 * np.maximum(exact, 1)
    assert np.all(np.abs(sim.mean() - exact)[varies] <= 4.5 * sim.stderr()[varies])
    gap = np.ptp(env.sampler.values)
    assert np.all(np.abs(sim.mean() - exact)[~varies] <= 5 / runs * gap * grid[~varies] + 1e-9)
    return exact, varies


@pytest.mark.parametrize("eps, means, horizon", [(1.0, [0.57, 0.43], 20_000), (0.2, [0.4, 0.55], 50_000),
                                                 (4.0, [0.55, 0.485], 60_000)])
def test_dp_se_exact_regret_matches_simulation(eps, means, horizon):
    exact, varies = _agree(DPSuccessiveElimination(eps), BernoulliBandit(means), horizon, 10_000, seed=1)
    assert varies.any()  # the instance is chosen so that the eliminations are random events
    assert np.all(np.diff(exact) >= -1e-9)


def test_dp_se_exact_regret_refuses_what_it_cannot_compute():
    grid = np.array([10, 100])
    with pytest.raises(dpaudit.UnsupportedAudit, match="2 arms"):
        DPSuccessiveElimination(1.0).exact_regret(BernoulliBandit([0.6, 0.5, 0.4]), grid, 100)
    with pytest.raises(dpaudit.UnsupportedAudit, match="fixed means"):
        DPSuccessiveElimination(1.0).exact_regret(dpaudit.algorithms.GaussianBandit([0.6, 0.5], 0.1), grid, 100)
    with pytest.raises(dpaudit.UnsupportedAudit, match="per-arm"):
        DPSuccessiveElimination(1.0, noise="shared").exact_regret(BernoulliBandit([0.6, 0.5]), grid, 100)
    assert not DPSuccessiveElimination(1.0).exact_regret(BernoulliBandit([0.5, 0.5]), grid, 100).any()


@pytest.mark.parametrize("reverse", [False, True])
def test_explore_then_commit_exact_regret_matches_simulation(reverse):
    _agree(ExploreThenCommit(30, reverse=reverse), BernoulliBandit([0.4, 0.55]), 3000, 20_000, seed=2)


def test_bounds_are_decided_exactly_where_the_regret_is_known():
    env = BernoulliBandit([0.57, 0.43])
    policy = DPSuccessiveElimination(1.0)
    grid = np.unique(np.geomspace(100, 20_000, 10).astype(int))
    # DP-SE's beta = 1/T reads the horizon: the claim's E[R_T] is that of a run started with T
    exact = np.array([policy.exact_regret(env, [T], T)[0] for T in grid])
    figure = policy.exact_regret(env, grid, 20_000)  # round T of one run of horizon 20,000, as a figure reads it
    assert not np.allclose(exact, figure)

    def at(scale, values=exact):
        return dpaudit.RegretBound(lambda T: scale * np.interp(T, grid, values), f"{scale} x E[R_T]")

    held = dpaudit.audit_regret(policy, env, at(1.0), horizons=grid, seed=0)
    assert held.verdict == "verified" and held.auditor == "exact-regret" and held.confidence == 1.0
    assert held.statistic.kind == "exact" and held.statistic.value == pytest.approx(1.0)
    assert held.parameters["reading"]["rounds"].startswith("E[R_T] of a run of horizon T")
    read_as_figure = dpaudit.audit_regret(policy, env, at(1.0, figure), horizons=grid, seed=0, reading="figure")
    assert read_as_figure.verdict == "verified" and read_as_figure.statistic.value == pytest.approx(1.0)
    assert read_as_figure.parameters["reading"]["rounds"] == "E[R_t] at each recorded round t of a run of horizon 20000"
    short = dpaudit.audit_regret(policy, env, at(0.999), horizons=grid, seed=0)
    assert short.verdict == "refuted" and short.witness["T"] == grid[np.argmax(exact > 0)]  # the first T with regret
    assert short.witness["expected_regret"] > short.witness["bound"]
    # what the exact path cannot decide goes to simulation, and the record says why
    hp = dpaudit.audit_regret(policy, env, dpaudit.RegretBound(lambda T: 2 * np.interp(T, grid, exact), "2x",
                                                               probability=0.1), horizons=grid, runs=50, seed=0)
    assert hp.auditor == "regret-bound" and any("high-probability" in n for n in hp.notes)
    three = dpaudit.audit_regret(policy, BernoulliBandit([0.57, 0.43, 0.4]), at(100.0), horizons=grid, runs=50,
                                 seed=0)
    assert three.auditor == "regret-bound" and any("could not decide" in n and "2 arms" in n for n in three.notes)
    forced = dpaudit.audit_regret(policy, env, at(1.0), horizons=grid, runs=50, seed=0, auditor="statistical")
    assert forced.auditor == "regret-bound" and forced.verdict == "not-refuted"


def test_a_suite_entry_plans_the_exact_path():
    suite = Suite("mine", "my suite")
    env = BernoulliBandit([0.57, 0.43])
    entry = suite.regret("mine/dpse", policy="dp-se", params={"eps": 1.0}, environment=env,
                         claim=dpaudit.RegretBound(lambda T: 0.2 * T, "0.2 T (the largest possible)"),
                         horizons={"quick": 20_000})
    assert entry.plan.auditor.name == "exact-regret" and entry.plan.fallback is not None
    audit = entry.audit(RunContext(0, "quick", 0.01, np.random.SeedSequence(0)))
    assert audit.finding.verdict == "verified"
