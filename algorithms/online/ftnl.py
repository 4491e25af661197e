"""private-online M3/M4: Follow-the-Noisy-Leader (Hu, Huang & Mehta, Algorithm 2 with report-noisy-max,
Algorithm 3) and naive FTNL (Section 5), as policies (:mod:`dpaudit.policies`) with full information.

FTNL plays in epochs of doubling length: epoch s covers rounds 2^s .. 2^{s+1} - 1. Epoch 0 (round
1) plays action 1; epoch s >= 1 plays

    J^(s-1) = argmax_j ( G_j^(s-1) + Lap(1/eps) )        (Algorithm 3, RNM(X[s-1], eps))

where G_j^(s-1) is action j's reward sum over epoch s - 1 alone (fresh data: laziness and
forgetfulness). Algorithm 3 is exactly :class:`~dpaudit.mechanisms.noisy_max.ReportNoisyMax` with
Laplace noise of scale 1/eps, i.e. ``ReportNoisyMax(2 eps, K)`` (that class's scale is
2 Delta/eps' with Delta = 1): argmax, independent Laplace draws, ties of probability zero (the
first index wins). Every noisy maximum is drawn by that release, so the noise has one definition.
Actions are numbered 0..K-1 here (the paper's action 1 is 0).

Naive FTNL (Section 5, lines 173-175) makes every action's epoch mean (eps/K)-DP and follows the
noisy leader; the paper gives no mechanism, and the choice here is Lap(K/eps) on every action's
epoch sum (one reward vector moves each sum by at most 1), i.e. report-noisy-max with Lap(K/eps):
``ReportNoisyMax(2 eps / K, K)``.

Horizon: any T >= 2; epochs 0 .. E - 1 start within it, E = floor(log2 T) + 1 (the audited
horizons are T = 2^E - 1, where the last epoch is complete). The decision can change only at the
epoch starts 2, 4, .., 2^(E-1) (:meth:`FollowTheNoisyLeader.decision_rounds`); the decision sequence
over rounds 1..T is the epochs' actions, each repeated over its epoch, with action 0 in round 1
(:meth:`FollowTheNoisyLeader.per_round`), so the two carry the same information. The last epoch's
data is read by no decision within T. Exact law of the decisions at the epoch starts
(:meth:`FollowTheNoisyLeader.decision_distribution`): a product over epochs of report-noisy-max laws,
each computed exactly.

Two paths with one law, both vectorised over runs: :meth:`FollowTheNoisyLeader.decisions` reads each
epoch's sums directly from the reward table; the protocol (``start``, ``choose``, ``observe``) runs
Algorithm 2 round by round, accumulating G over the epoch and calling report-noisy-max when the next
epoch starts. :class:`dpaudit.transcripts.DecisionTranscript` makes either an auditable subject.

Neighbouring relation (Definition 1): two tables differing in one round's reward vector
(``ReplaceRewardVector``); every action's epoch sum moves by at most 1, in either direction.
Privacy claims: Theorem 6 (FTNL is eps-DP) and Section 5's naive FTNL is eps-DP (claimsec5a).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from dpaudit.distributions import ProductDistribution
from dpaudit.mechanisms.noisy_max import ReportNoisyMax
from dpaudit.validation import choice, integer, positive

VARIANTS = ("ftnl", "naive")


class FollowTheNoisyLeader:
    """FTNL (``variant="ftnl"``, Lap(1/eps)) or naive FTNL (``"naive"``, Lap(K/eps)) over K actions,
    a full-information policy (module docstring)."""

    owner: ClassVar[str] = "FollowTheNoisyLeader"
    feedback: ClassVar[str] = "full"
    paper: ClassVar[str] = "private-online"
    source: ClassVar[str] = "Algorithm 2 with report-noisy-max (Algorithm 3); naive FTNL, Section 5"

    def __init__(self, epsilon: float, K: int, variant: str = "ftnl"):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.K = integer(self.owner, "K", K, 2)
        self.variant = choice(self.owner, "variant", variant, VARIANTS)
        # Algorithm 3's Lap(1/eps) is ReportNoisyMax's scale 2 Delta / eps' at eps' = 2 eps; naive: Lap(K/eps)
        rnm_epsilon = 2 * self.epsilon if self.variant == "ftnl" else 2 * self.epsilon / self.K
        self.rnm = ReportNoisyMax(rnm_epsilon, self.K, noise="laplace", sensitivity=1.0)
        self.noise_scale = float(self.rnm.scale)
        self.label = "FTNL" if self.variant == "ftnl" else "naive FTNL"
        self.name = f"{self.label}(eps={self.epsilon:g}, K={self.K})"

    def __repr__(self) -> str:
        return self.name

    # -- the horizon's epochs ------------------------------------------------------------------------

    def _horizon(self, horizon: Any) -> int:
        return integer(self.owner, "horizon", horizon, 2)  # at least one decision after epoch 0

    def epochs(self, horizon: int) -> int:
        """E = floor(log2 T) + 1: the epochs 0 .. E - 1 that start within T rounds."""
        return self._horizon(horizon).bit_length()

    def decision_rounds(self, horizon: int) -> list[int]:
        """The rounds at which the decision can change: the epoch starts 2, 4, .., 2^(E-1)."""
        return [2**s for s in range(1, self.epochs(horizon))]

    def name_at(self, horizon: int) -> str:
        T = self._horizon(horizon)
        return f"{self.label}(eps={self.epsilon:g}, K={self.K}, {self.epochs(T)} epochs, T={T})"

    def _table(self, data: Any) -> np.ndarray:
        x = np.asarray(data, dtype=float)
        if (x.ndim != 2 or x.shape[0] < 2 or x.shape[1] != self.K or not np.isfinite(x).all() or (x < 0).any()
                or (x > 1).any()):
            raise ValueError(f"{self.owner}: data must be a table of T >= 2 reward vectors in [0, 1]^{self.K} "
                             f"(shape (T, {self.K})), got shape {x.shape}")
        return x

    def epoch_sums(self, data: Any) -> np.ndarray:
        """G^(s) for the epochs s = 0 .. E - 2 whose RNM output is played: shape (E - 1, K)."""
        x = self._table(data)
        return np.array([x[2**s - 1: 2 ** (s + 1) - 1].sum(axis=0) for s in range(self.epochs(len(x)) - 1)])

    def _epochs_of(self, rounds: Sequence[int], horizon: int) -> list[int]:
        """The epoch of each round, floor(log2 t)."""
        checked = [integer(self.owner, "a round", t, 1) for t in rounds]
        if any(t > horizon for t in checked):
            raise ValueError(f"{self.owner}: rounds must lie in 1..{horizon}, got {list(rounds)!r}")
        return [t.bit_length() - 1 for t in checked]

    # -- fast path and exact law ------------------------------------------------------------------------

    def decisions(self, table: Any, rounds: Sequence[int], size: int, rng: np.random.Generator) -> np.ndarray:
        """The actions played at ``rounds`` in ``size`` runs, shape (size, len(rounds)): report-noisy-max
        on each epoch's sums, read directly from the table (every epoch's action is drawn, in order, as
        the per-round run draws them)."""
        x = self._table(table)
        epochs = self._epochs_of(rounds, len(x))
        played = np.column_stack([np.zeros(size, dtype=np.int64)]
                                 + [self.rnm.sample(g, size, rng) for g in self.epoch_sums(x)])
        return played[:, epochs]

    def decision_distribution(self, table: Any, rounds: Sequence[int]) -> ProductDistribution:
        """Exact law of :meth:`decisions` at rounds in distinct epochs after epoch 0 (the decision rounds):
        independent report-noisy-max laws, one per epoch."""
        x = self._table(table)
        epochs = self._epochs_of(rounds, len(x))
        if 0 in epochs or len(set(epochs)) != len(epochs):
            raise ValueError(f"{self.owner}: the exact law is a product over epochs: give rounds in distinct epochs "
                             f"after epoch 0 (such as the decision rounds {self.decision_rounds(len(x))}), got "
                             f"{list(rounds)!r}")
        sums = self.epoch_sums(x)
        return ProductDistribution(tuple(self.rnm.distribution(sums[s - 1]) for s in epochs))

    def per_round(self, played: Any, horizon: int | None = None) -> np.ndarray:
        """The decision sequence over rounds 1..T from the epochs' actions at the decision rounds
        (action 0 in round 1); T = 2^E - 1 unless ``horizon`` is given."""
        played = np.asarray(played, dtype=np.int64)
        epochs = played.shape[1] + 1
        T = 2**epochs - 1 if horizon is None else self._horizon(horizon)
        lengths = 2 ** np.arange(1, epochs)
        sequence = np.column_stack([np.zeros(len(played), dtype=np.int64), np.repeat(played, lengths, axis=1)])
        return sequence[:, :T]

    # -- the policy protocol: Algorithm 2 round by round, vectorised over runs ---------------------------

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        if integer(self.owner, "arms", arms, 2) != self.K:
            raise ValueError(f"{self.owner}: the policy plays K = {self.K} actions, got {arms} arms")
        self._horizon(horizon)
        self._runs = integer(self.owner, "runs", runs, 0)
        self._rng = rng
        self._sums = np.zeros((self._runs, self.K))  # G of the running epoch, per run
        self._played = np.zeros(self._runs, dtype=np.int64)  # epoch 0 plays action 0

    def choose(self, t: int) -> np.ndarray:
        if t >= 2 and t & (t - 1) == 0:  # epoch s = log2 t starts: report-noisy-max on epoch s - 1's sums
            self._played = self._noisy_max(self._sums)
            self._sums = np.zeros_like(self._sums)
        return self._played.copy()

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        self._sums += rewards

    def _noisy_max(self, sums: np.ndarray) -> np.ndarray:
        """argmax_j (G_j + noise) per run, drawn by the report-noisy-max release for all runs at once
        (their sums differ when their rewards do)."""
        return self.rnm.select(sums, self._rng)


__all__ = ["VARIANTS", "FollowTheNoisyLeader"]
