"""Privacy audits of Hybrid-UCB that read its exact decision law (algorithms/online/hybrid_law.py, tested in
tests/test_hybrid_ucb_exact_law.py): the private-online suite's exact entry, and the policy with every noise at
half or a quarter of its printed scale, exactly at T = 4 and from samples at T = 12. Kept apart from the law's
own tests because these reach the auditors: the mutation testing of the law (tools/mutation/record.py) runs
the law's test file, and a test there that reached the auditors would make every auditor mutant it reaches be
tested again."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import PureDP, audit_privacy
from dpaudit.algorithms.online import HybridUCB
from dpaudit.audits import private_online
from dpaudit.bandits.transcripts import DecisionTranscript
from dpaudit.suite import RunContext


@pytest.mark.slow
def test_half_the_noise_scale_doubles_the_exact_loss_but_is_not_refuted_at_small_horizons():
    """Every noise at half its scale: on the table pairs the suite uses and the relation's structured search, the
    exact loss of the decisions doubles (0.5 -> 1, at the sequence that plays arm 1 from round 2 on, whose
    probability ratio tends to e^{rate of Za}: eps/2 as printed, eps at half scale) but stays below eps at
    T = 4: the bug is not refuted here (module docstring of audits.private_online)."""
    from dpaudit.core.domains import Box
    from dpaudit.core.neighbours import ReplaceRewardVector

    losses = {}
    for scale in ("2/eps", "1/eps"):
        transcript = DecisionTranscript(HybridUCB(1.0, noise_scale=scale), arms=2, horizon=4)
        result = audit_privacy(transcript, PureDP(1.0), pairs=private_online._reversed_rounds(4), auditor="exact",
                               neighbours=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(4, 2)), random=0), seed=0)
        assert result.verdict == "verified"
        losses[scale] = result.statistic.interval
    assert 0.4998 < losses["2/eps"][0] <= losses["2/eps"][1] < 0.5
    assert 1 - 1e-7 < losses["1/eps"][0] <= losses["1/eps"][1] < 1


@pytest.mark.slow
def test_half_the_noise_scale_is_refuted_black_box_at_twelve_rounds():
    """Where the exact law cannot reach (T <= 6), the black-box audit can: Hybrid-UCB with every noise at half its
    scale, its decisions over T = 12 rounds on the suite's two pairs (round 1's or round 3's vector reversed on the
    table where arm 0 pays 1), at most 2 * 10^6 samples per side, confidence 0.99: refuted, on the round-3 pair.
    The sequential audit (the default) stops once its bound passes eps = 1 (1.01, 1.03, 1.05 at seeds 0-2), from
    a fraction of the budget; the fixed-size audit (``sequential=False``, 16 s, not run here) certifies 1.16, 1.14
    and 1.20 there, and the printed scales' entry 0.32 at the quick budget. Seeded, so it cannot fail by chance;
    at 2 * 10^5 per side one seed in three refutes. The round-3 pair changes arm 0's second reward, which every
    later estimate reads beside the array noise Z^(0) that also enters the first estimate, so Z^(0) cannot absorb
    the change as it does round 1's (whose loss tends to eps at half noise and no further: the exact test
    above)."""
    transcript = DecisionTranscript(HybridUCB(1.0, noise_scale="1/eps"), arms=2, horizon=12)
    result = audit_privacy(transcript, PureDP(1.0), pairs=private_online._reversed_rounds(12), auditor="statistical",
                           samples=2_000_000, confidence=0.99, seed=0, statistic=private_online._sequence_code)
    assert result.verdict == "refuted" and result.witness["pair_index"] == 1
    assert 1 < result.epsilon_lower < 1.05 and result.parameters["samples_drawn"] < 1_000_000


@pytest.mark.slow
def test_suite_exact_entry_keeps_its_verdict():
    """The private-online exact Hybrid-UCB entry at the quick budget: verified, loss 0.5 - 5.04e-7 (the sequence
    that plays arm 1 from round 2 on, on the all-zero table against round 1's vector (1, 1)), enclosure below
    0.5; the black-box entry stays statistical."""
    entries = {e.id: e for e in private_online.suite.entries}
    assert entries["private-online/thm5-privacy@algorithm,eps1,K2,T12"].plan.statistical
    entry = entries["private-online/thm5-privacy@algorithm,exact,eps1,K2,T5"]
    assert not entry.plan.statistical
    finding = entry.audit(RunContext(0, "quick", 0.01, np.random.SeedSequence(0))).finding
    lo, hi = finding.statistic.interval
    assert finding.verdict == "verified"
    assert 0.5 - 5.1e-7 < lo <= hi < 0.5 - 5e-7


def test_a_quarter_of_the_noise_scale_is_refuted_with_certainty():
    """Every noise at a quarter of its scale (arm 0's first array Lap(1/(2 eps))): the exact loss of the decisions
    is 2 eps on the suite's first pair (round 1's vector reversed: the sequence that plays arm 1 from round 2 on,
    whose probability ratio is e^{rate of arm 0's first array noise} in the limit), so PureDP(eps) is refuted
    with certainty, not from samples; the printed scales give eps/2 on the same pair."""
    policy = HybridUCB(1.0, noise_scale="1/(2eps)")
    assert policy.noise_epsilon == 4.0 and policy.name == "Hybrid-UCB(eps=1, quarter noise)"
    transcript = DecisionTranscript(policy, arms=2, horizon=4)
    result = audit_privacy(transcript, PureDP(1.0), pairs=private_online._reversed_rounds(4)[:1], auditor="exact",
                           seed=0)
    assert result.verdict == "refuted"
    lo, hi = result.statistic.interval
    assert 1.9 < lo <= hi <= 2.0 + 1e-12
