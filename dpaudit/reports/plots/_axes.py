"""What every evidence plot shares: the figure, titles, notes, legends outside the axes, and the reading of
the plot data's arrays (non-finite values counted and said, never drawn)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Collection
from typing import Any

import numpy as np

#: the width of a figure whose legend sits outside the axes, on the right
WIDE = 8.8


#: the space kept free around everything the axes draw (tick labels, axis labels, title, legend), in inches
MARGIN = 0.06


def _figure(width: float = 6.4):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 3.6), dpi=100)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _fit(fig, ax) -> None:
    """Move the axes so that what they draw around themselves fits the figure with :data:`MARGIN` to spare.

    One pass of what matplotlib's constrained layout does in two (plus a draw of its own at save time):
    measure the axes' tight box once, then set the margins from it. A plot renders in about 0.7 of the
    time, and the quick run renders some 430; the tick labels measured can move a little once the axes
    are resized, which the margin absorbs."""
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    tight, box = ax.get_tightbbox(renderer), ax.get_window_extent(renderer)
    # across, only the axes' own labels and the legend count: the title (left-aligned, :func:`_title`) may run on
    # over the legend's column, and a long one must not narrow the axes
    legend = ax.get_legend()
    across = Bbox.union([b for b in (box, ax.xaxis.get_tightbbox(renderer), ax.yaxis.get_tightbbox(renderer),
                                     legend.get_window_extent(renderer) if legend is not None else None)
                         if b is not None])
    pad = MARGIN * fig.dpi
    width, height = fig.bbox.width, fig.bbox.height
    left, right = box.x0 - across.x0 + pad, across.x1 - box.x1 + pad
    bottom, top = box.y0 - tight.y0 + pad, tight.y1 - box.y1 + pad
    # keep a fifth of the figure for the axes whatever surrounds them: a legend too wide overflows on the right,
    # the axis labels on the left stay whole; too tall a frame of labels shrinks evenly
    left = min(left, 0.4 * width)
    right = min(right, 0.8 * width - left)
    shrink_y = min(1.0, 0.8 * height / max(bottom + top, 1e-9))
    fig.subplots_adjust(left=left / width, right=1 - right / width,
                        bottom=bottom * shrink_y / height, top=1 - top * shrink_y / height)


_SUPERSCRIPTS = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")
# what matplotlib's log formatters write: $\mathdefault{[sign][coefficient\times]base^{exponent}}$ or a number
_MATHTEXT_POWER = re.compile(r"\$\\mathdefault\{(-?)(?:([0-9.]+)\\times)?([0-9.]+)\^\{(-?[0-9]+)\}\}\$")
_MATHTEXT_NUMBER = re.compile(r"\$\\mathdefault\{(-?[0-9.]+)\}\$")


def _log_label_as_text(label: str) -> str:
    """A log axis' tick label ``$\\mathdefault{2\\times10^{-3}}$`` as the plain text ``2×10⁻³`` (Unicode
    superscripts, which the default font has): the same label without the mathtext parser, which took a
    fifth of a plot's time. Anything else is returned as it was."""
    if match := _MATHTEXT_POWER.fullmatch(label):
        sign, coefficient, base, exponent = match.groups()
        return (("\u2212" if sign else "") + (f"{coefficient}\u00d7" if coefficient else "") + base
                + exponent.translate(_SUPERSCRIPTS))
    if match := _MATHTEXT_NUMBER.fullmatch(label):
        return match.group(1).replace("-", "\u2212")
    return label


def _plain_log_labels(ax) -> None:
    """Let the log axes of ``ax`` write their tick labels as plain text (:func:`_log_label_as_text`)."""
    from matplotlib.ticker import LogFormatterMathtext

    for axis in (ax.xaxis, ax.yaxis):
        for formatter in {axis.get_major_formatter(), axis.get_minor_formatter()}:
            if isinstance(formatter, LogFormatterMathtext):  # an axis reads its labels with format_ticks
                formatter.format_ticks = lambda values, mathtext=formatter.format_ticks: [
                    _log_label_as_text(label) for label in mathtext(values)]


