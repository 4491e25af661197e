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

Arithmetic and error: every coefficient, break point and threshold is an mpmath number at
:data:`DIGITS` significant digits, and the whole law is computed again at :data:`DIGITS` +
:data:`CHECK_DIGITS`; the error stated for a log-probability is :data:`ERROR_FACTOR` times the larger
difference between the two computations, plus the float64 rounding of the result. This is an a
posteriori estimate of the rounding (the computation has no cancellation that a few dozen digits do
not resolve: break points are O(10) and rates O(1) on these horizons), not an interval enclosure;
the exact auditor widens its enclosures by it (``FiniteDistribution.log_error``). Which paths exist
does not hang on rounding: within a stretch the thresholds differ only through the bonus difference
b(t, lambda_1) - b(t, lambda_0), which is exactly 0 (equal sizes: the same expression twice) or strictly
monotone in t by far more than the working precision, so no branch is kept or pruned by a sliver of
rounding width (a path found at one precision and not the other raises an error instead of being
audited).

The policy's own decisions compare float64 indices; the law here is that of the algorithm in real
arithmetic. The two differ only on the event that the two indices are within float rounding of each
other, of probability of order 1e-15, far below the losses audited.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy.special import logsumexp

#: significant digits of the main computation
DIGITS = 40
#: extra digits of the check computation
CHECK_DIGITS = 20
#: the stated error is this many times the difference between the two computations
ERROR_FACTOR = 100.0

Terms = dict  # (power k, rate r: Fraction) -> coefficient (mpf): sum of c x^k e^{r x}


@functools.lru_cache(maxsize=4096)
def _mpf_at(r: Fraction, prec: int) -> Any:
    return mpmath.mpf(r.numerator) / r.denominator


def _mpf(r: Fraction) -> Any:
    """A rational rate as an mpmath number at the current precision (cached per precision)."""
    return _mpf_at(r, mpmath.mp.prec)


def _add_term(terms: Terms, key: tuple[int, Fraction], c: Any) -> None:
    terms[key] = terms.get(key, 0) + c


def _eval_terms(terms: Terms, x: Any) -> Any:
    """sum c x^k e^{r x} at x, with x = -inf or +inf taken as a limit (decaying terms 0, constants kept)."""
    if x in (mpmath.inf, -mpmath.inf):
        total = mpmath.mpf(0)
        for (k, r), c in terms.items():
            if c == 0:
                continue
            if k == 0 and r == 0:
                total += c
            elif not (r < 0 if x > 0 else r > 0):
                raise ArithmeticError("Piecewise: a term does not vanish at infinity")
        return total
    return mpmath.fsum(c * x**k * mpmath.exp(_mpf(r) * x) for (k, r), c in terms.items())


