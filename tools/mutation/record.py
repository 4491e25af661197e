"""Mutation testing of dpaudit's statistical core, and its committed record.

    python tools/mutation/record.py run [--max-children N]   # mutmut run, then write the record
    python tools/mutation/record.py report                    # write the record from the last run
    python tools/mutation/record.py survivors PATTERN...     # the mutants not killed nor explained, with diffs
    python tools/mutation/record.py check PATTERN... [--tests NODE...]   # do these tests kill these mutants?

``run`` runs mutmut over the modules and tests configured in pyproject.toml's ``[tool.mutmut]``
(``dpaudit/stats.py``, ``dpaudit/auditors/``, ``dpaudit/exact/``; the tests of the statistical core).
mutmut copies the project into ``mutants/``, records which test reaches which function, and runs each
mutant against only those tests, forked from one process; it remembers its results, so a second run
re-tests only the functions that changed. ``report`` turns mutmut's results into
``docs/mutation/record.md``: per module, the mutants killed, survived, equivalent, not reached by any
test, and timed out, the share killed of those that are not equivalent, and for every mutant not
killed its diff with the reason it is equivalent (from ``tools/mutation/equivalent/``: one file per module,
``<module>.toml``, naming mutants, and ``patterns.toml``, classes of mutants matched on their diff) or the
word "survived". A survivor is a test to write, or an equivalence to explain in that file; a survivor that
differs from the original only where both are correct (an exact tie broken the other way, a rigorous bound
made tighter) is listed there under ``[accepted."..."]`` with why, and stays counted as survived.

``check`` answers "does my new test kill these survivors?" without touching mutmut's results, so it can run
while a long ``run`` goes on: for each mutant named (or matched by a glob, e.g.
``'dpaudit.auditors.exact_tail.x__audit_mgf_cgf__mutmut_*'``; by default only those not killed), it runs
the checkout's tests that mutmut found reaching the mutated function, plus those given with ``--tests``
(``--only`` runs just those), against ``mutants/``'s mutated copy of the sources, and prints killed or
survived. It reads the mutated sources mutmut generated last: after changing a module, ``run`` again
before checking its mutants. The record changes only when mutmut itself re-tests them
(``python -m mutmut run NAME...``). Like mutmut, it imports the tests once and forks a child per mutant.

The noise of the private policies is checked by its own sweep, ``tools/mutation/noise_sweep.py``
(the policies live in ``algorithms/`` and ``mechanisms/``, installed under ``dpaudit.``, which
mutmut's copy cannot stand in for).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fnmatch
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENT = Path(__file__).with_name("equivalent")
RECORD = ROOT / "docs" / "mutation" / "record.md"
STATUSES = ("killed", "survived", "equivalent", "no tests", "timeout", "suspicious", "skipped", "segfault",
            "not checked")


def _mutmut(*args: str, capture: bool = True) -> str:
    done = subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=ROOT, text=True,
                          capture_output=capture, check=False)
    if done.returncode not in (0, 1):  # mutmut exits 1 when mutants survive
        raise SystemExit(f"mutmut {' '.join(args)} failed ({done.returncode}):\n{(done.stderr or '')[-2000:]}")
    return done.stdout or ""


def results() -> dict[str, str]:
    """Every mutant's name and status, as ``mutmut results --all true`` prints them."""
    out = {}
    for line in _mutmut("results", "--all", "true").splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name:
            out[name] = status.strip()
    if not out:
        raise SystemExit("mutmut has no results: run `python tools/mutation/record.py run` first")
    return out


def equivalences(table: str = "mutant") -> dict[str, str]:
    """Mutant name -> why it is equivalent (behaves as the original on every input dpaudit can give it),
    from the per-module files of ``equivalent/`` (their ``[mutant."..."]`` entries).

    With ``table="accepted"``: the ``[accepted."..."]`` entries, survivors that are *not* equivalent but differ
    from the original only where both versions are correct (a tie at an exact float broken the other way, a
    rigorous bound that the mutant makes tighter): no test can ask for one of two right answers. They stay
    counted as survived; the record prints why each was left."""
    reasons = {}
    for path in sorted(EQUIVALENT.glob("*.toml")):
        for name, entry in tomllib.loads(path.read_text()).get(table, {}).items():
            if name in reasons:
                raise SystemExit(f"{path.name}: {name} is explained twice")
            reasons[name] = str(entry["reason"])
    return reasons


