"""dpaudit's canary audits beside jax_privacy's CanaryScoreAuditor, on the same scores: each method's epsilon lower
bound (mean over seeds) and how often it exceeds the truth, on null scores (in and out canaries alike: the truth is 0),
on Gaussian scores (in N(mu, 1), out N(0, 1): mu-GDP, whose epsilon at delta is known) and on randomized response
(a canary's score is its membership kept with probability e^eps / (1 + e^eps), plus a tiny jitter: pure eps-DP, the
truth eps; ``--rr-epsilon``).

    python benchmarks/canary_peers.py --jax-privacy PATH [--python PYTHON] [--seeds 200] [--n 1000] [--mu 2]
                                      [--alpha 0.05] [--delta 1e-5]

--jax-privacy is a checkout of https://github.com/google-deepmind/jax_privacy. Its ``jax_privacy/auditing.py`` needs
only numpy, scipy and dp-accounting, so it is loaded from the checkout by its path (the package's ``__init__``, which
imports jax, is not run) in a separate interpreter (``--python``, default this one); nothing of it is copied here.
--ml-privacy-meter (optional) is a checkout of https://github.com/privacytrustlab/ml_privacy_meter: its one-run audit
(``compute_abstain_attack_results`` and the two functions it calls, in ``audit.py``, whose imports need torch) is
compiled from that file's text, those three functions alone, in the same separate interpreter, and run as its code
runs it (the best of its grid of (k-, k+) guesses; its delta defaults to 0, and so it is run here, on
``--meter-seeds`` seeds: its p-value loops over binomial terms one by one).

The methods, at the same significance alpha and delta:

- many runs, a score per run (n per side): dpaudit's ``audit_canaries`` (the event chosen on a fifth of the runs,
  bounded on the rest); jax_privacy's ``epsilon_clopper_pearson`` (Bonferroni over every threshold, its default) and
  ``epsilon_from_gdp`` (a GDP mu fitted from Clopper-Pearson bounds, converted to epsilon), and its
  ``epsilon_raw_counts`` (a point estimate, not a bound: shown for how often it exceeds the truth);
- one run, a score per canary (n canaries, each in with probability 1/2): dpaudit's ``runs="one"`` (eight guess
  sets, each at alpha / 8) and jax_privacy's ``epsilon_one_run`` (Bonferroni over thresholds, k- = 0).

A valid bound exceeds the truth in at most alpha of the seeds.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy import optimize, stats

import dpaudit

DRIVER = '''
import importlib.util, json, sys
import numpy as np
spec = importlib.util.spec_from_file_location("jax_privacy_auditing", sys.argv[1])
auditing = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = auditing  # its dataclasses look their module up
spec.loader.exec_module(auditing)
data = np.load(sys.argv[2])
alpha, delta = float(sys.argv[3]), float(sys.argv[4])
out = {}
for key in sorted({k.rsplit("_", 1)[0] for k in data.files}):
    auditor = auditing.CanaryScoreAuditor(data[key + "_in"], data[key + "_out"])
    if key.startswith("one"):
        out[key] = {"epsilon_one_run": float(auditor.epsilon_one_run(alpha, delta))}
    else:
        out[key] = {"epsilon_clopper_pearson": float(auditor.epsilon_clopper_pearson(alpha, delta)),
                    "epsilon_from_gdp": float(auditor.epsilon_from_gdp(alpha, delta)),
                    "epsilon_raw_counts": float(auditor.epsilon_raw_counts(delta=delta))}
if len(sys.argv) > 5:  # ml_privacy_meter's one-run audit, its three functions compiled from its audit.py
    import ast, math, scipy.stats
    tree = ast.parse(open(sys.argv[5]).read())
    wanted = {"p_value_DP_audit", "get_eps_audit", "compute_abstain_attack_results"}
    module = ast.Module(body=[node for node in tree.body if getattr(node, "name", None) in wanted], type_ignores=[])
    meter = {"np": np, "math": math, "scipy": scipy}
    exec(compile(module, sys.argv[5], "exec"), meter)
    for key in sorted({k.rsplit("_", 1)[0] for k in data.files if k.startswith("one")}):
        scores = np.concatenate([data[key + "_in"], data[key + "_out"]])
        members = np.concatenate([np.ones(len(data[key + "_in"])), np.zeros(len(data[key + "_out"]))])
        result = meter["compute_abstain_attack_results"](scores, members, delta=0, p_value=alpha)
        out[key]["ml_privacy_meter one run (delta 0)"] = float(result["eps_opt"])
print(json.dumps(out))
'''


def gdp_epsilon(mu: float, delta: float) -> float:
    """epsilon of mu-GDP at delta (Dong, Roth and Su's conversion), 0 for mu = 0."""
    if mu == 0:
        return 0.0

    def gap(eps: float) -> float:
        return stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2) - delta

    return 0.0 if gap(0.0) <= 0 else optimize.brentq(gap, 0.0, 200.0)


