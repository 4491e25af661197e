"""The README's pictures of report.html show a run of the current claims: ``docs/screenshots.json``, written by
``tools/screenshots.py`` beside the pictures, names the version, budget and counts of the run they were made from;
they must be this version's, the quick run's (its snapshot, which tests/test_quick_run.py holds to the suites), and
the numbers the README quotes."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from PIL import Image

import dpaudit
from dpaudit.reports.summary import controls, findings, outcome_counts

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "docs" / "screenshots.json"
SNAPSHOT = Path(__file__).parent / "snapshots" / "quick-records.json.gz"
RERUN = "rerun python tools/screenshots.py"


def test_the_pictures_show_a_quick_run_of_this_version_and_of_the_current_claims():
    shown = json.loads(RECORD.read_text())
    assert shown["dpaudit_version"] == dpaudit.__version__, RERUN
    assert (shown["budget"], shown["seed"]) == ("quick", 0)
    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as handle:
        records = json.load(handle)["records"]
    assert shown["claims"] == len(records), RERUN
    assert shown["outcomes"] == outcome_counts(records), RERUN
    assert shown["findings"] == sum(len(group) for group in findings(records).values()), RERUN
    assert shown["controls"] == len(controls(records)), RERUN
    for name in shown["pictures"]:
        with Image.open(ROOT / "docs" / name) as picture:
            assert picture.format == "PNG" and picture.width >= 1000


def test_the_readme_quotes_the_counts_the_pictures_show():
    shown = json.loads(RECORD.read_text())
    text = (ROOT / "README.md").read_text()
    quoted = re.findall(r"(\d+) claims\)", text) + re.findall(r"every suite, (\d+) claims", text)
    assert quoted and {int(n) for n in quoted} == {shown["claims"]}
    for name in shown["pictures"]:
        assert f"docs/{name}" in text or name in (ROOT / "docs" / "running.md").read_text()
