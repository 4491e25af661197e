"""shuffle-lcb's regret and experiment entries (audits/shuffle_lcb/regret.py): they build, their quick
settings are the ones the module docstring states, every regret, lower-bound and empirical row of the
paper's claims table is encoded or listed as left out, and the cheap entries reach their expected
verdicts."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from regret_suites import as_expected, audit_in_a_run

from dpaudit import RegretBound, RegretOrder, RegretRate
from dpaudit.api import regret_subject
from dpaudit.audits.experiments import shuffle_lcb as figures
from dpaudit.audits.shuffle_lcb import regret, suite
from dpaudit.core.claim_ids import parse_claim_id
from dpaudit.suite import RunContext
from dpaudit.suite.regret import OrderEntry, RegretEntry

# The claims table of the paper's specification: claim id and type, as printed there (aliases kept).
SPEC_TABLE = """
| shuffle-lcb/thm3.2-privacy (alias thmB.1-privacy) | privacy (approx), SDP |
| shuffle-lcb/thm3.2-regret (alias thmB.1-regret) | regret upper bound |
| shuffle-lcb/cor3.3 | regret upper bound |
| shuffle-lcb/corB.2-regret | regret upper bound |
| shuffle-lcb/corB.2-sdp | privacy (approx), SDP |
| shuffle-lcb/corB.2-jdp | privacy (approx), JDP |
| shuffle-lcb/corB.2-ldp | privacy (approx), LDP |
| shuffle-lcb/corB.3-ldp | privacy (approx), LDP |
| shuffle-lcb/corB.3-regret | regret upper bound |
| shuffle-lcb/corB.3-sdp | privacy (approx), SDP |
| shuffle-lcb/corB.3-jdp | privacy (approx), JDP |
| shuffle-lcb/remark3.4-ldp | privacy (approx), LDP |
| shuffle-lcb/remark3.4-jdp | privacy (approx), JDP |
| shuffle-lcb/thm3.5-privacy (alias thmC.1-privacy) | privacy (approx), SDP |
| shuffle-lcb/thm3.5-regret (alias thmC.1-regret) | regret upper bound |
| shuffle-lcb/thmC.1-accuracy | accuracy |
| shuffle-lcb/thmC.1-tail | tail/concentration |
| shuffle-lcb/remark3.6 | regret upper bound |
| shuffle-lcb/remark3.7 | privacy (approx), LDP |
| shuffle-lcb/remark3.8 | privacy (approx), LDP |
| shuffle-lcb/corC.2-regret | regret upper bound |
| shuffle-lcb/corC.2-sdp | privacy (approx), SDP |
| shuffle-lcb/corC.2-jdp | privacy (approx), JDP |
| shuffle-lcb/corC.2-ldp | privacy (approx), LDP |
| shuffle-lcb/corC.3-ldp | privacy (approx), LDP |
| shuffle-lcb/corC.3-regret | regret upper bound |
| shuffle-lcb/corC.3-sdp | privacy (approx), SDP |
| shuffle-lcb/corC.3-jdp | privacy (approx), JDP |
| shuffle-lcb/lem3.9-regret (alias lemA.4-regret) | regret upper bound |
| shuffle-lcb/lemA.2-regret | regret upper bound |
| shuffle-lcb/lemA.2-tail | tail/concentration |
| shuffle-lcb/lemA.4-tail | tail/concentration |
| shuffle-lcb/claimA.6 | structural |
| shuffle-lcb/remarkA.5 | regret upper bound |
| shuffle-lcb/remark3.10 | regret upper bound |
| shuffle-lcb/thmE.3-privacy (= Thm 4.2(i)) | privacy (approx), SDP |
| shuffle-lcb/thmE.3-regret | regret upper bound |
| shuffle-lcb/corE.4-sdp | privacy (approx), SDP |
| shuffle-lcb/corE.4-regret | regret upper bound |
| shuffle-lcb/thmE.5-privacy (= Thm 4.2(ii)) | privacy (approx), SDP |
| shuffle-lcb/thmE.5-regret | regret upper bound |
| shuffle-lcb/corE.6-sdp | privacy (approx), SDP |
| shuffle-lcb/corE.6-regret | regret upper bound |
| shuffle-lcb/prop4.3-jdp (alias propE.7-jdp) | privacy (approx), JDP |
| shuffle-lcb/prop4.3-regret (alias propE.7-regret) | regret upper bound |
| shuffle-lcb/remark4.4 | regret upper bound |
| shuffle-lcb/thmE.2 | external (composition) |
| shuffle-lcb/remarkD.5 | privacy (approx), JDP |
| shuffle-lcb/lemB.4 | privacy (approx), amplification |
| shuffle-lcb/propF.1-ldp | privacy (approx), LDP |
| shuffle-lcb/propF.1-regret | regret upper bound |
| shuffle-lcb/remarkF.2 | regret upper bound |
| shuffle-lcb/propF.3-jdp | privacy (approx), JDP |
| shuffle-lcb/propF.3-regret | regret upper bound |
| shuffle-lcb/remarkF.4 | regret upper bound |
| shuffle-lcb/claimsecD | lower bound (cited) |
| shuffle-lcb/claimsec6a | lower bound (cited) |
| shuffle-lcb/claimsec6b | lower bound (cited conjecture) |
| shuffle-lcb/claimsec6c | structural |
| shuffle-lcb/claimsec6d | communication |
| shuffle-lcb/claimsec6e | structural |
| shuffle-lcb/fig1 | empirical |
| shuffle-lcb/fig2 | empirical |
| shuffle-lcb/claimsec5 | empirical |
"""


def spec_rows(kinds=("regret", "lower bound", "empirical")) -> list[str]:
    """The table's ids (without aliases) whose type is one of ``kinds``."""
    rows = []
    for line in SPEC_TABLE.strip().splitlines():
        cid, kind = (cell.strip() for cell in line.strip("|").split("|"))
        if any(k in kind for k in kinds):
            rows.append(cid.split(" ")[0])
    return rows


