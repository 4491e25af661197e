"""Coverage and sharpness of the statistical primitives: the bounded-mean bound and its p-value, the
Clopper-Pearson bounds, the anytime-valid confidence sequence, Holm's procedure (dpaudit.stats) and the
ratio certifiers of the black-box privacy auditor (dpaudit.auditors.bounds).

Each primitive is drawn at least 2,000 times at once (they take arrays) and checked two ways:

- validity: its miss rate (how often the true value lies beyond it) is at most its level, up to a
  binomial tolerance, on the laws where it is weakest: two-point laws at the edges of [0, 1] with p
  near 0, near 1/2 and near 1, and n from 2 to 10^4;
- sharpness: on a law where the construction is (nearly) exact, its miss rate must match the exact
  miss rate of the construction it documents, up to a binomial tolerance on both sides, so a bound
  that spends its level twice (level where level/2 is due) or only half of it (level/4, or a doubled
  radius) fails.

Every tolerance is a quantile of the binomial law of the miss count; the chance that a correct
implementation fails it (its false-failure rate, over seeds) is written beside it: below 1.1e-5 for the
whole file. Seeds are fixed, so every verdict is fixed too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit import ZCDP, ApproxDP, PureDP, RenyiDP
from dpaudit.auditors.bounds import RHO_ORDERS, certify
from dpaudit.stats import (
    binomial_confidence_sequence,
    binomial_interval,
    binomial_lower,
    binomial_upper,
    bounded_mean_lower,
    bounded_mean_pvalue,
    holm,
)

REPS = 2_000  # draws per law for validity
SHARP_REPS = 20_000  # draws per law for sharpness: a factor-2 change of a miss rate near 0.05 is > 10 sd
N_GRID = (2, 3, 10, 30, 100, 1_000, 10_000)
P_GRID = (1e-4, 0.01, 0.1, 0.5, 0.9, 0.99, 1 - 1e-4)


def at_most(reps: int, rate: float, false_failure: float) -> float:
    """A miss count that Binomial(reps, rate) exceeds with probability at most ``false_failure``: a bound
    that misses with probability <= rate passes ``misses <= at_most(...)`` but with that probability."""
    return stats.binom.isf(false_failure, reps, rate)


def window(reps: int, rate: float, false_failure: float) -> tuple[float, float]:
    """Miss counts outside which Binomial(reps, rate) falls with probability at most ``false_failure``."""
    return stats.binom.ppf(false_failure / 2, reps, rate), stats.binom.isf(false_failure / 2, reps, rate)


def two_point_samples(n: int, ones) -> np.ndarray:
    """Samples of n values in {0, 1}, column j with ones[j] ones. The bounded-mean bound and p-value are
    symmetric functions of the sample (its mean and variance), so one column stands for every sample
    with that many ones, and a binomial draw of the count is a draw of the sample."""
    return (np.arange(n)[:, None] < np.asarray(ones)[None, :]).astype(float)


def of_counts(function, n: int, counts: np.ndarray, *args) -> np.ndarray:
    """``function`` (bounded_mean_lower or bounded_mean_pvalue) on samples with the given counts of ones,
    evaluated once per distinct count."""
    distinct, index = np.unique(counts, return_inverse=True)
    out = function(two_point_samples(n, distinct), *args)
    return (out[0] if isinstance(out, tuple) else out)[index]


# -- bounded_mean_lower and bounded_mean_pvalue -------------------------------------------------------


@pytest.mark.parametrize("n", (1,) + N_GRID)
def test_bounded_mean_lower_covers_two_point_laws(n):
    """Miss rate at level 0.05 of the lower bound (and of the upper bound 1 - lower(1 - z)) on Bernoulli
    laws, 2,000 draws each (raw samples up to n = 1,000; counts at n = 10^4). False-failure rate per law
    and side P(Binomial(2000, 0.05) > k) <= 1e-8: below 2e-6 for the 112 checks of the file's 8 tests."""
    rng = np.random.default_rng(1000 + n)
    level = 0.05
    for p in P_GRID:
        if n <= 1_000:
            z = (rng.random((n, REPS)) < p).astype(float)
            lower = bounded_mean_lower(z, level)[0]
            upper = 1 - bounded_mean_lower(1 - z, level)[0]
        else:
            ones = rng.binomial(n, p, REPS)
            lower = of_counts(bounded_mean_lower, n, ones, level)
            upper = 1 - of_counts(bounded_mean_lower, n, n - ones, level)
        assert np.count_nonzero(lower > p) <= at_most(REPS, level, 1e-8), (n, p)
        assert np.count_nonzero(upper < p) <= at_most(REPS, level, 1e-8), (n, p)


def _documented_lower(n: int, ones: np.ndarray, level: float) -> np.ndarray:
    """The bound as its docstring states it, for samples of n values in {0, 1}: the larger of Hoeffding's
    (sqrt(log(1/d) / 2n) below the mean) and Maurer & Pontil's (Thm 4: sqrt(2 V log(2/d) / n) +
    7 log(2/d) / (3 (n - 1)) below it), each at d = level/2; V the sample variance k(n - k) / (n(n - 1))."""
    d = level / 2
    mean = ones / n
    variance = ones * (n - ones) / (n * (n - 1))
    hoeffding = mean - math.sqrt(math.log(1 / d) / (2 * n))
    bernstein = mean - np.sqrt(2 * variance * math.log(2 / d) / n) - 7 * math.log(2 / d) / (3 * (n - 1))
    return np.maximum(hoeffding, bernstein)


@pytest.mark.parametrize(("p", "binding"), [(0.5, "hoeffding"), (0.99, "bernstein")])
def test_bounded_mean_lower_misses_as_often_as_its_inequalities(p, binding):
    """Sharpness. Hoeffding's and Maurer-Pontil's bounds are conservative by design: no law makes them
    miss at their level, so sharpness cannot be "miss rate near the level". The criterion used instead:
    on the law where each inequality is the binding one and closest to exact (n = 10^4; Bernoulli(1/2),
    where Hoeffding's sub-Gaussian tail is within a polynomial factor of the binomial's; Bernoulli(0.99),
    where the variance is small and the empirical Bernstein bound is the larger), the bound misses exactly
    as often as the documented inequality at level/2 (that miss rate computed exactly from the binomial
    law). At level 0.5 these are 0.047 and 0.0097; spending level/4 instead gives 0.021 and 0.0027, no
    split (level) 0.12 and 0.028, a doubled radius 4e-4 and 3e-5, and dropping Maurer-Pontil's
    7 log / (3 (n - 1)) term 0.028 at p = 0.99: all far outside the window (these are the exact miss
    rates of the altered inequalities). 10^5 draws of the count; false-failure rate 1e-7 per law."""
    rng = np.random.default_rng(7)
    n, level, reps = 10_000, 0.5, 100_000
    ks = np.arange(n + 1)
    reference = stats.binom.pmf(ks, n, p)[_documented_lower(n, ks, level) > p].sum()
    ones = rng.binomial(n, p, reps)
    distinct, index = np.unique(ones, return_inverse=True)
    lower, bernstein_used = bounded_mean_lower(two_point_samples(n, distinct), level)
    assert np.all(bernstein_used == (binding == "bernstein"))
    lo, hi = window(reps, reference, 1e-7)
    assert lo <= np.count_nonzero(lower[index] > p) <= hi, reference


