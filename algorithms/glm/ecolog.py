"""ECOLog (Faury, Abeille, Jun, Calauzenes 2022, "Jointly efficient and optimal algorithms for logistic
bandits"), in its adaptive no-warm-up form ada-OFU-ECOLog, a non-private baseline of shuffle-glm's Figure
1(a); logistic link only, vectorised over runs.

Online estimate theta_t and its matrix W_t = lam I + sum_{s<t} mu'(<x_s, theta_{s+1}>) x_s x_s^T. After the
reward r_t of arm x_t, with l(theta; r) = -r <x_t, theta> + log(1 + e^<x_t, theta>) (the log-loss):

    theta_{t+1}     = argmin_{||theta|| <= S}  l(theta; r_t)                + (1/2) ||theta - theta_t||^2_{W_t}
    theta_bar_{t+1} = argmin_{||theta|| <= S}  l(theta; 0) + l(theta; 1)     + (1/2) ||theta - theta_t||^2_{W_t}
    W_{t+1}         = W_t + mu'(<x_t, theta_{t+1}>) x_t x_t^T
    L_t            += 2 (1 + S) (l(theta_bar_{t+1}; r_t) - l(theta_{t+1}; r_t))
                      - (1/2) ||theta_{t+1} - theta_bar_{t+1}||^2_{W_t}

theta_bar does not look at r_t; L_t is the data-dependent term of the confidence set
{||theta - theta_t||^2_{W_t} <= sigma_t^2}, sigma_t^2 = max(0, 2 lam S^2 + (1 + S)^2 gamma_t(delta) + L_t), with
gamma_t(delta) Faury et al. 2020's Theorem 1 (shuffle-glm's X5) at det(W) <= (lam + n / (4 d))^d, n = t - 1
observations: sqrt(lam)/2 + (2/sqrt(lam)) (log(1/delta) + (d/2) log(1 + n / (4 d lam)) + d log 2).
Round t plays argmax_x mu(<x, theta_t>) + sigma_t ||x||_{W_t^-1} (the bonus form of the optimistic
rule; ties to the lowest arm). The analysis needs mu'(<x_t, theta_bar_{t+1}>) <= 2 mu'(<x_t, theta_{t+1}>);
a round where it fails is counted, warned about once and recorded in ``notes`` (the algorithm goes on).

The update (one log-loss term plus a quadratic, in a ball) is solved exactly, for all runs at once:
unconstrained, theta = theta_t - c W^-1 x with c = w (mu(z) - r) and z = <x, theta> the root of the
increasing scalar equation z + w g (mu(z) - r) = <x, theta_t>, g = ||x||^2_{W^-1} (safeguarded Newton steps in
the bracket where mu - r lies); where that theta leaves the ball, the KKT point (W + nu I) theta = W theta_t - c x,
||theta|| = S: in W's eigenbasis the same scalar equation for every nu, and Newton steps on
1/||theta(nu)|| - 1/S (non-increasing norm along the regularisation path, so a bracket [lo, hi] safeguards
them, hi = (||W theta_t|| + w ||x||) / S, where ||theta(nu)|| <= S). A fixed maximum of steps, a
convergence check across runs.

Choices (the paper leaves them, or the code bases differ): lam = 5 (the experiments' code base; Faury et al.'s
own code uses 1), delta = 0.02 (the experiments'); gamma_t with d (Faury et al. 2020's theorem; the code
bases use the d = 1 form); the penalty term as a squared W_t-norm (the code bases subtract the norm);
the exact argmin (the code bases run projected gradient steps in W^(1/2) coordinates to precision 1/t).
:func:`ecolog_one_run` is the per-run reference (matrices inverted afresh, each argmin by nested brentq).
"""

from __future__ import annotations

import math
import warnings
from typing import ClassVar

import numpy as np
from scipy import optimize

from dpaudit.algorithms.environments.glm import GLMBandit
from dpaudit.algorithms.linear.linucb import first_best
from dpaudit.core.validation import positive
from dpaudit.mechanisms.glm.glm_links import Link

from .base import GLMPolicy
from .mle import sherman_morrison, weighted_norms

_STEPS = 60
_TOLERANCE = 1e-12


