"""The tree of shuffle-glm's released code as it runs, which does not release prefix sums
(``glmbanditexp/utils/binary_tree.py`` of Sahasrajit123/Shuffle_joint_dp_generalized_linear_contextual_bandits
at ab8fd160, the commit whose stored outputs are the paper's Table 2).

The code keeps a 1-indexed heap of 2^h nodes, h = ceil(log2 T) + 1: root 1, the children of c are 2c and 2c + 1,
leaves 2^(h-1), ..., 2^h - 1; the leaf of the n-th insertion is n + 2^(h-1) - 1. Each node holds the exact sum of
the leaves below it and one symmetric noise matrix (Z + Z^T)/2, Z_ij ~ N(0, sigma^2), drawn once. Its query after
the n-th insertion walks from leaf i = n + 2^(h-1) - 1 towards the root and, at every node c of that path with c
even, adds node c - 1 (its sum and its noise); then it adds leaf i (sum and noise), adds lam I and projects the
result onto the positive semi-definite cone (eigenvalues floored at 1e-12).

In a heap an even index is a *left* child, so c - 1 is not c's sibling but the node just before c on its level,
and for c = 2^k, the first node of level k, it is the last node of level k - 1 (for k = 1 the root, the sum of
everything inserted so far). The release is therefore not the prefix sum of the leaves: it carries the noise of
other nodes and misses or repeats data (:meth:`ReleasedCodeTree.query_nodes` lists what it sums; a test shows it
on small T). The suites audit the paper's tree
(:class:`~dpaudit.mechanisms.glm.exploration_set.SymmetricGaussianTree`), not this; it is here so that a run
under ``constants="released-code"`` reproduces what the authors ran.

Node noise is drawn when a query first needs the node, not all at once as the code does: each node's noise is
used by a run of consecutive queries only, so the law of the releases is the same, and the stream holds O(h)
nodes instead of 2^h.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpaudit.core.validation import integer, positive

from ..glm.exploration_set import SymmetricGaussianTree

try:  # the query's arithmetic compiled (an optional dependency: pip install dpaudit[fast])
    from .glm_tree_compiled import code_tree_query
except ImportError:  # numba missing: the numpy path
    code_tree_query = None
#: whether :class:`ReleasedCodeTreeStream` runs its compiled query (numba is installed)
AVAILABLE = code_tree_query is not None

PSD_FLOOR = 1e-12  # the code's psd_floor


class ReleasedCodeTree:
    """The released code's ``BinaryTreeMechanism`` for T insertions of symmetric d x d matrices with node noise
    sigma (module docstring); ``lam`` is the ridge its query adds before the projection."""

    def __init__(self, T: int, d: int, sigma: float, lam: float):
        owner = "ReleasedCodeTree"
        self.T = integer(owner, "T", T, 1)
        self.d = integer(owner, "d", d, 1)
        self.sigma = positive(owner, "sigma", sigma)
        self.lam = positive(owner, "lam", lam)
        self.height = math.ceil(math.log2(self.T)) + 1
        self.first_leaf = 2 ** (self.height - 1)
        # the node noise's law is the paper's tree's (Z + Z^T)/2: drawn by that release object
        self.noise = SymmetricGaussianTree(self.T, self.d, self.sigma)
        self.name = f"ReleasedCodeTree(T={self.T}, d={self.d}, sigma={self.sigma:.6g}, lam={self.lam:.6g})"

    def __repr__(self) -> str:
        return self.name

    def _count(self, n: int) -> int:
        n = integer("ReleasedCodeTree", "n", n, 1)
        if n > self.T:
            raise ValueError(f"ReleasedCodeTree: n must be in 1..T = {self.T}, got {n}")
        return n

    def leaf(self, n: int) -> int:
        """The heap index of the n-th insertion's leaf: n + 2^(h-1) - 1."""
        return self._count(n) + self.first_leaf - 1

    def path(self, n: int) -> list[int]:
        """The heap indices from the n-th leaf up to the root."""
        return self._nodes(self.leaf(n))[0]

    def query_nodes(self, n: int) -> list[int]:
        """The nodes whose sums and noises the query after the n-th insertion adds: c - 1 for every even c on
        :meth:`path`, then the leaf."""
        return self._nodes(self.leaf(n))[1]

    @staticmethod
    def _nodes(leaf: int) -> tuple[list[int], list[int]]:
        """(:meth:`path`, :meth:`query_nodes`) of a checked leaf."""
        path, c = [], leaf
        while c > 0:
            path.append(c)
            c //= 2
        return path, [c - 1 for c in path if c % 2 == 0] + [leaf]

    def segment(self, node: int) -> range:
        """The insertions (1-based) below a heap node."""
        node = integer("ReleasedCodeTree", "node", node, 1)
        if node >= 2 * self.first_leaf:
            raise ValueError(f"ReleasedCodeTree: the heap has nodes 1..{2 * self.first_leaf - 1}, got {node}")
        level = node.bit_length() - 1
        width = self.first_leaf >> level
        start = (node - (1 << level)) * width + 1
        return range(start, start + width)

    def project(self, noisy: np.ndarray) -> np.ndarray:
        """The code's last step: lam I added, symmetrised, eigenvalues floored at 1e-12; (..., d, d).

        Where every eigenvalue is already above the floor the projection is the symmetrised matrix itself: that
        is tested first by a Cholesky factorisation of m - 1e-12 I (positive definite exactly when the least
        eigenvalue exceeds the floor), a fifth of an eigendecomposition's cost; the matrix is then returned as is,
        where the code's V diag(values) V^T gives it back to rounding. Otherwise the matrices are decomposed, and
        those with an eigenvalue at or below the floor are rebuilt with it floored (each matrix's result depends on
        it alone, not on the others in the batch)."""
        eye = np.eye(self.d)
        m = noisy + self.lam * eye
        m = (m + np.swapaxes(m, -1, -2)) / 2
        try:
            np.linalg.cholesky(m - PSD_FLOOR * eye)
            return m
        except np.linalg.LinAlgError:  # some matrix has an eigenvalue at or below the floor
            return self.floored(m, np.linalg.eigvalsh(m)[..., 0] <= PSD_FLOOR)

    @staticmethod
    def floored(m: np.ndarray, low: np.ndarray) -> np.ndarray:
        """The symmetric matrices ``m`` (..., d, d) with those flagged in ``low`` rebuilt from their
        eigendecomposition with the eigenvalues floored at 1e-12, as the code rebuilds every one (in place)."""
        if low.any():
            values, vectors = np.linalg.eigh(m[low])
            m[low] = (vectors * np.maximum(values, PSD_FLOOR)[..., None, :]) @ np.swapaxes(vectors, -1, -2)
        return m

    def stream(self, runs: int) -> ReleasedCodeTreeStream:
        """``runs`` independent runs fed one leaf per round (:class:`ReleasedCodeTreeStream`)."""
        return ReleasedCodeTreeStream(self, runs)


