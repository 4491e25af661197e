"""Mutation testing of dpaudit's statistical core, its committed record and its committed ledger.

    python tools/mutation/record.py run [--max-children N] [--fresh] [NAME...]  # seed, mutmut run, ledger, record
    python tools/mutation/record.py seed                      # only bring mutants/ up to date and seed it
    python tools/mutation/record.py report                    # write the record from the last run and the ledger
    python tools/mutation/record.py survivors PATTERN...     # the mutants not killed nor explained, with diffs
    python tools/mutation/record.py check PATTERN... [--tests NODE...]   # do these tests kill these mutants?
    python tools/mutation/record.py fill-diffs [--from-record]          # give explanations without a diff theirs
    python tools/mutation/record.py import-record COMMIT      # fill the ledger from the record committed there

``run`` runs mutmut over the modules and tests configured in pyproject.toml's ``[tool.mutmut]``
(``dpaudit/stats.py``, ``dpaudit/auditors/``, ``dpaudit/exact/``, two exact laws of ``algorithms/``; the tests
of the statistical core).
mutmut copies the project into ``mutants/`` (not committed), records which test reaches which function, and
runs each mutant against only those tests, forked from one process; it remembers its results there, so a
second run re-tests only the functions that changed. ``report`` turns the results into
``docs/mutation/record.md``: per module, the mutants killed, survived, equivalent, not reached by any test,
and timed out, the share killed of those that are not equivalent, and for every mutant not killed its diff
with the reason it is equivalent (from ``tools/mutation/equivalent/``: one file per module, ``<module>.toml``,
and ``patterns.toml``, classes of mutants matched on their diff) or the word "survived". A survivor is a test
to write, or an equivalence to explain in that file; a survivor that differs from the original only where both
are correct (an exact tie broken the other way, a rigorous bound made tighter) is listed there under
``[accepted."..."]`` with why, and stays counted as survived.

The ledger, ``docs/mutation/ledger.json`` (committed), keeps every tested mutant's status under a key made of
its content, not its name: the function's mangled name without its module (``x_certify``,
``xǁClassǁmethod``), mutmut's hash of the function's source, and the mutant's diff. mutmut numbers a
function's mutants in order, so a name can point at another mutant once the function changes; the key cannot,
and it survives a fresh clone, a reset of mutmut's results and a function moved to another module. Each entry
holds the status, the name and module last seen, where the status came from (``run``, or ``record COMMIT`` for
the statuses imported by ``import-record`` from a record made with every mutant tested), and a hash of the
tests mutmut mapped to the function (null where not known). ``run`` first brings ``mutants/`` up to date
with the sources, then gives every mutant mutmut has no result for, and whose key is in the ledger, the
ledger's status (when mutmut's map of tests exists, only if the function's tests hash to the entry's, or the
entry's are null; a "no tests" is never seeded), so ``mutmut run`` tests only what the ledger does not know;
afterwards it stores mutmut's results in the ledger (dropping the entries of the modules mutated whose
mutants mutmut no longer makes) and writes the record. ``run --fresh`` seeds nothing; ``seed`` does the
seeding alone; ``report`` takes a status from the ledger where mutmut has none.

An explanation in ``equivalent/<module>.toml`` holds the mutant's ``diff`` (its -/+ lines, as ``survivors``
prints them) and attaches to the mutant of the same module and function with that diff, whatever its number
now. An explanation whose diff matches no mutant of its function, or only mutants now killed, is stale and
listed in the record; so is one whose diff matches several mutants of its function unless it says
``count = N`` (it explains all N). An explanation without a diff attaches by name and is listed as matched by
name only: ``fill-diffs`` adds the diffs of the mutants they name.

``check`` answers "does my new test kill these survivors?" without touching mutmut's results, so it can run
while a long ``run`` goes on: for each mutant named (or matched by a glob, e.g.
``'dpaudit.auditors.exact_tail.x__audit_mgf_cgf__mutmut_*'``; by default only those not killed), it runs
the checkout's tests that mutmut found reaching the mutated function, plus those given with ``--tests``
(``--only`` runs just those), against ``mutants/``'s mutated copy of the sources, and prints killed or
survived. It reads the mutated sources mutmut generated last: after changing a module, ``run`` again
before checking its mutants. The record changes only when mutmut itself re-tests them
(``record.py run NAME...``). Like mutmut, it imports the tests once and forks a child per mutant.

Two modules of ``algorithms/`` are mutated too, the exact laws of Hybrid-UCB's decisions
(``online/polytope_law.py``, ``online/hybrid_law.py``): mutmut sees the folder through a link,
``dpaudit/algorithms`` -> ``../algorithms``, which every command of this tool makes while it runs and removes
afterwards (:data:`INSTALLED_FOLDERS`), so that their mutants carry the names the tests import. The noise of
the private policies is checked by its own sweep, ``tools/mutation/noise_sweep.py``.
"""

from __future__ import annotations

import argparse
import ast
import collections
import contextlib
import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENT = Path(__file__).with_name("equivalent")
RECORD = ROOT / "docs" / "mutation" / "record.md"
LEDGER = ROOT / "docs" / "mutation" / "ledger.json"
MUTANTS = ROOT / "mutants"
DIFF_CACHE = MUTANTS / "record-diffs.json"  # ours, not mutmut's: diffs already read, by name and function hash
STATUSES = ("killed", "survived", "equivalent", "no tests", "timeout", "suspicious", "skipped", "segfault",
            "not checked")
UNKNOWN = ("not checked", "check was interrupted by user")  # mutmut's words for "no result": never in the ledger
HASH_DIGITS = 16  # of the ledger's sha256 keys and test hashes: 64 bits, no collision among a few 10,000 mutants


# --- names ---------------------------------------------------------------------------------------------------

