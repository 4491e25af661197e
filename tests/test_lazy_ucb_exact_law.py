"""The exact law of Anytime-Lazy-UCB's decisions on two arms (AnytimeLazyUCB.decision_distribution,
algorithms/online/lazy_law.py): against the per-round sampler (seeded chi-square goodness-of-fit
tests, false-failure rate stated beside each), against an independent computation by numerical
integration with scipy on small horizons, its error estimate, its size limit, the half-noise bug
refuted exactly, and the private-online suite entries that use it."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from dpaudit import PureDP, audit_privacy
from dpaudit.algorithms.online import AnytimeLazyUCB, lazy_law
from dpaudit.audits import private_online
from dpaudit.bandits.transcripts import DecisionTranscript, ExactDecisionTranscript

ALPHA = 1e-4  # false-failure rate of each chi-square test below


def _bonus(t: int, lam: int, eps: float) -> float:
    """Eq. 4's bonus, written out here independently of the policy."""
    return math.sqrt(3 * math.log(t) / lam) + 3 * math.log(t) / (eps * lam)


def _law(policy: AnytimeLazyUCB, table: np.ndarray) -> dict[tuple[int, ...], float]:
    dist = policy.decision_distribution(table, range(1, len(table) + 1))
    return {tuple(int(a) for a in row): float(p) for row, p in zip(dist.outcomes, dist.probs, strict=True)}


@pytest.mark.parametrize("policy, table", [
    (AnytimeLazyUCB(1.0), np.random.default_rng(3).uniform(size=(10, 2)).round(2)),
    (AnytimeLazyUCB(1.0, literal_init=True), np.random.default_rng(4).uniform(size=(10, 2)).round(2)),
    (AnytimeLazyUCB(1.0, literal_init=True), np.ones((9, 2))),  # both initial means 1: a tie, to arm 0
    (AnytimeLazyUCB(0.5, noise_scale="1/(2eps)"), np.tile([0.7, 0.4], (11, 1))),
])
def test_exact_law_matches_the_per_round_sampler(policy, table):
    """60,000 per-round runs against the exact law: every run's sequence is an outcome of the law, and a
    chi-square test (cells of expected count < 5 pooled, a pool below 5 merged into the smallest cell)
    passes at level 1e-4 (its false-failure rate)."""
    law = _law(policy, table)
    assert math.isclose(sum(law.values()), 1.0, rel_tol=1e-12)
    transcript = DecisionTranscript(policy, arms=2, horizon=len(table))
    runs = transcript.sample_per_round(table, 60_000, np.random.default_rng(11))
    keys = list(law)
    code = {k: i for i, k in enumerate(keys)}
    index = np.array([code.get(tuple(row), -1) for row in runs.tolist()])
    assert (index >= 0).all(), "the sampler played a sequence the exact law gives probability 0"
    counts = np.bincount(index, minlength=len(keys))
    expected = np.array([law[k] for k in keys]) * len(runs)
    big = expected >= 5
    observed, wanted = counts[big], expected[big]
    if not big.all():  # the small cells pooled, and the pool into the smallest large cell if it is small too
        if expected[~big].sum() >= 5:
            observed, wanted = np.append(observed, counts[~big].sum()), np.append(wanted, expected[~big].sum())
        else:
            smallest = np.argmin(wanted)
            observed[smallest] += counts[~big].sum()
            wanted[smallest] += expected[~big].sum()
    if len(observed) > 1:
        assert stats.chisquare(observed, wanted * observed.sum() / wanted.sum()).pvalue > ALPHA


def _laplace_sf(x: np.ndarray, eps: float) -> np.ndarray:
    return stats.laplace.sf(x, scale=1 / eps)


def test_exact_law_at_T4_equals_direct_integration():
    """T = 4: rounds 1, 2 play arms 0, 1; rounds 3 and 4 compare z = v0 - v1 with thresholds theta_3,
    theta_4 (no array fills in between). Each outcome's probability by scipy's quad over v1 of Laplace
    tails, with the thresholds from eq. 4 written out here."""
    eps, table = 1.0, np.array([[0.3, 0.9], [0.2, 0.6], [0.5, 0.1], [0.8, 0.4]])
    theta = {t: _bonus(t, 1, eps) - _bonus(t, 1, eps) + table[1, 1] - table[0, 0] for t in (3, 4)}
    pdf = stats.laplace(scale=1 / eps).pdf

    def prob(lo: float, hi: float) -> float:  # P(lo <= v0 - v1 < hi)
        f = lambda v1: pdf(v1) * (_laplace_sf(v1 + lo, eps) - _laplace_sf(v1 + hi, eps))  # noqa: E731
        return integrate.quad(f, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12, points=None)[0]

    top, bottom = max(theta.values()), min(theta.values())
    # arm 0 at t iff z >= theta_t: the index difference is monotone, so arm 0 then arm 1 cannot follow
    # each other here except as the thresholds allow
    direct = {(0, 1, 0, 0): prob(top, np.inf), (0, 1, 1, 1): prob(-np.inf, bottom)}
    if theta[3] < theta[4]:
        direct[(0, 1, 0, 1)] = prob(theta[3], theta[4])
    else:
        direct[(0, 1, 1, 0)] = prob(theta[4], theta[3])
    law = _law(AnytimeLazyUCB(eps), table)
    direct = {k: v for k, v in direct.items() if v > 0}
    assert law.keys() == direct.keys()
    for key, p in direct.items():
        assert math.isclose(law[key], p, rel_tol=1e-9), (key, law[key], p)


