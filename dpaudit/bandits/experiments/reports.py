"""What :func:`dpaudit.bandits.experiments.run_preset` writes beside the results: per configuration a plot
(``plot.png``), a short table (``table.md``) and ``summary.json``; per figure the same table and
summary over its configurations, and for figures of final regret against a parameter
(``Preset.final_vs``) that plot (``final-vs-<param>.png``, log x axis).

Plots show the mean over runs with a band of +-1 standard error per algorithm: the time-average
pseudo-regret Reg(t)/t (dist-mab plots time-average regret) or the cumulative pseudo-regret Reg(t),
against t on a linear axis; the legend sits outside the axes so it never covers the data. Matplotlib
draws on the Agg canvas, without pyplot's global state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..simulation import SimulationResult
from .presets import Configuration, Preset, power_text

NO_NUMBERS = "The paper prints no regret numbers, only plots: compare shapes and orderings, not values."
CYCLE = ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9")


def colours(preset: Preset) -> dict[str, str]:
    """Each label's colour: the paper's where its plot script fixes one, else the next of matplotlib's cycle."""
    fixed = {c.label: c.colour for config in preset.configurations for c in config.curves if c.colour}
    free = iter(CYCLE)
    return {label: fixed.get(label) or next(free) for label in preset.labels()}


def _metric_label(preset: Preset) -> str:
    return "time-average pseudo-regret Reg(t)/t" if preset.metric == "time-average" else "pseudo-regret Reg(t)"


def _config_title(preset: Preset, config: Configuration) -> str:
    params = ", ".join(f"{n} = {v:g}" for n, v in config.params)
    return f"{preset.paper} {preset.title}: {params}"


def ordering_observation(preset: Preset, config: Configuration, results: dict[str, SimulationResult]
                         ) -> dict[str, Any] | None:
    """The paper's stated ordering of final regrets (``preset.ordering``) checked on one configuration's
    mean final pseudo-regrets: every curve of a group below every curve of the later groups. Each pair
    records whether it holds and whether the gap exceeds two standard errors of the difference (an
    observation, not a test: no confidence level is claimed). None when the preset states no ordering."""
    present = {c.label for c in config.curves}
    groups = [[label for label in group if label in present] for group in preset.ordering]
    groups = [g for g in groups if g]
    if len(groups) < 2:
        return None
    final = {label: (float(results[label].mean()[-1]), float(results[label].stderr()[-1]))
             for group in groups for label in group}
    pairs = []
    for i, lower in enumerate(groups):
        for higher in groups[i + 1:]:
            for a in lower:
                for b in higher:
                    (ma, sa), (mb, sb) = final[a], final[b]
                    pairs.append({"lower": a, "higher": b, "holds": ma < mb,
                                  "separated": mb - ma > 2 * (sa * sa + sb * sb) ** 0.5})
    expected = " < ".join(g[0] if len(g) == 1 else "{" + ", ".join(g) + "}" for g in groups)
    failed = [p for p in pairs if not p["holds"]]
    if failed:
        text = f"{expected} at T: does not hold (" + "; ".join(
            f"{p['lower']} {final[p['lower']][0]:.4g} >= {p['higher']} {final[p['higher']][0]:.4g}"
            for p in failed) + ")"
    else:
        close = [p for p in pairs if not p["separated"]]
        text = f"{expected} at T: holds" + (
            "" if not close else " (within 2 s.e.: " + "; ".join(f"{p['lower']} vs {p['higher']}" for p in close) + ")")
    return {"expected": expected, "holds": not failed, "pairs": pairs, "text": text}


