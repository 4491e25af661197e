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
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType


@contextlib.contextmanager
def folder_on_path(folder: Path, keep: bool = False) -> Iterator[None]:
    """``folder`` first on ``sys.path`` inside the block (as ``python FILE.py`` puts the script's folder);
    afterwards ``sys.path`` is as it was, unless ``keep`` (then the folder stays, first)."""
    entry = str(Path(folder).resolve())
    was = sys.path.index(entry) if entry in sys.path else None
    if was is not None:
        del sys.path[was]
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        if not keep:  # take out the entry put first, and only it (the block may have changed the path too)
            if entry in sys.path:
                sys.path.remove(entry)
            if was is not None:
                sys.path.insert(was, entry)


def load_file(path: Path, name: str, *, keep_path: bool = False) -> ModuleType:
    """Execute the ``.py`` file at ``path`` as the module ``name`` (registered in ``sys.modules`` while it
    runs and after, unless a module of that name is there already), with the file's folder on the import
    path (module docstring). A failure propagates; the module is then not left registered."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    registered = name not in sys.modules
    if registered:
        sys.modules[name] = module
    try:
        with folder_on_path(path.parent, keep=keep_path):
            spec.loader.exec_module(module)
    except BaseException:
        if registered:
            sys.modules.pop(name, None)
        raise
    return module


__all__ = ["folder_on_path", "load_file"]
