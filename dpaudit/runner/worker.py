"""What runs in a worker: one claim, from its id to a JSON record and its plot.

Everything a claim needs travels as plain data (its id, the run seed, budget, alpha share,
time limit and any user suite paths), so a task can run in a local process or on a remote
worker alike. Exceptions and timeouts become ``error`` records with their traceback.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import AuditTimeout
from ..plots import plot_filename, render
from ..records import assemble_record
from ..results import AuditResult
from ..seeding import claim_seed_sequence
from ..suite import Entry, RunContext, find_entry


@dataclass(frozen=True)
class ClaimTask:
    claim_id: str
    run_seed: int
    budget: str
    alpha: float
    timeout: float
    suite_paths: tuple[str, ...] = ()
    cache_dir: str | None = None


@dataclass
class ClaimOutcome:
    record: dict[str, Any]
    plots: dict[str, bytes] = field(default_factory=dict)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`AuditTimeout` in this thread after ``seconds``.

    In a process's main thread (local worker processes) SIGALRM interrupts the audit. Elsewhere (a Dask
    worker thread) a watchdog thread raises the exception asynchronously in this thread
    (``PyThreadState_SetAsyncExc``): it lands at the next Python bytecode, so a single long native
    call (one numpy operation) finishes first; an audit loops in Python over batches, so the delay is
    one batch. A watchdog that fires as the block ends withdraws its exception.
    """
    if seconds <= 0:
        yield
        return
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        with _alarm(seconds):
            yield
        return
    with _watchdog(seconds):
        yield


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise AuditTimeout(_timeout_message(seconds))

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _timeout_message(seconds: float) -> str:
    return f"the audit ran longer than its time limit of {seconds:g} s"


@contextlib.contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    # an asynchronous exception is raised from its class, without arguments: the class carries the message
    expired = type("AuditTimeout", (AuditTimeout,), {"__init__": lambda self, *a: AuditTimeout.__init__(
        self, _timeout_message(seconds))})
    target = ctypes.c_ulong(threading.get_ident())
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def fire() -> None:
        with lock:
            if not state["done"]:
                state["fired"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(expired))

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["done"] = True
            timer.cancel()
            if state["fired"]:  # fired but not yet raised (the block ended first): withdraw it
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, None)


def error_record(entry: Entry | None, claim_id: str, exc: BaseException, ctx: RunContext,
                 seconds: float = 0.0) -> AuditResult:
    """The record of a claim that could not be audited (``entry`` None: its id was not found)."""
    return assemble_record(None, entry=entry, run=ctx, error=exc, claim_id=claim_id, seconds=seconds)


def run_claim(task: ClaimTask) -> ClaimOutcome:
    start = time.perf_counter()
    entry: Entry | None = None
    ctx = RunContext(task.run_seed, task.budget, task.alpha, claim_seed_sequence(task.run_seed, task.claim_id),
                     task.cache_dir)
    plots: dict[str, bytes] = {}
    try:
        entry = find_entry(task.claim_id, task.suite_paths)
        with time_limit(task.timeout):
            audit = entry.audit(ctx)
        png = render(audit.finding, f"{entry.id}: {audit.finding.verdict}")
        if png is not None:
            plots[plot_filename(entry.id)] = png
        result = assemble_record(audit, entry=entry, run=ctx, plots=list(plots),
                                 seconds=time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 - one claim's failure must not stop the run
        result = error_record(entry, task.claim_id, exc, ctx, time.perf_counter() - start)
        plots = {}
    return ClaimOutcome(result.to_dict(), plots)
