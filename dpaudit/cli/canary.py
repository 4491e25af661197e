"""The ``canary`` subcommand: an (epsilon, delta) claim audited from two files of canary scores
(:func:`dpaudit.audit_canaries`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import UsageError


def read_scores(path: str, what: str) -> np.ndarray:
    """A file of scores: ``.npy`` (a 1-D array), or text with one number per line or separated by commas or spaces
    (``#`` starts a comment)."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{what}: no file {path}")
    try:
        if file.suffix == ".npy":
            values = np.load(file, allow_pickle=False)
        else:
            text = "\n".join(line.split("#", 1)[0] for line in file.read_text().splitlines())
            values = np.array([float(v) for v in text.replace(",", " ").split()])
    except (ValueError, OSError) as exc:
        raise UsageError(f"{what}: {path} is not a file of numbers ({exc})") from None
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size == 0 or not np.isfinite(values).all():
        raise UsageError(f"{what}: {path} must hold a non-empty list of finite numbers, got shape {values.shape}")
    return values


def cmd_canary(args: argparse.Namespace) -> int:
    from ..api.canary import audit_canaries
    from ..core.claims import ApproxDP, PureDP, parse_claim

    claim = parse_claim(args.claim)
    if not isinstance(claim, (ApproxDP, PureDP)):
        raise UsageError(f"dpaudit canary decides (epsilon, delta) and pure DP claims; got {claim.describe()!r}")
    inside, outside = read_scores(args.inside, "--in"), read_scores(args.outside, "--out")
    try:
        result = audit_canaries(inside, outside, claim, runs=args.runs, alpha=args.alpha, seed=args.seed,
                                sequential=args.sequential)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(f"{len(inside)} scores in, {len(outside)} out ({'one run' if args.runs == 'one' else 'many runs'}): "
              f"{claim.describe()}")
        print(f"  {result.summary()}")
        for note in result.notes:
            print(f"  note: {note}")
    return 1 if result.verdict == "refuted" else 0


def add_parser(sub: Any) -> None:
    """The ``canary`` subcommand's grammar."""
    ca = sub.add_parser(
        "canary", help="audit an (epsilon, delta) claim from an attack's scores of canaries in and out of training",
        description="A lower bound on epsilon at the claim's delta, valid with probability 1 - alpha, from an "
        "attack's scores (higher: more likely in) of canaries that were in the training data and canaries that were "
        "not; the claim is refuted when the bound exceeds its epsilon. Many runs (a score per training run: an event "
        "chosen on a fifth of the runs, bounded on the rest by Clopper-Pearson) or one run (a score per canary, each "
        "included with probability 1/2: Steinke, Nasr and Jagielski's bound). The record states the ceiling these "
        "scores allow.",
        epilog='examples:\n  dpaudit canary --in in.npy --out out.npy --claim "approx-dp eps=2 delta=1e-5"\n'
        '  dpaudit canary --in members.txt --out others.txt --runs one --claim "approx-dp eps=8 delta=1e-5"\n'
        'exit codes: 0 not refuted; 1 refuted; 2 bad input.',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ca.add_argument("--in", dest="inside", required=True, metavar="FILE",
                    help="scores of canaries in training: .npy, or numbers in a text file")
    ca.add_argument("--out", dest="outside", required=True, metavar="FILE",
                    help="scores of canaries not in training")
    ca.add_argument("--claim", required=True, help='e.g. "approx-dp eps=2 delta=1e-5"')
    ca.add_argument("--runs", choices=("many", "one"), default="many",
                    help="many: a score per training run (default); one: a score per canary of one run")
    ca.add_argument("--alpha", type=float, default=0.05, help="one minus the bound's confidence (default 0.05)")
    ca.add_argument("--seed", type=int, default=None, help="seed of the random split or tie order (default 0)")
    ca.add_argument("--sequential", action="store_true",
                    help="many runs, read in the files' order: stop at the first batch whose bets refute the claim, "
                         "and say how many runs it took")
    ca.add_argument("--json", action="store_true", help="print the record as JSON")


__all__ = ["add_parser", "cmd_canary", "read_scores"]
