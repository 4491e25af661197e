"""Distributions as the tail and conformance auditors see them.

:func:`as_law` accepts one of ``dpaudit.mechanisms``' noise distributions (``sample``, ``cdf``,
``sf``, ``mean``, ``var``, ``lattice`` and, where it has one, ``cgf`` with ``cgf_domain``, and for a
continuous law with point masses, ``point_masses``: (point, probability) pairs) or a
scipy.stats frozen distribution, and returns a :class:`Law` with one interface. A scipy law is
exact: its own cdf and sf, and a cumulant generating function by summation for discrete laws on
a finite support, in closed form for the normal, Laplace, uniform, exponential, gamma and Poisson laws. A plain sampler
``f(size, rng)`` is not a law: only statistical audits apply to it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import logsumexp

from .names import subject_name

#: scipy discrete laws with at most this many support points get a cumulant function by summation
MAX_SUMMED_SUPPORT = 2_000_000


@dataclass(frozen=True)
class Law:
    """A distribution with exact cdf/sf, moments and (optionally) its cumulant generating function."""

    name: str
    lattice: bool
    mean: float
    var: float
    support: tuple[float, float]
    cdf: Callable[[np.ndarray], np.ndarray]  # P[X <= x]
    sf: Callable[[np.ndarray], np.ndarray]  # P[X > x]
    sample: Callable[[int, np.random.Generator], np.ndarray]
    cgf: Callable[[np.ndarray], np.ndarray] | None = None  # log E exp(lam X); inf where it diverges
    cgf_domain: tuple[float, float] = (-math.inf, math.inf)  # open interval where cgf is finite
    logpmf: Callable[[np.ndarray], np.ndarray] | None = None  # lattice laws
    logpdf: Callable[[np.ndarray], np.ndarray] | None = None  # continuous laws
    atoms: tuple[tuple[float, float], ...] = ()  # (point, probability): point masses of an otherwise continuous law

    def at_least(self, x: np.ndarray) -> np.ndarray:
        """P[X >= x]."""
        x = np.asarray(x, dtype=float)
        if self.lattice:
            return self.sf(np.ceil(x) - 1)
        return self.sf(x)

    def at_most(self, x: np.ndarray) -> np.ndarray:
        """P[X <= x]."""
        return self.cdf(np.asarray(x, dtype=float))


def _value(x: Any) -> float:
    return float(x() if callable(x) else x)


def _log_expm1_ratio(u: np.ndarray) -> np.ndarray:
    """log((e^u - 1) / u), 0 at u = 0, without overflow for large |u|."""
    u = np.asarray(u, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = u + np.log(-np.expm1(-np.abs(u))) - np.log(np.abs(u))
        out = np.where(u > 0, positive, positive - u)  # (e^u - 1)/u = e^u (1 - e^-u)/u; for u < 0, mirror
    return np.where(u == 0, 0.0, out)


def _scipy_cgf(dist: Any) -> tuple[Callable[[np.ndarray], np.ndarray], tuple[float, float]] | None:
    """Closed-form cumulant generating functions (and where they are finite) of the scipy.stats
    laws that have one in elementary terms (discrete ones on a finite support are summed instead);
    None for the others."""
    parsed = dist.dist._parse_args(*dist.args, **dist.kwds)
    shapes, loc = parsed[0], float(parsed[1])
    scale = float(parsed[2]) if len(parsed) > 2 else 1.0  # discrete laws have no scale
    name = dist.dist.name

    def bounded_log(term):
        def cgf(lam):
            lam = np.asarray(lam, dtype=float)
            with np.errstate(divide="ignore", invalid="ignore"):
                inner = term(lam)
            return np.where(np.isnan(inner), np.inf, lam * loc + inner)
        return cgf

    if name == "norm":
        return bounded_log(lambda lam: scale**2 * lam**2 / 2), (-math.inf, math.inf)
    if name == "laplace":
        edge = 1 / scale
        return bounded_log(lambda lam: np.where(np.abs(lam) < edge, -np.log1p(-(scale * lam) ** 2), np.nan)), \
            (-edge, edge)
    if name == "uniform":
        return bounded_log(lambda lam: _log_expm1_ratio(lam * scale)), (-math.inf, math.inf)
    if name == "poisson":
        mu = float(shapes[0])
        return bounded_log(lambda lam: mu * np.expm1(lam)), (-math.inf, math.inf)
    if name in ("expon", "gamma"):
        shape = 1.0 if name == "expon" else float(shapes[0])
        edge = 1 / scale
        return bounded_log(lambda lam: np.where(lam < edge, -shape * np.log1p(-scale * lam), np.nan)), \
            (-math.inf, edge)
    return None


def _from_scipy(dist: Any) -> Law:
    from scipy import stats

    lattice = isinstance(dist.dist, stats.rv_discrete)
    lo, hi = (float(v) for v in dist.support())
    cgf = None
    cgf_domain = (-math.inf, math.inf)
    logpmf = dist.logpmf if lattice else None
    closed_form = _scipy_cgf(dist)
    if closed_form is not None:
        cgf, cgf_domain = closed_form
    if lattice and math.isfinite(lo) and math.isfinite(hi) and hi - lo < MAX_SUMMED_SUPPORT:
        k = np.arange(lo, hi + 1)
        lp = dist.logpmf(k)

        def cgf(lam):
            lam = np.atleast_1d(np.asarray(lam, dtype=float))
            return logsumexp(lp[None, :] + lam[:, None] * k[None, :], axis=1)

    def sample(size, rng):
        return np.asarray(dist.rvs(size=size, random_state=rng))

    name = f"scipy.stats.{dist.dist.name}({', '.join(f'{v:g}' for v in dist.args)})"
    return Law(name, lattice, float(dist.mean()), float(dist.var()), (lo, hi), dist.cdf, dist.sf, sample, cgf,
               cgf_domain, logpmf=logpmf, logpdf=None if lattice else dist.logpdf)


def as_law(obj: Any) -> Law | None:
    """``obj`` as a :class:`Law`, or ``None`` if it is only a sampler."""
    if isinstance(obj, Law):
        return obj
    if hasattr(obj, "dist") and hasattr(obj, "rvs") and hasattr(obj, "sf"):
        return _from_scipy(obj)
    needed = ("sample", "cdf", "sf", "mean", "var")
    if not all(hasattr(obj, n) for n in needed):
        return None
    lattice = bool(getattr(obj, "lattice", hasattr(obj, "logpmf")))
    support = tuple(float(v) for v in getattr(obj, "support", (-math.inf, math.inf)))
    cgf = getattr(obj, "cgf", None)
    return Law(
        name=subject_name(obj), lattice=lattice, mean=_value(obj.mean), var=_value(obj.var), support=support,
        cdf=obj.cdf, sf=obj.sf, sample=obj.sample, cgf=cgf if callable(cgf) else None,
        cgf_domain=tuple(float(v) for v in getattr(obj, "cgf_domain", (-math.inf, math.inf))),
        logpmf=getattr(obj, "logpmf", None), logpdf=getattr(obj, "logpdf", None),
        atoms=tuple((float(at), float(p)) for at, p in getattr(obj, "point_masses", ())),
    )




class LazyLaw:
    """A law built on first use: suites name laws whose tables take time to build (sums by
    convolution, modular foldings) without building them when the suite is imported."""

    def __init__(self, build: Callable[[], Any], name: str):
        self._build, self._name, self._law = build, name, None

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        if self._law is None:
            self._law = self._build()
        return getattr(self._law, attribute)

    @property
    def name(self) -> str:
        """The suite's name for the law (not the built law's own)."""
        return self._name

    def __repr__(self) -> str:
        return self._name


__all__ = ["LazyLaw", "Law", "as_law"]
