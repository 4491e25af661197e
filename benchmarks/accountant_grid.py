"""Privacy accountants differentially tested against dpaudit's certified brackets, over a grid of DP-SGD runs.

    python benchmarks/accountant_grid.py [--points 240 | --full] [--seed 0] [--workers 2]
        [--scheduler ADDRESS] [--opacus-python PYTHON] [--out accountant-grid.csv] [--witnesses 5]
        [--resume] [--report] [--plot grid.png]

For each point of the grid (a DP-SGD configuration and a delta) the script certifies eps(delta) in [eps_lower,
eps_upper] (:func:`dpaudit.exact.accounting.certify`, once per point, shared by every accountant) and asks every
accountant for its epsilon: dp-accounting's PLD (pessimistic and optimistic) and RDP, prv-accountant (its upper and
lower values, at eps_error 0.1), autodp's RDP (the adapters of :mod:`dpaudit.adapters.accountants`) and, with
``--opacus-python``, Opacus's RDP, GDP and PRV accountants (benchmarks/opacus_driver.py under that interpreter, one
with torch and opacus: python -m venv V; V/bin/pip install torch==2.13.0 opacus). A value is judged by what it claims:

- an upper bound (every accountant's main value) is **refuted** when it is below eps_lower; a lower bound (the
  optimistic PLD, prv-accountant's lower value) when it is above eps_upper, on Poisson runs only (asked as Poisson
  about a shuffled run, it bounds the Poisson run's epsilon from below, which says nothing about the shuffled
  one). The witness is the point and its bracket (and which pair of datasets, in which order, realises the lower
  bound);
- an exception is a crash, a non-finite value is counted as such, a negative epsilon as negative;
- **non-monotone**: at fixed sampler, noise, relation and delta an epsilon that falls as steps grow, or at fixed
  steps one that rises as delta grows (beyond a relative 1e-6);
- how conservative an upper bound is: eps_acc - eps_upper where eps_upper is finite (median and max per accountant).

The grid: noise multiplier z in 12 log-spaced values over [0.3, 10], sample rate q in 10 over [1e-4, 0.5], steps in
{1, 10, ..., 10^5}, delta in {1e-12, 1e-10, ..., 1e-2}; Poisson sampling under add-remove and replace-one, and
shuffled batches (batch round(q n) of n = 100000, reshuffled every epoch, the partial batch dropped; 1 to 10^4
epochs, at most 10^5 steps) under zero-out and replace-one, every accountant reading those as Poisson sampling at
rate batch / n (``assume_poisson``), as TF-Privacy's compute_dp_sgd_privacy and Opacus do. Points whose epsilon is
plainly beyond any claim are left out: a normal approximation of the composed privacy loss of the Poisson run (its
mean and variance per step by quadrature) above 100. Their certification costs minutes each and the accountants
struggle there too (dp-accounting's PLD takes 30 s at eps 10^4, prv-accountant asks for 32 GB). The full grid
(``--full``) keeps 11,648 points; ``--points N`` takes whole (sampler, noise, relation) groups in a random order
(``--seed``) until N points, so that every group keeps its steps and deltas for the monotonicity checks.

Cost: certifying a point takes 0.1 to 20 s (it grows with eps and with replace-one and shuffled batches); the
accountants add about a second per point and Opacus's three another second or two (its PRV is the slowest). On 2
cores the full grid took about 6 hours, measured (7.6 core-hours certifying, median 0.79 s per point, and 4.5 in the
accountants); on a Dask cluster (``--scheduler tcp://host:8786``, or ``local:N``) it spreads by group (the workers
need dpaudit, the three libraries and, for Opacus, the interpreter at the same path).
Each worker caps its address space at ``--memory-gb`` (default 8), so that a computation that would exhaust the
machine raises MemoryError and is recorded as a crash of that accountant (or an uncertified point).

Output: the CSV (``--out``, rewritten whole after every group, so that ``--resume`` continues a stopped run) has
one row per point and accountant; the summary table per accountant; the worst refutations per accountant with their
points and brackets (``--witnesses``); the measured rate; and with ``--plot`` a figure, one panel per accountant, of
its epsilon over the end of the bracket it is judged against. ``--report`` prints the summary (and the figure) of
the rows ``--out`` holds, judged afresh.
"""

