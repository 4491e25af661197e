"""shuffle-lcb: Chowdhury & Zhou, Shuffle Private Linear Contextual Bandits (ICML 2022).

Tail claims about the noise of the bit-based vector summation P_Vec (proof of Theorem C.1),
audited exactly from closed-form cumulant functions. In units of Delta/g, one entry's error over a
batch of B users is sum_i iota_1,i + sum_i iota_2,i: iota_1 the randomized-rounding error (a
two-point law for each input) and sum_i iota_2,i = Bin(B b, 1/4) - B b / 4. The inputs are taken
with fractional part 1/2 after scaling (the largest rounding variance, so the hardest case for a
variance-proxy claim).

Parameter points: the paper's experiment, d = 5, B = 20, delta = 0.1, eps in {0.2, 1, 10};
g = max{ceil(2 sqrt B), d, 4} = 9 and b = ceil(24 10^4 g^2 log^2(4 (d^2 + 1) / delta) / (eps^2 B))
(natural log; the integer rounding of g and b is the spec's choice), e.g. b = 46,909,183 at eps = 1.

Encoded (id -> statement, points):
  - thmC.1-tail: the per-entry, per-batch error is mean-zero sub-Gaussian with variance proxy
    (Delta^2/g^2)(B + B b / 4); its parts: iota_1 is 1-sub-Gaussian, and sum iota_2 is
    (B b / 4)-sub-Gaussian; and thmC.1-tail@protocol,eps10, the same claim on the error law P_Vec itself
    builds from its analyzer (one label, fraction 1/2, eps = 10).

Mechanism-level privacy (mechanisms/shuffle/shuffle_vec.py: P_Vec; mechanisms/shuffle/shuffle_amp.py: R_Amp, P_Amp,
Lemma B.4). Neighbouring relations: one user's (phi, y) replaced in a batch (N-sub; ReplaceUser over
the batch), one returning user's rows replaced in every batch (N-ret; data user-major), any two data
points of one user (N-loc; a batch of one). Exact wherever the law is tractable: P_Vec's shuffled view
is the vector of per-label counts of ones (a product of finite laws, exact PLD); R_Amp's release is a
product of equal-variance Gaussians (Balle-Wang closed form). P_Amp's shuffled view (two multisets of
Gaussian messages) has no tractable law and is audited from samples.
  - thmC.1-accuracy@...: A_Vec is unbiased once B Delta is subtracted: per output entry, the analyzer applied to the
    means of the exact count laws (it is affine) against the users' sums sum phi y and sum phi phi^T, to within the
    means' float resolution (2^-40 of the largest count B (2g + b), times Delta/g); at (eps, delta) = (1, 0.1),
    d = 3, B = 20 and (10, 0.1), d = 5, B = 20 (the experiments' d and B), on seeded rows. (The tests show Cheu
    et al.'s re-centring by Delta alone, which the paper corrects, failing it by (B - 1) Delta.) The lemA.2 ellipsoid's
    coverage is in :mod:`.confidence`.
  - thm3.5-privacy (alias thmC.1-privacy): P_Vec is (eps, delta)-SDP. At (15, 0.4), d = 2, B = 16 (the
    edge of the range eps <= 15, delta < 1/2, where b is smallest: the weakest noise the theorem allows),
    pairs searched; at the paper's experiment d = 5, B = 20, delta = 0.1, eps = 10 and eps = 1, on the two
    extreme moves (one label by 2g; four labels by g). eps = 0.2 needs 1.6M-entry tables per label.
  - corC.3-ldp: R_Vec at Cor C.3's (g, b) is (eps0, delta0)-LDP: (15, 0.4), d = 2, searched; (1, 0.1), d = 2
    on the extreme pairs.
  - remark3.7: one user's messages of Thm 3.5's P_Vec are O(eps sqrt B, delta)-LDP, with the constant 1
    the proof of Cor C.2 gives: (eps sqrt B, delta) = (4, 0.1) at eps = 1, delta = 0.1, B = 16, d = 2; searched.
  - thmE.2@k{100,1000},eps-total{0.5,0.9},delta-slack0.05: advanced composition as quoted (eps = eps'/(2 sqrt(2k
    log(1/delta')))), on k randomized responses, exactly (the worst case for pure parts; dist-mab/thm7's check).
  - thmE.5-privacy: P_Vec with Thm E.5's b over all M batches is (eps, delta)-SDP for a returning user:
    (15, 0.4), d = 2, B = 16, T = 64 (M = 4, b = 41,084,470; the range's edge, and the smallest M that
    composes more than a couple of batches within the budget), the user changed in every batch.
  - corB.3-ldp, propF.1-ldp: R_Amp with sigma = 4 sqrt(2 log(2.5/delta0))/eps0 (also LinUCB-LDP's and
    Batched-Local-LinUCB's randomizer) is (eps0, delta0)-LDP: (1, 1e-5), d = 2 (the range's largest eps0)
    and (0.2, 0.1), d = 5 (the experiment's eps, delta); searched, and on the pair of largest release
    distance sqrt(4.5).
  - remark3.4-ldp: Thm 3.2's randomizer is O(eps sqrt(B / log(2/delta)), delta/B)-LDP, with the proof's
    constant 1, at the experiment (d = 5, B = 20, delta = 0.1, eps = 0.2: eps = 1 and 10 lie outside
    Thm 3.2's range eps <= sqrt(log(2/delta)/B) = 0.387); searched.
  - thm3.2-privacy (alias thmB.1-privacy): P_Amp is O(eps, delta)-SDP; the O(.) made explicit by the
    proof's Lemma B.4 at n = B, eps0 = eps sqrt(B/log(2/delta)), delta0 = delta/B, delta' = delta/2. Lemma
    B.4's condition fails at the experiment's B = 20 (it needs B >= 16 e^eps0 log(4/delta) ~ 60 e^eps0), so
    the point is B = 200, delta = 0.1, eps = 0.1, d = 2; statistical, on the exact likelihood ratio of the
    view for one user at one end of the worst pair among 199 clones at the other end.
  - lemB.4: Lemma B.4 (with delta0 = 0) on shuffled binary randomized response, whose view has an exact
    law: n = 200, delta' = 0.05, eps0 = 0.817 (the thm3.2 point) and 1.
  - thmB.1-tail: Assumption A.3 for P_Amp in the proof of Thm B.1: after T users each entry of the
    cumulative noise is N(0, T sigma^2), claimed (T sigma1^2)-sub-Gaussian; experiment point, T = 20,000.

Central-model baselines (mechanisms/counters/central_tree.py): LinUCB-JDP's tree (Shariff & Sheffet 2018) on
the leaves z z^T, z = [phi; y], released as noisy upper triangles of its dyadic nodes. The paper
prints no node calibration; the module records the one chosen (Shariff & Sheffet's own formula could
not be retrieved, so none is attributed to them): symmetric i.i.d. N(0, sigma^2) node noise, sigma
from the analytic Gaussian mechanism for (eps, delta) at l2 sensitivity 2 sqrt(2) sqrt(L),
L = ceil(log2 N) + 1 (2 sqrt 2 bounds a replaced row's leaf change; the true worst is 3/sqrt 2), and
sigma x M0 at user level. By the Billboard lemma the JDP view is the released nodes; their law is a
product of equal-variance Gaussians, so every audit is exact. Points: d = 2, delta = 0.1 (the
experiment's), T = 16 (a full five-level tree).
  - prop4.3-jdp (alias propE.7-jdp): node variance scaled by M0^2 is user-level (eps, delta)-JDP (Def
    D.4: one user's M0 rounds replaced). eps = 1, M0 in {2, 4}, her rounds consecutive (aligned: the
    largest joint shift over every M0-subset of rounds, checked in tests/test_central_tree.py) and
    spread over subtrees, rows moved along the worst pair; consecutive also searched over the ball;
    and eps = 10 (the experiment's largest; no range is printed), M0 = 4, consecutive.
  - propF.3-jdp: Batched-Central-LinUCB (one leaf per batch, N = ceil(T/B)) is (eps, delta)-JDP for
    every B (one round replaced): (T, B, eps) = (16, 1, 1) (LinUCB-JDP itself) and (20, 4, 0.2) (N = 5,
    not a power of two), inside the range eps in [0, 1]; worst pair and searched.
  - remarkD.5: group privacy on the event-level tree (T = 16, eps = 0.2, delta = 0.1): k = 2 and 4
    consecutive rounds of one user changed, claimed (k eps, k e^{(k-1) eps} delta) = (0.4, 0.244) and
    (0.8, 0.729) (eps = 1 makes the bound vacuous at k = 4).

Algorithm-level privacy (the private LinUCB variants' own outputs, through
:class:`~dpaudit.bandits.contextual_transcripts.ContextualTranscript`): the registry's policies run on a fixed
table of T = 16 users, K = 2 arms (e_1 paying 1, e_2 paying 0, the same for every user), d = 2, B = 4
(M = 4 batches). Small because the audit is black-box: each sample is a whole run of the policy (the
runs are vectorised, but every output costs T rounds of batched linear algebra), and the views have no
exact law once the later batches depend on the earlier ones through the actions. Pairs (the rule):
the first user (round 1, where the initial model ties every unit arm, so she plays arm 0 whatever the
noise and her randomizer input is exactly arm 0's row) moved along the mechanism-level entries' two
extreme moves, arm 0 from (e_1, 1) to (-e_1, 1) (one vector label by 2g) and to (e_2, 0) (three labels
by g). The statistical auditor selects the event on one part of the samples and confirms it on fresh
ones (40,000 runs per side at the quick budget). Relation: one user's (round's) contexts and rewards
replaced (ReplaceUser over the T rounds; for returning users, over the U users, each in every batch).
  - thm3.2-privacy@algorithm,...: LinUCB-SDP-Amp (eps = 0.5, inside Theorem 3.2's range eps <= sqrt(log(2/delta)/B)
    = 0.865 at B = 4, delta = 0.1) is O(eps, delta)-SDP, audited with the O(.)'s constant 1 as (0.5, 0.1); the
    output is every batch's released sums (A_Amp's output drawn from its exact law, the algorithm's
    release), a post-processing of the shuffled messages, so it can refute the claim about the view but a
    "not refuted" says nothing about the multiset itself (thm3.2-privacy audits that at B = 200).
  - thm3.5-privacy@algorithm,...: LinUCB-SDP-Vec (eps = 1, delta = 0.1) is (eps, delta)-SDP: every batch's label
    counts, which are P_Vec's shuffled view (its sufficient statistic).
  - thm3.5-privacy@algorithm,batch1,exact,...: the same claim, exactly: the protected first user is in batch 1,
    whose plays the initial model fixes, so batch 1's view has P_Vec's exact law on those rows, and the
    later views are a kernel of it and of the other users' data, the same on both sides: the whole
    transcript's (eps, delta) profile is batch 1's (FirstBatchView).
  - thmE.5-privacy@algorithm,...: LinUCB-SDP-Vec-returning (Theorem 4.2(ii)'s b, eps = 1, delta = 0.1) with
    U = B = 4 users each once in every batch: (eps, delta)-SDP when user 0 changes in all M = 4 batches (the
    same two moves in every batch; her later plays depend on the model, so her later inputs are those rows).
  - propF.3-jdp@algorithm,...: LinUCB-JDP (Batched-Central-LinUCB at B = 1, eps = 1, the range's largest,
    delta = 0.1) is (eps, delta)-JDP: the actions of users 2..16 when user 1 changes (Def. D.3). The paper's
    intro cites the JDP of Shariff & Sheffet's algorithm without an id of its own; Proposition F.3 is the
    paper's statement about this algorithm.
Not encoded at the algorithm level: Theorem 4.2(i) (P_Amp with returning users: O(eps, delta) through
Theorem E.2's composition; its view is the same kind of released sums as thm3.2-privacy's), the corollaries'
JDP and LDP statements at tuned B (the same algorithms at other B), and exact audits of users of later
batches (their batch's inputs depend on the earlier views: a mixture over prefixes).

Left out (with why):
  - remark3.10 (noise variance orders T/eps^2 and log T/eps^2), lemA.4-tail (constants c1, c2 of
    Vershynin's bounds unspecified), the reward noise being 1-sub-Gaussian (Hoeffding's lemma, no id; the
    same fact as dist-mab/claim1).
  - corB.2-sdp, corC.2-sdp, corB.3-sdp, corC.3-sdp, corC.2-ldp, corB.2-ldp, corE.4-sdp, corE.6-sdp: the same
    protocols at a B or an (eps, delta) given only up to O(.) constants; their mechanisms are audited above at
    explicit points (corE.6-sdp's protocol is thmE.5-privacy's).
  - remark3.8 (both protocols can be tuned to LDP): a pointer to corB.3-ldp and corC.3-ldp, encoded above.
  - thmE.3-privacy (P_Amp, returning users) exactly: the per-batch view is P_Amp's intractable multiset and the
    theorem composes M of them by Thm E.2 (arithmetic checked in the tests: the printed sigma is smaller
    than Thm B.1's sigma at the proof's per-batch budget by sqrt(log(2/delta) / log(4T/(delta B)))); it is
    audited black-box at the algorithm level with the O(.)'s constant 1 (thmE.3-privacy@algorithm, standard
    budget up).
  - the tree's prefix-sum accuracy (property (ii) of the proof of Prop E.7: a prefix sum uses
    O(log T) nodes, hence noise variance O(log T) sigma^2): stated only up to O(.), so no accuracy
    claim; the exact error law of a prefix sum is CentralTreeMechanism.error_law (tested).
  - corB.2-jdp, corB.3-jdp, corC.2-jdp, corC.3-jdp, remark3.4-jdp (Billboard lemma): printed only up to O(.); read
    with the constant 1, the other users' actions are audited black-box for LinUCB-SDP-Amp at eps = 0.5
    (remark3.4-jdp@algorithm) and LinUCB-SDP-Vec at eps = 1 (corC.2-jdp@algorithm), from the standard budget up;
  - communication claims: another issue; among them claimsec6d (P_Amp's one real vector and matrix per
    user; P_Vec's O(d^2 (g + b)) bits with "g + b <~ sqrt B + log(1/delta)/eps^2" as printed): orders only.
  - claimsec6c (Garcelon et al.'s determinant trick needs V_t >= V_tau_t, which noisy increments need not
    give): a remark on another paper's proof, no constant.

Regret, lower-bound and experiment claims: :mod:`.regret` (its docstring lists what is encoded and
what is left out).
Claim A.6 (inside Lemma A.2's proof: |Psi| <= (d T/(2 M log 2)) log(1 + T/(d lambda_min))): :mod:`.batch_potential`,
exactly per run on the played features of noiseless batched LinUCB.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit import ApproxDP, LowerBound, ProofStep, SubGaussian
from dpaudit.algorithms.linear.registry import ALGORITHMS
from dpaudit.bandits.contextual_transcripts import ContextualTranscript, FirstBatchView, fixed_arms
from dpaudit.core.domains import Box, Datasets
from dpaudit.core.neighbours import ReplaceOne, ReplaceUser, one_changed
from dpaudit.mechanisms import noise
from dpaudit.mechanisms.accounting import quoted_advanced_composition
from dpaudit.mechanisms.classic.composition import RepeatedResponseCount
from dpaudit.mechanisms.counters.central_tree import (
    WORST_ROW_PAIR,
    CentralTreeMechanism,
    ReturningUserStream,
    group_privacy,
)
from dpaudit.mechanisms.shuffle.shuffle_amp import (
    CloneLikelihoodRatio,
    GaussianRandomizer,
    ShuffledGaussianProtocol,
    shuffle_amplification,
    unique_user_ldp_budget,
)
from dpaudit.mechanisms.shuffle.shuffle_vec import (
    DELTA_SHIFT,
    EXPERIMENT_B,
    EXPERIMENT_D,
    EXPERIMENT_DELTA,
    BallRows,
    ReturningUserTranscript,
    ShuffledVectorProtocol,
    p_vec_parameters,
)
from dpaudit.mechanisms.shuffle.shuffled_response import ShuffledRandomizedResponse

from ._suite import suite

D, B, DELTA = EXPERIMENT_D, EXPERIMENT_B, EXPERIMENT_DELTA  # the paper's experiment

for eps in (0.2, 1.0, 10.0):
    g, b = p_vec_parameters(eps)
    rounding = noise.Binomial(B, 0.5)  # sum of B rounded inputs with fraction 1/2: Bin(B, 1/2) + const
    bits = noise.Binomial(B * b, 0.25)
    error = noise.IndependentSum(rounding, bits, name=f"P_Vec entry error x g/Delta (B = {B}, b = {b:,})")
    suite.tail(f"shuffle-lcb/thmC.1-tail@eps{eps:g}", subject=error, auditor="exact",
               claim=SubGaussian(math.sqrt(B + B * b / 4), centred=True),
               title=f"P_Vec entry error (eps = {eps:g}, g = {g}, b = {b:,}) is (1/g^2)(B + Bb/4)-sub-Gaussian")
    suite.tail(f"shuffle-lcb/thmC.1-tail@binomial,eps{eps:g}", subject=bits, auditor="exact",
               claim=SubGaussian(math.sqrt(B * b / 4), centred=True),
               title=f"sum of the binomial noise Bin(Bb, 1/4) - Bb/4 is (Bb/4)-sub-Gaussian (eps = {eps:g})")
def unbiased_step(protocol: ShuffledVectorProtocol, data) -> ProofStep:
    """|E[o] - the users' sums| <= the float resolution of the count means, per output entry (module docstring)."""
    data = np.asarray(data, dtype=float)

    def sides(_):
        vec, mat = protocol.analyze(protocol.mean_counts(data))
        phi, y = data[:, :protocol.d], data[:, protocol.d]
        bias = np.abs(np.concatenate([vec - (phi * y[:, None]).sum(axis=0), np.ravel(mat - phi.T @ phi)]))
        return bias, np.full(bias.shape, protocol.count_resolution(DELTA_SHIFT)), {"entry": np.arange(bias.size)}

    return ProofStep("|E[o] - sum| <= float resolution", "E[A_Vec(S(R_Vec(rows)))] = (sum phi y, sum phi phi^T)",
                     sides, "<=")


