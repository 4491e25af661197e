"""Certified DP-SGD accounting (dpaudit.exact.accounting): every bound against an independent reference.

- the normal distribution function's stated error bound, against 200-bit mpmath;
- the grid's dominating and dominated steps of one pair, against its hockey-stick curve by quadrature;
- compositions: Gaussian steps (q = 1) against Balle and Wang's closed form in mpmath, and Poisson sampling for two
  steps against a two-dimensional quadrature of the composed privacy loss;
- dp_accounting's PLD both ways (its pessimistic value at or above the certified lower bound, its optimistic at or
  below the certified upper bound) and its RDP (an upper bound, so never below the certified lower bound);
- the shuffle lower bound against the value Chua et al.'s construction gives in closed form, and the
  no-amplification upper bound against the Gaussian's closed form;
- the configurations' bad input.

No test here is statistical; every tolerance is a stated accuracy.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import replace
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from dpaudit.core.dpsgd import (
    BallsAndBins,
    BatchesWithReplacement,
    ComposedDPSGD,
    DPSGDConfig,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
)
from dpaudit.exact.accounting import allocation, brackets, grid, mixtures, normal
from dpaudit.exact.accounting.brackets import certify

# -- the normal distribution function ---------------------------------------------------------------------------


def test_ndtr_bound_holds_against_200_bit_mpmath():
    rng = np.random.default_rng(1)
    xs = np.concatenate([rng.uniform(-40, 8, 20000), rng.uniform(-1, 1, 2000), -np.logspace(-8, 1.6, 2000)])
    lo, hi = normal.cdf(xs)
    s_lo, s_hi = normal.sf(-xs)  # the same values from the other side
    with mpmath.workprec(200):
        for x, a, b, c, d in zip(xs, lo, hi, s_lo, s_hi):
            true = mpmath.ncdf(mpmath.mpf(float(x)))
            assert mpmath.mpf(float(a)) <= true <= mpmath.mpf(float(b)), x
            assert mpmath.mpf(float(c)) <= true <= mpmath.mpf(float(d)), x


def test_interval_masses_enclose_and_stay_accurate_far_out():
    a = np.array([-3.0, -0.5, 5.0, 30.0])
    b = a + 1e-4
    lo, hi = normal.interval(a, a, b, b)
    with mpmath.workprec(200):
        for x, y, p, q in zip(a, b, lo, hi):
            x_, y_ = mpmath.mpf(float(x)), mpmath.mpf(float(y))
            true = mpmath.ncdf(-x_) - mpmath.ncdf(-y_)  # from the upper tails: exact at 200 bits far out too
            assert mpmath.mpf(float(p)) <= true <= mpmath.mpf(float(q))
            if true > 0:  # the upper tail's difference keeps its relative accuracy (no 1 - 1e-200 cancellation):
                # the bound's width is 2 * 64 (1 + x^2) 2^-53 Phi(-x) / (phi(x) dx), about 2e-9 at x = 30
                assert float((mpmath.mpf(float(q)) - mpmath.mpf(float(p))) / true) < 1e-8


def test_interval_masses_take_the_worst_corner_of_their_ends():
    """Ends known only to intervals: the enclosure holds Phi(b) - Phi(a) for every a and b in them, its lower end
    at most Phi(b_lo) - Phi(a_hi) and its upper at least Phi(b_hi) - Phi(a_lo), in either tail and across the middle
    (where 1 - Phi(a) - Phi(-b) is within a rounding of 1 when both ends are far out)."""
    a_lo = np.array([-3.0, -0.5, 5.0, -0.3, -2.0, -30.0, -9.0])
    b_lo = np.array([-2.5, -0.2, 5.5, 0.2, 1.0, 30.0, 9.0])
    a_hi, b_hi = a_lo + 1e-3, b_lo + 1e-3
    lo, hi = normal.interval(a_lo, a_hi, b_lo, b_hi)
    with mpmath.workprec(200):
        for x0, x1, y0, y1, p, q in zip(a_lo, a_hi, b_lo, b_hi, lo, hi):
            def mass(x, y):
                x, y = mpmath.mpf(float(x)), mpmath.mpf(float(y))
                return 1 - mpmath.ncdf(x) - mpmath.ncdf(-y) if x < 0 < y else (
                    mpmath.ncdf(y) - mpmath.ncdf(x) if y <= 0 else mpmath.ncdf(-x) - mpmath.ncdf(-y))
            assert mpmath.mpf(float(p)) <= mass(x1, y0), (x0, y0)
            assert mpmath.mpf(float(q)) >= mass(x0, y1), (x0, y0)


# -- one step ---------------------------------------------------------------------------------------------------


def _true_delta(pair: mixtures.MixturePair, eps: float) -> float:
    """delta(eps) = P(L > eps) - e^eps Q(L > eps) of a monotone pair, in 100-digit mpmath: the preimage x of eps
    by bisection, then the mixtures' tails beyond it."""
    sign = 1 if pair.increasing else -1
    with mpmath.workdps(100):
        def loss(x):
            a = mpmath.log(sum(mpmath.mpf(w) * mpmath.npdf(x, m, pair.sigma) for w, m in zip(pair.p.weights,
                                                                                            pair.p.means)))
            b = mpmath.log(sum(mpmath.mpf(w) * mpmath.npdf(x, m, pair.sigma) for w, m in zip(pair.q.weights,
                                                                                            pair.q.means)))
            return a - b
        lo, hi = pair.window()
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        if sign * loss(hi) <= sign * eps and sign * loss(lo) <= sign * eps:
            return 0.0
        for _ in range(400):
            mid = (lo + hi) / 2
            if (loss(mid) > eps) == pair.increasing:
                hi = mid
            else:
                lo = mid
        x = (lo + hi) / 2

        def tail(mix):  # mass where the loss exceeds eps: beyond x on the side where L is larger
            return sum(mpmath.mpf(w) * (mpmath.ncdf(-(x - m) / mix.sigma) if pair.increasing
                                        else mpmath.ncdf((x - m) / mix.sigma))
                       for w, m in zip(mix.weights, mix.means))
        return float(tail(pair.p) - mpmath.exp(eps) * tail(pair.q))


