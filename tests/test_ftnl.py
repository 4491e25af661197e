"""private-online M3/M4: FTNL's and naive FTNL's decisions, as a policy audited through
DecisionTranscript. Parameters recomputed from the paper's formulas, the fast path and the per-round
run against the exact law and against each other (conformance audits, false-failure rate 1e-6 each,
2 audits), and the exact privacy audits under Definition 1."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpaudit
from dpaudit import PureDP
from dpaudit.algorithms.online import FollowTheNoisyLeader
from dpaudit.bandits.policies import check_policy
from dpaudit.bandits.transcripts import DecisionTranscript, ExactDecisionTranscript
from dpaudit.core.domains import Box
from dpaudit.core.neighbours import ReplaceRewardVector
from dpaudit.mechanisms.noise import FiniteIntegerLaw

RNG_DATA = np.random.default_rng(11)


def transcript(eps: float, K: int, epochs: int, variant: str = "ftnl") -> DecisionTranscript:
    """FTNL's decisions over T = 2^epochs - 1 rounds, at the epoch starts."""
    return DecisionTranscript(FollowTheNoisyLeader(eps, K, variant), K, 2**epochs - 1)


@pytest.mark.parametrize("eps, K, epochs", [(1.0, 2, 5), (0.5, 4, 3)])
def test_ftnl_parameters_follow_algorithm3_and_section5(eps, K, epochs):
    f = FollowTheNoisyLeader(eps, K)
    T = 2**epochs - 1
    assert f.epochs(T) == epochs and f.noise_scale == pytest.approx(1 / eps)  # Lap(1/eps)
    assert FollowTheNoisyLeader(eps, K, "naive").noise_scale == pytest.approx(K / eps)  # (eps/K)-DP per action
    assert f.decision_rounds(T) == [2**s for s in range(1, epochs)]
    table = RNG_DATA.uniform(size=(T, K))
    sums = [table[2**s - 1: 2 ** (s + 1) - 1].sum(axis=0) for s in range(epochs - 1)]
    assert f.epoch_sums(table) == pytest.approx(np.array(sums))


def test_ftnl_transcript_names_the_policy_at_its_horizon():
    t = transcript(1.0, 2, 5)
    assert isinstance(t, ExactDecisionTranscript) and t.rounds == (2, 4, 8, 16)
    assert t.name == repr(t) == "FTNL(eps=1, K=2, 5 epochs, T=31)"
    assert transcript(1.0, 3, 4, "naive").name == "naive FTNL(eps=1, K=3, 4 epochs, T=15)"
    assert check_policy(FollowTheNoisyLeader(1.0, 2)).feedback == "full"


def test_ftnl_paths_follow_the_exact_law():
    """The decisions of epochs 1..3 as one index a1 + 3 a2 + 9 a3 against the product of the
    report-noisy-max laws."""
    f = transcript(0.7, 3, 4)
    table = RNG_DATA.uniform(size=(15, 3))
    laws = f.distribution(table).coordinates
    probs = np.einsum("i,j,k->kji", *(np.exp(law.log_probs) for law in laws)).ravel()
    reference = FiniteIntegerLaw(0, probs, name="FTNL decisions")
    for draw in (f.sample, f.sample_per_round):
        res = dpaudit.audit_sampler(lambda size, rng, draw=draw: draw(table, size, rng) @ np.array([1, 3, 9]),
                                    reference, samples=200_000, seed=5)
        assert res.verdict == "not-refuted", (draw.__name__, res.witness)
    played = f.sample(table, 4, np.random.default_rng(0))
    rounds = f.policy.per_round(played)
    assert rounds.shape == (4, 15) and (rounds[:, 0] == 0).all() and (rounds[:, 7:] == played[:, 2:3]).all()


def test_ftnl_fast_path_and_per_round_run_draw_the_same_decisions():
    """Both draw every epoch's report-noisy-max in order through the same release, so one generator
    state gives the same decisions, at the epoch starts and at every round."""
    table = RNG_DATA.uniform(size=(31, 3))
    for variant in ("ftnl", "naive"):
        policy = FollowTheNoisyLeader(0.5, 3, variant)
        for rounds in (None, range(1, 32), [1, 3, 8, 9, 31]):
            t = DecisionTranscript(policy, 3, 31, rounds=rounds)
            fast = t.sample(table, 1000, np.random.default_rng(3))
            slow = t.sample_per_round(table, 1000, np.random.default_rng(3))
            assert fast.shape == slow.shape == (1000, len(t.rounds)) and np.array_equal(fast, slow)
        every = DecisionTranscript(policy, 3, 31, rounds=range(1, 32)).sample(table, 50, np.random.default_rng(4))
        at_starts = DecisionTranscript(policy, 3, 31).sample(table, 50, np.random.default_rng(4))
        assert np.array_equal(every, policy.per_round(at_starts))