def split_name(name: str) -> tuple[str, str]:
    """dpaudit.auditors.bounds.x_certify__mutmut_3 -> ("dpaudit.auditors.bounds", "x_certify"); a method's
    mangled name is xǁClassǁmethod (xǁOuter.Innerǁmethod in a nested class, so the module is found as mutmut
    finds it: before the last part starting x_ or xǁ)."""
    parts = name.partition("__mutmut_")[0].split(".")
    for i in range(len(parts) - 1, 0, -1):
        if parts[i].startswith(("x_", "xǁ")):
            return ".".join(parts[:i]), ".".join(parts[i:])
    raise ValueError(f"not a mutant name: {name}")


def module_of(name: str) -> str:
    """dpaudit.auditors.bounds.x_certify__mutmut_3 -> dpaudit/auditors/bounds.py (a package's own functions:
    its __init__.py)."""
    path = split_name(name)[0].replace(".", "/")
    return f"{path}/__init__.py" if (ROOT / path).is_dir() else f"{path}.py"


def _function_of(name: str) -> str:
    """dpaudit.auditors.bounds.x_certify__mutmut_3 -> dpaudit/auditors/bounds.py: certify (a method as
    Class.method)."""
    mangled = split_name(name)[1]
    function = mangled[2:] if mangled.startswith("x_") else mangled.replace("xǁ", "", 1).replace("ǁ", ".")
    return f"{module_of(name)}: {function}"


def _natural(name: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


# --- the ledger's keys and its file ----------------------------------------------------------------------------

def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:HASH_DIGITS]


def ledger_key(function: str, function_hash: str, diff: str, repeat: int = 0) -> str:
    """A mutant's key in the ledger: its content, not its number or module. ``function`` is the mangled name
    without the module (``x_certify``, ``xǁClassǁmethod``), ``function_hash`` mutmut's hash of the function's
    source (``hash_by_function_name`` of its .meta), ``diff`` the mutant's -/+ lines as ``diff_of`` gives them.
    ``repeat`` tells apart mutants of one function with the same diff (a line the function has twice, mutated
    at each place): the k-th of them in mutmut's order has ``repeat`` k, the first 0 (see ``ledger_keys``)."""
    return _sha(json.dumps([function, function_hash, diff, *([repeat] if repeat else [])], ensure_ascii=False))


def ledger_keys(mutants: Iterable[tuple[str, str, str]], diffs: Mapping[str, str]) -> dict[str, str]:
    """The ledger key of each mutant (name, function, function hash): a function's mutants with the same diff are
    numbered among themselves in mutmut's order (the same source makes the same mutants in the same order)."""
    seen = collections.Counter()
    out = {}
    for name, function, function_hash in sorted(mutants, key=lambda m: _natural(m[0])):
        group = (split_name(name)[0], function, function_hash, diffs[name])
        out[name] = ledger_key(function, function_hash, diffs[name], seen[group])
        seen[group] += 1
    return out


def tests_hash(tests: Iterable[str] | None) -> str | None:
    """The hash of the test node ids mutmut maps to a function (None: no map to read)."""
    return None if tests is None else _sha("\n".join(sorted(tests)))


def load_ledger(path: Path = LEDGER) -> dict[str, dict]:
    if not path.exists():
        return {}
    return json.loads(path.read_text())["mutants"]


def format_ledger(ledger: Mapping[str, Mapping]) -> str:
    """One line per mutant, in the order of module and name (a function's mutants stay together, so a diff of
    the file reads as "these mutants changed"), each entry's fields sorted: the same ledger, the same bytes."""
    order = sorted(ledger, key=lambda k: (ledger[k]["module"], _natural(ledger[k]["name"]), k))
    lines = [f"{json.dumps(k)}: {json.dumps(ledger[k], sort_keys=True, ensure_ascii=False)}" for k in order]
    return '{"version": 1, "mutants": {\n' + ",\n".join(lines) + "\n}}\n"


def save_ledger(ledger: Mapping[str, Mapping], path: Path = LEDGER) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(format_ledger(ledger))


@dataclasses.dataclass(frozen=True)
class Row:
    """One mutant as mutmut has it now, for the ledger."""

    name: str
    module: str        # its file, dpaudit/auditors/bounds.py
    key: str           # ledger_key(...)
    code: int | None   # mutmut's exit code (None: not tested)
    tests: str | None  # tests_hash of the tests mapped to its function (None: mutmut has no map)
    ran: bool = False  # mutmut ran it (it has a duration) rather than having been given a seeded code


def exit_code_of(status: str) -> int | None:
    """The exit code mutmut stores for a status word: the first of mutmut's ``status_by_exit_code`` giving it
    (killed 1, survived 0, timeout 36, ...)."""
    from mutmut.stats import status_by_exit_code

    return next((code for code, word in status_by_exit_code.items() if word == status and code is not None), None)


def status_of(code: int | None) -> str:
    """mutmut's word for an exit code, but -9 (SIGKILL) is a timeout: mutmut lists it as a segfault, yet the only
    SIGKILL its forked runs get is their CPU limit's hard end (RLIMIT_CPU: SIGXCPU at the limit, SIGKILL a second
    later, for a run that does not stop on SIGXCPU); a segfault is -11."""
    from mutmut.stats import status_by_exit_code

    return "timeout" if code == -9 else status_by_exit_code[code]


def seed_plan(rows: Iterable[Row], ledger: Mapping[str, Mapping], have_map: bool,
              exit_code: Callable[[str], int | None] = exit_code_of) -> dict[str, int]:
    """The exit codes to give mutants mutmut has not tested: those whose key is in the ledger with a result
    (not "no tests", which mutmut finds for itself without running anything), and, when mutmut has a map of
    tests (``have_map``), whose function's tests hash to the entry's or whose entry does not know its tests."""
    plan = {}
    for row in rows:
        entry = ledger.get(row.key)
        if row.code is not None or entry is None or entry["status"] in (*UNKNOWN, "no tests"):
            continue
        if have_map and entry.get("tests") is not None and entry["tests"] != row.tests:
            continue
        code = exit_code(entry["status"])
        if code is not None:
            plan[row.name] = code
    return plan