# no ``from __future__ import annotations``: the dataclasses below would then look their module up in sys.modules,
# which a script loaded by path (tests/test_benchmark_scripts.py) is not in
import argparse
import csv
import functools
import json
import math
import os
import random
import resource
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from opacus_driver import require_interpreter  # benchmarks/ is on sys.path when a script runs
from scipy import special

from dpaudit.adapters import accountants as adapters
from dpaudit.core.dpsgd import ADD_REMOVE, REPLACE_ONE, ZERO_OUT, DPSGDConfig, PoissonBatches, ShuffledBatches

NOISES = tuple(float(f"{v:.4g}") for v in np.geomspace(0.3, 10.0, 12))
RATES = tuple(float(f"{v:.4g}") for v in np.geomspace(1e-4, 0.5, 10))
STEPS = (1, 10, 100, 1_000, 10_000, 100_000)
EPOCHS = (1, 10, 100, 1_000, 10_000)
DELTAS = (1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2)
SIZE = 100_000  # the shuffled runs' dataset
EPS_CAP = 100.0  # points whose approximate epsilon is above this are left out (module docstring)
TOLERANCE = 1e-6  # relative slack of the monotonicity checks
OPACUS = ("opacus-rdp", "opacus-gdp", "opacus-prv")
DRIVER = Path(__file__).with_name("opacus_driver.py")


@dataclass(frozen=True)
class Point:
    """One configuration and delta of the grid."""

    family: str  # "poisson" | "shuffle"
    noise: float
    rate: float  # the Poisson rate; for shuffled batches batch / size
    steps: int
    delta: float
    relation: str
    batch: int = 0
    size: int = 0

    def config(self) -> DPSGDConfig:
        if self.family == "poisson":
            return DPSGDConfig(PoissonBatches(self.rate), self.noise, steps=self.steps, relation=self.relation)
        return DPSGDConfig(ShuffledBatches(self.batch, self.size), self.noise, steps=self.steps,
                           relation=self.relation)

    @property
    def group(self) -> tuple:
        """The points that share everything but steps and delta."""
        return self.family, self.noise, self.rate, self.relation, self.batch, self.size

    def describe(self) -> str:
        sampler = (f"Poisson q={self.rate:g}" if self.family == "poisson"
                   else f"shuffled {self.batch} of {self.size} (as Poisson q={self.rate:g})")
        return f"{sampler}, z={self.noise:g}, {self.steps} steps, delta={self.delta:g}, {self.relation}"


# -- choosing the grid ------------------------------------------------------------------------------------------


@functools.cache
def loss_moments(q: float, z: float, relation: str) -> list[tuple[float, float]]:
    """Mean and variance of one Poisson step's privacy loss under its first distribution, for each order of the
    dominating pair (add-remove: (1-q) N(0) + q N(1) against N(0), and its reverse; replace-one: against
    (1-q) N(0) + q N(-1)), in units of the clip norm with noise std z; by quadrature on a fine grid."""
    shift = -1.0 if relation == REPLACE_ONE else None
    x = np.linspace(-1 - 14 * z, 2 + 14 * z, 40001)

    def log_mix(means_weights):
        parts = [np.log(w) - 0.5 * ((x - m) / z) ** 2 for m, w in means_weights if w > 0]
        total = parts[0] if len(parts) == 1 else np.logaddexp(parts[0], parts[1])
        return total - math.log(z * math.sqrt(2 * math.pi))

    p = log_mix([(0.0, 1 - q), (1.0, q)])
    other = log_mix([(0.0, 1 - q), (shift, q)]) if shift is not None else log_mix([(0.0, 1.0)])
    out = []
    for first, second in ((p, other), (other, p)):
        weights = np.exp(first - first.max())
        weights /= weights.sum()
        loss = first - second
        mean = float(np.sum(weights * loss))
        out.append((mean, float(np.sum(weights * (loss - mean) ** 2))))
    return out


