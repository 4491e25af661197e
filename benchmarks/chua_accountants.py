"""dpaudit's certified DP-SGD brackets beside the accountants Chua et al. released, run here from a checkout.

    python benchmarks/chua_accountants.py --checkout PATH [--grid example|sigmas|both] [--knot K]
        [--discretization 1e-3] [--only deterministic|poisson-upper|poisson-lower|shuffle|bnb ...]

PATH is a checkout of https://github.com/google-research/google-research (or any folder holding its
``dpsgd_batch_sampler_accounting/``), imported from there, never copied. Their code needs absl-py, dp-accounting,
numpy, scipy and pandas (``pip install absl-py pandas``; the rest come with dpaudit). Without a checkout the script
says how to get one and exits 2.

Their accountants (``dpsgd_bounds.py``, ``balls_and_bins.py``; T steps per epoch, E epochs, noise multiplier
sigma) and the dpaudit configuration each is set beside (:func:`config`):

- ``DeterministicAccountant``: N(1, sigma^2) against N(0, sigma^2), E times. dpaudit: ``PoissonBatches(1.0)`` for E
  steps (q = 1 is the Gaussian mechanism; each example is in one batch per epoch). Exact on both sides.
- ``PoissonPLDAccountant``: dp_accounting's PLD of the Poisson subsampled Gaussian at rate 1/T for T E steps,
  add-remove, at their discretization 1e-3: pessimistic (connect-the-dots, an upper bound on delta) and optimistic
  (privacy buckets, a lower bound). dpaudit: ``PoissonBatches(1 / T)``, add-remove.
- ``ShuffleAccountant``: a lower bound from the pair MoG(2) against MoG(1) (the others contribute -1, the
  differing example +1 or 0) through the largest coordinate on a grid of caps, E epochs reshuffled by composing its
  PLD (optimistic, 1e-3), or one order for every epoch as one epoch at sigma / sqrt(E). dpaudit: ``ShuffledBatches(1,
  T, reshuffle)`` under zero-out, whose certified lower bound uses the same pair (and its other realisable one) and
  composes reshuffled epochs the same way; its upper bound is the no-amplification Gaussian.
- ``BnBAccountant.get_deltas_lower_bound``: the shuffle construction on MoG(1) against N(0) (called through the
  accountant it delegates to, so that ``--discretization`` reaches it). dpaudit: ``BallsAndBins(T)`` under zero-out.

Two grids. ``example``: their example.py (T = 1000, E = 1, sigma = 0.35, their delta at eps in 0.5 ... 10); each of
their deltas is turned into epsilon by dpaudit's bracket of eps(their delta), set beside the eps they were given.
``sigmas``: sigma in 0.5, 0.8, 1, 1.5, 2, T = 1000, E in 1 and 5, with and without reshuffling (the shuffle
sampler's only), their eps at delta 1e-5 (their ``get_epsilons``, a bisection to within 1e-7, allowed on the
bracket's ends) beside dpaudit's bracket at 1e-5.

Each row says what their value bounds and checks it against the certified bracket [lo, hi] of eps(delta):

- exact (deterministic): lo <= theirs <= hi; difference theirs - (lo + hi) / 2;
- upper (a delta upper bound, so an eps upper bound): theirs >= lo; difference theirs - hi;
- lower (a delta lower bound, so an eps lower bound): theirs <= hi; difference theirs - lo;
- same pair (shuffle, balls-and-bins: a lower bound from a pair dpaudit's certified lower bound also uses):
  theirs <= hi; difference theirs - lo; and, in a column of its own, whether dpaudit's certified lower bound reaches
  theirs (theirs <= lo + 1e-3), as it should: it takes the same pair's largest coordinate without their grid of caps.

"within 1e-3" is |difference| <= 1e-3. The knot each bracket used is printed (dpaudit chooses it per
configuration: coarser than its default 2^-13 where sigma = 0.35 makes each step's losses large).
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

from dpaudit.core.dpsgd import BallsAndBins, DPSGDConfig, PoissonBatches, ShuffledBatches
from dpaudit.exact.accounting import certify

PACKAGE = "dpsgd_batch_sampler_accounting"
HOW = ("benchmarks/chua_accountants.py needs a checkout of Chua et al.'s accountants: git clone --depth 1 "
       "--filter=blob:none --sparse https://github.com/google-research/google-research PATH; "
       f"git -C PATH sparse-checkout set {PACKAGE}; pip install absl-py pandas; then --checkout PATH")

STEPS_PER_EPOCH = 1000  # T, their example's
EXAMPLE_SIGMA = 0.35
EXAMPLE_EPSILONS = (0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0)
SIGMAS = (0.5, 0.8, 1.0, 1.5, 2.0)
EPOCHS = (1, 5)
DELTA = 1e-5
DISCRETIZATION = 1e-3  # their example's PLD discretization
TOLERANCE = 1e-3
#: their get_epsilons inverts a delta(eps) by dp_accounting's bisection, to within this (its default tolerance)
SEARCH_TOLERANCE = 1e-7

EXACT, UPPER, LOWER, SAME_PAIR = "exact", "upper", "lower", "same pair"


class Row(NamedTuple):
    key: str
    title: str
    kind: str


ROWS = (
    Row("deterministic", "Deterministic", EXACT),
    Row("poisson-upper", "Poisson PLD upper", UPPER),
    Row("poisson-lower", "Poisson PLD lower", LOWER),
    Row("shuffle", "Shuffle lower", SAME_PAIR),
    Row("bnb", "BnB lower", SAME_PAIR),
)


def load_chua(path: str | None):
    """Their dpsgd_bounds and balls_and_bins modules from the user's checkout, and its commit (or None); exit 2
    with how to get one when it is missing or does not import."""
    if path is None:
        print(HOW, file=sys.stderr)
        sys.exit(2)
    root = Path(path)
    if root.name == PACKAGE and (root / "dpsgd_bounds.py").is_file():
        root = root.parent
    if not (root / PACKAGE / "dpsgd_bounds.py").is_file():
        print(f"no {PACKAGE}/ at {path}; {HOW}", file=sys.stderr)
        sys.exit(2)
    sys.path.append(str(root.resolve()))  # last: a folder of the repository never shadows an installed package
    try:
        import dpsgd_batch_sampler_accounting.balls_and_bins as balls_and_bins
        import dpsgd_batch_sampler_accounting.dpsgd_bounds as dpsgd_bounds
    except ImportError as err:
        print(f"{PACKAGE} at {path} does not import ({err}); {HOW}", file=sys.stderr)
        sys.exit(2)
    commit = None
    if (root / ".git").exists():
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
        commit = done.stdout.strip() if done.returncode == 0 else None
    return dpsgd_bounds, balls_and_bins, commit


def config(key: str, sigma: float, epochs: int, reshuffle: bool = True, steps: int = STEPS_PER_EPOCH) -> DPSGDConfig:
    """The dpaudit configuration a row of theirs is about (module docstring)."""
    if key == "deterministic":
        return DPSGDConfig(PoissonBatches(1.0), sigma, steps=epochs)
    if key.startswith("poisson"):
        return DPSGDConfig(PoissonBatches(1.0 / steps), sigma, steps=steps * epochs)
    if key == "shuffle":
        return DPSGDConfig(ShuffledBatches(1, steps, reshuffle=reshuffle), sigma, epochs=epochs, relation="zero-out")
    if key == "bnb":
        return DPSGDConfig(BallsAndBins(steps), sigma, epochs=epochs, relation="zero-out")
    raise ValueError(f"unknown row {key!r}")


def _theirs(modules, key: str, method: str, sigma: float, points: tuple[float, ...], epochs: int, reshuffle: bool,
            discretization: float) -> list[float]:
    """Their accountant's ``method`` (get_deltas at epsilons, get_epsilons at deltas), called as their example.py
    calls it; balls-and-bins: the lower-bound accountant its get_deltas_lower_bound calls, so that
    ``discretization`` reaches it."""
    bounds, bnb, _ = modules
    t, d = STEPS_PER_EPOCH, discretization
    if key == "deterministic":
        return [float(v) for v in getattr(bounds.DeterministicAccountant(), method)(sigma, points, epochs)]
    if key in ("poisson-upper", "poisson-lower"):
        accountant = bounds.PoissonPLDAccountant(pessimistic_estimate=key == "poisson-upper")
        values = getattr(accountant, method)(sigma, points, t, epochs, d)
    elif key == "shuffle":
        values = getattr(bounds.ShuffleAccountant(), method)(sigma, points, t, epochs, reshuffle, d)
    elif key == "bnb":
        values = getattr(bnb.BnBAccountant().lower_bound_accountant, method)(sigma, points, t, epochs, True, d)
    else:
        raise ValueError(f"unknown row {key!r}")
    return [float(v) for v in values]


def their_deltas(modules, key: str, sigma: float, epsilons: tuple[float, ...], epochs: int, reshuffle: bool = True,
                 discretization: float = DISCRETIZATION) -> list[float]:
    """Their delta at each epsilon."""
    return _theirs(modules, key, "get_deltas", sigma, epsilons, epochs, reshuffle, discretization)


def their_epsilon(modules, key: str, sigma: float, delta: float, epochs: int, reshuffle: bool = True,
                  discretization: float = DISCRETIZATION) -> float:
    """Their epsilon at ``delta`` (their get_epsilons)."""
    return _theirs(modules, key, "get_epsilons", sigma, (delta,), epochs, reshuffle, discretization)[0]


def compare(kind: str, theirs: float, lo: float, hi: float, slack: float = 0.0,
            ) -> tuple[float, bool, bool, bool | None]:
    """Their epsilon against dpaudit's bracket [lo, hi] of the same eps(delta) (module docstring): (difference, in
    the certified bracket, reproduced within TOLERANCE, and for a lower bound from the same pair whether dpaudit's
    certified lower bound reaches it within TOLERANCE; None for the other kinds). ``slack``: their value's own
    stated accuracy, allowed on the bracket's ends."""
    same = None
    if kind == EXACT:
        diff, inside = theirs - (lo + hi) / 2, lo - slack <= theirs <= hi + slack
    elif kind == UPPER:
        diff, inside = theirs - hi, theirs >= lo - slack
    elif kind == LOWER:
        diff, inside = theirs - lo, theirs <= hi + slack
    elif kind == SAME_PAIR:
        diff, inside, same = theirs - lo, theirs <= hi + slack, theirs <= lo + TOLERANCE
    else:
        raise ValueError(f"unknown kind {kind!r}")
    return diff, inside, abs(diff) <= TOLERANCE, same


