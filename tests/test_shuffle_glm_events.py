"""shuffle-glm Lemmas L.1, M.2 and Corollary L.2 on seeded states of Algorithm 2 (audits/shuffle_glm/events.py).
Deterministic floats on seeded states: no false-failure rate to state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit import audit_lower_bound
from dpaudit.auditors.lower_bound import evaluate_step
from dpaudit.audits.shuffle_glm import events
from dpaudit.suite import find_entry


@pytest.mark.parametrize("d", [2, 5])
def test_the_entries_verify_with_their_hypotheses_met(d):
    for name in ("lemL.1", "corL.2", "lemL.3", "corM.1", "lemM.2"):
        finding = audit_lower_bound(find_entry(f"shuffle-glm/{name}@states,d{d},T1e11").claim)
        assert finding.verdict == "verified", (name, finding.notes)
    for condition in events.CONDITIONS:
        assert evaluate_step(condition, {"d": d})["status"] == "holds", condition.name


def test_the_states_put_e_o_on_its_boundary_and_criterion_one_at_its_edge():
    par = events.parameters(2)
    for st in events.states(2)[:20]:
        gap = st["theta_o"] - st["theta_star"]
        assert math.sqrt(gap @ st["H_o"] @ gap) == pytest.approx(par["gamma_max"], rel=1e-9)
        need = 1.01 * par["p"].gamma ** 2 * par["kappa"]
        assert need * (1 - 1e-12) <= np.linalg.eigvalsh(st["V"]).min() <= need * (1 + 1e-6)


def test_each_step_fails_with_a_smaller_constant():
    """L.1 against 0.05/R (its left side reaches 0.075), L.2's second order with 1.5 in place of e^2, M.2(b) against 1/R
    (gaps near 2 survive): each fails on the same states, so the steps can tell."""
    point = {"d": 2}
    l1 = events.ProofStep("tighter", "0.05/R", lambda p: (events._l1(p)[0], np.full(events.STATES, 0.05)), "<=")
    assert evaluate_step(l1, point)["status"] == "fails"

    def smaller(p):
        lhs = np.array([np.linalg.eigvalsh(1.5 * st["H_t"] - st["H_l"]).min() for st in events.states(p["d"])])
        return lhs, np.zeros(events.STATES)

    assert evaluate_step(events.ProofStep("1.5", "1.5 H_t >= H^(l)", smaller, ">="), point)["status"] == "fails"
    m2 = events.ProofStep("1/R", "gap <= 1/R", lambda p: (events._m2_b(p)[0], np.full(events.STATES, 1.0)), "<=")
    assert evaluate_step(m2, point)["status"] == "fails"


def test_theta_tau_sits_on_its_boundaries():
    par = events.parameters(2)
    for st in events.states(2)[:20]:
        step = st["theta_tau"] - st["theta_o"]
        assert math.sqrt(step @ st["V"] @ step) == pytest.approx(par["p"].gamma * math.sqrt(par["kappa"]), rel=1e-9)
        gap = st["theta_tau_e"] - st["theta_star"]
        assert math.sqrt(gap @ st["H_u"] @ gap) == pytest.approx(par["beta"], rel=1e-9)


def test_the_steps_hold_the_printed_constants():
    """Each step's sides recomputed here from the states and the printed constants (1/R, e^2, 2 gamma sqrt(kappa),
    gamma(lambda_max) sqrt(kappa), 4/R): a looser constant in the module would show."""
    d = 2
    par, sts = events.parameters(d), events.states(d)
    gamma, kappa = par["p"].gamma, par["kappa"]
    lhs, rhs, _ = events._l1({"d": d})
    assert np.all(rhs == 1.0)
    lower = np.array([np.linalg.eigvalsh(math.e**2 * st["H_t"] - st["H_l"]).min() / np.linalg.norm(st["H_l"], 2)
                      for st in sts])
    assert np.allclose(events._l2_lower({"d": d})[0], lower, rtol=1e-12, atol=0)
    assert np.allclose(events._l3_tau({"d": d})[1], 2 * gamma * math.sqrt(kappa))
    assert np.allclose(events._l3_o({"d": d})[1], par["gamma_max"] * math.sqrt(kappa))
    assert np.all(events._m2_b({"d": d})[1] == 4.0)
    m1 = [(np.abs(st["arms"] @ (st["theta_tau_e"] - st["theta_star"]))
           - par["beta"] * np.sqrt(np.einsum("ki,ki->k", st["arms"], np.linalg.solve(st["H_t"], st["arms"].T).T))).max()
          for st in sts]
    assert np.allclose(events._m1({"d": d})[0], m1, rtol=1e-12, atol=1e-12)
