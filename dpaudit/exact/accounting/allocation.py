"""Lower bounds for samplers that put each example in exactly one batch per epoch (shuffling, balls-and-bins): the
mixture-of-Gaussians pair of Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang ("How Private are DP-SGD
Implementations?", ICML 2024; multi-epoch forms in "Scalable DP-SGD: Shuffling vs. Poisson Subsampling",
NeurIPS 2024), seen through the largest coordinate.

One epoch releases one noisy sum per batch. On a pair of datasets whose other examples contribute the same to
every batch (a fixed-size batch of identical examples sums to the same vector wherever it falls), only the batch
holding the differing example moves: in units of the noise, P = sum_t w_t N(a_t e_t, I) and Q = sum_t w_t
N(b_t e_t, I) (plus, when a partial batch is dropped, weight w_0 on N(0, I) for both). The statistic M = max_t o_t
is a post-processing, so the pair of its laws,

    P(M <= c) = Phi(c)^(N-1) [sum_t w_t Phi(c - a_t)] + w_0 Phi(c)^N     (and Q with b_t),

binned on a fine grid of c, is a garbling of the true pair: its hockey-stick curve is a certified lower bound,
and E reshuffled epochs compose it E times (:mod:`.grid`'s dominated side). With one order for every epoch the
differing example sits in the same batch each time, and summing each batch over the epochs (post-processing again)
gives the one-epoch pair at sqrt(E) times the shifts.

Masses are enclosed from :mod:`.normal`'s enclosures of Phi: log P(M <= c) as (N - 1) log Phi(c) plus the log of
the mixture term, then P(M <= c) and P(M > c) by exp and -expm1, and every bin's mass as the difference of the
side that is small (so mass far out in the upper tail, where small deltas live, keeps its relative accuracy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np
from scipy import special

from . import normal
from .grid import Cells, cells_from_outcomes, check_knot

_U = 2.0**-53
ULPS = 16
#: an allocation's weights and shifts are floats standing for exact values a few roundings away (b / n, 1 / z,
#: (b / m) / z, sqrt(E) times a shift): every bound allows each of them this many roundings either way
PARAMETER_ULPS = 8
#: the binned statistic's range: each side's mass beyond it is below this
TAIL = 1e-30


@dataclass(frozen=True)
class Allocation:
    """The one-epoch pair: batch ``classes`` as (count, weight of each batch, P's shift, Q's shift), shifts in
    units of the noise's standard deviation, and the weight ``dropped`` of being in no released batch."""

    classes: tuple[tuple[int, float, float, float], ...]
    dropped: float = 0.0

    def __post_init__(self) -> None:
        total = sum(c * w for c, w, _, _ in self.classes) + self.dropped
        if not math.isclose(total, 1.0, rel_tol=1e-9):
            raise ValueError(f"an allocation's weights must sum to 1, got {total!r}")

    @property
    def batches(self) -> int:
        return sum(c for c, _, _, _ in self.classes)

    def scaled(self, factor: float) -> Allocation:
        """Every shift times ``factor`` (sqrt(E) for E epochs in one order)."""
        return Allocation(tuple((c, w, a * factor, b * factor) for c, w, a, b in self.classes), self.dropped)

    def swapped(self) -> Allocation:
        """(Q, P)."""
        return Allocation(tuple((c, w, b, a) for c, w, a, b in self.classes), self.dropped)

    def log_cdf(self, c: np.ndarray, side: str) -> tuple[np.ndarray, np.ndarray]:
        """log P(M <= c) (side "p") or log Q(M <= c) (side "q"), enclosed. Where Phi(c) > 1/2 both factors are
        taken as log1p of minus an upper tail, so that log P(M <= c), tiny there, keeps its relative accuracy."""
        c = np.asarray(c, dtype=float)
        n = self.batches
        upper = c > 0
        # log Phi(c), and log of the mixture term sum_t w_t Phi(c - s_t) + w_0 Phi(c)
        phi_lo, phi_hi = normal.cdf(c)
        sf_lo, sf_hi = normal.sf(c)
        mix_lo, mix_hi = self.dropped * phi_lo, self.dropped * phi_hi
        tail_lo, tail_hi = self.dropped * sf_lo, self.dropped * sf_hi  # 1 - the mixture term
        for count, w, a, b in self.classes:
            shift = a if side == "p" else b
            # c - shift rounds, and the shift is itself within PARAMETER_ULPS roundings of the true one: x = c - shift
            # is known to within d, over which log Phi and log(1 - Phi) change by at most (|x| + d + 1) d (their
            # slopes are Mills ratios, at most |x| + 1): a relative widening, which keeps the far tails' accuracy
            x = c - shift
            d = _U * (2 * np.abs(c) + (2 + PARAMETER_ULPS) * abs(shift))
            widen = np.expm1((np.abs(x) + d + 1) * d) * (1 + 4 * _U)
            lo, hi = normal.cdf(x)
            s_lo, s_hi = normal.sf(x)
            mix_lo = mix_lo + count * w * np.maximum(lo * (1 - widen), 0.0)
            mix_hi = mix_hi + count * w * np.minimum(hi * (1 + widen), 1.0)
            tail_lo = tail_lo + count * w * np.maximum(s_lo * (1 - widen), 0.0)
            tail_hi = tail_hi + count * w * np.minimum(s_hi * (1 + widen), 1.0)
        # the weighted sums' roundings, and the weights' own (every term is >= 0: a relative error of the weights
        # is one of the sums)
        grow = (2 * len(self.classes) + 2 + PARAMETER_ULPS) * _U
        with np.errstate(divide="ignore"):
            log_phi_lo = np.where(upper, np.log1p(-np.minimum(sf_hi, 1.0)), np.log(phi_lo))
            log_phi_hi = np.where(upper, np.log1p(-sf_lo), np.log(phi_hi))
            log_mix_lo = np.where(upper, np.log1p(-np.minimum(tail_hi * (1 + grow), 1.0)),
                                  np.log(mix_lo * (1 - grow)))
            log_mix_hi = np.where(upper, np.log1p(-tail_lo * (1 - grow)), np.log(np.minimum(mix_hi * (1 + grow), 1.0)))
        a_lo, a_hi = (n - 1) * log_phi_lo, (n - 1) * log_phi_hi
        log_lo, log_hi = a_lo + log_mix_lo, a_hi + log_mix_hi
        # log / log1p, the product by n - 1 and the sum round relative to the terms' sizes
        with np.errstate(invalid="ignore"):
            err = ULPS * _U * (np.abs(np.nan_to_num(a_lo)) + np.abs(np.nan_to_num(log_mix_lo)))
        return log_lo - err, np.minimum(log_hi + err, 0.0)


