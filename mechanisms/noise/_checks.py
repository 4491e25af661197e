"""Parameter checks shared by the noise distributions: every bad parameter is a clear ValueError."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any


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


def finite(owner: str, name: str, value: Any) -> float:
    if not _is_number(value) or not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be a finite number, got {value!r}")
    return float(value)


def integer(owner: str, name: str, value: Any, minimum: int | None = None) -> int:
    if not _is_number(value) or not math.isfinite(value) or not float(value).is_integer():
        raise ValueError(f"{owner}: {name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{owner}: {name} must be >= {minimum}, got {value!r}")
    return int(value)


def open_probability(owner: str, name: str, value: Any) -> float:
    """A probability strictly between 0 and 1 (the endpoints make the law degenerate)."""
    if not _is_number(value) or not 0 < value < 1:
        raise ValueError(f"{owner}: {name} must be in (0, 1), got {value!r}")
    return float(value)


def probability(owner: str, name: str, value: Any) -> float:
    if not _is_number(value) or not 0 <= value <= 1:
        raise ValueError(f"{owner}: {name} must be in [0, 1], got {value!r}")
    return float(value)
