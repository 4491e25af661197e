"""Which of the noise-halving bugs do the suites' privacy audits refute?

The noise sweep (``noise_sweep.py``) halves, one site at a time, every place a private policy's noise is set, and
records the test that fails. A test is not an audit: a user auditing a policy runs the suite's privacy entries,
not dpaudit's test files. This sweep applies the same mutations and runs, for each, the privacy entries (pure DP,
approximate DP, zCDP, Renyi DP claims) of the paper whose policies the site feeds, at the quick budget and a fixed
run seed, with ``dpaudit run``. A site is *refuted* when an entry the suite expects not refuted (or verified) comes
out refuted; *not refuted* when none does: the halved noise is then out of reach of the suite's audits as they
stand (the reason is the entries': the horizon, the pair, the budget), which the report lists for the next work.

    python tools/mutation/audit_sweep.py                    # every site, then docs/mutation/audit-sweep.md
    python tools/mutation/audit_sweep.py --only 'hybrid*'   # the matching sites; their rows replaced
    python tools/mutation/audit_sweep.py --list             # the sites and the entries each runs, nothing run

Like the other sweeps it restores every mutated file byte for byte and refuses to start while a target file has
uncommitted changes.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from noise_sweep import SITES, SWEEP
from sweep import ROOT, Site, _cell, _interrupt, check_sites, refuse_uncommitted

REPORT = ROOT / "docs" / "mutation" / "audit-sweep.md"
TIMEOUT_SECONDS = 1800
PRIVACY_KINDS = ("pure-dp", "approx-dp", "zcdp", "renyi-dp")
#: the paper whose privacy entries audit the policies a site's name starts with
PAPER = {"dist-mab": "dist-mab", "dp-se": "private-online", "lazy-ucb": "private-online",
         "hybrid-ucb": "private-online", "ftnl": "private-online", "naive-ftnl": "private-online",
         "linucb": "shuffle-lcb", "tree": "shuffle-lcb", "cs-linucb": "concurrent-shuffle", "glm": "shuffle-glm",
         "noise": "classic"}
SEED = 0

HEADER = """# Noise-halving bugs against the suites' privacy audits

Each site of the noise sweep ([noise-sweep.md](noise-sweep.md): every place a private policy's noise is set, halved
one at a time) applied in turn, and the privacy entries of the paper whose policies it feeds run on it with
`dpaudit run --budget quick --seed 0`. *Refuted*: an entry the suite expects not refuted came out refuted (the
entries listed). *Not refuted*: no privacy audit of the suite sees the halved noise at the quick budget; the site is
still killed by a test (the noise sweep), but a user running the audits would not see the bug. Regenerate with
`python tools/mutation/audit_sweep.py` (one site: `--only NAME`).

| site | policies | mutation | entries run | result | refuted by |
| --- | --- | --- | ---: | --- | --- |
"""


def privacy_entries(paper: str) -> list[str]:
    """The ids of ``paper``'s entries whose claim is a privacy claim."""
    out = subprocess.run([sys.executable, "-m", "dpaudit", "list", "--json", paper], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    return [e["id"] for e in json.loads(out.stdout) if e["claim"].split()[0] in PRIVACY_KINDS]


def run_site(site: Site, ids: list[str]) -> tuple[str, list[str], float]:
    """Apply the mutation, run the entries, restore: (result, unexpectedly refuted ids, seconds)."""
    path = ROOT / site.path
    original = path.read_bytes()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as out:
        try:
            path.write_bytes(original.decode().replace(site.original, site.mutated, 1).encode())
            try:
                proc = subprocess.run([sys.executable, "-m", "dpaudit", "run", *ids, "--budget", "quick", "--seed",
                                       str(SEED), "--out", out, "--fresh", "--no-progress"], cwd=ROOT,
                                      capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                return "time-out", [], time.monotonic() - started
        finally:
            path.write_bytes(original)
            if path.read_bytes() != original:
                raise SystemExit(f"audit_sweep: {site.path} was NOT restored; run git checkout -- {site.path}")
        results = Path(out) / "results.json"
        if proc.returncode not in (0, 1) or not results.exists():
            return f"error (exit {proc.returncode})", [], time.monotonic() - started
        records = json.loads(results.read_text())["records"]
    refuted = [r["claim_id"] for r in records if r["outcome"] == "unexpected-refutation"]
    return ("refuted" if refuted else "not refuted"), refuted, time.monotonic() - started


def row(site: Site, entries: int, result: str, refuted: list[str]) -> str:
    shown = ", ".join(f"`{i}`" for i in refuted[:4]) + (f" (+{len(refuted) - 4} more)" if len(refuted) > 4 else "")
    return (f"| {site.name} | {_cell(site.subject)} | {_cell(site.mutation)} | {entries} | {result} | "
            f"{_cell(shown)} |")


def write_report(rows: dict[str, str]) -> None:
    """The table in the sites' order; rows of sites not run this time are kept from the existing report."""
    names = {s.name for s in SITES}
    kept: dict[str, str] = {}
    if REPORT.exists():
        for line in REPORT.read_text().splitlines():
            match = re.match(r"^\| (\S+) \|", line)
            if match and match.group(1) in names:
                kept[match.group(1)] = line
    kept.update(rows)
    lines = [kept[s.name] for s in SITES if s.name in kept]
    results = [re.split(r" \| ", line)[-2] for line in lines]
    summary = (f"\n{results.count('refuted')} of {len(lines)} sites run refuted by an audit"
               + ("" if len(lines) == len(SITES) else f" ({len(SITES) - len(lines)} of {len(SITES)} not yet run)")
               + ".\n")
    REPORT.write_text(HEADER + "\n".join(lines) + "\n" + summary)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run the sites whose name matches (shell pattern; repeatable)")
    parser.add_argument("--list", action="store_true", help="list the sites and the entries each runs, and exit")
    args = parser.parse_args(argv)
    sites = tuple(s for s in SITES if not args.only or any(fnmatch.fnmatch(s.name, p) for p in args.only))
    if not sites:
        raise SystemExit(f"audit_sweep: no site matches {args.only}")
    entries = {paper: privacy_entries(paper) for paper in {PAPER[s.name.split("/")[0]] for s in sites}}
    if args.list:
        for s in sites:
            paper = PAPER[s.name.split("/")[0]]
            print(f"{s.name:40} {len(entries[paper])} privacy entries of {paper}")
        return 0

    check_sites(SWEEP, sites)
    refuse_uncommitted("audit_sweep", {s.path for s in sites})
    signal.signal(signal.SIGTERM, _interrupt)  # unwinds through run_site's finally, which restores the file
    rows: dict[str, str] = {}
    for i, site in enumerate(sites, 1):
        ids = entries[PAPER[site.name.split("/")[0]]]
        print(f"[{i}/{len(sites)}] {site.name}: {len(ids)} entries ...", end=" ", flush=True)
        result, refuted, seconds = run_site(site, ids)
        print(f"{result} in {seconds:.0f} s" + (f": {', '.join(refuted[:4])}" if refuted else ""), flush=True)
        rows[site.name] = row(site, len(ids), result, refuted)
        write_report(rows)  # after every site, so an interrupted sweep keeps what it found
    print(f"report: {REPORT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