def configuration_summary(preset: Preset, config: Configuration, results: dict[str, SimulationResult]
                          ) -> dict[str, Any]:
    """The JSON summary of one configuration: what was run and the final regret of every curve."""
    curves = []
    means = [results[c.label].means for c in config.curves]
    for curve in config.curves:
        res = results[curve.label]
        pseudo, pseudo_se = float(res.mean()[-1]), float(res.stderr()[-1])
        curves.append({
            "label": curve.label, "algorithm": curve.algorithm, "call": curve.describe(config.horizon),
            "arguments": {k: repr(v) for k, v in curve.arguments(config.horizon).items()},
            "file": f"{curve.slug}.npz", "path": res.path, "seconds": res.seconds,
            "final_pseudo_regret": pseudo, "final_pseudo_regret_se": pseudo_se,
            "final_time_average_pseudo_regret": pseudo / res.horizon,
            "final_regret": float(res.mean("realised")[-1]), "final_regret_se": float(res.stderr("realised")[-1]),
            **({} if curve.paper_value is None else {"paper_final_regret": curve.paper_value,
                                                     "ratio_to_paper": pseudo / curve.paper_value}),
        })
    return {
        "preset": preset.name, "paper": preset.paper, "figure": preset.figure, "title": preset.title,
        "configuration": config.key, "parameters": dict(config.params),
        "environment": getattr(config.environment, "name", repr(config.environment)),
        "arms": int(config.environment.arms), "horizon": config.horizon, "runs": config.runs, "seed": config.seed,
        "metric": preset.metric,
        # every curve drew its instances from the same seed: the engine's instance stream is the policy's
        # (contextual environments record NaN means: their arms change every round, nothing to compare)
        "same_instances": all(np.array_equal(m, means[0], equal_nan=True) for m in means[1:]),
        "observation": preset.observation, "observation_source": preset.source,
        "paper_numbers": preset.paper_numbers or NO_NUMBERS,
        "stand_in": preset.stand_in, "data": preset.data, "constants": preset.constants,
        "constants_source": preset.constants_source, "notes": list(preset.notes), "curves": curves,
        "ordering": ordering_observation(preset, config, results),
    }


def _table(summary: dict[str, Any], heading: str) -> str:
    papers = any("paper_final_regret" in c for c in summary["curves"])  # the paper prints numbers: show them
    params = ", ".join(f"{n} = {v:g}" for n, v in summary["parameters"].items())
    lines = [f"{heading} {params}", "",
             f"{summary['environment']}; T = {power_text(summary['horizon'])}; {summary['runs']} runs; seed "
             f"{summary['seed']} (every algorithm on the same seed: the same instances"
             f"{', checked' if summary['same_instances'] else ', NOT the same: check the environment'}).", "",
             "| algorithm | call | final pseudo-regret (mean ± s.e.) | Reg(T)/T | final realised regret | engine path "
             "| s |" + (" paper | ours / paper |" if papers else ""),
             "|---|---|---:|---:|---:|---|---:|" + ("---:|---:|" if papers else "")]
    for c in summary["curves"]:
        row = (f"| {c['label']} | `{c['call']}` | {c['final_pseudo_regret']:.4g} ± "
               f"{c['final_pseudo_regret_se']:.2g} | {c['final_time_average_pseudo_regret']:.3g} | "
               f"{c['final_regret']:.4g} ± {c['final_regret_se']:.2g} | {c['path']} | {c['seconds']:.1f} |")
        if papers:
            row += (f" {c['paper_final_regret']:.6g} | {c['ratio_to_paper']:.3g} |" if "paper_final_regret" in c
                    else " – | – |")
        lines.append(row)
    if summary.get("ordering"):
        lines += ["", f"Observed ordering of the final pseudo-regrets (the paper's): {summary['ordering']['text']}."]
    return "\n".join(lines)


def _preamble(preset: Preset) -> list[str]:
    lines = [f"Paper's reported observation ({preset.source}): \"{preset.observation}\"", "",
             preset.paper_numbers or NO_NUMBERS, "", preset.constants_line]
    if preset.data:
        lines += ["", preset.data]
    if preset.stand_in:
        lines += ["", f"**Stand-in data.** {preset.stand_in}"]
    if preset.notes:
        lines += ["", "Choices where the paper is silent:", ""] + [f"- {note}" for note in preset.notes]
    return lines


