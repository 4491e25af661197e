"""Tail auditors: sub-Gaussian, sub-exponential and tail-bound claims about a random variable.

**Exact path** (a law with cdf/sf, and for MGF claims its cumulant generating function K):

- ``TailBound`` f: the tail T(t) = P(|Y| >= t) (or P(Y >= t)) is non-increasing. For a
  non-increasing f, on an interval (a, b] of t, T(t) <= P(|Y| > a) and f(t) >= f(b), so
  P(|Y| > a) <= f(b) proves the claim on the whole interval; intervals where this fails are
  bisected (for lattice laws this ends at the jump points, where it is the exact check), and any
  grid point with T(t) > f(t) is a witness. t runs from where f first drops below 1 to ``t_max``,
  where f falls below 1e-300 (beyond it both sides underflow double precision; recorded).
- ``SubGaussian`` sigma / ``SubExponential`` (nu, b): with s the claimed parameter, the claim is
  g(lam) = K(lam) - lam^2 s^2 / 2 <= 0 on the claimed range of lam. K is convex with K(0) = 0, so:
  a non-zero mean (of the variable as claimed) or Var > s^2 refutes it at small lam; a cumulant
  function that diverges inside the claimed range refutes it near the divergence; between grid
  orders K lies below its chord, so the largest value of chord - lam^2 s^2 / 2 (a concave quadratic)
  bounds g on each interval, which is bisected until the bound is <= 0 or a grid point has g > 0
  (the witness lam). Near 0 the sign of g is that of Var - s^2 (second order; the grid starts where
  lam^2 s^2 / 2 = 1e-6, far above the 1e-12 error allowed in K, and Var = s^2 is left undecided). For a sub-Gaussian claim the grid ends at 2 max|Y| / s^2 when Y is bounded
  (beyond it K(lam) <= lam max|Y| <= lam^2 s^2 / 2); for unbounded Y it ends at 50 / sd and the
  verdict says so.

K and the tails are evaluated in double precision, so a violation is called only when it exceeds
``tolerance`` (relative, default 1e-9): smaller excesses are ``not-refuted`` with a note.

**Statistical path** (samples only): exceedance counts on a grid of t with one-sided
Clopper-Pearson lower bounds on P(|Y| >= t), the grid's multiplicity paid by Bonferroni, and the
grid chosen on a separate selection half of the samples. An MGF claim is tested at small |lam|
only (|lam| sd <= 1): E exp(lam Y) at larger lam is driven by events too rare to sample, so the
record says that claims about it cannot be refuted from samples. A centred claim is audited on
Y = X - (sample mean of the confirmation half); this estimate is part of the stated limitation.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..claims import Claim, SubExponential, SubGaussian, TailBound
from ..errors import UnsupportedAudit
from ..laws import Law
from ..results import NOT_REFUTED, REFUTED, VERIFIED, AuditResult, Statistic
from ..stats import binomial_lower, bonferroni

DEFAULT_TOLERANCE = 1e-9
TINY = 1e-300
MAX_ROUNDS = 40
MAX_INTERVALS = 20_000  # bisection gives up (undecided) beyond this many open intervals
CGF_ERROR = 1e-12  # absolute error allowed in a double-precision cumulant function (plus ``tolerance`` relative)
# relative error of a cumulant function computed in double precision, as a share of |K(lam)| + |lam mean|:
# centring cancels them (a binomial with 10^10 trials loses ~1e-11 of |lam mean| to it)
CGF_RELATIVE_ERROR = 1e-10


def _check(claim: Claim) -> None:
    if not isinstance(claim, (SubGaussian, SubExponential, TailBound)):
        raise UnsupportedAudit(f"tail auditors test sub-Gaussian, sub-exponential and tail-bound claims; got {claim.kind}")


def _shift(law_mean: float, claim: Claim) -> float:
    return law_mean if claim.centred else 0.0


def _result(verdict: str, claim: Claim, auditor: str, statistic: Statistic, **fields: Any) -> AuditResult:
    return AuditResult(verdict=verdict, claim=claim.to_dict(), auditor=auditor, statistic=statistic, **fields)


# -- exact: tail bounds -----------------------------------------------------------------------------


def _tails(law: Law, shift: float, two_sided: bool):
    """T(t) = P(|Y| >= t) and T_right(t) = P(|Y| > t) for Y = X - shift (or the upper tail only)."""

    def closed(t):
        up = law.at_least(t + shift)
        return up + law.at_most(-t + shift) if two_sided else up

    def open_(t):
        up = law.sf(t + shift)
        if not two_sided:
            return up
        x = -t + shift
        below = law.cdf(np.ceil(x) - 1) if law.lattice else law.cdf(x)
        return up + below

    return closed, open_


def _bound(claim: TailBound, t: np.ndarray) -> np.ndarray:
    values = np.asarray(claim.bound(t), dtype=float)
    if values.shape != t.shape or np.isnan(values).any():
        raise ValueError(f"TailBound: bound must map an array of t to an array of the same shape; got {values.shape}")
    return values


def _t_range(claim: TailBound, sd: float, closed) -> tuple[float, float, bool]:
    """(t_lo, t_max, bound_underflows): from where the bound first drops below 1 to where it falls
    below TINY (doubling search). A bound that never does (a constant, say) is checked up to where
    the law's own tail falls below TINY: beyond, the tail is below TINY <= the bound."""
    t_hi, underflows = max(sd, 1e-12), False
    for _ in range(2000):
        if _bound(claim, np.array([t_hi]))[0] < TINY:
            underflows = True
            break
        t_hi *= 1.5
        if not math.isfinite(t_hi):
            break
    if not underflows:
        t_hi = max(sd, 1e-12)
        for _ in range(2000):
            if closed(np.array([t_hi]))[0] < TINY:
                break
            t_hi *= 1.5
        else:
            raise UnsupportedAudit(f"neither the bound {claim.description} nor the law's tail falls below 1e-300")
    t_lo = t_hi
    while t_lo > 1e-12 * max(sd, 1.0) and _bound(claim, np.array([t_lo]))[0] < 1:
        t_lo /= 2
    return t_lo, t_hi, underflows


