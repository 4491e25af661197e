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

    def unit_points(self) -> list[np.ndarray]:
        """Orthogonal unit vectors e_0 and e_1, -e_0 and the zero vector, those of them inside the box (for
        vectors of two or more entries): the records that differ most in direction rather than in size,
        which moves of the entries' extremes do not produce (a user's feature vector turned orthogonal)."""
        size = int(np.prod(self.shape)) if self.shape != () else 1
        if size < 2 or not self.low <= 0 <= 1 <= self.high:
            return []
        zero = np.zeros(self.shape)
        e0, e1 = zero.copy(), zero.copy()
        e0.flat[0], e1.flat[1] = 1.0, 1.0
        return [e0, e1] + ([-e0] if self.low <= -1 else []) + [zero]

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

    def unit_replacements(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Pairs of datasets whose first record is e_0 in one and e_1, -e_0 or 0 in the other (the rest
        zeros, or the box's lower corner when 0 is outside it): orthogonal unit records, for record boxes
        of vectors (see :meth:`Box.unit_points`)."""
        if not isinstance(self.record, Box):
            return []
        units = self.record.unit_points()
        if not units:
            return []
        base = np.zeros((self.size, *self.record.shape))
        first, others = units[0], units[1:]
        pairs = []
        for other in others:
            a, b = base.copy(), base.copy()
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
