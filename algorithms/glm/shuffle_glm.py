"""ShuffleGLM: shuffle-glm's Algorithm 1 (stochastic contexts, (eps, delta)-shuffle DP), vectorised over runs.

Batches B_1..B_M fixed in advance (eqs. (6)-(7)):
    M = ceil(log2 log2 T),  alpha = T^(1 / (2 (1 - 2^(-M+1)))),
    B_1 = (sqrt(kappa) e^(3S) d^2 gamma^2 alpha / S)^(2/3),  B_2 = alpha,  B_k = alpha sqrt(B_{k-1})
  rounded up, the last one cut so that the lengths add up to T (the spec's choice).
Batch 1 (warm-up, lines 3-8): play x_t ~ pi^G(X_t) (:mod:`.design`); user t sends R_2(x_t x_t^T, Delta = 1);
  at its end V = A_2(...) + lambda I (P_2 at (eps/2, delta/2)) and theta_1 = P_GD on the batch.
Batch k >= 2 (lines 11-21): eliminate, for j = 1..k-1 in turn, the arms with UCB_j(x) < max_y LCB_j(y)
  (eqs. (13)-(14): <x, theta_j> +- gamma sqrt(kappa) ||x||_{W_j^-1}, W_1 = V, W_j = H_j); scale the survivors,
  x~ = sqrt(mu'(<x, theta_1>) / beta(x)) x with beta(x) = exp(R min(2S, gamma sqrt(kappa) ||x||_{V^-1}))
  (eqs. (11)-(12)); play the unscaled arm of x~ ~ pi^G(X~_t); user t sends R_2(x~ x~^T, Delta = 1/kappa*); at the
  batch's end H_k = A_2(...) + lambda I and theta_k = P_GD on the batch.

Parameters (the spec's 3.1; :func:`~.parameters.algorithm1_lambdas` and :func:`~.parameters.algorithm1_optimizer`):
  sigma, lambda, lambda_max of eqs. (8), (10), (15) (sigma: the std of one P_2 entry at (eps/2, delta/2) with
  Delta = 1/kappa*); nu (10) := the right side of (128) times n, (D L / (eps/2)) sqrt(log^2(d n / (delta/2))
  log(T_it T^4)) with D = 2S, L = R S + S + S lambda_max / n (D.2) and the failure probability 1/T^4 of D.2;
  gamma (9) = 30 R S sqrt(d R log T + 12 sigma sqrt(log(2 d M T / delta))) + sqrt(4 R S nu).
  Choices: lambda, gamma and B_1 use sigma and nu at n = T (eq. (8) is one lambda for every batch; sigma
  hardly depends on n); each P_GD call is :func:`algorithm1_optimizer`'s at the batch's n; the releases are
  :class:`~dpaudit.mechanisms.shuffle.vector_summation.OuterProductSummation` (one P_2 per batch, all runs at once,
  :meth:`release_runs`); the loss is the paper's (gradient (mu - r) x); theta_k of the last batch is not
  computed (no decision uses it); pi^G per round on the round's (scaled, surviving) arms, Frank-Wolfe to the
  2d bound; the uniforms that sample from pi^G come from the policy's stream.

What the printed parameters do (a finding, kept as printed): e^(3S) and gamma^2 (sigma of order 10^2-10^3)
make B_1 far above T at the experiments' sizes, so the whole horizon is the warm-up: ShuffleGLM plays the
G-optimal design of each round's arms throughout (regret linear in T).

The design is G-optimal in every batch, as the paper prints it (Sec. 5: Ruan et al. and Sawarni et al. use
a distributional optimal design, "we use G-optimal design because we could not compute the former under
differential privacy constraints"; Remark 4.4: d^(3/2) against d in the leading term). The distributional
optimal design belongs to the non-private ablation that Remark 4.4 describes, not to Algorithm 1.

Views for algorithm-level audits: with ``record_views`` set (False by default), every batch's shuffled
P_2 view -- the d(d+1)/2 label counts of
:meth:`~dpaudit.mechanisms.shuffle.vector_summation.OuterProductSummation.counts_runs`, before the analyzer, shape
(runs, d(d+1)/2) -- is appended to ``views`` (emptied at ``start``); the draws are the same whether or not it is
set. P_GD's shuffled views are not recorded: the release does not expose them,
and at T_it = 1 (every batch at the parameters' sizes) its output theta_0 does not depend on them, so they are
not drawn; when the whole horizon is the warm-up batch no P_GD call is made at all.

Theorem 5.1 covers eps < 5 and delta < 1/2 (Lemmas S.1-S.2: eps <= 15); :func:`algorithm1_lambdas` refuses
other values (ValueError), as the printed lambda is not defined for them.

The scaled warm-up (``warm_up="scaled"``; the name says ``warm-up=scaled``): a variant, not the paper's Algorithm 1,
built so that batches k >= 2 run at simulable horizons. B_1 = alpha (eq. (7)'s own first length, so B_1 = B_2 =
alpha, B_k = alpha sqrt(B_{k-1})) in place of eq. (6)'s; everything else as printed (the P_2 releases and their
noise, P_GD, lambda, gamma, the elimination (13)-(14), the arm scaling (11)-(12)). Why alpha: it is the choice of
the non-private ablation (:mod:`.batched_ablation`), where eq. (6)'s B_1 = (sqrt(kappa) e^(3S) d^2 gamma^2 alpha /
S)^(2/3) is the warm-up the arm scaling needs, with the private gamma, and batch 1 is otherwise an ordinary batch
of the grid (Gao et al.'s / Ruan et al.'s geometric-square-root grid, which (7) is). Here the scaling is kept, and
eq. (6)'s B_1 is where Appendix F's bound (42), O(B_1 R + phi alpha / sqrt(B_1) + d alpha gamma / sqrt(kappa*)) M,
is balanced to give (43) and Theorem 5.1's T^(1/3) term; with B_1 = alpha, (42) reads O(alpha R + phi sqrt(alpha) +
d alpha gamma / sqrt(kappa*)) M instead. Theorem 5.1 is stated for Algorithm 1 with eq. (6)'s B_1, so it is not a
statement about the variant. ``warm_up="printed"`` (the default) is eq. (6): its behaviour and every random draw
are Algorithm 1's as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpaudit.bandits.policies import checked_contexts
from dpaudit.core.validation import choice, integer, positive
from dpaudit.mechanisms.glm.private_gd import iterations
from dpaudit.mechanisms.shuffle.vector_summation import OuterProductSummation, ShuffledMatrixSummation

from .algorithm2 import cumulant_gradient
from .base import RoundByRound, curvature, planned_horizon
from .design import g_optimal_design, sample_design
from .jdp_glm import descend
from .parameters import algorithm1_lambdas, algorithm1_optimizer


@dataclass(frozen=True)
class Algorithm1Settings:
    """Algorithm 1's numbers for one horizon T: lambda, gamma (the width gamma sqrt(kappa)), sigma, nu and
    the batch lengths."""

    lam: float
    gamma: float
    sigma: float
    nu: float
    batches: tuple[int, ...]


#: the warm-up batch's length B_1: eq. (6)'s as printed, or alpha for the scaled warm-up (module docstring)
WARM_UPS = ("printed", "scaled")


def batch_schedule(T: int, d: int, S: float, kappa: float, gamma: float, warm_up: str = "printed"
                   ) -> tuple[int, ...]:
    """Eqs. (6)-(7): B_1..B_M rounded up, the last cut so that they add up to T, M = ceil(log2 log2 T); with
    ``warm_up="scaled"`` B_1 = alpha in place of eq. (6)'s (the variant of the module docstring)."""
    if choice("batch_schedule", "warm_up", warm_up, WARM_UPS) == "scaled":
        return grid_schedule(T, lambda alpha: alpha)
    return grid_schedule(T, lambda alpha: (math.sqrt(kappa) * math.exp(3 * S) * d**2 * gamma**2 * alpha / S) ** (2 / 3))


