"""Hypothesis strategies for neighbouring inputs, and a sensitivity search built on them.

- :func:`neighbouring` draws pairs ``(x, x2)`` that are neighbours under one of dpaudit's relations over a
  declared domain, for a user's own property tests (``@given(neighbouring(ReplaceOne(), Datasets(5)))``);
- :func:`inputs` draws one input of a domain;
- :func:`audit_sensitivity` searches for neighbours whose query outputs differ by more than a claimed
  sensitivity and returns the shrunk witness.

Supported relations and domains (the pairs the relation's ``check`` accepts, drawn from hypothesis primitives
so that a failing example shrinks):

- :class:`~dpaudit.core.neighbours.ReplaceOne` and :class:`~dpaudit.core.neighbours.ReplaceUser` over
  :class:`~dpaudit.core.domains.Datasets`: ``size`` records, one of them replaced by a different record;
- :class:`~dpaudit.core.neighbours.AddRemoveOne` over ``Datasets``: a dataset of ``size`` records and the same
  with one record removed or one added (at any position), in either order;
- :class:`~dpaudit.core.neighbours.ReplaceRewardVector` over a rounds x arms :class:`~dpaudit.core.domains.Box`
  (or ``Datasets(rounds, Box(..., shape=(arms,)))``): one round's reward vector replaced by a different one;
- :class:`~dpaudit.core.neighbours.QueryDistance` over a ``Box``: every coordinate moved by at most the
  sensitivity (or, with ``one_coordinate``, one coordinate), both points in the box.

Choices where nothing dictates one: the pair never holds the same input twice (an identical pair passes
``check`` but shows no difference); records are floats in [low, high] without NaN or infinity (integers for an
integer box), and categories are drawn by index, so they shrink towards the first category; a dataset for
``AddRemoveOne`` has ``size`` records and its neighbour ``size - 1`` or ``size + 1``.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from random import Random
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, find, settings, target
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir, storage_directory
from hypothesis.errors import NoSuchExample

from .core.domains import Box, Datasets
from .core.errors import InvalidClaim, NotNeighbours
from .core.neighbours import (
    AddRemoveOne,
    NeighbourRelation,
    NeighbourSearch,
    QueryDistance,
    ReplaceOne,
    ReplaceRewardVector,
    ReplaceUser,
    parse_relation,
)

__all__ = ["SUPPORTED", "SensitivityResult", "audit_sensitivity", "inputs", "neighbouring"]

SUPPORTED = {
    ReplaceOne: "Datasets",
    ReplaceUser: "Datasets",
    AddRemoveOne: "Datasets",
    ReplaceRewardVector: "a rounds x arms Box, or Datasets of Box records",
    QueryDistance: "Box",
}

NORMS = {"l1": 1.0, "1": 1.0, "l2": 2.0, "2": 2.0, "linf": math.inf, "inf": math.inf}

# -- single inputs ------------------------------------------------------------------------------------------


def _box_values(box: Box, count: int) -> st.SearchStrategy[list[Any]]:
    """``count`` entries of ``box`` as a list (each shrinks on its own)."""
    if box.integer:
        element: st.SearchStrategy[Any] = st.integers(int(box.low), int(box.high))
    else:
        element = st.floats(float(box.low), float(box.high), allow_nan=False, allow_infinity=False)
    return st.lists(element, min_size=count, max_size=count)


def _box(box: Box) -> st.SearchStrategy[Any]:
    size = int(np.prod(box.shape)) if box.shape != () else 1
    return _box_values(box, size).map(lambda v: box.cast(np.asarray(v).reshape(box.shape)))


def _record(domain: Datasets) -> st.SearchStrategy[Any]:
    """One record: a point of the record box, or a category's index (shrinks towards the first)."""
    if isinstance(domain.record, Box):
        return _box(domain.record).map(np.asarray)
    return st.integers(0, len(domain.record) - 1)


