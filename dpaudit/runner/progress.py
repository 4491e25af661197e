"""Progress of a run: a bar on a terminal, one plain line per claim otherwise (CI logs), each with the time the run
has taken and an estimate of the time left."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import TextIO

from tqdm import tqdm

from ..core.durations import timing


class Progress:
    """A bar on a terminal (tqdm, with its own rate and estimate), else a line per claim. Off a terminal each line
    ends with the run's time so far and, while claims remain, the time left at the rate claims have finished so far
    (the claims counted by :meth:`advance`, reused from an earlier run, take no time and are left out of the rate)."""

    def __init__(self, total: int, done: int = 0, stream: TextIO | None = None, bar: bool | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.stream = stream or sys.stderr
        self.total = total
        self.done = done
        self.finished = 0  # claims audited in this run (not reused)
        self.counts: Counter[str] = Counter()
        self.clock = clock
        self.start = clock()
        use_bar = self.stream.isatty() if bar is None else bar
        self._bar = tqdm(total=total, initial=done, file=self.stream, unit="claim") if use_bar else None

    def claim_done(self, claim_id: str, verdict: str, outcome: str, seconds: float) -> None:
        self.done += 1
        self.finished += 1
        # a bare "refuted" reads as an alarm: the line and the bar's counts both name the outcome (one name per
        # outcome, as results.json, the frames and the report have it) wherever it is not a pass
        self.counts[verdict if outcome == "pass" else outcome] += 1
        surprising = outcome not in ("pass", "expected-refutation")
        line = f"[{self.done}/{self.total}] {claim_id}: {verdict} ({seconds:.1f} s)"
        line += "" if outcome == "pass" else f"  [{outcome}]"
        if self._bar is None:
            print(line + self._timing(), file=self.stream, flush=True)
            return
        if surprising:  # keep what needs attention on screen above the bar
            self._bar.write(line, file=self.stream)
        self._bar.set_postfix_str(" ".join(f"{k}={v}" for k, v in sorted(self.counts.items())), refresh=False)
        self._bar.update(1)

    def _timing(self) -> str:
        return timing(self.clock() - self.start, self.finished, self.total - self.done)

    def advance(self, count: int) -> None:
        """Count ``count`` claims as done without a line each (the records a run reuses)."""
        self.done += count
        if self._bar is not None and count:
            self._bar.update(count)

    def message(self, text: str) -> None:
        if self._bar is not None:
            self._bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
