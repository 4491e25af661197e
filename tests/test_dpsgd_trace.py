"""dpaudit.DPSGDTrace: a training loop's steps rebuilt as the DP-SGD run they make, and audited."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import (
    BatchesWithReplacement,
    ComposedDPSGD,
    DPSGDTrace,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
)


def _shuffled_loop(n=100, b=16, epochs=3, same_order=False, last="own", z=1.0, clip=0.5, seed=0):
    trace = DPSGDTrace(n, relation="zero-out")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    for _ in range(epochs):
        if not same_order:
            order = rng.permutation(n)
        for start in range(0, n, b):
            batch = order[start:start + b]
            if len(batch) < b and last == "drop":
                continue
            if last == "own":  # averaged over its own size, noise on the mean at the full batch's scale
                trace.step(batch, clip=clip, noise_std=z * clip / b, divisor=len(batch), noise_on="mean")
            else:  # noise on the sum, then any divisor: post-processing
                trace.step(batch, clip=clip, noise_std=z * clip, divisor=b)
    return trace


@pytest.mark.parametrize("last", ["own", "nominal", "drop"])
def test_a_shuffled_loop_is_rebuilt_with_its_partial_batch(last):  # 100 = 6 * 16 + 4
    config = _shuffled_loop(last=last).dpsgd_config()
    assert config.sampler == ShuffledBatches(16, 100, reshuffle=True, partial=last)
    assert config.epochs == 3 and config.noise_multiplier == pytest.approx(1.0)
    assert config.relation == "zero-out"


def test_one_order_for_every_epoch_is_recognised():
    assert not _shuffled_loop(same_order=True).dpsgd_config().sampler.reshuffle


def test_fixed_size_and_with_replacement_batches_are_recognised():
    rng = np.random.default_rng(1)
    fixed = DPSGDTrace(200, relation="zero-out")  # fixed-size batches are defined for datasets of one size
    with_replacement = DPSGDTrace(200, relation="replace-one")
    for _ in range(30):
        fixed.step(rng.choice(200, 20, replace=False), clip=1.0, noise_std=1.5)
        with_replacement.step(rng.integers(0, 200, 20), clip=1.0, noise_std=1.5)
    assert fixed.dpsgd_config().sampler == FixedSizeBatches(20, 200)
    assert with_replacement.dpsgd_config().sampler == BatchesWithReplacement(20, 200)


def test_random_sizes_are_taken_as_poisson_and_a_declaration_sets_the_rate():
    rng = np.random.default_rng(2)
    trace = DPSGDTrace(1000)
    sizes_only = DPSGDTrace(1000, sampler="poisson", rate=0.05)
    for _ in range(40):
        members = np.flatnonzero(rng.random(1000) < 0.05)
        trace.step(members, clip=1.0, noise_std=1.0)
        sizes_only.step(size=len(members), clip=1.0, noise_std=1.0)
    assert isinstance(trace.dpsgd_config().sampler, PoissonBatches)
    assert abs(trace.dpsgd_config().sampler.rate - 0.05) < 0.01
    assert sizes_only.dpsgd_config().sampler == PoissonBatches(0.05) and sizes_only.dpsgd_config().steps == 40


def test_a_change_of_noise_makes_a_composition():
    trace = DPSGDTrace(100, sampler="poisson", rate=0.1)
    for z in (1.0, 1.0, 2.0, 2.0, 2.0):
        trace.step(size=10, clip=1.0, noise_std=z)
    config = trace.dpsgd_config()
    assert isinstance(config, ComposedDPSGD)
    assert [(p.noise_multiplier, p.steps) for p in config.parts] == [(1.0, 2), (2.0, 3)]


def test_the_readme_loop_is_refuted_against_its_poisson_accounting():
    """The shuffled loop with its last batch of 40 averaged over itself, against the epsilon a Poisson accountant
    gives at q = 64/1000: refuted with a certified lower bound far above it."""
    trace = _shuffled_loop(n=1000, b=64, epochs=3, last="own", clip=1.0)
    res = trace.audit(dpaudit.ApproxDP(1.0, 1e-5))
    assert res.verdict == "refuted" and res.epsilon_lower > 5


@pytest.mark.parametrize("record,message", [
    (lambda t: t.step([0, 200], clip=1.0, noise_std=1.0), r"indices must be integers in \[0, 100\)"),
    (lambda t: t.step([0, 1], clip=0.0, noise_std=1.0), "clip must be > 0"),
    (lambda t: t.step([0, 1], clip=1.0, noise_std=-1.0), "noise_std must be > 0"),
    (lambda t: t.step([0, 1], size=2, clip=1.0, noise_std=1.0), "one of them"),
    (lambda t: t.step([0, 1], clip=1.0, noise_std=1.0, noise_on="grad"), "noise_on"),
])
def test_a_bad_step_names_itself(record, message):
    with pytest.raises(ValueError, match=message):
        record(DPSGDTrace(100))


def test_rebuild_errors_say_what_does_not_fit():
    with pytest.raises(ValueError, match="no step recorded"):
        DPSGDTrace(10).dpsgd_config()
    mixed = DPSGDTrace(10)
    mixed.step([0, 1], clip=1.0, noise_std=1.0)
    mixed.step(size=2, clip=1.0, noise_std=1.0)
    with pytest.raises(ValueError, match="every step's batch indices"):
        mixed.dpsgd_config()
    noisy = _shuffled_loop(epochs=2, last="nominal")
    noisy.steps[3] = type(noisy.steps[3])(noisy.steps[3].members, noisy.steps[3].size, 3.0)
    with pytest.raises(ValueError, match="changes between full batches"):
        noisy.dpsgd_config()
    cut = _shuffled_loop(epochs=3, last="nominal")
    del cut.steps[-3:]  # the last epoch misses its last three batches
    with pytest.raises(ValueError, match="epoch 3 is cut short"):
        cut.dpsgd_config()
    with pytest.raises(ValueError, match="sampler='shuffle'"):
        t = DPSGDTrace(100, sampler="shuffle")
        t.step([0, 1], clip=1.0, noise_std=1.0)
        t.step([0, 2], clip=1.0, noise_std=1.0)
        t.dpsgd_config()


def test_the_readme_example_prints_what_its_comment_says():
    """The README's DP-SGD block, run as printed: its one print shows what the comment beside it says, digit for
    digit (certified bounds and dp-accounting's epsilon are deterministic)."""
    from readme_blocks import printed_and_commented

    printed, commented = printed_and_commented("test_dpsgd_trace.py")
    assert printed == commented
