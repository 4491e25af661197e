"""Orderings by regret (RegretOrder and its auditor), the simulation cache, and regret suite entries."""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import pytest
from regret_laws import GAP, LawPolicy, coin, constant, group_of, mirror, simulate_law
from regret_laws import rng as law_rng
from scipy import stats

import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.auditors import regret_order
from dpaudit.bandits.cache import cached_simulate, clear_memory, simulation_key
from dpaudit.core.errors import InvalidClaim
from dpaudit.stats import bounded_mean_lower, bounded_mean_pvalue, holm
from dpaudit.suite import RunContext, Suite, at_budget
from dpaudit.testing import ExploreThenCommit, explore_then_commit_regret

MEANS = [0.6, 0.4]
POWER_GROUPS = 50
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


@pytest.mark.slow
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


def test_the_bounded_mean_bound_takes_half_the_level_for_each_inequality():
    """bounded_mean_lower written out from its two inequalities, each at half the level so that the
    larger of the two bounds holds at the level: Hoeffding's mean - sqrt(ln(1/d) / (2n)) and Maurer &
    Pontil's (2009, Thm 4) mean - sqrt(2 V ln(2/d) / n) - 7 ln(2/d) / (3 (n - 1)), V the sample variance,
    d = level / 2. Both are conservative enough that an auditor taking each at the whole level still
    refutes at most alpha often in every validity test, so the halving is held here."""
    rng = np.random.default_rng(3)
    z = np.column_stack([rng.beta(2, 20, 200), rng.random(200) < 0.5, rng.random(200) < 0.02, np.full(200, 0.3)])
    level, n = 0.01, 200
    d = level / 2
    hoeffding = z.mean(axis=0) - np.sqrt(np.log(1 / d) / (2 * n))
    log_term = np.log(2 / d)
    bernstein = z.mean(axis=0) - np.sqrt(2 * z.var(axis=0, ddof=1) * log_term / n) - 7 * log_term / (3 * (n - 1))
    lower, uses_bernstein = bounded_mean_lower(z, level)
    np.testing.assert_allclose(lower, np.maximum(hoeffding, bernstein), rtol=0, atol=1e-12)
    assert list(uses_bernstein) == [True, False, True, True]  # both inequalities are exercised


# --- validity of the ordering auditor --------------------------------------------------------------
#
# Each test audits a true ordering at the exact boundary of its null (series of exactly equal expected
# regret at every round) on m disjoint groups of runs drawn from known laws (tests/regret_laws.py), with
# many pairs or many rounds tested at once, and asserts at most limit(m, alpha) refutations: an auditor
# whose false-refutation rate is at most alpha exceeds that with probability P(Binomial(m, alpha) > limit)
# <= 1e-6. The paired t-test's level is asymptotic (the central limit theorem on bounded differences):
# its tests run it at 400 runs, where its rate on these laws, stated with each, is within a few percent
# of alpha, inside the slack of the limit.

def limit(m: int, alpha: float) -> float:
    """The most refutations of a true claim in m repetitions that a valid auditor allows: P(Binomial(m,
    alpha) > limit) <= 1e-6."""
    return stats.binom.isf(1e-6, m, alpha)


def law_refutations(monkeypatch, series, claim, test, repetitions, alpha, horizons, runs):
    """Audit ``claim`` on ``repetitions`` groups of runs of ``series`` (label -> law); the auditor's
    simulations are draws from the laws (the seed carries the group)."""
    monkeypatch.setattr("dpaudit.bandits.cache.cached_simulate", simulate_law)
    policies = {label: LawPolicy(label, law) for label, law in series.items()}
    subject = regret_order.OrderSubject(policies, None, "laws")
    auditor = regret_order.RegretOrderAuditor()
    return sum(auditor.audit(subject, claim, confidence=1 - alpha, seed=np.random.SeedSequence(group),
                             horizons=np.asarray(horizons), runs=runs, test=test).verdict == "refuted"
               for group in range(repetitions))


