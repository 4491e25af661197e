from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpaudit.core.claim_ids import KINDS, PAPERS, PARTS, InvalidClaimId, parse_claim_id, selector_matches


@pytest.mark.parametrize(
    ("text", "kind", "number", "part"),
    [
        ("dist-mab/thm1-privacy", "thm", "1", "privacy"),
        ("dist-mab/lem5", "lem", "5", None),
        ("private-online/thm6", "thm", "6", None),
        ("concurrent-shuffle/thm4.1", "thm", "4.1", None),
        ("shuffle-lcb/thm3.2-regret", "thm", "3.2", "regret"),
        ("concurrent-shuffle/lemB.2", "lem", "B.2", None),
        ("shuffle-lcb/thmE.5-regret", "thm", "E.5", "regret"),
        ("dist-mab/claimsec4a", "claim", "sec4a", None),
        ("dist-mab/claimsecD.1a", "claim", "secD.1a", None),
        ("shuffle-glm/claimsec5-jdp", "claim", "sec5", "jdp"),
        ("shuffle-glm/claimobs1", "claim", "obs1", None),
        ("private-online/claimfn2", "claim", "fn2", None),
        ("dist-mab/fact3-privacy", "fact", "3", "privacy"),
    ],
)
def test_paper_ids(text, kind, number, part):
    cid = parse_claim_id(text)
    assert (cid.kind, cid.number, cid.part) == (kind, number, part)
    assert str(cid) == text


@pytest.mark.parametrize(
    "text",
    ["dist-mab", "dist-mab/", "/thm1", "dist-mab/theorem1", "dist-mab/thm1-foo", "dist-mab/thm", "dist-mab/thm1.",
     "Dist-Mab/thm1", "dist mab/thm1", "classic/", "classic/has space", "classic/-x", 42],
)
def test_invalid_ids(text):
    with pytest.raises(InvalidClaimId):
        parse_claim_id(text)  # type: ignore[arg-type]


def test_free_names_outside_papers():
    assert parse_claim_id("classic/laplace-eps0.1").kind is None
    assert parse_claim_id("my-suite/anything_1.2").name == "anything_1.2"


@pytest.mark.slow
@given(st.sampled_from(sorted(PAPERS)), st.sampled_from(KINDS),
       st.from_regex(r"[A-H]?[0-9]{1,2}(\.[0-9])?", fullmatch=True),
       st.none() | st.sampled_from(PARTS))
def test_generated_paper_ids_parse(paper, kind, number, part):
    text = f"{paper}/{kind}{number}" + (f"-{part}" if part else "")
    cid = parse_claim_id(text)
    assert (cid.kind, cid.number, cid.part) == (kind, number, part)


def test_selectors():
    cid = "shuffle-lcb/thmE.5-regret"
    assert selector_matches("shuffle-lcb", cid)
    assert selector_matches("SHUFFLE-LCB/THME.5-REGRET", cid)
    assert selector_matches("shuffle-lcb/thm*", cid)
    assert selector_matches("*-regret", cid)
    assert not selector_matches("shuffle", cid)
    assert not selector_matches("shuffle-lcb/thm", cid)
    assert not selector_matches("dist-mab", cid)


def test_parameter_points():
    cid = parse_claim_id("dist-mab/prop1-tail@var100")
    assert (cid.kind, cid.number, cid.part, cid.point) == ("prop", "1", "tail", "var100")
    assert str(cid) == "dist-mab/prop1-tail@var100"
    assert parse_claim_id("classic/x@eps=0.5,n=10").point == "eps=0.5,n=10"
    for bad in ("dist-mab/prop1@", "dist-mab/prop1@ x", "dist-mab/prop1@-x", "dist-mab/prop1@a@b"):
        with pytest.raises(InvalidClaimId, match="parameter point"):
            parse_claim_id(bad)
    # an id without a point selects every point of the claim; with one, only that point
    assert selector_matches("dist-mab/prop1-tail", "dist-mab/prop1-tail@var100")
    assert not selector_matches("dist-mab/prop1-tail@var1", "dist-mab/prop1-tail@var100")
    assert not selector_matches("dist-mab/prop1", "dist-mab/prop1-tail@var100")
    assert selector_matches("dist-mab/prop1*", "dist-mab/prop1-tail@var100")


def test_renamed_claims_answer_to_their_old_ids_and_keep_their_seeds(tmp_path):
    """Figures numbered as printed, parts named in the id: every new id is an entry and no old one is; an old id
    selects and finds the new entry, a run's record of it is seeded from the old id (so its verdict and witness do
    not move), and an older run's record of the old id is compared under the new one."""
    import json

    from dpaudit.core.claim_ids import RENAMED, current_id, seed_id
    from dpaudit.core.seeding import claim_seed_sequence
    from dpaudit.reports.compare import Run
    from dpaudit.suite import find_entry, load_suites, select

    suites = load_suites()
    ids = {e.claim_id.key for s in suites.values() for e in s.entries}
    assert RENAMED and all(new.casefold() in ids and old.casefold() not in ids for old, new in RENAMED.items())
    for old, new in RENAMED.items():
        assert current_id(old.upper()) == new and current_id(new) == new and seed_id(new) == old
        assert [e.id for e in select(suites, [old])] == [new] and find_entry(old).id == new
    assert seed_id("dist-mab/thm1-privacy@eps1") == "dist-mab/thm1-privacy@eps1"
    figure7 = "private-online/fig7@setting2,eps8"
    assert "fig7@setting2,eps8" in {e.id.partition("/")[2] for e in select(suites, ["private-online/fig7"])}
    # a record written now: seeded as the old id was
    from dpaudit.api.records import assemble_record
    from dpaudit.suite import RunContext

    entry = find_entry("dist-mab/fact2@privacy,Delta1,eps1")
    seq = claim_seed_sequence(0, seed_id(entry.id))
    assert seq.entropy == claim_seed_sequence(0, "dist-mab/fact2@privacy,Delta1,eps1").entropy
    record = assemble_record(entry.audit(RunContext(0, "quick", 0.01, seq)), entry=entry,
                             run=RunContext(0, "quick", 0.01, seq), claim_id=entry.id)
    assert record.claim_id == "dist-mab/fact2-privacy@Delta1,eps1"
    assert record.seed["claim_id"] == "dist-mab/fact2@privacy,Delta1,eps1"
    # an older results file: its record of the old id is read under the new one
    old = dict(record.to_dict(), claim_id="private-online/fig6@setting2,eps8")
    run = Run.from_document({"run": {}, "records": [json.loads(json.dumps(old))]}, "old")
    assert list(run.records) == [figure7.casefold()] and run.records[figure7.casefold()].claim_id == figure7
