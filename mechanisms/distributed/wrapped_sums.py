"""The law mod m of a sum of n i.i.d. discrete Gaussian shares, in log space, with a rigorous error bound.

dist-mab's Theorem 4 protocol reveals y_hat = (sum_i x_hat_i + sum_i eta_i) mod m with n shares
eta_i ~ N_Z(0, sigma^2). The n-fold sum has no closed form, and at the paper's n = 1024 the residues far from
the noise's mean have probability near e^(-(m/2)^2 / (2 n sigma^2)), about e^-34000 at s = 1: no table of
doubles holds them, so the exact law of y_hat (and the privacy loss at every residue) needs log space all the way.

:func:`wrapped_discrete_gaussian_sum` builds log P[sum_i eta_i = r mod m] for every residue r:

- each share's pmf is taken on [-K, K] (closed form, :meth:`DiscreteGaussian.logpmf`), K chosen below;
- n shares are summed by repeated doubling (:func:`~..noise._lattice.repeated_sum`): a linear log-space
  convolution while the table is narrower than m, then folded onto Z_m (residues of equal class log-sum-exp'ed)
  and convolved circularly (:func:`log_convolve_mod`), so no table is ever wider than m;
- truncation error: the true pmf exceeds the computed one at every residue by at most P(some |eta_i| > K)
  <= n P(|eta| > K) <= 2 n e^(-(K+1)^2/(2 sigma^2)) / (Z (1 - e^(-(K+1)/sigma^2))), Z the normaliser of N_Z
  (beyond K + 1 the terms fall at least geometrically). K is chosen so that this absolute bound is below
  e^-60 times the smallest computed residue probability (checked after the fact, and K widened if not), so the
  relative error it adds is below e^-60 at every residue;
- floating-point error: every log-sum-exp of non-negative terms adds at most (log2(terms) + 4) roundings
  relative to its largest term (as in :func:`log_iid_sum`), the share table's own error is the
  project's table error plus the roundings of its closed form, and the errors of the two halves add.

:func:`log_convolve` and :func:`log_iid_sum` (the linear log-space convolution and repeated sum, which the
distributed sums' other log-space laws use too) live here, so the protocols import this module and not the other
way round.

The result is a :class:`WrappedLogTable`, a law on Z_m with ``wrapped_logpmf`` and ``wrapped_log_error``, which
:func:`~.distributed_sum.wrapped_mixture` mixes over the rounded sum as it does the closed-form laws mod m.
Cost: about (log2 n - log2(m / (2K + 1))) circular convolutions of m^2 terms each (m = 16,731 at n = 1024,
s = 1: a few seconds each on one core).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpaudit.core.logspace import log_sum_exp
from dpaudit.core.validation import integer, positive

from ..noise import DiscreteGaussian
from ..noise._lattice import TABLE_LOG_ERROR, repeated_sum

_U = 2.0**-53
#: the truncation's bound must lie this many nats below the smallest residue's computed log probability
TRUNCATION_MARGIN = 60.0
#: rows of the circular convolution's (r, i) array built at once (8 bytes each per column)
_BLOCK_TERMS = 1 << 24
#: the largest (k, i) array a log-space convolution builds (8 bytes each)
MAX_LOG_CONVOLUTION = 50_000_000


def log_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log of the convolution of two pmf tables given as logs: out[k] = logsumexp_i (a[i] + b[k - i]).
    Every term is non-negative and summed in log space, so far entries keep their relative precision
    (a table of probabilities would lose them below the smallest double)."""
    terms = a.size * (a.size + b.size - 1)
    if terms > MAX_LOG_CONVOLUTION:
        raise ValueError(f"log_convolve: tables of {a.size} and {b.size} entries need {terms:,} terms in log space "
                         f"(more than {MAX_LOG_CONVOLUTION:,})")
    padded = np.concatenate([np.full(a.size - 1, -np.inf), b, np.full(a.size - 1, -np.inf)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, a.size)  # windows[k][a.size - 1 - i] = b[k - i]
    return log_sum_exp(windows + a[::-1], axis=1)


@dataclass(frozen=True)
class WrappedLogTable:
    """A law on Z_m given by log P[X mod m = r], r = 0..m-1, and a bound ``log_error`` on the absolute error of
    every value (the interface :func:`~.distributed_sum.wrapped_mixture` reads)."""

    log_probs: np.ndarray
    log_error: float
    name: str = "law mod m"
    #: where each share's table was cut (K), when the table is a sum of truncated shares
    reach: int | None = None

    @property
    def m(self) -> int:
        return int(self.log_probs.size)

    def wrapped_logpmf(self, r, m: int) -> np.ndarray:
        if int(m) != self.m:
            raise ValueError(f"{self.name}: the table is a law mod {self.m}, not mod {m}")
        return self.log_probs[np.mod(np.asarray(r, dtype=np.int64), self.m)]

    def wrapped_log_error(self, m: int) -> float:
        return self.log_error


def _rounding(terms: int, out: np.ndarray) -> float:
    """The log-sum-exp's error bound: (log2(terms) + 4) roundings relative to the largest term."""
    finite = out[np.isfinite(out)]
    return (math.log2(max(terms, 1)) + 4) * _U * (1 + (float(np.abs(finite).max()) if finite.size else 0.0))


def log_iid_sum(offset: int, log_probs: np.ndarray, log_error: float, n: int) -> tuple[int, np.ndarray, float]:
    """(offset, log pmf table, error bound) of the sum of n i.i.d. copies of the law given by a log
    pmf table, by repeated doubling in log space. A log-sum-exp of non-negative terms adds at most
    (log2(terms) + 4) roundings relative to its largest term, the inputs' errors add."""
    return repeated_sum((offset, log_probs, log_error), n, _log_add)


def _log_add(x: tuple[int, np.ndarray, float], y: tuple[int, np.ndarray, float]) -> tuple[int, np.ndarray, float]:
    out = log_convolve(x[1], y[1])
    return x[0] + y[0], out, x[2] + y[2] + _rounding(min(x[1].size, y[1].size), out)


def log_fold(offset: int, logs: np.ndarray, m: int) -> np.ndarray:
    """A log pmf table on the integers offset, offset + 1, ... folded onto Z_m: out[r] = logsumexp of the
    entries whose value is r mod m."""
    start = offset % m
    rows = -(-(start + logs.size) // m)
    padded = np.full(rows * m, -np.inf)
    padded[start: start + logs.size] = logs
    return log_sum_exp(padded.reshape(rows, m), axis=0)


def _fold(offset: int, logs: np.ndarray, m: int) -> tuple[np.ndarray, float]:
    """:func:`log_fold` and the roundings it adds (a residue class meets at most ceil(size / m) + 1 entries)."""
    rows = -(-logs.size // m) + 1
    folded = log_fold(offset, logs, m)
    return folded, _rounding(rows, folded)


def log_convolve_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Circular convolution on Z_m of two log pmf tables of length m: out[r] = logsumexp_i (a[i] + b[(r - i) mod m]),
    in blocks of rows so the (r, i) array stays small."""
    m = a.size
    if b.size != m:
        raise ValueError(f"log_convolve_mod: tables of {a.size} and {b.size} entries (both must be the modulus)")
    doubled = np.concatenate([b, b])
    windows = np.lib.stride_tricks.sliding_window_view(doubled[1:], m)  # windows[r][m - 1 - i] = b[(r - i) mod m]
    reversed_a = a[::-1]
    out = np.empty(m)
    rows = max(1, _BLOCK_TERMS // m)
    for start in range(0, m, rows):
        stop = min(m, start + rows)
        out[start:stop] = log_sum_exp(windows[start:stop] + reversed_a, axis=1)
    return out


def _add(m: int):
    """Adds two (offset, log table, error, folded) sums: linear log-space convolution while the result is narrower
    than m, folded onto Z_m once it is not, circular from then on."""

    def add(x, y):
        (ox, lx, ex, fx), (oy, ly, ey, fy) = x, y
        if not fx and not fy and lx.size + ly.size - 1 < m:
            return (*_log_add(x[:3], y[:3]), False)
        error = ex + ey
        if not fx:
            lx, rounding = _fold(ox, lx, m)
            error += rounding
        if not fy:
            ly, rounding = _fold(oy, ly, m)
            error += rounding
        out = log_convolve_mod(lx, ly)
        return 0, out, error + _rounding(m, out), True

    return add


def truncation_log_bound(sigma: float, n: int, K: int) -> float:
    """log of a bound on P(some |eta_i| > K) for n i.i.d. N_Z(0, sigma^2) shares (module docstring)."""
    first = (K + 1) ** 2 / (2 * sigma**2)
    # the pmf is e^(-j^2 / 2 sigma^2) / Z; Z as computed, less a relative 1e-12 for its roundings
    log_norm = DiscreteGaussian(sigma)._log_norm * (1 - 1e-12)
    return math.log(2 * n) - first - math.log(-math.expm1(-(K + 1) / sigma**2)) - log_norm


def wrapped_discrete_gaussian_sum(sigma: float, n: int, m: int, reach: int | None = None) -> WrappedLogTable:
    """The law of (eta_1 + ... + eta_n) mod m, eta_i ~ N_Z(0, sigma^2) i.i.d., in log space (module docstring).

    ``reach`` fixes the shares' truncation K instead of choosing it; the error bound then states what that K
    costs, however large (for tests and for trading accuracy against time)."""
    owner = "wrapped_discrete_gaussian_sum"
    sigma = positive(owner, "sigma", sigma)
    n, m = integer(owner, "n", n, 1), integer(owner, "m", m, 2)
    share = DiscreteGaussian(sigma)
    # the farthest residue lies about m/2 from the mean: start K where the truncation is that far below it
    deepest = (m / 2) ** 2 / (2 * n * sigma**2) + 0.5 * math.log(2 * math.pi * n * sigma**2 + 1)
    K = math.ceil(sigma * math.sqrt(2 * (deepest + math.log(2 * n) + 2 * TRUNCATION_MARGIN)))
    if reach is not None:
        K = integer(owner, "reach", reach, 0)
    while True:
        values = np.arange(-K, K + 1)
        table = share.logpmf(values)
        share_error = TABLE_LOG_ERROR + 4 * _U * (1 + K**2 / sigma**2)
        offset, logs, error, folded = repeated_sum((-K, table, share_error, False), n, _add(m))
        if not folded:
            logs, rounding = _fold(offset, logs, m)
            error += rounding
        cut = truncation_log_bound(sigma, n, K)
        if reach is not None or cut <= float(logs.min()) - TRUNCATION_MARGIN:
            break
        K *= 2  # not reached with the starting K (the deepest residue is estimated with room); kept for safety
    # the computed values are below the truth by at most exp(cut) each: a relative error below e^(cut - min)
    error += math.exp(cut - float(logs.min()))
    return WrappedLogTable(logs, error, name=f"sum of {n} N_Z(0, {sigma:g}^2) mod {m}", reach=K)


__all__ = ["MAX_LOG_CONVOLUTION", "WrappedLogTable", "log_convolve", "log_convolve_mod", "log_fold", "log_iid_sum",
           "truncation_log_bound", "wrapped_discrete_gaussian_sum"]
