"""MSLR-WEB10K for dist-mab's fig1-mslr and fig5: the LETOR / SVMlight reader on tiny hand-written files, its
one-line errors (missing file, malformed lines), the K-means arms, and the data line every record and report
carries (the real file's name, or the synthetic stand-in)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms.environments.mslr import LetorFormatError, cluster_means, load_mslr, read_letor
from dpaudit.audits.experiments import dist_mab
from dpaudit.bandits import experiments
from dpaudit.cli import main

TINY = """\
2 qid:10 1:0.5 2:1.0 3:0.0
0 qid:10 1:0.4 2:1.5 3:2.0   # a comment
1 qid:11 1:0.1 3:7.0

4 qid:11 2:0.25 1:0.3 3:1
"""


def test_reads_a_tiny_letor_file(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text(TINY)
    data = read_letor(path)
    np.testing.assert_array_equal(data.labels, [2, 0, 1, 4])
    np.testing.assert_array_equal(data.qids, [10, 10, 11, 11])
    # a feature left out reads as 0; indices in any order
    np.testing.assert_array_equal(data.features, [[0.5, 1.0, 0.0], [0.4, 1.5, 2.0], [0.1, 0.0, 7.0],
                                                  [0.3, 0.25, 1.0]])
    assert data.name == "tiny.txt"


def _clustered_file(path, groups: int, per_group: int, seed: int = 0):
    """``groups`` well separated groups of rows in 4 features, each group one label: K-means with K = groups
    must find them, and each arm's mean is its group's label / 4."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=100.0, size=(groups, 4))
    labels = np.arange(groups) % 5
    lines = []
    for g in range(groups):
        for _ in range(per_group):
            x = centres[g] + rng.normal(scale=0.01, size=4)
            lines.append(f"{labels[g]} qid:{g} " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(x)))
    path.write_text("\n".join(lines) + "\n")
    return labels


def test_cluster_means_are_the_groups_labels(tmp_path):
    path = tmp_path / "groups.txt"
    labels = _clustered_file(path, 6, 5)
    means, counts = cluster_means(read_letor(path), clusters=6, seed=0)
    assert sorted(counts) == [5] * 6
    np.testing.assert_allclose(np.sort(means), np.sort(labels / 4))
    with pytest.raises(LetorFormatError, match="groups.txt: 30 rows cannot form 50 clusters"):
        cluster_means(read_letor(path))


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(LetorFormatError) as info:
        read_letor(tmp_path / "absent.txt")
    assert str(info.value).startswith("absent.txt: no such file") and "\n" not in str(info.value)


@pytest.mark.parametrize("bad, message", [
    ("1 qid:3 1:0.5 2:abc", "line 3: the feature '2:abc' has a value that is not a number"),
    ("x qid:3 1:0.5", "line 3: the label 'x' is not a number"),
    ("1 query:3 1:0.5", "line 3: the second field 'query:3' is not 'qid:<integer>'"),
    ("1 qid:3 0:0.5", "line 3: the feature '0:0.5' is not '<index>:<value>' with an index >= 1"),
    ("1 qid:3 1:0.5 7", "line 3: the feature '7' is not '<index>:<value>'"),
    ("1 qid:3 1:0.5:2", "line 3: the feature '1:0.5:2' has a value that is not a number"),
    ("1 qid:3", "line 3: no features"),
    ("1 qid:3 1:nan", "line 3: the feature '1:nan' is not finite"),
])
def test_a_malformed_line_is_named(tmp_path, bad, message):
    path = tmp_path / "bad.txt"
    path.write_text(f"2 qid:1 1:0.5 2:1.0\n0 qid:1 1:0.4 2:1.5\n{bad}\n3 qid:4 1:0.2 2:0.1\n")
    with pytest.raises(LetorFormatError) as info:
        read_letor(path)
    text = str(info.value)
    assert text.startswith(f"bad.txt, {message}") and "\n" not in text, text


def test_the_presets_say_which_data_they_used(tmp_path):
    stand_in = experiments.load_presets()["dist-mab/fig5"]
    assert stand_in.data == "data: synthetic stand-in (MSLR-WEB10K not given)" and "not fetched" in stand_in.stand_in
    path = tmp_path / "train.txt"
    _clustered_file(path, 50, 3)
    real = stand_in.with_data(path)
    means, line = load_mslr(path)
    assert real.data == line and line.startswith("data: MSLR-WEB10K from train.txt (150 rows, 4 features")
    assert real.stand_in is None and "(MSLR-WEB10K from train.txt)" in real.title
    np.testing.assert_array_equal(real.configurations[0].environment.sampler.values, means)
    assert [c.key for c in real.configurations] == [c.key for c in stand_in.configurations]

    for data, expected, folder in [(path, line, "real"), (None, dist_mab.MSLR_NOT_GIVEN, "stand-in")]:
        done = experiments.run_preset("dist-mab/fig5@eps1", runs=2, horizon=100, out=tmp_path / folder, workers=1,
                                      progress=False, data=data)
        config_dir = tmp_path / folder / "dist-mab" / "fig5" / "eps1"
        record = dpaudit.SimulationResult.load(next(config_dir.glob("*.npz")))
        assert any(expected in note for note in record.notes)
        assert json.loads((config_dir / "summary.json").read_text())["data"] == expected
        assert expected in (config_dir / "table.md").read_text()
        assert (done.selections[0][0].stand_in is None) == (data is not None)
    # the real data under the released code's constants: both said, the code's 4^b batches run
    done = experiments.run_preset("dist-mab/fig5@eps1", runs=2, horizon=100, out=tmp_path / "both", workers=1,
                                  progress=False, data=path, constants="released-code")
    preset = done.selections[0][0]
    assert preset.data == line and preset.constants == "released-code" and preset.stand_in is None
    record = dpaudit.SimulationResult.load(next((tmp_path / "both" / "dist-mab" / "fig5-released-code" / "eps1")
                                                .glob("dist-dp-se.npz")))
    assert any(line in note and "constants: released-code" in note and "eta=4" in note for note in record.notes)


def test_cli_data_option(tmp_path, capsys):
    path = tmp_path / "train.txt"
    _clustered_file(path, 50, 2)
    rc = main(["simulate", "dist-mab/fig1-mslr@eps2", "--data", str(path), "--runs", "1", "--horizon", "50",
               "--out", str(tmp_path / "out"), "--workers", "1", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0 and "dist-mab/fig1-mslr: data: MSLR-WEB10K from train.txt" in out
    assert "note: dist-mab/fig1-mslr" not in out  # no stand-in notice when the real file is used
    for argv, message in [(["dist-mab/fig5", "--data", str(tmp_path / "absent.txt")], "absent.txt: no such file"),
                          (["dist-mab/fig2", "--data", str(path)], "--data: dist-mab/fig2 take(s) no data file")]:
        assert main(["simulate", *argv, "--no-progress"]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