def _audit_tailbound_exact(law: Law, claim: TailBound, tolerance: float) -> AuditResult:
    sd = math.sqrt(law.var) if law.var > 0 else 1.0
    shift = _shift(law.mean, claim)
    closed, open_ = _tails(law, shift, claim.two_sided)
    t_lo, t_max, underflows = _t_range(claim, sd, closed)
    grid = np.geomspace(t_lo, t_max, 1025)
    f = _bound(claim, grid)
    if (np.diff(f) > 1e-12 * np.abs(f[:-1])).any():
        raise UnsupportedAudit(f"the bound {claim.description} is not non-increasing in t; the exact tail audit needs it to be")
    # (0, t_lo]: the bound is >= 1 there, so T <= 1 <= f; if t_lo is tiny and the bound still below 1,
    # T(t) <= P(|Y| > 0) on (0, t_lo] and the bound is >= f(t_lo) there
    if f[0] < 1 and float(open_(np.array([0.0]))[0]) > f[0] * (1 + tolerance) + TINY:
        tail = float(open_(np.array([0.0]))[0])
        return _tailbound_result(REFUTED, claim, law, float(t_lo), tail, float(f[0]), t_max, 1, underflows,
                                 note=f"P({'|Y|' if claim.two_sided else 'Y'} > 0) = {tail:.6g} exceeds the bound as t -> 0")
    worst_t, worst_excess = None, -math.inf
    pending = [(grid[i], grid[i + 1]) for i in range(len(grid) - 1)]
    checked = 0
    for _ in range(MAX_ROUNDS):
        if not pending:
            break
        a = np.array([p[0] for p in pending])
        b = np.array([p[1] for p in pending])
        t_b, f_b = closed(b), _bound(claim, b)
        checked += len(b)
        excess = t_b - f_b * (1 + tolerance) - TINY
        i = int(np.argmax(t_b / np.maximum(f_b, TINY)))
        if excess.max() > 0:
            j = int(np.argmax(excess))
            t = float(b[j])
            if law.lattice:  # T is constant up to the next jump point, where the bound is smaller
                up = math.ceil(t + shift) - shift
                down = shift - math.floor(shift - t)
                t = min(up, down) if claim.two_sided else up
            tail, bound = float(closed(np.array([t]))[0]), float(_bound(claim, np.array([t]))[0])
            return _tailbound_result(REFUTED, claim, law, t, tail, bound, t_max, checked, underflows)
        if t_b[i] / max(f_b[i], TINY) > (worst_excess if worst_t is not None else -math.inf):
            worst_t, worst_excess = float(b[i]), float(t_b[i] / max(f_b[i], TINY))
        undecided = open_(a) > f_b
        pending = [(x, math.sqrt(x * y)) for x, y in zip(a[undecided], b[undecided])] + \
                  [(math.sqrt(x * y), y) for x, y in zip(a[undecided], b[undecided])]
        pending = [(x, y) for x, y in pending if y > x * (1 + 1e-12)]
        if len(pending) > MAX_INTERVALS:
            break
    if pending:
        return _tailbound_result(NOT_REFUTED, claim, law, worst_t, None, None, t_max, checked, underflows,
                                 note=f"{len(pending)} intervals of t stayed undecided after bisection")
    t_b = float(closed(np.array([worst_t]))[0])
    return _tailbound_result(VERIFIED, claim, law, worst_t, t_b, float(_bound(claim, np.array([worst_t]))[0]), t_max,
                             checked, underflows)


