"""Claims from text (the CLI's ``--claim``): :func:`parse_claim`."""

from __future__ import annotations

import re
from typing import Any

from ..errors import InvalidClaim
from .base import Claim
from .privacy import ZCDP, ApproxDP, PureDP, RenyiDP
from .regret import (
    RegretBound,
    RegretOrder,
    RegretRate,
)
from .tail import Accuracy, SubExponential, SubGaussian

_ALIASES = {"eps": "epsilon", "ε": "epsilon", "δ": "delta", "ρ": "rho", "σ": "sigma", "α": "alpha"}
_PARSABLE: dict[str, tuple[type[Claim], tuple[str, ...]]] = {
    "pure-dp": (PureDP, ("epsilon",)),
    "approx-dp": (ApproxDP, ("epsilon", "delta")),
    "renyi-dp": (RenyiDP, ("alpha", "epsilon")),
    "zcdp": (ZCDP, ("rho",)),
    "sub-gaussian": (SubGaussian, ("sigma",)),
    "sub-exponential": (SubExponential, ("nu", "b")),
    "accuracy": (Accuracy, ("alpha", "beta")),
}
_KIND_ALIASES = {"pure": "pure-dp", "dp": "pure-dp", "approx": "approx-dp", "rdp": "renyi-dp", "renyi": "renyi-dp"}


def parse_claim(text: str) -> Claim:
    """Parse a claim string such as ``"pure-dp eps=0.1"`` or ``"approx-dp eps=1 delta=1e-6"``.

    Kinds: pure-dp (epsilon), approx-dp (epsilon, delta), renyi-dp (alpha, epsilon), zcdp (rho),
    sub-gaussian (sigma), sub-exponential (nu, b), accuracy (alpha, beta). ``eps`` abbreviates
    ``epsilon``; a Renyi curve is written ``renyi-dp alpha=2,4 eps=0.5,1``. A regret rate is written
    ``regret-rate T^0.5 log^1`` (variable^exponent, then an optional log^power; also
    ``regret-rate eps^-1``); an ordering ``regret-order a < b,c < d [at=grid]``; a
    :class:`RegretBound` is Python-only (its function cannot be parsed).
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidClaim("claim string is empty; try e.g. 'pure-dp eps=0.1'")
    head, *assignments = text.replace(",", " , ").split()
    kind = _KIND_ALIASES.get(head.lower(), head.lower())
    if kind == RegretRate.kind:
        return _parse_rate(text, assignments)
    if kind == RegretOrder.kind:
        return _parse_order(text)
    if kind == RegretBound.kind:
        raise InvalidClaim(f"{text!r}: a regret-bound claim is a function of T, which a claim string cannot carry "
                           "safely; RegretBound is Python-only (dpaudit.RegretBound(lambda T: ..., 'description')). "
                           "Rates parse: 'regret-rate T^0.5 log^1'")
    if kind not in _PARSABLE:
        known = ", ".join([*_PARSABLE, RegretRate.kind, RegretOrder.kind])
        raise InvalidClaim(f"unknown claim kind {head!r} in {text!r}; known kinds: {known}")
    cls, required = _PARSABLE[kind]
    values: dict[str, list[str]] = {}
    last: str | None = None
    for token in assignments:
        if token == ",":
            if last is None:
                raise InvalidClaim(f"misplaced ',' in claim {text!r}")
            continue
        if "=" in token:
            key, _, raw = token.partition("=")
            key = _ALIASES.get(key.lower(), key.lower())
            if key not in required:
                raise InvalidClaim(f"{kind} takes {', '.join(required)}; got {key!r} in {text!r}")
            if key in values:
                raise InvalidClaim(f"{key} given twice in {text!r}")
            values[key] = [raw] if raw else []
            last = key
        elif last is not None:
            values[last].append(token)
        else:
            raise InvalidClaim(f"expected key=value in claim {text!r}, got {token!r}")
    missing = [k for k in required if k not in values or not values[k]]
    if missing:
        raise InvalidClaim(f"{kind} needs {', '.join(f'{k}=...' for k in missing)} (claim {text!r})")
    kwargs: dict[str, Any] = {}
    for key, raws in values.items():
        try:
            numbers_ = [float(r) for r in raws]
        except ValueError:
            raise InvalidClaim(f"{key} must be a number in claim {text!r}, got {' '.join(raws)!r}") from None
        kwargs[key] = tuple(numbers_) if len(numbers_) > 1 else numbers_[0]
    return cls(**kwargs)


_POWER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\^\(?([-+0-9.eE]+)\)?")


def _parse_rate(text: str, tokens: list[str]) -> RegretRate:
    """``regret-rate <variable>^<exponent> [log^<power>]``."""
    example = "e.g. 'regret-rate T^0.5 log^1' or 'regret-rate eps^-1'"
    tokens = [t for t in tokens if t != ","]
    if not 1 <= len(tokens) <= 2:
        raise InvalidClaim(f"regret-rate takes <variable>^<exponent> and an optional log^<power>, {example}; got "
                           f"{text!r}")
    parsed = []
    for token in tokens:
        match = _POWER.fullmatch(token)
        if match is None:
            raise InvalidClaim(f"expected <name>^<number> in claim {text!r}, got {token!r} ({example})")
        try:
            parsed.append((match.group(1), float(match.group(2))))
        except ValueError:
            raise InvalidClaim(f"{token!r} must end in a number in claim {text!r} ({example})") from None
    (variable, exponent), log_power = parsed[0], 0.0
    if variable == "log":
        raise InvalidClaim(f"the rate's variable comes first, then log^<power>, in claim {text!r} ({example})")
    if len(parsed) == 2:
        name, log_power = parsed[1]
        if name != "log":
            raise InvalidClaim(f"the second factor of a rate must be log^<power>, got {tokens[1]!r} in {text!r}")
    return RegretRate(exponent, variable, log_power)


def _parse_order(text: str) -> RegretOrder:
    """``regret-order a < b,c < d [at=grid]``: groups separated by '<', labels in a group by ','."""
    body = text.strip().split(None, 1)[1] if len(text.split()) > 1 else ""
    at = "final"
    match = re.search(r"\s+at=(\S+)\s*$", body)
    if match:
        at, body = match.group(1), body[:match.start()]
    groups = [tuple(label.strip() for label in part.split(",")) for part in body.split("<")]
    if len(groups) < 2 or any(not label for g in groups for label in g):
        raise InvalidClaim(f"regret-order takes labels from lowest regret to highest, e.g. 'regret-order ucb < "
                           f"dp-se,lazy-ucb < hybrid-ucb'; got {text!r}")
    return RegretOrder(tuple(groups), at)


__all__ = ["parse_claim"]
