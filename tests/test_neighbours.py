from __future__ import annotations

import pytest

from dpaudit import AddRemoveOne, NotNeighbours, QueryDistance, ReplaceOne, ReplaceRewardVector, ReplaceUser
from dpaudit.core.neighbours import parse_relation


def test_replace_one():
    r = ReplaceOne()
    r.check([1, 2, 3], [1, 5, 3])
    r.check([[0, 1], [2, 3]], [[0, 1], [2, 4]])
    r.check([1, 2], [1, 2])
    with pytest.raises(NotNeighbours, match="2 records differ"):
        r.check([1, 2, 3], [0, 2, 4])
    with pytest.raises(NotNeighbours, match="same shape"):
        r.check([1, 2], [1, 2, 3])
    with pytest.raises(NotNeighbours, match="scalar"):
        r.check(1, 2)


def test_add_remove_one():
    r = AddRemoveOne()
    r.check([1, 2, 3], [1, 3])
    r.check([1, 3], [1, 2, 3])
    r.check([1, 2, 3], [1, 2])
    r.check([5], [])  # removing the only record
    with pytest.raises(NotNeighbours):
        r.check([1, 2, 3], [2, 1])
    with pytest.raises(NotNeighbours, match="exactly one"):
        r.check([1, 2, 3], [1])


def test_replace_user_and_reward_vector():
    ReplaceUser(batch_size=3).check([0, 1, 1], [0, 0, 1])
    with pytest.raises(NotNeighbours, match="3 users"):
        ReplaceUser(batch_size=3).check([0, 1], [0, 0])
    with pytest.raises(NotNeighbours, match="2 users differ"):
        ReplaceUser().check([0, 1, 1], [1, 0, 1])
    ReplaceRewardVector().check([[0, 1], [1, 1]], [[0, 1], [0, 0]])
    with pytest.raises(NotNeighbours, match="2 rounds"):
        ReplaceRewardVector().check([[0, 1], [1, 1]], [[1, 1], [0, 0]])


def test_query_distance():
    QueryDistance(1).check(0, 1)
    QueryDistance(1).check([0, 0], [1, -1])
    with pytest.raises(NotNeighbours, match="2 coordinates"):
        QueryDistance(1, one_coordinate=True).check([0, 0], [1, -1])
    with pytest.raises(NotNeighbours, match="sensitivity"):
        QueryDistance(1).check(0, 1.5)
    with pytest.raises(ValueError, match="sensitivity"):
        QueryDistance(0)


def test_parse_relation():
    assert parse_relation("query-distance sensitivity=2 one_coordinate=true") == QueryDistance(2.0, True)
    assert parse_relation("replace-one") == ReplaceOne()
    assert parse_relation("replace-user batch_size=4") == ReplaceUser(4)
    with pytest.raises(NotNeighbours, match="unknown relation"):
        parse_relation("swap")
    with pytest.raises(NotNeighbours, match="no parameter"):
        parse_relation("replace-one sensitivity=1")


def test_to_dict_names_the_relation():
    d = QueryDistance(1).to_dict()
    assert d["name"] == "query-distance" and d["sensitivity"] == 1 and "description" in d