def seeded_rows(d: int, users: int, seed: int) -> np.ndarray:
    """Rows (phi, y) with ||phi|| <= 1 and |y| <= 1, from a seeded stream."""
    rng = np.random.default_rng(seed)
    phi = rng.normal(size=(users, d))
    phi *= rng.random((users, 1)) / np.linalg.norm(phi, axis=1, keepdims=True)
    return np.concatenate([phi, rng.uniform(-1, 1, (users, 1))], axis=1)


for _eps, _d in ((1.0, 3), (10.0, D)):
    _p_vec = ShuffledVectorProtocol.unique_users(_eps, DELTA, _d, B)
    suite.lower_bound(f"shuffle-lcb/thmC.1-accuracy@eps{_eps:g},delta{DELTA:g},d{_d},B{B}", claim=LowerBound(
        "Theorem C.1 (accuracy): A_Vec's output is an unbiased estimate of the batch's sums of each entry, once "
        "B Delta is subtracted", {"eps": _eps, "delta": DELTA, "d": _d, "B": B},
        steps=(unbiased_step(_p_vec, seeded_rows(_d, B, 0)), unbiased_step(_p_vec, seeded_rows(_d, B, 1)))),
        title=f"P_Vec at ({_eps:g}, {DELTA:g}), d = {_d}, B = {B}: A_Vec's mean, from the exact count laws, is the "
              f"users' sums (two seeded batches)")

