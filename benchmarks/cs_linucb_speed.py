"""cs-linucb (concurrent-shuffle Algorithm 4) and its central-tree baseline: microseconds per round and
run of the vectorised policy (R = 50 runs at once) against the plain per-run reference, at K = 10 arms,
d = 5 (the concurrent-shuffle/linucb preset's shape), fresh contexts every round. Prints both and the ratio.

    python benchmarks/cs_linucb_speed.py [--horizon 256]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpaudit.algorithms.environments.linear import paper_vectors
from dpaudit.algorithms.linear.cs_linucb import (
    CentralTreeStatistics,
    ConcurrentShuffleStatistics,
    TreeLinUCB,
    central_release_one_run,
    linucb_released_one_run,
    tree_release_one_run,
)

K, D, RUNS = 10, 5, 50


def _tables(runs: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    contexts = paper_vectors(rng, (runs, n, K, D - 1))
    theta = paper_vectors(rng, (runs, D - 1))
    means = np.clip(np.einsum("rnkd,rd->rnk", contexts, theta), 0, 1)
    return contexts, (rng.random(means.shape) < means).astype(float)


def _vectorised(policy: TreeLinUCB, contexts: np.ndarray, rewards: np.ndarray) -> float:
    runs, n = contexts.shape[:2]
    start = time.perf_counter()
    policy.start(runs, K, n, np.random.default_rng(1))
    for t in range(1, n + 1):
        arms = policy.choose(t, contexts[:, t - 1])
        policy.observe(t, arms, rewards[np.arange(runs), t - 1, arms])
    return (time.perf_counter() - start) / (runs * n) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=256)
    n = parser.parse_args().horizon
    contexts, rewards = _tables(RUNS, n, 0)
    print(f"K = {K}, d = {D}, n = {n}, R = {RUNS}: microseconds per round and run")
    print(f"{'algorithm':<24} {'vectorised':>12} {'per-run ref':>12} {'ratio':>8}")
    cases = [("cs-linucb k=1", lambda: ConcurrentShuffleStatistics(0.5, 0.1, 1, record=True), tree_release_one_run),
             ("cs-linucb k=log n", lambda: ConcurrentShuffleStatistics(0.5, 0.1, "log n", record=True),
              tree_release_one_run),
             ("cs-linucb-central", lambda: CentralTreeStatistics(0.5, 0.1, record=True), central_release_one_run)]
    for label, make, reference in cases:
        statistics = make()
        policy = TreeLinUCB(statistics, 0.5, 0.1)
        fast = _vectorised(policy, contexts, rewards)
        recorded = statistics.block_noise if hasattr(statistics, "block_noise") else statistics.node_noise
        start = time.perf_counter()
        ref_runs = 3  # the reference is plain Python per run: a few runs give its per-run cost
        for r in range(ref_runs):
            linucb_released_one_run(policy, contexts[r], rewards[r], reference(statistics.mechanism, recorded, r))
        slow = (time.perf_counter() - start) / (ref_runs * n) * 1e6
        print(f"{label:<24} {fast:>12.1f} {slow:>12.1f} {slow / fast:>8.1f}")


if __name__ == "__main__":
    main()
