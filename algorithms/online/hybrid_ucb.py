"""private-online Algorithm 4: Hybrid-UCB (Hu, Huang & Mehta, Appendix E.2, eqs. 32-35), a bandit
policy (:mod:`dpaudit.bandits.policies`) vectorised over runs.

Arm j's pulls are grouped in blocks: block 0 is the initialisation pull; block r >= 1 holds its pulls
2^r .. 2^{r+1} - 1, stored in an array F^(r) and in a binary tree B^(r) with 2^r leaves. After every
pull O of arm j its private mean is recomputed (eq. 34):

    mu~_{j,O} = (F~_{0:r-1} + B~_r) / O,     F~ = sum_{r' < r} (sum F^(r') + Z^(r')),  Z ~ Lap(2/eps)
    B~_r = sum of block r's leaves so far + the noises of the p-sums covering them, each Lap(2r/eps)

and round t plays (eq. 35, log base 2)

    argmax_j  mu~_{j,O_j} + sqrt(3 log t / O_j) + 6 sqrt(8) log(t) floor(log(O_j + 1)) / (O_j eps).

Every arm is pulled once first (rounds 1..K), released as mu~_{j,1} = x + Z^(0).

The noise is :class:`~dpaudit.mechanisms.counters.hybrid_counter.HybridCounter`'s: its array noise Z for every
block of every arm and run is drawn at ``start`` (shape (runs, K, A), A = floor(log2 T) + 1 blocks),
and its p-sum noises tree by tree, in chunks of up to :data:`CHUNK` consecutive p-sums (the p-sum
ending at leaf n covers leaves n - lowbit(n) + 1 .. n, so there is one per leaf) when a pull first
needs them; each p-sum's noise is drawn once and reused, as the mechanism draws it. The prefix noise
of leaf n is the sum of the noises of the p-sums in n's dyadic decomposition: for the current chunk
it is tabulated once (leaf n's decomposition is its chunk's start's, which holds p-sums of earlier
chunks, plus the in-chunk part, accumulated in order of popcount). Eq. 34 itself is
:meth:`~dpaudit.mechanisms.counters.hybrid_counter.HybridCounter.estimate`.

Choices where the paper is silent (the mechanism's, recorded there): each Z and p-sum noise is drawn
once; the estimate at the pull that fills block r reads the full tree and r moves on afterwards.
Ties go to the lowest arm. ``noise_scale="1/eps"`` draws every noise at half the printed scale (the
arrays' Lap(1/eps) instead of Lap(2/eps), block r's p-sums Lap(r/eps) instead of Lap(2r/eps)) while
the index keeps eq. 35's eps: a calibration bug. On the decisions over the exact law's horizons (T <= 6)
the exact audit does not refute it: its loss doubles (0.5 to 1 - 4.6e-8 at T = 4) but stays below eps
(a test records it): the printed scales spend only eps/2 on the first array, the release every comparison
reads. ``noise_scale="1/(2eps)"`` (a quarter of the printed scales) is the bug that breaks the claim there:
the exact audit refutes it with certainty (loss 2 eps, a test).

Exact law of the decisions (:meth:`HybridUCB.decision_distribution`): on two arms and at most
:data:`EXACT_MAX_HORIZON` rounds, by :mod:`algorithms.online.hybrid_law` (decision paths enumerated
depth-first, each path's probability the Laplace measure of a polyhedron, by
:mod:`algorithms.online.polytope_law`). Its presence makes every
:class:`~dpaudit.bandits.transcripts.DecisionTranscript` of the policy exact; a transcript over a
longer horizon is still built and sampled, and only asking for its law is refused.

Fast path: the block certificate of :class:`~dpaudit.algorithms.online.indices.PerPullIndexPolicy`
(J's estimate after i more pulls is at least (F~ + S + prefix noise of leaf n + i) / (O + i), its
value with rewards 0, the p-sum noises being drawn already); blocks never leave the current chunk,
so they never cross a block of the arm's pulls either. With the same draws, the two paths make the
same decisions: the chunk draws happen at the same pulls on both.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.distributions import FiniteDistribution
from dpaudit.core.validation import choice, positive
from dpaudit.mechanisms.counters.hybrid_counter import HybridCounter

from .hybrid_law import decision_law
from .indices import COMPILED, PerPullIndexPolicy

if COMPILED:
    from . import blocks_compiled

#: most p-sum noises of one arm drawn at once (a chunk of consecutive leaves of its tree)
CHUNK = 2048
BONUS = 6 * math.sqrt(8)
#: the noise: Lap(2/eps) arrays and Lap(2r/eps) p-sums as printed (eqs. 32-33), half those scales (a
#: calibration bug, not refuted on the decisions at T <= 6) or a quarter of them (refuted; module docstring)
NOISE_SCALES = ("2/eps", "1/eps", "1/(2eps)")
#: the budget whose scales (2/budget, 2r/budget) the noises get, per noise_scale, as a multiple of eps
NOISE_BUDGETS = {"2/eps": 1, "1/eps": 2, "1/(2eps)": 4}
#: largest horizon of the exact decision law (the paths double and each path's polyhedron gains a
#: dimension or two with every round: a law takes about 0.02 s at T = 4, 0.2 s at T = 5 and 2 s at T = 6)
EXACT_MAX_HORIZON = 6


@cache
def _popcount_steps(size: int) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Leaves 1..size-1 grouped by popcount, each with its parent j - lowbit(j): the in-chunk prefix
    noise is the parent's plus the leaf's own p-sum, so one pass per popcount fills them all."""
    leaves = np.arange(1, size)
    popcount = np.array([int(j).bit_count() for j in leaves], dtype=np.int64)
    parents = leaves - (leaves & -leaves)
    return tuple((leaves[popcount == p], parents[popcount == p]) for p in range(1, int(popcount.max(initial=0)) + 1))


