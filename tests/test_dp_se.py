"""DP-SE (differentially private successive elimination): one epoch's noisy sums (the release
NoisyArmSums and DPSEEpoch on it) with parameters recomputed from the reconstruction, against its exact
law (conformance audits, false-failure rate 1e-6 each, 2 audits) and audited exactly; the policy,
vectorised over runs, through DecisionTranscript."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit import PureDP
from dpaudit.algorithms.mab import DPSEEpoch, DPSuccessiveElimination, epoch_length
from dpaudit.bandits.policies import check_policy
from dpaudit.bandits.transcripts import DecisionTranscript
from dpaudit.core.domains import Box, Datasets
from dpaudit.core.neighbours import ReplaceOne
from dpaudit.mechanisms.base import Adapter, ExactRelease
from dpaudit.mechanisms.counters.online_releases import NoisyArmSums
from dpaudit.mechanisms.noise import Laplace, LaplaceSum

RNG_DATA = np.random.default_rng(13)


@pytest.mark.parametrize("eps, beta, arms, epoch, length", [(1.0, 1e-3, 2, 1, 1240), (0.1, 1 / 4194304, 5, 3, 43286)])
def test_dp_se_epoch_length_follows_the_reconstruction(eps, beta, arms, epoch, length):
    gap = 2.0**-epoch
    first = 32 * math.log(8 * arms * epoch**2 / beta) / gap**2
    second = 8 * math.log(4 * arms * epoch**2 / beta) / (eps * gap)
    assert epoch_length(eps, beta, arms, epoch) == math.ceil(max(first, second)) == length
    m = DPSEEpoch(eps, beta, arms, epoch)
    assert m.h == pytest.approx(math.sqrt(math.log(8 * arms * epoch**2 / beta) / (2 * length)))
    assert m.c == pytest.approx(math.log(4 * arms * epoch**2 / beta) / (length * eps))


def test_dp_se_epoch_is_eps_dp_and_eliminates_by_its_rule():
    m = DPSEEpoch(1.0, 1e-3, 2, 1)
    search = ReplaceOne().over(Datasets(m.arms * m.pulls, Box(0.0, 1.0)))
    res = dpaudit.audit_privacy(m, PureDP(1.0), neighbours=search, auditor="exact", seed=0)
    assert res.verdict == "verified" and res.epsilon_lower == pytest.approx(1.0)
    assert dpaudit.audit_privacy(m, PureDP(0.95), neighbours=search, auditor="exact", seed=0).verdict == "refuted"
    width = 2 * (m.h + m.c)
    keep = m.survivors(np.array([[0.9, 0.9 - width * 0.99], [0.9, 0.9 - width * 1.01]]))
    assert keep.tolist() == [[True, True], [True, False]]
    x = RNG_DATA.uniform(size=m.arms * m.pulls)
    res = dpaudit.audit_sampler(lambda size, rng: m.sample_means(x, size, rng)[:, 1],
                                Laplace(1 / m.pulls, loc=float(x[m.pulls:].mean())), samples=100_000, seed=3)
    assert res.verdict == "not-refuted", res.witness


def test_dp_se_epoch_is_the_noisy_arm_sums_release():
    m = DPSEEpoch(0.5, 0.01, 3, 1)
    assert isinstance(m, Adapter) and isinstance(m.release, NoisyArmSums) and isinstance(m.release, ExactRelease)
    assert m.name == repr(m) == f"DPSEEpoch(eps=0.5, beta=0.01, 3 arms, epoch 1: R_e={m.pulls})"
    assert (m.release.arms, m.release.pulls) == (3, m.pulls) and m.paper == m.release.paper
    x = RNG_DATA.uniform(size=3 * m.pulls)
    assert m.sums(x) == pytest.approx(x.reshape(3, -1).sum(axis=1))
    assert np.array_equal(m.sample(x, 5, np.random.default_rng(2)), m.release.sample(x, 5, np.random.default_rng(2)))
    assert [c.loc for c in m.distribution(x).coordinates] == [c.loc for c in m.release.distribution(x).coordinates]
    noisy = m.release.add_noise(np.tile(m.sums(x), (200_000, 1)), np.random.default_rng(5))
    res = dpaudit.audit_sampler(lambda size, rng: m.release.add_noise(np.tile(m.sums(x), (size, 1)), rng)[:, 2],
                                Laplace(2.0, loc=float(m.sums(x)[2])), samples=100_000, seed=4)
    assert res.verdict == "not-refuted", res.witness
    assert noisy.shape == (200_000, 3)


def bernoulli_table(means, rounds: int, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).random((rounds, len(means))) < np.asarray(means)).astype(float)


def test_dp_se_policy_pulls_each_survivor_in_turn_and_eliminates_a_clearly_worse_arm():
    """Bernoulli(0.9) against Bernoulli(0.1): epoch 1 pulls arm 0 R_1 times, then arm 1 R_1 times, and its
    noisy means (gap 0.8 against 2 (h_1 + c_1) = 0.14) eliminate arm 1 in every run."""
    policy = DPSuccessiveElimination(1.0, 1e-3)
    assert check_policy(policy).feedback == "bandit"
    R = epoch_length(1.0, 1e-3, 2, 1)
    horizon = 2 * R + 500
    table = bernoulli_table([0.9, 0.1], horizon, 0)
    runs = DecisionTranscript(policy, 2, horizon).sample(table, 64, np.random.default_rng(0))
    assert runs.shape == (64, horizon)
    assert (runs[:, :R] == 0).all() and (runs[:, R:2 * R] == 1).all() and (runs[:, 2 * R:] == 0).all()
    # best arm second: the same elimination, the other way round
    last = DecisionTranscript(policy, 2, horizon, rounds=[horizon])
    swapped = last.sample(table[:, ::-1], 64, np.random.default_rng(1))
    assert (swapped == 1).all()


def test_dp_se_policy_eliminates_each_run_by_its_own_noise():
    """Arm 0 always rewarded, arm 1 missing k rewards in its epoch-1 block, k R_1 near the threshold
    2 (h_1 + c_1) R_1: each run eliminates arm 1 with probability P(Z_0 - Z_1 > (thr - gap) R_1),
    Z i.i.d. Lap(1/eps), so the runs' noise must be drawn per run. The fraction over 2000 runs
    against that exact probability (two-sided binomial test at 1e-6)."""
    policy = DPSuccessiveElimination(1.0, 0.1)
    stage = policy.stage(2, 1)
    R, R2 = stage.pulls, policy.stage(2, 2).pulls
    threshold = 2 * (stage.h + stage.c)
    missing = round(threshold * R)
    table = np.ones((2 * R + R2 + 1, 2))
    table[R: R + missing, 1] = 0.0  # arm 1's block of epoch 1
    # round 2 R + R2 + 1 plays arm 1 (epoch 2's second block) if it survived, else arm 0 (the last arm left)
    transcript = DecisionTranscript(policy, 2, len(table), rounds=[R + 1, 2 * R + R2 + 1])
    out = transcript.sample(table, 2000, np.random.default_rng(7))
    assert (out[:, 0] == 1).all()
    p = LaplaceSum(2, 1 / stage.epsilon).sf((threshold - missing / R) * R)
    assert 0.2 < p < 0.8
    assert stats.binomtest(int((out[:, 1] == 0).sum()), 2000, p).pvalue > 1e-6
    assert np.array_equal(out, transcript.sample(table, 2000, np.random.default_rng(7)))  # reproducible


@pytest.mark.parametrize("make, message", [
    (lambda: DPSEEpoch(1.0, 1.0, 2, 1), "beta"),
    (lambda: DPSEEpoch(1.0, 0.1, 2, 0), "epoch"),
    (lambda: DPSEEpoch(1.0, 0.1, 0, 1), "arms"),
    (lambda: DPSEEpoch(1.0, 0.1, 2, 1).sample(np.zeros(5), 2, np.random.default_rng()), "rewards in"),
    (lambda: NoisyArmSums(0.0, 2, 3), "epsilon"),
    (lambda: NoisyArmSums(1.0, 2, 0), "pulls"),
    (lambda: NoisyArmSums(1.0, 2, 3).distribution(np.full(6, 2.0)), r"\[0, 1\]"),
    (lambda: NoisyArmSums(1.0, 2, 3).add_noise(np.zeros(3), np.random.default_rng()), "2 arms"),
    (lambda: DPSuccessiveElimination(0.0, 0.1), "epsilon"),
    (lambda: DPSuccessiveElimination(1.0, 1.5), "beta"),
    (lambda: DPSuccessiveElimination(1.0, 0.1).start(4, 0, 10, np.random.default_rng()), "arms"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_dp_se_shared_noise_cancels_in_the_elimination_rule():
    """The released code's variant adds one Lap(1/eps) to every arm's sum: the rule reads only differences
    of noisy means, so its decisions are those of the noiseless rule, the same for every seed, while
    independent per-arm draws make them random. Table as in the test above: arm 1's epoch-1 deficit
    near the threshold (the noiseless rule keeps arm 1: the deficit is one reward short of it)."""
    shared = DPSuccessiveElimination(1.0, 0.1, noise="shared")
    per_arm = DPSuccessiveElimination(1.0, 0.1)
    stage = per_arm.stage(2, 1)
    R, R2 = stage.pulls, per_arm.stage(2, 2).pulls
    missing = math.floor(2 * (stage.h + stage.c) * stage.pulls)  # gap at most the threshold: kept
    table = np.ones((2 * R + R2 + 1, 2))
    table[R: R + missing, 1] = 0.0
    rounds = [2 * R + R2 + 1]
    out = [DecisionTranscript(shared, 2, len(table), rounds=rounds).sample(table, 500, np.random.default_rng(seed))
           for seed in (1, 2)]
    assert (out[0] == 1).all() and (out[1] == 1).all()  # never eliminated, whatever the draws
    noisy = DecisionTranscript(per_arm, 2, len(table), rounds=rounds).sample(table, 500, np.random.default_rng(1))
    assert 0 < (noisy == 0).sum() < 500
    # the shared draw is one Lap(1/eps) per row: the differences between arms come out exact
    sums = np.tile([10.0, 3.0, 7.5], (1000, 1))
    released = stage.release.add_shared_noise(sums[:, :2], np.random.default_rng(3))
    assert np.allclose(released[:, 0] - released[:, 1], 7.0) and released[:, 0].std() > 0.5


def test_dp_se_fast_path_plays_epoch_blocks_and_beta_defaults_to_one_over_t():
    policy = DPSuccessiveElimination(1.0)
    assert policy.name == "DP-SE(eps=1, beta=1/T)"
    policy.start(3, 2, 5000, np.random.default_rng(0))
    assert policy.stage(2, 1).beta == 1 / 5000
    arms, lengths = policy.next_block(np.ones(3, dtype=np.int64))
    assert arms.tolist() == [0, 0, 0] and lengths.tolist() == [policy.stage(2, 1).pulls] * 3
    with pytest.raises(ValueError, match="needs the horizon"):
        DPSuccessiveElimination(1.0).stage(2, 1)