@dataclass
class Piecewise:
    """A function on the reals: ``pieces[i]`` (a term dict) on (breaks[i-1], breaks[i]), with
    breaks[-1] = -inf and breaks[len] = +inf. Values at the break points themselves do not matter (the
    functions are integrated)."""

    breaks: list
    pieces: list
    _integral: Piecewise | None = field(default=None, repr=False, compare=False)

    @staticmethod
    def laplace(rate: Fraction) -> Piecewise:
        """The Laplace density with scale 1/rate: (rate/2) e^{-rate |x|}."""
        half = _mpf(rate) / 2
        return Piecewise([mpmath.mpf(0)], [{(0, rate): half}, {(0, -rate): half}])

    @staticmethod
    def indicator(lo: Any, hi: Any) -> Piecewise:
        """1 on (lo, hi) (either end may be infinite), 0 elsewhere."""
        breaks, pieces = [], [{}]
        if lo != -mpmath.inf:
            breaks.append(lo)
            pieces = [{}, {(0, Fraction(0)): mpmath.mpf(1)}]
        else:
            pieces = [{(0, Fraction(0)): mpmath.mpf(1)}]
        if hi != mpmath.inf:
            breaks.append(hi)
            pieces.append({})
        return Piecewise(breaks, pieces)

    def _piece_at(self, left: Any) -> Terms:
        """The piece covering the interval starting at break point ``left`` (-inf: the first)."""
        return self.pieces[0 if left == -mpmath.inf else bisect.bisect_right(self.breaks, left)]

    def __mul__(self, other: Piecewise) -> Piecewise:
        breaks = sorted(set(self.breaks) | set(other.breaks))
        pieces = []
        for left in [-mpmath.inf, *breaks]:
            out: Terms = {}
            for (k1, r1), c1 in self._piece_at(left).items():
                for (k2, r2), c2 in other._piece_at(left).items():
                    _add_term(out, (k1 + k2, r1 + r2), c1 * c2)
            pieces.append(out)
        return Piecewise(breaks, pieces)

    def __sub__(self, other: Piecewise) -> Piecewise:
        breaks = sorted(set(self.breaks) | set(other.breaks))
        pieces = []
        for left in [-mpmath.inf, *breaks]:
            out = dict(self._piece_at(left))
            for key, c in other._piece_at(left).items():
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
        value = mpmath.mpf(0)  # G at the left end of the current piece
        lefts = [-mpmath.inf, *self.breaks]
        for i, terms in enumerate(self.pieces):
            F: Terms = {}
            for (k, r), c in terms.items():
                if r == 0:
                    _add_term(F, (k + 1, r), c / (k + 1))
                    continue
                rate, falling = _mpf(r), 1  # k! / (k - j)!
                for j in range(k + 1):
                    _add_term(F, (k - j, r), c * (-1) ** j * falling / rate ** (j + 1))
                    falling *= k - j
            _add_term(F, (0, Fraction(0)), value - _eval_terms(F, lefts[i]))
            pieces.append(F)
            if i < len(self.breaks):
                value = _eval_terms(F, self.breaks[i])
        return Piecewise(list(self.breaks), pieces)

    def at(self, x: Any) -> Any:
        """The value at x (at a break point: the right piece's; +-inf: the limit)."""
        if x == -mpmath.inf:
            return _eval_terms(self.pieces[0], x)
        return _eval_terms(self.pieces[bisect.bisect_right(self.breaks, x)], x)

    def compose(self, alpha: Fraction, beta: Any) -> Piecewise:
        """x -> f(alpha x + beta), alpha > 0 rational."""
        a = _mpf(alpha)
        pieces = []
        for terms in self.pieces:
            out: Terms = {}
            for (k, r), c in terms.items():
                scale = c * mpmath.exp(_mpf(r) * beta)
                for j in range(k + 1):
                    _add_term(out, (j, r * alpha), scale * math.comb(k, j) * a**j * beta ** (k - j))
            pieces.append(out)
        return Piecewise([(b - beta) / a for b in self.breaks], pieces)


@dataclass
class PointMass:
    """``weight`` times a unit point mass at 0: an absent noise (or a message on it)."""

    weight: Any


def transfer(kept: Piecewise | PointMass, gone: Piecewise | PointMass, alpha: Fraction, lo: Any, hi: Any
             ) -> Piecewise | PointMass:
    """h(v) = kept(v) * integral gone(w) 1{alpha v + lo < w < alpha v + hi} dw (lo, hi may be infinite)."""
    if isinstance(gone, PointMass):  # 0 in (alpha v + lo, alpha v + hi)  <=>  v in (-hi/alpha, -lo/alpha)
        a = _mpf(alpha)
        if isinstance(kept, PointMass):
            return PointMass(kept.weight * gone.weight * (1 if lo < 0 < hi else 0))
        window = Piecewise.indicator(-hi / a, -lo / a)
        weighted = [{key: c * gone.weight for key, c in terms.items()} for terms in window.pieces]
        return kept * Piecewise(window.breaks, weighted)
    G = gone.antiderivative()

    def bound(beta: Any) -> Piecewise:
        if beta == mpmath.inf:
            return Piecewise([], [{(0, Fraction(0)): G.at(mpmath.inf)}])
        if beta == -mpmath.inf:
            return Piecewise([], [{}])
        return G.compose(alpha, beta)

    if isinstance(kept, PointMass):
        return PointMass(kept.weight * (G.at(hi) - G.at(lo)))
    return kept * (bound(hi) - bound(lo))


def total(g: Piecewise | PointMass) -> Any:
    return g.weight if isinstance(g, PointMass) else g.antiderivative().at(mpmath.inf)


@dataclass
class _State:
    pulls: list
    filling: list  # reward sum of the array being filled, per arm
    sums: list  # S_j: the sum of arm j's last full array
    sizes: list  # lambda_j
    messages: list  # g_j, or None before arm j's first release
    lo: Any  # I = (lo, hi), the current constraint on z
    hi: Any