PAIRS = {
    "poisson remove": mixtures.MixturePair(mixtures.subsampled(0.05, 1.0, 0.8), mixtures.gaussian(0.8), True),
    "poisson add": mixtures.MixturePair(mixtures.subsampled(0.05, 1.0, 0.8), mixtures.gaussian(0.8), True).reversed(),
    "poisson replace": mixtures.MixturePair(mixtures.subsampled(0.2, 1.0, 1.5), mixtures.subsampled(0.2, -1.0, 1.5),
                                            True),
    "gaussian": mixtures.MixturePair(mixtures.gaussian(2.0, 1.0), mixtures.gaussian(2.0), True),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_one_step_brackets_the_true_curve(name):
    """The dominating split lies at or above the true curve and the dominated garbling at or below it. Close to it
    where the loss has no pile-up (within 1e-5 relative at h = 2^-12; the add direction piles mass up at the top
    of its loss's range, where the garbling can only round down what it cannot balance)."""
    pair = PAIRS[name]
    h = 2.0**-12
    first, last = mixtures.tail_to_loss_range(pair, 1e-30, h)
    cells = pair.cells(h, first, last)
    up = grid.compose([(grid.upper_step(cells), 1)])
    lo = grid.compose([(grid.lower_step(cells), 1)])
    for eps in (0.0, 0.05, 0.3, 1.0, 2.5):
        true = _true_delta(pair, eps)
        if true < 1e-12:
            continue
        assert lo.delta(eps) <= true <= up.delta(eps), (eps, true)
        tolerance = 0.1 if name == "poisson add" and eps > 0 else 1e-5
        assert up.delta(eps) - lo.delta(eps) <= tolerance * true + 1e-12, (eps, up.delta(eps), lo.delta(eps), true)


def test_the_split_keeps_both_masses_and_the_merge_never_raises_a_loss():
    pair = PAIRS["poisson remove"]
    h = 2.0**-12
    cells = pair.cells(h, *mixtures.tail_to_loss_range(pair, 1e-30, h))
    up, lo = grid.upper_step(cells), grid.lower_step(cells)
    # the split: total P-mass at least 1 (rounded up), the Q-mass it implies at most 1 plus rounding
    assert up.mass.sum() + up.infinite >= 1.0
    assert up.q_mass() <= 1 + 1e-6
    assert np.sum(up.mass * up.losses) >= 0  # KL(P || Q) >= 0, and the split only spreads
    # the garbling: at most the true mass, and its mean loss below the true KL (losses only rounded down)
    assert lo.mass.sum() <= 1.0
    kl = integrate.quad(lambda x: ((0.95 * stats.norm.pdf(x, 0, 0.8) + 0.05 * stats.norm.pdf(x, 1, 0.8))
                                   * math.log(0.95 + 0.05 * math.exp((x - 0.5) / 0.64))), -30, 30, limit=400)[0]
    assert np.sum(lo.mass * lo.losses) <= kl <= np.sum(up.mass * up.losses)


def test_grouped_outcomes_give_a_lower_bound_only():
    cells = grid.cells_from_outcomes(np.array([0.5, 0.5]), np.array([0.5, 0.5]), np.array([0.25, 0.75]),
                                     np.array([0.25, 0.75]), np.array([math.log(2), math.log(2 / 3)]), 2.0**-10)
    with pytest.raises(ValueError, match="monotone"):
        grid.upper_step(cells)
    lo = grid.compose([(grid.lower_step(cells), 1)])
    true = 0.5 * (1 - math.exp(0.1) / 2)  # the outcome with loss log 2
    assert 0.999 * true <= lo.delta(0.1) <= true


def test_knot_spacing_must_be_a_power_of_two():
    for bad in (1e-4, 0.0, -2.0**-10, math.inf):
        with pytest.raises(ValueError, match="power of two"):
            grid.check_knot(bad)


def test_a_mixtures_density_and_a_pairs_loss_carry_their_float_error():
    """The stated float error of the density and of the privacy loss covers the difference from 100-digit values
    at 2000 points across the window."""
    rng = np.random.default_rng(5)
    for pair in (PAIRS["poisson replace"], PAIRS["poisson remove"]):
        lo, hi = pair.window()
        x = rng.uniform(lo, hi, 2000)
        value, error = mixtures._density(pair.p, x[None, :])
        loss, loss_error = pair.loss(x)
        with mpmath.workdps(100):
            for i, xi in enumerate(x):
                xm = mpmath.mpf(float(xi))

                def dens(mix, at):
                    return sum(mpmath.mpf(w) * mpmath.npdf(at, m, mix.sigma) for w, m in zip(mix.weights, mix.means))
                true_d = dens(pair.p, xm)
                # the weights 1 - q carry their own rounding: the exact weights are those of the float q
                assert abs(mpmath.mpf(float(value[0, i])) - true_d) <= mpmath.mpf(float(error[0, i])), xi
                true_l = mpmath.log(true_d) - mpmath.log(dens(pair.q, xm))
                assert abs(mpmath.mpf(float(loss[i])) - true_l) <= mpmath.mpf(float(loss_error[i])), xi


def test_the_quadratures_remainder_bound_covers_its_error():
    """Six-point Gauss-Legendre on panels wider than the grid uses (the rule's error 1e-14 to 1e-5, far above the
    rounding): |rule - exact| <= the stated remainder, the exact integral from 50-digit normal distribution values."""
    mix = mixtures.subsampled(0.2, 1.0, 1.5)
    nodes, weights = np.polynomial.legendre.leggauss(mixtures.GAUSS_POINTS)
    for lo, hi in [(-1.0, 1.0), (0.5, 2.75), (-5.0, -3.5), (-3.0, 3.0), (1.0, 6.0)]:
        half, mid = (hi - lo) / 2, (hi + lo) / 2
        values, _ = mixtures._density(mix, (mid + half * nodes)[None, :])
        rule = float((weights * half * values[0]).sum())
        with mpmath.workdps(50):
            exact = sum(mpmath.mpf(w) * (mpmath.ncdf((hi - m) / mix.sigma) - mpmath.ncdf((lo - m) / mix.sigma))
                        for w, m in zip(mix.weights, mix.means))
        error = abs(mpmath.mpf(rule) - exact)
        assert error > 1e-14  # the rule's own error, not rounding, is what is bounded
        assert error <= mixtures._remainder(mix, np.array([lo]), np.array([hi]))[0]


def _true_preimages(pair, knots):
    """x with L(x) = eps for every knot, by 110 bisections in 60-digit mpmath (to 1e-30 of the window)."""
    with mpmath.workdps(60):
        def dens(mix, x):
            return sum(mpmath.mpf(w) * mpmath.npdf(x, m, mix.sigma) for w, m in zip(mix.weights, mix.means))
        out = []
        for eps in knots:
            a, b = (mpmath.mpf(v) for v in pair.window())
            for _ in range(110):
                mid = (a + b) / 2
                if (mpmath.log(dens(pair.p, mid)) - mpmath.log(dens(pair.q, mid)) > eps) == pair.increasing:
                    b = mid
                else:
                    a = mid
            out.append((a + b) / 2)
        return out


@pytest.mark.parametrize("name", ["poisson remove", "poisson add"])
def test_cells_hold_their_masses_wherever_their_ends_lie_in_the_enclosures(name, monkeypatch):
    """Cells whose ends are known only to a lopsided interval around the true preimage ([x - 3e-4, x + 1e-4]: the
    quadrature between the intervals' midpoints misses a sliver at each end): P_j and G_j = P_j - e^eps_j Q_j of the
    true cells, in 60-digit mpmath, lie inside the enclosures, which therefore carry what the slivers can add or
    take."""
    pair = PAIRS[name]
    h, first, last = 2.0**-3, -6, 12
    knots = np.arange(first, last + 1) * h
    xs = _true_preimages(pair, knots)
    x = np.array([float(v) for v in xs])
    monkeypatch.setattr(mixtures.MixturePair, "preimages", lambda self, k: (x - 3e-4, x + 1e-4))
    cells = pair.cells(h, first, last)
    with mpmath.workdps(60):
        def cdf(mix, t):
            return sum(mpmath.mpf(w) * mpmath.ncdf((t - m) / mix.sigma) for w, m in zip(mix.weights, mix.means))
        for j in range(last - first):
            lo, hi = (xs[j], xs[j + 1]) if pair.increasing else (xs[j + 1], xs[j])
            p = cdf(pair.p, hi) - cdf(pair.p, lo)
            g = p - mpmath.exp(mpmath.mpf(float(knots[j]))) * (cdf(pair.q, hi) - cdf(pair.q, lo))
            assert mpmath.mpf(float(cells.p_lo[j])) <= p <= mpmath.mpf(float(cells.p_hi[j])), j
            assert mpmath.mpf(float(cells.g_lo[j])) <= g <= mpmath.mpf(float(cells.g_hi[j])), j


# -- rigour: every rounding and error bound against exact arithmetic ------------------------------------------
# The bounds above hold by margins far wider than a float's rounding, so they cannot see a rounding taken the wrong
# way or an error bound left out. These tests compare the grid's steps, compositions, convolutions and tail cuts
# with exact integer arithmetic (python-flint) at the level of single roundings.


def _exact(x: float) -> Fraction:
    return Fraction(float(x))


def _ball(x: Fraction | float) -> flint.arb:
    """An exact rational or float as a ball (exact when it fits the working precision)."""
    x = Fraction(x)
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _random_cells(seed: int, n: int = 3000, h: float = 2.0**-10, interleaved: bool = False) -> grid.Cells:
    """Cells of every magnitude, a quarter of them subnormal or nearly, G_j anywhere in its feasible range
    [-(e^h - 1) P_j, (1 - e^-h) P_j], each enclosure a few floats wide; ``interleaved``: the subnormal cells
    scattered among the others (a subnormal excess right after a normal deficit), else the first quarter."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.5, 1.0, n) * 10.0 ** rng.integers(-320, 0, n)
    p[: n // 4] = rng.uniform(0.5, 1.0, n // 4) * 10.0 ** rng.integers(-323, -306, n // 4)  # subnormal, or nearly
    if interleaved:
        p = rng.permutation(p)
    g = p * rng.uniform(-math.expm1(h), -math.expm1(-h), n)
    return grid.Cells(h, -n // 2, p, np.nextafter(np.nextafter(p, np.inf), np.inf), np.nextafter(g, -np.inf),
                      np.nextafter(g, np.inf), 1e-31, 2e-31, 3e-31)


@contextlib.contextmanager
def _bits(prec: int = 300):
    """python-flint's working precision for the block (its balls then are far narrower than a float's ulp)."""
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        yield
    finally:
        flint.ctx.prec = old


def _enclose(fn, *args, prec: int = 300) -> flint.arb:
    with _bits(prec):
        return fn(*args)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_split_rounds_every_knot_up(seed):
    """Each knot's mass is at least what the enclosures give in exact arithmetic (300-bit balls): max(P_hi - U_lo,
    0) + U_hi of the cell below (+ the mass below the first knot), U = max(G, 0) / (1 - e^-h) capped at P_hi; and
    within a few units in the last place of the cells' masses (1 - e^-h carries 16)."""
    cells = _random_cells(seed)
    step = grid.upper_step(cells)
    full = np.zeros(len(cells.p_lo) + 1)
    full[step.offset - cells.first: step.offset - cells.first + len(step.mass)] = step.mass
    n = len(cells.p_lo)
    with _bits():
        gap = 1 - flint.arb(-cells.h).exp()

        def share(g, p_hi):  # min(max(g, 0) / gap, p_hi)
            return flint.arb(0) if g <= 0 else min(flint.arb(g) / gap, flint.arb(p_hi))

        below = flint.arb(0)  # the share cell j - 1 sends up to knot j
        for j in range(n + 1):
            need = below + (flint.arb(cells.below_hi) if j == 0 else 0)
            if j < n:
                need += max(flint.arb(cells.p_hi[j]) - share(cells.g_lo[j], cells.p_hi[j]), flint.arb(0))
                below = share(cells.g_hi[j], cells.p_hi[j])
            assert flint.arb(full[j]) >= need, j
            scale = (cells.p_hi[j] if j < n else 0.0) + (cells.p_hi[j - 1] if j else cells.below_hi)
            assert full[j] <= float(need.upper()) + 40 * 2.0**-53 * scale + 8 * 5e-324, j


