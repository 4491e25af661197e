"""Piecewise-exponential output distributions: a density that is exp(linear) on each of finitely many
pieces, point masses (atoms), and tails that repeat one period of the density scaled by a constant ratio.

Laws of this form that libraries ship and :mod:`dpaudit.distributions`' other forms cannot hold:

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
:class:`~dpaudit.distributions.LogConstant` with a rigorous enclosure. The float methods (``cdf``,
``sf``, ``mean``, ``var``, ``sample``, ``log_density``) make the distribution a law for conformance
audits and plots; verdicts never use them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
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

    def _piece_arrays(self, segments: Sequence[Segment]) -> tuple[np.ndarray, ...]:
        left = np.array([float(s.left) for s in segments])
        width = np.array([float(s.right - s.left) for s in segments])
        slope = np.array([float(s.slope) for s in segments])
        logc = np.array([float(s.offset) for s in segments]) + self._constant()
        return left, width, slope, logc

    def _base_periods(self) -> dict[str, tuple[tuple[np.ndarray, ...], float, float]]:
        """Per tail: the arrays of its base period's pieces, its period and its ratio."""
        out = {}
        if self.right_tail is not None:
            t = self.right_tail
            out["right"] = (self._piece_arrays(self.segments(self.breaks[-1] - t.period, self.breaks[-1])),
                            float(t.period), math.exp(float(t.log_ratio)))
        if self.left_tail is not None:
            t = self.left_tail
            out["left"] = (self._piece_arrays(self.segments(self.breaks[0], self.breaks[0] + t.period)),
                           float(t.period), math.exp(float(t.log_ratio)))
        return out

    def _log_masses(self) -> np.ndarray:
        """Log-masses of the explicit pieces, the atoms and each tail (whole), in floats."""
        left, width, slope, logc = self._piece_arrays(self.segments(self.breaks[0], self.breaks[-1]))
        out = list(logc + _log_integral(slope, width)) + [a.log_mass() for a in self.atoms]
        for arrays, _, ratio in self._base_periods().values():
            _, w, s, c = arrays
            period_mass = np.exp(c + _log_integral(s, w)).sum()
            out.append(math.log(period_mass * ratio / (1 - ratio)))
        return np.array(out)

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
        total = np.zeros(x.shape)
        left, width, slope, logc = self._piece_arrays(self.segments(self.breaks[0], self.breaks[-1]))
        total += _mass_below(x, left, width, slope, logc)
        for a in self.atoms:
            total += np.where(x >= float(a.at), math.exp(a.log_mass()), 0.0)
        tails = self._base_periods()
        if "right" in tails:
            arrays, period, r = tails["right"]
            base_mass = float(np.exp(arrays[3] + _log_integral(arrays[2], arrays[1])).sum())
            start = float(self.breaks[-1])
            k = np.floor(np.maximum(x - start, 0.0) / period)  # whole periods passed
            within = _mass_below(np.where(x >= start, x - (k + 1) * period, -np.inf), *arrays)
            passed = base_mass * r * (1 - r**k) / (1 - r)
            total += np.where(x >= start, passed + r ** (k + 1) * within, 0.0)
        if "left" in tails:
            arrays, period, r = tails["left"]
            base_mass = float(np.exp(arrays[3] + _log_integral(arrays[2], arrays[1])).sum())
            start = float(self.breaks[0])
            j = np.ceil(np.maximum(start - x, 0.0) / period)  # the copy x lies in (j >= 1 left of start)
            j = np.where(j == 0, 1, j)
            within = _mass_below(np.where(x < start, x + j * period, -np.inf), *arrays)
            left_mass = base_mass * r ** (j + 1) / (1 - r) + r**j * within
            total += np.where(x < start, left_mass, base_mass * r / (1 - r))
        return np.clip(total, 0.0, 1.0)

    def sf(self, x: Any) -> np.ndarray:
        """P[X > x]."""
        return np.clip(1.0 - self.cdf(x), 0.0, 1.0)

    @property
    def mean(self) -> float:
        return self._moments()[0]

    @property
    def var(self) -> float:
        return self._moments()[1]

    def _moments(self) -> tuple[float, float]:
        """Mean and variance as a mixture of the pieces, atoms and tails."""
        parts = [_piece_moments(*self._piece_arrays(self.segments(self.breaks[0], self.breaks[-1])))]
        if self.atoms:
            parts.append((np.array([math.exp(a.log_mass()) for a in self.atoms]),
                          np.array([float(a.at) for a in self.atoms]), np.zeros(len(self.atoms))))
        for side, (arrays, period, r) in self._base_periods().items():
            m, mu, v = _piece_moments(*arrays)
            base_mass = m.sum()
            base_mean = float((m * mu).sum() / base_mass)
            base_var = float((m * (v + mu**2)).sum() / base_mass) - base_mean**2
            # copies j = 1, 2, ... with weights r^j: J - 1 is geometric, E J = 1 / (1 - r), Var J = r / (1 - r)^2
            sign = 1.0 if side == "right" else -1.0
            parts.append((np.array([base_mass * r / (1 - r)]), np.array([base_mean + sign * period / (1 - r)]),
                          np.array([base_var + period**2 * r / (1 - r) ** 2])))
        mass = np.concatenate([p[0] for p in parts])
        mean = np.concatenate([p[1] for p in parts])
        var = np.concatenate([p[2] for p in parts])
        m1 = float((mass * mean).sum() / mass.sum())
        return m1, float((mass * (var + (mean - m1) ** 2)).sum() / mass.sum())

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws (floats; for conformance tests of the sampler itself)."""
        left, width, slope, logc = self._piece_arrays(self.segments(self.breaks[0], self.breaks[-1]))
        weights = [np.exp(logc + _log_integral(slope, width))]
        weights.append(np.array([math.exp(a.log_mass()) for a in self.atoms]))
        tails = self._base_periods()
        for arrays, _, r in tails.values():
            weights.append(np.array([np.exp(arrays[3] + _log_integral(arrays[2], arrays[1])).sum() * r / (1 - r)]))
        w = np.concatenate(weights)
        kind = rng.choice(len(w), size=size, p=w / w.sum())
        out = np.empty(size)
        n = len(left)
        here = kind < n
        out[here] = _draw_in_pieces(kind[here], left, width, slope, rng)
        for i, a in enumerate(self.atoms):
            out[kind == n + i] = float(a.at)
        for t, (side, (arrays, period, r)) in enumerate(tails.items()):
            mask = kind == n + len(self.atoms) + t
            count = int(mask.sum())
            base_w = np.exp(arrays[3] + _log_integral(arrays[2], arrays[1]))
            piece = rng.choice(len(base_w), size=count, p=base_w / base_w.sum())
            copies = rng.geometric(1 - r, size=count)  # 1, 2, ... with P(j) proportional to r^j
            x = _draw_in_pieces(piece, arrays[0], arrays[1], arrays[2], rng)
            out[mask] = x + (copies if side == "right" else -copies) * period
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


def _mass_below(x: np.ndarray, left: np.ndarray, width: np.ndarray, slope: np.ndarray,
                logc: np.ndarray) -> np.ndarray:
    """The mass of the pieces below each x (pieces as arrays; x may hold -inf)."""
    covered = np.clip(np.asarray(x, dtype=float)[..., None] - left, 0.0, width)
    with np.errstate(divide="ignore"):
        masses = np.where(covered > 0, np.exp(logc + _log_integral(slope, np.where(covered > 0, covered, 1.0))), 0.0)
    return masses.sum(axis=-1)


def _piece_moments(left: np.ndarray, width: np.ndarray, slope: np.ndarray,
                   logc: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per piece: mass, mean and variance of the density exp(logc + slope (x - left)) on [left, left + width)."""
    mass = np.exp(logc + _log_integral(slope, width))
    t = slope * width
    small = np.abs(t) < 1e-4
    safe = np.where(small, 1.0, t)
    with np.errstate(over="ignore"):
        h1 = np.where(small, 0.5 + t / 12, -1 / np.expm1(-safe) - 1 / safe)  # E[y] / width
        h2 = np.where(small, 1 / 12 - t**2 / 720, 1 / safe**2 - 1 / (4 * np.sinh(safe / 2) ** 2))  # Var[y] / width^2
    return mass, left + width * h1, width**2 * h2


def _draw_in_pieces(piece: np.ndarray, left: np.ndarray, width: np.ndarray, slope: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    """One draw from each listed piece's density (inverse cdf of exp(slope y) on [0, width))."""
    u = rng.random(len(piece))
    s, w = slope[piece], width[piece]
    t = s * w
    safe = np.where(t == 0, 1.0, s)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rising = w + np.log(u + (1 - u) * np.exp(-np.abs(t))) / safe  # t > 0: anchored at the right end
        falling = np.log1p(u * np.expm1(t)) / safe
    y = np.where(t > 0, rising, np.where(t < 0, falling, u * w))
    return left[piece] + np.clip(y, 0.0, w)


__all__ = ["Atom", "PeriodicTail", "PiecewiseExponentialDistribution", "Segment"]
