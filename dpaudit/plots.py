"""Plots of audit evidence, rendered to PNG bytes (no display, no global pyplot state)."""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Collection
from typing import Any

import numpy as np

from .results import AuditResult, Finding


def plot_filename(claim_id: str) -> str:
    """A file name for a claim's plot, unique per (case-folded) id."""
    return "plots/" + re.sub(r"[^a-z0-9._-]+", "_", claim_id.casefold()) + ".png"


#: the width of a figure whose legend sits outside the axes, on the right
WIDE = 8.8


def _figure(width: float = 6.4):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 3.6), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


class _NothingToPlot(Exception):
    """Raised by a renderer whose data has nothing drawable (``render`` then returns None)."""


def _title(ax, title: str) -> None:
    ax.set_title(title, fontsize=10)


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


def _regret_bound(ax, data: dict[str, Any], title: str) -> None:
    grid = _floats(data.get("grid"))
    if grid is None or grid.size == 0:
        raise _NothingToPlot
    n = grid.size
    mean, lower, bound = (_floats(data.get(k), n) for k in ("mean", "lower", "bound"))
    quantile = _floats(data.get("quantile"), n)
    if all(a is None or not np.isfinite(a).any() for a in (mean, lower, bound, quantile)):
        raise _NothingToPlot
    keep = _log_x(ax, grid)
    t = grid[keep]
    mean, lower, bound, quantile = (None if a is None else a[keep] for a in (mean, lower, bound, quantile))
    _nonfinite_note(ax, _count_nonfinite(mean, lower, bound, quantile), "the curves")
    mean, lower, bound, quantile = map(_finite, (mean, lower, bound, quantile))
    style = {"marker": "o", "ms": 3} if t.size <= 30 else {}
    if mean is not None:
        ax.plot(t, mean, color="C0", label="mean regret over runs", **style)
    curve, curve_name = None, ""
    if lower is not None:
        curve, curve_name = lower, "lower bound"
        label = "one-sided lower confidence bound on E[R_T]"
        if mean is None:
            ax.plot(t, lower, color="C0", ls=":", label=label, **style)
        elif t.size == 1:
            ax.vlines(t, lower, mean, color="C0", alpha=0.3, lw=6, label=label)
        else:
            ax.fill_between(t, lower, mean, color="C0", alpha=0.2, lw=0, label=label)
    elif quantile is not None:
        p = _scalar(data.get("probability"))
        q = f"{1 - p:g}-quantile" if 0 < p < 1 else "(1 - p)-quantile"
        curve, curve_name = quantile, "quantile"
        ax.plot(t, quantile, color="C1", label=f"empirical {q} of R_T", **style)
    if bound is not None:
        description = data.get("description")
        text = f"claimed f(T): {_short(description, 45)}" if description else "claimed bound f(T)"
        ax.plot(t, bound, color="C3", ls="--", lw=1.2, label=text, **({"marker": "x", "ms": 4} if style else {}))
    if curve is not None and bound is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(bound > 0, curve / np.where(bound > 0, bound, 1.0),
                             np.where(curve > bound, np.inf, -np.inf))
        ratio = np.where(np.isfinite(curve) & np.isfinite(bound), ratio, np.nan)
        if not np.isnan(ratio).all():
            j = int(np.nanargmax(ratio))
            ax.axvline(t[j], color="C3", lw=0.8, ls=":", alpha=0.6)
            ax.plot([t[j]], [curve[j]], "o", mfc="none", mec="C3", ms=9, mew=1.5,
                    label=f"largest {curve_name} / f(T): {ratio[j]:.3g} at T = {t[j]:.6g}")
    ax.set_xlabel("rounds T")
    ax.set_ylabel("regret R_T")
    _title(ax, title)
    _legend_outside(ax)


_VARIABLE_LABELS = {"T": "rounds T", "eps": "privacy parameter eps", "d": "dimension d", "K": "arms K",
                    "n": "n"}


