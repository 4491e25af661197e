"""Regret rates: R = O(v^a log^k v), fitted on a geometric grid of v and tested against a.

**Data.** For v = T: the mean regret over runs at the recorded rounds, from one simulation to the
largest horizon for an anytime policy, or from one run of each fitted horizon T for a policy started
with T (:mod:`dpaudit.bandits.horizons`); the fit uses the grid's *asymptotic part*, the rounds in the upper
``asymptotic`` share (default 1/2) of its log-range, i.e. T >= sqrt(T_min T_max) by default. For v = eps, d,
K, n or B: one simulation per value (the same seed for every value: common random numbers), the mean
regret at the horizon; every value is fitted (the values given are the range the claim is about).
At least six fitted values are required.

**Fit.** Weighted least squares (statsmodels) of log(mean R / log^k v) on log v, weights the inverse
of the delta-method variance of log(mean R) (standard error / mean, squared); the stated log factor
is divided out (log T; |log v| for the other variables, so eps < 1 is handled). The slope is the
fitted exponent. Its confidence interval is the WLS interval widened to also contain the percentile
interval of a bootstrap over runs (resampling whole runs keeps the correlation between the grid
points of one run, which the WLS interval ignores).

**Decision.** The claim is an upper bound. For v = T, d, K, n (growing), it is refuted when the
slope's lower confidence bound exceeds ``exponent + margin``; for v = eps (the regime eps -> 0) when
the slope's upper confidence bound is below ``exponent - margin``. ``margin`` (default 0.1, stated in
the record) covers log factors the claim does not state and the pre-asymptotic curvature on a finite
grid. The fitted exponent is reported for every claim, refuted or not.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..bandits.horizons import describe, reading_of
from ..bandits.simulation import PER_HORIZON
from ..core.claims import Claim, RegretRate
from ..core.results import NOT_REFUTED, POWER_PROBABILITY, REFUTED, Statistic, power
from .base import Auditor, Finding, RegretSubject, Support
from .regret_bound import REGRET_KINDS

MIN_POINTS = 6
DEFAULT_MARGIN = 0.1
DEFAULT_ASYMPTOTIC = 0.5
DEFAULT_BOOTSTRAP = 1000
#: variables whose asymptotic regime is small values (the claim bounds growth as they fall)
SHRINKING = ("eps",)


#: the spawn-key entry of the bootstrap's stream (simulation blocks use 0, 1, 2, ...)
BOOTSTRAP_STREAM = 2**31 - 1


def wls_slopes(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least-squares slopes of each row of ``y`` on ``x`` (weights ``w``), vectorised."""
    xm = np.sum(w * x) / np.sum(w)
    ym = (y * w).sum(axis=-1, keepdims=True) / np.sum(w)
    return ((y - ym) * w * (x - xm)).sum(axis=-1) / np.sum(w * (x - xm) ** 2)


