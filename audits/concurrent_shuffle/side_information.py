"""concurrent-shuffle, Appendix B's two structural lemmas checked on explicit protocols: Lemma B.5 (releasing the inputs
in I beside an (eps, delta)-DP output keeps (eps, delta)-DP for the inputs outside I) exactly, and Lemma B.1
(independent inputs of parties speaking in turn stay independent given the transcript) by enumeration.

  - lemB.5@node,m4,released4: M = M^sum_bin at (0.9, 1e-3) on m = 4 users' bits (the suite's node protocol), with four
    more users' bits D_I released beside it: M'(D) = (M(D_{-I}), D_I), a product of M's count law and a point mass
    (:class:`~dpaudit.mechanisms.classic.released_inputs.ReleasedInputs`).
    Claim (0.9, 1e-3)-DP, exactly, on every pair that changes one bit outside I (each of
    the 4, from each of the 2^8 datasets). The tests show the same release refuted (infinite loss) when the changed
    bit is in I: the lemma's "with respect to the inputs outside I" is what holds it.
  - lemB.1@rr-chain,n3: three parties with independent inputs X_i in {0, 1} (P[X_i = 1] = 1/4, 1/2, 2/3) speak in
    turn, party i sending randomized response of X_i XOR its predecessor's message (eps = 0.5, 1, 2), so each message
    depends on the whole transcript so far. By exact enumeration (fractions) of every input vector and transcript,
    the posterior of (X_1, X_2, X_3) given the transcript factorises into its marginals: the step is the largest
    |P[x | m] - prod_i P[x_i | m]| over x and m, against 0. The tests break independence of the inputs (a
    correlated prior) and see the step fail.

Choices where the paper is silent: the protocols (any would do: the lemmas hold for every mechanism and protocol of the
kind); the randomized responses' probabilities are taken as exact fractions (e^eps rounded to a fraction at 1e-12), so
the enumeration is exact arithmetic and the identity is checked to the last digit.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from dpaudit import ApproxDP, LowerBound, ProofStep
from dpaudit.core.neighbours import ReplaceOne
from dpaudit.mechanisms.classic.released_inputs import ReleasedInputs
from dpaudit.mechanisms.counters.concurrent_tree import BinarySummation

from ._suite import suite

NODE_EPS, NODE_DELTA, INSIDE, RELEASED = 0.9, 1e-3, 4, 4
B5_RELEASE = ReleasedInputs(BinarySummation(NODE_EPS, NODE_DELTA, INSIDE), INSIDE, RELEASED)


def outside_pairs(m: int = INSIDE, released: int = RELEASED) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every pair (D, D') of bit vectors that differ in exactly one of the first ``m`` positions (D < D' there)."""
    pairs = []
    for bits in itertools.product((0, 1), repeat=m + released):
        d = np.array(bits)
        for j in range(m):
            if d[j] == 0:
                other = d.copy()
                other[j] = 1
                pairs.append((d, other))
    return pairs


suite.privacy(f"concurrent-shuffle/lemB.5@node,m{INSIDE},released{RELEASED}", auditor="exact", subject=B5_RELEASE,
              claim=ApproxDP(NODE_EPS, NODE_DELTA), pairs=outside_pairs(), relation=ReplaceOne(),
              title=f"Lemma B.5: M^sum_bin at ({NODE_EPS:g}, {NODE_DELTA:g}) on {INSIDE} users, released beside "
                    f"{RELEASED} users' bits D_I, is ({NODE_EPS:g}, {NODE_DELTA:g})-DP for every bit outside I, "
                    "exactly")


# -- Lemma B.1 --------------------------------------------------------------------------------------------------

PRIORS = (Fraction(1, 4), Fraction(1, 2), Fraction(2, 3))
EPSILONS = (0.5, 1.0, 2.0)


def _keep(eps: float) -> Fraction:
    """P[randomized response keeps its bit] = e^eps / (1 + e^eps), as a fraction (to 1e-12)."""
    return Fraction(float(np.exp(eps) / (1 + np.exp(eps)))).limit_denominator(10**12)


def joint(priors=PRIORS, epsilons=EPSILONS, prior_table: dict | None = None) -> dict[tuple, Fraction]:
    """P[X = x, M = m] for every input vector x and transcript m: party i sends RR_eps_i(x_i XOR m_{i-1}) (m_0 = 0).
    ``prior_table`` (x -> probability) replaces the independent priors (the tests' correlated inputs)."""
    n = len(priors)
    out: dict[tuple, Fraction] = {}
    for x in itertools.product((0, 1), repeat=n):
        px = prior_table[x] if prior_table is not None else \
            np.prod([p if b else 1 - p for p, b in zip(priors, x)], dtype=object)
        for m in itertools.product((0, 1), repeat=n):
            p, before = Fraction(px), 0
            for xi, mi, eps in zip(x, m, epsilons):
                keep = _keep(eps)
                p *= keep if mi == (xi ^ before) else 1 - keep
                before = mi
            out[(x, m)] = p
    return out


def factorisation_gap(table: dict[tuple, Fraction]) -> Fraction:
    """max over x, m of |P[x | m] - prod_i P[x_i | m]|, exactly."""
    transcripts = {m for _, m in table}
    worst = Fraction(0)
    for m in transcripts:
        cells = {x: p for (x, mm), p in table.items() if mm == m}
        total = sum(cells.values())
        n = len(next(iter(cells)))
        marginals = [sum(p for x, p in cells.items() if x[i] == 1) / total for i in range(n)]
        for x, p in cells.items():
            product = Fraction(1)
            for i, b in enumerate(x):
                product *= marginals[i] if b else 1 - marginals[i]
            worst = max(worst, abs(p / total - product))
    return worst


def _b1(p):
    return np.array([float(factorisation_gap(joint()))]), np.array([0.0])


B1_TEXT = ("Lemma B.1: independent inputs of parties speaking in turn stay independent conditioned on the whole "
           "transcript: P[X = x | M = m] = prod_i P[X_i = x_i | M = m]")
suite.lower_bound("concurrent-shuffle/lemB.1@rr-chain,n3", claim=LowerBound(
    B1_TEXT, {"n": 3, "priors": [str(p) for p in PRIORS], "epsilons": list(EPSILONS)},
    steps=(ProofStep("posterior factorises", "max over x, m of |P[x | m] - prod_i P[x_i | m]| == 0 (exact fractions)",
                     _b1, "=="),)),
    title="Lemma B.1 on three parties sending randomized response of their bit XOR the previous message: the inputs' "
          "posterior given the transcript factorises, by exact enumeration")
