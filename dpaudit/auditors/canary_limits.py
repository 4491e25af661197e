"""What a many-run canary audit could certify at best, from the exact law of the scores: the yardstick the estimator
of :mod:`.canary` is measured against.

A many-run audit confirms one event E with a one-sided Clopper-Pearson bound per side (alpha / 2 each): from k1 of n1
runs of the first distribution and k2 of n2 of the second it certifies log((p_lower(k1) - delta) / q_upper(k2)).
Whoever knows the law can fix the event in advance and spend every run on confirming it; for an event of rates (p, q)
the bound's expectation is exact over the two binomial counts (:func:`expected_event_bound`). The best such event
lies among the likelihood-ratio thresholds of either order (Neyman-Pearson: any other event of the same first-side
rate has a larger second-side rate, and the bound is increasing in p_lower and decreasing in q_upper), so
:func:`best_event_bound` scans those: the largest expected bound any test that confirms one event by
Clopper-Pearson can certify from these runs. It is a yardstick for event tests, not a bound on every test (a test
pooling many events, or a sequential one, is outside it).

One run has a limit of its own (:func:`one_run_limit`): m canaries, each in with probability 1/2, scores N(mu, 1) in
and N(0, 1) out. Any test of "(eps0, delta)-DP with respect to each canary" valid at level alpha must keep alpha on
every mechanism of its null, among them the one whose in-canaries' scores follow P0, N(mu, 1) with its privacy loss
clipped (density q(s) g(L(s)) / Z, g = e^L clipped to [e^-e1, e^e1], e1 + |log Z| = eps0: a pure (eps0, 0)-DP pair
with N(0, 1)). Against that one member the Neyman-Pearson test of the m canaries is the most powerful, so its power
bounds every valid test's chance of refuting eps0, whatever statistic of the scores it uses: an upper bound on what
one-run audits of these canaries can certify (computed by Monte Carlo: an estimate, with its replicates stated).

Many runs have the same kind of limit (:func:`many_run_limit`): with n runs per side of a pair (P, Q) whose privacy
loss L = log dP/dQ the auditor can sample, the member of the null whose in-runs follow Q's law reweighted by
clip(e^L, e^-e1, e^e1) / Z is pure (eps0, 0)-DP against Q, and the Neyman-Pearson test of n runs against it bounds
every valid test's chance of refuting eps0 from n runs, whatever it does with them (sequential or not).

The laws given here are exact in closed form (:func:`gaussian_events`: scores N(mu, 1) against N(0, 1), the law of a
gradient canary's summed steps when every step holds the whole dataset); a configuration's privacy-loss law (a PLD)
gives the same two rates along its thresholds (benchmarks/canary_best_test.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from ..stats import binomial_lower, binomial_upper
from .canary import epsilon_from_rates

#: binomial mass left out of each count's support in :func:`expected_event_bound` (the bound is at most the ceiling,
#: so the expectation is off by at most 2e-12 times it)
TAIL = 1e-12


def _support(runs: int, rate: float) -> tuple[np.ndarray, np.ndarray]:
    """The counts of Bin(runs, rate) outside a TAIL of mass on each side, and their probabilities."""
    low = max(int(stats.binom.ppf(TAIL, runs, rate)) - 1, 0)
    high = min(int(stats.binom.isf(TAIL, runs, rate)) + 1, runs)
    k = np.arange(low, high + 1)
    return k, stats.binom.pmf(k, runs, rate)


def expected_event_bound(p: float, q: float, first_runs: int, second_runs: int, delta: float, alpha: float) -> float:
    """E[log((p_lower(K1) - delta) / q_upper(K2))]^+ for K1 ~ Bin(first_runs, p), K2 ~ Bin(second_runs, q): the mean
    Clopper-Pearson bound (alpha / 2 per side) of an event fixed in advance with these rates."""
    w1, w2, bound = _counts_bound(p, q, first_runs, second_runs, delta, alpha)
    return float(w1 @ bound @ w2)


def _counts_bound(p: float, q: float, first_runs: int, second_runs: int, delta: float, alpha: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two counts' supports' probabilities and the bound at every pair of counts."""
    if not (0 <= p <= 1 and 0 <= q <= 1):
        raise ValueError(f"canary_limits: rates must be in [0, 1], got p={p!r}, q={q!r}")
    k1, w1 = _support(first_runs, p)
    k2, w2 = _support(second_runs, q)
    bound = epsilon_from_rates(binomial_lower(k1, first_runs, alpha / 2)[:, None],
                               binomial_upper(k2, second_runs, alpha / 2)[None, :], delta)
    return w1, w2, bound


def refutation_probability(p: float, q: float, first_runs: int, second_runs: int, delta: float, alpha: float,
                           epsilon: float) -> float:
    """P[the bound of the event exceeds ``epsilon``]: the probability that confirming an event of rates (p, q) on
    these runs refutes an (epsilon, delta) claim, exact over both counts (to TAIL)."""
    w1, w2, bound = _counts_bound(p, q, first_runs, second_runs, delta, alpha)
    return float(w1 @ (bound > epsilon) @ w2)