def updated_ledger(ledger: Mapping[str, Mapping], rows: Iterable[Row], mutated_modules: Iterable[str],
                   status: Callable[[int | None], str] = status_of) -> dict:
    """The ledger with mutmut's results: every mutant with a status enters it (a seeded status left as it was
    stays its entry, with its source and tests); an entry of a module mutmut mutates whose key mutmut no longer
    makes is dropped (its function changed or moved), every other entry is kept."""
    rows = sorted(rows, key=lambda r: _natural(r.name))
    generated = {row.key for row in rows}
    mutated = set(mutated_modules)
    new = {k: dict(v) for k, v in ledger.items() if k in generated or v["module"] not in mutated}
    for row in rows:
        word = status(row.code)
        if word in UNKNOWN:
            continue
        old = new.get(row.key)
        if old is not None and old["status"] == word and not row.ran:
            old.update(name=row.name, module=row.module)
        else:
            new[row.key] = {"status": word, "name": row.name, "module": row.module, "tests": row.tests,
                            "source": "run"}
    return new


# --- mutmut's mutants/ -----------------------------------------------------------------------------------------

#: the checkout's folders installed under dpaudit.* (pyproject.toml's package-dir) that hold mutated modules, and
#: where mutmut must see them. mutmut names a mutant by its file's path from the checkout's root and activates it
#: only in a function whose ``__module__`` is that name: algorithms/online/polytope_law.py would be
#: ``algorithms.online.polytope_law``, but the tests import ``dpaudit.algorithms.online.polytope_law``. Seen
#: through the link dpaudit/algorithms -> ../algorithms (pyproject's source_paths and only_mutate name that path),
#: the names agree, and mutmut's copy holds the folder as mutants/dpaudit/algorithms/, which its tests import
#: before the installed mapping. The link exists only while this tool runs (git ignores it).
INSTALLED_FOLDERS = {ROOT / "dpaudit" / "algorithms": Path("..") / "algorithms"}


@contextlib.contextmanager
def installed_folders() -> Iterator[None]:
    """The links of :data:`INSTALLED_FOLDERS` for the duration: made and removed afterwards, or left alone if
    they exist already (another command of this tool is running, ``check`` beside a long ``run``, or one was
    killed before removing its link: the checkout imports the same files through it)."""
    made = []
    try:
        for link, target in INSTALLED_FOLDERS.items():
            if link.is_symlink():
                if Path(os.readlink(link)) != target:
                    raise SystemExit(f"{link.relative_to(ROOT)} links to {os.readlink(link)}, not {target}")
                continue
            if link.exists():
                raise SystemExit(f"{link.relative_to(ROOT)} exists and is not a link to {target}: move it away")
            link.symlink_to(target, target_is_directory=True)
            made.append(link)
        yield
    finally:
        for link in made:
            link.unlink(missing_ok=True)


@contextlib.contextmanager
def _at_root() -> Iterator[None]:
    """mutmut reads pyproject.toml and mutants/ from the working directory."""
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(here)


#: the seed of the slow tier's sample in mutmut's runs (tests/conftest.py reads it from DPAUDIT_SLOW_SEED): fixed,
#: because by default the sample follows the HEAD commit, and mutmut's map of the tests reaching each function,
#: hence the tests hash that lets the ledger seed a function's mutants, would change with every commit
SLOW_SEED = "0"


def _mutmut(*args: str, capture: bool = True) -> str:
    env = {**os.environ, "DPAUDIT_SLOW_SEED": SLOW_SEED}
    if capture:
        done = subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=ROOT, text=True, capture_output=True,
                              check=False, env=env)
        code, out, err = done.returncode, done.stdout, done.stderr
    else:
        process = subprocess.Popen([sys.executable, "-m", "mutmut", *args], cwd=ROOT, env=env)
        try:
            code = process.wait()
        except KeyboardInterrupt:  # mutmut got the interrupt too: let it stop its workers and save its results
            code = process.wait()
        out = err = ""
    if code not in (0, 1):  # mutmut exits 1 when mutants survive
        raise SystemExit(f"mutmut {' '.join(args)} failed ({code}):\n{(err or '')[-2000:]}")
    return out or ""


def mutated_files() -> list[str]:
    """The source files mutmut mutates, as pyproject.toml's [tool.mutmut] selects them."""
    with _at_root():
        from mutmut.utils.file_utils import walk_mutatable_files

        return sorted(str(path) for path in walk_mutatable_files())


def _read_json(path: Path) -> dict:
    for attempt in range(20):  # a running mutmut rewrites its .meta files in place
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError:
            if attempt == 19:
                raise
            time.sleep(0.1)
    raise AssertionError


@dataclasses.dataclass(frozen=True)
class Mutant:
    name: str
    module: str         # dpaudit/auditors/bounds.py
    function: str       # x_certify, xǁClassǁmethod
    hash: str           # mutmut's hash of the function's source
    code: int | None    # mutmut's exit code, None if not tested
    ran: bool           # mutmut recorded a duration for it


def generated(root: Path = MUTANTS) -> dict[str, Mutant]:
    """Every mutant mutmut has generated in ``mutants/`` for the files it mutates, from their .meta files."""
    out = {}
    for module in mutated_files():
        meta_path = root / f"{module}.meta"
        if not meta_path.exists():
            continue
        meta = _read_json(meta_path)
        hashes, durations = meta.get("hash_by_function_name", {}), meta.get("durations_by_key", {})
        for name, code in meta["exit_code_by_key"].items():
            function = split_name(name)[1]
            out[name] = Mutant(name, module, function, hashes.get(function, ""), code, name in durations)
    return out


