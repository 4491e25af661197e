"""``dpaudit run --scheduler``: claims on a Dask LocalCluster give the records of a local run, a claim
that kills every worker it runs on is recorded as an error, and the time limit holds on worker threads."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest

from dpaudit import UsageError
from dpaudit.errors import AuditTimeout
from dpaudit.runner import RunOptions, run
from dpaudit.runner.worker import time_limit

pytest.importorskip("distributed")


def comparable(out) -> dict:
    """results.json without timings (every "seconds" field, the run's start and end)."""
    doc = json.loads((out / "results.json").read_text())

    def untimed(value):
        if isinstance(value, dict):
            return {k: untimed(v) for k, v in value.items() if k != "seconds"}
        if isinstance(value, list):
            return [untimed(v) for v in value]
        return value

    run_fields = {k: v for k, v in doc["run"].items() if k not in ("started", "finished")}
    return {"run": untimed(run_fields), "records": sorted((untimed(r) for r in doc["records"]),
                                                         key=lambda r: r["claim_id"])}


def test_a_local_cluster_run_matches_a_local_run(tmp_path):
    """Exact and statistical claims of the classic suite (the whole suite is compared in the benchmark
    benchmarks/dask_run.py; it takes minutes)."""
    selectors = ["classic/laplace-*", "classic/histogram-*"]
    local = run(RunOptions(selectors=selectors, out=tmp_path / "local", workers=2, progress_bar=False))
    dask = run(RunOptions(selectors=selectors, out=tmp_path / "dask", scheduler="local:2", progress_bar=False))
    assert local.exit_code == dask.exit_code == 0
    assert comparable(tmp_path / "local") == comparable(tmp_path / "dask")


def test_a_claim_that_kills_its_workers_is_an_error_and_the_others_finish(tmp_path, suites_dir):
    s = run(RunOptions(selectors=["testing-crash"], suite_paths=[str(suites_dir / "crash.py")], out=tmp_path / "out",
                       scheduler="local:2", progress_bar=False))
    by_id = {r.claim_id: r for r in s.records}
    assert by_id["testing-crash/dies"].verdict == "error" and "died" in by_id["testing-crash/dies"].error["message"]
    assert by_id["testing-crash/survives"].verdict == "verified"
    assert s.exit_code == 2


def test_the_time_limit_holds_on_a_cluster_worker_thread(tmp_path, suites_dir):
    s = run(RunOptions(selectors=["testing-slow/sleeps-too-long"], suite_paths=[str(suites_dir / "slow.py")],
                       out=tmp_path / "out", scheduler="local:1", progress_bar=False))
    (r,) = s.records
    assert r.verdict == "error" and r.error["type"] == "AuditTimeout" and r.seconds < 10


def test_the_watchdog_stops_a_thread_and_never_fires_late():
    outcome = {}

    def busy():
        start = time.monotonic()
        try:
            with time_limit(0.2):
                while time.monotonic() - start < 5:
                    sum(range(100))
        except AuditTimeout as exc:
            outcome["stopped"] = (time.monotonic() - start, str(exc))
        with time_limit(0.1):
            pass
        time.sleep(0.3)  # a watchdog that outlived its block would raise here
        outcome["after"] = True

    thread = threading.Thread(target=busy)
    thread.start()
    thread.join(10)
    assert outcome["stopped"][0] < 1 and "time limit of 0.2 s" in outcome["stopped"][1] and outcome["after"]


def test_bad_scheduler_arguments_are_one_line_errors(tmp_path):
    with pytest.raises(UsageError, match="local:N"):
        run(RunOptions(selectors=["classic/laplace-eps1"], out=tmp_path / "a", scheduler="local:zero"))
    with pytest.raises(UsageError, match="--workers"):
        run(RunOptions(selectors=["classic/laplace-eps1"], out=tmp_path / "b", scheduler="local:1", workers=2))
    done = subprocess.run([sys.executable, "-m", "dpaudit", "run", "classic/laplace-eps1", "--out", str(tmp_path / "c"),
                           "--scheduler", "tcp://127.0.0.1:9"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "cannot reach the scheduler" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


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
            return {k: untimed(v) for k, v in value.items() if k != "seconds"}
        return [untimed(v) for v in value] if isinstance(value, list) else value

    assert untimed(local) == untimed(dask)
