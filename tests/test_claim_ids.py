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