def grid_schedule(T: int, first: Callable[[float], float]) -> tuple[int, ...]:
    """Eq. (7)'s grid after a first batch of length ``first(alpha)``: M = max(2, ceil(log2 log2 T)), alpha =
    T^(1 / (2 (1 - 2^(-M+1)))), B_2 = alpha, B_k = alpha sqrt(B_{k-1}), rounded up, the last cut so that the
    lengths add up to T."""
    M = max(2, math.ceil(math.log2(math.log2(T))))
    alpha = T ** (1 / (2 * (1 - 2 ** (-M + 1))))
    lengths = [first(alpha), alpha]
    while len(lengths) < M:
        lengths.append(alpha * math.sqrt(lengths[-1]))
    out, total = [], 0
    for length in lengths:
        step = min(math.ceil(length), T - total)
        if step <= 0:
            break
        out.append(step)
        total += step
    if total < T:
        out[-1] += T - total
    return tuple(out)


def algorithm1_settings(eps: float, delta: float, d: int, T: int, S: float, kappa: float, kappa_star: float,
                        R: float = 1.0, warm_up: str = "printed") -> Algorithm1Settings:
    """Algorithm 1's parameters at horizon T (module docstring); ``warm_up`` chooses B_1 (:func:`batch_schedule`):
    "printed" (eq. (6)) or "scaled" (alpha, the variant); nothing else depends on it."""
    sigma, lam, lam_max = algorithm1_lambdas(eps, delta, d, T, T, kappa_star, R)
    M = max(2, math.ceil(math.log2(math.log2(T))))
    lipschitz = R * S + S + S * lam_max / T
    T_it = iterations(eps / 2, delta / 2, T, d)
    nu = 2 * S * lipschitz / (eps / 2) * math.sqrt(math.log(d * T / (delta / 2)) ** 2 * math.log(T_it * T**4))
    gamma = (30 * R * S * math.sqrt(d * R * math.log(T) + 12 * sigma * math.sqrt(math.log(2 * d * M * T / delta)))
             + math.sqrt(4 * R * S * nu))
    return Algorithm1Settings(lam, gamma, sigma, nu, batch_schedule(T, d, S, kappa, gamma, warm_up))


