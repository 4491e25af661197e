"""dpaudit's layering, read from the code: no import cycle among dpaudit's modules, and no import across
the layers' rules (dpaudit/ and the folders pyproject.toml maps into it: mechanisms/, algorithms/, audits/).

The layers, bottom up (docs/architecture.md draws them): the shared vocabulary (``dpaudit.core``,
``dpaudit.stats``), the subject handles (``core.subjects``, ``core.samplers``), the exact engines, the bandit
protocols (``bandits.policies``, ``bandits.environments``) and the engine on them (the rest of
``dpaudit.bandits``; its experiments a tier up), the auditors, the audit API, the suites, the reports, the
adapters, the runner and CLI, and the public face (``dpaudit/__init__``, ``testing``). mechanisms/ and
algorithms/ import only the vocabulary and the protocols (algorithms/ also mechanisms/); nothing imports
audits/ but discovery. Inside mechanisms/ (one layer in the picture) the families have rules of their own,
``FAMILIES``: the shared floor and the noise laws at the bottom, the released-code variants at the top.

``KNOWN_VIOLATIONS`` and ``KNOWN_CYCLES`` list the rule breaks and cycles there are (none): the tests fail on
any new one, and on a listed one that has gone, so the lists can only stay empty."""

from __future__ import annotations

import ast
import functools
import importlib.util
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# -- the modules --------------------------------------------------------------------------------------------


def _folders() -> dict[str, Path]:
    """dotted package -> folder: dpaudit/ plus pyproject's package-dir mapping (dpaudit.mechanisms -> mechanisms/)."""
    mapped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return {"dpaudit": ROOT / "dpaudit", **{pkg: ROOT / folder for pkg, folder in mapped.items()}}


def modules() -> dict[str, tuple[Path, bool]]:
    """dotted name -> (file, is a package __init__), for every .py file that installs under dpaudit."""
    out: dict[str, tuple[Path, bool]] = {}
    for pkg, folder in _folders().items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("").parts
            if "__pycache__" in rel:
                continue
            init = rel[-1] == "__init__"
            out[".".join((pkg, *(rel[:-1] if init else rel)))] = (path, init)
    return out


MODULES = modules()

# -- the imports ----------------------------------------------------------------------------------------------


