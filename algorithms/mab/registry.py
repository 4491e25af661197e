"""Registry entries of the multi-armed bandit algorithms (dist-mab, and DP-SE)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ALGORITHMS: dict[str, Callable[..., Any]] = {}
