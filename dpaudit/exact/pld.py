"""delta(eps) of independent finite coordinates through the privacy-loss distribution (PLD).

Under P the total loss is the sum of the coordinates' losses, so its distribution is the
convolution of theirs, and delta(eps) = E_P[(1 - e^(eps - L))_+] (Meiser & Mohammadi 2018;
Koskela, Jalko & Honkela 2020). Losses are put on a grid of width h, rounded *up* for an upper bound
on delta (the integrand is increasing in L) and *down* for a lower bound; outcomes with q = 0 have
infinite loss and count fully. Probabilities enter at their upper (lower) error bounds for the
upper (lower) bound. The convolution is by FFT; :func:`_convolution_error` bounds how far, summed over
the cells, the float result lies from the exact convolution of its inputs, and the bound carries every
earlier stage's error forward (convolving with a pmf of mass m scales a summed error by at most m), so
the last pmf is known to within a stated total that both bounds allow for.

Equal-variance Gaussian coordinates may join the finite ones. Their joint loss is Gaussian with
parameter mu^2 = sum_i mu_i^2, and conditioning on the finite coordinates' loss l gives
delta(eps) = E_P[delta_G(eps - l)], with delta_G Balle and Wang's closed form, now evaluated at
every grid cell. delta_G(e) grows as e falls and as mu grows, so the cells' upward (downward)
rounding and mu rounded up (down) keep the two bounds on their sides; each cell's float value is
widened by :data:`GAUSSIAN_ULPS` ulps scaled by the size of its exponents (checked against 256-bit
mpmath in tests/test_privacy_loss.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import fft as sp_fft
from scipy.signal import fftconvolve
from scipy.special import log_ndtr

from ..core.distributions import FiniteDistribution
from .enclosure import Enclosure
from .finite import U, align, positive_sum

GRID_POINTS = 1 << 16  # grid cells over the range of the total loss
GAUSSIAN_ULPS = 64  # allowed error of one float Balle-Wang term, in ulps per unit of its exponents' size
FFT_ULPS_PER_LEVEL = 16  # relative 2-norm error of one float FFT, in ulps per level of log2 of its length


def _convolution_error(a: np.ndarray, b: np.ndarray) -> float:
    """A bound on sum_k |fftconvolve(a, b)_k - (a * b)_k| for non-negative a and b.

    Higham (Accuracy and Stability of Numerical Algorithms, 2nd ed., Theorem 24.2) bounds a float radix-2
    FFT's error in the 2-norm by eta = log2(N) (u + gamma_4 sqrt 2) ~ 6.7 u log2(N) of the exact transform's
    norm (u = 2^-53); scipy's FFT mixes radices up to 11, and we allow :data:`FFT_ULPS_PER_LEVEL` ulps per
    level, more than twice that. Transforming a and b, multiplying (a complex product: under 3 u) and
    transforming back (the 1/N scaling: one more u), with |FFT(a)| <= sum a at every frequency, leaves the
    result within (3 eta + 4 u) (|a|_2 sum b + sum a |b|_2) of the exact convolution in the 2-norm, to first
    order (the 1% spare covers the rest). Summed over the n cells kept, that is at most sqrt(n) times as
    much: the FFT spreads its rounding over every cell, so a bound per cell would not do.
    """
    u = 2.0**-53
    n = len(a) + len(b) - 1
    eta = FFT_ULPS_PER_LEVEL * u * math.log2(max(sp_fft.next_fast_len(n, real=True), 2))
    spread = float(np.linalg.norm(a)) * float(b.sum()) + float(a.sum()) * float(np.linalg.norm(b))
    return 1.01 * math.sqrt(n) * (3 * eta + 4 * u) * spread


def _coordinate(p: FiniteDistribution, q: FiniteDistribution, h: float,
                upward: bool) -> tuple[int, np.ndarray, float, int]:
    """(offset, pmf on the grid, infinite-loss mass, number of finite-loss outcomes) of one coordinate's loss
    under P."""
    a = align(p, q)
    fp, fq = np.isfinite(a.logp), np.isfinite(a.logq)
    sign = 1 if upward else -1
    with np.errstate(over="ignore"):
        mass = np.exp(a.logp + sign * a.error) * (1 + sign * U)
    infinite = float(mass[fp & ~fq].sum()) * (1 + sign * U) + (p.tail_mass if upward else 0.0)
    both = fp & fq
    loss = a.logp[both] - a.logq[both]
    slack = a.error + U * np.abs(loss)  # the float loss is within this of the true one
    cells = np.ceil((loss + slack) / h) if upward else np.floor((loss - slack) / h)
    cells = cells.astype(np.int64)
    offset = int(cells.min()) if len(cells) else 0
    pmf = np.bincount(cells - offset, weights=mass[both]) if len(cells) else np.zeros(1)
    return offset, pmf, infinite, int(both.sum())


def gaussian_delta(e: np.ndarray, mu: float) -> tuple[np.ndarray, np.ndarray]:
    """Balle-Wang delta_G(e) = Phi(mu/2 - e/mu) - e^e Phi(-mu/2 - e/mu) at every e, in floats, with
    a bound on each value's error. Both terms go through log Phi, so neither under- nor overflows
    before it is small; the error grows with the size of the exponents (a^2, b^2, |e|): with
    a = mu/2 - e/mu and b = -mu/2 - e/mu, the bound is

        GAUSSIAN_ULPS 2^-53 (1 + a^2 + b^2 + |e|) (Phi(a) + e^e Phi(b)) + 1e-300,

    the two terms taken as computed (the 1e-300 covers terms that underflowed to 0)."""
    a, b = mu / 2 - e / mu, -mu / 2 - e / mu
    first, second = np.exp(log_ndtr(a)), np.exp(e + log_ndtr(b))
    # relative part, plus an absolute 1e-300 for terms that underflowed to 0 (the true ones are below 1e-308)
    error = GAUSSIAN_ULPS * 2.0**-53 * (1 + a**2 + b**2 + np.abs(e)) * (first + second) + 1e-300
    return first - second, error


def _mu_bound(mu2: Fraction, upward: bool) -> float:
    """sqrt(mu^2) as a float rounded up (down) by a margin that covers the square root's rounding."""
    mu = math.sqrt(float(mu2))
    return float(np.nextafter(np.nextafter(mu, math.inf), math.inf)) if upward else max(
        float(np.nextafter(np.nextafter(mu, 0.0), 0.0)), 0.0)


