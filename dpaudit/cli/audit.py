"""``dpaudit audit`` and ``dpaudit regret``: one claim about the user's own mechanism or policy."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..core.errors import DpauditError, UsageError
from .inputs import literal, load_target, parse_environment, parse_pair, whole_number


def cmd_audit(args: argparse.Namespace) -> int:
    from ..api.privacy import audit_privacy
    from ..core.claims import parse_claim
    from ..core.neighbours import parse_relation

    claim = parse_claim(args.claim)
    pairs = [parse_pair(p) for p in args.pair]
    relation = parse_relation(args.relation) if args.relation else None
    mech = load_target(args.target)
    if args.unseeded:
        from ..core.samplers import unseeded

        mech = unseeded(mech)
    try:
        result = audit_privacy(mech, claim, pairs=pairs, neighbours=relation, confidence=args.confidence,
                               samples=args.samples, seed=args.seed, auditor=args.auditor, events=args.events,
                               sequential=args.sequential)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, DpauditError):
            raise
        raise UsageError(str(exc)) from None
    return _report_result(result, claim, args.json, "samples per side", witness=True)


def _report_result(result: Any, claim: Any, as_json: bool, unit: str, witness: bool = False) -> int:
    """Print a direct audit's record (or its JSON) and return the exit code: 1 when refuted."""
    if as_json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(f"{result.subject}: {claim.describe()}")
        print(f"  {result.summary()}")
        print(f"  auditor {result.auditor}, {result.samples} {unit}, {result.seconds:.2f} s")
        if result.relation:  # a privacy audit's: which relation the pairs were checked against, or that none was
            from ..api.privacy import UNCHECKED

            unchecked = result.relation.get("name") == UNCHECKED["name"]
            print(f"  neighbours: {result.relation.get('description')}"
                  + (" (--relation states it)" if unchecked else ", every pair checked"))
        if witness and result.witness:
            print("  witness: " + json.dumps(result.witness))
        for note in result.notes:
            print(f"  note: {note}")
    return 1 if result.verdict == "refuted" else 0


def cmd_regret(args: argparse.Namespace) -> int:
    from ..api.regret import audit_regret
    from ..core.claims import RegretBound, RegretOrder, parse_claim

    claim = parse_claim(args.claim)
    if isinstance(claim, RegretBound):  # parse_claim refuses bounds; kept for a clear message if that changes
        raise UsageError("a regret bound's function is Python-only: use dpaudit.audit_regret")
    params = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--param {item!r}: expected NAME=VALUE, e.g. eps=0.5")
        params[name.strip()] = literal(value.strip(), f"--param {name}")
    environment = parse_environment(args.env)
    if isinstance(claim, RegretOrder):
        if args.policy:
            raise UsageError("an ordering names its algorithms in the claim (registry names); give no POLICY")
        policy: Any = {label: label for label in claim.labels}
    elif not args.policy:
        raise UsageError("name the POLICY: a registry name (dpaudit list --algorithms) or MODULE:ATTR")
    else:
        policy = load_target(args.policy) if ":" in args.policy else args.policy
    horizons: Any = [whole_number(h, "--horizons") for h in args.horizons.split(",")]
    horizons = horizons[0] if len(horizons) == 1 else horizons
    settings: dict[str, Any] = {"workers": args.workers}
    if args.values is not None:
        settings["values"] = [literal(v, "--values") for v in args.values.split(",")]
    try:
        result = audit_regret(policy, environment, claim, horizons=horizons, runs=args.runs,
                              confidence=args.confidence, seed=args.seed, params=params, **settings)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, DpauditError):
            raise
        raise UsageError(str(exc)) from None
    if args.plot is not None:
        from ..reports.plots import render

        png = render(result)
        if png is None:
            print("note: this result has nothing to plot", file=sys.stderr)
        else:
            args.plot.write_bytes(png)
    return _report_result(result, claim, args.json, "runs")
