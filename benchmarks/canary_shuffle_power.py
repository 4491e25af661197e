"""How many training runs a canary audit needs to catch shuffled DP-SGD accounted as Poisson sampling: Chua et al.'s
example (one epoch of 1000 single-example batches, noise multiplier 0.8, zero-out neighbours, delta 1e-5), whose
Poisson-accounted epsilon (dp-accounting's RDP at rate 1/1000) is 1.16 while its certified epsilon is at least 5.235.

    python benchmarks/canary_shuffle_power.py [--runs 1000,3000,10000] [--seeds 3]

The loop is :class:`~dpaudit.mechanisms.training.canary_training.CanaryTraining` with the adversary's dataset of the
lower bound (``background="opposite"``: every other example's clipped gradient -C along the canary's direction, so a
present canary's step stands 2C above the rest and a zeroed one's C), every step observed; the score is that pair's
likelihood ratio (a mixture over the step the canary is in: MoG(2) against MoG(1)). For each number of runs per side
the script prints the seconds to simulate them, and per seed the many-run bound (``dpaudit.audit_canaries``, alpha
0.05) against the Poisson-accounted claim, with the ceiling those runs allow, and beside them what the best event
fixed in advance could do from as many runs, every one confirming it
(:mod:`dpaudit.auditors.canary_limits`): its mean bound and its probability of refuting the Poisson-accounted
claim, over the thresholds of the largest step (exact: P(max <= c) = Phi(c)^999 Phi(c - shift)) and over those of
the likelihood ratio (its law by Monte Carlo, ``--law-samples`` runs per side: an estimate, not a bound).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.special import log_ndtr, logsumexp

import dpaudit
from dpaudit.auditors.canary_limits import best_event_bound, best_event_refutation, many_run_limit
from dpaudit.auditors.dpsgd import rdp_epsilon
from dpaudit.core.dpsgd import DPSGDConfig, PoissonBatches, ShuffledBatches
from dpaudit.mechanisms.training.canary_training import CanaryTraining

SIGMA, DELTA = 0.8, 1e-5
CONFIG = DPSGDConfig(ShuffledBatches(1, 1000), SIGMA, epochs=1, relation="zero-out")


def likelihood_ratio(steps: np.ndarray) -> np.ndarray:
    """log of MoG(2) over MoG(1) (in units of the clip norm C = 1) of each run's 1000 step values, the background -C
    shifted to 0."""
    u = steps + 1.0
    return logsumexp((2 * u - 2) / SIGMA**2, axis=1) - logsumexp((u - 0.5) / SIGMA**2, axis=1)


def max_events() -> list[tuple[np.ndarray, np.ndarray]]:
    """The rates of the largest step's thresholds, both orders: ({max > c} present first, {max <= c} zeroed first).
    In noise units the present canary's step is shifted by 2 C / sigma, the zeroed one's by C / sigma."""
    c = np.linspace(0.0, 10.0, 400)
    batches = CONFIG.sampler.steps_per_epoch
    log_present = (batches - 1) * log_ndtr(c) + log_ndtr(c - 2 / SIGMA)  # log P(max <= c), canary present
    log_zeroed = (batches - 1) * log_ndtr(c) + log_ndtr(c - 1 / SIGMA)
    return [(-np.expm1(log_present), -np.expm1(log_zeroed)), (np.exp(log_zeroed), np.exp(log_present))]


def simulated_steps(present: bool, runs: int, rng: np.random.Generator) -> np.ndarray:
    """The loop's steps along the canary's direction drawn from their law directly (the loop is tested to draw
    this law: tests/test_canary_training.py): -C + N(0, sigma^2) each, the step holding the canary (uniform) 2C
    higher if it is present, C if zeroed out."""
    steps = rng.normal(0.0, SIGMA, (runs, CONFIG.sampler.steps_per_epoch)) - 1.0
    steps[np.arange(runs), rng.integers(0, steps.shape[1], runs)] += 2.0 if present else 1.0
    return steps


def likelihood_ratio_samples(samples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The likelihood ratio (the pair's privacy loss) of ``samples`` runs per side, canary in and zeroed, sorted."""
    chunks = [min(20_000, samples - i) for i in range(0, samples, 20_000)]
    inside = np.sort(np.concatenate([likelihood_ratio(simulated_steps(True, n, rng)) for n in chunks]))
    outside = np.sort(np.concatenate([likelihood_ratio(simulated_steps(False, n, rng)) for n in chunks]))
    return inside, outside


