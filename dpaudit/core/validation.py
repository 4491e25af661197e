"""One vocabulary of parameter checks, for claims, mechanisms and noise laws alike.

Every check names its owner and the parameter, says what was expected and what it got, e.g.
``ReportNoisyMax: epsilon must be > 0 and finite, got -1``, and returns the value in the form the
caller keeps (a float, an int, or an exact :class:`~fractions.Fraction` where asked). A check raises
``error``: ``ValueError`` by default; claims pass :class:`~dpaudit.core.errors.InvalidClaim` (itself a
``ValueError``) so that the command line reports a bad claim as a usage error.

Numbers are any :class:`numbers.Real` (numpy scalars and fractions included); ``bool`` and strings
are refused, as is NaN.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

Error = type[Exception]


def _fail(error: Error, owner: str, name: str, expected: str, value: Any) -> Exception:
    return error(f"{owner}: {name} must be {expected}, got {value!r}")


def is_real(value: Any) -> bool:
    """A real number other than a bool (which numbers.Real would admit)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def real(owner: str, name: str, value: Any, *, error: Error = ValueError) -> float:
    """A real number, possibly infinite, never NaN."""
    if not is_real(value):
        raise _fail(error, owner, name, "a real number", value)
    number = float(value)
    if math.isnan(number):
        raise _fail(error, owner, name, "a number", value)
    return number


def check(owner: str, name: str, value: Any, ok: Callable[[float], bool], expected: str, *,
          error: Error = ValueError) -> float:
    """A real number for which ``ok`` holds; ``expected`` says what that means (``"in (0, 1)"``)."""
    number = real(owner, name, value, error=error)
    if not ok(number):
        raise _fail(error, owner, name, expected, value)
    return number


def finite_number(owner: str, name: str, value: Any, *, error: Error = ValueError) -> float:
    if not is_real(value) or not math.isfinite(float(value)):
        raise _fail(error, owner, name, "a finite number", value)
    return float(value)


def positive(owner: str, name: str, value: Any, *, exact: bool = False, error: Error = ValueError
             ) -> float | Fraction:
    """A number > 0 and finite; with ``exact``, a :class:`Fraction` stays exact (for exact audits)."""
    if not is_real(value) or not 0 < value < math.inf:
        raise _fail(error, owner, name, "> 0 and finite", value)
    return value if exact and isinstance(value, Fraction) else float(value)


def non_negative(owner: str, name: str, value: Any, *, error: Error = ValueError) -> float:
    if not is_real(value) or not 0 <= value < math.inf:
        raise _fail(error, owner, name, ">= 0 and finite", value)
    return float(value)


def integer(owner: str, name: str, value: Any, minimum: int | None = None, *, error: Error = ValueError) -> int:
    """An integer (integral floats such as 3.0 are accepted), at least ``minimum`` if given."""
    expected = "an integer" + ("" if minimum is None else f" >= {minimum}")
    if not is_real(value) or not math.isfinite(float(value)) or not float(value).is_integer():
        raise _fail(error, owner, name, expected, value)
    if minimum is not None and int(value) < minimum:
        raise _fail(error, owner, name, expected, value)
    return int(value)


def probability(owner: str, name: str, value: Any, *, open_low: bool = True, open_high: bool = True,
                error: Error = ValueError) -> float:
    """A probability; the interval is open at each end unless told otherwise."""
    low_ok = (lambda v: v > 0) if open_low else (lambda v: v >= 0)
    high_ok = (lambda v: v < 1) if open_high else (lambda v: v <= 1)
    interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
    if not is_real(value) or not math.isfinite(float(value)) or not (low_ok(value) and high_ok(value)):
        raise _fail(error, owner, name, f"in {interval}", value)
    return float(value)


def choice(owner: str, name: str, value: Any, options: tuple[str, ...], *, error: Error = ValueError) -> str:
    if not isinstance(value, str) or value not in options:
        raise _fail(error, owner, name, f"one of {', '.join(map(repr, options))}", value)
    return value


#: the constant sets a preset or an algorithm runs with: the paper's as printed, or its authors' released code's
CONSTANT_SETS = ("theorem", "released-code")


def constant_set(owner: str, value: Any, *, error: Error = ValueError) -> str:
    """``value`` if it names one of :data:`CONSTANT_SETS`, else ``error`` naming them."""
    if value not in CONSTANT_SETS:
        raise error(f"{owner}: constants must be one of {', '.join(CONSTANT_SETS)}, got {value!r}")
    return value


def sample_size(owner: str, size: Any) -> int:
    """The number of outputs a sampler is asked for."""
    return integer(owner, "size", size, 0)


def query_vector(owner: str, data: Any, length: int | None = None) -> np.ndarray:
    """A non-empty 1-d vector of finite query answers (of the given length, if any), as floats."""
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


__all__ = ["CONSTANT_SETS", "check", "choice", "constant_set", "exact_vector", "finite_number", "integer", "is_real",
           "non_negative", "positive", "probability", "query_vector", "real", "sample_size"]
