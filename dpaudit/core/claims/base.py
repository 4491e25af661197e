"""What every claim is (:class:`Claim`: a statement with a kind and parameters, checked on construction), and
the checks and names the claim families share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any, ClassVar

from .. import validation
from ..errors import InvalidClaim


def describe_function(f: Callable[..., Any]) -> str:
    """How a claim shows a function it was given without a description: a named function by its
    name, a lambda by its source text when that can be found unambiguously (else ``<lambda>``: a
    repr would carry a memory address into records), any other callable by its repr."""
    name = getattr(f, "__name__", None)
    if name and name != "<lambda>":
        return name
    if name == "<lambda>":
        return _lambda_source(f) or name
    return repr(f)


def _lambda_source(f: Callable[..., Any]) -> str | None:
    """The text ``lambda ...: ...`` of a lambda, from its source lines; None when the lines hold no
    lambda keyword or several (which one is ``f`` is then not known) or the source is unavailable."""
    import inspect
    import io
    import tokenize

    try:
        source = inspect.getsource(f)
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (OSError, TypeError, tokenize.TokenError, SyntaxError):
        return None
    starts = [i for i, tok in enumerate(tokens) if tok.type == tokenize.NAME and tok.string == "lambda"]
    if len(starts) != 1:
        return None
    depth, last = 0, tokens[starts[0]]
    for tok in tokens[starts[0]:]:
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (tok.type in (tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER)
                             or (tok.type == tokenize.OP and tok.string == ",")):
            break
        last = tok
    lines = source.splitlines()
    (row0, col0), (row1, col1) = tokens[starts[0]].start, last.end
    text = "\n".join(lines[row0 - 1:row1])
    # cut the last line at the lambda's end and the first at its start (same line: end first)
    text = text[: len(text) - len(lines[row1 - 1]) + col1][col0:]
    return " ".join(text.split())


def _check(owner: str, name: str, value: Any, ok: Callable[[float], bool], domain: str) -> float:
    return validation.check(owner, name, value, ok, domain, error=InvalidClaim)


def _nonnegative_finite(owner: str, name: str, value: Any) -> float:
    return validation.non_negative(owner, name, value, error=InvalidClaim)


def _positive_finite(owner: str, name: str, value: Any) -> float:
    return validation.positive(owner, name, value, error=InvalidClaim)


def _flag(owner: str, name: str, value: Any) -> bool:
    """A yes/no parameter: True or False (numpy's included). ``bool(value)`` would read any string, even
    ``"false"``, as True and change what the claim says."""
    import numpy as np

    if not isinstance(value, (bool, np.bool_)):
        raise InvalidClaim(f"{owner}: {name} must be True or False, got {value!r}")
    return bool(value)


def _text(owner: str, name: str, value: Any) -> str:
    """A piece of text a record shows (a statement, a description): a string."""
    if not isinstance(value, str):
        raise InvalidClaim(f"{owner}: {name} must be a string, got {value!r}")
    return value


class Claim:
    """Base of all claims. ``kind`` is the claim's name in claim strings and records."""

    kind: ClassVar[str] = "claim"
    family: ClassVar[str] = "other"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if callable(value):
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def describe(self) -> str:
        params = " ".join(f"{k}={_fmt(v)}" for k, v in self.to_dict().items() if k != "kind")
        return f"{self.kind} {params}".strip()

    def __str__(self) -> str:
        return self.describe()


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)  # shortest text that reads back as the same float
    if isinstance(value, (list, tuple)):
        return ",".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k}:{_fmt(v)}" for k, v in value.items())
    return str(value)


__all__ = ["Claim", "describe_function"]
