"""dist-mab Lemma 2's good event E, audited for its coverage on simulated runs of Algorithm 1.

The proof of Lemma 2 defines E: for every batch b and every active arm a, |mu_hat_a(b) - mu_a| <= beta(b), with beta(b)
of eq. (2) (Hoeffding at log(4 |Phi(b)| b^2 / p), the noise at Assumption 1's sigma sqrt(log(2 |Phi(b)| b^2 / p)) +
h log(2 |Phi(b)| b^2 / p), over l(b)), and states P[E] >= 1 - 3p. The regret bounds rest on E.

Encoded (lem2-confidence@...): a sampler runs Algorithm 1 (dpaudit.algorithms.mab.BatchSuccessiveElimination, its
reference path: every user's message through the protocol's randomizer, secure aggregation and analyzer) on K = 4
Bernoulli arms (means 0.9, 0.8, 0.7, 0.5) for T = 4000 rounds, R runs at once, with the failure probability p the
experiments use (0.1) and one ten times smaller, and returns per run Z = max over batches and active arms of
|mu_hat_a(b) - mu_a| / beta(b). The claim P(Z > 1) <= 3p is a tail bound on Z (``TailBound.accuracy``), audited from
samples (the statistical tail auditor: selection and confirmation halves, Clopper-Pearson). Protocols: Dist-DP-SE
(Polya shares, Theorem 1's (sigma, h) = (sqrt 2/eps, 1/eps)) and Dist-RDP-SE (Skellam shares, s = 10) at eps = 1, and
the non-private SE (sigma = h = 0: Hoeffding alone). They run from the standard budget up (the quick run's statistical
claims share its alpha, which the quick run's snapshot holds); the tests audit them at 4,000 runs.

Choices where the paper is silent: the instance, T and eps (small enough to simulate per user, large enough for three
to five batches per run).
"""

from __future__ import annotations

import numpy as np

from dpaudit import TailBound
from dpaudit.algorithms.mab import BatchSuccessiveElimination

from ._suite import suite

MEANS = np.array([0.9, 0.8, 0.7, 0.5])
HORIZON = 4000
EPS = 1.0


class _Monitored(BatchSuccessiveElimination):
    """Algorithm 1 that keeps, per run, the largest |mu_hat_a(b) - mu_a| / beta(b) of its eliminations."""

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        self.worst = np.zeros(runs)

    def _eliminate(self, rows: np.ndarray, b: int, sums: np.ndarray) -> None:
        alive = self._alive[rows]
        mu = np.full(alive.shape, np.nan)
        mu[alive] = sums / self.batch_size(b)
        beta = self.radius(b, self._count[rows], self._T)[:, None]
        gap = np.where(alive, np.abs(mu - self.means[None, :]) / beta, 0.0)
        self.worst[rows] = np.maximum(self.worst[rows], gap.max(axis=1))
        super()._eliminate(rows, b, sums)


def coverage_sampler(protocol: str, p: float, eps: float | None = EPS, radius_scale: float = 1.0, **kwargs):
    """A sampler ``(runs, rng) -> Z``: per run of Algorithm 1 with ``protocol`` on MEANS over HORIZON rounds, the
    largest |mu_hat_a(b) - mu_a| / (radius_scale beta(b)) over its batches and active arms; the rewards and the
    policy draw from two streams spawned from ``rng``."""

    def sampler(runs: int, rng: np.random.Generator) -> np.ndarray:
        env_rng, policy_rng = rng.spawn(2)
        policy = _Monitored(protocol, eps if protocol != "exact" else None, p=p, **kwargs)
        policy.means = MEANS
        policy.start(runs, len(MEANS), HORIZON, policy_rng)
        every = np.arange(runs)
        for t in range(1, HORIZON + 1):
            arms = policy.choose(t)
            rewards = (env_rng.random(runs) < MEANS[arms]).astype(float)
            policy.observe(t, arms, rewards[every])
        return policy.worst / radius_scale

    sampler.__name__ = f"max over batches and arms of |mu_hat - mu| / beta ({protocol}, p = {p:g}, T = {HORIZON})"
    return sampler


def coverage_claim(p: float) -> TailBound:
    return TailBound.accuracy(1.0, 3 * p, description=f"P(max_b,a |mu_hat_a(b) - mu_a| / beta(b) > 1) <= 3p = "
                                                      f"{3 * p:g}")


SAMPLES = {"quick": 4000, "standard": 40_000, "thorough": 400_000}
for _protocol, _label, _kwargs in (("polya", "dist-dp-se", {}), ("skellam", "dist-rdp-se", {"s": 10}),
                                   ("exact", "se", {})):
    for _p in (0.1, 0.01):
        _eps = "" if _protocol == "exact" else f",eps{EPS:g}"
        suite.tail(f"dist-mab/lem2-confidence@{_label}{_eps},p{_p:g},T{HORIZON}", auditor="statistical",
                   subject=coverage_sampler(_protocol, _p, **_kwargs), claim=coverage_claim(_p), samples=SAMPLES,
                   budgets=("standard", "thorough", "paper"),
                   title=f"Lemma 2's good event E (every active arm's interval covers its mean in every batch) has "
                         f"P[E] >= 1 - 3p: {_label} (eps = {EPS:g}), p = {_p:g}, K = 4, T = {HORIZON}")
