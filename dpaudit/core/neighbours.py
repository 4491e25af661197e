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

from .domains import Box, Datasets
from .errors import NotNeighbours
from .names import Registry

Pair = tuple[Any, Any]


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

    def candidates(self, domain: Any, rng: np.random.Generator, random: int = 16) -> list[Pair]:
        """Candidate pairs over ``domain``: the structured patterns an adversary tries first, then
        ``random`` random ones. Every pair returned passes :meth:`check`."""
        raise NotNeighbours(f"the {self.name} relation cannot search a {type(domain).__name__} domain")

    def over(self, domain: Any, random: int = 16) -> NeighbourSearch:
        """This relation with a declared input domain, for ``audit_privacy(neighbours=...)``."""
        return NeighbourSearch(self, domain, random)

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

    def candidates(self, domain: Any, rng: np.random.Generator, random: int = 16) -> list[Pair]:
        if not isinstance(domain, Datasets):
            return super().candidates(domain, rng, random)
        return _replacements(domain, rng, random)


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

    def candidates(self, domain: Any, rng: np.random.Generator, random: int = 16) -> list[Pair]:
        """A dataset of ``domain.size`` records against itself without its first or last record,
        and with each tried record value added (for vector records, also a unit axis vector, see
        :meth:`Box.unit_pairs`: a direction none of the extremes has)."""
        if not isinstance(domain, Datasets):
            return super().candidates(domain, rng, random)
        added = domain.record_values() + [first for first, _ in domain.unit_records()[:1]]
        pairs = []
        for base in domain.structured() + domain.random(rng, random):
            pairs += [(base, base[1:]), (base, base[:-1])]
            pairs += [(base, np.concatenate([base, np.asarray([v])])) for v in added]
        return _unique(pairs)


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

    def candidates(self, domain: Any, rng: np.random.Generator, random: int = 16) -> list[Pair]:
        if not isinstance(domain, Datasets):
            return super().candidates(domain, rng, random)
        if self.batch_size is not None and domain.size != self.batch_size:
            raise NotNeighbours(f"replace-user: the domain's batches hold {domain.size} users, not {self.batch_size}")
        return _replacements(domain, rng, random)