@lru_cache(maxsize=128)
def _law(table: bytes, horizon: int, rounds: tuple, epsilon: float, noise_epsilon: float) -> tuple:
    """:func:`~algorithms.online.hybrid_law.decision_law`, remembered: an audit asks for the law of the same
    table in several pairs, and a law takes seconds at the largest horizon."""
    x = np.frombuffer(table, dtype=float).reshape(horizon, 2)
    return decision_law(x, rounds, epsilon, noise_epsilon)


class HybridUCB(PerPullIndexPolicy):
    """Hybrid-UCB at budget ``epsilon`` (module docstring)."""

    owner: ClassVar[str] = "HybridUCB"
    source: ClassVar[str] = "Algorithm 4 (Appendix E.2), eqs. 32-35"
    chunk: ClassVar[int] = CHUNK  # a power of two
    #: the horizon only sizes the array noise drawn ahead (floor(log2 T) + 1 blocks per arm), whose law for
    #: the blocks a run fills does not depend on it
    anytime: ClassVar[bool] = True

    def __init__(self, epsilon: float, noise_scale: str = "2/eps"):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.scale_rule = choice(self.owner, "noise_scale", noise_scale, NOISE_SCALES)
        self.noise_epsilon = self.epsilon * NOISE_BUDGETS[self.scale_rule]
        self.counter = HybridCounter(self.noise_epsilon, 1)
        label = {"2/eps": "", "1/eps": ", half noise", "1/(2eps)": ", quarter noise"}[self.scale_rule]
        self.name = f"Hybrid-UCB(eps={self.epsilon:g}{label})"

    def bonus(self, t: Any, pulls: Any) -> np.ndarray:
        log_t = np.log2(t)
        return np.sqrt(3 * log_t / pulls) + BONUS * log_t * np.floor(np.log2(pulls + 1)) / (pulls * self.epsilon)

    def bonus_form(self) -> tuple[str, float, float, float]:
        return "log2", 3.0, BONUS, self.epsilon

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        shape = (self.runs, self.K)
        blocks = self.horizon.bit_length()  # blocks 0 .. floor(log2 T)
        self.array_noise = self.counter.sample_array_noise((self.runs, self.K, blocks), rng)  # Z^(r)
        self.block = np.zeros(shape, dtype=np.int64)  # r: the block being filled (0 before the first pull)
        self.noisy_arrays = np.zeros(shape)  # F~_{0:r-1}
        self.tree_sum = np.zeros(shape)  # sum of block r's leaves so far
        self.leaves = np.zeros(shape, dtype=np.int64)  # n: block r's leaves filled
        self.width = min(self.chunk, 2 ** (blocks - 1))
        self.chunk_start = np.full(shape, -1, dtype=np.int64)  # the leaf before the chunk's first (-1: none)
        self.chunk_size = np.ones(shape, dtype=np.int64)
        self.prefix_noise = np.zeros(shape + (self.width + 1,))  # noise of leaves start .. start + size
        self.level_noise = np.zeros(shape + (blocks + 1,))  # latest p-sum noise at each level of the tree

    def _prepare(self, rows: np.ndarray, arms: np.ndarray) -> None:
        """Draw the chunk of p-sum noises holding each (row, arm)'s next leaf, where it is not drawn."""
        start, size = self.chunk_start[rows, arms], self.chunk_size[rows, arms]
        need = (start < 0) | (self.leaves[rows, arms] >= start + size)
        rows, arms = rows[need], arms[need]
        if rows.size == 0:
            return
        r = self.block[rows, arms]
        sizes = np.minimum(2**r, self.width)
        for size in np.unique(sizes):  # one group per chunk size (small trees are whole chunks)
            group = sizes == size
            self._draw_chunk(rows[group], arms[group], r[group], int(size))

    def _draw_chunk(self, rows: np.ndarray, arms: np.ndarray, r: np.ndarray, size: int) -> None:
        base = self.leaves[rows, arms]  # a multiple of size: chunks tile the tree
        nodes = self.counter.sample_node_noise(r, size, self._rng)  # column j - 1: the p-sum ending at base + j
        inner = np.zeros((rows.size, size))
        for leaves, parents in _popcount_steps(size):
            inner[:, leaves] = inner[:, parents] + nodes[:, leaves - 1]
        levels = np.arange(self.level_noise.shape[2])
        noise = self.level_noise[rows, arms]
        below = (base[:, None] >> levels) & 1  # base's decomposition: p-sums of earlier chunks
        prefix = self.prefix_noise[rows, arms]
        prefix[:, 0] = (below * noise).sum(axis=1)
        prefix[:, 1:size] = prefix[:, :1] + inner[:, 1:]
        top = base + size  # the chunk's last leaf ends a p-sum of level lowbit(top)
        low = np.log2(top & -top).astype(np.int64)
        above = ((top[:, None] >> levels) & 1) * (levels > low[:, None])
        prefix[:, size] = nodes[:, -1] + (above * noise).sum(axis=1)
        self.prefix_noise[rows, arms] = prefix
        self.level_noise[rows, arms, low] = nodes[:, -1]
        self.chunk_start[rows, arms] = base
        self.chunk_size[rows, arms] = size

    def _add(self, rows: np.ndarray, arms: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        first = self.pulls[rows, arms] == 0
        if COMPILED and self.compiled_blocks:  # the same draws (the chunks prepared first), then the same numbers
            if not first.all():
                self._prepare(rows[~first], arms[~first])
            blocks_compiled.hybrid_add(np.asarray(rows, dtype=np.int64), np.asarray(arms, dtype=np.int64),
                                       np.asarray(counts, dtype=np.int64), np.asarray(sums, dtype=float), self.pulls,
                                       self.leaves, self.tree_sum, self.noisy_arrays, self.estimates,
                                       self.prefix_noise, self.chunk_start, self.block, self.array_noise,
                                       self.level_noise)
            return
        if first.any():  # the initialisation: mu~_1 = x + Z^(0), then block 1 opens
            i, j = rows[first], arms[first]
            self.noisy_arrays[i, j] = sums[first] + self.array_noise[i, j, 0]
            self.estimates[i, j] = self.counter.estimate(self.noisy_arrays[i, j], 0.0, 0.0, 1)
            self.pulls[i, j] = 1
            self.block[i, j] = 1
        rows, arms, counts, sums = rows[~first], arms[~first], counts[~first], sums[~first]
        if rows.size == 0:
            return
        self._prepare(rows, arms)
        self.pulls[rows, arms] += counts
        self.leaves[rows, arms] += counts
        self.tree_sum[rows, arms] += sums
        leaf = self.leaves[rows, arms] - self.chunk_start[rows, arms]
        self.estimates[rows, arms] = self.counter.estimate(self.noisy_arrays[rows, arms], self.tree_sum[rows, arms],
                                                           self.prefix_noise[rows, arms, leaf], self.pulls[rows, arms])
        r = self.block[rows, arms]
        full = self.leaves[rows, arms] == 2**r  # block r is full: its array joins F~ with Z^(r)
        if full.any():
            i, j, r = rows[full], arms[full], r[full]
            self.noisy_arrays[i, j] += self.tree_sum[i, j] + self.array_noise[i, j, r]
            self.block[i, j] = r + 1
            self.tree_sum[i, j] = 0.0
            self.leaves[i, j] = 0
            self.chunk_start[i, j] = -1
            self.level_noise[i, j] = 0.0

    def _capacity(self, rows: np.ndarray, arms: np.ndarray) -> np.ndarray:
        self._prepare(rows, arms)
        return self.chunk_start[rows, arms] + self.chunk_size[rows, arms] - self.leaves[rows, arms]

    def _lower_estimates(self, rows: np.ndarray, arms: np.ndarray, extra: np.ndarray) -> np.ndarray:
        leaf = self.leaves[rows, arms][:, None] + extra - self.chunk_start[rows, arms][:, None]
        noise = self.prefix_noise[rows[:, None], arms[:, None], leaf]
        return self.counter.estimate(self.noisy_arrays[rows, arms][:, None], self.tree_sum[rows, arms][:, None], noise,
                                     self.pulls[rows, arms][:, None] + extra)

    def lower_parts(self, rows: np.ndarray, arms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # eq. 34's (F~ + S + noise) / O as HybridCounter.estimate sums it, F~ + S first
        head = np.asarray(self.noisy_arrays[rows, arms], dtype=float) + self.tree_sum[rows, arms]
        return head, self.prefix_noise, self.leaves[rows, arms] - self.chunk_start[rows, arms]

    def decision_distribution(self, table: Any, rounds: Any) -> FiniteDistribution:
        """The exact law of the arms played at ``rounds`` (1-based) on a reward table of two arms, shape
        (T, 2) with T <= :data:`EXACT_MAX_HORIZON` (:mod:`algorithms.online.hybrid_law`: depth-first
        enumeration of the decision paths, each path's probability the Laplace measure of a polyhedron, in
        ball arithmetic: the stated ``log_error`` is a bound). Refused for other shapes: with more arms a
        decision compares several estimates at once, and the paths and each polyhedron's cells grow quickly
        with T."""
        x = np.asarray(table, dtype=float)
        if (x.ndim != 2 or x.shape[1] != 2 or not 1 <= len(x) <= EXACT_MAX_HORIZON or not np.isfinite(x).all()
                or (x < 0).any() or (x > 1).any()):
            raise ValueError(f"{self.owner}: the exact decision law is built for two arms and at most "
                             f"{EXACT_MAX_HORIZON} rounds (a reward table of shape (T, 2), rewards in [0, 1]; the "
                             f"paths and the polyhedra's cells grow quickly with T), got shape {x.shape}")
        rounds = [int(t) for t in rounds]
        if not rounds or min(rounds) < 1 or max(rounds) > len(x):
            raise ValueError(f"{self.owner}: rounds must lie in 1..{len(x)}, got {rounds!r}")
        outcomes, log_probs, error = _law(x.tobytes(), len(x), tuple(rounds), self.epsilon, self.noise_epsilon)
        return FiniteDistribution(outcomes.copy(), log_probs.copy(), log_error=min(max(error, 1e-15), 0.5))


__all__ = ["CHUNK", "EXACT_MAX_HORIZON", "NOISE_SCALES", "HybridUCB"]