def _dataset(domain: Datasets, records: list[Any]) -> np.ndarray:
    if isinstance(domain.record, Box):
        return np.asarray(records, dtype=np.int64 if domain.record.integer else float).reshape(
            len(records), *domain.record.shape)
    return np.asarray([domain.record[i] for i in records])


def inputs(domain: Any) -> st.SearchStrategy[Any]:
    """One input of ``domain``: a point of a :class:`Box` (a float or int for a scalar box, else an array), or a
    dataset of a :class:`Datasets` domain (an array whose first axis is the records)."""
    if isinstance(domain, Box):
        return _box(domain)
    if isinstance(domain, Datasets):
        return st.lists(_record(domain), min_size=domain.size, max_size=domain.size).map(
            lambda rs: _dataset(domain, rs))
    raise NotNeighbours(f"inputs() draws from a Box or Datasets domain, not {type(domain).__name__}")


# -- pairs ----------------------------------------------------------------------------------------------------


def _distinct_record(domain: Datasets, draw: Any, old: Any) -> Any:
    """A record different from ``old``: for categories, another index (shifted past ``old``, so it shrinks
    towards the first category that is not ``old``); for a box, a point of the box that is not ``old``."""
    if not isinstance(domain.record, Box):
        j = draw(st.integers(0, len(domain.record) - 2))
        return j + (j >= old)
    if domain.record.width == 0:
        raise NotNeighbours(f"the record box {domain.record!r} holds one record: no two records differ")
    return draw(_record(domain).filter(lambda r: not np.array_equal(r, old)))


@st.composite
def _replace_one(draw: Any, domain: Datasets) -> tuple[np.ndarray, np.ndarray]:
    records = draw(st.lists(_record(domain), min_size=domain.size, max_size=domain.size))
    i = draw(st.integers(0, domain.size - 1))
    other = list(records)
    other[i] = _distinct_record(domain, draw, records[i])
    return _dataset(domain, records), _dataset(domain, other)


@st.composite
def _add_remove_one(draw: Any, domain: Datasets) -> tuple[np.ndarray, np.ndarray]:
    records = draw(st.lists(_record(domain), min_size=domain.size, max_size=domain.size))
    add = draw(st.booleans())
    if add:
        i = draw(st.integers(0, domain.size))
        other = records[:i] + [draw(_record(domain))] + records[i:]
    else:
        i = draw(st.integers(0, domain.size - 1))
        other = records[:i] + records[i + 1 :]
    pair = (_dataset(domain, records), _dataset(domain, other))
    return pair[::-1] if draw(st.booleans()) else pair


@st.composite
def _replace_row(draw: Any, box: Box) -> tuple[Any, Any]:
    """A rounds x arms box: one row replaced by a different row."""
    rows, width = box.shape[0], int(np.prod(box.shape[1:]))
    table = np.asarray(draw(_box_values(box, rows * width))).reshape(rows, width)
    i = draw(st.integers(0, rows - 1))
    if box.width == 0:
        raise NotNeighbours(f"the box {box!r} holds one point: no two reward vectors differ")
    new = draw(_box_values(box, width).filter(lambda r: not np.array_equal(r, table[i])))
    other = table.copy()
    other[i] = new
    return box.cast(table.reshape(box.shape)), box.cast(other.reshape(box.shape))


def _within(x: np.ndarray, s: float, box: Box) -> tuple[np.ndarray, np.ndarray]:
    """Per-coordinate bounds [lo, hi] of the points within ``s`` of ``x`` in ``box``, narrowed by a few ulps
    where rounding would put ``|x2 - x|`` above ``s`` (1.1 - 0.1 > 1 in floating point)."""
    lo = np.maximum(box.low, x - s)
    hi = np.minimum(box.high, x + s)
    for _ in range(4):
        lo = np.where(np.abs(lo - x) > s, np.nextafter(lo, x), lo)
        hi = np.where(np.abs(hi - x) > s, np.nextafter(hi, x), hi)
    return lo, hi


