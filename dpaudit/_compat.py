"""The dotted paths modules had before dpaudit was laid out in wings, and before the mechanisms were grouped in
families, kept working.

``import dpaudit.simulation`` (or ``from dpaudit.claims import PureDP``, a pickle naming
``dpaudit.simulation.SimulationResult``, ``monkeypatch.setattr("dpaudit.simulation.simulate", ...)``,
``from dpaudit.mechanisms.tree import BinaryTreeMechanism``) gives the module at its new path itself, not a copy:
one module object under two names, so a patch through either name is seen by every caller. The table is the only
place the old paths are named.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

#: old dotted path -> the module's path now
MOVED = {
    **{f"dpaudit.{name}": f"dpaudit.core.{name}" for name in (
        "claim_ids", "claims", "distributions", "domains", "errors", "files", "laws", "names", "neighbours",
        "piecewise_exponential", "results", "samplers", "seeding", "subjects", "validation")},
    **{f"dpaudit.{name}": f"dpaudit.bandits.{name}" for name in (
        "contextual_transcripts", "environments", "experiments", "horizons", "policies",
        "simulation", "transcripts")},
    "dpaudit.simulation_cache": "dpaudit.bandits.cache",
    "dpaudit.experiment_reports": "dpaudit.bandits.experiments.reports",
    "dpaudit.driver": "dpaudit.api.driver",
    "dpaudit.records": "dpaudit.api.records",
    "dpaudit.plots": "dpaudit.reports.plots",
    "dpaudit.regret_entries": "dpaudit.suite.regret",
    # the mechanisms' flat modules, now in families (dpaudit.mechanisms.shuffle, the old path of shuffled
    # randomized response, is the shuffle family's package, which re-exports that module's names)
    **{f"dpaudit.mechanisms.{name}": f"dpaudit.mechanisms.{family}.{name}" for family, names in (
        ("classic", ("additive", "bounded_laplace", "clipped_sum", "composition", "folded", "gaussian", "geometric",
                     "histogram", "noisy_max", "randomized_response", "sparse_vector")),
        ("shuffle", ("bit_summation", "shuffle_amp", "shuffle_vec", "vector_summation")),
        ("counters", ("central_tree", "concurrent_shuffle", "concurrent_tree", "hybrid_counter", "lazy_laplace",
                      "online_releases", "tree")),
        ("distributed", ("distributed_sum", "distributed_sum_analysis")),
        ("training", ("dp_sgd",)),
        ("glm", ("exploration_set", "geometry", "glm_links", "glm_lower_bound", "pgd_views", "private_gd")),
        ("released_code", ("glm_released_code", "linear_released_code")),
    ) for name in names},
}


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module at its new path (importing it there first)."""

    def __init__(self, target: str):
        self.target = target
        self.spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system has set the alias's spec on the shared module: give it its own back
        module.__spec__ = self.spec


class _OldPaths(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None):
        new = MOVED.get(fullname)
        return importlib.machinery.ModuleSpec(fullname, _Alias(new)) if new else None


def install() -> None:
    """Put the old paths' finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(_OldPaths())


install()
