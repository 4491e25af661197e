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
  - claimsec7b (the optimal DTOL rate and the doubling instance): a conjecture about regret,
    printed without a statement to audit at a parameter point.

Mechanism-level privacy (:mod:`dpaudit.mechanisms.online_releases`), exact, under Definition 1's
relation (one round's reward vector replaced; on one arm's array, one reward):
  - thm2: Anytime-Lazy-UCB's release of one full array, (sum + Lap(1/eps)) / 2^r, is eps-DP
    (parallel composition over disjoint arrays and post-processing give the theorem).
  - claimsec5a-privacy: naive FTNL's K epoch sums with Lap(K/eps) each are eps-DP.
  - thm6: FTNL's report-noisy-max argmax_j (G_j + Lap(1/eps)) over one epoch is eps-DP. Expected
    refuted: the relation moves the sums in opposite directions, and the loss reaches 1.94 eps on an
    epoch of 32 rounds (sums 0 and 32 against 1 and 31); see FTNL_REASON.
  - M5 (DP-SE's noisy epoch means) is the external baseline, reconstructed, with no privacy claim of
    this paper; M6 (Mishra & Thakurta) is described only.

Whole-stream mechanisms, exact, same relation (one arm's stream: one observation replaced; FTNL's
table: one round's reward vector replaced). A relation's search changes the first or last record
only; where the releases overlap most inside the stream, hand-picked pairs are audited after the
searched ones:
  - thm2@eps1,pulls15 and @eps0.5,pulls12 (:class:`~dpaudit.mechanisms.lazy_laplace.LazyLaplaceArrays`):
    every release of one arm's stream; 15 pulls fill arrays 0..3, 12 leave array 3 partly filled
    (read by no release). Verified at eps exactly.
  - fact1@lazy,eps1,r3 and @lazy,eps0.5,r0: inequality (6) as Lemma 11's proof applies it ((25)) to
    a lazy release's error Lap(1/(eps 2^r)).
  - thm5-privacy@eps1,pulls8 and @eps0.5,pulls16 (:class:`~dpaudit.mechanisms.hybrid_counter.HybridReleases`):
    Algorithm 4's releases (array sums with Lap(2/eps), every block's p-sums with Lap(2r/eps)), with
    the full tree B^(r) read at the pull that fills block r, as Algorithm 4 and Lemma 12's proof
    print it. Expected refuted: 1.5 eps (pull 2, the first leaf of block 1: its two p-sums and
    array 1); see HYBRID_REASON. The points: 8 pulls complete blocks 1 and 2 and read arrays 0..2;
    16 pulls complete block 3 too.
  - thm5-privacy@array,eps1,pulls16 and @tree,eps1,pulls16: E.3.1's two halves, each claimed
    0.5 eps-DP: the array part holds (0.5 exactly); the tree part loses (r + 1) eps/(2r), 1.0 at r = 1.
  - thm5-privacy@estimates,eps1,pulls4 (:class:`~dpaudit.mechanisms.hybrid_counter.HybridEstimateView`):
    the released estimates mu~_1..mu~_4 themselves, through a function of them with an exact law:
    loss eps + 0.244 (expected refuted). Hybrid-UCB's decisions are a further post-processing; the
    end-to-end audit belongs to the algorithm-level work.
  - fact2@hybrid-array,eps1,pull14 and @hybrid-tree,eps1,pull14: inequality (7) on the two noises of
    the estimate at pull 14 (3 x Lap(2), 3 x Lap(6)), the step (43) of Lemma 12's proof.
  - thm6@eps1,K2,T31 and @eps0.5,K3,T15 (:class:`~dpaudit.algorithms.online.FollowTheNoisyLeader`
    through :class:`~dpaudit.transcripts.DecisionTranscript`): FTNL's whole decision sequence over T
    rounds (epochs 0..4, resp. 0..3), at the epoch starts where it can change, an end-to-end audit of
    Theorem 6 (decisions are a product of report-noisy-max laws). Expected refuted (FTNL_REASON):
    1.78 eps with round 8's vector reversed; 1.15 eps found by the search alone at K = 3.
  - thm6@lap2,eps1,K2,T31: FTNL with report-noisy-max's usual Lap(2/eps) (``noise_scale="2/eps"``),
    the remedy FTNL_REASON names, on the same table and pairs: verified.
  - claimsec5a-privacy@eps1,K3,T15: naive FTNL's decisions (Lap(K/eps) per action's epoch sum),
    end to end; verified (report-noisy-max at scale K/eps loses at most 2 eps/K).

