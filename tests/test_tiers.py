"""The test tiers (tests/conftest.py): a plain pytest runs the fast tier and a seeded sample of the slow one,
--slow=all every test, --slow=none the fast tier; a test named on the command line always runs; the whole
quick run is never sampled."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import slow_sample

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py")

TESTS = """
import pytest

def test_fast_a():
    pass

def test_fast_b():
    pass

@pytest.mark.slow
@pytest.mark.parametrize("i", range(20))
def test_slow(i):
    pass

@pytest.mark.slow
@pytest.mark.whole_run
def test_whole_run():
    pass
"""


@pytest.fixture
def tiered(pytester):
    """A project whose conftest is dpaudit's test conftest (its tier hooks), with 2 fast tests, 20 slow ones and
    one that needs the whole quick run."""
    pytester.makeconftest(f"""
import importlib.util
_spec = importlib.util.spec_from_file_location("dpaudit_tests_conftest", {str(CONFTEST)!r})
_tiers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tiers)
pytest_addoption = _tiers.pytest_addoption
pytest_collection_modifyitems = _tiers.pytest_collection_modifyitems
pytest_report_header = _tiers.pytest_report_header

def pytest_configure(config):
    config.addinivalue_line("markers", "slow: the slow tier")
    config.addinivalue_line("markers", "whole_run: the whole quick run")
""")
    pytester.makepyfile(test_tiered=TESTS)
    return pytester


def _passed(recorder) -> set[str]:
    return {r.nodeid.split("::")[-1] for r in recorder.getreports("pytest_runtest_logreport")
            if r.when == "call" and r.passed}


def test_a_plain_run_takes_the_fast_tier_and_a_seeded_sample(tiered):
    result = tiered.inline_run("--slow-seed", "7", "--slow-fraction", "0.25")
    passed = _passed(result)
    assert {"test_fast_a", "test_fast_b"} <= passed and "test_whole_run" not in passed
    sampled = passed - {"test_fast_a", "test_fast_b"}
    assert len(sampled) == 5  # a quarter of the 20 that may be sampled
    again = _passed(tiered.inline_run("--slow-seed", "7", "--slow-fraction", "0.25"))
    other = _passed(tiered.inline_run("--slow-seed", "8", "--slow-fraction", "0.25"))
    assert again == passed and other != passed  # the seed decides the sample
    everything = _passed(tiered.inline_run("--slow-fraction", "1"))
    assert len(everything) == 22 and "test_whole_run" not in everything  # never sampled, even all of the rest


def test_all_none_and_named_tests(tiered, monkeypatch):
    assert len(_passed(tiered.inline_run("--slow=all"))) == 23
    assert _passed(tiered.inline_run("--slow=none")) == {"test_fast_a", "test_fast_b"}
    monkeypatch.setenv("DPAUDIT_SLOW", "all")
    assert len(_passed(tiered.inline_run())) == 23
    monkeypatch.delenv("DPAUDIT_SLOW")
    # a test named on the command line, or a -k selection, runs whatever the sample
    assert _passed(tiered.inline_run("test_tiered.py::test_whole_run")) == {"test_whole_run"}
    assert _passed(tiered.inline_run("-k", "slow and 13", "--slow-seed", "1")) == {"test_slow[13]"}


def test_the_header_says_how_to_repeat_the_sample(tiered):
    result = tiered.runpytest("--slow-seed", "42", "--co")
    result.stdout.fnmatch_lines(["*slow tier: a sample of 10%, seed 42 (pytest --slow=all runs every test*"])


def test_the_sample_is_the_same_set_in_every_process():
    ids = [f"tests/test_x.py::test_{i}" for i in range(100)]
    chosen = slow_sample(ids, 0.1, 3)
    assert len(chosen) == 10 and chosen <= set(ids)
    assert slow_sample(list(reversed(ids)), 0.1, 3) == chosen  # the order xdist's workers collect in
    assert slow_sample(ids, 0.1, 4) != chosen
    assert len(slow_sample(ids[:3], 0.1, 3)) == 1  # at least one
    assert slow_sample([], 0.1, 3) == set()
