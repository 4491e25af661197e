"""The logistic link of shuffle-glm's generalised linear model: the mean mu, its slope mu' (Algorithm 2's
B_H leaves and Algorithm 1's weights) and the per-point gradients of the logistic log-loss that P_GD
(Algorithm 7) minimises in Algorithms 1 and 2. One definition of mu serves all three."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def logistic_mean(z: Any) -> np.ndarray:
    """The logistic link mu(z) = 1/(1 + e^-z), as 0.5 (1 + tanh(z/2)) (no overflow for large |z|)."""
    return 0.5 * (1 + np.tanh(np.asarray(z, dtype=float) / 2))


def logistic_gradient(regularisation: float = 0.0) -> Callable[[np.ndarray, Any], np.ndarray]:
    """Per-point gradients of the logistic log-loss l(theta, (r, x)) = -r <x, theta> + log(1 + e^<x, theta>)
    plus (regularisation / 2) ||theta||^2: (mu(<x, theta>) - r) x + regularisation theta.
    Data: (rewards (n,), contexts (n, d))."""

    def gradient(theta: np.ndarray, data: Any) -> np.ndarray:
        rewards, contexts = (np.asarray(a, dtype=float) for a in data)
        mu = logistic_mean(theta @ contexts.T)  # (runs, n)
        return (mu - rewards)[..., None] * contexts[None] + regularisation * theta[:, None, :]

    return gradient


def logistic_slope(z: np.ndarray) -> np.ndarray:
    """mu'(z) = mu(z)(1 - mu(z)) of the logistic link."""
    mu = logistic_mean(z)
    return mu * (1 - mu)


__all__ = ["logistic_gradient", "logistic_mean", "logistic_slope"]
