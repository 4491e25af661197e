"""``dpaudit dpsgd``: the certified bracket of a DP-SGD configuration, and the verdict on a claim about it."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ..core.errors import UsageError

SAMPLERS = ("poisson", "fixed-size", "with-replacement", "shuffle", "balls-and-bins")
#: --accountant's choices: dpaudit.adapters.accountants' classes
ACCOUNTANTS = {"dp-accounting-pld": "DPAccountingPLD", "dp-accounting-rdp": "DPAccountingRDP", "prv": "PRVAccountant",
               "autodp": "AutoDP"}


def configuration(args: argparse.Namespace) -> Any:
    """The DPSGDConfig the options describe, or the object ``--config MODULE:ATTR`` names; every bad value is a
    one-line usage error."""
    from ..core.dpsgd import (
        BallsAndBins,
        BatchesWithReplacement,
        DPSGDConfig,
        FixedSizeBatches,
        PoissonBatches,
        ShuffledBatches,
    )

    if args.config:
        if args.sampler or args.noise is not None:
            raise UsageError("give either --config MODULE:ATTR or --sampler with its options, not both")
        from ..auditors.dpsgd import as_dpsgd_run
        from .inputs import load_target

        try:
            return as_dpsgd_run(load_target(args.config))
        except TypeError as exc:
            raise UsageError(str(exc)) from None
    if not args.sampler:
        raise UsageError("give --sampler (one of " + ", ".join(SAMPLERS) + ") with its options, or --config")
    if args.noise is None:
        raise UsageError("give --noise, the noise multiplier (noise standard deviation / clip norm)")

    def need(name: str) -> Any:
        value = getattr(args, name)
        if value is None:
            raise UsageError(f"--sampler {args.sampler} needs --{name}")
        return value

    try:
        if args.sampler == "poisson":
            sampler = PoissonBatches(need("rate"))
        elif args.sampler == "fixed-size":
            sampler = FixedSizeBatches(need("batch"), need("size"))
        elif args.sampler == "with-replacement":
            sampler = BatchesWithReplacement(need("batch"), need("size"))
        elif args.sampler == "shuffle":
            sampler = ShuffledBatches(need("batch"), need("size"), reshuffle=not args.same_order,
                                      partial=args.partial)
        else:
            sampler = BallsAndBins(need("batches"))
        return DPSGDConfig(sampler, args.noise, steps=args.steps, epochs=args.epochs, relation=args.relation)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def _accountants(args: argparse.Namespace, run: Any) -> dict[str, Any]:
    """label -> the accountant each --accountant names, given the run as its library documents (natively where it
    models the run's sampler and relation, else as Poisson sampling at batch / size, said in the label)."""
    from ..adapters import accountants

    out = {}
    for name in dict.fromkeys(args.accountant or ()):
        make = getattr(accountants, ACCOUNTANTS[name])
        native = make()
        try:
            supported = native.supports(run)[0]
        except ImportError as exc:
            raise UsageError(str(exc)) from None
        out[native.name if supported else f"{native.name} (as Poisson)"] = native if supported else make(
            assume_poisson=True)
    return out


def _report_accountants(args: argparse.Namespace, run: Any, delta: float, lower: float, upper: float) -> int:
    """Each --accountant's epsilon beside the certified bracket: 1 if one's upper bound is refuted (below the
    certified lower bound), 2 if one failed (raised, or answered NaN), else 0; every accountant is asked."""
    status = 0
    for label, accountant in _accountants(args, run).items():
        try:
            eps = float(accountant.epsilon(run, delta))
            if not math.isfinite(eps):
                raise ArithmeticError(f"answered epsilon = {eps!r}")
        except Exception as exc:  # noqa: BLE001 - the accountant's failure, reported in one line
            print(f"dpaudit dpsgd: {label} failed at delta = {delta:g}: {type(exc).__name__}: {exc}",
                  file=sys.stderr)
            status = 2
            continue
        if eps < lower:
            verdict = f"refuted: below the certified lower bound {lower:.6g}"
            status = max(status, 1) if status != 2 else 2
        elif eps > upper:
            verdict = f"verified: above the certified upper bound {upper:.6g}"
        else:
            verdict = "inside the certified bracket"
        print(f"  {label}: epsilon {eps:.6g} (given as {_bound_words(accountant.bound)}), {verdict}")
    return status


def _bound_words(bound: str) -> str:
    return {"upper": "an upper bound", "lower": "a lower bound"}.get(bound, "an estimate")


def _plot(args: argparse.Namespace, run: Any, eps: float | None, delta: float) -> None:
    """The sweep of epsilon against the noise multiplier, drawn to ``--plot`` (the claim's point where there is one:
    ``eps`` None draws none)."""
    import textwrap
    from pathlib import Path

    from ..auditors.dpsgd import noise_sweep
    from ..core.results import NOT_REFUTED, Finding
    from ..reports.plots import render

    curves = {label: accountant.epsilon for label, accountant in _accountants(args, run).items()} or None
    data = noise_sweep(run, eps, delta, args.points, args.knot, curves)
    png = render(Finding(NOT_REFUTED, "certified-accounting", plot_data=data), title=textwrap.fill(run.describe(), 100))
    if png is None:
        raise UsageError("nothing to plot")
    Path(args.plot).write_bytes(png)
    print(f"  plot: {args.plot}")


def cmd_dpsgd(args: argparse.Namespace) -> int:
    from ..api.dpsgd import audit_dpsgd, certify_dpsgd
    from ..core.claims import ApproxDP, PureDP, parse_claim

    run = configuration(args)
    if args.claim is None:
        delta = args.delta if args.delta is not None else 1e-5
        try:
            bracket = certify_dpsgd(run, delta=delta, knot=args.knot)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if args.json:
            print(json.dumps({"configuration": run.to_dict(), "delta": delta, "epsilon": [
                _number(bracket.eps_lower), _number(bracket.eps_upper)], "tight": bracket.tight,
                "upper_bound": bracket.upper_footing, "witness": bracket.witness}, indent=1))
        else:
            print(run.describe())
            print(f"  epsilon at delta = {delta:g}: certified in [{bracket.eps_lower:.6g}, {bracket.eps_upper:.6g}]"
                  + ("" if bracket.tight else " (not tight)"))
            print(f"  upper bound: {bracket.upper_footing}")
            if bracket.witness:
                print(f"  lower bound: {'; '.join(bracket.witness.get('pairs', []))} "
                      f"({bracket.witness.get('order')} order)")
        status = _report_accountants(args, run, delta, bracket.eps_lower, bracket.eps_upper) if args.accountant \
            else 0
        if args.plot:
            _plot(args, run, None, delta)
        return status
    claim = parse_claim(args.claim)
    if not isinstance(claim, (ApproxDP, PureDP)):
        raise UsageError(f"dpaudit dpsgd decides (epsilon, delta) and pure DP claims; got {claim.describe()!r}")
    try:
        result = audit_dpsgd(run, claim, knot=args.knot)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(f"{result.subject}: {claim.describe()}")
        print(f"  {result.summary()}")
        if result.witness:
            print("  witness: " + json.dumps(result.witness))
        for note in result.notes:
            print(f"  note: {note}")
    status = 1 if result.verdict == "refuted" else 0
    if args.accountant:
        if not isinstance(claim, ApproxDP) or claim.delta <= 0:
            raise UsageError("--accountant needs an (epsilon, delta) claim with delta > 0, or --delta")
        lower, upper = result.statistic.interval
        status = max(status, _report_accountants(args, run, claim.delta, lower, upper))
    if args.plot:
        if not isinstance(claim, ApproxDP) or claim.delta <= 0:
            raise UsageError("--plot needs an (epsilon, delta) claim with delta > 0")
        _plot(args, run, claim.epsilon, claim.delta)
    return status


def _number(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def add_parser(sub: Any) -> None:
    """The ``dpsgd`` subcommand's grammar."""
    from .inputs import count

    ds = sub.add_parser(
        "dpsgd", help="certified epsilon of a DP-SGD configuration, and the verdict on a claim about it",
        description="Certified accounting of DP-SGD: the bracket of epsilon(delta) (a rigorous lower bound from "
        "neighbouring datasets realised by the sampler, and an upper bound from a dominating pair where one is "
        "known), and with --claim the verdict: verified, refuted (with the datasets), or not refuted (the bracket "
        "contains the claim). The noise multiplier is the noise's standard deviation over the clip norm; every "
        "noisy step is taken as released.",
        epilog='examples:\n  dpaudit dpsgd --sampler poisson --rate 0.01 --noise 1.0 --steps 1000 '
        '--claim "approx-dp eps=2 delta=1e-5"\n  dpaudit dpsgd --sampler shuffle --batch 256 --size 60000 --epochs 5 '
        '--noise 0.8 --relation zero-out --delta 1e-5\n  dpaudit dpsgd --config train.py:trace --claim "approx-dp '
        'eps=8 delta=1e-5"\n  dpaudit dpsgd --sampler shuffle --batch 600 --size 60000 --epochs 5 --noise 0.8 '
        '--relation zero-out --accountant dp-accounting-rdp\nexit codes: 0 verified, not refuted, or a bracket '
        'printed; 1 refuted (the claim, or an accountant\'s epsilon below the certified lower bound); 2 bad input, or '
        'an accountant failed.',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ds.add_argument("--sampler", choices=SAMPLERS, default=None, help="how each step's batch is drawn")
    ds.add_argument("--rate", type=float, default=None, help="Poisson sampling rate q in (0, 1]")
    ds.add_argument("--batch", type=count, default=None, help="batch size (fixed-size, with-replacement, shuffle)")
    ds.add_argument("--size", type=count, default=None, help="dataset size n")
    ds.add_argument("--batches", type=count, default=None, help="balls-and-bins: steps per epoch")
    ds.add_argument("--partial", choices=("drop", "own", "nominal"), default="drop",
                    help="shuffle, when the batch does not divide n: drop the last partial batch, or keep it "
                         "averaged over its own size or over the batch size (default drop)")
    ds.add_argument("--same-order", action="store_true", help="shuffle once and keep the order for every epoch")
    ds.add_argument("--noise", type=float, default=None, help="noise multiplier (noise std / clip norm)")
    ds.add_argument("--steps", type=count, default=None, help="steps (Poisson, fixed-size, with-replacement)")
    ds.add_argument("--epochs", type=count, default=None, help="epochs (every sampler)")
    ds.add_argument("--relation", choices=("add-remove", "zero-out", "replace-one"), default="add-remove",
                    help="neighbouring datasets: add or remove one example, zero out one example's gradient, or "
                         "replace one (its clipped gradient may flip) (default add-remove)")
    ds.add_argument("--config", default=None, metavar="MODULE:ATTR",
                    help="a DPSGDConfig, ComposedDPSGD or traced training loop (dpaudit.DPSGDTrace) in a module "
                         "or .py file, instead of the options above")
    ds.add_argument("--claim", default=None, help='e.g. "approx-dp eps=3 delta=1e-5"; none: print the bracket')
    ds.add_argument("--delta", type=float, default=None, help="without --claim: the delta of the bracket (1e-5)")
    ds.add_argument("--knot", type=float, default=None,
                    help="the privacy-loss grid's spacing, a power of two (default: chosen for the steps' losses)")
    ds.add_argument("--accountant", action="append", choices=tuple(ACCOUNTANTS), default=None,
                    help="ask this accountant for epsilon at the bracket's delta and set it beside the bracket "
                         "(repeatable; natively where it models the run, else as Poisson sampling at batch / size); "
                         "with --plot, draw its curve. prv and autodp need their packages")
    ds.add_argument("--plot", default=None, metavar="PNG",
                    help="write epsilon against the noise multiplier (0.5 to 2 times the configuration's): the "
                         "certified band, that of Poisson sampling at the same rate, each --accountant's epsilon "
                         "(default dp-accounting's RDP as Poisson), and the claim (needs --claim, or --delta)")
    ds.add_argument("--points", type=count, default=7, help="noise multipliers of --plot (default 7)")
    ds.add_argument("--json", action="store_true", help="print JSON")


__all__ = ["ACCOUNTANTS", "SAMPLERS", "add_parser", "cmd_dpsgd", "configuration"]
