"""Reports: valid JUnit XML, one self-contained escaped HTML file, markdown, re-rendering.

The run behind these tests is seeded; its only statistical verdict expected "not-refuted"
(classic/laplace-eps1-blackbox) would flip with probability at most 0.01 over seeds.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import escape as html_escape

import jsonschema
import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

import dpaudit
from dpaudit.core.results import json_schema
from dpaudit.reports import rerender
from dpaudit.runner import RunOptions, run


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    """One run with every outcome: pass, expected refutation, not reproduced, unexpected, error."""
    from pathlib import Path

    suites = Path(__file__).parent / "suites"
    out = tmp_path_factory.mktemp("rep")
    run(RunOptions(selectors=["testing-broken", "testing-refutations", "classic/laplace-eps1*"], out=out, workers=2,
                   suite_paths=[str(suites / "broken.py"), str(suites / "refutations.py")], progress_bar=False))
    return out


@pytest.mark.slow
def test_results_file_matches_schema(mixed_run):
    doc = json.loads((mixed_run / "results.json").read_text())
    jsonschema.validate(doc, json_schema())
    assert [r["claim_id"] for r in doc["records"]] == sorted(r["claim_id"] for r in doc["records"])


def test_junit_is_valid_and_maps_outcomes(mixed_run):
    xml = JUnitXml.fromfile(str(mixed_run / "junit.xml"))
    cases = {case.name: case for suite in xml for case in suite}
    assert len(cases) == 7

    def kinds(name):
        return [type(r) for r in cases[name].result]

    assert kinds("classic/laplace-eps1") == []
    assert kinds("testing-broken/overclaimed") == [Failure]
    assert kinds("testing-refutations/not-reproduced") == [Failure]
    assert kinds("testing-broken/raises") == [Error]
    assert kinds("testing-refutations/reproduced") == [Skipped]
    assert "scale 0.5 gives epsilon 2" in cases["testing-refutations/reproduced"].result[0].message
    root = ET.parse(mixed_run / "junit.xml").getroot()
    assert root.tag == "testsuites" and root.get("tests") == "7"
    assert (root.get("failures"), root.get("errors"), root.get("skipped")) == ("2", "1", "1")


def test_html_opens_offline(mixed_run):
    html = (mixed_run / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>")
    doc = json.loads((mixed_run / "results.json").read_text())
    # nothing is fetched: the plots of claims that do not pass are data URIs, those of passing claims
    # files beside the report; every href is an in-page anchor. No plot has a source until its card opens
    embedded = [r for r in doc["records"] if r["outcome"] != "pass" and r.get("plots")]
    linked = [p for r in doc["records"] if r["outcome"] == "pass" for p in r.get("plots") or []]
    assert embedded and linked
    assert re.search(r"<img[^>]*\ssrc=", html) is None
    sources = re.findall(r'<img [^>]*data-src="([^"]*)"', html)
    assert sum(src.startswith("data:image/png;base64,") for src in sources) == sum(len(r["plots"]) for r in embedded)
    assert sorted(src for src in sources if not src.startswith("data:")) == sorted(linked)
    assert all((mixed_run / p).is_file() for p in linked)
    assert all(href.startswith("#") for href in re.findall(r'href="([^"]*)"', html))
    # the one script (filters and search) is inline; nothing is loaded
    assert "<link" not in html and "<script src" not in html and html.count("<script") == 1
    assert html.count("<section") == 7
    for word in ("testing-broken", "refuted", "witness", "Traceback"):
        assert word.lower() in html.lower()


def test_every_string_is_escaped(tmp_path, suites_dir):
    (tmp_path / "xss.py").write_text(
        "from dpaudit import PureDP\n"
        "from dpaudit.mechanisms import LaplaceMechanism\n"
        "from dpaudit.suite import Suite\n"
        "suite = Suite('testing-xss', '<b>t</b>')\n"
        "m = LaplaceMechanism(1.0); m.name = '<script>alert(1)</script>'\n"
        "suite.privacy('testing-xss/a', subject=m, claim=PureDP(0.5), pairs=[(0, 1)],"
        " title='<img src=x onerror=alert(1)>', expected='refuted', reason='<i>&amp;</i>', footing='proof step')\n"
    )
    out = tmp_path / "out"
    run(RunOptions(selectors=["testing-xss"], out=out, workers=0, suite_paths=[str(tmp_path / "xss.py")],
                   progress_bar=False))
    html = (out / "report.html").read_text()
    # the report's own filter script is the only one; the name's is escaped
    assert html.count("<script>") == 1 and "<script>alert" not in html
    assert "<img src=x" not in html and "<i>&amp;</i>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    ET.parse(out / "junit.xml")  # still well-formed XML


def test_markdown_has_summary_and_sections(mixed_run):
    md = (mixed_run / "report.md").read_text()
    assert "| paper | claims | verified | refuted | not-refuted | error | unexpected |" in md
    assert "| testing-broken | 3 | 1 | 1 | 0 | 1 | 1 |" in md
    assert "### testing-refutations/reproduced" in md
    assert "![classic/laplace-eps1](plots/classic_laplace-eps1.png)" in md


def test_rerender_from_results_json(mixed_run):
    before = (mixed_run / "report.md").read_text()
    for name in ("report.md", "report.html", "junit.xml"):
        (mixed_run / name).unlink()
    rerender(mixed_run)
    assert (mixed_run / "report.md").read_text() == before
    assert (mixed_run / "junit.xml").is_file() and (mixed_run / "report.html").is_file()


def test_plots_exist_and_are_referenced(mixed_run):
    doc = json.loads((mixed_run / "results.json").read_text())
    plotted = [r for r in doc["records"] if r["plots"]]
    assert plotted
    for r in plotted:
        for rel in r["plots"]:
            assert (mixed_run / rel).read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow
@pytest.mark.parametrize("claim", [dpaudit.PureDP(1.0), dpaudit.ApproxDP(0.5, 0.1),
                                   dpaudit.RenyiDP((2.0, 8.0), (0.5, 0.9)), dpaudit.ZCDP(0.5)])
def test_every_exact_claim_type_has_a_plot(claim):
    from dpaudit.mechanisms import LaplaceMechanism
    from dpaudit.reports.plots import render

    res = dpaudit.audit_privacy(LaplaceMechanism(1.0), claim, pairs=[(0, 1)], auditor="exact")
    png = render(res)
    assert png is not None and png.startswith(b"\x89PNG")


def test_black_box_event_plot_renders():
    from dpaudit.mechanisms import RandomizedResponse
    from dpaudit.reports.plots import render

    res = dpaudit.audit_privacy(RandomizedResponse(1.0), dpaudit.PureDP(0.5), pairs=[([0], [1])], auditor="statistical",
                                samples=20_000, seed=0)
    assert res.plot_data is not None
    png = render(res)
    assert png is not None and png.startswith(b"\x89PNG")


def test_the_report_leads_with_outcomes_and_findings(mixed_run):
    html = (mixed_run / "report.html").read_text()
    md = (mixed_run / "report.md").read_text()
    # the headline sections come before the per-paper cards, and list what results.json says
    doc = json.loads((mixed_run / "results.json").read_text())
    found = [r["claim_id"] for r in doc["records"] if r["outcome"] == "expected-refutation"]
    attention = [r["claim_id"] for r in doc["records"] if r["outcome"] in ("unexpected-refutation",
                                                                            "not-reproduced", "error")]
    assert found and attention
    # the counts and the filters first, then the headline sections, then the claims' cards
    first_card = html.index("<section")
    assert (html.index('id="papers"') < html.index('id="f-paper"') < html.index('id="attention"')
            < html.index('id="findings"') < first_card)
    headline = html[html.index('id="findings"'):first_card]
    assert all(f'href="#c-{cid.casefold().replace("/", "_")}"' in headline for cid in found)
    assert f"## Findings ({len(found)})" in md and f"## Needs attention ({len(attention)})" in md
    # the badge says the outcome first, coloured by it, and the verdict second
    assert '<span class="o o-expected-refutation">expected refutation</span> <span class="v">refuted</span>' in html
    assert '<span class="o o-unexpected-refutation">unexpected refutation</span>' in html
    assert 'id="f-paper"' in html and 'id="f-outcome"' in html and 'id="f-search"' in html
    assert 'name="viewport"' in html
    # every card is a details element, closed unless its claim needs attention; its summary line names the
    # claim, its outcome and verdict and its statistic
    cards = re.findall(r'<section class="claim" id="([^"]*)"[^>]*><details( open)?><summary>(.*?)</summary>', html)
    assert len(cards) == len(doc["records"])
    assert sorted(anchor for anchor, opened, _ in cards if opened) == sorted(
        "c-" + cid.casefold().replace("/", "_") for cid in attention)
    summary = next(line for anchor, _, line in cards if anchor == "c-testing-refutations_reproduced")
    assert summary.startswith("<h3>testing-refutations/reproduced</h3> <span class=\"o o-expected-refutation\">")
    assert '<span class="stat">epsilon' in summary


def test_the_findings_sentence_is_derived_from_the_counts_and_controls_stand_apart():
    """An empty findings section never reads as "nothing was refuted" when something was: every combination of
    papers' findings, controls, unexpected refutations, refutations not reproduced and errors."""
    from dpaudit.reports.summary import controls, findings, findings_sentence

    def records(**counts):
        ids = {"finding": "shuffle-glm/lemA@{}", "control": "classic/broken{}", "unexpected-refutation": "p/u{}",
               "not-reproduced": "p/n{}", "error": "p/e{}", "pass": "p/p{}"}
        outcome = {"finding": "expected-refutation", "control": "expected-refutation"}
        return [{"claim_id": ids[kind].format(i), "outcome": outcome.get(kind, kind)}
                for kind, n in counts.items() for i in range(n)]

    none = "No claim of a paper was refuted as its suite expects."
    assert findings_sentence(records(**{"pass": 3})) == none + " No claim was refuted."
    assert findings_sentence(records(**{"unexpected-refutation": 1})) == \
        none + " Needs attention, above: 1 unexpected refutation."
    assert findings_sentence(records(control=2, **{"pass": 1})) == none  # the controls' own section says the rest
    assert findings_sentence(records(control=1, error=2, **{"not-reproduced": 2})) == \
        none + " Needs attention, above: 2 not reproduced, 2 errors."
    two = findings_sentence(records(finding=2, control=5, **{"unexpected-refutation": 3}))
    assert two.startswith("2 claims of the papers refuted as their suites expect, each with its footing")
    assert two.endswith(" Needs attention, above: 3 unexpected refutations.")
    assert findings_sentence(records(finding=1)).startswith("1 claim of the papers refuted")
    mixed = records(finding=2, control=3)
    assert [r["claim_id"] for r in controls(mixed)] == ["classic/broken0", "classic/broken1", "classic/broken2"]
    assert list(findings(mixed)) == ["shuffle-glm"] and len(findings(mixed)["shuffle-glm"]) == 2


