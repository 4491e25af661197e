"""``report.html``: one self-contained file (inline CSS, plots embedded as data URIs) that opens
offline. Every string from a record is escaped."""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path
from typing import Any

from .summary import (
    SUMMARY_COLUMNS,
    by_paper,
    claim_fields,
    outcome_counts,
    paper_title,
    summary_rows,
    witness_text,
)

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;
color:#1d1d1f;line-height:1.45}
h1{margin-bottom:.2rem}.meta{color:#555;margin-top:0}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:right}
th:first-child,td:first-child{text-align:left}
section.claim{border:1px solid #ddd;border-radius:6px;padding:.4rem 1rem 1rem;margin:1rem 0}
dl{display:grid;grid-template-columns:12rem 1fr;gap:.15rem 1rem;margin:.5rem 0}dt{color:#555}dd{margin:0}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;font-size:.85rem}
.v{font-weight:600;padding:.05rem .45rem;border-radius:4px}
.verified{background:#d8f5dd}.not-refuted{background:#e6eefc}.refuted{background:#fbd9d9}.error{background:#ffe8b3}
.bad{color:#b00020;font-weight:600}img{max-width:100%}
"""


def _plot(out: Path, rel: str) -> str:
    path = out / rel
    if not path.is_file():
        return f"<p>plot {escape(rel)} is missing</p>"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{escape(rel)}" src="data:image/png;base64,{data}">'


def _anchor(claim_id: str) -> str:
    return "c-" + "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in claim_id.casefold())


def _section(r: dict[str, Any], out: Path) -> str:
    cid = str(r["claim_id"])
    title = f" — {escape(r['title'])}" if r.get("title") else ""
    parts = [f'<section class="claim" id="{_anchor(cid)}"><h3>{escape(cid)}{title}</h3><dl>']
    for label, text in claim_fields(r):
        if label == "verdict":
            cls = "" if r.get("outcome") in ("pass", "expected-refutation") else ' class="bad"'
            text_html = (f'<span class="v {escape(r["verdict"])}">{escape(r["verdict"])}</span> '
                         f'<span{cls}>{escape(str(r.get("outcome")))}</span>')
        else:
            text_html = escape(text)
        parts.append(f"<dt>{escape(label)}</dt><dd>{text_html}</dd>")
    parts.append("</dl>")
    for note in r.get("notes") or []:
        parts.append(f"<p>{escape(note)}</p>")
    witness = witness_text(r)
    if witness:
        parts.append(f"<h4>Witness</h4><pre>{escape(witness)}</pre>")
    if r.get("error"):
        err = r["error"]
        parts.append(f"<h4>Error</h4><pre>{escape(err.get('traceback') or err.get('message', ''))}</pre>")
    for rel in r.get("plots") or []:
        parts.append(_plot(out, rel))
    parts.append("</section>")
    return "".join(parts)


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
        cells = "".join(f"<td>{row[c]}</td>" for c in SUMMARY_COLUMNS)
        rows.append(f'<tr><td><a href="#p-{escape(paper)}">{escape(paper)}</a></td>{cells}</tr>')
    outcomes = ", ".join(f"{escape(k)} {v}" for k, v in outcome_counts(records).items())
    body = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        "<title>dpaudit report</title>",
        f"<style>{CSS}</style></head><body>",
        f'<h1>dpaudit report</h1><p class="meta">{head}</p>',
        "<table><thead><tr><th>paper</th>" + "".join(f"<th>{escape(c)}</th>" for c in SUMMARY_COLUMNS),
        "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>",
        f"<p>Outcomes: {outcomes}</p>",
    ]
    for paper, group in by_paper(records).items():
        title = paper_title(paper)
        body.append(f'<h2 id="p-{escape(paper)}">{escape(paper)}</h2>')
        if title:
            body.append(f'<p class="meta">{escape(title)}</p>')
        body.append("<ul>" + "".join(
            f'<li><a href="#{_anchor(str(r["claim_id"]))}">{escape(str(r["claim_id"]))}</a>: '
            f'<span class="v {escape(r["verdict"])}">{escape(r["verdict"])}</span></li>' for r in group) + "</ul>")
        body.extend(_section(r, out) for r in group)
    body.append("</body></html>")
    return "\n".join(body)
