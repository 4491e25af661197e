"""The fast path on clipped Gaussian rewards against Bernoulli rewards with the same means, at a long
horizon (default T = 10^8, 4 runs, K = 10): milliseconds per simulation (median of repeats) and the
ratio Gaussian / Bernoulli, for each dist-mab algorithm. A Bernoulli block's sum is one Binomial draw;
a Gaussian block of more than ``EXACT_PULLS`` pulls takes its sum from ``clipped_normal_sums`` and its
rounded sum from the exact multinomial over {0..g}, so both costs grow with the number of blocks, not
with T. ``--reward-by-reward`` adds the baseline beside it: every Gaussian reward drawn one by one (the
engine before long blocks had their own law), with its ratio to the fast path.

    python benchmarks/gaussian_rewards.py [--horizon 1e8] [--runs 4] [--repeats 3] [--reward-by-reward]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from dpaudit import simulate
from dpaudit.algorithms import ALGORITHMS
from dpaudit.algorithms.environments import BernoulliBandit, GaussianBandit, bandits

#: fixed locations (the same instance in every run); the Bernoulli arms take the clipped rewards' means
LOCATIONS = np.linspace(0.75, 0.25, 10)
SIGMA = 0.1
ALGORITHMS_TIMED = (("se", {"p": 0.1, "eta": 4}), ("dp-se", {"eps": 0.5, "beta": 0.1}),
                    ("dist-dp-se", {"eps": 0.5, "p": 0.1, "eta": 4}),
                    ("dist-rdp-se", {"eps": 0.5, "p": 0.1, "eta": 4, "s": 10}))


def environments() -> tuple[BernoulliBandit, GaussianBandit]:
    gaussian = GaussianBandit(LOCATIONS, SIGMA)
    return BernoulliBandit(bandits.clipped_normal_mean(LOCATIONS, SIGMA, 0.0, 1.0)), gaussian


def milliseconds(name: str, kwargs: dict, environment, horizon: int, runs: int, repeats: int) -> tuple[float, float]:
    """(median milliseconds of one simulation, its final mean pseudo-regret)."""
    times, regret = [], float("nan")
    for _ in range(repeats):
        start = time.perf_counter()
        result = simulate(ALGORITHMS[name](**kwargs), environment, horizon, runs, 0)
        times.append(1000 * (time.perf_counter() - start))
        regret = float(result.mean()[-1])
    return statistics.median(times), regret


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=float, default=1e8)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reward-by-reward", action="store_true",
                        help="also time Gaussian rewards drawn one by one (the baseline)")
    args = parser.parse_args(argv)
    horizon = int(args.horizon)
    bernoulli, gaussian = environments()
    print(f"T = {horizon:.0e}, {args.runs} runs, K = {LOCATIONS.size}; median of {args.repeats}; "
          f"Gaussian blocks longer than {bandits.EXACT_PULLS} pulls from their law")
    header = f"{'algorithm':<12} {'Bernoulli ms':>13} {'Gaussian ms':>12} {'ratio':>7}"
    if args.reward_by_reward:
        header += f" {'one by one ms':>14} {'speed-up':>9}"
    print(header + "   final pseudo-regret (Bernoulli / Gaussian)")
    for name, kwargs in ALGORITHMS_TIMED:
        b_ms, b_regret = milliseconds(name, kwargs, bernoulli, horizon, args.runs, args.repeats)
        g_ms, g_regret = milliseconds(name, kwargs, gaussian, horizon, args.runs, args.repeats)
        line = f"{name:<12} {b_ms:13.1f} {g_ms:12.1f} {g_ms / b_ms:7.1f}"
        if args.reward_by_reward:
            kept = bandits.EXACT_PULLS
            bandits.EXACT_PULLS = 2**62  # every block drawn reward by reward
            try:
                one_ms, _ = milliseconds(name, kwargs, gaussian, horizon, args.runs, 1)
            finally:
                bandits.EXACT_PULLS = kept
            line += f" {one_ms:14.1f} {one_ms / g_ms:9.0f}"
        print(f"{line}   {b_regret:.4g} / {g_regret:.4g}")


if __name__ == "__main__":
    main()