def test_map() -> dict[str, list[str]] | None:
    """mutmut's map of the tests reaching each function (``module.x_function`` -> node ids), or None if it has
    none (no stats yet, or a map emptied by ``mutmut print-time-estimates``)."""
    path = MUTANTS / "mutmut-stats.json"
    if not path.exists():
        return None
    tests = _read_json(path).get("tests_by_mangled_function_name") or None
    return tests


def mapped_tests(name: str, tests: Mapping[str, list[str]]) -> list[str]:
    """The tests mutmut's map ``tests`` (:func:`test_map`, read once by the caller: it is megabytes of JSON) has
    reaching a mutant's function (node ids relative to the checkout)."""
    return sorted(tests.get(name.partition("__mutmut_")[0], ()))


def diff_of(name: str) -> str:
    """The lines a mutant changes: read in this process from mutmut's index of the mutated file (a
    ``mutmut show`` per mutant would start mutmut and search every file for it)."""
    try:
        from mutmut.mutation.diff_apply import get_diff_for_mutant
    except ImportError:  # another mutmut layout: ask the command line
        diff = _mutmut("show", name)
    else:
        with _at_root():
            diff = get_diff_for_mutant(name, path=module_of(name))
    return "\n".join(line for line in diff.splitlines()
                     if line.startswith(("-", "+")) and not line.startswith(("---", "+++")))


def _diffs_of_names(names: list[str]) -> list[tuple[str, str]]:
    return [(name, diff_of(name)) for name in names]


def diffs_of(mutants: Iterable[Mutant], cache: bool = True) -> dict[str, str]:
    """``diff_of`` of each mutant, from the cache of diffs already read (by name and function hash: the same
    function makes the same mutants) or read in parallel. ``cache=False`` writes nothing to mutants/."""
    import importlib.metadata

    mutants = list(mutants)
    version = importlib.metadata.version("mutmut")
    stored = {}
    if DIFF_CACHE.exists():
        with contextlib.suppress(json.JSONDecodeError, KeyError):
            data = json.loads(DIFF_CACHE.read_text())
            stored = data["diffs"] if data["mutmut"] == version else {}
    out = {m.name: stored[m.name][1] for m in mutants
           if m.hash and m.name in stored and stored[m.name][0] == m.hash}
    missing = [m.name for m in mutants if m.name not in out]
    if len(missing) > 200:
        import multiprocessing

        chunks = [missing[i:i + 100] for i in range(0, len(missing), 100)]
        with multiprocessing.get_context("fork").Pool(os.cpu_count() or 2) as pool:
            for part in pool.imap_unordered(_diffs_of_names, chunks):
                out.update(part)
    else:
        out.update(_diffs_of_names(missing))
    if cache and missing and MUTANTS.is_dir():
        hashes = {m.name: m.hash for m in mutants}
        stored.update({name: [hashes[name], out[name]] for name in missing if hashes[name]})
        DIFF_CACHE.write_text(json.dumps({"mutmut": version, "diffs": stored}, ensure_ascii=False))
    return out


def generate(max_children: int | None = None) -> None:
    """Bring mutants/ up to date with the sources without running a test: the steps ``mutmut run`` takes
    before it collects its test stats (copy the sources and ``also_copy``, mutate each file changed since, keep
    the exit codes of the functions whose hash is unchanged in its .meta). mutmut has no command for this alone,
    so this calls what mutmut 3.8's ``_run`` calls, in the same order (written against mutmut 3.8.1's
    ``mutmut.__main__``); a mutmut without them raises RuntimeError."""
    try:
        import mutmut.__main__ as mm
        from mutmut.mutation.trampoline import set_mutant_under_test

        steps = (mm.copy_src_dir, mm.copy_also_copy_files, mm.setup_source_paths, mm.store_lines_covered_by_tests)
        create, catch = mm.create_mutants, mm.CatchOutput
    except (ImportError, AttributeError) as error:
        raise RuntimeError(f"this mutmut has not the generation steps of mutmut 3.8 ({error})") from error
    kept_path, kept_env = list(sys.path), os.environ.get("MUTANT_UNDER_TEST")
    with _at_root():
        try:
            set_mutant_under_test("mutant_generation")
            os.makedirs("mutants", exist_ok=True)
            with catch(spinner_title="Generating mutants"):
                for step in steps:
                    step()
                stats = create(max_children or os.cpu_count() or 4)
        finally:
            sys.path[:] = kept_path  # setup_source_paths put mutants/ first
            if kept_env is None:
                os.environ.pop("MUTANT_UNDER_TEST", None)
            else:
                os.environ["MUTANT_UNDER_TEST"] = kept_env
    print(f"mutants/: {stats.mutated} files mutated, {stats.unmodified} unchanged, {stats.ignored} copied")


def _selection_changed() -> bool:
    """Whether the next ``mutmut run`` will discard every result: the tests selected or how they run changed
    since mutmut's stats (mutmut 3.8's config fingerprint)."""
    path = MUTANTS / "mutmut-stats.json"
    if not path.exists():
        return False
    try:
        with _at_root():
            from mutmut.configuration import config

            new = config().config_fingerprint()
        old = _read_json(path).get("config_fingerprint") or {}
    except (ImportError, AttributeError, json.JSONDecodeError):
        return False
    return bool(old) and any(old.get(group) != new.get(group) for group in ("test_execution", "test_selection"))


def _cheapest_mutant() -> str:
    """A mutant whose function the fewest tests reached in mutmut's last map (one it can test quickly)."""
    tests = test_map() or {}
    mutants = generated()
    return min(mutants, key=lambda n: (len(mapped_tests(n, tests)) or 10**9, _natural(n)))


