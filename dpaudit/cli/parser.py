"""The command line's grammar: every subcommand, its options and its help."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._version import __version__
from .inputs import count

EPILOG = """\
exit codes: 0 every verdict matches its expectation; 1 a claim was refuted unexpectedly (or an
expected refutation was not reproduced); 2 usage error, bad input, or an audit that could not run.

examples:
  dpaudit list classic                      the claims of the classic suite
  dpaudit run --budget quick                audit every claim; the report goes to ./dpaudit-report
  dpaudit run 'classic/laplace-*' --seed 3  audit the claims matching a glob
  dpaudit audit mymech.py:mech --claim "pure-dp eps=0.5" --pair "[0, 1]"
  dpaudit simulate dist-mab/fig1@gap0.1,eps0.5 --runs 5   one configuration of a paper's figure
  dpaudit dpsgd --sampler poisson --rate 0.01 --noise 1 --steps 1000 --claim "approx-dp eps=2 delta=1e-5"
"""

SIMULATE_EPILOG = """\
PRESET is a paper's figure, e.g. dist-mab/fig1 (every configuration), one configuration of it,
dist-mab/fig1@gap0.1,eps0.5 (names from the figure's grid, values matched numerically; a name left
out matches every value), or a paper key (every figure of the paper). --list shows them all.

Writes OUT/<paper>/<figure>/<configuration>/<algorithm>.npz as each simulation finishes, then per
configuration plot.png, table.md and summary.json, and per figure table.md and summary.json.

Constants: --constants theorem (the default) runs the paper's constants as printed; --constants
released-code runs those of the authors' released code (e.g. dist-mab's batches 4^b, where
Algorithm 1 prints 2^b), written under OUT/<paper>/<figure>-released-code/. Every record, table and
summary names the set; a preset without released-code constants refuses them (exit 2).
Exit codes: 0 done; 2 unknown preset or configuration, or bad options.
"""

REPORT_EPILOG = """\
exit codes: 0 reports written; 2 DIR has no readable results.json (with --format csv: or no records).
with --compare: 0 nothing got worse; 1 a claim newly fails (refuted unexpectedly, an error, or a finding
not reproduced) in NEW_DIR; 2 bad input (a missing folder or results.json, a damaged file, bad options,
two runs that share no claim).

examples:
  dpaudit report dpaudit-report                       re-render the reports
  dpaudit report --compare main-run this-run          what changed, as text
  dpaudit report --compare old new --format markdown --out changes.md
  dpaudit report dpaudit-report --format csv          the results table, one row per claim: results.csv
