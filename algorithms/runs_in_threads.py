"""A compiled loop over runs, cut into contiguous ranges of runs played in threads.

The compiled rounds (:mod:`dpaudit.algorithms.linear.compiled`) take every run through a block of rounds, one run
after another, each run reading and writing only its own rows of the state arrays. Such a loop, compiled with
``nogil=True``, can run on several ranges of runs at once from plain Python threads: the arithmetic of each run is
the same whichever thread plays it, so the results are bit for bit those of one call over every run.

Plain threads, not numba's ``parallel=True``: numba's default threading layer (workqueue) must not be entered from
two threads at once, and Dask's thread workers would do just that; a thread pool of our own has no such limit.

The number of threads is numba's setting, ``NUMBA_NUM_THREADS`` (the machine's cores unless set), read without
starting numba's own threads, and never more than one per :data:`MIN_RUNS_PER_THREAD` runs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

#: fewest runs a thread is given: below it a block's dispatch costs more than the thread saves
MIN_RUNS_PER_THREAD = 8

_pool: tuple[int, int, ThreadPoolExecutor] | None = None  # (the process id it was made in, its threads, the pool)
_lock = threading.Lock()


def thread_count() -> int:
    """Threads a compiled loop over runs may use: ``NUMBA_NUM_THREADS`` (numba's config, which defaults to the
    machine's cores), at least 1."""
    try:
        import numba
    except ImportError:
        return 1
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def _executor(workers: int) -> ThreadPoolExecutor:
    """One pool per process (a pool copied into a forked child has no threads: the child makes its own)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid() or _pool[1] < workers:
            _pool = (os.getpid(), workers, ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dpaudit-runs"))
        return _pool[2]


def run_ranges(runs: int, threads: int | None = None) -> list[tuple[int, int]]:
    """Contiguous ranges [lo, hi) covering 0 .. runs - 1, one per thread, as even as can be."""
    threads = thread_count() if threads is None else threads
    parts = max(1, min(threads, runs // MIN_RUNS_PER_THREAD))
    cuts = [runs * k // parts for k in range(parts + 1)]
    return [(cuts[k], cuts[k + 1]) for k in range(parts)]


def over_runs(kernel: Callable[..., Any], runs: int, *args: Any, threads: int | None = None) -> None:
    """``kernel(lo, hi, *args)`` for contiguous ranges of runs covering 0 .. runs - 1: the first range on the
    calling thread, the others on the pool's threads at the same time. ``kernel`` must release the GIL and touch
    only its runs' rows of any array it writes. An exception in any range is raised here, after every range has
    ended (no thread is left writing into the arrays)."""
    ranges = run_ranges(runs, threads)
    if len(ranges) == 1:
        kernel(0, runs, *args)
        return
    pool = _executor(len(ranges) - 1)
    futures = [pool.submit(kernel, lo, hi, *args) for lo, hi in ranges[1:]]
    error = None
    try:
        kernel(ranges[0][0], ranges[0][1], *args)
    except BaseException as exc:  # wait for the other ranges before raising
        error = exc
    for future in futures:
        exc = future.exception()
        if error is None and exc is not None:
            error = exc
    if error is not None:
        raise error


__all__ = ["MIN_RUNS_PER_THREAD", "over_runs", "run_ranges", "thread_count"]
