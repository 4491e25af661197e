"""The repository's arm draws compiled (numba): each arm's Gaussian direction, then its uniform radius, from the
chunk's own ``numpy.random.Generator``, in the order :meth:`~dpaudit.algorithms.environments.glm.RepositoryArms.
_generate` draws them arm by arm in Python.

numba runs a Generator passed in with NumPy's own algorithms on its bit generator (the ziggurat normal, the
53-bit uniform), advancing the same state, so the draws and the generator's state after them are NumPy's bit for
bit (tests/test_glm_bandits.py holds them to the Python loop); the radius's U^{1/d} is the C library's pow, as
Python's ``**`` on a float is.

Import this module only when numba is installed (the ``fast`` extra).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def draw_arms(rng: np.random.Generator, directions: np.ndarray, radii: np.ndarray) -> None:
    """Fill ``directions`` (n, d) with standard normals and ``radii`` (n,) with U^{1/d}, arm after arm: d
    normals, then one uniform."""
    n, d = directions.shape
    for a in range(n):
        for i in range(d):
            directions[a, i] = rng.normal(0.0, 1.0)
        radii[a] = rng.uniform(0.0, 1.0) ** (1.0 / d)
