"""dpaudit.adapters.opendp: the claim from the output measure and privacy map, the relation from the
input metric, unseeded sampling (OpenDP cannot be seeded), exact laws from the stated noise and scale.

OpenDP draws from the operating system and has no seed, so its samples differ run to run and cannot be
replayed. Each test is made deterministic by design instead: what it asserts about the samples holds
on every run but with a stated tiny probability, written beside it (its false-failure rate). Exact
privacy verdicts do not depend on the samples. A conformance audit at alpha = 1e-6 (split over the
inputs) fails a library that draws from the stated law with probability at most 1e-6 (up to the normal
and chi-square approximations of its mean and G-tests, far better than that at 10^4 samples); the one
black-box privacy audit runs at confidence 1 - 1e-6, since its claim is exactly the mechanism's epsilon.
The tests are skipped one by one, with the reason, where OpenDP is not installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpaudit
from dpaudit.adapters import audit
from dpaudit.core.samplers import UNSEEDED_NOTE

adapt = dpaudit.adapters.opendp
SMALL = {"samples": 10_000, "conformance_samples": 10_000, "seed": 0}


@pytest.fixture
def dp():
    """OpenDP's prelude with its contrib features, or this test skipped (OpenDP is an optional extra)."""
    prelude = pytest.importorskip("opendp.prelude", reason="OpenDP is not installed: pip install 'dpaudit[opendp]'")
    prelude.enable_features("contrib")
    return prelude


def scalar_laplace(dp, scale: float = 1.0):
    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)


def test_the_claim_and_relation_come_from_the_measurement(dp):
    """No samples: deterministic."""
    subject = adapt(scalar_laplace(dp, 2.0), d_in=1.0)
    assert subject.claim == dpaudit.PureDP(0.5) and subject.relation == dpaudit.QueryDistance(1.0)
    assert subject.pairs == [(0, 1.0)] and not subject.white_box and not subject.reproducible
    gauss = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    assert adapt(gauss, d_in=1.0).claim == dpaudit.ZCDP(0.5)
    approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), 1e-5)
    claim = adapt(approx, d_in=1.0).claim
    assert isinstance(claim, dpaudit.ApproxDP) and claim.delta == 1e-5
    curve = dp.c.make_zCDP_to_approxDP(gauss)
    assert adapt(curve, d_in=1.0, delta=1e-5).claim == claim
    with pytest.raises(ValueError, match="delta="):
        adapt(curve, d_in=1.0)


@pytest.mark.slow
def test_laplace_with_its_scale_is_verified_exactly_and_conforms(dp):
    """False-failure rate <= 1e-6 (the conformance audit of the two inputs)."""
    res = audit(adapt(scalar_laplace(dp), d_in=1.0, noise="laplace", scale=1.0), **SMALL)
    assert res.verdict == "verified" and res.privacy.auditor == "exact"
    assert [r.verdict for r in res.conformance] == ["not-refuted", "not-refuted"]
    assert UNSEEDED_NOTE in res.privacy.notes or res.privacy.auditor == "exact"


@pytest.mark.slow
def test_a_misstated_scale_is_refuted_by_the_samples(dp):
    """Power: the measurement was built with scale 1 but is said to have scale 2; the stated law's
    privacy (0.5) is within the claim, and its samples are twice too wide for it. False-failure rate
    below 1e-80: the Kolmogorov-Smirnov distance between Laplace(1) and Laplace(2) is 0.125, the test at
    level 1.7e-7 (5e-7 per input over its three tests) refutes once sup|F_n - F| > 0.0285, and the
    empirical cdf of 10^4 samples strays 0.0965 from its own law with probability at most
    2 exp(-2 10^4 0.0965^2) = 3e-81 (Dvoretzky-Kiefer-Wolfowitz-Massart), at each of the two inputs."""
    res = audit(adapt(scalar_laplace(dp, 1.0), d_in=1.0, noise="laplace", scale=2.0), **SMALL)
    assert res.privacy.verdict == "verified"
    assert res.verdict == "refuted" and {r.verdict for r in res.conformance} == {"refuted"}


@pytest.mark.slow
def test_zcdp_and_approximate_dp_are_decided_exactly(dp):
    """False-failure rate <= 2e-6 (two audits whose conformance must hold; the third verdict is exact)."""
    gauss = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    res = audit(adapt(gauss, d_in=1.0, noise="gaussian", scale=1.0), **SMALL)
    assert res.verdict == "verified" and res.privacy.auditor == "exact"
    approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), 1e-5)
    res = audit(adapt(approx, d_in=1.0, noise="gaussian", scale=1.0), **SMALL)
    assert res.privacy.auditor == "exact" and res.verdict in ("verified", "not-refuted")
    # a calibration off by 1.2x (the claim of scale 1 about a measurement of scale 1/1.2) is refuted exactly
    narrow = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1 / 1.2)
    res = audit(adapt(narrow, d_in=1.0, noise="gaussian", scale=1 / 1.2), claim=dpaudit.ZCDP(0.5), **SMALL)
    assert res.verdict == "refuted" and res.privacy.auditor == "exact"
    assert res.privacy.statistic.interval[0] == pytest.approx(0.72, rel=1e-6)


