"""Plots of audit evidence, rendered to PNG bytes (no display, no global pyplot state)."""

from __future__ import annotations

import io
import re
from typing import Any

import numpy as np

from .results import AuditResult


def plot_filename(claim_id: str) -> str:
    """A file name for a claim's plot, unique per (case-folded) id."""
    return "plots/" + re.sub(r"[^a-z0-9._-]+", "_", claim_id.casefold()) + ".png"


def _figure():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 3.6), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


def _privacy_loss(ax, data: dict[str, Any], result: AuditResult) -> None:
    x, loss = np.asarray(data["x"]), np.asarray(data["loss"])
    if data["lattice"]:
        ax.plot(x, loss, "o", ms=3, color="C0", label="privacy loss L(x)")
    else:
        ax.plot(x, loss, color="C0", label="privacy loss L(x)")
    claimed = data["claimed"]
    ax.axhline(claimed, color="C3", ls="--", lw=1, label=f"claimed ±ε = {claimed:g}")
    ax.axhline(-claimed, color="C3", ls="--", lw=1)
    coord = f" (coordinate {data['coordinate']} of {data['coordinates']})" if data["coordinates"] > 1 else ""
    ax.set_xlabel("output x" + coord)
    ax.set_ylabel("log P[M(d0)=x] / P[M(d1)=x]")
    ax.set_title(f"{result.claim_id or result.subject}: {result.verdict}", fontsize=10)
    ax.legend(fontsize=8)


def _threshold(ax, data: dict[str, Any], result: AuditResult) -> None:
    edges = np.asarray(data["edges"])
    for counts, label, color in ((data["counts0"], data["labels"][0], "C0"), (data["counts1"], data["labels"][1], "C1")):
        ax.stairs(np.asarray(counts), edges, label=label[:60], color=color)
    ax.axvline(data["threshold"], color="C3", ls="--", lw=1, label=f"event x {data['op']} {data['threshold']:.4g}")
    ax.set_yscale("log")
    ax.set_xlabel("output (confirmation samples)")
    ax.set_ylabel("count")
    ax.set_title(f"{result.claim_id or result.subject}: {result.verdict}", fontsize=10)
    ax.legend(fontsize=8)


_RENDERERS = {"privacy-loss": _privacy_loss, "threshold": _threshold}


def render(result: AuditResult) -> bytes | None:
    """The result's evidence plot as PNG bytes, or ``None`` if it has nothing to plot."""
    data = result.plot_data
    if not isinstance(data, dict) or data.get("kind") not in _RENDERERS:
        return None
    fig, ax = _figure()
    _RENDERERS[data["kind"]](ax, data, result)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()