def approximate_epsilon(q: float, z: float, steps: int, delta: float, relation: str) -> float:
    """A normal approximation of the epsilon of ``steps`` Poisson steps: the larger over the pair's orders of
    steps * mean + sqrt(steps * var) * Phi^-1(1 - delta). Used only to leave out hopeless points."""
    tail = -float(special.ndtri(delta))  # Phi^-1(1 - delta)
    return max(steps * m + math.sqrt(steps * v) * tail for m, v in loss_moments(q, z, relation))


def full_grid() -> list[Point]:
    """Every point of the grid (module docstring), in group order."""
    points = []
    for z in NOISES:
        for q in RATES:
            for relation in (ADD_REMOVE, REPLACE_ONE):
                points += [Point("poisson", z, q, k, d, relation) for k in STEPS for d in DELTAS
                           if approximate_epsilon(q, z, k, d, relation) <= EPS_CAP]
            batch = max(1, round(q * SIZE))
            per_epoch = SIZE // batch
            steps = [e * per_epoch for e in EPOCHS if e * per_epoch <= STEPS[-1]]
            for relation in (ZERO_OUT, REPLACE_ONE):
                points += [Point("shuffle", z, batch / SIZE, k, d, relation, batch, SIZE) for k in steps for d in DELTAS
                           if approximate_epsilon(batch / SIZE, z, k, d, relation) <= EPS_CAP]
    return points


def choose(points: Sequence[Point], count: int | None, seed: int) -> list[Point]:
    """``count`` points taken as whole groups in a random order (all when ``count`` is None)."""
    if count is None or count >= len(points):
        return list(points)
    groups: dict[tuple, list[Point]] = defaultdict(list)
    for p in points:
        groups[p.group].append(p)
    keys = list(groups)
    random.Random(seed).shuffle(keys)
    out: list[Point] = []
    for key in keys:
        if len(out) >= count:
            break
        out += groups[key][: count - len(out)]
    return out


# -- judging one value -------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One point and one accountant."""

    point: Point
    accountant: str
    bound: str
    eps: float | None = None
    error: str = ""
    eps_lower: float | None = None
    eps_upper: float | None = None
    witness: str = ""
    certify_seconds: float = 0.0
    seconds: float = 0.0
    refuted: bool = False
    negative: bool = False
    nonfinite: bool = False
    nonmonotone_steps: bool = False
    nonmonotone_delta: bool = False

    @property
    def crashed(self) -> bool:
        return bool(self.error)

    @property
    def gap(self) -> float | None:
        """eps_acc - eps_upper for an upper bound whose bracket is finite (how conservative it is)."""
        if self.bound != adapters.UPPER or self.eps is None or not math.isfinite(self.eps) or \
                self.eps_upper is None or not math.isfinite(self.eps_upper):
            return None
        return self.eps - self.eps_upper

    def margin(self) -> float:
        """How far a refuted value lies outside the bracket, relative to the bound it breaks."""
        if not self.refuted or self.eps is None:
            return 0.0
        if self.bound == adapters.UPPER:
            return (self.eps_lower - self.eps) / max(self.eps_lower, 1e-12)
        return (self.eps - self.eps_upper) / max(self.eps_upper, 1e-12)


def judge(row: Row) -> Row:
    """Set the row's flags from its value and bracket (module docstring)."""
    if row.crashed or row.eps is None:
        return row
    row.nonfinite = not math.isfinite(row.eps)
    row.negative = row.eps < 0
    if row.eps_lower is None or math.isnan(row.eps):
        return row
    if row.bound == adapters.UPPER:
        row.refuted = row.eps < row.eps_lower
    elif row.bound == adapters.LOWER and row.point.family == "poisson":
        # a lower value asked as Poisson is a lower bound on the Poisson run's epsilon, which may exceed the
        # shuffled run's (an example can be in several Poisson batches of an epoch): no claim about this run
        row.refuted = row.eps_upper is not None and row.eps > row.eps_upper
    return row


