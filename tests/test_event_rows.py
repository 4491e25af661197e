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
    """On SVT with 5 queries (7 distinct rows, more coordinates than cells look at), the single row of
    largest estimated log-ratio (counted on all 2 * 10^5 samples per side) is the row of largest exact loss,
    and it heads the ranking of the top-k sets (ranked on one half). The two largest losses are 0.85 and
    0.34; with 10^5 samples per side per half the log-ratio estimates have standard errors below 0.05,
    so ranking them the wrong way round has probability below 0.05 (and this seed does not)."""
    mech = SparseVector(1.0, threshold=0.5, cutoff=1)
    outcomes, loss = exact_losses(mech, QUERIES, NEIGHBOUR)
    rng = np.random.default_rng(1)
    x0 = mech.sample(QUERIES, 200_000, rng).astype(float)
    x1 = mech.sample(NEIGHBOUR, 200_000, rng).astype(float)
    assert "rows" in default_families(x0.shape[1])
    singles, sets = row_candidates(x0, x1)
    assert len(singles) == len(outcomes) and singles.n == 200_000 and sets.n == 100_000
    assert singles.counts0.sum() == singles.counts1.sum() == 200_000
    best = singles.event(int(np.argmax(np.log(singles.counts0 + 0.5) - np.log(singles.counts1 + 0.5))))
    assert isinstance(best, RowSet) and len(best.members) == 1
    top = outcomes[np.argmax(loss)].astype(float)
    assert best.contains(top[None])[0]
    assert best.describe() == f"x = {top.tolist()!r}"
    assert sets.event(0).contains(top[None])[0] and len(sets.event(0).members) == 2
    # the classifier is skipped: the rows already are the Neyman-Pearson family
    assert [c.family for c in candidates(x0, x1, default_families(5))] == ["rows", "rows"]


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


def test_single_rows_are_counted_on_all_samples_and_sets_ranked_on_one_half_counted_on_the_other():
    """A hand-made sample of rows of two coordinates (14 outputs per side). The single rows are every distinct
    row of the pooled samples, in ascending order, counted on all 14 per side. The sets of two or more are
    ranked on the first halves, which hold the rows this often on each side:

        row     side 0  side 1  log((f0 + 1/2) / (f1 + 1/2))
        (0,0)     1       0      log 3     =  1.099
        (0,1)     5       1      log 11/3  =  1.299
        (1,0)     1       5      log 3/11  = -1.299
        (1,1)     0       1      log 1/3   = -1.099
        (0,2), (2,0), (2,2)      0, 0      0 (seen only in the second halves)

    so the descending ranking is (0,1), (0,0), (0,2), (2,0), (2,2), (1,1), (1,0) (the 1/2 smooths the zero
    counts: without it, or with another constant, the ranking changes; rows of equal ratio keep their ascending
    order). The second halves hold (0,0), (0,1), (1,0), (2,0) 1, 2, 3, 1 times on side 0 and (0,1), (0,2),
    (1,0), (1,1), (2,2) 1, 1, 1, 3, 1 times on side 1. The sets are the top-k rows for k = 2..7 (cumulative
    counts 3, 3, 4, 4, 4, 7 and 1, 2, 2, 3, 6, 7), then the bottom-k (3, 3, 4, 4, 5, 7 and 4, 5, 5, 6, 6, 7),
    and each candidate's event holds exactly the rows it counts."""
    ranking0 = [(0, 0)] + [(0, 1)] * 5 + [(1, 0)]
    ranking1 = [(0, 1)] + [(1, 0)] * 5 + [(1, 1)]
    counting0 = _rows((0, 0), (0, 1), (0, 1), (1, 0), (1, 0), (1, 0), (2, 0))
    counting1 = _rows((0, 1), (1, 0), (1, 1), (1, 1), (1, 1), (0, 2), (2, 2))
    x0 = np.concatenate([_rows(*ranking0), counting0])
    x1 = np.concatenate([_rows(*ranking1), counting1])
    singles, sets = row_candidates(x0, x1)
    assert singles.family == sets.family == "rows" and singles.n == 14 and sets.n == 7
    rows = ["[0.0, 0.0]", "[0.0, 1.0]", "[0.0, 2.0]", "[1.0, 0.0]", "[1.0, 1.0]", "[2.0, 0.0]", "[2.0, 2.0]"]
    assert [singles.event(i).describe() for i in range(7)] == [f"x = {row}" for row in rows]
    assert singles.counts0.tolist() == [2, 7, 0, 4, 0, 1, 0]
    assert singles.counts1.tolist() == [0, 2, 1, 6, 4, 0, 1]
    for i in range(7):
        assert singles.event(i).contains(x0).sum() == singles.counts0[i]
        assert singles.event(i).contains(x1).sum() == singles.counts1[i]
    assert sets.counts0.tolist() == [3, 3, 4, 4, 4, 7, 3, 3, 4, 4, 5, 7]
    assert sets.counts1.tolist() == [1, 2, 2, 3, 6, 7, 4, 5, 5, 6, 6, 7]
    assert sets.event(0).describe() == "x in {[0.0, 0.0], [0.0, 1.0]}"
    assert sets.event(6).describe() == "x in {[1.0, 0.0], [1.0, 1.0]}"
    assert sets.event(2).describe() == "x in {[0.0, 0.0], [0.0, 1.0], [0.0, 2.0], [2.0, 0.0]}"
    for i in range(12):
        event = sets.event(i)
        assert event.contains(counting0).sum() == sets.counts0[i]
        assert event.contains(counting1).sum() == sets.counts1[i]


