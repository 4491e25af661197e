"""dpaudit imported from a checkout's root: the checkout's mechanisms/, algorithms/ and audits/ under dpaudit.*.

An installed dpaudit holds ``dpaudit.mechanisms``, ``dpaudit.algorithms`` and ``dpaudit.audits``: pyproject.toml maps
the checkout's top-level folders of those names there. Python started in a checkout's root finds the root's
``dpaudit/`` folder before any installed copy, and that folder holds none of the three, so ``import dpaudit`` would
succeed there while ``from dpaudit.algorithms import BernoulliBandit`` fails. :func:`map_checkout_folders` maps the
three names to the root's folders, as the install does. It acts only when this package is a checkout's folder (a
``pyproject.toml`` naming dpaudit beside it, the three folders there, none inside it), and its finder comes last on
``sys.meta_path``, so an editable install's own mapping, which does the same, answers first. Importing this module
(``dpaudit/__init__.py`` does, first) installs it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

#: the installed name of each top-level folder of the checkout (pyproject.toml's package-dir)
FOLDERS = {"dpaudit.mechanisms": "mechanisms", "dpaudit.algorithms": "algorithms", "dpaudit.audits": "audits"}


class CheckoutFolders(importlib.abc.MetaPathFinder):
    """Finds ``dpaudit.mechanisms``, ``.algorithms`` and ``.audits`` in the checkout at ``root``; their
    subpackages are then found through the folder each one's ``__path__`` names."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(self, fullname: str, path=None, target=None) -> importlib.machinery.ModuleSpec | None:
        folder = FOLDERS.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(fullname, self.root / folder / "__init__.py",
                                                      submodule_search_locations=[str(self.root / folder)])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"


def checkout_root(package: Path) -> Path | None:
    """The checkout whose ``dpaudit/`` folder is ``package``, or None (an installed package)."""
    root = package.parent
    if any((package / folder).is_dir() for folder in FOLDERS.values()):
        return None  # an installed package: the folders are inside it
    if not all((root / folder / "__init__.py").is_file() for folder in FOLDERS.values()):
        return None
    try:
        pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if 'name = "dpaudit"' in pyproject else None


def map_checkout_folders(package: Path) -> None:
    """Put a :class:`CheckoutFolders` last on ``sys.meta_path`` when ``package`` is a checkout's folder (once)."""
    root = checkout_root(package)
    if root is not None and not any(type(f).__name__ == CheckoutFolders.__name__ for f in sys.meta_path):
        sys.meta_path.append(CheckoutFolders(root))


map_checkout_folders(Path(__file__).resolve().parent)  # on import: dpaudit/__init__.py imports this module first