def mark_monotonicity(rows: Iterable[Row]) -> None:
    """Flag values that fall as steps grow (fixed delta) or rise as delta grows (fixed steps)."""
    def values(key: Callable[[Row], tuple], order: Callable[[Row], float]) -> dict[tuple, list[Row]]:
        groups: dict[tuple, list[Row]] = defaultdict(list)
        for r in rows_list:
            if not r.crashed and r.eps is not None and math.isfinite(r.eps):
                groups[key(r)].append(r)
        return {k: sorted(v, key=order) for k, v in groups.items()}

    rows_list = list(rows)
    for seq in values(lambda r: (r.accountant, r.point.group, r.point.delta), lambda r: r.point.steps).values():
        high = -math.inf
        for r in seq:
            if r.eps < high - TOLERANCE * max(1.0, abs(high)):
                r.nonmonotone_steps = True
            high = max(high, r.eps)
    for seq in values(lambda r: (r.accountant, r.point.group, r.point.steps), lambda r: r.point.delta).values():
        low = math.inf
        for r in seq:
            if r.eps > low + TOLERANCE * max(1.0, abs(low)):
                r.nonmonotone_delta = True
            low = min(low, r.eps)


# -- evaluating a group ------------------------------------------------------------------------------------------


#: prv-accountant's eps_error in the grid: 0.1, "typically around 0.1" in its docstring (the adapter's default, Opacus's
#: 0.01, makes its domain ten times finer and its runs up to minutes a point at 10^5 steps; Opacus's own PRV
#: accountant, run at 0.01, is in the grid beside it)
PRV_EPS_ERROR = 0.1


def default_accountants() -> list[Any]:
    """The adapters of dpaudit.adapters.accountants, each reading shuffled runs as Poisson sampling."""
    return [adapters.DPAccountingPLD(assume_poisson=True), adapters.DPAccountingPLD(pessimistic=False,
                                                                                   assume_poisson=True),
            adapters.DPAccountingRDP(assume_poisson=True),
            adapters.PRVAccountant(eps_error=PRV_EPS_ERROR, assume_poisson=True),
            adapters.PRVAccountant(eps_error=PRV_EPS_ERROR, report=adapters.LOWER, assume_poisson=True),
            adapters.AutoDP(assume_poisson=True)]


def _limit_memory(gb: float) -> None:
    if gb > 0:
        cap = int(gb * 2**30)
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft > cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


@functools.lru_cache(maxsize=4096)
def certified(config: DPSGDConfig, delta: float) -> tuple[float, float, str, float] | str:
    """The certified bracket of a point, cached by configuration and delta: (eps_lower, eps_upper, witness,
    seconds), or the error text."""
    from dpaudit.exact.accounting import certify

    start = time.perf_counter()
    try:
        bracket = certify(config, delta=delta)
    except Exception as exc:  # noqa: BLE001 - an uncertified point is reported, not fatal
        return f"{type(exc).__name__}: {exc}"
    w = bracket.witness
    witness = f"{w.get('order', '')}: {'; '.join(w.get('pairs', []))}"
    return bracket.eps_lower, bracket.eps_upper, witness, time.perf_counter() - start


