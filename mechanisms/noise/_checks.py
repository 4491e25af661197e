"""Parameter checks shared by the noise distributions: every bad parameter is a clear ValueError.

The mechanisms' own checks (:mod:`dpaudit.mechanisms.params`) serve where they fit; these add a
positive parameter kept exact when it is a Fraction, non-negative values, and integers whose
minimum is optional.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .. import params
from ..params import finite  # noqa: F401 - re-exported for the noise laws


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float, Fraction))


def positive(owner: str, name: str, value: Any) -> float | Fraction:
    """A positive finite parameter; a Fraction is kept exact (for exact audits), else a float."""
    if not _is_number(value) or not 0 < value < math.inf:
        raise ValueError(f"{owner}: {name} must be > 0 and finite, got {value!r}")
    return value if isinstance(value, Fraction) else float(value)


def non_negative(owner: str, name: str, value: Any) -> float:
    if not _is_number(value) or not 0 <= value < math.inf:
        raise ValueError(f"{owner}: {name} must be >= 0 and finite, got {value!r}")
    return float(value)


def integer(owner: str, name: str, value: Any, minimum: int | None = None) -> int:
    if not _is_number(value) or not math.isfinite(value) or not float(value).is_integer():
        raise ValueError(f"{owner}: {name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{owner}: {name} must be >= {minimum}, got {value!r}")
    return int(value)


def open_probability(owner: str, name: str, value: Any) -> float:
    """A probability strictly between 0 and 1 (the endpoints make the law degenerate)."""
    return params.probability(owner, name, value)


def probability(owner: str, name: str, value: Any) -> float:
    return params.probability(owner, name, value, open_low=False, open_high=False)