@dataclass(frozen=True)
class ReplaceRewardVector(NeighbourRelation):
    """Reward sequences (rounds x arms) that differ in the reward vector of one round."""

    name: ClassVar[str] = "replace-reward-vector"

    def check(self, d0: Any, d1: Any) -> None:
        _one_row_replaced(self.name, d0, d1, "reward sequence", "round")

    def describe(self) -> str:
        return "reward sequences differing in one round's reward vector"

    def candidates(self, domain: Any, rng: np.random.Generator, random: int = 16) -> list[Pair]:
        """Rounds x arms boxes: the first or last round's vector set to each extreme pattern."""
        if not isinstance(domain, Box) or len(domain.shape) != 2:
            return super().candidates(domain, rng, random)
        patterns = [p[0] for p in domain.structured()]  # rows of the structured points: low, high, mid, alternating
        pairs = []
        for base in domain.structured() + domain.random(rng, random):
            for row in (0, domain.shape[0] - 1):
                for pattern in patterns:
                    other = base.copy()
                    other[row] = pattern
                    if not np.array_equal(other, base):
                        pairs.append((domain.cast(base), domain.cast(other)))
        return _unique(pairs)


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

    def moves(self, shape: tuple[int, ...], step: float) -> list[np.ndarray]:
        """Changes of size ``step``: one coordinate up or down; unless ``one_coordinate``, also
        every coordinate up, and half up with half down (opposite directions)."""
        if shape == ():
            return [np.asarray(step), np.asarray(-step)]
        size = int(np.prod(shape))
        coords = range(size) if size <= 8 else sorted({0, 1, size // 2, size - 1})
        out = []
        for i in coords:
            for sign in (1, -1):
                m = np.zeros(size)
                m[i] = sign * step
                out.append(m.reshape(shape))
        if not self.one_coordinate and size > 1:
            out.append(np.full(shape, step))
            half = np.where(np.arange(size) < size // 2, step, -step).reshape(shape)
            out += [half, -half]
        return out

    def one_against_the_rest(self, domain: Box, step: float) -> list[Pair]:
        """One coordinate up by ``step`` and every other down (and the mirror), from the base where that
        coordinate sits at the box's low end and the others at its high end (and the mirror base), and
        from the middle: the change that moves a selection's normaliser most against one candidate (the
        exponential mechanism's worst pair, e.g. [0, 6, 6] -> [1, 5, 5]). For the first four coordinates."""
        size = int(np.prod(domain.shape))
        mid = (domain.low + domain.high) / 2
        if domain.integer:
            mid = math.floor(mid)
        pairs = []
        for i in range(min(size, 4)):
            up = np.full(size, -step)
            up[i] = step
            for sign, corner in ((1, domain.low), (-1, domain.high)):
                base = np.full(size, domain.high if sign > 0 else domain.low, dtype=float)
                base[i] = corner
                for start in (base, np.full(size, mid, dtype=float)):
                    move = sign * up
                    start = np.clip(start, domain.low - np.minimum(move, 0), domain.high - np.maximum(move, 0))
                    pairs.append((domain.cast(start.reshape(domain.shape)),
                                  domain.cast((start + move).reshape(domain.shape))))
        return pairs

    def candidates(self, domain: Any, rng: np.random.Generator, random: int = 16) -> list[Pair]:
        """Structured and random base points of a :class:`Box`, each moved by every pattern of
        :meth:`moves`, shifted so that both points stay in the box."""
        if not isinstance(domain, Box):
            return super().candidates(domain, rng, random)
        step = min(self.sensitivity, domain.width)
        if domain.integer:
            step = math.floor(step)
        if step <= 0:
            raise NotNeighbours(f"query-distance: the box [{domain.low}, {domain.high}] has no room for a change")
        pairs = []
        for base in domain.structured() + domain.random(rng, random):
            for move in self.moves(domain.shape, step):
                # keep base and base + move inside [low, high]
                start = np.clip(base, domain.low - np.minimum(move, 0), domain.high - np.maximum(move, 0))
                pairs.append((domain.cast(start), domain.cast(start + move)))
        if not self.one_coordinate and domain.shape != () and int(np.prod(domain.shape)) > 1:
            pairs += self.one_against_the_rest(domain, step)
        return _unique(pairs)


RELATIONS: dict[str, type[NeighbourRelation]] = Registry("relation", {
    cls.name: cls for cls in (ReplaceOne, AddRemoveOne, ReplaceUser, ReplaceRewardVector, QueryDistance)
})


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


def _replacements(domain: Datasets, rng: np.random.Generator, random: int) -> list[Pair]:
    """Structured and random datasets with their first or last record replaced by each tried value, and
    for vector records, one record turned between orthogonal directions (:meth:`Datasets.unit_replacements`)."""
    pairs = list(domain.unit_replacements())
    for base in domain.structured() + domain.random(rng, random):
        for i in (0, len(base) - 1):
            for value in domain.record_values():
                other = base.copy()
                other[i] = value
                if not np.array_equal(other, base):
                    pairs.append((base, other))
    return _unique(pairs)


def _unique(pairs: list[Pair]) -> list[Pair]:
    seen: set[bytes] = set()
    out = []
    for d0, d1 in pairs:
        key = repr((np.asarray(d0).tolist(), np.asarray(d1).tolist())).encode()
        if key not in seen:
            seen.add(key)
            out.append((d0, d1))
    return out


def one_changed(base: Any, first: Any, second: Any, index: int = 0) -> Pair:
    """Two copies of ``base`` (an array whose first axis is records, users, rounds or observations)
    in which record ``index`` is ``first`` in one and ``second`` in the other: the pair every
    replace-one relation (one record, one user, one round's reward vector) is about, for hand-picked
    pairs a search would not try (a changed record inside the data, or a worst case known from the
    analysis). ``first`` and ``second`` broadcast to one record's shape."""
    a = np.array(base, dtype=float)
    b = a.copy()
    a[index], b[index] = first, second
    return a, b


@dataclass(frozen=True)
class NeighbourSearch:
    """A relation over a declared input domain: ``audit_privacy(neighbours=relation.over(domain))``
    audits the candidate pairs the relation generates there (``random`` of them random)."""

    relation: NeighbourRelation
    domain: Any
    random: int = 16

    def pairs(self, rng: np.random.Generator) -> list[Pair]:
        pairs = self.relation.candidates(self.domain, rng, self.random)
        for d0, d1 in pairs:
            self.relation.check(d0, d1)
        return [(_plain(d0), _plain(d1)) for d0, d1 in pairs]

    def to_dict(self) -> dict[str, Any]:
        return {**self.relation.to_dict(), "domain": repr(self.domain), "random_pairs": self.random}

    def describe(self) -> str:
        return f"{self.relation.describe()}, searched over {self.domain!r}"


def _plain(x: Any) -> Any:
    """Candidate inputs as plain Python values, so witnesses and records stay JSON."""
    arr = np.asarray(x)
    return arr.item() if arr.ndim == 0 else arr.tolist()
