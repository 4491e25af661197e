"""private-online M3/M4: Follow-the-Noisy-Leader (Hu, Huang & Mehta, Algorithm 2 with report-noisy-max,
Algorithm 3) and naive FTNL (Section 5), as policies (:mod:`dpaudit.bandits.policies`) with full information.

FTNL plays in epochs of doubling length: epoch s covers rounds 2^s .. 2^{s+1} - 1. Epoch 0 (round
1) plays action 1; epoch s >= 1 plays

    J^(s-1) = argmax_j ( G_j^(s-1) + Lap(1/eps) )        (Algorithm 3, RNM(X[s-1], eps))

where G_j^(s-1) is action j's reward sum over epoch s - 1 alone (fresh data: laziness and
forgetfulness). Algorithm 3 is exactly :class:`~dpaudit.mechanisms.classic.noisy_max.ReportNoisyMax` with
Laplace noise of scale 1/eps, i.e. ``ReportNoisyMax(2 eps, K)`` (that class's scale is
2 Delta/eps' with Delta = 1): argmax, independent Laplace draws, ties of probability zero (the
first index wins). Every noisy maximum is drawn by that release, so the noise has one definition.
Actions are numbered 0..K-1 here (the paper's action 1 is 0).

Naive FTNL (Section 5, lines 173-175) makes every action's epoch mean (eps/K)-DP and follows the
noisy leader; the paper gives no mechanism, and the choice here is Lap(K/eps) on every action's
epoch sum (one reward vector moves each sum by at most 1), i.e. report-noisy-max with Lap(K/eps):
``ReportNoisyMax(2 eps / K, K)``.

``noise_scale="2/eps"`` draws FTNL's noisy maximum with Lap(2/eps) instead, report-noisy-max's
usual statement for queries that may move in opposite directions (Dwork & Roth's Claim 3.9 with
Lap(1/eps) is for counting queries, which move together; one reward vector replaced can raise one
action's sum and lower another's, and the printed Lap(1/eps) then loses up to 2 eps: Theorem 6's
audit). K may be left out (``K=None``): the policy then takes it from ``start`` (or from a table's
width in :meth:`FollowTheNoisyLeader.decisions`).

Fast path (``next_block``/``observe_block``): an epoch is one block, the action fixed at its start,
with every action's reward sum over the block (full information) accumulated for the next
report-noisy-max.

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
epoch starts. :class:`dpaudit.bandits.transcripts.DecisionTranscript` makes either an auditable subject.

Neighbouring relation (Definition 1): two tables differing in one round's reward vector
(``ReplaceRewardVector``); every action's epoch sum moves by at most 1, in either direction.
Privacy claims: Theorem 6 (FTNL is eps-DP) and Section 5's naive FTNL is eps-DP (claimsec5a).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import choice, integer, positive
from dpaudit.mechanisms.classic.noisy_max import ReportNoisyMax

VARIANTS = ("ftnl", "naive")
#: FTNL's noise scale: Algorithm 3 as printed, or report-noisy-max's usual 2/eps (sums that may move
#: in opposite directions, as one reward vector replaced moves them)
SCALES = ("1/eps", "2/eps")


class FollowTheNoisyLeader:
    """FTNL (``variant="ftnl"``, Lap(1/eps)) or naive FTNL (``"naive"``, Lap(K/eps)) over K actions,
    a full-information policy (module docstring)."""

    owner: ClassVar[str] = "FollowTheNoisyLeader"
    feedback: ClassVar[str] = "full"
    paper: ClassVar[str] = "private-online"
    source: ClassVar[str] = "Algorithm 2 with report-noisy-max (Algorithm 3); naive FTNL, Section 5"
    anytime: ClassVar[bool] = True  # epochs 2^s and their noise do not depend on the horizon

    def __init__(self, epsilon: float, K: int | None = None, variant: str = "ftnl", noise_scale: str = "1/eps"):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.K = None if K is None else integer(self.owner, "K", K, 2)
        self.variant = choice(self.owner, "variant", variant, VARIANTS)
        self.scale_rule = choice(self.owner, "noise_scale", noise_scale, SCALES)
        if self.variant == "naive" and self.scale_rule != "1/eps":
            raise ValueError(f"{self.owner}: noise_scale applies to FTNL's report-noisy-max; naive FTNL's noise is "
                             f"Lap(K/eps) per action, got noise_scale={noise_scale!r}")
        self.label = "FTNL" if self.variant == "ftnl" else "naive FTNL"
        if self.scale_rule != "1/eps":
            self.label += f" Lap({self.scale_rule})"
        self._noisy_maxes: dict[int, ReportNoisyMax] = {}
        if self.K is not None:
            self.rnm = self.noisy_max(self.K)
            self.noise_scale = float(self.rnm.scale)
        self.name = f"{self.label}(eps={self.epsilon:g}" + ("" if self.K is None else f", K={self.K}") + ")"

    def noisy_max(self, K: int) -> ReportNoisyMax:
        """The report-noisy-max release over K actions: Algorithm 3's Lap(1/eps) is ReportNoisyMax's
        scale 2 Delta / eps' at eps' = 2 eps; Lap(2/eps) at eps' = eps; naive: Lap(K/eps)."""
        if K not in self._noisy_maxes:
            if self.variant == "naive":
                rnm_epsilon = 2 * self.epsilon / K
            else:
                rnm_epsilon = 2 * self.epsilon if self.scale_rule == "1/eps" else self.epsilon
            self._noisy_maxes[K] = ReportNoisyMax(rnm_epsilon, K, noise="laplace", sensitivity=1.0)
        return self._noisy_maxes[K]

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
        actions = "" if self.K is None else f", K={self.K}"
        return f"{self.label}(eps={self.epsilon:g}{actions}, {self.epochs(T)} epochs, T={T})"

    def _table(self, data: Any) -> np.ndarray:
        x = np.asarray(data, dtype=float)
        K = self.K if self.K is not None else (x.shape[1] if x.ndim == 2 and x.shape[1] >= 2 else 2)
        if (x.ndim != 2 or x.shape[0] < 2 or x.shape[1] != K or not np.isfinite(x).all() or (x < 0).any()
                or (x > 1).any()):
            raise ValueError(f"{self.owner}: data must be a table of T >= 2 reward vectors in [0, 1]^{K} "
                             f"(shape (T, {K})), got shape {x.shape}")
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
                                 + [self.noisy_max(x.shape[1]).sample(g, size, rng) for g in self.epoch_sums(x)])
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
        rnm = self.noisy_max(x.shape[1])
        return ProductDistribution(tuple(rnm.distribution(sums[s - 1]) for s in epochs))

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
        arms = integer(self.owner, "arms", arms, 2)
        if self.K is not None and arms != self.K:
            raise ValueError(f"{self.owner}: the policy plays K = {self.K} actions, got {arms} arms")
        self.horizon = self._horizon(horizon)
        self._runs = integer(self.owner, "runs", runs, 0)
        self._rng = rng
        self._release = self.noisy_max(arms)
        self._sums = np.zeros((self._runs, arms))  # G of the running epoch, per run
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
        return self._release.select(sums, self._rng)

    # -- the fast path: an epoch is a block, with full-information sums ---------------------------------

    def next_block(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each run plays its epoch's action to the epoch's end (round 2^{s+1} - 1, s = floor(log2 t));
        a run at an epoch start first draws its report-noisy-max on the last epoch's sums."""
        t = np.asarray(t, dtype=np.int64)
        starts = np.flatnonzero((t >= 2) & (t & (t - 1) == 0) & (t <= self.horizon))
        if starts.size:
            self._played[starts] = self._release.select(self._sums[starts], self._rng)
            self._sums[starts] = 0.0
        epoch = np.floor(np.log2(np.maximum(t, 1))).astype(np.int64)
        return self._played.copy(), 2 ** (epoch + 1) - t

    def observe_block(self, t: np.ndarray, arms: np.ndarray, pulls: Any) -> None:
        self._sums += pulls.sums  # every action's reward sum over the block (finished runs: 0)


__all__ = ["SCALES", "VARIANTS", "FollowTheNoisyLeader"]
