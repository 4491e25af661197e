"""shuffle-glm's experiments (Table 2, Figure 1(a), 1(b)) at the paper's scale, and Algorithm 2's vectorised
policies against their per-run reference.

``--part presets``: runs the presets shuffle-glm/table2, fig1a, fig1b (10 runs each, the paper's horizons)
over ``--workers`` processes and prints, per algorithm and configuration, the simulation's seconds and
microseconds per round and run, then the wall-clock total (the budget: all three in under 10 minutes on 2
cores).

``--part speed``: JDP-GLM, Private-GLM and ShuffleGLM at Table 2's K = 20, d = 3 (S = 2, probit) with R = 10 runs:
microseconds per round and run of the vectorised policy (all runs at once) and of the per-run reference
(:func:`~dpaudit.algorithms.glm.algorithm2_reference.algorithm2_one_run`,
:func:`~dpaudit.algorithms.glm.shuffle_glm_reference.shuffle_glm_one_run`, replaying the policy's recorded
draws, one run at a time; its optimizer outputs are replayed, so its time leaves the optimizer out), side by
side with their ratio. Run:

    python benchmarks/shuffle_glm_experiments.py [--part presets|speed|both] [--workers 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

import dpaudit
from dpaudit.algorithms.environments.glm import GLMBandit
from dpaudit.algorithms.glm.algorithm2_reference import algorithm2_one_run
from dpaudit.algorithms.glm.jdp_glm import JDPGLM
from dpaudit.algorithms.glm.private_glm import PrivateGLM
from dpaudit.algorithms.glm.shuffle_glm import ShuffleGLM
from dpaudit.algorithms.glm.shuffle_glm_reference import shuffle_glm_one_run


def presets(args: argparse.Namespace) -> None:
    out = args.out or tempfile.mkdtemp(prefix="shuffle-glm-")
    start = time.perf_counter()
    done = dpaudit.run_preset("shuffle-glm", out=out, workers=args.workers, progress=False)
    wall = time.perf_counter() - start
    print("| preset | configuration | algorithm | s | µs / (round run) | final pseudo-regret |")
    print("|---|---|---|---:|---:|---:|")
    per_algorithm: dict[str, float] = {}
    for (preset, config, label), res in sorted(done.results.items()):
        per_round = res.seconds / (res.horizon * res.runs) * 1e6
        per_algorithm[label.split(" eps=")[0]] = per_algorithm.get(label.split(" eps=")[0], 0.0) + res.seconds
        print(f"| {preset} | {config} | {label} | {res.seconds:.1f} | {per_round:.1f} | {res.mean()[-1]:.1f} |")
    print()
    print("| algorithm family | total s (all configurations) |")
    print("|---|---:|")
    for name, seconds in sorted(per_algorithm.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {seconds:.1f} |")
    print(f"\nall three presets: {wall:.1f} s wall clock on {args.workers} workers (results in {out})")


def _drive(policy, env, runs: int, horizon: int, seed: int):
    rng = np.random.default_rng(seed)
    inst = env.instances(runs, rng)
    contexts = np.stack([inst.contexts(rng) for _ in range(horizon)])
    table = np.stack([(rng.random(c.shape[:2]) < inst.expected(c)) for c in contexts], axis=1).astype(float)
    policy.start(runs, env.arms, horizon, rng)
    start = time.perf_counter()
    for t in range(1, horizon + 1):
        arms = policy.choose(t, contexts[t - 1])
        policy.observe(t, arms, table[np.arange(runs), t - 1, arms])
    return time.perf_counter() - start, contexts, table


def _reference_seconds(policy, contexts, table, runs: int) -> float:
    trace = policy.trace
    if isinstance(policy, ShuffleGLM):
        uniforms = np.stack(trace["uniforms"], axis=1)
        start = time.perf_counter()
        for r in range(runs):
            releases = [(W[r], None if theta is None else theta[r]) for W, theta in trace["releases"]]
            shuffle_glm_one_run(policy.config, policy, contexts[:, r], uniforms[r], releases)
        return time.perf_counter() - start
    noise_V, noise_H = np.stack(trace["noise_V"], axis=1), np.stack(trace["noise_H"], axis=1)
    start = time.perf_counter()
    for r in range(runs):
        fits = {(kind, t): out[list(idx).index(r)] for kind, t, idx, _, out in trace["fits"] if r in idx}
        algorithm2_one_run(policy.config, policy.link, contexts[:, r], table[r], noise_V[r], noise_H[r],
                           lambda kind, t, n, fits=fits: fits[(kind, t)])
    return time.perf_counter() - start


def speed(args: argparse.Namespace) -> None:
    runs, horizon = 10, args.speed_horizon
    env = GLMBandit(20, 3, 2.0, link="probit", generator="repository")
    print(f"K = 20, d = 3, probit, S = 2, R = {runs} runs, T = {horizon}; the reference replays the policy's draws")
    print("| algorithm | vectorised µs / (round run) | reference µs / (round run) | reference / vectorised |")
    print("|---|---:|---:|---:|")
    for label, policy in (("JDP-GLM eps=4", JDPGLM(4, 0.02, 0.01, 2.0, link="probit", record=True)),
                          ("Private-GLM eps=4", PrivateGLM(4, S=2.0, link="probit", record=True)),
                          ("ShuffleGLM eps=4", ShuffleGLM(4, S=2.0, link="probit", record=True))):
        vec_s, contexts, table = _drive(policy, env, runs, horizon, seed=0)
        ref_s = _reference_seconds(policy, contexts, table, runs)
        unit = 1e6 / (horizon * runs)
        print(f"| {label} | {vec_s * unit:.1f} | {ref_s * unit:.1f} | {ref_s / vec_s:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", choices=("presets", "speed", "both"), default="both")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None)
    parser.add_argument("--speed-horizon", type=int, default=1000)
    args = parser.parse_args()
    if args.part in ("speed", "both"):
        speed(args)
    if args.part in ("presets", "both"):
        presets(args)


if __name__ == "__main__":
    main()
