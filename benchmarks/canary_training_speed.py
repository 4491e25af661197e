"""The canary training loop's speed (mechanisms/training/canary_training.py): seconds for R runs of DP-SGD on logistic
regression (white-box gradient canary, every step observed), against the same steps with every example's gradient
materialised as a (runs, n + 1, d + 1) array and clipped by its norm, as DPSGD.run computes them. Prints both, the
ratio, and whether the scores agree.

    python benchmarks/canary_training_speed.py [--runs 1000] [--steps 1000] [--n 1000] [--d 10] [--baseline-runs 100]

The baseline runs ``--baseline-runs`` runs (its time scaled to R: it is linear in the runs).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpaudit.core.dpsgd import DPSGDConfig, PoissonBatches
from dpaudit.mechanisms.training.canary_training import CanaryTraining
from dpaudit.mechanisms.training.samplers import drawer


def materialised(loop: CanaryTraining, runs: int, rng: np.random.Generator) -> np.ndarray:
    """The loop's white-box sum score with per-example gradients as arrays (the baseline)."""
    n, d, config = loop.n, loop.d, loop.config
    X = np.concatenate([np.pad(loop.X, ((0, 0), (0, 1))), np.zeros((1, d + 1))])
    theta, score = np.zeros((runs, d + 1)), np.zeros(runs)
    batches = drawer(config.sampler, n + 1, runs)
    sigma = loop.noise_scale * config.noise_multiplier * loop.clip
    for step in range(config.steps):
        if step == 0:
            batches.start_epoch(0, rng)
        w = batches.weights(step, rng)
        residual = 1 / (1 + np.exp(-(theta @ X[:n].T))) - loop.y
        grads = np.concatenate([residual[..., None] * X[:n], np.zeros((runs, 1, d + 1))], axis=1)
        grads[:, n, d] = loop.clip  # the gradient canary
        norms = np.linalg.norm(grads, axis=-1, keepdims=True)
        clipped = grads * np.minimum(1.0, loop.clip / np.maximum(norms, 1e-300))
        total = (clipped * w[..., None]).sum(axis=1) + rng.normal(0.0, sigma, (runs, d + 1))
        score += total[:, d]
        theta -= loop.lr * total / loop.batch
    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--baseline-runs", type=int, default=100)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(args.n - 1, args.d)) / np.sqrt(args.d)
    y = (rng.random(args.n - 1) < 0.5).astype(float)
    config = DPSGDConfig(PoissonBatches(64 / args.n), 1.0, steps=args.steps, relation="zero-out")
    loop = CanaryTraining(x, y, config)
    start = time.perf_counter()
    loop.scores(args.runs, True, np.random.default_rng(1))
    fast = time.perf_counter() - start
    start = time.perf_counter()
    baseline_scores = materialised(loop, args.baseline_runs, np.random.default_rng(2))
    slow = (time.perf_counter() - start) * args.runs / args.baseline_runs
    same = np.allclose(loop.scores(args.baseline_runs, True, np.random.default_rng(2)), baseline_scores, rtol=1e-9,
                       atol=1e-9)
    print(f"{args.runs} runs x {args.steps} steps, n = {args.n}, d = {args.d}, Poisson q = 64 / n, z = 1:")
    print(f"  canary loop {fast:8.1f} s   materialised gradients {slow:8.1f} s (from {args.baseline_runs} runs)   "
          f"ratio {fast / slow:.3f}   scores {'the same' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
