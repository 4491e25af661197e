"""The Gaussian mechanism with the classic calibration, and its exact privacy curve.

Classic calibration (Dwork & Roth 2014, Theorem A.1): for epsilon in (0, 1) and
sigma >= Delta sqrt(2 ln(1.25/delta)) / epsilon, releasing q + N(0, sigma^2) for a query of l2
sensitivity Delta is (epsilon, delta)-DP. Balle & Wang, "Improving the Gaussian Mechanism for
Differential Privacy: Analytical Calibration and Optimal Denoising" (ICML 2018) show the formula
cannot be extended to large epsilon and give the exact curve (their Theorem 8):

    delta(epsilon) = Phi(Delta/(2 sigma) - epsilon sigma/Delta) - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta),

the smallest delta for which the mechanism is (epsilon, delta)-DP (:func:`analytic_gaussian_delta`).

:class:`ZCDPGaussianMechanism` calibrates the same noise for rho-zCDP instead (Bun & Steinke 2016).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from dpaudit.core.distributions import GaussianDistribution, ProductDistribution
from dpaudit.core.validation import choice, positive, probability

from ..base import ExactRelease


def classic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon (Dwork & Roth 2014, Theorem A.1)."""
    epsilon = positive("classic_sigma", "epsilon", epsilon)
    delta = probability("classic_sigma", "delta", delta)
    sensitivity = positive("classic_sigma", "sensitivity", sensitivity)
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def analytic_gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0, digits: int = 50) -> float:
    """The exact delta(epsilon) of N(0, sigma^2) noise on an l2-sensitivity-``sensitivity`` query
    (Balle & Wang 2018, Theorem 8), evaluated with mpmath at ``digits`` decimal digits (the two
    terms nearly cancel for large epsilon, so double precision would not do)."""
    epsilon = float(epsilon)
    if not epsilon >= 0:
        raise ValueError(f"analytic_gaussian_delta: epsilon must be >= 0, got {epsilon!r}")
    sigma = positive("analytic_gaussian_delta", "sigma", sigma)
    sensitivity = positive("analytic_gaussian_delta", "sensitivity", sensitivity)
    with mpmath.workdps(digits):
        s, d, e = mpmath.mpf(sigma), mpmath.mpf(sensitivity), mpmath.mpf(epsilon)

        def phi(x):
            return mpmath.erfc(-x / mpmath.sqrt(2)) / 2

        value = phi(d / (2 * s) - e * s / d) - mpmath.exp(e) * phi(-d / (2 * s) - e * s / d)
        return float(value)


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest sigma (to 1e-12 relative, rounded up) at which N(0, sigma^2) noise on an
    l2-sensitivity-``sensitivity`` query is (epsilon, delta)-DP by the exact curve of Balle & Wang
    (2018, Theorem 8; :func:`analytic_gaussian_delta`). delta(eps) is
    decreasing in sigma, so bisection on sigma; the upper end is returned, so the claim holds."""
    epsilon = positive("analytic_gaussian_sigma", "epsilon", epsilon)
    delta = probability("analytic_gaussian_sigma", "delta", delta)
    sensitivity = positive("analytic_gaussian_sigma", "sensitivity", sensitivity)

    def too_much(s: float) -> bool:
        return analytic_gaussian_delta(epsilon, s, 1.0) > delta  # in units of the sensitivity

    low, high = 1.0, 1.0
    while not too_much(low):
        low /= 2
    while too_much(high):
        high *= 2
    while high - low > 1e-12 * high:
        mid = (low + high) / 2
        low, high = (mid, high) if too_much(mid) else (low, mid)
    return high * sensitivity


class GaussianMechanism(ExactRelease):
    """M(q) = q + N(0, sigma^2) per coordinate with the classic sigma for the claimed (epsilon, delta).

    Input (``data``): the query answer (a number or a vector); neighbouring relation: answers
    within ``sensitivity`` (l2; for a scalar query ``QueryDistance(sensitivity)``). Output: shape
    (size,) for a scalar answer, (size, d) for a vector. The mechanism accepts any epsilon > 0:
    Theorem A.1 covers only epsilon < 1 (``in_theorem_range``), and entries audit it outside that
    range on purpose, as Balle & Wang do.

    **True privacy, derived (Balle & Wang 2018, Thm 8).** For neighbours at distance D <= Delta the
    privacy-loss random variable of N(q, sigma^2) against N(q', sigma^2) is Gaussian with mean
    D^2/(2 sigma^2) and variance D^2/sigma^2, and the hockey-stick divergence at epsilon is
    Phi(D/(2 sigma) - epsilon sigma/D) - e^epsilon Phi(-D/(2 sigma) - epsilon sigma/D), increasing in D,
    so the worst pair is at distance Delta and the exact delta(epsilon) is
    :func:`analytic_gaussian_delta`. Pure epsilon is infinite (the loss is unbounded in x). For
    Delta = 1, delta = 1e-5: epsilon = 0.5 gives sigma = 9.690 and delta(0.5) = 1.61e-8 (holds);
    epsilon = 5 gives sigma = 0.9690 and delta(5) = 1.35e-6 (still holds, outside the theorem's
    range); epsilon = 10 gives sigma = 0.4845 and delta(10) = 2.27e-5 > 1e-5: the claim fails.

    sigma is the float nearest to the formula; the exact distribution
    (:class:`~dpaudit.core.distributions.GaussianDistribution`) uses that same float, so the audited mechanism is
    exactly the one sampled.
    """

    paper = "Dwork & Roth 2014"
    source = "Theorem A.1 (the classic calibration); exact curve: Balle & Wang 2018, Theorem 8"

    def __init__(self, epsilon: float, delta: float, sensitivity: float = 1.0):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.delta = probability(self.owner, "delta", delta)
        self.sensitivity = positive(self.owner, "sensitivity", sensitivity)
        self.sigma = classic_sigma(self.epsilon, self.delta, self.sensitivity)
        self.name = f"GaussianMechanism(classic sigma for eps={self.epsilon:g}, delta={self.delta:g})"

    @property
    def in_theorem_range(self) -> bool:
        """Whether Dwork & Roth's Theorem A.1 applies (epsilon < 1)."""
        return self.epsilon < 1

    def true_delta(self, epsilon: float | None = None) -> float:
        """The exact delta at ``epsilon`` (default: the claimed epsilon)."""
        return analytic_gaussian_delta(self.epsilon if epsilon is None else epsilon, self.sigma, self.sensitivity)

    def _input(self, data: Any) -> np.ndarray:
        """The query answer, checked: a finite number or vector."""
        try:
            q = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{self.owner}: data must be a number or a vector of numbers, got {data!r}") from None
        if q.ndim > 1 or not np.isfinite(q).all():
            raise ValueError(f"{self.owner}: data must be a finite number or vector, got {data!r}")
        return q

    def _sample(self, q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return q + rng.normal(0.0, self.sigma, (size, *q.shape))

    def _distribution(self, q: np.ndarray) -> GaussianDistribution | ProductDistribution:
        if q.ndim == 0:
            return GaussianDistribution(float(q), self.sigma)
        return ProductDistribution(tuple(GaussianDistribution(float(v), self.sigma) for v in q))


class ZCDPGaussianMechanism(GaussianMechanism):
    """M(q) = q + N(0, sigma^2) per coordinate with sigma = Delta / sqrt(2 rho), the rho-zCDP
    calibration (Bun & Steinke, "Concentrated Differential Privacy", TCC 2016, Proposition 1.6).

    ``calibration="variance-as-sigma"`` builds a classic bug: the code computes the *variance*
    Delta^2 / (2 rho) and passes it where the standard deviation belongs. For rho < 1/2 (Delta = 1)
    that adds more noise than needed and is harmless; for rho > 1/2 it adds less.

    **True privacy, derived.** For N(q, sigma^2) against N(q', sigma^2) at l2 distance D,
    D_alpha = alpha D^2 / (2 sigma^2) for every alpha > 1 (Gil, Alajaji & Linder 2013; Bun & Steinke
    Lemma 2.4), largest at D = Delta, so the mechanism is exactly (Delta^2 / (2 sigma^2))-zCDP and
    (alpha, alpha Delta^2 / (2 sigma^2))-RDP at every order. Correct calibration: exactly rho. The
    bug: sigma = Delta^2 / (2 rho), so the true rho is 2 rho^2 / Delta^2; at rho = 2, Delta = 1 that is
    **8**, four times the claim.
    """

    paper = "Bun & Steinke 2016"
    source = "Proposition 1.6 (the Gaussian mechanism's rho-zCDP calibration)"

    def __init__(self, rho: float, sensitivity: float = 1.0, calibration: str = "correct"):
        self.rho = positive(self.owner, "rho", rho)
        self.sensitivity = positive(self.owner, "sensitivity", sensitivity)
        self.calibration = choice(self.owner, "calibration", calibration, ("correct", "variance-as-sigma"))
        variance = self.sensitivity**2 / (2 * self.rho)
        self.sigma = math.sqrt(variance) if self.calibration == "correct" else variance
        bug = "" if self.calibration == "correct" else ", variance used as sigma"
        self.name = f"ZCDPGaussianMechanism(rho={self.rho:g}, sensitivity={self.sensitivity:g}{bug})"

    @property
    def true_rho(self) -> float:
        return self.sensitivity**2 / (2 * self.sigma**2)


__all__ = ["GaussianMechanism", "ZCDPGaussianMechanism", "analytic_gaussian_delta", "classic_sigma"]
