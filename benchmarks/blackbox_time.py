"""Seconds of the quick run's black-box privacy audits (or of all its statistical audits), beside a baseline checkout's.

    python benchmarks/blackbox_time.py [--baseline CHECKOUT] [--budget quick] [--suites classic,...]
                                       [--auditors black-box|statistical]

Every privacy entry of the suites decided by the black-box auditor (``--auditors statistical``: every entry whose
verdict may be statistical at the budget -- black-box, Renyi, tail, conformance, regret and lower-bound audits from
samples) is audited alone, as a suite run audits it (its ``audit`` with the run's seed 0, the budget's samples and the
share of alpha a quick run gives each statistical claim, 0.01 / 200), and timed; the audit alone, without the record's
plot. With ``--baseline`` (a checkout of dpaudit, e.g. a git worktree of an earlier
commit) the same entries are timed there first, in a fresh interpreter that imports that checkout and nothing of
this one (an editable install's import hook, which would map the suites to this checkout, is set aside), and each line
prints both times, their ratio and both verdicts; the totals are split by the baseline's verdict. The two runs
follow one another, not side by side, so that they do not share the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ALPHA = 0.01 / 200  # a quick run's share of alpha per statistical claim


def timings(budget: str, suites: list[str] | None, auditors: str = "black-box") -> dict[str, tuple[float, str, str]]:
    """{entry id: (seconds, verdict, auditor)} for this interpreter's dpaudit."""
    import numpy as np

    from dpaudit.suite import PrivacyEntry, load_suites
    from dpaudit.suite.entries import RunContext

    out = {}
    for name, suite in load_suites().items():
        if suites and name not in suites:
            continue
        for entry in suite.entries:
            blackbox = isinstance(entry, PrivacyEntry) and entry.plan.auditor.name == "black-box"
            if auditors == "black-box" and not blackbox:
                continue
            if auditors == "statistical" and (budget not in entry.budgets or not entry.statistical):
                continue
            start = time.perf_counter()
            audit = entry.audit(RunContext(0, budget, ALPHA, np.random.SeedSequence(0)))
            out[entry.id] = (time.perf_counter() - start, audit.finding.verdict, audit.finding.auditor)
            print(f"  {entry.id[:70]:70} {out[entry.id][0]:7.2f} s", file=sys.stderr, flush=True)
    return out


def import_only_from(checkout: Path) -> None:
    """Make ``import dpaudit`` take every package from ``checkout``. An editable install (``pip install -e``) adds an
    import hook that maps dpaudit's top-level packages (mechanisms, algorithms, audits) to the installed checkout
    whatever ``sys.path`` says: a baseline would then time its own core on this checkout's suites. The hook is
    removed, and the packages are checked to come from ``checkout``."""
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
    import importlib

    root = checkout.resolve()
    for name in ("dpaudit", "dpaudit.mechanisms", "dpaudit.algorithms", "dpaudit.audits"):
        try:
            folders = importlib.import_module(name).__path__
        except ImportError as error:
            raise SystemExit(f"{name} is not in the checkout {root}: {error}") from None
        for folder in folders:
            if not Path(folder).resolve().is_relative_to(root):
                raise SystemExit(f"{name} is not in the checkout {root}: it was imported from {folder}")


def in_checkout(checkout: Path, budget: str, suites: list[str] | None,
                auditors: str = "black-box") -> dict[str, tuple[float, str, str]]:
    """:func:`timings` run by a fresh interpreter importing ``checkout`` first."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "timings.json"
        argv = [sys.executable, __file__, "--budget", budget, "--write", str(target), "--root", str(checkout),
                "--auditors", auditors]
        if suites:
            argv += ["--suites", ",".join(suites)]
        env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
        subprocess.run(argv, check=True, cwd=checkout, env=env)
        return {k: tuple(v) for k, v in json.loads(target.read_text()).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, help="a dpaudit checkout to time first, for the ratio")
    parser.add_argument("--budget", default="quick")
    parser.add_argument("--suites", default=None, help="comma-separated suite names (default: all)")
    parser.add_argument("--auditors", default="black-box", choices=("black-box", "statistical"),
                        help="the black-box privacy audits (default) or every statistical audit")
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # a baseline's run writes its timings here
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)  # ... importing dpaudit from this checkout only
    args = parser.parse_args()
    suites = args.suites.split(",") if args.suites else None
    if args.write:
        import_only_from(args.root)
        args.write.write_text(json.dumps(timings(args.budget, suites, args.auditors)))
        return
    if args.baseline and not (args.baseline / "dpaudit" / "__init__.py").is_file():
        parser.error(f"--baseline {args.baseline} is not a dpaudit checkout (no dpaudit/__init__.py)")
    base = in_checkout(args.baseline, args.budget, suites, args.auditors) if args.baseline else None
    here = in_checkout(Path(__file__).resolve().parent.parent, args.budget, suites, args.auditors)
    print(f"{'entry':70} {'baseline':>9} {'this':>7} {'ratio':>6}  verdicts")
    totals: dict[str, list[float]] = {}
    for key, (seconds, verdict, auditor) in here.items():
        if base is None or key not in base:
            print(f"{key[:70]:70} {'':>9} {seconds:7.2f} {'':>6}  {verdict}")
            continue
        before, was, _ = base[key]
        print(f"{key[:70]:70} {before:9.2f} {seconds:7.2f} {seconds / before:6.2f}  {was} -> {verdict}")
        for group in ("all", was) + ((f"auditor {auditor}",) if args.auditors == "statistical" else ()):
            sums = totals.setdefault(group, [0.0, 0.0, 0])
            sums[0] += before
            sums[1] += seconds
            sums[2] += 1
    if base is None:
        print(f"total: {sum(s for s, *_ in here.values()):.1f} s over {len(here)} audits")
    for group, (before, now, count) in totals.items():
        how = "by this checkout's auditor" if group.startswith("auditor") else "by the baseline's verdict"
        print(f"{group} ({count} audits; {how}): baseline {before:.1f} s, this {now:.1f} s, ratio {now / before:.2f}")


if __name__ == "__main__":
    main()
