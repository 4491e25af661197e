"""The regularised maximum-likelihood estimate of a GLM bandit, batched over runs, and what the GLM
algorithms share around it (the observation history, the checks on the contexts).

    theta_hat = argmin_theta  sum_s w_s loss(<x_s, theta>, r_s) + (reg / 2) ||theta||^2

with ``loss`` the link's negative log-likelihood (:class:`dpaudit.mechanisms.glm.glm_links.Link`: logistic's
canonical loss, probit's binary cross-entropy of Phi) and weights w_s in {0, 1} selecting which of a run's
observations enter (RS-GLinUCB fits two disjoint sets of rounds). The objective is strictly convex
(reg > 0), so the minimiser is unique and the batched and the per-run solver must agree on it.

:func:`fit_mle` solves it for all runs at once with damped Newton steps: gradient (runs, d) and Hessian
(runs, d, d) from one batched pass over the (runs, n, d) history (batched BLAS products), a batched solve,
the step halved for the runs whose objective did not decrease (at most 30 halvings; checked only while the
decrement g^T H^-1 g exceeds 1e-2, since near the optimum a full step decreases a smooth convex loss),
warm-started from the previous estimate. A run stops after a full Newton step below sqrt(tol) in every
coordinate (tol = 1e-10 by default): Newton converges quadratically, so the error after that step is of
order tol times a bound on the loss's third derivative over its curvature, moderate for ||x|| <= 1 (the
tests hold the result to scipy's minimiser within 1e-9); or after any step below tol. The loop stops when
every run has, or after ``max_iter`` = 50 steps (a run that has not converged then is reported in
``MLEResult.converged``). From a warm start one or two steps suffice. With numba installed (the ``fast`` extra)
each step's gradient and Hessian come from a compiled pass over the history (:mod:`.compiled`; logistic, and
probit on rewards in {0, 1}), read in place; the same sums to rounding, 1.6 times as fast on GLM-UCB, whose
refit on the whole history every round is its cost.

:func:`fit_mle_one_run` is the per-run reference: scipy.optimize.minimize (trust-exact, exact gradient and
Hessian) from zero, then scipy.optimize.root on the gradient from there, solving afresh.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from dpaudit.mechanisms.glm.glm_links import LINKS, Link

try:  # the compiled pass over the history (an optional dependency: pip install dpaudit[fast])
    from .compiled import newton_terms
except ImportError:  # numba missing: the numpy pass
    newton_terms = None
#: whether :func:`fit_mle` runs its compiled pass (numba is installed)
AVAILABLE = newton_terms is not None

MLE_TOLERANCE = 1e-10
MLE_MAX_ITERATIONS = 50
_HALVINGS = 30
_FULL_STEP_DECREMENT = 1e-2


@dataclass
class MLEResult:
    theta: np.ndarray  # (runs, d)
    iterations: int
    converged: np.ndarray  # (runs,) bool


def _objective(link: Link, z: np.ndarray, rewards: np.ndarray, weights: np.ndarray, theta: np.ndarray,
               reg: float) -> np.ndarray:
    return (weights * link.loss(z, rewards)).sum(axis=-1) + 0.5 * reg * np.einsum("rd,rd->r", theta, theta)


def fit_mle(link: Link, contexts: np.ndarray, rewards: np.ndarray, weights: np.ndarray | None, theta0: np.ndarray,
            reg: float, tol: float = MLE_TOLERANCE, max_iter: int = MLE_MAX_ITERATIONS) -> MLEResult:
    """The regularised MLE of every run (module docstring): ``contexts`` (runs, n, d), ``rewards`` (runs, n),
    ``weights`` (runs, n) or None (all ones), warm start ``theta0`` (runs, d), ``reg`` > 0."""
    theta = np.array(theta0, dtype=float, copy=True)
    contexts, rewards = np.asarray(contexts, dtype=float), np.asarray(rewards, dtype=float)
    weights = None if weights is None else np.asarray(weights, dtype=float)
    runs, d = theta.shape
    converged = np.zeros(runs, dtype=bool)
    if contexts.shape[1] == 0:  # no data: the minimiser of the regulariser alone
        return MLEResult(np.zeros_like(theta), 0, np.ones(runs, dtype=bool))
    eye = np.eye(d)
    compiled = _compiled_link(link, rewards)
    active = np.arange(runs)
    iterations = 0
    while active.size and iterations < max_iter:
        iterations += 1
        th = theta[active]
        if compiled is None:
            X, r = contexts[active], rewards[active]
            w = np.ones(r.shape) if weights is None else weights[active]
            z = (X @ th[..., None])[..., 0]
            slope, curvature = link.loss_derivatives(z, r)
            gradient = ((w * slope)[:, None, :] @ X)[:, 0] + reg * th
            hessian = (X * (w * curvature)[..., None]).transpose(0, 2, 1) @ X + reg * eye  # batched BLAS
        else:
            z = None  # computed below for the runs that need the objective
            gradient, hessian = np.empty((active.size, d)), np.empty((active.size, d, d))
            newton_terms(contexts, rewards, np.ones((runs, 0)) if weights is None else weights, th, active,
                         compiled, gradient, hessian)
            gradient += reg * th
            hessian += reg * eye
        step = np.linalg.solve(hessian, gradient[..., None])[..., 0]
        decrement = np.einsum("rd,rd->r", gradient, step)
        # damped step: halve where the objective does not decrease; only where the Newton decrement is not
        # small (far from the optimum, early rounds), as near it the full step decreases a smooth convex loss
        scale = np.ones(len(active))
        candidate = th - step
        far = np.flatnonzero(decrement > _FULL_STEP_DECREMENT)
        if far.size:
            Xf, rf = contexts[active[far]], rewards[active[far]]
            wf = np.ones(rf.shape) if weights is None else weights[active[far]]
            zf = (Xf @ th[far][..., None])[..., 0] if z is None else z[far]
            current = _objective(link, zf, rf, wf, th[far], reg)
            for _ in range(_HALVINGS):
                trial = candidate[far]
                value = _objective(link, (Xf @ trial[..., None])[..., 0], rf, wf, trial, reg)
                worse = far[value > current + 1e-12 * np.abs(current)]
                if worse.size == 0:
                    break
                scale[worse] *= 0.5
                candidate[worse] = th[worse] - scale[worse, None] * step[worse]
        theta[active] = candidate
        size = np.abs(scale[:, None] * step).max(axis=1)
        done = (size <= tol) | ((scale == 1) & (size <= np.sqrt(tol)))
        converged[active[done]] = True
        active = active[~done]
    return MLEResult(theta, iterations, converged)


def compiled_link(link: Link) -> bool:
    """Whether the compiled kernels know ``link``: numba is installed and it is the registered logistic or probit
    link (one named so with other functions is not)."""
    return AVAILABLE and link.name in ("probit", "logistic") and LINKS[link.name] == link


def _compiled_link(link: Link, rewards: np.ndarray) -> bool | None:
    """Whether the compiled pass runs the probit (True) or the logistic (False) link; None for the numpy pass
    (numba missing, another link, or probit rewards outside {0, 1}, which take the link's general derivatives)."""
    if not compiled_link(link):
        return None
    if link.name == "probit":
        return True if np.all((rewards == 0) | (rewards == 1)) else None
    return False


def fit_mle_one_run(link: Link, contexts: np.ndarray, rewards: np.ndarray, reg: float) -> np.ndarray:
    """The per-run reference: one run's regularised MLE on ``contexts`` (n, d), ``rewards`` (n,), solved
    afresh from zero by scipy's trust-region method with the exact gradient and Hessian."""
    d = contexts.shape[1]
    if contexts.shape[0] == 0:
        return np.zeros(d)

    def value(theta: np.ndarray) -> float:
        return float(np.sum(link.loss(contexts @ theta, rewards)) + 0.5 * reg * theta @ theta)

    def gradient(theta: np.ndarray) -> np.ndarray:
        return contexts.T @ link.loss_slope(contexts @ theta, rewards) + reg * theta

    def hessian(theta: np.ndarray) -> np.ndarray:
        return (contexts.T * link.loss_curvature(contexts @ theta, rewards)) @ contexts + reg * np.eye(d)

    res = optimize.minimize(value, np.zeros(d), jac=gradient, hess=hessian, method="trust-exact",
                            options={"gtol": 1e-11})
    # trust-exact may stop with a gradient near 1e-7; the first-order condition polishes it to rounding
    return optimize.root(gradient, res.x, jac=hessian, method="hybr", tol=1e-14).x


class History:
    """Every run's observations (x_s, r_s), s = 1..n (all runs observe once per round, so n is common),
    in arrays (runs, capacity, d) that double when full: ``contexts`` and ``rewards`` are views of the
    first n."""

    def __init__(self, runs: int, d: int, capacity: int = 256):
        self._x = np.zeros((runs, capacity, d))
        self._r = np.zeros((runs, capacity))
        self.n = 0

    def add(self, x: np.ndarray, r: np.ndarray) -> None:
        self.reserve(1)
        self._x[:, self.n] = x
        self._r[:, self.n] = r
        self.n += 1

    def reserve(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Room for ``count`` more observations; the whole (runs, capacity, d) and (runs, capacity) arrays, for a
        compiled loop that writes rows n, n + 1, .. in place (and sets ``n`` after)."""
        while self.n + count > self._x.shape[1]:
            self._x = np.concatenate([self._x, np.zeros_like(self._x)], axis=1)
            self._r = np.concatenate([self._r, np.zeros_like(self._r)], axis=1)
        return self._x, self._r

    @property
    def contexts(self) -> np.ndarray:
        return self._x[:, : self.n]

    @property
    def rewards(self) -> np.ndarray:
        return self._r[:, : self.n]


def weighted_norms(x: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    """||x_{r,k}||_{M_r} for contexts (runs, K, d) and matrices (runs, d, d), shape (runs, K)."""
    return np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", x @ inverse, x), 0.0))


def sherman_morrison(inverse: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(M + x x^T)^{-1} from M^{-1} (runs, d, d) and x (runs, d), batched."""
    mx = np.einsum("rde,re->rd", inverse, x)
    return inverse - mx[:, :, None] * mx[:, None, :] / (1 + np.einsum("rd,rd->r", x, mx))[:, None, None]


__all__ = ["History", "MLEResult", "MLE_MAX_ITERATIONS", "MLE_TOLERANCE", "compiled_link", "fit_mle",
           "fit_mle_one_run", "sherman_morrison", "weighted_norms"]
