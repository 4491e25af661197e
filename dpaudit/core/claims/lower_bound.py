"""A lower-bound construction, checked step by step: :class:`LowerBound` and its :class:`ProofStep`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import InvalidClaim
from .base import Claim, _fmt, _text

_RELATIONS = (">=", ">", "<=", "<", "==")


@dataclass(frozen=True)
class ProofStep:
    """One named inequality a proof relies on: ``lhs relation rhs`` at the claim's parameters.

    ``sides(params)`` returns ``(lhs, rhs)`` or ``(lhs, rhs, where)``: numbers or arrays that broadcast
    together (a step "for every n <= m*" evaluates a grid of n at once), computed exactly where the
    laws are finite (TV, KL, gaps, error probabilities); ``where`` names the grid's coordinates
    (name -> array of the same shape), so that a failing element can be reported as a witness.
    ``relation`` is one of ``>=``, ``>``, ``<=``, ``<``, ``==``."""

    name: str
    statement: str
    sides: Callable[[Mapping[str, Any]], tuple]
    relation: str = ">="

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidClaim("ProofStep: name must be a non-empty string")
        _text(f"ProofStep {self.name!r}", "statement", self.statement)
        if not callable(self.sides):
            raise InvalidClaim(f"ProofStep {self.name!r}: sides must be a callable params -> (lhs, rhs[, where])")
        if self.relation not in _RELATIONS:
            raise InvalidClaim(f"ProofStep {self.name!r}: relation must be one of {_RELATIONS}, got {self.relation!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "statement": self.statement, "relation": self.relation}


@dataclass(frozen=True)
class LowerBound(Claim):
    """A lower-bound theorem at one parameter point.

    - ``statement``: the theorem as printed; ``algorithm_class``: the algorithms it is about
      (e.g. "eps-DP algorithms for stochastic DTOL");
    - ``parameters``: the point (e.g. ``{"K": 4, "eps": 0.1, "Delta": 0.1, "T": 14}``);
    - ``instance(params)``: the hard instance, one environment per member of the family;
    - ``bound(params)``: the bound, described by ``bound_text``, on ``quantity`` for the worst member:
      ``"regret"`` (expected pseudo-regret at ``horizon(params)`` rounds, default ``params["T"]``) or
      ``"error"`` (the probability of ``event(result, j)``, a boolean per run of a simulation on member
      j); the theorem says that max over members of the quantity is at least the bound for every
      algorithm of the class;
    - ``steps``: the inequalities the proof relies on (:class:`ProofStep`), checked at the point;
    - ``conditions``: the theorem's hypotheses (:class:`ProofStep`); a point outside them cannot be
      audited (an error, not a refutation).

    ``bound`` may be None for a claim made only of proof steps."""

    statement: str
    parameters: Mapping[str, Any]
    algorithm_class: str = ""
    instance: Callable[[Mapping[str, Any]], Any] | None = None
    bound: Callable[[Mapping[str, Any]], float] | None = None
    bound_text: str = ""
    quantity: str = "regret"
    horizon: Callable[[Mapping[str, Any]], int] | None = None
    event: Callable[[Any, int], Any] | None = None
    event_text: str = ""
    steps: tuple[ProofStep, ...] = ()
    conditions: tuple[ProofStep, ...] = ()
    kind: ClassVar[str] = "lower-bound"
    family: ClassVar[str] = "lower-bound"

    def __post_init__(self) -> None:
        if not isinstance(self.statement, str) or not self.statement.strip():
            raise InvalidClaim("LowerBound: statement must be the theorem as printed, a non-empty string")
        for name in ("algorithm_class", "bound_text", "event_text"):
            _text("LowerBound", name, getattr(self, name))
        if not isinstance(self.parameters, Mapping):
            raise InvalidClaim(f"LowerBound: parameters must be a mapping name -> value, got {self.parameters!r}")
        object.__setattr__(self, "parameters", dict(self.parameters))
        if self.quantity not in ("regret", "error"):
            raise InvalidClaim(f"LowerBound: quantity must be 'regret' or 'error', got {self.quantity!r}")
        for name in ("instance", "bound", "horizon", "event"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise InvalidClaim(f"LowerBound: {name} must be callable, got {value!r}")
        if self.bound is not None and self.instance is None:
            raise InvalidClaim("LowerBound: a bound needs its hard instance (instance=params -> environments)")
        if self.quantity == "error" and self.bound is not None and self.event is None:
            raise InvalidClaim("LowerBound: quantity 'error' needs event=(result, j) -> boolean per run")
        if self.bound is None and not self.steps:
            raise InvalidClaim("LowerBound: give a bound, proof steps, or both")
        for name in ("steps", "conditions"):
            items = tuple(getattr(self, name))
            if not all(isinstance(s, ProofStep) for s in items):
                raise InvalidClaim(f"LowerBound: {name} must be ProofStep objects")
            object.__setattr__(self, name, items)

    def bound_at(self, params: Mapping[str, Any] | None = None) -> float | None:
        """The bound at the claim's point, or at ``params`` (the point with some values replaced)."""
        return None if self.bound is None else float(self.bound({**self.parameters, **(params or {})}))

    def horizon_at(self, params: Mapping[str, Any] | None = None) -> int | None:
        """Rounds simulated: ``horizon(params)``, else ``params["T"]``."""
        point = {**self.parameters, **(params or {})}
        if self.horizon is not None:
            return int(self.horizon(point))
        return int(point["T"]) if "T" in point else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "statement": self.statement, "algorithm_class": self.algorithm_class,
            "parameters": dict(self.parameters), "quantity": self.quantity, "bound": self.bound_text,
            "bound_value": self.bound_at(), "horizon": self.horizon_at() if self.bound is not None else None,
            "event": self.event_text or None, "steps": [s.to_dict() for s in self.steps],
            "conditions": [s.to_dict() for s in self.conditions],
        }

    def describe(self) -> str:
        point = ",".join(f"{k}={_fmt(v)}" for k, v in self.parameters.items())
        text = f"{self.kind} {self.quantity} >= {self.bound_text}" if self.bound is not None else f"{self.kind} steps"
        return f"{text} at {point} ({len(self.steps)} proof steps)"


# --- claim strings -------------------------------------------------------------------------


__all__ = ["LowerBound", "ProofStep"]
