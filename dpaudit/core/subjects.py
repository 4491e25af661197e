"""The audited subject: a vectorised sampler ``mech(data, size, rng)`` or an object with
``.sample(data, size, rng)``, optionally exposing ``.distribution(data)``.

:class:`Mechanism` wraps either form and checks every output, so that a mechanism returning the
wrong shape, NaN/inf, or different outputs for the same generator state (unless it declares with
:func:`dpaudit.unseeded` that it draws its own randomness) is reported as a :class:`MechanismError`
naming the problem, never turned into a verdict. Categorical outputs (strings, other hashables) are
mapped to integer codes, one table per mechanism, so both sides of a pair share it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import AuditTimeout, MechanismError
from .names import subject_name

PROBE_SIZE = 16
#: categories of a categorical output listed in a record (the codes beyond are still audited)
LISTED_CATEGORIES = 50


def is_reproducible(mech: Any) -> bool:
    """Whether ``mech`` draws all its randomness from the generator it is given (the default), rather
    than declaring with :func:`dpaudit.unseeded` (or a ``reproducible = False`` attribute) that it does not."""
    return getattr(mech, "reproducible", True) is not False


class Mechanism:
    """Checked access to a user's mechanism."""

    def __init__(self, mech: Any):
        sample = getattr(mech, "sample", None)
        if callable(sample):
            self._sample = sample
        elif callable(mech):
            self._sample = mech
        else:
            raise MechanismError(
                f"{mech!r} is not a mechanism: expected a callable mech(data, size, rng) "
                "or an object with .sample(data, size, rng)"
            )
        self.obj = mech
        self.name = subject_name(mech)
        self.reproducible = is_reproducible(mech)
        self._codes: dict[Any, int] = {}

    @property
    def categories(self) -> list[Any]:
        """The categorical outputs seen so far, in the order of their codes (empty for numeric outputs)."""
        return list(self._codes)

    def _encode(self, arr: np.ndarray) -> np.ndarray:
        """Integer codes for categorical outputs: a new category gets the next code, new ones of one call
        in sorted order (so categories all seen in the first call are coded in sorted order)."""
        import pandas as pd

        flat = arr.ravel()
        try:
            try:
                local, uniques = pd.factorize(flat, sort=True, use_na_sentinel=False)
            except TypeError:  # categories that do not sort (mixed types): in order of appearance
                local, uniques = pd.factorize(flat, use_na_sentinel=False)
        except TypeError as exc:  # unhashable outputs
            raise MechanismError(f"{self.name} returned outputs of dtype {arr.dtype} that are neither numbers nor "
                                 f"hashable categories: {exc}") from exc
        table = np.fromiter((self._codes.setdefault(u, len(self._codes)) for u in uniques), dtype=np.int64,
                            count=len(uniques))
        return table[local].reshape(arr.shape)

    @property
    def has_distribution(self) -> bool:
        return callable(getattr(self.obj, "distribution", None))

    def distribution(self, data: Any) -> Any:
        try:
            return self.obj.distribution(data)
        except AuditTimeout:
            raise
        except Exception as exc:  # noqa: BLE001 - reported with the mechanism's name
            raise MechanismError(f"{self.name}.distribution({data!r}) raised {type(exc).__name__}: {exc}") from exc

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` outputs on ``data`` as an array whose first axis has length ``size``."""
        try:
            out = self._sample(data, size, rng)
        except AuditTimeout:
            raise
        except Exception as exc:  # noqa: BLE001 - reported with the mechanism's name
            raise MechanismError(f"{self.name} raised {type(exc).__name__} on input {data!r}: {exc}") from exc
        try:
            arr = np.asarray(out)
        except Exception as exc:  # noqa: BLE001
            raise MechanismError(f"{self.name} returned {type(out).__name__}, which is not array-like") from exc
        if arr.ndim == 0 or arr.shape[0] != size:
            raise MechanismError(
                f"{self.name} returned shape {arr.shape} for size={size}; the first axis must have "
                f"length size (one output per row)"
            )
        if arr.dtype.kind in "USO":
            arr = self._encode(arr)
        if arr.dtype.kind not in "biuf":
            raise MechanismError(f"{self.name} returned dtype {arr.dtype}; outputs must be numbers or categories")
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            bad = arr[~np.isfinite(arr)].ravel()[0]
            raise MechanismError(f"{self.name} returned a non-finite output ({bad}) on input {data!r}")
        return arr

    def probe(self, data: Any, seed: int = 0) -> np.ndarray:
        """Check shape and finiteness on a few outputs before an audit, and determinism given the
        generator unless the mechanism declares it draws its own randomness; returns the outputs drawn
        (their shape says how wide an output is)."""
        a = self.sample(data, PROBE_SIZE, np.random.default_rng(seed))
        if not self.reproducible:
            return a
        b = self.sample(data, PROBE_SIZE, np.random.default_rng(seed))
        if a.shape != b.shape or not np.array_equal(a, b):
            raise MechanismError(
                f"{self.name} is not deterministic given its rng: two calls with the same generator "
                "state gave different outputs (does it use the global numpy RNG or another source?). "
                "A mechanism that draws its own randomness, as a library that cannot be seeded does, "
                "is audited as dpaudit.unseeded(mech)"
            )
        return a
