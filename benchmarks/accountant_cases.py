"""Reported problems of privacy accountants, rerun with the installed versions and held against certified brackets.

    python benchmarks/accountant_cases.py [--opacus-python PYTHON] [--only ID[,ID...]]

Each case is an upstream report (issue or pull request): its configuration, what the accountant returns now, the
certified bracket of :func:`dpaudit.exact.accounting.certify` for the same run, and a verdict ("still present:
refuted", "still present: crash", "not reproduced with <library> <version>", ...). The Opacus cases need an
interpreter with torch and opacus (``--opacus-python``; python -m venv V; V/bin/pip install torch==2.13.0 opacus);
without one they are listed as skipped. Prints a markdown table. Takes about two minutes (certifying the runs of
eps near 57 takes most of it).

The cases (DP-SGD runs: noise multiplier z = std / C, Poisson rate q, k steps):

- google/differential-privacy#378 (fix PR #464 open): dp-accounting's RDP of SampledWithoutReplacementDpEvent under
  REPLACE_ONE, given z as GaussianDpEvent documents it.
- pytorch/opacus#384, #400: the GDP accountant can under-report (#400 added a warning).
- pytorch/opacus#775: the GDP accountant's noise search fails at large target epsilon (a fixed root bracket).
- pytorch/opacus#585 (PR #844 open): negative epsilon from the PRV (and RDP) accountant.
- pytorch/opacus#601, #606: the PRV accountant's "Discrete mean differs from continuous mean significantly" (fixed
  in Opacus by #606; the point is microsoft/prv_accountant#36's).
- pytorch/opacus#346, #348: the noise search overshooting the target epsilon (made conservative by #348).
- microsoft/prv_accountant#17: delta 1.1e-18 against 1.13e-18 moving epsilon from 0.056 to 3.8.
- yuxiangw/autodp#2: calibrating by the subsampling lemma's inverse against by RDP.
- Accounting shuffled batches as Poisson (TF-Privacy's compute_dp_sgd_privacy, Opacus's default): not a bug report
  but the practice the libraries document ("a good approximation", "closer to" the Poisson value).
"""

# no ``from __future__ import annotations``: the dataclass below would then look its module up in sys.modules,
# which a script loaded by path is not in
import argparse
import json
import math
import subprocess
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from opacus_driver import require_interpreter  # benchmarks/ is on sys.path when a script runs

from dpaudit.adapters import accountants as adapters
from dpaudit.core.dpsgd import DPSGDConfig, FixedSizeBatches, PoissonBatches, ShuffledBatches

DRIVER = Path(__file__).with_name("opacus_driver.py")


@dataclass
class Outcome:
    """One row of the table."""

    case: str
    configuration: str
    accountant: str
    returns: str
    certified: str
    verdict: str


@dataclass
class Context:
    """What a case may use: Opacus's driver (when an interpreter was given) and the certified brackets."""

    opacus_python: str | None = None
    opacus_version: str = ""
    cache: dict = field(default_factory=dict)

    def bracket(self, config: DPSGDConfig, delta: float) -> tuple[float, float]:
        from dpaudit.exact.accounting import certify

        key = (config, delta)
        if key not in self.cache:
            b = certify(config, delta=delta)
            self.cache[key] = (b.eps_lower, b.eps_upper)
        return self.cache[key]

    def opacus(self, points: list[Any]) -> list[dict[str, Any]]:
        done = subprocess.run([self.opacus_python, str(DRIVER)], input=json.dumps(points), capture_output=True,
                              text=True)
        if done.returncode:
            raise RuntimeError(f"the Opacus driver failed: {done.stderr.strip()[-500:]}")
        document = json.loads(done.stdout)
        self.opacus_version = document["opacus"]
        return document["results"]


def package(name: str) -> str:
    try:
        return f"{name} {version(name)}"
    except PackageNotFoundError:
        return f"{name} (not installed)"


def show(lo: float, hi: float) -> str:
    return f"[{lo:.4g}, {hi:.4g}]" if math.isfinite(hi) else f"[{lo:.4g}, inf)"


def value(v: Any) -> str:
    if isinstance(v, dict):
        return "raises " + v.get("error", "?").split(". ")[0][:90]
    if isinstance(v, str):
        return v
    return f"{v:.4g}"


def numeric(v: Any) -> float | None:
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    return None


def poisson(q: float, z: float, k: int, relation: str = "add-remove") -> DPSGDConfig:
    return DPSGDConfig(PoissonBatches(q), z, steps=k, relation=relation)