suite.tail("shuffle-lcb/thmC.1-tail@rounding", subject=noise.FiniteIntegerLaw(0, [0.5, 0.5], name="x_hat at frac 1/2"),
           claim=SubGaussian(1.0, centred=True), auditor="exact",
           title="the rounding error iota_1 in [-1, 1] is 1-sub-Gaussian")


# == Mechanism-level privacy and accuracy: P_Vec, P_Amp / R_Amp, Lemma B.4 ========================
#
# Data are rows (phi, y) per user (mechanisms/shuffle/shuffle_vec.py, shuffle_amp.py). Searches run over the
# cube [-1, 1]^(d + 1) mapped onto the inputs Assumption 3.1 allows by BallRows (phi = x ||x||_inf /
# ||x||_2, a bijection of the cube onto the unit ball; y kept), so witnesses are in cube coordinates.
# Hand-picked pairs add the extremes a cube search does not reach:
#   - P_Vec: one user from phi = e_1, y = 1 to phi = -e_1, y = 1 (one vector label moves by 2g, the
#     largest move of one label) and from (e_1, 1) to (e_2, -1) (four labels move by g each);
#   - R_Amp: the pair of largest joint l2 distance of (phi y, upper(phi phi^T)), sqrt(4.5): phi at
#     angle 60 degrees from phi' with equal off-diagonal products (phi = (cos 15, -sin 15), y = -1;
#     phi' = (sin 15, -cos 15), y' = 1), found by numerical search and checked in the tests; the same
#     rows are the central tree's worst pair (mechanisms.counters.central_tree.WORST_ROW_PAIR).