def test_the_picture_of_outcomes_by_paper_draws_every_count():
    from dpaudit.reports.overview import BAR_WIDTH, COLOURS, outcome_bars

    outcomes = {"a": {"pass": 6, "expected-refutation": 2}, "b": {"pass": 1, "error": 1, "not-reproduced": 2},
                "0": {"unexpected-refutation": 1}}
    records = [{"claim_id": f"{paper}/c{outcome}{i}", "paper": paper, "outcome": outcome}
               for paper, counts in outcomes.items() for outcome, n in counts.items() for i in range(n)]
    svg = outcome_bars(records)
    assert outcome_bars([]) == "" and svg.startswith('<svg class="bars"') and svg.endswith("</svg>")
    papers = re.findall(r'<g class="paper" data-paper="([^"]*)">(.*?)</g>', svg)
    assert [p for p, _ in papers] == ["0", "a", "b"]  # the summary table's order
    for paper, body in papers:
        segments = re.findall(r'<rect x="([\d.]+)" y="\d+" width="([\d.]+)" height="\d+" fill="(#\w+)" '
                              r'data-outcome="([\w-]+)" data-count="(\d+)">', body)
        assert {o: int(n) for *_, o, n in segments} == outcomes[paper]
        assert all(COLOURS[o] == colour for _, _, colour, o, _ in segments)
        # lengths in proportion to the counts, the largest paper (8 claims) the whole bar, segments end to end
        assert [float(w) for _, w, *_ in segments] == pytest.approx([BAR_WIDTH * int(n) / 8 for *_, n in segments],
                                                                    abs=0.01)
        ends = [float(x) + float(w) for x, w, *_ in segments]
        assert [float(x) for x, *_ in segments][1:] == pytest.approx(ends[:-1], abs=0.02)
    legend = re.findall(r'<text x="[\d.]+" y="\d+" fill="#555">([a-z ]+)</text>', svg)
    assert legend == ["pass", "expected refutation", "unexpected refutation", "not reproduced", "error"]


