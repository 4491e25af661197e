"""What every integer-valued noise shares: tables of its pmf, cdf and sf, and finite laws for sums.

An :class:`IntegerLaw` defines ``logpmf``, ``cgf`` (with ``cgf_domain``), ``mean``, ``var``,
``support`` and ``sample``; from the cumulant function it finds the window of integers outside which
the pmf is below the smallest positive double (a Chernoff bound), and its ``cdf``/``sf`` default to
running sums of the pmf over that window (``sf`` summed from the right, so far right tails keep
their relative precision). Laws with closed-form tails override them.

:class:`FiniteIntegerLaw` is a pmf table on consecutive integers; :func:`convolve` and
:func:`iid_sum` build the exact law of sums of independent noises from such tables (direct
convolution: every term is non-negative, so each entry keeps a small *relative* error, which an
FFT would not give the far tails).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution

#: log of a probability too small to be a positive double: the window's edges
LOG_NEGLIGIBLE = -750.0
#: the largest pmf table built (entries); a wider law raises instead of exhausting memory
MAX_TABLE = 50_000_000
#: largest number of multiply-adds a direct convolution may take
MAX_CONVOLUTION = 4e9
_U = 2.0**-53
#: assumed accuracy of closed-form log-pmfs (scipy special functions are accurate to ~1e-14)
TABLE_LOG_ERROR = 1e-12


def _chernoff_edge(cgf, domain: tuple[float, float], sd: float, side: int) -> float:
    """An integer beyond which (side=+1: above; -1: below) P[X = k] < e^LOG_NEGLIGIBLE: the Chernoff
    bound P[side X >= side k] <= exp(K(side l) - l side k), minimised over a grid of l > 0."""
    limit = domain[1] if side > 0 else -domain[0]
    top = min(limit * (1 - 1e-9), 50.0 / max(sd, 1e-12)) if math.isfinite(limit) else 50.0 / max(sd, 1e-12)
    lams = np.geomspace(top * 1e-6, top, 400)
    with np.errstate(over="ignore", invalid="ignore"):
        k = (np.asarray(cgf(side * lams), dtype=float) - LOG_NEGLIGIBLE) / lams
    k = k[np.isfinite(k)]
    if k.size == 0:
        raise ValueError("cannot bound the tails of this law from its cumulant function")
    return side * float(k.min())


def _running_sums(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P[X <= k] summed from the left and P[X > k] summed from the right, over a pmf table."""
    left = np.cumsum(p)
    right = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])
    return np.minimum(left, 1.0), np.minimum(right, 1.0)