@st.composite
def _query_distance(draw: Any, relation: QueryDistance, box: Box) -> tuple[Any, Any]:
    size = int(np.prod(box.shape)) if box.shape != () else 1
    step = math.floor(relation.sensitivity) if box.integer else relation.sensitivity
    if step <= 0 or box.width == 0:
        raise NotNeighbours(f"query-distance: the box [{box.low}, {box.high}] has no room for a change of at "
                            f"most {relation.sensitivity:g}")
    x = np.asarray(draw(_box_values(box, size)), dtype=float)
    lo, hi = _within(x, step, box)
    coords = [draw(st.integers(0, size - 1))] if relation.one_coordinate else list(range(size))

    def entry(i: int) -> st.SearchStrategy[Any]:
        if box.integer:
            return st.integers(int(math.ceil(lo[i])), int(math.floor(hi[i])))
        return st.floats(float(lo[i]), float(hi[i]), allow_nan=False, allow_infinity=False)

    moved = draw(st.tuples(*[entry(i) for i in coords]).filter(lambda v: not np.array_equal(v, x[coords])))
    other = x.copy()
    other[coords] = moved
    return box.cast(x.reshape(box.shape)), box.cast(other.reshape(box.shape))


def neighbouring(relation: NeighbourRelation | NeighbourSearch | str, domain: Any = None) -> st.SearchStrategy:
    """A strategy drawing pairs ``(x, x2)`` of different inputs that are neighbours under ``relation`` over
    ``domain`` (``relation.check(x, x2)`` passes for every pair).

    ``relation`` is a relation object, a relation string (``"replace-one"``, as ``dpaudit audit`` takes it), or
    ``relation.over(domain)``, which carries its domain (then ``domain`` is left out). The supported relations
    and domains are in :data:`SUPPORTED` and the module docstring; any other raises
    :class:`~dpaudit.NotNeighbours` saying which are."""
    relation, domain = _resolve(relation, domain)
    if isinstance(relation, ReplaceUser) and relation.batch_size is not None and isinstance(domain, Datasets) \
            and domain.size != relation.batch_size:
        raise NotNeighbours(f"replace-user: the domain's batches hold {domain.size} users, not "
                            f"{relation.batch_size}")
    if isinstance(relation, (ReplaceOne, ReplaceUser)) and isinstance(domain, Datasets):
        return _replace_one(domain)
    if isinstance(relation, AddRemoveOne) and isinstance(domain, Datasets):
        return _add_remove_one(domain)
    if isinstance(relation, ReplaceRewardVector):
        if isinstance(domain, Box) and len(domain.shape) == 2:
            return _replace_row(domain)
        if isinstance(domain, Datasets):
            return _replace_one(domain)
    if isinstance(relation, QueryDistance) and isinstance(domain, Box):
        return _query_distance(relation, domain)
    supported = "; ".join(f"{cls.__name__} over {where}" for cls, where in SUPPORTED.items())
    raise NotNeighbours(f"no strategy for {type(relation).__name__} over {type(domain).__name__} "
                        f"({domain!r}); supported: {supported}")


def _resolve(relation: Any, domain: Any) -> tuple[NeighbourRelation, Any]:
    if isinstance(relation, str):
        relation = parse_relation(relation)
    if isinstance(relation, NeighbourSearch):
        if domain is not None and domain != relation.domain:
            raise NotNeighbours(f"the relation is already over {relation.domain!r}; got a second domain {domain!r}")
        relation, domain = relation.relation, relation.domain
    if isinstance(relation, type) and issubclass(relation, NeighbourRelation):
        raise TypeError(f"pass a relation object, e.g. {relation.__name__}(), not the class")
    if not isinstance(relation, NeighbourRelation):
        raise TypeError(f"relation must be a NeighbourRelation, its string, or relation.over(domain); got {relation!r}")
    if domain is None:
        raise NotNeighbours(f"{relation.name}: give the input domain (a Box or Datasets), or relation.over(domain)")
    if not isinstance(domain, (Box, Datasets)):
        raise NotNeighbours(f"the domain must be a Box or Datasets, got {domain!r}")
    return relation, domain


