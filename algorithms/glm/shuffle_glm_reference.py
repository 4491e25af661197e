"""The plain per-run reference of shuffle-glm's Algorithm 1 (:class:`~.shuffle_glm.ShuffleGLM`): one run, plain
numpy, solving afresh every round (the G-optimal design by :func:`~.design.g_optimal_design_one_run`, the
elimination and the scaling arm by arm), to hold the vectorised policy to.

The private draws are given, not drawn: ``uniforms`` (T,) sample the arm from pi^G, and ``releases`` is the list
of each batch's released matrix W (V for batch 1, H_k after) and estimate theta_k (None for the last batch).
Returns the arms played and, per batch, the vectors y_t whose y_t y_t^T the users sent to P_2.

``warm_up`` takes the policy's option ("printed": eq. (6)'s B_1; "scaled": B_1 = alpha, the variant of
:mod:`~.shuffle_glm`): given, the reference lays out the batches itself from it (eqs. (6)-(7) at T = the number of
rounds of ``contexts``, with ``config``'s gamma), so that the vectorised policy's schedule is checked too; None (the
default) takes ``config.batches`` as given (a test's own short batches)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpaudit.core.validation import choice

from .design import g_optimal_design_one_run, sample_design
from .shuffle_glm import WARM_UPS, Algorithm1Settings, batch_schedule


def shuffle_glm_one_run(config: Algorithm1Settings, policy: Any, contexts: np.ndarray, uniforms: np.ndarray,
                        releases: list[tuple[np.ndarray, np.ndarray | None]], warm_up: str | None = None
                        ) -> tuple[np.ndarray, list[np.ndarray]]:
    """One run over the rounds of ``contexts`` (T, K, d); ``policy`` gives S, R, kappa and the link; ``warm_up``
    (module docstring) lays the batches out from the option instead of taking ``config.batches``."""
    T, K, d = contexts.shape
    width = config.gamma * math.sqrt(policy.kappa)
    if warm_up is None:
        batches = config.batches
    else:
        batches = batch_schedule(T, d, policy.S, policy.kappa, config.gamma,
                                 choice("shuffle_glm_one_run", "warm_up", warm_up, WARM_UPS))
    ends = np.cumsum(batches)
    batch = 0
    estimates: list[tuple[np.ndarray, np.ndarray]] = []
    V, theta_1 = None, np.zeros(d)
    played = np.empty(T, dtype=np.int64)
    messages: list[np.ndarray] = []
    sent: list[np.ndarray] = []
    for t in range(1, T + 1):
        arms = contexts[t - 1]
        allowed = np.ones(K, dtype=bool)
        if batch == 0:
            scaled = arms.copy()
        else:
            for theta, W in estimates:
                W_inv = np.linalg.inv(W)
                spread = [width * math.sqrt(max(float(x @ W_inv @ x), 0.0)) for x in arms]
                best_lcb = max(arms[k] @ theta - spread[k] for k in range(K) if allowed[k])
                allowed = np.array([allowed[k] and arms[k] @ theta + spread[k] >= best_lcb for k in range(K)])
            V_inv = np.linalg.inv(V)
            scaled = np.empty_like(arms)
            for k in range(K):
                beta = math.exp(policy.R * min(2 * policy.S, width * math.sqrt(max(float(arms[k] @ V_inv @ arms[k]),
                                                                                       0.0))))
                scaled[k] = math.sqrt(float(policy.link.slope(arms[k] @ theta_1)) / beta) * arms[k]
        pi = g_optimal_design_one_run(scaled, allowed)
        a = int(sample_design(pi, np.array(uniforms[t - 1])))
        played[t - 1] = a
        sent.append(scaled[a])
        if t == ends[batch]:
            messages.append(np.array(sent))
            sent = []
            W, theta = releases[batch]
            if theta is not None:
                if batch == 0:
                    V, theta_1 = W, theta
                estimates.append((theta, W))
                batch += 1
    return played, messages


__all__ = ["shuffle_glm_one_run"]