def entries() -> list:
    return [e for e in suite.entries if isinstance(e, (RegretEntry, OrderEntry))]


def by_id(cid: str):
    return next(e for e in entries() if e.id == cid)


def quick(entry) -> dict:
    return entry.settings(RunContext(0, "quick", 0.001, np.random.SeedSequence(0)))


def paper(entry) -> dict:
    return entry.settings(RunContext(0, "paper", 0.001, np.random.SeedSequence(0)))


def test_entries_build_and_their_ids_parse():
    found = entries()
    assert len(found) == 55
    for entry in found:
        cid = parse_claim_id(entry.id)
        assert cid.suite == "shuffle-lcb" and cid.point
        assert entry.plan.statistical
        assert entry.expected == "not-refuted"
        if isinstance(entry, OrderEntry):
            assert set(entry.subject) == set(entry.claim.labels)
            continue
        subject = regret_subject(entry.subject, entry.environment, entry.claim, entry.params)
        if getattr(entry.claim, "variable", "T") == "T":
            assert subject.policy is not None
        else:  # every value of the rate's variable makes a policy (and its environment)
            for value in quick(entry)["values"]:
                policy, env = subject.at(value)
                assert policy.start is not None and env.dimension >= 3


def test_every_regret_lower_bound_and_empirical_row_is_encoded_or_left_out():
    docstring = regret.__doc__
    left_out = docstring.split("Left out (with why):")[1]
    encoded = {parse_claim_id(e.id.split("@")[0]).key for e in entries()}
    rows = spec_rows()
    assert len(rows) == 28  # the claims table's regret (22), lower-bound (3) and empirical (3) rows
    missing = []
    for cid in rows:
        name = cid.split("/")[1]
        if cid.casefold() not in encoded and not re.search(rf"\b{re.escape(name)}\b", left_out):
            missing.append(cid)
    assert not missing, f"rows neither encoded nor left out: {missing}"
    # every encoded id is listed in the docstring's Encoded part, and every suite id is in the table
    encoded_text = docstring.split("Left out (with why):")[0]
    for key in encoded:
        name = key.split("/")[1]
        assert re.search(rf"\b{re.escape(name)}\b", encoded_text, re.IGNORECASE), name
        assert key in {r.casefold() for r in spec_rows(("",))}


