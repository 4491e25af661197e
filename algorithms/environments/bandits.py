"""K-armed stochastic environments with independent arms, vectorised over runs.

Each environment takes its arms' means as a fixed vector (every run faces the same instance) or as an
instance sampler (:class:`UniformMeans`: each run draws its own means, as dist-mab's experiments do).
Rewards of one arm are i.i.d. over rounds, arms are independent of each other, and every reward lies
in [0, 1]:

- :class:`BernoulliBandit`: Bernoulli(mu_a) rewards; a block of l pulls is one Binomial(l, mu_a) draw;
- :class:`GaussianBandit`: N(loc_a, sigma^2) clipped to ``clip`` (dist-mab Section 7: "projected to
  [0, 1]", std 0.1 in the released code). Its ``means`` are the means of the clipped rewards, computed
  in closed form, so gaps and pseudo-regret refer to the rewards actually drawn. A block's sum has no
  closed form: a block of at most :data:`EXACT_PULLS` pulls is drawn reward by reward (vectorised), a
  longer one from :func:`clipped_normal_sums` (below), so that a run's cost grows with the number of
  blocks, not with T;
- :class:`BetaBandit`: Beta(mu_a c, (1 - mu_a) c) rewards with mean mu_a and concentration c;
- :class:`BernoulliExperts`: Bernoulli rewards with full information (every arm's reward every round),
  the stochastic DTOL setting of private-online Section 5.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from scipy import stats

from dpaudit.bandits.environments import run_sums
from dpaudit.core.validation import integer, positive, real, sample_size
from dpaudit.mechanisms.noise import RandomizedRounding

#: most rewards drawn one by one in one array; larger blocks are drawn in pieces
CHUNK = 1 << 22
#: a Gaussian arm's block of at most this many pulls is drawn reward by reward; a longer block's sum comes
#: from :func:`clipped_normal_sums` (exact counts at the clip points, the normal law for the rest)
EXACT_PULLS = 1 << 14


class FixedMeans:
    """The same means in every run."""

    def __init__(self, owner: str, means: Any, low: float = 0.0, high: float = 1.0):
        values = np.asarray(means, dtype=float) if not isinstance(means, str) else np.array([])
        if values.ndim != 1 or values.size < 2 or not np.isfinite(values).all():
            raise ValueError(f"{owner}: means must be a vector of at least 2 finite numbers, got {means!r}")
        if (values < low).any() or (values > high).any():
            raise ValueError(f"{owner}: means must lie in [{low:g}, {high:g}], got {means!r}")
        self.values = values
        self.arms = values.size
        self.name = "[" + ", ".join(f"{v:g}" for v in values) + "]"

    def draw(self, runs: int, rng: np.random.Generator) -> np.ndarray:
        return np.broadcast_to(self.values, (runs, self.arms)).copy()


class UniformMeans:
    """Means drawn independently per run and arm, uniform on [low, high]:
    ``UniformMeans(10, 0.45, 0.55)`` is dist-mab's hard instance, ``UniformMeans.around(0.5, 0.1, 10)``
    the same by centre and gap."""

    owner = "UniformMeans"

    def __init__(self, arms: int, low: float, high: float):
        self.arms = integer(self.owner, "arms", arms, 2)
        self.low, self.high = real(self.owner, "low", low), real(self.owner, "high", high)
        if not 0 <= self.low < self.high <= 1:
            raise ValueError(f"{self.owner}: need 0 <= low < high <= 1, got low={low!r}, high={high!r}")
        self.name = f"U[{self.low:g}, {self.high:g}]^{self.arms}"

    @classmethod
    def around(cls, centre: float, gap: float, arms: int) -> UniformMeans:
        """Means uniform on [centre - gap/2, centre + gap/2]."""
        return cls(arms, centre - gap / 2, centre + gap / 2)

    def draw(self, runs: int, rng: np.random.Generator) -> np.ndarray:
        return rng.uniform(self.low, self.high, size=(runs, self.arms))


def _means(owner: str, means: Any) -> Any:
    return means if callable(getattr(means, "draw", None)) else FixedMeans(owner, means)


class _Independent:
    """Instances of one block of runs: arm a of run r has mean ``means[r, a]`` (subclasses draw)."""

    binary = False

    def __init__(self, means: np.ndarray):
        self.means = means

    def _draw(self, params: np.ndarray, size: Any, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def _params(self) -> np.ndarray:
        return self.means

    def rewards(self, rng: np.random.Generator) -> np.ndarray:
        return self._draw(self._params(), self.means.shape, rng)

    def values(self, arms: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        per_pull = np.repeat(self._params()[np.arange(len(arms)), arms], counts)
        return self._draw(per_pull, per_pull.shape, rng)

    def sums(self, arms: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self._pull_sums(self._params()[np.arange(len(arms)), arms], counts, rng)

    def vector_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        runs, arms = self.means.shape
        return self._pull_sums(self._params().ravel(), np.repeat(counts, arms), rng).reshape(runs, arms)

    def _pull_sums(self, params: np.ndarray, counts: Any, rng: np.random.Generator) -> np.ndarray:
        """Sum of counts[i] fresh rewards with parameter params[i], for every i, drawn one by one."""
        counts = np.asarray(counts, dtype=np.int64)
        total = int(counts.sum())
        if total <= CHUNK:
            per_pull = np.repeat(params, counts)
            return run_sums(self._draw(per_pull, per_pull.shape, rng), counts)
        # pieces of at most CHUNK pulls, in order (one block may straddle two pieces)
        ends = np.cumsum(counts)
        out = np.zeros(counts.shape)
        for start in range(0, total, CHUNK):
            stop = min(total, start + CHUNK)
            owner = np.searchsorted(ends, np.arange(start, stop), side="right")
            out += np.bincount(owner, weights=self._draw(params[owner], (stop - start,), rng), minlength=counts.size)
        return out


class _BernoulliInstances(_Independent):
    binary = True

    def _draw(self, params: np.ndarray, size: Any, rng: np.random.Generator) -> np.ndarray:
        return (rng.random(size) < params).astype(float)

    def sums(self, arms: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return rng.binomial(counts, self.means[np.arange(len(arms)), arms]).astype(float)

    def vector_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return rng.binomial(np.asarray(counts)[:, None], self.means).astype(float)


class _Environment:
    owner: ClassVar[str] = "environment"
    feedback: ClassVar[str] = "bandit"

    def __init__(self, means: Any):
        self.sampler = _means(self.owner, means)
        self.arms = int(self.sampler.arms)

    def __repr__(self) -> str:
        return self.name

    def _draw_means(self, runs: int, rng: np.random.Generator) -> np.ndarray:
        runs = sample_size(self.owner, runs)
        means = np.asarray(self.sampler.draw(runs, rng), dtype=float)
        if means.shape != (runs, self.arms):
            raise ValueError(f"{self.owner}: the means sampler gave shape {means.shape}, expected {(runs, self.arms)}")
        return means


class BernoulliBandit(_Environment):
    """Bernoulli(mu_a) rewards, bandit feedback (module docstring)."""

    owner = "BernoulliBandit"

    def __init__(self, means: Any):
        super().__init__(means)
        self.name = f"{self.owner}({self.sampler.name})"

    def instances(self, runs: int, rng: np.random.Generator) -> _BernoulliInstances:
        return _BernoulliInstances(self._draw_means(runs, rng))

    def bernoulli_means(self) -> np.ndarray | None:
        """The arms' means when every run faces the same Bernoulli bandit (what an exact regret computation
        needs, :mod:`dpaudit.auditors.exact_regret`), else None."""
        return self.sampler.values.copy() if isinstance(self.sampler, FixedMeans) else None


class BernoulliExperts(BernoulliBandit):
    """Bernoulli(mu_j) rewards for every expert every round, full information (private-online's DTOL)."""

    owner = "BernoulliExperts"
    feedback = "full"

    def bernoulli_means(self) -> None:
        return None  # full information: a bandit's exact regret does not describe it


class _GaussianInstances(_Independent):
    def __init__(self, loc: np.ndarray, sigma: float, clip: tuple[float, float]):
        self.loc, self.sigma, self.clip = loc, sigma, clip
        super().__init__(clipped_normal_mean(loc, sigma, *clip))

    def _params(self) -> np.ndarray:
        return self.loc

    def _draw(self, params: np.ndarray, size: Any, rng: np.random.Generator) -> np.ndarray:
        x = rng.standard_normal(size)
        x *= self.sigma
        x += params
        return np.clip(x, *self.clip, out=x)

    def _pull_sums(self, params: np.ndarray, counts: Any, rng: np.random.Generator) -> np.ndarray:
        """Blocks of at most EXACT_PULLS pulls drawn reward by reward (with the same draws as when every
        block is that short), longer ones by :func:`clipped_normal_sums`."""
        counts = np.asarray(counts, dtype=np.int64)
        long = counts > EXACT_PULLS
        if not long.any():
            return super()._pull_sums(params, counts, rng)
        out = np.zeros(counts.shape)
        if not long.all():
            out[~long] = super()._pull_sums(params[~long], counts[~long], rng)
        out[long] = clipped_normal_sums(params[long], self.sigma, *self.clip, counts[long], rng)
        return out

    def rounds_in_one_step(self, counts: np.ndarray) -> bool:
        """Whether :meth:`rounded_sums` serves this block (``Pulls.roundable``): when one of its runs pulls
        more than EXACT_PULLS times; shorter blocks are drawn and rounded reward by reward by the policy."""
        return bool((np.asarray(counts) > EXACT_PULLS).any())

    def rounded_sums(self, arms: np.ndarray, counts: np.ndarray, g: np.ndarray, rng: np.random.Generator
                     ) -> tuple[np.ndarray, np.ndarray]:
        """(sums, rounded sums) of each run's block at precision ``g[r]`` (``Pulls.rounded_sums``). The rounded
        sum x_hat_1 + ... + x_hat_n, x_hat = floor(g x) + Bernoulli(g x - floor(g x)), has an exact law: the
        x_hat are i.i.d. on {0, ..., g} with the probabilities :func:`clipped_normal_rounded_law` computes, so
        the counts of each value are one multinomial draw and the decisions of a policy that reads only
        rounded sums keep their exact law. A run's block of at most EXACT_PULLS pulls is drawn reward by
        reward and rounded. [choice] A longer block's sum of the rewards themselves, which only the realised
        regret reads, is its rounded sum / g: the same expectation, plus rounding noise of variance at most
        n / (4 g^2)."""
        counts = np.asarray(counts, dtype=np.int64)
        g = np.asarray(g, dtype=np.int64)
        loc = self.loc[np.arange(len(arms)), arms]
        sums, rounded = np.zeros(counts.shape), np.zeros(counts.shape, dtype=np.int64)
        short = counts <= EXACT_PULLS
        if short.any():
            values = self._draw(np.repeat(loc[short], counts[short]), (int(counts[short].sum()),), rng)
            x_hat = RandomizedRounding.round_scaled(values * np.repeat(g[short], counts[short]), rng)
            sums[short] = run_sums(values, counts[short])
            rounded[short] = np.rint(run_sums(x_hat.astype(float), counts[short])).astype(np.int64)
        for precision in np.unique(g[~short]):
            rows = np.flatnonzero(~short & (g == precision))
            law = clipped_normal_rounded_law(loc[rows], self.sigma, *self.clip, int(precision))
            tally = rng.multinomial(counts[rows], law)
            rounded[rows] = tally @ np.arange(int(precision) + 1)
            sums[rows] = rounded[rows] / precision
        return sums, rounded


def clipped_normal_sums(loc: Any, sigma: float, low: float, high: float, counts: Any,
                        rng: np.random.Generator) -> np.ndarray:
    """The sum of ``counts[i]`` i.i.d. rewards clip(N(loc[i], sigma^2), low, high), for every i, without
    drawing the rewards: how many fall below ``low`` and above ``high`` is drawn from its exact law (two
    Binomials: the multinomial over below / inside / above), and the sum of the m inside ones from the
    normal law with their exact mean and variance (the normal truncated to [low, high],
    ``scipy.stats.truncnorm``), clipped to [m low, m high].

    [choice] The sum of m truncated normals has no closed-form law, so this is the one approximation of a
    block's law in the engine: by Berry-Esseen (constant 0.4748, Shevtsova 2011) its Kolmogorov distance
    from the exact law of the inside sum is at most 0.4748 rho / (s^3 sqrt m), s^2 and rho the variance and
    third absolute central moment of one inside reward; rho / s^3 is 1.56-1.63 for locations in [0.05, 0.95]
    at sigma = 0.1 (dist-mab's instances), so at most 0.0061 for m > EXACT_PULLS = 2^14. The bound is loose
    for these nearly normal summands; the environments' tests compare the law with reward-by-reward draws
    (mean, variance, quantiles) and a policy's trajectory on both paths."""
    loc = np.asarray(loc, dtype=float)
    counts = np.asarray(counts, dtype=np.int64)
    a, b = (low - loc) / sigma, (high - loc) / sigma
    p_low, p_high = stats.norm.cdf(a), stats.norm.sf(b)
    below = rng.binomial(counts, p_low)
    rest = counts - below
    above_given_rest = np.divide(p_high, 1 - p_low, out=np.zeros_like(p_high), where=p_low < 1)
    above = rng.binomial(rest, np.clip(above_given_rest, 0.0, 1.0))
    inside = rest - above
    mean, var = stats.truncnorm.stats(a, b, loc=loc, scale=sigma, moments="mv")
    mean = np.nan_to_num(np.asarray(mean, dtype=float), nan=(low + high) / 2)  # no mass inside: no count either
    var = np.clip(np.nan_to_num(np.asarray(var, dtype=float)), 0.0, None)
    total = inside * mean + np.sqrt(inside * var) * rng.standard_normal(counts.shape)
    return below * low + above * high + np.clip(total, inside * low, inside * high)


def clipped_normal_rounded_law(loc: Any, sigma: float, low: float, high: float, g: int) -> np.ndarray:
    """P(x_hat = k), k = 0..g, for x_hat = floor(g X) + Bernoulli(g X - floor(g X)) and X = clip(N(loc,
    sigma^2), low, high), one row per location (shape (len(loc), g + 1)), rows summing to 1.

    Given X = x, x_hat = k with probability hat(g x - k), hat(y) = max(0, 1 - |y|). So each clip point
    gives its mass to the two grid values around it, and on the open interval the mass of
    [j/g, (j+1)/g] splits between k = j (weight j + 1 - g x) and k = j + 1 (weight g x - j). Both are
    partial moments of the normal, A = P(X in I) and B = E[X; X in I], in closed form (Phi and phi,
    with the upper tail through the survival function so that small masses keep their precision)."""
    loc = np.atleast_1d(np.asarray(loc, dtype=float))[:, None]
    edges = np.clip(np.arange(0, g + 1) / g, low, high)  # j/g, j = 0..g, inside [low, high]
    z = (edges - loc) / sigma  # shape (rows, g + 1)
    upper = z[:, :-1] > 0  # intervals in the upper half: differences of the survival function
    sf, cdf = stats.norm.sf(z), stats.norm.cdf(z)
    mass = np.where(upper, sf[:, :-1] - sf[:, 1:], cdf[:, 1:] - cdf[:, :-1])  # A_j on [j/g, (j+1)/g], clipped
    density = stats.norm.pdf(z)
    first = loc * mass + sigma * -np.diff(density, axis=1)  # B_j = E[X; X in interval j]
    j = np.arange(g)
    rising = np.clip(g * first - j * mass, 0.0, None)  # E[g X - j; interval j] -> k = j + 1
    falling = np.clip(mass - rising, 0.0, None)  # E[j + 1 - g X; interval j] -> k = j
    law = np.zeros((loc.shape[0], g + 1))
    law[:, :g] += falling
    law[:, 1:] += rising
    for point, weight in ((low, stats.norm.cdf((low - loc[:, 0]) / sigma)),
                          (high, stats.norm.sf((high - loc[:, 0]) / sigma))):
        k = min(int(np.floor(point * g)), g)
        frac = point * g - k
        law[:, k] += weight * (1 - frac)
        if frac > 0:
            law[:, k + 1] += weight * frac
    return law / law.sum(axis=1, keepdims=True)


def clipped_normal_mean(loc: Any, sigma: float, low: float, high: float) -> np.ndarray:
    """E[clip(X, low, high)] for X ~ N(loc, sigma^2), in closed form."""
    loc = np.asarray(loc, dtype=float)
    a, b = (low - loc) / sigma, (high - loc) / sigma
    inside = loc * (stats.norm.cdf(b) - stats.norm.cdf(a)) + sigma * (stats.norm.pdf(a) - stats.norm.pdf(b))
    return low * stats.norm.cdf(a) + high * stats.norm.sf(b) + inside


class GaussianBandit(_Environment):
    """N(loc_a, sigma^2) rewards clipped to ``clip`` (module docstring). ``means`` gives the locations
    loc_a (fixed or drawn per run); the instances' ``means`` are the clipped rewards' means."""

    owner = "GaussianBandit"

    def __init__(self, means: Any, sigma: float, clip: tuple[float, float] = (0.0, 1.0)):
        # the locations may lie outside [0, 1]; the clipped rewards do not
        self.sampler = means if callable(getattr(means, "draw", None)) else FixedMeans(self.owner, means, -np.inf,
                                                                                      np.inf)
        self.arms = int(self.sampler.arms)
        self.sigma = positive(self.owner, "sigma", sigma)
        try:
            low, high = (real(self.owner, "clip", c) for c in clip)
        except TypeError:
            raise ValueError(f"{self.owner}: clip must be a pair (low, high) within [0, 1], got {clip!r}") from None
        if not 0 <= low < high <= 1:
            raise ValueError(f"{self.owner}: clip must be a pair (low, high) with 0 <= low < high <= 1 (rewards lie "
                             f"in [0, 1]), got {clip!r}")
        self.clip = (low, high)
        self.name = f"{self.owner}({self.sampler.name}, sigma={self.sigma:g}, clip=[{low:g}, {high:g}])"

    def instances(self, runs: int, rng: np.random.Generator) -> _GaussianInstances:
        return _GaussianInstances(self._draw_means(runs, rng), self.sigma, self.clip)


class _BetaInstances(_Independent):
    def __init__(self, means: np.ndarray, concentration: float):
        super().__init__(means)
        self.concentration = concentration

    def _draw(self, params: np.ndarray, size: Any, rng: np.random.Generator) -> np.ndarray:
        c = self.concentration
        return rng.beta(params * c, (1 - params) * c, size=size)


class BetaBandit(_Environment):
    """Beta(mu_a c, (1 - mu_a) c) rewards: mean mu_a in (0, 1), concentration c > 0 (module docstring)."""

    owner = "BetaBandit"

    def __init__(self, means: Any, concentration: float = 2.0):
        super().__init__(means)
        self.concentration = positive(self.owner, "concentration", concentration)
        self.name = f"{self.owner}({self.sampler.name}, concentration={self.concentration:g})"

    def instances(self, runs: int, rng: np.random.Generator) -> _BetaInstances:
        means = self._draw_means(runs, rng)
        if (means <= 0).any() or (means >= 1).any():
            raise ValueError(f"{self.owner}: Beta rewards need means in (0, 1) (open), got {means.min():g}.."
                             f"{means.max():g}")
        return _BetaInstances(means, self.concentration)


__all__ = ["BernoulliBandit", "BernoulliExperts", "BetaBandit", "FixedMeans", "GaussianBandit", "UniformMeans",
           "EXACT_PULLS", "clipped_normal_mean", "clipped_normal_rounded_law", "clipped_normal_sums"]
