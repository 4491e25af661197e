"""Simulation speed of the papers' experiments: each algorithm's fast path at the paper's scale against
its per-round reference path, side by side in one run, and (``--full``) whole figures' wall time.

(a) Every curve of one preset configuration (default ``dist-mab/fig1@gap0.1,eps0.5``: K = 10, T = 10^7,
20 runs) is simulated on its fast path (``next_block`` / ``observe_block``) at the paper's horizon and
runs; (b) the same algorithm, with the same arguments, on the per-round reference path (``choose`` /
``observe`` every round) at ``--reference-horizon`` rounds (default 20,000: the reference path at 10^7
rounds would take hours) and the same runs. Both are reported as seconds per round per run; the ratio
is the reference cost over the fast cost (above 1: the fast path is faster). The reference cost per
round is about constant in T, while a fast path's falls as T grows (its blocks lengthen), so the ratio
at the paper's horizon is what matters for running the figures. An algorithm without a fast path shows
its reference cost only.

``--full`` then times whole figures with ``dpaudit.run_preset`` on all cores, at paper scale: dist-mab
Fig. 1 (top) and every figure of private-online (Figs 1-12; the final-regret figures share their
simulations with the per-eps figures, so each distinct simulation runs once).

The presets name their algorithms by registry name, so this needs the registry filled. Run:

    python benchmarks/simulation_speed.py [--preset dist-mab/fig1@gap0.1,eps0.5] [--reference-horizon 20000]
                                          [--runs R] [--horizon T] [--full] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from dpaudit import simulate
from dpaudit.bandits.experiments import algorithm_registry, power_text, run_preset, select_presets

FULL_FIGURES = ("dist-mab/fig1", "private-online")


def has_fast_path(policy) -> bool:
    return callable(getattr(policy, "next_block", None)) and callable(getattr(policy, "observe_block", None))


def time_configuration(spec: str, runs: int | None, horizon: int | None, reference_horizon: int) -> None:
    (preset, configs), = select_presets(spec)
    if len(configs) != 1:
        sys.exit(f"{spec} names {len(configs)} configurations; name one, e.g. {preset.name}@{configs[0].key}")
    config = configs[0]
    runs = runs or config.runs
    horizon = horizon or config.horizon
    reference_horizon = min(reference_horizon, horizon)
    registry = algorithm_registry()
    missing = [c.algorithm for c in config.curves if c.algorithm not in registry]
    if missing:
        sys.exit(f"the registry has no {', '.join(missing)}: register the papers' algorithms first")
    print(f"{preset.name}@{config.key}: {config.environment.name}, {runs} runs; fast path at T = "
          f"{power_text(horizon)}, reference path at T = {power_text(reference_horizon)}; seconds per round per run")
    print(f"{'algorithm':<22} {'fast s':>9} {'fast s/round/run':>17} {'ref s':>8} {'ref s/round/run':>16} "
          f"{'ratio':>9}")
    for curve in config.curves:
        kwargs = curve.arguments(horizon)  # the paper-scale arguments for both paths (e.g. beta = 1/T)
        make = registry[curve.algorithm]
        reference = simulate(make(**kwargs), config.environment, reference_horizon, runs, config.seed,
                             path="reference")
        ref_cost = reference.seconds / (reference_horizon * runs)
        if has_fast_path(make(**kwargs)):
            fast = simulate(make(**kwargs), config.environment, horizon, runs, config.seed, path="fast")
            fast_cost = fast.seconds / (horizon * runs)
            print(f"{curve.label:<22} {fast.seconds:>9.2f} {fast_cost:>17.3e} {reference.seconds:>8.2f} "
                  f"{ref_cost:>16.3e} {ref_cost / fast_cost:>9.1f}")
        else:
            print(f"{curve.label:<22} {'no fast path':>27} {reference.seconds:>8.2f} {ref_cost:>16.3e} {'-':>9}")


def time_figures(workers: int) -> None:
    print(f"\nwhole figures at paper scale, {workers} workers")
    print(f"{'figures':<22} {'simulations':>12} {'wall s':>10}")
    for spec in FULL_FIGURES:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            done = run_preset(spec, out=out, workers=workers, progress=False)
            print(f"{spec:<22} {done.simulations:>12} {time.perf_counter() - start:>10.1f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="dist-mab/fig1@gap0.1,eps0.5", help="one preset configuration")
    parser.add_argument("--runs", type=int, default=None, help="runs (default: the preset's)")
    parser.add_argument("--horizon", type=int, default=None, help="fast path's horizon (default: the preset's)")
    parser.add_argument("--reference-horizon", type=int, default=20_000, help="reference path's horizon")
    parser.add_argument("--full", action="store_true", help="also time dist-mab Fig. 1 and private-online Figs 1-12")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="workers for --full")
    args = parser.parse_args(argv)
    time_configuration(args.preset, args.runs, args.horizon, args.reference_horizon)
    if args.full:
        time_figures(args.workers)


if __name__ == "__main__":
    main()
