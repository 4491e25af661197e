"""The runner: determinism, failure isolation, durability, resume, alpha split, exit codes.

Runs of the classic suite are seeded; their exit code 0 (no unexpected refutation) would fail with
probability at most the run's family-wise alpha, 0.01, over seeds.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from dpaudit import UsageError
from dpaudit.core.results import json_schema
from dpaudit.runner import RunOptions, run


def options(tmp_path, *selectors, **kw):
    kw.setdefault("progress_bar", False)
    return RunOptions(selectors=list(selectors), out=tmp_path / kw.pop("name", "out"), **kw)


def load(path):
    return json.loads((path / "results.json").read_text())


# The additive-noise entries of the classic suite (9 claims, 4 of them statistical): fast.
ADDITIVE = ("classic/laplace-*", "classic/discrete-laplace-eps1*")


@pytest.mark.slow
def test_results_do_not_depend_on_worker_count(tmp_path, strip_timing):
    a = run(options(tmp_path, *ADDITIVE, seed=1, workers=2, name="a"))
    b = run(options(tmp_path, *ADDITIVE, seed=1, workers=1, name="b"))
    c = run(options(tmp_path, *ADDITIVE, seed=1, workers=0, name="c"))
    assert a.exit_code == 0
    assert strip_timing(load(a.out)) == strip_timing(load(b.out)) == strip_timing(load(c.out))
    d = run(options(tmp_path, "classic/laplace-*-blackbox", seed=2, workers=1, name="d"))
    assert strip_timing(load(d.out))["records"][0]["witness"] != strip_timing(load(a.out))["records"][1]["witness"]


def test_failures_are_isolated_and_exit_2(tmp_path, suites_dir):
    s = run(options(tmp_path, "testing-broken", suite_paths=[str(suites_dir / "broken.py")], workers=2))
    by_id = {r.claim_id: r for r in s.records}
    assert by_id["testing-broken/raises"].verdict == "error"
    assert "broken on purpose" in by_id["testing-broken/raises"].error["message"]
    assert "Traceback" in by_id["testing-broken/raises"].error["traceback"]
    assert by_id["testing-broken/correct"].verdict == "verified"
    assert by_id["testing-broken/overclaimed"].outcome == "unexpected-refutation"
    assert s.exit_code == 2


def test_unexpected_refutation_and_not_reproduced_exit_1(tmp_path, suites_dir):
    s = run(options(tmp_path, "testing-refutations", suite_paths=[str(suites_dir / "refutations.py")], workers=0))
    outcomes = {r.claim_id: r.outcome for r in s.records}
    assert outcomes == {"testing-refutations/reproduced": "expected-refutation",
                        "testing-refutations/not-reproduced": "not-reproduced"}
    assert s.exit_code == 1
    s = run(options(tmp_path, "testing-broken/overclaimed", suite_paths=[str(suites_dir / "broken.py")], workers=0))
    assert s.exit_code == 1


@pytest.mark.slow
def test_alpha_is_split_over_statistical_claims(tmp_path):
    s = run(options(tmp_path, *ADDITIVE, alpha=0.02, workers=2))
    doc = load(s.out)
    statistical = [r for r in doc["records"] if r["alpha"] is not None]
    assert doc["run"]["statistical_claims"] == len(statistical) == 4
    assert all(r["alpha"] == 0.005 and r["confidence"] == 0.995 for r in statistical)
    assert all(r["confidence"] == 1.0 for r in doc["records"] if r["alpha"] is None)


def test_timeout_becomes_an_error_record(tmp_path, suites_dir):
    s = run(options(tmp_path, "testing-slow/sleeps-too-long", suite_paths=[str(suites_dir / "slow.py")], workers=1))
    (r,) = s.records
    assert r.verdict == "error" and r.error["type"] == "AuditTimeout"
    assert r.seconds < 10


def test_dead_worker_becomes_an_error_record(tmp_path, suites_dir, capsys):
    s = run(options(tmp_path, "testing-crash", suite_paths=[str(suites_dir / "crash.py")], workers=2))
    assert "worker process died" in capsys.readouterr().err
    by_id = {r.claim_id: r for r in s.records}
    assert by_id["testing-crash/dies"].verdict == "error"
    assert "died" in by_id["testing-crash/dies"].error["message"]
    assert by_id["testing-crash/survives"].verdict == "verified"
    assert s.exit_code == 2


def test_a_scheduler_takes_no_local_workers(tmp_path):
    # the Dask runner itself: tests/test_dask_runner.py
    with pytest.raises(UsageError, match="--workers is for local runs"):
        run(options(tmp_path, "classic", scheduler="tcp://127.0.0.1:8786", workers=2))


@pytest.mark.parametrize(
    ("kw", "message"),
    [({"budget": "huge"}, "budget"), ({"alpha": 0}, "alpha"), ({"seed": -1}, "seed"), ({"timeout": 0}, "timeout"),
     ({"workers": -1}, "workers")],
)
def test_bad_options(tmp_path, kw, message):
    with pytest.raises(UsageError, match=message):
        run(options(tmp_path, "classic/laplace-eps1", **kw))


@pytest.mark.slow
def test_interrupted_run_resumes_only_unfinished_claims(tmp_path, suites_dir):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "dpaudit", "run", "testing-slow/claim*", "--suite", str(suites_dir / "slow.py"),
           "--workers", "1", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if len(load(out)["records"]) >= 2:
                break
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # its worker process notices and exits (it would otherwise linger, waiting for work)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _workers_of(out):
        time.sleep(0.2)
    assert not _workers_of(out)
    partial = load(out)  # an interrupted run leaves a valid file
    finished = {r["claim_id"]: r for r in partial["records"]}
    assert 2 <= len(finished) < 6

    resumed = subprocess.run([*cmd, "--resume"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(finished)} claim(s) already finished" in resumed.stderr
    final = {r["claim_id"]: r for r in load(out)["records"]}
    assert len(final) == 6
    for claim_id, record in finished.items():
        assert final[claim_id] == {**record, "reused": True}  # kept as written, timing included: not recomputed

    # a different seed could reuse nothing: refused, saying so, rather than replacing every record
    cmd[4] = "testing-slow/claim0"
    again = subprocess.run([*cmd, "--resume", "--seed", "5"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "--seed 0 there, 5 now" in again.stderr
    assert len(load(out)["records"]) == 6


def _workers_of(out) -> list[str]:
    """Processes still running with ``out`` on their command line."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(out) in text:
            found.append(text)
    return found


