"""How close the black-box auditor gets to the truth on the classic suite.

For every mechanism of the ``classic`` suite that can be sampled, audit its claim from samples at
confidence 0.99 and at 0.9 and print the certified lower bound next to the true value documented
in the suite (epsilon for pure-DP claims), the samples used per side and the seconds taken, with
the ratio certified / true. Then check the reference targets:

- Laplace eps = 0.1: lower bound >= 0.097 at confidence 0.99 with at most 10^7 samples per side,
  in under 30 s;
- Laplace with scale eps instead of 1/eps (true epsilon 10): lower bound >= 9.5;
- report-noisy-max releasing the max value: within 5% of its true epsilon.

    python benchmarks/privacy_auditors.py [--samples 1000000] [--target-samples 10000000]
"""

from __future__ import annotations

import argparse
import math
import time

import dpaudit
from dpaudit.suite import PrivacyEntry, load_suites


def audit(entry: PrivacyEntry, samples: int, confidence: float, seed: int = 0):
    start = time.perf_counter()
    result = dpaudit.audit_privacy(
        entry.subject, entry.claim, pairs=entry.pairs, neighbours=entry.relation, auditor="statistical",
        samples=samples, confidence=confidence, seed=seed, **{**entry.options, "sequential": False},
    )
    return result, time.perf_counter() - start


def blackbox_entries() -> list[PrivacyEntry]:
    """One entry per mechanism: the -blackbox twin where there is one, else the entry itself."""
    entries = [e for e in load_suites()["classic"].entries if isinstance(e, PrivacyEntry)]
    ids = {e.id for e in entries}
    return [e for e in entries if e.id.endswith("-blackbox") or f"{e.id}-blackbox" not in ids]


def fmt(x: float | None) -> str:
    return "—" if x is None else ("inf" if math.isinf(x) else f"{x:.4g}")


def truth_of(entry: PrivacyEntry, result) -> float | None:
    """The documented truth of the bounded quantity; for a Renyi curve, at the order the audit bounded."""
    if not isinstance(entry.truth, list):
        return entry.truth
    orders = [alpha for alpha, _ in entry.claim.points]
    alpha = (result.witness or {}).get("alpha")
    return entry.truth[orders.index(alpha)] if alpha in orders else max(entry.truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=1_000_000, help="samples per side for the table")
    parser.add_argument("--target-samples", type=int, default=10_000_000, help="samples per side for the targets")
    args = parser.parse_args()

    print(f"{'claim id':42} {'claim':26} {'true':>7} {'LB@0.99':>9} {'LB@0.9':>9} {'ratio':>6} {'samples':>9} {'s':>6}")
    for entry in blackbox_entries():
        try:
            r99, t99 = audit(entry, args.samples, 0.99)
            r90, _ = audit(entry, args.samples, 0.9)
        except dpaudit.DpauditError as exc:
            print(f"{entry.id:42} {entry.claim.describe():26} cannot be audited from samples: {exc}")
            continue
        lb99, lb90 = r99.statistic.interval[0], r90.statistic.interval[0]
        truth = truth_of(entry, r99)
        ratio = lb99 / truth if truth and math.isfinite(truth) else None
        print(f"{entry.id:42} {entry.claim.describe():26} {fmt(truth):>7} {fmt(lb99):>9} {fmt(lb90):>9} "
              f"{fmt(ratio):>6} {r99.samples:>9} {t99:6.2f}")

    print(f"\ntargets ({args.target_samples:,} samples per side, confidence 0.99):")
    suite = {e.id: e for e in load_suites()["classic"].entries}
    targets = [
        ("classic/laplace-eps0.1-blackbox", lambda lb, truth: lb >= 0.097, ">= 0.097"),
        ("classic/laplace-scale-eps-blackbox", lambda lb, truth: lb >= 9.5, ">= 9.5"),
        ("classic/noisy-max-value-blackbox", lambda lb, truth: lb >= 0.95 * truth, "within 5% of the truth"),
    ]
    for claim_id, ok, wanted in targets:
        entry = suite.get(claim_id)
        if entry is None:
            print(f"  {claim_id}: not in the suite")
            continue
        result, seconds = audit(entry, args.target_samples, 0.99)
        lb = result.statistic.interval[0]
        print(f"  {claim_id}: lower bound {fmt(lb)} (true {fmt(entry.truth)}), {seconds:.1f} s; "
              f"target {wanted}: {'met' if ok(lb, entry.truth) else 'MISSED'}")


if __name__ == "__main__":
    main()
