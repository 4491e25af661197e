"""Agreement with the authors' released code: the MAB algorithms of dist-mab (DP-SE, Dist-DP-SE, Dist-RDP-SE)
and the linear ones of shuffle-lcb (LinUCB, LinUCB-LDP, LinUCB-JDP, LinUCB-SDP-Amp, LinUCB-SDP-Vec), each run
by the authors' code and by this package's presets under ``constants="released-code"``, on the same
instances, the same horizon and the same runs. Per algorithm it prints the mean final pseudo-regret of
each (± s.e.), their run-by-run difference in standard errors (target: within 2), and the seconds each
took on one core with the ratio.

The authors' code is sayakrc/Differentially-Private-Bandits (GPL): it is never copied here. Give the path
of a checkout; its classes are imported from there and driven round by round through their own
``get_arm`` / ``update`` and ``randomize``. The instances are drawn as its scripts draw them (MAB: instance
r from ``np.random.seed(r)``, means U[0.5 - gap/2, 0.5 + gap/2]; linear: ``np.random.seed(2)`` once, then
each run's features and theta), and both sides' pseudo-regret is computed the same way from the pulls of
each arm (the gaps of the clipped rewards' means for MAB, of <x, theta> for linear). The code's private
noise comes from its module's generators, seeded here so that a run is reproducible.

    python benchmarks/authors_code.py --checkout PATH [--family mab|linear|all] [--runs R] [--horizon T]
                                      [--eps E] [--gap G] [--dimension D] [--seed S]

Without a checkout it says how to get one and exits 2.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit import simulate
from dpaudit.algorithms import ALGORITHMS
from dpaudit.algorithms.environments import GaussianBandit, GivenLinearBandit
from dpaudit.algorithms.environments.bandits import clipped_normal_mean
from dpaudit.bandits.experiments import load_presets

REPOSITORY = "https://github.com/sayakrc/Differentially-Private-Bandits"
FILES = {"mab": "MABPrivate.py", "linear": "LinBanditPrivate.py"}
SIGMA, ARMS = 0.1, 10  # the MAB script's reward noise and arms
#: the MAB script's algorithm list, by the dist-mab presets' labels: (class name, parameters)
MAB_CLASSES = {"DP-SE": ("DPSE", {"crs": 1, "delta": 0.1, "dc": 2}),
               "Dist-DP-SE": ("BatchSEDistDP", {"crs": 1, "delta": 0.1, "dc": 4}),
               "Dist-RDP-SE(s=10)": ("BatchSEDistRDP", {"crs": 1, "delta": 0.1, "scale": 10, "dc": 4}),
               "Dist-RDP-SE(s=100)": ("BatchSEDistRDP", {"crs": 1, "delta": 0.1, "scale": 100, "dc": 4})}
#: the linear script's algorithm list, by the shuffle-lcb presets' labels
LINEAR_CLASSES = {"LinUCB": "LinUCB", "LinUCB-LDP": "LDPLinUCB", "LinUCB-JDP": "JDPLinUCB",
                  "LinUCB-SDP-Amp": "SDPLinUCBPAmp", "LinUCB-SDP-Vec": "SDPLinUCBPVec"}
LINEAR_ARMS, LINEAR_DELTA, LINEAR_BATCH = 100, 0.1, 20


def usage_exit(reason: str) -> None:
    print(f"{reason}\n\nThis benchmark runs the authors' released code beside dpaudit, from a checkout you make:\n"
          f"    git clone {REPOSITORY} authors-code\n"
          "    python benchmarks/authors_code.py --checkout authors-code\n"
          "(the code is GPL-licensed: dpaudit never ships it; it needs numpy and scipy, which dpaudit has)",
          file=sys.stderr)
    raise SystemExit(2)


def load_module(checkout: Path, family: str) -> Any:
    path = checkout / FILES[family]
    if not path.is_file():
        usage_exit(f"{path} not found: --checkout must be a checkout of {REPOSITORY}")
    spec = importlib.util.spec_from_file_location(f"authors_{family}", path)
    module = importlib.util.module_from_spec(spec)
    with contextlib.redirect_stdout(io.StringIO()):
        spec.loader.exec_module(module)
    return module


def pseudo_regret(pulls: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Each run's sum over arms of pulls x (best mean - mean): pulls and means (runs, K)."""
    return (pulls * (means.max(axis=1, keepdims=True) - means)).sum(axis=1)


