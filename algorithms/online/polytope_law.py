"""The probability that independent Laplace variables fall in a polyhedron, exactly (ball arithmetic):
the integrator behind Hybrid-UCB's decision law (:mod:`algorithms.online.hybrid_law`).

The quantity is

    P = integral  prod_i (rate_i / 2) e^{-rate_i |v_i|}  1{a_c . v + p_c >= 0 for every constraint c}  dv,

with exact rational coefficient vectors a_c and constants p_c that are exact expressions
(:class:`~algorithms.online.lazy_law.Point`: rational combinations of a few transcendental atoms, with
their balls). It is computed by eliminating the variables one at a time (Fourier-Motzkin with the
integrand carried along). A *cell* is a list of constraints over the variables not yet integrated and
an integrand, a sum of terms c prod_i v_i^{k_i} e^{r_i v_i} (c an arb ball, k_i integers, r_i exact
rationals). Eliminating x from a cell:

- x's density is split at 0 (two cells: x >= 0 with (rate/2) e^{-rate x}, x <= 0 with (rate/2) e^{rate x});
- the constraints holding x give lower bounds L_i(y) and upper bounds U_j(y), affine in the remaining
  variables y (the sign's 0 among them); identical bounds (same coefficients, same expression) are kept
  once. For every choice of an active lower L* and upper U* (-inf / +inf when there is none), a new
  cell holds the other constraints and L* >= L_i, U* <= U_j, L* <= U*, and the terms integrated over
  x from L* to U*: the antiderivative of x^k e^{a x} (a polynomial when a = 0) at an affine bound
  beta . y + p expands into terms in y (the constant p enters as its ball, e^{a p} as an arb exp). An
  infinite bound is taken only by terms that vanish there; a term that does not vanish raises an
  ArithmeticError (a mistake is loud, not silent). The chosen cells cover the original one and overlap
  only on boundaries (ties between two different bounds have measure zero).
- A constraint whose coefficients all vanish is a comparison of its constant with 0, decided exactly
  as :func:`~algorithms.online.lazy_law.compare` decides (0 only for an empty expression, otherwise by
  the ball, a :class:`~algorithms.online.lazy_law.PrecisionNeeded` retry if it holds 0): positive, it is
  dropped; negative, the cell is empty. A constant that is 0 by construction comes from an active upper
  and lower bound that are the same function (two lower or two upper bounds that are the same function
  were merged): the cell has zero width in x, measure zero, and is dropped (so ties, measure-zero
  boundaries, are decided consistently: never counted).
- The other constraints are scaled so that their first nonzero coefficient is +-1, and of parallel
  ones (equal scaled coefficients) only the tightest is kept (the smallest constant, decided exactly as
  above): the same region with fewer constraints. Constants of new constraints are formed on their
  expressions, their balls by ball arithmetic on the parts' balls (an enclosure, without re-evaluating
  the atoms).
- Cells with the same constraints and the same variables integrated are one region with the same
  integrand variables: their terms are added (integration is linear), which keeps the cells few.

A variable that appears in no constraint and no term integrates to 1 and is never touched. When no
variable is left, the cell's constant term is its probability; P is the sum over cells. A variable held by
a constraint stays held until it is eliminated (a bound it is in is compared with the origin or with the
other bounds, and where a comparison cancels it, it is in both bounds), and one enters the terms only
through a bound of the cell's own comparisons: so a cell's variables are those of the system minus those it
has done, and every cell ends at the same depth, where they merge into one. Fourier-Motzkin
is exact, so an empty polyhedron ends with every cell dropped by an exact comparison: P is then exactly
0 (an arb 0 of radius 0), and a nonempty one has P > 0 in fact.

Pruning (speed only): before a cell with at least :data:`LP_MIN_CONSTRAINTS` constraints is expanded
further, a float LP (scipy's HiGHS) maximises the slack s of its constraints (a_c . y + p_c >= s |a_c|, s <= 1) at the
constants' midpoints; a cell whose optimal slack is below -:data:`LP_MARGIN` is dropped. A cell with a
point inside has slack >= 0 exactly, so dropping it needs the LP to err by more than :data:`LP_MARGIN`
(1e-6) on a problem of a few variables with coefficients of order 1 (HiGHS's feasibility tolerance is
1e-7) or the constants' balls to be wider than that (they are ~1e-40 wide): pruning cannot drop mass,
and without it the same cells would be dropped later by the exact comparisons, at a higher cost.

Elimination order: in each cell, the variable held by the fewest constraints (ties: the lowest index).
Rationals are python-flint's fmpq (fast arithmetic); vectors of them used as keys hash by their floats
(:class:`_Vec`) and compare exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpq
from scipy.optimize import linprog

from . import lazy_law
from .lazy_law import NEG_INF, POS_INF, ZERO, Point, PrecisionNeeded

#: a cell is pruned when the float LP's best slack is below minus this (scaled constraints)
LP_MARGIN = 1e-6
#: cells with fewer constraints than this are not checked by the LP (it would cost more than it saves)
LP_MIN_CONSTRAINTS = 5

_ZERO = fmpq(0)


def _fmpq(q) -> fmpq:
    q = Fraction(q)
    return fmpq(q.numerator, q.denominator)


class _Vec(tuple):
    """A tuple of rationals (fmpq) that hashes by its floats (fmpq's own hash is slow) and compares exactly
    (equal floats of different rationals only share a hash bucket)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(tuple(map(float, self)))


Constraint = tuple  # (coefficients: tuple of fmpq rationals, constant: Point): coefficients . v + constant >= 0
Terms = dict  # (exponents: tuple of ints, rates: tuple of fmpq) -> arb: sum of c prod v^k e^{r . v}


def _key(bound: Constraint) -> tuple:
    coef, point = bound
    return _Vec(coef), frozenset(point.form.items())


def _point(form: dict, ball: arb) -> Point:
    """A :class:`Point` of a known form whose ball is already known (an enclosure computed by ball arithmetic
    from its parts' balls, cheaper than evaluating the form again)."""
    point = Point.__new__(Point)
    point.form, point.inf, point.ball = form, 0, ball
    return point


def _minus(a: Point, b: Point) -> Point:
    form = dict(a.form)
    for atom, c in b.form.items():
        value = form.get(atom, 0) - c
        if value:
            form[atom] = value
        else:
            form.pop(atom, None)
    return _point(form, a.ball - b.ball)


def _scaled(a: Point, q: fmpq) -> Point:
    f = Fraction(int(q.p), int(q.q))
    return _point({atom: c * f for atom, c in a.form.items()}, a.ball * arb(q))


def _sign(a: Point) -> int:
    """The sign of a finite point, as :func:`~algorithms.online.lazy_law.compare` (a, 0) decides it: 0 only
    for the empty form, otherwise by the ball, which must exclude 0 (else :class:`PrecisionNeeded`)."""
    if not a.form:
        return 0
    if a.ball > 0:
        return 1
    if a.ball < 0:
        return -1
    raise PrecisionNeeded(f"cannot decide the sign of {a!r} at {ctx.prec} bits")


def _difference(a: Constraint, b: Constraint) -> Constraint:
    """The affine function a - b."""
    return tuple(x - y for x, y in zip(a[0], b[0], strict=True)), _minus(a[1], b[1])


def _add(terms: Terms, key: tuple, c: arb) -> None:
    value = terms[key] + c if key in terms else c
    if value.is_zero():
        terms.pop(key, None)
    else:
        terms[key] = value


def _powers(bound: Constraint, top: int) -> list[dict]:
    """(beta . y + p)^m for m = 0..top, each a dict exponent tuple -> arb ball."""
    beta, p = bound
    n = len(beta)
    zero = (0,) * n
    linear = {zero: p.ball}
    for i, b in enumerate(beta):
        if b:
            linear[zero[:i] + (1,) + zero[i + 1:]] = arb(b)
    out = [{zero: arb(1)}]
    for _ in range(top):
        prev, nxt = out[-1], {}
        for e1, c1 in prev.items():
            for e2, c2 in linear.items():
                key = tuple(x + y for x, y in zip(e1, e2, strict=True))
                nxt[key] = nxt[key] + c1 * c2 if key in nxt else c1 * c2
        out.append(nxt)
    return out


def _integrate(terms: Terms, x: int, lo: Constraint | Point, hi: Constraint | Point) -> Terms:
    """The terms integrated over v_x from ``lo`` to ``hi`` (affine bounds, or the infinities NEG_INF/POS_INF)."""
    out: Terms = {}
    cache: dict[int, list] = {}
    for (k, r), c in terms.items():
        kx, a = k[x], r[x]
        base_k = k[:x] + (0,) + k[x + 1:]
        base_r = _Vec(r[:x] + (_ZERO,) + r[x + 1:])
        if a == 0:  # x^kx -> x^{kx+1} / (kx + 1)
            pieces = [(kx + 1, arb(1) / (kx + 1))]
        else:
            rate, falling, pieces = arb(a), 1, []
            for j in range(kx + 1):
                pieces.append((kx - j, arb((-1) ** j * falling) / rate ** (j + 1)))
                falling *= kx - j
        for sign, bound in ((1, hi), (-1, lo)):
            if isinstance(bound, Point):  # an infinity: only decaying terms, which vanish there
                if not (a < 0 if bound.inf > 0 else a > 0):
                    raise ArithmeticError(f"polytope_law: a term x^{kx} e^({a} x) does not vanish at "
                                          f"{'+' if bound.inf > 0 else '-'}inf")
                continue
            beta, p = bound
            top = max(m for m, _ in pieces)
            if id(bound) not in cache or len(cache[id(bound)]) <= top:
                cache[id(bound)] = _powers(bound, top)
            powers = cache[id(bound)]
            factor = c * sign
            if a != 0:
                factor = factor * lazy_law._exp(arb(a) * p.ball)
                rates = _Vec(ri + a * bi for ri, bi in zip(base_r, beta, strict=True))
            else:
                rates = base_r
            for m, q in pieces:
                for e, pc in powers[m].items():
                    _add(out, (tuple(u + v for u, v in zip(base_k, e, strict=True)), rates), factor * q * pc)
    return out


def _decide(constraints: list[Constraint]) -> list[Constraint] | None:
    """The constraints with the constant ones decided (dropped if positive), None if one is <= 0 (empty, or
    measure zero: module docstring); the others scaled so that their first nonzero coefficient is +-1, and of
    parallel ones (the same scaled coefficients) only the tightest kept (the smallest constant, decided
    exactly): the same region, with fewer constraints."""
    kept: dict = {}
    for coef, point in constraints:
        lead = next((c for c in coef if c), None)
        if lead is None:
            if _sign(point) <= 0:
                return None
            continue
        if abs(lead) != 1:
            q = 1 / abs(lead)
            coef, point = tuple(c * q for c in coef), _scaled(point, q)
        coef = _Vec(coef)
        if coef not in kept or _sign(_minus(point, kept[coef])) < 0:
            kept[coef] = point
    return list(kept.items())


def infeasible(constraints: list[Constraint]) -> bool:
    """The float LP of the module docstring: True only when the best slack is below -LP_MARGIN (not tried
    with fewer than :data:`LP_MIN_CONSTRAINTS` constraints)."""
    if len(constraints) < LP_MIN_CONSTRAINTS:
        return False
    used = sorted({i for coef, _ in constraints for i, c in enumerate(coef) if c})
    A = np.array([[float(coef[i]) for i in used] for coef, _ in constraints])
    b = np.array([float(point.ball.mid()) for _, point in constraints])
    norms = np.linalg.norm(A, axis=1)
    A, b = A / norms[:, None], b / norms
    # A y + b >= s  <=>  -A y + s <= b; maximise s <= 1
    res = linprog(np.append(np.zeros(len(used)), -1.0), A_ub=np.column_stack([-A, np.ones(len(A))]), b_ub=b,
                  bounds=[(None, None)] * len(used) + [(None, 1.0)], method="highs")
    return res.status == 0 and -res.fun < -LP_MARGIN


def probability(rates: Sequence[Fraction], constraints: Sequence[Constraint], prune: bool = True) -> arb:
    """P(coefficients . v + constant >= 0 for every constraint) for independent v_i ~ Laplace with rate
    ``rates[i]`` (density (rate/2) e^{-rate |v|}), as a ball at the current precision (module docstring).
    Exactly 0 (radius 0) when the polyhedron is empty; ``prune=False`` skips the float LP."""
    n = len(rates)
    rates = [_fmpq(r) for r in rates]
    zero_k, zero_r = (0,) * n, _Vec((_ZERO,) * n)
    first = _decide([(tuple(_fmpq(c) for c in coef), point) for coef, point in constraints])
    if first is None:
        return arb(0)
    # cells by the number of variables integrated; a cell's key is its constraint set and the variables it
    # has integrated: two cells with the same key are one region with the same variables left, so their
    # integrands add (integration is linear), which keeps the cells few
    levels: list[dict] = [{} for _ in range(n + 1)]
    levels[0][(frozenset(map(_key, first)), frozenset())] = (first, {(zero_k, zero_r): arb(1)})
    total = arb(0)
    for depth in range(n + 1):
        for (_, done), (constraints, terms) in levels[depth].items():
            if prune and infeasible(constraints):
                continue
            held = [0] * n
            for coef, _ in constraints:
                for i, c in enumerate(coef):
                    if c:
                        held[i] += 1
            active = {i for i in range(n) if held[i]}
            for k, r in terms:
                active.update(i for i in range(n) if k[i] or r[i])
            if not active:
                total += terms.get((zero_k, zero_r), arb(0))
                continue
            x = min(active, key=lambda i: (held[i], i))
            for child, integrand in _eliminate(constraints, terms, x, rates[x]):
                key = (frozenset(map(_key, child)), done | {x})
                if key in levels[depth + 1]:
                    merged = levels[depth + 1][key][1]
                    for term, c in integrand.items():
                        _add(merged, term, c)
                else:
                    levels[depth + 1][key] = (child, integrand)
        levels[depth] = {}
    return total


def _eliminate(constraints: list[Constraint], terms: Terms, x: int, rate: fmpq) -> list[tuple[list, Terms]]:
    n = len(constraints[0][0]) if constraints else len(next(iter(terms))[0])
    lowers, uppers, others = [], [], []
    for coef, point in constraints:
        a = coef[x]
        if a == 0:
            others.append((coef, point))
            continue
        # a x + rest . y + p >= 0  <=>  x >= or <= -(rest . y + p) / a
        bound = (tuple(_ZERO if i == x else -c / a for i, c in enumerate(coef)), _scaled(point, -1 / a))
        (lowers if a > 0 else uppers).append(bound)
    origin = ((_ZERO,) * n, ZERO)
    half = arb(rate / 2)
    out = []
    for sign in (1, -1):
        lo = _unique(lowers + [origin] if sign > 0 else lowers)
        hi = _unique(uppers + [origin] if sign < 0 else uppers)
        dens: Terms = {}
        for (k, r), c in terms.items():
            dens[(k, _Vec(r[:x] + (r[x] - sign * rate,) + r[x + 1:]))] = c * half
        for L in lo or [NEG_INF]:
            for U in hi or [POS_INF]:
                new = list(others)
                if lo:
                    new += [_difference(L, other) for other in lo if other is not L]
                if hi:
                    new += [_difference(other, U) for other in hi if other is not U]
                if lo and hi:
                    new.append(_difference(U, L))
                decided = _decide(new)
                if decided is None:
                    continue
                out.append((decided, _integrate(dens, x, L, U)))
    return out


def _unique(bounds: list[Constraint]) -> list[Constraint]:
    seen, out = set(), []
    for b in bounds:
        key = _key(b)
        if key not in seen:
            seen.add(key)
            out.append(b)
    return out


__all__ = ["LP_MARGIN", "infeasible", "probability"]
