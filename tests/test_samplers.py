"""Unseedable and scalar samplers: dpaudit.unseeded, dpaudit.scalar, categorical outputs, .estimate."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import dpaudit
from dpaudit.core.samplers import UNSEEDED_NOTE
from dpaudit.core.subjects import Mechanism
from dpaudit.mechanisms import LaplaceMechanism

LN3 = math.log(3)  # randomized response answering truthfully with probability 3/4


def library_rr(data: int) -> str:
    """A library's randomized response: one answer per call, from its own (unseedable) randomness."""
    truth = 0.75 if data else 0.25
    return "yes" if random.SystemRandom().random() < truth else "no"


def seeded_rr(data: int, rng: np.random.Generator) -> str:
    return "yes" if rng.random() < (0.75 if data else 0.25) else "no"


def own_randomness(data, size, rng):
    return data + np.random.default_rng().laplace(size=size)  # ignores rng: not reproducible


def test_an_undeclared_nondeterministic_mechanism_is_an_error_pointing_at_unseeded():
    with pytest.raises(dpaudit.MechanismError, match=r"dpaudit\.unseeded"):
        dpaudit.audit_privacy(own_randomness, dpaudit.PureDP(1.0), pairs=[(0, 1)], samples=1000, seed=0)


def test_an_unseeded_mechanism_is_audited_and_its_record_says_so():
    res = dpaudit.audit_privacy(dpaudit.unseeded(own_randomness), dpaudit.PureDP(0.5), pairs=[(0, 1)],
                                samples=100_000, seed=0)
    # Laplace(1) noise on a sensitivity-1 query is 1-DP: PureDP(0.5) is refuted (the certified lower bound
    # exceeds 0.5 by far at 10^5 samples; a false refutation has probability at most 0.01 by construction)
    assert res.verdict == "refuted"
    assert UNSEEDED_NOTE in res.notes
    assert res.to_dict()["notes"][-1] == UNSEEDED_NOTE


def test_unseeded_still_checks_outputs():
    with pytest.raises(dpaudit.MechanismError, match="non-finite"):
        dpaudit.audit_privacy(dpaudit.unseeded(lambda d, n, rng: np.full(n, np.nan)), dpaudit.PureDP(1.0),
                              pairs=[(0, 1)], samples=100, seed=0)
    with pytest.raises(dpaudit.MechanismError, match="first axis"):
        dpaudit.audit_privacy(dpaudit.unseeded(lambda d, n, rng: np.zeros(n + 1)), dpaudit.PureDP(1.0),
                              pairs=[(0, 1)], samples=100, seed=0)


def test_unseeded_keeps_the_law_so_the_exact_audit_is_unaffected():
    wrapped = dpaudit.unseeded(LaplaceMechanism(1.0))
    assert wrapped.name == LaplaceMechanism(1.0).name and dpaudit.unseeded(wrapped) is wrapped
    res = dpaudit.audit_privacy(wrapped, dpaudit.PureDP(1.0), pairs=[(0, 1)], seed=0)
    assert res.verdict == "verified"
    assert UNSEEDED_NOTE in res.notes  # the samples it would have drawn were not reproducible


@pytest.mark.slow
def test_scalar_outputs_do_not_depend_on_the_number_of_processes():
    def noisy(data, rng):
        return data + rng.laplace()

    one = dpaudit.scalar(noisy, n_jobs=1, chunk=500).sample(2.0, 2_100, np.random.default_rng(7))
    two = dpaudit.scalar(noisy, n_jobs=2, chunk=500).sample(2.0, 2_100, np.random.default_rng(7))
    assert one.shape == (2_100,)
    np.testing.assert_array_equal(one, two)
    other = dpaudit.scalar(noisy, n_jobs=1, chunk=500).sample(2.0, 2_100, np.random.default_rng(8))
    assert not np.array_equal(one, other)
    assert dpaudit.scalar(noisy).reproducible