def test_an_ordering_of_equal_series_is_refuted_at_most_alpha_often_over_many_pairs(monkeypatch):
    """"s0 < s1 < ... < s7" at the last round, the eight series independent and equal in law (coin(1/2):
    R_T = T gap or 0, E[R_T] = T gap / 2, one policy on eight independent streams): every one of the 28
    claimed pairs is on the boundary E[R(a)] = E[R(b)]. Paired t-tests at 400 runs, 60 repetitions at
    alpha = 0.1: at most limit(60, 0.1) = 19 refutations. The rate with Holm over the 28 pairs, measured
    over 20,000 groups, is 0.076 (the assertion fails with probability P(Binomial(60, 0.076) > 19) = 9e-9);
    without Holm (each pair at alpha, or Holm over each pair's rounds only) it is 0.78, and the assertion
    then holds with probability 2e-14."""
    series = {f"s{i}": coin(0.5, i) for i in range(8)}
    claim = dpaudit.RegretOrder(list(series))
    assert len(claim.pairs()) == 28
    refuted = law_refutations(monkeypatch, series, claim, "t", 60, 0.1, [1000], 400)
    assert refuted <= limit(60, 0.1)


@pytest.mark.slow
@pytest.mark.parametrize("test", ["t", "bounded"])
def test_an_ordering_of_equal_series_is_refuted_at_most_alpha_often_over_many_rounds(monkeypatch, test):
    """"a < b" at every one of 100 rounds (at="grid"), where b is a's mirror (b = T gap - a, a = T gap or
    0 with probability 1/2 each, independently at every round): E[R(a)] = E[R(b)] at every round, and the
    difference is +-T gap, the law on which Hoeffding's bound is tightest. 400 runs, 60 repetitions at
    alpha = 0.25 (the larger the level, the closer the bounded test's p-values to the law's, and the more
    the multiplicity costs): at most limit(60, 0.25) = 32 refutations. The rates, computed exactly from
    the binomial law of the count of runs with a > b: with Holm over the 100 rounds, 0.2555 for the t-test
    (asymptotic: a little above alpha at 400 runs; the assertion fails with probability 1.2e-6) and 0.013
    for the bounded test (failure 1e-46); without Holm (each round at alpha, or Holm over each round's
    pairs only) 1 and 0.87 (the assertion then holds with probability 0 and 3e-10). The bounded test
    with Hoeffding's deviation halved refutes in 0.96."""
    grid = np.unique(np.geomspace(100, 100_000, 100).astype(np.int64))
    assert grid.size == 100
    series = {"a": coin(0.5), "b": mirror(coin(0.5))}
    claim = dpaudit.RegretOrder(["a", "b"], at="grid")
    assert law_refutations(monkeypatch, series, claim, test, 60, 0.25, grid, 400) <= limit(60, 0.25)


def test_a_bounded_ordering_of_series_that_look_constant_is_not_refuted(monkeypatch):
    """"a0, ..., a4 < c" at the last round, where c = 0.99 T gap in every run and each a_i is T gap in 99%
    of the runs and 0 in the others (coin(0.99)): E[R(a_i)] = E[R(c)]. A group of 40 runs misses the
    rare low run of a_i with probability 0.99^40 = 0.67, and the difference a_i - c is then a positive
    constant: the bounded test's second-order term 7 u^2 / (3 (n - 1)) is what keeps it from refuting
    (rate 0 with it; without it 1 - 0.33^5 = 0.996 over the five pairs). 20 repetitions at alpha = 0.1:
    at most limit(20, 0.1) = 10 (then held with probability 2e-19). (The t-test, whose level is
    asymptotic, decides a difference without spread by its sign: it is not for 40 runs of such a law.)"""
    series = {**{f"a{i}": coin(0.99, i) for i in range(5)}, "c": constant(0.99)}
    claim = dpaudit.RegretOrder([[f"a{i}" for i in range(5)], ["c"]])
    assert law_refutations(monkeypatch, series, claim, "bounded", 20, 0.1, [1000], 40) <= limit(20, 0.1)


@pytest.fixture(scope="module")
def etc_groups():
    """Per-run regrets of ETC(m) on two Bernoulli arms in 50 disjoint groups of 100 runs, for m = 2 and 30."""
    return {label: dpaudit.simulate(ExploreThenCommit(m), BernoulliBandit(MEANS), 300, POWER_GROUPS * RUNS,
                                    seed=seed, grid=np.array([60, 300]))
            for label, m, seed in (("m2", 2, 1), ("m30", 30, 4))}


