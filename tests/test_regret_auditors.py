"""The regret auditors: explicit bounds and rates.

Validity is tested at the exact boundary of each claim's null, on regret drawn from laws whose mean is
known exactly (tests/regret_laws.py), with enough rounds or values tested at once that removing a
safeguard (the Bonferroni split over the rounds, a concentration term, the bootstrap over runs, the
one-sided level) pushes the false-refutation rate well above alpha. Each test repeats an audit on m
disjoint groups of runs and asserts at most ``limit(m, alpha)`` refutations: an auditor whose
false-refutation rate is at most alpha fails that with probability P(Binomial(m, alpha) > limit) <= 1e-6
(over seeds: the tests are seeded, so each outcome is fixed). The docstrings give the auditor's rate on
each law, computed exactly from the binomial law of the runs' counts where the law allows it (else
measured over 1,000 groups), and its rate with each safeguard removed: what makes the test fail then.
"""

from __future__ import annotations

import numpy as np
import pytest
from regret_laws import GAP, at_the_bound, coin, kinked_power, law_subject, noisy_power, random_slope
from scipy import stats

import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.auditors import RegretBoundAuditor, RegretRateAuditor
from dpaudit.errors import InvalidClaim
from dpaudit.testing import ExploreThenCommit, explore_then_commit_regret

MEANS = [0.6, 0.4]


def limit(m: int, alpha: float) -> float:
    """The most refutations of a true claim in m repetitions that a valid auditor allows: P(Binomial(m,
    alpha) > limit) <= 1e-6."""
    return stats.binom.isf(1e-6, m, alpha)


def refutations(auditor, subject, claim, repetitions, alpha, **kwargs):
    """The audit of ``claim`` on each of ``repetitions`` disjoint groups of the subject's runs (the seed
    names the group): how many refuted."""
    return sum(auditor.audit(subject, claim, confidence=1 - alpha, seed=np.random.SeedSequence(group),
                             **kwargs).verdict == "refuted" for group in range(repetitions))


def test_the_exact_regret_matches_simulation():
    grid = np.array([1, 2, 3, 7, 20, 100, 1000])
    for m in (1, 4):
        res = dpaudit.simulate(ExploreThenCommit(m), BernoulliBandit(MEANS), 1000, 20_000, seed=3, grid=grid)
        exact = explore_then_commit_regret(MEANS, m, grid)
        assert np.all(np.abs(res.mean() - exact) <= 4.5 * res.stderr() + 1e-9)
        ref = dpaudit.simulate(ExploreThenCommit(m), BernoulliBandit(MEANS), 1000, 2000, seed=4, grid=grid,
                               path="reference")
        assert np.all(np.abs(ref.mean() - exact) <= 4.5 * ref.stderr() + 1e-9)


# --- bounds: validity at the exact boundary ------------------------------------------------------

def test_a_true_bound_on_the_expected_regret_is_refuted_at_most_alpha_often():
    """E[R_T] <= f(T) with f(T) = E[R_T] = T gap / 2 exactly at 100 rounds, the regret at each round
    independent of the others' (coin(1/2): T gap or 0, the law on which Hoeffding's bound is tightest),
    10,000 runs, 80 repetitions at alpha = 0.1: at most limit(80, 0.1) = 23 refutations. This auditor's
    rate here, computed exactly, is 0.0050, so it fails the assertion with probability 7e-36 (any valid
    auditor: <= 6e-7). Without the Bonferroni split over the rounds the rate is 0.51, with Hoeffding's
    deviation halved 0.93, with the empirical Bernstein deviation halved 0.53 (it then undercuts
    Hoeffding's), without a deviation 1: the assertion then holds with probability 4e-5, 1e-45, 9e-6, 0.
    Power: a bound 5% below the truth is refuted in each of 10 groups (exact rate 1 - 1e-16)."""
    grid = np.unique(np.geomspace(100, 100_000, 100).astype(np.int64))
    assert grid.size == 100
    subject, auditor = law_subject(coin(0.5)), RegretBoundAuditor()
    true = dpaudit.RegretBound(lambda T: 0.5 * GAP * T, "E[R_T] = T gap / 2")
    assert refutations(auditor, subject, true, 80, 0.1, horizons=grid, runs=10_000) <= limit(80, 0.1)
    low = dpaudit.RegretBound(lambda T: 0.95 * 0.5 * GAP * T, "0.95 E[R_T]")
    assert refutations(auditor, subject, low, 10, 0.1, horizons=grid, runs=10_000) == 10


