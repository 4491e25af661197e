"""One audit path: the auditors' ``supports`` answers plan every audit, decide a suite entry's share of
alpha, and agree with what their ``audit`` does; a record is assembled in one place.

Seeded statistical assertions: the fallback audits below ("not-refuted" for a correct Laplace
mechanism at confidence 1 - share, share >= 0.005) fail with probability at most 0.01 over seeds.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from dpaudit import ApproxDP, PureDP, SubGaussian, TailBound, UnsupportedAudit
from dpaudit.api import PRIVACY, TAIL, privacy_plan, tail_subject
from dpaudit.api.driver import AuditPlan, conduct, plan_audit
from dpaudit.api.records import assemble_record
from dpaudit.auditors import (
    ConformanceAuditor,
    ExactPrivacyAuditor,
    ExactTailAuditor,
    StatisticalPrivacyAuditor,
    StatisticalTailAuditor,
    TailSubject,
)
from dpaudit.core.claims import Conforms
from dpaudit.core.seeding import claim_seed_sequence
from dpaudit.core.subjects import Mechanism
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.mechanisms.noise import Laplace
from dpaudit.suite import PrivacyEntry, RunContext, TailEntry, load_suites


def laplace_sampler(data, size, rng):
    return data + rng.laplace(0.0, 1.0, size)


class ScipyDistribution:
    """A mechanism whose distribution the exact auditor cannot analyse (a scipy frozen law)."""

    name = "laplace with a scipy distribution"

    def sample(self, data, size, rng):
        return laplace_sampler(data, size, rng)

    def distribution(self, data):
        return scipy.stats.laplace(data, 1.0)


def _law_without_cgf():
    """N(0, 1) with cdf, sf and moments but no cumulant generating function (the testing-plans suite's
    subject): exact tail bounds apply to it, exact MGF claims do not."""
    suite = load_suites([str(Path(__file__).parent / "suites" / "plans.py")])["testing-plans"]
    return type(next(e.subject for e in suite.entries if e.id == "testing-plans/no-cgf"))


LawWithoutCgf = _law_without_cgf()


def context(entry, alpha=0.005, seed=0):
    return RunContext(seed, "quick", alpha, claim_seed_sequence(seed, entry.id))


def run(entry, ctx):
    return assemble_record(entry.audit(ctx), entry=entry, run=ctx)


# -- plans ------------------------------------------------------------------------------------------


def test_auto_plans_follow_the_exact_auditors_support():
    exact_pure = privacy_plan(LaplaceMechanism(1.0), PureDP(1.0), "auto")
    assert exact_pure.auditor.name == "exact" and not exact_pure.statistical  # always decided: no share
    exact_approx = privacy_plan(LaplaceMechanism(1.0), ApproxDP(0.5, 0.1), "auto")
    assert exact_approx.auditor.name == "exact" and exact_approx.fallback.name == "black-box"
    assert exact_approx.statistical  # may be undecided: a share for the fallback
    sampled = privacy_plan(laplace_sampler, PureDP(1.0), "auto")
    # a plain sampler offers nothing exact: samples, and no note about it
    assert sampled.auditor.name == "black-box" and sampled.statistical and sampled.note is None
    assert privacy_plan(LaplaceMechanism(1.0), PureDP(1.0), "statistical").statistical
    assert not privacy_plan(laplace_sampler, PureDP(1.0), "exact").statistical
    with pytest.raises(ValueError, match="auditor must be one of"):
        privacy_plan(laplace_sampler, PureDP(1.0), "oracle")


def test_an_mgf_claim_on_a_law_without_cgf_takes_a_share_and_says_why():
    """The acceptance case: an `auto` tail entry whose law has no cumulant generating function, with
    an MGF claim. The exact tail auditor can only check the tail the claim implies: the entry takes a
    share of alpha, falls back to samples when that tail does not refute it, and its record says so."""
    entry = TailEntry("testing/no-cgf", subject=LawWithoutCgf(), claim=SubGaussian(1.0))
    assert entry.statistical and entry.auditor == "statistical"
    assert entry.plan.auditor.name == "exact-tail" and entry.plan.fallback.name == "statistical-tail"
    ctx = context(entry)
    record = run(entry, ctx)
    assert record.alpha == ctx.alpha and record.confidence == pytest.approx(1 - ctx.alpha)
    assert record.auditor == "statistical-tail" and record.verdict == "not-refuted"
    assert "could not decide" in record.notes[0] and "no cumulant generating function" in record.notes[0]
    assert "N(0, 1) without a cgf" in record.notes[0]  # named, never by a memory address
    # a claim whose implied tail the exact tail exceeds (N(0, 1) is not 0.5-sub-Gaussian) is refuted exactly
    tight = TailEntry("testing/tight", subject=LawWithoutCgf(), claim=SubGaussian(0.5))
    record = run(tight, context(tight))
    assert record.auditor == "exact-tail" and record.verdict == "refuted" and record.confidence == 1.0
    # the same law with a tail bound: supported and always decided, so no share and no note
    bound = TailEntry("testing/bound", subject=LawWithoutCgf(), claim=TailBound(lambda t: 2 * np.exp(-t**2 / 2),
                                                                                    "2 exp(-t^2/2)"))
    assert not bound.statistical
    record = run(bound, context(bound))
    assert record.alpha is None and record.auditor == "exact-tail" and record.verdict == "verified"


def test_an_exact_audit_that_may_be_undecided_takes_a_share_and_falls_back():
    entry = PrivacyEntry("testing/scipy", subject=ScipyDistribution(), claim=ApproxDP(1.0, 0.01), pairs=[(0, 1)],
                         samples={"quick": 40_000})
    assert entry.statistical  # the exact auditor attempts approximate DP, and may not decide it
    ctx = context(entry)
    record = run(entry, ctx)
    assert record.alpha == ctx.alpha and record.auditor == "black-box" and record.verdict == "not-refuted"
    assert "could not decide" in record.notes[0]


def test_an_entry_without_a_share_never_falls_back():
    """A pure-DP claim about a mechanism with a distribution is planned as always decided (no share),
    so an exact audit that cannot run is an error, never a statistical verdict without a budget."""
    entry = PrivacyEntry("testing/scipy-pure", subject=ScipyDistribution(), claim=PureDP(1.0), pairs=[(0, 1)])
    assert not entry.statistical and entry.confidence(context(entry)) is None
    with pytest.raises(UnsupportedAudit, match="no exact density"):
        entry.audit(context(entry))


def test_a_run_gives_the_unsupported_entry_its_share_and_note(tmp_path, suites_dir):
    """End to end through the runner: the run's Bonferroni count is the entries whose plan may be
    statistical (here one of two), and that entry's record carries the share and the reason."""
    from dpaudit.runner import RunOptions
    from dpaudit.runner import run as run_suite

    summary = run_suite(RunOptions(selectors=["testing-plans"], suite_paths=[str(suites_dir / "plans.py")],
                                   out=tmp_path / "out", workers=0, progress_bar=False))
    document = json.loads((tmp_path / "out" / "results.json").read_text())
    assert document["run"]["statistical_claims"] == 1
    records = {r["claim_id"]: r for r in document["records"]}
    exact, sampled = records["testing-plans/exact"], records["testing-plans/no-cgf"]
    assert exact["alpha"] is None and exact["auditor"] == "exact" and exact["verdict"] == "verified"
    assert sampled["alpha"] == document["run"]["alpha_per_statistical_claim"] == 0.01
    assert sampled["auditor"] == "statistical-tail" and "could not decide" in sampled["notes"][0]
    assert summary.exit_code == 0


