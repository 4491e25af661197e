"""dist-mab's regret claims (Theorems 1-6, Lemmas 1-2, Remark 4, Sec. 5's RDP -> DP paragraph) and the
orderings of its experiments (Figs. 1 and 4), simulated with the registry's algorithms.

Every theorem hides its constants in O(.), so each is audited as a rate (RegretRate); Lemma 2's proof
gives an explicit chain, audited as an explicit bound (RegretBound). The regret is the pseudo-regret.

**The theorems' instance** (:data:`THEOREM_ENV`): K = 10 Bernoulli arms, best mean 0.9, the nine gaps
geometric over one octave [0.4, 0.8). The theorems hold for any rewards in [0, 1]; Bernoulli rewards keep
the simulation exact on the fast path (a batch's rounded sum is g times one Binomial draw), so a horizon of
10^7 costs what 10^5 would. The gaps are large so that the private term dominates at moderate eps, and
spread over an octave so that the doubling batches' eliminations fall at staggered eps for the nine arms:
with equal gaps every run eliminates in the same batch and the regret is a step function of eps (a factor
up to 2 between steps), which a fitted exponent would read as curvature.

**Rates in eps** (``@rate-eps``): the private term K log T/eps (Theorems 1, 3, 5), K sqrt(log T)/eps +
K log T/(s eps) (Theorem 2), K sqrt(log T)/eps (Theorem 4), all exponent -1, and sum log T/(eps^2 Delta_a)
(Theorem 6), exponent -2, audited at T = 10^7 (10^8 for Theorem 6) with p = 1/T (``p=None``), on the
geometric grid :data:`EPS_VALUES` = 0.004 ... 0.064 (7 values; the paper budget 0.002 ... 0.064, 11
values). A rate in eps is about eps -> 0 and is refuted when the regret grows faster than eps^exponent
(fitted slope's upper bound below exponent - 0.1). Regime: a suboptimal arm leaves once 4 beta(b) <
Delta_a; beta(b)'s private part ~ (sigma sqrt L + h L)/l(b) against Hoeffding's sqrt(L/(2 l(b))), L ~ 20,
so the private term sets the elimination batch when eps < ~0.33 Delta (Dist-DP-SE; ~0.15 Delta for
Dist-RDP-SE, ~0.09 Delta for Dist-CDP-SE) and Delta >= 0.4 here: the grid's upper points sit at the edge
of the regime for Dist-CDP-SE, which only makes its fitted slope shallower (consistent with the claim; the
test keeps its power against a faster growth). Theorem 6 (local) is private-dominated at every eps < 1:
grid 0.1 ... 0.9 (7 values) at T = 10^8 (its regret reaches 3 10^6 at eps = 0.1, far below T Delta).
Dist-CDP-SE draws its n discrete Gaussian shares one by one (their sum has no closed law), so it costs
in proportion to the pulls: 20 runs at the quick budget.

**Rates in T** (``@rate-T``): E[Reg(T)] = O(log T) at fixed eps (RegretRate(0, T, log_power=1)) of the
algorithm the theorem describes, started with horizon T (p = 1/T): one run of each horizon T of 25
geometric rounds from 10^3 to 10^7 (Theorem 6: from 10^4 to 10^8) in the upper half of the log-range
(T >= 10^5; 10^6), with common random numbers (:mod:`dpaudit.bandits.horizons`). (Read off one run tuned for
10^7, the regret at an earlier round would be that run's regret so far, whose log(1/p) does not grow with
T.) Regime: at eps = 0.1 (Theorem 6: eps = 0.5) every suboptimal arm has left within about 10^5 rounds
(Theorem 6: 3 10^5), the lower end of the fitted range.

**Lemma 2's explicit chain** (``lem2-regret@bound-*``): on the good event E (every confidence interval of
every active arm and batch covers its mean), the best arm is never eliminated and an arm a with
Delta_a > 4 beta(b) is eliminated at the end of batch b; beta(b) grows with |Phi(b)|, so with
b_a = min{b : Delta_a > 4 beta_K(b)} (the algorithm's own radius at |Phi| = K,
:meth:`~dpaudit.algorithms.BatchSuccessiveElimination.radius`), N_a(T) <= S_a = l(1) + ... + l(b_a), and
Reg(T) <= f_E(T) = min{sum_a Delta_a min(S_a, T), Delta_max T}. The proof says P(E) >= 1 - 3p (eq. (2)'s
allocation sums to about 4.1p, package docstring; encoded as printed). Audited in the high-probability form
(P(Reg(T) > f_E(T)) <= 3p: with p = 1/T = 10^-7 a single run above f_E refutes it) and in expectation
(E[Reg(T)] <= f_E(T) + 3p Delta_max T), for Dist-DP-SE (Theorem 1's sigma = sqrt 2/eps, h = 1/eps) and
Dist-RDP-SE (s = 10, the released code's sigma, h) at eps = 0.1, T = 10^7. The chain holds at every round
t <= T of a run with the algorithm's (T, p): on E no arm is pulled more than S_a times by any round, so
it is audited on one run of the algorithm tuned for T = 10^7, read at 25 rounds (``T`` given: the policy
is anytime from there on).
The proof's later steps (N_a(T) <= 4 l(b_a), l(b_a) <= max{c1 log/Delta^2, c2 sigma sqrt(log)/Delta,
c3 h log/Delta}) have unnamed constants and are covered by the rates.

**Lemma 1** (generic (sigma, h)): E[Reg] = O(sum log T/Delta_a + K sigma sqrt(log T) + K h log T) is linear
in K: a rate in K (exponent 1), K in {8, 16, ..., 256} on the family of the theorems' instance (best mean
0.9, K - 1 gaps geometric over [0.4, 0.8)), Dist-DP-SE at eps = 0.1, T = 10^7. Both terms grow linearly
in K on this family. Regime: the regret is proportional to the K - 1 suboptimal arms, which only
approaches K for large K (from K = 2 to 4 it triples), so the grid starts at K = 8 (K - 1 against K adds
about +0.04 to the slope over it); beta(b)'s log(|Phi| b^2/p) adds a log K factor at fixed T (about
+0.04; the lemma absorbs it through T >= K, log(KT/p) <= 3 log T), both inside the margin 0.1. The split
into a sigma sqrt(log T) and an h log T term cannot be separated at horizons that can be simulated (the
factor sqrt(log T) moves by 1.2 between T = 10^5 and 10^7).

**Remark 4** (l(b) = eta^b for any eta > 1, same order): the rate in eps of Dist-DP-SE at eta = 2 (Algorithm
1 as printed) and eta = 4 (the released code's batches, Figs. 1-3), on the grid of the theorems. Batches
growing by 4 make steps of up to a factor 4 in the regret as a function of eps, so both run on the
theorems' family with the nine gaps over two octaves, [0.2, 0.8) (:data:`REMARK4_ENV`; the private term
dominates there for eps < ~0.066, the grid's top).

**Sec. 5's RDP -> DP paragraph** (claimsec5b): with large s the regret is O(sum log T/Delta_a +
K sqrt(log T log(1/delta))/eps) for (O(eps), delta)-DP: Dist-RDP-SE at s = 100, rate -1 in eps (at fixed
delta the converted DP epsilon is proportional to eps as eps -> 0).

**Figures** (the presets of :mod:`dpaudit.audits.experiments.dist_mab` with the released code's constants: their
environments, curves and, at the paper budget, horizons and runs; quick: T = 10^5 and the paper's 20 runs). The
statements are about the figures the authors drew, which the released code produced: batches 4^b (Fig. 4:
2^b) and DP-SE with one Laplace draw per epoch shared by the arms, so that its decisions are the non-private
rule's (the presets' RELEASED_NOTES). Fig. 1's statements
(the presets' ``SE_ORDERING``; Figs. 2-3 show the same instances at T = 10^6 / 10^7):
  - ``fig1@gap<g>,eps<e>``: "RDP with s = 10 gives a considerable gain over pure DP ... the gain increases
    with s": Dist-RDP-SE(s=100) <= Dist-RDP-SE(s=10) <= Dist-DP-SE, final regret, at each of the 6
    configurations (easy gap 0.5 and hard gap 0.1, eps in {0.1, 0.5, 1});
  - ``fig1@gap<g>,price``: "a slight difference at small T ... smaller for larger eps": the difference
    Dist-DP-SE - DP-SE at eps = 1 <= at 0.5 <= at 0.1, at every recorded round (the statement is about
    small T);
  - ``fig1@gap<g>,gain``: "especially for small eps": the gain Dist-DP-SE - Dist-RDP-SE(s=10) at eps = 1
    <= at 0.5 <= at 0.1, final regret.
Fig. 4 (the preset's ``TRUST_ORDERING``): ``fig4@eps<e>``: Dist-CDP-SE(s=10) <= Dist-RDP-SE(s=10) <=
{CDP-SE, Dist-DP-SE} <= LDP-SE, final regret, eps in {0.1, 0.5, 1} ("CDP-SE ~ Dist-DP-SE": one group;
their total noise has the same law, Lap_Z(g/eps), so on common random numbers their regrets coincide). At
eps = 1, CDP-SE, LDP-SE and Dist-CDP-SE run outside their theorems' eps < 1, as the paper's figure does
(the records' notes say so). At the quick budget the hard instance has eliminated few arms by T = 10^5, so
many of its pairs are ties that the runs cannot resolve (the records say how many pairs were confirmed).

Left out (with why):
  - thm3-regret's relaxed SecAgg: the shuffle simulation (Cheu and Yan's randomizer, its bit-vector length
    d and failure probability q) is not specified by the paper and not built; ``shuffle-dp-se`` runs
    Theorem 3's printed parameters with the exact mod sum (which POST recovers w.p. >= 1 - q), so
    thm3-regret is audited without the injected failure.
  - lem2-tail (P[E] >= 1 - 3p): E is not observable from the regret; its consequence P(Reg(T) > f_E(T)) <=
    P(not E) <= 3p is lem2-regret@bound-hp (refuting it would refute lem2-tail).
  - remark3 (the template recovers the central and local rates with discrete noise only): covered by
    thm5-regret (rate -1 in eps, as DP-SE's central rate) and thm6-regret (rate -2, the local rate).
  - claimsec5b's conversion to (O(eps), delta)-DP and its comparison with Theorem 1 and Tenenbaum et al.
    ("improves ... when delta > 1/T", "by a sqrt(log T) factor"): a privacy conversion and a comparison of
    the bounds' orders with hidden constants, not a statement about the algorithms' regrets at a point.
  - fig1's "Dist-DP-SE -> DP-SE as T grows" and Figs. 2-3: a limit of the time-average regrets (both tend
    to 0 at rate log T/T, thm1-regret@rate-T), not an ordering; Figs. 2-3 are Fig. 1's instances at the
    released code's horizons (same statements).
  - fig1's bottom panel and Fig. 5 (MSLR-WEB10K): the data set is not fetched; orderings on the presets'
    synthetic stand-in would not speak for the paper's data.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from dpaudit import Difference, RegretBound, RegretOrder, RegretRate
from dpaudit.algorithms import ALGORITHMS, BernoulliBandit
from dpaudit.audits.experiments.dist_mab import PRESETS

from ._suite import suite

# -- the theorems' instance and grids --------------------------------------------------------------

BEST_MEAN = 0.9
LARGEST_GAP = 0.8


def theorem_instance(K: int = 10, smallest_gap: float = 0.4) -> BernoulliBandit:
    """K Bernoulli arms: best mean 0.9, the K - 1 gaps geometric over [smallest_gap, 0.8) (module docstring)."""
    gaps = np.geomspace(smallest_gap, LARGEST_GAP, K - 1, endpoint=False)
    return BernoulliBandit(np.round(np.concatenate([[BEST_MEAN], BEST_MEAN - gaps]), 6))


THEOREM_ENV = theorem_instance(10)
#: Remark 4's instance: batches grow by up to 4, so the gaps spread over two octaves, [0.2, 0.8)
REMARK4_ENV = theorem_instance(10, smallest_gap=0.2)
T_RATE = 10**7  # the horizon of the rates in eps and of the rates in T (p = 1/T)
T_LOCAL = 10**8  # Theorem 6: the local model's regret reaches 3 10^6 at eps = 0.1
EPS_VALUES = {"quick": tuple(np.geomspace(0.004, 0.064, 7)), "paper": tuple(np.geomspace(0.002, 0.064, 11))}
EPS_LOCAL = {"quick": tuple(np.geomspace(0.1, 0.9, 7)), "paper": tuple(np.geomspace(0.1, 0.9, 11))}
RATE_RUNS = {"quick": 50, "paper": 200}
DG_RUNS = {"quick": 20, "paper": 100}  # Dist-CDP-SE draws every share: its cost grows with the pulls
RATE_OPTIONS = {"values": EPS_VALUES, "margin": 0.1}
# the rounds of the rates in T (one run per horizon) and of Lemma 2's bounds (one run tuned for T_RATE)
T_GRID = tuple(int(t) for t in np.unique(np.geomspace(10**3, T_RATE, 25).astype(np.int64)))
T_GRID_LOCAL = tuple(int(t) for t in np.unique(np.geomspace(10**4, T_LOCAL, 25).astype(np.int64)))
T_RUNS = {"quick": 100, "paper": 1000}
EPS_T = 0.1  # eps of the rates in T and of Lemma 2's bounds
EPS_T_LOCAL = 0.5
LOG_RATE = RegretRate(0.0, "T", log_power=1)

# (theorem, registry name, its parameters besides eps, what the theorem prints, exponent in eps)
THEOREMS = (
    ("thm1", "dist-dp-se", {}, "O(sum log T/Delta_a + K log T/eps)", -1.0),
    ("thm2", "dist-rdp-se", {"s": 10}, "O(sum log T/Delta_a + K sqrt(log T)/eps + K log T/(s eps))", -1.0),
    ("thm3", "shuffle-dp-se", {}, "O(sum log T/Delta_a + K log T/eps)", -1.0),
    ("thm4", "dist-cdp-se", {"s": 10}, "O(sum log T/Delta_a + K sqrt(log T)/eps)", -1.0),
    ("thm5", "cdp-se", {}, "O(sum log T/Delta_a + K log T/eps)", -1.0),
    ("thm6", "ldp-se", {}, "O(sum log T/(eps^2 Delta_a))", -2.0),
)

for _thm, _name, _params, _printed, _exponent in THEOREMS:
    _local = _thm == "thm6"
    _label = f"{_name}" + "".join(f", {k} = {v:g}" for k, v in _params.items())
    suite.regret(
        f"dist-mab/{_thm}-regret@rate-eps", policy=_name, environment=THEOREM_ENV,
        claim=RegretRate(_exponent, "eps"), params=dict(_params),
        horizons={"quick": T_LOCAL if _local else T_RATE},
        runs=DG_RUNS if _name == "dist-cdp-se" else RATE_RUNS,
        options={**RATE_OPTIONS, "values": EPS_LOCAL if _local else EPS_VALUES},
        title=f"{_printed}: the private term as eps -> 0, exponent {_exponent:g} in eps ({_label}, K = 10, "
              f"T = 10^{8 if _local else 7}, p = 1/T; eps {'0.1 ... 0.9' if _local else '0.004 ... 0.064'})")
    _t_params = {**_params, "eps": EPS_T_LOCAL if _local else EPS_T}
    suite.regret(
        f"dist-mab/{_thm}-regret@rate-T", policy=_name, environment=THEOREM_ENV, claim=LOG_RATE, params=_t_params,
        horizons={"quick": T_GRID_LOCAL if _local else T_GRID}, runs=DG_RUNS if _name == "dist-cdp-se" else T_RUNS,
        title=f"{_printed}: O(log T) in T at eps = {_t_params['eps']:g} ({_label}, K = 10, p = 1/T, one run per "
              f"horizon T; fitted on T >= 10^{6 if _local else 5}, after every elimination)")


# -- Lemma 2's explicit chain ----------------------------------------------------------------------


def lemma2_pulls(policy, gaps: np.ndarray, K: int) -> np.ndarray:
    """S_a = l(1) + ... + l(b_a), b_a the first batch with Delta_a > 4 beta_K(b) (the policy's radius at
    |Phi| = K and its own T and p); 0 for the best arm."""
    T = policy.horizon_T(policy.T)
    pulls = np.zeros(len(gaps))
    for a, gap in enumerate(gaps):
        if gap <= 0:
            continue
        b, total = 1, 0
        while True:
            total += policy.batch_size(b)
            if gap > 4 * float(policy.radius(b, K, T)) or total >= T:
                break
            b += 1
        pulls[a] = total
    return pulls


def lemma2_bound(T, gaps, K, *, name: str, params: dict, expectation: bool):
    """f_E(T) = min{sum_a Delta_a min(S_a, T), Delta_max T} (module docstring); in expectation plus
    3 p Delta_max T, P(not E) <= 3p with p the policy's (1/T)."""
    policy = ALGORITHMS[name](**params)
    pulls = lemma2_pulls(policy, np.asarray(gaps, dtype=float), int(K))
    T = np.asarray(T, dtype=float)
    top = float(np.max(gaps))
    on_e = np.minimum((np.asarray(gaps)[None, :] * np.minimum(pulls[None, :], T[:, None])).sum(axis=1), top * T)
    if not expectation:
        return on_e
    return on_e + 3 * policy.failure(policy.horizon_T(policy.T)) * top * T