"""


def build_parser() -> argparse.ArgumentParser:
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
    ls.add_argument("--long", action="store_true",
                    help="a table with the expected verdict, auditor, claim and subject (default: one short line each)")
    ls.add_argument("--json", action="store_true", help="print every field of every claim as JSON")
    ls.add_argument("--algorithms", action="store_true",
                    help="list the registered algorithms (registry name and what it is) instead of claims")

    rn = sub.add_parser(
        "run", help="audit the selected claims and write the reports",
        description="Audit the selected claims in parallel. results.json, report.md, report.html and "
        "junit.xml are written into --out as claims finish. A run into a folder that holds an earlier run reuses "
        "the records whose content key (a hash of the subject's code and parameters, the claim, the neighbours, "
        "the budget, the seed, the auditors' code and the versions) is unchanged, and audits only the rest.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rn.add_argument("selectors", nargs="*", metavar="SELECTOR", help=sel_help)
    rn.add_argument("--budget", default="quick", choices=("quick", "standard", "thorough", "paper"),
                    help="how many samples and runs audits draw (default: quick, sized for CI); paper runs the "
                         "regret entries at the papers' horizons and run counts")
    rn.add_argument("--seed", type=int, default=0,
                    help="run seed; each claim's seed derives from it and its id (default 0)")
    rn.add_argument("--workers", type=count, default=None,
                    help="worker processes (default: all cores; 0 = run in this process)")
    rn.add_argument("--alpha", type=float, default=0.01,
                    help="family-wise false-refutation probability of the run, split over its statistical claims "
                         "(default 0.01)")
    rn.add_argument("--out", type=Path, default=Path("dpaudit-report"),
                    help="report directory (default ./dpaudit-report)")
    rn.add_argument("--resume", action="store_true",
                    help="resume an interrupted run: as without it, but refuse a folder made with another seed, "
                         "budget or alpha (whose records could not be reused)")
    rn.add_argument("--fresh", action="store_true",
                    help="audit every claim again, reusing none of the records already in --out")
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
    rp.add_argument("--format", choices=("text", "markdown", "json", "csv"), default=None,
                    help="of --compare: text (default), markdown or json; with DIR: csv writes the results table "
                         "(one row per claim) instead of re-rendering the reports")
    rp.add_argument("--out", type=Path, default=None, metavar="FILE",
                    help="write the --compare output to FILE (default: standard output); with DIR --format csv, "
                         "the table (default DIR/results.csv)")

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
    au.add_argument("--samples", type=count, default=1_000_000,
                    help="samples per side of a pair, e.g. 1000000 or 1e6 (default 10^6)")
    au.add_argument("--confidence", type=float, default=0.99, help="confidence of a statistical verdict (default 0.99)")
    au.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    au.add_argument("--auditor", default="auto", choices=("auto", "exact", "statistical"))
    au.add_argument("--events", action="append", choices=("threshold", "cells", "rows", "classifier", "atoms"),
                    help="event family of the statistical auditor (repeatable; default chosen by output shape)")
    au.add_argument("--sequential", action=argparse.BooleanOptionalAction, default=None,
                    help="bet on every batch and stop as soon as the claim is refuted (the default for pure and "
                         "approximate DP claims); --no-sequential draws the whole budget")
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
                    help="the horizon (log-spaced rounds up to it) or a comma-separated list of rounds, each e.g. "
                         "20000 or 2e4 (default 10000)")
    rg.add_argument("--runs", type=count, default=200, help="independent runs (default 200)")
    rg.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="a constructor parameter of the registry algorithm(s), e.g. eps=0.5 (repeatable)")
    rg.add_argument("--values", default=None, help="for a rate in eps, d, K, n or B: comma-separated values")
    rg.add_argument("--confidence", type=float, default=0.99, help="confidence of a refutation (default 0.99)")
    rg.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    rg.add_argument("--workers", type=count, default=1, help="processes of each simulation (default 1)")
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
    sm.add_argument("--runs", type=count, default=None, help="runs per configuration (default: the paper's)")
    sm.add_argument("--data", type=Path, default=None, metavar="PATH",
                    help="a data file for presets that use a real data set (dist-mab/fig1-mslr and fig5: MSLR-WEB10K "
                         "in LETOR format, e.g. Fold1/train.txt); without it they use their synthetic stand-in")
    sm.add_argument("--horizon", type=count, default=None, help="rounds T, e.g. 100000 or 1e5 (default: the paper's)")
    sm.add_argument("--constants", choices=("theorem", "released-code"), default="theorem",
                    help="the constant set: 'theorem', the paper's as printed (default), or 'released-code', the "
                         "authors' released code's (exploration scales, p, batch growth, warm-up, generator; "
                         "--list says which presets have them); recorded in every file written")
    sm.add_argument("--out", type=Path, default=Path("dpaudit-simulations"),
                    help="output directory (default ./dpaudit-simulations)")
    sm.add_argument("--workers", type=count, default=None, help="worker processes (default: all cores)")
    sm.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run the simulations on a Dask cluster (tcp://host:8786, or local:N), through joblib's "
                         "dask backend (pip install 'dpaudit[dask]')")
    sm.add_argument("--seed", type=int, default=None, help="seed of every configuration (default: the preset's, 0)")
    sm.add_argument("--no-progress", action="store_true",
                    help="no progress (default: a bar on a terminal, one line per simulation otherwise)")
    from .canary import add_parser as add_canary
    from .dpsgd import add_parser as add_dpsgd

    add_dpsgd(sub)
    add_canary(sub)
    return p