def _audit_groups(sims, monkeypatch, claim, test):
    """Audit ``claim`` on each group: the auditor's simulations are replaced by the group's slice of the
    big simulations (the seed passed to the simulation carries the group's index)."""
    def sliced(policy, environment, horizon, runs, seed, **_):
        r = sims[policy.label]
        rows = slice(seed * RUNS, (seed + 1) * RUNS)
        return dataclasses.replace(r, pseudo_regret=r.pseudo_regret[rows], regret=r.regret[rows],
                                   pulls=r.pulls[rows], means=r.means[rows])

    monkeypatch.setattr("dpaudit.bandits.cache.cached_simulate", sliced)
    policies = {label: dataclasses.make_dataclass("P", [("label", str)])(label) for label in sims}
    subject = regret_order.OrderSubject(policies, BernoulliBandit(MEANS), "etc")
    auditor = regret_order.RegretOrderAuditor()
    return [auditor.audit(subject, claim, confidence=0.99, seed=i, horizons=np.array([60, 300]), runs=RUNS,
                          test=test) for i in range(POWER_GROUPS)]


def test_order_auditor_power(etc_groups, monkeypatch):
    """ETC(2) has 2.4x the regret of ETC(30) at T = 300 (21.2 vs 8.9, exact: it commits to the wrong arm
    more often); the reversed claim "m2 <= m30" is refuted by the t-test in >= 45 of 50 groups of 100 runs
    (50 here). The bounded test pays for the whole range of the difference (2 T Delta = 120), which 100
    runs cannot resolve; it refutes the same claim from 2,000 runs."""
    exact = explore_then_commit_regret(MEANS, 2, [300])[0] / explore_then_commit_regret(MEANS, 30, [300])[0]
    assert exact > 2.3
    wrong = _audit_groups(etc_groups, monkeypatch, dpaudit.RegretOrder(["m2", "m30"]), "t")
    assert sum(f.verdict == "refuted" for f in wrong) >= 45
    assert all(f.witness["pair"] == ["m2", "m30"] for f in wrong if f.verdict == "refuted")
    monkeypatch.undo()
    big = dpaudit.audit_regret({"m2": ExploreThenCommit(2), "m30": ExploreThenCommit(30)}, BernoulliBandit(MEANS),
                               dpaudit.RegretOrder(["m2", "m30"]), horizons=[300], runs=2000, seed=5, test="bounded")
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


# --- the order test's p-values and bounds, against scipy and against each other -------------------

def _differences(seed, n=40, points=3, shift=0.15):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, size=(n, points)) + np.array([-shift, 0.0, shift])[:points]


def test_t_order_pvalues_are_scipys_one_sided_t_tests():
    d = _differences(1)
    low, width = np.full(3, -2.0), np.full(3, 4.0)
    against, toward = regret_order._pvalues(d, low, width, "t")
    assert against == pytest.approx(stats.ttest_1samp(d, 0.0, alternative="greater").pvalue, rel=1e-12)
    assert toward == pytest.approx(stats.ttest_1samp(d, 0.0, alternative="less").pvalue, rel=1e-12)
    # a column with no spread is decided by its sign, both ways; all zeros leaves both at 1
    flat = np.column_stack([np.full(40, 0.25), np.full(40, -0.25), np.zeros(40)])  # sums exact: sd = 0
    against, toward = regret_order._pvalues(flat, low, width, "t")
    assert against.tolist() == [0.0, 1.0, 1.0] and toward.tolist() == [1.0, 0.0, 1.0]


def test_t_order_lower_bound_is_scipys_one_sided_interval():
    d = _differences(2)[:, 2]
    for level in (0.01, 0.2):
        ci = stats.ttest_1samp(d, 0.0, alternative="greater").confidence_interval(confidence_level=1 - level)
        assert regret_order._lower(d, -2.0, 4.0, level, "t") == pytest.approx(ci.low, rel=1e-12)


