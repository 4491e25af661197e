"""Regret bounds decided exactly from an algorithm's expected regret (dpaudit.auditors.exact_regret), and
the exact regrets themselves, against simulation and against an independent computation."""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.algorithms.mab.dp_se import DPSuccessiveElimination
from dpaudit.suite import RunContext, Suite
from dpaudit.testing import ExploreThenCommit


def _agree(policy, env, horizon, runs, seed):
    """The exact regret against a simulation: within 4.5 standard errors where the runs vary (each of
    the 12 comparisons fails with probability below 1e-5 if the exact value is right); where every run
    has the same regret, an event that no run saw moves the mean by at most (T x gap) x its
    probability, and an event of probability >= 5 / runs is missed with probability <= e^-5 = 0.007."""
    grid = np.unique(np.geomspace(10, horizon, 12).astype(int))
    exact = policy.exact_regret(env, grid, horizon)
    sim = dpaudit.simulate(policy, env, horizon, runs, seed=seed, grid=grid)
    varies = sim.stderr() > 1e-6 * np.maximum(exact, 1)
    assert np.all(np.abs(sim.mean() - exact)[varies] <= 4.5 * sim.stderr()[varies])
    gap = np.ptp(env.sampler.values)
    assert np.all(np.abs(sim.mean() - exact)[~varies] <= 5 / runs * gap * grid[~varies] + 1e-9)
    return exact, varies


# the last case is ruled by the noise: each arm's sum gets Lap(1/eps) = Lap(50) against a binomial spread of
# about 40, so a simulation drawing half the noise the exact law assumes is 17 standard errors off at T
@pytest.mark.slow
@pytest.mark.parametrize("eps, means, horizon", [(1.0, [0.57, 0.43], 20_000), (0.2, [0.4, 0.55], 50_000),
                                                 (4.0, [0.55, 0.485], 60_000), (0.02, [1.0, 0.82], 50_000)])
def test_dp_se_exact_regret_matches_simulation(eps, means, horizon):
    exact, varies = _agree(DPSuccessiveElimination(eps), BernoulliBandit(means), horizon, 10_000, seed=1)
    assert varies.any()  # the instance is chosen so that the eliminations are random events
    assert np.all(np.diff(exact) >= -1e-9)


# --- an independent computation of DP-SE's exact regret ---------------------------------------------
#
# Written from the algorithm as its module states it (Sajed & Sheffet 2019, reconstructed): in epoch e
# with both arms alive, Delta_e = 2^-e and each arm is pulled, arm 0 then arm 1,
# R_e = ceil(max(32 ln(16 e^2 / beta) / Delta_e^2, 8 ln(8 e^2 / beta) / (eps Delta_e))) times on fresh
# rounds; each arm's sum gets its own Lap(1/eps), and arm i goes when the other's noisy mean exceeds its
# own by more than 2 (h_e + c_e), h_e = sqrt(ln(16 e^2 / beta) / (2 R_e)), c_e = ln(8 e^2 / beta) / (eps R_e);
# a lone survivor is played to the end, and an epoch cut off by the horizon decides nothing. Here the
# binomial laws are summed term by term and the difference of two Laplace draws has its closed-form tail,
# in 30-digit arithmetic: none of the code under test (its epoch lengths, FFT convolution, gamma-series
# tail of a Laplace sum) is used.

def _binomial_pmf(n, p):
    """[P(S = s), s = 0..n] for S ~ Binomial(n, p), by the ratio of successive terms."""
    if p == 1:
        return [mp.mpf(0)] * n + [mp.mpf(1)]
    pmf = [(1 - p) ** n]
    for s in range(n):
        pmf.append(pmf[-1] * (n - s) / (s + 1) * p / (1 - p))
    return pmf


def _laplace_difference_sf(x, b):
    """P(L_0 - L_1 > x) for independent L_i ~ Laplace(0, b): (1/2 + x / (4 b)) e^(-x / b) for x >= 0
    (integrating the density (1 + |x| / b) e^(-|x| / b) / (4 b)), and symmetric."""
    if x < 0:
        return 1 - _laplace_difference_sf(-x, b)
    return (mp.mpf(1) / 2 + x / (4 * b)) * mp.exp(-x / b)