def rows_of(mutants: Mapping[str, Mutant], diffs: Mapping[str, str],
            tests: Mapping[str, list[str]] | None) -> list[Row]:
    """``mutants`` must hold every mutant of each function it holds one of (their keys depend on each other);
    ``tests``: :func:`test_map` (None: no map, no test hashes)."""
    keys = ledger_keys(((m.name, m.function, m.hash) for m in mutants.values()), diffs)
    return [Row(m.name, m.module, keys[m.name], m.code,
                None if tests is None else tests_hash(mapped_tests(m.name, tests)), m.ran)
            for m in mutants.values()]


def seed(ledger: Mapping[str, Mapping]) -> int:
    """Write the ledger's statuses into mutants/'s .meta files (see ``seed_plan``); how many were written."""
    mutants = generated()
    untested = {n: m for n, m in mutants.items() if m.code is None}
    tests = test_map()
    rows = rows_of(mutants, diffs_of(mutants.values()), tests)
    have_map = tests is not None
    plan = seed_plan(rows, ledger, have_map)
    if plan:
        from mutmut.mutation.data import SourceFileMutationData

        by_module = collections.defaultdict(dict)
        for name, code in plan.items():
            by_module[mutants[name].module][name] = code
        with _at_root():
            for module, codes in by_module.items():
                data = SourceFileMutationData(path=module)
                data.load()
                for name, code in codes.items():
                    data.exit_code_by_key[name] = code
                    data.durations_by_key.pop(name, None)  # a duration marks a mutant mutmut ran itself
                data.save()
    known = sum(row.key in ledger for row in rows if row.name in untested)
    print(f"seeded {len(plan)} of the {len(untested)} mutants mutmut has no result for from the ledger "
          f"({known} known to it{'' if have_map else '; no map of tests yet: matched on the key alone'})")
    if _selection_changed():
        print("the tests selected (or how they run) changed since mutmut's stats: `mutmut run` will discard every "
              "result, the seeded ones too, and map the tests again (`record.py run` lets it, then seeds again)")
    return len(plan)


def statuses_and_ledger(mutants: Mapping[str, Mutant], names: Iterable[str] | None = None,
                        update: bool = True) -> tuple[dict[str, str], dict[str, str], int]:
    """Each mutant's status (mutmut's, or the ledger's where mutmut has none) and its diff, for the mutants of
    the functions of ``names`` (default: all); with all of them, the ledger is updated with mutmut's results
    (``update``). Also how many statuses came from the ledger."""
    if names is not None:
        functions = {split_name(name) for name in names}
        mutants = {n: m for n, m in mutants.items() if split_name(n) in functions}
        update = False
    diffs = diffs_of(mutants.values())
    rows = rows_of(mutants, diffs, test_map())
    ledger = load_ledger()
    statuses, from_ledger = {}, 0
    for row in rows:
        status = status_of(row.code)
        if status in UNKNOWN and row.key in ledger and ledger[row.key]["status"] not in UNKNOWN:
            status, from_ledger = ledger[row.key]["status"], from_ledger + 1
        statuses[row.name] = status
    if update:
        new = updated_ledger(ledger, rows, mutated_files())
        if new != ledger:
            save_ledger(new)
    return statuses, diffs, from_ledger


# --- explanations ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Explanation:
    """An entry of ``equivalent/<module>.toml``: ``[mutant."NAME"]`` (equivalent) or ``[accepted."NAME"]``
    (left where both versions are correct), NAME the mutant it was written for (its number may have moved)."""

    name: str
    table: str
    reason: str
    diff: str | None = None  # the mutant's -/+ lines; None: matched by name
    count: int = 1           # how many mutants of its function with this diff it explains


@dataclasses.dataclass
class Matches:
    reasons: dict[str, str]          # mutant -> why it is equivalent
    accepted: dict[str, str]         # mutant -> why it is left
    matched: dict[str, list[str]]    # explanation -> the mutants it attaches to
    stale: list[str]                 # explanations whose diff matches no mutant of their function
    ambiguous: list[str]             # explanations whose diff matches several and that do not say count = N
    by_name: list[str]               # explanations without a diff, attached by name


def explanations() -> list[Explanation]:
    """Every entry of the per-module files of ``equivalent/`` (not patterns.toml)."""
    out = []
    for path in sorted(EQUIVALENT.glob("*.toml")):
        if path.name == "patterns.toml":
            continue
        data = tomllib.loads(path.read_text())
        for table in ("mutant", "accepted"):
            for name, entry in data.get(table, {}).items():
                out.append(Explanation(name, table, str(entry["reason"]), entry.get("diff"),
                                       int(entry.get("count", 1))))
    return out


def match_explanations(entries: Iterable[Explanation], diffs: Mapping[str, str]) -> Matches:
    """Attach each explanation to the mutants now made (``diffs``: name -> diff, for at least every mutant of
    the explained functions) of its module and function whose diff is the explanation's, whatever their
    numbers; one without a diff to the mutant of its name."""
    by_function = collections.defaultdict(list)
    for name in diffs:
        by_function[split_name(name)].append(name)
    out = Matches({}, {}, {}, [], [], [])
    owner = {}
    for entry in entries:
        if entry.diff is None:
            hits = [entry.name] if entry.name in diffs else []
            if hits:
                out.by_name.append(entry.name)
        else:
            hits = sorted((n for n in by_function.get(split_name(entry.name), ()) if diffs[n] == entry.diff),
                          key=_natural)
            if len(hits) > 1 and len(hits) != entry.count:
                out.ambiguous.append(entry.name)
                continue
        if not hits:
            out.stale.append(entry.name)
            continue
        for name in hits:
            if name in owner:
                raise SystemExit(f"{name} is explained twice: by {owner[name]} and {entry.name}")
            owner[name] = entry.name
            (out.reasons if entry.table == "mutant" else out.accepted)[name] = entry.reason
        out.matched[entry.name] = hits
    return out


