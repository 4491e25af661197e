"""dpaudit beside StatDP, both run here: the same mechanisms, epsilon, input pairs, samples and confidence.

    python benchmarks/peers.py --statdp PATH [--samples 10000000] [--seeds 1] [--seed 0]

PATH is a checkout of https://github.com/cmla-psu/statdp (git clone https://github.com/cmla-psu/statdp PATH), imported
from there, never copied; it needs numba and tqdm (pip install numba tqdm). Without it the script says so and exits 2.
DP-Sniper (eth-sri/dp-sniper) needs torch and is not driven here: its bound is quoted from
benchmarks/event_search_discrete.py's side-by-side run.

The rows (each tool's own implementation, the same mechanism):

- the sparse vector technique, Lyu et al.'s Algorithm 1, eps = 1, T = 0.5, c = 1, 10 queries: StatDP's ``SVT``
  (it reports how many queries were answered "below" before the stop, a one-to-one function of dpaudit's output
  vector), on StatDP's input patterns;
- report-noisy-max (index), Laplace(2/eps), eps = 0.7, k = 5: StatDP's ``noisy_max_v1a``, on the classic suite's
  pairs.

StatDP is run as its ``detect_counterexample`` runs, at the true epsilon: its event selector (``select_event``, 10^5
samples per side per pair, its default) picks the pair and event with the smallest p-value, then the event is
counted on ``--samples`` fresh samples per side (its ``run_algorithm``, on both cores as its
``hypothesis_test`` does). Its certified value is the largest epsilon on a grid of step 0.001 below the first at
which its p-value (``test_statistics``: the mean of Fisher's p over 200 thinnings) reaches 0.01. StatDP's
selection samples come on top of ``--samples``; dpaudit's are part of them (a tenth to a half). StatDP draws from
an unseeded generator, so its value moves between runs. Shares of the true epsilon are printed for each tool, with
seconds.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

import dpaudit
from dpaudit import PureDP
from dpaudit.audits.classic import NOISY_MAX_PAIRS, UNIT, _statdp_patterns
from dpaudit.mechanisms import ReportNoisyMax
from dpaudit.mechanisms.sparse_vector import SparseVector

CONFIDENCE = 0.99
SELECTION_SAMPLES = 100_000  # StatDP's default event_iterations
GRID = 0.001
DPSNIPER_QUOTED = {"svt": 0.878}  # benchmarks/event_search_discrete.py's side-by-side run, 10^7 samples

HOW = ("benchmarks/peers.py needs a checkout of StatDP: git clone https://github.com/cmla-psu/statdp PATH, "
       "pip install numba tqdm, then --statdp PATH")


def load_statdp(path: str | None):
    """StatDP's modules from the user's checkout; exit 2 with how to get it when it is missing or cannot load."""
    if path is None or not (Path(path) / "statdp" / "__init__.py").is_file():
        print(HOW, file=sys.stderr)
        sys.exit(2)
    sys.path.insert(0, str(Path(path).resolve()))
    try:
        return (importlib.import_module("statdp.algorithms"), importlib.import_module("statdp.core"),
                importlib.import_module("statdp.hypotest"), importlib.import_module("statdp.selectors"))
    except ImportError as err:
        print(f"StatDP at {path} does not import ({err}); {HOW}", file=sys.stderr)  # numba missing, typically
        sys.exit(2)


def statdp_bound(modules, algorithm, pairs, kwargs: dict, epsilon: float, samples: int, pool) -> tuple[float, dict]:
    """StatDP's certified epsilon (module docstring) and what it chose."""
    _, core, hypotest, selectors = modules
    inputs = [(list(a), list(b), dict(kwargs)) for a, b in pairs]
    d1, d2, chosen, event = selectors.select_event(algorithm, inputs, epsilon, SELECTION_SAMPLES, pool, quiet=True)
    workers = pool._processes or mp.cpu_count()
    chunks = [samples // workers] * workers
    chunks[-1] += samples % workers
    runner = functools.partial(core.run_algorithm, algorithm, d1, d2, chosen, event)
    cx = cy = 0
    for ((x, y), *_), _ in pool.imap_unordered(runner, chunks):
        cx, cy = cx + x, cy + y
    cx, cy = max(cx, cy), min(cx, cy)
    e = 0.0
    while hypotest.test_statistics(cx, cy, e + GRID, samples) < 1 - CONFIDENCE:
        e += GRID
    return e, {"pair": (d1, d2), "event": event, "counts": (int(cx), int(cy))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statdp", help="a checkout of https://github.com/cmla-psu/statdp")
    parser.add_argument("--samples", type=int, default=10_000_000, help="samples per side (StatDP: for its test)")
    parser.add_argument("--seeds", type=int, default=1, help="runs of each tool per row (dpaudit: seed, seed + 1, ...)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    modules = load_statdp(args.statdp)
    algorithms = modules[0]
    rows = [
        ("svt", "SVT (Lyu Alg. 1), eps=1, T=0.5, c=1, 10 queries", SparseVector(1.0, threshold=0.5, cutoff=1),
         algorithms.SVT, {"epsilon": 1.0, "N": 1, "T": 0.5}, 1.0, _statdp_patterns(10)),
        ("noisy-max", "Report noisy max (index), eps=0.7, k=5", ReportNoisyMax(0.7, k=5, noise="laplace"),
         algorithms.noisy_max_v1a, {"epsilon": 0.7}, 0.7, NOISY_MAX_PAIRS),
    ]
    print(f"{args.samples:,} samples per side, confidence {CONFIDENCE}, {args.seeds} run(s) per tool; "
          "shares of the true epsilon")
    with mp.Pool(2) as pool:
        for key, title, mech, algorithm, kwargs, epsilon, pairs in rows:
            print(title)
            ours, theirs = [], []
            for seed in range(args.seed, args.seed + args.seeds):
                start = time.perf_counter()
                result = dpaudit.audit_privacy(mech, PureDP(epsilon), pairs=pairs, neighbours=UNIT,
                                               auditor="statistical", samples=args.samples,
                                               confidence=CONFIDENCE, seed=seed)
                ours.append((result.epsilon_lower / epsilon, time.perf_counter() - start))
                start = time.perf_counter()
                bound, chosen = statdp_bound(modules, algorithm, pairs, kwargs, epsilon, args.samples, pool)
                theirs.append((bound / epsilon, time.perf_counter() - start))
                print(f"  run {seed}: dpaudit {ours[-1][0]:.3f} in {ours[-1][1]:.1f} s "
                      f"({result.parameters['bounds']}, pair {result.witness['pair_index']}); StatDP "
                      f"{theirs[-1][0]:.3f} in {theirs[-1][1]:.1f} s (event {chosen['event']}, counts "
                      f"{chosen['counts']})")
            for tool, values in (("dpaudit", ours), ("StatDP", theirs)):
                shares = np.array([v for v, _ in values])
                se = shares.std(ddof=1) / np.sqrt(len(shares)) if len(shares) > 1 else float("nan")
                seconds = np.mean([s for _, s in values])
                print(f"  {tool}: {shares.mean():.3f} ± {se:.3f} (s.e.), {seconds:.1f} s per run")
            if key in DPSNIPER_QUOTED and args.samples == 10_000_000:
                print(f"  DP-Sniper (quoted, one run at 10^7 samples): {DPSNIPER_QUOTED[key]:.3f}")


if __name__ == "__main__":
    main()
