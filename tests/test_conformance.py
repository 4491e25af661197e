"""Sampler conformance: correct samplers pass, miscalibrated ones are caught.

Each audit's false-failure rate is at most 1e-6 (Bonferroni over its tests); the tests below that
expect "not-refuted" on correct samplers therefore fail with probability at most 1e-6 each (100
seeds in the slow test: at most 1e-4). The power tests (scale off by 5%, 1% of one cell's mass
moved to its neighbour, at the standard budget of 2 * 10^6 samples) refute with p-values below
1e-16 at the seeds used; their failure probability at other seeds is far below 1e-6.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.core.results import Statistic
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


# -- the false-failure rate at the exact boundary: samples drawn from exactly the stated law ---------------
# A sampler that draws exactly from its reference law is refuted with probability at most alpha, so over m
# seeded audits the refutations are stochastically below Binomial(m, alpha); each test allows that law's
# 1 - 1e-4 quantile, so it fails a correct auditor with probability below 1e-4 (exact figures beside each).
# A large alpha (0.2) makes the rate measurable in a few hundred audits; every test, cell, pair and atom
# is a comparison that Bonferroni must pay for.

def _half_uniform_half_atoms(atoms: int = 20):
    """Uniform(0, 1) with probability 1/2, else one of ``atoms`` equally likely points in (0, 1)."""
    from dpaudit.core.laws import Law

    points = (np.arange(atoms) + 0.5) / atoms
    mass = 0.5 / atoms

    def cdf(x):
        x = np.asarray(x, dtype=float)
        return 0.5 * np.clip(x, 0.0, 1.0) + mass * np.searchsorted(points, x, side="right")

    def sample(n, rng):
        return np.where(rng.random(n) < 0.5, rng.random(n), points[rng.integers(0, atoms, n)])

    mean = 0.5 * 0.5 + 0.5 * points.mean()
    second = 0.5 / 3 + 0.5 * (points**2).mean()
    return Law(f"half Uniform(0, 1), half {atoms} atoms", False, mean, second - mean**2, (0.0, 1.0), cdf,
               lambda x: 1.0 - cdf(x), sample, atoms=tuple((float(p), mass) for p in points))


def _discrete_laplace(n, rng):
    """Exactly stats.dlaplace(1/3): the difference of two geometric variables with P(G > k) = e^(-k/3)."""
    p = 1 - np.exp(-1 / 3)
    return rng.geometric(p, n) - rng.geometric(p, n)


def test_the_g_test_holds_its_level_on_its_pooled_cells():
    """The G-test is the one lattice test whose level is asymptotic (chi-square): it holds only if no
    bin expects too few outputs. Its own p-value on exact discrete-Laplace samples (scale 3, 20,000
    samples, about 39 bins) over 4,000 seeds, rejected at 0.1: the limit is 472, which a rate of exactly
    0.1 exceeds with probability 1e-4 and the simulated rate (1.03 to 1.05 times it) with probability
    about 4e-3. Measured: 421; 521 with the tails pooled only until the next cell would bring them to 5
    expected outputs (a pooled cell expecting about 1.5, inner cells about 3)."""
    from dpaudit.auditors.conformance import _lattice_tests
    from dpaudit.core.laws import as_law

    law = as_law(stats.dlaplace(1 / 3))
    rng = np.random.default_rng(2026)
    m, level = 4_000, 0.1
    rejected = 0
    for _ in range(m):
        g_test = _lattice_tests(law, _discrete_laplace(20_000, rng).astype(float))[0]
        assert g_test["test"] == "G-test"
        rejected += g_test["p_value"] < level
    assert rejected <= stats.binom.isf(1e-4, m, level)


@pytest.mark.parametrize("law, samples", [(stats.dlaplace(1 / 3), 20_000), (stats.dlaplace(1 / 2_000), 5_000),
                                           (stats.binom(40, 0.3), 1_000)],
                         ids=["discrete-laplace", "spread-over-more-cells-than-samples", "bounded"])
def test_every_g_test_bin_expects_at_least_ten_outputs(law, samples):
    """The bins the G-test's level rests on (test above, module docstring): consecutive, covering every
    outputs and the whole law, each expecting at least 10 outputs, a short last bin merged into its
    neighbour. Deterministic given the seed."""
    from dpaudit.auditors.conformance import _cells
    from dpaudit.core.laws import as_law

    x = law.rvs(samples, random_state=np.random.default_rng(3)).astype(float)
    labels, observed, p = _cells(as_law(law), x)
    assert p.sum() == pytest.approx(1.0, abs=1e-12) and observed.sum() == samples
    assert np.all(p * samples >= 10.0), (p * samples).min()
    assert labels[0].startswith("<= ") and labels[-1].startswith(">= ")
    middle = [tuple(int(v) for v in label.split("..")) for label in labels[1:-1]]
    edges = [int(labels[0][3:])] + [v for bin_ in middle for v in (bin_[0], bin_[-1])] + [int(labels[-1][3:])]
    assert all(b - a == 1 for a, b in zip(edges[::2], edges[1::2]))  # each bin starts where the last ended


def test_the_g_test_divides_by_williams_correction():
    """On k equally likely cells Williams' divisor is 1 + (k + 1) / (6 n) (Williams 1976)."""
    from dpaudit.auditors.conformance import _lattice_tests
    from dpaudit.core.laws import as_law

    n, k = 2_000, 20
    x = np.random.default_rng(4).integers(0, k, n).astype(float)
    g_test = _lattice_tests(as_law(stats.randint(0, k)), x)[0]
    assert g_test["cells"] == k and g_test["williams_q"] == pytest.approx(1 + (k + 1) / (6 * n), rel=1e-12)
    assert g_test["p_value"] == pytest.approx(stats.chi2.sf(g_test["statistic"] / g_test["williams_q"], k - 1),
                                              rel=1e-12)
    assert g_test["p_value"] > stats.chi2.sf(g_test["statistic"], k - 1)


def _atoms():
    law = _half_uniform_half_atoms()
    return law.sample, law


