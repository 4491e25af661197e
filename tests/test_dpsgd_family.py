"""The DP-SGD family (dpaudit.mechanisms.training): each batch sampler draws the batches its description says,
vectorised over runs, and an optimizer call describes itself as the configuration the certified accounting reads.

Statistical checks are seeded; each states its false-failure rate (a chi-square or binomial test at the level given,
for the seed used: a failure means the drawer is wrong, not bad luck, unless the level is met by chance)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.core.dpsgd import (
    BallsAndBins,
    BatchesWithReplacement,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
)
from dpaudit.mechanisms.training.dp_sgd import DPSGD
from dpaudit.mechanisms.training.samplers import drawer

RUNS, N = 400, 30


def _epochs(sampler, epochs: int, seed: int = 0) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    d = drawer(sampler, N, RUNS)
    out = []
    for e in range(epochs):
        d.start_epoch(e, rng)
        out.append([d.weights(j, rng) for j in range(d.steps_per_epoch)])
    return out


def test_poisson_batches_are_independent_bernoulli_draws():
    """Every example in every step with probability q: the count over runs and steps is binomial (two-sided
    binomial test per example at 1e-4, Bonferroni over 30 examples: false-failure rate 3e-3)."""
    weights = np.array(_epochs(PoissonBatches(0.2), 2)).reshape(-1, RUNS, N)
    assert set(np.unique(weights)) <= {0.0, 1.0}
    trials = weights.shape[0] * RUNS
    for count in weights.sum(axis=(0, 1)):
        assert stats.binomtest(int(count), trials, 0.2).pvalue > 1e-4


def test_fixed_size_batches_hold_exactly_b_examples_uniformly():
    """b examples per step and run, each example equally likely (chi-square over the 30 examples at 1e-4)."""
    weights = np.array(_epochs(FixedSizeBatches(7, N), 3)).reshape(-1, RUNS, N)
    assert (weights.sum(axis=2) == 7).all() and set(np.unique(weights)) <= {0.0, 1.0}
    counts = weights.sum(axis=(0, 1))
    assert stats.chisquare(counts).pvalue > 1e-4


def test_batches_with_replacement_count_every_draw():
    """b draws per step and run; an example drawn twice weighs 2; draws uniform (chi-square at 1e-4)."""
    weights = np.array(_epochs(BatchesWithReplacement(12, N), 2)).reshape(-1, RUNS, N)
    assert (weights.sum(axis=2) == 12).all()
    assert weights.max() >= 2  # repeats happen (probability ~1 at these sizes)
    assert stats.chisquare(weights.sum(axis=(0, 1))).pvalue > 1e-4


@pytest.mark.parametrize("partial,expected_steps", [("drop", 4), ("own", 5), ("nominal", 5)])
def test_shuffled_batches_partition_each_epoch(partial, expected_steps):
    sampler = ShuffledBatches(7, N, partial=partial)  # 30 = 4 * 7 + 2
    epochs = _epochs(sampler, 3)
    for steps in epochs:
        assert len(steps) == expected_steps
        stacked = np.array(steps)
        member = stacked > 0
        assert (member.sum(axis=0) == (1 if partial != "drop" else member.sum(axis=0))).all()
        assert (member[:4].sum(axis=2) == 7).all()
        if partial == "drop":
            assert (member.sum(axis=0).sum(axis=1) == 28).all()  # two examples left out per epoch and run
        else:
            assert (member[4].sum(axis=1) == 2).all()
            assert np.allclose(stacked[4][member[4]], 3.5 if partial == "own" else 1.0)  # 7 / 2 or 1
    # a fresh order per epoch (the batch of example 0 changes between epochs in some run)
    first = [np.argmax(np.array(steps)[:, :, 0] > 0, axis=0) for steps in epochs]
    assert (first[0] != first[1]).any()


def test_one_order_for_every_epoch_repeats_the_first():
    epochs = _epochs(ShuffledBatches(5, N, reshuffle=False), 3)
    assert all(np.array_equal(np.array(epochs[0]), np.array(e)) for e in epochs[1:])


def test_balls_and_bins_put_each_example_in_one_step_uniformly():
    """Each example in exactly one of T steps per epoch, the step uniform (chi-square at 1e-4)."""
    epochs = _epochs(BallsAndBins(6), 2)
    for steps in epochs:
        stacked = np.array(steps)
        assert (stacked.sum(axis=0) == 1).all()
        assert stats.chisquare(stacked.sum(axis=(1, 2))).pvalue > 1e-4


def test_a_sampler_for_another_dataset_size_is_refused():
    with pytest.raises(ValueError, match="dataset size"):
        drawer(ShuffledBatches(5, 40), N, 2)


# -- the optimizer as a configuration -----------------------------------------------------------------------------


def test_the_optimizer_describes_the_configuration_it_runs():
    opt = DPSGD(4.0, 1e-5, 5000, 3)
    config = opt.dpsgd_config()
    assert config.sampler == PoissonBatches(2048 / 5000) and config.steps == opt.steps
    assert config.noise_multiplier == opt.noise_multiplier and config.relation == "add-remove"
    shuffled = DPSGD(4.0, 1e-5, 2049, 3, batches="shuffled", accountant="released-code").dpsgd_config()
    assert shuffled.sampler == ShuffledBatches(2048, 2049, reshuffle=True, partial="own")
    assert shuffled.relation == "zero-out" and shuffled.epochs == 50
    small = DPSGD(4.0, 1e-5, 600, 3, batches="shuffled").dpsgd_config()
    assert small.sampler == PoissonBatches(1.0)  # one full batch: no sampling at all


def test_the_optimizer_runs_any_sampler_of_the_family():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 2))

    def gradient(theta, data):
        return np.broadcast_to(data, (theta.shape[0], *data.shape)) * 0.1

    for sampler in (FixedSizeBatches(10, 40), BatchesWithReplacement(10, 40), ShuffledBatches(15, 40, partial="drop"),
                    BallsAndBins(4)):
        opt = DPSGD(2.0, 1e-5, 40, 2, clip=1.0, epochs=3, burn_in=1, sampler=sampler)
        out = opt.run(gradient, x, np.zeros((5, 2)), np.random.default_rng(0))
        assert out.shape == (5, 2) and np.isfinite(out).all()
        assert opt.dpsgd_config().sampler == sampler


def test_the_released_codes_one_point_batch_is_refuted_at_its_own_budget():
    """At n = 2049 the released code's last batch is one point averaged over itself under a full batch's noise;
    the call's own claim (eps0, delta0) cannot hold: over 50 epochs the point is alone with probability about
    2.4%, far above delta0."""
    opt = DPSGD(1.0, 1e-3, 2049, 3, batches="shuffled", accountant="released-code")
    res = dpaudit.audit_dpsgd(opt, dpaudit.ApproxDP(opt.epsilon, opt.delta))
    assert res.verdict == "refuted"
    assert res.delta_lower > 0.02
