"""The neighbour search's structured patterns: one utility up and the others down (the exponential
mechanism's worst change), and records turned between orthogonal unit vectors. All audits here are
exact (no false-failure rate); the search's random bases are seeded."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
import dpaudit.core.neighbours as neighbours
from dpaudit.core.distributions import GaussianDistribution, ProductDistribution
from dpaudit.core.domains import Box, Datasets
from dpaudit.mechanisms import ExponentialMechanism


def as_lists(pairs):
    return [(np.asarray(a).tolist(), np.asarray(b).tolist()) for a, b in pairs]


def test_one_up_the_rest_down_is_among_the_query_distance_candidates():
    pairs = as_lists(dpaudit.QueryDistance(1.0).candidates(Box(0, 6, shape=(3,)), np.random.default_rng(0)))
    assert ([0.0, 6.0, 6.0], [1.0, 5.0, 5.0]) in pairs and ([6.0, 0.0, 0.0], [5.0, 1.0, 1.0]) in pairs
    assert ([3.0, 3.0, 3.0], [4.0, 2.0, 2.0]) in pairs
    # not for a relation where only one coordinate may move, nor for scalars
    one = as_lists(dpaudit.QueryDistance(1.0, one_coordinate=True).candidates(Box(0, 6, shape=(3,)),
                                                                             np.random.default_rng(0)))
    assert ([0.0, 6.0, 6.0], [1.0, 5.0, 5.0]) not in one
    assert len(dpaudit.QueryDistance(1.0).candidates(Box(0, 6), np.random.default_rng(0))) <= 40


def test_the_search_now_finds_the_exponential_mechanisms_loss(monkeypatch):
    """Eight candidates with utilities in [0, 10]: the pattern reaches 0.998 of epsilon = 1, where the
    structured moves and random bases alone reached 0.91 (checked here by switching the pattern off)."""
    mech = ExponentialMechanism(1.0, 8)
    search = dpaudit.QueryDistance(1.0).over(Box(0, 10, shape=(8,)))
    found = dpaudit.audit_privacy(mech, dpaudit.PureDP(1.0), neighbours=search, seed=0)
    assert found.verdict == "verified" and found.epsilon_lower > 0.99
    assert found.parameters["pairs_searched"] <= 400  # the pattern adds 16 pairs to 380
    monkeypatch.setattr(neighbours.QueryDistance, "one_against_the_rest", lambda self, domain, step: [])
    before = dpaudit.audit_privacy(mech, dpaudit.PureDP(1.0), neighbours=search, seed=0)
    assert before.epsilon_lower < 0.95


def test_orthogonal_unit_records_are_among_the_replacements():
    domain = Datasets(3, Box(-1.0, 1.0, shape=(2,)))
    pairs = as_lists(dpaudit.ReplaceOne().candidates(domain, np.random.default_rng(0)))
    zero = [[0.0, 0.0]] * 2
    assert ([[1.0, 0.0], *zero], [[0.0, 1.0], *zero]) in pairs
    assert ([[1.0, 0.0], *zero], [[-1.0, 0.0], *zero]) in pairs
    assert ([[1.0, 0.0], *zero], [[0.0, 0.0], *zero]) in pairs
    assert Datasets(3, Box(0.0, 1.0)).unit_replacements() == []  # scalar records: nothing to turn
    assert Datasets(3, Box(0.5, 1.0, shape=(2,))).unit_replacements() == []  # 0 is not a record
    assert Datasets(3, ("a", "b")).unit_replacements() == []  # categories


def test_unit_records_are_scaled_into_a_box_that_holds_no_unit_vector():
    """The cube inside the unit ball, [-1/sqrt 2, 1/sqrt 2]^2: the axis vectors scaled into it, and its
    orthogonal corners (1, 1)/sqrt 2 and (1, -1)/sqrt 2, the only orthogonal records of norm 1 in it."""
    r = Box.inside_ball(1.0, 2).high  # 1/sqrt 2
    pairs = as_lists(Box.inside_ball(1.0, 2).unit_pairs())
    assert pairs == [([r, 0.0], [0.0, r]), ([r, 0.0], [-r, 0.0]), ([r, 0.0], [0.0, 0.0]), ([r, r], [r, -r])]
    # more than two entries: also e_0 against the last axis; an asymmetric box has no corner pair
    wide = as_lists(Box(0.0, 3.0, shape=(3,)).unit_pairs())
    assert wide == [([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]), ([1.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
                    ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0])]
    assert Box(-2, 2, shape=(2, 2), integer=True).unit_pairs()[-1][1].tolist() == [[2, -2], [-2, 2]]


def test_add_remove_adds_a_unit_record():
    domain = Datasets(2, Box(-1.0, 1.0, shape=(3,)))
    pairs = as_lists(dpaudit.AddRemoveOne().candidates(domain, np.random.default_rng(0), random=0))
    low = [[-1.0] * 3] * 2
    assert (low, [*low, [1.0, 0.0, 0.0]]) in pairs
    for d0, d1 in pairs:
        dpaudit.AddRemoveOne().check(d0, d1)


class GramRelease:
    """Releases the sum of x x^T over records x (each scaled into the unit ball), plus N(0, 1) noise on
    each of the four entries: the change is largest, Frobenius sqrt 2, between orthogonal unit records,
    while opposite records (x and -x) leave x x^T unchanged."""

    name = "gram-release"

    @staticmethod
    def _gram(data):
        x = np.asarray(data, dtype=float)
        x = x / np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))
        return (x[:, :, None] * x[:, None, :]).sum(axis=0).ravel()

    def sample(self, data, size, rng):
        return self._gram(data) + rng.normal(size=(size, 4))

    def distribution(self, data):
        return ProductDistribution(tuple(GaussianDistribution(float(v), 1.0) for v in self._gram(data)))


def test_the_search_reaches_the_orthogonal_records_worst_case(monkeypatch):
    """Structured candidates only (no random datasets): the orthogonal unit records reach rho = 1
    (||change||_F^2 / 2 with ||change||_F = sqrt 2), where the extremes and the middle reached 0.5 (a
    record set to zero); random records approach 1 only by chance."""
    search = dpaudit.ReplaceOne().over(Datasets(2, Box(-1.0, 1.0, shape=(2,))), random=0)
    res = dpaudit.audit_privacy(GramRelease(), dpaudit.ZCDP(0.9), neighbours=search, seed=0)
    assert res.verdict == "refuted" and res.statistic.interval[0] == pytest.approx(1.0, rel=1e-6)
    monkeypatch.setattr(Datasets, "unit_replacements", lambda self: [])
    before = dpaudit.audit_privacy(GramRelease(), dpaudit.ZCDP(0.9), neighbours=search, seed=0)
    assert before.verdict == "verified" and before.statistic.interval[1] == pytest.approx(0.5, rel=1e-6)


def test_the_search_reaches_orthogonal_records_inside_the_unit_ball(monkeypatch):
    """Records in the cube inside the unit ball, where no axis vector of norm 1 is a record: the corners
    (1, 1)/sqrt 2 and (1, -1)/sqrt 2 reach rho = 1 again; without the corner pair the structured
    candidates reach 0.5 (a corner set to zero or to the opposite corner leaves x x^T's change at norm 1)."""
    search = dpaudit.ReplaceOne().over(Datasets(2, Box.inside_ball(1.0, 2)), random=0)
    res = dpaudit.audit_privacy(GramRelease(), dpaudit.ZCDP(0.9), neighbours=search, seed=0)
    assert res.verdict == "refuted" and res.statistic.interval[0] == pytest.approx(1.0, rel=1e-6)
    without_corners = Box.unit_pairs
    monkeypatch.setattr(Box, "unit_pairs", lambda self: without_corners(self)[:-1])
    before = dpaudit.audit_privacy(GramRelease(), dpaudit.ZCDP(0.9), neighbours=search, seed=0)
    assert before.verdict == "verified" and before.statistic.interval[1] == pytest.approx(0.5, rel=1e-6)
