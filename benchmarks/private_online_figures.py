"""Wall-clock time of private-online's experiment grid (Section 6, Figures 1-12) on the simulation
engine, and the per-round cost of the UCB-type policies' fast paths against their per-round paths.

Grid: K = 5 Bernoulli arms, mean settings 1-3, eps in {0.1, 0.25, 0.5, 1, 8, 64, 128}, 15 runs of
T = 2^22 rounds, for Anytime-Lazy-UCB, Hybrid-UCB and DP-SE (beta = 1/T) when the registry has it.
Configurations run in parallel over ``--jobs`` processes (15 runs are one seed block, so a single
configuration runs on one core). Every configuration prints its seconds and final pseudo-regret.

    python benchmarks/private_online_figures.py grid [--horizon 4194304] [--jobs 2] [--algorithms ...]
    python benchmarks/private_online_figures.py per-round [--runs 100] [--horizon 20000]
    python benchmarks/private_online_figures.py certificate [--runs 15] [--horizon 16384]

``certificate``: the fast path of UCB1 and Hybrid-UCB with the numpy blocks and with the compiled ones (the ``[fast]``
extra: the certificate, and Hybrid-UCB's update after a block), side by side on the same seed: seconds, the ratio, and
whether the regrets agree bit for bit.
"""

from __future__ import annotations

import argparse
import time

from joblib import Parallel, delayed

import dpaudit
from dpaudit.algorithms.environments.bandits import BernoulliBandit
from dpaudit.algorithms.registry import ALGORITHMS

SETTINGS = {1: [0.75, 0.70, 0.70, 0.70, 0.70], 2: [0.75, 0.625, 0.5, 0.375, 0.25], 3: [0.75, 0.15, 0.15, 0.15, 0.15]}
EPSILONS = (0.1, 0.25, 0.5, 1, 8, 64, 128)


def build(name: str, eps: float, horizon: int):
    if name == "dp-se":
        return ALGORITHMS[name](eps=eps, beta=1 / horizon)
    return ALGORITHMS[name](eps=eps)


def one(name: str, setting: int, eps: float, horizon: int, runs: int) -> tuple:
    result = dpaudit.simulate(build(name, eps, horizon), BernoulliBandit(SETTINGS[setting]), horizon, runs,
                              seed=setting)
    return name, setting, eps, result.path, result.seconds, float(result.mean()[-1])


def grid(args: argparse.Namespace) -> None:
    names = [n for n in args.algorithms if n in ALGORITHMS]
    tasks = [(n, s, e) for n in names for s in SETTINGS for e in EPSILONS]
    start = time.perf_counter()
    totals: dict[str, float] = {}
    for name, setting, eps, path, seconds, regret in Parallel(n_jobs=args.jobs, return_as="generator")(
            delayed(one)(n, s, e, args.horizon, args.runs) for n, s, e in tasks):
        totals[name] = totals.get(name, 0.0) + seconds
        print(f"{name:18s} setting {setting} eps {eps:<6g} {path:9s} {seconds:8.1f} s  regret {regret:10.1f}",
              flush=True)
    print(f"wall clock {time.perf_counter() - start:.1f} s over {args.jobs} processes; per algorithm (CPU s): "
          + ", ".join(f"{n} {s:.1f}" for n, s in totals.items()))


def per_round(args: argparse.Namespace) -> None:
    """Nanoseconds per round and run: the per-round path with one run at a time (no vectorisation
    over runs), the per-round path over R runs at once, and the fast path over R runs."""
    env = BernoulliBandit(SETTINGS[2])
    for name in ("ucb", "anytime-lazy-ucb", "hybrid-ucb"):
        policy = ALGORITHMS[name]() if name == "ucb" else ALGORITHMS[name](eps=1.0)
        single = dpaudit.simulate(policy, env, args.horizon, 1, seed=1, path="reference").seconds
        cost = {"one run": 1e9 * single / args.horizon}
        for path in ("reference", "fast"):
            seconds = dpaudit.simulate(policy, env, args.horizon, args.runs, seed=1, path=path).seconds
            cost[path] = 1e9 * seconds / (args.horizon * args.runs)
        print(f"{name:18s} T={args.horizon}, ns per round and run: one run at a time {cost['one run']:8.0f}; "
              f"R={args.runs}: reference {cost['reference']:6.0f} (x{cost['one run'] / cost['reference']:.0f}), "
              f"fast {cost['fast']:6.0f} (x{cost['one run'] / cost['fast']:.0f})")


def certificate(args: argparse.Namespace) -> None:
    """The numpy blocks against the compiled ones, on the quick suite's Figure 5 setting and eps values."""
    from dpaudit.algorithms.online.indices import COMPILED

    if not COMPILED:
        raise SystemExit("the compiled certificate needs numba: pip install 'dpaudit[fast]'")
    env = BernoulliBandit(SETTINGS[1])
    totals = [0.0, 0.0]
    for name, eps in [("ucb", None), ("hybrid-ucb", 0.5), ("hybrid-ucb", 8.0), ("hybrid-ucb", 64.0),
                      ("hybrid-ucb", 128.0)]:
        results = []
        for compiled in (False, True):
            policy = ALGORITHMS[name]() if eps is None else ALGORITHMS[name](eps=eps)
            policy.compiled_blocks = compiled
            dpaudit.simulate(policy, env, 256, 2, seed=0)  # numba compiles on first use: not timed
            results.append(dpaudit.simulate(policy, env, args.horizon, args.runs, seed=1))
        numpy_path, fast = results
        same = (numpy_path.pseudo_regret == fast.pseudo_regret).all() and (numpy_path.regret == fast.regret).all()
        totals[0] += numpy_path.seconds
        totals[1] += fast.seconds
        label = name + ("" if eps is None else f" eps {eps:g}")
        print(f"{label:22s} numpy blocks {numpy_path.seconds:6.2f} s  compiled {fast.seconds:6.2f} s  "
              f"ratio {fast.seconds / numpy_path.seconds:.2f}  regrets {'the same' if same else 'DIFFER'}")
    print(f"{'all':22s} numpy blocks {totals[0]:6.2f} s  compiled {totals[1]:6.2f} s  "
          f"ratio {totals[1] / totals[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grid")
    g.add_argument("--horizon", type=int, default=2**22)
    g.add_argument("--runs", type=int, default=15)
    g.add_argument("--jobs", type=int, default=2)
    g.add_argument("--algorithms", nargs="+", default=["anytime-lazy-ucb", "hybrid-ucb", "dp-se"])
    p = sub.add_parser("per-round")
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--horizon", type=int, default=20_000)
    c = sub.add_parser("certificate")
    c.add_argument("--runs", type=int, default=15)
    c.add_argument("--horizon", type=int, default=2**14)
    args = parser.parse_args()
    {"grid": grid, "per-round": per_round, "certificate": certificate}[args.command](args)


if __name__ == "__main__":
    main()
