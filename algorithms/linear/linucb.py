"""LinUCB (Abbasi-Yadkori et al. 2011) as shuffle-lcb's Algorithm 1 with the identity randomizer: the
non-private baseline of shuffle-lcb's experiments (Sec. 5), batched or not, vectorised over runs.

Round t, user t with the K arms' feature vectors x_{t,a} (the contexts, shape (runs, K, d)) plays

    a_t in argmax_a  <x_{t,a}, theta_hat_{m-1}> + beta_{m-1} ||x_{t,a}||_{V_{m-1}^{-1}}       (line 5)

(ties, up to rounding, to the lowest arm: :func:`first_best`) and, at the end of batch m (t = m B),
adds the batch's statistics: V_m = V_{m-1} + sum x x^T, u_m = u_{m-1} + sum x y,
theta_hat_m = V_m^{-1} u_m, with V_0 = lambda I (lines 14-16; no noise here). B = 1 is LinUCB
updating every round. The confidence radius is the spec's reconstruction of Lemma A.2's with no
private noise (lambda_min = lambda_max = lambda, nu = 0):

    beta_m = sqrt(2 log(1/alpha) + d log(1 + t_m / (d lambda))) + sqrt(lambda).

Choices where the paper is silent (the spec's 6.2: "use the beta_m and lambda of Section 4 with the
stated constants set to 1"): lambda = 1, alpha = 1/T by default (T the simulated horizon); a partial
last batch never updates (the spec's 4.1 [choice]).

Vectorised: V^{-1} is kept per run, (runs, d, d), and updated at a batch end by the Woodbury identity
for B = 1 (Sherman-Morrison) and by a batched inverse of V for B > 1; the indices of all arms of all
runs are one einsum. :func:`linucb_one_run` is the plain per-run reference the tests hold it to.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpaudit.validation import integer, positive, probability


class LinUCB:
    """LinUCB with batch size ``B`` (1: every round), regularizer ``lam`` and confidence ``alpha``
    (module docstring); a contextual policy (``choose(t, contexts)``)."""

    owner: ClassVar[str] = "LinUCB"
    feedback: ClassVar[str] = "bandit"
    contextual: ClassVar[bool] = True
    paper: ClassVar[str] = "shuffle-lcb"
    source: ClassVar[str] = "Algorithm 1 with the identity randomizer (LinUCB, Sec. 5 baseline)"

    def __init__(self, B: int = 1, lam: float = 1.0, alpha: float | None = None):
        self.B = integer(self.owner, "B", B, 1)
        self.lam = positive(self.owner, "lam", lam)
        self.alpha = None if alpha is None else probability(self.owner, "alpha", alpha, open_high=False)
        self.name = f"LinUCB(B={self.B}, lambda={self.lam:g}" + (")" if alpha is None else f", alpha={self.alpha:g})")

    def __repr__(self) -> str:
        return self.name

    def radius(self, t_m: Any, d: int) -> np.ndarray:
        """beta_m for the batch ending at t_m (0 before the first update)."""
        t_m = np.asarray(t_m, dtype=float)
        return np.sqrt(2 * math.log(1 / self._alpha) + d * np.log1p(t_m / (d * self.lam))) + math.sqrt(self.lam)

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        self.runs = integer(self.owner, "runs", runs, 0)
        horizon = integer(self.owner, "horizon", horizon, 1)
        self._alpha = self.alpha if self.alpha is not None else 1 / max(horizon, 2)
        self._d: int | None = None  # the dimension, from the first contexts

    def _begin(self, d: int) -> None:
        self._d = d
        self.V = np.broadcast_to(self.lam * np.eye(d), (self.runs, d, d)).copy()
        self.V_inv = np.broadcast_to(np.eye(d) / self.lam, (self.runs, d, d)).copy()
        self.u = np.zeros((self.runs, d))
        self.theta = np.zeros((self.runs, d))
        self.beta = float(self.radius(0, d))
        self._batch_V = np.zeros((self.runs, d, d))
        self._batch_u = np.zeros((self.runs, d))
        self._x: np.ndarray | None = None

    def choose(self, t: int, contexts: np.ndarray) -> np.ndarray:
        x = np.asarray(contexts, dtype=float)
        if x.ndim != 3 or x.shape[0] != self.runs:
            raise ValueError(f"{self.owner}: contexts must have shape (runs, K, d) with runs = {self.runs}, "
                             f"got {x.shape}")
        if self._d is None:
            self._begin(x.shape[2])
        elif x.shape[2] != self._d:
            raise ValueError(f"{self.owner}: contexts changed dimension from {self._d} to {x.shape[2]} at round {t}")
        width = np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", x @ self.V_inv, x), 0.0))  # ||x||_{V^-1}
        played = first_best(np.einsum("rkd,rd->rk", x, self.theta) + self.beta * width)
        self._x = x[np.arange(self.runs), played]
        return played

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        x = self._x
        self._batch_V += x[:, :, None] * x[:, None, :]
        self._batch_u += np.asarray(rewards, dtype=float)[:, None] * x
        if t % self.B:
            return
        self.V += self._batch_V
        self.u += self._batch_u
        if self.B == 1:  # Sherman-Morrison: (V + x x^T)^{-1}
            vx = np.einsum("rde,re->rd", self.V_inv, x)
            self.V_inv -= vx[:, :, None] * vx[:, None, :] / (1 + np.einsum("rd,rd->r", x, vx))[:, None, None]
        else:
            self.V_inv = np.linalg.inv(self.V)
        self.theta = np.einsum("rde,re->rd", self.V_inv, self.u)
        self.beta = float(self.radius(t, self._d))
        self._batch_V[:] = 0.0
        self._batch_u[:] = 0.0


def first_best(scores: np.ndarray) -> np.ndarray:
    """The lowest arm whose score is within rounding (1e-9 relative) of the best, per row: ties in
    exact arithmetic (at round 1 every unit-norm arm scores the same) must not be broken by the last
    bits of how the scores were summed."""
    best = scores.max(axis=-1, keepdims=True)
    return np.argmax(scores >= best - 1e-9 * (1.0 + np.abs(best)), axis=-1)


def linucb_one_run(policy: LinUCB, features: np.ndarray, rewards: np.ndarray, horizon: int) -> np.ndarray:
    """The plain per-run reference: one run's arms over ``horizon`` rounds with fixed ``features`` (K, d)
    and the reward table ``rewards`` (horizon, K), solving V theta = u afresh at every batch end."""
    K, d = features.shape
    alpha = policy.alpha if policy.alpha is not None else 1 / max(horizon, 2)
    V, u, theta = policy.lam * np.eye(d), np.zeros(d), np.zeros(d)
    beta = math.sqrt(2 * math.log(1 / alpha)) + math.sqrt(policy.lam)
    batch_V, batch_u = np.zeros((d, d)), np.zeros(d)
    played = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        V_inv = np.linalg.inv(V)
        scores = [features[a] @ theta + beta * math.sqrt(max(features[a] @ V_inv @ features[a], 0.0))
                  for a in range(K)]
        a_t = int(first_best(np.array(scores)[None])[0])
        played[t - 1] = a_t
        x = features[a_t]
        batch_V += np.outer(x, x)
        batch_u += rewards[t - 1, a_t] * x
        if t % policy.B == 0:
            V, u = V + batch_V, u + batch_u
            theta = np.linalg.solve(V, u)
            beta = math.sqrt(2 * math.log(1 / alpha) + d * math.log1p(t / (d * policy.lam))) + math.sqrt(policy.lam)
            batch_V, batch_u = np.zeros((d, d)), np.zeros(d)
    return played


__all__ = ["LinUCB", "first_best", "linucb_one_run"]
