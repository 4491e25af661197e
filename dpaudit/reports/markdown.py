"""``report.md``: the run summary and one section per claim, for reading in a terminal or a PR."""

from __future__ import annotations

from typing import Any

from . import coverage
from .frames import SUMMARY_COLUMNS
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
    footed_reason,
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
    statistic_text,
    summary_rows,
    warnings_line,
    witness_text,
)


def _item(r: dict[str, Any], records: list[dict[str, Any]] = ()) -> list[str]:
    reason = footed_reason(r)
    hypothesis = hypothesis_text(r)
    return ([f"- **{r['claim_id']}** ({outcome_label(r)}, {r['verdict']}): {_cell(claim_statement(r))}"
             + (f" — {_cell(reason)}" if reason else "")
             + (f" — the statement's hypothesis: {_cell(hypothesis)}" if hypothesis else "")
             + f" [{_cell(statistic_text(r))}]"]
            + [f"  - other reading **{o['claim_id']}**: {outcome_label(o)}, {o['verdict']}"
               for o in other_readings(r, list(records))])


def _paper_groups(groups: dict[str, list[dict[str, Any]]], run: dict[str, Any], records: list[dict[str, Any]]
                  ) -> list[str]:
    """Records listed under a heading per paper (with the paper's title)."""
    lines = []
    for paper, group in groups.items():
        title = paper_title(paper, run)
        lines += [f"### {paper}" + (f" — {title}" if title else ""), ""]
        for r in group:
            lines += _item(r, records)
        lines.append("")
    return lines


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _warnings(r: dict[str, Any]) -> list[str]:
    """A claim's warnings, one line each, repeats counted."""
    return [f"- warning: {_cell(w.get('category', ''))}: {_cell(w.get('message', ''))}"
            + (f" (x{w['count']})" if w.get("count", 1) > 1 else "") for w in r.get("warnings") or []]


def render_markdown(document: dict[str, Any]) -> str:
    run = document.get("run", {})
    records = document.get("records", [])
    lines = [
        "# dpaudit report",
        "",
        f"dpaudit {document.get('dpaudit_version')} · seed {run.get('seed')} · budget {run.get('budget')} · "
        f"alpha {run.get('alpha')} (family-wise over {run.get('statistical_claims')} statistical claims) · "
        f"{len(records)} of {run.get('claims')} claims finished",
        "",
        "| paper | " + " | ".join(SUMMARY_COLUMNS) + " |",
        "|---|" + "---:|" * len(SUMMARY_COLUMNS),
    ]
    for paper, row in summary_rows(records):
        lines.append(f"| {_cell(paper)} | " + " | ".join(str(row[c]) for c in SUMMARY_COLUMNS) + " |")
    lines += ["", "Outcomes: " + outcomes_line(records), ""]
    for line in (warnings_line(records), reused_line(records)):
        lines += [line, ""] if line else []
    attention = needing_attention(records)
    if attention:
        lines += [f"## Needs attention ({len(attention)})", ""]
        for r in attention:
            lines += _item(r)
        lines.append("")
    found = findings(records)
    lines += [f"## Findings ({sum(len(g) for g in found.values())})", "", findings_sentence(records), ""]
    lines += _paper_groups(found, run, records)
    outside = outside_hypotheses(records)
    if outside:
        lines += [f"## Hypothesis not met ({sum(len(g) for g in outside.values())})", "", HYPOTHESIS_INTRO, ""]
        lines += _paper_groups(outside, run, records)
    checks = controls(records)
    if checks:
        lines += [f"## Controls ({len(checks)})", "", CONTROLS_INTRO, ""]
        for r in checks:
            lines += _item(r, records)
        lines.append("")
    skipped = left_out(run)  # after what was audited: claims this budget does not run
    if skipped:
        lines += [f"## Left out ({len(skipped)})", ""]
        lines += [f"- **{item['claim_id']}**: {_cell(item['reason'])}" for item in skipped]
        lines.append("")
    lines += coverage.markdown_section(coverage.coverage(run))
    rows = dpsgd_rows(records)
    if rows:
        lines += [f"## DP-SGD ({len(rows)})", "", DPSGD_INTRO, "", "| " + " | ".join(DPSGD_COLUMNS) + " |",
                  "|" + "---|" * len(DPSGD_COLUMNS)]
        lines += ["| " + " | ".join(_cell(row[c]) for c in DPSGD_COLUMNS) + " |" for row in rows]
        lines += [f"![{row['claim']}]({plot})" for row in rows for plot in row["plots"]]
        lines.append("")
    rows = canary_rows(records)
    if rows:
        lines += [f"## Canary audits ({len(rows)})", "", CANARY_INTRO, "", "| " + " | ".join(CANARY_COLUMNS) + " |",
                  "|" + "---|" * len(CANARY_COLUMNS)]
        lines += ["| " + " | ".join(_cell(row[c]) for c in CANARY_COLUMNS) + " |" for row in rows]
        lines.append("")
    for paper, group in by_paper(records).items():
        title = paper_title(paper, run)
        lines += [f"## {paper}" + (f" — {title}" if title else ""), ""]
        for r in group:
            lines += [f"### {r['claim_id']}" + (f" — {r['title']}" if r.get("title") else ""), ""]
            lines += [f"- **{label}**: {_cell(text)}" for label, text in claim_fields(r)]
            for note in r.get("notes") or []:
                lines.append(f"- note: {_cell(note)}")
            lines += _warnings(r)
            if reused := reused_text(r):
                lines.append(f"- {reused}")
            witness = witness_text(r)
            if witness:
                lines += ["", "Witness:", "", "```json", witness, "```"]
            if r.get("error"):
                lines += ["", "Error:", "", "```", r["error"].get("traceback") or r["error"].get("message", ""), "```"]
            for plot in r.get("plots") or []:
                lines += ["", f"![{r['claim_id']}]({plot})"]
            lines.append("")
    return "\n".join(lines)
