"""shuffle-glm, tail and concentration claims of the appendices that are about a noise or a sum of
independent variables with explicit constants.

Laws with closed forms are audited exactly (binomial sums, chi-square, Gaussian sums); the
random-matrix norm claims are audited from samples of the matrices (their laws have no closed
form), with the confidence of the run.

Encoded (id -> statement, parameter points):
  - lemE.2 (Bernstein): independent X_t with |X_t - E X_t| <= b, S their centred sum, v the sum of
    variances: P(S >= sqrt(2 v log(1/delta)) + (2b/3) log(1/delta)) <= delta; for n Bernoulli(q)
    variables, (q, n) in {(0.1, 100), (0.1, 10^4), (0.5, 100)} (b = max(q, 1 - q)).
  - lemE.3 (28): X_i zero-mean i.i.d. sigma^2-sub-Gaussian, n > 64 log(2/delta):
    P(sum_i (X_i^2 - E X_i^2) > sqrt(8 sigma^4 log(2/delta) / n)) <= delta; X_i ~ N(0, 1), n = 192 and
    1000 (for every delta the condition on n admits). Expected refuted: the sum has standard
    deviation sigma^2 sqrt(2n) while the threshold shrinks like 1/sqrt(n), so the probability is
    about 1/2; read with the mean (1/n) sum in place of the sum, the inequality holds.
  - lemP.1-tail (inside Lemma P.1's privacy proof): the privacy-loss ratio, a sum over at most
    log T affected tree nodes of (1/(2 sigma^2))(2x/kappa + 1/kappa^2), x ~ N(0, sigma^2), is at most
    log T / (sigma^2 kappa^2) + sqrt(2 log(4/delta)) / (2 kappa sigma) w.p. >= 1 - delta/6; at
    sigma = sigma_noise of Algorithm 2 (sigma^2 = 36 m log^2(32/delta) / (kappa^2 eps^2),
    m = ceil(log2 T + 1)) for the Table 2 instance (T = 5000, delta = 0.02, kappa = 2.507, eps = 4)
    and for T = 10^6, delta = 1e-5, kappa = 1, eps = 1; floor(log2 T) nodes. Expected refuted: the
    sum's standard deviation is sqrt(log T) / (sigma kappa) but the bound's Gaussian term has no
    sqrt(log T) (probability about 0.3 against delta/6). The lemma's privacy conclusion survives
    with the chosen sigma_noise (it is a separate, privacy claim).
  - claimsecI.1b: Z symmetric with N(0, 1) entries: P[||Z|| > 4 sqrt d + 2 ln(2T/alpha)] < alpha/(2T);
    for every alpha (as a tail bound in q = alpha/(2T)), d = 5 and 20; from samples.
  - claimobs1: N_k - lambda I symmetric with sigma~^2-sub-Gaussian entries: w.p. >= 1 - 1/T^6,
    ||N_k - lambda I|| < sigma~ (sqrt d + 6 sqrt(log(2 d M T / delta))); Gaussian entries (sigma~ = 1),
    T = 10^4, M = 4, delta = 0.01, d = 50 and d = 1000; from samples. Expected refuted at d = 1000:
    the norm of a d x d symmetric Gaussian matrix concentrates at 2 sqrt d (the semicircle edge),
    above sqrt d + 6 sqrt(log(...)) once d is larger than about 36 log(2 d M T / delta).
  - lemH.2 (matrix Chernoff, as printed): x_i ~ A with ||x_i|| < 1:
    P[3 eps n I + sum_i x_i x_i^T <= (n/8) E x x^T] <= 2 d exp(-eps n / 8); A uniform on the unit
    sphere in d = 3, n = 500, eps = 0.1 (where the bound is below 1); from samples of the smallest
    eigenvalue of the difference.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
from scipy import stats

from dpaudit import TailBound
from dpaudit.mechanisms import noise
from dpaudit.mechanisms.glm.exploration_set import (
    node_noise_sigma,
    symmetric_gaussian_norms,
)
from dpaudit.mechanisms.shuffle.vector_summation import (
    chernoff_gap,
)

from ._suite import suite


def at_most(p):
    """TailBound for "P(Y >= 0) <= p" as P(Y >= t) <= p for every t > 0 (Y continuous)."""
    return lambda t: np.full(np.shape(t), p)


def bernstein(delta, v: float, b: float):
    log_term = np.log(1 / np.asarray(delta, dtype=float))
    return np.sqrt(2 * v * log_term) + 2 * b / 3 * log_term


for q, n in [(0.1, 100), (0.1, 10_000), (0.5, 100)]:
    suite.tail(f"shuffle-glm/lemE.2@q{q:g},n{n}", subject=noise.Binomial(n, q), auditor="exact",
               claim=TailBound.high_probability(partial(bernstein, v=n * q * (1 - q), b=max(q, 1 - q)),
                                                "sqrt(2 v log(1/delta)) + (2b/3) log(1/delta)", two_sided=False,
                                                centred=True),
               title=f"Bernstein for {n} Bernoulli({q:g}) variables")


def squares_threshold(delta, n: int, sigma: float = 1.0):
    """(28)'s threshold, for the delta its condition n > 64 log(2/delta) admits (inf elsewhere)."""
    delta = np.asarray(delta, dtype=float)
    admitted = n > 64 * np.log(2 / delta)
    return np.where(admitted, np.sqrt(8 * sigma**4 * np.log(2 / delta) / n), np.inf)


