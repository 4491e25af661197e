"""Seconds for a certified Poisson DP-SGD bracket, beside dp_accounting's PLD at equal width.

    python benchmarks/dpsgd_bracket_speed.py [--repeats 3] [--limit 120] [--coarser 4] [--quick]

For Poisson sampling at rate q in 1e-3, 1e-2, 0.1 and noise multiplier z in 0.8, 1, 2, 1000 steps, add-remove,
delta = 1e-5:

- dpaudit: ``certify(config, delta=1e-5)`` (both bounds, both orders of the datasets), at the knot
  ``choose_knot`` picks and at one ``--coarser`` times coarser; its width is eps_upper - eps_lower. Its step caches
  are cleared before every timing, so each is a cold computation.
- dp_accounting: ``from_gaussian_mechanism(z, sampling_prob=q, value_discretization_interval=d)``, pessimistic
  (connect-the-dots) and optimistic (privacy buckets, its only optimistic construction), each ``self_compose(1000)``
  and ``get_epsilon_for_delta(1e-5)``; its width is pessimistic - optimistic. d = 1e-3, 1e-4, ... until the width is
  at most dpaudit's at its default knot, or the next d's time, predicted from the last two, would pass ``--limit``
  seconds.

Each time is the median of ``--repeats`` timings (one where a single run is predicted above 20 s), wall-clock and
CPU. dp_accounting runs on one thread; dpaudit's CPU seconds may exceed its wall seconds (numpy's FFT and scipy use
a second thread at times). The CPU seconds are the fair comparison on a shared machine, and charge dpaudit for
every thread. The table gives, for each of dpaudit's two knots, dp_accounting's first d whose width is at most
dpaudit's, its seconds and the ratio of CPU seconds (dp_accounting's over dpaudit's; above 1: dpaudit is faster).
Where no d reached it, the nearest reachable width is given with its seconds, and the time at equal width
extrapolated (its width is linear in d; its time a power of d fitted to its last two points), marked "~". "in"
says whether dp_accounting's two values lie in dpaudit's certified bracket (optimistic <= eps_upper, pessimistic >=
eps_lower).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import NamedTuple

from _timing import rate  # benchmarks/ is on sys.path when a script runs

from dpaudit.core.dpsgd import DPSGDConfig, PoissonBatches
from dpaudit.exact.accounting import brackets, certify

RATES = (1e-3, 1e-2, 0.1)
NOISE = (0.8, 1.0, 2.0)
STEPS, DELTA = 1000, 1e-5
INTERVALS = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)
#: a single run predicted above this many seconds is timed once
LONG = 20.0


def seconds(call, repeats: int):
    """(median wall-clock seconds of ``call()`` over ``repeats`` runs by _timing.rate, the median of its CPU
    seconds over all its threads, its last result)."""
    out, cpu = [], []

    def run(_n):
        start = time.process_time()
        out.append(call())
        cpu.append(time.process_time() - start)

    wall = 1.0 / rate(run, 1, repeats)
    return wall, statistics.median(cpu), out[-1]


def dpaudit_bracket(q: float, z: float, knot: float) -> tuple[float, float]:
    """(eps_lower, eps_upper) of the certified bracket, cold: the per-step caches cleared first."""
    for cached in (brackets._poisson, brackets._fixed_size, brackets._with_replacement, brackets._allocated):
        cached.cache_clear()
    b = certify(DPSGDConfig(PoissonBatches(q), z, steps=STEPS), delta=DELTA, knot=knot)
    return b.eps_lower, b.eps_upper


def dp_accounting_pair(q: float, z: float, interval: float) -> tuple[float, float]:
    """(optimistic, pessimistic) eps(delta) of dp_accounting's PLD at ``interval``."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    values = []
    for pessimistic in (False, True):
        one = pld.from_gaussian_mechanism(z, sampling_prob=q, value_discretization_interval=interval,
                                          pessimistic_estimate=pessimistic, use_connect_dots=pessimistic)
        values.append(one.self_compose(STEPS).get_epsilon_for_delta(DELTA))
    return values[0], values[1]


class Measured(NamedTuple):
    interval: float
    seconds: float
    cpu: float
    optimistic: float
    pessimistic: float

    @property
    def width(self) -> float:
        return self.pessimistic - self.optimistic