def equivalences(mutants: Mapping[str, Mutant], diffs: Mapping[str, str] | None = None,
                 cache: bool = True) -> tuple[Matches, dict[str, str]]:
    """The explanations matched to the mutants now made; also the diffs read (those given, and every mutant of
    an explained function)."""
    modules = {m.module for m in mutants.values()}
    entries = [e for e in explanations() if module_of(e.name) in modules]  # not of a module left out of this run
    functions = {split_name(e.name) for e in entries}
    diffs = dict(diffs or {})
    needed = [m for m in mutants.values() if split_name(m.name) in functions and m.name not in diffs]
    diffs.update(diffs_of(needed, cache=cache))
    return match_explanations(entries, {n: d for n, d in diffs.items() if split_name(n) in functions}), diffs


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


def toml_string(text: str) -> str:
    """``text`` as a TOML string that reads back exactly: a multi-line literal string (a diff keeps its
    quotes and backslashes as they are), or a basic string where a literal one cannot hold it."""
    literal = f"'''\n{text}'''"
    candidates = [literal] if "'''" not in text and not text.endswith("'") else []
    for candidate in [*candidates, json.dumps(text, ensure_ascii=False)]:
        with contextlib.suppress(tomllib.TOMLDecodeError):
            if tomllib.loads(f"s = {candidate}")["s"] == text:
                return candidate
    raise ValueError(f"no TOML string holds {text!r}")


def with_diffs(text: str, diffs: Mapping[tuple[str, str], str]) -> str:
    """A file of ``equivalent/`` with ``diff = ...`` added to the entries (table, name) of ``diffs`` that have
    none, after the entry's last line."""
    lines = text.split("\n")
    out, pending = [], None
    header = re.compile(r'^\[(mutant|accepted)\."([^"]+)"\]\s*$')
    for line in lines:
        if pending is not None and (not line.strip() or line.startswith("[")):
            out.append(f"diff = {toml_string(pending)}")
            pending = None
        out.append(line)
        found = header.match(line)
        if found and (found.group(1), found.group(2)) in diffs:
            pending = diffs[found.group(1), found.group(2)]
    if pending is not None:
        out.append(f"diff = {toml_string(pending)}")
    return "\n".join(out)


def record_listing(text: str) -> dict[str, tuple[str, str]]:
    """The mutants a record lists (``### `NAME`: status`` and its diff block): name -> (status, diff)."""
    out, name, status, block = {}, None, None, None
    for line in text.split("\n"):
        heading = re.match(r"^### `([^`]+)`: (.+)$", line)
        if heading:
            name, status, block = heading.group(1), heading.group(2).strip(), None
        elif name and line == "```diff" and block is None:
            block = []
        elif name and block is not None and line == "```":
            out[name] = (status, "\n".join(block))
            name, block = None, None
        elif name and block is not None:
            block.append(line)
    return out


def record_counts(text: str) -> dict[str, dict[str, int]]:
    """The table of a record: module -> column -> count."""
    out, columns = {}, None
    for line in text.split("\n"):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| module |"):
            columns = cells
        elif columns and line.startswith("| ") and not line.startswith("| **") and len(cells) == len(columns):
            out[cells[0]] = {column: int(cell) for column, cell in zip(columns[1:], cells[1:]) if cell.isdigit()}
    return out


def fill_diffs(from_record: bool) -> None:
    """Give every explanation without a diff the diff of the mutant it names: from the record
    (``from_record``) or from the mutants mutmut made last."""
    listing = record_listing(RECORD.read_text()) if from_record else {}
    current = {} if from_record else generated()
    added, missing = 0, []
    for path in sorted(EQUIVALENT.glob("*.toml")):
        if path.name == "patterns.toml":
            continue
        text = path.read_text()
        data = tomllib.loads(text)
        diffs = {}
        for table in ("mutant", "accepted"):
            for name, entry in data.get(table, {}).items():
                if "diff" in entry:
                    continue
                if from_record and name in listing:
                    diffs[table, name] = listing[name][1]
                elif not from_record and name in current:
                    diffs[table, name] = diff_of(name)
                else:
                    missing.append(name)
        if not diffs:
            continue
        new = with_diffs(text, diffs)
        back = tomllib.loads(new)
        for (table, name), diff in diffs.items():
            if back[table][name].get("diff") != diff or back[table][name]["reason"] != data[table][name]["reason"]:
                raise SystemExit(f"{path.name}: {name}'s diff does not read back exactly")
        path.write_text(new)
        added += len(diffs)
    print(f"{added} diffs added" + (f"; not found ({len(missing)}): " + ", ".join(missing) if missing else ""))


# --- the record --------------------------------------------------------------------------------------------------

def write_record(statuses: Mapping[str, str], diffs: Mapping[str, str], matches: Matches) -> str:
    reasons, accepted = matches.reasons, matches.accepted
    # an explanation is stale when its diff matches no mutant of its function mutmut makes now (a test caught it
    # and the code changed, or the function changed), or only mutants mutmut now kills
    stale = sorted([*matches.stale, *(name for name, hits in matches.matched.items()
                                       if all(statuses.get(hit, "killed") == "killed" for hit in hits))], key=_natural)
    rules = patterns()
    rows = collections.defaultdict(collections.Counter)
    detail = []
    for name in sorted(statuses, key=_natural):
        status, reason, diff = statuses[name], reasons.get(name, ""), ""
        if status not in ("killed", "not checked"):
            diff = diffs[name] if name in diffs else diff_of(name)
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
             "`[tool.mutmut]`; the statuses of mutants this machine's mutmut has not run are those of "
             "`docs/mutation/ledger.json`); do not edit by hand: equivalences (and survivors left where both "
             "versions are correct) are explained in `tools/mutation/equivalent/`.",
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
        lines += ["Explanations whose diff matches no mutant mutmut makes of their function now, or only mutants it "
                  "now kills (a test caught them, or the function changed: re-check them): "
                  + ", ".join(f"`{s}`" for s in stale), ""]
    if matches.ambiguous:
        lines += ["Explanations whose diff matches several mutants of their function (attached to none: say "
                  "`count = N` in the entry if it explains all N): "
                  + ", ".join(f"`{s}`" for s in sorted(matches.ambiguous, key=_natural)), ""]
    if matches.by_name:
        lines += ["Explanations matched by name only (they have no diff: `record.py fill-diffs` adds it): "
                  + ", ".join(f"`{s}`" for s in sorted(matches.by_name, key=_natural)), ""]
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