def unit_row(d: int, k: int, y: float, sign: float = 1.0) -> np.ndarray:
    row = np.zeros(d + 1)
    row[k], row[d] = sign, y
    return row


def cube_search(users: int, d: int, random: int = 4):
    return ReplaceUser(batch_size=users).over(Datasets(users, Box(-1.0, 1.0, shape=(d + 1,))), random=random)


# -- P_Vec, Theorem 3.5 / C.1: (eps, delta)-SDP, one user replaced in a batch ----------------------
# (15, 0.4), d = 2, B = 16: the edge of the theorem's range (eps <= 15, delta < 1/2), where b is the
# smallest (65,297), so one label's count has the least noise against a move of up to 2g; searched.
# The paper's experiment, d = 5, B = 20, delta = 0.1, at eps = 10 (b = 469,093) and eps = 1
# (b = 46,909,183): 20 labels with tables of 32k and 318k entries, on the two extreme pairs (a search
# costs ~7 s a pair at eps = 1). eps = 0.2 (b = 1.17e9, tables of 1.6M entries per label) is out of
# the quick budget.
suite.privacy("shuffle-lcb/thm3.5-privacy@eps15,delta0.4,d2,B16", auditor="exact",
              subject=BallRows(ShuffledVectorProtocol.unique_users(15.0, 0.4, 2, 16), 2), claim=ApproxDP(15.0, 0.4),
              relation=cube_search(16, 2),
              title="P_Vec (Thm 3.5: g = 8, b = 65,297) is (15, 0.4)-SDP: one user's (phi, y) replaced, "
                    "searched over the ball")
for eps in (10.0, 1.0):
    d, users = D, B
    pairs = [one_changed(np.zeros((users, d + 1)), unit_row(d, 0, 1.0), unit_row(d, 0, 1.0, -1.0)),
             one_changed(np.zeros((users, d + 1)), unit_row(d, 0, 1.0), unit_row(d, 1, -1.0))]
    suite.privacy(f"shuffle-lcb/thm3.5-privacy@eps{eps:g},delta{DELTA:g},d{d},B{users}", auditor="exact",
                  subject=ShuffledVectorProtocol.unique_users(eps, DELTA, d, users), claim=ApproxDP(eps, DELTA),
                  pairs=pairs, relation=ReplaceUser(batch_size=users),
                  title=f"P_Vec at the paper's experiment (eps = {eps:g}) is (eps, delta)-SDP: one user from (e_1, 1) "
                        "to (-e_1, 1) and to (e_2, -1), the others at 0")

# -- P_Vec, Corollary C.3: (eps0, delta0)-LDP for every B (one user's own labelled messages) --------
suite.privacy("shuffle-lcb/corC.3-ldp@eps0_15,delta0_0.4,d2", auditor="exact",
              subject=BallRows(ShuffledVectorProtocol.ldp(15.0, 0.4, 2), 2), claim=ApproxDP(15.0, 0.4),
              relation=cube_search(1, 2, random=16),
              title="R_Vec with Cor C.3's g = 4, b = 261,187 is (15, 0.4)-LDP (one user's label counts; searched)")
suite.privacy("shuffle-lcb/corC.3-ldp@eps0_1,delta0_0.1,d2", auditor="exact",
              subject=ShuffledVectorProtocol.ldp(1.0, 0.1, 2), claim=ApproxDP(1.0, 0.1),
              pairs=[([unit_row(2, 0, 1.0)], [unit_row(2, 0, 1.0, -1.0)]),
                     ([unit_row(2, 0, 1.0)], [unit_row(2, 1, -1.0)])],
              relation=ReplaceUser(batch_size=1),
              title="R_Vec with Cor C.3's g = 4, b = 107,797,121 is (1, 0.1)-LDP: (e_1, 1) to (-e_1, 1) "
                    "and to (e_2, -1)")

# -- P_Vec, Remark 3.7: Theorem 3.5's randomizer alone is O(eps sqrt B, delta)-LDP ------------------
# With the constant the proof of Cor C.2 gives (eps0 = eps sqrt B, delta0 = delta): B = 16, eps = 1,
# delta = 0.1, d = 2 (g = 8, b = 26,949,281): claimed (4, 0.1) on one user's label counts; searched.
suite.privacy("shuffle-lcb/remark3.7@eps1,delta0.1,d2,B16", auditor="exact",
              subject=BallRows(ShuffledVectorProtocol.unique_users(1.0, 0.1, 2, 16).with_batch(1), 2),
              claim=ApproxDP(4.0, 0.1), relation=cube_search(1, 2),
              title="one user's messages of Thm 3.5's P_Vec (B = 16, eps = 1) are (eps sqrt B, delta) = "
                    "(4, 0.1)-LDP (searched)")

# -- P_Vec, Theorem 4.2(ii) / E.5: returning users, (eps, delta)-SDP over all M batches --------------
# eps = 15, delta = 0.4 (the range's edge, smallest b), d = 2, B = 16, T = 64 (M = 4): b = 41,084,470;
# the same user replaced in all four batches (exact composition of the 4 x 5 label counts).
_RET = ShuffledVectorProtocol.returning_users(15.0, 0.4, 2, 16, 64)
_RET_ZEROS = np.zeros((16, 4, 3))  # 16 users x M = 4 batches x (phi, y): user 0 changed in every batch


suite.privacy("shuffle-lcb/thmE.5-privacy@eps15,delta0.4,d2,B16,T64", auditor="exact",
              subject=ReturningUserTranscript(_RET, 4), claim=ApproxDP(15.0, 0.4),
              pairs=[one_changed(_RET_ZEROS, unit_row(2, 0, 1.0), unit_row(2, 0, 1.0, -1.0)),
                     one_changed(_RET_ZEROS, unit_row(2, 0, 1.0), unit_row(2, 1, -1.0))],
              relation=ReplaceUser(batch_size=16),
              title="P_Vec with Thm E.5's b = 41,084,470 over M = 4 batches is (15, 0.4)-SDP: one returning user "
                    "changed in every batch ((e_1, 1) to (-e_1, 1) and to (e_2, -1))")

