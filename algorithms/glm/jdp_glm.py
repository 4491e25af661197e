"""JDP-GLM: shuffle-glm's Algorithm 2 with the parameters of Section 6 (eqs. (19)-(21), c = C = 1) and the
shuffle-private gradient descent P_GD (Algorithm 7) as its optimizer, as printed.

    lambda, gamma, lambda_min/max, count1/2_cutoff, (eps_o, delta_o), (eps_tau, delta_tau):
        :func:`~.parameters.algorithm2_parameters` (eqs. (19), (21), "Optimizer and loss details")
    beta      = C R S sqrt(d) log(T/zeta) log(1/delta) / sqrt(eps kappa*)                      (20)
    threshold = 1 / (gamma^2 kappa R^2)                                              (Algorithm 2, line 4)
    trees     : node noise sigma_noise of Lemma I.4 (:func:`~dpaudit.mechanisms.glm.exploration_set.node_noise_sigma`)
    line 8    : P_GD on T_o's points, loss l + (lambda_max / (2 |T_o|)) ||theta||^2, Theta = {||theta|| <= S},
                budget (eps_o, delta_o), Algorithm 7's eta = 2D / (L sqrt(T_it))
    line 12   : :func:`~.parameters.criterion_two_optimizer` (Theta = {||theta - theta_o||_V <= gamma sqrt(kappa)},
                budget (eps_tau, delta_tau))

Choices where the paper is silent: the loss is the paper's -r <x, theta> + int_0^<x, theta> mu (gradient
(mu - r) x, for the probit link too); the criterion-I call's Lipschitz constant is L = R + lambda_max S / n
(|mu - r| <= R, ||x|| <= 1, ||theta|| <= S), as :func:`~.parameters.criterion_two_optimizer` chooses for
line 12; kappa and kappa* default to the link's bounds for ||theta*|| <= S (1/mu'(S), 1/mu'(0)).

What the printed parameters do (a finding, kept as printed): gamma is of order 10^4 and count1_cutoff of
order 10^12 at the experiments' sizes, so the criterion-I threshold 1/(gamma^2 kappa R^2) is below every
||x||^2_{V^-1} and every round explores (regret linear in T); the per-call budget eps_o is then of order
1e-7, so P_GD has T_it = 1 iteration and its output is theta_0 = 0 whatever the data (Algorithm 7's average
of the single iterate theta_0). The policy still makes the call through :class:`PrivateGD` and takes
theta_0 from it (:meth:`PrivateGD.start`) without drawing the noisy gradient that no output depends on.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.mechanisms.glm.exploration_set import node_noise_sigma
from dpaudit.mechanisms.glm.private_gd import PrivateGD

from .algorithm2 import Algorithm2, Algorithm2Settings, cumulant_gradient
from .parameters import Algorithm2Parameters, algorithm2_parameters, criterion_two_optimizer


def criterion_one_optimizer(params: Algorithm2Parameters, n: int) -> PrivateGD:
    """Algorithm 2 line 8: P_GD on the n criterion-I points at (eps_o, delta_o), Theta = {||theta|| <= S},
    L = R + lambda_max S / n (module docstring), Algorithm 7's step."""
    eps_o, delta_o = params.explore_budget
    return PrivateGD(eps_o, delta_o, n, params.d, params.R + params.lam_max * params.S / n, radius=params.S,
                     step="alg7")


def descend(pgd: PrivateGD, gradient, data: Callable[[], Any], runs: int, rng: np.random.Generator) -> np.ndarray:
    """P_GD's output for ``runs`` runs with their own data (``data()``); with T_it = 1 the output is theta_0
    (the noisy gradient of the only iteration enters no output, so it is neither drawn nor computed)."""
    if pgd.T_it == 1:
        return pgd.start(runs)
    return pgd.run(gradient, data(), runs, rng)


class JDPGLM(Algorithm2):
    """shuffle-glm Algorithm 2 with its printed parameters (module docstring)."""

    owner = "JDPGLM"
    source = "Algorithm 2 (Sec. 6), parameters (19)-(21) with c = C = 1, optimizer P_GD (Algorithm 7)"

    def __init__(self, eps: float, delta: float, zeta: float, S: float, kappa: float | None = None,
                 kappa_star: float | None = None, link: str = "logistic", R: float = 1.0, c: float = 1.0,
                 C: float = 1.0, T: int | None = None, record: bool = False):
        super().__init__(eps, delta, zeta, S, kappa, kappa_star, link, R, T, record)
        self.c, self.C = float(c), float(C)
        if not self.delta > self.zeta:
            raise ValueError(f"{self.owner}: zeta must be < delta (Theorem 6.2 / Lemma I.7 need delta > zeta), "
                             f"got zeta={self.zeta!r}, delta={self.delta!r}")

    def settings(self, d: int, T: int) -> Algorithm2Settings:
        p = self.params = algorithm2_parameters(self.eps, self.delta, T, self.zeta, d, self.R, self.S, self.kappa,
                                                self.kappa_star, self.c)
        beta = (self.C * self.R * self.S * math.sqrt(d) * math.log(T / self.zeta) * math.log(1 / self.delta)
                / math.sqrt(self.eps * self.kappa_star))
        threshold = 1 / (p.gamma**2 * self.kappa * self.R**2)
        sigma = node_noise_sigma(T, self.eps, self.delta, self.kappa_star)  # Lemma I.4: both trees
        return Algorithm2Settings(p.lam, threshold, p.gamma * math.sqrt(self.kappa), beta, p.count1_cutoff,
                                  p.count2_cutoff, sigma, sigma)

    def fit(self, kind, n, data, start, theta_o, V, rng):
        p = self.params
        gradient = cumulant_gradient(self.link, p.lam_max / n)
        if kind == "explore":
            return descend(criterion_one_optimizer(p, n), gradient, data, len(start), rng)
        # line 12's domain is each run's own ellipsoid around its theta_o in its V: one P_GD per run (at most
        # count2_cutoff of them per run over the whole horizon)
        out = np.empty_like(start)
        for i in range(len(start)):
            pgd, _ = criterion_two_optimizer(p, n, theta_o[i], V[i])

            def one(i=i):
                rewards, contexts = data()
                return rewards[i: i + 1], contexts[i: i + 1]

            out[i] = descend(pgd, gradient, one, 1, rng)[0]
        return out


__all__ = ["JDPGLM", "criterion_one_optimizer", "descend"]
