"""The exact law of Anytime-Lazy-UCB's decisions on two arms (:meth:`AnytimeLazyUCB.decision_distribution
<algorithms.online.lazy_ucb.AnytimeLazyUCB.decision_distribution>`).

With K = 2 arms the decision at round t >= 3 is arm 0 exactly when

    z = v_0 / lambda_0 - v_1 / lambda_1  >=  theta_t,
    theta_t = b(t, lambda_1) - b(t, lambda_0) + S_1 / lambda_1 - S_0 / lambda_0,

where v_j is the Laplace noise of arm j's last full array (sum S_j, size lambda_j) and b(t, lambda)
= sqrt(3 ln t / lambda) + 3 ln t / (eps lambda) is eq. 4's bonus (ties, of probability zero unless
both noises are absent, go to arm 0 as in the policy). Given the table, a decision path fixes which
arm is pulled at every round, hence the rewards, the sums S_j and the rounds at which arrays fill; it
is found by depth-first branching on each comparison, pruning a branch whose constraints on the
current z are empty. While both active noises stay the same, the path's constraints on them are one
interval I of z. When arm j's array fills, its old noise is never read again and is integrated out:
the path's weight keeps the form g_0(v_0) g_1(v_1) 1{z in I} at the start of every stretch, and
integrating v_w out gives the other arm's new message

    h(v) = g_v(v) * integral g_w(w) 1{z(v, w) in I} dw = g_v(v) (G_w(alpha v + beta_hi) - G_w(alpha v + beta_lo)),

with G_w the antiderivative of g_w: a transfer along the chain of releases, each message a function
of one variable. With Laplace densities every message is piecewise a sum of terms c x^k e^{r x}
(powers of x appear where two equal rates meet), with rational rates (eps times ratios of array
sizes); :class:`Piecewise` is that algebra (product, antiderivative, affine change of variable). The
path's probability is the last transfer's total mass. A noise that is absent (the literal
initialisation: the first reward released as it is) is a unit point mass at 0 (:class:`PointMass`).

Arithmetic and error: rigorous ball (interval) arithmetic, python-flint's arb, whose every operation
(including exp, log, sqrt) returns a ball containing the exact result. Every coefficient of every piece is
a ball; so are the path probabilities, and an outcome's probability (the sum of its paths' balls) and its
log, [log lo, log hi]. The stated error of a log-probability bounds the distance from the float64
reported (the log ball's midpoint, rounded) to every point of that ball, so it is a bound, not an
estimate; the exact auditor widens its enclosures by it (``FiniteDistribution.log_error``). The first
attempt runs at :data:`PRECISION` bits (about 40 digits), which leaves path probabilities with relative
widths of 1e-35 typically, 1e-28 at most on the tables tried (T <= 14), so the error is the float64
rounding of the log, a few 1e-16.

Which paths exist, and the order of the break points, are decided exactly or not at all. The real
numbers that branch or break (thresholds, break points) are kept as exact expressions (:class:`Point`):
rational combinations of 1, ln p (p prime: ln t is factored, so ln 4 and 2 ln 2 are one expression) and
sqrt(3 ln t) (times sqrt(2) for odd log2(lambda)), built from theta_t with the sums S_j as exact
rationals (the table's float64 rewards summed without rounding) and eps as the rational value of its
float; each affine step (scaling by an array size, composing with alpha v + beta) is done on the
expression. Two points with the same expression are equal (e.g. theta_t = S_1/lambda - S_0/lambda for
all t while the sizes are equal, and the 0 of a Laplace density meeting a threshold of 0); two with
different expressions are ordered by the ball of their difference's expression, and if that ball holds
0 the whole law is computed again at twice the precision (:class:`PrecisionNeeded`), up to
:data:`MAX_PRECISION` bits, beyond which an error is raised rather than a law returned (numbers equal
in fact but not by construction would end there; none occur on these horizons). A path kept has a
probability ball that excludes 0, the same retry otherwise; a path pruned had an empty constraint
interval, decided as above.

The policy's own decisions compare float64 indices (and sum its rewards in float64); the law here is
that of the algorithm in real arithmetic, the one Theorem 2 is about. The two differ only on the event
that the two indices are within float rounding of each other, of probability of order 1e-15: below the
losses audited, but not below every margin (the exact suite entry's loss lies 7.6e-15 under eps, a
statement about the algorithm in real arithmetic, not about its float64 implementation).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, ctx, fmpq

#: working precision of the first attempt, in bits (about 40 significant digits)
PRECISION = 136
#: the precision doubles on every retry up to this (a comparison still undecided there is an error)
MAX_PRECISION = 16 * PRECISION

Terms = dict  # (power k, rate r: Fraction) -> coefficient (arb ball): sum of c x^k e^{r x}


class PrecisionNeeded(ArithmeticError):
    """Two real numbers of different expressions whose balls overlap (or a positive probability whose ball
    reaches 0) at the working precision: the computation is repeated at a higher one."""


# -- real numbers as exact expressions: Q-linear forms over a few transcendental atoms -------------------------

ONE = "1"  # the atom of the rational part


@functools.lru_cache(maxsize=4096)
def _rational_at(q: Fraction, prec: int) -> arb:
    return arb(fmpq(q.numerator, q.denominator))


def _rational(q: Fraction) -> arb:
    """A rational as a ball at the current precision (cached per precision)."""
    return _rational_at(q, ctx.prec)


@functools.lru_cache(maxsize=1024)
def _atom_at(atom: tuple, prec: int) -> arb:
    if atom[0] == "ln":  # ln p, p prime
        return arb(atom[1]).log()
    # Hybrid-UCB's base-2 bonus (algorithms.online.hybrid_law): sqrt(m), sqrt(m log2 s), sqrt(2) log2 p
    if atom[0] == "sqrt":
        return arb(atom[1]).sqrt()
    if atom[0] == "sqlog2":
        return (atom[2] * arb(atom[1]).log() / arb(2).log()).sqrt()
    if atom[0] == "r2log2":
        return arb(2).sqrt() * arb(atom[1]).log() / arb(2).log()
    _, t, root2 = atom  # sqrt(3 ln t), times sqrt(2) if root2
    value = (3 * arb(t).log()).sqrt()
    return value * arb(2).sqrt() if root2 else value


def _evaluate(form: dict) -> arb:
    total = arb(0)
    for atom, c in form.items():
        total += _rational(c) if atom == ONE else _rational(c) * _atom_at(atom, ctx.prec)
    return total


class Point:
    """A real number kept as an exact expression (``form``: atom -> rational coefficient, the atoms being 1,
    ln p for primes p, and sqrt(3 ln t) or sqrt(2) sqrt(3 ln t); for Hybrid-UCB's bonus also sqrt(m),
    sqrt(m log2 s) and sqrt(2) log2 p) with its ball at the current precision, or
    an infinity (``inf`` = +-1). Equal forms are equal numbers; different forms are ordered by their
    difference's ball, which must exclude 0 (:func:`compare`)."""

    __slots__ = ("ball", "form", "inf")

    def __init__(self, form: dict, inf: int = 0):
        self.form = {a: c for a, c in form.items() if c}
        self.inf = inf
        self.ball = None if inf else _evaluate(self.form)

    @staticmethod
    def rational(q: Fraction) -> Point:
        return Point({ONE: Fraction(q)})

    def __add__(self, other: Point) -> Point:
        if self.inf or other.inf:
            raise ArithmeticError("Point: sum with an infinity")
        form = dict(self.form)
        for a, c in other.form.items():
            form[a] = form.get(a, 0) + c
        return Point(form)

    def __sub__(self, other: Point) -> Point:
        return self + other.scale(Fraction(-1))

    def scale(self, q: Fraction) -> Point:
        """q times the number (q rational, nonzero)."""
        if self.inf:
            return Point({}, self.inf if q > 0 else -self.inf)
        return Point({a: c * q for a, c in self.form.items()})

    def __repr__(self) -> str:
        return f"Point({'+-'[self.inf < 0]}inf)" if self.inf else f"Point({self.form}, {self.ball})"