def test_bounded_order_pvalues_and_bounds_are_dual_and_mirror_each_other():
    d = _differences(3, n=400, shift=0.3)
    low, width = np.full(3, -2.0), np.full(3, 4.0)
    against, toward = regret_order._pvalues(d, low, width, "bounded")
    # each p-value is the bounded-mean test of the difference rescaled to [0, 1] against 0's image
    z = (d - low) / width
    assert against == pytest.approx(bounded_mean_pvalue(z, 0.5), rel=1e-12)
    assert toward == pytest.approx(bounded_mean_pvalue(1 - z, 0.5), rel=1e-12)
    # "E[D] >= 0" for D is "E[-D] <= 0" for -D on the mirrored range
    mirrored, _ = regret_order._pvalues(-d, -(low + width), width, "bounded")
    assert mirrored == pytest.approx(toward, rel=1e-12)
    # the p-value is the level at which the lower bound reaches 0 (the test and the bound agree)
    j = int(np.argmin(against))
    assert 0 < against[j] < 1
    assert regret_order._lower(d[:, j], -2.0, 4.0, against[j] * (1 + 1e-6), "bounded") > 0
    assert regret_order._lower(d[:, j], -2.0, 4.0, against[j] * (1 - 1e-6), "bounded") < 0
    # values outside the declared range are clipped into it, on both sides
    wide = d * 3
    clipped = np.clip(wide, -2.0, 2.0)
    assert regret_order._pvalues(wide, low, width, "bounded")[0] == pytest.approx(
        regret_order._pvalues(clipped, low, width, "bounded")[0], rel=1e-12)
    assert regret_order._lower(wide[:, 0], -2.0, 4.0, 0.1, "bounded") == pytest.approx(
        regret_order._lower(clipped[:, 0], -2.0, 4.0, 0.1, "bounded"), rel=1e-12)
    assert regret_order._lower(d[:, 2], -2.0, 4.0, 0.1, "bounded") == pytest.approx(
        -2.0 + 4.0 * bounded_mean_lower(z[:, 2:3], 0.1)[0][0], rel=1e-12)


#: the tests as the record names them
ORDER_TEST_TEXT = {"t": "paired t-tests (asymptotic level)",
                   "bounded": "bounded-range tests (empirical Bernstein / Hoeffding, valid for every law)"}