def test_the_report_says_what_needs_attention_where_the_findings_are(mixed_run):
    from dpaudit.reports.summary import findings_sentence

    html = (mixed_run / "report.html").read_text()
    md = (mixed_run / "report.md").read_text()
    doc = json.loads((mixed_run / "results.json").read_text())
    sentence = findings_sentence(doc["records"])
    assert "Needs attention, above: 1 unexpected refutation, 1 not reproduced, 1 error." in sentence
    assert sentence in md[md.index("## Findings"):] and html_escape(sentence) in html[html.index('id="findings"'):]
    # the picture of outcomes by paper first, then what was refuted and why, then the table's numbers
    assert html.index('id="papers"') < html.index('<svg class="bars"') < html.index('id="findings"') \
        < html.index('id="counts"') < html.index('<table class="summary"')


def test_controls_are_listed_after_the_papers_findings_and_not_counted_among_them(mixed_run, tmp_path):
    import copy

    from dpaudit.reports.html import render_html
    from dpaudit.reports.markdown import render_markdown

    doc = json.loads((mixed_run / "results.json").read_text())
    finding = next(r for r in doc["records"] if r["outcome"] == "expected-refutation")
    control = {**copy.deepcopy(finding), "claim_id": "classic/broken-on-purpose", "paper": "classic"}
    doc["records"].append(control)
    md, html = render_markdown(doc), render_html(doc, tmp_path)
    assert "## Findings (1)" in md and "## Controls (1)" in md
    assert md.index("## Findings (1)") < md.index(finding["claim_id"]) < md.index("## Controls (1)") \
        < md.index("classic/broken-on-purpose")
    assert 'id="findings">Findings (1)</h2>' in html and 'id="controls">Controls (1)</h2>' in html
    controls_html = html[html.index('id="controls"'):html.index("<section")]
    assert "classic/broken-on-purpose" in controls_html and finding["claim_id"] not in controls_html
    assert "1 of classic, refuted as designed" in controls_html