def _paths(table: np.ndarray, epsilon: float, noise_rate: Fraction, literal_init: bool) -> list[tuple[list, Any]]:
    """Every decision path over the table's rounds with positive probability, and its probability, at the
    current mpmath precision (module docstring)."""
    T = len(table)
    eps = mpmath.mpf(epsilon)
    out: list[tuple[list, Any]] = []

    def fresh(r: int) -> Piecewise | PointMass:
        return PointMass(mpmath.mpf(1)) if literal_init and r == 0 else Piecewise.laplace(noise_rate)

    def close(state: _State) -> Piecewise | PointMass:
        """Integrate arm 0's noise out of the current stretch: the message on arm 1's noise."""
        lam0, lam1 = state.sizes
        # z in (lo, hi) <=> v_0 in (lam0/lam1 v_1 + lam0 lo, lam0/lam1 v_1 + lam0 hi)
        return transfer(state.messages[1], state.messages[0], Fraction(lam0, lam1), lam0 * state.lo, lam0 * state.hi)

    def release(state: _State, arm: int, r: int) -> None:
        old = state.messages[arm]
        if old is not None and state.messages[1 - arm] is not None:
            lam = state.sizes
            if arm == 0:
                state.messages[1] = close(state)
            else:  # z in (lo, hi) <=> v_1 in (lam1/lam0 v_0 - lam1 hi, lam1/lam0 v_0 - lam1 lo)
                state.messages[0] = transfer(state.messages[0], old, Fraction(lam[1], lam[0]),
                                             -lam[1] * state.hi, -lam[1] * state.lo)
        state.messages[arm] = fresh(r)
        state.sums[arm], state.sizes[arm], state.filling[arm] = state.filling[arm], 2**r, 0.0
        state.lo, state.hi = -mpmath.inf, mpmath.inf

    def visit(t: int, state: _State, path: list) -> None:
        if t > T:
            released = [g for g in state.messages if g is not None]
            if len(released) < 2:  # T <= 2: no comparison yet
                p = total(released[0]) if released else mpmath.mpf(1)
            else:
                p = total(close(state))
            if p > 0:
                out.append((list(path), p))
            return
        unpulled = [j for j in (0, 1) if state.pulls[j] == 0]
        if unpulled:
            options = [(unpulled[0], state.lo, state.hi)]
        else:
            lt = mpmath.log(t)
            lam0, lam1 = (mpmath.mpf(s) for s in state.sizes)
            bonus = [mpmath.sqrt(3 * lt / lam) + 3 * lt / (eps * lam) for lam in (lam0, lam1)]
            theta = bonus[1] - bonus[0] + state.sums[1] / lam1 - state.sums[0] / lam0
            if all(isinstance(g, PointMass) for g in state.messages):  # z = 0: a fixed decision (ties: arm 0)
                options = [(0 if theta <= 0 else 1, state.lo, state.hi)]
            else:
                options = [(arm, lo, hi) for arm, lo, hi in ((0, max(state.lo, theta), state.hi),
                                                            (1, state.lo, min(state.hi, theta))) if lo < hi]
        for arm, lo, hi in options:
            branch = _State(list(state.pulls), list(state.filling), list(state.sums), list(state.sizes),
                            list(state.messages), lo, hi)
            branch.filling[arm] += float(table[t - 1, arm])
            branch.pulls[arm] += 1
            count = branch.pulls[arm]
            if t < T and count & (count + 1) == 0:  # 2^{r+1} - 1 pulls: array r is full
                release(branch, arm, count.bit_length() - 1)
            visit(t + 1, branch, path + [arm])

    visit(1, _State([0, 0], [0.0, 0.0], [0.0, 0.0], [1, 1], [None, None], -mpmath.inf, mpmath.inf), [])
    return out


def decision_law(table: np.ndarray, rounds: Sequence[int], epsilon: float, noise_rate: Fraction,
                 literal_init: bool) -> tuple[np.ndarray, np.ndarray, float]:
    """The distinct decision vectors at ``rounds`` (rows), their log-probabilities and a bound on the
    log-probabilities' error (module docstring)."""
    results = []
    for digits in (DIGITS, DIGITS + CHECK_DIGITS):
        with mpmath.workdps(digits):
            paths = _paths(table, epsilon, noise_rate, literal_init)
            results.append({tuple(p): mpmath.log(q) for p, q in paths})
    main, check = results
    if main.keys() != check.keys():
        raise ArithmeticError("AnytimeLazyUCB: the decision paths differ between the two precisions")
    keys = list(main)
    logs = np.array([float(main[k]) for k in keys])
    gap = max(float(abs(main[k] - check[k])) for k in keys)
    error = ERROR_FACTOR * gap + 4 * 2.0**-53 * float(np.abs(logs).max())
    index = np.asarray(rounds, dtype=np.int64) - 1
    decisions = np.array(keys, dtype=np.int64)[:, index]
    outcomes, inverse = np.unique(decisions, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    merged = np.array([logsumexp(logs[inverse == i]) for i in range(len(outcomes))])
    # a log-sum-exp of float64 logs adds a few units of rounding
    error += 8 * 2.0**-53 * (1 + float(np.abs(merged).max())) * math.log2(len(keys) + 1)
    return outcomes, np.minimum(merged, 0.0), error


__all__ = ["Piecewise", "PointMass", "decision_law", "total", "transfer"]
