"""Exact versus sampled auditing of the same claims, measured side by side in one run.

For each classic mechanism with an exact distribution, time the exact auditor and the threshold
auditor (at --samples per side) on the same claim, and print what each concluded: the exact
epsilon against the certified lower bound, and the speed ratio. Run:

    python benchmarks/exact_vs_sampling.py [--samples 1000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial

import dpaudit
from dpaudit.mechanisms import AdditiveNoiseMechanism, DiscreteLaplaceMechanism, Laplace, LaplaceMechanism

CASES = [
    ("Laplace eps=0.1", LaplaceMechanism(0.1), dpaudit.PureDP(0.1), [(0.0, 1.0)]),
    ("Laplace eps=1", LaplaceMechanism(1.0), dpaudit.PureDP(1.0), [(0.0, 1.0)]),
    ("Laplace scale eps (true 10)", AdditiveNoiseMechanism(Laplace(0.1)), dpaudit.PureDP(0.1), [(0.0, 1.0)]),
    ("Discrete Laplace eps=1", DiscreteLaplaceMechanism(1.0), dpaudit.PureDP(1.0), [(0, 1)]),
]


def timed(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'mechanism':30} {'exact eps':>10} {'exact s':>9} {'sampled eps >=':>15} {'sampled s':>10} {'ratio':>8}")
    for name, mech, claim, pairs in CASES:
        audit = partial(dpaudit.audit_privacy, mech, claim, pairs=pairs)
        t_exact, exact = timed(partial(audit, auditor="exact"), args.repeats)
        t_samp, samp = timed(partial(audit, auditor="statistical", samples=args.samples, seed=0), args.repeats)
        print(f"{name:30} {exact.epsilon_lower:10.4g} {t_exact:9.4f} {samp.epsilon_lower:15.4g} {t_samp:10.3f} "
              f"{t_samp / t_exact:7.0f}x")
    print(f"\nmedian of {args.repeats} runs; ratio = sampled seconds / exact seconds "
          f"({args.samples:,} samples per side)")


if __name__ == "__main__":
    main()
