"""Plots of audit evidence, rendered to PNG bytes (no display, no global pyplot state): one module per kind of
evidence (:mod:`~dpaudit.reports.plots.privacy`, :mod:`~dpaudit.reports.plots.regret`,
:mod:`~dpaudit.reports.plots.tail`, :mod:`~dpaudit.reports.plots.dpsgd`), what they share in
:mod:`~dpaudit.reports.plots._axes`, and :func:`render`, which picks the renderer by the evidence's kind.
Imports the vocabulary's findings and records only."""

from __future__ import annotations

import io
import re

from ...core.results import AuditResult, Finding
from ._axes import WIDE, _figure, _fit, _NothingToPlot, _plain_log_labels
from .dpsgd import _bracket, _sweep
from .privacy import _event_bars, _privacy_loss, _privacy_profile, _renyi, _threshold
from .regret import _lower_bound, _regret_bound, _regret_order, _regret_rate
from .tail import _tail, _tail_cgf


def plot_filename(claim_id: str) -> str:
    """A file name for a claim's plot, unique per (case-folded) id."""
    return "plots/" + re.sub(r"[^a-z0-9._-]+", "_", claim_id.casefold()) + ".png"


_RENDERERS = {
    "privacy-loss": _privacy_loss,
    "threshold": _threshold,
    "event-bars": _event_bars,
    "privacy-profile": _privacy_profile,
    "renyi": _renyi,
    "regret-bound": _regret_bound,
    "regret-rate": _regret_rate,
    "lower-bound": _lower_bound,
    "regret-order": _regret_order,
    "tail": _tail,
    "tail-cgf": _tail_cgf,
    "dpsgd-bracket": _bracket,
    "dpsgd-sweep": _sweep,
}

#: kinds whose legend sits outside the axes, on a wider figure
_WIDE_KINDS = {"regret-bound", "regret-rate", "lower-bound", "regret-order", "tail", "tail-cgf", "dpsgd-sweep"}


def render(evidence: Finding | AuditResult, title: str | None = None) -> bytes | None:
    """The evidence plot of a finding or a record as PNG bytes, or ``None`` if it has nothing to plot;
    ``title`` defaults to a record's claim id (or subject) and verdict."""
    data = evidence.plot_data
    if not isinstance(data, dict) or data.get("kind") not in _RENDERERS:
        return None
    if title is None:
        name = getattr(evidence, "claim_id", None) or getattr(evidence, "subject", "")
        title = f"{name}: {evidence.verdict}"
    fig, ax = _figure(WIDE if data["kind"] in _WIDE_KINDS else 6.4)
    try:
        _RENDERERS[data["kind"]](ax, data, title)
    except _NothingToPlot:
        return None
    _plain_log_labels(ax)
    _fit(fig, ax)
    fig.canvas.draw()
    return _palette_png(fig.canvas)


#: colours kept in a plot's palette: line plots on white use a few dozen, so 64 loses nothing visible
PALETTE_COLOURS = 64


def _palette_png(canvas) -> bytes:
    """The drawn ``canvas`` (an Agg canvas) as an 8-bit palette PNG, a quarter of matplotlib's RGBA size: a
    five-paper report carries a few hundred plots. Deterministic (median cut, no dithering). Read off the
    canvas's pixels, not a PNG matplotlib wrote and this decoded again."""
    from PIL import Image

    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    palette = image.convert("RGB").quantize(colors=PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT,
                                            dither=Image.Dither.NONE)
    buf = io.BytesIO()
    palette.save(buf, format="PNG", compress_level=6)  # zlib's default: 8% larger than level 9, 7x faster
    return buf.getvalue()


__all__ = ["PALETTE_COLOURS", "WIDE", "plot_filename", "render"]
