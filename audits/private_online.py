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
  - regret and lower-bound claims, and the algorithms' end-to-end privacy: other issues.

Mechanism-level privacy (:mod:`dpaudit.mechanisms.online_releases`), exact, under Definition 1's
relation (one round's reward vector replaced; on one arm's array, one reward):
  - thm2: Anytime-Lazy-UCB's release of one full array, (sum + Lap(1/eps)) / 2^r, is eps-DP
    (parallel composition over disjoint arrays and post-processing give the theorem).
  - thm5-privacy: Hybrid-UCB on one block of 2^r observations of an arm: the tree's p-sums with
    Lap(2r/eps) while the block fills, and the array sum with Lap(2/eps) once complete, together eps-DP.
  - claimsec5a-privacy: naive FTNL's K epoch sums with Lap(K/eps) each are eps-DP.
  - thm6: FTNL's report-noisy-max argmax_j (G_j + Lap(1/eps)) over one epoch is eps-DP. Expected
    refuted: the relation moves the sums in opposite directions, and the loss reaches 1.94 eps on an
    epoch of 32 rounds (sums 0 and 32 against 1 and 31); see FTNL_REASON.
  - M5 (DP-SE's noisy epoch means) is the external baseline, reconstructed, with no privacy claim of
    this paper; M6 (Mishra & Thakurta) is described only.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpaudit.mechanisms import noise
from dpaudit.mechanisms.online_releases import EpochNoisyMax, HybridBlockRelease, LazyArrayRelease, NaiveEpochLaplace

from dpaudit import PureDP, TailBound
from dpaudit.domains import Box, Datasets
from dpaudit.laws import LazyLaw
from dpaudit.neighbours import ReplaceOne, ReplaceRewardVector
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


# == Mechanism-level privacy: one release of each algorithm, exactly ===============================
# Definition 1: one round's reward vector replaced. On an arm's array (M1, M2) that moves one reward in
# [0, 1]; on an epoch's table of complete reward vectors (M3, M4) every action's sum moves by at most 1,
# in either direction. Points: eps = 1 (the experiments' range is 0.5 to 64) and eps = 8; arrays and
# epochs of 8 to 32 rounds, small enough to search and long enough that sums can sit far apart.

for eps, r in [(1.0, 3), (8.0, 4)]:
    suite.privacy(f"private-online/thm2@eps{eps:g},r{r}", auditor="exact", subject=LazyArrayRelease(eps, r),
                  claim=PureDP(eps), relation=ReplaceOne().over(Datasets(2**r, Box(0.0, 1.0))),
                  title=f"Anytime-Lazy-UCB's release of array {r}, (sum + Lap(1/eps)) / 2^r, is {eps:g}-DP (pairs searched)")
    suite.privacy(f"private-online/thm5-privacy@eps{eps:g},r{r}", auditor="exact", subject=HybridBlockRelease(eps, r),
                  claim=PureDP(eps), relation=ReplaceOne().over(Datasets(2**r, Box(0.0, 1.0))),
                  title=f"Hybrid-UCB on a block of 2^{r}: tree p-sums with Lap(2r/eps) and the array sum with Lap(2/eps) "
                        f"are {eps:g}-DP together (pairs searched)")

suite.privacy("private-online/claimsec5a-privacy@eps1,K3,s2", auditor="exact", subject=NaiveEpochLaplace(1.0, 3, 2),
              claim=PureDP(1.0), relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(4, 3))),
              title="naive FTNL: the K = 3 epoch sums, each plus Lap(K/eps), are 1-DP (epoch of 4 rounds; pairs searched)")

FTNL_REASON = ("Dwork & Roth's Claim 3.9 (Lap(1/eps) suffices) is for counting queries, whose answers all move the same "
               "way; one reward vector replaced can raise one action's epoch sum by 1 and lower another's by 1, and then "
               "report-noisy-max with Lap(1/eps) loses up to 2 eps (the loss approaches 2 eps as the two sums separate)")
_S_FTNL = 5
_LOW_HIGH = np.tile([0.0, 1.0], (2**_S_FTNL, 1))  # action 0 never rewarded, action 1 always: G = (0, 32)
_SWAPPED = _LOW_HIGH.copy()
_SWAPPED[0] = [1.0, 0.0]  # one round's vector reversed: G = (1, 31)
suite.privacy(f"private-online/thm6@eps1,K2,s{_S_FTNL}", auditor="exact", subject=EpochNoisyMax(1.0, 2, _S_FTNL),
              claim=PureDP(1.0), pairs=[(_LOW_HIGH, _SWAPPED)],
              relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(2**_S_FTNL, 2))),
              expected="refuted", reason=FTNL_REASON,
              title="FTNL's report-noisy-max over an epoch of 32 reward vectors is 1-DP (K = 2; searched, and one "
                    "round's vector reversed between far-apart sums)")
suite.privacy("private-online/thm6@eps0.5,K4,s3", auditor="exact", subject=EpochNoisyMax(0.5, 4, 3),
              claim=PureDP(0.5), relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(8, 4))),
              expected="refuted", reason=FTNL_REASON,
              title="FTNL's report-noisy-max over an epoch of 8 reward vectors is 0.5-DP (K = 4; pairs searched)")
