"""Privacy accounting the papers' calibrations rest on: advanced composition, both ways.

Dwork, Rothblum and Vadhan's advanced composition (Dwork & Roth 2014, Theorem 3.20): k mechanisms,
each (eps0, delta0)-DP, compose to (sqrt(2 k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1), k delta0 + delta')
for any delta' > 0. :func:`advanced_composition` gives the total from the parts (shuffle-glm's
Lemma T.2 accounting for P_GD); :func:`advanced_composition_budget` the parts from the total
(concurrent-shuffle's footnotes 9-10, which split a budget over k mechanisms); :func:`quoted_advanced_composition`
the parts by the simpler form dist-mab's Theorem 7 and shuffle-lcb's Theorem E.2 quote.
"""

from __future__ import annotations

import math

from dpaudit.core.validation import integer, positive, probability


def advanced_composition(k: int, eps0: float, delta0: float, delta_prime: float) -> tuple[float, float]:
    """(eps, delta) of k mechanisms each (eps0, delta0)-DP: (sqrt(2 k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1),
    k delta0 + delta')."""
    return (math.sqrt(2 * k * math.log(1 / delta_prime)) * eps0 + k * eps0 * math.expm1(eps0), k * delta0 + delta_prime)


def quoted_advanced_composition(eps_total: float, k: int, delta_prime: float) -> float:
    """eps0 = eps' / (2 sqrt(2 k ln(1/delta'))): the per-mechanism epsilon that, as dist-mab's Theorem 7 (its formula
    reconstructed from App. I) and shuffle-lcb's Theorem E.2 quote advanced composition, makes k (eps0, delta0)-DP
    mechanisms (eps', k delta0 + delta')-DP."""
    return eps_total / (2 * math.sqrt(2 * k * math.log(1 / delta_prime)))


def advanced_composition_budget(epsilon: float, delta: float, k: int, slack: float) -> tuple[float, float]:
    """(eps0, delta0) with eps0 sqrt(2 k ln(1/slack)) + k eps0 (e^eps0 - 1) = eps and k delta0 + slack = delta:
    the inverse of :func:`advanced_composition` at delta' = ``slack`` (eps0 by bisection, rounded down, so
    the parts never compose to more than the total)."""
    owner = "advanced_composition_budget"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = probability(owner, "delta", delta)
    k = integer(owner, "k", k, 1)
    slack = probability(owner, "slack", slack)
    if not slack < delta:
        raise ValueError(f"{owner}: slack (delta') must be < delta = {delta!r}, got {slack!r}")

    def total(e0: float) -> float:
        return advanced_composition(k, e0, 0.0, slack)[0]

    lo, hi = 0.0, epsilon  # total(epsilon) >= epsilon sqrt(2 ln(1/slack)) > epsilon
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if total(mid) <= epsilon else (lo, mid)
    return lo, (delta - slack) / k


__all__ = ["advanced_composition", "advanced_composition_budget"]
