"""The distributional optimal design (Ruan, Yang, Zhou 2021; the design shuffle-glm's Remark 4.4 says it gives up)
against the per-set G-optimal design Algorithm 1 uses, on a finite distribution of context sets.

A policy pi maps each context set X to a distribution pi(X) on X. With context sets X_1..X_n (arrays (n, K, d),
arms padded by an ``allowed`` mask) drawn with probabilities p_i, its expected design matrix is
    W(pi) = sum_i p_i sum_k pi_ik x_ik x_ik^T,
and the quantity the regret analysis pays for (Appendix H, Claim 2; Lemma E.11's (35) and (39)) is
    Q(pi) = E_X max_{x in X} ||x||^2_{W(pi)^-1} = sum_i p_i max_k x_ik^T W(pi)^-1 x_ik.

- The distributional design (:func:`distributional_design`) is here the policy maximising log det W(pi) over
  all policies (a product of simplices). The choice, where neither the paper nor the spec states the design:
  its optimality conditions give Q = d exactly, the distributional analogue of Kiefer-Wolfowitz (Lemma 4.3):
  the gradient of log det W in pi_ik is p_i g_ik, g_ik = x_ik^T W^-1 x_ik, so at the optimum every arm of set i
  has g_ik <= lambda_i with equality on the support of pi_i, and sum_i p_i lambda_i = sum_i p_i sum_k pi_ik g_ik
  = tr(W^-1 W) = d. For every policy Q(pi) >= sum_i p_i sum_k pi_ik g_ik = d, so d is the minimum of Q and the
  gap Q(pi) - d is the duality gap of log det W (a certificate: Q(pi) <= d (1 + tol) at the stop). Ruan et al.
  learn such a policy from samples of D; on a finite distribution (the empirical one of a sample, or a
  hand-built one) it is computed exactly, which is all the design quantity needs.
- The G-optimal alternative (:func:`per_set_g_optimal_policy`): Kiefer-Wolfowitz on each set alone, pi_i
  maximising log det sum_k pi_ik x_ik x_ik^T, so max_k x_ik^T W_i^-1 x_ik <= d (1 + tol); Claim 2's bound
  Q(pi_G) <= d^2 follows from x x^T <= d W_i for x in X_i: Q <= d sum_i p_i tr(W^-1 W_i) = d^2.

Both are computed by the multiplicative algorithm (Titterington; Silvey, Titterington, Torsney 1978) applied
blockwise: pi_ik <- pi_ik g_ik / sum_l pi_il g_il, which keeps each pi_i on its simplex, vectorised over sets;
it stops when Q <= d (1 + tol) (distributional) or when every set's max g <= d (1 + tol) (G-optimal), at most
``max_iterations`` steps. No ridge (unlike :mod:`.design`'s 1e-8): the certificate is about W itself, and a
ridge of 1e-8 moves g by up to 1e-4 relative on ill-conditioned sets; so the G-optimal solver needs each set to
span R^d, the distributional one the sets jointly (a singular W raises numpy's LinAlgError).
"""

from __future__ import annotations

import numpy as np

TOLERANCE = 1e-6
MAX_ITERATIONS = 20000


def _masked(sets: np.ndarray, allowed: np.ndarray | None) -> np.ndarray:
    return np.ones(sets.shape[:2], dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)


