"""The line a run ends with when its claims raised warnings: each record keeps its own, and this line says
where to find them instead of repeating them on screen."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.results import warning_totals
from .progress import Progress


def warnings_line(records: Iterable[dict[str, Any]]) -> str | None:
    """E.g. ``7 warnings (3 distinct) recorded by 5 claims: see results.json or report.html``; None without any."""
    total, distinct, claims = warning_totals(records)
    if not claims:
        return None
    return (f"{total} warning{'s' if total > 1 else ''} ({distinct} distinct) recorded by {claims} "
            f"claim{'s' if claims > 1 else ''}: see results.json or report.html")


def report_warnings(progress: Progress, records: Iterable[dict[str, Any]]) -> None:
    """Print :func:`warnings_line` through ``progress`` (above its bar), if any claim raised a warning."""
    line = warnings_line(records)
    if line is not None:
        progress.message(line)
