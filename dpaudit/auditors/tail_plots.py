"""Plot data of the tail auditors, drawn by :mod:`dpaudit.reports.plots`:

- ``"tail"``: the tail the verdict rests on (a law's exact P(|Y| >= t), or the empirical one of the
  confirmation samples with a DKW band and the auditor's own lower bounds) against the claimed bound
  (or the tail an MGF claim implies), the witness t marked;
- ``"tail-cgf"``: the cumulant function K(lam) = log E exp(lam Y) (exact, or empirical with the
  auditor's lower bounds) against the claimed lam^2 s^2 / 2, the witness lambda marked.

Arrays are kept to a few hundred points: plot data travels with a finding between processes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import logsumexp

from ..core.claims import SubExponential, SubGaussian, TailBound
from ..core.laws import Law

GRID_POINTS = 241
#: a lattice law's jump points are added to the grid (so its steps are exact) when there are at most this many
MAX_JUMPS = 240
#: where a tail counts as underflowed (the exact auditor's own floor)
UNDERFLOW = 1e-300
#: the grid turns geometric (and the t axis logarithmic) when it reaches this many times the median |Y|
LOG_T_SPAN = 200.0
#: a heavy tail is drawn up to this many times its median |Y| (the note says how far the audit checked)
MAX_T_SPAN = 1e8


def implied_label(claim: SubGaussian | SubExponential) -> str:
    if isinstance(claim, SubGaussian):
        return f"implied by sub-Gaussian(sigma = {claim.sigma:g})"
    return f"implied by sub-exponential(nu = {claim.nu:g}, b = {claim.b:g})"


def _quantity(two_sided: bool, centred: bool, centre: str = "E[X]") -> str:
    if centred:
        return ("P(|Y| >= t)" if two_sided else "P(Y >= t)") + f", Y = X - {centre}"
    return "P(|X| >= t)" if two_sided else "P(X >= t)"


def bound_values(claim: TailBound, t: np.ndarray) -> np.ndarray:
    """The claimed bound on the grid; NaN where the user's function fails (at t = 0, say): a plot must
    not turn a decided audit into an error."""
    with np.errstate(all="ignore"):
        try:
            return claim.evaluate(t)
        except Exception:  # noqa: BLE001 - retried point by point below
            pass
        out = np.full(t.shape, np.nan)
        for i, value in enumerate(t):
            try:
                out[i] = claim.evaluate(np.array([value]))[0]
            except Exception:  # noqa: BLE001 - that point is left out of the plot, with a note
                continue
        return out


def _first_below(tail: Callable[[np.ndarray], np.ndarray], level: float, start: float, limit: float) -> float:
    """The first t of a geometric ladder from ``start`` where ``tail`` falls below ``level`` (one
    vectorised call), or ``limit``."""
    if not start < limit:
        return limit
    ladder = start * 1.25 ** np.arange(int(math.log(limit / start) / math.log(1.25)) + 2)
    ladder = np.minimum(ladder, limit)
    with np.errstate(all="ignore"):
        below = np.asarray(tail(ladder), dtype=float) < level
    return float(ladder[np.argmax(below)]) if below.any() else limit


def _grid(end: float, median: float, extra: np.ndarray) -> tuple[np.ndarray, bool]:
    """(t grid from 0 to ``end`` with the ``extra`` points in it, whether it is geometric): geometric
    from median / 100 when ``end`` is far out in a heavy tail, where a linear grid would crush the body."""
    log_t = median > 0 and end > LOG_T_SPAN * median
    grid = np.geomspace(median / 100, end, GRID_POINTS) if log_t else np.linspace(0.0, end, GRID_POINTS)
    extra = extra[np.isfinite(extra) & (extra >= (grid[0] if log_t else 0.0)) & (extra <= end)]
    return np.unique(np.concatenate([grid, extra])), log_t


def _witness_label(t: float, value: float, bound: float, refuted: bool, what: str) -> str:
    if refuted:
        return f"witness t = {t:.4g}: {what} {value:.3g} > bound {bound:.3g}"
    ratio = value / bound if bound > 0 else math.inf
    return f"closest: {what} / bound = {ratio:.3g} at t = {t:.4g}"


def law_tail_plot(law: Law, claim: TailBound, closed: Callable[[np.ndarray], np.ndarray], shift: float, *,
                  witness_t: float | None, refuted: bool, t_max: float) -> dict[str, Any]:
    """The law's exact tail ``closed`` (P(|Y| >= t) or P(Y >= t), Y = X - ``shift``) against the claimed
    bound: up to 1.5 times the witness t when refuted (and at least to where the tail falls below 1%),
    else over the range the audit checked, ending where the law's tail underflows."""
    sd = math.sqrt(law.var) if law.var > 0 else 1.0
    start = 1e-3 * sd
    median = _first_below(closed, 0.5, start, max(t_max, start))
    if refuted and witness_t is not None:
        end = max(1.5 * witness_t, _first_below(closed, 1e-2, start, max(t_max, start)))
    else:
        end = min(t_max, 1.05 * _first_below(closed, UNDERFLOW, start, max(t_max, start)))
        end = max(min(end, MAX_T_SPAN * median), 1.05 * (witness_t or 0.0))
    extra = [] if witness_t is None else [witness_t]
    if law.lattice:  # T steps at |k - shift| (k - shift one-sided): with those in the grid, the steps are exact
        ks = np.arange(math.ceil(shift - end), math.floor(shift + end) + 1) if end < 1e9 else np.array([])
        if 0 < ks.size <= 2 * MAX_JUMPS:
            jumps = np.abs(ks - shift) if claim.two_sided else ks - shift
            jumps = np.unique(jumps[jumps > 0])
            extra += list(jumps) if jumps.size <= MAX_JUMPS else []
    t, log_t = _grid(end, median, np.asarray(extra, dtype=float))
    with np.errstate(all="ignore"):
        tail = np.asarray(closed(t), dtype=float)
    if claim.two_sided:  # P(Y >= 0) + P(Y <= 0) counts an atom at 0 twice; P(|Y| >= 0) is 1
        tail = np.where(t == 0, 1.0, tail)
    bound = bound_values(claim, t)
    data: dict[str, Any] = {
        "kind": "tail", "t": t, "tail": tail, "tail_label": f"exact tail of {law.name}", "step": law.lattice,
        "bound": bound, "bound_label": f"claimed bound: {claim.description}", "log_t": log_t,
        "quantity": _quantity(claim.two_sided, claim.centred), "witness_t": witness_t,
        "zero_reason": "beyond the support or below double precision", "notes": [],
    }
    if witness_t is not None:
        with np.errstate(all="ignore"):
            value = float(closed(np.array([witness_t]))[0])
        at = float(bound_values(claim, np.array([witness_t]))[0])
        data["witness_value"] = value
        data["witness_label"] = _witness_label(witness_t, value, at, refuted, "tail")
    if t_max > end * 1.001:
        data["notes"].append(f"checked up to t = {t_max:.4g}")
    return data


