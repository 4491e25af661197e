"""shuffle-glm, the constants of the ECOLog baseline (Fig. 1(a)): :mod:`dpaudit.algorithms.glm.ecolog` takes them
from Faury, Abeille, Jun, Calauzenes 2022 (ada-OFU-ECOLog) and Faury et al. 2020's Theorem 1 (the paper's
Lemma J.2, the spec's X5). They are external to shuffle-glm: the paper only runs ECOLog as a baseline. What
the code uses, and what is checked here:

  - gamma_t(delta) = sqrt(lam)/2 + (2/sqrt(lam)) (log(1/delta) + (d/2) log(1 + n/(4 d lam)) + d log 2),
    n = t - 1 observations (:func:`~dpaudit.algorithms.glm.ecolog.confidence_gamma`): Lemma J.2's printed
    threshold sqrt(lam)/2 + (2/sqrt(lam)) log(det(H_t)^{1/2}/(lam^{d/2} delta)) + (2/sqrt(lam)) d log 2 with
    det(H_t) replaced by (lam + n/(4d))^d. That replacement is an upper bound whenever H_t = lam I +
    sum_s sigma_s^2 x_s x_s^T with sigma_s^2 <= 1/4 and ||x_s|| <= 1 (AM-GM on the eigenvalues: det <=
    (tr/d)^d <= (lam + n/(4d))^d), which ECOLog's W_t is (its weights are mu'(.) <= 1/4 for the logistic
    link), so the code's radius is never below the one the theorem prints.
    Encoded: ``shuffle-glm/lemJ.2@ecolog-gamma`` (lam in {1, 5, 20}, delta in {0.02, 1e-4}, d in {2, 5},
    n in {0, 1, 10, 10^3, 10^5}: the code's gamma equals the printed threshold at that determinant, to the
    auditor's rounding tolerance; the printed one is computed independently with mpmath) and
    ``shuffle-glm/lemJ.2@ecolog-det-bound`` (det W <= (lam + n/(4d))^d on 200 seeded random W of that form, d in
    {2, 5}, and on the W_t of one ECOLog run on Fig. 1(a)'s instance at every round).
  - The confidence set the constants are meant to give (Faury et al. 2022, the set of ada-OFU-ECOLog as
    their code base states it): w.p. >= 1 - delta, for every t, ||theta* - theta_t||^2_{W_t} <= sigma_t^2 =
    2 lam S^2 + (1 + S)^2 gamma_t(delta) + L_t. Encoded as a tail claim audited from simulation:
    ``shuffle-glm/fig1-tail@ecolog-coverage,d5,K20,S3.5,T200`` (the paper numbers no statement about
    ECOLog; Fig. 1(a) is where it runs): Y = max_{t <= T} ||theta* - theta_t||_{W_t}/sigma_t - 1 on Fig.
    1(a)'s configuration (logistic, d = 5, K = 20, ||theta*|| = S = 3.5, the paper's generator: theta*
    uniform on the sphere and fresh unit-ball arms per run), ECOLog with its defaults (lam = 5, delta =
    0.02), T = 200 rounds at every budget (a sample is a whole run: quick 2000 runs, standard 10^4, thorough
    4 10^4); P(Y >= 0) <= delta. Auditing the first T rounds only tests "for every t <= T", a consequence of
    the statement. Rounds where ECOLog's own condition mu'(<x, theta_bar>) <= 2 mu'(<x, theta>) fails are
    kept (the run goes on, as the algorithm does); their count is not part of the claim. Observed: the set
    is about twice as wide as needed (the ratio ||theta* - theta_t||_{W_t}/sigma_t is 0.469 at t = 1, where
    the 2 lam S^2 term alone covers ||theta*||^2_{lam I} = lam S^2, and at most 0.50 over 300 runs of 1000
    rounds, falling to about 0.3 by t = 1000), so no run leaves it. The audit's power: with the radius
    scaled by 0.4 every run leaves it and the same audit refutes (tests/test_ecolog.py).

Left out: ECOLog's regret bound (Faury et al. 2022's Theorem 2, O(d sqrt(T/kappa*) log T) with unprinted
constants, external to the paper, and ECOLog is only a baseline curve of Fig. 1(a)).
"""

from __future__ import annotations

import math
import warnings
from functools import partial

