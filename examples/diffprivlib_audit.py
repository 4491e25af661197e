"""A worked audit of diffprivlib mechanisms: one configured correctly, one misconfigured.

    pip install 'dpaudit[diffprivlib]'
    python examples/diffprivlib_audit.py [--samples 200000]

1. ``Laplace(epsilon=1, sensitivity=1)`` on a counting query: its law is known from its parameters, so
   the audit is white-box: the exact privacy of that law (verified: epsilon is exactly 1) and a
   conformance audit that diffprivlib's own samples follow it.
2. The same mechanism configured for a query of sensitivity 0.5 but applied to one of sensitivity 1
   (a sum of values in [0, 1] whose bound was halved by mistake): audited on the query's real
   neighbours, its epsilon is 2, and the claim of 1 is refuted exactly.
3. ``LaplaceBoundedDomain(epsilon=1)`` on [0, 2]: its law (Laplace noise of the library's widened scale,
   conditioned on the range) is known too, and its exact epsilon is 1 (verified), while
   ``effective_epsilon()`` reports 0.71, the epsilon of the widened scale alone: taken as the claim, that
   figure is refuted exactly.

Exit status 0 when every verdict is as stated here, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys

from diffprivlib.mechanisms import Laplace, LaplaceBoundedDomain

import dpaudit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000, help="samples per check (default 200000)")
    args = parser.parse_args()
    budget = {"samples": args.samples, "conformance_samples": args.samples, "seed": 0}

    correct = dpaudit.adapters.diffprivlib(Laplace(epsilon=1.0, sensitivity=1.0))
    res = dpaudit.adapters.audit(correct, **budget)
    print(res, end="\n\n")
    ok = res.verdict == "verified"

    halved = dpaudit.adapters.diffprivlib(Laplace(epsilon=1.0, sensitivity=0.5))
    res = dpaudit.adapters.audit(halved, pairs=[(0.0, 1.0)], neighbours=dpaudit.QueryDistance(1.0), **budget)
    print(res, end="\n\n")
    ok &= res.verdict == "refuted"

    mechanism = LaplaceBoundedDomain(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0)
    bounded = dpaudit.adapters.diffprivlib(mechanism)
    res = dpaudit.adapters.audit(bounded, **budget)
    print(res, end="\n\n")
    ok &= res.verdict == "verified"

    reported = dpaudit.PureDP(mechanism.effective_epsilon())
    res = dpaudit.adapters.audit(bounded, claim=reported, **budget)
    print(res)
    ok &= res.verdict == "refuted"
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
