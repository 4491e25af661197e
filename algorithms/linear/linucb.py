"""LinUCB (Abbasi-Yadkori et al. 2011) as shuffle-lcb's Algorithm 1 with the identity randomizer: the
non-private baseline of shuffle-lcb's experiments (Sec. 5), batched or not, vectorised over runs.

Round t, user t with the K arms' feature vectors x_{t,a} (the contexts, shape (runs, K, d)) plays

    a_t in argmax_a  <x_{t,a}, theta_hat_{m-1}> + beta_{m-1} ||x_{t,a}||_{V_{m-1}^{-1}}       (line 5)

(ties, up to rounding, to the lowest arm: :func:`first_best`) and, at the end of batch m (t = m B),
adds the batch's statistics: V_m = V_{m-1} + sum x x^T, u_m = u_{m-1} + sum x y,
theta_hat_m = V_m^{-1} u_m, with V_0 = lambda I (lines 14-16; no noise here). B = 1 is LinUCB
updating every round. The confidence radius is the spec's reconstruction of Lemma A.2's with no
private noise (lambda_min = lambda_max = lambda, nu = 0):

    beta_m = sqrt(2 log(1/alpha) + d log(1 + t_m / (d lambda))) + sqrt(lambda).

Choices where the paper is silent (the spec's 6.2: "use the beta_m and lambda of Section 4 with the
stated constants set to 1"): lambda = 1, alpha = 1/T by default (T the simulated horizon); a partial
last batch never updates (the spec's 4.1 [choice]).

Vectorised: V^{-1} is kept per run, (runs, d, d), and updated at a batch end by the Woodbury identity
for B = 1 (Sherman-Morrison) and by a batched inverse of V for B > 1; the indices of all arms of all
runs are one einsum. :func:`linucb_one_run` is the plain per-run reference the tests hold it to.
:meth:`LinUCB.play_rounds` plays blocks of rounds (``simulate``'s fast path on a linear bandit), compiled with
numba (:mod:`.compiled`) or, without it, round by round on the same draws.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpaudit.bandits.policies import checked_contexts
from dpaudit.core.validation import integer, positive, probability
from dpaudit.mechanisms.shuffle.shuffle_vec import upper_indices

from ..runs_in_threads import over_runs

INDEFINITE = "a released V was not positive definite"
REFRESH = 512  # incremental width updates between two exact computations (fixed arm sets, B = 1)

try:  # the compiled rounds (an optional dependency: pip install dpaudit[fast])
    from .compiled import BERNOULLI, GAUSSIAN, TABLE, linucb_rounds
except ImportError:  # numba missing: play_rounds goes round by round
    linucb_rounds = None
#: whether :meth:`LinUCB.play_rounds` can run its compiled loop (numba is installed)
AVAILABLE = linucb_rounds is not None


class ExactStatistics:
    """Algorithm 1's statistics with the identity randomizer: the batch's exact sums, no noise (LinUCB).

    The interface every private release of the algorithm's statistics follows (the private variants
    wrap an audited mechanism of :mod:`dpaudit.mechanisms` in it):

    - ``start(runs, d, horizon, rng)`` before the first round (``rng``: the policy's stream);
    - ``release(t, X, y)`` at the end of a batch (t = t_m), with the batch's played features ``X``
      (runs, n, d) and rewards ``y`` (runs, n): returns the cumulative released statistics
      (V~ (runs, d, d) without the regularizer, u (runs, d)), i.e. sum_{m' <= m} of the batch releases;
    - ``noiseless``: True when V~ is the exact Gram matrix (LinUCB may then update V^{-1} by
      Sherman-Morrison and needs no positive-definiteness guard).
    """

    noiseless: ClassVar[bool] = True
    name = "exact sums"

    def start(self, runs: int, d: int, horizon: int, rng: np.random.Generator) -> None:
        self.gram = np.zeros((runs, d, d))
        self.u = np.zeros((runs, d))

    def release(self, t: int, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Xt = X.transpose(0, 2, 1)
        self.gram += Xt @ X  # batched matmuls: several times faster than the einsums at d = 5
        self.u += (Xt @ y[..., None])[..., 0]
        return self.gram, self.u


class LinUCB:
    """Algorithm 1 with batch size ``B`` (1: every round), regularizer ``lam`` and confidence ``alpha``
    (module docstring); a contextual policy (``choose(t, contexts)``). ``statistics`` releases the
    batches' sums (:class:`ExactStatistics`, no noise, by default; the private variants pass a release
    of an audited mechanism), and ``lam_min``, ``lam_max``, ``nu`` are the radius's regularity
    constants (Assumption A.1; lam, lam and 0 without noise)."""

    owner: ClassVar[str] = "LinUCB"
    feedback: ClassVar[str] = "bandit"
    contextual: ClassVar[bool] = True
    paper: ClassVar[str] = "shuffle-lcb"
    source: ClassVar[str] = "Algorithm 1 with the identity randomizer (LinUCB, Sec. 5 baseline)"

    def __init__(self, B: int = 1, lam: float = 1.0, alpha: float | None = None, statistics: Any = None,
                 lam_min: float | None = None, lam_max: float | None = None, nu: float = 0.0):
        self.B = integer(self.owner, "B", B, 1)
        self.lam = positive(self.owner, "lam", lam)
        self.alpha = None if alpha is None else probability(self.owner, "alpha", alpha, open_high=False)
        self.statistics = ExactStatistics() if statistics is None else statistics
        self.lam_min = self.lam if lam_min is None else positive(self.owner, "lam_min", lam_min)
        self.lam_max = self.lam if lam_max is None else positive(self.owner, "lam_max", lam_max)
        self.nu = float(nu) if nu == 0 else positive(self.owner, "nu", nu)
        self.name = f"LinUCB(B={self.B}, lambda={self.lam:g}" + (")" if alpha is None else f", alpha={self.alpha:g})")
        self.notes: list[str] = []

    def __repr__(self) -> str:
        return self.name

    @property
    def anytime(self) -> bool:
        """Whether its decisions ignore the horizon it is started with: alpha = 1/T reads it unless
        ``alpha`` is given (:func:`dpaudit.bandits.policies.horizon_use`)."""
        return self.alpha is not None

    def radius(self, t_m: Any, d: int) -> np.ndarray:
        """beta_m for the batch ending at t_m (0 before the first update): the spec's Lemma A.2,
        sqrt(2 log(1/alpha) + d log(1 + t_m / (d lam_min))) + sqrt(lam_max) + nu."""
        if isinstance(t_m, int):  # every batch end asks for one value: the same IEEE operations, without arrays
            return (math.sqrt(2 * math.log(1 / self._alpha) + d * math.log1p(float(t_m) / (d * self.lam_min)))
                    + math.sqrt(self.lam_max) + self.nu)
        t_m = np.asarray(t_m, dtype=float)
        return (np.sqrt(2 * math.log(1 / self._alpha) + d * np.log1p(t_m / (d * self.lam_min)))
                + math.sqrt(self.lam_max) + self.nu)

    def radii(self, ends: np.ndarray, d: int) -> np.ndarray:
        """:meth:`radius` at each batch end of ``ends`` (int array), the per-round path's values: one scalar call
        per distinct end (numpy's log1p and sqrt may differ from math's in the last bit)."""
        distinct, of_end = np.unique(ends, return_inverse=True)
        return np.array([self.radius(int(e), d) for e in distinct], dtype=float)[of_end]

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        self.runs = integer(self.owner, "runs", runs, 0)
        self.horizon = integer(self.owner, "horizon", horizon, 1)
        self._alpha = self.alpha if self.alpha is not None else 1 / max(horizon, 2)
        self._rng = rng
        self._d: int | None = None  # the dimension, from the first contexts
        self.indefinite = 0  # (run, batch) pairs whose released V was not positive definite
        self._last: tuple[Any, np.ndarray] | None = None  # (contexts, arms) of the model's last choice
        self._widths: tuple[Any, np.ndarray] | None = None  # (contexts, ||x_a||^2_{V^-1}) kept by Sherman-Morrison
        self._updates = 0  # Sherman-Morrison updates of those widths since they were last computed afresh
        self._outer: tuple[Any, np.ndarray] | None = None  # (contexts, the weighted products x_i x_j, i <= j)
        self._seen: Any = None  # the last contexts object checked, and its float array
        self._seen_array: np.ndarray | None = None
        self._compiled: tuple[np.ndarray, ...] | None = None  # play_rounds' compiled state (_compiled_state)

    def _begin(self, d: int) -> None:
        self._d = d
        self.statistics.start(self.runs, d, self.horizon, self._rng)
        self.V_inv = np.broadcast_to(np.eye(d) / self.lam, (self.runs, d, d)).copy()
        self.theta = np.zeros((self.runs, d))
        self.beta = float(self.radius(0, d))
        self._X = np.zeros((self.runs, self.B, d))  # the batch's played features and rewards
        self._y = np.zeros((self.runs, self.B))
        self._x: np.ndarray | None = None

    def choose(self, t: int, contexts: np.ndarray) -> np.ndarray:
        if self._last is not None and contexts is self._last[0]:
            # the model changes only at a batch end: the same contexts array (a fixed arm set, which
            # the environment hands over as one array every round) gives the same indices, so the
            # batch's argmax is exact to reuse
            return self._last[1]
        if contexts is self._seen:  # a fixed arm set: the array checked at an earlier round
            x = self._seen_array
        else:
            x = checked_contexts(self.owner, contexts, self.runs, self._d, t)
            self._seen, self._seen_array = contexts, x
        if self._d is None:
            self._begin(x.shape[2])
        # ||x||_{V^-1} and <x, theta> by batched matmuls (a sum over d as a product with ones: numpy's
        # reductions over a short last axis are several times slower)
        if self._widths is not None and contexts is self._widths[0]:
            squared = self._widths[1]
        elif self._outer is not None and contexts is self._outer[0]:
            # a fixed arm set under a model refreshed every round (the private per-round variants):
            # ||x||^2_{V^-1} = sum_{i <= j} w_ij x_i x_j (V^-1)_ij with the products x_i x_j made once
            i, j = upper_indices(self._d)
            squared = (self._outer[1] @ self.V_inv[:, i, j][:, :, None])[..., 0]
        else:
            squared = ((x @ self.V_inv) * x) @ np.ones(x.shape[2])
            if self.B == 1 and self.statistics.noiseless:
                self._widths, self._updates = (contexts, squared), 0
            elif self.B == 1:
                i, j = upper_indices(self._d)
                self._outer = (contexts, x[..., i] * x[..., j] * np.where(i == j, 1.0, 2.0))
        width = np.sqrt(np.maximum(squared, 0.0))
        played = first_best((x @ self.theta[:, :, None])[..., 0] + self.beta * width)
        self._x = x[np.arange(self.runs), played]
        self._last = (contexts, played) if self.B > 1 else None
        return played

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        slot = (t - 1) % self.B
        self._X[:, slot] = self._x
        self._y[:, slot] = rewards
        if slot != self.B - 1:
            return
        self._last = None  # the model changes
        gram, u = self.statistics.release(t, self._X, self._y)
        d = self._d
        if self.B == 1 and self.statistics.noiseless:  # Sherman-Morrison: (V + x x^T)^{-1}
            x = self._x
            vx = (self.V_inv @ x[:, :, None])[..., 0]
            scale = 1 / (1 + (x[:, None, :] @ vx[:, :, None])[:, 0, 0])
            self.V_inv -= vx[:, :, None] * vx[:, None, :] * scale[:, None, None]
            self._updates += 1
            if self._widths is not None and self._updates < REFRESH:
                # a fixed arm set's widths follow the same rank-one update: ||x_a||^2 falls by
                # <x_a, V^-1 x_t>^2 / (1 + ||x_t||^2_{V^-1}), one (runs, K) product instead of (runs, K, d, d)
                cached = self._seen_array if self._widths[0] is self._seen else np.asarray(self._widths[0], float)
                along = (cached @ vx[:, :, None])[..., 0]
                self._widths[1][...] -= along**2 * scale[:, None]
            else:  # afresh now and then, so rounding cannot build up over a long run
                self._widths = None
        else:
            self._widths = None
            V = gram + self.lam * np.eye(d)
            if self.statistics.noiseless:
                self.V_inv = np.linalg.inv(V)
            else:
                self._guarded_update(V)
        self.theta = (self.V_inv @ u[:, :, None])[..., 0]
        self.beta = float(self.radius(t, d))

    #: ``choose`` may follow :meth:`play_rounds`: the compiled loop updates the model in place and leaves the radius
    #: of its last batch end (a contextual transcript chooses the last round so, drawing no release after it)
    choose_after_blocks: ClassVar[bool] = True

    @property
    def block_rounds(self) -> bool:
        """Whether the policy plays blocks of rounds (:meth:`play_rounds`, ``simulate``'s fast path on a linear
        bandit, its rewards drawn for the played arm only): the rounds the compiled loop implements, with or
        without numba installed (without it the same draws go round by round, so a simulation's result does not
        depend on the extra). LinUCB itself on the exact statistics; a subclass changes what a round does (e.g.
        the released code's fixed width) and says for itself."""
        return type(self) is LinUCB and type(self.statistics) is ExactStatistics

    @property
    def compiled_rounds(self) -> bool:
        """Whether :meth:`play_rounds` runs compiled: :attr:`block_rounds`, and numba is installed."""
        return AVAILABLE and self.block_rounds

    def play_rounds(self, t: int, contexts: Any, rewards: Any) -> tuple[np.ndarray, np.ndarray]:
        """Rounds t .. t + count - 1 of every run at once, the engine's fast path on a contextual environment.
        ``contexts``: (runs, K, d), the same arm set every round, or (count, runs, K, d). ``rewards``: every arm's
        reward of each round (count, runs, K), or the played arm's drawn from one number per round and run (an
        object with ``law``, ``theta``, ``sigma``, ``noise`` and ``rewards(s, played_features)``, as
        :class:`~dpaudit.algorithms.environments.linear.PlayedRewardDraws`). Returns the arms played and the
        rewards collected, each (count, runs).

        When :attr:`compiled_rounds` the rounds run in one compiled loop (:mod:`.compiled`: the same algorithm, the
        same decisions to rounding); otherwise round by round through :meth:`choose` and :meth:`observe`. After the
        compiled loop ``choose`` reads the model and radius it left (:attr:`choose_after_blocks`); ``observe`` may
        not follow it (a release whose noise was drawn ahead refuses further leaves), so a run's rounds are otherwise
        played by one of the two from its start."""
        count = self._block_count(rewards)
        if not self.compiled_rounds:
            return self._rounds_one_by_one(t, contexts, rewards, count)
        fixed, x = self._compiled_block(t, contexts, rewards, count)
        played = np.empty((count, self.runs), dtype=np.int64)
        collected = np.empty((count, self.runs))
        state = self._compiled_state(x.shape[2])
        # each round's radius, from the last batch end before it
        betas = self.radii(((np.arange(t, t + count) - 1) // self.B) * self.B, self._d)
        law, table_values, theta_star, sigma, noise = reward_arguments(rewards)
        noisy = not self.statistics.noiseless
        # a private release's noise for the block's batch ends, drawn ahead by the release (the same values as
        # release after release)
        batch_ends = (t + count - 1) // self.B - (t - 1) // self.B
        first_end = ((t - 1) // self.B + 1) * self.B
        release_noise = (np.ascontiguousarray(self.statistics.noise_ahead(batch_ends, first_end)) if noisy
                         else np.empty((0, 0, 0)))
        upper_i, upper_j = (np.ascontiguousarray(a, dtype=np.int64) for a in upper_indices(self._d))
        indefinite = np.zeros(self.runs, dtype=np.int64)
        cumulative = not noisy or self.statistics.cumulative_noise
        over_runs(linucb_rounds, self.runs, t, x, fixed, law, table_values, theta_star, sigma, noise, betas, self.B,
                  self.lam, REFRESH, noisy, cumulative, release_noise, upper_i, upper_j, self.V_inv, self.theta,
                  self.statistics.gram, self.statistics.u, self._X, self._y, *state, indefinite, played, collected)
        if indefinite.any():
            self._count_indefinite(int(indefinite.sum()))
        # what choose reads besides the model the loop updated in place: the radius of the last batch end, and no
        # kept argmax or widths (the loop kept its own)
        self.beta = float(self.radius(((t + count - 1) // self.B) * self.B, self._d))
        self._last = self._widths = self._outer = None
        return played, collected

    def _block_count(self, rewards: Any) -> int:
        """A block's number of rounds, from its rewards (a table of every arm's, checked, or the played arm's draws)."""
        if not isinstance(rewards, np.ndarray):
            return np.shape(rewards.noise)[0]
        if rewards.ndim != 3 or rewards.shape[1] != self.runs:
            raise ValueError(f"{self.owner}: a table of rewards must have shape (count, runs, K) with runs = "
                             f"{self.runs}, got {rewards.shape}")
        return rewards.shape[0]

    def _compiled_block(self, t: int, contexts: Any, rewards: Any, count: int) -> tuple[bool, np.ndarray]:
        """What a compiled loop takes of a block: whether the arm set is fixed, and the contexts checked
        (:meth:`_checked_block`); the model begun at the first block, and a reward table for as many arms."""
        fixed = np.ndim(contexts) == 3
        x = self._checked_block(contexts, fixed, count, t)
        if self._d is None:
            self._begin(x.shape[-1])
        if isinstance(rewards, np.ndarray) and rewards.shape[2] != x.shape[2]:
            raise ValueError(f"{self.owner}: the rewards are for {rewards.shape[2]} arms, the contexts for "
                             f"{x.shape[2]}")
        return fixed, x

    def _rounds_one_by_one(self, t: int, contexts: Any, rewards: Any, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The block through :meth:`choose` and :meth:`observe`, round by round (LinUCB's numpy path)."""
        table = isinstance(rewards, np.ndarray)
        fixed = np.ndim(contexts) == 3
        rows = np.arange(self.runs)
        played = np.empty((count, self.runs), dtype=np.int64)
        collected = np.empty((count, self.runs))
        for s in range(count):
            x = contexts if fixed else contexts[s]
            played[s] = self.choose(t + s, x)
            collected[s] = (rewards[s][rows, played[s]] if table
                            else rewards.rewards(s, np.asarray(x, dtype=float)[rows, played[s]]))
            self.observe(t + s, played[s], collected[s])
        return played, collected

    def _checked_block(self, contexts: Any, fixed: bool, count: int, t: int) -> np.ndarray:
        """The block's contexts as a contiguous float array (1 or count, runs, K, d), checked as ``choose`` checks
        one round's."""
        if fixed and self._seen is contexts:
            x = self._seen_array
        elif fixed:
            x = checked_contexts(self.owner, contexts, self.runs, self._d, t)
            self._seen, self._seen_array = contexts, x
        else:
            block = np.asarray(contexts, dtype=float)
            if block.ndim != 4 or block.shape[0] != count:
                raise ValueError(f"{self.owner}: a block of {count} rounds needs contexts of shape (runs, K, d) or "
                                 f"({count}, runs, K, d), got {block.shape}")
            x = checked_contexts(self.owner, block.reshape(-1, *block.shape[2:]), count * self.runs, self._d, t)
            x = x.reshape(block.shape)
        return np.ascontiguousarray(x if not fixed else x[None])

    def _compiled_state(self, arms: int) -> tuple[np.ndarray, ...]:
        """The compiled loop's kept squared widths and means (runs, K), whether they are current (runs,), and the
        updates since they were computed (runs,)."""
        state = self._compiled
        if state is None or state[0].shape != (self.runs, arms):
            state = (np.zeros((self.runs, arms)), np.zeros((self.runs, arms)), np.zeros(self.runs, dtype=np.int64),
                     np.zeros(self.runs, dtype=np.int64))
            self._compiled = state
        return state

    def _guarded_update(self, V: np.ndarray) -> None:
        """V^{-1} from a released (noisy) V, which can be indefinite (the spec's 7.2, item 17): a run
        whose V is not positive definite keeps its previous V^{-1} (a post-processing of the release,
        so privacy is untouched), and the count goes into the notes."""
        try:  # the usual case, every run's V positive definite, costs one batched Cholesky
            np.linalg.cholesky(V)
            ok = np.ones(V.shape[0], dtype=bool)
        except np.linalg.LinAlgError:
            ok = np.linalg.eigvalsh(V)[:, 0] > 0
        if not ok.all():
            self._count_indefinite(int((~ok).sum()))
        if ok.all():
            self.V_inv = np.linalg.inv(V)
        else:
            self.V_inv[ok] = np.linalg.inv(V[ok])


    def _count_indefinite(self, pairs: int) -> None:
        """``pairs`` more (run, batch) pairs whose released V was not positive definite, said in the notes."""
        self.indefinite += pairs
        self.notes = [note for note in self.notes if not note.startswith(INDEFINITE)] + [
            f"{INDEFINITE}: {self.indefinite} (run, batch) pairs in a block of {self.runs} runs kept their "
            "previous model"]


def reward_arguments(rewards: Any) -> tuple[int, np.ndarray, np.ndarray, float, np.ndarray]:
    """A block's rewards as the compiled rounds take them: (law, table, theta_star, sigma, noise), the table of every
    arm's reward (:data:`~.compiled.TABLE`) or the played arm's drawn from one number per round and run
    (:class:`~dpaudit.algorithms.environments.linear.PlayedRewardDraws`), the unused ones empty."""
    if isinstance(rewards, np.ndarray):
        return TABLE, np.ascontiguousarray(rewards, dtype=float), np.empty((0, 0)), 0.0, np.empty((0, 0))
    law = {"bernoulli": BERNOULLI, "gaussian": GAUSSIAN}[rewards.law]
    return (law, np.empty((0, 0, 0)), np.ascontiguousarray(rewards.theta, float), float(rewards.sigma or 0.0),
            np.ascontiguousarray(rewards.noise, float))


def first_best(scores: np.ndarray) -> np.ndarray:
    """The lowest arm whose score is within rounding (1e-9 relative) of the best, per row: ties in
    exact arithmetic (at round 1 every unit-norm arm scores the same) must not be broken by the last
    bits of how the scores were summed."""
    best = scores.max(axis=-1, keepdims=True)
    return np.argmax(scores >= best - 1e-9 * (1.0 + np.abs(best)), axis=-1)


def linucb_one_run(policy: LinUCB, features: np.ndarray, rewards: np.ndarray, horizon: int) -> np.ndarray:
    """The plain per-run reference: one run's arms over ``horizon`` rounds with fixed ``features`` (K, d)
    and the reward table ``rewards`` (horizon, K), solving V theta = u afresh at every batch end."""
    K, d = features.shape
    alpha = policy.alpha if policy.alpha is not None else 1 / max(horizon, 2)
    V, u, theta = policy.lam * np.eye(d), np.zeros(d), np.zeros(d)
    beta = math.sqrt(2 * math.log(1 / alpha)) + math.sqrt(policy.lam)
    batch_V, batch_u = np.zeros((d, d)), np.zeros(d)
    played = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        V_inv = np.linalg.inv(V)
        scores = [features[a] @ theta + beta * math.sqrt(max(features[a] @ V_inv @ features[a], 0.0))
                  for a in range(K)]
        a_t = int(first_best(np.array(scores)[None])[0])
        played[t - 1] = a_t
        x = features[a_t]
        batch_V += np.outer(x, x)
        batch_u += rewards[t - 1, a_t] * x
        if t % policy.B == 0:
            V, u = V + batch_V, u + batch_u
            theta = np.linalg.solve(V, u)
            beta = math.sqrt(2 * math.log(1 / alpha) + d * math.log1p(t / (d * policy.lam))) + math.sqrt(policy.lam)
            batch_V, batch_u = np.zeros((d, d)), np.zeros(d)
    return played


__all__ = ["AVAILABLE", "ExactStatistics", "LinUCB", "first_best", "linucb_one_run"]
