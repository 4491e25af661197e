"""Certified lower bounds on Renyi divergences from samples, for black-box zCDP and Renyi DP audits.

**Data processing.** For any post-processing f, D_alpha(P || Q) >= D_alpha(P_f || Q_f). Here f maps an
output to one of k cells; with p_i = P[f(X) = i], q_i = Q[f(X) = i] and alpha > 1,

    D_alpha(P_f || Q_f) = log(S_alpha) / (alpha - 1),   S_alpha = sum_i p_i^alpha q_i^(1 - alpha).

Each term of S_alpha is increasing in p_i and decreasing in q_i. Two certificates lower-bound S_alpha:

- **the cell box** (:func:`certify_cells`): on the event that p_i >= p_lo_i and q_i <= q_hi_i for every
  cell (one-sided Clopper-Pearson bounds, Bonferroni over the 2k bounds: alpha_level / (2k) each),
  S_alpha >= sum_i p_lo_i^alpha q_hi_i^(1 - alpha) for *every order at once* (dropping the constraint that
  the p_i and q_i sum to one only loosens it), so the whole grid of orders costs nothing: the bound is
  max(0, log(that sum) / (alpha - 1)), and alpha = inf gives max_i log(p_lo_i / q_hi_i);
- **the tangent** (:func:`certify_tangent`): x^alpha y^(1-alpha) is convex and homogeneous of degree
  one, so it lies above its tangent plane through the origin at any ratio t > 0:
  p^alpha q^(1-alpha) >= u p - v q with u = alpha t^(alpha-1), v = (alpha - 1) t^alpha. With ratios t_i
  fixed on selection samples, S_alpha >= E_P[u(f(X))] - E_Q[v(f(X))], a difference of two means of
  bounded variables, bounded by :func:`~dpaudit.stats.bounded_mean_lower` (empirical Bernstein or
  Hoeffding) at alpha_level / 2 each, at one order chosen on selection. It is exact when t_i = p_i / q_i
  and pays for 2 bounds rather than 2k, so its error shrinks like the estimator's standard error; the
  box's per-cell errors add up. On the Gaussian with true rho 0.6 it certifies 0.53 from 1.5 * 10^5
  confirmation samples per side where the box certifies 0.47.

Either holds with probability >= 1 - alpha_level. A zCDP claim rho is refuted when the certified
D_alpha / alpha exceeds rho (the box: maximised over :data:`~.bounds.RHO_ORDERS`, 1.001 to 10^4); a
Renyi claim when the certified D_alpha exceeds epsilon(alpha) at a claimed order. The statistic's interval
starts at the certified value (rho, or D_alpha at the order of largest excess), never capped; its value is
the plug-in estimate at the same order.

**Choices made on the selection split** (which confirmation never sees, so they cost no multiplicity): the
pair, the direction (P || Q) = (M(d0) || M(d1)) or the reverse, the binning f, the certificate, and for the
tangent its order and ratios. Scalar outputs are cut into fine bins (one per value when the pooled selection
samples take at most :data:`MAX_VALUES` values, else :data:`FINE_BINS` quantile bins); on one half of the
selection samples each fine bin's likelihood ratio is estimated (counts + 1/2), and fine bins are merged into
k cells of nearby ratio, for k in :data:`CELL_COUNTS` and two groupings (equal pooled mass per cell, or equal
width in log-ratio); the tangent's ratios are the cells' ratios on that half (for the candidate confirmed, on
the whole selection split). Each candidate is scored on the other half by the excess confirmation would
certify at its sample size if the cells' probabilities were those estimates (for the box, moved one standard
error against the claim, so that the plug-in maximum over orders, inflated at high orders by a few tail
counts, does not win), and the best is confirmed on fresh samples. Several pairs share the selection samples
evenly (no successive halving). These are implementation choices: a binning by likelihood-ratio level sets
loses nothing to data processing when it is fine enough, and a few tens of cells keep the box's Bonferroni
split small.

**Power.** A record that does not refute states the violation on its selected cells that its confirmation
refutes with probability 0.9 (:func:`_power`): the second side's observed rates kept, the first side's law tilted
from them along the cells' likelihood ratios (:func:`tilted`), confirmations simulated and certified for each tilt.

**When it is used.** :class:`~.statistical_privacy.StatisticalPrivacyAuditor` sends a Renyi or zCDP
claim here when the outputs (or the user's ``statistic`` of them) are scalar, the audit is not
sequential and no ``events`` were named. Otherwise (vector outputs, sequential confirmation, event
families chosen by the user) the event auditor's Bernoulli bound (one event: the box's nearest corner for
two cells) is used. On scalar outputs the binned auditor is the stronger: the Gaussian mechanism at
rho = 0.5 (quick budget) certifies rho >= 0.44 here, 0.23 from one event.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.claims import ZCDP, Claim, RenyiDP
from ..core.logspace import log_sum_exp
from ..core.results import NOT_REFUTED, POWER_PROBABILITY, REFUTED, Statistic, power
from ..core.subjects import Mechanism
from ..stats import binomial_lower, binomial_upper, bounded_mean_lower_counts, empirical_bernstein_lower
from .base import Finding
from .bounds import RHO_ORDERS
from .events import as_features

MAX_VALUES = 4096  # up to this many distinct pooled values, one fine bin per value
FINE_BINS = 512  # else this many pooled-quantile fine bins
CELL_COUNTS = (2, 4, 8, 16, 32, 64)
MIN_SAMPLES = 100
PROJECTION_LEVEL = 0.16  # selection only: one standard error
NAME = "black-box-renyi"


def default_selection_fraction(samples: int, pairs: int = 1) -> float:
    """A binning needs fewer selection samples than an event search: 50,000 per pair (up to 8 pairs),
    between 10% and 50% of the samples."""
    return min(0.5, max(0.1, 50_000 * min(pairs, 8) / samples))


@dataclass(frozen=True)
class CellMap:
    """Fine bins (``edges``: inner edges of a scalar, searched with side='right') and the cell of each."""

    edges: np.ndarray
    cell_of_bin: np.ndarray
    cells: int

    def cell_of(self, x: np.ndarray) -> np.ndarray:
        return self.cell_of_bin[np.searchsorted(self.edges, x, side="right")]

    def counts(self, x: np.ndarray) -> np.ndarray:
        return np.bincount(self.cell_of(x), minlength=self.cells)

    def describe(self) -> str:
        return f"{self.cells} cells of nearby likelihood ratio over {len(self.edges) + 1} fine bins"


def _fine_edges(pooled: np.ndarray) -> np.ndarray:
    values = np.unique(pooled)
    if len(values) <= MAX_VALUES:
        return (values[:-1] + values[1:]) / 2  # one bin per value; unseen values fall in a neighbour's
    return np.unique(np.quantile(pooled, np.linspace(0, 1, FINE_BINS + 1)[1:-1]))


def _groupings(log_ratio: np.ndarray, mass: np.ndarray) -> list[np.ndarray]:
    """Cell of each fine bin for every candidate k and grouping (fine bins ranked by ratio). Outputs of one value
    make one fine bin, which no k splits: its one grouping is that single cell (certifying 0, as it should: such a
    mechanism's laws agree on every event it can tell apart)."""
    if len(log_ratio) < 2:
        return [np.zeros(len(log_ratio), dtype=np.int64)]
    out = []
    order = np.argsort(log_ratio, kind="stable")
    cumulative = np.cumsum(mass[order]) / max(mass.sum(), 1)
    lo, hi = float(log_ratio.min()), float(log_ratio.max())
    for k in CELL_COUNTS:
        if k > len(log_ratio):
            break
        by_mass = np.empty(len(log_ratio), dtype=np.int64)
        by_mass[order] = np.minimum((cumulative * k).astype(np.int64), k - 1)
        out.append(by_mass)
        width = np.minimum(((log_ratio - lo) / max(hi - lo, 1e-12) * k).astype(np.int64), k - 1)
        out.append(width)
    compact = []
    for cells in out:
        _, dense = np.unique(cells, return_inverse=True)  # drop empty cells
        compact.append(dense.astype(np.int64))
    return compact


def log_sums(orders: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """log sum_i p_i^a q_i^(1 - a) for every finite order a, terms with p_i = 0 dropped: p and q of shape (..., k)
    (one law per row), the result (..., orders)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    a = np.asarray(orders, dtype=float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        terms = a * np.log(p)[..., None, :] + (1 - a) * np.log(q)[..., None, :]  # (..., orders, k)
        # a term at +inf (q_i = 0 < p_i) makes its sum +inf; dropped terms are -inf
        return log_sum_exp(np.where(p[..., None, :] > 0, terms, -np.inf), axis=-1)


def renyi_from_bounds(orders, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """max(0, log(sum_i p_i^a q_i^(1 - a)) / (a - 1)) per order a; a = inf gives max_i log(p_i / q_i)
    over cells with p_i > 0. With p, q the cells' lower / upper confidence bounds it is the certified
    lower bound on D_a; with their estimates, the plug-in estimate of the binned divergence. p and q of shape
    (..., k) give (..., orders)."""
    orders = np.asarray(orders, dtype=float)
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    out = np.zeros(p.shape[:-1] + orders.shape)
    finite = np.isfinite(orders)
    if finite.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            out[..., finite] = log_sums(orders[finite], p, q) / (orders[finite] - 1)
    if (~finite).any():
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(p > 0, np.log(p) - np.log(q), -np.inf).max(axis=-1)
        out[..., ~finite] = np.where(ratio == -np.inf, 0.0, ratio)[..., None]  # no cell with p_i > 0: 0
    return np.maximum(np.nan_to_num(out, nan=0.0, neginf=0.0, posinf=np.inf), 0.0)


@dataclass
class Certificate:
    name: str  # "rho" or "renyi"
    value: float  # certified lower bound on rho, or on D_alpha at ``order``
    estimate: float  # the plug-in estimate at the same order
    excess: float  # value - claim (positive: refuted)
    order: float
    p_lo: np.ndarray
    q_hi: np.ndarray


def certify_cells(claim: Claim, k_num: np.ndarray, k_den: np.ndarray, n: int, alpha: float) -> Certificate:
    """The certified bound of the module docstring from cell counts ``k_num`` (the P side) and
    ``k_den`` (the Q side) among ``n`` outputs per side; holds with probability >= 1 - ``alpha``."""
    k_num, k_den = np.asarray(k_num), np.asarray(k_den)
    p_lo, q_hi = _box_bounds(k_num, k_den, n, alpha)
    orders, values, excess = _box_values(claim, p_lo, q_hi)
    j = int(np.argmax(excess))
    p_hat, q_hat = k_num / n, k_den / n
    if isinstance(claim, ZCDP):
        with np.errstate(divide="ignore", invalid="ignore"):
            estimate = float(np.max(renyi_from_bounds(RHO_ORDERS, p_hat, q_hat) / RHO_ORDERS))
        return Certificate("rho", float(values[j]), estimate, float(excess[j]), float(orders[j]), p_lo, q_hi)
    estimate = float(renyi_from_bounds(orders[j:j + 1], p_hat, q_hat)[0])
    return Certificate("renyi", float(values[j]), estimate, float(excess[j]), float(orders[j]), p_lo, q_hi)


def _box_bounds(k_num: np.ndarray, k_den: np.ndarray, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The cells' one-sided Clopper-Pearson bounds, Bonferroni over the 2k of them: counts (..., k). Each distinct
    count's bound is computed once (a power figure's simulated counts cluster: a few hundred of 64,000)."""
    level = alpha / (2 * np.shape(k_num)[-1])

    def once(bound, k):
        values, where = np.unique(k, return_inverse=True)
        return bound(values, n, level)[where].reshape(np.shape(k))

    return once(binomial_lower, k_num), once(binomial_upper, k_den)


def _box_values(claim: Claim, p_lo: np.ndarray, q_hi: np.ndarray,
               rho_orders: np.ndarray = RHO_ORDERS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The orders the box certifies at, its certified value at each (rho at each of ``rho_orders`` for a zCDP
    claim, D_a for a Renyi one) and the excess over the claim: bounds (..., k) give (..., orders)."""
    if isinstance(claim, ZCDP):
        values = renyi_from_bounds(rho_orders, p_lo, q_hi) / rho_orders
        return rho_orders, values, values - claim.rho
    if isinstance(claim, RenyiDP):
        orders = np.array([a for a, _ in claim.points], dtype=float)
        epsilons = np.array([e for _, e in claim.points], dtype=float)
        values = renyi_from_bounds(orders, p_lo, q_hi)
        return orders, values, values - epsilons
    raise TypeError(f"Renyi cell bounds audit zCDP and Renyi DP claims, got a {claim.kind} claim")


def tangent_coefficients(orders: np.ndarray, log_t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """u = a t^(a - 1) and v = (a - 1) t^a per order (rows) and cell (columns): p^a q^(1-a) >=
    u p - v q for all p, q >= 0 (the tangent plane at ratio t of a convex function homogeneous of degree
    one), so sum_i p_i^a q_i^(1-a) >= E_P[u(cell)] - E_Q[v(cell)]. Overflowing orders give inf."""
    a = orders[:, None]
    with np.errstate(over="ignore"):
        return a * np.exp((a - 1) * log_t), (a - 1) * np.exp(a * log_t)


def certify_tangent(claim: Claim, order: float, log_t: np.ndarray, num_cells: np.ndarray, den_cells: np.ndarray,
                    alpha: float) -> Certificate:
    """The tangent certificate at one ``order``: sum_i p_i^a q_i^(1-a) >= E_P[u] - E_Q[v] (see
    :func:`tangent_coefficients`, with cell ratios t fixed on selection samples), E_P[u] bounded below
    and E_Q[v] above by :func:`~dpaudit.stats.bounded_mean_lower` (empirical Bernstein or Hoeffding)
    at alpha / 2 each; D_a >= log(lower sum) / (a - 1). ``num_cells`` / ``den_cells``: the cell of each
    confirmation output of the P and the Q side."""
    u, v = (c[0] for c in tangent_coefficients(np.array([order]), log_t))
    k_num, k_den = (np.bincount(np.asarray(c), minlength=len(log_t)) for c in (num_cells, den_cells))
    n = len(num_cells)
    eu, ev = (float(b) for b in _tangent_bounds(u, v, k_num, k_den, alpha))
    value = float(_tangent_value(order, eu - ev))
    plug_in = float((k_num @ u) / n - (k_den @ v) / len(den_cells))
    # the estimate: the same tangent sum from the plain means (the plug-in binned divergence would be infinite
    # at every order as soon as one cell is empty on the Q side)
    estimate = float(_tangent_value(order, plug_in))
    if isinstance(claim, ZCDP):
        return Certificate("rho", value / order, estimate / order, value / order - claim.rho, order,
                           np.array([eu]), np.array([ev]))
    eps = dict(claim.points)[order]
    return Certificate("renyi", value, estimate, value - eps, order, np.array([eu]), np.array([ev]))


def _tangent_bounds(u: np.ndarray, v: np.ndarray, k_num: np.ndarray, k_den: np.ndarray,
                    alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """E_P[u] bounded below and E_Q[v] above, at alpha / 2 each, from the cells' counts on each side (shape
    (..., k), one confirmation per row): u and v rescaled to [0, 1] for :func:`~dpaudit.stats.bounded_mean_lower`."""
    bounds = []
    for coef, counts, sign in ((u, k_num, 1.0), (v, k_den, -1.0)):
        lo, span = float(coef.min()), float(coef.max() - coef.min())
        if span == 0:
            bounds.append(np.full(np.shape(counts)[:-1], lo))
            continue
        z = (coef - lo) / span
        mean_lower = bounded_mean_lower_counts(z if sign > 0 else 1.0 - z, counts, alpha / 2)[0]
        bounds.append(lo + span * (mean_lower if sign > 0 else 1.0 - mean_lower))
    return bounds[0], bounds[1]


def _tangent_value(order: float, total: Any) -> np.ndarray:
    """max(0, log(total) / (a - 1)), 0 where the lower sum is not positive."""
    total = np.asarray(total, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, np.maximum(np.log(np.where(total > 0, total, 1.0)) / (order - 1), 0.0), 0.0)


def _claimed_orders(claim: Claim) -> np.ndarray:
    if isinstance(claim, ZCDP):
        return RHO_ORDERS
    return np.array([a for a, _ in claim.points if math.isfinite(a)], dtype=float)


def _excess(claim: Claim, orders: np.ndarray, values: np.ndarray) -> np.ndarray:
    if isinstance(claim, ZCDP):
        return values / orders - claim.rho
    eps = dict(claim.points)
    return values - np.array([eps[a] for a in orders])


def _projected(claim: Claim, k_num: np.ndarray, k_den: np.ndarray, n: int, n_conf: int, alpha: float,
               log_t: np.ndarray) -> tuple[float, str, float]:
    """The excess confirmation would certify, at ``n_conf`` outputs per side, if the cells'
    probabilities were these estimates: for the cell box (all orders at once) and for the tangent
    certificate at its best order. Returns (score, certificate, order)."""
    # the box's score takes the maximum over all orders, which on plug-in estimates the high orders' few tail
    # counts inflate: each cell is moved one standard error against the claim (its 0.16 Clopper-Pearson limit)
    p_sel, q_sel = binomial_lower(k_num, n, PROJECTION_LEVEL), binomial_upper(k_den, n, PROJECTION_LEVEL)
    box = certify_cells(claim, p_sel * n_conf, q_sel * n_conf, n_conf, alpha)
    best = (box.excess, "cells", box.order)
    orders = _claimed_orders(claim)
    if len(orders) == 0:
        return best
    u, v = tangent_coefficients(orders, log_t)
    finite = np.isfinite(u).all(axis=1) & np.isfinite(v).all(axis=1)
    if not finite.any():
        return best
    orders, u, v = orders[finite], u[finite], v[finite]
    f, g = k_num / n, k_den / n
    with np.errstate(over="ignore", invalid="ignore"):
        eu, ev = u @ f, v @ g
        vu, vv = np.maximum((u**2) @ f - eu**2, 0), np.maximum((v**2) @ g - ev**2, 0)
        su, sv = np.ptp(u, axis=1), np.ptp(v, axis=1)
        # what confirmation's bounded_mean_lower would give (its Bernstein branch) at the confirmation size
        lower = empirical_bernstein_lower(eu, vu, n_conf, alpha / 2, su)
        upper = ev + (ev - empirical_bernstein_lower(ev, vv, n_conf, alpha / 2, sv))
        total = np.nan_to_num(lower - upper, nan=-1.0, neginf=-1.0, posinf=-1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(total > 0, np.log(np.where(total > 0, total, 1.0)) / (orders - 1), 0.0)
    excess = _excess(claim, orders, np.maximum(values, 0.0))
    j = int(np.argmax(excess))
    if excess[j] > best[0]:
        best = (float(excess[j]), "tangent", float(orders[j]))
    return best


#: simulated confirmations at each violation a power figure tries
POWER_DRAWS = 1000
#: the share of them the figure's violation must refute: 0.9 plus five Monte Carlo standard errors (0.0095 at
#: 1,000 draws), so that its true refutation probability is at least 0.9 but for a chance below 1e-6
POWER_SIMULATED = 0.95
#: bisection steps on the tilt, from [0, 60 / (the ratios' spread)]
POWER_STEPS = 14
#: a zCDP box's simulated confirmations are certified at every POWER_ORDER_STRIDE-th of its orders and the record's:
#: fewer orders refute less often, so the figure errs large, and the simulation costs an eighth
POWER_ORDER_STRIDE = 8


def tilted(q: np.ndarray, direction: np.ndarray, s: float) -> np.ndarray:
    """The first side's law of the power family: q_i e^(s l_i) normalised, l the cells' log likelihood ratios
    (``direction``): q itself at s = 0, its divergence from q rising with s (an exponential family through q:
    D_a(p_s || q) = (A(a s) - a A(s)) / (a - 1), A the log-partition, increases for s >= 0), toward q restricted to
    the cells of largest ratio."""
    q = np.asarray(q, dtype=float)
    support = q > 0
    shift = np.where(support, s * (direction - direction[support].max()), -np.inf)
    w = np.where(support, q * np.exp(shift), 0.0)
    return w / w.sum()


def tilted_violation(claim: Claim, certificate: str, order: float, q: np.ndarray, direction: np.ndarray,
                     s: float) -> float:
    """The violation a power figure states for :func:`tilted` (q, direction, s) against q: rho = D_a / a at the
    tangent's order, or the largest over the box's orders, for a zCDP claim; D_a at ``order`` for a Renyi one."""
    p = tilted(q, direction, s)
    if isinstance(claim, ZCDP):
        orders = RHO_ORDERS if certificate == "cells" else np.array([order])
        return float(np.max(renyi_from_bounds(orders, p, q) / orders))
    return float(renyi_from_bounds(np.array([order]), p, q)[0])


def _power(claim: Claim, choice: _Choice, cert: Certificate, k_den: np.ndarray, n: int, alpha: float,
           seed: int = 0) -> dict[str, Any]:
    """The violation on the selected cells that this confirmation's certificate refutes with probability 0.9:
    the second side's rates kept as observed (q = k_den / n), the first side's law :func:`tilted` from q along the
    cells' selection ratios (``choice.log_t``); for each tilt, :data:`POWER_DRAWS` confirmations of the two sides'
    cell counts are simulated (multinomial at n per side, from generator ``seed``, the audit's streams untouched) and
    certified as confirmation certifies (a zCDP box at fewer orders: :data:`POWER_ORDER_STRIDE`); the smallest tilt
    refuting in :data:`POWER_SIMULATED` of them is found by bisection. Its violation is rho = D_a / a at the
    certificate's order a (the box: the largest over its orders) for a zCDP claim, D_a at the record's order for a
    Renyi one (:func:`tilted_violation`)."""
    q = k_den / n
    direction = np.asarray(choice.log_t, dtype=float)
    rng = np.random.default_rng(seed)
    draws_den = rng.multinomial(n, q, size=POWER_DRAWS)
    draws_num_state = rng.bit_generator.state  # every tilt's first side from the same stream: a smoother search
    u = v = box_orders = None
    if choice.certificate == "tangent":
        u, v = (c[0] for c in tangent_coefficients(np.array([cert.order]), direction))
    else:
        box_orders = np.union1d(RHO_ORDERS[::POWER_ORDER_STRIDE], [cert.order])

    def refuted(s: float) -> float:
        rng.bit_generator.state = draws_num_state
        draws_num = rng.multinomial(n, tilted(q, direction, s), size=POWER_DRAWS)
        if u is None:
            excess = _box_values(claim, *_box_bounds(draws_num, draws_den, n, alpha), box_orders)[2].max(axis=-1)
        else:
            value = _tangent_value(cert.order, np.subtract(*_tangent_bounds(u, v, draws_num, draws_den, alpha)))
            excess = _excess(claim, np.array([cert.order]), value[:, None])[:, 0]
        return float(np.mean(excess > 0))

    name = "rho" if isinstance(claim, ZCDP) else f"D_{cert.order:g}"
    cells = f"the {choice.cells.cells} selected cells"
    spread = np.ptp(direction[q > 0]) if (q > 0).any() else 0.0
    far = 60.0 / spread if spread > 0 else 0.0  # e^-60: the family's limit, up to rounding
    if far == 0.0 or refuted(far) < POWER_SIMULATED:
        return power(name, math.inf, f"no {name} of the first side's law tilted from the second's along {cells}' "
                     f"likelihood ratios is refuted with probability {POWER_PROBABILITY:g} by {n} confirmation "
                     f"samples per side (the second side's rates kept)")
    lo, hi = 0.0, far
    for _ in range(POWER_STEPS):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if refuted(mid) >= POWER_SIMULATED else (mid, hi)
    measured = ("rho (the largest D_a / a over the box's orders)" if isinstance(claim, ZCDP) and u is None
                else f"rho (D_a / a at order {cert.order:g})" if isinstance(claim, ZCDP) else name)
    value = tilted_violation(claim, choice.certificate, cert.order, q, direction, hi)
    return power(name, value, f"{measured} of the first side's law tilted from the second's along {cells}' "
                 f"likelihood ratios (the second side's rates kept) is refuted with probability "
                 f"{POWER_PROBABILITY:g} by {n} confirmation samples per side (in {POWER_SIMULATED:g} of "
                 f"{POWER_DRAWS} simulated confirmations of the {choice.certificate} certificate)")


@dataclass
class _Choice:
    score: float
    pair_index: int
    order: str  # "d0/d1": P = M(d0), Q = M(d1)
    cells: CellMap
    certificate: str  # "cells" or "tangent"
    renyi_order: float
    log_t: np.ndarray


def _select(mechanism: Mechanism, claim: Claim, pairs, n_sel: int, n_conf: int, alpha: float,
            seed: np.random.SeedSequence, statistic) -> _Choice:
    best: _Choice | None = None
    n_each = max(MIN_SAMPLES, n_sel // len(pairs))
    for index, pair_seed in enumerate(seed.spawn(len(pairs))):
        rng = np.random.default_rng(pair_seed)
        x0, x1 = (_scalar(mechanism, d, n_each, rng, statistic) for d in pairs[index])
        half = n_each // 2
        (a0, b0), (a1, b1) = (x0[:half], x0[half:]), (x1[:half], x1[half:])
        edges = _fine_edges(np.concatenate([a0, a1]))
        c0 = np.bincount(np.searchsorted(edges, a0, side="right"), minlength=len(edges) + 1)
        c1 = np.bincount(np.searchsorted(edges, a1, side="right"), minlength=len(edges) + 1)
        log_ratio = np.log(c0 + 0.5) - np.log(c1 + 0.5)
        m = len(b0)
        for cell_of_bin in _groupings(log_ratio, c0 + c1):
            cells = CellMap(edges, cell_of_bin, int(cell_of_bin.max()) + 1)
            k0, k1 = cells.counts(b0), cells.counts(b1)
            h0, h1 = cells.counts(a0), cells.counts(a1)
            for order, num, den, tn, td in (("d0/d1", k0, k1, h0, h1), ("d1/d0", k1, k0, h1, h0)):
                # cell ratios from the ranking half, so the tangent is not fitted to the half that scores it
                log_t = np.log(tn + 0.5) - np.log(td + 0.5)
                score, certificate, renyi_order = _projected(claim, num, den, m, n_conf, alpha, log_t)
                if best is None or score > best.score:
                    best = _Choice(score, index, order, cells, certificate, renyi_order,
                                   np.log(tn + num + 0.5) - np.log(td + den + 0.5))
    assert best is not None
    return best


def _scalar(mechanism: Mechanism, data: Any, n: int, rng: np.random.Generator, statistic) -> np.ndarray:
    x = as_features(mechanism.sample(data, n, rng), statistic)
    return np.ascontiguousarray(x[:, 0])


def is_scalar(mechanism: Mechanism, data: Any, statistic, seed: np.random.SeedSequence) -> bool:
    """Whether the outputs (or features) at ``data`` have one coordinate (checked on two draws from a
    generator of their own, so the audit's streams are untouched)."""
    x = as_features(mechanism.sample(data, 2, np.random.default_rng(seed)), statistic)
    return x.shape[1] == 1


def audit_renyi(mechanism: Mechanism, claim: Claim, pairs: Sequence[tuple[Any, Any]], *, samples: int,
                confidence: float, seed: np.random.SeedSequence, selection_fraction: float | None = None,
                statistic: Callable[[np.ndarray], Any] | None = None) -> Finding:
    """Certify a lower bound on D_alpha (Renyi claims) or rho (zCDP claims) from binned samples (module
    docstring); ``samples`` per side of a pair, split between selection and confirmation."""
    if not isinstance(claim, (ZCDP, RenyiDP)):
        raise TypeError(f"Renyi cell bounds audit zCDP and Renyi DP claims, got a {claim.kind} claim")
    if selection_fraction is None:
        selection_fraction = default_selection_fraction(samples, len(pairs))
    if not 0 < selection_fraction < 1:
        raise ValueError(f"selection_fraction must be in (0, 1), got {selection_fraction!r}")
    n_sel = int(samples * selection_fraction)
    n_conf = samples - n_sel
    if min(n_sel // len(pairs), n_conf) < MIN_SAMPLES:
        raise ValueError(f"samples={samples} leaves {n_sel} for selection over {len(pairs)} pair(s) and {n_conf} "
                         f"for confirmation; each needs at least {MIN_SAMPLES}")
    alpha = 1.0 - confidence
    selection_seed, confirmation_seed = seed.spawn(2)
    choice = _select(mechanism, claim, pairs, n_sel, n_conf, alpha, selection_seed, statistic)
    rng = np.random.default_rng(confirmation_seed)
    pair = pairs[choice.pair_index]
    y0, y1 = (_scalar(mechanism, d, n_conf, rng, statistic) for d in pair)
    cell0, cell1 = choice.cells.cell_of(y0), choice.cells.cell_of(y1)
    k0, k1 = (np.bincount(c, minlength=choice.cells.cells) for c in (cell0, cell1))
    (k_num, num_cells), (k_den, den_cells) = ((k0, cell0), (k1, cell1))[::1 if choice.order == "d0/d1" else -1]
    if choice.certificate == "cells":
        cert = certify_cells(claim, k_num, k_den, n_conf, alpha)
    else:
        cert = certify_tangent(claim, choice.renyi_order, choice.log_t, num_cells, den_cells, alpha)
    verdict = REFUTED if cert.excess > 0 else NOT_REFUTED
    stated = _power(claim, choice, cert, k_den, n_conf, alpha) if verdict == NOT_REFUTED else None
    first, second = ("d0", "d1") if choice.order == "d0/d1" else ("d1", "d0")
    notes = []
    if verdict == NOT_REFUTED:
        notes.append(f"binned Renyi bound on pair {choice.pair_index} ({choice.cells.describe()}): estimate "
                     f"{cert.name} = {cert.estimate:.4g}, certified {cert.value:.4g} at order {cert.order:.4g}")
    n_each = max(MIN_SAMPLES, n_sel // len(pairs))
    return Finding(
        verdict=verdict,
        auditor=NAME,
        power=stated,
        statistic=Statistic(cert.name, cert.estimate, (cert.value, math.inf), "lower-bound"),
        confidence=confidence,
        samples=n_each * len(pairs) + n_conf,
        witness={
            "pair": [pair[0], pair[1]],
            "pair_index": choice.pair_index,
            "order": f"D_alpha(M({first}) || M({second}))",
            "alpha": cert.order,
            "cells": choice.cells.cells,
            "binning": choice.cells.describe(),
            "counts": {first: k_num.tolist(), second: k_den.tolist()},
            "confirmation_samples": n_conf,
            "certificate": choice.certificate,
            **({"probability_bounds": {f"{first}_lower": cert.p_lo.tolist(), f"{second}_upper": cert.q_hi.tolist()}}
               if choice.certificate == "cells" else
               {"tangent_means": {f"E_{first}[u] lower": float(cert.p_lo[0]),
                                  f"E_{second}[v] upper": float(cert.q_hi[0])}}),
        },
        notes=notes,
        parameters={
            "selection_samples": n_each * len(pairs),
            "confirmation_samples": n_conf,
            "selection_fraction": selection_fraction,
            "bounds": "clopper-pearson, Bonferroni over 2k cell bounds",
        },
    )
