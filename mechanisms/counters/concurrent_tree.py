"""concurrent-shuffle's tree-based continual summation with concurrent shufflers: Algorithm 2 (CSTA,
a binary tree, k = log2 n - 1 shufflers) and Algorithm 3 (k shufflers, internal levels of degree d
above a lowest level of degree d_low), over the single-shuffler binary summation M^sum_bin.

**M^sum_bin** (:class:`BinarySummation`). The paper does not give the protocol (it cites Algorithm 3
of Tenenbaum et al. 2021 and uses only its interface: (eps, delta)-SDP, unbiased, input-independent
sub-Gaussian error). Choice: the multi-message binary sum with fair coins. With N coins needed for
the budget, a batch of m users sends its m bits plus N' fair coin bits (each user r = ceil(N/m) coins
when m <= N, so N' = m r; else the first N users one coin each, N' = N); the shuffler releases the
multiset, i.e. its count of ones C = sum of bits + Bin(N', 1/2); the analyzer returns C - N'/2. N is
the smallest number of coins whose binomial mechanism on a sensitivity-1 count has delta(eps) <= delta
exactly (both directions), found by bisection on the exact profile.

**CSTA** (:class:`ConcurrentShuffleTree`). Internal level i = 1..k holds blocks of s_i = d_low d^{i-1}
consecutive users; every block is one M^sum_bin run at (eps/k, delta/k) on that level's shuffler.
Each user is in exactly k blocks, so simple composition gives (eps, delta) (Theorems 3.2 and 3.4).
The release (the concatenated shuffler outputs) is every block's count; its exact law is a product
of finite laws, one per block (:meth:`ConcurrentShuffleTree.distribution`). The estimate at time t
sums the blocks of V^t (Definition 3.1): the first q_k level-k blocks, the next q_{k-1} level-(k-1)
blocks, ..., covering [1, t - (t mod d_low)]. Algorithm 2 is d = d_low = 2, k = log2 n - 1.
Choice: n must equal d_low d^k (the paper assumes integer degrees; padding is not implemented).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from dpaudit.core.distributions import FiniteDistribution, ProductDistribution
from dpaudit.core.validation import integer, positive, probability, sample_size

from ..base import ExactRelease


def user_bits(owner: str, data: Any, n: int) -> np.ndarray:
    """The n users' bits as int64, or a ValueError naming ``owner``."""
    x = np.asarray(data)
    if x.shape != (n,) or not np.isin(x, (0, 1)).all():
        raise ValueError(f"{owner}: data must be the {n} users' bits (0 or 1), got shape {x.shape}")
    return x.astype(np.int64)


def binomial_delta(coins: int, epsilon: float) -> float:
    """delta(eps) of s + Bin(coins, 1/2) against s + 1 + Bin(coins, 1/2): sum_y max(0, P(y) - e^eps P(y - 1))
    (the binomial is symmetric, so both directions agree), summed in log space."""
    y = np.arange(coins + 2)
    log_p = stats.binom.logpmf(y, coins, 0.5)
    log_q = stats.binom.logpmf(y - 1, coins, 0.5)
    with np.errstate(invalid="ignore"):
        gap = -np.expm1(np.minimum(epsilon + log_q - log_p, 0.0))  # 1 - e^eps Q/P where positive
    return float(np.sum(np.where(np.isfinite(log_p), np.exp(log_p) * gap, 0.0)))


def coins_for(epsilon: float, delta: float) -> int:
    """The smallest N with binomial_delta(N, eps) <= delta (it decreases in N), by doubling and bisection."""
    epsilon = positive("coins_for", "epsilon", epsilon)
    delta = probability("coins_for", "delta", delta)
    hi = 1
    while binomial_delta(hi, epsilon) > delta:
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if binomial_delta(mid, epsilon) > delta else (lo, mid)
    return hi


