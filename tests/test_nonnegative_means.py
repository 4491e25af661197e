"""Lower confidence bounds on the means of nonnegative variables (dpaudit.stats: anderson_mean_lower,
betting_mean_lower, nonnegative_mean_lower), which the regret-bound auditor uses so that a regret far below its
range T Delta is bounded as tightly as its own spread allows.

- validity: each bound's miss rate (how often it lies above the true mean) is at most its level, up to a binomial
  tolerance, on 2,000 draws at once of laws where it is weakest (two-point laws {0, M} with p near 0, 1/2, 1; an
  exponential; a heavy lognormal; a law with an atom at 0), at n from 5 to 1,000;
- sharpness: on the two-point law with p = 1/2, Anderson's bound is M (p_hat - eps)_+ exactly, so its miss rate
  must match the binomial tail P(p_hat - eps > 1/2) up to a two-sided tolerance: a band of half or twice the width
  fails; the betting bound on the same law misses in about a tenth of its level (0.55% at 0.05), where a threshold
  of twice log(1/level) misses 40 times less often;
- agreement with the plain references written out draw by draw (tests/nonnegative_reference.py);
- power: a claimed regret bound 40% below the regret of every one of 200 runs, at a regret that is 3% of its
  range, is refuted, where the range's empirical Bernstein / Hoeffding bound alone is below the claim.

Tolerances are binomial quantiles at 1e-6, so each check's false-failure rate (over seeds) is below 1e-6 and the
file's below 1e-4. Seeds are fixed, so the outcomes are too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from nonnegative_reference import anderson_lower, betting_lower
from scipy import stats

import dpaudit
from dpaudit.auditors import RegretBoundAuditor
from dpaudit.stats import (
    NONNEGATIVE_BOUNDS,
    anderson_mean_lower,
    betting_mean_lower,
    bounded_mean_lower,
    nonnegative_mean_lower,
)

DRAWS = 2000


def most_misses(level: float, draws: int = DRAWS) -> float:
    """The most misses a bound of this level allows in ``draws`` independent trials (P(more) <= 1e-6)."""
    return stats.binom.isf(1e-6, draws, level)


def _laws():
    """(name, sampler(size, rng), mean): the laws the bounds are weakest on, and skewed ones."""
    def two_point(p, top=10.0):
        return (f"{{0, {top:g}}} p={p:g}", lambda size, rng: top * (rng.random(size) < p), top * p)
    return [two_point(0.02), two_point(0.5), two_point(0.98),
            ("exponential", lambda size, rng: rng.exponential(2.0, size), 2.0),
            ("lognormal s=1.5", lambda size, rng: rng.lognormal(0.0, 1.5, size), math.exp(1.5**2 / 2)),
            ("atom at 0 (0.9), else 1 + exp", lambda size, rng: (rng.random(size) > 0.9) * (1 + rng.exponential(
                1.0, size)), 0.2)]


LAWS = _laws()


@pytest.mark.parametrize("n", [5, 30, 200, 1000])
@pytest.mark.parametrize("law", range(len(LAWS)), ids=[law[0] for law in LAWS])
def test_each_bound_misses_at_most_its_level(n, law):
    name, sample, mean = LAWS[law]
    rng = np.random.default_rng([n, law])
    x = sample((n, DRAWS), rng).astype(float)
    level = 0.05
    for bound in (anderson_mean_lower, betting_mean_lower):
        misses = int((bound(x, level) > mean).sum())
        assert misses <= most_misses(level), f"{bound.__name__} on {name}, n = {n}: {misses} misses"
    combined, _ = nonnegative_mean_lower(x, 0.0, max(float(x.max()), 1.0) * 2, level)
    assert int((combined > mean).sum()) <= most_misses(level)


@pytest.mark.parametrize("n", [50, 400])
def test_anderson_misses_as_often_as_its_dkw_band(n):
    """Two-point {0, 1} at p = 1/2: the bound is (p_hat - eps)_+, so it misses exactly when the count k exceeds
    n (1/2 + eps); level 0.2 (eps large enough that the band's width shows): the miss count must match that
    binomial tail within two-sided 1e-6 quantiles, which a band of half or twice the width leaves."""
    level = 0.2
    rng = np.random.default_rng(n)
    x = (rng.random((n, 20_000)) < 0.5).astype(float)
    eps = math.sqrt(math.log(1 / level) / (2 * n))
    got = anderson_mean_lower(x, level)
    assert np.allclose(got, np.maximum(x.mean(axis=0) - eps, 0.0), atol=1e-12)
    exact = stats.binom.sf(math.floor(n * (0.5 + eps)), n, 0.5)
    lo, hi = stats.binom.ppf(1e-6, 20_000, exact), stats.binom.isf(1e-6, 20_000, exact)
    assert lo <= int((got > 0.5).sum()) <= hi
    for wrong in (eps / 2, 2 * eps):  # the band halved or doubled misses at a rate outside these quantiles
        rate = stats.binom.sf(math.floor(n * (0.5 + wrong)), n, 0.5)
        assert not lo <= 20_000 * rate <= hi


def test_the_betting_bound_spends_a_share_of_its_level():
    """On {0, 1} at p = 1/2 with n = 400 at level 0.05 the betting bound misses in 0.55% of draws (109 of 20,000,
    measured); at a threshold of 2 log(1/level) (the level squared) it misses 5 times. At least 40 misses tells the
    two apart: a bound missing at 0.5% falls below 40 with probability 1e-13, and the squared level's count
    reaches 40 with a smaller one."""
    rng = np.random.default_rng(7)
    x = (rng.random((400, 20_000)) < 0.5).astype(float)
    misses = int((betting_mean_lower(x, 0.05) > 0.5).sum())
    assert 40 <= misses <= most_misses(0.05, 20_000)
    assert int((betting_mean_lower(x, 0.05**2) > 0.5).sum()) < 40


@pytest.mark.parametrize("case", ["exponential", "constant", "one positive", "two zeros first", "spread", "zeros"])
def test_the_vectorised_bounds_are_the_plain_references(case):
    rng = np.random.default_rng(3)
    x = {"exponential": rng.exponential(1.0, 50), "constant": np.full(30, 3.0),
         "one positive": np.r_[5.0, np.zeros(29)],
         "two zeros first": np.r_[0.0, 0.0, np.full(20, 7.0)], "spread": rng.uniform(100, 200, 200),
        "zeros": np.zeros(10)}[case]
    tiny = 1e-10 * max(float(x.max()), 1e-150)  # a betting bound below this is reported as 0
    for level in (0.05, 1e-4):
        assert anderson_mean_lower(x, level) == pytest.approx(anderson_lower(x, level), rel=1e-12, abs=1e-300)
        assert betting_mean_lower(x, level) == pytest.approx(betting_lower(x, level), rel=1e-9, abs=tiny)
        assert betting_mean_lower(x, level) <= betting_lower(x, level) * (1 + 1e-14) + 1e-300  # on the rejected side
    columns = np.stack([x, x[::-1]], axis=1)
    assert betting_mean_lower(columns, 0.05) == pytest.approx([betting_lower(x, 0.05), betting_lower(x[::-1], 0.05)],
                                                              rel=1e-9, abs=tiny)


def test_the_combined_bound_is_the_largest_at_a_third_of_the_level_and_names_it():
    """On 500 samples of 1,000 draws of {0, 1} at p = 0.1 in the range [0, 1], each of the three bounds is the
    largest somewhere (measured: the range's 31 times, Anderson's 6, the betting bound's 463)."""
    rng = np.random.default_rng(0)
    x = (rng.random((1000, 500)) < 0.1).astype(float)
    got, which = nonnegative_mean_lower(x, 0.0, 1.0, 0.15)
    parts = np.stack([bounded_mean_lower(x, 0.05)[0], anderson_mean_lower(x, 0.05), betting_mean_lower(x, 0.05)])
    assert np.allclose(got, parts.max(axis=0)) and (which == parts.argmax(axis=0)).all()
    assert set(which.tolist()) == {0, 1, 2}
    assert [NONNEGATIVE_BOUNDS[i].split()[0] for i in range(3)] == ["empirical", "Anderson", "betting"]
    shifted, _ = nonnegative_mean_lower(x * 50 - 10.0, -10.0, 50.0, 0.15)  # a range starting below 0, scaled
    assert np.allclose(shifted, got * 50 - 10.0)


def test_a_bound_below_every_run_by_forty_percent_is_refuted():
    """The case from the field: 200 runs whose pseudo-regret at each of 8 rounds is 2-4% of its range
    [0, gap T] (gap 1/2), and a claimed bound 0.6 times the smallest run's regret at each round. The range's
    empirical Bernstein / Hoeffding bound alone, at the auditor's level, lies below the claim at every round (it
    pays for the whole range); with Anderson's and the betting bounds the claim is refuted."""
    from test_regret_auditors import recorded

    grid = np.array([100, 200, 400, 800, 1600, 3200, 6400, 12800])
    rng = np.random.default_rng(5)
    values = grid * 0.5 * rng.uniform(0.02, 0.04, size=(200, grid.size))
    claim_values = 0.6 * values.min(axis=0)
    claim = dpaudit.RegretBound(lambda T: np.interp(T, grid, claim_values), "0.6 x the smallest run")
    level = 0.01 / grid.size
    ranged = grid * 0.5 * bounded_mean_lower(values / (grid * 0.5), level)[0]
    assert (ranged < claim_values).all()
    found = RegretBoundAuditor().audit(recorded(grid, values), claim, confidence=0.99, seed=np.random.SeedSequence(0),
                                       horizons=grid, runs=200)
    assert found.verdict == "refuted" and found.witness["margin"] > 1.3
