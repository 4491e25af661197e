"""The Laplace distribution and its integer counterpart, the discrete Laplace (two-sided
geometric) distribution.

Both are exact: ``logpdf``/``logpmf``, ``cdf``/``sf`` in closed form, and an
:meth:`exact_distribution` in the log-piecewise-linear form the exact auditor analyses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpaudit.core.distributions import LogConstant, LogLinearDistribution, exact
from dpaudit.core.validation import finite_number, integer, positive, probability

from ._lattice import IntegerLaw


def _laplace_sum_cgf(lam: np.ndarray, scale: float, n: int) -> np.ndarray:
    """log E exp(lam S) = -n log(1 - scale^2 lam^2) for the sum S of n Laplace(0, scale); inf for
    |lam| >= 1/scale."""
    z = 1 - (scale * lam) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(z > 0, -n * np.log(np.where(z > 0, z, 1.0)), np.inf)


#: samples drawn per block: the working arrays stay in cache, which halves the cost per sample
_BLOCK = 1 << 14


def two_sided_geometric(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Discrete Laplace samples, P[X = k] proportional to a^|k| with a = e^(-1/scale), as int64.

    X = G_1 - G_2 with G_i = floor(scale E_i), E_i ~ Exp(1): P[G >= k] = P[E >= k / scale] = a^k, so
    each G_i is Geometric(1 - a) on {0, 1, ...}, exactly up to the rounding of scale E_i. numpy's
    exponential (a ziggurat) is faster than its geometric (an inversion with a logarithm) and has
    no cut-off in the far tail; blocks of 2^14 samples keep the arrays in cache.
    """
    shape = (size,) if np.isscalar(size) else tuple(size)
    n = int(np.prod(shape))
    out = np.empty(n, dtype=np.int64)
    buffer = np.empty(2 * min(_BLOCK, max(n, 1)))
    for start in range(0, n, _BLOCK):
        m = min(_BLOCK, n - start)
        e = buffer[: 2 * m]
        rng.standard_exponential(out=e)
        e *= scale
        np.floor(e, out=e)
        np.subtract(e[:m], e[m:], out=out[start: start + m], casting="unsafe")
    return out.reshape(shape)


@dataclass(frozen=True)
class Laplace:
    """Laplace(scale, loc=0): density exp(-|x - loc| / scale) / (2 scale) on the reals.

    ``scale`` may be a :class:`fractions.Fraction` such as ``Fraction(1) / Fraction(0.7)``: the
    exact density then has exactly that scale, and sampling uses its nearest float.
    """

    scale: float = 1.0
    loc: float = field(default=0.0, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "loc", finite_number("Laplace", "loc", self.loc))
        object.__setattr__(self, "scale", positive("Laplace", "scale", self.scale, exact=True))

    lattice = False

    @property
    def mean(self) -> float:
        return self.loc

    @property
    def var(self) -> float:
        return 2 * float(self.scale) ** 2

    @property
    def support(self) -> tuple[float, float]:
        return -math.inf, math.inf

    @property
    def cgf_domain(self) -> tuple[float, float]:
        return -1 / float(self.scale), 1 / float(self.scale)

    def cgf(self, lam) -> np.ndarray:
        """log E exp(lam X) = lam loc - log(1 - scale^2 lam^2) for |lam| < 1/scale (inf beyond)."""
        lam = np.asarray(lam, dtype=float)
        return lam * self.loc + _laplace_sum_cgf(lam, float(self.scale), 1)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(self.loc, float(self.scale), size)

    def logpdf(self, x) -> np.ndarray:
        scale = float(self.scale)
        return -np.abs(np.asarray(x, dtype=float) - self.loc) / scale - math.log(2 * scale)

    def cdf(self, x) -> np.ndarray:
        z = (np.asarray(x, dtype=float) - self.loc) / float(self.scale)
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))

    def sf(self, x) -> np.ndarray:
        return self.cdf(2 * self.loc - np.asarray(x, dtype=float))

    def shifted(self, by: float) -> Laplace:
        return Laplace(self.scale, loc=self.loc + by)

    def exact_distribution(self) -> LogLinearDistribution:
        b = exact(self.scale)
        return LogLinearDistribution.build(
            knots=[self.loc],
            slopes=[1 / b, -1 / b],
            offset_at_first_knot=0,
            constant=LogConstant(
                key=("laplace", b),
                enclose=lambda ctx: -ctx.log(2 * ctx.mpf(b.numerator) / ctx.mpf(b.denominator)),
                approx=-math.log(2 * float(self.scale)),
            ),
            lattice=False,
        )