def tree_cover(t: int, sizes: list[int]) -> list[tuple[int, int]]:
    """V^t of the tree whose level i = 1..k has blocks of ``sizes[i - 1]`` users (Definition 3.1's closed
    form): (level, block index) pairs, the complete blocks of the highest level first, then the next
    level's from where they end, ..., covering [1, t - (t mod sizes[0])]."""
    out, start = [], 0
    for level in range(len(sizes), 0, -1):
        size = sizes[level - 1]
        q = (t - start) // size
        out += [(level, start // size + j) for j in range(q)]
        start += q * size
    return out


def cover_counts(t: np.ndarray, sizes: list[int]) -> np.ndarray:
    """How many blocks of each level V^t holds, for every t in ``t`` at once: shape (len(t), k)."""
    rest = np.asarray(t, dtype=np.int64).copy()
    out = np.zeros((rest.size, len(sizes)), dtype=np.int64)
    for level in range(len(sizes), 0, -1):
        out[:, level - 1] = rest // sizes[level - 1]
        rest -= out[:, level - 1] * sizes[level - 1]
    return out


class BinarySummation(ExactRelease):
    """M^sum_bin on a batch of ``m`` users' bits at budget (eps, delta), eps < 1 and delta < 1/2 (the
    range Corollaries 3.3 and 3.5 use; module docstring). Data: the m bits. Output: the shuffled
    multiset's count of ones."""

    paper = "concurrent-shuffle"
    source = "M^sum_bin (Tenenbaum et al. 2021's Algorithm 3, interface only): the binary sum with fair coins"

    def __init__(self, epsilon: float, delta: float, m: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        if not self.epsilon < 1:
            raise ValueError(f"{self.owner}: epsilon must be < 1 (M^sum_bin's range), got {epsilon!r}")
        self.delta = probability(self.owner, "delta", delta)
        if not self.delta < 0.5:
            raise ValueError(f"{self.owner}: delta must be < 1/2 (M^sum_bin's range), got {delta!r}")
        self.m = integer(self.owner, "m", m, 1)
        self.N = coins_for(self.epsilon, self.delta)
        self.coins_per_user = math.ceil(self.N / self.m) if self.m <= self.N else None
        self.coins = self.m * self.coins_per_user if self.m <= self.N else self.N
        self.name = f"M_bin(eps={self.epsilon:.4g}, delta={self.delta:.3g}, m={self.m}; N'={self.coins})"

    def _input(self, data: Any) -> np.ndarray:
        return user_bits(self.owner, data, self.m)

    def coins_of_users(self) -> np.ndarray:
        """How many fair coins each user sends."""
        if self.coins_per_user is not None:
            return np.full(self.m, self.coins_per_user)
        return (np.arange(self.m) < self.N).astype(np.int64)

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return x.sum() + rng.binomial(self.coins, 0.5, size)

    def sample_per_user(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Every user's message (its bit and its coins) counted: the shuffled multiset's ones."""
        size = sample_size(self.owner, size)
        coins = rng.binomial(np.broadcast_to(self.coins_of_users(), (size, self.m)), 0.5)
        return (self._input(data)[None, :] + coins).sum(axis=1)

    def _distribution(self, x: np.ndarray) -> FiniteDistribution:
        s = int(x.sum())
        outcomes = np.arange(self.m + self.coins + 1)
        return FiniteDistribution(outcomes, stats.binom.logpmf(outcomes - s, self.coins, 0.5))

    def analyze(self, counts: Any) -> np.ndarray:
        """The unbiased estimate of the batch's sum: C - N'/2."""
        return np.asarray(counts, dtype=float) - self.coins / 2


class ConcurrentShuffleTree(ExactRelease):
    """Algorithm 3 (Algorithm 2 with d = d_low = 2): n = d_low d^k users' bits, k internal levels, one
    shuffler per level, every block an M^sum_bin run at (eps/k, delta/k) (module docstring).

    Data: the n bits in arrival order. Output (:meth:`sample`): every block's count, level 1 first,
    each level in time order. :meth:`estimates` turns counts into the running sums S_t, t = 1..n."""

    paper = "concurrent-shuffle"
    source = "Algorithm 3 (CSTA; Algorithm 2 with d = d_low = 2)"

    def __init__(self, n: int, k: int, epsilon: float, delta: float, d: int = 2, d_low: int = 2):
        self.n = integer(self.owner, "n", n, 2)
        self.k = integer(self.owner, "k", k, 1)
        self.d = integer(self.owner, "d", d, 2)
        self.d_low = integer(self.owner, "d_low", d_low, 1)
        if self.d_low * self.d**self.k != self.n:
            raise ValueError(f"{self.owner}: n must equal d_low d^k = {self.d_low * self.d ** self.k} "
                             f"(d = {self.d}, d_low = {self.d_low}, k = {self.k}), got n = {self.n}")
        self.epsilon, self.delta = float(epsilon), float(delta)
        self.sizes = [self.d_low * self.d ** (i - 1) for i in range(1, self.k + 1)]
        self.protocols = [BinarySummation(self.epsilon / self.k, self.delta / self.k, s) for s in self.sizes]
        self.name = (f"CSTA(n={self.n}, k={self.k}, d={self.d}, d_low={self.d_low}, eps={self.epsilon:g}, "
                     f"delta={self.delta:g})")

    @classmethod
    def binary(cls, n: int, epsilon: float, delta: float) -> ConcurrentShuffleTree:
        """Algorithm 2: the binary tree over n = 2^L users, k = L - 1 shufflers."""
        owner = cls.__name__  # what Release.owner gives the instances
        n = integer(owner, "n", n, 4)
        if n & (n - 1):
            raise ValueError(f"{owner}: Algorithm 2 needs n a power of 2, got {n}")
        return cls(n, n.bit_length() - 2, epsilon, delta, 2, 2)

    def _input(self, data: Any) -> np.ndarray:
        return user_bits(self.owner, data, self.n)

    def _block_sums(self, x: np.ndarray) -> list[np.ndarray]:
        return [x.reshape(-1, s).sum(axis=1) for s in self.sizes]

    def block_sums(self, data: Any) -> list[np.ndarray]:
        """Per level, the exact sums of its blocks."""
        return self._block_sums(self._input(data))

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        parts = [sums[None, :] + rng.binomial(p.coins, 0.5, (size, len(sums)))
                 for sums, p in zip(self._block_sums(x), self.protocols, strict=True)]
        return np.concatenate(parts, axis=1)

    def _distribution(self, x: np.ndarray) -> ProductDistribution:
        coords = []
        for s, p in zip(self.sizes, self.protocols, strict=True):
            coords += [p.distribution(block) for block in x.reshape(-1, s)]
        return ProductDistribution(tuple(coords))

    def cover(self, t: int) -> list[tuple[int, int]]:
        """V^t as (level, block index) pairs: the highest complete blocks, left to right, covering
        [1, t - (t mod d_low)] (Definition 3.1). The root is never used, so t = n takes d level-k blocks."""
        t = integer(self.owner, "t", t, 0)
        if t > self.n:
            raise ValueError(f"{self.owner}: t must be in 0..n = {self.n}, got {t}")
        return tree_cover(t, self.sizes)

    def estimates(self, counts: Any) -> np.ndarray:
        """S_t for t = 1..n from released counts (shape (..., blocks)): the debiased blocks of V^t summed."""
        counts = np.asarray(counts, dtype=float)
        offsets = np.cumsum([0] + [self.n // s for s in self.sizes])
        debiased = np.concatenate([self.protocols[i].analyze(counts[..., offsets[i]: offsets[i + 1]])
                                   for i in range(self.k)], axis=-1)
        out = np.zeros((*counts.shape[:-1], self.n))
        for t in range(1, self.n + 1):
            columns = [offsets[level - 1] + j for level, j in self.cover(t)]
            out[..., t - 1] = debiased[..., columns].sum(axis=-1)
        return out