@pytest.mark.parametrize("n", (2, 10, 1_000, 10_000))
def test_bounded_mean_pvalue_is_valid_and_refutes_exactly_where_the_bound_does(n):
    """Validity: under "mean <= p" at the true mean p, P(p-value <= 0.05) <= 0.05 on Bernoulli laws (2,000
    draws each; false-failure rate per law P(Binomial(2000, 0.05) > k) <= 1e-8). Sharpness: the p-value
    refutes at level a exactly when bounded_mean_lower(z, a) exceeds the threshold, on 201 counts of ones
    spread over 0..n and four levels (deterministic), so it is as sharp as the bound whose sharpness is
    tested above: a p-value that charged its level twice over (or half) would refute on other counts."""
    rng = np.random.default_rng(2000 + n)
    for p in P_GRID:
        pvalues = of_counts(bounded_mean_pvalue, n, rng.binomial(n, p, REPS), p)
        assert np.count_nonzero(pvalues <= 0.05) <= at_most(REPS, 0.05, 1e-8), (n, p)
    z = two_point_samples(n, np.unique(np.linspace(0, n, 201).round()))
    for threshold in (0.1, 0.5, 0.9, 0.999):
        pvalues = bounded_mean_pvalue(z, threshold)
        for level in (1e-6, 0.01, 0.05, 0.5):
            lower = bounded_mean_lower(z, level)[0]
            clear = np.abs(lower - threshold) > 1e-9  # not within rounding of the crossing
            assert np.array_equal((pvalues <= level)[clear], (lower > threshold)[clear]), (threshold, level)


def _bounded_mean_pvalue_by_hand(values, threshold: float) -> float:
    """The p-value of "mean <= threshold" as bounded_mean_pvalue documents it, in Python floats: the smaller
    of Hoeffding's 2 exp(-2 n e^2) and Bernstein's 4 exp(-u^2), u the positive root of a u^2 + b u = e
    (a = 7 / (3 (n - 1)), b = sqrt(2 V / n), V the unbiased variance, e the excess of the mean), capped at 1."""
    n = len(values)
    mean = math.fsum(values) / n
    e = mean - threshold
    if e <= 0:
        return 1.0
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    a, b = 7 / (3 * (n - 1)), math.sqrt(2 * var / n)
    u = (-b + math.sqrt(b * b + 4 * a * e)) / (2 * a)
    return min(2 * math.exp(-2 * n * e * e), 4 * math.exp(-u * u), 1.0)


def test_a_single_precision_sample_gets_the_double_precision_p_value_of_its_values():
    """Samples in float32 (as from a GPU or a compact store) are tested at the values they hold, in double
    precision: 0.9f three times and 0.3f have the mean 0.7499999851..., which float32 arithmetic rounds
    to 0.75, moving the p-value by about 1e-7 relatively. Deterministic."""
    z = np.array([[0.9, 0.6], [0.9, 0.7], [0.9, 0.8], [0.3, 0.1]], dtype=np.float32)
    p = bounded_mean_pvalue(z, 0.25)
    columns = [[float(v) for v in z[:, j]] for j in range(2)]  # the float32 values, exactly
    assert p.dtype == np.float64
    assert p.tolist() == pytest.approx([_bounded_mean_pvalue_by_hand(c, 0.25) for c in columns], rel=1e-13)
    assert ((0 < p) & (p < 1)).all()  # the excesses are large enough that the p-values are not the cap 1


def test_thresholds_given_as_exact_rationals_are_the_floats_they_stand_for():
    """A threshold may be a fractions.Fraction (dpaudit's exact laws carry their constants as rationals), one
    per column: it is tested as the float it rounds to, the p-values the hand computation gives. Deterministic."""
    from fractions import Fraction

    z = np.array([[1.0, 0.5], [1.0, 1.0], [1.0, 0.75], [0.5, 1.0], [0.9, 0.25]])
    p = bounded_mean_pvalue(z, [Fraction(1, 4), Fraction(1, 3)])
    assert p.dtype == np.float64
    assert p.tolist() == pytest.approx([_bounded_mean_pvalue_by_hand(z[:, 0].tolist(), 0.25),
                                        _bounded_mean_pvalue_by_hand(z[:, 1].tolist(), 1 / 3)], rel=1e-13)
    assert float(bounded_mean_pvalue(z[:, 0], Fraction(1, 4))) == pytest.approx(p[0], rel=1e-15)
    assert ((0 < p) & (p < 1)).all()  # not the cap 1: the thresholds matter


# -- Clopper-Pearson ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", N_GRID)
def test_clopper_pearson_covers_every_law(n):
    """Miss rates of the one-sided bounds at 0.05 and of the two-sided interval at 0.1, over 2,000 draws
    per law. False-failure rate per law and bound P(Binomial(2000, 0.05 or 0.1) > k) <= 1e-8: below
    1.5e-6 for the 147 checks."""
    rng = np.random.default_rng(3000 + n)
    for p in P_GRID:
        k = rng.binomial(n, p, REPS)
        assert np.count_nonzero(binomial_lower(k, n, 0.05) > p) <= at_most(REPS, 0.05, 1e-8), (n, p)
        assert np.count_nonzero(binomial_upper(k, n, 0.05) < p) <= at_most(REPS, 0.05, 1e-8), (n, p)
        lo, hi = binomial_interval(k, n, 0.1)
        assert np.count_nonzero((lo > p) | (hi < p)) <= at_most(REPS, 0.1, 1e-8), (n, p)


def _exact_interval_miss(n: int, p: float, alpha: float) -> float:
    """P(p outside the exact Clopper-Pearson interval at level 1 - alpha), the bounds from scipy's beta
    quantiles (the definition), summed over the binomial law."""
    k = np.arange(n + 1)
    with np.errstate(invalid="ignore"):
        lo = np.where(k == 0, 0.0, stats.beta.ppf(alpha / 2, k, n - k + 1))
        hi = np.where(k == n, 1.0, stats.beta.isf(alpha / 2, k + 1, n - k))
    return stats.binom.pmf(k, n, p)[(lo > p) | (hi < p)].sum()


# (n, k): p sits just inside the Clopper-Pearson bound of k successes, so the bound misses from k on
# with probability just under its level; k = 1 puts p near 0, k = n (lower) or 0 (upper) near 1 and 0.
SHARP_LOWER = [(2, 1), (2, 2), (10, 1), (10, 10), (100, 50), (10_000, 1), (10_000, 5_000), (10_000, 10_000)]
SHARP_UPPER = [(2, 0), (2, 1), (10, 0), (10, 9), (100, 50), (10_000, 0), (10_000, 5_000), (10_000, 9_999)]