Algorithm-level privacy (the bandit algorithms' decision sequences, black-box), under Definition 1's
relation over reward tables (``ReplaceRewardVector``), through
:class:`~dpaudit.transcripts.DecisionTranscript`: the decisions at every round, one categorical
output per run (the sequence's code sum_t a_t K^(t-1), a one-to-one post-processing). The decisions'
law is a function of the releases' laws through the adaptive choice of which arm's array or tree
each round feeds, with no closed form here, so the statistical auditor decides (a lower bound on
the loss, verified when it stays below eps):
  - thm2@algorithm,eps1,K2,T10 (:class:`~dpaudit.algorithms.online.AnytimeLazyUCB`): Anytime-Lazy-UCB's
    decisions are eps-DP (Theorem 2).
  - thm2@algorithm,literal-init,eps1,K2,T10: the same with Algorithm 1's initialisation box read
    literally (the first reward itself, no Laplace draw): expected refuted (LITERAL_INIT_REASON).
  - thm5-privacy@algorithm,eps1,K2,T12 (:class:`~dpaudit.algorithms.online.HybridUCB`): Hybrid-UCB's
    decisions are eps-DP (Theorem 5; its releases lose up to 1.5 eps, but the decisions are a coarse
    function of them).
Hand-picked pairs: arm 0 always paying 1 and arm 1 nothing, against the table with one round's
vector reversed (round 1, arm 0's initialisation pull; round 3, the first pull after the
initialisation).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpaudit import PureDP, TailBound
from dpaudit.algorithms.online import AnytimeLazyUCB, FollowTheNoisyLeader, HybridUCB
from dpaudit.domains import Box, Datasets
from dpaudit.laws import LazyLaw
from dpaudit.mechanisms import noise
from dpaudit.mechanisms.hybrid_counter import (
    HybridCounter,
    HybridEstimateView,
    HybridReleases,
)
from dpaudit.mechanisms.lazy_laplace import LazyLaplaceArrays
from dpaudit.mechanisms.online_releases import (
    EpochNoisyMax,
    LazyArrayRelease,
    NaiveEpochLaplace,
    epoch_comparison,
)
from dpaudit.neighbours import ReplaceOne, ReplaceRewardVector, one_changed
from dpaudit.suite import Suite
from dpaudit.transcripts import DecisionTranscript

suite = Suite("private-online",
              "Hu, Huang, Mehta, Near-Optimal Algorithms for Private Online Learning in a Stochastic Environment")

for eps in (0.5, 1.0):
    b = 1 / eps
    suite.tail(f"private-online/fact1@b{b:g}", subject=noise.Laplace(b), auditor="exact",
               claim=TailBound.high_probability(partial(lambda d, b: b * np.log(1 / d), b=b), "ln(1/delta) b"),
               title=f"Lap({b:g}): P{{|Y| > ln(1/delta) b}} = delta")


def chan_shi_song(delta, n: int, b: float):
    """Fact 2's threshold at the smallest admissible chi = b max{sqrt n, sqrt(ln(2/delta))}."""
    log_term = np.log(2 / np.asarray(delta, dtype=float))
    return b * np.maximum(math.sqrt(n), np.sqrt(log_term)) * np.sqrt(8 * log_term)


for b in (2.0, 10.0):
    for n in (1, 2, 5, 21):
        suite.tail(f"private-online/fact2@b{b:g},n{n}", subject=noise.LaplaceSum(n, b), auditor="exact",
                   claim=TailBound.high_probability(partial(chan_shi_song, n=n, b=b),
                                                    "chi sqrt(8 ln(2/delta)), chi = b max{sqrt n, sqrt ln(2/delta)}"),
                   title=f"sum of {n} Lap({b:g}): P{{|Y| > chi sqrt(8 ln(2/delta))}} <= delta")


for r, gap, eps in [(14, 0.05, 0.5), (6, 0.25, 1.0), (8, 0.5, 0.1), (10, 0.125, 8.0)]:
    beta = 2 * math.exp(-(2**r) * gap * min(gap, eps) / 8)
    suite.tail(f"private-online/lem13@r{r},gap{gap:g},eps{eps:g}", auditor="exact",
               subject=LazyLaw(partial(epoch_comparison, r, gap, eps),
                               f"G~_j - G~_1 (r = {r}, gap {gap:g}, eps {eps:g})"),
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
                  title=f"Anytime-Lazy-UCB's release of array {r}, (sum + Lap(1/eps)) / 2^r, is {eps:g}-DP "
                        "(pairs searched)")

suite.privacy("private-online/claimsec5a-privacy@eps1,K3,s2", auditor="exact", subject=NaiveEpochLaplace(1.0, 3, 2),
              claim=PureDP(1.0), relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(4, 3))),
              title="naive FTNL: the K = 3 epoch sums, each plus Lap(K/eps), are 1-DP (epoch of 4 rounds; "
                    "pairs searched)")

