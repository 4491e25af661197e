"""The statements tables (``audits/<paper>/statements.toml``): every numbered statement of each paper is audited by
entries or left out with a reason, every selector selects an entry, every entry belongs to a statement."""

from __future__ import annotations

import pytest

from dpaudit.core.claim_ids import PAPERS
from dpaudit.suite import load_suites
from dpaudit.suite.statements import STATUSES, TableError, load_table, parse_table, problems


@pytest.fixture(scope="module")
def suites():
    return load_suites()


def ids(suites, paper: str) -> list[str]:
    return [e.id for e in suites[paper].entries]


def outside(suites, paper: str) -> set[str]:
    return {e.id for e in suites[paper].entries if e.footing == "hypothesis not met"}


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_every_statement_is_audited_or_left_out_with_a_reason(suites, paper):
    table = load_table(paper)
    found = problems(table, ids(suites, paper), outside(suites, paper))
    assert not found, f"{paper}'s statements table:\n  " + "\n  ".join(found)
    counts = table.counts()
    assert counts["statements"] == sum(counts[s] for s in STATUSES) > 0


PLANTED = """
[[statement]]
id = "thm1"
printed = "Theorem 1"
says = "the mechanism is eps-DP"
  [[statement.part]]
  part = "privacy"
  entries = ["thm1-privacy"]
  [[statement.part]]
  part = "tail"
  reason = "the exact law is out of reach"
  [[statement.part]]
  part = "accuracy"
  checkable = false
  reason = "O(.) only"

[[statement]]
id = "def1"
printed = "Definition 1"
says = "neighbouring tables"
reason = "a definition"
"""

IDS = ["p/thm1-privacy@eps1", "p/thm1-privacy@eps2"]


def planted(text: str, ids=IDS) -> list[str]:
    return problems(parse_table("p", text), ids)


def test_a_table_that_holds_has_no_problems_and_counts_its_statuses():
    assert planted(PLANTED) == []
    table = parse_table("p", PLANTED)
    assert [s.status for s in table.statements] == ["partly", "nothing to check"]
    assert table.counts() == {"statements": 2, "encoded": 0, "partly": 1, "left out": 0,
                              "nothing to check": 1}


@pytest.mark.parametrize("change, expected", [
    # a part with neither entries nor reason
    (('  reason = "the exact law is out of reach"\n', ""), "neither entries nor a reason"),
    # a part that is not checkable has a reason and no entries
    (('  reason = "O(.) only"\n', ""), "not checkable, so it takes a reason"),
    (('  checkable = false\n', '  checkable = false\n  entries = ["thm1-privacy"]\n'), "not checkable, so it"),
    # a statement with no part and no reason
    (('reason = "a definition"\n', ""), "no part to check and no reason why"),
    # an id that does not exist
    (('entries = ["thm1-privacy"]', 'entries = ["thm1-privacy", "thm9-privacy"]'), "'thm9-privacy' selects no entry"),
    # a point that does not exist
    (('entries = ["thm1-privacy"]', 'entries = ["thm1-privacy@eps3"]'), "selects no entry"),
    # "audited with the algorithms" without the entries that do it
    (('reason = "the exact law is out of reach"', 'reason = "audited with the algorithms"'), "names no entry"),
    (('reason = "O(.) only"', 'reason = "O(.) only, audited on the exact law"'), "names no entry"),
    (('reason = "a definition"', 'reason = "audited as thm1"'), "names no entry"),
    # both entries and a reason on one part
    (('entries = ["thm1-privacy"]', 'entries = ["thm1-privacy"]\n  reason = "x"'), "both entries and a reason"),
])
def test_a_planted_gap_is_a_problem(change, expected):
    old, new = change
    assert old in PLANTED
    found = planted(PLANTED.replace(old, new, 1))
    assert any(expected in f for f in found), found


def test_an_entry_outside_the_hypotheses_may_be_pointed_to_but_not_listed_as_auditing():
    assert planted(PLANTED) == []
    found = problems(parse_table("p", PLANTED), IDS, {"p/thm1-privacy@eps2"})
    assert found == ["Theorem 1 (thm1) part 'privacy': p/thm1-privacy@eps2 is outside the statement's hypotheses: "
                     "point to it with `see`, it does not audit the statement"]
    pointed = PLANTED.replace('entries = ["thm1-privacy"]',
                              'entries = ["thm1-privacy@eps1"]\n  see = ["thm1-privacy@eps2"]')
    assert pointed != PLANTED and problems(parse_table("p", pointed), IDS, {"p/thm1-privacy@eps2"}) == []


def test_an_entry_no_statement_claims_is_a_problem():
    assert planted(PLANTED, IDS + ["p/lem2@x"]) == ["entry p/lem2@x belongs to no statement"]
    # an entry a reason points to is claimed
    pointed = PLANTED.replace('reason = "O(.) only"', 'reason = "O(.) only; its step is audited as lem2"\n'
                              '  see = ["lem2"]')
    assert pointed != PLANTED
    assert planted(pointed, IDS + ["p/lem2@x"]) == []


def test_a_statement_listed_twice_and_a_part_listed_twice_are_problems():
    twice = PLANTED + "[[statement]]" + PLANTED.split("[[statement]]")[2]
    assert any("listed 2 times" in f for f in planted(twice))
    part_twice = PLANTED.replace('part = "tail"', 'part = "privacy"')
    assert part_twice != PLANTED
    assert any("part 'privacy' listed 2 times" in f for f in planted(part_twice))
    # two parts of one kind, told apart by what each is
    told_apart = part_twice.replace('  part = "privacy"\n  reason', '  part = "privacy"\n  what = "composed"\n  reason')
    assert told_apart != part_twice and planted(told_apart) == []


