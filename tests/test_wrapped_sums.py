"""The law mod m of a sum of discrete Gaussian shares in log space (mechanisms/distributed/wrapped_sums.py):
its folding and circular convolution against plain loops, its result against the convolved table and the
unfolded log-space sum where those apply, and its truncation bound against the exact tail."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpaudit.mechanisms.distributed.distributed_sum import log_iid_sum
from dpaudit.mechanisms.distributed.wrapped_sums import (
    log_convolve_mod,
    log_fold,
    truncation_log_bound,
    wrapped_discrete_gaussian_sum,
)
from dpaudit.mechanisms.noise import DiscreteGaussian, ModularReduction, iid_sum
from dpaudit.mechanisms.noise._lattice import TABLE_LOG_ERROR


@pytest.mark.parametrize("offset, size, m", [(0, 5, 7), (-13, 40, 7), (22, 3, 5), (-1, 30, 30), (4, 61, 12)])
def test_log_fold_adds_each_residue_class(offset, size, m):
    rng = np.random.default_rng(size)
    logs = rng.normal(-5, 3, size)
    want = np.zeros(m)
    for k, value in enumerate(logs):
        want[(offset + k) % m] += math.exp(value)
    assert np.allclose(np.exp(log_fold(offset, logs, m)), want, rtol=1e-13, atol=0)


def test_log_convolve_mod_is_the_circular_convolution():
    rng = np.random.default_rng(3)
    for m in (2, 7, 31):
        a, b = rng.normal(0, 2, m), rng.normal(-3, 4, m)
        want = np.array([sum(math.exp(a[i] + b[(r - i) % m]) for i in range(m)) for r in range(m)])
        assert np.allclose(np.exp(log_convolve_mod(a, b)), want, rtol=1e-13, atol=0)
    with pytest.raises(ValueError, match="both must be the modulus"):
        log_convolve_mod(np.zeros(3), np.zeros(4))


@pytest.mark.parametrize("sigma, n, m", [(1.0, 16, 77), (1.3, 20, 50), (2.0, 3, 9), (0.8, 37, 41)])
def test_agrees_with_the_folded_table_where_the_table_holds(sigma, n, m):
    """n = 20, 3 and 37 are not powers of two: the doubling adds folded to unfolded parts."""
    got = wrapped_discrete_gaussian_sum(sigma, n, m)
    folded = ModularReduction(m).wrap(iid_sum(DiscreteGaussian(sigma), n))
    want = np.log(folded.pmf(np.arange(m)))
    assert got.log_probs.size == m and got.log_error < 1e-9
    assert np.max(np.abs(got.log_probs - want)) <= got.log_error + 1e-11


def test_agrees_with_the_unfolded_log_space_sum_far_below_the_doubles():
    """At n = 64, m = 345 the far residues sit near e^-234 and lower ones below e^-700 once m doubles: the
    circular route against one linear log-space convolution folded at the end (log_iid_sum)."""
    sigma, n, m = 1.0, 64, 801
    got = wrapped_discrete_gaussian_sum(sigma, n, m)
    share = DiscreteGaussian(sigma)
    K = 45
    offset, logs, error = log_iid_sum(-K, share.logpmf(np.arange(-K, K + 1)), TABLE_LOG_ERROR, n)
    want = log_fold(offset, logs, m)
    assert got.log_probs.min() < -1000
    assert np.max(np.abs(got.log_probs - want)) <= got.log_error + error


@pytest.mark.parametrize("sigma, K", [(1.0, 5), (1.0, 12), (3.0, 10), (10.0, 60), (0.5, 3)])
def test_truncation_bound_is_above_the_exact_tail(sigma, K):
    mpmath.mp.dps = 50
    terms = [mpmath.e ** (-mpmath.mpf(j) ** 2 / (2 * mpmath.mpf(sigma) ** 2)) for j in range(-40 * int(sigma + 1) - K,
                                                                                       40 * int(sigma + 1) + K + 1)]
    norm = mpmath.fsum(terms)
    centre = 40 * int(sigma + 1) + K
    inside = mpmath.fsum(terms[centre - K: centre + K + 1])
    tail = (norm - inside) / norm  # P(|eta| > K), the far terms beyond the sum's range are below 1e-200
    for n in (1, 1024):
        bound = truncation_log_bound(sigma, n, K)
        exact = mpmath.log(1 - (1 - tail) ** n)
        assert exact <= bound < exact + 3  # above it, and not loose by more than e^3


def test_the_papers_scale_reaches_residues_below_the_doubles_with_a_small_error():
    """n = 256 at Theorem 4's eps = 0.5, s = 1 (sigma = 1, m = 2223): residues near e^-2414; the law sums to
    one and is symmetric."""
    law = wrapped_discrete_gaussian_sum(1.0, 256, 2223)
    assert law.log_probs.min() < -2400 and law.log_error < 1e-7
    assert abs(np.exp(np.logaddexp.reduce(law.log_probs)) - 1) < 1e-12
    assert np.allclose(law.log_probs[1:], law.log_probs[1:][::-1], atol=1e-8)
    with pytest.raises(ValueError, match="not mod 2224"):
        law.wrapped_logpmf(np.arange(3), 2224)


def test_error_bound_covers_a_coarse_truncation_and_every_shares_table():
    """With the shares cut at K = 2 (sigma = 1) the computed law misses P(some |eta_i| > 2) ~ 0.73 of its mass
    at n = 16: the stated error covers the gap to the true law, and it is at least the n share tables' errors."""
    sigma, n, m = 1.0, 16, 77
    want = np.log(ModularReduction(m).wrap(iid_sum(DiscreteGaussian(sigma), n)).pmf(np.arange(m)))
    coarse = wrapped_discrete_gaussian_sum(sigma, n, m, reach=2)
    gap = np.max(np.abs(coarse.log_probs - want))
    assert gap > 0.1 and coarse.log_error >= gap
    for n, m in [(16, 77), (64, 801)]:  # folded at the first doubling; linear for the first five
        chosen = wrapped_discrete_gaussian_sum(sigma, n, m)
        share_error = TABLE_LOG_ERROR + 4 * 2.0**-53 * (1 + chosen.reach**2 / sigma**2)
        assert chosen.log_error >= n * share_error
