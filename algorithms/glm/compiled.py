"""The GLM maximum-likelihood fit's pass over the history compiled (numba): the gradient and Hessian of one
Newton step of :func:`~dpaudit.algorithms.glm.mle.fit_mle`,

    g = sum_s w_s loss'(z_s, r_s) x_s,    H = sum_s w_s loss''(z_s, r_s) x_s x_s^T,    z_s = <x_s, theta>,

for every active run (the regulariser is added by the caller). GLM-UCB refits on its whole history every
round, so this pass is its cost: T^2 / 2 points per run and Newton step. The numpy pass copies each run's
history (fancy indexing of the active runs), evaluates the link on all of it and reduces it in batched products;
here each run's history is read once, in place, with the link evaluated point by point.

The links (:mod:`dpaudit.mechanisms.glm.glm_links`):

- logistic: loss' = mu(z) - r, loss'' = mu(z)(1 - mu(z)), mu(z) = (1 + tanh(z / 2)) / 2 as the numpy link;
- probit with rewards in {0, 1}: with s = 2r - 1 and u = s z, loss' = -s h(u), loss'' = h(u)(u + h(u)),
  h = phi / Phi the inverse Mills ratio; Phi(u) = erfc(-u / sqrt 2) / 2, and below u = -30 (where Phi nears
  underflow) h(u) = 1 / m(-u) with m the upper-tail Mills ratio from its continued fraction
  m(x) = 1 / (x + 1 / (x + 2 / (x + 3 / (x + ...)))), whose 60 terms are exact to rounding for x >= 30.

The arithmetic is the numpy pass's in another order and with libm's erfc for scipy's ndtr: the two agree to
rounding (tests/test_glm_compiled.py: 1e-12 relative), so a fit agrees to rounding and a bandit's decisions
agree except where two arms' indices tie to rounding (held decision for decision on seeded runs).

Import this module only when numba is installed (:data:`AVAILABLE` in :mod:`~dpaudit.algorithms.glm.mle`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT_2 = math.sqrt(2.0)
_DEEP = -30.0  # the numpy link's switch to logs
_FRACTION_TERMS = 60


@numba.njit(cache=True, nogil=True)
def inverse_mills(u: float) -> float:
    """h(u) = phi(u) / Phi(u) (module docstring)."""
    if u >= _DEEP:
        return math.exp(-0.5 * u * u - _LOG_SQRT_2PI) / (0.5 * math.erfc(-u / _SQRT_2))
    x = -u
    fraction = x
    for k in range(_FRACTION_TERMS, 0, -1):  # m(x) = 1 / (x + 1 / (x + 2 / (x + ...))), from the tail in
        fraction = x + k / fraction
    return fraction  # 1 / m(x)


@numba.njit(cache=True, nogil=True)
def newton_terms(X: np.ndarray, r: np.ndarray, w: np.ndarray, theta: np.ndarray, rows: np.ndarray, probit: bool,
                 gradient: np.ndarray, hessian: np.ndarray) -> None:
    """Fill ``gradient`` (k, d) and ``hessian`` (k, d, d) for the runs ``rows`` (k,) of the history ``X`` (runs,
    n, d), ``r`` (runs, n), weights ``w`` (runs, n; an empty second axis: every weight 1), at ``theta`` (k, d);
    ``probit``: the probit link (rewards in {0, 1}), else the logistic. Per run: z, then the weighted loss'
    and loss'' per point, then each sum over the points in a register (the link's libm calls are most of the
    cost: about 20 of the 25 ns a point takes)."""
    n, d = X.shape[1], X.shape[2]
    weighted = w.shape[1] > 0
    z, slope, curvature = np.empty(n), np.empty(n), np.empty(n)
    for k in range(rows.shape[0]):
        run = rows[k]
        Xr = X[run]
        for s in range(n):
            total = 0.0
            for i in range(d):
                total += Xr[s, i] * theta[k, i]
            z[s] = total
        for s in range(n):
            weight = w[run, s] if weighted else 1.0
            if probit:
                sign = 2.0 * r[run, s] - 1.0
                u = sign * z[s]
                h = inverse_mills(u)
                slope[s] = -sign * h * weight
                curvature[s] = h * (u + h) * weight
            else:
                mu = 0.5 * (1.0 + math.tanh(0.5 * z[s]))
                slope[s] = (mu - r[run, s]) * weight
                curvature[s] = mu * (1.0 - mu) * weight
        for i in range(d):
            total = 0.0
            for s in range(n):
                total += slope[s] * Xr[s, i]
            gradient[k, i] = total
            for j in range(i + 1):
                total = 0.0
                for s in range(n):
                    total += curvature[s] * Xr[s, i] * Xr[s, j]
                hessian[k, i, j] = total
                hessian[k, j, i] = total


__all__ = ["inverse_mills", "newton_terms"]
