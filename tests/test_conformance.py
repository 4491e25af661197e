"""Sampler conformance: correct samplers pass, miscalibrated ones are caught.

Each audit's false-failure rate is at most 1e-6 (Bonferroni over its tests); the tests below that
expect "not-refuted" on correct samplers therefore fail with probability at most 1e-6 each (100
seeds in the slow test: at most 1e-4). The power tests (scale off by 5%, 1% of one cell's mass
moved to its neighbour, at the standard budget of 2 * 10^6 samples) refute with p-values below
1e-16 at the seeds used; their failure probability at other seeds is far below 1e-6.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.suite import ConformanceEntry

STANDARD = 2_000_000
LATTICE = [stats.dlaplace(1 / 3), stats.binom(40, 0.3), stats.poisson(7.5), stats.geom(0.2)]
CONTINUOUS = [stats.norm(1.0, 2.0), stats.laplace(0, 0.7), stats.expon(scale=2.0)]


def from_law(law):
    return lambda n, rng: law.rvs(size=n, random_state=rng)


@pytest.mark.parametrize("law", LATTICE + CONTINUOUS, ids=lambda d: d.dist.name)
def test_correct_samplers_conform(law):
    r = dpaudit.audit_sampler(from_law(law), law, samples=500_000, seed=11)
    assert r.verdict == "not-refuted", r.witness
    assert r.confidence == 1 - 1e-6 and r.parameters["tests"]


@pytest.mark.parametrize("law, wrong", [
    (stats.dlaplace(1 / 3), stats.dlaplace(1 / 3 / 1.05)),
    (stats.binom(40, 0.3), stats.binom(40, 0.3 * 1.05)),
    (stats.norm(1.0, 2.0), stats.norm(1.0, 2.1)),
    (stats.laplace(0, 0.7), stats.laplace(0, 0.735)),
], ids=["dlaplace", "binom", "norm", "laplace"])
def test_a_scale_off_by_five_percent_is_refuted(law, wrong):
    r = dpaudit.audit_sampler(from_law(wrong), law, samples=STANDARD, seed=5)
    assert r.verdict == "refuted" and r.witness["p_value"] < 1e-12


@pytest.mark.parametrize("law, cells", [(stats.dlaplace(1 / 3), [0]), (stats.binom(40, 0.3), [12]),
                                        (stats.poisson(7.5), [5, 7, 9])], ids=["dlaplace", "binom", "poisson"])
def test_one_percent_of_a_cell_moved_to_its_neighbour_is_refuted(law, cells):
    """A biased-arithmetic bug: 1% of P[cell] lands on cell + 1, at a few of the likely cells (1% of a
    cell holding 4% of the mass is below what 2 * 10^6 samples resolve at level 1e-6)."""
    def perturbed(n, rng):
        x = law.rvs(size=n, random_state=rng)
        move = np.isin(x, cells) & (rng.random(n) < 0.01)
        return np.where(move, x + 1, x)

    r = dpaudit.audit_sampler(perturbed, law, samples=STANDARD, seed=5)
    assert r.verdict == "refuted"
    local = {t["test"]: t["p_value"] for t in r.parameters["tests"]}
    assert min(local["cell residuals"], local["log-ratio slope"]) < r.witness["level"]  # the local tests see it


def test_bad_samplers_are_clear_errors():
    law = stats.binom(10, 0.5)
    with pytest.raises(ValueError, match="shape"):
        dpaudit.audit_sampler(lambda n, rng: np.zeros(n - 1), law, samples=1000, seed=0)
    with pytest.raises(ValueError, match="NaN"):
        dpaudit.audit_sampler(lambda n, rng: np.full(n, np.nan), law, samples=1000, seed=0)
    with pytest.raises(ValueError, match="non-integers"):
        dpaudit.audit_sampler(lambda n, rng: rng.random(n), law, samples=1000, seed=0)
    with pytest.raises(TypeError, match="reference"):
        dpaudit.audit_sampler(lambda n, rng: np.zeros(n), lambda n, rng: np.zeros(n), samples=1000, seed=0)
    with pytest.raises(ValueError, match="alpha"):
        dpaudit.audit_sampler(from_law(law), law, samples=1000, seed=0, alpha=0)


def test_conformance_entries_take_the_smaller_of_1e6_and_their_share():
    entry = ConformanceEntry("testing-x/sampler", sampler=from_law(stats.binom(10, 0.5)),
                             reference=stats.binom(10, 0.5))
    assert entry.statistical and entry.auditor == "statistical" and entry.claim.kind == "conformance"


@pytest.mark.slow
def test_false_failures_over_seeds():
    law = stats.dlaplace(0.5)
    refuted = sum(dpaudit.audit_sampler(from_law(law), law, samples=200_000, seed=s).verdict == "refuted"
                  for s in range(100))
    assert refuted == 0


def test_one_point_law_accepts_exactly_its_value():
    from dpaudit.mechanisms import noise
    law = noise.FiniteIntegerLaw(3, [1.0], name="always 3")
    ok = dpaudit.audit_sampler(lambda size, rng: np.full(size, 3), law, samples=1000, seed=0)
    assert ok.verdict == "not-refuted"
    bad = dpaudit.audit_sampler(lambda size, rng: np.where(np.arange(size) == 7, 4, 3), law, samples=1000, seed=0)
    assert bad.verdict == "refuted" and bad.witness["first_mismatch"] == 4.0
