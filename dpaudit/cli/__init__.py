"""The ``dpaudit`` command line: ``list``, ``run``, ``report``, ``audit``, ``regret``, ``simulate``, ``dpsgd``,
``canary``.

Exit codes: 0 every verdict matches its expectation; 1 some claim was refuted unexpectedly, or
an expected refutation was not reproduced; 2 usage error, bad input, or an audit that could not
run.

One module per group of commands (:mod:`~dpaudit.cli.suites`, :mod:`~dpaudit.cli.simulate`,
:mod:`~dpaudit.cli.audit`, :mod:`~dpaudit.cli.dpsgd`, :mod:`~dpaudit.cli.canary`), the grammar in
:mod:`~dpaudit.cli.parser`, the reading of what the user types in :mod:`~dpaudit.cli.inputs`. The top of the house:
may import every wing (the algorithms by registry name).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..core.errors import DpauditError, MechanismError
from .audit import cmd_audit, cmd_regret
from .canary import cmd_canary
from .dpsgd import cmd_dpsgd
from .parser import build_parser
from .simulate import cmd_simulate
from .suites import cmd_list, cmd_report, cmd_run

COMMANDS = {"list": cmd_list, "run": cmd_run, "report": cmd_report, "audit": cmd_audit, "regret": cmd_regret,
            "simulate": cmd_simulate, "dpsgd": cmd_dpsgd, "canary": cmd_canary}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is handled below
        return code
    except DpauditError as exc:
        _print_error(args, exc)
        return 2
    except BrokenPipeError:
        # the reader stopped reading (`dpaudit list | head`): not an error of ours, and nothing more to say
        # to it; point stdout at /dev/null so that flushing it at exit does not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as exc:
        if args.command == "simulate":
            print("dpaudit: interrupted; finished simulations are in --out (one .npz each)", file=sys.stderr)
        else:
            print("dpaudit: interrupted; finished claims are in results.json (run again to audit only the rest)",
                  file=sys.stderr)
        return 128 + getattr(exc, "signum", 2)  # 130 for SIGINT, 143 for SIGTERM, as a shell reports them


def _print_error(args: argparse.Namespace, exc: DpauditError) -> None:
    """One line on stderr; a mechanism's error says where in the user's code it was raised, and
    ``--json`` also prints the error (with the user's frames) as JSON on stdout."""
    from ..api.records import describe_where, error_info

    kind = "mechanism error" if isinstance(exc, MechanismError) else "error"
    info = error_info(exc)
    where = describe_where(info) if isinstance(exc, MechanismError) else ""
    print(f"dpaudit {args.command}: {kind}: {exc}" + (f" (at {where})" if where else ""), file=sys.stderr)
    if getattr(args, "json", False) and args.command in ("audit", "regret"):
        print(json.dumps({"error": info}, indent=1))


__all__ = ["COMMANDS", "main"]
