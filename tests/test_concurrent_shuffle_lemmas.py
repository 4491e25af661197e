"""concurrent-shuffle's likelihood-set lemmas (Lemmas B.2 and B.3, dpaudit.audits.concurrent_shuffle.likelihood_sets):
the mechanisms' laws against independent computations, the sets' masses in closed form, the steps' power (a
wrong constant or a mechanism outside the hypothesis is caught), and every entry's verdict. All exact: no
randomness, so no false-failure rate."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from regret_suites import as_expected, audit_in_a_run

from dpaudit import LowerBound, ProofStep
from dpaudit.auditors.lower_bound import LowerBoundAuditor, LowerBoundSubject, evaluate_step
from dpaudit.audits.concurrent_shuffle import likelihood_sets as ls
from dpaudit.audits.concurrent_shuffle import suite
from dpaudit.core.distributions import FiniteDistribution
from dpaudit.core.errors import UnsupportedAudit
from dpaudit.exact.finite import hockey_stick

IDS = [e.id for e in suite.entries if "/lemB.2@" in e.id or "/lemB.3@" in e.id]


@pytest.mark.parametrize(("eps", "delta"), ls.EDGE_POINTS)
def test_edge_mechanism_sits_at_the_edge(eps, delta):
    laws = ls.edge_laws(eps, delta)
    assert np.allclose(laws.sum(axis=1), 1) and np.all(laws >= 0)
    p, q = (FiniteDistribution.from_probs(np.arange(3), row) for row in laws)
    for a, b in ((p, q), (q, p)):  # the rigorous enclosure of delta_M(eps), both directions
        enclosure = hockey_stick(a, b, eps).delta
        assert float(enclosure.lo) <= delta * (1 + 1e-12) and float(enclosure.hi) >= delta * (1 - 1e-12)
    assert laws[0, 0] / laws[1, 0] > math.exp(2 * eps) > laws[0, 0] / laws[1, 0] * (1 - 2e-6)  # u just inside Bad2
    m = ls.bad_masses(laws, eps)  # closed forms (module docstring)
    top = delta / (1 - math.exp(-eps) * (1 - ls.ETA))
    assert m["bad2"] == pytest.approx([top, top], rel=1e-12)
    assert m["bad1"] == pytest.approx([top * math.exp(-2 * eps) * (1 - ls.ETA)] * 2, rel=1e-12)
    assert m["good"] == pytest.approx(1 - m["bad1"] - m["bad2"], abs=1e-15)
    # the proof's Bad2 inequality is tight for this family: within 2e-6 relative at eta = 1e-6
    assert m["bad2"][0] == pytest.approx(delta * math.exp(eps) / (math.exp(eps) - 1), rel=ls.ETA / (1 - math.exp(-eps)))


def test_averaged_laws_by_enumeration():
    """P_x for the shuffled-RR count, by brute force over the others' bits and every report vector (n = 4)."""
    n, eps0 = 4, 1.3
    a = math.exp(eps0) / (1 + math.exp(eps0))
    expected = np.zeros((2, n + 1))
    for row, x in enumerate((1, 0)):
        for others in itertools.product((0, 1), repeat=n - 1):
            bits = (x, *others)
            for reports in itertools.product((0, 1), repeat=n):
                pr = np.prod([a if r == b else 1 - a for r, b in zip(reports, bits)])
                expected[row, sum(reports)] += pr / 2 ** (n - 1)
    assert ls.rr_averaged_laws(n, eps0) == pytest.approx(expected, abs=1e-15)
    counts = ls.rr_count_laws(n, eps0)
    j_ones = np.zeros(n + 1)
    for reports in itertools.product((0, 1), repeat=n):  # one 1 among the n bits
        j_ones[sum(reports)] += np.prod([a if r == b else 1 - a for r, b in zip(reports, (1, 0, 0, 0))])
    assert counts[1] == pytest.approx(j_ones, abs=1e-15)


