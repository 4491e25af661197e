"""Private releases of Algorithm 1's batch statistics (shuffle-lcb, Secs. 3-4 and Apps. B, C, E, F),
each a thin adapter around a release of :mod:`dpaudit.mechanisms` that the shuffle-lcb suite audits.

Every class follows :class:`~dpaudit.algorithms.linear.linucb.ExactStatistics`' interface
(``start(runs, d, horizon, rng)``, ``release(t, X, y)`` -> cumulative (V~, u), ``noiseless``) and adds:

- ``prepare(d, T)``: build the mechanism for dimension d and horizon T (no randomness), so the
  policy can read the noise scale before the first round;
- ``sigma_total``: the standard deviation of one entry of the cumulative noise after T rounds (its
  largest value over the run), Lemma A.4's sigma from which the policy sets its regularizer;
- ``mechanism``: the audited release it calls; ``notes``: what the theorems do not cover;
- ``record_views``: when set (False by default), every batch's view -- the release's raw output
  before the analyzer's debiasing, P_Amp's summed coordinates or P_Vec's label counts, shape (runs,
  ...) -- is appended to ``views`` (emptied at ``start``), for algorithm-level audits of the messages.

A batch's rows are the users' (phi, y) (runs, n, d + 1); the releases:

- :class:`ShuffledGaussianSums`: P_Amp (Algorithms 2-4), the analyzer's sums drawn from their exact law
  (:meth:`~dpaudit.mechanisms.shuffle.shuffle_amp.ShuffledGaussianProtocol.release_batches`), with Theorem 3.2's
  sigma (unique users) or Theorem 4.2(i)'s (returning users);
- :class:`LocalGaussianSums`: R_Amp with the identity shuffler (LinUCB-LDP, Batched-Local-LinUCB):
  every user's message (:meth:`~dpaudit.mechanisms.shuffle.shuffle_amp.GaussianRandomizer.release_rows`), summed
  by the server;
- :class:`ShuffledVectorSums`: P_Vec (Algorithms 5-7): each label's count of ones from its exact law
  (:meth:`~dpaudit.mechanisms.shuffle.shuffle_vec.ShuffledVectorProtocol.release_batches`), then the analyzer;
- :class:`TreeSums`: the central tree of LinUCB-JDP / Batched-Central-LinUCB / the user-level variant
  (:class:`~dpaudit.mechanisms.counters.central_tree.TreeRuns`): one leaf per release, noise drawn once per
  node and run and reused, V~ and u read from the blocks of the noisy prefix of z z^T.

The ``Given*`` classes take the calibration as given instead of from a theorem (a released code's
constants, :mod:`~dpaudit.algorithms.linear.released_code`), and a ``norm_bound`` on ||phi|| (the
theorems' 1 by default) that their mechanism checks.

Outside a theorem's range the sigma formulas are still evaluated (the paper's experiments run
eps = 1 and 10 at B = 20, outside Theorem 3.2's range): the release says so in ``notes`` and the
policy warns.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import integer, positive
from dpaudit.mechanisms.counters.central_tree import CentralTreeMechanism, tree_levels
from dpaudit.mechanisms.released_code.linear_released_code import PseudoTreeNoise
from dpaudit.mechanisms.shuffle.shuffle_amp import (
    GaussianRandomizer,
    ShuffledGaussianProtocol,
    returning_user_epsilon_max,
)
from dpaudit.mechanisms.shuffle.shuffle_vec import ShuffledVectorProtocol, upper_indices


def rows_of(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The users' randomizer inputs (phi, y): X (runs, n, d) and y (runs, n) -> (runs, n, d + 1)."""
    return np.concatenate([X, np.asarray(y, dtype=float)[..., None]], axis=-1)


