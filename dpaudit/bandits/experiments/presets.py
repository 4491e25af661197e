"""A paper's figure as plain data: a :class:`Preset` (paper key, figure id, what the paper says the figure
shows) holds a grid of :class:`Configuration` (environment, horizon, runs, seed, curves); a :class:`Curve`
names an algorithm by its registry name (:data:`dpaudit.algorithms.ALGORITHMS`) with keyword arguments,
looked up when the preset runs.

The presets live in ``dpaudit.audits.experiments`` (one module per paper, collected into its ``PRESETS``)
and are reached through discovery (:func:`load_presets`), as suites are.
"""

from __future__ import annotations

import functools
import importlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...core.claim_ids import PAPERS
from ...core.errors import UsageError
from ...core.names import Registry
from ...core.validation import CONSTANT_SETS, constant_set, integer
from ..simulation import regret_grid

#: the package whose ``PRESETS`` mapping holds the built-in presets (found by discovery, as suites are)
PRESETS_MODULE = "dpaudit.audits.experiments"  # its last part is dpaudit.suite.entries.PRESETS_PACKAGE
METRICS = ("time-average", "cumulative")
#: the constant sets a preset runs with: the paper's as printed (the default), or the authors' released code's
CONSTANTS = CONSTANT_SETS
THEOREM, RELEASED_CODE = CONSTANTS
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
        """The rounds recorded: log-spaced (:func:`dpaudit.bandits.simulation.regret_grid`) and evenly spaced."""
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
    checks as an observation (:func:`~dpaudit.bandits.experiments.reports.ordering_observation`);
    ``paper_numbers`` says where the curves' ``paper_value`` numbers are printed (None: only plots).
    ``data`` is the line every record and report of a preset that uses a data set carries ("data: synthetic
    stand-in (MSLR-WEB10K not given)", "data: MSLR-WEB10K from train.txt (...)"), and ``with_data`` builds
    the same preset on a user's data file (``run_preset(..., data=path)``, ``dpaudit simulate --data PATH``;
    None: the preset takes no data file).

    ``constants`` names the constant set the curves use (:data:`CONSTANTS`): ``"theorem"``, the paper's as
    printed (its theorems' and algorithms' constants, and the values its experiments section states), the
    default; or ``"released-code"``, those of the authors' released code (exploration scales, p, batch
    growth, warm-up, generator), ``constants_source`` saying which code and commit. A theorem preset whose
    paper's authors released code has ``released_code``, which builds the same figure (the same configuration
    keys) with the released code's constants (:meth:`with_constants`; ``run_preset(..., constants=)``,
    ``dpaudit simulate --constants``); None: no released code to take constants from.
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
    data: str | None = None
    with_data: Callable[[Path], Preset] | None = field(default=None, compare=False, repr=False)
    constants: str = THEOREM
    constants_source: str | None = None
    released_code: Callable[[], Preset] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        owner = f"Preset {self.paper}/{self.figure}"
        constant_set(owner, self.constants)
        if self.constants == RELEASED_CODE and not self.constants_source:
            raise ValueError(f"{owner}: released-code constants must say which code they are from (constants_source)")
        if self.constants != THEOREM and self.released_code is not None:
            raise ValueError(f"{owner}: only a theorem preset builds a released-code variant")
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

    @property
    def shown_name(self) -> str:
        """The name with the constant set when it is not the default: ``dist-mab/fig1 (released-code)``."""
        return self.name if self.constants == THEOREM else f"{self.name} ({self.constants})"

    @property
    def constants_line(self) -> str:
        """The line every record and report of the preset carries about its constants."""
        if self.constants == THEOREM:
            return "constants: theorem (the paper's, as printed)"
        return f"constants: released-code ({self.constants_source})"

    def with_constants(self, constants: str) -> Preset:
        """This figure with the constant set ``constants`` (:data:`CONSTANTS`); a
        :class:`~dpaudit.core.errors.UsageError` when the paper's authors released no code to take them from."""
        if constant_set(self.name, constants, error=UsageError) == self.constants:
            return self
        if self.constants != THEOREM:
            raise UsageError(f"{self.shown_name}: take the theorem preset from the registry")
        if self.released_code is None:
            raise UsageError(f"{self.name} has no released-code constants (the paper's authors released no code "
                             "for it, or it is not yet transcribed); run it with constants='theorem'")
        variant = self.released_code()
        if [c.key for c in variant.configurations] != [c.key for c in self.configurations]:
            raise ValueError(f"{self.name}: its released-code variant has other configurations")
        return variant

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


def constant_set_fields(constants: str, source: str, rebuild: Callable[[str], Preset]) -> dict[str, Any]:
    """The :class:`Preset` fields that name a figure's constant set, for a paper module's builder: the released
    code's set gets ``constants_source`` = ``source``; the theorem's gets ``released_code``, which is
    ``rebuild(RELEASED_CODE)`` (the builder called again for the same figure)."""
    if constant_set("constant_set_fields", constants) == THEOREM:
        return {"constants": THEOREM, "released_code": functools.partial(rebuild, RELEASED_CODE)}
    return {"constants": constants, "constants_source": source}


def constants_title(title: str, constants: str) -> str:
    """A figure's title, marked when it runs the released code's constants."""
    return title if constants == THEOREM else f"{title} [released-code constants]"


# -- discovery and selection ----------------------------------------------------------------------------


def load_presets() -> dict[str, Preset]:
    """Every built-in preset by name (``paper/figure``), from :data:`PRESETS_MODULE`."""
    module = importlib.import_module(PRESETS_MODULE)
    presets = Registry("preset", module.PRESETS)
    for name, preset in presets.items():
        if not isinstance(preset, Preset) or preset.name != name:
            raise TypeError(f"{PRESETS_MODULE}.PRESETS[{name!r}] must be the Preset named {name!r}")
    return presets


def load_studies() -> dict[str, Callable[..., list[Path]]]:
    """The built-in experiments that are not bandit simulations (e.g. a mechanism's error against n), by
    name: ``runner(out, runs=, horizon=, seed=)`` writes its files under ``out`` and returns their paths;
    ``dpaudit simulate NAME`` runs them (``--runs``, ``--horizon`` and ``--seed`` passed on, None when unset)."""
    return Registry("study", getattr(importlib.import_module(PRESETS_MODULE), "STUDIES", {}))


Selection = tuple[Preset, tuple[Configuration, ...]]


def select_presets(spec: str | Preset, presets: Mapping[str, Preset] | None = None) -> list[Selection]:
    """What ``spec`` names: ``paper/figure`` (every configuration), ``paper/figure@gap0.1,eps0.5`` (the
    matching configurations), ``paper`` (every figure of the paper) or a :class:`Preset`. An unknown
    name raises a :class:`~dpaudit.core.errors.UsageError` naming what exists."""
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


__all__ = [
    "CONSTANTS", "Configuration", "Curve", "DEFAULT_OUT", "LINEAR_POINTS", "METRICS", "PRESETS_MODULE", "PerHorizon",
    "Preset", "RELEASED_CODE", "THEOREM", "Selection", "algorithm_registry", "constant_set_fields", "constants_title",
    "load_presets", "load_studies", "power_text", "preset_names", "select_presets"
]