_brackets: dict = {}


def bracket(cfg: DPSGDConfig, delta: float, knot: float | None):
    """dpaudit's certified bracket of eps(delta), computed once per configuration, delta and knot."""
    key = (cfg, delta, knot)
    if key not in _brackets:
        _brackets[key] = certify(cfg, delta=delta, knot=knot)
    return _brackets[key]


def _pair(b) -> str:
    """The realised pair behind a lower bound, shortened ("MoG(2) against MoG(1)")."""
    pairs = b.witness.get("pairs") or [""]
    name = pairs[0]
    name = name.split(": ", 1)[1] if ": " in name else name
    return name.split(" (")[0]


def _knot(b) -> str:
    if b.details.get("closed_form"):
        return "closed form"
    return f"2^{int(math.log2(b.details['knot']))}"


HEADER = ("| accountant | sigma | E | reshuffle | eps (theirs) | delta | dpaudit eps(delta) | width | their - ours "
          "| knot | bound | in bracket | within 1e-3 | same pair: ours reaches theirs |")
RULE = "|" + "|".join(["---"] * (HEADER.count("|") - 1)) + "|"


def line(row: Row, sigma: float, epochs: int, reshuffle: str, theirs: float, delta: float, b, slack: float = 0.0,
         ) -> tuple[str, tuple]:
    """One table row, and (row, in bracket, within 1e-3, same pair reached) for the summary."""
    diff, inside, close, same = compare(row.kind, theirs, b.eps_lower, b.eps_upper, slack)
    extra = f" ({_pair(b)})" if row.kind == SAME_PAIR else ""
    text = (f"| {row.title}{extra} | {sigma:g} | {epochs} | {reshuffle} | {theirs:.6f} | {delta:.6g} | "
            f"[{b.eps_lower:.6f}, {b.eps_upper:.6f}] | {b.eps_upper - b.eps_lower:.2e} | {diff:+.6f} | {_knot(b)} | "
            f"{row.kind} | {'yes' if inside else 'NO'} | {'yes' if close else 'no'} | "
            f"{'-' if same is None else 'yes' if same else 'no'} |")
    return text, (row, inside, close, same)