EXACT = {
    # G-test, cell residuals (Bonferroni over about 39 bins), log-ratio slope (over about 12 pairs), mean, symmetry
    "discrete laplace": lambda: (_discrete_laplace, stats.dlaplace(1 / 3)),
    # Kolmogorov-Smirnov with atoms, atom counts (Bonferroni over 20 atoms), mean, symmetry
    "atoms": _atoms,
}


@pytest.mark.parametrize("case", list(EXACT))
def test_samples_of_exactly_the_stated_law_are_refuted_at_most_alpha_often(case):
    """200 audits of 20,000 samples at alpha = 0.2; the limit is 62 refutations, P(Binomial(200, 0.2) > 62)
    = 8e-5. Measured: discrete laplace 32, atoms 24. Without the split of alpha over the tests: 108 and 94;
    without Bonferroni over the cells: 155; over the slope's pairs: 85; over the atoms: 131."""
    m, alpha = 200, 0.2
    sampler, law = EXACT[case]()
    refuted = sum(dpaudit.audit_sampler(sampler, law, samples=20_000, seed=seed, alpha=alpha).verdict == "refuted"
                  for seed in range(m))
    assert refuted <= stats.binom.isf(1e-4, m, alpha)


def test_an_adapted_mechanism_splits_alpha_over_its_inputs():
    """The adapters' audit tests the samples at every input of the pairs (12 here), each at alpha / 12, so a
    library drawing exactly from its law fails any of them with probability at most alpha = 0.3. 20 audits
    of 1,000 samples per input; the limit is 14, P(Binomial(20, 0.3) > 14) = 4e-5. Measured: 6 audits with a
    refuted input; 20 when every input is tested at alpha."""
    from dpaudit.adapters import Adapted, audit
    from dpaudit.mechanisms import DiscreteLaplaceMechanism

    mech = DiscreteLaplaceMechanism(1.0)
    subject = Adapted("geometric mechanism", mech, dpaudit.PureDP(1.0), pairs=[(2 * k, 2 * k + 1) for k in range(6)],
                      law=mech.distribution, reference=lambda data: (stats.dlaplace(1.0), lambda out: out - data))
    m, alpha = 20, 0.3
    failed = 0
    for seed in range(m):
        result = audit(subject, seed=seed, conformance_samples=1_000, alpha=alpha)
        assert len(result.conformance) == 12 and result.privacy.verdict != "refuted"
        failed += any(r.verdict == "refuted" for r in result.conformance)
    assert failed <= stats.binom.isf(1e-4, m, alpha)


# -- the component tests' records, recomputed by hand ----------------------------------------------

def _atoms_on_uniform():
    """P{0} = 0.3, P{1} = 0.2, and the other half uniform on (0, 1): a continuous law with two atoms."""
    from dpaudit.core.laws import Law

    def cdf(x):
        x = np.asarray(x, dtype=float)
        return 0.3 * (x >= 0) + 0.5 * np.clip(x, 0, 1) + 0.2 * (x >= 1)

    return Law("atoms on a uniform", False, 0.45, 0.0, (0.0, 1.0), cdf, lambda x: 1 - cdf(x),
               lambda n, rng: rng.uniform(0, 1, n), atoms=((0.0, 0.3), (1.0, 0.2)))


def test_the_atom_count_and_ks_records_are_the_hand_computation():
    from dpaudit.auditors import conformance

    law = _atoms_on_uniform()
    x = np.concatenate([np.zeros(45), np.ones(15), np.linspace(0.01, 0.99, 40)])
    n = x.size
    atoms = conformance._atom_counts(law, x)
    def doubled_smaller_tail(k, p):  # the two-sided binomial p-value the auditor documents
        return min(1.0, 2 * min(stats.binom.cdf(k, n, p), stats.binom.sf(k - 1, n, p)))

    p0 = doubled_smaller_tail(45, 0.3) * 2  # Bonferroni over the two atoms
    p1 = doubled_smaller_tail(15, 0.2) * 2
    assert atoms == {"test": "atom counts", "p_value": pytest.approx(min(p0, p1, 1.0), rel=1e-6), "atom": 0.0,
                     "observed": 45, "expected": pytest.approx(30.0)}
    calm = conformance._atom_counts(law, np.concatenate([np.zeros(30), np.ones(20), np.linspace(0.01, 0.99, 50)]))
    assert calm["p_value"] == 1.0  # Bonferroni's product is capped at 1
    ks = conformance._ks_with_atoms(law, x)
    # sup |F_n - F| over t, on both sides of every sample value and atom, written out
    points = np.unique(np.concatenate([x, x - 1e-9, x + 1e-9, [-1e-9, 1 - 1e-9]]))
    empirical = np.searchsorted(np.sort(x), points, side="right") / n
    d = float(np.abs(empirical - law.cdf(points)).max())
    assert ks["test"] == "Kolmogorov-Smirnov (with atoms)"
    assert ks["statistic"] == pytest.approx(d, abs=1e-8)
    assert ks["p_value"] == pytest.approx(stats.kstwo.sf(ks["statistic"], n), rel=1e-12)


def test_the_one_point_record_names_the_first_mismatch():
    from dpaudit.auditors import conformance
    from dpaudit.core.laws import Law

    law = Law("3", True, 3.0, 0.0, (3.0, 3.0), lambda x: 1.0 * (np.asarray(x) >= 3),
              lambda x: 1.0 * (np.asarray(x) < 3), lambda n, rng: np.full(n, 3.0))
    assert conformance._one_point_test(law, np.full(5, 3.0)) == {"test": "one-point law", "p_value": 1.0, "value": 3.0,
                                                                "mismatches": 0}
    assert conformance._one_point_test(law, np.array([3.0, 4.0, 3.0, 2.0])) == {
        "test": "one-point law", "p_value": 0.0, "value": 3.0, "mismatches": 2, "first_mismatch": 4.0}


