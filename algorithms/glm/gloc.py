"""GLOC (Jun, Bhargava, Nowak, Willett 2017, "Scalable generalized linear bandits: online computation and
hashing"), a non-private baseline of shuffle-glm's experiments (Table 2, Figure 1), vectorised over runs.

GLOC keeps an online Newton step (ONS-GLM) estimate theta_t of theta* and turns its online regret bound into a
confidence set (online-to-confidence-set conversion). With k = 1/kappa (Jun et al.'s kappa, the smallest
slope mu'), V_t = lam I + sum_{s<=t} x_s x_s^T and the canonical GLM loss l_s(theta) = -r_s <x_s, theta> + m(<x_s,
theta>), m' = mu (:attr:`Link.cumulant`), after round t:

    g_t = (mu(<x_t, theta_t>) - r_t) x_t                                   (the loss's gradient at theta_t)
    theta_{t+1} = argmin_{||theta|| <= S} ||theta - (theta_t - V_t^{-1} g_t / k)||_{V_t}      (ONS-GLM)
    B_t = 2 k S^2 lam + (1 / (2 k)) sum_{s<=t} ||g_s||^2_{V_s^{-1}}          (its OCO regret bound)
    z_s = <x_s, theta_s>,   theta_hat_t = V_t^{-1} sum_{s<=t} z_s x_s           (the confidence set's centre)
    beta_t = alpha(B_t) + lam S^2 - (||z||^2 - theta_hat_t^T sum_s z_s x_s),
    alpha(B) = 1 + (4/k) B + (8 R^2 / k^2) log((2/delta) sqrt(1 + (2/k) B + 4 R^4 / (k^4 delta^2)))

and round t + 1 plays x in argmax <x, theta_hat_t> + sqrt(beta_t) ||x||_{V_t^{-1}} (GLOC's UCB on the linear
score; mu is increasing, so it is also the arm of highest optimistic mean; ties to the lowest arm).

Choices: lam = d (both experiments' code bases; they also start the ONS matrix at lam I); R = 1/2, the
sub-Gaussian constant of Bernoulli reward noise (Jun et al.'s R; the code bases put S or max mu' there);
delta = 0.02 (the experiments'); theta_1 = 0. The code bases differ from the paper in three places
recorded here and not copied: they project the ONS step onto the sphere of radius S in the Euclidean norm
(the paper: onto the ball in the V_t norm), score arms by mu(<x, theta_t>) (the ONS iterate, not the centre
theta_hat_t) and drop the lam S^2 - (...) terms of beta_t.

``variant="released-code"`` follows those three departures, as the code the paper cites runs GLOC (commit
ab8fd160, ``glmbanditexp/algorithms/gloc.py``): the ONS step rescaled to the sphere ||theta|| = S, arms scored
by mu(<x, theta_t>) + sqrt(alpha(B_t)) ||x||_{V_t^{-1}}, and alpha with the link's largest slope squared, L^2 =
mu'(0)^2, where Jun et al. have R (0.25^2 logistic, 1/(2 pi) probit); the shuffle-glm presets run it under
their released-code constants.

The V_t-norm projection onto the ball: theta(nu) = (V + nu I)^{-1} V theta' with nu >= 0 the root of
||theta(nu)|| = S (when ||theta'|| > S), found for all runs at once by Newton steps on
1/||theta(nu)|| - 1/S in V's eigenbasis (monotone convergence from nu = 0). :func:`gloc_one_run` is the
per-run reference (matrices inverted afresh, the projection's root by scipy's brentq).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from scipy import optimize

from dpaudit.algorithms.linear.linucb import first_best
from dpaudit.core.validation import choice, positive
from dpaudit.mechanisms.glm.glm_links import Link

from .base import GLMPolicy
from .mle import sherman_morrison, weighted_norms

VARIANTS = ("paper", "released-code")
_PROJECTION_ITERATIONS = 100
_PROJECTION_TOLERANCE = 1e-13


def project_to_ball(V: np.ndarray, theta: np.ndarray, S: float) -> np.ndarray:
    """argmin_{||u|| <= S} ||u - theta_r||_{V_r} for each run: V (runs, d, d) positive definite, theta (runs, d)."""
    out = np.array(theta, dtype=float, copy=True)
    outside = np.flatnonzero(np.linalg.norm(theta, axis=1) > S)
    if outside.size == 0:
        return out
    eigenvalues, basis = np.linalg.eigh(V[outside])
    c = np.einsum("rdk,rd->rk", basis, theta[outside])  # theta in V's eigenbasis
    lc = eigenvalues * c
    nu = np.zeros(outside.size)
    for _ in range(_PROJECTION_ITERATIONS):
        shifted = eigenvalues + nu[:, None]
        norm = np.sqrt(np.sum((lc / shifted) ** 2, axis=1))
        if np.all(np.abs(norm - S) <= _PROJECTION_TOLERANCE * S):
            break
        slope = np.sum(lc**2 / shifted**3, axis=1) / norm**3  # d/dnu of 1/||theta(nu)||
        nu = np.maximum(nu - (1 / norm - 1 / S) / slope, 0.0)
    out[outside] = np.einsum("rdk,rk->rd", basis, lc / (eigenvalues + nu[:, None]))
    return out


def confidence_alpha(B: np.ndarray, k: float, R: float, delta: float) -> np.ndarray:
    """alpha(B) of Jun et al.'s confidence set (module docstring)."""
    return 1 + 4 / k * B + 8 * R**2 / k**2 * np.log(2 / delta * np.sqrt(1 + 2 / k * B + 4 * R**4 / (k**4 * delta**2)))