def test_a_refutation_outside_the_hypotheses_is_labelled_apart_from_the_findings(mixed_run, tmp_path):
    """An expected refutation whose footing is "hypothesis not met" is never shown as a refutation of its statement:
    its own label and section, the statement's hypothesis beside the reason, and it is not counted among the
    findings (nor does its label say "expected refutation")."""
    import copy

    from dpaudit.reports.html import render_html
    from dpaudit.reports.markdown import render_markdown
    from dpaudit.reports.summary import findings, findings_sentence, outcome_label, outside_hypotheses

    doc = json.loads((mixed_run / "results.json").read_text())
    finding = next(r for r in doc["records"] if r["outcome"] == "expected-refutation")
    outside = copy.deepcopy(finding)
    outside["claim_id"] = finding["claim_id"] + "-probit"
    outside["expected"].update(footing="hypothesis not met", hypothesis="stated for canonical links; probit is not one")
    doc["records"].append(outside)
    records = doc["records"]
    assert outcome_label(outside) == "hypothesis not met" and outcome_label(finding) == "expected refutation"
    assert sum(len(g) for g in findings(records).values()) == 1
    assert [r["claim_id"] for g in outside_hypotheses(records).values() for r in g] == [outside["claim_id"]]
    assert "1 more refuted on instances outside their statements' hypotheses" in findings_sentence(records)
    md, html = render_markdown(doc), render_html(doc, tmp_path)
    assert "## Findings (1)" in md and "## Hypothesis not met (1)" in md
    section = md[md.index("## Hypothesis not met (1)"):]
    assert f"**{outside['claim_id']}** (hypothesis not met, refuted)" in section
    assert "the statement's hypothesis: stated for canonical links; probit is not one" in section
    findings_md = md[md.index("## Findings (1)"):md.index("## Hypothesis not met (1)")]
    assert f"**{outside['claim_id']}**" not in findings_md
    assert 'id="hypothesis-not-met">Hypothesis not met (1)</h2>' in html
    part = html[html.index('id="hypothesis-not-met"'):html.index("<section")]
    assert outside["claim_id"] in part and "probit is not one" in part and ">hypothesis not met</span>" in part
    # the outcomes line and the picture count it apart from the expected refutations
    from dpaudit.reports.overview import COLOURS, outcome_bars
    from dpaudit.reports.summary import outcome_counts, outcomes_line

    expected = outcome_counts(records)["expected-refutation"]
    assert f"expected refutation {expected - 1}, hypothesis not met 1, " in outcomes_line(records)
    assert f"Outcomes: {outcomes_line(records)}" in md
    assert "hypothesis not met" not in outcomes_line([finding])
    segments = re.findall(r'fill="(#\w+)" data-outcome="([\w-]+)" data-count="(\d+)"', outcome_bars(records))
    shown = {}
    for colour, outcome, n in segments:
        assert COLOURS[outcome] == colour
        shown[outcome] = shown.get(outcome, 0) + int(n)
    assert shown["hypothesis-not-met"] == 1 and shown["expected-refutation"] == expected - 1


