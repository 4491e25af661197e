"""Progress of a run: a bar on a terminal, one plain line per claim otherwise (CI logs)."""

from __future__ import annotations

import sys
from collections import Counter
from typing import TextIO

from tqdm import tqdm


class Progress:
    def __init__(self, total: int, done: int = 0, stream: TextIO | None = None, bar: bool | None = None):
        self.stream = stream or sys.stderr
        self.total = total
        self.done = done
        self.counts: Counter[str] = Counter()
        use_bar = self.stream.isatty() if bar is None else bar
        self._bar = tqdm(total=total, initial=done, file=self.stream, unit="claim") if use_bar else None

    def claim_done(self, claim_id: str, verdict: str, outcome: str, seconds: float) -> None:
        self.done += 1
        expected_refutation = outcome == "expected-refutation"
        # a bare "refuted" reads as an alarm: the line and the bar's counts both say the suite expected it
        self.counts["refuted-as-expected" if expected_refutation else verdict] += 1
        surprising = outcome not in ("pass", "expected-refutation")
        said = f"{verdict}, as expected" if expected_refutation else verdict
        line = f"[{self.done}/{self.total}] {claim_id}: {said} ({seconds:.1f} s)"
        line += f"  [{outcome}]" if surprising else ""
        if self._bar is None:
            print(line, file=self.stream, flush=True)
            return
        if surprising:  # keep what needs attention on screen above the bar
            self._bar.write(line, file=self.stream)
        self._bar.set_postfix_str(" ".join(f"{k}={v}" for k, v in sorted(self.counts.items())), refresh=False)
        self._bar.update(1)

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