@pytest.mark.slow
@pytest.mark.parametrize("test", ["t", "bounded"])
def test_an_order_finding_is_recomputed_from_the_runs_it_read(monkeypatch, test):
    """Every number of an order finding, recomputed from the runs (drawn from known laws, which the
    test draws again): the pairs' mean differences, the one-sided p-values (scipy's t-test, or the
    bounded test on the difference's range [-T gap, T gap]), Holm's decisions (statsmodels), the worst
    pair, its lower bound at Holm's first step, the record's fields and the notes' whole text (b has
    more regret than c at each of the 7 rounds: 7 violations, of which the note shows the first 6; the
    pair (b, c) is never confirmed). Deterministic."""
    from regret_laws import GAP
    from statsmodels.stats.multitest import multipletests

    monkeypatch.setattr("dpaudit.bandits.cache.cached_simulate", simulate_law)
    series = {"a": coin(0.05, 1), "b": coin(0.5, 2), "c": coin(0.2, 3)}
    claim = dpaudit.RegretOrder([["a"], ["b"], ["c"]], at="grid")
    grid = np.array([100, 200, 400, 800, 1600, 3200, 6400])
    runs, alpha, group = 300, 0.05, 7
    subject = regret_order.OrderSubject({k: LawPolicy(k, law) for k, law in series.items()}, None, "laws")
    found = regret_order.RegretOrderAuditor().audit(subject, claim, confidence=1 - alpha, horizons=grid, runs=runs,
                                                   seed=np.random.SeedSequence(group), test=test)
    draws = {k: law(grid.astype(float), runs, group) for k, law in series.items()}
    pairs = claim.pairs()
    assert found.parameters["pairs"] == [list(p) for p in pairs] == [["a", "b"], ["a", "c"], ["b", "c"]]
    low, width = -GAP * grid, 2 * GAP * grid
    against, toward, means = [], [], []
    for a, b in pairs:
        d = draws[a] - draws[b]
        means.append(d.mean(axis=0))
        if test == "t":
            against.append(stats.ttest_1samp(d, 0.0, alternative="greater").pvalue)
            toward.append(stats.ttest_1samp(d, 0.0, alternative="less").pvalue)
        else:
            z = (d - low) / width
            against.append(bounded_mean_pvalue(z, -low / width))
            toward.append(bounded_mean_pvalue(1 - z, 1 + low / width))
    against, toward = np.array(against), np.array(toward)
    assert found.parameters["p_values"] == pytest.approx(against, rel=1e-10)
    assert found.parameters["p_values_confirming"] == pytest.approx(toward, rel=1e-10)
    rejected = multipletests(against.ravel(), alpha, method="holm")[0].reshape(against.shape)
    confirmed = multipletests(toward.ravel(), alpha, method="holm")[0].reshape(toward.shape)
    violations = [[pairs[i][0], pairs[i][1], int(grid[j])] for i, j in zip(*np.nonzero(rejected))]
    assert [v for v in violations if v[:2] == ["b", "c"]] == [["b", "c", int(t)] for t in grid]
    assert found.verdict == "refuted" and found.witness["violations"] == violations
    confirmed_pairs = [list(pairs[i]) for i in np.nonzero(confirmed.all(axis=1))[0]]
    assert found.parameters["confirmed"] == confirmed_pairs and ["b", "c"] not in confirmed_pairs
    i, j = np.unravel_index(int(np.argmin(against)), against.shape)
    a, b = pairs[i]
    d = (draws[a] - draws[b])[:, j]
    lcb = regret_order._lower(d, float(low[j]), float(width[j]), alpha / against.size, test)
    if test == "t":
        assert lcb == pytest.approx(stats.ttest_1samp(d, 0.0, alternative="greater").confidence_interval(
            1 - alpha / against.size).low, rel=1e-10)
    assert found.auditor == "regret-order"
    assert found.witness["pair"] == [a, b] and found.witness["T"] == int(grid[j])
    assert found.witness["mean_difference"] == pytest.approx(means[i][j], rel=1e-12)
    assert found.witness["lower_bound"] == pytest.approx(lcb, rel=1e-12) and lcb > 0
    assert found.witness["p_value"] == pytest.approx(against[i, j], rel=1e-10)
    assert found.statistic.name == f"E[R({a}) - R({b})] at T={int(grid[j])}"
    assert found.statistic.value == pytest.approx(means[i][j], rel=1e-12)
    assert found.statistic.interval == (pytest.approx(lcb, rel=1e-12), math.inf)
    assert found.statistic.kind == "lower-bound"
    assert found.confidence == 1 - alpha and found.samples == runs
    assert found.parameters["final_mean"] == {k: pytest.approx(v[:, -1].mean(), rel=1e-12) for k, v in draws.items()}
    assert found.parameters["test"] == test and found.parameters["at"] == "grid" and found.parameters["runs"] == runs
    # LawPolicy declares itself anytime: one run of the largest horizon, read at every round
    assert found.parameters["reading"] == {k: {"rounds": "one run of horizon 6400, read at every recorded round",
                                               "why": "LawPolicy declares anytime = True"} for k in series}
    shown = "; ".join(f"{va} > {vb} at T = {vt}" for va, vb, vt in violations[:6])
    assert found.notes == [
        f"3 ordered pairs tested at each of 7 recorded rounds (T = 6400), 300 runs per series on common random "
        f"numbers; one-sided {ORDER_TEST_TEXT[test]}, Holm over 21 tests at family-wise level 0.05",
        f"the claimed order fails for {len({(v[0], v[1]) for v in violations})} pair(s): {shown}",
        f"{len(confirmed_pairs)} of 3 claimed pairs confirmed in the claimed direction (Holm at 0.05); the others "
        "are not resolved by these runs"]
    assert list(found.plot_data["grid"]) == list(grid) and found.plot_data["labels"] == ["a", "b", "c"]
    final = regret_order.RegretOrderAuditor().audit(subject, dpaudit.RegretOrder([["a"], ["b"]]), confidence=1 - alpha,
                                                   seed=np.random.SeedSequence(group), horizons=grid, runs=runs,
                                                   test=test)
    assert final.witness["T"] == int(grid[-1])
    assert final.verdict == "not-refuted" and final.parameters["confirmed"] == [["a", "b"]]
    assert final.notes == [
        f"1 ordered pairs tested at the last recorded round (T = 6400), 300 runs per series on common random "
        f"numbers; one-sided {ORDER_TEST_TEXT[test]}, Holm over 1 tests at family-wise level 0.05",
        "1 of 1 claimed pairs confirmed in the claimed direction (Holm at 0.05)"]
    assert final.parameters["reading"] == {"rounds": "one run of horizon 6400 per series, the claim being about its "
                                                     "last round", "why": "at='final'"}
    assert found.witness["method"] == f"one-sided {ORDER_TEST_TEXT[test]} at matched seeds, Holm"
    assert list(found.parameters["grid"]) == list(grid) and found.parameters["regret"] == "pseudo"
    assert len(found.parameters["simulations"]) == 3
    for bad, message in ((dict(regret="net"), "regret must be one of pseudo, realised, got 'net'"),
                         (dict(test="z"), "test must be one of t, bounded, got 'z'")):
        with pytest.raises(ValueError, match=message):
            regret_order.RegretOrderAuditor().audit(subject, claim, confidence=0.9, horizons=grid, runs=10,
                                                    seed=np.random.SeedSequence(0), **bad)


