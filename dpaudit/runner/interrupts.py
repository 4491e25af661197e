"""Signals during a run: SIGINT and SIGTERM stop it the same way, and the final writes are not cut short.

By default SIGTERM kills the process on the spot, so a run stopped by a CI timeout or ``kill`` left
its workers running and its reports behind ``results.json``. In a run both signals raise
:class:`Interrupted` in the main thread instead; the runner then stops its workers, writes every output
once more and the command exits with 128 + the signal number.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The run was stopped by ``signum``."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise :class:`Interrupted` (main thread only: signal
    handlers can be set nowhere else, and a run in another thread keeps the default behaviour)."""
    if not _in_main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise Interrupted(signum)

    with _handled_by(interrupt):
        yield


@contextlib.contextmanager
def _handled_by(handler: Any) -> Iterator[None]:
    """STOP_SIGNALS go to ``handler`` inside the block; the previous handlers are restored after it."""
    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back until the block ends, so the outputs written in it are all
    written; a signal that arrived meanwhile stops the run (raises :class:`Interrupted`) right after.

    A handler that notes the signal, not a signal mask: Python runs handlers in the main thread
    whichever thread the kernel delivered the signal to, so masking the main thread would not hold it."""
    if not _in_main_thread():
        yield
        return
    arrived: list[int] = []

    def note(signum: int, frame: Any) -> None:
        arrived.append(signum)

    with _handled_by(note):
        yield
    if arrived:
        raise Interrupted(arrived[0])