def scores(seed: int, n: int, mu: float, rr_epsilon: float) -> dict[str, np.ndarray]:
    """The seed's scores: many runs (n per side) and one run (n canaries), null, at mu and randomized response."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shift in (("null", 0.0), ("gdp", mu)):
        out[f"many-{name}_in"], out[f"many-{name}_out"] = rng.normal(shift, 1.0, n), rng.normal(0.0, 1.0, n)
        members = rng.random(n) < 0.5
        one = rng.normal(0.0, 1.0, n) + shift * members
        out[f"one-{name}_in"], out[f"one-{name}_out"] = one[members], one[~members]
    keep = 1 / (1 + math.exp(-rr_epsilon))

    def response(member: np.ndarray) -> np.ndarray:
        kept = rng.random(member.shape) < keep
        return np.where(kept, member, ~member) + 1e-6 * rng.random(member.shape)

    out["many-rr_in"], out["many-rr_out"] = response(np.ones(n, bool)), response(np.zeros(n, bool))
    members = rng.random(n) < 0.5
    one = response(members)
    out["one-rr_in"], out["one-rr_out"] = one[members], one[~members]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jax-privacy", required=True, help="a checkout of google-deepmind/jax_privacy")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs jax_privacy's auditing")
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--mu", type=float, default=2.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--rr-epsilon", type=float, default=1.0)
    parser.add_argument("--ml-privacy-meter", help="a checkout of privacytrustlab/ml_privacy_meter")
    parser.add_argument("--meter-seeds", type=int, default=50, help="the seeds ml_privacy_meter runs on (the first)")
    args = parser.parse_args()
    module = Path(args.jax_privacy) / "jax_privacy" / "auditing.py"
    if not module.exists():
        raise SystemExit(f"no jax_privacy/auditing.py under {args.jax_privacy}: give a checkout of "
                         "https://github.com/google-deepmind/jax_privacy")
    truth = {"null": 0.0, "gdp": gdp_epsilon(args.mu, args.delta), "rr": args.rr_epsilon}
    results: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            data = scores(seed, args.n, args.mu, args.rr_epsilon)
            for case in ("null", "gdp", "rr"):
                for runs in ("many", "one"):
                    key = f"{runs}-{case}"
                    res = dpaudit.audit_canaries(data[key + "_in"], data[key + "_out"],
                                                 dpaudit.ApproxDP(1.0, args.delta), runs=runs, alpha=args.alpha,
                                                 seed=seed)
                    results.setdefault((f"dpaudit {runs} run" + ("s" if runs == "many" else ""), case),
                                       []).append(res.epsilon_lower)
            path = Path(tmp) / f"{seed}.npz"
            np.savez(path, **data)
            meter = ([str(Path(args.ml_privacy_meter) / "audit.py")]
                     if args.ml_privacy_meter and seed < args.meter_seeds else [])
            done = subprocess.run([args.python, "-c", DRIVER, str(module), str(path), repr(args.alpha),
                                   repr(args.delta), *meter], capture_output=True, text=True, check=True)
            for key, values in json.loads(done.stdout).items():
                case = key.split("-", 1)[1]
                for method, value in values.items():
                    label = method if method.startswith("ml_privacy_meter") else f"jax_privacy {method}"
                    results.setdefault((label, case), []).append(value)
    print(f"{args.seeds} seeds, n = {args.n} per side (runs) or canaries (one run), alpha = {args.alpha}, "
          f"delta = {args.delta}; true epsilon 0 (null), {truth['gdp']:.3f} (Gaussian, mu = {args.mu}), "
          f"{truth['rr']:g} (randomized response); each case: the mean bound and the share of seeds above the truth")
    print(f"{'method':<44} {'null':>7} {'above':>6} {'gauss':>7} {'above':>6} {'rr':>7} {'above':>6}")
    methods = sorted({m for m, _ in results}, key=lambda m: (not m.startswith("dpaudit"), m))
    if args.ml_privacy_meter:
        print(f"(ml_privacy_meter on the first {min(args.meter_seeds, args.seeds)} seeds, at delta 0 as its code "
              "defaults: its truth on Gaussian scores is infinite)")
    for method in methods:
        cells = []
        for case in ("null", "gdp", "rr"):
            values = np.array(results[(method, case)])
            if "delta 0" in method and case == "gdp":  # Gaussian scores are not pure DP: every bound is below inf
                cells.append(f"{values.mean():>7.3f} {0.0:>6.3f}")
                continue
            cells.append(f"{values.mean():>7.3f} {np.mean(values > truth[case] + 1e-9):>6.3f}")
        print(f"{method:<44} " + " ".join(cells))


if __name__ == "__main__":
    main()
