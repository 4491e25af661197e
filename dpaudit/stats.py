"""Small statistical building blocks shared by the auditors.

Clopper-Pearson bounds are the beta quantiles of the binomial test; they are computed with
:func:`scipy.special.betaincinv` and ``betainccinv`` (the same numbers as ``statsmodels``' ``proportion_confint(...,
method="beta")``, against which the tests check them) because importing statsmodels would add
over a second to every command-line start.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betainccinv, betaincinv


def binomial_lower(k, n, alpha: float):
    """One-sided Clopper-Pearson lower bound on a binomial proportion, valid with probability
    >= 1 - alpha. Vectorised over ``k`` and ``n``; 0 where ``k == 0``."""
    k, n = np.asarray(k), np.asarray(n)
    with np.errstate(invalid="ignore"):
        lo = betaincinv(k, n - k + 1, alpha)
    return np.where(k == 0, 0.0, lo)


def binomial_upper(k, n, alpha: float):
    """One-sided Clopper-Pearson upper bound on a binomial proportion, valid with probability
    >= 1 - alpha. Vectorised; 1 where ``k == n``."""
    k, n = np.asarray(k), np.asarray(n)
    with np.errstate(invalid="ignore"):
        hi = betainccinv(k + 1, n - k, alpha)  # complement form: no rounding of 1 - alpha
    return np.where(k == n, 1.0, hi)


def bonferroni(alpha: float, m: int) -> float:
    """Per-test level so that ``m`` tests have family-wise error at most ``alpha``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return alpha / max(int(m), 1)
