"""``report.html``: one file with inline CSS and script that opens offline. The plots of findings and of
claims needing attention are embedded as data URIs; those of passing claims are linked to their files
in ``plots/`` beside the report (keep the folder together). Every string from a record is escaped.

The page reads top down: the counts by paper, the filters, what needs attention, the findings, then one
card per claim. A card is a ``<details>`` whose one-line summary gives the claim id, its outcome and
verdict and its statistic; closed, it loads none of its plots (their source waits in ``data-src``)."""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path
from typing import Any

from . import coverage
from .frames import SUMMARY_COLUMNS
from .overview import outcome_bars
from .summary import (
    CANARY_COLUMNS,
    CANARY_INTRO,
    CONTROLS_INTRO,
    DPSGD_COLUMNS,
    DPSGD_INTRO,
    HYPOTHESIS_INTRO,
    by_paper,
    canary_rows,
    claim_fields,
    claim_statement,
    controls,
    dpsgd_rows,
    findings,
    findings_sentence,
    hypothesis_text,
    left_out,
    needing_attention,
    other_readings,
    outcome_label,
    outcomes_line,
    outside_hypotheses,
    paper_title,
    reused_line,
    reused_text,
    statistic_short,
    statistic_text,
    suite_of,
    summary_rows,
    warnings_line,
    witness_text,
)

#: at most this many claims needing attention have their cards open when the report opens
ATTENTION_OPEN = 12

