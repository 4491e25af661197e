"""Canary audits as suite entries: a training loop run and scored per budget, the claim audited from the scores, the
record carrying the ceiling and the loop's white-box bracket, and the report's canary section."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dpaudit
from dpaudit.core.dpsgd import DPSGDConfig, PoissonBatches
from dpaudit.mechanisms.training.canary_training import CanaryTraining
from dpaudit.suite import CanaryEntry, RunContext

CONFIG = DPSGDConfig(PoissonBatches(1.0), 4.0, steps=4, relation="zero-out")


def _loop(noise_scale=1.0, canaries=1):
    rng = np.random.default_rng(0)
    return CanaryTraining(rng.normal(size=(9, 2)), (rng.random(9) < 0.5).astype(float), CONFIG,
                          noise_scale=noise_scale, canaries=canaries)


def test_a_canary_entry_refuses_what_it_cannot_run():
    claim = dpaudit.ApproxDP(2.0, 1e-5)
    with pytest.raises(ValueError, match="design must be"):
        CanaryEntry("s/a", subject=_loop(), claim=claim, design="two", samples={"quick": 10})
    with pytest.raises(ValueError, match="needs samples"):
        CanaryEntry("s/a", subject=_loop(), claim=claim)
    with pytest.raises(ValueError, match="quick budget"):
        CanaryEntry("s/a", subject=_loop(), claim=claim, samples={"standard": 10})
    with pytest.raises(ValueError, match="runs once"):
        CanaryEntry("s/a", subject=_loop(), claim=claim, design="one", samples={"quick": 10})
    with pytest.raises(TypeError, match="scores"):
        _ = CanaryEntry("s/a", subject=object(), claim=claim, samples={"quick": 10}).subject
    with pytest.raises(TypeError, match="ApproxDP or PureDP"):
        _ = CanaryEntry("s/a", subject=_loop(), claim=lambda: dpaudit.SubGaussian(1.0), samples={"quick": 10}).claim


def test_the_record_states_bound_ceiling_white_box_and_power_and_the_streams_are_the_entrys():
    """The loop as configured (certified epsilon 1.99) is not refuted from 20,000 runs per side at alpha 0.05 (the
    entry's seed fixed: a deterministic outcome, its chance of refuting a true claim at most 0.05), with its ceiling
    and white-box bracket in the record and a power above the claim; the same seed gives the same record, another
    seed other runs."""
    claim = dpaudit.ApproxDP(1.993, 1e-5)
    entry = CanaryEntry("s/configured", subject=_loop(), claim=claim, samples={"quick": 20_000})
    ctx = RunContext(0, "quick", 0.05, np.random.SeedSequence(11))
    finding = entry.audit(ctx).finding
    assert finding.verdict == "not-refuted" and finding.auditor == "canary-scores" and finding.samples == 20_000
    assert finding.epsilon_lower < finding.parameters["ceiling"] and "ceiling" in finding.notes[0]
    low, high = finding.parameters["white_box"]
    assert low == pytest.approx(1.99309, abs=1e-5) and high == pytest.approx(1.99309, abs=1e-5)
    assert "white-box" in finding.notes[-1]
    assert finding.power["value"] > claim.epsilon
    again = entry.audit(RunContext(0, "quick", 0.05, np.random.SeedSequence(11))).finding
    other = entry.audit(RunContext(0, "quick", 0.05, np.random.SeedSequence(12))).finding
    assert again.epsilon_lower == finding.epsilon_lower and other.epsilon_lower != finding.epsilon_lower


def test_a_one_run_entry_draws_each_canarys_membership():
    """100 canaries in one run, each in with probability 1/2 (about half in, from the entry's stream), at half the
    configured noise (mu = 1 per canary): the one-run bound is positive and below its ceiling."""
    entry = CanaryEntry("s/one", subject=lambda: _loop(noise_scale=0.5, canaries=100),
                        claim=lambda: dpaudit.ApproxDP(1.993, 1e-5), design="one")
    finding = entry.audit(RunContext(0, "quick", 0.05, np.random.SeedSequence(3))).finding
    members = finding.witness["members"]
    assert finding.parameters["runs"] == "one" and finding.samples == 100 and 30 < members < 70
    assert 0 < finding.epsilon_lower <= finding.parameters["ceiling"]


def test_the_classic_suites_canary_entries_give_their_verdicts_and_the_report_shows_them(cli, tmp_path):
    """`dpaudit run 'classic/canary-*'`: the loop as configured is not refuted, the loop with half its noise is (an
    expected refutation, listed among the controls), and both reports list each canary audit with its bound, ceiling
    and white-box bracket."""
    out = cli("run", "classic/canary-*", "--out", "rep", "--budget", "quick")
    assert out.returncode == 0, out.stderr
    results = json.loads((tmp_path / "rep" / "results.json").read_text())
    verdicts = {r["claim_id"]: r["verdict"] for r in results["records"]}
    assert verdicts == {"classic/canary-many-runs@full-batch,z4,t4": "not-refuted",
                        "classic/canary-many-runs@full-batch,z4,t4,half-noise": "refuted"}
    markdown = (tmp_path / "rep" / "report.md").read_text()
    assert "## Controls (1)" in markdown and "## Findings (0)" in markdown  # a planted bug, not a finding
    section = markdown[markdown.index("## Canary audits (2)"):]
    rows = [line for line in section.splitlines() if line.startswith("| classic/canary")]
    assert len(rows) == 2 and all("[1.99309, 1.99309]" in row or "[4.37718, 4.37718]" in row for row in rows)
    html = (tmp_path / "rep" / "report.html").read_text()
    assert 'id="canaries"' in html and "white-box" in html


def test_a_sequential_entry_runs_the_loop_only_as_far_as_the_audit_asks():
    """The half-noise loop (true epsilon 4.38) against its configured 1.99, sequentially with up to 200,000 runs per
    side at alpha 0.05: refuted after far fewer runs than allowed, every run the loop drew bet on or before a bet."""
    calls = []
    loop = _loop(noise_scale=0.5)
    original = loop.scores

    def counted(runs, present, rng, **options):
        calls.append(runs)
        return original(runs, present, rng, **options)

    loop.scores = counted
    entry = CanaryEntry("s/sequential", subject=loop, claim=dpaudit.ApproxDP(1.993, 1e-5),
                        samples={"quick": 200_000}, sequential=True)
    finding = entry.audit(RunContext(0, "quick", 0.05, np.random.SeedSequence(5))).finding
    assert finding.verdict == "refuted" and finding.parameters["sequential"]
    assert sum(calls) == 2 * finding.samples < 100_000
    with pytest.raises(ValueError, match="not sequential"):
        CanaryEntry("s/one", subject=_loop(), claim=dpaudit.ApproxDP(2.0, 1e-5), design="one", sequential=True)