def opacus_values(points: Sequence[Point], python: str, memory_gb: float) -> list[dict[str, Any]]:
    """Opacus's three accountants at each point (benchmarks/opacus_driver.py under ``python``)."""
    payload = [[p.noise, p.rate, p.steps, p.delta] for p in points]
    done = subprocess.run([python, str(DRIVER), "--memory-gb", str(memory_gb)], input=json.dumps(payload),
                          capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return [{name: {"error": f"driver failed: {last}"} for name in ("rdp", "gdp", "prv")} for _ in points]
    return json.loads(done.stdout)["results"]


def _as_float(value: Any) -> float:
    return float(value) if not isinstance(value, str) else float(value.replace("inf", "Infinity"))


def evaluate(points: Sequence[Point], accountants: Sequence[Any] | None = None, opacus_python: str | None = None,
             memory_gb: float = 0.0) -> list[Row]:
    """Every accountant at every point of ``points`` (typically one group), each point certified once."""
    _limit_memory(memory_gb)
    accountants = default_accountants() if accountants is None else accountants
    rows: list[Row] = []
    for p in points:
        config = p.config()
        found = certified(config, p.delta)
        if isinstance(found, str):
            rows.append(Row(p, "certify", "", error=found))
            continue
        lo, hi, witness, seconds = found
        for acc in accountants:
            ok, _ = acc.supports(config)
            if not ok:
                continue
            row = Row(p, acc.name, acc.bound, eps_lower=lo, eps_upper=hi, witness=witness, certify_seconds=seconds)
            start = time.perf_counter()
            try:
                row.eps = float(acc.epsilon(config, p.delta))
            except Exception as exc:  # noqa: BLE001 - a crash is a finding
                row.error = f"{type(exc).__name__}: {exc}"[:300]
            row.seconds = time.perf_counter() - start
            rows.append(judge(row))
    if opacus_python:
        usable = [p for p in points if p.relation != REPLACE_ONE and not isinstance(certified(p.config(), p.delta),
                                                                                    str)]
        start = time.perf_counter()
        results = opacus_values(usable, opacus_python, memory_gb) if usable else []
        each = (time.perf_counter() - start) / max(1, len(usable))
        for p, result in zip(usable, results):
            lo, hi, witness, seconds = certified(p.config(), p.delta)
            for name in ("rdp", "gdp", "prv"):
                value = result.get(name) if isinstance(result, dict) else None
                row = Row(p, f"opacus-{name}", adapters.UPPER, eps_lower=lo, eps_upper=hi, witness=witness,
                          certify_seconds=seconds, seconds=each / 3)
                if isinstance(value, dict) or value is None:
                    row.error = (value or {}).get("error", "no result")[:300] if isinstance(value, dict) else \
                        "no result"
                else:
                    row.eps = _as_float(value)
                rows.append(judge(row))
    return rows


# -- running -------------------------------------------------------------------------------------------------------


def _groups(points: Sequence[Point]) -> list[list[Point]]:
    groups: dict[tuple, list[Point]] = defaultdict(list)
    for p in points:
        groups[p.group].append(p)
    return list(groups.values())


def run_local(groups: list[list[Point]], workers: int, task: Callable[[list[Point]], list[Row]],
              progress: Callable[[list[Row]], None]) -> None:
    if workers <= 1:
        for g in groups:
            progress(task(g))
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(workers) as pool:
        for future in as_completed([pool.submit(task, g) for g in groups]):
            progress(future.result())


def run_dask(groups: list[list[Point]], scheduler: str, task: Callable[[list[Point]], list[Row]],
             progress: Callable[[list[Row]], None]) -> None:
    from dpaudit.runner.dask import connect, disconnect

    client, cluster = connect(scheduler)
    try:
        from distributed import as_completed

        for future in as_completed([client.submit(task, g, pure=False) for g in groups]):
            progress(future.result())
    finally:
        disconnect(client, cluster)


FIELDS = ("family", "noise", "rate", "batch", "size", "steps", "delta", "relation", "accountant", "bound", "eps",
          "error", "eps_lower", "eps_upper", "refuted", "negative", "nonfinite", "nonmonotone_steps",
          "nonmonotone_delta", "certify_seconds", "seconds", "witness")


def write_csv(rows: Sequence[Row], path: Path) -> None:
    """All of ``rows`` to ``path``, by way of a file beside it renamed over it: a run stopped while writing (a
    long run is often stopped) leaves the previous CSV whole for ``--resume``."""
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, FIELDS)
            writer.writeheader()
            for r in rows:
                record = {**asdict(r.point), **{k: getattr(r, k) for k in FIELDS if hasattr(r, k) and k not in
                                                ("family", "noise", "rate", "batch", "size", "steps", "delta",
                                                 "relation")}}
                writer.writerow({k: record.get(k, "") for k in FIELDS})
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def read_csv(path: Path) -> list[Row]:
    """The rows a previous run wrote (for ``--resume`` and ``--report``), judged afresh from their values."""
    def number(text: str) -> float | None:
        return None if text == "" else float(text)

    rows = []
    with path.open(newline="") as handle:
        for r in csv.DictReader(handle):
            point = Point(r["family"], float(r["noise"]), float(r["rate"]), int(r["steps"]), float(r["delta"]),
                          r["relation"], int(r["batch"]), int(r["size"]))
            rows.append(judge(Row(point, r["accountant"], r["bound"], eps=number(r["eps"]), error=r["error"],
                                  eps_lower=number(r["eps_lower"]), eps_upper=number(r["eps_upper"]),
                                  witness=r["witness"], certify_seconds=float(r["certify_seconds"] or 0),
                                  seconds=float(r["seconds"] or 0))))
    return rows


