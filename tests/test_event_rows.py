"""The ``rows`` event family (exact cells over distinct output rows) and the projected selection score.

Every test runs on fixed seeds. The statistical assertions state their false-failure rates."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

import dpaudit
from dpaudit import PureDP
from dpaudit.auditors.events import RowSet, candidates, default_families, row_candidates
from dpaudit.mechanisms.classic.sparse_vector import SparseVector

QUERIES = [1.0, 1.0, 0.0, 0.0, 0.0]
NEIGHBOUR = [2.0, 2.0, 1.0, 1.0, -1.0]  # every answer moved by at most 1


def exact_losses(mech, a, b):
    p, q = mech.distribution(a), mech.distribution(b)
    return p.outcomes, p.log_probs - q.log_probs


def test_rows_rank_the_optimal_row_first():
    """On SVT with 5 queries (7 distinct rows, more coordinates than cells look at), the top-1 row
    of the rows family is the row of largest exact loss. The two largest losses are 0.85 and 0.34;
    with 10^5 samples per side per half the log-ratio estimates have standard errors below 0.05,
    so ranking them the wrong way round has probability below 0.05 (and this seed does not)."""
    mech = SparseVector(1.0, threshold=0.5, cutoff=1)
    outcomes, loss = exact_losses(mech, QUERIES, NEIGHBOUR)
    rng = np.random.default_rng(1)
    x0 = mech.sample(QUERIES, 200_000, rng).astype(float)
    x1 = mech.sample(NEIGHBOUR, 200_000, rng).astype(float)
    assert "rows" in default_families(x0.shape[1])
    (rows,) = row_candidates(x0, x1)
    best = rows.event(0)
    assert isinstance(best, RowSet) and len(best.members) == 1
    top = outcomes[np.argmax(loss)].astype(float)
    assert best.contains(top[None])[0]
    assert best.describe() == f"x = {top.tolist()!r}"
    # the classifier is skipped: the rows already are the Neyman-Pearson family
    assert [c.family for c in candidates(x0, x1, default_families(5))] == ["rows"]


def test_rows_family_gives_up_on_many_rows_and_continuous_outputs():
    rng = np.random.default_rng(0)
    assert row_candidates(rng.normal(size=(2000, 4)), rng.normal(size=(2000, 4))) == []
    wide = rng.integers(0, 8, size=(20_000, 6)).astype(float)  # 8^6 possible rows: thousands seen
    assert row_candidates(wide, wide[::-1]) == []


def test_audit_certifies_close_to_the_best_exact_loss():
    """The black-box audit at 2 * 10^6 samples per side selects the best row on this pair: its bound
    lies below the exact maximal loss (a valid bound at confidence 0.99) and within 0.06 of it (the
    Clopper-Pearson width at this size is about 0.03)."""
    mech = SparseVector(1.0, threshold=0.5, cutoff=1)
    _, loss = exact_losses(mech, QUERIES, NEIGHBOUR)
    r = dpaudit.audit_privacy(mech, PureDP(1.0), pairs=[(QUERIES, NEIGHBOUR)], auditor="statistical",
                              samples=2_000_000, confidence=0.99, seed=0)
    assert r.witness["family"] == "rows"
    assert loss.max() - 0.06 <= r.epsilon_lower <= loss.max()


def randomized_response_with_noise(epsilon: float):
    """A 4-coordinate output exactly epsilon-DP in its input bit: the bit by randomized response,
    then three independent uniform digits that carry no information. Its largest loss is attained
    by every row, so an audit of the claim epsilon sits exactly on the boundary."""
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))

    def mechanism(bit, size, rng):
        first = np.where(rng.random(size) < keep, bit, 1 - bit)
        return np.column_stack([first, rng.integers(0, 3, size=(size, 3))]).astype(float)

    return mechanism


def test_confidence_holds_exactly_at_the_claimed_epsilon():
    """Validity: 40 seeded audits of a mechanism exactly at its claimed epsilon, at confidence 0.8.
    Each refutes with probability <= 0.2, so the count is stochastically below Binomial(40, 0.2); the
    limit is that law's 1 - 1e-4 quantile (17), so a valid auditor fails this test with probability
    below 1e-4. Measured: 1 refutation in 40 (Clopper-Pearson on both sides is conservative)."""
    limit = stats.binom.isf(1e-4, 40, 0.2)
    mech = randomized_response_with_noise(0.5)
    refuted = 0
    for seed in range(40):
        r = dpaudit.audit_privacy(mech, PureDP(0.5), pairs=[(0, 1)], auditor="statistical", samples=20_000,
                                  confidence=0.8, seed=seed)
        assert r.witness["family"] == "rows"
        refuted += r.verdict == "refuted"
    assert refuted <= limit


def test_a_score_threshold_event_includes_its_threshold_on_either_side():
    from dpaudit.auditors.events import ScoreThreshold

    class Identity:  # a fitted model's decision_function, here the output itself
        def decision_function(self, x):
            return np.asarray(x, dtype=float).ravel()

    x = np.array([-1.0, 0.5, 1.0, 2.0])
    assert ScoreThreshold(Identity(), ">=", 1.0).contains(x).tolist() == [False, False, True, True]
    assert ScoreThreshold(Identity(), "<=", 0.5).contains(x).tolist() == [True, True, False, False]


def _rows(*rows):
    return np.array(rows, dtype=float)


def test_rows_are_ranked_by_their_smoothed_likelihood_ratio_and_counted_on_the_other_half():
    """A hand-made sample of two binary coordinates (7 outputs per half per side). The ranking halves
    hold the rows (0,0), (0,1), (1,0), (1,1) this often on each side:

        row     side 0  side 1  log((f0 + 1/2) / (f1 + 1/2))
        (0,0)     1       0      log 3     =  1.099
        (0,1)     5       1      log 11/3  =  1.299
        (1,0)     1       5      log 3/11  = -1.299
        (1,1)     0       1      log 1/3   = -1.099

    so the descending ranking is (0,1), (0,0), (1,1), (1,0) (the 1/2 smooths the zero counts: without it,
    or with another constant, the ranking changes). The counting halves hold (0,0), (0,1), (1,0), (1,1)
    1, 2, 3, 0 times on side 0 and 0, 1, 1, 3 times on side 1, plus rows the ranking never saw ((2,0) on
    side 0; (0,2) and (2,2) on side 1), which belong to no candidate. The candidates are the top-k rows
    for k = 1..4 (cumulative counts 2, 3, 3, 6 and 1, 1, 4, 5), then the bottom-k (3, 3, 4, 6 and
    1, 4, 4, 5), and each candidate's event holds exactly the rows it counts."""
    ranking0 = [(0, 0)] + [(0, 1)] * 5 + [(1, 0)]
    ranking1 = [(0, 1)] + [(1, 0)] * 5 + [(1, 1)]
    counting0 = _rows((0, 0), (0, 1), (0, 1), (1, 0), (1, 0), (1, 0), (2, 0))
    counting1 = _rows((0, 1), (1, 0), (1, 1), (1, 1), (1, 1), (0, 2), (2, 2))
    x0 = np.concatenate([_rows(*ranking0), counting0])
    x1 = np.concatenate([_rows(*ranking1), counting1])
    (rows,) = row_candidates(x0, x1)
    assert rows.family == "rows" and rows.n == 7
    assert rows.counts0.tolist() == [2, 3, 3, 6, 3, 3, 4, 6]
    assert rows.counts1.tolist() == [1, 1, 4, 5, 1, 4, 4, 5]
    assert [rows.event(i).describe() for i in range(8)] == [
        "x = [0.0, 1.0]",
        "x in {[0.0, 0.0], [0.0, 1.0]}",
        "x in {[0.0, 0.0], [0.0, 1.0], [1.0, 1.0]}",
        "x in {[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]}",
        "x = [1.0, 0.0]",
        "x in {[1.0, 0.0], [1.0, 1.0]}",
        "x in {[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]}",
        "x in {[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]}",
    ]
    for i in range(8):
        event = rows.event(i)
        assert event.contains(counting0).sum() == rows.counts0[i]
        assert event.contains(counting1).sum() == rows.counts1[i]


