"""DP-SGD as an accountant sees it, as data: how batches are drawn, how much noise each step adds, how many steps,
and which neighbouring datasets the claim is about.

These are small immutable values (dp_accounting's events, in dpaudit's vocabulary): the certified accounting of
:mod:`dpaudit.exact.accounting` reads them, the DP-SGD family of ``dpaudit.mechanisms.training`` draws batches from
them, and a training loop traced by :mod:`dpaudit.api.dpsgd` is rebuilt as one of them.

Every step releases the sum of the batch's clipped gradients (each of norm at most C) plus N(0, (z C)^2 I), z the
noise multiplier; dividing the noisy sum by a fixed number is post-processing. The threat model is the
accountants': every step's noisy gradient is released (``release="every-step"``, the only one supported; a final
model alone is a post-processing of it, so upper bounds hold for it too).

Batch samplers (each example is one record of a dataset of ``size`` records):

- :class:`PoissonBatches` (rate q): each step includes each example independently with probability q.
- :class:`FixedSizeBatches` (batch b of n): each step a uniformly random set of b examples, independently.
- :class:`BatchesWithReplacement` (batch b of n): each step b independent uniform draws.
- :class:`ShuffledBatches` (batch b of n): each epoch a random permutation cut into consecutive batches of b;
  ``reshuffle=False`` keeps the first epoch's order for every epoch. When b does not divide n the last m = n mod b
  examples form a partial batch: ``partial="drop"`` leaves them out of the epoch, ``"own"`` keeps the batch and
  averages its gradients over its own size m under the full batch's noise (so each of its examples weighs b/m
  times as much against the noise), ``"nominal"`` keeps it and averages over b.
- :class:`BallsAndBins` (T batches): each epoch every example goes to one of T steps uniformly at random,
  independently of the others (Chua et al., AISTATS 2025).

Neighbouring relations (:data:`RELATIONS`): ``"add-remove"`` (one dataset is the other with one example added;
only for samplers whose batches do not depend on the dataset's size: Poisson and balls-and-bins),
``"zero-out"`` (one example replaced by one whose clipped gradient is 0, the dataset's size kept), and
``"replace-one"`` (one example replaced by any other: its clipped gradient can flip, a change of 2C).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .validation import choice, integer, positive, probability

ADD_REMOVE, ZERO_OUT, REPLACE_ONE = "add-remove", "zero-out", "replace-one"
RELATIONS = (ADD_REMOVE, ZERO_OUT, REPLACE_ONE)
PARTIAL = ("drop", "own", "nominal")
RELEASES = ("every-step",)


class BatchSampler:
    """How each step's batch is drawn. ``per_epoch`` says whether the sampler is defined by epochs (shuffling,
    balls-and-bins) rather than by independent steps."""

    kind: ClassVar[str]
    per_epoch: ClassVar[bool] = False
    #: the relations under which its batches are defined (add-remove needs batches that do not depend on n)
    relations: ClassVar[tuple[str, ...]] = (ZERO_OUT, REPLACE_ONE)

    @property
    def steps_per_epoch(self) -> int:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **{k: v for k, v in vars(self).items()}}


@dataclass(frozen=True)
class PoissonBatches(BatchSampler):
    """Each step includes each example independently with probability ``rate``."""

    rate: float
    kind: ClassVar[str] = "poisson"
    relations: ClassVar[tuple[str, ...]] = RELATIONS

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", probability("PoissonBatches", "rate", self.rate, open_high=False))

    @property
    def steps_per_epoch(self) -> int:
        return max(1, round(1 / self.rate))

    def describe(self) -> str:
        return f"Poisson sampling at rate {self.rate:g}"


@dataclass(frozen=True)
class FixedSizeBatches(BatchSampler):
    """Each step a uniformly random set of ``batch`` of the ``size`` examples, independently of other steps."""

    batch: int
    size: int
    kind: ClassVar[str] = "fixed-size"

    def __post_init__(self) -> None:
        _batch_and_size(self, "FixedSizeBatches")

    @property
    def rate(self) -> float:
        return self.batch / self.size

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(self.size / self.batch)

    def describe(self) -> str:
        return f"fixed-size batches of {self.batch} of {self.size}, drawn without replacement each step"


@dataclass(frozen=True)
class BatchesWithReplacement(BatchSampler):
    """Each step ``batch`` independent uniform draws from the ``size`` examples."""

    batch: int
    size: int
    kind: ClassVar[str] = "with-replacement"

    def __post_init__(self) -> None:
        _batch_and_size(self, "BatchesWithReplacement")

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(self.size / self.batch)

    def describe(self) -> str:
        return f"batches of {self.batch} drawn with replacement from {self.size}"


@dataclass(frozen=True)
class ShuffledBatches(BatchSampler):
    """Each epoch a permutation of the ``size`` examples cut into batches of ``batch`` (module docstring)."""

    batch: int
    size: int
    reshuffle: bool = True
    partial: str = "drop"
    kind: ClassVar[str] = "shuffle"
    per_epoch: ClassVar[bool] = True

    def __post_init__(self) -> None:
        _batch_and_size(self, "ShuffledBatches")
        if not isinstance(self.reshuffle, bool):
            raise ValueError(f"ShuffledBatches: reshuffle must be True or False, got {self.reshuffle!r}")
        choice("ShuffledBatches", "partial", self.partial, PARTIAL)

    @property
    def full_batches(self) -> int:
        return self.size // self.batch

    @property
    def remainder(self) -> int:
        """m = n mod b: the partial batch's size (0: every batch is full)."""
        return self.size % self.batch

    @property
    def steps_per_epoch(self) -> int:
        return self.full_batches + (1 if self.remainder and self.partial != "drop" else 0)

    def describe(self) -> str:
        order = "reshuffled every epoch" if self.reshuffle else "one order for every epoch"
        last = "" if not self.remainder else {
            "drop": f", the last {self.remainder} dropped",
            "own": f", the last {self.remainder} kept and averaged over their own size",
            "nominal": f", the last {self.remainder} kept and averaged over {self.batch}"}[self.partial]
        return f"shuffled batches of {self.batch} of {self.size} ({order}{last})"


