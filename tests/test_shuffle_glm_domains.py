"""shuffle-glm Lemmas E.4, K.1 and Corollary E.6 on the optimizer's whole domain (audits/shuffle_glm/domains.py).
Deterministic floats: no false-failure rate to state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit import audit_lower_bound
from dpaudit.auditors.lower_bound import evaluate_step
from dpaudit.audits.shuffle_glm import domains
from dpaudit.suite import find_entry


@pytest.mark.parametrize("cid", ["lemE.4@domain,S3,d3,T1000", "corE.6@domain,S3,d3,T1000",
                                 "lemK.1@domain,S3,d2,T1000", "lemE.9@domain,S3,d3,T1000",
                                 "lemE.7@domain,S3,d3,T1000"])
def test_the_entries_verify(cid):
    assert audit_lower_bound(find_entry(f"shuffle-glm/{cid}").claim).verdict == "verified"


def test_the_domain_bound_is_above_every_sampled_distance():
    """2S sqrt(lambda_max + s/4) against ||theta* - theta^||_{H*} for seeded theta*, theta^ in the ball, s = 1000 data
    points of norm <= 1 and N between lambda I and lambda_max I: never above, and above three quarters of it on the
    worst samples (data along one direction, theta* orthogonal to it, theta^ at -S along H's top eigenvector): the
    bound is valid, and not loose by much (antipodal theta*, theta^ along the data would make mu' smaller)."""
    q = domains.algorithm1_point()
    bound = domains._e4({"d": 3, "T": 1000})[0][0]
    rng = np.random.default_rng(11)
    worst = 0.0
    for k in range(300):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        x = np.tile(u, (1000, 1)) if k % 2 else rng.normal(size=(1000, 3))
        x /= np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))
        theta = rng.normal(size=3)
        theta *= domains.S / np.linalg.norm(theta) * (1 if k % 2 else rng.random())
        if k % 2:
            theta = domains.S * np.cross(u, rng.normal(size=3))
            theta *= domains.S / np.linalg.norm(theta)  # orthogonal to the data: mu' = 1/4 on every point
        z = x @ theta
        slope = np.exp(-z) / (1 + np.exp(-z)) ** 2
        noise = np.diag(rng.uniform(q["lam_min"], q["lam_max"], 3))
        H = (x.T * slope) @ x + noise
        w, U = np.linalg.eigh(H)
        hat = -domains.S * U[:, -1] if k % 2 else rng.uniform(-1, 1, 3) * domains.S / math.sqrt(3)
        worst = max(worst, math.sqrt((theta - hat) @ H @ (theta - hat)))
    assert worst <= bound and worst > 0.75 * bound


def test_at_a_longer_horizon_the_domain_bound_decides_nothing():
    step = domains.ProofStep("e4", "domain bound", domains._e4, "<=")
    assert evaluate_step(step, {"d": 3, "T": 100_000})["status"] == "fails"
    assert evaluate_step(step, {"d": 3, "T": 1000})["status"] == "holds"


def test_lemma_e7s_curvature_step_fails_with_half_the_exponent():
    """mu'(z_w) <= e^{R |z_w - z*|} mu'(z*) holds off the diagonal; with e^{R |z_w - z*| / 2} it fails (the logistic
    curvature ratio approaches e^{|dz|} for large |z|)."""
    lhs, rhs, _ = domains._e7_curvature({})
    assert np.all(lhs <= rhs) and lhs.max() > 0.99
    z = np.arange(-3, 3 + 1e-12, 1 / 16)
    zs, zw = np.meshgrid(z, z, indexing="ij")
    off = zw != zs
    slope = np.exp(-np.abs(zw[off])) / (1 + np.exp(-np.abs(zw[off]))) ** 2
    slope_star = np.exp(-np.abs(zs[off])) / (1 + np.exp(-np.abs(zs[off]))) ** 2
    assert np.any(slope / (np.exp(np.abs(zw[off] - zs[off]) / 2) * slope_star) > 1)


def test_the_steps_hold_the_printed_bounds():
    """(29), (24) and (60) recomputed here from their printed constants at the entries' points: a looser constant in
    the module would show."""
    from dpaudit.algorithms.glm.base import curvature
    from dpaudit.algorithms.glm.parameters import algorithm2_parameters

    q = domains.algorithm1_point(3, 1000)
    logs = math.log(1000) + 3
    e4 = 24 * 3 * (math.sqrt(logs) + logs / math.sqrt(q["lam_min"])) + 6 * math.sqrt(q["lam_max"])
    assert domains._e4({"d": 3, "T": 1000})[1][0] == pytest.approx(e4, rel=1e-12)
    w24 = 24 * 3 * math.sqrt(logs) + logs / math.sqrt(q["lam_min"]) + 6 * math.sqrt(q["lam_max"])
    assert domains._e9({"d": 3, "T": 1000})[1][0] == pytest.approx(w24 / math.sqrt(q["lam_max"] + 250), rel=1e-12)
    _, kappa, kappa_star = curvature("test", "logistic", 3.0, None, None)
    p = algorithm2_parameters(4.0, 0.02, 1000, 0.01, 2, 1.0, 3.0, kappa, kappa_star)
    g60 = 12 * math.sqrt(p.lam_max) + 42 / math.sqrt(p.lam_max) * math.log(16_000 / (0.01 * 2 * p.lam_max))
    assert domains._k1({"d": 2, "T": 1000})[1][0] == pytest.approx(g60, rel=1e-12)
