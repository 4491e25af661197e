"""A claim's time limit, in a worker process's main thread and on a Dask worker thread alike.

In a process's main thread (local worker processes) SIGALRM interrupts the audit, even inside a
blocking call such as ``time.sleep``. Signals reach only the main thread, so on a Dask worker thread
the audit runs in a thread of its own under a watchdog: the watchdog raises :class:`AuditTimeout`
in that thread (``PyThreadState_SetAsyncExc``), which lands at its next Python bytecode, so an audit
looping in Python stops within one batch. A thread blocked in one long call (a sleep, a socket wait,
a native routine) cannot be interrupted from outside; the worker's thread then stops waiting for it
``grace`` seconds after the limit, records the timeout and takes its next claim, and the stuck
thread finishes in the background (a daemon thread, its result discarded). A native call that holds
the GIL stalls every thread of its process; only a process per claim would stop that.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import signal
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ..core.errors import AuditTimeout

T = TypeVar("T")

#: seconds past the limit a worker thread waits for an audit blocked in one call before moving on
GRACE = 1.0


def timeout_message(seconds: float) -> str:
    return f"the audit ran longer than its time limit of {seconds:g} s"


def call_with_time_limit(fn: Callable[[], T], seconds: float, grace: float = GRACE) -> T:
    """``fn()``, or :class:`AuditTimeout` once it has run ``seconds`` (no limit when ``seconds <= 0``).

    Off the main thread, ``fn`` runs in a thread of its own, and a call that cannot be interrupted is
    abandoned ``grace`` seconds after the limit. An exception of ``fn`` propagates with the same
    traceback on either path (this function's frame, then ``fn``'s), so an error record does not
    depend on where the claim ran."""
    if seconds <= 0:
        return fn()
    if _signals_reach_this_thread():
        outcome = _Outcome.of(fn, _alarm(seconds))
    else:
        outcome = _in_watched_thread(fn, seconds, grace)
    if outcome.error is not None:
        raise outcome.error.with_traceback(outcome.traceback)
    return outcome.value


class _Outcome:
    """What a call under a limit returned or raised; the traceback starts at the called function's frame.
    The limit's exception is caught wherever it lands, in the call or as the limit ends."""

    value: Any = None
    error: BaseException | None = None
    traceback: types.TracebackType | None = None

    @classmethod
    def of(cls, fn: Callable[[], Any], limit: contextlib.AbstractContextManager[None]) -> _Outcome:
        outcome = cls()
        try:
            with limit:
                outcome.value = fn()
        except BaseException as exc:  # noqa: BLE001 - raised again by the caller, in its own thread
            outcome.error, outcome.traceback = exc, exc.__traceback__.tb_next if exc.__traceback__ else None
        return outcome


def _signals_reach_this_thread() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise AuditTimeout(timeout_message(seconds))

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    # an asynchronous exception is raised from its class, without arguments: the class carries the message
    expired = type("AuditTimeout", (AuditTimeout,), {"__init__": lambda self, *a: AuditTimeout.__init__(
        self, timeout_message(seconds))})
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


def _in_watched_thread(fn: Callable[[], Any], seconds: float, grace: float) -> _Outcome:
    outcome = _Outcome()

    context = contextvars.copy_context()  # the audit sees the caller's context variables, as in its own thread

    def audit() -> None:
        nonlocal outcome
        outcome = _Outcome.of(fn, _watchdog(seconds))

    thread = threading.Thread(target=context.run, args=(audit,), name="dpaudit-audit", daemon=True)
    thread.start()
    thread.join(seconds + grace)
    if thread.is_alive():
        raise AuditTimeout(f"{timeout_message(seconds)}; it was blocked in a call that cannot be interrupted "
                           f"and was left to finish in the background")
    return outcome


__all__ = ["GRACE", "call_with_time_limit", "timeout_message"]