@pytest.mark.parametrize("source", ["random", "interleaved", "poisson add"])
def test_the_garbling_balances_every_bucket_exactly(source):
    """The dominated step's plan, checked in exact rationals, each promise on its own: the excess it balances with is
    at most the certified excess (max(G_lo, 0)) and the deficit it balances is at least the exact upper bound over
    the enclosures, (e^h - 1) P_hi - e^h G_lo (300-bit balls); no cell gives away more than itself; every knot's
    bucket balances exactly with the plan's own numbers (own_j excess_j >= up_(j-1) deficit_(j-1)); and every
    bucket's mass is at most its exact share of the lower bounds P_lo."""
    if source in ("random", "interleaved"):
        cells = _random_cells(3, interleaved=source == "interleaved")
    else:
        pair = PAIRS[source]
        cells = pair.cells(2.0**-8, *mixtures.tail_to_loss_range(pair, 1e-30, 2.0**-8))
    plan = grid.garbling(cells)
    step = grid.lower_step(cells)
    n = len(cells.p_lo)
    own, up = [_exact(v) for v in plan.own], [_exact(v) for v in plan.up]
    excess, deficit = [_exact(v) for v in plan.excess], [_exact(v) for v in plan.deficit]
    assert all(o >= 0 and u >= 0 and o + u <= 1 for o, u in zip(own, up))
    with _bits():
        e_h = flint.arb(cells.h).exp()
        for j in range(n):
            assert excess[j] <= max(_exact(cells.g_lo[j]), Fraction(0)), j
            worst = (e_h - 1) * flint.arb(cells.p_hi[j]) - e_h * flint.arb(cells.g_lo[j])
            assert _ball(deficit[j]) >= worst, j
    full = np.zeros(n + 1)
    full[step.offset - cells.first: step.offset - cells.first + len(step.mass)] = step.mass
    for j in range(n + 1):
        if j:  # knot j's bucket: the fraction own_j of cell j against the fraction up_(j-1) of cell j - 1
            assert (own[j] * excess[j] if j < n else 0) >= up[j - 1] * deficit[j - 1], j
        share = (own[j] * _exact(cells.p_lo[j]) if j < n else _exact(cells.above_lo)) + (
            up[j - 1] * _exact(cells.p_lo[j - 1]) if j else 0)
        assert _exact(full[j]) <= share, j


def test_whether_two_floats_sum_past_one_is_decided_exactly():
    """The garbling's test x + y > 1 in floats (TwoSum) against rationals: sums that round to 1 from either side,
    one of them 1 - a for a from 2^-1074 to 1/2 (its remainder check), tiny and subnormal terms, random pairs;
    on arrays and on scalars."""
    rng = np.random.default_rng(7)
    a = np.concatenate([rng.uniform(0, 0.5, 4000), 2.0 ** -rng.uniform(1, 1074, 4000), [0.0, 5e-324, 2.0**-53,
                        2.0**-54, 2.0**-52, 2.0**-53 + 2.0**-105, np.nextafter(0.5, 0)]])
    x = np.concatenate([1.0 - a, np.nextafter(1.0 - a, 0.0), np.nextafter(1.0 - a, 2.0), rng.uniform(0, 1, 4000)])
    y = np.concatenate([a, a, a, rng.uniform(0, 1, 4000)])
    exact = np.array([Fraction(u) + Fraction(v) > 1 for u, v in zip(x.tolist(), y.tolist())])
    assert 0.2 < exact.mean() < 0.8  # both answers, many times
    np.testing.assert_array_equal(grid._exceeds_one(x, y), exact)
    np.testing.assert_array_equal(grid._exceeds_one(y, x), exact)
    assert [bool(grid._exceeds_one(u, v)) for u, v in zip(x[::97].tolist(), y[::97].tolist())] == exact[::97].tolist()


