"""shuffle-glm's P_GD: multi-round shuffle-private projected gradient descent (Appendix T,
Algorithm 7, after Cheu et al. 2021, Lemma B.4).

    T_it = eps^2 n^2 / (d log^3(n d / delta)),   eta = 2 D / (L sqrt(T_it))
    theta_0 = 0;  for each iteration t:
        g_bar_t = (1/n) P_1(grad l(theta_t, x_1), ..., grad l(theta_t, x_n);
                            eps / (2 sqrt(2 T_it log(1/delta))), delta / (T_it + 1), Delta = L)
        theta_{t+1} = Pi_Theta(theta_t - eta g_bar_t)
    return theta_bar = (1/T_it) sum_{t=0}^{T_it-1} theta_t

P_1 is :class:`~dpaudit.mechanisms.shuffle.vector_summation.ShuffledVectorSummation` with bias Delta = L
(gradients of an L-Lipschitz loss have ||grad||_2 <= L). Privacy (Lemma T.2): every iteration's P_1
is (eps_r, delta_r)-shuffle private at the per-iteration budget, and advanced composition over T_it
iterations gives the whole transcript (eps, delta).

Step-size variants the paper prints (``step``):
  - ``"alg7"``: eta = 2 D / (L sqrt(T_it)) (Algorithm 7);
  - ``"lemT.2"``: eta = 2 S / (L sqrt(T_it)) with S = D / 2 the radius of the ball (Lemma T.2);
  - ``"alg1"``: eta = 2 S / (R S sqrt(T_it)) (Algorithm 1's text; needs the reward bound R).
``iterations="lemE.4"`` uses Lemma E.4's T_it = eps^2 n^2 / (d log(n d / delta)) (log, not log^3).

Choices where the paper is silent:
  - the printed loop runs t = 1..T_it with a gradient at theta_t while only theta_0 is set: the
    loop runs t = 0..T_it - 1 and averages theta_0..theta_{T_it - 1}, as line 5 writes;
  - T_it := max(1, floor(eps^2 n^2 / (d log^3(n d / delta))));
  - Theta is the Euclidean ball {||theta||_2 <= S} of diameter D = 2S (:class:`~.geometry.Ball`;
    Algorithm 1's domain and Algorithm 2's criterion-I call), or the ellipsoid
    {||theta - theta_o||_V <= gamma sqrt(kappa)} of Algorithm 2's criterion-II call
    (:class:`~.geometry.Ellipsoid`); the domains and their projections are in :mod:`.geometry`;
  - theta_0 = Pi_Theta(0) (Algorithm 7's 0 whenever 0 is in Theta, as it is for a ball; the
    criterion-II ellipsoid need not contain 0);
  - a gradient with norm above L is refused (P_1's range), never clipped silently.

The audited views of P_GD (its first iteration's shuffled view, the linear loss's whole transcript,
and the releases of Algorithms 1 and 2 that contain it) are in :mod:`.pgd_views`, the logistic loss's
gradients in :mod:`.glm_links`; the parameters of the two algorithms' calls live with the algorithms
(``algorithms.glm.parameters``).

Paths: :meth:`PrivateGD.run` (each P_1 view drawn with one binomial per coordinate and per-user
rounding, the law of R* summed) and ``per_user=True`` (every user's R* run, as printed) give the same
law of the output (tested).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.core.validation import choice, integer, positive, sample_size

from ..accounting import advanced_composition
from ..shuffle.vector_summation import NORM_SLACK, ShuffledVectorSummation
from .geometry import Ball, Ellipsoid

STEPS = ("alg7", "lemT.2", "alg1")
ITERATIONS = ("alg7", "lemE.4")


def iterations(epsilon: float, delta: float, n: int, d: int, rule: str = "alg7") -> int:
    """T_it = max(1, floor(eps^2 n^2 / (d log^3(n d / delta)))) (``"lemE.4"``: log instead of log^3)."""
    power = 3 if rule == "alg7" else 1
    return max(1, math.floor(epsilon**2 * n**2 / (d * math.log(n * d / delta) ** power)))


def round_budget(epsilon: float, delta: float, T_it: int) -> tuple[float, float]:
    """Line 3's per-iteration budget: (eps / (2 sqrt(2 T_it log(1/delta))), delta / (T_it + 1))."""
    return epsilon / (2 * math.sqrt(2 * T_it * math.log(1 / delta))), delta / (T_it + 1)