@pytest.mark.parametrize(("n", "k"), SHARP_LOWER)
def test_clopper_pearson_lower_bound_and_interval_spend_their_whole_level(n, k):
    """Sharpness. p just below the exact lower bound of k at 0.2: the one-sided bound at 0.2 misses exactly
    when K >= k, with probability just under 0.2; the interval at 0.4 (0.2 per tail) as often plus its
    upper tail's share (exact, from the beta quantiles). Level 0.1 or no split would give about 0.1 or
    0.4. 20,000 draws; false-failure rate 1e-7 per check (3.2e-6 for the 32 checks of this test and the
    next)."""
    rng = np.random.default_rng(4000 + n + k)
    p = stats.beta.ppf(0.2, k, n - k + 1) * (1 - 1e-9)
    draws = rng.binomial(n, p, SHARP_REPS)
    lo, hi = window(SHARP_REPS, stats.binom.sf(k - 1, n, p), 1e-7)
    assert lo <= np.count_nonzero(binomial_lower(draws, n, 0.2) > p) <= hi
    below, above = binomial_interval(draws, n, 0.4)
    lo, hi = window(SHARP_REPS, _exact_interval_miss(n, p, 0.4), 1e-7)
    assert lo <= np.count_nonzero((below > p) | (above < p)) <= hi


@pytest.mark.parametrize(("n", "k"), SHARP_UPPER)
def test_clopper_pearson_upper_bound_and_interval_spend_their_whole_level(n, k):
    """As above for the upper bound: p just above the exact upper bound of k at 0.2 is missed when K <= k."""
    rng = np.random.default_rng(5000 + n + k)
    p = stats.beta.isf(0.2, k + 1, n - k) * (1 + 1e-9)
    draws = rng.binomial(n, p, SHARP_REPS)
    lo, hi = window(SHARP_REPS, stats.binom.cdf(k, n, p), 1e-7)
    assert lo <= np.count_nonzero(binomial_upper(draws, n, 0.2) < p) <= hi
    below, above = binomial_interval(draws, n, 0.4)
    lo, hi = window(SHARP_REPS, _exact_interval_miss(n, p, 0.4), 1e-7)
    assert lo <= np.count_nonzero((below > p) | (above < p)) <= hi


# -- the anytime-valid confidence sequence ---------------------------------------------------------

# The checks along each sequence: after every one of the first 30 trials, then at a 5% geometric step
# up to 10^4 (a sequential audit looks after every batch; the denser the checks, the more chances to leave).
CHECKS = np.unique(np.concatenate([np.arange(1, 31), np.geomspace(30, 10_000, 120).round()])).astype(int)


def _first_true(holds, low: int, high: int, guess: int) -> int:
    """The smallest k in [low, high] where the predicate ``holds`` (false below, true above) is true, high
    + 1 if none; a galloping search from ``guess``, so a few evaluations when the guess is close."""
    g, step = min(max(guess, low), high), 1
    if holds(g):
        true = g
        while true - step >= low and holds(true - step):
            true, step = true - step, step * 2
        false = max(true - step, low - 1)
    else:
        false = g
        while false + step <= high and not holds(false + step):
            false, step = false + step, step * 2
        true = min(false + step, high + 1)
    while true - false > 1:
        mid = (false + true) // 2
        if holds(mid):
            true = mid
        else:
            false = mid
    return true


def _leaving_counts(p: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """For each check n: the counts k <= below[n] and k >= above[n] after which the confidence sequence
    excludes p. Both ends of the sequence grow with k, so each side is one threshold."""
    below, above = [], []
    guess_below, guess_above, done = -1, 1, 0
    for n in CHECKS:
        cache: dict[int, tuple[float, float]] = {}

        def interval(k: int, n: int = n, cache=cache) -> tuple[float, float]:
            if k not in cache:
                cache[k] = binomial_confidence_sequence(k, int(n), alpha)
            return cache[k]

        drift = round(p * (n - done))
        guess_above = _first_true(lambda k: interval(k)[0] > p, 0, n, guess_above + drift)
        guess_below = _first_true(lambda k: interval(k)[1] >= p, 0, n, guess_below + 1 + drift) - 1
        above.append(guess_above)
        below.append(guess_below)
        done = n
    return np.array(below), np.array(above)


def _exact_leaving_probability(p: float, below: np.ndarray, above: np.ndarray) -> float:
    """P(p is excluded at some check), by propagating the law of the count of successes from check to check
    and removing the paths that have left."""
    law, done = np.ones(1), 0
    for n, lo, hi in zip(CHECKS, below, above):
        law = np.convolve(law, stats.binom.pmf(np.arange(n - done + 1), n - done, p))
        law[: lo + 1] = 0.0
        law[hi:] = 0.0
        done = n
    return 1.0 - law.sum()


@pytest.mark.parametrize("p", [1e-3, 0.1, 0.5, 0.999])
def test_confidence_sequence_holds_uniformly_over_the_checks(p):
    """Anytime validity at alpha = 0.05: the probability that p is ever excluded along the 139 checks up to
    n = 10^4, on 4,000 simulated sequences (false-failure rate P(Binomial(4000, 0.05) > k) <= 1e-8) and
    exactly (propagating the count's law; deterministic)."""
    alpha, reps = 0.05, 4_000
    below, above = _leaving_counts(p, alpha)
    rng = np.random.default_rng(6000 + round(1000 * p))
    counts = np.cumsum(rng.binomial(np.diff(CHECKS, prepend=0), p, (reps, len(CHECKS))), axis=1)
    left = ((counts <= below) | (counts >= above)).any(axis=1)
    assert np.count_nonzero(left) <= at_most(reps, alpha, 1e-8)
    assert _exact_leaving_probability(p, below, above) <= alpha


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_confidence_sequence_spends_most_of_its_level(p):
    """Sharpness: Ville's inequality is close to an equality for a mixture martingale watched often (the
    count's unit steps overshoot 1/alpha), so at alpha = 0.2 the exact probability of ever excluding p
    along the checks is 0.132 at p = 0.2 and 0.140 at p = 0.5 (computed here; deterministic, no false
    failures). A threshold of 2/alpha (the level halved) gives 0.054 and 0.069, below alpha/2; a threshold
    of 1/sqrt(alpha) (log(1/alpha)/2) gives 0.38, above alpha."""
    alpha = 0.2
    below, above = _leaving_counts(p, alpha)
    assert alpha / 2 <= _exact_leaving_probability(p, below, above) <= alpha


# -- Holm -------------------------------------------------------------------------------------------


def test_holm_family_wise_error_is_exactly_alpha_on_its_worst_laws():
    """Two laws where Holm's family-wise error is exactly alpha = 0.05 (m = 10), 2,000 draws each, checked
    on both sides (false-failure rate 1e-7 each):
    all nulls true, p_i = (U + i/m) mod 1 (uniform, rejection regions disjoint): error P(min p <= alpha/m)
    = alpha; testing every p at alpha gives m alpha = 0.5.
    nine false nulls (p = 1e-12) and one true: step-down tests the true one at alpha / 1, error alpha;
    Bonferroni (alpha/m for all) gives alpha / m = 0.005."""
    rng = np.random.default_rng(8)
    alpha, m = 0.05, 10
    lo, hi = window(REPS, alpha, 1e-7)
    disjoint = (rng.random(REPS)[:, None] + np.arange(m) / m) % 1.0
    assert lo <= sum(holm(row, alpha).any() for row in disjoint) <= hi
    one_true = np.column_stack([np.full((REPS, m - 1), 1e-12), rng.random(REPS)])
    rejected = np.array([holm(row, alpha) for row in one_true])
    assert rejected[:, :-1].all()
    assert lo <= np.count_nonzero(rejected[:, -1]) <= hi


def test_holm_stops_at_the_first_hypothesis_it_keeps():
    """Step-down: p = (0.001, 0.03, 0.04) at alpha = 0.05 against thresholds 0.0167, 0.025, 0.05: only
    the first is rejected, though the third is below its own threshold."""
    assert holm([0.04, 0.001, 0.03], 0.05).tolist() == [False, True, False]
    assert holm(np.array([[0.001, 0.012], [0.013, 0.9]]), 0.05).tolist() == [[True, True], [True, False]]


# -- the ratio certifiers ---------------------------------------------------------------------------


def _renyi(order, p, q):
    """D_order(Ber(p) || Ber(q)) from its definition, in logs (0 log 0 = 0; order = inf is the largest
    log-ratio); ``order`` may be an array of finite orders."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio_one, log_ratio_zero = np.log(p) - np.log(q), np.log1p(-p) - np.log1p(-q)
        if np.ndim(order) == 0 and math.isinf(order):
            return np.maximum(np.maximum(np.where(p > 0, log_ratio_one, -np.inf),
                                         np.where(p < 1, log_ratio_zero, -np.inf)), 0.0)
        one = np.where(p > 0, order * np.log(p) + (1 - order) * np.log(q), -np.inf)
        zero = np.where(p < 1, order * np.log1p(-p) + (1 - order) * np.log1p(-q), -np.inf)
        return np.maximum(np.logaddexp(one, zero) / (order - 1), 0.0)


def _true_value(claim, p: float, q: float) -> float:
    """The claim's parameter for the event of probability p under d_num and q under d_den."""
    if isinstance(claim, PureDP):
        return 0.0 if p == 0 else math.inf if q == 0 else max(math.log(p) - math.log(q), 0.0)
    if isinstance(claim, ApproxDP):
        return max(p - math.exp(claim.epsilon) * q, 0.0)
    if isinstance(claim, RenyiDP):
        return {order: float(_renyi(order, p, q)) for order, _ in claim.points}
    # sup over orders of D / order, on a grid far denser than the certifier's
    orders = np.concatenate([1 + np.geomspace(1e-6, 1e5, 4_000), RHO_ORDERS])
    return float(np.max(_renyi(orders, p, q) / orders))


CLAIMS = [PureDP(1.0), ApproxDP(0.0, 0.1), ApproxDP(1.0, 0.1), RenyiDP((2.0, 10.0, math.inf), (0.1, 0.1, 0.1)),
          ZCDP(0.1)]
# (p, q): a certain event on one side, tiny and near-certain probabilities, equal probabilities (truth 0)
RATIO_LAWS = [(1.0, 0.5), (1.0, 0.999), (0.5, 0.25), (0.5, 0.5), (0.01, 1e-3), (1e-3, 1e-4), (0.999, 0.99),
              (0.3, 0.0)]


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.kind)
def test_certified_bounds_hold_with_probability_one_minus_alpha(claim):
    """The certified lower bound exceeds the true value of the event's pure epsilon, delta(eps), Renyi
    divergence or rho at most alpha = 0.05 often, for counts Binomial(n, p) and Binomial(n, q), n from 2
    to 10^4, 2,000 draws per law (false-failure rate P(Binomial(2000, 0.05) > k) <= 1e-8 per law: below
    2e-6 for the 184 laws). zCDP runs on three of the five n (its certificate takes 200 orders; its box
    is the Renyi claim's, checked at all five)."""
    rng = np.random.default_rng(9)
    alpha = 0.05
    for n in (2, 100, 10_000) if isinstance(claim, ZCDP) else (2, 10, 100, 1_000, 10_000):
        for p, q in RATIO_LAWS:
            bound = certify(claim, rng.binomial(n, p, REPS), rng.binomial(n, q, REPS), n, alpha)
            true = _true_value(claim, p, q)
            if isinstance(claim, RenyiDP):  # the value reported is at the order of largest excess
                true = np.vectorize(true.get)(bound.detail["alpha"])
            misses = np.count_nonzero(bound.value > true * (1 + 1e-9) + 1e-12)
            assert misses <= at_most(REPS, alpha, 1e-8), (n, p, q)