def test_rates_in_T_are_fitted_where_the_docstring_says():
    grid = np.unique(np.geomspace(500, 20_000, 14).astype(int))
    upper = grid[np.log(grid) >= 0.5 * (np.log(500) + np.log(20_000)) - 1e-12]
    assert upper[0] >= 3162 and len(upper) >= 6  # the auditor's fitted range has enough rounds
    batched = ["thm3.2-regret@T,eps10,B20", "remarkA.5@T,B20", "propF.1-regret@T,eps10,B20",
               "propF.3-regret@T,eps1,B20", "lemA.2-regret@sdp-amp,eps10,B20",
               "lemA.2-regret@sdp-amp,eps10,B20,proof", "lemA.2-regret@linucb,B20"]
    for cid in batched:
        entry = by_id(f"shuffle-lcb/{cid}")
        assert np.array_equal(quick(entry)["horizons"], grid) and quick(entry)["runs"] == 30
        assert np.array_equal(paper(entry)["horizons"], grid) and paper(entry)["runs"] == 50
    for cid, exponent in (("remark3.10@ldp,T,eps10", 0.75), ("remark3.10@jdp,T,eps1", 0.5)):
        entry = by_id(f"shuffle-lcb/{cid}")
        assert np.array_equal(quick(entry)["horizons"], np.unique(np.geomspace(250, 8000, 14).astype(int)))
        assert quick(entry)["runs"] == 20 and paper(entry)["runs"] == 50
        assert entry.claim == RegretRate(exponent, "T", log_power=1)
    assert by_id("shuffle-lcb/thm3.2-regret@T,eps10,B20").claim == RegretRate(0.75, "T", log_power=1)
    assert by_id("shuffle-lcb/thm3.2-regret@T,eps10,B20").params == {"eps": 10.0, "delta": 0.1, "B": 20}
    assert by_id("shuffle-lcb/propF.3-regret@T,eps1,B20").params["eps"] == 1.0


def test_rates_in_eps_and_their_batch_sizes():
    fig_span = [0.2, 0.4373, 0.9564, 2.0913, 4.5731, 10.0]
    unit = [0.1, 0.1585, 0.2512, 0.3981, 0.631, 1.0]
    expected = {  # id -> (exponent, values, quick T, quick runs)
        "thm3.2-regret@eps,B20": (-0.5, fig_span, 5000, 30), "cor3.3@eps,T5000": (-0.5, fig_span, 5000, 30),
        "corB.2-regret@eps,T5000": (-0.4, fig_span, 5000, 30), "corB.3-regret@eps,T5000": (-0.5, unit, 5000, 30),
        "thm3.5-regret@eps,B20": (-0.5, fig_span, 5000, 30), "remark3.6@eps,T5000": (-0.5, fig_span, 5000, 30),
        "corC.2-regret@eps,T5000": (-0.4, fig_span, 5000, 30), "propF.1-regret@eps,B20": (-0.5, unit, 5000, 30),
        "lem3.9-regret@sigma,B20": (-0.5, unit, 5000, 30), "remarkF.2@eps,T5000": (-0.5, unit, 5000, 30),
        "propF.3-regret@eps,B20": (-0.5, unit, 5000, 30), "remarkF.4@eps,T5000": (-0.5, unit, 5000, 30),
        "thmE.3-regret@eps,B20,T2000": (-0.5, fig_span, 2000, 20),
        "corE.4-regret@eps,T2000": (-1 / 3, fig_span, 2000, 20),
        "thmE.5-regret@eps,B20,T2000": (-0.5, fig_span, 2000, 20),
        "corE.6-regret@eps,T2000": (-1 / 3, fig_span, 2000, 20),
        "prop4.3-regret@eps,M013,T2000": (-0.5, fig_span, 2000, 20),
    }
    for cid, (exponent, values, T, runs) in expected.items():
        entry = by_id(f"shuffle-lcb/{cid}")
        settings = quick(entry)
        assert entry.claim == RegretRate(exponent, "eps"), cid
        assert np.allclose(settings["values"], values, rtol=1e-3), cid
        assert int(np.atleast_1d(settings["horizons"])[-1]) == T and settings["runs"] == runs, cid
        assert paper(entry)["runs"] == 50
        fixed_B = "B20" in cid and "T2000" not in cid  # an algorithm that does not depend on T grows to the paper's
        assert int(np.atleast_1d(paper(entry)["horizons"])[-1]) == (20_000 if fixed_B else T), cid
    rate_d = by_id("shuffle-lcb/thm3.2-regret@d,eps10,B20")
    assert rate_d.claim == RegretRate(0.75, "d") and quick(rate_d)["values"] == [3, 4, 6, 8, 12, 16]

    # the batch sizes the docstring states (O(.) constant 1, rounded up), and that every one fits
    assert regret.cor3_3_batch(5000) == 166 and regret.remarkF2_batch(5000) == 595 and regret.remarkF4_batch(5000) == 71
    for rule, T, values in ((regret.corB2_batch, 5000, fig_span), (regret.corB3_batch, 5000, unit),
                            (regret.corC2_batch, 5000, fig_span), (regret.corE4_batch, 2000, fig_span),
                            (regret.corE6_batch, 2000, fig_span)):
        sizes = [rule(v, T) for v in values]
        assert all(1 < b < T for b in sizes) and sizes == sorted(sizes, reverse=True)  # B falls as eps grows
    # returning users: every tuned B is at most the number of users (Assumption E.1 on the cyclic schedule)
    assert max(regret.corE4_batch(0.2, 2000), regret.corE6_batch(0.2, 2000)) <= regret.RETURNING_USERS == 800
    assert regret.USER_LEVEL_M0 == 13 == math.ceil(2000 / 160)
    # the policies per value take those sizes
    entry = by_id("shuffle-lcb/corB.2-regret@eps,T5000")
    assert entry.subject(0.2).B == regret.corB2_batch(0.2, 5000)
    assert by_id("shuffle-lcb/remark3.6@eps,T5000").subject(1.0).B == 166


