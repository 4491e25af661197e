"""``dpaudit run --scheduler``: claims on a Dask LocalCluster give the records of a local run (error
records and their tracebacks included), a claim whose worker dies once is rerun and audited, a claim that
kills every worker it runs on is recorded as an error, and the time limit holds on worker threads, even
against a call that cannot be interrupted."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import threading
import time

import pytest

from dpaudit import UsageError
from dpaudit.core.errors import AuditTimeout
from dpaudit.runner import RunOptions, run
from dpaudit.runner import dask as dask_runner
from dpaudit.runner.time_limits import _watchdog, call_with_time_limit

pytestmark = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason="distributed is not installed (pip install 'dpaudit[dask]')")


def comparable(out) -> dict:
    """results.json without timings (every "seconds" field, each record's finishing time and the digest that
covers both, the run's start and end)."""
    doc = json.loads((out / "results.json").read_text())

    def untimed(value):
        if isinstance(value, dict):
            return {k: untimed(v) for k, v in value.items() if k not in ("seconds", "finished", "digest")}
        if isinstance(value, list):
            return [untimed(v) for v in value]
        return value

    run_fields = {k: v for k, v in doc["run"].items() if k not in ("started", "finished")}
    return {"run": untimed(run_fields), "records": sorted((untimed(r) for r in doc["records"]),
                                                         key=lambda r: r["claim_id"])}


@pytest.mark.slow
def test_a_local_cluster_run_matches_a_local_run(tmp_path):
    """Exact and statistical claims of the classic suite (the whole suite is compared in the benchmark
    benchmarks/dask_run.py; it takes minutes)."""
    selectors = ["classic/laplace-*", "classic/histogram-*"]
    local = run(RunOptions(selectors=selectors, out=tmp_path / "local", workers=2, progress_bar=False))
    dask = run(RunOptions(selectors=selectors, out=tmp_path / "dask", scheduler="local:2", progress_bar=False))
    assert local.exit_code == dask.exit_code == 0
    assert comparable(tmp_path / "local") == comparable(tmp_path / "dask")


@pytest.mark.slow
def test_a_claim_that_kills_its_workers_is_an_error_and_the_others_finish(tmp_path, suites_dir):
    s = run(RunOptions(selectors=["testing-crash"], suite_paths=[str(suites_dir / "crash.py")], out=tmp_path / "out",
                       scheduler="local:2", progress_bar=False))
    by_id = {r.claim_id: r for r in s.records}
    assert by_id["testing-crash/dies"].verdict == "error" and "died" in by_id["testing-crash/dies"].error["message"]
    assert by_id["testing-crash/survives"].verdict == "verified"
    assert s.exit_code == 2


@pytest.mark.slow
def test_a_worker_that_dies_once_is_replaced_and_its_claim_audited(tmp_path, suites_dir, monkeypatch):
    """The first worker to sample the claim exits; the cluster reruns the claim on a new worker, and the
    record is the one a run with no death gives."""
    marker = tmp_path / "died"
    monkeypatch.setenv("DPAUDIT_CRASH_ONCE_MARKER", str(marker))  # before the cluster's workers start
    options = {"selectors": ["testing-crash-once"], "suite_paths": [str(suites_dir / "crash_once.py")],
               "progress_bar": False}
    s = run(RunOptions(out=tmp_path / "dask", scheduler="local:1", **options))
    assert marker.exists()  # a worker did die
    (r,) = s.records
    assert r.verdict == "not-refuted" and s.exit_code == 0
    run(RunOptions(out=tmp_path / "local", workers=1, **options))  # the marker is there: no death
    assert comparable(tmp_path / "dask") == comparable(tmp_path / "local")


@pytest.mark.slow
def test_an_error_record_is_the_same_on_a_cluster_and_in_local_processes(tmp_path, suites_dir):
    options = {"selectors": ["testing-broken/raises"], "suite_paths": [str(suites_dir / "broken.py")],
               "progress_bar": False}
    run(RunOptions(out=tmp_path / "local", workers=2, **options))
    run(RunOptions(out=tmp_path / "dask", scheduler="local:1", **options))
    local, dask = comparable(tmp_path / "local"), comparable(tmp_path / "dask")
    assert local == dask
    (record,) = dask["records"]
    assert "broken on purpose" in record["error"]["traceback"] and record["error"]["where"]


@pytest.mark.slow
def test_the_time_limit_holds_on_a_cluster_worker_thread(tmp_path, suites_dir):
    """A claim blocked in one 30 s sleep with a 1 s limit: the worker records the timeout within the
    limit and its grace, and audits the next claim while the stuck call finishes in the background."""
    start = time.monotonic()
    s = run(RunOptions(selectors=["testing-slow/sleeps-too-long", "testing-slow/claim0"],
                       suite_paths=[str(suites_dir / "slow.py")], out=tmp_path / "out", scheduler="local:1",
                       progress_bar=False))
    by_id = {r.claim_id: r for r in s.records}
    stuck = by_id["testing-slow/sleeps-too-long"]
    assert stuck.verdict == "error" and stuck.error["type"] == "AuditTimeout" and stuck.seconds < 10
    assert "left to finish in the background" in stuck.error["message"]
    assert by_id["testing-slow/claim0"].verdict == "not-refuted"
    assert time.monotonic() - start < 25  # not the 30 s the stuck call takes


def test_a_blocking_call_in_a_thread_is_abandoned_after_its_grace():
    outcome = {}

    def audit():
        start = time.monotonic()
        try:
            call_with_time_limit(lambda: time.sleep(30), 0.2, grace=0.3)
        except AuditTimeout as exc:
            outcome["stopped"] = (time.monotonic() - start, str(exc))

    thread = threading.Thread(target=audit)
    thread.start()
    thread.join(10)
    assert outcome["stopped"][0] < 2 and "time limit of 0.2 s" in outcome["stopped"][1]


def test_a_limited_call_returns_and_raises_as_the_call_does_on_any_thread():
    def raises():
        raise ValueError("from the call")

    seen = []

    def check():
        assert call_with_time_limit(lambda: 7, 5) == 7
        with pytest.raises(ValueError, match="from the call") as info:
            call_with_time_limit(raises, 5)
        seen.append([frame.name for frame in info.traceback][-2:])

    check()  # the main thread: SIGALRM
    thread = threading.Thread(target=check)
    thread.start()
    thread.join(10)
    assert seen == [["call_with_time_limit", "raises"]] * 2  # the same frames on either path


def test_the_watchdog_stops_a_thread_and_never_fires_late():
    outcome = {}

    def busy():
        start = time.monotonic()
        try:
            with _watchdog(0.2):
                while time.monotonic() - start < 5:
                    sum(range(100))
        except AuditTimeout as exc:
            outcome["stopped"] = (time.monotonic() - start, str(exc))
        with _watchdog(0.1):
            pass
        time.sleep(0.3)  # a watchdog that outlived its block would raise here
        outcome["after"] = True

    thread = threading.Thread(target=busy)
    thread.start()
    thread.join(10)
    assert outcome["stopped"][0] < 1 and "time limit of 0.2 s" in outcome["stopped"][1] and outcome["after"]


def test_without_distributed_the_scheduler_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    with pytest.raises(UsageError, match=r"pip install 'dpaudit\[dask\]'"):
        dask_runner.connect("local:1")


@pytest.mark.slow
def test_bad_scheduler_arguments_are_one_line_errors(tmp_path):
    with pytest.raises(UsageError, match="local:N"):
        run(RunOptions(selectors=["classic/laplace-eps1"], out=tmp_path / "a", scheduler="local:zero"))
    with pytest.raises(UsageError, match="--workers"):
        run(RunOptions(selectors=["classic/laplace-eps1"], out=tmp_path / "b", scheduler="local:1", workers=2))
    done = subprocess.run([sys.executable, "-m", "dpaudit", "run", "classic/laplace-eps1", "--out", str(tmp_path / "c"),
                           "--scheduler", "tcp://127.0.0.1:9"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "cannot reach the scheduler" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_simulations_on_a_local_cluster_match_local_ones(tmp_path):
    common = ["simulate", "dist-mab/fig1@gap0.1,eps0.5", "--runs", "4", "--horizon", "2000", "--no-progress"]
    for name, extra in (("local", ["--workers", "2"]), ("dask", ["--scheduler", "local:1"])):
        done = subprocess.run([sys.executable, "-m", "dpaudit", *common, "--out", str(tmp_path / name), *extra],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    summary = "dist-mab/fig1/gap0.1,eps0.5/summary.json"
    local, dask = (json.loads((tmp_path / name / summary).read_text()) for name in ("local", "dask"))

    def untimed(value):
        if isinstance(value, dict):
            return {k: untimed(v) for k, v in value.items() if k not in ("seconds", "finished", "digest")}
        return [untimed(v) for v in value] if isinstance(value, list) else value

    assert untimed(local) == untimed(dask)
