"""Shuffled binary randomized response, and the amplification-by-shuffling bound of Feldman,
McMillan & Talwar, "Hiding Among the Clones: A Simple and Nearly Optimal Analysis of Privacy
Amplification by Shuffling" (FOCS 2021), Theorem 3.1."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, interval_bounds
from dpaudit.core.validation import integer, positive, probability

from ..base import ExactRelease
from ..enclosures import from_enclosures
from ..piecewise import interval_context

PRECISION_BITS = 192


def fmt_shuffle_epsilon(epsilon0: float, n: int, delta: float) -> float:
    """The epsilon of Feldman, McMillan & Talwar (2021), Theorem 3.1, for n users each applying an
    epsilon0-DP local randomizer before a uniformly random shuffle:

        epsilon = log(1 + (e^eps0 - 1)/(e^eps0 + 1) * (8 sqrt(e^eps0 log(4/delta)) / sqrt(n) + 8 e^eps0 / n)),

    valid for any delta in (0, 1] with eps0 <= log(n / (16 log(2/delta))); the shuffled output is
    then (epsilon, delta)-DP. Raises ``ValueError`` when the condition fails (the theorem says
    nothing there)."""
    epsilon0 = positive("fmt_shuffle_epsilon", "epsilon0", epsilon0)
    n = integer("fmt_shuffle_epsilon", "n", n, 1)
    delta = probability("fmt_shuffle_epsilon", "delta", delta, open_high=False)
    limit = math.log(n / (16 * math.log(2 / delta))) if n > 16 * math.log(2 / delta) else -math.inf
    if not epsilon0 <= limit:
        raise ValueError(
            f"fmt_shuffle_epsilon: Theorem 3.1 needs epsilon0 <= log(n / (16 log(2/delta))) = {limit:.4g}, "
            f"got epsilon0 = {epsilon0:g} (n = {n}, delta = {delta:g})"
        )
    e0 = math.exp(epsilon0)
    return math.log1p((e0 - 1) / (e0 + 1) * (8 * math.sqrt(e0 * math.log(4 / delta)) / math.sqrt(n) + 8 * e0 / n))


class ShuffledRandomizedResponse(ExactRelease):
    """n users each report their bit through binary randomized response with epsilon0 (keep with
    probability p = e^eps0 / (1 + e^eps0)); a shuffler permutes the n reports uniformly at random.

    Input (``data``): the batch, n bits (one per user). Output: the number of ones among the shuffled
    reports, an integer in {0..n}, shape (size,). The shuffled sequence of binary reports, given its
    number of ones, is uniform over arrangements whatever the data, so the count is a sufficient
    statistic: releasing it is exactly as private as releasing the shuffled reports. Neighbouring
    relation: one user's bit replaced (``ReplaceUser(batch_size=n)``).

    **Exact privacy, derived.** Users with bit 1 report 1 with probability p, users with bit 0 with
    probability q = 1 - p, independently, so with n1 ones among the other n - 1 users the count is
    X + B with X = Bin(n1, p) + Bin(n - 1 - n1, q) and B = Bernoulli(p) or Bernoulli(q) for the changed
    user's bit 1 or 0. With every other bit 0 this is Bin(n - 1, q) + Bernoulli(p_b). The exact
    (epsilon, delta) curve of the pair is the hockey-stick divergence of these two laws on {0..n}
    (both directions); its pure epsilon is epsilon0 (the counts 0 and n have ratio e^eps0).

    Sampling: Bin(n1, p) + Bin(n0, q) drawn directly (the same law as summing the n reports).
    Exact distribution: the two binomial pmfs in 192-bit interval arithmetic (C(m, j) exact, p and q
    from the exact rational epsilon0), convolved term by term (all terms positive, so no
    cancellation); O(n1 n0) interval operations.
    """

    paper = "Feldman, McMillan & Talwar 2021"
    source = "binary randomized response, then a uniformly random shuffle (the setting of Theorem 3.1)"

    def __init__(self, epsilon0: float, n: int):
        self.epsilon0 = positive(self.owner, "epsilon0", epsilon0)
        self.n = integer(self.owner, "n", n, 1)
        self.name = f"ShuffledRandomizedResponse(eps0={self.epsilon0:g}, n={self.n})"

    def _input(self, data: Any) -> int:
        """The number of ones in the batch of n bits, checked."""
        bits = np.asarray(data)
        if bits.shape != (self.n,):
            raise ValueError(f"{self.owner}: data must be a batch of n={self.n} bits, got shape {bits.shape}")
        if bits.dtype.kind not in "biuf" or not np.isin(bits, (0, 1)).all():
            raise ValueError(f"{self.owner}: every user's input must be a bit (0 or 1), got {data!r}")
        return int(np.count_nonzero(bits))

    @property
    def p(self) -> float:
        """The probability of reporting the true bit."""
        return 1.0 / (1.0 + math.exp(-self.epsilon0))

    def _sample(self, n1: int, size: int, rng: np.random.Generator) -> np.ndarray:
        p = self.p
        return (rng.binomial(n1, p, size) + rng.binomial(self.n - n1, 1.0 - p, size)).astype(np.int64)

    def _binomial_pmf(self, m: int, log_r, log_1mr) -> list:
        ctx = interval_context(PRECISION_BITS)
        return [ctx.mpf(math.comb(m, j)) * ctx.exp(log_r * j + log_1mr * (m - j)) for j in range(m + 1)]

    def _distribution(self, n1: int) -> FiniteDistribution:
        n0 = self.n - n1
        ctx = interval_context(PRECISION_BITS)
        e = Fraction(self.epsilon0)
        eps0 = ctx.mpf(e.numerator) / ctx.mpf(e.denominator)
        log_p = -ctx.log(1 + ctx.exp(-eps0))
        log_q = -ctx.log(1 + ctx.exp(eps0))
        ones = self._binomial_pmf(n1, log_p, log_q)  # reports of the users with bit 1
        zeros = self._binomial_pmf(n0, log_q, log_p)  # reports of the users with bit 0
        if len(ones) > len(zeros):
            ones, zeros = zeros, ones
        total = [ctx.mpf(0)] * (self.n + 1)
        for j, a in enumerate(ones):
            for i, b in enumerate(zeros):
                total[i + j] += a * b
        return from_enclosures(np.arange(self.n + 1), [interval_bounds(v) for v in total])


__all__ = ["ShuffledRandomizedResponse", "fmt_shuffle_epsilon"]