def test_entries_run_at_their_budgets_and_expect_per_budget(tmp_path, suites_dir, capsys):
    """Exact regret (explore-then-commit): no statistics involved."""
    suite = [str(suites_dir / "budgets.py")]
    quick = run(options(tmp_path, "testing-budgets", suite_paths=suite, workers=0, name="quick"))
    assert {r.claim_id for r in quick.records} == {"testing-budgets/everywhere", "testing-budgets/fails-at-paper"}
    assert "run only at other budgets, left out at quick: testing-budgets/paper-only" in capsys.readouterr().err
    assert quick.exit_code == 0 and {r.verdict for r in quick.records} == {"verified"}
    # the reports list the claim left out, with why and how to run it
    reason = "runs only at the paper budget (dpaudit run --budget paper testing-budgets/paper-only)"
    document = json.loads((quick.out / "results.json").read_text())
    assert document["run"]["left_out"] == [{"claim_id": "testing-budgets/paper-only", "reason": reason}]
    assert f"- **testing-budgets/paper-only**: {reason}" in (quick.out / "report.md").read_text()
    assert f"<b>testing-budgets/paper-only</b>: {reason}" in (quick.out / "report.html").read_text()
    jsonschema.validate(document, json_schema())
    paper = run(options(tmp_path, "testing-budgets", suite_paths=suite, workers=0, budget="paper", name="paper"))
    outcomes = {r.claim_id: (r.verdict, r.outcome) for r in paper.records}
    assert outcomes["testing-budgets/paper-only"] == ("verified", "pass")
    assert outcomes["testing-budgets/fails-at-paper"] == ("refuted", "expected-refutation")
    err = capsys.readouterr().err
    assert "] testing-budgets/fails-at-paper: refuted (" in err and ")  [expected-refutation]; " in err
    assert paper.exit_code == 0
    jsonschema.validate(json.loads((paper.out / "results.json").read_text()), json_schema())  # budget "paper"
    with pytest.raises(UsageError, match="only at other budgets"):
        run(options(tmp_path, "testing-budgets/paper-only", suite_paths=suite, workers=0, name="none"))


