"""Pairs of one-dimensional Gaussian location mixtures with a monotone privacy loss, cut into the cells of
:mod:`.grid` with every mass enclosed.

A mixture is sum_c w_c N(m_c, sigma^2) (one sigma for every component). For P and Q two such mixtures the privacy
loss is L(x) = log sum_c w_c e^(a_c(x)) - log sum_c v_c e^(b_c(x)) with a_c(x) = m_c (x - m_c / 2) / sigma^2 (the
common factor e^(-x^2 / 2 sigma^2) cancels). The pairs of subsampled DP-SGD steps (:mod:`.brackets`) have L
monotone in x, so the cell of losses [eps_j, eps_(j+1)) is the interval of x between the knots' preimages, and
its masses are differences of normal distribution functions (:mod:`.normal`).

**Rigour.** L is computed in floats with a stated error bound (:meth:`MixturePair.loss`: ULPS roundings of the
largest exponent involved); each knot's preimage is found by Newton's method and then enclosed in [x-, x+] with
L(x-) <= eps_j <= L(x+) certified by that bound (for decreasing L, the other way round). A cell's P-mass is then
enclosed by P(x-_(j+1)) - P(x+_j) and P(x+_(j+1)) - P(x-_j). Mixture weights may carry a relative error (1 - q
computed in floats), which widens every mass by that factor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import normal
from .grid import Cells, check_knot

_U = 2.0**-53
ULPS = 16
#: the window of x kept: every component's mass outside it is below TAIL (Phi(-40) ~ 4e-350 underflows; 38.5
#: standard deviations leave 1e-324 for each tail)
WINDOW_SIGMAS = 38.5


@dataclass(frozen=True)
class GaussianMixture:
    """sum_c weights[c] N(means[c], sigma^2); ``weight_error`` bounds every weight's relative error."""

    weights: tuple[float, ...]
    means: tuple[float, ...]
    sigma: float
    weight_error: float = 0.0

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.means) or not self.weights:
            raise ValueError("a mixture needs as many weights as means, at least one")
        if not (self.sigma > 0 and math.isfinite(self.sigma)):
            raise ValueError(f"sigma must be positive and finite, got {self.sigma!r}")
        if any(not (w > 0) for w in self.weights):
            raise ValueError(f"mixture weights must be positive, got {self.weights!r}")

    def exponents(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """a_c(x) + log w_c for every component (rows) at every x (columns), and a bound on each one's float
        error."""
        m = np.asarray(self.means, dtype=float)[:, None]
        logw = np.log(np.asarray(self.weights, dtype=float))[:, None]
        s2 = self.sigma * self.sigma
        value = logw + m * (x[None, :] - m / 2) / s2
        error = ULPS * _U * (2 + np.abs(logw) + np.abs(m * (np.abs(x[None, :]) + np.abs(m) / 2)) / s2) \
            + 2 * self.weight_error
        return value, error

    def cdf(self, x_lo: np.ndarray, x_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P(X <= x) for x in [x_lo, x_hi], enclosed."""
        return self._tails(x_lo, x_hi, upper=False)

    def sf(self, x_lo: np.ndarray, x_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P(X > x) for x in [x_lo, x_hi], enclosed (from the upper tails: accurate far out)."""
        return self._tails(x_lo, x_hi, upper=True)

    def _tails(self, x_lo: np.ndarray, x_hi: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray]:
        """sum_c w_c Phi(-+(x - m_c) / sigma), the lower bound at the end of [x_lo, x_hi] where it is smaller."""
        lo, hi = np.zeros(len(x_lo)), np.zeros(len(x_lo))
        for w, m in zip(self.weights, self.means):
            if upper:  # decreasing in x: the lower bound at x_hi, the upper at x_lo
                t_lo, _ = normal.sf(_standardised(x_hi, m, self.sigma)[1])
                _, t_hi = normal.sf(_standardised(x_lo, m, self.sigma)[0])
            else:
                t_lo, _ = normal.cdf(_standardised(x_lo, m, self.sigma)[0])
                _, t_hi = normal.cdf(_standardised(x_hi, m, self.sigma)[1])
            lo += w * t_lo
            hi += w * t_hi
        return _weighted(lo, hi, self.weight_error, len(self.weights))

    def mass(self, a_lo: np.ndarray, a_hi: np.ndarray, b_lo: np.ndarray, b_hi: np.ndarray,
             ) -> tuple[np.ndarray, np.ndarray]:
        """P(a <= X < b) for a in [a_lo, a_hi] and b in [b_lo, b_hi], enclosed."""
        lo, hi = np.zeros(len(a_lo)), np.zeros(len(a_lo))
        for w, m in zip(self.weights, self.means):
            za_lo, _ = _standardised(a_lo, m, self.sigma)
            _, za_hi = _standardised(a_hi, m, self.sigma)
            zb_lo, _ = _standardised(b_lo, m, self.sigma)
            _, zb_hi = _standardised(b_hi, m, self.sigma)
            i_lo, i_hi = normal.interval(za_lo, za_hi, zb_lo, zb_hi)
            lo += w * i_lo
            hi += w * i_hi
        return _weighted(lo, hi, self.weight_error, len(self.weights))


def _standardised(x: np.ndarray, m: float, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """(x - m) / sigma enclosed (a subtraction and a division: two roundings)."""
    with np.errstate(invalid="ignore"):
        z = (x - m) / sigma
        slack = np.where(np.isfinite(z), 4 * _U * (np.abs(z) + abs(m) / sigma) + 1e-300, 0.0)
    return z - slack, z + slack


def _weighted(lo: np.ndarray, hi: np.ndarray, weight_error: float, terms: int) -> tuple[np.ndarray, np.ndarray]:
    grow = weight_error + 2 * terms * _U  # the weights' own error, the products and the sums
    return np.maximum(lo * (1 - grow), 0.0), np.minimum(hi * (1 + grow), 1.0)


@dataclass(frozen=True)
class MixturePair:
    """The pair (P, Q) of two mixtures with one sigma, whose loss is monotone in x (``increasing`` says which
    way; the constructor checks it numerically on a grid, the cells' certification relies only on the
    computed values)."""

    p: GaussianMixture
    q: GaussianMixture
    increasing: bool

    def __post_init__(self) -> None:
        if self.p.sigma != self.q.sigma:
            raise ValueError("both mixtures of a pair must share sigma")

    @property
    def sigma(self) -> float:
        return self.p.sigma

    def reversed(self) -> MixturePair:
        """(Q, P): loss -L, monotone the other way."""
        return MixturePair(self.q, self.p, not self.increasing)

    def window(self) -> tuple[float, float]:
        """x outside which every component of both mixtures has mass below 1e-324."""
        means = (*self.p.means, *self.q.means)
        return min(means) - WINDOW_SIGMAS * self.sigma, max(means) + WINDOW_SIGMAS * self.sigma

    def loss(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """L(x) and a bound on its float error."""
        x = np.asarray(x, dtype=float)
        a, ea = self.p.exponents(x)
        b, eb = self.q.exponents(x)
        la, lb = _logsumexp(a), _logsumexp(b)
        value = la - lb
        error = ea.max(axis=0) + eb.max(axis=0) + ULPS * _U * (4 + np.abs(la) + np.abs(lb) + np.abs(value)
                                                               + len(a) + len(b))
        return value, error

    def slope(self, x: np.ndarray) -> np.ndarray:
        """L'(x) (floats, for Newton's method): the difference of the components' posterior mean slopes."""
        a, _ = self.p.exponents(x)
        b, _ = self.q.exponents(x)
        pa, pb = _softmax(a), _softmax(b)
        mp = (np.asarray(self.p.means)[:, None] * pa).sum(axis=0)
        mq = (np.asarray(self.q.means)[:, None] * pb).sum(axis=0)
        return (mp - mq) / (self.sigma * self.sigma)

    def preimages(self, knots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """[x-, x+] for every knot eps: L(x-) <= eps <= L(x+) if L increases (L(x+) <= eps <= L(x-) if it
        decreases), certified by the loss's error bound; -inf / +inf where eps lies beyond L's range over the
        window (every mass beyond is below 1e-324 and is charged to the neighbouring cell)."""
        lo_x, hi_x = self.window()
        grid = np.linspace(lo_x, hi_x, 4097)
        values, _ = self.loss(grid)
        sign = 1.0 if self.increasing else -1.0
        # a monotone copy of the coarse values, for the initial brackets
        mono = np.maximum.accumulate(sign * values)
        target = sign * knots
        j = np.clip(np.searchsorted(mono, target), 1, len(grid) - 1)
        left, right = grid[j - 1], grid[j]
        vl, vr = mono[j - 1], mono[j]
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(vr > vl, (target - vl) / (vr - vl), 0.5)
        x = left + np.clip(frac, 0.0, 1.0) * (right - left)
        for _ in range(8):  # safeguarded Newton inside the coarse bracket
            v, _ = self.loss(x)
            d = self.slope(x)
            with np.errstate(invalid="ignore", divide="ignore"):
                step = np.where(np.abs(d) > 1e-300, (v - knots) / d, 0.0)
            x = np.clip(x - step, left, right)
        below = target < mono[0]
        above = target > mono[-1]
        inside = ~below & ~above
        x_minus = np.where(below, -np.inf, hi_x)
        x_plus = np.where(below, lo_x, np.inf)
        x_minus[inside], x_plus[inside] = self._certify(x[inside], knots[inside], sign)
        return x_minus, x_plus

    def _certify(self, x: np.ndarray, knots: np.ndarray, sign: float) -> tuple[np.ndarray, np.ndarray]:
        """Step out from Newton's x until sign * L is certified <= sign * eps at x- and >= at x+."""
        v, e = self.loss(x)
        d = np.abs(self.slope(x))
        with np.errstate(divide="ignore", invalid="ignore"):
            width = np.where(d > 0, 2 * (e + ULPS * _U * np.abs(knots)) / d, np.inf)
        width = np.minimum(width, 1.0) + 4 * np.spacing(np.abs(x) + 1.0)
        x_minus, x_plus = x - width, x + width
        for _ in range(60):
            vm, em = self.loss(x_minus)
            vp, ep = self.loss(x_plus)
            bad_m = sign * vm + em > sign * knots
            bad_p = sign * vp - ep < sign * knots
            if not (bad_m.any() or bad_p.any()):
                return x_minus, x_plus
            width = np.where(bad_m | bad_p, width * 2, width)
            x_minus = np.where(bad_m, x - width, x_minus)
            x_plus = np.where(bad_p, x + width, x_plus)
        raise ArithmeticError("could not certify the loss's preimages (the loss is not monotone here?)")

    def cells(self, h: float, first: int, last: int) -> Cells:
        """The cells [eps_j, eps_(j+1)), j = first .. last - 1, of this pair's loss (eps_j = j h), with the
        P-mass below eps_first and above eps_last."""
        h = check_knot(h)
        if last <= first:
            raise ValueError("need at least one cell")
        knots = np.arange(first, last + 1) * h
        x_minus, x_plus = self.preimages(knots)
        if self.increasing:  # cell j is [x(eps_j), x(eps_(j+1)))
            a_lo, a_hi, b_lo, b_hi = x_minus[:-1], x_plus[:-1], x_minus[1:], x_plus[1:]
        else:  # cell j is (x(eps_(j+1)), x(eps_j)]; here L(x-) >= eps >= L(x+)
            a_lo, a_hi, b_lo, b_hi = x_minus[1:], x_plus[1:], x_minus[:-1], x_plus[:-1]
        p_lo, p_hi, g_lo, g_hi = self._cell_masses(knots[:-1], a_lo, a_hi, b_lo, b_hi, x_minus, x_plus)
        f, t = slice(0, 1), slice(-1, None)
        if self.increasing:  # below: X < x(eps_first); above: X >= x(eps_last)
            below = float(self.p.cdf(x_plus[f], x_plus[f])[1][0])
            above_hi = float(self.p.sf(x_minus[t], x_minus[t])[1][0])
            above_lo = float(self.p.sf(x_plus[t], x_plus[t])[0][0])
        else:  # below: X > x(eps_first); above: X <= x(eps_last)
            below = float(self.p.sf(x_minus[f], x_minus[f])[1][0])
            above_hi = float(self.p.cdf(x_plus[t], x_plus[t])[1][0])
            above_lo = float(self.p.cdf(x_minus[t], x_minus[t])[0][0])
        return Cells(h, first, p_lo, p_hi, g_lo, g_hi, below + 1e-300, max(above_lo - 1e-300, 0.0),
                     above_hi + 1e-300)

    def _cell_masses(self, knots: np.ndarray, a_lo: np.ndarray, a_hi: np.ndarray, b_lo: np.ndarray,
                     b_hi: np.ndarray, x_minus: np.ndarray, x_plus: np.ndarray,
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """P_j and G_j = P_j - e^eps_j Q_j of every cell, enclosed: Gauss-Legendre quadrature of p and of
        g = p - e^eps_j q between the midpoints of the end points' enclosures (:func:`_quadrature`), plus what the
        true ends, anywhere in their enclosures, can add or take: at most the sliver's width times the largest
        |p| (for P_j) or |g| (for G_j) on it. At the end where L = eps_j, g vanishes at the true end and
        |g| <= p (e^dL - 1) on the sliver, dL the loss's certified spread over it; at the end where L = eps_(j+1),
        |g| <= p (1 - e^-(h + dL))."""
        lo_x, hi_x = self.window()
        a = np.clip(np.where(np.isfinite(a_lo), (a_lo + a_hi) / 2, lo_x), lo_x, hi_x)
        b = np.clip(np.where(np.isfinite(b_hi), (b_lo + b_hi) / 2, hi_x), lo_x, hi_x)
        b = np.maximum(a, b)
        p_mid, p_err, g_mid, g_err = _quadrature(self, knots, a, b)
        # the slivers [a_lo, a_hi] and [b_lo, b_hi] (an infinite end: the window's edge, beyond which every
        # component has mass below 1e-324)
        width_a = np.where(np.isfinite(a_lo) & np.isfinite(a_hi), a_hi - a_lo, 0.0) * (1 + 4 * _U)
        width_b = np.where(np.isfinite(b_lo) & np.isfinite(b_hi), b_hi - b_lo, 0.0) * (1 + 4 * _U)
        pa, pb = self._density_bound(a, width_a), self._density_bound(b, width_b)
        spread_a = self._loss_spread(a_lo, a_hi)
        spread_b = self._loss_spread(b_lo, b_hi)
        h = float(knots[1] - knots[0]) if len(knots) > 1 else 0.0
        if self.increasing:  # L = eps_j at a, eps_(j+1) at b
            g_ends = width_a * pa * np.expm1(spread_a) + width_b * pb * -np.expm1(-(h + spread_b))
        else:  # L = eps_(j+1) at a, eps_j at b
            g_ends = width_a * pa * -np.expm1(-(h + spread_a)) + width_b * pb * np.expm1(spread_b)
        p_ends = width_a * pa + width_b * pb
        tiny = 2e-300  # the mass beyond the window's edges
        p_lo = np.maximum(p_mid - p_err - p_ends - tiny, 0.0)
        p_hi = p_mid + p_err + p_ends + tiny
        g_lo = g_mid - g_err - g_ends * (1 + 4 * _U) - tiny
        g_hi = g_mid + g_err + g_ends * (1 + 4 * _U) + tiny
        return p_lo, p_hi, g_lo, g_hi

    def _density_bound(self, x: np.ndarray, width: np.ndarray) -> np.ndarray:
        """An upper bound on P's density over [x - width, x + width]: each component's density at the point
        of that interval nearest its mean, with its float error allowed for."""
        out = np.zeros(len(x))
        for w, m in zip(self.p.weights, self.p.means):
            z = np.maximum(np.abs(x - m) - width, 0.0) / self.sigma
            out += w * np.exp(-z * z / 2) / (self.sigma * math.sqrt(2 * math.pi))
        return out * (1 + 8 * ULPS * _U + self.p.weight_error)

    def _loss_spread(self, x_lo: np.ndarray, x_hi: np.ndarray) -> np.ndarray:
        """An upper bound on |L(x) - L(y)| for x, y in [x_lo, x_hi] (0 where an end is infinite: the window's
        edge is then a single point)."""
        finite = np.isfinite(x_lo) & np.isfinite(x_hi)
        out = np.zeros(len(x_lo))
        if finite.any():
            v_lo, e_lo = self.loss(x_lo[finite])
            v_hi, e_hi = self.loss(x_hi[finite])
            out[finite] = (np.abs(v_hi - v_lo) + e_lo + e_hi) * (1 + 4 * _U)
        return out

    def loss_range(self, tail: float) -> tuple[float, float]:
        """Losses between which the P-mass outside is below ``tail`` on each side (floats, to choose the knots;
        the cells' tails are enclosed separately, whatever range is chosen)."""
        lo_x, hi_x = self.window()
        grid = np.linspace(lo_x, hi_x, 20001)
        cdf_lo, _ = self.p.cdf(grid, grid)
        sf_lo, _ = self.p.sf(grid, grid)
        values, _ = self.loss(grid)
        inside = (cdf_lo >= tail) & (sf_lo >= tail)
        if not inside.any():
            return float(values.min()), float(values.max())
        idx = np.flatnonzero(inside)
        # one grid step further each way, so the kept range covers the cut
        sel = values[max(idx[0] - 1, 0): idx[-1] + 2]
        return float(sel.min()), float(sel.max())


#: Gauss-Legendre nodes and weights on [-1, 1]
GAUSS_POINTS = 6
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(GAUSS_POINTS)
#: the rule's error factor (n!)^4 / ((2n + 1) ((2n)!)^3) (times width^(2n+1) max |f^(2n)|)
_REMAINDER = math.factorial(GAUSS_POINTS) ** 4 / ((2 * GAUSS_POINTS + 1) * math.factorial(2 * GAUSS_POINTS) ** 3)


def _quadrature(pair: MixturePair, knots: np.ndarray, a: np.ndarray, b: np.ndarray,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(P, error, G, error) over [a_j, b_j] with G = int p - e^eps_j q: composite Gauss-Legendre, panels no wider
    than 1 / (|z| + 4) standard deviations (z the panel's farthest point from a component's mean).

    Errors: each node's density is exp of a rounded argument (relative error 8 (1 + z^2) roundings, ULPS allowed
    per rounding), summed and weighted (a few roundings more), and the rule's remainder, width^(2n+1) times
    _REMAINDER times max |f^(2n)|, where for one component d^k phi(z)/dz^k = (-1)^k He_k(z) phi(z) and
    |He_k(z)| <= (|z| + sqrt k)^k (the coefficients of He_k are dominated by those of (|z| + sqrt k)^k)."""
    s = pair.sigma
    means = np.asarray((*pair.p.means, *pair.q.means), dtype=float)
    # panels: split every cell where its width exceeds the limit at its farthest point
    far = np.maximum(np.abs(a[:, None] - means[None, :]), np.abs(b[:, None] - means[None, :])).max(axis=1) / s
    limit = s / (far + 4.0)
    count = np.maximum(np.ceil((b - a) / limit), 1).astype(np.int64)
    cell = np.repeat(np.arange(len(a)), count)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    k = np.arange(len(cell)) - np.repeat(start, count)
    width = (b - a)[cell] / count[cell]
    lo = a[cell] + k * width
    hi = np.where(k == count[cell] - 1, b[cell], lo + width)
    half, mid = (hi - lo) / 2, (hi + lo) / 2
    x = mid[:, None] + half[:, None] * _NODES[None, :]
    e_lo, e_hi = (np.exp(knots) * (1 - ULPS * _U), np.exp(knots) * (1 + ULPS * _U))
    e = np.exp(knots)[cell][:, None]
    p_val, p_err = _density(pair.p, x)
    q_val, q_err = _density(pair.q, x)
    g_val = p_val - e * q_val
    g_err = p_err + e * q_err + ULPS * _U * e * q_val + 2 * _U * np.abs(g_val) + (e_hi - e_lo)[cell][:, None] * q_val
    wts = _WEIGHTS[None, :] * half[:, None]
    p_panel = (wts * p_val).sum(axis=1)
    g_panel = (wts * g_val).sum(axis=1)
    # the rule's remainder, for p and for e^eps q
    rem_p = _remainder(pair.p, lo, hi)
    rem_q = _remainder(pair.q, lo, hi)
    rounding = (GAUSS_POINTS + 4) * _U * (wts * (p_val + e * q_val)).sum(axis=1)
    p_panel_err = (wts * p_err).sum(axis=1) + rem_p + rounding
    g_panel_err = (wts * g_err).sum(axis=1) + rem_p + e[:, 0] * rem_q * (1 + ULPS * _U) + rounding
    n = len(a)
    p_sum = np.bincount(cell, weights=p_panel, minlength=n)
    g_sum = np.bincount(cell, weights=g_panel, minlength=n)
    grow = (count + 2) * _U  # the panels' sums
    p_sum_err = np.bincount(cell, weights=p_panel_err, minlength=n) * (1 + 2 * _U) + grow * np.bincount(
        cell, weights=np.abs(p_panel), minlength=n)
    g_sum_err = np.bincount(cell, weights=g_panel_err, minlength=n) * (1 + 2 * _U) + grow * np.bincount(
        cell, weights=np.abs(g_panel), minlength=n)
    return p_sum, p_sum_err, g_sum, g_sum_err


def _density(mixture: GaussianMixture, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mixture's density at x and a bound on its float error."""
    value = np.zeros(x.shape)
    error = np.zeros(x.shape)
    norm = 1.0 / (mixture.sigma * math.sqrt(2 * math.pi))
    for w, m in zip(mixture.weights, mixture.means):
        z = (x - m) / mixture.sigma
        d = w * norm * np.exp(-z * z / 2)
        value += d
        error += d * (ULPS * _U * (8 + 8 * z * z) + mixture.weight_error)
    # a subnormal density (far out in the window) has lost its relative accuracy: an absolute allowance per term
    return value, error + ULPS * _U * value + len(mixture.weights) * 1e-300


def _remainder(mixture: GaussianMixture, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """width^(2n+1) _REMAINDER max over [lo, hi] of |f^(2n)| for the mixture's density f (``_quadrature``)."""
    n2 = 2 * GAUSS_POINTS
    s = mixture.sigma
    out = np.zeros(len(lo))
    width = hi - lo
    for w, m in zip(mixture.weights, mixture.means):
        z_far = np.maximum(np.abs(lo - m), np.abs(hi - m)) / s
        z_near = np.where((lo <= m) & (m <= hi), 0.0, np.minimum(np.abs(lo - m), np.abs(hi - m))) / s
        bound = (z_far + math.sqrt(n2)) ** n2 * np.exp(-z_near * z_near / 2) / math.sqrt(2 * math.pi)
        out += w * bound * (width / s) ** n2 * width / s * _REMAINDER
    return out * (1 + 64 * _U)


def _logsumexp(a: np.ndarray) -> np.ndarray:
    top = a.max(axis=0)
    return top + np.log(np.exp(a - top).sum(axis=0))


def _softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(axis=0))
    return e / e.sum(axis=0)


def subsampled(q: float, shift: float, sigma: float) -> GaussianMixture:
    """(1 - q) N(0, sigma^2) + q N(shift, sigma^2), the weights' float rounding carried: q may itself be a rounded
    ratio (b / n, relative error 2^-53), which 1 - q inherits as q / (1 - q) times that, and 1 - q rounds once
    more."""
    if q >= 1:
        return GaussianMixture((1.0,), (shift,), sigma)
    return GaussianMixture((1.0 - q, q), (0.0, shift), sigma, weight_error=_U * (2 + 2 * q / (1 - q)))


def gaussian(sigma: float, mean: float = 0.0) -> GaussianMixture:
    return GaussianMixture((1.0,), (mean,), sigma)


def tail_to_loss_range(pair: MixturePair, tail: float, h: float) -> tuple[int, int]:
    """Knot indices (first, last) covering the losses between which P-mass at most ``tail`` lies outside."""
    lo, hi = pair.loss_range(tail)
    return math.floor(lo / h) - 1, math.ceil(hi / h) + 1
