"""LinUCB (shuffle-lcb's non-private baseline) on the engine: the vectorised policy makes the per-run
reference's decisions, it learns, and its registry entry and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import ALGORITHMS, LinearBandit
from dpaudit.algorithms.linear.linucb import ExactStatistics, LinUCB, linucb_one_run
from dpaudit.algorithms.registry import describe


@pytest.mark.parametrize("B, refresh", [(1, 512), (1, 7), (5, 512)])
def test_vectorised_decisions_are_the_per_run_references(B, refresh, monkeypatch):
    # refresh = 7: the incremental widths of a fixed arm set are recomputed afresh every 7 updates
    monkeypatch.setattr("dpaudit.algorithms.linear.linucb.REFRESH", refresh)
    rng = np.random.default_rng(4)
    inst = LinearBandit(12, 4).instances(6, rng)
    horizon = 120
    table = (rng.random((6, horizon, 12)) < inst.means[:, None, :]).astype(float)  # each run's rewards
    policy = LinUCB(B=B)
    policy.start(6, 12, horizon, rng)
    played = np.empty((6, horizon), dtype=np.int64)
    for t in range(1, horizon + 1):
        arms = policy.choose(t, inst.features)
        played[:, t - 1] = arms
        policy.observe(t, arms, table[np.arange(6), t - 1, arms])
    for r in range(6):
        np.testing.assert_array_equal(played[r], linucb_one_run(policy, inst.features[r], table[r], horizon))


def test_it_learns_on_the_papers_instances():
    # K = 100, d = 5 (shuffle-lcb Fig. 1's shape): after 3000 rounds the mean per-round regret of the
    # last rounds is well below that of playing uniformly at random (a wide margin, no test statistic)
    res = dpaudit.simulate(ALGORITHMS["linucb"](), LinearBandit(100, 5), horizon=3000, runs=8, seed=0)
    uniform = (res.means.max(axis=1) - res.means.mean(axis=1)).mean()
    late = (res.pseudo_regret[:, -1] - res.pseudo_regret[:, -10]).mean() / (res.grid[-1] - res.grid[-10])
    assert late < 0.25 * uniform
    assert res.pulls.sum() == 8 * 3000


def test_registry_and_bad_input(refuses_bad_contexts):
    assert describe("linucb").startswith("shuffle-lcb Sec. 5 baseline: LinUCB")
    assert ALGORITHMS["linucb"](B=20).B == 20
    with pytest.raises(ValueError, match="B must be an integer >= 1"):
        LinUCB(B=0)
    with pytest.raises(ValueError, match="lam must be > 0"):
        LinUCB(lam=0)
    policy = LinUCB()
    refuses_bad_contexts(policy)


class _NegativeStatistics:
    """A release whose V~ is -10 I for run 0 at the first batch (so V = lambda I - 10 I is indefinite)
    and the exact sums otherwise."""

    noiseless = False
    name = "test release"

    def start(self, runs, d, horizon, rng):
        self.exact = ExactStatistics()
        self.exact.start(runs, d, horizon, rng)
        self.calls = 0

    def release(self, t, X, y):
        gram, u = self.exact.release(t, X, y)
        self.calls += 1
        if self.calls == 1:
            gram = gram.copy()
            gram[0] = -10 * np.eye(gram.shape[1])
        return gram, u


def test_an_indefinite_release_keeps_the_previous_model_and_is_noted():
    res = dpaudit.simulate(LinUCB(B=2, statistics=_NegativeStatistics()), LinearBandit(5, 3), horizon=10, runs=3,
                           seed=1)
    assert res.notes == ["a released V was not positive definite: 1 (run, batch) pairs in a block of 3 runs kept "
                         "their previous model"]
    clean = dpaudit.simulate(LinUCB(B=2), LinearBandit(5, 3), horizon=10, runs=3, seed=1)
    assert clean.notes == []
