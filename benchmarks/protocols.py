"""Runs per second of the papers' protocols: the fast path against the per-user path, side by side.

- dist-mab's batch protocol (:class:`dpaudit.mechanisms.DistributedSum`, Polya and Skellam shares)
  at the paper's batch size n = 1024: ``sample`` draws the rounded sum and the total noise from
  their exact laws; ``sample_per_user`` runs all n randomizers as printed. Both have the same output
  law (tests/test_distributed_sum.py).
- The binary tree mechanism (:class:`dpaudit.mechanisms.BinaryTreeMechanism`) at T = 4096: the
  noisy prefix sums from its level-by-level p-sums against the textbook loop that recomputes every
  prefix from its binary expansion in Python.

Each rate is the median of ``--repeats`` timings; a ratio is the fast path's rate over the
baseline's (above 1: the fast path is faster). Run:

    python benchmarks/protocols.py [--runs 20000] [--repeats 5]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import rate  # benchmarks/ is on sys.path when a script runs

from dpaudit.mechanisms import BinaryTreeMechanism, DistributedSum
from dpaudit.mechanisms.noise import Gaussian


def textbook_prefix(tree: BinaryTreeMechanism, nodes: np.ndarray) -> np.ndarray:
    """Every prefix sum from its blocks, one Python iteration per (t, block)."""
    out = np.zeros_like(nodes)
    for t in range(1, tree.T + 1):
        for end in tree.prefix_nodes(t):
            out[:, t - 1] += nodes[:, end - 1]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)

    print(f"{'protocol':<48} {'fast runs/s':>12} {'baseline runs/s':>16} {'ratio':>8}")
    x = rng.uniform(size=1024)
    for noise in ("polya", "skellam"):
        protocol = DistributedSum(noise, 1.0, 1024, 10**6, s=2.0)
        # rate() calls these at once, inside this iteration; the default only makes the binding explicit
        fast = rate(lambda k, protocol=protocol: protocol.sample(x, k, rng), args.runs, args.repeats)
        per_user = rate(lambda k, protocol=protocol: protocol.sample_per_user(x, k, rng),
                        max(args.runs // 20, 1), args.repeats)
        label = f"DistributedSum({noise}, n=1024) vs per-user"
        print(f"{label:<48} {fast:>12,.0f} {per_user:>16,.0f} {fast / per_user:>8.1f}")

    tree = BinaryTreeMechanism(4096, Gaussian(1.0))
    stream = rng.uniform(size=4096)
    runs = max(args.runs // 200, 1)
    nodes = tree.sample(stream, runs, rng)
    fast = rate(lambda k: tree.prefix(nodes[:k]), runs, args.repeats)
    loop = rate(lambda k: textbook_prefix(tree, nodes[:k]), runs, args.repeats)
    print(f"{'BinaryTree(T=4096) prefix sums vs textbook loop':<48} {fast:>12,.0f} {loop:>16,.0f} {fast / loop:>8.1f}")


if __name__ == "__main__":
    main()