FAMILIES = {"poisson": "Poisson", "shuffle": "shuffled, as Poisson"}


def summary(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Per accountant and family (Poisson runs; shuffled runs accounted as Poisson): points, refuted (and by more
    than 1% of the bound broken), crashes, non-finite, negative, non-monotone (steps, delta), and the median and
    max of eps_acc - eps_upper where eps_upper is finite."""
    out = []
    names = list(dict.fromkeys(r.accountant for r in rows if r.accountant != "certify"))
    for family, label in FAMILIES.items():
        for name in names:
            mine = [r for r in rows if r.accountant == name and r.point.family == family]
            if not mine:
                continue
            gaps = [g for g in (r.gap for r in mine) if g is not None]
            out.append({"accountant": name, "family": label, "bound": mine[0].bound, "points": len(mine),
                        "refuted": sum(r.refuted for r in mine),
                        "refuted_1pct": sum(r.refuted and r.margin() > 0.01 for r in mine),
                        "crashes": sum(r.crashed for r in mine), "nonfinite": sum(r.nonfinite for r in mine),
                        "negative": sum(r.negative for r in mine),
                        "nonmonotone_steps": sum(r.nonmonotone_steps for r in mine),
                        "nonmonotone_delta": sum(r.nonmonotone_delta for r in mine),
                        "gap_median": float(np.median(gaps)) if gaps else math.nan,
                        "gap_max": float(np.max(gaps)) if gaps else math.nan})
    return out


def print_summary(rows: Sequence[Row], witnesses: int, out: Any = sys.stdout) -> None:
    table = summary(rows)
    print("| runs | accountant | claims | points | refuted | refuted by >1% | crashes | NaN/inf | negative | "
          "non-monotone in steps | non-monotone in delta | median eps - eps_upper | max eps - eps_upper |", file=out)
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", file=out)
    for t in table:
        print(f"| {t['family']} | {t['accountant']} | {t['bound']} | {t['points']} | {t['refuted']} | "
              f"{t['refuted_1pct']} | {t['crashes']} | {t['nonfinite']} | {t['negative']} | "
              f"{t['nonmonotone_steps']} | {t['nonmonotone_delta']} | {t['gap_median']:.3g} | {t['gap_max']:.3g} |",
              file=out)
    uncertified = [r for r in rows if r.accountant == "certify"]
    if uncertified:
        print(f"\n{len(uncertified)} point(s) could not be certified: "
              + "; ".join(f"{r.point.describe()} ({r.error[:80]})" for r in uncertified[:5]), file=out)
    for family, label in FAMILIES.items():
        for name in dict.fromkeys(r.accountant for r in rows if r.refuted and r.point.family == family):
            worst = sorted((r for r in rows if r.accountant == name and r.refuted and r.point.family == family),
                           key=lambda r: -r.margin())
            print(f"\n{name} on {label} runs: {len(worst)} refuted; the worst {min(witnesses, len(worst))}:",
                  file=out)
            for r in worst[:witnesses]:
                print(f"  {r.point.describe()}: eps {r.eps:.6g} outside the certified [{r.eps_lower:.6g}, "
                      f"{r.eps_upper:.6g}] ({100 * r.margin():.2g}%); lower bound from {r.witness}", file=out)
    crashes: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:
        if r.crashed and r.accountant != "certify":
            crashes[(r.accountant, r.error.split(":")[0] + ": " + r.error.split(":", 1)[-1][:70].strip())].append(r)
    if crashes:
        print("\ncrashes (accountant, error: count, one point):", file=out)
        for (name, error), rs in sorted(crashes.items(), key=lambda kv: -len(kv[1])):
            print(f"  {name}, {error}: {len(rs)}, e.g. {rs[0].point.describe()}", file=out)


CLIP = (1e-3, 1e3)  # the plot's ratio axis; values beyond it are drawn on its edge as triangles


def plot(rows: Sequence[Row], path: Path) -> Any:
    """One panel per accountant: its epsilon over the end of the certified bracket it is judged against (an upper
    bound's over eps_lower: below 1 it is refuted; a lower bound's over eps_upper: above 1, Poisson runs only), by
    that end; Poisson runs and shuffled runs accounted as Poisson in two colours. A ratio beyond CLIP, or a value at
    or below zero, is drawn on the edge; crashes, and points whose end is 0 or infinite (no ratio), are counted in
    the panel. Returns the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(r.accountant for r in rows if r.accountant != "certify"))
    cols = 3
    fig = Figure(figsize=(4.2 * cols, 3.3 * math.ceil(len(names) / cols)), layout="constrained")
    FigureCanvasAgg(fig)
    colours = {"poisson": "tab:blue", "shuffle": "tab:orange"}
    for i, name in enumerate(names):
        ax = fig.add_subplot(math.ceil(len(names) / cols), cols, i + 1)
        mine = [r for r in rows if r.accountant == name]
        upper = mine[0].bound == adapters.UPPER
        notes = []
        for family, label in FAMILIES.items():
            judged = [r for r in mine if r.point.family == family and (upper or family == "poisson")]
            if not judged:
                continue
            crashed = sum(r.crashed or r.eps is None or math.isnan(r.eps) for r in judged)
            drawn = [r for r in judged if not r.crashed and r.eps is not None and not math.isnan(r.eps)]
            end = np.array([(r.eps_lower if upper else r.eps_upper) or 0.0 for r in drawn])
            eps = np.array([r.eps for r in drawn])
            usable = (end > 0) & np.isfinite(end)
            x, value = end[usable], eps[usable]
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(value > 0, value / x, 0.0)
            low, high = ratio < CLIP[0], ratio > CLIP[1]
            inside = ~(low | high)
            ax.scatter(x[inside], ratio[inside], s=6, alpha=0.5, color=colours[family], label=label, linewidths=0)
            ax.scatter(x[low], np.full(low.sum(), CLIP[0]), s=14, marker="v", color=colours[family], linewidths=0)
            ax.scatter(x[high], np.full(high.sum(), CLIP[1]), s=14, marker="^", color=colours[family], linewidths=0)
            refuted = sum(r.refuted for r in judged)
            notes.append(f"{label}: {refuted} of {len(judged)} refuted" + (f", {crashed} crashed" if crashed else "")
                         + (f", {int((~usable).sum())} no ratio" if (~usable).any() else ""))
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set(xscale="log", yscale="log", ylim=(CLIP[0] / 1.5, CLIP[1] * 1.5), title=name)
        ax.set_xlabel("certified eps_lower" if upper else "certified eps_upper", fontsize=8)
        ax.set_ylabel("eps / eps_lower (below 1: refuted)" if upper else "eps / eps_upper (above 1: refuted)",
                      fontsize=8)
        ax.tick_params(labelsize=7)
        ax.text(0.02, 0.98, "\n".join(notes), transform=ax.transAxes, va="top", fontsize=6.5,
                bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"})
        if i == 0:
            ax.legend(fontsize=7, loc="lower right", markerscale=2)
    fig.suptitle(f"Accountants against certified brackets: {len({r.point for r in rows})} DP-SGD points "
                 "(every delta, steps, noise multiplier and sample rate of the grid)", fontsize=10)
    fig.savefig(path, dpi=110)
    return fig


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in ("dp-accounting", "prv-accountant", "autodp"):
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} missing")
    return ", ".join(found)


