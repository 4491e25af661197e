"""The plain per-run reference of shuffle-glm's Algorithm 2 (JDP-GLM, Private-GLM): one run, plain numpy,
solving afresh every round (the tree's prefix sums from the leaves and the node noises by the block
definition, V^-1 and det(H) by numpy, the arms one by one), to hold the vectorised
:class:`~.algorithm2.Algorithm2` to.

The private draws are given, not drawn: ``noise_V``, ``noise_H`` (T, d, d) are the trees' node noises in
the order the nodes complete (node t completes at round t), and ``fitted(kind, t, n)`` returns the optimizer's
output for a call of ``kind`` ("explore" / "switch") at round t on n points. With a policy's recorded draws
(``record=True``) the reference must make the same decisions and the same optimizer calls.

``tree="released-code"``: V and H are the cited code's tree as it runs (the heap of
:mod:`~dpaudit.mechanisms.released_code.glm_released_code`, built here node by node as the code does: every
insertion added to the leaf and its ancestors, the query walking from the leaf to the root), and the node noises
are given as
{heap index: (d, d)}; lambda I is added inside the query, before the projection onto the PSD cone."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.algorithms.linear.linucb import first_best

from .algorithm2 import Algorithm2Settings


def _block(t: int) -> range:
    """The leaves (1-based) of the binary mechanism's p-sum ending at t: length 2^lsb(t)."""
    return range(t - (t & -t) + 1, t + 1)


def _prefix_blocks(t: int) -> list[int]:
    """The p-sums (their end points) whose sum is the prefix sum through t: one per set bit of t."""
    ends = []
    while t:
        ends.append(t)
        t -= t & -t
    return ends


class _CodeHeap:
    """The cited code's tree for one run, plain: a 1-indexed heap of 2^h node sums, h = ceil(log2 T) + 1."""

    def __init__(self, T: int, d: int, lam: float, noise: Any):
        self.height = math.ceil(math.log2(T)) + 1
        self.sums = np.zeros((2**self.height, d, d))
        self.noise, self.lam_I, self.count = noise, lam * np.eye(d), 0

    def insert_and_query(self, leaf: np.ndarray) -> np.ndarray:
        self.count += 1
        i = self.count + 2 ** (self.height - 1) - 1
        c = i
        while c > 0:
            self.sums[c] += leaf
            c //= 2
        out = self.sums[i] + self.noise[i]
        c = i
        while c > 0:
            if c % 2 == 0:
                out = out + self.sums[c - 1] + self.noise[c - 1]
            c //= 2
        m = out + self.lam_I
        m = (m + m.T) / 2
        values, vectors = np.linalg.eigh(m)
        return vectors @ np.diag(np.maximum(values, 1e-12)) @ vectors.T