def _sharp_law(claim, edge: str, n: int, k: int, alpha: float) -> tuple[float, float, float]:
    """(p, q, exact miss rate) of an edge law on which the certificate exceeds the truth exactly when one
    count passes k: the certain side's count is fixed, so is its Clopper-Pearson bound (``fixed`` below, or
    1 - it), and the other side's probability is placed just inside the exact bound of k counts.

    - p = 1 (pure DP, approximate DP, D_inf): missed when the denominator's q_hi falls below q p_lo
      (approximate DP: below q - (1 - p_lo) e^-eps), i.e. when its count is <= k;
    - q = 0 (approximate DP): missed when p_lo exceeds p + e^eps q_hi, i.e. when the numerator's count is >= k;
    - p = 0 (D_inf, the box's other side): missed when 1 - q_lo falls below (1 - p_hi)(1 - q), i.e. when the
      denominator's count is >= k."""
    tail = alpha / 4 if isinstance(claim, RenyiDP) else alpha / 2  # the box is two-sided for Renyi claims
    fixed = tail ** (1 / n)  # the lower bound of n out of n (and 1 - the upper bound of 0 out of n)
    upper_k = stats.beta.isf(tail, k + 1, n - k) * (1 + 1e-9)
    lower_k = stats.beta.ppf(tail, k, n - k + 1) * (1 - 1e-9)
    if edge == "p=1":
        q = upper_k + (1 - fixed) * math.exp(-claim.epsilon) if isinstance(claim, ApproxDP) else upper_k / fixed
        return 1.0, q, stats.binom.cdf(k, n, q)
    if edge == "q=0":
        p = lower_k - math.exp(claim.epsilon) * (1 - fixed)
        return p, 0.0, stats.binom.sf(k - 1, n, p)
    q = 1 - (1 - lower_k) / fixed
    return 0.0, q, stats.binom.sf(k - 1, n, q)


SHARP_LAWS = [(PureDP(1.0), "p=1"), (ApproxDP(0.5, 0.1), "p=1"), (ApproxDP(0.5, 0.1), "q=0"),
              (RenyiDP(math.inf, 1.0), "p=1"), (RenyiDP(math.inf, 1.0), "p=0")]


@pytest.mark.parametrize(("n", "k"), [(100, 50), (10_000, 100), (10_000, 5_000)])
@pytest.mark.parametrize(("claim", "edge"), SHARP_LAWS, ids=[f"{c.kind}-{e}" for c, e in SHARP_LAWS])
def test_certified_bounds_spend_their_whole_level(claim, edge, n, k):
    """Sharpness, on the edge laws of _sharp_law: the miss rate is one Clopper-Pearson tail, about alpha/2
    = 0.2 at alpha = 0.4 for the one-sided certificates (alpha/4 = 0.1 per tail of a Renyi claim's box),
    computed exactly; a certifier that spent alpha/4 per side, or alpha, would miss about half or twice as
    often. 20,000 draws, false-failure rate 1e-7 per check (1.5e-6 for the 15)."""
    rng = np.random.default_rng(10_000 + n + k)
    alpha = 0.4
    p, q, reference = _sharp_law(claim, edge, n, k, alpha)
    bound = certify(claim, rng.binomial(n, p, SHARP_REPS), rng.binomial(n, q, SHARP_REPS), n, alpha)
    true = _true_value(claim, p, q)
    true = true[math.inf] if isinstance(claim, RenyiDP) else true
    lo, hi = window(SHARP_REPS, reference, 1e-7)
    assert lo <= np.count_nonzero(bound.value > true) <= hi, reference


