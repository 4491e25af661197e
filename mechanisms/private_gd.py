"""shuffle-glm's P_GD: multi-round shuffle-private projected gradient descent (Appendix T,
Algorithm 7, after Cheu et al. 2021, Lemma B.4).

    T_it = eps^2 n^2 / (d log^3(n d / delta)),   eta = 2 D / (L sqrt(T_it))
    theta_0 = 0;  for each iteration t:
        g_bar_t = (1/n) P_1(grad l(theta_t, x_1), ..., grad l(theta_t, x_n);
                            eps / (2 sqrt(2 T_it log(1/delta))), delta / (T_it + 1), Delta = L)
        theta_{t+1} = Pi_Theta(theta_t - eta g_bar_t)
    return theta_bar = (1/T_it) sum_{t=0}^{T_it-1} theta_t

P_1 is :class:`~dpaudit.mechanisms.vector_summation.ShuffledVectorSummation` with bias Delta = L
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
  - Theta is the Euclidean ball {||theta||_2 <= S} of diameter D = 2S (Algorithm 1's domain); the
    projection scales back to the sphere;
  - a gradient with norm above L is refused (P_1's range), never clipped silently.

Paths: :meth:`PrivateGD.run` (each P_1 view drawn with one binomial per coordinate and per-user
rounding, the law of R* summed) and ``per_user=True`` (every user's R* run, as printed) give the same
law of the output (tested).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.densities import ProductDensity

from .params import choice, integer, positive, sample_size
from .vector_summation import NORM_SLACK, ShuffledVectorSummation

STEPS = ("alg7", "lemT.2", "alg1")
ITERATIONS = ("alg7", "lemE.4")


def iterations(epsilon: float, delta: float, n: int, d: int, rule: str = "alg7") -> int:
    """T_it = max(1, floor(eps^2 n^2 / (d log^3(n d / delta)))) (``"lemE.4"``: log instead of log^3)."""
    power = 3 if rule == "alg7" else 1
    return max(1, math.floor(epsilon**2 * n**2 / (d * math.log(n * d / delta) ** power)))


def round_budget(epsilon: float, delta: float, T_it: int) -> tuple[float, float]:
    """Line 3's per-iteration budget: (eps / (2 sqrt(2 T_it log(1/delta))), delta / (T_it + 1))."""
    return epsilon / (2 * math.sqrt(2 * T_it * math.log(1 / delta))), delta / (T_it + 1)


def advanced_composition(k: int, eps0: float, delta0: float, delta_prime: float) -> tuple[float, float]:
    """Dwork & Roth Thm 3.20: k mechanisms each (eps0, delta0)-DP compose to
    (sqrt(2 k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1), k delta0 + delta')."""
    return (math.sqrt(2 * k * math.log(1 / delta_prime)) * eps0 + k * eps0 * math.expm1(eps0), k * delta0 + delta_prime)


