"""Randomized response: Warner (1965) in its epsilon-LDP form, and its k-ary generalisation
(Kairouz, Oh & Viswanath 2014/2016, "k-RR"; Wang, Blocki, Li & Jha 2017, "generalized randomized
response", GRR).

These are local randomizers: the input (``data``) is one user's value, given as a one-record
dataset ``[x]`` (or the bare value x). Neighbouring relation: the user's value replaced by any
other (``ReplaceOne`` on the one-record dataset), i.e. local differential privacy. Output: the
reported value, an integer, shape (size,).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, interval_bounds
from dpaudit.core.validation import choice, integer, positive

from ..base import ExactRelease
from ..enclosures import from_log_enclosures
from ..piecewise import interval_context

CALIBRATIONS = ("k-ary", "binary")


def _user_value(owner: str, data: Any, k: int) -> int:
    arr = np.asarray(data)
    if arr.ndim == 1 and arr.size == 1:
        arr = arr[0]
    if arr.ndim != 0 or arr.dtype.kind not in "biuf" or float(arr) != round(float(arr)):
        raise ValueError(f"{owner}: data must be one user's value (an integer, or a one-record dataset [x]), "
                         f"got {data!r}")
    x = round(float(arr))
    if not 0 <= x < k:
        raise ValueError(f"{owner}: the user's value must be in 0..{k - 1}, got {x}")
    return x


class KaryRandomizedResponse(ExactRelease):
    """k-ary randomized response: report the true value x in {0..k-1} with probability
    keep = e^epsilon / (e^epsilon + k - 1), else one of the k - 1 other values uniformly, each with
    probability 1 / (e^epsilon + k - 1).

    ``calibration="binary"`` builds a classic bug: the keep probability of *binary* randomized
    response, e^epsilon / (e^epsilon + 1), with the rest spread uniformly over the k - 1 other values.

    **True epsilon, derived.** Outputs are finite, so epsilon = max over outputs y and inputs x, x' of
    log P[y | x] / P[y | x']; the largest ratio is keep / other (y = x against y != x').
    k-ary: (e^epsilon / (e^epsilon + k - 1)) / (1 / (e^epsilon + k - 1)) = e^epsilon, so **exactly epsilon**
    (attained). Binary calibration: other = 1 / ((e^epsilon + 1)(k - 1)), so the ratio is
    e^epsilon (k - 1): **epsilon + ln(k - 1)** (for k = 2 both coincide with binary RR).

    Sampling: keep with probability ``keep`` (one uniform per sample), else r uniform in {0..k-2}
    and report r + [r >= x] (uniform over the other values). Exact distribution: log-probabilities
    enclosed with 192-bit interval arithmetic.
    """

    paper = "Kairouz, Oh & Viswanath 2016"
    source = "k-ary randomized response (k-RR; generalized randomized response, Wang et al. 2017)"

    def __init__(self, epsilon: float, k: int, calibration: str = "k-ary"):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.k = integer(self.owner, "k", k, 2)
        self.calibration = choice(self.owner, "calibration", calibration, CALIBRATIONS)
        bug = "" if self.calibration == "k-ary" else ", binary keep probability"
        self.name = f"KaryRandomizedResponse(eps={self.epsilon:g}, k={self.k}{bug})"

    @property
    def true_epsilon(self) -> float:
        return self.epsilon + (np.log(self.k - 1) if self.calibration == "binary" else 0.0)

    def _log_keep_other(self):
        """Interval enclosures of log P[keep] and log P[a given other value]."""
        ctx = interval_context(192)
        e = Fraction(self.epsilon)
        eps = ctx.mpf(e.numerator) / ctx.mpf(e.denominator)
        if self.calibration == "k-ary":
            log_norm = ctx.log(ctx.exp(eps) + (self.k - 1))
            return eps - log_norm, -log_norm
        log_norm = ctx.log(ctx.exp(eps) + 1)
        return eps - log_norm, -log_norm - ctx.log(ctx.mpf(self.k - 1))

    @property
    def keep_probability(self) -> float:
        e = np.exp(self.epsilon)
        return float(e / (e + self.k - 1)) if self.calibration == "k-ary" else float(e / (e + 1))

    def _input(self, data: Any) -> int:
        return _user_value(self.owner, data, self.k)

    def _sample(self, x: int, size: int, rng: np.random.Generator) -> np.ndarray:
        keep = rng.random(size) < self.keep_probability
        other = rng.integers(0, self.k - 1, size)
        other = other + (other >= x)
        return np.where(keep, x, other).astype(np.int64)

    def _distribution(self, x: int) -> FiniteDistribution:
        log_keep, log_other = (interval_bounds(v) for v in self._log_keep_other())
        return from_log_enclosures(np.arange(self.k), [log_keep if y == x else log_other for y in range(self.k)])


class RandomizedResponse(KaryRandomizedResponse):
    """Binary randomized response (Warner 1965; Dwork & Roth 2014, Section 3.2 with the coin biased
    for epsilon): report the true bit with probability e^epsilon / (1 + e^epsilon), else its flip.

    **True epsilon: exactly epsilon**: the likelihood ratio of any report between the two inputs is
    (e^epsilon/(1 + e^epsilon)) / (1/(1 + e^epsilon)) = e^epsilon or its inverse.
    """

    paper = "Warner 1965"
    source = "randomized response with the coin biased for epsilon (Dwork & Roth 2014, Section 3.2)"

    def __init__(self, epsilon: float):
        super().__init__(epsilon, 2)
        self.name = f"RandomizedResponse(eps={self.epsilon:g})"


__all__ = ["KaryRandomizedResponse", "RandomizedResponse"]
