"""shuffle-glm: the parameters of Algorithms 1 and 2 from the printed formulas, and the P_GD calls and
released views built from them.

- Algorithm 1 (:func:`algorithm1_lambdas`, eqs. (8), (10), (15); :func:`algorithm1_optimizer`, the P_GD
  call of lines 8 and 21 with its regularised logistic loss);
- Algorithm 2 (:func:`algorithm2_parameters`, eqs. (19), (21) and "Optimizer and loss details";
  :func:`criterion_two_optimizer`, line 12's P_GD call on the criterion-II ellipsoid;
  :func:`criterion_two_user_view`, the exact-law view of one criterion-II user, Lemma I.7 and
  Theorem 6.2).

Every choice where the paper is silent is stated in the function's docstring. The mechanisms these
build (:class:`~dpaudit.mechanisms.glm.private_gd.PrivateGD`, the views in
:mod:`dpaudit.mechanisms.glm.pgd_views`) are releases; what is here is the algorithms' side: which call
is made, with which budget and loss.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.core.validation import integer, positive, probability
from dpaudit.mechanisms.glm.exploration_set import SymmetricGaussianTree, node_noise_sigma
from dpaudit.mechanisms.glm.geometry import Ellipsoid
from dpaudit.mechanisms.glm.glm_links import logistic_gradient
from dpaudit.mechanisms.glm.pgd_views import CriterionTwoUserView, FirstIterationView
from dpaudit.mechanisms.glm.private_gd import PrivateGD
from dpaudit.mechanisms.shuffle.vector_summation import summation_parameters


def algorithm1_lambdas(epsilon: float, delta: float, d: int, n: int, T: int, kappa_star: float, R: float = 1.0
                       ) -> tuple[float, float, float]:
    """(sigma, lambda, lambda_max) of Algorithm 1, eqs. (8), (10), (15), M = ceil(log2 log2 T):
        lambda     = 20 d R log T + sigma 6 sqrt(log(2 d M T / delta))                       (8)
        lambda_max = lambda + (8 R log(d^2/delta) / (kappa* eps)) (sqrt d + 6 sqrt(log(2 M T / delta)))  (15)
    sigma is printed as O(R log(d^2/delta) / (kappa* eps)); choice (spec): the standard deviation of one
    P_2 output entry at (eps/2, delta/2) with Delta = 1/kappa* on a batch of n, at its largest
    (rounding variance n/4): (Delta/g) sqrt(n/4 + n b p (1 - p))."""
    owner = "algorithm1_lambdas"
    if not 0 < epsilon < 5 or not 0 < delta < 0.5:
        raise ValueError(f"{owner}: Theorem 5.1 covers eps in (0, 5) and delta in (0, 1/2), got eps={epsilon!r}, "
                         f"delta={delta!r}")
    T = integer(owner, "T", T, 3)
    M = math.ceil(math.log2(math.log2(T)))
    g, b, p = summation_parameters(epsilon / 2, delta / 2, d, n, "algorithm1_lambdas")
    sigma = (1 / kappa_star) / g * math.sqrt(n / 4 + n * b * p * (1 - p))
    lam = 20 * d * R * math.log(T) + sigma * 6 * math.sqrt(math.log(2 * d * M * T / delta))
    width = 8 * R * math.log(d**2 / delta) / (kappa_star * epsilon)
    lam_max = lam + width * (math.sqrt(d) + 6 * math.sqrt(math.log(2 * M * T / delta)))
    return sigma, lam, lam_max


def algorithm1_optimizer(epsilon: float, delta: float, d: int, n: int, T: int, kappa_star: float,
                         R: float = 1.0, S: float = 1.0) -> tuple[PrivateGD, Callable[[np.ndarray, Any], np.ndarray]]:
    """Algorithm 1 lines 8 / 21: P_GD on a batch of n at (eps/2, delta/2), loss l + (lambda_max/(2 n))||theta||^2
    (logistic) on {||theta|| <= S}, eta = 2S/(R S sqrt(T_it)), L = R S + S + S lambda_max / n (D.2's value,
    stated for this regularised loss). Returns (P_GD, per-point gradient)."""
    _, _, lam_max = algorithm1_lambdas(epsilon, delta, d, n, T, kappa_star, R)
    lipschitz = R * S + S + S * lam_max / n
    pgd = PrivateGD(epsilon / 2, delta / 2, n, d, lipschitz, radius=S, step="alg1", reward_bound=R)
    return pgd, logistic_gradient(regularisation=lam_max / n)


@dataclass(frozen=True)
class Algorithm2Parameters:
    """Algorithm 2's parameters (eqs. (19), (21) and "Optimizer and loss details"); see
    :func:`algorithm2_parameters`."""

    epsilon: float
    delta: float
    T: int
    zeta: float
    d: int
    R: float
    S: float
    kappa: float
    kappa_star: float
    lam: float
    lam_min: float
    lam_max: float
    gamma: float
    count1_cutoff: int
    count2_cutoff: int
    explore_budget: tuple[float, float]
    switch_budget: tuple[float, float]


def algorithm2_parameters(epsilon: float, delta: float, T: int, zeta: float, d: int, R: float, S: float,
                          kappa: float, kappa_star: float, c: float = 1.0) -> Algorithm2Parameters:
    """Algorithm 2's parameters as printed:
        lambda  = 64 (4 sqrt d + 1) log(32/delta) log T (log(16 T/zeta) + sqrt d) / (eps kappa*)      (19)
        gamma   = c R^5 S^4 d log^2(T d/zeta) log(32/delta) / (min(eps, 1) kappa*^2)                   (21)
        lambda_min = 4 sqrt d lambda / (4 sqrt d + 1),  lambda_max = (4 sqrt d + 2) lambda / (4 sqrt d + 1)
        count1_cutoff = 8 d R^2 kappa gamma^2 log T
        count2_cutoff = log2(lambda_max/lambda_min + (T / kappa*^2) / (lambda_min d))
        (eps_o, delta_o)     = (eps / (6 sqrt(2 count1_cutoff log(4/delta))), delta / (6 count1_cutoff))
        (eps_tau, delta_tau) = (eps / (6 sqrt(2 count2_cutoff log(4/delta))), delta / (6 count2_cutoff))
    Choices: c = 1 (an unspecified universal constant); the cutoffs count optimizer calls, so they are
    rounded up to integers >= 1 (count2_cutoff as printed is below 1 unless T >~ kappa*^2 lambda_min d:
    log2 of about 1 + 1/(2 sqrt d)), and the budgets use the rounded cutoffs. Theorem 6.2 needs
    delta > zeta."""
    owner = "algorithm2_parameters"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = probability(owner, "delta", delta)
    zeta = probability(owner, "zeta", zeta)
    if not delta > zeta:
        raise ValueError(f"{owner}: zeta must be < delta (Theorem 6.2 / Lemma I.7 need delta > zeta), got "
                         f"zeta={zeta!r}, delta={delta!r}")
    T = integer(owner, "T", T, 2)
    d = integer(owner, "d", d, 1)
    R, S = positive(owner, "R", R), positive(owner, "S", S)
    kappa, kappa_star = positive(owner, "kappa", kappa), positive(owner, "kappa_star", kappa_star)
    root = math.sqrt(d)
    log32 = math.log(32 / delta)
    lam = 64 * (4 * root + 1) * log32 * math.log(T) * (math.log(16 * T / zeta) + root) / (epsilon * kappa_star)
    gamma = c * R**5 * S**4 * d * math.log(T * d / zeta) ** 2 * log32 / (min(epsilon, 1.0) * kappa_star**2)
    lam_min, lam_max = lam * 4 * root / (4 * root + 1), lam * (4 * root + 2) / (4 * root + 1)
    count1 = max(1, math.ceil(8 * d * R**2 * kappa * gamma**2 * math.log(T)))
    count2 = max(1, math.ceil(math.log2(lam_max / lam_min + (T / kappa_star**2) / (lam_min * d))))

    def split(cutoff: int) -> tuple[float, float]:
        return epsilon / (6 * math.sqrt(2 * cutoff * math.log(4 / delta))), delta / (6 * cutoff)

    return Algorithm2Parameters(epsilon, delta, T, zeta, d, R, S, kappa, kappa_star, lam, lam_min, lam_max, gamma,
                                count1, count2, split(count1), split(count2))


def criterion_two_optimizer(params: Algorithm2Parameters, n: int, theta_o: Any, V: Any
                            ) -> tuple[PrivateGD, Callable[[np.ndarray, Any], np.ndarray]]:
    """Algorithm 2 line 12: theta_tau by P_GD on the n = t - 1 - |T_o| criterion-II rounds so far, loss
    l + (lambda_max/(2 n))||theta||^2 (logistic), Theta = {||theta - theta_o||_V <= gamma sqrt(kappa)},
    budget (eps_tau, delta_tau), Algorithm 7's eta = 2D/(L sqrt(T_it)). The paper gives no Lipschitz
    constant for this call; choice: L = R + lambda_max max_{Theta} ||theta|| / n, bounded through
    ||theta|| <= ||theta_o|| + gamma sqrt(kappa) / sqrt(lambda_min(V)) (|mu - r| <= R for r in [0, R]).
    Returns (P_GD, per-point gradient)."""
    domain = Ellipsoid(theta_o, V, params.gamma * math.sqrt(params.kappa))
    n = integer("criterion_two_optimizer", "n", n, 1)
    lipschitz = params.R + params.lam_max * domain.max_norm / n
    eps_tau, delta_tau = params.switch_budget
    pgd = PrivateGD(eps_tau, delta_tau, n, params.d, lipschitz, domain=domain, step="alg7")
    return pgd, logistic_gradient(regularisation=params.lam_max / n)


def criterion_two_user_view(params: Algorithm2Parameters, rounds: Any, theta_o: Any, V: Any) -> CriterionTwoUserView:
    """:class:`CriterionTwoUserView` at Algorithm 2's printed parameters: B_H with sigma_noise of Lemma I.4
    (sqrt(36 m log^2(32/delta) / (kappa*^2 eps^2)), m = ceil(log2 T + 1)) and the line-12 call of
    :func:`criterion_two_optimizer` on the n = len(rounds) criterion-II records, Theta around theta_o in V."""
    sigma = node_noise_sigma(params.T, params.epsilon, params.delta, params.kappa_star)
    pgd, gradient = criterion_two_optimizer(params, len(np.atleast_1d(rounds)), theta_o, V)
    tree = SymmetricGaussianTree(params.T, params.d, sigma)
    return CriterionTwoUserView(tree, FirstIterationView(pgd, gradient), rounds)


__all__ = ["Algorithm2Parameters", "algorithm1_lambdas", "algorithm1_optimizer", "algorithm2_parameters",
           "criterion_two_optimizer", "criterion_two_user_view"]
