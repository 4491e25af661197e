"""Closed forms for pairs of Gaussian output distributions.

For N(m0, s^2) against N(m1, s^2) with mu = |m0 - m1| / s (for independent coordinates,
mu = sqrt(sum_i (d_i / s_i)^2)), the privacy loss is itself Gaussian, and

    delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)      (Balle & Wang 2018, Thm. 8),
    D_alpha    = alpha mu^2 / 2,        rho = mu^2 / 2,        pure epsilon = inf (mu > 0).

With different variances, D_alpha (Gil, Alajaji & Linder 2013) is

    log(s1/s0) + log(s1^2 / s_a^2) / (2 (alpha - 1)) + alpha d^2 / (2 s_a^2),
    s_a^2 = alpha s1^2 + (1 - alpha) s0^2    (infinite when s_a^2 <= 0).

Rational results (D_alpha and rho for equal variances) are exact; the others are evaluated with
mpmath at 256 bits and widened by 2^-200 relative (plus e^eps 2^-200 for delta, whose two terms
may cancel), far beyond the error of the few operations involved.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from mpmath import libmp
from mpmath.ctx_mp import MPContext

from ..core.distributions import GaussianDistribution, exact
from .enclosure import Enclosure
from .loss import LossRange

SLACK = Fraction(1, 2**200)


def _mp() -> MPContext:
    """A private 256-bit mpmath context (leaves mpmath's global precision alone)."""
    ctx = MPContext()
    ctx.prec = 256
    return ctx


def _fraction(x: mpmath.mpf) -> Fraction:
    return Fraction(*libmp.to_rational(x._mpf_))


def same_variance(p: GaussianDistribution, q: GaussianDistribution) -> bool:
    return exact(p.sigma) == exact(q.sigma)


def mu_squared(p: GaussianDistribution, q: GaussianDistribution) -> Fraction:
    """(d / s)^2 for equal variances, exactly."""
    return ((exact(p.mean) - exact(q.mean)) / exact(p.sigma)) ** 2


def loss_range(p: GaussianDistribution, q: GaussianDistribution) -> LossRange:
    if p == q or (same_variance(p, q) and exact(p.mean) == exact(q.mean)):
        return LossRange(Enclosure.point(0), Enclosure.point(0), None, None)
    # a linear (or quadratic) loss in x: unbounded in both directions
    return LossRange(Enclosure.point(math.inf), Enclosure.point(-math.inf), math.inf, -math.inf)


def delta_from_mu_squared(mu2: Fraction, eps: float) -> Enclosure:
    """Balle-Wang delta(eps) for the Gaussian loss with parameter mu^2 (both directions agree)."""
    if mu2 == 0:
        return Enclosure.point(0)
    ctx = _mp()
    mu = ctx.sqrt(ctx.mpf(mu2.numerator) / mu2.denominator)
    e = ctx.mpf(Fraction(eps).numerator) / Fraction(eps).denominator
    value = ctx.ncdf(mu / 2 - e / mu) - ctx.exp(e) * ctx.ncdf(-mu / 2 - e / mu)
    v = _fraction(value)
    slack = SLACK * (1 + abs(v)) + SLACK * Fraction(math.exp(min(eps, 700)))
    return Enclosure(max(v - slack, 0), min(v + slack, 1))


def renyi(p: GaussianDistribution, q: GaussianDistribution, alpha: float) -> Enclosure:
    if math.isinf(alpha):
        return Enclosure.point(0 if loss_range(p, q).sup.hi == 0 else math.inf)
    a = Fraction(alpha)
    if same_variance(p, q):
        return Enclosure.point(a * mu_squared(p, q) / 2)
    s0, s1, d = exact(p.sigma), exact(q.sigma), exact(p.mean) - exact(q.mean)
    sa2 = a * s1**2 + (1 - a) * s0**2
    if sa2 <= 0:
        return Enclosure.point(math.inf)
    ctx = _mp()
    f = lambda x: ctx.mpf(x.numerator) / x.denominator  # noqa: E731
    value = (ctx.log(f(s1) / f(s0)) + ctx.log(f(s1**2) / f(sa2)) / (2 * (f(a) - 1)) + f(a) * f(d**2) / (2 * f(sa2)))
    v = _fraction(value)
    slack = SLACK * (1 + abs(v))
    return Enclosure(max(v - slack, 0), v + slack)