def drive(make_env, make_alg, runs: int, horizon: int, arms: int) -> tuple[np.ndarray, float]:
    """The authors' per-round loop (their evaluate_one's order: randomize, get_arm, update), counting pulls."""
    pulls = np.zeros((runs, arms))
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # their constructors print
        for r in range(runs):
            env = make_env(r)
            env.reset_random()
            alg = make_alg(env)
            for t in range(horizon):
                env.randomize()
                arm = alg.get_arm(t)
                alg.update(t, arm, env.reward(arm))
                pulls[r, arm] += 1
    return pulls, time.perf_counter() - start


def ours(curve: Any, environment: Any, horizon: int, runs: int, seed: int) -> tuple[np.ndarray, float]:
    policy = ALGORITHMS[curve.algorithm](**curve.arguments(horizon))
    start = time.perf_counter()
    result = simulate(policy, environment, horizon, runs, seed, workers=1)
    return result.pulls.astype(float), time.perf_counter() - start


class AuthorsMeans:
    """The MAB script's instances as a means sampler: run r's locations, drawn after np.random.seed(r)."""

    def __init__(self, runs: int, gap: float):
        rows = []
        for r in range(runs):
            np.random.seed(r)
            rows.append(gap * np.random.rand(ARMS) + (0.5 - gap / 2))
        self.values = np.array(rows)
        self.arms = ARMS
        self.name = f"the authors' instances r = 0..{runs - 1} (gap {gap:g})"

    def draw(self, runs: int, rng: np.random.Generator) -> np.ndarray:
        if runs != len(self.values):
            raise ValueError(f"AuthorsMeans: {len(self.values)} instances, asked for {runs}")
        return self.values.copy()


