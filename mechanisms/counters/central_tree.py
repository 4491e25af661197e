"""shuffle-lcb's central-model baselines (Chowdhury & Zhou, ICML 2022): LinUCB-JDP's tree mechanism
(Shariff & Sheffet 2018), its user-level variant (Section 4 / E.3, Proposition 4.3 = E.7) and
Batched-Central-LinUCB (Appendix F, Proposition F.3).

**What the paper prints.** No pseudo-code and no node calibration. The proof of Prop E.7 uses two
properties of the tree-based (binary counting) mechanism of Chan et al. (2010): (i) changing one
leaf (one user's data) changes the l2 norm of the expanded binary tree by O(sqrt(log T)); (ii) a
prefix sum over rounds 1..t uses O(log T) nodes. User level (Section 4, Sec. E.3): "scale up the
noise variance by a multiplicative factor of M0^2, if any user participates in at most M0 rounds".
Batched-Central-LinUCB (App. F): the tree is updated once per batch, the batch's sum being one new
leaf.

**The released statistic.** Shariff & Sheffet keep private prefix sums of the (d + 1) x (d + 1)
matrix z z^T, z = [phi; y], whose blocks are phi phi^T and phi y (and y^2). A leaf is z z^T (the sum
over the batch's rows for Batched-Central-LinUCB); the tree's nodes are the dyadic p-sums of the
leaves (:class:`~dpaudit.mechanisms.counters.tree.BinaryTreeMechanism`). By the Billboard lemma every
user's action is a function of her own context and of these node releases, so the JDP view audited
here is the released nodes.

**Choices where the paper is silent** ([choice]):

- Node noise: symmetric, i.i.d. N(0, sigma^2) on each entry on and above the diagonal, mirrored
  below (the convention of the paper's own R_Amp, Algorithm 2). The release is the upper triangle
  of every node, so its law is a product of equal-variance Gaussians (exact accounting).
- Shariff & Sheffet's published Gaussian calibration could not be retrieved (only the paper's
  abstract and opening were available to this implementation), so none is attributed to them.
  The authors' experiment code does not implement a tree either (it adds sqrt(ln T) ln(2.5/delta)/eps
  noise to a fixed number of stored draws). The calibration is therefore the standard Gaussian
  calibration of the tree:
  * leaf sensitivity, replace-one: with ||phi|| <= 1 and |y| <= 1 (Assumption 3.1), ||z||^2 <= 2,
    and the upper triangle of z z^T - z' z'^T has l2 norm at most its Frobenius norm,
    sqrt(||z||^4 + ||z'||^4 - 2 (z.z')^2) <= 2 sqrt 2 (:data:`LEAF_SENSITIVITY`). The true supremum
    is 3/sqrt 2 = 2.121 for d >= 2 (found by numerical search: the pair
    :data:`WORST_ROW_PAIR`; 2 for d = 1), so the bound is loose by a factor 4/3; it is the one a
    careful implementer can prove in a line.
  * levels: each leaf lies in at most L = ceil(log2 N) + 1 nodes of the tree on N leaves (the
    complete tree's height; the binary mechanism's p-sums use floor(log2 N) + 1 <= L of them), so
    one changed leaf moves the whole release by at most LEAF_SENSITIVITY sqrt(L) in l2.
  * sigma: the analytic Gaussian mechanism (Balle & Wang 2018, Theorem 8) for (eps, delta) at that
    l2 sensitivity (:func:`analytic_gaussian_sigma`), valid at every eps (the classic
    sqrt(2 ln(1.25/delta))/eps needs eps < 1, and the paper's experiment uses eps = 10).
  * user level: sigma times M0 (variance times M0^2), as the paper prints.
- Batches: N = ceil(T/B) leaves; a last partial batch is its own (smaller) leaf.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpaudit.core.validation import choice, integer, positive, probability

from ..base import Adapter
from ..classic.gaussian import analytic_gaussian_sigma
from ..noise import Gaussian
from .tree import BinaryTreeMechanism

LEAF_SENSITIVITY = 2 * math.sqrt(2)
"""l2 bound on the change of upper(z z^T) when one row (phi, y), ||phi|| <= 1, |y| <= 1, is replaced."""

_C15, _S15 = math.cos(math.pi / 12), math.sin(math.pi / 12)
WORST_ROW_PAIR = (np.array([_C15, -_S15, -1.0]), np.array([_S15, -_C15, 1.0]))
"""Rows (phi, y), d = 2, whose leaves z z^T are furthest apart: upper-triangle distance 3/sqrt 2."""

SCHEDULES = ("consecutive", "spread")


def tree_levels(leaves: int) -> int:
    """L = ceil(log2 N) + 1: the most nodes of the complete tree on N leaves that hold one leaf."""
    leaves = integer("tree_levels", "leaves", leaves, 1)
    return (leaves - 1).bit_length() + 1


def node_sigma(epsilon: float, delta: float, leaves: int, rounds_per_user: int = 1) -> float:
    """Node noise std: analytic Gaussian for (eps, delta) at l2 sensitivity LEAF_SENSITIVITY sqrt(L),
    L = :func:`tree_levels` (leaves), times M0 = ``rounds_per_user`` (variance times M0^2, Sec. 4)."""
    rounds_per_user = integer("node_sigma", "rounds_per_user (M0)", rounds_per_user, 1)
    whole_release = LEAF_SENSITIVITY * math.sqrt(tree_levels(leaves))
    return rounds_per_user * analytic_gaussian_sigma(epsilon, delta, whole_release)


class CentralTreeMechanism(Adapter):
    """The released nodes of LinUCB-JDP's tree on the matrices z z^T, z = [phi; y] (module docstring).

    ``T`` rounds, feature dimension ``d``, node noise std ``sigma``, ``batch`` rounds per leaf (1:
    Shariff & Sheffet's LinUCB-JDP; B: Batched-Central-LinUCB, App. F). Data: the stream of rows
    (phi_t, y_t), shape (T, d + 1), ||phi_t|| <= 1 and |y_t| <= 1 (Assumption 3.1; checked, since the
    calibration relies on it). Output: the noisy upper triangles of the N = ceil(T/B) p-sums, shape
    (size, N, (d + 1)(d + 2)/2), entries in :attr:`upper` order; :meth:`prefix_matrices` turns them
    into the noisy symmetric prefix sums the algorithm uses (post-processing).

    The release is the tree's (:attr:`inner`) on the leaf stream (:meth:`leaf_stream`); its exact law
    is a product of N(p-sum entry, sigma^2).
    """

    paper = "shuffle-lcb"
    source = "LinUCB-JDP's tree mechanism (Shariff & Sheffet 2018); Batched-Central-LinUCB, Appendix F"

    def __init__(self, T: int, d: int, sigma: float, batch: int = 1, name: str | None = None,
                 norm_bound: float = 1.0):
        # norm_bound: the largest ||phi|| accepted (1: Assumption 3.1; a released code's features: theirs)
        self.norm_bound = positive(self.owner, "norm_bound", norm_bound)
        self.T = integer(self.owner, "T", T, 1)
        self.d = integer(self.owner, "d", d, 1)
        self.sigma = positive(self.owner, "sigma", sigma)
        self.batch = integer(self.owner, "batch", batch, 1)
        if self.batch > self.T:
            raise ValueError(f"{self.owner}: batch must be in 1..T = {self.T}, got {self.batch}")
        self.leaves = -(-self.T // self.batch)
        self.upper = np.triu_indices(self.d + 1)
        self.tree = BinaryTreeMechanism(self.leaves, Gaussian(self.sigma), dim=len(self.upper[0]))
        self.inner = self.tree
        self.name = name or f"CentralTree(T={self.T}, d={self.d}, B={self.batch}, sigma={self.sigma:.6g})"

    @classmethod
    def event_level(cls, T: int, d: int, epsilon: float, delta: float, batch: int = 1) -> CentralTreeMechanism:
        """LinUCB-JDP (batch 1) or Batched-Central-LinUCB: one round's row changes one leaf."""
        leaves = -(-integer(cls.__name__, "T", T, 1) // integer(cls.__name__, "batch", batch, 1))
        sigma = node_sigma(epsilon, delta, leaves)
        return cls(T, d, sigma, batch, name=f"CentralTree(T={T}, d={d}, B={batch}, event-level eps={epsilon:g}, "
                                           f"delta={delta:g}: sigma={sigma:.6g})")

    @classmethod
    def user_level(cls, T: int, d: int, epsilon: float, delta: float, rounds_per_user: int) -> CentralTreeMechanism:
        """Prop 4.3 / E.7: the event-level sigma times M0 (noise variance scaled by M0^2)."""
        sigma = node_sigma(epsilon, delta, integer(cls.__name__, "T", T, 1), rounds_per_user)
        return cls(T, d, sigma, name=f"CentralTree(T={T}, d={d}, user-level M0={rounds_per_user}, eps={epsilon:g}, "
                                     f"delta={delta:g}: sigma={sigma:.6g})")

    def _rows(self, data: Any) -> np.ndarray:
        x = np.asarray(data, dtype=float)
        if x.shape != (self.T, self.d + 1) or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: data must be a finite ({self.T}, {self.d + 1}) array of rows (phi, y), "
                             f"got shape {x.shape}")
        slack = 1e-9  # rows mapped onto the unit ball in floating point
        if ((np.linalg.norm(x[:, : self.d], axis=1) > self.norm_bound + slack).any()
                or (np.abs(x[:, self.d]) > 1 + slack).any()):
            raise ValueError(f"{self.owner}: rows must have ||phi|| <= 1 and |y| <= 1 (Assumption 3.1)")
        return x

    def leaf_stream(self, data: Any) -> np.ndarray:
        """The leaves: upper(z z^T) summed over each batch, shape (N, (d + 1)(d + 2)/2)."""
        z = self._rows(data)
        entries = z[:, self.upper[0]] * z[:, self.upper[1]]
        padded = np.zeros((self.leaves * self.batch, entries.shape[1]))
        padded[: self.T] = entries  # zero rows add nothing to the last, partial batch
        return padded.reshape(self.leaves, self.batch, -1).sum(axis=1)

    def _input(self, data: Any) -> np.ndarray:
        return self.leaf_stream(data)

    def prefix_matrices(self, noisy_nodes: Any) -> np.ndarray:
        """Noisy prefix sums of z z^T after each leaf, as symmetric (d + 1) x (d + 1) matrices
        (V = top-left d x d block, u = last column's first d entries): shape (..., N, d + 1, d + 1)."""
        flat = self.tree.prefix(noisy_nodes)
        out = np.zeros((*flat.shape[:-1], self.d + 1, self.d + 1))
        i, j = self.upper
        out[..., i, j] = flat
        out[..., j, i] = flat
        return out

    def error_law(self, leaf: int) -> Gaussian:
        """Law of one entry's noise in the prefix sum through ``leaf`` (popcount(leaf) node draws)."""
        return self.tree.error_law(leaf)

    def leaf_entries(self, rows: Any) -> np.ndarray:
        """Leaves of R runs at once: rows (R, n, d + 1), each run's n rows (phi, y) of one leaf (n = 1
        for LinUCB-JDP, the batch for Batched-Central-LinUCB) -> upper(sum z z^T), shape (R, entries);
        rows are checked as :meth:`leaf_stream` checks them."""
        x = np.asarray(rows, dtype=float)
        if x.ndim != 3 or x.shape[2] != self.d + 1 or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: rows must be a finite (R, n, {self.d + 1}) array of rows (phi, y), "
                             f"got shape {x.shape}")
        slack = 1e-9
        if ((np.linalg.norm(x[..., : self.d], axis=-1) > self.norm_bound + slack).any()
                or (np.abs(x[..., self.d]) > 1 + slack).any()):
            raise ValueError(f"{self.owner}: rows must have ||phi|| <= 1 and |y| <= 1 (Assumption 3.1)")
        return np.einsum("rni,rnj->rij", x, x)[:, self.upper[0], self.upper[1]]

    def runs(self, runs: int, rng: np.random.Generator) -> TreeRuns:
        """The tree's release built leaf by leaf for ``runs`` independent runs (:class:`TreeRuns`)."""
        return TreeRuns(self, runs, rng)


