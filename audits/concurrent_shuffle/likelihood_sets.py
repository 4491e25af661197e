"""concurrent-shuffle, the likelihood-ratio lemmas of App. B behind Theorem 4.1's set (1): Lemma B.2
(reconstructed: the dump lost its statement, the spec rebuilds it from its proof) and Lemma B.3 (the same
averaged over a data distribution A), audited by :mod:`dpaudit.auditors.lower_bound` as claims made of
proof steps, computed exactly on concrete (eps, delta)-DP mechanisms whose laws are finite.

The sets (Lemma B.3): P_x = Pr_{M, D ~ A}[M(D^i_x) = .] for the two values x1, x2 of the i-th element;
Bad1 = {t: P_x1(t)/P_x2(t) < e^{-2 eps}}, Bad2 = {t: P_x1(t)/P_x2(t) > e^{2 eps}}, E'_i = Y minus (Bad1 u
Bad2). Checked at each point:

  - mass: P_x1(E'_i) >= 1 - 2 delta/min(eps, 1) and P_x2(E'_i) >= 1 - 2 delta/min(eps, 1) (item 1);
  - ratio: |log P_x1(t)/P_x2(t)| <= 2 eps on E'_i (item 2; true by the definition of the sets, so it
    checks the sets as computed here);
  - the proof's inequalities P_x(Bad1_x) < delta e^{-2 eps}/(1 - e^{-eps}) and P_x(Bad2_x) < delta
    e^{eps}/(e^{eps} - 1), for x = x1 and, with the roles of x1 and x2 swapped (the lemma is for "any
    distinct x1, x2"), for x = x2 (Bad1_x, Bad2_x: the bad sets with x's law in the numerator);
  - the hypothesis, as a condition: M is (eps, delta)-DP, delta_M(eps) = the largest hockey-stick
    divergence over every neighbouring pair of the mechanism, in both directions, at most delta.

Mechanisms (the paper's M is generic; these are the choices, neither is one of the paper's protocols):

  - ``edge``: a bit mechanism at the edge of (eps, delta) for Lemma B.2's sets, n = 1 (A a point mass:
    Lemma B.3 with a point-mass A is Lemma B.2). Outputs {u, v, w}: on x1, u with probability p, v with
    p e^{-2 eps}(1 - eta), w with the rest; on x2 the same with u and v swapped. The ratio at u is
    e^{2 eps}/(1 - eta), just above e^{2 eps}, so u is in Bad2 and v in Bad1, and delta_M(eps) = p(1 -
    e^{-eps}(1 - eta)); p is set so that this is exactly delta. Then P_x1(Bad2) = delta/(1 - e^{-eps}(1 -
    eta)) -> delta e^{eps}/(e^{eps} - 1) as eta -> 0: the proof's Bad2 inequality is tight for this
    family, and the lemma's total bad mass delta (e^{eps} + e^{-eps})/(e^{eps} - 1) is within a factor 1 -
    O(eps) of 2 delta/eps for small eps. eta = 1e-6 (a choice: small enough to sit at the edge, large
    enough that the strict inequalities are decided in floating point, margins ~1e-6 relative against
    the auditor's 1e-12 tolerance).
  - ``shuffled-rr``: Lemma B.3 with a non-trivial A, the spec's suggestion: n users, each reporting its
    bit through randomized response at a local eps0, the server seeing the count of reported ones (the
    shuffled reports); A = the other n - 1 bits i.i.d. Ber(1/2). P_x = RR(x) + Bin(n - 1, 1/2) (each
    other report is a fair coin under A). delta_M(eps) is the worst case over the count laws of j and
    j + 1 ones, j = 0..n-1, both directions; the audited delta is that value rounded up to two
    significant digits (so the hypothesis holds strictly). A mixture over A of pairs that are (eps,
    delta)-close is (eps, delta)-close, so averaging can only shrink the bad sets: these points check
    that the sets are taken on the averaged laws, not that the constant is tight.

Encoded (id -> point):
  - lemB.3@edge,eps{0.1,0.5,1,2,4},delta...: the edge family at eps < 1, = 1 and > 1.
  - lemB.3@shuffled-rr,n32,eps-local3,eps{0.5,1.25},delta...: the averaged case (Bad1 and Bad2 non-empty at
    both points, where e^{2 eps} < e^{eps0}; eps = 1.25 rather than 1.5, where 2 eps = eps0 puts the extreme
    counts' ratio exactly on E's boundary, a tie floats cannot decide).
  - lemB.2@edge,eps{0.5,2},delta...: the reconstructed Lemma B.2 (its O(delta/eps) statements are not
    checkable; the proof's two printed inequalities and the set E's ratio property are, on the edge family
    with D, D' the two inputs), and "Pr[M(D') in Bad] <= e^eps Pr[M(D) in Bad] + delta" (the proof's step
    to D', with its O(delta/eps) replaced by the computed Pr[M(D) in Bad]).
The concrete use of Lemma B.3 on the implemented Algorithm 3 stays a step of the thm4.1 entries
(:mod:`.lower_bounds`), as does the constant's check over a grid of eps.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from dpaudit import LowerBound, ProofStep

from ._suite import suite

ETA = 1e-6


# -- the mechanisms' laws -----------------------------------------------------------------------------


def edge_laws(eps: float, delta: float, eta: float = ETA) -> np.ndarray:
    """The edge bit mechanism's laws on x1 (row 0) and x2 (row 1) over outputs (u, v, w) (module docstring)."""
    p = delta / (1 - math.exp(-eps) * (1 - eta))
    low = p * math.exp(-2 * eps) * (1 - eta)
    if p + low > 1:
        raise ValueError(f"edge mechanism: delta = {delta} too large at eps = {eps} (p + p e^(-2 eps) > 1)")
    return np.array([[p, low, 1 - p - low], [low, p, 1 - p - low]])


