"""Agreement with the authors' released code: the MAB algorithms of dist-mab (DP-SE, Dist-DP-SE, Dist-RDP-SE)
and the linear ones of shuffle-lcb (LinUCB, LinUCB-LDP, LinUCB-JDP, LinUCB-SDP-Amp, LinUCB-SDP-Vec), and
(``--glm-checkout``) shuffle-glm's Table 2 algorithms (GLM-UCB, GLOC, Private-GLM, RS-GLinUCB), each run by the
authors' code and by this package's presets under ``constants="released-code"``, on the same instances, the
same horizon and the same runs. Per algorithm it prints the mean final pseudo-regret of each (± s.e.), their
difference in standard errors (target: within 2; run by run where the runs share their instances, else of
the two means), and the seconds each took with the ratio: the authors' code on one core (a loop over runs, one
after another), dpaudit's compiled blocks of rounds on ``NUMBA_NUM_THREADS`` threads (the machine's cores unless
set; ``NUMBA_NUM_THREADS=1`` for one core each), the count printed with the table.

The authors' code is sayakrc/Differentially-Private-Bandits and, for shuffle-glm,
Sahasrajit123/Shuffle_joint_dp_generalized_linear_contextual_bandits at commit ab8fd160 (the commit whose stored
outputs are the paper's Table 2). Both are never copied here: give the path of a checkout; its classes are
imported from there and driven round by round through their own ``get_arm`` / ``update`` and ``randomize``
(shuffle-glm: ``play_arm`` / ``update`` and its environment's ``step``; its instance is the one this package's
repository generator reproduces draw for draw). The instances are drawn as its scripts draw them (MAB: instance
r from ``np.random.seed(r)``, means U[0.5 - gap/2, 0.5 + gap/2]; linear: ``np.random.seed(2)`` once, then
each run's features and theta), and both sides' pseudo-regret is computed the same way from the pulls of
each arm (the gaps of the clipped rewards' means for MAB, of <x, theta> for linear). The code's private
noise comes from its module's generators, seeded here so that a run is reproducible.

    python benchmarks/authors_code.py --checkout PATH [--family mab|linear|all] [--runs R] [--horizon T]
                                      [--eps E] [--gap G] [--dimension D] [--seed S]
    python benchmarks/authors_code.py --glm-checkout PATH [--family glm] [--runs 10] [--horizon 5000] [--S 3]

Without a checkout it says how to get one and exits 2.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import importlib.util
import io
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit import simulate
from dpaudit.algorithms import ALGORITHMS
from dpaudit.algorithms.environments import GaussianBandit, GivenLinearBandit
from dpaudit.algorithms.environments.bandits import clipped_normal_mean
from dpaudit.algorithms.runs_in_threads import thread_count
from dpaudit.bandits.experiments import load_presets

REPOSITORY = "https://github.com/sayakrc/Differentially-Private-Bandits"
GLM_REPOSITORY = "https://github.com/Sahasrajit123/Shuffle_joint_dp_generalized_linear_contextual_bandits"
GLM_COMMIT = "ab8fd160"
FILES = {"mab": "MABPrivate.py", "linear": "LinBanditPrivate.py", "glm": "simulation_utils.py"}
#: shuffle-glm's Table 2 algorithms, by the presets' labels: (the code's module, class)
GLM_CLASSES = {"GLM-UCB": ("glmbanditexp.algorithms.glm_ucb", "GlmUCB"),
               "GLOC": ("glmbanditexp.algorithms.gloc", "Gloc"),
               "RS-GLinUCB": ("glmbanditexp.algorithms.rs_glinucb", "RS_GLinUCB"),
               "Private-GLM": ("glmbanditexp.algorithms.private_rs_glinucb", "Private_RS_GLinUCB")}
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
          "and for shuffle-glm's code, at the commit behind the paper's Table 2:\n"
          f"    git clone {GLM_REPOSITORY} glm-code && git -C glm-code checkout {GLM_COMMIT}\n"
          "    python benchmarks/authors_code.py --glm-checkout glm-code --family glm\n"
          "(the code is never shipped with dpaudit; it needs numpy, scipy and tqdm, which dpaudit has)",
          file=sys.stderr)
    raise SystemExit(2)


def load_module(checkout: Path, family: str) -> Any:
    path = checkout / FILES[family]
    if not path.is_file():
        usage_exit(f"{path} not found: the checkout must be of {GLM_REPOSITORY if family == 'glm' else REPOSITORY}")
    if family == "glm":  # a package of modules: imported from the checkout's folder
        sys.path.insert(0, str(checkout))
        with contextlib.redirect_stdout(io.StringIO()):
            return importlib.import_module("environment")
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


def warmed_up(policy: Any, environment: Any, runs: int) -> None:
    """A few rounds of the policy first (on as many runs: some environments hold one instance per run), so that
    the timing is of the simulation: with the fast extra, numba compiles a kernel on its first use after an
    install or an edit (a few seconds, then cached on disk)."""
    simulate(copy.deepcopy(policy), environment, 20, runs, 0, workers=1)


def ours(curve: Any, environment: Any, horizon: int, runs: int, seed: int) -> tuple[np.ndarray, float]:
    policy = ALGORITHMS[curve.algorithm](**curve.arguments(horizon))
    warmed_up(policy, environment, runs)
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


def selected(curves: Any, args: argparse.Namespace) -> list:
    """The curves ``--only`` keeps (all without it)."""
    return [c for c in curves if args.only is None or c.label.startswith(tuple(args.only))]


def glm_rows(args: argparse.Namespace, environment_module: Any) -> list:
    """shuffle-glm: the code's Table 2 loop (every algorithm on one environment, round by round) against the
    table2 preset's released-code configuration at S; every trial of both faces the repository's instance."""
    preset = load_presets()["shuffle-glm/table2"].with_constants("released-code")
    config = next(c for c in preset.configurations if math.isclose(c.value("S"), args.S))
    config_code = {"seed": 109832, "model": "Probit", "theta_dim": config.environment.dimension,
                   "num_arms": config.environment.arms, "theta_norm": args.S, "horizon_length": args.horizon,
                   "full_norm": True}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        env = environment_module.GLMBandit(config=config_code)
    out = []
    for curve in selected(config.curves, args):
        family = curve.label.split(" eps=")[0]
        module, name = GLM_CLASSES[family]
        cls = getattr(importlib.import_module(module), name)
        eps = curve.kwargs.get("eps")
        rng = np.random.default_rng(args.seed)
        finals, start = [], time.perf_counter()
        # in a scratch folder: the code's Private-GLM writes its DP-SGD logs under ./logs
        with (tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch),
              contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())):
            for _ in range(args.runs):
                env.reset()
                first = env.get_first_action_set()
                if family == "Private-GLM":
                    alg = cls(first, env.kappa, env.kappa_star, env.R, env.S, env.model, env.T, 0.02, eps, 2e-2,
                              rng=rng)
                elif family == "GLOC":
                    alg = cls(first, env.kappa, env.R, env.S, env.model, 0.02, rng=rng)
                else:
                    alg = cls(first, env.kappa, env.R, env.S, env.model, env.T, 0.02, rng=rng)
                for _t in range(env.T):
                    rewards, regrets, arms = env.step([alg.play_arm()])
                    alg.update(rewards[0], regrets[0], arms)
                finals.append(sum(alg.regret_arr))
        their_s = time.perf_counter() - start
        policy = ALGORITHMS[curve.algorithm](**curve.arguments(args.horizon))
        warmed_up(policy, config.environment, args.runs)
        start = time.perf_counter()
        result = simulate(policy, config.environment, args.horizon, args.runs, args.seed, workers=1)
        out.append((curve.label, np.array(finals), result.pseudo_regret[:, -1], their_s, time.perf_counter() - start))
    return out


def rows_for(family: str, args: argparse.Namespace, module: Any) -> list[tuple[str, np.ndarray, np.ndarray, float,
                                                                               float]]:
    """(label, authors' pseudo-regrets, ours, authors' seconds, our seconds) per algorithm."""
    if family == "glm":
        return glm_rows(args, module)
    out = []
    if family == "mab":
        preset = load_presets()["dist-mab/fig2"].with_constants("released-code")
        config = next(c for c in preset.configurations if math.isclose(c.value("eps"), args.eps))
        sampler = AuthorsMeans(args.runs, args.gap)
        means = clipped_normal_mean(sampler.values, SIGMA, 0.0, 1.0)
        environment = GaussianBandit(sampler, SIGMA)
        for curve in selected(config.curves, args):
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
    for curve in selected(config.curves, args):
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
    setting = {"mab": f"eps = {args.eps:g}, gap {args.gap:g}",
               "linear": f"eps = {args.eps:g}, d = {args.dimension}, K = {LINEAR_ARMS}, B = {LINEAR_BATCH}, delta = "
                         f"{LINEAR_DELTA:g}",
               "glm": f"Table 2's probit instance, d = 3, K = 20, S = {args.S:g} (the difference of the means: the "
                      "runs share the instance only)"}[family]
    paired = family != "glm"
    print(f"\n{family}: {setting}, T = {args.horizon:,}, {args.runs} runs, released-code constants; dpaudit's "
          f"compiled rounds on up to {thread_count()} thread(s)")
    print(f"{'algorithm':<20} {'authors (mean ± s.e.)':>24} {'dpaudit (mean ± s.e.)':>24} {'diff / s.e.':>11} "
          f"{'authors s':>10} {'dpaudit s':>10} {'speed-up':>9}")
    outside = 0
    for label, theirs, mine, their_s, my_s in rows:
        if paired:
            diff = mine - theirs
            se = diff.std(ddof=1) / math.sqrt(diff.size)
            z = diff.mean() / se if se > 0 else 0.0
        else:
            se = math.hypot(mine.std(ddof=1) / math.sqrt(mine.size), theirs.std(ddof=1) / math.sqrt(theirs.size))
            z = (mine.mean() - theirs.mean()) / se if se > 0 else 0.0
        outside += abs(z) > 2
        print(f"{label:<20} {theirs.mean():>13.1f} ± {theirs.std(ddof=1) / math.sqrt(theirs.size):<8.1f} "
              f"{mine.mean():>13.1f} ± {mine.std(ddof=1) / math.sqrt(mine.size):<8.1f} {z:>11.2f} "
              f"{their_s:>10.1f} {my_s:>10.2f} {their_s / my_s:>8.0f}x")
    return outside


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=None, help=f"a checkout of {REPOSITORY}")
    parser.add_argument("--glm-checkout", type=Path, default=None,
                        help=f"a checkout of {GLM_REPOSITORY} at {GLM_COMMIT} (for --family glm or all)")
    parser.add_argument("--family", choices=("mab", "linear", "glm", "all"), default="all")
    parser.add_argument("--S", type=float, default=3.0, help="glm: Table 2's S, 2, 2.5 or 3")
    parser.add_argument("--only", nargs="+", default=None, metavar="LABEL",
                        help="run only the algorithms whose label starts with one of these (e.g. GLOC Private-GLM)")
    parser.add_argument("--runs", type=int, default=20, help="runs (default 20; the linear script's are 50)")
    parser.add_argument("--horizon", type=float, default=None,
                        help="rounds (default: 10^5 for mab, 20,000 for linear, the linear figures' own)")
    parser.add_argument("--eps", type=float, default=None, help="default: 0.5 for mab, 0.2 for linear")
    parser.add_argument("--gap", type=float, default=0.5, help="mab: 0.5 (easy instance) or 0.1 (hard)")
    parser.add_argument("--dimension", type=int, default=5, help="linear: d (the script ships d = 5)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    families = [f for f in (("mab", "linear", "glm") if args.family == "all" else (args.family,))
                if f != "glm" or args.glm_checkout is not None or args.family == "glm"]
    for family in families:
        checkout = args.glm_checkout if family == "glm" else args.checkout
        if checkout is None:
            usage_exit(f"no {'--glm-checkout' if family == 'glm' else '--checkout'} given")
        if not checkout.is_dir():
            usage_exit(f"{checkout} is not a folder")
    if not 2 <= args.runs <= 50:
        usage_exit(f"--runs must be in 2..50 (one block of runs), got {args.runs}")
    outside = 0
    for family in families:
        module = load_module(args.glm_checkout if family == "glm" else args.checkout, family)
        run = argparse.Namespace(**vars(args))
        run.horizon = int(args.horizon or {"mab": 10**5, "linear": 20_000, "glm": 5000}[family])
        run.eps = args.eps if args.eps is not None else (0.5 if family == "mab" else 0.2)
        outside += report(family, run, rows_for(family, run, module))
    print(f"\n{outside} algorithm(s) outside 2 s.e.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
