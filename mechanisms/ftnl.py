"""private-online M3/M4: Follow-the-Noisy-Leader's decisions (Hu, Huang & Mehta, Algorithm 2 with
report-noisy-max, Algorithm 3) and naive FTNL's (Section 5), on a whole table of reward vectors.

FTNL plays in epochs of doubling length: epoch s covers rounds 2^s .. 2^{s+1} - 1. Epoch 0 (round
1) plays action 1; epoch s >= 1 plays

    J^(s-1) = argmax_j ( G_j^(s-1) + Lap(1/eps) )        (Algorithm 3, RNM(X[s-1], eps))

where G_j^(s-1) is action j's reward sum over epoch s - 1 alone (fresh data: laziness and
forgetfulness). Algorithm 3 is exactly :class:`~dpaudit.mechanisms.noisy_max.ReportNoisyMax` with
Laplace noise of scale 1/eps, i.e. ``ReportNoisyMax(2 eps, K)`` (that class's scale is
2 Delta/eps' with Delta = 1): argmax, independent Laplace draws, ties of probability zero (the
first index wins). Actions are numbered 0..K-1 here (the paper's action 1 is 0).

Naive FTNL (Section 5, lines 173-175) makes every action's epoch mean (eps/K)-DP and follows the
noisy leader; the paper gives no mechanism, and the choice here is Lap(K/eps) on every action's
epoch sum (one reward vector moves each sum by at most 1), i.e. report-noisy-max with Lap(K/eps):
``ReportNoisyMax(2 eps / K, K)``.

Input: a reward table of shape (T, K), T = 2^epochs - 1 rounds (epochs 0 .. epochs - 1), rewards in
[0, 1]. Output: the actions played in epochs 1 .. epochs - 1, shape (size, epochs - 1) (epoch 0's
action is fixed; the decision sequence over rounds 1..T is this, each repeated over its epoch, so
the two carry the same information: :meth:`FollowTheNoisyLeader.per_round`). The last epoch's data
is read by no decision within T. Exact law (:meth:`FollowTheNoisyLeader.distribution`): a product
over epochs of report-noisy-max laws, each computed exactly.

Two paths with one law: :meth:`FollowTheNoisyLeader.sample` reads each epoch's sums directly;
:meth:`FollowTheNoisyLeader.sample_per_round` runs Algorithm 2 round by round (accumulating G over
the epoch, calling RNM when it ends).

Neighbouring relation (Definition 1): two tables differing in one round's reward vector
(``ReplaceRewardVector``); every action's epoch sum moves by at most 1, in either direction.
Privacy claims: Theorem 6 (FTNL is eps-DP) and Section 5's naive FTNL is eps-DP (claimsec5a).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.densities import ProductDensity

from .noisy_max import ReportNoisyMax
from .params import choice, integer, positive, sample_size

VARIANTS = ("ftnl", "naive")


class FollowTheNoisyLeader:
    """FTNL (``variant="ftnl"``, Lap(1/eps)) or naive FTNL (``"naive"``, Lap(K/eps)) on a table
    of 2^epochs - 1 reward vectors (module docstring)."""

    owner = "FollowTheNoisyLeader"

    def __init__(self, epsilon: float, K: int, epochs: int, variant: str = "ftnl"):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.K = integer(self.owner, "K", K, 2)
        self.epochs = integer(self.owner, "epochs", epochs, 2)  # at least one decision after epoch 0
        self.variant = choice(self.owner, "variant", variant, VARIANTS)
        self.T = 2**self.epochs - 1
        # Algorithm 3's Lap(1/eps) is ReportNoisyMax's scale 2 Delta / eps' at eps' = 2 eps; naive: Lap(K/eps)
        rnm_epsilon = 2 * self.epsilon if self.variant == "ftnl" else 2 * self.epsilon / self.K
        self.rnm = ReportNoisyMax(rnm_epsilon, self.K, noise="laplace", sensitivity=1.0)
        self.noise_scale = float(self.rnm.scale)
        label = "FTNL" if self.variant == "ftnl" else "naive FTNL"
        self.name = f"{label}(eps={self.epsilon:g}, K={self.K}, {self.epochs} epochs, T={self.T})"

    def __repr__(self) -> str:
        return self.name

    def _table(self, data: Any) -> np.ndarray:
        x = np.asarray(data, dtype=float)
        if x.shape != (self.T, self.K) or not np.isfinite(x).all() or (x < 0).any() or (x > 1).any():
            raise ValueError(f"{self.owner}: data must be a table of {self.T} reward vectors in [0, 1]^{self.K} "
                             f"(shape {(self.T, self.K)}), got shape {x.shape}")
        return x

    def epoch_sums(self, data: Any) -> np.ndarray:
        """G^(s) for the epochs s = 0 .. epochs - 2 whose RNM output is played: shape (epochs - 1, K)."""
        x = self._table(data)
        return np.array([x[2**s - 1: 2 ** (s + 1) - 1].sum(axis=0) for s in range(self.epochs - 1)])

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size = sample_size(self.owner, size)
        return np.column_stack([self.rnm.sample(g, size, rng) for g in self.epoch_sums(data)])

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)

    def sample_per_round(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Algorithm 2 round by round, vectorised over the ``size`` runs: accumulate the epoch's G,
        and at its last round pick argmax_j (G_j + noise) for the next epoch."""
        x = self._table(data)
        size = sample_size(self.owner, size)
        played = np.empty((size, self.epochs - 1), dtype=np.int64)
        g, epoch = np.zeros(self.K), 0
        for t in range(1, self.T + 1):
            g = g + x[t - 1]
            if t == 2 ** (epoch + 1) - 1:  # epoch ends: report-noisy-max on its fresh sums
                if epoch < self.epochs - 1:
                    noisy = g + rng.laplace(0.0, self.noise_scale, (size, self.K))
                    played[:, epoch] = np.argmax(noisy, axis=1)
                g, epoch = np.zeros(self.K), epoch + 1
        return played

    def per_round(self, played: Any) -> np.ndarray:
        """The decision sequence over rounds 1..T from the epochs' actions (action 0 in round 1)."""
        played = np.asarray(played, dtype=np.int64)
        lengths = 2 ** np.arange(1, self.epochs)
        return np.column_stack([np.zeros(len(played), dtype=np.int64), np.repeat(played, lengths, axis=1)])

    def distribution(self, data: Any) -> ProductDensity:
        """Exact law of :meth:`sample`: independent report-noisy-max laws, one per played epoch."""
        return ProductDensity(tuple(self.rnm.distribution(g) for g in self.epoch_sums(data)))


__all__ = ["VARIANTS", "FollowTheNoisyLeader"]
