"""Orderings by regret (RegretOrder and its auditor), the simulation cache, and regret suite entries."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.auditors import regret_order
from dpaudit.errors import InvalidClaim
from dpaudit.simulation_cache import cached_simulate, clear_memory, simulation_key
from dpaudit.stats import bounded_mean_lower, bounded_mean_pvalue, holm
from dpaudit.suite import RunContext, Suite, at_budget
from dpaudit.testing import ExploreThenCommit, explore_then_commit_regret

MEANS = [0.6, 0.4]
REPETITIONS = 200
RUNS = 100


# --- the claim -----------------------------------------------------------------------------------

def test_order_claim_parses_and_rejects_bad_orders():
    claim = dpaudit.parse_claim("regret-order ucb < dp-se,lazy-ucb < hybrid-ucb at=grid")
    assert claim == dpaudit.RegretOrder([["ucb"], ["dp-se", "lazy-ucb"], ["hybrid-ucb"]], at="grid")
    assert ("ucb", "hybrid-ucb") in claim.pairs() and ("dp-se", "lazy-ucb") not in claim.pairs()
    assert len(claim.pairs()) == 5
    assert dpaudit.parse_claim(claim.describe()) == claim
    for bad in (["a"], [["a"], ["a"]], [["a"], []], "ab"):
        with pytest.raises(InvalidClaim):
            dpaudit.RegretOrder(bad)
    with pytest.raises(InvalidClaim, match="at must be"):
        dpaudit.RegretOrder(["a", "b"], at="middle")
    with pytest.raises(InvalidClaim, match="lowest regret to highest"):
        dpaudit.parse_claim("regret-order ucb")


def test_bounded_pvalue_is_the_level_where_the_bound_crosses():
    rng = np.random.default_rng(1)
    z = rng.beta(2, 3, size=(300, 3))
    threshold = np.array([0.3, 0.35, 0.6])
    p = bounded_mean_pvalue(z, threshold)
    assert p[2] == 1.0
    for j in range(2):
        above = bounded_mean_lower(z[:, [j]], p[j] * (1 + 1e-6))[0][0]
        below = bounded_mean_lower(z[:, [j]], p[j] * (1 - 1e-6))[0][0]
        assert below <= threshold[j] <= above
    assert holm([0.001, 0.02, 0.04], 0.05).all() and not holm([0.03, 0.04], 0.05).any()
    from statsmodels.stats.multitest import multipletests

    for _ in range(20):
        pv = rng.uniform(0, 0.05, size=12) ** rng.uniform(0.5, 3)
        assert np.array_equal(holm(pv, 0.01), multipletests(pv, alpha=0.01, method="holm")[0])


# --- validity of the ordering auditor --------------------------------------------------------------

@pytest.fixture(scope="module")
def etc_groups():
    """Per-run regrets of ETC(m) on two Bernoulli arms in 200 disjoint groups of 100 runs, for m = 2, 10
    (twice, from independent simulations: equal expected regret, different runs) and 30."""
    grid = np.array([60, 300])
    sims = {}
    for label, m, seed in (("m2", 2, 1), ("m10", 10, 2), ("m10-again", 10, 3), ("m30", 30, 4)):
        sims[label] = dpaudit.simulate(ExploreThenCommit(m), BernoulliBandit(MEANS), 300, REPETITIONS * RUNS,
                                       seed=seed, grid=grid)
    return sims


def _audit_groups(sims, monkeypatch, claim, test):
    """Audit ``claim`` on each group: the auditor's simulations are replaced by the group's slice of the
    big simulations (the seed passed to the simulation carries the group's index)."""
    def sliced(policy, environment, horizon, runs, seed, **_):
        r = sims[policy.label]
        rows = slice(seed * RUNS, (seed + 1) * RUNS)
        return dataclasses.replace(r, pseudo_regret=r.pseudo_regret[rows], regret=r.regret[rows],
                                   pulls=r.pulls[rows], means=r.means[rows])

    monkeypatch.setattr("dpaudit.simulation_cache.cached_simulate", sliced)
    policies = {label: dataclasses.make_dataclass("P", [("label", str)])(label) for label in sims}
    subject = regret_order.OrderSubject(policies, BernoulliBandit(MEANS), "etc")
    auditor = regret_order.RegretOrderAuditor()
    return [auditor.audit(subject, claim, confidence=0.99, seed=i, horizons=np.array([60, 300]), runs=RUNS,
                          test=test) for i in range(REPETITIONS)]


@pytest.mark.parametrize("test", ["t", "bounded"])
def test_order_auditor_validity_and_power(etc_groups, monkeypatch, test):
    """Null: ETC(10) and an independent ETC(10) have exactly equal expected regret (the claim
    "m10 <= m10-again" sits on the boundary). Seeded, so the counts are fixed; over seeds each repetition
    refutes with probability about 0.01 for the paired t-test (asymptotic; the regret differences are
    bimodal) and at most 0.01 for the bounded test, so "<= 6 of 200" fails with probability
    P(Binomial(200, 0.01) >= 7) = 0.004 at the nominal level (seen here: 1 and 0 of 200).
    Power: ETC(2) has 2.4x the regret of ETC(30) at T = 300 (21.2 vs 8.9, exact: it commits to the
    wrong arm more often); the reversed claim "m2 <= m30" is refuted by the t-test in >= 90% of the
    groups of 100 runs (200 of 200 here). The bounded test pays for the whole range of the difference
    (2 T Delta = 120), which 100 runs cannot resolve; it refutes the same claim from 2,000 runs."""
    exact = explore_then_commit_regret(MEANS, 2, [300])[0] / explore_then_commit_regret(MEANS, 30, [300])[0]
    assert exact > 2.3
    null = _audit_groups(etc_groups, monkeypatch, dpaudit.RegretOrder(["m10", "m10-again"]), test)
    assert sum(f.verdict == "refuted" for f in null) <= 6
    if test == "t":
        wrong = _audit_groups(etc_groups, monkeypatch, dpaudit.RegretOrder(["m2", "m30"]), test)
        assert sum(f.verdict == "refuted" for f in wrong) >= 180
        assert all(f.witness["pair"] == ["m2", "m30"] for f in wrong)
    else:
        monkeypatch.undo()
        big = dpaudit.audit_regret({"m2": ExploreThenCommit(2), "m30": ExploreThenCommit(30)}, BernoulliBandit(MEANS),
                                   dpaudit.RegretOrder(["m2", "m30"]), horizons=[300], runs=2000, seed=5,
                                   test="bounded")
        assert big.verdict == "refuted"


def test_order_on_common_random_numbers_with_differences_and_the_grid():
    """ETC(40) explores longer (more regret at T = 100) and then commits better (less at 400 and 1000)."""
    env = BernoulliBandit(MEANS)
    algorithms = {"etc5": ExploreThenCommit(5), "etc40": ExploreThenCommit(40),
                  "gap": dpaudit.Difference(ExploreThenCommit(40), ExploreThenCommit(5)), "ucb": "ucb"}
    final = dpaudit.audit_regret(algorithms, env, dpaudit.RegretOrder([["etc40"], ["etc5"]]),
                                 horizons=[100, 400, 1000], runs=200, seed=3)
    assert final.verdict == "not-refuted"
    assert final.parameters["confirmed"] == [["etc40", "etc5"]]
    grid = dpaudit.audit_regret(algorithms, env, dpaudit.parse_claim("regret-order etc40 < etc5 at=grid"),
                                horizons=[100, 400, 1000], runs=200, seed=3)
    assert grid.verdict == "refuted" and [v[2] for v in grid.witness["violations"]] == [100]
    assert grid.plot_data["kind"] == "regret-order" and grid.plot_data["violations"] == [["etc40", "etc5"]]
    # a difference is the run-by-run difference of its two sides, simulated on the same seed
    diff = dpaudit.audit_regret(algorithms, env, dpaudit.RegretOrder(["gap", "etc40"]), horizons=[100, 400, 1000],
                                runs=200, seed=3)
    assert diff.verdict == "not-refuted"
    assert diff.parameters["final_mean"]["gap"] == pytest.approx(
        final.parameters["final_mean"]["etc40"] - final.parameters["final_mean"]["etc5"])
    with pytest.raises(dpaudit.UnsupportedAudit, match="does not have"):
        dpaudit.audit_regret(algorithms, env, dpaudit.RegretOrder(["etc5", "nope"]), horizons=100, runs=10, seed=1)
    with pytest.raises(ValueError, match="test must be"):
        dpaudit.audit_regret(algorithms, env, dpaudit.RegretOrder(["etc5", "ucb"]), horizons=100, runs=10, seed=1,
                             test="z")
    with pytest.raises(TypeError, match="labelled algorithms"):
        dpaudit.audit_regret("ucb", env, dpaudit.RegretOrder(["etc5", "ucb"]), horizons=100, runs=10, seed=1)


# --- the simulation cache ------------------------------------------------------------------------

def test_cache_answers_the_same_simulation_once_and_tells_contents_apart(tmp_path):
    clear_memory()
    env = BernoulliBandit(MEANS)
    seq = np.random.SeedSequence(7)
    first = cached_simulate(ExploreThenCommit(5), env, 200, 20, seq, grid=[50, 200], directory=tmp_path)
    again = cached_simulate(ExploreThenCommit(5), BernoulliBandit(MEANS), 200, 20, np.random.SeedSequence(7),
                            grid=[50, 200], directory=tmp_path)
    assert again is first
    assert len(list(tmp_path.glob("*.pickle"))) == 1
    clear_memory()
    from_disk = cached_simulate(ExploreThenCommit(5), env, 200, 20, seq, grid=[50, 200], directory=tmp_path)
    assert from_disk is not first and np.array_equal(from_disk.pseudo_regret, first.pseudo_regret)
    keys = {simulation_key(ExploreThenCommit(5), env, 200, 20, seq, [50, 200]),
            simulation_key(ExploreThenCommit(6), env, 200, 20, seq, [50, 200]),
            simulation_key(ExploreThenCommit(5), BernoulliBandit([0.6, 0.5]), 200, 20, seq, [50, 200]),
            simulation_key(ExploreThenCommit(5), env, 200, 20, np.random.SeedSequence(8), [50, 200]),
            simulation_key(ExploreThenCommit(5), env, 200, 21, seq, [50, 200]),
            simulation_key(ExploreThenCommit(5), env, 200, 20, seq, [60, 200])}
    assert len(keys) == 6
    # a damaged file is recomputed, and an object that cannot be pickled is simulated every time
    for file in tmp_path.glob("*.pickle"):
        file.write_bytes(b"not a pickle")
    clear_memory()
    assert np.array_equal(cached_simulate(ExploreThenCommit(5), env, 200, 20, seq, grid=[50, 200],
                                          directory=tmp_path).pseudo_regret, first.pseudo_regret)

    class Local(ExploreThenCommit):
        pass

    local = Local(5)
    local.hook = lambda: None
    with pytest.raises((AttributeError, pickle.PicklingError)):
        pickle.dumps(local)
    assert simulation_key(local, env, 200, 20, seq, [50, 200]) is None
    assert cached_simulate(local, env, 200, 20, seq, grid=[50, 200]) is not cached_simulate(
        local, env, 200, 20, seq, grid=[50, 200])


# --- suite entries -------------------------------------------------------------------------------

def test_budgets_fall_back_and_entries_check_their_arguments():
    assert at_budget({"quick": 1, "standard": 2}, "paper") == 2
    assert at_budget({"quick": 1}, "thorough") == 1
    suite = Suite("mine", "my suite")
    env = BernoulliBandit(MEANS)
    claim = dpaudit.RegretRate(0.5)
    with pytest.raises(ValueError, match="unknown budgets"):
        suite.regret("mine/a", policy="ucb", environment=env, claim=claim, runs={"quick": 10, "huge": 5})
    with pytest.raises(ValueError, match="quick budget"):
        suite.regret("mine/a", policy="ucb", environment=env, claim=claim, runs={"paper": 10})
    with pytest.raises(TypeError, match="order entry"):
        suite.regret("mine/a", policy="ucb", environment=env, claim=dpaudit.RegretOrder(["a", "b"]))
    with pytest.raises(ValueError, match="no algorithm: b"):
        suite.order("mine/b", algorithms={"a": "ucb"}, environment=env, claim=dpaudit.RegretOrder(["a", "b"]))
    with pytest.raises(TypeError, match="RegretOrder claim"):
        suite.order("mine/b", algorithms={"a": "ucb"}, environment=env, claim=claim)


def test_regret_entries_share_one_simulation_and_common_rewards(tmp_path):
    clear_memory()
    suite = Suite("mine", "my suite")
    env = BernoulliBandit(MEANS)
    horizons = {"quick": np.unique(np.geomspace(100, 6400, 13).astype(int)).tolist(), "paper": [1000, 100_000]}
    bound = suite.regret("mine/bound", policy=ExploreThenCommit(10), environment=env, horizons=horizons,
                         runs={"quick": 50},
                         claim=dpaudit.RegretBound(lambda T: explore_then_commit_regret(MEANS, 10, T) * 1.5, "1.5x"))
    rate = suite.regret("mine/rate", policy=ExploreThenCommit(10), environment=env, horizons=horizons,
                        runs={"quick": 50}, claim=dpaudit.RegretRate(1.0))
    order = suite.order("mine/order", algorithms={"etc10": ExploreThenCommit(10), "etc50": ExploreThenCommit(50)},
                        environment=env, horizons=horizons, runs={"quick": 50},
                        claim=dpaudit.RegretOrder(["etc50", "etc10"]))
    assert bound.statistical and order.statistical
    ctx = RunContext(0, "quick", 0.005, np.random.SeedSequence(1), str(tmp_path))
    audits = {e.id: e.audit(ctx) for e in (bound, rate, order)}
    assert audits["mine/bound"].finding.verdict == "verified"  # ETC's expected regret is exact: no simulation
    assert audits["mine/rate"].finding.verdict == "not-refuted"
    assert audits["mine/order"].finding.verdict == "not-refuted"
    # one simulation of ETC(10) serves the rate and the order, and the order's ETC(50) saw the same rewards
    assert len(list(tmp_path.glob("*.pickle"))) == 2
    seeds = {e: a.seed.entropy for e, a in audits.items()}
    assert len(set(map(str, seeds.values()))) == 1
    assert bound.settings(ctx)["runs"] == 50 and bound.settings(RunContext(0, "paper", 0.005, None))[
        "horizons"] == [1000, 100_000]


def test_an_entry_may_expect_a_refutation_only_at_the_budget_that_resolves_it():
    suite = Suite("mine", "my suite")
    env = BernoulliBandit(MEANS)
    claim = dpaudit.RegretOrder(["a", "b"])
    algorithms = {"a": "ucb", "b": ExploreThenCommit(5)}
    entry = suite.order("mine/o", algorithms=algorithms, environment=env, claim=claim,
                        expected={"quick": "not-refuted", "paper": "refuted"}, reason="resolved at T = 10^5 only",
                        footing="as printed")
    assert entry.expected == "not-refuted" and entry.expected_at("standard") == "not-refuted"
    assert entry.expected_at("paper") == "refuted"
    assert entry.describe()["expected"] == "quick: not-refuted, paper: refuted"
    with pytest.raises(ValueError, match="reason"):
        suite.order("mine/p", algorithms=algorithms, environment=env, claim=claim,
                    expected={"quick": "not-refuted", "paper": "refuted"})
    with pytest.raises(ValueError, match="quick budget"):
        suite.order("mine/q", algorithms=algorithms, environment=env, claim=claim, expected={"paper": "refuted"},
                    reason="x", footing="as printed")
    with pytest.raises(ValueError, match="expected must be"):
        suite.order("mine/r", algorithms=algorithms, environment=env, claim=claim,
                    expected={"quick": "maybe"})