def test_exact_law_across_an_array_release_equals_direct_integration():
    """T = 6, arm 0 paying 1 and arm 1 nothing (then mirrored): on the path 0, 1, 0, 0, 0, 0 arm 0's array 1 fills at
    round 4 (its third pull) and rounds 5, 6 compare v0'/2 - v1 with the new noise v0' (a transfer).
    Its probability is the integral over v1 of P(v0 >= v1 + max theta_3,4) P(v0' >= 2 (v1 + max
    theta_5,6)), computed here by scipy's quad."""
    eps, table = 1.0, np.tile([1.0, 0.0], (6, 1))
    first = max(_bonus(t, 1, eps) - _bonus(t, 1, eps) + 0.0 - 1.0 for t in (3, 4))
    second = max(_bonus(t, 1, eps) - _bonus(t, 2, eps) + 0.0 - 2.0 / 2 for t in (5, 6))
    pdf = stats.laplace(scale=1 / eps).pdf
    f = lambda v1: pdf(v1) * _laplace_sf(v1 + first, eps) * _laplace_sf(2 * (v1 + second), eps)  # noqa: E731
    direct = integrate.quad(f, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12)[0]
    law = _law(AnytimeLazyUCB(eps), table)
    assert math.isclose(law[(0, 1, 0, 0, 0, 0)], direct, rel_tol=1e-9)
    # mirrored: arm 1 pays 1; on 0, 1, 1, 1, 1, 1 arm 1's array 1 fills at round 4, and the comparisons
    # are v0 - v1 < min theta_3,4, then v0 - v1'/2 < min theta_5,6: the integral over v0
    table = np.tile([0.0, 1.0], (6, 1))
    first = 1.0  # theta_3 = theta_4 = S_1 - S_0 (equal sizes, equal bonuses)
    second = min(_bonus(t, 2, eps) - _bonus(t, 1, eps) + 2.0 / 2 - 0.0 for t in (5, 6))
    f = lambda v0: pdf(v0) * _laplace_sf(v0 - first, eps) * _laplace_sf(2 * (v0 - second), eps)  # noqa: E731
    direct = integrate.quad(f, -np.inf, np.inf, epsabs=1e-14, epsrel=1e-12)[0]
    law = _law(AnytimeLazyUCB(eps), table)
    assert math.isclose(law[(0, 1, 1, 1, 1, 1)], direct, rel_tol=1e-9)


def test_stated_error_covers_the_rounding_of_a_low_precision_run(monkeypatch):
    """The error estimate (two precisions) must cover the true error: at 8 digits (checked at 16), the
    stated log_error must exceed the distance to a 40-digit reference, which it does only through the
    two-precision difference (the float64 rounding term alone is about 1e-14)."""
    policy, table = AnytimeLazyUCB(1.0), np.random.default_rng(5).uniform(size=(8, 2))
    reference = policy.decision_distribution(table, range(1, 9))
    monkeypatch.setattr(lazy_law, "DIGITS", 8)
    monkeypatch.setattr(lazy_law, "CHECK_DIGITS", 8)
    rough = policy.decision_distribution(table, range(1, 9))
    assert np.array_equal(rough.outcomes, reference.outcomes)
    actual = float(np.abs(rough.log_probs - reference.log_probs).max())
    assert actual > 1e-12  # 8 digits do show
    assert rough.log_error >= actual


def test_rounds_are_a_marginal_of_the_whole_sequence():
    policy, table = AnytimeLazyUCB(1.0), np.random.default_rng(6).uniform(size=(9, 2))
    whole = _law(policy, table)
    part = policy.decision_distribution(table, [3, 7])
    for row, p in zip(part.outcomes, part.probs, strict=True):
        assert math.isclose(p, sum(q for k, q in whole.items() if (k[2], k[6]) == tuple(row)), rel_tol=1e-12)


