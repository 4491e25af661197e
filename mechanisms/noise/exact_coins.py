"""Exact, vectorised samplers after Canonne, Kamath and Steinke (2020), with integer arithmetic only.

Every coin is a comparison of uniform integers (``rng.integers``), so the output law is exactly
the stated one: no floating-point exp, log or division touches a probability (the concern that
led to the exact samplers: Mironov 2012, and OpenDP's biased rational division).

- :func:`bernoulli_exp`: Bernoulli(exp(-num/den)) for non-negative rationals (CKS Algorithm 1:
  for gamma in [0, 1], draw Bernoulli(gamma/k) for k = 1, 2, ... until one fails, and report
  whether the first failure came at an odd k; for gamma > 1, that coin for the fractional part and
  floor(gamma) independent Bernoulli(exp(-1)) coins, all of which must succeed);
- :func:`discrete_laplace`: the discrete Laplace of integer scale t (CKS Algorithm 2);
- :func:`discrete_gaussian`: N_Z(0, p/q) for a rational variance p/q (CKS Algorithm 3).

Each works on arrays of proposals at once; the loops run over rounds (each a few numpy passes
over the proposals still undecided), never over samples.
"""

from __future__ import annotations

import math

import numpy as np

#: int64 headroom: operands are checked against it so that no product can overflow
_INT_LIMIT = 2**62


def _bernoulli_exp_unit(num: np.ndarray, den: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num/den)) for 0 <= num <= den (int64 arrays of one shape)."""
    n, d = num.ravel(), den.ravel()
    k = np.ones(n.size, dtype=np.int64)
    idx = np.arange(n.size)
    common = d.size > 0 and bool((d == d[0]).all())  # one denominator: every round draws with one bound
    rounds = 1
    while idx.size:  # the undecided coins, compacted every round; all of them have k = rounds
        # Bernoulli(gamma / k) = [U < num] for U uniform on {0, ..., k den - 1}
        bound = rounds * int(d[0]) if common else rounds * d[idx]
        success = rng.integers(0, bound, idx.size) < n[idx]
        idx = idx[success]
        rounds += 1
        k[idx] = rounds
    return (k % 2 == 1).reshape(num.shape)


_FACTORIALS = np.array([math.factorial(i) for i in range(21)], dtype=np.int64)  # 20! < 2^62
_ASCENDING = (_FACTORIALS[20] // _FACTORIALS[1:])[::-1].copy()  # 20!/k! for k = 20, 19, ..., 1


def _bernoulli_exp_minus_one(size: int, rng: np.random.Generator) -> np.ndarray:
    """size exact Bernoulli(exp(-1)) coins in one draw each.

    In Algorithm 1 with gamma = 1 the loop passes k with probability 1/k!, so for R uniform on
    {0, ..., 20! - 1} it passes k exactly when R < 20!/k!; R = 0 (probability 1/20!) passes all 20
    and finishes with the loop itself.
    """
    r = rng.integers(0, _FACTORIALS[20], size)
    # passed = #{k in 1..20 : r < 20!/k!}, the loop's successes (the thresholds ascend in _ASCENDING)
    passed = 20 - np.searchsorted(_ASCENDING, r, side="right")
    out = (passed + 1) % 2 == 1  # the first failure comes at k = passed + 1
    rest = np.flatnonzero(passed == 20)
    if rest.size:  # continue the loop from k = 21 for these
        k = np.full(rest.size, 21, dtype=np.int64)
        active = np.arange(rest.size)
        while active.size:
            success = rng.integers(0, k[active]) < 1
            active = active[success]
            k[active] += 1
        out[rest] = k % 2 == 1
    return out


def bernoulli_exp(num: np.ndarray, den: np.ndarray | int, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(-num/den)) coins for non-negative integers num and positive den
    (``num`` may exceed ``den``: gamma > 1)."""
    num = np.asarray(num, dtype=np.int64)
    den = np.broadcast_to(np.asarray(den, dtype=np.int64), num.shape)
    if (num < 0).any() or (den <= 0).any():
        raise ValueError("bernoulli_exp: needs num >= 0 and den > 0")
    whole = num // den
    return _bernoulli_exp_parts(whole, num - whole * den, den, rng)


