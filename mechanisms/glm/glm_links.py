"""The links of shuffle-glm's generalised linear models: the mean mu, its slope mu' (Algorithm 2's B_H leaves
and Algorithm 1's weights), the per-point gradients of the logistic log-loss that P_GD (Algorithm 7) minimises
in Algorithms 1 and 2, and the probit link of the paper's experiments (Table 2, Figure 1(b)). One definition
of each mu serves the environments, the algorithms and the releases.

:class:`Link` bundles what a GLM bandit algorithm needs of a link (:data:`LINKS` by name): ``mean`` (mu),
``slope`` (mu'), and the per-observation negative log-likelihood of a reward r in [0, 1] as a function of
z = <x, theta>, with its first and second derivatives in z, so that the MLE's gradient is
sum_s loss_slope(z_s, r_s) x_s and its Hessian sum_s loss_curvature(z_s, r_s) x_s x_s^T.

- logistic (canonical): loss(z, r) = -r z + b(z), b(z) = log(1 + e^z), the GLM loss
  l(theta, r, x) = -r <x, theta> + b(<x, theta>) of shuffle-glm Sec. 4-5; slope mu(z) - r, curvature mu'(z).
- probit: P(r = 1 | x) = Phi(<x, theta>), not a canonical exponential family, so it has no b with
  b' = mu and a likelihood of the printed form. The algorithms' loss is the binary cross-entropy of Phi,
  loss(z, r) = -r log Phi(z) - (1 - r) log Phi(-z), the probit negative log-likelihood (its regularised
  minimiser is the probit MLE); it is convex in z. ``cumulant`` gives the other loss the paper prints,
  -r z + int_0^z mu (for probit z Phi(z) + phi(z) - phi(0)), whose gradient is (mu(z) - r) x, for an
  algorithm that states it uses that one.

R = 1 for both (rewards in {0, 1}); ``reward_bound`` records it."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from dpaudit.core.names import Registry


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


_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def probit_mean(z: Any) -> np.ndarray:
    """The probit link mu(z) = Phi(z), the standard normal cdf."""
    return special.ndtr(np.asarray(z, dtype=float))


def probit_slope(z: Any) -> np.ndarray:
    """mu'(z) = phi(z), the standard normal density."""
    z = np.asarray(z, dtype=float)
    return np.exp(-0.5 * z * z - _LOG_SQRT_2PI)


