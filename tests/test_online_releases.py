"""private-online's per-epoch releases: the samplers follow their exact laws, the releases are
private where the paper's calibration makes them so, and FTNL's report-noisy-max loses up to 2 eps
under the paper's relation (one reward vector replaced)."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import PureDP
from dpaudit.domains import Box
from dpaudit.mechanisms.noise import FiniteIntegerLaw, Laplace
from dpaudit.mechanisms.online_releases import EpochNoisyMax, LazyArrayRelease, NaiveEpochLaplace

RNG_DATA = np.random.default_rng(7)


def test_lazy_release_is_the_noisy_mean():
    """The release against its exact law, Laplace(sum / 8, 1 / (eps 8)) (false-failure rate 1e-6)."""
    release = LazyArrayRelease(0.5, 3)
    x = RNG_DATA.uniform(size=8)
    law = release.distribution(x)
    assert law.loc == pytest.approx(x.mean()) and float(law.scale) == pytest.approx(1 / (0.5 * 8))
    result = dpaudit.audit_sampler(lambda size, rng: release.sample(x, size, rng),
                                   Laplace(float(law.scale), loc=law.loc), samples=200_000, seed=1)
    assert result.verdict == "not-refuted", result.witness


def test_epoch_noisy_max_follows_its_exact_law():
    """Sampled indices against the exact law of argmax (G + Lap(1/eps)) (false-failure rate 1e-6)."""
    m = EpochNoisyMax(1.0, 3, 2)
    table = RNG_DATA.uniform(size=(4, 3))
    law = m.distribution(table)
    reference = FiniteIntegerLaw(0, np.exp(law.log_probs), name="argmax law")
    result = dpaudit.audit_sampler(lambda size, rng: m.sample(table, size, rng), reference, samples=200_000, seed=2)
    assert result.verdict == "not-refuted", result.witness


def test_naive_ftnl_is_eps_dp():
    from dpaudit.neighbours import ReplaceRewardVector
    result = dpaudit.audit_privacy(NaiveEpochLaplace(1.0, 3, 2), PureDP(1.0),
                                   neighbours=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(4, 3))),
                                   auditor="exact", seed=0)
    assert result.verdict == "verified" and result.epsilon_lower == pytest.approx(1.0)


@pytest.mark.parametrize("s, loss", [(1, 1.0), (3, 1.6), (5, 1.9)])
def test_ftnl_noisy_max_loss_approaches_two_eps_as_the_sums_separate(s, loss):
    """K = 2, one action always rewarded and the other never, one round's vector reversed: the sums
    move from (0, 2^s) to (1, 2^s - 1), and the loss grows towards 2 eps with the epoch."""
    m = EpochNoisyMax(1.0, 2, s)
    a = np.tile([0.0, 1.0], (2**s, 1))
    b = a.copy()
    b[0] = [1.0, 0.0]
    result = dpaudit.audit_privacy(m, PureDP(1.0), pairs=[(a, b)], auditor="exact")
    assert result.epsilon_lower > loss and result.epsilon_lower < 2.0


@pytest.mark.parametrize("make, message", [
    (lambda: LazyArrayRelease(0.0, 3), "epsilon"),
    (lambda: LazyArrayRelease(1.0, -1), "r"),
    (lambda: EpochNoisyMax(1.0, 1, 2), "K"),
    (lambda: LazyArrayRelease(1.0, 2).distribution([0.5, 2.0, 0.0, 0.0]), r"\[0, 1\]"),
    (lambda: EpochNoisyMax(1.0, 2, 2).distribution(np.zeros((3, 2))), "shape"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()
