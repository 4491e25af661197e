"""Seeds: a claim's randomness depends only on the run seed and the claim id.

Hashing the (case-folded) claim id into the entropy of a :class:`numpy.random.SeedSequence`
makes every result independent of the order claims run in, of the worker count and of the
scheduler.
"""

from __future__ import annotations

import hashlib
import numbers
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


def describe_seed(seq: np.random.SeedSequence) -> dict[str, Any]:
    """Enough to rebuild ``seq``: ``SeedSequence(entropy, spawn_key=spawn_key)``."""
    entropy = seq.entropy
    return {
        "entropy": list(entropy) if isinstance(entropy, (list, tuple)) else int(entropy),
        "spawn_key": list(seq.spawn_key),
    }
