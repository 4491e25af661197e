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

import math

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


def test_symmetrised_step_dominates_both_orders_at_every_knot():
    h = 2.0**-12
    a2 = mixtures.MixturePair(mixtures.subsampled(0.05, 2.0, 1.0), mixtures.gaussian(1.0), True)
    up_f, _ = brackets._mixture_steps(a2, h)
    up_b, _ = brackets._mixture_steps(a2.reversed(), h)
    sym = brackets.symmetrised(up_f, up_b)
    cs = grid.compose([(sym, 1)])
    cf, cb = grid.compose([(up_f, 1)]), grid.compose([(up_b, 1)])
    for eps in np.linspace(-3, 4, 29):
        assert cs.delta(eps) >= max(cf.delta(eps), cb.delta(eps)) * (1 - 1e-9) - 1e-15, eps
    for eps in (0.1, 1.0, 3.0):  # above 0 it is the forward pair's: nothing but rounding added
        assert cs.delta(eps) <= cf.delta(eps) * (1 + 1e-6) + 1e-12


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
