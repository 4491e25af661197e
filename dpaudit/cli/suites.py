"""``dpaudit list``, ``dpaudit run`` and ``dpaudit report`` (with ``--compare``): the suites' commands."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from ..core.errors import UsageError
from .simulate import list_algorithms


def cmd_list(args: argparse.Namespace) -> int:
    from ..suite.discovery import load_suites, select

    if args.algorithms:
        return list_algorithms(args)

    entries = select(load_suites(args.suite), args.selectors)
    rows = [e.describe() for e in entries]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    if not args.long:
        for line in short_lines(rows, shutil.get_terminal_size(fallback=(120, 24)).columns):
            print(line)
        print(f"\n{len(rows)} claims (--long adds the auditor and subject, --json everything)")
        return 0
    cols = ("id", "expected", "auditor", "claim", "subject")
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) if rows else len(c) for c in cols}
    print("  ".join(c.upper().ljust(widths[c]) for c in cols).rstrip())
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in cols).rstrip())
    print(f"\n{len(rows)} claims")
    return 0


#: the id column of ``dpaudit list``'s short lines is at most this wide, and at most half the line (a longer id pushes
#: its line's claim along)
ID_COLUMN = 48


def short_lines(rows: list[dict], width: int) -> list[str]:
    """One line per claim, at most ``width`` characters: the id, the claim (cut with an ellipsis where the line
    would be longer), and the expectation where it is not a pass ("expected refuted", or by budget). An id is never
    cut (it is what a selector names): a line whose id leaves no room keeps the id and the claim's first
    character."""
    id_width = min(max((len(r["id"]) for r in rows), default=0), ID_COLUMN, width // 2)
    lines = []
    for r in rows:
        tag = "" if r["expected"] == "not-refuted" else f"  [expected {r['expected']}]"
        line = f"{r['id']:<{id_width}}  {r['claim']}"
        room = max(width - len(tag), len(r["id"]) + 4)
        lines.append((line if len(line) <= room else line[:room - 1] + "\u2026") + tag)
    return lines


def cmd_run(args: argparse.Namespace) -> int:
    from ..api.records import describe_where
    from ..runner import RunOptions, run

    summary = run(RunOptions(
        selectors=args.selectors, budget=args.budget, seed=args.seed, workers=args.workers, alpha=args.alpha,
        out=args.out, resume=args.resume, fresh=args.fresh, scheduler=args.scheduler, timeout=args.timeout,
        suite_paths=args.suite, progress_bar=False if args.no_progress else None,
    ))
    counts: dict[str, int] = {}
    for r in summary.records:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
        if r.outcome not in ("pass", "expected-refutation"):
            where = describe_where(r.error) if r.error else ""
            print(f"{r.outcome}: {r.claim_id}: {r.summary()}" + (f" (at {where})" if where else ""), file=sys.stderr)
    print(f"{len(summary.records)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    print(f"Report: {summary.out / 'report.html'} (also report.md, junit.xml, results.json)")
    return summary.exit_code


def cmd_report(args: argparse.Namespace) -> int:
    from ..reports import rerender

    if args.compare is not None:
        if args.dir is not None:
            raise UsageError("give either DIR (re-render its reports) or --compare OLD_DIR NEW_DIR, not both")
        if args.format == "csv":
            raise UsageError("--format csv writes one run's results table: dpaudit report DIR --format csv; "
                             "--compare takes text, markdown or json")
        return _compare(args.compare[0], args.compare[1], args.format or "text", args.out)
    if args.dir is None:
        raise UsageError("name the run folder DIR, or compare two with --compare OLD_DIR NEW_DIR")
    if args.format == "csv":
        return _write_csv(args.dir, args.out)
    if args.format is not None or args.out is not None:
        raise UsageError("--format and --out go with --compare, or with DIR as --format csv; a re-render writes "
                         "its reports into DIR")
    if not (args.dir / "results.json").is_file():
        raise UsageError(f"{args.dir / 'results.json'} does not exist; run `dpaudit run --out {args.dir}` first")
    try:
        document = rerender(args.dir)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except (KeyError, TypeError, AttributeError) as exc:  # a field of the wrong shape in a hand-edited file
        raise UsageError(f"{args.dir / 'results.json'}: a record cannot be rendered ({type(exc).__name__}: "
                         f"{exc}); the file was edited or written by another program") from None
    print(f"{len(document['records'])} claims; report: {args.dir / 'report.html'}")
    return 0


def _write_csv(folder: Path, out: Path | None) -> int:
    """Write the results table of the run in ``folder`` (one row per claim,
    :func:`dpaudit.reports.frames.results_frame`) to ``out``, by default ``folder/results.csv``."""
    from ..core.files import atomic_write
    from ..reports.frames import results_csv, results_frame
    from ..runner.run import RunSummary

    try:
        summary = RunSummary.load(folder)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not summary.records:
        raise UsageError(f"{folder / 'results.json'} has no records; nothing to write")
    out = folder / "results.csv" if out is None else out
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; name the file to write")
    try:
        atomic_write(out, results_csv(results_frame(summary.records)).encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot be written ({exc.strerror or exc})") from None
    print(f"{len(summary.records)} claims; results table: {out}")
    return 0


def _compare(old_dir: Path, new_dir: Path, fmt: str, out: Path | None) -> int:
    """Print (or write to ``out``) what changed from the run in ``old_dir`` to the one in ``new_dir``;
    1 when a claim newly fails."""
    from ..core.files import atomic_write
    from ..reports.compare import compare_runs, load_run
    from ..reports.compare_render import render

    try:
        comparison = compare_runs(load_run(old_dir), load_run(new_dir))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    text = render(comparison, fmt)
    if out is None:
        sys.stdout.write(text)
        return comparison.exit_code
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; name the file to write")
    try:
        atomic_write(out, text.encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot be written ({exc.strerror or exc})") from None
    print(comparison.headline())
    for warning in comparison.warnings():
        print(f"warning: {warning}")
    print(f"Comparison: {out}")
    return comparison.exit_code
