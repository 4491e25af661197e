"""The canary-scores auditor: an (epsilon, delta) or pure DP claim about a training run, decided from an attack's
scores of canaries that were in the training data and canaries that were not (:mod:`.canary`'s estimators).

The subject is the two arrays (:class:`CanaryScores`) and how to read them (``runs``: ``"many"``, a score per
training run; ``"one"``, a score per canary of one run). The finding is ``refuted`` when the lower bound on epsilon
exceeds the claimed epsilon, ``not-refuted`` otherwise; it states the ceiling the data allow (its first note, and
``parameters["ceiling"]``), a second note when the claim is at or above it, and with a "not refuted" the power: the
epsilon a violation would need, on the event or guess set the audit chose, to be refuted with probability 0.9 at
these runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.claims import ApproxDP, Claim, PureDP
from ..core.results import NOT_REFUTED, REFUTED, Finding, Statistic, power
from .base import Auditor, Support
from .canary import canary_epsilon, ceiling_note, multi_run_power, one_run_power, scores
from .canary_sequential import BETTING_SHARE, Draw, array_draw, sequential_canary

RUNS = ("many", "one")


@dataclass(frozen=True)
class CanaryScores:
    """An attack's scores of canaries in (``in_scores``) and out of (``out_scores``) the training data, read as one
    score per training run (``runs="many"``) or one per canary of a single run (``runs="one"``, each canary included
    independently with probability 1/2). A sequential audit may instead take its runs from ``draw`` (side, count) ->
    scores, at most ``budget`` per side (a training loop run as the audit asks)."""

    in_scores: Any = None
    out_scores: Any = None
    runs: str = "many"
    draw: Draw | None = None
    budget: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.runs, str) or self.runs not in RUNS:
            raise ValueError(f"audit_canaries: runs must be 'many' (a score per training run) or 'one' (a score per "
                             f"canary of one run), got {self.runs!r}")


class CanaryScoresAuditor(Auditor):
    """Decides (epsilon, delta) and pure DP claims from canary scores (module docstring)."""

    name = "canary-scores"
    statistical = True

    def supports(self, subject: Any, claim: Claim) -> Support:
        if not isinstance(claim, (ApproxDP, PureDP)):
            return Support.no(f"canary scores bound epsilon at a delta: they audit (epsilon, delta) and pure DP "
                              f"claims, got a {claim.kind} claim")
        if not isinstance(subject, CanaryScores):
            return Support.no("the canary-scores auditor audits CanaryScores (two arrays of scores)", noted=False)
        return Support.attempts()

    def audit(self, subject: CanaryScores, claim: Claim, *, alpha: float = 0.05,
              seed: np.random.SeedSequence | None = None, selection: float | None = None,
              guesses: Sequence[tuple[int, int]] | None = None, sequential: bool = False, **_: Any) -> Finding:
        """The finding at level ``alpha`` (one minus the confidence), the split or the canaries' order drawn from
        ``seed``; ``selection`` (many runs) and ``guesses`` (one run) as :func:`dpaudit.audit_canaries` takes them;
        ``sequential`` stops at the first batch of runs whose bets refute the claim (:mod:`.canary_sequential`)."""
        self.require(subject, claim)
        alpha = float(alpha)
        if sequential:
            if subject.runs != "many" or guesses is not None or selection is not None:
                raise ValueError("audit_canaries: sequential audits read many runs (runs='many'), with their own "
                                 "selection: no selection or guesses")
            return self._sequential(subject, claim, alpha, np.random.default_rng(seed))
        runs = subject.runs
        options: dict[str, Any] = {}
        if runs == "many" and selection is not None:
            options["selection"] = selection
        if runs == "one" and guesses is not None:
            options["guesses"] = guesses
        if (runs == "many" and guesses is not None) or (runs == "one" and selection is not None):
            raise ValueError("audit_canaries: selection is for runs='many', guesses for runs='one'")
        delta = float(getattr(claim, "delta", 0.0))
        result = canary_epsilon(subject.in_scores, subject.out_scores, delta, alpha, np.random.default_rng(seed),
                                runs, **options)
        bound = result["epsilon"]
        verdict = REFUTED if bound > claim.epsilon else NOT_REFUTED
        # runs per side (the smaller side's, if they differ), or the one run's canaries
        samples = (min(result["runs"][side] + result["selection_runs"][side] for side in ("in", "out"))
                   if runs == "many" else result["canaries"])
        witness = {key: value for key, value in result.items() if key not in ("epsilon",)}
        notes = [ceiling_note(result, runs, delta)]
        if verdict == NOT_REFUTED and result["ceiling"] <= claim.epsilon:
            notes.append(f"the claimed epsilon {claim.epsilon:g} is at or above the ceiling: these scores could not "
                         "have refuted it whatever the attack")
        stated = stated_power(result, runs, claim.epsilon, delta, alpha) if verdict == NOT_REFUTED else None
        return Finding(verdict, self.name, statistic=Statistic("epsilon", bound, (bound, float("inf")), "lower-bound"),
                       epsilon_lower=bound, confidence=1 - alpha, samples=int(samples), witness=witness, notes=notes,
                       parameters={"runs": runs, "alpha": alpha, "delta": delta, "ceiling": result["ceiling"]},
                       power=stated)

    def _sequential(self, subject: CanaryScores, claim: Claim, alpha: float, rng: np.random.Generator) -> Finding:
        """The record of a sequential audit: refuted by the bets (the runs it took, the bets' certified bound on the
        claim's parameter), or, the runs spent, the fixed-size many-run bound on all of them at the rest of alpha."""
        if subject.draw is not None:
            draw, budget = subject.draw, int(subject.budget or 0)
        else:
            owner = "audit_canaries"
            draw, budget = array_draw(scores(owner, "in_scores", subject.in_scores, 2),
                                      scores(owner, "out_scores", subject.out_scores, 2))
        result = sequential_canary(draw, budget, claim, alpha, rng)
        delta = float(getattr(claim, "delta", 0.0))
        parameter = "epsilon" if isinstance(claim, PureDP) else "delta"
        parameters = {"runs": "many", "alpha": alpha, "delta": delta, "sequential": True, "budget": budget,
                      "runs_used": result["runs"], "batches": result["batches"], "betting_level": result["level"],
                      "log_wealth": result["log_wealth"]}
        if result["crossed"]:
            bound = result["parameter_lower"]
            notes = [f"refuted by the bets after {result['runs']:,} of {budget:,} runs per side ({result['batches']} "
                     f"batches bet on, wealth e^{result['log_wealth']:.3g} against 1/{result['level']:.3g}); the "
                     f"audit stops once the runs refute the claim: sequential=False bounds epsilon from every run"]
            return Finding(REFUTED, self.name, statistic=Statistic(parameter, bound, (bound, float("inf")),
                                                                   "lower-bound"),
                           epsilon_lower=bound if parameter == "epsilon" else None,
                           delta_lower=bound if parameter == "delta" else None, confidence=1 - alpha,
                           samples=result["runs"], witness={"event": result["event"]}, notes=notes,
                           parameters=parameters)
        fixed, rest = result["fixed"], (1 - BETTING_SHARE) * alpha
        bound = fixed["epsilon"]
        verdict = REFUTED if bound > claim.epsilon else NOT_REFUTED
        notes = [ceiling_note(fixed, "many", delta),
                 f"the bets did not cross on {result['batches']} batches (wealth e^{result['log_wealth']:.3g} against "
                 f"1/{result['level']:.3g}); the bound is every run's, at {rest:.3g} of alpha"]
        parameters["ceiling"] = fixed["ceiling"]
        stated = stated_power(fixed, "many", claim.epsilon, delta, rest) if verdict == NOT_REFUTED else None
        return Finding(verdict, self.name, statistic=Statistic("epsilon", bound, (bound, float("inf")), "lower-bound"),
                       epsilon_lower=bound, confidence=1 - alpha, samples=result["runs"],
                       witness={k: v for k, v in fixed.items() if k != "epsilon"}, notes=notes, parameters=parameters,
                       power=stated)


def stated_power(result: dict[str, Any], runs: str, epsilon: float, delta: float, alpha: float) -> dict[str, Any]:
    """A not-refuted canary audit's power: the epsilon a violation would need, on what the audit chose, to be
    refuted with probability 0.9 (:func:`~.canary.multi_run_power`, :func:`~.canary.one_run_power`)."""
    if runs == "many":
        first = result["first"]
        second = "out" if first == "in" else "in"
        n_first, n_second = result["runs"][first], result["runs"][second]
        q = max(result["counts"][second], 0.5) / n_second  # as observed, at least half a count
        value = multi_run_power(n_first, n_second, q, delta, alpha, epsilon)
        return power("epsilon", value, f"epsilon of the selected event {{score {result['side']} "
                     f"{result['threshold']:.6g}}} ({first} runs first), its rate on the {second} runs {q:.4g} as "
                     f"observed, at {n_first} + {n_second} confirmation runs")
    value = one_run_power(result["canaries"], result["r"], delta, result["level"], epsilon)
    return power("epsilon", value, f"epsilon of randomized-response guesses (each right with probability "
                 f"e^eps / (1 + e^eps)) on the chosen guess set, {result['r']} guesses of {result['canaries']} "
                 f"canaries at alpha / {result['guesses_tried']}")


__all__ = ["RUNS", "CanaryScores", "CanaryScoresAuditor", "stated_power"]
