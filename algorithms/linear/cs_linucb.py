"""concurrent-shuffle Algorithm 4 (Concurrent Shuffle Private LinUCB) and its central-tree baseline:
LinUCB updating every round (B = 1) on private cumulative sums of phi y and phi phi^T.

**Algorithm 4** (:class:`TreeLinUCB` with :class:`ConcurrentShuffleStatistics`). User t plays
a_t in argmax <phi, theta_{t-1}> + beta_{t-1} ||phi||_{V_{t-1}^{-1}} (the spec's reading of the
undefined index m: the latest estimates), sends (phi y, phi phi^T) to the k shufflers of Corollary
3.5's vector counter (:class:`~dpaudit.mechanisms.counters.concurrent_shuffle.VectorConcurrentTree`: Algorithm
3's tree, every block one P_Vec run at (eps/k, delta/k)), and the server sets V_t = V~_t + lam I,
theta_t = V_t^{-1} u_t from the blocks of V^t (Definition 3.1: completed blocks only, so up to
d_low - 1 users are missing from the sums). The statistics come from the mechanism's vectorised
stream (:class:`~dpaudit.mechanisms.counters.concurrent_shuffle.VectorTreeStream`), debiased by P_Vec's
analyzer; a released V that is not positive definite is guarded by :class:`LinUCB`.

**Parameters** (Theorem C.3 = 5.1): alpha = 1/n, lam = 2 sigma~ sqrt d and

    beta_t = sigma sqrt(2 log(2/alpha) + d log(3 + 2t / (d lam))) + sqrt(3 lam / 2) + sqrt(lam / 2)

(rho_max = 3 lam/2, rho_min = lam/2, L = S = 1, gamma = sqrt(lam/2); the spec's reconstruction),
sigma the rewards' sub-Gaussian constant (1/2 for rewards in [0, 1], Bernoulli). sigma~ is "the
per-entry error bound of Corollary 3.5", printed as O~(.) only; computed from the mechanism
(:meth:`ConcurrentShuffleStatistics.sigma_tilde`): the largest over t <= n of the sub-Gaussian
proxy v_t of one entry's noise at t (the sum over V^t's blocks of (1/g)^2 s (b + 1)/4,
:meth:`~dpaudit.mechanisms.counters.concurrent_shuffle.VectorConcurrentTree.noise_proxy`), turned into the
bound the proof uses -- every entry at every t within sigma~ with probability 1 - 1/(n^2 (d^2 + d)),
so sqrt(2 v ln(2 n^2 (d^2 + d))) by Hoeffding -- plus d_low - 1, the intra-batch error (entries are
at most 1 in magnitude).

**Tree shape** (the spec's 2.10 [choice]): d = ceil(n^(2/(2k+1))) (at least 2), d_low = ceil(n / d^k);
when d_low d^k > n the tree is padded to N = d_low d^k users and the blocks that would complete after n
never release (privacy is unchanged: every user is still in k blocks). k = 1 is the sequential
baseline of Section 2.6 (Algorithm 3 with one internal level: consecutive batches of d_low ~ n^(1/3)
users on one shuffler, each at the whole (eps, delta)); k = "log n" (Corollary 5.2) is k = ceil(log2 n)
in Algorithm 3 (d = 2, d_low = 1 when n is a power of 2: the lowest blocks are single users), not
Algorithm 2, which has log2 n - 1 levels of blocks of 2..n/2. More shufflers than ceil(log2 n) would
only add levels of blocks larger than n, which never complete: refused.

**Central baseline** (:class:`CentralTreeStatistics`): the same policy on the centralised binary-tree
mechanism of Section 2.5 as the paper's "centralized (Shariff & Sheffet 2018)" row of its regret
table instantiates it: shuffle-lcb's :class:`~dpaudit.mechanisms.counters.central_tree.CentralTreeMechanism`
(the tree over z z^T, z = (phi, y), Gaussian node noise calibrated for the whole (eps, delta) by the
analytic Gaussian mechanism; its docstring states the calibration). sigma~ is computed the same way
from its node sigma (popcount(t) <= L node draws per entry), with no intra-batch term.

Per-run references: :func:`linucb_released_one_run` plays one run with plain numpy from a function
that gives the released sums of that run, :func:`tree_release_one_run` and
:func:`central_release_one_run` build that function from one run's recorded block (node) noise, so the
reference and the vectorised policy face the same draws.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import integer, positive, probability
from dpaudit.mechanisms.counters.central_tree import CentralTreeMechanism
from dpaudit.mechanisms.counters.concurrent_shuffle import VectorConcurrentTree
from dpaudit.mechanisms.shuffle.shuffle_vec import NORM_SLACK, upper_indices

from ..runs_in_threads import over_runs
from .linucb import AVAILABLE, LinUCB, first_best, reward_arguments

try:  # the compiled rounds on the tree (an optional dependency: pip install dpaudit[fast])
    from .cs_compiled import tree_linucb_rounds
except ImportError:  # numba missing: play_rounds goes round by round
    tree_linucb_rounds = None

#: Theorem 5.1's range
EPS_MAX, DELTA_MAX = 1.0, 0.5
#: the rewards' sub-Gaussian constant for rewards in [0, 1] (Bernoulli): Hoeffding's 1/2
REWARD_SIGMA = 0.5
#: most rounds whose tree draws the compiled rounds take at once (the draws of a round hold 2 k runs labels numbers)
DRAWS_AHEAD = 64


def shuffler_count(k: Any, n: int) -> int:
    """The number of shufflers: an integer >= 1, or "log n" for ceil(log2 n) (Corollary 5.2)."""
    n = integer("cs-linucb", "n", n, 2)
    levels = (n - 1).bit_length()  # ceil(log2 n)
    if isinstance(k, str):
        if k.replace(" ", "").casefold() != "logn":
            raise ValueError(f"cs-linucb: k must be an integer >= 1 or 'log n', got {k!r}")
        return levels
    k = integer("cs-linucb", "k", k, 1)
    if k > levels:
        raise ValueError(f"cs-linucb: k = {k} shufflers exceed ceil(log2 n) = {levels} for n = {n}; the extra levels "
                         "would hold blocks of more than n users, which never complete")
    return k


def tree_shape(n: int, k: int) -> tuple[int, int, int]:
    """(N, d, d_low): d = max(2, ceil(n^(2/(2k+1)))), d_low = ceil(n / d^k), N = d_low d^k >= n."""
    d = max(2, math.ceil(n ** (2 / (2 * k + 1)) - 1e-9))  # exact powers must not round up
    d_low = -(-n // d**k)
    return d_low * d**k, d, d_low


def hoeffding_bound(proxy: float, n: int, d: int) -> float:
    """sqrt(2 v ln(2 n^2 (d^2 + d))): one entry at one time exceeds it with probability at most
    1 / (n^2 (d^2 + d)) (Theorem C.3's per-entry level), v the entry's sub-Gaussian proxy."""
    return math.sqrt(2 * proxy * math.log(2 * n**2 * (d**2 + d)))


class ConcurrentShuffleStatistics:
    """Algorithm 4's released sums from Corollary 3.5's vector counter (module docstring), with the
    interface of :class:`~dpaudit.algorithms.linear.linucb.ExactStatistics` (B = 1: one user a round).
    ``record``: keep every block's noise per run (:attr:`block_noise`, for the per-run reference).
    ``record_views``: append every completed block's label counts (runs, labels), the shufflers' views
    in the order the blocks complete, to :attr:`views` (for algorithm-level audits of the messages)."""

    noiseless: ClassVar[bool] = False
    record_views = False

    def __init__(self, eps: float, delta: float, k: Any = "log n", record: bool = False):
        self.eps, self.delta, self.k_arg, self.record = eps, delta, k, record
        self.name = f"Corollary 3.5's vector counter (k = {k})"

    def tree(self, horizon: int, d: int) -> VectorConcurrentTree:
        """The tree for n = ``horizon`` users in dimension d (padded: module docstring)."""
        k = shuffler_count(self.k_arg, horizon)
        N, degree, d_low = tree_shape(horizon, k)
        return VectorConcurrentTree(N, k, self.eps, self.delta, degree, d_low, dim=d)

    def sigma_tilde(self, horizon: int, d: int) -> float:
        """The per-entry error bound sigma~ (module docstring)."""
        tree = self.tree(horizon, d)
        worst = float(tree.noise_proxy(np.arange(1, horizon + 1)).max())
        return hoeffding_bound(worst, horizon, d) + (tree.shape[3] - 1)

    def start(self, runs: int, d: int, horizon: int, rng: np.random.Generator) -> None:
        self.mechanism = self.tree(horizon, d)
        self.stream = self.mechanism.stream(runs, rng)
        k = self.mechanism.k
        self._gram = np.zeros((k, runs, d, d))  # per level, its blocks' debiased sums in the current V^t
        self._u = np.zeros((k, runs, d))
        self.views: list[np.ndarray] = []
        if self.record:
            self._exact_gram, self._exact_u = np.zeros((k, runs, d, d)), np.zeros((k, runs, d))
            self.block_noise: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def release(self, t: int, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        phi, reward = X[:, -1], y[:, -1]
        released = self.stream.add(np.concatenate([phi, reward[:, None]], axis=1))
        if self.record:
            self._exact_gram += np.einsum("rd,re->rde", phi, phi)
            self._exact_u += phi * reward[:, None]
        for index, counts in released:  # lowest level first
            if self.record_views:
                self.views.append(counts)
            level = self.mechanism.blocks[index][0]
            u, gram = self.mechanism.protocols[level].analyze(counts)
            # a completed level-l block replaces the lower-level blocks it contains (Definition 3.1)
            self._gram[level] += gram
            self._u[level] += u
            self._gram[:level] = 0.0
            self._u[:level] = 0.0
            if self.record:
                self.block_noise[index] = (u - self._exact_u[level], gram - self._exact_gram[level])
                self._exact_gram[level] = 0.0
                self._exact_u[level] = 0.0
        return self._gram.sum(axis=0), self._u.sum(axis=0)


class CentralTreeStatistics:
    """The central baseline's released sums: shuffle-lcb's LinUCB-JDP tree (module docstring), one leaf
    z z^T a round, through :meth:`~dpaudit.mechanisms.counters.tree.BinaryTreeMechanism.stream`. ``record``:
    keep every node's noise per run (:attr:`node_noise`, shape (T, runs, entries))."""

    noiseless: ClassVar[bool] = False

    def __init__(self, eps: float, delta: float, record: bool = False):
        self.eps, self.delta, self.record = eps, delta, record
        self.name = "central binary tree (Gaussian nodes)"

    def mechanism_for(self, horizon: int, d: int) -> CentralTreeMechanism:
        return CentralTreeMechanism.event_level(horizon, d, self.eps, self.delta)

    def sigma_tilde(self, horizon: int, d: int) -> float:
        """sqrt(2 L sigma^2 ln(2 n^2 (d^2 + d))): at most L = floor(log2 n) + 1 node draws per entry."""
        mechanism = self.mechanism_for(horizon, d)
        return hoeffding_bound(mechanism.tree.levels * mechanism.sigma**2, horizon, d)

    def start(self, runs: int, d: int, horizon: int, rng: np.random.Generator) -> None:
        self.mechanism = self.mechanism_for(horizon, d)
        self.stream = self.mechanism.tree.stream(runs, rng)
        self._d = d
        if self.record:
            self.node_noise: list[np.ndarray] = []

    def release(self, t: int, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z = np.concatenate([X[:, -1], y[:, -1:]], axis=1)
        i, j = self.mechanism.upper
        flat = self.stream.add(z[:, i] * z[:, j])  # the noisy prefix of upper(z z^T)
        if self.record:
            self.node_noise.append(self.stream.node_noise.copy())
        d = self._d
        prefix = np.zeros((flat.shape[0], d + 1, d + 1))
        prefix[:, i, j] = flat
        prefix[:, j, i] = flat
        return prefix[:, :d, :d], prefix[:, :d, d]


class TreeLinUCB(LinUCB):
    """LinUCB (B = 1) on a tree release of the cumulative sums, with Theorem C.3's lam and beta_t
    (module docstring); ``statistics`` gives the release and its sigma~."""

    owner: ClassVar[str] = "TreeLinUCB"
    paper: ClassVar[str] = "concurrent-shuffle"
    source: ClassVar[str] = "Algorithm 4 (Concurrent Shuffle Private LinUCB), Theorem C.3's parameters"
    #: the tree holds n = T users (the horizon), and lambda and sigma~ follow from it
    anytime: ClassVar[bool] = False

    def __init__(self, statistics: Any, eps: float, delta: float, lam: float | None = None,
                 alpha: float | None = None, sigma: float = REWARD_SIGMA, label: str = "cs-linucb"):
        eps = positive(label, "eps", eps)
        delta = probability(label, "delta", delta)
        super().__init__(1, 1.0 if lam is None else lam, alpha, statistics)
        self.lam_given = None if lam is None else self.lam
        self.sigma = positive(label, "sigma", sigma)
        self.eps, self.delta = eps, delta
        self.name = f"{label}(eps={eps:g}, delta={delta:g}, {statistics.name})"
        for name, value, top in (("eps", eps, EPS_MAX), ("delta", delta, DELTA_MAX)):
            if not value < top:
                note = (f"{label}: {name} = {value:g} is outside Theorem 5.1's range ({name} < {top:g}); "
                        "the privacy and regret guarantees do not cover it")
                warnings.warn(note, stacklevel=3)
                self.notes.append(note)

    @property
    def block_rounds(self) -> bool:
        """It plays a linear bandit's blocks of rounds (:meth:`LinUCB.play_rounds`) one round at a time: the tree's
        releases depend on the round's data, so nothing is drawn ahead, but the block's contexts and played-arm
        reward draws are those every block-playing policy on the seed reads."""
        return True

    @property
    def compiled_rounds(self) -> bool:
        """Never LinUCB's compiled loop, which knows Gaussian releases, not the trees (:attr:`compiled_tree`)."""
        return False

    #: whether :meth:`play_rounds` may run compiled on the tree; the tests set it False on an instance to hold the
    #: compiled rounds to the numpy path
    compiled_tree_rounds: ClassVar[bool] = True

    @property
    def compiled_tree(self) -> bool:
        """Whether :meth:`play_rounds` runs compiled (:mod:`.cs_compiled`): numba is installed and the statistics
        are Corollary 3.5's vector counter, recording nothing per run (the per-run reference's records are the numpy
        path's)."""
        statistics = self.statistics
        return (self.compiled_tree_rounds and AVAILABLE and tree_linucb_rounds is not None
                and type(statistics) is ConcurrentShuffleStatistics
                and not statistics.record and not statistics.record_views)

    def play_rounds(self, t: int, contexts: Any, rewards: Any) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`LinUCB.play_rounds`; compiled on the tree when :attr:`compiled_tree` and every arm of the block
        satisfies Assumption 3.1 (||phi|| <= 1, which the tree's randomizer checks; else round by round, where the
        randomizer raises at the round that breaks it). The tree's draws are made ahead, :data:`DRAWS_AHEAD` rounds
        at a time, in the order the round-by-round path makes them."""
        if not self.compiled_tree:
            return super().play_rounds(t, contexts, rewards)
        count = self._block_count(rewards)
        fixed, x = self._compiled_block(t, contexts, rewards, count)
        table, d = isinstance(rewards, np.ndarray), self._d
        stream = self.statistics.stream
        bound = stream.tree.protocols[0].norm_bound + NORM_SLACK
        if ((np.einsum("...i,...i->...", x, x) > bound**2).any() or not np.isfinite(x).all()
                or (table and (np.abs(rewards) > 1 + NORM_SLACK).any())):
            return self._rounds_one_by_one(t, contexts, rewards, count)
        law, table_values, theta_star, sigma, noise = reward_arguments(rewards)
        betas = self.radius(np.arange(t - 1, t + count - 1), d)  # B = 1: round t reads the model after t - 1
        precision, scale, offset, shift = stream.debias_constants()
        sizes = np.asarray(stream.tree.sizes, dtype=np.int64)
        upper_i, upper_j = (np.ascontiguousarray(a, dtype=np.int64) for a in upper_indices(d))
        indefinite = np.zeros(self.runs, dtype=np.int64)
        played = np.empty((count, self.runs), dtype=np.int64)
        collected = np.empty((count, self.runs))
        for lo in range(0, count, DRAWS_AHEAD):
            hi = min(count, lo + DRAWS_AHEAD)
            uniforms, tree_noise = stream.draws_ahead(hi - lo)
            over_runs(tree_linucb_rounds, self.runs, t + lo, x if fixed else x[lo:hi], fixed, law,
                      table_values[lo:hi] if table else table_values, theta_star, sigma,
                      noise if table else noise[lo:hi], betas[lo:hi], self.lam, uniforms, tree_noise, sizes, precision,
                      scale, offset, shift, upper_i, upper_j, stream._rounded, self.statistics._gram,
                      self.statistics._u, self.V_inv, self.theta, indefinite, played[lo:hi], collected[lo:hi])
            stream.t += hi - lo
        self.beta = float(self.radius(t + count - 1, d))
        self._last = None
        if indefinite.any():
            self._count_indefinite(int(indefinite.sum()))
        return played, collected

    def _begin(self, d: int) -> None:
        self.sigma_tilde = float(self.statistics.sigma_tilde(self.horizon, d))
        self.lam = self.lam_given if self.lam_given is not None else 2 * self.sigma_tilde * math.sqrt(d)
        self.lam_min, self.lam_max = self.lam / 2, 3 * self.lam / 2
        super()._begin(d)

    def radius(self, t_m: Any, d: int) -> np.ndarray:
        """beta_t = sigma sqrt(2 log(2/alpha) + d log(3 + 2t/(d lam))) + sqrt(3 lam/2) + sqrt(lam/2)."""
        t = np.asarray(t_m, dtype=float)
        return (self.sigma * np.sqrt(2 * math.log(2 / self._alpha) + d * np.log(3 + 2 * t / (d * self.lam)))
                + math.sqrt(1.5 * self.lam) + math.sqrt(0.5 * self.lam))


# -- per-run references ------------------------------------------------------------------------------------


Release = Callable[[int, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def tree_release_one_run(tree: VectorConcurrentTree, block_noise: dict[int, tuple[np.ndarray, np.ndarray]],
                         run: int) -> Release:
    """One run's released sums at t from its played rows: the blocks of V^t found afresh (the largest
    completed block starting where the cover ends, from user 1 on), each its exact sums plus the run's
    recorded noise."""
    def release(t: int, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = X.shape[1]
        gram, u, start = np.zeros((d, d)), np.zeros(d), 0
        while True:
            done = [(size, i) for i, (_, first, size) in enumerate(tree.blocks) if first == start and first + size <= t]
            if not done:
                return gram, u
            size, i = max(done)
            rows = slice(start, start + size)
            gram += X[rows].T @ X[rows] + block_noise[i][1][run]
            u += X[rows].T @ y[rows] + block_noise[i][0][run]
            start += size
    return release


def central_release_one_run(mechanism: CentralTreeMechanism, node_noise: list[np.ndarray], run: int) -> Release:
    """One run's released sums at t: the dyadic blocks of t's binary expansion, each its exact sum of
    upper(z z^T) plus the run's recorded node noise, mirrored into a symmetric matrix."""
    def release(t: int, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = X.shape[1]
        z = np.concatenate([X, y[:, None]], axis=1)
        i, j = mechanism.upper
        total = np.zeros(len(i))
        for end in mechanism.tree.prefix_nodes(t):
            begin = end - (end & -end)
            block = z[begin:end]
            total += (block[:, i] * block[:, j]).sum(axis=0) + node_noise[end - 1][run]
        full = np.zeros((d + 1, d + 1))
        full[i, j] = total
        full[j, i] = total
        return full[:d, :d], full[:d, d]
    return release


def linucb_released_one_run(policy: TreeLinUCB, contexts: np.ndarray, rewards: np.ndarray,
                            release: Release) -> np.ndarray:
    """The plain per-run reference of :class:`TreeLinUCB`: ``contexts`` (n, K, d), ``rewards`` (n, K),
    ``release(t, X, y)`` the run's released (V~, u) after t rounds given its played features and rewards;
    V solved afresh every round, a V that is not positive definite keeps the previous one."""
    n, K, d = contexts.shape
    alpha = policy.alpha if policy.alpha is not None else 1 / max(n, 2)
    lam, sigma = policy.lam, policy.sigma

    def beta(t: int) -> float:
        return (sigma * math.sqrt(2 * math.log(2 / alpha) + d * math.log(3 + 2 * t / (d * lam)))
                + math.sqrt(1.5 * lam) + math.sqrt(0.5 * lam))

    V, theta, radius = lam * np.eye(d), np.zeros(d), beta(0)
    X, y = np.zeros((n, d)), np.zeros(n)
    played = np.empty(n, dtype=np.int64)
    for t in range(1, n + 1):
        V_inv = np.linalg.inv(V)
        scores = np.array([contexts[t - 1, a] @ theta + radius * math.sqrt(max(contexts[t - 1, a] @ V_inv
                                                                               @ contexts[t - 1, a], 0.0))
                           for a in range(K)])
        a_t = int(first_best(scores[None])[0])
        played[t - 1] = a_t
        X[t - 1], y[t - 1] = contexts[t - 1, a_t], rewards[t - 1, a_t]
        gram, u = release(t, X[:t], y[:t])
        candidate = gram + lam * np.eye(d)
        if np.linalg.eigvalsh(candidate)[0] > 0:
            V = candidate
        theta = np.linalg.solve(V, u)
        radius = beta(t)
    return played


__all__ = ["CentralTreeStatistics", "ConcurrentShuffleStatistics", "TreeLinUCB", "central_release_one_run",
           "linucb_released_one_run", "shuffler_count", "tree_release_one_run", "tree_shape"]
