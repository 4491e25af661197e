"""The Skellam distribution Sk(loc, variance): loc + N_1 - N_2, N_i i.i.d. Poisson(variance / 2).

dist-mab's Definition 5 writes Sk(mu, sigma^2) with pmf e^{-sigma^2} I_{x - mu}(sigma^2): location mu
and variance sigma^2. It is closed under sums (locations and variances add), and its cumulant
function is lam loc + variance (cosh lam - 1), finite for every lam.

Its law reduced mod m (:meth:`Skellam.wrapped_logpmf`) is computed in log space, so residues whose
probability lies far below the smallest double (dist-mab's Theorem 2 at n = 1024: m = 37,687 against
a standard deviation of 320, residues near e^-1740) keep full relative precision. The pmf is
e^{-sigma^2} I_k(sigma^2) (I the modified Bessel function); scipy's exponentially scaled ``ive`` gives
it directly near the centre (above e^-100), and beyond that the log-pmf continues by the ratios
I_{k+1}/I_k, from the backward recurrence I_{k-1} - I_{k+1} = (2k/x) I_k (stable downwards: the
relative error of a ratio is damped by the product of two ratios < 1 at every step), run in
extended precision with a stated bound on the error of every entry.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from dpaudit.core.logspace import log_sum_exp
from dpaudit.core.validation import integer, positive

from ._lattice import TABLE_LOG_ERROR, ScipyIntegerLaw

#: ``ive`` is used while the pmf is above e^-100: its relative error grows towards the bottom of the
#: normal doubles (about 1.6e-12 at e^-697 for sigma^2 = 102400), and is ~1e-14 above e^-100
_LOG_ANCHOR = -100.0
#: neglected wraps (and the recurrence's starting error) are kept below e^-64 relative
_LOG_NEGLIGIBLE_RELATIVE = -64.0
_U_LONG = float(np.finfo(np.longdouble).eps) / 2  # unit roundoff of the recurrence's arithmetic
_U = 2.0**-53


def _ratio_upper(k: float, x: float) -> float:
    """Amos (1974): I_{k+1}(x) / I_k(x) < x / (k + sqrt(k^2 + x^2)) for k >= 0, x > 0."""
    return x / (k + math.sqrt(k * k + x * x))


def _bessel_ratios(x: float, first: int, last: int) -> tuple[np.ndarray, float]:
    """r_k = I_{k+1}(x) / I_k(x) for k = first .. last - 1 (extended precision), and a bound on
    their relative error. The backward recurrence r_{k-1} = 1 / (2k/x + r_k) starts above ``last``
    from Amos's lower bound (relative error < 1); each step multiplies the inherited relative error
    by r_{k-1} r_k <= rho^2, so enough extra steps make the start negligible, and a step's own
    rounding (3 u) accumulates at most to 3 u / (1 - rho^2), rho the largest ratio in the range."""
    rho_top = _ratio_upper(last - 1, x)
    extra = math.ceil(-_LOG_NEGLIGIBLE_RELATIVE / -math.log(rho_top**2)) + 1
    top = last - 1 + extra
    xl = np.longdouble(x)
    r = xl / (top + 1 + np.sqrt(np.longdouble(top + 1) ** 2 + xl * xl))  # Amos's lower bound
    ratios = np.empty(last - first, dtype=np.longdouble)
    for k in range(top, first, -1):  # a sequential recurrence over the table, not over samples
        r = 1 / (2 * k / xl + r)
        if k - 1 < last:
            ratios[k - 1 - first] = r
    rho = _ratio_upper(first, x)
    return ratios, 3 * _U_LONG / (1 - rho**2) + math.exp(_LOG_NEGLIGIBLE_RELATIVE)


@functools.lru_cache(maxsize=16)
def _half_log_table(variance: float, reach: int) -> tuple[np.ndarray, float]:
    """log P[Sk(0, variance) = k] for k = 0 .. reach (the law is symmetric), and a bound on the
    absolute error of every entry."""
    k = np.arange(reach + 1)
    with np.errstate(divide="ignore", under="ignore"):
        body = np.log(special.ive(k, variance))  # e^{-x} I_k(x) is the pmf itself
    anchor = int(np.flatnonzero(body >= _LOG_ANCHOR)[-1])  # a prefix: the pmf decreases in |k|
    if anchor == reach:
        return body, TABLE_LOG_ERROR
    ratios, rel = _bessel_ratios(variance, anchor, reach)
    logs = np.log(ratios)
    steps, total = logs.size, float(-logs.sum())
    tail = np.longdouble(body[anchor]) + np.cumsum(logs)
    table = np.concatenate([body[: anchor + 1], tail.astype(float)])
    # anchor; each log ratio (its relative error, then the log's rounding); the running sum
    # ((N - 1) u times the sum of |terms|); the rounding to double
    error = (TABLE_LOG_ERROR + steps * 2 * rel + _U_LONG * total + steps * _U_LONG * total
             + _U * float(np.abs(table).max()))
    return table, error


def _log_tail_bound(variance: float, k: float) -> float:
    """log of a bound on P[|Sk(0, variance)| >= k], k > 0: twice the Chernoff bound
    exp(sigma^2 (cosh lam - 1) - lam k) at its minimiser lam = asinh(k / sigma^2)."""
    lam = math.asinh(k / variance)
    return math.log(2) + variance * (math.cosh(lam) - 1) - lam * k


@functools.lru_cache(maxsize=64)
def _wrap_count(variance: float, m: int) -> int:
    """How many periods J each side the law mod m sums: the terms |k - loc| > (J + 1) m left out
    weigh less than e^-64 times the smallest residue's probability, which is at least the pmf at
    floor(m/2) (every residue has a representative that close to loc)."""
    wraps = 0
    while True:
        table, _ = _half_log_table(variance, (wraps + 1) * m)
        if _log_tail_bound(variance, (wraps + 1) * m) - table[m // 2] <= _LOG_NEGLIGIBLE_RELATIVE:
            return wraps
        wraps += 1


@dataclass(frozen=True)
class Skellam(ScipyIntegerLaw):
    """Sk(loc, variance) as in dist-mab's Definition 5 (``variance`` is its sigma^2)."""

    variance: float = 1.0
    loc: int = field(default=0, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "variance", float(positive("Skellam", "variance", self.variance)))
        object.__setattr__(self, "loc", integer("Skellam", "loc", self.loc))

    @property
    def _scipy(self):
        mu = self.variance / 2
        return stats.skellam(mu, mu, loc=self.loc)

    @property
    def mean(self) -> float:
        return float(self.loc)

    @property
    def var(self) -> float:
        return self.variance

    support = (-math.inf, math.inf)
    cgf_domain = (-math.inf, math.inf)

    def cgf(self, lam) -> np.ndarray:
        lam = np.asarray(lam, dtype=float)
        with np.errstate(over="ignore"):
            return lam * self.loc + self.variance * (np.cosh(lam) - 1)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        mu = self.variance / 2
        return self.loc + rng.poisson(mu, size) - rng.poisson(mu, size)

    def wrapped_logpmf(self, r, m: int) -> np.ndarray:
        """log P[X mod m = r] for r in {0, ..., m - 1}, in log space (no term underflows, however far
        out a residue is): log-sum-exp of the log-pmf over r + j m, |j| <= J + 1 (see :func:`_wrap_count`).
        :meth:`wrapped_log_error` bounds the absolute error of every value."""
        m = int(m)
        if m < 2:
            raise ValueError(f"Skellam.wrapped_logpmf: modulus m must be >= 2, got {m}")
        wraps = _wrap_count(self.variance, m)
        table, _ = _half_log_table(self.variance, (wraps + 1) * m)
        d = np.mod(np.asarray(r, dtype=np.int64) - self.loc, m)
        ks = d[..., None] + m * np.arange(-wraps - 1, wraps + 1)  # |k| <= (J + 1) m
        return log_sum_exp(table[np.abs(ks)], axis=-1)

    def log_table(self, lo: int, hi: int) -> tuple[np.ndarray, float]:
        """log P[X = k] for the integers k = lo .. hi, in log space however far out (no value
        underflows), and a bound on the absolute error of every entry."""
        if hi < lo:
            raise ValueError(f"Skellam.log_table: need lo <= hi, got lo={lo}, hi={hi}")
        k = np.arange(int(lo), int(hi) + 1) - self.loc
        table, error = _half_log_table(self.variance, int(np.abs(k).max()))
        return table[np.abs(k)], error

    def wrapped_log_error(self, m: int) -> float:
        """A bound on the absolute error of :meth:`wrapped_logpmf` (table error, the wraps left
        out, the log-sum-exp's rounding)."""
        m = int(m)
        wraps = _wrap_count(self.variance, m)
        table, error = _half_log_table(self.variance, (wraps + 1) * m)
        return error + math.exp(_LOG_NEGLIGIBLE_RELATIVE) + 8 * _U * (1 + float(np.abs(table).max()))

    def __add__(self, other: Skellam) -> Skellam:
        """Sk(mu_1, s_1^2) + Sk(mu_2, s_2^2) = Sk(mu_1 + mu_2, s_1^2 + s_2^2) for independent terms."""
        if not isinstance(other, Skellam):
            return NotImplemented
        return Skellam(self.variance + other.variance, loc=self.loc + other.loc)


__all__ = ["Skellam"]
