"""The papers' experiments as presets: :func:`run_preset` (``dpaudit simulate``) simulates a figure.

Running (:func:`run_preset`): one task per (configuration, curve), identical tasks (the same
environment, horizon, runs, seed, algorithm and arguments, e.g. a configuration two figures share)
run once; tasks run in parallel processes (joblib), each calling :func:`dpaudit.simulate` with one
worker, so results do not depend on the number of workers. Each finished task is written at once to
``OUT/<paper>/<figure>/<configuration>/<curve>.npz`` (:meth:`SimulationResult.save`; the figure's directory is
``<figure>-released-code`` under the released code's constants, :func:`figure_dir`); once a
configuration's curves are all in, its plot, table and summary follow
(:mod:`dpaudit.bandits.experiments.reports`), and the figure's own files at the end.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ...core.durations import timing
from ...core.errors import UsageError
from ...core.validation import integer
from ..simulation import SimulationResult, simulate
from .presets import (
    DEFAULT_OUT,
    THEOREM,
    Configuration,
    Curve,
    Preset,
    Selection,
    algorithm_registry,
    load_presets,
    power_text,
    select_presets,
)


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
               presets: Mapping[str, Preset] | None = None, stream: TextIO | None = None,
               data: str | Path | None = None, constants: str = THEOREM) -> PresetRun:
    """Simulate a preset (module docstring) and write its results, plots, tables and summaries to ``out``.

    ``name`` is what :func:`select_presets` reads (``"dist-mab/fig1"``, ``"dist-mab/fig1@gap0.1,eps0.5"``,
    a paper key) or a :class:`Preset`. ``runs``, ``horizon`` and ``seed`` replace every selected
    configuration's (a horizon-dependent argument such as beta = 1/T follows the new horizon);
    ``workers`` processes run the simulations; ``progress`` shows a bar on ``stream`` (default stderr)
    on a terminal and one line per simulation otherwise. ``data`` is a data file for presets that use a
    real data set (their ``with_data``; e.g. MSLR-WEB10K for dist-mab's fig1-mslr and fig5): every
    selected preset must take one (:func:`with_data`). ``constants`` is the constant set
    (:data:`~dpaudit.bandits.experiments.presets.CONSTANTS`): ``"theorem"``, the papers' as printed, or
    ``"released-code"``, the authors' released code's (every selected preset must have them,
    :meth:`Preset.with_constants`); every record, table and summary names it.
    """
    from .reports import write_configuration, write_figure

    stream = stream or sys.stderr
    selections = [(p, tuple(_override(c, runs, horizon, seed) for c in configs))
                  for p, configs in with_data(with_constants(select_presets(name, presets), constants), data)]
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
        paths += write_figure(figure_dir(out, preset), preset, configs, results)
    return PresetRun(out, selections, results, paths, stand_ins, time.perf_counter() - start, len(tasks))


def with_data(selections: list[Selection], data: str | Path | None) -> list[Selection]:
    """The selections rebuilt on the data file ``data`` (each preset's ``with_data``, the same configurations by
    key); unchanged when ``data`` is None. A preset that takes no data file is a usage error."""
    if data is None:
        return selections
    refusing = [p.name for p, _ in selections if p.with_data is None]
    if refusing:
        takers = ", ".join(p.name for p in load_presets().values() if p.with_data is not None) or "none"
        raise UsageError(f"--data: {', '.join(refusing)} take(s) no data file (presets that do: {takers})")
    return _rebuilt(selections, lambda preset: preset.with_data(Path(data)))


def with_constants(selections: list[Selection], constants: str) -> list[Selection]:
    """The selections with the constant set ``constants`` (each preset's :meth:`Preset.with_constants`, the
    same configurations by key)."""
    return _rebuilt(selections, lambda preset: preset.with_constants(constants))


def _rebuilt(selections: list[Selection], rebuild: Callable[[Preset], Preset]) -> list[Selection]:
    """Each selected preset rebuilt by ``rebuild``, with the configurations that were selected (by key)."""
    out = []
    for preset, configs in selections:
        variant = rebuild(preset)
        keys = {c.key for c in configs}
        out.append((variant, tuple(c for c in variant.configurations if c.key in keys)))
    return out


def figure_dir(out: Path, preset: Preset) -> Path:
    """``OUT/<paper>/<figure>``, or ``OUT/<paper>/<figure>-<constants>`` for a constant set other than the
    theorem's, so that the two sets' results never overwrite each other."""
    suffix = "" if preset.constants == THEOREM else f"-{preset.constants}"
    return Path(out) / preset.paper / f"{preset.figure}{suffix}"


def configuration_dir(out: Path, preset: Preset, config: Configuration) -> Path:
    return figure_dir(out, preset) / config.key


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
    data = f"; {preset.data}" if preset.data else ""
    return (f"preset {preset.name}@{config.key}, curve {curve.label!r}: {curve.describe(config.horizon)}{data}; "
            f"{preset.constants_line}")


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
        self.start = time.monotonic()
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
        line = (f"[{self.count}/{self.total}] {preset.shown_name}@{config.key} {curve.label}{also}: "
                f"T = {power_text(task.horizon)}, {task.runs} runs, {seconds:.1f} s")
        if self._bar is None:
            print(line + timing(time.monotonic() - self.start, self.count, self.total - self.count), file=self.stream,
                  flush=True)
        else:
            self._bar.set_postfix_str(f"{preset.name}@{config.key} {curve.label}", refresh=False)
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


__all__ = ["PresetRun", "configuration_dir", "default_workers", "figure_dir", "run_preset", "with_constants",
           "with_data"]
