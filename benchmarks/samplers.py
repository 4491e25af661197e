"""Samples per second of dpaudit's noise samplers, against baselines run side by side.

For every sampler: dpaudit's vectorised sampler, a straightforward scalar reference written here
(one Python loop iteration per sample, standard library only; for the discrete Gaussian the exact
algorithm of Canonne, Kamath and Steinke 2020 with rational arithmetic), and numpy/scipy's own
sampler where an equivalent exists. Each rate is the median of ``--repeats`` timings; ratios are
dpaudit's rate over the baseline's (above 1: dpaudit is faster). The discrete Gaussian is timed
twice: its exact sampler (integer coins only) and its float-coin sampler. Targets: discrete
Gaussian at least 100x its scalar exact reference; discrete Laplace within 2x of numpy's geometric
sampling (ratio at least 0.5). Run:

    python benchmarks/samplers.py [--samples 2000000] [--scalar-samples 20000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import math
import random
from fractions import Fraction

import numpy as np
from _timing import rate  # benchmarks/ is on sys.path when a script runs
from scipy import stats

from dpaudit.mechanisms import noise as N

# -- scalar references (what one writes first) ------------------------------------------------


def scalar_geometric(r: random.Random, p: float) -> int:
    """Failures before the first success, by inversion."""
    return int(math.log(1.0 - r.random()) / math.log1p(-p))


def scalar_discrete_laplace(r: random.Random, scale: float) -> int:
    p = -math.expm1(-1.0 / scale)
    return scalar_geometric(r, p) - scalar_geometric(r, p)


def scalar_poisson(r: random.Random, lam: float) -> int:
    """Knuth's multiplication method (fine for the small means used here)."""
    limit, k, prod = math.exp(-lam), 0, r.random()
    while prod > limit:
        k += 1
        prod *= r.random()
    return k


def scalar_polya(r: random.Random, shape: float, beta: float) -> int:
    """dist-mab footnote 3: a Gamma(shape, beta / (1 - beta)) rate, then a Poisson draw."""
    return scalar_poisson(r, r.gammavariate(shape, beta / (1 - beta)))


def bernoulli(r: random.Random, p: Fraction) -> bool:
    return r.randrange(p.denominator) < p.numerator


def bernoulli_exp(r: random.Random, gamma: Fraction) -> bool:
    """Exact Bernoulli(exp(-gamma)) for rational gamma >= 0 (Canonne, Kamath and Steinke, Alg. 1)."""
    while gamma > 1:
        if not bernoulli_exp(r, Fraction(1)):
            return False
        gamma -= 1
    k = 1
    while bernoulli(r, gamma / k):
        k += 1
    return k % 2 == 1


def exact_discrete_laplace(r: random.Random, t: int) -> int:
    """Exact discrete Laplace of integer scale t (Canonne, Kamath and Steinke, Alg. 2)."""
    while True:
        u = r.randrange(t)
        if not bernoulli_exp(r, Fraction(u, t)):
            continue
        v = 0
        while bernoulli_exp(r, Fraction(1)):
            v += 1
        x = u + t * v
        negative = r.random() < 0.5
        if negative and x == 0:
            continue
        return -x if negative else x


def exact_discrete_gaussian(r: random.Random, sigma2: Fraction) -> int:
    """Exact N_Z(0, sigma^2) for rational sigma^2 (Canonne, Kamath and Steinke, Alg. 3)."""
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    while True:
        y = exact_discrete_laplace(r, t)
        gamma = (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)
        if bernoulli_exp(r, gamma):
            return y


def scalar(fn):
    def run(n):
        r = random.Random(1)
        return [fn(r) for _ in range(n)]
    return run


# -- the table -----------------------------------------------------------------------------------