def test_rows_of_equal_estimated_ratio_keep_their_ascending_order():
    """Twelve scalar rows 0..11: each even one is seen once on side 0 only, each odd one once on side 1
    only, so the evens tie at log 3 and the odds at -log 3. Ties keep the rows' ascending order (a stable
    sort), so the witness does not depend on the sort algorithm: the top-k rows are the first k of
    0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11 and the bottom-k the first k of that order reversed."""
    values = np.arange(12.0)
    x0 = np.concatenate([values[::2], values[::2]])[:, None]
    x1 = np.concatenate([values[1::2], values[1::2]])[:, None]
    (rows,) = row_candidates(x0, x1)
    order = [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]
    for i, top in enumerate([order[:k] for k in range(1, 13)] + [order[::-1][:k] for k in range(1, 13)]):
        inside = rows.event(i).contains(values[:, None])
        assert np.flatnonzero(inside).tolist() == sorted(top), i


def test_a_coordinate_is_categorical_up_to_sixty_four_values():
    """A coordinate with 64 distinct values is categorical (the rows family applies: 64 rows, one
    candidate per top-k and bottom-k set), one with 65 is not (no rows candidates)."""
    for levels, expected in ((64, 1), (65, 0)):
        column = np.arange(float(levels))[:, None]
        x = np.concatenate([column, column])
        found = row_candidates(x, x)
        assert len(found) == expected
        if found:
            assert len(found[0]) == 2 * levels


