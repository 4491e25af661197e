"""24 audits of diffprivlib and OpenDP mechanisms through dpaudit.adapters: 17 configured correctly, 7
misconfigured. Prints, per configuration, the verdict, how it was reached (exact law plus conformance,
or black-box), the certified figure, the time, and whether the verdict is the one expected.

    pip install 'dpaudit[opendp,diffprivlib]'
    python benchmarks/library_audits.py [--samples 200000] [--conformance-samples 200000]

Expected: not refuted for the correct ones (verified where the law is known and the claim has room),
refuted for the misconfigured ones; white-box verdicts are exact, so ApproxDP at delta = 1e-5 and zCDP
are decided rather than left "not refuted".
"""

from __future__ import annotations

import argparse
import time

import opendp.prelude as dp
from diffprivlib import mechanisms as M

import dpaudit
from dpaudit.adapters import audit, diffprivlib, opendp

dp.enable_features("contrib")


def f64():
    return dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)


def od_laplace():
    return dp.m.make_laplace(*f64(), scale=1.0)


def od_geometric():
    return dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=2.0)


def od_gaussian():
    return dp.m.make_gaussian(*f64(), scale=1.0)


def od_gaussian_approx():
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(od_gaussian()), 1e-5)


def od_rr():
    return dp.m.make_randomized_response_bool(0.75)


def configurations():
    """(label, adapted subject, audit keyword arguments, expect refuted)."""
    bounded = M.LaplaceBoundedDomain(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0)
    return [
        ("dpl Laplace eps=1", diffprivlib(M.Laplace(epsilon=1.0, sensitivity=1.0)), {}, False),
        ("dpl Laplace eps=0.5 s=2", diffprivlib(M.Laplace(epsilon=0.5, sensitivity=2.0)), {}, False),
        ("dpl Laplace eps=1 delta=0.01", diffprivlib(M.Laplace(epsilon=1.0, delta=0.01, sensitivity=1.0)), {}, False),
        ("dpl Geometric eps=0.5", diffprivlib(M.Geometric(epsilon=0.5, sensitivity=1)), {}, False),
        ("dpl GeometricTruncated [0,5]",
         diffprivlib(M.GeometricTruncated(epsilon=1.0, sensitivity=1, lower=0, upper=5)), {}, False),
        ("dpl Gaussian eps=0.5 delta=1e-5",
         diffprivlib(M.Gaussian(epsilon=0.5, delta=1e-5, sensitivity=1.0)), {}, False),
        ("dpl GaussianAnalytic eps=1 delta=1e-5",
         diffprivlib(M.GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0)), {}, False),
        ("dpl Binary eps=1", diffprivlib(M.Binary(epsilon=1.0, value0="0", value1="1")), {}, False),
        ("dpl Exponential [0,6,6]", diffprivlib(M.Exponential(epsilon=1.0, sensitivity=1.0, utility=[0, 6, 6])),
         {}, False),
        ("dpl LaplaceBoundedDomain [0,2]", diffprivlib(bounded), {}, False),
        ("dpl LaplaceTruncated [0,5]",
         diffprivlib(M.LaplaceTruncated(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=5.0)), {}, False),
        ("dpl Staircase eps=1", diffprivlib(M.Staircase(epsilon=1.0, sensitivity=1.0)), {}, False),
        ("odp laplace f64 scale=1", opendp(od_laplace, 1.0, noise="laplace", scale=1.0), {}, False),
        ("odp laplace i32 scale=2", opendp(od_geometric, 1, noise="laplace", scale=2.0), {}, False),
        ("odp gaussian zCDP scale=1", opendp(od_gaussian, 1.0, noise="gaussian", scale=1.0), {}, False),
        ("odp gaussian (eps, 1e-5)", opendp(od_gaussian_approx, 1.0, noise="gaussian", scale=1.0), {}, False),
        ("odp randomized response 0.75", opendp(od_rr, 1, noise="randomized-response", prob=0.75), {}, False),
        # misconfigured
        ("dpl Laplace s=0.5 on a sensitivity-1 query", diffprivlib(M.Laplace(epsilon=1.0, sensitivity=0.5)),
         {"pairs": [(0.0, 1.0)], "neighbours": dpaudit.QueryDistance(1.0)}, True),
        ("dpl Geometric s=1 on a sensitivity-2 query", diffprivlib(M.Geometric(epsilon=0.5, sensitivity=1)),
         {"pairs": [(0, 2)], "neighbours": dpaudit.QueryDistance(2.0)}, True),
        ("dpl LaplaceBoundedDomain at effective_epsilon()", diffprivlib(bounded),
         {"claim": dpaudit.PureDP(bounded.effective_epsilon())}, True),
        ("dpl Exponential s=0.5 for sensitivity-1 utilities",
         diffprivlib(M.Exponential(epsilon=1.0, sensitivity=0.5, utility=[0, 6, 6])),
         {"pairs": [([0, 6, 6], [1, 5, 5])], "neighbours": dpaudit.QueryDistance(1.0)}, True),
        ("odp laplace scale=1 claimed eps=0.5 by hand", opendp(od_laplace, 1.0, noise="laplace", scale=1.0),
         {"claim": dpaudit.PureDP(0.5)}, True),
        ("odp gaussian scale=1 claimed rho=0.4 by hand", opendp(od_gaussian, 1.0, noise="gaussian", scale=1.0),
         {"claim": dpaudit.ZCDP(0.4)}, True),
        ("dpl GaussianAnalytic delta=1e-5 claimed at 1e-6",
         diffprivlib(M.GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0)),
         {"claim": dpaudit.ApproxDP(1.0, 1e-6)}, True),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000, help="black-box samples per side")
    parser.add_argument("--conformance-samples", type=int, default=200_000)
    args = parser.parse_args()
    matched = 0
    configs = configurations()
    print(f"{'configuration':50s} {'verdict':12s} {'how':20s} {'figure':44s} {'seconds':>8s}  as expected")
    for i, (label, subject, kwargs, expect_refuted) in enumerate(configs):
        start = time.perf_counter()
        res = audit(subject, samples=args.samples, conformance_samples=args.conformance_samples, seed=i, **kwargs)
        seconds = time.perf_counter() - start
        how = ("exact + conformance" if res.conformance else res.privacy.auditor)
        stat = res.privacy.statistic
        figure = stat.describe() if stat is not None else "-"
        ok = (res.verdict == "refuted") == expect_refuted
        matched += ok
        print(f"{label:50s} {res.verdict:12s} {how:20s} {figure:44s} {seconds:8.1f}  {'yes' if ok else 'NO'}")
    print(f"{matched} of {len(configs)} verdicts as expected")


if __name__ == "__main__":
    main()