import mpmath
import numpy as np

from dpaudit import LowerBound, ProofStep, TailBound
from dpaudit.algorithms.environments import GLMBandit
from dpaudit.algorithms.glm.ecolog import ECOLog, confidence_excess, confidence_gamma

from ._suite import suite

#: where the constants come from (no footing: these entries expect no refutation, and FOOTINGS has no
#: "external" value); each title says it
EXTERNAL = "external to the paper: Faury et al. 2020/2022 as its ECOLog baseline uses them"

GAMMA_LAM = (1.0, 5.0, 20.0)
GAMMA_DELTA = (0.02, 1e-4)
GAMMA_D = (2, 5)
GAMMA_N = (0, 1, 10, 1000, 100_000)


def printed_gamma(lam: float, delta: float, d: int, log_det: float) -> float:
    """Lemma J.2's threshold sqrt(lam)/2 + (2/sqrt(lam)) log(det(H)^{1/2}/(lam^{d/2} delta)) + (2/sqrt(lam)) d log 2,
    given log det(H), in 40-digit arithmetic (mpmath), as printed."""
    with mpmath.workdps(40):
        lam_, delta_, log_det_ = mpmath.mpf(lam), mpmath.mpf(delta), mpmath.mpf(log_det)
        log_ratio = log_det_ / 2 - d * mpmath.log(lam_) / 2 - mpmath.log(delta_)
        root = mpmath.sqrt(lam_)
        return float(root / 2 + 2 / root * log_ratio + 2 / root * d * mpmath.log(2))


def _gamma_grid(p):
    lam, delta, d, n = (a.ravel() for a in np.meshgrid(p["lam"], p["delta"], p["d"], p["n"], indexing="ij"))
    code = np.array([confidence_gamma(float(a), float(b), int(c), int(e)) for a, b, c, e in zip(lam, delta, d, n)])
    with mpmath.workdps(40):
        log_det = [c * mpmath.log(mpmath.mpf(a) + mpmath.mpf(int(e)) / (4 * int(c))) for a, c, e in zip(lam, d, n)]
    printed = np.array([printed_gamma(float(a), float(b), int(c), ld) for a, b, c, ld in zip(lam, delta, d, log_det)])
    return code, printed, {"lam": lam, "delta": delta, "d": d, "n": n}


GAMMA_STEP = ProofStep("gamma_t(delta)", "the code's gamma_t(delta) = Lemma J.2's threshold at det(H_t) = "
                       "(lam + n/(4d))^d", _gamma_grid, "==")