# -- the sensitivity search -------------------------------------------------------------------------------------


@dataclass
class SensitivityResult:
    """What :func:`audit_sensitivity` found.

    ``found``: a pair of neighbours whose outputs are further apart than ``bound``. Then ``pair`` is the
    witness hypothesis shrank to (the simplest failing pair it reached), ``outputs`` the query's outputs on it
    and ``distance`` their distance in ``norm``. Otherwise ``pair``, ``outputs`` and ``distance`` are those of
    the furthest-apart pair the search met (``None`` if it met none), for the record. ``examples`` counts the
    pairs evaluated, shrinking included."""

    found: bool
    bound: float
    norm: str
    relation: str
    pair: tuple[Any, Any] | None = None
    outputs: tuple[Any, Any] | None = None
    distance: float | None = None
    examples: int = 0
    seed: int = 0
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        if self.found:
            head = f"sensitivity {self.bound!r} ({self.norm}) refuted: distance {self.distance!r}"
        else:
            seen = "" if self.distance is None else f"; largest distance seen {self.distance!r}"
            head = f"sensitivity {self.bound!r} ({self.norm}) not refuted in {self.examples} pairs{seen}"
        if self.pair is None:
            return head
        x, x2 = (_plain(v) for v in self.pair)
        y, y2 = (_plain(v) for v in self.outputs)
        return f"{head}\n  x  = {x} -> {y}\n  x' = {x2} -> {y2}"

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("found", "bound", "norm", "relation", "distance", "examples", "seed",
                                              "notes")}
        out["pair"] = None if self.pair is None else [_plain(v) for v in self.pair]
        out["outputs"] = None if self.outputs is None else [_plain(v) for v in self.outputs]
        return out


def _plain(x: Any) -> Any:
    arr = np.asarray(x)
    return arr.item() if arr.ndim == 0 else arr.tolist()


def _find_without_files(strategy: st.SearchStrategy, condition: Callable[[Any], bool], config: settings,
                        seed: int) -> Any:
    """``hypothesis.find`` with hypothesis' storage directory moved to a temporary one for the call: besides its
    example database (off here), hypothesis caches the constants it reads from the caller's source files there,
    which would otherwise write a ``.hypothesis`` folder into the user's working directory. Not thread-safe (the
    storage directory is a process-wide setting); restored afterwards."""
    previous = storage_directory(intent_to_write=False).home_directory
    with tempfile.TemporaryDirectory(prefix="dpaudit-hypothesis-") as home:
        set_hypothesis_home_dir(home)
        try:
            return find(strategy, condition, settings=config, random=Random(seed))
        finally:
            set_hypothesis_home_dir(previous)


def _norm_order(norm: Any) -> tuple[str, float]:
    key = str(norm).lower().replace("_", "")
    if isinstance(norm, (int, float)) and not isinstance(norm, bool):
        key = "inf" if norm == math.inf else str(int(norm)) if norm in (1, 2) else key
    if key not in NORMS:
        raise InvalidClaim(f"norm must be 'l1', 'l2' or 'linf' (or 1, 2, math.inf), got {norm!r}")
    order = NORMS[key]
    return {1.0: "l1", 2.0: "l2", math.inf: "linf"}[order], order