def _best(values: np.ndarray, p: np.ndarray, q: np.ndarray, key: str) -> dict[str, float]:
    i = int(np.argmax(values))
    return {key: float(values[i]), "p": float(p[i]), "q": float(q[i])}


def _rates(first_rates: Any, second_rates: Any, owner: str) -> tuple[np.ndarray, np.ndarray]:
    p, q = np.asarray(first_rates, dtype=float), np.asarray(second_rates, dtype=float)
    if p.shape != q.shape or p.ndim != 1 or p.size == 0:
        raise ValueError(f"{owner}: the rates must be two 1-D arrays of one length, got {p.shape} and {q.shape}")
    return p, q


def best_event_bound(first_rates: Any, second_rates: Any, first_runs: int, second_runs: int, delta: float,
                     alpha: float) -> dict[str, float]:
    """The largest :func:`expected_event_bound` over the events whose rates are ``first_rates[i]`` and
    ``second_rates[i]`` (a law's likelihood-ratio thresholds, one order; call again for the other): the bound and the
    event's two rates."""
    p, q = _rates(first_rates, second_rates, "best_event_bound")
    values = np.array([expected_event_bound(a, b, first_runs, second_runs, delta, alpha) if a > b else 0.0
                       for a, b in zip(p, q)])
    return _best(values, p, q, "epsilon")


def best_event_refutation(first_rates: Any, second_rates: Any, first_runs: int, second_runs: int, delta: float,
                          alpha: float, epsilon: float) -> dict[str, float]:
    """The largest :func:`refutation_probability` of an (``epsilon``, ``delta``) claim over the events of these
    rates: the probability and the event's rates. With ``second_rates`` a lower bound on the least second-side rate
    any event of each first-side rate can have (a certified trade-off curve), it bounds every event test's power."""
    p, q = _rates(first_rates, second_rates, "best_event_refutation")
    values = np.array([refutation_probability(a, b, first_runs, second_runs, delta, alpha, epsilon)
                       if a > delta else 0.0 for a, b in zip(p, q)])
    return _best(values, p, q, "probability")


def gaussian_events(mu: float, points: int = 600) -> tuple[np.ndarray, np.ndarray]:
    """The rates of {score >= t} under N(mu, 1) (first) and N(0, 1) (second) at ``points`` thresholds from -2 to
    mu + 6: the likelihood-ratio thresholds of the pair. The other order gives the same rates (the pair is
    symmetric)."""
    if not mu > 0:
        raise ValueError(f"gaussian_events: mu must be positive, got {mu!r}")
    t = np.linspace(-2.0, mu + 6.0, points)
    return stats.norm.sf(t - mu), stats.norm.sf(t)


def _clipped_member(mu: float, epsilon: float) -> tuple[float, float, np.ndarray]:
    """(e1, log Z, the weights of L's three pieces under P0) for the clipped pair of :func:`one_run_limit`; L = mu s -
    mu^2 / 2 is N(-mu^2/2, mu^2) under N(0, 1) and N(mu^2/2, mu^2) under N(mu, 1)."""
    from scipy import optimize

    half = mu * mu / 2

    def pieces(e1: float) -> np.ndarray:
        below = np.exp(-e1) * stats.norm.cdf((-e1 + half) / mu)  # e^-e1 Q(L < -e1)
        inside = stats.norm.cdf((e1 - half) / mu) - stats.norm.cdf((-e1 - half) / mu)  # P(|L| <= e1)
        above = np.exp(e1) * stats.norm.sf((e1 + half) / mu)  # e^e1 Q(L > e1)
        return np.array([below, inside, above])

    e1 = optimize.brentq(lambda e: e + abs(np.log(pieces(e).sum())) - epsilon, 1e-12, epsilon, xtol=1e-14)
    parts = pieces(e1)
    return e1, float(np.log(parts.sum())), parts / parts.sum()


def _log_ratio_to_clipped(loss: np.ndarray, e1: float, log_z: float) -> np.ndarray:
    """log dP/dP0 of an in-run whose privacy loss is ``loss``: its excess beyond [-e1, e1], plus log Z."""
    return loss - np.clip(loss, -e1, e1) + log_z


def _neyman_pearson_power(null: np.ndarray, alternative: np.ndarray, alpha: float) -> float:
    """The power of the test that rejects above the null statistic's 1 - alpha quantile and, at it, with the
    probability that makes its size alpha (ties are common where little is clipped: the statistic is then mostly a
    count times log Z), from draws of the statistic under each law."""
    threshold = np.quantile(null, 1 - alpha, method="higher")
    above, tied = float(np.mean(null > threshold)), float(np.mean(null == threshold))
    at_tie = (alpha - above) / tied if tied > 0 else 0.0
    return float(np.mean(alternative > threshold) + at_tie * np.mean(alternative == threshold))


