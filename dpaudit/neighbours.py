"""Neighbouring relations as objects.

A privacy claim is only meaningful with the relation it is about; an audit under the wrong one
is a defect. Each relation checks that a given pair of inputs are neighbours
(:meth:`NeighbourRelation.check`) so a suite entry or a user's pairs cannot silently audit
something else. Inputs are array-likes: datasets are sequences of records (first axis = records
or users), query answers are scalars or vectors.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .errors import NotNeighbours


def _records(data: Any, what: str) -> np.ndarray:
    arr = np.asarray(data)
    if arr.ndim == 0:
        raise NotNeighbours(f"{what} must be a sequence of records, got a scalar {data!r}")
    return arr


def _one_row_replaced(relation: str, d0: Any, d1: Any, container: str, row: str) -> np.ndarray:
    """Check that two equal-shape arrays differ in at most one row (first axis); return one."""
    a, b = _records(d0, container), _records(d1, container)
    if a.shape != b.shape:
        raise NotNeighbours(f"{relation}: {container}s must have the same shape, got {a.shape} and {b.shape}")
    differing = np.count_nonzero((a != b).reshape(len(a), -1).any(axis=1))
    if differing > 1:
        raise NotNeighbours(f"{relation}: {differing} {row}s differ; neighbours differ in one {row}")
    return a


class NeighbourRelation(ABC):
    """A neighbouring relation. ``name`` is its short name in records and on the command line."""

    name: ClassVar[str]

    @abstractmethod
    def check(self, d0: Any, d1: Any) -> None:
        """Raise :class:`NotNeighbours` saying why, unless ``d0`` and ``d1`` are neighbours."""

    @abstractmethod
    def describe(self) -> str:
        """One line for reports."""

    def is_neighbours(self, d0: Any, d1: Any) -> bool:
        try:
            self.check(d0, d1)
        except NotNeighbours:
            return False
        return True

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "description": self.describe()}
        out.update({k: v for k, v in vars(self).items()})
        return out


@dataclass(frozen=True)
class ReplaceOne(NeighbourRelation):
    """Datasets of the same size that differ in at most one record (replacement)."""

    name: ClassVar[str] = "replace-one"

    def check(self, d0: Any, d1: Any) -> None:
        _one_row_replaced(self.name, d0, d1, "dataset", "record")

    def describe(self) -> str:
        return "datasets of equal size differing in one record (replacement)"


@dataclass(frozen=True)
class AddRemoveOne(NeighbourRelation):
    """One dataset is the other with one record added (either order)."""

    name: ClassVar[str] = "add-remove-one"

    def check(self, d0: Any, d1: Any) -> None:
        a, b = _records(d0, "dataset"), _records(d1, "dataset")
        if len(a) < len(b):
            a, b = b, a
        if len(a) != len(b) + 1 or a.shape[1:] != b.shape[1:]:
            raise NotNeighbours(
                f"add-remove-one: sizes must differ by exactly one record, got {len(a)} and {len(b)}"
            )
        for i in range(len(a)):  # one record removed: find it by the first mismatch
            if i == len(b) or not np.array_equal(a[i], b[i]):
                if np.array_equal(a[i + 1 :], b[i:]):
                    return
                break
        raise NotNeighbours("add-remove-one: the smaller dataset is not the larger with one record removed")

    def describe(self) -> str:
        return "datasets differing by adding or removing one record"


@dataclass(frozen=True)
class ReplaceUser(NeighbourRelation):
    """One user's input replaced in a batch (shuffle and distributed models).

    The input is the batch: first axis = users. ``batch_size``, if set, is checked too.
    """

    batch_size: int | None = None
    name: ClassVar[str] = "replace-user"

    def check(self, d0: Any, d1: Any) -> None:
        batch = _one_row_replaced(self.name, d0, d1, "batch", "user")
        if self.batch_size is not None and len(batch) != self.batch_size:
            raise NotNeighbours(f"replace-user: batch must hold {self.batch_size} users, got {len(batch)}")

    def describe(self) -> str:
        size = f" of {self.batch_size}" if self.batch_size is not None else ""
        return f"one user's input replaced in a batch{size}"


@dataclass(frozen=True)
class ReplaceRewardVector(NeighbourRelation):
    """Reward sequences (rounds x arms) that differ in the reward vector of one round."""

    name: ClassVar[str] = "replace-reward-vector"

    def check(self, d0: Any, d1: Any) -> None:
        _one_row_replaced(self.name, d0, d1, "reward sequence", "round")

    def describe(self) -> str:
        return "reward sequences differing in one round's reward vector"


@dataclass(frozen=True)
class QueryDistance(NeighbourRelation):
    """Query answers (scalars or vectors of equal shape) within ``sensitivity`` of each other.

    ``one_coordinate=False``: every coordinate may move by at most ``sensitivity`` (the
    l-infinity ball); ``one_coordinate=True``: only one coordinate may move.
    """

    sensitivity: float = 1.0
    one_coordinate: bool = False
    name: ClassVar[str] = "query-distance"

    def __post_init__(self) -> None:
        s = self.sensitivity
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not (0 < s < math.inf):
            raise ValueError(f"QueryDistance: sensitivity must be > 0 and finite, got {s!r}")

    def check(self, d0: Any, d1: Any) -> None:
        a = np.asarray(d0, dtype=float)
        b = np.asarray(d1, dtype=float)
        if a.shape != b.shape:
            raise NotNeighbours(f"query-distance: answers must have the same shape, got {a.shape} and {b.shape}")
        diff = np.abs(a - b).ravel()
        if diff.size and diff.max() > self.sensitivity:
            raise NotNeighbours(
                f"query-distance: answers differ by {diff.max():g} > sensitivity {self.sensitivity:g}"
            )
        if self.one_coordinate and np.count_nonzero(diff) > 1:
            raise NotNeighbours(f"query-distance: {np.count_nonzero(diff)} coordinates differ; only one may")

    def describe(self) -> str:
        where = "in one coordinate" if self.one_coordinate else "in each coordinate"
        return f"query answers differing by at most {self.sensitivity:g} {where}"


RELATIONS: dict[str, type[NeighbourRelation]] = {
    cls.name: cls for cls in (ReplaceOne, AddRemoveOne, ReplaceUser, ReplaceRewardVector, QueryDistance)
}


def parse_relation(text: str) -> NeighbourRelation:
    """Parse a relation string: ``replace-one``, ``add-remove-one``, ``replace-user [batch_size=N]``,
    ``replace-reward-vector``, ``query-distance [sensitivity=D] [one_coordinate=true]``."""
    head, *assignments = text.split()
    cls = RELATIONS.get(head)
    if cls is None:
        raise NotNeighbours(f"unknown relation {head!r}; known relations: {', '.join(RELATIONS)}")
    kwargs: dict[str, Any] = {}
    for token in assignments:
        key, eq, raw = token.partition("=")
        if not eq:
            raise NotNeighbours(f"expected key=value in relation {text!r}, got {token!r}")
        if key == "sensitivity" and cls is QueryDistance:
            kwargs[key] = float(raw)
        elif key == "one_coordinate" and cls is QueryDistance:
            kwargs[key] = raw.lower() in ("1", "true", "yes")
        elif key == "batch_size" and cls is ReplaceUser:
            kwargs[key] = int(raw)
        else:
            raise NotNeighbours(f"relation {head} takes no parameter {key!r}")
    try:
        return cls(**kwargs)
    except ValueError as exc:
        raise NotNeighbours(str(exc)) from None
