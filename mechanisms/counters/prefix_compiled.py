"""The binary mechanism's prefix sums from its released p-sums compiled (numba): :meth:`~dpaudit.mechanisms.counters.
tree.BinaryTreeMechanism.prefix` for many releases at once (a tail audit's thousands of sampled trees).

The prefix through t is the sum of the blocks of t's set bits, the block of bit j ending at t with its bits below j
cleared; the numpy path adds them level by level, bit 0 first, into zeros, with a boolean mask and a gather of the
whole array per level. Here each prefix is summed in place in the same order (0 + the lowest bit's block + the next
..), so the values are the numpy path's bit for bit (tests/test_binary_tree.py).

Import this module only when numba is installed (the ``fast`` extra).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def prefix_sums(nodes: np.ndarray, out: np.ndarray) -> None:
    """``out`` (outer, T, inner) = the prefix sums of the p-sums ``nodes`` (outer, T, inner), block axis in the
    middle."""
    outer, T, inner = nodes.shape
    for o in range(outer):
        for t in range(1, T + 1):
            for c in range(inner):
                out[o, t - 1, c] = 0.0
            j = 0
            while (t >> j) > 0:
                if (t >> j) & 1:
                    node = ((t >> j) << j) - 1
                    for c in range(inner):
                        out[o, t - 1, c] += nodes[o, node, c]
                j += 1