def rr_count_laws(n: int, eps0: float) -> np.ndarray:
    """Row j: the law of the count of reported ones when j of the n users hold a 1 (randomized
    response at eps0 each): Bin(j, a) + Bin(n - j, 1 - a), a = e^eps0/(1 + e^eps0)."""
    a = math.exp(eps0) / (1 + math.exp(eps0))
    return np.array([np.convolve(binom.pmf(np.arange(j + 1), j, a), binom.pmf(np.arange(n - j + 1), n - j, 1 - a))
                     for j in range(n + 1)])


def rr_averaged_laws(n: int, eps0: float) -> np.ndarray:
    """P_x for x = 1 (row 0) and x = 0 (row 1): RR(x) plus Bin(n - 1, 1/2), the other reports under A."""
    a = math.exp(eps0) / (1 + math.exp(eps0))
    others = binom.pmf(np.arange(n), n - 1, 0.5)
    shifted, level = np.append(0.0, others), np.append(others, 0.0)  # user i reports 1 / reports 0
    return np.array([a * shifted + (1 - a) * level, (1 - a) * shifted + a * level])


def worst_delta(laws: np.ndarray, eps: float, pairs: list[tuple[int, int]]) -> float:
    """max over the neighbouring pairs (i, j), both directions, of sum (P - e^eps Q)_+."""
    return max(float(np.maximum(laws[i] - math.exp(eps) * laws[j], 0).sum()) for a, b in pairs
               for i, j in ((a, b), (b, a)))


def round_up(x: float, digits: int = 2) -> float:
    """x rounded up to ``digits`` significant digits."""
    scale = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return math.ceil(x / scale * (1 - 1e-12)) * scale


# -- the sets -----------------------------------------------------------------------------------------


def laws_of(p) -> np.ndarray:
    """P_x1 and P_x2 (rows) at a point: the family's laws averaged over A."""
    return edge_laws(p["eps"], p["delta"], p["eta"]) if p["family"] == "edge" else rr_averaged_laws(p["n"], p["eps0"])


