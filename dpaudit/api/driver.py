"""One way every audit runs: plan with the auditors' own answers, then conduct, falling back once.

A *family* of claims (privacy, tail, conformance; regret next) has an exact auditor (or none) and a
statistical one. :func:`plan_audit` turns the requested mode into an :class:`AuditPlan`:

- ``"exact"``: the exact auditor alone (an unsupported claim is an error);
- ``"statistical"``: the statistical auditor alone;
- ``"auto"``: the exact auditor where it :meth:`~dpaudit.auditors.base.Auditor.supports` the claim,
  with the statistical one as fallback; the statistical one where it does not (the plan says why
  in a note, unless the subject simply has no exact form, such as a plain sampler).

The plan's :attr:`AuditPlan.statistical` says whether the audit may end in a statistical verdict:
true for a statistical auditor, and for an exact one that may leave the claim undecided. A suite
run gives exactly those entries a share of its alpha, so the share and the path come from one
answer. :func:`conduct` follows the plan; it falls back to samples only when the audit has a
confidence to spend (a direct API call always has one; a suite entry without a share of alpha has
none, and an undecided exact audit is then an error rather than an unbudgeted statistical verdict).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..auditors import Auditor, Finding
from ..core.claims import Claim
from ..core.errors import UnsupportedAudit

MODES = ("auto", "exact", "statistical")


@dataclass(frozen=True)
class Family:
    """The auditors of one family of claims: an exact one (or none) and a statistical one."""

    name: str
    exact: Auditor | None
    statistical: Auditor


@dataclass(frozen=True)
class AuditPlan:
    """How an audit runs: ``auditor`` first, ``fallback`` if it cannot settle the claim;
    ``statistical`` if the verdict may be statistical (a suite entry then takes a share of alpha);
    ``note`` why the exact path is not taken, for the record."""

    auditor: Auditor
    fallback: Auditor | None = None
    statistical: bool = False
    note: str | None = None


def plan_audit(family: Family, subject: Any, claim: Claim, mode: str) -> AuditPlan:
    """The plan for auditing ``claim`` about the (checked) ``subject`` in ``mode`` (module docstring)."""
    if mode not in MODES:
        raise ValueError(f"auditor must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "statistical" or family.exact is None:
        return AuditPlan(family.statistical, statistical=True)
    if mode == "exact":
        return AuditPlan(family.exact)
    support = family.exact.supports(subject, claim)
    if not support:
        note = None
        if support.noted:
            note = (f"the {family.exact.name} auditor does not support this audit ({support.reason}); audited from "
                    "samples instead")
        return AuditPlan(family.statistical, statistical=True, note=note)
    return AuditPlan(family.exact, fallback=family.statistical, statistical=not support.decisive)


def conduct(plan: AuditPlan, subject: Any, claim: Claim, *, confidence: float | None, seed: np.random.SeedSequence,
            **settings: Any) -> tuple[Finding, float]:
    """Run ``plan``: (the finding, seconds taken). ``confidence`` is None when the audit may not spend
    any (a suite entry without a share of alpha); ``settings`` go to whichever auditor runs."""
    if plan.auditor.statistical and confidence is None:
        raise ValueError(f"the {plan.auditor.name} auditor needs a confidence level")
    notes = [plan.note] if plan.note else []
    start = time.perf_counter()
    try:
        finding = plan.auditor.audit(subject, claim, confidence=confidence, seed=seed, **settings)
    except UnsupportedAudit as exc:
        if plan.fallback is None or confidence is None:
            raise
        notes.append(f"{plan.auditor.name} auditor could not decide ({exc}); audited from samples instead")
        finding = plan.fallback.audit(subject, claim, confidence=confidence, seed=seed, **settings)
    finding.notes[:0] = notes
    return finding, time.perf_counter() - start


__all__ = ["MODES", "AuditPlan", "Family", "conduct", "plan_audit"]