def patterns() -> list[tuple[re.Pattern, re.Pattern, str]]:
    """(removed line, added line, reason) of each class of equivalent mutants in ``equivalent/patterns.toml``."""
    path = EQUIVALENT / "patterns.toml"
    if not path.exists():
        return []
    table = tomllib.loads(path.read_text()).get("pattern", {})
    return [(re.compile(e["removed"]), re.compile(e["added"]), str(e["reason"])) for e in table.values()]


def pattern_reason(diff: str, rules: list[tuple[re.Pattern, re.Pattern, str]]) -> str | None:
    """The reason of the first pattern a one-line mutant's diff matches, or None."""
    removed = [line[1:].strip() for line in diff.splitlines() if line.startswith("-")]
    added = [line[1:].strip() for line in diff.splitlines() if line.startswith("+")]
    if len(removed) != 1 or len(added) != 1:
        return None
    for old, new, reason in rules:
        if old.fullmatch(removed[0]) and new.fullmatch(added[0]):
            return reason
    return None


def module_of(name: str) -> str:
    """dpaudit.auditors.bounds.x_certify__mutmut_3 -> dpaudit/auditors/bounds.py (a package's own functions:
    its __init__.py)."""
    path = name.rpartition(".")[0].replace(".", "/")
    return f"{path}/__init__.py" if (ROOT / path).is_dir() else f"{path}.py"


def diff_of(name: str) -> str:
    """The lines a mutant changes: read in this process from mutmut's index of the mutated file (a
    ``mutmut show`` per mutant would start mutmut and search every file for it)."""
    try:
        from mutmut.mutation.diff_apply import get_diff_for_mutant
    except ImportError:  # another mutmut layout: ask the command line
        diff = _mutmut("show", name)
    else:
        import os

        here = os.getcwd()
        os.chdir(ROOT)
        try:
            diff = get_diff_for_mutant(name, path=module_of(name))
        finally:
            os.chdir(here)
    return "\n".join(line for line in diff.splitlines()
                     if line.startswith(("-", "+")) and not line.startswith(("---", "+++")))