def test_the_run_plan_counts_the_entries_the_plans_call_statistical(tmp_path):
    from dpaudit.runner.run import RunOptions, plan

    selected = plan(RunOptions(selectors=["classic/laplace-*"], out=tmp_path))
    assert selected.statistical == sum(e.plan.statistical for e in selected.entries) > 0


# -- conduct ----------------------------------------------------------------------------------------


def test_conduct_falls_back_only_with_a_confidence_to_spend():
    mech = Mechanism(ScipyDistribution())
    plan = plan_audit(PRIVACY, mech, PureDP(1.0), "auto")
    assert plan.fallback is not None and not plan.statistical
    seed = np.random.SeedSequence(3)
    finding, seconds = conduct(plan, mech, PureDP(1.0), confidence=0.99, seed=seed, pairs=[(0, 1)], samples=20_000)
    assert finding.auditor == "black-box" and seconds > 0 and "could not decide" in finding.notes[0]
    with pytest.raises(UnsupportedAudit):
        conduct(plan, mech, PureDP(1.0), confidence=None, seed=seed, pairs=[(0, 1)], samples=20_000)
    with pytest.raises(ValueError, match="needs a confidence"):
        conduct(AuditPlan(StatisticalPrivacyAuditor(), statistical=True), mech, PureDP(1.0), confidence=None,
                seed=seed, pairs=[(0, 1)], samples=20_000)


