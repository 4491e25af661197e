"""Which of the noise-halving bugs do the suites' privacy audits refute?

The noise sweep (``noise_sweep.py``) halves, one site at a time, every place a private policy's noise is set, and
records the test that fails. A test is not an audit: a user auditing a policy runs the suite's privacy entries,
not dpaudit's test files. This sweep applies the same mutations and runs, for each, the privacy entries (pure DP,
approximate DP, zCDP, Renyi DP claims) of the paper whose policies the site feeds, at the quick budget and a fixed
run seed, with ``dpaudit run``. A site is *refuted* when an entry the suite expects not refuted (or verified) comes
out refuted; *not refuted* when none does: either the halved noise is out of reach of the suite's audits as they
stand (no entry audits that policy or code path, or its horizon, pair or budget is too small), or the halved
noise still meets the claim (a calibration with more than twofold slack). The sweep tells them apart by rerunning
the entries unmutated and listing the records the mutation moved: none (nothing moved: no entry runs that code, or
none depends on it), an exact audit that still verifies (the slack), or only sampled audits (reached, not refuted
at this budget).

    python tools/mutation/audit_sweep.py                    # every site, then docs/mutation/audit-sweep.md
    python tools/mutation/audit_sweep.py --only 'hybrid*'   # the matching sites; their rows replaced
    python tools/mutation/audit_sweep.py --list             # the sites and the entries each runs, nothing run
    python tools/mutation/audit_sweep.py --only 'hybrid*' --budget standard   # a larger budget for those sites

Like the other sweeps it restores every mutated file byte for byte and refuses to start while a target file has
uncommitted changes.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from noise_sweep import SITES, SWEEP
from sweep import ROOT, Site, _cell, _interrupt, applied, check_sites, merged_rows, refuse_uncommitted

REPORT = ROOT / "docs" / "mutation" / "audit-sweep.md"
TIMEOUT_SECONDS = 1800
PRIVACY_KINDS = ("pure-dp", "approx-dp", "zcdp", "renyi-dp")
#: the paper whose privacy entries audit the policies a site's name starts with
PAPER = {"dist-mab": "dist-mab", "dp-se": "classic", "lazy-ucb": "private-online",
         "hybrid-ucb": "private-online", "ftnl": "private-online", "naive-ftnl": "private-online",
         "linucb": "shuffle-lcb", "tree": "shuffle-lcb", "cs-linucb": "concurrent-shuffle", "glm": "shuffle-glm",
         "noise": "classic"}
#: sites in the classic mechanisms' and core samplers' code feed the classic mechanisms and the policies the site
#: names: both papers' entries run (FTNL draws its report-noisy-max with the classic mechanism's code)
SHARED_PAPERS = {"noise/laplace-draw": ("classic", "private-online"), "ftnl/rnm-draw": ("private-online", "classic"),
                 "noise/discrete-laplace-draw": ("classic", "dist-mab"),
                 "noise/gaussian-draw": ("classic", "shuffle-lcb", "shuffle-glm"),
                 "noise/discrete-gaussian-draw": ("classic", "dist-mab"), "noise/skellam-draw": ("classic", "dist-mab"),
                 "noise/polya-draw": ("classic", "dist-mab")}
SEED = 0


def papers_of(site: Site) -> tuple[str, ...]:
    """The papers whose privacy entries audit the policies ``site`` feeds."""
    return SHARED_PAPERS.get(site.name, (PAPER[site.name.split("/")[0]],))

HEADER = """# Noise-halving bugs against the suites' privacy audits

Each site of the noise sweep ([noise-sweep.md](noise-sweep.md): every place a private policy's noise is set, halved
one at a time) applied in turn, and the privacy entries of the paper whose policies it feeds run on it with
`dpaudit run --budget quick --seed 0`; a site the quick budget does not decide may be run again at a larger budget
(`--budget standard`), and its row then names that budget beside the result. DP-SE, which no paper numbers a
statement about, is audited by the classic suite's DP-SE entries.

- *Refuted*: an entry the suite expects not refuted came out refuted (the entries listed).
- *Audit error*: an entry could not run on the mutated code (the entries and their errors listed).
- *Error*: the run stopped before any audit (the suites did not load on the mutated code).
- *Not refuted*: no privacy audit of the suite sees the halved noise at the budget run; the site is still killed
  by a test (the noise sweep). Each such site is told apart by what its mutation moved against the same entries
  run unmutated (same seed and budget: any record whose verdict or statistic moved ran the mutated code):
  - *nothing moved*: no entry's record moved. Either no audit runs the mutated code (the policy, or the code
    path: a draw no audited path makes, a parameter only the algorithm passes, is audited by no entry), or an
    entry runs it but its result does not depend on it at the entry's points (decisions that never change on its
    pairs, so it certifies 0 either way); a gap in the suite either way, listed for the next work;
  - *verified exactly*: an exact audit ran the mutated code and still verifies the claim. The halved noise meets
    the claim there: the calibration has at least twofold slack at that point (Corollary B.3's sigma,
    4 sqrt(2 ln(2.5/delta))/eps for sensitivity 2, halved still exceeds the classic Gaussian calibration
    2 sqrt(2 ln(1.25/delta))/eps, valid for eps < 1), so no audit could refute it;
  - *reached*: only sampled audits moved, not enough to refute at this budget (a larger budget may: `--budget
    standard`), or exact audits of claims the suite already expects refuted (the mutation moves a refutation that
    stands anyway, as printed).
  The moved entries are listed with their auditor and verdict.

