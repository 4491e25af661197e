"""A :class:`~dpaudit.reports.compare.Comparison` as text (for a terminal or a CI log), markdown (for a
pull request comment) or JSON (for a program). Each leads with the headline and the warnings; a section
with nothing in it is left out."""

from __future__ import annotations

import json
from collections.abc import Callable

from .compare import Change, Comparison, Side

FORMATS = ("text", "markdown", "json")


def _state(side: Side | None) -> str:
    return "absent" if side is None else f"{side.label} ({side.verdict})"


def _moved(change: Change) -> str:
    return f"{_state(change.old)} -> {_state(change.new)}"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g}"


def _statistic(change: Change) -> str:
    """The certified value old -> new, and the statistics' own words where they differ."""
    old, new = change.old, change.new
    text = f"certified {_number(old.certified if old else None)} -> {_number(new.certified if new else None)}"
    old_words, new_words = (old.statistic if old else None), (new.statistic if new else None)
    if old_words != new_words:
        text += f" ({old_words or '-'} -> {new_words or '-'})"
    return text


def _now(change: Change) -> str:
    side = change.new or change.old
    text = _state(side)
    return f"{text}; {side.statistic}" if side and side.statistic else text


#: the sections in the order a reader wants them: what got worse first; (attribute, title, detail)
SECTIONS: tuple[tuple[str, str, Callable[[Change], str]], ...] = (
    ("newly_failing", "Newly failing", _moved),
    ("new_findings", "New findings", _moved),
    ("lost_findings", "Lost findings", _moved),
    ("moved", "Verdicts moved", _moved),
    ("statistics_moved", "Certified statistics moved", _statistic),
    ("only_old", "Only in the old run", _now),
    ("only_new", "Only in the new run", _now),
)


def render_text(comparison: Comparison) -> str:
    lines = [comparison.headline()]
    lines += [f"warning: {w}" for w in comparison.warnings()]
    for attribute, title, detail in SECTIONS:
        changes: list[Change] = getattr(comparison, attribute)
        if changes:
            lines += ["", f"{title} ({len(changes)}):"]
            lines += [f"  {c.claim_id}: {detail(c)}" for c in changes]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(comparison: Comparison) -> str:
    lines = ["# dpaudit: comparison of two runs", "",
             f"Old: `{comparison.old.source}`, new: `{comparison.new.source}`", "",
             f"**{comparison.headline()}**"]
    if comparison.warnings():
        lines.append("")
        lines += [f"- Warning: {_cell(w)}" for w in comparison.warnings()]
    for attribute, title, detail in SECTIONS:
        changes: list[Change] = getattr(comparison, attribute)
        if changes:
            lines += ["", f"## {title} ({len(changes)})", "", "| claim | change |", "| --- | --- |"]
            lines += [f"| `{_cell(c.claim_id)}` | {_cell(detail(c))} |" for c in changes]
    return "\n".join(lines) + "\n"


def render_json(comparison: Comparison) -> str:
    return json.dumps(comparison.to_dict(), indent=1, allow_nan=False) + "\n"


RENDERERS: dict[str, Callable[[Comparison], str]] = {"text": render_text, "markdown": render_markdown,
                                                     "json": render_json}


def render(comparison: Comparison, fmt: str) -> str:
    """The comparison in ``fmt`` (one of :data:`FORMATS`)."""
    return RENDERERS[fmt](comparison)


__all__ = ["FORMATS", "render", "render_json", "render_markdown", "render_text"]
