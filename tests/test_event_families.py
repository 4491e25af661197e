"""The black-box auditor's event families (dpaudit/auditors/events.py), written out on small fixed arrays.

Every expected value is recomputed here from the rule the module documents (counted with Python
comprehensions, or written out in the docstring), not by calling the function under test. No test samples a
mechanism or draws random numbers, so none can fail by chance (the hypothesis tests run the seeded profile).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.auditors import events
from dpaudit.auditors.events import (
    AtomSet,
    Binning,
    Candidates,
    CellSet,
    RowSet,
    ScoreThreshold,
    Threshold,
    _atom_counts,
    _halves,
    _row_binning,
    _threshold_candidates,
    _threshold_values,
    _unique_rows,
    _unique_rows_sorted,
    as_features,
    atom_candidates,
    candidates,
    cell_candidates,
    classifier_candidates,
    default_families,
    row_candidates,
    rows_are_exhaustive,
    threshold_candidates,
)
from dpaudit.core.errors import MechanismError


def column(*values) -> np.ndarray:
    """Scalar outputs as an (n, 1) feature array."""
    return np.array(values, dtype=float)[:, None]


def rows(*values) -> np.ndarray:
    return np.array(values, dtype=float)


def top_and_bottom_counts(order: list, sample: list) -> list[int]:
    """How many of ``sample`` fall in the top-k of ``order`` for k = 1..m, then in the bottom-k."""
    return ([sum(v in order[:k] for v in sample) for k in range(1, len(order) + 1)]
            + [sum(v in order[::-1][:k] for v in sample) for k in range(1, len(order) + 1)])


# --------------------------------------------------------------------------------------------- as_features


def test_outputs_become_a_float_array_with_one_row_per_output():
    """Without a statistic, scalar outputs become one feature column, vectors stay rows, and outputs of more
    dimensions are flattened per output; integers become floats (the families compare and sort floats)."""
    scalar = as_features(np.array([3, 1, 2]), None)
    assert scalar.shape == (3, 1) and scalar.dtype == np.float64
    assert scalar.tolist() == [[3.0], [1.0], [2.0]]
    vectors = as_features(np.array([[1, 2], [3, 4], [5, 6]]), None)
    assert vectors.dtype == np.float64 and vectors.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    matrices = as_features(np.arange(12).reshape(3, 2, 2), None)
    assert matrices.tolist() == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]


def test_features_are_a_copy_never_a_view_of_the_mechanisms_buffer():
    """A mechanism that fills one float64 buffer on every call: the features of one call must not change
    when the next call refills the buffer (with or without a statistic that returns its input)."""
    buffer = np.array([1.0, 2.0, 3.0])
    for statistic in (None, lambda out: out):
        features = as_features(buffer, statistic)
        buffer[:] = [7.0, 8.0, 9.0]
        assert features.tolist() == [[1.0], [2.0], [3.0]]
        buffer[:] = [1.0, 2.0, 3.0]


def test_raw_outputs_may_be_non_finite_but_a_statistic_may_not():
    """Only a user's statistic is checked for non-finite values: a mechanism's own outputs (an infinite
    release is a legitimate output) pass as they are."""
    raw = as_features(np.array([np.inf, np.nan, 1.0]), None)
    assert np.isinf(raw[0, 0]) and np.isnan(raw[1, 0]) and raw[2, 0] == 1.0
    with pytest.raises(MechanismError) as info:
        as_features(np.array([1.0, 2.0, 3.0]), lambda out: np.where(out > 2, np.nan, out))
    assert str(info.value) == "statistic returned a non-finite value"
    with pytest.raises(MechanismError) as info:
        as_features(np.array([1.0, 2.0]), lambda out: out * np.inf)
    assert str(info.value) == "statistic returned a non-finite value"


def test_a_statistic_maps_each_output_to_a_number_or_a_row_of_features():
    """A statistic sees all the outputs at once; one number per output gives one column, a row of features
    per output gives those columns (here the sum and the difference of three two-coordinate outputs)."""
    outputs = np.array([[1, 2], [3, 5], [8, 13]])
    assert as_features(outputs, lambda out: out.sum(axis=1)).tolist() == [[3.0], [8.0], [21.0]]
    both = as_features(outputs, lambda out: np.column_stack([out.sum(axis=1), out[:, 1] - out[:, 0]]))
    assert both.dtype == np.float64 and both.tolist() == [[3.0, 1.0], [8.0, 2.0], [21.0, 5.0]]
    # a list is accepted too (np.asarray), and a statistic returning five features for five outputs is fine
    five = np.arange(5.0)
    assert as_features(five, lambda out: [[v, v, v, v, v] for v in out]).shape == (5, 5)


def test_a_statistic_of_the_wrong_shape_is_refused_with_the_shape_it_returned():
    """Zero-dimensional, three-dimensional or wrong-length statistics are refused, the message naming the shape
    and the number of outputs, word for word."""
    outputs = np.arange(3.0)
    tail = "; it must map each output row to one number or to a row of features"
    cases = [
        (lambda out: out.sum(), "statistic returned shape () for 3 outputs" + tail),
        (lambda out: out[:, None, None], "statistic returned shape (3, 1, 1) for 3 outputs" + tail),
        (lambda out: out[:2], "statistic returned shape (2,) for 3 outputs" + tail),
        (lambda out: np.ones((4, 3)), "statistic returned shape (4, 3) for 3 outputs" + tail),
    ]
    for statistic, message in cases:
        with pytest.raises(MechanismError) as info:
            as_features(outputs, statistic)
        assert str(info.value) == message


# ------------------------------------------------------------------------------------------ simple events


def test_a_threshold_event_includes_its_threshold_and_reads_its_column():
    """{x >= t} and {x <= t} both contain t itself; ``column`` picks the feature tested; describe writes the
    label, the operator and repr(t)."""
    x = rows((0.0, 5.0), (1.0, 1.0), (2.0, -1.0), (3.0, 2.5))
    assert Threshold(">=", 1.0).contains(x).tolist() == [False, True, True, True]
    assert Threshold("<=", 1.0).contains(x).tolist() == [True, True, False, False]
    assert Threshold(">=", 2.5, column=1).contains(x).tolist() == [True, False, False, True]
    assert Threshold("<=", 1.0, column=1).contains(x).tolist() == [False, True, True, False]
    assert Threshold(">=", 0.1).describe() == "x >= 0.1"
    assert Threshold("<=", -2.0, column=1, label="count").describe() == "count <= -2.0"


def test_a_score_threshold_event_thresholds_the_models_decision_function():
    """ScoreThreshold applies its model's decision_function to the rows and keeps those at or beyond t."""

    class RowSum:  # a fitted model's decision_function: here the sum of a row
        def decision_function(self, x):
            return np.asarray(x, dtype=float).sum(axis=1)

    x = rows((0.0, 1.0), (1.0, 1.0), (2.0, 3.0), (-1.0, 0.5))
    assert ScoreThreshold(RowSum(), ">=", 2.0).contains(x).tolist() == [False, True, True, False]
    assert ScoreThreshold(RowSum(), "<=", 1.0).contains(x).tolist() == [True, False, False, True]
    assert ScoreThreshold(RowSum(), ">=", 0.123456789).describe() == (
        "logistic-regression score >= 0.123457 (quadratic features)")


