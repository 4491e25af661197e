"""``dpaudit run``: audit the selected entries in parallel and write the reports as they finish."""

from __future__ import annotations

import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..reports import write_reports
from ..results import ERROR, NOT_REPRODUCED, UNEXPECTED_REFUTATION, AuditResult
from ..seeding import check_seed, claim_seed_sequence
from ..stats import bonferroni
from ..suite import BUDGETS, Entry, RunContext, load_suites, select
from .executors import ProcessExecutor, make_executor
from .progress import Progress
from ..files import atomic_write
from .store import ResultsStore
from .worker import ClaimOutcome, ClaimTask, error_result, run_claim

REPORT_INTERVAL = 2.0  # seconds between re-renders of the reports while claims finish


@dataclass
class RunOptions:
    selectors: list[str] = field(default_factory=list)
    budget: str = "quick"
    seed: int = 0
    workers: int | None = None
    alpha: float = 0.01
    out: Path = Path("dpaudit-report")
    resume: bool = False
    scheduler: str | None = None
    timeout: float | None = None
    suite_paths: list[str] = field(default_factory=list)
    progress_bar: bool | None = None


@dataclass
class RunSummary:
    records: list[AuditResult]
    out: Path
    reused: int

    @property
    def exit_code(self) -> int:
        """2 if any claim could not be audited, 1 if any verdict contradicts its expectation, else 0."""
        outcomes = {r.outcome for r in self.records}
        if ERROR in outcomes:
            return 2
        if outcomes & {UNEXPECTED_REFUTATION, NOT_REPRODUCED}:
            return 1
        return 0


def _validate(options: RunOptions) -> None:
    if options.budget not in BUDGETS:
        raise UsageError(f"--budget must be one of {', '.join(BUDGETS)}, got {options.budget!r}")
    try:
        check_seed(options.seed)
    except ValueError as exc:
        raise UsageError(f"--seed: {exc}") from None
    if not 0 < options.alpha < 1:
        raise UsageError(f"--alpha must be in (0, 1), got {options.alpha}")
    if options.timeout is not None and options.timeout <= 0:
        raise UsageError(f"--timeout must be > 0 seconds, got {options.timeout}")


def plan(options: RunOptions) -> tuple[list[Entry], float]:
    """The selected entries and the per-claim alpha (Bonferroni over the statistical ones)."""
    entries = select(load_suites(options.suite_paths), options.selectors)
    statistical = sum(e.statistical for e in entries)
    return entries, bonferroni(options.alpha, statistical)


def run(options: RunOptions) -> RunSummary:
    _validate(options)
    entries, alpha_share = plan(options)
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    header: dict[str, Any] = {
        "seed": options.seed,
        "budget": options.budget,
        "alpha": options.alpha,
        "alpha_per_statistical_claim": alpha_share,
        "statistical_claims": sum(e.statistical for e in entries),
        "selectors": list(options.selectors),
        "suite_paths": list(options.suite_paths),
        "claims": len(entries),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "finished": None,
    }
    store = ResultsStore(out / "results.json", header)
    alpha_of = {e.claim_id.key: (alpha_share if e.statistical else None) for e in entries}
    reused: dict[str, dict[str, Any]] = {}
    if options.resume:
        try:
            reused = store.reusable(
                {k: {"run_seed": options.seed, "budget": options.budget, "alpha": a} for k, a in alpha_of.items()}
            )
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        for record in reused.values():
            store.put(record)
    store.write()

    todo = [e for e in entries if e.claim_id.key not in reused]
    tasks = {
        e.claim_id.key: ClaimTask(
            claim_id=e.id,
            run_seed=options.seed,
            budget=options.budget,
            alpha=alpha_share,
            timeout=options.timeout if options.timeout is not None else e.timeout_for(options.budget),
            suite_paths=tuple(options.suite_paths),
        )
        for e in todo
    }
    by_key = {e.claim_id.key: e for e in entries}
    progress = Progress(len(entries), done=len(reused), bar=options.progress_bar)
    if reused:
        progress.message(f"resuming: {len(reused)} claim(s) already finished in {store.path}, {len(todo)} to run")
    executor = make_executor(options.workers, options.scheduler)
    last_render = 0.0

    def finish(outcome: ClaimOutcome) -> None:
        nonlocal last_render
        for name, png in outcome.plots.items():
            atomic_write(out / name, png)
        store.put(outcome.record)
        store.write()
        record = outcome.record
        progress.claim_done(record["claim_id"], record["verdict"], record["outcome"], record["seconds"])
        if time.monotonic() - last_render >= REPORT_INTERVAL:
            write_reports(out, store.document())
            last_render = time.monotonic()

    pending = dict(tasks)
    isolate = False  # after a worker process died, claims run one at a time to find the culprit
    try:
        while pending:
            batch = dict([next(iter(pending.items()))]) if isolate else dict(pending)
            futures: dict[Future, str] = {executor.submit(run_claim, task): key for key, task in batch.items()}
            broken = False
            for future in executor.as_completed(futures):
                key = futures[future]
                try:
                    outcome = future.result()
                except BrokenProcessPool as exc:
                    broken = True
                    if isolate:  # it ran alone, so it is the claim that killed its worker
                        entry = by_key[key]
                        ctx = RunContext(options.seed, options.budget, alpha_share,
                                         claim_seed_sequence(options.seed, entry.id))
                        died = RuntimeError(f"the worker process running this claim died ({exc})")
                        finish(ClaimOutcome(error_result(entry, entry.id, died, ctx).to_dict()))
                        pending.pop(key)
                    continue
                pending.pop(key)
                finish(outcome)
            if broken and isinstance(executor, ProcessExecutor):
                if not isolate:
                    progress.message("a worker process died; rerunning the unfinished claims one at a time")
                isolate = True
                executor.restart()
    except KeyboardInterrupt:
        executor.shutdown(cancel=True)
        progress.close()
        header["finished"] = None
        store.write()
        write_reports(out, store.document())
        raise
    executor.shutdown()
    progress.close()
    header["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    store.write()
    write_reports(out, store.document())
    records = [AuditResult.from_dict(r) for r in store.document()["records"]]
    return RunSummary(records, out, len(reused))


__all__ = ["RunOptions", "RunSummary", "plan", "run"]