class ReleasedCodeTreeStream:
    """:class:`ReleasedCodeTree` over ``runs`` runs at once: :meth:`insert` adds round n's leaves (runs, d, d)
    and returns the code's query, lam I included and projected (runs, d, d).

    It keeps, as the code does, the exact sum of every node that can still be read, the noise of the nodes the
    last query read, and :attr:`last_noise`, the nodes whose noise an insertion drew, with that noise. The sums
    are held per level of the heap: the leaf's path node and the node before it on the level (a new path node
    starts empty and its predecessor is the old one, since the leaves come in order). A query reads, for each
    even path node c on level k, c - 1: the predecessor, or for the first node c = 2^k of its level the last node
    of level k - 1, which is the root at k = 1 and otherwise holds no insertion yet; then the leaf. Each sum is
    accumulated leaf after leaf and the query adds the nodes' sums and noises in the code's order: the same
    floating-point values as a node-by-node walk (a test holds them bit for bit), in a few array operations per
    insertion, or one compiled pass with the fast extra (:mod:`.glm_tree_compiled`)."""

    def __init__(self, tree: ReleasedCodeTree, runs: int):
        self.tree = tree
        self.runs = integer("ReleasedCodeTreeStream", "runs", runs, 1)
        self.n = 0
        h, d = tree.height, tree.d
        # rows 0..h-1: level k's path node (0: the root); h..2h-1: the node before it; 2h: zeros, the sum of a node
        # that holds no insertion
        self._sums = np.zeros((2 * h + 1, self.runs, d, d))
        # the noise of the nodes the last query read, one slot each (a query reads at most h nodes)
        self._noise = np.zeros((h + 1, self.runs, d, d))
        self._slot: dict[int, int] = {}
        self.last_noise: dict[int, np.ndarray] = {}

    def insert(self, leaves: Any, rng: np.random.Generator, noise: dict[int, np.ndarray] | None = None
               ) -> np.ndarray:
        """Add leaf n (one per run); return the code's query. ``noise`` gives the draws of nodes read for the
        first time (a replay); missing nodes are drawn."""
        tree = self.tree
        x = np.asarray(leaves, dtype=float)
        if x.shape != (self.runs, tree.d, tree.d) or not np.isfinite(x).all():
            raise ValueError(f"ReleasedCodeTreeStream: leaves must be finite, shape ({self.runs}, {tree.d}, "
                             f"{tree.d}), got {x.shape}")
        if self.n >= tree.T:
            raise ValueError(f"ReleasedCodeTreeStream: the tree holds T = {tree.T} insertions, all made")
        self.n += 1
        h = tree.height
        leaf = self.n + tree.first_leaf - 1  # (the counter is in 1..T: no check)
        # the levels whose path node is new are the lowest ones, up to where the carry of leaf - 1 -> leaf stops (all
        # of them at the first leaf, 2^(h-1))
        first = h - (leaf ^ (leaf - 1)).bit_length()
        read, rows = [], []  # the code's order: up from the leaf, c - 1 for each even path node c, then the leaf
        c, level = leaf, h - 1
        while c > 1:
            if c % 2 == 0:
                read.append(c - 1)
                rows.append(h + level if c != 1 << level else 0 if level == 1 else 2 * h)
            c >>= 1
            level -= 1
        read.append(leaf)
        rows.append(h - 1)
        slots, free = [], list(set(range(h + 1)) - {self._slot[c] for c in read if c in self._slot})
        self.last_noise = {}
        for c in read:
            slot = self._slot.get(c)
            if slot is None:  # read for the first time: its noise drawn now
                given = None if noise is None else noise.get(c)
                drawn = tree.noise.node_noise(self.runs, rng) if given is None else np.asarray(given, float)
                self.last_noise[c] = drawn
                slot = free.pop()
                self._noise[slot] = drawn
            slots.append(slot)
        self._slot = dict(zip(read, slots))
        sums = self._sums
        if code_tree_query is not None:  # the same arithmetic compiled (numba)
            out, low = np.empty_like(x), np.empty(self.runs, dtype=bool)
            code_tree_query(sums, first, x, np.array([rows, slots], dtype=np.int64), self._noise, tree.lam,
                            PSD_FLOOR, out, low)
            return tree.floored(out, low)
        sums[h + first: 2 * h] = sums[first:h]  # each new node's predecessor on its level
        sums[first:h] = 0.0
        sums[:h] += x  # each path node's sum, leaf after leaf (0 + x for a new one)
        # the nodes' sums and noises added in the code's order (a sum over the leading axis accumulates in order)
        out = (sums[rows] + self._noise[slots]).sum(axis=0)
        return tree.project(out)


__all__ = ["PSD_FLOOR", "ReleasedCodeTree", "ReleasedCodeTreeStream"]