def _probabilities(n: int, probabilities: np.ndarray | None) -> np.ndarray:
    p = np.full(n, 1.0 / n) if probabilities is None else np.asarray(probabilities, dtype=float)
    if p.shape != (n,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError("probabilities must be a distribution on the sets")
    return p


def expected_design_matrix(sets: np.ndarray, pi: np.ndarray, probabilities: np.ndarray | None = None) -> np.ndarray:
    """W(pi) = sum_i p_i sum_k pi_ik x_ik x_ik^T for sets (n, K, d) and a policy pi (n, K)."""
    p = _probabilities(sets.shape[0], probabilities)
    return np.einsum("i,ik,ika,ikb->ab", p, pi, sets, sets)


def norms_squared(sets: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """g_ik = x_ik^T matrix^-1 x_ik, (n, K); ``matrix`` is (d, d) or one per set (n, d, d)."""
    solved = np.linalg.solve(matrix, np.swapaxes(sets, -1, -2))  # (n, d, K) or (d, K) broadcast
    return np.einsum("ika,iak->ik", sets, np.broadcast_to(solved, sets.shape[:1] + solved.shape[-2:]))


def design_value(sets: np.ndarray, pi: np.ndarray, probabilities: np.ndarray | None = None,
                 allowed: np.ndarray | None = None) -> float:
    """Q(pi) = E_X max_{x in X} ||x||^2_{W(pi)^-1} (Appendix H's quantity), X drawn with the probabilities."""
    p = _probabilities(sets.shape[0], probabilities)
    g = np.where(_masked(sets, allowed), norms_squared(sets, expected_design_matrix(sets, pi, p)), -np.inf)
    return float(p @ g.max(axis=1))


def distributional_design(sets: np.ndarray, probabilities: np.ndarray | None = None,
                          allowed: np.ndarray | None = None, tol: float = TOLERANCE,
                          max_iterations: int = MAX_ITERATIONS) -> tuple[np.ndarray, int]:
    """The log-det optimal policy pi (n, K) on the finite distribution and the iterations taken; at the stop
    Q(pi) <= d (1 + tol) unless ``max_iterations`` ran out (check with :func:`design_value`)."""
    n, _, d = sets.shape
    p = _probabilities(n, probabilities)
    mask = _masked(sets, allowed)
    pi = mask / mask.sum(axis=1, keepdims=True)
    for iteration in range(max_iterations + 1):
        g = np.where(mask, norms_squared(sets, expected_design_matrix(sets, pi, p)), 0.0)
        if p @ g.max(axis=1) <= d * (1 + tol) or iteration == max_iterations:
            return pi, iteration
        pi = pi * g
        pi /= pi.sum(axis=1, keepdims=True)
    raise AssertionError("unreachable")


def per_set_g_optimal_policy(sets: np.ndarray, allowed: np.ndarray | None = None, tol: float = TOLERANCE,
                             max_iterations: int = MAX_ITERATIONS) -> tuple[np.ndarray, int]:
    """Kiefer-Wolfowitz on each set separately (Algorithm 1's design, solved to max g <= d (1 + tol) instead
    of Lemma 4.3's computable 2d): pi (n, K) and the iterations taken."""
    n, _, d = sets.shape
    mask = _masked(sets, allowed)
    pi = mask / mask.sum(axis=1, keepdims=True)
    for iteration in range(max_iterations + 1):
        W = np.einsum("ik,ika,ikb->iab", pi, sets, sets)
        g = np.where(mask, norms_squared(sets, W), 0.0)
        if np.all(g.max(axis=1) <= d * (1 + tol)) or iteration == max_iterations:
            return pi, iteration
        pi = pi * g
        pi /= pi.sum(axis=1, keepdims=True)
    raise AssertionError("unreachable")


def spike_sets(d: int, s: float) -> np.ndarray:
    """The spike family: d equally likely sets, X_j = {e_j} u {s e_k : k != j} (K = d arms, arm j the unit one).
    Per set, Kiefer-Wolfowitz spreads pi uniformly (each arm is alone in its direction), so W(pi_G) =
    (1 + (d - 1) s^2)/d^2 I and Q(pi_G) = d^2/(1 + (d - 1) s^2) -> d^2 as s -> 0 (Claim 2's bound is tight);
    the distributional design plays e_j on X_j, W = I/d, Q = d."""
    sets = np.tile(s * np.eye(d), (d, 1, 1))
    sets[np.arange(d), np.arange(d), np.arange(d)] = 1.0
    return sets


__all__ = ["MAX_ITERATIONS", "TOLERANCE", "design_value", "distributional_design",
           "expected_design_matrix", "norms_squared", "per_set_g_optimal_policy", "spike_sets"]
