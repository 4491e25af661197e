"""The G-optimal design pi^G(X) of a finite arm set (shuffle-glm Lemma 4.3; Kiefer-Wolfowitz), the sampling
policy of Algorithm 1: a distribution pi on the arms with max_x x^T (ridge I + sum_y pi(y) y y^T)^-1 x <= 2d
(Lemma 4.3's computable bound; the optimum is d).

Frank-Wolfe / Fedorov-Wynn, vectorised over runs: start from the uniform design on the allowed arms; while
the largest g(x) = x^T A(pi)^-1 x exceeds ``bound`` (default 2d, the spec's stopping rule), move pi towards
the arm with the largest g by the step (g_max/d - 1)/(g_max - 1) (the exact line search of the D-optimal
design, whose optimum is the G-optimal one by Kiefer-Wolfowitz); at most ``max_iterations`` steps. ridge =
1e-8. Arm sets spanning fewer than d dimensions have g <= rank < d, so they stop at once. Returns pi and the
iterations each run took. :func:`g_optimal_design_one_run` is the plain per-run version (the reference).

:func:`sample_design` draws one arm per run from pi by inverse cdf with given uniforms (so that a reference
replaying the uniforms draws the same arm).
"""

from __future__ import annotations

import numpy as np

RIDGE = 1e-8
MAX_ITERATIONS = 200


def g_optimal_design(arms: np.ndarray, allowed: np.ndarray, bound: float | None = None,
                     max_iterations: int = MAX_ITERATIONS) -> tuple[np.ndarray, np.ndarray]:
    """pi (runs, K) on the allowed arms (runs, K) of ``arms`` (runs, K, d), and the iterations (runs,)."""
    runs, K, d = arms.shape
    bound = 2.0 * d if bound is None else float(bound)
    pi = allowed / allowed.sum(axis=1, keepdims=True)
    iterations = np.zeros(runs, dtype=np.int64)
    outer = arms[:, :, :, None] * arms[:, :, None, :]
    for _ in range(max_iterations):
        A = np.einsum("rk,rkij->rij", pi, outer) + RIDGE * np.eye(d)
        g = np.where(allowed, np.einsum("rki,rij,rkj->rk", arms, np.linalg.inv(A), arms), -np.inf)
        best = np.argmax(g, axis=1)
        g_max = g[np.arange(runs), best]
        active = g_max > bound
        if not active.any():
            break
        step = np.where(active, (g_max / d - 1) / (g_max - 1), 0.0)
        pi *= (1 - step)[:, None]
        pi[np.arange(runs), best] += step
        iterations += active
    return pi, iterations


def g_optimal_design_one_run(arms: np.ndarray, allowed: np.ndarray, bound: float | None = None,
                             max_iterations: int = MAX_ITERATIONS) -> np.ndarray:
    """The same iteration for one run, plain numpy: arms (K, d), allowed (K,) -> pi (K,)."""
    K, d = arms.shape
    bound = 2.0 * d if bound is None else float(bound)
    pi = allowed / allowed.sum()
    for _ in range(max_iterations):
        A = sum(pi[k] * np.outer(arms[k], arms[k]) for k in range(K)) + RIDGE * np.eye(d)
        A_inv = np.linalg.inv(A)
        g = np.array([arms[k] @ A_inv @ arms[k] if allowed[k] else -np.inf for k in range(K)])
        best = int(np.argmax(g))
        if not g[best] > bound:
            break
        step = (g[best] / d - 1) / (g[best] - 1)
        pi = (1 - step) * pi
        pi[best] += step
    return pi


def sample_design(pi: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """One arm per row of pi (..., K) by inverse cdf with the uniforms (...,): the first arm whose cumulative
    probability exceeds u (zero-probability arms are never drawn)."""
    cumulative = np.cumsum(pi, axis=-1)
    # u < 1: the last cumulative value exceeds u times it; a zero-probability arm never first exceeds it
    return np.argmax(cumulative > uniforms[..., None] * cumulative[..., -1:], axis=-1)


__all__ = ["MAX_ITERATIONS", "RIDGE", "g_optimal_design", "g_optimal_design_one_run", "sample_design"]
