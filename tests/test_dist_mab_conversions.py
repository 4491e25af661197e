"""dist-mab's conversion entries (Lemma 10, Theorem 7; dpaudit.audits.dist_mab.conversions): the printed
formulas against independent computations, the count fixture against the k-fold composition it stands for,
the audits' power (a stronger claim is refuted), and the entries' verdicts. All exact: no randomness, so no
false-failure rate."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from regret_suites import as_expected, audit_in_a_run

import dpaudit
from dpaudit import ApproxDP
from dpaudit.audits.dist_mab import conversions as cv
from dpaudit.audits.dist_mab import suite
from dpaudit.exact.finite import hockey_stick
from dpaudit.mechanisms import RandomizedResponse, ZCDPGaussianMechanism
from dpaudit.mechanisms.classic.composition import RepeatedResponseCount
from dpaudit.mechanisms.classic.gaussian import analytic_gaussian_delta


def lemma10_on_a_grid(curve, delta):
    alpha = 1 + np.geomspace(1e-6, 1e6, 200_001)
    return float(np.min(curve(alpha) + np.log(1 / (alpha * delta)) / (alpha - 1) + np.log1p(-1 / alpha)))


@pytest.mark.parametrize(("rho", "delta"), [(0.5, 1e-5), (0.02, 1e-3), (2.0, 1e-6)])
def test_conversion_is_the_printed_infimum(rho, delta):
    eps = cv.conversion_epsilon(lambda a: a * rho, delta)
    grid = lemma10_on_a_grid(lambda a: a * rho, delta)
    assert eps <= grid + 1e-12 and eps == pytest.approx(grid, rel=1e-6)
    assert analytic_gaussian_delta(eps, 1 / math.sqrt(2 * rho)) <= delta  # the lemma at this point (Balle & Wang)


def test_theorem7_formula():
    assert cv.theorem7_epsilon(0.5, 128, 1e-5) == pytest.approx(0.5 / (2 * math.sqrt(2 * 128 * math.log(1e5))))


@pytest.mark.parametrize("eps", [0.3, 1.1])
def test_count_has_the_profile_of_the_k_releases(eps):
    """The count's hockey-stick divergence against the k = 4 releases', enumerated over all 2^4 answer vectors."""
    count = RepeatedResponseCount(eps, 4)
    keep = RandomizedResponse(eps).keep_probability
    answers = np.array(list(itertools.product((0, 1), repeat=4)))
    p = np.prod(np.where(answers == 1, keep, 1 - keep), axis=1)  # the bit is 1
    q = np.prod(np.where(answers == 0, keep, 1 - keep), axis=1)  # the bit is 0
    for target in (0.0, 0.5 * eps, 2 * eps, 3.9 * eps):
        enclosure = hockey_stick(count.distribution([1]), count.distribution([0]), target).delta
        brute = float(np.maximum(p - math.exp(target) * q, 0).sum())
        assert float(enclosure.lo) - 1e-12 <= brute <= float(enclosure.hi) + 1e-12
    rng = np.random.default_rng(7)
    draws = count.sample([1], 200_000, rng)
    # mean k a within 5 standard errors (false-failure rate < 1e-6)
    a = 1 / (1 + math.exp(-eps))
    assert abs(draws.mean() - 4 * a) < 5 * math.sqrt(4 * a * (1 - a) / 200_000)


def test_a_stronger_claim_is_refuted():
    """Power: the exact audits decide the boundary -- Lemma 10's eps cut by 10 % on the Gaussian, and Theorem 7's
    per-mechanism eps raised fourfold (k eps = 2.36 eps'), are refuted."""
    eps = cv.conversion_epsilon(lambda a: a * 0.5, 1e-5)
    res = dpaudit.audit_privacy(ZCDPGaussianMechanism(0.5), ApproxDP(0.9 * eps, 1e-5), pairs=[(0.0, 1.0)],
                                auditor="exact")
    assert res.verdict == "refuted"
    e = 4 * cv.theorem7_epsilon(0.5, 128, 1e-5)
    res = dpaudit.audit_privacy(RepeatedResponseCount(e, 128), ApproxDP(0.5, 1e-5), pairs=[([1], [0])],
                                auditor="exact")
    assert res.verdict == "refuted"


CHEAP = [e.id for e in suite.entries if e.id.startswith(("dist-mab/lem10@pure", "dist-mab/thm7@"))]


def test_ids():
    ids = [e.id for e in suite.entries if e.id.startswith(("dist-mab/lem10@", "dist-mab/thm7@"))]
    assert len(ids) == 9 and len(CHEAP) == 7


@pytest.mark.parametrize("claim_id", CHEAP + ["dist-mab/lem10@rdp-to-dp,rho0.02,delta0.001"])
def test_entries_verify(claim_id):
    entry = next(e for e in suite.entries if e.id == claim_id)
    finding = audit_in_a_run(entry, suite)
    assert finding.verdict == "verified" and as_expected(entry, finding.verdict), finding.notes