def statistic_cells(pair: Allocation, h: float, width: float | None = None) -> Cells:
    """The binned laws of M under P and Q (module docstring) as cells of :mod:`.grid` (grouped outcomes: the
    dominated side only). ``width``: the bins', by default 2^-12 standard deviations, or coarser so that no
    more than 2^20 bins span the range."""
    h = check_knot(h)
    n = pair.batches
    shifts = [s for _, _, a, b in pair.classes for s in (a, b)]
    if width is None:
        span = max(0.0, max(shifts)) - min(0.0, min(shifts)) + 40.0
        width = max(2.0**-12, 2.0 ** math.ceil(math.log2(span / 2**20)))
    low = float(special.ndtri(math.exp(math.log(TAIL) / max(n, 1)))) + min(0.0, min(shifts)) - 1.0
    high = max(0.0, max(shifts)) + float(-special.ndtri(TAIL / max(n, 1))) + 1.0
    grid = np.arange(math.floor(low / width), math.ceil(high / width) + 1) * width
    masses = {}
    for side in ("p", "q"):
        log_lo, log_hi = pair.log_cdf(grid, side)
        cdf_lo, cdf_hi = np.exp(log_lo) * (1 - 2 * _U), np.minimum(np.exp(log_hi) * (1 + 2 * _U), 1.0)
        sf_lo = np.maximum(-np.expm1(log_hi) * (1 - 2 * _U), 0.0)
        sf_hi = np.minimum(-np.expm1(log_lo) * (1 + 2 * _U), 1.0)
        # bins: (-inf, c_0], (c_i, c_(i+1)], (c_K, inf); each from the side that is small there
        lower_side = cdf_hi[1:] <= 0.5
        diff_cdf_lo = (cdf_lo[1:] - cdf_hi[:-1]) * (1 - 2 * _U)
        diff_cdf_hi = (cdf_hi[1:] - cdf_lo[:-1]) * (1 + 2 * _U)
        diff_sf_lo = (sf_lo[:-1] - sf_hi[1:]) * (1 - 2 * _U)
        diff_sf_hi = (sf_hi[:-1] - sf_lo[1:]) * (1 + 2 * _U)
        inner_lo = np.where(lower_side, diff_cdf_lo, diff_sf_lo)
        inner_hi = np.where(lower_side, diff_cdf_hi, diff_sf_hi)
        lo = np.concatenate([[cdf_lo[0]], np.maximum(inner_lo, 0.0), [sf_lo[-1]]])
        hi = np.concatenate([[cdf_hi[0]], np.maximum(inner_hi, 0.0), [sf_hi[-1]]])
        masses[side] = (lo, np.minimum(hi, 1.0))
    p_lo, p_hi = masses["p"]
    q_lo, q_hi = masses["q"]
    keep = p_lo > 0
    with np.errstate(divide="ignore"):
        loss_lo = np.where(q_hi[keep] > 0, np.log(p_lo[keep]) - np.log(q_hi[keep]), np.inf)
    loss_lo = np.where(np.isfinite(loss_lo), loss_lo - ULPS * _U * (2 + np.abs(np.log(p_lo[keep]))
                                                                     + np.abs(np.log(np.maximum(q_hi[keep], 1e-300)))),
                       loss_lo)
    return cells_from_outcomes(p_lo[keep], p_hi[keep], q_lo[keep], q_hi[keep], loss_lo, h)