def cases(rng: np.random.Generator):
    dl, dg = N.DiscreteLaplace(10.0), N.DiscreteGaussian(10.0)
    sk, po = N.Skellam(100.0), N.PolyaDifference.share(100, math.exp(-0.1))
    p_geo = -math.expm1(-1 / 10.0)
    return [
        ("discrete Laplace, scale 10", lambda n: dl.sample(n, rng), [
            ("scalar, two geometrics", scalar(lambda r: scalar_discrete_laplace(r, 10.0)), True),
            ("numpy geometric (one draw)", lambda n: rng.geometric(p_geo, n), False),
            ("numpy, two geometrics", lambda n: rng.geometric(p_geo, n) - rng.geometric(p_geo, n), False),
        ]),
        ("discrete Gaussian, sigma 10 (exact)", lambda n: dg.sample(n, rng), [
            ("scalar exact (CKS, rationals)", scalar(lambda r: exact_discrete_gaussian(r, Fraction(100))), True),
        ]),
        ("discrete Gaussian, sigma 10 (float coin)", lambda n: dg.sample_fast(n, rng), [
            ("scalar exact (CKS, rationals)", scalar(lambda r: exact_discrete_gaussian(r, Fraction(100))), True),
        ]),
        ("Skellam, variance 100", lambda n: sk.sample(n, rng), [
            ("scalar, two Poissons", scalar(lambda r: scalar_poisson(r, 50.0) - scalar_poisson(r, 50.0)), True),
            ("scipy.stats.skellam.rvs", lambda n: stats.skellam.rvs(50.0, 50.0, size=n, random_state=rng), False),
        ]),
        ("Polya share, n=100, beta=e^-0.1", lambda n: po.sample(n, rng), [
            ("scalar, gamma-Poisson twice", scalar(lambda r: scalar_polya(r, 0.01, math.exp(-0.1))
                                                  - scalar_polya(r, 0.01, math.exp(-0.1))), True),
            ("scipy.stats.nbinom.rvs twice",
             lambda n: stats.nbinom.rvs(0.01, 1 - math.exp(-0.1), size=n, random_state=rng)
             - stats.nbinom.rvs(0.01, 1 - math.exp(-0.1), size=n, random_state=rng), False),
        ]),
        ("Laplace, scale 1", lambda n: N.Laplace(1.0).sample(n, rng), [
            ("scalar, random.expovariate difference", scalar(lambda r: r.expovariate(1.0) - r.expovariate(1.0)), True),
            ("scipy.stats.laplace.rvs", lambda n: stats.laplace.rvs(size=n, random_state=rng), False),
        ]),
        ("Gaussian, sigma 1", lambda n: N.Gaussian(1.0).sample(n, rng), [
            ("scalar, random.gauss", scalar(lambda r: r.gauss(0.0, 1.0)), True),
        ]),
        ("symmetric binomial, m=1000", lambda n: N.SymmetricBinomial(1000).sample(n, rng), [
            ("scipy.stats.binom.rvs", lambda n: stats.binom.rvs(1000, 0.5, size=n, random_state=rng) - 500, False),
        ]),
        ("Bernoulli(exp(-0.7))", lambda n: N.BernoulliExp(0.7).sample(n, rng), [
            ("scalar exact (CKS, rationals)", scalar(lambda r: bernoulli_exp(r, Fraction(7, 10))), True),
        ]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=2_000_000)
    parser.add_argument("--scalar-samples", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print(f"{'sampler':42} {'dpaudit /s':>12}  {'baseline':38} {'baseline /s':>12} {'ratio':>8}")
    for name, ours, baselines in cases(rng):
        ours_rate = rate(ours, args.samples, args.repeats)
        for i, (base_name, base, is_scalar) in enumerate(baselines):
            n = args.scalar_samples if is_scalar else args.samples
            base_rate = rate(base, n, 1 if is_scalar else args.repeats)
            label = name if i == 0 else ""
            ours_text = f"{ours_rate:12.3g}" if i == 0 else " " * 12
            print(f"{label:42} {ours_text}  {base_name:38} {base_rate:12.3g} {ours_rate / base_rate:8.2f}")


if __name__ == "__main__":
    main()