def test_the_garblings_ratios_round_outwards_at_every_magnitude():
    """x y / z rounded up and down encloses the exact rational, also where it is subnormal (a float margin 1 +- 4u
    leaves a subnormal where it is) and where it is beyond the floats (up: inf)."""
    rng = np.random.default_rng(4)
    n = 3000
    x = rng.uniform(0.5, 1.0, n) * 10.0 ** rng.integers(-323, 1, n)
    y = rng.uniform(0.0, 1.0, n)
    z = rng.uniform(0.5, 1.0, n) * 10.0 ** rng.integers(-323, 1, n)
    for a, b, c in zip(x.tolist(), y.tolist(), z.tolist()):
        exact = Fraction(a) * Fraction(b) / Fraction(c)
        up, down = grid._ratio(a, b, c, upward=True), grid._ratio(a, b, c, upward=False)
        assert Fraction(down) <= exact, (a, b, c)
        assert up == math.inf or exact <= Fraction(up), (a, b, c)
    assert grid._ratio(1.0, 1.0, 5e-324, upward=True) == math.inf
    assert grid._ratio(1.0, 1.0, 5e-324, upward=False) == np.finfo(float).max


@pytest.mark.parametrize("side", [grid.UPPER, grid.LOWER])
def test_a_tilted_step_keeps_each_mass_on_its_side(side):
    """Composed's promise, cell by cell in 300-bit balls: pmf_i 2^exponent e^(log_base - theta l_i) is at least the
    step's mass on the upper side and at most it on the lower (each tilted mass widened by its float error)."""
    rng = np.random.default_rng(5)
    n, h = 600, 2.0**-10
    mass = rng.uniform(0.5, 1.0, n) * 10.0 ** rng.integers(-250, 0, n)
    step = grid.Step(side, h, -n // 3, mass, 0.0)
    for theta in (0.0, 0.7, 29.7, -3.0):
        tilted = grid._tilted(step, theta)
        with _bits():
            scale = flint.arb(2) ** tilted.exponent
            for i in np.flatnonzero(tilted.pmf >= 2.0**-1022).tolist():
                loss = (step.offset + i) * h
                untilt = (flint.arb(tilted.log_base) - flint.arb(theta) * _ball(loss)).exp()
                value = _ball(tilted.pmf[i]) * scale * untilt
                assert (value >= _ball(mass[i])) if side == grid.UPPER else (value <= _ball(mass[i])), (theta, i)


def _power_exactly(step: grid.Step, k: int) -> tuple[list[int], int]:
    """The k-fold convolution of the step's masses in integers: (coefficients, e) with masses coefficient 2^-e."""
    poly = flint.fmpz_poly([int(_exact(m) * (1 << 1074)) for m in step.mass]) ** k
    return [int(c) for c in poly.coeffs()], 1074 * k


def _delta_exactly(coeffs: list[int], e: int, offset: int, h: float, eps: float, infinite: Fraction) -> flint.arb:
    def value():
        total = flint.arb(infinite.numerator) / infinite.denominator
        scale = flint.arb(2) ** -e
        for i, c in enumerate(coeffs):
            loss = (offset + i) * h
            if c and loss > eps:
                total += flint.arb(c) * scale * (1 - (flint.arb(eps) - flint.arb(loss)).exp())
        return total
    return _enclose(value, prec=400)


COMPOSED = {  # a two-sided spread of losses, and a spike (a rarely sampled example: the direct convolution path)
    "replace": (mixtures.MixturePair(mixtures.subsampled(0.2, 1.0, 1.5), mixtures.subsampled(0.2, -1.0, 1.5), True),
                2.0**-4),
    "spike": (mixtures.MixturePair(mixtures.subsampled(0.002, 1.0, 1.0), mixtures.gaussian(1.0), True), 2.0**-6),
}


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_compositions_bracket_the_exact_convolution_of_their_steps(name):
    """Twelve steps composed (untilted and tilted towards delta = 1e-10), against the exact twelve-fold convolution of
    the same steps' masses: the upper side's delta at or above it and the lower side's at or below, at 40 values of
    eps up to the top of the support (where only the mass at +inf and the cut tails remain), and each side's
    eps(delta) certified by its own delta and by the exact one. Any FFT error, truncated tail or untilt rounding not
    carried shows here."""
    pair, h = COMPOSED[name]
    k = 12
    cells = pair.cells(h, *mixtures.tail_to_loss_range(pair, 1e-30, h))
    up, lo = grid.upper_step(cells), grid.lower_step(cells)
    assert name != "spike" or grid._split(up.mass) is not None
    cu, eu = _power_exactly(up, k)
    cl, el = _power_exactly(lo, k)
    infinite = 1 - (1 - _exact(up.infinite)) ** k
    top = (k * up.offset + len(cu)) * h
    for theta in (0.0, grid.tilt([(up, k)], delta=1e-10)):
        upper, lower = grid.compose([(up, k)], theta), grid.compose([(lo, k)], theta)
        for eps in np.linspace(0.0, top, 40):
            assert flint.arb(upper.delta(eps)) >= _delta_exactly(cu, eu, k * up.offset, h, eps, infinite), eps
            assert flint.arb(lower.delta(eps)) <= _delta_exactly(cl, el, k * lo.offset, h, eps, Fraction(0)), eps
        for delta in (1e-3, 1e-10):
            e_up = upper.epsilon(delta)
            e_lo = lower.epsilon(delta, hint=e_up)
            assert upper.delta(e_up) <= delta
            assert _delta_exactly(cu, eu, k * up.offset, h, e_up, infinite) <= delta
            assert lower.delta(e_lo) > delta
            assert e_lo <= e_up


def _convolved_exactly(a: np.ndarray, b: np.ndarray) -> list[Fraction]:
    poly = flint.fmpz_poly([int(_exact(x) * (1 << 1074)) for x in a]) * flint.fmpz_poly(
        [int(_exact(x) * (1 << 1074)) for x in b])
    coeffs = [int(c) for c in poly.coeffs()]
    coeffs += [0] * (len(a) + len(b) - 1 - len(coeffs))
    return [Fraction(c, 1 << 2148) for c in coeffs]


@pytest.mark.parametrize("shape", ["dense", "spike alone", "spike and rest"])
def test_a_convolutions_stated_error_bounds_its_actual_error(shape):
    """The 1-norm error of each convolution path against exact integer convolution: FFT (Higham's bound), a spike
    convolved directly (its roundings), and both."""
    rng = np.random.default_rng(7)
    b = rng.uniform(0, 1, 300) * 10.0 ** rng.uniform(-8, 0, 300)
    if shape == "dense":
        a = rng.uniform(0, 1, 200)
    else:
        a = np.zeros(200)
        a[rng.choice(200, 20, replace=False)] = rng.uniform(0.1, 1, 20)
        if shape == "spike and rest":
            a += rng.uniform(0, 1e-6, 200)
    out, error = grid._convolve(a, b)
    exact = _convolved_exactly(a, b)
    actual = sum(abs(_exact(x) - y) for x, y in zip(out, exact))
    assert actual > 0  # the case has rounding to bound
    assert actual <= _exact(error)


def test_a_product_carries_its_operands_errors():
    """|a' * b' - a * b|_1 <= |a' - a|_1 (|b|_1 + |b' - b|_1) + |a|_1 |b' - b|_1: the product's stated error is at
    least that of its operands' stated errors, plus the convolution's own."""
    pair, h = COMPOSED["replace"]
    cells = pair.cells(h, *mixtures.tail_to_loss_range(pair, 1e-30, h))
    base = grid._tilted(grid.upper_step(cells), 0.0)
    a, b = replace(base, error=1e-6), replace(base, error=3e-7)
    product = grid._product(a, b)
    _, stage = grid._convolve(a.pmf, b.pmf)
    sa, sb = _exact(a.pmf.sum()), _exact(b.pmf.sum())
    needed = _exact(1e-6) * (sb + _exact(3e-7)) + sa * _exact(3e-7) + _exact(stage)
    # the product is renormalised by a power of two: its error in the operands' units
    assert _exact(product.error) * Fraction(2) ** (product.exponent - a.exponent - b.exponent) >= needed


def test_truncation_keeps_the_cut_tails_on_the_upper_side():
    """A law with all but 2e-35 of its mass in the middle and two atoms of 1e-35 below and above (Chernoff's bound is
    tight for an atom: its cut is certified to within e^-64): after the cut, the upper side holds at least the cut
    mass at +inf and at the new lowest loss; the lower side only drops mass."""
    h = 2.0**-4
    mass = np.zeros(301)
    mass[0], mass[-1] = 1e-35, 1e-35
    mass[140:161] = (1 - 2e-35) / 21
    for side in (grid.UPPER, grid.LOWER):
        step = grid.Step(side, h, -150, mass, 0.0)
        before = grid._tilted(step, 0.0)
        after = grid._truncated(before)
        assert len(after.pmf) < len(before.pmf)  # both tails were cut

        def untilted(c, i):
            w, _ = c._log_weight(c.losses[i:i + 1])
            return _exact(c.pmf[i]) * Fraction(math.exp(float(w[0])))

        if side == grid.UPPER:
            assert _exact(after.infinite) >= Fraction(1e-35)  # the top atom, sent to +inf
            first = after.offset - before.offset  # everything below the new first loss moved up to it
            moved = sum(untilted(before, i) for i in range(first + 1))
            assert untilted(after, 0) >= moved * (1 - Fraction(1, 2**40))
        else:
            assert after.infinite == 0
            for i in range(len(after.pmf)):
                assert after.pmf[i] <= before.pmf[after.offset - before.offset + i]


@pytest.mark.parametrize("side", [grid.UPPER, grid.LOWER])
def test_the_tails_moments_and_chernoff_bounds_hold_exactly(side):
    """Each step's log E[e^(+-s L)] is at least the exact one (300-bit balls, at every s), and the Chernoff bound at
    every knot is at least the exact mass at or above it (at or below it): on a law with atoms at both ends, where
    the bound at an end is the end's own mass to within e^-64."""
    h = 2.0**-4
    rng = np.random.default_rng(6)
    mass = rng.uniform(0.0, 1.0, 81) * 10.0 ** rng.integers(-12, 0, 81)
    mass[0], mass[-1] = 3e-9, 2e-7
    mass /= mass.sum()
    step = grid.Step(side, h, -40, mass, 0.0)
    c = grid._tilted(step, 0.0)
    exact = [_exact(m) for m in step.mass]
    losses = step.losses
    with _bits():
        for sign, moments in ((1.0, c.log_mgf_pos), (-1.0, c.log_mgf_neg)):
            for s, m in zip(grid.CHERNOFF, moments):
                true = sum(_ball(e) * (flint.arb(sign * s) * _ball(x)).exp() for e, x in zip(exact, losses.tolist()))
                assert flint.arb(m) >= true.log(), (sign, s)
    for i, level in enumerate(losses.tolist()):
        # (the floats' exact sum may pass 1 by a rounding; a probability bound is capped at 1)
        assert _exact(grid._chernoff(c, level, upper=True)) >= min(sum(exact[i:]), 1), level
        assert _exact(grid._chernoff(c, level, upper=False)) >= min(sum(exact[: i + 1]), 1), level


@pytest.mark.parametrize("side", [grid.UPPER, grid.LOWER])
def test_a_compositions_delta_encloses_its_own_representation_exactly(side):
    """Composed.delta against the exact hockey-stick sum of what it represents (300-bit balls): the sum of pmf_i
    2^exponent e^(log_base - theta l_i) (1 - e^(eps - l_i)) over l_i > eps, plus +inf's mass on the upper side; at
    or above it on the upper side, at or below on the lower. Losses up to 40 and tilts up to 29.7 make the untilt's
    float error hundreds of ulps, which no final rounding covers."""
    h = 2.0**-6
    rng = np.random.default_rng(7)
    mass = rng.uniform(0.0, 1.0, 5121) * 10.0 ** rng.integers(-30, 0, 5121)
    mass *= 0.5 / mass.sum()  # a sub-probability: delta is capped at 1
    for theta in (0.0, 3.0, 29.7):
        step = grid.Step(side, h, -2560, mass, 1e-9 if side == grid.UPPER else 0.0)
        c = grid._tilted(step, theta)
        assert c.error == 0.0  # the delta below is of the representation alone
        for eps in (-5.0, 0.0, 1.0, 7.5, 20.0, 38.0):
            with _bits():
                scale = flint.arb(2) ** c.exponent
                exact = _ball(c.infinite)
                for i in np.flatnonzero((c.losses > eps) & (c.pmf > 0)).tolist():
                    loss = _ball(c.losses[i])
                    untilt = (flint.arb(c.log_base) - flint.arb(theta) * loss).exp()
                    exact += _ball(c.pmf[i]) * scale * untilt * (1 - (flint.arb(eps) - loss).exp())
                bound = _ball(c.delta(eps))
                assert (bound >= exact) if side == grid.UPPER else (bound <= exact), (theta, eps)


def test_one_steps_delta_is_rounded_outwards():
    """A step of exact masses read without composition (untilted and tilted): the upper side's delta(eps) at or
    above the exact value and the lower side's at or below, at every knot and between them; the float sums and the
    untilt round by ulps, so only their carried error keeps the order."""
    rng = np.random.default_rng(11)
    h = 2.0**-6
    mass = rng.uniform(0, 1, 400) * 10.0 ** rng.uniform(-30, 0, 400)
    mass = np.ldexp(mass, -math.ceil(math.log2(mass.sum())))  # total at most 1, exactly scaled
    coeffs = [int(_exact(m) * (1 << 1074)) for m in mass]
    for theta in (0.0, 2.5):
        upper = grid.compose([(grid.Step(grid.UPPER, h, -100, mass, 0.0), 1)], theta)
        lower = grid.compose([(grid.Step(grid.LOWER, h, -100, mass, 0.0), 1)], theta)
        for eps in np.concatenate([np.arange(-100, 300, 7) * h, np.arange(-100, 300, 7) * h + h / 3]):
            exact = _delta_exactly(coeffs, 1074, -100, h, eps, Fraction(0))
            assert flint.arb(upper.delta(eps)) >= exact, (theta, eps)
            assert flint.arb(lower.delta(eps)) <= exact, (theta, eps)


# -- compositions -----------------------------------------------------------------------------------------------


def _gaussian_eps(mu: float, delta: float) -> float:
    """Balle and Wang's eps(delta) for N(mu, 1) against N(0, 1), by bisection in 200-bit mpmath."""
    with mpmath.workprec(200):
        def d(e):
            e = mpmath.mpf(e)
            return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
        lo, hi = mpmath.mpf(0), mpmath.mpf(100)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
        return float(hi)


@pytest.mark.parametrize("z,steps,delta", [(10.0, 100, 1e-5), (30.0, 1000, 1e-5), (5.0, 16, 1e-10)])
def test_gaussian_steps_bracket_the_closed_form(z, steps, delta):
    """q = 1: k Gaussian steps are one Gaussian with mu = sqrt(k) / z; the bracket holds it within 1e-5."""
    b = certify(DPSGDConfig(PoissonBatches(1.0), z, steps=steps), delta=delta)
    true = _gaussian_eps(math.sqrt(steps) / z, delta)
    assert b.eps_lower <= true <= b.eps_upper
    assert b.eps_upper - b.eps_lower <= 1e-5 * max(true, 1)
    assert b.tight


def test_two_poisson_steps_bracket_a_two_dimensional_quadrature():
    """delta(eps) of two steps is E over the first step's x of the one-step delta at eps - L(x): the inner one in
    closed form (the loss is monotone: P(X > x') - e^eps' Q(X > x') at eps''s preimage x'), the outer by quadrature
    (error ~1e-12)."""
    q, z, eps = 0.3, 1.0, 0.4

    def loss(x):
        return math.log(1 - q + q * math.exp((x - 0.5) / z**2))

    def one_step(e):
        if e <= math.log(1 - q):
            return 1 - math.exp(e)
        x = z**2 * math.log((math.exp(e) - 1 + q) / q) + 0.5
        p_tail = (1 - q) * stats.norm.sf(x, 0, z) + q * stats.norm.sf(x, 1, z)
        return p_tail - math.exp(e) * stats.norm.sf(x, 0, z)

    def density_p(x):
        return (1 - q) * stats.norm.pdf(x, 0, z) + q * stats.norm.pdf(x, 1, z)

    true = integrate.quad(lambda x: density_p(x) * one_step(eps - loss(x)), -14, 16, limit=1000, epsabs=1e-14,
                          epsrel=1e-12)[0]
    b = certify(DPSGDConfig(PoissonBatches(q), z, steps=2), epsilon=eps)
    assert b.delta_lower <= true <= b.delta_upper
    assert b.delta_upper - b.delta_lower <= 1e-5 * true


def test_poisson_against_dp_accountings_pld_and_rdp():
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    q, z, k, delta = 0.01, 1.0, 1000, 1e-5
    b = certify(DPSGDConfig(PoissonBatches(q), z, steps=k), delta=delta)
    pessimistic = pldm.from_gaussian_mechanism(z, sampling_prob=q, value_discretization_interval=1e-4,
                                               pessimistic_estimate=True).self_compose(k)
    optimistic = pldm.from_gaussian_mechanism(z, sampling_prob=q, value_discretization_interval=1e-4,
                                              pessimistic_estimate=False, use_connect_dots=False).self_compose(k)
    accountant = rdp.RdpAccountant()
    accountant.compose(dp_accounting.dp_event.PoissonSampledDpEvent(q, dp_accounting.dp_event.GaussianDpEvent(z)), k)
    assert optimistic.get_epsilon_for_delta(delta) <= b.eps_upper
    assert b.eps_lower <= pessimistic.get_epsilon_for_delta(delta)
    assert b.eps_lower <= accountant.get_epsilon(delta)
    # certified and tight: narrower than dp_accounting's own two roundings by two orders of magnitude
    assert b.eps_upper - b.eps_lower < (pessimistic.get_epsilon_for_delta(delta)
                                        - optimistic.get_epsilon_for_delta(delta)) / 100
    assert abs(b.eps_upper - 1.828244) < 1e-4  # dp_accounting's pessimistic value at 1e-4 (its CTD is tight here)


def test_both_orders_are_composed_and_the_larger_is_reported():
    b = certify(DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000), delta=1e-5)
    forward, backward = b.details["directions"]["forward"], b.details["directions"]["backward"]
    assert forward["eps_upper"] > backward["eps_upper"] + 0.3  # the remove direction dominates here
    assert b.eps_upper == max(forward["eps_upper"], backward["eps_upper"])
    assert b.witness["order"] == "forward"