class GLOC(GLMPolicy):
    """GLOC with link ``link``, ||theta*|| <= ``S``, ``kappa`` (1/k), confidence ``delta``, regulariser ``lam``
    (default d) and noise constant ``R`` (module docstring)."""

    owner: ClassVar[str] = "GLOC"
    source: ClassVar[str] = "Sec. 8 baseline GLOC (Jun et al. 2017)"
    anytime: ClassVar[bool] = True  # its constants never read T

    def __init__(self, link: str | Link = "logistic", S: float = 1.0, kappa: float | None = None,
                 delta: float = 0.02, lam: float | None = None, R: float = 0.5, T: int | None = None,
                 variant: str = "paper"):
        super().__init__(link, S, kappa, delta, T)
        self.lam = None if lam is None else positive(self.owner, "lam", lam)
        self.R = positive(self.owner, "R", R)
        self.variant = choice(self.owner, "variant", variant, VARIANTS)
        code = "" if self.variant == "paper" else ", the released code's variant"
        self.name = f"GLOC({self.link.name}, S={self.S:g}, kappa={self.kappa:.4g}, delta={self.delta:g}{code})"

    def _begin(self, d: int) -> None:
        self._lam = self.lam if self.lam is not None else float(d)
        self._k = 1 / self.kappa
        self.V = np.broadcast_to(self._lam * np.eye(d), (self.runs, d, d)).copy()
        self.V_inv = np.broadcast_to(np.eye(d) / self._lam, (self.runs, d, d)).copy()
        self.theta = np.zeros((self.runs, d))  # the ONS iterate
        self.zx = np.zeros((self.runs, d))  # sum z_s x_s
        self.zz = np.zeros(self.runs)  # sum z_s^2
        self.B = np.full(self.runs, 2 * self._k * self.S**2 * self._lam)

    @property
    def radius_constant(self) -> float:
        """alpha's noise constant: R (Jun et al.), or the link's largest slope squared (the released code)."""
        return self.R if self.variant == "paper" else float(self.link.slope(0.0)) ** 2

    def centre_and_radius(self) -> tuple[np.ndarray, np.ndarray]:
        if self.variant == "released-code":  # the ONS iterate, and alpha alone
            return self.theta, np.sqrt(confidence_alpha(self.B, self._k, self.radius_constant, self.delta))
        centre = np.einsum("rde,re->rd", self.V_inv, self.zx)
        beta = (confidence_alpha(self.B, self._k, self.R, self.delta) + self._lam * self.S**2
                - (self.zz - np.einsum("rd,rd->r", centre, self.zx)))
        return centre, np.sqrt(np.maximum(beta, 0.0))

    def _choose(self, t: int, x: np.ndarray) -> np.ndarray:
        centre, radius = self.centre_and_radius()
        score = np.einsum("rkd,rd->rk", x, centre)
        if self.variant == "released-code":
            score = self.link.mean(score)
        return first_best(score + radius[:, None] * weighted_norms(x, self.V_inv))

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        x, r = self._x, np.asarray(rewards, dtype=float)
        z = np.einsum("rd,rd->r", x, self.theta)
        gradient = (self.link.mean(z) - r)[:, None] * x
        self.V += x[:, :, None] * x[:, None, :]
        self.V_inv = sherman_morrison(self.V_inv, x)
        self.B += 0.5 / self._k * np.einsum("rd,rde,re->r", gradient, self.V_inv, gradient)
        step = self.theta - np.einsum("rde,re->rd", self.V_inv, gradient) / self._k
        if self.variant == "released-code":  # onto the sphere, in the Euclidean norm
            self.theta = self.S * step / np.linalg.norm(step, axis=1, keepdims=True)
        else:
            self.theta = project_to_ball(self.V, step, self.S)
        self.zx += z[:, None] * x
        self.zz += z * z