def dp_accounting_until(q: float, z: float, width: float, repeats: int, limit: float,
                        intervals=INTERVALS) -> tuple[list[Measured], str]:
    """dp_accounting at each interval in turn until its width is at most ``width`` (or the next is predicted
    beyond ``limit`` seconds); the runs and why it stopped."""
    runs: list[Measured] = []
    for interval in intervals:
        predicted = 0.0
        if len(runs) >= 2:
            predicted = runs[-1].seconds * runs[-1].seconds / max(runs[-2].seconds, 1e-3)
        elif runs:
            predicted = runs[-1].seconds * 10
        if predicted > limit:
            return runs, f"next interval {interval:g} predicted at {predicted:.0f} s > {limit:g} s"
        t, cpu, (opt, pess) = seconds(lambda interval=interval: dp_accounting_pair(q, z, interval),
                                      1 if predicted > LONG else repeats)
        runs.append(Measured(interval, t, cpu, opt, pess))
        if runs[-1].width <= width:
            return runs, "reached"
    return runs, "finest interval tried"


def extrapolated_seconds(runs: list[Measured], width: float) -> float:
    """dp_accounting's CPU seconds at ``width``: the interval giving it (width linear in the interval), its time a
    power of the interval through the last two runs."""
    if len(runs) < 2:
        return math.nan
    a, b = runs[-2], runs[-1]
    needed = b.interval * width / b.width
    power = math.log(b.cpu / a.cpu) / math.log(a.interval / b.interval)
    return b.cpu * (b.interval / needed) ** power


def row(q: float, z: float, coarser: int, repeats: int, limit: float, intervals=INTERVALS) -> list[str]:
    knot = brackets.choose_knot(DPSGDConfig(PoissonBatches(q), z, steps=STEPS))
    ours = []
    for h in (knot, knot * coarser):
        t, cpu, (lo, hi) = seconds(lambda h=h: dpaudit_bracket(q, z, h), repeats)
        ours.append((h, t, cpu, lo, hi))
    target = min(hi - lo for *_, lo, hi in ours)
    runs, why = dp_accounting_until(q, z, target, repeats, limit, intervals)
    lines = []
    for h, t, cpu, lo, hi in ours:
        width = hi - lo
        hit = next((r for r in runs if r.width <= width), None)
        if hit is not None:
            theirs = f"{hit.interval:g} | {hit.width:.2e} | {hit.seconds:.2f} / {hit.cpu:.2f}"
            ratio = f"{hit.cpu / cpu:.1f}x"
            inside = hit.optimistic <= hi and hit.pessimistic >= lo
        else:
            last = runs[-1]
            extra = extrapolated_seconds(runs, width)
            theirs = f"{last.interval:g} (not reached: {why}) | {last.width:.2e} | {last.seconds:.2f} / {last.cpu:.2f}"
            ratio = f"{last.cpu / cpu:.1f}x at {last.width / width:.0f}x the width; ~{extra / cpu:.0f}x at equal"
            inside = last.optimistic <= hi and last.pessimistic >= lo
        lines.append(f"| {q:g} | {z:g} | 2^{int(math.log2(h))} | [{lo:.6f}, {hi:.6f}] | {width:.2e} | {t:.2f} / "
                     f"{cpu:.2f} | {theirs} | {ratio} | {'yes' if inside else 'NO'} |")
    return lines


HEADER = ("| q | z | knot | dpaudit eps(1e-5) | width | dpaudit s (wall / CPU) | dp_accounting interval | its width | "
          "dp_accounting s (wall / CPU) | ratio of CPU s (dp_accounting / dpaudit) | in |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=float, default=120.0, help="seconds for one dp_accounting interval")
    parser.add_argument("--coarser", type=int, default=4, help="dpaudit's second knot: this many times the default")
    parser.add_argument("--quick", action="store_true", help="one configuration (q = 0.01, z = 2), one repeat, "
                                                             "dp_accounting to 1e-4 (a check that it runs)")
    args = parser.parse_args(argv)
    configs = [(q, z) for q in RATES for z in NOISE]
    intervals, repeats, limit = INTERVALS, args.repeats, args.limit
    if args.quick:
        configs, intervals, repeats, limit = [(1e-2, 2.0)], INTERVALS[:2], 1, 10.0
    print(f"Poisson DP-SGD, {STEPS} steps, add-remove, delta = {DELTA:g}; median of {repeats} timing(s); "
          f"dp_accounting up to {limit:g} s per interval")
    print(HEADER)
    print("|" + "|".join(["---"] * (HEADER.count("|") - 1)) + "|")
    for q, z in configs:
        for text in row(q, z, args.coarser, repeats, limit, intervals):
            print(text, flush=True)


if __name__ == "__main__":
    main()
