"""audit_privacy as a user meets it: dispatch, and clear errors on bad input.

Seeded statistical assertions: "not-refuted" on a correct mechanism fails with probability at most
0.01 over seeds (confidence 0.99); the refutation of delta = 0.01 for Laplace(1) at eps = 0.5
(true delta ~ 0.22) with 10^5 samples fails with probability below 1e-9.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

import dpaudit
from dpaudit import MechanismError, NotNeighbours, PureDP, QueryDistance
from dpaudit.mechanisms import LaplaceMechanism


def test_auto_uses_exact_when_a_distribution_is_exposed():
    r = dpaudit.audit_privacy(LaplaceMechanism(1.0), PureDP(1.0), pairs=[(0, 1)])
    assert r.verdict == "verified" and r.auditor == "exact"
    assert r.subject == "Laplace(eps=1, sensitivity=1)"


def test_auto_falls_back_to_samples_when_exact_cannot_decide():
    class ScipyLaw:
        """Exposes a distribution the exact auditor cannot analyse (a scipy frozen law)."""

        def sample(self, d, size, rng):
            return d + rng.laplace(0, 1.0, size)

        def distribution(self, d):
            return scipy.stats.laplace(d, 1.0)

    r = dpaudit.audit_privacy(ScipyLaw(), dpaudit.ApproxDP(0.5, 0.01), pairs=[(0, 1)], samples=100_000, seed=0)
    assert r.auditor == "black-box"
    assert "could not decide" in r.notes[0]
    assert r.verdict == "refuted"  # Laplace(1) has delta(0.5) ~ 0.22 > 0.01


def test_plain_callable_and_sample_object():
    def mech(data, size, rng):
        return data + rng.laplace(0, 1.0, size)

    class Obj:
        def sample(self, data, size, rng):
            return mech(data, size, rng)

    for m in (mech, Obj()):
        r = dpaudit.audit_privacy(m, PureDP(1.0), pairs=[(0, 1)], samples=50_000, seed=0)
        assert r.verdict == "not-refuted" and r.seed is not None
    assert dpaudit.audit_privacy(mech, PureDP(1.0), pairs=[(0, 1)], samples=50_000, seed=0).subject.endswith("mech")


def test_fresh_entropy_is_recorded_and_replays():
    def mech(data, size, rng):
        return data + rng.laplace(0, 1.0, size)

    r = dpaudit.audit_privacy(mech, PureDP(1.0), pairs=[(0, 1)], samples=20_000)
    seq = np.random.SeedSequence(r.seed["entropy"], spawn_key=r.seed["spawn_key"])
    again = dpaudit.audit_privacy(mech, PureDP(1.0), pairs=[(0, 1)], samples=20_000, seed=seq)
    assert again.witness == r.witness


def good(data, size, rng):
    return data + rng.laplace(0, 1.0, size)


@pytest.mark.parametrize(
    ("mech", "error", "message"),
    [
        (lambda d, n, rng: np.zeros(n + 1), MechanismError, "shape"),
        (lambda d, n, rng: np.zeros((n, 2)).T, MechanismError, "shape"),
        (lambda d, n, rng: 0.0, MechanismError, "shape"),
        (lambda d, n, rng: np.full(n, np.nan), MechanismError, "non-finite"),
        (lambda d, n, rng: np.full(n, np.inf), MechanismError, "non-finite"),
        (lambda d, n, rng: np.zeros(n, dtype=complex), MechanismError, "numbers or categories"),
        (lambda d, n, rng: np.random.random(n), MechanismError, "not deterministic"),
        (lambda d, n, rng: 1 / 0, MechanismError, "ZeroDivisionError"),
        (42, MechanismError, "not a mechanism"),
    ],
)
def test_misbehaving_mechanisms_give_clear_errors(mech, error, message):
    with pytest.raises(error, match=message):
        dpaudit.audit_privacy(mech, PureDP(1.0), pairs=[(0, 1)], samples=1000, seed=0)


def test_each_distinct_input_is_probed_once_and_a_bad_one_is_still_caught():
    """Pairs sharing a side: the probes (two calls of 16 outputs each, the determinism check) run once per
    distinct input, inputs equal as numbers counted as one (0 and 0.0 differ in type, zeros of shapes (2,) and
    (1, 2) in shape, and each is probed apart); a
    mechanism that misbehaves on a later pair's input is still caught."""
    calls = []

    def counted(data, size, rng):
        calls.append((repr(data), size))
        return np.asarray(data, dtype=float).sum() + rng.laplace(0, 1.0, size)

    pairs = [(np.zeros(2), np.array([1.0, 0.0])), (np.zeros(2), np.array([0.0, 1.0])), (np.zeros((1, 2)), 1.0),
             (0, 1), (0.0, 1.0)]
    dpaudit.audit_privacy(counted, PureDP(1.0), pairs=pairs, samples=1000, seed=0)
    probes = [data for data, size in calls if size == 16]
    distinct = (np.zeros(2), np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.zeros((1, 2)), 1.0, 0, 1, 0.0)
    assert probes == [repr(d) for d in distinct for _ in range(2)]

    def bad_on_two(data, size, rng):
        return np.full(size, np.nan) if data == 2 else data + rng.laplace(0, 1.0, size)

    with pytest.raises(MechanismError, match="non-finite"):
        dpaudit.audit_privacy(bad_on_two, PureDP(1.0), pairs=[(0, 1), (0, 2)], samples=1000, seed=0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"pairs": None}, ValueError, "pairs"),
        ({"pairs": []}, ValueError, "empty"),
        ({"pairs": [(0, 1, 2)]}, ValueError, r"pairs\[0\]"),
        ({"pairs": 5}, TypeError, "sequence"),
        ({"pairs": [(0, 3)], "neighbours": QueryDistance(1)}, NotNeighbours, "sensitivity"),
        ({"confidence": 1.0}, ValueError, "confidence"),
        ({"samples": 0}, ValueError, "samples"),
        ({"auditor": "magic"}, ValueError, "auditor"),
    ],
)
def test_bad_arguments(kwargs, error, message):
    kwargs = {"pairs": [(0, 1)], **kwargs}
    with pytest.raises(error, match=message):
        dpaudit.audit_privacy(good, PureDP(1.0), **kwargs)


def test_claims_that_are_not_privacy_claims_are_rejected():
    with pytest.raises(dpaudit.InvalidClaim, match="privacy"):
        dpaudit.audit_privacy(good, dpaudit.SubGaussian(1.0), pairs=[(0, 1)])
    with pytest.raises(dpaudit.InvalidClaim, match="dpaudit claim"):
        dpaudit.audit_privacy(good, "pure-dp eps=1", pairs=[(0, 1)])  # type: ignore[arg-type]


def test_unsupported_audits_say_so():
    with pytest.raises(dpaudit.UnsupportedAudit, match="distribution"):
        dpaudit.audit_privacy(good, PureDP(1.0), pairs=[(0, 1)], auditor="exact")


def test_result_round_trips_through_json():
    import json

    r = dpaudit.audit_privacy(lambda d, n, rng: d * 10.0 + rng.uniform(0, 1, n), PureDP(1.0), pairs=[(0, 1)],
                              samples=1000, seed=0)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["statistic"]["interval"][1] == "inf"
    back = dpaudit.AuditResult.from_dict(d)
    assert back.statistic.interval[1] == float("inf") and back.verdict == r.verdict
    assert back.to_dict() == r.to_dict()