def test_progress_says_a_refutation_was_expected():
    """Every outcome but a pass is named on its line (an expected refutation is said to be one), by the name
    results.json gives it; only surprising outcomes are written above the bar, whose counts name the outcomes."""
    import io

    from dpaudit.runner.progress import Progress

    plain = io.StringIO()
    clock = iter([0.0, 30.0, 95.0, 100.0])
    progress = Progress(3, stream=plain, bar=False, clock=lambda: next(clock))
    progress.claim_done("p/found", "refuted", "expected-refutation", 1.23)
    progress.claim_done("p/wrong", "refuted", "unexpected-refutation", 0.5)
    progress.claim_done("p/fine", "verified", "pass", 0.04)
    assert plain.getvalue().splitlines() == [
        "[1/3] p/found: refuted (1.2 s)  [expected-refutation]; 30 s in, about 1 min left",
        "[2/3] p/wrong: refuted (0.5 s)  [unexpected-refutation]; 1 min 35 s in, under a minute left",
        "[3/3] p/fine: verified (0.0 s); 1 min 40 s in"]
    terminal = io.StringIO()
    progress = Progress(3, stream=terminal, bar=True)
    progress.claim_done("p/found", "refuted", "expected-refutation", 1.23)
    progress.claim_done("p/wrong", "refuted", "unexpected-refutation", 0.5)
    progress.claim_done("p/fine", "verified", "pass", 0.04)
    progress.close()
    drawn = terminal.getvalue()
    assert "[2/3] p/wrong: refuted (0.5 s)  [unexpected-refutation]" in drawn and "p/found" not in drawn
    assert "expected-refutation=1 unexpected-refutation=1 verified=1" in drawn


def test_the_time_left_is_estimated_from_the_claims_audited_not_those_reused():
    """Off a terminal (CI logs) every line says the time so far and, while claims remain, the time left at the rate
    claims have been audited: 300 claims reused at once do not make the remaining 200 look instant."""
    import io

    from dpaudit.core.durations import duration, time_left
    from dpaudit.runner.progress import Progress

    plain = io.StringIO()
    clock = iter([0.0, 120.0, 7200.0])
    progress = Progress(500, stream=plain, bar=False, clock=lambda: next(clock))
    progress.advance(300)
    progress.claim_done("p/a", "verified", "pass", 120.0)  # 1 audited in 2 min: 199 more, about 6 h 38 min
    progress.claim_done("p/b", "verified", "pass", 1.0)  # 2 in 2 h: 198 more at 1 h each
    assert plain.getvalue().splitlines() == ["[301/500] p/a: verified (120.0 s); 2 min 0 s in, about 6 h 38 min left",
                                             "[302/500] p/b: verified (1.0 s); 2 h 00 min in, about 198 h 00 min left"]
    assert [duration(s) for s in (0, 59.4, 59.6, 3599, 3600, 3661)] == \
        ["0 s", "59 s", "1 min 0 s", "59 min 59 s", "1 h 00 min", "1 h 01 min"]
    assert [time_left(s) for s in (0, 59, 90, 3569, 3600, 5430)] == \
        ["under a minute", "under a minute", "about 2 min", "about 59 min", "about 1 h 00 min", "about 1 h 30 min"]


def _blas_threads() -> list[int]:
    from threadpoolctl import threadpool_info

    return sorted({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"})


def test_local_workers_share_the_cores_between_their_blas_threads():
    """A local worker's BLAS pool gets the cores over the workers, at least one thread: left at one thread per
    core, the workers' spinning BLAS threads would take the cores from each other. Checked in a real worker
    process forked from a process whose pool has one thread per core; the test process's own pool is left
    alone."""
    from dpaudit.runner.executors import ProcessExecutor, default_workers, worker_threads

    cores = default_workers()
    if cores < 2:
        pytest.skip("one core: a worker's BLAS pool has one thread with or without the limit")
    from threadpoolctl import threadpool_limits

    own = _blas_threads()
    assert own
    with threadpool_limits(limits=cores):  # what a forked worker left alone would inherit: one thread per core
        assert _blas_threads() == [cores]
        executor = ProcessExecutor(cores)
        try:
            assert executor.submit(_blas_threads).result(timeout=120) == [worker_threads(cores)] == [1]
        finally:
            executor.shutdown()
    assert _blas_threads() == own
    assert worker_threads(1) == cores and worker_threads(cores + 5) == 1