def report() -> None:
    """Write the record (and store mutmut's results in the ledger)."""
    if any(not (MUTANTS / f"{module}.meta").exists() for module in mutated_files()):
        generate()  # a fresh clone: make the mutants (no test runs) to read their statuses from the ledger
    mutants = generated()
    if not mutants:
        raise SystemExit("mutmut has made no mutants: run `python tools/mutation/record.py run` first")
    statuses, diffs, from_ledger = statuses_and_ledger(mutants)
    matches, _ = equivalences(mutants, diffs)
    summary = write_record(statuses, diffs, matches)
    print(f"{RECORD.relative_to(ROOT)}: {summary}"
          + (f" ({from_ledger} statuses from the ledger)" if from_ledger else ""))


def _matching(names: Iterable[str], globs: list[str]) -> list[str]:
    return [n for n in sorted(names, key=_natural) if any(fnmatch.fnmatchcase(n, g) for g in globs)]


def survivors(globs: list[str]) -> None:
    """Print the matching mutants not killed (by mutmut, or in the ledger) and no equivalence explains, each
    with its diff, and a count of the matching mutants by status (``not checked``: a run has not reached them)."""
    mutants = generated()
    picked = {n: mutants[n] for n in _matching(mutants, globs)}
    statuses, diffs, _ = statuses_and_ledger(mutants, picked)
    matches, diffs = equivalences(mutants, diffs)
    rules = patterns()
    counts = collections.Counter()
    for name in picked:
        status = statuses[name]
        if status in ("killed", "not checked", "timeout"):
            counts[status] += 1
            continue
        diff = diffs[name]
        if status == "survived" and (name in matches.reasons or pattern_reason(diff, rules)):
            counts["equivalent"] += 1
            continue
        if status == "survived" and name in matches.accepted:
            counts["survived, left where both versions are correct"] += 1
            continue
        counts[status] += 1
        print(f"## {name}: {status}\n{diff}")
    print(f"# {len(picked)} mutants: " + ", ".join(f"{n} {s}" for s, n in counts.most_common()))


# --- importing a committed record --------------------------------------------------------------------------------

def function_sources(source: str) -> dict[str, str]:
    """The text of each function mutmut can mutate in a module (top-level functions and methods, as its
    ``compute_function_hashes`` walks them), decorators included, by mangled name."""
    lines = source.splitlines(keepends=True)
    out = {}

    def visit(body: list[ast.stmt], cls: str = "") -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                key = f"xǁ{cls}ǁ{node.name}" if cls else f"x_{node.name}"
                out[key] = "".join(lines[start - 1:node.end_lineno])
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{cls}.{node.name}" if cls else node.name)

    visit(ast.parse(source).body)
    return out


