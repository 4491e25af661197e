"""shuffle-glm's non-private baselines (GLM-UCB, GLOC, RS-GLinUCB): microseconds per round and run of the
vectorised policy (all runs at once) against its per-run reference (one run, matrices and MLEs solved
afresh), side by side with the ratio, on Table 2's setting (probit, d = 3, K = 20, the repository's
instance at S = 2); and ECOLog (logistic only) on Figure 1(a)'s (logistic, d = 5, K = 20, S = 3.5). Both play
the same contexts and reward tables; the policy's time alone is counted.

With --table, also the whole Table 2 experiment (T = 5000, 10 runs, S = 2, 2.5, 3) through
dpaudit.simulate, its mean cumulative pseudo-regret at T next to the paper's printed values. Run:

    python benchmarks/shuffle_glm_baselines.py [--rounds 1000] [--runs 10] [--table]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dpaudit
from dpaudit.algorithms import ALGORITHMS, GLMBandit
from dpaudit.algorithms.glm.ecolog import ecolog_one_run
from dpaudit.algorithms.glm.glm_ucb import glm_ucb_one_run
from dpaudit.algorithms.glm.gloc import gloc_one_run
from dpaudit.algorithms.glm.rs_glinucb import rs_glinucb_one_run

REFERENCES = {"glm-ucb": glm_ucb_one_run, "gloc": gloc_one_run, "rs-glinucb": rs_glinucb_one_run}
TABLE_2 = {"glm-ucb": (1399.07, 1942.18, 2322.53), "gloc": (384.33, 627.62, 1352.05),
           "rs-glinucb": (295.27, 168.83, 194.53)}
S_VALUES = (2.0, 2.5, 3.0)


def reward_tables(env: GLMBandit, rounds: int, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The repository's arm sets (rounds, K, d) and each run's reward table (runs, rounds, K)."""
    arms = env.arm_sets(rounds)
    mu = env.link.mean(arms @ env.theta)
    return arms, (np.random.default_rng(seed).random((runs, rounds, env.arms)) < mu).astype(float)


def time_vectorised(policy, arms: np.ndarray, rewards: np.ndarray) -> float:
    runs, rounds, K = rewards.shape
    policy.start(runs, K, rounds, np.random.default_rng(0))
    rows = np.arange(runs)
    start = time.perf_counter()
    for t in range(1, rounds + 1):
        chosen = policy.choose(t, np.broadcast_to(arms[t - 1], (runs,) + arms.shape[1:]))
        policy.observe(t, chosen, rewards[rows, t - 1, chosen])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--table", action="store_true", help="also run Table 2 (T = 5000, 10 runs, 3 values of S)")
    args = parser.parse_args()
    env = GLMBandit(20, 3, 2.0, link="probit", generator="repository")
    kappa, _ = env.kappa(5000)
    arms, rewards = reward_tables(env, args.rounds, args.runs, seed=0)
    print(f"probit, d = 3, K = 20, S = 2, {args.rounds} rounds; vectorised over {args.runs} runs, reference 1 run")
    print(f"{'algorithm':12} {'vectorised us/round/run':>24} {'reference us/round':>20} {'ratio':>8}")
    for name, reference in REFERENCES.items():
        policy = ALGORITHMS[name](link="probit", S=2.0, kappa=kappa)
        vectorised = time_vectorised(policy, arms, rewards) / (args.rounds * args.runs) * 1e6
        start = time.perf_counter()
        reference(policy, arms, rewards[0])
        per_run = (time.perf_counter() - start) / args.rounds * 1e6
        print(f"{name:12} {vectorised:24.0f} {per_run:20.0f} {per_run / vectorised:7.1f}x")
    env = GLMBandit(20, 5, 3.5, link="logistic", generator="repository")
    arms, rewards = reward_tables(env, args.rounds, args.runs, seed=0)
    policy = ALGORITHMS["ecolog"](S=3.5)
    vectorised = time_vectorised(policy, arms, rewards) / (args.rounds * args.runs) * 1e6
    start = time.perf_counter()
    ecolog_one_run(policy, arms, rewards[0])
    per_run = (time.perf_counter() - start) / args.rounds * 1e6
    print(f"{'ecolog':12} {vectorised:24.0f} {per_run:20.0f} {per_run / vectorised:7.1f}x"
          "   (logistic, d = 5, K = 20, S = 3.5)")
    if not args.table:
        return
    print("\nTable 2 (probit, d = 3, K = 20, T = 5000, 10 runs; the repository's instances): mean cumulative "
          "pseudo-regret at T (standard error) against the paper's")
    for name in REFERENCES:
        for S, printed in zip(S_VALUES, TABLE_2[name]):
            env = GLMBandit(20, 3, S, link="probit", generator="repository")
            kappa, _ = env.kappa(5000)
            policy = ALGORITHMS[name](link="probit", S=S, kappa=kappa)
            start = time.perf_counter()
            res = dpaudit.simulate(policy, env, horizon=5000, runs=10, seed=0)
            seconds = time.perf_counter() - start
            final = res.pseudo_regret[:, -1]
            stderr = final.std(ddof=1) / np.sqrt(10)
            print(f"{name:12} S={S:<4g} kappa={kappa:7.2f}  {final.mean():8.1f} ({stderr:5.1f})"
                  f"  paper {printed:8.2f}   {seconds:6.1f} s")


if __name__ == "__main__":
    main()