def random_design_matrices(count: int, d: int, n: int, lam: float, seed: int) -> np.ndarray:
    """``count`` matrices lam I + sum_{s <= n} w_s x_s x_s^T with w_s uniform in [0, 1/4] and x_s uniform in the
    unit ball (half of them on the unit sphere, where the bound is closest to tight), seeded."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((count, n, d))
    radius = np.where(np.arange(count)[:, None] % 2 == 0, 1.0, rng.random((count, n)) ** (1 / d))
    x *= (radius / np.linalg.norm(x, axis=2))[:, :, None]
    w = rng.uniform(0, 0.25, size=(count, n))
    return lam * np.eye(d) + np.einsum("cn,cni,cnj->cij", w, x, x)


def ecolog_design_matrices(d: int, K: int, S: float, T: int, seed: int, lam: float = 5.0) -> np.ndarray:
    """The W_t after each of the T updates of one ECOLog run (the code's defaults) on the paper's logistic generator,
    seeded (W_1 = lam I meets the bound with equality, so it is left out)."""
    rng = np.random.default_rng(seed)
    instances = GLMBandit(K, d, S, "logistic").instances(1, rng)
    policy = ECOLog(S=S, lam=lam)
    policy.start(1, K, T, rng)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t in range(1, T + 1):
            contexts = instances.contexts(rng)
            played = policy.choose(t, contexts)
            policy.observe(t, played, instances.rewards(rng, contexts)[np.arange(1), played])
            out.append(policy.W[0].copy())
    return np.array(out)


def _det_bound(p):
    lhs, rhs, where_d, where_n = [], [], [], []
    for d in p["d"]:
        for n in p["n"]:
            W = random_design_matrices(p["count"], d, n, p["lam"], seed=1000 * d + n)
            lhs.append(np.linalg.slogdet(W)[1])
            rhs.append(np.full(p["count"], d * math.log(p["lam"] + n / (4 * d))))
            where_d.append(np.full(p["count"], d))
            where_n.append(np.full(p["count"], n))
        W = ecolog_design_matrices(d, 20, 3.5, p["T"], seed=d)
        n = np.arange(1, len(W) + 1)
        lhs.append(np.linalg.slogdet(W)[1])
        rhs.append(d * np.log(p["lam"] + n / (4 * d)))
        where_d.append(np.full(len(W), d))
        where_n.append(n)
    return (np.concatenate(lhs), np.concatenate(rhs),
            {"d": np.concatenate(where_d), "n": np.concatenate(where_n)})


DET_STEP = ProofStep("det bound", "log det(lam I + sum_{s <= n} w_s x_s x_s^T) <= d log(lam + n/(4d)) for w_s <= 1/4, "
                     "||x_s|| <= 1", _det_bound, "<=")

suite.lower_bound("shuffle-glm/lemJ.2@ecolog-gamma", claim=LowerBound(
    "ECOLog's gamma_t(delta) (Faury et al. 2020 Thm 1 as shuffle-glm's Lemma J.2 prints it): sqrt(lam)/2 + "
    "(2/sqrt(lam)) log(det(H_t)^{1/2}/(lam^{d/2} delta)) + (2/sqrt(lam)) d log 2 at det(H_t) = (lam + n/(4d))^d",
    {"lam": GAMMA_LAM, "delta": GAMMA_DELTA, "d": GAMMA_D, "n": GAMMA_N}, steps=(GAMMA_STEP,)),
    title="ECOLog's confidence constant gamma_t(delta) against Lemma J.2's printed threshold (lam 1, 5, 20; delta "
          f"0.02, 1e-4; d 2, 5; n 0 to 10^5), exact arithmetic; {EXTERNAL}")
suite.lower_bound("shuffle-glm/lemJ.2@ecolog-det-bound", claim=LowerBound(
    "ECOLog's determinant bound det(W_t) <= (lam + n/(4d))^d (n = t - 1; weights mu'(.) <= 1/4, arms in the unit "
    "ball), which makes its gamma_t(delta) an upper bound on Lemma J.2's", {"d": (2, 5), "n": (1, 10, 100),
                                                                             "count": 200, "lam": 5.0, "T": 200},
    steps=(DET_STEP,)),
    title="det(W) <= (lam + n/(4d))^d on 200 seeded random design matrices per (d, n), d 2, 5, n 1, 10, 100, and on "
          f"one ECOLog run's W_t (Fig. 1(a)'s instance, 200 rounds), lam = 5; {EXTERNAL}")


# -- the confidence set's coverage, from simulation ---------------------------------------------------------------
COVERAGE = {"d": 5, "K": 20, "S": 3.5, "delta": 0.02, "lam": 5.0}


def coverage_sampler(budget_T: int, scale: float = 1.0):
    return partial(confidence_excess, T=budget_T, scale=scale, **COVERAGE)


def at_most(p):
    """TailBound for "P(Y >= 0) <= p" as P(Y >= t) <= p for every t > 0 (Y continuous)."""
    return lambda t: np.full(np.shape(t), p)


# the sampler draws whole runs, so the budget's samples are runs of T rounds; the entry is at the quick horizon
# (T = 200) at every budget, with more runs as the budget grows
COVERAGE_T = 200
suite.tail(f"shuffle-glm/fig1-tail@ecolog-coverage,d5,K20,S3.5,T{COVERAGE_T}", auditor="statistical",
           subject=coverage_sampler(COVERAGE_T),
           claim=TailBound(at_most(COVERAGE["delta"]), f"delta = {COVERAGE['delta']:g}", two_sided=False),
           samples={"quick": 2_000, "standard": 10_000, "thorough": 40_000},
           title="ECOLog's confidence set covers theta* at every round t <= 200 w.p. >= 1 - delta (Y = max_t "
                 "||theta* - theta_t||_{W_t}/sigma_t - 1 >= 0 w.p. <= 0.02; logistic, d = 5, K = 20, S = 3.5, "
                 f"lam = 5); {EXTERNAL}")
