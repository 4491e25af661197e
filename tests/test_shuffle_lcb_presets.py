"""shuffle-lcb's Fig. 1 and Fig. 2 presets follow the paper's setup, and a preset's stated ordering of
final regrets is checked (as an observation) in its summaries and in ``dpaudit simulate``'s output."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpaudit.algorithms import LinearBandit
from dpaudit.bandits import experiments
from dpaudit.bandits.experiments import Configuration, Curve, Preset
from dpaudit.bandits.experiments.reports import ordering_observation
from dpaudit.cli import main


def test_presets_follow_the_paper():
    presets = experiments.load_presets()
    fig1, fig2 = presets["shuffle-lcb/fig1"], presets["shuffle-lcb/fig2"]
    assert [c.key for c in fig1.configurations] == ["eps0.2", "eps1", "eps10"]
    assert [c.key for c in fig2.configurations] == ["d10", "d15"]
    for preset, dims in ((fig1, {5}), (fig2, {10, 15})):
        assert {c.environment.dimension for c in preset.configurations} == dims
        for config in preset.configurations:
            env = config.environment
            assert isinstance(env, LinearBandit) and env.arms == 100 and env.generator == "paper"
            assert (config.horizon, config.runs) == (20_000, 50)
            assert [(c.label, c.algorithm, c.colour) for c in config.curves] == [
                ("LinUCB", "linucb", "black"), ("LinUCB-JDP", "linucb-jdp", "blue"),
                ("LinUCB-SDP-Amp", "linucb-sdp-amp", "red"), ("LinUCB-SDP-Vec", "linucb-sdp-vec", "green"),
                ("LinUCB-LDP", "linucb-ldp", "cyan")]
            eps = config.value("eps") if preset is fig1 else 1.0
            for curve in config.curves[1:]:
                assert curve.kwargs["eps"] == eps and curve.kwargs["delta"] == 0.1
                assert curve.kwargs.get("B", 20) == 20
        assert preset.ordering == (("LinUCB",), ("LinUCB-JDP",), ("LinUCB-SDP-Amp", "LinUCB-SDP-Vec"), ("LinUCB-LDP",))
        assert any("generator='paper'" in note for note in preset.notes)


class _Final:
    """A result with a given final mean and standard error (what the ordering reads)."""

    def __init__(self, mean, se):
        self._mean, self._se = mean, se

    def mean(self):
        return np.array([0.0, self._mean])

    def stderr(self):
        return np.array([0.0, self._se])


def _preset():
    config = Configuration((("eps", 1.0),), LinearBandit(5, 3), 10, 2,
                           (Curve("A", "linucb"), Curve("B", "linucb"), Curve("C", "linucb")))
    return Preset("shuffle-lcb", "toy", "Toy", "A < {B, C}.", "nowhere", ("eps",), (config,),
                  ordering=(("A",), ("B", "C"))), config


def test_the_ordering_observation():
    preset, config = _preset()
    holds = ordering_observation(preset, config, {"A": _Final(1, 0.1), "B": _Final(5, 0.1), "C": _Final(1.1, 0.1)})
    assert holds["holds"] and holds["text"] == "A < {B, C} at T: holds (within 2 s.e.: A vs C)"
    assert [(p["lower"], p["higher"], p["separated"]) for p in holds["pairs"]] == [("A", "B", True),
                                                                                  ("A", "C", False)]
    fails = ordering_observation(preset, config, {"A": _Final(3, 0.1), "B": _Final(5, 0.1), "C": _Final(2, 0.1)})
    assert not fails["holds"] and fails["text"] == "A < {B, C} at T: does not hold (A 3 >= C 2)"
    with pytest.raises(ValueError, match="ordering names labels no configuration has"):
        Preset("shuffle-lcb", "toy", "Toy", "x", "nowhere", ("eps",), (config,), ordering=(("A",), ("Z",)))


@pytest.mark.filterwarnings("ignore:.*is outside .*range:UserWarning")
def test_simulate_prints_and_records_the_ordering(tmp_path, capsys):
    assert main(["simulate", "shuffle-lcb/fig1@eps10", "--runs", "2", "--horizon", "100", "--workers", "1",
                 "--no-progress", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "  observed: LinUCB < LinUCB-JDP < {LinUCB-SDP-Amp, LinUCB-SDP-Vec} < LinUCB-LDP at T: " in out
    summary = json.loads((tmp_path / "shuffle-lcb" / "fig1" / "eps10" / "summary.json").read_text())
    assert summary["ordering"]["expected"] == "LinUCB < LinUCB-JDP < {LinUCB-SDP-Amp, LinUCB-SDP-Vec} < LinUCB-LDP"
    table = (tmp_path / "shuffle-lcb" / "fig1" / "table.md").read_text()
    assert "Observed ordering of the final pseudo-regrets" in table
    sdp = next(c for c in summary["curves"] if c["label"] == "LinUCB-SDP-Amp")
    assert sdp["call"] == "linucb-sdp-amp(eps=10.0, delta=0.1, B=20)"