def test_the_rows_family_takes_up_to_4096_distinct_rows():
    """Two coordinates of 64 values each give 4096 distinct rows: the rows family applies (8192 candidates).
    One row more (a third coordinate set to 1 on one extra row) and it gives up."""
    grid = np.array([(i, j, 0) for i in range(64) for j in range(64)], dtype=float)
    (rows,) = row_candidates(np.concatenate([grid, grid]), np.concatenate([grid, grid]))
    assert len(rows) == 2 * 4096
    more = np.concatenate([grid, [[0.0, 0.0, 1.0]]])
    assert row_candidates(np.concatenate([more, more]), np.concatenate([more, more])) == []


def test_the_rows_family_gives_up_when_row_keys_reach_two_to_the_63():
    """A row's key is a mixed-radix number with one digit per coordinate, of base (values seen + 1) (the
    extra digit: a value unseen at fit time), so there are prod(bases) keys. The family applies only while
    that product is below 2**63 (int64 keys): 62 constant coordinates (bases 2) give 2**62 keys and apply,
    63 give 2**63, and 62 constant ones with one two-valued coordinate (base 3) give 1.5 * 2**63: both give
    up. (2**63 keys, 0 .. 2**63 - 1, would just fit; the limit is pinned here so that moving it is a
    deliberate change.)"""
    def sample(constant: int, binary: bool) -> np.ndarray:
        x = np.zeros((40, constant + binary))
        if binary:
            x[::2, -1] = 1.0
        return x

    (rows,) = row_candidates(sample(62, False), sample(62, False))
    assert rows.counts0.tolist() == [20, 20]
    (rows,) = row_candidates(sample(61, True), sample(61, True))  # 2**61 * 3 keys
    assert len(rows) == 4
    assert row_candidates(sample(63, False), sample(63, False)) == []
    assert row_candidates(sample(62, True), sample(62, True)) == []


def test_a_row_describes_a_value_unseen_at_fit_time_as_none():
    """Binning.row_of inverts a key: with levels (0, 1) and (5,), bases 3 and 2, key 4 = 2 * 2 + 0 is the
    unseen value of the first coordinate (digit 2 = its number of levels) and the value 5 of the second."""
    from dpaudit.auditors.events import Binning

    binning = Binning((np.array([0.0, 1.0]), np.array([5.0])), (None, None))
    assert binning.row_of(4) == [None, 5.0]
    assert binning.row_of(3) == [1.0, None]
    assert binning.row_of(2) == [1.0, 5.0]


def test_a_row_set_describes_its_rows_and_how_many_it_does_not_show():
    """One row reads 'x = row'; up to five read 'x in {rows}'; from six on the first five are shown and
    the rest counted."""
    from dpaudit.auditors.events import Binning

    binning = Binning((np.arange(10.0),), (None,))

    def described(*keys):
        return RowSet(binning, np.array(keys)).describe()

    assert described(3) == "x = [3.0]"
    assert described(1, 2) == "x in {[1.0], [2.0]}"
    assert described(0, 1, 2, 3, 4) == "x in {[0.0], [1.0], [2.0], [3.0], [4.0]}"
    assert described(0, 1, 2, 3, 4, 5) == "x in {[0.0], [1.0], [2.0], [3.0], [4.0], ... (+1 more)}"
    assert described(*range(8)) == "x in {[0.0], [1.0], [2.0], [3.0], [4.0], ... (+3 more)}"