def test_lemma_a2_bounds_are_vacuous_at_the_audited_rounds():
    grid = np.unique(np.geomspace(500, 20_000, 14).astype(int))
    for cid in ("lemA.2-regret@sdp-amp,eps10,B20", "lemA.2-regret@linucb,B20"):
        claim = by_id(f"shuffle-lcb/{cid}").claim
        assert isinstance(claim, RegretBound) and claim.probability == pytest.approx(1 / 20_000)
        assert (claim.evaluate(grid) > grid).all()
    assert by_id("shuffle-lcb/lemA.2-regret@sdp-amp,eps10,B20,proof").claim.probability == pytest.approx(2 / 20_000)
    # the constants are the algorithm's: non-private lambda = 1, nu = 0; P_Amp's from Lemma A.4 (lambda = 2 lam_min)
    assert regret.regularity("linucb", (("B", 20),), 3, 20_000) == (1.0, 1.0, 0.0, 1 / 20_000, 20)
    lam_min, lam_max, nu, alpha, B = regret.regularity("linucb-sdp-amp", (("B", 20), ("delta", 0.1), ("eps", 10.0)),
                                                       3, 20_000)
    assert lam_max == pytest.approx(3 * lam_min) and nu > 0 and alpha == 1 / 20_000 and B == 20


def test_figures_follow_the_presets():
    for eps in figures.EPSILONS:
        entry = by_id(f"shuffle-lcb/fig1@eps{eps:g}")
        assert entry.claim == RegretOrder(figures.ORDERING)
        assert entry.subject == {c.label: (c.algorithm, dict(c.kwargs)) for c in figures.curves(eps)}
        assert entry.environment.dimension == 5 and entry.environment.arms == figures.ARMS
    for d in figures.DIMENSIONS:
        entry = by_id(f"shuffle-lcb/fig2@d{d}")
        assert entry.claim == RegretOrder(figures.ORDERING) and entry.environment.dimension == d
    for entry in (e for e in entries() if isinstance(e, OrderEntry)):
        assert int(np.atleast_1d(quick(entry)["horizons"])[-1]) == 2000 and quick(entry)["runs"] == 20
        assert int(np.atleast_1d(paper(entry)["horizons"])[-1]) == figures.HORIZON
        assert paper(entry)["runs"] == figures.RUNS
    # the gap orderings: one private algorithm each, eps from 10 (smallest gap) to 0.2
    claim = by_id("shuffle-lcb/claimsec5@sdp-vec").claim
    assert claim.labels == tuple(f"LinUCB-SDP-Vec - LinUCB (eps = {e:g})" for e in (10, 1, 0.2))
    gap = by_id("shuffle-lcb/fig1@gap,ldp").subject["LinUCB-LDP - LinUCB (eps = 0.2)"]
    assert gap.minuend == ("linucb-ldp", {"eps": 0.2, "delta": 0.1}) and gap.subtrahend == ("linucb", {})


CHEAP = ["remarkA.5@T,B20", "lemA.2-regret@linucb,B20", "propF.3-regret@T,eps1,B20", "remarkF.2@eps,T5000"]


@pytest.mark.slow
@pytest.mark.parametrize("cid", CHEAP)
def test_cheap_entries_reach_their_expected_verdict(cid):
    entry = by_id(f"shuffle-lcb/{cid}")
    finding = audit_in_a_run(entry, suite)
    assert as_expected(entry, finding.verdict), finding.notes


