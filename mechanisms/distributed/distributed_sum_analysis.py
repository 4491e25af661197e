"""dist-mab's analysis of the distributed sum (Chowdhury & Zhou, Distributed Differential Privacy in
Multi-Armed Bandits, ICLR 2023): the exact laws of the protocol's errors and the paper's privacy
formulas, beside the protocol (:mod:`dpaudit.mechanisms.distributed.distributed_sum`) they describe.

Exact laws (integer laws in units of 1/g):
  - :func:`rounding_sum`: the randomized-rounding sum sum_i x_hat_i (App. D.1);
  - :func:`protocol_error`: g n_a(b), the analyzer's error A(y_hat) - sum x of Theorem 1's protocol
    (rounding plus Lap_Z(g/eps), reduced mod m and corrected), the subject of Assumption 1;
  - :func:`analyzer_error`: g (A(y_hat) - (1/g) sum x_hat) given the rounded sum (App. D.1, cases 1-2).

Privacy formulas, as printed:
  - :func:`theorem2_epsilon`: Theorem 2's eps(alpha) and App. E.2's per-batch eps_n(alpha) (RDP, Skellam shares);
  - :func:`lemma3_epsilon`: Lemma 3 (Agarwal et al. 2021), Skellam noise on an integer query;
  - :func:`xi_lemma4`, :func:`lemma4_epsilon`: Lemma 4 (Kairouz et al. 2021), sums of discrete Gaussians;
  - :func:`xi_theorem4`, :func:`theorem4_epsilon_hat`: Theorem 4's xi and eps_hat as printed (s and T/2
    where Lemma 4 has sigma and n).
:data:`RDP_ORDERS` are the integer Renyi orders (Theorem 2 and Lemma 3 hold for integer alpha >= 2) at
which these curves are evaluated. :func:`theorem1` is Theorem 1's protocol at the paper's horizon
T = 10^6 and batch size n = 1024.
"""

from __future__ import annotations

import math

import numpy as np

from ..noise import Binomial, DiscreteLaplace, FiniteIntegerLaw, ModularReduction, RandomizedRounding, convolve
from .distributed_sum import DistributedSum

#: the paper's horizon T and batch size n = l(b) at its parameter points (log(2T) = 14.51)
T = 10**6
N_BATCH = 1024
#: integer Renyi orders at which the RDP curves are evaluated
RDP_ORDERS = (2.0, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0)


def theorem1(eps: float) -> DistributedSum:
    """Theorem 1's protocol at n = 1024, T = 10^6 (its g, tau and m as the theorem prints them)."""
    return DistributedSum("polya", eps, N_BATCH, T)


# -- exact laws of the protocol's errors ------------------------------------------------------------


def rounding_sum(n: int, g: int, fractions: np.ndarray) -> FiniteIntegerLaw:
    """The exact law of sum_i x_hat_i for inputs x_i = f_i / g (one two-point law each)."""
    return RandomizedRounding(g).sum_law(np.asarray(fractions) / g)


def protocol_error(eps: float) -> FiniteIntegerLaw:
    """The exact law of g n_a(b) = corrected(S_tot mod m) - g sum x for Theorem 1's protocol, with
    every x_i g having fraction 1/2 (x_i g = 1/2: the largest rounding variance; g sum x = n/2)."""
    protocol = theorem1(eps)
    n, g, tau, m = protocol.n, protocol.g, protocol.tau, protocol.m
    rounded = Binomial(n, 0.5)  # sum of n x_hat_i in {0, 1}, each 1 with probability 1/2
    total = convolve(rounded, protocol.total_noise())
    corrected = ModularReduction(m).corrected(total, n * g + tau)
    return FiniteIntegerLaw(corrected.offset - n // 2, corrected.probs, corrected.tail_mass,
                            corrected.log_error, name=f"g n_a(b), Theorem 1, eps = {eps:g}")


