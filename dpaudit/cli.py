"""The ``dpaudit`` command line: ``list``, ``run``, ``report`` and ``audit``.

Exit codes: 0 every verdict matches its expectation; 1 some claim was refuted unexpectedly, or
an expected refutation was not reproduced; 2 usage error, bad input, or an audit that could not
run.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

from ._version import __version__
from .errors import DpauditError, MechanismError, UsageError

EPILOG = """\
exit codes: 0 every verdict matches its expectation; 1 a claim was refuted unexpectedly (or an
expected refutation was not reproduced); 2 usage error, bad input, or an audit that could not run.

examples:
  dpaudit list classic                      the claims of the classic suite
  dpaudit run --budget quick                audit every claim; the report goes to ./dpaudit-report
  dpaudit run 'classic/laplace-*' --seed 3  audit the claims matching a glob
  dpaudit audit mymech.py:mech --claim "pure-dp eps=0.5" --pair "[0, 1]"
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dpaudit",
        description="Audit differential-privacy claims: verify them exactly, refute them with a witness, "
        "or report that a statistical audit of stated power found no violation.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"dpaudit {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    sel_help = "paper key (e.g. dist-mab, classic), claim id, or glob over ids; none = everything"
    suite_help = "also load the suites in this module or .py file (repeatable)"

    ls = sub.add_parser("list", help="list claims with their subject, auditor and expected verdict",
                        description="List the claims the suites encode.")
    ls.add_argument("selectors", nargs="*", metavar="SELECTOR", help=sel_help)
    ls.add_argument("--suite", action="append", default=[], metavar="PATH", help=suite_help)
    ls.add_argument("--json", action="store_true", help="print JSON instead of a table")

    rn = sub.add_parser(
        "run", help="audit the selected claims and write the reports",
        description="Audit the selected claims in parallel. results.json, report.md, report.html and "
        "junit.xml are written into --out as claims finish; an interrupted run can be resumed.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rn.add_argument("selectors", nargs="*", metavar="SELECTOR", help=sel_help)
    rn.add_argument("--budget", default="quick", choices=("quick", "standard", "thorough"),
                    help="how many samples statistical audits draw (default: quick, sized for CI)")
    rn.add_argument("--seed", type=int, default=0,
                    help="run seed; each claim's seed derives from it and its id (default 0)")
    rn.add_argument("--workers", type=int, default=None,
                    help="worker processes (default: all cores; 0 = run in this process)")
    rn.add_argument("--alpha", type=float, default=0.01,
                    help="family-wise false-refutation probability of the run, split over its statistical claims "
                         "(default 0.01)")
    rn.add_argument("--out", type=Path, default=Path("dpaudit-report"),
                    help="report directory (default ./dpaudit-report)")
    rn.add_argument("--resume", action="store_true",
                    help="keep claims already finished in --out with the same seed, budget and alpha")
    rn.add_argument("--scheduler", default=None, metavar="ADDRESS", help="distributed scheduler (not supported yet)")
    rn.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                    help="time limit per claim (default: the entry's, or 600 s at the quick budget)")
    rn.add_argument("--suite", action="append", default=[], metavar="PATH", help=suite_help)
    rn.add_argument("--no-progress", action="store_true", help="print one line per claim instead of a progress bar")

    rp = sub.add_parser("report", help="re-render the reports of a run directory from its results.json",
                        description="Re-render report.md, report.html and junit.xml from DIR/results.json.")
    rp.add_argument("dir", type=Path, metavar="DIR")

    au = sub.add_parser(
        "audit", help="audit your own mechanism",
        description="Audit a privacy claim about your own mechanism: MODULE:ATTR names a callable "
        "mech(data, size, rng) -> array (one output per row) or an object with .sample(data, size, rng), "
        "in an importable module or a .py file.",
        epilog='example: dpaudit audit mymech.py:mech --claim "pure-dp eps=0.5" --pair "[0, 1]" --pair "[1, 0]"',
    )
    au.add_argument("target", metavar="MODULE:ATTR")
    au.add_argument("--claim", required=True,
                    help='e.g. "pure-dp eps=0.1" or "approx-dp eps=1 delta=1e-6"')
    au.add_argument("--pair", action="append", required=True, metavar="JSON",
                    help='a pair of neighbouring inputs as JSON, e.g. "[0, 1]" or "[[0,0],[0,1]]" (repeatable)')
    au.add_argument("--relation", default=None,
                    help='check the pairs against a relation, e.g. "query-distance sensitivity=1" or "replace-one"')
    au.add_argument("--samples", type=int, default=1_000_000, help="samples per side of a pair (default 10^6)")
    au.add_argument("--confidence", type=float, default=0.99, help="confidence of a statistical verdict (default 0.99)")
    au.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    au.add_argument("--auditor", default="auto", choices=("auto", "exact", "statistical"))
    au.add_argument("--events", action="append", choices=("threshold", "cells", "classifier"),
                    help="event family of the statistical auditor (repeatable; default chosen by output shape)")
    au.add_argument("--sequential", action="store_true",
                    help="confirm with anytime-valid confidence sequences and stop as soon as the claim is refuted")
    au.add_argument("--json", action="store_true", help="print the result record as JSON")
    return p


def load_target(target: str) -> Any:
    """Load ``MODULE:ATTR`` (module name or path to a .py file; ATTR may be dotted)."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"{target!r}: expected MODULE:ATTR, e.g. mymech.py:mech or mypackage.mechs:laplace")
    path = Path(module_name)
    try:
        if module_name.endswith(".py") or path.is_file():
            if not path.is_file():
                raise UsageError(f"{module_name}: no such file")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            sys.modules.setdefault(path.stem, module)
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except UsageError:
        raise
    except ModuleNotFoundError as exc:
        raise UsageError(f"cannot import {module_name!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import
        raise UsageError(f"importing {module_name!r} raised {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{module_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if isinstance(obj, type):
        raise UsageError(f"{target} is a class; name an instance or a function (e.g. mech = {attr}(...))")
    return obj


def _parse_pair(text: str) -> tuple[Any, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--pair {text!r} is not valid JSON ({exc.msg}); write e.g. '[0, 1]'") from None
    if not isinstance(value, list) or len(value) != 2:
        raise UsageError(f"--pair {text!r} must be a JSON list of two inputs [d0, d1]")
    return value[0], value[1]


def _cmd_list(args: argparse.Namespace) -> int:
    from .suite import load_suites, select

    entries = select(load_suites(args.suite), args.selectors)
    rows = [e.describe() for e in entries]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    cols = ("id", "expected", "auditor", "claim", "subject")
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) if rows else len(c) for c in cols}
    print("  ".join(c.upper().ljust(widths[c]) for c in cols).rstrip())
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in cols).rstrip())
    print(f"\n{len(rows)} claims")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from .runner import RunOptions, run

    summary = run(RunOptions(
        selectors=args.selectors, budget=args.budget, seed=args.seed, workers=args.workers, alpha=args.alpha,
        out=args.out, resume=args.resume, scheduler=args.scheduler, timeout=args.timeout,
        suite_paths=args.suite, progress_bar=False if args.no_progress else None,
    ))
    counts: dict[str, int] = {}
    for r in summary.records:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
        if r.outcome not in ("pass", "expected-refutation"):
            print(f"{r.outcome}: {r.claim_id}: {r.summary()}", file=sys.stderr)
    print(f"{len(summary.records)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    print(f"Report: {summary.out / 'report.html'} (also report.md, junit.xml, results.json)")
    return summary.exit_code


def _cmd_report(args: argparse.Namespace) -> int:
    from .reports import rerender

    if not (args.dir / "results.json").is_file():
        raise UsageError(f"{args.dir / 'results.json'} does not exist; run `dpaudit run --out {args.dir}` first")
    try:
        document = rerender(args.dir)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(f"{len(document['records'])} claims; report: {args.dir / 'report.html'}")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    from .api import audit_privacy
    from .claims import parse_claim
    from .neighbours import parse_relation

    claim = parse_claim(args.claim)
    pairs = [_parse_pair(p) for p in args.pair]
    relation = parse_relation(args.relation) if args.relation else None
    mech = load_target(args.target)
    try:
        result = audit_privacy(mech, claim, pairs=pairs, neighbours=relation, confidence=args.confidence,
                               samples=args.samples, seed=args.seed, auditor=args.auditor, events=args.events,
                               sequential=args.sequential)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, DpauditError):
            raise
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(f"{result.subject}: {claim.describe()}")
        print(f"  {result.summary()}")
        print(f"  auditor {result.auditor}, {result.samples} samples per side, {result.seconds:.2f} s")
        if result.witness:
            print("  witness: " + json.dumps(result.witness))
        for note in result.notes:
            print(f"  note: {note}")
    return 1 if result.verdict == "refuted" else 0


COMMANDS = {"list": _cmd_list, "run": _cmd_run, "report": _cmd_report, "audit": _cmd_audit}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except DpauditError as exc:
        kind = "mechanism error" if isinstance(exc, MechanismError) else "error"
        print(f"dpaudit {args.command}: {kind}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dpaudit: interrupted; finished claims are in results.json (rerun with --resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