CERTIFIED = [PureDP(1.0), ApproxDP(0.7, 0.1), RenyiDP((1.5, 4.0), (0.2, 0.5)), ZCDP(0.05)]


def _clopper_pearson_ends(k_num, k_den, n, tail):
    """([p_lo, q_lo], [p_hi, q_hi]): exact Clopper-Pearson ends at ``tail`` per end, from scipy's beta
    quantiles (0 and 1 where the count is 0 or n)."""
    with np.errstate(invalid="ignore"):
        lo = [np.where(k == 0, 0.0, stats.beta.ppf(tail, k, n - k + 1)) for k in (k_num, k_den)]
        hi = [np.where(k == n, 1.0, stats.beta.isf(tail, k + 1, n - k)) for k in (k_num, k_den)]
    return lo, hi


def _nearest_corner(lo, hi):
    """The box's corner nearest the diagonal where the p and q intervals are apart (p above or below q),
    and (1/2, 1/2) where they overlap: (above, below, p, q)."""
    above, below = lo[0] > hi[1], hi[0] < lo[1]
    p = np.where(above, lo[0], np.where(below, hi[0], 0.5))
    q = np.where(above, hi[1], np.where(below, lo[1], 0.5))
    return above, below, p, q


@pytest.mark.parametrize("claim", CERTIFIED, ids=lambda c: c.kind)
def test_certificates_are_the_claims_value_at_the_clopper_pearson_box(claim):
    """Sharpness where no law isolates one tail (finite Renyi orders, rho), and for every side of the box:
    the box is the exact Clopper-Pearson bound at alpha/2 per side (one-sided: pure and approximate DP) or
    alpha/4 per tail (two-sided: Renyi DP, zCDP), from scipy's beta quantiles, and the certificate is
    log(p_lo / q_hi), p_lo - e^eps q_hi, or the divergence at the box's corner nearest the diagonal (written
    out here), to 1e-9; the same counts at another split, or another corner, give other values.
    Deterministic."""
    n, alpha = 1_000, 0.05
    k_num = np.array([0, 30, 40, 500, 900, 1000, 700, 1000])
    k_den = np.array([0, 0, 10, 520, 990, 1000, 20, 900])
    bound = certify(claim, k_num, k_den, n, alpha)
    two_sided = isinstance(claim, (RenyiDP, ZCDP))
    lo, hi = _clopper_pearson_ends(k_num, k_den, n, alpha / 4 if two_sided else alpha / 2)
    box = (lo[0], hi[0], lo[1], hi[1]) if two_sided else (lo[0], None, None, hi[1])
    for got, want in zip(bound.intervals, box):
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)
    if isinstance(claim, PureDP):
        with np.errstate(divide="ignore"):
            want = np.maximum(np.log(lo[0]) - np.log(hi[1]), 0.0)
    elif isinstance(claim, ApproxDP):
        want = np.maximum(lo[0] - math.exp(claim.epsilon) * hi[1], 0.0)
    else:
        above, below, p, q = _nearest_corner(lo, hi)
        if isinstance(claim, RenyiDP):
            want = np.array([_renyi(a, pi, qi) for a, pi, qi in zip(bound.detail["alpha"], p, q)])
        else:
            want = np.max(_renyi(RHO_ORDERS[:, None], p, q) / RHO_ORDERS[:, None], axis=0)
        want = np.where(above | below, want, 0.0)
        assert (above | below).sum() == 5  # the cases whose boxes are apart, in both directions
    np.testing.assert_allclose(bound.value, want, rtol=1e-9, atol=1e-15)
    assert np.count_nonzero(bound.value) >= 2  # not all zero: the values are compared where they matter