def _two_atoms_on_a_uniform():
    """_atoms_on_uniform with its true moments (mean 0.2 + 0.5 / 2 = 0.45, E[X^2] = 0.2 + 0.5 / 3, so
    variance 11/30 - 0.45^2 = 197/1200), for whole audits."""
    import dataclasses

    return dataclasses.replace(_atoms_on_uniform(), var=197 / 1200)


def _binomial_upper_tail(k: int, n: int, p) -> float:
    """P[Binomial(n, p) >= k], summed exactly in rationals."""
    from fractions import Fraction

    p = Fraction(p)
    return float(sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1)))


def test_an_audit_refuted_by_kolmogorov_smirnov_names_it_with_its_exact_tail():
    """Ten outputs all at 0.98 against Uniform(0, 1): the KS statistic is sup |F_n - F| = F(0.98) - 0 = 0.98,
    and for d >= 1 - 1/n the exact law of D_n has P[D_n >= d] = 2 (1 - d)^n (the two one-sided extremes are
    disjoint there), 2 * 0.02^10 = 2.048e-17. The record and the witness name the test exactly, with its
    p-value and statistic; three tests (KS, mean, symmetry) share alpha = 1e-6. Deterministic."""
    x = np.full(10, 0.98)
    r = dpaudit.audit_sampler(lambda n, rng: x, stats.uniform(0, 1), samples=10, seed=0)
    ks = {"test": "Kolmogorov-Smirnov", "p_value": pytest.approx(2 * 0.02**10, rel=1e-9, abs=0),
          "statistic": pytest.approx(0.98, rel=1e-12)}
    assert r.verdict == "refuted"
    assert r.parameters["tests"][0] == ks
    assert r.witness == {**ks, "level": pytest.approx(1e-6 / 3, rel=1e-12)}


def test_the_atom_count_record_names_the_least_likely_atom_wherever_it_is_listed():
    """P{0} = 0.3 and P{1} = 0.2: 30 of 100 outputs at 0 is exactly the expected count (two-sided p-value
    capped at 1), 70 at 1 against 20 expected is the outlier, the second atom listed. Its p-value is twice
    P[Binomial(100, 1/5) >= 70], summed exactly, times 2 for Bonferroni over the atoms. Deterministic."""
    x = np.concatenate([np.zeros(30), np.ones(70)])
    r = dpaudit.audit_sampler(lambda n, rng: x, _two_atoms_on_a_uniform(), samples=100, seed=0)
    (atoms,) = [t for t in r.parameters["tests"] if t["test"] == "atom counts"]
    tail = 4 * _binomial_upper_tail(70, 100, 0.2)
    assert atoms == {"test": "atom counts", "p_value": pytest.approx(tail, rel=1e-9, abs=0),
                     "atom": 1.0, "observed": 70, "expected": pytest.approx(20.0, rel=1e-12)}
    assert r.verdict == "refuted"


def test_the_ks_statistic_with_atoms_measures_the_gap_just_left_of_an_atom():
    """Outputs only at the atoms, 30 at 0 and 70 at 1: on [0, 1) the empirical cdf stays at 0.3 while the
    law's rises from 0.3 to 0.3 + 0.5 t, so sup |F_n - F| = 0.5, reached just left of the atom at 1
    (F(1-) = 0.8), while at the sample values themselves F_n = F (0.3 at 0, 1 at 1). The p-value is the
    continuous-case tail of that statistic, scipy's kstwo at n = 100. Deterministic."""
    x = np.concatenate([np.zeros(30), np.ones(70)])
    r = dpaudit.audit_sampler(lambda n, rng: x, _two_atoms_on_a_uniform(), samples=100, seed=0)
    (ks,) = [t for t in r.parameters["tests"] if t["test"] == "Kolmogorov-Smirnov (with atoms)"]
    assert ks == {"test": "Kolmogorov-Smirnov (with atoms)", "statistic": pytest.approx(0.5, rel=1e-12),
                  "p_value": pytest.approx(stats.kstwo.sf(0.5, 100), rel=1e-12)}


# -- whole audits on hand-built samples, every record recomputed ----------------------------------------------

def test_an_audit_of_a_three_point_law_reports_every_test_as_computed_by_hand():
    """80 outputs 20 x 0, 30 x 1, 30 x 2 against Binomial(2, 1/2), which expects 20, 40, 20: three cells of
    their own (each expects at least 10), no pair with the 1,000 counts the slope test needs, and a law
    symmetric about its mean 1, so four tests at 1e-6 / 4 each. By hand:
    - G = 2 sum O ln(O / E) = 60 ln(9/8), Williams' divisor 1 + (4 + 2 + 4 - 1) / (6 * 80 * 2) = 1 + 9/960,
      and with 2 degrees of freedom the chi-square tail is exp(-x / 2): p = (8/9)^(30 / q);
    - cell residuals: each cell's doubled smaller binomial tail, times 3 cells; the extreme cell is the
      last, 30 against 20 at probability 1/4 (the middle one, 30 of 80 at 1/2, is less extreme);
    - mean: z = (1.125 - 1) / sqrt(0.5 / 80) = sqrt(2.5), p = erfc(z / sqrt 2);
    - symmetry: 30 above the mean and 20 below, p = 2 P[Binomial(50, 1/2) >= 30].
    The binomial tails are summed exactly in rationals. The smallest p-value, the G-test's (0.030), is
    far above the level: not refuted. Deterministic."""
    x = np.repeat([0.0, 1.0, 2.0], [20, 30, 30])
    r = dpaudit.audit_sampler(lambda n, rng: x, stats.binom(2, 0.5), samples=80, seed=0)
    q = 1 + 9 / 960
    g_p = (8 / 9) ** (30 / q)
    last_cell = 3 * 2 * _binomial_upper_tail(30, 80, Fraction(1, 4))
    middle_cell = 3 * 2 * _binomial_upper_tail(50, 80, Fraction(1, 2))  # P[Bin(80, 1/2) <= 30], mirrored
    assert last_cell < middle_cell
    z = math.sqrt(2.5)
    g_test = {"test": "G-test", "p_value": pytest.approx(g_p, rel=1e-9),
              "statistic": pytest.approx(60 * math.log(9 / 8), rel=1e-12), "cells": 3,
              "williams_q": pytest.approx(q, rel=1e-12)}
    assert r.parameters["tests"] == [
        g_test,
        {"test": "cell residuals", "p_value": pytest.approx(last_cell, rel=1e-9), "cell": ">= 2", "observed": 30,
         "expected": pytest.approx(20.0, rel=1e-12)},
        {"test": "mean", "p_value": pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-9),
         "z": pytest.approx(z, rel=1e-12), "sample_mean": 1.125, "mean": pytest.approx(1.0, rel=1e-12)},
        {"test": "symmetry", "p_value": pytest.approx(2 * _binomial_upper_tail(30, 50, Fraction(1, 2)), rel=1e-9),
         "above": 30, "below": 20},
    ]
    assert r.verdict == "not-refuted" and r.auditor == "conformance" and r.samples == 80
    assert r.statistic == Statistic("smallest p-value", pytest.approx(g_p, rel=1e-9), None, "two-sided")
    assert r.witness == {**g_test, "level": pytest.approx(2.5e-7, rel=1e-12)}
    assert r.notes == ["4 tests at level 2.5e-07 each (false-failure rate at most 1e-06 per audit, "
                       "asymptotically for the G-test and the mean's z-test)"]


