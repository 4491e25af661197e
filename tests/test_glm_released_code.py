"""The cited shuffle-glm code's tree as it runs (mechanisms/released_code/glm_released_code.py): what its query
sums, that it is not the prefix sum Algorithm 2 uses, that drawing node noise on first use keeps the code's law
(each node is read by consecutive queries only), the projection, the stream against a direct computation, and the
errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpaudit.algorithms.glm.registry import private_glm
from dpaudit.mechanisms.released_code.glm_released_code import PSD_FLOOR, ReleasedCodeTree

# the experiments' delta = zeta is outside Theorem 6.2 (delta > zeta): Private-GLM warns
pytestmark = pytest.mark.filterwarnings("ignore:.*needs delta > zeta:UserWarning")


def _direct(tree, leaves, noise, n):
    """The query after n insertions from its definition: the nodes of query_nodes, each its segment's leaves
    (those inserted so far) plus its noise, then the projection."""
    total = sum(leaves[[s - 1 for s in tree.segment(c) if s <= n]].sum(axis=0) + noise[c] for c in tree.query_nodes(n))
    return tree.project(total)


def test_the_query_sums_the_nodes_it_lists_and_the_first_leaf_twice():
    tree = ReleasedCodeTree(8, 1, 1.0, 1.0)
    assert tree.height == 4 and tree.leaf(1) == 8 and tree.path(1) == [8, 4, 2, 1]
    # even indices are left children: 8 -> 7, 4 -> 3, 2 -> the root
    assert tree.query_nodes(1) == [7, 3, 1, 8]
    assert tree.query_nodes(2) == [3, 1, 9] and tree.query_nodes(3) == [9, 1, 10] and tree.query_nodes(8) == [15]
    assert list(tree.segment(1)) == list(range(1, 9)) and list(tree.segment(3)) == [5, 6, 7, 8]
    assert list(tree.segment(7)) == [7, 8] and list(tree.segment(10)) == [3]
    # zero noise: after one insertion 2 x1 (the root and the leaf), after two (x1 + x2) + x2, after three
    # x2 + (x1 + x2 + x3) + x3 (leaf 9, the root, leaf 10), after four (x1 + ... + x4) + x4 (the root, leaf 11)
    stream = tree.stream(1)
    x = np.array([3.0, 5.0, 7.0, 11.0])
    zero = {c: np.zeros((1, 1, 1)) for c in range(1, 16)}
    released = [stream.insert(np.full((1, 1, 1), v), None, zero)[0, 0, 0] - 1.0 for v in x]
    np.testing.assert_allclose(released, [2 * 3, 3 + 2 * 5, 3 + 2 * 5 + 2 * 7, 3 + 5 + 7 + 2 * 11], rtol=1e-12)
    assert not np.isclose(released, np.cumsum(x)).any()  # the prefix sums are 3, 8, 15, 26


@pytest.mark.parametrize("T", [1, 2, 3, 5, 8, 13, 64, 100, 257])
def test_every_node_is_read_by_consecutive_queries_only(T):
    # the stream draws a node's noise when a query first reads it and forgets it when one stops: the code's
    # law (one draw per node, reused) only if no node is read again after a gap
    tree = ReleasedCodeTree(T, 1, 1.0, 1.0)
    reads: dict[int, list[int]] = {}
    for n in range(1, T + 1):
        for c in tree.query_nodes(n):
            reads.setdefault(c, []).append(n)
            assert 1 <= c < 2 * tree.first_leaf
    assert all(r == list(range(r[0], r[-1] + 1)) for r in reads.values())


@pytest.mark.parametrize("T", [3, 8, 13, 40])
def test_the_stream_is_the_direct_query_with_the_same_node_noise(T):
    rng = np.random.default_rng(T)
    d, runs = 2, 3
    tree = ReleasedCodeTree(T, d, 0.3, 0.5)
    y = rng.normal(size=(runs, T, d))
    leaves = y[..., :, None] * y[..., None, :]
    z = rng.normal(0.0, 0.3, (2 * tree.first_leaf, runs, d, d))
    noise = {c: (z[c] + np.swapaxes(z[c], 1, 2)) / 2 for c in range(1, 2 * tree.first_leaf)}
    stream = tree.stream(runs)
    drawn: set[int] = set()
    for n in range(1, T + 1):
        out = stream.insert(leaves[:, n - 1], None, noise)
        drawn |= set(stream.last_noise)
        for r in range(runs):
            direct = _direct(tree, leaves[r], {c: v[r] for c, v in noise.items()}, n)
            np.testing.assert_allclose(out[r], direct, rtol=1e-10, atol=1e-10)
    assert drawn == {c for n in range(1, T + 1) for c in tree.query_nodes(n)}


def _node_walk(tree, leaves, noise):
    """The code's queries node by node (each node's exact sum accumulated leaf after leaf in a dict, the read
    nodes' sums and noises added in query_nodes' order), projected: the floating-point values the stream's level
    arrays must give bit for bit."""
    sums, out = {}, []
    for n in range(1, len(leaves) + 1):
        for c in tree.path(n):
            sums[c] = sums[c] + leaves[n - 1] if c in sums else leaves[n - 1].copy()
        total = np.zeros_like(leaves[0])
        for c in tree.query_nodes(n):
            total += sums.get(c, np.zeros_like(leaves[0])) + noise[c]
        out.append(tree.project(total))
    return out


@pytest.mark.parametrize("compiled", [True, False])
def test_the_streams_level_arrays_are_the_node_walk_bit_for_bit(compiled, monkeypatch):
    from dpaudit.mechanisms.released_code import glm_released_code
    if compiled and not glm_released_code.AVAILABLE:
        pytest.skip("numba is not installed (pip install dpaudit[fast])")
    if not compiled:
        monkeypatch.setattr(glm_released_code, "code_tree_query", None)
    rng = np.random.default_rng(11)
    T, runs, d = 70, 5, 3
    tree = ReleasedCodeTree(T, d, 0.4, 0.3)
    y = rng.normal(size=(T, runs, d))
    leaves = y[..., :, None] * y[..., None, :] * rng.uniform(0, 0.2, size=(T, runs, 1, 1))
    leaves[::3] += np.triu(rng.normal(0.0, 0.1, size=(d, d)), 1)  # some not symmetric: the query symmetrises
    z = rng.normal(0.0, 0.4, (2 * tree.first_leaf, runs, d, d))
    noise = {c: (z[c] + np.swapaxes(z[c], 1, 2)) / 2 for c in range(1, 2 * tree.first_leaf)}
    stream = tree.stream(runs)
    floored = 0
    for n, expected in enumerate(_node_walk(tree, leaves, noise), start=1):
        out = stream.insert(leaves[n - 1], None, noise)
        assert np.array_equal(out, expected), n
        floored += int((np.linalg.eigvalsh(out)[:, 0] < 2 * PSD_FLOOR).sum())
    assert 0 < floored < T * runs  # the floor acts in some releases, not in all


def test_the_compiled_query_floors_what_lies_at_or_below_the_floor():
    from dpaudit.mechanisms.released_code import glm_released_code
    if not glm_released_code.AVAILABLE:
        pytest.skip("numba is not installed (pip install dpaudit[fast])")
    from dpaudit.mechanisms.released_code.glm_tree_compiled import code_tree_query
    q = np.linalg.qr(np.random.default_rng(2).normal(size=(3, 3)))[0]
    lam = 0.25
    low = np.zeros(3, dtype=bool)
    out = np.empty((3, 3, 3))
    # least eigenvalues half the floor, twice the floor, and 1: only the first is below it
    noise = np.stack([(q * [PSD_FLOOR * f, 1.0, 2.0]) @ q.T - lam * np.eye(3) for f in (0.5, 2.0, 1e12)])[None]
    sums = np.zeros((3, 3, 3, 3))  # h = 1: the leaf's level, its predecessor, the zeros
    code_tree_query(sums, 0, np.zeros((3, 3, 3)), np.array([[2], [0]]), noise, lam, PSD_FLOOR, out, low)
    assert low.tolist() == [True, False, False]


def test_node_noise_has_the_codes_law():
    # with lambda large the projection is the identity: the release minus lambda I minus the data is the sum of
    # the read nodes' noises, (Z + Z^T)/2 each: diagonal variance k sigma^2, off-diagonal k sigma^2 / 2.
    # Two-sided chi^2 variance tests at 1e-4 each (four, and a correlation test: false-failure rate <= 5e-4), seeded.
    T, d, sigma, runs = 13, 2, 0.7, 20_000
    tree = ReleasedCodeTree(T, d, sigma, 1e3)
    stream = tree.stream(runs)
    rng = np.random.default_rng(5)
    released = []
    for n in (1, 2):
        out = stream.insert(np.zeros((runs, d, d)), rng) - 1e3 * np.eye(d)
        released.append(out[:, 0, 0])
        k = len(tree.query_nodes(n))
        for entry, var in (((0, 0), k * sigma**2), ((0, 1), k * sigma**2 / 2)):
            s2 = out[:, entry[0], entry[1]].var(ddof=1)
            statistic = (runs - 1) * s2 / var  # chi^2 with runs - 1 degrees of freedom
            p = 2 * min(stats.chi2.cdf(statistic, runs - 1), stats.chi2.sf(statistic, runs - 1))
            assert p > 1e-4, (n, entry, s2, var)
    assert [len(tree.query_nodes(n)) for n in (1, 2)] == [5, 4]  # the paper's tree: one noise, then two
    # the two releases share the noise of nodes 7, 3 and the root: correlation 3 / sqrt(5 * 4) (Fisher's z, 1e-4)
    shared = set(tree.query_nodes(1)) & set(tree.query_nodes(2))
    assert shared == {7, 3, 1}
    r = np.corrcoef(released[0], released[1])[0, 1]
    z = (np.arctanh(r) - np.arctanh(3 / np.sqrt(20))) * np.sqrt(runs - 3)
    assert 2 * stats.norm.sf(abs(z)) > 1e-4, r


def test_the_projection_floors_the_eigenvalues():
    tree = ReleasedCodeTree(4, 2, 1.0, 0.5)
    m = np.array([[[1.0, 0.0], [0.0, -3.0]]])  # + 0.5 I: eigenvalues 1.5 and -2.5
    np.testing.assert_allclose(np.linalg.eigvalsh(tree.project(m)), [[PSD_FLOOR, 1.5]], atol=1e-12)
    asym = np.array([[[2.0, 1.0], [0.0, 2.0]]])
    np.testing.assert_allclose(tree.project(asym), [[[2.5, 0.5], [0.5, 2.5]]], atol=1e-12)


def _eigen_projection(tree, noisy):
    """The code's projection as it computes it: eigendecomposition, eigenvalues floored, rebuilt."""
    m = noisy + tree.lam * np.eye(tree.d)
    m = (m + np.swapaxes(m, -1, -2)) / 2
    values, vectors = np.linalg.eigh(m)
    return (vectors * np.maximum(values, PSD_FLOOR)[..., None, :]) @ np.swapaxes(vectors, -1, -2)


