"""The exact law of Hybrid-UCB's decisions on two arms (:meth:`HybridUCB.decision_distribution
<algorithms.online.hybrid_ucb.HybridUCB.decision_distribution>`), small horizons.

With K = 2 arms, rounds 1 and 2 pull arms 0 and 1 (the initialisation), and round t >= 3 plays arm 0 exactly
when

    N_0 / O_0 - N_1 / O_1  >=  theta_t,   theta_t = b(t, O_1) - b(t, O_0) + S_1 / O_1 - S_0 / O_0,

where O_j is arm j's number of pulls before round t, S_j the sum of its rewards, b(t, O) = sqrt(3 log2 t / O)
+ 6 sqrt(8) log2(t) floor(log2(O + 1)) / (O eps) eq. 35's bonus (as :meth:`HybridUCB.bonus`: the round t
being played, the pulls so far, base-2 logs, the index's eps), and N_j the arm's current total noise of
eq. 34: Z^(0) + ... + Z^(r-1) (array noises, Lap(2/eps), kept for ever) plus the noises of the p-sums of
leaf n's dyadic decomposition in block r (Lap(2r/eps)), r = floor(log2 O_j), n = O_j - 2^r + 1 (Z^(0)
alone at O_j = 1). Per arm: pull 1 reads Z0; 2: Z0 + Y1; 3: Z0 + Y2; 4: Z0 + Z1 + Y'1; 5: Z0 + Z1 + Y'2;
6: Z0 + Z1 + Y'2 + Y'3; 7: Z0 + Z1 + Y'4 (Y the p-sums of block 1, Y' of block 2, indexed by their last
leaf). Ties go to arm 0 (measure zero).

A decision path fixes which arm is pulled at every round, hence the rewards and sums, which noises each
comparison reads and the thresholds. Its probability is the probability that the independent Laplace
noises it reads fall in a polyhedron, one half-space per round t >= 3, computed by
:func:`algorithms.online.polytope_law.probability` (Fourier-Motzkin elimination carrying the integrand, in
ball arithmetic). The paths are enumerated depth first, branching on each comparison. No branch is empty:
from round 4 on, the arm pulled at the round before has O >= 2 pulls, and the first noise of its estimate, the
p-sum of block r ending at leaf n = O - 2^r + 1, is read by no earlier comparison (they read that arm's
estimates at fewer pulls: blocks below r, or leaves of block r below n), so given the noises of the earlier
comparisons both sides of this one have positive probability; every one of the 2^(T-2) paths (T >= 2) has
positive probability, and none is cut before its polyhedron is integrated. A path whose ball is exactly 0
(the elimination's exact comparisons found its polyhedron empty or of measure zero) would be left out.

Exact thresholds. theta_t is kept as an exact expression (:class:`~algorithms.online.lazy_law.Point`) in a
canonical form, so that numbers equal in fact are equal by construction: sqrt(3 log2 t / O), with t = s^j
(s not a perfect power) and 3 j / O = k^2 m / b^2 (m squarefree), is (k/b) sqrt(m) when s = 2 and (k/b)
sqrt(m log2 s) otherwise; the second term's log2 t is the sum of e_p log2 p over t's prime factors p^e_p,
log2 2 = 1; so the atoms are sqrt(m), sqrt(m log2 s) and sqrt(2) log2 p (p odd), with rational coefficients
(eps is the rational value of its float). Equal bonuses (O_0 = O_1) cancel by construction; different
expressions are ordered by the balls of their differences, undecided ones retried at a higher precision
(lazy_law's :data:`~algorithms.online.lazy_law.MAX_PRECISION`, then an error). The rewards are the table's
float64 values as exact rationals, summed exactly.

Arithmetic and error: as :mod:`algorithms.online.lazy_law` (arb balls at
:data:`~algorithms.online.lazy_law.PRECISION` bits, about 40 digits): an outcome's probability is the sum of
its paths' balls, and the stated error of its log-probability bounds the distance from the float64 reported
to every point of the log's ball. A path kept has a ball excluding 0 (else the whole law is recomputed at
twice the precision). The law is that of the algorithm in real arithmetic (the float64 policy's decisions
differ from it only when the two indices are within rounding of each other).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb, ctx

from .lazy_law import ONE, PRECISION, Point, PrecisionNeeded, law_of_paths, with_retries
from .polytope_law import probability


def _squarefree(n: int) -> tuple[int, int]:
    """n = k^2 m with m squarefree: (k, m)."""
    k, m, p = 1, 1, 2
    while n > 1:
        e = 0
        while n % p == 0:
            n //= p
            e += 1
        k *= p ** (e // 2)
        m *= p ** (e % 2)
        p += 1
    return k, m


def _base(t: int) -> tuple[int, int]:
    """t = s^j with s not a perfect power: (s, j)."""
    for s in range(2, t + 1):
        j, v = 0, 1
        while v < t:
            v *= s
            j += 1
        if v == t:
            return s, j
    raise ValueError(f"no base for {t}")


def bonus_form(t: int, pulls: int, eps: Fraction) -> dict:
    """Eq. 35's b(t, O) = sqrt(3 log2 t / O) + 6 sqrt(8) log2(t) floor(log2(O + 1)) / (O eps) as a canonical
    form (module docstring)."""
    form: dict = {}
    s, j = _base(t)
    q = Fraction(3 * j, pulls)
    k, m = _squarefree(q.numerator * q.denominator)
    coefficient = Fraction(k, q.denominator)  # sqrt(q x) = sqrt(num den x) / den
    atom = (ONE if m == 1 else ("sqrt", m)) if s == 2 else ("sqlog2", s, m)
    form[atom] = form.get(atom, 0) + coefficient
    c = Fraction(12 * ((pulls + 1).bit_length() - 1), pulls) / eps  # 6 sqrt(8) = 12 sqrt(2)
    rest, p = t, 2
    while rest > 1:
        e = 0
        while rest % p == 0:
            rest //= p
            e += 1
        if e:
            atom = ("sqrt", 2) if p == 2 else ("r2log2", p)
            form[atom] = form.get(atom, 0) + c * e
        p += 1
    return form


def noise_of(arm: int, pulls: int) -> list[tuple]:
    """The names of the noises in arm's total noise N after ``pulls`` pulls (module docstring):
    ("Z", arm, r) array noises and ("Y", arm, r, n) the p-sum of block r ending at leaf n."""
    if pulls == 1:
        return [("Z", arm, 0)]
    r = pulls.bit_length() - 1
    leaf = pulls - 2**r + 1
    names = [("Z", arm, i) for i in range(r)]
    while leaf:
        names.append(("Y", arm, r, leaf))
        leaf -= leaf & -leaf
    return names


def _rate(name: tuple, noise_eps: Fraction) -> Fraction:
    """Lap(2/eps) for the arrays, Lap(2r/eps) for block r's p-sums (at the noise's eps)."""
    return noise_eps / 2 if name[0] == "Z" else noise_eps / (2 * name[2])


def _dense(names: dict, constraints: list) -> list:
    n = len(names)
    out = []
    for sparse, point in constraints:
        coef = [Fraction(0)] * n
        for name, c in sparse.items():
            coef[names[name]] += c
        out.append((tuple(coef), point))
    return out


def _paths(table: np.ndarray, epsilon: float, noise_epsilon: float, prune: bool) -> list[tuple[list, arb]]:
    """Every decision path with positive probability and a ball enclosing its probability, at the current
    precision; :class:`PrecisionNeeded` if that is too low."""
    T = len(table)
    eps, noise_eps = Fraction(epsilon), Fraction(noise_epsilon)
    rewards = [[Fraction(float(x)) for x in row] for row in table]
    out: list[tuple[list, arb]] = []

    def visit(t: int, pulls: list, sums: list, names: dict, constraints: list, path: list) -> None:
        if t > T:
            rates = [_rate(name, noise_eps) for name in names]
            p = probability(rates, _dense(names, constraints), prune=prune) if constraints else arb(1)
            if p.is_zero():  # the polyhedron is empty (or of measure zero), decided exactly
                return
            if not p > 0:
                raise PrecisionNeeded(f"a path's probability {p} is not separated from 0 at {ctx.prec} bits")
            out.append((list(path), p))
            return
        if 0 in pulls:
            options = [(pulls.index(0), None)]
        else:
            form = bonus_form(t, pulls[1], eps)  # theta_t = b(t, O_1) - b(t, O_0) + S_1/O_1 - S_0/O_0
            for atom, c in bonus_form(t, pulls[0], eps).items():
                form[atom] = form.get(atom, 0) - c
            form[ONE] = form.get(ONE, 0) + sums[1] / pulls[1] - sums[0] / pulls[0]
            theta = Point(form)
            d: dict = {}  # N_0 / O_0 - N_1 / O_1
            for arm, sign in ((0, 1), (1, -1)):
                for name in noise_of(arm, pulls[arm]):
                    d[name] = d.get(name, 0) + Fraction(sign, pulls[arm])
            minus = {name: -c for name, c in d.items()}
            options = [(0, (d, theta.scale(Fraction(-1)))), (1, (minus, theta))]  # d - theta >= 0, theta - d >= 0
        for arm, constraint in options:
            new_names, new_constraints = names, constraints
            if constraint is not None:
                new_names = dict(names)
                for name in constraint[0]:
                    new_names.setdefault(name, len(new_names))
                new_constraints = constraints + [constraint]
            new_pulls, new_sums = list(pulls), list(sums)
            new_pulls[arm] += 1
            new_sums[arm] += rewards[t - 1][arm]
            visit(t + 1, new_pulls, new_sums, new_names, new_constraints, path + [arm])

    zero = Fraction(0)
    visit(1, [0, 0], [zero, zero], {}, [], [])
    return out


def path_probabilities(table: np.ndarray, epsilon: float, noise_epsilon: float, precision: int = PRECISION,
                       prune: bool = True) -> dict[tuple[int, ...], arb]:
    """Every decision path with positive probability and a ball enclosing its probability: at ``precision``
    bits, and again at twice that while a comparison is undecided or a probability's ball reaches 0, up to
    :data:`~algorithms.online.lazy_law.MAX_PRECISION` (then an ArithmeticError;
    :func:`~algorithms.online.lazy_law.with_retries`)."""
    return with_retries(lambda: _paths(table, epsilon, noise_epsilon, prune), "HybridUCB", precision)


def decision_law(table: np.ndarray, rounds: Sequence[int], epsilon: float, noise_epsilon: float
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """The distinct decision vectors at ``rounds`` (rows), their log-probabilities (float64) and a bound on
    the log-probabilities' error (:func:`~algorithms.online.lazy_law.law_of_paths`)."""
    return law_of_paths(path_probabilities(table, epsilon, noise_epsilon), rounds, "HybridUCB")

__all__ = ["bonus_form", "decision_law", "noise_of", "path_probabilities"]
