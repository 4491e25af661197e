"""The one place a record is assembled: from an audit (its finding and how it was obtained), the
suite entry and run it belongs to (if any), the time it took and its plots.

Every :class:`~dpaudit.core.results.AuditResult` a user, a report or ``results.json`` sees is built by
:func:`assemble_record`, once: auditors return findings, the family entry points
(:func:`dpaudit.audit_privacy`, ...) return :class:`Audit` objects to the suite runner or assemble them
themselves, and nothing edits a record afterwards.
"""

from __future__ import annotations

import os
import sysconfig
import traceback
import warnings as warnings_module
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.claim_ids import seed_id
from ..core.claims import Claim
from ..core.results import ERROR, NOT_REFUTED, AuditResult, Finding
from ..core.seeding import SeedRecord


@dataclass
class Audit:
    """One audit as conducted: the claim, the subject's name, the finding, the seed sequence the audit
    drew from, the seconds it took and the neighbouring relation it was about (privacy claims)."""

    claim: Claim
    subject: str
    finding: Finding
    seed: np.random.SeedSequence
    seconds: float
    relation: dict[str, Any] | None = None


def error_info(exc: BaseException) -> dict[str, Any]:
    """An exception as a record's ``error`` field: its type, message and traceback, and ``where``: the
    frames of the user's own code it passed through (innermost last), so a mechanism that raised is
    found by its file and line, not only by its message."""
    return {"type": type(exc).__name__, "message": str(exc), "traceback": "".join(traceback.format_exception(exc)),
            "where": user_frames(exc)}


#: folders whose frames are not the user's: dpaudit's harness and the standard library
_HARNESS = str(Path(__file__).resolve().parents[1]) + os.sep  # dpaudit/, this file being dpaudit/api/records.py
_STDLIB = tuple({str(Path(sysconfig.get_paths()[k]).resolve()) + os.sep for k in ("stdlib", "platstdlib")})
_THIRD_PARTY = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def user_frames(exc: BaseException) -> list[dict[str, Any]]:
    """The frames of user code in the traceback of ``exc``, or of the exception it wraps (a
    :class:`~dpaudit.core.errors.MechanismError` is raised ``from`` the user's own exception).

    User code is any file outside dpaudit's harness, the standard library and installed third-party
    packages (numpy, say); if only installed packages are left, their frames are given instead."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    frames = [f for e in reversed(chain) for f in traceback.extract_tb(e.__traceback__)]  # innermost error first
    outside = [f for f in frames if _outside(f.filename)]
    own = [f for f in outside if not any(part in f.filename for part in _THIRD_PARTY)]
    return [{"file": f.filename, "line": f.lineno, "function": f.name, "code": f.line or ""}
            for f in (own or outside)]


def _outside(filename: str) -> bool:
    """Whether ``filename`` is neither dpaudit's harness nor the standard library."""
    if filename.startswith("<"):  # <frozen ...>, <string>
        return False
    path = str(Path(filename).resolve())
    if path.startswith(_HARNESS):
        return False
    # site-packages may sit inside the standard library's folder
    return any(part in path for part in _THIRD_PARTY) or not path.startswith(_STDLIB)


def describe_where(error: dict[str, Any]) -> str:
    """``file:line in function`` of the innermost user frame of an ``error`` field ('' if none)."""
    where = error.get("where") or []
    if not where:
        return ""
    frame = where[-1]
    return f"{frame['file']}:{frame['line']} in {frame['function']}"


def warning_counts(caught: Iterable[warnings_module.WarningMessage]) -> list[dict[str, Any]]:
    """Warnings caught during an audit as a record's ``warnings`` field: one entry per category and message,
    in the order they first appeared, with how often each was raised (an audit loop repeats the same one)."""
    counts: dict[tuple[str, str], int] = {}
    for w in caught:
        key = (w.category.__name__, str(w.message))
        counts[key] = counts.get(key, 0) + 1
    return [{"category": category, "message": message, "count": count}
            for (category, message), count in counts.items()]


def assemble_record(
    audit: Audit | None,
    *,
    entry: Any = None,
    run: Any = None,
    seconds: float | None = None,
    plots: Sequence[str] = (),
    error: BaseException | None = None,
    claim_id: str | None = None,
    warnings: Sequence[dict[str, Any]] = (),
) -> AuditResult:
    """The record of ``audit``, or of the ``error`` that stopped it.

    ``entry`` (a :class:`dpaudit.suite.Entry`) and ``run`` (its :class:`dpaudit.suite.RunContext`) are
    given in a suite run: they add the claim id, title, paper, budget, expectation, alpha share, the
    documented truth and the run seed. ``seconds`` overrides the audit's own timing (a suite run times
    the whole claim, plots included). ``claim_id`` names a claim whose entry could not be found.
    ``warnings`` are those the audit raised, as :func:`warning_counts` gives them.
    """
    if audit is None and error is None:
        raise ValueError("assemble_record needs an audit or the error that stopped it")
    if audit is None and run is None:
        raise ValueError("an error record needs the run it belongs to")
    claim_id = entry.id if entry is not None else claim_id
    if audit is not None:
        finding, claim, subject, seq = audit.finding, audit.claim.to_dict(), audit.subject, audit.seed
    else:  # the audit stopped: an empty finding, and what the entry says about the claim
        finding = Finding(ERROR, entry.auditor if entry is not None else "")
        claim = entry.claim.to_dict() if entry is not None else {}
        subject = entry.subject_name if entry is not None else ""
        seq = run.seed_sequence
    relation = audit.relation if audit is not None else None
    if relation is None and entry is not None and entry.relation is not None:
        relation = entry.relation.to_dict()
    parameters = dict(finding.parameters)
    if entry is not None and entry.truth is not None:
        parameters["documented_truth"] = entry.truth
    in_run = run is not None
    return AuditResult(
        verdict=finding.verdict,
        claim=claim,
        auditor=finding.auditor,
        subject=subject,
        statistic=finding.statistic,
        epsilon_lower=finding.epsilon_lower,
        delta_lower=finding.delta_lower,
        confidence=finding.confidence,
        alpha=run.alpha if in_run and entry is not None and entry.statistical else None,
        samples=finding.samples,
        # the id the seed derives from: a renamed claim's first id (core.claim_ids.RENAMED)
        seed=SeedRecord.of(seq, run.run_seed if in_run else None, seed_id(claim_id) if in_run and claim_id else None
                           ).to_dict(),
        seconds=seconds if seconds is not None else (audit.seconds if audit is not None else 0.0),
        witness=finding.witness,
        notes=list(finding.notes),
        parameters=parameters,
        relation=relation,
        claim_id=claim_id,
        title=entry.title if entry is not None else "",
        paper=entry.claim_id.suite if entry is not None else None,
        budget=run.budget if in_run else None,
        expected={"verdict": (entry.expected_at(run.budget) if in_run else entry.expected) if entry is not None
                  else NOT_REFUTED,
                  "reason": entry.reason if entry is not None else None,
                  "footing": entry.footing if entry is not None else None,
                  **({"hypothesis": entry.hypothesis} if entry is not None and entry.hypothesis else {})},
        plots=list(plots),
        error=error_info(error) if error is not None else None,
        warnings=[dict(w) for w in warnings],
        plot_data=finding.plot_data,
        power=finding.power,
    )


__all__ = ["Audit", "assemble_record", "describe_where", "error_info", "user_frames", "warning_counts"]
