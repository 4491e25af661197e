"""The report's first picture: each paper's claims as one bar, cut by outcome, drawn inline as SVG (the file still
opens offline, and the picture scales with the window)."""

from __future__ import annotations

from html import escape
from typing import Any

from .summary import SHOWN_LABELS, SHOWN_OUTCOMES, by_paper, shown_outcome

#: each outcome's colour in the picture: the badges' hues, strong enough to tell apart in a thin bar (a refutation
#: outside its statement's hypotheses in a paler shade of the expected refutations')
COLOURS = {"pass": "#43a047", "expected-refutation": "#7e57c2", "hypothesis-not-met": "#b39ddb",
           "unexpected-refutation": "#e53935", "not-reproduced": "#f06292", "error": "#ffb300"}
#: the picture's geometry, in SVG user units (px at its natural size)
LABEL_WIDTH, BAR_WIDTH, COUNT_WIDTH, ROW, BAR, LEGEND = 150, 260, 70, 24, 14, 22


def outcome_bars(records: list[dict[str, Any]]) -> str:
    """An SVG of one bar per paper (in the summary table's order), its length the paper's claims against the
    largest paper's, cut into one segment per outcome in :data:`~dpaudit.reports.summary.SHOWN_OUTCOMES` order (the
    expected refutations outside their statements' hypotheses apart from the others), each
    segment titled with its count (shown on hover) and carrying ``data-outcome`` and ``data-count``; a legend of
    the outcomes that occur below. Empty text when there are no records."""
    papers = by_paper(records)
    if not papers:
        return ""
    counts = {paper: {o: sum(shown_outcome(r) == o for r in group) for o in SHOWN_OUTCOMES}
              for paper, group in sorted(papers.items())}
    largest = max(sum(c.values()) for c in counts.values())
    present = [o for o in SHOWN_OUTCOMES if any(c[o] for c in counts.values())]
    width = LABEL_WIDTH + BAR_WIDTH + COUNT_WIDTH
    legend, x, y = [], 0.0, ROW * len(counts) + 8  # the legend's entries, wrapped to the picture's width
    for outcome in present:
        label = SHOWN_LABELS[outcome]
        step = 13 + 6.5 * len(label) + 12
        if x and x + step > width:
            x, y = 0.0, y + LEGEND - 6
        legend.append(f'<rect x="{x:.2f}" y="{y}" width="10" height="10" fill="{COLOURS[outcome]}"/>'
                      f'<text x="{x + 13:.2f}" y="{y + 9}" fill="#555">{escape(label)}</text>')
        x += step
    height = y + LEGEND - 6
    parts = [f'<svg class="bars" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'width="{width}" role="img" aria-label="claims by paper and outcome" '
             'font-family="system-ui,sans-serif" font-size="12">']
    for row, (paper, by_outcome) in enumerate(counts.items()):
        y = row * ROW + 4
        total = sum(by_outcome.values())
        parts.append(f'<g class="paper" data-paper="{escape(paper)}"><text x="{LABEL_WIDTH - 6}" y="{y + BAR - 3}" '
                     f'text-anchor="end">{escape(_short(paper or "(no paper)"))}</text>')
        x = float(LABEL_WIDTH)
        for outcome in SHOWN_OUTCOMES:
            n = by_outcome[outcome]
            if not n:
                continue
            length = BAR_WIDTH * n / largest
            parts.append(f'<rect x="{x:.2f}" y="{y}" width="{length:.2f}" height="{BAR}" fill="{COLOURS[outcome]}" '
                         f'data-outcome="{outcome}" data-count="{n}"><title>{escape(paper)}: {n} '
                         f'{SHOWN_LABELS[outcome]}</title></rect>')
            x += length
        parts.append(f'<text x="{x + 6:.2f}" y="{y + BAR - 3}" fill="#555">{total}</text></g>')
    parts.extend(legend)
    parts.append("</svg>")
    return "".join(parts)


def _short(name: str, limit: int = 22) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"


__all__ = ["COLOURS", "outcome_bars"]
