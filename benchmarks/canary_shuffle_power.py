"""How many training runs a canary audit needs to catch shuffled DP-SGD accounted as Poisson sampling: Chua et al.'s
example (one epoch of 1000 single-example batches, noise multiplier 0.8, zero-out neighbours, delta 1e-5), whose
Poisson-accounted epsilon (dp-accounting's RDP at rate 1/1000) is 1.16 while its certified epsilon is at least 5.235.

    python benchmarks/canary_shuffle_power.py [--runs 1000,3000,10000] [--seeds 3]

The loop is :class:`~dpaudit.mechanisms.training.canary_training.CanaryTraining` with the adversary's dataset of the
lower bound (``background="opposite"``: every other example's clipped gradient -C along the canary's direction, so a
present canary's step stands 2C above the rest and a zeroed one's C), every step observed; the score is that pair's
likelihood ratio (a mixture over the step the canary is in: MoG(2) against MoG(1)). For each number of runs per side
the script prints the seconds to simulate them, and per seed the many-run bound (``dpaudit.audit_canaries``, alpha
0.05) against the Poisson-accounted claim, with the ceiling those runs allow.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import logsumexp

import dpaudit
from dpaudit.auditors.dpsgd import rdp_epsilon
from dpaudit.core.dpsgd import DPSGDConfig, PoissonBatches, ShuffledBatches
from dpaudit.mechanisms.training.canary_training import CanaryTraining

SIGMA, DELTA = 0.8, 1e-5
CONFIG = DPSGDConfig(ShuffledBatches(1, 1000), SIGMA, epochs=1, relation="zero-out")


def likelihood_ratio(steps: np.ndarray) -> np.ndarray:
    """log of MoG(2) over MoG(1) (in units of the clip norm C = 1) of each run's 1000 step values, the background -C
    shifted to 0."""
    u = steps + 1.0
    return logsumexp((2 * u - 2) / SIGMA**2, axis=1) - logsumexp((u - 0.5) / SIGMA**2, axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="1000,3000,10000", help="runs per side, comma-separated")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    poisson = rdp_epsilon(DPSGDConfig(PoissonBatches(0.001), SIGMA, steps=1000, relation="zero-out"), DELTA)
    bracket = dpaudit.certify_dpsgd(CONFIG, delta=DELTA)
    print(f"{CONFIG.describe()}: certified epsilon at {DELTA:g} in [{bracket.eps_lower:.3f}, {bracket.eps_upper:.3f}];"
          f" accounted as Poisson sampling (dp-accounting's RDP at q = 1/1000): {poisson:.3f}")
    loop = CanaryTraining(np.zeros((999, 1)), np.zeros(999), CONFIG, background="opposite")
    claim = dpaudit.ApproxDP(poisson, DELTA)
    print(f"{'runs per side':>13} {'seconds':>8}  bounds (seed: bound, verdict)  ceiling")
    for runs in (int(r) for r in args.runs.split(",")):
        cells, ceiling, seconds = [], 0.0, 0.0
        for seed in range(args.seeds):
            rng = np.random.default_rng(seed)
            start = time.perf_counter()
            inside = likelihood_ratio(loop.scores(runs, True, rng, statistic="all"))
            outside = likelihood_ratio(loop.scores(runs, False, rng, statistic="all"))
            seconds += time.perf_counter() - start
            res = dpaudit.audit_canaries(inside, outside, claim, seed=seed)
            cells.append(f"{seed}: {res.epsilon_lower:.3f} {res.verdict}")
            ceiling = res.parameters["ceiling"]
        print(f"{runs:>13} {seconds / args.seeds:>8.1f}  " + "; ".join(cells) + f"  {ceiling:.3f}")


if __name__ == "__main__":
    main()
