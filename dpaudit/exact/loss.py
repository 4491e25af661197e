"""The range of the privacy loss L(x) = log P(x) - log Q(x), and pure epsilon from it.

For independent coordinates the loss is the sum of the coordinates' losses, so its supremum is
the sum of their suprema and its infimum the sum of their infima; pure epsilon of the pair is
max(sup L, -inf L) (the second term is the loss of the reversed pair).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .enclosure import Enclosure


@dataclass(frozen=True)
class LossRange:
    """Enclosures of sup_x L(x) and inf_x L(x), and outputs where they are (approached)."""

    sup: Enclosure
    inf: Enclosure
    sup_at: Any
    inf_at: Any

    def __add__(self, other: LossRange) -> LossRange:
        return LossRange(self.sup + other.sup, self.inf + other.inf, _join(self.sup_at, other.sup_at),
                         _join(self.inf_at, other.inf_at))


def _join(a: Any, b: Any) -> list[Any]:
    return (a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b])


ZERO = LossRange(Enclosure.point(0), Enclosure.point(0), None, None)


@dataclass(frozen=True)
class PureEpsilon:
    """Pure epsilon of one pair: its enclosure, the direction of the worst loss, and where."""

    epsilon: Enclosure
    direction: str  # "d0/d1": log P/Q is largest; "d1/d0": log Q/P is
    output: Any


def pure_epsilon_of(loss: LossRange) -> PureEpsilon:
    up, down = loss.sup, -loss.inf
    eps = Enclosure(max(up.lo, down.lo, 0), max(up.hi, down.hi, 0))
    if up.hi >= down.hi:
        return PureEpsilon(eps, "d0/d1", loss.sup_at)
    return PureEpsilon(eps, "d1/d0", loss.inf_at)


def point_value(x: Any) -> Any:
    """An output location as a plain number for witnesses."""
    if isinstance(x, list):
        return [point_value(v) for v in x]
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return x
    if math.isfinite(f) and f == int(f):
        return int(f)
    return f