@dataclass(frozen=True)
class BallsAndBins(BatchSampler):
    """Each epoch every example goes to one of ``batches`` steps uniformly, independently of the others."""

    batches: int
    kind: ClassVar[str] = "balls-and-bins"
    per_epoch: ClassVar[bool] = True
    relations: ClassVar[tuple[str, ...]] = RELATIONS

    def __post_init__(self) -> None:
        object.__setattr__(self, "batches", integer("BallsAndBins", "batches", self.batches, 1))

    @property
    def steps_per_epoch(self) -> int:
        return self.batches

    def describe(self) -> str:
        return f"balls-and-bins over {self.batches} steps per epoch"


def _batch_and_size(sampler: Any, owner: str) -> None:
    object.__setattr__(sampler, "batch", integer(owner, "batch", sampler.batch, 1))
    object.__setattr__(sampler, "size", integer(owner, "size", sampler.size, 1))
    if sampler.batch > sampler.size:
        raise ValueError(f"{owner}: batch must be at most size = {sampler.size}, got {sampler.batch}")


@dataclass(frozen=True)
class DPSGDConfig:
    """A DP-SGD run as its accountant sees it (module docstring). Give ``steps`` or ``epochs``: samplers defined by
    epochs (shuffling, balls-and-bins) take whole epochs; the others take steps (``epochs`` is then epochs times
    their steps per epoch)."""

    sampler: BatchSampler
    noise_multiplier: float
    steps: int | None = None
    epochs: int | None = None
    relation: str = ADD_REMOVE
    release: str = "every-step"
    label: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        owner = "DPSGDConfig"
        if not isinstance(self.sampler, BatchSampler):
            raise TypeError(f"{owner}: sampler must be one of PoissonBatches, FixedSizeBatches, "
                            f"BatchesWithReplacement, ShuffledBatches, BallsAndBins; got {self.sampler!r}")
        object.__setattr__(self, "noise_multiplier", positive(owner, "noise_multiplier", self.noise_multiplier))
        choice(owner, "relation", self.relation, RELATIONS)
        choice(owner, "release", self.release, RELEASES)
        if self.relation not in self.sampler.relations:
            raise ValueError(f"{owner}: the {self.relation} relation changes the dataset's size, which changes "
                             f"{self.sampler.kind} batches; use 'zero-out' or 'replace-one' for it")
        if (self.steps is None) == (self.epochs is None):
            raise ValueError(f"{owner}: give exactly one of steps and epochs")
        per = self.sampler.steps_per_epoch
        if self.epochs is not None:
            epochs = integer(owner, "epochs", self.epochs, 1)
            object.__setattr__(self, "epochs", epochs)
            object.__setattr__(self, "steps", epochs * per)
        else:
            steps = integer(owner, "steps", self.steps, 1)
            object.__setattr__(self, "steps", steps)
            if self.sampler.per_epoch:
                if steps % per:
                    raise ValueError(f"{owner}: {self.sampler.kind} batches come in epochs of {per} steps; "
                                     f"steps = {steps} is not a whole number of epochs (give epochs=)")
                object.__setattr__(self, "epochs", steps // per)

    @property
    def sensitivity(self) -> float:
        """A neighbour's largest change of one step's clipped-gradient sum, in units of the clip norm."""
        return 2.0 if self.relation == REPLACE_ONE else 1.0

    def describe(self) -> str:
        span = (f"{self.epochs} epoch{'' if self.epochs == 1 else 's'} ({self.steps} steps)"
                if self.sampler.per_epoch or self.epochs else f"{self.steps} steps")
        return (f"DP-SGD, {self.sampler.describe()}, noise multiplier {self.noise_multiplier:g}, {span}, "
                f"{self.relation} neighbours, every step released")

    def to_dict(self) -> dict[str, Any]:
        return {"sampler": self.sampler.to_dict(), "noise_multiplier": self.noise_multiplier, "steps": self.steps,
                "epochs": self.epochs, "relation": self.relation, "release": self.release,
                **({"label": self.label} if self.label else {})}


@dataclass(frozen=True)
class ComposedDPSGD:
    """Several DP-SGD runs on the same dataset, one after another (each may have its own sampler, noise and
    length), about the same neighbouring relation: their composition."""

    parts: tuple[DPSGDConfig, ...]
    label: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        parts = tuple(self.parts)
        if not parts or not all(isinstance(p, DPSGDConfig) for p in parts):
            raise TypeError("ComposedDPSGD: parts must be a non-empty sequence of DPSGDConfig")
        if len({p.relation for p in parts}) != 1:
            raise ValueError("ComposedDPSGD: every part must be about the same neighbouring relation")
        object.__setattr__(self, "parts", parts)

    @property
    def relation(self) -> str:
        return self.parts[0].relation

    @property
    def steps(self) -> int:
        return sum(p.steps for p in self.parts)

    def describe(self) -> str:
        return f"{len(self.parts)} DP-SGD runs composed ({self.steps} steps in all), {self.relation} neighbours"

    def to_dict(self) -> dict[str, Any]:
        return {"parts": [p.to_dict() for p in self.parts], **({"label": self.label} if self.label else {})}


def as_parts(run: DPSGDConfig | ComposedDPSGD) -> tuple[DPSGDConfig, ...]:
    """The runs a configuration composes (itself alone, or a composition's parts)."""
    if isinstance(run, DPSGDConfig):
        return (run,)
    if isinstance(run, ComposedDPSGD):
        return run.parts
    raise TypeError(f"expected a DPSGDConfig or ComposedDPSGD, got {run!r}")


__all__ = ["ADD_REMOVE", "PARTIAL", "RELATIONS", "RELEASES", "REPLACE_ONE", "ZERO_OUT", "BallsAndBins",
           "BatchSampler", "BatchesWithReplacement", "ComposedDPSGD", "DPSGDConfig", "FixedSizeBatches",
           "PoissonBatches", "ShuffledBatches", "as_parts"]
