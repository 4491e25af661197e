"""private-online Algorithm 1: Anytime-Lazy-UCB (Hu, Huang & Mehta, Section 4.1), a bandit policy
(:mod:`dpaudit.bandits.policies`) vectorised over runs.

Arm j's pulls fill arrays of doubling size 1, 2, 4, ... (array r holds its pulls 2^r .. 2^{r+1} - 1).
When array r is full the arm's private mean becomes mu~_j = (sum of array r + Lap(1/eps)) / 2^r
(eq. 3) and lambda_j = 2^r; round t then plays

    argmax_j  mu~_j + sqrt(3 ln t / lambda_j) + 3 ln t / (eps lambda_j)                      (eq. 4)

from the last FULL array only (lazy and forgetful). Every arm is pulled once first (rounds 1..K);
that pull is array 0, full at once.

The noise is the release's: :class:`~dpaudit.mechanisms.counters.lazy_laplace.LazyLaplaceArrays` draws the
Lap(1/eps) of every array of every arm and run once, at ``start`` (shape (runs, K, A), A =
floor(log2(T + 1)) arrays, the most an arm can fill within T rounds), and forms eq. 3 with
:meth:`~dpaudit.mechanisms.counters.lazy_laplace.LazyLaplaceArrays.noisy_mean`. Drawing the independent
noises ahead does not change their law, and lets the two paths consume the same draws.

Choices where the paper is silent: the initialisation pull is released by eq. 3 with r = 0, with a
Lap(1/eps) draw (Algorithm 1 says only "pull j once to initialize mu~_{j,1,0}"); ``literal_init=True``
takes the box as printed, the raw first reward without noise (not covered by Theorem 2's proof,
which noises every array). Ties go to the lowest arm. Natural log (eq. 4; Hybrid-UCB uses base 2).
``noise_scale="1/(2eps)"`` draws the arrays' noise at half the printed scale, Lap(1/(2 eps)), while the
index keeps eq. 4's eps: a calibration bug the exact audit must refute (a test does).

Exact law of the decisions (:meth:`AnytimeLazyUCB.decision_distribution`): on two arms and at most
:data:`EXACT_MAX_HORIZON` rounds, by :mod:`algorithms.online.lazy_law` (decision paths enumerated
depth-first, each path's probability by transfers along the chain of array releases). Its presence makes
every :class:`~dpaudit.bandits.transcripts.DecisionTranscript` of the policy exact; a transcript over a
longer horizon is still built and sampled, and only asking for its law is refused.

Fast path (``next_block``): between two array completions the indices change only through ln t,
and for two arms the difference of their indices is monotone in t (both bonus coefficients
decrease in lambda), so the argmax can only switch away from the arm J it holds, at most K - 1
times. A block plays J until J's array fills or the first round another arm's index overtakes J's;
that round is found by a vectorised bisection over integer rounds on "argmax at t is J", evaluated
with ``index`` itself, so both paths make the same decisions given the same noise (the predicate
is monotone in exact arithmetic; a floating-point non-monotonicity would need two indices within
rounding error of each other). Blocks never cross an array completion.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.distributions import FiniteDistribution
from dpaudit.core.validation import choice, positive
from dpaudit.mechanisms.counters.lazy_laplace import LazyLaplaceArrays, full_arrays

from .indices import IndexPolicy
from .lazy_law import decision_law

#: the array noise: Lap(1/eps) as printed (eq. 3), or half that scale, Lap(1/(2 eps)) (a calibration bug
#: the exact audit must refute: it loses 2 eps)
NOISE_SCALES = ("1/eps", "1/(2eps)")
#: largest horizon of the exact decision law (the paths and the messages' pieces grow with T: a law takes
#: about 0.1 s at T = 10, 0.3 s at T = 12 and 0.6 s at T = 14, in ball arithmetic)
EXACT_MAX_HORIZON = 14


class AnytimeLazyUCB(IndexPolicy):
    """Anytime-Lazy-UCB at budget ``epsilon`` (module docstring)."""

    owner: ClassVar[str] = "AnytimeLazyUCB"
    source: ClassVar[str] = "Algorithm 1 (Section 4.1), eqs. 3-4"
    #: anytime as its name says: the horizon only sizes the noise drawn ahead (floor(log2(T + 1)) arrays per
    #: arm), whose law for the arrays a run fills does not depend on it
    anytime: ClassVar[bool] = True

    def __init__(self, epsilon: float, literal_init: bool = False, noise_scale: str = "1/eps"):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        if not isinstance(literal_init, (bool, np.bool_)):
            raise ValueError(f"{self.owner}: literal_init must be True or False, got {literal_init!r}")
        self.literal_init = bool(literal_init)
        self.scale_rule = choice(self.owner, "noise_scale", noise_scale, NOISE_SCALES)
        # the budget whose Lap(1/budget) the arrays' sums get: eps as printed, 2 eps for half the scale
        self.noise_epsilon = self.epsilon * (1 if self.scale_rule == "1/eps" else 2)
        self.name = (f"Anytime-Lazy-UCB(eps={self.epsilon:g}" + (", literal init" if self.literal_init else "")
                     + ("" if self.scale_rule == "1/eps" else f", Lap({self.scale_rule})") + ")")

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        self.arrays = full_arrays(self.horizon)
        self.release = LazyLaplaceArrays(self.noise_epsilon, 2**self.arrays - 1)
        self.noise = self.release.sample_sum_noise((self.runs, self.K, self.arrays), rng)
        self.means = np.zeros((self.runs, self.K))  # mu~_j of the last full array
        self.sizes = np.ones((self.runs, self.K))  # lambda_j
        self.filling = np.zeros((self.runs, self.K))  # sum of the array being filled

    def index(self, t: Any) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if t.ndim == 1:
            t = t[:, None]
        log_t = np.log(t)
        value = self.means + np.sqrt(3 * log_t / self.sizes) + 3 * log_t / (self.epsilon * self.sizes)
        return np.where(self.pulls > 0, value, np.inf)

    def until_full(self, rows: np.ndarray, arms: np.ndarray) -> np.ndarray:
        """Pulls left until the array being filled is full: array a = floor(log2(O + 1)) fills at
        pull 2^{a+1} - 1."""
        count = self.pulls[rows, arms]
        filling = np.floor(np.log2(count + 1)).astype(np.int64)
        return 2 ** (filling + 1) - 1 - count

    def _add(self, rows: np.ndarray, arms: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        before = self.pulls[rows, arms]
        filling = np.floor(np.log2(before + 1)).astype(np.int64)  # the array being filled
        self.pulls[rows, arms] = before + counts
        self.filling[rows, arms] += sums
        full = before + counts == 2 ** (filling + 1) - 1
        rows, arms, r = rows[full], arms[full], filling[full]
        if rows.size:
            mean = self.release.noisy_mean(self.filling[rows, arms], self.noise[rows, arms, r], r)
            if self.literal_init:  # the box as printed: the first reward itself
                mean = np.where(r == 0, self.filling[rows, arms], mean)
            self.means[rows, arms] = mean
            self.sizes[rows, arms] = 2.0**r
            self.filling[rows, arms] = 0.0

    def next_block(self, t: np.ndarray, limit: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The block certificate of the module docstring; ``limit`` (the protocol's option) caps the rounds it
        certifies, so a block the engine cuts to one round costs one index evaluation."""
        t = np.asarray(t, dtype=np.int64)
        played = np.argmax(self.index(t), axis=1)
        if limit is not None and (np.asarray(limit) <= 1).all():
            return played, np.ones(self.runs, dtype=np.int64)
        last = t + self.until_full(self._rows, played) - 1  # J's array fills at this round at the latest
        if limit is not None:
            last = np.minimum(last, t + np.maximum(np.asarray(limit, dtype=np.int64), 1) - 1)

        def holds(u: np.ndarray) -> np.ndarray:
            return np.argmax(self.index(u), axis=1) == played

        good = t.copy()  # argmax is J here
        bad = np.where(holds(last), last + 1, last)  # J keeps the argmax through good, not at bad
        while True:
            open_ = bad - good > 1
            if not open_.any():
                break
            middle = np.where(open_, (good + bad) // 2, good)
            ok = holds(middle)
            good = np.where(open_ & ok, middle, good)
            bad = np.where(open_ & ~ok, middle, bad)
        return played, good - t + 1

    def decision_distribution(self, table: Any, rounds: Any) -> FiniteDistribution:
        """The exact law of the arms played at ``rounds`` (1-based) on a reward table of two arms, shape
        (T, 2) with T <= :data:`EXACT_MAX_HORIZON` (:mod:`algorithms.online.lazy_law`: depth-first
        enumeration of the decision paths, each path's probability by transfers along the chain of
        array releases, in ball arithmetic: the stated ``log_error`` is a bound). Refused for other shapes:
        with more arms a decision compares several noises at once, and the number of paths and of the
        messages' pieces grows quickly with T."""
        x = np.asarray(table, dtype=float)
        if (x.ndim != 2 or x.shape[1] != 2 or not 1 <= len(x) <= EXACT_MAX_HORIZON or not np.isfinite(x).all()
                or (x < 0).any() or (x > 1).any()):
            raise ValueError(f"{self.owner}: the exact decision law is built for two arms and at most "
                             f"{EXACT_MAX_HORIZON} rounds (a reward table of shape (T, 2), rewards in [0, 1]; the "
                             f"paths and the exact messages grow quickly with T), got shape {x.shape}")
        rounds = [int(t) for t in rounds]
        if not rounds or min(rounds) < 1 or max(rounds) > len(x):
            raise ValueError(f"{self.owner}: rounds must lie in 1..{len(x)}, got {rounds!r}")
        outcomes, log_probs, error = decision_law(x, rounds, self.epsilon, Fraction(self.noise_epsilon),
                                                  self.literal_init)
        return FiniteDistribution(outcomes, log_probs, log_error=min(max(error, 1e-15), 0.5))


__all__ = ["EXACT_MAX_HORIZON", "NOISE_SCALES", "AnytimeLazyUCB"]
