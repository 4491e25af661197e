"""Experiment presets (dpaudit.bandits.experiments, dpaudit.audits.experiments), ``dpaudit simulate`` and
``dpaudit list --algorithms``: selection by name, the built-in presets against the papers' settings,
the files a run writes, worker-count independence, common random numbers, and the command line.

The registry is empty until the papers' algorithms are registered, so runs here register small
constructors of the policies that exist (DP-SE, FTNL) and one policy written here, with tiny horizons.
No test here is statistical: every assertion is exact."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import registry
from dpaudit.algorithms.environments import BernoulliBandit, BernoulliExperts, GaussianBandit, UniformMeans
from dpaudit.algorithms.mab import DPSuccessiveElimination
from dpaudit.algorithms.online import FollowTheNoisyLeader
from dpaudit.bandits import experiments
from dpaudit.bandits.experiments import Configuration, Curve, PerHorizon, Preset, select_presets
from dpaudit.cli import main
from dpaudit.core.errors import UsageError

# -- a registry and presets to run -------------------------------------------------------------------------


def toy_dp_se(eps, beta=0.1):
    """test Algorithm 1: DP-SE, the existing policy under a test name."""
    return DPSuccessiveElimination(eps, beta)


def toy_ftnl(eps):
    """test Algorithm 2: FTNL over 3 experts."""
    return FollowTheNoisyLeader(eps, 3)


class UniformPolicy:
    """Plays a uniformly random arm every round (a policy written for these tests)."""

    feedback = "bandit"

    def start(self, runs, arms, horizon, rng):
        self.runs, self.arms, self.rng = runs, arms, rng

    def choose(self, t):
        return self.rng.integers(0, self.arms, self.runs)

    def observe(self, t, arms, rewards):
        pass


def toy_uniform():
    return UniformPolicy()


@pytest.fixture
def toy_registry(monkeypatch):
    for name, make in (("toy-dp-se", toy_dp_se), ("toy-ftnl", toy_ftnl), ("toy-uniform", toy_uniform)):
        monkeypatch.setitem(registry.ALGORITHMS, name, make)
    return registry.ALGORITHMS


def bandit_preset(figure="toy", curves=None, stand_in=None, final_vs=None, horizon=300, runs=4, seed=0):
    curves = curves or (lambda eps: (Curve("DP-SE", "toy-dp-se", {"eps": eps, "beta": 0.1}, "black"),
                                     Curve("Uniform", "toy-uniform")))
    configs = tuple(Configuration((("gap", gap), ("eps", eps)),
                                  GaussianBandit(UniformMeans.around(0.5, gap, 3), sigma=0.1), horizon, runs,
                                  curves(eps), seed=seed)
                    for gap in (0.5, 0.2) for eps in (0.5, 1.0))
    return Preset("dist-mab", figure, f"Toy {figure}", "Things happen.", "nowhere", ("gap", "eps"), configs,
                  metric="time-average", final_vs=final_vs, notes=("A note.",), stand_in=stand_in)


def experts_preset():
    configs = tuple(Configuration((("eps", eps),), BernoulliExperts([0.6, 0.5, 0.4]), 200, 3,
                                  (Curve("FTNL", "toy-ftnl", {"eps": eps}),)) for eps in (0.5, 2.0))
    return Preset("private-online", "toy-experts", "Toy experts", "Experts.", "nowhere", ("eps",), configs,
                  final_vs="eps")


def npz_arrays(path):
    with np.load(path) as data:
        return {k: data[k] for k in ("grid", "pseudo_regret", "regret", "pulls", "means")}


# -- selection -----------------------------------------------------------------------------------------------


def test_select_by_name_configuration_and_paper():
    (preset, configs), = select_presets("dist-mab/fig1")
    assert preset.name == "dist-mab/fig1" and len(configs) == 6
    (_, configs), = select_presets("dist-mab/fig1@gap0.1,eps0.5")
    assert [c.key for c in configs] == ["gap0.1,eps0.5"]
    # names case-insensitive, '=' allowed, values compared as numbers, a name left out matches any value
    (_, configs), = select_presets("DIST-MAB/Fig1@eps=5e-1")
    assert [c.key for c in configs] == ["gap0.5,eps0.5", "gap0.1,eps0.5"]
    (_, configs), = select_presets("dist-mab/fig1@gap0.10,eps1.0")
    assert [c.key for c in configs] == ["gap0.1,eps1"]
    figures = select_presets("private-online")
    assert len(figures) == 24 and all(p.paper == "private-online" for p, _ in figures)
    toy = bandit_preset()
    assert select_presets(toy) == [(toy, toy.configurations)]


@pytest.mark.parametrize("spec, message", [
    ("dist-mab/fig9", "no preset 'dist-mab/fig9'; presets: dist-mab/{fig1, fig1-mslr, fig2"),
    ("nonsense", "no preset 'nonsense'"),
    ("dist-mab/fig1@gap0.2", "dist-mab/fig1 has no configuration gap0.2; configurations: gap0.5,eps0.1, "),
    ("dist-mab/fig1@delta0.1", "dist-mab/fig1 has no parameter 'delta'; its grid is gap, eps"),
    ("dist-mab/fig1@gap=", "cannot read 'gap=' in 'gap='"),
    ("dist-mab/fig1@", "name a configuration, e.g. dist-mab/fig1@gap0.5,eps0.1"),
    ("dist-mab@eps1", "no preset 'dist-mab'"),
])
def test_bad_names_say_what_exists(spec, message):
    with pytest.raises(UsageError) as info:
        select_presets(spec)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_preset_checks_its_shape():
    config = bandit_preset().configurations[0]
    with pytest.raises(ValueError, match="unknown paper key 'nope'"):
        Preset("nope", "fig1", "t", "o", "s", ("gap", "eps"), (config,))
    with pytest.raises(ValueError, match="expected the grid's"):
        Preset("dist-mab", "fig1", "t", "o", "s", ("eps",), (config,))
    with pytest.raises(ValueError, match="configuration keys repeat"):
        Preset("dist-mab", "fig1", "t", "o", "s", ("gap", "eps"), (config, config))
    with pytest.raises(ValueError, match="curve labels"):
        Configuration((("eps", 1.0),), BernoulliBandit([0.5, 0.4]), 10, 2,
                      (Curve("A b", "x"), Curve("a-b", "y")))  # same file name
    with pytest.raises(ValueError, match="horizon"):
        Configuration((("eps", 1.0),), BernoulliBandit([0.5, 0.4]), 0, 2, (Curve("A", "x"),))


# -- the built-in presets ------------------------------------------------------------------------------------

DIST_MAB_NAMES = {"dp-se", "dist-dp-se", "dist-rdp-se", "dist-cdp-se", "cdp-se", "ldp-se"}
DIST_MAB_KWARGS = {"eps", "p", "eta", "s", "beta"}


def test_dist_mab_presets_follow_the_paper():
    presets = experiments.load_presets()
    figures = {p.figure for p in presets.values() if p.paper == "dist-mab"}
    assert figures == {"fig1", "fig1-mslr", "fig2", "fig3", "fig4", "fig5"}
    fig1 = presets["dist-mab/fig1"]
    assert fig1.grid == ("gap", "eps") and fig1.metric == "time-average"
    assert sorted(c.key for c in fig1.configurations) == sorted(
        f"gap{g},eps{e:g}" for g in (0.5, 0.1) for e in (0.1, 0.5, 1))
    for config in fig1.configurations:
        assert (config.horizon, config.runs, config.environment.arms) == (10**7, 20, 10)
        gap = config.value("gap")
        sampler = config.environment.sampler
        assert (sampler.low, sampler.high) == pytest.approx((0.5 - gap / 2, 0.5 + gap / 2))
        assert config.environment.sigma == 0.1 and config.environment.clip == (0.0, 1.0)
        assert config.ylim == ((0.0, 0.045) if gap == 0.1 else None)
        colours = {c.label: c.colour for c in config.curves}
        assert colours == {"DP-SE": "black", "Dist-DP-SE": "blue", "Dist-RDP-SE(s=10)": "red",
                           "Dist-RDP-SE(s=100)": "green"}
        eps = config.value("eps")
        for curve in config.curves:
            # theorem constants: Algorithm 1's l(b) = 2^b, Sec. 7's p = 0.1, DP-SE's per-arm noise
            assert curve.kwargs["eps"] == eps and "shared_noise" not in curve.kwargs
            assert curve.kwargs.get("eta", 2) == 2 and curve.kwargs.get("p", curve.kwargs.get("beta")) == 0.1
    assert {c.horizon for c in presets["dist-mab/fig2"].configurations} == {10**6}
    assert {c.horizon for c in presets["dist-mab/fig3"].configurations} == {10**7}
    fig4 = presets["dist-mab/fig4"]
    assert {c.label for c in fig4.configurations[0].curves} == {"CDP-SE", "LDP-SE", "Dist-DP-SE", "Dist-RDP-SE(s=10)",
                                                                "Dist-CDP-SE(s=10)"}
    assert {c.kwargs["eta"] for config in fig4.configurations for c in config.curves} == {2}
    for name in ("dist-mab/fig1-mslr", "dist-mab/fig5"):
        preset = presets[name]
        assert preset.stand_in and "not fetched" in preset.stand_in
        means = preset.configurations[0].environment.sampler.values
        assert means.size == 50 and 0 < means.min() < means.max() < 1
        assert all(min(c.value("eps") for c in preset.configurations) >= 1 for _ in (0,))  # "eps >= 1 for real data"
    for preset in (p for p in presets.values() if p.paper == "dist-mab"):
        assert preset.observation and preset.notes and preset.constants == "theorem"
        for config in preset.configurations:
            for curve in config.curves:
                assert curve.algorithm in DIST_MAB_NAMES and set(curve.kwargs) <= DIST_MAB_KWARGS


def test_dist_mab_released_code_constants_are_the_authors():
    presets = experiments.load_presets()
    for preset in (p for p in presets.values() if p.paper == "dist-mab"):
        released = preset.with_constants("released-code")
        assert released.constants == "released-code" and "ea7503b" in released.constants_source
        assert released.name == preset.name and released.shown_name == f"{preset.name} (released-code)"
        assert [c.key for c in released.configurations] == [c.key for c in preset.configurations]
        assert "Polya sampler" in " ".join(released.notes)  # what of the code is not reproduced, said
        for theirs, ours in zip(released.configurations, preset.configurations):
            assert theirs.environment.name == ours.environment.name and theirs.horizon == ours.horizon
            for curve in theirs.curves:
                eta = 2 if preset.figure == "fig4" else 4  # the plot script's dc = 2 for Fig. 4; 4^b elsewhere
                assert curve.kwargs.get("eta", eta) == eta
                assert curve.kwargs.get("p", curve.kwargs.get("beta")) == 0.1
                assert curve.kwargs.get("shared_noise", False) is (curve.algorithm == "dp-se")
        assert preset.with_constants("theorem") is preset
        with pytest.raises(UsageError, match="take the theorem preset"):
            released.with_constants("theorem")
    fig4 = presets["dist-mab/fig4"]  # Fig. 4's algorithms are not in the code: its constants are the same
    assert fig4.with_constants("released-code").configurations[0].curves == fig4.configurations[0].curves
    with pytest.raises(UsageError, match="constants must be one of theorem, released-code"):
        fig4.with_constants("authors")
    with pytest.raises(UsageError, match="private-online/fig1 has no released-code constants"):
        presets["private-online/fig1"].with_constants("released-code")


def test_preset_constants_are_checked():
    preset = bandit_preset()
    with pytest.raises(ValueError, match="constants must be one of"):
        dataclasses.replace(preset, constants="as-run")
    with pytest.raises(ValueError, match="must say which code"):
        dataclasses.replace(preset, constants="released-code")
    with pytest.raises(ValueError, match="only a theorem preset"):
        dataclasses.replace(preset, constants="released-code", constants_source="x", released_code=lambda: preset)
    other = dataclasses.replace(preset, configurations=preset.configurations[:2])
    with pytest.raises(ValueError, match="other configurations"):
        dataclasses.replace(preset, released_code=lambda: dataclasses.replace(
            other, constants="released-code", constants_source="x")).with_constants("released-code")


def test_private_online_presets_follow_the_paper():
    presets = {p.figure: p for p in experiments.load_presets().values() if p.paper == "private-online"}
    expected = {f"fig{n}" for n in range(1, 9)} | {"fig9a", "fig9b", "fig9c", "fig10", "fig11a", "fig11b", "fig11c",
                                                   "fig11d"} | {f"fig12{c}" for c in "abcdefgh"}
    assert set(presets) == expected
    setting = {1: [0.75, 0.7, 0.7, 0.7, 0.7], 2: [0.75, 0.625, 0.5, 0.375, 0.25], 3: [0.75, 0.15, 0.15, 0.15, 0.15]}
    per_eps = {"fig1": (1, 0.5), "fig2": (1, 1), "fig3": (1, 8), "fig4": (1, 64), "fig6": (2, 0.5), "fig7": (2, 8),
               "fig8": (2, 64), "fig9a": (1, 0.1), "fig9b": (1, 0.25), "fig9c": (1, 128), "fig11a": (2, 0.1),
               "fig11b": (2, 0.25), "fig11c": (2, 1), "fig11d": (2, 128)}
    per_eps |= {f"fig12{c}": (3, e) for c, e in zip("bcdefgh", (0.1, 0.25, 0.5, 1, 8, 64, 128))}
    for figure, (s, eps) in per_eps.items():
        config, = presets[figure].configurations
        assert config.value("eps") == eps and list(config.environment.sampler.values) == setting[s]
        assert presets[figure].final_vs is None
    for figure, s in (("fig5", 1), ("fig10", 2), ("fig12a", 3)):
        preset = presets[figure]
        assert preset.final_vs == "eps"
        assert [c.value("eps") for c in preset.configurations] == [0.1, 0.25, 0.5, 1, 8, 64, 128]
        assert all(list(c.environment.sampler.values) == setting[s] for c in preset.configurations)
    for preset in presets.values():
        assert preset.metric == "cumulative"
        for config in preset.configurations:
            assert (config.horizon, config.runs, config.environment.arms, config.seed) == (2**22, 15, 5, 0)
            assert isinstance(config.environment, BernoulliBandit)
            assert [c.algorithm for c in config.curves] == ["anytime-lazy-ucb", "hybrid-ucb", "dp-se"]
            beta = config.curves[2].kwargs["beta"]
            assert isinstance(beta, PerHorizon) and config.curves[2].arguments(2**22)["beta"] == 2.0**-22


def test_horizon_dependent_arguments_follow_the_horizon():
    curve = Curve("DP-SE", "dp-se", {"eps": 0.5, "beta": PerHorizon("1/T", lambda t: 1 / t)})
    assert curve.arguments(400) == {"eps": 0.5, "beta": 1 / 400}
    assert curve.describe(400) == "dp-se(eps=0.5, beta=1/T=0.0025)"


# -- running -----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_run_writes_results_plots_tables_and_summaries(tmp_path, toy_registry):
    preset = bandit_preset(final_vs="eps", stand_in="A stand-in.")
    done = dpaudit.run_preset(preset, runs=3, horizon=250, out=tmp_path, progress=False)
    assert done.simulations == 6  # Uniform takes no eps: one simulation per gap serves both eps
    for config in preset.configurations:
        folder = tmp_path / "dist-mab" / "toy" / config.key
        for curve, slug in zip(config.curves, ("dp-se", "uniform")):
            loaded = dpaudit.SimulationResult.load(folder / f"{slug}.npz")
            kept = done.results[("dist-mab/toy", config.key, curve.label)]
            assert (loaded.horizon, loaded.runs) == (250, 3)
            np.testing.assert_array_equal(loaded.pseudo_regret, kept.pseudo_regret)
            assert any(f"preset dist-mab/toy@{config.key}" in note for note in loaded.notes)
        assert (folder / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        summary = json.loads((folder / "summary.json").read_text())
        assert summary["configuration"] == config.key and summary["same_instances"] is True
        assert summary["observation"] == "Things happen." and summary["stand_in"] == "A stand-in."
        assert [c["label"] for c in summary["curves"]] == ["DP-SE", "Uniform"]
        dp_se = summary["curves"][0]
        assert dp_se["call"] == f"toy-dp-se(eps={config.value('eps')!r}, beta=0.1)"
        assert math.isclose(dp_se["final_time_average_pseudo_regret"] * 250, dp_se["final_pseudo_regret"])
        table = (folder / "table.md").read_text()
        assert "| DP-SE |" in table and "prints no regret numbers" in table and "A stand-in." in table
    figure = json.loads((tmp_path / "dist-mab" / "toy" / "summary.json").read_text())
    assert [s["configuration"] for s in figure["configurations"]] == [c.key for c in preset.configurations]
    assert (tmp_path / "dist-mab" / "toy" / "final-vs-eps.png").is_file()
    assert (tmp_path / "dist-mab" / "toy" / "table.md").is_file()


def released_toy():
    """bandit_preset with a released-code variant whose DP-SE takes beta 0.5."""
    theirs = bandit_preset(curves=lambda eps: (Curve("DP-SE", "toy-dp-se", {"eps": eps, "beta": 0.5}, "black"),
                                               Curve("Uniform", "toy-uniform")))
    theirs = dataclasses.replace(theirs, constants="released-code", constants_source="the toy's code at abc1234")
    return dataclasses.replace(bandit_preset(), released_code=lambda: theirs)


def test_a_run_names_its_constants_everywhere(tmp_path, toy_registry):
    preset = released_toy()
    done = dpaudit.run_preset(preset, runs=2, horizon=120, out=tmp_path, progress=False, constants="released-code")
    ours = dpaudit.run_preset(preset, runs=2, horizon=120, out=tmp_path, progress=False)
    config = preset.configurations[0]
    released_dir = tmp_path / "dist-mab" / "toy-released-code" / config.key
    loaded = dpaudit.SimulationResult.load(released_dir / "dp-se.npz")
    assert any("constants: released-code (the toy's code at abc1234)" in note for note in loaded.notes)
    summary = json.loads((released_dir / "summary.json").read_text())
    assert (summary["constants"], summary["constants_source"]) == ("released-code", "the toy's code at abc1234")
    assert summary["curves"][0]["call"] == "toy-dp-se(eps=0.5, beta=0.5)"
    assert "constants: released-code (the toy's code at abc1234)" in (released_dir / "table.md").read_text()
    figure = json.loads((tmp_path / "dist-mab" / "toy-released-code" / "summary.json").read_text())
    assert figure["constants"] == "released-code"
    # the theorem run wrote beside it, not over it, and says so
    theorem_dir = tmp_path / "dist-mab" / "toy" / config.key
    assert json.loads((theorem_dir / "summary.json").read_text())["constants"] == "theorem"
    assert "constants: theorem (the paper's, as printed)" in (theorem_dir / "table.md").read_text()
    key = ("dist-mab/toy", config.key, "DP-SE")
    assert (done.results[key].algorithm, ours.results[key].algorithm) == ("DP-SE(eps=0.5, beta=0.5)",
                                                                         "DP-SE(eps=0.5, beta=0.1)")
    assert np.array_equal(done.results[("dist-mab/toy", config.key, "Uniform")].pseudo_regret,
                          ours.results[("dist-mab/toy", config.key, "Uniform")].pseudo_regret)


def test_full_information_presets_run(tmp_path, toy_registry):
    done = dpaudit.run_preset(experts_preset(), out=tmp_path, progress=False)
    result = done.results[("private-online/toy-experts", "eps0.5", "FTNL")]
    assert result.pulls.sum(axis=1).tolist() == [200] * 3


@pytest.mark.slow
def test_results_do_not_depend_on_the_worker_count(tmp_path, toy_registry):
    preset = bandit_preset(curves=lambda eps: (Curve("DP-SE", "toy-dp-se", {"eps": eps}),
                                               Curve("DP-SE beta 0.5", "toy-dp-se", {"eps": eps, "beta": 0.5})))
    for workers in (1, 2):
        dpaudit.run_preset(preset, runs=3, horizon=400, out=tmp_path / str(workers), workers=workers, progress=False)
    files = sorted(p.relative_to(tmp_path / "1") for p in (tmp_path / "1").rglob("*.npz"))
    assert len(files) == 8
    for name in files:
        one, two = npz_arrays(tmp_path / "1" / name), npz_arrays(tmp_path / "2" / name)
        for key in one:
            np.testing.assert_array_equal(one[key], two[key], err_msg=f"{name}: {key}")


def test_a_configurations_algorithms_share_their_instances(tmp_path, toy_registry):
    preset = bandit_preset()
    done = dpaudit.run_preset(preset, runs=5, horizon=100, out=tmp_path, progress=False)
    other = dpaudit.run_preset(preset, runs=5, horizon=100, out=tmp_path / "seed1", progress=False, seed=1)
    for config in preset.configurations:
        a, b = (done.results[(preset.name, config.key, label)] for label in ("DP-SE", "Uniform"))
        assert np.unique(a.means[:, 0]).size == 5  # means drawn per run ...
        np.testing.assert_array_equal(a.means, b.means)  # ... the same for every algorithm of the configuration
        assert not np.array_equal(a.pulls, b.pulls)
        c = other.results[(preset.name, config.key, "DP-SE")]
        assert c.seed.entropy == 1 and not np.array_equal(a.means, c.means)  # the seed does change them


@pytest.mark.slow
def test_identical_simulations_run_once(tmp_path, toy_registry):
    presets = {p.name: p for p in (bandit_preset("toy"), bandit_preset("toy2"))}
    done = dpaudit.run_preset("dist-mab", runs=2, horizon=60, out=tmp_path, progress=False, presets=presets)
    # 2 figures x 4 configurations x 2 curves, the figures the same, and Uniform the same at both eps
    assert done.simulations == 6
    for config in presets["dist-mab/toy"].configurations:
        for label in ("DP-SE", "Uniform"):
            a, b = (done.results[(name, config.key, label)] for name in presets)
            np.testing.assert_array_equal(a.pseudo_regret, b.pseudo_regret)
    assert len(list(tmp_path.rglob("*.npz"))) == 16


def test_missing_algorithms_are_named_before_anything_runs(tmp_path, toy_registry):
    preset = bandit_preset(curves=lambda eps: (Curve("A", "toy-dp-se", {"eps": eps}), Curve("B", "no-such-alg")))
    with pytest.raises(UsageError, match="not in the registry: no-such-alg .registered: .*toy-dp-se"):
        dpaudit.run_preset(preset, out=tmp_path, progress=False)
    bad = bandit_preset(curves=lambda eps: (Curve("A", "toy-dp-se", {"eps": -eps}),))
    with pytest.raises(UsageError, match=r"dist-mab/toy@gap0.5,eps0.5, A: toy-dp-se\(eps=-0.5\) failed: .*epsilon"):
        dpaudit.run_preset(bad, out=tmp_path, progress=False)
    assert not any(tmp_path.iterdir())


def test_progress_lines(tmp_path, toy_registry, capsys):
    import sys

    dpaudit.run_preset(bandit_preset(stand_in="Stand-in data."), runs=2, horizon=50, out=tmp_path, progress=True,
               stream=sys.stdout)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "note: dist-mab/toy: Stand-in data."
    assert out[1].startswith("[1/6] dist-mab/toy@") and out[-1].startswith("[6/6]")
    assert all(" s in, " in line and line.endswith(" left") for line in out[1:-1])  # the time so far and left
    assert " s in" in out[-1] and not out[-1].endswith(" left")
    assert sum("(+1 more)" in line for line in out) == 2  # Uniform's simulation serves both eps


# -- command line -------------------------------------------------------------------------------------------


def test_cli_simulate_runs_a_configuration(tmp_path, toy_registry, monkeypatch, capsys):
    toy = bandit_preset(stand_in="Synthetic stand-in for data we cannot fetch.")
    monkeypatch.setattr(experiments.presets, "load_presets", lambda: {toy.name: toy})
    rc = main(["simulate", "dist-mab/toy@gap0.2,eps1", "--runs", "2", "--horizon", "80", "--out", str(tmp_path),
               "--workers", "1", "--no-progress", "--seed", "3"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "dist-mab/toy@gap0.2,eps1: T = 80, 2 runs" in out
    assert "note: dist-mab/toy: Synthetic stand-in" in out
    assert str(tmp_path / "dist-mab" / "toy" / "gap0.2,eps1" / "table.md") in out
    loaded = dpaudit.SimulationResult.load(tmp_path / "dist-mab" / "toy" / "gap0.2,eps1" / "uniform.npz")
    assert (loaded.runs, loaded.horizon, loaded.seed.entropy) == (2, 80, 3)
    assert not (tmp_path / "dist-mab" / "toy" / "gap0.5,eps1").exists()
    assert "dist-mab/toy: constants: theorem (the paper's, as printed)" in out


def test_cli_simulate_takes_the_released_constants(tmp_path, toy_registry, monkeypatch, capsys):
    toy = released_toy()
    monkeypatch.setattr(experiments.presets, "load_presets", lambda: {toy.name: toy})
    rc = main(["simulate", "dist-mab/toy@gap0.2,eps1", "--runs", "2", "--horizon", "80", "--out", str(tmp_path),
               "--workers", "1", "--no-progress", "--constants", "released-code"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "dist-mab/toy (released-code)@gap0.2,eps1: T = 80, 2 runs" in out
    assert "dist-mab/toy: constants: released-code (the toy's code at abc1234)" in out
    assert (tmp_path / "dist-mab" / "toy-released-code" / "gap0.2,eps1" / "dp-se.npz").is_file()
    monkeypatch.setattr(experiments.presets, "load_presets", lambda: {"dist-mab/toy": bandit_preset()})
    assert main(["simulate", "dist-mab/toy", "--constants", "released-code", "--horizon", "10"]) == 2
    assert "dist-mab/toy has no released-code constants" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["simulate", "dist-mab/fig99"], "no preset 'dist-mab/fig99'; presets: dist-mab/{fig1"),
    (["simulate", "dist-mab/fig1@gap0.3,eps0.5"], "dist-mab/fig1 has no configuration gap0.3,eps0.5; configurations:"),
    (["simulate"], "name a PRESET"),
    (["simulate", "dist-mab/fig1", "--runs", "0"], "--runs must be at least 1"),
    (["simulate", "dist-mab/fig1", "--list"], "--list takes no PRESET"),
    (["simulate", "private-online/fig1", "--constants", "released-code"], "has no released-code constants"),
    (["list", "--algorithms", "classic"], "takes no selector"),
])
def test_cli_simulate_usage_errors(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_cli_simulate_reports_unregistered_algorithms(monkeypatch, capsys):
    monkeypatch.setattr(registry, "ALGORITHMS", {})
    assert main(["simulate", "private-online/fig1", "--horizon", "10"]) == 2
    assert "not in the registry: anytime-lazy-ucb, dp-se, hybrid-ucb (registered: none" in capsys.readouterr().err


def test_cli_simulate_list(capsys):
    assert main(["simulate", "--list"]) == 0
    out = capsys.readouterr().out
    assert "dist-mab/fig1  Fig. 1 (top)" in out
    assert "paper scale: K = 10; T = 10^7; 20 runs; 6 configurations, 24 simulations" in out
    assert "configurations: gap0.5,eps0.1 gap0.5,eps0.5 gap0.5,eps1 gap0.1,eps0.1 gap0.1,eps0.5 gap0.1,eps1" in out
    assert "private-online/fig12a" in out and "K = 5; T = 2^22; 15 runs; 7 configurations" in out
    assert out.count("synthetic stand-in for data that is not fetched") == 2
    assert out.count("constants: theorem, released-code") == 11  # dist-mab 6, shuffle-lcb 2, shuffle-glm 3
    assert "constants: theorem (no released-code constants)" in out


def test_cli_list_algorithms(monkeypatch, capsys):
    def bare(eps):
        return None

    monkeypatch.setattr(registry, "ALGORITHMS", {"toy-dp-se": toy_dp_se, "toy-ftnl": toy_ftnl, "bare": bare})
    assert main(["list", "--algorithms"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["NAME       DESCRIPTION",
                     "toy-dp-se  test Algorithm 1: DP-SE, the existing policy under a test name.",
                     "toy-ftnl   test Algorithm 2: FTNL over 3 experts.",
                     "bare       (no docstring)",
                     "",
                     "3 algorithms"]
    assert main(["list", "--algorithms", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[1] == {"name": "toy-ftnl", "description": "test Algorithm 2: FTNL over 3 experts."}
    monkeypatch.setattr(registry, "ALGORITHMS", {})
    assert main(["list", "--algorithms"]) == 0
    assert capsys.readouterr().out.strip() == "no algorithms registered"


def test_suite_discovery_skips_the_presets():
    from dpaudit.suite import load_suites

    assert "experiments" not in load_suites() and "dist-mab" in load_suites()


@pytest.mark.filterwarnings("ignore:.*outside the \\(0, 1\\):UserWarning")
@pytest.mark.filterwarnings("ignore:.*is outside .*range:UserWarning")
@pytest.mark.filterwarnings("ignore:.*needs delta > zeta:UserWarning")
def test_every_preset_builds_its_algorithms_from_the_registry():
    # the real registry: every curve's name and keyword arguments make a policy (Fig. 4's eps = 1 for
    # CDP-SE, LDP-SE and Dist-CDP-SE warns: their theorems cover eps < 1; so do shuffle-lcb's eps = 1
    # and 10 for LinUCB-SDP-Amp, LinUCB-LDP and LinUCB-JDP)
    for name, preset in experiments.load_presets().items():
        tasks = experiments.run._tasks(select_presets(name))
        assert tasks and all(callable(getattr(t.policy, "start", None)) for t in tasks), name
        if preset.released_code is not None:  # and the released code's constants, where a preset has them
            released = experiments.run.with_constants(select_presets(name), "released-code")
            assert all(callable(getattr(t.policy, "start", None)) for t in experiments.run._tasks(released)), name


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*outside the \\(0, 1\\):UserWarning")
def test_every_preset_simulates_small(tmp_path):
    # every figure of both papers end to end with the real algorithms, at 2 runs of 3000 rounds
    for paper in ("dist-mab", "private-online"):
        done = dpaudit.run_preset(paper, runs=2, horizon=3000, out=tmp_path, workers=1, progress=False)
        assert {key[0] for key in done.results} == {n for n in experiments.load_presets() if n.startswith(paper)}
        assert all(res.pulls.sum() == 2 * 3000 for res in done.results.values())
    assert (tmp_path / "private-online" / "fig5" / "final-vs-eps.png").stat().st_size > 0
    released = dpaudit.run_preset("dist-mab", runs=2, horizon=3000, out=tmp_path, workers=1, progress=False,
                                  constants="released-code")
    assert all(res.pulls.sum() == 2 * 3000 for res in released.results.values())
    assert (tmp_path / "dist-mab" / "fig1-released-code" / "summary.json").is_file()