def test_whichever_order_is_larger_is_reported(monkeypatch):
    """The bracket combines the two orders by taking the larger bound: with the orders' steps swapped (so the larger
    curve is the backward one) every end of the bracket is unchanged and the witness names the backward order."""
    run = DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000)
    h = 2.0**-12
    plain = certify(run, delta=1e-5, epsilon=1.0, knot=h)
    f, b = brackets.FORWARD, brackets.BACKWARD
    swapped = [replace(p, upper={f: p.upper[b], b: p.upper[f]}, lower={f: p.lower[b], b: p.lower[f]})
               for p in brackets.pieces(run, h)]
    monkeypatch.setattr(brackets, "pieces", lambda run, knot: swapped)
    b = certify(run, delta=1e-5, epsilon=1.0, knot=h)
    assert (b.eps_lower, b.eps_upper, b.delta_lower, b.delta_upper) == (plain.eps_lower, plain.eps_upper,
                                                                        plain.delta_lower, plain.delta_upper)
    assert plain.witness["order"] == "forward" and b.witness["order"] == "backward"


def test_the_closed_form_gaussian_encloses_balle_and_wangs_delta():
    """The closed form used where an allocation's losses exceed the grid: (lo, hi) around delta(eps) of the Gaussian
    pair with parameter mu^2, against 400-bit mpmath, for mu from 1e-3 to 1e4 (delta from 1 to far below floats)."""
    for mu2 in (Fraction(1, 10**6), Fraction(1, 3), Fraction(2), Fraction(49, 3), Fraction(10**4), Fraction(10**8)):
        for eps in (0.0, 0.1, 1.0, 7.5, 40.0, 3000.0):
            lo, hi = brackets.gaussian_delta(mu2, eps)
            with mpmath.workprec(400):
                mu = mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
                e = mpmath.mpf(eps)
                true = mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
                assert mpmath.mpf(lo) <= true <= mpmath.mpf(hi), (mu2, eps)