class TreeRuns:
    """R runs of a :class:`CentralTreeMechanism` released online, leaf by leaf, as LinUCB-JDP uses it:
    :meth:`add` takes each run's next leaf and returns each run's noisy prefix sum of z z^T through it,
    as symmetric matrices. The binary mechanism's online form is the tree's own
    (:class:`~dpaudit.mechanisms.counters.tree.TreeStream`): the node ending at leaf t gets its noise when leaf t
    arrives, drawn once per run and reused by every later prefix that contains it. Given the same node
    noise (``noise=`` of :meth:`add`) its prefixes are the mechanism's own
    (:meth:`CentralTreeMechanism.prefix_matrices` of the p-sums plus that noise)."""

    def __init__(self, mechanism: CentralTreeMechanism, runs: int, rng: np.random.Generator):
        self.mechanism = mechanism
        self.runs = integer(mechanism.owner, "runs", runs, 1)
        self.stream = mechanism.tree.stream(self.runs, rng)

    def add(self, rows: Any, noise: np.ndarray | None = None) -> np.ndarray:
        """The next leaf of every run (rows (R, n, d + 1)): the noisy prefix sums through it as
        symmetric matrices (R, d + 1, d + 1) (V~ the top-left d x d block, u the last column's first
        d entries). ``noise``: the new node's noise (R, entries), drawn from the tree's law if None."""
        m = self.mechanism
        if self.stream.t >= m.leaves:
            raise ValueError(f"{m.owner}: all {m.leaves} leaves were added")
        flat = self.stream.add(m.leaf_entries(rows), noise)
        out = np.empty((self.runs, m.d + 1, m.d + 1))
        i, j = m.upper
        out[:, i, j] = flat
        out[:, j, i] = flat
        return out


