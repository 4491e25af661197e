"""The exact algebra behind report-noisy-max's and the sparse vector's exact laws (mechanisms/piecewise.py):
piecewise sums of exponentials on integer exponents over a common denominator, their integrals in closed
form, and the ball-arithmetic enclosure of the result. Checked against scipy's densities and numerical
integration, and against mpmath at 300 digits; no test here is statistical."""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from flint import ctx as flint_context
from flint import fmpq
from scipy import integrate, stats

from dpaudit.mechanisms.piecewise import PiecewiseExp, enclose, product

# (loc, scale) pairs whose exponents need different denominators, so products rescale one side
LAPLACES = [(F(1, 3), F(2, 5)), (F(-1, 2), F(3, 7)), (F(0), F(1)), (F(5, 4), F(1, 6))]


def _value(c, u) -> mpmath.mpf:
    return mpmath.mpf(int(c.numerator)) / int(c.denominator) * mpmath.exp(mpmath.mpf(u.numerator) / u.denominator)


def _exact_sum(terms) -> mpmath.mpf:
    with mpmath.workdps(300):
        return mpmath.fsum(_value(c, u) for c, u in terms)


def _enclosed(f: PiecewiseExp) -> float:
    lo, hi = enclose(f.integral())
    assert lo <= hi
    return float(lo)


@pytest.mark.parametrize("loc,scale", LAPLACES)
def test_the_constructors_are_the_laplace_and_exponential_functions_they_name(loc, scale):
    at = [float(loc) + d for d in (-2.3, -0.7, -0.01, 0.013, 0.5, 3.1)]
    b = float(scale)
    cases = [(PiecewiseExp.laplace_pdf, stats.laplace(float(loc), b).pdf),
             (PiecewiseExp.laplace_cdf, stats.laplace(float(loc), b).cdf),
             (PiecewiseExp.laplace_sf, stats.laplace(float(loc), b).sf),
             (PiecewiseExp.exponential_pdf, stats.expon(float(loc), b).pdf),
             (PiecewiseExp.exponential_cdf, stats.expon(float(loc), b).cdf)]
    for make, reference in cases:
        f = make(loc, scale)
        np.testing.assert_allclose([f(F(z)) for z in at], reference(at), rtol=1e-12, atol=1e-300)


def test_products_and_sums_on_different_denominators_are_the_pointwise_products_and_sums():
    (l1, s1), _, _, (l2, s2) = LAPLACES
    f, g = PiecewiseExp.laplace_pdf(l1, s1), PiecewiseExp.laplace_cdf(l2, s2)
    h = PiecewiseExp.constant(1) - PiecewiseExp.exponential_cdf(F(1, 5), F(1, 3))
    assert (f.denominator, g.denominator, h.denominator) == (6, 2, 5)
    combined = f * g + h * g - f
    assert combined.denominator == math.lcm(f.denominator, g.denominator, h.denominator)
    for z in (-3.1, -0.45, 0.2, 0.4, 1.1, 1.3, 4.0):
        z = F(z)
        assert combined(z) == pytest.approx(f(z) * g(z) + h(z) * g(z) - f(z), rel=1e-12, abs=1e-300)


def test_a_function_on_a_multiple_of_its_denominator_is_the_same_function():
    f = PiecewiseExp.laplace_pdf(F(1, 3), F(2, 5))
    g = f.on_denominator(7 * f.denominator)
    assert g.denominator == 7 * f.denominator and g.pieces != f.pieces
    for z in (-1.0, 0.2, 0.5, 2.0):
        assert g(F(z)) == pytest.approx(f(F(z)), rel=1e-14)
    with pytest.raises(ValueError, match="not a multiple"):
        f.on_denominator(f.denominator + 1)


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_the_noisy_max_integral_is_scipys_numerical_integral(noise):
    """P[index 0] of report-noisy-max on three answers with different scales: the integral of one density
    times the others' distribution functions, in closed form and by quadrature."""
    pdf, cdf = ((PiecewiseExp.laplace_pdf, PiecewiseExp.laplace_cdf) if noise == "laplace"
                else (PiecewiseExp.exponential_pdf, PiecewiseExp.exponential_cdf))
    law = stats.laplace if noise == "laplace" else stats.expon
    (l0, b0), (l1, b1), (l2, b2) = LAPLACES[:3]
    exact = _enclosed(product([pdf(l0, b0), cdf(l1, b1), cdf(l2, b2)]))

    def integrand(z):
        return law(float(l0), float(b0)).pdf(z) * law(float(l1), float(b1)).cdf(z) * law(float(l2), float(b2)).cdf(z)

    breaks = sorted(float(x) for x in (l0, l1, l2))
    numeric = sum(integrate.quad(integrand, a, b, epsabs=1e-14, epsrel=1e-12)[0]
                  for a, b in zip([-60.0, *breaks], [*breaks, 60.0]))
    assert 0.05 < exact < 0.95
    assert exact == pytest.approx(numeric, rel=1e-9)


