"""Parameter and input validation shared by the mechanisms: every error names its owner and the
parameter, e.g. ``ReportNoisyMax: epsilon must be > 0 and finite, got -1``."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import numpy as np


def positive(owner: str, name: str, value: Any) -> float:
    """A positive finite real number (bools and strings rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < math.inf:
        raise ValueError(f"{owner}: {name} must be > 0 and finite, got {value!r}")
    return float(value)


def finite(owner: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{owner}: {name} must be a finite number, got {value!r}")
    return float(value)


def integer(owner: str, name: str, value: Any, minimum: int) -> int:
    """An integer >= ``minimum`` (integral floats such as 3.0 are accepted)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value).is_integer():
        raise ValueError(f"{owner}: {name} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{owner}: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def probability(owner: str, name: str, value: Any, *, open_low: bool = True, open_high: bool = True) -> float:
    value = finite(owner, name, value)
    low_ok = value > 0 if open_low else value >= 0
    high_ok = value < 1 if open_high else value <= 1
    if not (low_ok and high_ok):
        interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
        raise ValueError(f"{owner}: {name} must be in {interval}, got {value!r}")
    return value


def choice(owner: str, name: str, value: Any, options: tuple[str, ...]) -> str:
    if value not in options:
        raise ValueError(f"{owner}: {name} must be one of {', '.join(map(repr, options))}, got {value!r}")
    return value


def sample_size(owner: str, size: Any) -> int:
    return integer(owner, "size", size, 0)


def query_vector(owner: str, data: Any, length: int | None = None) -> np.ndarray:
    """A 1-d vector of finite query answers (of the given length, if any), as floats."""
    try:
        q = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}: data must be a vector of query answers (numbers), got {data!r}") from None
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"{owner}: data must be a non-empty vector of query answers, got shape {q.shape}")
    if length is not None and q.size != length:
        raise ValueError(f"{owner}: data must hold k={length} query answers, got {q.size}")
    if not np.isfinite(q).all():
        raise ValueError(f"{owner}: query answers must be finite, got {data!r}")
    return q


def exact_vector(q: np.ndarray) -> list[Fraction]:
    """Query answers as exact rationals (floats are dyadic rationals)."""
    return [Fraction(float(v)) for v in q]


__all__ = ["choice", "exact_vector", "finite", "integer", "positive", "probability", "query_vector", "sample_size"]
