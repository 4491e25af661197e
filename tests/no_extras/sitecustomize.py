"""Started with every Python process of a test that puts this folder on PYTHONPATH: the modules named in
``DPAUDIT_BLOCKED_MODULES`` (comma-separated top-level names) cannot be imported, as on a machine where
``pip install .`` installed dpaudit without its extras. Worker processes inherit the environment, so
they are blocked too."""

import os
import sys
from importlib.abc import MetaPathFinder

_BLOCKED = frozenset(name for name in os.environ.get("DPAUDIT_BLOCKED_MODULES", "").split(",") if name)


class _NotInstalled(MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {fullname!r} (an extra, not installed here)", name=fullname)
        return None


if _BLOCKED:
    sys.meta_path.insert(0, _NotInstalled())