def test_tuned_batch_rebuilds_its_algorithm_with_b_of_each_horizon():
    """TunedBatch: B = rule(T) at every start, horizon-aware (so each recorded T is its own run), and the same
    decisions as the registry algorithm built with that B on the same stream."""
    from dpaudit.algorithms import ALGORITHMS
    from dpaudit.audits.shuffle_lcb.tuned import TunedBatch
    from dpaudit.bandits.policies import horizon_use
    from dpaudit.bandits.simulation import simulate

    tuned = TunedBatch("batched-central-linucb", regret.remarkF4_batch, "ceil(sqrt T)", eps=1.0, delta=0.1)
    assert horizon_use(tuned)[0] is False and "B=ceil(sqrt T)" in tuned.name
    for T in (100, 400, 1000):
        tuned.start(2, 10, T, np.random.default_rng(0))
        assert tuned.B == math.ceil(math.sqrt(T))
    plain = ALGORITHMS["batched-central-linucb"](eps=1.0, delta=0.1, B=20)
    a = simulate(tuned, regret.RATE_ENV, horizon=400, runs=3, seed=5)
    b = simulate(plain, regret.RATE_ENV, horizon=400, runs=3, seed=5)
    assert np.array_equal(a.pseudo_regret, b.pseudo_regret)  # B(400) = 20: the same algorithm, the same runs
    with pytest.raises(ValueError, match="B is the rule's"):
        TunedBatch("batched-central-linucb", regret.remarkF4_batch, "x", eps=1.0, delta=0.1, B=3)
    with pytest.raises(ValueError, match="unknown algorithm"):
        TunedBatch("no-such", regret.remarkF4_batch, "x")


def test_rates_in_b_d_and_tuned_t_run_from_the_standard_budget():
    wider = {"remarkF.4@T,eps1,B-tuned": RegretRate(0.5, "T", log_power=1),
             "cor3.3@T,eps10,B-tuned": RegretRate(0.6, "T", log_power=1),
             "corB.2-regret@T,eps10,B-tuned": RegretRate(0.6, "T", log_power=1),
             "lem3.9-regret@B,eps10,T5000": RegretRate(1.0, "B"), "remarkA.5@B,T5000": RegretRate(1.0, "B"),
             "propF.3-regret@B,eps1,T5000": RegretRate(1.0, "B"),
             "lem3.9-regret@d,eps10,B20,T5000": RegretRate(1.0, "d"), "remarkA.5@d,B20,T5000": RegretRate(1.0, "d"),
             "propF.3-regret@d,eps1,B20,T5000": RegretRate(1.0, "d"),
             "thmE.3-regret@B,eps1,T2000": RegretRate(1.0, "B"), "thmE.5-regret@B,eps1,T2000": RegretRate(1.0, "B"),
             "thmE.3-regret@d,eps1,B20,T2000": RegretRate(1.0, "d"),
             "thmE.5-regret@d,eps1,B20,T2000": RegretRate(1.0, "d"),
             "remark3.10@ldp,eps,T2000": RegretRate(-0.5, "eps"), "remark3.10@jdp,eps,T2000": RegretRate(-0.5, "eps")}
    for cid, claim in wider.items():
        entry = by_id(f"shuffle-lcb/{cid}")
        assert entry.claim == claim and "quick" not in entry.budgets and "standard" in entry.budgets, cid
    assert by_id("shuffle-lcb/remarkA.5@B,T5000").subject(40).B == 40
    assert by_id("shuffle-lcb/propF.3-regret@d,eps1,B20,T5000").subject(6)[1].dimension == 6
    policy, env = by_id("shuffle-lcb/thmE.3-regret@d,eps1,B20,T2000").subject(8)
    assert env.dimension == 8 and env.users == regret.RETURNING_USERS and policy.B == 20


def test_remark_f4s_tuned_t_rate_holds_on_a_short_grid():
    """The entry's policy on T in [500, 20000] with 10 runs (a third of the entry's): not refuted (fitted 0.50, log T
    divided out). The regret auditor's level is 0.99: false-refutation rate at most 0.01."""
    from dpaudit import audit_regret

    entry = by_id("shuffle-lcb/remarkF.4@T,eps1,B-tuned")
    result = audit_regret(entry.subject, regret.RATE_ENV, entry.claim, horizons=regret.T_GRID, runs=10, seed=0)
    assert result.verdict == "not-refuted" and 0.4 < result.statistic.value < 0.6
