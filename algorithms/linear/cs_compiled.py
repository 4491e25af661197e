"""concurrent-shuffle's Algorithm 4 (:class:`~dpaudit.algorithms.linear.cs_linucb.TreeLinUCB` on Corollary 3.5's
vector counter) compiled (numba): a block of rounds of every run in one loop, the model refreshed from the tree's
release every round.

A round of the numpy path is some forty small array operations on (runs, ...) arrays (the rounding at every level of
the tree, the completed blocks' analysis, the scores, a batched Cholesky factor and inverse), about 350 µs however few
the runs. Here each run goes through the block in turn:

- the scores and the lowest arm within 1e-9 of the best, as LinUCB's compiled rounds compute them
  (:mod:`.compiled`);
- the played row into the tree by the mechanism's own compiled round
  (:func:`~dpaudit.mechanisms.counters.tree_stream_compiled.tree_round`), on the draws the stream made ahead in the
  order its round-by-round path makes them (:meth:`~dpaudit.mechanisms.counters.concurrent_shuffle.VectorTreeStream.
  draws_ahead`): the released sums are those of the numpy path to the bit;
- V = the released Gram matrix (the levels' sums added from the lowest) + lambda I, kept only if positive definite
  (Cholesky), its inverse from the factor, theta = V^-1 u; the radius of each round computed by the caller.

The model's arithmetic is summed in another order than numpy's batched calls, so decisions agree except where two
arms' scores fall within rounding of the 1e-9 margin (tests/test_cs_linucb_compiled.py).

Import this module only when numba is installed (:data:`~dpaudit.algorithms.linear.linucb.AVAILABLE`).
"""

from __future__ import annotations

import numba
import numpy as np

from dpaudit.mechanisms.counters.tree_stream_compiled import tree_round

from .compiled import _afresh, _first_best, _inverse_from_cholesky, cholesky, played_reward


@numba.njit(cache=True, nogil=True)
def tree_linucb_rounds(run_lo: int, run_hi: int, t0: int, contexts: np.ndarray, fixed: bool, law: int,
                       rewards: np.ndarray, theta_star: np.ndarray, sigma: float, noise: np.ndarray, betas: np.ndarray,
                       lam: float, uniforms: np.ndarray, tree_noise: np.ndarray, sizes: np.ndarray,
                       precision: np.ndarray, scale: np.ndarray, offset: np.ndarray, shift: np.ndarray,
                       upper_i: np.ndarray, upper_j: np.ndarray, rounded: np.ndarray, level_gram: np.ndarray,
                       level_u: np.ndarray, V_inv: np.ndarray, theta: np.ndarray, indefinite: np.ndarray,
                       played: np.ndarray, collected: np.ndarray) -> None:
    """Rounds t0 .. t0 + count - 1 of runs run_lo .. run_hi - 1, in place (each run reads and writes only its own
    rows). contexts, law, rewards, theta_star, sigma, noise, betas: as :func:`~.compiled.linucb_rounds`. The tree:
    ``uniforms`` and ``tree_noise`` (count, k, runs, labels) the rounds' draws, ``sizes`` (k,) the block sizes,
    precision, scale, offset, shift (k,) the levels' rounding and analyzer constants, ``rounded`` (k, runs, labels)
    the running counts, ``level_gram`` (k, runs, d, d) and ``level_u`` (k, runs, d) the released blocks' debiased sums
    per level. The model: V_inv (runs, d, d), theta (runs, d); a released V + lambda I that is not positive
    definite keeps the run's previous V^-1, counted in ``indefinite`` (runs,). Written: played and collected (count,
    runs)."""
    count = played.shape[0]
    K, d = contexts.shape[2], contexts.shape[3]
    k, labels = rounded.shape[0], rounded.shape[2]
    scores, widths, means, row = np.empty(K), np.empty(K), np.empty(K), np.empty(K)
    xT, V, L, work = np.empty((d, K)), np.empty((d, d)), np.zeros((d, d)), np.empty((d, d))
    user, released_u, fractions = np.empty(d + 1), np.empty(d), np.empty(labels)
    for r in range(run_lo, run_hi):
        for s in range(count):
            t = t0 + s
            xT[:] = contexts[0 if fixed else s, r].T
            _afresh(xT, V_inv[r], theta[r], widths, means, row)
            arm = _first_best(means, widths, betas[s], scores)
            played[s, r] = arm
            reward = played_reward(law, rewards, theta_star, sigma, noise, s, r, arm, xT)
            collected[s, r] = reward
            for j in range(d):
                user[j] = xT[j, arm]
            user[d] = reward
            tree_round(t, user, d, uniforms[s, :, r], tree_noise[s, :, r], sizes, precision, scale, offset, shift,
                       upper_i, upper_j, rounded[:, r], level_gram[:, r], level_u[:, r], fractions)
            # the released sums: the levels' blocks in V^t, added from the lowest level (numpy's sum over them)
            for i in range(d):
                released_u[i] = level_u[0, r, i]
                for j in range(d):
                    V[i, j] = level_gram[0, r, i, j]
            for level in range(1, k):
                for i in range(d):
                    released_u[i] += level_u[level, r, i]
                    for j in range(d):
                        V[i, j] += level_gram[level, r, i, j]
            for i in range(d):
                V[i, i] += lam
            if cholesky(V, L):
                _inverse_from_cholesky(L, work, V_inv[r])
            else:
                indefinite[r] += 1
            for i in range(d):
                total = 0.0
                for j in range(d):
                    total += V_inv[r, i, j] * released_u[j]
                theta[r, i] = total