def likelihood_ratio_events(inside: np.ndarray, outside: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The likelihood ratio's thresholds' rates, both orders, from sorted samples of it on each side."""
    samples = len(inside)
    taus = np.quantile(np.concatenate([inside, outside]), 1 - np.geomspace(1e-5, 1.0, 300), method="higher")
    above_in = 1 - np.searchsorted(inside, taus) / samples
    above_out = 1 - np.searchsorted(outside, taus) / len(outside)
    return [(above_in, above_out), (1 - above_out, 1 - above_in)]


def best_fixed_event(events: list[tuple[np.ndarray, np.ndarray]], runs: int, claim: float) -> tuple[float, float]:
    """(the largest mean bound, the largest probability of refuting ``claim``) of an event among ``events``."""
    bound = max(best_event_bound(p, q, runs, runs, DELTA, 0.05)["epsilon"] for p, q in events)
    power = max(best_event_refutation(p, q, runs, runs, DELTA, 0.05, claim)["probability"] for p, q in events)
    return bound, power


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="1000,3000,10000", help="runs per side, comma-separated")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--law-samples", type=int, default=200_000,
                        help="simulated runs per side for the likelihood ratio's law (0: skip)")
    args = parser.parse_args()
    poisson = rdp_epsilon(DPSGDConfig(PoissonBatches(0.001), SIGMA, steps=1000, relation="zero-out"), DELTA)
    bracket = dpaudit.certify_dpsgd(CONFIG, delta=DELTA)
    print(f"{CONFIG.describe()}: certified epsilon at {DELTA:g} in [{bracket.eps_lower:.3f}, {bracket.eps_upper:.3f}];"
          f" accounted as Poisson sampling (dp-accounting's RDP at q = 1/1000): {poisson:.3f}")
    loop = CanaryTraining(np.zeros((999, 1)), np.zeros(999), CONFIG, background="opposite")
    claim = dpaudit.ApproxDP(poisson, DELTA)
    start = time.perf_counter()
    losses = likelihood_ratio_samples(args.law_samples, np.random.default_rng(10**6)) if args.law_samples else None
    ratio_events = likelihood_ratio_events(*losses) if losses else None
    print(f"the best event fixed in advance, every run confirming it (mean bound / probability of refuting "
          f"{poisson:.3f}); the likelihood ratio's law from {args.law_samples} runs per side "
          f"({time.perf_counter() - start:.0f} s):")
    print(f"{'runs per side':>13}  {'largest step (exact)':>22}  {'likelihood ratio (Monte Carlo)':>30}  "
          "any test against the clipped member (Monte Carlo)")
    for runs in (int(r) for r in args.runs.split(",")):
        top = best_fixed_event(max_events(), runs, poisson)
        ratio = best_fixed_event(ratio_events, runs, poisson) if ratio_events else (math.nan, math.nan)
        limit = many_run_limit(*losses, runs, poisson, 0.05, 4000, np.random.default_rng(runs))["power"] \
            if losses else math.nan
        print(f"{runs:>13}  {top[0]:>12.3f} / {top[1]:<7.3f}  {ratio[0]:>20.3f} / {ratio[1]:<7.3f}  {limit:>10.3f}")
    print("dpaudit's many-run audit:")
    print(f"{'runs per side':>13} {'seconds':>8}  bounds (seed: bound, verdict)  ceiling")
    for runs in (int(r) for r in args.runs.split(",")):
        cells, ceiling, seconds = [], 0.0, 0.0
        for seed in range(args.seeds):
            rng = np.random.default_rng(seed)
            start = time.perf_counter()
            inside = likelihood_ratio(loop.scores(runs, True, rng, statistic="all"))
            outside = likelihood_ratio(loop.scores(runs, False, rng, statistic="all"))
            seconds += time.perf_counter() - start
            res = dpaudit.audit_canaries(inside, outside, claim, seed=seed)
            cells.append(f"{seed}: {res.epsilon_lower:.3f} {res.verdict}")
            ceiling = res.parameters["ceiling"]
        print(f"{runs:>13} {seconds / args.seeds:>8.1f}  " + "; ".join(cells) + f"  {ceiling:.3f}")


if __name__ == "__main__":
    main()
