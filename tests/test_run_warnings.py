"""Warnings raised by a claim's audit go into its record (``warnings``), not to the run's stderr; the reports
show them and the run ends with one line counting them.

The suite's claims are exact tail audits of Binomial(10, 1/2): their verdicts and warnings do not depend
on the seed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest

from dpaudit.core.results import AuditResult, json_schema
from dpaudit.runner import RunOptions, run

SUITE = '''
import warnings

import numpy as np
from scipy import stats

from dpaudit import TailBound
from dpaudit.suite import Suite

suite = Suite("testing-warns", "claims whose audits warn")


class Hoeffding:
    """2 exp(-2 t^2 / 10), warning on its first call: three times alike, then once otherwise (then, with
    ``fail``, raising)."""

    def __init__(self, fail=False):
        self.calls, self.fail = 0, fail

    def __call__(self, t):
        self.calls += 1
        if self.calls == 1:
            for _ in range(3):
                warnings.warn("the bound <is> loose", UserWarning)
            warnings.warn("overflow in the tail", RuntimeWarning)
            if self.fail:
                raise ValueError("the bound fails on purpose")
        return 2 * np.exp(-2 * np.asarray(t) ** 2 / 10)


def quiet(t):
    return 2 * np.exp(-2 * np.asarray(t) ** 2 / 10)


def claim(bound):
    return TailBound(bound, "2 exp(-2 t^2 / 10)", centred=True)


suite.tail("testing-warns/first", subject=stats.binom(10, 0.5), claim=claim(Hoeffding()))
suite.tail("testing-warns/second", subject=stats.binom(10, 0.5), claim=claim(Hoeffding()))
suite.tail("testing-warns/fails", subject=stats.binom(10, 0.5), claim=claim(Hoeffding(fail=True)))
suite.tail("testing-warns/quiet", subject=stats.binom(10, 0.5), claim=claim(quiet))
'''

RAISED = [{"category": "UserWarning", "message": "the bound <is> loose", "count": 3},
          {"category": "RuntimeWarning", "message": "overflow in the tail", "count": 1}]
SUMMARY = "12 warnings (2 distinct) recorded by 3 claims: see results.json or report.html"


@pytest.fixture(scope="module")
def warned_run(tmp_path_factory):
    """``dpaudit run`` of the suite in a process of its own (its stderr is what a user sees)."""
    folder = tmp_path_factory.mktemp("warns")
    (folder / "warn_suite.py").write_text(SUITE)
    command = [sys.executable, "-m", "dpaudit", "run", "--suite", "warn_suite.py", "testing-warns", "--out", "out",
               "--workers", "0", "--no-progress"]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr  # testing-warns/fails is an error record
    return folder / "out", done


def test_warnings_are_recorded_with_their_counts(warned_run):
    out, _ = warned_run
    document = json.loads((out / "results.json").read_text())
    jsonschema.validate(document, json_schema())
    records = {r["claim_id"]: r for r in document["records"]}
    assert records["testing-warns/first"]["verdict"] == "verified"
    # the same warning from the same line in the next claim is that claim's too
    assert records["testing-warns/first"]["warnings"] == records["testing-warns/second"]["warnings"] == RAISED
    # an error record keeps the warnings raised before the error
    assert records["testing-warns/fails"]["verdict"] == "error"
    assert records["testing-warns/fails"]["warnings"] == RAISED
    assert records["testing-warns/quiet"]["warnings"] == []


def test_warnings_stay_off_stderr_and_one_line_counts_them(warned_run):
    _, done = warned_run
    assert "Warning" not in done.stderr and "loose" not in done.stderr and "overflow" not in done.stderr, done.stderr
    assert done.stderr.splitlines().count(SUMMARY) == 1, done.stderr
    assert "warning" not in done.stdout.lower()


def test_reports_show_the_warnings(warned_run):
    out, _ = warned_run
    markdown = (out / "report.md").read_text()
    assert "Warnings: 12 (2 distinct) raised by 3 claims, listed in their sections." in markdown
    assert markdown.count("- warning: UserWarning: the bound <is> loose (x3)") == 3
    assert markdown.count("- warning: RuntimeWarning: overflow in the tail\n") == 3
    html = (out / "report.html").read_text()
    assert "Warnings: 12 (2 distinct) raised by 3 claims" in html
    assert html.count("<li><b>UserWarning</b>: the bound &lt;is&gt; loose (x3)</li>") == 3
    assert html.count("<li><b>RuntimeWarning</b>: overflow in the tail</li>") == 3
    assert "<is>" not in html


def test_a_run_without_warnings_says_nothing_of_them(tmp_path, capsys):
    (tmp_path / "warn_suite.py").write_text(SUITE)
    run(RunOptions(selectors=["testing-warns/quiet"], suite_paths=[str(tmp_path / "warn_suite.py")], workers=0,
                   out=tmp_path / "out", progress_bar=False))
    assert "warning" not in capsys.readouterr().err.lower()
    assert "Warnings" not in (tmp_path / "out" / "report.md").read_text()
    assert "Warnings" not in (tmp_path / "out" / "report.html").read_text()


def test_records_round_trip_and_older_records_load(warned_run):
    out, _ = warned_run
    record = next(r for r in json.loads((out / "results.json").read_text())["records"]
                  if r["claim_id"] == "testing-warns/first")
    assert AuditResult.from_dict(record).warnings == RAISED
    assert AuditResult.from_dict(record).to_dict() == record
    older = {k: v for k, v in record.items() if k != "warnings"}  # written before warnings were kept
    assert AuditResult.from_dict(older).warnings == []
    assert AuditResult.from_dict(older).to_dict()["warnings"] == []
