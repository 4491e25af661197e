"""dist-mab's mechanism-level privacy subjects: the N-query noise mechanisms (Fact 2, Fact 3, Lemmas 3
and 4), Theorem 4's xi as printed, Theorem 3's mod-sum step, and App. D.1's analyzer accuracy.
Parameters are recomputed from the paper's formulas; exact audits are deterministic; conformance
audits have a false-failure rate of 1e-6 each."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpaudit
from dpaudit import ZCDP, PureDP, RenyiDP, TailBound
from dpaudit.core.domains import Box, Datasets
from dpaudit.core.neighbours import ReplaceUser
from dpaudit.mechanisms.distributed.distributed_sum import IntegerQueryNoise, ShuffleModSum, log_iid_sum
from dpaudit.mechanisms.noise import DiscreteGaussian, FiniteIntegerLaw, iid_sum

T = 10**6


# -- Theorem 3's mod-sum step --------------------------------------------------------------------


@pytest.mark.parametrize("eps, n, g, tau", [
    # eps' = eps/2, g = ceil(eps' sqrt n), p' = 1/(2T), tau = ceil((g/eps') log(2/p')); log(4 10^6) = 15.2018
    (1.0, 16, 2, math.ceil(2 / 0.5 * math.log(4e6))),
    (0.5, 64, 2, math.ceil(2 / 0.25 * math.log(4e6))),
])
def test_shuffle_mod_sum_parameters_follow_theorem3(eps, n, g, tau):
    step = ShuffleModSum(eps, n, T)
    assert (step.g, step.tau, step.m) == (g, tau, n * g + 2 * tau + 1)
    assert (step.tau, step.m) in {(61, 155), (122, 373)}  # the worked numbers
    # printed: shares Polya(1/n, e^{-eps/g}), total Lap_Z(g/eps); primed: e^{-eps'/g}, Lap_Z(g/eps')
    assert step.share.beta == pytest.approx(math.exp(-eps / g)) and step.total_noise().scale == pytest.approx(g / eps)
    primed = ShuffleModSum(eps, n, T, noise_parameter="primed")
    assert primed.share.beta == pytest.approx(math.exp(-eps / 2 / g))
    assert primed.total_noise().scale == pytest.approx(2 * g / eps)


def test_shuffle_mod_sum_fast_and_per_user_paths_have_the_exact_law():
    step = ShuffleModSum(1.0, 8, 1000)
    x = np.array([0.0, 0.1, 0.25, 0.5, 0.77, 0.9, 1.0, 0.33])
    reference = FiniteIntegerLaw(0, step.distribution(x).probs, name="exact law of the mod sum")
    for draw in (step.sample, step.sample_per_user):
        result = dpaudit.audit_sampler(lambda size, rng, draw=draw: draw(x, size, rng), reference,
                                       samples=400_000, seed=5)
        assert result.verdict == "not-refuted", (draw.__name__, result.witness)


def test_shuffle_mod_sum_printed_noise_fails_the_proof_step_and_primed_noise_passes():
    """The proof needs the mod sum eps/2-DP. Printed e^{-eps/g}: loss exactly eps (refuted, witness one
    user 0 -> 1); primed e^{-eps'/g}: loss exactly eps/2 (not refuted), so the audit can tell them apart."""
    search = ReplaceUser(batch_size=16).over(Datasets(16, Box(0.0, 1.0)))
    printed = dpaudit.audit_privacy(ShuffleModSum(1.0, 16, T), PureDP(0.5), neighbours=search, auditor="exact", seed=0)
    assert printed.verdict == "refuted" and printed.statistic.interval[0] > 1.0 - 1e-9
    d0, d1 = printed.witness["pair"]
    assert sorted(abs(np.asarray(d0) - np.asarray(d1)))[-1] == 1.0
    primed = dpaudit.audit_privacy(ShuffleModSum(1.0, 16, T, noise_parameter="primed"), PureDP(0.5),
                                   neighbours=search, auditor="exact", seed=0)
    assert primed.verdict in ("verified", "not-refuted") and primed.statistic.interval[1] < 0.5 + 1e-9


def test_shuffle_mod_sum_bad_parameters_are_clear_errors():
    with pytest.raises(ValueError, match="noise_parameter"):
        ShuffleModSum(1.0, 16, T, noise_parameter="prime")
    with pytest.raises(ValueError, match="epsilon"):
        ShuffleModSum(-1.0, 16, T)


# -- the N-query mechanisms ----------------------------------------------------------------------


def test_log_space_iid_sum_is_the_convolved_table():
    share = DiscreteGaussian(1.0)
    lo, hi = share.window()
    offset, logs, error = log_iid_sum(lo, share.logpmf(np.arange(lo, hi + 1)), 1e-12, 16)
    table = iid_sum(share, 16)
    k = np.arange(table.offset, table.offset + table.probs.size)
    keep = table.probs > 1e-250
    assert np.allclose(logs[k[keep] - offset], np.log(table.probs[keep]), atol=1e-11) and error < 1e-9
    assert offset == 16 * lo and logs.size == 16 * (hi - lo) + 1
    assert np.isfinite(logs).all() and logs.min() < -10_000  # far entries stay in log space


def test_integer_query_noise_laws_share_one_support_and_samplers_conform():
    for mech in (IntegerQueryNoise.skellam(16.0, 4), IntegerQueryNoise.discrete_gaussian(2.0, 3),
                 IntegerQueryNoise.discrete_gaussian_sum(1.0, 4, 2)):
        p, q = mech.distribution(0), mech.distribution(mech.max_answer)
        assert np.array_equal(p.outcomes, q.outcomes)
        assert np.isfinite(p.log_probs).all() and np.isfinite(q.log_probs).all()
        assert abs(np.exp(np.logaddexp.reduce(p.log_probs)) - 1) < 1e-12
        law = mech.distribution(1)
        reference = FiniteIntegerLaw(int(law.outcomes[0]), law.probs, name=f"exact law of {mech}")
        result = dpaudit.audit_sampler(lambda size, rng, mech=mech: mech.sample(1, size, rng), reference,
                                       samples=200_000, seed=2)
        assert result.verdict == "not-refuted", (mech, result.witness)


def test_integer_query_noise_refuses_answers_outside_its_range():
    mech = IntegerQueryNoise.discrete_gaussian(1.0, 2)
    for bad in (3, -1, 0.5, [0, 1]):
        with pytest.raises(ValueError, match="integer query answer in \\[0, 2\\]"):
            mech.distribution(bad)
    with pytest.raises(ValueError, match="max_answer"):
        IntegerQueryNoise.discrete_gaussian(1.0, -1)
    with pytest.raises(ValueError, match="n must be"):
        IntegerQueryNoise.discrete_gaussian_sum(1.0, 0, 1)


def _xi(sigma: float, n: int) -> float:
    return 10 * math.fsum(math.exp(-2 * math.pi**2 * sigma**2 * k / (k + 1)) for k in range(1, n))


@pytest.mark.parametrize("sigma, n, delta", [(0.5, 16, 1), (1.0, 16, 2)])
def test_lemma4_holds_with_its_xi_and_fails_without_it(sigma, n, delta):
    """Lemma 4 at sigma near its floor 1/2: the sum of discrete Gaussians is a little less spread than
    a Gaussian, and xi pays for it. Without xi (eps = Delta/(sqrt(n) sigma)) the claim is refuted."""
    from dpaudit.mechanisms.distributed.distributed_sum_analysis import lemma4_epsilon, xi_lemma4

    assert xi_lemma4(sigma, n) == pytest.approx(_xi(sigma, n), rel=1e-12)
    xi = _xi(sigma, n)
    eps = min(math.sqrt(delta**2 / (n * sigma**2) + xi / 2), delta / (math.sqrt(n) * sigma) + xi)
    assert lemma4_epsilon(delta, sigma, n) == pytest.approx(eps, rel=1e-12)
    mech = IntegerQueryNoise.discrete_gaussian_sum(sigma, n, delta)
    holds = dpaudit.audit_privacy(mech, ZCDP(eps**2 / 2), pairs=[(0, delta)], auditor="exact")
    assert holds.verdict == "verified"
    naive = dpaudit.audit_privacy(mech, ZCDP(delta**2 / (2 * n * sigma**2)), pairs=[(0, delta)], auditor="exact")
    assert naive.verdict == "refuted"


def test_theorem4_xi_as_printed_uses_s_and_T_over_2():
    from dpaudit.mechanisms.distributed.distributed_sum_analysis import theorem4_epsilon_hat, xi_theorem4

    for s, horizon in [(1.0, 10**4), (1.5, 2 * 10**3)]:
        assert xi_theorem4(s, horizon) == pytest.approx(_xi(s, horizon // 2), rel=1e-10)
    xi = _xi(1.0, T // 2)  # about 10 (T/2) e^{-2 pi^2} = 0.0134, a little more from the k/(k + 1)
    assert xi == pytest.approx(0.01393, rel=0.001)
    assert theorem4_epsilon_hat(0.5, 1.0, T) == pytest.approx(min(math.sqrt(0.25 + xi / 2), 0.5 + xi), rel=1e-10)


def test_lemma3_and_fact2_audits_refute_miscalibrated_noise():
    """Power: Skellam noise of half the variance against Lemma 3's eps(alpha), and a discrete Gaussian
    with sigma / 1.2 against Fact 2's curve, are refuted; the calibrated ones are not."""
    from dpaudit.mechanisms.distributed.distributed_sum_analysis import RDP_ORDERS, lemma3_epsilon

    claim = RenyiDP(RDP_ORDERS, tuple(lemma3_epsilon(a, 4, 16.0) for a in RDP_ORDERS))
    wide = dpaudit.audit_privacy(IntegerQueryNoise.skellam(16.0, 4), claim, pairs=[(0, 4)], auditor="exact")
    assert wide.verdict == "verified"
    narrow = dpaudit.audit_privacy(IntegerQueryNoise.skellam(8.0, 4), claim, pairs=[(0, 4)], auditor="exact")
    assert narrow.verdict == "refuted"
    curve = RenyiDP(RDP_ORDERS, tuple(a * 0.5**2 / 2 for a in RDP_ORDERS))  # Delta = 1, eps = 0.5: sigma = 2
    good = dpaudit.audit_privacy(IntegerQueryNoise.discrete_gaussian(2.0, 1), curve, pairs=[(0, 1)], auditor="exact")
    assert good.verdict in ("verified", "not-refuted")
    bad = dpaudit.audit_privacy(IntegerQueryNoise.discrete_gaussian(2.0 / 1.2, 1), curve, pairs=[(0, 1)],
                                auditor="exact")
    assert bad.verdict == "refuted"


# -- App. D.1: the analyzer's accuracy -----------------------------------------------------------


def test_analyzer_error_law_is_exact_inside_tau_and_the_accuracy_audit_has_power():
    """The error g (A(y_hat) - sum x_hat / g) equals the noise whenever |noise| <= tau, so its tail beyond
    tau is the noise's, P = 2 a^{tau + 1} / (1 + a), a = e^{-eps/g}: below p = 1/T, above p/4."""
    from dpaudit.mechanisms.distributed.distributed_sum_analysis import analyzer_error, theorem1

    protocol = theorem1(1.0)
    g, tau = protocol.g, protocol.tau
    for s in (0, protocol.n * g):
        law = analyzer_error(1.0, s)
        inside = np.arange(-tau, tau + 1)
        assert np.allclose(law.pmf(inside), np.exp(-np.abs(inside) / g) * math.tanh(1 / (2 * g)), rtol=1e-9)
        a = math.exp(-1 / g)
        assert law.sf(tau) + law.cdf(-tau - 1) == pytest.approx(2 * a ** (tau + 1) / (1 + a), rel=1e-6)
        assert dpaudit.audit_tail(law, TailBound.accuracy(tau, 1 / T)).verdict == "verified"
        assert dpaudit.audit_tail(law, TailBound.accuracy(tau, 1 / (4 * T))).verdict == "refuted"


def test_the_rounding_unbiasedness_entries_are_tight_and_a_biased_law_fails():
    """claimsecD.1a@unbiased: both steps hold with equality at every point (left not refuted: floats cannot prove an
    equality); a rounding law with its two probabilities swapped (mean floor(x g) + 1 - frac) fails the first step."""
    from dpaudit.auditors.lower_bound import evaluate_step
    from dpaudit.audits import dist_mab
    from dpaudit.mechanisms.noise import FiniteIntegerLaw, RandomizedRounding

    for g in (4, 32):
        for step in dist_mab._UNBIASED_STEPS:
            result = evaluate_step(step, {"g": g})
            assert result["status"] == "tight" and result["failing_points"] == 0

    class Swapped(RandomizedRounding):
        def law(self, x):
            law = super().law(x)
            return FiniteIntegerLaw(law.offset, law.probs[::-1]) if law.probs.size == 2 else law

    original = dist_mab.RandomizedRounding
    dist_mab.RandomizedRounding = Swapped
    try:
        assert evaluate_step(dist_mab._UNBIASED_STEPS[0], {"g": 4})["status"] == "fails"
    finally:
        dist_mab.RandomizedRounding = original
