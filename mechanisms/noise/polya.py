"""Geometric and Polya (negative binomial with real shape) laws, and differences of Polya shares.

Parameterised as dist-mab prints them (Fact 1): Polya(r, beta) has
P[X = x] = Gamma(x + r) / (x! Gamma(r)) beta^x (1 - beta)^r on {0, 1, ...}, and
Polya(1, beta) = Geometric(beta), P[N = k] = beta^k (1 - beta). A user's noise share is
gamma^+ - gamma^- with gamma^+- i.i.d. Polya(r, beta) (:class:`PolyaDifference`); n shares with
r = 1/n sum to the discrete Laplace with ratio beta (Fact 1, Goryczka and Xiong 2015, Thm 5.1):
:meth:`PolyaDifference.sum_of` gives that sum's law in closed form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import special, stats

from dpaudit.core.validation import integer, positive, probability

from ._lattice import IntegerLaw, ScipyIntegerLaw


@dataclass(frozen=True)
class Polya(ScipyIntegerLaw):
    """Polya(r, beta): negative binomial with real shape ``r`` > 0 and ratio ``beta`` in (0, 1).

    Sampled with numpy's ``negative_binomial(r, 1 - beta)`` (the Gamma-Poisson mixture of dist-mab's
    footnote 3 in one call).
    """

    r: float = 1.0
    beta: float = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "r", float(positive(type(self).__name__, "shape r", self.r)))
        object.__setattr__(self, "beta", probability(type(self).__name__, "beta", self.beta))

    @property
    def _scipy(self):
        return stats.nbinom(self.r, 1 - self.beta)

    @property
    def mean(self) -> float:
        return self.r * self.beta / (1 - self.beta)

    @property
    def var(self) -> float:
        return self.r * self.beta / (1 - self.beta) ** 2

    support = (0.0, math.inf)

    @property
    def cgf_domain(self) -> tuple[float, float]:
        return -math.inf, -math.log(self.beta)

    def cgf(self, lam) -> np.ndarray:
        """r log((1 - beta) / (1 - beta e^lam)) for lam < -log beta (inf beyond)."""
        lam = np.asarray(lam, dtype=float)
        inside = lam < -math.log(self.beta)
        lam_in = np.where(inside, lam, 0.0)
        value = self.r * (math.log1p(-self.beta) - np.log(-np.expm1(lam_in + math.log(self.beta))))
        return np.where(inside, value, np.inf)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return rng.negative_binomial(self.r, 1 - self.beta, size)


class Geometric(Polya):
    """Geometric(beta) on {0, 1, ...}: P[N = k] = beta^k (1 - beta), i.e. Polya(1, beta)."""

    def __init__(self, beta: float = 0.5):
        super().__init__(1.0, beta)

    def __repr__(self) -> str:
        return f"Geometric(beta={self.beta!r})"

    def sf(self, k) -> np.ndarray:
        """P[N > k] = beta^(floor(k) + 1) for k >= 0."""
        j = np.floor(np.asarray(k, dtype=float))
        return np.where(j < 0, 1.0, np.exp((np.maximum(j, -1) + 1) * math.log(self.beta)))

    def cdf(self, k) -> np.ndarray:
        j = np.floor(np.asarray(k, dtype=float))
        return np.where(j < 0, 0.0, -np.expm1((np.maximum(j, -1) + 1) * math.log(self.beta)))

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return rng.geometric(1 - self.beta, size) - 1


@dataclass(frozen=True)
class PolyaDifference(IntegerLaw):
    """gamma^+ - gamma^- for i.i.d. gamma^+- ~ Polya(r, beta): one user's noise share in dist-mab.

    pmf in closed form: for d = |x|,
    P = (1 - beta)^(2r) beta^d Gamma(d + r) / (Gamma(r) d!) 2F1(r, d + r; d + 1; beta^2),
    evaluated with scipy's hyp2f1 (accurate to about 1e-10 in the log for r <= 1, checked against
    mpmath in the tests); where it fails to evaluate (far tails with beta near 1), from a tilted FFT
    table. The shape is limited to r <= 1, which covers a share (r = 1/n) and any sum of shares
    (r = k/n); for larger shapes scipy's hyp2f1 returns wrong finite values and the tilt loses the
    body of the law, so the class refuses them.
    """

    r: float = 1.0
    beta: float = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "r", float(positive("PolyaDifference", "shape r", self.r)))
        object.__setattr__(self, "beta", probability("PolyaDifference", "beta", self.beta))
        if self.r > 1:
            raise ValueError(
                f"PolyaDifference: shape r must be <= 1 (one user's share, or a sum of up to all n shares), "
                f"got {self.r!r}; "
                "for a sum of several discrete Laplace variables use iid_sum(DiscreteLaplace(...), k)")

    @classmethod
    def share(cls, n: int, beta: float) -> PolyaDifference:
        """The share of one of ``n`` users: r = 1/n (the n shares sum to a discrete Laplace)."""
        return cls(1.0 / integer("PolyaDifference", "n", n, minimum=1), beta)

    def sum_of(self, n: int) -> PolyaDifference:
        """The law of the sum of ``n`` independent shares: Polya shapes add, so PolyaDifference(n r, beta)
        (with n r = 1 it is the discrete Laplace of ratio beta)."""
        return PolyaDifference(self.r * integer("PolyaDifference", "n", n, minimum=1), self.beta)

    def logpmf(self, k) -> np.ndarray:
        """The closed form (scipy's hyp2f1) where it evaluates; where it does not (large |x| with beta
        near 1, or a large shape), the exponentially tilted correlation table of :meth:`_tilted_log_table`."""
        k = np.asarray(k, dtype=float)
        d = np.abs(np.round(k))
        r, b = self.r, self.beta
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            out = (2 * r * math.log1p(-b) + d * math.log(b) + special.gammaln(d + r) - special.gammaln(r)
                   - special.gammaln(d + 1) + np.log(special.hyp2f1(r, d + r, d + 1, b * b)))
        failed = ~np.isfinite(out)
        if failed.any():
            table = self._tilted_log_table
            index = np.minimum(d[failed], table.size - 1).astype(np.int64)
            out[failed] = np.where(d[failed] < table.size, table[index], -np.inf)
        return np.where(k == np.round(k), out, -np.inf)

    @cached_property
    def _tilted_log_table(self) -> np.ndarray:
        """log P[D = d] for d = 0, 1, ..., by an FFT correlation made accurate in the tails by tilting.

        With p the Polya pmf and u(j) = p(j) beta^-j (polynomial in j), v(j) = p(j) beta^j:
        P[D = d] = sum_j p(j) p(j + d) = beta^d sum_j v(j) u(j + d). The correlation of v with u has
        no exponential decay in d, so the FFT's absolute rounding (about 1e-16 of its largest value
        per term) stays a small relative error far into the tail, where the untilted one would
        swamp it.
        """
        from scipy.signal import fftconvolve

        polya = Polya(self.r, self.beta)
        top = polya.window()[1]
        j = np.arange(top + 1)
        lp = polya.logpmf(j)
        lb = math.log(self.beta)
        log_u, log_v = lp - j * lb, lp + j * lb
        shift_u, shift_v = log_u.max(), log_v.max()  # scaled to at most 1, added back in the log
        u, v = np.exp(log_u - shift_u), np.exp(log_v - shift_v)
        corr = fftconvolve(u, v[::-1])[top:]  # corr[d] = sum_j v(j) u(j + d), d = 0..top
        with np.errstate(divide="ignore"):
            return np.where(corr > 0, np.log(np.maximum(corr, 1e-300)) + np.arange(corr.size) * lb + shift_u + shift_v,
                            -np.inf)

    mean = 0.0

    @property
    def var(self) -> float:
        return 2 * self.r * self.beta / (1 - self.beta) ** 2

    support = (-math.inf, math.inf)

    @property
    def cgf_domain(self) -> tuple[float, float]:
        return math.log(self.beta), -math.log(self.beta)

    def cgf(self, lam) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        lb = math.log(self.beta)
        inside = np.abs(lam) < -lb
        lam_in = np.where(inside, lam, 0.0)
        value = self.r * (2 * math.log1p(-self.beta) - np.log(-np.expm1(lam_in + lb)) - np.log(-np.expm1(lb - lam_in)))
        return np.where(inside, value, np.inf)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        p = 1 - self.beta
        return rng.negative_binomial(self.r, p, size) - rng.negative_binomial(self.r, p, size)


__all__ = ["Geometric", "Polya", "PolyaDifference"]
