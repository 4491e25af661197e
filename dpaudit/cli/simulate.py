"""``dpaudit simulate``: a paper's figure (or one configuration of it) simulated from its preset."""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator
from typing import Any

from ..core.errors import UsageError


def list_algorithms(args: argparse.Namespace) -> int:
    from ..bandits.experiments import algorithm_registry

    if args.selectors or args.suite:
        raise UsageError("--algorithms lists the algorithm registry; it takes no selector or --suite")
    registry = algorithm_registry()
    rows = [{"name": name, "description": _first_line(make)} for name, make in registry.items()]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    if not rows:
        print("no algorithms registered")
        return 0
    width = max(len("NAME"), *(len(r["name"]) for r in rows))
    print(f"{'NAME'.ljust(width)}  DESCRIPTION")
    for r in rows:
        print(f"{r['name'].ljust(width)}  {r['description']}".rstrip())
    print(f"\n{len(rows)} algorithms")
    return 0


def _first_line(obj: Any) -> str:
    doc = (getattr(obj, "__doc__", None) or "").strip()
    return doc.splitlines()[0].strip() if doc else "(no docstring)"


@contextlib.contextmanager
def _simulation_backend(scheduler: str | None, workers: int | None) -> Iterator[int | None]:
    """joblib's dask backend on the cluster at ``scheduler`` (yielding its worker threads), or nothing."""
    if scheduler is None:
        yield None
        return
    if workers is not None:
        raise UsageError("--workers is for local runs; on a Dask cluster the cluster's workers run the simulations")
    import joblib

    from ..runner.dask import connect, disconnect

    client, cluster = connect(scheduler)
    try:
        with joblib.parallel_config(backend="dask"):
            yield max(2, sum(client.nthreads().values()))
    finally:
        disconnect(client, cluster)


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..bandits.experiments import (
        default_workers,
        load_presets,
        load_studies,
        power_text,
        run_preset,
        select_presets,
    )
    from ..bandits.experiments.reports import ordering_observation

    if args.list:
        if args.preset:
            raise UsageError("--list takes no PRESET")
        for preset in load_presets().values():
            print(f"{preset.name}  {preset.title}")
            print(f"    paper scale: {preset.scale()}")
            print(f"    configurations: {' '.join(c.key for c in preset.configurations)}")
            print(f"    algorithms: {', '.join(preset.labels())}")
            if preset.stand_in:
                print("    uses a synthetic stand-in for data that is not fetched")
            if preset.with_data is not None:
                print("    takes --data PATH: the real data file in place of the stand-in")
            print("    constants: theorem" + (", released-code" if preset.released_code is not None else
                                               " (no released-code constants)"))
        for name, runner in load_studies().items():
            print(f"{name}  {_first_line(runner)} (a study, not a bandit simulation)")
        return 0
    if not args.preset:
        raise UsageError("name a PRESET (e.g. dist-mab/fig1@gap0.1,eps0.5), or --list them")
    for option in ("runs", "horizon", "workers"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise UsageError(f"--{option} must be at least 1, got {value}")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {args.seed}")
    study = load_studies().get(args.preset.strip().casefold())
    if study is not None and args.data is not None:
        raise UsageError(f"--data: {args.preset} is a study, not a preset that reads a data file")
    if study is not None:  # not a bandit simulation: its own runner, plot and table
        for path in study(args.out, runs=args.runs, horizon=args.horizon, seed=args.seed):
            print(f"  {path}")
        return 0
    select_presets(args.preset)  # an unknown name fails here, before anything is built
    with _simulation_backend(args.scheduler, args.workers) as cluster_workers:
        done = run_preset(args.preset, runs=args.runs, horizon=args.horizon, out=args.out,
                          workers=cluster_workers or args.workers or default_workers(), progress=not args.no_progress,
                          seed=args.seed, data=args.data, constants=args.constants)
    for preset, configs in done.selections:
        for config in configs:
            print(f"{preset.shown_name}@{config.key}: T = {power_text(config.horizon)}, {config.runs} runs")
            for curve in config.curves:
                res = done.results[(preset.name, config.key, curve.label)]
                print(f"  {curve.label:<24} final pseudo-regret {res.mean()[-1]:10.4g} ± {res.stderr()[-1]:.2g}")
            observed = ordering_observation(preset, config, {c.label: done.results[(preset.name, config.key, c.label)]
                                                             for c in config.curves})
            if observed:
                print(f"  observed: {observed['text']}")
    for preset, _ in done.selections:
        if preset.data:
            print(f"{preset.name}: {preset.data}")
        print(f"{preset.name}: {preset.constants_line}")
    for notice in done.stand_ins:
        print(f"note: {notice}")
    tables = [p for p in done.paths if p.name == "table.md"]
    print(f"{done.simulations} simulations in {done.seconds:.1f} s; {len(done.paths)} files written under {done.out}:")
    for path in (p for p in done.paths if p.suffix in (".md", ".png") or p.name == "summary.json"):
        print(f"  {path}")
    if not tables:
        print("  (no tables: nothing finished)")
    return 0
