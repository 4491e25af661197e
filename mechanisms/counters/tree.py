"""The binary (tree-based) mechanism for continual counting: Dwork, Naor, Pitassi & Rothblum (STOC
2010) and Chan, Shi & Song, "Private and Continual Release of Statistics" (ACM TISSEC 2011), the
"binary mechanism" of Section 3.4.

A stream x_1, ..., x_T (scalars, vectors or matrices) is released as noisy partial sums ("p-sums")
over dyadic blocks. Block t ends at t and has length 2^{lsb(t)}, where lsb(t) is the index of the
lowest set bit of t: [t - 2^{lsb(t)} + 1, t]. The prefix sum up to t is the sum of the blocks of
t's binary expansion (popcount(t) of them), so a noisy prefix sum carries popcount(t) <= L
independent noises, L = floor(log2 T) + 1 the number of levels, and every element lies in at most L
blocks. This is the set of p-sums the binary mechanism computes (one per time step, T in all); the
complete binary tree's other nodes never enter a prefix sum.

Release: the T noisy p-sums (what the mechanism computes and stores); the noisy prefix sums are a
post-processing of them (:meth:`BinaryTreeMechanism.prefix`). The exact law of the p-sums
(:meth:`BinaryTreeMechanism.distribution`) is a product over blocks and coordinates, so an audit of
it bounds the privacy loss of every prefix-sum release, and is exact for the p-sum release itself.
Noise: one independent draw per block and coordinate from ``noise`` (any law with
``sample(shape, rng)`` and ``shifted(v)``, e.g. :class:`~dpaudit.mechanisms.noise.Laplace` or
:class:`~dpaudit.mechanisms.noise.Gaussian`); the papers calibrate it, :meth:`BinaryTreeMechanism.laplace`
gives the textbook calibration Lap(L Delta_1 / eps), which is eps-DP when one element changes by at
most Delta_1 in l1 norm.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer, positive

from ..base import ExactRelease
from ..noise import Gaussian, IntegerLaw, Laplace, LaplaceSum, iid_sum

try:  # the prefix sums of many releases compiled (an optional dependency: pip install dpaudit[fast])
    from .prefix_compiled import prefix_sums
except ImportError:  # numba missing: the numpy levels
    prefix_sums = None


def lowest_set_bit(t: np.ndarray) -> np.ndarray:
    """lsb(t) for positive integers t: the exponent of the largest power of 2 dividing t."""
    t = np.asarray(t, dtype=np.int64)
    return np.log2(t & -t).astype(np.int64)


class BinaryTreeMechanism(ExactRelease):
    """Noisy dyadic p-sums of a stream of length ``T`` (module docstring).

    ``dim``: the shape of one stream element: 1 for scalars (stream shape (T,)), d for vectors
    (stream shape (T, d)), a tuple such as (d, d) for matrices. Noise is drawn independently for
    every block and every coordinate (matrices get unstructured noise; a paper that symmetrises its
    noise matrices needs its own subclass).
    """

    paper = "Chan, Shi & Song 2011"
    source = "Section 3.4, the binary mechanism's noisy p-sums (Dwork, Naor, Pitassi & Rothblum 2010)"

    def __init__(self, T: int, noise: Any, dim: int | tuple[int, ...] = 1, name: str | None = None):
        self.T = integer(self.owner, "T", T, 1)
        if not (callable(getattr(noise, "sample", None)) and callable(getattr(noise, "shifted", None))):
            raise ValueError(f"{self.owner}: noise must be a law with sample(shape, rng) and shifted(v), got {noise!r}")
        self.noise = noise
        shape = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if not shape or any(not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1 for k in shape):
            raise ValueError(f"{self.owner}: dim must be a positive integer or a tuple of them, got {dim!r}")
        self.element_shape: tuple[int, ...] = () if shape == (1,) else tuple(int(k) for k in shape)
        self.levels = self.T.bit_length()  # floor(log2 T) + 1
        ends = np.arange(1, self.T + 1)
        self.block_starts = ends - (1 << lowest_set_bit(ends)) + 1
        self.nodes = [(int(s), int(e)) for s, e in zip(self.block_starts, ends, strict=True)]
        self.name = name or f"BinaryTree(T={self.T}, noise={noise!r}" + (
            f", element shape {self.element_shape})" if self.element_shape else ")")

    @classmethod
    def laplace(cls, T: int, epsilon: float, sensitivity: float = 1.0,
                dim: int | tuple[int, ...] = 1) -> BinaryTreeMechanism:
        """Lap(L Delta_1 / eps) per block and coordinate: eps-DP when one element changes by at
        most ``sensitivity`` in l1 norm (each element is in at most L blocks). The scale is kept as
        an exact rational, so the exact auditor audits the calibration as specified."""
        owner = cls.__name__  # what Release.owner gives the instances
        epsilon = positive(owner, "epsilon", epsilon)
        sensitivity = positive(owner, "sensitivity", sensitivity)
        levels = integer(owner, "T", T, 1).bit_length()
        scale = Fraction(levels) * Fraction(sensitivity) / Fraction(epsilon)
        return cls(T, Laplace(scale), dim,
                   name=f"BinaryTree(T={T}, Laplace, eps={epsilon:g}, sensitivity={sensitivity:g})")

    def prefix_nodes(self, t: int) -> list[int]:
        """The blocks (their end points, 1-based) whose sum is the prefix sum x_1 + ... + x_t."""
        t = integer(self.owner, "t", t, 1)
        if t > self.T:
            raise ValueError(f"{self.owner}: t must be in 1..T = {self.T}, got {t}")
        ends, rest = [], t
        while rest:  # peel the lowest set bit: the block ending at rest has length 2^lsb(rest)
            ends.append(rest)
            rest -= rest & -rest
        return sorted(ends)

    def _stream(self, stream: Any) -> np.ndarray:
        x = np.asarray(stream, dtype=float)
        if x.shape != (self.T, *self.element_shape) or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: the stream must be a finite array of shape "
                             f"{(self.T, *self.element_shape)}, got shape {x.shape}")
        return x

    def node_sums(self, stream: Any) -> np.ndarray:
        """The exact p-sums, shape (T, *element shape): row t - 1 is the sum over block t.

        Level by level: the blocks of length 2^j are the aligned dyadic blocks ending at odd
        multiples of 2^j, summed directly (no differences of running sums, which would round)."""
        x = self._stream(stream)
        out = np.empty_like(x)
        for j in range(self.levels):
            width = 1 << j
            whole = self.T // width  # aligned blocks of length 2^j inside [1, T]
            sums = x[: whole * width].reshape(whole, width, *self.element_shape).sum(axis=1)
            out[width * np.arange(1, whole + 1, 2) - 1] = sums[::2]  # ends (2k + 1) 2^j
        return out

    def _input(self, stream: Any) -> np.ndarray:
        """The stream, checked, as its exact p-sums (:meth:`node_sums`)."""
        return self.node_sums(stream)

    def _sample(self, exact: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases of the noisy p-sums, shape (size, T, *element shape)."""
        return exact + np.asarray(self.noise.sample((size, *exact.shape), rng), dtype=float)

    def prefix(self, noisy_nodes: Any) -> np.ndarray:
        """Noisy prefix sums from released p-sums: shape (..., T, *element shape) -> the same (with numba, one
        compiled pass, :mod:`.prefix_compiled`: the same sums)."""
        nodes = np.asarray(noisy_nodes, dtype=float)
        k = len(self.element_shape)
        if nodes.ndim < 1 + k or nodes.shape[nodes.ndim - 1 - k] != self.T:
            raise ValueError(f"{self.owner}: expected p-sums with a block axis of length {self.T} "
                             f"before the element shape {self.element_shape}, got shape {nodes.shape}")
        if prefix_sums is not None and nodes.size:  # the same sums in the same order, compiled
            axis = nodes.ndim - 1 - k
            blocks = np.ascontiguousarray(nodes).reshape(math.prod(nodes.shape[:axis]), self.T, -1)
            out = np.empty_like(blocks)
            prefix_sums(blocks, out)
            return out.reshape(nodes.shape)
        nodes = np.moveaxis(nodes, nodes.ndim - 1 - k, 0)
        t = np.arange(1, self.T + 1)
        out = np.zeros_like(nodes)
        for j in range(self.levels):  # bit j of t set: the block ending at t with its bits below j cleared
            has = ((t >> j) & 1).astype(bool)
            out[has] += nodes[((t[has] >> j) << j) - 1]
        return np.moveaxis(out, 0, nodes.ndim - 1 - k)

    def release(self, stream: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent runs of the noisy prefix sums, shape (size, T, *element shape)."""
        return self.prefix(self.sample(stream, size, rng))

    def _distribution(self, exact: np.ndarray) -> ProductDistribution:
        """The exact law of the released p-sums: independent coordinates, block-major in the order
        of ``sample``'s output flattened (each the noise shifted by its exact p-sum)."""
        return ProductDistribution(tuple(self.noise.shifted(float(v)) for v in exact.ravel()))

    def stream(self, runs: int, rng: np.random.Generator) -> TreeStream:
        """``runs`` independent runs of the noisy prefix sums fed one element per round (:class:`TreeStream`)."""
        return TreeStream(self, runs, rng)

    def error_law(self, t: int) -> Any:
        """The law of the noise in one coordinate of the prefix sum at t: popcount(t) i.i.d. draws."""
        k = len(self.prefix_nodes(t))
        noise = self.noise
        if isinstance(noise, Gaussian):
            return Gaussian(noise.sigma * math.sqrt(k))
        if isinstance(noise, Laplace):
            return LaplaceSum(k, float(noise.scale))
        if isinstance(noise, IntegerLaw):
            return noise if k == 1 else iid_sum(noise, k)
        raise ValueError(f"{self.owner}: no exact law of a sum of {noise!r} draws")


class TreeStream:
    """The vectorised online entry point of :class:`BinaryTreeMechanism`: ``runs`` independent runs,
    each fed its own element per round (:meth:`add`), releasing at round t the noisy p-sum of block t
    (its exact sum plus one draw of ``noise`` per coordinate, as :meth:`BinaryTreeMechanism.sample`)
    and returning the noisy prefix sum through t (as :meth:`BinaryTreeMechanism.prefix`).

    Chan et al.'s online form: the exact sum of the block ending at t is element t plus the exact
    blocks of the levels below lsb(t), which block t absorbs; the prefix through t is the sum of the
    noisy blocks of t's set bits, one kept per level. :attr:`node_noise` is the last block's noise."""

    def __init__(self, tree: BinaryTreeMechanism, runs: int, rng: np.random.Generator):
        self.tree, self.rng = tree, rng
        self.runs = integer(tree.owner, "runs", runs, 1)
        self.t = 0
        shape = (tree.levels, self.runs, *tree.element_shape)
        self._exact = np.zeros(shape)  # per level, the exact sum of its latest block
        self._noisy = np.zeros(shape)  # per level, that block's release
        self.node_noise = np.zeros((self.runs, *tree.element_shape))
        self._noise_levels: np.ndarray | None = None  # per level, its latest block's noise (noise_ahead's state)

    def noise_ahead(self, count: int) -> np.ndarray:
        """The noise parts of the next ``count`` releases, for a consumer that adds the exact prefix sums itself (a
        compiled loop): blocks t + 1 .. t + count each draw their noise as :meth:`add` draws it (the same calls, in
        the same order), and release s carries the sum of the noises of the blocks of t + 1 + s's set bits (count,
        runs, *element shape). The stream then holds no exact sums, and refuses :meth:`add`."""
        tree = self.tree
        count = integer(tree.owner, "count", count, 0)
        if self.t + count > tree.T:
            raise ValueError(f"{tree.owner}: the stream holds T = {tree.T} elements; {count} more after element "
                             f"{self.t} overflow it")
        if self._noise_levels is None:
            if self.t:
                raise ValueError(f"{tree.owner}: noise ahead needs a stream that has not added elements")
            self._noise_levels = np.zeros((tree.levels, self.runs, *tree.element_shape))
        out = np.empty((count, self.runs, *tree.element_shape))
        for s in range(count):
            self.t += 1
            level = int(lowest_set_bit(self.t))
            self.node_noise = np.asarray(tree.noise.sample((self.runs, *tree.element_shape), self.rng), dtype=float)
            self._noise_levels[level] = self.node_noise
            self._noise_levels[:level] = 0.0
            out[s] = self._noise_levels.sum(axis=0)
        return out

    def add(self, x: Any, noise: np.ndarray | None = None) -> np.ndarray:
        """Element t of every run, shape (runs, *element shape); returns the noisy prefix sums through t.
        ``noise``: block t's noise (same shape), drawn from the tree's noise law if None (given, to
        replay a run's draws)."""
        tree = self.tree
        x = np.asarray(x, dtype=float)
        if x.shape != (self.runs, *tree.element_shape) or not np.isfinite(x).all():
            raise ValueError(f"{tree.owner}: a round's elements must be a finite array of shape "
                             f"{(self.runs, *tree.element_shape)}, got shape {x.shape}")
        if self.t >= tree.T:
            raise ValueError(f"{tree.owner}: the stream holds T = {tree.T} elements; no room for element {self.t + 1}")
        if self._noise_levels is not None:
            raise ValueError(f"{tree.owner}: the stream gave its noise ahead and holds no exact sums to add to")
        self.t += 1
        level = int(lowest_set_bit(self.t))
        exact = x + self._exact[:level].sum(axis=0)
        self.node_noise = np.asarray(tree.noise.sample(exact.shape, self.rng) if noise is None else noise, dtype=float)
        self._exact[level], self._noisy[level] = exact, exact + self.node_noise
        self._exact[:level] = 0.0
        self._noisy[:level] = 0.0
        return self._noisy.sum(axis=0)
