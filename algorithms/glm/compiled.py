"""The GLM maximum-likelihood fit's pass over the history compiled (numba): the gradient and Hessian of one
Newton step of :func:`~dpaudit.algorithms.glm.mle.fit_mle`,

    g = sum_s w_s loss'(z_s, r_s) x_s,    H = sum_s w_s loss''(z_s, r_s) x_s x_s^T,    z_s = <x_s, theta>,

for every active run (the regulariser is added by the caller). GLM-UCB refits on its whole history every
round, so this pass is its cost: T^2 / 2 points per run and Newton step. The numpy pass copies each run's
history (fancy indexing of the active runs), evaluates the link on all of it and reduces it in batched products;
here each run's history is read once, in place, with the link evaluated point by point.

The links (:mod:`dpaudit.mechanisms.glm.glm_links`):

- logistic: loss' = mu(z) - r, loss'' = mu(z)(1 - mu(z)), mu(z) = (1 + tanh(z / 2)) / 2 as the numpy link;
- probit with rewards in {0, 1}: with s = 2r - 1 and u = s z, loss' = -s h(u), loss'' = h(u)(u + h(u)),
  h = phi / Phi the inverse Mills ratio; Phi(u) = erfc(-u / sqrt 2) / 2, and below u = -30 (where Phi nears
  underflow) h(u) = 1 / m(-u) with m the upper-tail Mills ratio from its continued fraction
  m(x) = 1 / (x + 1 / (x + 2 / (x + 3 / (x + ...)))), whose 60 terms are exact to rounding for x >= 30.

The arithmetic is the numpy pass's in another order and with libm's erfc for scipy's ndtr: the two agree to
rounding (tests/test_glm_compiled.py: 1e-12 relative), so a fit agrees to rounding and a bandit's decisions
agree except where two arms' indices tie to rounding (held decision for decision on seeded runs).

Import this module only when numba is installed (:data:`AVAILABLE` in :mod:`~dpaudit.algorithms.glm.mle`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from dpaudit.algorithms.linear.compiled import cholesky
from dpaudit.mechanisms.glm.tree_compiled import binary_tree_insert

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT_2 = math.sqrt(2.0)
_DEEP = -30.0  # the numpy link's switch to logs
_FRACTION_TERMS = 60


@numba.njit(cache=True, nogil=True)
def inverse_mills(u: float) -> float:
    """h(u) = phi(u) / Phi(u) (module docstring)."""
    if u >= _DEEP:
        return math.exp(-0.5 * u * u - _LOG_SQRT_2PI) / (0.5 * math.erfc(-u / _SQRT_2))
    x = -u
    fraction = x
    for k in range(_FRACTION_TERMS, 0, -1):  # m(x) = 1 / (x + 1 / (x + 2 / (x + ...))), from the tail in
        fraction = x + k / fraction
    return fraction  # 1 / m(x)


@numba.njit(cache=True, nogil=True)
def newton_terms(X: np.ndarray, r: np.ndarray, w: np.ndarray, theta: np.ndarray, rows: np.ndarray, probit: bool,
                 gradient: np.ndarray, hessian: np.ndarray) -> None:
    """Fill ``gradient`` (k, d) and ``hessian`` (k, d, d) for the runs ``rows`` (k,) of the history ``X`` (runs,
    n, d), ``r`` (runs, n), weights ``w`` (runs, n; an empty second axis: every weight 1), at ``theta`` (k, d);
    ``probit``: the probit link (rewards in {0, 1}), else the logistic. Per run: z, then the weighted loss'
    and loss'' per point, then each sum over the points in a register (the link's libm calls are most of the
    cost: about 20 of the 25 ns a point takes)."""
    n, d = X.shape[1], X.shape[2]
    weighted = w.shape[1] > 0
    z, slope, curvature = np.empty(n), np.empty(n), np.empty(n)
    for k in range(rows.shape[0]):
        run = rows[k]
        Xr = X[run]
        for s in range(n):
            total = 0.0
            for i in range(d):
                total += Xr[s, i] * theta[k, i]
            z[s] = total
        for s in range(n):
            weight = w[run, s] if weighted else 1.0
            if probit:
                sign = 2.0 * r[run, s] - 1.0
                u = sign * z[s]
                h = inverse_mills(u)
                slope[s] = -sign * h * weight
                curvature[s] = h * (u + h) * weight
            else:
                mu = 0.5 * (1.0 + math.tanh(0.5 * z[s]))
                slope[s] = (mu - r[run, s]) * weight
                curvature[s] = mu * (1.0 - mu) * weight
        for i in range(d):
            total = 0.0
            for s in range(n):
                total += slope[s] * Xr[s, i]
            gradient[k, i] = total
            for j in range(i + 1):
                total = 0.0
                for s in range(n):
                    total += curvature[s] * Xr[s, i] * Xr[s, j]
                hessian[k, i, j] = total
                hessian[k, j, i] = total


@numba.njit(cache=True, nogil=True)
def _link_slope(z: float, probit: bool) -> float:
    """mu'(z), as the numpy links compute it (:mod:`dpaudit.mechanisms.glm.glm_links`)."""
    if probit:
        return math.exp(-0.5 * z * z - _LOG_SQRT_2PI)
    mu = 0.5 * (1.0 + math.tanh(z / 2.0))
    return mu * (1.0 - mu)