def example_grid(modules, knot: float | None, rows=ROWS, discretization: float = DISCRETIZATION) -> list[tuple]:
    """Their example.py: delta at each eps for sigma = 0.35, T = 1000, one epoch; dpaudit's eps at their delta."""
    print(f"\nTheir example grid: sigma = {EXAMPLE_SIGMA}, T = {STEPS_PER_EPOCH}, E = 1; their delta at each eps, "
          "dpaudit's certified eps at that delta\n")
    print(HEADER)
    print(RULE)
    results: list[tuple] = []
    for row in rows:
        deltas = their_deltas(modules, row.key, EXAMPLE_SIGMA, EXAMPLE_EPSILONS, 1, True, discretization)
        cfg = config(row.key, EXAMPLE_SIGMA, 1)
        for eps, delta in zip(EXAMPLE_EPSILONS, deltas):
            if not 0 < delta < 1:
                print(f"| {row.title} | {EXAMPLE_SIGMA:g} | 1 | - | {eps:.6f} | {delta:.6g} | not compared: delta "
                      "outside (0, 1) |" + " |" * 7)
                continue
            text, result = line(row, EXAMPLE_SIGMA, 1, "-", eps, delta, bracket(cfg, delta, knot))
            print(text, flush=True)
            results.append(result)
    return results


