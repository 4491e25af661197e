"""Loading the user's own ``.py`` file (a mechanism, a policy, a suite) as a module, the way Python runs a
script: with the file's folder first on the import path, so that the file can import the modules beside it
(``import helpers``).

Whether the folder stays on the path afterwards is the caller's choice (``keep_path``):

- kept (the command line's ``FILE.py:ATTR``): a function of the file may import a sibling lazily, when it
  is first called (``def mech(...): import helpers``), long after the file was loaded; and processes started
  later are given this process's ``sys.path``. The command line is one short process, like ``python FILE.py``,
  which keeps the script's folder on the path for its whole run too;
- restored (a suite file, which library code may load into a user's long-lived process): every process that
  needs the file loads it through the same loader, which puts the folder back for the load; a sibling
  imported at the file's top level is then in ``sys.modules`` for good. A suite file whose functions
  import a sibling only when called has to import it at the top instead.

Two things differ from ``python FILE.py``, both so that a user's file cannot break what it runs beside:

- the file is registered under a name of its own (:func:`private_name`: a prefix, a hash of its resolved path and
  its stem), never its bare stem: a user's ``random.py`` or ``statistics.py`` must not take the standard module's
  place in ``sys.modules``, nor two users' ``mech.py`` each other's (pickle, dataclasses and ``typing`` look a
  function's or a class's module up there by its ``__module__``);
- while a user's folder is on the path, a standard-library module is still found where the standard library is
  (a finder ahead of the path's: :data:`sys.stdlib_module_names`), so a file or a sibling named like one does not
  shadow it for the libraries imported after.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType


class _StandardLibraryFirst(importlib.abc.MetaPathFinder):
    """Finds a top-level standard-library module on the import path without the users' folders that
    :func:`folder_on_path` put there, so that a user's ``random.py`` cannot stand in for ``random``."""

    def __init__(self) -> None:
        self.folders: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if path is not None or not self.folders or fullname not in sys.stdlib_module_names:
            return None
        others = [entry for entry in sys.path if entry not in self.folders]
        return importlib.machinery.PathFinder.find_spec(fullname, others, target)


_STANDARD_FIRST = _StandardLibraryFirst()


def private_name(path: Path, prefix: str) -> str:
    """The module name a user's file at ``path`` is registered under: ``prefix``, a hash of the resolved path, and
    the file's stem (for the reader of a traceback); the same file always gets the same name."""
    path = Path(path)
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"{prefix}{digest}_{stem}"


@contextlib.contextmanager
def folder_on_path(folder: Path, keep: bool = False) -> Iterator[None]:
    """``folder`` first on ``sys.path`` inside the block (as ``python FILE.py`` puts the script's folder);
    afterwards ``sys.path`` is as it was, unless ``keep`` (then the folder stays, first)."""
    entry = str(Path(folder).resolve())
    was = sys.path.index(entry) if entry in sys.path else None
    if was is not None:
        del sys.path[was]
    sys.path.insert(0, entry)
    guarded = entry not in _STANDARD_FIRST.folders
    _STANDARD_FIRST.folders.add(entry)
    if _STANDARD_FIRST not in sys.meta_path:
        sys.meta_path.insert(0, _STANDARD_FIRST)
    try:
        yield
    finally:
        if not keep:  # take out the entry put first, and only it (the block may have changed the path too)
            if entry in sys.path:
                sys.path.remove(entry)
            if was is not None:
                sys.path.insert(was, entry)
            if guarded:
                _STANDARD_FIRST.folders.discard(entry)


def load_file(path: Path, name: str, *, keep_path: bool = False) -> ModuleType:
    """Execute the ``.py`` file at ``path`` as the module ``name``, registered in ``sys.modules`` while it runs
    and after, with the file's folder on the import path (module docstring); a module already registered under
    ``name`` is returned as it is (the file was loaded before). ``name`` is unique to the file (the caller's
    :func:`private_name`, or a name of the same kind), never a bare stem. A failure propagates; the module is
    then not left registered."""
    if name in sys.modules:
        return sys.modules[name]
    path = Path(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with folder_on_path(path.parent, keep=keep_path):
            spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


__all__ = ["folder_on_path", "load_file", "private_name"]
