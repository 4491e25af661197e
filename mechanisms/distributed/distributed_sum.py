"""dist-mab's batch protocol (Chowdhury & Zhou, ICLR 2023, Algorithm 1): a distributed private sum.

Each of the n users of a batch holds a reward x_i in [0, 1] and sends
y_i = (x_hat_i + eta_i) mod m, where x_hat_i = floor(x_i g) + Bernoulli(x_i g - floor(x_i g)) is the
randomized rounding to precision g (line 20) and eta_i an integer noise share (line 21). Secure
aggregation reveals only y_hat = (sum_i y_i) mod m (line 25), which by the distributive property is
(sum_i x_hat_i + sum_i eta_i) mod m; the analyzer maps y_hat > n g + tau to (y_hat - m)/g and
otherwise to y_hat/g (lines 28-30).

Noise instantiations and parameters, as the theorems print them (n = l(b) the batch size, T the
horizon, p = 1/T):

- ``"polya"`` (Theorem 1, pure DP): eta_i = gamma+ - gamma-, Polya(1/n, e^{-eps/g}); the n shares
  sum to Lap_Z(g/eps) (Fact 1). g = ceil(eps sqrt n), tau = ceil((g/eps) log(2T)).
- ``"skellam"`` (Theorem 2, RDP): eta_i ~ Sk(0, g^2/(n eps^2)), summing to Sk(0, g^2/eps^2).
  g = ceil(s eps sqrt n), tau = ceil((2g/eps) sqrt(log(2T)) + sqrt(2) log(2T)).
- ``"discrete-gaussian"`` (Theorem 4, CDP): eta_i ~ N_Z(0, g^2/(n eps^2)); the sum is not a discrete
  Gaussian, so its exact law is the n-fold convolution. g = ceil(s eps sqrt n),
  tau = ceil((g/eps) sqrt(2 log(2/p))) with p = 1/T (the spec writes p; Theorems 1-2 take p = 1/T).
In every case m = n g + 2 tau + 1. ``p`` replaces the theorems' p = 1/T where a run fixes the
failure probability itself (dist-mab's experiments: p = 0.1 in tau and in the confidence radius):
log(2T) becomes log(2/p).

Two paths that give the same output law (tested): :meth:`sample` draws the rounded sum and the
total noise from their exact laws (fast; its cost does not grow with n), and :meth:`sample_per_user`
runs every user's randomizer, reduces each message mod m and sums them mod m, as printed.
:meth:`distribution` is the exact law of y_hat on {0, ..., m - 1} for the exact auditor.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import numpy as np

from dpaudit.core.logspace import log_sum_exp
from dpaudit.core.validation import choice, integer, positive, probability, sample_size

from ..base import ExactRelease
from ..noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    FiniteIntegerLaw,
    ModularReduction,
    Polya,
    PolyaDifference,
    RandomizedRounding,
    Skellam,
    convolve,
    iid_sum,
)
from ..noise._lattice import TABLE_LOG_ERROR
from .wrapped_sums import log_iid_sum, wrapped_discrete_gaussian_sum

NOISES = ("polya", "skellam", "discrete-gaussian")
#: the largest batch whose discrete Gaussian shares are convolved for the exact law
MAX_EXACT_GAUSSIAN_USERS = 64
#: most noise shares drawn in one array when a total is drawn share by share
SHARE_BLOCK = 1 << 22


def failure_probability(owner: str, p: float | None, T: int) -> float:
    """The failure probability p in (0, 1]; None is the theorems' p = 1/T."""
    return 1 / T if p is None else probability(owner, "p", p, open_high=False)


def log_two_over_p(p: float | None, T: int) -> float:
    """log(2/p), written log(2T) by the theorems (p = 1/T, ``p=None``), which is then computed as such."""
    return math.log(2 * T) if p is None else math.log(2 / p)


def _p_label(p: float | None) -> str:
    return "" if p is None else f", p={p:g}"


