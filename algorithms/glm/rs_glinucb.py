"""RS-GLinUCB (Sawarni, Das, Barman, Sinha 2024, "Generalized linear bandits with limited adaptivity",
Algorithm 2), the rarely switching non-private baseline of shuffle-glm's experiments and the algorithm
shuffle-glm's Algorithm 2 makes private; vectorised over runs.

With V = lam I + sum_{s in T_o} x_s x_s^T (the warm-up rounds T_o) and H_t = lam I + sum_{s < t, s not in T_o}
(mu'(<x_s, theta_o>) / e) x_s x_s^T, round t:

- warm-up (switching criterion I): if max_{x in X_t} ||x||^2_{V^{-1}} >= threshold, play
  x_t = argmax ||x||_{V^{-1}}, add t to T_o, V += x_t x_t^T and refit theta_o, the regularised MLE on the rounds
  of T_o;
- otherwise (criterion II): if det(H_t) > switch det(H_tau), set tau = t and refit theta_tau, the regularised
  MLE on the rounds [t - 1] \\ T_o; keep the arms x with UCB_o(x) >= max_z LCB_o(z), where
  UCB_o / LCB_o(x) = <x, theta_o> +- gamma sqrt(kappa) ||x||_{V^{-1}}; play the one of highest
  <x, theta_tau> + beta ||x||_{H_tau^{-1}}; then H += (mu'(<x_t, theta_o>) / e) x_t x_t^T.

Ties go to the lowest arm. The MLEs minimise sum loss + (lam/2) ||theta||^2 (the paper's), with the link's
negative log-likelihood (:mod:`.mle`). Before the first switch H_tau = lam I and theta_tau = 0 (as the
spec reads shuffle-glm's Algorithm 2), theta_o = 0 before the first warm-up round.

Constants the paper leaves to the implementation, from the experiments' code bases (Sawarni et al.'s, reused by
shuffle-glm's repository): lam = 0.5, gamma = R S sqrt(d log(T/delta)), beta = 4 sqrt(d log(T/delta)), the
warm-up threshold 1/(0.01 kappa R^4 S^2 d) (the paper's is 1/(kappa gamma^2 R^2); with this gamma that is
100 log(T/delta) times smaller and would make most of a 5000-round run warm-up), R = 1, delta = 0.02.
Kept from the paper where the code bases differ: the switch factor 2 (``switch``; the code bases use 1.5),
the 1/e in H's increments (they drop it), theta_tau alone in the UCB (they use the mean of theta_o and
theta_tau), and theta_tau fitted on the rounds outside T_o (they include the warm-up rounds). Each is a
keyword or stated here.

Vectorised: V^{-1} by Sherman-Morrison on the runs in warm-up, log-determinants of H batched, the two MLEs
refitted by batched Newton steps only for the runs that need them, each on its own rounds through weights
on the common history. With numba (the ``fast`` extra) a block of rounds runs in one compiled loop that returns
for each refit (:meth:`RSGLinUCB.play_rounds`). :func:`rs_glinucb_one_run` is the per-run reference.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpaudit.algorithms.linear.linucb import first_best
from dpaudit.core.validation import positive
from dpaudit.mechanisms.glm.glm_links import Link

from .base import GLMPolicy, block_arrays, block_contexts
from .mle import AVAILABLE, History, compiled_link, fit_mle, fit_mle_one_run, sherman_morrison, weighted_norms

if AVAILABLE:  # numba is installed (the fast extra)
    from .compiled import DONE, SWITCH, rs_glinucb_rounds


class RSGLinUCB(GLMPolicy):
    """RS-GLinUCB with link ``link``, ||theta*|| <= ``S``, ``kappa``, ``delta``, ``lam``, reward bound ``R``,
    widths ``gamma``, ``beta``, warm-up ``threshold`` and determinant ratio ``switch`` (module docstring)."""

    owner: ClassVar[str] = "RSGLinUCB"
    source: ClassVar[str] = "Sec. 8 baseline RS-GLinUCB (Sawarni et al. 2024, Algorithm 2)"

    def __init__(self, link: str | Link = "logistic", S: float = 1.0, kappa: float | None = None,
                 delta: float = 0.02, lam: float = 0.5, R: float = 1.0, gamma: float | None = None,
                 beta: float | None = None, threshold: float | None = None, switch: float = 2.0,
                 T: int | None = None):
        super().__init__(link, S, kappa, delta, T)
        self.lam = positive(self.owner, "lam", lam)
        self.R = positive(self.owner, "R", R)
        self.gamma = None if gamma is None else positive(self.owner, "gamma", gamma)
        self.beta = None if beta is None else positive(self.owner, "beta", beta)
        self.threshold = None if threshold is None else positive(self.owner, "threshold", threshold)
        self.switch = positive(self.owner, "switch", switch)
        if self.switch <= 1:
            raise ValueError(f"{self.owner}: switch must be > 1 (a determinant ratio), got switch={switch!r}")
        self.name = f"RS-GLinUCB({self.link.name}, S={self.S:g}, kappa={self.kappa:.4g}, delta={self.delta:g})"

    def constants(self, d: int, T: int) -> tuple[float, float, float]:
        """(gamma, beta, threshold) at dimension d and horizon T."""
        log_term = d * math.log(T / self.delta)
        gamma = self.gamma if self.gamma is not None else self.R * self.S * math.sqrt(log_term)
        beta = self.beta if self.beta is not None else 4 * math.sqrt(log_term)
        threshold = (self.threshold if self.threshold is not None
                     else 1 / (0.01 * self.kappa * self.R**4 * self.S**2 * d))
        return gamma, beta, threshold

    def _begin(self, d: int) -> None:
        self._gamma, self._beta, self._threshold = self.constants(d, self._T)
        runs, eye = self.runs, np.eye(d)
        self.V_inv = np.broadcast_to(eye / self.lam, (runs, d, d)).copy()
        self.H = np.broadcast_to(self.lam * eye, (runs, d, d)).copy()
        self.H_tau_inv = self.V_inv.copy()
        self.logdet_tau = np.full(runs, d * math.log(self.lam))
        self.theta_o = np.zeros((runs, d))
        self.theta_tau = np.zeros((runs, d))
        self.history = History(runs, d)
        self._warmup_rounds = np.zeros((runs, 256), dtype=bool)
        self.switches = np.zeros(runs, dtype=np.int64)

    def _choose(self, t: int, x: np.ndarray) -> np.ndarray:
        norms = weighted_norms(x, self.V_inv)
        self._warm = (norms**2).max(axis=1) >= self._threshold
        played = np.empty(self.runs, dtype=np.int64)
        warm, cold = np.flatnonzero(self._warm), np.flatnonzero(~self._warm)
        played[warm] = first_best(norms[warm])
        if cold.size:
            self._maybe_switch(cold)
            xc = x[cold]
            centre = np.einsum("rkd,rd->rk", xc, self.theta_o[cold])
            width = self._gamma * math.sqrt(self.kappa) * norms[cold]
            kept = centre + width >= (centre - width).max(axis=1, keepdims=True)
            optimism = self._beta * weighted_norms(xc, self.H_tau_inv[cold])
            ucb = np.einsum("rkd,rd->rk", xc, self.theta_tau[cold]) + optimism
            played[cold] = first_best(np.where(kept, ucb, -np.inf))
        return played

    def _maybe_switch(self, cold: np.ndarray) -> None:
        logdet = np.linalg.slogdet(self.H[cold])[1]
        switching = cold[logdet > math.log(self.switch) + self.logdet_tau[cold]]
        if switching.size:
            self._switch(switching)

    def _switch(self, switching: np.ndarray, logdet_set: bool = False) -> None:
        """Criterion II's switch of the runs ``switching``: H_tau = H (its log-determinant set here unless
        ``logdet_set``), and theta_tau refitted on the history's rounds outside T_o."""
        if not logdet_set:
            self.logdet_tau[switching] = np.linalg.slogdet(self.H[switching])[1]
        self.H_tau_inv[switching] = np.linalg.inv(self.H[switching])
        self.switches[switching] += 1
        n = self.history.n
        outside = ~self._warmup_rounds[switching, :n]
        self.theta_tau[switching] = fit_mle(self.link, self.history.contexts[switching],
                                            self.history.rewards[switching], outside.astype(float),
                                            self.theta_tau[switching], self.lam).theta

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        x, r = self._x, np.asarray(rewards, dtype=float)
        n = self.history.n
        self._reserve_warmup(n + 1)
        self._warmup_rounds[:, n] = self._warm
        self.history.add(x, r)
        warm, cold = np.flatnonzero(self._warm), np.flatnonzero(~self._warm)
        if warm.size:
            self.V_inv[warm] = sherman_morrison(self.V_inv[warm], x[warm])
            self._refit_warm(warm)
        if cold.size:
            xc = x[cold]
            weight = self.link.slope(np.einsum("rd,rd->r", xc, self.theta_o[cold])) / math.e
            self.H[cold] += weight[:, None, None] * xc[:, :, None] * xc[:, None, :]

    def _refit_warm(self, warm: np.ndarray) -> None:
        """theta_o of the runs ``warm`` refitted on the history's rounds in T_o (after a warm-up round)."""
        inside = self._warmup_rounds[warm, : self.history.n].astype(float)
        self.theta_o[warm] = fit_mle(self.link, self.history.contexts[warm], self.history.rewards[warm], inside,
                                     self.theta_o[warm], self.lam).theta

    def _reserve_warmup(self, n: int) -> None:
        while n > self._warmup_rounds.shape[1]:
            self._warmup_rounds = np.concatenate([self._warmup_rounds, np.zeros_like(self._warmup_rounds)], axis=1)

    @property
    def compiled_rounds(self) -> bool:
        """Whether :meth:`play_rounds` runs compiled: numba is installed and the link is one the kernel knows
        (the logistic or the probit)."""
        return AVAILABLE and compiled_link(self.link)

    def play_rounds(self, t: int, contexts: Any, rewards: Any) -> tuple[np.ndarray, np.ndarray]:
        """Rounds t .. t + count - 1 of every run (:func:`~dpaudit.algorithms.glm.base.play_round_by_round`'s
        arguments). When :attr:`compiled_rounds`, one compiled loop (:func:`~dpaudit.algorithms.glm.compiled.
        rs_glinucb_rounds`) plays the rounds of every run and returns here for each refit, which the numpy fit
        does as the per-round path does: the same decisions to rounding. Otherwise round by round."""
        if not self.compiled_rounds:
            return super().play_rounds(t, contexts, rewards)
        x = block_contexts(self.owner, contexts, self.runs, self._d, t, rewards)
        count, runs, K, d = x.shape
        if self._d is None:
            self._d = d
            self._begin(d)
        x, table_values, means, noise = block_arrays(self.owner, x, rewards)
        n0 = self.history.n
        history_x, history_r = self.history.reserve(count)
        self._reserve_warmup(n0 + count)
        played, collected = np.empty((count, runs), dtype=np.int64), np.empty((count, runs))
        norms, warm, switching = np.empty((runs, K)), np.zeros(runs, dtype=bool), np.zeros(runs, dtype=bool)
        width = self._gamma * math.sqrt(self.kappa)
        s = 0
        while True:
            s, why = rs_glinucb_rounds(s, x, table_values, means, noise, width, self._beta, self._threshold,
                                       math.log(self.switch), self.link.name == "probit", self.V_inv, self.H,
                                       self.H_tau_inv, self.logdet_tau, self.theta_o, self.theta_tau, history_x,
                                       history_r, self._warmup_rounds, n0, norms, warm, switching, played, collected)
            self.history.n = n0 + s
            if why == DONE:
                return played, collected
            if why == SWITCH:
                self._switch(np.flatnonzero(switching), logdet_set=True)  # the kernel's log det H
            else:
                self._refit_warm(np.flatnonzero(warm))

    @property
    def warmup_counts(self) -> np.ndarray:
        """|T_o| per run so far."""
        return self._warmup_rounds[:, : self.history.n].sum(axis=1)