class RegretRateAuditor(Auditor):
    """Fits the regret's exponent and tries to refute a claimed rate (module docstring); always ends
    in a verdict (``refuted`` at the audit's confidence, or ``not-refuted``)."""

    name = "regret-rate"
    statistical = True

    def supports(self, subject: Any, claim: Claim) -> Support:
        if not isinstance(claim, RegretRate):
            return Support.no(f"the regret-rate auditor tests RegretRate claims; got {claim.kind}")
        if not isinstance(subject, RegretSubject):
            return Support.no("a regret rate is audited on a policy and an environment")
        if claim.variable != "T" and subject.make is None:
            return Support.no(f"a rate in {claim.variable} needs a (policy, environment) per value")
        return Support.decides()

    def audit(self, subject: RegretSubject, claim: RegretRate, *, confidence: float, seed: np.random.SeedSequence,
              horizons: np.ndarray, runs: int, regret: str = "pseudo", values: Any = None,
              margin: float = DEFAULT_MARGIN, asymptotic: float = DEFAULT_ASYMPTOTIC,
              bootstrap: int = DEFAULT_BOOTSTRAP, reading: str = "horizon", workers: int = 1, **_: Any) -> Finding:
        """Simulate, fit and decide (module docstring)."""
        self.require(subject, claim)
        if regret not in REGRET_KINDS:
            raise ValueError(f"regret must be one of {', '.join(REGRET_KINDS)}, got {regret!r}")
        if not (math.isfinite(margin) and margin >= 0):
            raise ValueError(f"margin must be a finite number >= 0, got {margin!r}")
        if not 0 < asymptotic <= 1:
            raise ValueError(f"asymptotic must be in (0, 1], got {asymptotic!r}")
        if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 100:
            raise ValueError(f"bootstrap must be an integer >= 100, got {bootstrap!r}")
        # the simulation takes the audit's seed itself, so that a bound and a rate about the same simulation
        # share it (dpaudit.bandits.cache); the bootstrap draws from a child no simulation block uses
        sim_seed = seed
        boot_seed = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, BOOTSTRAP_STREAM))
        notes: list[str] = []
        if claim.variable == "T":
            if values is not None:
                raise ValueError("values is for rates in eps, d, K, n or B; a rate in T is fitted on the recorded "
                                 "rounds (horizons)")
            rounds = np.asarray(horizons, dtype=np.int64)
            grid = rounds.astype(float)
            lo, hi = math.log(grid[0]), math.log(grid[-1])
            keep = np.log(grid) >= lo + (1 - asymptotic) * (hi - lo) - 1e-12
            # a horizon-aware policy is run once per fitted round (dpaudit.bandits.horizons); an anytime one once to
            # the last round, recording every round (so a bound and a rate about it share the simulation)
            per_horizon = reading_of(subject.policy, reading)[0] == PER_HORIZON
            rule = (f"rounds in the upper {asymptotic:g} of the grid's log-range (T >= {grid[keep][0]:g}) "
                    + ("each from its own run of horizon T (common random numbers)" if per_horizon else
                       f"of one simulation to T = {int(grid[-1])}"))
        else:
            grid = _values(values, claim.variable)
            keep = np.ones(grid.size, dtype=bool)
            horizon = int(horizons[-1])
            rule = (f"every given value of {claim.variable}, one simulation each to T = {horizon} with the same "
                    "seed (common random numbers)")
        log_v = np.abs(np.log(grid))
        if claim.log_power:
            usable = log_v > 1.0  # log^k v is divided out only where log v > 1
            if (keep & ~usable).any():
                notes.append(f"values with |log {claim.variable}| <= 1 left out of the fit (log^{claim.log_power:g} "
                             "is divided out)")
            keep &= usable
        if keep.sum() < MIN_POINTS:
            raise ValueError(f"a rate fit needs at least {MIN_POINTS} values of {claim.variable} in its fitted range; "
                             f"got {int(keep.sum())} ({rule}): give more horizons or values")
        if claim.variable == "T":
            sim = subject.simulate_horizons(rounds[keep] if per_horizon else rounds, runs, sim_seed, reading, workers)
            data = np.full((runs, grid.size), np.nan)
            data[:, np.isin(rounds, sim.grid)] = sim.pseudo_regret if regret == "pseudo" else sim.regret
            notes += sim.notes
            reading_record = describe(subject.policy, sim, reading)
        else:
            sims = [subject.simulate(horizon, runs, sim_seed, grid=np.array([horizon]), value=float(v),
                                     workers=workers) for v in grid]
            data = np.stack([(s.pseudo_regret if regret == "pseudo" else s.regret)[:, -1] for s in sims], axis=1)
            notes += list(dict.fromkeys(n for s in sims for n in s.notes))
            reading_record = {"rounds": f"one run of horizon {horizon} per value of {claim.variable}",
                              "why": "the regret at the horizon of each run"}
        x_values, data = grid[keep], data[:, keep]
        mean = data.mean(axis=0)
        if (mean <= 0).any():
            return self._zero(claim, x_values, mean, runs, confidence, rule, notes, margin)
        factor = log_v[keep] ** claim.log_power
        x = np.log(x_values)
        y = np.log(mean / factor)
        se = data.std(axis=0, ddof=1) / math.sqrt(runs)
        var = (se / mean) ** 2
        var = np.maximum(var, 1e-6 * max(float(var.max()), 1e-12))  # a point with no spread gets a finite weight
        w = 1 / var
        alpha = 1 - confidence
        top = np.arange(x.size) >= x.size // 2 if x.size >= 2 * MIN_POINTS else np.ones(x.size, dtype=bool)
        fit, top_fit = _wls(x, y, w, alpha), _wls(x[top], y[top], w[top], alpha)
        # bootstrap over runs: multinomial counts per resample, the same weights
        rng = np.random.default_rng(boot_seed)
        slopes, top_slopes = [], []
        for size in _chunks(bootstrap, max(1, 5_000_000 // max(runs, 1))):
            counts = rng.multinomial(runs, np.full(runs, 1 / runs), size=size)
            logs = np.log(np.maximum(counts @ data / runs, 1e-300) / factor)
            slopes.append(wls_slopes(x, logs, w))
            top_slopes.append(wls_slopes(x[top], logs[:, top], w[top]))
        slopes, top_slopes = np.concatenate(slopes), np.concatenate(top_slopes)
        lower, upper, boot = _bounds(fit, slopes, alpha)
        top_lower, top_upper, _ = _bounds(top_fit, top_slopes, alpha)
        slope = fit["slope"]
        shrinking = claim.variable in SHRINKING
        if shrinking:
            refuted = max(upper, top_upper) < claim.exponent - margin
            gap = claim.exponent - margin - max(upper, top_upper)
        else:
            refuted = min(lower, top_lower) > claim.exponent + margin
            gap = min(lower, top_lower) - claim.exponent - margin
        if top_fit["slope"] < slope - 2 * margin or top_fit["slope"] > slope + 2 * margin:
            notes.append(f"the slope over the upper half of the fitted range ({top_fit['slope']:.3f}) differs from "
                         f"the whole range's ({slope:.3f}) by more than twice the margin: the regret may not be in its "
                         "asymptotic regime at these horizons or values")
        stated = None if refuted else _rate_power(claim, margin, shrinking, runs, (slope, lower, upper, slopes),
                                                  (top_fit["slope"], top_lower, top_upper, top_slopes))
        direction = ("upper bound below exponent - margin" if shrinking else "lower bound above exponent + margin")
        notes.append(f"fitted exponent {slope:.3f} in [{lower:.3f}, {upper:.3f}] (one-sided bounds at "
                     f"{confidence:g} each: WLS and a bootstrap over runs, the wider); claimed {claim.exponent:g} with "
                     f"margin {margin:g}; refuted only when the slope's {direction}, over the fitted range and over "
                     "its upper half "
                     f"({top_fit['slope']:.3f} in [{top_lower:.3f}, {top_upper:.3f}])")
        return Finding(
            REFUTED if refuted else NOT_REFUTED, self.name,
            Statistic(f"fitted exponent of {claim.variable}", slope, (lower, upper), "two-sided"),
            confidence=confidence, samples=runs * (1 if claim.variable == "T" else len(grid)),
            witness={"slope": slope, "lower": lower, "upper": upper, "claimed": claim.exponent, "margin": margin,
                     "excess": gap, "wls_interval": [fit["lower"], fit["upper"]], "bootstrap_interval": boot,
                     "intercept": fit["intercept"],
                     "upper_half": {"slope": top_fit["slope"], "lower": top_lower, "upper": top_upper,
                                    "from": float(x_values[top][0])}},
            notes=notes,
            parameters={"variable": claim.variable, "log_power": claim.log_power, "rule": rule, "runs": runs,
                        "regret": regret, "reading": reading_record, "margin": margin, "bootstrap": bootstrap,
                        "grid": grid,
                        "fitted": x_values, "mean": mean, "stderr": se, "weights": w,
                        "residuals": fit["residuals"], "one_sided_level": alpha},
            plot_data={"kind": "regret-rate", "x": x_values, "mean": mean, "stderr": se, "slope": slope,
                       "intercept": fit["intercept"], "claimed": claim.exponent, "log_power": claim.log_power,
                       "variable": claim.variable},
            power=stated,
        )

    def _zero(self, claim, x_values, mean, runs, confidence, rule, notes, margin) -> Finding:
        notes.append("the mean regret is <= 0 at some fitted value: no exponent can be fitted, and no growth refutes "
                     "the rate")
        return Finding(NOT_REFUTED, self.name, Statistic(f"fitted exponent of {claim.variable}", None, None,
                                                         "two-sided"),
                       confidence=confidence, samples=runs, witness={"claimed": claim.exponent, "margin": margin},
                       notes=notes, parameters={"variable": claim.variable, "rule": rule, "fitted": x_values,
                                                "mean": mean, "margin": margin})


def _rate_power(claim: RegretRate, margin: float, shrinking: bool, runs: int, *fits) -> dict:
    """The exponent a not-refuted rate audit refutes with probability 0.9 (module docstring); ``fits``: (slope,
    lower, upper, bootstrap slopes) over the fitted range and over its upper half."""
    z = 1.6448536269514722  # the normal 0.95 quantile: each of the two fits clears with probability 0.95
    if shrinking:
        value = min(claim.exponent - margin - (upper - slope) - z * float(np.std(boot)) for slope, _, upper, boot
                    in fits)
        where = f"below {claim.exponent - margin:g}"
    else:
        value = max(claim.exponent + margin + (slope - lower) + z * float(np.std(boot)) for slope, lower, _, boot
                    in fits)
        where = f"above {claim.exponent + margin:g}"
    return power("exponent", value, f"a regret of the same spread growing as {claim.variable}^{value:.3g} "
                 f"({where}, the claim's exponent with its margin) is refuted with probability "
                 f"{POWER_PROBABILITY:g} by {runs} runs", POWER_PROBABILITY)


def _values(values: Any, variable: str) -> np.ndarray:
    if values is None:
        raise ValueError(f"a rate in {variable} needs values=[...] (at least {MIN_POINTS}, a geometric grid)")
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size < MIN_POINTS:
        raise ValueError(f"a rate fit needs at least {MIN_POINTS} values of {variable}, got {values!r}")
    if not np.isfinite(v).all() or (v <= 0).any() or (np.diff(v) <= 0).any():
        raise ValueError(f"values of {variable} must be positive, finite and increasing, got {values!r}")
    return v


def _wls(x: np.ndarray, y: np.ndarray, w: np.ndarray, alpha: float) -> dict[str, Any]:
    import statsmodels.api as sm

    result = sm.WLS(y, sm.add_constant(x), weights=w).fit()
    low, high = result.conf_int(alpha=2 * alpha)[1]  # a two-sided 1 - 2 alpha interval: one-sided bounds at alpha
    return {"slope": float(result.params[1]), "intercept": float(result.params[0]), "lower": float(low),
            "upper": float(high), "residuals": np.asarray(result.resid)}


def _bounds(fit: dict[str, Any], slopes: np.ndarray, alpha: float) -> tuple[float, float, list[float]]:
    """One-sided bounds at ``alpha`` each: the wider of the WLS interval and the bootstrap percentiles."""
    boot_lo, boot_hi = (float(v) for v in np.quantile(slopes, [alpha, 1 - alpha]))
    return min(fit["lower"], boot_lo), max(fit["upper"], boot_hi), [boot_lo, boot_hi]


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


__all__ = ["DEFAULT_MARGIN", "MIN_POINTS", "RegretRateAuditor", "wls_slopes"]