def test_ftnl_per_round_run_is_vectorised_over_runs_with_different_sums():
    """Runs whose sums differ (as in a stochastic environment) each get their own noisy maximum."""
    policy = FollowTheNoisyLeader(50.0, 2)
    policy.start(4, 2, 3, np.random.default_rng(0))
    assert policy.choose(1).tolist() == [0, 0, 0, 0]
    policy.observe(1, np.zeros(4, dtype=np.int64), np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]))
    assert policy.choose(2).tolist() == [0, 1, 0, 1]  # Lap(1/50) cannot overturn a lead of 1 here


def test_ftnl_horizon_need_not_be_a_power_of_two_less_one():
    t = DecisionTranscript(FollowTheNoisyLeader(1.0, 2), 2, 20)
    assert t.rounds == (2, 4, 8, 16) and t.name == "FTNL(eps=1, K=2, 5 epochs, T=20)"
    table = RNG_DATA.uniform(size=(20, 2))
    fast, slow = (draw(table, 100, np.random.default_rng(1)) for draw in (t.sample, t.sample_per_round))
    assert np.array_equal(fast, slow)


@pytest.mark.parametrize("epochs", [3, 5])
def test_ftnl_decisions_lose_towards_two_eps(epochs):
    """K = 2, one action always rewarded: reversing the first round of the last played epoch (n = 2^{epochs-2}
    rounds) moves its sums by 1 in opposite directions; only that epoch's noisy max sees the change, so the
    loss is report-noisy-max's closed form 2 eps - ln(1 + 2/n) (test_online_releases.py), below 2 eps."""
    f = transcript(1.0, 2, epochs)
    a = np.zeros((f.horizon, 2))
    a[:, 1] = 1.0
    b = a.copy()
    b[2 ** (epochs - 2) - 1] = [1.0, 0.0]
    res = dpaudit.audit_privacy(f, PureDP(1.0), pairs=[(a, b)], auditor="exact")
    # exact in log space: a 2.5% error in the noise scale would move it by about 0.04
    assert res.verdict == "refuted" and res.epsilon_lower == pytest.approx(2 - math.log(1 + 2 / 2 ** (epochs - 2)),
                                                                           abs=1e-9)


def test_naive_ftnl_decisions_are_eps_dp():
    search = ReplaceRewardVector().over(Box(0.0, 1.0, shape=(7, 3)))
    res = dpaudit.audit_privacy(transcript(1.0, 3, 3, "naive"), PureDP(1.0), neighbours=search, auditor="exact", seed=0)
    # report-noisy-max with Lap(K/eps): at most 2 eps / K
    assert res.verdict == "verified" and res.epsilon_lower < 2 / 3


def wrong_arms() -> DecisionTranscript:
    """FTNL over K = 2 actions, run on tables of 3 arms."""
    return DecisionTranscript(FollowTheNoisyLeader(1.0, 2), 3, 7)


@pytest.mark.parametrize("make, message", [
    (lambda: FollowTheNoisyLeader(1.0, 1), "K"),
    (lambda: DecisionTranscript(FollowTheNoisyLeader(1.0, 2), 2, 1), "horizon"),
    (lambda: FollowTheNoisyLeader(1.0, 2, "lazy"), "variant"),
    (lambda: transcript(1.0, 2, 3).distribution(np.zeros((8, 2))), "7 reward vectors"),
    (lambda: transcript(1.0, 2, 3).sample(np.full((7, 2), 1.5), 2, np.random.default_rng()), r"\[0, 1\]"),
    (lambda: wrong_arms().sample(np.zeros((7, 3)), 2, np.random.default_rng()), r"\[0, 1\]\^2"),
    (lambda: wrong_arms().sample_per_round(np.zeros((7, 3)), 2, np.random.default_rng()), "K = 2 actions"),
    (lambda: DecisionTranscript(FollowTheNoisyLeader(1.0, 2), 2, 7, rounds=[1, 4]).distribution(np.zeros((7, 2))),
     "distinct epochs after epoch 0"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_report_noisy_max_selects_per_run_as_it_samples():
    """The per-run release FTNL draws through: equal rows give exactly what sample() gives for that row,
    and bad shapes are refused."""
    rnm = FollowTheNoisyLeader(0.7, 3).rnm
    q = np.array([0.0, 2.0, 1.0])
    once = rnm.sample(q, 500, np.random.default_rng(4))
    assert np.array_equal(rnm.select(np.tile(q, (500, 1)), np.random.default_rng(4)), once)
    with pytest.raises(ValueError, match="answers must be a finite"):
        rnm.select(np.zeros((4, 2)), np.random.default_rng(0))
