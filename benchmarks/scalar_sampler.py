"""Throughput of :func:`dpaudit.scalar` (a one-output-per-call sampler spread over processes) against the
loop a user would write in one process, run side by side.

The sampler is a library-style scalar mechanism: an exact discrete Laplace draw (Canonne, Kamath and
Steinke 2020, Algorithm 2, with Bernoulli(exp(-x)) coins from uniform draws), one Python call per
output, costing a few tens of microseconds as OpenDP's and diffprivlib's per-call mechanisms do. Both
sides draw the same number of outputs from a numpy Generator; the ratio is the loop's time over
dpaudit's (above 1: dpaudit is faster). Target: at least 1.8 on 2 cores. Run:

    python benchmarks/scalar_sampler.py [--samples 1000000] [--jobs 2] [--repeats 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import dpaudit


def bernoulli_exp(gamma: float, rng: np.random.Generator) -> bool:
    """A Bernoulli(exp(-gamma)) coin from uniform draws only (CKS 2020, Algorithm 1, for gamma <= 1)."""
    k = 1
    while rng.random() < gamma / k:
        k += 1
    return k % 2 == 1


def discrete_laplace(data: float, rng: np.random.Generator, scale: int = 3) -> int:
    """``data`` plus exact discrete Laplace noise of integer scale (CKS 2020, Algorithm 2)."""
    if scale < 1:
        raise ValueError("scale must be a positive integer")
    while True:
        u = int(rng.integers(scale))
        if not bernoulli_exp(u / scale, rng):
            continue
        v = 0
        while bernoulli_exp(1.0, rng):
            v += 1
        magnitude = u + scale * v
        negative = rng.random() < 0.5
        if negative and magnitude == 0:
            continue
        return int(data) + (-magnitude if negative else magnitude)


def loop(n: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.asarray([discrete_laplace(0, rng) for _ in range(n)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    sampler = dpaudit.scalar(discrete_laplace, n_jobs=args.jobs, progress=False)

    def timed(fn) -> float:
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            fn(args.samples)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    per_call = timed(lambda n: loop(max(1, n // 20))) / max(1, args.samples // 20)
    baseline = timed(loop)
    ours = timed(lambda n: sampler.sample(0, n, np.random.default_rng(0)))
    print(f"scalar discrete Laplace, {per_call * 1e6:.1f} us per call, {args.samples:,} outputs, "
          f"{args.jobs} processes, median of {args.repeats}")
    print(f"  single-process loop   {baseline:8.2f} s")
    print(f"  dpaudit.scalar        {ours:8.2f} s")
    print(f"  ratio (loop / dpaudit) {baseline / ours:7.2f}   target >= 1.8 on 2 cores")


if __name__ == "__main__":
    main()
