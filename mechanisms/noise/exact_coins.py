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
over the proposals still undecided), never over samples. exp(-1) coins, the most frequent, take
one draw each: Algorithm 1 with gamma = 1 passes k with probability 1/k!, which a uniform integer
below 20! decides for k <= 20 by comparisons with 20!/k!.
"""

from __future__ import annotations

import math

import numpy as np

#: int64 headroom: operands are checked against it so that no product can overflow
_INT_LIMIT = 2**62


def _bernoulli_exp_unit(num: np.ndarray, den: np.ndarray | int, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num/den)) for 0 <= num <= den (``den`` an int64 array of num's shape, or one int)."""
    n = num.ravel()
    common = np.ndim(den) == 0
    d = int(den) if common else np.asarray(den).ravel()
    # round k = 1 over everything, without gathering: Bernoulli(gamma) = [U < num], U uniform below den
    success = rng.integers(0, d, n.size) < n
    out = ~success  # the first failure at k = 1 (odd)
    idx = np.flatnonzero(success)
    k = 2
    while idx.size:  # the undecided coins, all at round k: Bernoulli(gamma / k)
        bound = k * d if common else k * d[idx]
        success = rng.integers(0, bound, idx.size) < n[idx]
        out[idx[~success]] = k % 2 == 1
        idx = idx[success]
        k += 1
    return out.reshape(num.shape)


_FACTORIALS = np.array([math.factorial(i) for i in range(21)], dtype=np.int64)  # 20! < 2^62
_THRESHOLDS = _FACTORIALS[20] // _FACTORIALS[1:]  # 20!/k! for k = 1..20, decreasing


def _bernoulli_exp_minus_one(size: int, rng: np.random.Generator) -> np.ndarray:
    """size exact Bernoulli(exp(-1)) coins in one draw each.

    In Algorithm 1 with gamma = 1 the loop passes k with probability 1/k!, so for R uniform on
    {0, ..., 20! - 1} it passes k exactly when R < 20!/k!; the coin is the parity of the number of
    passes (the first failure at an odd k). R = 0 (probability 1/20!) passes all 20 and finishes
    with the loop itself. The comparisons run in order and stop with the last R still passing.
    """
    r = rng.integers(0, _FACTORIALS[20], size)
    # k = 1 always passes (R < 20!); the passes at k = 2..6 are a run of leading ones, so their
    # parity is their XOR, computed on the whole array without gathering
    odd = ((r < _THRESHOLDS[1]) ^ (r < _THRESHOLDS[2]) ^ (r < _THRESHOLDS[3]) ^ (r < _THRESHOLDS[4])
           ^ (r < _THRESHOLDS[5]))
    out = odd  # passes = 1 + (passes at 2..6): an even count means the first failure at an odd k
    idx = np.flatnonzero(r < _THRESHOLDS[5])  # passed k = 6 (probability 1/720): continue exactly
    for k in range(7, 21):
        idx = idx[r[idx] < _THRESHOLDS[k - 1]]
        if idx.size == 0:
            return out
        out[idx] = k % 2 == 0  # passed k: the first failure is at k + 1 at the earliest
    k = np.full(idx.size, 21, dtype=np.int64)
    active = np.arange(idx.size)
    while active.size:  # past k = 20: continue the loop
        success = rng.integers(0, k[active]) < 1
        active = active[success]
        k[active] += 1
    out[idx] = k % 2 == 1
    return out


def bernoulli_exp(num: np.ndarray, den: np.ndarray | int, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(-num/den)) coins for non-negative integers num and positive den
    (``num`` may exceed ``den``: gamma > 1)."""
    num = np.asarray(num, dtype=np.int64)
    den = int(den) if np.ndim(den) == 0 else np.asarray(den, dtype=np.int64)
    if (num < 0).any() or np.any(np.asarray(den) <= 0):
        raise ValueError("bernoulli_exp: needs num >= 0 and den > 0")
    whole, frac = np.divmod(num, den)
    return _bernoulli_exp_parts(whole, frac, den, rng)


def _bernoulli_exp_parts(whole: np.ndarray, frac: np.ndarray, den: np.ndarray | int,
                         rng: np.random.Generator) -> np.ndarray:
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
    # the acceptance of U, mean of exp(-U/t), less the rejected "-0": rounds are sized from it
    filled, rate = 0, -math.expm1(-1) / (t * -math.expm1(-1 / t)) * (1 - 0.5 / t)
    while filled < size:
        m = int((size - filled) / rate * 1.02) + 64  # proposals for the expected acceptance, and a margin
        draw = rng.integers(0, 2 * t, m)  # U uniform below t and a fair sign bit, from one draw
        draw = draw[_bernoulli_exp_unit(draw >> 1, t, rng)]  # accept U with probability exp(-U/t)
        u, negative = draw >> 1, (draw & 1).astype(bool)
        # V = the number of exp(-1) coins before the first failure: two coins for everyone at once,
        # then rounds for the few (e^-2) that passed both
        first, second = _bernoulli_exp_minus_one(u.size, rng), _bernoulli_exp_minus_one(u.size, rng)
        both = first & second
        v = first.astype(np.int64) + both
        idx = np.flatnonzero(both)
        while idx.size:
            idx = idx[_bernoulli_exp_minus_one(idx.size, rng)]
            v[idx] += 1
        x = u + t * v
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
    filled, rate = 0, 0.7  # about the acceptance of Algorithm 3 for sigma >= 1; later rounds measure it
    while filled < size:
        m = int((size - filled) / rate * 1.02) + 64
        y = discrete_laplace(t, m, rng)
        a = np.abs(y) * (t * q) - p
        big = np.flatnonzero(np.abs(a) >= 3_000_000_000)  # a^2 would overflow int64: rare far proposals
        a[big] = 0
        whole, frac = np.divmod(a * a, b)
        for i in big:  # exact Python integers; a whole part of 2^62 already never survives its coins
            w, f = divmod(int(np.abs(y[i]) * (t * q) - p) ** 2, b)
            whole[i], frac[i] = min(w, _INT_LIMIT), f
        accept = _bernoulli_exp_parts(whole, frac, b, rng)
        y = y[accept]
        rate = max(y.size / m, 0.05)
        take = min(y.size, size - filled)
        out[filled: filled + take] = y[:take]
        filled += take
    return out


__all__ = ["bernoulli_exp", "discrete_gaussian", "discrete_laplace", "gaussian_fits"]