def mechanism_of(p) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The mechanism's laws on every input it distinguishes, and its neighbouring pairs (rows)."""
    if p["family"] == "edge":
        return edge_laws(p["eps"], p["delta"], p["eta"]), [(0, 1)]
    return rr_count_laws(p["n"], p["eps0"]), [(j, j + 1) for j in range(p["n"])]


def bad_masses(laws: np.ndarray, eps: float) -> dict[str, np.ndarray]:
    """For x = x1, x2 (rows of ``laws``): the mass of x's law on Bad1_x = {P_x/P_other < e^{-2 eps}} and
    on Bad2_x = {P_x/P_other > e^{2 eps}}, and on E'_i (the complement of both; the same set for both x)."""
    p, q = laws
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(p) - np.log(q)  # +-inf where one law is zero; nan where both are (no outcome)
    possible = (p > 0) | (q > 0)
    bad1 = possible & (log_ratio < -2 * eps)
    bad2 = possible & (log_ratio > 2 * eps)
    good = possible & ~bad1 & ~bad2
    return {"bad1": np.array([p[bad1].sum(), q[bad2].sum()]), "bad2": np.array([p[bad2].sum(), q[bad1].sum()]),
            "good": np.array([p[good].sum(), q[good].sum()]),
            "good_ratio": np.abs(log_ratio[good]).max(initial=0.0)}


_SIDES = {"x": np.array(["x1", "x2"])}


def _mass(p):
    return bad_masses(laws_of(p), p["eps"])["good"], 1 - 2 * p["delta"] / min(p["eps"], 1.0), _SIDES


def _ratio(p):
    return bad_masses(laws_of(p), p["eps"])["good_ratio"], 2 * p["eps"]


def _bad1(p):
    e = p["eps"]
    return bad_masses(laws_of(p), e)["bad1"], p["delta"] * math.exp(-2 * e) / (1 - math.exp(-e)), _SIDES


def _bad2(p):
    e = p["eps"]
    return bad_masses(laws_of(p), e)["bad2"], p["delta"] * math.exp(e) / (math.exp(e) - 1), _SIDES


def _to_neighbour(p):
    m = bad_masses(laws_of(p), p["eps"])
    bad_d = m["bad1"][0] + m["bad2"][0]
    bad_d_prime = 1 - m["good"][1]
    return bad_d_prime, math.exp(p["eps"]) * bad_d + p["delta"]


STEPS = {
    "mass": ProofStep("item 1: the mass of E'_i",
                      "Pr_{M,D~A}[M(D^i_x) in E'_i] >= 1 - 2 delta/min(eps,1) for x = x1, x2", _mass, ">="),
    "ratio": ProofStep("item 2: the ratio on E'_i",
                       "|log Pr[M(D^i_x1) = t]/Pr[M(D^i_x2) = t]| <= 2 eps for every t in E'_i", _ratio, "<="),
    "bad1": ProofStep("Bad1 (proof)", "Pr[M(D^i_x) in Bad1_x] < delta e^{-2 eps}/(1 - e^{-eps}), x = x1, x2", _bad1,
                      "<"),
    "bad2": ProofStep("Bad2 (proof)", "Pr[M(D^i_x) in Bad2_x] < delta e^{eps}/(e^{eps} - 1), x = x1, x2", _bad2,
                      "<"),
}
TO_NEIGHBOUR = ProofStep("Bad under D' (Lemma B.2's proof)",
                         "Pr[M(D') in Bad] <= e^eps Pr[M(D) in Bad] + delta", _to_neighbour, "<=")


def _dp(p):
    laws, pairs = mechanism_of(p)
    return worst_delta(laws, p["eps"], pairs), p["delta"]


DP_CONDITION = ProofStep("M is (eps, delta)-DP", "delta_M(eps) = max over neighbouring pairs, both directions, of the "
                         "hockey-stick divergence <= delta", _dp, "<=")


LEMMA_B3 = ("Lemma B.3: M (eps, delta)-DP, A a distribution over datasets of size n; for any distinct x1, x2 and index "
            "i there is E(i, x1, x2, A) with Pr_{M,D~A}[M(D^i_x) in E] >= 1 - 2 delta/min(eps,1) for x = x1, x2 and "
            "every t in E has Pr[M(D^i_x1) = t]/Pr[M(D^i_x2) = t] in [e^{-2 eps}, e^{2 eps}]")
