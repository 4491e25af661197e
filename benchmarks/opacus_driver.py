"""Opacus's accountants' side of benchmarks/accountant_grid.py and benchmarks/accountant_cases.py, run by an
interpreter that has torch and opacus (Opacus needs torch; dpaudit does not).

    PYTHON benchmarks/opacus_driver.py [--accountants rdp,gdp,prv] [--memory-gb 8] < points.json > results.json

PYTHON is an interpreter with Opacus installed (python -m venv V; V/bin/pip install torch==2.13.0 opacus). This file
imports nothing of dpaudit, so that it runs in Opacus's own environment, and uses only Opacus's public accountant
API (``opacus.accountants.create_accountant`` and ``opacus.accountants.utils.get_noise_multiplier``), never a copy
of its code.

Input (stdin): a JSON list of points. A point is ``[noise_multiplier, sample_rate, steps, delta]`` or an object with
those keys; an object with ``"target_epsilon"`` instead of ``"noise_multiplier"`` asks for Opacus's noise search
(``get_noise_multiplier(target_epsilon=..., target_delta=delta, sample_rate=..., steps=..., accountant=...)``).
Each accountant of ``--accountants`` (or of the point's own ``"accountants"`` list) is asked in turn; a point's
``"options"`` object is passed to ``get_epsilon`` (e.g. ``{"prv": {"eps_error": 0.1}}``).

Output (stdout): one JSON object, ``{"opacus": version, "torch": version, "results": [...]}`` with one entry per
point, in order: ``{accountant: value}``, the value being the epsilon (or the noise multiplier for a search) as a
number, or ``{"error": "ExceptionType: message"}`` when the accountant raised. Non-finite numbers are written as the
strings "nan", "inf" and "-inf" (JSON has no literal for them). Each accountant's history is set as Opacus's own
noise search sets it, ``history = [(noise_multiplier, sample_rate, steps)]``: ``steps`` steps of the Poisson
subsampled Gaussian. ``--memory-gb`` caps the address space, so that an accountant that tries to allocate more
raises MemoryError (recorded as an error) rather than having the process killed.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import warnings
from typing import Any

ACCOUNTANTS = ("rdp", "gdp", "prv")
KEYS = ("noise_multiplier", "sample_rate", "steps", "delta")


def parse(point: Any) -> dict[str, Any]:
    """A point as a dict with the four keys (a list is read in their order)."""
    if isinstance(point, list):
        if len(point) != 4:
            raise ValueError(f"a point is [noise_multiplier, sample_rate, steps, delta], got {point!r}")
        return dict(zip(KEYS, point))
    if not isinstance(point, dict):
        raise ValueError(f"a point is a list or an object, got {point!r}")
    missing = [k for k in ("sample_rate", "steps", "delta") if k not in point]
    if "noise_multiplier" not in point and "target_epsilon" not in point:
        missing.append("noise_multiplier (or target_epsilon)")
    if missing:
        raise ValueError(f"a point lacks {', '.join(missing)}: {point!r}")
    return point


def number(value: float) -> float | str:
    """A float as JSON can hold it."""
    value = float(value)
    return value if math.isfinite(value) else ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf"))


def evaluate(point: dict[str, Any], name: str, opacus: Any) -> float | str | dict[str, str]:
    """One accountant's answer at one point (or its error)."""
    options = dict((point.get("options") or {}).get(name, {}))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the GDP accountant warns at construction that it can under-report
            if "target_epsilon" in point:
                return number(opacus.accountants.utils.get_noise_multiplier(
                    target_epsilon=point["target_epsilon"], target_delta=point["delta"],
                    sample_rate=point["sample_rate"], steps=int(point["steps"]), accountant=name, **options))
            accountant = opacus.accountants.create_accountant(mechanism=name)
            accountant.history = [(float(point["noise_multiplier"]), float(point["sample_rate"]), int(point["steps"]))]
            return number(accountant.get_epsilon(delta=float(point["delta"]), **options))
    except Exception as exc:  # noqa: BLE001 - every failure is a result to report
        return {"error": f"{type(exc).__name__}: {exc}"}


def run(points: list[Any], accountants: tuple[str, ...], opacus: Any) -> list[dict[str, Any]]:
    out = []
    for raw in points:
        try:
            point = parse(raw)
        except ValueError as exc:
            out.append({"error": str(exc)})
            continue
        names = tuple(point.get("accountants") or accountants)
        out.append({name: evaluate(point, name, opacus) for name in names})
    return out


def require_interpreter(python: str) -> None:
    """For the scripts that drive this one (from dpaudit's interpreter): exit 2, saying how to make one, unless
    ``python`` can import torch and opacus."""
    import subprocess

    try:
        probe = subprocess.run([python, "-c", "import torch, opacus"], capture_output=True, text=True)
    except OSError as exc:  # no such interpreter
        probe = subprocess.CompletedProcess([], 1, "", str(exc))
    if probe.returncode:
        last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"--opacus-python {python} cannot import torch and opacus ({last}); make one with python -m venv V; "
              "V/bin/pip install torch==2.13.0 opacus", file=sys.stderr)
        sys.exit(2)


def main(argv: list[str] | None = None, stdin: Any = None, stdout: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accountants", default=",".join(ACCOUNTANTS),
                        help=f"comma-separated, of {', '.join(ACCOUNTANTS)} (default all)")
    parser.add_argument("--memory-gb", type=float, default=0.0, help="address-space cap in GB (0: none)")
    args = parser.parse_args(argv)
    accountants = tuple(a for a in args.accountants.split(",") if a)
    unknown = [a for a in accountants if a not in ACCOUNTANTS]
    if unknown:
        parser.error(f"unknown accountant(s) {', '.join(unknown)}; known: {', '.join(ACCOUNTANTS)}")
    if args.memory_gb > 0:
        cap = int(args.memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    import opacus
    import opacus.accountants.utils
    import torch

    points = json.load(stdin or sys.stdin)
    if not isinstance(points, list):
        parser.error("stdin must hold a JSON list of points")
    json.dump({"opacus": opacus.__version__, "torch": torch.__version__,
               "results": run(points, accountants, opacus)}, stdout or sys.stdout)
    (stdout or sys.stdout).write("\n")


if __name__ == "__main__":
    main()
