"""Mutation testing of dpaudit's statistical core, and its committed record.

    python tools/mutation/record.py run [--max-children N]   # mutmut run, then write the record
    python tools/mutation/record.py report                    # write the record from the last run

``run`` runs mutmut over the modules and tests configured in pyproject.toml's ``[tool.mutmut]``
(``dpaudit/stats.py``, ``dpaudit/auditors/``, ``dpaudit/exact/``; the tests of the statistical core).
mutmut copies the project into ``mutants/``, records which test reaches which function, and runs each
mutant against only those tests, forked from one process; it remembers its results, so a second run
re-tests only the functions that changed. ``report`` turns mutmut's results into
``docs/mutation/record.md``: per module, the mutants killed, survived, equivalent, not reached by any
test, and timed out, the share killed of those that are not equivalent, and for every mutant not
killed its diff with the reason it is equivalent (from ``tools/mutation/equivalent.toml``) or the
word "survived". A survivor is a test to write, or an equivalence to explain in that file.

The noise of the private policies is checked by its own sweep, ``tools/mutation/noise_sweep.py``
(the policies live in ``algorithms/`` and ``mechanisms/``, installed under ``dpaudit.``, which
mutmut's copy cannot stand in for).
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENT = Path(__file__).with_name("equivalent.toml")
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


def equivalences() -> dict[str, str]:
    """Mutant name -> why it is equivalent (behaves as the original on every input dpaudit can give it)."""
    if not EQUIVALENT.exists():
        return {}
    table = tomllib.loads(EQUIVALENT.read_text())
    return {name: str(entry["reason"]) for name, entry in table.get("mutant", {}).items()}


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


def write_record(statuses: dict[str, str], reasons: dict[str, str]) -> str:
    stale = sorted(set(reasons) - set(statuses))
    rows = collections.defaultdict(collections.Counter)
    detail = []
    for name in sorted(statuses, key=_natural):
        status = statuses[name]
        if name in reasons and status == "survived":
            status = "equivalent"
        rows[module_of(name)][status] += 1
        if status not in ("killed", "not checked"):
            detail.append((name, status, reasons.get(name, ""), diff_of(name)))
    total = collections.Counter()
    for counts in rows.values():
        total.update(counts)
    lines = ["# Mutation record", "",
             "Made by `python tools/mutation/record.py run` (mutmut over the modules in pyproject.toml's "
             "`[tool.mutmut]`); do not edit by hand: equivalences are explained in `tools/mutation/equivalent.toml`.",
             "",
             "| module | mutants | killed | survived | equivalent | no tests | timeout | not yet run "
             "| killed of non-equivalent run |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for module, counts in sorted(rows.items()):
        lines.append(_row(module, counts))
    summary = _row("**all**", total)
    lines.append(summary)
    lines += ["", "Statuses: *killed*, a test failed; *survived*, every test reaching the function passed (a test "
              "to write); *equivalent*, survived and explained below as behaving like the original; *no tests*, "
              "no test of the selection reaches the function (counted as not killed); *timeout*, the tests ran over "
              "mutmut's limit (an infinite loop: counted as killed, and listed below); *not yet run*, mutmut has "
              "not tested it yet (a run was stopped: `record.py run` resumes it), left out of the share.", ""]
    if stale:
        lines += ["Equivalences naming mutants mutmut no longer makes (the code moved; re-check them): "
                  + ", ".join(f"`{s}`" for s in stale), ""]
    by_function = collections.Counter(_function_of(name) for name, status, _, _ in detail if status == "survived")
    if by_function:
        lines += ["## Survivors by function", "", "| function | survived |", "|---|---:|"]
        lines += [f"| `{function}` | {count} |" for function, count in by_function.most_common()]
        lines += [""]
    lines += ["## Mutants not killed", ""]
    for name, status, reason, body in detail:
        lines += [f"### `{name}`: {status}", ""]
        if reason:
            lines += [f"Equivalent: {reason}", ""]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("run", "report"))
    parser.add_argument("--max-children", type=int, default=None, help="mutants tested in parallel (default: cores)")
    args = parser.parse_args()
    if args.command == "run":
        extra = ["--max-children", str(args.max_children)] if args.max_children else []
        _mutmut("run", *extra, capture=False)
    summary = write_record(results(), equivalences())
    print(f"{RECORD.relative_to(ROOT)}: {summary}")


if __name__ == "__main__":
    main()
