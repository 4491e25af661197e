"""The README's marked examples run as printed and say what their comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
MARKER = "<!-- checked by tests/test_readme.py -->"


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
    assert lines[-3].startswith("not-refuted") and lines[-2].startswith("refuted")
    assert lines[-1] == "refuted [['etc40', 'etc5', 100]]"
