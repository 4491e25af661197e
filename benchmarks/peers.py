"""dpaudit beside StatDP and DP-Sniper, all run here: the same mechanisms, epsilon, input pairs, samples and confidence.

    python benchmarks/peers.py [--statdp PATH] [--dpsniper PATH [--dpsniper-python PYTHON]]
        [--samples 10000000] [--dpaudit-samples N] [--seeds 1] [--seed 0] [--only svt|noisy-max]
        [--dpsniper-selection 1000000]

--statdp is a checkout of https://github.com/cmla-psu/statdp, imported from there, never copied; it needs numba and
tqdm (pip install numba tqdm). --dpsniper is a checkout of https://github.com/eth-sri/dp-sniper, run by
benchmarks/peers_dpsniper.py under --dpsniper-python (default: this interpreter), an interpreter with torch and the
checkout's requirements (python -m venv V; V/bin/pip install torch==2.13.0 matplotlib pandas tensorboard
scikit-learn mmh3; V/bin/pip install --no-deps -e PATH). Give either or both; with neither the script says how to
get them and exits 2.

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
an unseeded generator, so its value moves between runs.

DP-Sniper is run as its DD-Search runs, on the same pairs (each in both orders): per pair a classifier (exp_default's
logistic regression) trained on ``--dpsniper-selection`` samples per side, its threshold and an estimate on as many
again; the best pair's lower confidence bound at 0.99 on ``--samples`` fresh samples per side (benchmarks/
peers_dpsniper.py says more). Its selection samples also come on top: per ordered pair, the classifier's
training draws ``--dpsniper-selection`` from each input, the threshold as many from the second, the estimate as
many from each, so 5 * pairs * selection per side in all before the final bound.

dpaudit runs its fixed-size audit (``sequential=False``): every claim here is true, so a sequential audit would
draw the whole budget too, and spend a tenth of its level on bets that cannot pay.

Each tool's line says how many samples it drew per side in all. To compare at equal draws, give dpaudit a peer's
total with ``--dpaudit-samples``. Shares of the true epsilon are printed for each tool, with seconds per run, and
the mean ± s.e. over ``--seeds`` runs.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import multiprocessing as mp
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import dpaudit
from dpaudit import PureDP
from dpaudit.audits.classic import NOISY_MAX_PAIRS, UNIT, _statdp_patterns
from dpaudit.mechanisms import ReportNoisyMax
from dpaudit.mechanisms.classic.sparse_vector import SparseVector

CONFIDENCE = 0.99
SELECTION_SAMPLES = 100_000  # StatDP's default event_iterations
GRID = 0.001
DPSNIPER_DRIVER = Path(__file__).with_name("peers_dpsniper.py")

HOW = ("benchmarks/peers.py needs a checkout of a peer: StatDP (git clone https://github.com/cmla-psu/statdp PATH; "
       "pip install numba tqdm; then --statdp PATH) or DP-Sniper (git clone https://github.com/eth-sri/dp-sniper "
       "PATH; an interpreter with torch==2.13.0 and its requirements; then --dpsniper PATH --dpsniper-python "
       "PYTHON), or both")


def load_statdp(path: str):
    """StatDP's modules from the user's checkout; exit 2 with how to get it when it is missing or cannot load."""
    if not (Path(path) / "statdp" / "__init__.py").is_file():
        print(f"no StatDP checkout at {path}; {HOW}", file=sys.stderr)
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


def check_dpsniper(path: str, python: str) -> None:
    """Exit 2 with how to get DP-Sniper when the checkout is missing or the interpreter cannot import it."""
    if not (Path(path) / "dpsniper" / "__init__.py").is_file():
        print(f"no DP-Sniper checkout at {path}; {HOW}", file=sys.stderr)
        sys.exit(2)
    probe = subprocess.run([python, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import torch, "
                            "dpsniper.search.ddsearch", str(Path(path).resolve())], capture_output=True, text=True)
    if probe.returncode:
        last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"DP-Sniper at {path} does not import under {python} ({last}); {HOW}", file=sys.stderr)
        sys.exit(2)


def dpsniper_bound(path: str, python: str, key: str, pairs, samples: int, selection: int) -> dict:
    """DP-Sniper's certified epsilon and chosen pair, from its DD-Search run by benchmarks/peers_dpsniper.py."""
    done = subprocess.run([python, str(DPSNIPER_DRIVER), "--checkout", str(path), "--row", key,
                           "--pairs", json.dumps([[list(a), list(b)] for a, b in pairs]), "--samples", str(samples),
                           "--selection", str(selection), "--confidence", str(CONFIDENCE)],
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"DP-Sniper failed on {key}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statdp", help="a checkout of https://github.com/cmla-psu/statdp")
    parser.add_argument("--dpsniper", help="a checkout of https://github.com/eth-sri/dp-sniper")
    parser.add_argument("--dpsniper-python", default=sys.executable,
                        help="an interpreter with torch and DP-Sniper's requirements (default: this one)")
    parser.add_argument("--dpsniper-selection", type=int, default=1_000_000,
                        help="DP-Sniper's samples per stage of its pair search (its own default: 10700000)")
    parser.add_argument("--samples", type=int, default=10_000_000,
                        help="samples per side (StatDP: for its test; DP-Sniper: for its final bound)")
    parser.add_argument("--dpaudit-samples", type=int,
                        help="dpaudit's samples per side, selection included (default: --samples); to match the "
                             "samples a peer draws in all, give --samples plus its selection samples")
    parser.add_argument("--seeds", type=int, default=1, help="runs of each tool per row (dpaudit: seed, seed + 1, ...)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("svt", "noisy-max"), help="one row")
    args = parser.parse_args(argv)
    if args.statdp is None and args.dpsniper is None:
        print(HOW, file=sys.stderr)
        sys.exit(2)
    modules = load_statdp(args.statdp) if args.statdp else None
    if args.dpsniper:
        check_dpsniper(args.dpsniper, args.dpsniper_python)
    rows = [  # key, title, dpaudit's mechanism, epsilon, pairs, StatDP's algorithm and its arguments
        ("svt", "SVT (Lyu Alg. 1), eps=1, T=0.5, c=1, 10 queries", SparseVector(1.0, threshold=0.5, cutoff=1),
         1.0, _statdp_patterns(10), "SVT", {"epsilon": 1.0, "N": 1, "T": 0.5}),
        ("noisy-max", "Report noisy max (index), eps=0.7, k=5", ReportNoisyMax(0.7, k=5, noise="laplace"),
         0.7, NOISY_MAX_PAIRS, "noisy_max_v1a", {"epsilon": 0.7}),
    ]
    print(f"{args.samples:,} samples per side, confidence {CONFIDENCE}, {args.seeds} run(s) per tool; "
          "shares of the true epsilon")
    ours = args.dpaudit_samples or args.samples
    with mp.Pool(2) as pool:
        for key, title, mech, epsilon, pairs, statdp_name, statdp_kwargs in rows:
            if args.only not in (None, key):
                continue
            # samples each tool draws per side in all, its selection included (module docstring)
            drawn = {"dpaudit": ours, "StatDP": args.samples + SELECTION_SAMPLES * len(pairs),
                     "DP-Sniper": args.samples + 5 * len(pairs) * args.dpsniper_selection}
            print(title, flush=True)
            runs: dict[str, list[tuple[float, float]]] = {"dpaudit": [], "StatDP": [], "DP-Sniper": []}
            for seed in range(args.seed, args.seed + args.seeds):
                start = time.perf_counter()
                result = dpaudit.audit_privacy(mech, PureDP(epsilon), pairs=pairs, neighbours=UNIT,
                                               auditor="statistical", samples=ours,
                                               confidence=CONFIDENCE, seed=seed, sequential=False)
                runs["dpaudit"].append((result.epsilon_lower / epsilon, time.perf_counter() - start))
                line = (f"  run {seed}: dpaudit {runs['dpaudit'][-1][0]:.3f} in {runs['dpaudit'][-1][1]:.1f} s "
                        f"({result.parameters['bounds']}, pair {result.witness['pair_index']})")
                if modules is not None:
                    start = time.perf_counter()
                    bound, chosen = statdp_bound(modules, getattr(modules[0], statdp_name), pairs, statdp_kwargs,
                                                 epsilon, args.samples, pool)
                    runs["StatDP"].append((bound / epsilon, time.perf_counter() - start))
                    line += (f"; StatDP {runs['StatDP'][-1][0]:.3f} in {runs['StatDP'][-1][1]:.1f} s "
                             f"(event {chosen['event']}, counts {chosen['counts']})")
                if args.dpsniper:
                    start = time.perf_counter()
                    found = dpsniper_bound(args.dpsniper, args.dpsniper_python, key, pairs, args.samples,
                                           args.dpsniper_selection)
                    runs["DP-Sniper"].append((found["bound"] / epsilon, time.perf_counter() - start))
                    line += (f"; DP-Sniper {runs['DP-Sniper'][-1][0]:.3f} in {runs['DP-Sniper'][-1][1]:.1f} s "
                             f"(estimate {found['estimate'] / epsilon:.3f}, pair {found['pair']})")
                print(line, flush=True)
            for tool, values in runs.items():
                if not values:
                    continue
                shares = np.array([v for v, _ in values])
                se = shares.std(ddof=1) / np.sqrt(len(shares)) if len(shares) > 1 else float("nan")
                seconds = np.mean([s for _, s in values])
                print(f"  {tool}: {shares.mean():.3f} ± {se:.3f} (s.e.), {seconds:.1f} s per run, "
                      f"{drawn[tool]:,} samples drawn per side", flush=True)


if __name__ == "__main__":
    main()
