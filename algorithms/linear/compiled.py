"""LinUCB's rounds compiled (numba): the inner loop of :meth:`LinUCB.play_rounds
<dpaudit.algorithms.linear.linucb.LinUCB.play_rounds>` for the exact statistics and for private releases whose
noise is drawn ahead.

A round of the vectorised numpy path is a handful of batched calls on (runs, K, d) arrays, each a few tens of
microseconds however small the arrays (about 150 us for 50 runs at K = 100, d = 5, against the released code's
30-60 us per run), and each round waits for the one before. Here every run goes through a block of rounds in one
compiled loop, with the same algorithm (module docstring of :mod:`~dpaudit.algorithms.linear.linucb`):

- the scores <x_a, theta> + beta ||x_a||_{V^-1}, and the lowest arm within 1e-9 (relative) of the best
  (:func:`~dpaudit.algorithms.linear.linucb.first_best`);
- at a batch end V^-1 by Sherman-Morrison (B = 1) or the inverse of lambda I plus the Gram matrix (B > 1), then
  theta = V^-1 u; the radius of each round comes from :meth:`LinUCB.radius`, computed by the caller;
- on a fixed arm set the squared widths and the means <x_a, theta> are kept per run and arm: after a
  Sherman-Morrison update (vx = V^-1 x_t, scale = 1 / (1 + <x_t, vx>)) ||x_a||^2 falls by <x_a, vx>^2 scale, as
  the numpy path keeps it, and theta = V^-1 u moves by vx (y_t - scale <vx, u>) (u updated), so <x_a, theta> by
  <x_a, vx> times that: one product with the arms per round instead of two. Both are computed afresh every
  ``refresh`` updates (the numpy path's ``REFRESH``) and after every batch end with B > 1;
- computed afresh on a fixed arm set, ||x_a||^2 is sum_{i <= j} w_ij x_i x_j (V^-1)_ij from the products
  x_i x_j w_ij made once per block (w = 1 on the diagonal, 2 off it), as the numpy path's private rounds do.

The arithmetic is the numpy path's, summed in another order: decisions agree except where two arms' scores fall
within rounding of the 1e-9 margin (tests/test_linucb_compiled.py holds the two, and the per-run reference,
decision for decision on seeded runs).

Import this module only when numba is installed (:data:`AVAILABLE` in :mod:`~dpaudit.algorithms.linear.linucb`).
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _afresh(xT: np.ndarray, V_inv: np.ndarray, theta: np.ndarray, widths: np.ndarray, means: np.ndarray,
            row: np.ndarray) -> None:
    """||x_a||^2_{V^-1} and <x_a, theta> for every arm a of one run: xT (d, K), V_inv (d, d), theta (d,); ``row``
    (K,) is work space. The loops run over the arms innermost (contiguous, so the compiler vectorises them)."""
    d, K = xT.shape
    for a in range(K):
        widths[a] = 0.0
        means[a] = 0.0
    for i in range(d):
        for a in range(K):
            row[a] = 0.0
        for j in range(d):
            coefficient = V_inv[j, i]
            for a in range(K):
                row[a] += xT[j, a] * coefficient
        weight = theta[i]
        for a in range(K):
            widths[a] += row[a] * xT[i, a]
            means[a] += xT[i, a] * weight


@numba.njit(cache=True, nogil=True)
def _outer_products(xT: np.ndarray, upper_i: np.ndarray, upper_j: np.ndarray, outer: np.ndarray) -> None:
    """x_i x_j w_ij per upper coordinate c = (i, j) and arm (w = 1 on the diagonal, 2 off it) into ``outer``
    (d(d + 1)/2, K): the products a fixed arm set's widths are sums of (the numpy path's ``_outer``)."""
    K = xT.shape[1]
    for c in range(upper_i.shape[0]):
        i, j = upper_i[c], upper_j[c]
        weight = 1.0 if i == j else 2.0
        for a in range(K):
            outer[c, a] = xT[i, a] * xT[j, a] * weight


@numba.njit(cache=True, nogil=True)
def _add_rows(rows: np.ndarray, weights: np.ndarray, out: np.ndarray) -> None:
    """out[a] += sum_c weights[c] rows[c, a], five rows per pass over the arms (``out`` loaded and stored once per
    five: a tenth of LinUCB-LDP's loop), the rest one by one."""
    C, K = rows.shape
    c = 0
    while c + 4 < C:
        w0, w1, w2, w3, w4 = weights[c], weights[c + 1], weights[c + 2], weights[c + 3], weights[c + 4]
        for a in range(K):
            out[a] += (rows[c, a] * w0 + rows[c + 1, a] * w1 + rows[c + 2, a] * w2 + rows[c + 3, a] * w3
                       + rows[c + 4, a] * w4)
        c += 5
    while c < C:
        weight = weights[c]
        for a in range(K):
            out[a] += rows[c, a] * weight
        c += 1


@numba.njit(cache=True, nogil=True)
def _afresh_fixed(xT: np.ndarray, outer: np.ndarray, upper_i: np.ndarray, upper_j: np.ndarray, V_inv: np.ndarray,
                  theta: np.ndarray, widths: np.ndarray, means: np.ndarray, coefficients: np.ndarray) -> None:
    """:func:`_afresh` on a fixed arm set from its :func:`_outer_products`: ||x_a||^2 = sum_{i <= j} w_ij x_i x_j
    (V^-1)_ij, d(d + 1)/2 products per arm where the full form takes d^2 + d (a private release refreshes the
    model, and so the widths, every round), summed by :func:`_add_rows`, as the means <x_a, theta> are;
    ``coefficients`` (d(d + 1)/2,) is work space for the (V^-1)_ij."""
    K = xT.shape[1]
    for c in range(upper_i.shape[0]):
        coefficients[c] = V_inv[upper_i[c], upper_j[c]]
    for a in range(K):
        widths[a] = 0.0
        means[a] = 0.0
    _add_rows(outer, coefficients, widths)
    _add_rows(xT, theta, means)


@numba.njit(cache=True, nogil=True)
def _first_best(means: np.ndarray, widths: np.ndarray, beta: float, scores: np.ndarray) -> int:
    """The lowest arm whose score <x_a, theta> + beta ||x_a||_{V^-1} is within 1e-9 (relative) of the best
    (:func:`~dpaudit.algorithms.linear.linucb.first_best`)."""
    K = means.shape[0]
    for a in range(K):
        scores[a] = means[a] + beta * math.sqrt(max(widths[a], 0.0))
    best = scores[0]
    for a in range(1, K):
        best = max(best, scores[a])
    margin = best - 1e-9 * (1.0 + abs(best))
    arm = 0
    while scores[arm] < margin:
        arm += 1
    return arm


@numba.njit(cache=True, nogil=True)
def _add_release(X: np.ndarray, y: np.ndarray, noise: np.ndarray, upper_i: np.ndarray, upper_j: np.ndarray,
                 gram: np.ndarray, u: np.ndarray) -> None:
    """One batch's release added to a run's cumulative sums: per coordinate, the users' entries (phi y, upper(phi
    phi^T), each clipped to [-1, 1]) summed in the users' order, plus the release's noise; the upper coordinates
    filled into both triangles of the Gram matrix (the randomizer's ``messages``)."""
    B, d = X.shape
    for i in range(d):
        total = 0.0
        for m in range(B):
            total += min(max(X[m, i] * y[m], -1.0), 1.0)
        u[i] += total + noise[i]
    for c in range(upper_i.shape[0]):
        i, j = upper_i[c], upper_j[c]
        total = 0.0
        for m in range(B):
            total += min(max(X[m, i] * X[m, j], -1.0), 1.0)
        value = total + noise[d + c]
        gram[i, j] += value
        if i != j:
            gram[j, i] += value


@numba.njit(cache=True, nogil=True)
def cholesky(V: np.ndarray, L: np.ndarray) -> bool:
    """V = L L^T into the lower triangle of L; False (L unfinished) when a pivot is not positive, where LAPACK's
    factorisation fails: V is not positive definite."""
    d = V.shape[0]
    for j in range(d):
        pivot = V[j, j]
        for k in range(j):
            pivot -= L[j, k] * L[j, k]
        if not pivot > 0.0:  # NaN fails too
            return False
        L[j, j] = math.sqrt(pivot)
        for i in range(j + 1, d):
            total = V[i, j]
            for k in range(j):
                total -= L[i, k] * L[j, k]
            L[i, j] = total / L[j, j]
    return True


@numba.njit(cache=True, nogil=True)
def _inverse_from_cholesky(L: np.ndarray, work: np.ndarray, out: np.ndarray) -> None:
    """V^-1 = L^-T L^-1 from V's Cholesky factor L, into ``out`` (no allocation: a LAPACK inverse per run and round
    cost most of a per-round release's loop). ``work`` (d, d) receives L^-1."""
    d = L.shape[0]
    for j in range(d):  # column j of L^-1 by forward substitution
        for i in range(d):
            if i < j:
                work[i, j] = 0.0
                continue
            total = 1.0 if i == j else 0.0
            for k in range(j, i):
                total -= L[i, k] * work[k, j]
            work[i, j] = total / L[i, i]
    for i in range(d):
        for j in range(i, d):
            total = 0.0
            for k in range(j, d):
                total += work[k, i] * work[k, j]
            out[i, j] = total
            out[j, i] = total


#: how a block's rewards are given to :func:`linucb_rounds`: every arm's reward in a table, or the played arm's
#: drawn from a uniform (Bernoulli, mean clip(<x, theta*>, 0, 1)) or a standard normal (clip(<x, theta*> + sigma
#: z, 0, 1)) of the round
TABLE, BERNOULLI, GAUSSIAN = 0, 1, 2


@numba.njit(cache=True, nogil=True)
def played_reward(law: int, rewards: np.ndarray, theta_star: np.ndarray, sigma: float, noise: np.ndarray, s: int,
                  r: int, arm: int, xT: np.ndarray) -> float:
    """Round s's reward of run r for the played ``arm`` (features column ``arm`` of xT (d, K)), by ``law``
    (:func:`linucb_rounds`' arguments): the table's entry, or 1{noise < clip(<x, theta*>, 0, 1)} (Bernoulli) or
    clip(<x, theta*> + sigma noise, 0, 1) (Gaussian), <x, theta*> summed in coordinate order."""
    if law == TABLE:
        return rewards[s, r, arm]
    location = 0.0
    for j in range(xT.shape[0]):
        location += xT[j, arm] * theta_star[r, j]
    if law == BERNOULLI:
        return 1.0 if noise[s, r] < min(max(location, 0.0), 1.0) else 0.0
    return min(max(location + sigma * noise[s, r], 0.0), 1.0)


@numba.njit(cache=True, nogil=True)
def linucb_rounds(run_lo: int, run_hi: int, t0: int, contexts: np.ndarray, fixed: bool, law: int, rewards: np.ndarray,
                  theta_star: np.ndarray, sigma: float, noise: np.ndarray, betas: np.ndarray, B: int, lam: float,
                  refresh: int, noisy: bool, cumulative: bool, release_noise: np.ndarray, upper_i: np.ndarray,
                  upper_j: np.ndarray, V_inv: np.ndarray, theta: np.ndarray, gram: np.ndarray, u: np.ndarray,
                  batch_X: np.ndarray, batch_y: np.ndarray, widths: np.ndarray, means: np.ndarray,
                  fresh_widths: np.ndarray, updates: np.ndarray, indefinite: np.ndarray, played: np.ndarray,
                  collected: np.ndarray) -> None:
    """Rounds t0 .. t0 + count - 1 of runs run_lo .. run_hi - 1, in place (each run reads and writes only its own
    rows: ranges of runs can play at once, :func:`~dpaudit.algorithms.runs_in_threads.over_runs`).

    contexts: (1, runs, K, d) when ``fixed`` (the same arm set every round), else (count, runs, K, d). The
    rewards by ``law``: :data:`TABLE`, every arm's reward of each round in ``rewards`` (count, runs, K); else the
    played arm's from ``noise`` (count, runs) and the run's ``theta_star`` (runs, d) (module constants). betas:
    (count,), the radius each round's scores use; refresh: updates between two computations afresh. A private
    release (``noisy``): ``release_noise`` (batch ends in the block, runs, d + d(d + 1)/2), the noise its releases
    add to the batch's summed entries (phi y, then upper(phi phi^T) at ``upper_i``, ``upper_j``, each user's entry
    clipped to [-1, 1] as the randomizer clips it), drawn ahead by the release; with ``cumulative`` False the
    released sums are instead the exact sums (unclipped, kept in ``gram`` and ``u``) plus that batch end's noise
    alone (the released code's pseudo-tree). A released V + lambda I that is not positive definite keeps the run's
    previous V^-1, counted in ``indefinite`` (runs,). The model:
    V_inv (runs, d, d), theta (runs, d), the released sums gram (runs, d, d) and u (runs, d); the batch so far:
    batch_X (runs, B, d), batch_y (runs, B); on a fixed arm set the kept squared widths and means <x_a, theta>
    (runs, K), with fresh_widths (runs,) (0: to compute afresh) and updates (runs,) since they were. Written:
    played and collected (count, runs), the arms and their rewards."""
    count = played.shape[0]
    K, d = contexts.shape[2], contexts.shape[3]
    scores, vx = np.empty(K), np.empty(d)
    xT, own_widths, own_means, along, row = np.empty((d, K)), np.empty(K), np.empty(K), np.empty(K), np.empty(K)
    V, L, work, released_u = np.empty((d, d)), np.zeros((d, d)), np.empty((d, d)), np.empty(d)
    outer, coefficients = np.empty((upper_i.shape[0], K)), np.empty(upper_i.shape[0])
    for r in range(run_lo, run_hi):
        if fixed:
            xT[:] = contexts[0, r].T
            _outer_products(xT, upper_i, upper_j, outer)
        end = 0  # the block's batch ends so far in this run
        for s in range(count):
            t = t0 + s
            if fixed:
                if fresh_widths[r] == 0:  # afresh: first, every `refresh` updates, each batch end if B > 1
                    _afresh_fixed(xT, outer, upper_i, upper_j, V_inv[r], theta[r], widths[r], means[r], coefficients)
                    fresh_widths[r] = 1
                    updates[r] = 0
                kept_widths, kept_means = widths[r], means[r]
            else:
                xT[:] = contexts[s, r].T
                _afresh(xT, V_inv[r], theta[r], own_widths, own_means, row)
                kept_widths, kept_means = own_widths, own_means
            arm = _first_best(kept_means, kept_widths, betas[s], scores)
            played[s, r] = arm
            reward = played_reward(law, rewards, theta_star, sigma, noise, s, r, arm, xT)
            collected[s, r] = reward
            slot = (t - 1) % B
            for j in range(d):
                batch_X[r, slot, j] = xT[j, arm]
            batch_y[r, slot] = reward
            if slot != B - 1:
                continue
            # a batch end: the released sums, then the model
            if noisy and cumulative:
                _add_release(batch_X[r], batch_y[r], release_noise[end, r], upper_i, upper_j, gram[r], u[r])
            else:
                for m in range(B):
                    for i in range(d):
                        u[r, i] += batch_X[r, m, i] * batch_y[r, m]
                        for j in range(d):
                            gram[r, i, j] += batch_X[r, m, i] * batch_X[r, m, j]
            released_u[:] = u[r]  # the u theta reads (plus a non-cumulative release's noise, below)
            if B == 1 and not noisy:  # Sherman-Morrison: (V + x x^T)^{-1} = V^-1 - vx vx^T / (1 + x^T vx), vx = V^-1 x
                norm = 0.0
                for i in range(d):
                    total = 0.0
                    for j in range(d):
                        total += V_inv[r, i, j] * batch_X[r, 0, j]
                    vx[i] = total
                    norm += batch_X[r, 0, i] * total
                scale = 1.0 / (1.0 + norm)
                for i in range(d):
                    for j in range(d):
                        V_inv[r, i, j] -= vx[i] * vx[j] * scale
            else:  # afresh; a released V that is not positive definite keeps the previous model
                V[:] = gram[r]
                if noisy and not cumulative:  # this batch end's noise on the exact sums
                    for i in range(d):
                        released_u[i] += release_noise[end, r, i]
                    for c in range(upper_i.shape[0]):
                        i, j = upper_i[c], upper_j[c]
                        V[i, j] += release_noise[end, r, d + c]
                        if i != j:
                            V[j, i] += release_noise[end, r, d + c]
                for i in range(d):
                    V[i, i] += lam
                if not noisy:
                    V_inv[r] = np.linalg.inv(V)
                elif cholesky(V, L):
                    _inverse_from_cholesky(L, work, V_inv[r])
                else:
                    indefinite[r] += 1
                fresh_widths[r] = 0
            if noisy:
                end += 1
            for i in range(d):
                total = 0.0
                for j in range(d):
                    total += V_inv[r, i, j] * released_u[j]
                theta[r, i] = total
            if fixed and B == 1 and not noisy:
                updates[r] += 1
                if updates[r] >= refresh:
                    fresh_widths[r] = 0
                    continue
                # the kept widths and means follow the rank-one update: with along_a = <x_a, vx>,
                # ||x_a||^2 falls by along_a^2 scale, and theta moves by vx (y - scale <vx, u>) (u updated)
                step = 0.0
                for j in range(d):
                    step += vx[j] * u[r, j]
                step = reward - scale * step
                for a in range(K):
                    along[a] = 0.0
                for j in range(d):
                    for a in range(K):
                        along[a] += xT[j, a] * vx[j]
                for a in range(K):
                    widths[r, a] -= along[a] * along[a] * scale
                    means[r, a] += along[a] * step


__all__ = ["BERNOULLI", "GAUSSIAN", "TABLE", "cholesky", "linucb_rounds"]
