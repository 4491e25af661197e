"""Throughput of :func:`dpaudit.scalar` (a one-output-per-call sampler spread over processes) against the
loop a user would write in one process, run side by side.

The sampler is a library-style scalar mechanism: an exact discrete Laplace draw (Canonne, Kamath and
Steinke 2020, Algorithm 2, with Bernoulli(exp(-x)) coins from uniform draws), one Python call per
output, costing a few tens of microseconds as OpenDP's and diffprivlib's per-call mechanisms do. A second row
times diffprivlib's ``LaplaceBoundedDomain`` through ``dpaudit.adapters.diffprivlib`` against a loop
over its ``randomise``. The ratio is the loop's time over dpaudit's (above 1: dpaudit is faster),
after a warm-up that starts the worker processes; each ratio is the median over pairs run in turn, and
a first row gives the ceiling of the moment: the same loop split over plain processes. Target: at least
1.8 on 2 cores. Run:

    python benchmarks/scalar_sampler.py [--samples 1000000] [--library-samples 200000] [--jobs 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

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


def library_rows(samples: int, jobs: int, paired) -> list[tuple[str, int, float, float, float]]:
    """diffprivlib's LaplaceBoundedDomain (a rejection loop in Python, tens of microseconds a call)
    through the adapter, against the loop over ``randomise`` a user writes (skipped without diffprivlib)."""
    try:
        from diffprivlib.mechanisms import LaplaceBoundedDomain
    except ImportError:
        return []
    mech = LaplaceBoundedDomain(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0, random_state=0)
    subject = dpaudit.adapters.diffprivlib(mech, n_jobs=jobs)
    subject.sampler.progress = False
    return [("diffprivlib LaplaceBoundedDomain", samples,
             *paired(lambda n: np.asarray([mech.randomise(0.5) for _ in range(n)]),
                     lambda n: subject.sample(0.5, n, np.random.default_rng(0)), samples))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--library-samples", type=int, default=200_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sampler = dpaudit.scalar(discrete_laplace, n_jobs=args.jobs, progress=False)

    def paired(baseline, ours, n: int) -> tuple[float, float, float]:
        """Median times of the two, run in turn, and the median of the pairs' ratios (robust to the
        machine's speed drifting between repeats)."""
        ours(min(n, 20_000))  # warm-up: the worker processes start once per session, not per sample
        times: list[tuple[float, float]] = []
        for _ in range(args.repeats):
            pair = []
            for fn in (baseline, ours):
                start = time.perf_counter()
                fn(n)
                pair.append(time.perf_counter() - start)
            times.append((pair[0], pair[1]))
        return (statistics.median(t[0] for t in times), statistics.median(t[1] for t in times),
                statistics.median(t[0] / t[1] for t in times))

    # what the machine's cores give right now: the same loop split over plain processes, no dpaudit
    with ProcessPoolExecutor(args.jobs) as pool:
        def split(n: int) -> None:
            list(pool.map(loop, [n // args.jobs] * args.jobs))

        rows = [("ceiling: the loop split over processes", args.samples, *paired(loop, split, args.samples))]
    rows.append(("exact discrete Laplace (CKS)", args.samples,
                 *paired(loop, lambda n: sampler.sample(0, n, np.random.default_rng(0)), args.samples)))
    rows += library_rows(args.library_samples, args.jobs, paired)
    print(f"{args.jobs} processes, {args.repeats} pairs (loop, then dpaudit.scalar)")
    print(f"{'sampler':36s} {'outputs':>9s} {'loop s':>8s} {'us/call':>8s} {'dpaudit s':>10s} {'ratio':>6s}")
    for name, n, baseline, ours, ratio in rows:
        print(f"{name:36s} {n:9,d} {baseline:8.2f} {baseline / n * 1e6:8.1f} {ours:10.2f} {ratio:6.2f}")
    print("ratio = median over pairs of the loop's time / dpaudit.scalar's (the ceiling's: / plain processes'); "
          "target >= 1.8 on 2 cores")


if __name__ == "__main__":
    main()