def test_a_fair_coin_matched_exactly_gets_all_four_tests_each_with_p_value_one():
    """20 heads and 20 tails against Bernoulli(1/2): two cells (the fewest the G-test and the cell residuals
    run on), G = 0 with Williams' divisor 1 + (2 + 2 - 1) / (6 * 40) = 1.0125; each cell's two-sided
    binomial p-value is 1, and Bonferroni's 2 x 1 is capped at 1; the mean is met (z = 0), and with 20
    above and 20 below the mean the symmetry test runs and gives 1. Deterministic."""
    x = np.repeat([0.0, 1.0], 20)
    r = dpaudit.audit_sampler(lambda n, rng: x, stats.bernoulli(0.5), samples=40, seed=0)
    assert r.parameters["tests"] == [
        {"test": "G-test", "p_value": 1.0, "statistic": 0.0, "cells": 2,
         "williams_q": pytest.approx(1.0125, rel=1e-12)},
        {"test": "cell residuals", "p_value": 1.0, "cell": "<= 0", "observed": 20, "expected": pytest.approx(20.0)},
        {"test": "mean", "p_value": 1.0, "z": 0.0, "sample_mean": 0.5, "mean": 0.5},
        {"test": "symmetry", "p_value": 1.0, "above": 20, "below": 20},
    ]
    assert r.verdict == "not-refuted"


def test_a_biased_coin_is_not_held_to_a_symmetry_test():
    """Bernoulli(0.3) is not symmetric about its mean 0.3 (P[X > m] = 0.3, P[X < m] = 0.7), though its far
    tails (both 0 beyond the support) agree: the comparison at d = 0 is what tells. 10,000 outputs with
    exactly 3,000 ones, the law's own proportions, get the G-test, the cell residuals, the slope of the pair
    (0, 1) and the mean, all at p-value 1, and are not refuted; a symmetry test (3,000 of 10,000 against
    1/2) would refute this correct sampler. Deterministic."""
    x = np.repeat([0.0, 1.0], [7000, 3000])
    r = dpaudit.audit_sampler(lambda n, rng: x, stats.bernoulli(0.3), samples=10_000, seed=0)
    assert [t["test"] for t in r.parameters["tests"]] == ["G-test", "cell residuals", "log-ratio slope", "mean"]
    assert r.verdict == "not-refuted"


def test_the_slope_test_takes_exactly_the_neighbouring_pairs_with_1000_outputs():
    """1,400 outputs 200 x 0, 800 x 1, 400 x 2 against Binomial(2, 1/2): the pair (0, 1) holds exactly 1,000
    outputs (enough), the pair (1, 2) 1,200; given the pair's total, the count of the upper cell is
    Binomial(total, p(k + 1) / (p(k) + p(k + 1))): 800 of 1,000 at 2/3 (extreme) and 400 of 1,200 at 1/3
    (exactly expected, p-value capped at 1). Bonferroni over the two pairs: the record is the pair (0, 1)
    with p-value 2 x 2 P[Binomial(1000, 2/3) >= 800] = 2.7e-20, summed exactly in rationals (compared without
    pytest.approx's default absolute slack of 1e-12, which would pass any p-value that small). Deterministic."""
    x = np.repeat([0.0, 1.0, 2.0], [200, 800, 400])
    r = dpaudit.audit_sampler(lambda n, rng: x, stats.binom(2, 0.5), samples=1_400, seed=0)
    (slope,) = [t for t in r.parameters["tests"] if t["test"] == "log-ratio slope"]
    assert slope == {"test": "log-ratio slope",
                     "p_value": pytest.approx(4 * _binomial_upper_tail(800, 1000, Fraction(2, 3)), rel=1e-9, abs=0),
                     "pair": [0, 1], "counts": [200, 800], "expected_share": pytest.approx(2 / 3, rel=1e-12)}


def test_a_p_value_equal_to_the_level_does_not_refute():
    """Refuted means the smallest p-value is strictly below alpha / (number of tests). Twenty outputs evenly
    spread over [0.2, 2.2] against Exp(1) get two tests (Kolmogorov-Smirnov, mean; the law is not
    symmetric); with alpha set to exactly twice the smallest p-value, the level equals it (halving is exact
    in binary): not refuted; with alpha one float larger: refuted. Deterministic."""
    x = np.linspace(0.2, 2.2, 20)
    first = dpaudit.audit_sampler(lambda n, rng: x, stats.expon(), samples=20, seed=0, alpha=0.5)
    assert len(first.parameters["tests"]) == 2
    alpha = 2 * first.witness["p_value"]
    at = dpaudit.audit_sampler(lambda n, rng: x, stats.expon(), samples=20, seed=0, alpha=alpha)
    assert at.witness["level"] == at.witness["p_value"] and at.verdict == "not-refuted"
    above = dpaudit.audit_sampler(lambda n, rng: x, stats.expon(), samples=20, seed=0,
                                  alpha=float(np.nextafter(alpha, 1.0)))
    assert above.verdict == "refuted"


