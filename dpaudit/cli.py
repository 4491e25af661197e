"""The ``dpaudit`` command line: ``list``, ``run``, ``report``, ``audit`` and ``simulate``.

Exit codes: 0 every verdict matches its expectation; 1 some claim was refuted unexpectedly, or
an expected refutation was not reproduced; 2 usage error, bad input, or an audit that could not
run.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ._version import __version__
from .errors import DpauditError, MechanismError, UsageError

EPILOG = """\
exit codes: 0 every verdict matches its expectation; 1 a claim was refuted unexpectedly (or an
expected refutation was not reproduced); 2 usage error, bad input, or an audit that could not run.

examples:
  dpaudit list classic                      the claims of the classic suite
  dpaudit run --budget quick                audit every claim; the report goes to ./dpaudit-report
  dpaudit run 'classic/laplace-*' --seed 3  audit the claims matching a glob
  dpaudit audit mymech.py:mech --claim "pure-dp eps=0.5" --pair "[0, 1]"
  dpaudit simulate dist-mab/fig1@gap0.1,eps0.5 --runs 5   one configuration of a paper's figure
"""

SIMULATE_EPILOG = """\
PRESET is a paper's figure, e.g. dist-mab/fig1 (every configuration), one configuration of it,
dist-mab/fig1@gap0.1,eps0.5 (names from the figure's grid, values matched numerically; a name left
out matches every value), or a paper key (every figure of the paper). --list shows them all.

Writes OUT/<paper>/<figure>/<configuration>/<algorithm>.npz as each simulation finishes, then per
configuration plot.png, table.md and summary.json, and per figure table.md and summary.json.
Exit codes: 0 done; 2 unknown preset or configuration, or bad options.
"""

REPORT_EPILOG = """\
exit codes: 0 reports written; 2 DIR has no readable results.json.
with --compare: 0 nothing got worse; 1 a claim newly fails (refuted unexpectedly, an error, or a finding
not reproduced) in NEW_DIR; 2 bad input (a missing folder or results.json, a damaged file, bad options).

