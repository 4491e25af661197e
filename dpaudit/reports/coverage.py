"""What a paper's suite audits, statement by statement: the coverage section of the reports and docs/statements.md.

Reads the tables the run's header keeps (``run["statements"]``, one per paper the run selected, made by
:func:`dpaudit.suite.statements.as_record`): every numbered statement of the paper, each *encoded* (every checkable
part audited by entries), *partly*, *left out* (with the reason per part), or with *nothing to check*.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

#: the statuses, in the order the tables list them (:data:`dpaudit.suite.statements.STATUSES`)
STATUSES = ("encoded", "partly", "left out", "nothing to check")
COUNT_COLUMNS = ("statements", *STATUSES)
INTRO = ("Every numbered statement of each paper this run audits, as its suite covers it (the whole suite, not only "
         "this run's selection): encoded (every checkable part audited by entries), partly, left out (each part with "
         "its reason), or nothing to check (no constant a number could refute).")


def coverage(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The run's statement tables by paper (empty for a run of no paper's suite, or an older results.json)."""
    return dict(run.get("statements") or {})


def gaps(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The statements with a checkable part no entry audits (partly, left out), in the paper's order."""
    return [s for s in table.get("statements", []) if s.get("status") in ("partly", "left out")]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _backticks(entry: str) -> str:
    return f"`{entry}`"


def _plain(text: str) -> str:
    return text


def part_text(part: dict[str, Any], code: Callable[[str], str] = _backticks,
              text: Callable[[str], str] = _plain) -> str:
    """One part: the entries that audit it, or why it is left out (and what the reason points to). ``code`` shows an
    entry and ``text`` the words (markdown by default; the HTML report passes its escapes)."""
    name = text(part["part"] + (f" ({part['what']})" if part.get("what") else ""))
    see = ", ".join(code(e) for e in part.get("see") or ())
    if part.get("entries"):
        return f"{name}: " + ", ".join(code(e) for e in part["entries"]) + (f" (see {see})" if see else "")
    label = name + ("" if part.get("checkable", True) else text(", nothing to check"))
    return f"{label}: {text(part.get('reason', ''))}" + (f" (see {see})" if see else "")


def statement_text(s: dict[str, Any], code: Callable[[str], str] = _backticks,
                   text: Callable[[str], str] = _plain) -> str:
    """Every part of a statement, or the statement's own reason when it has none."""
    if not s.get("parts"):
        see = f" (see {', '.join(code(e) for e in s['see'])})" if s.get("see") else ""
        return f"{text(s.get('reason', ''))}{see}"
    return "; ".join(part_text(p, code, text) for p in s["parts"])


def counts_table(tables: dict[str, dict[str, Any]]) -> list[str]:
    """The counts per paper, as a markdown table."""
    lines = ["| paper | " + " | ".join(COUNT_COLUMNS) + " |", "|---|" + "---:|" * len(COUNT_COLUMNS)]
    lines += [f"| `{paper}` | " + " | ".join(str(t["counts"].get(c, 0)) for c in COUNT_COLUMNS) + " |"
              for paper, t in tables.items()]
    return lines


def markdown_section(tables: dict[str, dict[str, Any]], heading: str = "##") -> list[str]:
    """The report's coverage section: the counts per paper, then each statement that is partly audited or left
    out, with what audits it and why the rest is not."""
    if not tables:
        return []
    lines = [f"{heading} Statements ({sum(t['counts']['statements'] for t in tables.values())})", "", INTRO, ""]
    lines += counts_table(tables) + [""]
    for paper, table in tables.items():
        missing = gaps(table)
        if missing:
            lines += [f"{heading}# {paper}: partly or left out ({len(missing)})", ""]
            lines += [f"- **{s['printed']}** (`{s['id']}`, {s['status']}): {_cell(statement_text(s))}"
                      for s in missing]
            lines.append("")
    return lines


def full_table(paper: str, table: dict[str, Any]) -> list[str]:
    """Every statement of one paper, one row each (docs/statements.md)."""
    lines = ["| statement | says | status | audited by, or why not |", "|---|---|---|---|"]
    lines += [f"| {s['printed']} (`{s['id']}`) | {_cell(s['says'])} | {s['status']} | {_cell(statement_text(s))} |"
              for s in table["statements"]]
    return lines


def _code(entry: str) -> str:
    return f"<code>{escape(entry)}</code>"


def html_section(tables: dict[str, dict[str, Any]]) -> list[str]:
    """The HTML report's coverage section: the counts per paper, and each paper's partly and left-out statements in
    a closed ``<details>``."""
    if not tables:
        return []
    total = sum(t["counts"]["statements"] for t in tables.values())
    body = [f'<h2 id="statements">Statements ({total})</h2><p class="meta">{escape(INTRO)}</p>',
            '<table class="summary"><thead><tr><th>paper</th>'
            + "".join(f"<th>{escape(c)}</th>" for c in COUNT_COLUMNS) + "</tr></thead><tbody>"]
    body += [f"<tr><td>{escape(paper)}</td>" + "".join(f"<td>{t['counts'].get(c, 0)}</td>" for c in COUNT_COLUMNS)
             + "</tr>" for paper, t in tables.items()]
    body.append("</tbody></table>")
    for paper, table in tables.items():
        missing = gaps(table)
        if missing:
            body.append(f'<details class="group" data-paper="{escape(paper)}"><summary>{escape(paper)}: '
                        f"{len(missing)} partly or left out</summary><ul>")
            body += [f"<li><b>{escape(s['printed'])}</b> (<code>{escape(s['id'])}</code>, {escape(s['status'])}): "
                     f"{statement_text(s, _code, escape)}</li>" for s in missing]
            body.append("</ul></details>")
    return body
