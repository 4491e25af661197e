"""concurrent-shuffle's Algorithm 1 schedules (mechanisms/counters/concurrent_shuffle.py): fast and per-user
paths with the same law, the schedules' parameters recomputed from the paper's formulas, Definition
3.1's V^t on Figure 2, the naive variants' errors, the privacy of the compositions (and a
miscalibrated one caught), the proof steps behind the suite's accuracy entries, and clear errors
outside the protocols' ranges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit import ApproxDP, SubGaussian, TailBound
from dpaudit.core.domains import Datasets
from dpaudit.core.neighbours import ReplaceOne
from dpaudit.mechanisms.accounting import advanced_composition_budget
from dpaudit.mechanisms.counters.concurrent_shuffle import (
    Batch,
    ConcurrentShuffleCounter,
    VectorConcurrentTree,
    theorem_3_2_alpha,
    theorem_3_2_step,
    variance_bound,
)
from dpaudit.mechanisms.counters.concurrent_tree import ConcurrentShuffleTree
from dpaudit.mechanisms.noise import Binomial, FiniteIntegerLaw

EPS, DELTA = 0.9, 1e-3


def fewest_coins(eps: float, delta: float) -> int:
    """The smallest N with sum_y max(0, P(y) - e^eps P(y - 1)) <= delta, P = Bin(N, 1/2), from pmf values
    (not the module's log-space profile); the profile decreases in N, so bisection finds it."""

    def profile(n: int) -> float:
        y = np.arange(n + 2)
        return np.maximum(stats.binom.pmf(y, n, 0.5) - math.exp(eps) * stats.binom.pmf(y - 1, n, 0.5), 0).sum()

    hi = 1
    while profile(hi) > delta:
        hi *= 2
    lo = hi // 2  # profile(lo) > delta, or lo = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if profile(mid) > delta else (lo, mid)
    return hi


@pytest.mark.parametrize("schedule", [
    lambda: ConcurrentShuffleCounter.sequential(6, 3, EPS, DELTA),
    lambda: ConcurrentShuffleCounter.binary_tree(8, EPS, DELTA),
    lambda: ConcurrentShuffleCounter.tree(8, 1, EPS, DELTA, 4, 2),
])
def test_fast_and_per_user_paths_have_the_exact_law(schedule):
    """Each batch's count, and the total of all counts (their convolution), against the exact laws,
    for both paths (conformance, false-failure rate 1e-6 per audit)."""
    counter = schedule()
    x = np.array([1, 0, 1, 1, 0, 1, 0, 1][: counter.n])
    law = counter.distribution(x)
    total = sum(counter.batch_sums(x))
    total_law = FiniteIntegerLaw(int(total),
                                 stats.binom.pmf(np.arange(counter.coins.sum() + 1), counter.coins.sum(), 0.5),
                                 name="total of the counts")
    for draw in (counter.sample, counter.sample_per_user):
        for i in (0, len(counter.batches) - 1):
            c = law.coordinates[i]
            reference = FiniteIntegerLaw(int(c.outcomes[0]), np.exp(c.log_probs), name=f"batch {i} count")
            result = dpaudit.audit_sampler(lambda size, rng, draw=draw, i=i: draw(x, size, rng)[:, i], reference,
                                           samples=100_000, seed=11)
            assert result.verdict == "not-refuted", (draw.__name__, i, result.witness)
        result = dpaudit.audit_sampler(lambda size, rng, draw=draw: draw(x, size, rng).sum(axis=1), total_law,
                                       samples=100_000, seed=12)
        assert result.verdict == "not-refuted", (draw.__name__, result.witness)


def test_the_tree_schedule_is_concurrent_trees_csta():
    """Algorithm 3 built as an Algorithm 1 schedule has ConcurrentShuffleTree's law and estimates."""
    mine = ConcurrentShuffleCounter.tree(32, 2, EPS, DELTA, 4, 2)
    theirs = ConcurrentShuffleTree(32, 2, EPS, DELTA, d=4, d_low=2)
    x = np.random.default_rng(3).integers(0, 2, 32)
    for a, b in zip(mine.distribution(x).coordinates, theirs.distribution(x).coordinates, strict=True):
        assert np.array_equal(a.outcomes, b.outcomes) and np.allclose(a.log_probs, b.log_probs)
    counts = mine.sample(x, 5, np.random.default_rng(4))
    assert np.allclose(mine.estimates(counts), theirs.estimates(counts))


@pytest.mark.parametrize("n, eps, delta", [(16, 0.9, 1e-3), (64, 0.5, 1e-4)])
def test_algorithm_2_parameters_as_printed(n, eps, delta):
    counter = ConcurrentShuffleCounter.binary_tree(n, eps, delta)
    log_n = round(math.log2(n))
    # Algorithm 2: one shuffler per internal level (heights 1..log n - 1), nodes of 2^h users,
    # every node M^sum_bin at (eps / log n, delta / log n)
    assert counter.k == log_n - 1
    assert sorted({b.size for b in counter.batches}) == [2 ** h for h in range(1, log_n)]
    assert all(b.epsilon == pytest.approx(eps / log_n) and b.delta == pytest.approx(delta / log_n)
               for b in counter.batches)
    assert (counter.participation() == log_n - 1).all()  # each user's internal ancestors
    N = fewest_coins(eps / log_n, delta / log_n)
    for b, p in zip(counter.batches, counter.protocols):
        assert p.N == N and p.coins == b.size * math.ceil(N / b.size)  # m <= N: r = ceil(N/m) coins per user
    # V_{n, eps/log n, delta/log n}: the largest proxy N'_m / 4 over m = 1..n
    assert variance_bound(n, eps / log_n, delta / log_n) == max(m * math.ceil(N / m) for m in range(1, n + 1)) / 4


@pytest.mark.parametrize("q, k", [(2, 2), (3, 1)])
def test_algorithm_3_parameters_at_the_papers_shape(q, k):
    n, d, d_low = q ** (2 * k + 1), q * q, q  # the paper's d = n^(2/(2k+1)), d_low = n^(1/(2k+1))
    counter = ConcurrentShuffleCounter.tree(n, k, EPS, DELTA, d, d_low)
    assert sorted({b.size for b in counter.batches}) == [d_low * d ** (i - 1) for i in range(1, k + 1)]
    assert all(b.epsilon == pytest.approx(EPS / k) and b.delta == pytest.approx(DELTA / k) for b in counter.batches)
    assert (counter.participation() == k).all() and counter.k == k
    for t in range(n + 1):  # |V^t| <= k (d - 1) before n, d at n (footnote 11)
        assert len(counter.cover(t)) <= (k * (d - 1) if t < n else d)


@pytest.mark.parametrize("n, batch, eps, delta", [(12, 4, 0.9, 1e-3), (30, 5, 0.5, 1e-6)])
def test_sequential_model_parameters(n, batch, eps, delta):
    counter = ConcurrentShuffleCounter.sequential(n, batch, eps, delta)
    assert counter.k == 1 and len(counter.batches) == n // batch and (counter.participation() == 1).all()
    assert all((b.epsilon, b.delta, b.size) == (eps, delta, batch) for b in counter.batches)
    assert all(p.N == fewest_coins(eps, delta) for p in counter.protocols)


@pytest.mark.parametrize("n, eps, delta, beta", [(64, 0.9, 1e-3, 0.01), (256, 0.5, 1e-4, 0.1)])
def test_theorem_3_2_step_and_alpha(n, eps, delta, beta):
    log_n = round(math.log2(n))
    N = fewest_coins(eps / log_n, delta / log_n)
    V = max(m * math.ceil(N / m) for m in range(1, n + 1)) / 4
    # printed: sqrt(log(1/beta) + log n) sqrt(V log n); alpha adds the odd-time bit
    assert theorem_3_2_step(n, eps, delta, beta) == pytest.approx(math.sqrt(math.log(n / beta) * V * log_n))
    assert theorem_3_2_step(n, eps, delta, beta, log=math.log2) == pytest.approx(
        math.sqrt(math.log2(n / beta) * V * log_n))
    assert theorem_3_2_alpha(n, eps, delta, beta) == pytest.approx(math.sqrt(math.log(n / beta) * V * log_n) + 1)


def test_definition_3_1_on_figure_2():
    """Figure 2 (n = 8, k = 2): V^6 = V^7 = {v_1^4, v_5^6}, V^8 = {v_1^4, v_5^8}."""
    counter = ConcurrentShuffleCounter.lowest_levels(8, 2, EPS, DELTA)  # Algorithm 2's levels at n = 8

    def span(t):
        return [(b.start + 1, b.end) for b in counter.cover(t)]

    assert span(6) == span(7) == [(1, 4), (5, 6)]
    assert span(8) == [(1, 4), (5, 8)]
    assert span(1) == []


@pytest.mark.parametrize("eps, delta, k", [(0.9, 1e-3, 2), (0.5, 1e-6, 9)])
def test_advanced_composition_budget(eps, delta, k):
    e0, d0 = advanced_composition_budget(eps, delta, k, delta / 2)
    # Dwork, Rothblum, Vadhan: eps = e0 sqrt(2k ln(1/delta')) + k e0 (e^e0 - 1), delta = k d0 + delta'
    assert e0 * math.sqrt(2 * k * math.log(2 / delta)) + k * e0 * (math.exp(e0) - 1) == pytest.approx(eps, rel=1e-12)
    assert k * d0 + delta / 2 == pytest.approx(delta)


def test_naive_variants_errors():
    """Section 3.2: with the k highest levels nothing is reported before the first batch fills, so on
    all-ones data the estimate at t = 2^(log n - k) - 1 is off by exactly t; with the k lowest levels
    the final estimate sums n / 2^k batches' noise."""
    n, k = 16, 2
    high = ConcurrentShuffleCounter.highest_levels(n, k, EPS, DELTA)
    assert sorted({b.size for b in high.batches}) == [4, 8]
    t = 2 ** (4 - k) - 1
    errors = high.errors(np.ones(n, dtype=int), 3, np.random.default_rng(0))
    assert np.array_equal(errors[:, t - 1], [-t] * 3)
    low = ConcurrentShuffleCounter.lowest_levels(n, k, EPS, DELTA)
    assert len(low.cover(n)) == n // 2 ** k and low.noise_coins(n) == (n // 4) * low.protocols[-1].coins


def test_noise_law_is_the_error_law_at_a_completed_time():
    """At t divisible by d_low the error is Bin(sum N', 1/2) - sum N'/2 (false-failure rate 1e-6)."""
    counter = ConcurrentShuffleCounter.tree(8, 1, EPS, DELTA, 4, 2)
    t, law = 6, counter.noise_law(6)
    x = np.ones(8, dtype=int)
    result = dpaudit.audit_sampler(lambda size, rng: counter.errors(x, size, rng)[:, t - 1] + law.m / 2, law,
                                   samples=100_000, seed=7)
    assert result.verdict == "not-refuted", result.witness
    m = counter.max_error_sampler(x)(1000, np.random.default_rng(1))
    assert m.shape == (1000,) and (m >= 0).all()


@pytest.mark.slow
def test_composition_is_private_and_the_whole_budget_per_node_is_caught():
    where = ReplaceOne().over(Datasets(16, (0, 1)))
    good = ConcurrentShuffleCounter.binary_tree(16, EPS, DELTA)
    result = dpaudit.audit_privacy(good, ApproxDP(EPS, DELTA), neighbours=where, auditor="exact", seed=0)
    assert result.verdict == "verified"
    # each node at the whole budget, as the sequential model allows, is not enough once a user is in 3 nodes
    greedy = ConcurrentShuffleCounter.tree(16, 3, EPS, DELTA, 2, 2, budget=(EPS, DELTA))
    result = dpaudit.audit_privacy(greedy, ApproxDP(EPS, DELTA), neighbours=where, auditor="exact", seed=0)
    assert result.verdict == "refuted"


def test_the_printed_hoeffding_step_fails_where_hoeffdings_own_bound_holds():
    """The suite's thm3.2-accuracy@step entries: at n = 64, the noisiest time of Algorithm 2, the printed
    sqrt(log(n/beta)) sqrt(V log n) is exceeded with probability above beta/n, while Hoeffding's
    sqrt(2 v ln(2n/beta)) (v the noise's proxy) is not."""
    counter = ConcurrentShuffleCounter.binary_tree(64, EPS, DELTA)
    law = counter.noise_law(counter.noisiest_time())
    V = variance_bound(64, EPS / 6, DELTA / 6)
    for beta, log in ((0.01, math.log), (1e-12, math.log2)):
        printed = math.sqrt(log(64 / beta)) * math.sqrt(6 * V)
        hoeffding = math.sqrt(2 * law.m / 4 * math.log(128 / beta))
        for bound, verdict in ((printed, "refuted"), (hoeffding, "verified")):
            result = dpaudit.audit_tail(law, TailBound.accuracy(bound, beta / 64, centred=True), auditor="exact")
            assert result.verdict == verdict, (beta, bound, result.witness)
    assert dpaudit.audit_tail(law, SubGaussian(math.sqrt(6 * V), centred=True), auditor="exact").verdict == "verified"
    # and a proxy below the binomial's variance is caught
    assert dpaudit.audit_tail(law, SubGaussian(0.9 * math.sqrt(law.var), centred=True),
                              auditor="exact").verdict == "refuted"


def test_the_step_as_the_spec_reconstructs_it_holds():
    """The suite's thm3.2-accuracy@step,sqrt2 entries: the spec reads the garbled constant as
    sqrt(2 (log(1/beta) + log n)) sqrt(V log n), sqrt 2 times the printed bound, and then the exact tail
    at beta = 0.01 is 2.6e-6 against beta/n = 1.56e-4."""
    counter = ConcurrentShuffleCounter.binary_tree(64, EPS, DELTA)
    law = counter.noise_law(counter.noisiest_time())
    printed = theorem_3_2_step(64, EPS, DELTA, 0.01)
    reconstructed = theorem_3_2_step(64, EPS, DELTA, 0.01, reconstructed=True)
    assert reconstructed == pytest.approx(math.sqrt(2) * printed)
    tail = law.sf(law.mean + reconstructed) + law.cdf(law.mean - reconstructed - 1e-9)
    assert tail == pytest.approx(2.616e-6, rel=1e-3) and tail < 0.01 / 64
    result = dpaudit.audit_tail(law, TailBound.accuracy(reconstructed, 0.01 / 64, centred=True), auditor="exact")
    assert result.verdict == "verified"


def test_union_bound_alpha_holds_and_a_tight_alpha_is_caught():
    """Definition 2.1's event with the proof's alpha (suite's thm3.2-accuracy entry) and with alpha at
    the noise's sd (P(max_t |error| > sd) is near 1): statistical, 100,000 runs, confidence 1 - 1e-6 each."""
    counter = ConcurrentShuffleCounter.binary_tree(64, EPS, DELTA)
    V, beta = variance_bound(64, EPS / 6, DELTA / 6), 0.01
    alpha = math.sqrt(math.log(64 / beta) * V * 6) + 1
    sampler = counter.max_error_sampler(np.ones(64, dtype=int))
    ok = dpaudit.audit_tail(sampler, TailBound.accuracy(alpha, beta), samples=100_000, seed=3, confidence=1 - 1e-6)
    assert ok.verdict == "not-refuted", ok.witness
    tight = dpaudit.audit_tail(sampler, TailBound.accuracy(math.sqrt(V), beta), samples=100_000, seed=3,
                               confidence=1 - 1e-6)
    assert tight.verdict == "refuted"


@pytest.mark.parametrize("eps, delta, split, dim", [(0.9, 1e-3, "log n", 2), (20.0, 0.4, "k", 3)])
def test_vector_tree_parameters(eps, delta, split, dim):
    tree = VectorConcurrentTree(8, 2, eps, delta, 2, 2, dim=dim, split=split)
    parts = 3 if split == "log n" else 2
    for B, p in zip((2, 4), tree.protocols, strict=True):
        # Theorem C.1 at the block's budget: g = max(ceil(2 sqrt B), d, 4),
        # b = ceil(24e4 g^2 ln^2(4(d^2+1)/delta) / (eps^2 B))
        g = max(math.ceil(2 * math.sqrt(B)), dim, 4)
        b = math.ceil(24e4 * g * g * math.log(4 * (dim * dim + 1) / (delta / parts)) ** 2 / ((eps / parts) ** 2 * B))
        assert (p.g, p.B, p.d) == (g, B, dim) and abs(p.b - b) <= 1
    assert [(level, start, size) for level, start, size in tree.blocks_of(5).blocks] == [(0, 4, 2), (1, 4, 4)]


def test_vector_tree_paths_follow_the_exact_law():
    """One label count of the first block and of a level-2 block, both paths (false-failure rate 1e-6 each);
    blocks at (10, 0.2), where P_Vec's b is ~4e5 (small tables)."""
    tree = VectorConcurrentTree(8, 2, 20.0, 0.4, 2, 2, dim=2, split="k")
    rows = np.zeros((8, 3))
    rows[:, 0], rows[:, 2] = 0.6, 0.5
    law = tree.distribution(rows)
    labels = tree.protocols[0].labels
    for column in (0, 4 * labels + 3):  # block 1's first phi y label; the first level-2 block's (1, 2) matrix label
        c = law.coordinates[column]
        reference = FiniteIntegerLaw(int(c.outcomes[0]), np.exp(c.log_probs), name=f"label count {column}")
        for draw in (tree.sample, tree.sample_per_user):
            result = dpaudit.audit_sampler(lambda size, rng, draw=draw, column=column: draw(rows, size, rng)[:, column],
                                           reference, samples=50_000, seed=9)
            assert result.verdict == "not-refuted", (draw.__name__, column, result.witness)


@pytest.mark.parametrize("make, message", [
    (lambda: ConcurrentShuffleCounter.binary_tree(12, EPS, DELTA), "power of 2"),
    (lambda: ConcurrentShuffleCounter.binary_tree(2, EPS, DELTA), "n >= 4"),
    (lambda: ConcurrentShuffleCounter.lowest_levels(16, 4, EPS, DELTA), "k must be <= log2 n - 1"),
    (lambda: ConcurrentShuffleCounter.sequential(10, 4, EPS, DELTA), "must divide n"),
    (lambda: ConcurrentShuffleCounter.sequential(8, 4, 1.0, DELTA), "epsilon must be < 1"),
    (lambda: ConcurrentShuffleCounter.tree(8, 2, 2.2, DELTA, 2, 2), "epsilon must be < 1"),
    (lambda: ConcurrentShuffleCounter.tree(20, 2, EPS, DELTA, 4, 2), "n must equal"),
    (lambda: ConcurrentShuffleCounter(8, [Batch(0, 0, 4, EPS, DELTA), Batch(0, 2, 4, EPS, DELTA)]),
     "two mechanisms at once"),
    (lambda: ConcurrentShuffleCounter(8, [Batch(0, 6, 4, EPS, DELTA)]), "within users"),
    (lambda: ConcurrentShuffleCounter.sequential(8, 4, EPS, DELTA).noise_law(3), "no batch is complete"),
    (lambda: ConcurrentShuffleCounter.sequential(8, 4, EPS, DELTA).cover(9), "t must be"),
    (lambda: ConcurrentShuffleCounter.sequential(8, 4, EPS, DELTA).distribution([0, 1, 2, 0, 0, 0, 0, 0]), "bits"),
    (lambda: advanced_composition_budget(EPS, DELTA, 3, DELTA), "slack"),
    (lambda: theorem_3_2_alpha(64, EPS, DELTA, 1.0), "beta must be in"),
    (lambda: theorem_3_2_alpha(48, EPS, DELTA, 0.1), "power of 2"),
    (lambda: VectorConcurrentTree(8, 2, EPS, DELTA, 2, 2, dim=2, split="half"), "split must be"),
    (lambda: VectorConcurrentTree(12, 2, EPS, DELTA, 2, 3, dim=2, split="log n"), "power of 2"),
    (lambda: VectorConcurrentTree(8, 2, EPS, DELTA, 2, 2, dim=2).blocks_of(8), "user must be"),
    (lambda: VectorConcurrentTree(8, 2, EPS, DELTA, 2, 2, dim=2).sample(np.zeros((8, 2)), 1, None), "rows"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_binomial_noise_law_type():
    assert isinstance(ConcurrentShuffleCounter.sequential(8, 4, EPS, DELTA).noise_law(8), Binomial)


def test_figure_2_entry_is_tight_and_fails_on_another_cover():
    """fig2@cover-sets: each V^t matches position by position; a printed block moved by one round, one block too
    many, or the sequential model's counter (one shuffler, batches of 2) fails."""
    from dpaudit.auditors.lower_bound import evaluate_step
    from dpaudit.audits import concurrent_shuffle as cs

    point = {"n": 8, "k": 2}
    for t in (6, 7, 8):
        assert evaluate_step(cs._cover_step(t), point)["status"] == "tight"
    saved = dict(cs.FIG2_COVERS)
    try:
        cs.FIG2_COVERS[8] = ((1, 4), (5, 7))
        assert evaluate_step(cs._cover_step(8), point)["status"] == "fails"
        cs.FIG2_COVERS[6] = ((1, 4), (5, 6), (7, 7))
        assert evaluate_step(cs._cover_step(6), point)["status"] == "fails"
    finally:
        cs.FIG2_COVERS.update(saved)
    lowest = cs.ConcurrentShuffleCounter.lowest_levels
    cs.ConcurrentShuffleCounter.lowest_levels = lambda n, k, eps, delta: cs.ConcurrentShuffleCounter.sequential(
        n, 2, eps, delta)
    try:
        assert evaluate_step(cs._cover_step(6), point)["status"] == "fails"
    finally:
        cs.ConcurrentShuffleCounter.lowest_levels = lowest


def test_algorithm_4_at_sixteen_users_is_not_refuted_from_a_small_sample():
    """thm5.1-privacy@algorithm,k1,...,n16 (standard budget up): the entry's transcript and pairs, 20,000 runs per
    side; the statistical auditor's level bounds a false refutation by 0.01."""
    from dpaudit.suite import find_entry

    entry = find_entry("concurrent-shuffle/thm5.1-privacy@algorithm,k1,eps0.5,delta0.1,n16,K2,d2")
    assert "quick" not in entry.budgets
    result = dpaudit.audit_privacy(entry.subject, entry.claim, pairs=entry.pairs, samples=20_000, seed=4,
                                   auditor="statistical")
    assert result.verdict == "not-refuted"
