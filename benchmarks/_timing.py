"""Timing shared by the benchmark scripts: a rate is items per second at the median of repeats."""

from __future__ import annotations

import statistics
import time


def rate(fn, n: int, repeats: int) -> float:
    """Items per second of ``fn(n)``, from the median of ``repeats`` wall-clock timings."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(n)
        times.append(time.perf_counter() - start)
    return n / statistics.median(times)
