"""Sampler conformance: correct samplers pass, miscalibrated ones are caught.

Each audit's false-failure rate is at most 1e-6 (Bonferroni over its tests); the tests below that
expect "not-refuted" on correct samplers therefore fail with probability at most 1e-6 each (100
seeds in the slow test: at most 1e-4). The power tests (scale off by 5%, 1% of one cell's mass
moved to its neighbour, at the standard budget of 2 * 10^6 samples) refute with p-values below
1e-16 at the seeds used; their failure probability at other seeds is far below 1e-6.
"""

from __future__ import annotations

import math

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


# -- the false-failure rate at the exact boundary: samples drawn from exactly the stated law ---------------
# A sampler that draws exactly from its reference law is refuted with probability at most alpha, so over m
# seeded audits the refutations are stochastically below Binomial(m, alpha); each test allows that law's
# 1 - 1e-4 quantile, so it fails a correct auditor with probability below 1e-4 (exact figures beside each).
# A large alpha (0.2) makes the rate measurable in a few hundred audits; every test, cell, pair and atom
# is a comparison that Bonferroni must pay for.

def _half_uniform_half_atoms(atoms: int = 20):
    """Uniform(0, 1) with probability 1/2, else one of ``atoms`` equally likely points in (0, 1)."""
    from dpaudit.laws import Law

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
    from dpaudit.laws import as_law

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
    from dpaudit.laws import as_law

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
    from dpaudit.laws import as_law

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
    from dpaudit.laws import Law

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
    from dpaudit.laws import Law

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
    ks = {"test": "Kolmogorov-Smirnov", "p_value": pytest.approx(2 * 0.02**10, rel=1e-9),
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
    assert atoms == {"test": "atom counts", "p_value": pytest.approx(4 * _binomial_upper_tail(70, 100, 0.2), rel=1e-9),
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