@pytest.mark.parametrize("claim", CERTIFIED, ids=lambda c: c.kind)
def test_a_certificate_carries_its_parameter_name_point_estimate_and_excess_over_the_claim(claim):
    """Beside the certified value, the bound names its parameter and gives the plug-in estimate at the
    empirical frequencies p = k_num / n, q = k_den / n, written out here: log(p / q) where p > 0 (0 where
    the event never occurs under d_num, +inf where it occurs only there), p - e^eps q, the Renyi divergence
    of the two Bernoullis at the order whose certified value exceeds the claim most, and the largest
    D_a / a over the rho orders; the excess is the certified value minus the claim at that order. The
    counts cover p = 0, q = 0, both 0 and both n, and orders of the Renyi claim that win by turns."""
    n, alpha = 1_000, 0.05
    k_num = np.array([0, 30, 40, 500, 900, 1000, 700, 1000, 0])
    k_den = np.array([0, 0, 10, 520, 990, 1000, 20, 900, 7])
    bound = certify(claim, k_num, k_den, n, alpha)
    p, q = k_num / n, k_den / n
    with np.errstate(divide="ignore", invalid="ignore"):
        if isinstance(claim, PureDP):
            name, estimate, excess = "epsilon", np.where(p > 0, np.log(p) - np.log(q), 0.0), bound.value - 1.0
            assert estimate[1] == math.inf and estimate[0] == estimate[8] == 0.0 and estimate[3] < 0
        elif isinstance(claim, ApproxDP):
            name, estimate, excess = "delta", p - math.exp(0.7) * q, bound.value - 0.1
        elif isinstance(claim, RenyiDP):
            orders = np.asarray(bound.detail["alpha"])
            assert set(orders) == {1.5, 4.0}    # each order wins somewhere
            eps = np.where(orders == 1.5, 0.2, 0.5)
            name, estimate, excess = "renyi", np.array([_renyi(a, pi, qi) for a, pi, qi in zip(orders, p, q)]), \
                bound.value - eps
            other = np.where(orders == 1.5, 4.0, 1.5)
            lower_other = np.array([float(certify(RenyiDP((a,), (e,)), kn, kd, n, alpha).value)
                                    for a, e, kn, kd in zip(other, np.where(other == 1.5, 0.2, 0.5), k_num, k_den)])
            assert (excess >= lower_other - np.where(other == 1.5, 0.2, 0.5)).all()
        else:
            name = "rho"
            estimate = np.max(_renyi(RHO_ORDERS[:, None], p, q) / RHO_ORDERS[:, None], axis=0)
            excess = bound.value - 0.05
            above, below, corner_p, corner_q = _nearest_corner(*_clopper_pearson_ends(k_num, k_den, n, alpha / 4))
            at = np.where(above | below, _renyi(RHO_ORDERS[:, None], corner_p, corner_q), 0.0) / RHO_ORDERS[:, None]
            best = RHO_ORDERS[np.argmax(at, axis=0)]
            decided = above | below   # where the box is apart the largest ratio is at one order, to rounding
            np.testing.assert_allclose(np.asarray(bound.detail["alpha"])[decided], best[decided], rtol=0.05)
            assert np.asarray(bound.detail["alpha"]).shape == k_num.shape
    assert bound.name == name
    np.testing.assert_allclose(bound.estimate, estimate, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(bound.excess, excess, rtol=0, atol=0)


def test_sequential_certificates_hold_and_are_the_confidence_sequences_at_alpha_over_two():
    """The sequential certifier's box is the confidence sequence at alpha/2 per side (each an anytime-valid
    interval), and its pure-DP bound exceeds the truth at most alpha = 0.05 often over 2,000 draws
    (n = 1000, p = 0.5, q = 0.002; few distinct counts, so each box is computed once; false-failure rate
    P(Binomial(2000, 0.05) > k) <= 1e-8)."""
    rng = np.random.default_rng(11)
    n, alpha, p, q = 1_000, 0.05, 0.5, 0.002
    draws = np.column_stack([rng.binomial(n, p, REPS), rng.binomial(n, q, REPS)])
    pairs, index = np.unique(draws, axis=0, return_inverse=True)
    values = []
    for k_num, k_den in pairs:
        bound = certify(PureDP(1.0), k_num, k_den, n, alpha, sequential=True)
        expected = [end for k in (k_num, k_den) for end in binomial_confidence_sequence(int(k), n, alpha / 2)]
        assert list(bound.intervals) == pytest.approx(expected, rel=1e-12, abs=1e-300)
        values.append(float(bound.value))
    misses = np.array(values)[index.ravel()] > math.log(p / q) + 1e-12
    assert np.count_nonzero(misses) <= at_most(REPS, alpha, 1e-8)


def test_a_bounded_mean_p_value_is_a_probability_even_for_a_tiny_excess():
    """Hoeffding's 2 exp(-2 n e^2) and Bernstein's 4 exp(-u^2) exceed 1 for a small excess e: the
    p-value is capped at 1 there (and is 1 where the sample mean does not exceed the threshold)."""
    from dpaudit.stats import bounded_mean_pvalue

    rng = np.random.default_rng(5)
    z = rng.uniform(0, 1, (50, 4))
    thresholds = z.mean(axis=0) - np.array([1e-6, 1e-3, 0.0, -0.1])
    p = bounded_mean_pvalue(z, thresholds)
    assert p.tolist() == [1.0, 1.0, 1.0, 1.0]
    strong = bounded_mean_pvalue(z, z.mean(axis=0) - 0.4)
    assert ((0 < strong) & (strong < 1e-3)).all()


# -- the ratio certifiers at the edges of the unit square: closed forms --------------------------------

LOG2, LOG4 = math.log(2.0), math.log(4.0)


@pytest.mark.parametrize("order", (1.5, 2.0, 10.0, math.inf))
def test_bernoulli_renyi_is_the_closed_form_at_the_edges_of_the_square(order):
    """D_order(Ber(p) || Ber(q)) = log(sum over outcomes with P > 0 of P^order Q^(1 - order)) / (order - 1),
    and at order inf the largest log(P / Q) over those outcomes. At the edges, by hand: equal point masses
    (p = q = 0, p = q = 1) are at divergence 0 at every order (0 log 0 = 0: the outcome P never gives does
    not count); a point mass against Ber(q) is log(1 / Q(its outcome)) at every order, so Ber(0) || Ber(1/2)
    is log 2 and Ber(1) || Ber(1/4) is log 4; mass where Q has none is infinite. Inside:
    D_2(Ber(1/2) || Ber(1/4)) = log(1/4 / (1/4) + 1/4 / (3/4)) = log(4/3), D_inf = log((1/2) / (1/4)) = log 2.
    Deterministic."""
    from dpaudit.auditors.bounds import bernoulli_renyi

    p = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.5, 0.0]
    q = [0.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.0, 0.75]
    want = [0.0, 0.0, LOG2, LOG4, math.inf, math.inf, math.inf, math.log(4.0)]
    got = bernoulli_renyi(order, p, q)
    assert got.tolist() == pytest.approx(want, rel=1e-14, abs=0.0)
    inside = float(bernoulli_renyi(order, 0.5, 0.25))
    if order == 2.0:
        assert inside == pytest.approx(math.log(4 / 3), rel=1e-14)
    if order == math.inf:
        assert inside == pytest.approx(LOG2, rel=1e-14)


def test_bernoulli_renyi_takes_exact_rational_probabilities():
    """Probabilities given as fractions.Fraction are the floats they stand for:
    D_2(Ber(1/2) || Ber(1/4)) = log(4/3) and D_inf(Ber(3/4) || Ber(1/2)) = log(3/2), by hand. Deterministic."""
    from fractions import Fraction

    from dpaudit.auditors.bounds import bernoulli_renyi

    assert float(bernoulli_renyi(2.0, Fraction(1, 2), Fraction(1, 4))) == pytest.approx(math.log(4 / 3), rel=1e-14)
    assert float(bernoulli_renyi(math.inf, Fraction(3, 4), Fraction(1, 2))) == pytest.approx(math.log(1.5), rel=1e-14)
    got = bernoulli_renyi(2.0, [Fraction(1, 2), Fraction(0)], [Fraction(1, 4), Fraction(1, 2)])
    assert got.tolist() == pytest.approx([math.log(4 / 3), LOG2], rel=1e-14)


@pytest.mark.parametrize("order", (1.5, 2.0, 3.0, 10.0))
@pytest.mark.parametrize("x", (0.25, 0.4))
def test_renyi_lower_is_exactly_zero_when_the_intervals_touch(order, x):
    """The box [p_lo, p_hi] x [q_lo, q_hi] holds a point of the diagonal p = q, where the divergence is 0,
    as soon as the intervals share one point: the minimum is then exactly 0 (not D(Ber(x) || Ber(x))
    computed in floats, which is about 1e-16 at these x and orders: a positive certificate that would
    refute a claim of epsilon = 0). Apart by one ulp the minimum is the corner's divergence. Deterministic."""
    from dpaudit.auditors.bounds import bernoulli_renyi, renyi_lower

    # touching from above (p_lo = q_hi) and from below (p_hi = q_lo)
    assert float(renyi_lower(order, x, x + 0.1, x - 0.1, x)) == 0.0
    assert float(renyi_lower(order, x - 0.1, x, x, x + 0.1)) == 0.0
    apart = np.nextafter(x, 1.0)
    assert float(renyi_lower(order, apart, x + 0.1, x - 0.1, x)) == float(bernoulli_renyi(order, apart, x))
    # well apart: the corner nearest the diagonal, D_2(Ber(1/2) || Ber(1/4)) = log(4/3) at order 2
    assert float(renyi_lower(2.0, 0.5, 0.6, 0.2, 0.25)) == pytest.approx(math.log(4 / 3), rel=1e-14)
    assert float(renyi_lower(2.0, 0.2, 0.25, 0.5, 0.6)) == pytest.approx(float(bernoulli_renyi(2.0, 0.25, 0.5)),
                                                                         rel=1e-14)


def test_the_d_inf_estimate_of_an_event_equally_frequent_on_both_sides_at_an_edge_is_zero():
    """certify's point estimate of a Renyi claim is D(Ber(p_hat) || Ber(q_hat)): for an event seen in none
    (or all) of the outputs on both sides the empirical laws are equal, so the estimate is 0 at every order,
    order inf included (it used to be reported as infinite there); 50 vs 25 of 100 gives
    D_inf = log((1/2) / (1/4)) = log 2. Deterministic."""
    for claim in (RenyiDP(math.inf, 1.0), RenyiDP(2.0, 1.0)):
        bound = certify(claim, np.array([0, 100, 50]), np.array([0, 100, 25]), 100, 0.05)
        want = [0.0, 0.0, LOG2 if claim.alpha == math.inf else math.log(4 / 3)]
        assert bound.estimate.tolist() == pytest.approx(want, rel=1e-14, abs=0.0)
        assert bound.value[:2].tolist() == [0.0, 0.0]


