"""The blocks of the per-pull index policies compiled (numba): the argmax of the indices and the certificate of
:meth:`PerPullIndexPolicy.next_block <dpaudit.algorithms.online.indices.PerPullIndexPolicy.next_block>`, run by run,
with the numpy path's arithmetic, and Hybrid-UCB's update after a block (:func:`hybrid_add`).

The numpy certificate is a few dozen batched calls on (runs, window, K) arrays per block, each tens of microseconds
however few the runs, and a Hybrid-UCB run near UCB1's regime switches arms every other round: the calls, not the
arithmetic, took most of a simulation. Here each run is one loop, which also stops at the first round the
certificate fails instead of evaluating the whole window.

The same numbers as the numpy path, so the same blocks and the same trajectory (tests/test_index_certificate.py):

- an index is ``estimate + bonus(t, pulls)`` with the bonus of the policy's ``bonus_form``
  (:class:`~dpaudit.algorithms.online.indices.PerPullIndexPolicy`), ``sqrt(a L(t) / p) + c L(t) floor(log2(p + 1))
  / (p eps)``, each operation in the numpy path's order;
- L(t) and log2(p + 1) are read from tables numpy computed (:func:`~dpaudit.algorithms.online.indices.log_table`):
  numpy's log2 differs from the C library's, which numba calls, in the last bit of about one integer in 20,000;
- the lower bound of the played arm's estimate after i more pulls with rewards 0 is ``(head + noise_i) / (p + i)``
  (the policy's ``lower_parts``), the other arms' indices are taken at
  the end of each stretch of ``step`` rounds, and a NaN index loses every comparison and wins every argmax, as in
  numpy.

Import this module only when numba is installed (:data:`~dpaudit.algorithms.online.indices.COMPILED`).
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, inline="always")
def _bonus(L: float, p: int, a: float, c: float, eps: float, log2_table: np.ndarray) -> float:
    """sqrt(a L / p) + c L floor(log2(p + 1)) / (p eps), the numpy path's operations in its order."""
    value = math.sqrt(a * L / p)
    if c != 0.0:
        value += c * L * math.floor(log2_table[p + 1]) / (p * eps)
    return value


@numba.njit(cache=True, nogil=True)
def choose_arms(t: np.ndarray, estimates: np.ndarray, pulls: np.ndarray, table: np.ndarray, log2_table: np.ndarray,
                a: float, c: float, eps: float, played: np.ndarray) -> None:
    """``played[r]``: the argmax over arms of run r's index at round t[r] (+inf for an arm never pulled; the lowest
    arm among equals, the first NaN if any, as numpy's argmax)."""
    runs, K = estimates.shape
    for r in range(runs):
        L = table[t[r]]
        best, best_value = 0, -math.inf
        for j in range(K):
            value = estimates[r, j] + _bonus(L, pulls[r, j], a, c, eps, log2_table) if pulls[r, j] > 0 else math.inf
            if value != value:  # NaN: numpy's argmax returns the first one
                best = j
                break
            if j == 0 or value > best_value:
                best, best_value = j, value
        played[r] = best


