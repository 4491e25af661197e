"""ECOLog (shuffle-glm Fig. 1(a)'s baseline): the vectorised policy makes its per-run reference's decisions on
the same contexts and reward tables, its batched online step is the constrained minimiser, it learns, and
the registry refuses a probit link."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import ALGORITHMS, GLMBandit
from dpaudit.algorithms.glm.ecolog import ECOLog, _one_step, ecolog_one_run, online_step
from dpaudit.algorithms.registry import describe
from dpaudit.mechanisms.glm.glm_links import LINKS

from .test_glm_algorithms import play, tables


@pytest.mark.parametrize("S", [1.0, 3.5])
def test_vectorised_decisions_are_the_per_run_reference(S):
    contexts, rewards = tables(3, 150, 6, 3, S, "logistic", seed=11)
    policy = ECOLog(S=S)
    played = play(policy, contexts, rewards)
    for r in range(3):
        np.testing.assert_array_equal(played[r], ecolog_one_run(policy, contexts[r], rewards[r]))
    assert len(np.unique(played)) > 1  # not a degenerate policy that always ties


@pytest.mark.parametrize("weight, reward", [(1.0, None), (2.0, 0.5)], ids=["theta", "theta_bar"])
def test_online_step_is_the_constrained_minimiser(weight, reward):
    rng = np.random.default_rng(3)
    runs, d, S = 60, 4, 2.0
    a = rng.normal(size=(runs, d, d)) * rng.uniform(0.1, 3.0, size=(runs, 1, 1))
    W = a @ a.transpose(0, 2, 1) + 0.2 * np.eye(d)
    theta = rng.normal(size=(runs, d))
    theta *= S * rng.uniform(0.9, 1.0, size=(runs, 1)) / np.linalg.norm(theta, axis=1, keepdims=True)
    x = rng.normal(size=(runs, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    r = (rng.random(runs) < 0.5).astype(float) if reward is None else np.full(runs, reward)
    out = online_step(W, np.linalg.inv(W), theta, x, r, weight, S)
    on_sphere = np.linalg.norm(out, axis=1) > S - 1e-9
    assert 3 <= on_sphere.sum() <= runs - 3  # both branches (inside the ball, on its sphere) are exercised
    reference = np.array([_one_step(W[i], theta[i], x[i], r[i], weight, S) for i in range(runs)])
    np.testing.assert_allclose(out, reference, atol=1e-9)

    def objective(u, i):
        z = u @ x[i]
        return weight * (np.logaddexp(0.0, z) - r[i] * z) + 0.5 * (u - theta[i]) @ W[i] @ (u - theta[i])

    for i in range(runs):  # no feasible point nearby does better
        trial = out[i] + 1e-4 * rng.normal(size=(100, d))
        norms = np.linalg.norm(trial, axis=1, keepdims=True)
        trial = np.where(norms > S, trial * S / norms, trial)
        assert min(objective(u, i) for u in trial) >= objective(out[i], i) - 1e-12


@pytest.mark.slow
def test_it_learns_on_the_repository_instance():
    # logistic, d = 5, K = 20, S = 3.5 (Fig. 1(a)'s instance), 1500 rounds, 2 runs: the last 500 rounds' mean
    # regret is below half of what playing uniformly at random loses (deterministic given the seed)
    env = GLMBandit(20, 5, 3.5, link="logistic", generator="repository")
    res = dpaudit.simulate(ALGORITHMS["ecolog"](S=3.5), env, horizon=1500, runs=2, seed=0, grid=[1000, 1500])
    mu = LINKS["logistic"].mean(env.arm_sets(1500) @ env.theta)
    uniform = (mu.max(axis=1) - mu.mean(axis=1))[1000:].mean()
    late = (res.pseudo_regret[:, 1] - res.pseudo_regret[:, 0]).mean() / 500
    assert late < 0.5 * uniform


def test_registry_and_bad_input():
    assert describe("ecolog").startswith("shuffle-glm Fig. 1(a) baseline: ECOLog")
    policy = ALGORITHMS["ecolog"](S=2.0, lam=3.0, delta=0.05)
    assert (policy.S, policy.lam, policy.delta) == (2.0, 3.0, 0.05)
    with pytest.raises(ValueError, match="link must be 'logistic'"):
        ALGORITHMS["ecolog"](link="probit", S=2.0)
    with pytest.raises(ValueError, match="lam"):
        ECOLog(S=1.0, lam=0.0)
    policy = ECOLog(S=1.0)
    policy.start(2, 3, 10, np.random.default_rng(0))
    policy.choose(1, np.zeros((2, 3, 4)))
    policy.observe(1, np.zeros(2, dtype=int), np.zeros(2))
    with pytest.raises(ValueError, match="changed dimension from 4 to 5"):
        policy.choose(2, np.zeros((2, 3, 5)))


# -- the constants' claims (dpaudit.audits.shuffle_glm.ecolog) -------------------------------------------------

def _gamma_params():
    from dpaudit.audits.shuffle_glm import ecolog as E

    return {"lam": E.GAMMA_LAM, "delta": E.GAMMA_DELTA, "d": E.GAMMA_D, "n": E.GAMMA_N}


def test_gamma_is_lemma_j2_threshold_and_the_check_catches_the_code_bases_form(monkeypatch):
    from dpaudit.auditors.lower_bound import evaluate_step
    from dpaudit.audits.shuffle_glm import ecolog as E

    assert evaluate_step(E.GAMMA_STEP, _gamma_params())["status"] == "tight"
    # one point by hand: lam = 5, delta = 0.02, d = 5, n = 1000: det^{1/2}/lam^{d/2} = (1 + n/(4 d lam))^{d/2}
    by_hand = math.sqrt(5) / 2 + 2 / math.sqrt(5) * (math.log(50) + 2.5 * math.log(11) + 5 * math.log(2))
    assert math.isclose(E.confidence_gamma(5.0, 0.02, 5, 1000), by_hand, rel_tol=1e-13)
    # the code bases' d = 1 form (log(2 sqrt(1 + n/(4 lam))/delta)) is not the printed threshold at d > 1
    monkeypatch.setattr(E, "confidence_gamma", lambda lam, delta, d, n: (
        math.sqrt(lam) / 2 + 2 / math.sqrt(lam) * math.log(2 * math.sqrt(1 + n / (4 * lam)) / delta)))
    result = evaluate_step(E.GAMMA_STEP, _gamma_params())
    assert result["status"] == "fails" and result["at"]["d"] == 5


def test_det_bound_holds_and_the_check_has_power():
    from dpaudit import ProofStep
    from dpaudit.auditors.lower_bound import evaluate_step
    from dpaudit.audits.shuffle_glm import ecolog as E

    params = {"d": (2, 5), "n": (1, 10, 100), "count": 200, "lam": 5.0, "T": 200}
    assert evaluate_step(E.DET_STEP, params)["status"] == "holds"
    # the random matrices come close to the bound (unit-sphere arms, weights up to 1/4): a bound with weights
    # capped at 1/8 instead of 1/4 fails on them
    def halved_sides(p):
        lhs, _, where = E._det_bound(p)
        return lhs, where["d"] * np.log(p["lam"] + where["n"] / (8 * where["d"])), where

    halved = ProofStep("halved", "det <= (lam + n/(8d))^d", halved_sides, "<=")
    assert evaluate_step(halved, params)["status"] == "fails"


def test_coverage_audit_accepts_the_set_and_refutes_a_shrunk_one():
    # 400 runs of 30 rounds (d = 5, K = 20, S = 3.5, lam = 5). ECOLog's set is about twice the distance to
    # theta* (ratio <= 0.5 at every round seen), so at scale 1 no run leaves it: a refutation is then
    # impossible (false-failure rate 0); at scale 0.4 every run leaves it at round 1 (ratio 0.469 / 0.4 > 1:
    # ||theta*||_{lam I} / sqrt(2 lam S^2 + (1 + S)^2 gamma_1)), refuted at confidence 0.99 whatever the seed
    from dpaudit.audits.shuffle_glm import ecolog as E

    claim = dpaudit.TailBound(E.at_most(0.02), "delta", two_sided=False)
    ok = dpaudit.audit_tail(partial(E.confidence_excess, T=30, **E.COVERAGE), claim, samples=400, seed=0,
                            auditor="statistical")
    assert ok.verdict == "not-refuted"
    shrunk = dpaudit.audit_tail(partial(E.confidence_excess, T=30, scale=0.4, **E.COVERAGE), claim, samples=400,
                                seed=0, auditor="statistical")
    assert shrunk.verdict == "refuted"
