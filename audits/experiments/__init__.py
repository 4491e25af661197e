"""The papers' experiments as presets (:mod:`dpaudit.bandits.experiments`), one module per paper, collected
into :data:`PRESETS` (``paper/figure`` -> :class:`~dpaudit.bandits.experiments.Preset`). ``dpaudit simulate``
reaches them through :func:`dpaudit.bandits.experiments.load_presets`; suite discovery skips this package."""

from __future__ import annotations

from dpaudit.bandits.experiments import Preset
from dpaudit.core.names import Registry

from . import concurrent_shuffle, dist_mab, private_online, shuffle_glm, shuffle_lcb

PRESETS: dict[str, Preset] = Registry("preset", {p.name: p for module in (dist_mab, private_online, shuffle_lcb,
                                                                          shuffle_glm, concurrent_shuffle)
                                                 for p in module.PRESETS})
#: experiments that are not bandit simulations: name -> runner(out, runs, horizon, seed) -> written paths
STUDIES = Registry("study", concurrent_shuffle.STUDIES)

__all__ = ["PRESETS", "STUDIES"]
