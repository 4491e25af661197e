"""shuffle-glm, mechanism-level privacy of the shuffled summation protocols P_1, P_2 (Appendix S),
Algorithm 1's uses of P_2 (Section 5, Appendix D.1) and P_GD (Appendix T), audited exactly.

Encoded (id -> statement, parameter points):
  - lemS.1-privacy: P_1 is (eps, delta)-shuffle private for ||x_i||_2 <= Delta, one user replaced.
    At (eps, delta) = (15, 0.4), d = 2, n = 16 (the edge of the lemma's range, where eq. (127)'s b is
    smallest, so the noise is weakest against the shift 2g of one label), pairs searched over the
    cube inside the unit ball; and at (1, 0.01) on the pairs -e_1 -> e_1 and 0 -> e_1 (tables of
    +-12 sd of Bin(n b, 1/4), 3 10^5 entries, too wide for a search within the time budget).
  - lemS.2-privacy: P_2 at (15, 0.4), d = 2, n = 16: over searched rank-one inputs y y^T (||y||^2 <= 1),
    and on general symmetric matrices of operator norm 1 (I -> -I; the swap matrix -> its negative).
  - claimsec5-sdp: Algorithm 1's warm-up P_2 (Delta = 1) at (eps/2, delta/2) for (eps, delta) = (4, 0.1)
    (Theorem 5.1's range eps < 5), n = 16, d = 2, on three pairs of one user's arm.
  - claimsecD.1: Algorithm 1 line 18's P_2 at (eps/2, delta/2), Delta = 1/kappa* (kappa* = 4), inputs of
    norm <= 1/kappa*, claimed (eps/2, delta/2 - 1/T^2) with T = 1000.
  - lemT.2-privacy: one P_GD iteration (P_1 on gradients, Delta = L = 1) at its per-iteration budget
    (eps = 1, delta = 0.4, n = 8, d = 1: T_it = 2, (eps_r, delta_r) = (0.261, 0.133)); and the whole
    T_it-iteration transcript for the linear loss -<theta, u> (convex, 1-Lipschitz, so the lemma
    applies; its gradient does not depend on theta, so the transcript's law is an exact product) at
    (1, 0.4, n = 8) and (2, 0.4, n = 4, T_it = 5). The points keep T_it small and the tables tractable:
    eq. (127)'s b grows like n^2 at P_GD's per-iteration budget. At (2, 0.4, n = 4) the paper's
    accounting (advanced composition with delta' = delta/(T_it + 1)) gives 2.37 > eps; the claim is
    audited on the mechanism, not on that arithmetic (see tests).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit import ApproxDP
from dpaudit.core.domains import Box, Datasets
from dpaudit.core.neighbours import ReplaceUser, one_changed
from dpaudit.mechanisms.pgd_views import LinearLossTranscript
from dpaudit.mechanisms.private_gd import PrivateGD
from dpaudit.mechanisms.vector_summation import (
    OuterProductSummation,
    ShuffledMatrixSummation,
    ShuffledVectorSummation,
)

from ._suite import suite

#: random base datasets per search (besides the structured ones): each pair costs a table convolution
SEARCH_RANDOM = 4


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
    if eps == 1.0:
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