def test_scalar_rows_and_the_rng_argument():
    pairs = dpaudit.scalar(lambda d, rng: (d, rng.integers(3)), n_jobs=1).sample(1, 10, np.random.default_rng(0))
    assert pairs.shape == (10, 2) and (pairs[:, 0] == 1).all()
    # told apart by the signature, or forced: a one-argument sampler draws its own randomness
    assert not dpaudit.scalar(library_rr).reproducible
    assert dpaudit.scalar(lambda *a: 0.0).takes_rng
    assert not dpaudit.scalar(lambda d, extra=None: 0.0).takes_rng
    assert not dpaudit.scalar(lambda d, rng: 0.0, rng=False).takes_rng


@pytest.mark.parametrize("bad, match", [({"n_jobs": 0}, "n_jobs"), ({"n_jobs": 1.5}, "n_jobs"),
                                        ({"chunk": 0}, "chunk")])
def test_scalar_rejects_bad_arguments(bad, match):
    with pytest.raises(ValueError, match=match):
        dpaudit.scalar(seeded_rr, **bad)
    with pytest.raises(TypeError, match="scalar"):
        dpaudit.scalar(3)


def test_string_outputs_are_audited_as_categories():
    # ln 3 = 1.0986: PureDP(0.9) is refuted (sequentially: the audit stops once its bound passes 0.9), PureDP(1.1)
    # is not (the audit refutes a true claim with probability at most 1 - confidence = 0.01)
    sampler = dpaudit.scalar(seeded_rr, n_jobs=1)
    over = dpaudit.audit_privacy(sampler, dpaudit.PureDP(0.9), pairs=[(0, 1)], samples=100_000, seed=1)
    right = dpaudit.audit_privacy(sampler, dpaudit.PureDP(1.1), pairs=[(0, 1)], samples=100_000, seed=1)
    assert over.verdict == "refuted" and over.epsilon_lower > 0.9 and over.samples < 100_000
    assert right.verdict == "not-refuted" and right.epsilon_lower <= LN3
    assert sorted(right.parameters["categories"]) == ["no", "yes"]
    assert UNSEEDED_NOTE not in right.notes


def test_an_unseedable_library_sampler_audits_through_scalar():
    res = dpaudit.audit_privacy(dpaudit.scalar(library_rr, n_jobs=1), dpaudit.PureDP(0.9), pairs=[(0, 1)],
                                samples=100_000, seed=1)
    assert res.verdict == "refuted" and UNSEEDED_NOTE in res.notes


def test_a_vectorised_sampler_may_return_strings():
    mech = Mechanism(lambda d, n, rng: np.where(rng.random(n) < 0.5 + 0.1 * d, "heads", "tails"))
    a = mech.sample(0, 50, np.random.default_rng(0))
    b = mech.sample(1, 50, np.random.default_rng(1))
    assert a.dtype.kind == "i" and set(np.unique(np.concatenate([a, b]))) <= {0, 1}
    # one code table for both sides: the same string has the same code
    first = mech.sample(0, 1, np.random.default_rng(0))
    expected = "heads" if np.random.default_rng(0).random() < 0.5 else "tails"
    assert mech.categories[first[0]] == expected


def test_estimate_is_the_statistics_point_value():
    res = dpaudit.audit_privacy(LaplaceMechanism(1.0), dpaudit.PureDP(1.0), pairs=[(0, 1)], auditor="statistical",
                                samples=20_000, seed=0)
    assert res.estimate == res.statistic.value and res.estimate is not None
    assert "estimate" not in res.to_dict()  # a view of the statistic, not a second copy in the record


def test_categories_are_coded_in_sorted_order_and_unhashable_outputs_are_an_error():
    mech = Mechanism(lambda d, n, rng: np.array(["b", "c", "a"] * (n // 3) + ["a"] * (n % 3)))
    codes = mech.sample(0, 16, np.random.default_rng(0))
    assert mech.categories == ["a", "b", "c"] and list(codes[:3]) == [1, 2, 0]
    bad = Mechanism(lambda d, n, rng: np.array([[1], {2: 3}] * (n // 2), dtype=object))
    with pytest.raises(dpaudit.MechanismError, match="hashable"):
        bad.sample(0, 16, np.random.default_rng(0))
