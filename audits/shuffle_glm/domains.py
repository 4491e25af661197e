"""shuffle-glm, confidence statements that hold for every estimate the optimizer can return, at the audited parameters.

P_GD returns a point of its domain {||theta|| <= S} whatever its noise and its data, so a confidence statement whose
bound exceeds the largest distance from theta* to that domain holds with probability 1. At Algorithm 1's and 2's
printed parameters and T = 1000 the statements below are of that kind: they are verified for every estimate, every
data set of at most T points of norm <= 1 and every noise matrix within their hypotheses, so no sampling is needed.
What it means: at these parameters the confidence radii are wider than the parameter set (lambda ~ 5e3-3e4 dominates
the data), and the statements carry no information about the estimators there.

  - Lemma E.4 (29): ||theta* - theta^||_{H*} <= 24RS(sqrt(log T + d) + R(log T + d)/sqrt(lambda_min)) + 2S sqrt(
    lambda_max) + sqrt(4RS nu), H* = sum_j mu'(<x_j, theta*>) x_j x_j^T + N, lambda_min I <= N <= lambda_max I. For
    ||theta^||, ||theta*|| <= S: the left side is at most 2S sqrt(lambda_max(H*)) <= 2S sqrt(lambda_max + s/4) (mu' <=
    1/4, ||x_j|| <= 1, s points), against the right side at nu = 0 (its least). Algorithm 1 at eps = 4, delta = 0.02,
    d = 3, S = 3, s = T = 1000, [lambda_min, lambda_max] = [lambda (8), lambda_max (15)] (Lemma E.4's condition
    lambda_min >= 20 d R log T holds at lambda, not at Observation 1's lower end: see :mod:`.confidence`).
  - Corollary E.6 (31): |<x, theta* - theta_1>| <= sqrt(kappa) ||x||_{V^-1} gamma(lambda), gamma(lambda) the width
    (24) = 24RS sqrt(log T + d) + R(log T + d)/sqrt(lambda_min) + 2S sqrt(lambda_max) + sqrt(4RS nu). The left side is
    at most 2S ||x||, the right side at least sqrt(kappa) gamma(lambda) ||x|| / sqrt(lambda_max(V)) with lambda_max(V)
    <= B_1 + lambda_max (the warm-up's B_1 <= T points of norm <= 1, the P_2 noise within lambda_max): the step compares
    2S with sqrt(kappa) gamma(lambda) / sqrt(T + lambda_max), nu = 0.
  - Lemma K.1 (60): ||theta_o - theta*||_{H*_o} <= gamma(lambda_max) = 4R^2 S sqrt(lambda_max) + (7Sd/sqrt(lambda_max))
    log(16T/(zeta R^2 d lambda_max)) + 4RS sqrt(nu_1), H*_o = sum_{T_o} mu' x x^T + lambda_max I (59). The left side is
    at most 2S sqrt(lambda_max + |T_o|/4) <= 2S sqrt(lambda_max + T/4), against gamma(lambda_max) at nu_1 = 0.
    Algorithm 2 at eps = 4, delta = 0.02, zeta = 0.01, d = 2, S = 3, T = 1000.

  - Lemma E.9: in every batch k >= 2, |<x, theta* - theta_k>| <= ||x||_{H_k^-1} gamma(lambda_max, lambda_min) (24).
    The left side is at most 2S ||x||; H_k's data are the batch's scaled arms, weight mu'/beta <= 1/4, so
    lambda_max(H_k) <= lambda_max + T/4 and the right side is at least gamma(lambda_max, lambda_min) ||x|| /
    sqrt(lambda_max + T/4): the step compares 2S with that, nu = 0. (No batch k >= 2 runs at the printed schedule
    below T ~ 1e8; the check covers every state such a batch could be in at T = 1000.)
  - Lemma E.7: in every batch k >= 2, H_k <= H*_k and mu'(<x, theta_w>) <= beta(x) mu'(<x, theta*>), beta(x) =
    exp(R min(2S, gamma sqrt(kappa) ||x||_{V^-1})) (11). For theta_w, theta* in the domain |<x, theta_w - theta*>| <=
    2S ||x||, so the second half follows from Lemma G.2's mu'(z1) <= e^{R |z1 - z2|} mu'(z2) once gamma sqrt(kappa)
    ||x||_{V^-1} >= 2S ||x|| (then beta(x) >= e^{2RS ||x||}); the first half follows from the second, H_k's weights
    being mu'(<x, theta_1>)/beta(x) against H*_k's mu'(<x, theta*>) over the same points (H*_k read with Lemma E.4's
    form, the same noise N_k; with lambda_max I in its place the order holds a fortiori). Steps: gamma sqrt(kappa) /
    sqrt(T + lambda_max) >= 2S (Corollary E.6's, gamma the algorithm's (9) here, which (11) uses), and the
    curvature ratio mu'(z_w) / (e^{R |z_w - z*|} mu'(z*)) <= 1 on a grid of z* != z_w in [-S, S] (step 1/16), in
    closed form (at z_w = z* it is 1 exactly).

Where the margin runs out: at Algorithm 1's T = 10^5 (s = T) E.4's domain bound is 2S sqrt(lambda_max + s/4) = 1065
against (29)'s 771, and K.1's stops once |T_o| > 12 lambda_max; those points are not entries (the domain bound decides
nothing there, and the estimates' own coverage would need P_GD's runs at T_it ~ 10^3-10^5 iterations each).
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit import LowerBound, ProofStep
from dpaudit.algorithms.glm.base import curvature
from dpaudit.algorithms.glm.parameters import algorithm1_lambdas, algorithm2_parameters
from dpaudit.mechanisms.glm.glm_links import logistic_slope

from ._suite import suite
from .widths import gamma_60, width_24

EPS, DELTA, ZETA, R, S, HORIZON = 4.0, 0.02, 0.01, 1.0, 3.0, 1000
MU_SLOPE_MAX = 0.25  # the logistic link's largest mu'


def _one(value: float) -> np.ndarray:
    return np.array([value])


def algorithm1_point(d: int = 3, T: int = HORIZON) -> dict:
    _, kappa, kappa_star = curvature("domains", "logistic", S, None, None)
    _, lam, lam_max = algorithm1_lambdas(EPS, DELTA, d, T, T, kappa_star, R)
    return {"d": d, "T": T, "kappa": kappa, "kappa_star": kappa_star, "lam_min": lam, "lam_max": lam_max}


def _e4(p):
    q = algorithm1_point(p["d"], p["T"])
    lhs = 2 * S * math.sqrt(q["lam_max"] + MU_SLOPE_MAX * p["T"])
    logs = math.log(p["T"]) + p["d"]
    rhs = 24 * R * S * (math.sqrt(logs) + R * logs / math.sqrt(q["lam_min"])) + 2 * S * math.sqrt(q["lam_max"])
    return _one(lhs), _one(rhs)


def _e6(p):
    q = algorithm1_point(p["d"], p["T"])
    width = width_24(p["T"], p["d"], R, S, q["lam_min"], q["lam_max"])
    return _one(2 * S), _one(math.sqrt(q["kappa"]) * width / math.sqrt(p["T"] + q["lam_max"]))


def _k1(p):
    _, kappa, kappa_star = curvature("domains", "logistic", S, None, None)  # Algorithm 2's: the link's bounds
    a2 = algorithm2_parameters(EPS, DELTA, p["T"], ZETA, p["d"], R, S, kappa, kappa_star)
    lhs = 2 * S * math.sqrt(a2.lam_max + MU_SLOPE_MAX * p["T"])
    return _one(lhs), _one(gamma_60(a2))


def _e9(p):
    q = algorithm1_point(p["d"], p["T"])
    width = width_24(p["T"], p["d"], R, S, q["lam_min"], q["lam_max"])
    return _one(2 * S), _one(width / math.sqrt(q["lam_max"] + MU_SLOPE_MAX * p["T"]))


def _e7_width(p):
    from dpaudit.algorithms.glm.shuffle_glm import algorithm1_settings

    q = algorithm1_point(p["d"], p["T"])
    gamma = algorithm1_settings(EPS, DELTA, p["d"], p["T"], S, q["kappa"], q["kappa_star"], R).gamma
    return _one(math.sqrt(q["kappa"]) * gamma / math.sqrt(p["T"] + q["lam_max"])), _one(2 * S)


def _e7_curvature(p):
    z = np.arange(-S, S + 1e-12, 1 / 16)
    z_star, z_w = np.meshgrid(z, z, indexing="ij")

    off = z_w != z_star  # on the diagonal the ratio is 1 exactly: a tight float equality decides nothing
    ratio = logistic_slope(z_w[off]) / (np.exp(R * np.abs(z_w[off] - z_star[off])) * logistic_slope(z_star[off]))
    return ratio, np.ones(ratio.size), {"z_star": z_star[off], "z_w": z_w[off]}


E4_TEXT = ("Lemma E.4 (29): w.p. >= 1 - 3/T^2, ||theta* - theta^||_{H*} <= 24RS(sqrt(log T + d) + R(log T + d)/"
           "sqrt(lambda_min)) + 2S sqrt(lambda_max) + sqrt(4RS nu)")
E6_TEXT = ("Corollary E.6 (31): for any x, w.p. > 1 - 1/T^2, |<x, theta* - theta_1>| <= sqrt(kappa) ||x||_{V^-1} "
           "gamma(lambda)")
K1_TEXT = "Lemma K.1 (60): w.p. >= 1 - zeta/8, ||theta_o - theta*||_{H*_o} <= gamma(lambda_max)"
_COMMON = {"eps": EPS, "delta": DELTA, "S": S, "R": R, "T": HORIZON}
suite.lower_bound(f"shuffle-glm/lemE.4@domain,S3,d3,T{HORIZON}", claim=LowerBound(
    E4_TEXT, {**_COMMON, "d": 3}, steps=(ProofStep(
        "the domain's largest distance <= (29)", "2S sqrt(lambda_max + T/4) <= (29) at nu = 0", _e4, "<="),)),
    title=f"Lemma E.4 holds for every P_GD output in {{||theta|| <= S}} at Algorithm 1's lambdas (eps = 4, d = 3, "
          f"S = 3, s = T = {HORIZON}): the bound exceeds the domain's largest distance from theta*")
suite.lower_bound(f"shuffle-glm/corE.6@domain,S3,d3,T{HORIZON}", claim=LowerBound(
    E6_TEXT, {**_COMMON, "d": 3}, steps=(ProofStep(
        "2S ||x|| <= the bound's least", "2S <= sqrt(kappa) gamma(lambda) / sqrt(T + lambda_max) at nu = 0", _e6,
        "<="),)),
    title=f"Corollary E.6 holds for every warm-up estimate in {{||theta|| <= S}} and every x at Algorithm 1's lambdas "
          f"(eps = 4, d = 3, S = 3, T = {HORIZON})")
suite.lower_bound(f"shuffle-glm/lemK.1@domain,S3,d2,T{HORIZON}", claim=LowerBound(
    K1_TEXT, {**_COMMON, "d": 2, "zeta": ZETA}, steps=(ProofStep(
        "the domain's largest distance <= gamma(lambda_max)", "2S sqrt(lambda_max + T/4) <= (60) at nu_1 = 0", _k1,
        "<="),)),
    title=f"Lemma K.1 holds for every criterion-I estimate in {{||theta|| <= S}} at Algorithm 2's lambdas (eps = 4, "
          f"d = 2, S = 3, T = {HORIZON})")
E9_TEXT = ("Lemma E.9: every batch k >= 2, any x, w.p. > 1 - log log T/T^2: |<x, theta* - theta_k>| <= "
           "||x||_{H_k^-1} gamma(lambda_max, lambda_min)")
E7_TEXT = ("Lemma E.7: each batch k >= 2, w.p. >= 1 - 1/T^2: H_k <= H*_k and mu'(<x, theta_w>) <= beta(x) "
           "mu'(<x, theta*>)")
suite.lower_bound(f"shuffle-glm/lemE.9@domain,S3,d3,T{HORIZON}", claim=LowerBound(
    E9_TEXT, {**_COMMON, "d": 3}, steps=(ProofStep(
        "2S ||x|| <= the bound's least", "2S <= gamma(lambda_max, lambda_min) / sqrt(lambda_max + T/4) at nu = 0", _e9,
        "<="),)),
    title=f"Lemma E.9 holds for every batch-k estimate in {{||theta|| <= S}} and every x at Algorithm 1's lambdas "
          f"(eps = 4, d = 3, S = 3, T = {HORIZON}), whatever batch k >= 2 is reached")
suite.lower_bound(f"shuffle-glm/lemE.7@domain,S3,d3,T{HORIZON}", claim=LowerBound(
    E7_TEXT, {**_COMMON, "d": 3}, steps=(
        ProofStep("beta(x) = e^{2RS}", "gamma sqrt(kappa) / sqrt(T + lambda_max) >= 2S (gamma of (9))", _e7_width,
                  ">="),
        ProofStep("mu'(z_w) <= e^{R|z_w - z*|} mu'(z*)", "mu'(z_w) / (e^{R |z_w - z*|} mu'(z*)) <= 1 on z*, z_w in "
                  "[-S, S]", _e7_curvature, "<="))),
    title=f"Lemma E.7 holds for every warm-up estimate in {{||theta|| <= S}} at Algorithm 1's lambdas (eps = 4, d = 3, "
          f"S = 3, T = {HORIZON}): beta(x) reaches e^{{2RS}} and the link's curvature ratio stays within it")
