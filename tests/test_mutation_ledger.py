"""The mutation ledger of tools/mutation/record.py: mutants keyed by their content (function, mutmut's hash of
its source, diff) rather than their number; explanations of equivalent mutants attached by diff; mutmut seeded
with the ledger's statuses only where the key and the tests match. Pure functions on small data: no mutmut run
(mutmut itself is only needed by the test of its exit codes)."""

from __future__ import annotations

import importlib.util
import json
import sys
import tomllib
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "tools" / "mutation" / "record.py"


def _load():
    spec = importlib.util.spec_from_file_location("mutation_record", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


record = _load()

DIFF = "-    return a < b\n+    return a <= b"
OTHER = "-    return a < b\n+    return a > b"
CODES = {"killed": 1, "survived": 0, "timeout": 36, "no tests": 33}.get  # as mutmut's status_by_exit_code has them
WORDS = {1: "killed", 0: "survived", 36: "timeout", None: "not checked"}.get


def key(name: str, function_hash: str = "abc123def456", diff: str = DIFF) -> str:
    return record.ledger_key(record.split_name(name)[1], function_hash, diff)


def test_names_split_into_module_and_mangled_function():
    assert record.split_name("dpaudit.auditors.bounds.x_certify__mutmut_3") == ("dpaudit.auditors.bounds",
                                                                                 "x_certify")
    assert record.split_name("dpaudit.exact.loss.xǁLossRangeǁ__add____mutmut_12") == ("dpaudit.exact.loss",
                                                                                      "xǁLossRangeǁ__add__")


def test_the_key_ignores_the_number_and_the_module_but_not_the_source_or_the_diff():
    base = key("dpaudit.stats.x_tail__mutmut_3")
    assert key("dpaudit.stats.x_tail__mutmut_41") == base  # renumbered
    assert key("dpaudit.exact.moved.x_tail__mutmut_3") == base  # moved to another module
    assert key("dpaudit.stats.x_head__mutmut_3") != base  # another function
    assert key("dpaudit.stats.x_tail__mutmut_3", function_hash="abc123def457") != base  # the function changed
    assert key("dpaudit.stats.x_tail__mutmut_3", diff=OTHER) != base  # another mutation


def test_mutants_of_one_function_with_the_same_diff_are_told_apart_in_mutmuts_order():
    # a line the function has twice, mutated at each place: the same -/+ lines
    diffs = {"m.x_f__mutmut_2": DIFF, "m.x_f__mutmut_3": OTHER, "m.x_f__mutmut_5": DIFF}
    keys = record.ledger_keys([(n, "x_f", "h") for n in diffs], diffs)
    assert len(set(keys.values())) == 3
    assert keys["m.x_f__mutmut_2"] == record.ledger_key("x_f", "h", DIFF)
    moved = {"m.x_f__mutmut_9": DIFF, "m.x_f__mutmut_10": DIFF}  # renumbered: 9 comes before 10
    again = record.ledger_keys([(n, "x_f", "h") for n in moved], moved)
    assert again == {"m.x_f__mutmut_9": keys["m.x_f__mutmut_2"], "m.x_f__mutmut_10": keys["m.x_f__mutmut_5"]}


def test_the_tests_hash_is_of_the_set_of_node_ids():
    assert record.tests_hash(["b::t", "a::t"]) == record.tests_hash(["a::t", "b::t"])
    assert record.tests_hash(["a::t"]) != record.tests_hash(["a::t", "b::t"])
    assert record.tests_hash([]) is not None and record.tests_hash(None) is None


def test_an_explanation_attaches_by_diff_after_renumbering_and_not_to_another_diff():
    entry = record.Explanation("m.x_f__mutmut_3", "mutant", "why", DIFF)
    # the function changed: the explained mutant is number 4 now, and number 3 is another mutation
    diffs = {"m.x_f__mutmut_3": OTHER, "m.x_f__mutmut_4": DIFF, "m.x_g__mutmut_4": DIFF, "n.x_f__mutmut_4": DIFF}
    matches = record.match_explanations([entry], diffs)
    assert matches.reasons == {"m.x_f__mutmut_4": "why"}
    assert matches.matched == {"m.x_f__mutmut_3": ["m.x_f__mutmut_4"]}
    assert not matches.stale and not matches.ambiguous and not matches.by_name
    accepted = record.match_explanations([record.Explanation("m.x_f__mutmut_3", "accepted", "left", DIFF)], diffs)
    assert accepted.accepted == {"m.x_f__mutmut_4": "left"} and not accepted.reasons


def test_an_explanation_whose_diff_is_gone_is_stale_and_one_matching_twice_is_ambiguous_unless_it_says_so():
    gone = record.match_explanations([record.Explanation("m.x_f__mutmut_3", "mutant", "why", DIFF)],
                                     {"m.x_f__mutmut_3": OTHER, "m.x_g__mutmut_1": DIFF})
    assert gone.stale == ["m.x_f__mutmut_3"] and not gone.reasons
    twice = {"m.x_f__mutmut_3": DIFF, "m.x_f__mutmut_8": DIFF}
    one = record.match_explanations([record.Explanation("m.x_f__mutmut_3", "mutant", "why", DIFF)], twice)
    assert one.ambiguous == ["m.x_f__mutmut_3"] and not one.reasons
    both = record.match_explanations([record.Explanation("m.x_f__mutmut_3", "mutant", "why", DIFF, count=2)], twice)
    assert set(both.reasons) == set(twice) and not both.ambiguous


def test_an_explanation_without_a_diff_falls_back_to_its_name():
    matches = record.match_explanations([record.Explanation("m.x_f__mutmut_3", "mutant", "why")],
                                        {"m.x_f__mutmut_3": OTHER})
    assert matches.reasons == {"m.x_f__mutmut_3": "why"} and matches.by_name == ["m.x_f__mutmut_3"]


def test_seeding_writes_an_exit_code_only_where_the_key_and_the_tests_match():
    tests = record.tests_hash(["tests/test_a.py::test_one"])
    ledger = {key("m.x_f__mutmut_1"): {"status": "killed", "tests": tests},
              key("m.x_f__mutmut_1", diff=OTHER): {"status": "survived", "tests": None},
              key("m.x_g__mutmut_1"): {"status": "timeout", "tests": record.tests_hash(["tests/test_b.py::t"])},
              key("m.x_h__mutmut_1"): {"status": "no tests", "tests": None}}

    def row(name, diff=DIFF, code=None, tested=tests, function_hash="abc123def456"):
        return record.Row(name, "m.py", key(name, function_hash, diff), code, tested)

    rows = [row("m.x_f__mutmut_7"),                           # renumbered, same key and tests: seeded
            row("m.x_f__mutmut_8", diff=OTHER),               # the entry does not know its tests: seeded
            row("m.x_g__mutmut_1"),                           # other tests now: tested again
            row("m.x_f__mutmut_9", function_hash="ffffffffffff"),  # the function changed: not in the ledger
            row("m.x_f__mutmut_10", code=0),                  # mutmut has a result: left alone
            row("m.x_h__mutmut_1")]                           # "no tests": mutmut finds it without running
    assert record.seed_plan(rows, ledger, True, CODES) == {"m.x_f__mutmut_7": 1, "m.x_f__mutmut_8": 0}
    # no map of tests yet (a fresh clone): the key alone
    assert record.seed_plan(rows, ledger, False, CODES) == {"m.x_f__mutmut_7": 1, "m.x_f__mutmut_8": 0,
                                                            "m.x_g__mutmut_1": 36}


def test_the_ledger_keeps_results_drops_what_its_modules_no_longer_make_and_reads_back():
    old = {key("m.x_gone__mutmut_1"): {"status": "killed", "name": "m.x_gone__mutmut_1", "module": "m.py",
                                       "tests": None, "source": "run"},
           key("n.x_elsewhere__mutmut_1"): {"status": "killed", "name": "n.x_elsewhere__mutmut_1",
                                            "module": "n.py", "tests": None, "source": "run"},
           key("m.x_f__mutmut_1"): {"status": "survived", "name": "m.x_f__mutmut_1", "module": "m.py",
                                    "tests": None, "source": "record abc"}}
    rows = [record.Row("m.x_f__mutmut_2", "m.py", key("m.x_f__mutmut_2"), 0, "t1"),  # seeded, kept as it was
            record.Row("m.x_f__mutmut_3", "m.py", key("m.x_f__mutmut_3", diff=OTHER), 1, "t1", ran=True),
            record.Row("m.x_f__mutmut_4", "m.py", key("m.x_f__mutmut_4", diff="-x\n+y"), None, "t1")]
    new = record.updated_ledger(old, rows, ["m.py"], WORDS)
    assert set(new) == {key("m.x_f__mutmut_1"), key("m.x_f__mutmut_3", diff=OTHER),
                        key("n.x_elsewhere__mutmut_1")}
    assert new[key("m.x_f__mutmut_1")] == {"status": "survived", "name": "m.x_f__mutmut_2", "module": "m.py",
                                           "tests": None, "source": "record abc"}
    assert new[key("m.x_f__mutmut_3", diff=OTHER)]["status"] == "killed"
    assert new[key("m.x_f__mutmut_3", diff=OTHER)]["source"] == "run"
    text = record.format_ledger(new)
    assert record.format_ledger(dict(reversed(new.items()))) == text
    assert len(text.splitlines()) == len(new) + 2
    assert json.loads(text)["mutants"] == new


@pytest.mark.parametrize("diff", [DIFF, "-    s = 'it''s'\n+    s = \"XXit's\"", "-    x = '''a'''\n+    x = ''",
                                  "-    p = r'\\d+\\.'\n+    p = None", "-\tq = 'ǁ'\n+\tq = \"XXǁXX\"",
                                  "-    return f'{a}'\n+    return f'{a}X'"])
def test_diffs_round_trip_through_toml(diff):
    assert tomllib.loads(f"diff = {record.toml_string(diff)}")["diff"] == diff
    text = ('# a comment\n\n[mutant."m.x_f__mutmut_3"]\nreason = "why"\n\n'
            '[accepted."m.x_g__mutmut_1"]\nreason = "left"\n')
    back = tomllib.loads(record.with_diffs(text, {("mutant", "m.x_f__mutmut_3"): diff,
                                                  ("accepted", "m.x_g__mutmut_1"): OTHER}))
    assert back == {"mutant": {"m.x_f__mutmut_3": {"reason": "why", "diff": diff}},
                    "accepted": {"m.x_g__mutmut_1": {"reason": "left", "diff": OTHER}}}


def test_every_explanation_carries_a_diff_that_reads_back():
    for entry in record.explanations():
        assert entry.diff, f"{entry.name} has no diff: python tools/mutation/record.py fill-diffs"
        assert entry.diff.startswith(("-", "+")), entry.name


def test_a_record_lists_its_mutants_and_counts():
    text = ("| module | mutants | killed | survived | equivalent | no tests | timeout | not yet run | share |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n| m.py | 3 | 2 | 0 | 1 | 0 | 0 | 0 | 100.0% |\n"
            "| **all** | 3 | 2 | 0 | 1 | 0 | 0 | 0 | 100.0% |\n\n## Mutants not killed\n\n"
            "### `m.x_f__mutmut_3`: equivalent\n\nEquivalent: why\n\n```diff\n" + DIFF + "\n```\n")
    assert record.record_counts(text) == {"m.py": {"mutants": 3, "killed": 2, "survived": 0, "equivalent": 1,
                                                   "no tests": 0, "timeout": 0, "not yet run": 0}}
    assert record.record_listing(text) == {"m.x_f__mutmut_3": ("equivalent", DIFF)}


def test_a_record_is_imported_for_unchanged_functions_only_and_only_if_mutmut_makes_the_same_mutants():
    old = "def f(a, b):\n    return a < b\n\n\ndef g(a):\n    return a + 1\n"
    new = "def f(a, b):\n    return a < b\n\n\ndef g(a):\n    return a + 2\n"
    mutants = [record.Mutant(f"m.x_{f}__mutmut_{i}", "m.py", f"x_{f}", "h", None, False)
               for f in ("f", "g") for i in (1, 2)]
    diffs = {"m.x_f__mutmut_1": DIFF, "m.x_f__mutmut_2": OTHER}
    listing = {"m.x_f__mutmut_1": ("equivalent", DIFF)}
    counts = {"mutants": 4, "not yet run": 0}
    plan, _ = record.import_plan("m.py", counts, listing, old, new, mutants, diffs)
    assert plan == {"m.x_f__mutmut_1": "survived", "m.x_f__mutmut_2": "killed"}  # g changed: not imported
    moved, why = record.import_plan("m.py", counts, {"m.x_f__mutmut_1": ("equivalent", OTHER)}, old, new, mutants,
                                    diffs)
    assert moved == {} and "another diff" in why
    fewer, why = record.import_plan("m.py", {"mutants": 5, "not yet run": 0}, listing, old, old, mutants,
                                    {**diffs, "m.x_g__mutmut_1": "-a\n+b", "m.x_g__mutmut_2": "-a\n+c"})
    assert fewer == {} and "makes 4" in why
    unfinished, _ = record.import_plan("m.py", {"mutants": 4, "not yet run": 1}, listing, old, old, mutants, diffs)
    assert unfinished == {}
    # mutants/ made from another text of f than the source's (mutmut's hash of f differs): f is not imported
    older, _ = record.import_plan("m.py", counts, listing, old, old, mutants, diffs, {"x_f": "other", "x_g": "h"})
    assert set(older) == {"m.x_g__mutmut_1", "m.x_g__mutmut_2"}


def test_exit_codes_are_mutmuts():
    pytest.importorskip("mutmut")
    for status in ("killed", "survived", "timeout", "suspicious", "skipped", "segfault"):
        assert record.status_of(record.exit_code_of(status)) == status
    assert record.exit_code_of("killed") == 1 and record.exit_code_of("survived") == 0
    assert record.status_of(None) == "not checked"
    assert record.status_of(-9) == "timeout" and record.status_of(-11) == "segfault"  # -9: the CPU limit's SIGKILL


def test_the_installed_folders_link_exists_while_the_tool_runs_and_is_removed_after(tmp_path, monkeypatch):
    (tmp_path / "algorithms" / "online").mkdir(parents=True)
    (tmp_path / "algorithms" / "online" / "law.py").write_text("x = 1\n")
    (tmp_path / "dpaudit").mkdir()
    link = tmp_path / "dpaudit" / "algorithms"
    monkeypatch.setattr(record, "ROOT", tmp_path)
    monkeypatch.setattr(record, "INSTALLED_FOLDERS", {link: Path("..") / "algorithms"})
    with record.installed_folders():
        assert link.is_symlink() and (link / "online" / "law.py").read_text() == "x = 1\n"
    assert not link.exists() and not link.is_symlink()
    link.symlink_to(Path("..") / "algorithms")  # another command's (still running, or killed): used, left alone
    with record.installed_folders():
        assert link.is_symlink()
    assert link.is_symlink()
    link.unlink()
    with pytest.raises(RuntimeError), record.installed_folders():  # removed when the command fails, too
        assert link.is_symlink()
        raise RuntimeError
    assert not link.is_symlink()
    link.symlink_to(tmp_path)  # a link elsewhere, or a real folder, is refused and left alone
    with pytest.raises(SystemExit, match="links to"), record.installed_folders():
        pass
    assert link.is_symlink()
    link.unlink()
    link.mkdir()
    with pytest.raises(SystemExit, match="is not a link"), record.installed_folders():
        pass
    assert link.is_dir() and not link.is_symlink()


def test_the_mutated_modules_of_algorithms_are_configured_through_the_link():
    """pyproject's [tool.mutmut] names algorithms/'s mutated modules by the link's path, a source path of their
    own (mutmut's walk of dpaudit/ does not follow links), and the files exist under algorithms/."""
    config = tomllib.loads((PATH.parents[2] / "pyproject.toml").read_text())["tool"]["mutmut"]
    links = [str(link.relative_to(record.ROOT)) for link in record.INSTALLED_FOLDERS]
    assert links == ["dpaudit/algorithms"] and "dpaudit/algorithms" in config["source_paths"]
    laws = [p for p in config["only_mutate"] if p.startswith("dpaudit/algorithms/")]
    assert laws == ["dpaudit/algorithms/online/polytope_law.py", "dpaudit/algorithms/online/hybrid_law.py"]
    for path in laws:
        assert (record.ROOT / path.replace("dpaudit/", "", 1)).is_file()
    assert "tests/test_hybrid_ucb_exact_law.py" in config["pytest_add_cli_args_test_selection"]


def test_mutmut_runs_with_a_fixed_slow_sample(monkeypatch):
    """conftest seeds the slow tier's sample from HEAD unless DPAUDIT_SLOW_SEED is set: mutmut's runs set it, so
    that the tests mutmut maps to a function do not change with every commit."""
    seen = []

    def run(args, **kwargs):
        seen.append(kwargs["env"])
        return record.subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(record.subprocess, "run", run)
    monkeypatch.delenv("DPAUDIT_SLOW_SEED", raising=False)
    record._mutmut("show", "x")
    assert seen[0]["DPAUDIT_SLOW_SEED"] == record.SLOW_SEED == "0"
    conftest = (PATH.parents[2] / "tests" / "conftest.py").read_text()
    assert 'os.environ.get("DPAUDIT_SLOW_SEED")' in conftest
