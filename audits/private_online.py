"""private-online: Hu, Huang, Mehta, Near-Optimal Algorithms for Private Online Learning in a
Stochastic Environment.

Tail and concentration claims about the Laplace noise of the lazy, hybrid and report-noisy-max
algorithms, audited exactly: sums of Laplace draws have closed-form tails (a mixture of gamma
tails, :class:`dpaudit.mechanisms.noise.LaplaceSum`), and an epoch comparison of report-noisy-max
is a difference of binomial counts plus a difference of two Laplace draws, whose tail is an exact
finite mixture of Laplace-sum tails.

Encoded (id -> statement):
  - fact1: Y ~ Lap(b), 0 < delta < 1: P{|Y| > ln(1/delta) b} = delta (audited as <=: the equality
    holds exactly, so the record shows the claim met with no slack).
  - fact2: gamma_1..gamma_n i.i.d. Lap(b), Y their sum, chi > b max{sqrt n, sqrt(ln(2/delta))}:
    P{|Y| > chi sqrt(8 ln(2/delta))} <= delta; audited at the smallest chi (the boundary), at the
    noise scales of Hybrid-UCB (Lap(2/eps) array noise, eps = 1) and the tree noise of a tree of
    depth 5 (Lap(10/eps)), for n = 1, 2, 5, 21.
  - lem13: for Bernoulli rewards with gap Delta between action 1 and action j, report-noisy-max's
    epoch comparison Pr(G~_j - G~_1 >= 0) <= 2 exp(-2^r Delta min{Delta, eps} / 8), where
    G~ = G + Lap(1/eps) and G is the action's reward sum over the 2^r rounds of epoch r. The means
    are 1/2 +- Delta/2 (the largest variance for the gap). "Pr(X >= 0) <= beta" is the tail bound
    P(X >= t) <= beta for every t > 0 (X is continuous, so P(X > 0) = P(X >= 0)).

Left out (with why):
  - lem11 (22)/(23) and lem12 (40)/(41): printed as O(t^-3) and O(t^-4), no constant to audit (the
    proofs' noise steps are fact1 and fact2, encoded above).
  - claimsecH.a (a total-variation packing): a distance between product laws, not a tail claim; the
    distance is exactly Delta (a two-coordinate computation).
  - privacy, regret and lower-bound claims: other issues.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpaudit import TailBound
from dpaudit.laws import LazyLaw
from dpaudit.mechanisms import noise
from dpaudit.suite import Suite

suite = Suite("private-online", "Hu, Huang, Mehta, Near-Optimal Algorithms for Private Online Learning in a Stochastic Environment")

for eps in (0.5, 1.0):
    b = 1 / eps
    suite.tail(f"private-online/fact1@b{b:g}", subject=noise.Laplace(0.0, b), auditor="exact",
               claim=TailBound.high_probability(partial(lambda d, b: b * np.log(1 / d), b=b), "ln(1/delta) b"),
               title=f"Lap({b:g}): P{{|Y| > ln(1/delta) b}} = delta")


def chan_shi_song(delta, n: int, b: float):
    """Fact 2's threshold at the smallest admissible chi = b max{sqrt n, sqrt(ln(2/delta))}."""
    log_term = np.log(2 / np.asarray(delta, dtype=float))
    return b * np.maximum(math.sqrt(n), np.sqrt(log_term)) * np.sqrt(8 * log_term)


for b in (2.0, 10.0):
    for n in (1, 2, 5, 21):
        suite.tail(f"private-online/fact2@b{b:g},n{n}", subject=noise.LaplaceSum(n, b), auditor="exact",
                   claim=TailBound.high_probability(partial(chan_shi_song, n=n, b=b), "chi sqrt(8 ln(2/delta)), chi = b max{sqrt n, sqrt ln(2/delta)}"),
                   title=f"sum of {n} Lap({b:g}): P{{|Y| > chi sqrt(8 ln(2/delta))}} <= delta")


def epoch_comparison(r: int, gap: float, eps: float) -> noise.IntegerPlusContinuous:
    """G_j - G_1 + Z_j - Z_1: G ~ Binomial(2^r, 1/2 -+ gap/2), Z i.i.d. Lap(1/eps)."""
    rounds = 2**r
    worse = noise.Binomial(rounds, 0.5 - gap / 2)
    best_complement = noise.Binomial(rounds, 0.5 - gap / 2)  # rounds - G_1 ~ Binomial(rounds, 1 - mu_1)
    counts = noise.convolve(worse, best_complement)
    shifted = noise.FiniteIntegerLaw(counts.offset - rounds, counts.probs, counts.tail_mass, counts.log_error)
    return noise.IntegerPlusContinuous(shifted, noise.LaplaceSum(2, 1 / eps),
                                       name=f"G~_j - G~_1, epoch r = {r}, gap {gap:g}, eps {eps:g}")


for r, gap, eps in [(14, 0.05, 0.5), (6, 0.25, 1.0), (8, 0.5, 0.1), (10, 0.125, 8.0)]:
    beta = 2 * math.exp(-(2**r) * gap * min(gap, eps) / 8)
    suite.tail(f"private-online/lem13@r{r},gap{gap:g},eps{eps:g}", auditor="exact",
               subject=LazyLaw(partial(epoch_comparison, r, gap, eps), f"G~_j - G~_1 (r = {r}, gap {gap:g}, eps {eps:g})"),
               claim=TailBound(partial(lambda t, beta: np.full(np.shape(t), beta), beta=beta),
                               f"2 exp(-2^r Delta min(Delta, eps) / 8) = {beta:.4g}", two_sided=False),
               title=f"report-noisy-max picks a worse action in epoch {r} with probability <= {beta:.4g}")
