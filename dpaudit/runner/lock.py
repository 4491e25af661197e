"""One run at a time per output folder.

Two runs writing the same ``--out`` would interleave their ``results.json``, reports and plots, and
both exit 0. The run holds an exclusive :func:`fcntl.flock` on ``OUT/.dpaudit.lock`` from before it
reads or writes anything there until it exits; the kernel drops the lock when the process dies, even
by SIGKILL, so a crashed run never leaves a folder locked.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path

from ..core.errors import UsageError

LOCK_NAME = ".dpaudit.lock"


def prepare_output_dir(out: Path) -> None:
    """Create ``out``; a file in its place or a folder that cannot be written is a usage error."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder; name a folder for the reports")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create the folder ({exc.strerror or exc})") from None


class OutputLock:
    """The exclusive lock of one run on its output folder (a context manager)."""

    def __init__(self, out: Path):
        self.path = Path(out) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            # no O_CLOEXEC games: worker processes forked from the run share the lock, which is right,
            # since they write into the folder on the run's behalf
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise UsageError(f"--out {self.path.parent}: cannot write there ({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_pid(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise UsageError(f"--out {self.path.parent}: cannot lock it ({exc.strerror or exc})") from None
            who = f" (process {holder})" if holder else ""
            raise UsageError(f"--out {self.path.parent} is in use by another dpaudit run{who}; wait for it to "
                             "finish or choose another --out") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None

    def __enter__(self) -> OutputLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_pid(fd: int) -> str:
    with contextlib.suppress(OSError, ValueError):
        return os.pread(fd, 32, 0).decode().strip()
    return ""