def test_an_atom_set_holds_exactly_its_values():
    """Scalar atoms match by value; vector atoms only when every coordinate matches (a row matching one atom
    in one coordinate and another atom in the other is outside)."""
    scalar = AtomSet(column(1.0, 3.0))
    assert scalar.contains(column(1.0, 2.0, 3.0, 1.0, 0.0)).tolist() == [True, False, True, True, False]
    vector = AtomSet(rows((1.0, 2.0), (3.0, 4.0), (5.0, 6.0)))
    x = rows((1.0, 2.0), (1.0, 4.0), (3.0, 4.0), (2.0, 1.0), (5.0, 6.0), (3.0, 2.0))
    assert vector.contains(x).tolist() == [True, False, True, False, True, False]
    assert AtomSet(rows((3.0, 4.0))).contains(x).tolist() == [False, False, True, False, False, False]


def test_an_atom_set_describes_its_values_and_how_many_it_does_not_show():
    """No atom: the empty event; one: 'x = v'; up to five: 'x in {...}'; more: the first five and a count.
    Scalars are written as numbers, vectors as lists."""
    assert AtomSet(np.empty((0, 1))).describe() == "no output (no output repeated in the selection samples)"
    assert AtomSet(column(2.5)).describe() == "x = 2.5"
    assert AtomSet(rows((1.0, 2.0))).describe() == "x = [1.0, 2.0]"
    assert AtomSet(column(1.0, 2.0)).describe() == "x in {1.0, 2.0}"
    assert AtomSet(rows((1.0, 2.0), (3.0, 4.0))).describe() == "x in {[1.0, 2.0], [3.0, 4.0]}"
    assert AtomSet(column(0, 1, 2, 3, 4)).describe() == "x in {0.0, 1.0, 2.0, 3.0, 4.0}"
    assert AtomSet(column(0, 1, 2, 3, 4, 5)).describe() == "x in {0.0, 1.0, 2.0, 3.0, 4.0, ... (+1 more)}"
    assert AtomSet(column(*range(9))).describe() == "x in {0.0, 1.0, 2.0, 3.0, 4.0, ... (+4 more)}"


# ---------------------------------------------------------------------------------------------- Binning


def test_a_coordinate_of_up_to_64_values_gets_one_level_per_value():
    """Categorical coordinates keep their sorted distinct values as levels (no edges); 64 values are still
    categorical. Each gets one extra cell for values unseen at fit time."""
    pooled = np.column_stack([np.arange(64.0)[::-1], np.tile([2.0, -1.0], 32)])
    binning = Binning.fit(pooled)
    assert binning.edges == (None, None)
    assert binning.levels[0].tolist() == list(range(64)) and binning.levels[1].tolist() == [-1.0, 2.0]
    assert binning.sizes == [65, 3] and binning.cells == 195


def test_a_coordinate_of_65_values_is_cut_at_its_quantiles_into_64_16_or_8_bins():
    """A continuous coordinate (more than 64 values) gets inner edges at the quantiles j/B, j = 1..B-1,
    with B = 64 bins in one dimension, 16 in two and 8 in three. On the values 0..64 the quantile j/B
    (linear interpolation, position 64 j / B) is exactly 64 j / B, so the edges are 1..63, 4, 8, .., 60 and
    8, 16, .., 56. Edges that coincide are merged (a column that is mostly zeros)."""
    values = np.arange(65.0)[::-1]
    one = Binning.fit(values[:, None])
    assert one.levels == (None,) and one.edges[0].tolist() == list(range(1, 64))
    assert one.sizes == [64]
    two = Binning.fit(np.column_stack([values, np.zeros(65)]))
    assert two.levels[0] is None and two.edges[0].tolist() == list(range(4, 64, 4))
    assert two.levels[1].tolist() == [0.0] and two.edges[1] is None
    assert two.sizes == [16, 2] and two.cells == 32
    three = Binning.fit(np.column_stack([np.zeros(65), values, values]))
    assert three.edges[1].tolist() == three.edges[2].tolist() == list(range(8, 64, 8))
    assert three.sizes == [2, 8, 8]
    mostly_zero = np.concatenate([np.zeros(100), np.arange(1.0, 65.0)])[:, None]  # 65 distinct values
    edges = Binning.fit(mostly_zero).edges[0]
    expected = sorted({float(np.quantile(mostly_zero[:, 0], j / 64)) for j in range(1, 64)})
    assert edges.tolist() == expected and edges[0] == 0.0 and len(edges) < 63


def test_cell_of_numbers_cells_in_mixed_radix_over_the_coordinates():
    """Levels (0, 1, 5) (digits 0..2, digit 3 for unseen values) and edges (10, 20) (digit = how many edges
    are <= x, so a value on an edge belongs to the bin above). A cell is digit0 * 3 + digit1."""
    binning = Binning((np.array([0.0, 1.0, 5.0]), None), (None, np.array([10.0, 20.0])))
    x = rows((0, 5), (0, 10), (1, 10), (5, 20), (7, 25), (-1, 9.99), (2, 15), (5, 19.5), (1, -100))
    levels, edges = [0.0, 1.0, 5.0], [10.0, 20.0]

    def expected(a, b):
        digit0 = levels.index(a) if a in levels else len(levels)
        digit1 = sum(e <= b for e in edges)
        return digit0 * 3 + digit1

    cells = binning.cell_of(x)
    assert cells.dtype.kind == "i"
    assert cells.tolist() == [expected(a, b) for a, b in x] == [0, 1, 4, 8, 11, 9, 10, 7, 3]
    # a strided (non-contiguous) view is numbered the same
    assert binning.cell_of(np.asfortranarray(x)).tolist() == cells.tolist()


def test_row_of_inverts_an_all_categorical_cell():
    """Levels (0, 1), (5,), (-2, 3, 4): bases 3, 2, 4. Key 3 * 2 * 4 digits: key = (d0 * 2 + d1) * 4 + d2."""
    binning = Binning((np.array([0.0, 1.0]), np.array([5.0]), np.array([-2.0, 3.0, 4.0])), (None, None, None))
    assert binning.row_of(0) == [0.0, 5.0, -2.0]
    assert binning.row_of((1 * 2 + 0) * 4 + 2) == [1.0, 5.0, 4.0]
    assert binning.row_of((2 * 2 + 1) * 4 + 1) == [None, None, 3.0]
    assert binning.row_of((0 * 2 + 0) * 4 + 3) == [0.0, 5.0, None]
    assert binning.row_of(23) == [None, None, None]
    assert all(isinstance(v, float) for v in binning.row_of(9))


