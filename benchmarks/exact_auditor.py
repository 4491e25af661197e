"""Speed of the exact privacy quantities on large supports, against baselines run side by side.

Case 1: a discrete Gaussian (sigma = 100) and its shift by one, on 10^6 outcomes (nearly all of
them far out in the tails, where a careless error bound would blow up). dpaudit's pure
epsilon, delta(eps), D_2 and rho (vectorised, with rigorous error bounds) against
  - a straightforward scalar implementation (one Python loop over the outcomes, plain floats);
  - dp-accounting's PLD built from the two pmfs (delta only; if installed).
Case 2: delta(eps) of a product of 16 randomized-response coordinates through the privacy-loss
distribution, against summing over the 65536 joint outcomes.

Each row prints the median seconds, the ratio baseline / dpaudit, and whether the baseline's value
lies in dpaudit's enclosure. Run:

    python benchmarks/exact_auditor.py [--repeats 3] [--outcomes 1000000]
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import time

import numpy as np
from scipy.special import logsumexp

from dpaudit import exact
from dpaudit.core.distributions import FiniteDistribution, ProductDistribution
from dpaudit.mechanisms import RandomizedResponse

SIGMA = 100.0


def timed(fn, repeats):
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def discrete_gaussians(n: int, sigma: float) -> tuple[FiniteDistribution, FiniteDistribution]:
    x = np.arange(-n // 2, n - n // 2)
    logp, logq = -((x / sigma) ** 2) / 2, -(((x - 1) / sigma) ** 2) / 2
    return (FiniteDistribution(x, logp - logsumexp(logp), log_error=1e-12),
            FiniteDistribution(x, logq - logsumexp(logq), log_error=1e-12))


# -- straightforward scalar baselines (what one writes first) ------------------------------------


def scalar_epsilon(lp, lq):
    best = 0.0
    for a, b in zip(lp, lq):
        best = max(best, abs(a - b))
    return best


def scalar_delta(lp, lq, eps):
    total, factor = 0.0, math.exp(eps)
    for a, b in zip(lp, lq):
        total += max(math.exp(a) - factor * math.exp(b), 0.0)
    return total


def scalar_renyi(lp, lq, alpha):
    terms = [alpha * a + (1 - alpha) * b for a, b in zip(lp, lq)]
    top = max(terms)  # log-sum-exp, so large orders do not overflow
    return (top + math.log(sum(math.exp(t - top) for t in terms))) / (alpha - 1)


def scalar_rho(lp, lq):
    return max(scalar_renyi(lp, lq, a) / a for a in 1 + np.geomspace(1e-3, 4095, 97))


def oracle_delta(P, Q, eps):
    from dp_accounting.pld import privacy_loss_distribution as pld

    d0 = dict(zip(P.outcomes.tolist(), P.log_probs.tolist()))
    d1 = dict(zip(Q.outcomes.tolist(), Q.log_probs.tolist()))
    loss = pld.from_two_probability_mass_functions(d0, d1, value_discretization_interval=1e-6)
    return loss.get_delta_for_epsilon(eps)


def joint_delta(pairs, eps):
    total = 0.0
    for outcome in itertools.product(*[range(len(p.outcomes)) for p, _ in pairs]):
        lp = sum(p.log_probs[i] for (p, _), i in zip(pairs, outcome))
        lq = sum(q.log_probs[i] for (_, q), i in zip(pairs, outcome))
        total += max(math.exp(lp) - math.exp(eps + lq), 0.0)
    return total


def row(name, ours, baseline_name, baseline, repeats, upper_bound=False):
    """``upper_bound``: the baseline is a pessimistic estimate, to be compared with our lower end."""
    t_ours, value = timed(ours, repeats)
    t_base, reference = timed(baseline, repeats)
    enclosure = value if isinstance(value, exact.Enclosure) else value.rho
    lo, hi = enclosure.floats()
    slack = 1e-9 * abs(hi) + 1e-15
    agrees = lo - slack <= reference and (upper_bound or reference <= hi + slack)
    print(f"{name:28} {t_ours:9.3f} {baseline_name:24} {t_base:9.3f} {t_base / t_ours:8.1f}x  "
          f"[{lo:.6g}, {hi:.6g}] vs {reference:.6g} {'ok' if agrees else 'DIFFERS'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--outcomes", type=int, default=1_000_000)
    args = parser.parse_args()
    P, Q = discrete_gaussians(args.outcomes, SIGMA)
    lp, lq = P.log_probs.tolist(), Q.log_probs.tolist()
    eps = 0.005
    print(f"{'quantity':28} {'dpaudit s':>9} {'baseline':24} {'base s':>9} {'ratio':>9}  enclosure vs baseline value")
    print(f"-- discrete Gaussian sigma={SIGMA:g} vs its shift, {args.outcomes:,} outcomes")
    r = 1 if args.repeats < 2 else args.repeats
    row("pure epsilon", lambda: exact.pure_epsilon(P, Q).epsilon, "scalar loop", lambda: scalar_epsilon(lp, lq), r)
    row(f"delta({eps:g})", lambda: exact.privacy_profile(P, Q, eps).delta, "scalar loop",
        lambda: scalar_delta(lp, lq, eps), r)
    try:
        import dp_accounting  # noqa: F401

        row(f"delta({eps:g})", lambda: exact.privacy_profile(P, Q, eps).delta, "dp-accounting PLD (upper)",
            lambda: oracle_delta(P, Q, eps), 1, upper_bound=True)
    except ImportError:
        print("(dp-accounting not installed: its row is skipped)")
    row("D_2", lambda: exact.renyi_divergence(P, Q, 2.0), "scalar loop", lambda: scalar_renyi(lp, lq, 2.0), r)
    row("rho (zCDP)", lambda: exact.zcdp_rho(P, Q), "scalar loop, 97 orders", lambda: scalar_rho(lp, lq), 1)
    print("-- 16 independent randomized-response coordinates (eps = 0.5 each)")
    rr = RandomizedResponse(0.5)
    pairs = [(rr.distribution([0]), rr.distribution([1]))] * 16
    product = ProductDistribution(tuple(p for p, _ in pairs)), ProductDistribution(tuple(q for _, q in pairs))
    row("delta(2) through the PLD", lambda: exact.privacy_profile(*product, 2.0).delta, "sum over 65536 outcomes",
        lambda: joint_delta(pairs, 2.0), r)
    print(f"\nmedian of {args.repeats} runs (one for dp-accounting and the scalar rho); ratio = baseline / dpaudit; "
          "a baseline value outside the enclosure (beyond 1e-9 relative; for dp-accounting's pessimistic\n"
          "estimate: below it) prints DIFFERS")


if __name__ == "__main__":
    main()