def algorithm2_one_run(config: Algorithm2Settings, link: Any, contexts: np.ndarray, rewards: np.ndarray,
                       noise_V: Any, noise_H: Any,
                       fitted: Callable[[str, int, int], np.ndarray],
                       variant: str = "paper", tree: str = "binary") -> tuple[np.ndarray, list[tuple[str, int, int]]]:
    """One run of Algorithm 2 over the rounds of ``contexts`` (T, K, d) with reward table ``rewards`` (T, K).
    Returns the arms played (T,) and the optimizer calls [(kind, t, n)]. ``variant="released-code"``: the cited
    code's departures (strict criterion I, switch on det >= 2 det, criterion-I points before count1's cutoff in
    criterion II's data too, the UCB at (theta_o + theta_tau)/2, the exploration leaf x x^T / (1 + ||x||^2), V's
    leaf inserted when the arm is chosen and read by the elimination, no switch after count2's cutoff, the switch
    reference max(last reference, det(H)))."""
    code = variant == "released-code"
    T, K, d = contexts.shape
    lam_I = config.lam * np.eye(d)
    V, H, H_tau = lam_I.copy(), lam_I.copy(), lam_I.copy()
    theta_o, theta_tau = np.zeros(d), np.zeros(d)
    det_max = det_switch = config.lam**d
    count1 = count2 = 0
    explored: list[int] = []
    exploited: list[int] = []
    leaves_V, leaves_H, psum_V, psum_H = {}, {}, {}, {}
    heap_V = heap_H = None
    if tree == "released-code":
        heap_V = _CodeHeap(T, d, config.lam, noise_V)
        heap_H = _CodeHeap(T, d, config.lam, noise_H)

    def release(t: int, leaf: np.ndarray, leaves: dict, psums: dict, noise: Any, heap: Any) -> np.ndarray:
        """Leaf t into a tree; the matrix released after it (lambda I included)."""
        leaves[t] = leaf
        if tree == "released-code":
            return heap.insert_and_query(leaf)
        psums[t] = sum(leaves[s] for s in _block(t)) + noise[t - 1]
        return lam_I + sum(psums[e] for e in _prefix_blocks(t))

    played = np.empty(T, dtype=np.int64)
    calls: list[tuple[str, int, int]] = []
    for t in range(1, T + 1):
        arms = contexts[t - 1]
        det_max = max(det_max, float(np.linalg.det(H)))
        V_inv = np.linalg.inv(V)
        norms2 = np.array([max(float(x @ V_inv @ x), 0.0) for x in arms])
        explore = norms2.max() > config.threshold if code else norms2.max() >= config.threshold
        zero = np.zeros((d, d))
        widest = int(first_best(norms2[None])[0])  # criterion I's arm
        if code:  # the code's V takes the round's leaf when the arm is chosen; the elimination reads that V
            leaf = np.outer(arms[widest], arms[widest]) / (1 + norms2[widest]) if explore else zero
            V = release(t, leaf, leaves_V, psum_V, noise_V, heap_V)
            V_inv = np.linalg.inv(V)
        if explore:
            a = widest
        else:
            if (det_max >= 2 * det_switch and count2 < config.count2_cutoff) if code else (det_max > 2 * det_switch):
                det_switch = max(det_switch, float(np.linalg.det(H))) if code else det_max
                H_tau = H.copy()
                n = len(exploited)
                if count2 < config.count2_cutoff and n > 0:
                    theta_tau = fitted("switch", t, n)
                    calls.append(("switch", t, n))
                    count2 += 1
            H_tau_inv = np.linalg.inv(H_tau)
            widths = [math.sqrt(max(float(arms[k] @ V_inv @ arms[k]), 0.0)) for k in range(K)]
            ucb_o = [arms[k] @ theta_o + config.elimination_width * widths[k] for k in range(K)]
            lcb_o = [arms[k] @ theta_o - config.elimination_width * widths[k] for k in range(K)]
            best_lcb = max(lcb_o)
            scores = np.full(K, -np.inf)
            for k in range(K):
                if ucb_o[k] >= best_lcb:
                    h_width = math.sqrt(max(float(arms[k] @ H_tau_inv @ arms[k]), 0.0))
                    centre = (theta_o + theta_tau) / 2 if code else theta_tau
                    scores[k] = arms[k] @ centre + config.beta * h_width
            a = int(first_best(scores[None])[0])
        played[t - 1] = a
        x = arms[a]
        if explore:
            explored.append(t)
            if count1 < config.count1_cutoff:
                if code:  # the code's criterion-II data also holds this point
                    exploited.append(t)
                theta_o = fitted("explore", t, len(explored))
                calls.append(("explore", t, len(explored)))
                count1 += 1
            leaf_V, leaf_H = np.outer(x, x), zero
        else:
            exploited.append(t)
            leaf_V, leaf_H = zero, float(link.slope(x @ theta_o)) / math.e * np.outer(x, x)
        if not code:
            V = release(t, leaf_V, leaves_V, psum_V, noise_V, heap_V)
        H = release(t, leaf_H, leaves_H, psum_H, noise_H, heap_H)
    return played, calls


__all__ = ["algorithm2_one_run"]
