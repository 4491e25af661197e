"""shuffle-glm, algorithm level: the registry's JDP-GLM (Algorithm 2) and ShuffleGLM (Algorithm 1) run
on small tables of users, their own published outputs audited black-box
(:class:`~dpaudit.bandits.contextual_transcripts.ContextualTranscript`) against Theorems 6.2 and 5.1 as printed.

Instance: T = 16 users, K = 2 arms, d = 2; every user sees e_1 paying 1 and e_2 paying 0, but the
protected one (round 1), whose data a pair changes. Small because each sample is a whole run of the
policy (vectorised over runs, but T rounds of batched linear algebra per output) and neither output has
a tractable law: the actions and the view are drawn by the algorithm itself, through the audited
releases. The statistical auditor selects an event on one part of the samples and confirms it on fresh
ones (40,000 runs per side at the quick budget). A "not refuted" says that no event with a detectable
excess (at these sample sizes, an excess of delta of order 10^-2) over the claimed (eps, delta) bound
exists on these pairs; it does not verify the claim, and it says nothing of other instances or of users
whose play depends on the noise.

Encoded (id -> statement, point):
  - thm6.2-jdp@algorithm,...: JDP-GLM is (eps, delta)-JDP (delta > zeta): the actions of users 2..T when
    user 1's contexts and rewards change (output "jdp"), at eps = 1, delta = 0.02, zeta = 0.01 (the
    registry's defaults; Theorem 6.2's printed parameters (19)-(21), c = C = 1). Two points:
      S = 2 (kappa = 1/mu'(2) = 9.5, kappa* = 4, the link's bounds): gamma = 961, so the criterion-I
      threshold 1/(gamma^2 kappa R^2) = 1.1e-7 lies below every ||x||^2_{V^-1} (about 1/lambda = 4e-5):
      every round explores. The actions are then argmax_x ||x||_{V^-1} on the noisy V-tree (B_V), a
      function of the tree's noise and of the contexts only: every criterion-I call of P_GD (budget
      (eps_o, delta_o) = (2.6e-6, 8.5e-12), count1_cutoff = 3.9e8) has T_it = 1 and returns theta_0 = 0
      whatever the rewards, and B_H and the switching rule enter no criterion-I decision.
      S = 3, kappa* = 20 (kappa = 1/mu'(3) = 22.1): the point of lemI.7@billboard, where B_V's nodes alone
      have delta(eps) = 0.0256 > delta for round 1's leaf e_1 e_1^T -> e_2 e_2^T (mu = 0.639; the same
      mu at T = 16: sigma_noise scales with sqrt(log2 T + 1)). Every round explores there too. This entry
      asks whether the actions, a post-processing of B_V, leak that much; the black-box audit cannot
      resolve a delta excess of 0.006 at these sample sizes, so "not refuted" leaves it open. (gamma = 195,
      threshold 1.2e-6 against 1/lambda = 2e-4, sigma_noise = 4.95.)
    At S = 1 (the registry's default) no round explores (1/lambda = 4e-5 is below the threshold 5.4e-5) and
    the determinant never doubles (the noise is of order 10^2, lambda 2.5e4): every action is the argmax of
    beta ||x|| / sqrt(lambda), a function of the round's own arms, JDP with delta = 0; not encoded.
    Pairs (the rule): user 1 (round 1: V = lambda I ties every unit arm, so she plays arm 0 whatever the
    noise, and her V-leaf is arm 0's x x^T) with her rewards flipped ((1, 0) -> (0, 1); no action can
    depend on them at these points, a control) and with arm 0 moved from e_1 to e_2 (her leaf e_1 e_1^T ->
    e_2 e_2^T, the billboard entry's pair).
    Private-GLM (Remark A.1's configuration) is not under Theorem 6.2: the theorem is about Algorithm 2
    with P_GD and the parameters (19)-(21), and the experiments run delta = zeta, outside its delta > zeta.
    What the paper claims for it is Remark A.1's "the overall privacy budget is never exceeded" (remarkA.1:
    DP-SGD per-call budgets from advanced composition over the cutoffs, Lemma I.4's trees unchanged), which
    would be audited as remarkA.1@algorithm on PrivateGLM(tree="printed"); not encoded yet.
  - thm5.1-sdp@algorithm,...: ShuffleGLM is (eps, delta)-SDP, eps < 5, delta < 1/2: the analyzer's view of
    every batch (output "messages": P_2's d(d+1)/2 = 3 label counts per batch, ShuffleGLM's ``record_views``)
    when one user's data change, at eps = 4, delta = 0.1 (the batch-level thm5.1-sdp entries' point), S = 1,
    kappa, kappa* the link's bounds. The printed B_1 (eq. (6), with e^(3S) and gamma^2 ~ 5e6) is far above
    T = 16, so the whole horizon is the warm-up batch: one P_2 release (Delta = 1, n = 16, at (eps/2,
    delta/2)) of the users' x_t x_t^T, x_t ~ pi^G(X_t), and no P_GD call (the last batch's estimate is used
    by no decision). The audit is of that release as the algorithm makes it (the other users' plays are
    random: the G-optimal design of {e_1, e_2} is uniform), i.e. of the claim's object at this horizon.
    Pairs: the protected user's two arms both e_1 (reward 0) -> both e_2 (reward 1): her input e_1 e_1^T ->
    e_2 e_2^T whichever arm she plays (two labels by one); and both u = (e_1 + e_2)/sqrt 2 -> both
    (e_1 - e_2)/sqrt 2 (the off-diagonal label by one): the batch-level entries' moves.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit import ApproxDP
from dpaudit.algorithms.registry import ALGORITHMS
from dpaudit.bandits.contextual_transcripts import ContextualTranscript, fixed_arms
from dpaudit.core.neighbours import ReplaceUser

from ._suite import suite

T_ALG, K_ALG, D_ALG = 16, 2, 2
POINT = f"T{T_ALG},K{K_ALG},d{D_ALG}"
SAMPLES = {"quick": 40_000, "standard": 400_000, "thorough": 4_000_000}
BASE = fixed_arms(np.eye(D_ALG)[:K_ALG], [1.0, 0.0], T_ALG)  # e_1 pays 1, e_2 pays 0, for every user


def protected_pairs(rows: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """One pair per (row, row'): user 1's (K, d + 1) row is ``row`` on one side and ``row'`` on the other,
    every other user as in BASE."""
    pairs = []
    for row, other in rows:
        a, b = BASE.copy(), BASE.copy()
        a[0], b[0] = row, other
        pairs.append((a, b))
    return pairs


def arms_row(x, y, rewards) -> np.ndarray:
    """A user's row: arm 0 at x, arm 1 at y, with their rewards."""
    return np.column_stack([np.array([x, y], dtype=float), rewards])


# -- Theorem 6.2: JDP-GLM's actions ---------------------------------------------------------------------
E1, E2 = np.eye(2)
_JDP_ROWS = [(BASE[0], arms_row(E1, E2, [0.0, 1.0])),   # rewards flipped
             (BASE[0], arms_row(E2, E2, [1.0, 0.0]))]   # arm 0 moved e_1 -> e_2 (her V-leaf)
_EPS, _DELTA, _ZETA = 1.0, 0.02, 0.01
for _S, _kappa_star, _note in [(2.0, None, "every round explores"),
                               (3.0, 20.0, "every round explores; the lemI.7@billboard point")]:
    _policy = ALGORITHMS["jdp-glm"](eps=_EPS, delta=_DELTA, zeta=_ZETA, S=_S, kappa_star=_kappa_star)
    _kappa = "" if _kappa_star is None else f",kappa{_kappa_star:g}"
    suite.privacy(f"shuffle-glm/thm6.2-jdp@algorithm,eps{_EPS:g},delta{_DELTA:g},zeta{_ZETA:g},S{_S:g}{_kappa},{POINT}",
                  auditor="statistical", samples=SAMPLES,
                  subject=ContextualTranscript(_policy, K_ALG, D_ALG, T_ALG, output="jdp", protected=1),
                  claim=ApproxDP(_EPS, _DELTA), pairs=protected_pairs(_JDP_ROWS),
                  relation=ReplaceUser(batch_size=T_ALG),
                  title=f"JDP-GLM (Theorem 6.2's parameters, S = {_S:g}, kappa* = {_policy.kappa_star:.3g}; {_note}): "
                        f"the actions of users 2..{T_ALG} are ({_EPS:g}, {_DELTA:g})-JDP when user 1's rewards flip "
                        "or her arm 0 moves e_1 -> e_2 (K = 2, d = 2; black-box)")


# -- Theorem 5.1: ShuffleGLM's analyzer views ------------------------------------------------------------
_U, _V = np.array([1.0, 1.0]) / math.sqrt(2), np.array([1.0, -1.0]) / math.sqrt(2)
_SDP_ROWS = [(arms_row(E1, E1, [0.0, 0.0]), arms_row(E2, E2, [1.0, 1.0])),
             (arms_row(_U, _U, [0.0, 0.0]), arms_row(_V, _V, [1.0, 1.0]))]
_SDP_EPS, _SDP_DELTA = 4.0, 0.1
_policy = ALGORITHMS["shuffle-glm"](eps=_SDP_EPS, delta=_SDP_DELTA)
suite.privacy(f"shuffle-glm/thm5.1-sdp@algorithm,eps{_SDP_EPS:g},delta{_SDP_DELTA:g},{POINT}",
              auditor="statistical", samples=SAMPLES,
              subject=ContextualTranscript(_policy, K_ALG, D_ALG, T_ALG, output="messages"),
              claim=ApproxDP(_SDP_EPS, _SDP_DELTA), pairs=protected_pairs(_SDP_ROWS),
              relation=ReplaceUser(batch_size=T_ALG),
              title=f"ShuffleGLM (eps = {_SDP_EPS:g}, delta = {_SDP_DELTA:g}): P_2's label counts of every batch "
                    f"(the whole horizon T = {T_ALG} is the warm-up batch) are ({_SDP_EPS:g}, {_SDP_DELTA:g})-SDP "
                    "when one user's arms move e_1 -> e_2 or u -> v (K = 2, d = 2; black-box)")