def test_the_same_seed_draws_the_same_samples():
    """The sampler's generator comes from the audit's seed: two audits of a Poisson(3) sampler at seed 7
    record the same tests, and their samples are those of numpy's generator on the seed's SeedSequence."""
    law = stats.poisson(3)
    drawn = []

    def sampler(n, rng):
        drawn.append(law.rvs(size=n, random_state=rng))
        return drawn[-1]

    first = dpaudit.audit_sampler(sampler, law, samples=2_000, seed=7)
    second = dpaudit.audit_sampler(sampler, law, samples=2_000, seed=7)
    assert first.parameters["tests"] == second.parameters["tests"]
    assert np.array_equal(drawn[0], drawn[1])
    expected = law.rvs(size=2_000, random_state=np.random.default_rng(np.random.SeedSequence(7)))
    assert np.array_equal(drawn[0], expected)


def test_bad_sampler_outputs_are_refused_with_these_messages():
    """The exact refusals: a NaN or infinite output, and a non-integer output for an integer law."""
    law = stats.binom(10, 0.5)
    with pytest.raises(ValueError, match=r"^the sampler returned NaN or infinite values$"):
        dpaudit.audit_sampler(lambda n, rng: np.full(n, np.inf), law, samples=100, seed=0)
    with pytest.raises(ValueError, match=r"^the reference law is integer-valued but the sampler returned "
                                         r"non-integers$"):
        dpaudit.audit_sampler(lambda n, rng: np.full(n, 2.5), law, samples=100, seed=0)


def test_the_conformance_auditor_says_why_it_cannot_audit():
    """It audits Conforms claims about a subject with a reference law; the reasons it gives otherwise,
    verbatim, also as the UnsupportedAudit its audit raises."""
    from dpaudit.auditors import ConformanceAuditor
    from dpaudit.auditors.base import TailSubject
    from dpaudit.core.claims import Conforms
    from dpaudit.core.errors import UnsupportedAudit
    from dpaudit.core.laws import as_law

    auditor = ConformanceAuditor()
    law = as_law(stats.binom(10, 0.5))
    with_law = TailSubject(law, law.sample, "binomial")
    wrong_claim = auditor.supports(with_law, dpaudit.PureDP(1.0))
    assert not wrong_claim
    assert wrong_claim.reason == "the conformance auditor tests Conforms claims; got a pure-dp claim"
    no_law = auditor.supports(TailSubject(None, law.sample, "a sampler"), Conforms("Binomial(10, 1/2)"))
    assert not no_law and no_law.reason == "conformance needs a reference law with cdf, sf, mean and var"
    with pytest.raises(UnsupportedAudit, match=r"^conformance needs a reference law with cdf, sf, mean and var$"):
        auditor.audit(TailSubject(None, law.sample, "a sampler"), Conforms("Binomial(10, 1/2)"), samples=100,
                      confidence=0.9, seed=np.random.SeedSequence(0))
    assert auditor.supports(with_law, Conforms("Binomial(10, 1/2)")).decisive


def test_the_auditor_spends_one_minus_its_confidence_unless_given_alpha():
    """ConformanceAuditor.audit's false-failure rate is alpha if given (used as is), else 1 - confidence: on
    the four tests of the three-point audit above, each test's level is that rate / 4 and the record's
    confidence 1 - that rate."""
    from dpaudit.auditors import ConformanceAuditor
    from dpaudit.auditors.base import TailSubject
    from dpaudit.core.claims import Conforms
    from dpaudit.core.laws import as_law

    x = np.repeat([0.0, 1.0, 2.0], [20, 30, 30])
    subject = TailSubject(as_law(stats.binom(2, 0.5)), lambda n, rng: x, "three points")
    claim = Conforms("Binomial(2, 1/2)")
    seed = np.random.SeedSequence(0)
    default = ConformanceAuditor().audit(subject, claim, samples=80, confidence=0.99, seed=seed)
    assert default.confidence == pytest.approx(0.99, rel=1e-12)
    assert default.witness["level"] == pytest.approx(0.01 / 4, rel=1e-12)
    given = ConformanceAuditor().audit(subject, claim, samples=80, confidence=0.9, seed=seed, alpha=0.2)
    assert given.confidence == 0.8 and given.witness["level"] == 0.05


# -- which laws count as symmetric -------------------------------------------------------------------------

def _perturbed_binomial(shift: dict[int, float]):
    """Binomial(20, 1/2) (mean 10, sd sqrt 5), its upper side reshaped so that T(d) = P[X > 10 + d] - P[X < 10 - d]
    becomes ``shift[d]`` (0 elsewhere): P[X = 10 + j] changes by T(j - 1) - T(j) and P[X = 10] makes up the mass.
    The mean stays 10 when the shifts sum to 0 (the mean's change is sum_j j (T(j - 1) - T(j)) = sum_d T(d)).
    With dyadic shifts every sum below is exact in floating point."""
    from dpaudit.core.laws import Law

    pmf = np.array([math.comb(20, k) / 2**20 for k in range(21)])
    for j in range(1, 11):
        pmf[10 + j] += shift.get(j - 1, 0.0) - shift.get(j, 0.0)
    pmf[10] -= shift.get(0, 0.0)
    assert (pmf >= 0).all() and sum(shift.values()) == 0
    lower = np.concatenate([[0.0], np.cumsum(pmf)])  # lower[i] = P[X <= i - 1]
    upper = np.concatenate([np.cumsum(pmf[::-1])[::-1], [0.0]])  # upper[i] = P[X >= i]

    def index(x):
        return np.clip(np.floor(np.asarray(x, dtype=float)), -1, 20).astype(np.int64) + 1

    values = np.arange(21)
    var = float(((values - 10.0) ** 2) @ pmf)
    return Law("perturbed Binomial(20, 1/2)", True, 10.0, var, (0.0, 20.0), lambda x: lower[index(x)],
               lambda x: upper[index(x)], lambda n, rng: rng.choice(values, n, p=pmf),
               logpmf=lambda k: np.log(pmf[np.clip(np.asarray(k, dtype=np.int64), 0, 20)]))