FTNL_REASON = ("Dwork & Roth's Claim 3.9 (Lap(1/eps) suffices) is for counting queries, whose answers all move the "
               "same way; one reward vector replaced can raise one action's epoch sum by 1 and lower another's by 1, "
               "and then report-noisy-max with Lap(1/eps) loses up to 2 eps (the loss approaches 2 eps as the two "
               "sums separate)")
_S_FTNL = 5
# hand-picked: action 0 never rewarded, action 1 always (G = (0, 32)), and round 0's vector reversed (G = (1, 31))
suite.privacy(f"private-online/thm6@eps1,K2,s{_S_FTNL}", auditor="exact", subject=EpochNoisyMax(1.0, 2, _S_FTNL),
              claim=PureDP(1.0), pairs=[one_changed(np.tile([0.0, 1.0], (2**_S_FTNL, 1)), [0.0, 1.0], [1.0, 0.0])],
              relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(2**_S_FTNL, 2))),
              expected="refuted", reason=FTNL_REASON,
              title="FTNL's report-noisy-max over an epoch of 32 reward vectors is 1-DP (K = 2; searched, and one "
                    "round's vector reversed between far-apart sums)")
suite.privacy("private-online/thm6@eps0.5,K4,s3", auditor="exact", subject=EpochNoisyMax(0.5, 4, 3),
              claim=PureDP(0.5), relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(8, 4))),
              expected="refuted", reason=FTNL_REASON,
              title="FTNL's report-noisy-max over an epoch of 8 reward vectors is 0.5-DP (K = 4; pairs searched)")


# == Whole-stream mechanisms: every release of one arm's stream, and FTNL's whole decision sequence ===
# Definition 1's relation on one arm's stream: one observation replaced (ReplaceOne over the stream);
# on FTNL's table: one round's reward vector replaced (ReplaceRewardVector). The searches change the
# first or the last record; the observations where the releases overlap most sit inside the stream
# (the first leaf of a hybrid block, an epoch with far-apart sums), so those pairs are added by hand
# and audited after the searched ones: on a stream, all-zero observations against one observation set
# to 1; on FTNL's table, only action 1 ever rewarded against one round's vector reversed (action 0
# rewarded instead), which moves two epoch sums by 1 in opposite directions.

