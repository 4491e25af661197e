"""concurrent-shuffle's CSTA: the fair-coin M^sum_bin (fewest coins, fast and per-user paths with
the same law, unbiased analyzer), the tree's structure (each user in k blocks, V^t a disjoint cover
of [1, t - t mod d_low] with at most k(d - 1) blocks), exact privacy of the composition, and a
miscalibrated tree (each block at the whole budget) caught."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import ApproxDP
from dpaudit.core.domains import Datasets
from dpaudit.core.neighbours import ReplaceOne
from dpaudit.mechanisms.counters.concurrent_tree import (
    BinarySummation,
    ConcurrentShuffleTree,
    binomial_delta,
    coins_for,
)
from dpaudit.mechanisms.noise import FiniteIntegerLaw


@pytest.mark.parametrize("eps, delta", [(0.9, 1e-3), (0.3, 1e-3 / 3), (0.5, 1e-6)])
def test_coins_are_the_fewest_that_meet_the_budget(eps, delta):
    n = coins_for(eps, delta)
    assert binomial_delta(n, eps) <= delta < binomial_delta(n - 1, eps)


def test_binomial_delta_matches_the_exact_auditor():
    m = BinarySummation(0.5, 0.01, 4)
    p, q = m.distribution([0, 0, 0, 0]), m.distribution([1, 0, 0, 0])
    from dpaudit.exact import privacy_profile
    exact = privacy_profile(p, q, 0.5).delta
    assert float(exact.lo) <= binomial_delta(m.coins, 0.5) <= float(exact.hi) + 1e-15


@pytest.mark.parametrize("m", [3, 50])  # coins spread over the users (m <= N), and one coin for the first N users
def test_binary_summation_paths_follow_the_exact_law(m):
    """Both paths against the exact count law (false-failure rate 1e-6 each)."""
    protocol = BinarySummation(0.9, 1e-3, m)
    assert protocol.coins_of_users().sum() == protocol.coins >= protocol.N
    bits = np.arange(m) % 2
    law = protocol.distribution(bits)
    reference = FiniteIntegerLaw(0, np.exp(law.log_probs), name="count law")
    for draw in (protocol.sample, protocol.sample_per_user):
        result = dpaudit.audit_sampler(lambda size, rng, draw=draw: draw(bits, size, rng), reference,
                                       samples=200_000, seed=5)
        assert result.verdict == "not-refuted", (draw.__name__, result.witness)
    assert float(np.exp(law.log_probs) @ protocol.analyze(law.outcomes)) == pytest.approx(bits.sum())


@pytest.mark.parametrize("n, k, d, d_low", [(16, 3, 2, 2), (8, 1, 4, 2), (32, 2, 4, 2), (27, 1, 9, 3)])
def test_tree_structure(n, k, d, d_low):
    tree = ConcurrentShuffleTree(n, k, 0.9, 1e-3, d=d, d_low=d_low)
    # the paper's sizes: level i holds blocks of d_low d^(i - 1) users
    assert tree.sizes == [d_low * d ** (i - 1) for i in range(1, k + 1)]
    assert [p.epsilon for p in tree.protocols] == [pytest.approx(0.9 / k)] * k
    for t in range(n + 1):
        blocks = tree.cover(t)
        covered = sorted(u for level, j in blocks
                         for u in range(j * tree.sizes[level - 1], (j + 1) * tree.sizes[level - 1]))
        assert covered == list(range(t - t % d_low))  # disjoint, and exactly [1, t - t mod d_low]
        assert len(blocks) <= (k * (d - 1) if t < n else d)
    x = np.random.default_rng(1).integers(0, 2, n)
    counts = np.concatenate([s + p.coins / 2 for s, p in zip(tree.block_sums(x), tree.protocols)])
    expected = [np.cumsum(x)[t - 1] - x[t - t % d_low: t].sum() for t in range(1, n + 1)]
    assert np.allclose(tree.estimates(counts), expected)  # noise at its mean: the intra-batch bias only


@pytest.mark.slow
def test_composition_is_private_and_the_whole_budget_per_block_is_caught():
    where = ReplaceOne().over(Datasets(16, (0, 1)))
    tree = ConcurrentShuffleTree.binary(16, 0.9, 1e-3)
    assert tree.k == 3
    result = dpaudit.audit_privacy(tree, ApproxDP(0.9, 1e-3), neighbours=where, auditor="exact", seed=0)
    assert result.verdict == "verified"
    greedy = ConcurrentShuffleTree.binary(16, 0.9, 1e-3)
    greedy.protocols = [BinarySummation(0.9, 1e-3, s) for s in greedy.sizes]  # forgot the split over k levels
    result = dpaudit.audit_privacy(greedy, ApproxDP(0.9, 1e-3), neighbours=where, auditor="exact", seed=0)
    assert result.verdict == "refuted"


@pytest.mark.parametrize("make, message", [
    (lambda: BinarySummation(1.0, 1e-3, 4), "epsilon must be < 1"),
    (lambda: BinarySummation(0.5, 0.5, 4), "delta must be < 1/2"),
    (lambda: BinarySummation(0.5, 0.1, 2).distribution([0, 2]), "bits"),
    (lambda: ConcurrentShuffleTree(20, 2, 0.9, 1e-3, d=4, d_low=2), "n must equal"),
    (lambda: ConcurrentShuffleTree.binary(12, 0.9, 1e-3), "power of 2"),
    (lambda: ConcurrentShuffleTree.binary(16, 0.9, 1e-3).cover(17), "t must be"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()