def test_a_cell_is_described_by_its_level_or_its_bin_per_coordinate():
    """Levels (0, 1) and edges (1/3, 1234567): a categorical digit reads 'xj = v' (or 'xj unseen'), a bin
    reads 'xj in [lo, hi)' with 6 significant digits and infinite outer ends."""
    binning = Binning((np.array([0.0, 1.0]), None), (None, np.array([1 / 3, 1234567.0])))
    assert binning.describe_cell(0) == "x0 = 0.0 and x1 in [-inf, 0.333333)"
    assert binning.describe_cell(4) == "x0 = 1.0 and x1 in [0.333333, 1.23457e+06)"
    assert binning.describe_cell(5) == "x0 = 1.0 and x1 in [1.23457e+06, inf)"
    assert binning.describe_cell(8) == "x0 unseen and x1 in [1.23457e+06, inf)"
    assert binning.describe_cell(6) == "x0 unseen and x1 in [-inf, 0.333333)"
    assert Binning((np.array([2.0]),), (None,)).describe_cell(0) == "x0 = 2.0"


# --------------------------------------------------------------------------------------- cell / row sets


def test_a_cell_set_holds_the_outputs_of_its_cells():
    """Members are cell indices; outputs in the same cell (here one cell per value) are all inside."""
    binning = Binning((np.arange(10.0),), (None,))
    event = CellSet(binning, np.array([1, 3]))
    assert event.contains(column(1, 1, 2, 3, 3, 11, 0)).tolist() == [True, True, False, True, True, False, False]
    assert CellSet(binning, np.array([10])).contains(column(11, 12, 9)).tolist() == [True, True, False]


def test_a_cell_set_is_right_when_many_outputs_share_a_cell_outside_it():
    """Twelve member cells spread over 0..110 among 201 cells, and two outputs in cell 150: neither is inside.
    (Cell indices repeat among outputs, so membership must not assume them distinct: numpy's sorting
    isin with assume_unique=True, used for a sparse member set like this one, would call the first 150 a
    member because it equals its neighbour.)"""
    binning = Binning((np.arange(200.0),), (None,))
    event = CellSet(binning, np.arange(0, 120, 10))
    assert event.contains(column(150, 150)).tolist() == [False, False]
    assert event.contains(column(150, 30, 30, 31)).tolist() == [False, True, True, False]


def test_a_cell_set_describes_up_to_five_cells_and_counts_the_rest():
    binning = Binning((np.arange(10.0),), (None,))

    def described(*cells):
        return CellSet(binning, np.array(cells)).describe()

    assert described(3) == "union of 1 cell(s): x0 = 3.0"
    assert described(1, 10) == "union of 2 cell(s): x0 = 1.0; x0 unseen"
    assert described(0, 1, 2, 3, 4) == "union of 5 cell(s): x0 = 0.0; x0 = 1.0; x0 = 2.0; x0 = 3.0; x0 = 4.0"
    assert described(0, 1, 2, 3, 4, 5) == (
        "union of 6 cell(s): x0 = 0.0; x0 = 1.0; x0 = 2.0; x0 = 3.0; x0 = 4.0 (+1 more cells)")
    assert described(*range(9)) == (
        "union of 9 cell(s): x0 = 0.0; x0 = 1.0; x0 = 2.0; x0 = 3.0; x0 = 4.0 (+4 more cells)")


def test_a_row_set_holds_exactly_its_rows_and_describes_them():
    """Levels (0, 1) and (0, 1, 2): key = d0 * 4 + d1. Members 1 = (0, 1) and 6 = (1, 2)."""
    binning = Binning((np.array([0.0, 1.0]), np.array([0.0, 1.0, 2.0])), (None, None))
    event = RowSet(binning, np.array([1, 6]))
    x = rows((0, 1), (1, 2), (1, 1), (0, 2), (0, 1), (2, 1))
    assert event.contains(x).tolist() == [True, True, False, False, True, False]
    assert event.describe() == "x in {[0.0, 1.0], [1.0, 2.0]}"
    assert RowSet(binning, np.array([6])).describe() == "x = [1.0, 2.0]"
    assert RowSet(binning, np.array([0, 1, 2, 4, 5, 6])).describe() == (
        "x in {[0.0, 0.0], [0.0, 1.0], [0.0, 2.0], [1.0, 0.0], [1.0, 1.0], ... (+1 more)}")
    assert RowSet(binning, np.array([0, 1, 2, 4, 5])).describe() == (
        "x in {[0.0, 0.0], [0.0, 1.0], [0.0, 2.0], [1.0, 0.0], [1.0, 1.0]}")
    assert RowSet(binning, np.arange(9)).describe().endswith(", ... (+4 more)}")


# --------------------------------------------------------------------------------------------- threshold


def test_every_distinct_value_is_a_threshold_up_to_4096_values():
    """Up to 4096 distinct pooled values, the thresholds are exactly the sorted distinct values."""
    assert _threshold_values(np.array([3.0, 1.0, 3.0, -2.0])).tolist() == [-2.0, 1.0, 3.0]
    many = np.arange(4096.0)[::-1]
    assert _threshold_values(many).tolist() == list(range(4096))


def test_beyond_4096_values_the_thresholds_are_sample_quantiles_reaching_into_both_tails():
    """On the 20000 values 0..19999 the thresholds are the inverted-CDF quantiles (the smallest value v with
    #{x <= v} >= q n, here ceil(q n) - 1) at: 128 geometric levels from 1/n to 1/2, their mirrors 1 - q, and
    the uniform levels j/256, j = 1..255. Written out with math.pow; q n is at least 1e-7 from an integer at
    every level where rounding could matter (checked below), so the float details agree. At this n the
    uniform levels 1/256 and 255/256 each give a threshold no other level gives (78 and 19921)."""
    n = 20_000
    geometric = [(1 / n) * math.pow(0.5 * n, i / 127) for i in range(128)]
    levels = sorted(set(geometric + [1 - q for q in geometric] + [j / 256 for j in range(1, 256)]))
    close = [q for q in levels if 1e-12 < abs(q * n - round(q * n)) < 1e-7]
    assert close == []
    expected = sorted({math.ceil(q * n - 1e-9) - 1 for q in levels})
    values = _threshold_values(np.arange(float(n))[::-1])
    assert values.tolist() == expected
    # the extreme levels 1/n and 1 - 1/n give the smallest value and the second largest
    assert values[0] == 0.0 and values[-1] == n - 2
    assert 78.0 in values and 19921.0 in values


def test_threshold_candidates_count_each_side_at_or_beyond_every_threshold():
    """Side 0 = 3, 1, 0, 1 and side 1 = 2, 1, 5, 2: the thresholds are the pooled values 0, 1, 2, 3, 5;
    candidate i < 5 is {x >= t_i}, candidate 5 + i is {x <= t_i}; counts are per side, out of n = 4."""
    x0, x1 = column(3, 1, 0, 1), column(2, 1, 5, 2)
    found = threshold_candidates(x0, x1)
    t = [0.0, 1.0, 2.0, 3.0, 5.0]
    s0, s1 = [3, 1, 0, 1], [2, 1, 5, 2]
    assert found.family == "threshold" and found.n == 4 and len(found) == 10
    assert found.counts0.tolist() == [sum(v >= u for v in s0) for u in t] + [sum(v <= u for v in s0) for u in t]
    assert found.counts1.tolist() == [sum(v >= u for v in s1) for u in t] + [sum(v <= u for v in s1) for u in t]
    assert found.counts0.tolist() == [4, 3, 1, 1, 0, 1, 3, 3, 4, 4]
    assert found.counts1.tolist() == [4, 4, 3, 1, 1, 0, 1, 3, 3, 4]
    assert [found.event(i).describe() for i in range(10)] == (
        [f"x >= {u!r}" for u in t] + [f"x <= {u!r}" for u in t])
    for i in range(10):
        event = found.event(i)
        assert isinstance(event, Threshold) and type(event.t) is float
        assert event.contains(x0).sum() == found.counts0[i] and event.contains(x1).sum() == found.counts1[i]