def _log_loss(z: np.ndarray, r: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, z) - r * z


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + np.tanh(np.asarray(z, dtype=float) / 2))


def _scalar_root(a: np.ndarray, b: np.ndarray, w: float, r: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The root z of z + w b (mu(z) - r) = a, per entry (b >= 0), by Newton steps kept in the bracket
    [a - w b (1 - r), a + w b r] (mu - r lies in (-r, 1 - r)); started from ``z`` (clipped into it)."""
    low, high = a - w * b * (1 - r), a + w * b * r
    z = np.clip(z, low, high)
    for _ in range(_STEPS):
        mu = _sigmoid(z)
        h = z + w * b * (mu - r) - a
        step = h / (1 + w * b * mu * (1 - mu))
        new = np.clip(z - step, low, high)
        done = np.abs(new - z) <= _TOLERANCE * (1 + np.abs(z))
        z = new
        if done.all():
            break
    return z


def online_step(W: np.ndarray, W_inv: np.ndarray, theta: np.ndarray, x: np.ndarray, r: np.ndarray, w: float,
                S: float) -> np.ndarray:
    """argmin_{||u|| <= S} w l(u; r) + (1/2) ||u - theta||^2_W for every run (module docstring): W, W_inv
    (runs, d, d), theta, x (runs, d), r (runs,)."""
    z_t = np.einsum("rd,rd->r", x, theta)
    Wx = np.einsum("rde,re->rd", W_inv, x)
    g = np.einsum("rd,rd->r", x, Wx)
    z = _scalar_root(z_t, g, w, r, z_t)
    out = theta - (w * (_sigmoid(z) - r))[:, None] * Wx
    outside = np.flatnonzero(np.linalg.norm(out, axis=1) > S)
    if outside.size:
        out[outside] = _ball_step(W[outside], theta[outside], x[outside], r[outside], w, S, z[outside])
    return out


def _ball_step(W: np.ndarray, theta: np.ndarray, x: np.ndarray, r: np.ndarray, w: float, S: float,
               z: np.ndarray) -> np.ndarray:
    """The KKT point on the sphere ||u|| = S (module docstring), for runs whose unconstrained step left it."""
    D, U = np.linalg.eigh(W)
    p = D * np.einsum("rdk,rd->rk", U, theta)  # W theta in the eigenbasis
    q = np.einsum("rdk,rd->rk", U, x)
    low = np.zeros(len(D))
    high = (np.linalg.norm(p, axis=1) + w * np.linalg.norm(q, axis=1)) / S  # there ||u(nu)|| <= S
    nu = np.zeros(len(D))
    u = np.zeros_like(p)
    for _ in range(_STEPS):
        shifted = D + nu[:, None]
        a = np.sum(q * p / shifted, axis=1)
        b = np.sum(q * q / shifted, axis=1)
        z = _scalar_root(a, b, w, r, z)
        mu = _sigmoid(z)
        c, c_slope = w * (mu - r), w * mu * (1 - mu)
        u = (p - c[:, None] * q) / shifted
        norm = np.linalg.norm(u, axis=1)
        excess = norm - S
        if np.all(np.abs(excess) <= _TOLERANCE * S):
            break
        low = np.where(excess > 0, nu, low)
        high = np.where(excess < 0, nu, high)
        # d z / d nu from z + b(nu) c(z) = a(nu); then d u / d nu and Newton on 1/||u|| - 1/S
        a_slope = -np.sum(q * p / shifted**2, axis=1)
        b_slope = -np.sum(q * q / shifted**2, axis=1)
        z_slope = (a_slope - b_slope * c) / (1 + b * c_slope)
        u_slope = -u / shifted - (c_slope * z_slope)[:, None] * q / shifted
        phi_slope = -np.einsum("rk,rk->r", u, u_slope) / norm**3
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = nu - (1 / norm - 1 / S) / phi_slope
        inside = np.isfinite(newton) & (newton > low) & (newton < high)
        nu = np.where(inside, newton, 0.5 * (low + high))
    return np.einsum("rdk,rk->rd", U, u)


def confidence_gamma(lam: float, delta: float, d: int, n: int) -> float:
    """gamma_t(delta) of Faury et al. 2020's Theorem 1 with det(W) <= (lam + n/(4d))^d (module docstring)."""
    return (math.sqrt(lam) / 2
            + 2 / math.sqrt(lam) * (math.log(1 / delta) + d / 2 * math.log(1 + n / (4 * d * lam)) + d * math.log(2)))


class ECOLog(GLMPolicy):
    """ada-OFU-ECOLog with ||theta*|| <= ``S``, confidence ``delta`` and regulariser ``lam`` (module
    docstring); logistic link only."""

    owner: ClassVar[str] = "ECOLog"
    source: ClassVar[str] = "Fig. 1(a) baseline ECOLog (Faury et al. 2022, ada-OFU-ECOLog)"
    anytime: ClassVar[bool] = True  # its constants never read T

    def __init__(self, link: str | Link = "logistic", S: float = 1.0, delta: float = 0.02, lam: float = 5.0,
                 T: int | None = None):
        super().__init__(link, S, None, delta, T)
        if self.link.name != "logistic":
            raise ValueError(f"{self.owner}: link must be 'logistic' (ECOLog's update and confidence set use the "
                             f"logistic loss's self-concordance), got link={self.link.name!r}")
        self.lam = positive(self.owner, "lam", lam)
        self.name = f"ECOLog(S={self.S:g}, delta={self.delta:g}, lam={self.lam:g})"

    def _begin(self, d: int) -> None:
        self.W = np.broadcast_to(self.lam * np.eye(d), (self.runs, d, d)).copy()
        self.W_inv = np.broadcast_to(np.eye(d) / self.lam, (self.runs, d, d)).copy()
        self.theta = np.zeros((self.runs, d))
        self.data_term = np.zeros(self.runs)  # L_t
        self.n = 0
        self.failed_condition = 0

    def radius(self) -> np.ndarray:
        gamma = confidence_gamma(self.lam, self.delta, self._d, self.n)
        return np.sqrt(np.maximum(2 * self.lam * self.S**2 + (1 + self.S) ** 2 * gamma + self.data_term, 0.0))

    def _choose(self, t: int, x: np.ndarray) -> np.ndarray:
        scores = (_sigmoid(np.einsum("rkd,rd->rk", x, self.theta))
                  + self.radius()[:, None] * weighted_norms(x, self.W_inv))
        return first_best(scores)

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        x, r = self._x, np.asarray(rewards, dtype=float)
        theta = online_step(self.W, self.W_inv, self.theta, x, r, 1.0, self.S)
        theta_bar = online_step(self.W, self.W_inv, self.theta, x, np.full_like(r, 0.5), 2.0, self.S)
        z, z_bar = np.einsum("rd,rd->r", x, theta), np.einsum("rd,rd->r", x, theta_bar)
        gap = theta - theta_bar
        self.data_term += (2 * (1 + self.S) * (_log_loss(z_bar, r) - _log_loss(z, r))
                           - 0.5 * np.einsum("rd,rde,re->r", gap, self.W, gap))
        slope = _sigmoid(z) * (1 - _sigmoid(z))
        slope_bar = _sigmoid(z_bar) * (1 - _sigmoid(z_bar))
        failed = int(np.count_nonzero(slope_bar > 2 * slope))
        if failed:
            self._condition_failed(failed, t)
        scaled = np.sqrt(slope)[:, None] * x
        self.W += scaled[:, :, None] * scaled[:, None, :]
        self.W_inv = sherman_morrison(self.W_inv, scaled)
        self.theta = theta
        self.n += 1

    def _condition_failed(self, failed: int, t: int) -> None:
        if self.failed_condition == 0:
            message = (f"{self.owner}: mu'(<x, theta_bar>) > 2 mu'(<x, theta>) at round {t} (the confidence set's "
                       f"condition; Faury et al. suggest a larger lam); the run goes on")
            warnings.warn(message, stacklevel=3)
            self.notes.append(message)
        self.failed_condition += failed


def _one_step(W: np.ndarray, theta: np.ndarray, x: np.ndarray, r: float, w: float, S: float) -> np.ndarray:
    """One run's argmin of w l(u; r) + (1/2) ||u - theta||^2_W over ||u|| <= S, by nested brentq (on z for a
    fixed multiplier nu, and on nu for ||u|| = S)."""
    d = len(theta)

    def solve(nu: float) -> np.ndarray:
        M_inv = np.linalg.inv(W + nu * np.eye(d))
        a, b = float(x @ M_inv @ W @ theta), float(x @ M_inv @ x)
        if b == 0.0:
            z = a
        else:
            z = optimize.brentq(lambda z: z + w * b * (float(_sigmoid(z)) - r) - a, a - w * b * (1 - r) - 1e-9,
                                a + w * b * r + 1e-9, xtol=1e-14, rtol=4 * np.finfo(float).eps)
        return M_inv @ (W @ theta - w * (float(_sigmoid(z)) - r) * x)

    u = solve(0.0)
    if np.linalg.norm(u) <= S:
        return u
    high = (np.linalg.norm(W @ theta) + w * np.linalg.norm(x)) / S
    nu = optimize.brentq(lambda nu: float(np.linalg.norm(solve(nu))) - S, 0.0, high, xtol=1e-14,
                         rtol=4 * np.finfo(float).eps)
    return solve(nu)


def ecolog_one_run(policy: ECOLog, contexts: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The plain per-run reference: one run's arms over the rounds of ``contexts`` (T, K, d) with the reward
    table ``rewards`` (T, K), W inverted afresh every round."""
    horizon, K, d = contexts.shape
    lam, S = policy.lam, policy.S
    W, theta, data_term = lam * np.eye(d), np.zeros(d), 0.0
    played = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        W_inv = np.linalg.inv(W)
        gamma = confidence_gamma(lam, policy.delta, d, t - 1)
        radius = math.sqrt(max(2 * lam * S**2 + (1 + S) ** 2 * gamma + data_term, 0.0))
        scores = [float(_sigmoid(arm @ theta)) + radius * math.sqrt(max(float(arm @ W_inv @ arm), 0.0))
                  for arm in contexts[t - 1]]
        a_t = int(first_best(np.array(scores)[None])[0])
        played[t - 1] = a_t
        x, r = contexts[t - 1, a_t], float(rewards[t - 1, a_t])
        new, bar = _one_step(W, theta, x, r, 1.0, S), _one_step(W, theta, x, 0.5, 2.0, S)
        z, z_bar = float(x @ new), float(x @ bar)
        data_term += (2 * (1 + S) * (float(_log_loss(z_bar, r)) - float(_log_loss(z, r)))
                      - 0.5 * (new - bar) @ W @ (new - bar))
        mu = float(_sigmoid(z))
        W = W + mu * (1 - mu) * np.outer(x, x)
        theta = new
    return played


def confidence_excess(size: int, rng: np.random.Generator, *, d: int, K: int, S: float, T: int, delta: float = 0.02,
                      lam: float = 5.0, scale: float = 1.0) -> np.ndarray:
    """Y = max over rounds t = 1..T (and after the last update) of ||theta* - theta_t||_{W_t} / (scale sigma_t) - 1
    for ``size`` independent runs of ECOLog (S, delta, lam) on the paper's logistic generator (theta* uniform on
    the sphere of radius S, K fresh unit-ball arms per round); ``scale`` < 1 shrinks the radius (a miscalibrated
    set, for power checks). Vectorised over runs, one Python step per round."""
    instances = GLMBandit(K, d, S, "logistic").instances(size, rng)
    policy = ECOLog(S=S, delta=delta, lam=lam)
    policy.start(size, K, T, rng)
    rows = np.arange(size)
    worst = np.full(size, -np.inf)

    def check():
        gap = instances.theta - policy.theta
        norm = np.sqrt(np.maximum(np.einsum("rd,rde,re->r", gap, policy.W, gap), 0.0))
        np.maximum(worst, norm / (scale * policy.radius()) - 1, out=worst)

    with warnings.catch_warnings():  # ECOLog's condition failures are noted by the policy; the runs go on
        warnings.simplefilter("ignore")
        for t in range(1, T + 1):
            contexts = instances.contexts(rng)
            played = policy.choose(t, contexts)  # starts the state on the first round
            check()
            policy.observe(t, played, instances.rewards(rng, contexts)[rows, played])
        check()
    return worst


__all__ = ["ECOLog", "confidence_excess", "confidence_gamma", "ecolog_one_run", "online_step"]
