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


@pytest.mark.parametrize("loc", [0.5, 0.03, 0.9])
def test_long_gaussian_blocks_sum_from_the_stated_law(monkeypatch, loc):
    # blocks longer than EXACT_PULLS (lowered to 16 here) take their sum from clipped_normal_sums: exact counts
    # at the clip points, the normal law inside. Against reward-by-reward sums of the same blocks: the mean
    # within 5 s.e. of the exact n E[X] (false failures 6e-7), the variance ratio within 10% (4000 runs:
    # 10% is 4.5 s.e. of the ratio; false failures ~1e-5) and a two-sample KS test at 1e-4. Locations by the
    # clip points put a visible share of the mass on the atoms.
    rng = np.random.default_rng(6)
    monkeypatch.setattr(bandits, "EXACT_PULLS", 16)
    runs, n = 4000, 200
    inst = GaussianBandit([loc, 0.5], 0.1).instances(runs, rng)
    arms, counts = np.zeros(runs, dtype=int), np.full(runs, n)
    fast = inst.sums(arms, counts, rng)
    direct = run_sums(inst.values(arms, counts, rng), counts)
    exact_mean = n * bandits.clipped_normal_mean(loc, 0.1, 0.0, 1.0)
    assert abs(fast.mean() - exact_mean) < 5 * fast.std() / np.sqrt(runs)
    assert 0.9 < fast.var() / direct.var() < 1.1
    assert stats.ks_2samp(fast, direct).pvalue > 1e-4
    assert (fast >= 0).all() and (fast <= n).all()
    # a block of EXACT_PULLS or fewer pulls is drawn reward by reward: the same draws as before the cut
    short = np.full(runs, 16)
    a, b = (GaussianBandit([loc, 0.5], 0.1).instances(runs, np.random.default_rng(7)) for _ in range(2))
    np.testing.assert_array_equal(a.sums(arms, short, np.random.default_rng(8)),
                                  run_sums(b.values(arms, short, np.random.default_rng(8)), short))


@pytest.mark.parametrize("loc, g, clip", [(0.3, 7, (0.0, 1.0)), (0.02, 5, (0.0, 1.0)), (0.97, 13, (0.0, 1.0)),
                                          (0.5, 1, (0.0, 1.0)), (0.55, 400, (0.0, 1.0)), (0.3, 10, (0.25, 0.93))])
def test_the_rounded_law_of_a_clipped_gaussian_is_exact(loc, g, clip):
    # E[x_hat] = g E[X] exactly (the rounding is unbiased); against 400 000 rewards rounded by the mechanism
    # layer's RandomizedRounding: a chi-square test over the values with expected count >= 5, at 1e-6
    from dpaudit.mechanisms.noise import RandomizedRounding

    law = bandits.clipped_normal_rounded_law([loc], 0.1, *clip, g)[0]
    assert law.shape == (g + 1,) and (law >= 0).all() and law.sum() == pytest.approx(1.0, abs=1e-12)
    assert law @ np.arange(g + 1) == pytest.approx(g * bandits.clipped_normal_mean(loc, 0.1, *clip), abs=1e-12)
    rng = np.random.default_rng(9)
    x = np.clip(loc + 0.1 * rng.standard_normal(400_000), *clip)
    observed = np.bincount(RandomizedRounding(g).round(x, rng), minlength=g + 1)
    expected = law * x.size
    kept = expected >= 5
    observed = np.append(observed[kept], observed[~kept].sum())
    expected = np.append(expected[kept], expected[~kept].sum())
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    assert stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 1e-6


def test_long_gaussian_blocks_round_in_one_step(monkeypatch):
    # Pulls.roundable only when a block is longer than EXACT_PULLS; then the rounded sums come from the
    # multinomial over {0..g} (an exact law), here against rounding reward by reward: KS at 1e-4 on each
    # precision, and the sums are the rounded sums / g
    from dpaudit.mechanisms.noise import RandomizedRounding

    monkeypatch.setattr(bandits, "EXACT_PULLS", 10)
    rng = np.random.default_rng(10)
    runs = 3000
    inst = GaussianBandit([0.35, 0.6], 0.1).instances(runs, rng)
    arms = np.arange(runs) % 2
    assert not Pulls(inst, arms, np.full(runs, 10), rng, full=False).roundable
    counts = np.where(np.arange(runs) < 4, 3, 60)  # a few short blocks ride along, rounded one by one
    g = np.where(np.arange(runs) % 3 == 0, 4, 9)
    pulls = Pulls(inst, arms, counts, rng, full=False)
    assert pulls.roundable
    rounded = pulls.rounded_sums(g)
    long = counts > 10
    np.testing.assert_allclose(pulls.sums[long], rounded[long] / g[long])
    assert (rounded[~long] <= 3 * g[~long]).all()
    values = inst.values(arms, counts, rng)
    owner = np.repeat(np.arange(runs), counts)
    direct = np.zeros(runs, dtype=np.int64)
    for precision in (4, 9):
        mask = g[owner] == precision
        np.add.at(direct, owner[mask], RandomizedRounding(precision).round(values[mask], rng))
    for precision in (4, 9):
        for arm in (0, 1):
            rows = long & (g == precision) & (arms == arm)
            assert stats.ks_2samp(rounded[rows], direct[rows]).pvalue > 1e-4


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
