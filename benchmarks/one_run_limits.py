"""How far a one-run canary audit can go at a true epsilon of 8: 5,000 Gaussian canaries in one run (in: N(mu, 1),
out: N(0, 1), each in with probability 1/2; mu = 1.666, whose epsilon at delta 1e-5 is 8), alpha 0.05.

    python benchmarks/one_run_limits.py [--seeds 30] [--replicates 20000]

Prints, over ``--seeds`` runs:

- dpaudit's one-run bound (Steinke, Nasr and Jagielski's, eight guess sets at alpha / 8): mean, median, range;
- the best single guess set known in advance (the (k+, k-) whose bound is largest on average, each at alpha alone):
  what any bound from counts of right guesses could reach with the best guesses chosen by an oracle;
- the limit of every valid test (:func:`dpaudit.auditors.canary_limits.one_run_limit`): for each eps0 the largest
  probability with which any test valid at alpha can refute (eps0, delta)-DP from these canaries, whatever statistic
  of the scores it uses (Monte Carlo, ``--replicates`` runs per law), and the eps0 where it crosses 1/2: no valid
  one-run bound's median on these canaries can be above it.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy import optimize, stats

from dpaudit.auditors.canary import one_run_bound
from dpaudit.auditors.canary_limits import one_run_limit
from dpaudit.auditors.one_run import guesses_right, one_run_epsilon

CANARIES, DELTA, ALPHA, TRUTH = 5000, 1e-5, 0.05, 8.0
GUESS_SETS = [(k, k) for k in (20, 50, 100, 150, 200, 300)] + [(k, 0) for k in (50, 100, 200, 300, 500)]


def gaussian_delta(mu: float, eps: float) -> float:
    return stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--replicates", type=int, default=20_000)
    args = parser.parse_args()
    mu = optimize.brentq(lambda m: gaussian_delta(m, TRUTH) - DELTA, 0.1, 10.0)
    print(f"{CANARIES} canaries, mu = {mu:.4f} (epsilon {TRUTH:g} at delta {DELTA:g}), alpha {ALPHA}, "
          f"{args.seeds} seeds")
    default, fixed = [], {guess: [] for guess in GUESS_SETS}
    for seed in range(args.seeds):
        rng = np.random.default_rng(seed)
        members = rng.random(CANARIES) < 0.5
        scores = rng.normal(size=CANARIES) + mu * members
        default.append(one_run_bound(scores[members], scores[~members], DELTA, ALPHA, rng)["epsilon"])
        for k_in, k_out in GUESS_SETS:
            r, v = guesses_right(scores, members, k_in, k_out)
            fixed[(k_in, k_out)].append(one_run_epsilon(CANARIES, r, v, DELTA, ALPHA))
    best = max(fixed, key=lambda guess: np.mean(fixed[guess]))
    print(f"  dpaudit one-run bound (8 guess sets at alpha / 8): mean {np.mean(default):.3f}, median "
          f"{np.median(default):.3f}, range [{min(default):.3f}, {max(default):.3f}]")
    print(f"  the best single guess set known in advance ((k+, k-) = {best}, at alpha): mean "
          f"{np.mean(fixed[best]):.3f}")
    print("  the limit of every valid test (probability of refuting eps0 at most):")
    rng = np.random.default_rng(10**6)
    grid = [4.0, 5.0, 5.5, 6.0, 6.5, 7.0, 8.0]
    powers = [one_run_limit(mu, CANARIES, eps0, ALPHA, args.replicates, rng)["power"] for eps0 in grid]
    for eps0, power in zip(grid, powers):
        print(f"    eps0 {eps0:4.1f}: {power:.3f}")
    crossing = next((grid[i - 1] + (grid[i] - grid[i - 1]) * (powers[i - 1] - 0.5) / (powers[i - 1] - powers[i])
                     for i in range(1, len(grid)) if powers[i - 1] >= 0.5 > powers[i]), None)
    if crossing is not None:
        print(f"  no valid one-run bound on these canaries has a median above about {crossing:.2f}")


if __name__ == "__main__":
    main()
