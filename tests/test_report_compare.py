"""``dpaudit report --compare OLD_DIR NEW_DIR``: what changed between two runs, and its exit codes.

The two runs are real runs of one small suite written twice, the second with some mechanisms and
expectations changed. Every entry is audited by the exact auditor, so each verdict is deterministic
(no false-failure rate to state).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dpaudit.cli import main
from dpaudit.reports.compare import Run, compare_runs, load_run, moved_materially
from dpaudit.runner import RunOptions, run

SUITE = '''
from dpaudit import PureDP
from dpaudit.mechanisms import AdditiveNoiseMechanism, Laplace
from dpaudit.suite import Suite

suite = Suite("testing-compare", "a suite whose second version changes some claims")


def raises(data, size, rng):
    raise RuntimeError("broken on purpose")


def entry(name, scale, expected="not-refuted"):
    reason = "scale below 1" if expected == "refuted" else None
    footing = "as printed" if expected == "refuted" else None
    suite.privacy("testing-compare/" + name, subject=AdditiveNoiseMechanism(Laplace(scale)), claim=PureDP(1.0),
                  pairs=[(0, 1)], auditor="exact", expected=expected, reason=reason, footing=footing)

'''

# name: (old scale, old expectation), (new scale, new expectation); None = not in that run. Laplace noise of
# scale s on a sensitivity-1 count is exactly (1/s)-DP, so a scale below 1 refutes PureDP(1).
CLAIMS = {
    "stable": ((1.0, "not-refuted"), (1.0, "not-refuted")),
    "fixed": ((0.5, "not-refuted"), (1.0, "not-refuted")),  # unexpected refutation -> pass
    "breaks": ((1.0, "not-refuted"), (0.5, "not-refuted")),  # pass -> unexpected refutation
    "found": ((1.0, "not-refuted"), (0.5, "refuted")),  # pass -> finding
    "lost": ((0.5, "refuted"), (1.0, "refuted")),  # finding -> not reproduced
    "sharper@eps4": ((0.5, "refuted"), (0.25, "refuted")),  # a finding both times; epsilon 2 -> 4
    "removed": ((1.0, "not-refuted"), None),
    "added": (None, (0.5, "refuted")),  # a finding new to the run
    "crashes": ((1.0, "not-refuted"), "raises"),  # pass -> error
}


def _suite_file(folder: Path, version: int) -> Path:
    lines = [SUITE]
    for name, sides in CLAIMS.items():
        side = sides[version]
        if side == "raises":
            lines.append(f'suite.privacy("testing-compare/{name}", subject=raises, claim=PureDP(1.0), pairs=[(0, 1)], '
                         'auditor="statistical")')
        elif side is not None:
            lines.append(f"entry({name!r}, {side[0]}, {side[1]!r})")
    path = folder / f"compare_suite_v{version}.py"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("compare")
    outs = []
    for version, name in enumerate(("old", "new")):
        out = folder / name
        run(RunOptions(selectors=["testing-compare"], out=out, workers=0,
                       suite_paths=[str(_suite_file(folder, version))], progress_bar=False))
        outs.append(out)
    return outs[0], outs[1]


@pytest.fixture(scope="module")
def comparison(runs):
    return compare_runs(load_run(runs[0]), load_run(runs[1]))


def ids(changes) -> list[str]:
    return [c.claim_id.removeprefix("testing-compare/") for c in changes]


@pytest.mark.slow
def test_the_runs_have_the_outcomes_the_suite_sets_up(comparison):
    outcomes = {key.removeprefix("testing-compare/"): r.outcome for key, r in comparison.new.records.items()}
    assert outcomes == {"stable": "pass", "fixed": "pass", "breaks": "unexpected-refutation",
                        "found": "expected-refutation", "lost": "not-reproduced",
                        "sharper@eps4": "expected-refutation", "added": "expected-refutation", "crashes": "error"}


def test_each_section_lists_its_claims(comparison):
    assert comparison.compared == 7
    assert ids(comparison.only_old) == ["removed"]
    assert ids(comparison.only_new) == ["added"]
    assert ids(comparison.moved) == ["breaks", "crashes", "fixed", "found", "lost"]
    assert ids(comparison.new_findings) == ["added", "found"]
    assert ids(comparison.lost_findings) == ["lost"]
    assert ids(comparison.newly_failing) == ["breaks", "crashes", "lost"]
    assert ids(comparison.statistics_moved) == ["sharper@eps4"]
    sharper = comparison.statistics_moved[0]
    assert (sharper.old.certified, sharper.new.certified) == pytest.approx((2.0, 4.0))
    assert comparison.warnings() == []  # same seed, budget, alpha and version
    assert comparison.exit_code == 1


def test_a_moved_verdict_shows_both_verdicts_and_outcomes(comparison):
    fixed = next(c for c in comparison.moved if c.claim_id.endswith("/fixed"))
    assert (fixed.old.verdict, fixed.old.outcome) == ("refuted", "unexpected-refutation")
    assert (fixed.new.verdict, fixed.new.outcome) == ("verified", "pass")


def test_text_has_the_headline_then_only_non_empty_sections(runs, capsys):
    assert main(["report", "--compare", str(runs[0]), str(runs[1])]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == ("5 verdicts moved, 2 new findings, 1 lost, 3 newly failing "
                        "(7 claims in both runs, 1 only in the old run, 1 only in the new run)")
    assert "  testing-compare/fixed: unexpected-refutation (refuted) -> pass (verified)" in lines
    assert "  testing-compare/crashes: pass (verified) -> error (error)" in lines
    assert "  testing-compare/sharper@eps4: certified 2 -> 4 (epsilon in [2, 2] (exact) -> epsilon in [4, 4] (exact))" \
        in lines
    assert out.index("Newly failing (3):") < out.index("Verdicts moved (5):") < out.index("Only in the new run (1):")


def test_the_same_run_twice_is_exit_0_and_prints_the_headline_only(runs, capsys):
    assert main(["report", "--compare", str(runs[0]), str(runs[0])]) == 0
    headline = "0 verdicts moved, 0 new findings, 0 lost, 0 newly failing (8 claims in both runs)"
    assert capsys.readouterr().out == headline + "\n"


def _write(folder: Path, document: dict) -> Path:
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(document))
    return folder


def _document(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text())


def test_improvements_alone_are_exit_0(runs, tmp_path, capsys):
    """The old run with only its unexpected refutation fixed (the new run's real record of it)."""
    improved = _document(runs[0])
    fixed = next(r for r in _document(runs[1])["records"] if r["claim_id"].endswith("/fixed"))
    improved["records"] = [fixed if r["claim_id"] == fixed["claim_id"] else r for r in improved["records"]]
    assert main(["report", "--compare", str(runs[0]), str(_write(tmp_path / "improved", improved))]) == 0
    assert capsys.readouterr().out.startswith("1 verdict moved, 0 new findings, 0 lost, 0 newly failing")


def test_claims_match_by_full_id_ignoring_case(runs):
    old = _document(runs[0])
    renamed = json.loads(json.dumps(old))
    for record in renamed["records"]:
        record["claim_id"] = record["claim_id"].upper()
    comparison = compare_runs(Run.from_document(old, "old"), Run.from_document(renamed, "new"))
    assert comparison.compared == len(old["records"]) and not comparison.moved and not comparison.only_new
    other_point = json.loads(json.dumps(old))
    for record in other_point["records"]:
        record["claim_id"] = record["claim_id"].replace("@eps4", "@eps8")
    comparison = compare_runs(Run.from_document(old, "old"), Run.from_document(other_point, "new"))
    assert ids(comparison.only_old) == ["sharper@eps4"] and ids(comparison.only_new) == ["sharper@eps8"]


def test_runs_with_other_settings_are_compared_but_flagged(runs, tmp_path, capsys):
    other = _document(runs[0])
    other["run"].update(seed=7, budget="standard")
    other["dpaudit_version"] = "0.0.1"
    assert main(["report", "--compare", str(runs[0]), str(_write(tmp_path / "other", other))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:4] == [
        "warning: the runs differ in seed: 0 (old) vs 7 (new); verdicts may move for this reason alone",
        "warning: the runs differ in budget: 'quick' (old) vs 'standard' (new); verdicts may move for this reason "
        "alone",
        f"warning: the runs differ in dpaudit version: {_document(runs[0])['dpaudit_version']!r} (old) vs '0.0.1' "
        "(new)",
    ]


def test_json_output_to_a_file(runs, tmp_path, capsys):
    target = tmp_path / "changes" / "comparison.json"
    assert main(["report", "--compare", str(runs[0]), str(runs[1]), "--format", "json", "--out", str(target)]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("5 verdicts moved") and printed[-1] == f"Comparison: {target}"
    document = json.loads(target.read_text())
    assert document["exit_code"] == 1 and document["compared"] == 7
    assert document["old"]["seed"] == document["new"]["seed"] == 0
    assert [c["claim_id"] for c in document["newly_failing"]] == [
        "testing-compare/breaks", "testing-compare/crashes", "testing-compare/lost"]
    lost = document["lost_findings"][0]
    assert lost["old"]["outcome"] == "expected-refutation" and lost["new"]["outcome"] == "not-reproduced"
    assert document["only_old"][0]["new"] is None
    assert document["statistics_moved"][0]["new"]["certified"] == pytest.approx(4.0)


def test_markdown_output(runs, capsys):
    assert main(["report", "--compare", str(runs[0]), str(runs[1]), "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert "**5 verdicts moved, 2 new findings, 1 lost, 3 newly failing" in out
    assert "## Lost findings (1)" in out
    assert "| `testing-compare/lost` | expected-refutation (refuted) -> not-reproduced (verified) |" in out


def test_an_infinite_certified_value_is_written_as_json_writes_it(runs, tmp_path, capsys):
    infinite = _document(runs[1])
    for record in infinite["records"]:
        if record["claim_id"].endswith("/sharper@eps4"):
            record["epsilon_lower"] = "inf"
    assert main(["report", "--compare", str(runs[1]), str(_write(tmp_path / "inf", infinite)), "--format", "json"]) == 0
    moved = json.loads(capsys.readouterr().out)["statistics_moved"]
    assert [(c["old"]["certified"], c["new"]["certified"]) for c in moved] == [(4.0, "inf")]


def test_material_movement():
    assert not moved_materially(2.0, 2.1) and moved_materially(2.0, 2.5)
    assert moved_materially(None, 1.0) and not moved_materially(None, None)
    assert moved_materially(1.0, float("inf")) and not moved_materially(float("inf"), float("inf"))


@pytest.mark.parametrize("damage", ["missing-folder", "no-results", "truncated", "bad-verdict", "twice", "not-results"])
def test_bad_input_is_one_line_naming_the_file_and_exit_2(runs, tmp_path, capsys, damage):
    bad = tmp_path / "bad"
    if damage != "missing-folder":
        bad.mkdir()
    text = (runs[1] / "results.json").read_text()
    document = json.loads(text)
    if damage == "truncated":
        text = text[: len(text) // 2]
    elif damage == "bad-verdict":
        document["records"][0]["verdict"] = "maybe"
        text = json.dumps(document)
    elif damage == "twice":
        document["records"].append(document["records"][0])
        text = json.dumps(document)
    elif damage == "not-results":
        text = json.dumps({"records": []})
    if damage not in ("missing-folder", "no-results"):
        (bad / "results.json").write_text(text)
    assert main(["report", "--compare", str(runs[0]), str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpaudit report: error: ") and str(bad) in lines[0]


def test_runs_that_share_no_claim_are_refused_in_one_line(runs, tmp_path, capsys):
    """Not "9 newly failing": two runs with no claim in common (another suite's run, say) are not comparable."""
    document = json.loads((runs[1] / "results.json").read_text())
    for record in document["records"]:
        record["claim_id"] = record["claim_id"].replace("testing-compare/", "other-suite/")
    other = tmp_path / "other"
    other.mkdir()
    (other / "results.json").write_text(json.dumps(document))
    assert main(["report", "--compare", str(runs[0]), str(other)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith(f"dpaudit report: error: {runs[0] / 'results.json'} and {other / 'results.json'} "
                                   "share no claim (8 claims of testing-compare; 8 claims of other-suite)")
    with pytest.raises(ValueError, match="share no claim"):
        compare_runs(load_run(runs[0]), load_run(other))
    # one claim in common is enough: compared, the rest listed as only in one run
    document["records"][0]["claim_id"] = "testing-compare/stable"
    (other / "results.json").write_text(json.dumps(document))
    comparison = compare_runs(load_run(runs[0]), load_run(other))
    assert comparison.compared == 1 and "(1 claim in both runs, 7 only in the old run, 7 only in the new run)" in \
        comparison.headline()


@pytest.mark.parametrize("argv", [
    ["report", "OLD", "--compare", "OLD", "NEW"],
    ["report"],
    ["report", "OLD", "--format", "json"],
])
def test_bad_options_are_exit_2(argv, capsys):
    assert main(argv) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_out_naming_a_folder_is_exit_2(runs, tmp_path, capsys):
    assert main(["report", "--compare", str(runs[0]), str(runs[1]), "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_help_documents_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    out = capsys.readouterr().out
    assert "--compare OLD_DIR NEW_DIR" in out
    assert "0 nothing got worse; 1 a claim newly fails" in out


def test_rerendering_a_run_still_works(runs, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(runs[0], copy)
    (copy / "report.md").unlink()
    assert main(["report", str(copy)]) == 0
    assert (copy / "report.md").is_file()


def test_a_finding_left_out_of_the_new_run_is_not_lost_and_a_bound_without_a_statistic_is_compared(runs):
    """The comparison reads the two runs' joined frames: a finding only in the old run (a selection left it out)
    is listed as only in the old run, never as lost; and records that certify an epsilon without carrying a
    statistic (an API record, say) in both runs still have that epsilon compared."""
    old, new = _document(runs[0]), _document(runs[1])
    selected = {**new, "records": [r for r in new["records"] if not r["claim_id"].endswith("/sharper@eps4")]}
    comparison = compare_runs(Run.from_document(old, "old"), Run.from_document(selected, "new"))
    assert ids(comparison.only_old) == ["removed", "sharper@eps4"]
    assert ids(comparison.lost_findings) == ["lost"]

    def bare(document):
        records = [{**r, "statistic": None} if r["claim_id"].endswith("/sharper@eps4") else r
                   for r in document["records"]]
        return {**document, "records": records}

    comparison = compare_runs(Run.from_document(bare(old), "old"), Run.from_document(bare(new), "new"))
    sharper = [c for c in comparison.statistics_moved if c.claim_id.endswith("/sharper@eps4")]
    assert len(sharper) == 1 and sharper[0].old.statistic is None
    assert (sharper[0].old.certified, sharper[0].new.certified) == (2.0, 4.0)


def test_a_refutation_outside_the_hypotheses_is_labelled_and_is_no_finding(runs, tmp_path, capsys):
    """The same expected refutation, relabelled as outside its statement's hypotheses: it moves (the label changed),
    it is a lost finding (it no longer refutes the statement), and the text says which label it carries now."""
    old = _document(runs[1])
    new = json.loads(json.dumps(old))
    record = next(r for r in new["records"] if r["claim_id"].endswith("/found"))
    record["expected"].update(footing="hypothesis not met", hypothesis="stated for sensitivity 1 only")
    comparison = compare_runs(Run.from_document(old, "old"), Run.from_document(new, "new"))
    assert ids(comparison.moved) == ["found"] and ids(comparison.lost_findings) == ["found"]
    assert not comparison.new_findings and not comparison.newly_failing
    assert comparison.moved[0].new.label == "hypothesis-not-met" and comparison.moved[0].old.label == \
        "expected-refutation"
    assert main(["report", "--compare", str(runs[1]), str(_write(tmp_path / "relabelled", new))]) == 0
    out = capsys.readouterr().out
    assert "testing-compare/found: expected-refutation (refuted) -> hypothesis-not-met (refuted)" in out
    # and back: relabelled in the old run, a finding again in the new one
    comparison = compare_runs(Run.from_document(new, "old"), Run.from_document(old, "new"))
    assert ids(comparison.new_findings) == ["found"] and ids(comparison.moved) == ["found"]