def describe(config: DPSGDConfig, delta: float) -> str:
    s = config.sampler
    if isinstance(s, PoissonBatches):
        sampler = f"Poisson q={s.rate:g}"
    elif isinstance(s, FixedSizeBatches):
        sampler = f"fixed-size {s.batch} of {s.size}"
    else:
        sampler = f"shuffled {s.batch} of {s.size}, {config.epochs} epochs"
    return f"{sampler}, z={config.noise_multiplier:g}, k={config.steps}, delta={delta:g}, {config.relation}"


# -- the cases -----------------------------------------------------------------------------------------------------


def dp_accounting_378(ctx: Context) -> list[Outcome]:
    config = DPSGDConfig(FixedSizeBatches(100, 10_000), 1.0, steps=1000, relation="replace-one")
    delta = 1e-5
    lo, hi = ctx.bracket(config, delta)
    rdp = adapters.DPAccountingRDP()
    eps = rdp.epsilon(config, delta)
    halved = rdp.epsilon(DPSGDConfig(config.sampler, 0.5, steps=1000, relation="replace-one"), delta)
    verdict = (f"still present in {package('dp-accounting')}: refuted ({eps:.3g} < {lo:.4g}); given z / 2 = "
               f"std / (2C) it reports {halved:.4g}, above the certified upper bound" if eps < lo else
               f"not reproduced with {package('dp-accounting')}")
    return [Outcome("google/differential-privacy#378", describe(config, delta),
                    "dp-accounting RDP, SampledWithoutReplacementDpEvent(10000, 100, GaussianDpEvent(1.0)), "
                    "REPLACE_ONE", f"{eps:.4g}", show(lo, hi), verdict)]


def opacus_gdp_384(ctx: Context) -> list[Outcome]:
    config, delta = poisson(0.01, 1.0, 1000), 1e-5
    lo, hi = ctx.bracket(config, delta)
    got = ctx.opacus([[1.0, 0.01, 1000, delta]])[0]["gdp"]
    eps = numeric(got)
    verdict = (f"still present in opacus {ctx.opacus_version}: refuted ({eps:.4g} < {lo:.4g}); #400 added a "
               "warning, the accounting is unchanged" if eps is not None and eps < lo
               else f"not reproduced with opacus {ctx.opacus_version} at this point")
    return [Outcome("pytorch/opacus#384, #400", describe(config, delta), "Opacus GaussianAccountant (poisson=True)",
                    value(got), show(lo, hi), verdict)]


def opacus_gdp_775(ctx: Context) -> list[Outcome]:
    out = []
    rows = [{"target_epsilon": t, "sample_rate": 0.01, "steps": 1000, "delta": 1e-5, "accountants": ["gdp"]}
            for t in (4.0, 9.0, 10.0)]
    rows.append({"noise_multiplier": 10.0, "sample_rate": 1e-4, "steps": 1, "delta": 1e-2, "accountants": ["gdp"]})
    results = ctx.opacus(rows)
    for row, result in zip(rows[:3], results[:3]):
        got = result["gdp"]
        crashed = isinstance(got, dict)
        out.append(Outcome("pytorch/opacus#775", f"noise search: target eps {row['target_epsilon']:g}, q=0.01, "
                           "k=1000, delta=1e-5", "Opacus get_noise_multiplier(accountant='gdp')", value(got),
                           "", f"still present in opacus {ctx.opacus_version}: crash (its bisection reaches a sigma "
                           "whose epsilon lies beyond its root bracket [0, 500])" if crashed else
                           "answers"))
    config, delta = poisson(1e-4, 10.0, 1), 1e-2
    lo, hi = ctx.bracket(config, delta)
    got = results[3]["gdp"]
    eps = numeric(got)
    out.append(Outcome("pytorch/opacus#775", describe(config, delta), "Opacus GaussianAccountant.get_epsilon",
                       value(got), show(lo, hi), f"still present in opacus {ctx.opacus_version}: crash (the same "
                       "bracket, here at epsilon 0: delta(0) is already below the target)" if isinstance(got, dict)
                       else (f"refuted ({eps:.4g} < {lo:.4g})" if eps is not None and eps < lo else "answers")))
    return out


def opacus_prv_585(ctx: Context) -> list[Outcome]:
    config, delta = poisson(1e-4, 10.0, 1), 1e-2
    lo, hi = ctx.bracket(config, delta)
    got = ctx.opacus([[10.0, 1e-4, 1, delta]])[0]
    out = []
    for name in ("prv", "rdp"):
        eps = numeric(got[name])
        verdict = (f"still present in opacus {ctx.opacus_version}: negative epsilon (PR #844 open)"
                   if eps is not None and eps < 0 else f"not reproduced with opacus {ctx.opacus_version}")
        out.append(Outcome("pytorch/opacus#585", describe(config, delta), f"Opacus {name.upper()}Accountant",
                           value(got[name]), show(lo, hi), verdict))
    prv = adapters.PRVAccountant()
    eps = prv.epsilon(config, delta)
    out.append(Outcome("pytorch/opacus#585", describe(config, delta), f"{package('prv-accountant')} PRVAccountant "
                       "(upper value, eps_error 0.01)", f"{eps:.4g}", show(lo, hi),
                       "the same in prv-accountant: negative epsilon" if eps < 0 else "not reproduced"))
    return out