def test_threshold_candidates_on_scores_use_the_given_family_and_event_maker():
    """The shared helper keeps the family name and builds each event with ``make``; n is the first side's."""
    made = []
    found = _threshold_candidates(np.array([0.5, 2.0]), np.array([1.0, 2.0, 3.0]), "scores",
                                  lambda op, t: made.append((op, t)) or Threshold(op, t, label="s"))
    assert found.family == "scores" and found.n == 2
    assert found.counts0.tolist() == [2, 1, 1, 0, 1, 1, 2, 2]
    assert found.counts1.tolist() == [3, 3, 2, 1, 0, 1, 2, 3]
    assert found.event(3).describe() == "s >= 3.0" and found.event(4).describe() == "s <= 0.5"
    assert made == [(">=", 3.0), ("<=", 0.5)]


# ------------------------------------------------------------------------------------------ cells family


def test_halves_split_at_the_floor_of_half():
    first, second = _halves(np.arange(5))
    assert first.tolist() == [0, 1] and second.tolist() == [2, 3, 4]
    first, second = _halves(np.arange(6))
    assert first.tolist() == [0, 1, 2] and second.tolist() == [3, 4, 5]


# Scalar outputs 0..4 (one cell each). The ranking halves (the first 9 of each side's 19 outputs) hold them
# this often:
#
#     value  side 0  side 1  log((f0 + 1/2) / (f1 + 1/2))
#       0      1       0      log 3      =  1.099
#       1      5       1      log 11/3   =  1.299
#       2      1       5      log 3/11   = -1.299
#       3      2       2      0
#       4      0       1      log 1/3    = -1.099
#
# so the ranking is 1, 0, 3, 4, 2 (the 1/2 smooths the zero counts: with 3/2 instead, in either place, the
# order of two of them flips). The counting halves (the last 10) are counted; 8 was never seen by the
# ranking half and belongs to no candidate.
RANK0 = [0, 1, 1, 1, 1, 1, 2, 3, 3]
RANK1 = [1, 2, 2, 2, 2, 2, 3, 3, 4]
COUNT0 = [0, 1, 1, 2, 2, 2, 3, 0, 1, 1]
COUNT1 = [1, 2, 3, 3, 3, 4, 4, 0, 8, 2]
RANKING = [1, 0, 3, 4, 2]


def test_cells_are_ranked_on_the_first_half_and_counted_on_the_second():
    """The written-out sample above: the candidates are the top-k cells for k = 1..5, then the bottom-k,
    counted on the counting halves (n = 10): 4, 6, 7, 7, 10 | 3, 3, 4, 6, 10 on side 0 and
    1, 2, 5, 7, 9 | 2, 4, 7, 8, 9 on side 1. Each event holds exactly the cells it counts."""
    x0, x1 = column(*RANK0, *COUNT0), column(*RANK1, *COUNT1)
    found = cell_candidates(x0, x1)
    assert found.family == "cells" and found.n == 10 and len(found) == 10
    assert found.counts0.tolist() == top_and_bottom_counts(RANKING, COUNT0) == [4, 6, 7, 7, 10, 3, 3, 4, 6, 10]
    assert found.counts1.tolist() == top_and_bottom_counts(RANKING, COUNT1) == [1, 2, 5, 7, 9, 2, 4, 7, 8, 9]
    assert found.counts0.dtype.kind == found.counts1.dtype.kind == "i"
    tops = [RANKING[:k] for k in range(1, 6)] + [RANKING[::-1][:k] for k in range(1, 6)]
    for i, members in enumerate(tops):
        event = found.event(i)
        assert isinstance(event, CellSet) and event.members.tolist() == sorted(members)
        assert event.contains(column(*COUNT0)).sum() == found.counts0[i]
        assert event.contains(column(*COUNT1)).sum() == found.counts1[i]
    assert found.event(1).describe() == "union of 2 cell(s): x0 = 0.0; x0 = 1.0"
    assert found.event(5).describe() == "union of 1 cell(s): x0 = 2.0"


def test_swapping_the_sides_swaps_the_cell_counts_and_reverses_the_ranking():
    """With the sides exchanged every log-ratio changes sign (no ties here), so the top-k cells become the
    bottom-k: the candidates are those of the original with the halves of the list exchanged."""
    x0, x1 = column(*RANK0, *COUNT0), column(*RANK1, *COUNT1)
    swapped = cell_candidates(x1, x0)
    assert swapped.counts0.tolist() == top_and_bottom_counts(RANKING[::-1], COUNT1)
    assert swapped.counts1.tolist() == top_and_bottom_counts(RANKING[::-1], COUNT0)


def test_cells_of_equal_estimated_ratio_keep_their_ascending_order():
    """Twenty values 0..19: the evens seen once on side 0 only, the odds once on side 1 only (in the ranking
    half), so the evens tie at log 3 and the odds at -log 3. Ties keep the cells' ascending order (a stable
    sort): the top-k cells are the first k of 0, 2, .., 18, 1, 3, .., 19."""
    values = np.arange(20.0)
    x0 = column(*values[::2], *values[::2])
    x1 = column(*values[1::2], *values[1::2])
    found = cell_candidates(x0, x1)
    order = list(range(0, 20, 2)) + list(range(1, 20, 2))
    assert len(found) == 40
    for i, top in enumerate([order[:k] for k in range(1, 21)] + [order[::-1][:k] for k in range(1, 21)]):
        assert found.event(i).members.tolist() == sorted(top), i
    assert found.counts0.tolist()[:10] == list(range(1, 11)) and found.counts1.tolist()[:10] == [0] * 10


def test_cells_are_fitted_on_the_ranking_halves_only():
    """The ranking halves hold the values 0 and 1 only (0 three times on side 0 and once on side 1, 1 the
    other way round): the binning has those two levels, and the counting outputs 5, 6 and 7 land in the
    unseen cell, which is no candidate. Ranking 0, 1; counting halves 0, 1, 5, 6 and 1, 7, 0, 1."""
    found = cell_candidates(column(0, 0, 0, 1, 0, 1, 5, 6), column(1, 1, 1, 0, 1, 7, 0, 1))
    assert found.n == 4
    assert found.counts0.tolist() == [1, 2, 1, 2]
    assert found.counts1.tolist() == [1, 3, 2, 3]
    assert found.event(1).binning.sizes == [3]
    assert found.event(1).describe() == "union of 2 cell(s): x0 = 0.0; x0 = 1.0"


# ------------------------------------------------------------------------------------------- rows family