def _test_names(law):
    x = np.repeat(np.arange(6.0, 15.0), 20)
    return [t["test"] for t in dpaudit.audit_sampler(lambda n, rng: x, law, samples=x.size, seed=0).parameters["tests"]]


@pytest.mark.parametrize("checked, unchecked", [(1, 4), (2, 6), (3, 4), (5, 4), (7, 6)])
def test_a_law_lopsided_at_any_checked_distance_is_not_symmetric(checked, unchecked):
    """Symmetry is read from the cdf at d = 0, 1/4, 1/2, 1, 2 and 3 standard deviations, rounded up on a lattice:
    for Binomial(20, 1/2) (sd sqrt 5), d = 0, 1, 2, 3, 5 and 7. The law reshaped so that its tails differ by
    2^-13 at one of those (and the other way at a distance not checked, 4 or 6, keeping the mean) is not
    symmetric: no symmetry test; the binomial itself has one. Deterministic."""
    eps = 2.0**-13
    assert "symmetry" in _test_names(_perturbed_binomial({}))
    assert "symmetry" not in _test_names(_perturbed_binomial({checked: eps, unchecked: -eps}))


def test_a_tail_asymmetry_of_one_part_in_a_million_is_seen():
    """The symmetry test is exact only for a law with P[X > m] = P[X < m]; the detector compares the tails to a
    relative 1e-9 (float noise) and an absolute 1e-15. Binomial(20, 1/2) with 2^-33 (1.2e-10) moved so that
    P[X > m] falls short of P[X < m] by it and P[X > m + 7] exceeds P[X < m - 7] (2.0e-4) by it, half a
    millionth of that tail: not symmetric (numpy's default tolerances, relative 1e-5 or absolute 1e-8, would
    pass it as symmetric). Deterministic."""
    eps = 2.0**-33
    assert "symmetry" not in _test_names(_perturbed_binomial({0: -eps, 7: eps}))


def test_a_reference_whose_cells_drift_from_summing_to_one_is_renormalised_for_the_g_test():
    """Binomial(10^7, 1/2)'s cells, from scipy's pmf and tails, sum to 1 only to about 1e-8 (1.1e-8 with the
    scipy of this writing), more than the 1e-8 relative agreement of observed and expected totals that
    scipy's power_divergence demands. The auditor renormalises the cells: its G statistic is 2 sum O ln(O / E)
    with E = n p / sum p, written out here over the same cells. Seeded; no chance failure (a computation)."""
    from dpaudit.auditors.conformance import _cells, _lattice_tests
    from dpaudit.core.laws import as_law

    law = as_law(stats.binom(10**7, 0.5))
    x = law.sample(20_000, np.random.default_rng(1)).astype(float)
    g_test = _lattice_tests(law, x)[0]
    _, observed, p = _cells(law, x)
    expected = 20_000 * p / p.sum()
    seen = observed > 0
    g = 2 * float(np.sum(observed[seen] * np.log(observed[seen] / expected[seen])))
    assert g_test["test"] == "G-test" and g_test["statistic"] == pytest.approx(g, rel=1e-9)


# -- the G-test's bins, recomputed by hand on small laws ------------------------------------------------------

def _sixteenths(support=(0.0, 15.0), pmf=True):
    """Uniform on 0..15 (P = 1/16 each: every cumulative count below is exact in binary), with the declared
    ``support``. Its logpmf is a table defined on the declared support only (it refuses other integers, -inf off
    0..15 within it), or it has none (``pmf=False``: the cells then come from the cdf)."""
    from dpaudit.core.laws import Law

    def cdf(x):
        return np.clip(np.floor(np.asarray(x)) + 1, 0, 16) / 16

    def logpmf(k):
        k = np.asarray(k)
        if (k < support[0]).any() or (k > support[1]).any():
            raise ValueError(f"the law was asked about {k}, outside its support {support}")
        with np.errstate(divide="ignore"):
            return np.log(np.where((k >= 0) & (k <= 15), 1 / 16, 0.0))

    return Law("uniform on 0..15", True, 7.5, 255 / 12, support, cdf, lambda x: 1 - cdf(x),
               lambda n, rng: rng.integers(0, 16, n).astype(float), logpmf=logpmf if pmf else None)


@pytest.mark.parametrize("pmf", [True, False], ids=["from the logpmf", "from the cdf"])
def test_bins_are_closed_as_soon_as_they_expect_ten_outputs_and_a_last_bin_of_exactly_ten_stands(pmf):
    """The pooling rule at its threshold. Uniform on 0..15, 160 outputs (80 at 2, 80 at 13): the listed cells are
    1..14 (one beyond the outputs each side), the mass below them (P{0}) and above them (P{15}) is an extended
    cell each, and every extended cell expects exactly 160 / 16 = 10 outputs: each is a bin of its own, the first
    (10, not more) and the last (exactly 10 is not short) included: 16 bins "<= 0", "1", ..., "14", ">= 15".
    At 32 outputs (16 at 0, 16 at 15) the cells 0..15 expect 2 each: bins of five cells reach 10 (0..4, 5..9),
    then 10..14 with the two outputs the law puts at 15 would close a third, leaving nothing after it; it
    stands: "<= 4", "5..9", ">= 10" expecting 10, 10 and 12. At 20 outputs (10 at 0, 10 at 15), 1.25 per cell:
    cells 0..7 reach 10, the rest forms a bin expecting 10: "<= 7", ">= 8". Every probability a multiple of
    1/16, compared exactly; the same from the law's logpmf and, for a law without one, its cdf. Deterministic."""
    from dpaudit.auditors.conformance import _cells

    law = _sixteenths(pmf=pmf)
    labels, observed, p = _cells(law, np.repeat([2.0, 13.0], 80))
    assert labels.tolist() == ["<= 0"] + [str(v) for v in range(1, 15)] + [">= 15"]
    assert observed.tolist() == [0, 0, 80] + [0] * 10 + [80, 0, 0]
    assert p.tolist() == [1 / 16] * 16
    labels, observed, p = _cells(law, np.repeat([0.0, 15.0], 16))
    assert labels.tolist() == ["<= 4", "5..9", ">= 10"]
    assert observed.tolist() == [16, 0, 16] and p.tolist() == [5 / 16, 5 / 16, 6 / 16]
    labels, observed, p = _cells(law, np.repeat([0.0, 15.0], 10))
    assert labels.tolist() == ["<= 7", ">= 8"]
    assert observed.tolist() == [10, 10] and p.tolist() == [0.5, 0.5]


