"""Report-noisy-max and the exponential mechanism: which of k queries has the largest answer.

Input (``data``): the vector q of the k query answers on the dataset. Neighbouring relation: every
answer moves by at most the sensitivity Delta (``QueryDistance(Delta)``, the l-infinity ball; the
answers of neighbouring datasets may move in different directions, e.g. for arbitrary
sensitivity-Delta queries). Noise of scale b = 2 Delta / epsilon: the factor 2 pays for answers
moving in opposite directions; Dwork & Roth (2014, Claim 3.9) use Lap(1/epsilon) only for counting
queries, whose answers all move the same way under add/remove-one. This is the scale of the StatDP
benchmarks (Ding et al. CCS 2018, ``noisy_max_v1a`` and ``v2a``) that DP-Sniper (Bichsel et al.
S&P 2021) also audits.

- :class:`ReportNoisyMax` (Laplace or exponential noise) releases the index only: correct.
- :class:`ReportNoisyMaxWithValue` releases the index and the noisy maximum: broken (true epsilon
  k epsilon / 2).
- :class:`ExponentialMechanism` (McSherry & Talwar 2007): report-noisy-max with Gumbel noise,
  whose output law is the softmax exp(q_i / b) / sum_j exp(q_j / b).

All three are vectorised over samples (the noise is a (size, k) array).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, interval_bounds
from dpaudit.core.validation import choice, exact_vector, integer, positive, query_vector

from ..base import ExactRelease, Release
from ..enclosures import from_enclosures, from_log_enclosures
from ..piecewise import PiecewiseExp, enclose, interval_context, product

NOISES = ("laplace", "exponential")


class _NoisyMaxBase(Release):
    """The k answers, the noise scale b = 2 Delta / epsilon and the input check the three share."""

    def __init__(self, epsilon: float, k: int, sensitivity: float = 1.0):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.k = integer(self.owner, "k", k, 2)
        self.sensitivity = positive(self.owner, "sensitivity", sensitivity)
        # b = 2 Delta / epsilon, kept as an exact rational for the exact distribution
        self.scale = 2 * Fraction(self.sensitivity) / Fraction(self.epsilon)

    def _input(self, data: Any) -> np.ndarray:
        """The k query answers, checked."""
        return query_vector(self.owner, data, self.k)


class ReportNoisyMax(_NoisyMaxBase, ExactRelease):
    """Report noisy max, releasing only the index: argmax_i (q_i + Z_i), Z_i i.i.d. with scale
    b = 2 Delta / epsilon; ``noise="laplace"`` (density exp(-|z|/b)/(2b)) or ``"exponential"``
    (one-sided, density exp(-z/b)/b on z >= 0; Ding et al. 2021 show this equals the
    permute-and-flip mechanism).

    Source: Dwork & Roth (2014), Section 3.3, Claim 3.9 (Laplace), with the scale 2 Delta/epsilon of
    StatDP's ``noisy_max_v1a`` / ``noisy_max_v2a`` for l-infinity neighbours. Output: the index as an
    integer in {0, ..., k-1}, shape (size,). Ties have probability zero; ``argmax`` takes the first.

    **True epsilon: exactly epsilon** (both noises), derived:

    *Upper bound.* Write p, F for the noise density and CDF, so
    P_q(i) = integral p(v - q_i) prod_{j != i} F(v - q_j) dv. For a neighbour q' (|q'_j - q_j| <= Delta),
    F is increasing and q'_j <= q_j + Delta, so P_q'(i) >= integral p(v - q'_i) prod F(v - Delta - q_j) dv,
    and substituting v = u + Delta, = integral p(u - q_i + s) prod F(u - q_j) du with
    s = Delta + q_i - q'_i in [0, 2 Delta]. For both noises p(x + s) >= e^{-s/b} p(x) for s >= 0
    (the exponential density is zero left of 0, where p(x) is zero as well), so
    P_q'(i) >= e^{-2 Delta/b} P_q(i) = e^{-epsilon} P_q(i).

    *Tightness.* Take output i and q'_i = q_i - Delta, q'_j = q_j + Delta (j != i); the same
    substitution gives P_q'(i) = integral p(u - q_i + 2 Delta) prod F(u - q_j) du exactly, and
    p(x)/p(x + 2 Delta) = e^{epsilon} for every x >= 0. Exponential noise: if some q_j >= q_i, the
    factor F(u - q_j) vanishes for u < q_j, so the whole integral lives on u >= q_i and the ratio is
    exactly e^epsilon (attained; StatDP's "one below rest above" pair (1,...,1) vs (0,2,...,2),
    output 0). Laplace noise: with q_j = q_i + M for all j != i the weight
    p(u - q_i + 2 Delta) prod F(u - q_j) is flat (k = 2) or increasing (k > 2) on [q_i - 2 Delta, q_i + M],
    so as M -> infinity its mass moves to u >= q_i and the ratio tends to e^epsilon: a supremum,
    not attained at any finite pair.

    Exact distribution (:meth:`distribution`): every P_q(i) is an integral of a product of
    piecewise exponentials, computed in closed form with exact rationals and enclosed with
    interval arithmetic (:mod:`.piecewise`), returned as a FiniteDistribution over {0..k-1}.
    """

    paper = "Dwork & Roth 2014"
    source = "Section 3.3, Claim 3.9 (report noisy max), at StatDP's scale 2 Delta/epsilon"

    def __init__(self, epsilon: float, k: int, noise: str = "laplace", sensitivity: float = 1.0):
        super().__init__(epsilon, k, sensitivity)
        self.noise = choice(self.owner, "noise", noise, NOISES)
        self.name = f"ReportNoisyMax({self.noise}, eps={self.epsilon:g}, k={self.k}, index)"

    def _noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        b = float(self.scale)
        if self.noise == "laplace":
            return rng.laplace(0.0, b, (size, self.k))
        return rng.exponential(b, (size, self.k))

    def _sample(self, q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.argmax(q + self._noise(size, rng), axis=1).astype(np.int64)

    def select(self, answers: Any, rng: np.random.Generator) -> np.ndarray:
        """One release per row of ``answers`` (shape (runs, k), a vector of k query answers per run):
        runs whose answers differ, as a policy's do, drawn in one step. With equal rows it draws exactly
        what :meth:`sample` draws for ``runs`` outputs on one row."""
        q = np.asarray(answers, dtype=float)
        if q.ndim != 2 or q.shape[1] != self.k or not np.isfinite(q).all():
            raise ValueError(f"{self.owner}: answers must be a finite (runs, {self.k}) array, got shape {q.shape}")
        return np.argmax(q + self._noise(len(q), rng), axis=1).astype(np.int64)

    def _distribution(self, answers: np.ndarray) -> FiniteDistribution:
        q = exact_vector(answers)
        pdf, cdf = (
            (PiecewiseExp.laplace_pdf, PiecewiseExp.laplace_cdf)
            if self.noise == "laplace"
            else (PiecewiseExp.exponential_pdf, PiecewiseExp.exponential_cdf)
        )
        b = self.scale
        enclosures = []
        for i in range(self.k):
            integrand = product([pdf(q[i], b)] + [cdf(q[j], b) for j in range(self.k) if j != i])
            enclosures.append(enclose(integrand.integral()))
        return from_enclosures(np.arange(self.k), enclosures)


class ReportNoisyMaxWithValue(_NoisyMaxBase):
    """Report noisy max with Laplace noise of scale b = 2 Delta/epsilon that releases the noisy
    maximum *value* together with its index: a known-broken variant (StatDP ``noisy_max_v1b``
    releases the value alone; Lyu, Su & Li 2017 discuss the same flaw for sparse vector).

    Output: rows ``[index, value]`` (index as a float), shape (size, 2). No exact distribution is
    exposed: the output is a mixed discrete/continuous law, audited black-box.

    **True epsilon: exactly k Delta / b = k epsilon / 2** (a maximum, attained), derived: the output
    (i, v) has density f_q(i, v) = p(v - q_i) prod_{j != i} F(v - q_j) with p, F the Laplace(b)
    density and CDF. log p is (1/b)-Lipschitz, and so is log F (its derivative p/F equals 1/b for
    x <= 0 and is smaller for x > 0). Each of the k factors moves by at most Delta/b when every
    answer moves by at most Delta, so |log f_q - log f_q'| <= k Delta / b. Equality: q' = q + Delta
    (every answer up, StatDP's "all above") and v <= min_j q_j, where every argument lies in the
    left tail and every factor's log moves by exactly Delta/b. That region has probability
    prod_j F(min q - q_j) under M(q): 2^-k when the answers are equal, and 2^-k e^{-k epsilon/2}
    under M(q').
    """

    paper = "Ding et al. 2018"
    source = "report noisy max releasing the index and the noisy maximum (cf. StatDP's noisy_max_v1b)"

    def __init__(self, epsilon: float, k: int, sensitivity: float = 1.0):
        super().__init__(epsilon, k, sensitivity)
        self.name = f"ReportNoisyMax(laplace, eps={self.epsilon:g}, k={self.k}, index and value)"

    @property
    def true_epsilon(self) -> float:
        return self.k * self.sensitivity / float(self.scale)

    def _sample(self, q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        noisy = q + rng.laplace(0.0, float(self.scale), (size, self.k))
        index = np.argmax(noisy, axis=1)
        value = noisy[np.arange(size), index]
        return np.column_stack([index.astype(float), value])


class ExponentialMechanism(_NoisyMaxBase, ExactRelease):
    """The exponential mechanism (McSherry & Talwar 2007; Dwork & Roth 2014, Def. 3.4) over k
    candidates with utilities q (``data``) of sensitivity Delta: P[i] = exp(q_i/b) / sum_j exp(q_j/b)
    with b = 2 Delta/epsilon, i.e. exp(epsilon q_i / (2 Delta)).

    Sampled as report-noisy-max with Gumbel noise of scale b (the Gumbel-max trick: argmax of
    q_i/b + G_i, G_i standard Gumbel, has exactly the softmax law). Output: the index, shape (size,).

    **True epsilon: exactly epsilon, as a supremum (not attained)**, derived: the log-ratio is
    (q_i - q'_i)/b + log(sum_j e^{q'_j/b} / sum_j e^{q_j/b}), each part at most Delta/b = epsilon/2.
    With q'_i = q_i - Delta and q'_j = q_j + Delta (j != i), the second part equals
    Delta/b + log((S + e^{(q_i - 2 Delta)/b}) / (S + e^{q_i/b})), S = sum_{j != i} e^{q_j/b}, which
    tends to Delta/b as q_i - max_{j != i} q_j -> -infinity; so the loss tends to epsilon.

    Exact distribution: log P[i] = q_i/b - log sum_j e^{q_j/b}, enclosed with interval arithmetic.
    """

    paper = "McSherry & Talwar 2007"
    source = "the exponential mechanism (Dwork & Roth 2014, Definition 3.4), sampled by the Gumbel-max trick"

    def __init__(self, epsilon: float, k: int, sensitivity: float = 1.0):
        super().__init__(epsilon, k, sensitivity)
        self.name = f"ExponentialMechanism(eps={self.epsilon:g}, k={self.k})"

    def _sample(self, q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.argmax(q / float(self.scale) + rng.gumbel(0.0, 1.0, (size, self.k)), axis=1).astype(np.int64)

    def _distribution(self, answers: np.ndarray) -> FiniteDistribution:
        q = exact_vector(answers)
        ctx = interval_context(192)
        b = ctx.mpf(self.scale.numerator) / ctx.mpf(self.scale.denominator)
        utilities = [ctx.mpf(v.numerator) / ctx.mpf(v.denominator) / b for v in q]
        log_total = ctx.log(sum((ctx.exp(u) for u in utilities), ctx.mpf(0)))
        log_enclosures = [interval_bounds(u - log_total) for u in utilities]
        return from_log_enclosures(np.arange(self.k), log_enclosures)


__all__ = ["ExponentialMechanism", "ReportNoisyMax", "ReportNoisyMaxWithValue"]
