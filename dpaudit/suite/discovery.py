"""Finding suites and their entries: every module of ``dpaudit.audits`` (the built-in suites, one per paper
key plus ``classic``) and the user's own suite modules or ``.py`` files (``dpaudit run --suite PATH``),
and choosing entries by suite key, claim id or glob."""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..core.claim_ids import PAPERS, current_id, selector_matches
from ..core.errors import SelectionError
from ..core.modules import load_file
from .collection import Suite
from .entries import PRESETS_PACKAGE, Entry

#: the package of the built-in suites (the only name of it outside discovery: :mod:`dpaudit.runner.keys` tells
#: suite modules by it)
SUITES_PACKAGE = "dpaudit.audits"
#: the module name a user's suite file loads under (followed by a hash of its path)
USER_SUITE_PREFIX = "_dpaudit_user_suite_"


def _import_suite_module(spec: str):
    path = Path(spec)
    if spec.endswith(".py") or path.is_file():
        if not path.is_file():
            raise SelectionError(f"suite file {spec} does not exist")
        name = USER_SUITE_PREFIX + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
        try:  # with its folder on the import path while it loads, to import the modules beside it
            return load_file(path, name)
        except Exception as exc:
            raise SelectionError(f"could not load suite file {spec}: {type(exc).__name__}: {exc}") from exc
    try:
        return importlib.import_module(spec)
    except Exception as exc:
        raise SelectionError(f"could not import suite module {spec!r}: {type(exc).__name__}: {exc}") from exc


def load_suites(extra: Iterable[str] = ()) -> dict[str, Suite]:
    """The built-in suites (every module of ``dpaudit.audits``) plus ``extra`` modules or files."""
    from dpaudit import audits

    # the experiments package holds presets (dpaudit.bandits.experiments), not a suite
    # (what the user would call it, the module): a suite file is named by its path, not its internal module name
    modules = [(f"suite module {name}", importlib.import_module(name))
               for name in (f"{audits.__name__}.{m.name}" for m in pkgutil.iter_modules(audits.__path__)
                            if m.name != PRESETS_PACKAGE)]
    modules += [(_suite_label(spec), _import_suite_module(spec)) for spec in extra]
    suites: dict[str, Suite] = {}
    for label, module in modules:
        suite = getattr(module, "suite", None)
        if not isinstance(suite, Suite):
            found = "" if suite is None else f" (its `suite` is a {type(suite).__name__})"
            raise SelectionError(f"{label} defines no module-level `suite = Suite(key, title)`{found}")
        if suite.key in suites:
            raise SelectionError(f"two suite modules define the suite key {suite.key!r} (the second: {label})")
        suites[suite.key] = suite
    return suites


def _suite_label(spec: str) -> str:
    return f"suite file {spec}" if spec.endswith(".py") or Path(spec).is_file() else f"suite module {spec}"


def select(suites: dict[str, Suite], selectors: Sequence[str] = ()) -> list[Entry]:
    """Entries chosen by suite keys, claim ids or globs (all entries if none), in suite order."""
    every = [e for s in suites.values() for e in s.entries]
    if not selectors:
        return every
    chosen: dict[str, Entry] = {}
    for selector in selectors:
        selector = current_id(selector)  # a renamed claim's old id selects it (core.claim_ids.RENAMED)
        hits = [e for e in every if selector_matches(selector, e.id)]
        if not hits:
            known = ", ".join(sorted(suites))
            hint = ""
            if selector.casefold() in PAPERS:
                hint = f" (paper {selector!r} has no encoded claims yet)"
            raise SelectionError(f"selector {selector!r} matches no claim{hint}; suites: {known}")
        for e in hits:
            chosen.setdefault(e.claim_id.key, e)
    return [e for e in every if e.claim_id.key in chosen]


def find_entry(claim_id: str, extra: Iterable[str] = ()) -> Entry:
    """The entry with this id (case-insensitive; a renamed claim by its old id too)."""
    key = current_id(claim_id).casefold()
    suite = load_suites(extra).get(key.partition("/")[0])
    for entry in suite.entries if suite else ():
        if entry.claim_id.key == key:
            return entry
    raise SelectionError(f"no entry {claim_id!r}")


__all__ = ["find_entry", "load_suites", "select"]