@numba.njit(cache=True, nogil=True)
def _quadratic(x: np.ndarray, M: np.ndarray) -> float:
    """x^T M x, as ``weighted_norms`` orders it: (x M) first, then its product with x."""
    d = x.shape[0]
    total = 0.0
    for j in range(d):
        row = 0.0
        for i in range(d):
            row += x[i] * M[i, j]
        total += row * x[j]
    return total


@numba.njit(cache=True, nogil=True)
def _log_det(M: np.ndarray, L: np.ndarray) -> float:
    """log det M of a positive definite M from its Cholesky factor (into L); -inf if M is not positive definite."""
    if not cholesky(M, L):
        return -np.inf
    total = 0.0
    for j in range(M.shape[0]):
        total += math.log(L[j, j])
    return 2.0 * total


@numba.njit(cache=True, nogil=True)
def _lowest_best(scores: np.ndarray) -> int:
    """The lowest arm within 1e-9 (relative) of the best score (:func:`~dpaudit.algorithms.linear.linucb.
    first_best`); -inf scores are never chosen unless all are."""
    best = scores[0]
    for a in range(1, scores.shape[0]):
        best = max(best, scores[a])
    margin = best - 1e-9 * (1.0 + abs(best))
    arm = 0
    while arm < scores.shape[0] - 1 and not scores[arm] >= margin:
        arm += 1
    return arm


@numba.njit(cache=True, nogil=True)
def _eliminate_then_ucb(arms: np.ndarray, width: np.ndarray, theta_o: np.ndarray, centre: np.ndarray,
                        H_tau_inv: np.ndarray, beta: float, middle: np.ndarray, scores: np.ndarray) -> int:
    """RS-GLinUCB's and Algorithm 2's criterion-II arm: the arms kept by the elimination around <x, theta_o> (kept
    when <x, theta_o> + width_x >= max_z <z, theta_o> - width_z), and among them the lowest within 1e-9 of the
    best <x, centre> + beta ||x||_{H_tau^-1}. ``middle`` and ``scores`` (K,) are work space."""
    K, d = arms.shape
    lower = -np.inf
    for a in range(K):
        total = 0.0
        for i in range(d):
            total += arms[a, i] * theta_o[i]
        middle[a] = total
        lower = max(lower, total - width[a])
    for a in range(K):
        if middle[a] + width[a] >= lower:
            total = 0.0
            for i in range(d):
                total += arms[a, i] * centre[i]
            scores[a] = total + beta * math.sqrt(max(_quadratic(arms[a], H_tau_inv), 0.0))
        else:
            scores[a] = -np.inf
    return _lowest_best(scores)