def write_record(statuses: dict[str, str], reasons: dict[str, str], accepted: dict[str, str]) -> str:
    # an explanation of a mutant mutmut no longer makes, or now kills, is stale: a test caught it, or the
    # function changed and its mutants were renumbered (the name may now point at another mutant)
    stale = sorted(name for name in set(reasons) | set(accepted) if statuses.get(name, "killed") == "killed")
    rules = patterns()
    rows = collections.defaultdict(collections.Counter)
    detail = []
    for name in sorted(statuses, key=_natural):
        status, reason, diff = statuses[name], reasons.get(name, ""), ""
        if status not in ("killed", "not checked"):
            diff = diff_of(name)
            if status == "survived" and not reason:
                reason = pattern_reason(diff, rules) or ""
            if status == "survived" and reason:
                status = "equivalent"
            elif status == "survived" and name in accepted:
                reason = accepted[name]
        rows[module_of(name)][status] += 1
        if status not in ("killed", "not checked"):
            detail.append((name, status, reason, diff))
    total = collections.Counter()
    for counts in rows.values():
        total.update(counts)
    lines = ["# Mutation record", "",
             "Made by `python tools/mutation/record.py run` (mutmut over the modules in pyproject.toml's "
             "`[tool.mutmut]`); do not edit by hand: equivalences (and survivors left where both versions are "
             "correct) are explained in `tools/mutation/equivalent/`.",
             "",
             "| module | mutants | killed | survived | equivalent | no tests | timeout | not yet run "
             "| killed of non-equivalent run |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for module, counts in sorted(rows.items()):
        lines.append(_row(module, counts))
    summary = _row("**all**", total)
    lines.append(summary)
    lines += ["", "Statuses: *killed*, a test failed; *survived*, every test reaching the function passed (a test "
              "to write, unless listed below as *left*: it differs from the original only where both are correct, "
              "and stays counted as survived); *equivalent*, survived and explained below as behaving like the "
              "original; *no tests*, no test of the selection reaches the function (counted as not killed); "
              "*timeout*, the tests ran over mutmut's limit (an infinite loop: counted as killed, and listed "
              "below); *not yet run*, mutmut has "
              "not tested it yet (a run was stopped: `record.py run` resumes it), left out of the share.", ""]
    if stale:
        lines += ["Explanations naming mutants mutmut no longer makes or now kills (a test caught them, or the code "
                  "moved and renumbered them: re-check them): "
                  + ", ".join(f"`{s}`" for s in stale), ""]
    by_function = collections.Counter(_function_of(name) for name, status, _, _ in detail
                                      if status == "survived" and name not in accepted)
    if by_function:
        lines += ["## Survivors by function", "", "Not counting the survivors left where both versions are correct.",
                  "", "| function | survived |", "|---|---:|"]
        lines += [f"| `{function}` | {count} |" for function, count in by_function.most_common()]
        lines += [""]
    lines += ["## Mutants not killed", ""]
    for name, status, reason, body in detail:
        lines += [f"### `{name}`: {status}", ""]
        if reason and status == "equivalent":
            lines += [f"Equivalent: {reason}", ""]
        elif reason:
            lines += [f"Left (not equivalent; both versions correct): {reason}", ""]
        lines += ["```diff", body, "```", ""]
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text("\n".join(lines).rstrip() + "\n")
    return summary


def _row(module: str, counts: collections.Counter) -> str:
    """A table row; the share counts a timeout as killed (the tests did not pass) and a mutant no test
    reaches as not killed."""
    mutants = sum(counts.values())
    non_equivalent = mutants - counts["equivalent"] - counts["skipped"] - counts["not checked"]
    detected = counts["killed"] + counts["timeout"]
    share = f"{detected / non_equivalent:.1%}" if non_equivalent else "—"
    return (f"| {module} | {mutants} | {counts['killed']} | {counts['survived']} | {counts['equivalent']} | "
            f"{counts['no tests']} | {counts['timeout']} | {counts['not checked']} | {share} |")


def _function_of(name: str) -> str:
    """dpaudit.auditors.bounds.x_certify__mutmut_3 -> dpaudit/auditors/bounds.py: certify (a method as
    Class.method)."""
    mangled = name.rpartition(".")[2].rpartition("__mutmut_")[0]
    function = mangled[2:] if mangled.startswith("x_") else mangled.replace("xǁ", "", 1).replace("ǁ", ".")
    return f"{module_of(name)}: {function}"


def _natural(name: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def mapped_tests(name: str) -> list[str]:
    """The tests mutmut found reaching a mutant's function (node ids relative to the checkout)."""
    stats = json.loads((ROOT / "mutants" / "mutmut-stats.json").read_text())
    return sorted(stats["tests_by_mangled_function_name"].get(name.rpartition("__mutmut_")[0], ()))


def _matching(statuses: dict[str, str], globs: list[str]) -> list[str]:
    return [n for n in sorted(statuses, key=_natural) if any(fnmatch.fnmatchcase(n, g) for g in globs)]


def survivors(globs: list[str]) -> None:
    """Print the matching mutants mutmut has not killed and no equivalence explains, each with its diff, and a
    count of the matching mutants by status (``not checked``: a run has not reached them yet)."""
    statuses, explained, rules, accepted = results(), equivalences(), patterns(), equivalences("accepted")
    names = _matching(statuses, globs)
    counts = collections.Counter()
    for name in names:
        status = statuses[name]
        if status in ("killed", "not checked", "timeout"):
            counts[status] += 1
            continue
        diff = diff_of(name)
        if status == "survived" and (name in explained or pattern_reason(diff, rules)):
            counts["equivalent"] += 1
            continue
        if status == "survived" and name in accepted:
            counts["survived, left where both versions are correct"] += 1
            continue
        counts[status] += 1
        print(f"## {name}: {status}\n{diff}")
    print(f"# {len(names)} mutants: " + ", ".join(f"{n} {s}" for s, n in counts.most_common()))


def _warm(tests: list[str]) -> None:
    """Import pytest, mutants/'s mutated dpaudit and the test modules once in this process: each mutant then runs
    in a child forked from it, as mutmut runs them, instead of paying the imports again."""
    os.chdir(ROOT / "mutants")
    sys.path.insert(0, str(ROOT / "mutants"))  # its mutated dpaudit comes before the checkout's
    import pytest

    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *tests])