def test_row_binning_gives_every_coordinate_its_levels():
    pooled = rows((1, 0, 7), (0, 0, 7), (1, 2, 7))
    binning = _row_binning(pooled)
    assert [lv.tolist() for lv in binning.levels] == [[0.0, 1.0], [0.0, 2.0], [7.0]]
    assert binning.edges == (None, None, None) and binning.sizes == [3, 3, 2]


def test_row_binning_refuses_a_coordinate_of_more_than_64_values():
    assert _row_binning(np.arange(64.0)[:, None]) is not None
    assert _row_binning(np.arange(65.0)[:, None]) is None
    assert _row_binning(np.column_stack([np.zeros(65), np.arange(65.0)])) is None


def test_row_binning_refuses_more_than_2_to_the_63_keys():
    """62 constant coordinates (bases 2) give 2**62 keys and 63 give 2**63 (keys 0 .. 2**63 - 1, the int64 range):
    accepted; 64 give 2**64: refused. Two coordinates of 64 values give 65**2 keys: accepted."""
    assert _row_binning(np.zeros((3, 62))).sizes == [2] * 62
    assert _row_binning(np.zeros((3, 63))).sizes == [2] * 63
    assert _row_binning(np.zeros((3, 64))) is None
    grid = np.array([(i, j) for i in range(64) for j in range(64)], dtype=float)
    assert _row_binning(grid).sizes == [65, 65]


# The same table with rows: value v is the row ROW[v]; keys under levels (0, 1, 2) x (0, 1, 2) are
# d0 * 4 + d1, so the rows' keys ascend with v. 8 becomes (2, 0), a row only the counting half of side 1 holds.
ROW = {0: (0, 0), 1: (0, 1), 2: (1, 0), 3: (1, 1), 4: (1, 2), 8: (2, 0)}
# every row is ranked, 8 too (counts 0 and 0 in the ranking halves: log-ratio 0, tied with 3 and after it)
ROW_RANKING = [1, 0, 3, 8, 4, 2]


def sets_counts(order: list, sample: list) -> list[int]:
    """How many of ``sample`` fall in the top-k of ``order`` for k = 2..m, then in the bottom-k."""
    return [count for k, count in enumerate(top_and_bottom_counts(order, sample)) if k % len(order)]


def test_single_rows_are_counted_on_every_sample_and_sets_ranked_on_the_first_half_counted_on_the_second():
    """The written-out sample above with a row for each value. The single rows are the six distinct rows in
    ascending order, counted on all 19 outputs per side. The sets of two or more are the top-k and bottom-k
    rows of the ranking, counted on the counting halves (n = 10), each event holding exactly its rows."""
    x0 = rows(*(ROW[v] for v in RANK0 + COUNT0))
    x1 = rows(*(ROW[v] for v in RANK1 + COUNT1))
    singles, found = row_candidates(x0, x1)
    values = [0, 1, 2, 3, 4, 8]
    assert singles.family == "rows" and singles.n == 19 and len(singles) == 6
    assert singles.counts0.tolist() == [(RANK0 + COUNT0).count(v) for v in values]
    assert singles.counts1.tolist() == [(RANK1 + COUNT1).count(v) for v in values]
    assert [singles.event(i).describe() for i in range(6)] == [f"x = {list(map(float, ROW[v]))!r}" for v in values]
    assert found.family == "rows" and found.n == 10 and len(found) == 10
    assert found.counts0.tolist() == sets_counts(ROW_RANKING, COUNT0)
    assert found.counts1.tolist() == sets_counts(ROW_RANKING, COUNT1)
    tops = [ROW_RANKING[:k] for k in range(2, 7)] + [ROW_RANKING[::-1][:k] for k in range(2, 7)]
    for i, members in enumerate(tops):
        event = found.event(i)
        assert isinstance(event, RowSet)
        inside = event.contains(rows(*(ROW[v] for v in values)))
        assert inside.tolist() == [v in members for v in values], i
    assert found.event(0).describe() == "x in {[0.0, 0.0], [0.0, 1.0]}"
    assert found.event(5).describe() == "x in {[1.0, 0.0], [1.0, 2.0]}"


def test_swapping_the_sides_swaps_the_row_counts_and_reverses_the_ranking():
    """Swapped sides negate every log-ratio; the tied rows 3 and 8 keep their ascending order."""
    x0 = rows(*(ROW[v] for v in RANK0 + COUNT0))
    x1 = rows(*(ROW[v] for v in RANK1 + COUNT1))
    singles, swapped = row_candidates(x1, x0)
    straight = row_candidates(x0, x1)[0]
    assert singles.counts0.tolist() == straight.counts1.tolist()
    assert singles.counts1.tolist() == straight.counts0.tolist()
    assert swapped.n == 10
    assert swapped.counts0.tolist() == sets_counts([2, 4, 3, 8, 0, 1], COUNT1)
    assert swapped.counts1.tolist() == sets_counts([2, 4, 3, 8, 0, 1], COUNT0)


def test_rows_of_equal_estimated_ratio_keep_their_ascending_order_among_twenty():
    """Twenty scalar rows: evens on side 0 only, odds on side 1 only; ties keep the ascending order."""
    values = np.arange(20.0)
    singles, found = row_candidates(column(*values[::2], *values[::2]), column(*values[1::2], *values[1::2]))
    assert [np.flatnonzero(singles.event(i).contains(values[:, None])).tolist() for i in range(20)] == [
        [i] for i in range(20)]
    order = list(range(0, 20, 2)) + list(range(1, 20, 2))
    for i, top in enumerate([order[:k] for k in range(2, 21)] + [order[::-1][:k] for k in range(2, 21)]):
        assert np.flatnonzero(found.event(i).contains(values[:, None])).tolist() == sorted(top), i


def test_the_rows_family_takes_4096_distinct_rows_but_not_4097():
    """Two coordinates of 64 values: 4096 distinct rows, 4096 single rows and 8190 sets. One more row (a third
    coordinate) and the family gives up; so it does for a continuous coordinate."""
    grid = np.array([(i, j, 0) for i in range(64) for j in range(64)], dtype=float)
    singles, found = row_candidates(np.concatenate([grid, grid]), np.concatenate([grid, grid]))
    assert len(singles) == 4096 and singles.counts0.tolist() == [2] * 4096
    assert len(found) == 8190 and found.counts0[4094] == 4096  # the top 4096: the whole counting half
    more = np.concatenate([grid, [[0.0, 0.0, 1.0]]])
    assert row_candidates(np.concatenate([more, more]), np.concatenate([more, more])) == []
    assert row_candidates(np.arange(130.0)[:, None], np.arange(130.0)[:, None]) == []


def test_rows_are_exhaustive_from_twenty_samples_per_row():
    """A rows family over m distinct rows (its first candidates: the m single rows) replaces the classifier once
    n >= 20 m; other families never do."""
    def family(name, m):
        return Candidates(name, np.zeros(m, dtype=int), np.zeros(m, dtype=int), 1, lambda i: None)

    assert rows_are_exhaustive([family("rows", 3), family("rows", 4)], 60)
    assert not rows_are_exhaustive([family("rows", 3), family("rows", 4)], 59)
    assert not rows_are_exhaustive([family("cells", 3)], 10**6)
    assert rows_are_exhaustive([family("cells", 3), family("rows", 1)], 20)
    assert not rows_are_exhaustive([], 10**6)


