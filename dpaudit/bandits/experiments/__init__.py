"""The papers' experiments as presets: :func:`run_preset` (``dpaudit simulate``) simulates a figure.

- :mod:`~dpaudit.bandits.experiments.presets`: a figure as plain data (:class:`Preset`,
  :class:`Configuration`, :class:`Curve`) and the presets' discovery in ``dpaudit.audits.experiments``;
- :mod:`~dpaudit.bandits.experiments.run`: running a preset (tasks, processes, the files written as they
  finish);
- :mod:`~dpaudit.bandits.experiments.reports`: each configuration's and each figure's plot, table and summary.

May import the vocabulary, the bandit engine and (by registry name, when a preset runs) the algorithms;
names ``dpaudit.audits.experiments`` only by import path, in discovery.
"""

from .presets import (
    CONSTANTS,
    DEFAULT_OUT,
    LINEAR_POINTS,
    METRICS,
    PRESETS_MODULE,
    RELEASED_CODE,
    THEOREM,
    Configuration,
    Curve,
    PerHorizon,
    Preset,
    Selection,
    algorithm_registry,
    constant_set_fields,
    constants_title,
    load_presets,
    load_studies,
    power_text,
    preset_names,
    select_presets,
)
from .run import PresetRun, configuration_dir, default_workers, figure_dir, run_preset

__all__ = [
    "CONSTANTS", "DEFAULT_OUT", "LINEAR_POINTS", "METRICS", "PRESETS_MODULE", "RELEASED_CODE", "THEOREM",
    "Configuration", "Curve", "PerHorizon", "Preset", "PresetRun", "Selection", "algorithm_registry",
    "constant_set_fields", "constants_title",
    "configuration_dir", "default_workers", "figure_dir", "load_presets", "load_studies", "power_text",
    "preset_names", "run_preset", "select_presets",
]