ZERO = Point({})
NEG_INF = Point({}, -1)
POS_INF = Point({}, 1)


def compare(a: Point, b: Point) -> int:
    """-1, 0 or 1 as a < b, a = b, a > b, decided rigorously: 0 only for equal expressions (or the same
    infinity), otherwise by the ball of b - a's expression, which must exclude 0 (else :class:`PrecisionNeeded`:
    numbers that are equal in fact but not by construction raise it at every precision)."""
    if a.inf or b.inf:
        return 0 if a.inf == b.inf else (-1 if a.inf < b.inf else 1)
    d = a - b
    if not d.form:
        return 0
    if d.ball < 0:
        return -1
    if d.ball > 0:
        return 1
    raise PrecisionNeeded(f"cannot order {a!r} and {b!r} at {ctx.prec} bits")


def _ln_form(t: int) -> dict:
    """ln t as a form over ln p, p prime (the logs of primes are linearly independent over Q)."""
    form, p = {}, 2
    while t > 1:
        while t % p == 0:
            form[("ln", p)] = form.get(("ln", p), 0) + Fraction(1)
            t //= p
        p += 1
    return form


def _bonus_form(t: int, lam: int, eps: Fraction) -> dict:
    """b(t, lam) = sqrt(3 ln t / lam) + 3 ln t / (eps lam) with lam = 2^r: 1/sqrt(lam) is 2^{-r/2} (r even)
    or 2^{-(r+1)/2} sqrt(2) (r odd)."""
    r = lam.bit_length() - 1
    assert lam == 1 << r
    form = {("sq", t, r % 2): Fraction(1, 2 ** ((r + r % 2) // 2))}
    for atom, c in _ln_form(t).items():
        form[atom] = c * 3 / (eps * lam)
    return form


# -- the algebra of messages ---------------------------------------------------------------------------------


def _add_term(terms: Terms, key: tuple[int, Fraction], c: arb) -> None:
    terms[key] = terms[key] + c if key in terms else c


def _exp(x: arb) -> arb:
    """e^x as a ball (one place, so that a test can break it)."""
    return x.exp()


def _eval_terms(terms: Terms, x: Point) -> arb:
    """sum c x^k e^{r x} at x, with x = -inf or +inf taken as a limit (decaying terms 0, constants kept)."""
    total = arb(0)
    if x.inf:
        for (k, r), c in terms.items():
            if k == 0 and r == 0:
                total += c
            elif not (r < 0 if x.inf > 0 else r > 0) and not c.contains(0):
                # a growing term whose coefficient's ball holds 0 is a cancelled one (0 in fact: the functions
                # limited here are bounded); one whose ball excludes 0 is an error
                raise ArithmeticError("Piecewise: a term does not vanish at infinity")
        return total
    v = x.ball
    for (k, r), c in terms.items():
        total += c * v**k * _exp(_rational(r) * v)
    return total


def _merge(a: list, b: list) -> tuple[list, list]:
    """The union of two increasing lists of break points (points equal by construction once), and for each of
    its intervals the indices of the pieces of a and b covering it."""
    out, index = [], [(0, 0)]
    i = j = 0
    while i < len(a) or j < len(b):
        c = -1 if j == len(b) else 1 if i == len(a) else compare(a[i], b[j])
        out.append(a[i] if c <= 0 else b[j])
        i, j = i + (c <= 0), j + (c >= 0)
        index.append((i, j))
    return out, index


@dataclass
class Piecewise:
    """A function on the reals: ``pieces[i]`` (a term dict) on (breaks[i-1], breaks[i]), with
    breaks[-1] = -inf and breaks[len] = +inf, the breaks finite :class:`Point` s in increasing order. Values at
    the break points themselves do not matter (the functions are integrated)."""

    breaks: list
    pieces: list
    _integral: Piecewise | None = field(default=None, repr=False, compare=False)

    @staticmethod
    def laplace(rate: Fraction) -> Piecewise:
        """The Laplace density with scale 1/rate: (rate/2) e^{-rate |x|}."""
        half = _rational(rate / 2)
        return Piecewise([ZERO], [{(0, rate): half}, {(0, -rate): half}])

    @staticmethod
    def indicator(lo: Point, hi: Point) -> Piecewise:
        """1 on (lo, hi) (either end may be infinite; lo < hi), 0 elsewhere."""
        one = {(0, Fraction(0)): arb(1)}
        breaks, pieces = [], [one]
        if not lo.inf:
            breaks, pieces = [lo], [{}, one]
        if not hi.inf:
            breaks.append(hi)
            pieces.append({})
        return Piecewise(breaks, pieces)

    def __mul__(self, other: Piecewise) -> Piecewise:
        breaks, index = _merge(self.breaks, other.breaks)
        pieces = []
        for i, j in index:
            out: Terms = {}
            for (k1, r1), c1 in self.pieces[i].items():
                for (k2, r2), c2 in other.pieces[j].items():
                    _add_term(out, (k1 + k2, r1 + r2), c1 * c2)
            pieces.append(out)
        return Piecewise(breaks, pieces)

    def __sub__(self, other: Piecewise) -> Piecewise:
        breaks, index = _merge(self.breaks, other.breaks)
        pieces = []
        for i, j in index:
            out = dict(self.pieces[i])
            for key, c in other.pieces[j].items():
                _add_term(out, key, -c)
            pieces.append(out)
        return Piecewise(breaks, pieces)

    def antiderivative(self) -> Piecewise:
        """G(x) = integral of the function from -inf to x (continuous; the first piece must decay at -inf
        and, for G(+inf) to be finite, the last at +inf). Computed once per function (a message is
        integrated on every branch that closes its stretch); the pieces must not change afterwards."""
        if self._integral is None:
            self._integral = self._antiderivative()
        return self._integral

    def _antiderivative(self) -> Piecewise:
        pieces = []
        value = arb(0)  # G at the left end of the current piece
        lefts = [NEG_INF, *self.breaks]
        for i, terms in enumerate(self.pieces):
            F: Terms = {}
            for (k, r), c in terms.items():
                if r == 0:
                    _add_term(F, (k + 1, r), c / (k + 1))
                    continue
                rate, falling = _rational(r), 1  # k! / (k - j)!
                for j in range(k + 1):
                    _add_term(F, (k - j, r), c * ((-1) ** j * falling) / rate ** (j + 1))
                    falling *= k - j
            _add_term(F, (0, Fraction(0)), value - _eval_terms(F, lefts[i]))
            pieces.append(F)
            if i < len(self.breaks):
                value = _eval_terms(F, self.breaks[i])
        return Piecewise(list(self.breaks), pieces)

    def at(self, x: Point) -> arb:
        """The value at x (at a break point: the right piece's; +-inf: the limit)."""
        if x.inf:
            return _eval_terms(self.pieces[0 if x.inf < 0 else -1], x)
        lo, hi = 0, len(self.breaks)  # the number of breaks <= x, by bisection
        while lo < hi:
            mid = (lo + hi) // 2
            if compare(self.breaks[mid], x) <= 0:
                lo = mid + 1
            else:
                hi = mid
        return _eval_terms(self.pieces[lo], x)

    def compose(self, alpha: Fraction, beta: Point) -> Piecewise:
        """x -> f(alpha x + beta), alpha > 0 rational, beta finite."""
        a, b = _rational(alpha), beta.ball
        pieces = []
        for terms in self.pieces:
            out: Terms = {}
            for (k, r), c in terms.items():
                scale = c * _exp(_rational(r) * b)
                for j in range(k + 1):
                    _add_term(out, (j, r * alpha), scale * math.comb(k, j) * a**j * b ** (k - j))
            pieces.append(out)
        return Piecewise([(p - beta).scale(1 / alpha) for p in self.breaks], pieces)


@dataclass
class PointMass:
    """``weight`` times a unit point mass at 0: an absent noise (or a message on it)."""

    weight: Any


def transfer(kept: Piecewise | PointMass, gone: Piecewise | PointMass, alpha: Fraction, lo: Point, hi: Point
             ) -> Piecewise | PointMass:
    """h(v) = kept(v) * integral gone(w) 1{alpha v + lo < w < alpha v + hi} dw (lo < hi, either may be
    infinite)."""
    if isinstance(gone, PointMass):  # 0 in (alpha v + lo, alpha v + hi)  <=>  v in (-hi/alpha, -lo/alpha)
        if isinstance(kept, PointMass):
            inside = compare(lo, ZERO) < 0 < compare(hi, ZERO)
            return PointMass(kept.weight * gone.weight if inside else arb(0))
        window = Piecewise.indicator(hi.scale(-1 / alpha), lo.scale(-1 / alpha))
        weighted = [{key: c * gone.weight for key, c in terms.items()} for terms in window.pieces]
        return kept * Piecewise(window.breaks, weighted)
    G = gone.antiderivative()

    def bound(beta: Point) -> Piecewise:
        if beta.inf > 0:
            return Piecewise([], [{(0, Fraction(0)): G.at(POS_INF)}])
        if beta.inf < 0:
            return Piecewise([], [{}])
        return G.compose(alpha, beta)

    if isinstance(kept, PointMass):
        return PointMass(kept.weight * (G.at(hi) - G.at(lo)))
    return kept * (bound(hi) - bound(lo))


def total(g: Piecewise | PointMass) -> arb:
    return g.weight if isinstance(g, PointMass) else g.antiderivative().at(POS_INF)


@dataclass
class _State:
    pulls: list
    filling: list  # reward sum of the array being filled, per arm (exact rationals)
    sums: list  # S_j: the sum of arm j's last full array
    sizes: list  # lambda_j
    messages: list  # g_j, or None before arm j's first release
    lo: Point  # I = (lo, hi), the current constraint on z
    hi: Point


def _paths(table: np.ndarray, epsilon: float, noise_rate: Fraction, literal_init: bool) -> list[tuple[list, arb]]:
    """Every decision path over the table's rounds with positive probability, and a ball enclosing its
    probability, at the current precision (module docstring); :class:`PrecisionNeeded` if that is too low."""
    T = len(table)
    eps = Fraction(epsilon)
    rewards = [[Fraction(float(x)) for x in row] for row in table]
    out: list[tuple[list, arb]] = []

    def fresh(r: int) -> Piecewise | PointMass:
        return PointMass(arb(1)) if literal_init and r == 0 else Piecewise.laplace(noise_rate)

    def close(state: _State) -> Piecewise | PointMass:
        """Integrate arm 0's noise out of the current stretch: the message on arm 1's noise."""
        lam0, lam1 = state.sizes
        # z in (lo, hi) <=> v_0 in (lam0/lam1 v_1 + lam0 lo, lam0/lam1 v_1 + lam0 hi)
        return transfer(state.messages[1], state.messages[0], Fraction(lam0, lam1),
                        state.lo.scale(Fraction(lam0)), state.hi.scale(Fraction(lam0)))

    def release(state: _State, arm: int, r: int) -> None:
        old = state.messages[arm]
        if old is not None and state.messages[1 - arm] is not None:
            lam = state.sizes
            if arm == 0:
                state.messages[1] = close(state)
            else:  # z in (lo, hi) <=> v_1 in (lam1/lam0 v_0 - lam1 hi, lam1/lam0 v_0 - lam1 lo)
                state.messages[0] = transfer(state.messages[0], old, Fraction(lam[1], lam[0]),
                                             state.hi.scale(Fraction(-lam[1])), state.lo.scale(Fraction(-lam[1])))
        state.messages[arm] = fresh(r)
        state.sums[arm], state.sizes[arm], state.filling[arm] = state.filling[arm], 2**r, Fraction(0)
        state.lo, state.hi = NEG_INF, POS_INF

    def visit(t: int, state: _State, path: list) -> None:
        if t > T:
            released = [g for g in state.messages if g is not None]
            if len(released) < 2:  # T <= 2: no comparison yet
                p = total(released[0]) if released else arb(1)
            else:
                p = total(close(state))
            if p.is_zero():  # exactly 0: a noiseless comparison excluded the path
                return
            if not p > 0:
                raise PrecisionNeeded(f"a path's probability {p} is not separated from 0 at {ctx.prec} bits")
            out.append((list(path), p))
            return
        unpulled = [j for j in (0, 1) if state.pulls[j] == 0]
        if unpulled:
            options = [(unpulled[0], state.lo, state.hi)]
        else:
            lam0, lam1 = state.sizes
            form = _bonus_form(t, lam1, eps)  # b(t, lam1) - b(t, lam0) + S_1/lam1 - S_0/lam0
            for atom, c in _bonus_form(t, lam0, eps).items():
                form[atom] = form.get(atom, 0) - c
            form[ONE] = state.sums[1] / lam1 - state.sums[0] / lam0
            theta = Point(form)
            if all(isinstance(g, PointMass) for g in state.messages):  # z = 0: a fixed decision (ties: arm 0)
                options = [(0 if compare(theta, ZERO) <= 0 else 1, state.lo, state.hi)]
            else:
                up = theta if compare(theta, state.lo) > 0 else state.lo
                down = theta if compare(theta, state.hi) < 0 else state.hi
                options = [(arm, lo, hi) for arm, lo, hi in ((0, up, state.hi), (1, state.lo, down))
                           if compare(lo, hi) < 0]
        for arm, lo, hi in options:
            branch = _State(list(state.pulls), list(state.filling), list(state.sums), list(state.sizes),
                            list(state.messages), lo, hi)
            branch.filling[arm] += rewards[t - 1][arm]
            branch.pulls[arm] += 1
            count = branch.pulls[arm]
            if t < T and count & (count + 1) == 0:  # 2^{r+1} - 1 pulls: array r is full
                release(branch, arm, count.bit_length() - 1)
            visit(t + 1, branch, path + [arm])

    zero = Fraction(0)
    visit(1, _State([0, 0], [zero, zero], [zero, zero], [1, 1], [None, None], NEG_INF, POS_INF), [])
    return out


def with_retries(compute: Callable[[], list[tuple[list, arb]]], owner: str, precision: int = PRECISION
                 ) -> dict[tuple[int, ...], arb]:
    """The paths ``compute`` returns at ``precision`` bits, computed again at twice that while a comparison is
    undecided or a probability's ball reaches 0 (:class:`PrecisionNeeded`), up to :data:`MAX_PRECISION` (then an
    ArithmeticError naming ``owner``)."""
    saved = ctx.prec
    try:
        while True:
            ctx.prec = precision
            try:
                return {tuple(p): q for p, q in compute()}
            except PrecisionNeeded as undecided:
                if 2 * precision > MAX_PRECISION:
                    raise ArithmeticError(f"{owner}: undecided at {precision} bits ({undecided})") from None
                precision *= 2
    finally:
        ctx.prec = saved


def path_probabilities(table: np.ndarray, epsilon: float, noise_rate: Fraction, literal_init: bool,
                       precision: int = PRECISION) -> dict[tuple[int, ...], arb]:
    """Every decision path with positive probability and a ball enclosing its probability (:func:`with_retries`
    from ``precision`` bits)."""
    return with_retries(lambda: _paths(table, epsilon, noise_rate, literal_init), "AnytimeLazyUCB", precision)


def _upper(x: arb) -> float:
    """A float >= every point of the ball x."""
    return math.nextafter(float(x.upper()), math.inf)


def law_of_paths(paths: dict[tuple[int, ...], arb], rounds: Sequence[int], owner: str
                 ) -> tuple[np.ndarray, np.ndarray, float]:
    """The distinct decision vectors at ``rounds`` (rows), their log-probabilities (float64) and a bound on
    the log-probabilities' error: each outcome's probability is the sum of its paths' balls, its log a ball
    [log lo, log hi], and the error bounds the distance from the float reported to every point of that ball
    (module docstring)."""
    keys = list(paths)
    index = np.asarray(rounds, dtype=np.int64) - 1
    decisions = np.array(keys, dtype=np.int64)[:, index]
    outcomes, inverse = np.unique(decisions, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    sums = [arb(0)] * len(outcomes)
    saved = ctx.prec
    try:
        ctx.prec = max(saved, PRECISION)
        for key, i in zip(keys, inverse.tolist(), strict=True):
            sums[i] += paths[key]
        logs = [s.log() for s in sums]
        merged = np.array([float(v.mid()) for v in logs])
        error = max(_upper(abs(v - arb(float(m)))) for v, m in zip(logs, merged, strict=True))
    finally:
        ctx.prec = saved
    if not math.isfinite(error):
        raise ArithmeticError(f"{owner}: a log-probability's ball is not finite")
    return outcomes, np.minimum(merged, 0.0), error


def decision_law(table: np.ndarray, rounds: Sequence[int], epsilon: float, noise_rate: Fraction,
                 literal_init: bool) -> tuple[np.ndarray, np.ndarray, float]:
    """The law of the decisions at ``rounds`` (:func:`law_of_paths` of :func:`path_probabilities`)."""
    return law_of_paths(path_probabilities(table, epsilon, noise_rate, literal_init), rounds, "AnytimeLazyUCB")

__all__ = ["MAX_PRECISION", "PRECISION", "Piecewise", "Point", "PointMass", "PrecisionNeeded", "compare",
           "decision_law", "law_of_paths", "path_probabilities", "total", "transfer", "with_retries"]
