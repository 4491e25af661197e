"""shuffle-glm, Algorithm 2's private design matrices and the privacy of the exploration set T_o
(Appendix I.1, Lemma I.4; Lemma 6.1 = Lemma I.5 / P.1).

Algorithm 2 releases V_t and H_t through two binary-tree mechanisms B_V, B_H (one leaf per round
in each): B_V's leaf j is x_j x_j^T when j is a criterion-I round (j in T_o) and 0 otherwise;
B_H's leaf is (mu'(<x_j, theta_o>)/e) x_j x_j^T on the other rounds. Every tree node adds
Z = (Z' + Z'^T)/2 with Z'_ij ~ N(0, sigma_noise^2) i.i.d. (proof of Lemma I.4), where

    sigma_noise^2 = 36 m (log(32/delta))^2 / ((kappa*)^2 eps^2).

T_o is not a separate noise mechanism: whether round t is a criterion-I round is a function of the
noisy V released so far and of user t's own context set. For data differing only at round i, the
decisions of the other rounds are post-processing of the tree nodes (with the other users' contexts,
equal in both); only the nodes whose block contains leaf i differ. So the privacy of T_o \\ {i}
(Lemma 6.1) and of {V_t} (Lemma I.4) is audited on the release of the tree's nodes with one leaf
changed, the leaves of the other rounds fixed.

:class:`SymmetricGaussianTree` is :class:`~dpaudit.mechanisms.counters.tree.BinaryTreeMechanism` on the
upper-triangular entries of the leaves, with the off-diagonal entries multiplied by sqrt 2: with
that invertible change of coordinates the symmetrised noise Z has i.i.d. N(0, sigma^2) entries
(Z_ii ~ N(0, sigma^2), Z_ij ~ N(0, sigma^2/2) for i < j), so the release's exact law is a product of
equal-variance Gaussians, and the l2 norm of a leaf's change is its Frobenius norm.

Choices where the paper is silent:
  - m = ceil(log2 T + 1), the depth of the tree (the paper writes log without a base);
  - the node noise is the Lemma I.4 form (Z' + Z'^T)/2 (Appendix P prints (Z + Z'^T)/sqrt 2);
  - the tree is the binary mechanism's p-sums (mechanisms/counters/tree.py): each leaf lies in at most
    floor(log2 T) + 1 <= m blocks, as the analysis assumes.
Data of :class:`RankOneLeaves`: the vectors y_j with leaf y_j y_j^T (B_V: y = x for j in T_o, y = 0
otherwise; B_H: y = sqrt(mu'(<x, theta_o>)/e) x), shape (T, d).

Samplers of the noise's spectral norms (plain ``f(size, rng, ...)``, for tail audits; their laws have
no closed form): :func:`symmetric_gaussian_norms`, ||Z|| for a symmetric matrix with N(0, 1) entries
(Appendix I.1's bound P[||Z|| > 4 sqrt d + 2 ln(2T/alpha)] < alpha/(2T)), and
:func:`max_prefix_noise_norm`, the largest spectral norm of a tree's prefix noise over the T rounds
(Lemma I.4, (49)-(50)).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer, positive, probability

from ..base import Adapter, ExactRelease
from ..counters.tree import BinaryTreeMechanism
from ..noise import Gaussian

try:  # the stream's insertion compiled (an optional dependency: pip install dpaudit[fast])
    from .tree_compiled import binary_tree_insert
except ImportError:  # numba missing: the numpy path
    binary_tree_insert = None
#: whether :class:`TreeStream` runs its compiled insertion (numba is installed)
AVAILABLE = binary_tree_insert is not None

SQRT2 = math.sqrt(2.0)


def tree_depth(T: int) -> int:
    """m = ceil(log2 T + 1)."""
    return math.ceil(math.log2(integer("tree_depth", "T", T, 1)) + 1)


def node_noise_sigma(T: int, epsilon: float, delta: float, kappa_star: float) -> float:
    """sigma_noise of Lemma I.4: sqrt(36 m log^2(32/delta) / (kappa*^2 eps^2)), m = ceil(log2 T + 1)."""
    epsilon = positive("node_noise_sigma", "epsilon", epsilon)
    delta = probability("node_noise_sigma", "delta", delta)
    kappa_star = positive("node_noise_sigma", "kappa_star", kappa_star)
    return math.sqrt(36 * tree_depth(T) * math.log(32 / delta) ** 2 / (kappa_star**2 * epsilon**2))


def zcdp_node_sigma(T: int, epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Node noise of the tree in the code the paper cites (its experiments): (eps, delta) converted to a zCDP
    budget rho with eps = rho + 2 sqrt(rho log(1/delta)), split evenly over m = ceil(log2 T) + 1 nodes, and
    the Gaussian mechanism's sigma = Delta / sqrt(2 rho / m) for l2 sensitivity Delta (Bun & Steinke 2016:
    rho-zCDP implies (rho + 2 sqrt(rho log(1/delta)), delta)-DP)."""
    owner = "zcdp_node_sigma"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = probability(owner, "delta", delta)
    sensitivity = positive(owner, "sensitivity", sensitivity)
    a = math.sqrt(math.log(1 / delta))
    rho = (math.sqrt(a * a + epsilon) - a) ** 2
    m = math.ceil(math.log2(integer(owner, "T", T, 1))) + 1
    return sensitivity / math.sqrt(2 * rho / m)