@dataclass(frozen=True)
class DiscreteLaplace(IntegerLaw):
    """Discrete Laplace on the integers, DiscreteLaplace(scale, loc=0):
    P[X = k] = (1 - a)/(1 + a) * a^|k - loc|, a = exp(-1/scale).

    Parameterised by ``scale`` t (so that adding it to an integer query of sensitivity D gives
    (D/t)-DP, as for the continuous Laplace); ``loc`` must be an integer. ``scale`` may be a
    :class:`fractions.Fraction` (kept exact for exact audits; sampling uses its float). Sampled as the
    difference of two geometric variables (see :func:`two_sided_geometric`).

    The papers write it two ways: dist-mab's Lap_Z(b_L) is ``DiscreteLaplace(scale=b_L)``, and its
    form with ratio beta_P = e^{-1/b_L} (P[X = x] proportional to beta_P^|x|) is
    :meth:`from_decay`.
    """

    scale: float = 1.0
    loc: int = field(default=0, kw_only=True)

    def __post_init__(self) -> None:
        loc = self.loc
        if isinstance(loc, bool) or not float(loc).is_integer():
            raise ValueError(f"DiscreteLaplace: loc must be an integer, got {loc!r}")
        object.__setattr__(self, "loc", int(loc))
        object.__setattr__(self, "scale", positive("DiscreteLaplace", "scale", self.scale, exact=True))

    @classmethod
    def from_decay(cls, beta: float, *, loc: int = 0) -> DiscreteLaplace:
        """The law with P[X = x] proportional to beta^|x - loc| (scale = -1 / log beta)."""
        beta = probability("DiscreteLaplace", "beta", beta)
        return cls(-1.0 / math.log(beta), loc=loc)

    @property
    def a(self) -> float:
        return math.exp(-1.0 / float(self.scale))

    @property
    def mean(self) -> float:
        return float(self.loc)

    @property
    def var(self) -> float:
        """2a / (1 - a)^2."""
        a = self.a
        return 2 * a / math.expm1(-1.0 / float(self.scale)) ** 2

    @property
    def support(self) -> tuple[float, float]:
        return -math.inf, math.inf

    @property
    def cgf_domain(self) -> tuple[float, float]:
        return -1 / float(self.scale), 1 / float(self.scale)

    def cgf(self, lam) -> np.ndarray:
        """log E exp(lam X) = lam loc + log((1 - a)^2 / ((1 - a e^lam)(1 - a e^-lam))), |lam| < 1/scale."""
        lam = np.asarray(lam, dtype=float)
        t = 1.0 / float(self.scale)
        inside = np.abs(lam) < t
        lam_in = np.where(inside, lam, 0.0)
        with np.errstate(divide="ignore"):
            value = (lam_in * self.loc + 2 * np.log(-np.expm1(-t))
                     - np.log(-np.expm1(lam_in - t)) - np.log(-np.expm1(-lam_in - t)))
        return np.where(inside, value, np.inf)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.loc + two_sided_geometric(float(self.scale), size, rng)

    def logpmf(self, k) -> np.ndarray:
        k = np.asarray(k)
        log_norm = math.log(-math.expm1(-1.0 / float(self.scale))) - math.log1p(self.a)
        out = log_norm - np.abs(k - self.loc) / float(self.scale)
        return np.where(k == np.round(k), out, -np.inf)

    def cdf(self, k) -> np.ndarray:
        """P[X <= k] for real k."""
        j = np.floor(np.asarray(k, dtype=float)) - self.loc
        a = self.a
        below = a ** np.maximum(-j, 0) / (1 + a)  # j < 0: P[X - loc <= j] = a^{-j} / (1 + a)
        above = 1 - a ** (np.maximum(j, 0) + 1) / (1 + a)  # j >= 0
        return np.where(j < 0, below, above)

    def sf(self, k) -> np.ndarray:
        """P[X > k] for real k (computed directly, so small tails keep their precision)."""
        j = np.floor(np.asarray(k, dtype=float)) - self.loc
        a = self.a
        above = a ** (np.maximum(j, 0) + 1) / (1 + a)  # j >= 0: P[X - loc > j] = a^{j+1} / (1 + a)
        below = 1 - a ** np.maximum(-j, 0) / (1 + a)
        return np.where(j >= 0, above, below)

    def shifted(self, by: int) -> DiscreteLaplace:
        return DiscreteLaplace(self.scale, loc=self.loc + by)

    def wrapped_logpmf(self, r, m: int) -> np.ndarray:
        """log P[X mod m = r] for r in {0, ..., m - 1}, in closed form and in log space (no term
        underflows, however far out a residue is): with d = (r - loc) mod m and a = e^{-1/scale},
        P = ((1 - a)/(1 + a)) (a^d + a^{m - d}) / (1 - a^m), the two geometric series over r + j m."""
        m = int(m)
        if m < 2:
            raise ValueError(f"DiscreteLaplace.wrapped_logpmf: modulus m must be >= 2, got {m}")
        d = np.mod(np.asarray(r, dtype=np.int64) - self.loc, m).astype(float)
        la = -1.0 / float(self.scale)
        log_c = math.log(-math.expm1(la)) - math.log1p(math.exp(la))
        return log_c + np.logaddexp(d * la, (m - d) * la) - math.log(-math.expm1(m * la))

    def exact_distribution(self) -> LogLinearDistribution:
        t = exact(self.scale)

        def enclose(ctx):
            a = ctx.exp(-ctx.mpf(t.denominator) / ctx.mpf(t.numerator))
            return ctx.log(1 - a) - ctx.log(1 + a)

        return LogLinearDistribution.build(
            knots=[self.loc],
            slopes=[1 / t, -1 / t],
            offset_at_first_knot=0,
            constant=LogConstant(
                key=("discrete-laplace", t),
                enclose=enclose,
                approx=math.log(-math.expm1(-1.0 / float(self.scale))) - math.log1p(self.a),
            ),
            lattice=True,
        )