class _NothingToPlot(Exception):
    """Raised by a renderer whose data has nothing drawable (``render`` then returns None)."""


def _title(ax, title: str) -> None:
    """The plot's title, from the axes' left edge: a claim id is often wider than axes narrowed by a legend
    outside them, and a centred title would run off the figure's left edge."""
    ax.set_title(title, fontsize=10, loc="left")


def _floats(value: Any, n: int | None = None) -> np.ndarray | None:
    """``value`` as a 1-D float array (None and unparsable entries as NaN), or None when it is missing,
    not numeric, or (``n`` given) not of length ``n``."""
    if value is None:
        return None
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        try:
            a = np.asarray([_scalar(v) for v in np.ravel(np.asarray(value, dtype=object))], dtype=float)
        except (TypeError, ValueError):
            return None
    a = np.ravel(a)
    if n is not None and a.size != n:
        return None
    return a


def _scalar(value: Any) -> float:
    """One number, NaN when missing or not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _rows(value: Any, n: int) -> list[np.ndarray | None]:
    """A list of ``n`` 1-D arrays from a list of lists (or a 2-D array); a missing row is None."""
    if value is None or isinstance(value, (str, bytes)):
        return [None] * n
    try:
        rows = list(value)
    except TypeError:
        return [None] * n
    return [_floats(rows[i]) if i < len(rows) else None for i in range(n)]


def _finite(a: np.ndarray | None) -> np.ndarray | None:
    """``a`` with +-inf as NaN (matplotlib leaves NaN out of lines and autoscaling)."""
    return None if a is None else np.where(np.isfinite(a), a, np.nan)


def _short(label: Any, width: int = 40) -> str:
    return textwrap.shorten(str(label), width, placeholder="…") or str(label)[:width]


def _note(ax, text: str) -> None:
    """A line of text in the legend (no handle), listed after the data."""
    ax.plot([], [], " ", label=text, gid="note")


def _legend_outside(ax, bold: Collection[str] = ()) -> None:
    """The legend to the right of the axes (the figure is :data:`WIDE`), so it never covers the data:
    error bars first, then the other data in the order drawn, then the notes; labels in ``bold`` are set
    in bold."""
    from matplotlib.container import ErrorbarContainer

    entries = list(zip(*ax.get_legend_handles_labels()))
    if not entries:
        return
    entries.sort(key=lambda e: 0 if isinstance(e[0], ErrorbarContainer) else 2 if e[0].get_gid() == "note" else 1)
    handles, labels = zip(*entries)
    many = len(entries) > 18
    legend = ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                       fontsize=6 if many else 7, ncols=2 if many else 1, frameon=False)
    for text in legend.get_texts():
        if text.get_text() in bold:
            text.set_fontweight("bold")


def _log_x(ax, x: np.ndarray) -> np.ndarray:
    """Use a log x axis when the positive values of ``x`` span more than a decade; returns the mask of
    the points that can be drawn (all finite ones on a linear axis, the positive ones on a log axis)."""
    finite = np.isfinite(x)
    positive = finite & (x > 0)
    if positive.sum() >= 2 and x[positive].max() > 10 * x[positive].min():
        ax.set_xscale("log")
        if (finite & ~positive).any():
            _note(ax, f"{int((finite & ~positive).sum())} point(s) at x <= 0 not drawn (log axis)")
        return positive
    return finite


def _nonfinite_note(ax, count: int, what: str) -> None:
    if count:
        _note(ax, f"{count} non-finite value(s) of {what} not drawn")


def _count_nonfinite(*arrays: np.ndarray | None) -> int:
    return sum(int((~np.isfinite(a)).sum()) for a in arrays if a is not None)


def _positive(a: np.ndarray | None) -> np.ndarray | None:
    """``a`` with what a log axis cannot show (0 from underflow or beyond the support, negatives,
    non-finite values) as NaN."""
    return None if a is None else np.where(np.isfinite(a) & (a > 0), a, np.nan)


def _notes(ax, data: dict[str, Any]) -> None:
    notes = data.get("notes")
    for note in notes if isinstance(notes, (list, tuple)) else []:
        _note(ax, _short(note, 70))
