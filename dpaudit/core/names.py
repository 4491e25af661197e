"""Readable names of the things dpaudit audits: a mechanism, a sampler with bound parameters, a policy, a law.

Every layer names its subjects in records, reports and messages the same way, so the naming lives here, in
the vocabulary, where the laws, the transcripts and the subject handles all may import it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterable
from typing import Any

from .errors import UnknownName


def _short(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else subject_name(value) if callable(value) else repr(value)


def subject_name(obj: Any) -> str:
    """A readable name: the object's ``name`` attribute; for a function or class, its qualified name
    (or the ``__name__`` its maker gave it); for a sampler with bound parameters, its function and
    their values; else its repr if it defines one, or its type's qualified name."""
    name = getattr(obj, "name", None)
    if isinstance(name, str) and name:
        return name
    if isinstance(obj, functools.partial):  # a sampler with its parameters bound: name them, not the address
        bound = [_short(a) for a in obj.args] + [f"{k}={_short(v)}" for k, v in obj.keywords.items()]
        return f"{subject_name(obj.func)}({', '.join(bound)})"
    if inspect.isroutine(obj) or inspect.isclass(obj):
        qualname = getattr(obj, "__qualname__", None) or repr(obj)
        name = getattr(obj, "__name__", None)
        # a function given a descriptive __name__ by its maker is named by it
        return name if isinstance(name, str) and name != qualname.rpartition(".")[2] else qualname
    if type(obj).__repr__ is not object.__repr__:
        return repr(obj)
    return type(obj).__qualname__


class Registry(dict):
    """A name -> thing registry (algorithms, presets, relations, ...): a plain ``dict`` to its users (``in``,
    iteration, ``.get``, ``isinstance(r, dict)``), except that looking up a name it does not hold,
    ``registry["typo"]``, raises :class:`~dpaudit.core.errors.UnknownName` (a ``KeyError``) saying what is
    known: ``unknown algorithm 'ucbb' (did you mean ucb?); known: ftnl, ucb, ...``. ``kind`` names what
    it holds in that message. Copies (``dict(r)``, ``{**r}``) are plain dicts."""

    def __init__(self, kind: str, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.kind = kind

    def __missing__(self, name: Any) -> Any:
        raise UnknownName(unknown_name(getattr(self, "kind", "name"), name, self))

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {dict.__repr__(self)})"


def unknown_name(kind: str, name: Any, known: Iterable[Any]) -> str:
    """One line: ``unknown <kind> 'name' (did you mean ...?); known: a, b, c`` (names in registry order)."""
    import difflib

    names = [str(k) for k in known]
    close = difflib.get_close_matches(str(name), names, n=3) if isinstance(name, str) else []
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    return f"unknown {kind} {name!r}{hint}; known: {', '.join(names) if names else 'none'}"


__all__ = ["Registry", "subject_name", "unknown_name"]