def _project_one_run(V: np.ndarray, theta: np.ndarray, S: float) -> np.ndarray:
    """The V-norm projection onto {||u|| <= S} of one run, the multiplier's root by brentq."""
    if np.linalg.norm(theta) <= S:
        return theta
    eye = np.eye(len(theta))

    def excess(nu: float) -> float:
        return float(np.linalg.norm(np.linalg.solve(V + nu * eye, V @ theta))) - S

    high = 1.0
    while excess(high) > 0:
        high *= 2
    nu = optimize.brentq(excess, 0.0, high, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    return np.linalg.solve(V + nu * eye, V @ theta)


def gloc_one_run(policy: GLOC, contexts: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The plain per-run reference: one run's arms over the rounds of ``contexts`` (T, K, d) with the
    reward table ``rewards`` (T, K), inverting V afresh and projecting by a scalar root search."""
    horizon, K, d = contexts.shape
    lam = policy.lam if policy.lam is not None else float(d)
    k, S = 1 / policy.kappa, policy.S
    code = policy.variant == "released-code"
    V, theta = lam * np.eye(d), np.zeros(d)
    zx, zz, B = np.zeros(d), 0.0, 2 * k * S**2 * lam
    played = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        V_inv = np.linalg.inv(V)
        centre = theta if code else V_inv @ zx
        alpha = float(confidence_alpha(np.array(B), k, policy.radius_constant, policy.delta))
        radius = math.sqrt(alpha) if code else math.sqrt(max(alpha + lam * S**2 - (zz - centre @ zx), 0.0))
        scores = [(float(policy.link.mean(contexts[t - 1, a] @ centre)) if code else contexts[t - 1, a] @ centre)
                  + radius * math.sqrt(max(contexts[t - 1, a] @ V_inv @ contexts[t - 1, a], 0.0)) for a in range(K)]
        a_t = int(first_best(np.array(scores)[None])[0])
        played[t - 1] = a_t
        x, r = contexts[t - 1, a_t], rewards[t - 1, a_t]
        z = float(x @ theta)
        gradient = (float(policy.link.mean(z)) - r) * x
        V = V + np.outer(x, x)
        V_inv = np.linalg.inv(V)
        B += 0.5 / k * gradient @ V_inv @ gradient
        step = theta - V_inv @ gradient / k
        theta = S * step / np.linalg.norm(step) if code else _project_one_run(V, step, S)
        zx, zz = zx + z * x, zz + z * z
    return played


__all__ = ["GLOC", "VARIANTS", "confidence_alpha", "gloc_one_run", "project_to_ball"]
