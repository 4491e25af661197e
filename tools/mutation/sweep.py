"""The machinery of a hand-written mutation sweep: sites, each an exact text in one file and its mutation, run one
at a time against the site's tests, and a Markdown table of the results.

A sweep script (``noise_sweep.py``, ``safeguard_sweep.py``) holds its sites and calls :func:`main`. For every
site the mutation is applied in place, the site's tests run with ``pytest -x -q``, the file is restored byte
for byte, and the site is *killed* when a test failed, *survived* when none did. A sweep refuses to start
while a target file has uncommitted changes (a crash mid-mutation then cannot lose work: ``git checkout``
restores it), and checks before running anything that every original text occurs exactly once in its file.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: a site whose tests run longer than this is recorded as a time-out (neither killed nor survived)
TIMEOUT_SECONDS = 1200


@dataclass(frozen=True)
class Site:
    name: str  # stable id
    subject: str  # what the site guards (the policies whose noise it sets, the bound it keeps valid)
    path: str  # file, relative to the repository root
    original: str  # exact text, occurring once in the file
    mutated: str  # the same text mutated
    what: str  # the site in words
    tests: tuple[str, ...]  # pytest files or node ids, run in order with -x
    #: why a survivor is left: it differs from the original only where both are correct (a margin elsewhere covers
    #: it on every input the code can be given); reported as "survived (accepted)" with this reason
    accepted: str = ""

    @property
    def mutation(self) -> str:
        return _diff_words(self.original, self.mutated)


@dataclass(frozen=True)
class Sweep:
    tool: str  # the script's name, for messages
    sites: tuple[Site, ...]
    report: Path
    header: str  # the report's Markdown up to and including the table's header rows


def _diff_words(original: str, mutated: str) -> str:
    """The lines the mutation changes, old -> new, for the report."""
    old = [line.strip() for line in original.splitlines() if line not in mutated.splitlines()]
    new = [line.strip() for line in mutated.splitlines() if line not in original.splitlines()]
    return f"`{' '.join(old)}` -> `{' '.join(new)}`"


def check_sites(sweep: Sweep, sites: tuple[Site, ...]) -> None:
    names = [s.name for s in sweep.sites]
    if len(set(names)) != len(names):
        raise SystemExit(f"{sweep.tool}: site names must be unique")
    for site in sites:
        text = (ROOT / site.path).read_text()
        count = text.count(site.original)
        if count != 1:
            raise SystemExit(f"{sweep.tool}: {site.name}: the original text occurs {count} times in {site.path} "
                             f"(must be once): {site.original!r}")
        if site.original == site.mutated:
            raise SystemExit(f"{sweep.tool}: {site.name}: the mutation changes nothing")
        for test in site.tests:
            if not (ROOT / test.split("::")[0]).exists():
                raise SystemExit(f"{sweep.tool}: {site.name}: no test file {test}")


def refuse_uncommitted(tool: str, paths: set[str]) -> None:
    """A mutated file is restored from memory; if the sweep dies before that, git must hold the original."""
    out = subprocess.run(["git", "status", "--porcelain", "--", *sorted(paths)], cwd=ROOT, capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise SystemExit(f"{tool}: git status failed: {out.stderr.strip()}")
    if out.stdout.strip():
        raise SystemExit(f"{tool}: these target files have uncommitted changes; commit or stash them first:\n"
                         + out.stdout)


#: a summary line of -ra: "FAILED <node id> - <message>" (a node id may hold spaces in its parameters)
FAILED = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.MULTILINE)


@contextmanager
def applied(tool: str, site: Site) -> Iterator[None]:
    """The site's mutation in place for the duration, its file restored byte for byte after (also on an error or a
    termination signal, which :func:`main` turns into one)."""
    path = ROOT / site.path
    original = path.read_bytes()
    try:
        path.write_bytes(original.decode().replace(site.original, site.mutated, 1).encode())
        yield
    finally:
        path.write_bytes(original)
        if path.read_bytes() != original:
            raise SystemExit(f"{tool}: {site.path} was NOT restored; run git checkout -- {site.path}")


def run_site(tool: str, site: Site) -> tuple[str, str, float]:
    """Apply the mutation, run the tests, restore: (result, killing test or note, seconds)."""
    started = time.monotonic()
    with applied(tool, site):
        try:
            proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *site.tests],
                                  cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            return "time-out", f"no verdict within {TIMEOUT_SECONDS} s", time.monotonic() - started
    seconds = time.monotonic() - started
    if proc.returncode == 0:
        return "survived", "", seconds
    failed = FAILED.findall(proc.stdout)
    if proc.returncode == 1 and failed:
        return "killed", failed[0], seconds
    tail = " ".join(proc.stdout.strip().splitlines()[-1:] + proc.stderr.strip().splitlines()[-1:])
    return "error", f"pytest exit {proc.returncode}: {tail[:200]}", seconds


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def row(site: Site, result: str, test: str) -> str:
    where = f"{site.path}: {site.what}"
    killer = f"`{test}`" if result == "killed" else test
    if result == "survived" and site.accepted:
        result, killer = "survived (accepted)", site.accepted
    return (f"| {site.name} | {_cell(site.subject)} | {_cell(where)} | {_cell(site.mutation)} | {result} | "
            f"{_cell(killer)} |")


def merged_rows(report: Path, sites: tuple[Site, ...], rows: dict[str, str]) -> list[str]:
    """The table's lines in the sites' order: ``rows`` of the sites run this time, the others' kept from the
    existing ``report``."""
    names = {s.name for s in sites}
    kept: dict[str, str] = {}
    if report.exists():
        for line in report.read_text().splitlines():
            match = re.match(r"^\| (\S+) \|", line)
            if match and match.group(1) in names:
                kept[match.group(1)] = line
    kept.update(rows)
    return [kept[s.name] for s in sites if s.name in kept]


def write_report(sweep: Sweep, rows: dict[str, str]) -> None:
    """The table in the sweep's order; rows of sites not run this time are kept from the existing report."""
    lines = merged_rows(sweep.report, sweep.sites, rows)
    results = [re.split(r" \| ", line)[-2] for line in lines]
    total = len(sweep.sites)
    summary = (f"\n{results.count('killed')} of {total} sites killed"
               + ("" if len(lines) == total else f" ({total - len(lines)} not yet run)")
               + "".join(f", {results.count(r)} {r}" for r in ("survived (accepted)", "survived", "error", "time-out")
                         if r in results)
               + ".\n")
    sweep.report.parent.mkdir(parents=True, exist_ok=True)
    sweep.report.write_text(sweep.header + "\n".join(lines) + "\n" + summary)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(sweep: Sweep, description: str, argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run the sites whose name matches (shell pattern; repeatable)")
    parser.add_argument("--list", action="store_true", help="list the sites and exit")
    args = parser.parse_args(argv)
    sites = tuple(s for s in sweep.sites if not args.only or any(fnmatch.fnmatch(s.name, p) for p in args.only))
    if not sites:
        raise SystemExit(f"{sweep.tool}: no site matches {args.only}")
    if args.list:
        for s in sites:
            print(f"{s.name:40} {s.path}: {s.mutation}")
        return 0
    check_sites(sweep, sites)
    refuse_uncommitted(sweep.tool, {s.path for s in sites})
    # a termination signal unwinds through run_site's finally, which restores the mutated file
    signal.signal(signal.SIGTERM, _interrupt)
    rows: dict[str, str] = {}
    for i, site in enumerate(sites, 1):
        print(f"[{i}/{len(sites)}] {site.name} ({site.path}) ...", end=" ", flush=True)
        result, note, seconds = run_site(sweep.tool, site)
        print(f"{result} in {seconds:.0f} s" + (f": {note}" if note else ""), flush=True)
        rows[site.name] = row(site, result, note)
        write_report(sweep, rows)  # after every site, so an interrupted sweep keeps what it found
    survivors = [n for n, r in rows.items() if "| killed |" not in r and "| survived (accepted) |" not in r]
    print(f"{len(rows) - len(survivors)} of {len(rows)} killed" + (f"; not killed: {', '.join(survivors)}"
                                                                     if survivors else ""))
    print(f"report: {sweep.report.relative_to(ROOT)}")
    return 1 if survivors else 0
