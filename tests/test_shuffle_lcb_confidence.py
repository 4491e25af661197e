"""shuffle-lcb, the coverage of Lemma A.2's confidence ellipsoids (audits/shuffle_lcb/confidence.py). Each audit is
seeded; its false-refutation rate is at most 1 - confidence = 0.01 per call (the statistical tail auditor's level)."""

from __future__ import annotations

import numpy as np

from dpaudit import audit_tail
from dpaudit.audits.shuffle_lcb import confidence
from dpaudit.suite import find_entry

AMP = ("linucb-sdp-amp", {"eps": 10.0, "delta": 0.1, "B": 20})


def test_the_ratio_is_the_ellipsoid_norm_over_the_radius_the_policy_uses():
    z = confidence.ellipsoid_ratio_sampler("linucb", {"B": 20}, horizon=100)(50, np.random.default_rng(0))
    assert z.shape == (50,) and np.all(z > 0) and np.all(z < 1)
    # the same runs against half the radius: exactly twice the ratio (the policy plays as before)
    half = confidence.ellipsoid_ratio_sampler("linucb", {"B": 20}, horizon=100, radius_scale=0.5)
    assert np.allclose(half(50, np.random.default_rng(0)), 2 * z)


def test_the_printed_radius_covers_and_a_shrunken_one_is_refuted():
    """Validity at the claim: not refuted at the printed radius. Power: a radius a third as wide fails on most runs
    and is refuted from 4,000 runs."""
    claim = confidence.coverage_claim(1 / confidence.HORIZON)
    printed = confidence.ellipsoid_ratio_sampler(*AMP)
    assert audit_tail(printed, claim, samples=4000, seed=1, auditor="statistical").verdict == "not-refuted"
    shrunk = confidence.ellipsoid_ratio_sampler(*AMP, radius_scale=1 / 3)
    assert audit_tail(shrunk, claim, samples=4000, seed=1, auditor="statistical").verdict == "refuted"


def test_the_entries_are_statistical_coverage_claims_at_alpha_one_over_t():
    for tag in ("linucb,B20", "sdp-amp,eps10,B20"):
        entry = find_entry(f"shuffle-lcb/lemA.2-tail@{tag},T1000")
        assert entry.mode == "statistical" and entry.samples["quick"] == 20_000
        assert entry.claim.evaluate(np.array([0.5, 1.0, 1.0001])).tolist() == [1.0, 1.0, 0.002]
