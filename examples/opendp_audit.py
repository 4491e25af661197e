"""A worked audit of OpenDP measurements: one stated correctly, one whose stated privacy is wrong.

    pip install 'dpaudit[opendp]'
    python examples/opendp_audit.py [--samples 50000]

1. A Gaussian measurement of scale 1 on a number with absolute distance 1: OpenDP states
   rho = 0.5 (ZeroConcentratedDivergence, map(1) = 0.5). Told how it was built (noise and scale), dpaudit
   decides the zCDP claim exactly and checks that OpenDP's samples follow Normal(0, 1).
2. The same measurement converted to (epsilon, delta)-DP at delta = 1e-5: decided exactly too.
3. A Laplace measurement of scale 1 with the claim a user wrote by hand, epsilon = 0.5 (they took
   the scale for the sensitivity over epsilon the wrong way round): refuted exactly.

OpenDP cannot be seeded: the records say "not reproducible from the run seed". Its calls cost about
100 us each; a function that builds the measurement lets them run on every core.
Exit status 0 when every verdict is as stated here, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys

import opendp.prelude as dp

import dpaudit

dp.enable_features("contrib")


def gaussian():
    return dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)


def approximate_gaussian():
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian()), 1e-5)


def laplace():
    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=50_000, help="samples per conformance check (default 50000)")
    args = parser.parse_args()
    budget = {"samples": args.samples, "conformance_samples": args.samples, "seed": 0}

    zcdp = dpaudit.adapters.opendp(gaussian, d_in=1.0, noise="gaussian", scale=1.0)
    res = dpaudit.adapters.audit(zcdp, **budget)
    print(res, end="\n\n")
    ok = res.verdict == "verified"

    approx = dpaudit.adapters.opendp(approximate_gaussian, d_in=1.0, noise="gaussian", scale=1.0)
    res = dpaudit.adapters.audit(approx, **budget)
    print(res, end="\n\n")
    ok &= res.privacy.auditor == "exact" and res.verdict != "refuted"

    by_hand = dpaudit.adapters.opendp(laplace, d_in=1.0, noise="laplace", scale=1.0)
    res = dpaudit.adapters.audit(by_hand, claim=dpaudit.PureDP(0.5), **budget)
    print(res)
    ok &= res.verdict == "refuted"
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
