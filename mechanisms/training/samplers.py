"""Batch samplers of DP-SGD, runnable: each step's batch for ``runs`` independent runs at once, as per-example
weights (runs, n) that multiply the clipped gradients before they are summed.

The samplers are those of :mod:`dpaudit.core.dpsgd` (which the certified accounting reads); here they draw:

- Poisson (rate q): each example in with probability q, independently per step and run;
- fixed-size (b of n): a uniformly random set of b examples per step and run;
- with replacement (b draws of n): an example drawn k times weighs k;
- shuffled (b of n): each epoch a permutation per run (only the first epoch's with ``reshuffle=False``), cut into
  consecutive batches; a partial last batch of m = n mod b is dropped, weighted b/m (``"own"``: averaged over its
  own size when the step's sum is divided by b) or weighted 1 (``"nominal"``);
- balls-and-bins (T steps per epoch): each example in a uniform one of the T steps, per epoch and run.

Draws come from the optimizer's stream in a fixed order (per epoch, then per step), so a run is reproducible from
its seed; the Poisson and shuffled drawers make exactly the draws :class:`~.dp_sgd.DPSGD` made before the family
existed (its records do not move).
"""

from __future__ import annotations

import numpy as np

from dpaudit.core.dpsgd import (
    BallsAndBins,
    BatchesWithReplacement,
    BatchSampler,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
)


class BatchDrawer:
    """Draws the batches of one optimizer call: :meth:`start_epoch` at each epoch's start, then :meth:`weights` for
    each of its steps (``steps_per_epoch`` of them)."""

    def __init__(self, sampler: BatchSampler, n: int, runs: int):
        self.sampler, self.n, self.runs = sampler, int(n), int(runs)
        self.steps_per_epoch = sampler.steps_per_epoch

    def start_epoch(self, epoch: int, rng: np.random.Generator) -> None:
        """Draw what the epoch needs before its steps (nothing, for samplers of independent steps)."""

    def weights(self, step: int, rng: np.random.Generator) -> np.ndarray:
        """Step ``step`` of the epoch: each example's weight in each run's batch sum, shape (runs, n)."""
        raise NotImplementedError


class _Poisson(BatchDrawer):
    def weights(self, step: int, rng: np.random.Generator) -> np.ndarray:
        if self.sampler.rate >= 1:
            return np.ones((self.runs, self.n))
        return (rng.random((self.runs, self.n)) < self.sampler.rate).astype(float)


class _FixedSize(BatchDrawer):
    def weights(self, step: int, rng: np.random.Generator) -> np.ndarray:
        b = self.sampler.batch
        chosen = np.argpartition(rng.random((self.runs, self.n)), b - 1, axis=1)[:, :b]
        out = np.zeros((self.runs, self.n))
        np.put_along_axis(out, chosen, 1.0, axis=1)
        return out


class _WithReplacement(BatchDrawer):
    def weights(self, step: int, rng: np.random.Generator) -> np.ndarray:
        draws = rng.integers(0, self.n, (self.runs, self.sampler.batch))
        out = np.zeros((self.runs, self.n))
        np.add.at(out, (np.repeat(np.arange(self.runs), self.sampler.batch), draws.ravel()), 1.0)
        return out


class _Shuffled(BatchDrawer):
    chunk: np.ndarray

    def start_epoch(self, epoch: int, rng: np.random.Generator) -> None:
        if epoch == 0 or self.sampler.reshuffle:
            order = rng.permuted(np.broadcast_to(np.arange(self.n), (self.runs, self.n)), axis=1)
            self.chunk = np.argsort(order, axis=1) // self.sampler.batch  # each example's batch this epoch

    def weights(self, step: int, rng: np.random.Generator) -> np.ndarray:
        b, m = self.sampler.batch, self.sampler.remainder
        last = m and step == self.sampler.full_batches
        scale = b / m if last and self.sampler.partial == "own" else 1.0
        return (self.chunk == step) * scale


class _BallsAndBins(BatchDrawer):
    bins: np.ndarray

    def start_epoch(self, epoch: int, rng: np.random.Generator) -> None:
        self.bins = rng.integers(0, self.sampler.batches, (self.runs, self.n))

    def weights(self, step: int, rng: np.random.Generator) -> np.ndarray:
        return (self.bins == step).astype(float)


_DRAWERS: dict[type, type[BatchDrawer]] = {
    PoissonBatches: _Poisson, FixedSizeBatches: _FixedSize, BatchesWithReplacement: _WithReplacement,
    ShuffledBatches: _Shuffled, BallsAndBins: _BallsAndBins,
}


def drawer(sampler: BatchSampler, n: int, runs: int) -> BatchDrawer:
    """The drawer of ``sampler`` for a dataset of ``n`` examples and ``runs`` runs (its size, if it has one, must
    be n)."""
    size = getattr(sampler, "size", None)
    if size is not None and size != n:
        raise ValueError(f"the sampler's dataset size is {size}, but the optimizer has n = {n}")
    kind = _DRAWERS.get(type(sampler))
    if kind is None:
        raise TypeError(f"no batch drawer for {sampler!r}")
    return kind(sampler, n, runs)


__all__ = ["BatchDrawer", "drawer"]