class PrivateStatistics:
    """What the private releases share (module docstring): preparation for (d, T), the cumulative
    sums, and the range notes."""

    noiseless: ClassVar[bool] = False
    name = "private sums"
    record_views = False

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.prepared: tuple[int, int] | None = None
        self.mechanism: Any = None
        self.sigma_total = 0.0

    def __repr__(self) -> str:
        return self.name

    def prepare(self, d: int, T: int) -> None:
        """Build the mechanism for dimension ``d`` and horizon ``T`` (once per (d, T))."""
        d, T = integer(type(self).__name__, "d", d, 1), integer(type(self).__name__, "T", T, 1)
        if self.prepared != (d, T):
            self.d, self.T = d, T
            self._build(d, T)
            self.prepared = (d, T)

    def _build(self, d: int, T: int) -> None:
        raise NotImplementedError

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def start(self, runs: int, d: int, horizon: int, rng: np.random.Generator) -> None:
        """Before the first round; a release not yet prepared is prepared for T = ``horizon``."""
        if self.prepared is None or self.prepared[0] != d:
            self.prepare(d, horizon)
        self.runs = runs
        self.rng = rng
        self.gram = np.zeros((runs, d, d))
        self.u = np.zeros((runs, d))
        self.views: list[np.ndarray] = []

    def viewed(self, view: np.ndarray) -> np.ndarray:
        """A batch's view, kept in ``views`` when ``record_views`` is set (module docstring)."""
        if self.record_views:
            self.views.append(view)
        return view

    def draws_ahead(self, B: int) -> bool:
        """Whether the release's noise, on batches of ``B`` users, can be drawn ahead for many batches
        (``noise_ahead(batches, first)``, ``first`` the round of the first batch end), so that a compiled loop
        can run the batches (no view is recorded then). The noise adds to each batch's exact entries
        (:attr:`cumulative_noise`: the released sums carry every batch's) or, where that is False, to the exact
        sums so far (the release after a batch carries that release's noise only)."""
        return False

    #: whether the noise a release adds stays in the later releases (module docstring)
    cumulative_noise: ClassVar[bool] = True

    def release(self, t: int, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        u_batch, V_batch = self._batch(rows_of(X, y))
        self.gram += V_batch
        self.u += u_batch
        return self.gram, self.u

    def _batch(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One batch's released (u~ (runs, d), V~ (runs, d, d))."""
        raise NotImplementedError


class _GaussianBatchSums(PrivateStatistics):
    """R_Amp on batches of ``B`` users, summed by P_Amp's analyzer (the sums drawn from their exact law); the
    subclasses give the randomizer (:meth:`_randomizer`)."""

    def _build(self, d: int, T: int) -> None:
        self.randomizer = self._randomizer(d, T)
        self.mechanism = ShuffledGaussianProtocol(self.randomizer, self.B)
        self.sigma_total = self.randomizer.sigma * math.sqrt(T)  # T users' noise at most (Sec. 3.4)

    def _randomizer(self, d: int, T: int) -> GaussianRandomizer:
        raise NotImplementedError

    def _batch(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.randomizer.messages(self.viewed(self.mechanism.release_batches(rows, self.rng)))

    def start(self, runs: int, d: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, d, horizon, rng)
        self._ahead = np.empty((0, runs, self.randomizer.coordinates))  # noise_ahead's buffer

    def draws_ahead(self, B: int) -> bool:
        return not self.record_views

    def noise_ahead(self, batches: int, first: int) -> np.ndarray:
        """The noise of the next ``batches`` releases of every run, (batches, runs, coordinates), drawn as the
        releases one after another draw it (P_Amp's :meth:`~dpaudit.mechanisms.shuffle.shuffle_amp.
        ShuffledGaussianProtocol.sum_noise`, from this release's stream): a compiled loop adds it to the batches'
        exact entries (:meth:`~dpaudit.algorithms.linear.linucb.LinUCB.play_rounds`). Drawn into one buffer kept
        from block to block: the array returned is overwritten by the next call."""
        if self._ahead.shape[0] < batches:
            self._ahead = np.empty((batches, self.runs, self.randomizer.coordinates))
        return self.mechanism.sum_noise((batches, self.runs), self.rng, out=self._ahead[:batches])


class ShuffledGaussianSums(_GaussianBatchSums):
    """P_Amp on batches of ``B`` users: sigma of Theorem 3.2 (``returning=False``) or of Theorem
    4.2(i) / E.3 (``returning=True``, which needs T)."""

    def __init__(self, eps: float, delta: float, B: int, returning: bool = False):
        super().__init__()
        self.eps, self.delta = eps, delta
        self.B = integer(type(self).__name__, "B", B, 1)
        self.returning = bool(returning)
        self.name = f"P_Amp ({'Thm 4.2(i)' if returning else 'Thm 3.2'}; eps={eps:g}, delta={delta:g}, B={B})"

    def _randomizer(self, d: int, T: int) -> GaussianRandomizer:
        """R_Amp at the theorem's sigma."""
        if self.returning:
            top = returning_user_epsilon_max(self.delta, self.B, T)
            if self.eps > top:
                self.note(f"eps = {self.eps:g} is outside Theorem 4.2(i) / E.3's range eps <= (2/B) log(2/delta) "
                          f"sqrt(2T) = {top:.4g} (B = {self.B}, T = {T}): its sigma formula is used, the theorem does "
                          "not cover it")
            return GaussianRandomizer.returning_users(self.eps, self.delta, self.B, T, d, strict=False)
        return GaussianRandomizer.unique_users(self.eps, self.delta, self.B, d, strict=False)


class LocalGaussianSums(PrivateStatistics):
    """R_Amp at Corollary B.3's sigma for (eps0, delta0), the identity shuffler, and the server's sums
    (LinUCB-LDP with batches of one; Batched-Local-LinUCB, Proposition F.1)."""

    def __init__(self, eps0: float, delta0: float):
        super().__init__()
        self.eps0, self.delta0 = eps0, delta0
        self.name = f"R_Amp, identity shuffler (Cor B.3; eps0={eps0:g}, delta0={delta0:g})"

    def _build(self, d: int, T: int) -> None:
        self.randomizer = self.mechanism = GaussianRandomizer.ldp(self.eps0, self.delta0, d, strict=False)
        self.sigma_total = self.randomizer.sigma * math.sqrt(T)

    def _batch(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.randomizer.messages(self.viewed(self.randomizer.release_rows(rows, self.rng)).sum(axis=1))

    def draws_ahead(self, B: int) -> bool:
        return B == 1 and not self.record_views  # B > 1: the users' noises summed in another order

    def noise_ahead(self, batches: int, first: int) -> np.ndarray:
        """The noise of the next ``batches`` releases of one user each (batches of one: LinUCB-LDP), (batches,
        runs, coordinates), drawn as the releases one after another draw it (R_Amp's
        :meth:`~dpaudit.mechanisms.shuffle.shuffle_amp.GaussianRandomizer.noise`, from this release's stream)."""
        return self.randomizer.noise((batches, self.runs, 1), self.rng)[:, :, 0]


class _VectorBatchSums(PrivateStatistics):
    """P_Vec on batches of ``B`` users, each label's count drawn from its exact law, then the analyzer; the
    subclasses give the protocol (:meth:`_protocol`)."""

    def _build(self, d: int, T: int) -> None:
        self.mechanism = protocol = self._protocol(d, T)
        # one entry's error per batch: (Delta/g)(sum_i iota_1,i + sum_i iota_2,i), variance at most
        # (1/g^2)(B/4 + B b p (1 - p)) (a rounding variance is at most 1/4); T // B batches release
        per_batch = math.sqrt(self.B / 4 + self.B * protocol.b * protocol.p * (1 - protocol.p)) / protocol.g
        self.sigma_total = per_batch * math.sqrt(max(1, T // self.B))

    def _protocol(self, d: int, T: int) -> ShuffledVectorProtocol:
        raise NotImplementedError

    def _batch(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.mechanism.analyze(self.viewed(self.mechanism.release_batches(rows, self.rng)))


class ShuffledVectorSums(_VectorBatchSums):
    """P_Vec on batches of ``B`` users: (g, b) of Theorem 3.5 (``returning=False``) or Theorem 4.2(ii)
    / E.5 (``returning=True``); outside eps in (0, 15], delta in (0, 1/2) the mechanism refuses (the
    paper never runs there)."""

    def __init__(self, eps: float, delta: float, B: int, returning: bool = False):
        super().__init__()
        self.eps, self.delta = eps, delta
        self.B = integer(type(self).__name__, "B", B, 1)
        self.returning = bool(returning)
        self.name = f"P_Vec ({'Thm 4.2(ii)' if returning else 'Thm 3.5'}; eps={eps:g}, delta={delta:g}, B={B})"

    def _protocol(self, d: int, T: int) -> ShuffledVectorProtocol:
        """P_Vec at the theorem's (g, b)."""
        if self.returning:
            return ShuffledVectorProtocol.returning_users(self.eps, self.delta, d, self.B, T)
        return ShuffledVectorProtocol.unique_users(self.eps, self.delta, d, self.B)


class GivenGaussianSums(_GaussianBatchSums):
    """R_Amp at a given ``sigma`` on batches of ``B`` users, summed by the analyzer (P_Amp's sums, drawn from
    their exact law; B = 1: every user's message on its own, the identity shuffler)."""

    def __init__(self, sigma: float, B: int, setting: str, norm_bound: float = 1.0):
        super().__init__()
        self.sigma = positive(type(self).__name__, "sigma", sigma)
        self.B = integer(type(self).__name__, "B", B, 1)
        self.norm_bound = positive(type(self).__name__, "norm_bound", norm_bound)
        self.setting = setting
        self.name = f"R_Amp summed over batches of {self.B} ({setting}; sigma={self.sigma:.6g})"

    def _randomizer(self, d: int, T: int) -> GaussianRandomizer:
        return GaussianRandomizer(self.sigma, d, self.setting, norm_bound=self.norm_bound)


class GivenVectorSums(_VectorBatchSums):
    """P_Vec with a given precision ``g`` and ``b`` noise bits on batches of ``B`` users."""

    def __init__(self, g: int, b: int, B: int, setting: str, norm_bound: float = 1.0):
        super().__init__()
        self.g, self.b = integer(type(self).__name__, "g", g, 1), integer(type(self).__name__, "b", b, 0)
        self.B = integer(type(self).__name__, "B", B, 1)
        self.norm_bound = positive(type(self).__name__, "norm_bound", norm_bound)
        self.setting = setting
        self.name = f"P_Vec ({setting}; g={self.g}, b={self.b:,}, B={self.B})"

    def _protocol(self, d: int, T: int) -> ShuffledVectorProtocol:
        return ShuffledVectorProtocol(self.g, self.b, d, self.B, self.setting, norm_bound=self.norm_bound)


class PseudoTreeSums(PrivateStatistics):
    """The released code's LinUCB-JDP statistics: the exact sums plus
    :class:`~dpaudit.mechanisms.released_code.linear_released_code.PseudoTreeNoise` at a given ``sigma`` (drawn
    once per run at ``start``; the release after round t carries the noise of the choice at the code's round t).
    Not private (the mechanism's docstring says why)."""

    cumulative_noise: ClassVar[bool] = False  # each release carries its round's noise alone

    def __init__(self, sigma: float, norm_bound: float = 1.0):
        super().__init__()
        self.sigma = positive(type(self).__name__, "sigma", sigma)
        self.norm_bound = positive(type(self).__name__, "norm_bound", norm_bound)
        self.name = f"the released code's JDP noise (sigma={self.sigma:.6g})"

    def _build(self, d: int, T: int) -> None:
        self.mechanism = PseudoTreeNoise(self.sigma, max(T, 2), d)
        self.sigma_total = self.sigma * math.sqrt(self.mechanism.draws)

    def start(self, runs: int, d: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, d, horizon, rng)
        self.draws = self.mechanism.draw(runs, rng)

    def draws_ahead(self, B: int) -> bool:
        return B == 1 and not self.record_views

    def noise_ahead(self, batches: int, first: int) -> np.ndarray:
        """The noise of the releases after rounds ``first`` .. ``first + batches - 1`` (one user each), (batches,
        runs, coordinates): the vector's, then the matrix's upper coordinates (symmetric: (S + S^T)/2 is the same
        number in both triangles), each from :meth:`~dpaudit.mechanisms.released_code.linear_released_code.
        PseudoTreeNoise.noise`, computed once per number of draws it sums (that changes about ln n times)."""
        i, j = upper_indices(self.d)
        out = np.empty((batches, self.runs, self.d + len(i)))
        used = np.array([min(PseudoTreeNoise.used(t), self.mechanism.draws) for t in range(first, first + batches)])
        for count in np.unique(used):
            rounds = np.flatnonzero(used == count)
            noise_V, noise_u = self.mechanism.noise(*self.draws, first + int(rounds[0]))
            out[rounds] = np.concatenate([noise_u, noise_V[:, i, j]], axis=1)
        return out

    def release(self, t: int, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = rows_of(X, y)
        phi = rows[..., : self.d]
        if (np.linalg.norm(phi, axis=-1) > self.norm_bound + 1e-9).any():
            raise ValueError(f"{type(self).__name__}: features need ||phi|| <= {self.norm_bound:.6g}")
        Xt = X.transpose(0, 2, 1)
        self.gram += Xt @ X
        self.u += (Xt @ np.asarray(y, dtype=float)[..., None])[..., 0]
        noise_V, noise_u = self.mechanism.noise(*self.draws, t)  # the choice at 0-based round t is the next one
        return self.gram + noise_V, self.u + noise_u


class TreeSums(PrivateStatistics):
    """The central tree on z z^T: event level with one leaf per ``B`` rounds (B = 1: LinUCB-JDP; B > 1:
    Batched-Central-LinUCB, Proposition F.3) or user level (``rounds_per_user`` = M0, Proposition 4.3,
    one leaf per round)."""

    def __init__(self, eps: float, delta: float, B: int = 1, rounds_per_user: int | None = None,
                 sigma: float | None = None, norm_bound: float = 1.0):
        super().__init__()
        # sigma: a node noise given instead of the event-level calibration (a released code's constants)
        self.given_sigma = None if sigma is None else positive(type(self).__name__, "sigma", sigma)
        self.norm_bound = positive(type(self).__name__, "norm_bound", norm_bound)
        self.eps = positive(type(self).__name__, "eps", eps)
        self.delta = delta
        self.B = integer(type(self).__name__, "B", B, 1)
        self.rounds_per_user = None if rounds_per_user is None else integer(type(self).__name__, "M0",
                                                                            rounds_per_user, 1)
        if self.rounds_per_user is not None and self.B != 1:
            raise ValueError("TreeSums: the user-level tree has one leaf per round (B = 1)")
        level = "event level" if rounds_per_user is None else f"user level, M0={rounds_per_user}"
        if sigma is not None:
            level = f"given node sigma={self.given_sigma:.6g}"
        self.name = f"central tree ({level}; eps={eps:g}, delta={delta:g}, B={B})"

    def _build(self, d: int, T: int) -> None:
        if self.given_sigma is not None:
            self.mechanism = CentralTreeMechanism(T, d, self.given_sigma, self.B, norm_bound=self.norm_bound)
        elif self.rounds_per_user is None:
            self.mechanism = CentralTreeMechanism.event_level(T, d, self.eps, self.delta, batch=self.B)
        else:
            self.mechanism = CentralTreeMechanism.user_level(T, d, self.eps, self.delta, self.rounds_per_user)
        # a prefix sums at most L = ceil(log2 N) + 1 nodes' noise
        self.sigma_total = self.mechanism.sigma * math.sqrt(tree_levels(self.mechanism.leaves))

    #: a compiled loop adds the exact sums so far to each release's noise, the tree's prefix noise through its leaf
    cumulative_noise: ClassVar[bool] = False

    def start(self, runs: int, d: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, d, horizon, rng)
        self.stream = self.mechanism.runs(runs, rng)

    def draws_ahead(self, B: int) -> bool:
        """With one leaf per batch of the policy's B rounds and no view recorded."""
        return B == self.B and not self.record_views

    def noise_ahead(self, batches: int, first: int) -> np.ndarray:
        """The prefix noise of the next ``batches`` leaves (:meth:`~dpaudit.mechanisms.counters.tree.TreeStream.
        noise_ahead`: the nodes' noise drawn as leaf after leaf would draw it), (batches, runs, coordinates): the
        vector's (z z^T's entries (i, d)), then the matrix's upper coordinates (i <= j < d). The exact sums are the
        compiled loop's; the stream refuses leaves after it."""
        noise = self.stream.stream.noise_ahead(batches)
        d = self.d
        i, j = upper_indices(d)
        entry = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(*self.mechanism.upper, strict=True))}
        columns = [entry[(a, d)] for a in range(d)] + [entry[(int(a), int(b))] for a, b in zip(i, j, strict=True)]
        return noise[..., columns]

    def release(self, t: int, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = self.d
        prefix = self.stream.add(rows_of(X, y))
        self.gram, self.u = prefix[:, :d, :d], prefix[:, :d, d]
        return self.gram, self.u


__all__ = ["GivenGaussianSums", "GivenVectorSums", "LocalGaussianSums", "PrivateStatistics", "PseudoTreeSums",
           "ShuffledGaussianSums", "ShuffledVectorSums", "TreeSums", "rows_of"]