def test_a_density_integrates_to_exactly_one_and_a_difference_of_equal_functions_to_exactly_zero():
    f = PiecewiseExp.laplace_pdf(F(1, 3), F(2, 5)) * PiecewiseExp.laplace_cdf(F(-1, 2), F(3, 7))
    assert enclose(PiecewiseExp.laplace_pdf(F(1, 3), F(2, 5)).integral()) == (F(1), F(1))
    assert (f - f).integral() == []  # equal exponents merge and cancel exactly
    assert enclose((f - f).integral()) == (F(0), F(0))
    g = PiecewiseExp.laplace_cdf(F(-1, 2), F(3, 7)) * PiecewiseExp.laplace_pdf(F(1, 3), F(2, 5))
    assert (f - g).integral() == []


def test_integral_terms_merge_equal_exponents_reached_from_break_points_of_different_denominators():
    # exp(2z) on (0, 1/2) and exp(z) on (1/2, 1): both integrals end in a term in exp(1), one reached at the
    # break 1/2 (as 4/4 on the common denominator 2), the other at 1 (as 2/2); they must merge into one term
    f = PiecewiseExp.from_terms((F(0), F(1, 2), F(1)), ({}, {(2, 0): 1}, {(1, 0): 1}, {}))
    terms = f.integral()
    assert sorted(u for _, u in terms) == [F(0), F(1, 2), F(1)]
    assert float(_exact_sum(terms)) == pytest.approx((math.e - 1) / 2 + math.e - math.sqrt(math.e), rel=1e-14)


def test_integrals_that_diverge_are_refused():
    with pytest.raises(ValueError, match="constant term"):
        PiecewiseExp.constant(1).integral()
    with pytest.raises(ValueError, match="grows"):
        PiecewiseExp.from_terms((F(0),), ({}, {(1, 0): 1})).integral()
    with pytest.raises(ValueError, match="one more piece"):
        PiecewiseExp((F(0),), ({},))
    with pytest.raises(ValueError, match="increasing"):
        PiecewiseExp((F(1), F(0)), ({}, {}, {}))
    with pytest.raises(ValueError, match="denominator"):
        PiecewiseExp((), ({},), 0)


def test_the_enclosure_holds_the_exact_sum_and_is_as_narrow_as_promised():
    rng = np.random.default_rng(7)
    terms = [(fmpq(int(rng.integers(-50, 50)), int(rng.integers(1, 40))), F(int(rng.integers(-300, 300)), 97))
             for _ in range(60)]
    terms.append((fmpq(10**6), F(0)))  # keep the sum positive
    lo, hi = enclose(terms)
    with mpmath.workdps(300):
        exact = _exact_sum(terms)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= exact <= mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo <= F(1, 2**100) * lo


def test_the_precision_rises_until_cancellation_is_resolved_and_is_restored_afterwards():
    tiny = F(1, 2**400)
    # 1 - exp(-2^-400) ~ 2^-400: needs more than 400 bits to separate from zero
    lo, hi = enclose([(fmpq(1), F(0)), (fmpq(-1), -tiny)])
    assert 0 < lo <= hi and float(lo * 2**400) == pytest.approx(1.0, rel=1e-12)
    # exp(1/3) - exp(1/3 - 2^-150): separated from zero at the first 192 bits (each exponential rounded to
    # about 2^-192), but not yet 2^-100 narrow relative to itself
    lo, hi = enclose([(fmpq(1), F(1, 3)), (fmpq(-1), F(1, 3) - F(1, 2**150))])
    assert 0 < lo and hi - lo <= F(1, 2**100) * lo
    saved = flint_context.prec
    with pytest.raises(ArithmeticError, match="separate"):
        enclose([(fmpq(1), F(0)), (fmpq(-1), F(0))])  # exactly zero, written as two terms
    assert flint_context.prec == saved


def test_exact_laws_of_the_mechanisms_built_on_this_algebra_sum_to_one():
    from dpaudit.mechanisms.classic.noisy_max import ReportNoisyMax
    from dpaudit.mechanisms.classic.sparse_vector import SparseVector

    svt = SparseVector(1.0, 0.5, "lyu-alg1", cutoff=2)
    for mech, data in ((ReportNoisyMax(0.7, 4), [0.0, 1.0, 0.5, 2.0]),
                       (ReportNoisyMax(0.7, 3, noise="exponential"), [1.0, 0.0, 0.25]),
                       (svt, [0.0, 1.0, 0.5, 2.0, -1.0])):
        law = mech.distribution(np.asarray(data))
        assert math.fsum(np.exp(law.log_probs)) == pytest.approx(1.0, abs=1e-12)
