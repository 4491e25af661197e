"""Canary audits from scores (dpaudit.audit_canaries): the one-run bound of Steinke, Nasr and Jagielski against its
formula and the published ceilings, and both estimators' validity at the exact boundary of their null on 1,000
seeded trials per case (each test's false-failure rate is stated beside it), with the safeguards whose removal would
break it: the many-run estimator's split between selection and confirmation, its alpha / 2 per side, the one-run
estimator's Bonferroni share per guess set and its delta term; and their power on a planted violation."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.auditors import canary, canary_limits, one_run
from dpaudit.core.results import Statistic

# -- the one-run bound ------------------------------------------------------------------------------------------------


def test_the_one_run_ceilings_are_the_published_ones():
    # Steinke et al.'s ceiling with every guess right at delta 1e-5, alpha 0.05: 5.78 at m = r = 1000, 7.28 at 5000
    assert one_run.one_run_ceiling(1000, 1000, 1e-5, 0.05) == pytest.approx(5.78, abs=0.005)
    assert one_run.one_run_ceiling(5000, 5000, 1e-5, 0.05) == pytest.approx(7.28, abs=0.005)
    assert one_run.one_run_ceiling(1000, 1000, 1e-5, 0.05) < one_run.one_run_ceiling(1000, 1000, 0.0, 0.05)


@pytest.mark.parametrize("m, r, v, eps, delta", [(20, 12, 9, 0.7, 0.01), (50, 50, 40, 1.5, 1e-3), (8, 3, 3, 0.0, 0.1),
                                                 (100, 60, 0, 1.0, 0.01), (30, 10, 10, 4.0, 0.0)])
def test_the_one_run_p_value_is_its_formula(m, r, v, eps, delta):
    q = math.exp(eps) / (1 + math.exp(eps))
    tail = sum(math.comb(r, j) * q**j * (1 - q) ** (r - j) for j in range(v, r + 1))
    term = max((sum(math.comb(r, j) * q**j * (1 - q) ** (r - j) for j in range(v - i, v)) / i
                for i in range(1, v + 1)), default=0.0)
    expected = 1.0 if v == 0 else min(tail + 2 * m * delta * term, 1.0)
    assert one_run.one_run_p_value(m, r, v, eps, delta) == pytest.approx(expected, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("m, r, v, delta, alpha", [(1000, 200, 180, 1e-5, 0.05), (200, 100, 70, 1e-3, 0.1),
                                                   (50, 50, 50, 0.0, 0.05)])
def test_the_one_run_epsilon_is_the_root_from_below(m, r, v, delta, alpha):
    eps = one_run.one_run_epsilon(m, r, v, delta, alpha)
    assert eps > 0 and one_run.one_run_p_value(m, r, v, eps, delta) <= alpha
    assert one_run.one_run_p_value(m, r, v, eps + 1e-9, delta) > alpha
    assert one_run.one_run_epsilon(m, r, r // 2, delta, alpha) == 0.0  # half right: nothing rejected


def test_guesses_count_the_right_ones_and_bad_guesses_are_refused():
    scores = np.array([0.1, 3.0, 2.0, -1.0, 0.5])
    members = np.array([False, True, False, False, True])
    assert one_run.guesses_right(scores, members, 2, 2) == (4, 3)  # in: 3.0 (right), 2.0 (wrong); out: -1, 0.1
    with pytest.raises(ValueError, match="exceeds"):
        one_run.guesses_right(scores, members, 3, 3)
    with pytest.raises(ValueError, match="guesses must be"):
        canary.one_run_bound([1.0, 2.0], [0.0], 1e-5, 0.05, np.random.default_rng(0), guesses=[(2, 2)])


def test_the_one_run_p_value_refuses_impossible_counts_and_is_one_when_delta_allows_anything():
    """(eps, 1)-DP constrains nothing: the p-value is 1 whatever the guesses (its delta term alone reaches 1, since
    P[Bin < v] / v times 2m is at least 2 P[Bin < v] for v <= m), never above it."""
    for m, r, v, eps in [(20, 12, 9, 0.7), (50, 50, 50, 3.0), (8, 3, 1, 0.0)]:
        assert one_run.one_run_p_value(m, r, v, eps, 1.0) == 1.0
        assert one_run.one_run_p_value(m, r, v, eps, 0.5) <= 1.0
    with pytest.raises(ValueError) as caught:
        one_run.one_run_p_value(5, 6, 2, 1.0, 0.0)
    assert str(caught.value) == "one_run_p_value: need 0 <= v <= r <= m, got m=5, r=6, v=2"


def test_the_default_guesses_are_geometric_from_a_hundredth_to_half_of_the_canaries():
    """k+ = k- = k at the integer parts of 8 geometric steps from max(1, m // 100) to m // 2 (the guess_grid
    docstring), duplicates dropped: both ends exact, the steps from the closed form (10 * 50^(j / 7) at m = 1000),
    one k at a time for few canaries; fewer than 2 canaries refused."""
    grid = one_run.guess_grid(1000)
    assert grid == [(k, k) for k in (10, 17, 30, 53, 93, 163, 285, 500)]
    assert [k for k, _ in grid] == [int(10 * 50 ** (j / 7) + 1e-9) for j in range(8)]
    for m in (1999, 1001):  # neither a multiple of 100 nor even: the ends are m // 100 and m // 2, not m / 100, m / 2
        a, b = m // 100, m // 2
        assert one_run.guess_grid(m) == [(k, k) for k in sorted({int(a * (b / a) ** (j / 7) + 1e-9) for j in range(8)})]
    small = one_run.guess_grid(100)  # from 1 to 50: 1, 1.75, 3.06, 5.36, 9.38, 16.4, 28.7, 50
    assert small == [(k, k) for k in (1, 3, 5, 9, 16, 28, 50)]
    assert one_run.guess_grid(20) == [(k, k) for k in (1, 2, 3, 5, 7, 10)]  # 1, 1.39, 1.93: one k each
    assert one_run.guess_grid(2) == [(1, 1)]
    assert len(one_run.guess_grid(10**6, points=5)) == 5
    with pytest.raises(ValueError) as caught:
        one_run.guess_grid(1)
    assert str(caught.value) == "guess_grid: need at least 2 canaries, got 1"


def test_tied_scores_are_guessed_in_the_canaries_order():
    """Forty canaries scored 0, 1, 0, 1, ...: "in" goes to the last k+ of those scored 1 and "out" to the first k- of
    those scored 0 (the stable order the guesses_right docstring promises, which does not depend on the
    memberships; numpy's default sort orders these ties otherwise)."""
    scores = (np.arange(40) % 2).astype(float)
    members = np.zeros(40, dtype=bool)
    members[[35, 37, 39]] = True  # the last three scored 1 are in, the first five scored 0 out
    assert one_run.guesses_right(scores, members, 3, 5) == (8, 8)
    members = ~members
    assert one_run.guesses_right(scores, members, 3, 5) == (8, 0)
    with pytest.raises(ValueError) as caught:
        one_run.guesses_right(scores, members, 30, 12)
    assert str(caught.value) == "guesses: k+ + k- = 42 exceeds the 40 canaries"


def test_the_best_guess_is_the_first_of_the_largest_bounds_with_its_counts():
    """best_one_run_epsilon reports the bound of each guess set at alpha / len(grid), the first set attaining the
    largest (so a grid of bounds all 0 reports its first set, with that set's r and v), and the largest ceiling of
    the grid, 0 where even every guess right certifies nothing (4 canaries)."""
    rng = np.random.default_rng(0)
    scores, members = rng.normal(size=4), np.array([True, False, True, False])
    grid = [(1, 1), (2, 2)]
    best = one_run.best_one_run_epsilon(scores, members, 1e-5, 0.05, grid)
    r, v = one_run.guesses_right(scores, members, 1, 1)
    assert best == {"epsilon": 0.0, "k_in": 1, "k_out": 1, "r": r, "v": v, "ceiling": 0.0, "level": 0.025}
    # 1,000 canaries whose scores give them away: every k certifies, the largest k most
    members = np.arange(1000) % 2 == 0
    scores = members + 0.01 * np.arange(1000) / 1000
    grid = one_run.guess_grid(1000)
    best = one_run.best_one_run_epsilon(scores, members, 1e-5, 0.05, grid)
    level = 0.05 / len(grid)
    bounds = [one_run.one_run_epsilon(1000, *one_run.guesses_right(scores, members, a, b), 1e-5, level)
              for a, b in grid]
    j = int(np.argmax(bounds))
    assert best["epsilon"] == bounds[j] > 0 and (best["k_in"], best["k_out"]) == grid[j]
    assert (best["r"], best["v"]) == one_run.guesses_right(scores, members, *grid[j])
    assert best["ceiling"] == max(one_run.one_run_ceiling(1000, a + b, 1e-5, level) for a, b in grid)


# -- validity at the boundary of the null -----------------------------------------------------------------------------

TRIALS = 1000


def _violations_allowed(alpha: float, trials: int = TRIALS) -> int:
    """The largest count of bounds above the truth that a valid estimator exceeds with probability below 1e-6."""
    return int(stats.binom.isf(1e-6, trials, alpha))


def _rr_scores(rng, m, eps, delta=0.0):
    """One run's canaries at the exact boundary of (eps, delta)-DP: each in with probability 1/2; its score is its
    membership with probability delta, else randomized response (right with probability e^eps / (1 + e^eps)), plus a
    continuous jitter that only breaks ties."""
    members = rng.random(m) < 0.5
    reveal = rng.random(m) < delta
    right = rng.random(m) < 1 / (1 + math.exp(-eps))
    bit = np.where(reveal, members, np.where(right, members, ~members))
    scores = np.where(reveal, 10.0 * np.where(members, 1, -1), bit.astype(float)) + 1e-3 * rng.random(m)
    return scores[members], scores[~members]


@pytest.mark.parametrize("eps, delta, guesses", [(1.0, 0.0, [(25, 25)]), (1.0, 0.0, None), (0.3, 0.05, None)])
def test_the_one_run_bound_holds_at_the_boundary(eps, delta, guesses):
    """On 1,000 seeded runs of 200 canaries at the exact boundary of (eps, delta)-DP, the bound at alpha 0.1 exceeds
    eps in at most the count a valid bound exceeds with probability 1e-6 (false-failure rate 1e-6). The grid of eight
    guess sets tests each at alpha / 8; the delta case puts revealed canaries at the top of the scores."""
    rng = np.random.default_rng(11)
    above = 0
    for _ in range(TRIALS):
        x_in, x_out = _rr_scores(rng, 200, eps, delta)
        bound = canary.one_run_bound(x_in, x_out, delta, 0.1, rng, guesses=guesses)["epsilon"]
        above += bound > eps
    assert above <= _violations_allowed(0.1)


def test_the_one_run_safeguards_are_needed():
    """Without the Bonferroni share (every guess set at alpha) or without the delta term (delta taken as 0), the same
    boundary cases give more bounds above the truth than a valid estimator could (so the validity tests above would
    fail if either were removed)."""
    rng = np.random.default_rng(12)
    grid_above = delta_above = 0
    for _ in range(TRIALS):
        x_in, x_out = _rr_scores(rng, 200, 1.0)
        grid = one_run.guess_grid(200)
        values = np.concatenate([x_in, x_out])
        members = np.arange(len(values)) < len(x_in)
        best = max(one_run.one_run_epsilon(200, *one_run.guesses_right(values, members, a, b), 0.0, 0.1)
                   for a, b in grid)
        grid_above += best > 1.0
        x_in, x_out = _rr_scores(rng, 200, 0.3, 0.05)
        delta_above += canary.one_run_bound(x_in, x_out, 0.0, 0.1, rng)["epsilon"] > 0.3
    assert grid_above > _violations_allowed(0.1) and delta_above > _violations_allowed(0.1)


def _boundary_runs(rng, n, eps, delta=0.0):
    """n runs per side of a score whose every threshold below 1 is an event at exactly (eps, delta): the in-runs'
    density is a = e^eps / (1 + e^eps) (1 - delta) on [0, 1) and b = (1 - delta) / (1 + e^eps) on [1, 2), plus an atom
    of mass delta at -1; the out-runs' the mirror (b, then a), without the atom."""
    a, b = math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))

    def side(low_mass, atom):
        u = rng.random(n)
        atomic = rng.random(n) < atom
        low = rng.random(n) < low_mass / (low_mass + (a + b - low_mass))
        return np.where(atomic, -1.0, np.where(low, u, 1.0 + u))

    return side(a, delta), side(b, 0.0)