def _absolute(module: str, init: bool, level: int, name: str | None) -> str:
    """``from ..x import y`` in ``module``, as an absolute name (level 1 = the module's own package)."""
    parts = module.split(".") if init else module.split(".")[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def _owner(name: str) -> str:
    """The longest prefix of ``name`` that is a module (``dpaudit.x.f`` -> ``dpaudit.x``)."""
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name


@functools.cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


@functools.cache
def _reexports(package: str) -> dict[str, str]:
    """name -> module that a package's __init__ takes it from (its module-level ``from .x import name``)."""
    path, _ = MODULES[package]
    out = {}
    for node in _parsed(path).body:
        if isinstance(node, ast.ImportFrom):
            base = _absolute(package, True, node.level, node.module) if node.level else node.module or ""
            for alias in node.names:
                out[alias.asname or alias.name] = _owner(f"{base}.{alias.name}")
    return out


@functools.cache
def imports(module: str) -> list[tuple[str, int, str]]:
    """(imported dpaudit module, line, kind) for every import in ``module``; kind is "top", "lazy" (inside a
    function) or "typing" (under ``if TYPE_CHECKING``). ``from pkg import name`` counts as an import of the
    module that defines ``name`` when pkg's __init__ re-exports it, of pkg.name when that is a submodule.
    A package's own __init__ run on the way in is not counted: importing a.b.c runs a and a.b, always."""
    path, init = MODULES[module]
    tree = _parsed(path)
    out = []

    def visit(node: ast.AST, kind: str) -> None:
        for child in ast.iter_child_nodes(node):
            k = kind
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                k = "lazy"
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                k = "typing" if kind == "top" else kind
            if isinstance(child, ast.Import):
                out.extend((_owner(a.name), child.lineno, k) for a in child.names if a.name.split(".")[0] == "dpaudit")
            elif isinstance(child, ast.ImportFrom):
                base = _absolute(module, init, child.level, child.module) if child.level else child.module or ""
                if base.split(".")[0] == "dpaudit":
                    for alias in child.names:
                        target = f"{base}.{alias.name}"
                        if target not in MODULES:
                            owner = _owner(base)
                            target = _reexports(owner).get(alias.name, owner) if MODULES.get(owner, (0, 0))[1] \
                                else owner
                        out.append((target, child.lineno, k))
            visit(child, k)

    visit(tree, "top")
    return out


# -- the rules --------------------------------------------------------------------------------------------

# (prefix, layer): the longest matching prefix names a module's layer
LAYERS = [
    ("dpaudit", "face"), ("dpaudit.__main__", "face"), ("dpaudit._compat", "face"), ("dpaudit._checkout", "face"),
    ("dpaudit.testing", "face"),
    ("dpaudit.pytest_plugin", "face"),
    # the shared vocabulary, and the subject handles a tier above it
    ("dpaudit.core", "core"), ("dpaudit.stats", "core"), ("dpaudit._version", "core"), ("dpaudit.schema", "core"),
    ("dpaudit.core.subjects", "subjects"), ("dpaudit.core.samplers", "subjects"),
    ("dpaudit.exact", "exact"),
    # the bandit wing: the protocols, the engine on them, the papers' experiments
    ("dpaudit.bandits", "engine"),
    ("dpaudit.bandits.policies", "protocols"), ("dpaudit.bandits.environments", "protocols"),
    ("dpaudit.bandits.experiments", "experiments"),
    ("dpaudit.auditors", "auditors"),
    ("dpaudit.api", "api"),
    ("dpaudit.suite", "suite"),
    ("dpaudit.reports", "reports"),
    ("dpaudit.adapters", "adapters"),
    ("dpaudit.runner", "runner"), ("dpaudit.cli", "runner"),
    ("dpaudit.mechanisms", "mechanisms"), ("dpaudit.algorithms", "algorithms"), ("dpaudit.audits", "audits"),
]
_AUDIT = {"core", "subjects", "exact", "protocols", "engine", "auditors", "api"}
BELOW = {  # layer -> the layers it may import (its own included)
    "core": {"core"},
    "subjects": {"core", "subjects"},
    "exact": {"core", "exact"},
    "protocols": {"core", "protocols"},
    "engine": {"core", "protocols", "engine"},
    "experiments": {"core", "protocols", "engine", "experiments"},
    "auditors": {"core", "subjects", "exact", "protocols", "engine", "auditors"},
    "api": _AUDIT,
    "suite": _AUDIT | {"suite"},
    "reports": {"core", "subjects", "auditors", "reports"},
    "adapters": {"core", "subjects", "api", "adapters"},
    "runner": _AUDIT | {"suite", "reports", "experiments", "adapters", "runner"},
    "face": _AUDIT | {"suite", "reports", "experiments", "adapters", "runner", "face"},
    "mechanisms": {"core", "protocols", "mechanisms"},
    "algorithms": {"core", "protocols", "mechanisms", "algorithms"},
    "audits": None,  # the suites use anything; nothing imports them but discovery (DISCOVERY)
}
# lazy look-ups by name, the one door each: (importing layer, imported module prefix)
BY_NAME = {("api", "dpaudit.algorithms.registry"), ("experiments", "dpaudit.algorithms.registry"),
           ("runner", "dpaudit.algorithms.registry"), ("runner", "dpaudit.algorithms.environments"),
           ("adapters", "dpaudit.mechanisms")}
# the only modules that may name dpaudit.audits (a string handed to importlib / pkgutil; _checkout maps the name to
# the checkout's folder, importing nothing)
DISCOVERY = {"dpaudit.suite.discovery", "dpaudit.bandits.experiments.presets", "dpaudit._checkout"}


def layer(module: str) -> str:
    prefix = max((p for p, _ in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return dict(LAYERS)[prefix]


# -- the mechanism families ----------------------------------------------------------------------------------

# Inside the mechanisms layer, each family is a subpackage of dpaudit.mechanisms (mechanisms/<family>/), and the
# shared floor is the few modules left at its top; the package's __init__ re-exports the public names. The picture
# stays at the level of the layers: these rules are held here, beside it. family -> the families it may import
# (its own included), bottom up.
FLOOR = {"dpaudit.mechanisms.base", "dpaudit.mechanisms.enclosures", "dpaudit.mechanisms.piecewise",
         "dpaudit.mechanisms.accounting"}
MECHANISMS_FACE = "dpaudit.mechanisms"
_TEXTBOOK = {"floor", "noise", "classic"}
FAMILIES = {
    "floor": {"floor"},  # base classes, exact-law helpers, advanced composition: what every family shares
    "noise": {"floor", "noise"},  # the noise laws
    "classic": _TEXTBOOK,  # textbook mechanisms
    "shuffle": _TEXTBOOK | {"shuffle"},  # shuffle-model protocols
    "distributed": _TEXTBOOK | {"distributed"},  # dist-mab's distributed sums
    "training": _TEXTBOOK | {"training"},  # DP-SGD and training-time releases
    "counters": _TEXTBOOK | {"shuffle", "counters"},  # trees and counters (concurrent shufflers run P_Vec)
    "glm": _TEXTBOOK | {"shuffle", "counters", "glm"},  # shuffle-glm: P_GD on P_1, Algorithm 2's trees
    # the authors' released code, where it departs from the papers: it may vary any family, none imports it
    "released_code": _TEXTBOOK | {"shuffle", "distributed", "training", "counters", "glm", "released_code"},
}
# the package's __init__ (the public names) may import any family but the released-code variants
FAMILIES["face"] = set(FAMILIES) - {"released_code"}


def family(module: str) -> str | None:
    """The mechanism family of a module of the mechanisms layer: its subpackage of dpaudit.mechanisms, the floor,
    or the face; None for a module at the top of mechanisms/ that is not in the floor (it must pick a family)."""
    if module == MECHANISMS_FACE:
        return "face"
    if module in FLOOR:
        return "floor"
    name = module.split(".")[2]  # dpaudit.mechanisms.<family>[.<module>]
    return name if name in FAMILIES.keys() - {"floor", "face"} else None


def family_violations() -> list[str]:
    """Imports between the mechanism families against ``FAMILIES``, and modules in no family."""
    bad = []
    for module in MODULES:
        if layer(module) != "mechanisms":
            continue
        own = family(module)
        if own is None:
            bad.append(f"{module} is in no mechanism family: move it into a family's package (or, if every family "
                       f"needs it, add it to FLOOR)")
            continue
        for target, _, kind in imports(module):
            if layer(target) != "mechanisms" or target == module:
                continue
            theirs = family(target)
            if theirs not in FAMILIES[own]:
                bad.append(f"{module} ({own}) imports {target} ({theirs}){' lazily' if kind == 'lazy' else ''}")
    return sorted(set(bad))


def violations() -> list[str]:
    bad = []
    for module in MODULES:
        own = layer(module)
        allowed = BELOW[own]
        for target, _, kind in imports(module):
            theirs = layer(target)
            if allowed is None or theirs in allowed or target == module:
                continue
            if kind == "lazy" and any(own == o and target.startswith(p) for o, p in BY_NAME):
                continue
            if theirs == "audits" and module in DISCOVERY:
                continue
            bad.append(f"{module} ({own}) imports {target} ({theirs}){' lazily' if kind == 'lazy' else ''}")
        if allowed is not None and module not in DISCOVERY:
            for node in ast.walk(_parsed(MODULES[module][0])):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                        node.value.startswith("dpaudit.audits"):
                    bad.append(f"{module} names {node.value!r}: only discovery may")
    return sorted(set(bad) | set(family_violations()))


def cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), every kind of import counted."""
    graph = {m: {t for t, _, k in imports(m) if t in MODULES and t != m and k != "typing"} for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                out.append(sorted([v, *component]))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


# what breaks the rules today; each line goes when its import is fixed
KNOWN_VIOLATIONS: set[str] = set()
KNOWN_CYCLES: list[set[str]] = []


def test_no_new_import_cycle():
    found = [set(c) for c in cycles()]
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not new, "new import cycles (move what both sides need below both):\n" + "\n".join(map(str, new))
    assert not gone, "cycles no longer there: remove them from KNOWN_CYCLES:\n" + "\n".join(map(str, gone))


def test_imports_follow_the_layers():
    found = set(violations())
    new, gone = sorted(found - KNOWN_VIOLATIONS), sorted(KNOWN_VIOLATIONS - found)
    assert not new, "imports against the layers (see this file's docstring):\n" + "\n".join(new)
    assert not gone, "rule breaks no longer there: remove them from KNOWN_VIOLATIONS:\n" + "\n".join(gone)


def test_the_walker_sees_lazy_relative_and_re_exported_imports():
    lower_bound = {(t, k) for t, _, k in imports("dpaudit.auditors.lower_bound")}
    assert ("dpaudit.bandits.simulation", "lazy") in lower_bound
    assert any(t == "dpaudit.core.errors" for t, _, _ in imports("dpaudit.exact.finite"))  # from ..errors import
    # ``from dpaudit import PureDP`` in a suite is an import of the module that defines PureDP
    assert "dpaudit.core.claims" in {t for t, _, _ in imports("dpaudit.audits.classic")}


def test_every_relative_import_names_a_module_or_a_name_that_is_there():
    """A relative import resolved against its module's place: a lazy one that points nowhere (a module moved
    and its function's import left behind) would otherwise fail only when the function is called."""
    bad = []
    for module, (path, init) in MODULES.items():
        for node in ast.walk(_parsed(path)):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = _absolute(module, init, node.level, node.module)
                if base not in MODULES:
                    bad.append(f"{module}:{node.lineno} imports from {base}, which is not a module")
                    continue
                defined = _defined(base)
                bad += [f"{module}:{node.lineno} imports {a.name} from {base}, which has no such name"
                        for a in node.names if f"{base}.{a.name}" not in MODULES and a.name not in defined]
    assert not bad, "\n".join(bad)


def _defined(module: str) -> set[str]:
    """The names a module binds at its top level (definitions, assignments, imports)."""
    names: set[str] = set()
    for node in _parsed(MODULES[module][0]).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.If):  # e.g. names bound under TYPE_CHECKING
            names.update(n.name for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
    return names


def test_a_relative_import_that_points_nowhere_is_found(tmp_path, monkeypatch):
    stray = tmp_path / "stray.py"
    stray.write_text("def f():\n    from .core.validation import integer\n    from ..core.validation import nothing\n")
    monkeypatch.setitem(MODULES, "dpaudit.bandits.stray", (stray, False))
    with pytest.raises(AssertionError) as caught:
        test_every_relative_import_names_a_module_or_a_name_that_is_there()
    message = str(caught.value)
    assert "dpaudit.bandits.stray:2 imports from dpaudit.bandits.core.validation, which is not a module" in message
    assert "dpaudit.bandits.stray:3 imports nothing from dpaudit.core.validation, which has no such name" in message


def test_the_architecture_picture_shows_these_rules():
    """docs/architecture.png is drawn from BELOW (tools/architecture.py) and carries its arrows in its text: a
    change of the rules without a new picture fails here."""
    tool = _tool()
    assert tool.describe(tool.edges(BELOW)) == tool.drawn_edges(), "rules changed: run python tools/architecture.py"
    assert not {name for pair in tool.edges(BELOW) for name in pair} - set(tool.PLACES)
    changed = {**BELOW, "mechanisms": {"core", "mechanisms"}}  # the picture's check would see a changed rule
    assert tool.describe(tool.edges(changed)) != tool.drawn_edges()


def _tool():
    spec = importlib.util.spec_from_file_location("architecture_tool", ROOT / "tools" / "architecture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_forbidden_import_or_a_new_cycle_fails(tmp_path, monkeypatch):
    """The rules bite: a mechanism importing an auditor is reported, and so is a module pair that imports
    each other."""
    bad = tmp_path / "leaky.py"
    bad.write_text("from dpaudit.auditors.bounds import certify\n")
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text("from dpaudit.mechanisms import second\n")
    second.write_text("def f():\n    from dpaudit.mechanisms import first\n")
    monkeypatch.setitem(MODULES, "dpaudit.mechanisms.leaky", (bad, False))
    monkeypatch.setitem(MODULES, "dpaudit.mechanisms.first", (first, False))
    monkeypatch.setitem(MODULES, "dpaudit.mechanisms.second", (second, False))
    assert "dpaudit.mechanisms.leaky (mechanisms) imports dpaudit.auditors.bounds (auditors)" in violations()
    assert ["dpaudit.mechanisms.first", "dpaudit.mechanisms.second"] in cycles()


def test_the_mechanism_families_are_the_packages_of_mechanisms():
    """``FAMILIES`` names every subpackage of dpaudit.mechanisms and nothing else, and the floor is the modules
    left at its top: a new family, or a module left flat, must be placed in the table (a rule for it chosen)."""
    packages = {m.split(".")[2] for m, (_, init) in MODULES.items() if init and m.count(".") == 2
                and m.startswith(MECHANISMS_FACE + ".")}
    assert packages == FAMILIES.keys() - {"floor", "face"}
    flat = {m for m, (_, init) in MODULES.items() if not init and m.count(".") == 2
            and m.startswith(MECHANISMS_FACE + ".")}
    assert flat == FLOOR


def test_a_forbidden_cross_family_import_is_reported(tmp_path, monkeypatch):
    """The families' rules bite: a textbook mechanism importing a released-code variant, a noise law importing a
    mechanism (lazily, by a relative import), a family importing the package's face, and a module left at the top
    of mechanisms/ outside the floor are each reported, and fail the layering test."""
    upward, noisy, face, stray = (tmp_path / f"{n}.py" for n in ("upward", "noisy", "face", "stray"))
    upward.write_text("from dpaudit.mechanisms.released_code.glm_released_code import ReleasedCodeTree\n")
    noisy.write_text("def f():\n    from ..classic.additive import LaplaceMechanism\n")
    face.write_text("import dpaudit.mechanisms\n")
    stray.write_text("from .base import ExactRelease\n")
    monkeypatch.setitem(MODULES, "dpaudit.mechanisms.classic.upward", (upward, False))
    monkeypatch.setitem(MODULES, "dpaudit.mechanisms.noise.noisy", (noisy, False))
    monkeypatch.setitem(MODULES, "dpaudit.mechanisms.counters.face", (face, False))
    monkeypatch.setitem(MODULES, "dpaudit.mechanisms.stray", (stray, False))
    found = violations()
    assert ("dpaudit.mechanisms.classic.upward (classic) imports "
            "dpaudit.mechanisms.released_code.glm_released_code (released_code)") in found
    assert ("dpaudit.mechanisms.noise.noisy (noise) imports dpaudit.mechanisms.classic.additive (classic) "
            "lazily") in found
    assert "dpaudit.mechanisms.counters.face (counters) imports dpaudit.mechanisms (face)" in found
    assert any(line.startswith("dpaudit.mechanisms.stray is in no mechanism family") for line in found)
    with pytest.raises(AssertionError, match="imports against the layers"):
        test_imports_follow_the_layers()
    # the same imports between families the table allows are not reported
    allowed = tmp_path / "allowed.py"
    allowed.write_text("from ..counters.tree import BinaryTreeMechanism\nfrom ..shuffle import bit_summation\n")
    monkeypatch.setitem(MODULES, "dpaudit.mechanisms.glm.allowed", (allowed, False))
    assert not [line for line in violations() if line.startswith("dpaudit.mechanisms.glm.allowed")]