#: why :func:`rs_glinucb_rounds` returned: the block is done, runs switch before a round, runs played warm-up
DONE, SWITCH, WARM = 0, 1, 2


@numba.njit(cache=True, nogil=True)
def rs_glinucb_rounds(s0: int, contexts: np.ndarray, table: np.ndarray, means: np.ndarray, noise: np.ndarray,
                      width: float, beta: float, threshold: float, log_switch: float, probit: bool,
                      V_inv: np.ndarray, H: np.ndarray, H_tau_inv: np.ndarray, logdet_tau: np.ndarray,
                      theta_o: np.ndarray, theta_tau: np.ndarray, history_x: np.ndarray, history_r: np.ndarray,
                      warmup: np.ndarray, n0: int, norms: np.ndarray, warm: np.ndarray, switching: np.ndarray,
                      played: np.ndarray, collected: np.ndarray) -> tuple[int, int]:
    """RS-GLinUCB's rounds s0, s0 + 1, .. of a block (:class:`~dpaudit.algorithms.glm.rs_glinucb.RSGLinUCB`), every
    run in lockstep, until a run needs an MLE refit, which the caller does (the numpy fit, as the per-round path
    calls it) before calling again from the returned round. Returns (s, why):

    - (s, SWITCH): before round s's choice the runs flagged in ``switching`` pass the determinant test (criterion
      II), and their ``logdet_tau`` is set to log det H; the caller sets their H_tau^-1 and refits theta_tau on the
      history's first n0 + s rounds, then calls again from s (their test is then false: det H = det H_tau);
    - (s, WARM): rounds up to s - 1 are played and the runs flagged in ``warm`` played round s - 1 as a warm-up
      round (criterion I); the caller refits their theta_o on the history's first n0 + s rounds;
    - (count, DONE): the block is played.

    ``contexts`` (count, runs or 1, K, d) (1: the same arm sets for every run); the rewards from ``table`` (count,
    runs, K) or, with an empty table, 1{noise[s, r] < means[s, r, a]}. The state arrays are the policy's, updated
    in place; round s's observation goes to row n0 + s of the history and of ``warmup``. ``norms`` (runs, K),
    ``warm`` and ``switching`` (runs,) are work space."""
    count, K, d = contexts.shape[0], contexts.shape[2], contexts.shape[3]
    runs = V_inv.shape[0]
    shared = contexts.shape[1] == 1
    from_table = table.shape[0] > 0
    centre, scores, widths, mx = np.empty(K), np.empty(K), np.empty(K), np.empty(d)
    L = np.zeros((d, d))
    for s in range(s0, count):
        # the round's warm-up test, and the determinant test of the runs that are not in warm-up
        any_switch = False
        for r in range(runs):
            x = contexts[s, 0 if shared else r]
            largest = 0.0
            for a in range(K):
                norms[r, a] = math.sqrt(max(_quadratic(x[a], V_inv[r]), 0.0))
                largest = max(largest, norms[r, a] * norms[r, a])
            warm[r] = largest >= threshold
            switching[r] = False
            if not warm[r]:
                logdet = _log_det(H[r], L)
                if logdet > log_switch + logdet_tau[r]:  # H_tau's determinant is H's from now on
                    switching[r], logdet_tau[r] = True, logdet
                    any_switch = True
        if any_switch:
            return s, SWITCH
        any_warm = False
        for r in range(runs):
            x = contexts[s, 0 if shared else r]
            if warm[r]:
                arm = _lowest_best(norms[r])
            else:
                for a in range(K):
                    widths[a] = width * norms[r, a]
                arm = _eliminate_then_ucb(x, widths, theta_o[r], theta_tau[r], H_tau_inv[r], beta, centre, scores)
            if from_table:
                reward = table[s, r, arm]
            else:
                reward = 1.0 if noise[s, r] < means[s, r, arm] else 0.0
            played[s, r], collected[s, r] = arm, reward
            chosen = x[arm]
            row = n0 + s
            for i in range(d):
                history_x[r, row, i] = chosen[i]
            history_r[r, row] = reward
            warmup[r, row] = warm[r]
            if warm[r]:  # Sherman-Morrison, as the numpy path orders it
                any_warm = True
                for i in range(d):
                    total = 0.0
                    for j in range(d):
                        total += V_inv[r, i, j] * chosen[j]
                    mx[i] = total
                denominator = 0.0
                for i in range(d):
                    denominator += chosen[i] * mx[i]
                denominator += 1.0
                for i in range(d):
                    for j in range(d):
                        V_inv[r, i, j] -= mx[i] * mx[j] / denominator
            else:
                z = 0.0
                for i in range(d):
                    z += chosen[i] * theta_o[r, i]
                weight = _link_slope(z, probit) / math.e
                for i in range(d):
                    for j in range(d):
                        H[r, i, j] += weight * chosen[i] * chosen[j]
        if any_warm:
            return s + 1, WARM
    return count, DONE