def _regret_rate(ax, data: dict[str, Any], title: str) -> None:
    x = _floats(data.get("x"))
    if x is None or x.size == 0:
        raise _NothingToPlot
    mean = _floats(data.get("mean"), x.size)
    if mean is None:
        raise _NothingToPlot
    se = _floats(data.get("stderr"), x.size)
    variable = str(data.get("variable") or "x")
    power = _scalar(data.get("log_power", 0.0))
    power = power if np.isfinite(power) else 0.0
    ok = np.isfinite(x) & (x > 0) & np.isfinite(mean) & (mean > 0)
    if not ok.any():
        raise _NothingToPlot
    dropped = int((~ok).sum())
    x, mean = x[ok], mean[ok]
    se = None if se is None else np.where(np.isfinite(se[ok]) & (se[ok] >= 0), se[ok], np.nan)
    ax.set_xscale("log")
    ax.set_yscale("log")
    if se is not None and np.isfinite(se).any():
        floor = float(mean.min()) / 10
        low = np.where(np.isnan(se), mean, np.maximum(mean - 2 * se, floor))
        high = np.where(np.isnan(se), mean, mean + 2 * se)
        clipped = " (lower ends clipped)" if (mean - 2 * se <= floor).any() else ""
        ax.errorbar(x, mean, yerr=[mean - low, high - mean], fmt="o", ms=4, color="C0", ecolor="C0", elinewidth=1,
                    capsize=2, label=f"mean regret ± 2 s.e.{clipped}")
    else:
        ax.plot(x, mean, "o", ms=4, color="C0", label="mean regret")
    if dropped:
        _note(ax, f"{dropped} point(s) with mean <= 0 or not finite not drawn (log axes)")
    xs = np.geomspace(x.min(), x.max(), 200) if x.max() > x.min() else x
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        factor = np.abs(np.log(xs)) ** power

        def draw(curve: np.ndarray, **kwargs: Any) -> None:
            curve = np.where(np.isfinite(curve) & (curve > 0), curve, np.nan)
            if np.isfinite(curve).any():
                ax.plot(xs, curve, **({"marker": "_", "ms": 12} if xs.size == 1 else {}), **kwargs)

        slope, intercept = _scalar(data.get("slope")), _scalar(data.get("intercept"))
        if np.isfinite(slope) and np.isfinite(intercept):
            draw(np.exp(intercept + slope * np.log(xs)) * factor, color="C0", lw=1.2,
                 label=f"fitted slope {slope:.3f}")
        claimed = _scalar(data.get("claimed"))
        if np.isfinite(claimed):
            point_factor = np.abs(np.log(x)) ** power
            residual = np.log(mean / point_factor) - claimed * np.log(x)
            usable = np.isfinite(residual)
            weights = np.ones_like(mean)
            if se is not None:
                var = (se / mean) ** 2
                good = np.isfinite(var)
                if good.any() and var[good].max() > 0:
                    var = np.where(good, np.maximum(var, 1e-6 * var[good].max()), np.nan)
                    weights = 1 / var
                    usable &= np.isfinite(weights)
            if usable.any():
                log_c = float(np.sum(weights[usable] * residual[usable]) / np.sum(weights[usable]))
                log_text = f" log^{power:g} {variable}" if power else ""
                draw(np.exp(log_c) * xs ** claimed * factor, color="C3", ls="--", lw=1.2,
                     label=f"claimed {variable}^{claimed:g}{log_text}, fitted constant C = {np.exp(log_c):.3g}")
    ax.set_xlabel(_VARIABLE_LABELS.get(variable, variable))
    ax.set_ylabel("mean regret")
    _title(ax, title)
    _legend_outside(ax)


