"""concurrent-shuffle Lemmas B.5 and B.1 on explicit protocols (audits/concurrent_shuffle/side_information.py). Exact
audits and exact enumeration: no false-failure rate to state."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

import dpaudit
from dpaudit.audits.concurrent_shuffle import side_information as si
from dpaudit.core.neighbours import ReplaceOne


def test_lemma_b5_holds_outside_i_and_a_released_bit_is_refuted():
    outside = dpaudit.audit_privacy(si.B5_RELEASE, dpaudit.ApproxDP(si.NODE_EPS, si.NODE_DELTA),
                                    pairs=si.outside_pairs(), neighbours=ReplaceOne(), auditor="exact")
    assert outside.verdict == "verified"
    inside = np.zeros(si.INSIDE + si.RELEASED, dtype=int)
    moved = inside.copy()
    moved[-1] = 1  # a bit of D_I: the release shows it, the loss is infinite
    refuted = dpaudit.audit_privacy(si.B5_RELEASE, dpaudit.ApproxDP(si.NODE_EPS, si.NODE_DELTA),
                                    pairs=[(inside, moved)], neighbours=ReplaceOne(), auditor="exact")
    assert refuted.verdict == "refuted"


def test_the_pairs_change_one_bit_outside_i_from_every_dataset():
    pairs = si.outside_pairs()
    assert len(pairs) == 2 ** 8 * 4 // 2
    for a, b in pairs:
        changed = np.flatnonzero(a != b)
        assert changed.size == 1 and changed[0] < si.INSIDE


def test_the_release_samples_its_law():
    rng = np.random.default_rng(0)
    data = np.array([1, 0, 1, 1, 0, 1, 1, 0])
    out = si.B5_RELEASE.sample(data, 20_000, rng)
    assert np.all(out[:, 1] == 0b0110)  # the released bits, bit j the j-th
    law = si.B5_RELEASE.inner.distribution(data[:4])
    assert abs(out[:, 0].mean() - float(np.sum(law.outcomes * law.probs))) < 0.1


def test_lemma_b1_factorises_exactly_and_fails_for_correlated_inputs():
    assert si.factorisation_gap(si.joint()) == 0
    correlated = {x: Fraction(1, 8) for x in itertools.product((0, 1), repeat=3)}
    correlated[(0, 0, 0)] += Fraction(1, 8)
    correlated[(1, 1, 1)] -= Fraction(1, 8)  # X_1 and X_3 now dependent
    assert si.factorisation_gap(si.joint(prior_table=correlated)) > Fraction(1, 100)