@numba.njit(cache=True, nogil=True)
def _squared_widths(arms: np.ndarray, V_inv: np.ndarray, out: np.ndarray) -> float:
    """``out`` (K,) = ||x_a||^2_{V^-1} of the arms (K, d), floored at 0; returns the largest (criterion I's test)."""
    largest = -np.inf
    for a in range(arms.shape[0]):
        out[a] = max(_quadratic(arms[a], V_inv), 0.0)
        largest = max(largest, out[a])
    return largest


@numba.njit(cache=True, nogil=True)
def algorithm2_criteria(x: np.ndarray, V_inv: np.ndarray, H: np.ndarray, det_max: np.ndarray,
                        det_switch: np.ndarray, count2: np.ndarray, count2_cutoff: int, threshold: float, code: bool,
                        norms2: np.ndarray, explore: np.ndarray, widest: np.ndarray, switch: np.ndarray,
                        leaf: np.ndarray) -> bool:
    """The first half of a round of :class:`~dpaudit.algorithms.glm.algorithm2.Algorithm2`, per run, as its numpy
    ``choose`` computes it: det_max updated with det H; ``norms2`` (runs, K) = ||x||^2_{V^-1} floored at 0;
    criterion I (``explore``; strict under the code's variant) and its arm ``widest`` (the lowest within 1e-9 of
    the largest norm); the switch test (``switch``, the variant's rule); and, for the code's variant, V's leaf
    x x^T / (1 + ||x||^2_{V^-1}) of the widest arm in a criterion-I round, else 0 (``leaf``). Returns whether any
    run switches. ``x`` (runs or 1, K, d)."""
    runs, d = V_inv.shape[0], x.shape[2]
    shared = x.shape[0] == 1
    any_switch = False
    for r in range(runs):
        arms = x[0 if shared else r]
        det_max[r] = max(det_max[r], np.linalg.det(H[r]))
        largest = _squared_widths(arms, V_inv[r], norms2[r])
        explore[r] = largest > threshold if code else largest >= threshold
        widest[r] = _lowest_best(norms2[r])
        if code:
            switch[r] = not explore[r] and det_max[r] >= 2 * det_switch[r] and count2[r] < count2_cutoff
            scale = 1.0 + norms2[r, widest[r]]
            for i in range(d):
                for j in range(d):
                    leaf[r, i, j] = arms[widest[r], i] * arms[widest[r], j] / scale if explore[r] else 0.0
        else:
            switch[r] = not explore[r] and det_max[r] > 2 * det_switch[r]
        any_switch = any_switch or switch[r]
    return any_switch


