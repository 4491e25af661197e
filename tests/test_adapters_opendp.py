"""dpaudit.adapters.opendp: the claim from the output measure and privacy map, the relation from the
input metric, unseeded sampling (OpenDP cannot be seeded), exact laws from the stated noise and scale.

Conformance audits run at alpha = 1e-6 (a correct library fails one with at most that probability);
black-box privacy audits at confidence 0.99. OpenDP draws from the operating system, so its samples
differ run to run: the verdicts asserted below are those every such run gives but with the
probabilities just stated (1e-6 per conformance audit; 0.01 per black-box not-refuted verdict)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpaudit
from dpaudit.adapters import audit
from dpaudit.samplers import UNSEEDED_NOTE

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib")
adapt = dpaudit.adapters.opendp
SMALL = {"samples": 10_000, "conformance_samples": 10_000, "seed": 0}


def scalar_laplace(scale: float = 1.0):
    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)


def test_the_claim_and_relation_come_from_the_measurement():
    subject = adapt(scalar_laplace(2.0), d_in=1.0)
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


def test_laplace_with_its_scale_is_verified_exactly_and_conforms():
    res = audit(adapt(scalar_laplace(), d_in=1.0, noise="laplace", scale=1.0), **SMALL)
    assert res.verdict == "verified" and res.privacy.auditor == "exact"
    assert [r.verdict for r in res.conformance] == ["not-refuted", "not-refuted"]
    assert UNSEEDED_NOTE in res.privacy.notes or res.privacy.auditor == "exact"


def test_a_misstated_scale_is_refuted_by_the_samples():
    """Power: the measurement was built with scale 1 but is said to have scale 2; the stated law's
    privacy (0.5) is within the claim, and its samples are twice too wide for it."""
    res = audit(adapt(scalar_laplace(1.0), d_in=1.0, noise="laplace", scale=2.0), **SMALL)
    assert res.privacy.verdict == "verified"
    assert res.verdict == "refuted" and {r.verdict for r in res.conformance} == {"refuted"}


def test_zcdp_and_approximate_dp_are_decided_exactly():
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


def test_integer_domains_use_the_discrete_laws():
    geo = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=2.0)
    res = audit(adapt(geo, d_in=1, noise="laplace", scale=2.0), **SMALL)
    assert res.verdict == "verified" and res.privacy.epsilon_lower == pytest.approx(0.5)
    dgauss = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.7)
    law = adapt(dgauss, d_in=1, noise="gaussian", scale=1.7).distribution(3)
    assert law.probs.sum() == pytest.approx(1.0) and law.outcomes[np.argmax(law.probs)] == 3
    res = audit(adapt(dgauss, d_in=1, noise="gaussian", scale=1.7), claim=dpaudit.ZCDP(0.15), **SMALL)
    assert res.verdict == "refuted" and res.privacy.auditor == "exact"  # rho = 1 / (2 * 1.7^2) = 0.173


def test_a_vector_measurement_is_sampled_in_batches():
    vec = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=1.0)
    subject = adapt(vec, d_in=1.0, noise="laplace", scale=1.0, pairs=[([0.0, 0.0], [1.0, 0.0])])
    assert subject.relation == dpaudit.QueryDistance(1.0, one_coordinate=True)
    out = subject.sample([0.0, 5.0], 1000, np.random.default_rng(0))
    assert out.shape == (1000, 2) and abs(np.median(out[:, 1]) - 5) < 0.3
    res = audit(subject, **SMALL)
    assert res.verdict == "verified" and len(res.conformance) == 2


def test_black_box_randomized_response_records_that_it_is_not_reproducible():
    rr = dp.m.make_randomized_response_bool(0.75)
    subject = adapt(rr, d_in=1)
    assert subject.pairs == [(False, True)] and subject.relation is None
    res = audit(subject, **SMALL)
    assert res.privacy.auditor == "black-box" and res.verdict == "not-refuted"
    assert UNSEEDED_NOTE in res.privacy.notes


def test_randomized_response_with_its_probability_is_decided_exactly_and_conforms():
    """Boolean and categorical; a probability stated wrongly (0.8 for a measurement built with 0.75) is
    refuted by the samples (and its exact epsilon, log 8 > log 6, by the privacy check)."""
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


def test_a_factory_runs_the_calls_over_processes():
    import sys

    import cloudpickle  # a dependency of joblib

    # this test module is not importable in the worker processes: send its functions by value
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    subject = adapt(lambda: scalar_laplace(1.0), d_in=1.0, n_jobs=2)
    out = subject.sample(0.0, 6_000, np.random.default_rng(0))
    assert out.shape == (6_000,) and 0.8 < np.mean(np.abs(out)) < 1.2  # E|Laplace(1)| = 1


def test_bad_arguments_are_clear():
    with pytest.raises(TypeError, match="Measurement"):
        adapt(3)
    with pytest.raises(ValueError, match="noise must be"):
        adapt(scalar_laplace(), noise="staircase", scale=1.0)
    with pytest.raises(ValueError, match="together"):
        adapt(scalar_laplace(), noise="laplace")
    with pytest.raises(ValueError, match="prob="):
        adapt(scalar_laplace(), noise="randomized-response", scale=1.0)
    with pytest.raises(ValueError, match="d_in=1"):
        adapt(_count_measurement(), d_in=2)


def _count_measurement():
    count = dp.t.make_count(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance())
    return count >> dp.m.then_laplace(1.0)
