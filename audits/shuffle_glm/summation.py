"""shuffle-glm, mechanism-level privacy of the shuffled summation protocols P_1, P_2 (Appendix S),
Algorithm 1's uses of P_2 (Section 5, Appendix D.1) and P_GD (Appendix T), audited exactly.

Encoded (id -> statement, parameter points):
  - lemS.1-privacy: P_1 is (eps, delta)-shuffle private for ||x_i||_2 <= Delta, one user replaced.
    At (eps, delta) = (15, 0.4), d = 2, n = 16 (the edge of the lemma's range, where eq. (127)'s b is
    smallest, so the noise is weakest against the shift 2g of one label), pairs searched over the
    cube inside the unit ball; and at (1, 0.01) on the pairs -e_1 -> e_1 and 0 -> e_1 (tables of
    +-12 sd of Bin(n b, 1/4), 3 10^5 entries, too wide for a search within the time budget).
  - thm4.2i-privacy: Cheu, Joseph, Mao & Peng's Theorem 4.2, part (i), as the paper quotes and uses it
    (the spec's external row X1, behind Algorithms 4-7 and Lemmas S.1, S.2): (R_Vec, S_Vec, A_Vec) with
    eq. (127)'s parameters is (eps, delta)-shuffle private for 0 < eps <= 15, 0 < delta < 1/2, ||x_i||_2 <= Delta.
    The release is P_1's; the points are the corners of the quoted range Lemma S.1's entries leave out:
    (15, 0.49) at (d, n) = (1, 1), (3, 2) and (2, 16) (pairs searched for n >= 2), and (0.5, 0.001) at
    (1, 1) (pairs -e_1 -> e_1 and 0 -> e_1 at n = 1, where the shuffler hides nothing).
  - lemS.2-privacy: P_2 at (15, 0.4), d = 2, n = 16: over searched rank-one inputs y y^T (||y||^2 <= 1),
    and on general symmetric matrices of operator norm 1 (I -> -I; the swap matrix -> its negative).
  - lemS.1-accuracy, lemS.2-accuracy: the analyzer is unbiased, E[A(S(R(x_1..x_n)))] = sum_i x_i. A proof step on
    each output coordinate: the analyzer applied to the means of the exact count laws (A is affine, so that is the
    output's mean) against the users' sum, to within the float resolution of those means (2^-40 of the largest count,
    n (2g + b), times Delta/g: 1e-4 at (1, 0.01), where b = 5.5e7; a debiasing off by one count shows as Delta/g =
    1/8). P_1 at (15, 0.4) and (1, 0.01), P_2 at (15, 0.4) on rank-one inputs y y^T, d = 2, n = 16, on seeded inputs
    in the unit ball and on users at +-e_1 and e_2 (the rounding's edges).
  - claimsec5-sdp: Algorithm 1's warm-up P_2 (Delta = 1) at (eps/2, delta/2) for (eps, delta) = (4, 0.1)
    (Theorem 5.1's range eps < 5), n = 16, d = 2, on three pairs of one user's arm.
  - claimsecD.1: Algorithm 1 line 18's P_2 at (eps/2, delta/2), Delta = 1/kappa* (kappa* = 4), inputs of
    norm <= 1/kappa*, claimed (eps/2, delta/2 - 1/T^2) with T = 1000.
  - lemT.2-privacy: one P_GD iteration (P_1 on gradients, Delta = L = 1) at its per-iteration budget
    (eps = 1, delta = 0.4, n = 8, d = 1: T_it = 2, (eps_r, delta_r) = (0.261, 0.133); and at eps = 2, delta =
    0.4, n = 4: T_it = 5, (eps_r, delta_r) = (0.330, 0.067)); and the whole
    T_it-iteration transcript for the linear loss -<theta, u> (convex, 1-Lipschitz, so the lemma
    applies; its gradient does not depend on theta, so the transcript's law is an exact product) at
    (1, 0.4, n = 8) and (2, 0.4, n = 4, T_it = 5). The points keep T_it small and the tables tractable:
    eq. (127)'s b grows like n^2 at P_GD's per-iteration budget. At (2, 0.4, n = 4) the paper's
    accounting (advanced composition with delta' = delta/(T_it + 1)) gives 2.37 > eps; the claim is
    audited on the mechanism, not on that arithmetic (see tests). For a loss whose gradient depends on
    theta the view is adaptive (iteration t's inputs are the gradients at theta_t, a function of the
    earlier views) and its law is no product: with T_it = 2 it is a mixture over theta_1, a function of the
    observed first view, of products (a keyed mixture; delta(eps) sums the blocks' hockey-stick divergences),
    so P_GD's whole view for the logistic loss (the loss of Algorithms 1 and 2) is audited exactly at
    (1, 0.4, n = 8, d = 1, T_it = 2) (37 blocks), and from samples, black-box, as a cross-check. T_it > 2
    (nested blocks) and d > 1 (the first view's table is the product of the labels') are out of reach exactly.
    A d = 2 linear-loss transcript (eps = 3 or 4, n = 4) takes 20-60 s exactly: left out of the suite.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit import ApproxDP, LowerBound, ProofStep
from dpaudit.core.domains import Box, Datasets
from dpaudit.core.neighbours import ReplaceUser, one_changed
from dpaudit.mechanisms.glm.glm_links import logistic_gradient
from dpaudit.mechanisms.glm.pgd_views import LinearLossTranscript, Transcript
from dpaudit.mechanisms.glm.private_gd import PrivateGD
from dpaudit.mechanisms.shuffle.vector_summation import (
    OuterProductSummation,
    ShuffledMatrixSummation,
    ShuffledVectorSummation,
)

from ._suite import suite

#: random base datasets per search (besides the structured ones): each pair costs a table convolution
SEARCH_RANDOM = 4
#: samples per side of the black-box P_GD transcript audit (cheap: two binomial draws per sample and iteration)
PGD_SAMPLES = {"quick": 200_000, "standard": 2_000_000, "thorough": 20_000_000}


# -- Lemma S.1: P_1 -----------------------------------------------------------------------------

E1 = np.array([1.0, 0.0])
suite.privacy("shuffle-glm/lemS.1-privacy@eps15,delta0.4,d2,n16", auditor="exact",
              subject=ShuffledVectorSummation(15.0, 0.4, 2, 16, 1.0), claim=ApproxDP(15.0, 0.4),
              relation=ReplaceUser(batch_size=16).over(Datasets(16, Box.inside_ball(1.0, 2)), random=SEARCH_RANDOM),
              title="P_1 is (15, 0.4)-shuffle private (the edge of Lemma S.1's range, smallest b), "
                    "one user's vector replaced, ||x||_2 <= 1, pairs searched")
suite.privacy("shuffle-glm/lemS.1-privacy@eps1,delta0.01,d2,n16", auditor="exact",
              subject=ShuffledVectorSummation(1.0, 0.01, 2, 16, 1.0), claim=ApproxDP(1.0, 0.01),
              pairs=[one_changed(np.zeros((16, 2)), -E1, E1), one_changed(np.zeros((16, 2)), 0.0, E1)],
              relation=ReplaceUser(batch_size=16),
              title="P_1 is (1, 0.01)-shuffle private: one user from -e_1 to e_1 (the largest change of one label) "
                    "and from 0")

# -- Cheu, Joseph, Mao & Peng's Theorem 4.2(i), the external result X1 the paper relies on -------------
# (R_Vec, S_Vec, A_Vec) with eq. (127)'s (g, b, p) is (eps, delta)-shuffle private for 0 < eps <= 15,
# 0 < delta < 1/2 and ||x_i||_2 <= Delta: the same release as P_1, audited at the corners of the quoted
# range that Lemma S.1's entries leave out: delta next to 1/2 at eps = 15 (b is smallest there), the smallest
# batches (n = 1: nothing for the shuffler to hide in, all the privacy from Bin(n b, 1/4); n = 2), a
# dimension d > 2 (g = d there), and a small eps with a small delta at n = 1.
for _eps, _delta, _d, _n, _search in [(15.0, 0.49, 1, 1, False), (15.0, 0.49, 3, 2, True),
                                      (15.0, 0.49, 2, 16, True), (0.5, 1e-3, 1, 1, False)]:
    _x1 = ShuffledVectorSummation(_eps, _delta, _d, _n, 1.0)
    _e1 = np.eye(_d)[0]
    _where = (dict(relation=ReplaceUser(batch_size=_n).over(Datasets(_n, Box.inside_ball(1.0, _d)),
                                                            random=SEARCH_RANDOM)) if _search else
              dict(pairs=[one_changed(np.zeros((_n, _d)), -_e1, _e1), one_changed(np.zeros((_n, _d)), 0.0, _e1)],
                   relation=ReplaceUser(batch_size=_n)))
    suite.privacy(f"shuffle-glm/thm4.2i-privacy@eps{_eps:g},delta{_delta:g},d{_d},n{_n}", auditor="exact",
                  subject=_x1, claim=ApproxDP(_eps, _delta), footing="as printed", **_where,
                  title=f"Cheu et al.'s Theorem 4.2(i) as the paper quotes it (X1; Algorithms 4-7, Lemmas S.1, S.2): "
                        f"(R_Vec, S_Vec, A_Vec) with eq. (127)'s g = {_x1.g}, b = {_x1.b} is ({_eps:g}, {_delta:g})-"
                        f"shuffle private, d = {_d}, n = {_n}, ||x||_2 <= 1, "
                        + ("pairs searched" if _search else "one user from -e_1 to e_1 and from 0"))

# -- Lemmas S.1 and S.2: the analyzer is unbiased ----------------------------------------------------

def unbiased_step(protocol, data) -> ProofStep:
    """|E[o] - sum_i x_i| <= the float resolution of the count means, per output coordinate (module docstring)."""
    data = np.asarray(data, dtype=float)

    def sides(_):
        bias = np.abs(np.ravel(protocol.analyze(protocol.mean_counts(data)) - data.sum(axis=0)))
        resolution = protocol.count_resolution(protocol.Delta)
        return bias, np.full(bias.shape, resolution), {"coordinate": np.arange(bias.size)}

    return ProofStep("|E[o] - sum x| <= float resolution", "E[A(S(R(x_1..x_n)))] = sum_i x_i", sides, "<=")


def _in_ball(n: int, d: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(-1, 1, (n, d))
    return x / np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))


#: users at the rounding's edges: a third at e_1, a third at -e_1, the rest at e_2
EDGES = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])[np.arange(16) % 3]
UNBIASED_TEXT = ("Lemma {}: the analyzer is unbiased, E[A(S(R(x_1, ..., x_n)))] = sum_i x_i, for inputs of norm <= "
                 "Delta (the accuracy part; the sub-Gaussian proxy is printed as O(.) only)")
for _eps, _delta in ((15.0, 0.4), (1.0, 0.01)):
    _p1 = ShuffledVectorSummation(_eps, _delta, 2, 16, 1.0)
    suite.lower_bound(f"shuffle-glm/lemS.1-accuracy@eps{_eps:g},delta{_delta:g},d2,n16", claim=LowerBound(
        UNBIASED_TEXT.format("S.1"), {"eps": _eps, "delta": _delta, "d": 2, "n": 16, "Delta": 1.0},
        steps=(unbiased_step(_p1, _in_ball(16, 2, 1)), unbiased_step(_p1, EDGES))),
        title=f"P_1 at ({_eps:g}, {_delta:g}) is unbiased: its output's mean, from the exact count laws, is the users' "
              f"sum (seeded inputs in the unit ball; users at +-e_1 and e_2)")
_P2_UNBIASED = OuterProductSummation(ShuffledMatrixSummation(15.0, 0.4, 2, 16, 1.0))
suite.lower_bound("shuffle-glm/lemS.2-accuracy@eps15,delta0.4,d2,n16,rank1", claim=LowerBound(
    UNBIASED_TEXT.format("S.2"), {"eps": 15.0, "delta": 0.4, "d": 2, "n": 16, "Delta": 1.0},
    steps=(unbiased_step(_P2_UNBIASED.protocol, _P2_UNBIASED.matrices(_in_ball(16, 2, 2))),
           unbiased_step(_P2_UNBIASED.protocol, _P2_UNBIASED.matrices(EDGES)))),
    title="P_2 at (15, 0.4) is unbiased on the rank-one inputs y y^T: its output's mean, from the exact count laws, "
          "is the users' sum")

# -- Lemma S.2: P_2 -----------------------------------------------------------------------------

_P2_EDGE = ShuffledMatrixSummation(15.0, 0.4, 2, 16, 1.0)
suite.privacy("shuffle-glm/lemS.2-privacy@eps15,delta0.4,d2,n16,rank1", auditor="exact",
              subject=OuterProductSummation(_P2_EDGE), claim=ApproxDP(15.0, 0.4),
              relation=ReplaceUser(batch_size=16).over(Datasets(16, Box.inside_ball(1.0, 2)), random=SEARCH_RANDOM),
              title="P_2 is (15, 0.4)-shuffle private on the rank-one inputs y y^T (||y||^2 <= 1) Algorithm 1 sends, "
                    "pairs searched")
_SWAP = np.array([[0.0, 1.0], [1.0, 0.0]])
suite.privacy("shuffle-glm/lemS.2-privacy@eps15,delta0.4,d2,n16,symmetric", auditor="exact",
              subject=_P2_EDGE, claim=ApproxDP(15.0, 0.4),
              pairs=[one_changed(np.zeros((16, 2, 2)), np.eye(2), -np.eye(2)),
                     one_changed(np.zeros((16, 2, 2)), _SWAP, -_SWAP)],
              relation=ReplaceUser(batch_size=16),
              title="P_2 is (15, 0.4)-shuffle private: one user's matrix from I to -I (every diagonal label moves "
                    "2 Delta) and from the swap matrix to its negative (operator norm 1)")

# -- Section 5 / Appendix D.1: Algorithm 1's two uses of P_2 ------------------------------------
# Theorem 5.1's range eps < 5, delta < 1/2: eps = 4, delta = 0.1; P_2 runs at (eps/2, delta/2) = (2, 0.05)
# on a batch of n = 16 users in d = 2. D.1: Delta = 1/kappa* with kappa* = 4 (logistic: mu' <= 1/4),
# horizon T = 1000, claimed (eps/2, delta/2 - 1/T^2).
EPS_A1, DELTA_A1, T_A1, KAPPA_A1 = 4.0, 0.1, 1000, 4.0
_WARMUP = ShuffledMatrixSummation(EPS_A1 / 2, DELTA_A1 / 2, 2, 16, 1.0)
_UNIT2 = np.array([1.0, 1.0]) / math.sqrt(2)
suite.privacy("shuffle-glm/claimsec5-sdp@eps4,delta0.1,d2,n16", auditor="exact",
              subject=OuterProductSummation(_WARMUP), claim=ApproxDP(EPS_A1 / 2, DELTA_A1 / 2),
              pairs=[one_changed(np.zeros((16, 2)), E1, E1[::-1]),
                     one_changed(np.zeros((16, 2)), _UNIT2, _UNIT2 * [1, -1]),
                     one_changed(np.zeros((16, 2)), 0.0, E1)],
              relation=ReplaceUser(batch_size=16),
              title="Algorithm 1's warm-up V = A_2(S(R_2(x x^T, Delta = 1, eps/2, delta/2))) is (eps/2, delta/2)-SDP "
                    "(eps = 4, delta = 0.1): one user's arm from e_1 to e_2, (1, 1)/sqrt 2 to (1, -1)/sqrt 2, and "
                    "from 0")
_SCALED = OuterProductSummation(ShuffledMatrixSummation(EPS_A1 / 2, DELTA_A1 / 2, 2, 16, 1 / KAPPA_A1))
_HALF = 1 / math.sqrt(KAPPA_A1)  # ||y||^2 = weight ||x||^2 <= 1/kappa*
suite.privacy("shuffle-glm/claimsecD.1@eps4,delta0.1,T1000,kappa4,d2,n16", auditor="exact",
              subject=_SCALED, claim=ApproxDP(EPS_A1 / 2, DELTA_A1 / 2 - 1 / T_A1**2),
              pairs=[one_changed(np.zeros((16, 2)), _HALF * E1, _HALF * E1[::-1]),
                     one_changed(np.zeros((16, 2)), _HALF * _UNIT2, _HALF * _UNIT2 * [1, -1]),
                     one_changed(np.zeros((16, 2)), 0.0, _HALF * E1)],
              relation=ReplaceUser(batch_size=16),
              title="Algorithm 1 line 18: R_2((mu'/beta) x x^T, Delta = 1/kappa*, eps/2, delta/2) summed is "
                    "(eps/2, delta/2 - 1/T^2)-SDP when the weights are at most 1/kappa* (kappa* = 4, T = 1000)")

# -- Lemma T.2: P_GD ----------------------------------------------------------------------------
# eps = 1, delta = 0.4, n = 8, d = 1, L = 1: T_it = floor(64 / log^3(20)) = 2 iterations at
# (eps_r, delta_r) = (1 / (2 sqrt(4 log 2.5)), 0.4 / 3) = (0.261, 0.133); eps = 2, n = 4: T_it = 5, where
# advanced composition with delta' = delta/(T_it + 1) gives 2.37 > eps (the transcript is audited anyway).
for eps, delta, n in [(1.0, 0.4, 8), (2.0, 0.4, 4)]:
    pgd = PrivateGD(eps, delta, n, 1, lipschitz=1.0, radius=1.0)
    pairs = [one_changed(np.zeros((n, 1)), -1.0, 1.0), one_changed(np.zeros((n, 1)), 0.0, 1.0)]
    # every point's single-iteration view against its per-iteration budget (line 3)
    suite.privacy(f"shuffle-glm/lemT.2-privacy@round,eps{eps:g},delta{delta:g},n{n},d1", auditor="exact",
                  subject=pgd.protocol, claim=ApproxDP(pgd.round_epsilon, pgd.round_delta), pairs=pairs,
                  relation=ReplaceUser(batch_size=n),
                  title=f"one P_GD iteration: P_1 on gradients (Delta = L = 1) is (eps_r, delta_r) = "
                        f"({pgd.round_epsilon:.4g}, {pgd.round_delta:.4g})-shuffle private")
    suite.privacy(f"shuffle-glm/lemT.2-privacy@transcript,eps{eps:g},delta{delta:g},n{n},d1", auditor="exact",
                  subject=LinearLossTranscript(pgd), claim=ApproxDP(eps, delta), pairs=pairs,
                  relation=ReplaceUser(batch_size=n),
                  title=f"P_GD's whole {pgd.T_it}-iteration transcript for the linear loss -<theta, u> (1-Lipschitz) "
                        f"is ({eps:g}, {delta:g})-shuffle private; one user's point from -1 to 1 and from 0 to 1")

# The adaptive view: for the logistic loss (Algorithms 1 and 2's loss, 1-Lipschitz on records with r in [0, 1],
# ||x|| <= 1) iteration 2's inputs are the gradients at theta_1, a function of iteration 1's view, so the
# transcript's law is a mixture over theta_1 of products, not a product. theta_1 is a function of the observed
# first view, common to both neighbours, so the law is a keyed mixture (Transcript.distribution: here eta = 2.83
# against an estimate's sd ~ 400 sends theta_1 to the ball's ends +-1 for all but 33 of the first view's
# 4.8 10^5 values, 37 blocks in all counting the iterates one ulp inside +-1) and delta(eps) is the sum over the
# blocks of hockey-stick divergences: audited exactly at the first point above (T_it = 2), and, as a cross-check
# of the exact law, from samples, black-box (false refutation at most the run's per-claim share of --alpha,
# Bonferroni). Pairs: one user's record (r, x) from (0, 1) to (1, 1) and from (0, 1) to (0, -1) (gradients
# (mu(theta) - r) x move by 1 at every theta), the others (0, 0) (gradient 0).
_LOGISTIC_PGD = PrivateGD(1.0, 0.4, 8, 1, lipschitz=1.0, radius=1.0)
_ZERO_RECORDS = np.zeros((8, 2))
_LOGISTIC_PAIRS = [one_changed(_ZERO_RECORDS, [0.0, 1.0], [1.0, 1.0]),
                   one_changed(_ZERO_RECORDS, [0.0, 1.0], [0.0, -1.0])]
suite.privacy("shuffle-glm/lemT.2-privacy@transcript,logistic,eps1,delta0.4,n8,d1", auditor="statistical",
              samples=PGD_SAMPLES, subject=Transcript(_LOGISTIC_PGD, logistic_gradient()), claim=ApproxDP(1.0, 0.4),
              pairs=_LOGISTIC_PAIRS, relation=ReplaceUser(batch_size=8),
              title=f"P_GD's whole {_LOGISTIC_PGD.T_it}-iteration view for the logistic loss (adaptive: iteration 2 "
                    "runs at theta_1) is (1, 0.4)-shuffle private; one user's (r, x) from (0, 1) to (1, 1) and to "
                    "(0, -1) (black-box)")
suite.privacy("shuffle-glm/lemT.2-privacy@transcript,logistic,exact,eps1,delta0.4,n8,d1", auditor="exact",
              subject=Transcript(_LOGISTIC_PGD, logistic_gradient()), claim=ApproxDP(1.0, 0.4),
              pairs=_LOGISTIC_PAIRS, relation=ReplaceUser(batch_size=8),
              title=f"P_GD's whole {_LOGISTIC_PGD.T_it}-iteration view for the logistic loss (adaptive: iteration 2 "
                    "runs at theta_1) is (1, 0.4)-shuffle private; one user's (r, x) from (0, 1) to (1, 1) and to "
                    "(0, -1) (exact: a mixture over theta_1 keyed by the first view)")
