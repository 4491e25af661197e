"""Incremental runs: each claim's record carries a content key (dpaudit.runner.keys), and a run into a folder
that holds an earlier run reuses the records whose key is unchanged.

The end-to-end tests run a user suite of three small black-box privacy claims whose mechanisms live in two
modules beside the suite file; editing one module must re-run exactly the claims whose subject uses it. The
claims are seeded by the run seed (0), so their verdicts are fixed; which records are reused does not depend on
any verdict."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from dpaudit import PureDP
from dpaudit.core.neighbours import QueryDistance
from dpaudit.runner import RunOptions, run
from dpaudit.runner import keys as keys_module
from dpaudit.runner.keys import KeyMaker
from dpaudit.runner.store import record_digest
from dpaudit.suite import Suite
from dpaudit.suite.discovery import load_suites, select

MECH_A = '''
def noisy_count(count, size, rng):
    """A count plus Laplace noise of scale 2: 0.5-DP."""
    return count + rng.laplace(0.0, 2.0, size)
'''
MECH_B = '''
class Scaled:
    """A count plus Laplace noise of scale ``scale``."""

    def __init__(self, scale):
        self.scale = scale

    def sample(self, count, size, rng):
        return count + rng.laplace(0.0, self.scale, size)
'''
SUITE = '''
from dpaudit import PureDP
from dpaudit.core.neighbours import QueryDistance
from dpaudit.suite import Suite

import mech_a
from mech_b import Scaled

suite = Suite("testing-keys", "claims on two mechanism modules")
PAIR = dict(pairs=[(10.0, 11.0)], relation=QueryDistance(1), samples={"quick": 20_000})

suite.privacy("testing-keys/a", subject=mech_a.noisy_count, claim=PureDP(0.5), **PAIR)
suite.privacy("testing-keys/b2", subject=Scaled(2.0), claim=PureDP(0.5), **PAIR)
suite.privacy("testing-keys/b4", subject=Scaled(4.0), claim=PureDP(0.25), **PAIR)
'''


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "mech_a.py").write_text(MECH_A)
    (folder / "mech_b.py").write_text(MECH_B)
    (folder / "suite_keys.py").write_text(SUITE)
    return folder


def _run(project: Path, *extra: str, out: str = "out") -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "dpaudit", "run", "--suite", "suite_keys.py", "testing-keys", "--out", out,
               "--workers", "0", "--no-progress", *extra]
    # a fresh interpreter per run, as in CI: nothing of the previous run's modules is cached
    return subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def _records(project: Path, out: str = "out") -> dict[str, dict]:
    document = json.loads((project / out / "results.json").read_text())
    return {r["claim_id"]: r for r in document["records"]}


def test_a_second_run_reuses_everything_and_an_edited_module_reruns_only_its_claims(project):
    first = _run(project)
    assert first.returncode == 0, first.stderr
    before = _records(project)
    assert all(r["key"] and r["digest"] == record_digest(r) and not r["reused"] for r in before.values())

    again = _run(project)
    assert again.returncode == 0, again.stderr
    assert "reusing 3 record(s)" in again.stderr and "0 claim(s) to run" in again.stderr
    after = _records(project)
    for claim_id, record in after.items():
        assert record["reused"] is True
        assert {**record, "reused": False} == before[claim_id]  # as written, its date and timing included
    assert "reused from" in (project / "out" / "report.md").read_text()

    # one edited mechanism file: only the claims whose subject is in it run again
    (project / "mech_b.py").write_text(MECH_B.replace("A count plus", "A count, plus"))
    third = _run(project)
    assert third.returncode == 0, third.stderr
    assert "reusing 1 record(s)" in third.stderr and "2 claim(s) to run" in third.stderr
    rerun = _records(project)
    assert rerun["testing-keys/a"]["reused"] is True
    assert rerun["testing-keys/a"]["finished"] == before["testing-keys/a"]["finished"]
    for claim_id in ("testing-keys/b2", "testing-keys/b4"):
        assert rerun[claim_id]["reused"] is False and rerun[claim_id]["key"] != before[claim_id]["key"]
        # the same seed: the same verdict and statistic, audited again
        assert rerun[claim_id]["statistic"] == before[claim_id]["statistic"]

    # --fresh: everything again
    fresh = _run(project, "--fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert "reusing" not in fresh.stderr
    assert not any(r["reused"] for r in _records(project).values())


def test_a_changed_seed_or_suite_entry_reruns_and_says_why(project):
    assert _run(project).returncode == 0
    seed = _run(project, "--seed", "3")
    assert seed.returncode == 0
    assert "3 with another seed or budget" in seed.stderr
    (project / "suite_keys.py").write_text(SUITE.replace("Scaled(4.0)", "Scaled(4.5)"))
    entry = _run(project, "--seed", "3")
    # the suite file changed: its own source is in every key of its claims (not the modules it imports)
    assert "0 claim(s) to run" not in entry.stderr and "changed content key" in entry.stderr


def test_damaged_edited_and_foreign_records_are_never_trusted(project):
    assert _run(project).returncode == 0
    path = project / "out" / "results.json"
    document = json.loads(path.read_text())
    document["records"][0]["verdict"] = "not-refuted" if document["records"][0]["verdict"] == "refuted" else "refuted"
    del document["records"][1]["digest"]
    path.write_text(json.dumps(document))
    edited = _run(project)
    assert edited.returncode == 0, edited.stderr
    lines = [line for line in edited.stderr.splitlines() if line.startswith("warning: ignored 2 record(s)")]
    assert len(lines) == 1, edited.stderr
    assert "damaged or edited" in lines[0] and "without a digest" in lines[0]
    assert sum(not r["reused"] for r in _records(project).values()) == 2

    # another dpaudit version's file: its records are audited again, none kept
    document = json.loads(path.read_text())
    document["dpaudit_version"] = "0.0.1"
    path.write_text(json.dumps(document))
    foreign = _run(project)
    assert "3 with dpaudit 0.0.1" in foreign.stderr, foreign.stderr
    assert not any(r["reused"] for r in _records(project).values())

    # a damaged file: one line, moved aside (nothing lost), every claim audited
    truncated = path.read_text()[:200]
    path.write_text(truncated)
    damaged = _run(project)
    assert damaged.returncode == 0, damaged.stderr
    warned = [line for line in damaged.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1 and "results.json.unreadable" in warned[0]
    assert (project / "out" / "results.json.unreadable").read_text() == truncated
    assert len(_records(project)) == 3


def test_fresh_and_resume_contradict(project):
    done = _run(project, "--fresh", "--resume")
    assert done.returncode == 2 and "contradict" in done.stderr


# -- the keys themselves, without running --------------------------------------------------------------------


@pytest.fixture(scope="module")
def builtin_entries():
    return select(load_suites())


@pytest.fixture(scope="module")
def builtin_keys(builtin_entries):
    maker = KeyMaker()
    return {e.id: maker.key(e, run_seed=0, budget="quick", alpha=0.01) for e in builtin_entries}


def test_every_builtin_entry_has_a_key_and_they_are_distinct(builtin_keys):
    assert None not in builtin_keys.values()
    assert len(set(builtin_keys.values())) == len(builtin_keys)


def test_a_key_does_not_depend_on_the_other_entries_of_the_run(builtin_entries, builtin_keys):
    """A selection's keys are those the whole run gives its entries, in any order: a run of one suite reuses
    the records of a run of all."""
    for chosen in (builtin_entries[::-1][:30], builtin_entries[200:230], builtin_entries[-30:]):
        maker = KeyMaker()
        assert {e.id: maker.key(e, run_seed=0, budget="quick", alpha=0.01) for e in chosen} == \
            {e.id: builtin_keys[e.id] for e in chosen}


def _keys_with_changed(entries, module: str, monkeypatch) -> dict[str, str]:
    """The keys after the source of ``module`` changed (its file's digest, as the keys read it)."""
    path = KeyMaker().index.file_of(module)
    assert path is not None, module
    original = keys_module._file_digest
    monkeypatch.setattr(keys_module, "_file_digest", lambda p: "changed" if p == path else original(p))
    maker = KeyMaker()
    return {e.id: maker.key(e, run_seed=0, budget="quick", alpha=0.01) for e in entries}


def test_a_changed_mechanism_file_changes_only_its_users_keys(builtin_entries, builtin_keys, monkeypatch):
    """The histogram mechanisms' file: the claims whose subject is one of its mechanisms (read off the subjects,
    not the keys' own walk) change key, and no other. A DP-SGD entry's subject built on first use is read as
    given (``_subject``, its builder): building it simulates a Private-GLM run for Remark A.1's entries, a minute
    in all, and a builder is no histogram mechanism either way."""
    from dpaudit.mechanisms.classic import histogram

    def given(entry):
        return vars(entry)["_subject"] if "_subject" in vars(entry) else getattr(entry, "subject", None)

    users = {e.id for e in builtin_entries if type(given(e)).__module__ == histogram.__name__}
    assert users
    after = _keys_with_changed(builtin_entries, histogram.__name__, monkeypatch)
    changed = {cid for cid in builtin_keys if after[cid] != builtin_keys[cid]}
    assert changed == users


def test_a_changed_auditor_changes_every_key(builtin_entries, builtin_keys, monkeypatch):
    after = _keys_with_changed(builtin_entries, "dpaudit.auditors.statistical_privacy", monkeypatch)
    assert all(after[cid] != builtin_keys[cid] for cid in builtin_keys)


def _entry(subject, claim=None, **kw):
    suite = Suite("testing-k", "")
    return suite.privacy("testing-k/x", subject=subject, claim=claim or PureDP(0.5), pairs=[(0.0, 1.0)],
                         relation=QueryDistance(1), **kw)


class _Scaled:
    def __init__(self, scale):
        self.scale = scale

    def sample(self, x, size, rng):
        return x + rng.laplace(0.0, self.scale, size)


def test_the_key_follows_the_parameters_and_nothing_else():
    maker = KeyMaker()

    def key(entry, **kw):
        return maker.key(entry, **{"run_seed": 0, "budget": "quick", "alpha": 0.01, **kw})

    base = key(_entry(_Scaled(2.0)))
    assert key(_entry(_Scaled(2.0))) == base  # built again alike: the same key
    assert key(_entry(_Scaled(2.5))) != base  # a parameter
    assert key(_entry(_Scaled(2.0), claim=PureDP(0.25))) != base  # the claim
    assert key(_entry(_Scaled(2.0), samples={"quick": 1000})) != base  # the budget's samples
    assert key(_entry(_Scaled(2.0)), run_seed=1) != base
    assert key(_entry(_Scaled(2.0)), budget="standard") != base
    assert key(_entry(_Scaled(2.0)), alpha=0.02) != base


def test_functions_count_by_their_code_and_what_they_read():
    maker = KeyMaker()
    namespace: dict = {}
    exec(textwrap.dedent('''
        SCALE = 2.0
        def mech(x, size, rng):
            return x + rng.laplace(0.0, SCALE, size)
    '''), namespace)
    mech = namespace["mech"]
    mech.__module__ = "_dpaudit_user_suite_testing"  # as a user's suite file loads

    def key():
        return maker.key(_entry(mech), run_seed=0, budget="quick", alpha=0.01)

    base = key()
    namespace["SCALE"] = 3.0  # a global the function reads
    assert key() != base
    namespace["SCALE"] = 2.0
    assert key() == base
    mech.__code__ = (lambda x, size, rng: x + rng.laplace(0.0, 2.0 * 1, size)).__code__  # other code
    assert key() != base


def test_what_the_walk_cannot_see_gets_no_key(monkeypatch):
    assert KeyMaker().key(_entry(_Scaled(threading.Lock())), run_seed=0, budget="quick", alpha=0.01) is None
    monkeypatch.setattr(keys_module, "MAX_NODES", 50)
    entry = _entry(_Scaled([[i] for i in range(100)]))
    assert KeyMaker().key(entry, run_seed=0, budget="quick", alpha=0.01) is None


def test_objects_without_a_dict_count_by_what_pickling_sees():
    """A slice or a C extension's number has neither a __dict__ nor slots: its value still decides the key."""
    from flint import fmpq

    maker = KeyMaker()

    def key(value):
        return maker.key(_entry(_Scaled(value)), run_seed=0, budget="quick", alpha=0.01)

    assert key(slice(0, 5)) == key(slice(0, 5)) != key(slice(0, 6))
    assert key(fmpq(1, 3)) == key(fmpq(1, 3)) != key(fmpq(1, 4))


def test_keys_do_not_depend_on_the_process(tmp_path):
    """Computed in two interpreters with different hash seeds (set iteration orders): the same keys."""
    script = textwrap.dedent('''
        import json, sys
        from dpaudit.runner.keys import KeyMaker
        from dpaudit.suite.discovery import load_suites, select
        maker = KeyMaker()
        entries = select(load_suites(), ["classic", "dist-mab/fact*", "private-online/thm5*"])
        json.dump({e.id: maker.key(e, run_seed=0, budget="quick", alpha=0.01) for e in entries}, sys.stdout)
    ''')
    found = []
    for seed in ("1", "2"):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                              env={**os.environ, "PYTHONHASHSEED": seed}, timeout=300)
        assert done.returncode == 0, done.stderr
        found.append(json.loads(done.stdout))
    assert found[0] == found[1] and len(found[0]) > 50


def test_a_run_in_process_keys_its_records(tmp_path):
    summary = run(RunOptions(selectors=["classic/laplace-eps1"], out=tmp_path / "o", workers=0,
                             progress_bar=False))
    assert summary.records[0].key and summary.records[0].finished and summary.records[0].digest
    again = run(RunOptions(selectors=["classic/laplace-eps1"], out=tmp_path / "o", workers=0, progress_bar=False))
    assert again.reused == 1 and again.records[0].reused


@pytest.mark.slow
def test_the_incremental_run_benchmark_reruns_only_the_touched_files_claims(project, capsys):
    spec = importlib.util.spec_from_file_location("benchmark_incremental_run",
                                                  Path(__file__).resolve().parents[1] / "benchmarks" /
                                                  "incremental_run.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    original = (project / "mech_b.py").read_text()
    rows = bench.main(["testing-keys", "--suite", "suite_keys.py", "--touch", str(project / "mech_b.py"),
                       "--workers", "0", "--cwd", str(project)])
    assert [(audited, reused) for _, _, audited, reused in rows] == [(3, 0), (0, 3), (2, 1)]
    assert (project / "mech_b.py").read_text() == original  # restored
    assert "vs cold" in capsys.readouterr().out