Regenerate with `python tools/mutation/audit_sweep.py` (one site: `--only NAME`).

| site | policies | mutation | entries run | result | entries refuted, erring, or moved (not refuted) |
| --- | --- | --- | ---: | --- | --- |
"""


def privacy_entries(paper: str) -> list[str]:
    """The ids of ``paper``'s entries whose claim is a privacy claim."""
    out = subprocess.run([sys.executable, "-m", "dpaudit", "list", "--json", paper], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return [e["id"] for e in json.loads(out.stdout) if e["claim"].split()[0] in PRIVACY_KINDS]


def run_entries(ids: list[str], budget: str) -> tuple[list[dict] | None, str]:
    """``dpaudit run`` of ``ids`` at ``budget`` and the sweep's seed: (the records, "") or (None, why it stopped)."""
    with tempfile.TemporaryDirectory() as out:
        try:
            proc = subprocess.run([sys.executable, "-m", "dpaudit", "run", *ids, "--budget", budget, "--seed",
                                   str(SEED), "--out", out, "--fresh", "--no-progress"], cwd=ROOT,
                                  capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            return None, "time-out"
        results = Path(out) / "results.json"
        if not results.exists():  # the run stopped before any audit: the suites did not load, typically
            last = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or ["no output"])[-1]
            return None, f"dpaudit run exit {proc.returncode}: {last[:160]}"
        return json.loads(results.read_text())["records"], ""


def run_site(site: Site, ids: list[str], budget: str = "quick",
             baseline: dict[str, dict] | None = None) -> tuple[str, list[str], float]:
    """Apply the mutation, run the entries at ``budget``, restore: (result, the entries to list, seconds). A site
    not refuted is told apart by what moved against ``baseline`` (the same entries' records unmutated): the
    entries whose verdict or statistic the mutation moved (:func:`reach`)."""
    started = time.monotonic()
    with applied("audit_sweep", site):
        records, stopped = run_entries(ids, budget)
    if records is None:
        result, listed = ("time-out", []) if stopped == "time-out" else ("error", [stopped])
        return result, listed, time.monotonic() - started
    refuted = [r["claim_id"] for r in records if r["outcome"] == "unexpected-refutation"]
    if refuted:
        return "refuted", refuted, time.monotonic() - started
    failed = [f"{r['claim_id']} ({_error(r.get('error'))})" for r in records if r["outcome"] == "error"]
    if failed:  # an audit that cannot run on the mutated code: caught, though not as a refutation
        return "audit error", failed, time.monotonic() - started
    if baseline is None:
        return "not refuted", [], time.monotonic() - started
    result, moved = reach(records, baseline)
    return result, moved, time.monotonic() - started


def _moved(record: dict, before: dict | None) -> bool:
    """Whether the mutation moved a record: its verdict, or its statistic beyond float noise (relative 1e-9)."""
    if before is None or record["verdict"] != before["verdict"]:
        return True
    a, b = record.get("statistic") or {}, before.get("statistic") or {}
    numbers = [(a.get("value"), b.get("value")), *zip(a.get("interval") or (), b.get("interval") or (), strict=False)]
    for x, y in numbers:
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            if not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-300):
                return True
        elif x != y:
            return True
    return False


def reach(records: list[dict], baseline: dict[str, dict]) -> tuple[str, list[str]]:
    """A site no entry refutes, by what its mutation moved: *nothing moved* (no entry's record moved: no audit runs
    the mutated code, or none whose result depends on it at its points), *verified exactly* (an exact audit of the
    mutated code still verifies the claim: the halved noise meets it, the calibration's slack is at least twofold
    there), or
    *reached* (only sampled audits moved, not enough to refute at this budget, or exact audits of claims already
    expected refuted); the moved entries
    listed with their verdicts."""
    moved = [r for r in records if _moved(r, baseline.get(r["claim_id"]))]
    if not moved:
        return "not refuted (nothing moved)", []
    exact = [r for r in moved if r["auditor"] == "exact" and r["verdict"] == "verified"]
    listed = [f"{r['claim_id']} ({r['auditor']}, {r['verdict']})" for r in exact + [r for r in moved if r not in exact]]
    return ("not refuted (verified exactly)" if exact else "not refuted (reached)"), listed


