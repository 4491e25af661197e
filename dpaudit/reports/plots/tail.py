"""Tail evidence: the empirical tail against the claimed bound, and the cumulant generating function."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._axes import (
    _count_nonfinite,
    _finite,
    _floats,
    _legend_outside,
    _nonfinite_note,
    _note,
    _notes,
    _NothingToPlot,
    _positive,
    _scalar,
    _short,
    _title,
)


def _tail(ax, data: dict[str, Any], title: str) -> None:
    """A tail (exact, or empirical with its band and lower bounds) against the claimed bound, log y."""
    t = _floats(data.get("t"))
    if t is None or t.size == 0:
        raise _NothingToPlot
    n = t.size
    tail, bound = _floats(data.get("tail"), n), _floats(data.get("bound"), n)
    band_lo, band_hi = _floats(data.get("band_lower"), n), _floats(data.get("band_upper"), n)
    lower_t = _floats(data.get("lower_t"))
    lower = None if lower_t is None else _floats(data.get("lower"), lower_t.size)
    if all(a is None or not (np.isfinite(a) & (a > 0)).any() for a in (tail, bound, lower)):
        raise _NothingToPlot
    keep = np.isfinite(t) & ((t > 0) if data.get("log_t") else True)
    if data.get("log_t"):
        ax.set_xscale("log")
    t = t[keep]
    tail, bound, band_lo, band_hi = (None if a is None else a[keep] for a in (tail, bound, band_lo, band_hi))
    ax.set_yscale("log")
    _nonfinite_note(ax, _count_nonfinite(tail, bound), "the curves")
    shown = [a[np.isfinite(a) & (a > 0)] for a in (tail, bound, lower) if a is not None]
    floor = min(float(a.min()) for a in shown if a.size) / 10
    top = max(float(a.max()) for a in shown if a.size) * 3  # log autoscaling over 300 decades pads by 15
    drawstyle = "steps-pre" if data.get("step") else "default"  # P(|Y| >= t) is left-continuous
    if tail is not None:
        zero = int((np.isfinite(tail) & (tail <= 0)).sum())
        ax.plot(t, _positive(tail), color="C0", drawstyle=drawstyle, label=_short(data.get("tail_label", "tail"), 60))
        if zero:
            _note(ax, f"tail 0 at {zero} t ({data.get('zero_reason', 'beyond the support')}): not drawn")
    if band_lo is not None and band_hi is not None:
        ax.fill_between(t, np.where(band_lo > floor, band_lo, floor), _positive(band_hi), color="C0", alpha=0.15,
                        lw=0, step="pre" if data.get("step") else None,
                        label=_short(data.get("band_label", "confidence band"), 70))
    if lower is not None:
        drawable = np.isfinite(lower_t) & np.isfinite(lower) & (lower > 0)
        ax.plot(lower_t[drawable], lower[drawable], "^", ms=4, color="C2",
                label=_short(data.get("lower_label", "lower confidence bounds"), 70))
        if (~drawable).sum():
            _note(ax, f"{int((~drawable).sum())} lower bound(s) of 0 not drawn (log axis)")
    if bound is not None:
        dropped = int((np.isfinite(bound) & (bound <= 0)).sum())
        ax.plot(t, _positive(bound), color="C3", ls="--", lw=1.2, label=_short(data.get("bound_label", "bound"), 70))
        if dropped:
            _note(ax, f"bound 0 at {dropped} t (underflow): not drawn")
    witness_t, value = _scalar(data.get("witness_t")), _scalar(data.get("witness_value"))
    if np.isfinite(witness_t):
        ax.axvline(witness_t, color="C3", lw=0.8, ls=":", alpha=0.7)
        label = _short(data.get("witness_label", f"witness t = {witness_t:.4g}"), 70)
        if np.isfinite(value) and value > 0:
            ax.plot([witness_t], [value], "o", mfc="none", mec="C3", ms=9, mew=1.5, label=label)
        else:
            ax.plot([], [], color="C3", lw=0.8, ls=":", label=label)
    ax.set_ylim(max(floor, 1e-320), top)
    _notes(ax, data)
    ax.set_xlabel("t")
    ax.set_ylabel(_short(data.get("quantity", "tail probability"), 40))
    _title(ax, title)
    _legend_outside(ax)


def _tail_cgf(ax, data: dict[str, Any], title: str) -> None:
    """A cumulant function K(lam) against the claimed lam^2 s^2 / 2 (linear axes: the verdict is the sign
    of their difference, and K may be negative)."""
    lam = _floats(data.get("lam"))
    if lam is None or lam.size == 0:
        raise _NothingToPlot
    cgf, claimed = _floats(data.get("cgf"), lam.size), _floats(data.get("claimed"), lam.size)
    lower_lam = _floats(data.get("lower_lam"))
    lower = None if lower_lam is None else _floats(data.get("lower"), lower_lam.size)
    if all(a is None or not np.isfinite(a).any() for a in (cgf, claimed, lower)):
        raise _NothingToPlot
    _nonfinite_note(ax, _count_nonfinite(cgf), "K (the MGF diverges, or overflows)")
    if cgf is not None:
        ax.plot(lam, _finite(cgf), color="C0", label=_short(data.get("cgf_label", "K(lam)"), 70))
    if lower is not None:
        drawable = np.isfinite(lower_lam) & np.isfinite(lower)
        ax.plot(lower_lam[drawable], lower[drawable], "^", ms=4, color="C2",
                label=_short(data.get("lower_label", "lower confidence bounds"), 70))
        if (~drawable).sum():
            _note(ax, f"{int((~drawable).sum())} lower bound(s) <= 0 on the MGF not drawn")
    if claimed is not None:
        ax.plot(lam, _finite(claimed), color="C3", ls="--", lw=1.2, label=_short(data.get("claimed_label", "claimed"),
                                                                               70))
    edge = _scalar(data.get("range"))
    if np.isfinite(edge):
        for side in (-edge, edge):
            ax.axvline(side, color="0.5", lw=0.8, ls="-.")
        _note(ax, f"claimed range |lam| < {edge:.4g} (dash-dot)")
    witness, value = _scalar(data.get("witness_lam")), _scalar(data.get("witness_value"))
    if np.isfinite(witness):
        ax.axvline(witness, color="C3", lw=0.8, ls=":", alpha=0.7)
        label = _short(data.get("witness_label", f"witness lam = {witness:.4g}"), 70)
        if np.isfinite(value):
            ax.plot([witness], [value], "o", mfc="none", mec="C3", ms=9, mew=1.5, label=label)
        else:
            ax.plot([], [], color="C3", lw=0.8, ls=":", label=label)
    _notes(ax, data)
    ax.set_xlabel("lambda")
    ax.set_ylabel(_short(data.get("ylabel", "log E exp(lam Y)"), 40))
    _title(ax, title)
    _legend_outside(ax)
