"""The released code's GLM tree query compiled (numba): what :meth:`~dpaudit.mechanisms.released_code.
glm_released_code.ReleasedCodeTreeStream.insert` does with its arrays after the Python bookkeeping (which nodes
are read, which noise is new) — the path's sums moved and accumulated, the read nodes' sums and noises added in
the code's order, lam I added, the result symmetrised and tested for eigenvalues above the floor — in one pass
per run instead of about fifteen small array operations. The same operations in the same order as the numpy
path: the same floating-point values (tests/test_glm_released_code.py holds them bit for bit).

Import this module only when numba is installed (:data:`AVAILABLE` in :mod:`.glm_released_code`).
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def code_tree_query(sums: np.ndarray, first: int, x: np.ndarray, read: np.ndarray, noise: np.ndarray, lam: float,
                    floor: float, out: np.ndarray, low: np.ndarray) -> None:
    """One insertion of ``x`` (runs, d, d) into the level sums ``sums`` (2h + 1, runs, d, d: the path's nodes, the
    nodes before them, zeros), the levels from ``first`` on starting new nodes; then ``out`` (runs, d, d) = the sum
    over the read nodes k of sums[read[0, k]] + noise[read[1, k]] (the noise slots), in k's order, plus lam I,
    symmetrised; ``low`` (runs,) flags the runs whose result has an eigenvalue at or below ``floor`` (a Cholesky
    factorisation of out - floor I fails)."""
    h = (sums.shape[0] - 1) // 2
    runs, d = x.shape[0], x.shape[1]
    for level in range(first, h):
        sums[h + level] = sums[level]
        sums[level] = 0.0
    L = np.empty((d, d))
    for r in range(runs):
        for level in range(h):
            for i in range(d):
                for j in range(d):
                    sums[level, r, i, j] += x[r, i, j]
        for i in range(d):
            for j in range(d):
                total = 0.0
                for k in range(read.shape[1]):
                    total += sums[read[0, k], r, i, j] + noise[read[1, k], r, i, j]
                out[r, i, j] = total + lam if i == j else total + 0.0
        for i in range(d):
            for j in range(i + 1, d):
                value = (out[r, i, j] + out[r, j, i]) / 2
                out[r, i, j] = value
                out[r, j, i] = value
            out[r, i, i] = (out[r, i, i] + out[r, i, i]) / 2
        low[r] = False
        for j in range(d):  # Cholesky of out - floor I
            pivot = out[r, j, j] - floor
            for k in range(j):
                pivot -= L[j, k] * L[j, k]
            if not pivot > 0.0:
                low[r] = True
                break
            L[j, j] = math.sqrt(pivot)
            for i in range(j + 1, d):
                value = out[r, i, j]
                for k in range(j):
                    value -= L[i, k] * L[j, k]
                L[i, j] = value / L[j, j]


__all__ = ["code_tree_query"]