def rs_glinucb_one_run(policy: RSGLinUCB, contexts: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The plain per-run reference: one run's arms over the rounds of ``contexts`` (T, K, d) with the
    reward table ``rewards`` (T, K), inverting and solving every MLE afresh."""
    horizon, K, d = contexts.shape
    T = policy.T if policy.T is not None else horizon
    gamma, beta, threshold = policy.constants(d, T)
    link, lam = policy.link, policy.lam
    V, H, H_tau = lam * np.eye(d), lam * np.eye(d), lam * np.eye(d)
    theta_o, theta_tau = np.zeros(d), np.zeros(d)
    warm_x, warm_r, other_x, other_r = [], [], [], []
    played = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        arms = contexts[t - 1]
        V_inv = np.linalg.inv(V)
        norms = np.array([math.sqrt(max(a @ V_inv @ a, 0.0)) for a in arms])
        if max(norms) ** 2 >= threshold:
            a_t = int(first_best(norms[None])[0])
            x = arms[a_t]
            warm_x.append(x)
            warm_r.append(rewards[t - 1, a_t])
            V = V + np.outer(x, x)
            theta_o = fit_mle_one_run(link, np.array(warm_x), np.array(warm_r), lam)
        else:
            if np.linalg.det(H) > policy.switch * np.linalg.det(H_tau):
                H_tau = H.copy()
                theta_tau = fit_mle_one_run(link, np.array(other_x).reshape(-1, d), np.array(other_r), lam)
            H_tau_inv = np.linalg.inv(H_tau)
            width = gamma * math.sqrt(policy.kappa) * norms
            lower = max(arms[a] @ theta_o - width[a] for a in range(K))
            scores = np.full(K, -np.inf)
            for a in range(K):
                if arms[a] @ theta_o + width[a] >= lower:
                    scores[a] = arms[a] @ theta_tau + beta * math.sqrt(max(arms[a] @ H_tau_inv @ arms[a], 0.0))
            a_t = int(first_best(scores[None])[0])
            x = arms[a_t]
            other_x.append(x)
            other_r.append(rewards[t - 1, a_t])
            H = H + float(link.slope(x @ theta_o)) / math.e * np.outer(x, x)
        played[t - 1] = a_t
    return played


__all__ = ["RSGLinUCB", "rs_glinucb_one_run"]