def test_a_true_bound_met_by_runs_that_look_constant_is_refuted_at_most_alpha_often():
    """R_T = T gap except in 3% of the runs, where it is 0 (coin(0.97)), and f(T) = E[R_T] = 0.97 T gap at
    20 rounds, each read from its own runs of horizon T (the policy is horizon-aware): with 60 runs a
    group has no low run at a round with probability 0.97^60 = 0.16, and its regret there has no spread.
    The empirical Bernstein bound's second-order term 7 log(2/level) / (3 (n - 1)) is what keeps such a
    group from refuting: with it the rate is 0 (no count of low runs refutes), without it 0.97, against
    at most limit(20, 0.1) = 10 refutations in 20 repetitions (then passed with probability 8e-11)."""
    grid = np.unique(np.geomspace(100, 10_000, 20).astype(np.int64))
    assert grid.size == 20
    subject = law_subject(coin(0.97), anytime=False)
    true = dpaudit.RegretBound(lambda T: 0.97 * GAP * T, "E[R_T] = 0.97 T gap")
    assert refutations(RegretBoundAuditor(), subject, true, 20, 0.1, horizons=grid, runs=60) <= limit(20, 0.1)


def test_a_true_high_probability_bound_is_refuted_at_most_alpha_often():
    """P(R_T > f(T)) <= 0.1 with f(T) = T gap / 2, where R_T = T gap / 2 exactly in 90% of the runs and
    T gap in the others, independently at 50 rounds: P(R_T > f(T)) = 0.1 exactly, and R_T >= f(T) always.
    1,000 runs, 40 repetitions at alpha = 0.1: at most limit(40, 0.1) = 15 refutations. Clopper-Pearson
    is nearly exact: the rate, computed exactly, is 0.088, so the assertion fails with probability 1e-7.
    Without the Bonferroni split over the rounds the rate is 0.993 (the assertion then holds with
    probability 1e-44); the bound at the wrong tail, or counting the runs with R_T >= f(T), refutes in
    every repetition. Power: claimed p = 0.06 is refuted in each of 10 groups (exact rate 1 - 1e-12)."""
    grid = np.unique(np.geomspace(100, 100_000, 50).astype(np.int64))
    assert grid.size == 50
    subject, auditor = law_subject(at_the_bound(0.1)), RegretBoundAuditor()
    true = dpaudit.RegretBound(lambda T: GAP * T / 2, "T gap / 2", probability=0.1)
    assert refutations(auditor, subject, true, 40, 0.1, horizons=grid, runs=1000) <= limit(40, 0.1)
    wrong = dpaudit.RegretBound(lambda T: GAP * T / 2, "T gap / 2", probability=0.06)
    assert refutations(auditor, subject, wrong, 10, 0.1, horizons=grid, runs=1000) == 10


def test_the_bound_auditor_on_a_simulated_policy():
    """The same auditor end to end on explore-then-commit's simulation: its exact E[R_T] is not refuted
    (a rigorous bound: probability <= 0.01) and 0.8 of it is (its lower bound is 0.95 of E[R_T])."""
    grid = np.unique(np.geomspace(12, 2000, 8).astype(np.int64))
    env = BernoulliBandit(MEANS)
    exact = dpaudit.RegretBound(lambda T: explore_then_commit_regret(MEANS, 1, T), "exact E[R_T]")
    low = dpaudit.RegretBound(lambda T: 0.8 * explore_then_commit_regret(MEANS, 1, T), "0.8 exact E[R_T]")
    kwargs = {"horizons": grid, "runs": 5000, "seed": 1, "auditor": "statistical"}  # not the exact path
    held = dpaudit.audit_regret(ExploreThenCommit(1), env, exact, **kwargs)
    assert held.verdict == "not-refuted" and held.auditor == "regret-bound" and held.witness["margin"] < 1
    assert dpaudit.audit_regret(ExploreThenCommit(1), env, low, **kwargs).verdict == "refuted"


# --- rates: validity at the exact boundary -------------------------------------------------------
#
# A rate's level is asymptotic in the number of runs: the WLS interval is normal theory and the bootstrap
# a percentile interval. Both tests run at a level where that is measured to hold (over 1,000 groups)
# and at alpha = 0.25, where a doubled level shows in 300 repetitions.

