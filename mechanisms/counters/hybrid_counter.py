"""private-online M2: the hybrid mechanism of Hybrid-UCB (Hu, Huang & Mehta, Algorithm 4, Appendix
E.2, eqs. 32-34), on one arm's whole stream of observations.

Arm j's pulls are grouped in blocks: block 0 is the initialisation pull; block r >= 1 holds pulls
2^r .. 2^{r+1} - 1 and is stored twice, in an array F^(r) and in a complete binary tree B^(r) with
2^r leaves. After every pull O the arm's private mean is recomputed (eq. 34):

    mu~_O = (F~_{0:r-1} + B~_r(n)) / O,     r = floor(log2 O), n = O - 2^r + 1 (block r's fill)
    F~_{0:r-1} = sum_{r' < r} (sum F^(r') + Z^(r')),   Z^(r') ~ Lap(1/(0.5 eps)) = Lap(2/eps)   (eq. 32)
    B~_r(n) = sum B^(r)[1..n] + sum of the noises of the p-sums covering [1..n],
              every p-sum's noise Y ~ Lap(log2(2^r)/(0.5 eps)) = Lap(2r/eps)                   (eq. 33)

(mu~_1 = x_1 + Z^(0)). The tree part is :class:`~dpaudit.mechanisms.counters.tree.BinaryTreeMechanism`
over the n leaves filled so far (its p-sums ending at 1..n are those of the complete tree on 2^r
leaves: a block ending at t depends on t only).

What is released, as Algorithm 4 prints it: the estimate mu~_O after every pull. In particular the
estimate at the pull that fills block r (O = 2^{r+1} - 1, n = 2^r) reads the full tree B^(r) -- its
root p-sum -- and r is incremented only afterwards (Algorithm 4's "if O = sum_{r'<=r} lambda^(r')"
comes after the update; Lemma 12's proof: the mean of omega^(s-1) observations uses F^(0..s-2) and
the full tree B^(s-1)). The array noise Z^(r) is first read at pull 2^{r+1}.

Outputs:
- :meth:`HybridCounter.sample`: the estimates mu~_1 .. mu~_pulls, shape (size, pulls) (fast path:
  the noisy array sums and p-sums, then eq. 32-34 as post-processing);
- :meth:`HybridCounter.sample_per_pull`: the same, running Algorithm 4's update pull by pull;
- :meth:`HybridCounter.sample_releases` / :meth:`HybridCounter.release_distribution` (the subject
  :class:`HybridReleases`): the mechanism's
  internal releases, the noisy array sums Z-released so far and every block's noisy p-sums (the
  outputs of Chan et al.'s logarithmic and binary mechanisms, on which E.3.1's composition
  argument is made). ``part="array"`` or ``"tree"`` keeps one of the two sub-mechanisms (E.3.1
  claims each is 0.5 eps-DP).

Choices where the paper is silent (the spec's, recorded): each Z^(r) and each p-sum noise is drawn
once, when its array or p-sum is complete, and reused afterwards; Z^(0) is the initialisation's
Lap(1/(0.5 eps)) draw. Scales are exact rationals (2/eps, 2r/eps) for the exact auditor.

Neighbouring relation (Definition 1): one observation of the arm replaced by another in [0, 1]
(``ReplaceOne`` over ``Datasets(pulls, Box(0, 1))``). Privacy claim: Theorem 5 (eps-DP, E.3.1).
Per observation, the loss of the releases is (number of released p-sums holding it) eps/(2r)
plus eps/2 if its array sum is released: the first leaf of block r lies in the r + 1 p-sums
ending at 1, 2, 4, ..., 2^r, so a completed block costs (r + 1) eps/(2r) + eps/2 = eps (1 + 1/(2r))
(:meth:`HybridCounter.loss_bound`), 1.5 eps for block 1. E.3.1's count |S| <= r bounds the p-sums in
one prefix sum, not the p-sums holding one observation.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, ProductDistribution
from dpaudit.core.validation import choice, integer, positive, sample_size

from ..base import ExactRelease, Release
from ..noise import Laplace, LaplaceSum
from .lazy_laplace import rewards
from .tree import BinaryTreeMechanism

PARTS = ("both", "array", "tree")


class HybridCounter(Release):
    """M2 on one arm's first ``pulls`` observations (module docstring)."""

    paper = "private-online"
    source = "M2 of Hybrid-UCB: Algorithm 4, Appendix E.2, eqs. 32-34"

    def __init__(self, epsilon: float, pulls: int, part: str = "both"):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.pulls = integer(self.owner, "pulls", pulls, 1)
        self.part = choice(self.owner, "part", part, PARTS)
        eps = Fraction(self.epsilon)
        self.last_block = self.pulls.bit_length() - 1  # floor(log2 pulls): the block holding the last pull
        # array r' is read from pull 2^{r'+1} on; array 0 from the initialisation
        self.arrays_released = max(self.last_block, 1)
        self.array_noise = Laplace(2 / eps)
        self._node_scales: dict[int, float] = {}  # float(node_noise(r).scale) per r, as the policies ask for it
        self.trees: list[tuple[int, int, BinaryTreeMechanism]] = []  # (r, first pull of block r, its tree so far)
        for r in range(1, self.last_block + 1):
            filled = min(2**r, self.pulls - 2**r + 1)
            self.trees.append((r, 2**r, BinaryTreeMechanism(filled, Laplace(2 * r / eps))))
        self.name = (f"HybridCounter(eps={self.epsilon:g}, {self.pulls} pulls"
                     + ("" if part == "both" else f", {part} part") + ")")

    # -- the internal releases (array sums and p-sums) ------------------------------------------------
    def array_sums(self, data: Any) -> np.ndarray:
        """Exact sums of the released arrays 0 .. A - 1 (array r' holds pulls 2^{r'} .. 2^{r'+1} - 1)."""
        x = rewards(self.owner, data, self.pulls)
        return np.array([x[2**r - 1: 2 ** (r + 1) - 1].sum() for r in range(self.arrays_released)])

    def _block(self, x: np.ndarray, start: int, tree: BinaryTreeMechanism) -> np.ndarray:
        return x[start - 1: start - 1 + tree.T]

    def sample_releases(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Noisy array sums (A columns), then block 1's p-sums, block 2's, ... (the selected part)."""
        x = rewards(self.owner, data, self.pulls)
        return self._releases(x, sample_size(self.owner, size), rng)

    def _releases(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        parts = []
        if self.part in ("both", "array"):
            parts.append(self.array_sums(x) + self.array_noise.sample((size, self.arrays_released), rng))
        if self.part in ("both", "tree"):
            parts += [tree.sample(self._block(x, start, tree), size, rng) for _, start, tree in self.trees]
        return np.concatenate(parts, axis=1)

    def release_distribution(self, data: Any) -> ProductDistribution:
        """Exact law of :meth:`sample_releases`: independent Laplace coordinates."""
        x = rewards(self.owner, data, self.pulls)
        coords: list[Any] = []
        if self.part in ("both", "array"):
            coords += [self.array_noise.shifted(float(s)) for s in self.array_sums(x)]
        if self.part in ("both", "tree"):
            for _, start, tree in self.trees:
                coords += list(tree.distribution(self._block(x, start, tree)).coordinates)
        return ProductDistribution(tuple(coords))

    # -- vectorised entry points for a policy running many arms and runs at once -----------------------
    def node_noise(self, r: int) -> Laplace:
        """The law of every p-sum's noise in block r's tree: Lap(log2(2^r)/(0.5 eps)) = Lap(2r/eps)."""
        return Laplace(2 * integer(self.owner, "r", r, 1) / Fraction(self.epsilon))

    def sample_array_noise(self, shape: Any, rng: np.random.Generator) -> np.ndarray:
        """Independent draws of the array noise Z ~ Lap(2/eps) (eq. 32), any shape."""
        return self.array_noise.sample(shape, rng)

    def sample_node_noise(self, blocks: Any, nodes: int, rng: np.random.Generator) -> np.ndarray:
        """``nodes`` independent p-sum noises for each entry of ``blocks`` (the block index r >= 1 of a
        tree, one per row): shape (len(blocks), nodes), row i drawn from Lap(2 r_i/eps) (eq. 33)."""
        r = np.asarray(blocks, dtype=np.int64)
        if r.ndim != 1 or (r < 1).any():
            raise ValueError(f"{self.owner}: blocks must be a vector of block indices r >= 1, got {blocks!r}")
        distinct = np.unique(r)
        scales = np.array([self._node_scale(int(v)) for v in distinct])
        return rng.laplace(0.0, 1.0, (r.size, nodes)) * scales[np.searchsorted(distinct, r)][:, None]

    def _node_scale(self, r: int) -> float:
        """float(:meth:`node_noise`'s scale), kept per r: a policy asks for it at every chunk of p-sums it draws,
        and the exact scale is a Fraction."""
        if r not in self._node_scales:
            self._node_scales[r] = float(self.node_noise(r).scale)
        return self._node_scales[r]

    @staticmethod
    def estimate(noisy_arrays: Any, tree_sum: Any, tree_noise: Any, pulls: Any) -> np.ndarray:
        """Eq. 34 on parts already formed: (F~_{0:r-1} + sum of the tree's leaves + the noise of the
        p-sums covering them) / O, elementwise."""
        return (np.asarray(noisy_arrays, dtype=float) + tree_sum + tree_noise) / pulls

    # -- the estimates of eq. 34 ----------------------------------------------------------------------
    def estimates(self, releases: Any) -> np.ndarray:
        """mu~_1 .. mu~_pulls from released array sums and p-sums (part "both"), shape (size, pulls)."""
        if self.part != "both":
            raise ValueError(f"{self.owner}: estimates need both parts, "
                             f"this counter releases the {self.part} part only")
        rel = np.asarray(releases, dtype=float)
        arrays, rest = rel[:, : self.arrays_released], rel[:, self.arrays_released:]
        out = np.empty((rel.shape[0], self.pulls))
        out[:, 0] = arrays[:, 0]
        for r, start, tree in self.trees:
            nodes, rest = rest[:, : tree.T], rest[:, tree.T:]
            earlier = arrays[:, :r].sum(axis=1, keepdims=True)  # F~_{0:r-1}
            pulls = np.arange(start, start + tree.T)
            out[:, start - 1: start - 1 + tree.T] = (earlier + tree.prefix(nodes)) / pulls
        return out

    def _input(self, data: Any) -> np.ndarray:
        return rewards(self.owner, data, self.pulls)

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """The estimates after every pull, shape (size, pulls) (fast path)."""
        return self.estimates(self._releases(x, size, rng))

    def sample_per_pull(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 4 pull by pull (vectorised over the ``size`` runs): insert the observation in
        the block's array and tree, draw the noise of the p-sum it completes, recompute eq. 34, and
        when the block is full draw its array noise Z^(r) and open the next block."""
        if self.part != "both":
            raise ValueError(f"{self.owner}: the per-pull path runs the whole mechanism (part 'both')")
        x = rewards(self.owner, data, self.pulls)
        size = sample_size(self.owner, size)
        two_over_eps = 2 / self.epsilon
        out = np.empty((size, self.pulls))
        f_noisy = x[0] + rng.laplace(0.0, two_over_eps, size)  # initialisation: array 0 plus Z^(0)
        out[:, 0] = f_noisy
        r, block, psums = 1, [], {}
        for pull in range(2, self.pulls + 1):
            block.append(x[pull - 1])
            n = len(block)
            width = n & -n  # the p-sum completed by leaf n covers leaves n - width + 1 .. n
            psums[n] = sum(block[n - width: n]) + rng.laplace(0.0, r * two_over_eps, size)
            prefix, rest = np.zeros(size), n
            while rest:
                prefix = prefix + psums[rest]
                rest -= rest & -rest
            out[:, pull - 1] = (f_noisy + prefix) / pull
            if pull == 2 ** (r + 1) - 1:  # block r is full: its array joins F~ with a fresh Z^(r)
                f_noisy = f_noisy + sum(block) + rng.laplace(0.0, two_over_eps, size)
                r, block, psums = r + 1, [], {}
        return out

    # -- accounting -----------------------------------------------------------------------------------
    def loss_bound(self) -> float:
        """The largest privacy loss of the releases over one observation changed by 1: per
        observation, eps/2 for a released array sum plus eps/(2r) per released p-sum of block r
        holding it (tight: every coordinate is a Laplace shifted by at most 1)."""
        worst = 0.5 * self.epsilon if self.part in ("both", "array") else 0.0  # the initialisation pull
        for r, _, tree in self.trees:
            array = 0.5 * self.epsilon if self.part in ("both", "array") and r < self.arrays_released else 0.0
            if self.part == "array":
                worst = max(worst, array)
                continue
            holding = max(sum(1 for s, e in tree.nodes if s <= leaf <= e) for leaf in range(1, tree.T + 1))
            worst = max(worst, array + holding * self.epsilon / (2 * r))
        return worst

    def error_laws(self, pull: int) -> tuple[LaplaceSum | None, LaplaceSum | None]:
        """The laws of the two noises in O mu~_O at pull O >= 2: F~ - F^ (r i.i.d. Lap(2/eps), r =
        floor(log2 O)) and B~ - B^ (popcount(n) i.i.d. Lap(2r/eps)); (Lap(2/eps), None) at O = 1."""
        pull = integer(self.owner, "pull", pull, 1)
        if pull > self.pulls:
            raise ValueError(f"{self.owner}: pull must be in 1..{self.pulls}, got {pull}")
        if pull == 1:
            return LaplaceSum(1, 2 / self.epsilon), None
        r = pull.bit_length() - 1
        n = pull - 2**r + 1
        return LaplaceSum(r, 2 / self.epsilon), LaplaceSum(n.bit_count(), 2 * r / self.epsilon)


class HybridReleases(ExactRelease):
    """The internal releases of :class:`HybridCounter` as an audit subject: ``sample`` and
    ``distribution`` are :meth:`HybridCounter.sample_releases` and
    :meth:`HybridCounter.release_distribution` (the noisy array sums and p-sums; ``part`` as there)."""

    owner = "HybridCounter"  # errors name the counter, whose releases these are
    paper = "private-online"
    source = "Hybrid-UCB's internal releases (Algorithm 4, eqs. 32-33; the composition of Appendix E.3.1)"

    def __init__(self, epsilon: float, pulls: int, part: str = "both"):
        self.counter = HybridCounter(epsilon, pulls, part)
        self.name = self.counter.name.replace("HybridCounter", "HybridReleases")

    def _input(self, data: Any) -> np.ndarray:
        return rewards(self.owner, data, self.counter.pulls)

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.counter.sample_releases(x, size, rng)

    def _distribution(self, x: np.ndarray) -> ProductDistribution:
        return self.counter.release_distribution(x)

    def loss_bound(self) -> float:
        return self.counter.loss_bound()


def two_scale_laplace_sf(t: Any, a: float, b: float) -> np.ndarray:
    """P[X + Y > t] for independent X ~ Lap(a), Y ~ Lap(b), a != b: for t >= 0 the density
    (a e^{-t/a} - b e^{-t/b}) / (2 (a^2 - b^2)) integrates to (a^2 e^{-t/a} - b^2 e^{-t/b}) / (2 (a^2 - b^2));
    the law is symmetric."""
    if a == b:
        raise ValueError("two_scale_laplace_sf: the scales must differ (equal scales: LaplaceSum(2, a))")
    t = np.asarray(t, dtype=float)
    u = np.abs(t)
    upper = (a * a * np.exp(-u / a) - b * b * np.exp(-u / b)) / (2 * (a * a - b * b))
    return np.where(t >= 0, upper, 1 - upper)


class HybridEstimateView(ExactRelease):
    """A post-processing of Hybrid-UCB's released estimates on a 4-pull stream, with an exact law.

    The estimates mu~_1..mu~_4 (:meth:`HybridCounter.sample`) map one-to-one onto
    W1 = mu~_1 = x1 + Z0, W2 = 2 mu~_2 - mu~_1 = x2 + Y1, W3 = 3 mu~_3 - mu~_1 = x2 + x3 + Y2 (block 1's
    two p-sums, Lap(2/eps) each) and W4 = 4 mu~_4 - mu~_1 = x2 + x3 + x4 + Z1 + Y (array 1's Lap(2/eps)
    and block 2's first p-sum, Lap(4/eps)): four independent coordinates. The view releases
    (W1, W2, W3, 1{W4 > threshold}); the indicator coarsens the one two-scale coordinate so that the
    exact auditor can read its law. Being a function of the estimates, its privacy loss is a lower
    bound on theirs."""

    paper = "private-online"
    source = "Hybrid-UCB's estimates (Algorithm 4, eq. 34) on a 4-pull stream, post-processed"

    def __init__(self, epsilon: float, threshold: float):
        self.counter = HybridCounter(epsilon, 4)
        self.epsilon = self.counter.epsilon
        self.threshold = float(threshold)
        self.name = f"HybridEstimateView(eps={self.epsilon:g}, 4 pulls, W4 > {self.threshold:g})"

    def view(self, estimates: np.ndarray) -> np.ndarray:
        mu = np.asarray(estimates, dtype=float)
        w = mu * np.arange(1, 5) - np.concatenate([np.zeros((len(mu), 1)), np.repeat(mu[:, :1], 3, axis=1)], axis=1)
        return np.column_stack([w[:, :3], (w[:, 3] > self.threshold).astype(float)])

    # no _input: the counter checks the sampler's data (its errors name HybridCounter), _distribution
    # checks the exact law's (its errors name this view)
    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.view(self.counter.sample(data, size, rng))

    def _distribution(self, data: Any) -> ProductDistribution:
        x = rewards(self.owner, data, 4)
        two = Laplace(2 / Fraction(self.epsilon))
        above = float(two_scale_laplace_sf(self.threshold - (x[1] + x[2] + x[3]), 2 / self.epsilon, 4 / self.epsilon))
        indicator = FiniteDistribution.from_probs(np.array([0.0, 1.0]), [1 - above, above], log_error=1e-9)
        return ProductDistribution((two.shifted(float(x[0])), two.shifted(float(x[1])), two.shifted(float(x[1] + x[2])),
                               indicator))


__all__ = ["PARTS", "HybridCounter", "HybridEstimateView", "HybridReleases", "two_scale_laplace_sf"]