@numba.njit(cache=True, nogil=True)
def certify(rows: np.ndarray, arms: np.ndarray, start: np.ndarray, window: np.ndarray, capped: np.ndarray,
            width: int, step: int, head: np.ndarray, noise: np.ndarray, leaf: np.ndarray, estimates: np.ndarray,
            pulls: np.ndarray, table: np.ndarray, log2_table: np.ndarray, a: float, c: float, eps: float,
            lengths: np.ndarray, windows: np.ndarray) -> None:
    """The certificate of each (rows[k], arms[k]) at round start[k] over at most ``window[k]`` pulls (already cut
    to the capacity and the limit; ``capped[k]``: the limit cut it): ``lengths[rows[k]]`` = 1 + the rounds
    i = 1 .. width - 1 won in a row, and the run's next window in ``windows``. ``noise``: (runs, K, S) prefix
    noises read at ``leaf[k] + i`` (an empty array: none)."""
    K = estimates.shape[1]
    noisy = noise.shape[0] > 0
    for k in range(rows.size):
        r, arm, w = rows[k], arms[k], window[k]
        own = pulls[r, arm]
        passed = 0
        stretch, others = -1, 0.0
        for i in range(1, width):
            if i >= w:
                break
            if (i - 1) // step != stretch:  # the other arms' largest index at the stretch's last round
                stretch = (i - 1) // step
                L = table[start[k] + min((stretch + 1) * step, width - 1)]
                others = -math.inf
                for j in range(K):
                    if j == arm:
                        continue
                    value = estimates[r, j] + _bonus(L, pulls[r, j], a, c, eps, log2_table)
                    if value != value:
                        others = value
                        break
                    if value > others:
                        others = value
            lower = (head[k] + noise[r, arm, leaf[k] + i]) / (own + i) if noisy else head[k] / (own + i)
            if not lower + _bonus(table[start[k] + i], own + i, a, c, eps, log2_table) > others:
                break
            passed = i
        lengths[r] = 1 + passed
        # the next window of (run, arm): twice this one when it passed whole, else twice the block; a window the
        # limit cut that passed whole says nothing about the next, and stays
        whole = passed >= w - 1
        if not (whole and capped[k]):
            windows[r, arm] = max(2, 2 * w if whole else 2 * (1 + passed))
        else:
            windows[r, arm] = max(2, windows[r, arm])


@numba.njit(cache=True, nogil=True)
def bonus_values(t: np.ndarray, pulls: np.ndarray, table: np.ndarray, log2_table: np.ndarray, a: float, c: float,
                 eps: float) -> np.ndarray:
    """The compiled bonus at each (t[k], pulls[k]), for the tests that hold it to the numpy bonus."""
    out = np.empty(t.size)
    for k in range(t.size):
        out[k] = _bonus(table[t[k]], pulls[k], a, c, eps, log2_table)
    return out


@numba.njit(cache=True, nogil=True)
def hybrid_add(rows: np.ndarray, arms: np.ndarray, counts: np.ndarray, sums: np.ndarray, pulls: np.ndarray,
               leaves: np.ndarray, tree_sum: np.ndarray, noisy_arrays: np.ndarray, estimates: np.ndarray,
               prefix_noise: np.ndarray, chunk_start: np.ndarray, block: np.ndarray, array_noise: np.ndarray,
               level_noise: np.ndarray) -> None:
    """Hybrid-UCB's ``_add`` (:class:`~dpaudit.algorithms.online.hybrid_ucb.HybridUCB`) once the chunks of p-sum
    noise its pulls read are drawn: run rows[k] pulled arms[k] counts[k] times with reward sum sums[k]. A first pull
    releases x + Z^(0) and opens block 1; a later one adds to block r's tree and reads eq. 34,
    (F~ + S + prefix noise) / O, summed in that order; a block filled joins F~ with its Z^(r)."""
    for k in range(rows.size):
        r, j = rows[k], arms[k]
        if pulls[r, j] == 0:  # the initialisation
            noisy_arrays[r, j] = sums[k] + array_noise[r, j, 0]
            estimates[r, j] = (noisy_arrays[r, j] + 0.0 + 0.0) / 1
            pulls[r, j] = 1
            block[r, j] = 1
            continue
        pulls[r, j] += counts[k]
        leaves[r, j] += counts[k]
        tree_sum[r, j] += sums[k]
        leaf = leaves[r, j] - chunk_start[r, j]
        estimates[r, j] = (noisy_arrays[r, j] + tree_sum[r, j] + prefix_noise[r, j, leaf]) / pulls[r, j]
        level = block[r, j]
        if leaves[r, j] == 1 << level:  # block r is full: its array joins F~ with Z^(r)
            noisy_arrays[r, j] += tree_sum[r, j] + array_noise[r, j, level]
            block[r, j] = level + 1
            tree_sum[r, j] = 0.0
            leaves[r, j] = 0
            chunk_start[r, j] = -1
            for i in range(level_noise.shape[2]):
                level_noise[r, j, i] = 0.0
