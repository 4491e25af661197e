"""Event families for black-box privacy audits.

Any event S separates M(d0) from M(d1): an (epsilon, delta)-DP mechanism has
P[M(d0) in S] <= e^epsilon P[M(d1) in S] + delta. A family proposes candidate events from
*selection* samples and reports how often each occurs on both sides; the auditor scores the
candidates and confirms the best one on fresh samples. The families:

- ``threshold``: {x >= t} and {x <= t} for scalar outputs, t over the pooled sample quantiles (or
  every value, for outputs on few values);
- ``cells``: outputs of up to three coordinates are cut into cells (one per value for discrete
  coordinates, quantile bins for continuous ones, so intervals and histogram bins are cells); cells
  are ranked by their estimated likelihood ratio on one half of the selection samples and the
  candidates are the top-k cells for every k, counted on the other half. For a discrete output this
  is the optimal (Neyman-Pearson) event family, up to estimation error;
- ``rows``: for vector outputs on few distinct rows (every coordinate categorical and at most
  ``MAX_ROWS`` distinct rows in the selection samples, such as the above/below/unanswered pattern of
  the sparse vector technique, whose ten coordinates ``cells`` cannot look at together), exact cells
  over whole output rows: each distinct row alone, counted on all the selection samples (the rows are
  proposed without looking at which side drew them), and the top-k sets of k >= 2 rows, ranked by their
  estimated likelihood ratio on one half of the selection samples and counted on the other half.
  This is the Neyman-Pearson family of a discrete output, up to estimation error. When every
  distinct row is seen at least ``ROW_SAMPLES`` times on average the classifier is skipped: it can
  only approximate the ranking the rows estimate directly, and it costs time and multiplicity;
- ``classifier``: for vector outputs, a logistic regression on standardised features and their
  squares learns to tell M(d0) from M(d1) on one half; the candidates are thresholds on its score,
  counted on the other half. A user's ``statistic`` (features) can replace the raw outputs;
- ``atoms``: outputs that repeat exactly (point masses, such as a mechanism that sometimes releases
  its input unchanged), which no bin or threshold isolates among continuous outputs. The atoms are
  the most frequent repeated outputs of the pooled selection samples, chosen without looking at
  which side drew them, so each single atom {x = v} is counted on all the selection samples (the
  split of an atom's draws between the sides is untouched by the choice); small sets of atoms (the
  top-k by likelihood ratio) are ranked on one half and counted on the other, as cells are. Outputs
  whose every coordinate is categorical get no atoms: their cells (or rows) already are one per value.

Candidate counts are arrays (one entry per candidate); :meth:`Candidates.event` materialises one
candidate as an :class:`Event`, which only then is applied to confirmation samples.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import MechanismError

MAX_DISCRETE_VALUES = 4096  # up to this many distinct scalar values, every value is a threshold
QUANTILE_LEVELS = 256
CATEGORICAL_LEVELS = 64  # a coordinate with at most this many values is treated as categorical
BINS_PER_COORDINATE = {1: 64, 2: 16, 3: 8}
MAX_CELL_DIMENSIONS = 3
CLASSIFIER_TRAINING = 50_000
MAX_ATOMS = 64  # most frequent repeated outputs proposed as atoms
MIN_ATOM_REPEATS = 2  # an output seen this often in the pooled selection samples is an atom
MAX_ROWS = 4096  # rows family: at most this many distinct output rows
ROW_SAMPLES = 20  # selection samples per distinct row (per side, on average) for the rows to replace the classifier
FAMILIES = ("threshold", "cells", "rows", "classifier", "atoms")


def as_features(outputs: np.ndarray, statistic: Callable[[np.ndarray], Any] | None) -> np.ndarray:
    """Outputs (or the user's features of them) as a float array of shape (n, d), always a copy: a
    mechanism (or statistic) that fills one buffer on every call would otherwise have the samples of
    one side overwritten by the next call's, and the audit would compare a side with itself."""
    n = len(outputs)
    values = outputs if statistic is None else np.asarray(statistic(outputs))
    if statistic is not None and (values.ndim not in (1, 2) or values.shape[0] != n):
        raise MechanismError(
            f"statistic returned shape {values.shape} for {n} outputs; it must map each output row to one "
            "number or to a row of features"
        )
    values = values.reshape(n, -1).astype(float)
    if statistic is not None and not np.isfinite(values).all():
        raise MechanismError("statistic returned a non-finite value")
    return values


class Event(ABC):
    """A measurable set of outputs (in feature space)."""

    @abstractmethod
    def contains(self, x: np.ndarray) -> np.ndarray:
        """Boolean membership of each row of the feature array ``x``."""

    @abstractmethod
    def describe(self) -> str:
        """A short human-readable description for witnesses."""


@dataclass(frozen=True)
class Threshold(Event):
    op: str  # ">=" or "<="
    t: float
    column: int = 0
    label: str = "x"

    def contains(self, x: np.ndarray) -> np.ndarray:
        v = x[:, self.column]
        return v >= self.t if self.op == ">=" else v <= self.t

    def describe(self) -> str:
        return f"{self.label} {self.op} {self.t!r}"


@dataclass(frozen=True)
class Binning:
    """Cells of a feature space: per coordinate either categorical levels or bin edges."""

    levels: tuple[np.ndarray | None, ...]  # sorted distinct values of a categorical coordinate
    edges: tuple[np.ndarray | None, ...]  # inner bin edges of a continuous coordinate

    @classmethod
    def fit(cls, pooled: np.ndarray) -> Binning:
        d = pooled.shape[1]
        levels, edges = [], []
        for j in range(d):
            values = np.unique(pooled[:, j])
            if len(values) <= CATEGORICAL_LEVELS:
                levels.append(values)
                edges.append(None)
            else:
                bins = BINS_PER_COORDINATE[d]
                inner = np.unique(np.quantile(pooled[:, j], np.linspace(0, 1, bins + 1)[1:-1]))
                levels.append(None)
                edges.append(inner)
        return cls(tuple(levels), tuple(edges))

    @property
    def sizes(self) -> list[int]:
        # categorical coordinates get one extra cell for values never seen at fit time
        return [len(lv) + 1 if lv is not None else len(e) + 1 for lv, e in zip(self.levels, self.edges)]

    @property
    def cells(self) -> int:
        return math.prod(self.sizes)  # a Python int: numpy's product would wrap past 2**63

    def cell_of(self, x: np.ndarray) -> np.ndarray:
        index = np.zeros(len(x), dtype=np.int64)
        for j, (lv, e, size) in enumerate(zip(self.levels, self.edges, self.sizes)):
            # a contiguous copy of the column: searching a strided column is about twice as slow
            column = np.ascontiguousarray(x[:, j])
            if lv is not None:
                coord = np.searchsorted(lv, column)
                np.minimum(coord, len(lv) - 1, out=coord)
                coord[lv[coord] != column] = len(lv)  # a value unseen at fit time
            else:
                coord = np.searchsorted(e, column, side="right")
            index *= size
            index += coord
        return index

    def row_of(self, cell: int) -> list:
        """The output row of a cell of an all-categorical binning (None for a value unseen at fit time)."""
        row = []
        for j in reversed(range(len(self.sizes))):
            cell, coord = divmod(cell, self.sizes[j])
            lv = self.levels[j]
            row.append(lv[coord].item() if coord < len(lv) else None)
        return row[::-1]

    def describe_cell(self, cell: int) -> str:
        parts = []
        for j in reversed(range(len(self.sizes))):
            cell, coord = divmod(cell, self.sizes[j])
            lv, e = self.levels[j], self.edges[j]
            if lv is not None:
                parts.append(f"x{j} = {lv[coord].item()!r}" if coord < len(lv) else f"x{j} unseen")
            else:
                lo = "-inf" if coord == 0 else f"{e[coord - 1]:.6g}"
                hi = "inf" if coord == len(e) else f"{e[coord]:.6g}"
                parts.append(f"x{j} in [{lo}, {hi})")
        return " and ".join(reversed(parts))


@dataclass(frozen=True)
class CellSet(Event):
    binning: Binning
    members: np.ndarray  # sorted cell indices

    def contains(self, x: np.ndarray) -> np.ndarray:
        return np.isin(self.binning.cell_of(x), self.members, assume_unique=False)

    def describe(self) -> str:
        shown = [self.binning.describe_cell(int(c)) for c in self.members[:5]]
        more = f" (+{len(self.members) - 5} more cells)" if len(self.members) > 5 else ""
        return f"union of {len(self.members)} cell(s): " + "; ".join(shown) + more


@dataclass(frozen=True)
class RowSet(Event):
    """Outputs equal to one of a few rows, the rows held as their keys under ``binning``."""

    binning: Binning  # every coordinate categorical
    members: np.ndarray  # sorted row keys

    def contains(self, x: np.ndarray) -> np.ndarray:
        return np.isin(self.binning.cell_of(x), self.members)

    def describe(self) -> str:
        rows = [self.binning.row_of(int(key)) for key in self.members[:5]]
        shown = [repr(r) for r in rows]
        more = f", ... (+{len(self.members) - 5} more)" if len(self.members) > 5 else ""
        return f"x in {{{', '.join(shown)}{more}}}" if len(rows) != 1 else f"x = {shown[0]}"


@dataclass(frozen=True, eq=False)
class QuadraticScore:
    """The classifier family's fitted score as the quadratic form it is: s(x) = z^T Q z + v . z + c, z = (x -
    centre) / scale.

    The pipeline (standardise, every monomial of degree 1 and 2, standardise them, logistic regression) is
    linear in the monomials, so its decision function folds into Q (upper triangular), v and c once, after the
    fit. Scored this way an output costs O(d^2) arithmetic instead of the pipeline's d^2 / 2 features built,
    copied and standardised, which took most of an audit of a wide view (the concurrent shuffle algorithm's:
    5.5 of 7.9 s). The score differs from the pipeline's by rounding only, and every threshold and every count
    of an event reads this one function."""

    centre: np.ndarray
    scale: np.ndarray
    quadratic: np.ndarray  # (d, d)
    linear: np.ndarray  # (d,)
    constant: float

    @classmethod
    def of(cls, pipeline: Any) -> QuadraticScore:
        first, monomials, second, regression = (step for _, step in pipeline.steps)
        weights = regression.coef_[0] / second.scale_
        d = first.mean_.size
        quadratic, linear = np.zeros((d, d)), np.zeros(d)
        for weight, powers in zip(weights, monomials.powers_):
            used = np.flatnonzero(powers)
            if powers.sum() == 1:
                linear[used[0]] += weight
            else:  # z_i^2, or z_i z_j for i < j
                i, j = (used[0], used[0]) if used.size == 1 else (used[0], used[1])
                quadratic[i, j] += weight
        constant = float(regression.intercept_[0] - weights @ second.mean_)
        return cls(first.mean_.copy(), first.scale_.copy(), quadratic, linear, constant)

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        z = (np.asarray(x, dtype=float) - self.centre) / self.scale
        return np.einsum("ij,ij->i", z @ self.quadratic, z) + z @ self.linear + self.constant


@dataclass(frozen=True)
class ScoreThreshold(Event):
    model: Any  # the fitted score (:class:`QuadraticScore`, or anything with a decision_function)
    op: str
    t: float

    def contains(self, x: np.ndarray) -> np.ndarray:
        s = self.model.decision_function(x)
        return s >= self.t if self.op == ">=" else s <= self.t

    def describe(self) -> str:
        return f"logistic-regression score {self.op} {self.t:.6g} (quadratic features)"


@dataclass(frozen=True)
class AtomSet(Event):
    """Outputs equal, in every coordinate, to one of a few values."""

    values: np.ndarray  # shape (k, d)

    def contains(self, x: np.ndarray) -> np.ndarray:
        if x.shape[1] == 1:
            return np.isin(x[:, 0], self.values[:, 0])
        inside = np.zeros(len(x), dtype=bool)
        for value in self.values:
            inside |= np.all(x == value, axis=1)
        return inside

    def describe(self) -> str:
        if len(self.values) == 0:
            return "no output (no output repeated in the selection samples)"
        shown = [repr(v[0].item()) if len(v) == 1 else repr(v.tolist()) for v in self.values[:5]]
        if len(self.values) == 1:
            return f"x = {shown[0]}"
        more = f", ... (+{len(self.values) - 5} more)" if len(self.values) > 5 else ""
        return f"x in {{{', '.join(shown)}{more}}}"


@dataclass
class Candidates:
    """Candidate events of one family: selection counts on each side out of ``n`` per side."""

    family: str
    counts0: np.ndarray
    counts1: np.ndarray
    n: int
    event: Callable[[int], Event]

    def __len__(self) -> int:
        return len(self.counts0)


def _threshold_values(pooled: np.ndarray) -> np.ndarray:
    values = np.unique(pooled)
    if len(values) <= MAX_DISCRETE_VALUES:
        return values
    # geometric levels reach into both tails; uniform ones cover the bulk, where the frequent
    # events that give the tightest bounds live
    tail = np.geomspace(1.0 / len(pooled), 0.5, QUANTILE_LEVELS // 2)
    levels = np.unique(np.concatenate([tail, 1.0 - tail, np.linspace(0, 1, QUANTILE_LEVELS + 1)[1:-1]]))
    return np.unique(np.quantile(pooled, levels, method="inverted_cdf"))


def _threshold_candidates(s0: np.ndarray, s1: np.ndarray, family: str,
                          make: Callable[[str, float], Event]) -> Candidates:
    """Candidates {s >= t} and {s <= t} for scalar scores s (vectorised via sorting)."""
    t = _threshold_values(np.concatenate([s0, s1]))
    a, b = np.sort(s0), np.sort(s1)
    ge0, ge1 = len(a) - np.searchsorted(a, t, "left"), len(b) - np.searchsorted(b, t, "left")
    le0, le1 = np.searchsorted(a, t, "right"), np.searchsorted(b, t, "right")
    m = len(t)

    def event(i: int) -> Event:
        return make(">=", float(t[i])) if i < m else make("<=", float(t[i - m]))

    return Candidates(family, np.concatenate([ge0, le0]), np.concatenate([ge1, le1]), len(s0), event)


def threshold_candidates(x0: np.ndarray, x1: np.ndarray) -> Candidates:
    return _threshold_candidates(x0[:, 0], x1[:, 0], "threshold", lambda op, t: Threshold(op, t))


def _halves(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = len(x) // 2
    return x[:h], x[h:]


def cell_candidates(x0: np.ndarray, x1: np.ndarray) -> Candidates:
    """Top-k cells by estimated likelihood ratio (ranked on one half, counted on the other)."""
    (a0, b0), (a1, b1) = _halves(x0), _halves(x1)
    binning = Binning.fit(np.concatenate([a0, a1]))
    cells = binning.cells
    fit0 = np.bincount(binning.cell_of(a0), minlength=cells)
    fit1 = np.bincount(binning.cell_of(a1), minlength=cells)
    seen = np.flatnonzero(fit0 + fit1)
    ratio = np.log(fit0[seen] + 0.5) - np.log(fit1[seen] + 0.5)
    descending = seen[np.argsort(-ratio, kind="stable")]
    cnt0 = np.bincount(binning.cell_of(b0), minlength=cells)
    cnt1 = np.bincount(binning.cell_of(b1), minlength=cells)
    orders = (descending, descending[::-1])
    counts0 = np.concatenate([np.cumsum(cnt0[o]) for o in orders])
    counts1 = np.concatenate([np.cumsum(cnt1[o]) for o in orders])
    m = len(descending)

    def event(i: int) -> Event:
        order, k = (orders[0], i + 1) if i < m else (orders[1], i - m + 1)
        return CellSet(binning, np.sort(order[:k]))

    return Candidates("cells", counts0, counts1, len(b0), event)


def _row_binning(pooled: np.ndarray) -> Binning | None:
    """Exact cells over whole rows, if every coordinate is categorical and the keys fit in int64."""
    levels = []
    for column in pooled.T:
        values = np.unique(column)
        if len(values) > CATEGORICAL_LEVELS:
            return None
        levels.append(values)
    binning = Binning(tuple(levels), (None,) * len(levels))
    # a key is a mixed-radix number over the coordinates, 0 .. prod(sizes) - 1: it must fit in int64
    if math.prod(binning.sizes) > 2**63:
        return None
    return binning


def row_candidates(x0: np.ndarray, x1: np.ndarray) -> list[Candidates]:
    """Single distinct output rows counted on all selection samples, and top-k sets of rows by estimated
    likelihood ratio (ranked on one half, counted on the other); no candidates when the outputs are not on
    few distinct rows.

    The single rows are every row of the pooled samples, proposed without looking at which side drew them, so
    they are counted on every selection sample, as single atoms are: twice the samples of a ranked half. That
    matters where the best event is one row and the pairs compete closely (the sparse vector technique's
    half-half pair against its X-shaped one, a value 0.04 apart at the confirmation size)."""
    binning = _row_binning(np.concatenate([x0, x1]))
    if binning is None:
        return []
    key0, key1 = binning.cell_of(x0), binning.cell_of(x1)
    rows, inverse = np.unique(np.concatenate([key0, key1]), return_inverse=True)
    if len(rows) > MAX_ROWS:
        return []
    singles = Candidates("rows", np.bincount(inverse[: len(x0)], minlength=len(rows)),
                         np.bincount(inverse[len(x0):], minlength=len(rows)), len(x0),
                         lambda i: RowSet(binning, rows[i:i + 1]))
    if len(rows) == 1:
        return [singles]
    # the halves by their rows' indices among ``rows``
    (a0, b0), (a1, b1) = _halves(inverse[: len(x0)]), _halves(inverse[len(x0):])
    fit0, fit1 = np.bincount(a0, minlength=len(rows)), np.bincount(a1, minlength=len(rows))
    ratio = np.log(fit0 + 0.5) - np.log(fit1 + 0.5)
    descending = np.argsort(-ratio, kind="stable")
    cnt0, cnt1 = np.bincount(b0, minlength=len(rows)), np.bincount(b1, minlength=len(rows))
    # sets of two or more rows: the single ones are already candidates, on more samples
    orders = (descending, descending[::-1])
    counts0 = np.concatenate([np.cumsum(cnt0[o])[1:] for o in orders])
    counts1 = np.concatenate([np.cumsum(cnt1[o])[1:] for o in orders])
    m = len(rows) - 1

    def event(i: int) -> Event:
        order, k = (orders[0], i + 2) if i < m else (orders[1], i - m + 2)
        return RowSet(binning, np.sort(rows[order[:k]]))

    return [singles, Candidates("rows", counts0, counts1, len(b0), event)]


def rows_are_exhaustive(found: list[Candidates], n: int) -> bool:
    """Whether the rows family applied with enough samples per row to make the classifier redundant."""
    rows = [c for c in found if c.family == "rows"]
    return bool(rows) and len(rows[0]) * ROW_SAMPLES <= n  # the first is the single rows, one per distinct row


def classifier_candidates(x0: np.ndarray, x1: np.ndarray) -> Candidates:
    """Thresholds on a logistic-regression score trained on one half, counted on the other."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    (a0, b0), (a1, b1) = _halves(x0), _halves(x1)
    model = make_pipeline(
        StandardScaler(), PolynomialFeatures(degree=2, include_bias=False), StandardScaler(),
        LogisticRegression(max_iter=500),
    )
    # the fit's cost grows with its data while its quality saturates: train on at most
    # CLASSIFIER_TRAINING outputs per side (the scored half keeps all its samples)
    a0, a1 = a0[:CLASSIFIER_TRAINING], a1[:CLASSIFIER_TRAINING]
    train = np.concatenate([a0, a1])
    labels = np.concatenate([np.ones(len(a0)), np.zeros(len(a1))])
    model.fit(train, labels)
    score = QuadraticScore.of(model)
    return _threshold_candidates(
        score.decision_function(b0), score.decision_function(b1), "classifier",
        lambda op, t: ScoreThreshold(score, op, t),
    )


#: multiplier of the row hash (an odd 64-bit constant, the golden ratio's; any odd one would do: the hash only
#: groups rows, and every group is checked for equality before it is used)
_ROW_HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def _unique_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of a 2-D array: (index of each one's first occurrence, each row's group, each group's
    size), grouped exactly as ``np.unique(x, axis=0)`` groups them (by value: -0.0 with 0.0), groups in no
    particular order.

    ``np.unique(axis=0)`` sorts the rows as records, which on selection samples of long rows cost most of a
    sequential audit's time; a 64-bit hash of each row's bytes sorts as one number, and every row is then
    compared with its group's first to make the grouping exact (on a collision, or on NaN, whose grouping
    ``np.unique`` decides, the records are sorted as before)."""
    if x.ndim != 2 or x.dtype not in (np.float64, np.int64) or (x.dtype == np.float64 and np.isnan(x).any()):
        return _unique_rows_sorted(x)
    canonical = np.ascontiguousarray(x + x.dtype.type(0))  # -0.0 + 0.0 is 0.0: equal values, equal bytes
    words = canonical.view(np.uint64).reshape(len(x), -1)
    hashed = np.zeros(len(x), dtype=np.uint64)
    for column in words.T:  # wraps modulo 2^64
        hashed = (hashed ^ column) * _ROW_HASH_MULTIPLIER
    _, first, inverse, counts = np.unique(hashed, return_index=True, return_inverse=True, return_counts=True)
    if not np.array_equal(canonical[first[inverse]], canonical):
        return _unique_rows_sorted(x)
    return first, inverse.reshape(-1), counts


def _unique_rows_sorted(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _, first, inverse, counts = np.unique(x, axis=0, return_index=True, return_inverse=True, return_counts=True)
    return first, inverse.reshape(-1), counts


def _atom_counts(values: np.ndarray, x: np.ndarray) -> np.ndarray:
    """How often each row of ``values`` occurs exactly among the rows of ``x``."""
    first, inverse, _ = _unique_rows(np.concatenate([values, x]))
    counts = np.bincount(inverse[len(values):], minlength=len(first))
    return counts[inverse[: len(values)]]


def atom_candidates(x0: np.ndarray, x1: np.ndarray) -> list[Candidates]:
    """Single atoms counted on all selection samples, and top-k sets of atoms ranked on one half."""
    pooled = np.concatenate([x0, x1])
    # the column check stops at the first continuous column, and it goes first: finding the
    # repeated rows hashes and compares every row, which on long categorical rows costs more than all the rest
    if all(len(np.unique(column)) <= CATEGORICAL_LEVELS for column in pooled.T):
        return []
    first, _, pooled_counts = _unique_rows(pooled)
    repeated = np.flatnonzero(pooled_counts >= MIN_ATOM_REPEATS)
    if len(repeated) == 0:  # continuous outputs never repeat
        return []
    values = pooled[first[repeated]]
    ascending = np.lexsort(values.T[::-1])  # the rows in lexicographic order, as np.unique(axis=0) lists them
    values, repeats = values[ascending], pooled_counts[repeated][ascending]
    # the most frequent first; ties (equal counts) keep the lexicographic order, so this is deterministic
    atoms = values[np.argsort(-repeats, kind="stable")[:MAX_ATOMS]]
    singles = Candidates("atoms", _atom_counts(atoms, x0), _atom_counts(atoms, x1), len(x0),
                         lambda i: AtomSet(atoms[i:i + 1]))
    if len(atoms) == 1:
        return [singles]
    (a0, b0), (a1, b1) = _halves(x0), _halves(x1)
    ratio = np.log(_atom_counts(atoms, a0) + 0.5) - np.log(_atom_counts(atoms, a1) + 0.5)
    descending = np.argsort(-ratio, kind="stable")
    cnt0, cnt1 = _atom_counts(atoms, b0), _atom_counts(atoms, b1)
    # sets of two or more atoms: the single ones are already candidates, on more samples
    orders = (descending, descending[::-1])
    counts0 = np.concatenate([np.cumsum(cnt0[o])[1:] for o in orders])
    counts1 = np.concatenate([np.cumsum(cnt1[o])[1:] for o in orders])
    m = len(atoms) - 1

    def atom_set(i: int) -> Event:
        order, k = (orders[0], i + 2) if i < m else (orders[1], i - m + 2)
        return AtomSet(atoms[np.sort(order[:k])])

    return [singles, Candidates("atoms", counts0, counts1, len(b0), atom_set)]


def default_families(dimension: int) -> tuple[str, ...]:
    if dimension == 1:
        return ("threshold", "cells", "atoms")
    if dimension <= MAX_CELL_DIMENSIONS:
        return ("cells", "classifier", "atoms")
    return ("rows", "classifier", "atoms")


BUILDERS: dict[str, Callable[[np.ndarray, np.ndarray], Candidates | list[Candidates]]] = {
    "threshold": threshold_candidates,
    "cells": cell_candidates,
    "rows": row_candidates,
    "classifier": classifier_candidates,
    "atoms": atom_candidates,
}


def candidates(x0: np.ndarray, x1: np.ndarray, families: tuple[str, ...]) -> list[Candidates]:
    """Every candidate event of ``families`` on one pair's selection features."""
    d = x0.shape[1]
    out = []
    # rows go first, so that the classifier can be skipped where they already are the optimal family
    for name in sorted(families, key=lambda f: f != "rows"):
        if name == "threshold" and d != 1:
            continue
        if name == "cells" and d > MAX_CELL_DIMENSIONS:
            continue
        if name == "classifier" and rows_are_exhaustive(out, len(x0)):
            continue
        built = BUILDERS[name](x0, x1)
        out += built if isinstance(built, list) else [built]
    if not out:
        # only atoms were asked for and no output repeats: the empty event, which refutes nothing
        out.append(Candidates("atoms", np.zeros(1, dtype=int), np.zeros(1, dtype=int), len(x0),
                              lambda i: AtomSet(np.empty((0, d)))))
    return out