class SymmetricGaussianTree(ExactRelease):
    """B_V / B_H: the binary mechanism on a stream of T symmetric d x d leaves with node noise
    (Z' + Z'^T)/2, Z'_ij ~ N(0, sigma^2) (module docstring). Data: the leaves, shape (T, d, d).

    :meth:`sample` and :meth:`distribution` are in whitened coordinates (per node, the upper
    triangle row-major, off-diagonal entries times sqrt 2); :meth:`matrices` maps back."""

    paper = "shuffle-glm"
    source = "Algorithm 2's tree mechanisms B_V, B_H; node noise of Lemma I.4 (Appendix I.1)"

    def __init__(self, T: int, d: int, sigma: float):
        self.T = integer(self.owner, "T", T, 1)
        self.d = integer(self.owner, "d", d, 1)
        self.sigma = positive(self.owner, "sigma", sigma)
        self.upper = np.triu_indices(self.d)
        self.scale = np.where(self.upper[0] == self.upper[1], 1.0, SQRT2)
        self.tree = BinaryTreeMechanism(self.T, Gaussian(self.sigma), dim=len(self.scale))
        self.name = f"SymmetricGaussianTree(T={self.T}, d={self.d}, sigma={self.sigma:.6g})"

    def whiten(self, leaves: Any) -> np.ndarray:
        x = np.asarray(leaves, dtype=float)
        if x.shape != (self.T, self.d, self.d) or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: leaves must have shape ({self.T}, {self.d}, {self.d}), got {x.shape}")
        if not np.array_equal(x, np.swapaxes(x, 1, 2)):
            raise ValueError(f"{self.owner}: every leaf must be a symmetric matrix")
        return x[:, self.upper[0], self.upper[1]] * self.scale

    def matrices(self, whitened: Any) -> np.ndarray:
        """Symmetric matrices (..., d, d) from whitened coordinates (..., d(d+1)/2)."""
        v = np.asarray(whitened, dtype=float) / self.scale
        out = np.zeros((*v.shape[:-1], self.d, self.d))
        out[..., self.upper[0], self.upper[1]] = v
        out[..., self.upper[1], self.upper[0]] = v
        return out

    def _input(self, leaves: Any) -> np.ndarray:
        return self.whiten(leaves)

    def _distribution(self, whitened: np.ndarray) -> ProductDistribution:
        return self.tree.distribution(whitened)

    def _sample(self, whitened: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """Noisy p-sums, shape (size, T, d(d+1)/2), whitened; the noise is drawn as printed:
        Z' with i.i.d. N(0, sigma^2) entries, symmetrised (Z' + Z'^T)/2, then whitened."""
        exact = self.tree.node_sums(whitened)
        z = rng.normal(0.0, self.sigma, (size, self.T, self.d, self.d))
        z = (z + np.swapaxes(z, 2, 3)) / 2
        return exact + z[..., self.upper[0], self.upper[1]] * self.scale

    def prefix_matrices(self, released: Any) -> np.ndarray:
        """The noisy prefix sums as matrices (what Algorithm 2 adds to lambda I), shape (..., T, d, d)."""
        return self.matrices(self.tree.prefix(released))

    def node_noise(self, runs: int, rng: np.random.Generator) -> np.ndarray:
        """One node's noise for each of ``runs`` runs, (Z' + Z'^T)/2 with Z'_ij ~ N(0, sigma^2), shape
        (runs, d, d): the draw of :meth:`_sample` for one node (the same law, one node at a time)."""
        return self.symmetrised(rng.standard_normal((runs, self.d, self.d)))

    def symmetrised(self, standard: np.ndarray) -> np.ndarray:
        """(Z' + Z'^T)/2 with Z' = sigma times ``standard`` (..., d, d), standard normal draws: the node noise of
        those draws (sigma Z equals numpy's normal(0, sigma) draw of the same state bit for bit)."""
        z = self.sigma * standard
        return (z + np.swapaxes(z, -1, -2)) / 2

    def stream(self, runs: int) -> TreeStream:
        """The tree run online for ``runs`` independent runs (:class:`TreeStream`): the entry point of an
        algorithm that inserts one leaf per round and queries the noisy prefix sum."""
        return TreeStream(self, runs)


class TreeStream:
    """A :class:`SymmetricGaussianTree` run online over ``runs`` runs at once: :meth:`insert` adds round t's
    leaves (runs, d, d) and returns the noisy prefix sums of leaves 1..t, (runs, d, d).

    The binary mechanism's bookkeeping is the tree's own online form
    (:class:`~dpaudit.mechanisms.counters.tree.TreeStream`, in whitened coordinates); what is added here is the
    node noise drawn as printed, :meth:`SymmetricGaussianTree.node_noise` ((Z' + Z'^T)/2, once per node, reused by every
    later prefix sum), and the map between matrices and whitened coordinates. A test holds the stream's
    output to the tree's law."""

    def __init__(self, tree: SymmetricGaussianTree, runs: int):
        self.tree = tree
        self.runs = integer("TreeStream", "runs", runs, 1)
        self.inner = tree.tree.stream(self.runs, None)  # every node's noise is handed to it
        self.last_noise: np.ndarray | None = None
        self._upper = tuple(np.ascontiguousarray(u, dtype=np.int64) for u in tree.upper)

    @property
    def t(self) -> int:
        return self.inner.t

    def _whiten(self, matrices: np.ndarray) -> np.ndarray:
        return matrices[:, self.tree.upper[0], self.tree.upper[1]] * self.tree.scale

    def insert(self, leaves: Any, rng: np.random.Generator, noise: np.ndarray | None = None) -> np.ndarray:
        """Add leaf t (one per run), return the noisy prefix sums through t. ``noise`` replaces the node's
        draw (a per-run reference replaying the draws); it is kept in :attr:`last_noise` either way."""
        x = np.asarray(leaves, dtype=float)
        if x.shape != (self.runs, self.tree.d, self.tree.d):
            raise ValueError(f"TreeStream: leaves must have shape ({self.runs}, {self.tree.d}, {self.tree.d}), "
                             f"got {x.shape}")
        if self.t >= self.tree.T:
            raise ValueError(f"TreeStream: the tree has T = {self.tree.T} leaves, all inserted")
        self.last_noise = self.tree.node_noise(self.runs, rng) if noise is None else np.asarray(noise, dtype=float)
        inner = self.inner
        if self.compiled and np.isfinite(x).all() and self.last_noise.shape == x.shape:
            # the same arithmetic compiled (numba): the block ending at t is on level lsb(t)
            t = inner.t + 1
            out, whitened_noise = np.empty_like(x), np.empty((self.runs, len(self.tree.scale)))
            binary_tree_insert(inner._exact, inner._noisy, (t & -t).bit_length() - 1, x, self.last_noise,
                               self._upper[0], self._upper[1], self.tree.scale, whitened_noise, out)
            inner.t, inner.node_noise = t, whitened_noise
            return out
        return self.tree.matrices(inner.add(self._whiten(x), self._whiten(self.last_noise)))

    @property
    def compiled(self) -> bool:
        """Whether a compiled loop may insert into this stream (:meth:`compiled_parts`): numba is installed and the
        tree is matrix-valued (d > 1; d = 1 is a scalar tree, the numpy path)."""
        return binary_tree_insert is not None and self.inner._exact.ndim == 3

    def compiled_parts(self) -> tuple[np.ndarray, ...]:
        """What :func:`~dpaudit.mechanisms.glm.tree_compiled.binary_tree_insert` updates and reads, for a compiled
        loop that inserts leaves itself: the per-level exact and noisy blocks (levels, runs, m), the upper triangle's
        rows and columns and their whitening factors. The loop inserts at t + 1, t + 2, .. and then reports them
        (:meth:`inserted`)."""
        return self.inner._exact, self.inner._noisy, self._upper[0], self._upper[1], self.tree.scale

    def inserted(self, count: int, last_noise: np.ndarray) -> None:
        """Book ``count`` insertions made by a compiled loop on :meth:`compiled_parts`, the last with node noise
        ``last_noise`` (runs, d, d)."""
        if self.t + count > self.tree.T:
            raise ValueError(f"TreeStream: the tree has T = {self.tree.T} leaves, {self.t} inserted, {count} more")
        self.inner.t += count
        if count:
            self.last_noise = np.array(last_noise, dtype=float)
            self.inner.node_noise = self._whiten(self.last_noise)


def node_noise_ahead(streams: tuple[TreeStream, ...], count: int, rng: np.random.Generator) -> np.ndarray:
    """The node noise of the next ``count`` insertions into each of ``streams`` (trees of one dimension on the same
    runs) when every round inserts into each stream in turn, all drawing from ``rng``: shape (count, len(streams),
    runs, d, d), the draws :meth:`TreeStream.insert` would make (:meth:`SymmetricGaussianTree.node_noise`), in the
    same order, so that ``rng`` ends where those insertions leave it. For a compiled loop that inserts them itself
    (Algorithm 2's rounds, :func:`dpaudit.algorithms.glm.compiled.algorithm2_rounds`)."""
    runs, d = streams[0].runs, streams[0].tree.d
    if any((stream.runs, stream.tree.d) != (runs, d) for stream in streams):
        raise ValueError("node_noise_ahead: the streams must have the same runs and dimension")
    standard = rng.standard_normal((count, len(streams), runs, d, d))
    out = np.empty_like(standard)
    for k, stream in enumerate(streams):
        out[:, k] = stream.tree.symmetrised(standard[:, k])
    return out


class RankOneLeaves(Adapter):
    """A :class:`SymmetricGaussianTree` fed rank-one leaves y_j y_j^T, with ||y_j||^2 <= ``bound``
    (1 for B_V, where leaves are x x^T with ||x|| <= 1; 1/kappa* for B_H under event E_o). Data: the
    y_j, shape (T, d); y_j = 0 is an empty leaf (round j not in the tree's rounds). The release is
    ``tree``'s (:attr:`inner`) on the leaves (:meth:`leaves`)."""

    paper = "shuffle-glm"
    source = "Algorithm 2's leaves x x^T (B_V) and (mu'/e) x x^T (B_H); Lemmas I.4, 6.1"

    def __init__(self, tree: SymmetricGaussianTree, bound: float = 1.0):
        self.tree = self.inner = tree
        self.bound = positive(self.owner, "bound", bound)
        self.name = f"{tree!r}, leaves y y^T with ||y||^2 <= {self.bound:.6g}"

    def leaves(self, data: Any) -> np.ndarray:
        y = np.asarray(data, dtype=float)
        if y.shape != (self.tree.T, self.tree.d) or not np.isfinite(y).all():
            raise ValueError(f"{self.owner}: data must be the {self.tree.T} rounds' vectors, shape "
                             f"({self.tree.T}, {self.tree.d}), got {y.shape}")
        if (np.einsum("ti,ti->t", y, y) > self.bound * (1 + 1e-9)).any():
            raise ValueError(f"{self.owner}: every leaf needs ||y||^2 <= {self.bound:.6g}")
        return np.einsum("ti,tj->tij", y, y)

    def _input(self, data: Any) -> np.ndarray:
        return self.leaves(data)


def symmetric_gaussian_norms(size, rng, d: int):
    """||Z|| for symmetric d x d matrices with N(0, 1) entries on and above the diagonal.

    Each draw's upper triangle is Z's: numpy's ``eigvalsh`` reads only the lower triangle (``UPLO="L"``), so it is
    handed the transposed draws, whose lower triangle is Z's (the same numbers as symmetrising them first, without
    two copies of every matrix)."""
    out = np.empty(size)
    block = max(1, min(size, 20_000 // d))
    for start in range(0, size, block):
        m = min(block, size - start)
        draws = rng.standard_normal((m, d, d))
        out[start: start + m] = np.abs(np.linalg.eigvalsh(np.swapaxes(draws, 1, 2), UPLO="L")).max(axis=1)
    return out


def max_prefix_noise_norm(size, rng, tree: SymmetricGaussianTree):
    """max over t of the spectral norm of the noise in B_V's prefix sum at t, per run.

    Only the prefixes that can hold a run's maximum are decomposed: ||A|| >= max(||A||_F / sqrt(d), max_i |A_ii|)
    gives each run a floor on its maximum, and a prefix whose Frobenius norm (>= its spectral norm) is below that
    floor cannot reach it (a tenth of them can, at T = 256, d = 3). The maximum is the same number as over every
    prefix, since each matrix's eigenvalues are computed alone."""
    zeros = np.zeros((tree.T, tree.d, tree.d))
    out = np.empty(size)
    block = max(1, 200_000 // (tree.T * tree.d * tree.d))
    for start in range(0, size, block):
        m = min(block, size - start)
        prefix = tree.prefix_matrices(tree.sample(zeros, m, rng))
        frobenius = np.sqrt(np.einsum("rtij,rtij->rt", prefix, prefix))
        diagonal = np.abs(np.diagonal(prefix, axis1=2, axis2=3)).max(axis=2)
        floor = np.maximum(frobenius / math.sqrt(tree.d), diagonal).max(axis=1)
        runs, rounds = np.nonzero(frobenius >= floor[:, None] * (1 - 1e-12))  # the slack: rounding of the bounds
        norms = np.abs(np.linalg.eigvalsh(prefix[runs, rounds])).max(axis=1)
        largest = np.zeros(m)
        np.maximum.at(largest, runs, norms)
        out[start: start + m] = largest
    return out


def generic_node_budget(epsilon: float, delta: float, m: int) -> tuple[float, float]:
    """Appendix I.1's sufficient per-node budget for an (eps, delta)-DP tree of depth m:
    eps_0 = eps / sqrt(8 m ln(2/delta)), delta_0 = delta / (2m)."""
    return epsilon / math.sqrt(8 * m * math.log(2 / delta)), delta / (2 * m)


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The Gaussian mechanism's sigma = Delta sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth Thm A.1,
    for eps < 1): the node noise that makes each node (eps_0, delta_0)-DP in the generic tree."""
    epsilon = positive("classical_gaussian_sigma", "epsilon", epsilon)
    if not epsilon < 1:
        raise ValueError(f"classical_gaussian_sigma: epsilon must be in (0, 1) (Dwork & Roth Thm A.1), got {epsilon!r}")
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


__all__ = ["RankOneLeaves", "SymmetricGaussianTree", "TreeStream", "classical_gaussian_sigma", "generic_node_budget",
           "max_prefix_noise_norm", "node_noise_ahead", "node_noise_sigma", "symmetric_gaussian_norms", "tree_depth",
           "zcdp_node_sigma"]