class ReturningUserStream(Adapter):
    """A tree mechanism on the rounds of U = T / M0 returning users, M0 rounds each (Prop 4.3's
    N-user relation, Def D.4). Data: user-major, shape (U, M0, d + 1) (user u's rows in the order of
    her rounds), so ``ReplaceUser(batch_size=U)`` replaces all rounds of one user. ``schedule`` places
    them: "consecutive" (user u at rounds u M0 + 1 .. u M0 + M0: her rounds share the upper nodes)
    or "spread" (user u at rounds u + 1, u + 1 + U, ...: her rounds in different subtrees).
    The release is ``mechanism``'s (:attr:`inner`) on the rows in round order (:meth:`stream`)."""

    paper = "shuffle-lcb"
    source = "Proposition 4.3 / E.7 (user level), Definition D.4"

    def __init__(self, mechanism: CentralTreeMechanism, rounds_per_user: int, schedule: str = "consecutive"):
        self.mechanism = self.inner = mechanism
        self.rounds_per_user = integer(self.owner, "rounds_per_user (M0)", rounds_per_user, 1)
        self.schedule = choice(self.owner, "schedule", schedule, SCHEDULES)
        if mechanism.T % self.rounds_per_user:
            raise ValueError(f"{self.owner}: rounds_per_user (M0) = {self.rounds_per_user} "
                             f"must divide T = {mechanism.T}")
        self.users = mechanism.T // self.rounds_per_user
        u, k = np.indices((self.users, self.rounds_per_user))
        self.rounds = u * self.rounds_per_user + k if self.schedule == "consecutive" else k * self.users + u
        self.name = f"{mechanism!r} on {self.users} users x M0={self.rounds_per_user} rounds ({self.schedule})"

    def stream(self, data: Any) -> np.ndarray:
        """The rows in round order, shape (T, d + 1)."""
        x = np.asarray(data, dtype=float)
        width = self.mechanism.d + 1
        if x.shape != (self.users, self.rounds_per_user, width):
            raise ValueError(f"{self.owner}: data must be ({self.users}, {self.rounds_per_user}, {width}): "
                             f"users x rounds x (phi, y), got {x.shape}")
        out = np.empty((self.mechanism.T, width))
        out[self.rounds.ravel()] = x.reshape(-1, width)
        return out

    def _input(self, data: Any) -> np.ndarray:
        return self.stream(data)


def group_privacy(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """Remark D.5: event-level (eps, delta) gives user-level (k eps, k e^{(k - 1) eps} delta) for k rounds."""
    epsilon = positive("group_privacy", "epsilon", epsilon)
    delta = probability("group_privacy", "delta", delta)
    k = integer("group_privacy", "k", k, 1)
    return k * epsilon, k * math.exp((k - 1) * epsilon) * delta


__all__ = ["LEAF_SENSITIVITY", "WORST_ROW_PAIR", "CentralTreeMechanism", "ReturningUserStream", "TreeRuns",
           "group_privacy", "node_sigma", "tree_levels"]