examples:
  dpaudit report dpaudit-report                       re-render the reports
  dpaudit report --compare main-run this-run          what changed, as text
  dpaudit report --compare old new --format markdown --out changes.md
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dpaudit",
        description="Audit differential-privacy claims: verify them exactly, refute them with a witness, "
        "or report that a statistical audit of stated power found no violation.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"dpaudit {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    sel_help = "paper key (e.g. dist-mab, classic), claim id, or glob over ids; none = everything"
    suite_help = "also load the suites in this module or .py file (repeatable)"

    ls = sub.add_parser("list", help="list claims with their subject, auditor and expected verdict",
                        description="List the claims the suites encode.")
    ls.add_argument("selectors", nargs="*", metavar="SELECTOR", help=sel_help)
    ls.add_argument("--suite", action="append", default=[], metavar="PATH", help=suite_help)
    ls.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ls.add_argument("--algorithms", action="store_true",
                    help="list the registered algorithms (registry name and what it is) instead of claims")

    rn = sub.add_parser(
        "run", help="audit the selected claims and write the reports",
        description="Audit the selected claims in parallel. results.json, report.md, report.html and "
        "junit.xml are written into --out as claims finish; an interrupted run can be resumed.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rn.add_argument("selectors", nargs="*", metavar="SELECTOR", help=sel_help)
    rn.add_argument("--budget", default="quick", choices=("quick", "standard", "thorough", "paper"),
                    help="how many samples and runs audits draw (default: quick, sized for CI); paper runs the "
                         "regret entries at the papers' horizons and run counts")
    rn.add_argument("--seed", type=int, default=0,
                    help="run seed; each claim's seed derives from it and its id (default 0)")
    rn.add_argument("--workers", type=int, default=None,
                    help="worker processes (default: all cores; 0 = run in this process)")
    rn.add_argument("--alpha", type=float, default=0.01,
                    help="family-wise false-refutation probability of the run, split over its statistical claims "
                         "(default 0.01)")
    rn.add_argument("--out", type=Path, default=Path("dpaudit-report"),
                    help="report directory (default ./dpaudit-report)")
    rn.add_argument("--resume", action="store_true",
                    help="keep claims already finished in --out with the same seed, budget and alpha")
    rn.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run the claims on a Dask cluster: a scheduler's address (tcp://host:8786) or local:N for a "
                         "local cluster of N worker processes (pip install 'dpaudit[dask]')")
    rn.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                    help="time limit per claim (default: the entry's, or 600 s at the quick budget)")
    rn.add_argument("--suite", action="append", default=[], metavar="PATH", help=suite_help)
    rn.add_argument("--no-progress", action="store_true", help="print one line per claim instead of a progress bar")

    rp = sub.add_parser("report", help="re-render the reports of a run directory, or compare two runs",
                        description="Re-render report.md, report.html and junit.xml from DIR/results.json, or "
                        "with --compare say what changed between two runs.",
                        epilog=REPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("dir", type=Path, metavar="DIR", nargs="?", help="the run folder (the --out of dpaudit run)")
    rp.add_argument("--compare", type=Path, nargs=2, metavar=("OLD_DIR", "NEW_DIR"),
                    help="compare two run folders: new and lost findings, verdicts that moved, claims newly failing")
    rp.add_argument("--format", choices=("text", "markdown", "json"), default=None,
                    help="of --compare (default text)")
    rp.add_argument("--out", type=Path, default=None, metavar="FILE",
                    help="write the --compare output to FILE (default: standard output)")

    au = sub.add_parser(
        "audit", help="audit your own mechanism",
        description="Audit a privacy claim about your own mechanism: MODULE:ATTR names a callable "
        "mech(data, size, rng) -> array (one output per row) or an object with .sample(data, size, rng), "
        "in an importable module or a .py file.",
        epilog='example: dpaudit audit mymech.py:mech --claim "pure-dp eps=0.5" --pair "[0, 1]" --pair "[1, 0]"',
    )
    au.add_argument("target", metavar="MODULE:ATTR")
    au.add_argument("--claim", required=True,
                    help='e.g. "pure-dp eps=0.1" or "approx-dp eps=1 delta=1e-6"')
    au.add_argument("--pair", action="append", required=True, metavar="JSON",
                    help='a pair of neighbouring inputs as JSON, e.g. "[0, 1]" or "[[0,0],[0,1]]" (repeatable)')
    au.add_argument("--relation", default=None,
                    help='check the pairs against a relation, e.g. "query-distance sensitivity=1" or "replace-one"')
    au.add_argument("--samples", type=int, default=1_000_000, help="samples per side of a pair (default 10^6)")
    au.add_argument("--confidence", type=float, default=0.99, help="confidence of a statistical verdict (default 0.99)")
    au.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    au.add_argument("--auditor", default="auto", choices=("auto", "exact", "statistical"))
    au.add_argument("--events", action="append", choices=("threshold", "cells", "rows", "classifier", "atoms"),
                    help="event family of the statistical auditor (repeatable; default chosen by output shape)")
    au.add_argument("--sequential", action="store_true",
                    help="confirm with anytime-valid confidence sequences and stop as soon as the claim is refuted")
    au.add_argument("--unseeded", action="store_true",
                    help="the mechanism draws its own randomness (dpaudit.unseeded): no reproducibility check")
    au.add_argument("--json", action="store_true", help="print the result record as JSON")
    rg = sub.add_parser(
        "regret", help="audit a regret claim about an algorithm (a bound's function is Python-only)",
        description="Audit a regret rate or an ordering by regret by simulating the algorithm(s) "
        "(dpaudit.audit_regret). POLICY is a registry name (dpaudit list --algorithms) or MODULE:ATTR naming "
        "your own policy object; an ordering's labels are registry names and takes no POLICY.",
        epilog='examples:\n  dpaudit regret ucb --env "BernoulliBandit([0.6, 0.5])" --claim "regret-rate T^0.5" '
        '--horizons 20000\n  dpaudit regret --env "BernoulliBandit([0.6, 0.5, 0.4])" --claim "regret-order ucb < '
        'dp-se" --param eps=1',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rg.add_argument("policy", nargs="?", metavar="POLICY")
    rg.add_argument("--env", required=True, metavar="ENV",
                    help='an environment of dpaudit.algorithms with literal arguments, e.g. "BernoulliBandit([0.6, '
                         '0.5])", or MODULE:ATTR')
    rg.add_argument("--claim", required=True, help='e.g. "regret-rate T^0.5 log^1" or "regret-order ucb < dp-se"')
    rg.add_argument("--horizons", default="10000",
                    help="the horizon (log-spaced rounds up to it) or a comma-separated list of rounds (default 10000)")
    rg.add_argument("--runs", type=int, default=200, help="independent runs (default 200)")
    rg.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="a constructor parameter of the registry algorithm(s), e.g. eps=0.5 (repeatable)")
    rg.add_argument("--values", default=None, help="for a rate in eps, d, K or n: comma-separated values")
    rg.add_argument("--confidence", type=float, default=0.99, help="confidence of a refutation (default 0.99)")
    rg.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    rg.add_argument("--workers", type=int, default=1, help="processes of each simulation (default 1)")
    rg.add_argument("--plot", type=Path, default=None, metavar="PNG", help="write the evidence plot to this file")
    rg.add_argument("--json", action="store_true", help="print the result record as JSON")
    sm = sub.add_parser(
        "simulate", help="simulate a paper's experiment (a figure, or one configuration of it)",
        description="Simulate a paper's experiment as a preset: every algorithm of a configuration on the same "
        "seed (the same instances), in parallel, with plots, tables and summaries.",
        epilog=SIMULATE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sm.add_argument("preset", nargs="?", metavar="PRESET", help="e.g. dist-mab/fig1 or dist-mab/fig1@gap0.1,eps0.5")
    sm.add_argument("--list", action="store_true", help="list the presets, their configurations and paper scale")
    sm.add_argument("--runs", type=int, default=None, help="runs per configuration (default: the paper's)")
    sm.add_argument("--horizon", type=int, default=None, help="rounds T (default: the paper's)")
    sm.add_argument("--out", type=Path, default=Path("dpaudit-simulations"),
                    help="output directory (default ./dpaudit-simulations)")
    sm.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    sm.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run the simulations on a Dask cluster (tcp://host:8786, or local:N), through joblib's "
                         "dask backend (pip install 'dpaudit[dask]')")
    sm.add_argument("--seed", type=int, default=None, help="seed of every configuration (default: the preset's, 0)")
    sm.add_argument("--no-progress", action="store_true",
                    help="no progress (default: a bar on a terminal, one line per simulation otherwise)")
    return p


def load_target(target: str) -> Any:
    """Load ``MODULE:ATTR`` (module name or path to a .py file; ATTR may be dotted)."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"{target!r}: expected MODULE:ATTR, e.g. mymech.py:mech or mypackage.mechs:laplace")
    path = Path(module_name)
    try:
        if module_name.endswith(".py") or path.is_file():
            if not path.is_file():
                raise UsageError(f"{module_name}: no such file")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            sys.modules.setdefault(path.stem, module)
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except UsageError:
        raise
    except ModuleNotFoundError as exc:
        raise UsageError(f"cannot import {module_name!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import
        raise UsageError(f"importing {module_name!r} raised {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{module_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if isinstance(obj, type):
        raise UsageError(f"{target} is a class; name an instance or a function (e.g. mech = {attr}(...))")
    return obj


def _parse_pair(text: str) -> tuple[Any, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--pair {text!r} is not valid JSON ({exc.msg}); write e.g. '[0, 1]'") from None
    if not isinstance(value, list) or len(value) != 2:
        raise UsageError(f"--pair {text!r} must be a JSON list of two inputs [d0, d1]")
    return value[0], value[1]


def _cmd_list(args: argparse.Namespace) -> int:
    from .suite import load_suites, select

    if args.algorithms:
        return _list_algorithms(args)

    entries = select(load_suites(args.suite), args.selectors)
    rows = [e.describe() for e in entries]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    cols = ("id", "expected", "auditor", "claim", "subject")
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) if rows else len(c) for c in cols}
    print("  ".join(c.upper().ljust(widths[c]) for c in cols).rstrip())
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in cols).rstrip())
    print(f"\n{len(rows)} claims")
    return 0


def _list_algorithms(args: argparse.Namespace) -> int:
    from .experiments import algorithm_registry

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

    from .runner.dask import connect, disconnect

    client, cluster = connect(scheduler)
    try:
        with joblib.parallel_config(backend="dask"):
            yield max(2, sum(client.nthreads().values()))
    finally:
        disconnect(client, cluster)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .experiment_reports import ordering_observation
    from .experiments import default_workers, load_presets, load_studies, power_text, run_preset, select_presets

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
    if study is not None:  # not a bandit simulation: its own runner, plot and table
        for path in study(args.out, runs=args.runs, horizon=args.horizon, seed=args.seed):
            print(f"  {path}")
        return 0
    select_presets(args.preset)  # an unknown name fails here, before anything is built
    with _simulation_backend(args.scheduler, args.workers) as cluster_workers:
        done = run_preset(args.preset, runs=args.runs, horizon=args.horizon, out=args.out,
                          workers=cluster_workers or args.workers or default_workers(), progress=not args.no_progress,
                          seed=args.seed)
    for preset, configs in done.selections:
        for config in configs:
            print(f"{preset.name}@{config.key}: T = {power_text(config.horizon)}, {config.runs} runs")
            for curve in config.curves:
                res = done.results[(preset.name, config.key, curve.label)]
                print(f"  {curve.label:<24} final pseudo-regret {res.mean()[-1]:10.4g} ± {res.stderr()[-1]:.2g}")
            observed = ordering_observation(preset, config, {c.label: done.results[(preset.name, config.key, c.label)]
                                                             for c in config.curves})
            if observed:
                print(f"  observed: {observed['text']}")
    for notice in done.stand_ins:
        print(f"note: {notice}")
    tables = [p for p in done.paths if p.name == "table.md"]
    print(f"{done.simulations} simulations in {done.seconds:.1f} s; {len(done.paths)} files written under {done.out}:")
    for path in (p for p in done.paths if p.suffix in (".md", ".png") or p.name == "summary.json"):
        print(f"  {path}")
    if not tables:
        print("  (no tables: nothing finished)")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from .records import describe_where
    from .runner import RunOptions, run

    summary = run(RunOptions(
        selectors=args.selectors, budget=args.budget, seed=args.seed, workers=args.workers, alpha=args.alpha,
        out=args.out, resume=args.resume, scheduler=args.scheduler, timeout=args.timeout,
        suite_paths=args.suite, progress_bar=False if args.no_progress else None,
    ))
    counts: dict[str, int] = {}
    for r in summary.records:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
        if r.outcome not in ("pass", "expected-refutation"):
            where = describe_where(r.error) if r.error else ""
            print(f"{r.outcome}: {r.claim_id}: {r.summary()}" + (f" (at {where})" if where else ""), file=sys.stderr)
    print(f"{len(summary.records)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    print(f"Report: {summary.out / 'report.html'} (also report.md, junit.xml, results.json)")
    return summary.exit_code


def _cmd_report(args: argparse.Namespace) -> int:
    from .reports import rerender

    if args.compare is not None:
        if args.dir is not None:
            raise UsageError("give either DIR (re-render its reports) or --compare OLD_DIR NEW_DIR, not both")
        return _compare(args.compare[0], args.compare[1], args.format or "text", args.out)
    if args.dir is None:
        raise UsageError("name the run folder DIR, or compare two with --compare OLD_DIR NEW_DIR")
    if args.format is not None or args.out is not None:
        raise UsageError("--format and --out go with --compare; a re-render writes its reports into DIR")
    if not (args.dir / "results.json").is_file():
        raise UsageError(f"{args.dir / 'results.json'} does not exist; run `dpaudit run --out {args.dir}` first")
    try:
        document = rerender(args.dir)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except (KeyError, TypeError, AttributeError) as exc:  # a field of the wrong shape in a hand-edited file
        raise UsageError(f"{args.dir / 'results.json'}: a record cannot be rendered ({type(exc).__name__}: "
                         f"{exc}); the file was edited or written by another program") from None
    print(f"{len(document['records'])} claims; report: {args.dir / 'report.html'}")
    return 0


def _compare(old_dir: Path, new_dir: Path, fmt: str, out: Path | None) -> int:
    """Print (or write to ``out``) what changed from the run in ``old_dir`` to the one in ``new_dir``;
    1 when a claim newly fails."""
    from .files import atomic_write
    from .reports.compare import compare_runs, load_run
    from .reports.compare_render import render

    try:
        comparison = compare_runs(load_run(old_dir), load_run(new_dir))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    text = render(comparison, fmt)
    if out is None:
        sys.stdout.write(text)
        return comparison.exit_code
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder; name the file to write")
    try:
        atomic_write(out, text.encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot be written ({exc.strerror or exc})") from None
    print(comparison.headline())
    for warning in comparison.warnings():
        print(f"warning: {warning}")
    print(f"Comparison: {out}")
    return comparison.exit_code


def _cmd_audit(args: argparse.Namespace) -> int:
    from .api import audit_privacy
    from .claims import parse_claim
    from .neighbours import parse_relation

    claim = parse_claim(args.claim)
    pairs = [_parse_pair(p) for p in args.pair]
    relation = parse_relation(args.relation) if args.relation else None
    mech = load_target(args.target)
    if args.unseeded:
        from .samplers import unseeded

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
        if witness and result.witness:
            print("  witness: " + json.dumps(result.witness))
        for note in result.notes:
            print(f"  note: {note}")
    return 1 if result.verdict == "refuted" else 0


def _literal(text: str, what: str) -> Any:
    import ast

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if text.replace("-", "").replace("_", "").isalnum():
            return text  # a bare word is a string
        raise UsageError(f"{what}: {text!r} is not a literal (number, string, list, ...)") from None


def parse_environment(text: str) -> Any:
    """``ClassName(literal arguments)`` of :mod:`dpaudit.algorithms.environments`, or ``MODULE:ATTR``."""
    import ast

    from .algorithms import environments

    if ":" in text and "(" not in text:
        return load_target(text)
    public = sorted(n for n in dir(environments) if n[:1].isupper())
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        node = None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id not in public:
        raise UsageError(f"--env {text!r}: expected an environment call such as 'BernoulliBandit([0.6, 0.5])' "
                         f"(one of {', '.join(public)}) or MODULE:ATTR")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except ValueError:
        raise UsageError(f"--env {text!r}: the arguments must be literals (numbers, strings, lists)") from None
    try:
        return getattr(environments, node.func.id)(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--env {text!r}: {exc}") from None


def _cmd_regret(args: argparse.Namespace) -> int:
    from .api import audit_regret
    from .claims import RegretBound, RegretOrder, parse_claim

    claim = parse_claim(args.claim)
    if isinstance(claim, RegretBound):  # parse_claim refuses bounds; kept for a clear message if that changes
        raise UsageError("a regret bound's function is Python-only: use dpaudit.audit_regret")
    params = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--param {item!r}: expected NAME=VALUE, e.g. eps=0.5")
        params[name.strip()] = _literal(value.strip(), f"--param {name}")
    environment = parse_environment(args.env)
    if isinstance(claim, RegretOrder):
        if args.policy:
            raise UsageError("an ordering names its algorithms in the claim (registry names); give no POLICY")
        policy: Any = {label: label for label in claim.labels}
    elif not args.policy:
        raise UsageError("name the POLICY: a registry name (dpaudit list --algorithms) or MODULE:ATTR")
    else:
        policy = load_target(args.policy) if ":" in args.policy else args.policy
    horizons: Any = [_literal(h, "--horizons") for h in args.horizons.split(",")]
    horizons = horizons[0] if len(horizons) == 1 else horizons
    settings: dict[str, Any] = {"workers": args.workers}
    if args.values is not None:
        settings["values"] = [_literal(v, "--values") for v in args.values.split(",")]
    try:
        result = audit_regret(policy, environment, claim, horizons=horizons, runs=args.runs,
                              confidence=args.confidence, seed=args.seed, params=params, **settings)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, DpauditError):
            raise
        raise UsageError(str(exc)) from None
    if args.plot is not None:
        from .plots import render

        png = render(result)
        if png is None:
            print("note: this result has nothing to plot", file=sys.stderr)
        else:
            args.plot.write_bytes(png)
    return _report_result(result, claim, args.json, "runs")


COMMANDS = {"list": _cmd_list, "run": _cmd_run, "report": _cmd_report, "audit": _cmd_audit, "regret": _cmd_regret,
            "simulate": _cmd_simulate}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
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
            print("dpaudit: interrupted; finished claims are in results.json (rerun with --resume)", file=sys.stderr)
        return 128 + getattr(exc, "signum", 2)  # 130 for SIGINT, 143 for SIGTERM, as a shell reports them


def _print_error(args: argparse.Namespace, exc: DpauditError) -> None:
    """One line on stderr; a mechanism's error says where in the user's code it was raised, and
    ``--json`` also prints the error (with the user's frames) as JSON on stdout."""
    from .records import describe_where, error_info

    kind = "mechanism error" if isinstance(exc, MechanismError) else "error"
    info = error_info(exc)
    where = describe_where(info) if isinstance(exc, MechanismError) else ""
    print(f"dpaudit {args.command}: {kind}: {exc}" + (f" (at {where})" if where else ""), file=sys.stderr)
    if getattr(args, "json", False) and args.command in ("audit", "regret"):
        print(json.dumps({"error": info}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
