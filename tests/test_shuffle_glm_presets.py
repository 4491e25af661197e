"""shuffle-glm's experiment presets against the paper's settings (Table 2, Figure 1), and the paper's numbers
beside ours in the reports. Exact assertions only."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms.environments.glm import GLMBandit
from dpaudit.audits.experiments.shuffle_glm import TABLE2
from dpaudit.bandits import experiments

# the experiments' delta = zeta is outside Theorem 6.2: Private-GLM warns (tested with the algorithm)
pytestmark = pytest.mark.filterwarnings("ignore:.*needs delta > zeta:UserWarning")


def test_presets_follow_the_paper():
    presets = {p.figure: p for p in experiments.load_presets().values() if p.paper == "shuffle-glm"}
    assert set(presets) == {"table2", "fig1a", "fig1b"}
    table2 = presets["table2"]
    assert [c.value("S") for c in table2.configurations] == [2.0, 2.5, 3.0]
    for column, config in enumerate(table2.configurations):
        env = config.environment
        assert isinstance(env, GLMBandit)
        assert (config.horizon, config.runs, env.arms, env.dimension) == (5000, 10, 20, 3)
        assert env.link.name == "probit" and env.S == config.value("S")
        papers = {c.label: c.paper_value for c in config.curves if c.paper_value is not None}
        assert papers == {label: values[column] for label, values in TABLE2.items()}
        private = [c for c in config.curves if c.algorithm == "private-glm"]
        assert [c.kwargs["eps"] for c in private] == [4.0, 6.0, 8.0]
        assert {c.algorithm for c in config.curves} == {"glm-ucb", "gloc", "rs-glinucb", "private-glm", "jdp-glm",
                                                      "shuffle-glm"}
    for figure, (link, d, S, T, algorithms) in {
            "fig1a": ("logistic", 5, 3.5, 15000, {"private-glm", "rs-glinucb", "ecolog", "gloc"}),
            "fig1b": ("probit", 5, 3.0, 5000, {"private-glm", "rs-glinucb", "glm-ucb", "gloc"})}.items():
        config, = presets[figure].configurations
        env = config.environment
        assert (env.link.name, env.dimension, env.S, config.horizon, config.runs, env.arms) == (link, d, S, T, 10, 20)
        assert {c.algorithm for c in config.curves} == algorithms
        private = [c for c in config.curves if c.algorithm == "private-glm"]
        assert [c.kwargs["eps"] for c in private if not c.kwargs.get("project")] == [2.0, 4.0, 8.0]
        assert all(c.kwargs.get("delta", 0.02) == 0.02 for c in config.curves)


def test_reports_show_the_papers_numbers_and_the_ratio(tmp_path):
    done = dpaudit.run_preset("shuffle-glm/table2@S2", runs=2, horizon=60, out=tmp_path, workers=1, progress=False)
    folder = tmp_path / "shuffle-glm" / "table2" / "S2"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["same_instances"] is True  # NaN means of a contextual environment compare equal
    rows = {c["label"]: c for c in summary["curves"]}
    glm_ucb = rows["GLM-UCB"]
    assert glm_ucb["paper_final_regret"] == 1399.07
    assert glm_ucb["ratio_to_paper"] == glm_ucb["final_pseudo_regret"] / 1399.07
    assert "paper_final_regret" not in rows["JDP-GLM eps=4"]
    table = (folder / "table.md").read_text()
    assert "| paper | ours / paper |" in table and "| 1399.07 |" in table and "prints Table 2's numbers" in table
    assert len(done.results) == 10


def test_released_code_constants_reproduce_the_codes_logged_settings():
    # the cited commit's stored output for Fig. 1(b) (probit, d = 5, S = 3, T = 5000): "Kappa = 193.18410051249518",
    # then per Private-GLM "Lambda: 455.25091207605203 / 253.529538334209 / 152.66885146328752" at eps = 2, 4, 8
    # and "Count1 cutoff: 230, Count2 cutoff: 2"; the theorem constants' kappa bound gives count1 = 268
    fig1b = experiments.load_presets()["shuffle-glm/fig1b"]
    released = fig1b.with_constants("released-code")
    assert released.constants_source.startswith("Sahasrajit123/Shuffle_joint_dp_generalized_linear_contextual_bandits "
                                                "at ab8fd160")
    config, = released.configurations
    assert config.environment.kappa(5000)[0] == pytest.approx(193.18410051249518, rel=1e-12)
    registry = experiments.algorithm_registry()
    for curve, lam in zip([c for c in config.curves if c.algorithm == "private-glm"],
                          (455.25091207605203, 253.529538334209, 152.66885146328752)):
        policy = registry[curve.algorithm](**curve.arguments(5000))
        settings = policy.settings(5, 5000)
        assert settings.lam == pytest.approx(lam, rel=1e-12)
        assert (settings.count1_cutoff, settings.count2_cutoff) == (230, 2) and policy.schedule == "released-code"
    theorem = registry["private-glm"](**fig1b.configurations[0].curves[0].arguments(5000))
    assert theorem.settings(5, 5000).count1_cutoff == 268 and theorem.schedule == "fixed"
    # every algorithm with a kappa gets the realised one; what the code does not have is left out
    for name in ("shuffle-glm/table2", "shuffle-glm/fig1a", "shuffle-glm/fig1b"):
        preset = experiments.load_presets()[name].with_constants("released-code")
        for config in preset.configurations:
            labels = [c.label for c in config.curves]
            assert not any(label.startswith(("JDP-GLM", "ShuffleGLM")) or "projected" in label for label in labels)
            for curve in config.curves:
                if curve.algorithm != "ecolog":
                    assert curve.arguments(100)["kappa"] == pytest.approx(config.environment.kappa(100)[0])
        assert not any(note.startswith("kappa and kappa*") for note in preset.notes)


def test_the_released_dp_sgd_schedule_follows_the_codes_rule(monkeypatch):
    from dpaudit.mechanisms.training import dp_sgd

    # a noise scale z clip / batch of e / 10 for e epochs (n = 5000: 3 batches an epoch): 50 -> 40 -> 32 -> 25 -> 20
    # (factor 0.8 while the scale is above 2), -> 17 -> 15 (0.85), stop at 15 epochs; burn-in 10 -> 8 -> 6 -> 4 ->
    # 3 -> 2 -> 1; the learning rate 10 -> min(1, 8) = 1 at the first cut, then kept
    monkeypatch.setattr(dp_sgd, "noise_multiplier", lambda eps, delta, steps, q: steps / 3 / 10 * 2048 / 0.2)
    assert dp_sgd.released_code_schedule(1.0, 1e-3, 5000) == (15, 1, 1.0)
    # a scale e/100 + 0.001: 0.501 at 50 epochs takes 0.9 (-> 45), then 0.95 for the rest of the 10 rounds:
    # 45 -> 42 -> 39 -> 37 -> 35 -> 33 -> 31 -> 29 -> 27 -> 25; burn-in 9, 8, 7, 6, 5, 4, 3, 2, 1, 1
    monkeypatch.setattr(dp_sgd, "noise_multiplier",
                        lambda eps, delta, steps, q: (steps / 3 / 100 + 0.001) * 2048 / 0.2)
    assert dp_sgd.released_code_schedule(1.0, 1e-3, 5000) == (25, 1, 1.0)
    # small noise: nothing changes
    monkeypatch.setattr(dp_sgd, "noise_multiplier", lambda eps, delta, steps, q: 0.3 * 2048 / 0.2)
    assert dp_sgd.released_code_schedule(1.0, 1e-3, 5000) == (50, 10, 10.0)
    # a call on few points (one batch an epoch): cuts stop once fewer than 20 batches are left in all,
    # 50 -> 40 -> 32 -> 25 -> 20 -> 16, burn-in 10 -> 8 -> 6 -> 4 -> 3 -> 2
    monkeypatch.setattr(dp_sgd, "noise_multiplier", lambda eps, delta, steps, q: 100.0)
    assert dp_sgd.released_code_schedule(1.0, 1e-3, 4) == (16, 2, 1.0)


@pytest.mark.parametrize(("epsilon", "delta", "steps", "q"), [(0.4, 1e-3, 50, 1.0), (1.5, 2e-3, 50, 1.0),
                                                              (0.2, 1e-3, 50, 1.0), (0.5, 1e-4, 150, 0.4)])
def test_the_released_codes_noise_multiplier_solves_its_accountant(epsilon, delta, steps, q):
    """The closed form against the code's definition solved numerically: eps(z) = min over its orders of
    steps a q^2 / (2 z^2) + log(1/delta) / (a - 1), root-found on [1e-5, 4e7] as the code does."""
    from scipy.optimize import brentq

    from dpaudit.mechanisms.training import dp_sgd

    orders = (np.arange(2.0, 64.0) if epsilon >= 0.3
              else np.concatenate([np.arange(2.0, 64.0, 4.0), np.arange(70.0, 512.0, 6.0)]))

    def code_epsilon(z):
        return min(steps * a * q**2 / (2 * z**2) - math.log(delta) / (a - 1) for a in orders)

    expected = brentq(lambda z: code_epsilon(z) - epsilon, 1e-5, 4e7, xtol=1e-12, rtol=1e-13)
    assert dp_sgd.released_code_noise_multiplier(epsilon, delta, steps, q) == pytest.approx(expected, rel=1e-9)
    if q == 1:  # the classical conversion is looser than dp-accounting's: a larger multiplier
        ratio = expected / dp_sgd.noise_multiplier(epsilon, delta, steps, q)
        assert 1.2 < ratio < 1.7
    with pytest.raises(ValueError, match="search interval"):
        dp_sgd.released_code_noise_multiplier(0.5, 1e-3, 10**18, 1.0)
    with pytest.raises(ValueError, match="no order"):
        dp_sgd.released_code_noise_multiplier(1e-6, 1e-3, 50, 1.0)
    with pytest.raises(ValueError, match="accountant must be one of"):
        dp_sgd.multiplier("opacus", epsilon, delta, steps, q)


def test_private_glm_runs_dp_sgd_with_the_schedule_it_names(monkeypatch):
    from dpaudit.algorithms.glm import private_glm as module

    built = []

    class Recorder(module.DPSGD):
        def __init__(self, *args, **kwargs):
            built.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(module, "DPSGD", Recorder)
    monkeypatch.setattr(module, "released_code_schedule", lambda eps, delta, n, accountant: (16, 1, 1.0))
    env = GLMBandit(20, 3, 2.0, link="probit", generator="repository")
    released = {"epochs": 16, "lr0": 1.0, "burn_in": 1, "accountant": "released-code", "batches": "shuffled"}
    for constants, expected in (("released-code", released), ("theorem", {})):
        built.clear()
        policy = experiments.algorithm_registry()["private-glm"](eps=4.0, S=2.0, link="probit", constants=constants)
        dpaudit.simulate(policy, env, horizon=2000, runs=2, seed=0)  # a criterion-II switch calls DP-SGD
        assert built and all(kwargs == expected for kwargs in built)
    assert "DP-SGD schedule of the released code" in module.PrivateGLM(4.0, schedule="released-code").name
    with pytest.raises(ValueError, match="constants must be one of"):
        experiments.algorithm_registry()["private-glm"](eps=4.0, constants="code")
