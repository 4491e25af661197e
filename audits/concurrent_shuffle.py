"""concurrent-shuffle: Tenenbaum, Kaplan, Mansour, Stemmer, Concurrent Shuffle Differential Privacy
Under Continual Observation (ICML 2023).

No tail or concentration claim of this paper has constants to audit yet; the suite is empty until
the mechanisms and their privacy and accuracy claims are encoded.

Considered and left out (with why):
  - thm3.2-tail, cor3.3 (tail part), thm3.4-tail, cor3.5 (tail part): the counters' errors are
    "sub-Gaussian with variance O(V ...)", with no constant. Two observations for when the
    mechanisms are encoded: the proof of Theorem 3.2 uses a Hoeffding step without the factor
    sqrt 2 and the 2 of ln(2n/beta); and Algorithm 3's error has a deterministic bias (up to
    d_low - 1 at times not divisible by d_low), so it is sub-Gaussian only after centring.
  - lemB.4 (anti-concentration, Matousek): its constants a, b, c are existential.
  - lemB.6 / thm4.1's c_eps: a variance lower bound for Bernoulli variables (a moment fact).
  - the regularity step in the proof of thm5.1 (entrywise error bound => ||H_t - lambda I|| <= sigma sqrt d):
    not implied deterministically (the all-sigma matrix has norm d sigma); a random-matrix statement,
    to be audited with the algorithm.
  - privacy, accuracy, regret and lower-bound claims: other issues.
"""

from __future__ import annotations

from dpaudit.suite import Suite

suite = Suite("concurrent-shuffle",
              "Tenenbaum, Kaplan, Mansour, Stemmer, Concurrent Shuffle DP Under Continual Observation (ICML 2023)")