def _start(name: str, tests: list[str], log: Path) -> int:
    """Fork a child that runs ``tests`` with mutant ``name`` active, its output in ``log``; its pid."""
    pid = os.fork()
    if pid:
        return pid
    code = 3
    try:
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.environ["MUTANT_UNDER_TEST"] = name
        import pytest

        code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "--no-header", "-rN", *tests]))
    finally:
        os._exit(code)


def check(globs: list[str], tests: list[str], only: bool, every: bool, jobs: int, timeout: float) -> int:
    """Run each matching mutant against the checkout's tests; print its fate; return how many survived."""
    statuses, explained = results(), {**equivalences(), **equivalences("accepted")}
    names = [n for n in _matching(statuses, globs) if every or (statuses[n] != "killed" and n not in explained)]
    if not names:
        raise SystemExit(f"no mutant{'' if every else ' not killed or explained'} matches {' '.join(globs)}")
    selected = {n: [str(ROOT / t) for t in (list(tests) if only else mapped_tests(n) + list(tests))] for n in names}
    union = sorted({t for chosen in selected.values() for t in chosen})
    _warm(sorted({t.partition("::")[0] for t in union}))
    survived, running, queue = 0, {}, [n for n in names]
    with tempfile.TemporaryDirectory() as logs:
        # every mutant would look killed by tests that fail without it (sources changed since mutmut generated
        # mutants/, or a test that fails anyway): the tests must pass on the unmutated code first
        baseline = Path(logs) / "baseline.log"
        _, status = os.waitpid(_start("", union, baseline), 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit("the tests do not pass on mutants/'s unmutated code (have its sources changed since "
                             "mutmut generated it? then `python -m mutmut run` the changed module first):\n"
                             + baseline.read_text(errors="replace").strip()[-2000:])
        while queue or running:
            while queue and len(running) < jobs:
                name = queue.pop(0)
                if not selected[name]:
                    print(f"{name}: no tests", flush=True)
                    continue
                log = Path(logs) / f"{len(running)}-{name[-40:]}.log"
                running[_start(name, selected[name], log)] = (name, time.monotonic() + timeout, log)
            time.sleep(0.05)
            for pid, (name, deadline, log) in list(running.items()):
                done, status = os.waitpid(pid, os.WNOHANG)
                if not done and time.monotonic() < deadline:
                    continue
                if not done:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    outcome = "timeout"
                else:
                    code = os.waitstatus_to_exitcode(status)
                    outcome = {0: "survived", 1: "killed"}.get(code) or (
                        f"error (pytest exit {code}): {log.read_text(errors='replace').strip()[-400:]}")
                del running[pid]
                survived += outcome == "survived"
                print(f"{name}: {outcome}", flush=True)
    print(f"{len(names) - survived} of {len(names)} killed (or not run: see above)")
    return survived


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("run", "report", "survivors", "check"))
    parser.add_argument("patterns", nargs="*", help="survivors, check: mutant names or globs")
    parser.add_argument("--max-children", type=int, default=None, help="mutants tested in parallel (default: cores)")
    parser.add_argument("--tests", nargs="+", default=[], help="check: tests (files or node ids) run as well")
    parser.add_argument("--only", action="store_true", help="check: run only the --tests, not mutmut's mapping")
    parser.add_argument("--all", action="store_true", help="check: killed mutants too")
    parser.add_argument("--jobs", type=int, default=1, help="check: mutants checked in parallel")
    parser.add_argument("--timeout", type=float, default=600.0, help="check: seconds per mutant")
    args = parser.parse_args()
    if args.command in ("survivors", "check") and not args.patterns:
        parser.error(f"{args.command} needs mutant names or globs")
    if args.command == "survivors":
        return survivors(args.patterns)
    if args.command == "check":
        raise SystemExit(1 if check(args.patterns, args.tests, args.only, args.all, args.jobs, args.timeout) else 0)
    if args.command == "run":
        extra = ["--max-children", str(args.max_children)] if args.max_children else []
        _mutmut("run", *extra, capture=False)
    summary = write_record(results(), equivalences(), equivalences("accepted"))
    print(f"{RECORD.relative_to(ROOT)}: {summary}")


if __name__ == "__main__":
    main()