@pytest.mark.slow
def test_integer_domains_use_the_discrete_laws(dp):
    """False-failure rate <= 1e-6 (the first audit's conformance; the second verdict is exact)."""
    geo = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=2.0)
    res = audit(adapt(geo, d_in=1, noise="laplace", scale=2.0), **SMALL)
    assert res.verdict == "verified" and res.privacy.epsilon_lower == pytest.approx(0.5)
    dgauss = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.7)
    law = adapt(dgauss, d_in=1, noise="gaussian", scale=1.7).distribution(3)
    assert law.probs.sum() == pytest.approx(1.0) and law.outcomes[np.argmax(law.probs)] == 3
    res = audit(adapt(dgauss, d_in=1, noise="gaussian", scale=1.7), claim=dpaudit.ZCDP(0.15), **SMALL)
    assert res.verdict == "refuted" and res.privacy.auditor == "exact"  # rho = 1 / (2 * 1.7^2) = 0.173


@pytest.mark.slow
def test_a_vector_measurement_is_sampled_in_batches(dp):
    """False-failure rate <= 1e-6 + 1e-16: the audit's conformance, and the median of 1,000 Laplace(1)
    draws 0.3 or more from its centre (at most 500 of them below 5.3, each with probability 0.63, or the
    mirror event: 2 P(Binomial(1000, 0.63) <= 500) = 1e-16)."""
    vec = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=1.0)
    subject = adapt(vec, d_in=1.0, noise="laplace", scale=1.0, pairs=[([0.0, 0.0], [1.0, 0.0])])
    assert subject.relation == dpaudit.QueryDistance(1.0, one_coordinate=True)
    out = subject.sample([0.0, 5.0], 1000, np.random.default_rng(0))
    assert out.shape == (1000, 2) and abs(np.median(out[:, 1]) - 5) < 0.3
    res = audit(subject, **SMALL)
    assert res.verdict == "verified" and len(res.conformance) == 2


@pytest.mark.slow
def test_black_box_randomized_response_records_that_it_is_not_reproducible(dp):
    """The claim, log 3, is exactly the mechanism's epsilon, so a black-box audit refutes it with
    probability up to 1 - its confidence: at confidence 1 - 1e-6 the false-failure rate is <= 1e-6 (at
    the default 0.99 it would be up to 1 run in 100)."""
    rr = dp.m.make_randomized_response_bool(0.75)
    subject = adapt(rr, d_in=1)
    assert subject.pairs == [(False, True)] and subject.relation is None
    res = audit(subject, confidence=1 - 1e-6, **SMALL)
    assert res.privacy.auditor == "black-box" and res.verdict == "not-refuted"
    assert UNSEEDED_NOTE in res.privacy.notes


@pytest.mark.slow
def test_randomized_response_with_its_probability_is_decided_exactly_and_conforms(dp):
    """Boolean and categorical; a probability stated wrongly (0.8 for a measurement built with 0.75) is
    refuted by the samples (and its exact epsilon, log 8 > log 6, by the privacy check). False-failure
    rate <= 2e-6 + 1e-10: two audits whose conformance must hold, and the wrong probability's samples
    missed at an input only if the true value's count of 10^4, Binomial(10^4, 0.75), reaches 7778, where
    the cell test at level 2e-8 per tail stops refuting 0.8: P = 4.3e-11 per input."""
    res = audit(adapt(dp.m.make_randomized_response_bool(0.75), d_in=1, noise="randomized-response", prob=0.75),
                **SMALL)
    assert res.privacy.auditor == "exact" and res.verdict == "not-refuted"
    assert res.privacy.statistic.interval[0] == pytest.approx(math.log(3)) and len(res.conformance) == 2
    categories = ["a", "b", "c"]
    built = dp.m.make_randomized_response(categories, 0.75)
    res = audit(adapt(built, d_in=1, noise="randomized-response", prob=0.75, categories=categories,
                      pairs=[("a", "b")]), **SMALL)
    assert res.verdict == "not-refuted" and res.privacy.statistic.interval[0] == pytest.approx(math.log(6))
    wrong = audit(adapt(built, d_in=1, noise="randomized-response", prob=0.8, categories=categories,
                        pairs=[("a", "b")]), **SMALL)
    assert wrong.privacy.verdict == "refuted" and all(r.verdict == "refuted" for r in wrong.conformance)
    with pytest.raises(ValueError, match="categories"):
        adapt(built, d_in=1, noise="randomized-response", prob=0.75)


@pytest.mark.slow
def test_a_factory_runs_the_calls_over_processes(dp):
    """False-failure rate 2e-48: the mean of 6,000 draws of |Laplace(1)| = Exp(1) outside (0.8, 1.2),
    a Gamma(6000) tail."""
    import sys

    import cloudpickle  # a dependency of joblib

    # this test module is not importable in the worker processes: send its functions by value
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    subject = adapt(lambda: scalar_laplace(dp, 1.0), d_in=1.0, n_jobs=2)
    out = subject.sample(0.0, 6_000, np.random.default_rng(0))
    assert out.shape == (6_000,) and 0.8 < np.mean(np.abs(out)) < 1.2  # E|Laplace(1)| = 1


def test_bad_arguments_are_clear(dp):
    """No samples: deterministic."""
    with pytest.raises(TypeError, match="Measurement"):
        adapt(3)
    with pytest.raises(ValueError, match="noise must be"):
        adapt(scalar_laplace(dp), noise="staircase", scale=1.0)
    with pytest.raises(ValueError, match="together"):
        adapt(scalar_laplace(dp), noise="laplace")
    with pytest.raises(ValueError, match="prob="):
        adapt(scalar_laplace(dp), noise="randomized-response", scale=1.0)
    with pytest.raises(ValueError, match="d_in=1"):
        adapt(_count_measurement(dp), d_in=2)


def _count_measurement(dp):
    count = dp.t.make_count(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance())
    return count >> dp.m.then_laplace(1.0)
