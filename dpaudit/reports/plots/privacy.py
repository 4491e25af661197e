"""Privacy evidence: the privacy-loss distribution, the threshold scan, the events' counts, the privacy
profile and the Renyi curve."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._axes import (
    _title,
)


def _privacy_loss(ax, data: dict[str, Any], title: str) -> None:
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
    _title(ax, title)
    ax.legend(fontsize=8)


def _threshold(ax, data: dict[str, Any], title: str) -> None:
    edges = np.asarray(data["edges"])
    sides = ((data["counts0"], data["labels"][0], "C0"), (data["counts1"], data["labels"][1], "C1"))
    for counts, label, color in sides:
        ax.stairs(np.asarray(counts), edges, label=label[:60], color=color)
    ax.axvline(data["threshold"], color="C3", ls="--", lw=1, label=f"event x {data['op']} {data['threshold']:.4g}")
    ax.set_yscale("log")
    ax.set_xlabel(f"{data.get('xlabel', 'output')} (confirmation samples)")
    ax.set_ylabel("count")
    _title(ax, title)
    ax.legend(fontsize=8)


def _event_bars(ax, data: dict[str, Any], title: str) -> None:
    n = data["n"]
    shares = [c / n for c in data["inside"]]
    ax.bar([0, 1], shares, color=["C0", "C1"], tick_label=[label[:40] for label in data["labels"]])
    ax.set_ylabel("share of confirmation samples in the event")
    ax.set_xlabel(f"event: {data['event']}"[:100])
    _title(ax, title)


def _privacy_profile(ax, data: dict[str, Any], title: str) -> None:
    eps, delta = np.asarray(data["eps"]), np.asarray(data["delta"])
    claimed_eps, claimed_delta = data["claimed"]
    positive = delta > 0
    ax.plot(eps[positive], delta[positive], color="C0", marker=".", label=f"delta(eps) of {data['direction']}")
    if not positive.all():
        ax.plot([], [], " ", label=f"delta = 0 from eps = {eps[~positive].min():.3g}")
    if claimed_delta > 0:
        ax.plot([claimed_eps], [claimed_delta], "x", color="C3", ms=9, mew=2,
                label=f"claimed ({claimed_eps:g}, {claimed_delta:g})")
    else:
        ax.axvline(claimed_eps, color="C3", ls="--", lw=1, label=f"claimed ({claimed_eps:g}, 0)")
    if positive.any():
        ax.set_yscale("log")
        floor = min(delta[positive].min(), claimed_delta if claimed_delta > 0 else np.inf)
        ax.set_ylim(bottom=max(floor / 10, 1e-300))
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta (hockey-stick divergence)")
    _title(ax, title)
    ax.legend(fontsize=8)


def _renyi(ax, data: dict[str, Any], title: str) -> None:
    alpha, div = np.asarray(data["alpha"]), np.asarray(data["divergence"])
    ax.plot(alpha, div, color="C0", label=f"D_alpha of {data['direction']}")
    if data["rho"] is not None:
        ax.plot(alpha, data["rho"] * alpha, color="C3", ls="--", lw=1,
                label=f"claimed rho * alpha, rho = {data['rho']:g}")
    if data["claimed"]:
        a, e = zip(*data["claimed"])
        ax.plot(a, e, "x", color="C3", ms=9, mew=2, label="claimed (alpha, epsilon)")
    ax.set_xscale("log")
    ax.set_xlabel("Renyi order alpha")
    ax.set_ylabel("Renyi divergence")
    _title(ax, title)
    ax.legend(fontsize=8)


# -- regret and lower-bound evidence ----------------------------------------------------------------
# plot_data arrives as numpy arrays from an audit; lists (with None or "nan"/"inf" strings for
# non-finite values, as in results.json) are read the same way. Missing optional keys leave their
# curve out; non-finite values are not drawn; values a log axis cannot show are dropped with a note.
