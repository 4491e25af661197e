"""Executors the runner submits claims to.

The runner needs only ``submit(fn, *args) -> future``, ``as_completed(futures)`` and
``shutdown()``, the shape of :mod:`concurrent.futures` and of a Dask distributed ``Client``, so
a distributed scheduler can be dropped in here without touching the runner.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from ..core.errors import UsageError


class Executor(Protocol):
    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future: ...

    def as_completed(self, futures: Iterable[cf.Future]) -> Iterator[cf.Future]: ...

    def shutdown(self, cancel: bool = False) -> None: ...


#: seconds a worker gets to exit after SIGTERM when a run is interrupted, before SIGKILL
STOP_GRACE = 2.0


def _start_worker(parent: int, threads: int) -> None:
    """Worker initializer: exit when the run that started this worker is gone (killed with
    SIGKILL, say), instead of waiting forever for work that will never come.

    A worker also ignores SIGINT: Ctrl-C reaches the whole process group, and the run, not each
    worker, decides what an interruption does (it keeps the finished records and stops the workers).

    Its BLAS and OpenMP pools get ``threads`` threads (the cores over the workers): each pool otherwise
    uses one thread per core, and the workers' threads, which spin while they wait, would take the cores
    from each other. (``OPENBLAS_NUM_THREADS=1`` in the environment as well showed no effect that stands out of
    the run-to-run noise: in three back-to-back pairs of quick runs it was a sixth faster twice and a sixth
    slower once; docs/benchmarks.md.)"""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the run's handler, inherited by fork: SIGTERM stops it

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="dpaudit-parent-watch", daemon=True).start()


class ProcessExecutor:
    """Local worker processes (:class:`concurrent.futures.ProcessPoolExecutor`)."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = self._new_pool()

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(max_workers=self.workers, initializer=_start_worker,
                                      initargs=(os.getpid(), worker_threads(self.workers)))

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future:
        return self._pool.submit(fn, *args)

    def as_completed(self, futures: Iterable[cf.Future]) -> Iterator[cf.Future]:
        return cf.as_completed(list(futures))

    def restart(self) -> None:
        """Replace a pool broken by a worker that died."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()

    def shutdown(self, cancel: bool = False) -> None:
        """Wait for the workers to finish, or (``cancel``) stop them now: the claims they are running
        are dropped, and a claim that runs for minutes must not keep its worker busy after the run ended."""
        if not cancel:
            self._pool.shutdown(wait=True)
            return
        workers = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + STOP_GRACE
        for process in workers:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1.0)


class InlineExecutor:
    """Runs each claim in this process when it is collected (``--workers 0``; for debugging)."""

    def __init__(self) -> None:
        self._pending: dict[cf.Future, tuple[Callable[..., Any], tuple[Any, ...]]] = {}

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> cf.Future:
        future: cf.Future = cf.Future()
        self._pending[future] = (fn, args)
        return future

    def as_completed(self, futures: Iterable[cf.Future]) -> Iterator[cf.Future]:
        for future in list(futures):
            fn, args = self._pending.pop(future)
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except Exception as exc:  # noqa: BLE001 - delivered through the future
                    future.set_exception(exc)
            yield future

    def shutdown(self, cancel: bool = False) -> None:
        self._pending.clear()


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def worker_threads(workers: int) -> int:
    """The BLAS/OpenMP threads each of ``workers`` local workers gets: the cores shared out, at least one."""
    return max(1, default_workers() // max(workers, 1))


def make_executor(workers: int | None, scheduler: str | None) -> Executor:
    if scheduler is not None:
        if workers is not None:
            raise UsageError("--workers is for local runs; on a Dask cluster the cluster's workers run the claims")
        from .dask import DaskExecutor

        return DaskExecutor(scheduler)
    if workers is None:
        workers = default_workers()
    if workers < 0:
        raise UsageError(f"--workers must be >= 0, got {workers}")
    return InlineExecutor() if workers == 0 else ProcessExecutor(workers)