def test_exact_law_is_refused_beyond_its_size_limit_but_sampling_is_not():
    policy = AnytimeLazyUCB(1.0)
    with pytest.raises(ValueError, match="two arms and at most"):
        policy.decision_distribution(np.zeros((15, 2)), [3])
    with pytest.raises(ValueError, match="two arms and at most"):
        policy.decision_distribution(np.zeros((6, 3)), [3])
    transcript = DecisionTranscript(policy, arms=2, horizon=500)  # refused only when the law is asked for
    assert isinstance(transcript, ExactDecisionTranscript)
    assert transcript.sample(np.zeros((500, 2)), 4, np.random.default_rng(0)).shape == (4, 500)


def test_half_the_noise_scale_is_refuted_with_certainty():
    """Lap(1/(2 eps)) instead of Lap(1/eps) on the arrays' sums: the exact audit refutes 1-DP (loss near
    2, its enclosure above 1.9) on the table pair that keeps the printed noise verified (below 1)."""
    table = np.zeros((6, 2))
    changed = table.copy()
    changed[0] = 1.0
    for scale, verdict in (("1/eps", "verified"), ("1/(2eps)", "refuted")):
        transcript = DecisionTranscript(AnytimeLazyUCB(1.0, noise_scale=scale), arms=2, horizon=6)
        result = audit_privacy(transcript, PureDP(1.0), pairs=[(table, changed)], auditor="exact", seed=0)
        assert result.verdict == verdict
        lo, hi = result.statistic.interval
        assert (hi < 1.0) if verdict == "verified" else (lo > 1.9)


def test_noise_scale_option_is_checked():
    with pytest.raises(ValueError, match="noise_scale"):
        AnytimeLazyUCB(1.0, noise_scale="2/eps")
    assert "Lap(1/(2eps))" in AnytimeLazyUCB(1.0, noise_scale="1/(2eps)").name


def test_suite_keeps_black_box_entries_statistical_beside_the_exact_ones():
    entries = {e.id: e for e in private_online.suite.entries}
    for point in ("thm2@algorithm,eps1,K2,T10", "thm2@algorithm,literal-init,eps1,K2,T10"):
        assert entries[f"private-online/{point}"].plan.statistical
    for point in ("thm2@algorithm,exact,eps1,K2,T10", "thm2@algorithm,exact,literal-init,eps1,K2,T10"):
        assert not entries[f"private-online/{point}"].plan.statistical
    assert entries["private-online/thm2@algorithm,exact,literal-init,eps1,K2,T10"].expected == "refuted"


def test_piecewise_algebra_integrates_a_laplace_difference():
    """The algebra alone: the density of v0 - v1 (two Lap(1)) integrated by one transfer is 1, and its CDF
    at 0.7 matches the closed form 1 - (2 + 0.7) e^{-0.7} / 4."""
    with mpmath.workdps(30):
        f = lazy_law.Piecewise.laplace(lazy_law.Fraction(1))
        h = lazy_law.transfer(f, lazy_law.Piecewise.laplace(lazy_law.Fraction(1)), lazy_law.Fraction(1),
                              mpmath.mpf(0), mpmath.inf)  # v0 in (v1, inf): P(v0 - v1 > 0) = 1/2
        assert abs(lazy_law.total(h) - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -25
        h = lazy_law.transfer(f, lazy_law.Piecewise.laplace(lazy_law.Fraction(1)), lazy_law.Fraction(1),
                              -mpmath.inf, mpmath.mpf("0.7"))  # P(v0 - v1 < 0.7)
        exact = 1 - (2 + mpmath.mpf("0.7")) * mpmath.exp(-mpmath.mpf("0.7")) / 4
        assert abs(lazy_law.total(h) - exact) < mpmath.mpf(10) ** -25


def test_tiny_horizons_have_their_closed_forms():
    """T = 1, 2: the forced pulls (arm 0, then arm 1), probability 1. T = 3: arm 0 iff v0 - v1 >= S_1 - S_0,
    and v0 - v1 (two Lap(1)) has P(D < -d) = (2 + d) e^{-d} / 4 for d >= 0."""
    policy = AnytimeLazyUCB(1.0)
    for table, played in ((np.array([[0.5, 0.5]]), [0]), (np.array([[0.5, 0.5], [0.1, 0.2]]), [0, 1])):
        law = policy.decision_distribution(table, range(1, len(table) + 1))
        assert law.outcomes.tolist() == [played] and law.probs.tolist() == [1.0]
    law = _law(policy, np.array([[0.5, 0.5], [0.1, 0.2], [0.1, 0.2]]))
    assert math.isclose(law[(0, 1, 1)], (2 + 0.3) * math.exp(-0.3) / 4, rel_tol=1e-12)
