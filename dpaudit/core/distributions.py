"""Exact output distributions: what ``mech.distribution(data)`` returns, in the forms the exact
privacy auditor analyses.

Words, one meaning each: a *law* is a random variable's distribution as an object that samples and
evaluates itself (the noise laws of :mod:`dpaudit.mechanisms.noise`, :class:`dpaudit.core.laws.Law`); a
*distribution* is a mechanism's exact output distribution on one input, one of the forms here
(:class:`FiniteDistribution`, :class:`GaussianDistribution`, :class:`LogLinearDistribution`, and
:class:`ProductDistribution` of independent coordinates; a noise law gives its own with
``exact_distribution()``); a *density* is a pmf or pdf, the function a distribution's
``log_density`` evaluates.

A :class:`LogLinearDistribution` is a density on the reals (or a pmf on the integers) whose logarithm
is piecewise linear: ``log f(x) = c + offset(x)``, with ``offset`` piecewise linear with rational
knots and slopes and ``c`` an irrational normalising constant known only through a rigorous
enclosure. Laplace, discrete Laplace (two-sided geometric), geometric and exponential noise, and
any location shift of them, have this form; the privacy-loss function of two such densities is
again piecewise linear, so its supremum is attained at a knot (or is infinite along a tail) and
can be computed exactly rather than searched for on a grid.

Rationals are :class:`fractions.Fraction` (floats convert exactly); constants are evaluated with
mpmath interval arithmetic at 113 bits, and two constants with equal ``key`` are known to be
equal, so they cancel exactly instead of leaving an interval of rounding width.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext

PRECISION_BITS = 113


def interval_context() -> MPIntervalContext:
    """A private mpmath interval context (leaves mpmath's global precision alone)."""
    ctx = MPIntervalContext()
    ctx.prec = PRECISION_BITS
    return ctx


def interval_bounds(x: Any) -> tuple[Fraction, Fraction]:
    """The end points of an mpmath interval as exact rationals."""
    lo, hi = x._mpi_
    return Fraction(*libmp.to_rational(lo)), Fraction(*libmp.to_rational(hi))


def exact(x: float | int | Fraction) -> Fraction:
    """A float, int or Fraction as an exact rational (floats are dyadic rationals)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"expected a finite number, got {x}")
    return Fraction(x)


@dataclass(frozen=True)
class LogConstant:
    """An irrational additive constant of a log-density, such as ``-log(2 b)``.

    ``enclose(ctx)`` returns a rigorous mpmath interval containing it; constants with equal
    ``key`` are equal by construction (same family, same parameters) and cancel exactly.
    """

    key: tuple[Any, ...]
    enclose: Callable[[MPIntervalContext], Any] = field(compare=False, repr=False)
    approx: float = field(default=math.nan, compare=False)


@dataclass(frozen=True)
class LogLinearDistribution:
    """``log f(x) = constant + offset(x)``, ``offset`` piecewise linear.

    ``knots`` are strictly increasing; ``slopes[i]`` is the slope left of ``knots[i]`` (so
    ``slopes[0]`` is the left tail and ``slopes[-1]`` the right tail); ``offset_at_first_knot``
    is ``offset(knots[0])``. With ``lattice=True`` this is a pmf on the integers.
    """

    knots: tuple[Fraction, ...]
    slopes: tuple[Fraction, ...]
    offset_at_first_knot: Fraction
    constant: LogConstant | None
    lattice: bool

    def __post_init__(self) -> None:
        if not self.knots or len(self.slopes) != len(self.knots) + 1:
            raise ValueError("LogLinearDistribution needs >= 1 knot and one more slope than knots")
        if any(b <= a for a, b in zip(self.knots, self.knots[1:])):
            raise ValueError("LogLinearDistribution knots must be strictly increasing")
        # Integrability: the density must decay along both tails.
        if self.slopes[0] <= 0 or self.slopes[-1] >= 0:
            raise ValueError("LogLinearDistribution must decay in both tails (left slope > 0, right slope < 0)")
        offsets = [self.offset_at_first_knot]
        for i in range(1, len(self.knots)):
            offsets.append(offsets[-1] + self.slopes[i] * (self.knots[i] - self.knots[i - 1]))
        object.__setattr__(self, "_offsets", tuple(offsets))

    @classmethod
    def build(
        cls,
        knots: Sequence[float | Fraction],
        slopes: Sequence[float | Fraction],
        offset_at_first_knot: float | Fraction,
        constant: LogConstant | None,
        lattice: bool,
    ) -> LogLinearDistribution:
        return cls(
            tuple(exact(k) for k in knots),
            tuple(exact(s) for s in slopes),
            exact(offset_at_first_knot),
            constant,
            lattice,
        )

    def offset(self, x: Fraction) -> Fraction:
        """The rational part of ``log f(x)``."""
        i = bisect.bisect_right(self.knots, x)  # x lies right of knots[:i]
        if i == 0:
            return self._offsets[0] + self.slopes[0] * (x - self.knots[0])  # type: ignore[attr-defined]
        return self._offsets[i - 1] + self.slopes[i] * (x - self.knots[i - 1])  # type: ignore[attr-defined]

    def log_density(self, x: np.ndarray) -> np.ndarray:
        """``log f`` in floating point, for plots and sanity checks (not for verdicts)."""
        x = np.asarray(x, dtype=float)
        knots = np.array([float(k) for k in self.knots])
        offsets = np.array([float(o) for o in self._offsets])  # type: ignore[attr-defined]
        slopes = np.array([float(s) for s in self.slopes])
        i = np.searchsorted(knots, x, side="right")
        anchor = np.maximum(i - 1, 0)
        out = offsets[anchor] + slopes[i] * (x - knots[anchor])
        c = self.constant.approx if self.constant is not None else 0.0
        return out + c

    def shifted(self, by: float | Fraction) -> LogLinearDistribution:
        """The density of X + by."""
        by = exact(by)
        if self.lattice and by.denominator != 1:
            raise ValueError(f"a lattice distribution can only be shifted by an integer, got {by}")
        return LogLinearDistribution(
            tuple(k + by for k in self.knots), self.slopes, self.offset_at_first_knot, self.constant, self.lattice
        )


    def exact_distribution(self) -> LogLinearDistribution:
        return self


@dataclass(frozen=True)
class ProductDistribution:
    """Independent coordinates: the output is a vector whose i-th coordinate has distribution
    ``coordinates[i]`` (a :class:`LogLinearDistribution` or anything with ``exact_distribution()``)."""

    coordinates: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not self.coordinates:
            raise ValueError("ProductDistribution needs at least one coordinate")
        object.__setattr__(self, "coordinates", tuple(self.coordinates))


def as_exact_distribution(dist: Any) -> LogLinearDistribution:
    """``dist`` as a :class:`LogLinearDistribution`; ``TypeError`` if it has no such form."""
    to_density = getattr(dist, "exact_distribution", None)
    if callable(to_density):
        density = to_density()
        if isinstance(density, LogLinearDistribution):
            return density
    raise TypeError(
        f"{type(dist).__name__} has no exact density dpaudit can analyse "
        "(expected a LogLinearDistribution or an object with .exact_distribution())"
    )


@dataclass(frozen=True, eq=False)
class FiniteDistribution:
    """A distribution on finitely many outcomes.

    ``outcomes``: shape ``(m,)`` (scalar outcomes) or ``(m, d)`` (vector outcomes, one per row),
    all distinct. ``log_probs``: shape ``(m,)``, natural-log probabilities; ``-inf`` marks an
    outcome of probability zero (so two distributions can share one outcome array).
    ``log_error``: a bound on the absolute error of every entry of ``log_probs``, the rounding of
    however they were computed; exact auditors widen their enclosures by it. ``tail_mass``: an
    upper bound on probability mass that lies outside ``outcomes`` (a truncated infinite support,
    e.g. a discrete Gaussian); it is not located, so it can only ever count against a claim.
    """

    outcomes: np.ndarray
    log_probs: np.ndarray
    log_error: float = 1e-12
    tail_mass: float = 0.0

    def __post_init__(self) -> None:
        outcomes = np.asarray(self.outcomes)
        log_probs = np.asarray(self.log_probs, dtype=float)
        if outcomes.ndim not in (1, 2) or outcomes.shape[0] == 0:
            raise ValueError("FiniteDistribution: outcomes must be a non-empty array of shape (m,) or (m, d)")
        if log_probs.shape != (outcomes.shape[0],):
            raise ValueError(
                f"FiniteDistribution: log_probs must have shape ({outcomes.shape[0]},), got {log_probs.shape}"
            )
        if np.isnan(log_probs).any() or (log_probs > 0).any():
            raise ValueError("FiniteDistribution: log_probs must be <= 0 and not NaN")
        if not (0 <= self.log_error < 1) or not (0 <= self.tail_mass < 1):
            raise ValueError("FiniteDistribution: log_error and tail_mass must be in [0, 1)")
        # A law that does not sum to one would be audited silently wrong: its probabilities must
        # sum to 1 up to the unlisted tail_mass (and a generous allowance for rounding).
        total = float(np.exp(log_probs).sum())
        slack = 1e-6 + 2 * self.log_error
        if not 1 - self.tail_mass - slack <= total <= 1 + slack:
            raise ValueError(
                f"FiniteDistribution: probabilities sum to {total:.12g}, not 1"
                + (f" (with tail_mass={self.tail_mass:g} unlisted)" if self.tail_mass else "")
            )
        object.__setattr__(self, "outcomes", outcomes)
        object.__setattr__(self, "log_probs", log_probs)

    @classmethod
    def from_probs(cls, outcomes: Any, probs: Any, **kwargs: Any) -> FiniteDistribution:
        """From probabilities (zeros allowed)."""
        with np.errstate(divide="ignore"):
            return cls(outcomes, np.log(np.asarray(probs, dtype=float)), **kwargs)

    @property
    def probs(self) -> np.ndarray:
        return np.exp(self.log_probs)


@dataclass(frozen=True)
class GaussianDistribution:
    """Normal(mean, sigma^2) on the reals: log f(x) = -(x - mean)^2 / (2 sigma^2) - log(sigma sqrt(2 pi))."""

    mean: float | Fraction
    sigma: float | Fraction

    def __post_init__(self) -> None:
        if not math.isfinite(self.mean):
            raise ValueError(f"GaussianDistribution: mean must be finite, got {self.mean!r}")
        if not 0 < self.sigma < math.inf:
            raise ValueError(f"GaussianDistribution: sigma must be > 0 and finite, got {self.sigma!r}")


@dataclass(frozen=True, eq=False)
class KeyedMixtureDistribution:
    """A two-stage output (X, Y): X has the finite law ``first``, and given X the rest Y has the law
    ``conditionals[block_of[i]]`` when X is ``first.outcomes[i]``. Y's law depends on X only through
    the block *label* ``labels[block_of[i]]``, a function of the observed X that the mechanism computes
    the same way on every input (an adaptive mechanism's next state, e.g. an iterate computed from the
    first round's view). The law is a mixture over blocks of products first-restricted-to-the-block
    times the block's conditional; the output is the row X followed by Y's coordinates.

    Because a label is a function of the observed X, two such distributions (two neighbouring inputs)
    split the outcomes of X alike, so delta(eps) of the pair is the sum over blocks of the hockey-stick
    divergences of the sub-probability products (an exact decomposition) and the privacy loss on block B
    is X's loss plus the block's conditional loss (:mod:`dpaudit.exact.mixture`).

    ``first``: a :class:`FiniteDistribution`; ``block_of``: shape ``(m,)`` integers, the block of each of
    ``first``'s outcomes; ``labels``: shape ``(blocks,)`` or ``(blocks, k)``, distinct, one per block (compared
    exactly between the two distributions of a pair); ``conditionals``: one distribution per block (a
    :class:`FiniteDistribution` or a :class:`ProductDistribution` of them)."""

    first: FiniteDistribution
    block_of: np.ndarray
    labels: np.ndarray
    conditionals: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.first, FiniteDistribution):
            raise ValueError("KeyedMixtureDistribution: first must be a FiniteDistribution")
        block_of = np.asarray(self.block_of)
        labels = np.asarray(self.labels)
        conditionals = tuple(self.conditionals)
        if labels.ndim not in (1, 2) or len(labels) == 0 or len(conditionals) != len(labels):
            raise ValueError("KeyedMixtureDistribution: labels must be a non-empty (blocks,) or (blocks, k) array with "
                             "one conditional per label")
        if len(np.unique(labels, axis=0)) != len(labels):
            raise ValueError("KeyedMixtureDistribution: labels must be distinct")
        if (block_of.shape != (len(self.first.outcomes),) or not np.issubdtype(block_of.dtype, np.integer)
                or (block_of < 0).any() or (block_of >= len(labels)).any()):
            raise ValueError(f"KeyedMixtureDistribution: block_of must hold one block index in [0, {len(labels)}) "
                             f"per outcome of first ({len(self.first.outcomes)})")
        object.__setattr__(self, "block_of", block_of)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "conditionals", conditionals)