class IntegerLaw:
    """Base of the integer-valued noise laws (see the module docstring)."""

    lattice = True

    def pmf(self, k: Any) -> np.ndarray:
        return np.exp(self.logpmf(k))

    def window(self) -> tuple[int, int]:
        """Integers [lo, hi] outside which every pmf value is below e^-750 (not a positive double)."""
        lo, hi = self.support
        sd = math.sqrt(self.var) if self.var > 0 else 1.0
        if not math.isfinite(hi):
            hi = _chernoff_edge(self.cgf, self.cgf_domain, sd, +1)
        if not math.isfinite(lo):
            lo = _chernoff_edge(self.cgf, self.cgf_domain, sd, -1)
        return math.floor(lo), math.ceil(hi)

    @cached_property
    def _table(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        lo, hi = self.window()
        if hi - lo + 1 > MAX_TABLE:
            raise ValueError(f"{self!r}: its pmf table would need {hi - lo + 1:,} entries (more than {MAX_TABLE:,})")
        p = self.pmf(np.arange(lo, hi + 1))
        return (lo, p, *_running_sums(p))

    def cdf(self, k: Any) -> np.ndarray:
        """P[X <= k] for real k."""
        lo, p, left, right = self._table
        i = np.floor(np.asarray(k, dtype=float)) - lo
        j = np.clip(i, 0, p.size - 1).astype(np.int64)
        # below the median the running sum from the left is accurate, above it 1 - sf is
        value = np.where(left[j] <= 0.5, left[j], 1.0 - right[j])
        return np.where(i < 0, 0.0, np.where(i >= p.size - 1, 1.0, value))

    def sf(self, k: Any) -> np.ndarray:
        """P[X > k] for real k."""
        lo, p, left, right = self._table
        i = np.floor(np.asarray(k, dtype=float)) - lo
        j = np.clip(i, 0, p.size - 1).astype(np.int64)
        value = np.where(right[j] <= 0.5, right[j], 1.0 - left[j])
        return np.where(i < 0, 1.0, np.where(i >= p.size - 1, 0.0, value))

    def table(self) -> FiniteIntegerLaw:
        """The pmf over :meth:`window` as a finite law (the mass outside is below e^-750 per point)."""
        lo, p, _, _ = self._table
        return FiniteIntegerLaw(lo, p, log_error=TABLE_LOG_ERROR)

    def finite_distribution(self) -> FiniteDistribution:
        """The law as a :class:`~dpaudit.core.distributions.FiniteDistribution`, for the exact privacy auditor."""
        return self.table().finite_distribution()


class ScipyIntegerLaw(IntegerLaw):
    """An integer law whose pmf and tails come from a scipy.stats frozen distribution ``_scipy``
    (its ``logsf`` keeps far tails precise, which running sums of a table would not)."""

    @property
    def _scipy(self):
        raise NotImplementedError

    def logpmf(self, k: Any) -> np.ndarray:
        k = np.asarray(k, dtype=float)
        return np.where(k == np.round(k), self._scipy.logpmf(np.round(k)), -np.inf)

    def cdf(self, k: Any) -> np.ndarray:
        return self._scipy.cdf(np.floor(np.asarray(k, dtype=float)))

    def sf(self, k: Any) -> np.ndarray:
        return self._scipy.sf(np.floor(np.asarray(k, dtype=float)))


class FiniteIntegerLaw(IntegerLaw):
    """A law on the integers ``offset, offset + 1, ..., offset + len(probs) - 1``.

    ``tail_mass`` bounds the probability outside the listed integers (dropped underflow or a
    truncation); ``log_error`` bounds the absolute error of the log of every listed probability.
    """

    def __init__(self, offset: int, probs: Any, tail_mass: float = 0.0, log_error: float = TABLE_LOG_ERROR,
                 name: str | None = None):
        probs = np.asarray(probs, dtype=float)
        if probs.ndim != 1 or probs.size == 0 or not np.isfinite(probs).all() or (probs < 0).any():
            raise ValueError("FiniteIntegerLaw: probs must be a non-empty 1-d array of non-negative numbers")
        if not float(offset).is_integer():
            raise ValueError(f"FiniteIntegerLaw: offset must be an integer, got {offset!r}")
        total = float(probs.sum())
        if not 1 - tail_mass - 1e-6 <= total <= 1 + 1e-6:
            raise ValueError(f"FiniteIntegerLaw: probabilities sum to {total:.12g}, not 1 (tail_mass={tail_mass:g})")
        nz = np.flatnonzero(probs)
        self.offset = int(offset) + int(nz[0])
        self.probs = probs[nz[0]: nz[-1] + 1]
        self.tail_mass = float(tail_mass)
        self.log_error = float(log_error)
        self.name = name

    def __repr__(self) -> str:
        return self.name or f"FiniteIntegerLaw(support=[{self.offset}, {self.offset + self.probs.size - 1}])"

    @property
    def support(self) -> tuple[float, float]:
        return float(self.offset), float(self.offset + self.probs.size - 1)

    @property
    def values(self) -> np.ndarray:
        return np.arange(self.offset, self.offset + self.probs.size)

    def window(self) -> tuple[int, int]:
        return self.offset, self.offset + self.probs.size - 1

    @cached_property
    def _table(self):
        return (self.offset, self.probs, *_running_sums(self.probs))

    def logpmf(self, k: Any) -> np.ndarray:
        k = np.asarray(k, dtype=float)
        i = k - self.offset
        inside = (i >= 0) & (i < self.probs.size) & (k == np.round(k))
        with np.errstate(divide="ignore"):
            logp = np.log(self.probs[np.clip(i, 0, self.probs.size - 1).astype(np.int64)])
        return np.where(inside, logp, -np.inf)

    @cached_property
    def mean(self) -> float:
        return float(self.values @ self.probs / self.probs.sum())

    @cached_property
    def summed_mean(self) -> float:
        """The mean with exactly rounded sums (math.fsum): the same bits whatever the BLAS threads sum in, where
        ``mean``'s dot product may differ in its last bits between runs (records that report such a mean's rounding
        need the same bits every run)."""
        return math.fsum((self.values * self.probs).tolist()) / math.fsum(self.probs.tolist())

    @cached_property
    def var(self) -> float:
        d = self.values - self.mean
        return float((d * d) @ self.probs / self.probs.sum())

    cgf_domain = (-math.inf, math.inf)

    def cgf(self, lam: Any) -> np.ndarray:
        """log E exp(lam X) over the listed integers (exact when tail_mass is 0)."""
        lam = np.atleast_1d(np.asarray(lam, dtype=float))
        with np.errstate(divide="ignore"):
            lp = np.log(self.probs)
        k = self.values.astype(float) - self.offset  # shifted so that lam * k stays small
        out = np.empty(lam.shape)
        for start in range(0, lam.size, 64):  # blocks of orders keep the work array in cache
            rows = lam.ravel()[start: start + 64]
            terms = lp[None, :] + rows[:, None] * k[None, :]
            top = terms.max(axis=1)
            np.exp(terms - top[:, None], out=terms)
            out.ravel()[start: start + 64] = top + np.log(terms.sum(axis=1)) + rows * self.offset
        return out

    def sample(self, size: Any, rng: np.random.Generator) -> np.ndarray:
        _, _, left, _ = self._table
        u = rng.random(size) * left[-1]
        return self.offset + np.minimum(np.searchsorted(left, u, side="right"), self.probs.size - 1)

    def table(self) -> FiniteIntegerLaw:
        return self

    def finite_distribution(self) -> FiniteDistribution:
        with np.errstate(divide="ignore"):
            lp = np.log(self.probs)
        return FiniteDistribution(self.values, lp, log_error=self.log_error, tail_mass=self.tail_mass)


class IndependentSum(IntegerLaw):
    """X_1 + ... + X_k for independent integer laws, without building the table until needed.

    The cumulant function, mean and variance add exactly, so MGF claims about a sum with a huge
    support (a binomial with 10^9 trials plus rounding noise) are audited from the terms'
    closed forms; ``cdf``/``sf``/``logpmf`` convolve the terms' tables on first use.
    """

    def __init__(self, *laws: Any, name: str | None = None):
        if not laws:
            raise ValueError("IndependentSum: give at least one law")
        self.laws = laws
        self.name = name or " + ".join(map(repr, laws))

    def __repr__(self) -> str:
        return self.name

    @property
    def mean(self) -> float:
        return float(sum(law.mean for law in self.laws))

    @property
    def var(self) -> float:
        return float(sum(law.var for law in self.laws))

    @property
    def support(self) -> tuple[float, float]:
        return (float(sum(law.support[0] for law in self.laws)), float(sum(law.support[1] for law in self.laws)))

    @property
    def cgf_domain(self) -> tuple[float, float]:
        return (max(law.cgf_domain[0] for law in self.laws), min(law.cgf_domain[1] for law in self.laws))

    def cgf(self, lam: Any) -> np.ndarray:
        return sum(np.asarray(law.cgf(lam), dtype=float) for law in self.laws)

    def sample(self, size: Any, rng: np.random.Generator) -> np.ndarray:
        return sum(law.sample(size, rng) for law in self.laws)

    @cached_property
    def _convolved(self) -> FiniteIntegerLaw:
        return convolve(*self.laws, name=self.name)

    def table(self) -> FiniteIntegerLaw:
        return self._convolved

    def logpmf(self, k: Any) -> np.ndarray:
        return self._convolved.logpmf(k)

    def cdf(self, k: Any) -> np.ndarray:
        return self._convolved.cdf(k)

    def sf(self, k: Any) -> np.ndarray:
        return self._convolved.sf(k)


#: entries below this (e^-750) underflow anyway; a table's ends below it are dropped into its tail mass
NEGLIGIBLE = math.exp(LOG_NEGLIGIBLE)

#: a table as the convolutions carry it: (offset, probabilities, tail mass, log error), the fields of a
#: :class:`FiniteIntegerLaw` without the law's checks at every step of a long sum
Table = tuple[int, np.ndarray, float, float]


def _trim(offset: int, p: np.ndarray, tail_mass: float) -> tuple[int, np.ndarray, float]:
    """Drop end entries below e^-750 (they underflow anyway) into tail_mass."""
    keep = np.flatnonzero(p > NEGLIGIBLE)
    dropped = float(p[: keep[0]].sum() + p[keep[-1] + 1:].sum())
    return offset + int(keep[0]), p[keep[0]: keep[-1] + 1], tail_mass + dropped


def _named(law: FiniteIntegerLaw, name: str) -> FiniteIntegerLaw:
    """The same table under a new name (a new object: the input may be the caller's own law)."""
    return FiniteIntegerLaw(law.offset, law.probs, law.tail_mass, law.log_error, name=name)


def convolve(*laws: Any, name: str | None = None) -> FiniteIntegerLaw:
    """The exact law of the sum of independent integer-valued noises (direct convolution of tables).

    Each entry of the result is a sum of non-negative products, so its relative error grows by at
    most (number of terms) x 2^-53 per convolution; that is added to ``log_error``.
    """
    if not laws:
        raise ValueError("convolve: give at least one law")
    tables = [law.table() for law in laws]
    offset, p, tail_mass, log_error = convolve_tables([(t.offset, t.probs, t.tail_mass, t.log_error) for t in tables])
    return FiniteIntegerLaw(offset, p, tail_mass, log_error, name=name or " + ".join(map(repr, laws)))


def convolve_tables(tables: Sequence[Table]) -> Table:
    """:func:`convolve` on tables (:data:`Table`), in the same arithmetic: the sum of many small laws (a sum of
    roundings, each a two-point law) without making a law object at every step."""
    offset, p, tail_mass, log_error = tables[0]
    for o, q, tail, error in tables[1:]:
        if p.size * q.size > MAX_CONVOLUTION:
            raise ValueError(f"convolve: tables of {p.size:,} and {q.size:,} entries are too large "
                             "to convolve directly; use the law's closed form for sums if it has one")
        log_error = log_error + error + 1.01 * min(p.size, q.size) * _U
        offset, p, tail_mass = _trim(offset + o, np.convolve(p, q), tail_mass + tail)
    return offset, p, tail_mass, log_error


def repeated_sum(x: Any, n: int, add: Any) -> Any:
    """x + x + ... + x (n >= 1 terms) for an associative ``add``, by repeated doubling: about
    2 log2(n) additions instead of n - 1."""
    result, power = None, x
    while n:
        if n & 1:
            result = power if result is None else add(result, power)
        n >>= 1
        if n:
            power = add(power, power)
    return result


def iid_sum(law: Any, n: int, name: str | None = None) -> FiniteIntegerLaw:
    """The law of X_1 + ... + X_n for i.i.d. X_i with ``law``, by convolution and repeated squaring."""
    if isinstance(n, bool) or not float(n).is_integer() or n < 1:
        raise ValueError(f"iid_sum: n must be an integer >= 1, got {n!r}")
    return _named(repeated_sum(law.table(), int(n), convolve), name or f"sum of {int(n)} i.i.d. {law!r}")
