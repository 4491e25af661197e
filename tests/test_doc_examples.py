"""Every Python block of the README and the manual (docs/) runs, in reading order, and prints what its comments say.

The blocks run in one namespace in the reading order of ``test_readme.PAGES`` (a later block may use what an
earlier one defined, as a reader's session would), from a fresh folder that holds what the pages tell the reader to
make first: a run folder ``dpaudit-report`` (``dpaudit run`` of one claim) and ``my_mechs.py``. A block written as
a pytest file (it uses the ``privacy_audit`` fixture) is saved as one beside a ``my_package`` that defines the
mechanism it imports, and run by pytest.

A trailing comment on a ``print(...)`` line says what it prints, and is checked (:func:`check_printed`): its text up
to the first ": ", " (" or "; " is the printed text's start, word by word; a number followed by ``...`` must be the
start of the printed number, a number without them the printed number rounded to the digits shown. Prose about a
printed value goes on the line above, so that a comment beside a print is always a value to check. Every block is
seeded (a block that is not would print other digits on each run, and fail here), but one: own-mechanism.md's
randomized response drawing from the random module, whose comment shows its estimate to one decimal (ln 3 = 1.0986
estimated from 10^6 draws per side, standard error about 0.005: it leaves [1.05, 1.15) with probability below
1e-20) and its verdict (refuted: the certified lower bound is about 1.09 against the claimed 1).

The blocks run in a fresh interpreter (what is imported there is what the blocks import), from a fresh folder (the
fast tier) and from the checkout's root imported as a plain install imports there (the slow tier, in
test_doc_examples_from_root.py so that the per-file workers run the two side by side); each takes about a minute
and a half (OpenDP's example, at the sample size its page states, 10 to 20 s of it).

The sh blocks: every ``dpaudit`` command the pages show parses with the command line's own parser (the fast tier),
and those that finish in seconds run as shown (the slow tier).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_readme import PAGES, ROOT

#: the pages' order: the README and the manual as test_readme reads them, then any page it does not list
ORDER = PAGES + sorted(p for p in (ROOT / "docs").glob("*.md") if p not in PAGES)
BLOCK = re.compile(r"^```python\n(.*?)^```", flags=re.S | re.M)
#: a block written as a pytest file: saved and run by pytest, not executed in the namespace
PYTEST_BLOCK = re.compile(r"^def test_\w*\(.*privacy_audit", flags=re.M)
NUMBER = re.compile(r"^([\[\(\{'\"]*)(-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)(\.\.\.)?([\]\)\}'\",;:]*)$")
MY_MECH = "def my_mech(data, size, rng):\n    return data + rng.laplace(0.0, 1.0, size)\n"


def blocks() -> list[tuple[Path, int, str]]:
    return [(page, number, match.group(1)) for page in ORDER
            for number, match in enumerate(BLOCK.finditer(page.read_text()), 1)]


def _number_matches(shown: str, printed: str, truncated: bool) -> bool:
    try:
        value = float(printed)
    except ValueError:
        return False
    if truncated:
        return printed.startswith(shown)
    if "e" in shown.lower() or "." not in shown:
        return value == float(shown)
    decimals = len(shown.split(".")[1])
    return round(value, decimals) == round(float(shown), decimals)


def check_printed(comment: str, printed: str) -> str | None:
    """None when ``printed`` starts as ``comment`` says (module docstring), else what differs."""
    claim = re.split(r": |\s\(|; ", comment, maxsplit=1)[0].strip()
    want, got = claim.split(), printed.split()
    if len(got) < len(want):
        return f"prints {printed!r}, shorter than the comment's {claim!r}"
    for i, (w, g) in enumerate(zip(want, got)):
        if w == g or (i == len(want) - 1 and w == g.rstrip(":;,.")):  # the claim stops where the print goes on
            continue
        mw, mg = NUMBER.match(w), NUMBER.match(g)
        if mw and mg and mw.group(1) == mg.group(1) and mw.group(4) == mg.group(4) and \
                _number_matches(mw.group(2), mg.group(2), bool(mw.group(3))):
            continue
        return f"prints {printed!r}: {g!r} where the comment says {w!r}"
    return None


def test_the_comment_check_holds_numbers_to_their_digits():
    assert check_printed("not-refuted 0.987...", "not-refuted 0.9871234") is None
    assert "'0.9905'" in check_printed("not-refuted 0.987...", "not-refuted 0.9905")
    assert check_printed("20000 187.6 37.9: mean and s.e.", "20000 187.61 37.94") is None
    assert check_printed("20000 187.6 37.9", "20000 187.66 37.9") is not None  # rounds to 187.7
    assert check_printed("3.878 refuted [9.06465, 15.0568] (exact)", "3.878 refuted [9.064651, 15.05679]") is None
    assert check_printed("refuted [['etc40', 'etc5', 100]]: not while", "refuted [['etc40', 'etc5', 100]]") is None
    assert check_printed("delta=1e-05 in", "delta=1e-05 in [1, 2]") is None
    assert check_printed("refuted 2.06...", "not-refuted 2.06") is not None
    assert check_printed("refuted 2.06 more", "refuted 2.06") is not None  # the print is shorter than the comment
    assert check_printed("False: its sensitivity is 2", "False") is None
    assert check_printed("not reproducible from the run seed: the mechanism", "not reproducible from the run seed: "
                         "the mechanism draws") is None
    assert check_printed("run seed", "run seeds") is not None


#: run in a fresh interpreter (what is imported there is what the blocks import, as for a reader): executes the blocks
#: given on stdin statement by statement in one namespace, and writes, as JSON, each print's output with its comment
#: and the first error of each block
RUNNER = r"""
import ast, contextlib, io, json, sys
if sys.argv[1:] == ["plain"]:  # import as a plain install would: an editable install's finder removed
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, ".")
# the blocks' namespace is the __main__ module, as a reader's script's is: a class defined there pickles (so the
# simulation cache recognises a policy a later block audits again), and this runner's own names stay apart
import types
sys.modules["__main__"] = types.ModuleType("__main__")
namespace, results = sys.modules["__main__"].__dict__, []
for where, block in json.load(sys.stdin):
    for node in ast.parse(block).body:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(ast.Module([node], type_ignores=[]), "<" + where + ">", "exec"), namespace)
        except Exception as exc:
            results.append([where, node.lineno, None, type(exc).__name__ + ": " + str(exc)])
            break
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print":
            tail = block.splitlines()[node.end_lineno - 1][node.end_col_offset:]
            if "#" in tail:
                results.append([where, node.lineno, tail.split("#", 1)[1].strip(), out.getvalue().strip()])
