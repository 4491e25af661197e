"""concurrent-shuffle: Algorithm 1 (private summation under continual observation with k concurrent
shufflers) with a deterministic, non-adaptive server, and the schedules the paper runs on it.

**Algorithm 1** (:class:`ConcurrentShuffleCounter`). Users t = 1..n arrive one at a time with bits
b_t. The server's schedule is a list of batches; a batch is one shuffle mechanism on one shuffler,
activated when its first user arrives and released when its last user has sent (users start..end - 1,
consecutive, since every user sends to every active shuffler). A shuffler runs one mechanism at a
time, so the batches of one shuffler must not overlap (checked). Every batch is M^sum_bin
(:class:`~dpaudit.mechanisms.counters.concurrent_tree.BinarySummation`: the batch's bits plus N' fair coins,
released as the shuffled multiset's count of ones) at its own (eps_b, delta_b). The protected output
(CSDP, Section 3) is the concatenation of all releases, i.e. every batch's count: a product of
finite laws (:meth:`ConcurrentShuffleCounter.distribution`), audited exactly.

The estimate at time t sums the analyzed outputs (count - N'/2) of V^t (Definition 3.1): the highest
completed batches covering a prefix of the users. For a general schedule: starting at user 1, take
the largest batch completed by time t that starts where the cover ends, until none does
(:meth:`ConcurrentShuffleCounter.cover`). On the trees this is Definition 3.1's V^t (the highest-level
nodes first; the root is never a batch, so V^n is the d children of the root).

Schedules (constructors):
  - :meth:`~ConcurrentShuffleCounter.tree`: Algorithm 3, levels i = 1..k of blocks of d_low d^(i-1)
    users on shuffler i, each block at (eps/k, delta/k) (Theorem 3.4);
  - :meth:`~ConcurrentShuffleCounter.binary_tree`: Algorithm 2 as printed: the binary tree over
    n = 2^L users, internal levels 1..L - 1 (k = L - 1 shufflers), every node at (eps/log n, delta/log n)
    (Theorem 3.2; the proof composes over "at most log n" mechanisms, so the printed split is by log n
    although each user is in log n - 1 of them);
  - :meth:`~ConcurrentShuffleCounter.sequential`: the sequential (k = 1) baseline of Section 3.1:
    consecutive disjoint batches of b users on one shuffler, each at the whole (eps, delta);
  - :meth:`~ConcurrentShuffleCounter.lowest_levels` / :meth:`~ConcurrentShuffleCounter.highest_levels`:
    Section 3.2's naive modifications of Algorithm 2 with k < log n - 1 shufflers (the k lowest internal
    levels, sizes 2..2^k; the k highest, sizes 2^(log n - k)..2^(log n - 1): the printed upper index
    log n would be the root, which has no shuffler), each node at (eps/k, delta/k);
  - :func:`~dpaudit.mechanisms.accounting.advanced_composition_budget`: the per-mechanism budget of
    footnotes 9-10's variant, from advanced composition (footnote 2) in its exact form
    eps = eps0 sqrt(2 k ln(1/delta')) + k eps0 (e^eps0 - 1), delta = k delta0 + delta'.

Choices where the paper is silent: M^sum_bin is concurrent_tree's fair-coin protocol (not printed
by the paper); the server is non-adaptive (the trees are data-independent); a batch's coins are
drawn by its users as M^sum_bin says (the per-user path), the fast path draws the count's law;
n must fit the schedule exactly (no padding).

:func:`variance_bound` is the paper's V_{n,eps,delta} for this M^sum_bin: the largest sub-Gaussian
variance proxy N'/4 of its error Bin(N', 1/2) - N'/2 over batch sizes m <= n (Section 2.2 defines V
as a bound over all batch sizes <= n). :func:`theorem_3_2_step` and :func:`theorem_3_2_alpha` are the
proof of Theorem 3.2's printed Hoeffding step and the alpha it gives with the union bound.

:meth:`ConcurrentShuffleCounter.stream` runs the counter online, one user per round and one bit per run
(:class:`CounterStream`, the lower bound's simulations: each run its own random input), and
:meth:`ConcurrentShuffleCounter.bit_loss_tails` is the exact mass of one user's bit's log-likelihood
ratio outside [-r, r] (Lemma B.2's sets, which the proof of Theorem 4.1 bounds through Lemma B.3).

**Vector instantiation** (:class:`VectorConcurrentTree`, Corollaries 3.3 and 3.5 with M^sum_vec): the
same tree with every block shuffle-lcb's P_Vec on rows (phi, y), at Theorem C.1's parameters for the
block's budget and size.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from scipy import stats

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer, probability, sample_size

from ..base import ExactRelease
from ..noise import Binomial
from .concurrent_tree import BinarySummation, coins_for, cover_counts, tree_cover, user_bits


@dataclass(frozen=True)
class Batch:
    """One shuffle mechanism: users start..start + size - 1 (0-based) on ``shuffler``, at (epsilon, delta)."""

    shuffler: int
    start: int
    size: int
    epsilon: float
    delta: float

    @property
    def end(self) -> int:
        return self.start + self.size


@cache
def _protocol(epsilon: float, delta: float, m: int) -> BinarySummation:
    # coins_for bisects an exact profile: one protocol per (budget, size), shared by a tree's nodes
    return BinarySummation(epsilon, delta, m)


def variance_bound(n: int, epsilon: float, delta: float) -> float:
    """V_{n,eps,delta} of M^sum_bin: max over batch sizes m <= n of N'_m / 4, where N'_m = m ceil(N/m)
    for m <= N and N for m > N (N = coins_for(eps, delta))."""
    n = integer("variance_bound", "n", n, 1)
    coins = coins_for(epsilon, delta)
    m = np.arange(1, min(n, coins) + 1)
    return float(np.max(m * -(-coins // m))) / 4


def theorem_3_2_step(n: int, epsilon: float, delta: float, beta: float, log=math.log,
                     reconstructed: bool = False) -> float:
    """The proof of Theorem 3.2's printed Hoeffding step: with probability 1 - beta/n the sum of noises at
    a time t is at most sqrt(log(1/beta) + log n) sqrt(V log2 n), V = V_{n, eps/log n, delta/log n}
    (``log`` is the reading of the first two logs: natural or base 2; the tree's depth is log2 n).

    The dump garbles the step's constant; ``reconstructed=True`` reads it as the specification rebuilds
    it, sqrt(2 (log(1/beta) + log n)) sqrt(V log2 n) (Hoeffding's factor 2 under the root)."""
    owner = "theorem_3_2_step"
    beta = probability(owner, "beta", beta)
    depth = _log2(owner, n)
    factor = 2.0 if reconstructed else 1.0
    return math.sqrt(factor * (log(1 / beta) + log(n))) * math.sqrt(variance_bound(n, epsilon / depth, delta / depth)
                                                                    * depth)


def theorem_3_2_alpha(n: int, epsilon: float, delta: float, beta: float) -> float:
    """Theorem 3.2's alpha with the proof's constants: the step at natural logs (union bound over the n
    times) plus 1, the bit |b_t| <= 1 an odd time adds."""
    return theorem_3_2_step(n, epsilon, delta, beta) + 1


class ConcurrentShuffleCounter(ExactRelease):
    """Algorithm 1 with a fixed schedule of M^sum_bin batches (module docstring).

    Data: the n users' bits in arrival order. Output (:meth:`sample`): every batch's count of ones,
    in schedule order. :meth:`estimates` turns counts into the running sums S_t, t = 1..n."""

    paper = "concurrent-shuffle"
    source = "Algorithm 1 (k concurrent shufflers, a fixed non-adaptive schedule of M^sum_bin batches)"

    def __init__(self, n: int, batches: Sequence[Batch], name: str | None = None):
        self.n = integer(self.owner, "n", n, 1)
        self.batches = list(batches)
        if not self.batches:
            raise ValueError(f"{self.owner}: the schedule needs at least one batch")
        for b in self.batches:
            integer(self.owner, "batch shuffler", b.shuffler, 0)
            integer(self.owner, "batch size", b.size, 1)
            if not (0 <= b.start and b.end <= self.n):
                raise ValueError(f"{self.owner}: batch {b} must lie within users 0..n - 1 = {self.n - 1}")
        for s in {b.shuffler for b in self.batches}:
            mine = sorted((b for b in self.batches if b.shuffler == s), key=lambda b: b.start)
            for first, second in itertools.pairwise(mine):
                if second.start < first.end:
                    raise ValueError(f"{self.owner}: shuffler {s} would run two mechanisms at once "
                                     f"(users {first.start}..{first.end - 1} and {second.start}..{second.end - 1})")
        self.k = len({b.shuffler for b in self.batches})
        self.protocols = [_protocol(b.epsilon, b.delta, b.size) for b in self.batches]
        self.coins = np.array([p.coins for p in self.protocols])
        self.members = np.zeros((len(self.batches), self.n), dtype=bool)
        for i, b in enumerate(self.batches):
            self.members[i, b.start: b.end] = True
        self._covers = self._all_covers()
        self.cover_matrix = np.zeros((self.n, len(self.batches)))
        for t in range(1, self.n + 1):
            self.cover_matrix[t - 1, self._covers[t]] = 1.0
        self.name = name or f"Algorithm 1 schedule (n={self.n}, k={self.k}, {len(self.batches)} batches)"

    # -- schedules -------------------------------------------------------------------------------

    @classmethod
    def tree(cls, n: int, k: int, epsilon: float, delta: float, d: int, d_low: int,
             budget: tuple[float, float] | None = None) -> ConcurrentShuffleCounter:
        """Algorithm 3: n = d_low d^k users, level i = 1..k of blocks of d_low d^(i-1) users on shuffler
        i - 1, every block at ``budget`` (default (eps/k, delta/k), Theorem 3.4's split)."""
        n, k, d, d_low = cls._shape(n, k, d, d_low)
        eps0, delta0 = budget if budget is not None else (epsilon / k, delta / k)
        sizes = [d_low * d ** (i - 1) for i in range(1, k + 1)]
        return cls(n, [Batch(i, j * s, s, eps0, delta0) for i, s in enumerate(sizes) for j in range(n // s)],
                   name=f"Algorithm 3 (n={n}, k={k}, d={d}, d_low={d_low}, node budget ({eps0:.4g}, {delta0:.3g}))")

    @classmethod
    def _shape(cls, n: Any, k: Any, d: Any, d_low: Any) -> tuple[int, int, int, int]:
        owner = cls.__name__  # what Release.owner gives the instances
        n, k = integer(owner, "n", n, 2), integer(owner, "k", k, 1)
        d, d_low = integer(owner, "d", d, 2), integer(owner, "d_low", d_low, 1)
        if d_low * d ** k != n:
            raise ValueError(f"{owner}: n must equal d_low d^k = {d_low * d ** k} (d = {d}, d_low = {d_low}, "
                             f"k = {k}), got n = {n}")
        return n, k, d, d_low

    @classmethod
    def binary_tree(cls, n: int, epsilon: float, delta: float) -> ConcurrentShuffleCounter:
        """Algorithm 2 as printed: n = 2^L users, k = L - 1 shufflers, nodes at (eps/log n, delta/log n)."""
        owner = cls.__name__
        levels = _log2(owner, n)
        if levels < 2:
            raise ValueError(f"{owner}: Algorithm 2 needs n >= 4 (an internal level), got {n}")
        out = cls.tree(n, levels - 1, epsilon, delta, 2, 2, budget=(epsilon / levels, delta / levels))
        out.name = (f"Algorithm 2 (n={n}, k={levels - 1}, nodes at (eps/log n, delta/log n) = "
                    f"({epsilon / levels:.4g}, {delta / levels:.3g}))")
        return out

    @classmethod
    def sequential(cls, n: int, batch: int, epsilon: float, delta: float) -> ConcurrentShuffleCounter:
        """Section 3.1's sequential model: one shuffler, n / batch consecutive batches at (eps, delta) each."""
        owner = cls.__name__
        n, batch = integer(owner, "n", n, 1), integer(owner, "batch", batch, 1)
        if n % batch:
            raise ValueError(f"{owner}: the batch size must divide n (no padding), got n = {n}, batch = {batch}")
        return cls(n, [Batch(0, j * batch, batch, epsilon, delta) for j in range(n // batch)],
                   name=f"sequential shuffle counter (n={n}, batch={batch}, eps={epsilon:g}, delta={delta:g})")

    @classmethod
    def lowest_levels(cls, n: int, k: int, epsilon: float, delta: float) -> ConcurrentShuffleCounter:
        """Section 3.2's first naive variant: Algorithm 2's k lowest internal levels (sizes 2..2^k)."""
        return cls._levels(n, k, epsilon, delta, lowest=True)

    @classmethod
    def highest_levels(cls, n: int, k: int, epsilon: float, delta: float) -> ConcurrentShuffleCounter:
        """Section 3.2's second naive variant: the k highest internal levels (sizes 2^(log n - k)..n/2)."""
        return cls._levels(n, k, epsilon, delta, lowest=False)

    @classmethod
    def _levels(cls, n: int, k: int, epsilon: float, delta: float, lowest: bool) -> ConcurrentShuffleCounter:
        owner = cls.__name__
        levels = _log2(owner, n)
        k = integer(owner, "k", k, 1)
        if k > levels - 1:
            raise ValueError(f"{owner}: k must be <= log2 n - 1 = {levels - 1} internal levels, got {k}")
        heights = range(1, k + 1) if lowest else range(levels - k, levels)
        batches = [Batch(i, j * 2 ** h, 2 ** h, epsilon / k, delta / k)
                   for i, h in enumerate(heights) for j in range(n // 2 ** h)]
        which = "lowest" if lowest else "highest"
        return cls(n, batches,
                   name=f"Algorithm 2's {k} {which} levels (n={n}, nodes at ({epsilon / k:.4g}, {delta / k:.3g}))")

    # -- the mechanism ---------------------------------------------------------------------------

    def _input(self, data: Any) -> np.ndarray:
        return user_bits(self.owner, data, self.n)

    def participation(self) -> np.ndarray:
        """How many mechanisms each user takes part in."""
        return self.members.sum(axis=0)

    def batch_sums(self, data: Any) -> np.ndarray:
        return self.members.astype(np.int64) @ self._input(data)

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """Fast path: every batch's count drawn from its law, sum of bits + Bin(N', 1/2)."""
        return (self.members.astype(np.int64) @ x)[None, :] + rng.binomial(self.coins, 0.5, (size, len(self.batches)))

    def sample_per_user(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Per-user path, Algorithm 1's loop: user t sends its bit and its own fair coins to every
        active shuffler; a shuffler's release is the count of ones of the multiset it received."""
        x, size = self._input(data), sample_size(self.owner, size)
        counts = np.zeros((size, len(self.batches)), dtype=np.int64)
        user_coins = [p.coins_of_users() for p in self.protocols]
        for t in range(self.n):
            for i in np.flatnonzero(self.members[:, t]):
                counts[:, i] += x[t] + rng.binomial(user_coins[i][t - self.batches[i].start], 0.5, size)
        return counts

    def _distribution(self, x: np.ndarray) -> ProductDistribution:
        return ProductDistribution(tuple(p.distribution(x[b.start: b.end])
                                    for p, b in zip(self.protocols, self.batches, strict=True)))

    # -- the server's estimates ------------------------------------------------------------------

    def _cover(self, t: int) -> list[int]:
        done = [i for i, b in enumerate(self.batches) if b.end <= t]
        out, start = [], 0
        while True:
            here = [i for i in done if self.batches[i].start == start]
            if not here:
                return out
            best = max(here, key=lambda i: self.batches[i].size)
            out.append(best)
            start = self.batches[best].end

    def _all_covers(self) -> list[list[int]]:
        """:meth:`_cover` for t = 0..n in one pass: V^t changes only when a batch completes, and then
        it is the walk from user 1 through the largest completed batch starting where the walk is (ties
        to the lowest index, as :meth:`_cover`)."""
        ending: dict[int, list[int]] = {}
        for i, b in enumerate(self.batches):
            ending.setdefault(b.end, []).append(i)
        largest: dict[int, int] = {}  # start -> the largest batch completed so far that starts there
        covers: list[list[int]] = [[]]
        for t in range(1, self.n + 1):
            done = ending.get(t)
            if done:
                for i in done:
                    start = self.batches[i].start
                    if start not in largest or self.batches[i].size > self.batches[largest[start]].size:
                        largest[start] = i
                walk, start = [], 0
                while start in largest:
                    walk.append(largest[start])
                    start = self.batches[largest[start]].end
                covers.append(walk)
            else:
                covers.append(covers[-1])
        return covers

    def cover(self, t: int) -> list[Batch]:
        """V^t: the batches whose analyzed outputs make the estimate at time t (module docstring)."""
        t = integer(self.owner, "t", t, 0)
        if t > self.n:
            raise ValueError(f"{self.owner}: t must be in 0..n = {self.n}, got {t}")
        return [self.batches[i] for i in self._covers[t]]

    def estimates(self, counts: Any) -> np.ndarray:
        """S_t, t = 1..n, from released counts (shape (..., batches)): the debiased counts of V^t summed."""
        return (np.asarray(counts, dtype=float) - self.coins / 2) @ self.cover_matrix.T

    def errors(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """S_t - sum_{i <= t} b_i for t = 1..n, ``size`` runs (shape (size, n))."""
        return self.estimates(self.sample(data, size, rng)) - np.cumsum(self._input(data))

    def max_error_sampler(self, data: Any, chunk: int = 20_000):
        """f(size, rng) -> max_t |S_t - sum_{i <= t} b_i| per run (Definition 2.1's event), in chunks."""
        self._input(data)

        def draw(size: int, rng: np.random.Generator) -> np.ndarray:
            size = sample_size(self.owner, size)
            return np.concatenate([np.abs(self.errors(data, min(chunk, size - i), rng)).max(axis=1)
                                   for i in range(0, size, chunk)] or [np.zeros(0)])

        draw.__name__ = f"max_t |error| of {self.name}"
        return draw

    def noise_coins(self, t: int) -> int:
        """sum of N' over V^t: the noise of S_t is Bin(that, 1/2) minus its mean."""
        return int(sum(self.coins[i] for i in self._covers[integer(self.owner, "t", t, 0)]))

    def noise_law(self, t: int) -> Binomial:
        """Bin(sum of N' over V^t, 1/2): the estimate's noise at time t is this law centred (the claims
        about it say ``centred=True``); the error adds minus the bits after V^t's last user."""
        coins = self.noise_coins(t)
        if coins == 0:
            raise ValueError(f"{self.owner}: no batch is complete at t = {t}; the estimate has no noise")
        return Binomial(coins, 0.5)

    def noisiest_time(self) -> int:
        """The earliest t with the most noise coins."""
        return int(np.argmax([self.noise_coins(t) for t in range(self.n + 1)]))

    def bit_loss_tails(self, user: int, bound: float) -> tuple[float, float]:
        """P(|L| > bound | b = 0) and P(|L| > bound | b = 1), L the log-likelihood ratio of the whole
        release for ``user``'s bit (0-based) b = 1 against b = 0, the other bits fixed (exact).

        Only the batches holding the user depend on b: a batch's count is s + b + Bin(N', 1/2), so its
        ratio at count offset j = count - s is pmf(j - 1) / pmf(j) = j / (N' - j + 1), independent of the
        other bits; L is the sum over the user's batches (independent draws). These are the masses
        outside Lemma B.2's set E = {ratio in [e^-bound, e^bound]} (at bound = 2 eps) under the two
        inputs, which Lemma B.3 bounds by 2 delta / min(eps, 1) for an (eps, delta)-DP release."""
        user = integer(self.owner, "user", user, 0)
        if user >= self.n:
            raise ValueError(f"{self.owner}: user must be < n = {self.n}, got {user}")
        held = np.flatnonzero(self.members[:, user])
        size = math.prod(int(self.coins[i]) + 2 for i in held)
        if size > 20_000_000:
            raise ValueError(f"{self.owner}: the joint law of user {user}'s {len(held)} batches has {size:,} cells; "
                             "too many for an exact sum")
        loss, p0, p1 = np.zeros(1), np.ones(1), np.ones(1)
        for i in held:
            coins = int(self.coins[i])
            j = np.arange(coins + 2)  # count offsets: 0..N' under b = 0, 1..N' + 1 under b = 1
            with np.errstate(divide="ignore"):
                ratio = np.log(j) - np.log(coins - j + 1.0)  # -inf at j = 0, +inf at j = N' + 1
            ratio[-1] = np.inf
            pmf0 = stats.binom.pmf(j, coins, 0.5)
            pmf1 = stats.binom.pmf(j - 1, coins, 0.5)
            with np.errstate(invalid="ignore"):  # -inf + inf only in cells of probability 0 under both inputs
                loss = (loss[:, None] + ratio[None, :]).ravel()
            p0, p1 = (p0[:, None] * pmf0[None, :]).ravel(), (p1[:, None] * pmf1[None, :]).ravel()
        outside = np.abs(loss) > bound
        return float(p0[outside].sum()), float(p1[outside].sum())

    def stream(self, runs: int, rng: np.random.Generator) -> CounterStream:
        """``runs`` independent runs of the counter fed one user's bit per round (:class:`CounterStream`),
        each run with its own bits (the lower bound's inputs are random)."""
        return CounterStream(self, runs, rng)


class CounterStream:
    """The vectorised online entry point of :class:`ConcurrentShuffleCounter`: ``runs`` independent
    runs, each fed its own user's bit per round (:meth:`add`); a batch is released when its last user
    has sent (Algorithm 1, step 3) and the server's estimate S_t, the analyzed counts of V^t summed, is
    returned (step 4).

    Law: a batch's count is its users' bits plus one Bin(N', 1/2) draw, the law of
    :meth:`ConcurrentShuffleCounter.sample` (its fast path) on the same bits; the draws are made when
    the batch completes, so runs may carry different bits. :attr:`counts` holds every released count
    (NaN until its batch completes), and the estimates are :meth:`ConcurrentShuffleCounter.estimates`
    of them. V^t changes only when a batch completes, so the estimate is recomputed only then."""

    def __init__(self, counter: ConcurrentShuffleCounter, runs: int, rng: np.random.Generator):
        self.counter, self.rng = counter, rng
        self.runs = integer(counter.owner, "runs", runs, 1)
        self.t = 0
        self._prefix = np.zeros((counter.n + 1, self.runs), dtype=np.int64)  # a batch's sum is a difference
        self.counts = np.full((self.runs, len(counter.batches)), np.nan)
        self._analyzed = np.zeros((self.runs, len(counter.batches)))
        self._estimate = np.zeros(self.runs)
        self._ending: dict[int, list[int]] = {}
        for i, b in enumerate(counter.batches):
            self._ending.setdefault(b.end, []).append(i)

    def add(self, bits: Any) -> np.ndarray:
        """User t's bit in every run (shape (runs,), values 0 or 1); returns the estimates S_t (runs,)."""
        counter = self.counter
        x = np.asarray(bits)
        if x.shape != (self.runs,) or not ((x == 0) | (x == 1)).all():
            raise ValueError(f"{counter.owner}: a round's bits must be 0 or 1, shape ({self.runs},), got {x!r}")
        if self.t >= counter.n:
            raise ValueError(f"{counter.owner}: the schedule holds n = {counter.n} users; no room for user "
                             f"{self.t + 1}")
        self.t += 1
        self._prefix[self.t] = self._prefix[self.t - 1] + x.astype(np.int64)
        done = self._ending.get(self.t)
        if done:
            for i in done:
                b = counter.batches[i]
                bits_in = self._prefix[b.end] - self._prefix[b.start]
                count = bits_in + self.rng.binomial(counter.coins[i], 0.5, self.runs)
                self.counts[:, i] = count
                self._analyzed[:, i] = counter.protocols[i].analyze(count)
            self._estimate = self._analyzed[:, counter._covers[self.t]].sum(axis=1)
        return self._estimate.copy()


class VectorConcurrentTree(ExactRelease):
    """Corollary 3.3 / 3.5's vector instantiation: Algorithm 3's tree (Algorithm 2: d = d_low = 2) with
    every block an M^sum_vec run, shuffle-lcb's P_Vec
    (:class:`~dpaudit.mechanisms.shuffle.shuffle_vec.ShuffledVectorProtocol`, Theorem C.1's parameters at the
    block's budget and size B = its number of users). Algorithm 4 runs the vector sum phi y and the matrix sum
    phi phi^T on the same tree; P_Vec carries both as labels of one batch, so a block's release is its
    d + d(d + 1)/2 label counts.

    Data: (n, dim + 1) rows (phi_t, y_t). Output: every block's label counts, blocks in level order.
    ``split``: "k" for (eps/k, delta/k) per block (Algorithm 3), "log n" for (eps/log2 n, delta/log2 n)
    (Algorithm 2 as printed; n a power of 2)."""

    paper = "concurrent-shuffle"
    source = "Corollaries 3.3 and 3.5: Algorithm 3's tree with M^sum_vec (shuffle-lcb's P_Vec) blocks"

    def __init__(self, n: int, k: int, epsilon: float, delta: float, d: int, d_low: int, dim: int, split: str = "k"):
        from ..shuffle.shuffle_vec import ShuffledVectorProtocol

        self.shape = ConcurrentShuffleCounter._shape(n, k, d, d_low)
        self.n, self.k, self.dim = n, k, integer(self.owner, "dim", dim, 1)
        if split == "k":
            parts = k
        elif split == "log n":
            parts = _log2(self.owner, n)
        else:
            raise ValueError(f"{self.owner}: split must be 'k' or 'log n', got {split!r}")
        self.epsilon, self.delta = epsilon / parts, delta / parts
        self.sizes = [d_low * d ** (i - 1) for i in range(1, k + 1)]
        self.protocols = [ShuffledVectorProtocol.unique_users(self.epsilon, self.delta, self.dim, s)
                          for s in self.sizes]
        self.blocks = [(level, j * s, s) for level, s in enumerate(self.sizes) for j in range(n // s)]
        self.offsets = np.cumsum([0] + [n // s for s in self.sizes])[:-1].tolist()  # each level's first block
        self.name = (f"CSTA with P_Vec blocks (n={n}, k={k}, d={d}, d_low={d_low}, dim={self.dim}, "
                     f"blocks at ({self.epsilon:.4g}, {self.delta:.3g}))")

    def blocks_of(self, user: int) -> VectorConcurrentTree:
        """The releases of the k blocks holding ``user`` (0-based), a mechanism on the same data. Under
        neighbours that differ in that user the other blocks' releases are independent of them and
        identically distributed, so they add nothing to the privacy loss: the exact audit of this view
        is the audit of the whole release, at a fraction of the tables."""
        user = integer(self.owner, "user", user, 0)
        if user >= self.n:
            raise ValueError(f"{self.owner}: user must be < n = {self.n}, got {user}")
        view = copy.copy(self)
        view.blocks = [(level, start, s) for level, start, s in self.blocks if start <= user < start + s]
        view.name = f"{self.name}, the blocks of user {user}"
        return view

    def cover(self, t: int) -> list[int]:
        """V^t (Definition 3.1) as indices into :attr:`blocks`: the highest complete blocks covering
        [1, t - (t mod d_low)]; the root is never a block, so V^n is the d level-k blocks."""
        t = integer(self.owner, "t", t, 0)
        if t > self.n:
            raise ValueError(f"{self.owner}: t must be in 0..n = {self.n}, got {t}")
        return [self.offsets[level - 1] + j for level, j in tree_cover(t, self.sizes)]

    def entry_proxies(self) -> np.ndarray:
        """Per level, the sub-Gaussian variance proxy of one block's error in one entry after A_Vec:
        (Delta / g)^2 s (b + 1) / 4 for a block of s users -- Hoeffding's proxy 1/4 for each of the
        s b noise bits Bin(s b, 1/4) and for each user's rounding error x_hat - 2 g f (a centred
        Bernoulli), times the analyzer's scale Delta / g."""
        return np.array([(1.0 / p.g) ** 2 * s * (p.b + 1) / 4 for p, s in zip(self.protocols, self.sizes, strict=True)])

    def noise_proxy(self, t: Any) -> np.ndarray:
        """The proxy of one entry's noise in the estimate at each time in ``t`` (the sum over V^t's
        independent blocks): cover_counts(t) @ :meth:`entry_proxies`."""
        return cover_counts(np.atleast_1d(t), self.sizes) @ self.entry_proxies()

    def stream(self, runs: int, rng: np.random.Generator) -> VectorTreeStream:
        """``runs`` independent runs of this release fed one user per round (:class:`VectorTreeStream`)."""
        return VectorTreeStream(self, runs, rng)

    def _input(self, data: Any) -> np.ndarray:
        """The n users' rows (phi, y), checked."""
        x = np.asarray(data, dtype=float)
        if x.shape != (self.n, self.dim + 1):
            raise ValueError(f"{self.owner}: data must be the {self.n} users' rows (phi, y), shape "
                             f"({self.n}, {self.dim + 1}), got {x.shape}")
        return x

    def _distribution(self, x: np.ndarray) -> ProductDistribution:
        return ProductDistribution(tuple(c for level, start, s in self.blocks
                                    for c in self.protocols[level].distribution(x[start: start + s]).coordinates))

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.concatenate([self.protocols[level].sample(x[start: start + s], size, rng)
                               for level, start, s in self.blocks], axis=1)

    def sample_per_user(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Every user randomizes every entry for each of its blocks (P_Vec's per-user path per block)."""
        x = self._input(data)
        return np.concatenate([self.protocols[level].sample_per_user(x[start: start + s], size, rng)
                               for level, start, s in self.blocks], axis=1)


class VectorTreeStream:
    """The vectorised entry point of :class:`VectorConcurrentTree` for an online algorithm: ``runs``
    independent runs, each fed its own user's row (phi, y) per round (:meth:`add`), each block released
    when its last user has sent (Algorithm 3, step 4).

    Law: a block's release is, per label, its users' rounded values x_hat (each user rounds its entry
    for this block independently, at the block's precision 2g: P_Vec's R~) plus one Bin(s b, 1/4)
    for the whole block's noise bits -- the law of :meth:`VectorConcurrentTree.sample` on the same
    rows (the rounding sum is the sum of independent roundings; the s users' Bin(b, 1/4) add to
    Bin(s b, 1/4)). Memory: one running sum of x_hat per level and run, whatever the block sizes."""

    def __init__(self, tree: VectorConcurrentTree, runs: int, rng: np.random.Generator):
        self.tree, self.rng = tree, rng
        self.runs = integer(tree.owner, "runs", runs, 1)
        self.t = 0
        labels = tree.protocols[0].labels
        self._rounded = np.zeros((tree.k, self.runs, labels), dtype=np.int64)
        self._precisions = np.array([float(p.rounding.g) for p in tree.protocols])[:, None, None]

    def add(self, rows: Any) -> list[tuple[int, np.ndarray]]:
        """User t's rows (runs, dim + 1), one per run; returns the blocks completed at t as (index into
        ``tree.blocks``, label counts (runs, labels)), lowest level first."""
        tree = self.tree
        rows = np.asarray(rows, dtype=float)
        if rows.shape != (self.runs, tree.dim + 1):
            raise ValueError(f"{tree.owner}: a round's rows must have shape ({self.runs}, {tree.dim + 1}), "
                             f"got {rows.shape}")
        if self.t >= tree.n:
            raise ValueError(f"{tree.owner}: the tree holds n = {tree.n} users; no room for user {self.t + 1}")
        # the rows' entries are the same at every level, only the rounding's precision differs: checked and
        # computed once (clipped to [0, 1]), rounded at every level's precision (RandomizedRounding.round_scaled's
        # arithmetic)
        scaled = tree.protocols[0].user_fractions(rows)[None] * self._precisions  # (k, runs, labels)
        self.t += 1
        uniforms, noise = self._round_draws(self.t)
        low = np.floor(scaled)
        self._rounded += (low + (uniforms < scaled - low)).astype(np.int64)
        released = []
        for level, size in enumerate(tree.sizes):
            if self.t % size == 0:
                released.append((tree.offsets[level] + self.t // size - 1, self._rounded[level] + noise[level]))
                self._rounded[level] = 0
        return released

    def _round_draws(self, t: int) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        """Round t's draws: every level's rounding uniforms (k, runs, labels), and each completed block's noise
        bits Bin(s b, 1/4) per label (level -> (runs, labels)). The stream is the one of rounding level by level,
        each completed block's noise drawn right after its level's rounding: the uniforms of the levels between two
        such draws come from one call (a Generator fills an array with the draws that consecutive calls would
        give)."""
        tree = self.tree
        labels = self._rounded.shape[2]
        uniforms = np.empty((tree.k, self.runs, labels))
        noise = {}
        start = 0
        for level, (protocol, size) in enumerate(zip(tree.protocols, tree.sizes, strict=True)):
            completes = t % size == 0
            if completes or level == tree.k - 1:
                uniforms[start: level + 1] = self.rng.random((level + 1 - start, self.runs, labels))
                start = level + 1
            if completes:
                noise[level] = protocol.batch_noise((self.runs,), self.rng)
        return uniforms, noise

    def draws_ahead(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The draws of the next ``count`` rounds (t + 1 .. t + count), as :meth:`add` would draw them one round after
        another: uniforms (count, k, runs, labels) and the completed blocks' noise bits (count, k, runs, labels), 0
        where the level's block does not complete. For a compiled round (:mod:`.tree_stream_compiled`), which
        then advances :attr:`t` and the rounded sums itself."""
        tree = self.tree
        count = integer(tree.owner, "count", count, 0)
        if self.t + count > tree.n:
            raise ValueError(f"{tree.owner}: the tree holds n = {tree.n} users; {count} rounds after user {self.t} "
                             "overflow it")
        labels = self._rounded.shape[2]
        uniforms = np.empty((count, tree.k, self.runs, labels))
        noise = np.zeros((count, tree.k, self.runs, labels), dtype=np.int64)
        for s in range(count):
            uniforms[s], completed = self._round_draws(self.t + 1 + s)
            for level, bits in completed.items():
                noise[s, level] = bits
        return uniforms, noise

    def debias_constants(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per level (k,): the rounding precision g, and the analyzer's Delta / g, p b s and s Delta
        (:meth:`~dpaudit.mechanisms.shuffle.bit_summation.BitSummation.debias`: o = (Delta / g)(C - p b s) - s Delta),
        as the compiled round reads them."""
        from ..shuffle.shuffle_vec import DELTA_SHIFT

        protocols = self.tree.protocols
        precision = self._precisions[:, 0, 0].copy()
        scale = np.array([DELTA_SHIFT / p.g for p in protocols])
        offset = np.array([p.p * p.b * p.users for p in protocols])
        shift = np.array([p.users * DELTA_SHIFT for p in protocols])
        return precision, scale, offset, shift


def _log2(owner: str, n: Any) -> int:
    n = integer(owner, "n", n, 2)
    if n & (n - 1):
        raise ValueError(f"{owner}: n must be a power of 2 (a complete binary tree), got {n}")
    return n.bit_length() - 1
