"""Reports rendered from a results document: ``report.md``, ``report.html``, ``junit.xml``; the evidence plots
(:mod:`~dpaudit.reports.plots`) and the comparison of two runs (:mod:`~dpaudit.reports.compare`).

May import the vocabulary, the subject handles and the auditors' findings; the runner and the CLI import it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.files import atomic_write, load_results
from .html import render_html
from .junit import render_junit
from .markdown import render_markdown

REPORT_FILES = ("report.md", "report.html", "junit.xml")


def write_reports(out: Path, document: dict[str, Any]) -> None:
    """Write the three reports for ``document`` (the content of ``results.json``) into ``out``."""
    out = Path(out)
    atomic_write(out / "report.md", render_markdown(document).encode("utf-8"))
    atomic_write(out / "report.html", render_html(document, out).encode("utf-8"))
    atomic_write(out / "junit.xml", render_junit(document))


def rerender(out: Path) -> dict[str, Any]:
    """Re-render the reports of ``out`` from ``out/results.json``; returns the document."""
    document = load_results(Path(out) / "results.json")
    write_reports(Path(out), document)
    return document


__all__ = ["REPORT_FILES", "rerender", "write_reports"]