def analyzer_error(eps: float, rounded_total: int) -> FiniteIntegerLaw:
    """The exact law of g (A(y_hat) - (1/g) sum x_hat) = corrected((s + sum eta) mod m) - s for
    Theorem 1's protocol at n = 1024, given the rounded sum s = sum x_hat (the noise Lap_Z(g/eps))."""
    protocol = theorem1(eps)
    total = DiscreteLaplace(protocol.g / eps, loc=rounded_total)
    corrected = ModularReduction(protocol.m).corrected(total, protocol.n * protocol.g + protocol.tau)
    return FiniteIntegerLaw(corrected.offset - rounded_total, corrected.probs, corrected.tail_mass,
                            corrected.log_error, name=f"g x analyzer error, eps = {eps:g}, s = {rounded_total}")


# -- the paper's privacy formulas -------------------------------------------------------------------


def theorem2_epsilon(alpha: float, eps: float, s: float, n: int | None = None) -> float:
    """eps(alpha) of Theorem 2, or the per-batch eps_n(alpha) of App. E.2 when n is given."""
    if n is None:
        return alpha * eps**2 / 2 + min((2 * alpha - 1) * eps**2 / (4 * s**2) + 3 * eps / (2 * s**3),
                                        3 * eps**2 / (2 * s))
    return alpha * eps**2 / 2 + min((2 * alpha - 1) * eps**2 / (4 * s**2 * n) + 3 * eps / (2 * s**3 * n**1.5),
                                    3 * eps**2 / (2 * s * math.sqrt(n)))


def lemma3_epsilon(alpha: float, delta: int, variance: float) -> float:
    """Lemma 3 (Agarwal et al. 2021, Thm 3.5): alpha Delta^2/(2 sigma^2) + min{((2 alpha - 1) Delta^2 +
    6 Delta)/(4 sigma^4), 3 Delta/(2 sigma^2)}."""
    return (alpha * delta**2 / (2 * variance)
            + min(((2 * alpha - 1) * delta**2 + 6 * delta) / (4 * variance**2), 3 * delta / (2 * variance)))


def xi_lemma4(sigma: float, n: int) -> float:
    """Lemma 4's xi = 10 sum_{k=1}^{n-1} exp(-2 pi^2 sigma^2 k / (k + 1))."""
    k = np.arange(1, n)
    return float(10 * np.exp(-2 * math.pi**2 * sigma**2 * k / (k + 1)).sum())


def lemma4_epsilon(delta: int, sigma: float, n: int) -> float:
    """Lemma 4's eps = min{sqrt(Delta^2/(n sigma^2) + xi/2), Delta/(sqrt(n) sigma) + xi}."""
    xi = xi_lemma4(sigma, n)
    return min(math.sqrt(delta**2 / (n * sigma**2) + xi / 2), delta / (math.sqrt(n) * sigma) + xi)


def xi_theorem4(s: float, T: int) -> float:
    """Theorem 4's xi as printed: 10 sum_{k=1}^{T/2-1} exp(-2 pi^2 s^2 k / (k + 1)) (s and T/2 where
    Lemma 4 has sigma and n)."""
    k = np.arange(1, T // 2, dtype=float)
    return float(10 * np.exp(-2 * math.pi**2 * s**2 * k / (k + 1)).sum())


def theorem4_epsilon_hat(eps: float, s: float, T: int) -> float:
    """Theorem 4's bound eps_hat <= min{sqrt(eps^2 + xi/2), eps + xi}."""
    xi = xi_theorem4(s, T)
    return min(math.sqrt(eps**2 + xi / 2), eps + xi)


__all__ = [
    "N_BATCH", "RDP_ORDERS", "T", "analyzer_error", "lemma3_epsilon", "lemma4_epsilon", "protocol_error",
    "rounding_sum", "theorem1", "theorem2_epsilon", "theorem4_epsilon_hat", "xi_lemma4", "xi_theorem4",
]