def write_configuration(directory: Path, preset: Preset, config: Configuration,
                        results: dict[str, SimulationResult]) -> list[Path]:
    """``plot.png``, ``table.md`` and ``summary.json`` of one configuration, in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    summary = configuration_summary(preset, config, results)
    plot = directory / "plot.png"
    _plot_configuration(plot, preset, config, results)
    table = directory / "table.md"
    table.write_text("\n".join([f"# {preset.paper} {preset.title}", "",
                                _table(summary, "##"), "", *_preamble(preset), ""]))
    path = directory / "summary.json"
    path.write_text(json.dumps(summary, indent=1))
    return [plot, table, path]


def write_figure(directory: Path, preset: Preset, configs: tuple[Configuration, ...],
                 results: dict[tuple[str, str, str], SimulationResult]) -> list[Path]:
    """The figure's ``table.md`` and ``summary.json`` over the configurations run, and its plot of the
    final regret against ``preset.final_vs`` when there are at least two values."""
    directory.mkdir(parents=True, exist_ok=True)
    done = [c for c in configs if all((preset.name, c.key, k.label) in results for k in c.curves)]
    summaries = [configuration_summary(preset, c, {k.label: results[(preset.name, c.key, k.label)]
                                                   for k in c.curves}) for c in done]
    written = []
    if preset.final_vs and len({c.value(preset.final_vs) for c in done}) >= 2:
        plot = directory / f"final-vs-{preset.final_vs}.png"
        _plot_final(plot, preset, summaries)
        written.append(plot)
    table = directory / "table.md"
    table.write_text("\n".join([f"# {preset.paper} {preset.title}", "", *_preamble(preset), "",
                                *(_table(s, "##") + "\n" for s in summaries)]))
    path = directory / "summary.json"
    path.write_text(json.dumps({"preset": preset.name, "title": preset.title, "scale": preset.scale(),
                                "constants": preset.constants, "constants_source": preset.constants_source,
                                "configurations": summaries}, indent=1))
    return [*written, table, path]


# -- plots ------------------------------------------------------------------------------------------------


def _figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.2, 4.0), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _legend(ax) -> None:
    # outside the axes, to their right: a legend there can never cover a curve
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)


def _plot_configuration(path: Path, preset: Preset, config: Configuration,
                        results: dict[str, SimulationResult]) -> None:
    fig, ax = _figure()
    palette = colours(preset)
    for curve in config.curves:
        res = results[curve.label]
        t = res.grid.astype(float)
        scale = t if preset.metric == "time-average" else np.ones_like(t)
        mean, se = res.mean() / scale, res.stderr() / scale
        colour = palette[curve.label]
        ax.plot(t, mean, color=colour, lw=1.4, label=curve.label)
        ax.fill_between(t, mean - se, mean + se, color=colour, alpha=0.2, lw=0)
    ax.set_xlabel("round t")
    ax.set_ylabel(_metric_label(preset))
    ax.set_xlim(1, config.horizon)
    if config.ylim is not None:
        ax.set_ylim(*config.ylim)
    ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    ax.set_title(_config_title(preset, config) + f"\nmean of {config.runs} runs ± 1 s.e.", fontsize=9)
    _legend(ax)
    fig.savefig(path)


def _plot_final(path: Path, preset: Preset, summaries: list[dict[str, Any]]) -> None:
    fig, ax = _figure()
    palette = colours(preset)
    name = preset.final_vs
    # one line per algorithm and per value of the grid's other parameters (a line style each)
    others = sorted({tuple((n, v) for n, v in s["parameters"].items() if n != name) for s in summaries})
    styles = ("-", "--", ":", "-.")
    for label in preset.labels():
        for index, rest in enumerate(others):
            points = sorted((s["parameters"][name], c["final_pseudo_regret"], c["final_pseudo_regret_se"])
                            for s in summaries for c in s["curves"] if c["label"] == label
                            and all(s["parameters"][n] == v for n, v in rest))
            if not points:
                continue
            x, y, se = (np.array(v) for v in zip(*points))
            text = label + (" (" + ", ".join(f"{n} {v:g}" for n, v in rest) + ")" if rest else "")
            ax.errorbar(x, y, yerr=se, color=palette[label], ls=styles[index % len(styles)], marker="o", ms=4,
                        lw=1.4, capsize=3, label=text)
    ax.set_xscale("log")
    ax.set_xlabel(name)
    ax.set_ylabel("final pseudo-regret Reg(T)")
    horizons = sorted({s["horizon"] for s in summaries})
    runs = sorted({s["runs"] for s in summaries})
    ax.set_title(f"{preset.paper} {preset.title}\nfinal regret at T = {', '.join(map(power_text, horizons))}, "
                 f"mean of {', '.join(map(str, runs))} runs ± 1 s.e.", fontsize=9)
    _legend(ax)
    fig.savefig(path)


__all__ = ["configuration_summary", "write_configuration", "write_figure"]