def test_an_error_needing_attention_shows_its_reason(mixed_run):
    """An audit that could not run is listed with its error's type and message, not a bare dash."""
    html = (mixed_run / "report.html").read_text()
    md = (mixed_run / "report.md").read_text()
    reason = "MechanismError: raises raised RuntimeError on input 0: this mechanism is broken on purpose"
    attention_html = html[html.index('id="attention"'):html.index('id="findings"')]
    assert reason in attention_html
    attention_md = md[md.index("## Needs attention"):md.index("## Findings")]
    assert f"[{reason}]" in attention_md and "[—]" not in attention_md


def test_findings_show_their_footing_and_the_other_reading(mixed_run):
    html = (mixed_run / "report.html").read_text()
    md = (mixed_run / "report.md").read_text()
    assert '<span class="footing">[as printed]</span> scale 0.5 gives epsilon 2' in html
    assert "[as printed] scale 0.5 gives epsilon 2" in md


def test_a_finding_names_the_other_reading_of_its_text_with_its_verdict():
    from dpaudit.reports.markdown import _item
    from dpaudit.reports.summary import other_readings

    finding = {"claim_id": "p/step@a,n1", "verdict": "refuted", "outcome": "expected-refutation", "claim": {},
               "expected": {"verdict": "refuted", "footing": "as reconstructed from damaged text",
                            "reason": "garbled; the spec's reading p/step@b,n1 holds"}}
    other = {"claim_id": "p/step@b,n1", "verdict": "verified", "outcome": "pass", "claim": {}}
    longer = {"claim_id": "p/step@b,n16", "verdict": "refuted", "outcome": "unexpected-refutation", "claim": {}}
    unrelated = {"claim_id": "p/step@b,n", "verdict": "refuted", "outcome": "unexpected-refutation", "claim": {}}
    records = [finding, other, longer, unrelated]
    assert other_readings(finding, records) == [other]  # whole ids only
    assert "  - other reading **p/step@b,n1**: pass, verified" in _item(finding, records)


def test_long_witnesses_are_summarised():
    from dpaudit.reports.summary import WITNESS_ITEMS, witness_text

    record = {"witness": {"pair": [[0.0] * 50_000, [1.0] * 50_000], "event": "x" * 10_000, "counts": [3, 0]}}
    text = witness_text(record)
    assert len(text) < 2_000 and "49994 more" in text and "results.json" in text
    assert json.loads(witness_text(record, full=True)) == record["witness"]
    short = {"witness": {"counts": list(range(WITNESS_ITEMS))}}
    assert json.loads(witness_text(short)) == short["witness"]  # nothing cut, nothing added


def test_a_user_suite_is_titled_by_its_own_title(mixed_run):
    doc = json.loads((mixed_run / "results.json").read_text())
    assert doc["run"]["suites"]["testing-broken"] == "runner failure paths"
    html = (mixed_run / "report.html").read_text()
    md = (mixed_run / "report.md").read_text()
    assert "testing-broken — runner failure paths" in md and "runner failure paths" in html
    assert "testing-refutations — expected refutations" in md