@dataclass(frozen=True)
class LaplaceSum:
    """The sum of ``n`` i.i.d. Laplace(0, scale) variables, with exact tails.

    The sum is G_1 - G_2 for G_i ~ Gamma(n, scale). Merging the two Poisson processes whose n-th
    arrivals are G_1 and G_2: given that process 2 finishes first, process 1 has k < n arrivals with
    probability C(n - 1 + k, k) 2^-(n + k), and by memorylessness G_1 - G_2 is then Gamma(n - k,
    scale). So for t >= 0, P[S > t] = sum_k C(n - 1 + k, k) 2^-(n + k) Q(n - k, t / scale), Q the
    regularized upper incomplete gamma function; the law is symmetric.
    """

    n: int = 1
    scale: float = 1.0
    lattice = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", integer("LaplaceSum", "n", self.n, minimum=1))
        object.__setattr__(self, "scale", float(positive("LaplaceSum", "scale", self.scale)))

    @property
    def _log_weights(self) -> np.ndarray:
        from scipy.special import gammaln

        k = np.arange(self.n)
        return gammaln(self.n + k) - gammaln(k + 1) - gammaln(self.n) - (self.n + k) * math.log(2)

    def _upper(self, t: np.ndarray) -> np.ndarray:
        """P[S > t] for t >= 0."""
        from scipy.special import gammaincc

        shapes = self.n - np.arange(self.n)
        return np.exp(self._log_weights) @ gammaincc(shapes[:, None], np.atleast_1d(t)[None, :] / self.scale)

    def sf(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        flat = x.ravel()
        up = self._upper(np.abs(flat))
        return np.where(flat >= 0, up, 1 - up).reshape(x.shape)

    def cdf(self, x) -> np.ndarray:
        return self.sf(-np.asarray(x, dtype=float))

    def logpdf(self, x) -> np.ndarray:
        from scipy.special import logsumexp
        from scipy.stats import gamma

        x = np.asarray(x, dtype=float)
        flat = np.abs(x.ravel())
        shapes = self.n - np.arange(self.n)
        # the weights sum to 1/2 (process 2 finishes first), and the law is symmetric
        terms = self._log_weights[:, None] + gamma.logpdf(flat[None, :], shapes[:, None], scale=self.scale)
        return logsumexp(terms, axis=0).reshape(x.shape)

    mean = 0.0

    @property
    def var(self) -> float:
        return 2 * self.n * self.scale**2

    support = (-math.inf, math.inf)

    @property
    def cgf_domain(self) -> tuple[float, float]:
        return -1 / self.scale, 1 / self.scale

    def cgf(self, lam) -> np.ndarray:
        """-n log(1 - scale^2 lam^2) for |lam| < 1/scale."""
        return _laplace_sum_cgf(np.asarray(lam, dtype=float), self.scale, self.n)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return rng.gamma(self.n, self.scale, size) - rng.gamma(self.n, self.scale, size)


__all__ = ["DiscreteLaplace", "Laplace", "LaplaceSum", "two_sided_geometric"]