LEMMA_B2 = ("Lemma B.2 [statement reconstructed from its proof]: M (eps, delta)-DP, D, D' neighbours; Bad1/Bad2 = the "
            "outputs with ratio < e^{-2 eps} / > e^{2 eps}: Pr[M(D) in Bad1] < delta e^{-2 eps}/(1 - e^{-eps}), "
            "Pr[M(D) in Bad2] < delta e^{eps}/(e^{eps} - 1), Pr[M(D') in Bad] <= e^eps Pr[M(D) in Bad] + delta, and "
            "the ratio on E = Y minus Bad lies in [e^{-2 eps}, e^{2 eps}]")
CLASS = "(eps, delta)-DP mechanisms M: X^n -> Y"


def edge_point(eps: float, delta: float) -> dict:
    edge_laws(eps, delta)  # validates the point
    return {"family": "edge", "eps": eps, "delta": delta, "eta": ETA, "n": 1}


def shuffled_rr_point(n: int, eps0: float, eps: float) -> dict:
    counts = rr_count_laws(n, eps0)
    delta = round_up(worst_delta(counts, eps, [(j, j + 1) for j in range(n)]))
    return {"family": "shuffled-rr", "eps": eps, "delta": delta, "n": n, "eps0": eps0,
            "A": "other bits i.i.d. Ber(1/2)"}


def _short(x: float) -> str:
    return f"{x:.2g}".replace("e-0", "e-")


EDGE_POINTS = [(0.1, 1e-3), (0.5, 1e-3), (1.0, 1e-2), (2.0, 1e-2), (4.0, 0.05)]
for _eps, _delta in EDGE_POINTS:
    _p = edge_point(_eps, _delta)
    suite.lower_bound(f"concurrent-shuffle/lemB.3@edge,eps{_eps:g},delta{_short(_delta)}",
                      claim=LowerBound(LEMMA_B3, _p, algorithm_class=CLASS, steps=tuple(STEPS.values()),
                                       conditions=(DP_CONDITION,)),
                      title=f"Lemma B.3 on a bit mechanism at the edge of (eps, delta) = ({_eps:g}, {_delta:g}) "
                            f"(A a point mass): E'_i's mass >= 1 - 2 delta/min(eps,1) = "
                            f"{1 - 2 * _delta / min(_eps, 1):.4g}, exactly")

for _eps in (0.5, 1.25):
    _p = shuffled_rr_point(32, 3.0, _eps)
    suite.lower_bound(f"concurrent-shuffle/lemB.3@shuffled-rr,n32,eps-local3,eps{_eps:g},delta{_short(_p['delta'])}",
                      claim=LowerBound(LEMMA_B3, _p, algorithm_class=CLASS, steps=tuple(STEPS.values()),
                                       conditions=(DP_CONDITION,)),
                      title=f"Lemma B.3 on the count of 32 randomized-response reports (eps0 = 3), the other bits "
                            f"i.i.d. Ber(1/2), at (eps, delta) = ({_eps:g}, {_p['delta']:g}): E'_i's mass, exactly")

for _eps, _delta in [(0.5, 1e-3), (2.0, 1e-2)]:
    _p = edge_point(_eps, _delta)
    suite.lower_bound(f"concurrent-shuffle/lemB.2@edge,eps{_eps:g},delta{_short(_delta)}",
                      claim=LowerBound(LEMMA_B2, _p, algorithm_class=CLASS,
                                       steps=(STEPS["bad1"], STEPS["bad2"], TO_NEIGHBOUR, STEPS["ratio"]),
                                       conditions=(DP_CONDITION,)),
                      title=f"Lemma B.2 (reconstructed) on a bit mechanism at the edge of (eps, delta) = ({_eps:g}, "
                            f"{_delta:g}): the proof's Bad1/Bad2 bounds, exactly")
