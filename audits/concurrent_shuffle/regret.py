"""concurrent-shuffle, Algorithm 4's regret (Theorem 5.1 = Theorem C.3, Corollary 5.2), audited by
simulating cs-linucb (the registry's Algorithm 4 with Theorem C.3's lam = 2 sigma~ sqrt d, beta_t and
alpha = 1/n) on the ``concurrent-shuffle/linucb`` preset's environment (K = 10 arms, d = 5, fresh
contexts every round, Bernoulli rewards) at its eps = 0.5, delta = 0.1 (inside eps < 1, delta < 1/2).
The paper has no experiments; the preset is the issue's, and its horizon (2^14) is the ``paper``
budget's; ``quick`` stops at n = 4096. Both run 30 runs, three times the preset's (see REGRET_RUNS).

Encoded (id -> claim, point):
  - thm5.1-regret@k1,bound / @k2,bound and cor5.2-regret@bound: the explicit bound the proof gives,
    Theorem C.2 (Shariff & Sheffet, as the spec reconstructs it) with Theorem C.3's constants rho_max =
    3 lam/2, rho_min = lam/2, gamma = sqrt(lam/2), L = S = 1, alpha = 1/n:
      E[R_T] <= sqrt(8 T) beta_T sqrt(d log(1 + 2 T/(d lam))) + 1,
      beta_T = sigma sqrt(2 log(2/alpha) + d log(3 + 2 T/(d lam))) + sqrt(3 lam/2) + sqrt(lam/2),
    (the + 1: the regret is at most T on the event of probability alpha = 1/n where the regularity
    fails), sigma = 1/2 (Bernoulli rewards), lam the algorithm's own for n = T: the algorithm is
    started with n = T users and its lam, beta_t and alpha follow from n, so the bound at T is audited on
    runs of horizon T, one per recorded T with common random numbers (:mod:`dpaudit.bandits.horizons`).
  - thm5.1-regret@k1,eps: the rate 1/sqrt(eps) as a rate in eps (exponent -1/2, eps -> 0), k = 1, six
    values eps = 0.9 / 2^i, i = 5..0, one simulation each at n = 1024 (quick) and 2^14 (paper).
  (thmC.3-regret is the appendix's number of the same theorem: these entries are its entries.)

Regime. sigma~ (Corollary 3.5's per-entry error, O~(.) in the paper) is computed from P_Vec's noise at
(eps/k, delta/k): 3.5e5 at n = 4096, k = 1 (1.2e6 at k = log n), so lam = 2 sigma~ sqrt d is 1.6e6
(5.5e6). With x = 2n/(d lam), the explicit bound at T = n is f(n)/n ~ 4 (beta_n/sqrt(lam)) sqrt(log(1 +
x)/x), beta_n/sqrt(lam) ~ sqrt(3/2) + sqrt(1/2) = 1.93 (the sigma term is ~1e-3 of it): 7.7 while n <<
d lam, below 1 (the largest possible regret per round) only once x > ~350, i.e. n > ~875 lam. Computed:
f(n)/n = 7.7 down to 7.4 at every n = 2^10 .. 2^22 for k = 1, 2 and log n; with lam(n) fitted on n =
2^16 .. 2^22 (exponents 0.37, 0.24, 0.16) and extrapolated, f(n) < n from n ~ 2e12 (k = 1) and ~7e10
(k = 2, log n). Even at eps -> 1, delta -> 1/2, d = 1, sigma~ is 6.6e4 (n = 4096, k = 1). At every
simulable n the algorithm barely moves from its prior: its regret is linear, 0.36 T at n = 4096, as
uniform play's (0.37 T). Hence, at these points:
  - the explicit bounds are far above T: not refuted, and not informative either;
  - a rate in T would be refuted (fitted exponent about 1: 0.975, 0.983, 1.028 for k = 1, 2, log n at
    n <= 4096; 0.967 at 2^14), which says nothing against the theorem, whose O~(.) is asymptotic and
    whose own explicit form is vacuous here: the rates in T are left out (below), not entered as
    refutations;
  - the rate in eps is not refuted because the regret is flat in eps at linear regret: consistent with
    the claim, not a confirmation of it.
No simulable point is inside the asymptotic regime: inside the theorem's hypotheses (eps < 1, delta <
1/2) sigma~ stays of order 1e5, P_Vec's noise at (eps/k, delta/k).

Left out: the rates in T of thm5.1-regret (T^{2/3} at k = 1, T^{3/5} at k = 2) and cor5.2-regret
(T^{1/2} at k = log n): no simulable n is in their regime (above: lam ~ 1e6, linear regret at every n up
to 2^14, the explicit bound below T only beyond n ~ 1e11); thmC.2 (Shariff & Sheffet's theorem, cited;
its inequality with Theorem C.3's constants is the explicit bound above); Section 5's table of other
models' rates (centralized O~(sqrt n), LDP O~(n^{3/4}), sequential shuffle O~(n^{3/5})): quoted from
other papers, not rows of the claims table, and
asymptotic like the rates above; claimfn8 (k = Omega~(log n) suffices for the same asymptotic regret):
a garbled remark about the O~(.), no statement at a point.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit import RegretBound, RegretRate
from dpaudit.algorithms.linear.cs_linucb import REWARD_SIGMA, ConcurrentShuffleStatistics
from dpaudit.algorithms.linear.registry import ALGORITHMS
from dpaudit.audits.experiments.concurrent_shuffle import DELTA, DIMENSION, EPS, HORIZON, LINUCB, RUNS

from ._suite import suite

ENVIRONMENT = LINUCB.configurations[0].environment
CURVES = {c.label: c for c in LINUCB.configurations[0].curves}


def _grid(smallest: int, largest: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(smallest, largest, 14)).astype(int))


# Runs: 3 x the preset's 10 (each run's policy follows its own noisy theta for hundreds of rounds, so
# the runs spread widely; 10 left a rate's interval wider than its margin at a suite run's alpha share).
HORIZONS = {"quick": _grid(256, 4096), "paper": _grid(1024, HORIZON)}
REGRET_RUNS = {"quick": 3 * RUNS, "paper": 3 * RUNS}


def lam_for(n: int, eps: float, delta: float, k, d: int) -> float:
    """Theorem C.3's lam = 2 sigma~ sqrt d of cs-linucb at n users (its statistics' sigma~)."""
    return 2 * ConcurrentShuffleStatistics(eps, delta, k).sigma_tilde(int(n), d) * math.sqrt(d)


def theorem_c2_bound(T, eps: float, delta: float, d: int, k, n: int | None = None):
    """sqrt(8 T) beta_T sqrt(d log(1 + 2T/(d lam))) + 1 at every T (module docstring); n (the horizon
    lam and alpha are set for) defaults to the largest T."""
    T = np.asarray(T, dtype=float)
    n = int(T.max()) if n is None else int(n)
    lam, alpha = lam_for(n, eps, delta, k, d), 1 / n
    beta = (REWARD_SIGMA * np.sqrt(2 * math.log(2 / alpha) + d * np.log(3 + 2 * T / (d * lam)))
            + math.sqrt(1.5 * lam) + math.sqrt(0.5 * lam))
    return np.sqrt(8 * T) * beta * np.sqrt(d * np.log1p(2 * T / (d * lam))) + 1


def _bound(k) -> RegretBound:
    def f(T, eps, delta, d):
        return theorem_c2_bound(T, eps, delta, d, k)
    return RegretBound(f, f"Thm C.2 with Thm C.3's constants (k = {k}): sqrt(8T) beta_T sqrt(d log(1 + 2T/(d lam))) "
                          "+ 1, lam = 2 sigma~ sqrt d at n = the horizon")


_POINTS = [("thm5.1-regret@k{k}", 1, "cs-linucb k=1"), ("thm5.1-regret@k{k}", 2, None),
           ("cor5.2-regret@", "log n", "cs-linucb k=log n")]
for _id, _k, _label in _POINTS:
    _params = dict(CURVES[_label].kwargs) if _label else {"eps": EPS, "delta": DELTA, "k": _k}
    assert _params["k"] == _k
    _params["d"] = DIMENSION  # for the bound's function; cs-linucb takes no d
    _stem = "concurrent-shuffle/" + _id.format(k=_k)
    _sep = "," if _stem.endswith(f"k{_k}") else ""
    _where = "k = log n" if _k == "log n" else f"k = {_k}"
    suite.regret(f"{_stem}{_sep}bound", policy="cs-linucb", environment=ENVIRONMENT, claim=_bound(_k),
                 horizons=HORIZONS, runs=REGRET_RUNS, params=_params,
                 title=f"cs-linucb ({_where}) under Thm C.2's explicit bound with Thm C.3's constants, K = 10, d = 5, "
                       "eps = 0.5, delta = 0.1 (vacuous at simulable n: the bound is ~7.7 T)")


EPS_VALUES = [0.9 / 2**i for i in range(5, -1, -1)]


def cs_linucb_k1(eps: float):
    return ALGORITHMS["cs-linucb"](eps=eps, delta=DELTA, k=1)


suite.regret("concurrent-shuffle/thm5.1-regret@k1,eps", policy=cs_linucb_k1, environment=ENVIRONMENT,
             claim=RegretRate(-0.5, "eps"), horizons={"quick": 1024, "paper": HORIZON}, runs=REGRET_RUNS,
             options={"values": EPS_VALUES},
             title="cs-linucb (k = 1): regret O~(1/sqrt(eps)) as a rate in eps on eps = 0.028 .. 0.9, K = 10, d = 5, "
                   "delta = 0.1, n = 1024 (flat in eps at linear regret: consistent, not a confirmation)")
