"""shuffle-glm's shuffled vector and matrix summation (Appendix S, Algorithms 4, 5, 6, after Cheu,
Joseph, Mao & Peng 2021): P_1 = A_1 o S_1 o R_1 for vectors, P_2 = A_2 o S_2 o R_2 for symmetric
matrices.

Every released scalar ("label": a coordinate k, or an upper-triangular entry (i, j)) is summed the
same way. User i biases its entry, w_i = x_i + Delta in [0, 2 Delta], and its randomizer R*
(Algorithm 4) sends a multiset of bits with x_hat_i + gamma2_i ones, where
x_hat_i = floor(w_i g / Delta) + Bernoulli(w_i g / Delta - floor(w_i g / Delta)) and
gamma2_i ~ Bin(b, p). The shuffler S (Algorithm 5) permutes all bits uniformly and groups them by
label, so the analyzer's view of a label is the multiset of its bits, i.e. its count of ones
C = sum_i (x_hat_i + gamma2_i): the sum of n randomized roundings plus Bin(n b, p). The analyzer A
(Algorithm 6) returns o = (Delta/g)(C - p b n) - B Delta with B = n (the prose's "subtracting
n Delta"; Algorithm 6 leaves B undefined).

Parameters, eq. (127), for n users, dimension d and the budget (eps, delta) passed in:
    g = max{2 sqrt n, d, 4},   b = 24 10^4 g^2 (log(4 (d^2 + 1) / delta))^2 / (eps^2 n),   p = 1/4.
The setting is Cheu et al.'s Theorem 4.2, stated for 0 < eps <= 15 and 0 < delta < 1/2; budgets
outside that range are refused. The same (127) (with d the vector dimension) serves P_2.

Choices where the paper is silent:
  - g := max{ceil(2 sqrt n), d, 4} and b := ceil(b) (both must be integers);
  - after biasing w can reach 2 Delta, so x_hat reaches 2g while Algorithm 4 prints messages of
    g + b bits (its count of zeros (g + b) - (x_hat + gamma2) can be negative): each message has
    2g + b bits, x_hat + gamma2 of them ones; the analyzer only counts ones, so its formula is
    unchanged;
  - a message is represented by its count of ones (a multiset of bits is determined by its size and
    its count of ones), so the per-user path never materialises the 2g + b bits;
  - inputs: vectors with ||x_i||_2 <= Delta (Lemma S.1), symmetric matrices with operator norm
    ||X_i||_2 <= Delta (Lemma S.2), each checked up to a relative 1e-9 for floating point.

Paths: :meth:`sample` draws each label's count from its exact law (the rounding sum's law and one
Bin(n b, p)); :meth:`sample_per_user` runs every user's R* and sums the users' counts per label, as
the shuffler groups them. :meth:`distribution` is the exact law of the counts (independent labels:
a :class:`~dpaudit.core.distributions.ProductDistribution` of finite laws), for the exact auditor. The binomial is
tabled on a window of +-12 standard deviations, the mass outside bounded by Hoeffding's inequality
and carried as ``tail_mass`` (it can only count against a claim).

:func:`chernoff_gap` samples the Gram matrix sum_i x_i x_i^T that P_2 sums (Algorithm 1's x x^T), for
x uniform on the unit sphere, against Lemma H.2's matrix Chernoff bound (a plain ``f(size, rng, ...)``
sampler for tail audits: the smallest eigenvalue has no closed-form law).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpaudit.core.validation import integer, positive

from ..base import Adapter
from .bit_summation import P_BITS, BitSummation

#: Theorem 4.2 of Cheu et al., as Lemma S.1 quotes it
EPSILON_MAX = 15.0
DELTA_MAX = 0.5
#: relative slack on the norm bound, for inputs computed in floating point
NORM_SLACK = 1e-9


def summation_parameters(epsilon: float, delta: float, d: int, n: int,
                         owner: str = "summation") -> tuple[int, int, float]:
    """(g, b, p) of eq. (127) for n users in dimension d at budget (eps, delta), rounded up."""
    epsilon = positive(owner, "epsilon", epsilon)
    if epsilon > EPSILON_MAX:
        raise ValueError(f"{owner}: epsilon must be in (0, {EPSILON_MAX:g}] (Lemma S.1 / Cheu et al. Thm 4.2), "
                         f"got {epsilon!r}")
    delta = positive(owner, "delta", delta)
    if not delta < DELTA_MAX:
        raise ValueError(f"{owner}: delta must be in (0, 1/2) (Lemma S.1 / Cheu et al. Thm 4.2), got {delta!r}")
    d = integer(owner, "d", d, 1)
    n = integer(owner, "n", n, 1)
    g = max(math.ceil(2 * math.sqrt(n)), d, 4)
    b = math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * n))
    return g, b, P_BITS


class ShuffledSummation(BitSummation):
    """The per-label protocol shared by P_1 and P_2 (module docstring): ``labels`` released scalars,
    each summed over ``n`` users' biased entries with R*, grouped by S and debiased by A.

    Subclasses say how a user's input becomes its entries (:meth:`entries`) and how the analyzer's
    per-label estimates become the output (:meth:`assemble`)."""

    paper = "shuffle-glm"
    source = "Appendix S, Algorithms 4-6 (R*, S, A), parameters of eq. (127)"

    def __init__(self, epsilon: float, delta: float, d: int, n: int, Delta: float, labels: int):
        self.epsilon, self.delta = float(epsilon), float(delta)
        g, b, _ = summation_parameters(epsilon, delta, d, n, self.owner)
        super().__init__(g, b, n, labels)
        self.d, self.n = int(d), int(n)
        self.Delta = positive(self.owner, "Delta", Delta)
        self.name = (f"{self.owner}(eps={self.epsilon:g}, delta={self.delta:g}, d={self.d}, n={self.n}, "
                     f"Delta={self.Delta:g}; g={self.g}, b={self.b})")

    # -- the inputs ---------------------------------------------------------------------------

    def entries(self, data: Any) -> np.ndarray:
        """The users' entries, shape (n, labels), before biasing."""
        raise NotImplementedError

    def biased(self, entries: np.ndarray) -> np.ndarray:
        """w = x + Delta, as the fraction w / (2 Delta) in [0, 1] that precision-2g rounding takes."""
        return np.clip((entries + self.Delta) / (2 * self.Delta), 0.0, 1.0)

    # -- R*, S and the count law -------------------------------------------------------------

    def fractions(self, data: Any) -> np.ndarray:
        return self.biased(self.entries(data))

    def randomize(self, entries: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """R* for every user and label (any leading shape): each message's count of ones,
        x_hat + gamma2, out of 2g + b bits."""
        return self.randomize_fractions(self.biased(entries), rng)

    def sample_inputs(self, entries: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Views for a different input per run (entries of shape (runs, n, labels), already
        validated): per-user rounding, one Bin(n b, p) per label (the same law as R* summed)."""
        x_hat = self.rounding.round(self.biased(entries), rng).sum(axis=1)
        return x_hat + rng.binomial(self.n * self.b, self.p, x_hat.shape)

    # -- A ------------------------------------------------------------------------------------

    def debias(self, counts: Any) -> np.ndarray:
        """A* and the re-centring: o = (Delta/g)(C - p b n) - n Delta, per label."""
        return super().debias(counts, self.Delta)

    def analyze(self, counts: Any) -> np.ndarray:
        return self.assemble(self.debias(counts))

    def assemble(self, per_label: np.ndarray) -> np.ndarray:
        return per_label

    def estimate(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` outputs of the protocol: estimates of the users' sum."""
        return self.analyze(self.sample(data, size, rng))

    def error_variance(self, data: Any) -> np.ndarray:
        """Var of each label's error o - sum x: (Delta/g)^2 [sum frac (1 - frac) + n b p (1 - p)]."""
        scaled = self.biased(self.entries(data)) * 2 * self.g
        frac = scaled - np.floor(scaled)
        return (self.Delta / self.g) ** 2 * ((frac * (1 - frac)).sum(axis=0) + self.n * self.b * self.p * (1 - self.p))


class ShuffledVectorSummation(ShuffledSummation):
    """P_1 = A_1 o S_1 o R_1 (Algorithms 4-6): the sum of n vectors in R^d with ||x_i||_2 <= Delta.

    Data: an (n, d) array, one user per row. Output of :meth:`estimate`: the d-vector estimate;
    of :meth:`sample`: the shuffled view, the d counts of ones."""

    source = "P_1 = A_1 o S_1 o R_1, Appendix S, Algorithms 4-6 (Lemma S.1)"

    def __init__(self, epsilon: float, delta: float, d: int, n: int, Delta: float):
        super().__init__(epsilon, delta, d, n, Delta, labels=integer(self.owner, "d", d, 1))

    def entries(self, data: Any) -> np.ndarray:
        x = np.asarray(data, dtype=float)
        if x.shape != (self.n, self.d) or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: data must be the {self.n} users' vectors, shape ({self.n}, {self.d}), "
                             f"got {x.shape}")
        norms = np.linalg.norm(x, axis=1)
        if (norms > self.Delta * (1 + NORM_SLACK)).any():
            raise ValueError(f"{self.owner}: every input needs ||x_i||_2 <= Delta = {self.Delta:g} (Lemma S.1), "
                             f"got a norm of {norms.max():.6g}")
        return x


class ShuffledMatrixSummation(ShuffledSummation):
    """P_2 = A_2 o S_2 o R_2 (Algorithms 4-6): the sum of n symmetric d x d matrices with operator
    norm ||X_i||_2 <= Delta. The d(d+1)/2 upper-triangular entries (row-major) are the labels; the
    analyzer mirrors them (o_(j,i) = o_(i,j)).

    Data: an (n, d, d) array of symmetric matrices. :meth:`sample` gives the d(d+1)/2 counts."""

    source = "P_2 = A_2 o S_2 o R_2, Appendix S, Algorithms 4-6 (Lemma S.2)"

    def __init__(self, epsilon: float, delta: float, d: int, n: int, Delta: float):
        d = integer(self.owner, "d", d, 1)
        super().__init__(epsilon, delta, d, n, Delta, labels=d * (d + 1) // 2)
        self.upper = np.triu_indices(d)

    def matrices(self, data: Any) -> np.ndarray:
        x = np.asarray(data, dtype=float)
        if x.shape != (self.n, self.d, self.d) or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: data must be the {self.n} users' matrices, shape "
                             f"({self.n}, {self.d}, {self.d}), got {x.shape}")
        if not np.array_equal(x, np.swapaxes(x, 1, 2)):
            raise ValueError(f"{self.owner}: every input must be a symmetric matrix (Lemma S.2)")
        norms = np.abs(np.linalg.eigvalsh(x)).max(axis=1)
        if (norms > self.Delta * (1 + NORM_SLACK)).any():
            raise ValueError(f"{self.owner}: every input needs operator norm ||X_i||_2 <= Delta = {self.Delta:g} "
                             f"(Lemma S.2), got {norms.max():.6g}")
        return x

    def entries(self, data: Any) -> np.ndarray:
        return self.matrices(data)[:, self.upper[0], self.upper[1]]

    def assemble(self, per_label: np.ndarray) -> np.ndarray:
        out = np.zeros((*per_label.shape[:-1], self.d, self.d))
        out[..., self.upper[0], self.upper[1]] = per_label
        out[..., self.upper[1], self.upper[0]] = per_label
        return out


class OuterProductSummation(Adapter):
    """P_2 on the rank-one inputs Algorithm 1 sends: user i holds a vector y_i and sends
    R_2(y_i y_i^T). Lines 5 and 18 send x x^T (Delta = 1) and (mu'(<x, theta_1>) / beta(x)) x x^T
    (Delta = 1/kappa*), i.e. y = sqrt(weight) x. Data: an (n, d) array of the y_i, with
    ||y_i||^2 <= Delta (so ||y y^T||_2 <= Delta). The release is P_2's (:attr:`inner`) on the outer
    products (:meth:`matrices`)."""

    paper = "shuffle-glm"
    source = "Algorithm 1, lines 5 and 18: R_2 on x x^T and (mu'/beta) x x^T"

    def __init__(self, protocol: ShuffledMatrixSummation):
        self.protocol = self.inner = protocol
        self.name = f"{protocol!r} on outer products"

    def matrices(self, data: Any) -> np.ndarray:
        y = np.asarray(data, dtype=float)
        p = self.protocol
        if y.shape != (p.n, p.d) or not np.isfinite(y).all():
            raise ValueError(f"{self.owner}: data must be the {p.n} users' vectors, shape ({p.n}, {p.d}), "
                             f"got {y.shape}")
        return np.einsum("ni,nj->nij", y, y)

    def _input(self, data: Any) -> np.ndarray:
        return self.matrices(data)

    def counts_runs(self, vectors: Any, rng: np.random.Generator) -> np.ndarray:
        """The shuffled views of ``runs`` independent protocols, each on its own users: vectors (runs, n, d)
        -> the d(d+1)/2 counts per run, (runs, d(d+1)/2), each run's with the law of :meth:`sample` on its
        vectors (:meth:`ShuffledSummation.sample_inputs`). The entry point of an algorithm that releases
        many runs' batch sums at once."""
        p = self.protocol
        y = np.asarray(vectors, dtype=float)
        if y.ndim != 3 or y.shape[1:] != (p.n, p.d) or not np.isfinite(y).all():
            raise ValueError(f"{self.owner}: vectors must have shape (runs, {p.n}, {p.d}), got {y.shape}")
        if (np.einsum("rni,rni->rn", y, y) > p.Delta * (1 + NORM_SLACK)).any():
            raise ValueError(f"{self.owner}: every input needs ||y y^T||_2 = ||y||^2 <= Delta = {p.Delta:g} "
                             "(Lemma S.2)")
        entries = y[:, :, p.upper[0]] * y[:, :, p.upper[1]]  # the upper triangle of each y y^T
        return p.sample_inputs(entries, rng)

    def release_runs(self, vectors: Any, rng: np.random.Generator) -> np.ndarray:
        """The analyzer's estimates of sum_i y_i y_i^T for each run: (runs, n, d) -> (runs, d, d)."""
        return self.protocol.analyze(self.counts_runs(vectors, rng))


def chernoff_gap(size, rng, d: int, n: int, eps: float):
    """lambda_min(3 eps n I + sum x x^T - (n/8) E x x^T) for x uniform on the unit sphere (E x x^T = I/d),
    negated: the printed event '<=' is this being >= 0."""
    out = np.empty(size)
    block = max(1, 200_000 // n)
    for start in range(0, size, block):
        m = min(block, size - start)
        x = rng.standard_normal((m, n, d))
        x /= np.linalg.norm(x, axis=2, keepdims=True)
        gram = np.einsum("mni,mnj->mij", x, x) + (3 * eps * n - n / (8 * d)) * np.eye(d)
        out[start: start + m] = -np.linalg.eigvalsh(gram).max(axis=1)
    return out


__all__ = ["OuterProductSummation", "ShuffledMatrixSummation", "ShuffledSummation", "ShuffledVectorSummation",
           "chernoff_gap", "summation_parameters"]
