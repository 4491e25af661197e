"""Piecewise-exponential output distributions: a density that is exp(linear) on each of finitely many
pieces, point masses (atoms), and tails that repeat one period of the density scaled by a constant ratio.

Laws of this form that libraries ship and :mod:`dpaudit.core.distributions`' other forms cannot hold:

- Laplace noise clamped to [lower, upper] (diffprivlib's ``LaplaceTruncated``): a density on the interval
  and atoms at its ends;
- Laplace noise conditioned on [lower, upper] (``LaplaceBoundedDomain``): a density on the interval only,
  normalised by a constant that depends on the input;
- the staircase mechanism (``Staircase``): a piecewise-constant density whose tails repeat one period
  scaled by e^-eps.

For two such distributions the privacy loss is piecewise linear between the pieces of both, a constant
at each atom, and periodic along tails that share their period and ratio; so its range, delta(eps) and
the Renyi divergences have closed forms (:mod:`dpaudit.exact.piecewise`). Rational parts are exact
(:class:`fractions.Fraction`); each piece's or atom's irrational constant is a
:class:`~dpaudit.core.distributions.LogConstant` with a rigorous enclosure. The float methods (``cdf``,
``sf``, ``mean``, ``var``, ``sample``, ``log_density``) make the distribution a law for conformance
audits and plots; verdicts never use them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from .distributions import LogConstant, exact

#: a distribution's probabilities must sum to 1 within this (in floats), or it is refused as miswritten
MASS_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Atom:
    """A point mass at ``at`` with log-probability ``constant + offset``."""

    at: Fraction
    offset: Fraction
    constant: LogConstant | None = None

    def log_mass(self) -> float:
        return float(self.offset) + (self.constant.approx if self.constant is not None else 0.0)


@dataclass(frozen=True)
class PeriodicTail:
    """Beyond the explicit pieces the density repeats its outermost ``period`` scaled by
    exp(``log_ratio``) per period (``log_ratio`` < 0): f(x + period) = f(x) e^log_ratio on the right,
    f(x - period) = f(x) e^log_ratio on the left."""

    period: Fraction
    log_ratio: Fraction

    def __post_init__(self) -> None:
        if not self.period > 0 or not self.log_ratio < 0:
            raise ValueError(f"PeriodicTail needs period > 0 and log_ratio < 0, got {self.period}, {self.log_ratio}")


@dataclass(frozen=True)
class Segment:
    """[left, right) with log f(x) = constant + offset + slope (x - left)."""

    left: Fraction
    right: Fraction
    slope: Fraction
    offset: Fraction


@dataclass(frozen=True, eq=True)
class PiecewiseExponentialDistribution:
    """A law on the reals: density exp(constant + offsets[i] + slopes[i] (x - breaks[i])) on
    [breaks[i], breaks[i+1]), the ``atoms``, and optional periodic tails left of breaks[0] and right of
    breaks[-1] (without one, the density is 0 there). Build it with :meth:`build` from floats or
    rationals; the total mass is checked (in floats) to be 1."""

    breaks: tuple[Fraction, ...]
    slopes: tuple[Fraction, ...]
    offsets: tuple[Fraction, ...]
    constant: LogConstant | None
    atoms: tuple[Atom, ...] = ()
    left_tail: PeriodicTail | None = None
    right_tail: PeriodicTail | None = None
    name: str = field(default="piecewise-exponential", compare=False)

    lattice = False

    def __post_init__(self) -> None:
        n = len(self.breaks) - 1
        if n < 1 or len(self.slopes) != n or len(self.offsets) != n:
            raise ValueError("PiecewiseExponentialDistribution needs >= 2 breaks and one slope and offset per piece")
        if any(b <= a for a, b in zip(self.breaks, self.breaks[1:])):
            raise ValueError("PiecewiseExponentialDistribution: breaks must be strictly increasing")
        ats = [a.at for a in self.atoms]
        if len(set(ats)) != len(ats):
            raise ValueError("PiecewiseExponentialDistribution: two atoms at one point")
        width = self.breaks[-1] - self.breaks[0]
        for tail in (self.left_tail, self.right_tail):
            if tail is not None and tail.period > width:
                raise ValueError("PiecewiseExponentialDistribution: a tail's period must lie within the pieces")
        total = float(np.exp(self._log_masses()).sum())
        if abs(total - 1) > MASS_TOLERANCE:
            raise ValueError(f"PiecewiseExponentialDistribution {self.name}: probabilities sum to {total:.12g}, not 1")

    @classmethod
    def build(cls, breaks: Sequence[float | Fraction], slopes: Sequence[float | Fraction],
              offsets: Sequence[float | Fraction], constant: LogConstant | None, *,
              atoms: Sequence[tuple[float | Fraction, float | Fraction, LogConstant | None]] = (),
              left_tail: tuple[float | Fraction, float | Fraction] | None = None,
              right_tail: tuple[float | Fraction, float | Fraction] | None = None,
              name: str = "piecewise-exponential") -> PiecewiseExponentialDistribution:
        """From floats or rationals; zero-width pieces are dropped. ``atoms``: (point, offset, constant);
        tails: (period, log_ratio)."""
        b = [exact(x) for x in breaks]
        keep = [i for i in range(len(b) - 1) if b[i + 1] != b[i]]
        return cls(tuple([b[i] for i in keep] + [b[keep[-1] + 1]]) if keep else tuple(b),
                   tuple(exact(slopes[i]) for i in keep), tuple(exact(offsets[i]) for i in keep), constant,
                   tuple(Atom(exact(at), exact(off), c) for at, off, c in atoms),
                   None if left_tail is None else PeriodicTail(exact(left_tail[0]), exact(left_tail[1])),
                   None if right_tail is None else PeriodicTail(exact(right_tail[0]), exact(right_tail[1])),
                   name)

    def exact_distribution(self) -> PiecewiseExponentialDistribution:
        return self

    # -- the density over any window, tails unrolled (exact) ----------------------------------------

    def segments(self, lo: Fraction, hi: Fraction) -> list[Segment]:
        """The pieces of the density over [lo, hi) (none where it is 0), tails unrolled period by period."""
        out = [s for s in (self._clip(i, lo, hi, 0, 0) for i in range(len(self.slopes))) if s is not None]
        first, last = self.breaks[0], self.breaks[-1]
        if self.right_tail is not None and hi > last:
            period, ratio = self.right_tail.period, self.right_tail.log_ratio
            k = 1
            while last + (k - 1) * period < hi:
                out += self._copies(last - period, last, k * period, k * ratio, lo, hi)
                k += 1
        if self.left_tail is not None and lo < first:
            period, ratio = self.left_tail.period, self.left_tail.log_ratio
            k = 1
            while first - (k - 1) * period > lo:
                out += self._copies(first, first + period, -k * period, k * ratio, lo, hi)
                k += 1
        return sorted(out, key=lambda s: s.left)

    def _copies(self, a: Fraction, b: Fraction, shift: Fraction, extra: Fraction, lo: Fraction,
                hi: Fraction) -> list[Segment]:
        """The pieces over [a, b), shifted by ``shift`` and raised by ``extra`` in log, clipped to [lo, hi)."""
        out = []
        for i in range(len(self.slopes)):
            s = self._clip(i, max(a, lo - shift), min(b, hi - shift), shift, extra)
            if s is not None:
                out.append(s)
        return out

    def _clip(self, i: int, lo: Fraction, hi: Fraction, shift: Fraction, extra: Fraction) -> Segment | None:
        left, right = max(self.breaks[i], lo), min(self.breaks[i + 1], hi)
        if not left < right:
            return None
        offset = self.offsets[i] + self.slopes[i] * (left - self.breaks[i]) + extra
        return Segment(left + shift, right + shift, self.slopes[i], offset)

    # -- floats: a law for conformance audits and plots ----------------------------------------------

    @property
    def support(self) -> tuple[float, float]:
        points = [float(a.at) for a in self.atoms]
        lo = -math.inf if self.left_tail else min([float(self.breaks[0])] + points)
        hi = math.inf if self.right_tail else max([float(self.breaks[-1])] + points)
        return lo, hi

    def _constant(self) -> float:
        return self.constant.approx if self.constant is not None else 0.0

    @cached_property
    def _explicit(self) -> _Pieces:
        """The explicit pieces, in floats."""
        return _Pieces.of(self.segments(self.breaks[0], self.breaks[-1]), self._constant())

    @cached_property
    def _tails(self) -> dict[str, _Tail]:
        """Per tail: its base period's pieces (in floats), its period and ratio."""
        def floats(tail: PeriodicTail, start: Fraction) -> _Tail:
            base = _Pieces.of(self.segments(start, start + tail.period), self._constant())
            return _Tail(base, float(tail.period), math.exp(float(tail.log_ratio)))

        out = {}
        if self.right_tail is not None:
            out["right"] = floats(self.right_tail, self.breaks[-1] - self.right_tail.period)
        if self.left_tail is not None:
            out["left"] = floats(self.left_tail, self.breaks[0])
        return out

    def _log_masses(self) -> np.ndarray:
        """Log-masses of the explicit pieces, the atoms and each tail (whole), in floats."""
        with np.errstate(divide="ignore"):
            tails = [math.log(t.mass) for t in self._tails.values()]
        return np.concatenate([np.log(self._explicit.masses), [a.log_mass() for a in self.atoms], tails])

    def log_density(self, x: Any) -> np.ndarray:
        """log f at ``x`` (-inf where the density is 0; atoms are not densities and are left out)."""
        x = np.asarray(x, dtype=float)
        lo = min(float(x.min()) if x.size else 0.0, float(self.breaks[0]))
        hi = max(float(x.max()) if x.size else 0.0, float(self.breaks[-1]))
        segs = self.segments(Fraction(math.floor(lo)) - 1, Fraction(math.ceil(hi)) + 1)
        lefts = np.array([float(s.left) for s in segs])
        rights = np.array([float(s.right) for s in segs])
        i = np.clip(np.searchsorted(lefts, x, side="right") - 1, 0, len(segs) - 1)
        slope = np.array([float(s.slope) for s in segs])[i]
        off = np.array([float(s.offset) for s in segs])[i]
        inside = (x >= lefts[i]) & (x < rights[i])
        return np.where(inside, off + slope * (x - lefts[i]) + self._constant(), -np.inf)

    logpdf = log_density

    @property
    def point_masses(self) -> tuple[tuple[float, float], ...]:
        """(point, probability) of each atom, in floats."""
        return tuple((float(a.at), math.exp(a.log_mass())) for a in self.atoms)

    def cdf(self, x: Any) -> np.ndarray:
        """P[X <= x]."""
        x = np.asarray(x, dtype=float)
        total = self._explicit.mass_below(x)
        for a in self.atoms:
            total += np.where(x >= float(a.at), math.exp(a.log_mass()), 0.0)
        if "right" in self._tails:
            t = self._tails["right"]
            start = float(self.breaks[-1])
            k = np.floor(np.maximum(x - start, 0.0) / t.period)  # whole periods passed
            within = t.base.mass_below(np.where(x >= start, x - (k + 1) * t.period, -np.inf))
            passed = t.base_mass * t.ratio * (1 - t.ratio**k) / (1 - t.ratio)
            total += np.where(x >= start, passed + t.ratio ** (k + 1) * within, 0.0)
        if "left" in self._tails:
            t = self._tails["left"]
            start = float(self.breaks[0])
            j = np.ceil(np.maximum(start - x, 0.0) / t.period)  # the copy x lies in (j >= 1 left of start)
            j = np.where(j == 0, 1, j)
            within = t.base.mass_below(np.where(x < start, x + j * t.period, -np.inf))
            below = t.base_mass * t.ratio ** (j + 1) / (1 - t.ratio) + t.ratio**j * within
            total += np.where(x < start, below, t.mass)
        return np.clip(total, 0.0, 1.0)

    def sf(self, x: Any) -> np.ndarray:
        """P[X > x]."""
        return np.clip(1.0 - self.cdf(x), 0.0, 1.0)

    @property
    def mean(self) -> float:
        return self._moments[0]

    @property
    def var(self) -> float:
        return self._moments[1]

    @cached_property
    def _moments(self) -> tuple[float, float]:
        """Mean and variance as a mixture of the pieces, atoms and tails."""
        parts = [self._explicit.moments()]
        if self.atoms:
            parts.append((np.array([math.exp(a.log_mass()) for a in self.atoms]),
                          np.array([float(a.at) for a in self.atoms]), np.zeros(len(self.atoms))))
        for side, t in self._tails.items():
            m, mu, v = t.base.moments()
            base_mean = float((m * mu).sum() / t.base_mass)
            base_var = float((m * (v + mu**2)).sum() / t.base_mass) - base_mean**2
            # copies j = 1, 2, ... with weights r^j: J - 1 is geometric, E J = 1 / (1 - r), Var J = r / (1 - r)^2
            sign = 1.0 if side == "right" else -1.0
            parts.append((np.array([t.mass]), np.array([base_mean + sign * t.period / (1 - t.ratio)]),
                          np.array([base_var + t.period**2 * t.ratio / (1 - t.ratio) ** 2])))
        mass, mean, var = (np.concatenate(column) for column in zip(*parts))
        m1 = float((mass * mean).sum() / mass.sum())
        return m1, float((mass * (var + (mean - m1) ** 2)).sum() / mass.sum())

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws (floats; for conformance tests of the sampler itself)."""
        w = np.concatenate([self._explicit.masses, [math.exp(a.log_mass()) for a in self.atoms],
                            [t.mass for t in self._tails.values()]])
        kind = rng.choice(len(w), size=size, p=w / w.sum())
        out = np.empty(size)
        n = len(self._explicit.masses)
        here = kind < n
        out[here] = self._explicit.draw(kind[here], rng)
        for i, a in enumerate(self.atoms):
            out[kind == n + i] = float(a.at)
        for i, (side, t) in enumerate(self._tails.items()):
            mask = kind == n + len(self.atoms) + i
            count = int(mask.sum())
            piece = rng.choice(len(t.base.masses), size=count, p=t.base.masses / t.base_mass)
            copies = rng.geometric(1 - t.ratio, size=count)  # 1, 2, ... with P(j) proportional to r^j
            out[mask] = t.base.draw(piece, rng) + (copies if side == "right" else -copies) * t.period
        return out

    def __repr__(self) -> str:
        return self.name


def _log_integral(slope: np.ndarray, width: np.ndarray) -> np.ndarray:
    """log of the integral of exp(slope y) over [0, width), stably for any sign of slope * width."""
    t = slope * width
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = t + np.log(-np.expm1(-t)) - np.log(np.abs(slope))
        negative = np.log(-np.expm1(t)) - np.log(np.abs(slope))
    return np.where(t > 0, positive, np.where(t < 0, negative, np.log(width)))


@dataclass(frozen=True)
class _Pieces:
    """Pieces in floats: density exp(logc + slope (x - left)) on [left, left + width)."""

    left: np.ndarray
    width: np.ndarray
    slope: np.ndarray
    logc: np.ndarray

    @classmethod
    def of(cls, segments: Sequence[Segment], constant: float) -> _Pieces:
        def column(value: Any) -> np.ndarray:
            return np.array([float(value(s)) for s in segments])

        return cls(column(lambda s: s.left), column(lambda s: s.right - s.left), column(lambda s: s.slope),
                   column(lambda s: s.offset) + constant)

    @cached_property
    def masses(self) -> np.ndarray:
        return np.exp(self.logc + _log_integral(self.slope, self.width))

    def mass_below(self, x: np.ndarray) -> np.ndarray:
        """The mass of the pieces below each x (x may hold -inf)."""
        covered = np.clip(np.asarray(x, dtype=float)[..., None] - self.left, 0.0, self.width)
        with np.errstate(divide="ignore"):
            part = np.exp(self.logc + _log_integral(self.slope, np.where(covered > 0, covered, 1.0)))
        return np.where(covered > 0, part, 0.0).sum(axis=-1)

    def moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per piece: mass, mean and variance."""
        t = self.slope * self.width
        small = np.abs(t) < 1e-4
        safe = np.where(small, 1.0, t)
        with np.errstate(over="ignore"):
            h1 = np.where(small, 0.5 + t / 12, -1 / np.expm1(-safe) - 1 / safe)  # E[y] / width
            h2 = np.where(small, 1 / 12 - t**2 / 720, 1 / safe**2 - 1 / (4 * np.sinh(safe / 2) ** 2))  # Var[y] / w^2
        return self.masses, self.left + self.width * h1, self.width**2 * h2

    def draw(self, piece: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One draw from each listed piece's density (inverse cdf of exp(slope y) on [0, width))."""
        u = rng.random(len(piece))
        s, w = self.slope[piece], self.width[piece]
        t = s * w
        safe = np.where(t == 0, 1.0, s)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            rising = w + np.log(u + (1 - u) * np.exp(-np.abs(t))) / safe  # t > 0: anchored at the right end
            falling = np.log1p(u * np.expm1(t)) / safe
        y = np.where(t > 0, rising, np.where(t < 0, falling, u * w))
        return self.left[piece] + np.clip(y, 0.0, w)


@dataclass(frozen=True)
class _Tail:
    """A periodic tail in floats: the base period's pieces, the period, the ratio per period."""

    base: _Pieces
    period: float
    ratio: float

    @property
    def base_mass(self) -> float:
        return float(self.base.masses.sum())

    @property
    def mass(self) -> float:
        """The whole tail: copies 1, 2, ... of the base period, each r times the one before."""
        return self.base_mass * self.ratio / (1 - self.ratio)


__all__ = ["Atom", "PeriodicTail", "PiecewiseExponentialDistribution", "Segment"]
