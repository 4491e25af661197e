"""A suite run on a Dask LocalCluster against the same run in local worker processes, side by side:
both wall times, their ratio, and whether results.json is the same apart from timings.

    python benchmarks/dask_run.py [SELECTOR ...] [--workers 2] [--budget quick]

(default selector: classic). Needs ``pip install 'dpaudit[dask]'``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from dpaudit.runner import RunOptions, run


def untimed(value):
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in ("seconds", "started", "finished", "digest")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("selectors", nargs="*", default=["classic"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", default="quick")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        timings, documents = {}, {}
        for name, where in (("local", {"workers": args.workers}), ("dask", {"scheduler": f"local:{args.workers}"})):
            out = Path(tmp) / name
            start = time.perf_counter()
            summary = run(RunOptions(selectors=args.selectors, budget=args.budget, out=out, progress_bar=False,
                                     **where))
            timings[name] = time.perf_counter() - start
            documents[name] = json.loads((out / "results.json").read_text())
            print(f"{name:6s} {timings[name]:8.1f} s  {len(summary.records)} claims, exit {summary.exit_code}")
    same = untimed(documents["local"]) == untimed(documents["dask"])
    print(f"ratio (dask / local) {timings['dask'] / timings['local']:.2f}; results.json apart from timings: "
          f"{'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
