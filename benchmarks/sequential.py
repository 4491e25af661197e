"""Samples to a verdict: sequential black-box audits beside the fixed-size ones, on every suite's privacy entries.

    python benchmarks/sequential.py [--budget standard] [--suites classic,private-bandits,...] [--seed 0]
        [--only refuted|not-refuted]

Every privacy entry audited from samples (``auditor="statistical"``, or ``"auto"`` on a mechanism with no exact
law) with a pure or approximate DP claim is audited twice at the budget's samples per side, the same seed and the
entry's confidence: once sequentially (``sequential=True``, bets on every batch, stopping when refuted) and once at
the fixed size (``sequential=False``). Each line prints both verdicts, the samples each drew per side (selection
included), the ratio fixed / sequential, both certified bounds and both times. Then, over the entries the fixed
audit refutes: the median samples each drew, their ratio, and any verdict the sequential audit lost; over the
rest, the certified bounds' median ratio (the sequential audit's final test spends 0.9 of the level).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import dpaudit
from dpaudit import ApproxDP, PureDP
from dpaudit.suite import PrivacyEntry, load_suites
from dpaudit.suite.budgets import at_budget


def entries(suites: list[str] | None) -> list[tuple[str, PrivacyEntry]]:
    found = []
    for name, suite in load_suites().items():
        if suites and name not in suites:
            continue
        for entry in suite.entries:
            if not isinstance(entry, PrivacyEntry) or not isinstance(entry.claim, (PureDP, ApproxDP)):
                continue
            if entry.plan.auditor.name != "black-box":  # audited exactly (the fallback is not benchmarked here)
                continue
            found.append((name, entry))
    return found


def run(entry: PrivacyEntry, samples: int, seed: int, sequential: bool):
    start = time.perf_counter()
    result = dpaudit.audit_privacy(
        entry.subject, entry.claim, pairs=entry.pairs, neighbours=entry.relation, auditor="statistical",
        samples=samples, confidence=0.99, seed=seed, **{**entry.options, "sequential": sequential},
    )
    value = result.epsilon_lower if isinstance(entry.claim, PureDP) else result.delta_lower
    return result.verdict, result.samples, value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", default="standard", help="the suites' budget whose samples are used")
    parser.add_argument("--suites", default=None, help="comma-separated suite names (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("refuted", "not-refuted"), default=None,
                        help="only the entries expected to be refuted (or not) at the budget")
    args = parser.parse_args()
    chosen = entries(args.suites.split(",") if args.suites else None)
    print(f"{'entry':58} {'fixed':>12} {'sequential':>12} {'drawn fixed':>12} {'sequential':>11} {'ratio':>7} "
          f"{'bound fixed':>11} {'sequential':>10} {'s fixed':>8} {'seq':>6}")
    refuted, kept, lost, seconds = [], [], [], [0.0, 0.0]
    for _, entry in chosen:
        if args.only and entry.expected_at(args.budget) != args.only:
            continue
        samples = at_budget(entry.samples, args.budget)
        fixed = run(entry, samples, args.seed, sequential=False)
        seq = run(entry, samples, args.seed, sequential=True)
        seconds[0] += fixed[3]
        seconds[1] += seq[3]
        ratio = fixed[1] / seq[1]
        print(f"{entry.id[:58]:58} {fixed[0]:>12} {seq[0]:>12} {fixed[1]:>12,} {seq[1]:>11,} {ratio:>7.1f} "
              f"{fixed[2]:>11.4g} {seq[2]:>10.4g} {fixed[3]:>8.2f} {seq[3]:>6.2f}", flush=True)
        if fixed[0] == "refuted":
            refuted.append((fixed[1], seq[1]))
            if seq[0] != "refuted":
                lost.append(entry.id)
        elif fixed[2] and math.isfinite(fixed[2]) and fixed[2] > 0:
            kept.append(seq[2] / fixed[2])
    if refuted:
        med_fixed = statistics.median(f for f, _ in refuted)
        med_seq = statistics.median(s for _, s in refuted)
        print(f"\nrefuted by the fixed audit: {len(refuted)}; median samples drawn per side: fixed {med_fixed:,.0f}, "
              f"sequential {med_seq:,.0f} ({med_fixed / med_seq:.1f}x fewer); verdicts lost: {len(lost)} {lost}")
    if kept:
        print(f"not refuted: {len(kept)}; certified bound sequential / fixed: median {statistics.median(kept):.3f}, "
              f"least {min(kept):.3f}")
    print(f"seconds in all: fixed {seconds[0]:.1f}, sequential {seconds[1]:.1f} ({seconds[0] / seconds[1]:.1f}x)")


if __name__ == "__main__":
    main()
