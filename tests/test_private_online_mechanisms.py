"""private-online's whole-stream mechanisms (M1 lazy Laplace arrays, M2 hybrid counter): parameters
recomputed from the paper's formulas, fast and per-pull paths against the exact laws (conformance
audits, false-failure rate 1e-6 each, ~20 audits: < 3e-5 for the file), and the exact privacy audits
under Definition 1. FTNL's decisions (M3/M4) are tested in test_ftnl.py, DP-SE in test_dp_se.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

import dpaudit
from dpaudit import PureDP
from dpaudit.core.domains import Box, Datasets
from dpaudit.core.neighbours import ReplaceOne
from dpaudit.mechanisms.counters.hybrid_counter import (
    HybridCounter,
    HybridEstimateView,
    HybridReleases,
    two_scale_laplace_sf,
)
from dpaudit.mechanisms.counters.lazy_laplace import LazyLaplaceArrays
from dpaudit.mechanisms.noise import FiniteIntegerLaw, Laplace, LaplaceSum

RNG_DATA = np.random.default_rng(11)


def one_changed(length: int, index: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.zeros(length)
    b = a.copy()
    b[index] = 1.0
    return a, b


# -- parameters, recomputed from the paper's formulas at two points ----------------------------------

@pytest.mark.parametrize("eps, pulls, arrays", [(1.0, 15, 4), (0.5, 12, 3)])
def test_lazy_parameters_follow_eq3(eps, pulls, arrays):
    # array r has size 2^r and is full at pull 2^{r+1} - 1; its mean gets Lap(1/eps) / 2^r
    m = LazyLaplaceArrays(eps, pulls)
    assert m.arrays == arrays == max(r + 1 for r in range(10) if 2 ** (r + 1) - 1 <= pulls)
    assert m.released_at() == [2 ** (r + 1) - 1 for r in range(arrays)]
    assert [float(s) for s in m.scales] == pytest.approx([1 / (eps * 2**r) for r in range(arrays)])
    x = RNG_DATA.uniform(size=pulls)
    assert m.means(x) == pytest.approx([x[2**r - 1: 2 ** (r + 1) - 1].mean() for r in range(arrays)])


@pytest.mark.parametrize("eps, pulls, arrays, filled", [(1.0, 8, 3, [2, 4, 1]), (0.5, 16, 4, [2, 4, 8, 1])])
def test_hybrid_parameters_follow_eqs_32_33(eps, pulls, arrays, filled):
    # Z ~ Lap(1/(0.5 eps)); block r's p-sums ~ Lap(log2(2^r)/(0.5 eps)); array r' read from pull 2^{r'+1}
    c = HybridCounter(eps, pulls)
    assert float(c.array_noise.scale) == pytest.approx(1 / (0.5 * eps))
    assert c.arrays_released == arrays
    assert [tree.T for _, _, tree in c.trees] == filled
    assert [float(tree.noise.scale) for r, _, tree in c.trees] == pytest.approx(
        [math.log2(2**r) / (0.5 * eps) for r, _, _ in c.trees])
    # completed block r costs eps (1 + 1/(2r)): block 1 gives 1.5 eps
    assert c.loss_bound() == pytest.approx(1.5 * eps)
    assert HybridCounter(eps, pulls, "array").loss_bound() == pytest.approx(0.5 * eps)
    assert HybridCounter(eps, pulls, "tree").loss_bound() == pytest.approx(eps)  # (r + 1)/(2r) eps at r = 1


# -- fast and per-pull paths follow the exact laws ------------------------------------------------------

def test_lazy_paths_follow_the_exact_law():
    """Each release r is Laplace(mean_r, 1/(eps 2^r)); 4 (col 2 - mean) + 8 (col 3 - mean) is a sum of
    two independent Lap(1/eps), which a shared draw would break."""
    m = LazyLaplaceArrays(1.0, 15)
    x = RNG_DATA.uniform(size=15)
    means = m.means(x)
    for draw in (m.sample, m.sample_per_pull):
        for r in (0, 3):
            law = Laplace(float(m.scales[r]), loc=float(means[r]))
            res = dpaudit.audit_sampler(lambda size, rng, draw=draw, r=r: draw(x, size, rng)[:, r], law,
                                        samples=100_000, seed=r)
            assert res.verdict == "not-refuted", (draw.__name__, r, res.witness)

        def combined(size, rng, draw=draw):
            return 4 * (draw(x, size, rng)[:, 2] - means[2]) + 8 * (draw(x, size, rng)[:, 3] - means[3])

        res = dpaudit.audit_sampler(combined, LaplaceSum(2, 1.0), samples=100_000, seed=7)
        assert res.verdict == "not-refuted", (draw.__name__, res.witness)


def _hybrid_increments(c: HybridCounter, est: np.ndarray) -> dict[int, np.ndarray]:
    """O mu~_O - (O - 1) mu~_{O-1} at pulls whose increment is one block's p-sums only (n >= 2 in
    block r, and pull 2), and mu~_1."""
    totals = est * np.arange(1, c.pulls + 1)
    out = {1: totals[:, 0]}
    for pull in range(2, c.pulls + 1):
        r = pull.bit_length() - 1
        if pull - 2**r + 1 >= 2 or pull == 2:
            out[pull] = totals[:, pull - 1] - totals[:, pull - 2]
    return out


def test_hybrid_paths_follow_the_exact_law():
    """Inside block r, O mu~_O - (O - 1) mu~_{O-1} = x_O + (new p-sum noise) - (the lsb(n) p-sums it
    replaces): LaplaceSum(1 + lsb(n), 2r/eps) around x_O. A p-sum or array noise redrawn at every
    pull, or a root left out, changes these laws."""
    c = HybridCounter(1.0, 8)
    x = RNG_DATA.uniform(size=8)
    for draw in (c.sample, c.sample_per_pull):
        for pull in _hybrid_increments(c, draw(x, 2, np.random.default_rng(0))):
            if pull == 1:
                law = Laplace(2.0, loc=float(x[0]))
            else:
                r = pull.bit_length() - 1
                n = pull - 2**r + 1
                lsb = (n & -n).bit_length() - 1
                law = LaplaceSum(1 + lsb, 2.0 * r) if pull != 2 else LaplaceSum(1, 2.0)

            def sampler(size, rng, draw=draw, pull=pull):
                return _hybrid_increments(c, draw(x, size, rng))[pull] - (0.0 if pull == 1 else x[pull - 1])

            res = dpaudit.audit_sampler(sampler, law, samples=100_000, seed=pull)
            assert res.verdict == "not-refuted", (draw.__name__, pull, res.witness)


def test_hybrid_fast_path_is_eq34_of_its_releases():
    c = HybridCounter(0.5, 13)
    x = RNG_DATA.uniform(size=13)
    rel = c.sample_releases(x, 3, np.random.default_rng(1))
    est = c.estimates(rel)
    arrays, nodes = rel[:, :3], rel[:, 3:]
    # pull 11: block 3 (pulls 8..15), n = 4: arrays 0..2 and the block's p-sum ending at 4 (after blocks 1, 2:
    # 2 + 4 nodes)
    assert est[:, 10] == pytest.approx((arrays.sum(axis=1) + nodes[:, 6 + 3]) / 11)
    # pull 7 (block 2 full, n = 4): arrays 0, 1 and block 2's root
    assert est[:, 6] == pytest.approx((arrays[:, :2].sum(axis=1) + nodes[:, 2 + 3]) / 7)


def test_estimate_view_follows_its_exact_law():
    view = HybridEstimateView(1.0, 10.0)
    x = np.array([0.2, 0.9, 0.4, 0.7])
    law = view.distribution(x).coordinates
    p_above = float(np.exp(law[3].log_probs[1]))
    res = dpaudit.audit_sampler(lambda size, rng: view.sample(x, size, rng)[:, 3].astype(np.int64),
                                FiniteIntegerLaw(0, [1 - p_above, p_above]), samples=200_000, seed=9)
    assert res.verdict == "not-refuted", res.witness
    res = dpaudit.audit_sampler(lambda size, rng: view.sample(x, size, rng)[:, 2], Laplace(2.0, loc=1.3),
                                samples=100_000,
                                seed=10)
    assert res.verdict == "not-refuted", res.witness


@pytest.mark.parametrize("t", [-3.0, 0.0, 2.5, 10.0, 25.0])
def test_two_scale_laplace_tail_against_a_numerical_convolution(t):
    a, b = 4.0, 2.0

    def integrand(y):
        return stats.laplace.pdf(y, scale=b) * stats.laplace.sf(t - y, scale=a)

    # P[X + Y > t] = E sf_X(t - Y); the kinks at 0 and t split the range, beyond +-200 the mass is < e^-50
    edges = [-200.0, min(0.0, t), max(0.0, t), 200.0]
    numeric = sum(integrate.quad(integrand, lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
                  for lo, hi in itertools.pairwise(edges))
    assert two_scale_laplace_sf(t, a, b) == pytest.approx(numeric, rel=1e-7)


# -- privacy, exactly, under Definition 1 ------------------------------------------------------------------

def test_lazy_arrays_are_eps_dp_and_a_miscalibration_is_caught():
    search = ReplaceOne().over(Datasets(7, Box(0.0, 1.0)))
    pairs = search.pairs(np.random.default_rng(0)) + [one_changed(7, 2)]
    ok = dpaudit.audit_privacy(LazyLaplaceArrays(1.0, 7), PureDP(1.0), pairs=pairs, auditor="exact")
    assert ok.verdict == "verified" and ok.epsilon_lower == pytest.approx(1.0)
    tight = dpaudit.audit_privacy(LazyLaplaceArrays(1.0, 7), PureDP(0.9), pairs=pairs, auditor="exact")
    assert tight.verdict == "refuted"


def test_hybrid_loss_matches_the_per_observation_count():
    """The exact loss of every single observation changed 0 -> 1; the worst equals loss_bound."""
    for part in ("both", "array", "tree"):
        subject = HybridReleases(1.0, 16, part)
        losses = [dpaudit.audit_privacy(subject, PureDP(10.0), pairs=[one_changed(16, i)],
                                        auditor="exact").epsilon_lower for i in range(16)]
        assert max(losses) == pytest.approx(subject.loss_bound())
    # block 2's first leaf (pull 4): 3 p-sums of Lap(4) and array 2's Lap(2): 3/4 + 1/2
    both = HybridReleases(1.0, 16)
    res = dpaudit.audit_privacy(both, PureDP(10.0), pairs=[one_changed(16, 3)], auditor="exact")
    assert res.epsilon_lower == pytest.approx(1.25)


def test_hybrid_estimates_lose_more_than_eps():
    view = HybridEstimateView(1.0, 10.0)
    res = dpaudit.audit_privacy(view, PureDP(1.0), pairs=[one_changed(4, 1)], auditor="exact")
    tail = math.log(two_scale_laplace_sf(9.0, 4.0, 2.0) / two_scale_laplace_sf(10.0, 4.0, 2.0))
    assert res.verdict == "refuted" and res.epsilon_lower == pytest.approx(1.0 + tail) and 0.24 < tail < 0.25


# -- parameters and inputs outside the range are clear errors -------------------------------------------------

@pytest.mark.parametrize("make, message", [
    (lambda: LazyLaplaceArrays(0.0, 3), "epsilon"),
    (lambda: LazyLaplaceArrays(1.0, 0), "pulls"),
    (lambda: LazyLaplaceArrays(1.0, 3).error_law(2), "r must be < 2"),
    (lambda: LazyLaplaceArrays(1.0, 3).sample([0.1, 1.5, 0.0], 2, np.random.default_rng()), r"\[0, 1\]"),
    (lambda: LazyLaplaceArrays(1.0, 3).distribution([0.1, 0.2]), "3 rewards"),
    (lambda: HybridCounter(-1.0, 4), "epsilon"),
    (lambda: HybridCounter(1.0, 4, "both-parts"), "part"),
    (lambda: HybridCounter(1.0, 4, "tree").sample(np.zeros(4), 2, np.random.default_rng()), "both parts"),
    (lambda: HybridCounter(1.0, 4, "tree").sample_per_pull(np.zeros(4), 2, np.random.default_rng()), "part 'both'"),
    (lambda: HybridCounter(1.0, 4).error_laws(5), "pull must be in 1..4"),
    (lambda: two_scale_laplace_sf(1.0, 2.0, 2.0), "scales must differ"),
])
def test_bad_parameters_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()
