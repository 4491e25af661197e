"""private-online's per-epoch releases: the samplers follow their exact laws, the releases are
private where the paper's calibration makes them so, a miscalibrated hybrid tree is caught, and
FTNL's report-noisy-max loses up to 2 eps under the paper's relation (one reward vector replaced)."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import PureDP
from dpaudit.domains import Box, Datasets
from dpaudit.mechanisms.noise import FiniteIntegerLaw, Laplace
from dpaudit.mechanisms.online_releases import EpochNoisyMax, HybridBlockRelease, LazyArrayRelease, NaiveEpochLaplace
from dpaudit.mechanisms.tree import BinaryTreeMechanism
from dpaudit.neighbours import ReplaceOne

RNG_DATA = np.random.default_rng(7)


def test_lazy_release_is_the_noisy_mean():
    """The release against its exact law, Laplace(sum / 8, 1 / (eps 8)) (false-failure rate 1e-6)."""
    release = LazyArrayRelease(0.5, 3)
    x = RNG_DATA.uniform(size=8)
    law = release.distribution(x)
    assert law.loc == pytest.approx(x.mean()) and float(law.scale) == pytest.approx(1 / (0.5 * 8))
    result = dpaudit.audit_sampler(lambda size, rng: release.sample(x, size, rng), Laplace(law.loc, float(law.scale)),
                                   samples=200_000, seed=1)
    assert result.verdict == "not-refuted", result.witness


def test_epoch_noisy_max_follows_its_exact_law():
    """Sampled indices against the exact law of argmax (G + Lap(1/eps)) (false-failure rate 1e-6)."""
    m = EpochNoisyMax(1.0, 3, 2)
    table = RNG_DATA.uniform(size=(4, 3))
    law = m.distribution(table)
    reference = FiniteIntegerLaw(0, np.exp(law.log_probs), name="argmax law")
    result = dpaudit.audit_sampler(lambda size, rng: m.sample(table, size, rng), reference, samples=200_000, seed=2)
    assert result.verdict == "not-refuted", result.witness


def test_hybrid_block_output_layout_and_law():
    release = HybridBlockRelease(1.0, 3)
    x = RNG_DATA.uniform(size=8)
    draws = release.sample(x, 5, np.random.default_rng(0))
    assert draws.shape == (5, 8)  # 7 p-sums of the tree over the first 7 observations, then the block sum
    coords = release.distribution(x).coordinates
    assert len(coords) == 8 and coords[-1].loc == pytest.approx(x.sum()) and coords[-1].scale == 2
    assert all(c.scale == 6 for c in coords[:-1])  # Lap(2r/eps), r = 3


def test_hybrid_block_is_eps_dp_and_a_smaller_tree_noise_is_caught():
    """Every observation lies in at most r = 3 of the tree's p-sums (eps/(2r) each) and in the array
    sum (eps/2): eps exactly. With Lap(2(r - 1)/eps) in the tree the loss is 3 eps/4 + eps/2."""
    where = ReplaceOne().over(Datasets(8, Box(0.0, 1.0)))
    result = dpaudit.audit_privacy(HybridBlockRelease(1.0, 3), PureDP(1.0), neighbours=where, auditor="exact", seed=0)
    assert result.verdict == "verified" and result.epsilon_lower == pytest.approx(1.0)
    weak = HybridBlockRelease(1.0, 3)
    weak.tree = BinaryTreeMechanism(7, Laplace(0.0, 4.0))
    refuted = dpaudit.audit_privacy(weak, PureDP(1.0), neighbours=where, auditor="exact", seed=0)
    assert refuted.verdict == "refuted" and refuted.epsilon_lower == pytest.approx(1.25)


def test_naive_ftnl_is_eps_dp():
    from dpaudit.neighbours import ReplaceRewardVector
    result = dpaudit.audit_privacy(NaiveEpochLaplace(1.0, 3, 2), PureDP(1.0),
                                   neighbours=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(4, 3))), auditor="exact", seed=0)
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
    (lambda: HybridBlockRelease(1.0, 0), "r"),
    (lambda: EpochNoisyMax(1.0, 1, 2), "K"),
    (lambda: LazyArrayRelease(1.0, 2).distribution([0.5, 2.0, 0.0, 0.0]), r"\[0, 1\]"),
    (lambda: EpochNoisyMax(1.0, 2, 2).distribution(np.zeros((3, 2))), "shape"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()
