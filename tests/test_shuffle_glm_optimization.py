"""shuffle-glm Lemma R.1 and Appendix D.2's Lipschitz constant (audits/shuffle_glm/optimization.py). Deterministic
floats on seeded data: no false-failure rate to state."""

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


@pytest.mark.parametrize("S, c", [(0.25, 5.4), (0.5, 0.0), (2.0, 1.0), (3.0, 5.4)])
def test_the_lipschitz_sup_is_attained_and_no_sampled_gradient_exceeds_it(S, c):
    """Appendix D.2: the gradient's largest norm is max(mu(S), R - mu(-S)) + c S, attained; 20,000 seeded (theta, x, r)
    in the domain (x in the unit ball, ||theta|| <= S, r in [0, 1]) stay below it, the largest within 10% of it."""
    sup, L, _ = opt.lipschitz_sides(S, c)
    rng = np.random.default_rng(7)
    x = rng.normal(size=(20_000, 3))
    x *= rng.random((20_000, 1)) ** (1 / 3) / np.linalg.norm(x, axis=1, keepdims=True)
    theta = rng.normal(size=(20_000, 3))
    theta *= S * rng.random((20_000, 1)) ** (1 / 3) / np.linalg.norm(theta, axis=1, keepdims=True)
    theta[:1000] = S * x[:1000] / np.linalg.norm(x[:1000], axis=1, keepdims=True)  # some aligned with x
    r = rng.choice([0.0, 1.0], 20_000)
    z = np.einsum("ni,ni->n", x, theta)
    grad = (1 / (1 + np.exp(-z)) - r)[:, None] * x + c * theta
    norms = np.linalg.norm(grad, axis=1)
    assert norms.max() <= sup + 1e-12 and norms.max() > 0.9 * sup
    assert L == pytest.approx(2 * S + c * S)


def test_the_lipschitz_entries_hold_from_s_half_and_fail_at_a_quarter():
    verdicts = {S: audit_lower_bound(find_entry(f"shuffle-glm/claimsecD.2-inequality@lipschitz,S{S},eps4,d3,T1000")
                                     .claim).verdict for S in ("0.25", "0.5", "2", "3")}
    assert verdicts == {"0.25": "refuted", "0.5": "verified", "2": "verified", "3": "verified"}