# -- R_Amp, Corollary B.3 / Proposition F.1 / LinUCB-LDP: (eps0, delta0)-LDP --------------------------
for id_, eps0, delta0, d in [("corB.3-ldp", 1.0, 1e-5, 2), ("propF.1-ldp", 0.2, 0.1, 5)]:
    randomizer = GaussianRandomizer.ldp(eps0, delta0, d)
    point = f"eps0_{eps0:g},delta0_{delta0:g},d{d}"
    suite.privacy(f"shuffle-lcb/{id_}@{point},searched", auditor="exact", subject=BallRows(randomizer, d),
                  claim=ApproxDP(eps0, delta0), relation=cube_search(1, d, random=16),
                  title=f"R_Amp with sigma = 4 sqrt(2 log(2.5/delta0))/eps0 = {randomizer.sigma:.4g} is "
                        f"({eps0:g}, {delta0:g})-LDP (searched over the ball)")
    worst = [np.concatenate([WORST_ROW_PAIR[0][:2], np.zeros(d - 2), WORST_ROW_PAIR[0][2:]])], \
            [np.concatenate([WORST_ROW_PAIR[1][:2], np.zeros(d - 2), WORST_ROW_PAIR[1][2:]])]
    suite.privacy(f"shuffle-lcb/{id_}@{point},worst", auditor="exact", subject=randomizer,
                  claim=ApproxDP(eps0, delta0), pairs=[worst, ([unit_row(d, 0, 1.0)], [unit_row(d, 0, 1.0, -1.0)])],
                  relation=ReplaceUser(batch_size=1),
                  title=f"R_Amp ({eps0:g}, {delta0:g})-LDP on the pair of largest release distance sqrt(4.5), "
                        "and (e_1, 1) to (-e_1, 1)")

# -- R_Amp, Remark 3.4: Theorem 3.2's run is O(eps sqrt(B / log(2/delta)), delta / B)-LDP -------------
# At the paper's experiment (d = 5, B = 20, delta = 0.1, eps = 0.2, inside Thm 3.2's range
# eps <= sqrt(log(20)/20) = 0.387; eps = 1 and 10 are outside it), with the proof's constant 1:
# (eps0, delta0) = (0.5168, 0.005).
_EPS0_R34, _DELTA0_R34 = unique_user_ldp_budget(0.2, DELTA, B)
_R34 = GaussianRandomizer.unique_users(0.2, DELTA, B, D)
suite.privacy(f"shuffle-lcb/remark3.4-ldp@eps0.2,delta{DELTA:g},B{B},d{D}", auditor="exact", subject=BallRows(_R34, D),
              claim=ApproxDP(_EPS0_R34, _DELTA0_R34), relation=cube_search(1, D, random=16),
              title=f"Thm 3.2's R_Amp (sigma = {_R34.sigma:.4g}) is (eps sqrt(B/log(2/delta)), delta/B) = "
                    f"({_EPS0_R34:.4g}, {_DELTA0_R34:g})-LDP (searched)")

# -- P_Amp, Theorem 3.2 / B.1: O(eps, delta)-SDP, through Lemma B.4 ----------------------------------
# The O(.) made explicit by the proof: Lemma B.4 with n = B, eps0 = eps sqrt(B / log(2/delta)),
# delta0 = delta / B, delta' = delta / 2. Its condition eps0 <= log(B / (16 log(4/delta))) fails at
# the paper's B = 20 (delta = 0.1: it needs B >= 60 e^eps0), so the point is B = 200, delta = 0.1,
# eps = 0.1 (eps0 = 0.817), d = 2: claimed (eps~, delta~) = (0.545, 0.383). The view (two shuffled
# lists of 200 Gaussian messages) has no tractable law: audited from samples on the likelihood ratio
# of the view for the pair (all users at one end of the worst pair, one user at the other end),
# which is that pair's Neyman-Pearson statistic (mechanisms/shuffle/shuffle_amp.py, CloneLikelihoodRatio).
_EPS_B1, _DELTA_B1, _B_B1 = 0.1, 0.1, 200
_EPS0_B1, _DELTA0_B1 = unique_user_ldp_budget(_EPS_B1, _DELTA_B1, _B_B1)
_TILDE_B1 = shuffle_amplification(_EPS0_B1, _DELTA0_B1, _B_B1, _DELTA_B1 / 2)
_P_AMP = ShuffledGaussianProtocol(GaussianRandomizer.unique_users(_EPS_B1, _DELTA_B1, _B_B1, 2), _B_B1)
_LR = CloneLikelihoodRatio(_P_AMP, base=WORST_ROW_PAIR[1], target=WORST_ROW_PAIR[0])
# user 0 at the far end of the worst pair, against all users at its near end
_ONE_OUT_CLONES = one_changed(np.tile(WORST_ROW_PAIR[1], (_B_B1, 1)), WORST_ROW_PAIR[0], WORST_ROW_PAIR[1])
suite.privacy(f"shuffle-lcb/thm3.2-privacy@eps{_EPS_B1:g},delta{_DELTA_B1:g},B{_B_B1},d2", auditor="statistical",
              subject=_LR, claim=ApproxDP(*_TILDE_B1), pairs=[_ONE_OUT_CLONES], relation=ReplaceUser(batch_size=_B_B1),
              samples={"quick": 100_000, "standard": 1_000_000, "thorough": 10_000_000},
              title=f"P_Amp's shuffled view (B = {_B_B1}) is Lemma B.4's (eps~, delta~) = ({_TILDE_B1[0]:.4g}, "
                    f"{_TILDE_B1[1]:.4g})-SDP: one user at the far end of the worst pair among clones "
                    "(likelihood-ratio events)")

# -- Lemma B.4 on an exactly tractable randomizer ---------------------------------------------------
# Binary randomized response is (eps0, 0)-LDP and its shuffled view (the count of ones) has an exact
# law; Lemma B.4 with delta0 = 0 at n = 200, delta' = 0.05 and eps0 = 0.817 (Thm 3.2's point above)
# and eps0 = 1 (the largest eps0 of Thm 3.2's range).
for eps0 in (_EPS0_B1, 1.0):
    eps_t, delta_t = shuffle_amplification(eps0, 0.0, _B_B1, _DELTA_B1 / 2)
    zeros, ones = [0] * _B_B1, [1] * _B_B1
    suite.privacy(f"shuffle-lcb/lemB.4@eps0_{eps0:.4g},n{_B_B1},deltap{_DELTA_B1 / 2:g}", auditor="exact",
                  subject=ShuffledRandomizedResponse(eps0, _B_B1), claim=ApproxDP(eps_t, delta_t),
                  pairs=[(zeros, zeros[:-1] + [1]), (ones, ones[:-1] + [0])], relation=ReplaceUser(batch_size=_B_B1),
                  title=f"{_B_B1} shuffled eps0 = {eps0:.4g} randomized responses are (eps~, delta') = "
                        f"({eps_t:.4g}, {delta_t:g})-DP (Lemma B.4, delta0 = 0)")

