from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from dpaudit.core.seeding import SeedRecord, as_seed_sequence, claim_seed_sequence
from dpaudit.stats import binomial_lower, binomial_upper, bonferroni


@given(st.integers(1, 10_000), st.data(), st.floats(1e-9, 0.5))
def test_clopper_pearson_matches_beta_quantiles(n, data, alpha):
    k = data.draw(st.integers(0, n))
    lo, hi = float(binomial_lower(k, n, alpha)), float(binomial_upper(k, n, alpha))
    assert 0 <= lo <= k / n <= hi <= 1
    assert lo == (0.0 if k == 0 else pytest.approx(stats.beta.ppf(alpha, k, n - k + 1), rel=1e-9))
    assert hi == (1.0 if k == n else pytest.approx(stats.beta.isf(alpha, k + 1, n - k), rel=1e-9))
    sm_lo, sm_hi = proportion_confint(k, n, alpha=2 * alpha, method="beta")
    assert lo == pytest.approx(sm_lo, rel=1e-9, abs=1e-300) and hi == pytest.approx(sm_hi, rel=1e-9)


def test_zero_count_bound_is_closed_form():
    n, alpha = 1000, 0.01
    assert float(binomial_upper(0, n, alpha)) == pytest.approx(1 - alpha ** (1 / n))


def test_clopper_pearson_coverage():
    """Seeded: the one-sided bounds at level 0.05 must cover p in >= 95% of 20,000 draws.
    With exact (conservative) bounds the miss rate is <= 0.05, so the count of misses is
    stochastically below Binomial(20000, 0.05); asserting <= its 1 - 1e-6 quantile fails
    with probability < 1e-6 for a correct implementation."""
    rng = np.random.default_rng(12345)
    n, p, alpha, reps = 50, 0.3, 0.05, 20_000
    k = rng.binomial(n, p, reps)
    limit = stats.binom.isf(1e-6, reps, alpha)
    assert np.count_nonzero(binomial_lower(k, n, alpha) > p) <= limit
    assert np.count_nonzero(binomial_upper(k, n, alpha) < p) <= limit


def test_bonferroni():
    assert bonferroni(0.01, 4) == 0.0025
    assert bonferroni(0.01, 0) == 0.01
    with pytest.raises(ValueError):
        bonferroni(1.5, 3)


@pytest.mark.parametrize("alpha", [0, 0.0, 1, 1.0, -0.01, float("nan")])
def test_bonferroni_refuses_a_level_outside_the_open_unit_interval_by_name(alpha):
    """A level of 0 (confidence 1) or 1 (confidence 0) is no test at all: the open interval's ends are
    refused, with the value named, rather than turned into per-test levels of 0 or 1/m."""
    with pytest.raises(ValueError, match=re.escape(f"alpha must be in (0, 1), got {alpha!r}")):
        bonferroni(alpha, 3)


def test_claim_seeds_depend_only_on_run_seed_and_id():
    a = claim_seed_sequence(7, "dist-mab/thm1-privacy").generate_state(4)
    assert np.array_equal(a, claim_seed_sequence(7, "DIST-MAB/THM1-PRIVACY").generate_state(4))
    assert not np.array_equal(a, claim_seed_sequence(8, "dist-mab/thm1-privacy").generate_state(4))
    assert not np.array_equal(a, claim_seed_sequence(7, "dist-mab/thm1-regret").generate_state(4))


def test_seed_description_rebuilds_the_sequence():
    seq = as_seed_sequence(None).spawn(2)[1]
    d = SeedRecord.of(seq).to_dict()
    again = np.random.SeedSequence(d["entropy"], spawn_key=d["spawn_key"])
    assert np.array_equal(seq.generate_state(4), again.generate_state(4))
    with pytest.raises(ValueError, match="seed"):
        as_seed_sequence(-1)
