"""The plain per-run reference of Remark 4.4's batched ablation (:class:`~.batched_ablation.BatchedGLMAblation`):
one run, plain numpy and scipy, to hold the vectorised policy to. Every round: the context set's family index by
a loop over the family, the elimination arm by arm with W_j inverted afresh, the G-optimal design by
:func:`~.design.g_optimal_design_one_run`; at every batch's start the distributional policy solved anew on the
survivors (no cache); at every batch's end the MLE by :func:`~.mle.fit_mle_one_run` (scipy, from zero).

The policy's uniforms are given (``uniforms`` (T,)); rewards are read from the reward table (T, K)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .batched_ablation import distributional_policy
from .design import g_optimal_design_one_run, sample_design
from .mle import fit_mle_one_run


def _survivors(arms: np.ndarray, estimates: list[tuple[np.ndarray, np.ndarray]], width: float) -> np.ndarray:
    K = arms.shape[0]
    allowed = np.ones(K, dtype=bool)
    for theta, W in estimates:
        W_inv = np.linalg.inv(W)
        spread = [width * math.sqrt(max(float(x @ W_inv @ x), 0.0)) for x in arms]
        best_lcb = max(float(arms[k] @ theta) - spread[k] for k in range(K) if allowed[k])
        allowed = np.array([allowed[k] and float(arms[k] @ theta) + spread[k] >= best_lcb for k in range(K)])
    return allowed


def batched_ablation_one_run(policy: Any, contexts: np.ndarray, rewards: np.ndarray, uniforms: np.ndarray
                             ) -> np.ndarray:
    """One run's arms over the rounds of ``contexts`` (T, K, d) with the reward table ``rewards`` (T, K) and the
    policy's ``uniforms`` (T,); ``policy`` gives the family, the design, the link, lam and the settings (horizon:
    the policy's ``T`` or len(contexts))."""
    horizon, K, d = contexts.shape
    batches, gamma = policy.settings(policy.T if policy.T is not None else max(horizon, 5))
    width = gamma * math.sqrt(policy.kappa)
    ends = np.cumsum(batches)
    sets = policy.sets
    batch, estimates = 0, []
    xs, rs = [], []
    pi_family = None
    played = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        if policy.design == "distributional" and pi_family is None:
            allowed = np.array([_survivors(sets[i], estimates, width) for i in range(len(sets))])
            pi_family = distributional_policy(sets, allowed, policy.probabilities)
        arms = contexts[t - 1]
        index = next(i for i in range(len(sets)) if np.abs(arms - sets[i]).max() <= 1e-12)
        if policy.design == "distributional":
            pi = pi_family[index]
        else:
            pi = g_optimal_design_one_run(arms, _survivors(arms, estimates, width))
        a = int(sample_design(pi, np.array(uniforms[t - 1])))
        played[t - 1] = a
        xs.append(arms[a])
        rs.append(rewards[t - 1, a])
        if t == ends[batch] and batch + 1 < len(batches):
            X, r = np.array(xs), np.array(rs)
            theta = fit_mle_one_run(policy.link, X, r, policy.lam)
            estimates.append((theta, X.T @ X + policy.lam * np.eye(d)))
            batch, xs, rs, pi_family = batch + 1, [], [], None
    return played


__all__ = ["batched_ablation_one_run"]