def _error(error) -> str:
    """A record's error as "Type: message" (the record holds its traceback too)."""
    if isinstance(error, dict):
        return f"{error.get('type', 'error')}: {str(error.get('message', ''))[:80]}"
    return str(error or "error")[:80]


def row(site: Site, entries: int, result: str, refuted: list[str], budget: str = "quick") -> str:
    """The site's line: the entries refuted (or erring, or why the run stopped); a budget other than quick is
    named beside the result."""
    if budget != "quick":
        result = f"{result} ({budget} budget)"
    shown = ", ".join(f"`{i}`" for i in refuted[:4]) + (f" (+{len(refuted) - 4} more)" if len(refuted) > 4 else "")
    return (f"| {site.name} | {_cell(site.subject)} | {_cell(site.mutation)} | {entries} | {result} | "
            f"{_cell(shown)} |")


def write_report(rows: dict[str, str]) -> None:
    """The table in the sites' order; rows of sites not run this time are kept from the existing report."""
    lines = merged_rows(REPORT, SITES, rows)
    cells = [re.split(r" \| ", line)[-2] for line in lines]
    results = [cell.split(" (")[0] for cell in cells]
    later = sum(" budget)" in cell and cell.startswith("refuted") for cell in cells)
    reasons = [f"{sum(f'({why})' in cell for cell in cells)} {why}"
               for why in ("nothing moved", "verified exactly", "reached")]
    summary = (f"\n{results.count('refuted')} of {len(lines)} sites run refuted by an audit"
               + (f" ({later} of them at a larger budget)" if later else "") + ", "
               f"{results.count('audit error') + results.count('error')} stopped by an error, "
               f"{results.count('not refuted')} not refuted ({', '.join(reasons)}"
               + (f"; {sum(' budget)' in c for c in cells) - later} of them at a larger budget"
                  if any(" budget)" in c and not c.startswith("refuted") for c in cells) else "") + ")"
               + ("" if len(lines) == len(SITES) else f" ({len(SITES) - len(lines)} of {len(SITES)} not yet run)")
               + ".\n")
    REPORT.write_text(HEADER + "\n".join(lines) + "\n" + summary)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run the sites whose name matches (shell pattern; repeatable)")
    parser.add_argument("--list", action="store_true", help="list the sites and the entries each runs, and exit")
    parser.add_argument("--budget", default="quick", choices=("quick", "standard", "thorough"),
                        help="the budget the entries run at (default quick; a larger one is named in the site's row)")
    args = parser.parse_args(argv)
    sites = tuple(s for s in SITES if not args.only or any(fnmatch.fnmatch(s.name, p) for p in args.only))
    if not sites:
        raise SystemExit(f"audit_sweep: no site matches {args.only}")
    entries = {paper: privacy_entries(paper) for paper in {p for s in sites for p in papers_of(s)}}
    if args.list:
        for s in sites:
            print(f"{s.name:40} {sum(len(entries[p]) for p in papers_of(s))} privacy entries of "
                  f"{', '.join(papers_of(s))}")
        return 0

    check_sites(SWEEP, sites)
    refuse_uncommitted("audit_sweep", {s.path for s in sites})
    signal.signal(signal.SIGTERM, _interrupt)  # unwinds through run_site's finally, which restores the file
    rows: dict[str, str] = {}
    # the papers' privacy entries' records, unmutated, per set of papers run together: the run's alpha is split
    # over its statistical claims, so a record is compared only with the same entries run together
    baselines: dict[tuple[str, ...], dict[str, dict]] = {}
    for i, site in enumerate(sites, 1):
        papers = papers_of(site)
        ids = [i for p in papers for i in entries[p]]
        if papers not in baselines:
            print(f"baseline: {', '.join(papers)}: {len(ids)} entries unmutated ...", end=" ", flush=True)
            records, stopped = run_entries(ids, args.budget)
            if records is None:
                raise SystemExit(f"audit_sweep: the unmutated run of {', '.join(papers)}'s entries stopped: {stopped}")
            baselines[papers] = {r["claim_id"]: r for r in records}
            print("done", flush=True)
        baseline = baselines[papers]
        print(f"[{i}/{len(sites)}] {site.name}: {len(ids)} entries ...", end=" ", flush=True)
        result, refuted, seconds = run_site(site, ids, args.budget, baseline)
        print(f"{result} in {seconds:.0f} s" + (f": {', '.join(refuted[:4])}" if refuted else ""), flush=True)
        rows[site.name] = row(site, len(ids), result, refuted, args.budget)
        write_report(rows)  # after every site, so an interrupted sweep keeps what it found
    print(f"report: {REPORT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
