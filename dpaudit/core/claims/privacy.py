"""Privacy claims about a mechanism under a neighbouring relation: :class:`PureDP`, :class:`ApproxDP`,
:class:`RenyiDP`, :class:`ZCDP`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import InvalidClaim
from .base import Claim, _check, _nonnegative_finite


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


__all__ = ["ApproxDP", "PrivacyClaim", "PureDP", "RenyiDP", "ZCDP"]
