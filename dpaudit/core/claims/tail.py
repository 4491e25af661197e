"""Claims about a law or a sampler: tails (:class:`SubGaussian`, :class:`SubExponential`, :class:`TailBound`),
conformance to a stated law (:class:`Conforms`) and accuracy (:class:`Accuracy`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import InvalidClaim
from .base import Claim, _check, _flag, _positive_finite, describe_function


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
        object.__setattr__(self, "centred", _flag("SubGaussian", "centred", self.centred))

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
        object.__setattr__(self, "centred", _flag("SubExponential", "centred", self.centred))

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
        object.__setattr__(self, "two_sided", _flag("TailBound", "two_sided", self.two_sided))
        object.__setattr__(self, "centred", _flag("TailBound", "centred", self.centred))

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

        alpha = _check("TailBound.accuracy", "alpha", alpha, lambda v: 0 <= v < math.inf, ">= 0 and finite")
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
        object.__setattr__(self, "alpha", _check("Accuracy", "alpha", self.alpha, lambda v: 0 <= v < math.inf,
                                                 ">= 0 and finite"))
        object.__setattr__(self, "beta", _check("Accuracy", "beta", self.beta, lambda v: 0 <= v <= 1, "in [0, 1]"))


__all__ = ["Accuracy", "Conforms", "SubExponential", "SubGaussian", "TailBound", "TailClaim"]
