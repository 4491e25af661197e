"""Readable names of the things dpaudit audits: a mechanism, a sampler with bound parameters, a policy, a law.

Every layer names its subjects in records, reports and messages the same way, so the naming lives here, in
the vocabulary, where the laws, the transcripts and the subject handles all may import it.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any


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


__all__ = ["subject_name"]
