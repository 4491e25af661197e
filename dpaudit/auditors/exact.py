"""Exact (white-box) pure-DP auditor.

For each pair (d0, d1) the mechanism's exact output distributions P = M(d0), Q = M(d1) are
turned into log-piecewise-linear densities (:mod:`dpaudit.densities`); the privacy loss
L(x) = log P(x) - log Q(x) is then piecewise linear, so

    epsilon = max over pairs of sup_x |L(x)|

is attained at a knot of either density (on the integers: the integers next to a knot), or is
infinite when the two densities decay at different rates along a tail. For independent
coordinates the loss is a sum of per-coordinate losses, whose supremum is the sum of the
suprema (and likewise the infimum). Rational parts are computed exactly; irrational normalising
constants are enclosed with 113-bit interval arithmetic, so the epsilon reported is a rigorous
interval [lo, hi].

Verdicts: ``verified`` iff hi <= claimed epsilon (exactly, no tolerance); ``refuted`` iff
lo exceeds the claim by more than ``tolerance * max(1, claim)`` (default 1e-9), the resolution
below which a violation is attributed to floating-point rounding of the mechanism's own
parameters; in between ``not-refuted``, with the excess recorded in the notes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..claims import ApproxDP, Claim, PureDP
from ..densities import PRECISION_BITS, LogLinearDensity, coordinates_of, exact, interval_bounds, interval_context
from ..errors import MechanismError, UnsupportedAudit
from ..results import NOT_REFUTED, REFUTED, VERIFIED, AuditResult, Statistic
from ..subjects import Mechanism

INF = math.inf
DEFAULT_TOLERANCE = 1e-9


class ExactUndecided(UnsupportedAudit):
    """The exact auditor cannot decide this claim (e.g. approximate DP beyond pure epsilon)."""


@dataclass
class _Extremes:
    """sup and inf of the rational part of the loss of one coordinate, with where they occur."""

    sup: Fraction | float
    sup_at: Fraction | float
    inf: Fraction | float
    inf_at: Fraction | float
    constant: tuple[Fraction, Fraction]  # enclosure of the constant part of the loss


def _constant_difference(p: LogLinearDensity, q: LogLinearDensity) -> tuple[Fraction, Fraction]:
    cp, cq = p.constant, q.constant
    if cp == cq:  # same key (or both absent): equal constants cancel exactly
        return Fraction(0), Fraction(0)
    ctx = interval_context()
    diff = (cp.enclose(ctx) if cp else ctx.mpf(0)) - (cq.enclose(ctx) if cq else ctx.mpf(0))
    return interval_bounds(diff)


def _candidate_points(p: LogLinearDensity, q: LogLinearDensity) -> list[Fraction]:
    knots = sorted(set(p.knots) | set(q.knots))
    if not p.lattice:
        return knots
    points = set()
    for k in knots:
        points.add(Fraction(math.floor(k)))
        points.add(Fraction(math.ceil(k)))
    return sorted(points)


def _extremes(p: LogLinearDensity, q: LogLinearDensity) -> _Extremes:
    if p.lattice != q.lattice:
        raise MechanismError("cannot compare a pmf on the integers with a density on the reals")
    points = _candidate_points(p, q)
    losses = [p.offset(x) - q.offset(x) for x in points]
    i_max = max(range(len(points)), key=losses.__getitem__)
    i_min = min(range(len(points)), key=losses.__getitem__)
    ext = _Extremes(losses[i_max], points[i_max], losses[i_min], points[i_min], _constant_difference(p, q))
    # Along a tail the loss is linear with slope (slope_P - slope_Q): unbounded unless equal.
    left = p.slopes[0] - q.slopes[0]
    right = p.slopes[-1] - q.slopes[-1]
    if left < 0:
        ext.sup, ext.sup_at = INF, -INF
    if right > 0:
        ext.sup, ext.sup_at = INF, INF
    if left > 0:
        ext.inf, ext.inf_at = -INF, -INF
    if right < 0:
        ext.inf, ext.inf_at = -INF, INF
    return ext


@dataclass
class PairEpsilon:
    """Rigorous enclosure [lo, hi] of sup |L| for one pair, and where it is attained."""

    lo: Fraction | float
    hi: Fraction | float
    direction: str  # "d0/d1": log P/Q is large; "d1/d0": log Q/P is large
    output: list[Any]
    coordinates: list[_Extremes]
    densities: tuple[tuple[LogLinearDensity, ...], tuple[LogLinearDensity, ...]]


def pair_epsilon(dist0: Any, dist1: Any) -> PairEpsilon:
    """Pure epsilon of one pair of exact distributions (scalar or independent coordinates)."""
    ps, qs = coordinates_of(dist0), coordinates_of(dist1)
    if len(ps) != len(qs):
        raise MechanismError(f"the two outputs have {len(ps)} and {len(qs)} coordinates")
    ext = [_extremes(p, q) for p, q in zip(ps, qs)]
    sup = sum((e.sup for e in ext), Fraction(0))
    inf = sum((e.inf for e in ext), Fraction(0))
    c_lo = sum((e.constant[0] for e in ext), Fraction(0))
    c_hi = sum((e.constant[1] for e in ext), Fraction(0))
    up = (sup + c_lo, sup + c_hi)  # enclosure of sup L
    down = (-inf - c_hi, -inf - c_lo)  # enclosure of sup (-L)
    lo = max(up[0], down[0])
    if up[1] >= down[1]:
        return PairEpsilon(lo, up[1], "d0/d1", [e.sup_at for e in ext], ext, (ps, qs))
    return PairEpsilon(lo, down[1], "d1/d0", [e.inf_at for e in ext], ext, (ps, qs))


def _float_down(x: Fraction | float) -> float:
    f = float(x)
    return math.nextafter(f, -INF) if math.isfinite(f) and Fraction(f) > x else f


def _float_up(x: Fraction | float) -> float:
    f = float(x)
    return math.nextafter(f, INF) if math.isfinite(f) and Fraction(f) < x else f


def _point(x: Fraction | float) -> Any:
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else float(x)
    return x


def audit_exact(
    mechanism: Mechanism,
    claim: Claim,
    pairs: Sequence[tuple[Any, Any]],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
) -> AuditResult:
    """Decide a :class:`PureDP` claim (or an :class:`ApproxDP` claim whose epsilon already
    covers the pure epsilon) from the mechanism's exact output distributions."""
    if not isinstance(claim, (PureDP, ApproxDP)):
        raise UnsupportedAudit(f"the exact auditor decides pure-DP claims; got a {claim.kind} claim")
    if not mechanism.has_distribution:
        raise UnsupportedAudit(f"{mechanism.name} exposes no .distribution(data); use a statistical auditor")
    if not 0 <= tolerance < 1:
        raise ValueError(f"tolerance must be in [0, 1), got {tolerance!r}")
    results = []
    for d0, d1 in pairs:
        try:
            results.append(pair_epsilon(mechanism.distribution(d0), mechanism.distribution(d1)))
        except TypeError as exc:
            raise UnsupportedAudit(str(exc)) from exc
    worst = max(range(len(results)), key=lambda i: results[i].hi)
    eps_lo = max(r.lo for r in results)
    eps_hi = results[worst].hi
    claimed = exact(claim.epsilon)
    resolution = Fraction(tolerance) * max(Fraction(1), claimed)
    notes: list[str] = []
    if eps_hi <= claimed:
        verdict = VERIFIED
    elif isinstance(claim, ApproxDP):
        raise ExactUndecided(
            "pure epsilon exceeds the claimed epsilon; deciding (epsilon, delta) needs the privacy "
            "profile, which this auditor does not compute"
        )
    elif eps_lo - claimed > resolution:
        verdict = REFUTED
    else:
        verdict = NOT_REFUTED
        notes.append(
            f"epsilon exceeds the claim by at most {float(eps_hi - claimed):.3g}, below the "
            f"resolution {float(resolution):.3g} attributed to floating-point parameters"
        )
    w = results[worst]
    d0, d1 = pairs[worst]
    margin = claimed - eps_hi
    witness = {
        "pair": [d0, d1],
        "pair_index": worst,
        "direction": "log P[M(d0)=x]/P[M(d1)=x]" if w.direction == "d0/d1" else "log P[M(d1)=x]/P[M(d0)=x]",
        "output": [_point(x) for x in w.output] if len(w.output) > 1 else _point(w.output[0]),
        "loss": float(eps_hi),
        "margin": float(margin) if math.isfinite(margin) else -INF,
    }
    exact_value = eps_lo == eps_hi
    if not exact_value:
        notes.append(f"epsilon enclosed in an interval of width {float(eps_hi - eps_lo):.3g} ({PRECISION_BITS}-bit arithmetic)")
    return AuditResult(
        verdict=verdict,
        claim=claim.to_dict(),
        auditor="exact-pure-dp",
        statistic=Statistic("epsilon", float(eps_hi) if exact_value else float((eps_lo + eps_hi) / 2),
                            (_float_down(eps_lo), _float_up(eps_hi)), "exact"),
        epsilon_lower=_float_down(eps_lo),
        confidence=1.0,
        samples=0,
        witness=witness,
        notes=notes,
        parameters={"tolerance": tolerance, "precision_bits": PRECISION_BITS},
        plot_data=_loss_curve(w, float(claimed)),
    )


def _loss_curve(w: PairEpsilon, claimed: float) -> dict[str, Any]:
    """L(x) along the coordinate contributing most, for the report's plot."""
    ps, qs = w.densities
    spans = [max(abs(float(e.sup)), abs(float(e.inf))) for e in w.coordinates]
    i = int(np.argmax(spans))
    p, q = ps[i], qs[i]
    knots = [float(k) for k in (*p.knots, *q.knots)]
    lo, hi = min(knots), max(knots)
    pad = max(hi - lo, 3.0)
    if p.lattice:
        x = np.arange(math.floor(lo - pad), math.ceil(hi + pad) + 1, dtype=float)
    else:
        x = np.linspace(lo - pad, hi + pad, 401)
    return {
        "kind": "privacy-loss",
        "x": x,
        "loss": p.log_density(x) - q.log_density(x),
        "claimed": claimed,
        "lattice": p.lattice,
        "coordinate": i,
        "coordinates": len(ps),
    }
