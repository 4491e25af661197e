"""Regret evidence: the regret against its bound or rate, the ordering of several algorithms, and a lower
bound's hard instance."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from ._axes import (
    _count_nonfinite,
    _finite,
    _floats,
    _legend_outside,
    _log_x,
    _nonfinite_note,
    _note,
    _NothingToPlot,
    _rows,
    _scalar,
    _short,
    _title,
)


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
