"""Registry entries of the linear contextual bandit algorithms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .linucb import LinUCB


def linucb(*, B: int = 1, lam: float = 1.0, alpha: float | None = None) -> LinUCB:
    """shuffle-lcb Sec. 5 baseline: LinUCB (Abbasi-Yadkori et al. 2011), Algorithm 1 with no noise, batch size B.

    lambda = 1 and alpha = 1/T by default (the paper does not state its simulation constants)."""
    return LinUCB(B, lam, alpha)


ALGORITHMS: dict[str, Callable[..., Any]] = {"linucb": linucb}