def test_certify_rejects_a_claim_no_ratio_bound_decides_with_its_message():
    """The ratio certifier bounds pure, approximate, Renyi and zero-concentrated DP only: any other claim
    is an UnsupportedAudit naming the claim's kind, not a silent or internal error. Deterministic."""
    from dpaudit.core.claims import Conforms
    from dpaudit.core.errors import UnsupportedAudit

    with pytest.raises(UnsupportedAudit) as raised:
        certify(Conforms("Uniform(0, 1)"), np.array([3]), np.array([1]), 10, 0.05)
    assert str(raised.value) == ("black-box audits test pure, approximate, Renyi and zero-concentrated DP; "
                                 "got a conformance claim")


# -- exact values and edge cases: the confidence sequence -------------------------------------------


def _confidence_sequence_ends(k: int, n: int, alpha: float) -> tuple[float, float]:
    """The ends of the confidence sequence as its docstring defines it, in mpmath at 40 digits: the p below and
    above k/n where the log of Robbins' mixture martingale (prior Beta(1/2, 1/2)),
    log B(1/2 + k, 1/2 + n - k) - log B(1/2, 1/2) - k log p - (n - k) log(1 - p), reaches log(1/alpha); 0 where
    k = 0 and 1 where k = n. Each end is a root in log p (in log(1 - p) for the upper end, by the symmetry
    p <-> 1 - p, k <-> n - k), bracketed between log(1e-300) and log(k/n)."""
    import mpmath

    with mpmath.workdps(40):
        half = mpmath.mpf(1) / 2
        log_level = mpmath.log(mpmath.beta(half + k, half + n - k) / mpmath.beta(half, half)) + mpmath.log(alpha)

        def crossing(successes: int, failures: int):
            def excess(u):  # log martingale - log(1/alpha) at p = e^u
                return log_level - successes * u - (failures * mpmath.log1p(-mpmath.exp(u)) if failures else 0)

            bracket = (mpmath.log(mpmath.mpf(10) ** -300), mpmath.log(mpmath.mpf(successes) / n))
            return mpmath.exp(mpmath.findroot(excess, bracket, solver="anderson"))

        lo = 0 if k == 0 else crossing(k, n - k)
        hi = 1 if k == n else 1 - crossing(n - k, k)
        return float(lo), float(hi)


@pytest.mark.parametrize("alpha", (0.5, 0.05, 1e-9, 1e-12, 1e-305))
def test_after_one_trial_the_confidence_sequence_stops_alpha_over_two_from_the_far_end(alpha):
    """After one trial Robbins' martingale is B(3/2, 1/2) / B(1/2, 1/2) / p = 1 / (2p) after a success and
    1 / (2 (1 - p)) after a failure, so the sets where it stays below 1/alpha are [alpha/2, 1] and
    [0, 1 - alpha/2] (by hand). The ends are rounded outward, by at most 2e-15 + 2e-12 of the end (brentq's
    tolerance, stepped over), and the end at the observed side is exactly 1 (or 0), never beyond; at
    alpha = 1e-305 the end alpha/2 lies below 1e-300, where the search starts, and the valid bound 0 is
    returned. Before any trial the interval is all of [0, 1]. Deterministic."""
    assert binomial_confidence_sequence(0, 0, alpha) == (0.0, 1.0)
    lo, hi = binomial_confidence_sequence(1, 1, alpha)
    assert hi == 1.0
    assert lo <= alpha / 2 <= lo + 2.1e-15 + 2.1e-12 * alpha / 2
    lo, hi = binomial_confidence_sequence(0, 1, alpha)
    assert lo == 0.0
    assert hi - 2.1e-15 - 2.1e-12 <= 1 - alpha / 2 <= hi <= 1.0


CS_CASES = [(3, 10, 0.05), (1, 2, 0.05), (50, 100, 0.01), (5_000, 10_000, 0.05), (7, 1_000, 0.1),
            (999, 1_000, 1e-6), (5, 10**6, 1e-3), (10**6 - 3, 10**6, 0.2), (0, 10**6, 0.05), (0, 10**14, 0.05),
            (2, 10**13, 0.3)]


@pytest.mark.parametrize(("k", "n", "alpha"), CS_CASES)
def test_confidence_sequence_ends_are_where_the_mixture_martingale_reaches_one_over_alpha(k, n, alpha):
    """Both ends against the definition recomputed in mpmath (_confidence_sequence_ends, the default prior
    Beta(1/2, 1/2)): each lies outside the exact end (the interval is never narrower than the set it stands
    for, which its anytime validity needs) and within 2e-15 + 2e-12 of it (brentq's tolerance, stepped over).
    Ends from 2e-17 to 1 - 6e-8, n up to 10^14, alpha from 1e-6 to 0.3. Deterministic."""
    exact_lo, exact_hi = _confidence_sequence_ends(k, n, alpha)
    lo, hi = binomial_confidence_sequence(k, n, alpha)
    assert lo <= exact_lo <= lo + 2.1e-15 + 2.1e-12 * exact_lo, (lo, exact_lo)
    assert hi - 2.1e-15 - 2.1e-12 * exact_hi <= exact_hi <= hi, (hi, exact_hi)


# -- exact values and edge cases: the bounded-mean bound --------------------------------------------


def _bounded_mean_lower_by_hand(values, level: float) -> float:
    """bounded_mean_lower of one column as its docstring states it, in Python floats: the larger of Hoeffding's
    mean - sqrt(log(2/level) / 2n) and Maurer & Pontil's mean - sqrt(2 V log(4/level) / n) - 7 log(4/level) /
    (3 (n - 1)), V the unbiased sample variance."""
    n = len(values)
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    hoeffding = mean - math.sqrt(math.log(2 / level) / (2 * n))
    bernstein = mean - math.sqrt(2 * var * math.log(4 / level) / n) - 7 * math.log(4 / level) / (3 * (n - 1))
    return max(hoeffding, bernstein)


def test_a_single_precision_sample_gets_the_double_precision_bound_of_its_values():
    """Samples in float32 are bounded at the values they hold, in double precision: 0.9f three times and 0.3f
    have the mean 0.7499999851..., which float32 arithmetic rounds to 0.75 (Hoeffding's bound binds at n = 4);
    200 values in [0.8, 0.9] (Bernstein's bound binds) have a mean and variance float32 sums get wrong in the
    8th digit. Both against the hand computation on the float32 values, to 1e-13. Deterministic."""
    small = np.array([[0.9, 0.6], [0.9, 0.7], [0.9, 0.8], [0.3, 0.1]], dtype=np.float32)
    large = np.random.default_rng(12).uniform(0.8, 0.9, (200, 2)).astype(np.float32)
    for z, binding in ((small, False), (large, True)):
        lower, bernstein_used = bounded_mean_lower(z, 0.05)
        want = [_bounded_mean_lower_by_hand([float(v) for v in z[:, j]], 0.05) for j in range(2)]
        assert lower.dtype == np.float64
        assert lower.tolist() == pytest.approx(want, rel=1e-13, abs=1e-15)
        assert bernstein_used.tolist() == [binding, binding]


