"""Regret claims about a policy on an environment: an explicit bound (:class:`RegretBound`), a rate
(:class:`RegretRate`) and an ordering of several algorithms (:class:`RegretOrder`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import InvalidClaim
from .base import Claim, _check, _fmt


class RegretClaim(Claim):
    family: ClassVar[str] = "regret"


#: the named parameters a :class:`RegretBound`'s function may take besides T (the audit supplies them)
REGRET_BOUND_PARAMETERS = ("eps", "delta", "d", "K", "n", "gaps")
#: the variables a :class:`RegretRate` may be about
RATE_VARIABLES = ("T", "eps", "d", "K", "n", "B")
#: the variables in which a regret rate cannot decrease (exponent >= 0): all but eps
NONDECREASING_VARIABLES = ("T", "d", "K", "n")


@dataclass(frozen=True)
class RegretBound(RegretClaim):
    """An explicit regret bound: E[R_T] <= f(T) for every T on the audited grid; with
    ``probability=p``, the high-probability form P(R_T <= f(T)) >= 1 - p at every T of the grid.

    ``f`` is a vectorised callable of T (an array of rounds) and, optionally, of named parameters
    among :data:`REGRET_BOUND_PARAMETERS` (``eps``, ``delta``, ``d``, ``K``, ``n``, ``gaps``) that the
    audit supplies (``dpaudit.audit_regret(..., params={"eps": 0.5})``; ``K`` and ``gaps`` come from
    the environment when not given). ``description`` is how records show it (by default the
    function's name). A function cannot be written in a claim string: RegretBound is Python-only.
    """

    f: Callable[..., Any]
    description: str | None = None
    probability: float | None = None
    kind: ClassVar[str] = "regret-bound"

    def __post_init__(self) -> None:
        if not callable(self.f):
            raise InvalidClaim(f"RegretBound: f must be callable T -> bound (vectorised over T), got {self.f!r}")
        if self.description is None:
            object.__setattr__(self, "description", getattr(self.f, "__name__", None) or repr(self.f))
        if not isinstance(self.description, str) or not self.description:
            raise InvalidClaim("RegretBound: description must be a non-empty string, e.g. '4 sqrt(K T log T)'")
        if self.probability is not None:
            object.__setattr__(self, "probability", _check("RegretBound", "probability", self.probability,
                                                           lambda v: 0 < v < 1, "in (0, 1)"))

    @property
    def parameters(self) -> tuple[str, ...]:
        """The named parameters ``f`` takes besides T (those of :data:`REGRET_BOUND_PARAMETERS`)."""
        import inspect

        try:
            signature = inspect.signature(self.f)
        except (TypeError, ValueError):
            return ()
        names = list(signature.parameters)[1:]
        return tuple(name for name in names if name in REGRET_BOUND_PARAMETERS)

    def evaluate(self, T: Any, params: Mapping[str, Any] | None = None) -> Any:
        """f at an array of rounds, given the named parameters it takes (a ValueError names a missing
        one); checked to be an array of T's shape without NaN."""
        import numpy as np

        params = dict(params or {})
        missing = [name for name in self.parameters if name not in params]
        if missing:
            raise ValueError(f"RegretBound {self.description!r}: f takes {', '.join(missing)}; give "
                             f"params={{{', '.join(repr(m) + ': ...' for m in missing)}}}")
        T = np.asarray(T, dtype=float)
        raw = self.f(T, **{name: params[name] for name in self.parameters})
        try:
            values = np.asarray(raw, dtype=float)
            if values.shape != T.shape:
                values = np.broadcast_to(values, T.shape).astype(float)
        except (TypeError, ValueError):
            raise ValueError(f"RegretBound {self.description!r}: f must return a number per round (an array of the "
                             f"rounds' shape {T.shape}), got {raw!r:.100}") from None
        if np.isnan(values).any():
            raise ValueError(f"RegretBound {self.description!r}: f returned NaN")
        return values


@dataclass(frozen=True)
class RegretRate(RegretClaim):
    """A regret rate: R = O(variable^exponent log^log_power variable), an upper-bound claim (a
    regret that grows more slowly is consistent with it). ``variable`` is one of
    :data:`RATE_VARIABLES` (T, eps, d, K, n, and the batch size B), the others held fixed. ``exponent`` is
    finite, and for T, d, K and n at least 0: a regret rate decreasing in the horizon, the dimension, the number
    of arms or of users is not a regret rate (regret is cumulative, and more arms or dimensions never make the
    worst case easier); in eps it may be negative (``eps^-1``: less privacy, less regret), and in B too (a
    batched algorithm's private noise term can shrink as B grows). ``log_power`` is finite and >= 0. Claim
    string: ``"regret-rate T^0.5 log^1"``."""

    exponent: float
    variable: str = "T"
    log_power: float = 0.0
    kind: ClassVar[str] = "regret-rate"

    def __post_init__(self) -> None:
        object.__setattr__(self, "exponent", _check("RegretRate", "exponent", self.exponent, math.isfinite, "finite"))
        if self.variable not in RATE_VARIABLES:
            raise InvalidClaim(f"RegretRate: variable must be one of {', '.join(RATE_VARIABLES)}, got "
                               f"{self.variable!r}")
        if self.variable in NONDECREASING_VARIABLES and self.exponent < 0:
            raise InvalidClaim(f"RegretRate: the exponent of {self.variable} must be >= 0 (a regret rate decreasing "
                               f"in {self.variable} is not a regret rate; only eps may have a negative exponent), got "
                               f"{self.exponent!r}")
        object.__setattr__(self, "log_power", _check("RegretRate", "log_power", self.log_power,
                                                     lambda v: math.isfinite(v) and v >= 0, ">= 0 and finite"))

    def describe(self) -> str:
        log = f" log^{_fmt(self.log_power)}" if self.log_power else ""
        return f"{self.kind} {self.variable}^{_fmt(self.exponent)}{log}"


#: where an ordering is tested: at the last recorded round, or at every recorded round
ORDER_POINTS = ("final", "grid")


@dataclass(frozen=True)
class RegretOrder(RegretClaim):
    """A figure's ordering of algorithms by expected regret: ``groups`` lists groups of labels from
    lowest regret to highest, and the claim is E[R_T(a)] <= E[R_T(b)] for every a in an earlier group
    and b in a later one (labels within a group are not ordered among themselves). ``at="final"`` tests
    the last recorded round, ``"grid"`` every recorded round.

    The labels name the series of the audit (``dpaudit.audit_order``'s ``algorithms``): an algorithm,
    or a difference of two (:class:`dpaudit.auditors.regret_order.Difference`), which states trends
    such as "the private/non-private gap shrinks as eps grows" as an ordering of gaps. Claim string:
    ``"regret-order linucb < linucb-jdp < linucb-sdp-amp,linucb-sdp-vec < linucb-ldp"`` (optionally
    ``at=grid`` at the end)."""

    groups: tuple[tuple[str, ...], ...]
    at: str = "final"
    description: str | None = None
    kind: ClassVar[str] = "regret-order"

    def __post_init__(self) -> None:
        if isinstance(self.groups, (str, bytes)) or not isinstance(self.groups, Sequence):
            raise InvalidClaim(f"RegretOrder: groups must be a sequence of label groups, got {self.groups!r}")
        groups = tuple((g,) if isinstance(g, str) else tuple(g) for g in self.groups)
        if len(groups) < 2:
            raise InvalidClaim(f"RegretOrder: an ordering needs at least two groups, got {groups!r}")
        labels = [label for g in groups for label in g]
        if not all(isinstance(label, str) and label.strip() for label in labels) or any(not g for g in groups):
            raise InvalidClaim(f"RegretOrder: every group holds non-empty string labels, got {groups!r}")
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:
            raise InvalidClaim(f"RegretOrder: labels appear twice: {', '.join(repeated)}")
        object.__setattr__(self, "groups", groups)
        if self.at not in ORDER_POINTS:
            raise InvalidClaim(f"RegretOrder: at must be one of {', '.join(ORDER_POINTS)}, got {self.at!r}")
        if self.description is not None and (not isinstance(self.description, str) or not self.description.strip()):
            raise InvalidClaim(f"RegretOrder: description must be a non-empty string or None, got {self.description!r}")

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for g in self.groups for label in g)

    def pairs(self) -> list[tuple[str, str]]:
        """Every (a, b) the claim orders, E[R(a)] <= E[R(b)]."""
        return [(a, b) for i, g in enumerate(self.groups) for h in self.groups[i + 1:] for a in g for b in h]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "groups": [list(g) for g in self.groups], "at": self.at,
                "description": self.description}

    def describe(self) -> str:
        order = " < ".join(",".join(g) for g in self.groups)
        return f"{self.kind} {order}" + (" at=grid" if self.at == "grid" else "")


__all__ = [
    "NONDECREASING_VARIABLES", "ORDER_POINTS", "RATE_VARIABLES", "REGRET_BOUND_PARAMETERS", "RegretBound",
    "RegretClaim", "RegretOrder", "RegretRate"
]
