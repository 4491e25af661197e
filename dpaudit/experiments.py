"""The papers' experiments as presets: :func:`run_preset` (``dpaudit simulate``) simulates a figure.

A :class:`Preset` is one figure of a paper: its paper key and figure id, what the paper says the
figure shows (quoted from the spec's reported observations), and a grid of :class:`Configuration`
(e.g. gap x eps). A configuration fixes the environment, the horizon, the number of runs, the seed
and the curves; a :class:`Curve` names an algorithm by its registry name
(:data:`dpaudit.algorithms.ALGORITHMS`) with keyword arguments, looked up when the preset runs, so
presets are plain data. Every curve of a configuration is simulated with the configuration's seed:
the engine draws the instances and the rewards from streams the policy never touches, so the
algorithms of one configuration face the same instances (common random numbers).

The presets live in ``dpaudit.audits.experiments`` (one module per paper, collected into its
``PRESETS``) and are reached through discovery (:func:`load_presets`), as suites are.

Running (:func:`run_preset`): one task per (configuration, curve), identical tasks (the same
environment, horizon, runs, seed, algorithm and arguments, e.g. a configuration two figures share)
run once; tasks run in parallel processes (joblib), each calling :func:`dpaudit.simulate` with one
worker, so results do not depend on the number of workers. Each finished task is written at once to
``OUT/<paper>/<figure>/<configuration>/<curve>.npz`` (:meth:`SimulationResult.save`); once a
configuration's curves are all in, its plot, table and summary follow
(:mod:`dpaudit.experiment_reports`), and the figure's own files at the end.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import math
import os
import pickle
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .claim_ids import PAPERS
from .errors import UsageError
from .simulation import SimulationResult, regret_grid, simulate
from .validation import integer

#: the package whose ``PRESETS`` mapping holds the built-in presets (found by discovery, as suites are)
PRESETS_MODULE = "dpaudit.audits.experiments"  # its last part is suite.PRESETS_PACKAGE
METRICS = ("time-average", "cumulative")
#: evenly spaced rounds recorded besides the log-spaced ones, so that plots on a linear time axis are smooth
LINEAR_POINTS = 50
DEFAULT_OUT = Path("dpaudit-simulations")


@dataclass(frozen=True)
class PerHorizon:
    """A keyword argument that depends on the horizon T (e.g. DP-SE's beta = 1/T), so that it follows
    a ``--horizon`` override: ``text`` says what it is ("1/T"), ``value(T)`` computes it."""

    text: str
    value: Callable[[int], Any]

    def __repr__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Curve:
    """One algorithm of a configuration: its legend ``label``, its registry name ``algorithm`` and
    keyword arguments (values may be :class:`PerHorizon`), a ``colour`` where the paper's plot
    script fixes one, and ``paper_value``, the final regret the paper prints for it, where it prints one
    (a table of numbers; reports then show it beside ours with the ratio)."""

    label: str
    algorithm: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    colour: str | None = None
    paper_value: float | None = None

    def arguments(self, horizon: int) -> dict[str, Any]:
        """The keyword arguments at this horizon."""
        return {k: v.value(horizon) if isinstance(v, PerHorizon) else v for k, v in self.kwargs.items()}

    def describe(self, horizon: int) -> str:
        """``name(k=v, ...)``, a horizon-dependent argument shown as its rule and value."""
        parts = []
        for k, v in self.kwargs.items():
            parts.append(f"{k}={v.text}={v.value(horizon):g}" if isinstance(v, PerHorizon) else f"{k}={v!r}")
        return f"{self.algorithm}({', '.join(parts)})"

    @property
    def slug(self) -> str:
        """A file name for the curve's results: the label in lower case, runs of other characters as '-'."""
        return re.sub(r"[^a-z0-9.]+", "-", self.label.casefold()).strip("-")


def _format_value(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class Configuration:
    """One point of a preset's grid: ``params`` (name, value) in the grid's order, the environment,
    the horizon, the runs, the seed shared by every curve, the curves, and an optional y range of
    the plot (``ylim``, where the paper fixes one)."""

    params: tuple[tuple[str, float], ...]
    environment: Any
    horizon: int
    runs: int
    curves: tuple[Curve, ...]
    seed: int = 0
    ylim: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        owner = "Configuration"
        integer(owner, "horizon", self.horizon, 1)
        integer(owner, "runs", self.runs, 1)
        integer(owner, "seed", self.seed, 0)
        if not self.curves:
            raise ValueError(f"{owner} {self.key}: no curves")
        labels = [c.label for c in self.curves]
        slugs = [c.slug for c in self.curves]
        if len(set(labels)) != len(labels) or len(set(slugs)) != len(slugs):
            raise ValueError(f"{owner} {self.key}: curve labels (and their file names) must differ, got {labels}")

    @property
    def key(self) -> str:
        """``gap0.1,eps0.5``: how the configuration is named on the command line and on disk."""
        return ",".join(f"{name}{_format_value(value)}" for name, value in self.params)

    def value(self, name: str) -> float:
        return dict(self.params)[name]

    def grid(self) -> np.ndarray:
        """The rounds recorded: log-spaced (:func:`dpaudit.simulation.regret_grid`) and evenly spaced."""
        linear = np.round(np.linspace(self.horizon / LINEAR_POINTS, self.horizon, LINEAR_POINTS)).astype(np.int64)
        return np.union1d(regret_grid(self.horizon), linear[linear >= 1])


@dataclass(frozen=True)
class Preset:
    """One figure of a paper (module docstring).

    ``observation`` is the paper's statement of what the figure shows, quoted from the spec's reported
    observations, and ``source`` where it is from; ``metric`` is what the per-configuration plots show
    ("time-average": Reg(t)/t, "cumulative": Reg(t)); ``final_vs`` names a grid parameter for figures
    that plot the final regret against it (log axis); ``notes`` state the choices made where the paper
    is silent; ``stand_in`` says what replaces data the paper used and we cannot fetch; ``ordering``
    is the paper's stated ordering of the final regrets, groups of curve labels from lowest to highest
    (labels within a group are not ordered among themselves), which every configuration's summary
    checks as an observation (:func:`~dpaudit.experiment_reports.ordering_observation`);
    ``paper_numbers`` says where the curves' ``paper_value`` numbers are printed (None: only plots).
    """

    paper: str
    figure: str
    title: str
    observation: str
    source: str
    grid: tuple[str, ...]
    configurations: tuple[Configuration, ...]
    metric: str = "cumulative"
    final_vs: str | None = None
    notes: tuple[str, ...] = ()
    stand_in: str | None = None
    ordering: tuple[tuple[str, ...], ...] = ()
    paper_numbers: str | None = None

    def __post_init__(self) -> None:
        owner = f"Preset {self.paper}/{self.figure}"
        unknown = sorted({label for group in self.ordering for label in group} - set(self.labels()))
        if unknown:
            raise ValueError(f"{owner}: the ordering names labels no configuration has: {unknown}")
        if self.paper not in PAPERS:
            raise ValueError(f"{owner}: unknown paper key {self.paper!r} (known: {', '.join(PAPERS)})")
        if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", self.figure):
            raise ValueError(f"{owner}: figure ids are lower-case letters, digits, '.' and '-', got {self.figure!r}")
        if self.metric not in METRICS:
            raise ValueError(f"{owner}: metric must be one of {', '.join(METRICS)}, got {self.metric!r}")
        if not self.configurations:
            raise ValueError(f"{owner}: no configurations")
        for config in self.configurations:
            if tuple(name for name, _ in config.params) != tuple(self.grid):
                raise ValueError(f"{owner}: configuration {config.key} has parameters "
                                 f"{[n for n, _ in config.params]}, expected the grid's {list(self.grid)}")
        keys = [c.key for c in self.configurations]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{owner}: configuration keys repeat: {keys}")
        if self.final_vs is not None and self.final_vs not in self.grid:
            raise ValueError(f"{owner}: final_vs {self.final_vs!r} is not a grid parameter {list(self.grid)}")

    @property
    def name(self) -> str:
        return f"{self.paper}/{self.figure}"

    def labels(self) -> list[str]:
        """Every curve label, in order of first appearance."""
        return list(dict.fromkeys(c.label for config in self.configurations for c in config.curves))

    def scale(self) -> str:
        """The paper's scale in one line: arms, horizons, runs, tasks."""
        arms = sorted({int(c.environment.arms) for c in self.configurations})
        horizons = sorted({c.horizon for c in self.configurations})
        runs = sorted({c.runs for c in self.configurations})
        tasks = sum(len(c.curves) for c in self.configurations)
        configs = len(self.configurations)
        return (f"K = {', '.join(map(str, arms))}; T = {', '.join(map(power_text, horizons))}; "
                f"{', '.join(map(str, runs))} runs; {configs} configuration{'s' * (configs > 1)}, {tasks} simulations")

    def select(self, spec: str) -> tuple[Configuration, ...]:
        """The configurations matching ``spec``: ``gap0.1,eps0.5`` (also ``gap=0.1``), names from the
        grid, values compared numerically; parameters left out match any value."""
        wanted: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            match = re.fullmatch(r"([A-Za-z_][A-Za-z_]*?)\s*=?\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", part)
            if not match:
                raise UsageError(f"{self.name}: cannot read {part!r} in {spec!r}; write NAMEVALUE pairs such as "
                                 f"{self.configurations[0].key}")
            name, value = match.group(1), float(match.group(2))
            if name not in self.grid:
                raise UsageError(f"{self.name} has no parameter {name!r}; its grid is {', '.join(self.grid)} "
                                 f"(configurations: {', '.join(c.key for c in self.configurations)})")
            wanted[name] = value
        if not wanted:
            raise UsageError(f"{self.name}@: name a configuration, e.g. {self.name}@{self.configurations[0].key}")
        chosen = tuple(c for c in self.configurations
                       if all(math.isclose(c.value(n), v, rel_tol=1e-9, abs_tol=1e-12) for n, v in wanted.items()))
        if not chosen:
            raise UsageError(f"{self.name} has no configuration {spec}; configurations: "
                             f"{', '.join(c.key for c in self.configurations)}")
        return chosen


def power_text(n: int) -> str:
    """10^7, 2^22, or the number with thousands separators."""
    for base in (10, 2):
        exponent = round(math.log(n, base)) if n > 1 else 0
        if exponent >= 3 and base**exponent == n:
            return f"{base}^{exponent}"
    return f"{n:,}"


# -- discovery and selection ----------------------------------------------------------------------------


def load_presets() -> dict[str, Preset]:
    """Every built-in preset by name (``paper/figure``), from :data:`PRESETS_MODULE`."""
    module = importlib.import_module(PRESETS_MODULE)
    presets = dict(module.PRESETS)
    for name, preset in presets.items():
        if not isinstance(preset, Preset) or preset.name != name:
            raise TypeError(f"{PRESETS_MODULE}.PRESETS[{name!r}] must be the Preset named {name!r}")
    return presets


def load_studies() -> dict[str, Callable[..., list[Path]]]:
    """The built-in experiments that are not bandit simulations (e.g. a mechanism's error against n), by
    name: ``runner(out, runs=, horizon=, seed=)`` writes its files under ``out`` and returns their paths;
    ``dpaudit simulate NAME`` runs them (``--runs``, ``--horizon`` and ``--seed`` passed on, None when unset)."""
    return dict(getattr(importlib.import_module(PRESETS_MODULE), "STUDIES", {}))


Selection = tuple[Preset, tuple[Configuration, ...]]


def select_presets(spec: str | Preset, presets: Mapping[str, Preset] | None = None) -> list[Selection]:
    """What ``spec`` names: ``paper/figure`` (every configuration), ``paper/figure@gap0.1,eps0.5`` (the
    matching configurations), ``paper`` (every figure of the paper) or a :class:`Preset`. An unknown
    name raises a :class:`~dpaudit.errors.UsageError` naming what exists."""
    if isinstance(spec, Preset):
        return [(spec, spec.configurations)]
    presets = load_presets() if presets is None else presets
    name, at, configs = str(spec).strip().partition("@")
    key = name.strip().casefold().rstrip("/")
    papers = sorted({p.paper for p in presets.values()})
    if key in papers and not at:
        return [(p, p.configurations) for p in presets.values() if p.paper == key]
    preset = next((p for n, p in presets.items() if n.casefold() == key), None)
    if preset is None:
        raise UsageError(f"no preset {name!r}; presets: {preset_names(presets)} (or a paper key alone)")
    return [(preset, preset.select(configs) if at else preset.configurations)]


def preset_names(presets: Mapping[str, Preset]) -> str:
    """``dist-mab/{fig1, fig2}; private-online/{fig1}``: every preset name, by paper, in one line."""
    papers: dict[str, list[str]] = {}
    for preset in presets.values():
        papers.setdefault(preset.paper, []).append(preset.figure)
    return "; ".join(f"{paper}/{{{', '.join(figures)}}}" for paper, figures in papers.items())


def algorithm_registry() -> Mapping[str, Callable[..., Any]]:
    """The algorithm registry the presets name their algorithms from."""
    from dpaudit.algorithms.registry import ALGORITHMS

    return ALGORITHMS


# -- running ----------------------------------------------------------------------------------------------


@dataclass
class _Task:
    """One simulation; ``destinations`` are the (preset, configuration, curve) it is written for."""

    policy: Any
    environment: Any
    horizon: int
    runs: int
    seed: int
    grid: np.ndarray
    destinations: list[tuple[Preset, Configuration, Curve]] = field(default_factory=list)


@dataclass
class PresetRun:
    """What :func:`run_preset` did: the results by (preset name, configuration key, curve label), the
    files written, the stand-in notices, and the wall time."""

    out: Path
    selections: list[Selection]
    results: dict[tuple[str, str, str], SimulationResult]
    paths: list[Path]
    stand_ins: list[str]
    seconds: float
    simulations: int


def run_preset(name: str | Preset, runs: int | None = None, horizon: int | None = None, out: Any = DEFAULT_OUT,
               workers: int = 1, progress: bool = True, seed: int | None = None, *,
               presets: Mapping[str, Preset] | None = None, stream: TextIO | None = None) -> PresetRun:
    """Simulate a preset (module docstring) and write its results, plots, tables and summaries to ``out``.

    ``name`` is what :func:`select_presets` reads (``"dist-mab/fig1"``, ``"dist-mab/fig1@gap0.1,eps0.5"``,
    a paper key) or a :class:`Preset`. ``runs``, ``horizon`` and ``seed`` replace every selected
    configuration's (a horizon-dependent argument such as beta = 1/T follows the new horizon);
    ``workers`` processes run the simulations; ``progress`` shows a bar on ``stream`` (default stderr)
    on a terminal and one line per simulation otherwise.
    """
    from .experiment_reports import write_configuration, write_figure

    stream = stream or sys.stderr
    selections = [(p, tuple(_override(c, runs, horizon, seed) for c in configs))
                  for p, configs in select_presets(name, presets)]
    workers = integer("run_preset", "workers", workers, 1)
    tasks = _tasks(selections)
    out = Path(out)
    stand_ins = [f"{p.name}: {p.stand_in}" for p, _ in selections if p.stand_in]
    bar = _Progress(len(tasks), stream, progress)
    for notice in stand_ins:
        bar.message(f"note: {notice}")
    results: dict[tuple[str, str, str], SimulationResult] = {}
    paths: list[Path] = []
    pending = {(p.name, c.key): len(c.curves) for p, configs in selections for c in configs}
    start = time.perf_counter()
    try:
        for index, result in _execute(tasks, workers):
            task = tasks[index]
            for preset, config, curve in task.destinations:
                labelled = dataclasses.replace(result, notes=[*result.notes, _provenance(preset, config, curve)])
                results[(preset.name, config.key, curve.label)] = labelled
                path = configuration_dir(out, preset, config) / f"{curve.slug}.npz"
                path.parent.mkdir(parents=True, exist_ok=True)
                labelled.save(path)
                paths.append(path)
                pending[(preset.name, config.key)] -= 1
                if pending[(preset.name, config.key)] == 0:
                    done = {c.label: results[(preset.name, config.key, c.label)] for c in config.curves}
                    paths += write_configuration(configuration_dir(out, preset, config), preset, config, done)
            bar.done(task, result.seconds)
    finally:
        bar.close()
    for preset, configs in selections:
        paths += write_figure(out / preset.paper / preset.figure, preset, configs, results)
    return PresetRun(out, selections, results, paths, stand_ins, time.perf_counter() - start, len(tasks))


def configuration_dir(out: Path, preset: Preset, config: Configuration) -> Path:
    return Path(out) / preset.paper / preset.figure / config.key


def _override(config: Configuration, runs: int | None, horizon: int | None, seed: int | None) -> Configuration:
    changes: dict[str, Any] = {}
    if runs is not None:
        changes["runs"] = integer("run_preset", "runs", runs, 1)
    if horizon is not None:
        changes["horizon"] = integer("run_preset", "horizon", horizon, 1)
    if seed is not None:
        changes["seed"] = integer("run_preset", "seed", seed, 0)
    return dataclasses.replace(config, **changes) if changes else config


def _provenance(preset: Preset, config: Configuration, curve: Curve) -> str:
    return f"preset {preset.name}@{config.key}, curve {curve.label!r}: {curve.describe(config.horizon)}"


def _tasks(selections: list[Selection]) -> list[_Task]:
    """One task per distinct simulation, its policy built from the registry here (a missing algorithm
    or a bad argument is reported before anything runs)."""
    registry = algorithm_registry()
    missing = sorted({c.algorithm for p, configs in selections for config in configs for c in config.curves
                      if c.algorithm not in registry})
    if missing:
        known = ", ".join(registry) if registry else "none: the registry is empty"
        raise UsageError(f"the presets name algorithms that are not in the registry: {', '.join(missing)} "
                         f"(registered: {known})")
    tasks: dict[str, _Task] = {}
    for preset, configs in selections:
        for config in configs:
            for curve in config.curves:
                kwargs = curve.arguments(config.horizon)
                # the environment by its pickled state: two equal environments give one simulation
                environment = hashlib.sha256(pickle.dumps(config.environment)).hexdigest()
                key = json.dumps([environment, config.horizon, config.runs, config.seed, curve.algorithm,
                                  sorted((k, repr(v)) for k, v in kwargs.items())])
                if key not in tasks:
                    try:
                        policy = registry[curve.algorithm](**kwargs)
                    except (TypeError, ValueError) as exc:
                        raise UsageError(f"{preset.name}@{config.key}, {curve.label}: "
                                         f"{curve.describe(config.horizon)} failed: {exc}") from exc
                    tasks[key] = _Task(policy, config.environment, config.horizon, config.runs, config.seed,
                                       config.grid())
                tasks[key].destinations.append((preset, config, curve))
    # longest first, so that parallel workers finish together; the order never changes a result
    return sorted(tasks.values(), key=lambda t: -t.horizon * t.runs)


def _simulate_task(policy: Any, environment: Any, horizon: int, runs: int, seed: int, grid: np.ndarray
                   ) -> SimulationResult:
    return simulate(policy, environment, horizon, runs, seed, grid=grid, workers=1)


def _execute(tasks: list[_Task], workers: int) -> Iterable[tuple[int, SimulationResult]]:
    """``(index, result)`` of every task as it finishes, in parallel processes when ``workers`` > 1."""
    calls = [(t.policy, t.environment, t.horizon, t.runs, t.seed, t.grid) for t in tasks]
    if workers == 1 or len(tasks) <= 1:
        for index, call in enumerate(calls):
            yield index, _simulate_task(*call)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=min(workers, len(tasks)), return_as="generator_unordered")
    yield from parallel(delayed(_indexed_task)(i, call) for i, call in enumerate(calls))


def _indexed_task(index: int, call: tuple) -> tuple[int, SimulationResult]:
    return index, _simulate_task(*call)


class _Progress:
    """A bar over simulations on a terminal (or when asked), one line per simulation otherwise."""

    def __init__(self, total: int, stream: TextIO, progress: bool):
        self.stream, self.total, self.count = stream, total, 0
        self.quiet = not progress
        self._bar = None
        if progress and getattr(stream, "isatty", lambda: False)():
            from tqdm import tqdm

            self._bar = tqdm(total=total, file=stream, unit="simulation")

    def message(self, text: str) -> None:
        if self._bar is not None:
            self._bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def done(self, task: _Task, seconds: float) -> None:
        self.count += 1
        if self.quiet:
            return
        preset, config, curve = task.destinations[0]
        also = f" (+{len(task.destinations) - 1} more)" if len(task.destinations) > 1 else ""
        line = (f"[{self.count}/{self.total}] {preset.name}@{config.key} {curve.label}{also}: "
                f"T = {power_text(task.horizon)}, {task.runs} runs, {seconds:.1f} s")
        if self._bar is None:
            print(line, file=self.stream, flush=True)
        else:
            self._bar.set_postfix_str(f"{preset.name}@{config.key} {curve.label}", refresh=False)
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


__all__ = ["Configuration", "Curve", "PerHorizon", "Preset", "PresetRun", "load_presets", "load_studies", "power_text",
           "run_preset", "select_presets"]
