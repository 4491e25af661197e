"""Registry entries of private-online's algorithms (bandits and full information)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ALGORITHMS: dict[str, Callable[..., Any]] = {}
