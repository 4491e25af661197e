"""Exact (white-box) auditor: decides privacy claims from the mechanism's output distributions.

For each audited pair (d0, d1) the mechanism's exact distributions P = M(d0) and Q = M(d1) are
compared with :mod:`dpaudit.exact`, which returns rigorous enclosures [lo, hi] of

- pure epsilon, sup |log P/Q|;
- delta(eps) = sup_S P(S) - e^eps Q(S) in both directions (the privacy profile);
- D_alpha(P || Q) and D_alpha(Q || P) at the claimed orders (Renyi DP);
- rho = sup_alpha D_alpha / alpha in both directions (zCDP).

The value audited is the maximum over pairs and directions. With ``claimed`` the claim's value
and ``resolution = tolerance * max(1, claimed)`` (for delta: ``tolerance * claimed``):

- ``verified`` iff hi <= claimed (exactly, with no tolerance);
- ``refuted`` iff lo > claimed + resolution; the resolution (default 1e-9) is the excess below
  which a violation is attributed to the floating-point rounding of the mechanism's own
  parameters rather than to the mechanism;
- ``not-refuted`` when the whole enclosure lies below claimed + resolution (the excess is
  recorded in the notes);
- otherwise the enclosure is too wide to decide and :class:`ExactUndecided` is raised (the
  ``auto`` auditor then falls back to samples).

An approximate-DP claim is verified without the profile when pure epsilon is at most the claimed
epsilon, and is refuted only if both the pure-epsilon excess and the delta excess exceed their
resolutions (a delta excess that comes from a pure epsilon within rounding of the claim is
rounding too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .. import exact
from ..core.claims import ZCDP, ApproxDP, Claim, PureDP, RenyiDP
from ..core.distributions import (
    FiniteDistribution,
    GaussianDistribution,
    KeyedMixtureDistribution,
    ProductDistribution,
    as_exact_distribution,
)
from ..core.errors import UnsupportedAudit
from ..core.folded_laplace import FoldedLaplaceDistribution
from ..core.piecewise_exponential import PiecewiseExponentialDistribution
from ..core.results import NOT_REFUTED, REFUTED, VERIFIED, Statistic
from ..core.subjects import Mechanism
from ..exact import Enclosure
from ..exact.loss import point_value
from .base import Auditor, Finding, Support, Undecided

INF = math.inf
DEFAULT_TOLERANCE = 1e-9
FORWARD, BACKWARD = "d0/d1", "d1/d0"
_DIRECTION = {FORWARD: "M(d0) against M(d1)", BACKWARD: "M(d1) against M(d0)"}


class ExactUndecided(Undecided):
    """The exact auditor cannot decide this claim (its enclosure straddles the claim)."""


@dataclass
class PairEpsilon:
    """Rigorous enclosure [lo, hi] of pure epsilon for one pair, and where it is attained."""

    lo: Fraction | float
    hi: Fraction | float
    direction: str  # "d0/d1": log P/Q is largest; "d1/d0": log Q/P is
    output: list[Any]  # the output (one value per differing coordinate) where the loss peaks


def pair_epsilon(dist0: Any, dist1: Any) -> PairEpsilon:
    """Pure epsilon of one pair of exact output distributions (scalar or independent coordinates)."""
    pe = exact.pure_epsilon(dist0, dist1)
    output = pe.output if isinstance(pe.output, list) else [pe.output]
    return PairEpsilon(pe.epsilon.lo, pe.epsilon.hi, pe.direction, output)


@dataclass(frozen=True)
class _Decision:
    verdict: str
    note: str | None


def _decide(value: Enclosure, claimed: Fraction, resolution: Fraction, what: str) -> _Decision:
    if value.hi <= claimed:
        return _Decision(VERIFIED, None)
    if value.lo > claimed + resolution:
        return _Decision(REFUTED, None)
    if value.hi <= claimed + resolution:
        return _Decision(NOT_REFUTED, (
            f"{what} exceeds the claim by at most {float(value.hi - claimed):.3g}, below the resolution "
            f"{float(resolution):.3g} attributed to floating-point parameters"
        ))
    raise ExactUndecided(
        f"the enclosure [{float(value.lo):.6g}, {float(value.hi):.6g}] of {what} straddles the claim "
        f"{float(claimed):.6g}; it is too wide to decide"
    )


def _exact(x: float) -> Fraction:
    return Fraction(x)


def _resolution(tolerance: float, claimed: Fraction) -> Fraction:
    return Fraction(tolerance) * max(Fraction(1), claimed)


def _margin(claimed: Fraction, hi: Fraction | float) -> float:
    margin = claimed - hi
    return float(margin) if math.isfinite(margin) else -INF


def _statistic(name: str, value: Enclosure) -> Statistic:
    estimate = float(value.lo) if value.is_exact else value.midpoint
    return Statistic(name, estimate, value.floats(), "exact")


def _result(claim: Claim, verdict: str, statistic: Statistic, **fields: Any) -> Finding:
    return Finding(verdict=verdict, auditor=ExactPrivacyAuditor.name, statistic=statistic, confidence=1.0, samples=0,
                   **fields)


@dataclass
class _Worst:
    """The worst (pair, direction) found for the audited quantity."""

    value: Enclosure
    index: int
    direction: str
    extra: dict[str, Any]


#: upper ends this close (relatively) are a tie: they differ by rounding, not by what they enclose
TIE = 1e-12


def _worst(candidates: list[_Worst]) -> _Worst:
    """The candidate with the largest upper end, enclosed with the largest lower end of all. Candidates whose upper
    ends differ from the largest by rounding only (:data:`TIE`) tie, and the first of them is the witness: the
    lowest pair index, forward before backward. A symmetric pair's two directions are equal but for their last
    bits, and which one is reported must not turn on them."""
    top = max(c.value.hi for c in candidates)
    best = next(c for c in candidates if c.value.hi == top or _tie(c.value.hi, top))
    lo = max(c.value.lo for c in candidates)
    return _Worst(Enclosure(lo, top), best.index, best.direction, best.extra)


def _tie(a: Fraction | float, b: Fraction | float) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= TIE * max(abs(a), abs(b))


def _ordered(dists: tuple[Any, Any], direction: str) -> tuple[Any, Any]:
    return dists if direction == FORWARD else (dists[1], dists[0])


def _witness(pairs: Sequence[tuple[Any, Any]], worst: _Worst, **fields: Any) -> dict[str, Any]:
    d0, d1 = pairs[worst.index]
    return {"pair": [d0, d1], "pair_index": worst.index, "direction": _DIRECTION[worst.direction],
            **fields, **worst.extra}


# -- pure DP -----------------------------------------------------------------------------------


def _pure(dists: list[tuple[Any, Any]]) -> tuple[_Worst, list[exact.PureEpsilon]]:
    results = [exact.pure_epsilon(p, q) for p, q in dists]
    worst = _worst([
        _Worst(r.epsilon, i, r.direction, {"output": point_value(r.output)}) for i, r in enumerate(results)
    ])
    return worst, results


def _audit_pure(claim: PureDP, pairs, dists, tolerance) -> Finding:
    claimed = _exact(claim.epsilon)
    resolution = _resolution(tolerance, claimed)
    worst, _ = _pure(dists)
    decision = _decide(worst.value, claimed, resolution, "epsilon")
    return _result(
        claim, decision.verdict, _statistic("epsilon", worst.value),
        epsilon_lower=worst.value.floats()[0],
        witness=_witness(pairs, worst, loss=float(worst.value.hi), margin=_margin(claimed, worst.value.hi)),
        notes=[decision.note] if decision.note else [],
        parameters={"tolerance": tolerance, "resolution": float(resolution)},
        plot_data=_loss_plot(dists[worst.index], worst.direction, float(claimed)),
    )


# -- approximate DP ----------------------------------------------------------------------------


def _profile_worst(dists: list[tuple[Any, Any]], eps: float) -> _Worst:
    candidates = []
    for i, pair in enumerate(dists):
        for direction in (FORWARD, BACKWARD):
            profile = exact.privacy_profile(*_ordered(pair, direction), eps)
            candidates.append(_Worst(profile.delta, i, direction, {"event": profile.event} if profile.event else {}))
    return _worst(candidates)


def _audit_approx(claim: ApproxDP, pairs, dists, tolerance) -> Finding:
    claimed_eps, claimed_delta = _exact(claim.epsilon), _exact(claim.delta)
    eps_resolution = _resolution(tolerance, claimed_eps)
    pure, _ = _pure(dists)
    notes: list[str] = []
    if pure.value.hi <= claimed_eps:
        notes.append(f"pure epsilon is at most {float(pure.value.hi):.6g} <= the claimed epsilon, so delta(eps) = 0")
        worst = _Worst(Enclosure.point(0), pure.index, pure.direction, {})
        verdict = VERIFIED
    else:
        worst = _profile_worst(dists, claim.epsilon)
        decision = _decide(worst.value, claimed_delta, Fraction(tolerance) * claimed_delta, "delta")
        verdict = decision.verdict
        if decision.note:
            notes.append(decision.note)
        if verdict == REFUTED and pure.value.lo <= claimed_eps + eps_resolution:
            verdict = NOT_REFUTED
            notes.append(
                f"delta({float(claimed_eps):g}) exceeds the claim, but pure epsilon exceeds the claimed epsilon by at "
                f"most {float(pure.value.hi - claimed_eps):.3g}, below the resolution attributed to floating-point "
                "parameters"
            )
    return _result(
        claim, verdict, _statistic("delta", worst.value),
        delta_lower=worst.value.floats()[0],
        witness=_witness(pairs, worst, epsilon=claim.epsilon, delta=float(worst.value.hi),
                         margin=_margin(claimed_delta, worst.value.hi), pure_epsilon=float(pure.value.hi)),
        notes=notes,
        parameters={"tolerance": tolerance, "pure_epsilon": list(pure.value.floats())},
        plot_data=_profile_plot(dists[worst.index], worst.direction, claim),
    )


# -- Renyi DP and zCDP -------------------------------------------------------------------------


def _renyi_table(dists: list[tuple[Any, Any]], alphas: list[float]) -> list[list[tuple[Enclosure, int, str]]]:
    """For every order: (D_alpha, pair index, direction) over all pairs and directions."""
    table: list[list[tuple[Enclosure, int, str]]] = [[] for _ in alphas]
    for i, pair in enumerate(dists):
        for direction in (FORWARD, BACKWARD):
            for row, value in zip(table, exact.renyi_curve(*_ordered(pair, direction), alphas)):
                row.append((value, i, direction))
    return table


def _audit_renyi(claim: RenyiDP, pairs, dists, tolerance) -> Finding:
    points = claim.points
    table = _renyi_table(dists, [a for a, _ in points])
    decisions, worsts = [], []
    for (alpha, eps), row in zip(points, table):
        worst = _worst([_Worst(v, i, d, {"alpha": alpha}) for v, i, d in row])
        claimed = _exact(eps)
        decisions.append(_decide(worst.value, claimed, _resolution(tolerance, claimed), f"D_{alpha:g}"))
        worsts.append(worst)
    verdicts = [d.verdict for d in decisions]
    verdict = REFUTED if REFUTED in verdicts else NOT_REFUTED if NOT_REFUTED in verdicts else VERIFIED
    # the point reported: the largest excess over its claim
    k = max(range(len(points)), key=lambda j: float(worsts[j].value.lo - _exact(points[j][1])))
    worst = worsts[k]
    alpha, eps = points[k]
    return _result(
        claim, verdict, _statistic(f"D_{alpha:g}", worst.value),
        witness=_witness(pairs, worst, renyi_divergence=float(worst.value.hi),
                         margin=_margin(_exact(eps), worst.value.hi)),
        notes=[d.note for d in decisions if d.note],
        parameters={"tolerance": tolerance,
                    "renyi_divergences": {f"{a:g}": list(w.value.floats()) for (a, _), w in zip(points, worsts)}},
        plot_data=_renyi_plot(dists[worst.index], worst.direction, claim),
    )


def _audit_zcdp(claim: ZCDP, pairs, dists, tolerance) -> Finding:
    claimed = _exact(claim.rho)
    candidates = []
    for i, pair in enumerate(dists):
        for direction in (FORWARD, BACKWARD):
            rho = exact.zcdp_rho(*_ordered(pair, direction), claim=claimed)
            candidates.append(_Worst(rho.rho, i, direction, {"alpha": float(rho.alpha)}))
    worst = _worst(candidates)
    resolution = _resolution(tolerance, claimed)
    decision = _decide(worst.value, claimed, resolution, "rho")
    return _result(
        claim, decision.verdict, _statistic("rho", worst.value),
        witness=_witness(pairs, worst, rho=float(worst.value.hi), margin=_margin(claimed, worst.value.hi)),
        notes=[decision.note] if decision.note else [],
        parameters={"tolerance": tolerance, "resolution": float(resolution)},
        plot_data=_renyi_plot(dists[worst.index], worst.direction, claim),
    )


_AUDITS = {PureDP: _audit_pure, ApproxDP: _audit_approx, RenyiDP: _audit_renyi, ZCDP: _audit_zcdp}


class ExactPrivacyAuditor(Auditor):
    """Decides privacy claims from a mechanism's exact output distributions (module docstring).

    Supports pure, approximate, Renyi and zero-concentrated DP about a mechanism with
    ``.distribution(data)``. It always decides pure DP (an enclosure of epsilon is tight enough to
    settle any claim but one within float rounding of the truth); the other claims may be left
    undecided (:class:`ExactUndecided`) when the enclosure straddles the claim.
    """

    name = "exact"
    statistical = False

    def _kernel(self, subject: Mechanism, claim: Claim) -> tuple[Any, Support]:
        kernel = _AUDITS.get(type(claim))
        if kernel is None:
            return None, Support.no(f"the exact auditor decides privacy claims; got a {claim.kind} claim")
        if not subject.has_distribution:
            return None, Support.no(f"{subject.name} exposes no .distribution(data); use a statistical auditor",
                                    noted=False)
        return kernel, Support.decides() if isinstance(claim, PureDP) else Support.attempts()

    def supports(self, subject: Mechanism, claim: Claim) -> Support:
        return self._kernel(subject, claim)[1]

    def audit(self, subject: Mechanism, claim: Claim, *, pairs: Sequence[tuple[Any, Any]],
              tolerance: float = DEFAULT_TOLERANCE, **_: Any) -> Finding:
        """Decide ``claim`` on every pair, in both directions (module docstring)."""
        kernel, support = self._kernel(subject, claim)
        if kernel is None:
            raise UnsupportedAudit(support.reason)
        if not 0 <= tolerance < 1:
            raise ValueError(f"tolerance must be in [0, 1), got {tolerance!r}")
        try:
            dists = [(subject.distribution(d0), subject.distribution(d1)) for d0, d1 in pairs]
            return kernel(claim, pairs, dists, tolerance)
        except TypeError as exc:  # a distribution type dpaudit cannot analyse
            raise UnsupportedAudit(str(exc)) from exc


# -- plot data (best effort: a plot never decides or breaks an audit) ----------------------------


# pragma: no mutate start (data for the report's plots, not a verdict's statistics)
def _largest_coordinate(dist0: Any, dist1: Any) -> tuple[Any, Any, int, int]:
    c0 = dist0.coordinates if isinstance(dist0, ProductDistribution) else (dist0,)
    c1 = dist1.coordinates if isinstance(dist1, ProductDistribution) else (dist1,)
    best, spread = 0, -1.0
    for i, (a, b) in enumerate(zip(c0, c1)):
        if a is b or a == b:
            continue
        r = exact.loss_range(a, b)
        s = max(abs(float(r.sup.hi)), abs(float(r.inf.lo)))
        s = 1e300 if math.isinf(s) else s
        if s > spread:
            best, spread = i, s
    return c0[best], c1[best], best, len(c0)


def _loss_points(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray, bool] | None:
    p, q = (d.exact_distribution() if callable(getattr(d, "exact_distribution", None)) else d for d in (p, q))
    if isinstance(p, GaussianDistribution):
        m0, m1, s0, s1 = float(p.mean), float(q.mean), float(p.sigma), float(q.sigma)
        x = np.linspace(min(m0, m1) - 4 * max(s0, s1), max(m0, m1) + 4 * max(s0, s1), 401)
        loss = (-(x - m0) ** 2 / (2 * s0**2) - math.log(s0)) - (-(x - m1) ** 2 / (2 * s1**2) - math.log(s1))
        return x, loss, False
    if isinstance(p, FiniteDistribution):
        a = exact.finite.align(p, q)
        if a.outcomes.ndim != 1 or not np.issubdtype(a.outcomes.dtype, np.number):
            return None
        keep = np.isfinite(a.logp) | np.isfinite(a.logq)
        x, lp, lq = a.outcomes[keep], a.logp[keep], a.logq[keep]
        mass = np.exp(np.logaddexp(lp, lq))
        if len(x) > 2000:  # the outcomes carrying almost all the mass
            top = np.sort(np.argsort(-mass)[:2000])
            x, lp, lq = x[top], lp[top], lq[top]
        with np.errstate(invalid="ignore"):
            return x.astype(float), lp - lq, True
    if isinstance(p, FoldedLaplaceDistribution):
        x = np.linspace(float(p.lower), float(p.upper), 801)
        return x, p.log_density(x) - q.log_density(x), False
    if isinstance(p, PiecewiseExponentialDistribution):  # the densities' loss (atoms are not drawn)
        lo, hi = float(min(p.breaks[0], q.breaks[0])), float(max(p.breaks[-1], q.breaks[-1]))
        pad = (hi - lo) / 4 if p.left_tail or p.right_tail else 0.0
        x = np.linspace(lo - pad, hi + pad, 801)
        with np.errstate(invalid="ignore"):
            return x, p.log_density(x) - q.log_density(x), False
    p, q = as_exact_distribution(p), as_exact_distribution(q)
    knots = [float(k) for k in (*p.knots, *q.knots)]
    lo, hi = min(knots), max(knots)
    pad = max(hi - lo, 3.0)
    if p.lattice:
        x = np.arange(math.floor(lo - pad), math.ceil(hi + pad) + 1, dtype=float)
    else:
        x = np.linspace(lo - pad, hi + pad, 401)
    return x, p.log_density(x) - q.log_density(x), p.lattice
# pragma: no mutate end


# pragma: no mutate start (data for the report's plots, not a verdict's statistics)
def _loss_plot(dists: tuple[Any, Any], direction: str, claimed: float) -> dict[str, Any] | None:
    """L(x) = log P/Q along the coordinate contributing most, for the report's plot."""
    try:
        p, q, i, n = _largest_coordinate(*dists)
        points = _loss_points(p, q)
    except Exception:  # noqa: BLE001 - plotting is best effort
        return None
    if points is None:
        return None
    x, loss, lattice = points
    return {"kind": "privacy-loss", "x": x, "loss": loss, "claimed": claimed, "lattice": lattice,
            "coordinate": i, "coordinates": n}