# -- supports agrees with audit ----------------------------------------------------------------------


@pytest.mark.parametrize("auditor, subject, claim", [
    (ExactPrivacyAuditor(), Mechanism(laplace_sampler), PureDP(1.0)),
    (ExactPrivacyAuditor(), Mechanism(LaplaceMechanism(1.0)), SubGaussian(1.0)),
    (StatisticalPrivacyAuditor(), Mechanism(laplace_sampler), TailBound(lambda t: t, "t")),
    (ExactTailAuditor(), TailSubject(None, laplace_sampler, "sampler"), SubGaussian(1.0)),
    (ExactTailAuditor(), tail_subject(Laplace(1.0)), PureDP(1.0)),
    (StatisticalTailAuditor(), tail_subject(Laplace(1.0)), PureDP(1.0)),
    (ConformanceAuditor(), tail_subject(Laplace(1.0)), SubGaussian(1.0)),
    (ConformanceAuditor(), TailSubject(None, laplace_sampler, "sampler"), Conforms("a law")),
])
def test_what_an_auditor_does_not_support_it_refuses_to_audit(auditor, subject, claim):
    support = auditor.supports(subject, claim)
    assert not support and support.reason
    with pytest.raises(UnsupportedAudit, match=support.reason[:20].replace("(", r"\(")):
        auditor.audit(subject, claim, pairs=[(0, 1)], samples=1000, confidence=0.99, seed=np.random.SeedSequence(0))


@pytest.mark.parametrize("auditor, subject, claim, settings", [
    (ExactPrivacyAuditor(), Mechanism(LaplaceMechanism(1.0)), PureDP(1.0), {"pairs": [(0, 1)]}),
    (StatisticalPrivacyAuditor(), Mechanism(laplace_sampler), PureDP(1.0), {"pairs": [(0, 1)], "samples": 20_000}),
    (ExactTailAuditor(), tail_subject(Laplace(1.0)), SubGaussian(2.0), {}),
    (ExactTailAuditor(), tail_subject(LawWithoutCgf()), TailBound(lambda t: np.ones_like(t), "1"), {}),
    (StatisticalTailAuditor(), tail_subject(Laplace(1.0)), SubGaussian(2.0), {"samples": 20_000}),
    (ConformanceAuditor(), tail_subject(Laplace(1.0)), Conforms("Laplace"), {"samples": 20_000}),
])
def test_what_an_auditor_decides_it_audits_to_a_verdict(auditor, subject, claim, settings):
    support = auditor.supports(subject, claim)
    assert support.decisive
    finding = auditor.audit(subject, claim, confidence=0.99, seed=np.random.SeedSequence(0), **settings)
    assert finding.verdict in ("verified", "not-refuted", "refuted") and finding.auditor == auditor.name


def test_tail_family_plans_without_building_a_fixed_mode_law():
    """Planning an `exact` or `statistical` entry asks no auditor, so a lazily built law stays unbuilt."""
    from dpaudit.core.laws import LazyLaw

    built = []
    lazy = LazyLaw(lambda: built.append(1) or Laplace(1.0), "lazy Laplace")
    assert not TailEntry("testing/lazy", subject=lazy, claim=SubGaussian(2.0), auditor="exact").statistical
    assert built == []
    assert plan_audit(TAIL, tail_subject(lazy), SubGaussian(2.0), "auto").auditor.name == "exact-tail" and built


def test_records_are_assembled_once_with_the_documented_seed():
    entry = PrivacyEntry("testing/laplace", subject=LaplaceMechanism(1.0), claim=PureDP(1.0), pairs=[(0, 1)],
                         truth=1.0)
    ctx = context(entry, seed=7)
    record = run(entry, ctx)
    assert record.seed == {"run_seed": 7, "claim_id": "testing/laplace", "entropy": list(ctx.seed_sequence.entropy),
                           "spawn_key": []}
    assert record.parameters["documented_truth"] == 1.0 and record.alpha is None and record.budget == "quick"
    assert record.claim_id == "testing/laplace" and record.paper == "testing" and math.isfinite(record.seconds)