def test_the_projection_skips_the_decomposition_only_above_the_floor_and_per_matrix():
    tree = ReleasedCodeTree(4, 3, 1.0, 0.5)
    rng = np.random.default_rng(3)
    noisy = rng.normal(size=(200, 3, 3))
    noisy = noisy @ np.swapaxes(noisy, 1, 2) * 0.1 - rng.uniform(0, 1.5, size=(200, 1, 1)) * np.eye(3)
    low = np.linalg.eigvalsh((noisy + np.swapaxes(noisy, 1, 2)) / 2 + 0.5 * np.eye(3))[:, 0] <= PSD_FLOOR
    assert 20 < low.sum() < 180  # both kinds in the batch
    out = tree.project(noisy)
    np.testing.assert_allclose(out, _eigen_projection(tree, noisy), rtol=0, atol=1e-12)
    # a matrix's result does not depend on the others in its batch: alone it is the same, bit for bit
    for i in (int(np.flatnonzero(low)[0]), int(np.flatnonzero(~low)[0])):
        assert np.array_equal(tree.project(noisy[i:i + 1])[0], out[i])
    # above the floor the symmetrised matrix itself, below it the floored rebuild (its least eigenvalue the floor)
    m = (noisy + np.swapaxes(noisy, 1, 2)) / 2 + 0.5 * np.eye(3)
    assert np.array_equal(out[~low], m[~low])
    np.testing.assert_allclose(np.linalg.eigvalsh(out[low])[:, 0], PSD_FLOOR, atol=1e-12)


def test_private_glm_runs_the_codes_tree_under_released_code_constants():
    assert private_glm(eps=4.0, constants="released-code").tree == "released-code"
    assert private_glm(eps=4.0).tree == "repository"
    assert private_glm(eps=4.0, constants="released-code", tree="repository").tree == "repository"
    with pytest.raises(ValueError, match="tree"):
        private_glm(eps=4.0, tree="buggy")


def test_errors():
    with pytest.raises(ValueError, match="T"):
        ReleasedCodeTree(0, 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="sigma"):
        ReleasedCodeTree(4, 2, 0.0, 1.0)
    tree = ReleasedCodeTree(2, 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="1..T"):
        tree.leaf(3)
    with pytest.raises(ValueError, match="heap"):
        tree.segment(4)
    stream = tree.stream(2)
    with pytest.raises(ValueError, match="shape"):
        stream.insert(np.zeros((1, 2, 2)), np.random.default_rng(0))
    rng = np.random.default_rng(0)
    stream.insert(np.zeros((2, 2, 2)), rng)
    stream.insert(np.zeros((2, 2, 2)), rng)
    with pytest.raises(ValueError, match="all made"):
        stream.insert(np.zeros((2, 2, 2)), rng)