for _thm, _name, _params in [("thm1", "dist-dp-se", {}), ("thm2", "dist-rdp-se", {"s": 10})]:
    _p = {**_params, "eps": EPS_T, "T": T_RATE}
    _label = ALGORITHMS[_name](**_p).label + "".join(f", {k} = {v:g}" for k, v in _params.items())
    suite.regret(
        f"dist-mab/lem2-regret@bound-hp,{_name}", policy=_name, environment=THEOREM_ENV, params=_p,
        claim=RegretBound(partial(lemma2_bound, name=_name, params=_p, expectation=False),
                          "sum_a Delta_a min(S_a, T), S_a = l(1) + ... + l(b_a), b_a = min{b : Delta_a > 4 beta_K(b)}",
                          probability=3 / T_RATE),
        horizons={"quick": T_GRID}, runs=T_RUNS,
        title=f"Lemma 2's chain, w.p. >= 1 - 3p: Reg(T) <= sum_a Delta_a min(S_a, T) ({_label}, eps = {EPS_T:g}, "
              f"K = 10, p = 1/T = 10^-7; as {_thm}-regret@rate-T)")
    suite.regret(
        f"dist-mab/lem2-regret@bound-mean,{_name}", policy=_name, environment=THEOREM_ENV, params=_p,
        claim=RegretBound(partial(lemma2_bound, name=_name, params=_p, expectation=True),
                          "sum_a Delta_a min(S_a, T) + 3 p Delta_max T"),
        horizons={"quick": T_GRID}, runs=T_RUNS,
        title=f"Lemma 2's chain in expectation: E[Reg(T)] <= sum_a Delta_a min(S_a, T) + 3p Delta_max T ({_label}, "
              f"eps = {EPS_T:g}, K = 10, p = 1/T)")


