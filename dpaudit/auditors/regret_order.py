"""Orderings of algorithms by regret (:class:`~dpaudit.core.claims.RegretOrder`): pairwise one-sided tests
at matched seeds, Holm-corrected.

Every series of the subject (an algorithm, or the difference of two) is simulated on one environment
with one seed, so all series see the same rewards in every run (common random numbers: the
environment and the policy draw from separate streams, :func:`dpaudit.simulate`), and the runs pair
up. With ``at="grid"`` a policy that is started with its horizon and uses it is run once per recorded
round T, started with T (:mod:`dpaudit.bandits.horizons`; ``reading="figure"`` reads one run instead, as a
paper's figure plots regret against t); ``at="final"`` needs only the run of the last horizon. For
each pair (a, b) the claim orders, E[R(a)] <= E[R(b)], and each tested round T (the last
recorded one, or every one with ``at="grid"``), the per-run differences D = R_T(a) - R_T(b) are
tested one-sided, "E[D] <= 0" against "E[D] > 0", by

- ``test="t"`` (the default): the paired t-test. Its level is asymptotic (the central limit theorem
  on bounded differences); the validity test in the test suite measures its false refutations on a
  pair with exactly equal expected regret and different laws.
- ``test="bounded"``: the p-value of the empirical Bernstein / Hoeffding bound on the range D must
  lie in, known before the simulation (each series' regret range, :func:`regret_range`;
  :func:`dpaudit.stats.bounded_mean_pvalue`), valid for every law of D. It pays for the whole range
  (T times the largest gap), so it resolves only differences of that order or many runs; use it where
  the regret is a sizeable share of its range.

Holm's procedure over all pairs and rounds controls the family-wise error at the audit's level; the
claim is refuted when some pair is rejected (a claimed-lower series has higher regret).

The same tests in the other direction (E[D] < 0, also Holm-corrected) say which pairs of the claimed
order the runs confirm; the record lists both, so a not-refuted ordering that the runs cannot resolve
reads as such.

**Power** of a "not refuted" (the record's ``power``): the smallest mean difference E[D] at the pair and round
shown (the one nearest to refutation) that the audit would have refuted with probability 0.9 with the same runs,
for differences of the same spread. Holm's first step is Bonferroni, so that test rejects once its lower bound on
E[D] at alpha / (number of tests) passes 0. The bound lies a radius r below the runs' mean (for the t-test,
t_(1 - alpha / tests) s / sqrt(n); for the bounded test, the empirical Bernstein or Hoeffding radius at the runs'
variance), and a fresh mean lies about E[D] with standard error s / sqrt(n), so the test refutes with probability
0.9 once E[D] >= r + z s / sqrt(n), z the 0.9 normal quantile (asymptotic, as the t-test's level is). The record
states it in regret units and as a share of the claimed-higher series' mean regret at that round; it is infinite
when that exceeds the largest difference the series' regret ranges allow (too few runs for the bounded test).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.claims import Claim, RegretOrder
from ..core.results import NOT_REFUTED, POWER_PROBABILITY, REFUTED, Statistic, power
from ..stats import bounded_mean_lower, bounded_mean_pvalue, holm
from .base import Auditor, Finding, Support
from .regret_bound import REGRET_KINDS, regret_range

#: the pairwise tests an ordering audit may use (module docstring)
ORDER_TESTS = ("t", "bounded")


@dataclass(frozen=True)
class Difference:
    """A series that is the regret of one algorithm minus another's, run by run (e.g. the cost of
    privacy: ``Difference("linucb-ldp", "linucb")``). Each side is anything a series may be: a policy,
    a registry name, or (name, params)."""

    minuend: Any
    subtrahend: Any


@dataclass(frozen=True)
class OrderSubject:
    """The series of an ordering audit and the environment they share: ``series`` maps each label to
    a policy or a :class:`Difference` of two (policies already constructed)."""

    series: Mapping[str, Any]
    environment: Any
    name: str
    cache_dir: Any = None

    def policies(self) -> list[Any]:
        """The distinct policies to simulate, in first-use order."""
        seen: dict[int, Any] = {}
        for value in self.series.values():
            for policy in (value.minuend, value.subtrahend) if isinstance(value, Difference) else (value,):
                seen.setdefault(id(policy), policy)
        return list(seen.values())


class RegretOrderAuditor(Auditor):
    """Tries to refute a claimed ordering by regret (module docstring); always ends in a verdict."""

    name = "regret-order"
    statistical = True

    def supports(self, subject: Any, claim: Claim) -> Support:
        if not isinstance(claim, RegretOrder):
            return Support.no(f"the regret-order auditor tests RegretOrder claims; got {claim.kind}")
        if not isinstance(subject, OrderSubject):
            return Support.no("an ordering is audited on labelled algorithms sharing one environment")
        missing = [label for label in claim.labels if label not in subject.series]
        if missing:
            return Support.no(f"the ordering names series the audit does not have: {', '.join(missing)}")
        return Support.decides()

    def audit(self, subject: OrderSubject, claim: RegretOrder, *, confidence: float, seed: np.random.SeedSequence,
              horizons: np.ndarray, runs: int, regret: str = "pseudo", test: str = "t", reading: str = "horizon",
              workers: int = 1, **_: Any) -> Finding:
        """Simulate every series with the same seed and test each claimed pair (module docstring)."""
        from ..bandits.cache import cached_simulate
        from ..bandits.horizons import check_reading, describe, simulate_horizons

        self.require(subject, claim)
        if regret not in REGRET_KINDS:
            raise ValueError(f"regret must be one of {', '.join(REGRET_KINDS)}, got {regret!r}")
        if test not in ORDER_TESTS:
            raise ValueError(f"test must be one of {', '.join(ORDER_TESTS)}, got {test!r}")
        grid = np.asarray(horizons, dtype=np.int64)
        # only the last round is claimed at="final": its run of horizon T is the one run to T, whose other
        # rounds are the plot's curves; at="grid" claims every round, each from runs of its own horizon
        # for a horizon-aware policy (dpaudit.bandits.horizons)
        reading = "figure" if claim.at == "final" else check_reading(reading)

        def simulate(policy: Any) -> Any:
            return simulate_horizons(
                lambda T, rounds: cached_simulate(policy, subject.environment, T, runs, seed, grid=rounds,
                                                  workers=workers, directory=subject.cache_dir), policy, grid, reading)

        sims = {id(p): simulate(p) for p in subject.policies()}
        first = next(iter(sims.values()))
        grid = first.grid
        if claim.at == "final":
            readings: dict[str, Any] = {"rounds": f"one run of horizon {int(grid[-1])} per series, the claim being "
                                                  "about its last round", "why": "at='final'"}
        else:
            readings = {getattr(p, "name", type(p).__name__): describe(p, sims[id(p)], reading)
                        for p in subject.policies()}

        def per_run(policy: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            sim = sims[id(policy)]
            values = sim.pseudo_regret if regret == "pseudo" else sim.regret
            low, width, _ = regret_range(sim.means, sim.grid, regret)
            return values, low, low + width

        series: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for label in claim.labels:
            value = subject.series[label]
            if isinstance(value, Difference):
                (xa, la, ha), (xb, lb, hb) = per_run(value.minuend), per_run(value.subtrahend)
                series[label] = (xa - xb, la - hb, ha - lb)
            else:
                series[label] = per_run(value)
        points = np.arange(grid.size) if claim.at == "grid" else np.array([grid.size - 1])
        pairs = claim.pairs()
        alpha = 1 - confidence
        # p-values of "E[R(a) - R(b)] <= 0" (against: a has more regret) and of ">= 0" (the order confirmed)
        against = np.ones((len(pairs), points.size))
        toward = np.ones((len(pairs), points.size))
        diff_mean = np.zeros((len(pairs), points.size))
        ranges = []
        for i, (a, b) in enumerate(pairs):
            (xa, la, ha), (xb, lb, hb) = series[a], series[b]
            d = (xa - xb)[:, points]
            low, high = (la - hb)[points], (ha - lb)[points]
            diff_mean[i] = d.mean(axis=0)
            ranges.append((d, low, np.where(high > low, high - low, 1.0)))
            against[i], toward[i] = _pvalues(d, low, ranges[-1][2], test)
        rejected = holm(against, alpha)
        confirmed = holm(toward, alpha)
        tests = against.size
        i, j = np.unravel_index(int(np.argmin(against)), against.shape)
        a, b = pairs[i]
        d, low, width = ranges[i]
        # the reported bound is at Holm's first step (Bonferroni), the level the worst pair is tested at
        lcb = _lower(d[:, j], float(low[j]), float(width[j]), alpha / tests, test)
        T = int(grid[points[j]])
        violations = [[pairs[k][0], pairs[k][1], int(grid[points[m]])] for k, m in zip(*np.nonzero(rejected))]
        confirmed_pairs = sorted({pairs[k] for k in np.nonzero(confirmed.all(axis=1))[0]})
        notes = list(dict.fromkeys(n for sim in sims.values() for n in sim.notes))
        where = "the last recorded round" if claim.at == "final" else f"each of {points.size} recorded rounds"
        notes.append(f"{len(pairs)} ordered pairs tested at {where} (T = {int(grid[-1])}), {runs} runs per series on "
                     f"common random numbers; one-sided {TEST_NAMES[test]}, Holm over {tests} tests at family-wise "
                     f"level {alpha:.3g}")
        if violations:
            shown = "; ".join(f"{va} > {vb} at T = {vt}" for va, vb, vt in violations[:6])
            notes.append(f"the claimed order fails for {len({(va, vb) for va, vb, _ in violations})} pair(s): {shown}")
        notes.append(f"{len(confirmed_pairs)} of {len(pairs)} claimed pairs confirmed in the claimed direction "
                     f"(Holm at {alpha:.3g})" + ("" if len(confirmed_pairs) == len(pairs) else
                                                 "; the others are not resolved by these runs"))
        finals = {label: float(values[:, -1].mean()) for label, (values, _, _) in series.items()}
        stated = None
        if not violations:  # the bound's radius below the mean, unclipped: what the power is made of
            radius = float(diff_mean[i, j]) - _lower(d[:, j], float(low[j]), float(width[j]), alpha / tests, test,
                                                     clip=False)
            stated = _order_power(d[:, j], radius, float(low[j] + width[j]), float(series[b][0][:, points[j]].mean()),
                                  (a, b), T)
        return Finding(
            REFUTED if violations else NOT_REFUTED, self.name,
            Statistic(f"E[R({a}) - R({b})] at T={T}", float(diff_mean[i, j]), (lcb, math.inf), "lower-bound"),
            confidence=confidence, samples=runs,
            witness={"pair": [a, b], "T": T, "mean_difference": float(diff_mean[i, j]), "lower_bound": lcb,
                     "p_value": float(against[i, j]), "violations": violations,
                     "method": f"one-sided {TEST_NAMES[test]} at matched seeds, Holm"},
            notes=notes, power=stated,
            parameters={"grid": grid, "runs": runs, "regret": regret, "at": claim.at, "test": test, "reading": readings,
                        "pairs": [list(p) for p in pairs],
                        "p_values": against, "p_values_confirming": toward, "final_mean": finals,
                        "confirmed": [list(p) for p in confirmed_pairs],
                        "simulations": [sim.summary() for sim in sims.values()]},
            plot_data=_plot_data(claim, grid, series, violations),
        )


TEST_NAMES = {"t": "paired t-tests (asymptotic level)",
              "bounded": "bounded-range tests (empirical Bernstein / Hoeffding, valid for every law)"}


def _pvalues(d: np.ndarray, low: np.ndarray, width: np.ndarray, test: str) -> tuple[np.ndarray, np.ndarray]:
    """p-values of "E[D] <= 0" and of "E[D] >= 0" for each column of ``d`` (runs x points)."""
    if test == "bounded":
        z = np.clip((d - low) / width, 0.0, 1.0)
        c = (0.0 - low) / width
        return bounded_mean_pvalue(z, c), bounded_mean_pvalue(1 - z, 1 - c)
    from scipy import stats

    n = d.shape[0]
    mean, sd = d.mean(axis=0), d.std(axis=0, ddof=1)
    # a difference with no spread is decided by its sign (identical series: p = 1 both ways)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0) * math.sqrt(n), 0.0)
    against = np.where(sd > 0, stats.t.sf(t, n - 1), np.where(mean > 0, 0.0, 1.0))
    toward = np.where(sd > 0, stats.t.cdf(t, n - 1), np.where(mean < 0, 0.0, 1.0))
    return against, toward


def _lower(d: np.ndarray, low: float, width: float, level: float, test: str, clip: bool = True) -> float:
    """A one-sided lower confidence bound on E[D] at ``level``, by the audit's test (``clip=False``: the bounded
    test's bound before it is clipped at the range's lower end, whose distance from the mean is the radius the
    power needs)."""
    if test == "bounded":
        z = np.clip((d - low) / width, 0.0, 1.0)
        # E[D] >= low always: a bound below the range's lower end says no more than low does (and a range
        # of zero width, whose width is a placeholder, knows D = low exactly)
        bound = float(bounded_mean_lower(z[:, None], level)[0][0])
        return float(low + width * (max(0.0, bound) if clip else bound))
    from scipy import stats

    n = d.size
    return float(d.mean() - stats.t.ppf(1 - level, n - 1) * d.std(ddof=1) / math.sqrt(n))


def _order_power(d: np.ndarray, radius: float, top: float, higher: float, pair: tuple[str, str], T: int) -> dict:
    """The mean difference E[R(a) - R(b)] the audit refutes with probability 0.9 (module docstring): the lower
    bound's ``radius`` below the runs' mean ``d`` plus z standard errors; infinite beyond ``top``, the largest
    difference the two series' ranges allow. ``higher`` is b's mean regret."""
    from scipy.stats import norm

    n = d.size
    value = radius + float(norm.ppf(POWER_PROBABILITY)) * float(d.std(ddof=1)) / math.sqrt(n)
    a, b = pair
    if not value <= top:
        return power("mean regret difference", math.inf, f"no mean difference E[R({a}) - R({b})] within the range "
                     f"the regrets allow (up to {top:.4g} at T = {T}) is refuted with probability "
                     f"{POWER_PROBABILITY:g} by {n} runs")
    share = f" ({value / higher:.3g} of R({b})'s mean)" if higher > 0 else ""
    return power("mean regret difference", value, f"R({a}) above R({b}) by {value:.4g} on average at T = {T}"
                 f"{share}, with the runs' spread, is refuted with probability {POWER_PROBABILITY:g} by {n} runs")


# pragma: no mutate start (data for the report's plots, not a verdict's statistics)
def _plot_data(claim: RegretOrder, grid: np.ndarray, series: Mapping[str, Any], violations: list) -> dict[str, Any]:
    means, lowers, uppers = [], [], []
    for label in claim.labels:
        values = series[label][0]
        mean = values.mean(axis=0)
        se = values.std(axis=0, ddof=1) / math.sqrt(values.shape[0]) if values.shape[0] > 1 else 0 * mean
        means.append(mean)
        lowers.append(mean - 2 * se)
        uppers.append(mean + 2 * se)
    return {"kind": "regret-order", "grid": grid, "labels": list(claim.labels), "mean": means, "lower": lowers,
            "upper": uppers, "band": "mean +- 2 standard errors", "groups": [list(g) for g in claim.groups],
            "at": claim.at, "violations": [[a, b] for a, b, _ in violations]}
# pragma: no mutate end


__all__ = ["ORDER_TESTS", "Difference", "OrderSubject", "RegretOrderAuditor"]
