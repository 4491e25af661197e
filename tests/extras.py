"""The environment of a machine where ``pip install .`` installed dpaudit without its extras, for tests
that run dpaudit in a subprocess: the import names of every package an extra adds beyond the core
dependencies are blocked (``no_extras/sitecustomize.py``), read from pyproject.toml and the installed
distributions' metadata, so a new extra is blocked without anyone listing it here."""

from __future__ import annotations

import os
import re
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BLOCKER = Path(__file__).parent / "no_extras"


def _distribution(requirement: str) -> str:
    """The normalised distribution name of a requirement string ("dask[distributed]>=2024.1" -> "dask")."""
    return re.sub(r"[-_.]+", "-", re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement).group(1)).lower()


def extra_distributions() -> set[str]:
    """Distributions the extras add beyond the core dependencies (with what they pull in by their own
    extras, e.g. dask[distributed] -> distributed)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_distribution(r) for r in project["dependencies"]}
    extras = set()
    for requirements in project["optional-dependencies"].values():
        for requirement in requirements:
            extras.add(_distribution(requirement))
            own_extras = re.search(r"\[([^\]]+)\]", requirement)
            if own_extras:
                extras |= {_distribution(name) for name in own_extras.group(1).split(",")}
    return extras - core


def blocked_modules() -> set[str]:
    """Top-level import names provided only by the extras' distributions (installed here)."""
    wanted = extra_distributions()
    names = set()
    for module, distributions in packages_distributions().items():
        normalised = {_distribution(d) for d in distributions}
        if normalised & wanted and not module.startswith("_"):
            names.add(module)
    return names


def environment_without_extras() -> dict[str, str]:
    """``os.environ`` with the extras' modules made unimportable in every Python process started with it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(BLOCKER), env.get("PYTHONPATH")) if p)
    env["DPAUDIT_BLOCKED_MODULES"] = ",".join(sorted(blocked_modules()))
    return env