@pytest.mark.parametrize("text, message", [
    ("[[statement]]\nid = 'thm1'\nprinted = 'Theorem 1'\n", "'says' must be a non-empty string"),
    ("[[statement]]\nid = 'thm1'\nprinted = 'T'\nsays = 's'\nwhy = 'x'\n", "unknown keys ['why']"),
    ("[[statement]]\nid = 'thm1'\nprinted = 'T'\nsays = 's'\n[[statement.part]]\npart = 'utility'\nreason = 'x'\n",
     "part 'utility' must be one of"),
    ("[[statement]]\nid = 'thm1'\nprinted = 'T'\nsays = 's'\n[[statement.part]]\npart = 'tail'\nentries = 'thm1'\n",
     "must be a list of non-empty strings"),
    ("[[statement]\n", "is not TOML"),
])
def test_a_malformed_table_is_refused_with_what_is_wrong(text, message):
    with pytest.raises(TableError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        parse_table("p", text)


def test_load_table_refuses_a_suite_that_is_not_a_paper():
    with pytest.raises(ValueError, match="paper must be one of"):
        load_table("classic")


def test_a_part_that_is_not_checkable_does_not_count_against_the_statement():
    encoded = PLANTED.replace('  part = "tail"\n  reason = "the exact law is out of reach"\n',
                              '  part = "tail"\n  checkable = false\n  reason = "unprinted constants"\n')
    assert encoded != PLANTED
    assert parse_table("p", encoded).statements[0].status == "encoded"
    left_out = PLANTED.replace('  entries = ["thm1-privacy"]\n', '  reason = "out of reach"\n')
    assert left_out != PLANTED
    assert parse_table("p", left_out).statements[0].status == "left out"
    nothing = encoded.replace('  part = "privacy"\n  entries = ["thm1-privacy"]\n',
                              '  part = "privacy"\n  checkable = false\n  reason = "O(1/eps) only"\n')
    assert nothing != encoded
    assert parse_table("p", nothing).statements[0].status == "nothing to check"


def test_docs_statements_page_is_rendered_from_the_tables():
    """docs/statements.md and docs/papers.md's counts are what tools/statements.py writes from the tables: rerun it
    after changing a table."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("_statements_tool", root / "tools" / "statements.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    page = root / "docs" / "statements.md"
    assert page.read_text(encoding="utf-8") == tool.render(), "docs/statements.md is stale: python tools/statements.py"
    papers = (root / "docs" / "papers.md").read_text(encoding="utf-8")
    assert papers == tool.papers_page(papers), "docs/papers.md's counts are stale: python tools/statements.py"
    assert "| `dist-mab` |" in papers[papers.index(tool.COUNTS_START):papers.index(tool.COUNTS_END)]
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert tool.README_TOTALS.search(readme), "README.md lost its statements totals sentence"
    assert readme == tool.readme_page(readme), "README.md's statements totals are stale: python tools/statements.py"


def test_the_reports_show_each_papers_coverage_and_its_gaps():
    from dpaudit.reports import coverage
    from dpaudit.suite.statements import as_record

    tables = {"p": as_record(parse_table("p", PLANTED))}
    md = "\n".join(coverage.markdown_section(tables))
    assert "## Statements (2)" in md and "| `p` | 2 | 0 | 1 | 0 | 1 |" in md
    assert "**Theorem 1** (`thm1`, partly): privacy: `thm1-privacy`; tail: the exact law is out of reach; " \
           "accuracy, nothing to check: O(.) only" in md
    assert "Definition 1" not in md  # nothing to check is counted, not listed among the gaps
    html = "\n".join(coverage.html_section(tables))
    assert 'id="statements"' in html and "1 partly or left out" in html and "Theorem 1" in html
    assert "privacy: <code>thm1-privacy</code>; tail: the exact law is out of reach" in html and "`" not in html
    assert coverage.markdown_section({}) == [] and coverage.html_section({}) == []


def test_a_run_of_a_papers_suite_carries_its_table_and_a_run_of_another_suite_none():
    from dpaudit.runner.run import RunOptions, plan

    selected = plan(RunOptions(selectors=["concurrent-shuffle/lemB.3", "classic/clamped-laplace-eps1"]))
    assert list(selected.statements) == ["concurrent-shuffle"]
    table = selected.statements["concurrent-shuffle"]
    assert table["counts"] == load_table("concurrent-shuffle").counts()
    assert {s["id"] for s in table["statements"]} >= {"thm3.2", "lemB.3"}
    assert plan(RunOptions(selectors=["classic/clamped-laplace-eps1"])).statements == {}
    # results.json's schema describes it
    import jsonschema

    from dpaudit.core.results import json_schema

    schema = json_schema()["properties"]["run"]["properties"]["statements"]
    jsonschema.validate(selected.statements, schema)
    broken = {"concurrent-shuffle": {**table, "statements": [{**table["statements"][0], "status": "half"}]}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_a_statement_with_several_parts_names_the_part_in_each_entrys_id(suites, paper):
    """Where a statement's entries audit two or more kinds that ids name (privacy, regret, tail, ...), every one of
    them says which part it audits (dist-mab/fact3-privacy beside fact3-tail), so ids read alike across the suites."""
    from dpaudit.core.claim_ids import parse_claim_id, selector_matches

    named = {"privacy", "regret", "tail", "accuracy", "confidence", "lower-bound", "communication"}
    unnamed = []
    for s in load_table(paper).statements:
        kinds = {p.part for p in s.parts if p.entries and p.part in named}
        if len(kinds) < 2:
            continue
        for p in s.parts:
            for selector in p.entries if p.part in named else ():
                unnamed += [cid for cid in ids(suites, paper) if selector_matches(f"{paper}/{selector}", cid)
                            and parse_claim_id(cid).part is None]
    assert not unnamed, unnamed