def test_a_true_rate_in_T_is_refuted_at_most_alpha_often():
    """R = O(T^0.5) with margin 0 where E[R_T] = 0.01 T^0.5 exactly, each run's exponent off by up to
    +-0.3 for the whole run (random_slope: the rounds of one run are correlated), 100 runs, 24 rounds (12
    fitted), 300 repetitions at alpha = 0.25: at most limit(300, 0.25) = 112 refutations. Measured rate
    0.256, so the assertion fails with probability 3e-6. The WLS interval alone (which takes the rounds
    as independent: no bootstrap) refutes in 0.50, the auditor with its one-sided level doubled in 0.48
    (the bootstrap's interval is the one that binds here; the WLS interval's level is held by the test
    of the interval below): the assertion then holds with probability 7e-6 and 7e-5. Power:
    R = O(T^0.35) is refuted in each of 20 groups."""
    grid = np.unique(np.geomspace(100, 100_000, 24).astype(np.int64))
    fitted = grid[grid >= np.sqrt(grid[0] * grid[-1])]
    subject, auditor = law_subject(random_slope(0.5, fitted[0], fitted[-1])), RegretRateAuditor()
    kwargs = {"horizons": grid, "runs": 100, "bootstrap": 100, "margin": 0.0}
    assert refutations(auditor, subject, dpaudit.RegretRate(0.5), 300, 0.25, **kwargs) <= limit(300, 0.25)
    assert refutations(auditor, subject, dpaudit.RegretRate(0.35), 20, 0.25, **kwargs) == 20


def test_a_true_rate_in_eps_is_refuted_at_most_alpha_often():
    """R = O(eps^-1) with margin 0 where E[R] = 0.01 / eps exactly at 12 values of eps in [0.01, 1], one
    simulation per value on common random numbers (random_slope: a run's exponent off by up to +-0.22),
    100 runs, 300 repetitions at alpha = 0.25: at most 112 refutations. Measured rate 0.252 (failure
    probability 1e-6); without the bootstrap 0.50, with the one-sided level doubled 0.48 (the assertion
    then holds with probability 7e-6 and 1e-4). Power: R = O(eps^-0.8) (the regret grows faster as
    eps -> 0 than claimed) is refuted in each of 20 groups."""
    values = np.geomspace(0.01, 1.0, 12)
    subject, auditor = law_subject(random_slope(-1.0, values[0], values[-1])), RegretRateAuditor()
    kwargs = {"horizons": np.array([1000]), "runs": 100, "bootstrap": 100, "margin": 0.0, "values": values}
    assert refutations(auditor, subject, dpaudit.RegretRate(-1.0, "eps"), 300, 0.25, **kwargs) <= limit(300, 0.25)
    assert refutations(auditor, subject, dpaudit.RegretRate(-0.8, "eps"), 20, 0.25, **kwargs) == 20


def _wls(x, y, w, alpha):
    """Weighted least squares of y on x written out: the slope and its one-sided bounds at alpha each
    (Student's t on n - 2 degrees of freedom, the scale estimated from the weighted residuals)."""
    xm, ym = np.average(x, weights=w), np.average(y, weights=w)
    sxx = np.sum(w * (x - xm) ** 2)
    slope = np.sum(w * (x - xm) * (y - ym)) / sxx
    residuals = y - ym - slope * (x - xm)
    half_width = stats.t.ppf(1 - alpha, x.size - 2) * np.sqrt(np.sum(w * residuals**2) / (x.size - 2) / sxx)
    return slope, slope - half_width, slope + half_width


def test_the_rate_interval_is_the_wider_of_the_wls_and_the_bootstrap_intervals():
    """The fitted slope and its WLS interval, recomputed from the recorded means and weights, and the
    interval used: the wider of that and the bootstrap's, over the fitted rounds and over their upper
    half. Five runs with the rounds independent (noisy_power) make the WLS interval the wider one below:
    at the exact boundary of a pure power law with many runs the bootstrap alone holds the level (the
    validity tests above), so this is where the WLS interval's part (and its level) is held."""
    grid = np.unique(np.geomspace(100, 100_000, 24).astype(np.int64))
    res = RegretRateAuditor().audit(law_subject(noisy_power(0.5)), dpaudit.RegretRate(0.5), confidence=0.9,
                                    seed=np.random.SeedSequence(0), horizons=grid, runs=5, margin=0.0)
    p, w = res.parameters, res.witness
    x, y, weights = np.log(p["fitted"]), np.log(p["mean"]), p["weights"]
    top = np.arange(x.size) >= x.size // 2
    for fit, rows in ((w, slice(None)), (w["upper_half"], top)):
        slope, low, high = _wls(x[rows], y[rows], weights[rows], 0.1)
        assert fit["slope"] == pytest.approx(slope, abs=1e-9)
        assert fit["lower"] == pytest.approx(low, abs=1e-9)  # the WLS bound is the one used below
        assert fit["upper"] >= high - 1e-9
    assert w["wls_interval"] == pytest.approx(list(_wls(x, y, weights, 0.1)[1:]), abs=1e-9)
    boot_low, boot_high = w["bootstrap_interval"]
    assert w["lower"] < boot_low and w["upper"] == pytest.approx(max(w["wls_interval"][1], boot_high))


