"""Explicit regret bounds: E[R_T] <= f(T), or P(R_T <= f(T)) >= 1 - p, at every T of a grid.

The subject's regret is recorded at every T of the grid over R independent runs
(:func:`dpaudit.simulate`): read from one run to the largest horizon for an anytime policy, and from
one run of each horizon T for a policy that is started with its horizon and uses it
(:mod:`dpaudit.bandits.horizons`; ``reading="figure"`` reads one run whatever the policy, as a figure plots
it). Per run the regret at round T lies in a range known before the simulation, so the bounds below
are rigorous for every law of the regret, without a normal approximation:

- pseudo-regret (the default): in [0, T Delta], Delta the instance's largest gap when every run
  faces the same instance, else 1 (means lie in [0, 1]);
- realised regret: in [T (mu* - 1), T mu*] for a fixed instance (rewards lie in [0, 1]), else
  [-T, T].

**Expectation** (``probability`` None): a one-sided lower confidence bound on E[R_T] at each grid
point, the largest of three bounds at a third of the point's level each (so their maximum holds at the
point's level; :func:`dpaudit.stats.nonnegative_mean_lower`): the larger of the empirical Bernstein bound
(Maurer & Pontil 2009, Thm 4) and Hoeffding's on the range rescaled to [0, 1], which pay for the whole
range and are strong when the regret fills a sizeable share of it; Anderson's bound from the empirical
distribution with a DKW band, and the betting bound of Waudby-Smith & Ramdas, which need only the range's
lower end, so a regret that is a small share of T Delta in every run is bounded as tightly as its own
spread allows. The grid's multiplicity is paid by Bonferroni. Refuted when the lower bound exceeds f(T)
at some grid point.

**High probability** (``probability=p``): the number of runs with R_T > f(T) at each grid point, and
its one-sided Clopper-Pearson lower bound on P(R_T > f(T)), Bonferroni over the grid; refuted when
the lower bound exceeds p.

The margin is reported at the worst grid point: lower bound / f(T) (expectation; > 1 refutes) or
lower bound / p (high probability; > 1 refutes).

**Power** of a "not refuted" (the record's ``power``): the smallest violation the audit would have refuted with
probability 0.9 with the same runs and grid. Expectation: the factor v = E[R_T] / f(T) at the round where the
claim is closest to refutation, for a law whose regret above the range's lower end is k times the observed one.
Anderson's and the betting bound scale with the regret (the range's bound can only add to them), and a fresh
sample's bound lies about its observed value with the spread of a difference of two sample means, so the audit
refutes at round T with probability >= 0.9 once k (L - z sqrt(2) s / sqrt(n)) >= f(T) - low, L the round's
lower bound (above low) from those two, s the runs' standard deviation, z the 0.9 normal quantile; the smallest
such k over the rounds gives v (infinite where no round's bound clears its spread: too few runs for any
violation). High probability: the exceedance probability P(R_T > f(T)) whose binomial count passes the
Clopper-Pearson refutation threshold with probability 0.9 (exact).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.claims import Claim, RegretBound
from ..core.results import NOT_REFUTED, POWER_PROBABILITY, REFUTED, Statistic, power
from ..stats import (
    NONNEGATIVE_BOUNDS,
    binomial_lower,
    binomial_power,
    bonferroni,
    nonnegative_mean_bounds,
)
from .base import Auditor, Finding, RegretSubject, Support

REGRET_KINDS = ("pseudo", "realised")


def regret_range(means: np.ndarray, grid: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray, str]:
    """(low, width, how) of the per-run regret at each round of ``grid`` (module docstring)."""
    t = grid.astype(float)
    fixed = bool(np.isfinite(means).all() and (means == means[:1]).all())
    if kind == "pseudo":
        gap = float(means[0].max() - means[0].min()) if fixed else 1.0
        how = (f"pseudo-regret in [0, {gap:.6g} T] (the instance's largest gap)" if fixed
               else "pseudo-regret in [0, T] (means in [0, 1])")
        return np.zeros_like(t), gap * t, how
    if fixed:
        best = float(means[0].max())
        return t * (best - 1), t, f"realised regret in [T (mu* - 1), T mu*], mu* = {best:.6g} (rewards in [0, 1])"
    return -t, 2 * t, "realised regret in [-T, T] (rewards in [0, 1])"


def bound_parameters(subject: RegretSubject, means: np.ndarray) -> dict[str, Any]:
    """The named parameters a bound's function may take: the subject's, then K and the gaps of a fixed
    instance where not given."""
    params = dict(subject.params)
    params.setdefault("K", int(means.shape[1]))
    if "gaps" not in params and np.isfinite(means).all() and (means == means[:1]).all():
        params["gaps"] = means[0].max() - means[0]
    return params


class RegretBoundAuditor(Auditor):
    """Tries to refute an explicit regret bound from simulated runs (module docstring); always ends in
    a verdict (``refuted`` at the audit's confidence, or ``not-refuted``)."""

    name = "regret-bound"
    statistical = True

    def supports(self, subject: Any, claim: Claim) -> Support:
        if not isinstance(claim, RegretBound):
            return Support.no(f"the regret-bound auditor tests RegretBound claims; got {claim.kind}")
        if not isinstance(subject, RegretSubject) or subject.policy is None:
            return Support.no("a regret bound is audited on one policy and environment")
        return Support.decides()

    def audit(self, subject: RegretSubject, claim: RegretBound, *, confidence: float, seed: np.random.SeedSequence,
              horizons: np.ndarray, runs: int, regret: str = "pseudo", reading: str = "horizon", workers: int = 1,
              **_: Any) -> Finding:
        """Simulate ``runs`` runs at ``horizons`` (module docstring) and test the bound at every one of them."""
        from ..bandits.horizons import describe

        self.require(subject, claim)
        if regret not in REGRET_KINDS:
            raise ValueError(f"regret must be one of {', '.join(REGRET_KINDS)}, got {regret!r}")
        sim = subject.simulate_horizons(np.asarray(horizons, dtype=np.int64), runs, seed, reading, workers)
        grid = sim.grid
        values = sim.pseudo_regret if regret == "pseudo" else sim.regret
        low, width, how = regret_range(sim.means, grid, regret)
        slack = 1e-9 * np.maximum(width, 1.0)
        if ((values < low - slack) | (values > low + width + slack)).any():
            raise ValueError(f"the simulated {regret} regret left its range ({how}): the environment's rewards or "
                             "means are not in [0, 1]")
        f = claim.evaluate(grid, bound_parameters(subject, sim.means))
        alpha = 1 - confidence
        level = bonferroni(alpha, len(grid))
        mean = values.mean(axis=0)
        parameters = {"grid": grid, "runs": runs, "regret": regret, "range": how, "level_per_point": level,
                      "reading": describe(subject.policy, sim, reading), "simulation": sim.summary()}
        notes = list(sim.notes)
        if claim.probability is None:
            return self._expectation(claim, grid, values, low, width, f, mean, alpha, level, parameters, notes)
        return self._high_probability(claim, grid, values, f, mean, alpha, level, parameters, notes)

    def _expectation(self, claim, grid, values, low, width, f, mean, alpha, level, parameters, notes) -> Finding:
        n = values.shape[0]
        bounds = nonnegative_mean_bounds(values, low, width, level)
        lcb, which = bounds.max(axis=0), bounds.argmax(axis=0)
        lcb = np.where(width > 0, lcb, low)  # a range of no width: the regret is its low end
        ratio = _ratio(lcb, f)
        j = int(np.argmax(ratio))
        refuted = bool((lcb > f).any())
        scaled = bounds[1:].max(axis=0) - low  # Anderson's and the betting bound scale with the regret
        stated = None if refuted else _expectation_power(values, grid, low, width, f, mean, scaled)
        if not refuted:
            notes.append(f"E[R_T] <= f(T) not refuted at {len(grid)} rounds (the largest of the range, Anderson and "
                         f"betting lower bounds at level {level:.3g} each, Bonferroni); at T = {grid[j]} the lower "
                         f"bound is {ratio[j]:.3g} of f(T)")
        return Finding(
            REFUTED if refuted else NOT_REFUTED, self.name,
            Statistic(f"E[R_T] at T={int(grid[j])}", float(mean[j]), (float(lcb[j]), math.inf), "lower-bound"),
            confidence=1 - alpha, samples=n,
            witness={"T": int(grid[j]), "mean": float(mean[j]), "lower_bound": float(lcb[j]), "bound": float(f[j]),
                     "margin": float(ratio[j]),
                     "method": f"the largest of three lower bounds at a third of the level each, here "
                               f"{NONNEGATIVE_BOUNDS[int(which[j])]}; Bonferroni over the grid"},
            notes=notes, parameters=parameters,
            plot_data={"kind": "regret-bound", "grid": grid, "mean": mean, "lower": lcb, "bound": f,
                       "description": claim.description},
            power=stated,
        )

    def _high_probability(self, claim, grid, values, f, mean, alpha, level, parameters, notes) -> Finding:
        n = values.shape[0]
        p = float(claim.probability)
        counts = (values > f).sum(axis=0)
        lower = binomial_lower(counts, n, level)
        ratio = lower / p
        j = int(np.argmax(ratio))
        refuted = bool((lower > p).any())
        stated = None if refuted else _exceedance_power(n, p, level)
        if not refuted:
            notes.append(f"P(R_T > f(T)) <= {p:g} not refuted at {len(grid)} rounds (Clopper-Pearson at level "
                         f"{level:.3g} each, Bonferroni); with {n} runs an exceedance probability below about "
                         f"{p + math.sqrt(-math.log(level) / (2 * n)):.2g} may go undetected")
        return Finding(
            REFUTED if refuted else NOT_REFUTED, self.name,
            Statistic(f"P(R_T > f(T)) at T={int(grid[j])}", float(counts[j] / n), (float(lower[j]), math.inf),
                      "lower-bound"),
            confidence=1 - alpha, samples=n,
            witness={"T": int(grid[j]), "count": int(counts[j]), "n": n, "lower_bound": float(lower[j]),
                     "probability": p, "bound": float(f[j]), "margin": float(ratio[j]),
                     "method": "Clopper-Pearson, Bonferroni over the grid"},
            notes=notes, parameters=parameters,
            plot_data={"kind": "regret-bound", "grid": grid, "mean": mean, "lower": None, "bound": f,
                       "quantile": np.quantile(values, 1 - p, axis=0), "description": claim.description},
            power=stated,
        )


def _expectation_power(values, grid, low, width, f, mean, scaled) -> dict:
    """The violation factor E[R_T] / f(T) the expectation audit refutes with probability 0.9 (module docstring);
    ``scaled``: the bounds that scale with the regret (Anderson's, betting), above the range's low end."""
    from scipy.stats import norm

    n = values.shape[0]
    above = np.maximum(values - low, 0.0)
    spread = above.std(axis=0, ddof=1) if n > 1 else np.full(above.shape[1], np.inf)
    clear = scaled - norm.ppf(POWER_PROBABILITY) * math.sqrt(2) * spread / math.sqrt(n)
    room = f - low
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where((clear > 0) & (width > 0) & (room > 0), room / clear, math.inf)
    j = int(np.argmin(k))
    if not np.isfinite(k[j]):
        return power("factor", math.inf, f"no violation of E[R_T] <= f(T) is refuted with probability "
                     f"{POWER_PROBABILITY:g} by {n} runs: at no round does the lower bound clear its own spread")
    factor = float(k[j] * (mean[j] - low[j]) / room[j])
    return power("factor", factor, f"a regret whose mean is {factor:.3g} times f(T) at T = {int(grid[j])} (the runs' "
                 f"regret scaled) is refuted with probability {POWER_PROBABILITY:g} by {n} runs")


def _exceedance_power(n: int, p: float, level: float) -> dict:
    """The exceedance probability P(R_T > f(T)) the high-probability audit refutes with probability 0.9: its
    count must exceed the largest count whose Clopper-Pearson lower bound is at most p (module docstring)."""
    q = float(binomial_power(n, [p], level, POWER_PROBABILITY)[0])
    if not math.isfinite(q):
        return power("exceedance probability", math.inf, f"no exceedance probability is refuted by {n} runs")
    return power("exceedance probability", q, f"P(R_T > f(T)) = {q:.3g} (claimed at most {p:g}) is refuted with "
                 f"probability {POWER_PROBABILITY:g} by {n} runs at any round")


def _ratio(lower: np.ndarray, f: np.ndarray) -> np.ndarray:
    """lower / f where f > 0; +inf where f <= 0 < lower - f (a violated non-positive bound), -inf otherwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(f > 0, lower / np.where(f > 0, f, 1.0), np.where(lower > f, math.inf, -math.inf))


__all__ = ["REGRET_KINDS", "RegretBoundAuditor", "regret_range"]