def product_hockey_stick(pairs: list[tuple[FiniteDistribution, FiniteDistribution]], eps: float,
                         gaussian_mu2: Fraction = Fraction(0)) -> Enclosure:
    """delta(eps) of P = prod P_i against Q = prod Q_i over finite coordinates, times (when
    ``gaussian_mu2`` > 0) independent equal-variance Gaussian coordinates with that total mu^2."""
    return product_hockey_sticks(pairs, [eps], gaussian_mu2)[0]


def product_hockey_sticks(pairs: list[tuple[FiniteDistribution, FiniteDistribution]], eps_values: Sequence[float],
                          gaussian_mu2: Fraction = Fraction(0)) -> list[Enclosure]:
    """:func:`product_hockey_stick` at every epsilon of ``eps_values``: the binned loss distributions (the costly
    part, which does not depend on epsilon) are built once for them all, so each value is what the single call
    would give."""
    ranges = []
    for p, q in pairs:
        a = align(p, q)
        both = np.isfinite(a.logp) & np.isfinite(a.logq)
        loss = a.logp[both] - a.logq[both]
        ranges.append((float(loss.min()), float(loss.max())) if len(loss) else (0.0, 0.0))
    span = sum(hi - lo for lo, hi in ranges)
    h = max(span / GRID_POINTS, 1e-12)
    binned = {upward: _loss_distribution(pairs, h, upward) for upward in (True, False)}
    out = []
    for eps in eps_values:
        upper = binned[True].delta(eps, gaussian_mu2)
        out.append(Enclosure(binned[False].delta(eps, gaussian_mu2), min(upper, 1)))
    return out


@dataclass(frozen=True)
class _BinnedLoss:
    """The privacy loss of a product, binned on a grid of width ``h`` upward (every loss rounded up, masses
    rounded up) or downward: the cells' masses ``pmf`` from ``offset``, a bound ``pmf_error`` on their summed
    error, and the mass ``finite_mass`` of outcomes whose loss is finite."""

    upward: bool
    h: float
    offset: int
    pmf: np.ndarray
    pmf_error: float
    finite_mass: float

    def delta(self, eps: float, gaussian_mu2: Fraction) -> Fraction:
        """An upper (upward) or lower bound on delta(eps), times the Gaussian coordinates of total mu^2."""
        upward, pmf = self.upward, self.pmf
        losses = (self.offset + np.arange(len(pmf))) * self.h
        if gaussian_mu2:
            value, error = gaussian_delta(eps - losses, _mu_bound(gaussian_mu2, upward))
            weights = np.clip(value + error if upward else value - error, 0.0, 1.0)
        else:
            weights = np.where(losses > eps, -np.expm1(eps - losses), 0.0)
        total = positive_sum(pmf * weights)
        # the weights lie in [0, 1], so the pmf's summed error moves the weighted sum by at most as much;
        # the ends are added in fractions (a Fraction times a float would round to a float)
        up, down = 1 + Fraction(U), 1 - Fraction(U)
        if upward:
            return total.hi * up + Fraction(self.pmf_error) + Fraction(1 - self.finite_mass) * up
        missing = Fraction(max(1 - self.finite_mass, 0))
        return max(total.lo * down - Fraction(self.pmf_error) + missing * down, 0)


def _loss_distribution(pairs: list[tuple[FiniteDistribution, FiniteDistribution]], h: float,
                       upward: bool) -> _BinnedLoss:
    """The coordinates' binned losses convolved (:class:`_BinnedLoss`)."""
    # pmf_error: a bound on sum_k |pmf_k - exact_k|, exact the convolution of the binned masses
    offset, pmf, finite_mass, pmf_error = 0, np.ones(1), 1.0, 0.0
    for p, q in pairs:
        o, f, inf_mass, outcomes = _coordinate(p, q, h, upward)
        offset += o
        # bincount adds a cell's masses one by one: fewer than `outcomes` roundings of 2^-53 each
        f_error = 1.01 * outcomes * 2.0**-53 * float(f.sum())
        mass = float(pmf.sum())
        if len(pmf) * len(f) > 1:
            stage_error = _convolution_error(pmf, f)
            pmf = np.maximum(fftconvolve(pmf, f), 0.0)  # the exact cells are >= 0: clipping only nears them
        else:
            pmf = pmf * f
            stage_error = U * float(pmf.sum())
        pmf_error = pmf_error * (float(f.sum()) + f_error) + mass * f_error + stage_error
        finite_mass *= 1 - min(inf_mass, 1.0)
    return _BinnedLoss(upward, h, offset, pmf, pmf_error, finite_mass)
