"""Make the README's pictures of report.html from a real run, and record what they show.

    python tools/screenshots.py                       # runs dpaudit run --budget quick first (minutes)
    python tools/screenshots.py --run dpaudit-report  # the report of a run you have made
    python tools/screenshots.py --results tests/snapshots/quick-records.json.gz   # a results document

Renders the run's report.html with this checkout's dpaudit and photographs it in headless Chromium (selenium and
the packaged chromedriver, as tests/test_report_browser.py drives them):

- ``docs/report-top.png``: the first screen at 1366 x 768 px: the run's counts, the picture of outcomes by paper,
  the filters and the findings' heading;
- ``docs/report-findings.png``: the findings section from its heading, 1200 px wide;
- ``docs/report-other-reading.png``: the first finding that shows its other reading.

and writes ``docs/screenshots.json``: the dpaudit version, budget and seed of the run, its claim count, outcome
counts, findings and controls. tests/test_screenshots.py holds that record against the quick run's claims and the
README's numbers: rerun this script when the claims change.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RECORD = DOCS / "screenshots.json"
TOP, FINDINGS, OTHER_READING = "report-top.png", "report-findings.png", "report-other-reading.png"


def load(args: argparse.Namespace, scratch: Path) -> dict:
    """The results document to photograph: of --results, of --run, or of a quick run made now."""
    if args.results:
        path = Path(args.results)
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            document = json.load(handle)
        return as_run_writes(document)
    folder = Path(args.run) if args.run else scratch / "run"
    if not args.run:
        print("dpaudit run --budget quick (a few minutes) ...", flush=True)
        subprocess.run([sys.executable, "-m", "dpaudit", "run", "--budget", "quick", "--out", str(folder),
                        "--no-progress"], check=True)
    return json.loads((folder / "results.json").read_text())


def as_run_writes(document: dict) -> dict:
    """A results document as this checkout's run writes it. The quick run's snapshot leaves out what does not depend
    on the audits (the version, the papers' statements tables; tests/test_quick_run.py holds the rest to the suites):
    filled in here, so that a picture of it never shows a missing version."""
    import dpaudit
    from dpaudit.core.claim_ids import PAPERS
    from dpaudit.suite.statements import as_record, load_table

    document = {**document, "run": dict(document.get("run") or {})}
    document.setdefault("dpaudit_version", dpaudit.__version__)
    papers = {r["claim_id"].partition("/")[0] for r in document.get("records", [])} & set(PAPERS)
    document["run"].setdefault("statements", {p: as_record(load_table(p)) for p in PAPERS if p in papers})
    return document


def what_it_shows(document: dict) -> dict:
    from dpaudit.reports.summary import controls, findings, outcome_counts

    records = document["records"]
    run = document.get("run", {})
    return {"dpaudit_version": document.get("dpaudit_version"), "budget": run.get("budget"), "seed": run.get("seed"),
            "claims": len(records), "outcomes": outcome_counts(records),
            "findings": sum(len(group) for group in findings(records).values()),
            "controls": len(controls(records)), "pictures": [TOP, FINDINGS, OTHER_READING]}


def photograph(html: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from selenium.webdriver.common.by import By
    from test_report_browser import _chromium  # the browser the report's test drives, with its options

    for driver in _chromium(html):
        driver.set_window_size(1366, 768)
        driver.refresh()
        driver.save_screenshot(str(DOCS / TOP))
        driver.set_window_size(1200, 900)
        driver.execute_script("document.getElementById('findings').scrollIntoView()")
        driver.save_screenshot(str(DOCS / FINDINGS))
        readings = driver.find_elements(By.CSS_SELECTOR, "li.finding:has(.reading)")
        if not readings:
            raise SystemExit("no finding of this run shows an other reading: nothing for report-other-reading.png")
        driver.execute_script("arguments[0].scrollIntoView()", readings[0])
        readings[0].screenshot(str(DOCS / OTHER_READING))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--run", help="a run folder (its results.json and plots/)")
    source.add_argument("--results", help="a results document (.json or .json.gz)")
    args = parser.parse_args(argv)
    from dpaudit.reports.html import render_html

    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch)
        document = load(args, scratch_path)
        out = scratch_path / "report"
        out.mkdir()
        if args.run and (Path(args.run) / "plots").is_dir():
            shutil.copytree(Path(args.run) / "plots", out / "plots")
        (out / "report.html").write_text(render_html(document, out), encoding="utf-8")
        photograph(out / "report.html")
    shows = what_it_shows(document)
    RECORD.write_text(json.dumps(shows, indent=1) + "\n")
    print(f"wrote {', '.join(shows['pictures'])} and {RECORD.name} into {DOCS.relative_to(ROOT)}/: "
          f"{shows['claims']} claims, {shows['findings']} findings, {shows['controls']} controls")


if __name__ == "__main__":
    main()
