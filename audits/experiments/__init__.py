"""The papers' experiments as presets (:mod:`dpaudit.experiments`), one module per paper, collected
into :data:`PRESETS` (``paper/figure`` -> :class:`~dpaudit.experiments.Preset`). ``dpaudit simulate``
reaches them through :func:`dpaudit.experiments.load_presets`; suite discovery skips this package."""

from __future__ import annotations

from dpaudit.experiments import Preset

from . import dist_mab, private_online, shuffle_glm

PRESETS: dict[str, Preset] = {p.name: p for module in (dist_mab, private_online, shuffle_glm) for p in module.PRESETS}

__all__ = ["PRESETS"]
