"""The registry of built-in algorithms: :data:`ALGORITHMS` maps a stable lower-case name to a
constructor taking keyword arguments named as in the paper (``eps``, ``delta``, ``s``, ...) with the
paper's defaults for the rest, so ``ALGORITHMS["ftnl"](eps=0.1)`` is FTNL exactly as printed.
Each constructor's docstring names its paper key and algorithm number (``dpaudit list --algorithms``
prints them). The entries live with their family (``mab``, ``online``, ``linear``, ``glm``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dpaudit.core.names import Registry

from .glm.registry import ALGORITHMS as _GLM
from .linear.registry import ALGORITHMS as _LINEAR
from .mab.registry import ALGORITHMS as _MAB
from .online.registry import ALGORITHMS as _ONLINE

#: a :class:`~dpaudit.core.names.Registry`: an unknown name raises a KeyError that lists the known ones
ALGORITHMS: dict[str, Callable[..., Any]] = Registry("algorithm", {**_MAB, **_ONLINE, **_LINEAR, **_GLM})


def describe(name: str) -> str:
    """The first line of the constructor's docstring: paper key, algorithm number, what it is."""
    doc = (ALGORITHMS[name].__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


__all__ = ["ALGORITHMS", "describe"]
