"""A run three times into one folder, side by side: cold (every claim), warm (nothing changed: every record
reused) and after one mechanism file changed (only the claims whose subject uses it run again), each as
``dpaudit run`` in a fresh interpreter, with its wall time, how many claims ran, and the ratio to the cold run.

    python benchmarks/incremental_run.py [SELECTOR ...] [--budget quick] [--workers N]
        [--touch mechanisms/classic/sparse_vector.py] [--suite FILE.py]

(default: every suite at the quick budget, one comment line appended to ``--touch`` for the third run and
removed afterwards). The targets: a cold quick run within 5 minutes on 2 cores, a warm one within 30 s.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOUCH = ROOT / "mechanisms" / "classic" / "sparse_vector.py"


def timed_run(args: argparse.Namespace, out: Path) -> tuple[float, int, int]:
    """Wall seconds of one ``dpaudit run`` into ``out``, the claims it audited and the records it reused."""
    command = [sys.executable, "-m", "dpaudit", "run", *args.selectors, "--budget", args.budget, "--out", str(out),
               "--no-progress"]
    command += ["--workers", str(args.workers)] if args.workers is not None else []
    for suite in args.suite:
        command += ["--suite", suite]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=args.cwd)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1) or not (out / "results.json").is_file():
        raise SystemExit(f"dpaudit run failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    records = json.loads((out / "results.json").read_text())["records"]
    reused = sum(bool(r.get("reused")) for r in records)
    return seconds, len(records) - reused, reused


def measure(args: argparse.Namespace) -> list[tuple[str, float, int, int]]:
    touch = Path(args.touch)
    if not touch.is_file():
        raise SystemExit(f"--touch {touch}: no such file")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report"
        rows.append(("cold", *timed_run(args, out)))
        rows.append(("warm, nothing changed", *timed_run(args, out)))
        original = touch.read_bytes()
        try:
            touch.write_bytes(original + b"\n# changed for benchmarks/incremental_run.py\n")
            rows.append((f"{touch.name} changed", *timed_run(args, out)))
        finally:
            touch.write_bytes(original)
    return rows


def main(argv: list[str] | None = None) -> list[tuple[str, float, int, int]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("selectors", nargs="*")
    parser.add_argument("--budget", default="quick")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--touch", default=str(TOUCH), help="the file changed before the third run (restored)")
    parser.add_argument("--suite", action="append", default=[], help="a suite file, as for dpaudit run")
    parser.add_argument("--cwd", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    rows = measure(args)
    cold = rows[0][1]
    print(f"{'run':<32} {'seconds':>9} {'audited':>8} {'reused':>7} {'vs cold':>8}")
    for name, seconds, audited, reused in rows:
        print(f"{name:<32} {seconds:9.1f} {audited:8d} {reused:7d} {seconds / cold:8.3f}")
    return rows


if __name__ == "__main__":
    main()