def opacus_prv_601(ctx: Context) -> list[Outcome]:
    config, delta = poisson(0.125, 0.8, 1000), 1e-6
    lo, hi = ctx.bracket(config, delta)
    options = {"prv": {"eps_error": 0.1, "delta_error": 1e-10}}
    got = ctx.opacus([{"noise_multiplier": 0.8, "sample_rate": 0.125, "steps": 1000, "delta": delta,
                       "options": options, "accountants": ["prv"]}])[0]["prv"]
    ours = adapters.PRVAccountant(eps_error=0.1, delta_error=1e-10)
    try:
        theirs = f"{ours.epsilon(config, delta):.4g}"
        crashed = False
    except Exception as exc:  # noqa: BLE001 - the crash is the finding
        theirs, crashed = f"raises {type(exc).__name__}: {str(exc).split('.')[0]}", True
    eps = numeric(got)
    return [Outcome("pytorch/opacus#601, #606", describe(config, delta) + " (eps_error 0.1, delta_error 1e-10)",
                    "Opacus PRVAccountant", value(got), show(lo, hi),
                    f"not reproduced with opacus {ctx.opacus_version} (#606's fix is in)"
                    + (f"; refuted ({eps:.4g} < {lo:.4g})" if eps is not None and eps < lo else "")
                    if eps is not None else f"still present in opacus {ctx.opacus_version}: crash"),
            Outcome("microsoft/prv_accountant#36", describe(config, delta) + " (eps_error 0.1, delta_error 1e-10)",
                    f"{package('prv-accountant')} PRVAccountant", theirs, show(lo, hi),
                    f"still present in {package('prv-accountant')} (the latest release): crash" if crashed
                    else f"not reproduced with {package('prv-accountant')}")]


def opacus_search_346(ctx: Context) -> list[Outcome]:
    targets = (1.0, 4.0, 8.0)
    q, k, delta = 0.01, 1000, 1e-5
    names = ("rdp", "prv", "gdp")
    searched = ctx.opacus([{"target_epsilon": t, "sample_rate": q, "steps": k, "delta": delta,
                            "accountants": list(names)} for t in targets])
    asks, where = [], []
    for t, found in zip(targets, searched):
        for name in names:
            sigma = numeric(found[name])
            if sigma is not None:
                asks.append({"noise_multiplier": sigma, "sample_rate": q, "steps": k, "delta": delta,
                             "accountants": [name]})
                where.append((t, name, sigma))
    again = ctx.opacus(asks)
    out = []
    for (t, name, sigma), result in zip(where, again):
        own = numeric(result[name])
        lo, hi = ctx.bracket(poisson(q, sigma, k), delta)
        over_own = own is not None and own > t
        verdict = ("still present: its own epsilon at the returned sigma exceeds the target" if over_own else
                   f"not reproduced with opacus {ctx.opacus_version} (its own epsilon {own:.4g} <= {t:g})")
        if lo > t:
            verdict += f"; but the certified epsilon exceeds the target ({lo:.4g} > {t:g}): GDP under-reports (#384)"
        out.append(Outcome("pytorch/opacus#346, #348", f"target eps {t:g}, q={q:g}, k={k}, delta={delta:g}",
                           f"Opacus get_noise_multiplier(accountant='{name}')", f"sigma {sigma:.5g}",
                           show(lo, hi) + f" at sigma {sigma:.5g}", verdict))
    return out


def prv_17(ctx: Context) -> list[Outcome]:
    out = []
    for delta in (1.1e-18, 1.13e-18, 1e-15, 1e-14):
        config = poisson(0.00033, 4.0, 10_000)
        lo, hi = ctx.bracket(config, delta)
        accountant = adapters.PRVAccountant(eps_error=0.1)  # the report's command line: eps_error 0.1, delta / 1000
        try:
            got = "{:.4g} / {:.4g} / {:.4g}".format(*accountant.bounds(config, delta))
            verdict = "answers (the smallest of these deltas it does); its upper value is above the certified one"
        except Exception as exc:  # noqa: BLE001
            got = f"raises {type(exc).__name__}: {str(exc).split('.')[0]}"
            verdict = (f"not reproduced with {package('prv-accountant')}: it now refuses deltas this small instead "
                       "of answering 0.056 or 3.8")
        out.append(Outcome("microsoft/prv_accountant#17", describe(config, delta), "prv-accountant PRVAccountant "
                           "(lower / estimate / upper, eps_error 0.1)", got, show(lo, hi), verdict))
    return out