def sigma_grid(modules, knot: float | None, rows=ROWS, discretization: float = DISCRETIZATION, sigmas=SIGMAS,
               epochs_list=EPOCHS) -> list[tuple]:
    """Their eps at delta = 1e-5 over sigma and epochs (and reshuffling, for the shuffle sampler) beside dpaudit's
    bracket at 1e-5."""
    print(f"\nSigma grid: T = {STEPS_PER_EPOCH}, delta = {DELTA:g}; their eps beside dpaudit's certified eps\n")
    print(HEADER)
    print(RULE)
    results: list[tuple] = []
    for sigma in sigmas:
        for epochs in epochs_list:
            for row in rows:
                orders = (True, False) if row.key == "shuffle" and epochs > 1 else (True,)
                for reshuffle in orders:
                    label = ("yes" if reshuffle else "no") if row.key == "shuffle" and epochs > 1 else "-"
                    theirs = their_epsilon(modules, row.key, sigma, DELTA, epochs, reshuffle, discretization)
                    b = bracket(config(row.key, sigma, epochs, reshuffle), DELTA, knot)
                    text, result = line(row, sigma, epochs, label, theirs, DELTA, b, SEARCH_TOLERANCE)
                    print(text, flush=True)
                    results.append(result)
    return results


def summary(results: list[tuple]) -> None:
    print(f"\nPer accountant: rows inside the certified bracket, rows within {TOLERANCE:g} of it")
    for row in ROWS:
        mine = [r for r in results if r[0].key == row.key]
        if not mine:
            continue
        text = (f"  {row.title} ({row.kind}): {sum(r[1] for r in mine)}/{len(mine)} in bracket, "
                f"{sum(r[2] for r in mine)}/{len(mine)} within {TOLERANCE:g}")
        if row.kind == SAME_PAIR:
            text += f", dpaudit's certified lower bound reaches theirs in {sum(bool(r[3]) for r in mine)}/{len(mine)}"
        print(text)
    outside = sorted({r[0].title for r in results if not r[1]})
    print("  every value of theirs lies in dpaudit's certified bracket" if not outside else
          f"  OUTSIDE the certified bracket: {', '.join(outside)} (a bug on one side)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkout", help=f"a checkout of google-research (or a folder holding {PACKAGE}/)")
    parser.add_argument("--grid", choices=("example", "sigmas", "both"), default="both")
    parser.add_argument("--knot", type=float, help="dpaudit's knot spacing, a power of two (default: chosen per "
                                                   "configuration)")
    parser.add_argument("--discretization", type=float, default=DISCRETIZATION,
                        help="their PLDs' discretization (Poisson, and the shuffle and balls-and-bins lower bounds' "
                             "reshuffled epochs; default: their example's 1e-3)")
    parser.add_argument("--only", nargs="+", choices=[r.key for r in ROWS], help="some accountants only")
    args = parser.parse_args(argv)
    modules = load_chua(args.checkout)
    rows = tuple(r for r in ROWS if args.only is None or r.key in args.only)
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in ("dp-accounting", "numpy", "scipy"))
    print(f"Chua et al.'s accountants from {Path(args.checkout).resolve()} "
          f"(commit {modules[2] or 'unknown: not a git checkout'}), their PLDs at discretization "
          f"{args.discretization:g}; {versions}")
    start = time.perf_counter()
    results = []
    if args.grid in ("example", "both"):
        results += example_grid(modules, args.knot, rows, args.discretization)
    if args.grid in ("sigmas", "both"):
        results += sigma_grid(modules, args.knot, rows, args.discretization)
    summary(results)
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