# table.summary's headers and counts never wrap: under the page's overflow-wrap:anywhere a column squeezed by the long
# paper titles beside it broke its header mid-word ("clai ms") at common widths (tests/test_report_browser.py)
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;
color:#1d1d1f;line-height:1.45;overflow-wrap:anywhere}
h1{margin-bottom:.2rem}.meta{color:#555;margin-top:0}
.wide{overflow-x:auto}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:right}
th:first-child,td:first-child{text-align:left}
table.summary th,table.summary td:not(:first-child){overflow-wrap:normal;white-space:nowrap}
svg.bars{display:block;width:100%;max-width:34rem;height:auto;margin:.5rem 0}
section.claim{border:1px solid #ddd;border-radius:6px;margin:.3rem 0}
section.claim>details>summary{padding:.25rem .8rem;cursor:pointer}
section.claim>details>summary h3{display:inline;font-size:1rem;margin:0 .4rem 0 0}
section.claim>details>.body{padding:0 1rem 1rem}.stat{color:#555;margin-left:.3rem}
dl{display:grid;grid-template-columns:12rem 1fr;gap:.15rem 1rem;margin:.5rem 0}dt{color:#555}dd{margin:0}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;font-size:.85rem;white-space:pre-wrap}
.o{font-weight:600;padding:.05rem .45rem;border-radius:4px;white-space:nowrap}
.o-pass{background:#d8f5dd}.o-expected-refutation{background:#e3dcfa}.o-unexpected-refutation{background:#fbd9d9}
.o-not-reproduced{background:#fbd9d9}.o-error{background:#ffe8b3}
.v{color:#555;white-space:nowrap}
.finding{margin:.6rem 0}.finding .reason{color:#333}.footing{font-style:italic;white-space:nowrap}
.tools{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}
img{max-width:100%;height:auto}
.off{display:none!important}
@media (max-width:40rem){body{margin:1rem auto}dl{grid-template-columns:1fr}dt{font-weight:600}
table.summary,table.summary tbody,table.summary tr{display:block}table.summary thead{display:none}
table.summary tr{border:1px solid #ccc;border-radius:6px;margin:.5rem 0;padding:.3rem .6rem}
table.summary td{display:flex;justify-content:space-between;border:0;padding:.05rem 0}
table.summary td:first-child{display:block}table.summary td::before{content:attr(data-label);color:#555}}
@media print{.tools{display:none}details{display:block}}
"""

# filters by paper and outcome and a search box; inline, so the file still opens offline. Every claim's
# entry carries data-outcome; a group (a heading and its entries) is hidden when none of its entries shows,
# so no heading stands over an empty list. The search also matches the group's heading (the paper's title).
# The search reads a closed card's whole text and shows its summary line without opening it. A card's
# plots get their source when it opens (the toggle handler), so a long report loads only what is read;
# a link to a card opens it. Printing prints the page as it stands, closed cards as their summary lines:
# opening every card before printing would make a five-paper report hundreds of pages, and images set
# loading in a beforeprint handler may not have arrived when the page is laid out. To print the details
# of a selection, filter it and open the shown cards.
SCRIPT = """
function dpFilter(){
 var p=document.getElementById('f-paper').value, o=document.getElementById('f-outcome').value,
     q=document.getElementById('f-search').value.toLowerCase();
 document.querySelectorAll('[data-outcome]').forEach(function(el){
  var g=el.closest('.group'), heading=g&&g.firstElementChild?g.firstElementChild.textContent:'';
  var show=(!p||el.dataset.paper===p)&&(!o||el.dataset.outcome===o)
           &&(!q||(el.textContent+' '+heading).toLowerCase().indexOf(q)>=0);
  el.classList.toggle('off',!show);});
 document.querySelectorAll('.group').forEach(function(g){
  g.classList.toggle('off',!g.querySelector('[data-outcome]:not(.off)'));});
}
function dpLoad(d){
 d.querySelectorAll('img[data-src]').forEach(function(img){if(!img.getAttribute('src'))img.src=img.dataset.src;});
}
function dpOpen(id){
 var card=id&&document.getElementById(id), d=card&&card.querySelector('details');
 if(d)d.open=true;
}
function dpAll(open){
 document.querySelectorAll('section.claim:not(.off)>details').forEach(function(d){d.open=open;});
}
document.addEventListener('toggle',function(e){if(e.target.open)dpLoad(e.target);},true);
document.addEventListener('click',function(e){
 var a=e.target.closest&&e.target.closest('a[href^="#c-"]');
 if(a)dpOpen(a.getAttribute('href').slice(1));});
window.addEventListener('hashchange',function(){dpOpen(location.hash.slice(1));});
document.addEventListener('DOMContentLoaded',function(){
 document.querySelectorAll('details[open]').forEach(dpLoad);
 dpOpen(location.hash.slice(1));});
"""


def _plot(out: Path, rel: str, embed: bool) -> str:
    """A plot embedded as a data URI, or (``embed`` false) linked to its file beside the report: only the
    plots of findings and of claims needing attention are embedded, which keeps a five-paper report small
    enough to mail. Either way the source waits in ``data-src`` until the card is opened (``dpLoad``)."""
    path = out / rel
    if not path.is_file():
        return f"<p>plot {escape(rel)} is missing</p>"
    if not embed:
        return f'<img alt="plot {escape(rel)} (a file beside this report)" data-src="{escape(rel)}">'
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{escape(rel)}" data-src="data:image/png;base64,{data}">'


def _anchor(claim_id: str) -> str:
    return "c-" + "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in claim_id.casefold())


def _badge(r: dict[str, Any]) -> str:
    """The outcome first, coloured by it; the verdict beside it as a second word."""
    outcome = str(r.get("outcome"))
    return (f'<span class="o o-{escape(outcome)}">{escape(outcome_label(r))}</span> '
            f'<span class="v">{escape(str(r.get("verdict")))}</span>')


def _data(r: dict[str, Any]) -> str:
    return f'data-paper="{escape(suite_of(r))}" data-outcome="{escape(str(r.get("outcome")))}"'


def _warnings(r: dict[str, Any]) -> str:
    """A claim's warnings as a list, repeats counted ('' when it raised none)."""
    items = "".join(f"<li><b>{escape(str(w.get('category', '')))}</b>: {escape(str(w.get('message', '')))}"
                    + (f" (x{escape(str(w['count']))})" if w.get("count", 1) > 1 else "") + "</li>"
                    for w in r.get("warnings") or [])
    return f'<h4>Warnings</h4><ul class="warnings">{items}</ul>' if items else ""


def _section(r: dict[str, Any], out: Path, opened: bool = False) -> str:
    """A claim's card: a one-line summary (``line``, joined by spaces) over the body (``parts``, one piece of
    HTML each); a mark for the summary or a line for the body is one more append."""
    cid = str(r["claim_id"])
    line = [f"<h3>{escape(cid)}</h3>", _badge(r), f'<span class="stat">{escape(statistic_short(r))}</span>']
    parts = [f'<p class="title">{escape(r["title"])}</p>' if r.get("title") else "", "<dl>"]
    for label, text in claim_fields(r):
        text_html = _badge(r) if label == "verdict" else escape(text)
        parts.append(f"<dt>{escape('outcome' if label == 'verdict' else label)}</dt><dd>{text_html}</dd>")
    parts.append("</dl>")
    for note in r.get("notes") or []:
        parts.append(f"<p>{escape(note)}</p>")
    parts.append(_warnings(r))
    if reused := reused_text(r):
        parts.append(f'<p class="meta">{escape(reused)}</p>')
        line.append('<span class="v">reused</span>')
    witness = witness_text(r)
    if witness:
        parts.append(f"<details open><summary>Witness</summary><pre>{escape(witness)}</pre></details>")
    if r.get("error"):
        err = r["error"]
        parts.append(f"<h4>Error</h4><pre>{escape(err.get('traceback') or err.get('message', ''))}</pre>")
    embed = r.get("outcome") != "pass"
    for rel in r.get("plots") or []:
        parts.append(_plot(out, rel, embed))
    return (f'<section class="claim" id="{_anchor(cid)}" {_data(r)}><details{" open" if opened else ""}>'
            f'<summary>{" ".join(line)}</summary><div class="body">{"".join(parts)}</div></details></section>')


def _finding(r: dict[str, Any], records: list[dict[str, Any]] = ()) -> str:
    expected = r.get("expected") or {}
    # the footing leads the reason: how much text the refuted claim stands on
    footing = f'<span class="footing">[{escape(expected["footing"])}]</span> ' if expected.get("footing") else ""
    reason = (f'<div class="reason">{footing}{escape(expected["reason"])}</div>' if expected.get("reason") else "")
    if hypothesis := hypothesis_text(r):
        reason += f'<div class="reason">the statement\'s hypothesis: {escape(hypothesis)}</div>'
    others = "".join(f'<div class="reading">other reading <a href="#{_anchor(str(o["claim_id"]))}">'
                     f'{escape(str(o["claim_id"]))}</a> {_badge(o)}</div>' for o in other_readings(r, list(records)))
    return (f'<li class="finding" {_data(r)}><a href="#{_anchor(str(r["claim_id"]))}">{escape(str(r["claim_id"]))}'
            f'</a> {_badge(r)}: {escape(claim_statement(r))}{reason}{others}'
            f'<div class="meta">{escape(statistic_text(r))}</div></li>')


def _paper_groups(groups: dict[str, list[dict[str, Any]]], run: dict[str, Any], records: list[dict[str, Any]]
                  ) -> list[str]:
    """Records listed in a group per paper (headed by the paper's title), each linked to its card."""
    body = []
    for paper, group in groups.items():
        title = paper_title(paper, run)
        body.append(f'<div class="group" data-paper="{escape(paper)}"><h3>{escape(paper)}'
                    + (f" — {escape(title)}" if title else "") + "</h3><ul>")
        body.extend(_finding(r, records) for r in group)
        body.append("</ul></div>")
    return body


def _headline(records: list[dict[str, Any]], run: dict[str, Any]) -> list[str]:
    """What a reviewer reads first: what needs attention, then the papers' findings."""
    body = []
    attention = needing_attention(records)
    if attention:
        body.append(f'<div class="group"><h2 id="attention">Needs attention ({len(attention)})</h2><ul>')
        body.extend(_finding(r) for r in attention)
        body.append("</ul></div>")
    found = findings(records)
    total = sum(len(group) for group in found.values())
    body.append(f'<h2 id="findings">Findings ({total})</h2>')
    body.append(f'<p class="meta">{escape(findings_sentence(records))}</p>')
    body += _paper_groups(found, run, records)
    outside = outside_hypotheses(records)
    if outside:
        body.append(f'<h2 id="hypothesis-not-met">Hypothesis not met ({sum(len(g) for g in outside.values())})</h2>'
                    f'<p class="meta">{escape(HYPOTHESIS_INTRO)}</p>')
        body += _paper_groups(outside, run, records)
    checks = controls(records)
    if checks:
        suites = ", ".join(dict.fromkeys(suite_of(r) for r in checks))
        body.append(f'<h2 id="controls">Controls ({len(checks)})</h2><p class="meta">{escape(CONTROLS_INTRO)}</p>'
                    f'<details class="group"><summary>{len(checks)} of {escape(suites)}, refuted as designed'
                    "</summary><ul>")
        body.extend(_finding(r, records) for r in checks)
        body.append("</ul></details>")
    skipped = left_out(run)  # after what was audited: claims this budget does not run
    if skipped:
        body.append(f'<div class="group"><h2 id="left-out">Left out ({len(skipped)})</h2><ul>')
        body.extend(f'<li><b>{escape(item["claim_id"])}</b>: {escape(item["reason"])}</li>' for item in skipped)
        body.append("</ul></div>")
    body += coverage.html_section(coverage.coverage(run))
    return body


def _dpsgd(records: list[dict[str, Any]], out: Path) -> list[str]:
    """The DP-SGD section: every claim about a DP-SGD configuration, its certified bracket and outcome, and the
    plots of epsilon against the noise multiplier where the audit drew one."""
    rows = dpsgd_rows(records)
    if not rows:
        return []
    body = _claims_table("dpsgd", f"DP-SGD ({len(rows)})", DPSGD_INTRO, DPSGD_COLUMNS, rows)
    sweeps = [rel for row in rows for rel in row["plots"]]  # epsilon against the noise multiplier
    body.extend(_plot(out, rel, True).replace("data-src=", "src=") for rel in sweeps)
    return body


def _canaries(records: list[dict[str, Any]]) -> list[str]:
    """The canary section: every claim audited from canary scores, its bound beside its ceiling, the loop's white-box
    bracket and the power of a "not refuted"."""
    rows = canary_rows(records)
    if not rows:
        return []
    return _claims_table("canaries", f"Canary audits ({len(rows)})", CANARY_INTRO, CANARY_COLUMNS, rows)


def _claims_table(anchor: str, heading: str, intro: str, columns: tuple[str, ...], rows: list[dict[str, str]]
                  ) -> list[str]:
    """A section of one row per claim: its heading and intro, then the table, the first column linking each claim's
    card (each cell names its column, for the narrow window's card layout)."""
    body = [f'<h2 id="{anchor}">{escape(heading)}</h2><p class="meta">{escape(intro)}</p>',
            '<div class="wide"><table class="summary"><thead><tr>'
            + "".join(f"<th>{escape(c)}</th>" for c in columns) + "</tr></thead><tbody>"]
    for row in rows:
        cells = [f'<a href="#{_anchor(row["claim"])}">{escape(row["claim"])}</a>'] + [
            escape(row[c]) for c in columns[1:]]
        body.append("<tr>" + "".join(f'<td data-label="{escape(c)}">{v}</td>' for c, v in zip(columns, cells))
                    + "</tr>")
    body.append("</tbody></table></div>")
    return body


def _tools(records: list[dict[str, Any]]) -> str:
    papers = sorted({suite_of(r) for r in records})
    outcomes = sorted({str(r.get("outcome")) for r in records})
    paper_opts = "".join(f'<option value="{escape(p)}">{escape(p)}</option>' for p in papers)
    outcome_opts = "".join(f'<option value="{escape(o)}">{escape(outcome_label({"outcome": o}))}</option>'
                           for o in outcomes)
    return ('<div class="tools"><label>paper <select id="f-paper" onchange="dpFilter()"><option value="">all'
            f'</option>{paper_opts}</select></label><label>outcome <select id="f-outcome" onchange="dpFilter()">'
            f'<option value="">all</option>{outcome_opts}</select></label><label>search <input id="f-search" '
            'type="search" oninput="dpFilter()"></label><button type="button" onclick="dpAll(true)">open shown'
            '</button><button type="button" onclick="dpAll(false)">close shown</button></div>')


def render_html(document: dict[str, Any], out: Path) -> str:
    run = document.get("run", {})
    records = document.get("records", [])
    head = (
        f"dpaudit {escape(str(document.get('dpaudit_version')))} · seed {escape(str(run.get('seed')))} · "
        f"budget {escape(str(run.get('budget')))} · alpha {escape(str(run.get('alpha')))} family-wise over "
        f"{escape(str(run.get('statistical_claims')))} statistical claims · {len(records)} of "
        f"{escape(str(run.get('claims')))} claims finished"
    )
    rows = []
    for paper, row in summary_rows(records):
        # each cell names its column: a narrow window shows the row as a card of "label value" lines
        cells = "".join(f'<td data-label="{escape(c)}">{row[c]}</td>' for c in SUMMARY_COLUMNS)
        title = paper_title(paper, run)
        name = escape(paper) + (f'<div class="meta">{escape(title)}</div>' if title else "")
        rows.append(f'<tr><td><a href="#p-{escape(paper)}">{name}</a></td>{cells}</tr>')
    outcomes = escape(outcomes_line(records))
    body = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>dpaudit report</title>",
        f"<style>{CSS}</style><script>{SCRIPT}</script></head><body>",
        f'<h1>dpaudit report</h1><p class="meta">{head}</p>',
        f"<p>Outcomes: {outcomes}</p>",
        *(f'<p class="meta">{escape(line)}</p>' for line in (warnings_line(records), reused_line(records)) if line),
        # the first screen: the picture a reviewer takes in at a glance, the filters (which act on the findings as
        # on the cards), then what was refuted and why; the table's numbers after the findings and controls
        '<h2 id="papers">Claims by paper</h2>' + outcome_bars(records),
        _tools(records),
        *_headline(records, run),
        '<h2 id="counts">Claims by paper, counted</h2><div class="wide"><table class="summary"><thead><tr>'
        "<th>paper</th>" + "".join(f"<th>{escape(c)}</th>" for c in SUMMARY_COLUMNS),
        "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>",
        *_dpsgd(records, out),
        *_canaries(records),
    ]
    # the cards needing attention open, their error or witness read without a click; unless so many need it
    # (an environment that fails every claim) that open cards would make the page hundreds of screens long
    attention = needing_attention(records)
    opened = {r.get("claim_id") for r in attention} if len(attention) <= ATTENTION_OPEN else set()
    for paper, group in by_paper(records).items():
        title = paper_title(paper, run)
        # the cards' summary lines are the paper's list of claims
        body.append(f'<div class="group" data-paper="{escape(paper)}"><h2 id="p-{escape(paper)}">{escape(paper)}'
                    + (f" — {escape(title)}" if title else "") + "</h2>")
        body.extend(_section(r, out, opened=r.get("claim_id") in opened) for r in group)
        body.append("</div>")
    body.append("</body></html>")
    return "\n".join(body)