def _dp_se_regret(eps, beta, means, rounds, horizon):
    """E[R_T] of DP-SE on two Bernoulli arms at each of ``rounds`` of a run of ``horizon`` rounds."""
    eps, beta, mu = mp.mpf(eps), mp.mpf(beta), [mp.mpf(m) for m in means]  # the floats' exact values
    worse = 0 if mu[0] < mu[1] else 1
    pulls = [mp.mpf(0)] * len(rounds)  # E[pulls of the worse arm by round T]
    alive, start, e = mp.mpf(1), 0, 1  # P(both arms alive), rounds played, epoch
    while start < horizon:
        log8, log4, width = mp.log(16 * e**2 / beta), mp.log(8 * e**2 / beta), mp.mpf(2) ** -e
        n = int(mp.ceil(max(32 * log8 / width**2, 8 * log4 / (eps * width))))
        end = start + 2 * n
        for i, T in enumerate(rounds):  # the worse arm's pulls in this epoch
            pulls[i] += alive * min(max(min(T, end) - (start + n * worse), 0), n)
        if end > horizon:
            break
        threshold = 2 * (mp.sqrt(log8 / (2 * n)) + log4 / (eps * n)) * n  # on S_0 + L_0 - S_1 - L_1
        p0, p1 = _binomial_pmf(n, mu[0]), _binomial_pmf(n, mu[1])
        if mu[0] == 1:  # S_0 = n: the difference takes the law of n - S_1
            law = {n - s: p for s, p in enumerate(p1)}
        else:
            law = {k: mp.fdot(p0[max(k, 0):n + 1 + min(k, 0)], p1[max(-k, 0):n + 1 - max(k, 0)])
                   for k in range(-n, n + 1)}
        tiny = mp.mpf(10) ** -40  # the terms left out add up to less than 2 (n + 1) 10^-40
        drop = [mp.fsum(p * _laplace_difference_sf(threshold + k, 1 / eps) for k, p in law.items() if p > tiny),
                mp.fsum(p * _laplace_difference_sf(threshold - k, 1 / eps) for k, p in law.items() if p > tiny)]
        for i, T in enumerate(rounds):  # after the better arm goes, the worse one is played to the end
            pulls[i] += alive * drop[1 - worse] * max(T - end, 0)
        alive *= 1 - drop[0] - drop[1]
        start, e = end, e + 1
    return np.array([float(abs(mu[0] - mu[1]) * p) for p in pulls])


@pytest.mark.parametrize("eps, beta, means, horizon", [
    # R_1 = 369, R_2 = 2184: the horizon stops just short of the end of epoch 2, so the regret after epoch 1
    # turns on epoch 1's elimination, a sum over the law of S_0 - S_1 (both binomial) and the noise
    (0.1, 0.9, [0.62, 0.38], 2 * 369 + 2 * 2184 - 1),
    # three epochs decided (R_e = 2219, 6655, 15904), the noise (Lap(50) on each sum) as wide as the binomial
    (0.02, 0.5, [1.0, 0.85], 60_000),
])
def test_dp_se_exact_regret_matches_an_independent_computation(eps, beta, means, horizon):
    """Equal to 1e-9 (they agree to about 1e-14), far closer than what a wrong noise or threshold moves:
    Lap(1/(2 eps)) instead of Lap(1/eps) changes the regret by up to 1.1% (first case) and 12% (second),
    h_e with ln(8 e^2 / beta) instead of ln(16 e^2 / beta) by 15% and 4%, R_e's first term with 16 for 32
    by 159% (first case)."""
    rounds = np.unique(np.linspace(1, horizon, 40).astype(np.int64))
    with mp.workdps(30):
        independent = _dp_se_regret(eps, beta, means, [int(T) for T in rounds], horizon)
    exact = DPSuccessiveElimination(eps, beta).exact_regret(BernoulliBandit(means), rounds, horizon)
    assert independent[-1] > 10  # the regret is not all exploration: the eliminations count
    np.testing.assert_allclose(exact, independent, rtol=1e-9, atol=1e-9)


