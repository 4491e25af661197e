"""dist-mab Fig. 1 (and App. J Figs. 2-3) at the paper's scale: seconds per configuration, fast path
against the per-round reference path.

The figure: K = 10 arms, Gaussian rewards (sd 0.1) clipped to [0, 1], means U[0.5 - gap/2, 0.5 + gap/2]
drawn per run, gaps 0.5 and 0.1, eps in {0.1, 0.5, 1}, p = 0.1, algorithms DP-SE (its epoch lengths),
Dist-DP-SE and Dist-RDP-SE with s = 10 and 100 (batches 4^b), 20 runs of T = 10^7 rounds.

For every configuration the script times the fast path at ``--horizon`` over ``--runs`` runs and the
reference path (one call per round) at ``--reference-horizon`` over the same runs; it prints seconds
and nanoseconds per simulated round of one run (per user), the ratio of those rates, the wall-clock
seconds of the whole set of fast runs, and the estimate at T = 10^7 and 20 runs (each configuration's
fast time scaled linearly in T x runs). The 20 runs fit in one of the engine's seed blocks, so the
configurations, not the runs, are spread over ``--workers`` processes. Run:

    python benchmarks/dist_mab_fig1.py [--horizon 10000000] [--runs 20] [--workers 2]
"""

from __future__ import annotations

import argparse
import time

import dpaudit
from dpaudit.algorithms import ALGORITHMS, GaussianBandit, UniformMeans

ALGS = [("DP-SE", "dp-se", {}), ("Dist-DP-SE", "dist-dp-se", {"eta": 4}),
        ("Dist-RDP-SE(s=10)", "dist-rdp-se", {"eta": 4, "s": 10}),
        ("Dist-RDP-SE(s=100)", "dist-rdp-se", {"eta": 4, "s": 100})]
FULL_T, FULL_RUNS = 10**7, 20


def time_config(gap: float, eps: float, name: str, kwargs: dict, args: argparse.Namespace) -> tuple:
    env = GaussianBandit(UniformMeans.around(0.5, gap, 10), 0.1)
    policy = ALGORITHMS[name](eps=eps, p=0.1, **kwargs)
    start = time.perf_counter()
    fast = dpaudit.simulate(policy, env, args.horizon, args.runs, seed=0, path="fast")
    fast_s = time.perf_counter() - start
    start = time.perf_counter()
    dpaudit.simulate(policy, env, args.reference_horizon, args.runs, seed=0, path="reference")
    ref_s = time.perf_counter() - start
    return fast_s, ref_s, float(fast.mean()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--horizon", type=int, default=FULL_T)
    parser.add_argument("--runs", type=int, default=FULL_RUNS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--reference-horizon", type=int, default=2000)
    parser.add_argument("--gaps", type=float, nargs="*", default=[0.5, 0.1])
    parser.add_argument("--eps", type=float, nargs="*", default=[0.1, 0.5, 1.0])
    args = parser.parse_args()
    print(f"fast path: T = {args.horizon}, {args.runs} runs; reference: T = {args.reference_horizon}, "
          f"{args.runs} runs; configurations over {args.workers} workers")
    print("| gap | eps | algorithm | fast s | fast ns/user | reference ns/user | ratio | final regret |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    from joblib import Parallel, delayed

    configs = [(gap, eps, label, name, kwargs) for gap in args.gaps for eps in args.eps for label, name, kwargs in ALGS]
    start = time.perf_counter()
    timings = Parallel(n_jobs=args.workers)(delayed(time_config)(gap, eps, name, kwargs, args)
                                            for gap, eps, _, name, kwargs in configs)
    wall = time.perf_counter() - start
    total = 0.0
    for (gap, eps, label, _, _), (fast_s, ref_s, regret) in zip(configs, timings, strict=True):
        fast_ns = fast_s / (args.horizon * args.runs) * 1e9
        ref_ns = ref_s / (args.reference_horizon * args.runs) * 1e9
        total += fast_s * (FULL_T * FULL_RUNS) / (args.horizon * args.runs)
        print(f"| {gap:g} | {eps:g} | {label} | {fast_s:.2f} | {fast_ns:.2f} | {ref_ns:.0f} | {ref_ns / fast_ns:.0f} | "
              f"{regret:.0f} |")
    print(f"wall clock of all configurations (fast and reference runs) on {args.workers} workers: {wall:.0f} s")
    total /= args.workers
    print(f"estimated fast path of the whole figure (T = 10^7, 20 runs) over {args.workers} workers: {total:.0f} s")


if __name__ == "__main__":
    main()
