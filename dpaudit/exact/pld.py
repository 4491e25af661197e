"""delta(eps) of independent finite coordinates through the privacy-loss distribution (PLD).

Under P the total loss is the sum of the coordinates' losses, so its distribution is the
convolution of theirs, and delta(eps) = E_P[(1 - e^(eps - L))_+] (Meiser & Mohammadi 2018;
Koskela, Jalko & Honkela 2020). Losses are put on a grid of width h, rounded *up* for an upper bound
on delta (the integrand is increasing in L) and *down* for a lower bound; outcomes with q = 0 have
infinite loss and count fully. Probabilities enter at their upper (lower) error bounds for the
upper (lower) bound. The convolution is by FFT, whose error is bounded by a standard estimate
(8 u log2(n) times the product of the inputs' total masses) and added to the upper bound.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy.signal import fftconvolve

from ..densities import FiniteDistribution
from .enclosure import Enclosure
from .finite import U, align, positive_sum

GRID_POINTS = 1 << 16  # grid cells over the range of the total loss


def _coordinate(p: FiniteDistribution, q: FiniteDistribution, h: float, upward: bool) -> tuple[int, np.ndarray, float]:
    """(offset, pmf on the grid, infinite-loss mass) of one coordinate's loss under P."""
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
    return offset, pmf, infinite


def product_hockey_stick(pairs: list[tuple[FiniteDistribution, FiniteDistribution]], eps: float) -> Enclosure:
    """delta(eps) of P = prod P_i against Q = prod Q_i, all coordinates finite."""
    ranges = []
    for p, q in pairs:
        a = align(p, q)
        both = np.isfinite(a.logp) & np.isfinite(a.logq)
        loss = a.logp[both] - a.logq[both]
        ranges.append((float(loss.min()), float(loss.max())) if len(loss) else (0.0, 0.0))
    span = sum(hi - lo for lo, hi in ranges)
    h = max(span / GRID_POINTS, 1e-12)
    bounds = []
    for upward in (True, False):
        offset, pmf, finite_mass = 0, np.ones(1), 1.0
        for p, q in pairs:
            o, f, inf_mass = _coordinate(p, q, h, upward)
            offset += o
            pmf = np.maximum(fftconvolve(pmf, f), 0.0) if len(pmf) * len(f) > 1 else pmf * f
            finite_mass *= 1 - min(inf_mass, 1.0)
        losses = (offset + np.arange(len(pmf))) * h
        weights = np.where(losses > eps, -np.expm1(eps - losses), 0.0)
        total = positive_sum(pmf * weights)
        fft_error = 8 * U * math.log2(max(len(pmf), 2)) * float(pmf.sum())
        if upward:
            bounds.append(total.hi * (1 + U) + Fraction(fft_error) + Fraction(1 - finite_mass) * (1 + U))
        else:
            bounds.append(max(total.lo * (1 - U) - Fraction(fft_error) + Fraction(max(1 - finite_mass, 0)) * (1 - U), 0))
    upper, lower = bounds
    return Enclosure(lower, min(upper, 1))