def test_rows_of_equal_estimated_ratio_keep_their_ascending_order():
    """Twelve scalar rows 0..11: each even one is seen once on side 0 only, each odd one once on side 1
    only, so the evens tie at log 3 and the odds at -log 3. Ties keep the rows' ascending order (a stable
    sort), so the witness does not depend on the sort algorithm: the sets are the top-k rows, the first k of
    0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11 (k = 2..12), and the bottom-k, the first k of that order reversed;
    the single rows are 0..11 in order."""
    values = np.arange(12.0)
    x0 = np.concatenate([values[::2], values[::2]])[:, None]
    x1 = np.concatenate([values[1::2], values[1::2]])[:, None]
    singles, rows = row_candidates(x0, x1)
    assert [np.flatnonzero(singles.event(i).contains(values[:, None])).tolist() for i in range(12)] == [
        [i] for i in range(12)]
    order = [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]
    for i, top in enumerate([order[:k] for k in range(2, 13)] + [order[::-1][:k] for k in range(2, 13)]):
        inside = rows.event(i).contains(values[:, None])
        assert np.flatnonzero(inside).tolist() == sorted(top), i


def test_a_coordinate_is_categorical_up_to_sixty_four_values():
    """A coordinate with 64 distinct values is categorical (the rows family applies: 64 single rows, and one
    candidate per top-k and bottom-k set of two or more), one with 65 is not (no rows candidates)."""
    for levels, expected in ((64, 2), (65, 0)):
        column = np.arange(float(levels))[:, None]
        x = np.concatenate([column, column])
        found = row_candidates(x, x)
        assert len(found) == expected
        if found:
            assert (len(found[0]), len(found[1])) == (levels, 2 * (levels - 1))


def test_the_rows_family_takes_up_to_4096_distinct_rows():
    """Two coordinates of 64 values each give 4096 distinct rows: the rows family applies (4096 single rows and
    8190 sets). One row more (a third coordinate set to 1 on one extra row) and it gives up."""
    grid = np.array([(i, j, 0) for i in range(64) for j in range(64)], dtype=float)
    singles, sets = row_candidates(np.concatenate([grid, grid]), np.concatenate([grid, grid]))
    assert (len(singles), len(sets)) == (4096, 2 * 4095)
    more = np.concatenate([grid, [[0.0, 0.0, 1.0]]])
    assert row_candidates(np.concatenate([more, more]), np.concatenate([more, more])) == []


def test_the_rows_family_gives_up_when_row_keys_pass_two_to_the_63():
    """A row's key is a mixed-radix number with one digit per coordinate, of base (values seen + 1) (the
    extra digit: a value unseen at fit time), so the keys are 0 .. prod(bases) - 1. The family applies while
    they fit in int64, up to exactly 2**63 keys: 62 constant coordinates (bases 2) give 2**62 keys and 63 give
    2**63, whose largest key, 2**63 - 1, is the row with every value unseen (the family refused these before);
    64 give 2**64 and 62 constant ones with one two-valued coordinate (base 3) 1.5 * 2**63: both give up.
    Deterministic."""
    from dpaudit.auditors.events import _row_binning

    def sample(constant: int, binary: bool) -> np.ndarray:
        x = np.zeros((40, constant + binary))
        if binary:
            x[::2, -1] = 1.0
        return x

    (rows,) = row_candidates(sample(62, False), sample(62, False))  # one row: its single only
    assert rows.counts0.tolist() == [40]
    singles, sets = row_candidates(sample(61, True), sample(61, True))  # 2**61 * 3 keys
    assert (len(singles), len(sets)) == (2, 2)
    (rows,) = row_candidates(sample(63, False), sample(63, False))  # 2**63 keys: they just fit
    assert rows.counts0.tolist() == [40]
    binning = _row_binning(sample(63, False))
    assert binning.cells == 2**63
    assert binning.cell_of(np.vstack([np.zeros(63), np.ones(63)])).tolist() == [0, 2**63 - 1]
    assert binning.row_of(2**63 - 1) == [None] * 63
    assert row_candidates(sample(64, False), sample(64, False)) == []
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
