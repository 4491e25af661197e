""":func:`audit_canaries`: an (epsilon, delta) claim about a training run, audited from an attack's scores of canaries
that were in the training data and canaries that were not (:mod:`dpaudit.auditors.canary`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..auditors.canary import canary_epsilon, ceiling_note, multi_run_power, one_run_power
from ..core.claims import ApproxDP, Claim, PureDP
from ..core.errors import InvalidClaim
from ..core.results import NOT_REFUTED, REFUTED, AuditResult, Finding, Statistic, power
from ..core.seeding import as_seed_sequence
from .records import Audit, assemble_record

AUDITOR = "canary-scores"
RUNS = ("many", "one")


def canary_audit(in_scores: Any, out_scores: Any, claim: Claim, *, runs: str = "many", alpha: float = 0.05,
                 seed: int | np.random.SeedSequence | None = None, selection: float | None = None,
                 guesses: Sequence[tuple[int, int]] | None = None, name: str = "canary scores") -> Audit:
    """:func:`audit_canaries` up to the record."""
    if not isinstance(claim, (ApproxDP, PureDP)):
        raise InvalidClaim(f"audit_canaries audits (epsilon, delta) and pure DP claims, got {claim!r}")
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise ValueError(f"audit_canaries: alpha must be in (0, 1), got {alpha!r}")
    if runs not in RUNS:
        raise ValueError(f"audit_canaries: runs must be 'many' (a score per training run) or 'one' (a score per "
                         f"canary of one run), got {runs!r}")
    options: dict[str, Any] = {}
    if runs == "many" and selection is not None:
        options["selection"] = selection
    if runs == "one" and guesses is not None:
        options["guesses"] = guesses
    if (runs == "many" and guesses is not None) or (runs == "one" and selection is not None):
        raise ValueError("audit_canaries: selection is for runs='many', guesses for runs='one'")
    delta = float(getattr(claim, "delta", 0.0))
    seq = as_seed_sequence(seed)
    start = time.perf_counter()
    result = canary_epsilon(in_scores, out_scores, delta, float(alpha), np.random.default_rng(seq), runs, **options)
    bound = result["epsilon"]
    verdict = REFUTED if bound > claim.epsilon else NOT_REFUTED
    samples = (sum(result["runs"].values()) + sum(result["selection_runs"].values()) if runs == "many"
               else result["canaries"])
    witness = {key: value for key, value in result.items() if key not in ("epsilon",)}
    notes = [ceiling_note(result, runs, delta)]
    if verdict == NOT_REFUTED and result["ceiling"] <= claim.epsilon:
        notes.append(f"the claimed epsilon {claim.epsilon:g} is at or above the ceiling: these scores could not have "
                     "refuted it whatever the attack")
    stated = _power(result, runs, claim.epsilon, delta, float(alpha)) if verdict == NOT_REFUTED else None
    finding = Finding(verdict, AUDITOR, statistic=Statistic("epsilon", bound, (bound, float("inf")), "lower-bound"),
                      epsilon_lower=bound, confidence=1 - float(alpha), samples=int(samples), witness=witness,
                      notes=notes, parameters={"runs": runs, "alpha": float(alpha), "delta": delta,
                                               "ceiling": result["ceiling"]}, power=stated)
    return Audit(claim, name, finding, seq, time.perf_counter() - start)


def _power(result: dict[str, Any], runs: str, epsilon: float, delta: float, alpha: float) -> dict[str, Any]:
    """A not-refuted canary audit's power: the epsilon a violation would need, on what the audit chose, to be
    refuted with probability 0.9 (:func:`~dpaudit.auditors.canary.multi_run_power`, :func:`~dpaudit.auditors.canary.
    one_run_power`)."""
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


def audit_canaries(in_scores: Any, out_scores: Any, claim: Claim, *, runs: str = "many", alpha: float = 0.05,
                   seed: int | np.random.SeedSequence | None = None, selection: float | None = None,
                   guesses: Sequence[tuple[int, int]] | None = None) -> AuditResult:
    """Audit an (epsilon, delta) or pure DP claim from canary scores: a lower bound on epsilon at the claim's delta,
    valid with probability at least 1 - ``alpha``, and the claim refuted when the bound exceeds its epsilon.

    Parameters
    ----------
    in_scores, out_scores
        An attack's scores (higher: more likely "in") of canaries that were in the training data and of canaries
        that were not.
    claim
        :class:`~dpaudit.ApproxDP` (epsilon, delta) or :class:`~dpaudit.PureDP` (delta 0).
    runs
        ``"many"``: each score is one training run's (the canary in or out of that run); the runs are split at
        random into a selection share (``selection``, default a fifth) that picks the event and a confirmation share
        that bounds it by Clopper-Pearson. ``"one"``: each score is one canary's in a single run where every canary
        was included independently with probability 1/2 (Steinke, Nasr and Jagielski's one-run audit, over the
        ``guesses`` (k+, k-): "in" for the k+ highest scores, "out" for the k- lowest; several are each tested at
        alpha / their number).
    alpha
        One minus the confidence of the bound.
    seed
        The seed of the random split (``"many"``) or the canaries' random order for ties (``"one"``).

    Returns
    -------
    AuditResult
        ``verdict`` ``refuted`` (the bound exceeds the claimed epsilon) or ``not-refuted``; ``epsilon_lower`` the
        bound; ``parameters["ceiling"]`` the largest bound these sizes can give (an event separating every run, or
        every guess right), also in the notes; ``witness`` the event or the guesses and their counts; ``power`` (a
        "not refuted") the epsilon a violation would need, on the event or guess set the audit chose, to be refuted
        with probability 0.9 at these runs.
    """
    return assemble_record(canary_audit(in_scores, out_scores, claim, runs=runs, alpha=alpha, seed=seed,
                                        selection=selection, guesses=guesses))


__all__ = ["audit_canaries", "canary_audit"]