def test_sets_by_their_thresholds():
    """Bad1/Bad2 at log-ratios -2.5, -1.5, -0.5, 0, 1.5, 2.5 eps (and an outcome impossible under x2): only the
    outer ones are bad, with each side's mass taken on its own bad sets."""
    eps = 0.4
    r = np.array([-2.5, -1.5, -0.5, 0.0, 1.5, 2.5]) * eps
    q = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.0])
    p = np.append(q[:-1] * np.exp(r), 0.05)
    m = ls.bad_masses(np.array([p, q]), eps)
    assert m["bad1"] == pytest.approx([p[0], 0.1]) and m["bad2"] == pytest.approx([p[5] + 0.05, 0.1])
    assert m["good"] == pytest.approx([p[1:5].sum(), 0.4]) and m["good_ratio"] == pytest.approx(1.5 * eps)


def test_round_up():
    assert ls.round_up(0.21576) == 0.22 and ls.round_up(0.22) == pytest.approx(0.22) and ls.round_up(1.01e-3) == 1.1e-3


def test_shuffled_rr_points_meet_the_hypothesis_with_bad_sets():
    for eps in (0.5, 1.25):
        p = ls.shuffled_rr_point(32, 3.0, eps)
        m = ls.bad_masses(ls.laws_of(p), eps)
        assert np.all(m["bad1"] > 0) and np.all(m["bad2"] > 0)  # not vacuous: both bad sets are non-empty
        assert evaluate_step(ls.DP_CONDITION, p)["status"] == "holds"


def test_a_wrong_constant_is_caught():
    """Power: the edge family sits close enough to the printed constants that a smaller one is caught -- the mass
    step with 2 delta/min(eps,1) replaced by delta fails, and the Bad2 step with its bound cut by 0.1 % fails."""
    p = ls.edge_point(0.5, 1e-3)
    wrong = ProofStep("mass", "", lambda q: (ls.bad_masses(ls.laws_of(q), q["eps"])["good"], 1 - q["delta"]), ">=")
    assert evaluate_step(wrong, p)["status"] == "fails"
    cut = ProofStep("bad2", "", lambda q: (ls.bad_masses(ls.laws_of(q), q["eps"])["bad2"],
                                           q["delta"] * math.exp(q["eps"]) / (math.exp(q["eps"]) - 1) * 0.999), "<")
    assert evaluate_step(cut, p)["status"] == "fails"
    for step in ls.STEPS.values():
        assert evaluate_step(step, p)["status"] == "holds"


def test_a_mechanism_outside_the_hypothesis_is_an_error():
    """The (eps, delta)-DP condition: the edge laws at delta audited as (eps, delta/2)-DP are outside it."""
    p = {**ls.edge_point(0.5, 1e-3), "delta": 5e-4}
    laws = ls.edge_laws(0.5, 1e-3)
    mechanism = ProofStep("dp", "", lambda q: (ls.worst_delta(laws, q["eps"], [(0, 1)]), q["delta"]), "<=")
    assert evaluate_step(mechanism, p)["status"] == "fails"
    rr = {**ls.shuffled_rr_point(32, 3.0, 0.5), "delta": 0.2}
    assert evaluate_step(ls.DP_CONDITION, rr)["status"] == "fails"
    claim = LowerBound(ls.LEMMA_B3, rr, algorithm_class=ls.CLASS, steps=tuple(ls.STEPS.values()),
                       conditions=(ls.DP_CONDITION,))
    with pytest.raises(UnsupportedAudit):
        LowerBoundAuditor().audit(LowerBoundSubject(()), claim)


def test_ids():
    assert len(IDS) == 9 and len(set(IDS)) == 9
    assert {i.split("@")[0] for i in IDS} == {"concurrent-shuffle/lemB.2", "concurrent-shuffle/lemB.3"}


@pytest.mark.parametrize("claim_id", IDS)
def test_entries_verify(claim_id, tmp_path_factory):
    entry = next(e for e in suite.entries if e.id == claim_id)
    finding = audit_in_a_run(entry, suite)
    assert finding.verdict == "verified" and as_expected(entry, finding.verdict), finding.notes