# -- Lemma 1: linear in K ----------------------------------------------------------------------------

K_VALUES = (8, 16, 32, 64, 128, 256)
LEMMA1_RUNS = {"quick": 20, "paper": 200}


def lemma1_policy(K: float):
    """Dist-DP-SE at eps = 0.1, T = 10^7, whatever K (the instance carries K)."""
    return ALGORITHMS["dist-dp-se"](eps=EPS_T, T=T_RATE)


def lemma1_environment(K: float) -> BernoulliBandit:
    return theorem_instance(int(round(K)))


suite.regret(
    "dist-mab/lem1@rate-K", policy=lemma1_policy, environment=lemma1_environment, claim=RegretRate(1.0, "K"),
    horizons={"quick": T_RATE}, runs=LEMMA1_RUNS, options={"values": K_VALUES, "margin": 0.1},
    title="Lemma 1: O(sum log T/Delta_a + K sigma sqrt(log T) + K h log T) is linear in K (Dist-DP-SE, eps = 0.1, "
          "T = 10^7; K = 8 ... 256 arms, best mean 0.9, gaps geometric over [0.4, 0.8))")


# -- Remark 4 and Sec. 5's RDP -> DP paragraph -------------------------------------------------------

for _eta in (2, 4):
    suite.regret(
        f"dist-mab/remark4@eta{_eta},rate-eps", policy="dist-dp-se", environment=REMARK4_ENV,
        claim=RegretRate(-1.0, "eps"), params={} if _eta == 2 else {"eta": _eta},
        horizons={"quick": T_RATE}, runs=RATE_RUNS, options=RATE_OPTIONS,
        title=f"Remark 4: batches l(b) = {_eta}^b keep Theorem 1's order, K log T/eps (Dist-DP-SE, K = 10, gaps over "
              "[0.2, 0.8), T = 10^7)")