def sample_tail_plot(x_conf: np.ndarray, claim: TailBound, *, chosen: np.ndarray, lower: np.ndarray, level: float,
                     alpha: float, witness_t: float | None, refuted: bool) -> dict[str, Any] | None:
    """The empirical tail of the confirmation samples from 0 to where they run out, with a DKW band
    at the audit's confidence, and the auditor's Clopper-Pearson lower bounds at the t it tested
    (what the verdict rests on) against the claimed bound; None without a positive outcome."""
    y = np.sort(np.abs(x_conf) if claim.two_sided else x_conf)
    n = len(y)
    positive = y[y > 0]
    if n == 0 or positive.size == 0:
        return None
    end = 1.02 * max(float(y[-1]), witness_t or 0.0)
    t, log_t = _grid(end, float(np.median(positive)), np.asarray([] if witness_t is None else [witness_t]))
    empirical = (n - np.searchsorted(y, t, side="left")) / n
    # Dvoretzky-Kiefer-Wolfowitz (Massart's constant): the whole empirical cdf within eps, jointly
    eps = math.sqrt(math.log(2 / alpha) / (2 * n))
    data: dict[str, Any] = {
        "kind": "tail", "t": t, "tail": empirical, "tail_label": f"empirical tail ({n} confirmation samples)",
        "step": True, "band_lower": np.maximum(empirical - eps, 0.0), "band_upper": np.minimum(empirical + eps, 1.0),
        "band_label": f"DKW band, {1 - alpha:.4g} jointly (context only)",
        "lower_t": np.asarray(chosen, dtype=float), "lower": np.asarray(lower, dtype=float),
        "lower_label": f"Clopper-Pearson lower bounds at the {len(chosen)} t tested (level {level:.3g} each)",
        "bound": bound_values(claim, t), "bound_label": f"claimed bound: {claim.description}", "log_t": log_t,
        "quantity": _quantity(claim.two_sided, claim.centred, "sample mean"), "witness_t": witness_t,
        "zero_reason": "beyond the largest sample", "notes": [],
    }
    if witness_t is not None:
        j = int(np.argmin(np.abs(chosen - witness_t)))
        at = float(bound_values(claim, np.array([witness_t]))[0])
        data["witness_value"] = float(lower[j])
        data["witness_label"] = _witness_label(witness_t, float(lower[j]), at, refuted, "lower bound")
    return data


def _claimed_cgf(claim: SubGaussian | SubExponential, lam: np.ndarray) -> np.ndarray:
    s, lam_max = claim.mgf_bound
    return np.where(np.abs(lam) < lam_max, lam**2 * s**2 / 2, np.nan)