for n in (192, 1000):
    suite.tail(f"shuffle-glm/lemE.3@n{n}", subject=stats.chi2(n, loc=-n), auditor="exact",
               claim=TailBound.high_probability(partial(squares_threshold, n=n), "sqrt(8 sigma^4 log(2/delta) / n)",
                                                two_sided=False),
               expected="refuted", footing="as printed",
               reason="the sum of n centred squares has sd sigma^2 sqrt(2n) but the threshold shrinks like 1/sqrt(n); "
                      "it holds for the mean, not the sum as printed",
               title=f"sum of {n} centred squares of N(0, 1) (eq. 28)")


for T, delta, kappa, eps in [(5000, 0.02, 2.507, 4.0), (10**6, 1e-5, 1.0, 1.0)]:
    sigma = node_noise_sigma(T, eps, delta, kappa)
    nodes = math.floor(math.log2(T))
    mean, sd = nodes / (2 * sigma**2 * kappa**2), math.sqrt(nodes) / (sigma * kappa)
    threshold = math.log2(T) / (sigma**2 * kappa**2) + math.sqrt(2 * math.log(4 / delta)) / (2 * kappa * sigma)
    suite.tail(f"shuffle-glm/lemP.1-tail@T{T},delta{delta:g}", auditor="exact",
               subject=stats.norm(mean - threshold, sd),
               claim=TailBound(at_most(delta / 6), f"delta / 6 = {delta / 6:.4g}", two_sided=False),
               expected="refuted", footing="as printed",
               reason="the Gaussian part of the sum has sd sqrt(log T)/(sigma kappa); the printed bound's Gaussian "
                      "term lacks the sqrt(log T), so the ratio exceeds it with probability ~0.3",
               title=f"privacy-loss ratio minus the printed bound (T = {T}, delta = {delta:g}, sigma = {sigma:.4g}) "
                     "is positive w.p. <= delta/6")


for d in (5, 20):
    suite.tail(f"shuffle-glm/claimsecI.1b@d{d}", subject=partial(symmetric_gaussian_norms, d=d), auditor="statistical",
               claim=TailBound.high_probability(partial(lambda q, d: 4 * math.sqrt(d) + 2 * np.log(1 / np.asarray(q)),
                                                        d=d),
                                                "4 sqrt d + 2 ln(2T/alpha) at q = alpha/(2T)", two_sided=False),
               samples={"quick": 100_000, "standard": 1_000_000, "thorough": 10_000_000},
               title=f"norm of a {d} x {d} symmetric N(0, 1) matrix")

T_OBS, M_OBS, DELTA_OBS = 10**4, 4, 0.01
for d, samples, expected, reason in [
    (50, {"quick": 2_000, "standard": 20_000, "thorough": 200_000}, "not-refuted", None),
    (1000, {"quick": 30, "standard": 100, "thorough": 400}, "refuted",
     ("the norm concentrates at 2 sqrt d (semicircle edge), above sqrt d + 6 sqrt(log(2dMT/delta)) for "
      "d > ~36 log(...): the printed coefficient of sqrt d is 1, about 2 is needed")),
]:
    edge = math.sqrt(d) + 6 * math.sqrt(math.log(2 * d * M_OBS * T_OBS / DELTA_OBS))
    bound = partial(lambda t, edge: np.where(np.asarray(t) >= edge, T_OBS ** -6.0, 1.0), edge=edge)
    suite.tail(f"shuffle-glm/claimobs1@d{d}", subject=partial(symmetric_gaussian_norms, d=d), auditor="statistical",
               claim=TailBound(bound, f"1/T^6 beyond sqrt d + 6 sqrt(log(2dMT/delta)) = {edge:.4g}", two_sided=False),
               samples=samples, expected=expected, reason=reason,
               footing="as printed" if expected == "refuted" else None,
               title=f"extreme eigenvalues of a {d} x {d} symmetric noise matrix (T = 10^4, M = 4, delta = 0.01)")


_D_H, _N_H, _EPS_H = 3, 500, 0.1
suite.tail("shuffle-glm/lemH.2@d3,n500,eps0.1", auditor="statistical",
           subject=partial(chernoff_gap, d=_D_H, n=_N_H, eps=_EPS_H),
           claim=TailBound(at_most(2 * _D_H * math.exp(-_EPS_H * _N_H / 8)),
                           f"2 d exp(-eps n / 8) = {2 * _D_H * math.exp(-_EPS_H * _N_H / 8):.4g}", two_sided=False),
           samples={"quick": 20_000, "standard": 200_000, "thorough": 2_000_000},
           title="matrix Chernoff as printed: P[3 eps n I + sum x x^T <= (n/8) E x x^T] <= 2d exp(-eps n/8)")