def autodp_2(ctx: Context) -> list[Outcome]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # autodp 0.2.3.1's privacy_calibrator imported first fails on a circular import: rdp_acct goes first
        from autodp import rdp_acct  # noqa: F401, I001
        from autodp import privacy_calibrator as pc  # noqa: I001

        eps0, delta0 = pc.subsample_epsdelta_inverse(1.0, 1e-6, prob=0.01)
        lemma = pc.gaussian_mech(eps0, delta0)["sigma"]
        rdp = pc.gaussian_mech(1.0, 1e-6, prob=0.01)["sigma"]
    out = []
    for how, sigma in (("subsample_epsdelta_inverse then gaussian_mech", lemma), ("gaussian_mech(prob=0.01)", rdp)):
        config = poisson(0.01, sigma, 1)
        lo, hi = ctx.bracket(config, 1e-6)
        out.append(Outcome("yuxiangw/autodp#2", "calibrate one Poisson step, q=0.01, to (1, 1e-6)",
                           f"{package('autodp')} privacy_calibrator: {how}", f"sigma {sigma:.5g}",
                           show(lo, hi) + f" at sigma {sigma:.5g}",
                           f"reproduced with {package('autodp')} (the report's {0.9366 if sigma < 1 else 1.2585}); "
                           + ("not refuted: certified eps <= 1, so the smaller sigma is valid too (the two are "
                              "different analyses, the subsampling lemma the tighter for one step)" if hi <= 1
                              else "refuted: certified eps above 1")))
    return out


def as_poisson(ctx: Context) -> list[Outcome]:
    config, delta = DPSGDConfig(ShuffledBatches(100, 10_000), 1.0, epochs=10, relation="zero-out"), 1e-5
    lo, hi = ctx.bracket(config, delta)
    out = []
    for accountant in (adapters.DPAccountingRDP(assume_poisson=True), adapters.DPAccountingPLD(assume_poisson=True)):
        eps = accountant.epsilon(config, delta)
        out.append(Outcome("shuffled batches accounted as Poisson", describe(config, delta),
                           f"{accountant.name} at q = 0.01 (TF-Privacy's compute_dp_sgd_privacy, Opacus)",
                           f"{eps:.4g}", show(lo, hi),
                           f"refuted ({eps:.3g} < {lo:.4g}): shuffling is not Poisson sampling" if eps < lo else
                           "not refuted"))
    return out


CASES: dict[str, tuple[Callable[[Context], list[Outcome]], bool]] = {  # id -> (case, needs Opacus)
    "dp-accounting-378": (dp_accounting_378, False),
    "opacus-384": (opacus_gdp_384, True),
    "opacus-775": (opacus_gdp_775, True),
    "opacus-585": (opacus_prv_585, True),
    "opacus-601": (opacus_prv_601, True),
    "opacus-346": (opacus_search_346, True),
    "prv-17": (prv_17, False),
    "autodp-2": (autodp_2, False),
    "as-poisson": (as_poisson, False),
}


def main(argv: list[str] | None = None) -> list[Outcome]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opacus-python", help="an interpreter with torch and opacus (benchmarks/opacus_driver.py)")
    parser.add_argument("--only", help=f"comma-separated case ids, of {', '.join(CASES)}")
    args = parser.parse_args(argv)
    chosen = list(CASES) if not args.only else args.only.split(",")
    unknown = [c for c in chosen if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    if args.opacus_python:
        require_interpreter(args.opacus_python)
    ctx = Context(opacus_python=args.opacus_python)
    outcomes: list[Outcome] = []
    start = time.perf_counter()
    for key in chosen:
        case, needs_opacus = CASES[key]
        if needs_opacus and not args.opacus_python:
            outcomes.append(Outcome(key, "", "Opacus", "", "", "skipped: give --opacus-python"))
            continue
        outcomes += case(ctx)
    print(f"{package('dp-accounting')}, {package('prv-accountant')}, {package('autodp')}"
          + (f", opacus {ctx.opacus_version}" if ctx.opacus_version else "")
          + f"; {time.perf_counter() - start:.0f} s\n")
    print("| report | configuration | accountant | returns now | certified eps(delta) | verdict |")
    print("|---|---|---|---|---|---|")
    for o in outcomes:
        print(f"| {o.case} | {o.configuration} | {o.accountant} | {o.returns} | {o.certified} | {o.verdict} |")
    return outcomes


if __name__ == "__main__":
    main()
