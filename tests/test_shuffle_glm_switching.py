"""shuffle-glm Lemma M.3 on an explicit criterion-II round (audits/shuffle_glm/switching.py). Deterministic floats: no
false-failure rate to state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit import audit_lower_bound
from dpaudit.auditors.lower_bound import evaluate_step
from dpaudit.audits.shuffle_glm import switching
from dpaudit.suite import find_entry


@pytest.mark.parametrize("d", [2, 5])
def test_the_printed_constant_is_refuted_and_the_proofs_holds_with_every_hypothesis_met(d):
    printed = audit_lower_bound(find_entry(f"shuffle-glm/lemM.3@d{d},T1e8").claim)
    proof = audit_lower_bound(find_entry(f"shuffle-glm/lemM.3@proof,d{d},T1e8").claim)
    assert (printed.verdict, proof.verdict) == ("refuted", "verified")
    point = {"d": d, "s": 0.05}
    for condition in switching.CONDITIONS:  # strictly: none rests on rounding
        assert evaluate_step(condition, point)["status"] == "holds", condition.name


@pytest.mark.parametrize("d", [2, 5])
def test_the_gap_is_the_optimism_bound_and_the_ratio_the_noises(d):
    st = switching.state(d)
    gap = float((st["x_star"] - st["x_t"]) @ st["theta_star"])
    norm_tau = math.sqrt(st["x_t"] @ np.linalg.solve(st["H_tau"], st["x_t"]))
    norm_t = math.sqrt(st["x_t"] @ np.linalg.solve(st["H_t"], st["x_t"]))
    assert gap == pytest.approx(2 * st["beta"] * norm_tau, rel=1e-5)  # optimism: the gap at its bound
    lam, shift = st["lam"], switching.INSIDE * st["c"]
    assert norm_tau / norm_t == pytest.approx(math.sqrt((2 - switching.SLACK) * (lam + shift) / (lam - shift)))
    assert gap / (st["beta"] * norm_t) > 2 * math.sqrt(2)


def test_with_no_noise_the_printed_constant_holds_and_a_noise_beyond_the_band_is_caught():
    """band = 0: the noiseless rarely-switching ratio sqrt(2 - 1e-6) < sqrt 2, so 2 sqrt 2 holds; band = 1.01: the
    noise condition fails (the instance leaves the hypothesis)."""
    noiseless = {"d": 2, "s": 0.05, "band": 0.0}
    step = switching.ProofStep("printed", "2 sqrt 2", switching._printed, "<=")
    assert evaluate_step(step, noiseless)["status"] == "holds"
    beyond = {"d": 2, "s": 0.05, "band": 1.01}
    assert evaluate_step(switching.CONDITIONS[0], beyond)["status"] == "fails"