class PrivateGD:
    """P_GD (module docstring) for ``n`` data points in R^``d`` at budget (eps, delta), for a loss
    with Lipschitz constant ``lipschitz`` on Theta: the ball of radius ``radius``, or ``domain``
    (a :class:`Ball` or :class:`Ellipsoid`; give one of the two)."""

    owner = "PrivateGD"

    def __init__(self, epsilon: float, delta: float, n: int, d: int, lipschitz: float, radius: float | None = None,
                 step: str = "alg7", iteration_rule: str = "alg7", reward_bound: float | None = None,
                 domain: Ball | Ellipsoid | None = None):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.delta = positive(self.owner, "delta", delta)
        if not self.delta < 1:
            raise ValueError(f"{self.owner}: delta must be in (0, 1) (log(1/delta) > 0), got {delta!r}")
        self.n = integer(self.owner, "n", n, 1)
        self.d = integer(self.owner, "d", d, 1)
        self.lipschitz = positive(self.owner, "lipschitz", lipschitz)
        if (radius is None) == (domain is None):
            raise ValueError(f"{self.owner}: give Theta as exactly one of radius (a ball) and domain")
        self.domain = Ball(radius) if domain is None else domain
        if self.domain.d not in (None, self.d):
            raise ValueError(f"{self.owner}: domain is in R^{self.domain.d}, the data in R^{self.d}")
        self.step_rule = choice(self.owner, "step", step, STEPS)
        self.iteration_rule = choice(self.owner, "iteration_rule", iteration_rule, ITERATIONS)
        self.T_it = iterations(self.epsilon, self.delta, self.n, self.d, self.iteration_rule)
        diameter = self.domain.diameter
        if self.step_rule == "alg7":
            self.eta = 2 * diameter / (self.lipschitz * math.sqrt(self.T_it))
        elif self.step_rule == "lemT.2":  # 2S with S the ball's radius, D/2
            self.eta = diameter / (self.lipschitz * math.sqrt(self.T_it))
        else:
            if reward_bound is None:
                raise ValueError(f"{self.owner}: step='alg1' needs reward_bound (R in eta = 2S / (R S sqrt(T_it)))")
            R = positive(self.owner, "reward_bound", reward_bound)
            self.eta = 2 / (R * math.sqrt(self.T_it))  # 2S / (R S sqrt(T_it))
        self.round_epsilon, self.round_delta = round_budget(self.epsilon, self.delta, self.T_it)
        # P_1 refuses budgets outside Lemma S.1's range, which also bounds P_GD's
        self.protocol = ShuffledVectorSummation(self.round_epsilon, self.round_delta, self.d, self.n, self.lipschitz)
        self.name = (f"PrivateGD(eps={self.epsilon:g}, delta={self.delta:g}, n={self.n}, d={self.d}, "
                     f"L={self.lipschitz:g}, Theta={self.domain!r}; T_it={self.T_it})")

    def __repr__(self) -> str:
        return self.name

    def composed_budget(self) -> tuple[float, float]:
        """Lemma T.2's accounting: T_it iterations at the per-iteration budget, advanced composition
        with delta' = delta / (T_it + 1) (so that T_it delta_r + delta' = delta)."""
        return advanced_composition(self.T_it, self.round_epsilon, self.round_delta, self.delta / (self.T_it + 1))

    def project(self, theta: np.ndarray) -> np.ndarray:
        return self.domain.project(theta)

    def start(self, runs: int) -> np.ndarray:
        """theta_0 = Pi_Theta(0) for ``runs`` runs, shape (runs, d)."""
        return self.project(np.zeros((runs, self.d)))

    def _gradients(self, gradient: Callable[[np.ndarray, Any], np.ndarray], theta: np.ndarray, data: Any) -> np.ndarray:
        grads = np.asarray(gradient(theta, data), dtype=float)
        if grads.shape != (theta.shape[0], self.n, self.d):
            raise ValueError(f"{self.owner}: gradient must return shape (runs, n, d) = "
                             f"{(theta.shape[0], self.n, self.d)}, got {grads.shape}")
        if (np.linalg.norm(grads, axis=-1) > self.lipschitz * (1 + NORM_SLACK)).any():
            raise ValueError(f"{self.owner}: a gradient has norm above L = {self.lipschitz:g}; the loss is not "
                             "L-Lipschitz on Theta")
        return grads

    def run(self, gradient: Callable[[np.ndarray, Any], np.ndarray], data: Any, size: int, rng: np.random.Generator,
            per_user: bool = False) -> np.ndarray:
        """``size`` independent runs; ``gradient(theta (runs, d), data) -> (runs, n, d)`` per-point
        gradients. Returns theta_bar, shape (size, d)."""
        size = sample_size(self.owner, size)
        theta = self.start(size)
        total = np.zeros((size, self.d))
        for _ in range(self.T_it):
            total += theta
            grads = self._gradients(gradient, theta, data)
            if per_user:
                counts = self.protocol.randomize(grads, rng).sum(axis=1)
            else:
                counts = self.protocol.sample_inputs(grads, rng)
            g_bar = self.protocol.analyze(counts) / self.n
            theta = self.project(theta - self.eta * g_bar)
        return total / self.T_it


__all__ = ["ITERATIONS", "STEPS", "PrivateGD", "iterations", "round_budget"]