def test_replace_one_poisson_matches_dp_accountings_replace_one_pld():
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant as pa

    b = certify(DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000, relation="replace-one"), delta=1e-5)
    accountant = pa.PLDAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE,
                                  value_discretization_interval=1e-4)
    accountant.compose(dp_accounting.dp_event.PoissonSampledDpEvent(0.01, dp_accounting.dp_event.GaussianDpEvent(1.0)),
                       1000)
    assert b.eps_lower <= accountant.get_epsilon(1e-5) <= b.eps_upper + 1e-4
    assert b.tight


def test_fixed_size_replace_one_refutes_rdp_read_with_the_clip_norm_as_sensitivity():
    """dp_accounting's RDP of SampledWithoutReplacementDpEvent under REPLACE_ONE takes the noise multiplier
    relative to the replace-one sensitivity (2C for clipped sums), while GaussianDpEvent documents it as s / C
    (google/differential-privacy#378): given s / C it reports 3.58, below the certified lower bound; given
    s / (2C) it is above the certified upper bound."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    b = certify(DPSGDConfig(FixedSizeBatches(100, 10000), 1.0, steps=1000, relation="replace-one"), delta=1e-5)
    eps = {}
    for z in (1.0, 0.5):
        accountant = rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        accountant.compose(dp_accounting.dp_event.SampledWithoutReplacementDpEvent(
            10000, 100, dp_accounting.dp_event.GaussianDpEvent(z)), 1000)
        eps[z] = accountant.get_epsilon(1e-5)
    assert eps[1.0] < b.eps_lower < b.eps_upper < eps[0.5]
    assert not b.tight  # the symmetrised pair: either order at every step


@pytest.mark.parametrize("swap", [False, True], ids=["forward first", "backward first"])
def test_symmetrised_step_dominates_both_orders_at_every_knot(swap):
    """Whichever order is given first (the second's curve then lies above the first's at eps > 0, and the mass at
    +inf must carry the difference), the symmetrised step's curve is at least both at every knot."""
    h = 2.0**-12
    a2 = mixtures.MixturePair(mixtures.subsampled(0.05, 2.0, 1.0), mixtures.gaussian(1.0), True)
    up_f, _ = brackets._mixture_steps(a2, h)
    up_b, _ = brackets._mixture_steps(a2.reversed(), h)
    first, second = (up_b, up_f) if swap else (up_f, up_b)
    sym = brackets.symmetrised(first, second)
    cs = grid.compose([(sym, 1)])
    cf, cb = grid.compose([(up_f, 1)]), grid.compose([(up_b, 1)])
    for eps in np.linspace(-3, 4, 29):
        assert cs.delta(eps) >= max(cf.delta(eps), cb.delta(eps)) * (1 - 1e-9) - 1e-15, eps
    if not swap:
        for eps in (0.1, 1.0, 3.0):  # above 0 it is the forward pair's: nothing but rounding added
            assert cs.delta(eps) <= cf.delta(eps) * (1 + 1e-6) + 1e-12