def _tailbound_result(verdict, claim, law, t, tail, bound, t_max, checked, underflows=True, note=None) -> AuditResult:
    notes = [f"checked for t up to {t_max:.6g}, where the bound falls below 1e-300 (beyond, both sides underflow "
             "double precision)" if underflows else
             f"checked for t up to {t_max:.6g}, where the law's tail falls below 1e-300; the bound stays above it"]
    if note:
        notes.append(note)
    ratio = tail / bound if tail is not None and bound else None
    return _result(
        verdict, claim, "exact-tail", Statistic("tail / bound", ratio, None, "exact"),
        confidence=1.0, samples=0, subject=law.name,
        witness={"t": t, "tail": tail, "bound": bound, "margin": None if tail is None else bound - tail},
        notes=notes, parameters={"t_max": t_max, "points_checked": checked},
    )


# -- exact: MGF claims --------------------------------------------------------------------------


def _mgf_parameters(claim: SubGaussian | SubExponential) -> tuple[float, float]:
    """(s, lam_max): the claimed variance proxy and the end of the claimed range of lam."""
    if isinstance(claim, SubGaussian):
        return claim.sigma, math.inf
    return claim.nu, 1 / claim.b


def _audit_mgf_exact(law: Law, claim: SubGaussian | SubExponential, tolerance: float) -> AuditResult:
    if law.cgf is None:
        raise UnsupportedAudit(f"{law.name} has no cumulant generating function; audit the MGF claim from samples")
    s, lam_max = _mgf_parameters(claim)
    shift = _shift(law.mean, claim)
    mean = law.mean - shift
    sd = math.sqrt(law.var) if law.var > 0 else s

    def g(lam):
        """(g(lam), the centred cgf k, a bound on their double-precision error): one cgf evaluation.
        The error is absolute plus the centring's cancellation of |K(lam)| + |lam shift|."""
        lam = np.asarray(lam, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):
            raw = np.asarray(law.cgf(lam), dtype=float)
            k = raw - lam * shift
            scale = np.abs(raw) + np.abs(lam * shift)
        error = CGF_ERROR + CGF_RELATIVE_ERROR * np.where(np.isfinite(scale), scale, 0.0)
        return k - lam**2 * s**2 / 2, k, error

    def excess_at(lam):
        value, k, error = g(lam)
        return value - tolerance * (np.abs(k) + lam**2 * s**2 / 2) - error

    def refute(candidates, reason):
        lam = np.asarray(candidates, dtype=float)
        ex = excess_at(lam)
        ok = np.isfinite(ex) | (ex == np.inf)
        if (ex[ok] > 0).any():
            j = int(np.argmax(np.where(ok, ex, -np.inf)))  # the clearest witness
            return _mgf_result(REFUTED, claim, law, float(lam[j]), g(lam[j:j + 1]), s, reason)
        return None

    small = np.geomspace(1e-6, 1e-1, 60) / sd
    equality = (f"Var = {law.var:.6g} equals s^2 to within the resolution: as lam -> 0 the claim holds with equality "
                "to second order, and higher cumulants (not computed) decide it")
    if abs(mean) > 1e-12 * sd:
        found = refute(np.sign(mean) * small, f"the variable has mean {mean:.6g} != 0, so g'(0) != 0")
        if found:
            return found
    if law.var > s**2 * (1 + tolerance):
        found = refute(np.concatenate([small, -small]), f"Var = {law.var:.6g} > s^2 = {s**2:.6g}")
        if found:
            return found
    lo, hi = law.cgf_domain
    top = min(lam_max, 50 / sd)
    bounded = all(math.isfinite(v) for v in law.support)
    if isinstance(claim, SubGaussian) and bounded:
        reach = max(abs(law.support[0] - shift), abs(law.support[1] - shift))
        top = max(2 * reach / s**2, 1e-4 / sd) * (1 + 1e-9)
    if hi < lam_max or -lo < lam_max:
        edge = min(hi, -lo)  # the cumulant function diverges inside the claimed range
        found = refute(np.concatenate([edge * (1 - np.geomspace(1e-1, 1e-12, 60)), -edge * (1 - np.geomspace(1e-1, 1e-12, 60))]),
                       f"the MGF diverges at |lam| = {edge:.6g}, inside the claimed range |lam| < {lam_max:.6g}")
        if found:
            return found
        top = min(top, edge)
    # a sub-Gaussian claim about an unbounded variable is checked up to 50 / sd only
    capped = isinstance(claim, SubGaussian) and not bounded and top == 50 / sd
    start = min(math.sqrt(2e-6) / s, top / 10)  # below, g is decided by Var against s^2
    positive = np.geomspace(start, top * (1 - 1e-12), 400)
    worst_lam, worst_value, within = None, -math.inf, False
    for side in (1.0, -1.0):
        lam = side * positive
        found = refute(lam, "g(lam) > 0 at a grid order")
        if found:
            return found
        intervals = list(zip(lam[:-1], lam[1:]))
        for _ in range(MAX_ROUNDS):
            if not intervals:
                break
            a = np.array([x for x, _ in intervals])
            b = np.array([y for _, y in intervals])
            ga, ka, error_a = g(a)
            gb, kb, error_b = g(b)
            k_hi_a = ka + tolerance * np.abs(ka) + error_a
            k_hi_b = kb + tolerance * np.abs(kb) + error_b
            slope = (k_hi_b - k_hi_a) / (b - a)
            # max over [a, b] of k_hi_a + slope (x - a) - x^2 s^2 / 2: at x = slope / s^2, clipped
            x = np.clip(slope / s**2, np.minimum(a, b), np.maximum(a, b))
            bound = k_hi_a + slope * (x - a) - x**2 * s**2 / 2
            j = int(np.argmax(np.maximum(ga, gb)))
            if max(ga[j], gb[j]) > worst_value:
                worst_value = float(max(ga[j], gb[j]))
                worst_lam = float(a[j] if ga[j] >= gb[j] else b[j])
            resolution = tolerance * x**2 * s**2 / 2 + error_a + error_b
            within |= bool(((bound > 0) & (bound <= resolution)).any())
            open_ = bound > resolution
            if open_.sum() > MAX_INTERVALS:
                break
            mids = np.sign(a[open_]) * np.sqrt(a[open_] * b[open_])
            found = refute(mids, "g(lam) > 0 between grid orders")
            if found:
                return found
            intervals = [(x0, m) for x0, m in zip(a[open_], mids)] + [(m, y0) for m, y0 in zip(mids, b[open_])]
            intervals = [(x0, y0) for x0, y0 in intervals if abs(y0 - x0) > 1e-12 * abs(x0)]
        if intervals:
            note = (equality if law.var >= s**2 * (1 - tolerance)
                    else f"{len(intervals)} intervals of lam stayed undecided after bisection")
            return _mgf_result(NOT_REFUTED, claim, law, worst_lam, g(np.array([worst_lam])), s, note, top)
    if capped:
        note = (f"the variable is unbounded: the claim was checked for |lam| <= {top:.6g} (50 / sd); beyond, no "
                "argument covers it")
        return _mgf_result(NOT_REFUTED, claim, law, worst_lam, g(np.array([worst_lam])), s, note, top)
    if law.var >= s**2 * (1 - tolerance):
        return _mgf_result(NOT_REFUTED, claim, law, worst_lam, g(np.array([worst_lam])), s, equality, top)
    if within:
        return _mgf_result(NOT_REFUTED, claim, law, worst_lam, g(np.array([worst_lam])), s,
                           "the claim holds up to the resolution of double precision (relative "
                           f"{tolerance:g}); it may hold with equality", top)
    return _mgf_result(VERIFIED, claim, law, worst_lam, g(np.array([worst_lam])), s, None, top)