def _bernoulli_exp_parts(whole: np.ndarray, frac: np.ndarray, den: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-(whole + frac/den))): one coin for the fraction, ``whole`` exp(-1) coins."""
    alive = _bernoulli_exp_unit(frac, den, rng)
    idx = np.flatnonzero(alive & (whole > 0))
    remaining = whole[idx]
    while idx.size:  # every one of the `whole` exp(-1) coins must succeed
        coin = _bernoulli_exp_minus_one(idx.size, rng)
        alive[idx[~coin]] = False
        remaining = remaining[coin] - 1
        idx = idx[coin]
        idx, remaining = idx[remaining > 0], remaining[remaining > 0]
    return alive


def discrete_laplace(t: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Exactly P[X = x] proportional to exp(-|x| / t), for an integer scale t >= 1 (CKS Algorithm 2)."""
    if t < 1 or t > 2**31:
        raise ValueError(f"discrete_laplace: the scale must be an integer in [1, 2^31], got {t}")
    out = np.empty(size, dtype=np.int64)
    filled, rate = 0, 0.5
    while filled < size:
        m = int((size - filled) / rate * 1.05) + 64  # proposals for the expected acceptance, and a margin
        u = rng.integers(0, t, m)
        u = u[bernoulli_exp(u, t, rng)]  # accept U with probability exp(-U/t)
        v = np.zeros(u.size, dtype=np.int64)  # the number of exp(-1) coins before the first failure
        idx = np.arange(u.size)
        while idx.size:
            idx = idx[_bernoulli_exp_minus_one(idx.size, rng)]
            v[idx] += 1
        x = u + t * v
        negative = rng.integers(0, 2, x.size).astype(bool)
        y = np.where(negative, -x, x)[~(negative & (x == 0))]  # -0 would double the mass at 0
        rate = max(y.size / m, 0.05)
        take = min(y.size, size - filled)
        out[filled: filled + take] = y[:take]
        filled += take
    return out


def gaussian_fits(p: int, q: int) -> bool:
    """Whether :func:`discrete_gaussian` can run for variance p/q within int64 arithmetic."""
    t = math.isqrt(p // q) + 1
    return 0 < p and 0 < q and 2 * p * q * t * t < _INT_LIMIT


def discrete_gaussian(p: int, q: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Exactly N_Z(0, sigma^2) with sigma^2 = p/q (CKS Algorithm 3).

    Proposals Y from the discrete Laplace of scale t = floor(sigma) + 1, accepted with probability
    exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-A^2 / B) with A = |Y| t q - p and B = 2 p q t^2,
    integers. Where A^2 would overflow int64 (far proposals, rare) it is split into whole and
    fractional parts of A^2 / B with Python integers; a whole part above 2^62 is capped there (such a
    coin needs 2^62 consecutive exp(-1) successes either way).
    """
    if not gaussian_fits(p, q):
        raise ValueError(f"discrete_gaussian: the variance {p}/{q} needs integers beyond int64")
    t = math.isqrt(p // q) + 1
    b = 2 * p * q * t * t
    out = np.empty(size, dtype=np.int64)
    filled, rate = 0, 0.5
    while filled < size:
        m = int((size - filled) / rate * 1.05) + 64
        y = discrete_laplace(t, m, rng)
        a = np.abs(y) * (t * q) - p  # |a| < 2^62 / 2 as long as |y| < 2^30 / (t q)
        whole, frac = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
        small = np.abs(a) < 3_000_000_000  # a^2 fits in int64
        whole[small], frac[small] = np.divmod(a[small] * a[small], b)
        for i in np.flatnonzero(~small):  # rare far proposals: exact Python integers
            w, f = divmod(int(a[i]) ** 2, b)
            whole[i], frac[i] = min(w, _INT_LIMIT), f  # a whole part of 2^62 already never survives its coins
        accept = _bernoulli_exp_parts(whole, frac, np.broadcast_to(np.int64(b), (m,)), rng)
        y = y[accept]
        rate = max(y.size / m, 0.05)
        take = min(y.size, size - filled)
        out[filled: filled + take] = y[:take]
        filled += take
    return out


__all__ = ["bernoulli_exp", "discrete_gaussian", "discrete_laplace", "gaussian_fits"]