# pragma: no mutate end


# pragma: no mutate start (data for the report's plots, not a verdict's statistics)
def _profile_plot(dists: tuple[Any, Any], direction: str, claim: ApproxDP) -> dict[str, Any] | None:
    """delta(eps') on a grid of eps' around the claimed epsilon, for the worst direction. None for keyed mixtures
    (an adaptive view's law): each point would cost a full evaluation block by block."""
    grid = np.linspace(0.0, max(2 * claim.epsilon, 1.0), 17)
    if isinstance(dists[0], KeyedMixtureDistribution):
        return None
    try:
        p, q = _ordered(dists, direction)
        if isinstance(p, FiniteDistribution) and isinstance(q, FiniteDistribution):
            deltas = exact.finite.profile_curve(p, q, grid)
        else:
            deltas = [float(delta.hi) for delta in exact.privacy_profile_curve(p, q, grid.tolist())]
    except Exception:  # noqa: BLE001 - plotting is best effort
        return None
    return {"kind": "privacy-profile", "eps": grid, "delta": np.array(deltas), "claimed": (claim.epsilon, claim.delta),
            "direction": _DIRECTION[direction]}
# pragma: no mutate end


# pragma: no mutate start (data for the report's plots, not a verdict's statistics)
def _renyi_plot(dists: tuple[Any, Any], direction: str, claim: RenyiDP | ZCDP) -> dict[str, Any] | None:
    """D_alpha on a grid of orders, with the claimed points (Renyi DP) or line rho * alpha (zCDP)."""
    claimed = [(a, e) for a, e in claim.points if math.isfinite(a)] if isinstance(claim, RenyiDP) else []
    top = max([64.0] + [2 * a for a, _ in claimed])
    alphas = sorted(set(np.geomspace(1.05, top, 16).tolist()) | {a for a, _ in claimed})
    try:
        values = exact.renyi_curve(*_ordered(dists, direction), alphas)
    except Exception:  # noqa: BLE001 - plotting is best effort
        return None
    return {"kind": "renyi", "alpha": np.array(alphas), "divergence": np.array([float(v.hi) for v in values]),
            "claimed": claimed, "rho": claim.rho if isinstance(claim, ZCDP) else None,
            "direction": _DIRECTION[direction]}
# pragma: no mutate end


__all__ = ["DEFAULT_TOLERANCE", "ExactPrivacyAuditor", "ExactUndecided", "PairEpsilon", "pair_epsilon"]