def test_fixed_size_replace_one_steps_dominate_either_order():
    """The step fixed-size batches compose under replace-one is at least the realised pair's curve in both orders
    at every eps (so it holds whichever dataset of a pair each step's batch sees)."""
    h = 2.0**-11
    run = DPSGDConfig(FixedSizeBatches(500, 10000), 0.8, steps=10, relation="replace-one")
    piece = brackets.pieces(run, h)[0]
    gamma = 500 / 10000
    a2 = mixtures.MixturePair(mixtures.subsampled(gamma, 2.0, 0.8), mixtures.gaussian(0.8), True)
    up_f, _ = brackets._mixture_steps(a2, h)
    up_b, _ = brackets._mixture_steps(a2.reversed(), h)
    cs = grid.compose([(piece.upper[brackets.FORWARD], 1)])
    assert piece.upper[brackets.BACKWARD] is piece.upper[brackets.FORWARD]
    cf, cb = grid.compose([(up_f, 1)]), grid.compose([(up_b, 1)])
    for eps in np.linspace(-3, 4, 29):
        assert cs.delta(eps) >= max(cf.delta(eps), cb.delta(eps)) * (1 - 1e-9) - 1e-15, eps


# -- samplers that put each example in one batch per epoch ------------------------------------------------------


def test_shuffle_lower_bound_is_chua_et_als_and_the_upper_the_gaussian():
    """One epoch of 1000 singleton batches, the pair MoG(2) against MoG(1): Chua et al. (ICML 2024) report
    eps about 5.24 at z = 0.8 and 2.88 at z = 1 for delta 1e-5; the no-amplification upper bound is the
    Gaussian with mu = 1 / z."""
    for z, reported in ((0.8, 5.235), (1.0, 2.882)):
        b = certify(DPSGDConfig(ShuffledBatches(1, 1000), z, epochs=1, relation="zero-out"), delta=1e-5)
        assert abs(b.eps_lower - reported) < 2e-3
        assert abs(b.eps_upper - _gaussian_eps(1 / z, 1e-5)) < 1e-4


def test_one_order_for_every_epoch_is_one_epoch_at_sqrt_e_times_the_shift():
    four = certify(DPSGDConfig(ShuffledBatches(1, 200, reshuffle=False), 1.6, epochs=4, relation="zero-out"),
                   delta=1e-5)
    one = certify(DPSGDConfig(ShuffledBatches(1, 200), 0.8, epochs=1, relation="zero-out"), delta=1e-5)
    assert four.eps_lower == pytest.approx(one.eps_lower, abs=1e-6)
    reshuffled = certify(DPSGDConfig(ShuffledBatches(1, 200), 1.6, epochs=4, relation="zero-out"), delta=1e-5)
    assert reshuffled.eps_lower < four.eps_lower  # reshuffling composes weaker lower bounds (Chua et al. 2024)


def test_a_one_point_last_batch_averaged_over_itself_is_not_private():
    """n = 2049, batches of 2048, the last batch of one point averaged over its own size: that point is revealed
    whenever it lands there, so delta(eps) >= 1 - (1 - 1/2049)^E at any moderate eps."""
    b = certify(DPSGDConfig(ShuffledBatches(2048, 2049, partial="own"), 1.5, epochs=50, relation="zero-out"),
                epsilon=10.0)
    assert b.delta_lower >= 0.999 * (1 - (1 - 1 / 2049) ** 50)
    assert b.delta_upper == pytest.approx(1.0)


def test_the_allocations_log_cdf_encloses_the_exact_one_with_the_true_shifts():
    """log P(M <= c) enclosed although the allocation holds each shift one rounding from the true one: a one-point
    batch's 2048 / z and a full batch's 1 / z, exactly as rationals, against 120-digit mpmath at c around the large
    shift (where c - shift is exact and Phi's slope there turns the shift's rounding into hundreds of ulps of the
    mixture term, beyond the normal enclosure's allowance at x near 0)."""
    for z in (0.7, 0.35, 1.3):
        true_shifts = (Fraction(2048) / Fraction(z), 1 / Fraction(z))
        pair = allocation.Allocation(tuple((1, 0.5, float(s), 0.0) for s in true_shifts))
        c = float(true_shifts[0]) + np.arange(-60, 61) * 2.0**-6
        lo, hi = pair.log_cdf(c, "p")
        with mpmath.workdps(120):
            for x, low, high in zip(c.tolist(), lo.tolist(), hi.tolist()):
                mix = sum(mpmath.mpf(0.5) * mpmath.ncdf(mpmath.mpf(x) - mpmath.mpf(s.numerator) / s.denominator)
                          for s in true_shifts)
                exact = (pair.batches - 1) * mpmath.log(mpmath.ncdf(x)) + mpmath.log(mix)
                assert mpmath.mpf(low) <= exact <= mpmath.mpf(high), (z, x)


def test_the_max_tests_tails_hold_for_the_true_shifts_and_weights():
    """_certified_tails' P(E) at most, and Q(E) at least, the event's probabilities for the exact parameters the
    allocation's floats stand for (2048 / z, 1 / z and weights 1/3, 2/3 as rationals; 120-digit mpmath), at
    thresholds near the large shift, where a shift's rounding moves P(E) by thousands of ulps: its outward rounding to
    floats alone would not cover that."""
    def tails(classes, thresholds, epochs):
        out = []
        for side in (2, 3):
            log_f, inner = mpmath.mpf(0), mpmath.mpf(0)
            for cls, c in zip(classes, thresholds):
                shift, cm = cls[side], mpmath.mpf(c)
                phi = mpmath.ncdf(cm)
                log_f += cls[0] * mpmath.log(phi)
                inner += cls[0] * cls[1] * (mpmath.ncdf(shift - cm) - mpmath.ncdf(-cm)) / phi
            out.append(-mpmath.expm1(epochs * (log_f + mpmath.log1p(-inner))))
        return out

    with mpmath.workdps(120):
        for z in (0.7, 0.35, 1.3, 0.9, 1.1):
            exact = [(1, Fraction(1, 3), Fraction(2048) / Fraction(z), Fraction(0)),
                     (1, Fraction(2, 3), 1 / Fraction(z), Fraction(0))]
            pair = allocation.Allocation(tuple((n, float(w), float(a), float(b)) for n, w, a, b in exact))
            classes = [(n, mpmath.mpf(w.numerator) / w.denominator, mpmath.mpf(a.numerator) / a.denominator,
                        mpmath.mpf(0)) for n, w, a, _ in exact]
            for offset in (-1.0, 0.0, 0.5, 2.0):
                thresholds = (float(exact[0][2]) + offset, 3.0)
                for epochs in (1, 3):
                    p_lo, q_hi = allocation._certified_tails(pair, thresholds, epochs)
                    p, q = tails(classes, thresholds, epochs)
                    assert mpmath.mpf(p_lo) <= p and mpmath.mpf(q_hi) >= q, (z, offset, epochs)
        # exact parameters (shifts 0 and 1, weights 1/2): nothing to move, so only the rounding of the 120-digit
        # values to floats is left, outwards
        pair = allocation.Allocation(((1, 0.5, 1.0, 0.0), (1, 0.5, 0.0, 1.0)))
        classes = [(1, mpmath.mpf(0.5), *map(mpmath.mpf, shifts)) for shifts in ((1, 0), (0, 1))]
        for c in np.linspace(-1.0, 4.0, 41).tolist():
            p_lo, q_hi = allocation._certified_tails(pair, (c, c + 0.25), 2)
            p, q = tails(classes, (c, c + 0.25), 2)
            assert mpmath.mpf(p_lo) <= p and mpmath.mpf(q_hi) >= q, c


