"""concurrent-shuffle's experiments. The paper has none (the spec's Section 5); the issue asks for one
that shows the k-shuffler counter's n^(1/(2k+1))-type summation error and Algorithm 4's regret for
k = 1 and k = log n. Two entries:

- ``concurrent-shuffle/linucb`` (a :class:`~dpaudit.bandits.experiments.Preset`): cumulative pseudo-regret of
  cs-linucb at k = 1 and k = log n, of its central-tree baseline and of non-private LinUCB, on a
  linear bandit with fresh contexts every round (the paper's setting is adversarial contexts; the
  ``LinearBandit`` paper generator draws them), K = 10, d = 5, n = 2^14, 10 runs, eps = 0.5 and
  delta = 0.1 (eps < 1, delta < 1/2: Theorem 5.1's range);
- ``concurrent-shuffle/summation`` (a study, :func:`summation`: not a bandit simulation, so it has its
  own small runner that ``dpaudit simulate`` reaches by name): the max-over-t error of Algorithm 3's
  binary counter (:class:`~dpaudit.mechanisms.counters.concurrent_shuffle.ConcurrentShuffleCounter`, M^sum_bin
  blocks at (eps/k, delta/k)) against n on the grid n = 2^6 .. 2^11, for k = 1, 2 and log n, with
  n^(1/(2k+1)) reference slopes through each curve's first point.

Choices (the paper has no experiment to follow): the counter's input is all ones (the largest
intra-batch error, d_low - 1); the tree shape is cs-linucb's (d = ceil(n^(2/(2k+1))), d_low =
ceil(n/d^k), padded to d_low d^k users, errors read at t <= n); k = log n is ceil(log2 n); the plotted
statistic is the median over runs of max_t |S_t - sum_{i<=t} b_i|, with the 10% and 90% quantiles in the
table. The grid stops at 2^11 because the counter holds its cover as a dense (n x blocks) matrix
(k = log n has ~2n blocks). At Theorem C.3's constants the private LinUCB's lam is of order 1e5-1e6
(P_Vec's noise at eps/k), so at simulable n its regret is close to linear: the preset shows that,
it does not show the asymptotic rate.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.algorithms.environments import LinearBandit
from dpaudit.bandits.experiments import Configuration, Curve, Preset

PAPER = "concurrent-shuffle"
EPS, DELTA = 0.5, 0.1
ARMS, DIMENSION = 10, 5
HORIZON, RUNS = 2**14, 10
SOURCE = "the issue's request (the paper has no experiments; the spec's Section 5)"
OBSERVATION = ("Theorem 5.1 / Corollary 5.2: regret O~(k^(3/4) n^((k+1)/(2k+1)) (sigma + d) / sqrt(eps)), O~(sqrt(n)) "
               "at k = log n; the central tree is O~(sqrt(n)) (Section 5's table). Not an observation of the paper.")
NOTES = (
    "Contexts: fresh every round from the LinearBandit paper generator (unit-norm features, means in [0, 1]); "
    "Bernoulli rewards (sub-Gaussian constant sigma = 1/2 in beta_t).",
    "cs-linucb's lam = 2 sigma~ sqrt d with sigma~ from P_Vec's noise at (eps/k, delta/k): of order 1e5-1e6 here, so "
    "the regret at these n is close to linear; the rate is asymptotic.",
    "Non-private LinUCB (lambda = 1, alpha = 1/T) for scale.",
)

LINUCB = Preset(
    PAPER, "linucb",
    f"Algorithm 4 (cs-linucb) at k = 1 and k = log n against the central tree, K = {ARMS}, d = {DIMENSION}, "
    f"eps = {EPS:g}, delta = {DELTA:g}",
    OBSERVATION, SOURCE, ("eps",),
    (Configuration((("eps", EPS),), LinearBandit(ARMS, DIMENSION, fresh_contexts=True), HORIZON, RUNS,
                   (Curve("cs-linucb k=1", "cs-linucb", {"eps": EPS, "delta": DELTA, "k": 1}),
                    Curve("cs-linucb k=log n", "cs-linucb", {"eps": EPS, "delta": DELTA, "k": "log n"}),
                    Curve("central tree", "cs-linucb-central", {"eps": EPS, "delta": DELTA}),
                    Curve("LinUCB (non-private)", "linucb", {}))),),
    metric="cumulative", notes=NOTES)

PRESETS = (LINUCB,)

# -- the summation study -----------------------------------------------------------------------------------

SUMMATION = f"{PAPER}/summation"
SUMMATION_RUNS = 200
SUMMATION_LARGEST = 2**11
SUMMATION_SMALLEST = 2**6
SHUFFLERS = (1, 2, "log n")


def summation_grid(largest: int) -> list[int]:
    """Powers of 2 from 2^6 up to ``largest`` (``largest`` alone when it is smaller)."""
    if largest < SUMMATION_SMALLEST:
        return [largest]
    return [2**e for e in range(6, int(math.log2(largest)) + 1)]


def max_errors(n: int, k: Any, runs: int, rng: np.random.Generator, eps: float = EPS, delta: float = DELTA
               ) -> tuple[np.ndarray, dict[str, Any]]:
    """max_{t <= n} |S_t - sum_{i <= t} b_i| of ``runs`` runs of Algorithm 3's counter on n all-ones
    users (padded tree), and its shape."""
    from dpaudit.algorithms.linear.cs_linucb import shuffler_count, tree_shape
    from dpaudit.mechanisms.counters.concurrent_shuffle import ConcurrentShuffleCounter

    shufflers = shuffler_count(k, n)
    N, d, d_low = tree_shape(n, shufflers)
    counter = ConcurrentShuffleCounter.tree(N, shufflers, eps, delta, d, d_low)
    ones = np.ones(N, dtype=int)
    errors = counter.errors(ones, runs, rng)[:, :n]
    return np.abs(errors).max(axis=1), {"shufflers": shufflers, "N": N, "d": d, "d_low": d_low,
                                        "batches": len(counter.batches)}


def summation(out: Any, runs: int | None = None, horizon: int | None = None, seed: int | None = None) -> list[Path]:
    """concurrent-shuffle summation study: Algorithm 3's counter error max_t |S_t - sum b| against n, k = 1, 2, log n.

    Writes summary.json, table.md and error-vs-n.png under ``out``/concurrent-shuffle/summation (module
    docstring); ``horizon`` is the grid's largest n, ``runs`` the runs per n."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = SUMMATION_RUNS if runs is None else runs
    grid = summation_grid(SUMMATION_LARGEST if horizon is None else horizon)
    rng = np.random.default_rng(0 if seed is None else seed)
    rows = []
    for k in SHUFFLERS:
        for n in grid:
            errors, shape = max_errors(n, k, runs, rng)
            rows.append({"k": str(k), "n": n, **shape, "median": float(np.median(errors)),
                         "q10": float(np.quantile(errors, 0.1)), "q90": float(np.quantile(errors, 0.9))})
    directory = Path(out) / PAPER / "summation"
    directory.mkdir(parents=True, exist_ok=True)
    summary = {"name": SUMMATION, "eps": EPS, "delta": DELTA, "runs": runs, "input": "all ones", "rows": rows}
    (directory / "summary.json").write_text(json.dumps(summary, indent=2))
    lines = [f"# {SUMMATION}: max_t |S_t - sum b| of Algorithm 3's counter (eps = {EPS:g}, delta = {DELTA:g}, "
             f"{runs} runs, all-ones input)", "",
             "| k | n | shufflers | N | d | d_low | median | 10% | 90% |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['k']} | {r['n']} | {r['shufflers']} | {r['N']} | "
              f"{r['d']} | {r['d_low']} | {r['median']:.4g} | {r['q10']:.4g} | {r['q90']:.4g} |" for r in rows]
    (directory / "table.md").write_text("\n".join(lines) + "\n")
    figure, axes = plt.subplots(figsize=(6.4, 4.4))
    for colour, k in zip(("C0", "C1", "C2"), SHUFFLERS, strict=True):
        mine = [r for r in rows if r["k"] == str(k)]
        ns = np.array([r["n"] for r in mine], dtype=float)
        medians = np.array([r["median"] for r in mine])
        axes.plot(ns, medians, "o-", color=colour, label=f"k = {k}")
        exponent = 1 / (2 * np.array([r["shufflers"] for r in mine]) + 1)
        reference = medians[0] * ns**exponent / ns[0] ** exponent[0]
        axes.plot(ns, reference, "--", color=colour, alpha=0.6, label=f"n^(1/(2k+1)), k = {k}")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("n (users)")
    axes.set_ylabel("median over runs of max_t |error|")
    axes.set_title("concurrent-shuffle: k-shuffler counter error vs n")
    axes.legend(fontsize=7)
    figure.tight_layout()
    plot = directory / "error-vs-n.png"
    figure.savefig(plot, dpi=120)
    plt.close(figure)
    return [directory / "summary.json", directory / "table.md", plot]


STUDIES = {SUMMATION: summation}

__all__ = ["PRESETS", "STUDIES", "max_errors", "summation", "summation_grid"]