suite.regret(
    "dist-mab/claimsec5b@s100,rate-eps", policy="dist-rdp-se", environment=THEOREM_ENV, claim=RegretRate(-1.0, "eps"),
    params={"s": 100}, horizons={"quick": T_RATE}, runs=RATE_RUNS, options=RATE_OPTIONS,
    title="Sec. 5: with large s, O(sum log T/Delta_a + K sqrt(log T log(1/delta))/eps): exponent -1 in eps "
          "(Dist-RDP-SE, s = 100, K = 10, T = 10^7)")


# -- Figures 1 and 4 (the presets) -------------------------------------------------------------------

# the figures as the authors ran them (module docstring); every title says so
_PRESETS = {preset.figure: preset.with_constants("released-code") for preset in PRESETS}
_CONSTANTS = "the released code's constants"
FIGURE_QUICK = {"horizon": 10**5}


def _series(config, labels=None) -> dict:
    """The curves of a configuration (those named in ``labels``, default all) as (registry name, keyword
    arguments at the configuration's horizon)."""
    return {c.label: (c.algorithm, c.arguments(config.horizon)) for c in config.curves
            if labels is None or c.label in labels}


def _budgets(config) -> tuple[dict, dict]:
    return ({"quick": FIGURE_QUICK["horizon"], "paper": config.horizon},
            {"quick": config.runs, "paper": config.runs})