# -- P_Amp's noise, Assumption A.3 in the proof of Theorem B.1 ----------------------------------------
# "since there are total at most T noise": after all T users each entry of sum_m n_m (and of
# sum_m N_m) is N(0, T sigma^2), claimed sigma~^2 = T sigma1^2-sub-Gaussian; at the experiment
# (T = 20,000, B = 20, delta = 0.1, eps = 0.2).
_T_EXP = 20_000
_SIGMA_TOTAL = _R34.sigma * math.sqrt(_T_EXP)
suite.tail(f"shuffle-lcb/thmB.1-tail@eps0.2,delta{DELTA:g},B{B},T{_T_EXP}", auditor="exact",
           subject=noise.Gaussian(_SIGMA_TOTAL), claim=SubGaussian(_SIGMA_TOTAL, centred=True),
           title=f"P_Amp's cumulative noise per entry after T users, N(0, T sigma^2), is (T sigma1^2)-sub-Gaussian "
                 f"(sigma~ = {_SIGMA_TOTAL:.4g})")

# -- P_Vec's error, from the protocol itself (Theorem C.1's tail claim on the analyzer's output) ------
# The error o - sum x of vector label 1 at the experiment (eps = 10: b = 469,092), in units of Delta/g,
# with every user's phi y = 1/(2g) on that label (w g = g + 1/2: fraction 1/2, the largest rounding
# variance): the exact law built by P_Vec (rounding sum convolved with the Bin(B b, 1/4) table).
_P_VEC_EXP = ShuffledVectorProtocol.unique_users(10.0, DELTA, D, B)
_HALF_ROWS = np.zeros((B, D + 1))
_HALF_ROWS[:, 0], _HALF_ROWS[:, D] = 1.0, 1 / (2 * _P_VEC_EXP.g)
suite.tail("shuffle-lcb/thmC.1-tail@protocol,eps10", subject=_P_VEC_EXP.error_law(_HALF_ROWS, 0), auditor="exact",
           claim=SubGaussian(math.sqrt(B + B * _P_VEC_EXP.b / 4), centred=True),
           title="P_Vec's analyzer error on one label (x g/Delta; eps = 10, B = 20, fraction 1/2) is "
                 "(B + Bb/4)-sub-Gaussian")

# == Central-model baselines: LinUCB-JDP's tree (mechanisms/counters/central_tree.py) =========================
#
# The JDP view (Billboard lemma) is the tree's released nodes: noisy upper triangles of the dyadic
# p-sums of the leaves z z^T, z = [phi; y]. Node noise: analytic Gaussian for (eps, delta) at l2
# sensitivity 2 sqrt(2) sqrt(L), L = ceil(log2 N) + 1 (the [choice] recorded in the module; the paper
# prints no calibration). The release is a product of equal-variance Gaussians, so every audit is
# exact; the worst pair of rows (upper-triangle distance 3/sqrt 2, WORST_ROW_PAIR) is audited next to
# a search over the ball. Points: d = 2, delta = 0.1 (the experiment's), eps = 1 (both figures'),
# T = 16 (a full tree of 5 levels: small enough to search, large enough for M0 = 4 users to share
# three levels of nodes).


def user_search(users: int, rounds_per_user: int, d: int, random: int = 4):
    return ReplaceUser(batch_size=users).over(
        Datasets(users, Box(-1.0, 1.0, shape=(rounds_per_user, d + 1))), random=random)


_T_TREE, _D_TREE, _EPS_TREE = 16, 2, 1.0

# -- Proposition 4.3 / E.7: node variance scaled by M0^2 is user-level (eps, delta)-JDP -------------
# One user's M0 rounds replaced (Def D.4), placed adversarially: consecutive (aligned, so her rows
# share the nodes above them: the largest joint shift, checked against every M0-subset of rounds in
# tests/test_central_tree.py) and spread (one round per subtree); all her rows moved along the worst
# pair; and a search over the ball (consecutive).
for m0 in (2, 4):
    users = _T_TREE // m0
    mech = CentralTreeMechanism.user_level(_T_TREE, _D_TREE, _EPS_TREE, DELTA, m0)
    point = f"eps{_EPS_TREE:g},delta{DELTA:g},T{_T_TREE},d{_D_TREE},M0_{m0}"
    worst = one_changed(np.zeros((users, m0, _D_TREE + 1)), *WORST_ROW_PAIR)
    for schedule in ("consecutive", "spread"):
        suite.privacy(f"shuffle-lcb/prop4.3-jdp@{point},{schedule},worst", auditor="exact",
                      subject=ReturningUserStream(mech, m0, schedule), claim=ApproxDP(_EPS_TREE, DELTA),
                      pairs=[worst], relation=ReplaceUser(batch_size=users),
                      title=f"LinUCB-JDP's tree with node sigma x M0 ({mech.sigma:.4g}) is user-level "
                            f"({_EPS_TREE:g}, {DELTA:g})-JDP: one user's {m0} {schedule} rounds moved "
                            "along the worst pair")
    suite.privacy(f"shuffle-lcb/prop4.3-jdp@{point},consecutive,searched", auditor="exact",
                  subject=BallRows(ReturningUserStream(mech, m0, "consecutive"), _D_TREE),
                  claim=ApproxDP(_EPS_TREE, DELTA),
                  relation=user_search(users, m0, _D_TREE),
                  title=f"LinUCB-JDP's tree with node sigma x M0 = {m0} is user-level ({_EPS_TREE:g}, {DELTA:g})-JDP "
                        "(one user's consecutive rounds, searched over the ball)")
