"""What the user types, read: a mechanism or policy given as ``file.py:name`` or ``module:name``, a pair of
inputs, a literal, an environment."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.modules import load_file, private_name

#: the module name a ``FILE.py:ATTR`` target loads under (followed by a hash of its path and its stem)
USER_FILE_PREFIX = "_dpaudit_user_file_"


def load_target(target: str) -> Any:
    """Load ``MODULE:ATTR`` (module name or path to a .py file; ATTR may be dotted). A file is run with its
    folder first on the import path, so that it can import the modules beside it, and the folder stays
    on the path for the rest of the command (:mod:`dpaudit.core.modules`); a module name is imported with
    the current folder on the path."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"{target!r}: expected MODULE:ATTR, e.g. mymech.py:mech or mypackage.mechs:laplace")
    path = Path(module_name)
    try:
        if module_name.endswith(".py") or path.is_file():
            if not path.is_file():
                raise UsageError(f"{module_name}: no such file")
            # the file's folder first on the import path, and kept there (dpaudit.core.modules says why)
            # under a name of its own, not its stem: a user's random.py must not become sys.modules["random"]
            module = load_file(path, private_name(path, USER_FILE_PREFIX), keep_path=True)
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except UsageError:
        raise
    except ModuleNotFoundError as exc:
        raise UsageError(f"cannot import {module_name!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import
        raise UsageError(f"importing {module_name!r} raised {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{module_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if isinstance(obj, type):
        raise UsageError(f"{target} is a class; name an instance or a function (e.g. mech = {attr}(...))")
    return obj


#: the largest power of ten a count may be written with (1e30): beyond it, no count is meant
_COUNT_DIGITS = 30


def whole_number(text: str, what: str) -> int:
    """A count as the user may type it: ``1000000``, ``1_000_000``, ``1e6`` or ``2.5e3``, i.e. any decimal
    number that is an exact integer; anything else (``1.5``, ``1e-3``, ``inf``) is a one-line
    :class:`~dpaudit.core.errors.UsageError` naming ``what``. The range (at least 1, ...) is the command's
    to check."""
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite() or value != value.to_integral_value():
        raise UsageError(f"{what}: {text!r} is not a whole number (write e.g. 1000000 or 1e6)")
    if value.adjusted() > _COUNT_DIGITS:
        raise UsageError(f"{what}: {text!r} is too large a count")
    return int(value)


def count(text: str) -> int:
    """argparse ``type=`` of a count option (--samples, --runs, --horizon, --workers): :func:`whole_number`,
    its error turned into argparse's (one line: ``argument --samples: '1.5' is not a whole number``)."""
    import argparse

    try:
        return whole_number(text, "value")
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("value: ")) from None


def parse_pair(text: str) -> tuple[Any, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--pair {text!r} is not valid JSON ({exc.msg}); write e.g. '[0, 1]'") from None
    if not isinstance(value, list) or len(value) != 2:
        raise UsageError(f"--pair {text!r} must be a JSON list of two inputs [d0, d1]")
    return value[0], value[1]


def literal(text: str, what: str) -> Any:
    import ast

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if text.replace("-", "").replace("_", "").isalnum():
            return text  # a bare word is a string
        raise UsageError(f"{what}: {text!r} is not a literal (number, string, list, ...)") from None


def parse_environment(text: str) -> Any:
    """``ClassName(literal arguments)`` of :mod:`dpaudit.algorithms.environments`, or ``MODULE:ATTR``."""
    import ast

    from ..algorithms import environments

    if ":" in text and "(" not in text:
        return load_target(text)
    public = sorted(n for n in dir(environments) if n[:1].isupper())
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        node = None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id not in public:
        raise UsageError(f"--env {text!r}: expected an environment call such as 'BernoulliBandit([0.6, 0.5])' "
                         f"(one of {', '.join(public)}) or MODULE:ATTR")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except ValueError:
        raise UsageError(f"--env {text!r}: the arguments must be literals (numbers, strings, lists)") from None
    try:
        return getattr(environments, node.func.id)(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--env {text!r}: {exc}") from None