def _git(*args: str) -> str | None:
    done = subprocess.run(["git", *args], cwd=ROOT, text=True, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None


def unchanged_functions(old_source: str, new_source: str, mutants: Iterable[Mutant],
                        hashes: Mapping[str, str] | None = None) -> set[str]:
    """The functions of ``mutants`` whose text is the same in both sources, and (given ``hashes``, mutmut's
    hashes of the functions of the source) whose mutants mutmut made from that text: mutants/ is up to date."""
    old, new = function_sources(old_source), function_sources(new_source)
    return {m.function for m in mutants if m.function in old and old[m.function] == new.get(m.function)
            and (hashes is None or hashes.get(m.function) == m.hash)}


def import_plan(module: str, counts: Mapping[str, int], listing: Mapping[str, tuple[str, str]], old_source: str,
                new_source: str, mutants: list[Mutant], diffs: Mapping[str, str],
                hashes: Mapping[str, str] | None = None) -> tuple[dict[str, str], str]:
    """The statuses a record gives the mutants of ``module`` mutmut makes now (name -> status), and what was
    done or why nothing: only functions whose source is the same, and only if mutmut makes the mutants the
    record implies (each name it lists has the same diff now; the same count where no function changed)."""
    if counts.get("not yet run"):
        return {}, f"skipped: the record has {counts['not yet run']} of its mutants not yet run"
    old, new = function_sources(old_source), function_sources(new_source)
    functions = {m.function for m in mutants}
    same = unchanged_functions(old_source, new_source, mutants, hashes)
    listed = {n: v for n, v in listing.items() if module_of(n) == module}
    names = {m.name for m in mutants}
    checked = [n for n in listed if split_name(n)[1] in same]
    absent = [n for n in checked if n not in names]
    if absent:
        return {}, f"skipped: mutmut no longer makes {len(absent)} listed mutants of unchanged functions: {absent[:3]}"
    differing = [n for n in checked if diffs[n] != listed[n][1]]
    if differing:
        return {}, (f"skipped: {len(differing)} listed mutants of unchanged functions have another diff now: "
                    f"{differing[:3]}")
    if old == new and same == functions and len(mutants) != counts.get("mutants"):
        return {}, f"skipped: no function changed, but mutmut makes {len(mutants)} mutants, the record {counts}"
    plan = {}
    for m in mutants:
        if m.function in same:
            status = listed[m.name][0] if m.name in listed else "killed"
            plan[m.name] = "survived" if status == "equivalent" else status
    changed = sorted(functions - same)
    note = f"{len(plan)} mutants of {len(same)} functions"
    if changed:
        note += f"; {len(changed)} functions changed since, not imported: {', '.join(changed)}"
    return plan, note


def import_record(commit: str) -> None:
    """Fill the ledger from the record committed at ``commit`` (made with every mutant tested), for the
    functions unchanged since; reads mutants/ as mutmut generated it for the current sources, writes nothing
    there."""
    from mutmut.mutation.file_mutation import compute_function_hashes

    text = _git("show", f"{commit}:{RECORD.relative_to(ROOT)}")
    if text is None:
        raise SystemExit(f"no record at {commit}")
    commit_id = (_git("rev-parse", "--short", commit) or commit).strip()
    counts, listing = record_counts(text), record_listing(text)
    current = generated()
    by_module = collections.defaultdict(list)
    for m in current.values():
        by_module[m.module].append(m)
    ledger = load_ledger()
    total = 0
    for module in sorted(set(counts) | set(by_module)):
        if module not in counts:
            print(f"{module}: not in the record")
            continue
        old_source = _git("show", f"{commit}:{module}")
        if old_source is None or module not in by_module:
            print(f"{module}: skipped: {'not at ' + commit if old_source is None else 'mutmut makes no mutants of it'}")
            continue
        new_source = (ROOT / module).read_text()
        hashes = compute_function_hashes(new_source)
        unchanged = unchanged_functions(old_source, new_source, by_module[module], hashes)
        same = [m for m in by_module[module] if m.function in unchanged]
        diffs = diffs_of(same, cache=False)
        keys = ledger_keys(((m.name, m.function, m.hash) for m in same), diffs)
        plan, note = import_plan(module, counts[module], listing, old_source, new_source, by_module[module], diffs,
                                 hashes)
        print(f"{module}: {note}")
        for name, status in plan.items():
            key = keys[name]
            if ledger.get(key, {}).get("source") == "run":
                continue
            ledger[key] = {"status": status, "name": name, "module": module, "tests": None,
                           "source": f"record {commit_id}"}
            total += 1
    save_ledger(ledger)
    print(f"{LEDGER.relative_to(ROOT)}: {total} mutants imported, {len(ledger)} in all")


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
    mutants = generated()
    picked = {n: mutants[n] for n in _matching(mutants, globs)}
    statuses, diffs, _ = statuses_and_ledger(mutants, picked)
    matches, _ = equivalences(mutants, diffs)
    explained = {**matches.reasons, **matches.accepted}
    names = [n for n in picked if every or (statuses[n] != "killed" and n not in explained)]
    if not names:
        raise SystemExit(f"no mutant{'' if every else ' not killed or explained'} matches {' '.join(globs)}")
    tests_map = {} if only else test_map() or {}
    selected = {n: [str(ROOT / t) for t in (list(tests) if only else mapped_tests(n, tests_map) + list(tests))]
                for n in names}
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
    parser.add_argument("command", choices=("run", "seed", "report", "survivors", "check", "fill-diffs",
                                            "import-record"))
    parser.add_argument("patterns", nargs="*", help="run: mutants to test again (names or globs); survivors, "
                        "check: mutant names or globs; import-record: the commit of the record")
    parser.add_argument("--max-children", type=int, default=None, help="mutants tested in parallel (default: cores)")
    parser.add_argument("--fresh", action="store_true", help="run: seed nothing from the ledger")
    parser.add_argument("--from-record", action="store_true", help="fill-diffs: read the diffs from the record")
    parser.add_argument("--tests", nargs="+", default=[], help="check: tests (files or node ids) run as well")
    parser.add_argument("--only", action="store_true", help="check: run only the --tests, not mutmut's mapping")
    parser.add_argument("--all", action="store_true", help="check: killed mutants too")
    parser.add_argument("--jobs", type=int, default=1, help="check: mutants checked in parallel")
    parser.add_argument("--timeout", type=float, default=600.0, help="check: seconds per mutant")
    args = parser.parse_args()
    if args.command in ("survivors", "check") and not args.patterns:
        parser.error(f"{args.command} needs mutant names or globs")
    if args.command == "import-record" and len(args.patterns) != 1:
        parser.error("import-record needs one commit")
    with installed_folders():
        _command(args)


def _command(args: argparse.Namespace) -> None:
    if args.command == "survivors":
        return survivors(args.patterns)
    if args.command == "check":
        raise SystemExit(1 if check(args.patterns, args.tests, args.only, args.all, args.jobs, args.timeout) else 0)
    if args.command == "fill-diffs":
        return fill_diffs(args.from_record)
    if args.command == "import-record":
        return import_record(args.patterns[0])
    if args.command in ("run", "seed"):
        try:
            generate(args.max_children)
        except RuntimeError as error:
            if args.command == "seed":
                raise SystemExit(str(error)) from error
            print(f"not seeded from the ledger: {error}")
        else:
            if not args.fresh:
                seed(load_ledger())
        if args.command == "seed":
            return None
        extra = ["--max-children", str(args.max_children)] if args.max_children else []
        if not args.fresh and _selection_changed():
            # mutmut would discard every result, the seeded ones too: let it map the tests again on one mutant
            # first, then seed where the function's tests are unchanged, then run the rest
            name = _cheapest_mutant()
            print(f"the tests selected changed: mutmut maps them again (testing {name}), then the ledger seeds")
            _mutmut("run", *extra, name, capture=False)
            seed(load_ledger())
        _mutmut("run", *extra, *args.patterns, capture=False)
    report()


if __name__ == "__main__":
    main()
