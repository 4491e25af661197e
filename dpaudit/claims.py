"""Claims: small immutable statements to audit, validated when they are made.

Privacy claims (:class:`PureDP`, :class:`ApproxDP`, :class:`RenyiDP`, :class:`ZCDP`) are about a
mechanism under a neighbouring relation; tail claims (:class:`SubGaussian`,
:class:`SubExponential`, :class:`TailBound`) about a random variable; :class:`Accuracy`,
:class:`RegretBound`, :class:`RegretRate` and :class:`LowerBound` about an estimator or an algorithm.
A suite entry adds the claim id, the relation and the parameter point; the claim itself is only the
mathematics.

Every constructor rejects parameters outside the claim's domain with an :class:`InvalidClaim`
that names the parameter, e.g. ``PureDP(-1)`` -> "PureDP: epsilon must be >= 0, got -1".
:func:`parse_claim` reads the command line's claim strings (``"pure-dp eps=0.1"``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from . import validation
from .errors import InvalidClaim


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


class PrivacyClaim(Claim):
    family: ClassVar[str] = "privacy"


@dataclass(frozen=True)
class PureDP(PrivacyClaim):
    """(epsilon, 0)-differential privacy: P[M(d) in S] <= e^epsilon P[M(d') in S] for all S."""

    epsilon: float
    kind: ClassVar[str] = "pure-dp"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _nonnegative_finite("PureDP", "epsilon", self.epsilon))


@dataclass(frozen=True)
class ApproxDP(PrivacyClaim):
    """(epsilon, delta)-DP: P[M(d) in S] <= e^epsilon P[M(d') in S] + delta for all S."""

    epsilon: float
    delta: float
    kind: ClassVar[str] = "approx-dp"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", _nonnegative_finite("ApproxDP", "epsilon", self.epsilon))
        object.__setattr__(
            self, "delta", _check("ApproxDP", "delta", self.delta, lambda v: 0 <= v < 1, "in [0, 1)")
        )


@dataclass(frozen=True)
class RenyiDP(PrivacyClaim):
    """(alpha, epsilon)-Renyi DP: D_alpha(M(d) || M(d')) <= epsilon.

    ``alpha`` and ``epsilon`` may be equal-length sequences: a curve epsilon(alpha) claimed
    at each of the listed orders. Orders must be > 1 (alpha = inf is allowed).
    """

    alpha: float | tuple[float, ...]
    epsilon: float | tuple[float, ...]
    kind: ClassVar[str] = "renyi-dp"

    def __post_init__(self) -> None:
        alphas, epsilons = self.alpha, self.epsilon
        if isinstance(alphas, (list, tuple)) or isinstance(epsilons, (list, tuple)):
            if not isinstance(alphas, (list, tuple)) or not isinstance(epsilons, (list, tuple)):
                raise InvalidClaim("RenyiDP: alpha and epsilon must both be numbers or both sequences")
            if len(alphas) != len(epsilons) or not alphas:
                raise InvalidClaim("RenyiDP: alpha and epsilon must have the same non-zero length")
            a = tuple(self._order(x) for x in alphas)
            e = tuple(_nonnegative_finite("RenyiDP", "epsilon", x) for x in epsilons)
            object.__setattr__(self, "alpha", a)
            object.__setattr__(self, "epsilon", e)
        else:
            object.__setattr__(self, "alpha", self._order(alphas))
            object.__setattr__(self, "epsilon", _nonnegative_finite("RenyiDP", "epsilon", epsilons))

    @staticmethod
    def _order(value: Any) -> float:
        return _check("RenyiDP", "alpha", value, lambda v: v > 1, "> 1 (Renyi orders <= 1 are not DP notions)")

    @property
    def points(self) -> tuple[tuple[float, float], ...]:
        """The claimed (alpha, epsilon) points."""
        if isinstance(self.alpha, tuple):
            return tuple(zip(self.alpha, self.epsilon))  # type: ignore[arg-type]
        return ((self.alpha, self.epsilon),)  # type: ignore[return-value]


@dataclass(frozen=True)
class ZCDP(PrivacyClaim):
    """rho-zero-concentrated DP: D_alpha(M(d) || M(d')) <= rho * alpha for every alpha > 1."""

    rho: float
    kind: ClassVar[str] = "zcdp"

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", _nonnegative_finite("ZCDP", "rho", self.rho))


class TailClaim(Claim):
    family: ClassVar[str] = "tail"


@dataclass(frozen=True)
class SubGaussian(TailClaim):
    """E exp(lambda X) <= exp(lambda^2 sigma^2 / 2) for all real lambda.

    With ``centred=True`` the claim is about X - E[X]; otherwise about X as given.
    """

    sigma: float
    centred: bool = False
    kind: ClassVar[str] = "sub-gaussian"

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", _positive_finite("SubGaussian", "sigma", self.sigma))
        object.__setattr__(self, "centred", bool(self.centred))

    @property
    def mgf_bound(self) -> tuple[float, float]:
        """(s, lam_max): E exp(lam X) <= exp(lam^2 s^2 / 2) is claimed for |lam| < lam_max."""
        return self.sigma, math.inf


@dataclass(frozen=True)
class SubExponential(TailClaim):
    """E exp(lambda X) <= exp(lambda^2 nu^2 / 2) for all |lambda| < 1/b.

    With ``centred=True`` the claim is about X - E[X]; otherwise about X as given.
    """

    nu: float
    b: float
    centred: bool = False
    kind: ClassVar[str] = "sub-exponential"

    def __post_init__(self) -> None:
        object.__setattr__(self, "nu", _positive_finite("SubExponential", "nu", self.nu))
        object.__setattr__(self, "b", _positive_finite("SubExponential", "b", self.b))
        object.__setattr__(self, "centred", bool(self.centred))

    @property
    def mgf_bound(self) -> tuple[float, float]:
        """(s, lam_max): E exp(lam X) <= exp(lam^2 s^2 / 2) is claimed for |lam| < lam_max."""
        return self.nu, 1 / self.b


@dataclass(frozen=True)
class TailBound(TailClaim):
    """P(|X| >= t) <= bound(t) for every t > 0 (one-sided P(X >= t) with ``two_sided=False``).

    ``bound`` is a vectorised callable; ``description`` is how records and reports show it (by
    default the function's name, or a lambda's source text, e.g. ``lambda t: 2 * np.exp(-t**2 / 2)``).
    """

    bound: Callable[[Any], Any]
    description: str | None = None
    two_sided: bool = True
    centred: bool = False
    kind: ClassVar[str] = "tail-bound"

    def __post_init__(self) -> None:
        if not callable(self.bound):
            raise InvalidClaim(f"TailBound: bound must be callable t -> probability, got {self.bound!r}")
        if self.description is None:
            object.__setattr__(self, "description", describe_function(self.bound))
        if not isinstance(self.description, str) or not self.description:
            raise InvalidClaim("TailBound: description must be a non-empty string, e.g. '2 exp(-t^2/2)'")

    def evaluate(self, t: Any) -> Any:
        """The bound at an array of t, checked to be an array of the same shape without NaN."""
        import numpy as np

        t = np.asarray(t, dtype=float)
        values = np.asarray(self.bound(t), dtype=float)
        if values.shape != t.shape or np.isnan(values).any():
            raise ValueError(f"TailBound: bound must map an array of t to an array of the same shape; got "
                             f"{values.shape}")
        return values

    @classmethod
    def high_probability(cls, threshold: Callable[[Any], Any], description: str, **kwargs: Any) -> TailBound:
        """The claim "for every p in (0, 1], with probability at least 1 - p, |X| <= threshold(p)"
        (``threshold`` continuous and decreasing in p) as the tail bound it is equivalent to:
        P(|X| >= t) <= p*(t), the p at which threshold(p) = t (1 where t < threshold(1)).

        p*(t) is found by vectorised bisection on log p over [-745, 0], to a relative 1e-15.
        """
        import numpy as np

        def bound(t: Any) -> Any:
            with np.errstate(over="ignore", divide="ignore"):
                return _bound(t)

        def _bound(t: Any) -> Any:
            t = np.asarray(t, dtype=float)
            lo, hi = np.full(t.shape, -745.0), np.zeros(t.shape)  # log p: threshold(e^lo) > t >= ...
            for _ in range(64):
                mid = (lo + hi) / 2
                above = np.asarray(threshold(np.exp(mid)), dtype=float) > t
                lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
            out = np.exp(hi)
            out = np.where(np.asarray(threshold(np.exp(lo)), dtype=float) <= t, 0.0, out)  # beyond p = e^-745
            return np.where(np.asarray(threshold(1.0), dtype=float) > t, 1.0, out)

        return cls(bound, description, **kwargs)

    @classmethod
    def accuracy(cls, alpha: float, beta: float, description: str | None = None, **kwargs: Any) -> TailBound:
        """(alpha, beta)-accuracy of an error X, "P(|X| > alpha) <= beta", as the tail bound it is:
        P(|X| >= t) <= beta for every t > alpha (and the trivial 1 for t <= alpha)."""
        import numpy as np

        alpha = _check("TailBound.accuracy", "alpha", alpha, lambda v: v >= 0, ">= 0")
        beta = _check("TailBound.accuracy", "beta", beta, lambda v: 0 <= v <= 1, "in [0, 1]")

        def bound(t: Any) -> Any:
            return np.where(np.asarray(t, dtype=float) > alpha, beta, 1.0)

        return cls(bound, description or f"P(|X| > {alpha:.6g}) <= {beta:.6g}", **kwargs)


@dataclass(frozen=True)
class Conforms(Claim):
    """A sampler's outputs follow the exact law described by ``reference``."""

    reference: str
    kind: ClassVar[str] = "conformance"
    family: ClassVar[str] = "conformance"

    def __post_init__(self) -> None:
        if not isinstance(self.reference, str) or not self.reference:
            raise InvalidClaim("Conforms: reference must be a non-empty description of the law, e.g. "
                               "'DiscreteLaplace(2, loc=0)'")


@dataclass(frozen=True)
class Accuracy(Claim):
    """(alpha, beta)-accuracy: P(|error| > alpha) <= beta."""

    alpha: float
    beta: float
    kind: ClassVar[str] = "accuracy"
    family: ClassVar[str] = "accuracy"

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", _check("Accuracy", "alpha", self.alpha, lambda v: v >= 0, ">= 0"))
        object.__setattr__(self, "beta", _check("Accuracy", "beta", self.beta, lambda v: 0 <= v <= 1, "in [0, 1]"))


class RegretClaim(Claim):
    family: ClassVar[str] = "regret"


#: the named parameters a :class:`RegretBound`'s function may take besides T (the audit supplies them)
REGRET_BOUND_PARAMETERS = ("eps", "delta", "d", "K", "n", "gaps")
#: the variables a :class:`RegretRate` may be about
RATE_VARIABLES = ("T", "eps", "d", "K", "n")


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
        values = np.asarray(self.f(T, **{name: params[name] for name in self.parameters}), dtype=float)
        if values.shape != T.shape:
            values = np.broadcast_to(values, T.shape).astype(float)
        if np.isnan(values).any():
            raise ValueError(f"RegretBound {self.description!r}: f returned NaN")
        return values


@dataclass(frozen=True)
class RegretRate(RegretClaim):
    """A regret rate: R = O(variable^exponent log^log_power variable), an upper-bound claim (a
    regret that grows more slowly is consistent with it). ``variable`` is one of
    :data:`RATE_VARIABLES` (T, eps, d, K, n), the others held fixed; ``exponent`` may be negative
    (eps). Claim string: ``"regret-rate T^0.5 log^1"``."""

    exponent: float
    variable: str = "T"
    log_power: float = 0.0
    kind: ClassVar[str] = "regret-rate"

    def __post_init__(self) -> None:
        object.__setattr__(self, "exponent", _check("RegretRate", "exponent", self.exponent, math.isfinite, "finite"))
        if self.variable not in RATE_VARIABLES:
            raise InvalidClaim(f"RegretRate: variable must be one of {', '.join(RATE_VARIABLES)}, got "
                               f"{self.variable!r}")
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