_fig1 = _PRESETS["fig1"]
for _gap in sorted({c.value("gap") for c in _fig1.configurations}, reverse=True):
    _configs = [c for c in _fig1.configurations if c.value("gap") == _gap]
    _env = _configs[0].environment
    _horizons, _runs = _budgets(_configs[0])
    _name = "easy" if _gap == 0.5 else "hard"
    for _config in _configs:
        _eps = _config.value("eps")
        suite.order(
            f"dist-mab/fig1@gap{_gap:g},eps{_eps:g}", algorithms=_series(_config, RegretOrder(_fig1.ordering).labels),
            environment=_config.environment, claim=RegretOrder(_fig1.ordering), horizons=_horizons, runs=_runs,
            title=f"Fig. 1 ({_name} instance, gap {_gap:g}, eps = {_eps:g}; {_CONSTANTS}): RDP gains over pure DP "
                  "and the gain grows with s: Dist-RDP-SE(s=100) <= Dist-RDP-SE(s=10) <= Dist-DP-SE (final regret)")
    _by_eps = sorted(_configs, key=lambda c: -c.value("eps"))  # eps = 1 first: smallest difference
    _price = {f"Dist-DP-SE - DP-SE @eps{c.value('eps'):g}": Difference(_series(c)["Dist-DP-SE"], _series(c)["DP-SE"])
              for c in _by_eps}
    suite.order(
        f"dist-mab/fig1@gap{_gap:g},price", algorithms=_price, environment=_env,
        claim=RegretOrder([[label] for label in _price], at="grid"), horizons=_horizons, runs=_runs,
        title=f"Fig. 1 ({_name} instance; {_CONSTANTS}): the price of distributed privacy, Dist-DP-SE - DP-SE, "
              "is smaller for larger eps (eps = 1 <= 0.5 <= 0.1, at every recorded round)")
    _gain = {f"Dist-DP-SE - Dist-RDP-SE(s=10) @eps{c.value('eps'):g}":
             Difference(_series(c)["Dist-DP-SE"], _series(c)["Dist-RDP-SE(s=10)"]) for c in _by_eps}
    suite.order(
        f"dist-mab/fig1@gap{_gap:g},gain", algorithms=_gain, environment=_env,
        claim=RegretOrder([[label] for label in _gain]), horizons=_horizons, runs=_runs,
        title=f"Fig. 1 ({_name} instance; {_CONSTANTS}): RDP's gain over pure DP, Dist-DP-SE - Dist-RDP-SE(s=10), "
              "is largest for small eps (eps = 1 <= 0.5 <= 0.1, final regret)")

_fig4 = _PRESETS["fig4"]
for _config in _fig4.configurations:
    _eps = _config.value("eps")
    _horizons, _runs = _budgets(_config)
    suite.order(
        f"dist-mab/fig4@eps{_eps:g}", algorithms=_series(_config), environment=_config.environment,
        claim=RegretOrder(_fig4.ordering), horizons=_horizons, runs=_runs,
        title=f"Fig. 4 (easy instance, eps = {_eps:g}, batches 2^b; {_CONSTANTS}): Dist-CDP-SE(s=10) <= "
              "Dist-RDP-SE(s=10) <= {CDP-SE, Dist-DP-SE} <= LDP-SE (final regret)"
              + (" (eps = 1 is outside Theorems 4-6's eps < 1, as in the paper's figure)" if _eps >= 1 else ""))
