"""DP-SGD evidence: a claim against its certified bracket, and epsilon against the noise multiplier (the certified
band of the run's sampler, of Poisson sampling at its rate, and an accountant's curve)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._axes import _NothingToPlot, _title


def _bracket(ax, data: dict[str, Any], title: str) -> None:
    """The certified bracket of eps(delta) (or delta(eps) for pure DP) as a bar, the claim as a line."""
    if data.get("eps_bracket") is not None:
        lo, hi = data["eps_bracket"]
        claim, label = data["eps"], f"epsilon at delta = {data['delta']:g}"
    else:
        lo, hi = data["delta_bracket"]
        claim, label = data["delta"], f"delta at epsilon = {data['eps']:g}"
    if not math.isfinite(lo):
        raise _NothingToPlot
    top = hi if math.isfinite(hi) else max(lo, claim) * 1.5 + 1
    ax.barh([0], [top - lo], left=[lo], height=0.4, color="C0", alpha=0.35,
            label="certified bracket" + ("" if data.get("tight", True) else " (not tight)")
            + ("" if math.isfinite(hi) else ", no upper bound"))
    ax.plot([lo, lo], [-0.3, 0.3], color="C0", lw=2)
    if math.isfinite(hi):
        ax.plot([hi, hi], [-0.3, 0.3], color="C0", lw=2)
    ax.axvline(claim, color="C3", ls="--", lw=1.2, label=f"claimed {claim:g}")
    ax.set_yticks([])
    ax.set_ylim(-1, 1)
    ax.set_xlabel(label)
    _title(ax, title)
    ax.legend(fontsize=8, loc="upper right")


def _sweep(ax, data: dict[str, Any], title: str) -> None:
    z = np.asarray(data["z"], dtype=float)
    for i, (name, (lo, hi)) in enumerate(data["bands"].items()):
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        finite = np.isfinite(hi)
        ax.fill_between(z[finite], lo[finite], hi[finite], color=f"C{i}", alpha=0.3, lw=0)
        ax.plot(z, lo, color=f"C{i}", lw=1.2, label=name + " (lower)")
        ax.plot(z[finite], hi[finite], color=f"C{i}", lw=1.2, ls=":", label=name + " (upper)")
    for j, (name, values) in enumerate(data["accountants"].items()):
        v = np.array([np.nan if x is None else x for x in values], dtype=float)
        ax.plot(z, v, color=f"C{j + 3}", marker=".", lw=1, label=name)
    if data.get("claim") is not None:  # a bracket asked for without a claim draws none
        z0, eps = data["claim"]
        ax.plot([z0], [eps], "*", color="C3", ms=11, label=f"claim: eps = {eps:g} at z = {z0:.3g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("noise multiplier z")
    ax.set_ylabel(f"epsilon at delta = {data['delta']:g}")
    _title(ax, title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
