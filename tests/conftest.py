"""Shared fixtures. Tests import the installed ``dpaudit`` (see pyproject's --import-mode)."""

from __future__ import annotations

import json
import os
import random
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

# pytest-xdist's workers share the cores as a run's workers do (dpaudit.runner.executors.worker_threads): each
# BLAS pool left at one thread per core spins on the cores the other workers' tests need
if os.environ.get("PYTEST_XDIST_WORKER"):
    from threadpoolctl import threadpool_limits

    _cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    threadpool_limits(limits=max(1, _cores // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)))

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



# -- the two tiers ---------------------------------------------------------------------------------------------
# Tests marked ``slow`` (long statistical or end-to-end runs) form the slow tier. A plain ``pytest`` (the README's
# test command, and CI) runs the fast tier and a seeded sample of the slow one, a different sample at each commit
# (the seed is read off the checkout's HEAD), so that every slow test keeps running somewhere over the commits;
# ``pytest --slow=all`` runs every test, ``--slow=none`` the fast tier alone. A test named on the command line
# (``tests/test_x.py::test_y``), or a ``-k`` / ``-m`` selection, is never sampled out.
SLOW_FRACTION = 0.1


def pytest_addoption(parser):
    group = parser.getgroup("dpaudit", "dpaudit's test tiers")
    group.addoption("--slow", choices=("sample", "all", "none"), default=None,
                    help="the slow tier: a seeded sample of it (default), all of it, or none "
                         "(also $DPAUDIT_SLOW)")
    group.addoption("--slow-fraction", type=float, default=None,
                    help=f"the share of the slow tier a sample runs (default {SLOW_FRACTION})")
    group.addoption("--slow-seed", type=int, default=None,
                    help="the sample's seed (default: $DPAUDIT_SLOW_SEED, else read off the checkout's HEAD commit)")


def slow_mode(config) -> str:
    mode = config.getoption("--slow") or os.environ.get("DPAUDIT_SLOW") or "sample"
    if mode not in ("sample", "all", "none"):
        raise pytest.UsageError(f"--slow / DPAUDIT_SLOW must be sample, all or none, got {mode!r}")
    named = any("::" in str(arg) for arg in config.args) or config.option.keyword or config.option.markexpr
    return "all" if named and mode == "sample" else mode


def slow_seed(config) -> int:
    """The slow sample's seed: the option, the environment, or the first 32 bits of the HEAD commit."""
    seed = config.getoption("--slow-seed")
    if seed is not None:
        return seed
    if os.environ.get("DPAUDIT_SLOW_SEED"):
        return int(os.environ["DPAUDIT_SLOW_SEED"])
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=config.rootpath, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        return int(head[:8], 16)
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def slow_sample(nodeids: list[str], fraction: float, seed: int) -> set[str]:
    """The seeded sample of the slow tier's node ids: ``fraction`` of them (at least one), the same set for the
    same ids and seed in every process (pytest-xdist's workers each collect and must agree)."""
    ordered = sorted(nodeids)
    if not ordered:
        return set()
    count = min(len(ordered), max(1, round(fraction * len(ordered))))
    return set(random.Random(seed).sample(ordered, count))


def pytest_report_header(config):
    mode = slow_mode(config)
    if mode == "sample":
        fraction = config.getoption("--slow-fraction") or SLOW_FRACTION
        return (f"slow tier: a sample of {fraction:.0%}, seed {slow_seed(config)} (pytest --slow=all runs every "
                "test; --slow-seed SEED repeats a sample)")
    return f"slow tier: {mode}"


def _select_tier(config, items) -> None:
    mode = slow_mode(config)
    if mode == "all":
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    # the whole quick run (ten minutes on two cores) is never sampled: a sample of its claims is in the fast tier
    sampled = [item for item in slow if not item.get_closest_marker("whole_run")]
    keep = set()
    if mode == "sample":
        keep = slow_sample([item.nodeid for item in sampled], config.getoption("--slow-fraction") or SLOW_FRACTION,
                           slow_seed(config))
    dropped = [item for item in slow if item.nodeid not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = {id(item) for item in dropped}
        items[:] = [item for item in items if id(item) not in gone]


#: the longest test files, longest first (seconds of one run on two cores, `pytest --durations=0` summed per file:
#: 124, 114, 93, 66, 51, 32, 30 of 886 in all); the rest keep their order after them
LONGEST_FILES = ("test_doc_examples.py", "test_content_keys.py", "test_certified_accounting.py", "test_dpsgd_audit.py",
                 "test_tail_auditor.py", "test_runner.py", "test_quick_run.py")


def pytest_collection_modifyitems(config, items):
    """Select the tier (above), then run the longest files first.

    Under the README's `pytest -n auto --dist loadfile` a worker takes whole files in collection order. A long file
    collected late starts when the others are nearly done and runs alone (the doc examples' file, two to four
    minutes with its sampled slow test, once ended a run a minute after every other file); taken first, the long
    files run beside each other and the short ones fill the gaps at the end. The sort is stable, so every other
    file keeps its place.
    """
    _select_tier(config, items)
    rank = {name: i for i, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
