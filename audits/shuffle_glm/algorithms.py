"""shuffle-glm, algorithm-level claims: Algorithm 2's criterion-II optimizer call (line 12), the
compositions of Lemma I.7 / Theorem 6.2 (Algorithm 2, JDP) and Theorem 5.1 (Algorithm 1, SDP), and
Assumption I.1 at Algorithm 2's lambda (19).

Encoded (id -> statement, parameter points):
  - lemI.4-tail@assumptionI.1: Assumption I.1 with lambda of (19): the prefix noise's spectral norm is
    at most lambda - lambda_min = lambda_max - lambda = lambda/(4 sqrt d + 1) for all t w.p. >= 1 - zeta/8;
    same tree, zeta = 0.01 (Theorem 6.2 needs delta > zeta); from samples (B_H's noise has the same law).
  - lemT.2-privacy@criterion2: Algorithm 2's criterion-II call (line 12) as printed: P_GD on the
    n = t - 1 - |T_o| criterion-II rounds, loss l + (lambda_max/(2n))||theta||^2 (logistic), Theta the
    ellipsoid {||theta - theta_o||_V <= gamma sqrt(kappa)} (Section 6; eq. (69) prints the ball of the
    same radius), at (eps_tau, delta_tau) = (eps/(6 sqrt(2 count2_cutoff log(4/delta))),
    delta/(6 count2_cutoff)), lambda, gamma, cutoffs from (19), (21) with c = 1. The paper gives no
    Lipschitz constant for this call: L = R + lambda_max max_Theta ||theta|| / n (the regulariser's
    gradient included, as D.2 does for Algorithm 1). count2_cutoff as printed is log2 of about
    1 + 1/(2 sqrt d), below one call: rounded up to 1. Point: T = 64, d = 2, R = S = 1, kappa* = 4,
    kappa = 1/mu'(1), eps = 40, delta = 0.9, zeta = 0.45, n = 4, theta_o = (0.5, 0), V = lambda I + diag(2, 1);
    there T_it = 1, so the call's transcript is one P_1 view of the gradients at theta_0 = 0, an exact
    product law, with 1.1e5-entry tables (P_1 at (0.99, 0.075)); pairs searched over records with
    r in {0, 1}, x in {e_1, -e_2, 0}. At the paper's eps = 4, delta = 0.02 the
    tables have 6e6 entries (P_1 at eps 0.03): out of reach of the quick budget. L = 229 dwarfs the
    gradients (1/2 - r) x, so the call is far inside its budget (delta(eps_tau) <= 1.2e-13, the PLD
    grid's resolution).
  - thm5.1-sdp: Algorithm 1 is (eps, delta)-SDP, eps < 5, delta < 1/2. A user lies in one batch and every
    later release has, given the transcript so far, the same law under both neighbours, so the
    transcript's privacy is that of its batch's release: P_2's view at (eps/2, delta/2) and P_GD's at
    (eps/2, delta/2), composed exactly as their product law. Points: eps = 4, delta = 0.1, T = 1000,
    kappa* = 4, d = 2, a batch of n = 4 (the batch length is free in the privacy claim; with n = 4, P_GD
    runs T_it = 1 iteration, so its transcript is one P_1 view and the product is exact), the warm-up
    batch (x x^T, Delta = 1) and a batch k >= 2 (w x x^T, Delta = 1/kappa*, the line-18 weight taken as
    part of the record, any w <= 1/kappa* that D.1's event allows); P_GD with D.2's
    L = RS + S + S lambda_max / n (lambda_max of (15), sigma of (10) as the P_2 entry's sd), given pairs
    (one user's (r, x) replaced or emptied). Verified with delta ~ 1e-13 at (eps, delta): eq. (127)'s
    noise is far more than its budget needs.
  - lemI.7 / thm6.2-jdp (Algorithm 2 is (eps, delta)-JDP, delta > zeta): the composition the proof does,
    audited exactly on the product law of what one user's data changes in the released view (the
    Billboard: V, H, the optimizers' outputs, T_o; the other users' actions are post-processing of it
    and of their own contexts). Smallest point that composes a tree, an optimizer call and the switching
    rule: a criterion-II user (i not in T_o under both neighbours, so T_o minus {i} is equal in law, as
    the proof conditions) at the criterion-II entry's instance (T = 64, d = 2, kappa* = 4, eps = 40,
    delta = 0.9, zeta = 0.45; T_o = {1, 2, 3}, criterion-II rounds 4..7, the switch and the only
    line-12 call (count2_cutoff = 1) at tau = 8). Its data enter B_H's leaf (line 24,
    (mu'(<x, theta_o>)/e) x x^T) and that call; V, T_o and the criterion-I calls have the same law under
    both neighbours, the switch indicators are post-processing of B_H's nodes. The view
    (mechanisms/glm/pgd_views.py, CriterionTwoUserView) is B_H's 64 Gaussian nodes and the call's P_1 view (T_it = 1):
    a mixed Gaussian/finite product, whose delta(eps) the exact auditor computes as the finite part's PLD
    weighted by the Gaussian delta at eps - l. Entries: the proof's conditional step (2 eps/3, 2 delta/3)
    (B_H per Lemma I.4 + the call per Lemma I.6), pairs searched over records r in {0, 1},
    x in {e_1, -e_2, 0}; Lemma I.7 and Theorem 6.2 at (eps, delta) on three pairs (reward flipped, arm
    turned orthogonal, arm to none). Verified with delta <= 1.1e-13 (the PLD grid's resolution): B_H's
    nodes move by mu = 0.80 (sigma_noise is calibrated to a leaf of norm 1/kappa* = 0.25, line 24's leaf
    has norm <= 1/(4e)) and the call is far inside its budget.
  - lemI.7@billboard (kappa* = 20): for a criterion-I user the Billboard contains B_V's nodes, and a
    product's delta(eps) is at least any part's; at the lemI.4 point (T = 64, d = 2, eps = 1,
    delta = 0.02, zeta = 0.01, kappa* = 20) B_V's nodes alone, round 1's leaf e_1 e_1^T -> e_2 e_2^T,
    have delta(eps) = 0.0256 > delta (mu = 0.639). Expected refuted: the composition the proof does
    fails there at the full (eps, delta), because of lemI.4's V-tree calibration; whether the actions
    themselves leak that much is not decided (the black-box entry thm6.2-jdp@algorithm,...,kappa20,... of
    :mod:`.transcripts` audits them at T = 16 and cannot resolve an excess of that size). At kappa* = 4
    the same part has mu = 0.128.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
from scipy import stats

from dpaudit import ApproxDP, TailBound
from dpaudit.algorithms.glm.parameters import (
    algorithm1_optimizer,
    algorithm2_parameters,
    criterion_two_optimizer,
    criterion_two_user_view,
)
from dpaudit.core.domains import Datasets
from dpaudit.core.neighbours import ReplaceUser, one_changed
from dpaudit.mechanisms.glm.exploration_set import (
    RankOneLeaves,
    SymmetricGaussianTree,
    max_prefix_noise_norm,
    node_noise_sigma,
)
from dpaudit.mechanisms.glm.pgd_views import BatchRelease, FirstIterationView
from dpaudit.mechanisms.shuffle.vector_summation import (
    ShuffledMatrixSummation,
)

from ._suite import suite
from .summation import DELTA_A1, E1, EPS_A1, KAPPA_A1, T_A1
from .trees import D_TAIL, T_TAIL, TAIL_TREE

# -- Algorithm 2's criterion-II optimizer call (line 12) ------------------------------------------
# theta_tau by P_GD on the n = t - 1 - |T_o| criterion-II rounds so far, loss l + (lambda_max/(2n))||theta||^2
# (logistic), Theta = {||theta - theta_o||_V <= gamma sqrt(kappa)}, budget (eps_tau, delta_tau) =
# (eps/(6 sqrt(2 count2_cutoff log(4/delta))), delta/(6 count2_cutoff)). Point: T = 64, d = 2, R = S = 1,
# kappa* = 4, kappa = 1/mu'(1) = 5.09 (logistic), eps = 40, delta = 0.9, zeta = 0.45, n = 4, theta_o = (0.5, 0),
# V = lambda I + diag(2, 1) (three criterion-I rounds on e_1, e_1, e_2; noise-free for definiteness: V is
# public, equal in both neighbours). There count2_cutoff = 1, (eps_tau, delta_tau) = (3.86, 0.15), T_it = 1
# (so the view below is the whole transcript) and P_1 runs at (0.991, 0.075): the binomial tables have 1.1e5
# entries. At the paper's own eps = 4, delta = 0.02 they have 6e6 (P_1 at eps 0.03), and 3.4e5 at eps = 20,
# delta = 0.5: the large budget is what makes the call's exact law tractable, not a choice of verdict.
_A2 = algorithm2_parameters(40.0, 0.9, 64, 0.45, 2, 1.0, 1.0, 1 / (stats.logistic.pdf(1.0)), 4.0)
_TAU_PGD, _TAU_GRADIENT = criterion_two_optimizer(_A2, 4, [0.5, 0.0], _A2.lam * np.eye(2) + np.diag([2.0, 1.0]))
_U = np.array([1.0, 1.0]) / math.sqrt(2)


suite.privacy("shuffle-glm/lemT.2-privacy@criterion2,eps40,delta0.9,zeta0.45,T64,d2,n4", auditor="exact",
              subject=FirstIterationView(_TAU_PGD, _TAU_GRADIENT), claim=ApproxDP(*_A2.switch_budget),
              # records (r, x): both rewards on two orthogonal unit arms and on no arm (the gradient (1/2 - r) x
              # moves by at most |x|, between opposite rewards or orthogonal arms); structured datasets only
              relation=ReplaceUser(batch_size=4).over(
                  Datasets(4, tuple(np.array([r, *x]) for r in (0.0, 1.0) for x in (E1, -E1[::-1], np.zeros(2)))),
                  random=0),
              title=f"Algorithm 2's criterion-II P_GD (ellipsoid Theta, L = {_TAU_PGD.lipschitz:.4g}, T_it = 1) is "
                    f"(eps_tau, delta_tau) = ({_A2.switch_budget[0]:.4g}, {_A2.switch_budget[1]:.4g})-shuffle private: "
                    "one user's (r, x) replaced, searched")


# -- Lemma I.7 / Theorem 6.2: Algorithm 2 is (eps, delta)-JDP, composed for one criterion-II user ------------
# The released view one criterion-II user's (r, x) can change, the schedule fixed (T_o = {1, 2, 3} on e_1, e_1,
# e_2, criterion-II rounds 4..7, the switch and the line-12 call at tau = 8, the only call with
# count2_cutoff = 1): B_H's 64 nodes (leaf (mu'(<x, theta_o>)/e) x x^T at the user's round, sigma_noise of
# Lemma I.4) and the call's P_1 view (T_it = 1), an exact product of Gaussian and finite coordinates.
# Everything else (V, T_o, the criterion-I calls) has the same law under both neighbours, and the switch
# indicators and actions are post-processing. Same instance as the criterion-II entry above (eps = 40,
# delta = 0.9, zeta = 0.45, kappa* = 4): the composition's finite part is that call, tractable there only.
# The proof's conditional step (2 eps/3, 2 delta/3) is searched; the (eps, delta) statements, implied by
# it, are audited on three pairs (reward flipped, arm turned orthogonal, arm to none) to keep the suite fast.
_A2_VIEW = criterion_two_user_view(_A2, [4, 5, 6, 7], [0.5, 0.0], _A2.lam * np.eye(2) + np.diag([2.0, 1.0]))
_A2_POINT = "criterion2-user,eps40,delta0.9,zeta0.45,T64,d2,kappa4,n4"
_A2_VIEW_TITLE = (f"what one criterion-II user's (r, x) changes: B_H's nodes (sigma_noise = {_A2_VIEW.tree.sigma:.4g}) "
                  f"and the line-12 P_GD view (L = {_A2_VIEW.optimizer.pgd.lipschitz:.4g}, T_it = 1), one user's "
                  "record replaced")
suite.privacy(f"shuffle-glm/lemI.7@conditional,{_A2_POINT}", auditor="exact", subject=_A2_VIEW,
              claim=ApproxDP(2 * _A2.epsilon / 3, 2 * _A2.delta / 3),
              relation=ReplaceUser(batch_size=4).over(
                  Datasets(4, tuple(np.array([r, *x]) for r in (0.0, 1.0) for x in (E1, -E1[::-1], np.zeros(2)))),
                  random=0),
              title="Lemma I.7's step: given T_o minus {i}, B_H (Lemma I.4) and the optimizer (Lemma I.6) compose to "
                    f"(2 eps/3, 2 delta/3); {_A2_VIEW_TITLE} (searched)")
_A2_REST = np.tile([0.0, *E1], (4, 1))  # every user's record (r, x) = (0, e_1), but the changed one's
_A2_PAIRS = [one_changed(_A2_REST, [0.0, *E1], [1.0, *E1]),
             one_changed(_A2_REST, [0.0, *E1], [1.0, *-E1[::-1]]),
             one_changed(_A2_REST, [0.0, *E1], [0.0, 0.0, 0.0])]
for claim_id, what in [("lemI.7", "Lemma I.7"), ("thm6.2-jdp", "Theorem 6.2")]:
    suite.privacy(f"shuffle-glm/{claim_id}@{_A2_POINT}", auditor="exact", subject=_A2_VIEW,
                  claim=ApproxDP(_A2.epsilon, _A2.delta), pairs=_A2_PAIRS, relation=ReplaceUser(batch_size=4),
                  title=f"{what}: Algorithm 2 is (eps, delta)-JDP (delta > zeta); {_A2_VIEW_TITLE}")

# The proof's composition for a criterion-I user at kappa* = 20 (T = 64, d = 2, eps = 1, delta = 0.02,
# zeta = 0.01, the lemI.4 point where B_V fails): the Billboard the proof composes (V, H, the optimizers'
# outputs, T_o) contains B_V's nodes, and delta(eps) of a product is at least that of any of its parts, so
# B_V's nodes alone, round 1's leaf e_1 e_1^T -> e_2 e_2^T, decide against the whole composition. The
# criterion-I calls (budget split over count1_cutoff ~ 10^5 calls) are out of reach, and not needed for that.
_V20_TREE = SymmetricGaussianTree(64, 2, node_noise_sigma(64, 1.0, 0.02, 20.0))
suite.privacy("shuffle-glm/lemI.7@billboard,criterion1-user,eps1,delta0.02,zeta0.01,T64,d2,kappa20", auditor="exact",
              subject=RankOneLeaves(_V20_TREE, 1.0), claim=ApproxDP(1.0, 0.02),
              pairs=[one_changed(np.zeros((64, 2)), E1, E1[::-1])], relation=ReplaceUser(batch_size=64),
              expected="refuted", footing="proof step",
              reason="the Billboard the proof composes contains B_V's nodes, calibrated to leaves of norm 1/kappa* "
                     "while V's leaves x x^T have norm 1: at kappa* = 20 they alone exceed (eps, delta); JDP of the "
                     "actions is not decided",
              title="Lemma I.7's composition (the Billboard: V, H, optimizer outputs, T_o) for a criterion-I user is "
                    "(eps, delta)-DP: its B_V part, round 1's leaf e_1 e_1^T -> e_2 e_2^T (sigma_noise = "
                    f"{_V20_TREE.sigma:.4g})")


# -- Theorem 5.1: Algorithm 1 is (eps, delta)-shuffle DP -------------------------------------------
# A user lies in one batch; everything released later has, given the transcript so far, the same law under
# both neighbours, so the whole multi-round transcript's privacy is that of the user's own batch: the shuffled
# view of P_2 (eps/2, delta/2) and P_GD's transcript (eps/2, delta/2), composed exactly (their product law).
# Point: eps = 4, delta = 0.1 (Theorem 5.1's range eps < 5, delta < 1/2), T = 1000, d = 2, kappa* = 4,
# R = S = 1, a batch of n = 4 (the batch length is free in the privacy claim; the schedule (6)-(7) would
# give thousands): P_GD then runs T_it = 1 iteration, so its transcript is one P_1 view and the product law
# is exact. Warm-up batch (Delta = 1, x x^T) and a batch k >= 2 (Delta = 1/kappa*, w x x^T with the
# line-18 weight w <= 1/kappa* of D.1's event).
_T1_PGD, _T1_GRADIENT = algorithm1_optimizer(EPS_A1, DELTA_A1, 2, 4, T_A1, KAPPA_A1)
for batch, Delta, weighted, pairs in [
    ("warmup", 1.0, False, [one_changed(np.zeros((4, 3)), [0.0, *E1], [1.0, *E1[::-1]]),
                            one_changed(np.zeros((4, 3)), [0.0, *_U], [1.0, *(_U * [1, -1])]),
                            one_changed(np.zeros((4, 3)), [0.0, *E1], [0.0, 0.0, 0.0])]),
    ("batch2", 1 / KAPPA_A1, True,
     [one_changed(np.zeros((4, 4)), [0.0, *E1, 1 / KAPPA_A1], [1.0, *E1[::-1], 1 / KAPPA_A1]),
      one_changed(np.zeros((4, 4)), [0.0, *_U, 1 / KAPPA_A1], [1.0, *(_U * [1, -1]), 1 / KAPPA_A1]),
      one_changed(np.zeros((4, 4)), [0.0, *E1, 1 / KAPPA_A1], [1.0, *E1, 0.0])]),
]:
    release = BatchRelease(ShuffledMatrixSummation(EPS_A1 / 2, DELTA_A1 / 2, 2, 4, Delta),
                           FirstIterationView(_T1_PGD, _T1_GRADIENT), weighted=weighted)
    suite.privacy(f"shuffle-glm/thm5.1-sdp@{batch},eps4,delta0.1,T1000,kappa4,d2,n4", auditor="exact",
                  subject=release, claim=ApproxDP(EPS_A1, DELTA_A1), pairs=pairs, relation=ReplaceUser(batch_size=4),
                  title=f"Algorithm 1 is (4, 0.1)-SDP: one {'warm-up' if batch == 'warmup' else 'later'} batch's P_2 "
                        f"(Delta = {Delta:g}) and P_GD (L = {_T1_PGD.lipschitz:.4g}, T_it = 1) views together, "
                        "one user's (r, x) replaced or emptied")


# -- Lemma I.4 / Assumption I.1 with Algorithm 2's lambda (19) --------------------------------------
# W.p. >= 1 - zeta/8, for all t: lambda_min I <= V_t - sum x x^T <= lambda_max I, i.e. the prefix noise has
# spectral norm <= lambda - lambda_min = lambda_max - lambda = lambda / (4 sqrt d + 1), lambda from (19).
# Same tree as above (T = 256, d = 3, eps = 1, delta = 0.02, kappa* = 4) with zeta = 0.01 (Theorem 6.2 needs
# delta > zeta); B_H's noise has the same law, so one entry covers both trees.
_A2_TAIL = algorithm2_parameters(1.0, 0.02, T_TAIL, 0.01, D_TAIL, 1.0, 1.0, 1 / stats.logistic.pdf(1.0), 4.0)
_I1_EDGE = _A2_TAIL.lam / (4 * math.sqrt(D_TAIL) + 1)
suite.tail("shuffle-glm/lemI.4-tail@assumptionI.1,T256,d3,eps1,delta0.02,zeta0.01,kappa4", auditor="statistical",
           subject=partial(max_prefix_noise_norm, tree=TAIL_TREE),
           claim=TailBound(partial(lambda t, edge: np.where(np.asarray(t) >= edge, 0.01 / 8, 1.0), edge=_I1_EDGE),
                           f"zeta/8 beyond lambda/(4 sqrt d + 1) = {_I1_EDGE:.5g}", two_sided=False),
           samples={"quick": 5_000, "standard": 50_000, "thorough": 500_000},
           title="Assumption I.1: max over t of B_V's prefix-noise spectral norm is at most lambda/(4 sqrt d + 1) "
                 "(lambda of (19)) w.p. >= 1 - zeta/8")