@pytest.mark.parametrize("eps, delta", [(1.0, 0.0), (0.5, 0.05)])
def test_the_many_run_bound_holds_at_the_boundary(eps, delta):
    """On 1,000 seeded audits of 300 runs per side at the exact boundary (every threshold below 1 an event at exactly
    (eps, delta) in one order), the bound at alpha 0.1 exceeds eps in at most the count a valid bound exceeds with
    probability 1e-6 (false-failure rate 1e-6)."""
    rng = np.random.default_rng(13)
    above = sum(canary.multi_run_epsilon(*_boundary_runs(rng, 300, eps, delta), delta, 0.1, rng)["epsilon"] > eps
                for _ in range(TRIALS))
    assert above <= _violations_allowed(0.1)


def test_the_many_run_event_is_chosen_without_the_confirmation_runs_and_bounded_at_half_alpha_per_side():
    """The safeguards the validity test above cannot see (at these boundaries the estimator exceeds the truth in under
    2% of audits at alpha 10%, and selecting on the confirmation runs too, or spending alpha on each side, still stays
    under alpha there): the event is the same whatever the confirmation runs hold, and the bound is the Clopper-Pearson
    bounds' at alpha / 2 on the confirmation counts."""
    rng = np.random.default_rng(15)
    x_in, x_out = _boundary_runs(rng, 300, 1.0)
    first = canary.multi_run_epsilon(x_in, x_out, 0.0, 0.1, np.random.default_rng(1))
    # the same split (same seed): every confirmation run moved far away changes the counts, not the event
    moved_in, moved_out = x_in.copy(), x_out.copy()
    perm_rng = np.random.default_rng(1)  # the estimator's permutations: of the in-runs, then of the out-runs
    order_in, order_out = perm_rng.permutation(len(x_in)), perm_rng.permutation(len(x_out))
    moved_in[order_in[first["selection_runs"]["in"]:]] += 100.0
    moved_out[order_out[first["selection_runs"]["out"]:]] -= 100.0
    second = canary.multi_run_epsilon(moved_in, moved_out, 0.0, 0.1, np.random.default_rng(1))
    assert (second["side"], second["first"], second["threshold"]) == (first["side"], first["first"], first["threshold"])
    assert second["counts"] != first["counts"]
    # the bound from the confirmation counts at alpha / 2 per side
    k, n = first["counts"], first["runs"]
    one, other = first["first"], "out" if first["first"] == "in" else "in"
    assert first["p_lower"] == pytest.approx(float(stats.beta.ppf(0.05, k[one], n[one] - k[one] + 1)), rel=1e-9)
    assert first["q_upper"] == pytest.approx(float(stats.beta.isf(0.05, k[other] + 1, n[other] - k[other])), rel=1e-9)
    assert first["epsilon"] == pytest.approx(max(0.0, math.log(first["p_lower"] / first["q_upper"])), rel=1e-12)
    assert first["ceiling"] == pytest.approx(math.log(0.05 ** (1 / n[one]) / (1 - 0.05 ** (1 / n[other]))), rel=1e-9)


# -- the audit and its power ------------------------------------------------------------------------------------------


def _gaussian_scores(rng, n, mu):
    return rng.normal(mu, 1.0, n), rng.normal(0.0, 1.0, n)


def test_a_planted_violation_is_refuted_and_a_true_claim_is_not():
    """Scores of a mu = 3 Gaussian mechanism (true eps about 15.2 at delta 1e-5) refute a claimed eps of 2 in every
    one of 20 seeds from 500 runs per side; the truth (eps 16) is never refuted; the record states the bound, the
    event and the ceiling."""
    claim, truth = dpaudit.ApproxDP(2.0, 1e-5), dpaudit.ApproxDP(16.0, 1e-5)
    for seed in range(20):
        x_in, x_out = _gaussian_scores(np.random.default_rng(seed), 500, 3.0)
        res = dpaudit.audit_canaries(x_in, x_out, claim, seed=seed)
        assert res.verdict == "refuted" and 2.0 < res.epsilon_lower <= res.parameters["ceiling"]
        assert dpaudit.audit_canaries(x_in, x_out, truth, seed=seed).verdict == "not-refuted"
    assert res.witness["side"] in (">=", "<") and "ceiling" in res.notes[0] and res.samples == 500


def test_one_run_audits_state_their_ceiling_and_refuse_bad_input():
    rng = np.random.default_rng(3)
    members = rng.random(1000) < 0.5
    scores = rng.normal(0, 1, 1000) + 6.0 * members
    res = dpaudit.audit_canaries(scores[members], scores[~members], dpaudit.ApproxDP(8.0, 1e-5), runs="one", seed=1)
    assert res.verdict == "not-refuted" and res.parameters["ceiling"] < 8.0 and "could not have refuted" in res.notes[1]
    assert 3.0 < res.epsilon_lower <= res.parameters["ceiling"]
    with pytest.raises(ValueError, match="runs must be"):
        dpaudit.audit_canaries([1.0, 2.0], [0.0, 1.0], dpaudit.PureDP(1.0), runs="two")
    with pytest.raises(ValueError, match="finite 1-D"):
        dpaudit.audit_canaries([1.0, np.nan], [0.0, 1.0], dpaudit.PureDP(1.0))
    with pytest.raises(ValueError, match="selection is for"):
        dpaudit.audit_canaries([1.0, 2.0], [0.0, 1.0], dpaudit.PureDP(1.0), runs="one", selection=0.3)
    with pytest.raises(dpaudit.InvalidClaim):
        dpaudit.audit_canaries([1.0, 2.0], [0.0, 1.0], dpaudit.SubGaussian(1.0))


def test_the_many_run_bound_subtracts_delta():
    x_in, x_out = _boundary_runs(np.random.default_rng(16), 300, 1.0, 0.05)
    res = canary.multi_run_epsilon(x_in, x_out, 0.05, 0.1, np.random.default_rng(1))
    assert res["epsilon"] == pytest.approx(max(0.0, math.log((res["p_lower"] - 0.05) / res["q_upper"])), rel=1e-12)
    assert 0 < res["epsilon"] < math.log(res["p_lower"] / res["q_upper"])


def test_one_run_ties_are_broken_at_random_not_by_membership():
    """Binary scores (every canary tied with half the others) of randomized response at eps 3: the canaries are put in
    random order before the guesses, so the guesses among tied scores are as good as chance allows and the bound is
    well above 0 in every seed (broken by the arrays' order, every tie would go against the auditor)."""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        members = rng.random(1000) < 0.5
        bit = np.where(rng.random(1000) < 1 / (1 + math.exp(-3.0)), members, ~members).astype(float)
        bound = canary.one_run_bound(bit[members], bit[~members], 0.0, 0.05, rng)["epsilon"]
        assert bound > 1.5


def test_the_readme_example_prints_what_its_comment_says():
    """The README's canary block, run as printed: its print shows what the comment beside it says."""
    from readme_blocks import printed_and_commented

    printed, commented = printed_and_commented("test_canary_audits.py")
    assert printed == commented