# M1, Theorem 2: 15 pulls fill arrays 0..3 (1 + 2 + 4 + 8 observations), each released once; 12 pulls
# leave array 3 partly filled (read by no release). eps = 1 and 0.5, the experiments' range.
for eps, pulls in [(1.0, 15), (0.5, 12)]:
    suite.privacy(f"private-online/thm2@eps{eps:g},pulls{pulls}", auditor="exact",
                  subject=LazyLaplaceArrays(eps, pulls), claim=PureDP(eps),
                  relation=ReplaceOne().over(Datasets(pulls, Box(0.0, 1.0))),
                  pairs=[one_changed(np.zeros(pulls), 0.0, 1.0, index) for index in (3, 6)],
                  title=f"Anytime-Lazy-UCB's releases of one arm's {pulls} pulls (every full array's "
                        f"(sum + Lap(1/eps)) / 2^r) are {eps:g}-DP (searched, and the first and last pulls of "
                        "array 2 changed)")

# The noise step of (22)/(25) in Lemma 11's proof: inequality (6) (fact1) on a lazy release's error.
for eps, r in [(1.0, 3), (0.5, 0)]:
    law = LazyLaplaceArrays(eps, 2 ** (r + 1) - 1).error_law(r)
    suite.tail(f"private-online/fact1@lazy,eps{eps:g},r{r}", subject=law, auditor="exact",
               claim=TailBound.high_probability(partial(lambda d, b: b * np.log(1 / d), b=float(law.scale)),
                                                "ln(1/delta) / (eps 2^r)"),
               title=f"Anytime-Lazy-UCB's release of array {r}: P{{|mu~ - mu^| > ln(1/delta) / (eps 2^r)}} = delta "
                     f"(eps {eps:g})")

# M2, Theorem 5 (E.3.1): the hybrid mechanism's releases -- the noisy array sums and every block's
# p-sums, as Algorithm 4 computes them -- and each of its two parts (claimed 0.5 eps-DP each).
HYBRID_REASON = ("Algorithm 4 reads the full tree B^(r) at the pull that fills block r (Lemma 12's proof: the mean of "
                 "omega^(s-1) observations uses the full B^(s-1)), so the first leaf of a block of 2^r lies in r + 1 "
                 "released p-sums (ending at 1, 2, .., 2^r), each with Lap(2r/eps): the tree part costs "
                 "(r + 1) eps/(2r), not eps/2 (E.3.1's |S| <= r counts the p-sums in one prefix sum, not those "
                 "holding one observation), and with the array's Lap(2/eps) a completed block costs eps (1 + 1/(2r)), "
                 "1.5 eps for block 1")


def _stream_search(pulls: int):
    """One observation of an arm's stream of ``pulls`` replaced, searched."""
    return ReplaceOne().over(Datasets(pulls, Box(0.0, 1.0)))


_BLOCK_STARTS = (1, 3)  # the first leaves of blocks 1 and 2 (pulls 2 and 4), changed by hand
for eps, pulls in [(1.0, 8), (0.5, 16)]:
    suite.privacy(f"private-online/thm5-privacy@eps{eps:g},pulls{pulls}", auditor="exact",
                  subject=HybridReleases(eps, pulls), claim=PureDP(eps), relation=_stream_search(pulls),
                  pairs=[one_changed(np.zeros(pulls), 0.0, 1.0, index) for index in _BLOCK_STARTS],
                  expected="refuted", reason=HYBRID_REASON,
                  title=f"Hybrid-UCB's releases on one arm's {pulls} pulls (array sums with Lap(2/eps), block r's "
                        f"p-sums with Lap(2r/eps)) are {eps:g}-DP (searched, and the first leaves of blocks 1 and 2 "
                        "changed)")
suite.privacy("private-online/thm5-privacy@array,eps1,pulls16", auditor="exact",
              subject=HybridReleases(1.0, 16, "array"), claim=PureDP(0.5), relation=_stream_search(16),
              pairs=[one_changed(np.zeros(16), 0.0, 1.0, index) for index in _BLOCK_STARTS],
              title="E.3.1: Hybrid-UCB's array part (every completed array's sum + Lap(2/eps)) is 0.5 eps-DP "
                    "(eps = 1, 16 pulls)")
