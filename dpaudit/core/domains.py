"""Input domains: where a neighbour search may look for pairs of neighbouring inputs.

- :class:`Box`: real or integer arrays of a fixed shape with every entry in [low, high] (query
  answers, reward sequences, a user's vector);
- :class:`Datasets`: datasets of ``size`` records, each record from a :class:`Box` or from a finite
  set of values (categories).

Each domain offers the structured points an adversary tries first (extremes, the middle, an
alternating pattern) and random points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

GRID = 2.0**20

@dataclass(frozen=True)
class Box:
    """Arrays of shape ``shape`` with every entry in [low, high] (integers if ``integer``)."""

    low: float
    high: float
    shape: tuple[int, ...] = ()
    integer: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low > self.high:
            raise ValueError(f"Box: need finite low <= high, got low={self.low!r}, high={self.high!r}")
        shape = (self.shape,) if isinstance(self.shape, (int, np.integer)) else tuple(int(s) for s in self.shape)
        object.__setattr__(self, "shape", shape)
        if any(s <= 0 for s in self.shape):
            raise ValueError(f"Box: shape entries must be positive, got {self.shape}")
        if self.integer and (self.low != math.floor(self.low) or self.high != math.floor(self.high)):
            raise ValueError("Box: an integer box needs integer low and high")

    @property
    def width(self) -> float:
        return self.high - self.low

    def cast(self, x: np.ndarray) -> Any:
        x = np.asarray(x, dtype=np.int64 if self.integer else float)
        return x.item() if self.shape == () else x

    def structured(self) -> list[np.ndarray]:
        mid = (self.low + self.high) / 2
        if self.integer:
            mid = math.floor(mid)
        points = [np.full(self.shape, v) for v in (self.low, self.high, mid)]
        if self.shape != () and int(np.prod(self.shape)) > 1:
            alternating = np.where(np.indices(self.shape).sum(axis=0) % 2 == 0, self.low, self.high)
            points.append(alternating)
        return points

    def unit_pairs(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Pairs of records that differ in direction rather than in size (a user's feature vector turned
        orthogonal), which moves of the entries' extremes do not produce; for boxes of vectors of two or
        more entries that hold 0.

        ``u e_0`` against ``u e_1``, ``-u e_0`` (where the box holds it), the zero vector and ``u e_last``
        (the last axis, when it is not e_1), with ``u = min(1, high)``: unit vectors where the box holds
        them, scaled into it otherwise (a cube inside the unit ball holds no unit axis vector). On a box
        symmetric about 0, also the all-high corner against the alternating-sign corner: orthogonal for an
        even number of entries (nearly so for an odd one) and the longest such pair in the box (the only
        orthogonal pair of norm 1 in the cube inside the unit ball)."""
        size = int(np.prod(self.shape)) if self.shape != () else 1
        if size < 2 or not self.low <= 0 < self.high:
            return []
        u = min(1.0, self.high)
        zero = np.zeros(self.shape)

        def axis(i: int, length: float) -> np.ndarray:
            e = zero.copy()
            e.flat[i] = length
            return e

        first = axis(0, u)
        others = [axis(1, u)] + ([axis(0, -u)] if self.low <= -u else []) + [zero]
        if size > 2:
            others.append(axis(size - 1, u))
        pairs = [(first, other) for other in others]
        if self.low == -self.high:
            alternating = np.where(np.indices(self.shape).sum(axis=0) % 2 == 0, self.high, self.low)
            pairs.append((np.full(self.shape, self.high), alternating))
        return [(self.cast(a), self.cast(b)) for a, b in pairs]

    @classmethod
    def inside_ball(cls, radius: float, d: int) -> Box:
        """The largest cube inside the l2 ball of ``radius`` in d dimensions, [-radius/sqrt d,
        radius/sqrt d]^d: every point is a valid input where inputs need ||x||_2 <= radius, so a search
        over it never leaves the ball (it reaches the sphere only at the cube's corners)."""
        return cls(-radius / math.sqrt(d), radius / math.sqrt(d), shape=(d,))

    def random(self, rng: np.random.Generator, count: int) -> list[np.ndarray]:
        if self.integer:
            return list(rng.integers(int(self.low), int(self.high), size=(count, *self.shape), endpoint=True))
        # on a dyadic grid, so that a point plus a change of the sensitivity is computed exactly
        points = np.round(rng.uniform(self.low, self.high, size=(count, *self.shape)) * GRID) / GRID
        return list(np.clip(points, self.low, self.high))


@dataclass(frozen=True)
class Datasets:
    """Datasets of ``size`` records; a record is a point of ``record`` (a :class:`Box`) or one of
    the values in ``record`` (a tuple of categories)."""

    size: int
    record: Box | tuple[Any, ...] = field(default_factory=lambda: Box(0.0, 1.0))

    def __post_init__(self) -> None:
        if int(self.size) != self.size or self.size < 1:
            raise ValueError(f"Datasets: size must be a positive integer, got {self.size!r}")
        if isinstance(self.record, (list, tuple)):
            if len(self.record) < 2:
                raise ValueError("Datasets: a finite record domain needs at least two values")
            object.__setattr__(self, "record", tuple(self.record))
        elif not isinstance(self.record, Box):
            raise TypeError("Datasets: record must be a Box or a tuple of values")

    def record_values(self) -> list[Any]:
        """The record values a search tries: the extremes and middle of a box, or every category
        (at most 16, spread over the list)."""
        if isinstance(self.record, Box):
            return [self.record.cast(p) for p in self.record.structured()[:3]]
        values = list(self.record)
        if len(values) > 16:
            values = [values[i] for i in np.linspace(0, len(values) - 1, 16).round().astype(int)]
        return values

    def structured(self) -> list[np.ndarray]:
        values = self.record_values()
        lo, hi = values[0], values[1]
        out = [self._dataset([v] * self.size) for v in (lo, hi)]
        out.append(self._dataset([lo if i % 2 == 0 else hi for i in range(self.size)]))
        return out

    def unit_records(self) -> list[tuple[Any, Any]]:
        """The record box's :meth:`Box.unit_pairs` (none for categories or scalar records)."""
        return self.record.unit_pairs() if isinstance(self.record, Box) else []

    def unit_replacements(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Pairs of datasets of zeros whose first record is one and the other of a :meth:`Box.unit_pairs`
        pair: a record turned between orthogonal directions, for record boxes of vectors."""
        pairs = []
        for first, other in self.unit_records():
            a = np.zeros((self.size, *self.record.shape))
            b = a.copy()
            a[0], b[0] = first, other
            pairs.append((self.record.cast(a), self.record.cast(b)))
        return pairs

    def random(self, rng: np.random.Generator, count: int) -> list[np.ndarray]:
        if isinstance(self.record, Box):
            box = self.record
            return [np.asarray(box.random(rng, self.size)) for _ in range(count)]
        idx = rng.integers(0, len(self.record), size=(count, self.size))
        return [self._dataset([self.record[i] for i in row]) for row in idx]

    @staticmethod
    def _dataset(records: list[Any]) -> np.ndarray:
        return np.asarray(records)
