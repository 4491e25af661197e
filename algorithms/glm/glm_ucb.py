"""GLM-UCB (Filippi, Cappe, Garivier, Szepesvari 2010), a non-private baseline of shuffle-glm's experiments
(Table 2, Figure 1(b)), vectorised over runs.

Round t plays

    x_t in argmax_x  mu(<x, theta_hat_{t-1}>) + rho(t) ||x||_{V_{t-1}^{-1}}

(ties to the lowest arm, :func:`dpaudit.algorithms.linear.linucb.first_best`) with V_t = lam I + sum_{s<=t} x_s x_s^T,
theta_hat_t the regularised MLE of the t observations (:mod:`.mle`, penalty (reg/2) ||theta||^2) and
Filippi et al.'s width

    rho(t) = (2 k_mu kappa_F R / c_mu) sqrt(2 d log t) sqrt(log(2 d T / delta)),
    kappa_F = sqrt(3 + 2 log(1 + 2 L_x^2 / lam_0)),

k_mu = max mu' (logistic 1/4, probit phi(0)), c_mu = 1/kappa, L_x = 1 (arms in the unit ball), R = 1 (rewards
in [0, 1]), lam_0 = lam the smallest eigenvalue of the initial design.

Choices (the paper's algorithm starts with d exploratory rounds, solves the unregularised quasi-likelihood
equation and projects onto {||theta|| <= S}; the experiments' code base does not): as the experiments' code
base, no initial exploration and no projection, V_0 = d I (lam = d) and the MLE regularised with
reg = 2 d (its penalty d ||theta||^2); the estimate is the link's MLE (probit: the binary cross-entropy of
Phi; the code base minimises it with a gradient of the canonical loss instead); rho(t) keeps the
sqrt(log t) factor for both links (the code base drops it for the logistic link); delta = 0.02 (the
experiments' delta). At round 1, rho(1) = 0 and theta_hat = 0: every arm ties and arm 0 is played.

Vectorised: V^{-1} per run (runs, d, d) by Sherman-Morrison, the MLE of every run refitted each round by
batched Newton steps warm-started from the previous estimate. :func:`glm_ucb_one_run` is the per-run
reference (inverse and MLE solved afresh each round).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpaudit.algorithms.linear.linucb import first_best
from dpaudit.core.validation import positive
from dpaudit.mechanisms.glm.glm_links import Link

from .base import GLMPolicy
from .mle import History, fit_mle, fit_mle_one_run, sherman_morrison, weighted_norms


def filippi_width(link: Link, kappa: float, lam: float, d: int, T: int, delta: float, t: Any, R: float = 1.0
                  ) -> np.ndarray:
    """rho(t) of GLM-UCB (module docstring)."""
    k_mu = float(link.slope(0.0))
    kappa_f = math.sqrt(3 + 2 * math.log(1 + 2 / lam))
    t = np.asarray(t, dtype=float)
    return 2 * k_mu * kappa_f * R * kappa * np.sqrt(2 * d * np.log(t)) * math.sqrt(math.log(2 * d * T / delta))


class GLMUCB(GLMPolicy):
    """GLM-UCB with link ``link``, ||theta*|| <= ``S``, ``kappa`` = 1/c_mu, confidence ``delta`` and design
    regulariser ``lam`` (default d), MLE regulariser ``reg`` (default 2 d) (module docstring)."""

    owner: ClassVar[str] = "GLMUCB"
    source: ClassVar[str] = "Sec. 8 baseline GLM-UCB (Filippi et al. 2010)"

    def __init__(self, link: str | Link = "logistic", S: float = 1.0, kappa: float | None = None,
                 delta: float = 0.02, lam: float | None = None, reg: float | None = None, T: int | None = None):
        super().__init__(link, S, kappa, delta, T)
        self.lam = None if lam is None else positive(self.owner, "lam", lam)
        self.reg = None if reg is None else positive(self.owner, "reg", reg)
        self.name = f"GLM-UCB({self.link.name}, S={self.S:g}, kappa={self.kappa:.4g}, delta={self.delta:g})"

    def parameters(self, d: int) -> tuple[float, float]:
        """(lam, reg) at dimension d."""
        return (self.lam if self.lam is not None else float(d)), (self.reg if self.reg is not None else 2.0 * d)

    def _begin(self, d: int) -> None:
        lam, self._reg = self.parameters(d)
        self._lam = lam
        self.V_inv = np.broadcast_to(np.eye(d) / lam, (self.runs, d, d)).copy()
        self.theta = np.zeros((self.runs, d))
        self.history = History(self.runs, d)

    def _choose(self, t: int, x: np.ndarray) -> np.ndarray:
        rho = filippi_width(self.link, self.kappa, self._lam, self._d, self._T, self.delta, t)
        scores = self.link.mean(np.einsum("rkd,rd->rk", x, self.theta)) + rho * weighted_norms(x, self.V_inv)
        return first_best(scores)

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        self.history.add(self._x, np.asarray(rewards, dtype=float))
        self.V_inv = sherman_morrison(self.V_inv, self._x)
        self.theta = fit_mle(self.link, self.history.contexts, self.history.rewards, None, self.theta, self._reg).theta


def glm_ucb_one_run(policy: GLMUCB, contexts: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The plain per-run reference: one run's arms over the rounds of ``contexts`` (T, K, d) with the
    reward table ``rewards`` (T, K), inverting V and solving the MLE afresh every round (horizon T = the
    policy's ``T`` or len(contexts))."""
    horizon, K, d = contexts.shape
    T = policy.T if policy.T is not None else horizon
    lam, reg = policy.parameters(d)
    V = lam * np.eye(d)
    xs, rs = np.zeros((0, d)), np.zeros(0)
    played = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        theta = fit_mle_one_run(policy.link, xs, rs, reg)
        V_inv = np.linalg.inv(V)
        rho = float(filippi_width(policy.link, policy.kappa, lam, d, T, policy.delta, t))
        scores = [float(policy.link.mean(contexts[t - 1, a] @ theta))
                  + rho * math.sqrt(max(contexts[t - 1, a] @ V_inv @ contexts[t - 1, a], 0.0)) for a in range(K)]
        a_t = int(first_best(np.array(scores)[None])[0])
        played[t - 1] = a_t
        x = contexts[t - 1, a_t]
        V = V + np.outer(x, x)
        xs, rs = np.vstack([xs, x]), np.append(rs, rewards[t - 1, a_t])
    return played


__all__ = ["GLMUCB", "filippi_width", "glm_ucb_one_run"]
