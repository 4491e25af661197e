"""The acceptance run: every suite at the quick budget, once, as CI runs it.

The run's statistical entries share its alpha 0.01 (Bonferroni; conformance entries run at 1e-6 each),
so a false refutation happens with probability at most 0.01 over run seeds; the default seed makes the
run deterministic, and its records are compared with a stored snapshot.

The snapshot (``snapshots/quick-records.json.gz``) holds every record of ``dpaudit run --budget quick``
at seed 0 apart from its timings (every ``seconds``, the record's and its simulations'). It was taken
before the audit path was unified and re-generated once for the changes that refactor made on purpose:
the record's ``seed`` in the documented shape of :class:`dpaudit.core.seeding.SeedRecord` (schema version 2),
the names of bound samplers without memory addresses, the noise laws' names with the location last, and,
where a private-online entry combines hand-picked pairs with a search, the search drawn inside the audit
from the claim's seed (the hand-picked pairs follow the searched ones, so one witness's pair index moved
from 0 to 153; every verdict, loss and witness pair is as before). Any other difference is a change of
behaviour: the test names the claims and fields that differ. After a deliberate change, regenerate it
with ``DPAUDIT_UPDATE_SNAPSHOT=1 pytest tests/test_quick_run.py`` and say why in the commit.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from extras import environment_without_extras

from dpaudit.runner.run import RunOptions, plan
from dpaudit.stats import bonferroni

SNAPSHOT = Path(__file__).parent / "snapshots" / "quick-records.json.gz"
PAPER_SUITES = ("dist-mab", "private-online", "shuffle-lcb", "shuffle-glm", "concurrent-shuffle")
# library updates may move a float in its last digits (scipy's special functions, say): anything
# closer than this is the same value; a change of behaviour moves far more
RELATIVE_TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict[str, Any], Path]:
    """The quick run as a new user makes it after ``pip install .``: without the extras (their modules
    cannot be imported in the run or its workers, :mod:`extras`), so it must finish with no error."""
    rep = tmp_path_factory.mktemp("quick") / "rep"
    proc = subprocess.run([sys.executable, "-m", "dpaudit", "run", "--budget", "quick", "--out", str(rep),
                           "--workers", "2", "--no-progress"], capture_output=True, text=True, timeout=1800,
                          env=environment_without_extras())
    results = rep / "results.json"
    return proc, json.loads(results.read_text()) if results.exists() else {}, rep


def _records(document: dict[str, Any], suites: tuple[str, ...]) -> list[dict[str, Any]]:
    return [r for r in document["records"] if r["claim_id"].partition("/")[0] in suites]


def test_the_extras_are_blocked_in_the_quick_runs_environment():
    """The environment the quick run gets really lacks the extras (and only them)."""
    env = environment_without_extras()
    blocked = set(env["DPAUDIT_BLOCKED_MODULES"].split(","))
    assert {"opendp", "diffprivlib", "distributed"} <= blocked and not blocked & {"numpy", "scipy", "dp_accounting"}
    probe = ("import importlib.util as u, sys\n"
             "for name in sys.argv[1:]:\n"
             "    try:\n        __import__(name); print(name, 'imported')\n"
             "    except ImportError:\n        print(name, 'missing')")
    out = subprocess.run([sys.executable, "-c", probe, "opendp", "diffprivlib", "dp_accounting", "dpaudit"],
                         capture_output=True, text=True, env=env, check=True).stdout.split("\n")
    assert out[:4] == ["opendp missing", "diffprivlib missing", "dp_accounting imported", "dpaudit imported"]


@pytest.mark.slow
@pytest.mark.whole_run
def test_classic_suite_gives_every_expected_verdict(quick_run):
    """Every classic entry passes or is refuted as expected."""
    out, document, rep = quick_run
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    records = _records(document, ("classic",))
    assert len(records) >= 30
    assert {r["outcome"] for r in records} <= {"pass", "expected-refutation"}
    exact = [r for r in records if r["auditor"] == "exact"]
    assert exact and all(r["confidence"] == 1.0 for r in exact)
    assert {r["claim"]["kind"] for r in exact} >= {"pure-dp", "approx-dp"}
    assert (rep / "plots").is_dir()


@pytest.mark.slow
@pytest.mark.whole_run
def test_dpsgd_suite_gives_every_expected_verdict(quick_run):
    """Every accountant entry passes or is refuted as expected, each decided by certified accounting with its
    bracket in the record, and the sweep entry draws epsilon against the noise multiplier."""
    out, document, rep = quick_run
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    records = _records(document, ("dpsgd",))
    assert len(records) == 6
    assert {r["outcome"] for r in records} <= {"pass", "expected-refutation"}
    assert {r["auditor"] for r in records} == {"certified-accounting"}
    assert {r["claim_id"].partition("@")[0] for r in records if r["verdict"] == "refuted"} == {
        "dpsgd/rdp", "dpsgd/pld-pessimistic-as-poisson", "dpsgd/rdp-as-poisson"}
    report = (rep / "report.md").read_text()
    assert "## DP-SGD" in report and "## Canary audits (2)" in report  # the classic suite's two canary audits


@pytest.mark.slow
@pytest.mark.whole_run
def test_paper_suites_give_every_expected_verdict(quick_run):
    """Every claim encoded from the five papers (tail, distributional, the mechanisms' privacy, regret,
    lower bounds and the experiments' orderings) gets its expected verdict at the quick budget, with a
    witness or margin in the record."""
    out, document, _ = quick_run
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    records = _records(document, PAPER_SUITES)
    assert {r["claim_id"].partition("/")[0] for r in records} == set(PAPER_SUITES)
    assert {r["outcome"] for r in records} <= {"pass", "expected-refutation"}
    refuted = [r for r in records if r["verdict"] == "refuted"]
    assert {r["claim_id"].partition("@")[0] for r in refuted} == {
        "dist-mab/thm1-tail", "dist-mab/thm3-privacy", "shuffle-glm/lemE.3", "shuffle-glm/lemP.1-tail",
        "shuffle-glm/claimobs1", "shuffle-glm/lemI.4-privacy", "shuffle-glm/lemI.7", "private-online/thm5-privacy",
        "private-online/thm6", "concurrent-shuffle/thm3.2-accuracy",
        # Anytime-Lazy-UCB initialised as Algorithm 1's box prints it (first pull un-noised): not eps-DP
        "private-online/thm2",
        # Appendix H's quotation of Acharya, Sun & Zhang's inequality fails (the corrected form holds)
        "private-online/claimsecH.b",
        # Theorem 7's first form omits one-expert brackets' privacy cost; Fig. 7's Hybrid-UCB at eps = 8
        "private-online/thm7", "private-online/fig7",
        # Lemma M.3's printed constant, Lemma O.4(a) as printed and its proof's eq. (103), Appendix D.2's
        # Lipschitz constant as printed, and Lemma E.8 on dpaudit's batch plan (its hypothesis not met)
        "shuffle-glm/lemM.3", "shuffle-glm/lemO.4", "shuffle-glm/claimsecD.2-inequality", "shuffle-glm/lemE.8",
        # Lemma 7.1 as printed, Lemma Q.1 for any theta_0, Lemma Q.3's KL step, Step 4 of Appendix Q's proof
        "shuffle-glm/lem7.1", "shuffle-glm/lemQ.1", "shuffle-glm/lemQ.3", "shuffle-glm/claimsecQ",
        # Lemma B.6's variance step with the hypothesis as printed
        "concurrent-shuffle/lemB.6",
        # Appendix G's Lemmas G.1 and G.2 for the probit link (not a canonical exponential family)
        "shuffle-glm/lemG.1", "shuffle-glm/lemG.2",
        # Remark A.1's DP-SGD calls: as printed under the paper's replacement neighbours, and as the released code
        # runs them (a one-point last batch at n = 2049)
        "shuffle-glm/remarkA.1-jdp"}
    assert all(r["witness"] for r in refuted)
    privacy = [r for r in records if r["claim"]["kind"] in ("pure-dp", "approx-dp", "renyi-dp", "zcdp")]
    assert {r["claim_id"].partition("/")[0] for r in privacy} == set(PAPER_SUITES)
    assert sum(r["verdict"] == "verified" for r in records) >= 90


def _differences(old: Any, new: Any, path: str = "") -> list[str]:
    """Where two JSON values differ (floats within RELATIVE_TOLERANCE are equal)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new)):
            if key not in old or key not in new:
                out.append(f"{path}.{key}: {'added' if key not in old else 'missing'}")
            else:
                out += _differences(old[key], new[key], f"{path}.{key}")
        return out
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"{path}: length {len(old)} -> {len(new)}"]
        return [d for i, (a, b) in enumerate(zip(old, new, strict=True)) for d in _differences(a, b, f"{path}[{i}]")]
    both_numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (old, new))
    if both_numbers and math.isclose(old, new, rel_tol=RELATIVE_TOLERANCE, abs_tol=0.0):
        return []
    return [] if old == new else [f"{path}: {json.dumps(old)[:120]} -> {json.dumps(new)[:120]}"]


