"""Shared fixtures. Tests import the installed ``dpaudit`` (see pyproject's --import-mode)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

# Property tests draw the same examples on every run, so a CI verdict never depends on luck;
# `pytest --hypothesis-profile=explore` searches afresh (with more examples) during development.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", max_examples=500)
settings.load_profile("deterministic")

SUITES = Path(__file__).parent / "suites"
#: what differs between two identical runs: timings, the finishing time, and the digest (which covers both)
TIMING = ("seconds", "finished", "digest")


@pytest.fixture
def suites_dir() -> Path:
    return SUITES


@pytest.fixture
def cli(tmp_path):
    """Run ``dpaudit ...`` in a subprocess from an empty directory; returns CompletedProcess."""

    def run(*args: str, timeout: float = 300, cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "dpaudit", *map(str, args)],
            cwd=cwd or tmp_path, capture_output=True, text=True, timeout=timeout,
        )

    return run


@pytest.fixture
def strip_timing():
    return _strip_timing


def _strip_timing(document: dict) -> dict:
    """A results document without the fields that vary between identical runs."""
    document = json.loads(json.dumps(document))
    document["run"].pop("started", None)
    document["run"].pop("finished", None)
    for record in document["records"]:
        for key in TIMING:
            record.pop(key, None)
    return document


@pytest.fixture
def refuses_bad_contexts():
    """Checks a started contextual policy against contexts of the wrong shape or a changed dimension
    (after one round at d = 4 with 2 runs and 3 arms)."""

    def check(policy) -> None:
        policy.start(2, 3, 10, np.random.default_rng(0))
        policy.choose(1, np.zeros((2, 3, 4)))
        policy.observe(1, np.zeros(2, dtype=int), np.zeros(2))
        with pytest.raises(ValueError, match="changed dimension from 4 to 5"):
            policy.choose(2, np.zeros((2, 3, 5)))
        with pytest.raises(ValueError, match=r"contexts must have shape \(runs, K, d\)"):
            policy.choose(2, np.zeros((3, 4)))

    return check



def pytest_collection_modifyitems(config, items):
    """Run the quick run's file first.

    Under the README's `pytest -n auto --dist loadfile` a worker takes whole files in collection order, and
    tests/test_quick_run.py is the longest file by far (the quick run of every suite): collected last, it
    would start when the other files are nearly done and run alone. First, the other worker takes the rest
    of the files beside it. The sort is stable, so every other file keeps its place.
    """
    items.sort(key=lambda item: item.path.name != "test_quick_run.py")