class DistributedSum(ExactRelease):
    """Algorithm 1's batch protocol: randomizer R, secure aggregation S and analyzer A.

    ``noise`` is one of ``"polya"``, ``"skellam"``, ``"discrete-gaussian"``; ``epsilon``, the batch
    size ``n``, the horizon ``T`` and (Skellam, discrete Gaussian) the scale factor ``s`` >= 1 fix
    g, tau and m by the theorems' formulas (module docstring). Data: the n users' rewards in [0, 1].
    Theorem 4 covers eps in (0, 1): discrete Gaussian shares at other eps are refused unless
    ``outside_theorem=True`` (the protocol is defined for any eps > 0; only the theorem stops at 1).
    """

    paper = "dist-mab"
    source = "Algorithm 1 (batch protocol: randomizer, secure aggregation, analyzer); Theorems 1, 2 and 4"

    def __init__(self, noise: str, epsilon: float, n: int, T: int, s: float = 1.0, p: float | None = None,
                 outside_theorem: bool = False):
        self.noise = choice(self.owner, "noise", noise, NOISES)
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.n = integer(self.owner, "n", n, 1)
        self.T = integer(self.owner, "T", T, 1)
        self.s = positive(self.owner, "s", s)
        self.p = failure_probability(self.owner, p, self.T)
        if self.s < 1:
            raise ValueError(f"{self.owner}: s must be >= 1 (Theorems 2 and 4), got {s!r}")
        if self.noise == "discrete-gaussian" and not self.epsilon < 1 and not outside_theorem:
            raise ValueError(f"{self.owner}: Theorem 4 (discrete Gaussian shares) covers eps in (0, 1), "
                             f"got {epsilon!r}")
        eps, log2t = self.epsilon, log_two_over_p(p, self.T)
        if self.noise == "polya":
            self.g = math.ceil(eps * math.sqrt(self.n))
            self.tau = math.ceil(self.g / eps * log2t)
        elif self.noise == "skellam":
            self.g = math.ceil(self.s * eps * math.sqrt(self.n))
            self.tau = math.ceil(2 * self.g / eps * math.sqrt(log2t) + math.sqrt(2) * log2t)
        else:
            self.g = math.ceil(self.s * eps * math.sqrt(self.n))
            self.tau = math.ceil(self.g / eps * math.sqrt(2 * log2t))
        self.m = self.n * self.g + 2 * self.tau + 1
        self.name = (f"DistributedSum({self.noise}, eps={eps:g}, n={self.n}, T={self.T}"
                     + (f", s={self.s:g}" if self.noise != "polya" else "") + _p_label(p) + ")")

    @property
    def share(self) -> Any:
        """One user's noise share eta_i."""
        if self.noise == "polya":
            return PolyaDifference.share(self.n, math.exp(-self.epsilon / self.g))
        variance = self.g**2 / (self.n * self.epsilon**2)
        return Skellam(variance) if self.noise == "skellam" else DiscreteGaussian(math.sqrt(variance))

    def total_noise(self) -> Any:
        """The exact law of sum_i eta_i."""
        if self.noise == "polya":
            return DiscreteLaplace(self.g / self.epsilon)  # Fact 1
        if self.noise == "skellam":
            return Skellam(self.g**2 / self.epsilon**2)
        if self.n > MAX_EXACT_GAUSSIAN_USERS:
            raise ValueError(f"{self.owner}: the exact law of {self.n} discrete Gaussian shares is a {self.n}-fold "
                             f"convolution; it is built for batches of at most {MAX_EXACT_GAUSSIAN_USERS} users")
        return iid_sum(self.share, self.n, name=f"sum of {self.n} N_Z shares")

    def _input(self, data: Any) -> np.ndarray:
        """The n users' rewards, checked."""
        x = np.asarray(data, dtype=float)
        if x.shape != (self.n,) or not np.isfinite(x).all() or (x < 0).any() or (x > 1).any():
            raise ValueError(f"{self.owner}: data must be the {self.n} users' rewards in [0, 1], got shape {x.shape}")
        return x

    def rounded_sum(self, data: Any) -> FiniteIntegerLaw:
        """The exact law of sum_i x_hat_i (independent two-point laws, convolved)."""
        return self._rounded_sum(self._input(data))

    def _rounded_sum(self, x: np.ndarray) -> FiniteIntegerLaw:
        return RandomizedRounding(self.g).sum_law(x)

    def _sample(self, x: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """y_hat for ``size`` independent runs, from the exact laws of the rounded sum and the noise."""
        return self.secure_sum(self._rounded_sum(x).sample(size, rng), rng)

    def secure_sum(self, rounded_totals: Any, rng: np.random.Generator) -> np.ndarray:
        """(total + sum_i eta_i) mod m for every rounded total sum_i x_hat_i given (any shape, one
        independent draw of the n users' total noise each): the law of y_hat given the rounded sum,
        since (sum_i y_i) mod m = (sum_i x_hat_i + sum_i eta_i) mod m. The total noise is drawn from its
        exact law (:meth:`total_noise`), except for discrete Gaussian shares, whose sum has no closed
        form: their n shares are drawn and summed."""
        totals = np.asarray(rounded_totals, dtype=np.int64)
        return np.mod(totals + self._total_noise_sample(totals.shape, rng), self.m)

    def _total_noise_sample(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        if self.noise != "discrete-gaussian":
            return np.asarray(self.total_noise().sample(shape, rng), dtype=np.int64)
        count = math.prod(shape)
        out = np.empty(count, dtype=np.int64)
        rows = max(1, SHARE_BLOCK // self.n)  # totals per array of shares
        for start in range(0, count, rows):
            stop = min(count, start + rows)
            out[start:stop] = self.share.sample((stop - start, self.n), rng).sum(axis=1)
        return out.reshape(shape)

    def messages(self, rewards: Any, rng: np.random.Generator) -> np.ndarray:
        """R (lines 20-22) for every user at once: y_i = (x_hat_i + eta_i) mod m for rewards of any
        shape, each user rounding her reward and drawing her own share."""
        x = np.asarray(rewards, dtype=float)
        x_hat = RandomizedRounding(self.g).round(x, rng)
        return np.mod(x_hat + self.share.sample(x.shape, rng), self.m)

    def analyzer(self, y_hat: Any, rng: np.random.Generator) -> np.ndarray:
        """The server's analyzer on SecAgg's outputs y_hat, with whatever randomness it draws: here none,
        A is lines 28-30 (:meth:`analyze`); the central protocol's adds its noise first."""
        return self.analyze(y_hat)

    def sample_per_user(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """y_hat as printed: every user rounds, adds a share, reduces mod m; S sums the messages mod m."""
        size = sample_size(self.owner, size)
        x = self._input(data)
        x_hat = RandomizedRounding(self.g).round(np.broadcast_to(x, (size, self.n)), rng)
        messages = np.mod(x_hat + self.share.sample((size, self.n), rng), self.m)
        return np.mod(messages.sum(axis=1), self.m)

    def _distribution(self, x: np.ndarray):
        """The exact law of y_hat on {0, ..., m - 1}.

        Polya and Skellam shares: the total noise (Lap_Z(g/eps), Sk(0, g^2/eps^2)) has a log-space law
        mod m (:meth:`~dpaudit.mechanisms.noise.DiscreteLaplace.wrapped_logpmf` in closed form,
        :meth:`~dpaudit.mechanisms.noise.Skellam.wrapped_logpmf` from Bessel ratios), mixed over the
        rounded sum in log space, so residues far from the mean keep full relative precision (a table
        would reach them through subnormal floats). Discrete Gaussian: the convolved table folded mod m where
        it covers every residue with normal floats (batches of at most :data:`MAX_EXACT_GAUSSIAN_USERS`);
        otherwise the shares' sum mod m in log space (:attr:`wrapped_noise`), mixed the same way.
        """
        if self.noise in ("polya", "skellam"):
            return wrapped_mixture(self._rounded_sum(x), self.total_noise(), self.m)
        if self.n <= MAX_EXACT_GAUSSIAN_USERS:
            total = convolve(self._rounded_sum(x), self.total_noise())
            folded = ModularReduction(self.m).wrap(total)
            if folded.probs.size == self.m and folded.probs.min() >= 1e-300:
                return folded.finite_distribution()
        return wrapped_mixture(self._rounded_sum(x), self.wrapped_noise, self.m)

    @cached_property
    def wrapped_noise(self):
        """The discrete Gaussian shares' sum mod m in log space, with its error bound
        (:func:`~.wrapped_sums.wrapped_discrete_gaussian_sum`); computed once per protocol (seconds at n = 1024)."""
        if self.noise != "discrete-gaussian":
            raise ValueError(f"{self.owner}: wrapped_noise is the discrete Gaussian shares' law; the {self.noise} "
                             "total has a closed form mod m (total_noise().wrapped_logpmf)")
        return wrapped_discrete_gaussian_sum(math.sqrt(self.g**2 / (self.n * self.epsilon**2)), self.n, self.m)

    def analyze(self, y_hat: Any) -> np.ndarray:
        """A (lines 28-30): the estimate of sum_i x_i, with the underflow correction."""
        return ModularReduction(self.m).correct(np.asarray(y_hat), self.n * self.g + self.tau) / self.g




def wrapped_mixture(rounded: FiniteIntegerLaw, noise: Any, m: int):
    """The law of (K + Y) mod m for K with a finite table and Y with a log-space law mod m
    (``noise.wrapped_logpmf``: discrete Laplace, Skellam), in log space:
    log P(r) = logsumexp_k (log P[K = k] + log P[Y = r - k mod m])."""
    from dpaudit.core.distributions import FiniteDistribution

    with np.errstate(divide="ignore"):
        log_w = np.log(rounded.probs)
    ks = rounded.values
    residues = np.arange(m)
    log_p = np.empty(m)
    for start in range(0, m, 4096):  # blocks of residues keep the (k, r) array small
        r = residues[start: start + 4096]
        terms = log_w[:, None] + noise.wrapped_logpmf(r[None, :] - ks[:, None], m)
        log_p[start: start + 4096] = log_sum_exp(terms, axis=0)
    # the rounded sum's table error, the noise's own bound where it states one (the discrete
    # Laplace's closed form has only a few roundings), and the log-sum-exp
    noise_error = noise.wrapped_log_error(m) if hasattr(noise, "wrapped_log_error") else 0.0
    error = rounded.log_error + noise_error + 1e-13 * (1 + float(np.abs(log_p).max()))
    return FiniteDistribution(residues, np.minimum(log_p, 0.0), log_error=error)


#: Lemma 5's absolute constant c, which the paper leaves unspecified; 1.6 is just above the smallest
#: value valid for every eps (1 / sqrt(1 - e^{-1/2}) = 1.594, the continuous Laplace's constant)
LEMMA5_C = 1.6


class LocalModularRandomizer(ExactRelease):
    """dist-mab's local protocol (Algorithms 4-5, Theorem 6): one user's message (x_hat + eta) mod m,
    eta ~ Lap_Z(g/eps), with g = ceil(eps sqrt n), tau = ceil((c g/eps) sqrt(2 n log(2/p))), p = 1/T
    and m = n g + 2 tau + 1. ``c`` is Lemma 5's unspecified constant (default :data:`LEMMA5_C`); it
    sets tau, hence m, and not the privacy of the message. Theorem 6 covers eps in (0, 1); other
    values are refused unless ``outside_theorem=True`` (the protocol is defined for any eps > 0; only
    the theorem's guarantee stops at 1: the paper's own Fig. 4 runs eps = 1). Data: one user's reward in [0, 1]."""

    paper = "dist-mab"
    source = "Algorithms 4-5 (local protocol), Theorem 6"

    def __init__(self, epsilon: float, n: int, T: int, c: float = LEMMA5_C, p: float | None = None,
                 outside_theorem: bool = False):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        if not self.epsilon < 1 and not outside_theorem:
            raise ValueError(f"{self.owner}: Theorem 6 covers eps in (0, 1), got {epsilon!r}")
        self.n = integer(self.owner, "n", n, 1)
        self.T = integer(self.owner, "T", T, 1)
        self.c = positive(self.owner, "c", c)
        self.p = failure_probability(self.owner, p, self.T)
        self.g = math.ceil(self.epsilon * math.sqrt(self.n))
        self.tau = math.ceil(self.c * self.g / self.epsilon * math.sqrt(2 * self.n * log_two_over_p(p, self.T)))
        self.m = self.n * self.g + 2 * self.tau + 1
        self.name = f"LocalModularRandomizer(eps={self.epsilon:g}, n={self.n}, T={self.T}{_p_label(p)})"

    def _input(self, data: Any) -> float:
        """The user's reward, checked."""
        x = np.asarray(data, dtype=float)
        if x.ndim != 0 and x.shape != (1,) or not np.isfinite(x).all() or not 0 <= float(x.ravel()[0]) <= 1:
            raise ValueError(f"{self.owner}: data must be one reward in [0, 1], got {data!r}")
        return float(x.ravel()[0])

    def _sample(self, x: float, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.messages(np.full(size, x), rng)

    @property
    def noise(self) -> DiscreteLaplace:
        """One user's noise eta_i ~ Lap_Z(g/eps) (Algorithm 4, line 4)."""
        return DiscreteLaplace(self.g / self.epsilon)

    def messages(self, rewards: Any, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 4 for every user at once: (x_hat_i + eta_i) mod m for rewards of any shape."""
        x = np.asarray(rewards, dtype=float)
        x_hat = RandomizedRounding(self.g).round(x, rng)
        return np.mod(x_hat + self.noise.sample(x.shape, rng), self.m)

    def secure_sum(self, rounded_totals: Any, rng: np.random.Generator) -> np.ndarray:
        """SecAgg's (sum_i y_i) mod m over the batch's n users given each rounded total sum_i x_hat_i
        (any shape): (total + sum of n Lap_Z(g/eps)) mod m. Lap_Z(g/eps) is the difference of two
        Geometric(e^{-eps/g}) (Remark 7), so the n users' noise is exactly the difference of two
        Polya(n, e^{-eps/g}) (negative binomial) draws, one pair per total."""
        totals = np.asarray(rounded_totals, dtype=np.int64)
        half = Polya(float(self.n), math.exp(-self.epsilon / self.g))
        return np.mod(totals + half.sample(totals.shape, rng) - half.sample(totals.shape, rng), self.m)

    # Algorithm 5 is Algorithm 1's analyzer with this protocol's n, g, tau and m (no randomness of its own)
    analyze = DistributedSum.analyze
    analyzer = DistributedSum.analyzer

    def _distribution(self, x: float):
        """The exact law of the message on {0, ..., m - 1} (closed form mod m, in log space)."""
        return wrapped_mixture(RandomizedRounding(self.g).law(x),
                               DiscreteLaplace(self.g / self.epsilon), self.m)


class ShuffleModSum(DistributedSum):
    """The mod-sum step of dist-mab's Theorem 3 (pure DP via secure shuffling, App. D.2):
    y_hat = (sum_i R(x_i)) mod m, R Algorithm 1's randomizer, with Theorem 3's parameters
    eps' = eps/2, g = ceil(eps' sqrt n), p' = 1/(2T), tau = ceil((g/eps') log(2/p')), m = n g + 2 tau + 1,
    and shares gamma+ - gamma-, gamma+- ~ Polya(1/n, e^{-eps/g}) as printed (so the n shares sum to
    Lap_Z(g/eps), Fact 1).

    The proof bounds the shuffled protocol's loss by 2 eps~ + (the loss of this mod sum), eps~ = eps/4,
    so it needs this step to be (eps - 2 eps~) = eps/2-DP. ``noise_parameter="primed"`` uses
    e^{-eps'/g} instead (total noise Lap_Z(g/eps')), the reading under which the step holds; the
    default is the printed e^{-eps/g}. The (eps~, q)-SecAgg simulated by shuffling (Cheu and Yan) is
    not implemented: this is the mod sum the proof reduces to, not the whole protocol.
    """

    source = "Theorem 3's mod-sum step (pure DP via secure shuffling, Appendix D.2)"
    NOISE_PARAMETERS = ("printed", "primed")

    def __init__(self, epsilon: float, n: int, T: int, noise_parameter: str = "printed", p: float | None = None):
        super().__init__("polya", epsilon, n, T, p=p)
        self.noise_parameter = choice(self.owner, "noise_parameter", noise_parameter, self.NOISE_PARAMETERS)
        eps_prime = self.epsilon / 2
        p_prime = 1 / (2 * self.T) if p is None else self.p / 2  # Theorem 3: p' = 1/(2T), i.e. p/2
        self.g = math.ceil(eps_prime * math.sqrt(self.n))
        self.tau = math.ceil(self.g / eps_prime * math.log(2 / p_prime))
        self.m = self.n * self.g + 2 * self.tau + 1
        #: the epsilon in the shares' decay e^{-epsilon/g}: eps as printed, eps' = eps/2 when primed
        self.noise_epsilon = self.epsilon if self.noise_parameter == "printed" else eps_prime
        decay = "eps" if self.noise_parameter == "printed" else "eps/2"
        self.name = (f"ShuffleModSum(eps={self.epsilon:g}, n={self.n}, T={self.T}{_p_label(p)}, "
                     f"noise e^(-{decay}/g))")

    @property
    def share(self) -> Any:
        return PolyaDifference.share(self.n, math.exp(-self.noise_epsilon / self.g))

    def total_noise(self) -> Any:
        return DiscreteLaplace(self.g / self.noise_epsilon)  # Fact 1


_U = 2.0**-53


class IntegerQueryNoise(ExactRelease):
    """dist-mab's N-query mechanisms (Fact 2, Fact 3, Lemmas 3 and 4): an integer query answer q in
    {0, ..., max_answer} released as q + Z, Z an integer noise given by its log pmf table.

    ``log_table(lo, hi) -> (log P[Z = k] for k = lo .. hi, error bound)`` must be accurate in log
    space however far out; ``window`` = (lo, hi) bounds where Z lives (outside it every pmf value is
    below e^-750, the convention of the project's tables); ``sampler(size, rng)`` draws Z.
    :meth:`distribution` is the exact law of q + Z on the window {lo, ..., hi + max_answer} shared by
    every admissible answer, so the two laws of a pair have the same support (a Renyi divergence of
    tables cut at different places would be infinite).
    """

    paper = "dist-mab"
    source = "the N-query mechanisms of Facts 2-3 and Lemmas 3-4"

    def __init__(self, log_table: Any, window: tuple[int, int], sampler: Any, max_answer: int, name: str):
        self.max_answer = integer(self.owner, "max_answer", max_answer, 0)
        self.lo, self.hi = int(window[0]), int(window[1])
        self.log_probs, self.log_error = log_table(self.lo - self.max_answer, self.hi + self.max_answer)
        self.sampler, self.name = sampler, name

    @classmethod
    def discrete_gaussian(cls, sigma: float, max_answer: int) -> IntegerQueryNoise:
        """N_Z(0, sigma^2) noise (Fact 2): its log pmf is closed form everywhere."""
        law = DiscreteGaussian(sigma)

        def log_table(lo: int, hi: int) -> tuple[np.ndarray, float]:
            values = law.logpmf(np.arange(lo, hi + 1))
            return values, TABLE_LOG_ERROR + 4 * _U * (1 + float(np.abs(values).max()))

        return cls(log_table, law.window(), law.sample, max_answer, f"q + N_Z(0, {sigma:g}^2), q in [0, {max_answer}]")

    @classmethod
    def skellam(cls, variance: float, max_answer: int) -> IntegerQueryNoise:
        """Sk(0, variance) noise (Lemma 3), its log pmf from :meth:`Skellam.log_table`."""
        law = Skellam(variance)
        return cls(law.log_table, law.window(), law.sample, max_answer,
                   f"q + Sk(0, {variance:g}), q in [0, {max_answer}]")

    @classmethod
    def discrete_gaussian_sum(cls, sigma: float, n: int, max_answer: int) -> IntegerQueryNoise:
        """The sum of n i.i.d. N_Z(0, sigma^2) (Lemma 4), convolved in log space. Each share is
        sigma^2-sub-Gaussian (Fact 2), so the sum's pmf is below e^-750 beyond sqrt(1500 n) sigma."""
        owner = cls.__name__  # what Release.owner gives the instances
        n = integer(owner, "n", n, 1)
        share = DiscreteGaussian(sigma)
        lo, hi = share.window()
        offset, logs, error = log_iid_sum(lo, share.logpmf(np.arange(lo, hi + 1)),
                                          TABLE_LOG_ERROR + 4 * _U * (1 + (hi - lo) ** 2 / sigma**2), n)
        reach = math.ceil(math.sqrt(1500 * n) * sigma) + 1

        def log_table(a: int, b: int) -> tuple[np.ndarray, float]:
            if a < offset or b >= offset + logs.size:
                raise ValueError(f"{owner}: the sum's table covers [{offset}, {offset + logs.size - 1}], "
                                 f"not [{a}, {b}]")
            return logs[a - offset: b - offset + 1], error

        def sampler(size: Any, rng: np.random.Generator) -> np.ndarray:
            size = sample_size(owner, size)
            return share.sample((size, n), rng).sum(axis=1)

        return cls(log_table, (-reach, reach), sampler, max_answer,
                   f"q + sum of {n} N_Z(0, {sigma:g}^2), q in [0, {max_answer}]")

    def _input(self, data: Any) -> int:
        """The query answer, checked: an integer in [0, max_answer]."""
        q = np.asarray(data)
        if q.ndim != 0 or q != np.round(q) or not 0 <= q <= self.max_answer:
            raise ValueError(f"{self.owner}: data must be an integer query answer in [0, {self.max_answer}], "
                             f"got {data!r}")
        return int(q)

    def _sample(self, q: int, size: int, rng: np.random.Generator) -> np.ndarray:
        return q + self.sampler(size, rng)

    def _distribution(self, q: int):
        """The exact law of q + Z on {lo, ..., hi + max_answer} (log space)."""
        from dpaudit.core.distributions import FiniteDistribution

        outcomes = np.arange(self.lo, self.hi + self.max_answer + 1)
        start = self.max_answer - q  # log_probs[0] is Z = lo - max_answer
        logs = self.log_probs[start: start + outcomes.size]
        return FiniteDistribution(outcomes, logs, log_error=self.log_error)


class CentralModularSum(DistributedSum):
    """dist-mab's central protocol (Algorithms 2-3, Theorem 5): users send x_hat_i mod m with no noise
    (Algorithm 2); the trusted analyzer draws eta ~ Lap_Z(g/eps), adds eta mod m to the aggregate and
    corrects the wrap-around (Algorithm 3). g = ceil(eps sqrt n), tau = ceil((g/eps) log(2/p)) with
    p = 1/T, m = n g + 2 tau + 1 -- Theorem 1's parameters, since log(2/p) = log(2T).

    Released: the analyzer's output z, a one-to-one function of y = (sum x_hat_i + eta) mod m, so
    :meth:`sample` and :meth:`distribution` give y, whose law is Algorithm 1's with Polya shares
    (their sum is Lap_Z(g/eps), Fact 1). :meth:`sample_per_user` runs Algorithms 2 and 3 as printed.
    Theorem 5 covers eps in (0, 1); other values are refused unless ``outside_theorem=True`` (as for
    :class:`LocalModularRandomizer`)."""

    source = "Algorithms 2-3 (central protocol), Theorem 5"

    def __init__(self, epsilon: float, n: int, T: int, p: float | None = None, outside_theorem: bool = False):
        super().__init__("polya", epsilon, n, T, p=p)
        if not self.epsilon < 1 and not outside_theorem:
            raise ValueError(f"{self.owner}: Theorem 5 covers eps in (0, 1), got {epsilon!r}")
        self.name = f"CentralModularSum(eps={self.epsilon:g}, n={self.n}, T={self.T}{_p_label(p)})"

    def sample_per_user(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 2 for every user (x_hat_i mod m), SecAgg's sum mod m, then Algorithm 3's
        (y_hat + (eta mod m)) mod m."""
        size = sample_size(self.owner, size)
        x = self._input(data)
        y_hat = np.mod(self.messages(np.broadcast_to(x, (size, self.n)), rng).sum(axis=1), self.m)
        return self.add_central_noise(y_hat, rng)

    def messages(self, rewards: Any, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 2 for every user at once: x_hat_i mod m, no noise."""
        return np.mod(RandomizedRounding(self.g).round(np.asarray(rewards, dtype=float), rng), self.m)

    def add_central_noise(self, y_hat: Any, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 3, lines 3-4: y = (y_hat + (eta mod m)) mod m, eta ~ Lap_Z(g/eps), one draw per y_hat."""
        y_hat = np.asarray(y_hat)
        eta = self.total_noise().sample(y_hat.shape, rng)
        return np.mod(y_hat + np.mod(eta, self.m), self.m)

    def analyzer(self, y_hat: Any, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 3: the central noise (lines 3-4), then the correction (lines 5-7). :meth:`secure_sum`
        gives y of line 4 directly (its law given the rounded total), which :meth:`analyze` reads."""
        return self.analyze(self.add_central_noise(y_hat, rng))


__all__ = ["LEMMA5_C", "CentralModularSum", "DistributedSum", "IntegerQueryNoise", "LocalModularRandomizer",
           "ShuffleModSum", "log_iid_sum"]