def test_plots_are_palette_pngs_a_fraction_of_rgba(mixed_run):
    """A five-paper report carries a few hundred plots: each is an 8-bit palette PNG."""
    from PIL import Image

    plots = sorted((mixed_run / "plots").glob("*.png"))
    assert plots
    for path in plots:
        with Image.open(path) as image:
            assert image.mode == "P" and len(image.getcolors()) <= 64


def test_cards_needing_attention_open_unless_too_many(tmp_path):
    """A few cards needing attention open with the report; when most of a run failed, every card is closed."""
    from dpaudit.reports.html import ATTENTION_OPEN, render_html

    def document(errors):
        records = [{"claim_id": f"p/c{i:02d}", "paper": "p", "verdict": "error" if i < errors else "verified",
                    "outcome": "error" if i < errors else "pass", "claim": {"kind": "pure-dp", "epsilon": 1},
                    "error": {"type": "RuntimeError", "message": "x" * 200} if i < errors else None}
                   for i in range(ATTENTION_OPEN + 5)]
        return {"records": records, "run": {}}

    html = render_html(document(ATTENTION_OPEN), tmp_path)
    assert html.count("<details open><summary><h3>") == ATTENTION_OPEN
    assert html.count("<details><summary><h3>") == 5
    # the summary line cuts a long error message; the card's fields hold it whole
    assert "RuntimeError: " + "x" * 200 in html and re.search(r"RuntimeError: x+…</span></summary>", html)
    html = render_html(document(ATTENTION_OPEN + 1), tmp_path)
    assert "<details open><summary><h3>" not in html and html.count("<details><summary><h3>") == ATTENTION_OPEN + 5


def test_a_not_refuted_records_power_is_shown_beside_its_verdict_and_validated_by_the_schema():
    """A statistical "not refuted" with a stated power: the reports' statistic line carries it, a refuted record's
    power (which no auditor states) would not be shown, and the JSON Schema takes the field (null or the four
    keys) and refuses a malformed one."""
    from dpaudit.reports.frames import results_frame
    from dpaudit.reports.summary import statistic_text

    stated = dpaudit.AuditResult(
        "not-refuted", {"kind": "regret-bound"}, "regret-bound", claim_id="classic/x",
        statistic=dpaudit.Statistic("E[R_T] at T=100", 5.0, (4.0, float("inf")), "lower-bound"),
        power={"quantity": "factor", "value": 1.25, "probability": 0.9, "description": "d"}).to_dict()
    assert statistic_text(stated).endswith("; would refute factor >= 1.25 with probability 0.9")
    assert "would refute" not in statistic_text({**stated, "verdict": "refuted"})
    endless = {**stated, "power": {**stated["power"], "value": "inf"}}  # an infinite value as results.json has it
    assert statistic_text(endless).endswith("; would refute factor >= inf with probability 0.9")
    frame = results_frame([stated])
    assert frame.loc[0, "power_quantity"] == "factor" and frame.loc[0, "power"] == 1.25
    schema = json_schema()
    power_schema = {"$defs": schema["$defs"], **schema["$defs"]["record"]["properties"]["power"]}
    for good in (stated["power"], None, {**stated["power"], "value": "inf"}):  # how an infinite value is written
        jsonschema.validate(good, power_schema)
    for bad in ({"quantity": "factor", "value": 1.25}, {**stated["power"], "probability": 1.5}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, power_schema)


def test_a_sequential_record_shows_what_it_drew_beside_its_budget_and_when_it_stopped():
    from dpaudit.reports.summary import claim_fields

    record = {"verdict": "refuted", "claim": {"kind": "pure-dp", "epsilon": 1.0}, "samples": 500,
              "parameters": {"samples_budget": 1_000_000, "stopped": "selection", "sequential": True}}
    assert dict(claim_fields(record))["samples per side"] == "500 of 1000000 (sequential: refuted by its bets during "\
        "selection)"
    record["parameters"] = {}
    assert dict(claim_fields(record))["samples per side"] == "500"