suite.privacy("private-online/thm5-privacy@tree,eps1,pulls16", auditor="exact", subject=HybridReleases(1.0, 16, "tree"),
              claim=PureDP(0.5), relation=_stream_search(16),
              pairs=[one_changed(np.zeros(16), 0.0, 1.0, index) for index in _BLOCK_STARTS],
              expected="refuted", reason=HYBRID_REASON,
              title="E.3.1: Hybrid-UCB's tree part (block r's p-sums with Lap(2r/eps)) is 0.5 eps-DP "
                    "(eps = 1, 16 pulls)")
# The estimates themselves (what Hybrid-UCB's index reads), 4 pulls: (W1, W2, W3, 1{W4 > 10}) is a
# function of mu~_1..mu~_4 with an exact law (HybridEstimateView); the threshold 10 = 2.5 times W4's
# larger scale 4/eps puts the indicator's loss near its limit eps/4 while the event keeps mass ~5%.
suite.privacy("private-online/thm5-privacy@estimates,eps1,pulls4", auditor="exact",
              subject=HybridEstimateView(1.0, 10.0), claim=PureDP(1.0), relation=_stream_search(4),
              pairs=[one_changed(np.zeros(4), 0.0, 1.0, 1)], expected="refuted",
              reason=HYBRID_REASON + "; the released estimates mu~_1..mu~_4 already lose more than eps "
                                     "(a function of them loses eps + 0.244 when the second pull changes)",
              title="Hybrid-UCB's estimates mu~_1..mu~_4 of one arm are 1-DP (through (W1, W2, W3, 1{W4 > 10}), "
                    "searched, and the second pull changed)")

# The noise steps of (43) in Lemma 12's proof: inequality (7) (fact2) on the estimate's two noises at
# pull 14 (r = 3, block fill n = 7): 3 array noises Lap(2/eps) and popcount(7) = 3 p-sum noises Lap(6/eps).
for part, law in zip(("array", "tree"), HybridCounter(1.0, 14).error_laws(14), strict=True):
    suite.tail(f"private-online/fact2@hybrid-{part},eps1,pull14", subject=law, auditor="exact",
               claim=TailBound.high_probability(partial(chan_shi_song, n=law.n, b=law.scale),
                                                "chi sqrt(8 ln(2/delta)), chi = b max{sqrt n, sqrt ln(2/delta)}"),
               title=f"Hybrid-UCB at pull 14, the {part} part's noise (sum of {law.n} Lap({law.scale:g})): "
                     f"P{{|Y| > chi sqrt(8 ln(2/delta))}} <= delta")

# M3, Theorem 6, end to end: FTNL's whole decision sequence (a product of report-noisy-max laws), as the
# decisions at the epoch starts (the transcript's default rounds; the other rounds repeat them).
# round 8 is the first of epoch 3 (8 rounds): its sums move from (0, 8) to (1, 7)
suite.privacy("private-online/thm6@eps1,K2,T31", auditor="exact",
              subject=DecisionTranscript(FollowTheNoisyLeader(1.0, 2), arms=2, horizon=31),
              claim=PureDP(1.0), relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(31, 2))),
              pairs=[one_changed(np.tile([0.0, 1.0], (31, 1)), [0.0, 1.0], [1.0, 0.0], 7)],
              expected="refuted", reason=FTNL_REASON,
              title="FTNL's decisions over T = 31 rounds (epochs 0..4, K = 2) are 1-DP (searched, and round 8's "
                    "vector reversed)")
suite.privacy("private-online/thm6@eps0.5,K3,T15", auditor="exact",
              subject=DecisionTranscript(FollowTheNoisyLeader(0.5, 3), arms=3, horizon=15),
              claim=PureDP(0.5), relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(15, 3))),
              expected="refuted", reason=FTNL_REASON,
              title="FTNL's decisions over T = 15 rounds (epochs 0..3, K = 3) are 0.5-DP (pairs searched)")

