"""The worked audits in examples/ run and give the verdicts their docstrings state (each script exits 1
otherwise). Seeds are fixed; OpenDP's own randomness cannot be, so its example's conformance checks
fail a correct library with probability at most 1e-6 each and its verdicts are otherwise fixed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600, cwd=EXAMPLES.parent)


@pytest.mark.slow
def test_the_diffprivlib_example_gives_its_stated_verdicts():
    pytest.importorskip("diffprivlib")
    done = run(str(EXAMPLES / "diffprivlib_audit.py"), "--samples", "50000")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sensitivity=1.0): verified" in done.stdout and "epsilon in [2, 2] (exact)" in done.stdout


@pytest.mark.slow
def test_the_opendp_example_gives_its_stated_verdicts():
    pytest.importorskip("opendp")
    done = run(str(EXAMPLES / "opendp_audit.py"), "--samples", "10000")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rho in [0.5, 0.5] (exact)" in done.stdout and "epsilon in [1, 1] (exact)" in done.stdout


@pytest.mark.slow
def test_the_example_pytest_file_passes_with_the_plugin():
    pytest.importorskip("diffprivlib")
    done = run("-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLES / "test_my_mechanisms.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