# ------------------------------------------------------------------------------------- classifier family


def test_the_classifier_is_a_logistic_regression_on_standardised_features_and_their_squares():
    """Side 0 in the middle (-0.5..1), side 1 on both flanks: no threshold on x separates them, one on a
    quadratic score does. The score is compared with a logistic regression written out here: standardise
    x, take z and z^2, standardise both, minimise ||w||^2 / 2 + sum of the log-losses (C = 1, intercept not
    penalised; label 1 = side 0) with scipy at gradient tolerance 1e-10. scikit-learn's lbfgs stops at a
    tolerance of about 1e-4, so the scores agree to 0.01 (a cubic term, an unstandardised input or feature,
    or a linear model all move them by more than 0.3 on this grid). The candidates are thresholds on the
    score counted on the second halves, each event counting exactly its outputs."""
    from scipy.optimize import minimize

    a0 = np.linspace(-0.5, 1.0, 20)
    a1 = np.concatenate([np.linspace(-3.0, -1.5, 10), np.linspace(2.0, 4.0, 10)])
    b0 = np.linspace(-0.4, 0.9, 20)
    b1 = np.concatenate([np.linspace(-2.8, -1.6, 10), np.linspace(2.1, 3.9, 10)])
    found = classifier_candidates(column(*a0, *b0), column(*a1, *b1))
    assert found.family == "classifier" and found.n == 20

    train, labels = np.concatenate([a0, a1]), np.concatenate([np.ones(20), np.zeros(20)])
    z = (train - train.mean()) / train.std()
    features = np.column_stack([z, z * z])
    mu, sd = features.mean(axis=0), features.std(axis=0)

    def standardised(x):
        zx = (x - train.mean()) / train.std()
        return (np.column_stack([zx, zx * zx]) - mu) / sd

    def loss(p):
        u = standardised(train) @ p[:2] + p[2]
        return 0.5 * p[:2] @ p[:2] + np.sum(np.logaddexp(0.0, u) - labels * u)

    fit = minimize(loss, np.zeros(3), method="BFGS", options={"gtol": 1e-10})
    grid = np.linspace(-4.0, 4.0, 9)
    model = found.event(0).model
    assert np.max(np.abs(model.decision_function(grid[:, None]) - (standardised(grid) @ fit.x[:2] + fit.x[2]))) < 0.01
    s0, s1 = model.decision_function(b0[:, None]), model.decision_function(b1[:, None])
    assert s0.min() > s1.max()  # side 0 (label 1) scores higher, and the score separates the counted halves
    t = np.unique(np.concatenate([s0, s1]))
    assert len(found) == 2 * len(t) == 80
    assert found.counts0.tolist() == [sum(s0 >= u) for u in t] + [sum(s0 <= u) for u in t]
    assert found.counts1.tolist() == [sum(s1 >= u) for u in t] + [sum(s1 <= u) for u in t]
    for i in (0, 19, 20, 40, 79):
        event = found.event(i)
        assert isinstance(event, ScoreThreshold) and event.model is model
        assert (event.op, event.t) == ((">=", float(t[i])) if i < 40 else ("<=", float(t[i - 40])))
        assert event.contains(b0[:, None]).sum() == found.counts0[i]
        assert event.contains(b1[:, None]).sum() == found.counts1[i]
    # the threshold at the lowest side-0 score takes all of side 0 and none of side 1
    best = int(np.searchsorted(t, s0.min()))
    assert (found.counts0[best], found.counts1[best]) == (20, 0)