@pytest.mark.parametrize("support", [(0.0, 15.0), (-math.inf, math.inf)], ids=["declared", "unknown"])
def test_the_mass_beyond_the_outputs_is_one_bin_on_each_side(support):
    """Uniform on 0..15, 160 outputs (80 at 6, 80 at 7), none of the law's other values: the cells listed are
    5..8 (one beyond the outputs each side), each its own bin expecting 10, and the law's mass below 5 (5/16,
    50 expected, none seen) and above 8 (7/16, 70 expected) forms one bin each, "<= 4" and ">= 9", whether the
    law declares its support or not. Exact (multiples of 1/16). Deterministic."""
    from dpaudit.auditors.conformance import _cells

    labels, observed, p = _cells(_sixteenths(support), np.repeat([6.0, 7.0], 80))
    assert labels.tolist() == ["<= 4", "5", "6", "7", "8", ">= 9"]
    assert observed.tolist() == [0, 0, 80, 80, 0, 0]
    assert p.tolist() == [5 / 16, 1 / 16, 1 / 16, 1 / 16, 1 / 16, 7 / 16]


@pytest.mark.parametrize("support", [(0.0, 15.0), (0.0, math.inf), (-math.inf, 15.0)])
def test_a_law_is_asked_for_probabilities_only_on_its_declared_support(support):
    """A law given as a table may be defined on its support only: the cells are listed one beyond the outputs
    but never beyond a declared support bound. Uniform on 0..15 with outputs at both ends (80 at 0, 80 at 15),
    its logpmf refusing integers outside the declared support: 16 bins of one cell each, the first and the last
    holding the outputs. Deterministic."""
    from dpaudit.auditors.conformance import _cells

    labels, observed, p = _cells(_sixteenths(support), np.repeat([0.0, 15.0], 80))
    assert labels.tolist() == ["<= 0"] + [str(v) for v in range(1, 15)] + [">= 15"]
    assert observed.tolist() == [80] + [0] * 14 + [80]
    assert p.tolist() == [1 / 16] * 16


def test_far_tail_bins_take_their_probabilities_from_the_pmf_not_from_cdf_differences():
    """Geometric law P{k} = 0.7 * 0.3^k (k >= 0) with its closed-form cdf 1 - 0.3^(k + 1), which in floating point
    keeps 0.3^(k + 1) only to an absolute 1.1e-16: at 2 * 10^6 outputs the last bin (0.3^10 = 5.9e-6) computed
    from cdf differences is off by about 3e-12 of itself. From the logpmf each bin's probability is the law's
    mass on the bin's label to 1e-13 relative: 0.3^a - 0.3^(b + 1) on a..b and 0.3^a on ">= a", summed exactly
    in rationals. Deterministic."""
    from dpaudit.auditors.conformance import _cells
    from dpaudit.core.laws import Law

    def cdf(x):
        x = np.floor(np.asarray(x, dtype=float))
        return np.where(x >= 0, 1 - 0.3 ** (x + 1), 0.0)

    def sf(x):
        x = np.floor(np.asarray(x, dtype=float))
        return np.where(x >= 0, 0.3 ** (x + 1), 1.0)

    law = Law("geometric(0.7)", True, 3 / 7, 30 / 49, (0.0, math.inf), cdf, sf, None,
              logpmf=lambda k: math.log(0.7) + np.asarray(k) * math.log(0.3))
    n = 2 * 10**6
    labels, observed, p = _cells(law, np.concatenate([np.zeros(n - 30), np.arange(1.0, 31.0)]))
    assert labels.tolist() == ["<= 0"] + [str(v) for v in range(1, 10)] + [">= 10"]
    assert observed.tolist() == [n - 30] + [1] * 9 + [21]
    r = Fraction(3, 10)
    mass = [1 - r] + [r**a - r ** (a + 1) for a in range(1, 10)] + [r**10]
    assert p.tolist() == [pytest.approx(float(m), rel=1e-13, abs=0) for m in mass]


@pytest.mark.parametrize("broken", ["logpmf", "cdf", "sf"])
def test_a_reference_law_giving_nan_probabilities_is_a_clear_error_not_an_endless_loop(broken):
    """Uniform on 0..15 whose logpmf, cdf or sf maps the values 3 and above to NaN: the G-test's bins cannot be
    formed, and the audit says so naming the law, within seconds. Before the check, the pooling loop searched a
    cumulative count that stopped growing at the NaN and never ended (run here in a thread with a time limit, so
    that a regression fails instead of hanging). Deterministic."""
    import dataclasses
    import threading

    from dpaudit.auditors.conformance import _cells

    law = _sixteenths(pmf=broken == "logpmf")
    spoil = {"logpmf": law.logpmf, "cdf": law.cdf, "sf": law.sf}[broken]

    def spoiled(x):
        x = np.asarray(x, dtype=float)
        return np.where(x >= 3, np.nan, spoil(x))

    law = dataclasses.replace(law, **{broken: spoiled})
    outcome = []

    def run():
        try:
            _cells(law, np.repeat([0.0, 15.0], 80))
        except ValueError as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "the bins' pooling did not end"
    assert outcome and "uniform on 0..15" in outcome[0] and "NaN or infinite" in outcome[0]