def _untimed(value: Any) -> Any:
    """``value`` without its timings: every "seconds" field, the record's and its simulations'."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


#: record fields that depend on when and with what code a claim ran, not on what it found: its finishing time,
#: the digest (which covers the timings), the content key (which changes with every change of the code) and the
#: mark of a reused record
UNCOMPARED = ("finished", "digest", "key", "reused")


def _comparable(document: dict[str, Any]) -> dict[str, Any]:
    # the statements tables are the suites' documentation (tests/test_statements.py holds them), not results
    run = {k: v for k, v in document["run"].items() if k not in ("started", "finished", "statements")}
    records = {r["claim_id"]: _untimed({k: v for k, v in r.items() if k not in UNCOMPARED})
               for r in document["records"]}
    return {"run": run, "records": records}


#: claims of the quick run the fast tier audits and compares with the snapshot
SAMPLED_CLAIMS = 24


def _sampled_alpha(share: float, statistical: int) -> float | None:
    """The run alpha whose Bonferroni share over ``statistical`` claims is exactly ``share`` (the full quick run's),
    so that a sample of its claims is audited at the levels the snapshot's were; None where no float gives it
    (alpha / 13 steps over some floats: consecutive alphas' quotients are more than a float of the share apart)."""
    alpha = share * statistical
    for _ in range(64):
        got = bonferroni(alpha, statistical)
        if got == share:
            return alpha
        alpha = float(np.nextafter(alpha, np.inf if got < share else -np.inf))
    return None


def test_a_sampled_alpha_gives_the_share_exactly_or_none():
    assert bonferroni(_sampled_alpha(5e-05, 16), 16) == 5e-05  # a power of two always divides exactly
    assert _sampled_alpha(5e-05, 13) is None  # no float alpha has alpha / 13 == 5e-05
    for n in range(1, 60):
        alpha = _sampled_alpha(5e-05, n)
        assert alpha is None or bonferroni(alpha, n) == 5e-05


def test_a_sample_of_the_quick_run_matches_the_snapshot(request, tmp_path):
    """A seeded sample of the quick run's claims (the slow tier's seed: another sample at every commit), run at
    the full run's alpha share, gives the snapshot's records. Each claim's seed derives from the run seed and its
    id alone, so a claim's record does not depend on what else runs; the full run is the slow tier's."""
    from conftest import slow_seed

    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as fh:
        stored = json.load(fh)
    old = {r["claim_id"]: r for r in stored["records"]}
    share = stored["run"]["alpha_per_statistical_claim"]
    # the seeded order's first SAMPLED_CLAIMS claims, or a few more where no run alpha gives the snapshot's share
    # exactly over the sample's statistical claims
    order = random.Random(slow_seed(request.config)).sample(sorted(old), len(old))
    for size in range(SAMPLED_CLAIMS, SAMPLED_CLAIMS + 24):
        chosen = sorted(order[:size])
        selected = plan(RunOptions(selectors=chosen))
        alpha = _sampled_alpha(share, selected.statistical)
        if alpha is not None:
            break
    assert alpha is not None, f"no sample of {SAMPLED_CLAIMS} to {size} claims has an exact alpha"
    assert sorted(e.id for e in selected.entries) == chosen
    _assert_claims_match(tmp_path, chosen, alpha, share, old, environment_without_extras())


def _assert_claims_match(tmp_path: Path, claims: Any, alpha: float, share: float, old: dict[str, Any],
                         env: dict[str, str]) -> None:
    """``dpaudit run`` of ``claims`` at the quick budget and run alpha ``alpha`` in a subprocess with ``env``: the
    snapshot's alpha share per claim, and its records ``old`` for those claims."""
    out = tmp_path / "rep"
    proc = subprocess.run([sys.executable, "-m", "dpaudit", "run", *claims, "--budget", "quick", "--out", str(out),
                           "--alpha", repr(alpha), "--workers", "1", "--no-progress"], capture_output=True, text=True,
                          timeout=1800, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    document = json.loads((out / "results.json").read_text())
    assert document["run"]["alpha_per_statistical_claim"] == share
    new = _comparable(document)["records"]
    differences = _differences({cid: old[cid] for cid in claims}, new)
    assert not differences, f"{len(differences)} differences from the snapshot:\n" + "\n".join(differences[:60])


#: quick-run claims whose audits run compiled loops when numba is installed: Algorithm 2's blocks in a contextual
#: transcript and in a simulation on the repository's arm sets, LinUCB-JDP's transcript, the tree's prefix sums of a
#: tail audit, Hybrid-UCB's blocks and CS-LinUCB's tree rounds
COMPILED_CLAIMS = ("shuffle-glm/thm6.2-jdp@algorithm,eps1,delta0.02,zeta0.01,S2,T16,K2,d2",
                   "shuffle-glm/thm6.2-regret@experiments,private-glm,eps4,S3",
                   "shuffle-glm/lemI.4-tail@T256,d3,eps1,delta0.02,zeta0.02,kappa4",
                   "shuffle-lcb/propF.3-jdp@algorithm,eps1,delta0.1,B1,T16,K2,d2",
                   "private-online/fig3@hybrid-ucb,setting1",
                   "concurrent-shuffle/thm5.1-regret@k1,bound")
#: quick statistical claims that may join a selection so that a run alpha gives it the snapshot's share exactly
PADDING_CLAIMS = ("classic/canary-many-runs@full-batch,z4,t4", "classic/canary-many-runs@full-batch,z4,t4,half-noise")


def test_the_compiled_paths_give_the_snapshots_records(tmp_path):
    """The snapshot is the quick run without the extras (numpy throughout); with numba (the ``fast`` extra, every
    other extra still blocked) the claims whose audits run compiled loops give the same records: the compiled
    paths make the numpy paths' decisions and draws, and leave the generators where they leave them."""
    pytest.importorskip("numba")
    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as fh:
        stored = json.load(fh)
    old = {r["claim_id"]: r for r in stored["records"]}
    share = stored["run"]["alpha_per_statistical_claim"]
    # where no run alpha gives these claims the snapshot's share exactly, quick statistical claims (the classic
    # suite's canary audits, 2 s each) join them until one does
    claims = list(COMPILED_CLAIMS)
    for extra in [None, *PADDING_CLAIMS]:
        if extra is not None:
            claims.append(extra)
        alpha = _sampled_alpha(share, plan(RunOptions(selectors=claims)).statistical)
        if alpha is not None:
            break
    assert alpha is not None, "no run alpha gives these claims the snapshot's share exactly"
    env = environment_without_extras()
    env["DPAUDIT_BLOCKED_MODULES"] = ",".join(m for m in env["DPAUDIT_BLOCKED_MODULES"].split(",")
                                              if m not in ("numba", "llvmlite"))
    _assert_claims_match(tmp_path, claims, alpha, share, old, env)


@pytest.mark.slow
@pytest.mark.whole_run
def test_quick_run_records_match_the_snapshot(quick_run):
    out, document, _ = quick_run
    assert document, out.stderr[-2000:]
    new = _comparable(document)
    # a run cut short (a crash while writing its reports) leaves a partial results.json: never a snapshot
    assert len(document["records"]) == document["run"]["claims"], out.stderr[-3000:]
    if os.environ.get("DPAUDIT_UPDATE_SNAPSHOT"):
        with gzip.open(SNAPSHOT, "wt", encoding="utf-8", compresslevel=9) as fh:
            json.dump({"run": new["run"], "records": list(new["records"].values())}, fh, indent=0, sort_keys=True)
        pytest.skip("snapshot regenerated")
    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as fh:
        stored = json.load(fh)
    old = {"run": stored["run"], "records": {r["claim_id"]: r for r in stored["records"]}}
    differences = _differences(old, new)
    assert not differences, f"{len(differences)} differences from the snapshot:\n" + "\n".join(differences[:60])