json.dump(results, sys.__stdout__)
"""


def run_blocks(cwd: Path, plain: bool = False) -> list[str]:
    """Every non-pytest block, run by :data:`RUNNER` in ``cwd``: what is wrong, one line each."""
    given = [(f"{page.relative_to(ROOT)}, python block {number}", block) for page, number, block in blocks()
             if not PYTEST_BLOCK.search(block)]
    done = subprocess.run([sys.executable, "-c", RUNNER, *(["plain"] if plain else [])], cwd=cwd, text=True,
                          input=json.dumps(given), capture_output=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    wrong = []
    for where, line, comment, printed in json.loads(done.stdout):
        if comment is None:
            wrong.append(f"{where}, line {line}: {printed}")
        elif differs := check_printed(comment, printed):
            wrong.append(f"{where}, line {line}: {differs}")
    return wrong


def _reader_folder(folder: Path) -> Path:
    """What the pages have a reader make first, in ``folder``: my_mechs.py and a run folder dpaudit-report."""
    (folder / "my_mechs.py").write_text(MY_MECH)
    done = subprocess.run([sys.executable, "-m", "dpaudit", "run", "classic/laplace-eps1", "--workers", "0",
                           "--no-progress"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return folder


def test_every_python_block_runs_and_prints_what_its_comments_say(tmp_path):
    wrong = run_blocks(_reader_folder(tmp_path))
    assert not wrong, "\n".join(wrong)


def test_every_pytest_block_passes_under_pytest(tmp_path):
    found = [(page, number, block) for page, number, block in blocks() if PYTEST_BLOCK.search(block)]
    assert found  # the README's pytest example, at least
    (tmp_path / "my_package.py").write_text(MY_MECH)
    for page, number, block in found:
        path = tmp_path / f"test_{page.stem.replace('-', '_').lower()}_{number}.py"
        path.write_text(block)
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{page.relative_to(ROOT)}, python block {number}:\n{done.stdout}"


# -- the command lines --------------------------------------------------------------------------------------------

SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", flags=re.S | re.M)


def command_lines() -> list[tuple[str, str]]:
    """Every command of the pages' sh blocks, continuation lines joined, comments dropped: (where, command)."""
    found = []
    for page in ORDER:
        for number, match in enumerate(SH_BLOCK.finditer(page.read_text()), 1):
            text = match.group(1).replace("\\\n", " ")
            for line in text.splitlines():
                command = shlex.split(line, comments=True)
                if command:
                    found.append((f"{page.relative_to(ROOT)}, sh block {number}", shlex.join(command)))
    return found


def test_every_dpaudit_command_of_the_pages_parses():
    """Every dpaudit command the pages show is one the command line accepts: its subcommand, options and their
    values' forms (what each does is tested with the command)."""
    from dpaudit.cli.parser import build_parser

    commands = [(where, shlex.split(c)) for where, c in command_lines() if c.startswith("dpaudit ")]
    assert len(commands) >= 30
    wrong = []
    for where, argv in commands:
        try:
            build_parser().parse_args(argv[1:])
        except SystemExit:
            wrong.append(f"{where}: {shlex.join(argv)}")
    assert not wrong, "\n".join(wrong)


#: the pages' commands that finish in seconds, run as shown (exit 0, or 1 where the command refutes what it shows)
QUICK = re.compile(r"^dpaudit (list|audit|report|simulate --list|dpsgd --sampler poisson|regret ucb)\b")


@pytest.mark.slow
def test_the_quick_commands_of_the_pages_run_as_shown(tmp_path):
    """The pages' commands that take seconds, run as a reader would, in a folder with what the pages have them make
    first (my_mechs.py, a run folder, and the compared runs main-report and this-report as copies of it): none exits
    2 (bad input), none prints a traceback. The others (a quick run of every suite, the papers' simulations, the
    test suite) are longer runs that the fast tier's parse check and their own tests cover."""
    folder = _reader_folder(tmp_path)
    for name in ("main-report", "this-report"):
        shutil.copytree(folder / "dpaudit-report", folder / name)
    ran = []
    for where, command in command_lines():
        if not QUICK.match(command) or "--suite" in command:
            continue
        done = subprocess.run([sys.executable, "-m", *shlex.split(command)], cwd=folder, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, f"{where}: {command}\n{done.stderr}"
        ran.append(command)
    assert len(ran) >= 12
