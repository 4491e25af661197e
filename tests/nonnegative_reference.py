"""Plain reference implementations of the lower confidence bounds on nonnegative means (dpaudit.stats'
anderson_mean_lower and betting_mean_lower), written out draw by draw from their definitions, which the tests
hold the vectorised ones to."""

from __future__ import annotations

import math

import numpy as np


def anderson_lower(x, level):
    """Anderson's lower bound on the mean of x >= 0 at ``level``, written out: the integral over t of
    (S_n(t) - eps)_+, S_n the sample's survival function, eps = sqrt(log(1/level) / (2n)), summed over the gaps
    between sorted values."""
    x = sorted(float(v) for v in x)
    n, eps, total, previous = len(x), math.sqrt(math.log(1 / level) / (2 * len(x))), 0.0, 0.0
    for k, value in enumerate(x):
        total += (value - previous) * max((n - k) / n - eps, 0.0)  # n - k values are >= this one
        previous = value
    return total


def betting_lower(x, level, cap=0.75):
    """The betting lower bound on the mean of x >= 0 at ``level``, written out draw by draw: for a candidate m
    the capital prod_i (1 + lambda_i (x_i - m)), lambda_i = min(sqrt(2 log(1/level) / (n v_i)), cap / m), v_i =
    (m^2 + the sum of squares of the draws before i about their mean) / i; the bound is the largest m whose capital
    reaches 1/level, by bisection on [0, max x]."""
    n = len(x)

    def rejected(m):
        capital = 0.0
        for i, value in enumerate(x):
            before = float(np.var(x[:i])) * i if i else 0.0
            v = (m * m + before) / (i + 1)
            bet = min(math.sqrt(2 * math.log(1 / level) / (n * v)), cap / m)
            capital += math.log1p(bet * (value - m))
        return capital >= math.log(1 / level)

    lo, hi = 0.0, max(max(x), 1e-150)
    for _ in range(200):
        if hi - lo <= 1e-14 * hi:
            break
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rejected(max(mid, 1e-150)) else (lo, mid)
    return lo