def realised_law(law, name):
    """The realised regret of a run whose pseudo-regret is drawn from ``law``: its pseudo-regret less T gap / 2
    with probability 1/2 (the rewards' luck, on its own stream), in [-T gap / 2, T gap] inside the realised
    regret's range [T (mu* - 1), T mu*] = [-T / 4, 3 T / 4] on regret_laws.MEANS."""
    luck = coin(0.5, 99, ord(name))

    def regret(points, runs, group):
        return law(points, runs, group) - luck(points, runs, group) / 2

    return regret


def simulate_law_with_luck(policy, environment, horizon, runs, seed=None, *, grid=None, **_):
    """simulate_law, with the realised regret drawn apart from the pseudo-regret (realised_law)."""
    found = simulate_law(policy, environment, horizon, runs, seed, grid=grid)
    realised = realised_law(policy.law, policy.name)(found.grid.astype(float), runs, group_of(seed))
    return dataclasses.replace(found, regret=realised)


@pytest.mark.parametrize("regret", ["pseudo", "realised"])
def test_a_difference_series_is_tested_on_its_own_range(monkeypatch, regret):
    """"b - a < c" with the bounded test, on the regret the audit is asked for (the realised regret is drawn
    apart from the pseudo-regret, realised_law): with each regret in [lo, hi] ([0, T gap] pseudo, [T (mu* - 1),
    T mu*] realised), the difference b - a lies in [lo - hi, hi - lo] and the pair (b - a, c) in [lo - 2 hi,
    hi - 2 lo], and its p-values are the bounded test's on that range, recomputed from the laws' draws.
    Deterministic."""
    from regret_laws import GAP, MEANS

    monkeypatch.setattr("dpaudit.bandits.cache.cached_simulate", simulate_law_with_luck)
    a, b, c = LawPolicy("a", coin(0.2, 1)), LawPolicy("b", coin(0.5, 2)), LawPolicy("c", coin(0.1, 3))
    subject = regret_order.OrderSubject({"gap": regret_order.Difference(b, a), "c": c}, None, "laws")
    grid, runs, group = np.array([100, 1000]), 300, 5
    found = regret_order.RegretOrderAuditor().audit(subject, dpaudit.RegretOrder(["gap", "c"], at="grid"),
                                                   confidence=0.95, horizons=grid, runs=runs, regret=regret,
                                                   seed=np.random.SeedSequence(group), test="bounded")
    points = grid.astype(float)
    draws = {p.name: (p.law if regret == "pseudo" else realised_law(p.law, p.name))(points, runs, group)
             for p in (a, b, c)}
    d = draws["b"] - draws["a"] - draws["c"]
    lo, hi = (0.0, GAP * grid) if regret == "pseudo" else (grid * (MEANS.max() - 1), grid * MEANS.max())
    low, width = lo - 2 * hi, 3 * (hi - lo)
    z = (d - low) / width
    assert found.parameters["p_values"][0] == pytest.approx(bounded_mean_pvalue(z, -low / width), rel=1e-10)
    assert found.parameters["p_values_confirming"][0] == pytest.approx(
        bounded_mean_pvalue(1 - z, 1 + low / width), rel=1e-10)
    assert found.parameters["final_mean"]["gap"] == pytest.approx((draws["b"] - draws["a"])[:, -1].mean())
    assert found.parameters["final_mean"]["c"] == pytest.approx(draws["c"][:, -1].mean())
    assert found.parameters["regret"] == regret


@pytest.mark.parametrize("at, reading, workers", [("final", "horizon", None), ("grid", "figure", 3),
                                                  ("grid", "horizon", 2)])