def audit_sensitivity(query: Callable[[Any], Any], relation: NeighbourRelation | NeighbourSearch | str,
                      domain: Any = None, bound: float | None = None, *, norm: Any = "l1",
                      max_examples: int = 1000, seed: int = 0, rtol: float = 1e-9) -> SensitivityResult:
    """Search for neighbours ``x, x2`` (under ``relation`` over ``domain``, drawn by :func:`neighbouring`) with
    ``||query(x) - query(x2)|| > bound`` in ``norm`` (``"l1"``, ``"l2"`` or ``"linf"``). With
    ``relation.over(domain)`` the domain is left out: ``audit_sensitivity(query, relation.over(domain), bound)``.

    The search is hypothesis' (:func:`hypothesis.find`): ``max_examples`` pairs, guided towards larger
    distances (:func:`hypothesis.target`), then a failing pair shrunk to the simplest one hypothesis reaches.
    It is reproducible from ``seed`` and writes no example database (``database=None``). Not finding a pair
    is evidence, not a proof, that the sensitivity holds.

    Floating point: a query's outputs carry rounding error (``sum`` of [0.1, 1.0] minus ``sum`` of [0.1, 0.0]
    is 1.0000000000000002), so a distance counts as an excess only above
    ``bound + rtol * max(bound, ||query(x)||, ||query(x2)||)``; ``rtol=0`` counts every excess. The query's
    outputs must be finite numbers of the same shape on both inputs (else ``ValueError``)."""
    if isinstance(relation, NeighbourSearch) and bound is None and not isinstance(domain, (Box, Datasets)):
        domain, bound = None, domain  # audit_sensitivity(query, relation.over(domain), bound)
    norm_name, order = _norm_order(norm)
    if bound is None or isinstance(bound, bool) or not isinstance(bound, (int, float, np.integer, np.floating)) \
            or not (0 <= bound < math.inf):
        raise InvalidClaim(f"the sensitivity bound must be a finite number >= 0, got {bound!r}")
    if isinstance(max_examples, bool) or not isinstance(max_examples, (int, np.integer)) or max_examples < 1:
        raise ValueError(f"max_examples must be a positive integer, got {max_examples!r}")
    if not (isinstance(rtol, (int, float)) and 0 <= rtol < math.inf):
        raise ValueError(f"rtol must be a finite number >= 0, got {rtol!r}")
    rel, dom = _resolve(relation, domain)
    strategy = neighbouring(rel, dom)
    bound = float(bound)
    state: dict[str, Any] = {"examples": 0, "best": None}

    def measure(pair: tuple[Any, Any]) -> tuple[float, np.ndarray, np.ndarray]:
        """The outputs' distance, and the outputs as the query returned them (as arrays)."""
        raw, raw2 = np.asarray(query(pair[0])), np.asarray(query(pair[1]))
        try:
            y, y2 = raw.astype(float), raw2.astype(float)
        except (TypeError, ValueError):
            raise ValueError(f"the query must return numbers, got {raw!r} and {raw2!r}") from None
        if y.shape != y2.shape:
            raise ValueError(f"the query's outputs differ in shape on neighbours: {y.shape} and {y2.shape}")
        if not (np.all(np.isfinite(y)) and np.all(np.isfinite(y2))):
            raise ValueError(f"the query returned a non-finite output on {_plain(pair[0])} or {_plain(pair[1])}")
        return float(np.linalg.norm((y - y2).ravel(), order)), raw, raw2

    def exceeds(pair: tuple[Any, Any]) -> bool:
        distance, y, y2 = measure(pair)
        state["examples"] += 1
        if state["best"] is None or distance > state["best"][0]:
            state["best"] = (distance, pair, (y, y2))
        target(distance)
        scale = max(bound, *(float(np.linalg.norm(np.ravel(v).astype(float), order)) for v in (y, y2)))
        return distance > bound + rtol * scale

    config = settings(max_examples=int(max_examples), database=None, deadline=None, derandomize=False,
                      suppress_health_check=list(HealthCheck),
                      phases=[Phase.generate, Phase.target, Phase.shrink])
    common = {"bound": bound, "norm": norm_name, "relation": f"{rel.describe()}, over {dom!r}", "seed": seed}
    try:
        witness = _find_without_files(strategy, exceeds, config, seed)
    except NoSuchExample:
        best = state["best"]
        if best is None:
            return SensitivityResult(found=False, examples=state["examples"], **common)
        return SensitivityResult(found=False, pair=best[1], outputs=best[2], distance=best[0],
                                 examples=state["examples"], **common)
    distance, y, y2 = measure(witness)
    return SensitivityResult(found=True, pair=witness, outputs=(y, y2), distance=distance,
                             examples=state["examples"], **common)