@numba.njit(cache=True, nogil=True)
def algorithm2_choice(x: np.ndarray, norms2: np.ndarray, V_inv: np.ndarray, H_tau_inv: np.ndarray,
                      theta_o: np.ndarray, centre: np.ndarray, elimination_width: float, beta: float, fresh_V: bool,
                      explore: np.ndarray, widest: np.ndarray, played: np.ndarray, chosen: np.ndarray) -> None:
    """The second half of a round of :class:`~dpaudit.algorithms.glm.algorithm2.Algorithm2`'s ``choose``, per run:
    the widest arm in a criterion-I round; otherwise the arms kept by the elimination around <x, theta_o> (width
    ``elimination_width`` ||x||_{V^-1}, from ``norms2`` or, with ``fresh_V``, from ``V_inv`` afresh: the code's V
    includes the round's leaf) and among them the lowest within 1e-9 of the best <x, centre> + beta
    ||x||_{H_tau^-1}. ``played`` (runs,) and the played arms' features ``chosen`` (runs, d) are filled."""
    runs, K, d = V_inv.shape[0], x.shape[1], x.shape[2]
    shared = x.shape[0] == 1
    middle, width, scores = np.empty(K), np.empty(K), np.empty(K)
    for r in range(runs):
        arms = x[0 if shared else r]
        if explore[r]:
            arm = widest[r]
        else:
            for a in range(K):
                squared = max(_quadratic(arms[a], V_inv[r]), 0.0) if fresh_V else norms2[r, a]
                width[a] = elimination_width * math.sqrt(squared)
            arm = _eliminate_then_ucb(arms, width, theta_o[r], centre[r], H_tau_inv[r], beta, middle, scores)
        played[r] = arm
        for i in range(d):
            chosen[r, i] = arms[arm, i]


@numba.njit(cache=True, nogil=True)
def _lowest_set_bit(t: int) -> int:
    """The level of the tree's block that ends at leaf t >= 1: the position of t's lowest set bit."""
    level = 0
    while (t >> level) & 1 == 0:
        level += 1
    return level