# The remedy FTNL_REASON points to: report-noisy-max's usual Lap(2/eps) (noise_scale="2/eps"), same pairs.
suite.privacy("private-online/thm6@lap2,eps1,K2,T31", auditor="exact",
              subject=DecisionTranscript(FollowTheNoisyLeader(1.0, 2, noise_scale="2/eps"), arms=2, horizon=31),
              claim=PureDP(1.0), relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(31, 2))),
              pairs=[one_changed(np.tile([0.0, 1.0], (31, 1)), [0.0, 1.0], [1.0, 0.0], 7)],
              title="FTNL with Lap(2/eps) instead of the printed Lap(1/eps): its decisions over T = 31 rounds "
                    "(K = 2) are 1-DP (searched, and round 8's vector reversed)")

# M4, Section 5: naive FTNL's decisions, Lap(K/eps) per action's epoch sum.
suite.privacy("private-online/claimsec5a-privacy@eps1,K3,T15", auditor="exact",
              subject=DecisionTranscript(FollowTheNoisyLeader(1.0, 3, variant="naive"), arms=3, horizon=15),
              claim=PureDP(1.0),
              relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(15, 3))),
              pairs=[one_changed(np.tile([0.0, 1.0, 0.0], (15, 1)), [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], 3)],
              title="naive FTNL's decisions over T = 15 rounds (K = 3, Lap(K/eps) per epoch sum) are 1-DP "
                    "(searched, and round 4's vector reversed)")


# Algorithm level, black-box: the bandit algorithms' whole decision sequences over small reward tables.
def _sequence_code(decisions: np.ndarray) -> np.ndarray:
    """A decision sequence over K = 2 arms as one integer, sum_t a_t 2^(t-1): a one-to-one
    post-processing, so that the auditor sees one categorical output per run."""
    decisions = np.asarray(decisions, dtype=np.int64)
    return decisions @ (2 ** np.arange(decisions.shape[1], dtype=np.int64))


def _reversed_rounds(horizon: int) -> list:
    """Arm 0 paying 1 and arm 1 nothing, against the same table with round 1's or round 3's vector
    reversed."""
    table = np.tile([1.0, 0.0], (horizon, 1))
    return [one_changed(table, [1.0, 0.0], [0.0, 1.0], index) for index in (0, 2)]


LITERAL_INIT_REASON = ("read literally, Algorithm 1's initialisation ('pull j once to initialize mu~_{j,1,0}') "
                       "releases the first reward without noise, and the index reads it until the arm's next array "
                       "fills; Theorem 2's proof noises every array by eq. 3, the default reading (r = 0)")
for _id, _policy, _T, _title, _expected in [
        ("thm2@algorithm,eps1,K2,T10", AnytimeLazyUCB(1.0), 10, "Anytime-Lazy-UCB's decisions", {}),
        ("thm2@algorithm,literal-init,eps1,K2,T10", AnytimeLazyUCB(1.0, literal_init=True), 10,
         "Anytime-Lazy-UCB's decisions with the initialisation box as printed (no noise)",
         {"expected": "refuted", "reason": LITERAL_INIT_REASON}),
        ("thm5-privacy@algorithm,eps1,K2,T12", HybridUCB(1.0), 12, "Hybrid-UCB's decisions", {})]:
    suite.privacy(f"private-online/{_id}", auditor="statistical", **_expected,
                  subject=DecisionTranscript(_policy, arms=2, horizon=_T), claim=PureDP(1.0),
                  relation=ReplaceRewardVector().over(Box(0.0, 1.0, shape=(_T, 2))), pairs=_reversed_rounds(_T),
                  options={"statistic": _sequence_code},
                  title=f"{_title} over T = {_T} rounds (K = 2) are 1-DP, black-box (rounds 1 and 3 reversed on "
                        "a table where arm 0 pays 1)")
