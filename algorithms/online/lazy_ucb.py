"""private-online Algorithm 1: Anytime-Lazy-UCB (Hu, Huang & Mehta, Section 4.1), a bandit policy
(:mod:`dpaudit.bandits.policies`) vectorised over runs.

Arm j's pulls fill arrays of doubling size 1, 2, 4, ... (array r holds its pulls 2^r .. 2^{r+1} - 1).
When array r is full the arm's private mean becomes mu~_j = (sum of array r + Lap(1/eps)) / 2^r
(eq. 3) and lambda_j = 2^r; round t then plays

    argmax_j  mu~_j + sqrt(3 ln t / lambda_j) + 3 ln t / (eps lambda_j)                      (eq. 4)

from the last FULL array only (lazy and forgetful). Every arm is pulled once first (rounds 1..K);
that pull is array 0, full at once.

The noise is the release's: :class:`~dpaudit.mechanisms.lazy_laplace.LazyLaplaceArrays` draws the
Lap(1/eps) of every array of every arm and run once, at ``start`` (shape (runs, K, A), A =
floor(log2(T + 1)) arrays, the most an arm can fill within T rounds), and forms eq. 3 with
:meth:`~dpaudit.mechanisms.lazy_laplace.LazyLaplaceArrays.noisy_mean`. Drawing the independent
noises ahead does not change their law, and lets the two paths consume the same draws.

Choices where the paper is silent: the initialisation pull is released by eq. 3 with r = 0, with a
Lap(1/eps) draw (Algorithm 1 says only "pull j once to initialize mu~_{j,1,0}"); ``literal_init=True``
takes the box as printed, the raw first reward without noise (not covered by Theorem 2's proof,
which noises every array). Ties go to the lowest arm. Natural log (eq. 4; Hybrid-UCB uses base 2).

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

from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import positive
from dpaudit.mechanisms.lazy_laplace import LazyLaplaceArrays, full_arrays

from .indices import IndexPolicy


class AnytimeLazyUCB(IndexPolicy):
    """Anytime-Lazy-UCB at budget ``epsilon`` (module docstring)."""

    owner: ClassVar[str] = "AnytimeLazyUCB"
    source: ClassVar[str] = "Algorithm 1 (Section 4.1), eqs. 3-4"
    #: anytime as its name says: the horizon only sizes the noise drawn ahead (floor(log2(T + 1)) arrays per
    #: arm), whose law for the arrays a run fills does not depend on it
    anytime: ClassVar[bool] = True

    def __init__(self, epsilon: float, literal_init: bool = False):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        if not isinstance(literal_init, (bool, np.bool_)):
            raise ValueError(f"{self.owner}: literal_init must be True or False, got {literal_init!r}")
        self.literal_init = bool(literal_init)
        self.name = f"Anytime-Lazy-UCB(eps={self.epsilon:g}" + (", literal init)" if self.literal_init else ")")

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        self.arrays = full_arrays(self.horizon)
        self.release = LazyLaplaceArrays(self.epsilon, 2**self.arrays - 1)
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

    def next_block(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = np.asarray(t, dtype=np.int64)
        played = np.argmax(self.index(t), axis=1)
        last = t + self.until_full(self._rows, played) - 1  # J's array fills at this round at the latest

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


__all__ = ["AnytimeLazyUCB"]