@numba.njit(cache=True, nogil=True)
def algorithm2_rounds(s0: int, end: int, contexts: np.ndarray, table: np.ndarray, means: np.ndarray,
                      noise: np.ndarray, tree_noise: np.ndarray, lam: float, threshold: float,
                      elimination_width: float, beta: float, count1: np.ndarray, count1_cutoff: int, probit: bool,
                      V: np.ndarray, H: np.ndarray, V_inv: np.ndarray, H_tau_inv: np.ndarray, det_max: np.ndarray,
                      det_switch: np.ndarray, theta_o: np.ndarray, theta_tau: np.ndarray, X: np.ndarray, Y: np.ndarray,
                      in_T_o: np.ndarray, row0: int, leaves: int, exact_V: np.ndarray, noisy_V: np.ndarray,
                      exact_H: np.ndarray, noisy_H: np.ndarray, upper_i: np.ndarray, upper_j: np.ndarray,
                      scale: np.ndarray, played: np.ndarray, collected: np.ndarray) -> int:
    """Algorithm 2's rounds s0, s0 + 1, .., end - 1 of a block (:meth:`~dpaudit.algorithms.glm.algorithm2.Algorithm2.
    play_rounds`: the paper's variant on two :class:`~dpaudit.mechanisms.glm.exploration_set.SymmetricGaussianTree`
    streams), every run in lockstep, until a round needs the caller: one where a run passes the switch test
    (criterion II's determinant doubling) or makes a criterion-I optimizer call (count1 below its cutoff). That
    round is left untouched and its index returned (``end``: every round played); the caller plays it round by
    round (the switch's and the call's optimizer run there) and calls again from the next.

    A round is :meth:`~dpaudit.algorithms.glm.algorithm2.Algorithm2.choose` then ``observe`` without a call: det_max
    takes det H, the criteria and the choice as :func:`algorithm2_criteria` and :func:`algorithm2_choice` compute
    them, the reward from ``table`` (count, runs, K) or, with an empty table, 1{noise[s, r] < means[s, r, a]}, the
    observation into row row0 + s of ``X``, ``Y``, ``in_T_o``; then V's leaf (x x^T in a criterion-I round, else 0)
    and H's ((mu'(<x, theta_o>)/e) x x^T in a criterion-II round, else 0) into the trees with the node noise
    ``tree_noise[s - s0]`` (B_V's, B_H's; drawn ahead by :func:`~dpaudit.mechanisms.glm.exploration_set.
    node_noise_ahead`), the trees' arrays (:meth:`~dpaudit.mechanisms.glm.exploration_set.TreeStream.
    compiled_parts`, ``leaves`` inserted before round s0) updated by the mechanism's compiled insert, V = lambda I +
    B_V's prefix sum and its inverse, H = lambda I + B_H's. ``contexts`` (count, runs or 1, K, d)."""
    runs, K, d = V.shape[0], contexts.shape[2], contexts.shape[3]
    shared = contexts.shape[1] == 1
    from_table = table.shape[0] > 0
    norms2, explore = np.empty((runs, K)), np.empty(runs, dtype=np.bool_)
    widest, arm = np.empty(runs, dtype=np.int64), np.empty(runs, dtype=np.int64)
    largest_det, chosen = np.empty(runs), np.empty((runs, d))
    leaf_V, leaf_H = np.empty((runs, d, d)), np.empty((runs, d, d))
    whitened = np.empty((runs, upper_i.shape[0]))
    for s in range(s0, end):
        x = contexts[s]
        stop = False
        for r in range(runs):  # the criteria, nothing written: a round that stops is the caller's whole
            arms = x[0 if shared else r]
            largest_det[r] = max(det_max[r], np.linalg.det(H[r]))
            explore[r] = _squared_widths(arms, V_inv[r], norms2[r]) >= threshold
            widest[r] = _lowest_best(norms2[r])
            if explore[r]:
                stop = stop or count1[r] < count1_cutoff
            else:
                stop = stop or largest_det[r] > 2 * det_switch[r]
        if stop:
            return s
        det_max[:] = largest_det
        algorithm2_choice(x, norms2, V_inv, H_tau_inv, theta_o, theta_tau, elimination_width, beta, False, explore,
                          widest, arm, chosen)
        row = row0 + s
        for r in range(runs):
            a = arm[r]
            reward = table[s, r, a] if from_table else (1.0 if noise[s, r] < means[s, r, a] else 0.0)
            played[s, r], collected[s, r] = a, reward
            z = 0.0
            for i in range(d):
                X[r, row, i] = chosen[r, i]
                z += chosen[r, i] * theta_o[r, i]
            Y[r, row], in_T_o[r, row] = reward, explore[r]
            weight = _link_slope(z, probit) / math.e
            for i in range(d):
                for j in range(d):
                    outer = chosen[r, i] * chosen[r, j]
                    leaf_V[r, i, j] = outer if explore[r] else 0.0
                    leaf_H[r, i, j] = 0.0 if explore[r] else weight * outer
        level = _lowest_set_bit(leaves + s - s0 + 1)
        _release(exact_V, noisy_V, level, leaf_V, tree_noise[s - s0, 0], upper_i, upper_j, scale, lam, whitened, V)
        for r in range(runs):
            V_inv[r] = np.linalg.inv(V[r])
        _release(exact_H, noisy_H, level, leaf_H, tree_noise[s - s0, 1], upper_i, upper_j, scale, lam, whitened, H)
    return end


@numba.njit(cache=True, nogil=True)
def _release(exact: np.ndarray, noisy: np.ndarray, level: int, leaves: np.ndarray, noise: np.ndarray,
             upper_i: np.ndarray, upper_j: np.ndarray, scale: np.ndarray, lam: float, whitened: np.ndarray,
             into: np.ndarray) -> None:
    """Insert a round's ``leaves`` (runs, d, d) with their node ``noise`` into a tree's arrays (the mechanism's
    compiled insert) and set ``into`` (runs, d, d) to lambda I plus the noisy prefix sum, as Algorithm 2's
    ``_released``."""
    binary_tree_insert(exact, noisy, level, leaves, noise, upper_i, upper_j, scale, whitened, into)
    for r in range(into.shape[0]):
        for i in range(into.shape[1]):
            into[r, i, i] += lam


__all__ = ["DONE", "SWITCH", "WARM", "algorithm2_choice", "algorithm2_criteria", "algorithm2_rounds", "inverse_mills",
           "newton_terms", "rs_glinucb_rounds"]
