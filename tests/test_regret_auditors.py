"""The regret auditors: explicit bounds and rates, validated on a policy whose expected regret is known
exactly (fixed-exploration explore-then-commit on two Bernoulli arms, dpaudit.testing)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.auditors import RegretBoundAuditor, RegretRateAuditor, RegretSubject
from dpaudit.errors import InvalidClaim
from dpaudit.testing import ExploreThenCommit, explore_then_commit_regret

MEANS = [0.6, 0.4]
REPETITIONS = 200


@dataclasses.dataclass(frozen=True)
class Slice(RegretSubject):
    """A subject whose simulation is one group of runs of a larger simulation already made (the
    repetitions of a validity test share one vectorised simulation, split into disjoint groups)."""

    result: object = None
    rows: object = None

    def simulate(self, horizon, runs, seed, grid=None, value=None, workers=1):
        r = self.result
        assert runs == self.rows.stop - self.rows.start and np.array_equal(grid, r.grid)
        return dataclasses.replace(r, pseudo_regret=r.pseudo_regret[self.rows], regret=r.regret[self.rows],
                                   pulls=r.pulls[self.rows], means=r.means[self.rows])


def _groups(m, runs, grid, seed):
    big = dpaudit.simulate(ExploreThenCommit(m), BernoulliBandit(MEANS), int(grid[-1]), REPETITIONS * runs, seed=seed,
                           grid=grid)
    return big, [Slice(ExploreThenCommit(m), None, "etc", {}, result=big, rows=slice(i * runs, (i + 1) * runs))
                 for i in range(REPETITIONS)]


def test_the_exact_regret_matches_simulation():
    grid = np.array([1, 2, 3, 7, 20, 100, 1000])
    for m in (1, 4):
        res = dpaudit.simulate(ExploreThenCommit(m), BernoulliBandit(MEANS), 1000, 20_000, seed=3, grid=grid)
        exact = explore_then_commit_regret(MEANS, m, grid)
        assert np.all(np.abs(res.mean() - exact) <= 4.5 * res.stderr() + 1e-9)
        ref = dpaudit.simulate(ExploreThenCommit(m), BernoulliBandit(MEANS), 1000, 2000, seed=4, grid=grid,
                               path="reference")
        assert np.all(np.abs(ref.mean() - exact) <= 4.5 * ref.stderr() + 1e-9)


def test_bound_auditor_validity():
    """E[R_T] <= f(T) at the exact expected regret of ETC(m=1) after its exploration (so the regret is random
    at every grid point) is not refuted in >= 99% of 200 disjoint groups of 1000 runs, and 0.8 x the exact
    regret is refuted in >= 90%. Seeded, so the outcome is fixed; over seeds, each repetition falsely refutes
    with probability at most 1 - confidence = 0.01 (the bounds are rigorous), so the first assertion
    fails with probability at most P(Binomial(200, 0.01) >= 3) = 0.32 (the empirical Bernstein bound is
    far more conservative than that: 0 of 200 here); 198 of 200 are refuted here at 0.8 x."""
    grid = np.unique(np.geomspace(12, 2000, 8).astype(np.int64))
    big, groups = _groups(1, 1000, grid, seed=1)
    exact = explore_then_commit_regret(MEANS, 1, grid)
    auditor = RegretBoundAuditor()
    true = dpaudit.RegretBound(lambda T: explore_then_commit_regret(MEANS, 1, T), "exact E[R_T]")
    low = dpaudit.RegretBound(lambda T: 0.8 * explore_then_commit_regret(MEANS, 1, T), "0.8 exact E[R_T]")
    seq = np.random.SeedSequence(0)
    kept = [auditor.audit(g, true, confidence=0.99, seed=seq, horizons=grid, runs=1000) for g in groups]
    caught = [auditor.audit(g, low, confidence=0.99, seed=seq, horizons=grid, runs=1000) for g in groups]
    assert sum(f.verdict == "refuted" for f in kept) <= 2
    assert sum(f.verdict == "refuted" for f in caught) >= 180
    assert all(f.witness["lower_bound"] <= f.witness["bound"] for f in kept)
    assert np.allclose(big.mean(), exact, rtol=0.02)


def test_high_probability_bound_validity():
    """P(R_T > f(T)) <= p with f just below the committed-to-the-wrong-arm regret: the exceedance is exactly
    P(wrong commit) = 0.4 for ETC(m=1); claimed p = 0.4 is not refuted in >= 99% of 200 groups of 1000 runs,
    p = 0.32 (20% below) is refuted in >= 90%. Clopper-Pearson is exact-conservative, so each repetition
    falsely refutes with probability <= 0.01 (0 of 200 here); p = 0.32 is refuted in 198 of 200."""
    grid = np.unique(np.geomspace(12, 2000, 8).astype(np.int64))
    _, groups = _groups(1, 1000, grid, seed=2)
    threshold = dpaudit.testing.explore_then_commit_regret(MEANS, 1, 2) + 0.5 * 0.2  # between right and wrong
    auditor = RegretBoundAuditor()
    seq = np.random.SeedSequence(0)
    kept = [auditor.audit(g, dpaudit.RegretBound(lambda T: threshold + 0 * T, probability=0.4), confidence=0.99,
                          seed=seq, horizons=grid, runs=1000) for g in groups]
    caught = [auditor.audit(g, dpaudit.RegretBound(lambda T: threshold + 0 * T, probability=0.32), confidence=0.99,
                            seed=seq, horizons=grid, runs=1000) for g in groups]
    assert sum(f.verdict == "refuted" for f in kept) <= 2
    assert sum(f.verdict == "refuted" for f in caught) >= 180


def test_rate_auditor_validity():
    """ETC(m=5)'s regret 5 Delta + (T - 10) Delta P(wrong) is linear in T: R = O(T^1) is not refuted in >= 99% of
    200 groups of 200 runs, O(T^0.85) (0.15 below) is refuted in >= 90% (margin 0.1). The fitted slope on the
    asymptotic half of the grid is about 0.99 with a confidence interval of width about 0.01, so neither
    assertion is near its limit (0 and 200 of 200 refuted here; fitted slopes 0.973 to 1.0)."""
    grid = dpaudit.simulation.regret_grid(10_000)
    _, groups = _groups(5, 200, grid, seed=3)
    auditor = RegretRateAuditor()
    seq = np.random.SeedSequence(0)
    kept = [auditor.audit(g, dpaudit.RegretRate(1.0), confidence=0.99, seed=seq, horizons=grid, runs=200,
                          bootstrap=200) for g in groups]
    caught = [auditor.audit(g, dpaudit.RegretRate(0.85), confidence=0.99, seed=seq, horizons=grid, runs=200,
                            bootstrap=200) for g in groups]
    assert sum(f.verdict == "refuted" for f in kept) <= 2
    assert sum(f.verdict == "refuted" for f in caught) >= 180
    slopes = np.array([f.statistic.value for f in kept])
    assert np.all((slopes > 0.95) & (slopes <= 1.0))


def test_audit_regret_records_its_statistics():
    env = BernoulliBandit(MEANS)
    res = dpaudit.audit_regret(ExploreThenCommit(2), env, dpaudit.RegretRate(0.5), horizons=5000, runs=100, seed=0)
    assert res.verdict == "refuted" and res.auditor == "regret-rate"
    assert res.statistic.name == "fitted exponent of T" and 0.9 < res.statistic.value <= 1
    assert {"grid", "fitted", "residuals", "rule", "margin"} <= set(res.parameters)
    d = res.to_dict()
    assert d["claim"] == {"kind": "regret-rate", "exponent": 0.5, "variable": "T", "log_power": 0.0}
    assert dpaudit.AuditResult.from_dict(d).verdict == "refuted"
    res = dpaudit.audit_regret("ucb", env, dpaudit.RegretBound(lambda T, gaps: 8 * np.log(T + 1) / gaps.max() + 1,
                                                                "8 log T / gap + 1"),
                               horizons=[10, 100, 1000], runs=50, seed=0)
    assert res.verdict == "not-refuted" and res.witness["margin"] < 1 and res.confidence == 0.99
    assert res.parameters["range"].startswith("pseudo-regret in [0, 0.2 T]")


def test_a_rate_in_a_parameter_is_fitted_over_its_values():
    """ETC exploring m = ceil(20 / eps) rounds per arm on well-separated arms has regret m Delta ~ 1/eps."""
    env = BernoulliBandit([0.9, 0.1])
    values = np.geomspace(0.05, 1.0, 7)

    def make(eps):
        return ExploreThenCommit(int(np.ceil(20 / eps)))

    ok = dpaudit.audit_regret(make, env, dpaudit.RegretRate(-1.0, "eps"), horizons=2000, runs=50, seed=0,
                              values=values)
    fast = dpaudit.audit_regret(make, env, dpaudit.RegretRate(-0.5, "eps"), horizons=2000, runs=50, seed=0,
                                values=values)
    assert ok.verdict == "not-refuted" and fast.verdict == "refuted"
    assert ok.statistic.value == pytest.approx(-1.0, abs=0.02)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"policy": "no-such-algorithm"}, ValueError, "unknown algorithm"),
        ({"horizons": [10, 5, 20]}, ValueError, "increasing"),
        ({"runs": 1}, ValueError, "runs"),
        ({"horizons": [10, 20, 40, 80]}, ValueError, "at least 6"),
        ({"claim": dpaudit.PureDP(1.0)}, InvalidClaim, "RegretRate"),
        ({"policy": object()}, TypeError, "not a policy"),
        ({"environment": None}, ValueError, "environment"),
        ({"margin": -1}, ValueError, "margin"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs, error, message):
    args = {"policy": ExploreThenCommit(1), "environment": BernoulliBandit(MEANS), "claim": dpaudit.RegretRate(1.0),
            "runs": 10, "seed": 0} | kwargs
    with pytest.raises(error, match=message):
        dpaudit.audit_regret(**args)