class PrivateGD:
    """P_GD (module docstring) for ``n`` data points in R^``d`` at budget (eps, delta), for a loss
    with Lipschitz constant ``lipschitz`` on the ball of radius ``radius``."""

    owner = "PrivateGD"

    def __init__(self, epsilon: float, delta: float, n: int, d: int, lipschitz: float, radius: float,
                 step: str = "alg7", iteration_rule: str = "alg7", reward_bound: float | None = None):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.delta = positive(self.owner, "delta", delta)
        if not self.delta < 1:
            raise ValueError(f"{self.owner}: delta must be in (0, 1) (log(1/delta) > 0), got {delta!r}")
        self.n = integer(self.owner, "n", n, 1)
        self.d = integer(self.owner, "d", d, 1)
        self.lipschitz = positive(self.owner, "lipschitz", lipschitz)
        self.radius = positive(self.owner, "radius", radius)
        self.step_rule = choice(self.owner, "step", step, STEPS)
        self.iteration_rule = choice(self.owner, "iteration_rule", iteration_rule, ITERATIONS)
        self.T_it = iterations(self.epsilon, self.delta, self.n, self.d, self.iteration_rule)
        diameter = 2 * self.radius
        if self.step_rule == "alg7":
            self.eta = 2 * diameter / (self.lipschitz * math.sqrt(self.T_it))
        elif self.step_rule == "lemT.2":
            self.eta = 2 * self.radius / (self.lipschitz * math.sqrt(self.T_it))
        else:
            if reward_bound is None:
                raise ValueError(f"{self.owner}: step='alg1' needs reward_bound (R in eta = 2S / (R S sqrt(T_it)))")
            R = positive(self.owner, "reward_bound", reward_bound)
            self.eta = 2 * self.radius / (R * self.radius * math.sqrt(self.T_it))
        self.round_epsilon, self.round_delta = round_budget(self.epsilon, self.delta, self.T_it)
        # P_1 refuses budgets outside Lemma S.1's range, which also bounds P_GD's
        self.protocol = ShuffledVectorSummation(self.round_epsilon, self.round_delta, self.d, self.n, self.lipschitz)
        self.name = (f"PrivateGD(eps={self.epsilon:g}, delta={self.delta:g}, n={self.n}, d={self.d}, L={self.lipschitz:g}, "
                     f"S={self.radius:g}; T_it={self.T_it})")

    def __repr__(self) -> str:
        return self.name

    def composed_budget(self) -> tuple[float, float]:
        """Lemma T.2's accounting: T_it iterations at the per-iteration budget, advanced composition
        with delta' = delta / (T_it + 1) (so that T_it delta_r + delta' = delta)."""
        return advanced_composition(self.T_it, self.round_epsilon, self.round_delta, self.delta / (self.T_it + 1))

    def project(self, theta: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(theta, axis=-1, keepdims=True)
        return theta * np.minimum(1.0, self.radius / np.maximum(norms, 1e-300))

    def _gradients(self, gradient: Callable[[np.ndarray, Any], np.ndarray], theta: np.ndarray, data: Any) -> np.ndarray:
        grads = np.asarray(gradient(theta, data), dtype=float)
        if grads.shape != (theta.shape[0], self.n, self.d):
            raise ValueError(f"{self.owner}: gradient must return shape (runs, n, d) = {(theta.shape[0], self.n, self.d)}, "
                             f"got {grads.shape}")
        if (np.linalg.norm(grads, axis=-1) > self.lipschitz * (1 + NORM_SLACK)).any():
            raise ValueError(f"{self.owner}: a gradient has norm above L = {self.lipschitz:g}; the loss is not "
                             "L-Lipschitz on Theta")
        return grads

    def run(self, gradient: Callable[[np.ndarray, Any], np.ndarray], data: Any, size: int, rng: np.random.Generator,
            per_user: bool = False) -> np.ndarray:
        """``size`` independent runs; ``gradient(theta (runs, d), data) -> (runs, n, d)`` per-point
        gradients. Returns theta_bar, shape (size, d)."""
        size = sample_size(self.owner, size)
        theta = np.zeros((size, self.d))
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


def logistic_gradient(regularisation: float = 0.0) -> Callable[[np.ndarray, Any], np.ndarray]:
    """Per-point gradients of the logistic log-loss l(theta, (r, x)) = -r <x, theta> + log(1 + e^<x, theta>)
    plus (regularisation / 2) ||theta||^2: (mu(<x, theta>) - r) x + regularisation theta.
    Data: (rewards (n,), contexts (n, d))."""

    def gradient(theta: np.ndarray, data: Any) -> np.ndarray:
        rewards, contexts = (np.asarray(a, dtype=float) for a in data)
        z = theta @ contexts.T  # (runs, n)
        mu = 0.5 * (1 + np.tanh(z / 2))
        return (mu - rewards)[..., None] * contexts[None] + regularisation * theta[:, None, :]

    return gradient


class LinearLossTranscript:
    """The whole multi-round transcript of P_GD (every iteration's shuffled view) for the linear
    loss l(theta, u) = -<theta, u> with ||u||_2 <= L: convex and L-Lipschitz on any Theta, so
    Lemma T.2 applies, and its gradient -u does not depend on theta, so every iteration's P_1 sees
    the same inputs and the transcript's exact law is a product over iterations and coordinates.

    Data: the n points u_i, shape (n, d). :meth:`sample`: shape (size, T_it * d)."""

    owner = "LinearLossTranscript"

    def __init__(self, pgd: PrivateGD):
        self.pgd = pgd
        self.name = f"{pgd!r}, linear loss, transcript of {pgd.T_it} iterations"

    def __repr__(self) -> str:
        return self.name

    def _inputs(self, data: Any) -> np.ndarray:
        return -self.pgd.protocol.entries(data)

    def distribution(self, data: Any) -> ProductDensity:
        one = self.pgd.protocol.distribution(-np.asarray(data, dtype=float)).coordinates
        return ProductDensity(one * self.pgd.T_it)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        inputs = self._inputs(data)
        return np.concatenate([self.pgd.protocol.sample(inputs, size, rng) for _ in range(self.pgd.T_it)], axis=1)

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)


__all__ = ["LinearLossTranscript", "PrivateGD", "advanced_composition", "iterations", "logistic_gradient", "round_budget"]