def _tick_label(label: Any, groups: int) -> str:
    """An algorithm's label under its group: wrapped on up to three lines for a few groups, else one
    line with its middle left out (rotated), since labels often differ only at their end."""
    label = str(label)
    if groups > 4:
        return label if len(label) <= 36 else label[:17] + "…" + label[-18:]
    return "\n".join(textwrap.wrap(label, 80 // groups, max_lines=3, placeholder="…")) or label[:20]


def _lower_bound(ax, data: dict[str, Any], title: str) -> None:
    labels = data.get("algorithms")
    if labels is None or isinstance(labels, (str, bytes)) or len(labels) == 0:
        raise _NothingToPlot
    labels = [str(a) for a in labels]
    k = len(labels)
    bounds = _floats(data.get("bounds"), k)
    bounds = np.full(k, np.nan) if bounds is None else bounds
    means, uppers = _rows(data.get("means"), k), _rows(data.get("uppers"), k)
    values = [a for a in (*means, *uppers, bounds) if a is not None]
    every = np.concatenate(values) if values else np.array([])
    if not np.isfinite(every).any():
        raise _NothingToPlot
    positive = every[np.isfinite(every) & (every > 0)]
    log = positive.size >= 2 and positive.max() > 100 * positive.min()
    if log:
        ax.set_yscale("log")

    def drawable(a: np.ndarray) -> np.ndarray:
        return np.isfinite(a) & (a > 0) if log else np.isfinite(a)

    hidden = 0
    for i in range(k):
        color = f"C{i % 10}"
        m, u = means[i], uppers[i]
        members = max(a.size for a in (m, u) if a is not None) if (m is not None or u is not None) else 0
        pos = i - 0.35 + 0.7 * (np.arange(members) + 0.5) / max(members, 1)
        m = np.full(members, np.nan) if m is None or m.size != members else m
        u = np.full(members, np.nan) if u is None or u.size != members else u
        hidden += int((np.isfinite(m) & ~drawable(m)).sum() + (np.isfinite(u) & ~drawable(u)).sum())
        both = drawable(m) & drawable(u)
        ax.vlines(pos[both], m[both], u[both], color=color, lw=1.2)
        only_u = drawable(u) & ~drawable(m)
        ax.plot(pos[only_u], u[only_u], "_", color=color, ms=8)
        ax.plot(pos[drawable(m)], m[drawable(m)], "o", color=color, ms=4)
        if drawable(bounds[i:i + 1])[0]:
            ax.hlines(bounds[i], i - 0.45, i + 0.45, color="C3", lw=2)
        elif np.isfinite(bounds[i]):
            hidden += 1
    ax.plot([], [], "o", color="0.3", ms=4, label="member's mean")
    ax.vlines([], [], [], color="0.3", lw=1.2, label="up to its upper confidence bound")
    ax.hlines([], [], [], color="C3", lw=2, label="the bound the algorithm is held to")
    if hidden:
        _note(ax, f"{hidden} value(s) <= 0 not drawn (log axis)")
    ax.set_xticks(range(k), [_tick_label(a, k) for a in labels], fontsize=7 if k <= 4 else 6,
                  rotation=0 if k <= 4 else 25, ha="center" if k <= 4 else "right",
                  rotation_mode="default" if k <= 4 else "anchor")
    ax.set_xlim(-0.6, k - 0.4)
    if not log and np.nanmin(np.where(np.isfinite(every), every, np.nan)) >= 0:
        ax.autoscale_view()
        ax.set_ylim(0, ax.get_ylim()[1])
    quantity = str(data.get("quantity") or "value")
    ax.set_ylabel({"regret": "regret at the horizon", "error": "error probability"}.get(quantity, quantity))
    ax.set_xlabel("algorithm (one marker per member of the hard instance)")
    _title(ax, title)
    _legend_outside(ax)


def _label_pairs(value: Any) -> list[tuple[str, str]]:
    pairs = []
    for pair in value if isinstance(value, (list, tuple, np.ndarray)) else []:
        try:
            a, b = pair
        except (TypeError, ValueError):
            continue
        pairs.append((str(a), str(b)))
    return pairs


def _regret_order(ax, data: dict[str, Any], title: str) -> None:
    grid = _floats(data.get("grid"))
    labels = data.get("labels")
    if grid is None or grid.size == 0 or labels is None or isinstance(labels, (str, bytes)) or len(labels) == 0:
        raise _NothingToPlot
    labels = [str(a) for a in labels]
    n = grid.size
    means = [None if r is None or r.size != n else r for r in _rows(data.get("mean"), len(labels))]
    lowers = [None if r is None or r.size != n else r for r in _rows(data.get("lower"), len(labels))]
    uppers = [None if r is None or r.size != n else r for r in _rows(data.get("upper"), len(labels))]
    if all(m is None or not np.isfinite(m).any() for m in means):
        raise _NothingToPlot
    rank: dict[str, int] = {}
    groups = data.get("groups")
    for g, group in enumerate(groups if isinstance(groups, (list, tuple)) else []):
        for label in [group] if isinstance(group, str) else group if isinstance(group, (list, tuple)) else []:
            rank.setdefault(str(label), g + 1)
    violations = _label_pairs(data.get("violations"))
    violating = {x for pair in violations for x in pair}
    keep = _log_x(ax, grid)
    t = grid[keep]
    style = {"marker": "o", "ms": 3} if t.size <= 30 else {}
    order = sorted(range(len(labels)), key=lambda i: (rank.get(labels[i], len(rank) + 1), i))
    bold: set[str] = set()
    nonfinite = 0
    for i in order:
        color, dashes = f"C{i % 10}", ("-", "--", ":", "-.")[(i // 10) % 4]
        label = labels[i]
        text = f"{rank[label]}. " if label in rank else "(unranked) "
        text += _short(label, 36) + (" !" if label in violating else "")
        m = means[i]
        if m is None:
            text += " (no data)"
        if label in violating:
            bold.add(text)
        if m is None:
            ax.plot([], [], color=color, ls=dashes, label=text)
            continue
        lo, hi = (None if a is None else a[keep] for a in (lowers[i], uppers[i]))
        nonfinite += _count_nonfinite(m[keep], lo, hi)
        ax.plot(t, _finite(m[keep]), color=color, ls=dashes, label=text, **style)
        if lo is not None and hi is not None:
            if t.size == 1:
                ax.vlines(t, _finite(lo), _finite(hi), color=color, alpha=0.2, lw=6)
            else:
                ax.fill_between(t, _finite(lo), _finite(hi), color=color, alpha=0.2, lw=0)
    _nonfinite_note(ax, nonfinite, "the curves")
    at = data.get("at")
    _note(ax, {"final": "order claimed at the final round", "grid": "order claimed at every grid round"}.get(
        at, "order as claimed") + " (1. = lowest regret)")
    if violations:
        _note(ax, "! in a violation (claimed a <= b, found a > b):")
        for a, b in violations[:4]:
            _note(ax, f"   {_short(a, 28)} > {_short(b, 28)}")
        if len(violations) > 4:
            _note(ax, f"   and {len(violations) - 4} more")
    ax.set_xlabel("rounds T")
    ax.set_ylabel("mean regret (band: pointwise confidence)")
    _title(ax, title)
    _legend_outside(ax, bold)


# -- tail evidence --------------------------------------------------------------------------------


def _positive(a: np.ndarray | None) -> np.ndarray | None:
    """``a`` with what a log axis cannot show (0 from underflow or beyond the support, negatives,
    non-finite values) as NaN."""
    return None if a is None else np.where(np.isfinite(a) & (a > 0), a, np.nan)


def _notes(ax, data: dict[str, Any]) -> None:
    notes = data.get("notes")
    for note in notes if isinstance(notes, (list, tuple)) else []:
        _note(ax, _short(note, 70))


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
}

#: kinds whose legend sits outside the axes, on a wider figure
_WIDE_KINDS = {"regret-bound", "regret-rate", "lower-bound", "regret-order", "tail", "tail-cgf"}


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
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return _palette_png(buf.getvalue())


#: colours kept in a plot's palette: line plots on white use a few dozen, so 64 loses nothing visible
PALETTE_COLOURS = 64


def _palette_png(png: bytes) -> bytes:
    """``png`` as an 8-bit palette image, a quarter of matplotlib's RGBA size: a five-paper report
    carries a few hundred plots. Deterministic (median cut, no dithering)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    palette = image.quantize(colors=PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    palette.save(buf, format="PNG", optimize=True)
    return buf.getvalue()
