""":func:`audit_canaries`: an (epsilon, delta) claim about a training run, audited from an attack's scores of canaries
that were in the training data and canaries that were not (:mod:`dpaudit.auditors.canary`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..auditors.canary_scores import CanaryScores, CanaryScoresAuditor
from ..core.claims import ApproxDP, Claim, PureDP
from ..core.errors import InvalidClaim
from ..core.results import AuditResult
from ..core.seeding import as_seed_sequence
from ..core.validation import probability
from .records import Audit, assemble_record


def canary_audit(in_scores: Any, out_scores: Any, claim: Claim, *, runs: str = "many", alpha: float = 0.05,
                 seed: int | np.random.SeedSequence | None = None, selection: float | None = None,
                 guesses: Sequence[tuple[int, int]] | None = None, sequential: bool = False,
                 name: str = "canary scores", draw: Any = None, budget: int | None = None) -> Audit:
    """:func:`audit_canaries` up to the record (``draw`` and ``budget``: a sequential audit's source of runs, in place
    of the two arrays)."""
    if not isinstance(claim, (ApproxDP, PureDP)):
        raise InvalidClaim(f"audit_canaries audits (epsilon, delta) and pure DP claims, got {claim!r}")
    probability("audit_canaries", "alpha", alpha)
    if selection is not None:
        probability("audit_canaries", "selection", selection)
    if not isinstance(sequential, (bool, np.bool_)):
        raise TypeError(f"audit_canaries: sequential must be True or False, got {sequential!r}")
    subject = CanaryScores(in_scores, out_scores, runs, draw=draw, budget=budget)
    seq = as_seed_sequence(seed)
    start = time.perf_counter()
    finding = CanaryScoresAuditor().audit(subject, claim, alpha=float(alpha), seed=seq, selection=selection,
                                          guesses=guesses, sequential=bool(sequential))
    return Audit(claim, name, finding, seq, time.perf_counter() - start)


def audit_canaries(in_scores: Any, out_scores: Any, claim: Claim, *, runs: str = "many", alpha: float = 0.05,
                   seed: int | np.random.SeedSequence | None = None, selection: float | None = None,
                   guesses: Sequence[tuple[int, int]] | None = None, sequential: bool = False) -> AuditResult:
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
    sequential
        ``runs="many"`` only: read the runs in their order, in growing batches, betting on an event chosen from the
        runs before each batch, and stop refuted as soon as the bets' wealth crosses 1 / (alpha / 2); if it never
        does, bound epsilon from every run at alpha / 2 (:mod:`dpaudit.auditors.canary_sequential`). The record
        then says how many runs per side the audit took (``samples``).

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
                                        selection=selection, guesses=guesses, sequential=sequential))


__all__ = ["audit_canaries", "canary_audit"]
