"""concurrent-shuffle: Tenenbaum, Kaplan, Mansour, Stemmer, Concurrent Shuffle Differential Privacy
Under Continual Observation (ICML 2023).

Mechanism-level privacy (:mod:`dpaudit.mechanisms.concurrent_tree`), exact: the release of CSTA is
every block's shuffled count, a product of finite laws (a block's bits plus Bin(N', 1/2) fair coins),
and the (eps, delta) profile of a product of finite coordinates is computed through the privacy-loss
distribution. Relation: one user's bit replaced (the continual-observation neighbours of Section 2).
M^sum_bin is not printed by the paper; the implemented protocol is the fair-coin multi-message sum
described in the mechanism's docstring, with the fewest coins whose exact profile meets the node's
budget -- so these entries audit the paper's composition (each user in k blocks at (eps/k, delta/k))
on that instantiation, not Tenenbaum et al.'s protocol.
  - thm3.2-privacy (with cor3.3-privacy: its M^sum_bin instantiation): Algorithm 2 on n = 16 users
    (k = log2 n - 1 = 3 shufflers, blocks of 2, 4, 8) is (eps, delta)-CSDP at eps = 0.9, delta = 1e-3
    (M^sum_bin's range eps < 1); pairs searched.
  - thm3.4-privacy (with cor3.5-privacy): Algorithm 3 with k = 1 (n = 8, d = 4, d_low = 2) and k = 2
    (n = 32, d = 4, d_low = 2), the paper's tree shapes d = q^2, d_low = q at q = 2; same budget; searched.

Considered and left out (with why):
  - thm3.2-accuracy, cor3.3-accuracy, thm3.4-accuracy, cor3.5-accuracy: alpha is printed as O(.) (and the
    Hoeffding constant is reconstructed); the structure they rest on (|V^t| bounds, V^t a disjoint
    cover, each user in k blocks) is checked exhaustively in tests/test_concurrent_tree.py.
  - thm3.2-tail, cor3.3 (tail part), thm3.4-tail, cor3.5 (tail part): the counters' errors are
    "sub-Gaussian with variance O(V ...)", with no constant. Two observations: the proof of Theorem
    3.2 uses a Hoeffding step without the factor sqrt 2 and the 2 of ln(2n/beta); and Algorithm 3's
    error has a deterministic bias (up to d_low - 1 at times not divisible by d_low), so it is
    sub-Gaussian only after centring.
  - def2.1 (the (n, alpha, beta) definition), claimsec3a-c (the sequential and naive baselines' rates,
    O(.)), the vector instantiation (M^sum_vec = shuffle-lcb's P_Vec, audited in that suite).
  - lemB.4 (anti-concentration, Matousek): its constants a, b, c are existential.
  - lemB.6 / thm4.1's c_eps: a variance lower bound for Bernoulli variables (a moment fact).
  - the regularity step in the proof of thm5.1 (entrywise error bound => ||H_t - lambda I|| <= sigma sqrt d):
    not implied deterministically (the all-sigma matrix has norm d sigma); a random-matrix statement,
    to be audited with the algorithm.
  - regret and lower-bound claims (thm4.1 and lemB.*): other issues.
"""

from __future__ import annotations

from dpaudit.mechanisms.concurrent_tree import ConcurrentShuffleTree

from dpaudit import ApproxDP
from dpaudit.domains import Datasets
from dpaudit.neighbours import ReplaceOne
from dpaudit.suite import Suite

suite = Suite("concurrent-shuffle",
              "Tenenbaum, Kaplan, Mansour, Stemmer, Concurrent Shuffle DP Under Continual Observation (ICML 2023)")

EPS, DELTA = 0.9, 1e-3

suite.privacy("concurrent-shuffle/thm3.2-privacy@n16,eps0.9,delta1e-3", auditor="exact",
              subject=ConcurrentShuffleTree.binary(16, EPS, DELTA), claim=ApproxDP(EPS, DELTA),
              relation=ReplaceOne().over(Datasets(16, (0, 1))),
              title="Algorithm 2 (CSTA, 3 shufflers, M^sum_bin at (eps/3, delta/3) per block) is (0.9, 1e-3)-CSDP; "
                    "one user's bit replaced, pairs searched")
for k, n in [(1, 8), (2, 32)]:
    suite.privacy(f"concurrent-shuffle/thm3.4-privacy@k{k},n{n},eps0.9,delta1e-3", auditor="exact",
                  subject=ConcurrentShuffleTree(n, k, EPS, DELTA, d=4, d_low=2), claim=ApproxDP(EPS, DELTA),
                  relation=ReplaceOne().over(Datasets(n, (0, 1))),
                  title=f"Algorithm 3 with k = {k} shufflers (d = 4, d_low = 2, n = {n}) is (0.9, 1e-3)-CSDP; "
                        "one user's bit replaced, pairs searched")
