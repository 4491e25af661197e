"""Content keys of claims: a hash of everything that decides a claim's record, so that ``dpaudit run`` into a
folder that holds an earlier run reuses the records whose key is unchanged and audits only the rest.

A claim's key hashes:

- its id, the run's seed and budget, and the claim's share of alpha;
- the entry, structurally (:class:`_Walker`): its claim, neighbours, samples, horizons and runs per budget,
  expectation, and the subject's parameters: every attribute, array and number reachable from it, the
  functions among them by their code and the globals their code reads;
- the code: the source of every module the entry's objects come from (a mechanism's class, a sampler
  function, a policy looked up by its registry name) and of every module of the project those import,
  followed through their imports (:class:`SourceIndex`); and the auditors' code: the same closure of the
  modules that audit every claim (the audit API, the suites' entries, the worker, the plots);
- dpaudit's version, Python's, and those of the third-party libraries the objects and the code reach.

So a change to one mechanism file changes the keys of the claims whose subject's closure holds it, and of
no other; a change to an auditor or to dpaudit's core changes every key. A suite module (the built-in ones under
``dpaudit.audits``, a user's ``--suite`` file) counts by its own source only, not by everything it imports:
it imports every mechanism of its paper, and its entries name what they use.

Where the hash cannot see, it errs towards running again: an object it cannot walk gives no key (the claim is
always audited). What it does not see: data files the code reads, and code loaded by name at run time other than
through the algorithm registry; a change to either needs ``--fresh``.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata
import importlib.util
import platform
import sys
import sysconfig
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..suite.discovery import SUITES_PACKAGE, USER_SUITE_PREFIX

#: the modules every claim is audited through: their closure is in every key
AUDIT_MODULES = ("dpaudit.api.driver", "dpaudit.api.records", "dpaudit.api.privacy", "dpaudit.api.regret",
                 "dpaudit.api.tail", "dpaudit.suite.entries", "dpaudit.suite.regret", "dpaudit.runner.worker",
                 "dpaudit.reports.plots")
#: lazy imports that look code up by name (the one door each, see the layering test): followed only when an
#: entry names what it looks up, else every claim would depend on every algorithm
BY_NAME = ("dpaudit.algorithms", "dpaudit.algorithms.registry", "dpaudit.mechanisms", SUITES_PACKAGE)
#: the walk of one entry gives up (no key: the claim always runs) beyond this many objects
MAX_NODES = 200_000
#: nor does it follow attributes deeper than this
MAX_DEPTH = 40
#: objects whose state is not a parameter (a generator's position moves as it is used): their type only
_OPAQUE = (np.random.Generator, np.random.RandomState, np.random.BitGenerator, types.GeneratorType,
           types.FrameType, types.TracebackType)


class Unkeyable(Exception):
    """The entry holds something the key cannot account for: its claim is audited every time."""


def _third_party_dirs() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    dirs = {Path(paths[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    dirs |= {Path(p).resolve() for p in (sys.base_prefix, sys.prefix) if p}
    return tuple(sorted(dirs))


@functools.cache
def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@functools.cache
def _version_of(top: str) -> str:
    """The installed version of top-level package ``top`` (its distribution's, else its ``__version__``)."""
    try:
        return importlib.metadata.version(top)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        pass
    module = sys.modules.get(top)
    version = getattr(module, "__version__", None)
    if version is None:  # an import name that is not its distribution's name (sklearn, flint): one scan
        dists = _distributions().get(top, [])
        return ",".join(f"{d}=={importlib.metadata.version(d)}" for d in sorted(set(dists))) or "?"
    return str(version)


@functools.cache
def _distributions() -> dict[str, list[str]]:
    return dict(importlib.metadata.packages_distributions())


def library_of(module: str) -> str | None:
    """The third-party library (top-level name) module ``module`` belongs to; None for dpaudit's, the standard
    library's and the interpreter's own."""
    top = module.split(".")[0]
    if not top or top in ("dpaudit", "builtins", "__main__") or top.startswith("_dpaudit") \
            or top in sys.stdlib_module_names:
        return None
    return top


@functools.cache
def _parsed(path: str) -> ast.Module:
    return ast.parse(Path(path).read_bytes())


def _import_statements(body: list[ast.stmt]) -> Iterable[ast.Import | ast.ImportFrom]:
    """The import statements among ``body`` and the statements nested in it (a function's lazy imports
    included); expressions are not entered: an import is always a statement."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            nested = getattr(node, field, None)
            if isinstance(nested, list):
                yield from _import_statements(nested)


def _from_base(package: str, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` in ``package`` names (``from ..x import y`` resolved)."""
    base = node.module or ""
    if not node.level:
        return base
    parts = package.split(".")
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([base] if base else []))


