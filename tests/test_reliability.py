"""A run cannot corrupt its folder: the output lock, stopping on signals, consistent outputs, --resume
with other options, file modes, and one clear line (exit 2) for bad folders and damaged results files.

Every run here is exact or a statistical audit of a correct mechanism that is never refuted by the
assertions (they check files, exit codes and timing, not verdicts), so none can fail by chance.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dpaudit import UsageError
from dpaudit.api.records import error_info
from dpaudit.core.files import atomic_write
from dpaudit.runner import RunOptions, run
from dpaudit.runner.lock import OutputLock


def options(tmp_path, *selectors, **kw):
    kw.setdefault("progress_bar", False)
    kw.setdefault("workers", 0)
    return RunOptions(selectors=list(selectors), out=tmp_path / kw.pop("name", "out"), **kw)


def load(path):
    return json.loads((path / "results.json").read_text())


def test_a_second_run_on_a_locked_folder_refuses(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with OutputLock(out):  # another run holding the folder
        with pytest.raises(UsageError, match=r"is in use by another dpaudit run \(process \d+\)"):
            run(options(tmp_path, "classic/laplace-eps1"))
        assert not (out / "results.json").exists()  # nothing written by the refused run
    assert run(options(tmp_path, "classic/laplace-eps1")).exit_code == 0  # released: runs again


def test_plots_are_those_the_records_list(tmp_path):
    summary = run(options(tmp_path, "classic/laplace-eps1", "classic/laplace-eps0.1"))
    out = summary.out
    (out / "plots" / "classic_old-claim.png").write_bytes(b"a previous run's plot")
    again = run(options(tmp_path, "classic/laplace-eps1", resume=True))
    listed = {name for r in load(out)["records"] for name in r["plots"]}
    assert listed == {name for r in again.records for name in r.plots}
    assert {f"plots/{p.name}" for p in (out / "plots").iterdir()} == listed  # the stale ones are gone


def _slow_run(tmp_path, suites_dir, *extra):
    """A run of one quick claim and one that sleeps 30 s in its worker."""
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "dpaudit", "run", "testing-slow/claim0", "testing-slow/sleeps-too-long",
           "--suite", str(suites_dir / "slow.py"), "--workers", "2", "--timeout", "100", "--out", str(out),
           "--no-progress", *extra]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, out


def _wait_for_records(out, count, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if len(load(out)["records"]) >= count:
                return
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"no {count} record(s) in {out} after {timeout} s")


def _workers_of(out) -> list[int]:
    """Processes (other than this one) whose command line or open files mention ``out``: the run's
    workers are forked, so they are found by the lock file they hold open."""
    found = []
    for proc in os.listdir("/proc"):
        if not proc.isdigit() or int(proc) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{proc}/fd")
            targets = [os.readlink(f"/proc/{proc}/fd/{fd}") for fd in fds]
        except OSError:
            continue
        if any(t.startswith(str(out)) for t in targets):
            found.append(int(proc))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_workers_at_once_and_keeps_finished_records(tmp_path, suites_dir, signum):
    proc, out = _slow_run(tmp_path, suites_dir)
    _wait_for_records(out, 1)
    sent = time.monotonic()
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=20)
    assert time.monotonic() - sent < 5  # not the 30 s the sleeping claim has left
    assert proc.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr and "interrupted" in stderr
    assert not _workers_of(out)
    records = load(out)["records"]
    assert [r["claim_id"] for r in records] == ["testing-slow/claim0"]  # the finished record is kept
    # every output was written from the same records, the reports included
    assert (out / "junit.xml").read_text().count("<testcase") == len(records)
    assert "testing-slow/claim0" in (out / "report.md").read_text()
    assert "sleeps-too-long" not in (out / "report.md").read_text()


def test_resume_refuses_a_folder_of_other_options(tmp_path):
    run(options(tmp_path, "classic/laplace-eps1"))
    with pytest.raises(UsageError, match=r"--seed 0 there, 5 now; --budget 'quick' there, 'standard' now"):
        run(options(tmp_path, "classic/laplace-eps1", resume=True, seed=5, budget="standard"))
    with pytest.raises(UsageError, match=r"--alpha 0.01 there, 0.05 now"):
        run(options(tmp_path, "classic/laplace-eps1", resume=True, alpha=0.05))
    assert len(load(tmp_path / "out")["records"]) == 1  # the refused runs left the records as they were


def test_resume_says_what_is_kept_rerun_and_left_out(tmp_path, capsys):
    run(options(tmp_path, "classic/laplace-eps1", "classic/laplace-eps0.1"))
    capsys.readouterr()
    run(options(tmp_path, "classic/laplace-eps1", resume=True))
    err = capsys.readouterr().err
    assert "1 claim(s) already finished" in err and "are kept, 0 to run" in err
    assert "1 record(s) of claims outside this selection are not carried over: classic/laplace-eps0.1" in err


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_outputs_are_created_with_the_umask(tmp_path, umask):
    previous = os.umask(umask)
    try:
        atomic_write(tmp_path / "report.md", b"text")
        summary = run(options(tmp_path, "classic/laplace-eps1"))
    finally:
        os.umask(previous)
    assert (tmp_path / "report.md").stat().st_mode & 0o777 == 0o666 & ~umask
    for name in ("results.json", "report.md", "report.html", "junit.xml"):
        assert (summary.out / name).stat().st_mode & 0o777 == 0o666 & ~umask, name


@pytest.mark.slow
def test_bad_out_folders_are_exit_2_with_one_line(cli, tmp_path):
    (tmp_path / "afile").write_text("")
    for out, message in [("afile", "is a file, not a folder"), ("afile/sub", "cannot create the folder")]:
        res = cli("run", "classic/laplace-eps1", "--out", out)
        assert res.returncode == 2 and message in res.stderr, res.stderr
        assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_closed_pipe_ends_quietly(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "dpaudit", "list", "classic", "--json"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before anything is written, as with `| head` on a long list
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr


@pytest.mark.slow
def test_damaged_results_files_are_named(cli, tmp_path):
    assert cli("run", "classic/laplace-eps1", "--out", "rep", "--workers", "0").returncode == 0
    text = (tmp_path / "rep" / "results.json").read_text()
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "results.json").write_text(text[: len(text) // 2])
    cut = cli("report", "cut")
    assert cut.returncode == 2 and "cut/results.json is not valid JSON" in cut.stderr
    doc = json.loads(text)
    del doc["records"][0]["expected"]
    (tmp_path / "edited").mkdir()
    (tmp_path / "edited" / "results.json").write_text(json.dumps(doc))
    edited = cli("report", "edited")
    assert edited.returncode == 2 and "record classic/laplace-eps1 lacks the field(s) expected" in edited.stderr
    doc = json.loads(text)
    doc["records"][0]["expected"] = "refuted"  # a field of the wrong shape
    (tmp_path / "edited" / "results.json").write_text(json.dumps(doc))
    wrong = cli("report", "edited")
    assert wrong.returncode == 2 and "edited/results.json: a record cannot be rendered" in wrong.stderr
    for res in (cut, edited, wrong):
        assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


RAISES = textwrap.dedent(
    """\
    def helper(data):
        raise ValueError("no negative inputs")


    def mech(data, size, rng):
        return helper(data)
    """
)


@pytest.mark.slow
def test_a_raising_mechanism_is_located_in_the_users_code(cli, tmp_path):
    (tmp_path / "mymech.py").write_text(RAISES)
    res = cli("audit", "mymech.py:mech", "--claim", "pure-dp eps=1", "--pair", "[0, 1]", "--json")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "mymech.py:2 in helper" in res.stderr
    where = json.loads(res.stdout)["error"]["where"]
    assert [(f["line"], f["function"]) for f in where] == [(6, "mech"), (2, "helper")]
    assert all(f["file"].endswith("mymech.py") for f in where)


def test_an_error_record_lists_the_users_frames(tmp_path, suites_dir):
    summary = run(options(tmp_path, "testing-broken/raises", suite_paths=[str(suites_dir / "broken.py")]))
    where = summary.records[0].error["where"]
    assert where and where[-1]["file"].endswith("broken.py") and where[-1]["function"] == "raises"
    assert "broken on purpose" in where[-1]["code"]


def test_error_info_skips_the_harness_and_the_standard_library():
    def user_code():
        json.loads("{")

    try:
        user_code()
    except ValueError as exc:
        where = error_info(exc)["where"]
    assert [f["function"] for f in where] == ["test_error_info_skips_the_harness_and_the_standard_library",
                                              "user_code"]


def test_the_results_file_is_the_documents_json_assembled_from_each_records_text(tmp_path):
    """results.json is rewritten after every claim from each record's text made once: the text is exactly
    ``json.dumps(document, indent=1)`` after every put, a replaced record included."""
    import gzip

    from dpaudit.runner.store import ResultsStore

    snapshot = Path(__file__).parent / "snapshots" / "quick-records.json.gz"
    with gzip.open(snapshot, "rt", encoding="utf-8") as fh:
        records = json.load(fh)["records"][:40]
    store = ResultsStore(tmp_path / "results.json", {"seed": 0, "title": "ünïcode \u2713", "nested": {"a": [1, 2]}})

    def same() -> bool:
        return store.text() == json.dumps(store.document(), indent=1, sort_keys=False, allow_nan=False)

    assert same()  # no records
    for record in records[::-1]:  # out of order: the file keeps them sorted
        store.put(record)
        assert same()
    store.put({**records[3], "verdict": "refuted", "witness": {"lines": "a\nb", "deep": [[{"x": 1.5e-300}]]},
               "digest": None})
    assert same()
    store.write()
    assert json.loads((tmp_path / "results.json").read_text()) == store.document()