class ShuffleGLM(RoundByRound):
    """shuffle-glm Algorithm 1 (module docstring); a contextual policy.

    ``warm_up``: "printed" (default) is Algorithm 1 with eq. (6)'s warm-up batch; "scaled" is the variant with
    B_1 = alpha (named ``warm-up=scaled``), not the paper's Algorithm 1: the same releases, estimates,
    elimination and arm scaling after a warm-up of eq. (7)'s first length, so that batches k >= 2 run at
    simulable horizons (the module docstring says why alpha)."""

    owner: ClassVar[str] = "ShuffleGLM"
    feedback: ClassVar[str] = "bandit"
    contextual: ClassVar[bool] = True
    paper: ClassVar[str] = "shuffle-glm"
    source: ClassVar[str] = "Algorithm 1 (Sec. 5): batched G-optimal design, P_2 design matrices, P_GD estimates"
    record_views: bool = False  # keep every batch's P_2 label counts in ``views`` (module docstring)

    def __init__(self, eps: float, delta: float = 0.02, S: float = 1.0, kappa: float | None = None,
                 kappa_star: float | None = None, link: str = "logistic", R: float = 1.0, T: int | None = None,
                 record: bool = False, warm_up: str = "printed"):
        owner = self.owner
        self.eps = positive(owner, "eps", eps)
        self.delta = positive(owner, "delta", delta)
        if not self.eps < 5 or not self.delta < 0.5:
            raise ValueError(f"{owner}: Theorem 5.1 covers eps in (0, 5) and delta in (0, 1/2) (the printed lambda "
                             f"of eq. (8) is not defined outside), got eps={eps!r}, delta={delta!r}")
        self.S, self.R = positive(owner, "S", S), positive(owner, "R", R)
        self.link, self.kappa, self.kappa_star = curvature(owner, link, self.S, kappa, kappa_star)
        self.T = None if T is None else integer(owner, "T", T, 5)
        self.record = bool(record)
        self.warm_up = choice(owner, "warm_up", warm_up, WARM_UPS)
        self.notes: list[str] = []
        variant = ", warm-up=scaled" if self.warm_up == "scaled" else ""
        self.name = (f"ShuffleGLM(eps={self.eps:g}, delta={self.delta:g}, S={self.S:g}, kappa={self.kappa:.4g}, "
                     f"kappa*={self.kappa_star:.4g}, link={self.link.name}{variant})")

    def __repr__(self) -> str:
        return self.name

    def settings(self, d: int, T: int) -> Algorithm1Settings:
        return algorithm1_settings(self.eps, self.delta, d, T, self.S, self.kappa, self.kappa_star, self.R,
                                   self.warm_up)

    @property
    def anytime(self) -> bool:
        """Whether its decisions ignore the horizon it is started with: its batches, design and noise are
        planned for T, the horizon unless ``T`` is given (:func:`dpaudit.bandits.policies.horizon_use`)."""
        return self.T is not None

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        self.runs = integer(self.owner, "runs", runs, 0)
        self.horizon = integer(self.owner, "horizon", horizon, 1)
        self._T = planned_horizon(self.owner, self.T, self.horizon, 5)
        self.rng = rng
        self._d: int | None = None
        self.views: list[np.ndarray] = []

    def _begin(self, d: int) -> None:
        self._d = d
        self.config = self.settings(d, self._T)
        self.ends = np.cumsum(self.config.batches)
        self.batch = 0  # 0-based index of the current batch
        self.width = self.config.gamma * math.sqrt(self.kappa)
        self.estimates: list[tuple[np.ndarray, np.ndarray]] = []  # (theta_j, W_j^-1), j = 1..k-1
        self.V_inv = None
        self.theta_1 = np.zeros((self.runs, d))
        self._reset_batch()
        self.trace: dict[str, Any] = {"uniforms": [], "releases": [], "messages": [], "iterations": []}

    def _reset_batch(self) -> None:
        n = int(self.config.batches[self.batch])
        self.messages = np.zeros((self.runs, n, self._d))
        self.points = np.zeros((self.runs, n, self._d))
        self.rewards = np.zeros((self.runs, n))

    def choose(self, t: int, contexts: Any) -> np.ndarray:
        x = checked_contexts(self.owner, contexts, self.runs, self._d, t)
        if self._d is None:
            self._begin(x.shape[2])
        rows = np.arange(self.runs)
        allowed = np.ones(x.shape[:2], dtype=bool)
        if self.batch == 0:
            scaled = x
        else:
            for theta, W_inv in self.estimates:  # lines 13-15, j = 1..k-1 in turn
                centre = np.einsum("rkd,rd->rk", x, theta)
                spread = self.width * np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", x @ W_inv, x), 0.0))
                best_lcb = np.where(allowed, centre - spread, -np.inf).max(axis=1, keepdims=True)
                allowed &= centre + spread >= best_lcb
            norm_V = np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", x @ self.V_inv, x), 0.0))
            beta = np.exp(self.R * np.minimum(2 * self.S, self.width * norm_V))
            weight = self.link.slope(np.einsum("rkd,rd->rk", x, self.theta_1)) / beta
            scaled = np.sqrt(weight)[..., None] * x
        pi, steps = g_optimal_design(scaled, allowed)
        uniforms = self.rng.random(self.runs)
        played = sample_design(pi, uniforms)
        self._message = scaled[rows, played]
        self._x = x[rows, played]
        if self.record:
            self.trace["uniforms"].append(uniforms)
            self.trace["iterations"].append(steps)
        return played

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        start = 0 if self.batch == 0 else int(self.ends[self.batch - 1])
        i = t - 1 - start
        self.messages[:, i] = self._message
        self.points[:, i] = self._x
        self.rewards[:, i] = np.asarray(rewards, dtype=float)
        if t != self.ends[self.batch]:
            return
        d, n = self._d, int(self.config.batches[self.batch])
        Delta = 1.0 if self.batch == 0 else 1 / self.kappa_star
        protocol = OuterProductSummation(ShuffledMatrixSummation(self.eps / 2, self.delta / 2, d, n, Delta))
        counts = protocol.counts_runs(self.messages, self.rng)  # the analyzer's shuffled view
        if self.record_views:
            self.views.append(counts)
        W = protocol.protocol.analyze(counts) + self.config.lam * np.eye(d)  # lines 7, 20
        W_inv = np.linalg.inv(W)
        last = self.batch + 1 == len(self.config.batches)
        theta = None
        if not last:  # lines 8, 21 (the last batch's estimate is used by no decision)
            pgd, _ = algorithm1_optimizer(self.eps, self.delta, d, n, self._T, self.kappa_star, self.R, self.S)
            lam_max = algorithm1_lambdas(self.eps, self.delta, d, n, self._T, self.kappa_star, self.R)[2]
            data = (self.rewards, self.points)
            theta = descend(pgd, cumulant_gradient(self.link, lam_max / n), lambda: data, self.runs, self.rng)
            if self.batch == 0:
                self.V_inv, self.theta_1 = W_inv, theta
            self.estimates.append((theta, W_inv))
        if self.record:
            self.trace["releases"].append((W, theta))
            self.trace["messages"].append(self.messages.copy())
        if not last:
            self.batch += 1
            self._reset_batch()


__all__ = ["WARM_UPS", "Algorithm1Settings", "ShuffleGLM", "algorithm1_settings", "batch_schedule"]
