"""DP-SE: differentially private successive elimination (Sajed & Sheffet, ICML 2019), the baseline of
private-online's experiments (Hu, Huang & Mehta, Section 6, beta = 1/T) and of dist-mab's, as a
bandit policy (:mod:`dpaudit.bandits.policies`), with one epoch's noisy means as an auditable release.

Neither paper prints DP-SE; this follows the reconstruction both specs give (private-online A3,
dist-mab 3.5, which agree): in epoch e (e = 1, 2, ...) with the set S of surviving arms,
Delta_e = 2^-e and every arm of S is pulled

    R_e = ceil( max{ 32 ln(8 |S| e^2 / beta) / Delta_e^2 ,  8 ln(4 |S| e^2 / beta) / (eps Delta_e) } )

times on fresh rounds; its private mean is (sum of its R_e rewards + Lap(1/eps)) / R_e, i.e. the
mean plus Lap(1/(eps R_e)). :meth:`DPSEEpoch.sample` releases the noisy sums (sum + Lap(1/eps), the
release :class:`~dpaudit.mechanisms.counters.online_releases.NoisyArmSums`); the means are their
post-processing (:meth:`DPSEEpoch.noisy_means`), kept apart so that the exact law's locations are
exact sums rather than rounded quotients. With h_e = sqrt(ln(8 |S| e^2 / beta) / (2 R_e)) and
c_e = ln(4 |S| e^2 / beta) / (eps R_e), arm i is eliminated when max_i' mu~_i' - mu~_i > 2 (h_e + c_e).

Choices where the sources are silent: R_e rounds up with ceil (dist-mab's released code uses
1 + int(.), equal except when the maximum is an integer); within the epoch the arms are pulled one
after another, each R_e times, so the epoch's data is the vector of |S| R_e observations arm by arm
(``data[i R_e : (i + 1) R_e]`` are arm i's). Natural logarithms throughout.

The policy (:class:`DPSuccessiveElimination`, bandit feedback) runs this on every run at once: the
surviving arms in index order, each R_e times, then the epoch's noisy sums drawn by its
:class:`DPSEEpoch`'s release and the elimination rule applied; once a single arm is left it is played
to the end and nothing more is released. Runs that end an epoch at the same round with the same
number of survivors share one draw of their noise (one row per run).

Noise: ``noise="per-arm"`` (the default, as Sajed & Sheffet and the reconstruction) draws an independent
Lap(1/eps) for every arm's sum. ``noise="shared"`` is dist-mab's released code (``DPSE.central_rand``:
``self.rewards + rng.laplace(0, 1 / self.eps)``, one scalar added to the vector of every active arm's
sum): one Lap(1/eps) per run and epoch, shared by all arms
(:meth:`~dpaudit.mechanisms.counters.online_releases.NoisyArmSums.add_shared_noise`). The elimination rule reads
only differences of noisy means, in which a shared draw cancels, so that variant eliminates exactly as
the non-private rule on the true sums: its decisions are not private at all (one reward changed can
flip an elimination with certainty).

``beta`` (dist-mab calls it p, the confidence level; 0.1 in its experiments) defaults to 1/T, the
horizon of the run or ``T=``.

Paths, both vectorised over runs: the per-round ``choose``/``observe``, and the fast path
``next_block``/``observe_block``, whose block is an arm's remaining pulls of its epoch (a single
survivor: the rest of the horizon), with the block's reward sum from the environment (one Binomial for
Bernoulli rewards; for clipped Gaussian rewards, blocks longer than 2^14 pulls from the normal law inside the
clip points, :func:`~dpaudit.algorithms.environments.bandits.clipped_normal_sums`, the one documented
approximation); the epoch's noise is the same release's draw on both paths.

Neighbouring relation: one round's reward vector replaced changes the one observation of that
round's pulled arm (``ReplaceOne`` over the epoch's observations), moving one arm's sum by at most
1: Lap(1/eps) per arm's sum is eps-DP, and disjoint epochs compose in parallel. Exact law
(:meth:`DPSEEpoch.distribution`): independent Laplace coordinates.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import choice, integer, positive, probability
from dpaudit.mechanisms.base import Adapter
from dpaudit.mechanisms.counters.lazy_laplace import rewards
from dpaudit.mechanisms.counters.online_releases import NoisyArmSums

#: "per-arm": an independent Lap(1/eps) per arm's sum; "shared": one draw per epoch added to every arm's
#: sum (dist-mab's released code)
NOISES = ("per-arm", "shared")


def epoch_length(epsilon: float, beta: float, arms: int, epoch: int) -> int:
    """R_e = ceil(max{32 ln(8|S|e^2/beta)/Delta_e^2, 8 ln(4|S|e^2/beta)/(eps Delta_e)}), Delta_e = 2^-e."""
    gap = 2.0**-epoch
    return math.ceil(max(32 * math.log(8 * arms * epoch**2 / beta) / gap**2,
                         8 * math.log(4 * arms * epoch**2 / beta) / (epsilon * gap)))


class DPSEEpoch(Adapter):
    """One epoch of DP-SE: ``arms`` surviving arms, each pulled R_e times, released as noisy
    sums, whose post-processing is the noisy means (module docstring). Output of :meth:`sample`:
    shape (size, arms)."""

    paper = "Sajed & Sheffet 2019"
    source = "DP-SE, one epoch's private means (reconstructed as private-online A3, dist-mab 3.5)"

    def __init__(self, epsilon: float, beta: float, arms: int, epoch: int):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.beta = probability(self.owner, "beta", beta)
        self.arms = integer(self.owner, "arms", arms, 1)
        self.epoch = integer(self.owner, "epoch", epoch, 1)
        self.pulls = epoch_length(self.epsilon, self.beta, self.arms, self.epoch)
        self.inner = NoisyArmSums(self.epsilon, self.arms, self.pulls)
        self.noise = self.inner.noise  # Lap(1/eps) on each arm's sum
        log8 = math.log(8 * self.arms * self.epoch**2 / self.beta)
        log4 = math.log(4 * self.arms * self.epoch**2 / self.beta)
        self.h = math.sqrt(log8 / (2 * self.pulls))
        self.c = log4 / (self.epsilon * self.pulls)
        self.name = (f"DPSEEpoch(eps={self.epsilon:g}, beta={self.beta:g}, {self.arms} arms, "
                     f"epoch {self.epoch}: R_e={self.pulls})")

    @property
    def release(self) -> NoisyArmSums:
        """The release this epoch publishes: every surviving arm's sum plus Lap(1/eps)."""
        return self.inner

    def _input(self, data: Any) -> np.ndarray:
        return rewards(self.owner, data, self.arms * self.pulls)

    def sums(self, data: Any) -> np.ndarray:
        """Each arm's reward sum over its R_e pulls of the epoch."""
        return self.inner.sums(self._input(data))

    def noisy_means(self, noisy_sums: Any) -> np.ndarray:
        """mu~_i = (sum_i + Lap(1/eps)) / R_e."""
        return np.asarray(noisy_sums, dtype=float) / self.pulls

    def sample_means(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.noisy_means(self.sample(data, size, rng))

    def survivors(self, noisy_means: Any) -> np.ndarray:
        """The elimination rule: keep arm i unless max_i' mu~_i' - mu~_i > 2 (h_e + c_e)."""
        mu = np.asarray(noisy_means, dtype=float)
        return mu.max(axis=-1, keepdims=True) - mu <= 2 * (self.h + self.c)


class DPSuccessiveElimination:
    """DP-SE at budget ``epsilon`` and confidence ``beta`` as a bandit policy, vectorised over runs
    (module docstring)."""

    owner: ClassVar[str] = "DPSuccessiveElimination"
    feedback: ClassVar[str] = "bandit"
    paper: ClassVar[str] = "Sajed & Sheffet 2019"
    source: ClassVar[str] = "DP-SE (reconstructed as private-online A3, dist-mab 3.5)"

    def __init__(self, epsilon: float, beta: float | None = None, *, noise: str = "per-arm", T: int | None = None):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.beta = None if beta is None else probability(self.owner, "beta", beta)
        self.noise = choice(self.owner, "noise", noise, NOISES)
        self.T = None if T is None else integer(self.owner, "T", T, 1)
        confidence = "beta=1/T" if self.beta is None else f"beta={self.beta:g}"
        self.name = (f"DP-SE(eps={self.epsilon:g}, {confidence}" + ("" if self.T is None else f", T={self.T}")
                     + (", one Laplace draw shared by the arms" if self.noise == "shared" else "") + ")")
        self._stages: dict[tuple[int, int, float], DPSEEpoch] = {}
        self._beta = self.beta if self.beta is not None else (None if self.T is None else 1 / self.T)

    def __repr__(self) -> str:
        return self.name

    @property
    def anytime(self) -> bool:
        """Whether its decisions ignore the horizon it is started with: beta = 1/T reads the horizon
        unless ``beta`` or ``T`` is given (:func:`dpaudit.bandits.policies.horizon_use`)."""
        return self.beta is not None or self.T is not None

    def stage(self, arms: int, epoch: int) -> DPSEEpoch:
        """Epoch ``epoch`` with ``arms`` surviving arms: its R_e, release and elimination rule."""
        if self._beta is None:
            raise ValueError(f"{self.owner}: beta = 1/T needs the horizon: start the policy or give T")
        key = (int(arms), int(epoch), self._beta)
        if key not in self._stages:
            self._stages[key] = DPSEEpoch(self.epsilon, self._beta, *key[:2])
        return self._stages[key]

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        runs = integer(self.owner, "runs", runs, 0)
        arms = integer(self.owner, "arms", arms, 1)
        self._horizon = integer(self.owner, "horizon", horizon, 1)
        if self.beta is None:
            self._beta = 1 / (self.T if self.T is not None else self._horizon)
        self._rng = rng
        self._alive = np.ones((runs, arms), dtype=bool)  # S, per run
        self._count = np.full(runs, arms)  # |S|
        self._epoch = np.ones(runs, dtype=np.int64)
        self._pulls = np.full(runs, self.stage(arms, 1).pulls)  # R_e
        self._done = np.zeros(runs, dtype=np.int64)  # pulls made in the running epoch
        self._sums = np.zeros((runs, arms))  # the running epoch's reward sums

    def choose(self, t: int) -> np.ndarray:
        # the k-th surviving arm in index order, k = pulls made // R_e (a single survivor: k stays 0)
        k = self._done // self._pulls
        rank = np.cumsum(self._alive, axis=1)
        return np.argmax(rank > k[:, None], axis=1)

    def next_block(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The arm of :meth:`choose` and its pulls left in the epoch (a single survivor: to the horizon)."""
        left = self._pulls - self._done % self._pulls
        rest = np.maximum(self._horizon - np.asarray(t, dtype=np.int64) + 1, 1)
        return self.choose(0), np.where(self._count > 1, left, rest).astype(np.int64)

    def observe_block(self, t: np.ndarray, arms: np.ndarray, pulls: Any) -> None:
        counts = np.asarray(pulls.counts, dtype=np.int64)
        rows = np.flatnonzero((self._count > 1) & (counts > 0))
        if rows.size == 0:
            return
        self._sums[rows, arms[rows]] += pulls.sums[rows]
        self._done[rows] += counts[rows]
        ended = rows[self._done[rows] == self._count[rows] * self._pulls[rows]]
        if ended.size:
            self._end_epoch(ended)

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        rows = np.flatnonzero(self._count > 1)  # a single survivor is played to the end, nothing released
        self._sums[rows, arms[rows]] += rewards[rows]
        self._done[rows] += 1
        ended = rows[self._done[rows] == self._count[rows] * self._pulls[rows]]
        if ended.size:
            self._end_epoch(ended)

    def exact_regret(self, environment: Any, rounds: Any, horizon: int) -> np.ndarray:
        """The exact expected pseudo-regret at ``rounds`` of a run of ``horizon`` rounds on two Bernoulli
        arms with fixed means (per-arm noise; :mod:`dpaudit.auditors.exact_regret`).

        Epoch e uses fresh rewards, so whether it eliminates an arm is independent of the earlier
        epochs: with both arms alive, arm 1 goes when (S_0 + L_0) - (S_1 + L_1) > 2 (h_e + c_e) R_e and
        arm 0 when it is < -2 (h_e + c_e) R_e, for S_i ~ Binomial(R_e, mu_i) and L_0 - L_1 distributed
        as the sum of two Lap(1/eps) draws (the epoch release's noise, symmetric), so each probability
        is an exact sum over the law of S_0 - S_1. The worse arm's expected pulls by round T add its
        pulls in each epoch reached with both arms alive, and, after an epoch that eliminates the better
        arm, every remaining round; an epoch cut off by the horizon releases nothing.
        """
        from dpaudit.bandits.environments import bernoulli_means
        from dpaudit.core.errors import UnsupportedAudit
        from dpaudit.mechanisms.noise import LaplaceSum
        from dpaudit.stats import difference_pmf

        means = bernoulli_means(environment, arms=2)
        if self.noise != "per-arm":
            raise UnsupportedAudit("the exact regret of DP-SE is computed for per-arm noise")
        horizon = integer(self.owner, "horizon", horizon, 1)
        rounds = np.asarray(rounds, dtype=np.int64)
        beta = self.beta if self.beta is not None else 1 / (self.T if self.T is not None else horizon)
        gap = float(means.max() - means.min())
        if gap == 0:
            return np.zeros(rounds.shape)
        worse = int(np.argmin(means))
        worse_pulls = np.zeros(rounds.shape)  # E[pulls of the worse arm by round T]
        alive, start, epoch = 1.0, 0, 1  # P(both arms alive at the epoch's start), rounds played
        while start < horizon and alive > 0:
            stage = DPSEEpoch(self.epsilon, beta, 2, epoch)
            pulls, end = stage.pulls, start + 2 * stage.pulls
            first = start + (pulls if worse == 1 else 0)  # the arms are pulled in index order
            worse_pulls += alive * np.clip(np.minimum(rounds, end) - first, 0, pulls)
            if end > horizon:
                break
            noise = LaplaceSum(2, float(stage.release.noise.scale))
            pmf = difference_pmf(pulls, means[0], means[1])
            k = np.arange(-pulls, pulls + 1)
            threshold = 2 * (stage.h + stage.c) * pulls
            drop_second = float(pmf @ noise.sf(threshold - k))
            drop_first = float(pmf @ noise.cdf(-threshold - k))
            wrong = drop_first if worse == 1 else drop_second
            worse_pulls += alive * wrong * np.clip(rounds - end, 0, None)
            alive *= 1.0 - drop_first - drop_second
            start, epoch = end, epoch + 1
        return gap * worse_pulls

    def _end_epoch(self, ended: np.ndarray) -> None:
        """Release the ended epochs' noisy sums and eliminate, one group per (|S|, e)."""
        groups = sorted({(int(n), int(e)) for n, e in zip(self._count[ended], self._epoch[ended], strict=True)})
        for n, e in groups:
            rows = ended[(self._count[ended] == n) & (self._epoch[ended] == e)]
            stage = self.stage(n, e)
            alive = self._alive[rows]
            sums = self._sums[rows][alive].reshape(len(rows), n)  # the survivors' sums, in index order
            noisy = (stage.release.add_noise(sums, self._rng) if self.noise == "per-arm"
                     else stage.release.add_shared_noise(sums, self._rng))
            keep = stage.survivors(stage.noisy_means(noisy))
            alive[alive] = keep.ravel()
            self._alive[rows] = alive
            self._count[rows] = keep.sum(axis=1)
            self._epoch[rows] = e + 1
            for survivors in np.unique(self._count[rows]):
                self._pulls[rows[self._count[rows] == survivors]] = self.stage(survivors, e + 1).pulls
            self._done[rows] = 0
            self._sums[rows] = 0.0


__all__ = ["NOISES", "DPSEEpoch", "DPSuccessiveElimination", "epoch_length"]