def test_the_command_line_audits_two_files_of_scores(tmp_path, capsys):
    """``dpaudit canary``: .npy and text files, exit 1 on a refutation and 0 otherwise (with the ceiling's note and
    JSON), 2 on a missing file, text that is not numbers, or a claim it does not decide."""
    from dpaudit.cli import main

    rng = np.random.default_rng(0)
    np.save(tmp_path / "in.npy", rng.normal(3.0, 1.0, 500))
    (tmp_path / "out.txt").write_text("# scores\n" + "\n".join(f"{v:.17g}" for v in rng.normal(0.0, 1.0, 500)))
    files = ["--in", str(tmp_path / "in.npy"), "--out", str(tmp_path / "out.txt")]
    assert main(["canary", *files, "--claim", "approx-dp eps=2 delta=1e-5", "--seed", "0"]) == 1
    out = capsys.readouterr().out
    assert "refuted, epsilon >=" in out and "ceiling" in out
    assert main(["canary", *files, "--claim", "approx-dp eps=9 delta=1e-5", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["verdict"] == "not-refuted" and record["parameters"]["ceiling"] < 9
    (tmp_path / "bad.txt").write_text("1.0, two, 3.0")
    for argv in (["--in", str(tmp_path / "none.npy"), "--out", str(tmp_path / "out.txt")],
                 ["--in", str(tmp_path / "bad.txt"), "--out", str(tmp_path / "out.txt")]):
        assert main(["canary", *argv, "--claim", "pure-dp eps=1"]) == 2
    assert main(["canary", *files, "--claim", "sub-gaussian sigma=1"]) == 2
    assert "error" in capsys.readouterr().err
    assert main(["canary", *files, "--claim", "approx-dp eps=2 delta=1e-5", "--sequential"]) == 1
    assert "refuted by the bets after" in capsys.readouterr().out


@pytest.mark.parametrize("n_first, n_second, q, delta, eps",
                         [(800, 800, 0.01, 1e-5, 1.0), (300, 2000, 0.05, 0.01, 0.5)])
def test_the_stated_many_run_power_is_honest(n_first, n_second, q, delta, eps):
    """An event at the stated epsilon' (first rate e^eps' q + delta, second q) is refuted in at least 90% of 20,000
    draws of the two counts (the rate is exact, so this fails only through the draws: 2.5 s.e. below 0.9 is allowed,
    about 0.6%); 0.1 below epsilon' in under 90%, so the figure is the smallest."""
    from dpaudit.stats import binomial_lower, binomial_upper

    stated = canary.multi_run_power(n_first, n_second, q, delta, 0.05, eps)
    rng = np.random.default_rng(17)
    for value, at_least in ((stated, True), (stated - 0.1, False)):
        p = q * math.exp(value) + delta
        k1, k2 = rng.binomial(n_first, p, 20000), rng.binomial(n_second, q, 20000)
        with np.errstate(invalid="ignore", divide="ignore"):
            bounds = np.log((binomial_lower(k1, n_first, 0.025) - delta) / binomial_upper(k2, n_second, 0.025))
        rate = np.mean(bounds > eps)
        assert (rate >= 0.9 - 2.5 * 0.0021) if at_least else (rate < 0.9), (value, rate)


def test_the_stated_one_run_power_is_honest_and_in_the_record():
    """Guesses right with the accuracy of eps'-randomized response at the stated eps' refute the claim in at least 90%
    of 20,000 draws of the count, 0.01 below it in fewer; a "not refuted" record states it (inf above the ceiling), a
    refutation does not."""
    stated = canary.one_run_power(1000, 200, 1e-5, 0.05 / 8, 1.0)
    rng = np.random.default_rng(18)
    for value, at_least in ((stated, True), (stated - 0.01, False)):  # the smallest: 0.01 is under half a vote
        votes = rng.binomial(200, 1 / (1 + math.exp(-value)), 20000)
        bounds = np.array([one_run.one_run_epsilon(1000, 200, int(v), 1e-5, 0.05 / 8) for v in votes])
        rate = np.mean(bounds > 1.0)
        assert (rate >= 0.9 - 2.5 * 0.0021) if at_least else (rate < 0.9), (value, rate)
    rng = np.random.default_rng(19)
    x_in, x_out = rng.normal(1.0, 1.0, 500), rng.normal(0.0, 1.0, 500)
    held = dpaudit.audit_canaries(x_in, x_out, dpaudit.ApproxDP(2.0, 1e-5), seed=1)
    assert held.verdict == "not-refuted" and held.power["quantity"] == "epsilon" and held.power["value"] > 2.0
    assert "would refute epsilon >=" in held.summary()
    assert dpaudit.audit_canaries(x_in, x_out, dpaudit.ApproxDP(0.1, 1e-5), seed=1).power is None
    members = rng.random(1000) < 0.5
    scores = rng.normal(0, 1, 1000) + 2.0 * members
    above = dpaudit.audit_canaries(scores[members], scores[~members], dpaudit.ApproxDP(8.0, 1e-5), runs="one", seed=0)
    assert above.power["value"] == math.inf


# -- the estimators' parts on fixed data ------------------------------------------------------------------------------


def _clopper_pearson(k, n, alpha):
    """One-sided Clopper-Pearson bounds at ``alpha`` each, from scipy's beta law: (lower, upper)."""
    k = np.asarray(k)
    lower = np.where(k == 0, 0.0, stats.beta.ppf(alpha, np.maximum(k, 1), n - k + 1))
    upper = np.where(k == n, 1.0, stats.beta.ppf(1 - alpha, k + 1, np.maximum(n - k, 1)))
    return lower, upper


@pytest.mark.parametrize("n1, n2, q, delta, alpha, eps", [(200, 150, 0.05, 1e-5, 0.05, 1.0),
                                                          (80, 120, 0.2, 0.0, 0.1, 0.3),
                                                          (100, 60, 0.02, 1e-3, 0.05, 1.0),
                                                          (40, 5, 0.1, 0.0, 0.1, 0.1),
                                                          (50, 2, 0.1, 0.0, 0.2, 0.0)])
def test_the_many_run_power_is_where_the_refutation_probability_reaches_0_9(n1, n2, q, delta, alpha, eps):
    """multi_run_power against the refutation probability summed over every pair of counts (Clopper-Pearson bounds
    from scipy's beta law, alpha / 2 per side): at p = q e^eps' + delta it is 0.9, a little below p it is less; also
    with five runs on the second side, and with two (where a single second-side run in the event can still be
    refuted: the sum needs every second-side count, up to all of them)."""
    value = canary.multi_run_power(n1, n2, q, delta, alpha, eps)
    assert eps < value < math.inf

    def chance(p):
        weights, bound = _brute_force_bounds(p, q, n1, n2, delta, alpha)
        return float(weights[bound > eps].sum())

    p = q * math.exp(value) + delta
    assert chance(p) == pytest.approx(0.9, abs=1e-7) and chance(p - 1e-4) < 0.9


def test_the_many_run_power_is_infinite_where_nothing_refutes_or_the_second_rate_is_0():
    assert canary.multi_run_power(10, 10, 0.3, 1e-5, 0.05, 1.0) == math.inf  # ten runs cannot certify 1 at 0.9
    assert canary.multi_run_power(100, 100, 0.0, 1e-5, 0.05, 1.0) == math.inf  # (p - delta) / 0 is infinite


@pytest.mark.parametrize("m, r, delta, alpha, eps", [(1000, 200, 1e-5, 0.05, 0.1), (1000, 500, 1e-5, 0.05, 0.0),
                                                     (400, 100, 1e-3, 0.1, 1.0)])
def test_the_one_run_power_is_where_randomized_response_refutes_with_probability_0_9(m, r, delta, alpha, eps):
    """one_run_power against its definition: the fewest right guesses that refute eps (scanning every count), and the
    accuracy e^eps' / (1 + e^eps') at which that many or more are right with probability 0.9."""
    from dpaudit.auditors.one_run import one_run_epsilon

    value = canary.one_run_power(m, r, delta, alpha, eps)
    votes = next(v for v in range(r + 1) if one_run_epsilon(m, r, v, delta, alpha) > eps)
    assert 0 < value < math.inf
    assert stats.binom.sf(votes - 1, r, 1 / (1 + math.exp(-value))) == pytest.approx(0.9, abs=1e-6)


def test_the_one_run_power_is_infinite_where_every_guess_right_does_not_refute():
    from dpaudit.auditors.one_run import one_run_epsilon

    assert canary.one_run_power(1000, 30, 1e-5, 0.05, 3.0) == math.inf
    ceiling = one_run_epsilon(1000, 30, 30, 1e-5, 0.05)
    assert canary.one_run_power(1000, 30, 1e-5, 0.05, ceiling) == math.inf  # all right gives exactly the claim
    assert canary.one_run_power(1000, 30, 1e-5, 0.05, ceiling - 1e-9) < math.inf


def test_the_anticipated_bound_is_clopper_pearson_at_the_selection_rates():
    rng = np.random.default_rng(40)
    first, second = rng.normal(1.0, 1.0, 90), rng.normal(0.0, 1.0, 70)
    taus = np.array([-0.5, 0.3, 1.2, 2.5])
    for side, some in ((">=", True), ("<", False)):  # the first side's scores are higher
        p, q = canary.selection_rates(first, second, taus, side)
        lower, _ = _clopper_pearson(p * 500, 500, 0.025)
        _, upper = _clopper_pearson(q * 400, 400, 0.025)
        expected = canary.epsilon_from_rates(lower, upper, 1e-4)
        got = canary.anticipated_bound(first, second, taus, side, 500, 400, 1e-4, 0.05)
        assert got == pytest.approx(expected, abs=1e-9) and (got > 0).any() == some


def test_the_one_run_guesses_are_checked_at_the_edges_of_their_range():
    """(k+, k-) pairs of integers, each at least 0, together 1 to m: (0, 1), (1, 0) and (m, 0) are taken; a negative
    one, a sum of 0 or above m, a float, and no pair at all are refused naming the guesses; bad scores are refused in
    one_run_bound's name."""
    rng = np.random.default_rng(41)
    x_in, x_out = rng.normal(1.0, 1.0, 12), rng.normal(0.0, 1.0, 8)
    for guesses in ([(0, 1)], [(1, 0)], [(20, 0)], [(np.int64(2), 3)]):
        found = canary.one_run_bound(x_in, x_out, 0.0, 0.05, np.random.default_rng(0), guesses)
        assert found["canaries"] == 20 and found["members"] == 12 and found["guesses_tried"] == 1
    for guesses in ([(-1, 2)], [(2, -1)], [(0, 0)], [(15, 6)], [(1.0, 1)], [(1, 1.0)], []):
        message = (f"one_run_bound: guesses must be (k+, k-) pairs of non-negative integers with 1 <= k+ + k- <= 20 "
                   f"(the canaries), got {guesses!r}")
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            canary.one_run_bound(x_in, x_out, 0.0, 0.05, np.random.default_rng(0), guesses)
    for owner, call in [("one_run_bound", canary.one_run_bound), ("multi_run_epsilon", canary.multi_run_epsilon)]:
        for x_in, x_out, name in [([np.nan, 1.0, 2.0], [0.0, 1.0], "in_scores"),
                                  ([1.0, 2.0], [[0.0, 1.0]], "out_scores")]:
            with pytest.raises(ValueError, match=f"^{owner}: {name} must be a finite 1-D array of at least"):
                call(x_in, x_out, 0.0, 0.05, np.random.default_rng(0))
    message = ("canary audits: runs must be 'many' (a score per run) or 'one' (a score per canary of one run), "
               "got 'both'")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        canary.canary_epsilon([1.0, 2.0], [0.0, 1.0], 0.0, 0.05, np.random.default_rng(0), "both")


def test_scores_rates_counts_and_thresholds_on_fixed_data():
    """The estimators' small parts, exactly: a side's scores checked in the caller's words; the bound from two rates
    (0 where p <= delta or the ratio is below 1); event counts with a score at the threshold counted on the upper side;
    selection rates with the second side's smoothed; the thresholds as upper quantiles taken at scores."""
    assert canary.scores("o", "x", [1, 2]).dtype == float
    for values, least, ending in [("abc", 1, None), ([[1.0, 2.0]], 1, "(1, 2)"),
                                  ([1.0, np.inf], 1, "(2,) with non-finite entries"), ([1.0], 2, "(1,)"),
                                  ([], 1, "(0,)")]:
        message = ("o: x must be an array of numbers, got str" if ending is None else
                   f"o: x must be a finite 1-D array of at least {least} scores, got shape {ending}")
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            canary.scores("o", "x", values, least)
    got = canary.epsilon_from_rates([0.5, 0.1, 1e-5, 0.5, 0.3], [0.1, 0.2, 1e-9, 0.5, 0.1], 1e-5)
    assert got == pytest.approx([math.log((0.5 - 1e-5) / 0.1), 0.0, 0.0, 0.0, math.log((0.3 - 1e-5) / 0.1)], abs=1e-15)
    first, second, taus = np.array([0.0, 1.0, 1.0, 2.0]), np.array([1.0, 3.0]), np.array([1.0, 2.5])
    assert [k.tolist() for k in canary._event_counts(first, second, taus, ">=")] == [[3, 0], [2, 1]]
    assert [k.tolist() for k in canary._event_counts(first, second, taus, "<")] == [[1, 4], [0, 1]]
    p, q = canary.selection_rates(first, second, taus, ">=")
    assert p.tolist() == [0.75, 0.0] and q.tolist() == [0.75, 0.5]
    assert canary.candidate_thresholds(np.arange(10.0), 4).tolist() == [3.0, 5.0, 7.0, 9.0]
    pooled = np.random.default_rng(42).normal(size=500)
    taus = canary.candidate_thresholds(pooled)
    assert len(taus) == canary.THRESHOLDS == 64 and np.isin(taus, pooled).all() and taus[-1] == pooled.max()


def _many_run_steps(x_in, x_out, delta, alpha, seed, cut, thresholds=canary.THRESHOLDS):
    """multi_run_epsilon's result computed again step by step from the same generator state (its docstring)."""
    twin = np.random.default_rng(seed)
    runs = {"in": twin.permutation(x_in), "out": twin.permutation(x_out)}
    select = {s: runs[s][:cut[s]] for s in runs}
    confirm = {s: runs[s][cut[s]:] for s in runs}
    taus = canary.candidate_thresholds(np.concatenate([select["in"], select["out"]]), thresholds)
    best = None
    for side, first in canary.ORIENTATIONS:
        second = "out" if first == "in" else "in"
        values = canary.anticipated_bound(select[first], select[second], taus, side, len(confirm[first]),
                                          len(confirm[second]), delta, alpha)
        if best is None or values.max() > best[0]:
            best = (values.max(), side, first, float(taus[int(np.argmax(values))]))
    _, side, first, tau = best
    second = "out" if first == "in" else "in"
    inside = {s: int(np.sum(confirm[s] >= tau if side == ">=" else confirm[s] < tau)) for s in runs}
    n = {s: len(confirm[s]) for s in runs}
    p_lower = float(_clopper_pearson(inside[first], n[first], alpha / 2)[0])
    q_upper = float(_clopper_pearson(inside[second], n[second], alpha / 2)[1])
    with np.errstate(divide="ignore"):
        bound = math.log((p_lower - delta) / q_upper) if p_lower > delta else 0.0
    ceiling = math.log(((alpha / 2) ** (1 / n[first]) - delta) / (1 - (alpha / 2) ** (1 / n[second])))
    return {"epsilon": max(bound, 0.0), "side": side, "threshold": tau, "first": first,
            "counts": {first: inside[first], second: inside[second]}, "runs": n, "selection_runs": cut,
            "p_lower": p_lower, "q_upper": q_upper, "ceiling": ceiling}


def _assert_same_result(got, expected):
    for key in ("side", "first", "threshold", "counts", "runs", "selection_runs"):
        assert got[key] == expected[key], key
    for key in ("epsilon", "p_lower", "q_upper", "ceiling"):
        assert got[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12), key


def test_the_many_run_estimate_is_its_steps_on_the_split_it_drew():
    """multi_run_epsilon step by step from the same generator state: each side permuted, a fifth (at least 1, at most
    all but 1) selecting, the event of the largest anticipated bound over the four orientations in order (ties to the
    earlier: with every score equal every anticipated bound is 0 and the first orientation's threshold is kept),
    among the thresholds asked for, its counts on the confirmation runs, Clopper-Pearson at alpha / 2 per side from
    scipy's beta law, the bound and the ceiling; the selection share must be in (0, 1), and two runs per side are
    enough (three select one each)."""
    rng = np.random.default_rng(43)
    x_in, x_out = rng.normal(1.0, 1.0, 300), rng.normal(0.0, 1.0, 251)
    delta, alpha = 1e-4, 0.1
    got = canary.multi_run_epsilon(x_in, x_out, delta, alpha, np.random.default_rng(5))
    _assert_same_result(got, _many_run_steps(x_in, x_out, delta, alpha, 5, {"in": 60, "out": 50}))
    assert got["epsilon"] > 0
    coarse = canary.multi_run_epsilon(x_in, x_out, delta, alpha, np.random.default_rng(5), thresholds=5)
    _assert_same_result(coarse, _many_run_steps(x_in, x_out, delta, alpha, 5, {"in": 60, "out": 50}, thresholds=5))
    flat = np.zeros(40)  # one threshold, no event separates the sides
    same = canary.multi_run_epsilon(flat, flat.copy(), delta, alpha, np.random.default_rng(6))
    _assert_same_result(same, _many_run_steps(flat, flat.copy(), delta, alpha, 6, {"in": 8, "out": 8}))
    assert (same["side"], same["first"], same["epsilon"]) == (">=", "in", 0.0)
    for share in (0.0, 1.0, -0.2):
        with pytest.raises(ValueError, match=rf"^multi_run_epsilon: selection must be a share in \(0, 1\), got "
                                             rf"{re.escape(repr(share))}$"):
            canary.multi_run_epsilon(x_in, x_out, delta, alpha, np.random.default_rng(5), selection=share)
    two = canary.multi_run_epsilon([1.0, 2.0], [0.0, 0.5], 0.0, alpha, np.random.default_rng(0), selection=0.9)
    assert two["selection_runs"] == {"in": 1, "out": 1} and sum(two["runs"].values()) == 2
    three = canary.multi_run_epsilon([1.0, 2.0, 3.0], [0.0, 0.5, 1.0], 0.0, alpha, np.random.default_rng(0))
    assert three["selection_runs"] == {"in": 1, "out": 1} and three["runs"] == {"in": 2, "out": 2}
    for x_in, x_out, name in [([1.0], [0.0, 1.0], "in_scores"), ([1.0, 2.0], [0.0], "out_scores")]:
        message = f"multi_run_epsilon: {name} must be a finite 1-D array of at least 2 scores, got shape (1,)"
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            canary.multi_run_epsilon(x_in, x_out, 0.0, alpha, np.random.default_rng(0))


# -- the canary-scores auditor's records, field by field ---------------------------------------------------------------


def _scores_finding(x_in, x_out, claim, runs="many", seed=3, **settings):
    from dpaudit.auditors.canary_scores import CanaryScores, CanaryScoresAuditor

    return CanaryScoresAuditor().audit(CanaryScores(x_in, x_out, runs=runs), claim, alpha=0.1,
                                       seed=np.random.SeedSequence(seed), **settings)


def _estimate(x_in, x_out, delta, runs, seed=3, **options):
    return canary.canary_epsilon(x_in, x_out, delta, 0.1, np.random.default_rng(np.random.SeedSequence(seed)), runs,
                                 **options)


def test_a_many_run_record_is_the_estimators_result_in_every_field():
    """Not refuted at a claim above the ceiling, and refuted below the bound: the statistic, bound, confidence, runs per
    side (the smaller side's selection plus confirmation runs), witness (the estimator's result but its epsilon),
    notes, parameters and power are those the estimator's result gives; a pure claim reads delta 0; a selection
    share reaches the estimator."""
    from dpaudit.auditors.canary_scores import stated_power

    rng = np.random.default_rng(30)
    x_in, x_out = rng.normal(1.0, 1.0, 700), rng.normal(0.0, 1.0, 600)
    for claim, delta in [(dpaudit.ApproxDP(9.0, 1e-5), 1e-5), (dpaudit.PureDP(9.0), 0.0)]:
        result = _estimate(x_in, x_out, delta, "many")
        found = _scores_finding(x_in, x_out, claim)
        bound = result["epsilon"]
        assert found.verdict == "not-refuted" and result["ceiling"] <= 9.0 and found.auditor == "canary-scores"
        assert found.statistic == Statistic("epsilon", bound, (bound, math.inf), "lower-bound")
        assert found.epsilon_lower == bound and found.confidence == pytest.approx(0.9)
        assert found.samples == min(result["runs"][s] + result["selection_runs"][s] for s in ("in", "out")) < 700
        assert found.witness == {k: v for k, v in result.items() if k != "epsilon"}
        assert found.notes == [canary.ceiling_note(result, "many", delta),
                               "the claimed epsilon 9 is at or above the ceiling: these scores could not have refuted "
                               "it whatever the attack"]
        assert found.parameters == {"runs": "many", "alpha": 0.1, "delta": delta, "ceiling": result["ceiling"]}
        assert found.power == stated_power(result, "many", 9.0, delta, 0.1)
    refuted = _scores_finding(x_in, x_out, dpaudit.ApproxDP(0.05, 1e-5))
    result = _estimate(x_in, x_out, 1e-5, "many")
    assert refuted.verdict == "refuted" and refuted.power is None and refuted.epsilon_lower == result["epsilon"] > 0.05
    assert refuted.notes == [canary.ceiling_note(result, "many", 1e-5)]
    low = _scores_finding(x_in, x_out, dpaudit.ApproxDP(0.05, 1e-5), selection=0.3)
    assert low.witness == {k: v for k, v in _estimate(x_in, x_out, 1e-5, "many", selection=0.3).items()
                           if k != "epsilon"}
    assert low.witness != refuted.witness


def test_a_one_run_record_is_the_estimators_result_in_every_field():
    """One run of 1,000 canaries: the samples are the canaries, the power the one-run power on the chosen guess set,
    guesses reach the estimator."""
    from dpaudit.auditors.canary_scores import stated_power

    rng = np.random.default_rng(31)
    members = rng.random(1000) < 0.5
    x = rng.normal(size=1000) + 1.0 * members
    x_in, x_out = x[members], x[~members]
    result = _estimate(x_in, x_out, 1e-5, "one")
    found = _scores_finding(x_in, x_out, dpaudit.ApproxDP(6.0, 1e-5), runs="one")
    assert found.verdict == "not-refuted" and found.samples == result["canaries"] == 1000
    assert found.witness == {k: v for k, v in result.items() if k != "epsilon"}
    assert found.notes[0] == canary.ceiling_note(result, "one", 1e-5)
    assert found.parameters == {"runs": "one", "alpha": 0.1, "delta": 1e-5, "ceiling": result["ceiling"]}
    assert found.power == stated_power(result, "one", 6.0, 1e-5, 0.1)
    guessed = _scores_finding(x_in, x_out, dpaudit.ApproxDP(6.0, 1e-5), runs="one", guesses=[(20, 20)])
    assert guessed.witness == {k: v for k, v in _estimate(x_in, x_out, 1e-5, "one", guesses=[(20, 20)]).items()
                               if k != "epsilon"}
    assert guessed.witness["guesses_tried"] == 1


def test_the_stated_power_is_the_power_on_what_the_audit_chose_in_words():
    """stated_power from a result's own fields: many runs, at the chosen event's second-side rate as observed (at
    least half a count), the first side's and the other side's confirmation runs; one run, on the chosen guess set at
    alpha over the guess sets tried; each with its description."""
    from dpaudit.auditors.canary_scores import stated_power

    many = {"first": "out", "runs": {"in": 400, "out": 300}, "counts": {"in": 0, "out": 120}, "side": "<",
            "threshold": 0.25}
    value = canary.multi_run_power(300, 400, 0.5 / 400, 1e-5, 0.1, 2.0)
    assert stated_power(many, "many", 2.0, 1e-5, 0.1) == {
        "quantity": "epsilon", "value": value, "probability": 0.9,
        "description": "epsilon of the selected event {score < 0.25} (out runs first), its rate on the in runs "
                       "0.00125 as observed, at 300 + 400 confirmation runs"}
    many = {**many, "first": "in", "counts": {"in": 8, "out": 3}}
    assert stated_power(many, "many", 2.0, 1e-5, 0.1)["value"] == canary.multi_run_power(400, 300, 3 / 300, 1e-5,
                                                                                          0.1, 2.0)
    one = {"canaries": 1000, "r": 40, "level": 0.1 / 7, "guesses_tried": 7}
    assert stated_power(one, "one", 3.0, 1e-5, 0.1) == {
        "quantity": "epsilon", "value": canary.one_run_power(1000, 40, 1e-5, 0.1 / 7, 3.0), "probability": 0.9,
        "description": "epsilon of randomized-response guesses (each right with probability e^eps / (1 + e^eps)) on "
                       "the chosen guess set, 40 guesses of 1000 canaries at alpha / 7"}


def test_a_sequential_record_says_how_the_bets_ended_in_every_field():
    """Crossed: refuted by the bets, the bound on delta (approximate claim) or epsilon (pure), the runs it took, the
    event as witness, its parameters and note; run out: the fixed-size bound of every run at the rest of alpha, its
    ceiling note and the bets' note, power at that rest. From arrays and from a draw alike."""
    from dpaudit.auditors import canary_sequential
    from dpaudit.auditors.canary_scores import CanaryScores, CanaryScoresAuditor, stated_power

    rng = np.random.default_rng(32)
    x_in, x_out = rng.normal(1.5, 1.0, 5000), rng.normal(0.0, 1.0, 5000)
    for claim, parameter in [(dpaudit.ApproxDP(2.0, 1e-5), "delta"), (dpaudit.PureDP(1.0), "epsilon")]:
        draw, budget = canary_sequential.array_draw(x_in, x_out)
        result = canary_sequential.sequential_canary(draw, budget, claim, 0.1,
                                                     np.random.default_rng(np.random.SeedSequence(3)))
        found = _scores_finding(x_in, x_out, claim, sequential=True)
        bound = result["parameter_lower"]
        assert result["crossed"] and found.verdict == "refuted" and found.samples == result["runs"] < 5000
        assert found.statistic == Statistic(parameter, bound, (bound, math.inf), "lower-bound")
        assert (found.delta_lower, found.epsilon_lower) == ((bound, None) if parameter == "delta" else (None, bound))
        assert found.witness == {"event": result["event"]} and found.confidence == pytest.approx(0.9)
        assert found.auditor == "canary-scores"
        delta = float(getattr(claim, "delta", 0.0))
        assert found.parameters == {"runs": "many", "alpha": 0.1, "delta": delta, "sequential": True, "budget": 5000,
                                    "runs_used": result["runs"], "batches": result["batches"],
                                    "betting_level": result["level"], "log_wealth": result["log_wealth"]}
        assert found.notes == [f"refuted by the bets after {result['runs']:,} of 5,000 runs per side "
                               f"({result['batches']} batches bet on, wealth e^{result['log_wealth']:.3g} against "
                               f"1/{result['level']:.3g}); the audit stops once the runs refute the claim: "
                               "sequential=False bounds epsilon from every run"]
    y_in, y_out = rng.normal(0.3, 1.0, 400), rng.normal(0.0, 1.0, 400)
    claim = dpaudit.ApproxDP(3.0, 1e-5)
    draw, budget = canary_sequential.array_draw(y_in, y_out)
    result = canary_sequential.sequential_canary(draw, budget, claim, 0.1,
                                                 np.random.default_rng(np.random.SeedSequence(4)))
    fixed = result["fixed"]
    found = _scores_finding(y_in, y_out, claim, seed=4, sequential=True)
    assert not result["crossed"] and found.verdict == "not-refuted" and found.samples == 400
    assert found.auditor == "canary-scores" and found.confidence == pytest.approx(0.9)
    assert found.statistic == Statistic("epsilon", fixed["epsilon"], (fixed["epsilon"], math.inf), "lower-bound")
    assert found.epsilon_lower == fixed["epsilon"]
    assert found.witness == {k: v for k, v in fixed.items() if k != "epsilon"}
    assert found.notes == [canary.ceiling_note(fixed, "many", 1e-5),
                           f"the bets did not cross on {result['batches']} batches (wealth "
                           f"e^{result['log_wealth']:.3g} against 1/{result['level']:.3g}); the bound is every run's, "
                           "at 0.05 of alpha"]
    assert found.parameters["ceiling"] == fixed["ceiling"] and found.parameters["budget"] == 400
    assert found.power == stated_power(fixed, "many", 3.0, 1e-5, 0.05)
    drawn = CanaryScores(draw=canary_sequential.array_draw(y_in, y_out)[0], budget=400)
    from_draw = CanaryScoresAuditor().audit(drawn, claim, alpha=0.1, seed=np.random.SeedSequence(4), sequential=True)
    assert (from_draw.verdict, from_draw.statistic, from_draw.notes, from_draw.parameters, from_draw.power) == (
        found.verdict, found.statistic, found.notes, found.parameters, found.power)


def test_a_bound_equal_to_the_claim_does_not_refute_it_and_a_ceiling_equal_to_it_is_noted():
    """The verdict needs the bound to exceed the claimed epsilon: a claim set to the bound itself is not refuted (many
    runs, and the fixed-size bound of a sequential audit whose bets did not cross), and a claim set to the ceiling
    itself gets the note that it could not have been refuted. The estimators do not read the claimed epsilon (nor do
    the bets, which here never cross), so the bound is the same at every claim. A sequential audit whose bets do not
    cross on 200 runs per side is refuted by the fixed-size bound of them all, and states no power."""
    rng = np.random.default_rng(30)
    x_in, x_out = rng.normal(1.0, 1.0, 700), rng.normal(0.0, 1.0, 600)
    result = _estimate(x_in, x_out, 1e-5, "many")
    assert 0 < result["epsilon"] < result["ceiling"]
    at_bound = _scores_finding(x_in, x_out, dpaudit.ApproxDP(result["epsilon"], 1e-5))
    assert at_bound.verdict == "not-refuted" and len(at_bound.notes) == 1
    at_ceiling = _scores_finding(x_in, x_out, dpaudit.ApproxDP(result["ceiling"], 1e-5))
    assert at_ceiling.verdict == "not-refuted" and "could not have refuted" in at_ceiling.notes[1]
    rng = np.random.default_rng(0)
    y_in, y_out = rng.normal(1.0, 1.0, 200), rng.normal(0.0, 1.0, 200)
    refuted = _scores_finding(y_in, y_out, dpaudit.PureDP(0.5), seed=4, sequential=True)
    bound = refuted.epsilon_lower
    assert refuted.verdict == "refuted" and "did not cross" in refuted.notes[1] and refuted.power is None
    assert bound > 0.5 and refuted.samples == 200
    tied = _scores_finding(y_in, y_out, dpaudit.PureDP(bound), seed=4, sequential=True)
    assert tied.verdict == "not-refuted" and tied.epsilon_lower == bound and tied.power is not None


def test_a_sequential_audit_of_scores_checks_them_in_the_callers_words():
    """Scores that are not finite, or fewer than 2, are refused naming audit_canaries and the side; 2 per side pass
    that check and are refused for the sequential audit's 200; a draw without a budget has a budget of 0. The level is
    0.05 unless given."""
    from dpaudit.auditors.canary_scores import CanaryScores, CanaryScoresAuditor

    auditor, claim = CanaryScoresAuditor(), dpaudit.PureDP(1.0)
    for x_in, x_out, name, shape in [([np.nan, 1.0], [0.0, 1.0], "in_scores", "(2,) with non-finite entries"),
                                     ([1.0, 2.0], [0.0, np.inf], "out_scores", "(2,) with non-finite entries"),
                                     ([1.0], [0.0, 1.0], "in_scores", "(1,)"),
                                     ([1.0, 2.0], [0.0], "out_scores", "(1,)")]:
        message = f"audit_canaries: {name} must be a finite 1-D array of at least 2 scores, got shape {shape}"
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            auditor.audit(CanaryScores(x_in, x_out), claim, sequential=True)
    with pytest.raises(ValueError, match="^a sequential canary audit needs at least 200 runs per side, got 2$"):
        auditor.audit(CanaryScores([1.0, 2.0], [0.0, 1.0]), claim, sequential=True)
    draw = lambda side, count: np.zeros(count)  # noqa: E731
    with pytest.raises(ValueError, match="^a sequential canary audit needs at least 200 runs per side, got 0$"):
        auditor.audit(CanaryScores(draw=draw), claim, sequential=True)
    rng = np.random.default_rng(30)
    found = auditor.audit(CanaryScores(rng.normal(1.0, 1.0, 300), rng.normal(0.0, 1.0, 300)), dpaudit.PureDP(9.0))
    assert found.parameters["alpha"] == 0.05 and found.confidence == pytest.approx(0.95)


def test_the_canary_scores_auditor_refuses_what_it_cannot_read_in_words():
    from dpaudit.auditors.canary_scores import CanaryScores, CanaryScoresAuditor

    auditor, subject = CanaryScoresAuditor(), CanaryScores([1.0] * 300, [0.0] * 300)
    assert auditor.name == "canary-scores" and auditor.statistical
    assert auditor.supports(subject, dpaudit.ApproxDP(1.0, 1e-5)).level == "attempts"
    assert auditor.supports(subject, dpaudit.PureDP(1.0)).level == "attempts"
    renyi = auditor.supports(subject, dpaudit.RenyiDP(2.0, 1.0))
    assert not renyi and renyi.reason == ("canary scores bound epsilon at a delta: they audit (epsilon, delta) and "
                                          "pure DP claims, got a renyi-dp claim")
    other = auditor.supports([1.0, 2.0], dpaudit.PureDP(1.0))
    assert not other and other.noted is False
    assert other.reason == "the canary-scores auditor audits CanaryScores (two arrays of scores)"
    for runs in ("both", None, 1):
        message = (f"audit_canaries: runs must be 'many' (a score per training run) or 'one' (a score per canary of "
                   f"one run), got {runs!r}")
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            CanaryScores([1.0], [0.0], runs=runs)
    mixed = "^audit_canaries: selection is for runs='many', guesses for runs='one'$"
    with pytest.raises(ValueError, match=mixed):
        auditor.audit(subject, dpaudit.PureDP(1.0), guesses=[(10, 10)])
    with pytest.raises(ValueError, match=mixed):
        auditor.audit(CanaryScores([1.0] * 300, [0.0] * 300, runs="one"), dpaudit.PureDP(1.0), selection=0.3)
    sequential = ("^audit_canaries: sequential audits read many runs \\(runs='many'\\), with their own selection: no "
                  "selection or guesses$")
    for settings in (dict(selection=0.3), dict(guesses=[(10, 10)])):
        with pytest.raises(ValueError, match=sequential):
            auditor.audit(subject, dpaudit.PureDP(1.0), sequential=True, **settings)


# -- the yardstick: the best fixed event from the exact law -----------------------------------------------------------


def test_the_expected_event_bound_is_the_mean_of_the_bound_over_both_counts():
    """Exact over the two binomial counts: it agrees with the mean of 200,000 simulated audits of the event to within
    four standard errors (a false failure about 6e-5)."""
    rng = np.random.default_rng(5)
    p, q, n1, n2 = 0.03, 0.004, 2000, 1500
    k1, k2 = rng.binomial(n1, p, 200_000), rng.binomial(n2, q, 200_000)
    from dpaudit.stats import binomial_lower, binomial_upper
    draws = canary.epsilon_from_rates(binomial_lower(k1, n1, 0.025), binomial_upper(k2, n2, 0.025), 1e-4)
    exact = canary_limits.expected_event_bound(p, q, n1, n2, 1e-4, 0.05)
    assert abs(draws.mean() - exact) < 4 * draws.std() / math.sqrt(len(draws))
    assert exact > 0 and canary_limits.expected_event_bound(p, q, n1, n2, 1e-4, 0.2) > exact
    with pytest.raises(ValueError, match="rates"):
        canary_limits.expected_event_bound(1.2, 0.1, 10, 10, 0.0, 0.05)


def _brute_force_bounds(p, q, n1, n2, delta, alpha):
    """Every pair of counts (k1, k2) of the two sides with its probability and its Clopper-Pearson bound, written out
    from scipy's binomial and beta laws (the one-sided bounds at alpha / 2 per side)."""
    k1, k2 = np.arange(n1 + 1), np.arange(n2 + 1)
    lower, upper = _clopper_pearson(k1, n1, alpha / 2)[0], _clopper_pearson(k2, n2, alpha / 2)[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.log((lower[:, None] - delta) / upper[None, :])
    bound = np.where((lower[:, None] > delta) & (bound > 0), bound, 0.0)
    return np.outer(stats.binom.pmf(k1, n1, p), stats.binom.pmf(k2, n2, q)), bound


@pytest.mark.parametrize("p, q, n1, n2, delta, alpha", [(0.6, 0.1, 40, 30, 0.0, 0.05), (0.3, 0.02, 60, 80, 1e-3, 0.1),
                                                        (0.5, 0.5, 20, 20, 0.0, 0.5), (1.0, 0.0, 25, 25, 0.0, 0.05)])
def test_the_event_bound_and_refutation_are_exact_sums_over_every_pair_of_counts(p, q, n1, n2, delta, alpha):
    """expected_event_bound and refutation_probability against the sums over all (n1 + 1)(n2 + 1) pairs of counts:
    equal to 1e-10 (the support leaves out at most TAIL = 1e-12 of each count's mass), rates 0 and 1 included."""
    weights, bound = _brute_force_bounds(p, q, n1, n2, delta, alpha)
    assert canary_limits.expected_event_bound(p, q, n1, n2, delta, alpha) == pytest.approx((weights * bound).sum(),
                                                                                              abs=1e-10)
    for eps in (0.0, 0.5, 1.5):
        exact = weights[bound > eps].sum()
        assert canary_limits.refutation_probability(p, q, n1, n2, delta, alpha, eps) == pytest.approx(exact, abs=1e-10)


@pytest.mark.parametrize("runs, rate", [(2000, 0.03), (1500, 0.004), (40, 0.5), (10, 0.0), (10, 1.0), (7, 0.999)])
def test_a_counts_support_leaves_out_at_most_tail_on_each_side(runs, rate):
    """_support: consecutive counts within [0, runs] with their binomial probabilities; the mass left out below and
    above is at most TAIL each (a support one count narrower at either end of the binomial's tail would leave out
    more)."""
    k, w = canary_limits._support(runs, rate)
    assert k[0] >= 0 and k[-1] <= runs and np.array_equal(k, np.arange(k[0], k[-1] + 1))
    assert np.array_equal(w, stats.binom.pmf(k, runs, rate))
    assert stats.binom.cdf(k[0] - 1, runs, rate) <= canary_limits.TAIL
    assert stats.binom.sf(k[-1], runs, rate) <= canary_limits.TAIL


def test_rates_outside_0_1_are_refused_and_both_ends_accepted():
    for p, q in [(1.2, 0.1), (-0.1, 0.1), (0.5, 1.5), (0.5, -0.2)]:
        with pytest.raises(ValueError, match=rf"^canary_limits: rates must be in \[0, 1\], got p={p!r}, q={q!r}$"):
            canary_limits.expected_event_bound(p, q, 10, 10, 0.0, 0.05)
    for p, q in [(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]:
        assert canary_limits.expected_event_bound(p, q, 10, 10, 0.0, 0.05) >= 0.0
        assert 0.0 <= canary_limits.refutation_probability(p, q, 10, 10, 0.0, 0.05, 0.1) <= 1.0


def test_the_best_event_is_the_largest_among_the_events_that_can_certify():
    """best_event_bound takes the largest expected bound among events with p > q (an event no likelier under the
    first side counts 0, even where its expected bound is above 0 by chance: p = q = 1/2 at 20 runs);
    best_event_refutation the largest refutation probability among events with p > delta (likewise). Each returns
    its value and the event's two rates under the keys it documents, and both refuse rates that are not two 1-D
    arrays of one nonempty length, in their own names."""
    n, delta, alpha = 40, 1e-3, 0.1
    p, q = [0.5, 0.6, 0.3, 0.7, 0.9], [0.5, 0.1, 0.2, 0.8, 0.9]
    values = [canary_limits.expected_event_bound(a, b, n, n, delta, alpha) for a, b in zip(p, q)]
    assert values[0] > 0 and values[3] > 0  # by chance, but they do not count
    best = canary_limits.best_event_bound(p, q, n, n, delta, alpha)
    assert best == {"epsilon": max(values[1], values[2]), "p": 0.6, "q": 0.1} and values[1] > values[2]
    assert canary_limits.best_event_bound([0.5], [0.5], 20, 20, 0.0, 0.5) == {"epsilon": 0.0, "p": 0.5, "q": 0.5}
    assert canary_limits.expected_event_bound(0.5, 0.5, 20, 20, 0.0, 0.5) > 0
    chances = [canary_limits.refutation_probability(a, b, n, n, delta, alpha, 0.5) for a, b in zip(p, q)]
    found = canary_limits.best_event_refutation(p, q, n, n, delta, alpha, 0.5)
    assert found == {"probability": max(chances), "p": 0.6, "q": 0.1} and max(chances) > 0
    at_delta = canary_limits.best_event_refutation([0.5, 0.4], [0.0, 0.0], n, n, 0.5, alpha, 0.0)
    assert at_delta == {"probability": 0.0, "p": 0.5, "q": 0.0}  # p = delta: no bound in fact, whatever chance gives
    assert canary_limits.refutation_probability(0.5, 0.0, n, n, 0.5, alpha, 0.0) > 0
    one = canary_limits.best_event_refutation([0.8], [0.05], n, n, delta, alpha, 0.5)
    assert one["probability"] == canary_limits.refutation_probability(0.8, 0.05, n, n, delta, alpha, 0.5) > 0
    for name, call in [("best_event_bound", lambda a, b: canary_limits.best_event_bound(a, b, n, n, delta, alpha)),
                       ("best_event_refutation",
                        lambda a, b: canary_limits.best_event_refutation(a, b, n, n, delta, alpha, 0.5))]:
        for a, b, shapes in [([0.5, 0.6, 0.3], [0.1, 0.2], "(3,) and (2,)"),
                             ([[0.5, 0.6]], [[0.1, 0.2]], "(1, 2) and (1, 2)"), ([], [], "(0,) and (0,)")]:
            message = f"{name}: the rates must be two 1-D arrays of one length, got {shapes}"
            with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
                call(a, b)


def test_the_gaussian_events_are_the_thresholds_from_minus_2_to_mu_plus_6():
    first, second = canary_limits.gaussian_events(1.5)
    assert len(first) == len(second) == 600 and len(canary_limits.gaussian_events(1.5, points=7)[0]) == 7
    assert first[0] == stats.norm.sf(-3.5) and second[0] == stats.norm.sf(-2.0)
    assert first[-1] == stats.norm.sf(6.0) and second[-1] == stats.norm.sf(7.5)
    for mu in (0.0, -1.0):
        with pytest.raises(ValueError, match=rf"^gaussian_events: mu must be positive, got {mu!r}$"):
            canary_limits.gaussian_events(mu)


def _against_the_best_fixed_event(mu, runs, seeds):
    """(the best fixed event's expected bound on Gaussian scores, the estimator's mean bound over ``seeds``)."""
    first, second = canary_limits.gaussian_events(mu, points=300)
    best = canary_limits.best_event_bound(first, second, runs, runs, 1e-5, 0.05)["epsilon"]
    bounds = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        x_in, x_out = _gaussian_scores(rng, runs, mu)
        bounds.append(canary.multi_run_epsilon(x_in, x_out, 1e-5, 0.05, rng)["epsilon"])
    return best, float(np.mean(bounds))


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0, 3.0])
def test_many_run_bounds_at_ten_thousand_runs_are_within_ten_percent_of_the_best_fixed_event(mu):
    """Gaussian scores (mu = 0.5 to 3: true epsilon 1.8 to 15 at delta 1e-5), 10^4 runs per side: the estimator's mean
    bound over 40 seeds is at least 90% of the best expected bound of any event fixed in advance from the exact law
    with every run confirming it (measured 92-94%; selecting by the selection runs' own bound gave 87-93% and fails
    at mu = 0.5). Seeded: the figure is a fixed computation, its margin 2-4 points."""
    best, mean = _against_the_best_fixed_event(mu, 10_000, 40)
    assert best >= mean >= 0.9 * best  # the yardstick is above what the selection reaches on average


@pytest.mark.parametrize("mu, share", [(0.5, 0.78), (1.0, 0.88)])
def test_at_a_thousand_runs_the_second_sides_rate_is_smoothed_before_it_is_anticipated(mu, share):
    """At 10^3 runs per side an event no selection run of the second side fell in is common; taken at face value
    (rate 0) it is anticipated to certify far more than it does. Smoothed, the mean bound over 200 seeds is 81% and 91%
    of the best fixed event's at mu = 0.5 and 1 (67% and 87% unsmoothed: the test fails)."""
    best, mean = _against_the_best_fixed_event(mu, 1000, 200)
    assert mean >= share * best


# -- the limit of one run ---------------------------------------------------------------------------------------------


def _clipped_loss_cdf(mu: float, e1: float, log_z: float):
    """P0(L <= x) for the clipped member: Q's law of L scaled by e^-e1 below -e1, P's inside, Q's by e^e1 above e1,
    over Z, written out piece by piece."""
    half, phi, z = mu * mu / 2, stats.norm.cdf, math.exp(log_z)
    below = np.exp(-e1) * phi((-e1 + half) / mu)  # P0 mass of L < -e1, times Z
    inside = phi((e1 - half) / mu) - phi((-e1 - half) / mu)

    def cdf(x):
        x = np.asarray(x)
        return np.where(x < -e1, np.exp(-e1) * phi((x + half) / mu),
                        np.where(x <= e1, below + phi((x - half) / mu) - phi((-e1 - half) / mu),
                                 below + inside + np.exp(e1) * (phi((x + half) / mu) - phi((e1 + half) / mu)))) / z

    return cdf


def test_the_clipped_member_is_pure_dp_and_its_losses_have_its_law():
    """The null member one_run_limit tests against is a pure (eps0, 0)-DP pair with N(0, 1): its likelihood ratio
    g(L) / Z lies in [e^-eps0, e^eps0] with Z = E_Q[g(L)] by quadrature; its sampled losses follow its law, the
    distribution function written out piece by piece (KS at 1e-4: false-failure rate 1e-4)."""
    from scipy import integrate

    mu, eps0 = 1.7, 5.0
    half = mu * mu / 2
    e1, log_z, weights = canary_limits._clipped_member(mu, eps0)
    assert e1 + abs(log_z) == pytest.approx(eps0, abs=1e-10) and weights.sum() == pytest.approx(1.0)
    z, _ = integrate.quad(lambda s: np.clip(np.exp(mu * s - half), np.exp(-e1), np.exp(e1)) * stats.norm.pdf(s),
                          -40, 40, points=[(e1 + half) / mu, (-e1 + half) / mu], limit=200)
    assert math.log(z) == pytest.approx(log_z, abs=1e-9)
    cdf = _clipped_loss_cdf(mu, e1, log_z)
    draws = canary_limits.clipped_losses(mu, eps0, 4000, np.random.default_rng(8))
    assert stats.kstest(draws, cdf).pvalue > 1e-4
    assert cdf(60.0) == pytest.approx(1.0, abs=1e-12)


def test_no_valid_one_run_test_beats_the_limit_and_the_limit_falls_to_alpha():
    """Gaussian canaries (mu = 2, 1000 in one run): the limit's power is 1 below the truth's neighbourhood, falls as
    the claim rises and is alpha where the clipping hardly changes the law (eps0 = 12, and 20, where nothing is
    clipped and every replicate ties: the test randomises at its ties); dpaudit's one-run bound (median 3.2, at most
    3.8 over 200 seeds) stays below where the limit leaves any doubt (power 1 at 4). Monte Carlo over 4,000
    replicates: each figure within 0.01 (3 s.e. at alpha)."""
    rng = np.random.default_rng(9)
    powers = [canary_limits.one_run_limit(2.0, 1000, eps0, replicates=4000, rng=rng)["power"]
              for eps0 in (4.0, 6.0, 7.0, 12.0, 20.0)]
    assert powers[0] == 1.0 and powers[0] > powers[1] > powers[2] > powers[3]
    assert abs(powers[3] - 0.05) < 0.011 and abs(powers[4] - 0.05) < 0.011  # at 20 every statistic ties
    bounds = []
    for seed in range(200):
        r = np.random.default_rng(seed)
        members = r.random(1000) < 0.5
        x = r.normal(size=1000) + 2.0 * members
        bounds.append(canary.one_run_bound(x[members], x[~members], 0.0, 0.05, r)["epsilon"])
    assert max(bounds) < 4.0
    with pytest.raises(ValueError, match="mu > 0"):
        canary_limits.one_run_limit(0.0, 10, 1.0)


def test_the_neyman_pearson_power_randomises_at_the_threshold_to_size_alpha():
    """_neyman_pearson_power on fixed statistics: the threshold is the null's 1 - alpha quantile taken at a drawn value
    (numpy's "higher"), above it the test rejects, at it with the probability that makes the size exactly alpha:
    on 0..99 at alpha 0.05, reject above 95 and at 95 always (4% + 1%); on a null half 0 half 1, reject at 1 with
    probability 1/10; all tied, with probability alpha. The power of the null against itself is alpha."""
    null = np.arange(100.0)
    assert canary_limits._neyman_pearson_power(null, null, 0.05) == pytest.approx(0.05, abs=1e-15)
    assert canary_limits._neyman_pearson_power(null, np.full(10, 95.0), 0.05) == pytest.approx(1.0, abs=1e-12)
    assert canary_limits._neyman_pearson_power(null, np.full(10, 94.5), 0.05) == 0.0
    mixed = np.array([96.0, 95.0, 3.0, 0.0])
    assert canary_limits._neyman_pearson_power(null, mixed, 0.05) == pytest.approx(0.5, abs=1e-12)
    halves = np.repeat([0.0, 1.0], 50)
    assert canary_limits._neyman_pearson_power(halves, halves, 0.05) == pytest.approx(0.05, abs=1e-15)
    assert canary_limits._neyman_pearson_power(halves, np.array([1.0, 2.0]), 0.05) == pytest.approx(0.55, abs=1e-15)
    tied = np.zeros(40)
    assert canary_limits._neyman_pearson_power(tied, np.zeros(7), 0.05) == pytest.approx(0.05, abs=1e-15)


def test_an_in_runs_log_ratio_to_the_clipped_member_is_its_excess_beyond_the_clip_plus_log_z():
    ratio = canary_limits._log_ratio_to_clipped(np.array([-3.0, -0.5, 0.0, 1.0, 2.0]), 1.0, 0.2)
    assert ratio == pytest.approx([-1.8, 0.2, 0.2, 0.2, 1.2], abs=1e-15)


@pytest.mark.parametrize("mu, eps0", [(1.7, 0.6), (1.0, 0.3)])
def test_clipped_losses_have_their_law_where_much_is_clipped(mu, eps0):
    """At small eps0 most of the loss's mass is clipped on both sides (each piece of the clipped member weighs 0.1 or
    more): its sampled losses follow the law written out piece by piece (KS at 1e-4: false-failure rate 1e-4), and the
    same generator state gives the same draws."""
    e1, log_z, weights = canary_limits._clipped_member(mu, eps0)
    assert e1 < 1 and weights.min() > 0.1 and abs(e1 + abs(log_z) - eps0) < 1e-13
    draws = canary_limits.clipped_losses(mu, eps0, 4000, np.random.default_rng(3))
    assert stats.kstest(draws, _clipped_loss_cdf(mu, e1, log_z)).pvalue > 1e-4
    assert np.array_equal(draws, canary_limits.clipped_losses(mu, eps0, 4000, np.random.default_rng(3)))


class _RecordingGenerator:
    """A numpy Generator that remembers what ``choice`` was asked and returned (the many-run limit's resamplings)."""

    def __init__(self, seed: int):
        self.rng, self.calls = np.random.default_rng(seed), []

    def choice(self, a, size=None, replace=True, p=None):
        out = self.rng.choice(a, size=size, replace=replace, p=p)
        self.calls.append((np.array(a), None if p is None else np.array(p), out))
        return out


def test_the_many_run_limit_resamples_the_clipped_member_and_tests_it_by_neyman_pearson():
    """many_run_limit step by step, from what it drew: the clip e1 and log Z solve e1 + |log Z| = eps0 with Z the mean
    of e^L clipped to [e^-e1, e^e1] over the second side's losses; the null's resampling weights are that clipped
    ratio normalised, the alternative's uniform over the first side's losses; each replicate's statistic sums its
    runs' log-ratios, and the power is the Neyman-Pearson test's on those statistics. The losses here reach past the
    clip on both sides."""
    rng = np.random.default_rng(4)
    loss_in, loss_out = rng.normal(0.5, 1.0, 300), rng.normal(-0.5, 1.0, 200)
    recorder = _RecordingGenerator(6)
    out = canary_limits.many_run_limit(loss_in, loss_out, 5, 0.7, alpha=0.1, replicates=300, rng=recorder)
    assert set(out) == {"power", "clip", "log_z"}
    e1, log_z = out["clip"], out["log_z"]
    assert log_z == pytest.approx(math.log(np.mean(np.exp(np.clip(loss_out, -e1, e1)))), abs=1e-14)
    assert abs(e1 + abs(log_z) - 0.7) < 1e-11 and (loss_out < -e1).any() and (loss_out > e1).any()
    (null_from, weights, null_draws), (alt_from, alt_weights, alt_draws) = recorder.calls
    assert np.array_equal(null_from, loss_out) and np.array_equal(alt_from, loss_in) and alt_weights is None
    clipped = np.exp(np.clip(loss_out, -e1, e1))
    assert weights == pytest.approx(clipped / clipped.sum(), rel=1e-12)
    assert null_draws.shape == alt_draws.shape == (300, 5)

    def statistic(draws):
        return (draws - np.clip(draws, -e1, e1) + log_z).sum(axis=1)

    assert out["power"] == canary_limits._neyman_pearson_power(statistic(null_draws), statistic(alt_draws), 0.1)


def _captured_statistics(monkeypatch) -> list:
    seen = []
    real = canary_limits._neyman_pearson_power
    monkeypatch.setattr(canary_limits, "_neyman_pearson_power",
                        lambda a, b, alpha: seen.append((a, b)) or real(a, b, alpha))
    return seen


def test_the_limits_run_20000_replicates_unless_told_and_repeat_with_their_generator(monkeypatch):
    """Both limits: 20,000 replicates by default, one statistic per replicate under each law (also when the last
    replicates hold no canary), a generator of their own when given none, and the same result from the same seed."""
    seen = _captured_statistics(monkeypatch)
    losses = np.linspace(-2.0, 2.0, 100)
    canary_limits.one_run_limit(1.0, 1, 1.0)
    canary_limits.many_run_limit(losses + 0.3, losses, 1, 1.0)
    assert [(len(a), len(b)) for a, b in seen] == [(20_000, 20_000)] * 2
    seen.clear()
    first = canary_limits.one_run_limit(1.0, 1, 1.0, replicates=101, rng=np.random.default_rng(2))
    assert [(len(a), len(b)) for a, b in seen] == [(101, 101)]
    assert first == canary_limits.one_run_limit(1.0, 1, 1.0, replicates=101, rng=np.random.default_rng(2))
    e1, log_z, _ = canary_limits._clipped_member(1.0, 1.0)
    assert first["clip"] == e1 and first["log_z"] == log_z and set(first) == {"power", "clip", "log_z"}
    many = [canary_limits.many_run_limit(losses + 0.3, losses, 3, 0.2, replicates=500, rng=np.random.default_rng(2))
            for _ in range(2)]
    assert many[0] == many[1] and 0 < many[0]["power"] < 1


@pytest.mark.parametrize("call, accepted, refused", [
    ("one_run", dict(mu=0.5, epsilon=0.5, canaries=1, replicates=100, alpha=0.999),
     [dict(mu=0.0), dict(epsilon=0.0), dict(alpha=0.0), dict(alpha=1.0), dict(canaries=0), dict(replicates=99)]),
    ("many_run", dict(epsilon=0.5, runs=1, replicates=100, alpha=0.999),
     [dict(epsilon=0.0), dict(alpha=0.0), dict(alpha=1.0), dict(runs=0), dict(replicates=99)]),
])
def test_the_limits_refuse_arguments_just_outside_their_ranges_and_take_those_just_inside(call, accepted, refused):
    """Each limit at the edges of its arguments' ranges: the accepted edge runs, one step outside is refused naming
    every value it was given."""
    losses = np.linspace(-2.0, 2.0, 100)

    def run(**changes):
        args = {**accepted, **changes}
        if call == "one_run":
            return canary_limits.one_run_limit(args["mu"], args["canaries"], args["epsilon"], alpha=args["alpha"],
                                               replicates=args["replicates"], rng=np.random.default_rng(0))
        return canary_limits.many_run_limit(losses + 0.3, losses, args["runs"], args["epsilon"], alpha=args["alpha"],
                                            replicates=args["replicates"], rng=np.random.default_rng(0))

    assert 0 <= run()["power"] <= 1
    for changes in refused:
        args = {**accepted, **changes}
        if call == "one_run":
            message = (f"one_run_limit: need mu > 0, epsilon > 0, alpha in (0, 1), canaries >= 1 and replicates >= "
                       f"100, got {args['mu']!r}, {args['epsilon']!r}, {args['alpha']!r}, {args['canaries']!r}, "
                       f"{args['replicates']!r}")
        else:
            message = (f"many_run_limit: need epsilon > 0, alpha in (0, 1), runs >= 1 and replicates >= 100, got "
                       f"{args['epsilon']!r}, {args['alpha']!r}, {args['runs']!r}, {args['replicates']!r}")
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            run(**changes)


def test_the_many_run_limit_needs_100_losses_on_each_side_as_1_d_arrays():
    losses = np.linspace(-2.0, 2.0, 100)
    message = "^many_run_limit: need at least 100 samples of the loss under each side$"
    for first, second in [(losses[:99], losses), (losses, losses[:99]), (losses.reshape(2, 50), losses),
                          (losses, losses.reshape(2, 50)), (losses.reshape(1, 100), losses)]:
        with pytest.raises(ValueError, match=message):
            canary_limits.many_run_limit(first, second, 3, 1.0, replicates=100, rng=np.random.default_rng(0))
    assert 0 <= canary_limits.many_run_limit(losses, losses, 3, 1.0, replicates=100,
                                             rng=np.random.default_rng(0))["power"] <= 1


# -- sequential many-run audits ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps, delta, trials", [(1.0, 0.0, TRIALS), (0.5, 0.05, 400)])
def test_the_sequential_audit_holds_at_the_boundary(eps, delta, trials):
    """Seeded sequential audits of 300 runs per side at the exact boundary (1,000 of a pure claim, 400 of an
    approximate one): refuted (by the bets or by the fixed bound of every run) in at most the count a valid test
    exceeds with probability 1e-6 at alpha 0.1 (measured 0.4% and 0%)."""
    from dpaudit.auditors.canary_scores import CanaryScores, CanaryScoresAuditor

    rng = np.random.default_rng(13)
    claim = dpaudit.PureDP(eps) if delta == 0 else dpaudit.ApproxDP(eps, delta)
    refuted = sum(CanaryScoresAuditor().audit(CanaryScores(*_boundary_runs(rng, 300, eps, delta)), claim, alpha=0.1,
                                              seed=np.random.SeedSequence(trial), sequential=True).verdict == "refuted"
                  for trial in range(trials))
    assert refuted <= _violations_allowed(0.1, trials)


def test_each_bet_is_on_an_event_chosen_from_the_runs_before_it(monkeypatch):
    """The e-process's one requirement: the event and the bet of each batch come from earlier runs only. Every bet
    placed is the one choose_bet makes on the runs drawn before that batch, and the wealth needed is 1 / (alpha / 2)."""
    from dpaudit.auditors import betting, canary_sequential

    placed, prefixes = [], []
    real_choose, real_add = canary_sequential.choose_bet, betting.EventBets.add

    def choose(seen, claim):
        prefixes.append({side: values.copy() for side, values in seen.items()})
        return real_choose(seen, claim)

    def add(self, first, second, forecast=None):
        placed.append(forecast)
        assert self.alpha == pytest.approx(0.025)
        return real_add(self, first, second, forecast)

    monkeypatch.setattr(canary_sequential, "choose_bet", choose)
    monkeypatch.setattr(betting.EventBets, "add", add)
    rng = np.random.default_rng(4)
    x_in, x_out = rng.normal(0.5, 1, 3000), rng.normal(0, 1, 3000)
    draw, budget = canary_sequential.array_draw(x_in, x_out)
    canary_sequential.sequential_canary(draw, budget, dpaudit.ApproxDP(3.0, 1e-5), 0.05, rng)
    assert len(placed) == len(prefixes) >= 3
    drawn = canary_sequential.FIRST_BATCH
    for forecast, seen in zip(placed, prefixes):
        assert len(seen["in"]) == len(seen["out"]) == drawn  # only the runs before this batch
        np.testing.assert_array_equal(seen["in"], x_in[:drawn])
        assert forecast == real_choose({"in": x_in[:drawn], "out": x_out[:drawn]}, dpaudit.ApproxDP(3.0, 1e-5))[1]
        drawn += min(max(canary_sequential.FIRST_BATCH, int(drawn * canary_sequential.GROWTH)), budget - drawn)


def test_a_sequential_audit_stops_early_and_says_how_many_runs_it_took():
    """Gaussian scores at mu = 1 (epsilon 4.38 at 1e-5) against a claim of 1.99 with 100,000 runs per side on hand:
    refuted in every one of 20 seeds after a median of fewer than 20,000 runs per side (the fixed audit's bound
    refutes from 20,000 in 5 of 5 seeds measured; the best event fixed in advance from 10,000 with probability 0.85),
    the record naming the runs it took; a true claim is not refuted and its record states the fixed bound's ceiling
    and power; bad input is refused."""
    claim = dpaudit.ApproxDP(1.99, 1e-5)
    used = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        res = dpaudit.audit_canaries(rng.normal(1.0, 1, 100_000), rng.normal(0, 1, 100_000), claim, seed=seed,
                                     sequential=True)
        assert res.verdict == "refuted" and res.parameters["runs_used"] == res.samples < 100_000
        assert res.delta_lower > 1e-5 and "refuted by the bets" in res.notes[0]
        used.append(res.samples)
    assert np.median(used) < 20_000
    rng = np.random.default_rng(0)
    held = dpaudit.audit_canaries(rng.normal(1.0, 1, 2000), rng.normal(0, 1, 2000), dpaudit.ApproxDP(5.0, 1e-5),
                                  seed=1, sequential=True)
    assert held.verdict == "not-refuted" and held.samples == 2000 and held.power is not None
    assert "ceiling" in held.notes[0] and "did not cross" in held.notes[1]
    with pytest.raises(ValueError, match="sequential audits read many runs"):
        dpaudit.audit_canaries([1.0] * 300, [0.0] * 300, claim, runs="one", sequential=True)
    with pytest.raises(ValueError, match="at least 200 runs"):
        dpaudit.audit_canaries([1.0] * 150, [0.0] * 150, claim, sequential=True)


def test_an_event_holds_a_score_at_its_threshold_on_the_upper_side_only():
    from dpaudit.auditors import canary_sequential

    scores = np.array([0.0, 1.0, 2.0])
    assert canary_sequential._inside(scores, ">=", 1.0).tolist() == [False, True, True]
    assert canary_sequential._inside(scores, "<", 1.0).tolist() == [True, False, False]


def test_the_bet_chosen_is_the_fastest_growing_event_with_an_edge_in_either_order():
    """choose_bet on fixed runs, the in-runs' scores higher and then the out-runs': the chosen event's forecast is its
    selection rates (the first side's over the other's) and its growth the largest of any event, in any of the four
    orientations, whose edge p - e^eps q - delta is positive (a pure claim has no delta); events with either side first
    are chosen among these cases. With no such event (the same scores on both sides, or a
    delta that eats every edge), it returns the documented default: the first threshold, upper side, in first, and a
    forecast of (0, 0), on which nothing is staked."""
    from dpaudit.auditors import betting, canary_sequential

    rng = np.random.default_rng(17)
    low, high = rng.normal(0.0, 1.0, 300), rng.normal(2.0, 1.0, 300)
    firsts = set()
    for claim in (dpaudit.PureDP(0.5), dpaudit.ApproxDP(0.5, 0.01)):
        delta = float(getattr(claim, "delta", 0.0))
        for seen in ({"in": high, "out": low}, {"in": low, "out": high}):
            (side, chosen_first, tau), (p, q) = canary_sequential.choose_bet(seen, claim)
            second = "out" if chosen_first == "in" else "in"
            firsts.add(chosen_first)
            rates = canary.selection_rates(seen[chosen_first], seen[second], np.array([tau]), side)
            assert (p, q) == (float(rates[0][0]), float(rates[1][0])) and p - math.exp(0.5) * q - delta > 0
            growth = betting.kelly_growth(claim, p, q)[1]
            taus = canary.candidate_thresholds(np.concatenate([seen["in"], seen["out"]]))
            for other_side, other_first in canary.ORIENTATIONS:
                other_second = "out" if other_first == "in" else "in"
                ps, qs = canary.selection_rates(seen[other_first], seen[other_second], taus, other_side)
                for a, b in zip(ps, qs):
                    if a - math.exp(0.5) * b - delta > 0:
                        assert betting.kelly_growth(claim, a, b)[1] <= growth
    assert firsts == {"in", "out"}
    same = {"in": low, "out": low.copy()}
    default = ((">=", "in", float(canary.candidate_thresholds(np.concatenate([low, low]))[0])), (0.0, 0.0))
    assert canary_sequential.choose_bet(same, dpaudit.ApproxDP(0.1, 0.5)) == default
    assert canary_sequential.choose_bet({"in": high, "out": low}, dpaudit.ApproxDP(0.5, 0.95))[1] == (0.0, 0.0)
    assert canary_sequential.choose_bet({"in": high, "out": low}, dpaudit.PureDP(0.5))[1] != (0.0, 0.0)


def test_a_sequential_audit_draws_exactly_its_budget_counts_its_batches_and_reports_its_event(monkeypatch):
    """From a draw that always returns what it is asked (a simulator, not an array), the audit takes 100 runs per side,
    then batches of max(100, half of what it has) cut at the budget: 250 runs are 100 + 100 + 50, three draws per side
    and two batches. Its record counts the batches bet on; a crossing names the last batch's event (side, threshold,
    first) as choose_bet chose it; runs that run out go to the fixed-size bound with the claim's delta (0 for a pure
    claim) at the rest of alpha, (1 - BETTING_SHARE) alpha."""
    from dpaudit.auditors import canary_sequential

    def simulator(shift, seed):
        rng, asked = np.random.default_rng(seed), {"in": [], "out": []}

        def draw(side, count):
            asked[side].append(count)
            return rng.normal(shift if side == "in" else 0.0, 1.0, count)

        return draw, asked

    fixed_calls = []
    real_fixed = canary_sequential.multi_run_epsilon
    monkeypatch.setattr(canary_sequential, "multi_run_epsilon",
                        lambda a, b, delta, alpha, rng: fixed_calls.append((len(a), len(b), delta, alpha))
                        or real_fixed(a, b, delta, alpha, rng))
    for claim, delta in [(dpaudit.ApproxDP(3.0, 1e-3), 1e-3), (dpaudit.PureDP(3.0), 0.0)]:
        draw, asked = simulator(0.0, 1)
        held = canary_sequential.sequential_canary(draw, 250, claim, 0.1, np.random.default_rng(0))
        assert asked == {"in": [100, 100, 50], "out": [100, 100, 50]}
        assert held["crossed"] is False and held["runs"] == 250 and held["batches"] == 2
        assert fixed_calls[-1] == (250, 250, delta, pytest.approx(0.05))
    chosen = []
    real_choose = canary_sequential.choose_bet
    monkeypatch.setattr(canary_sequential, "choose_bet", lambda seen, claim: chosen.append(real_choose(seen, claim))
                        or chosen[-1])
    draw, asked = simulator(1.5, 2)
    crossed = canary_sequential.sequential_canary(draw, 100_000, dpaudit.ApproxDP(2.0, 1e-5), 0.1,
                                                  np.random.default_rng(0))
    assert crossed["crossed"] is True and crossed["batches"] == len(chosen) == len(asked["in"]) - 1 >= 2
    (side, first, tau), _ = chosen[-1]
    assert crossed["event"] == {"side": side, "threshold": tau, "first": first}
    assert crossed["runs"] == sum(asked["in"]) < 100_000


def test_a_sequential_audit_refuses_other_claims_and_fewer_than_200_runs():
    from dpaudit.auditors import canary_sequential

    draw, _ = canary_sequential.array_draw(np.zeros(300), np.zeros(300))
    renyi = dpaudit.RenyiDP(2.0, 1.0)
    message = f"a sequential canary audit tests pure and approximate DP claims, got {renyi!r}"
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        canary_sequential.sequential_canary(draw, 300, renyi, 0.1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="^a sequential canary audit needs at least 200 runs per side, got 199$"):
        canary_sequential.sequential_canary(draw, 199, dpaudit.PureDP(1.0), 0.1, np.random.default_rng(0))
    done = canary_sequential.sequential_canary(draw, 200, dpaudit.PureDP(1.0), 0.1, np.random.default_rng(0))
    assert done["runs"] == 200 and done["batches"] == 1


def test_the_many_run_limit_is_alpha_where_nothing_is_clipped_and_one_far_below_the_truth():
    """The Neyman-Pearson bound of many runs against the null's clipped member, from sampled losses of a Gaussian
    pair (mu = 1, epsilon 4.38 at 1e-5): power 1 at eps0 = 1 from 1,000 runs per side, falling with eps0, and alpha
    (every replicate tied, the test randomising) where nothing is clipped. Monte Carlo, 2,000 replicates: within 0.02
    at alpha (4 s.e.)."""
    rng = np.random.default_rng(21)
    x_in, x_out = rng.normal(1.0, 1.0, 50_000), rng.normal(0.0, 1.0, 50_000)
    loss_in, loss_out = x_in - 0.5, x_out - 0.5  # log dP/dQ of N(1, 1) against N(0, 1)
    powers = [canary_limits.many_run_limit(loss_in, loss_out, 1000, eps0, replicates=2000, rng=rng)["power"]
              for eps0 in (1.0, 2.0, 3.0, 30.0)]
    assert powers[0] == 1.0 and powers[0] >= powers[1] >= powers[2] > powers[3]
    assert abs(powers[3] - 0.05) < 0.02
    with pytest.raises(ValueError, match="100 samples"):
        canary_limits.many_run_limit([0.1] * 10, loss_out, 10, 1.0)
