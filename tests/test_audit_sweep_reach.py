"""The audit sweep's reading of a site no entry refutes (tools/mutation/audit_sweep.py): what the mutation moved
against the unmutated records. Deterministic: no false-failure rate to state."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "mutation"))

import audit_sweep  # noqa: E402


def record(claim_id, auditor="exact", verdict="verified", value=1.0, interval=(1.0, 1.0)):
    return {"claim_id": claim_id, "auditor": auditor, "verdict": verdict,
            "statistic": {"value": value, "interval": list(interval)}}


BASELINE = {r["claim_id"]: r for r in (record("a"), record("b", "black-box", "not-refuted", 0.3, (0.2, "inf")))}


def test_nothing_moved_and_float_noise_moves_nothing():
    records = [record("a", value=1.0 + 1e-13), record("b", "black-box", "not-refuted", 0.3, (0.2, "inf"))]
    assert audit_sweep.reach(records, BASELINE) == ("not refuted (nothing moved)", [])


def test_an_exact_audit_still_verifying_is_the_calibrations_slack():
    records = [record("a", value=0.6, interval=(0.6, 0.6)), record("b", "black-box", "not-refuted", 0.5, (0.4, "inf"))]
    assert audit_sweep.reach(records, BASELINE) == ("not refuted (verified exactly)",
                                                    ["a (exact, verified)", "b (black-box, not-refuted)"])


def test_only_sampled_audits_or_refuted_exact_ones_moved_is_reached():
    records = [record("a"), record("b", "black-box", "not-refuted", 0.3, (0.25, "inf"))]
    assert audit_sweep.reach(records, BASELINE) == ("not refuted (reached)", ["b (black-box, not-refuted)"])
    records = [record("a"), record("b", "black-box", "not-refuted", 0.3, (0.2, 9.0))]  # "inf" to a number
    assert audit_sweep.reach(records, BASELINE)[0] == "not refuted (reached)"
    refuted = {"c": record("c", verdict="refuted", value=2.0, interval=(2.0, 2.0))}  # expected refuted, moved
    assert audit_sweep.reach([record("c", verdict="refuted", value=3.0, interval=(3.0, 3.0))], refuted) == (
        "not refuted (reached)", ["c (exact, refuted)"])


def test_a_verdict_that_moved_or_a_record_without_baseline_counts_as_moved():
    assert audit_sweep._moved(record("a", verdict="not-refuted"), BASELINE["a"])
    assert audit_sweep._moved(record("c"), None)


def test_a_run_that_stops_before_any_audit_is_an_error_row_and_a_time_out_its_own(monkeypatch):
    """The suites refusing to load the mutated code (no results file) is a row, not a crash of the sweep."""
    import contextlib

    monkeypatch.setattr(audit_sweep, "applied", lambda tool, site: contextlib.nullcontext())
    site = audit_sweep.SITES[0]
    monkeypatch.setattr(audit_sweep, "run_entries", lambda ids, budget: (None, "dpaudit run exit 2: boom"))
    result, listed, seconds = audit_sweep.run_site(site, ["x"], "quick", BASELINE)
    assert (result, listed) == ("error", ["dpaudit run exit 2: boom"]) and seconds >= 0
    monkeypatch.setattr(audit_sweep, "run_entries", lambda ids, budget: (None, "time-out"))
    assert audit_sweep.run_site(site, ["x"])[:2] == ("time-out", [])


def test_a_site_in_shared_code_runs_every_paper_whose_entries_sample_it():
    """A site in a classic mechanism or a core sampler runs the classic suite's entries beside its policies' paper
    (FTNL draws its report-noisy-max with the classic mechanism's code); any other site, its policies' paper."""
    sites = {site.name: site for site in audit_sweep.SITES}
    assert audit_sweep.papers_of(sites["ftnl/rnm-draw"]) == ("private-online", "classic")
    assert audit_sweep.papers_of(sites["noise/laplace-draw"]) == ("classic", "private-online")
    assert audit_sweep.papers_of(sites["ftnl/rnm-scale"]) == ("private-online",)
    assert audit_sweep.papers_of(sites["dp-se/call-eps"]) == ("classic",)