def clipped_losses(mu: float, epsilon: float, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` draws of the privacy loss L = mu s - mu^2 / 2 of an in-canary's score under the clipped member P0 of
    :func:`one_run_limit`: N(0, 1)'s law of L below -e1 and above e1, N(mu, 1)'s within, weighted by the clipped
    likelihood ratio (three truncated normals)."""
    e1, _, weights = _clipped_member(mu, epsilon)
    half = mu * mu / 2
    which = rng.choice(3, size=count, p=weights)
    out = np.empty(count)
    for k, (centre, a, b) in enumerate(((-half, -np.inf, -e1), (half, -e1, e1), (-half, e1, np.inf))):
        chosen = which == k
        out[chosen] = stats.truncnorm.rvs((a - centre) / mu, (b - centre) / mu, loc=centre, scale=mu,
                                          size=int(chosen.sum()), random_state=rng)
    return out


def one_run_limit(mu: float, canaries: int, epsilon: float, alpha: float = 0.05, replicates: int = 20_000,
                  rng: np.random.Generator | None = None) -> dict[str, float]:
    """An upper bound on the probability that any test valid at ``alpha`` refutes (``epsilon``, delta)-DP (any
    delta >= 0) from one run of ``canaries`` Gaussian canaries (in: N(mu, 1), out: N(0, 1), each in with probability
    1/2): the power of the Neyman-Pearson test against the clipped member of the null (module docstring), by Monte
    Carlo over ``replicates`` runs under each law. Returns the power, the clip e1 and log Z."""
    if not (mu > 0 and epsilon > 0 and 0 < alpha < 1 and canaries >= 1 and replicates >= 100):
        raise ValueError(f"one_run_limit: need mu > 0, epsilon > 0, alpha in (0, 1), canaries >= 1 and replicates >= "
                         f"100, got {mu!r}, {epsilon!r}, {alpha!r}, {canaries!r}, {replicates!r}")
    rng = np.random.default_rng() if rng is None else rng
    e1, log_z, _ = _clipped_member(mu, epsilon)

    def statistic(clipped: bool) -> np.ndarray:
        """Each replicate's log-likelihood ratio of N(mu, 1) to P0 summed over its in-canaries (out-canaries have the
        same law under both): log Z plus L's excess beyond [-e1, e1]."""
        members = rng.binomial(canaries, 0.5, replicates)
        count = int(members.sum())
        loss = clipped_losses(mu, epsilon, count, rng) if clipped else rng.normal(mu * mu / 2, mu, count)
        return np.bincount(np.repeat(np.arange(replicates), members), weights=_log_ratio_to_clipped(loss, e1, log_z),
                           minlength=replicates)

    return {"power": _neyman_pearson_power(statistic(True), statistic(False), alpha), "clip": e1, "log_z": log_z}


def many_run_limit(in_losses: Any, out_losses: Any, runs: int, epsilon: float, alpha: float = 0.05,
                   replicates: int = 20_000, rng: np.random.Generator | None = None) -> dict[str, float]:
    """An upper bound on the probability that any test valid at ``alpha`` refutes (``epsilon``, delta)-DP from
    ``runs`` runs per side of a pair whose privacy loss L = log dP/dQ has the samples ``in_losses`` under P (canary
    in) and ``out_losses`` under Q (out): the power of the Neyman-Pearson test against the null's clipped member (module
    docstring), whose in-runs' loss follows Q's reweighted by g(L) / Z, g = e^L clipped to [e^-e1, e^e1], Z its mean
    under Q and e1 + |log Z| = ``epsilon``. Out-runs have Q's law under both and carry nothing. Monte Carlo: the laws
    are the samples given (and Z their estimate), the test's law ``replicates`` resamplings of ``runs`` in-runs."""
    from scipy import optimize

    p_loss, q_loss = np.asarray(in_losses, dtype=float), np.asarray(out_losses, dtype=float)
    if p_loss.ndim != 1 or q_loss.ndim != 1 or p_loss.size < 100 or q_loss.size < 100:
        raise ValueError("many_run_limit: need at least 100 samples of the loss under each side")
    if not (epsilon > 0 and 0 < alpha < 1 and runs >= 1 and replicates >= 100):
        raise ValueError(f"many_run_limit: need epsilon > 0, alpha in (0, 1), runs >= 1 and replicates >= 100, got "
                         f"{epsilon!r}, {alpha!r}, {runs!r}, {replicates!r}")
    rng = np.random.default_rng() if rng is None else rng

    def log_z(e1: float) -> float:
        return float(np.log(np.mean(np.exp(np.clip(q_loss, -e1, e1)))))

    e1 = optimize.brentq(lambda e: e + abs(log_z(e)) - epsilon, 1e-12, epsilon, xtol=1e-12)
    z = log_z(e1)
    weights = np.exp(np.clip(q_loss, -e1, e1) - z)
    weights /= weights.sum()

    def statistic(losses: np.ndarray, probabilities: np.ndarray | None) -> np.ndarray:
        draws = rng.choice(losses, size=(replicates, runs), p=probabilities)
        return _log_ratio_to_clipped(draws, e1, z).sum(axis=1)

    power = _neyman_pearson_power(statistic(q_loss, weights), statistic(p_loss, None), alpha)
    return {"power": power, "clip": e1, "log_z": z}


__all__ = ["best_event_bound", "best_event_refutation", "expected_event_bound", "gaussian_events",
           "clipped_losses", "many_run_limit", "one_run_limit",
           "refutation_probability"]