def test_every_two_sided_binomial_p_value_is_capped_at_one():
    """Twice the smaller binomial tail, capped at 1: 1 of Binomial(2, 1/2) has both tails 3/4 (doubled 1.5,
    capped to 1), 0 of it the lower tail 1/4 (0.5); 5 of Binomial(10, 1/2), both tails 638/1024, gives 1."""
    from dpaudit.auditors.conformance import _binomial_two_sided

    assert _binomial_two_sided(np.array([1, 0, 5]), np.array([2, 2, 10]), np.array([0.5, 0.5, 0.5])).tolist() == [
        1.0, 0.5, 1.0]


def test_counts_exactly_as_expected_report_p_value_one_for_the_first_cell_and_pair():
    """2,000 outputs 500 x 0, 1,000 x 1, 500 x 2 against Binomial(2, 1/2): every cell holds exactly its expected
    count, so each cell's two-sided p-value is 1 and Bonferroni's 3 x 1 is capped at 1, reported for the first
    cell (no cell stands out; the uncapped doubled tails, 1.021 for the first and 1.018 for the middle cell,
    must not decide); both pairs (1,500 outputs each) hold exactly their expected share, 2/3 and 1/3: each
    pair's p-value 1, Bonferroni's 2 x 1 capped at 1, reported for the first pair. Deterministic."""
    x = np.repeat([0.0, 1.0, 2.0], [500, 1000, 500])
    r = dpaudit.audit_sampler(lambda n, rng: x, stats.binom(2, 0.5), samples=2_000, seed=0)
    tests = {t["test"]: t for t in r.parameters["tests"]}
    assert tests["cell residuals"] == {"test": "cell residuals", "p_value": 1.0, "cell": "<= 0", "observed": 500,
                                       "expected": pytest.approx(500.0, rel=1e-12)}
    assert tests["log-ratio slope"] == {"test": "log-ratio slope", "p_value": 1.0, "pair": [0, 1],
                                        "counts": [500, 1000], "expected_share": pytest.approx(2 / 3, rel=1e-12)}
    assert r.verdict == "not-refuted"


def test_a_law_given_as_a_table_is_asked_about_integer_arrays_even_for_float_outputs():
    """A lattice law may be a table indexed by the outcome (here Binomial(2, 1/2): logpmf(k) = log([1/4, 1/2,
    1/4])[k], which numpy refuses to index with floats): the auditor asks it about integer arrays only, also
    for the slope test's pairs, whether the sampler returns floats (as here) or integers. 2,000 outputs
    500 x 0, 1,000 x 1, 500 x 2, each cell exactly as expected: the pair (0, 1) has 1,500 outputs and the
    share 2/3 of them on 1, its p-value 1. Deterministic."""
    from dpaudit.core.laws import Law

    table = np.log([0.25, 0.5, 0.25])
    cumulative = np.array([0.0, 0.25, 0.75, 1.0])

    def cdf(x):
        return cumulative[np.clip(np.floor(np.asarray(x, dtype=float)) + 1, 0, 3).astype(np.int64)]

    def logpmf(k):
        return table[k]  # IndexError for a float array

    law = Law("Binomial(2, 1/2) as a table", True, 1.0, 0.5, (0.0, 2.0), cdf, lambda x: 1 - cdf(x), None,
              logpmf=logpmf)
    for outputs in (np.repeat([0.0, 1.0, 2.0], [500, 1000, 500]), np.repeat([0, 1, 2], [500, 1000, 500])):
        r = dpaudit.audit_sampler(lambda n, rng, x=outputs: x, law, samples=2_000, seed=0)
        tests = {t["test"]: t for t in r.parameters["tests"]}
        assert tests["log-ratio slope"] == {"test": "log-ratio slope", "p_value": 1.0, "pair": [0, 1],
                                            "counts": [500, 1000], "expected_share": pytest.approx(2 / 3, rel=1e-12)}
        assert r.verdict == "not-refuted"


def test_the_stated_power_is_the_mean_tests_rate_at_the_stated_shift():
    """A correct normal sampler states the mean shift its audit refutes with probability 0.9 (2,000 samples, alpha
    1e-3); that shift planted in the sampler, over 400 seeded audits: the mean's z-test alone (exact for normal
    samples) refutes in 366 (Binomial(400, 0.9) keeps within [336, 380] but with probability 2e-4, the test's
    false-failure rate), and the audit as a whole at least as often. Stating 0.9 of the shift gave 332, 1.1 of it
    fails too; a one-sided critical value (5% smaller a shift) is within what 400 audits resolve."""
    law, n, alpha, m = stats.norm(1.0, 2.0), 2000, 1e-3, 400
    r = dpaudit.audit_sampler(from_law(law), law, samples=n, seed=0, alpha=alpha)
    assert r.verdict == "not-refuted" and r.power["quantity"] == "mean shift (standard deviations)"
    assert r.power["probability"] == 0.9 and "z-test alone" in r.power["description"]
    shift = r.power["value"] * law.std()
    mean_refutes = refuted = 0
    for seed in range(m):
        a = dpaudit.audit_sampler(lambda k, rng: law.rvs(size=k, random_state=rng) + shift, law, samples=n,
                                  seed=seed, alpha=alpha)
        (mean,) = [t for t in a.parameters["tests"] if t["test"] == "mean"]
        mean_refutes += mean["p_value"] < a.witness["level"]
        refuted += a.verdict == "refuted"
    low, high = stats.binom.ppf(1e-4, m, 0.9), stats.binom.isf(1e-4, m, 0.9)
    assert low <= mean_refutes <= high and refuted >= mean_refutes


def test_a_one_point_law_states_no_power_and_a_refuted_audit_none():
    from dpaudit.mechanisms import noise
    always_3 = noise.FiniteIntegerLaw(3, [1.0], name="always 3")
    assert dpaudit.audit_sampler(lambda n, rng: np.full(n, 3), always_3, samples=100, seed=0).power is None
    wrong = dpaudit.audit_sampler(from_law(stats.norm(0.5, 2.0)), stats.norm(1.0, 2.0), samples=20_000, seed=0)
    assert wrong.verdict == "refuted" and wrong.power is None