def test_explore_then_commit_exact_regret_matches_an_enumeration():
    """ETC(m) on two Bernoulli arms against every outcome of its 2m exploration rewards, in exact rational
    arithmetic (the means are the floats' exact values): its regret at round T is the gaps of the arms
    it explored by T, then T - 2m times the gap of the arm it commits to (the larger reward sum, ties
    halved)."""
    for means, m in [([0.6, 0.4], 1), ([0.6, 0.4], 4), ([0.35, 0.8], 5), ([0.5, 0.5], 3)]:
        mu = [Fraction(x) for x in means]
        gaps = [max(mu) - x for x in mu]
        wrong = Fraction(0)  # E[gap of the committed arm]
        for rewards in itertools.product((0, 1), repeat=2 * m):  # arm 0's m rewards, then arm 1's
            weight = math.prod(mu[i // m] if r else 1 - mu[i // m] for i, r in enumerate(rewards))
            sums = sum(rewards[:m]), sum(rewards[m:])
            wrong += weight * (gaps[0] if sums[0] > sums[1] else gaps[1] if sums[1] > sums[0] else sum(gaps) / 2)
        rounds = np.array([1, m, m + 1, 2 * m, 2 * m + 1, 5 * m + 3, 1000])
        for reverse in (False, True):
            order = [1, 0] if reverse else [0, 1]  # the arm explored in rounds 1..m, then in m+1..2m
            expected = [sum(gaps[order[(t - 1) // m]] for t in range(1, min(T, 2 * m) + 1)) + max(T - 2 * m, 0) * wrong
                        for T in rounds]
            exact = ExploreThenCommit(m, reverse=reverse).exact_regret(BernoulliBandit(means), rounds, 1000)
            np.testing.assert_allclose(exact, [float(v) for v in expected], rtol=1e-12, atol=1e-12)


def test_dp_se_exact_regret_refuses_what_it_cannot_compute():
    grid = np.array([10, 100])
    with pytest.raises(dpaudit.UnsupportedAudit, match="2 arms"):
        DPSuccessiveElimination(1.0).exact_regret(BernoulliBandit([0.6, 0.5, 0.4]), grid, 100)
    with pytest.raises(dpaudit.UnsupportedAudit, match="fixed means"):
        DPSuccessiveElimination(1.0).exact_regret(dpaudit.algorithms.GaussianBandit([0.6, 0.5], 0.1), grid, 100)
    with pytest.raises(dpaudit.UnsupportedAudit, match="per-arm"):
        DPSuccessiveElimination(1.0, noise="shared").exact_regret(BernoulliBandit([0.6, 0.5]), grid, 100)
    assert not DPSuccessiveElimination(1.0).exact_regret(BernoulliBandit([0.5, 0.5]), grid, 100).any()


@pytest.mark.slow
@pytest.mark.parametrize("reverse", [False, True])
def test_explore_then_commit_exact_regret_matches_simulation(reverse):
    _agree(ExploreThenCommit(30, reverse=reverse), BernoulliBandit([0.4, 0.55]), 3000, 20_000, seed=2)


def test_bounds_are_decided_exactly_where_the_regret_is_known():
    env = BernoulliBandit([0.57, 0.43])
    policy = DPSuccessiveElimination(1.0)
    grid = np.unique(np.geomspace(100, 20_000, 10).astype(int))
    # DP-SE's beta = 1/T reads the horizon: the claim's E[R_T] is that of a run started with T
    exact = np.array([policy.exact_regret(env, [T], T)[0] for T in grid])
    figure = policy.exact_regret(env, grid, 20_000)  # round T of one run of horizon 20,000, as a figure reads it
    assert not np.allclose(exact, figure)

    def at(scale, values=exact):
        return dpaudit.RegretBound(lambda T: scale * np.interp(T, grid, values), f"{scale} x E[R_T]")

    held = dpaudit.audit_regret(policy, env, at(1.0), horizons=grid, seed=0)
    assert held.verdict == "verified" and held.auditor == "exact-regret" and held.confidence == 1.0
    assert held.statistic.kind == "exact" and held.statistic.value == pytest.approx(1.0)
    assert held.parameters["reading"]["rounds"].startswith("E[R_T] of a run of horizon T")
    read_as_figure = dpaudit.audit_regret(policy, env, at(1.0, figure), horizons=grid, seed=0, reading="figure")
    assert read_as_figure.verdict == "verified" and read_as_figure.statistic.value == pytest.approx(1.0)
    assert read_as_figure.parameters["reading"]["rounds"] == "E[R_t] at each recorded round t of a run of horizon 20000"
    short = dpaudit.audit_regret(policy, env, at(0.999), horizons=grid, seed=0)
    assert short.verdict == "refuted" and short.witness["T"] == grid[np.argmax(exact > 0)]  # the first T with regret
    assert short.witness["expected_regret"] > short.witness["bound"]
    # what the exact path cannot decide goes to simulation, and the record says why
    hp = dpaudit.audit_regret(policy, env, dpaudit.RegretBound(lambda T: 2 * np.interp(T, grid, exact), "2x",
                                                               probability=0.1), horizons=grid, runs=50, seed=0)
    assert hp.auditor == "regret-bound" and any("high-probability" in n for n in hp.notes)
    three = dpaudit.audit_regret(policy, BernoulliBandit([0.57, 0.43, 0.4]), at(100.0), horizons=grid, runs=50,
                                 seed=0)
    assert three.auditor == "regret-bound" and any("could not decide" in n and "2 arms" in n for n in three.notes)
    forced = dpaudit.audit_regret(policy, env, at(1.0), horizons=grid, runs=50, seed=0, auditor="statistical")
    assert forced.auditor == "regret-bound" and forced.verdict == "not-refuted"


def test_a_suite_entry_plans_the_exact_path():
    suite = Suite("mine", "my suite")
    env = BernoulliBandit([0.57, 0.43])
    entry = suite.regret("mine/dpse", policy="dp-se", params={"eps": 1.0}, environment=env,
                         claim=dpaudit.RegretBound(lambda T: 0.2 * T, "0.2 T (the largest possible)"),
                         horizons={"quick": 20_000})
    assert entry.plan.auditor.name == "exact-regret" and entry.plan.fallback is not None
    audit = entry.audit(RunContext(0, "quick", 0.01, np.random.SeedSequence(0)))
    assert audit.finding.verdict == "verified"


def test_an_exact_regret_finding_is_the_closed_form_at_every_round():
    """Explore-then-commit (m = 5) on Bernoulli(0.6, 0.4): every field of the finding is the closed form
    of its expected regret at the recorded rounds, against bounds that hold with equality, fail at the
    later rounds, sit within the 1e-9 tolerance or twice beyond it, are zero or negative, or read the
    instance's gaps."""
    from dpaudit.auditors.exact_regret import ExactRegretAuditor
    from dpaudit.testing import explore_then_commit_regret

    env, policy = BernoulliBandit([0.6, 0.4]), ExploreThenCommit(5)
    grid = np.array([10, 50, 200])
    exact = explore_then_commit_regret(np.array([0.6, 0.4]), 5, grid)
    assert (exact > 0).all()

    def audit(f, description="f", **kw):
        return dpaudit.audit_regret(policy, env, dpaudit.RegretBound(f, description), horizons=grid, seed=0, **kw)

    held = audit(lambda T: np.interp(T, grid, exact), "the exact regret")
    assert held.verdict == "verified" and held.auditor == "exact-regret"
    assert held.statistic.name == "E[R_T] / f(T) at T=10" and held.statistic.value == pytest.approx(1.0, rel=1e-12)
    assert held.statistic.interval == (held.statistic.value, held.statistic.value)
    assert held.witness == {"T": 10, "expected_regret": pytest.approx(exact[0]), "bound": pytest.approx(exact[0]),
                            "margin": pytest.approx(1.0), "method": "exact expected regret"}
    assert held.parameters["exact_regret"] == pytest.approx(exact, rel=1e-12)
    assert held.parameters["bound"] == pytest.approx(exact, rel=1e-12)
    assert list(held.parameters["grid"]) == [10, 50, 200]
    assert held.parameters["reading"]["rounds"] == "E[R_t] at each recorded round t of a run of horizon 200"
    assert held.parameters["reading"]["why"]
    assert held.notes == ["E[R_T] computed exactly at 3 rounds (up to floating-point rounding); it is at most 1 of "
                          "the bound (T = 10)"]
    assert held.plot_data["kind"] == "regret-bound" and held.plot_data["lower"] is None
    assert held.plot_data["mean"] == pytest.approx(exact) and held.plot_data["bound"] == pytest.approx(exact)
    assert held.plot_data["description"] == "the exact regret (the mean is exact)"
    assert held.plot_data["grid"].tolist() == [10, 50, 200]
    # fails at 50 and 200: the first failing round is the witness, not the largest ratio
    scale = np.array([2.0, 0.8, 0.5])
    late = audit(lambda T: np.interp(T, grid, exact * scale))
    assert late.verdict == "refuted" and late.witness["T"] == 50
    assert late.witness["margin"] == pytest.approx(1 / 0.8) and late.statistic.value == pytest.approx(1 / 0.8)
    assert late.notes[0].endswith(f"the bound fails first at T = 50: {exact[1]:.6g} > {0.8 * exact[1]:.6g}")
    # within the tolerance (1e-9 of the bound, at least 1e-9 absolute) the bound holds; twice beyond it, not
    assert audit(lambda T: np.interp(T, grid, exact) * (1 - 0.4e-9) - 0.4e-9).verdict == "verified"
    assert audit(lambda T: np.interp(T, grid, exact) * (1 - 2e-9)).verdict == "refuted"
    assert audit(lambda T: np.interp(T, grid, exact) - 2e-9 * np.maximum(np.interp(T, grid, exact), 1.0)).verdict \
        == "refuted"
    # a bound of 0 or below is exceeded by any positive regret: the ratio is infinite
    for constant in (0.0, -1.0):
        zero = audit(lambda T, c=constant: np.full(np.shape(T), c))
        assert zero.verdict == "refuted" and zero.witness["T"] == 10 and zero.statistic.value == math.inf
    # the bound's parameters are the instance's: K = 2 and its gaps
    gaps = audit(lambda T, K, gaps: np.interp(T, grid, exact) * (K / 2) * (gaps[1] / 0.2))
    assert gaps.verdict == "verified" and gaps.statistic.value == pytest.approx(1.0, rel=1e-9)
    with pytest.raises(dpaudit.UnsupportedAudit, match=r"^the exact regret is the expected pseudo-regret$"):
        ExactRegretAuditor().audit(_regret_subject(policy, env), dpaudit.RegretBound(lambda T: T, "T"),
                                   horizons=grid, regret="realised")


def _regret_subject(policy, env):
    from dpaudit.auditors import RegretSubject

    return RegretSubject(policy, env, "etc", {})


class AlwaysArm:
    """Plays ``arm`` in every round: its expected pseudo-regret at round T is T times the arm's expected gap
    on the environment it is audited on (given, ``gap``), returned as exact rationals (an exact_regret may
    compute in Fractions: the auditor reads them as floats), for a run of any horizon."""

    def __init__(self, arm, gap, anytime=True):
        self.arm, self.gap, self.anytime = arm, Fraction(gap), anytime

    def start(self, runs, arms, horizon, rng):
        self.runs = runs

    def choose(self, t):
        return np.full(self.runs, self.arm)

    def observe(self, t, arms, rewards):
        pass

    def exact_regret(self, environment, rounds, horizon):
        return [self.gap * int(T) for T in rounds]


def _exact_audit(policy, env, f, horizons=(10, 50, 200), description="f", **kwargs):
    from dpaudit.auditors.exact_regret import ExactRegretAuditor

    return ExactRegretAuditor().audit(_regret_subject(policy, env), dpaudit.RegretBound(f, description),
                                      horizons=np.asarray(horizons), **kwargs)


@pytest.mark.parametrize("anytime", [True, False])
def test_an_exact_regret_in_rationals_is_recorded_in_floats_at_integer_rounds(anytime):
    """Always the worse arm of Bernoulli(0.75, 0.25): E[R_T] = T / 2 exactly, returned as Fractions, on
    rounds given as floats, for a run of each horizon (horizon-aware) or one run (anytime). The record
    holds the rounds as integers and the regret as floats: the note reads "T = 10", and a bound of T / 2
    holds with ratio 1 while 0.4 T fails first at T = 10 (5 > 4)."""
    policy, env = AlwaysArm(1, Fraction(1, 2), anytime), BernoulliBandit([0.75, 0.25])
    held = _exact_audit(policy, env, lambda T: T / 2, horizons=np.array([10.0, 50.0, 200.0]))
    assert held.verdict == "verified" and held.statistic.value == 1.0
    assert held.parameters["grid"].dtype == np.int64 and held.parameters["grid"].tolist() == [10, 50, 200]
    assert held.parameters["exact_regret"].dtype == float and held.parameters["exact_regret"].tolist() == [5, 25, 100]
    assert held.plot_data["grid"].tolist() == [10, 50, 200] and held.plot_data["mean"].tolist() == [5, 25, 100]
    assert held.notes == ["E[R_T] computed exactly at 3 rounds (up to floating-point rounding); it is at most 1 of "
                          "the bound (T = 10)"]
    assert held.parameters["reading"]["rounds"] == (
        "E[R_t] at each recorded round t of a run of horizon 200" if anytime
        else "E[R_T] of a run of horizon T, at each of the 3 recorded rounds")
    short = _exact_audit(policy, env, lambda T: 0.4 * T, horizons=np.array([10.0, 50.0, 200.0]))
    assert short.verdict == "refuted" and short.witness["T"] == 10
    assert short.notes == ["E[R_T] computed exactly at 3 rounds (up to floating-point rounding); the bound fails "
                           "first at T = 10: 5 > 4"]


@pytest.mark.parametrize(("bound", "verdict"), [(1 - 1e-9, "verified"), (1 - 1.5e-9, "refuted")])
def test_an_exact_regret_is_compared_with_its_bound_up_to_one_part_in_a_billion(bound, verdict):
    """E[R_2] = 1 exactly (always the worse arm of Bernoulli(0.75, 0.25), two rounds): a bound of 1 - 1e-9
    lies exactly at the tolerance (1e-9 of the bound, at least 1e-9 absolute: (1 - 1e-9) + 1e-9 is 1 in
    floating point) and holds; 1 - 1.5e-9 lies beyond it and fails."""
    found = _exact_audit(AlwaysArm(1, Fraction(1, 2)), BernoulliBandit([0.75, 0.25]),
                         lambda T: np.full(np.shape(T), bound), horizons=[2])
    assert found.verdict == verdict and found.statistic.value == pytest.approx(1 / bound, rel=1e-15)


def test_no_regret_against_a_bound_of_zero_is_no_part_of_it():
    """The best arm played throughout: E[R_T] = 0, a bound of 0 holds, and the regret is 0 of it (no ratio
    of 0 to 0 is 1)."""
    found = _exact_audit(AlwaysArm(0, 0), BernoulliBandit([0.75, 0.25]), lambda T: np.zeros(np.shape(T)))
    assert found.verdict == "verified" and found.statistic.value == 0.0 and found.witness["margin"] == 0.0
    assert found.notes == ["E[R_T] computed exactly at 3 rounds (up to floating-point rounding); it is at most 0 of "
                           "the bound (T = 10)"]


class _Returns(AlwaysArm):
    """A policy whose exact_regret returns ``values`` whatever it is asked."""

    def __init__(self, values):
        super().__init__(0, 0)
        self.values = values

    def exact_regret(self, environment, rounds, horizon):
        return self.values


@pytest.mark.parametrize(("values", "shape"), [([1.0, math.nan, 2.0], "(3,)"), ([1.0, 2.0], "(2,)"),
                                               ([1.0, math.inf, 2.0], "(3,)")])
def test_an_exact_regret_that_is_not_one_finite_value_per_round_is_an_error(values, shape):
    message = f"etc: exact_regret must return one finite value per round, got shape {shape}"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        _exact_audit(_Returns(values), BernoulliBandit([0.75, 0.25]), lambda T: T)


def test_an_exact_regret_over_random_instances_gives_the_bound_no_gaps():
    """Always arm 0 of a bandit whose two means are drawn uniformly on [0.2, 0.8] for each run: E[R_T] = T
    E[max(U, V) - U] = T (0.8 - 0.2) / 6 = 0.1 T. A bound of 0.1 T holds with ratio 1; a bound that reads
    the instance's gaps cannot be evaluated (the runs have no one gap vector), the same answer as the
    statistical auditor's, not the gaps of one instance drawn for the purpose."""
    from dpaudit.algorithms import UniformMeans

    env, policy = BernoulliBandit(UniformMeans(2, 0.2, 0.8)), AlwaysArm(0, Fraction(1, 10))
    held = _exact_audit(policy, env, lambda T: T / 10)
    assert held.verdict == "verified" and held.statistic.value == pytest.approx(1.0, rel=1e-15)
    assert _exact_audit(policy, env, lambda T, K: T * K / 20).statistic.value == pytest.approx(1.0, rel=1e-15)
    with pytest.raises(ValueError, match=r"^RegretBound 'f': f takes gaps; give params=\{'gaps': \.\.\.\}$"):
        _exact_audit(policy, env, lambda T, gaps: T * gaps.max())
    with pytest.raises(ValueError, match=r"f takes gaps"):  # the statistical auditor's answer
        dpaudit.audit_regret(policy, env, dpaudit.RegretBound(lambda T, gaps: T * gaps.max(), "f"), horizons=[10, 50],
                             runs=2, seed=0, auditor="statistical")


def test_the_gaps_reach_a_bound_as_floats_whatever_the_environment_gives():
    """An environment of the protocol whose means are integers (arm 0 always pays 1, arm 1 never): a bound
    may take negative powers of the gaps, as of the float gaps a simulation records (means stored as
    floats), so 1 / max gap = 1 here and the bound T holds the regret T of always arm 1 exactly."""
    from types import SimpleNamespace

    class Deterministic:
        arms, feedback = 2, "bandit"

        def instances(self, runs, rng):
            return SimpleNamespace(means=np.tile(np.array([1, 0]), (runs, 1)))

    found = _exact_audit(AlwaysArm(1, 1), Deterministic(), lambda T, gaps: T * gaps.max() ** -1)
    assert found.verdict == "verified" and found.statistic.value == 1.0 and found.plot_data["bound"].tolist() == [
        10, 50, 200]


def test_the_exact_auditor_names_what_it_cannot_audit():
    """Its answers, as the driver reads them: only a missing high-probability law is worth a note in the
    record (the statistical auditor then decides a claim the exact one could have had); a claim of
    another kind, a subject of no single policy or a policy without an exact regret offer it nothing."""
    from dpaudit.auditors import RegretSubject, Support
    from dpaudit.auditors.exact_regret import ExactRegretAuditor

    auditor, env = ExactRegretAuditor(), BernoulliBandit([0.6, 0.4])
    bound = dpaudit.RegretBound(lambda T: T, "T")
    assert auditor.supports(_regret_subject(ExploreThenCommit(2), env), bound) == Support.attempts()
    assert auditor.supports(_regret_subject(ExploreThenCommit(2), env), dpaudit.RegretRate(0.5)) == Support.no(
        "the exact regret auditor tests RegretBound claims; got regret-rate", noted=False)
    assert auditor.supports(_regret_subject(ExploreThenCommit(2), env), dpaudit.RegretBound(
        lambda T: T, "T", probability=0.1)) == Support.no(
        "a high-probability bound needs the law of the regret, not its mean")
    for subject in (RegretSubject(None, env, "etc over eps", {}, make=lambda eps: None), object()):
        assert auditor.supports(subject, bound) == Support.no("a regret bound is audited on one policy and environment",
                                                              noted=False)
    no_exact = _regret_subject(PlainPolicy(), env)
    assert auditor.supports(no_exact, bound) == Support.no("the policy has no exact regret (exact_regret)",
                                                           noted=False)
    hp = dpaudit.audit_regret(ExploreThenCommit(2), env, dpaudit.RegretBound(lambda T: T, "T", probability=0.1),
                              horizons=[10, 20], runs=2, seed=0)
    assert hp.notes[0] == ("the exact-regret auditor does not support this audit (a high-probability bound needs the "
                           "law of the regret, not its mean); audited from samples instead")
    plain = dpaudit.audit_regret(PlainPolicy(), env, bound, horizons=[10, 20], runs=2, seed=0)
    assert plain.auditor == "regret-bound" and not any("exact-regret" in note for note in plain.notes)


class PlainPolicy:
    """Always arm 0, with no exact regret."""

    anytime = True

    def start(self, runs, arms, horizon, rng):
        self.runs = runs

    def choose(self, t):
        return np.zeros(self.runs, dtype=np.int64)

    def observe(self, t, arms, rewards):
        pass


def test_the_law_of_a_difference_of_binomial_sums_is_a_law():
    """difference_pmf(n, p, q), the law of S_1 - S_2 on -n..n, against the same law summed term by term in
    30 digits (each binomial term by the ratio of successive terms): equal to 1e-15, and nonnegative where
    the FFT convolution leaves rounding residue of about -1e-17 (extreme means, most terms below 1e-20)."""
    from dpaudit.stats import difference_pmf

    for n, p, q in [(30, 0.97, 0.2), (12, 0.5, 0.35)]:
        with mp.workdps(30):
            first, second = _binomial_pmf(n, mp.mpf(p)), _binomial_pmf(n, mp.mpf(q))
            law = [float(mp.fsum(first[s + k] * second[s] for s in range(max(-k, 0), n + 1 - max(k, 0))))
                   for k in range(-n, n + 1)]
        pmf = difference_pmf(n, p, q)
        assert pmf.shape == (2 * n + 1,) and (pmf >= 0).all()
        np.testing.assert_allclose(pmf, law, rtol=0, atol=1e-15)


def test_bernoulli_means_names_the_environment_it_cannot_read_and_reads_means_as_floats():
    """bernoulli_means (what an exact regret reads an environment's instance with): an environment with no
    fixed Bernoulli means is refused with a message naming it (its ``name``, quoted, when it has one, else
    its repr), and the means an environment gives, whatever their type (exact fractions here), come back as
    a float array, on which the exact regrets compute."""
    from dpaudit.algorithms import GaussianBandit, UniformMeans
    from dpaudit.bandits.environments import bernoulli_means

    class Unnamed:
        def __repr__(self):
            return "Unnamed()"

    class Exact:
        name = "Exact"

        def bernoulli_means(self):
            return (Fraction(3, 4), Fraction(1, 4))

    start = "the exact regret is computed on a Bernoulli bandit with fixed means, not on "
    for env, named in ((GaussianBandit([0.6, 0.5], 0.1), "'GaussianBandit([0.6, 0.5], sigma=0.1, clip=[0, 1])'"),
                       (BernoulliBandit(UniformMeans(2, 0.4, 0.6)), "'BernoulliBandit(U[0.4, 0.6]^2)'"),
                       (Unnamed(), "Unnamed()")):
        with pytest.raises(dpaudit.UnsupportedAudit, match=f"^{re.escape(start + named)}$"):
            bernoulli_means(env)
    means = bernoulli_means(Exact(), arms=2)
    assert means.dtype == np.float64 and means.tolist() == [0.75, 0.25]
    with pytest.raises(dpaudit.UnsupportedAudit, match=r"^the exact regret is computed for 3 arms, not 2$"):
        bernoulli_means(Exact(), arms=3)