def main(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--points", type=int, default=240, help="points to run, as whole groups (default 240)")
    size.add_argument("--full", action="store_true", help="the full grid")
    parser.add_argument("--seed", type=int, default=0, help="which groups --points takes")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--scheduler", help="a Dask scheduler (tcp://host:8786) or local:N")
    parser.add_argument("--opacus-python", help="an interpreter with torch and opacus (benchmarks/opacus_driver.py)")
    parser.add_argument("--memory-gb", type=float, default=8.0, help="address-space cap per worker (0: none)")
    parser.add_argument("--out", default="accountant-grid.csv", help="CSV of every point and accountant")
    parser.add_argument("--witnesses", type=int, default=5, help="worst refutations printed per accountant")
    parser.add_argument("--resume", action="store_true", help="keep the groups --out already holds, run the rest")
    parser.add_argument("--report", action="store_true", help="only print the summary of the rows --out holds")
    parser.add_argument("--plot", metavar="PNG", help="draw every accountant's epsilon against its bracket there")
    args = parser.parse_args(argv)
    if args.points is not None and args.points < 1:
        parser.error("--points must be at least 1")
    if args.report:
        rows = read_csv(Path(args.out))
        mark_monotonicity(rows)
        print(f"{len({r.point for r in rows})} points from {args.out}")
        print_summary(rows, args.witnesses)
        if args.plot:
            plot(rows, Path(args.plot))
            print(f"\nthe plot: {args.plot}")
        return rows
    if args.opacus_python:
        require_interpreter(args.opacus_python)
    grid = full_grid()
    points = choose(grid, None if args.full else args.points, args.seed)
    groups = _groups(points)
    random.Random(args.seed).shuffle(groups)  # any prefix of a long run is a random sample of the groups
    print(f"{len(points)} points of the {len(grid)}-point grid in {len(groups)} groups; {versions()}"
          + (", Opacus from " + args.opacus_python if args.opacus_python else ", no Opacus"), flush=True)
    task = functools.partial(evaluate, opacus_python=args.opacus_python, memory_gb=args.memory_gb)
    rows: list[Row] = []
    out = Path(args.out)
    if args.resume and out.exists():
        rows = read_csv(out)
        kept = {r.point.group for r in rows}
        groups = [g for g in groups if g[0].group not in kept]
        print(f"resuming: {len({r.point for r in rows})} points from {out}, {len(groups)} groups to run", flush=True)
    done = [0]
    todo = sum(len(g) for g in groups)
    start = time.perf_counter()

    def progress(new: list[Row]) -> None:
        rows.extend(new)
        done[0] += len({r.point for r in new})
        elapsed = time.perf_counter() - start
        rate = done[0] / elapsed
        print(f"  {done[0]}/{todo} points, {elapsed:.0f} s, {rate:.2f} points/s, "
              f"about {(todo - done[0]) / max(rate, 1e-9) / 60:.0f} min left", file=sys.stderr, flush=True)
        write_csv(rows, out)  # as it goes, so that a long run's partial results are on disk

    if args.scheduler:
        run_dask(groups, args.scheduler, task, progress)
    else:
        run_local(groups, args.workers, task, progress)
    elapsed = time.perf_counter() - start
    mark_monotonicity(rows)
    write_csv(rows, out)
    certify_times = {r.point: r.certify_seconds for r in rows if r.accountant != "certify"}
    where = args.scheduler or f"{args.workers} worker process(es)"
    print(f"\n{todo} points in {elapsed:.0f} s on {where}: {todo / elapsed:.3f} points/s; certifying "
          f"took {np.mean(list(certify_times.values())) if certify_times else math.nan:.2f} s per point on "
          f"average (median {np.median(list(certify_times.values())) if certify_times else math.nan:.2f} s)\n")
    print_summary(rows, args.witnesses)
    if args.plot:
        plot(rows, Path(args.plot))
        print(f"\nthe plot: {args.plot}")
    print(f"\nevery point and accountant: {out}")
    return rows


if __name__ == "__main__":
    main()