def test_a_rate_is_judged_on_the_upper_half_of_its_fitted_rounds():
    """E[R_T] grows as T up to the middle of the fitted rounds and as T^0.5 beyond (a regret not yet in
    its asymptotic regime on the lower half): the claim R = O(T^0.5) holds there. The fit over all the
    fitted rounds gives 0.75, its lower bound above 0.5 + margin; the upper half gives 0.5, and a rate is
    refuted only when both are above: not refuted (every run has the same exponent, so the outcome does
    not depend on the draw)."""
    grid = np.unique(np.geomspace(100, 100_000, 24).astype(np.int64))
    fitted = grid[grid >= np.sqrt(grid[0] * grid[-1])]
    law = kinked_power(1.0, 0.5, np.sqrt(fitted[0] * fitted[-1]))
    res = RegretRateAuditor().audit(law_subject(law), dpaudit.RegretRate(0.5), confidence=0.99,
                                    seed=np.random.SeedSequence(0), horizons=grid, runs=200)
    assert res.witness["lower"] > 0.6 and res.witness["upper_half"]["slope"] == pytest.approx(0.5)
    assert res.verdict == "not-refuted"


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


def test_a_high_probability_finding_is_recomputed_from_its_runs():
    """Every number of a "P(R_T > f(T)) <= p" finding from the runs it read (drawn again here from the
    law): the exceedance counts, scipy's one-sided Clopper-Pearson bound at alpha / rounds, the worst
    round (largest bound over p), the margin, and the record's fields. Deterministic."""
    grid = np.array([100, 1000, 10_000])
    law, runs, alpha, group = at_the_bound(0.1), 400, 0.05, 3
    values = law(grid.astype(float), runs, group)
    for p in (0.2, 0.05):
        claim = dpaudit.RegretBound(lambda T: GAP * T / 2, "T gap / 2", probability=p)
        found = RegretBoundAuditor().audit(law_subject(law), claim, confidence=1 - alpha, horizons=grid, runs=runs,
                                           seed=np.random.SeedSequence(group))
        f = GAP * grid / 2
        counts = (values > f).sum(axis=0)
        lower = stats.beta.ppf(alpha / grid.size, counts, runs - counts + 1)
        j = int(np.argmax(lower / p))
        assert found.verdict == ("refuted" if (lower > p).any() else "not-refuted")
        assert found.verdict == ("not-refuted" if p == 0.2 else "refuted")
        assert found.statistic.name == f"P(R_T > f(T)) at T={grid[j]}" and found.statistic.kind == "lower-bound"
        assert found.statistic.value == pytest.approx(counts[j] / runs)
        assert found.statistic.interval == (pytest.approx(lower[j], rel=1e-9), np.inf)
        assert found.confidence == 1 - alpha and found.samples == runs
        assert found.witness == {"T": int(grid[j]), "count": int(counts[j]), "n": runs,
                                 "lower_bound": pytest.approx(lower[j], rel=1e-9), "probability": p,
                                 "bound": pytest.approx(f[j]), "margin": pytest.approx(lower[j] / p, rel=1e-9),
                                 "method": "Clopper-Pearson, Bonferroni over the grid"}
        assert found.plot_data["quantile"] == pytest.approx(np.quantile(values, 1 - p, axis=0))
        assert found.plot_data["bound"] == pytest.approx(f) and found.plot_data["lower"] is None
        assert found.plot_data["kind"] == "regret-bound" and found.plot_data["description"] == "T gap / 2"
        if p == 0.2:
            undetected = p + np.sqrt(-np.log(alpha / grid.size) / (2 * runs))
            assert found.notes[-1].endswith(f"an exceedance probability below about {undetected:.2g} may go "
                                            "undetected")


def test_a_rate_in_a_parameter_names_what_its_values_must_be():
    from dpaudit.auditors.regret_rate import MIN_POINTS, _values

    good = np.geomspace(1, 32, MIN_POINTS)
    assert _values(list(good), "eps").tolist() == good.tolist()
    with pytest.raises(ValueError, match=r"a rate in eps needs values=\[...\] \(at least 6, a geometric grid\)"):
        _values(None, "eps")
    for short in (good[:-1], good.reshape(2, 3)):
        with pytest.raises(ValueError, match="a rate fit needs at least 6 values of eps"):
            _values(short, "eps")
    for bad in (np.r_[0.0, good[1:]], np.r_[good[:-1], good[-2]], np.r_[good[:-1], np.inf], -good[::-1]):
        with pytest.raises(ValueError, match="values of eps must be positive, finite and increasing"):
            _values(bad, "eps")
