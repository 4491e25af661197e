"""Finite output distributions from rigorous enclosures of their probabilities.

The mechanisms with finite outputs compute every probability (or log-probability) as an interval
that certainly contains it: exact rational arithmetic, or mpmath interval arithmetic. This module
turns such enclosures into a :class:`dpaudit.core.distributions.FiniteDistribution` whose ``log_error`` is a
true bound on the distance between each stored float log-probability and the exact one (the
enclosure's width plus the rounding to a float), so an exact auditor can widen by it and stay
rigorous.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, interval_bounds

from .piecewise import interval_context

LOG_BITS = 192
# Added to every error bound: covers the conversion of the bound itself to a float.
FLOOR = 1e-300


def from_log_enclosures(outcomes: Any,
                        log_enclosures: Sequence[tuple[Fraction, Fraction] | None]) -> FiniteDistribution:
    """A FiniteDistribution from enclosures [lo, hi] of the natural-log probabilities
    (``None`` marks an outcome of probability exactly zero)."""
    log_probs = np.empty(len(log_enclosures))
    error = Fraction(0)
    for i, enc in enumerate(log_enclosures):
        if enc is None:
            log_probs[i] = -math.inf
            continue
        lo, hi = enc
        value = float((lo + hi) / 2)
        log_probs[i] = min(value, 0.0)  # a log-probability is <= 0 (the enclosure may poke above)
        x = Fraction(log_probs[i])
        error = max(error, x - lo, hi - x)
    return FiniteDistribution(outcomes, log_probs, log_error=_round_up(error))


def from_enclosures(outcomes: Any, enclosures: Sequence[tuple[Fraction, Fraction]]) -> FiniteDistribution:
    """A FiniteDistribution from enclosures [lo, hi] of the probabilities themselves; ``(0, 0)``
    marks an outcome of probability exactly zero."""
    log_enclosures: list[tuple[Fraction, Fraction] | None] = []
    for lo, hi in enclosures:
        if hi == 0:
            log_enclosures.append(None)
            continue
        if not 0 < lo <= hi:
            raise ArithmeticError(f"a probability enclosure [{float(lo)}, {float(hi)}] does not separate it from zero")
        ctx = interval_context(LOG_BITS)
        log_lo, _ = interval_bounds(ctx.log(ctx.mpf(lo.numerator) / ctx.mpf(lo.denominator)))
        _, log_hi = interval_bounds(ctx.log(ctx.mpf(hi.numerator) / ctx.mpf(hi.denominator)))
        log_enclosures.append((log_lo, log_hi))
    return from_log_enclosures(outcomes, log_enclosures)


def _round_up(x: Fraction) -> float:
    f = float(x)
    if Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    return f + FLOOR


__all__ = ["from_enclosures", "from_log_enclosures"]