def _claimed_label(claim: SubGaussian | SubExponential) -> str:
    if isinstance(claim, SubGaussian):
        return f"claimed lam^2 sigma^2 / 2, sigma = {claim.sigma:g}"
    return f"claimed lam^2 nu^2 / 2 for |lam| < 1/b, nu = {claim.nu:g}, b = {claim.b:g}"


def law_cgf_plot(law: Law, claim: SubGaussian | SubExponential, shift: float, *, witness_lam: float | None,
                 refuted: bool, lam_checked: float | None) -> dict[str, Any] | None:
    """K(lam) = log E exp(lam (X - shift)) of the law against the claimed lam^2 s^2 / 2, for |lam| up to
    1.5 times the witness lambda when refuted, else over the range the audit checked (within the
    claimed range)."""
    _, lam_max = claim.mgf_bound
    sd = math.sqrt(law.var) if law.var > 0 else 1.0
    if refuted and witness_lam:
        reach = 1.5 * abs(witness_lam)
    else:
        reach = lam_checked or 1.5 * abs(witness_lam or 0.0) or 1.0 / sd
    lo, hi = law.cgf_domain
    edge = min(hi, -lo)
    reach = min(reach, lam_max, 1.05 * edge)  # beyond the divergence K is infinite: nothing to see
    if not (math.isfinite(reach) and reach > 0):
        return None
    extra = np.array([witness_lam]) if witness_lam is not None else np.array([])
    lam = np.unique(np.concatenate([np.linspace(-reach, reach, GRID_POINTS), extra]))
    with np.errstate(all="ignore"):
        k = np.asarray(law.cgf(lam), dtype=float) - lam * shift
    data: dict[str, Any] = {
        "kind": "tail-cgf", "lam": lam, "cgf": k, "cgf_label": f"cumulant function K(lam) of {law.name}",
        "claimed": _claimed_cgf(claim, lam), "claimed_label": _claimed_label(claim),
        "range": lam_max if math.isfinite(lam_max) and lam_max <= reach * 1.001 else None,
        "ylabel": "log E exp(lam Y), Y = X - E[X]" if claim.centred else "log E exp(lam X)",
        "witness_lam": witness_lam, "notes": [],
    }
    if witness_lam is not None:
        with np.errstate(all="ignore"):
            value = float(np.asarray(law.cgf(np.array([witness_lam])), dtype=float)[0] - witness_lam * shift)
        claimed = float(_claimed_cgf(claim, np.array([witness_lam]))[0])
        data["witness_value"] = value
        data["witness_label"] = (f"witness lam = {witness_lam:.4g}: K {value:.3g} > {claimed:.3g}" if refuted else
                                 f"closest: K - claimed = {value - claimed:.3g} at lam = {witness_lam:.4g}")
    if edge <= reach:
        data["notes"].append(f"the MGF diverges at |lam| = {edge:.4g}")
    return data


def sample_cgf_plot(x_conf: np.ndarray, claim: SubGaussian | SubExponential, *, lam: np.ndarray, chosen: np.ndarray,
                    mgf_lower: np.ndarray, level: float, witness_lam: float, refuted: bool) -> dict[str, Any]:
    """The empirical cumulant function of the confirmation samples at the orders the auditor considered,
    its lower confidence bounds (log of the empirical Bernstein bounds) at the orders it tested, against
    the claimed lam^2 s^2 / 2."""
    lam = np.sort(np.asarray(lam, dtype=float))
    n = len(x_conf)
    empirical = np.array([logsumexp(value * x_conf) - math.log(n) for value in lam])
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(mgf_lower > 0, np.log(np.where(mgf_lower > 0, mgf_lower, 1.0)), np.nan)
    claimed = float(_claimed_cgf(claim, np.array([witness_lam]))[0])
    j = int(np.argmin(np.abs(chosen - witness_lam)))
    value = float(lower[j])
    return {
        "kind": "tail-cgf", "lam": lam, "cgf": empirical,
        "cgf_label": f"empirical log E exp(lam Y) ({n} confirmation samples)",
        "claimed": _claimed_cgf(claim, lam), "claimed_label": _claimed_label(claim), "range": None,
        "lower_lam": np.asarray(chosen, dtype=float), "lower": lower,
        "lower_label": f"lower bounds at the {len(chosen)} orders tested (empirical Bernstein, level {level:.3g} each)",
        "ylabel": "log E exp(lam Y), Y = X - sample mean" if claim.centred else "log E exp(lam X)",
        "witness_lam": witness_lam, "witness_value": value,
        "witness_label": (f"witness lam = {witness_lam:.4g}: lower bound {value:.3g} > {claimed:.3g}" if refuted else
                          f"closest: lower bound {value:.3g} against {claimed:.3g} at lam = {witness_lam:.4g}"),
        "notes": [],
    }


__all__ = ["bound_values", "implied_label", "law_cgf_plot", "law_tail_plot", "sample_cgf_plot", "sample_tail_plot"]
