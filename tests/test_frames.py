"""Results as pandas DataFrames: a run's records (``RunSummary.to_frame``, ``dpaudit.read_results``), the CSV of
``dpaudit report DIR --format csv``, and a simulation's regret in tidy long form (``SimulationResult.to_frame``).

Every audit here is exact (the claims' verdicts are computed, not sampled) and every simulation seeded, so
nothing in this file can fail by chance.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import dpaudit
from dpaudit.algorithms import ALGORITHMS, BernoulliBandit
from dpaudit.cli import main
from dpaudit.core.results import AuditResult, Statistic
from dpaudit.reports.frames import (
    RESULT_COLUMNS,
    RESULT_DTYPES,
    SUMMARY_COLUMNS,
    outcome_counts,
    results_csv,
    results_frame,
    summary_frame,
)
from dpaudit.runner import RunOptions, run

FLOATS = ("estimate", "bound", "confidence", "seconds")
TEXT = ("suite", "id", "title", "verdict", "expected", "outcome", "footing", "statistic", "kind")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """Three exact claims in this process: a classic one verified, an expected refutation reproduced (with its
    footing) and one not reproduced."""
    from pathlib import Path

    suites = Path(__file__).parent / "suites"
    out = tmp_path_factory.mktemp("frames")
    summary = run(RunOptions(selectors=["classic/laplace-eps1", "testing-refutations"], out=out, workers=0,
                             suite_paths=[str(suites / "refutations.py")], progress_bar=False))
    return summary


def test_a_run_is_one_row_per_claim_with_the_columns_and_dtypes(tiny_run):
    frame = tiny_run.to_frame()
    assert tuple(frame.columns) == RESULT_COLUMNS
    assert list(frame["id"]) == [r.claim_id for r in tiny_run.records] == [
        "classic/laplace-eps1", "testing-refutations/not-reproduced", "testing-refutations/reproduced"]
    assert frame["samples"].dtype == np.int64
    assert all(frame[name].dtype == np.float64 for name in FLOATS)
    assert all(pd.api.types.is_string_dtype(frame[name]) for name in TEXT)

    rows = frame.set_index("id")
    classic = rows.loc["classic/laplace-eps1"]
    assert classic["suite"] == "classic" and classic["title"] == "Laplace mechanism, eps=1 (exact)"
    assert (classic["verdict"], classic["expected"], classic["outcome"]) == ("verified", "not-refuted", "pass")
    assert pd.isna(classic["footing"])  # no footing: missing, not ""
    found = rows.loc["testing-refutations/reproduced"]
    assert (found["verdict"], found["expected"], found["outcome"]) == ("refuted", "refuted", "expected-refutation")
    assert found["footing"] == "as printed" and found["suite"] == "testing-refutations"
    assert pd.isna(found["title"])  # the entry has no title
    record = {r.claim_id: r for r in tiny_run.records}["testing-refutations/reproduced"]
    assert (found["statistic"], found["kind"]) == (record.statistic.name, record.statistic.kind)
    assert found["bound"] == record.epsilon_lower == pytest.approx(2.0)
    assert found["confidence"] == 1.0 and found["seconds"] == record.seconds
    assert rows.loc["testing-refutations/not-reproduced", "outcome"] == "not-reproduced"


def test_read_results_gives_the_run_s_frame(tiny_run):
    loaded = dpaudit.read_results(tiny_run.out)
    assert loaded.exit_code == tiny_run.exit_code == 1  # the refutation not reproduced
    pd.testing.assert_frame_equal(loaded.to_frame(), tiny_run.to_frame())
    # the records as results.json holds them (dicts) give the same frame too
    document = json.loads((tiny_run.out / "results.json").read_text())
    pd.testing.assert_frame_equal(results_frame(document["records"]), tiny_run.to_frame())


def test_report_format_csv_round_trips_through_read_csv(tiny_run, tmp_path, capsys):
    out = tiny_run.out
    assert main(["report", str(out)]) == 0  # the default is unchanged: the reports re-rendered, no table
    assert not (out / "results.csv").exists()
    assert main(["report", str(out), "--format", "csv"]) == 0
    assert "3 claims; results table:" in capsys.readouterr().out
    read = pd.read_csv(out / "results.csv", dtype=RESULT_DTYPES)  # power_quantity is empty in every row here
    pd.testing.assert_frame_equal(read, tiny_run.to_frame())
    assert main(["report", str(out), "--format", "csv", "--out", str(tmp_path / "table.csv")]) == 0
    assert (tmp_path / "table.csv").read_bytes() == (out / "results.csv").read_bytes()


def _record(**fields):
    base = {"verdict": "refuted", "claim": {"kind": "pure-dp", "epsilon": 0.1}, "auditor": "exact-privacy"}
    return AuditResult(**{**base, **fields})


def test_missing_and_infinite_values_survive_the_csv():
    """A direct API record (no claim id, suite, title or expectation's footing), a certified infinite epsilon,
    and an error record without a statistic."""
    records = [
        _record(statistic=Statistic("epsilon", math.inf, (math.inf, math.inf), "lower-bound"),
                epsilon_lower=math.inf, confidence=0.99, samples=1000, seconds=0.5, title="",
                expected={"verdict": "not-refuted", "reason": None, "footing": ""}),  # empty: missing
        _record(verdict="error", claim_id="mine/broken", error={"type": "RuntimeError", "message": "boom"}),
        _record(verdict="not-refuted", claim_id="mine/tail", paper="mine", statistic=Statistic(
            "exceedance", 0.02, (-math.inf, 0.05), "upper-bound"), confidence=0.95, samples=10),
    ]
    frame = results_frame(records)
    assert frame.loc[0, "bound"] == math.inf and pd.isna(frame.loc[0, "id"]) and pd.isna(frame.loc[0, "suite"])
    assert frame.loc[0, ["title", "footing"]].isna().all()
    assert frame.loc[1, "suite"] == "mine" and frame.loc[1, "outcome"] == "error"
    assert frame.loc[1, ["statistic", "kind"]].isna().all() and frame.loc[1, ["estimate", "bound", "confidence"]
                                                                          ].isna().all()
    assert frame.loc[2, "bound"] == 0.05  # an upper bound certifies the interval's upper end
    from io import StringIO

    assert all(pd.api.types.is_string_dtype(frame[name]) for name in TEXT)  # "title", "footing": all missing
    read = pd.read_csv(StringIO(results_csv(frame)), dtype=RESULT_DTYPES)
    pd.testing.assert_frame_equal(read, frame)


def test_the_reports_tables_are_the_frames_counts(tiny_run):
    """summary_frame and outcome_counts, which the reports' "claims by paper" table and outcome line show: on a run
    with a pass, a finding and a refutation not reproduced, and on hand-made records of two suites, one without a
    suite (an API record) and verdicts no suite has, against counts made by hand."""
    frame = tiny_run.to_frame()
    table = summary_frame(frame)
    assert list(table.columns) == list(SUMMARY_COLUMNS) and all(table[c].dtype == np.int64 for c in table)
    assert table.loc["classic"].to_dict() == {"claims": 1, "verified": 1, "refuted": 0, "not-refuted": 0,
                                              "error": 0, "unexpected": 0}
    assert table.loc["testing-refutations"].to_dict() == {"claims": 2, "verified": 1, "refuted": 1,
                                                          "not-refuted": 0, "error": 0, "unexpected": 1}
    assert outcome_counts(frame) == {"pass": 1, "expected-refutation": 1, "unexpected-refutation": 0,
                                     "not-reproduced": 1, "error": 0}

    records = [_record(verdict="error", claim_id="b/x", error={"type": "E", "message": "m"}),
               _record(verdict="refuted", claim_id="b/y", expected={"verdict": "not-refuted", "reason": None}),
               _record(verdict="refuted", claim_id="a/z", expected={"verdict": "refuted", "reason": "r"}),
               _record(verdict="verified")]
    frame = results_frame(records)
    table = summary_frame(frame)
    assert list(table.index) == ["", "a", "b"]  # sorted; the API record (no claim id) under ""
    assert table.loc["b"].tolist() == [2, 0, 1, 0, 1, 1] and table.loc["a"].tolist() == [1, 0, 1, 0, 0, 0]
    assert table.loc[""].tolist() == [1, 1, 0, 0, 0, 0]
    assert outcome_counts(frame) == {"pass": 1, "expected-refutation": 1, "unexpected-refutation": 1,
                                     "not-reproduced": 0, "error": 1}
    from dpaudit.reports.summary import outcome_counts as report_counts
    from dpaudit.reports.summary import summary_rows

    dicts = [r.to_dict() for r in records]
    assert summary_rows(dicts) == [(suite, row.to_dict()) for suite, row in table.iterrows()]
    assert report_counts(dicts) == outcome_counts(frame)


@pytest.mark.parametrize("case", ["file", "empty-folder", "no-records"])
def test_report_csv_on_bad_input_is_one_line(case, tmp_path, capsys):
    target = tmp_path / "run"
    if case == "file":
        target.write_text("not a folder")
    else:
        target.mkdir()
    if case == "no-records":
        (target / "results.json").write_text(json.dumps({"schema": "dpaudit.results", "schema_version": 2,
                                                         "run": {}, "records": []}))
    assert main(["report", str(target), "--format", "csv"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpaudit report: error:")
    assert {"file": "is a file", "empty-folder": "results.json does not exist",
            "no-records": "has no records"}[case] in err
    assert not (target.with_name("results.csv")).exists() and not (tmp_path / "run" / "results.csv").exists()


def test_csv_does_not_go_with_compare(tiny_run, capsys):
    assert main(["report", "--compare", str(tiny_run.out), str(tiny_run.out), "--format", "csv"]) == 2
    assert "--format csv" in capsys.readouterr().err


def test_simulation_frame_is_tidy_runs_by_rounds_by_algorithms():
    env = BernoulliBandit([0.6, 0.5])
    results = [dpaudit.simulate(ALGORITHMS[name](), env, horizon=60, runs=3, seed=0, grid=[5, 20, 60])
               for name in ("ucb", "se")]
    frame = pd.concat([r.to_frame() for r in results], ignore_index=True)
    assert list(frame.columns) == ["algorithm", "run", "round", "pseudo_regret", "regret"]
    assert frame.shape == (3 * 3 * 2, 5)  # runs x recorded rounds x algorithms
    assert (frame["run"].dtype, frame["round"].dtype) == (np.int64, np.int64)
    assert frame["pseudo_regret"].dtype == frame["regret"].dtype == np.float64
    assert pd.api.types.is_string_dtype(frame["algorithm"])
    assert not frame.duplicated(["algorithm", "run", "round"]).any()
    for res in results:
        mine = frame[frame["algorithm"] == res.algorithm]
        wide = mine.pivot(index="run", columns="round", values="pseudo_regret")
        np.testing.assert_array_equal(wide.to_numpy(), res.pseudo_regret)
        np.testing.assert_array_equal(wide.columns.to_numpy(), res.grid)
        np.testing.assert_array_equal(mine.pivot(index="run", columns="round", values="regret").to_numpy(),
                                      res.regret)
