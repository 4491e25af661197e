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


def test_pairs_without_a_relation_are_recorded_and_reported_as_taken_unchecked():
    """audit_privacy(pairs=...) with no relation audits the pairs as given, and its record's relation (the report's
    relation row) says they were taken as neighbours unchecked; with a relation every pair is checked."""
    import dpaudit
    from dpaudit.mechanisms import LaplaceMechanism
    from dpaudit.reports.summary import claim_fields

    mech, claim = LaplaceMechanism(1.0), dpaudit.PureDP(1.0)
    bare = dpaudit.audit_privacy(mech, claim, pairs=[(0, 1)], seed=0)
    stated = dpaudit.audit_privacy(mech, claim, pairs=[(0, 1)], neighbours=QueryDistance(sensitivity=1), seed=0)
    assert bare.verdict == stated.verdict == "verified"
    assert bare.relation["name"] == "unchecked" and stated.relation == QueryDistance(sensitivity=1).to_dict()
    relation_row = dict(claim_fields(bare.to_dict()))["relation"]
    assert relation_row.startswith("none given: the pairs were taken as neighbours unchecked")
    assert dict(claim_fields(stated.to_dict()))["relation"] == stated.relation["description"]
    with pytest.raises(NotNeighbours):  # the check the bare audit skipped
        dpaudit.audit_privacy(mech, claim, pairs=[(0, 3)], neighbours=QueryDistance(sensitivity=1), seed=0)


def test_the_audit_command_says_whether_its_pairs_were_checked(tmp_path, capsys):
    from dpaudit.cli import main

    (tmp_path / "unchecked_mechs.py").write_text("def laplace(data, size, rng):\n"
                                                 "    return data + rng.laplace(0.0, 1.0, size)\n")
    args = ["audit", f"{tmp_path / 'unchecked_mechs.py'}:laplace", "--claim", "pure-dp eps=1", "--pair", "[0, 1]",
            "--samples", "20000", "--seed", "0"]
    assert main(args) == 0
    assert "  neighbours: none given: the pairs were taken as neighbours unchecked (--relation states it)\n" in \
        capsys.readouterr().out
    assert main([*args, "--relation", "query-distance sensitivity=1"]) == 0
    assert "  neighbours: query answers differing by at most 1 in each coordinate, every pair checked\n" in \
        capsys.readouterr().out
    assert main([*args, "--relation", "query-distance sensitivity=0.5"]) == 2  # the pair is checked, and fails
    assert "differ by 1 > sensitivity 0.5" in capsys.readouterr().err
