"""cs-linucb (concurrent-shuffle Algorithm 4) and its central-tree baseline: microseconds per round and
run of the vectorised policy (R = 50 runs at once) against the plain per-run reference, at K = 10 arms,
d = 5 (the concurrent-shuffle/linucb preset's shape), fresh contexts every round. Prints both and the ratio.

    python benchmarks/cs_linucb_speed.py [--horizon 256]
    python benchmarks/cs_linucb_speed.py --compiled [--horizon 4096]

``--compiled``: simulate's blocks of rounds on the preset's environment (30 runs, the regret entries' count),
compiled with the ``[fast]`` extra against the numpy path on the same seed: seconds, the ratio, and whether the
regrets agree bit for bit.
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


def compiled_against_numpy(n: int) -> None:
    import dpaudit
    from dpaudit.algorithms.linear.cs_linucb import tree_linucb_rounds
    from dpaudit.algorithms.linear.registry import ALGORITHMS
    from dpaudit.audits.concurrent_shuffle.regret import ENVIRONMENT

    if tree_linucb_rounds is None:
        raise SystemExit("the compiled rounds need numba: pip install 'dpaudit[fast]'")
    print(f"K = {K}, d = {D}, n = {n}, R = 30, fresh contexts: seconds of a simulation")
    print(f"{'algorithm':<24} {'numpy':>8} {'compiled':>9} {'ratio':>7}  regrets")
    for k in (1, 2, "log n"):
        results = []
        for compiled in (False, True):
            policy = ALGORITHMS["cs-linucb"](eps=0.5, delta=0.1, k=k)
            policy.compiled_tree_rounds = compiled
            dpaudit.simulate(policy, ENVIRONMENT, 64, 2, seed=0)  # numba compiles on first use: not timed
            results.append(dpaudit.simulate(policy, ENVIRONMENT, n, 30, seed=1))
        numpy_path, fast = results
        same = (numpy_path.pseudo_regret == fast.pseudo_regret).all()
        print(f"{'cs-linucb k=' + str(k):<24} {numpy_path.seconds:>8.2f} {fast.seconds:>9.2f} "
              f"{fast.seconds / numpy_path.seconds:>7.2f}  {'the same' if same else 'DIFFER'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=None)
    parser.add_argument("--compiled", action="store_true", help="compiled blocks against the numpy path")
    args = parser.parse_args()
    if args.compiled:
        compiled_against_numpy(args.horizon or 4096)
        return
    n = args.horizon or 256
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