def test_an_order_reads_each_round_from_the_runs_its_claim_and_reading_ask_for(monkeypatch, at, reading, workers):
    """Two horizon-aware series (a law policy declaring anytime = False) at the rounds 100 and 1000. A claim
    about the last round (at="final") is about the run of horizon 1000: one simulation per series, recording
    both rounds, whatever the reading; at="grid" reads each round T from a run of horizon T, started with T
    ("horizon"), or from one run of the largest horizon ("figure"). The simulations asked for, the workers
    they get (the audit's, 1 when not given), the record's reading and the t-test's p-values (scipy, on the
    columns those runs drew) say which runs were read. Deterministic."""
    calls = []

    def spy(policy, environment, horizon, runs, seed=None, *, grid=None, workers=1, **_):
        calls.append((policy.name, horizon, [int(t) for t in grid], workers))
        return simulate_law(policy, environment, horizon, runs, seed, grid=grid)

    monkeypatch.setattr("dpaudit.bandits.cache.cached_simulate", spy)
    series = {"a": LawPolicy("a", coin(0.3, 1), anytime=False), "b": LawPolicy("b", coin(0.5, 2), anytime=False)}
    subject = regret_order.OrderSubject(series, None, "laws")
    grid, runs, group = np.array([100, 1000]), 200, 3
    found = regret_order.RegretOrderAuditor().audit(
        subject, dpaudit.RegretOrder(["a", "b"], at=at), confidence=0.9, horizons=grid, runs=runs, reading=reading,
        seed=np.random.SeedSequence(group), **({} if workers is None else {"workers": workers}))
    one_run = at == "final" or reading == "figure"
    if one_run:
        asked = [(k, 1000, [100, 1000], workers or 1) for k in series]
        draws = {k: p.law(grid.astype(float), runs, group) for k, p in series.items()}
    else:
        asked = [(k, int(t), [int(t)], workers) for k in series for t in grid]
        draws = {k: np.column_stack([p.law(np.array([float(t)]), runs, group) for t in grid])
                 for k, p in series.items()}
    assert calls == asked
    d = draws["a"] - draws["b"]
    columns = [1] if at == "final" else [0, 1]
    assert found.parameters["p_values"][0] == pytest.approx(
        stats.ttest_1samp(d[:, columns], 0.0, alternative="greater").pvalue, rel=1e-10)
    if at == "grid":
        rounds = ("one run of horizon 1000, read at every recorded round" if one_run else
                  "one run per recorded round T, started with horizon T (2 runs, common random numbers)")
        why = ("read as a figure: regret at each recorded round of one run of the largest horizon" if one_run else
               "LawPolicy declares anytime = False")
        assert found.parameters["reading"] == {k: {"rounds": rounds, "why": why} for k in series}


@pytest.mark.parametrize("test", ["t", "bounded"])
def test_an_order_on_an_instance_without_a_gap_knows_every_difference_is_zero(test):
    """Two arms of equal mean: every run's pseudo-regret is 0, so each series' range is [0, 0] and every
    difference is exactly 0. Neither direction has evidence (p = 1 both ways, hand computation: a sample
    mean at its null leaves Hoeffding's p-value at 1, and the t-test decides a difference without spread
    by its sign), nothing is refuted or confirmed, and the worst pair's lower bound on E[D] is 0 itself
    (D = 0 is known, whatever the test; it was once the bounded bound on a placeholder unit range, -0.36).
    Deterministic."""
    found = dpaudit.audit_regret({"ucb": "ucb", "etc": ExploreThenCommit(5)}, BernoulliBandit([0.5, 0.5]),
                                 dpaudit.RegretOrder(["ucb", "etc"]), horizons=[20, 50], runs=20, seed=1, test=test)
    assert found.verdict == "not-refuted"
    assert found.parameters["p_values"].tolist() == [[1.0]]
    assert found.parameters["p_values_confirming"].tolist() == [[1.0]]
    assert found.parameters["confirmed"] == [] and found.witness["violations"] == []
    assert found.witness["mean_difference"] == 0.0 and found.witness["lower_bound"] == 0.0
    # likewise a bounded-test bound that would fall below its range's lower end says only E[D] >= low
    assert regret_order._lower(np.full(5, -2.0), -2.0, 4.0, 0.05, test) == -2.0


