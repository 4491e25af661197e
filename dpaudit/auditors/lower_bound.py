"""The lower-bound auditor: a lower-bound theorem's proof steps, computed exactly, and its bound held
against every implemented algorithm of the stated class on the hard instance.

A :class:`~dpaudit.core.claims.LowerBound` is checked in two parts.

1. **Proof steps.** Every :class:`~dpaudit.core.claims.ProofStep` is evaluated at the claim's parameters
   (both sides, on the step's grid where it quantifies over one). A step fails when its relation is
   violated by more than the rounding tolerance (``tolerance`` times the larger side); the claim is
   then refuted exactly, and the witness names the step, the grid point and both sides. A step that
   holds with equality to within the tolerance is recorded as ``tight``: floats cannot prove it, so
   it leaves the verdict at ``not-refuted``. The theorem's ``conditions`` are checked first; a point
   outside them is an error, not a refutation.

2. **Algorithms of the class.** Each algorithm (a :class:`Contender`) is simulated with
   :func:`dpaudit.simulate` on every member j of the hard instance, ``runs`` runs each (the members'
   seeds are shared by the algorithms: common random numbers). The theorem says that the worst
   member's quantity is at least the bound, so an algorithm *beats* it when the upper confidence
   bound of the quantity is below the bound on every member:

   - ``"regret"``: the pseudo-regret at the horizon, which lies in [0, T * largest gap] on every run,
     so the upper bound is rigorous: the smaller of Hoeffding's and Maurer & Pontil's empirical
     Bernstein bound (2009, Thm 4), each at half the level;
   - ``"error"``: the frequency of the claim's event, with a Clopper-Pearson upper bound.

   No correction over members is needed: if the bound holds, some member j0 has its quantity at
   least the bound, and a false "beats" needs j0's upper bound to fall below its true mean, which
   has probability at most the level. The level is Bonferroni-split over the algorithms only, so the
   false-refutation probability of the whole audit is at most 1 - ``confidence``.

   An algorithm that beats the bound refutes the claim *or* its own privacy: the record says which
   was checked (:attr:`Contender.privacy`, and whether its membership of the class was verified).
   An algorithm known to lie outside the class (``in_class=False``) is simulated for comparison and
   never refutes. An algorithm can be held to the bound at other parameters than the claim's
   (``parameters={"eps": 2 * eps}`` for one whose privacy holds only at 2 eps).

Verdict: ``refuted`` if a step fails or an algorithm of the class beats the bound; ``verified`` if
the claim has no bound to simulate and every step holds strictly; ``not-refuted`` otherwise. A claim
without proof steps audited without algorithms has nothing to check, and is refused.

**Power** of a "not refuted" (the record's ``power``): the smallest shortfall s, as a share of the bound, such
that an algorithm of the class whose quantity is (1 - s) times the bound on every member would be found beating
it with probability 0.9, with the same runs, level and members. An algorithm beats the bound when every member's
upper bound is below it; each member is asked to succeed with probability 1 - 0.1 / (number of members), so all
succeed with probability >= 0.9 (a union bound). Regret: a member's upper bound lies a radius r (Hoeffding's or
the empirical Bernstein's, as the runs gave it) above a mean of standard error se, so it falls below the bound b
with that probability once the member's mean is at most b - r - z se (z that probability's normal quantile;
asymptotic, for a law of the runs' spread). Error: the largest probability whose binomial count falls below the
Clopper-Pearson threshold with that probability (exact). The smallest over the members, then over the algorithms
held to the bound (each with its own spread); infinite when even a quantity of 0 would not be seen beating it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.claims import LowerBound, ProofStep
from ..core.errors import UnsupportedAudit
from ..core.results import NOT_REFUTED, POWER_PROBABILITY, REFUTED, VERIFIED, Finding, Statistic, power
from ..stats import binomial_upper, bounded_mean_lower
from .base import Auditor, Support

#: relative rounding tolerance of a proof step's two sides
DEFAULT_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Contender:
    """An algorithm held to a lower bound.

    ``policy`` follows :mod:`dpaudit.bandits.policies`' protocol; ``label`` names it in the record.
    ``privacy`` says what was checked about its membership of the claim's class (e.g. the suite
    entry that verifies its privacy); ``in_class`` is True where that check verified it, None where
    it was not verified (a beaten bound then implicates the algorithm's privacy or the bound), and
    False where the algorithm is known to lie outside the class (simulated for comparison only).
    ``parameters`` replace some of the claim's parameters for this algorithm (the privacy level at
    which it is in the class)."""

    policy: Any
    label: str = ""
    in_class: bool | None = None
    privacy: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.label or str(getattr(self.policy, "name", type(self.policy).__name__))


@dataclass(frozen=True)
class LowerBoundSubject:
    """The algorithms a lower-bound audit runs, as :class:`Contender` objects."""

    contenders: tuple[Contender, ...]

    @property
    def name(self) -> str:
        return ", ".join(c.name for c in self.contenders) or "proof steps"


def as_subject(algorithms: Any) -> LowerBoundSubject:
    """``algorithms``: a mapping label -> policy (or :class:`Contender`), a sequence of policies or
    contenders, or None (proof steps only)."""
    if isinstance(algorithms, LowerBoundSubject):
        return algorithms
    if algorithms is None:
        return LowerBoundSubject(())
    items: list[Contender] = []
    pairs = algorithms.items() if isinstance(algorithms, Mapping) else ((None, a) for a in algorithms)
    for label, item in pairs:
        if isinstance(item, Contender):
            items.append(item if label is None or item.label else Contender(item.policy, str(label), item.in_class,
                                                                            item.privacy, item.parameters))
        else:
            if not callable(getattr(item, "choose", None)):
                raise TypeError(f"algorithms: {item!r} does not follow the policy protocol (start, choose, observe)")
            items.append(Contender(item, "" if label is None else str(label)))
    return LowerBoundSubject(tuple(items))


# --- proof steps ---------------------------------------------------------------------------------

def evaluate_step(step: ProofStep, params: Mapping[str, Any], tolerance: float = DEFAULT_TOLERANCE) -> dict[str, Any]:
    """Both sides of ``step`` at ``params``: its status (``holds``, ``tight`` or ``fails``), the
    number of grid points, and the worst point (smallest margin) with both sides there."""
    out = step.sides(params)
    if not isinstance(out, tuple) or len(out) not in (2, 3):
        raise ValueError(f"proof step {step.name!r}: sides must return (lhs, rhs) or (lhs, rhs, where)")
    where = dict(out[2]) if len(out) == 3 else {}
    lhs, rhs = np.broadcast_arrays(np.asarray(out[0], dtype=float), np.asarray(out[1], dtype=float))
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs))):
        raise ValueError(f"proof step {step.name!r}: a side is not finite at {dict(params)}")
    if step.relation in (">=", ">"):
        margin = lhs - rhs
    elif step.relation in ("<=", "<"):
        margin = rhs - lhs
    else:
        margin = -np.abs(lhs - rhs)
    slack = tolerance * np.maximum(np.abs(lhs), np.abs(rhs))
    fails = margin < -slack
    tight = np.abs(margin) <= slack
    if step.relation == "==":
        fails, tight = margin < -slack, ~(margin < -slack)
    worst = int(np.argmin(margin))
    if np.any(fails):
        worst = int(np.flatnonzero(fails.ravel())[np.argmin(margin.ravel()[fails.ravel()])])
    status = "fails" if np.any(fails) else ("tight" if np.any(tight) else "holds")
    at = {name: np.broadcast_to(np.asarray(v), margin.shape).ravel()[worst] for name, v in where.items()}
    return {"name": step.name, "statement": step.statement, "relation": step.relation, "status": status,
            "lhs": float(lhs.ravel()[worst]), "rhs": float(rhs.ravel()[worst]),
            "margin": float(margin.ravel()[worst]), "points": int(margin.size), "failing_points": int(fails.sum()),
            "at": {k: (v.item() if hasattr(v, "item") else v) for k, v in at.items()}}


# --- confidence bounds ---------------------------------------------------------------------------

def mean_upper(values: np.ndarray, width: float, level: float) -> tuple[float, str]:
    """An upper confidence bound on the mean of i.i.d. values in [0, width], valid with probability
    >= 1 - level: the smaller of Hoeffding's and the empirical Bernstein bound (each at level / 2),
    :func:`dpaudit.stats.bounded_mean_lower` on the complements."""
    mean = float(np.mean(values))
    if width <= 0:
        return mean, "constant"
    lower, bernstein = bounded_mean_lower(1 - np.asarray(values, dtype=float)[:, None] / width, level)
    return width * (1 - float(lower[0])), "empirical-bernstein" if bernstein[0] else "hoeffding"


# --- the auditor ---------------------------------------------------------------------------------

class LowerBoundAuditor(Auditor):
    """Proof steps exactly, the algorithms of the class by simulation (module docstring)."""

    name = "lower-bound"
    statistical = True

    def supports(self, subject: Any, claim: Any) -> Support:
        if not isinstance(claim, LowerBound):
            return Support.no(f"the lower-bound auditor audits LowerBound claims, not {type(claim).__name__}")
        if not isinstance(subject, LowerBoundSubject):
            return Support.no("the subject must be the algorithms to run (LowerBoundSubject)")
        if subject.contenders and claim.bound is None:
            return Support.no("the claim has no bound to hold the algorithms to")
        if not subject.contenders and not claim.steps:
            return Support.no("the claim has no proof steps to check and no algorithms are given to hold its bound to")
        return Support.decides()

    def audit(self, subject: Any, claim: Any, *, confidence: float | None = 0.99, seed: Any = None,
              runs: int = 1000, tolerance: float = DEFAULT_TOLERANCE, workers: int = 1, **_: Any) -> Finding:
        self.require(subject, claim)
        params = dict(claim.parameters)
        conditions = [evaluate_step(c, params, tolerance) for c in claim.conditions]
        outside = [c for c in conditions if c["status"] == "fails"]
        if outside:
            c = outside[0]
            raise UnsupportedAudit(f"the point {params} is outside the theorem's hypotheses: {c['statement']} "
                                   f"({c['lhs']:.6g} {c['relation']} {c['rhs']:.6g} fails)")
        steps = [evaluate_step(s, params, tolerance) for s in claim.steps]
        notes: list[str] = []
        parameters: dict[str, Any] = {"conditions": conditions, "steps": steps}
        failed = [s for s in steps if s["status"] == "fails"]
        tight = [s for s in steps if s["status"] == "tight"]
        for s in tight:
            notes.append(f"proof step {s['name']!r} holds with equality to within rounding ({s['lhs']:.17g} "
                         f"{s['relation']} {s['rhs']:.17g}): floats cannot prove it, so it is left not refuted")
        witness: dict[str, Any] = {}
        if failed:
            s = min(failed, key=lambda x: x["margin"])
            witness = {"step": s["name"], "statement": s["statement"], "parameters": params, "at": s["at"],
                       "lhs": s["lhs"], "relation": s["relation"], "rhs": s["rhs"]}
            notes.append(f"proof step {s['name']!r} fails at {params}{' ' + str(s['at']) if s['at'] else ''}: "
                         f"{s['lhs']:.6g} {s['relation']} {s['rhs']:.6g} is false")
        contenders = subject.contenders
        if not contenders:
            verdict = REFUTED if failed else (NOT_REFUTED if tight else VERIFIED)
            least = min((s["margin"] for s in steps), default=None)
            return Finding(verdict, self.name, Statistic("least proof-step margin", least),
                           confidence=1.0, witness=witness, notes=notes, parameters=parameters)
        if confidence is None:
            raise ValueError("the lower-bound auditor needs a confidence level to simulate algorithms")
        runs = int(runs)
        environments = list(claim.instance(params))
        if not environments:
            raise ValueError("the claim's instance has no members")
        member_seeds = _seed_sequence(seed).spawn(len(environments))
        level = (1 - confidence) / max(1, sum(c.in_class is not False for c in contenders))
        records = []
        for c in contenders:
            records.append(self._hold(claim, c, environments, member_seeds, runs, level, tolerance, workers))
        parameters.update({"runs": runs, "members": len(environments), "level_per_algorithm": level,
                           "algorithms": records})
        beaten = [r for r in records if r["beats_bound"] and r["in_class"] is not False]
        for r in records:
            notes.append(r["reading"])
        if beaten and not witness:
            r = min(beaten, key=lambda x: x["ratio"])
            witness = {"algorithm": r["algorithm"], "parameters": r["parameters"], "bound": r["bound"],
                       "horizon": r["horizon"], "members": r["members"], "privacy": r["privacy"],
                       "in_class": r["in_class"], "level": level}
        verdict = REFUTED if failed or beaten else NOT_REFUTED
        held = [r for r in records if r["in_class"] is not False]
        if held:
            worst = min(held, key=lambda r: r["ratio"])
            estimate = worst["max_mean"] / worst["bound"] if worst["bound"] > 0 else math.inf
            stat = Statistic(f"least over algorithms of max over members of the {claim.quantity} / the bound (< 1: "
                             "beaten)", estimate, (-math.inf, worst["ratio"]), "upper-bound")
        else:
            stat = Statistic(f"max over members of the {claim.quantity} / the bound", None)
        stated = None if verdict == REFUTED or not held else _shortfall_power(claim.quantity, held, runs)
        return Finding(verdict, self.name, stat, confidence=confidence, samples=runs * len(environments) * len(records),
                       witness=witness, notes=notes, parameters=parameters, plot_data=_plot_data(claim, records),
                       power=stated)

    def _hold(self, claim: LowerBound, c: Contender, environments: list[Any], member_seeds: list[Any], runs: int,
              level: float, tolerance: float, workers: int) -> dict[str, Any]:
        from ..bandits.simulation import simulate

        point = {**claim.parameters, **c.parameters}
        outside = [s for s in claim.conditions if evaluate_step(s, point, tolerance)["status"] == "fails"]
        if outside:
            raise UnsupportedAudit(f"{c.name} is held to the bound at {point}, outside the hypothesis "
                                   f"{outside[0].statement}")
        bound = float(claim.bound(point))
        horizon = claim.horizon_at(c.parameters)
        if horizon is None:
            raise ValueError("the claim names no horizon (give horizon=... or a parameter T)")
        members = []
        for j, (env, seq) in enumerate(zip(environments, member_seeds)):
            res = simulate(c.policy, env, horizon, runs, seed=seq, grid=[horizon], workers=workers)
            if claim.quantity == "regret":
                values = res.pseudo_regret[:, -1]
                width = float(horizon * np.max(res.means.max(axis=1) - res.means.min(axis=1)))
                upper, method = mean_upper(values, width, level)
                spread = float(values.std(ddof=1)) / math.sqrt(runs) if runs > 1 else math.inf
                members.append({"member": j, "mean": float(values.mean()), "upper": upper, "method": method,
                                "range": [0.0, width], "standard_error": spread})
            else:
                hits = np.asarray(claim.event(res, j), dtype=bool)
                if hits.shape != (runs,):
                    raise ValueError(f"the claim's event must give one boolean per run, shape ({runs},), got "
                                     f"{hits.shape}")
                k = int(hits.sum())
                members.append({"member": j, "mean": k / runs, "upper": float(binomial_upper(k, runs, level)),
                                "method": "clopper-pearson", "count": k})
        worst = max(members, key=lambda m: m["upper"])
        beats = worst["upper"] < bound
        ratio = worst["upper"] / bound if bound > 0 else math.inf
        mean_worst = max(m["mean"] for m in members)
        what = f"{c.name} at {_fmt_point(c.parameters) or 'the claim point'}"
        if not beats:
            reading = (f"{what}: max over members of the {claim.quantity} {mean_worst:.4g} (upper bound "
                       f"{worst['upper']:.4g}) against the bound {bound:.4g}: not beaten")
        elif c.in_class is False:
            reading = (f"{what} beats the bound ({worst['upper']:.4g} < {bound:.4g} at every member), but it lies "
                       f"outside the class ({c.privacy or 'stated by the entry'}): no refutation")
        elif c.in_class:
            reading = (f"{what} beats the bound ({worst['upper']:.4g} < {bound:.4g} at every member) and its "
                       f"privacy was verified ({c.privacy}): the bound is wrong")
        else:
            reading = (f"{what} beats the bound ({worst['upper']:.4g} < {bound:.4g} at every member): either its "
                       f"privacy or the bound is wrong; its privacy was not verified here "
                       f"({c.privacy or 'nothing checked'})")
        return {"algorithm": c.name, "parameters": point, "in_class": c.in_class, "privacy": c.privacy,
                "bound": bound, "horizon": horizon, "members": members, "max_mean": mean_worst,
                "max_upper": worst["upper"], "ratio": ratio, "beats_bound": bool(beats), "reading": reading,
                "largest_beating": _largest_beating(claim.quantity, members, bound, runs, level)}


def _largest_beating(quantity: str, members: list[dict[str, Any]], bound: float, runs: int, level: float) -> float:
    """The largest quantity, the same on every member, that the audit sees beating ``bound`` with probability 0.9
    (module docstring); -inf when none, not even 0, is."""
    from scipy.stats import beta, norm

    each = 1 - (1 - POWER_PROBABILITY) / len(members)  # every member's chance: a union bound gives 0.9 for all
    if quantity == "regret":
        z = float(norm.ppf(each))
        # the mean at which a member's upper bound, a radius above it, falls below the bound z standard errors away
        tops = [bound - (m["upper"] - m["mean"]) - z * m["standard_error"] for m in members]
        return float(min(tops))
    counts = np.arange(runs + 1)
    below = np.flatnonzero(binomial_upper(counts, runs, level) < bound)
    if below.size == 0:
        return -math.inf
    k = int(below[-1])  # the largest count whose upper bound beats the bound: P(count <= k) >= each
    return 1.0 if k >= runs else float(beta.ppf(1 - each, k + 1, runs - k))


def _shortfall_power(quantity: str, held: list[dict[str, Any]], runs: int) -> dict:
    """The shortfall below the bound the audit sees with probability 0.9 (module docstring), the smallest over the
    algorithms held to it."""
    shortfalls = [1 - r["largest_beating"] / r["bound"] if r["bound"] > 0 and r["largest_beating"] >= 0 else math.inf
                  for r in held]
    i = int(np.argmin(shortfalls))
    if not math.isfinite(shortfalls[i]):
        return power("shortfall below the bound", math.inf, f"no algorithm of the class, not even one of {quantity} "
                     f"0, would be seen beating the bound with probability {POWER_PROBABILITY:g} by {runs} runs per "
                     "member")
    r = held[i]
    return power("shortfall below the bound", shortfalls[i], f"an algorithm of the class whose {quantity} is "
                 f"{r['largest_beating']:.4g} on every member, {shortfalls[i]:.3g} below the bound {r['bound']:.4g}, "
                 f"with {r['algorithm']}'s spread, is seen beating it with probability {POWER_PROBABILITY:g} by {runs} "
                 "runs per member")


def _fmt_point(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}" for k, v in params.items())


def _seed_sequence(seed: Any) -> np.random.SeedSequence:
    from ..core.seeding import as_seed_sequence

    return as_seed_sequence(seed)


# pragma: no mutate start (data for the report's plots, not a verdict's statistics)
def _plot_data(claim: LowerBound, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "lower-bound", "quantity": claim.quantity,
            "algorithms": [r["algorithm"] for r in records], "bounds": [r["bound"] for r in records],
            "means": [[m["mean"] for m in r["members"]] for r in records],
            "uppers": [[m["upper"] for m in r["members"]] for r in records]}
# pragma: no mutate end


__all__ = ["DEFAULT_TOLERANCE", "Contender", "LowerBoundAuditor", "LowerBoundSubject", "as_subject", "evaluate_step",
           "mean_upper"]