# The experiment's largest eps (no range is printed for Prop 4.3): eps = 10, M0 = 4, consecutive.
_MECH_43_10 = CentralTreeMechanism.user_level(_T_TREE, _D_TREE, 10.0, DELTA, 4)
suite.privacy(f"shuffle-lcb/prop4.3-jdp@eps10,delta{DELTA:g},T{_T_TREE},d{_D_TREE},M0_4,consecutive,worst",
              auditor="exact",
              subject=ReturningUserStream(_MECH_43_10, 4, "consecutive"), claim=ApproxDP(10.0, DELTA),
              pairs=[one_changed(np.zeros((_T_TREE // 4, 4, _D_TREE + 1)), *WORST_ROW_PAIR)],
              relation=ReplaceUser(batch_size=_T_TREE // 4),
              title=f"LinUCB-JDP's tree with node sigma x 4 ({_MECH_43_10.sigma:.4g}) is user-level (10, "
                    f"{DELTA:g})-JDP (4 consecutive rounds, worst pair)")

# -- Proposition F.3: Batched-Central-LinUCB is (eps, delta)-JDP for every B in [T] -----------------
# One leaf per batch (N = ceil(T/B)); one round's row replaced changes one leaf. Points inside the
# range eps in [0, 1]: B = 1 (LinUCB-JDP itself, T = 16, eps = 1) and B = 4, T = 20 (N = 5 leaves, not
# a power of two, so L = ceil(log2 5) + 1 = 4 exceeds the binary mechanism's 3 levels; eps = 0.2, the
# experiment's smallest).
for T, batch, eps in ((16, 1, 1.0), (20, 4, 0.2)):
    mech = CentralTreeMechanism.event_level(T, _D_TREE, eps, DELTA, batch)
    point = f"eps{eps:g},delta{DELTA:g},T{T},B{batch},d{_D_TREE}"
    suite.privacy(f"shuffle-lcb/propF.3-jdp@{point},worst", auditor="exact", subject=mech, claim=ApproxDP(eps, DELTA),
                  pairs=[one_changed(np.zeros((T, _D_TREE + 1)), *WORST_ROW_PAIR)], relation=ReplaceUser(batch_size=T),
                  title=f"Batched-Central-LinUCB's tree (N = {mech.leaves} leaves, sigma = {mech.sigma:.4g}) is "
                        f"({eps:g}, {DELTA:g})-JDP: round 1's row moved along the worst pair")
    suite.privacy(f"shuffle-lcb/propF.3-jdp@{point},searched", auditor="exact", subject=BallRows(mech, _D_TREE),
                  claim=ApproxDP(eps, DELTA), relation=cube_search(T, _D_TREE),
                  title=f"Batched-Central-LinUCB's tree (T = {T}, B = {batch}) is ({eps:g}, {DELTA:g})-JDP "
                        "(one round's row replaced, searched over the ball)")

# -- Remark D.5: group privacy, event-level (eps, delta) => user-level (k eps, k e^{(k-1) eps} delta) ---
# The event-level tree (T = 16, B = 1, eps = 0.2, delta = 0.1: the only eps of the experiment at which
# the group bound stays below 1 for k = 4) with k = M0 consecutive rounds of one user changed along
# the worst pair: claimed (0.4, 0.2443) at k = 2 and (0.8, 0.7288) at k = 4.
_MECH_D5 = CentralTreeMechanism.event_level(_T_TREE, _D_TREE, 0.2, DELTA)
for k in (2, 4):
    eps_k, delta_k = group_privacy(0.2, DELTA, k)
    suite.privacy(f"shuffle-lcb/remarkD.5@eps0.2,delta{DELTA:g},T{_T_TREE},d{_D_TREE},k{k}", auditor="exact",
                  subject=ReturningUserStream(_MECH_D5, k, "consecutive"), claim=ApproxDP(eps_k, delta_k),
                  pairs=[one_changed(np.zeros((_T_TREE // k, k, _D_TREE + 1)), *WORST_ROW_PAIR)],
                  relation=ReplaceUser(batch_size=_T_TREE // k),
                  title=f"the event-level (0.2, {DELTA:g}) tree is user-level (k eps, k e^((k-1) eps) delta) = "
                        f"({eps_k:g}, {delta_k:.4g}) for k = {k} consecutive rounds (group privacy)")


# == Algorithm level: the private LinUCB variants' own outputs on small instances =====================
#
# (module docstring, "Algorithm-level privacy"). Every user sees the same two arms, e_1 paying 1 and e_2
# paying 0; the protected user is the first (round 1: the initial model ties every unit arm, so she
# plays arm 0 whatever the noise, and her randomizer input is exactly her arm 0's row), moved along the
# mechanism-level entries' two extreme moves: arm 0 from (e_1, 1) to (-e_1, 1) (one vector label by 2g)
# and to (e_2, 0) (three labels by g). Returning users: the same moves for user 0 in every batch.
_ALG_T, _ALG_K, _ALG_D, _ALG_B = 16, 2, 2, 4
_ALG_ARMS = np.eye(_ALG_D)[:_ALG_K]
_ALG_BASE = fixed_arms(_ALG_ARMS, [1.0, 0.0], _ALG_T)
_ALG_MOVES = ([-1.0, 0.0, 1.0], [0.0, 1.0, 0.0])  # arm 0's row (phi, reward) after the move
_ALG_POINT = f"T{_ALG_T},K{_ALG_K},d{_ALG_D}"


def _first_user_pairs(base: np.ndarray) -> list:
    """The protected first user's arm 0 moved from (e_1, 1) along each of the two moves."""
    pairs = []
    for move in _ALG_MOVES:
        other = base.copy()
        other[0, 0] = move
        pairs.append((base.copy(), other))
    return pairs


def _returning_pairs(users: int) -> list:
    """User 0 (the first round of every batch) moved in every batch; data user-major (users, M, K, d + 1)."""
    base = np.swapaxes(_ALG_BASE.reshape(_ALG_T // users, users, _ALG_K, _ALG_D + 1), 0, 1).copy()
    pairs = []
    for move in _ALG_MOVES:
        other = base.copy()
        other[0, :, 0] = move
        pairs.append((base, other))
    return pairs


_ALG_SAMPLES = {"quick": 40_000, "standard": 400_000, "thorough": 4_000_000}
_ALG_DELTA = 0.1  # the experiments' delta
for _id, _name, _eps, _title in [
        ("thm3.2-privacy", "linucb-sdp-amp", 0.5, "LinUCB-SDP-Amp's released batch sums (P_Amp, Thm 3.2's sigma)"),
        ("thm3.5-privacy", "linucb-sdp-vec", 1.0, "LinUCB-SDP-Vec's label counts (P_Vec, Thm 3.5's g, b)")]:
    _policy = ALGORITHMS[_name](eps=_eps, delta=_ALG_DELTA, B=_ALG_B)
    suite.privacy(f"shuffle-lcb/{_id}@algorithm,eps{_eps:g},delta{_ALG_DELTA:g},B{_ALG_B},{_ALG_POINT}",
                  auditor="statistical", samples=_ALG_SAMPLES,
                  subject=ContextualTranscript(_policy, _ALG_K, _ALG_D, _ALG_T, output="messages"),
                  claim=ApproxDP(_eps, _ALG_DELTA), pairs=_first_user_pairs(_ALG_BASE),
                  relation=ReplaceUser(batch_size=_ALG_T),
                  title=f"{_title} over the M = {_ALG_T // _ALG_B} batches of T = {_ALG_T} users are "
                        f"({_eps:g}, {_ALG_DELTA:g})-SDP (K = {_ALG_K}, d = {_ALG_D}, B = {_ALG_B}; the first user's "
                        "arm moved to -e_1 and to (e_2, 0); black-box)")

suite.privacy(f"shuffle-lcb/thm3.5-privacy@algorithm,batch1,exact,eps1,delta{_ALG_DELTA:g},B{_ALG_B},{_ALG_POINT}",
              auditor="exact",
              subject=FirstBatchView(ALGORITHMS["linucb-sdp-vec"](eps=1.0, delta=_ALG_DELTA, B=_ALG_B), _ALG_K, _ALG_D,
                                     _ALG_T, batch=_ALG_B),
              claim=ApproxDP(1.0, _ALG_DELTA), pairs=_first_user_pairs(_ALG_BASE),
              relation=ReplaceUser(batch_size=_ALG_T),
              title=f"LinUCB-SDP-Vec (eps = 1, delta = {_ALG_DELTA:g}, B = {_ALG_B}, T = {_ALG_T}) is (1, "
                    f"{_ALG_DELTA:g})-SDP for a user of batch 1, exactly: batch 1's label counts given its fixed plays "
                    "(the first user's arm moved to -e_1 and to (e_2, 0))")

def _returning_entry(id: str, name: str, release: str, reading: str = "", **kwargs) -> None:
    """A returning-user algorithm's released views over M = T/B batches, one of the B returning users changed in
    every batch, audited black-box at (1, delta)."""
    policy = ALGORITHMS[name](eps=1.0, delta=_ALG_DELTA, B=_ALG_B)
    suite.privacy(f"shuffle-lcb/{id}@algorithm,eps1,delta{_ALG_DELTA:g},B{_ALG_B},{_ALG_POINT}",
                  auditor="statistical", samples=_ALG_SAMPLES,
                  subject=ContextualTranscript(policy, _ALG_K, _ALG_D, _ALG_T, output="messages",
                                               users_per_batch=_ALG_B),
                  claim=ApproxDP(1.0, _ALG_DELTA), pairs=_returning_pairs(_ALG_B),
                  relation=ReplaceUser(batch_size=_ALG_B),
                  title=f"{release} over M = {_ALG_T // _ALG_B} batches are (1, {_ALG_DELTA:g})-SDP when one of the "
                        f"B = {_ALG_B} returning users changes in every batch ({reading}K = 2, d = 2; black-box)",
                  **kwargs)


_returning_entry("thmE.5-privacy", "linucb-sdp-vec-returning",
                 "LinUCB-SDP-Vec-returning's label counts (P_Vec, Thm 4.2(ii)'s b)")
# Theorem 4.2(i) / E.3 (P_Amp with returning users) read with the O(.)'s constant 1: the per-batch view is P_Amp's
# Gaussian multiset, with no tractable law composed over batches. eps = 1 is inside the reconstructed range
# eps <= (2/B) log(2/delta) sqrt(2T) = 8.5 at B = 4, T = 16. From the standard budget up.
_returning_entry("thmE.3-privacy", "linucb-sdp-amp-returning",
                 "LinUCB-SDP-Amp-returning's batch sums (P_Amp, Thm 4.2(i)'s sigma)",
                 "the O(.) read with constant 1; ", budgets=("standard", "thorough", "paper"))

# LinUCB-JDP (Proposition F.3 at B = 1): the other users' actions; eps = 1, the range's largest.
_JDP = ContextualTranscript(ALGORITHMS["linucb-jdp"](eps=1.0, delta=_ALG_DELTA), _ALG_K, _ALG_D, _ALG_T,
                            output="jdp", protected=1)
suite.privacy(f"shuffle-lcb/propF.3-jdp@algorithm,eps1,delta{_ALG_DELTA:g},B1,{_ALG_POINT}",
              auditor="statistical", samples=_ALG_SAMPLES, subject=_JDP, claim=ApproxDP(1.0, _ALG_DELTA),
              pairs=_first_user_pairs(_ALG_BASE), relation=ReplaceUser(batch_size=_ALG_T),
              title=f"LinUCB-JDP's actions of users 2..{_ALG_T} (B = 1, K = 2, d = 2) are (1, {_ALG_DELTA:g})-JDP "
                    "when user 1 changes (her arm moved to -e_1 and to (e_2, 0); black-box)")

# JDP through the Billboard lemma (Remark 3.4, Corollaries B.2, B.3, C.2, C.3 print "O(eps, delta)-JDP", no constant):
# the actions the other users receive from the shuffle algorithms, read with the O(.)'s constant 1, black-box. They
# run from the standard budget up (a quick run's statistical claims share its alpha, which its snapshot holds).
for _id, _name, _eps in (("remark3.4-jdp", "linucb-sdp-amp", 0.5), ("corC.2-jdp", "linucb-sdp-vec", 1.0)):
    _policy = ALGORITHMS[_name](eps=_eps, delta=_ALG_DELTA, B=_ALG_B)
    _jdp = ContextualTranscript(_policy, _ALG_K, _ALG_D, _ALG_T, output="jdp", protected=1)
    suite.privacy(f"shuffle-lcb/{_id}@algorithm,eps{_eps:g},delta{_ALG_DELTA:g},B{_ALG_B},{_ALG_POINT}",
                  auditor="statistical", samples=_ALG_SAMPLES, subject=_jdp, claim=ApproxDP(_eps, _ALG_DELTA),
                  pairs=_first_user_pairs(_ALG_BASE), relation=ReplaceUser(batch_size=_ALG_T),
                  budgets=("standard", "thorough", "paper"),
                  title=f"{_policy.name}: the actions of users 2..{_ALG_T} "
                        f"are ({_eps:g}, {_ALG_DELTA:g})-JDP when user 1 changes (B = {_ALG_B}, K = {_ALG_K}, d = "
                        f"{_ALG_D}; the Billboard lemma's O(eps, delta) read with constant 1; black-box)")

# Theorem E.2 (advanced composition, quoted), the step of Theorem E.3's proof: k randomized responses at eps =
# eps'/(2 sqrt(2 k log(1/delta'))) against (eps', delta'), exactly (as dist-mab/thm7, the same theorem in that
# paper: randomized response is the worst case for composing pure eps-DP parts, and the (eps, delta) parts' leaks
# add at most k delta, the term the formula leaves alone). k = M = T/B = 100 (T = 2000, B = 20) and 1000 batches,
# delta' = delta/2 = 0.05 at the suite's delta = 0.1, natural log; k > 8 log(1/delta') = 24, below which basic
# composition already gives the claim.
_SLACK = 0.05
for _k in (100, 1000):
    for _eps_total in (0.5, 0.9):
        _e = quoted_advanced_composition(_eps_total, _k, _SLACK)
        suite.privacy(f"shuffle-lcb/thmE.2@k{_k},eps-total{_eps_total:g},delta-slack{_SLACK:g}", auditor="exact",
                      subject=RepeatedResponseCount(_e, _k), claim=ApproxDP(_eps_total, _SLACK), pairs=[([0], [1])],
                      relation=ReplaceOne(),
                      title=f"Theorem E.2: {_k} randomized responses at eps = eps'/(2 sqrt(2 k log(1/delta'))) = "
                            f"{_e:.4g} are ({_eps_total:g}, {_SLACK:g})-DP, exactly")

# the regret claims and the experiments' orderings add their entries to ``suite`` when imported
from . import regret  # noqa: E402, F401, I001
from . import batch_potential  # noqa: E402, F401, I001
from . import confidence  # noqa: E402, F401, I001
