"""The binary (tree-based) mechanism: its blocks, p-sums and prefix sums against brute force, the
noise of a prefix sum, and exact privacy audits of the textbook calibration and of a miscalibrated
one (levels counted as log2 T instead of floor(log2 T) + 1)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import dpaudit
from dpaudit import ZCDP, PureDP
from dpaudit.core.domains import Box, Datasets
from dpaudit.core.neighbours import ReplaceOne
from dpaudit.mechanisms.counters.tree import BinaryTreeMechanism
from dpaudit.mechanisms.noise import Gaussian, Laplace, LaplaceSum


def test_blocks_follow_the_lowest_set_bit():
    tree = BinaryTreeMechanism(8, Gaussian(1))
    assert tree.nodes == [(1, 1), (1, 2), (3, 3), (1, 4), (5, 5), (5, 6), (7, 7), (1, 8)]
    assert tree.levels == 4
    assert tree.prefix_nodes(7) == [4, 6, 7] and tree.prefix_nodes(8) == [8] and tree.prefix_nodes(5) == [4, 5]


@pytest.mark.parametrize("T", [1, 2, 7, 13, 64, 100])
def test_every_element_is_in_at_most_L_blocks_and_prefixes_use_popcount_blocks(T):
    tree = BinaryTreeMechanism(T, Gaussian(1))
    counts = np.zeros(T + 1, dtype=int)
    for start, end in tree.nodes:
        counts[start: end + 1] += 1
    assert counts[1:].max() <= tree.levels == math.floor(math.log2(T)) + 1
    for t in range(1, T + 1):
        blocks = [tree.nodes[e - 1] for e in tree.prefix_nodes(t)]
        assert len(blocks) == bin(t).count("1")
        covered = sorted(i for s, e in blocks for i in range(s, e + 1))
        assert covered == list(range(1, t + 1))  # a partition of [1, t]


@pytest.mark.parametrize("T, dim", [(13, 1), (16, 3), (9, (2, 2))])
def test_node_sums_and_prefix_sums_match_brute_force(T, dim):
    rng = np.random.default_rng(0)
    tree = BinaryTreeMechanism(T, Gaussian(1), dim=dim)
    stream = rng.normal(size=(T, *tree.element_shape))
    sums = tree.node_sums(stream)
    for t, (start, end) in enumerate(tree.nodes):
        assert np.allclose(sums[t], stream[start - 1: end].sum(axis=0))
    assert np.allclose(tree.prefix(sums), np.cumsum(stream, axis=0))
    batch = tree.prefix(np.broadcast_to(sums, (5, *sums.shape)))  # a leading sample axis
    assert np.allclose(batch, np.cumsum(stream, axis=0))


@pytest.mark.parametrize("T, dim, lead", [(1, 1, (3,)), (13, 1, ()), (256, 6, (4, 2)), (100, (3, 2), (5,))])
def test_compiled_prefix_sums_are_the_numpy_levels_bit_for_bit(T, dim, lead, monkeypatch):
    """With numba the prefix sums of many releases are one compiled pass, adding each prefix's blocks in the numpy
    path's order (the lowest bit's first, into zero): the same numbers, for leading sample axes, scalar, vector and
    matrix elements, a non-contiguous input, and an empty batch."""
    from dpaudit.mechanisms.counters import tree as module
    if module.prefix_sums is None:
        pytest.skip("numba is not installed (pip install dpaudit[fast])")
    tree = BinaryTreeMechanism(T, Gaussian(1), dim=dim)
    nodes = np.random.default_rng(1).standard_normal((*lead, T, *tree.element_shape))
    strided = np.swapaxes(np.swapaxes(nodes, 0, -1).copy(), 0, -1) if nodes.ndim > 1 else nodes
    empty = np.zeros((0, T, *tree.element_shape))
    compiled = [tree.prefix(nodes), tree.prefix(strided), tree.prefix(empty)]
    monkeypatch.setattr(module, "prefix_sums", None)
    for got, given in zip(compiled, (nodes, strided, empty)):
        expected = tree.prefix(given)
        assert got.shape == expected.shape and np.array_equal(got, expected)


def test_release_noise_has_the_error_law():
    """The noise of the prefix sum at t = 7 (three blocks) against its exact law, Laplace sum and
    Gaussian (false-failure rate 1e-6 per audit)."""
    for noise, expected in [(Laplace(2.0), LaplaceSum(3, 2.0)), (Gaussian(1.5), Gaussian(1.5 * math.sqrt(3)))]:
        tree = BinaryTreeMechanism(8, noise)
        assert tree.error_law(7) == expected
        stream = np.arange(8.0)

        # audited just below, in this iteration: the defaults only make the bindings explicit
        def errors(size, rng, tree=tree, stream=stream):
            return tree.release(stream, size, rng)[:, 6] - stream[:7].sum()

        assert dpaudit.audit_sampler(errors, expected, samples=200_000, seed=4).verdict == "not-refuted"


def test_integer_noise_error_law_is_the_convolution():
    from dpaudit.mechanisms.noise import DiscreteLaplace
    share = DiscreteLaplace(2.0)
    law = BinaryTreeMechanism(8, share).error_law(7)
    assert law.var == pytest.approx(3 * share.var, rel=1e-12)
    assert BinaryTreeMechanism(8, share).error_law(8) is share


def test_textbook_laplace_calibration_is_eps_dp_exactly():
    """Lap(L/eps) per block; one element moving across [0, 1] shifts L blocks (T = 8: the element
    x_1 is in blocks 1, 2, 4, 8), so the loss reaches eps exactly: verified (exact rational scale)."""
    tree = BinaryTreeMechanism.laplace(8, 0.5)
    assert tree.noise.scale == Fraction(4) / Fraction(0.5)
    result = dpaudit.audit_privacy(tree, PureDP(0.5), neighbours=ReplaceOne().over(Datasets(8, Box(0.0, 1.0))),
                                   auditor="exact", seed=1)
    assert result.verdict == "verified", result.notes
    assert result.epsilon_lower == pytest.approx(0.5, rel=1e-9)


def test_a_tree_calibrated_with_log2_T_levels_is_refuted():
    """The common slip: Lap(log2(T)/eps) for T = 8 gives 3 where the element is in 4 blocks, so the
    true eps is 4/3 of the claim: the exact audit refutes it."""
    tree = BinaryTreeMechanism(8, Laplace(Fraction(3) / Fraction(0.5)))
    result = dpaudit.audit_privacy(tree, PureDP(0.5), neighbours=ReplaceOne().over(Datasets(8, Box(0.0, 1.0))),
                                   auditor="exact", seed=1)
    assert result.verdict == "refuted"
    assert result.epsilon_lower == pytest.approx(0.5 * 4 / 3, rel=1e-9)


def test_gaussian_tree_zcdp_is_L_over_2_sigma_squared():
    """Gaussian noise sigma per block: rho = L Delta^2 / (2 sigma^2) for one element changed by Delta."""
    tree = BinaryTreeMechanism(16, Gaussian(2.0))  # L = 5, Delta = 1: rho = 5/8
    where = ReplaceOne().over(Datasets(16, Box(0.0, 1.0)))
    result = dpaudit.audit_privacy(tree, ZCDP(0.625 * (1 + 1e-6)), neighbours=where, auditor="exact", seed=1)
    assert result.verdict == "verified"
    assert dpaudit.audit_privacy(tree, ZCDP(0.5), neighbours=where, auditor="exact", seed=1).verdict == "refuted"


@pytest.mark.parametrize("make, message", [
    (lambda: BinaryTreeMechanism(0, Gaussian(1)), "T"),
    (lambda: BinaryTreeMechanism(4, 1.0), "noise"),
    (lambda: BinaryTreeMechanism(4, Gaussian(1), dim=0), "dim"),
    (lambda: BinaryTreeMechanism.laplace(4, -1.0), "epsilon"),
    (lambda: BinaryTreeMechanism(4, Gaussian(1)).node_sums(np.zeros(5)), "shape"),
    (lambda: BinaryTreeMechanism(4, Gaussian(1)).prefix_nodes(5), "t must be in"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()
