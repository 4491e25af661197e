"""dist-mab Lemma 2's good event, audited for coverage (audits/dist_mab/confidence.py). Each audit is seeded; its
false-refutation rate is at most 1 - confidence = 0.01 per call (the statistical tail auditor's level)."""

from __future__ import annotations

import numpy as np

from dpaudit import audit_tail
from dpaudit.audits.dist_mab import confidence
from dpaudit.suite import find_entry


def test_the_ratio_is_the_worst_interval_of_the_run_over_its_radius():
    z = confidence.coverage_sampler("exact", 0.1)(200, np.random.default_rng(0))
    assert z.shape == (200,) and np.all(z > 0)
    half = confidence.coverage_sampler("exact", 0.1, radius_scale=0.5)(200, np.random.default_rng(0))
    assert np.allclose(half, 2 * z)


def test_the_printed_radius_covers_and_a_shrunken_one_is_refuted():
    """Validity: not refuted at the printed radius (4,000 runs of Dist-DP-SE at p = 0.01). Power: a radius 0.3 as
    wide leaves most runs' worst interval uncovered and is refuted."""
    claim = confidence.coverage_claim(0.01)
    printed = confidence.coverage_sampler("polya", 0.01)
    assert audit_tail(printed, claim, samples=4000, seed=2, auditor="statistical").verdict == "not-refuted"
    shrunk = confidence.coverage_sampler("polya", 0.01, radius_scale=0.3)
    assert audit_tail(shrunk, claim, samples=4000, seed=2, auditor="statistical").verdict == "refuted"


def test_the_entries_claim_three_p_and_run_from_the_standard_budget():
    for label in ("dist-dp-se,eps1", "dist-rdp-se,eps1", "se"):
        for p in (0.1, 0.01):
            entry = find_entry(f"dist-mab/lem2-confidence@{label},p{p:g},T4000")
            assert entry.budgets == ("standard", "thorough", "paper") and entry.mode == "statistical"
            assert entry.claim.evaluate(np.array([1.0, 1.001])).tolist() == [1.0, 3 * p]
