"""Claims on a Dask cluster (``dpaudit run --scheduler ADDRESS`` or ``local:N``; ``pip install dpaudit[dask]``).

Each claim is one task (:func:`dpaudit.runner.worker.run_claim` on its :class:`ClaimTask`, which
carries only plain data), submitted with ``pure=False`` so that two runs never share a cached result.
Results are the same bytes as a local run's for the same seed: a claim's randomness comes from its
own seed (run seed and claim id), not from where it runs.

A worker lost mid-run (its process killed, its machine gone) is the scheduler's to handle: it reruns
the worker's tasks elsewhere, up to ``distributed.scheduler.allowed-failures`` times (``local:N``
sets :data:`ALLOWED_FAILURES`); a claim that kills every worker it runs on then fails with
``KilledWorker``, and the runner records it as an error, as it does a claim that kills a local worker
process. Timeouts: Dask runs tasks on worker threads, where SIGALRM cannot reach; there the audit
runs in a thread of its own under a watchdog, and one blocked in an uninterruptible call is abandoned
(:func:`dpaudit.runner.time_limits.call_with_time_limit`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..core.errors import UsageError

INSTALL = "running on a Dask cluster needs distributed: pip install 'dpaudit[dask]'"
#: times a local cluster reruns a task whose worker died, before the claim is recorded as an error
ALLOWED_FAILURES = 2


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise UsageError(INSTALL) from None
    return distributed


def connect(scheduler: str) -> tuple[Any, Any]:
    """A client of the scheduler at ``scheduler`` (``tcp://host:8786``), or of a new local cluster of N
    single-threaded worker processes (``local:N``); and the cluster to close after the run (or None)."""
    count = scheduler.partition(":")[2] if scheduler.startswith("local:") else None
    if count is not None and (not count.isdigit() or int(count) < 1):
        raise UsageError(f"--scheduler {scheduler}: give local:N with N >= 1 worker processes")
    distributed = _distributed()
    if count is not None:
        import dask

        with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES}):
            cluster = distributed.LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=logging.WARNING)
        return distributed.Client(cluster), cluster
    try:
        return distributed.Client(scheduler, timeout="10s"), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"--scheduler {scheduler}: cannot reach the scheduler ({exc})") from None


def disconnect(client: Any, cluster: Any) -> None:
    """Close a client and the local cluster :func:`connect` started for it (if any)."""
    try:
        client.close()
    finally:
        if cluster is not None:
            cluster.close()


class DaskExecutor:
    """The runner's executor interface on a ``distributed`` client."""

    def __init__(self, scheduler: str):
        self.scheduler = scheduler
        self.client, self._cluster = connect(scheduler)
        self.worker_lost = (_distributed().KilledWorker,)
        self._submitted: list[Any] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        future = self.client.submit(fn, *args, pure=False)
        self._submitted.append(future)
        return future

    def as_completed(self, futures: Iterable[Any]) -> Iterator[Any]:
        return iter(_distributed().as_completed(list(futures)))

    def shutdown(self, cancel: bool = False) -> None:
        """Close the client (cancelling the run's unfinished tasks when asked) and a local cluster; once."""
        if self.client is None:
            return
        client, self.client = self.client, None
        try:
            if cancel:
                client.cancel([f for f in self._submitted if not f.done()])
        finally:
            disconnect(client, self._cluster)


__all__ = ["ALLOWED_FAILURES", "DaskExecutor", "connect", "disconnect"]
