"""The README's marked examples run as printed and say what their comments say."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
MARKER = "<!-- checked by tests/test_readme.py -->"
SUITE_MARKER = "<!-- suite file, checked by tests/test_readme.py -->"


def marked_blocks() -> list[str]:
    text = README.read_text()
    return re.findall(re.escape(MARKER) + r"\n```python\n(.*?)```", text, flags=re.S)


def test_the_marked_examples_exist():
    assert len(marked_blocks()) >= 2


@pytest.mark.slow
def test_the_policy_examples_run_and_audit_as_documented(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in marked_blocks():
            exec(compile(block, str(README), "exec"), namespace)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("20000 ")
    assert lines[-4].startswith("not-refuted") and lines[-3].startswith("refuted")
    assert lines[-2] == "refuted 0.66 one run per recorded round T"  # the horizon-aware policy, run per horizon
    assert lines[-1] == "refuted [['etc40', 'etc5', 100]]"


def test_the_suite_file_example_runs_as_documented(tmp_path):
    """The "Writing your own suite" example, saved as my_suites.py and run as the README says: exit 0,
    two claims that hold and one expected refutation with its reason and footing in the record. The
    black-box privacy entries are seeded by the run seed (0): their verdicts are fixed; over seeds the
    not-refuted one would flip with probability at most its share of alpha (0.005)."""
    blocks = re.findall(re.escape(SUITE_MARKER) + r"\n```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) == 1
    (tmp_path / "my_suites.py").write_text(blocks[0])
    command = [sys.executable, "-m", "dpaudit", "run", "--suite", "my_suites.py", "my-counts", "--budget", "quick",
               "--out", "out", "--workers", "0", "--no-progress"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    records = {r["claim_id"]: r for r in json.loads((tmp_path / "out" / "results.json").read_text())["records"]}
    assert {cid: r["outcome"] for cid, r in records.items()} == {
        "my-counts/noisy-count-eps0.5": "pass", "my-counts/noise-tail": "pass",
        "my-counts/noisy-count-eps0.25": "expected-refutation"}
    finding = records["my-counts/noisy-count-eps0.25"]["expected"]
    assert finding["footing"] == "as printed" and "epsilon 0.5" in finding["reason"]
    assert "[as printed] the report claims 0.25-DP" in (tmp_path / "out" / "report.md").read_text()
