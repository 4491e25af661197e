"""Input domains, candidate pairs of every relation, and audits that search for the worst pair.

Seeded statistical assertions: refutations of epsilon 1 claims for mechanisms whose true epsilon
is 3 fail with probability below 1e-9 at these sample sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import AddRemoveOne, NotNeighbours, PureDP, QueryDistance, ReplaceOne, ReplaceRewardVector, ReplaceUser
from dpaudit.core.domains import Box, Datasets
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.suite import PrivacyEntry


def rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize(
    ("relation", "domain"),
    [
        (QueryDistance(1), Box(0, 10)),
        (QueryDistance(1), Box(-1, 1, shape=(5,))),
        (QueryDistance(2, one_coordinate=True), Box(0, 10, shape=(12,), integer=True)),
        (ReplaceOne(), Datasets(5, ("a", "b", "c"))),
        (ReplaceOne(), Datasets(4, Box(0, 1))),
        (AddRemoveOne(), Datasets(4, (0, 1))),
        (ReplaceUser(batch_size=6), Datasets(6, Box(0, 1, shape=(2,)))),
        (ReplaceRewardVector(), Box(0, 1, shape=(5, 3))),
    ],
)
def test_every_candidate_is_a_pair_of_neighbours(relation, domain):
    pairs = relation.over(domain, random=8).pairs(rng())
    assert len(pairs) >= 4
    for d0, d1 in pairs:
        relation.check(d0, d1)
        assert not np.array_equal(np.asarray(d0, dtype=object), np.asarray(d1, dtype=object)) or len(d0) != len(d1)
    assert len({repr(p) for p in pairs}) == len(pairs)


def test_query_distance_patterns():
    pairs = QueryDistance(1).over(Box(0, 5, shape=(4,)), random=0).pairs(rng())
    diffs = {tuple(np.subtract(d1, d0)) for d0, d1 in pairs}
    assert (1.0, 0.0, 0.0, 0.0) in diffs  # one entry changed
    assert (1.0, 1.0, 1.0, 1.0) in diffs  # every entry changed
    assert (1.0, 1.0, -1.0, -1.0) in diffs  # opposite directions
    assert ([0.0] * 4, [1.0, 0.0, 0.0, 0.0]) in pairs  # an extreme point of the domain
    one = QueryDistance(1, one_coordinate=True).over(Box(0, 5, shape=(4,)), random=0).pairs(rng())
    assert all(np.count_nonzero(np.subtract(d1, d0)) == 1 for d0, d1 in one)


def test_pairs_stay_in_the_domain():
    box = Box(0, 1.5, shape=(3,))
    for d0, d1 in QueryDistance(1).over(box).pairs(rng()):
        assert all(0 <= v <= 1.5 for v in (*d0, *d1))


def test_domain_errors():
    with pytest.raises(ValueError, match="low <= high"):
        Box(1, 0)
    with pytest.raises(ValueError, match="integer"):
        Box(0.5, 2, integer=True)
    with pytest.raises(ValueError, match="size"):
        Datasets(0)
    with pytest.raises(NotNeighbours, match="cannot search"):
        ReplaceOne().over(Box(0, 1)).pairs(rng())
    with pytest.raises(NotNeighbours, match="no room"):
        QueryDistance(0.5).over(Box(0, 3, integer=True)).pairs(rng())
    with pytest.raises(NotNeighbours, match="not 3"):
        ReplaceUser(batch_size=3).over(Datasets(4)).pairs(rng())


def test_exact_search_finds_the_worst_pair():
    m = LaplaceMechanism(1.0)
    one = dpaudit.audit_privacy(m, PureDP(1.0),
                                neighbours=QueryDistance(1, one_coordinate=True).over(Box(0, 10, shape=(3,))))
    assert one.verdict == "verified" and one.parameters["pairs_searched"] > 10
    every = dpaudit.audit_privacy(m, PureDP(1.0), neighbours=QueryDistance(1).over(Box(0, 10, shape=(3,))))
    assert every.verdict == "refuted" and every.statistic.interval == (3.0, 3.0)
    d0, d1 = every.witness["pair"]
    assert np.all(np.abs(np.subtract(d1, d0)) == 1)
    assert every.relation["domain"].startswith("Box(")


@pytest.mark.slow
def test_statistical_search_refutes_with_a_searched_pair():
    r = dpaudit.audit_privacy(LaplaceMechanism(1.0), PureDP(1.0),
                              neighbours=QueryDistance(1).over(Box(0, 10, shape=(3,))),
                              auditor="statistical", samples=400_000, seed=0, sequential=False)
    assert r.verdict == "refuted" and r.epsilon_lower > 1.5  # the fixed audit: a sequential one stops just above 1
    assert r.parameters["selection_rounds"][0]["pairs"] == r.parameters["pairs_searched"]


def test_search_in_a_suite_entry():
    search = QueryDistance(1, one_coordinate=True).over(Box(0, 4, shape=(2,)))
    entry = PrivacyEntry("my-suite/laplace", subject=LaplaceMechanism(0.5), claim=PureDP(0.5), relation=search)
    assert "searched over Box" in entry.describe()["relation"]
    with pytest.raises(ValueError, match="give pairs"):
        PrivacyEntry("my-suite/x", subject=LaplaceMechanism(0.5), claim=PureDP(0.5), relation=QueryDistance(1))


@pytest.mark.slow
def test_search_is_deterministic_given_the_seed():
    search = QueryDistance(1).over(Box(0, 10, shape=(2,)))
    a = dpaudit.audit_privacy(LaplaceMechanism(1.0), PureDP(2.0), neighbours=search, auditor="statistical",
                              samples=50_000, seed=3)
    b = dpaudit.audit_privacy(LaplaceMechanism(1.0), PureDP(2.0), neighbours=search, auditor="statistical",
                              samples=50_000, seed=3)
    assert a.witness == b.witness