def test_allocation_weights_must_sum_to_one():
    with pytest.raises(ValueError, match="sum to 1"):
        allocation.Allocation(((10, 0.2, 1.0, 0.0),))


def test_balls_and_bins_and_with_replacement_give_valid_brackets():
    bnb = certify(DPSGDConfig(BallsAndBins(100), 1.0, epochs=1), delta=1e-5)
    assert 0 < bnb.eps_lower < bnb.eps_upper
    wr = certify(DPSGDConfig(BatchesWithReplacement(10, 100), 2.0, steps=4, relation="replace-one"), delta=1e-3)
    assert wr.eps_lower > 0 and wr.eps_upper == math.inf  # no dominating pair known: refute only


def test_a_composition_is_at_least_each_part_and_at_most_their_sum():
    a = DPSGDConfig(PoissonBatches(0.02), 1.0, steps=300)
    b = DPSGDConfig(PoissonBatches(0.05), 2.0, steps=200)
    both = certify(ComposedDPSGD((a, b)), delta=1e-5)
    alone = [certify(p, delta=1e-5) for p in (a, b)]
    assert both.eps_lower >= max(x.eps_lower for x in alone)
    assert both.eps_upper <= sum(x.eps_upper for x in alone)  # basic composition (at delta split) is weaker


#: (count, weight, P's shift, Q's shift) per class and the dropped weight, as the exact rationals they stand for;
#: the allocation gets their floats (0.09, 1 / 3 and 2 / 3 are not floats)
EXACT = {
    "one class": (((100, Fraction(1, 100), Fraction(5, 2), Fraction(0)),), Fraction(0)),
    "a partial batch": (((2, Fraction(3, 7), Fraction(1, 3), Fraction(0)), (1, Fraction(1, 7), Fraction(1, 3),
                                                                              Fraction(-1, 3))), Fraction(0)),
    "dropped": (((10, Fraction(9, 100), Fraction(3, 2), Fraction(2, 3)),), Fraction(1, 10)),
}


def _float_allocation(name):
    classes, dropped = EXACT[name]
    return allocation.Allocation(tuple((c, float(w), float(a), float(b)) for c, w, a, b in classes), float(dropped))


def _tails_exactly(name, thresholds, epochs):
    """P(E) and Q(E) of the exact allocation, E = "some epoch has some batch above its class's threshold", in 80
    digits: per epoch P(no batch exceeds) = prod_k Phi(c_k)^n_k (dropped + sum_k n_k w_k Phi(c_k - s_k) / Phi(c_k))."""
    classes, dropped = EXACT[name]

    def mp(x):
        return mpmath.mpf(x.numerator) / x.denominator

    with mpmath.workdps(80):
        out = []
        for side in (2, 3):
            none, mix = mpmath.mpf(1), mp(dropped)
            for cls, c in zip(classes, thresholds):
                phi = mpmath.ncdf(mpmath.mpf(c))
                none *= phi ** cls[0]
                mix += cls[0] * mp(cls[1]) * mpmath.ncdf(mpmath.mpf(c) - mp(cls[side])) / phi
            out.append(1 - (none * mix) ** epochs)
        return out


@pytest.mark.parametrize("name", sorted(EXACT))
def test_the_shuffle_tests_values_are_certified_against_exact_tails(name):
    """The max test's value at its chosen thresholds, against the event's probabilities for the exact weights and
    shifts in 80 digits: at eps, its delta at most P(E) - e^eps Q(E) (also at large eps, where Q's term is
    negligible and P's rounding is all that is left); at delta, its eps certified: P(E) - e^eps Q(E) >= delta
    there."""
    pair = _float_allocation(name)
    for epochs in (1, 3):
        for eps in (0.5, 3.0, 12.0, 40.0):
            value, thresholds = allocation.threshold_test(pair, epochs, eps=eps)
            p, q = _tails_exactly(name, thresholds, epochs)
            assert mpmath.mpf(value) <= p - mpmath.exp(eps) * q, (epochs, eps)
        for delta in (1e-3, 1e-8):
            value, thresholds = allocation.threshold_test(pair, epochs, delta=delta)
            if math.isfinite(value):
                p, q = _tails_exactly(name, thresholds, epochs)
                assert p - mpmath.exp(mpmath.mpf(value)) * q >= delta, (epochs, delta)


# -- bad input ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("build,message", [
    (lambda: DPSGDConfig(PoissonBatches(0.1), 0.0, steps=10), "noise_multiplier"),
    (lambda: DPSGDConfig(PoissonBatches(0.1), -1.0, steps=10), "noise_multiplier"),
    (lambda: DPSGDConfig(PoissonBatches(1.5), 1.0, steps=10), "rate"),
    (lambda: DPSGDConfig(PoissonBatches(0.0), 1.0, steps=10), "rate"),
    (lambda: DPSGDConfig(PoissonBatches(0.1), 1.0, steps=2.5), "steps"),
    (lambda: DPSGDConfig(PoissonBatches(0.1), 1.0, steps=0), "steps"),
    (lambda: DPSGDConfig(PoissonBatches(0.1), 1.0), "exactly one of steps and epochs"),
    (lambda: DPSGDConfig(PoissonBatches(0.1), 1.0, steps=1, epochs=1), "exactly one of steps and epochs"),
    (lambda: DPSGDConfig(ShuffledBatches(10, 100), 1.0, epochs=1), "add-remove"),
    (lambda: DPSGDConfig(ShuffledBatches(10, 100), 1.0, steps=15, relation="zero-out"), "whole number of epochs"),
    (lambda: DPSGDConfig(PoissonBatches(0.1), 1.0, steps=1, relation="swap"), "relation"),
    (lambda: ShuffledBatches(200, 100), "batch must be at most"),
    (lambda: ShuffledBatches(10, 100, partial="keep"), "partial"),
    (lambda: DPSGDConfig("poisson", 1.0, steps=1), "sampler"),
])
def test_bad_configurations_say_what_is_wrong(build, message):
    with pytest.raises((ValueError, TypeError), match=message):
        build()


@pytest.mark.parametrize("kwargs,message", [({}, "needs delta"), ({"delta": 0.0}, "delta"),
                                            ({"delta": 1.0}, "delta"), ({"epsilon": -1.0}, "epsilon"),
                                            ({"epsilon": math.nan}, "epsilon")])
def test_certify_checks_its_query(kwargs, message):
    with pytest.raises(ValueError, match=message):
        certify(DPSGDConfig(PoissonBatches(0.1), 1.0, steps=10), **kwargs)
