"""``dpaudit run``: audit the selected entries in parallel and write the reports as they finish."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.claim_ids import PAPERS, seed_id
from ..core.errors import UsageError
from ..core.files import atomic_write
from ..core.results import ERROR, NOT_REPRODUCED, UNEXPECTED_REFUTATION, AuditResult
from ..core.seeding import check_seed, claim_seed_sequence
from ..reports import write_reports
from ..reports.compare import load_run
from ..reports.frames import results_frame
from ..stats import bonferroni
from ..suite.budgets import BUDGETS
from ..suite.discovery import load_suites, select
from ..suite.entries import Entry, RunContext
from ..suite.statements import as_record, load_table
from .executors import Executor, ProcessExecutor, make_executor
from .interrupts import signals_held, stop_on_signals
from .keys import KeyMaker
from .lock import OutputLock, prepare_output_dir
from .progress import Progress
from .store import ResultsStore, Resumption, UnreadableResults
from .warning_summary import report_warnings
from .worker import ClaimOutcome, ClaimTask, error_record, run_claim

REPORT_INTERVAL = 2.0  # seconds between re-renders of the reports while claims finish, at least
#: and at most this share of the run's time goes to those re-renders (a five-paper report takes half a second
#: to render, on the cores the claims run on): the interval grows with the time a render takes, to about 17 s
#: on the quick run; the final reports are written when the run ends whatever the share
REPORT_SHARE = 0.03


#: where a run keeps its simulations (:mod:`dpaudit.bandits.cache`), inside its output folder
SIMULATION_CACHE = Path(".cache") / "simulations"

#: where the claims' plots go; every file in it is listed by one record of results.json
PLOTS_DIR = "plots"


@dataclass
class RunOptions:
    selectors: list[str] = field(default_factory=list)
    budget: str = "quick"
    seed: int = 0
    workers: int | None = None
    alpha: float = 0.01
    out: Path = Path("dpaudit-report")
    resume: bool = False
    #: audit every claim, reusing nothing of the records already in ``out``
    fresh: bool = False
    scheduler: str | None = None
    timeout: float | None = None
    suite_paths: list[str] = field(default_factory=list)
    progress_bar: bool | None = None


@dataclass
class RunSummary:
    """A run's records (sorted by claim id), its folder and how many records ``--resume`` kept: what
    :func:`run` returns, and what :meth:`load` (``dpaudit.read_results``) reads back from a folder."""

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

    def to_frame(self) -> Any:
        """The records as a pandas DataFrame, one row per claim (:func:`dpaudit.reports.frames.results_frame`
        has the columns and dtypes)."""
        return results_frame(self.records)

    @classmethod
    def load(cls, folder: Path | str) -> RunSummary:
        """The run in ``folder`` (the ``--out`` of ``dpaudit run``), read from its ``results.json``; ``reused``
        is 0. A folder that is not there, has no ``results.json`` or a damaged one raises :class:`ValueError`
        in one line naming it."""
        run = load_run(Path(folder))
        return cls(list(run.records.values()), Path(folder), 0)


@dataclass
class Plan:
    """The selected entries and the share of alpha each statistical one gets (Bonferroni); ``skipped``:
    the ids of selected entries that run only at other budgets."""

    entries: list[Entry]
    statistical: int
    alpha_share: float
    skipped: list[str] = field(default_factory=list)
    #: the selected suites' titles by key (a report titles a user's suite by them)
    titles: dict[str, str] = field(default_factory=dict)
    #: why each skipped entry is left out (the reports list them with it)
    reasons: dict[str, str] = field(default_factory=dict)
    #: the statements tables of the papers whose suites the run selected (the reports' coverage section)
    statements: dict[str, dict] = field(default_factory=dict)

    def alpha_of(self, entry: Entry) -> float | None:
        return self.alpha_share if entry.statistical else None


def _validate(options: RunOptions) -> None:
    if options.budget not in BUDGETS:
        raise UsageError(f"--budget must be one of {', '.join(BUDGETS)}, got {options.budget!r}")
    try:
        check_seed(options.seed)
    except ValueError as exc:
        raise UsageError(f"--seed: {exc}") from None
    if not 0 < options.alpha < 1:
        raise UsageError(f"--alpha must be in (0, 1), got {options.alpha}")
    if options.fresh and options.resume:
        raise UsageError("--fresh and --resume contradict each other: --fresh audits every claim again")
    if options.timeout is not None and options.timeout <= 0:
        raise UsageError(f"--timeout must be > 0 seconds, got {options.timeout}")


def plan(options: RunOptions) -> Plan:
    suites = load_suites(options.suite_paths)
    selected = select(suites, options.selectors)
    # an entry that runs only at other budgets (e.g. a figure at the paper's horizon) is left out
    entries = [e for e in selected if options.budget in e.budgets]
    if selected and not entries:
        raise UsageError(f"the selected claims run only at other budgets than {options.budget} (e.g. "
                         f"{selected[0].id}: {', '.join(selected[0].budgets)})")
    statistical = sum(e.statistical for e in entries)
    used = {e.claim_id.suite for e in entries}
    titles = {s.key: s.title for s in suites.values() if s.key in used and s.title}
    left_out = [e for e in selected if options.budget not in e.budgets]
    return Plan(entries, statistical, bonferroni(options.alpha, statistical), [e.id for e in left_out], titles,
                {e.id: f"runs only at the {' and '.join(e.budgets)} budget{'s' if len(e.budgets) > 1 else ''} "
                       f"(dpaudit run --budget {e.budgets[-1]} {e.id})" for e in left_out},
                {key: as_record(load_table(key)) for key in PAPERS if key in used})


def _dispatch(
    executor: Executor, tasks: dict[str, ClaimTask], died: Any, notify: Any = print
) -> Iterator[ClaimOutcome]:
    """Run ``tasks`` and yield their outcomes as they finish.

    If a worker process dies (a crash in native code, ``os._exit``), the pool is rebuilt and the
    unfinished claims run one at a time, so the one that kills its worker is identified and
    recorded as an error by ``died(key, exc)`` while the others still complete.
    """
    pending = dict(tasks)
    isolate = False
    while pending:
        batch = dict([next(iter(pending.items()))]) if isolate else dict(pending)
        futures: dict[Future, str] = {executor.submit(run_claim, task): key for key, task in batch.items()}
        broken = False
        for future in executor.as_completed(futures):
            key = futures[future]
            try:
                outcome = future.result()
            except getattr(executor, "worker_lost", ()) as exc:  # a cluster reran it, and it killed every worker
                outcome = died(key, exc)
            except BrokenProcessPool as exc:
                broken = True
                if not isolate:
                    continue  # several claims were in flight: rerun them one at a time
                outcome = died(key, exc)
            pending.pop(key)
            yield outcome
        if broken and isinstance(executor, ProcessExecutor):
            if not isolate:
                notify("a worker process died; rerunning the unfinished claims one at a time")
            isolate = True
            executor.restart()


def run(options: RunOptions) -> RunSummary:
    """Audit the selected entries into ``options.out``, holding the folder's lock throughout.

    SIGINT and SIGTERM stop the run (:class:`Interrupted`): the workers are stopped at once, and
    ``results.json`` (every finished record) and the reports are written once more, consistently."""
    _validate(options)
    selected = plan(options)
    executor = make_executor(options.workers, options.scheduler)
    out = Path(options.out)
    prepare_output_dir(out)
    try:
        with OutputLock(out), stop_on_signals():
            return _run_locked(options, selected, executor, out)
    finally:
        executor.shutdown(cancel=True)  # a no-op after a run that finished; stops the workers otherwise


def _run_locked(options: RunOptions, selected: Plan, executor: Executor, out: Path) -> RunSummary:
    header: dict[str, Any] = {
        "seed": options.seed,
        "budget": options.budget,
        "alpha": options.alpha,
        "alpha_per_statistical_claim": selected.alpha_share,
        "statistical_claims": selected.statistical,
        "selectors": list(options.selectors),
        "suite_paths": list(options.suite_paths),
        "suites": selected.titles,
        "claims": len(selected.entries),
        "left_out": [{"claim_id": cid, "reason": selected.reasons.get(cid, "")} for cid in selected.skipped],
        "statements": selected.statements,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "finished": None,
    }
    store = ResultsStore(out / "results.json", header)
    progress = Progress(len(selected.entries), bar=options.progress_bar)
    keys = content_keys(selected, options)
    resumption = Resumption()
    if not options.fresh:
        expected = {
            e.claim_id.key: {"key": keys[e.claim_id.key], "run_seed": options.seed, "budget": options.budget,
                             "alpha": selected.alpha_of(e)}
            for e in selected.entries
        }
        try:
            resumption = store.reusable(expected, strict=options.resume)
        except UnreadableResults as exc:
            progress.message(str(exc))
        except ValueError as exc:
            progress.close()
            raise UsageError(str(exc)) from None
        for record in resumption.kept.values():
            store.put(record)
    reused = resumption.kept
    _remove_stale_plots(out, reused.values())
    write_all(out, store)

    by_key = {e.claim_id.key: e for e in selected.entries}
    tasks = {
        key: ClaimTask(
            claim_id=e.id,
            run_seed=options.seed,
            budget=options.budget,
            alpha=selected.alpha_share,
            timeout=options.timeout if options.timeout is not None else e.timeout_for(options.budget),
            suite_paths=tuple(options.suite_paths),
            cache_dir=str(out / SIMULATION_CACHE),
            key=keys[key],
        )
        for key, e in by_key.items()
        if key not in reused
    }
    progress.advance(len(reused))
    if selected.skipped:
        progress.message(f"{len(selected.skipped)} claim(s) run only at other budgets, left out at {options.budget}: "
                         + ", ".join(selected.skipped[:5]) + (" ..." if len(selected.skipped) > 5 else ""))
    if reused or resumption.rerun or resumption.dropped:
        progress.message(resumption.describe(store.path, len(tasks), resume=options.resume))
    untrusted = resumption.warning(store.path)
    if untrusted:
        progress.message(untrusted)

    def died(key: str, exc: BaseException) -> ClaimOutcome:
        entry = by_key[key]
        seq = claim_seed_sequence(options.seed, seed_id(entry.id))
        ctx = RunContext(options.seed, options.budget, selected.alpha_share, seq)
        error = RuntimeError(f"the worker process running this claim died ({exc})")
        return ClaimOutcome(error_record(entry, entry.id, error, ctx).to_dict())

    last_render = 0.0
    render_interval = REPORT_INTERVAL
    try:
        for outcome in _dispatch(executor, tasks, died, progress.message):
            with signals_held():  # a plot and the record that lists it are written together
                for name, png in outcome.plots.items():
                    atomic_write(out / name, png)
                store.put(outcome.record)
                store.write()
            r = outcome.record
            progress.claim_done(r["claim_id"], r["verdict"], r["outcome"], r["seconds"])
            if time.monotonic() - last_render >= render_interval:
                started = time.monotonic()
                with signals_held():
                    write_reports(out, store.document())
                last_render = time.monotonic()
                render_interval = max(REPORT_INTERVAL, (last_render - started) / REPORT_SHARE)
    except KeyboardInterrupt:
        executor.shutdown(cancel=True)  # before the final writes: their claims' results would be dropped
        raise
    else:
        executor.shutdown()
        header["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
        report_warnings(progress, store.records.values())
    finally:
        progress.close()
        write_all(out, store)
    records = [AuditResult.from_dict(r) for r in store.document()["records"]]
    return RunSummary(records, out, len(reused))


def content_keys(selected: Plan, options: RunOptions) -> dict[str, str | None]:
    """Each selected entry's content key in this run (:mod:`dpaudit.runner.keys`), by claim-id key."""
    maker = KeyMaker()
    return {e.claim_id.key: maker.key(e, run_seed=options.seed, budget=options.budget, alpha=selected.alpha_of(e))
            for e in selected.entries}


def write_all(out: Path, store: ResultsStore) -> None:
    """Write ``results.json`` and the reports from the same records, with stop signals held, so that
    a run stopped at any moment leaves them in agreement (junit.xml never lags results.json)."""
    with signals_held():
        document = store.document()
        store.write()
        write_reports(out, document)


def _remove_stale_plots(out: Path, kept: Any) -> None:
    """Delete the plots no kept record lists: a previous run's plots must not pass for this run's."""
    plots = out / PLOTS_DIR
    if not plots.is_dir():
        return
    listed = {(out / name).resolve() for record in kept for name in record.get("plots") or []}
    for path in plots.iterdir():
        if path.is_file() and path.resolve() not in listed:
            path.unlink(missing_ok=True)


__all__ = ["Plan", "RunOptions", "RunSummary", "plan", "run"]
