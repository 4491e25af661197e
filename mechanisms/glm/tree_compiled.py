"""The symmetric Gaussian tree's online insertion compiled (numba): what :meth:`~dpaudit.mechanisms.glm.
exploration_set.TreeStream.insert` does with its arrays once the node's noise is drawn -- the leaf and the noise
whitened (the upper triangle, off-diagonal entries times sqrt 2), the binary mechanism's block ending at t (the
leaf plus the exact blocks of the levels below lsb(t), which it absorbs) and its release, the noisy prefix sum
over the levels, mapped back to symmetric matrices -- in one pass instead of about ten small array operations.
The same operations in the same order as the numpy path: the same floating-point values (tests/
test_glm_private_algorithms.py holds them bit for bit).

Import this module only when numba is installed (:data:`AVAILABLE` in :mod:`.exploration_set`).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def binary_tree_insert(exact: np.ndarray, noisy: np.ndarray, level: int, x: np.ndarray, noise: np.ndarray,
                       upper_i: np.ndarray, upper_j: np.ndarray, scale: np.ndarray, whitened_noise: np.ndarray,
                       out: np.ndarray) -> None:
    """Insert the leaves ``x`` (runs, d, d) with the node noise ``noise`` (runs, d, d) into the binary mechanism's
    per-level blocks ``exact`` and ``noisy`` (levels, runs, m), in whitened coordinates (``upper_i``, ``upper_j``,
    ``scale``: the m upper-triangle entries and their factors), the block ending at this insertion on ``level``;
    fill ``whitened_noise`` (runs, m) and ``out`` (runs, d, d) with the noisy prefix sum as symmetric matrices."""
    levels, runs, m = exact.shape
    for r in range(runs):
        for c in range(m):
            i, j = upper_i[c], upper_j[c]
            below = 0.0
            for lower in range(level):
                below += exact[lower, r, c]
                exact[lower, r, c] = 0.0
                noisy[lower, r, c] = 0.0
            block = x[r, i, j] * scale[c] + below
            whitened = noise[r, i, j] * scale[c]
            whitened_noise[r, c] = whitened
            exact[level, r, c] = block
            noisy[level, r, c] = block + whitened
            total = 0.0
            for any_level in range(levels):
                total += noisy[any_level, r, c]
            value = total / scale[c]
            out[r, i, j] = value
            out[r, j, i] = value


__all__ = ["binary_tree_insert"]
