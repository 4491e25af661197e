"""The built-in environments: instance draws, exact block sums, clipped-Gaussian means, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from dpaudit.algorithms.environments import (
    BernoulliBandit,
    BernoulliExperts,
    BetaBandit,
    GaussianBandit,
    UniformMeans,
    bandits,
)
from dpaudit.bandits.environments import Pulls, check_environment, run_sums


def test_fixed_and_random_instances():
    rng = np.random.default_rng(0)
    fixed = BernoulliBandit([0.75, 0.7, 0.7]).instances(4, rng)
    assert fixed.means.shape == (4, 3) and (fixed.means == [0.75, 0.7, 0.7]).all() and fixed.binary
    drawn = GaussianBandit(UniformMeans.around(0.5, 0.1, 10), 0.1).instances(200, rng)
    assert drawn.means.shape == (200, 10)
    assert 0.45 - 1e-3 < drawn.means.min() and drawn.means.max() < 0.55 + 1e-3
    assert len({tuple(row) for row in drawn.means}) == 200  # one instance per run
    check_environment(BernoulliExperts([0.5, 0.6]))
    assert BernoulliExperts([0.5, 0.6]).feedback == "full" and BernoulliBandit([0.5, 0.6]).feedback == "bandit"


@pytest.mark.parametrize("loc, sigma, clip", [(0.25, 0.1, (0, 1)), (0.9, 0.3, (0, 1)), (-0.2, 0.5, (0.1, 0.8))])
def test_clipped_gaussian_mean_is_exact(loc, sigma, clip):
    lo, hi = clip
    inside, _ = integrate.quad(lambda x: x * stats.norm.pdf(x, loc, sigma), lo, hi)
    expected = lo * stats.norm.cdf(lo, loc, sigma) + hi * stats.norm.sf(hi, loc, sigma) + inside
    assert bandits.clipped_normal_mean(loc, sigma, lo, hi) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_rewards_lie_in_the_clip_range_and_have_the_stated_means():
    # 200 000 draws of each arm: the mean is within 5 standard errors (false failures about 6e-7 per arm)
    rng = np.random.default_rng(1)
    for env in (GaussianBandit([0.05, 0.5, 0.97], 0.2), BetaBandit([0.2, 0.5, 0.9], 3.0),
                BernoulliBandit([0.1, 0.5, 0.9])):
        inst = env.instances(200_000, rng)
        x = inst.rewards(rng)
        assert x.min() >= 0 and x.max() <= 1
        se = x.std(axis=0) / np.sqrt(x.shape[0])
        assert np.all(np.abs(x.mean(axis=0) - inst.means[0]) < 5 * se + 1e-12)


def test_block_sums_have_the_law_of_the_pulls_one_by_one():
    # Bernoulli block sums are Binomial draws; the per-pull values give the same law. Two-sample
    # KS on 4000 sums per path at level 1e-4: false failures 1 in 10^4 per environment.
    rng = np.random.default_rng(2)
    runs, counts = 4000, np.full(4000, 37)
    for env in (BernoulliBandit([0.3, 0.6]), GaussianBandit([0.3, 0.6], 0.25)):
        inst = env.instances(runs, rng)
        arms = np.ones(runs, dtype=int)
        by_sum = inst.sums(arms, counts, rng)
        by_value = run_sums(inst.values(arms, counts, rng), counts)
        assert stats.ks_2samp(by_sum, by_value).pvalue > 1e-4
        assert abs(by_sum.mean() - 37 * inst.means[0, 1]) < 5 * by_sum.std() / np.sqrt(runs)


def test_large_blocks_are_drawn_in_pieces_with_the_same_law(monkeypatch):
    # KS two-sample at level 1e-4 between pieced and whole draws (false failures 1 in 10^4)
    rng = np.random.default_rng(3)
    inst = GaussianBandit([0.2, 0.7], 0.3).instances(3000, rng)
    arms = np.arange(3000) % 2
    counts = np.where(arms == 0, 5, 3)
    whole = inst.sums(arms, counts, rng)
    monkeypatch.setattr(bandits, "CHUNK", 7)  # blocks straddle pieces
    pieced = inst.sums(arms, counts, rng)
    for arm in (0, 1):
        assert stats.ks_2samp(whole[arms == arm], pieced[arms == arm]).pvalue > 1e-4


def test_full_information_sums():
    rng = np.random.default_rng(4)
    inst = BernoulliExperts([0.2, 0.8]).instances(5000, rng)
    sums = inst.vector_sums(np.full(5000, 10), rng)
    assert sums.shape == (5000, 2)
    np.testing.assert_allclose(sums.mean(axis=0), [2.0, 8.0], atol=0.1)  # 8 s.e. margin
    gauss = GaussianBandit([0.2, 0.8], 0.1).instances(3, rng).vector_sums(np.array([0, 2, 4]), rng)
    assert gauss.shape == (3, 2) and (gauss[0] == 0).all()


def test_pulls_hand_out_one_set_of_draws():
    rng = np.random.default_rng(5)
    inst = GaussianBandit([0.2, 0.8], 0.1).instances(3, rng)
    pulls = Pulls(inst, np.array([0, 1, 1]), np.array([2, 0, 3]), rng, full=False)
    values = pulls.values()
    assert values.shape == (5,) and pulls.offsets.tolist() == [0, 2, 2]
    np.testing.assert_allclose(pulls.sums, [values[:2].sum(), 0.0, values[2:].sum()])
    late = Pulls(inst, np.array([0, 1, 1]), np.array([2, 0, 3]), rng, full=False)
    assert late.sums.shape == (3,)
    with pytest.raises(RuntimeError, match="before the sums"):
        late.values()


@pytest.mark.parametrize("make, message", [
    (lambda: BernoulliBandit([0.5, 1.2]), r"means must lie in \[0, 1\]"),
    (lambda: BernoulliBandit([0.5]), "at least 2"),
    (lambda: BernoulliBandit("abc"), "means must be a vector"),
    (lambda: GaussianBandit([0.5, 0.4], 0.0), "sigma must be > 0"),
    (lambda: GaussianBandit([0.5, 0.4], 0.1, clip=(0, 2)), "clip must be a pair"),
    (lambda: GaussianBandit([0.5, 0.4], 0.1, clip=3), "clip must be a pair"),
    (lambda: UniformMeans(10, 0.6, 0.4), "need 0 <= low < high <= 1"),
    (lambda: BetaBandit([0.5, 0.4], concentration=-1), "concentration must be > 0"),
])
def test_bad_environments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_beta_needs_open_means():
    with pytest.raises(ValueError, match=r"means in \(0, 1\)"):
        BetaBandit([0.0, 0.5]).instances(2, np.random.default_rng(0))