def _float_log_no_exceed(pair: Allocation, thresholds: list[np.ndarray], side: str) -> np.ndarray:
    """log P(every released coordinate o_t <= its class's threshold) in floats, broadcast over the thresholds'
    arrays (one per class): sum over classes of n log Phi(C) + log1p(-sum_class n w (Phi(C) - Phi(C - s)) / Phi(C))
    with the differences taken from the upper tails."""
    total = 0.0
    inner = 0.0
    for (count, w, a, b), c in zip(pair.classes, thresholds):
        shift = a if side == "p" else b
        log_phi = special.log_ndtr(c)
        total = total + count * log_phi
        inner = inner + count * w * (special.ndtr(-(c - shift)) - special.ndtr(-c)) / np.exp(log_phi)
    return total + np.log1p(-np.minimum(inner, 1.0))


def _certified_tails(pair: Allocation, thresholds: tuple[float, ...], epochs: int) -> tuple[float, float]:
    """(a lower bound on P(E), an upper bound on Q(E)) for E = "some epoch has some coordinate above its class's
    threshold" over ``epochs`` independent epochs, in 120-digit mpmath (each side's error is far below the 1e-60
    allowed for it), with every weight and shift moved by PARAMETER_ULPS roundings the way that lowers P(E)
    (raises Q(E)): P(no exceedance) = prod Phi(c)^n (1 - sum n w (Phi(c) - Phi(c - s)) / Phi(c)) falls as a
    shift s grows, and as a weight grows where its term is positive."""
    with mpmath.workdps(120):
        out = []
        for side in ("p", "q"):
            toward = -1 if side == "p" else 1  # P: the smallest event probability; Q: the largest
            log_f = mpmath.mpf(0)
            inner = mpmath.mpf(0)
            for (count, w, a, b), c in zip(pair.classes, thresholds):
                shift = mpmath.mpf(a if side == "p" else b)
                shift += toward * abs(shift) * PARAMETER_ULPS * mpmath.mpf(_U)
                cm = mpmath.mpf(c)
                phi = mpmath.ncdf(cm)
                log_f += count * mpmath.log(phi)
                term = (mpmath.ncdf(-(cm - shift)) - mpmath.ncdf(-cm)) / phi
                weight = mpmath.mpf(w) * (1 + (toward if term > 0 else -toward) * PARAMETER_ULPS * mpmath.mpf(_U))
                inner += count * weight * term
            log_f += mpmath.log1p(-inner)
            tail = -mpmath.expm1(epochs * log_f)  # 1 - P(no epoch exceeds)
            out.append(tail)
        slack = mpmath.mpf(10) ** -60
        return float(max(out[0] - slack, 0) * (1 - 2 * _U)), float(min(out[1] + slack, 1) * (1 + 2 * _U))


def threshold_test(pair: Allocation, epochs: int = 1, delta: float | None = None, eps: float | None = None,
                   points: int = 801) -> tuple[float, tuple[float, ...]]:
    """The best test "some epoch has some batch's noisy sum above its class's threshold" over ``epochs``
    independent epochs (each class of batches its own threshold; one epoch with ``epochs=1``), chosen in floats
    on a grid of thresholds and then certified in mpmath: at ``delta``, the largest eps it certifies,
    log(P(E) - delta) - log Q(E) (-inf if P(E) <= delta); at ``eps``, P(E) - e^eps Q(E). (value, thresholds)."""
    if (delta is None) == (eps is None):
        raise ValueError("give exactly one of delta and eps")
    axes = []
    for _, _, a, b in pair.classes:
        top = max(a, b, 0.0)
        axes.append(np.linspace(-2.0, top + 12.0, points if len(pair.classes) == 1 else 201))
    mesh = np.meshgrid(*axes, indexing="ij")
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = _float_log_no_exceed(pair, mesh, "p")
        lq = _float_log_no_exceed(pair, mesh, "q")
        p_tail, q_tail = -np.expm1(epochs * lp), -np.expm1(epochs * lq)
        if delta is not None:
            value = np.where(p_tail > delta, np.log(np.maximum(p_tail - delta, 1e-300)) - np.log(q_tail), -np.inf)
        else:
            value = p_tail - np.exp(eps) * q_tail
    value = np.nan_to_num(value, nan=-np.inf, posinf=np.inf)
    best = np.unravel_index(int(np.argmax(value)), value.shape)
    thresholds = tuple(float(ax[i]) for ax, i in zip(axes, best))
    p_lo, q_hi = _certified_tails(pair, thresholds, epochs)
    if delta is not None:
        if p_lo <= delta:
            return -math.inf, thresholds
        if q_hi <= 0:
            return math.inf, thresholds
        v = math.log(p_lo - delta) - math.log(q_hi)
        return v - ULPS * _U * (2 + abs(math.log(p_lo - delta)) + abs(math.log(q_hi))), thresholds
    # the subtraction rounds to nearest: one float down
    return math.nextafter(p_lo - math.exp(eps) * (1 + ULPS * _U) * q_hi, -math.inf), thresholds
