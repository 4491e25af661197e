"""shuffle-glm Lemma R.1 (audits/shuffle_glm/optimization.py). Deterministic floats on seeded data: no false-failure
rate to state."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import audit_lower_bound
from dpaudit.audits.shuffle_glm import optimization as opt
from dpaudit.suite import find_entry


def test_the_approximate_minimisers_have_the_excess_loss_they_should():
    x, theta_star, tilde, loss, H = opt._instance(200, 5, 1.0)
    assert np.linalg.norm(theta_star) == pytest.approx(opt.S / 2)
    assert np.allclose(H, H.T) and np.linalg.eigvalsh(H).min() >= 1.0 - 1e-12  # H >= lambda I
    # the excess loss of theta^ is just below nu, so the premise L(theta^) - min L < nu holds with little to spare
    for nu in (1e-3, 1.0):
        u = np.random.default_rng([opt.SEED, 200, 5, 10, 0]).standard_normal(5)
        u /= np.linalg.norm(u)
        lo, hi = 0.0, 100.0
        for _ in range(80):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if loss(tilde + mid * u) - loss(tilde) < nu else (lo, mid)
        assert loss(tilde + lo * u) - loss(tilde) == pytest.approx(nu, rel=1e-6)


def test_the_bound_holds_with_room_and_a_smaller_constant_would_fail():
    lhs, rhs, where = opt._bound({})
    assert len(lhs) == 360 and np.all(lhs <= rhs)
    # not vacuous on this grid: a bound a third of the printed one would be refuted somewhere
    assert (lhs / rhs).max() > 1 / 3
    assert audit_lower_bound(find_entry("shuffle-glm/lemR.1@logistic,S3,grid360").claim).verdict == "verified"
    lhs_one, rhs_one = opt._sides(1000, 5, 0.1, 10.0, 0)
    assert lhs_one <= rhs_one and lhs_one > rhs_one / 10
