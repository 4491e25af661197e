"""Exact privacy quantities of a mechanism's output distributions, as rigorous enclosures.

For two output distributions P = M(d0) and Q = M(d1), each a scalar distribution or a
:class:`~dpaudit.core.distributions.ProductDistribution` of independent coordinates, this module computes:

- :func:`pure_epsilon`: sup |log P/Q| (both directions), with where it is attained;
- :func:`privacy_profile`: the hockey-stick divergence delta(eps) = sup_S P(S) - e^eps Q(S), and
  :func:`privacy_profile_curve` at many epsilons (a product's loss distribution built once for them all);
- :func:`renyi_divergence`: D_alpha(P || Q);
- :func:`zcdp_rho`: sup over alpha > 1 of D_alpha(P || Q) / alpha.

Every function returns :class:`~dpaudit.exact.enclosure.Enclosure` objects (lo <= true <= hi with
exact rational end points). Supported coordinate types: :class:`~dpaudit.core.distributions.FiniteDistribution`,
:class:`~dpaudit.core.distributions.GaussianDistribution`, log-piecewise-linear densities
(:class:`~dpaudit.core.distributions.LogLinearDistribution`, or anything with ``exact_distribution()``, such as
``dpaudit.mechanisms.Laplace``) and piecewise-exponential laws with atoms and periodic tails
(:class:`~dpaudit.core.piecewise_exponential.PiecewiseExponentialDistribution`: clamped and bounded-domain
Laplace noise, the staircase mechanism) and folded Laplace laws
(:class:`~dpaudit.core.folded_laplace.FoldedLaplaceDistribution`, :mod:`dpaudit.exact.folded`: pure epsilon and
delta(eps); Renyi divergences only at alpha = inf). Coordinates whose two distributions are identical contribute
nothing and are dropped first. Pure epsilon and Renyi divergences add over coordinates; delta of a
product is computed in closed form for Gaussians and through the privacy-loss distribution for
finite coordinates, alone or together with equal-variance Gaussians; other mixtures raise
:class:`~dpaudit.core.errors.UnsupportedAudit`. A pair of
:class:`~dpaudit.core.distributions.KeyedMixtureDistribution` (a finite first stage and, per block of its
outcomes, a conditional law of the rest: an adaptive mechanism's view) has its pure epsilon and delta(eps)
computed block by block (:mod:`dpaudit.exact.mixture`); its Renyi divergences raise UnsupportedAudit.

Imports only the vocabulary (:mod:`dpaudit.core`, :mod:`dpaudit.stats`); the auditors import it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core.distributions import (
    FiniteDistribution,
    GaussianDistribution,
    KeyedMixtureDistribution,
    ProductDistribution,
    as_exact_distribution,
)
from ..core.errors import MechanismError, UnsupportedAudit
from ..core.folded_laplace import FoldedLaplaceDistribution
from ..core.piecewise_exponential import PiecewiseExponentialDistribution
from ..core.validation import integer
from . import finite, folded, gaussian, loglinear, mixture, piecewise, rho
from .enclosure import Enclosure
from .loss import ZERO, LossRange, PureEpsilon, pure_epsilon_of
from .pld import product_hockey_stick, product_hockey_sticks
from .rho import Rho

__all__ = [
    "Enclosure", "PureEpsilon", "Rho", "privacy_profile", "privacy_profile_curve", "pure_epsilon", "renyi_divergence",
    "zcdp_rho",
]

FINITE, GAUSSIAN, LOGLINEAR, PIECEWISE = "finite", "gaussian", "log-linear", "piecewise-exponential"
FOLDED = "folded-laplace"


def _kind(d: Any) -> str:
    if isinstance(d, FiniteDistribution):
        return FINITE
    if isinstance(d, GaussianDistribution):
        return GAUSSIAN
    if isinstance(d, PiecewiseExponentialDistribution):
        return PIECEWISE
    if isinstance(d, FoldedLaplaceDistribution):
        return FOLDED
    return LOGLINEAR


def _coordinate(d: Any) -> Any:
    if isinstance(d, (FiniteDistribution, GaussianDistribution, PiecewiseExponentialDistribution,
                      FoldedLaplaceDistribution)):
        return d
    to_density = getattr(d, "exact_distribution", None)  # a noise law standing for its density
    if callable(to_density) and isinstance(density := to_density(),
                                           (GaussianDistribution, PiecewiseExponentialDistribution)):
        return density
    try:
        return as_exact_distribution(d)
    except TypeError as exc:
        raise UnsupportedAudit(str(exc)) from None


def _same(p: Any, q: Any) -> bool:
    if isinstance(p, FiniteDistribution) and isinstance(q, FiniteDistribution):
        return finite.same_distribution(p, q)
    return p == q


#: the last pairs :func:`differing_coordinates` was asked about, newest first: (P, Q, their coordinates). Few: they
#: stay alive while listed (two laws on 10^6 outcomes take 32 MB), and an audit asks about one pair at a time (the
#: quick run's exact claims compare as many pairs afresh with 2 kept as with 16)
_RECENT: list[tuple[Any, Any, tuple[tuple[str, Any, Any], ...]]] = []
RECENT_PAIRS = 4


def differing_coordinates(dist0: Any, dist1: Any) -> tuple[tuple[str, Any, Any], ...]:
    """(kind, P_i, Q_i) for the coordinates where the two distributions differ.

    An audit asks this of the same pair many times (both directions, each epsilon of a profile and of its plot),
    and a product of a thousand coordinates takes milliseconds to compare: the answers for the last
    :data:`RECENT_PAIRS` pairs are kept, by identity (the distributions are immutable, and kept alive here so
    that an identity is never reused)."""
    for p, q, coords in _RECENT:
        if p is dist0 and q is dist1:
            return coords
        if p is dist1 and q is dist0:
            coords = tuple((kind, b, a) for kind, a, b in coords)
            break
    else:
        coords = _compare(dist0, dist1)
    _RECENT.insert(0, (dist0, dist1, coords))
    del _RECENT[RECENT_PAIRS:]
    return coords


def _compare(dist0: Any, dist1: Any) -> tuple[tuple[str, Any, Any], ...]:
    c0 = dist0.coordinates if isinstance(dist0, ProductDistribution) else (dist0,)
    c1 = dist1.coordinates if isinstance(dist1, ProductDistribution) else (dist1,)
    if len(c0) != len(c1):
        raise MechanismError(f"the two outputs have {len(c0)} and {len(c1)} coordinates")
    out = []
    for a, b in zip(c0, c1):
        p, q = _coordinate(a), _coordinate(b)
        kind = _kind(p)
        if kind != _kind(q):
            raise MechanismError(f"cannot compare a {kind} coordinate with a {_kind(q)} one")
        if not _same(p, q):
            out.append((kind, p, q))
    return tuple(out)


_LOSS = {FINITE: finite.loss_range, GAUSSIAN: gaussian.loss_range, LOGLINEAR: loglinear.loss_range,
         PIECEWISE: piecewise.loss_range, FOLDED: folded.loss_range}


def _keyed(dist0: Any, dist1: Any) -> bool:
    """Whether the pair is two keyed mixtures (:mod:`dpaudit.exact.mixture`); one alone is a type error."""
    k0, k1 = isinstance(dist0, KeyedMixtureDistribution), isinstance(dist1, KeyedMixtureDistribution)
    if k0 != k1:
        raise MechanismError("cannot compare a keyed mixture with another kind of distribution")
    return k0


def loss_range(dist0: Any, dist1: Any) -> LossRange:
    if _keyed(dist0, dist1):
        return mixture.loss_range(dist0, dist1, loss_range)
    total = ZERO
    for kind, p, q in differing_coordinates(dist0, dist1):
        total = total + _LOSS[kind](p, q) if total is not ZERO else _LOSS[kind](p, q)
    return total


def pure_epsilon(dist0: Any, dist1: Any) -> PureEpsilon:
    """Pure epsilon of the pair (the larger of the two directions)."""
    return pure_epsilon_of(loss_range(dist0, dist1))


@dataclass(frozen=True)
class Profile:
    """delta(eps) of P against Q, with a summary of the event {P > e^eps Q} where known."""

    delta: Enclosure
    event: dict[str, Any]


def privacy_profile_curve(dist0: Any, dist1: Any, eps_values: Sequence[float]) -> list[Enclosure]:
    """:func:`privacy_profile`'s delta at every epsilon of ``eps_values``, each the enclosure it gives. A product
    of finite (and Gaussian) coordinates bins and convolves its loss distribution once for every epsilon, not
    once per epsilon; other laws are evaluated one epsilon at a time."""
    if not _keyed(dist0, dist1):
        coords = differing_coordinates(dist0, dist1)
        product = _product_of_finites(coords) if len(coords) > 1 else None  # one coordinate: privacy_profile's own
        if product is not None and product[0]:
            return product_hockey_sticks(product[0], eps_values, product[1])
    return [privacy_profile(dist0, dist1, eps).delta for eps in eps_values]


#: the last coordinates :func:`_product_of_finites` was asked about, newest first (a profile asks per epsilon)
_RECENT_PRODUCTS: list[tuple[Any, Any]] = []


def _product_of_finites(coords: Sequence[tuple[str, Any, Any]]) -> tuple[list[tuple[Any, Any]], Fraction] | None:
    """The finite coordinates' pairs and the Gaussian ones' total mu^2, when the coordinates are finite and
    equal-variance Gaussians (delta then comes from the product's loss distribution); else None. Kept for the
    last few ``coords`` by identity, like :func:`differing_coordinates`' answers (mu^2 is a sum of fractions)."""
    for seen, product in _RECENT_PRODUCTS:
        if seen is coords:
            return product
    product = _finites_and_mu_squared(coords)
    _RECENT_PRODUCTS.insert(0, (coords, product))
    del _RECENT_PRODUCTS[RECENT_PAIRS:]
    return product


def _finites_and_mu_squared(coords: Sequence[tuple[str, Any, Any]]) -> tuple[list[tuple[Any, Any]], Fraction] | None:
    kinds = {kind for kind, _, _ in coords}
    gaussians = [(p, q) for kind, p, q in coords if kind == GAUSSIAN]
    if not (kinds <= {FINITE, GAUSSIAN} and all(gaussian.same_variance(p, q) for p, q in gaussians)):
        return None
    mu2 = sum((gaussian.mu_squared(p, q) for p, q in gaussians), Fraction(0))
    return [(p, q) for kind, p, q in coords if kind == FINITE], mu2


def privacy_profile(dist0: Any, dist1: Any, eps: float) -> Profile:
    """delta(eps) = sup_S P(S) - e^eps Q(S) for P = dist0, Q = dist1 (one direction)."""
    if _keyed(dist0, dist1):
        delta, event = mixture.hockey_stick(dist0, dist1, eps, differing_coordinates)
        return Profile(delta, event)
    coords = differing_coordinates(dist0, dist1)
    if not coords:
        return Profile(Enclosure.point(0), {})
    kinds = {kind for kind, _, _ in coords}
    if len(coords) == 1:
        kind, p, q = coords[0]
        if kind == FINITE:
            hs = finite.hockey_stick(p, q, eps)
            return Profile(hs.delta, {"outcomes": hs.event_size, "P": hs.p_mass, "Q": hs.q_mass, "top": hs.top})
        if kind == LOGLINEAR:
            return Profile(loglinear.hockey_stick(p, q, eps), {})
        if kind == PIECEWISE:
            return Profile(piecewise.hockey_stick(p, q, eps), {})
        if kind == FOLDED:
            return Profile(folded.hockey_stick(p, q, eps), {})
    product = _product_of_finites(coords)
    if product is not None:
        finites, mu2 = product
        if not finites:
            return Profile(gaussian.delta_from_mu_squared(mu2, eps), {"mu": math.sqrt(float(mu2))})
        event = {"coordinates": len(coords)} | ({"gaussian mu": math.sqrt(float(mu2))} if GAUSSIAN in kinds else {})
        return Profile(product_hockey_stick(finites, eps, mu2), event)
    raise UnsupportedAudit(
        f"delta(eps) of {len(coords)} independent {'/'.join(sorted(kinds))} coordinates is not computed exactly "
        "(supported: one coordinate; finite coordinates, with or without Gaussians of equal variances)"
    )


_RENYI = {FINITE: finite.renyi, GAUSSIAN: gaussian.renyi, LOGLINEAR: loglinear.renyi, PIECEWISE: piecewise.renyi,
          FOLDED: folded.renyi}


def renyi_divergence(dist0: Any, dist1: Any, alpha: float) -> Enclosure:
    """D_alpha(P || Q), alpha > 1 (inf: sup of log P/Q), summed over coordinates."""
    if not alpha > 1:
        raise ValueError(f"Renyi order alpha must be > 1, got {alpha!r}")
    _no_keyed_renyi(dist0, dist1)
    total = Enclosure.point(0)
    for kind, p, q in differing_coordinates(dist0, dist1):
        total = total + _RENYI[kind](p, q, alpha)
    return total


def _no_keyed_renyi(dist0: Any, dist1: Any) -> None:
    if _keyed(dist0, dist1):
        raise UnsupportedAudit("Renyi divergences of keyed mixtures are not computed exactly (pure and approximate DP "
                               "are)")


def renyi_curve(dist0: Any, dist1: Any, alphas: Any) -> list[Enclosure]:
    """D_alpha(P || Q) at several orders (finite coordinates are aligned once)."""
    _no_keyed_renyi(dist0, dist1)
    coords = differing_coordinates(dist0, dist1)
    totals = [Enclosure.point(0) for _ in alphas]
    for kind, p, q in coords:
        if kind == FINITE:
            values = finite.renyi_curve(finite.align(p, q), alphas)
        else:
            values = [_RENYI[kind](p, q, a) for a in alphas]
        totals = [t + v for t, v in zip(totals, values)]
    return totals


def zcdp_rho(dist0: Any, dist1: Any, claim: float | Fraction | None = None, refinements: int = 6) -> Rho:
    """rho of P = dist0 against Q = dist1 (one direction), bracketed by :mod:`dpaudit.exact.rho`:
    refined until ``claim`` is decided, or else to within 0.1% of the lower bound, at most ``refinements`` times."""
    integer("zcdp_rho", "refinements", refinements, minimum=0)
    _no_keyed_renyi(dist0, dist1)
    coords = differing_coordinates(dist0, dist1)
    if not coords:
        return Rho(Enclosure.point(0), 1.0)
    if {k for k, _, _ in coords} == {GAUSSIAN} and all(gaussian.same_variance(p, q) for _, p, q in coords):
        return Rho(Enclosure.point(sum((gaussian.mu_squared(p, q) for _, p, q in coords), Fraction(0)) / 2), math.inf)
    return rho.zcdp_rho(lambda alphas: renyi_curve(dist0, dist1, alphas), loss_range(dist0, dist1).sup,
                        None if claim is None else Fraction(claim), refinements)

