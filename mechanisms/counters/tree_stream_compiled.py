"""One round of Corollary 3.5's vector counter for one run, compiled (numba): what
:meth:`VectorTreeStream.add <dpaudit.mechanisms.counters.concurrent_shuffle.VectorTreeStream.add>` and P_Vec's analyzer
do with a user's row once the round's draws are made (:meth:`~dpaudit.mechanisms.counters.concurrent_shuffle.
VectorTreeStream.draws_ahead`), for a compiled online algorithm that calls it round after round.

- the row (phi, y) as P_Vec's label entries (phi y, then the upper triangle of phi phi^T, row-major), each clipped to
  [-1, 1], as the fraction (w + Delta) / (2 Delta) (:func:`~dpaudit.mechanisms.shuffle.shuffle_vec.user_entries`;
  the caller has checked ||phi|| <= 1 and |y| <= 1, as ``user_entries`` does);
- at every level the randomized rounding at precision g: floor(f g) + 1{U < f g - floor(f g)} added to the level's
  running count;
- each block completed at t released as its count plus its noise bits, debiased by the analyzer,
  o = (Delta / g)(C - p b s) - s Delta, into the sums of its level, the lower levels' sums emptied (a completed
  block replaces the blocks it contains, Definition 3.1).

The same operations in the same order as the numpy path, so the same values (tests/test_cs_linucb_compiled.py
holds them bit for bit). Import this module only when numba is installed.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def tree_round(t: int, row: np.ndarray, d: int, uniforms: np.ndarray, noise: np.ndarray, sizes: np.ndarray,
               precision: np.ndarray, scale: np.ndarray, offset: np.ndarray, shift: np.ndarray, upper_i: np.ndarray,
               upper_j: np.ndarray, rounded: np.ndarray, level_gram: np.ndarray, level_u: np.ndarray,
               fractions: np.ndarray) -> None:
    """User t's ``row`` (phi, y) of one run into its tree: ``uniforms`` and ``noise`` (k, labels) the round's draws
    for this run, ``rounded`` (k, labels) the levels' running counts, ``level_gram`` (k, d, d) and ``level_u`` (k, d)
    the debiased sums of the blocks in V^t per level; ``fractions`` (labels,) is work space."""
    y = row[d]
    for i in range(d):
        fractions[i] = (min(max(row[i] * y, -1.0), 1.0) + 1.0) / 2.0
    for c in range(upper_i.shape[0]):
        fractions[d + c] = (min(max(row[upper_i[c]] * row[upper_j[c]], -1.0), 1.0) + 1.0) / 2.0
    k, labels = rounded.shape
    for level in range(k):
        g = precision[level]
        for c in range(labels):
            scaled = fractions[c] * g
            low = np.floor(scaled)
            rounded[level, c] += np.int64(low) + (1 if uniforms[level, c] < scaled - low else 0)
    for level in range(k):
        if t % sizes[level] != 0:
            continue
        # the block's release, debiased (P_Vec's A_Vec): the vector labels first, then the upper triangle
        for i in range(d):
            count = np.float64(rounded[level, i] + noise[level, i])
            level_u[level, i] += scale[level] * (count - offset[level]) - shift[level]
        for c in range(upper_i.shape[0]):
            count = np.float64(rounded[level, d + c] + noise[level, d + c])
            value = scale[level] * (count - offset[level]) - shift[level]
            level_gram[level, upper_i[c], upper_j[c]] += value
            if upper_i[c] != upper_j[c]:
                level_gram[level, upper_j[c], upper_i[c]] += value
        for c in range(labels):
            rounded[level, c] = 0
        for lower in range(level):  # a completed block replaces the lower-level blocks it contains
            for i in range(d):
                level_u[lower, i] = 0.0
                for j in range(d):
                    level_gram[lower, i, j] = 0.0