class SourceIndex:
    """The project's modules as source files, and the closure of each through its imports.

    A module belongs to the project when it is dpaudit's or its file lies outside the standard library and
    the installed packages (a user's suite file and the modules beside it); only those are followed. Third-party
    modules reached are recorded by their top-level name, to hash their distribution's version."""

    def __init__(self) -> None:
        self._outside = _third_party_dirs()
        self._files: dict[str, str | None] = {}
        self._closures: dict[str, frozenset[str]] = {}
        self._libraries: dict[str, frozenset[str]] = {}

    # -- which modules are the project's, and their files --

    def file_of(self, name: str) -> str | None:
        """The source file of project module ``name``, None for a third-party, built-in or missing one."""
        if not name:
            return None
        if name in self._files:
            return self._files[name]
        self._files[name] = path = self._locate(name)
        return path

    def _locate(self, name: str) -> str | None:
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None) if module is not None else None
        if origin is None and module is None:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError, AttributeError):
                return None
            origin = spec.origin if spec is not None else None
        if not origin or not origin.endswith(".py"):
            return None
        path = Path(origin).resolve()
        if name == "dpaudit" or name.startswith("dpaudit."):
            return str(path)
        if any(path.is_relative_to(d) for d in self._outside):
            return None
        return str(path)

    def is_suite(self, name: str) -> bool:
        """Whether ``name`` is a suite module: a built-in one, or a user's suite file."""
        return name == SUITES_PACKAGE or name.startswith((SUITES_PACKAGE + ".", USER_SUITE_PREFIX))

    # -- imports --

    @functools.cache  # noqa: B019 - one index per run; the cache dies with it
    def imports(self, name: str) -> tuple[str, ...]:
        """The project modules ``name`` imports, at module level or inside a function. ``from pkg import x`` is
        an import of ``pkg.x`` where that is a module, else of the module pkg's ``__init__`` takes ``x`` from,
        else of ``pkg``; the lazy by-name doors (:data:`BY_NAME`) are left out."""
        path = self.file_of(name)
        if path is None:
            return ()
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        found: set[str] = set()
        for node in _import_statements(_parsed(path).body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                base = _from_base(package, node)
                for alias in node.names:
                    found.add(self._from_target(base, alias.name))
        out = []
        libraries = set()
        for target in sorted(found):
            if target in BY_NAME or target == name:
                continue
            if self.file_of(target) is not None:
                out.append(target)
            elif library_of(target):
                libraries.add(library_of(target))
        self._libraries[name] = frozenset(libraries)
        return tuple(out)

    def libraries(self, modules: Iterable[str]) -> set[str]:
        """The third-party libraries (top-level names) the closures of ``modules`` import."""
        found: set[str] = set()
        for name in modules:
            for member in self.closure(name):
                self.imports(member)
                found |= self._libraries.get(member, frozenset())
        return found

    def _from_target(self, base: str, attr: str) -> str:
        if attr == "*":
            return base
        candidate = f"{base}.{attr}"
        if candidate in sys.modules or self._is_submodule(base, candidate):
            return candidate
        reexported = self._reexports(base).get(attr)
        return reexported or base

    def _is_submodule(self, base: str, candidate: str) -> bool:
        path = self.file_of(base)
        if path is None or not path.endswith("__init__.py"):
            return False
        folder = Path(path).parent
        last = candidate.rpartition(".")[2]
        return (folder / f"{last}.py").is_file() or (folder / last / "__init__.py").is_file()

    @functools.cache  # noqa: B019 - one index per run
    def _reexports(self, package: str) -> dict[str, str]:
        """name -> module that a package's ``__init__`` takes it from (its module-level ``from .x import name``)."""
        path = self.file_of(package)
        if path is None or not path.endswith("__init__.py"):
            return {}
        out = {}
        for node in _parsed(path).body:
            if isinstance(node, ast.ImportFrom):
                base = _from_base(package, node)
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    out[alias.asname or alias.name] = candidate if self._is_submodule(base, candidate) else base
        return out

    def closure(self, name: str) -> frozenset[str]:
        """``name`` and every project module reachable from it through imports; a suite module is its own file
        only (module docstring)."""
        if name in self._closures:
            return self._closures[name]
        if self.file_of(name) is None:
            return frozenset()
        if self.is_suite(name):
            self._closures[name] = frozenset([name])
            return self._closures[name]
        seen = {name}
        todo = [name]
        while todo:
            for target in self.imports(todo.pop()):
                if target not in seen and not self.is_suite(target):
                    seen.add(target)
                    todo.append(target)
        self._closures[name] = frozenset(seen)
        return self._closures[name]

    def digest(self, modules: Iterable[str]) -> str:
        """The hash of the sources of ``modules``' closures."""
        every: set[str] = set()
        for name in modules:
            every |= self.closure(name)
        h = hashlib.sha256()
        for name in sorted(every):
            path = self.file_of(name)
            if path is not None:
                h.update(f"{name}:{_file_digest(path)}\n".encode())
        return h.hexdigest()


class _Walker:
    """A structural hash of an object graph, and the modules whose code it reaches."""

    def __init__(self, index: SourceIndex, names: dict[str, Any]):
        self.index = index
        self.names = names  # registry name -> what it resolves to
        self._parts: list[str] = []
        self.modules: set[str] = set()
        self.libraries: set[str] = set()
        self._seen: dict[int, int] = {}
        self._alive: list[Any] = []  # keeps walked objects alive, so that their ids are not reused meanwhile

    def _feed(self, *parts: Any) -> None:
        self._parts.append("\x1f".join(map(str, parts)))

    def hexdigest(self) -> str:
        return hashlib.sha256("\x1e".join(self._parts).encode("utf-8", "surrogatepass")).hexdigest()

    def _module(self, name: str | None) -> None:
        """Count module ``name``: by its source if it is the project's, else by its library's version."""
        if not name:
            return
        if self.index.file_of(name) is not None:
            self.modules.add(name)
        elif library_of(name):
            self.libraries.add(library_of(name))

    def walk(self, obj: Any, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise Unkeyable(f"an object nests deeper than {MAX_DEPTH} levels")
        if obj is None or isinstance(obj, (bool, int, float, complex, bytes)):
            self._feed(type(obj).__name__, repr(obj))
            return
        if isinstance(obj, str):
            self._feed("str", obj)
            if obj in self.names:  # a registry name: the code it names
                self.walk(self.names[obj], depth + 1)
            return
        if isinstance(obj, np.generic):
            self._feed("np", obj.dtype.str, repr(obj.item()) if obj.dtype.kind != "O" else "")
            return
        key = id(obj)
        if key in self._seen:
            self._feed("ref", self._seen[key])
            return
        self._seen[key] = len(self._seen)
        self._alive.append(obj)
        if len(self._seen) > MAX_NODES:
            raise Unkeyable(f"the subject reaches more than {MAX_NODES} objects")
        self._compound(obj, depth + 1)

    def _compound(self, obj: Any, depth: int) -> None:
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind == "O":
                self._feed("ndarray-O", obj.shape)
                for item in obj.ravel().tolist():
                    self.walk(item, depth)
            else:
                self._feed("ndarray", obj.dtype.str, obj.shape,
                           hashlib.sha256(np.ascontiguousarray(obj).tobytes()).hexdigest())
            return
        if isinstance(obj, (list, tuple)):
            self._feed(type(obj).__name__, len(obj))
            for item in obj:
                self.walk(item, depth)
            return
        if isinstance(obj, dict):
            self._feed("dict", type(obj).__name__, len(obj))
            for k, v in obj.items():
                self.walk(k, depth)
                self.walk(v, depth)
            return
        if isinstance(obj, (set, frozenset)):
            digests = []
            for item in obj:
                sub = _Walker(self.index, self.names)
                sub.walk(item, depth)
                digests.append(sub.hexdigest())
                self.modules |= sub.modules
                self.libraries |= sub.libraries
            self._feed("set", *sorted(digests))
            return
        if isinstance(obj, types.ModuleType):
            self._feed("module", obj.__name__)
            self._module(obj.__name__)
            return
        if isinstance(obj, type):
            self._class(obj, depth)
            return
        if isinstance(obj, functools.partial):
            self._feed("partial")
            self.walk(obj.func, depth)
            self.walk(obj.args, depth)
            self.walk(obj.keywords, depth)
            return
        if isinstance(obj, (types.MethodType,)):
            self._feed("method", getattr(obj.__func__, "__qualname__", type(obj.__func__).__qualname__))
            self.walk(obj.__self__, depth)
            self.walk(obj.__func__, depth)
            return
        if isinstance(obj, types.FunctionType):
            self._function(obj, depth)
            return
        if isinstance(obj, (types.BuiltinFunctionType, types.MethodWrapperType, types.WrapperDescriptorType,
                            types.MethodDescriptorType, types.GetSetDescriptorType, types.MemberDescriptorType)):
            owner = getattr(obj, "__self__", None)
            self._feed("builtin", getattr(obj, "__module__", "") or "", getattr(obj, "__qualname__", ""))
            if owner is not None and not isinstance(owner, types.ModuleType):
                self.walk(owner, depth)
            return
        if isinstance(obj, np.random.SeedSequence):
            self._feed("seedseq", obj.entropy, obj.spawn_key, obj.pool_size, obj.n_children_spawned)
            return
        if isinstance(obj, _OPAQUE):
            self._feed("opaque", type(obj).__module__, type(obj).__qualname__)
            return
        self._instance(obj, depth)

    def _class(self, cls: type, depth: int) -> None:
        self._feed("class", cls.__module__, cls.__qualname__)
        for base in cls.__mro__:
            module = base.__module__
            self._module(module)
            if self.index.file_of(module) is None:
                continue
            if self.index.is_suite(module):  # a class written in a suite: what its methods use
                for value in vars(base).values():
                    if isinstance(value, (types.FunctionType, staticmethod, classmethod, property)):
                        for fn in (getattr(value, "__func__", None), getattr(value, "fget", None), value):
                            if isinstance(fn, types.FunctionType):
                                self._globals_of(fn, depth)

    def _function(self, fn: types.FunctionType, depth: int) -> None:
        module = fn.__module__
        self._feed("function", module, fn.__qualname__)
        if module and self.index.is_suite(module):  # a function written in a suite (a lambda, say): what it reads
            self._module(module)
            self._code(fn.__code__)
            self._globals_of(fn, depth)
        else:
            # a library function counts by its module's source; a third-party one by its library's version
            self._module(module)
            if self.index.file_of(module) is None:
                return
        self.walk(fn.__defaults__, depth)
        self.walk(fn.__kwdefaults__, depth)
        for cell in fn.__closure__ or ():
            try:
                self.walk(cell.cell_contents, depth)
            except ValueError:  # an empty cell
                self._feed("empty-cell")

    def _code(self, code: types.CodeType) -> None:
        self._feed("code", code.co_code.hex(), code.co_names, code.co_varnames)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                self._code(const)
            else:
                self._feed("const", type(const).__name__, repr(const))

    def _globals_of(self, fn: types.FunctionType, depth: int) -> None:
        scope = fn.__globals__
        for name in sorted(_names_read(fn.__code__)):
            if name in scope and not name.startswith("__"):
                value = scope[name]
                if _is_suite_object(value):
                    continue
                self._feed("global", name)
                self.walk(value, depth)

    def _instance(self, obj: Any, depth: int) -> None:
        cls = type(obj)
        self._class(cls, depth)
        if _is_suite_object(obj):
            raise Unkeyable("an entry's object holds a suite")
        cached = {name for klass in cls.__mro__ for name, value in vars(klass).items()
                  if isinstance(value, functools.cached_property)}
        state: dict[str, Any] | None = None
        if hasattr(obj, "__dict__"):
            state = {k: v for k, v in vars(obj).items() if k not in cached}
        slots = [s for klass in cls.__mro__ for s in getattr(klass, "__slots__", ()) if isinstance(s, str)]
        if slots:
            state = dict(state or {})
            for slot in slots:
                if slot not in ("__dict__", "__weakref__") and hasattr(obj, slot):
                    state.setdefault(slot, getattr(obj, slot))
        if state is not None:
            self.walk(state, depth)
            return
        # an object with neither a __dict__ nor slots (a slice, a C extension's value) holds its state where only
        # pickling sees it: its constructor's arguments and state, as __reduce_ex__ gives them
        try:
            reduced = obj.__reduce_ex__(4)
        except Exception as exc:  # noqa: BLE001 - an object that does not pickle: no key
            raise Unkeyable(f"cannot see inside a {cls.__module__}.{cls.__qualname__}: {exc}") from None
        if isinstance(reduced, str):  # a module-level singleton, named
            self._feed("global", reduced)
            return
        self.walk(tuple(reduced[1:3]), depth)


def _names_read(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_read(const)
    return names


def _is_suite_object(value: Any) -> bool:
    from ..suite.collection import Suite

    return isinstance(value, Suite)


def registry_names() -> dict[str, Any]:
    """The names an entry may give instead of code (a built-in algorithm): name -> its constructor."""
    from dpaudit.algorithms.registry import ALGORITHMS

    return dict(ALGORITHMS)


class KeyMaker:
    """Keys for the entries of one run (one :class:`SourceIndex`, shared)."""

    def __init__(self) -> None:
        self.index = SourceIndex()
        self.names = registry_names()
        self._audit_digest = self.index.digest(AUDIT_MODULES)
        self._audit_libraries = self.index.libraries(AUDIT_MODULES)

    def key(self, entry: Any, *, run_seed: int, budget: str, alpha: float | None) -> str | None:
        """The entry's key in this run, or None where the entry holds what a key cannot account for
        (:class:`Unkeyable`): such a claim is audited every time."""
        walker = _Walker(self.index, self.names)
        try:
            walker.walk(entry)
        except Exception:  # noqa: BLE001 - Unkeyable, too deep, or an object the walk does not know: audited every time
            return None
        modules = sorted(walker.modules)
        code = self.index.digest(modules)
        third = sorted(walker.libraries | self.index.libraries(modules) | self._audit_libraries | {"numpy", "scipy"})
        parts = [
            f"dpaudit {__version__}",
            f"python {platform.python_version()}",
            "libraries " + " ".join(f"{t}:{_version_of(t)}" for t in third),
            f"claim {entry.id}",
            f"run seed {run_seed} budget {budget} alpha {alpha!r}",
            f"entry {walker.hexdigest()}",
            f"code {code}",
            f"auditors {self._audit_digest}",
        ]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()


__all__ = ["AUDIT_MODULES", "KeyMaker", "SourceIndex", "Unkeyable"]