def test_one_row_gives_hoeffdings_bound_and_a_boolean_mask_of_the_columns():
    """With one row (n = 1) only Hoeffding's bound exists (Maurer & Pontil's needs n >= 2): the value minus
    sqrt(log(2/level) / 2) in each column, by hand. The second result is still one boolean per column (all
    False: Bernstein's is not used), so it selects columns as a mask, as at every other n. Deterministic."""
    z = np.array([[0.2, 0.9, 1.0]])
    lower, bernstein_used = bounded_mean_lower(z, 0.1)
    radius = math.sqrt(math.log(20) / 2)
    assert lower.tolist() == pytest.approx([0.2 - radius, 0.9 - radius, 1.0 - radius], rel=1e-15, abs=1e-15)
    assert bernstein_used.dtype == bool
    assert bernstein_used.shape == (3,)
    assert lower[~bernstein_used].tolist() == lower.tolist()


def test_bernstein_is_reported_used_only_where_it_is_strictly_the_larger_bound():
    """The flag marks where the empirical Bernstein bound is the larger, the one used: where the two bounds
    are the same float, the bound is Hoeffding's and the flag is False. Samples {0, 2s} (n = 100, level
    0.05) with s stepped by one part in 2^52 across the spread where the two bounds cross, so some of the
    401 columns put them at the same float (the documented formulas, computed here, find them).
    Deterministic."""
    n, level = 100, 0.05
    d = level / 2
    radius = math.sqrt(math.log(1 / d) / (2 * n))
    log_term = math.log(2 / d)
    crossing = (radius - 7 * log_term / (3 * (n - 1))) / math.sqrt(2 * log_term / (n - 1))
    s = crossing * (1 + np.arange(-200, 201) * 2.0**-52)
    z = (np.arange(n)[:, None] % 2) * 2 * s[None, :]
    lower, bernstein_used = bounded_mean_lower(z, level)
    mean = z.mean(axis=0)
    hoeffding = mean - radius
    bernstein = mean - np.sqrt(2 * z.var(axis=0, ddof=1) * log_term / n) - 7 * log_term / (3 * (n - 1))
    tie = bernstein == hoeffding
    assert tie.any() and (bernstein > hoeffding).any() and (bernstein < hoeffding).any()
    assert np.array_equal(bernstein_used, bernstein > hoeffding)
    assert np.array_equal(lower, np.maximum(bernstein, hoeffding))
    assert not bernstein_used[tie].any()


# -- exact values and edge cases: Holm --------------------------------------------------------------

# p-values at Holm's thresholds alpha / (m - i) exactly (binary fractions, so no rounding: dividing alpha and
# multiplying p agree), and one ulp above them
HOLM_EDGES = [([0.025, 0.05], 0.05), ([0.05, 0.025], 0.05), ([0.0625, 0.125, 0.25], 0.25),
              ([0.125, 0.125], 0.25), ([0.125, 0.125, 0.125], 0.375), ([0.0625, 0.0625, 0.25], 0.25),
              ([np.nextafter(0.125, 1.0), 0.25], 0.25), ([0.125, np.nextafter(0.25, 1.0)], 0.25)]


@pytest.mark.parametrize(("pvalues", "alpha"), HOLM_EDGES)
def test_holm_rejects_a_p_value_equal_to_its_threshold_as_statsmodels_does(pvalues, alpha):
    """Holm rejects p_(i) <= alpha / (m - i): a p-value exactly at its threshold is rejected, one ulp above is
    kept (and stops the procedure), the decisions of statsmodels' multipletests(method="holm") (reject where
    the adjusted p-value max_j<=i (m - j) p_(j) <= alpha). Deterministic."""
    from statsmodels.stats.multitest import multipletests

    want = multipletests(np.array(pvalues), alpha=alpha, method="holm")[0]
    assert holm(pvalues, alpha).tolist() == want.tolist()


def test_holm_rejects_at_the_thresholds_by_hand():
    """The edge cases above by hand: (0.025, 0.05) against thresholds (0.025, 0.05) are both rejected; with the
    smaller one ulp above 0.125 = 0.25 / 2 nothing is. Deterministic."""
    assert holm([0.05, 0.025], 0.05).tolist() == [True, True]
    assert holm([0.0625, 0.125, 0.25], 0.25).tolist() == [True, True, True]
    assert holm([np.nextafter(0.125, 1.0), 0.25], 0.25).tolist() == [False, False]


def test_holm_decisions_are_a_boolean_mask_of_the_p_values_shape():
    """The decisions have the shape of the p-values and are booleans, so they select the rejected p-values:
    m = 4 thresholds (0.0125, 0.0167, 0.025, 0.05) reject 0.001 and 0.01 and stop at 0.04. Deterministic."""
    p = np.array([[0.001, 0.2], [0.01, 0.04]])
    rejected = holm(p, 0.05)
    assert rejected.dtype == bool
    assert rejected.shape == (2, 2)
    assert p[rejected].tolist() == [0.001, 0.01]
    assert holm([0.3], 0.05).dtype == bool


def test_holm_treats_a_missing_p_value_as_one_that_is_never_rejected():
    """A p-value given as None or NaN (a test that could not be run) is never rejected and still counts among
    the m hypotheses, so the others meet the thresholds they would with p = 1 in its place: the decisions of
    statsmodels' multipletests(method="holm") on that substitute (statsmodels itself mishandles NaN: it
    rejects it). Deterministic."""
    from statsmodels.stats.multitest import multipletests

    for pvalues in ([0.001, None, 0.02], [0.001, math.nan, 0.02], [None, 0.012, 0.03, 0.004]):
        substitute = [1.0 if v is None or v != v else v for v in pvalues]
        want = multipletests(np.array(substitute), alpha=0.05, method="holm")[0]
        assert holm(pvalues, 0.05).tolist() == want.tolist()
    assert holm([0.001, None, 0.02], 0.05).tolist() == [True, False, True]


def test_a_one_order_renyi_certificate_names_its_order_for_every_candidate_event():
    """Vectorised over candidate events: with one order, the order reported is an array of that order,
    one per event, as with several."""
    bound = certify(RenyiDP((2.0,), (0.3,)), np.array([10, 500, 900]), np.array([400, 500, 100]), 1_000, 0.05)
    assert np.shape(bound.detail["alpha"]) == (3,)
    np.testing.assert_array_equal(bound.detail["alpha"], [2.0, 2.0, 2.0])


def test_among_orders_whose_excess_ties_the_first_named_is_reported():
    """Where the boxes overlap every order certifies 0, so orders with the same claimed epsilon tie: the
    first order of the claim is reported, with its plug-in estimate."""
    k_num, k_den, n = np.array([500, 502]), np.array([500, 498]), 1_000
    for orders in ((1.5, 4.0), (4.0, 1.5)):
        bound = certify(RenyiDP(orders, (0.5, 0.5)), k_num, k_den, n, 0.05)
        np.testing.assert_array_equal(bound.value, [0.0, 0.0])
        np.testing.assert_array_equal(bound.detail["alpha"], [orders[0]] * 2)
        np.testing.assert_allclose(bound.estimate, _renyi(orders[0], k_num / n, k_den / n), rtol=1e-9, atol=1e-15)
