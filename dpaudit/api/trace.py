""":class:`DPSGDTrace`: a user's own training loop, traced step by step, rebuilt as the DP-SGD configuration it
actually ran, and audited against the epsilon its accountant (or its user) declares.

Call :meth:`DPSGDTrace.step` once per noisy step, with what the step did: the batch (the indices of its examples,
repeats allowed) or only its size, the clip norm, the noise's standard deviation, the divisor the noisy sum was
divided by, and whether the noise was added to the sum or to the divided mean. :meth:`DPSGDTrace.dpsgd_config`
rebuilds the run:

- **the noise multiplier of each step**: the standard deviation on the sum, over the clip norm (noise added to a
  mean of divisor d counts as d times its standard deviation on the sum);
- **the sampler**, from the batches' indices: epochs that partition the dataset are shuffling (a smaller last batch
  kept: averaged over its own size when its noise multiplier is the full batches' times m / b, over the nominal
  size when it equals theirs; examples left out of every epoch: the remainder dropped; the same batches every epoch:
  one order), batches of one size without repeats that do not partition are fixed-size, repeats are draws with
  replacement; batches of varying sizes that do not partition are taken as Poisson sampling at their mean rate (a
  trace cannot tell Poisson from other random sizes: say ``sampler="poisson"`` to make it a declaration, with
  ``rate=`` to give the rate). With sizes only, declare the sampler.

Anything the rebuild cannot make sense of (indices outside the dataset, an epoch cut short, noise that changes
within an epoch other than on its last batch, a clip norm or noise that is not positive) raises ``ValueError``
naming the step. :meth:`DPSGDTrace.audit` then decides a claim by certified accounting (:func:`dpaudit.audit_dpsgd`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.claims import Claim
from ..core.dpsgd import (
    RELATIONS,
    BatchesWithReplacement,
    ComposedDPSGD,
    DPSGDConfig,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
)
from ..core.results import AuditResult
from ..core.validation import choice, integer, positive

SAMPLERS = ("poisson", "fixed-size", "with-replacement", "shuffle")
_REL = 1e-9  # noise multipliers closer than this (relatively) are the same


@dataclass(frozen=True)
class _Step:
    members: np.ndarray | None  # the batch's indices (sorted), or None when only the size was given
    size: int
    multiplier: float  # the noise's standard deviation on the sum, over the clip norm


class DPSGDTrace:
    """A training loop's noisy steps, recorded to rebuild and audit the DP-SGD run they make (module docstring).

    ``dataset_size`` is n; ``relation`` the neighbouring datasets the claim is about (``"add-remove"``,
    ``"zero-out"`` or ``"replace-one"``); ``sampler`` (``"poisson"``, ``"fixed-size"``, ``"with-replacement"``,
    ``"shuffle"``) declares how batches were drawn instead of inferring it, and ``rate`` Poisson's rate."""

    def __init__(self, dataset_size: int, *, relation: str = "add-remove", sampler: str | None = None,
                 rate: float | None = None):
        self.n = integer("DPSGDTrace", "dataset_size", dataset_size, 1)
        self.relation = choice("DPSGDTrace", "relation", relation, RELATIONS)
        self.sampler = None if sampler is None else choice("DPSGDTrace", "sampler", sampler, SAMPLERS)
        self.rate = rate
        self.steps: list[_Step] = []

    def step(self, batch: Any = None, *, size: int | None = None, clip: float, noise_std: float,
             divisor: float = 1.0, noise_on: str = "sum") -> None:
        """Record one noisy step: ``batch`` the indices of its examples (or ``size`` its size alone), each
        example's gradient clipped to norm ``clip``, noise of standard deviation ``noise_std`` added to the sum
        (``noise_on="sum"``) or to the sum divided by ``divisor`` (``noise_on="mean"``)."""
        where = f"DPSGDTrace.step {len(self.steps) + 1}"
        clip = positive(where, "clip", clip)
        noise_std = positive(where, "noise_std", noise_std)
        divisor = positive(where, "divisor", divisor)
        noise_on = choice(where, "noise_on", noise_on, ("sum", "mean"))
        if (batch is None) == (size is None):
            raise ValueError(f"{where}: give the batch's indices or its size (one of them)")
        members = None
        if batch is not None:
            members = np.sort(np.asarray(batch).ravel())
            if members.size and (not np.issubdtype(members.dtype, np.integer) or members[0] < 0
                                 or members[-1] >= self.n):
                raise ValueError(f"{where}: batch indices must be integers in [0, {self.n}), got "
                                 f"{members[:5].tolist()}...")
            size = int(members.size)
        else:
            size = integer(where, "size", size, 0)
        sigma_on_sum = noise_std * divisor if noise_on == "mean" else noise_std
        self.steps.append(_Step(members, int(size), sigma_on_sum / clip))

    # -- the rebuild ------------------------------------------------------------------------------------------

    def dpsgd_config(self) -> DPSGDConfig | ComposedDPSGD:
        """The DP-SGD run the recorded steps make (module docstring)."""
        if not self.steps:
            raise ValueError("DPSGDTrace: no step recorded")
        if self.sampler == "poisson" or (self.sampler is None and not self._indexed()):
            return self._poisson()
        if self.sampler is None or self.sampler == "shuffle":
            epochs = self._epochs()
            if epochs is not None:
                return self._shuffled(epochs)
            if self.sampler == "shuffle":
                raise ValueError("DPSGDTrace: sampler='shuffle' but the batches do not partition the dataset epoch "
                                 "by epoch")
        sizes = {s.size for s in self.steps}
        repeats = any(len(np.unique(s.members)) < s.size for s in self.steps if s.members is not None)
        if self.sampler == "with-replacement" or repeats:
            if len(sizes) != 1:
                raise ValueError("DPSGDTrace: draws with replacement need one batch size")
            return self._by_multiplier(lambda: BatchesWithReplacement(sizes.pop(), self.n))
        if len(sizes) == 1 and (self.sampler in (None, "fixed-size")):
            b = sizes.pop()
            return self._by_multiplier(lambda: FixedSizeBatches(b, self.n))
        if self.sampler == "fixed-size":
            raise ValueError("DPSGDTrace: sampler='fixed-size' but the batch sizes vary: "
                             f"{sorted(sizes)[:5]}...")
        return self._poisson()

    def _indexed(self) -> bool:
        known = [s.members is not None for s in self.steps]
        if any(known) and not all(known):
            raise ValueError("DPSGDTrace: give every step's batch indices, or every step's size only")
        return all(known)

    def _poisson(self) -> DPSGDConfig | ComposedDPSGD:
        rate = self.rate if self.rate is not None else float(np.mean([s.size for s in self.steps])) / self.n
        if not 0 < rate <= 1:
            raise ValueError(f"DPSGDTrace: the Poisson rate must be in (0, 1], got {rate!r}")
        return self._by_multiplier(lambda: PoissonBatches(rate))

    def _by_multiplier(self, sampler) -> DPSGDConfig | ComposedDPSGD:
        """Consecutive steps of one noise multiplier as one configuration each, composed."""
        parts, start = [], 0
        for i in range(1, len(self.steps) + 1):
            if i == len(self.steps) or not _same(self.steps[i].multiplier, self.steps[start].multiplier):
                parts.append(DPSGDConfig(sampler(), self.steps[start].multiplier, steps=i - start,
                                         relation=self.relation))
                start = i
        return parts[0] if len(parts) == 1 else ComposedDPSGD(tuple(parts), label="a traced training loop")

    def _epochs(self) -> list[list[_Step]] | None:
        """The steps cut into epochs, each ending where the next batch would repeat one of its examples or where
        it has covered them all; None unless every epoch leaves out fewer examples than a batch holds (a
        shuffled epoch's dropped remainder)."""
        if not self._indexed():
            return None
        if any(len(np.unique(s.members)) < s.size for s in self.steps):
            return None
        batch = Counter(s.size for s in self.steps).most_common(1)[0][0]
        epochs: list[list[_Step]] = [[]]
        seen = np.zeros(self.n, dtype=bool)
        for s in self.steps:
            if seen[s.members].any() or seen.all():
                epochs.append([])
                seen[:] = False
            seen[s.members] = True
            epochs[-1].append(s)
        short = [i for i, e in enumerate(epochs, 1) if self.n - sum(s.size for s in e) >= batch]
        if short == [len(epochs)] and len(epochs) > 1:  # whole epochs, then one cut short: not another sampler
            covered = sum(s.size for s in epochs[-1])
            raise ValueError(f"DPSGDTrace: epoch {len(epochs)} is cut short: it covers {covered} of the {self.n} "
                             "examples (trace whole epochs)")
        return None if short else epochs

    def _shuffled(self, epochs: list[list[_Step]]) -> DPSGDConfig:
        sizes = [s.size for s in epochs[0]]
        b = Counter(s.size for s in self.steps).most_common(1)[0][0]
        m = self.n % b
        for e, steps in enumerate(epochs, 1):
            if [s.size for s in steps] != sizes:
                raise ValueError(f"DPSGDTrace: epoch {e} has batch sizes {[s.size for s in steps][:6]}..., epoch 1 "
                                 f"{sizes[:6]}...: an epoch cut short or batches of changing sizes")
        full = [s for steps in epochs for s in steps if s.size == b]
        z = full[0].multiplier
        if any(not _same(s.multiplier, z) for s in full):
            raise ValueError("DPSGDTrace: the noise multiplier changes between full batches of an epoch; "
                             "trace runs of one noise level, or compose them")
        if m and sizes[-1] == m:
            z_last = epochs[0][-1].multiplier
            if _same(z_last, z * m / b):
                partial = "own"
            elif _same(z_last, z):
                partial = "nominal"
            else:
                raise ValueError(f"DPSGDTrace: the last batch's noise multiplier {z_last:.6g} is neither the full "
                                 f"batches' {z:.6g} (averaged over {b}) nor {z * m / b:.6g} (over its own {m})")
        else:
            partial = "drop"
        order = [tuple(tuple(s.members.tolist()) for s in steps) for steps in epochs]
        reshuffle = len(order) == 1 or any(o != order[0] for o in order[1:])
        sampler = ShuffledBatches(b, self.n, reshuffle=reshuffle, partial=partial)
        return DPSGDConfig(sampler, z, epochs=len(epochs), relation=self.relation, label=(
            f"a traced training loop: {sampler.describe()}, noise multiplier {z:g}, {len(epochs)} epochs"))

    def audit(self, claim: Claim, *, knot: float | None = None) -> AuditResult:
        """Decide ``claim`` about the rebuilt run (:func:`dpaudit.audit_dpsgd`)."""
        from .dpsgd import audit_dpsgd

        return audit_dpsgd(self, claim, knot=knot)

    def __repr__(self) -> str:
        return f"DPSGDTrace(n={self.n}, {len(self.steps)} steps, relation={self.relation!r})"


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_REL)


__all__ = ["SAMPLERS", "DPSGDTrace"]