def _mills(u: np.ndarray) -> np.ndarray:
    """phi(u) / Phi(u); through logs below u = -30, where Phi(u) nears underflow (0/0 below about -38)."""
    u = np.asarray(u, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 below -38, replaced just below
        ratio = probit_slope(u) / special.ndtr(u)
    deep = u < -30
    if deep.any():
        ratio[deep] = np.exp(-0.5 * u[deep] ** 2 - _LOG_SQRT_2PI - special.log_ndtr(u[deep]))
    return ratio


def _softplus(z: np.ndarray) -> np.ndarray:
    """log(1 + e^z) without overflow."""
    return np.logaddexp(0.0, z)


def _logistic_loss(z: Any, r: Any) -> np.ndarray:
    z, r = np.asarray(z, dtype=float), np.asarray(r, dtype=float)
    return _softplus(z) - r * z


def _logistic_loss_slope(z: Any, r: Any) -> np.ndarray:
    return logistic_mean(z) - np.asarray(r, dtype=float)


def _logistic_loss_curvature(z: Any, r: Any) -> np.ndarray:
    return logistic_slope(np.asarray(z, dtype=float)) + 0.0 * np.asarray(r, dtype=float)


def _logistic_cumulant(z: Any) -> np.ndarray:
    """int_0^z mu = log(1 + e^z) - log 2."""
    return _softplus(np.asarray(z, dtype=float)) - math.log(2)


def _probit_loss(z: Any, r: Any) -> np.ndarray:
    z, r = np.asarray(z, dtype=float), np.asarray(r, dtype=float)
    return -r * special.log_ndtr(z) - (1 - r) * special.log_ndtr(-z)


def _probit_loss_slope(z: Any, r: Any) -> np.ndarray:
    z, r = np.asarray(z, dtype=float), np.asarray(r, dtype=float)
    return -r * _mills(z) + (1 - r) * _mills(-z)


def _probit_loss_curvature(z: Any, r: Any) -> np.ndarray:
    # d/du [-log Phi(u)] = -h(u), d2/du2 = h(u) (u + h(u)) with h = phi/Phi; positive (log-concavity of Phi)
    z, r = np.asarray(z, dtype=float), np.asarray(r, dtype=float)
    up, down = _mills(z), _mills(-z)
    return r * up * (z + up) + (1 - r) * down * (down - z)


def _probit_loss_derivatives(z: Any, r: Any) -> tuple[np.ndarray, np.ndarray]:
    # binary rewards (the bandits'): one Mills ratio at u = +-z instead of one at each sign
    z, r = np.asarray(z, dtype=float), np.asarray(r, dtype=float)
    if not np.all((r == 0) | (r == 1)):
        return _probit_loss_slope(z, r), _probit_loss_curvature(z, r)
    sign = 2 * r - 1
    u = sign * z
    h = _mills(u)
    return -sign * h, h * (u + h)


def _logistic_loss_derivatives(z: Any, r: Any) -> tuple[np.ndarray, np.ndarray]:
    mu = logistic_mean(z)
    return mu - np.asarray(r, dtype=float), mu * (1 - mu)


def _probit_cumulant(z: Any) -> np.ndarray:
    """int_0^z Phi = z Phi(z) + phi(z) - phi(0)."""
    z = np.asarray(z, dtype=float)
    return z * special.ndtr(z) + probit_slope(z) - probit_slope(0.0)


@dataclass(frozen=True)
class Link:
    """A GLM link and the loss the algorithms minimise for it (module docstring). Every function is
    elementwise in z = <x, theta> (and r), vectorised over any shape; ``loss_derivatives(z, r)`` gives
    (loss_slope, loss_curvature) in one pass (what a Newton step needs)."""

    name: str
    mean: Callable[[Any], np.ndarray]
    slope: Callable[[Any], np.ndarray]
    loss: Callable[[Any, Any], np.ndarray]
    loss_slope: Callable[[Any, Any], np.ndarray]
    loss_curvature: Callable[[Any, Any], np.ndarray]
    cumulant: Callable[[Any], np.ndarray]
    loss_derivatives: Callable[[Any, Any], tuple[np.ndarray, np.ndarray]]
    reward_bound: float = 1.0

    def __repr__(self) -> str:
        return f"Link({self.name!r})"

    def gradient(self, regularisation: float = 0.0) -> Callable[[np.ndarray, Any], np.ndarray]:
        """Per-point gradients of loss(<x, theta>, r) + (regularisation / 2) ||theta||^2, in the layout of
        :func:`logistic_gradient` (theta (runs, d); data (rewards (n,), contexts (n, d)) -> (runs, n, d))."""

        def gradient(theta: np.ndarray, data: Any) -> np.ndarray:
            rewards, contexts = (np.asarray(a, dtype=float) for a in data)
            slope = self.loss_slope(theta @ contexts.T, rewards)  # (runs, n)
            return slope[..., None] * contexts[None] + regularisation * theta[:, None, :]

        return gradient


LOGISTIC = Link("logistic", logistic_mean, logistic_slope, _logistic_loss, _logistic_loss_slope,
                _logistic_loss_curvature, _logistic_cumulant, _logistic_loss_derivatives)
PROBIT = Link("probit", probit_mean, probit_slope, _probit_loss, _probit_loss_slope, _probit_loss_curvature,
              _probit_cumulant, _probit_loss_derivatives)
LINKS: dict[str, Link] = Registry("link", {"logistic": LOGISTIC, "probit": PROBIT})


def link(name: Any) -> Link:
    """The :class:`Link` called ``name`` (a Link is returned as is); a ValueError names the options."""
    if isinstance(name, Link):
        return name
    if name not in LINKS:
        raise ValueError(f"link must be one of {', '.join(map(repr, LINKS))}, got {name!r}")
    return LINKS[name]


__all__ = ["LINKS", "LOGISTIC", "PROBIT", "Link", "link", "logistic_gradient", "logistic_mean", "logistic_slope",
           "probit_mean", "probit_slope"]
