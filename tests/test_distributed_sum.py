"""dist-mab's batch protocol (Algorithm 1): parameters as the theorems print them, the fast and
per-user paths give the same law (conformance, false-failure rate 1e-6 per audit), the analyzer
recovers every sum in its range, and the exact pure-DP audit of Theorem 1."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpaudit
from dpaudit import PureDP
from dpaudit.mechanisms import DistributedSum
from dpaudit.mechanisms.noise import FiniteIntegerLaw, ModularReduction, convolve


@pytest.mark.parametrize("noise, eps, n, s, g, tau", [
    # Theorem 1: g = ceil(eps sqrt n), tau = ceil((g/eps) log 2T); T = 10^6, log(2T) = 14.5087
    ("polya", 1.0, 1024, 1.0, 32, math.ceil(32 * math.log(2e6))),
    ("polya", 0.1, 1024, 1.0, 4, math.ceil(40 * math.log(2e6))),
    # Theorem 2: g = ceil(s eps sqrt n), tau = ceil((2g/eps) sqrt(log 2T) + sqrt 2 log 2T)
    ("skellam", 0.1, 1024, 10.0, 32, math.ceil(640 * math.sqrt(math.log(2e6)) + math.sqrt(2) * math.log(2e6))),
    # Theorem 4: tau = ceil((g/eps) sqrt(2 log(2/p))), p = 1/T
    ("discrete-gaussian", 0.5, 1024, 10.0, 160, math.ceil(320 * math.sqrt(2 * math.log(2e6)))),
])
def test_parameters_follow_the_theorems(noise, eps, n, s, g, tau):
    protocol = DistributedSum(noise, eps, n, 10**6, s=s)
    assert (protocol.g, protocol.tau, protocol.m) == (g, tau, n * g + 2 * tau + 1)
    assert (protocol.g, protocol.tau) in {(32, 465), (4, 581), (32, 2459), (160, 1724)}  # the worked numbers


@pytest.mark.slow
@pytest.mark.parametrize("noise", ["polya", "skellam", "discrete-gaussian"])
def test_fast_and_per_user_paths_have_the_exact_law(noise):
    protocol = DistributedSum(noise, 0.9, 8, 1000, s=2.0)  # eps < 1: Theorem 4's range
    x = np.array([0.0, 0.1, 0.25, 0.5, 0.77, 0.9, 1.0, 0.33])
    law = protocol.distribution(x)
    reference = FiniteIntegerLaw(0, law.probs, name=f"exact law of y_hat ({noise})")
    for draw in (protocol.sample, protocol.sample_per_user):
        result = dpaudit.audit_sampler(lambda size, rng, draw=draw: draw(x, size, rng), reference,
                                       samples=400_000, seed=3)
        assert result.verdict == "not-refuted", (draw.__name__, result.witness)


def test_analyzer_recovers_sums_in_range_and_wraps_outside():
    protocol = DistributedSum("polya", 1.0, 16, 100)
    n, g, tau, m = protocol.n, protocol.g, protocol.tau, protocol.m
    totals = np.arange(-tau, n * g + tau + 1)
    assert np.allclose(protocol.analyze(np.mod(totals, m)), totals / g)
    assert not np.allclose(protocol.analyze(np.mod(np.array([-tau - 1]), m)), (-tau - 1) / g)


def test_theorem1_is_audited_exactly_over_searched_neighbours():
    """Theorem 1: eps-DP under one user's reward replaced. The worst pair moves one user from 0 to
    1 (its rounded value from 0 to g, the noise's sensitivity), where the loss reaches eps exactly."""
    from dpaudit.core.domains import Box, Datasets
    from dpaudit.core.neighbours import ReplaceUser
    protocol = DistributedSum("polya", 1.0, 16, 10**6)
    search = ReplaceUser(batch_size=16).over(Datasets(16, Box(0.0, 1.0)))
    result = dpaudit.audit_privacy(protocol, PureDP(1.0), neighbours=search, auditor="exact", seed=1)
    assert result.verdict in ("verified", "not-refuted")
    assert result.statistic.interval[1] < 1.0 + 1e-9 and result.statistic.interval[1] > 0.999
    # noise for eps = 1 claimed as eps = 0.9 is refuted, with the pair as witness
    tight = dpaudit.audit_privacy(protocol, PureDP(0.9), neighbours=search, auditor="exact", seed=1)
    assert tight.verdict == "refuted" and tight.witness["pair"]


@pytest.mark.parametrize("make, message", [
    (lambda: DistributedSum("laplace", 1.0, 8, 10), "noise"),
    (lambda: DistributedSum("polya", -1.0, 8, 10), "epsilon"),
    (lambda: DistributedSum("polya", 1.0, 0, 10), "n must be an integer >= 1"),
    (lambda: DistributedSum("skellam", 1.0, 8, 10, s=0.5), "s must be >= 1"),
    (lambda: DistributedSum("polya", 1.0, 4, 10).sample([0.1, 0.2, 0.3], 5, np.random.default_rng()),
     "4 users' rewards"),
    (lambda: DistributedSum("polya", 1.0, 4, 10).sample([0.1, 0.2, 0.3, 1.5], 5, np.random.default_rng()),
     "in \\[0, 1\\]"),
    (lambda: DistributedSum("discrete-gaussian", 0.9, 100, 10).total_noise(), "at most 64 users"),
    (lambda: DistributedSum("discrete-gaussian", 1.0, 16, 10), "Theorem 4 .* covers eps in \\(0, 1\\)"),
])
def test_bad_parameters_and_inputs_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_wrapped_discrete_laplace_is_the_folded_table_in_closed_form():
    from dpaudit.mechanisms.noise import DiscreteLaplace, ModularReduction
    for loc, scale, m in [(3, 2.0, 11), (-40, 7.5, 50), (0, 30.0, 7)]:
        law = DiscreteLaplace(scale, loc=loc)
        folded = ModularReduction(m).wrap(law)
        r = np.arange(m)
        assert np.allclose(law.wrapped_logpmf(r, m), np.log(folded.pmf(r)), atol=1e-12)
    far = DiscreteLaplace(32.2).wrapped_logpmf(np.array([23_700]), 47_475)
    assert np.isfinite(far).all() and far[0] < -700  # residues beyond the normal floats stay exact in log space


def test_local_randomizer_follows_theorem6_and_is_eps_ldp():
    from dpaudit.mechanisms import LocalModularRandomizer
    from dpaudit.mechanisms.distributed.distributed_sum import LEMMA5_C
    local = LocalModularRandomizer(0.5, 64, 10**6)
    g = math.ceil(0.5 * 8)
    tau = math.ceil(LEMMA5_C * g / 0.5 * math.sqrt(2 * 64 * math.log(2e6)))
    assert (local.g, local.tau, local.m) == (g, tau, 64 * g + 2 * tau + 1)
    law = local.distribution(0.3)
    reference = FiniteIntegerLaw(0, law.probs, name="message law")
    assert dpaudit.audit_sampler(lambda size, rng: local.sample(0.3, size, rng), reference,
                                 samples=400_000, seed=8).verdict == "not-refuted"
    exact = dpaudit.audit_privacy(local, PureDP(0.5), pairs=[(0.0, 1.0), (0.2, 0.7)], auditor="exact")
    assert exact.verdict in ("verified", "not-refuted") and exact.statistic.interval[1] < 0.5 + 1e-9
    assert dpaudit.audit_privacy(local, PureDP(0.45), pairs=[(0.0, 1.0)], auditor="exact").verdict == "refuted"
    with pytest.raises(ValueError, match="Theorem 6 covers eps in"):
        LocalModularRandomizer(1.0, 64, 10**6)


def test_skellam_law_mod_m_at_the_papers_point_is_computed_in_log_space():
    """Theorem 2 at eps = 0.1, s = 10, n = 1024: m = 37,687 against a standard deviation of 320, so
    far residues lie near e^-1735; the law still sums to one and is symmetric about the rounded sum."""
    wide = DistributedSum("skellam", 0.1, 1024, 10**6, s=10.0)
    law = wide.distribution(np.zeros(1024))
    assert law.log_probs.size == wide.m == 37_687 and np.isfinite(law.log_probs).all()
    assert law.log_probs.min() < -1700 and law.log_error < 1e-9
    assert abs(np.exp(np.logaddexp.reduce(law.log_probs)) - 1) < 1e-12
    assert np.allclose(law.log_probs[1:], law.log_probs[1:][::-1], atol=1e-10)  # r and m - r


def test_skellam_law_mod_m_agrees_with_the_folded_table_where_both_apply():
    protocol = DistributedSum("skellam", 1.0, 16, 10**6, s=1.0)
    x = np.linspace(0.0, 1.0, 16)
    folded = ModularReduction(protocol.m).wrap(convolve(protocol.rounded_sum(x), protocol.total_noise()))
    law = protocol.distribution(x)
    assert np.allclose(law.log_probs, np.log(folded.pmf(np.arange(protocol.m))), atol=1e-12)


def test_discrete_gaussian_law_mod_m_goes_to_log_space_where_tables_would_underflow():
    """At eps = 0.99, n = 64 residue m/2 sits ~37 sd out (below the normal doubles), and n = 100 is past the
    convolved table's limit: both laws come from the shares' sum mod m in log space, sum to one and are
    symmetric about the (deterministic) rounded sum."""
    for n in (64, 100):
        wide = DistributedSum("discrete-gaussian", 0.99, n, 10**6, s=1.0)
        law = wide.distribution(np.zeros(n))
        assert law.log_probs.size == wide.m and np.isfinite(law.log_probs).all()
        assert law.log_probs.min() < math.log(1e-300) and law.log_error < 1e-8
        assert abs(np.exp(np.logaddexp.reduce(law.log_probs)) - 1) < 1e-12
        assert np.allclose(law.log_probs[1:], law.log_probs[1:][::-1], atol=1e-9)  # r and m - r


def test_discrete_gaussian_log_space_law_is_the_table_law_where_both_apply():
    from dpaudit.mechanisms.distributed.distributed_sum import wrapped_mixture

    protocol = DistributedSum("discrete-gaussian", 0.5, 16, 10**6, s=1.0)
    x = np.linspace(0.0, 1.0, 16)
    table = protocol.distribution(x)  # the convolved table, folded
    logs = wrapped_mixture(protocol.rounded_sum(x), protocol.wrapped_noise, protocol.m)
    assert np.allclose(logs.log_probs, table.log_probs, atol=1e-12)
    assert logs.log_error >= protocol.wrapped_noise.log_error


def test_central_protocol_runs_algorithms_2_and_3_with_theorem1s_law():
    """Theorem 5's parameters are Theorem 1's (log(2/p) = log 2T); Algorithms 2-3 run as printed
    follow the exact law of y (false-failure rate 1e-6), and eps >= 1 is refused."""
    from dpaudit.mechanisms.distributed.distributed_sum import CentralModularSum
    central = CentralModularSum(0.5, 16, 10**6)
    g = math.ceil(0.5 * 4)
    tau = math.ceil(g / 0.5 * math.log(2 / 1e-6))
    assert (central.g, central.tau, central.m) == (g, tau, 16 * g + 2 * tau + 1) == (2, 59, 151)
    x = np.linspace(0.0, 1.0, 16)
    reference = FiniteIntegerLaw(0, central.distribution(x).probs, name="exact law of y")
    result = dpaudit.audit_sampler(lambda size, rng: central.sample_per_user(x, size, rng), reference,
                                   samples=400_000, seed=6)
    assert result.verdict == "not-refuted", result.witness
    with pytest.raises(ValueError, match="Theorem 5 covers eps in"):
        CentralModularSum(1.0, 16, 10**6)


def test_as_printed_draws_a_release_step_by_step():
    """AsPrinted: a batch protocol's per-user path and a lazy release's per-pull path, draw for draw (their shares and
    per-pull noises are the only draws of those laws: the suites' per-user and per-pull black-box entries audit
    them), a release with no exact law (so audited from samples); a release with no step-by-step path is
    refused."""
    from dpaudit.mechanisms.base import AsPrinted
    from dpaudit.mechanisms.counters.lazy_laplace import LazyLaplaceArrays

    protocol, lazy = DistributedSum("skellam", 1.0, 16, 10**6), LazyLaplaceArrays(1.0, 15)
    for release, data, path, how in ((protocol, np.linspace(0.0, 1.0, 16), protocol.sample_per_user, "user by user"),
                                     (lazy, np.linspace(0.0, 1.0, 15), lazy.sample_per_pull, "pull by pull")):
        printed = AsPrinted(release)
        np.testing.assert_array_equal(printed.sample(data, 500, np.random.default_rng(2)),
                                      path(data, 500, np.random.default_rng(2)))
        assert not hasattr(printed, "distribution") and f"drawn {how}" in repr(printed)
        assert printed.paper == release.paper
    with pytest.raises(TypeError, match="has no step-by-step path"):
        AsPrinted(dpaudit.mechanisms.LaplaceMechanism(1.0))
