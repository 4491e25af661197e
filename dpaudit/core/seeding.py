"""Seeds: a claim's randomness depends only on the run seed and the claim id.

Hashing the (case-folded) claim id into the entropy of a :class:`numpy.random.SeedSequence`
makes every result independent of the order claims run in, of the worker count and of the
scheduler.
"""

from __future__ import annotations

import hashlib
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def claim_seed_sequence(run_seed: int, claim_id: str) -> np.random.SeedSequence:
    """The seed sequence of ``claim_id`` in a run seeded with ``run_seed``."""
    digest = hashlib.sha256(claim_id.casefold().encode("utf-8")).digest()
    return np.random.SeedSequence([check_seed(run_seed), int.from_bytes(digest[:16], "little")])


def as_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """Accept ``None`` (fresh OS entropy, recorded), an int, or a ``SeedSequence``."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(check_seed(seed))


@dataclass(frozen=True)
class SeedRecord:
    """A record's ``seed``, in one shape: the seed sequence the audit drew from, rebuilt by
    ``numpy.random.SeedSequence(entropy, spawn_key=spawn_key)``, and where it came from: in a suite
    run, the run seed and the claim id it was derived from (:func:`claim_seed_sequence`); outside one
    (a direct API call), both ``None``."""

    entropy: int | list[int]
    spawn_key: list[int]
    run_seed: int | None = None
    claim_id: str | None = None

    @classmethod
    def of(cls, seq: np.random.SeedSequence, run_seed: int | None = None, claim_id: str | None = None) -> SeedRecord:
        entropy = seq.entropy
        return cls(list(entropy) if isinstance(entropy, (list, tuple)) else int(entropy), list(seq.spawn_key),
                   run_seed, claim_id)

    def sequence(self) -> np.random.SeedSequence:
        return np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key)

    def to_dict(self) -> dict[str, Any]:
        return {"run_seed": self.run_seed, "claim_id": self.claim_id, "entropy": self.entropy,
                "spawn_key": self.spawn_key}