@pytest.mark.parametrize("d", [1, 2, 4])
def test_the_classifier_scores_with_the_pipelines_decision_function_folded_into_a_quadratic_form(d):
    """QuadraticScore.of(pipeline) is the fitted pipeline's decision function (standardise, degree-2 monomials
    with the cross terms, standardise, logistic regression), to rounding: on 2,000 fresh outputs of sides that
    differ in mean, spread and correlation, with a constant coordinate (scale 1 in both scalers) when d > 2."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    from dpaudit.auditors.events import QuadraticScore

    rng = np.random.default_rng(3)
    mixing = np.eye(d) + 0.5 * np.triu(np.ones((d, d)), 1)
    x0, x1 = rng.normal(size=(3000, d)), rng.normal(0.3, 1.3, size=(3000, d)) @ mixing
    if d > 2:
        x0[:, 1] = x1[:, 1] = 2.0
    pipeline = make_pipeline(StandardScaler(), PolynomialFeatures(degree=2, include_bias=False), StandardScaler(),
                             LogisticRegression(max_iter=500))
    pipeline.fit(np.concatenate([x0, x1]), np.concatenate([np.ones(3000), np.zeros(3000)]))
    fresh = rng.normal(0.1, 1.5, size=(2000, d))
    want = pipeline.decision_function(fresh)
    assert np.ptp(want) > 0.5  # the score varies on the fresh outputs
    np.testing.assert_allclose(QuadraticScore.of(pipeline).decision_function(fresh), want, rtol=1e-10, atol=1e-10)


# ------------------------------------------------------------------------------------------ atoms family


def test_atom_counts_count_exact_row_matches():
    values = rows((1, 2), (3, 4), (9, 9))
    x = rows((1, 2), (3, 4), (1, 2), (2, 1), (3, 5), (1, 2))
    assert _atom_counts(values, x).tolist() == [sum(tuple(r) == tuple(v) for r in x) for v in values] == [3, 1, 0]
    assert _atom_counts(column(5.0, 0.5), column(0.5, 0.5, 1.0)).tolist() == [0, 2]


def _groups(first, inverse, counts):
    """A grouping of rows as a set of frozensets of row indices (the order of the groups aside)."""
    members = {}
    for i, g in enumerate(inverse.tolist()):
        members.setdefault(g, []).append(i)
    assert sorted(len(m) for m in members.values()) == sorted(counts.tolist())
    assert all(members[g][0] == first[g] for g in members)  # first is each group's first occurrence
    return {frozenset(m) for m in members.values()}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(*[st.sampled_from([0.0, -0.0, 1.0, -1.5, 2.0, math.inf, 1e-300])] * 3), min_size=1,
                max_size=40),
       st.sampled_from([1, 2, 3]))
def test_unique_rows_groups_float_rows_exactly_as_numpy_does(values, width):
    """The hashed grouping of rows equals np.unique(axis=0)'s, -0.0 with 0.0 (hypothesis, seeded by the test
    profile; it cannot fail by chance)."""
    x = np.array([v[:width] for v in values], dtype=float)
    assert _groups(*_unique_rows(x)) == _groups(*_unique_rows_sorted(x))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(*[st.integers(-3, 3)] * 2), min_size=1, max_size=40))
def test_unique_rows_groups_integer_rows_exactly_as_numpy_does(values):
    x = np.array(values, dtype=np.int64)
    assert _groups(*_unique_rows(x)) == _groups(*_unique_rows_sorted(x))


def test_unique_rows_falls_back_to_sorting_on_a_hash_collision_or_nan(monkeypatch):
    """Every row hashed alike (multiplier 0): the equality check sees distinct rows in one group and the rows are
    sorted instead; NaN rows are sorted too (np.unique decides their grouping)."""
    x = rows((1, 2), (3, 4), (1, 2), (2, 1))
    monkeypatch.setattr(events, "_ROW_HASH_MULTIPLIER", np.uint64(0))
    assert _groups(*_unique_rows(x)) == {frozenset({0, 2}), frozenset({1}), frozenset({3})}
    calls = []
    monkeypatch.setattr(events, "_unique_rows_sorted", lambda a: calls.append(len(a)) or ("sorted",))
    assert _unique_rows(x) == ("sorted",) and calls == [4]
    monkeypatch.undo()
    monkeypatch.setattr(events, "_unique_rows_sorted", lambda a: calls.append(len(a)) or ("sorted",))
    assert _unique_rows(rows((1, 2), (np.nan, 1))) == ("sorted",)
    assert _groups(*_unique_rows(x)) == {frozenset({0, 2}), frozenset({1}), frozenset({3})} and calls == [4, 2]


# Scalar outputs: 75 distinct continuous values (10.000, 10.001, ...), seen once each, and repeated values
#
#     value  ranking0 ranking1 counting0 counting1  pooled  ranking log-ratio
#      1.0      3        0        1         1         5      log 7       =  1.946
#      2.0      1        3        2         2         8      log 3/7     = -0.847
#      3.0      2        2        0         3         7      0
#      4.0      1        0        0         0         1      (seen once: no atom)
#      5.0      0        1        1         0         2      log 1/3     = -1.099
#      6.0      0        0        1         1         2      0
#
# The atoms, most frequent first and ties in ascending order, are 2, 3, 1, 5, 6. Ranked: 1, 3, 6, 2, 5
# (3 and 6 tie at 0 and keep their atom order).
ATOM_TABLE = {1.0: (3, 0, 1, 1), 2.0: (1, 3, 2, 2), 3.0: (2, 2, 0, 3), 4.0: (1, 0, 0, 0), 5.0: (0, 1, 1, 0),
              6.0: (0, 0, 1, 1)}
ATOMS = [2.0, 3.0, 1.0, 5.0, 6.0]
ATOM_RANKING = [1.0, 3.0, 6.0, 2.0, 5.0]


def atom_sample():
    noise = iter(10.0 + np.arange(75) / 1000)
    parts = []
    for part in range(4):
        atoms = [v for v, counts in ATOM_TABLE.items() for _ in range(counts[part])]
        parts.append(atoms + [next(noise) for _ in range(25 - len(atoms))])
    return parts  # ranking0, ranking1, counting0, counting1: 25 outputs each


def test_atoms_are_the_repeated_outputs_counted_singly_on_all_samples_and_in_sets_on_halves():
    """The written-out sample above. Singles: the atoms in frequency order, each counted on all 50 outputs of
    its side (n = 50). Sets: the top-k atoms by ranking log-ratio for k = 2..5, then the bottom-k, counted on
    the counting halves (n = 25)."""
    rank0, rank1, count0, count1 = atom_sample()
    x0, x1 = column(*rank0, *count0), column(*rank1, *count1)
    singles, sets = atom_candidates(x0, x1)
    assert singles.family == sets.family == "atoms"
    assert singles.n == 50 and sets.n == 25
    side0, side1 = rank0 + count0, rank1 + count1
    assert singles.counts0.tolist() == [side0.count(v) for v in ATOMS] == [3, 2, 4, 1, 1]
    assert singles.counts1.tolist() == [side1.count(v) for v in ATOMS] == [5, 5, 1, 1, 1]
    assert [singles.event(i).describe() for i in range(5)] == ["x = 2.0", "x = 3.0", "x = 1.0", "x = 5.0", "x = 6.0"]
    assert singles.event(2).contains(column(1.0, 2.0, 1.0)).tolist() == [True, False, True]
    sizes = list(range(2, 6))
    members = [ATOM_RANKING[:k] for k in sizes] + [ATOM_RANKING[::-1][:k] for k in sizes]
    assert sets.counts0.tolist() == [sum(v in m for v in count0) for m in members] == [1, 2, 4, 5, 3, 4, 4, 5]
    assert sets.counts1.tolist() == [sum(v in m for v in count1) for m in members] == [4, 5, 7, 7, 2, 3, 6, 7]
    for i, m in enumerate(members):
        event = sets.event(i)
        assert isinstance(event, AtomSet)
        # the values of a set are listed in atom (frequency) order
        assert event.values[:, 0].tolist() == [v for v in ATOMS if v in m], i
    assert sets.event(0).describe() == "x in {3.0, 1.0}"
    assert sets.event(4).describe() == "x in {2.0, 5.0}"


def test_swapping_the_sides_keeps_the_atoms_and_reverses_their_ranking():
    """The atoms are chosen from the pooled samples, without looking at the sides: swapping the sides keeps
    them (and their order) and swaps the single counts; the sets' ranking is reversed except that the tie
    (3 and 6, at 0) keeps its order."""
    rank0, rank1, count0, count1 = atom_sample()
    singles, sets = atom_candidates(column(*rank1, *count1), column(*rank0, *count0))
    assert singles.counts0.tolist() == [5, 5, 1, 1, 1] and singles.counts1.tolist() == [3, 2, 4, 1, 1]
    swapped = [5.0, 2.0, 3.0, 6.0, 1.0]
    members = [swapped[:k] for k in range(2, 6)] + [swapped[::-1][:k] for k in range(2, 6)]
    assert sets.counts0.tolist() == [sum(v in m for v in count1) for m in members]
    assert sets.counts1.tolist() == [sum(v in m for v in count0) for m in members]


def test_an_output_seen_twice_is_an_atom_and_a_lone_atom_has_no_sets():
    """70 distinct continuous values once each and 0.0 twice (once per side): one atom, whose only candidate
    is itself (a set needs two atoms)."""
    x0 = column(0.0, *np.arange(1.0, 36.0) / 7)
    x1 = column(*np.arange(36.0, 71.0) / 7, 0.0)
    found = atom_candidates(x0, x1)
    assert len(found) == 1
    (single,) = found
    assert single.counts0.tolist() == [1] and single.counts1.tolist() == [1] and single.n == 36
    assert single.event(0).describe() == "x = 0.0"


def test_categorical_or_never_repeating_outputs_have_no_atoms():
    """Up to 64 distinct values per coordinate the outputs are categorical (their cells already are one per
    value): no atoms, even if values repeat. Continuous outputs that never repeat have none either."""
    sixty_four = np.arange(64.0)
    assert atom_candidates(column(*sixty_four), column(*sixty_four)) == []
    assert atom_candidates(rows(*[(v, 0) for v in sixty_four]), rows(*[(v, 1) for v in sixty_four])) == []
    assert atom_candidates(column(*np.arange(40.0)), column(*np.arange(40.0, 80.0))) == []


def test_at_most_64_atoms_and_ties_keep_ascending_order():
    """80 values, the even-indexed seen three times and the odd-indexed twice (with 10 distinct continuous
    values once each): the 40 seen three times come first in ascending order, then the first 24 of those seen
    twice, in ascending order: 64 atoms."""
    values = np.arange(80.0) / 3
    three = values[::2].tolist()
    two = values[1::2].tolist()
    pooled = three * 3 + two * 2 + (100.0 + np.arange(10.0)).tolist()
    half = len(pooled) // 2
    singles = atom_candidates(column(*pooled[:half]), column(*pooled[half:]))[0]
    assert len(singles) == 64
    atoms = [singles.event(i).values[0, 0] for i in range(64)]
    assert atoms == three + two[:24]


def test_atom_sets_of_equal_estimated_ratio_keep_the_atom_order():
    """Twenty atoms 0..19 seen twice each (with 100 distinct continuous values once each): the even ones twice
    in side 0's ranking half, the odd ones twice in side 1's, so the evens tie at log 5 and the odds at
    -log 5. Ties keep the atom order (here ascending: every atom is seen twice): the top-k sets are the first
    k of 0, 2, .., 18, 1, 3, .., 19, the bottom-k the first k of that order reversed."""
    noise = (100.0 + np.arange(100.0) / 7).tolist()
    evens, odds = list(range(0, 20, 2)), list(range(1, 20, 2))
    x0 = column(*(evens * 2), *noise[:50])
    x1 = column(*(odds * 2), *noise[50:])
    singles, sets = atom_candidates(x0, x1)
    assert [singles.event(i).values[0, 0] for i in range(20)] == list(range(20))
    ranked = evens + odds
    assert len(sets) == 2 * 19
    for i, k in enumerate(range(2, 21)):
        assert sets.event(i).values[:, 0].tolist() == sorted(ranked[:k]), i
        assert sets.event(19 + i).values[:, 0].tolist() == sorted(ranked[::-1][:k]), i


def test_vector_atoms_are_whole_rows():
    """Two-coordinate outputs, the second continuous: the rows (0, 0.5) (three times) and (1, 0.5) (twice)
    are the atoms; (0, 0.25) once is not."""
    noise = [(2.0, 1 + k / 100) for k in range(70)]
    x0 = rows((0, 0.5), (1, 0.5), *noise[:35], (0, 0.25), (0, 0.5))
    x1 = rows(*noise[35:], (0, 0.5), (1, 0.5), (5, 5))
    singles, sets = atom_candidates(x0, x1)
    assert [singles.event(i).describe() for i in range(2)] == ["x = [0.0, 0.5]", "x = [1.0, 0.5]"]
    assert singles.counts0.tolist() == [2, 1] and singles.counts1.tolist() == [1, 1]
    assert sets.event(0).describe() == "x in {[0.0, 0.5], [1.0, 0.5]}"
    assert sets.event(0).contains(rows((0, 0.5), (0, 1), (1, 0.5), (0.5, 0.5))).tolist() == [True, False, True, False]


# --------------------------------------------------------------------------------- families and dispatch


def test_default_families_by_output_dimension():
    assert default_families(1) == ("threshold", "cells", "atoms")
    assert default_families(2) == default_families(3) == ("cells", "classifier", "atoms")
    assert default_families(4) == default_families(10) == ("rows", "classifier", "atoms")


def test_candidates_build_the_families_asked_for_in_order():
    """Scalar outputs: threshold, cells and atoms in the order asked (atoms: none, the outputs are
    categorical), each as its own builder makes it."""
    x0, x1 = column(*RANK0, *COUNT0), column(*RANK1, *COUNT1)
    found = candidates(x0, x1, ("threshold", "cells", "atoms"))
    assert [c.family for c in found] == ["threshold", "cells"]
    assert found[0].counts0.tolist() == threshold_candidates(x0, x1).counts0.tolist()
    assert found[1].counts1.tolist() == top_and_bottom_counts(RANKING, COUNT1)
    assert [c.family for c in candidates(x0, x1, ("cells", "threshold"))] == ["cells", "threshold"]


def test_candidates_skip_families_that_do_not_apply_and_go_on_with_the_rest():
    """Thresholds only for scalar outputs; cells up to three coordinates; the others still built."""
    two0 = rows(*[(v, v % 2) for v in RANK0 + COUNT0])
    two1 = rows(*[(v, v % 2) for v in RANK1 + COUNT1])
    assert [c.family for c in candidates(two0, two1, ("threshold", "cells"))] == ["cells"]
    three0, three1 = np.column_stack([two0, two0[:, 0]]), np.column_stack([two1, two1[:, 0]])
    assert [c.family for c in candidates(three0, three1, ("cells", "rows"))] == ["rows", "rows", "cells"]
    four0, four1 = np.column_stack([three0, three0[:, 0]]), np.column_stack([three1, three1[:, 0]])
    assert [c.family for c in candidates(four0, four1, ("cells", "threshold", "rows"))] == ["rows", "rows"]


def test_candidates_go_on_after_skipping_cells_for_four_coordinates():
    """Four coordinates, the first continuous, one row repeated: cells are skipped and the atoms after them
    built (the single repeated row, seen once per side)."""
    noise = [(k / 7, 0, 0, 0) for k in range(70)]
    x0 = rows(*noise[:35], (1, 1, 1, 1))
    x1 = rows((1, 1, 1, 1), *noise[35:])
    found = candidates(x0, x1, ("cells", "atoms"))
    assert [c.family for c in found] == ["atoms"]
    assert found[0].counts0.tolist() == [1] and found[0].counts1.tolist() == [1]
    assert found[0].event(0).describe() == "x = [1.0, 1.0, 1.0, 1.0]"


def test_rows_go_first_and_make_the_classifier_redundant_with_enough_samples():
    """Two binary coordinates, 4 distinct rows (4 single rows): with n = 80 >= 20 * 4 outputs per side the
    classifier is skipped (the families after it still built); with 79 it is not."""
    pattern = [(0, 0), (0, 1), (1, 0), (1, 1)]
    x0 = rows(*(pattern * 20))
    x1 = rows(*(pattern[::-1] * 20))
    found = candidates(x0, x1, ("classifier", "cells", "rows"))
    assert [c.family for c in found] == ["rows", "rows", "cells"]
    assert len(found[0]) == 4
    fewer = candidates(x0[:79], x1[:79], ("classifier", "rows"))
    assert [c.family for c in fewer] == ["rows", "rows", "classifier"]


def test_with_only_atoms_asked_and_none_found_the_empty_event_stands_in():
    """Continuous outputs that never repeat: one candidate, the empty event, counted 0 on both sides."""
    x0, x1 = column(*np.arange(40.0)), column(*np.arange(40.0, 80.0))
    (found,) = candidates(x0, x1, ("atoms",))
    assert found.family == "atoms" and found.n == 40 and len(found) == 1
    assert found.counts0.tolist() == [0] and found.counts1.tolist() == [0]
    assert found.counts0.dtype.kind == found.counts1.dtype.kind == "i"
    event = found.event(0)
    assert event.describe() == "no output (no output repeated in the selection samples)"
    assert event.contains(x0).tolist() == [False] * 40
    two = candidates(rows(*[(v, v) for v in range(40)]), rows(*[(v, -v) for v in range(40, 80)]), ("atoms",))
    assert two[0].event(0).values.shape == (0, 2)