def test_the_order_auditor_says_why_it_cannot_audit_a_claim():
    """The reasons an ordering audit is refused, word for word: another kind of claim (named), a subject that is
    not labelled series on one environment, and series the ordering names that the audit does not have (all of
    them, comma-separated)."""
    auditor = regret_order.RegretOrderAuditor()
    subject = regret_order.OrderSubject({"a": LawPolicy("a"), "b": LawPolicy("b")}, None, "laws")
    claim = dpaudit.RegretOrder(["a", "b"])
    assert auditor.supports(subject, claim).decisive
    refusals = [auditor.supports(subject, dpaudit.RegretRate(0.5)), auditor.supports("ucb", claim),
                auditor.supports(subject, dpaudit.RegretOrder([["a"], ["x", "y"]]))]
    assert not any(refusals)
    assert [r.reason for r in refusals] == [
        "the regret-order auditor tests RegretOrder claims; got regret-rate",
        "an ordering is audited on labelled algorithms sharing one environment",
        "the ordering names series the audit does not have: x, y"]


# --- power of a not-refuted ordering ---------------------------------------------------------------

def shifted(shift: float, spread: float):
    """R_T = T gap / 2 + shift + spread Z, Z standard normal, independently in every run and round: beside
    constant(0.5) (R_T = T gap / 2 in every run) the difference has mean ``shift`` and standard deviation
    ``spread``."""

    def regret(points, runs, group):
        return points * GAP / 2 + shift + spread * law_rng(group, 7.0, *points).standard_normal((runs, points.size))

    return regret


@pytest.mark.parametrize("test", ["t", "bounded"])
def test_an_orderings_stated_power_is_refuted_as_often_as_it_says(monkeypatch, test):
    """The power a not-refuted "a <= b" states (the mean difference E[R(a) - R(b)] refuted with probability 0.9)
    is planted: a's regret moved up by it, with the same spread (20 at T = 1000, 400 runs, confidence 0.99).
    Refuted in 908 (t) and 906 (bounded) of 1000 groups; a count outside Binomial(1000, 0.9)'s 1e-4 quantiles
    [863, 933] fails, so an honest figure fails with probability below 2e-4. The figure at 0.9 times its value
    is refuted in 833 (t) and 2 (bounded: its radius, 38.5 of the 39.8, is far wider than the mean's standard
    error, 1); at 1.1 times in 953 and 1000: all fail; so do the power without its z standard errors (about
    500) and with the normal 0.95 quantile for z (about 950)."""
    monkeypatch.setattr("dpaudit.bandits.cache.cached_simulate", simulate_law)
    auditor = regret_order.RegretOrderAuditor()
    claim = dpaudit.RegretOrder(["a", "b"])

    def audit(shift: float, group: int):
        policies = {"a": LawPolicy("a", shifted(shift, 20.0)), "b": LawPolicy("b", constant(0.5))}
        return auditor.audit(regret_order.OrderSubject(policies, None, "laws"), claim, confidence=0.99,
                             seed=np.random.SeedSequence(group), horizons=np.array([1000]), runs=400, test=test)

    first = audit(0.0, 10_000)
    assert first.verdict == "not-refuted" and first.power["quantity"] == "mean regret difference"
    stated = first.power["value"]
    assert first.power["description"].startswith(f"R(a) above R(b) by {stated:.4g} on average at T = 1000 (")
    refuted = sum(audit(stated, group).verdict == "refuted" for group in range(1000))
    low, high = stats.binom.ppf(1e-4, 1000, 0.9), stats.binom.isf(1e-4, 1000, 0.9)
    assert (low, high) == (863, 933)
    assert low <= refuted <= high, refuted


def test_an_ordering_whose_runs_resolve_no_difference_in_range_states_an_infinite_power(monkeypatch):
    """Ten runs of the bounded test: Hoeffding's radius over the difference's range [-500, 500] at T = 1000 is
    about 515, so no mean difference the range allows is refuted; the power says so rather than quoting one."""
    monkeypatch.setattr("dpaudit.bandits.cache.cached_simulate", simulate_law)
    policies = {"a": LawPolicy("a", shifted(0.0, 20.0)), "b": LawPolicy("b", constant(0.5))}
    finding = regret_order.RegretOrderAuditor().audit(
        regret_order.OrderSubject(policies, None, "laws"), dpaudit.RegretOrder(["a", "b"]), confidence=0.99,
        seed=np.random.SeedSequence(0), horizons=np.array([1000]), runs=10, test="bounded")
    assert finding.verdict == "not-refuted" and finding.power["value"] == math.inf
    assert "within the range the regrets allow (up to 500 at T = 1000)" in finding.power["description"]
