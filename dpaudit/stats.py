"""Small statistical building blocks shared by the auditors."""

from __future__ import annotations

import numpy as np
from statsmodels.stats.proportion import proportion_confint


def binomial_lower(k, n, alpha: float):
    """One-sided Clopper-Pearson lower bound on a binomial proportion, valid with probability
    >= 1 - alpha. Vectorised over ``k`` and ``n``; 0 where ``k == 0``."""
    lo, _ = proportion_confint(np.asarray(k), np.asarray(n), alpha=2 * alpha, method="beta")
    return np.where(np.asarray(k) == 0, 0.0, np.nan_to_num(lo, nan=0.0))


def binomial_upper(k, n, alpha: float):
    """One-sided Clopper-Pearson upper bound on a binomial proportion, valid with probability
    >= 1 - alpha. Vectorised; 1 where ``k == n``."""
    _, hi = proportion_confint(np.asarray(k), np.asarray(n), alpha=2 * alpha, method="beta")
    return np.where(np.asarray(k) == np.asarray(n), 1.0, np.nan_to_num(hi, nan=1.0))


def bonferroni(alpha: float, m: int) -> float:
    """Per-test level so that ``m`` tests have family-wise error at most ``alpha``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return alpha / max(int(m), 1)
