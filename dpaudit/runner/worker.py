"""What runs in a worker: one claim, from its id to a JSON record and its plot.

Everything a claim needs travels as plain data (its id, the run seed, budget, alpha share,
time limit and any user suite paths), so a task can run in a local process or on a remote
worker alike. Exceptions and timeouts (:mod:`dpaudit.runner.time_limits`) become ``error`` records with
their traceback; the warnings a claim raises become its record's ``warnings``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..api.records import assemble_record, warning_counts
from ..core.claim_ids import seed_id
from ..core.results import AuditResult
from ..core.seeding import claim_seed_sequence
from ..reports.plots import plot_filename, render
from ..suite.discovery import find_entry
from ..suite.entries import Entry, RunContext
from .time_limits import call_with_time_limit


@dataclass(frozen=True)
class ClaimTask:
    claim_id: str
    run_seed: int
    budget: str
    alpha: float
    timeout: float
    suite_paths: tuple[str, ...] = ()
    cache_dir: str | None = None
    #: the claim's content key (:mod:`dpaudit.runner.keys`), written into its record
    key: str | None = None


@dataclass
class ClaimOutcome:
    record: dict[str, Any]
    plots: dict[str, bytes] = field(default_factory=dict)


def error_record(entry: Entry | None, claim_id: str, exc: BaseException, ctx: RunContext,
                 seconds: float = 0.0, caught: Sequence[dict[str, Any]] = ()) -> AuditResult:
    """The record of a claim that could not be audited (``entry`` None: its id was not found); ``caught``:
    the warnings raised before it stopped (:func:`~dpaudit.api.records.warning_counts`)."""
    return assemble_record(None, entry=entry, run=ctx, error=exc, claim_id=claim_id, seconds=seconds,
                           warnings=caught)


def run_claim(task: ClaimTask) -> ClaimOutcome:
    start = time.perf_counter()
    entry: Entry | None = None
    # a renamed claim keeps its first id's seed (core.claim_ids.RENAMED)
    seq = claim_seed_sequence(task.run_seed, seed_id(task.claim_id))
    ctx = RunContext(task.run_seed, task.budget, task.alpha, seq, task.cache_dir)
    plots: dict[str, bytes] = {}
    caught: list[warnings.WarningMessage] = []
    try:
        # Warnings go into the record, not to the worker's stderr, where they would drown the progress lines.
        # "always": a warning the process already showed for an earlier claim is still this claim's.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            entry = find_entry(task.claim_id, task.suite_paths)
            audit = call_with_time_limit(lambda: entry.audit(ctx), task.timeout)
            png = render(audit.finding, f"{entry.id}: {audit.finding.verdict}")
        if png is not None:
            plots[plot_filename(entry.id)] = png
        result = assemble_record(audit, entry=entry, run=ctx, plots=list(plots),
                                 seconds=time.perf_counter() - start, warnings=warning_counts(caught))
    except Exception as exc:  # noqa: BLE001 - one claim's failure must not stop the run
        result = error_record(entry, task.claim_id, exc, ctx, time.perf_counter() - start, warning_counts(caught))
        plots = {}
    result.key = task.key
    result.finished = datetime.now(UTC).isoformat(timespec="seconds")
    return ClaimOutcome(result.to_dict(), plots)