def linear_instances(runs: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The linear script's instances: np.random.seed(2), then per run the features and theta."""
    np.random.seed(2)
    features, thetas = [], []
    basis = np.eye(d)
    basis[:, -1] = 1
    for _ in range(runs):
        x = np.random.randn(LINEAR_ARMS, d - 1)
        x /= np.sqrt(np.square(x).sum(axis=1))[:, np.newaxis]
        x = np.hstack((x, np.ones((LINEAR_ARMS, 1))))
        x[: basis.shape[0], :] = basis
        theta = np.random.randn(d - 1)
        theta *= 0.5 / np.sqrt(np.square(theta).sum())
        features.append(x)
        thetas.append(np.append(theta, [0.5]))
    return np.array(features), np.array(thetas)


def rows_for(family: str, args: argparse.Namespace, module: Any) -> list[tuple[str, np.ndarray, np.ndarray, float,
                                                                               float]]:
    """(label, authors' pseudo-regrets, ours, authors' seconds, our seconds) per algorithm."""
    out = []
    if family == "mab":
        preset = load_presets()["dist-mab/fig2"].with_constants("released-code")
        config = next(c for c in preset.configurations if math.isclose(c.value("eps"), args.eps))
        sampler = AuthorsMeans(args.runs, args.gap)
        means = clipped_normal_mean(sampler.values, SIGMA, 0.0, 1.0)
        environment = GaussianBandit(sampler, SIGMA)
        for curve in config.curves:
            name, params = MAB_CLASSES[curve.label]
            cls = getattr(module, name)
            module.rng = np.random.default_rng(args.seed)  # the code's noise stream, seeded here
            theirs, their_s = drive(lambda r: module.GaussBandit(sampler.values[r], args.eps, seed=r),
                                    lambda env, c=cls, p=params: c(env, args.horizon, dict(p)),
                                    args.runs, args.horizon, ARMS)
            mine, my_s = ours(curve, environment, args.horizon, args.runs, args.seed)
            out.append((curve.label, pseudo_regret(theirs, means), pseudo_regret(mine, means), their_s, my_s))
        return out
    preset = load_presets()["shuffle-lcb/fig1"].with_constants("released-code")
    config = next(c for c in preset.configurations if math.isclose(c.value("eps"), args.eps))
    features, thetas = linear_instances(args.runs, args.dimension)
    means = np.einsum("rkd,rd->rk", features, thetas)
    environment = GivenLinearBandit(features, thetas, "the released code's instances, np.random.seed(2)")
    module.d = args.dimension  # the script's get_arm reads the dimension from its own module globals
    for curve in config.curves:
        cls = getattr(module, LINEAR_CLASSES[curve.label])
        np.random.seed(args.seed)  # the code draws its noise from the global stream
        theirs, their_s = drive(lambda r: module.LinBandit(features[r], thetas[r], args.eps, LINEAR_DELTA, LINEAR_BATCH,
                                                           noise="bernoulli", sigma=0, seed=r),
                                lambda env, c=cls: c(env, args.horizon, {}), args.runs, args.horizon, LINEAR_ARMS)
        mine, my_s = ours(curve, environment, args.horizon, args.runs, args.seed)
        out.append((curve.label, pseudo_regret(theirs, means), pseudo_regret(mine, means), their_s, my_s))
    return out


def report(family: str, args: argparse.Namespace, rows: list) -> int:
    """Print the table; the number of algorithms outside 2 s.e."""
    setting = (f"gap {args.gap:g}" if family == "mab" else f"d = {args.dimension}, K = {LINEAR_ARMS}, B = "
               f"{LINEAR_BATCH}, delta = {LINEAR_DELTA:g}")
    print(f"\n{family}: eps = {args.eps:g}, {setting}, T = {args.horizon:,}, {args.runs} runs, released-code constants")
    print(f"{'algorithm':<20} {'authors (mean ± s.e.)':>24} {'dpaudit (mean ± s.e.)':>24} {'diff / s.e.':>11} "
          f"{'authors s':>10} {'dpaudit s':>10} {'speed-up':>9}")
    outside = 0
    for label, theirs, mine, their_s, my_s in rows:
        diff = mine - theirs
        se = diff.std(ddof=1) / math.sqrt(diff.size) if diff.size > 1 else float("nan")
        z = diff.mean() / se if se > 0 else 0.0
        outside += abs(z) > 2
        print(f"{label:<20} {theirs.mean():>13.1f} ± {theirs.std(ddof=1) / math.sqrt(theirs.size):<8.1f} "
              f"{mine.mean():>13.1f} ± {mine.std(ddof=1) / math.sqrt(mine.size):<8.1f} {z:>11.2f} "
              f"{their_s:>10.1f} {my_s:>10.2f} {their_s / my_s:>8.0f}x")
    return outside


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=None, help=f"a checkout of {REPOSITORY}")
    parser.add_argument("--family", choices=("mab", "linear", "all"), default="all")
    parser.add_argument("--runs", type=int, default=20, help="runs (default 20; the linear script's are 50)")
    parser.add_argument("--horizon", type=float, default=None,
                        help="rounds (default: 10^5 for mab, 20,000 for linear, the linear figures' own)")
    parser.add_argument("--eps", type=float, default=None, help="default: 0.5 for mab, 0.2 for linear")
    parser.add_argument("--gap", type=float, default=0.5, help="mab: 0.5 (easy instance) or 0.1 (hard)")
    parser.add_argument("--dimension", type=int, default=5, help="linear: d (the script ships d = 5)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.checkout is None:
        usage_exit("no --checkout given")
    if not args.checkout.is_dir():
        usage_exit(f"{args.checkout} is not a folder")
    if not 2 <= args.runs <= 50:
        usage_exit(f"--runs must be in 2..50 (one block of runs), got {args.runs}")
    outside = 0
    for family in ("mab", "linear") if args.family == "all" else (args.family,):
        module = load_module(args.checkout, family)
        run = argparse.Namespace(**vars(args))
        run.horizon = int(args.horizon or (10**5 if family == "mab" else 20_000))
        run.eps = args.eps if args.eps is not None else (0.5 if family == "mab" else 0.2)
        outside += report(family, run, rows_for(family, run, module))
    print(f"\n{outside} algorithm(s) outside 2 s.e.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