def _mgf_result(verdict, claim, law, lam, values, s, note, top=None) -> AuditResult:
    value, k = (float(np.asarray(v).ravel()[0]) for v in values[:2])
    notes = [note] if note else []
    if verdict != REFUTED:
        notes.append("near lam = 0 the sign of g is that of Var - s^2 (second order); between grid orders the convex "
                     "cumulant function lies below its chords")
    return _result(
        verdict, claim, "exact-tail", Statistic("log E exp(lam Y) - lam^2 s^2 / 2", value, None, "exact"),
        confidence=1.0, samples=0, subject=law.name,
        witness={"lambda": lam, "cgf": k, "claimed": lam**2 * s**2 / 2 if lam is not None else None, "margin": -value},
        notes=notes, parameters={"lambda_max_checked": top},
    )


def audit_tail_exact(law: Law, claim: Claim, *, tolerance: float = DEFAULT_TOLERANCE) -> AuditResult:
    """Decide a tail claim from the law's exact cdf/sf and cumulant generating function."""
    _check(claim)
    if isinstance(claim, TailBound):
        return _audit_tailbound_exact(law, claim, tolerance)
    return _audit_mgf_exact(law, claim, tolerance)


# -- statistical --------------------------------------------------------------------------------


def _draw(sampler, size: int, rng: np.random.Generator) -> np.ndarray:
    x = np.asarray(sampler(size, rng), dtype=float)
    if x.shape != (size,):
        raise ValueError(f"the sampler must return an array of shape ({size},), got {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("the sampler returned NaN or infinite values")
    return x


def audit_tail_statistical(sampler, claim: Claim, *, samples: int, confidence: float, seed: np.random.SeedSequence,
                           grid_points: int = 64) -> AuditResult:
    """Try to refute a tail claim from ``samples`` draws of ``sampler(size, rng)`` (see the module)."""
    _check(claim)
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


def _exceed(x: np.ndarray, t: np.ndarray, two_sided: bool) -> np.ndarray:
    y = np.sort(np.abs(x) if two_sided else x)
    return len(y) - np.searchsorted(y, t, side="left")


def _tailbound_statistical(claim: TailBound, x_sel, x_conf, alpha, grid_points) -> AuditResult:
    # selection: the grid of t where the empirical tail most exceeds the bound (relative to noise)
    y = np.abs(x_sel) if claim.two_sided else x_sel
    positive = np.sort(y[y > 0])
    if len(positive) == 0:
        return _tail_stat_result(NOT_REFUTED, claim, None, 0, len(x_conf), None, None, alpha, ["no positive outcome"])
    # candidates from the body to the far tail: upper quantiles down to about 5 exceedances
    levels = 1 - np.geomspace(min(5 / len(positive), 0.5), 0.99, 4 * grid_points)
    t = np.unique(np.quantile(positive, levels))
    n_sel = len(x_sel)
    score = binomial_lower(_exceed(x_sel, t, claim.two_sided), n_sel, alpha) - _bound(claim, t)
    chosen = t[np.argsort(-score)[:grid_points]]
    level = bonferroni(alpha, len(chosen))
    counts = _exceed(x_conf, chosen, claim.two_sided)
    n = len(x_conf)
    lower = binomial_lower(counts, n, level)
    f = _bound(claim, chosen)
    j = int(np.argmax(lower - f))
    verdict = REFUTED if lower[j] > f[j] else NOT_REFUTED
    notes = []
    if verdict == NOT_REFUTED:
        notes.append(f"no tail probability exceeded the bound at {len(chosen)} values of t (Bonferroni level "
                     f"{level:.3g}); tails below about {-math.log(level) / n:.2g} are not resolvable with {n} samples")
    return _tail_stat_result(verdict, claim, float(chosen[j]), int(counts[j]), n, float(lower[j]), float(f[j]), alpha,
                             notes)


def _tail_stat_result(verdict, claim, t, count, n, lower, bound, alpha, notes) -> AuditResult:
    return _result(
        verdict, claim, "statistical-tail", Statistic("P(|Y| >= t)" if claim.two_sided else "P(Y >= t)",
                                                      None if count is None else count / max(n, 1),
                                                      (lower, math.inf) if lower is not None else None, "lower-bound"),
        confidence=1 - alpha, samples=2 * n,
        witness={"t": t, "count": count, "n": n, "lower_bound": lower, "bound": bound}, notes=notes,
    )


def _mgf_statistical(claim, x_sel, x_conf, alpha, grid_points) -> AuditResult:
    """E exp(lam Y) at |lam| sd <= 1 with a bound that holds for unbounded Y: none exists without a
    tail assumption, so the sample mean's confidence bound is taken on the bounded variable
    min(exp(lam Y), c), whose mean is a lower bound on the MGF (truncation only lowers it); c is
    the 1 - 1/n quantile of exp(lam Y) on the selection half, and the empirical Bernstein bound
    for [0, c]-valued variables gives the lower confidence bound."""
    s, lam_max = _mgf_parameters(claim)
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
    notes = [f"tested at |lam| sd <= 1 only ({len(chosen)} orders, empirical Bernstein bounds at level {level:.3g}): the MGF at "
             "larger lam is driven by events too rare to sample, so samples cannot refute the claim there"]
    return _result(
        verdict, claim, "statistical-tail", Statistic("E exp(lam Y)", float(lows[j]), (float(lows[j]), math.inf), "lower-bound"),
        confidence=1 - alpha, samples=2 * n,
        witness={"lambda": float(lam[chosen][j]), "mgf_lower": float(lows[j]), "claimed": float(claimed[chosen][j])},
        notes=notes,
    )


__all__ = ["audit_tail_exact", "audit_tail_statistical"]
