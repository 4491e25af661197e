"""Statistical tail auditor: sub-Gaussian, sub-exponential and tail-bound claims about a random variable.

**Statistical path** (samples only): exceedance counts on a grid of t with one-sided
Clopper-Pearson lower bounds on P(|Y| >= t), the grid's multiplicity paid by Bonferroni, and the
grid chosen on a separate selection half of the samples. An MGF claim is tested at small |lam|
only (|lam| sd <= 1): E exp(lam Y) at larger lam is driven by events too rare to sample, so the
record says that claims about it cannot be refuted from samples. A centred claim is audited on
Y = X - (sample mean of the confirmation half); this estimate is part of the stated limitation.

**Power** of a "not refuted" tail-bound claim (the record's ``power``): the smallest excess of P(|Y| >= t) over
the claimed bound, at one of the confirmed t, that confirmation refutes with probability 0.9: at each confirmed
t, the exceedance probability whose binomial count reaches the Clopper-Pearson refutation threshold with
probability 0.9 (exact), less the bound; the smallest over the confirmed t. When the selection half saw no positive
outcome there is no t to confirm: the figure is then the excess of a point mass at t over f(t) that selection
sees and confirmation refutes with probability 0.9, the largest over t (:func:`_unseen_power`, exact from the
binomial laws). (MGF claims state none yet.)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.claims import Claim, TailBound, TailClaim
from ..core.results import NOT_REFUTED, POWER_PROBABILITY, REFUTED, Statistic, power
from ..stats import binomial_lower, binomial_power, bonferroni
from .base import Auditor, Finding, Support, TailSubject
from .tail_plots import sample_cgf_plot, sample_tail_plot


class StatisticalTailAuditor(Auditor):
    """Tries to refute a tail claim from samples of the variable (module docstring); always ends in
    a verdict (``refuted`` at the audit's confidence, or ``not-refuted``)."""

    name = "statistical-tail"
    statistical = True

    def supports(self, subject: TailSubject, claim: Claim) -> Support:
        if not isinstance(claim, TailClaim):
            return Support.no(f"tail auditors test sub-Gaussian, sub-exponential and tail-bound claims; got "
                              f"{claim.kind}")
        return Support.decides()

    def audit(self, subject: TailSubject, claim: Claim, *, samples: int, confidence: float,
              seed: np.random.SeedSequence, grid_points: int = 64, **_: Any) -> Finding:
        """Try to refute a tail claim from ``samples`` draws of the subject's sampler (module docstring)."""
        self.require(subject, claim)
        sampler = subject.sampler
        select_seed, confirm_seed = seed.spawn(2)
        half = samples // 2
        x_sel = _draw(sampler, half, np.random.default_rng(select_seed))
        x_conf = _draw(sampler, samples - half, np.random.default_rng(confirm_seed))
        alpha = 1 - confidence
        if claim.centred:
            x_sel = x_sel - x_sel.mean()
            x_conf = x_conf - x_conf.mean()
        if isinstance(claim, TailBound):
            return _tailbound_statistical(claim, x_sel, x_conf, alpha, grid_points)
        return _mgf_statistical(claim, x_sel, x_conf, alpha, grid_points)


def _draw(sampler, size: int, rng: np.random.Generator) -> np.ndarray:
    x = np.asarray(sampler(size, rng), dtype=float)
    if x.shape != (size,):
        raise ValueError(f"the sampler must return an array of shape ({size},), got {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("the sampler returned NaN or infinite values")
    return x


def _exceed(x: np.ndarray, t: np.ndarray, two_sided: bool) -> np.ndarray:
    y = np.sort(np.abs(x) if two_sided else x)
    return len(y) - np.searchsorted(y, t, side="left")


def _tailbound_statistical(claim: TailBound, x_sel, x_conf, alpha, grid_points) -> Finding:
    """Selection: the candidates t are the distinct quantiles of the positive outcomes Y of the selection
    half (|Y| for a two-sided claim; Y = 0 is no evidence for any t > 0) at the 4 grid_points upper levels
    geomspace(min(5 / m+, 1/2), 0.99) (from about five exceedances to the body); each is scored by the
    Clopper-Pearson lower bound at level alpha on the share of the half with Y >= t, minus the claimed
    bound, and the grid_points best are confirmed on the other half at level alpha / (their number)."""
    y = np.abs(x_sel) if claim.two_sided else x_sel
    positive = np.sort(y[y > 0])
    if len(positive) == 0:
        finding = _tail_stat_result(NOT_REFUTED, claim, None, 0, len(x_conf), None, None, alpha,
                                    ["no positive outcome"])
        finding.power = _unseen_power(claim, len(x_sel), len(x_conf), alpha)
        return finding
    # candidates from the body to the far tail: upper quantiles down to about 5 exceedances
    levels = 1 - np.geomspace(min(5 / len(positive), 0.5), 0.99, 4 * grid_points)
    t = np.unique(np.quantile(positive, levels))
    n_sel = len(x_sel)
    score = binomial_lower(_exceed(x_sel, t, claim.two_sided), n_sel, alpha) - claim.evaluate(t)
    chosen = t[np.argsort(-score)[:grid_points]]
    level = bonferroni(alpha, len(chosen))
    counts = _exceed(x_conf, chosen, claim.two_sided)
    n = len(x_conf)
    lower = binomial_lower(counts, n, level)
    f = claim.evaluate(chosen)
    j = int(np.argmax(lower - f))
    verdict = REFUTED if lower[j] > f[j] else NOT_REFUTED
    notes = []
    if verdict == NOT_REFUTED:
        notes.append(f"no tail probability exceeded the bound at {len(chosen)} values of t (Bonferroni level "
                     f"{level:.3g}); tails below about {-math.log(level) / n:.2g} are not resolvable with {n} samples")
    finding = _tail_stat_result(verdict, claim, float(chosen[j]), int(counts[j]), n, float(lower[j]), float(f[j]),
                                alpha, notes)
    if verdict == NOT_REFUTED:
        finding.power = _excess_power(chosen, f, n, level, claim.two_sided)
    finding.plot_data = sample_tail_plot(x_conf, claim, chosen=chosen, lower=lower, level=level, alpha=alpha,
                                         witness_t=float(chosen[j]), refuted=verdict == REFUTED)
    return finding


def _excess_power(chosen: np.ndarray, f: np.ndarray, n: int, level: float, two_sided: bool) -> dict:
    """The excess over the bound that confirmation refutes with probability 0.9 (module docstring)."""
    excess = binomial_power(n, f, level, POWER_PROBABILITY) - f
    j = int(np.argmin(excess))
    best, where = float(excess[j]), float(chosen[j]) if np.isfinite(excess[j]) else None
    event = "|Y| >= t" if two_sided else "Y >= t"
    if where is None:
        return power("excess", math.inf, f"no excess of P({event}) over the bound is refuted with probability "
                     f"{POWER_PROBABILITY:g} by {n} samples at the confirmed t")
    return power("excess", best, f"P({event}) above the bound by {best:.3g} at t = {where:.6g} is refuted with "
                 f"probability {POWER_PROBABILITY:g} by {n} confirmation samples")


#: the t at which a bound is read for a power figure without a confirmed t: 10^-9 to 10^9
UNSEEN_GRID = np.geomspace(1e-9, 1e9, 181)


def _unseen_power(claim: TailBound, m: int, n: int, alpha: float) -> dict:
    """The power of an audit whose selection half (``m`` outcomes) saw no positive one (module docstring): for a
    point mass of probability p at some t > 0 (Y <= 0 otherwise), selection sees it with probability
    1 - (1 - p)^m, then confirms t alone at ``alpha`` on ``n`` outcomes: refuted with probability
    (1 - (1 - p)^m) P(Binomial(n, p) >= k*), k* the least count whose Clopper-Pearson bound passes f(t). The
    smallest such p refuted with probability 0.9, less f(t), is the excess at t; the figure is the largest over
    the bound's values on :data:`UNSEEN_GRID` (so it holds at any t there)."""
    from scipy.stats import binom

    with np.errstate(all="ignore"):
        f = claim.evaluate(UNSEEN_GRID)
    f = np.unique(f[(f >= 0) & (f < 1)])
    event = "|Y| >= t" if claim.two_sided else "Y >= t"
    if f.size == 0:
        return power("excess", math.inf, f"the bound is at least 1 at every t on the grid: no P({event}) exceeds it")
    counts = np.arange(n + 1)
    lower = binomial_lower(counts, n, alpha)
    first = np.searchsorted(lower, f, side="right")  # the least count whose bound exceeds f (lower rises with it)
    reachable = first <= n
    excess = np.full(f.shape, math.inf)
    if reachable.any():
        fr, kr = f[reachable], first[reachable]

        def refuted(p):
            return -np.expm1(m * np.log1p(-p)) * binom.sf(kr - 1, n, p)

        lo, hi = fr.copy(), np.ones_like(fr)  # refuted rises with p; at p = 1 it is 1
        for _ in range(60):
            mid = (lo + hi) / 2
            ok = refuted(mid) >= POWER_PROBABILITY
            lo, hi = np.where(ok, lo, mid), np.where(ok, mid, hi)
        excess[reachable] = hi - fr
    worst = float(np.max(excess))
    if not math.isfinite(worst):
        return power("excess", math.inf, f"some value of the bound is not refuted by any count of {n} confirmation "
                     f"samples at level {alpha:.3g}: no excess of P({event}) over it is refuted with probability "
                     f"{POWER_PROBABILITY:g}")
    return power("excess", worst, f"P({event}) above the bound by {worst:.3g} at any t, as a point mass at t (Y <= 0 "
                 f"otherwise), is refuted with probability {POWER_PROBABILITY:g}: seen by the {m} selection samples "
                 f"and confirmed by {n}")


def _tail_stat_result(verdict, claim, t, count, n, lower, bound, alpha, notes) -> Finding:
    return Finding(
        verdict, StatisticalTailAuditor.name, Statistic("P(|Y| >= t)" if claim.two_sided else "P(Y >= t)",
                                                        None if count is None else count / max(n, 1),
                                                        (lower, math.inf) if lower is not None else None,
                                                        "lower-bound"),
        confidence=1 - alpha, samples=2 * n,
        witness={"t": t, "count": count, "n": n, "lower_bound": lower, "bound": bound}, notes=notes,
    )


def _mgf_statistical(claim, x_sel, x_conf, alpha, grid_points) -> Finding:
    """E exp(lam Y) at |lam| sd <= 1 with a bound that holds for unbounded Y: none exists without a
    tail assumption, so the sample mean's confidence bound is taken on the bounded variable
    min(exp(lam Y), c), whose mean is a lower bound on the MGF (truncation only lowers it); c is
    the 1 - 1/n quantile of exp(lam Y) on the selection half, and the empirical Bernstein bound
    for [0, c]-valued variables gives the lower confidence bound. The orders considered are
    lam = +-geomspace(0.02, 1, grid_points // 2) / sd (sd the selection half's standard deviation, the
    claim's s when that is 0), those inside the claim's range |lam| < lam_max; the quarter of them that
    the selection half puts furthest above the claim are confirmed, Bonferroni over them."""
    s, lam_max = claim.mgf_bound
    sd = float(np.std(x_sel)) or s
    lam = np.concatenate([np.geomspace(0.02, 1.0, grid_points // 2), -np.geomspace(0.02, 1.0, grid_points // 2)]) / sd
    lam = lam[np.abs(lam) < lam_max]
    n_sel, n = len(x_sel), len(x_conf)
    caps = np.quantile(np.exp(np.outer(lam, x_sel)), 1 - 1 / n_sel, axis=1)

    def lower_mgf(x, lam, caps, level):
        # Maurer & Pontil's empirical Bernstein bound for [0, c]-valued variables (2009, Thm 11)
        values = np.minimum(np.exp(np.outer(lam, x)), caps[:, None])
        m = len(x)
        log_term = math.log(2 / level)
        return (values.mean(axis=1) - np.sqrt(2 * values.var(axis=1, ddof=1) * log_term / m)
                - 7 * caps * log_term / (3 * (m - 1)))

    claimed = np.exp(lam**2 * s**2 / 2)
    score = lower_mgf(x_sel, lam, caps, bonferroni(alpha, len(lam))) - claimed
    chosen = np.argsort(-score)[: max(1, grid_points // 4)]
    level = bonferroni(alpha, len(chosen))
    lows = lower_mgf(x_conf, lam[chosen], caps[chosen], level)
    j = int(np.argmax(lows - claimed[chosen]))
    verdict = REFUTED if lows[j] > claimed[chosen][j] else NOT_REFUTED
    notes = [f"tested at |lam| sd <= 1 only ({len(chosen)} orders, empirical Bernstein bounds at level {level:.3g}): "
             "the MGF at larger lam is driven by events too rare to sample, so samples cannot refute the claim there"]
    return Finding(
        verdict, StatisticalTailAuditor.name,
        Statistic("E exp(lam Y)", float(lows[j]), (float(lows[j]), math.inf), "lower-bound"),
        confidence=1 - alpha, samples=2 * n,
        witness={"lambda": float(lam[chosen][j]), "mgf_lower": float(lows[j]), "claimed": float(claimed[chosen][j])},
        notes=notes,
        plot_data=sample_cgf_plot(x_conf, claim, lam=lam, chosen=lam[chosen], mgf_lower=lows, level=level,
                                  witness_lam=float(lam[chosen][j]), refuted=verdict == REFUTED),
    )


__all__ = ["StatisticalTailAuditor"]
