"""The lower-bound auditor and private-online's Theorem 10 entries.

Proof steps are exact (no false failures). The simulated checks are seeded; each states its
false-failure rate: a true bound is refuted with probability at most 1 - confidence (rigorous
Hoeffding / empirical Bernstein / Clopper-Pearson bounds), and the wrong bounds below sit at several
times the algorithms' measured regret or error, so their refutation fails with probability far below
1e-6 at the runs used. The validity tests at the boundary (a bound equal to the algorithms' regret)
draw the regret from known laws (tests/regret_laws.py) and repeat the audit on disjoint groups of runs.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from regret_laws import GAP, LawPolicy, coin, simulate_law
from scipy import stats

import dpaudit
from dpaudit import LowerBound, ProofStep
from dpaudit.auditors.lower_bound import Contender, LowerBoundAuditor, LowerBoundSubject, evaluate_step, mean_upper
from dpaudit.audits import private_online as po
from dpaudit.core.errors import InvalidClaim, UnsupportedAudit
from dpaudit.suite import LowerBoundEntry, load_suites

POINT = po._thm10_point(4, 0.1, 14)


def _claim(bound=None, steps=po.THM10_STEPS, quantity="regret", **kwargs):
    base = {"statement": "test", "parameters": POINT, "algorithm_class": po.DTOL_CLASS, "instance": po.thm10_instance,
            "steps": steps, "conditions": po.THM10_CONDITIONS, "quantity": quantity}
    if bound is not None:
        base.update(bound=lambda p: bound, bound_text=f"{bound:g}")
    return LowerBound(**{**base, **kwargs})


def test_claim_validation_and_record():
    with pytest.raises(InvalidClaim, match="statement"):
        LowerBound("", {})
    with pytest.raises(InvalidClaim, match="bound, proof steps"):
        LowerBound("x", {"K": 2})
    with pytest.raises(InvalidClaim, match="event"):
        LowerBound("x", {"K": 2}, instance=po.thm10_instance, bound=lambda p: 0.2, quantity="error")
    d = po.thm10_claim(POINT).to_dict()
    assert d["kind"] == "lower-bound" and d["bound"] == "0.0098 ln K / eps"
    assert d["bound_value"] == pytest.approx(0.0098 * math.log(4) / 0.1)
    assert [s["name"] for s in d["steps"]][0] == "packing (claimsecH.a)"


def test_true_proof_steps_hold():
    """Every step of Appendix H holds at both suite points (some with equality, left not refuted)."""
    for K, eps, m in [(4, 0.1, 14), (8, 0.5, 8), (3, 1.0, 5)]:
        p = po._thm10_point(K, eps, m)
        statuses = {s.name: evaluate_step(s, p)["status"] for s in po.THM10_STEPS}
        assert "fails" not in statuses.values(), statuses
        assert statuses["packing (claimsecH.a)"] == "holds"
        assert statuses["TV = Delta (footnote 5)"] == "tight"
    res = dpaudit.audit_lower_bound(_claim(), None)
    assert res.verdict == "not-refuted" and res.confidence == 1.0


def test_wrong_proof_step_is_refuted_with_witness():
    """TV claimed >= 10 Delta (ten times too large) on the packing: refuted exactly, both sides shown."""
    wrong = ProofStep("TV >= 10 Delta", "TV(P_i, P_j) >= 10 Delta", lambda p: po._packing(p)[:1]
                      + (10 * p["Delta"], po._packing(p)[2]))
    res = dpaudit.audit_lower_bound(_claim(steps=(wrong,)), None)
    assert res.verdict == "refuted" and res.confidence == 1.0
    assert res.witness["step"] == "TV >= 10 Delta"
    assert res.witness["lhs"] == pytest.approx(POINT["Delta"])
    assert res.witness["rhs"] == pytest.approx(10 * POINT["Delta"])
    assert set(res.witness["at"]) == {"i", "j"}


def test_asz_inequality_is_refuted_and_its_fix_is_not():
    suite = load_suites()["private-online"]
    entries = {e.id: e for e in suite.entries}
    asz = dpaudit.audit_lower_bound(entries["private-online/claimsecH.b@asz"].claim)
    assert asz.verdict == "refuted" and asz.witness["lhs"] < asz.witness["rhs"]
    fix = dpaudit.audit_lower_bound(entries["private-online/claimsecH.b@fix"].claim)
    assert fix.verdict == "not-refuted"  # equality at x = y


def test_conditions_outside_the_theorem_are_an_error():
    p = {**POINT, "T": 3}
    with pytest.raises(UnsupportedAudit, match="hypotheses"):
        dpaudit.audit_lower_bound(po.thm10_claim(p), None)


def _contenders():
    return po.thm10_contenders(POINT["eps"])


def test_true_regret_bound_is_not_refuted():
    # false-failure rate <= 0.01 (the confidence); seeded, so deterministic
    res = dpaudit.audit_lower_bound(po.thm10_claim(POINT), _contenders(), runs=400, seed=1)
    assert res.verdict == "not-refuted"
    algs = res.parameters["algorithms"]
    assert len(algs) == 3 and not any(a["beats_bound"] for a in algs)
    assert algs[2]["parameters"]["eps"] == pytest.approx(0.2)  # FTNL as printed, held at 2 eps
    assert algs[2]["bound"] == pytest.approx(algs[0]["bound"] / 2)
    assert res.statistic.value > 1


def test_wrong_regret_bound_that_an_algorithm_beats_is_refuted():
    """Regret >= 5 at T = 14 (the FTNL variants' worst-member mean regret is about 1.07): refuted, and
    the record says that either the algorithm's privacy or the bound is wrong."""
    res = dpaudit.audit_lower_bound(_claim(bound=5.0), _contenders(), runs=400, seed=1)
    assert res.verdict == "refuted"
    assert res.witness["algorithm"] in {"ftnl(noise_scale=2/eps)", "naive-ftnl", "ftnl (as printed, held at 2 eps)"}
    assert any("either its privacy or the bound is wrong" in n for n in res.notes)
    assert res.statistic.value < 1


def test_wrong_error_bound_is_refuted_and_true_one_not():
    """eq. 58's error at n = m* is about 0.77 for the FTNL variants; a claimed 0.95 is refuted."""
    true = dpaudit.audit_lower_bound(po.eq58_claim(POINT), _contenders(), runs=400, seed=2)
    assert true.verdict == "not-refuted"  # false-failure rate <= 0.01
    wrong = po.eq58_claim(POINT)
    wrong = LowerBound(wrong.statement, wrong.parameters, wrong.algorithm_class, wrong.instance, lambda p: 0.95,
                       "0.95", "error", wrong.horizon, wrong.event, wrong.event_text)
    res = dpaudit.audit_lower_bound(wrong, _contenders(), runs=400, seed=2)
    assert res.verdict == "refuted"
    assert res.witness["members"][0]["method"] == "clopper-pearson"


def test_an_algorithm_outside_the_class_never_refutes():
    ftl = dpaudit.algorithms.ALGORITHMS["ftl"]()
    contender = Contender(ftl, "ftl", in_class=False, privacy="not private")
    res = dpaudit.audit_lower_bound(_claim(bound=5.0), [contender], runs=200, seed=0)
    assert res.verdict == "not-refuted"
    assert res.parameters["algorithms"][0]["beats_bound"]
    assert any("outside the class" in n for n in res.notes)


@dataclasses.dataclass(frozen=True)
class Member:
    """A member of a hard instance for algorithms whose regret is drawn from a law: on it, the regret of
    the algorithm named c at the horizon is coin(q) on the stream (c, index): T gap with probability q,
    else 0, independently of the other algorithms' and members'."""

    q: float
    index: int


def simulate_on_member(policy, environment, horizon, runs, seed=None, grid=None, **_):
    law = coin(environment.q, int(policy.name), environment.index)
    return simulate_law(LawPolicy(policy.name, law), environment, horizon, runs, seed, grid=grid)


def limit(m: int, alpha: float) -> float:
    """The most refutations of a true claim in m repetitions that a valid auditor allows: P(Binomial(m,
    alpha) > limit) <= 1e-6."""
    return stats.binom.isf(1e-6, m, alpha)


def _law_refutations(share, members, algorithms, repetitions, alpha=0.25, runs=200):
    """Audits of "E[R_T] >= share T gap on some member" (T = 1000) held against ``algorithms`` whose
    regret is drawn from coin(q) on each member q of ``members``: how many of ``repetitions`` refute."""
    claim = LowerBound("E[R_T] >= share T gap for some member", {"T": 1000}, "the algorithms of the class",
                       lambda p: [Member(q, j) for j, q in enumerate(members)], lambda p: share * GAP * p["T"],
                       f"{share} T gap")
    subject = LowerBoundSubject(tuple(Contender(LawPolicy(str(c)), f"algorithm {c}", in_class=True,
                                                privacy="of the class by construction") for c in range(algorithms)))
    return sum(LowerBoundAuditor().audit(subject, claim, confidence=1 - alpha, seed=np.random.SeedSequence(group),
                                         runs=runs).verdict == "refuted" for group in range(repetitions))


def test_a_lower_bound_equal_to_the_regret_is_refuted_at_most_alpha_often(monkeypatch):
    """A bound met with equality: 100 algorithms of the class, each with expected regret exactly the
    bound, T gap / 2, on the hard instance (its regret is T gap or 0 with probability 1/2 each: the law on
    which Hoeffding's bound is tightest). Each algorithm's regret is independent of the others' (own
    streams), so the 100 chances to "beat" the bound add up unless the level is split over the
    algorithms. 200 runs, 40 repetitions at alpha = 0.25: at most limit(40, 0.25) = 24 refutations. The
    rates, computed exactly from the binomial law of the count of high runs: 0.014 with the split (the
    assertion fails with probability 3e-36), 0.87 without it (it then holds with probability 2e-5); an
    upper bound without its concentration term, with Hoeffding's deviation halved or at the wrong tail
    refutes in 1, 0.98 and 1. Power: a bound of 0.7 T gap is beaten in each of 5 groups (exact rate 1)."""
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    assert _law_refutations(0.5, [0.5], 100, 40) <= limit(40, 0.25)
    assert _law_refutations(0.7, [0.5], 100, 5) == 5


def test_a_lower_bound_is_beaten_only_on_every_member(monkeypatch):
    """The bound T gap / 2 is exactly one algorithm's regret on the worse member of the instance, and
    its regret on the other member is half of it: the bound holds (for the worst member), and an
    algorithm beats it only if its upper bound is below it on every member. 20 repetitions at alpha = 0.25:
    at most limit(20, 0.25) = 15 refutations; the exact rate is 0.020 (failure 3e-24), and an auditor that
    takes the best member instead of the worst refutes in every one."""
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    assert _law_refutations(0.5, [0.5, 0.25], 1, 20) <= limit(20, 0.25)


def test_mean_upper_covers():
    """Hoeffding / empirical Bernstein upper bounds at level 0.05 cover the mean of a scaled Bernoulli(0.1)
    in >= 95% of 2000 seeded repetitions (expected about 100%; failure of this test below 1e-9)."""
    rng = np.random.default_rng(0)
    draws = 3.0 * (rng.random((2000, 60)) < 0.1)
    covered = np.mean([mean_upper(row, 3.0, 0.05)[0] >= 0.3 for row in draws])
    assert covered >= 0.95


def test_suite_entries_run():
    suite = load_suites()["private-online"]
    ids = [e.id for e in suite.entries if isinstance(e, LowerBoundEntry)]
    assert "private-online/thm10@K4,eps0.1,m14" in ids and len(ids) == 8
    entry = next(e for e in suite.entries if e.id == "private-online/claimsecH.c@K8,eps0.5,m8")
    assert entry.statistical and entry.subject_name.startswith("ftnl")
    assert not next(e for e in suite.entries if e.id == "private-online/claimsecH.b@fix").statistical


def _step(relation, lhs, rhs, where=None):
    sides = (lambda p: (lhs, rhs)) if where is None else (lambda p: (lhs, rhs, where))
    return ProofStep(f"a {relation} step", f"lhs {relation} rhs", sides, relation)


@pytest.mark.parametrize("relation, margin", [(">=", lambda x, y: x - y), (">", lambda x, y: x - y),
                                              ("<=", lambda x, y: y - x), ("<", lambda x, y: y - x),
                                              ("==", lambda x, y: -abs(x - y))])
def test_a_proof_step_reports_its_worst_point_with_both_sides(relation, margin):
    """Each relation's margin (lhs - rhs for >=, rhs - lhs for <=, -|lhs - rhs| for ==) at every point
    of a grid, written out by hand: the worst point, its sides and coordinates, the count of points and
    of failing points, and the status (a margin within the relative tolerance of 0 is tight)."""
    lhs = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    rhs = np.array([[1.5, 2.0, 2.0], [4.0, 7.0, 1.0]])
    where = {"n": np.array([[1, 2, 3], [4, 5, 6]]), "eps": 0.5}
    found = evaluate_step(_step(relation, lhs, rhs, where), {})
    margins = np.array([[margin(a, b) for a, b in zip(ra, rb)] for ra, rb in zip(lhs, rhs)])
    failing = margins < -1e-12 * np.maximum(np.abs(lhs), np.abs(rhs))
    worst = np.unravel_index(int(np.argmin(np.where(failing, margins, np.inf)) if failing.any()
                                 else np.argmin(margins)), margins.shape)
    assert found["margin"] == margins[worst] and found["lhs"] == lhs[worst] and found["rhs"] == rhs[worst]
    assert found["points"] == 6 and found["failing_points"] == int(failing.sum())
    assert found["at"] == {"n": int(where["n"][worst]), "eps": 0.5} and type(found["at"]["n"]) is int
    assert found["status"] == ("fails" if failing.any() else "tight")
    assert found["relation"] == relation and found["statement"] == f"lhs {relation} rhs"


def test_a_proof_step_is_tight_within_its_tolerance_and_holds_beyond_it():
    """The default tolerance, 1e-12 relative, and a given one."""
    assert evaluate_step(_step(">=", 1.0 + 5e-13, 1.0), {})["status"] == "tight"
    assert evaluate_step(_step(">=", 1.0 - 5e-13, 1.0), {})["status"] == "tight"
    assert evaluate_step(_step(">=", 1.0 - 2e-12, 1.0), {})["status"] == "fails"
    assert evaluate_step(_step(">=", 1.0 + 2e-12, 1.0), {})["status"] == "holds"
    assert evaluate_step(_step(">=", 1.0, 1.0 + 1e-6), {}, tolerance=1e-5)["status"] == "tight"
    assert evaluate_step(_step(">=", 1.0, 1.0 + 1e-6), {}, tolerance=1e-7)["status"] == "fails"
    assert evaluate_step(_step("==", 2.0, 2.0 + 1e-12), {})["status"] == "tight"
    assert evaluate_step(_step("==", 2.0, 2.0 + 1e-9), {})["status"] == "fails"
    assert evaluate_step(_step("<=", -3.0, -3.0), {})["status"] == "tight"
    for bad in ((1.0, math.inf), (math.nan, 1.0)):
        with pytest.raises(ValueError, match="not finite"):
            evaluate_step(_step(">=", *bad), {})
    with pytest.raises(ValueError, match=r"sides must return \(lhs, rhs\)"):
        evaluate_step(ProofStep("one side", "x", lambda p: (1.0,)), {})
    with pytest.raises(ValueError, match=r"sides must return \(lhs, rhs\)"):
        evaluate_step(ProofStep("a list", "x", lambda p: [1.0, 2.0]), {})


def test_the_level_is_split_over_the_algorithms_of_the_class(monkeypatch):
    """Bonferroni over the algorithms that can refute (in the class): each is held at (1 - confidence) / m."""
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    claim = LowerBound("E[R_T] >= T gap / 2", {"T": 1000}, "the algorithms of the class",
                       lambda p: [Member(0.5, 0)], lambda p: 0.5 * GAP * p["T"], "T gap / 2")
    for in_class in ((True, True, None), (True, False, False), (False,)):
        subject = LowerBoundSubject(tuple(Contender(LawPolicy(str(c)), f"algorithm {c}", in_class=k, privacy="x")
                                          for c, k in enumerate(in_class)))
        found = LowerBoundAuditor().audit(subject, claim, confidence=0.9, seed=np.random.SeedSequence(1), runs=50)
        m = max(1, sum(k is not False for k in in_class))
        assert found.parameters["level_per_algorithm"] == pytest.approx(0.1 / m, rel=1e-12)
        assert found.parameters["runs"] == 50 and found.parameters["members"] == 1


def test_algorithms_become_contenders_with_their_labels():
    """A mapping labels its policies and unlabelled contenders (keeping each contender's class, privacy
    and parameters); a sequence keeps them as given; anything without the policy protocol is an error."""
    from dpaudit.auditors.lower_bound import as_subject

    policy = LawPolicy("p")
    bare = Contender(policy, "", in_class=False, privacy="eps-DP", parameters={"eps": 1.0})
    named = Contender(policy, "kept", in_class=True, privacy="none")
    subject = as_subject({"first": policy, "second": bare, "third": named})
    assert [c.label for c in subject.contenders] == ["first", "second", "kept"]
    second = subject.contenders[1]
    assert (second.policy, second.in_class, second.privacy, second.parameters) == (policy, False, "eps-DP",
                                                                                  {"eps": 1.0})
    assert subject.contenders[2] is named and subject.contenders[0].policy is policy
    listed = as_subject([policy, bare])
    assert [c.label for c in listed.contenders] == ["", ""] and listed.contenders[1] is bare
    assert listed.contenders[0].policy is policy and listed.contenders[0].name == "p"
    assert as_subject(None).contenders == () and as_subject(subject) is subject
    with pytest.raises(TypeError, match=r"does not follow the policy protocol \(start, choose, observe\)"):
        as_subject({"x": object()})


def test_a_lower_bound_finding_is_recomputed_from_the_runs_it_read(monkeypatch):
    """Five algorithms against "E[R_T] >= share T gap on some member" (T = 1000, share = 0.5, members q = 0.1
    and 0.2, regret T gap with probability q): one in the class, one whose privacy was not verified, two
    outside the class (one saying why, one not), and one of the class held at share = 1/30, a bound below
    its regret. Each member's upper bound is mean_upper at the level split over the three that can refute;
    the first four beat the bound, the refutation names the one in the class with the smallest ratio, and
    the readings say, word for word, why each counts or not. Deterministic."""
    from regret_laws import GAP as gap

    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    members = [0.1, 0.2]
    claim = LowerBound("E[R_T] >= share T gap for some member", {"T": 1000, "share": 0.5},
                       "the algorithms of the class", lambda p: [Member(q, j) for j, q in enumerate(members)],
                       lambda p: p["share"] * gap * p["T"], "share T gap")
    contenders = (Contender(LawPolicy("0"), "in", in_class=True, privacy="verified by entry x"),
                  Contender(LawPolicy("1"), "unknown"),
                  Contender(LawPolicy("2"), "outside", in_class=False, privacy="not private"),
                  Contender(LawPolicy("3"), "outside, unstated", in_class=False),
                  Contender(LawPolicy("4"), "held low", in_class=True, privacy="held at a smaller share",
                            parameters={"share": 1 / 30, "variant": "as printed"}))
    found = LowerBoundAuditor().audit(LowerBoundSubject(contenders), claim, confidence=0.9,
                                      seed=np.random.SeedSequence(4), runs=300)
    level = 0.1 / 3
    bounds = [0.5 * gap * 1000] * 4 + [gap * 1000 / 30]
    seeds = np.random.SeedSequence(4).spawn(2)
    records = found.parameters["algorithms"]
    assert found.parameters["level_per_algorithm"] == pytest.approx(level) and found.parameters["members"] == 2
    for c, r, bound in zip(contenders, records, bounds):
        assert r["algorithm"] == c.name and r["bound"] == pytest.approx(bound) and r["horizon"] == 1000
        assert r["parameters"] == {"T": 1000, "share": 0.5, **c.parameters}
        assert r["in_class"] is c.in_class and r["privacy"] == c.privacy
        for j, (q, m) in enumerate(zip(members, r["members"])):
            values = coin(q, int(c.policy.name), j)(np.array([1000.0]), 300, seeds[j].entropy)[:, -1]
            upper, method = mean_upper(values, 1000 * gap, level)
            assert m == {"member": j, "mean": pytest.approx(values.mean()), "upper": pytest.approx(upper),
                         "method": method, "range": [0.0, pytest.approx(1000 * gap)],
                         "standard_error": pytest.approx(values.std(ddof=1) / math.sqrt(300))}
        # the largest regret the same on both members that would be seen beating the bound with probability 0.9:
        # each member's upper bound, its radius above the mean, below the bound with probability 1 - 0.1 / 2
        z = stats.norm.ppf(1 - 0.1 / 2)
        assert r["largest_beating"] == pytest.approx(min(bound - (m["upper"] - m["mean"]) - z * m["standard_error"]
                                                         for m in r["members"]))
        worst = max(r["members"], key=lambda m: m["upper"])
        assert r["max_upper"] == worst["upper"] and r["ratio"] == pytest.approx(worst["upper"] / bound)
        assert r["max_mean"] == max(m["mean"] for m in r["members"])
        assert r["beats_bound"] is (c.name != "held low")
    beaten = [f"({r['max_upper']:.4g} < {r['bound']:.4g} at every member)" for r in records]
    low = records[4]
    assert [r["reading"] for r in records] == [
        f"in at the claim point beats the bound {beaten[0]} and its privacy was verified (verified by entry x): "
        "the bound is wrong",
        f"unknown at the claim point beats the bound {beaten[1]}: either its privacy or the bound is wrong; its "
        "privacy was not verified here (nothing checked)",
        f"outside at the claim point beats the bound {beaten[2]}, but it lies outside the class (not private): no "
        "refutation",
        f"outside, unstated at the claim point beats the bound {beaten[3]}, but it lies outside the class (stated "
        "by the entry): no refutation",
        f"held low at share=0.0333333, variant=as printed: max over members of the regret {low['max_mean']:.4g} "
        f"(upper bound {low['max_upper']:.4g}) against the bound {low['bound']:.4g}: not beaten"]
    assert found.notes == [r["reading"] for r in records]
    in_class = min(records[:2], key=lambda r: r["ratio"])
    assert found.verdict == "refuted" and found.auditor == "lower-bound"
    assert found.witness == {"algorithm": in_class["algorithm"], "parameters": {"T": 1000, "share": 0.5},
                             "bound": pytest.approx(bounds[0]), "horizon": 1000, "members": in_class["members"],
                             "privacy": in_class["privacy"], "in_class": in_class["in_class"],
                             "level": pytest.approx(level)}
    assert found.statistic.name == ("least over algorithms of max over members of the regret / the bound (< 1: "
                                    "beaten)")
    assert found.statistic.value == pytest.approx(in_class["max_mean"] / bounds[0])
    assert found.statistic.interval == (-np.inf, pytest.approx(in_class["ratio"]))
    assert found.statistic.kind == "upper-bound" and found.samples == 300 * 2 * 5 and found.confidence == 0.9
    # the seeds: the members' runs come from spawned streams of the audit's seed, the same for every algorithm
    again = LowerBoundAuditor().audit(LowerBoundSubject(contenders), claim, confidence=0.9, seed=4, runs=300)
    assert again.parameters["algorithms"] == records
    # algorithms outside the class only: nothing can refute, and there is no ratio to report
    outside = LowerBoundAuditor().audit(LowerBoundSubject(contenders[2:4]), claim, confidence=0.9, seed=4, runs=300)
    assert outside.verdict == "not-refuted" and outside.witness == {}
    assert outside.parameters["level_per_algorithm"] == pytest.approx(0.1)
    assert outside.statistic == dpaudit.core.results.Statistic("max over members of the regret / the bound", None)
    assert outside.auditor == "lower-bound"


def test_a_proof_step_finding_reports_the_worst_failing_step_and_the_tight_ones():
    """Steps only (no algorithms): the finding names the failing step with the smallest margin, with its
    coordinates, says which steps hold only to rounding, and its statistic is the least margin."""
    where = {"n": np.array([1, 2, 3])}
    steps = (ProofStep("loose", "a >= b", lambda p: (np.array([5.0, 6.0, 7.0]), np.array([1.0, 1.0, 1.0]))),
             ProofStep("bad", "c >= d", lambda p: (np.array([1.0, 0.5, 2.0]), np.array([1.0, 1.0, 1.0]), where)),
             ProofStep("worse", "e <= f", lambda p: (3.0, 1.0), "<="),
             ProofStep("tight", "g == h", lambda p: (2.0, 2.0), "=="))
    claim = LowerBound("steps", {"K": 2}, steps=steps)
    found = LowerBoundAuditor().audit(LowerBoundSubject(()), claim, confidence=None)
    assert found.verdict == "refuted" and found.confidence == 1.0 and found.auditor == "lower-bound"
    assert found.statistic.name == "least proof-step margin" and found.statistic.value == -2.0
    assert found.witness == {"step": "worse", "statement": "e <= f", "parameters": {"K": 2}, "at": {},
                             "lhs": 3.0, "relation": "<=", "rhs": 1.0}
    assert [s["name"] for s in found.parameters["steps"]] == ["loose", "bad", "worse", "tight"]
    assert found.parameters["conditions"] == []
    assert found.notes == [
        "proof step 'tight' holds with equality to within rounding (2 == 2): floats cannot prove it, so it is left "
        "not refuted",
        "proof step 'worse' fails at {'K': 2}: 3 <= 1 is false"]
    only_bad = LowerBoundAuditor().audit(LowerBoundSubject(()), LowerBound("steps", {"K": 2}, steps=steps[:2]),
                                         confidence=None)
    assert only_bad.witness["at"] == {"n": 2} and only_bad.notes == ["proof step 'bad' fails at {'K': 2} {'n': 2}: "
                                                                       "0.5 >= 1 is false"]
    held = LowerBoundAuditor().audit(LowerBoundSubject(()), LowerBound("steps", {"K": 2}, steps=steps[3:]),
                                     confidence=None)
    assert held.verdict == "not-refuted" and held.witness == {} and held.statistic.value == 0.0
    proved = LowerBoundAuditor().audit(LowerBoundSubject(()), LowerBound("steps", {"K": 2}, steps=steps[:1]),
                                       confidence=None)
    assert proved.verdict == "verified" and proved.statistic.value == 4.0 and proved.notes == []


def test_a_lower_bound_with_algorithms_needs_a_level_and_an_instance(monkeypatch):
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    subject = LowerBoundSubject((Contender(LawPolicy("0"), "a", in_class=True),))

    def claim(members):
        return LowerBound("E[R_T] >= T gap / 2", {"T": 100}, "the class", lambda p: members,
                          lambda p: 0.5 * GAP * p["T"], "T gap / 2")

    with pytest.raises(ValueError, match="^the lower-bound auditor needs a confidence level to simulate algorithms$"):
        LowerBoundAuditor().audit(subject, claim([Member(0.5, 0)]), confidence=None)
    with pytest.raises(ValueError, match="^the claim's instance has no members$"):
        LowerBoundAuditor().audit(subject, claim([]), confidence=0.9)
    found = LowerBoundAuditor().audit(subject, claim([Member(0.5, 0)]), confidence=0.9, runs=50, seed=1)
    assert found.statistic.name == ("least over algorithms of max over members of the regret / the bound (< 1: "
                                    "beaten)")
    assert found.plot_data["kind"] == "lower-bound"


def test_mean_upper_is_the_bounded_mean_bound_on_the_complements():
    from dpaudit.stats import bounded_mean_lower

    rng = np.random.default_rng(3)
    methods = set()
    for values, width in ((3.0 * (rng.random(2000) < 0.01), 3.0), (rng.uniform(0, 5, 40), 5.0), (np.ones(2), 2.0)):
        lower, bernstein = bounded_mean_lower(1 - values[:, None] / width, 0.05)
        upper, method = mean_upper(values, width, 0.05)
        assert upper == pytest.approx(width * (1 - lower[0]), rel=1e-12)
        assert method == ("empirical-bernstein" if bernstein[0] else "hoeffding")
        methods.add(method)
    assert methods == {"empirical-bernstein", "hoeffding"}
    assert mean_upper(np.array([2, 2, 2]), 0.0, 0.05) == (2.0, "constant")


def _error_claim(bound, event, members=(0.1, 0.2)):
    """"P(event) >= bound on some member" at T = 1000, on members whose regret is coin(q) (regret_laws)."""
    return LowerBound("P(error) >= bound for some member", {"T": 1000, "b": bound}, "the algorithms of the class",
                      lambda p: [Member(q, j) for j, q in enumerate(members)], lambda p: p["b"], "b", "error",
                      event=event, event_text="the run committed to the worse arm")


def test_an_error_lower_bound_finding_is_recomputed_from_the_runs_it_read(monkeypatch):
    """"P(error) >= 0.35 on some member", the error being a run that committed to the worse arm (probability
    0.1 and 0.2 on the two members), its event given as the run's regret (T gap there, 0 elsewhere: a truth
    value per run, so the count is of runs, not a sum of regret). Each member's record is recomputed from the
    runs: the count, the frequency, and Clopper-Pearson's one-sided upper bound at the level (scipy's exact
    two-sided interval at confidence 1 - 2 level, whose upper end is the one-sided bound); the ratio and the
    estimate are against the bound 0.35. Deterministic."""
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    claim = _error_claim(0.35, lambda res, j: res.pseudo_regret[:, -1])
    contender = Contender(LawPolicy("0"), "in", in_class=True, privacy="verified")
    found = LowerBoundAuditor().audit(LowerBoundSubject((contender,)), claim, confidence=0.9,
                                      seed=np.random.SeedSequence(2), runs=300)
    seeds = np.random.SeedSequence(2).spawn(2)
    record = found.parameters["algorithms"][0]
    for j, (q, m) in enumerate(zip((0.1, 0.2), record["members"])):
        k = int((coin(q, 0, j)(np.array([1000.0]), 300, seeds[j].entropy)[:, -1] > 0).sum())
        upper = stats.binomtest(k, 300).proportion_ci(confidence_level=1 - 2 * 0.1, method="exact").high
        assert m == {"member": j, "mean": k / 300, "upper": pytest.approx(upper, rel=1e-9),
                     "method": "clopper-pearson", "count": k}
    worst = max(record["members"], key=lambda m: m["upper"])
    assert record["max_upper"] == worst["upper"] < 0.35 and record["beats_bound"]
    assert record["ratio"] == pytest.approx(worst["upper"] / 0.35, rel=1e-12)
    assert found.verdict == "refuted" and found.witness["algorithm"] == "in"
    assert found.statistic.value == pytest.approx(record["max_mean"] / 0.35, rel=1e-12)
    assert found.statistic.name == "least over algorithms of max over members of the error / the bound (< 1: beaten)"


@pytest.mark.parametrize("bound, estimate", [(1.0, 1.0), (0.0, math.inf)])
def test_a_bound_its_upper_confidence_bound_only_reaches_is_not_beaten(monkeypatch, bound, estimate):
    """An event that happens in every run: Clopper-Pearson's upper bound is 1 exactly (k = n), which does not
    beat a claimed error probability of 1 (beating needs an upper bound strictly below it): ratio and
    estimate 1. A bound of 0 cannot be beaten, and its ratio and estimate are infinite, not a division by 0."""
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    claim = _error_claim(bound, lambda res, j: np.ones(res.pseudo_regret.shape[0], dtype=bool), members=(0.5,))
    found = LowerBoundAuditor().audit(LowerBoundSubject((Contender(LawPolicy("0"), "in", in_class=True),)), claim,
                                      confidence=0.9, seed=1, runs=50)
    record = found.parameters["algorithms"][0]
    assert record["members"] == [{"member": 0, "mean": 1.0, "upper": 1.0, "method": "clopper-pearson", "count": 50}]
    assert found.verdict == "not-refuted" and not record["beats_bound"]
    assert record["ratio"] == estimate and found.statistic.value == estimate
    assert found.statistic.interval == (-math.inf, estimate)
    assert record["reading"] == (f"in at the claim point: max over members of the error 1 (upper bound 1) against "
                                 f"the bound {bound:g}: not beaten")


def test_an_event_must_give_one_truth_value_per_run(monkeypatch):
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    claim = _error_claim(0.5, lambda res, j: np.zeros(res.pseudo_regret.shape[0] - 1, dtype=bool))
    with pytest.raises(ValueError, match=r"^the claim's event must give one boolean per run, shape \(50,\), got "
                                         r"\(49,\)$"):
        LowerBoundAuditor().audit(LowerBoundSubject((Contender(LawPolicy("0"), "in"),)), claim, confidence=0.9,
                                  seed=1, runs=50)


def _conditioned_claim(eps, steps=(), **parameters):
    """"E[R_T] >= T gap / 2" under the hypothesis eps <= 1 (and T >= 10), at T = 100 unless given."""
    conditions = (ProofStep("privacy level", "eps <= 1", lambda p: (p["eps"], 1.0), "<="),
                  ProofStep("long enough", "T >= 10", lambda p: (p["T"], 10.0)))
    return LowerBound("E[R_T] >= T gap / 2 for eps <= 1", {"T": 100, "eps": eps, **parameters}, "eps-DP algorithms",
                      lambda p: [Member(0.5, 0)], lambda p: 0.5 * GAP * p["T"], "T gap / 2", steps=steps,
                      conditions=conditions)


def test_the_hypotheses_are_checked_at_the_claim_point_and_at_each_algorithms_point(monkeypatch):
    """A point outside the theorem's hypotheses is an error, naming the first hypothesis it violates (at the
    claim's point) or the algorithm and its point (an algorithm held elsewhere). Both checks, and the proof
    steps, use the audit's tolerance: eps = 1 + 1e-9 is within 1e-6 of the hypothesis eps <= 1 but violates it
    at the default 1e-12, and a step missed by 1e-9 is tight at 1e-6 but fails at 1e-12."""
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    subject = LowerBoundSubject((Contender(LawPolicy("0"), "a", in_class=True),))
    with pytest.raises(UnsupportedAudit, match=r"^the point \{'T': 100, 'eps': 1\.5\} is outside the theorem's "
                                               r"hypotheses: eps <= 1 \(1\.5 <= 1 fails\)$"):
        LowerBoundAuditor().audit(subject, _conditioned_claim(1.5), confidence=0.9, seed=1, runs=20)
    with pytest.raises(UnsupportedAudit, match=r"^the point \{'T': 5, 'eps': 1\.5\} is outside the theorem's "
                                               r"hypotheses: eps <= 1 \(1\.5 <= 1 fails\)$"):
        LowerBoundAuditor().audit(subject, _conditioned_claim(1.5, T=5), confidence=0.9, seed=1, runs=20)
    with pytest.raises(UnsupportedAudit, match=r"^the point \{'T': 5, 'eps': 0\.5\} is outside the theorem's "
                                               r"hypotheses: T >= 10 \(5 >= 10 fails\)$"):
        LowerBoundAuditor().audit(subject, _conditioned_claim(0.5, T=5), confidence=0.9, seed=1, runs=20)
    held = LowerBoundSubject((Contender(LawPolicy("0"), "held at 2 eps", in_class=True, parameters={"eps": 2.0}),))
    with pytest.raises(UnsupportedAudit, match=r"^held at 2 eps is held to the bound at \{'T': 100, 'eps': 2\.0\}, "
                                               r"outside the hypothesis eps <= 1$"):
        LowerBoundAuditor().audit(held, _conditioned_claim(0.5), confidence=0.9, seed=1, runs=20)
    near = 1 + 1e-9
    step = ProofStep("missed by 1e-9", "x >= y", lambda p: (1.0, near))
    nearly = LowerBoundSubject((Contender(LawPolicy("0"), "a", in_class=True, parameters={"eps": near}),))
    found = LowerBoundAuditor().audit(nearly, _conditioned_claim(near, steps=(step,)), confidence=0.9, seed=1,
                                      runs=20, tolerance=1e-6)
    assert [c["status"] for c in found.parameters["conditions"]] == ["tight", "holds"]
    assert found.parameters["steps"][0]["status"] == "tight" and found.verdict == "not-refuted"
    assert found.parameters["algorithms"][0]["parameters"] == {"T": 100, "eps": near}
    with pytest.raises(UnsupportedAudit, match="outside the theorem's hypotheses"):
        LowerBoundAuditor().audit(nearly, _conditioned_claim(near, steps=(step,)), confidence=0.9, seed=1, runs=20)
    with pytest.raises(UnsupportedAudit, match="^a is held to the bound at"):
        LowerBoundAuditor().audit(nearly, _conditioned_claim(1.0), confidence=0.9, seed=1, runs=20)
    steps_only = LowerBoundAuditor().audit(LowerBoundSubject(()), _conditioned_claim(1.0, steps=(step,)),
                                           confidence=None)
    assert steps_only.verdict == "refuted" and steps_only.witness["step"] == "missed by 1e-9"


def test_a_lower_bound_is_simulated_at_each_algorithms_horizon_on_the_members_seeds(monkeypatch):
    """The simulations an audit asks for: each member once per algorithm, for the horizon at the algorithm's
    point (T = 500 for one held there), recording that round only (the one the bound is about), on the member's
    stream spawned from the audit's seed (the same for every algorithm), with the audit's workers. Without
    confidence, runs or workers the audit runs 1000 runs at confidence 0.99 (level 0.01 for the one algorithm),
    serially. A claim naming no horizon cannot be simulated."""
    calls = []

    def spy(policy, environment, horizon, runs, seed=None, grid=None, workers=1, **_):
        calls.append((policy.name, environment.index, horizon, runs, list(grid), workers, seed.spawn_key))
        return simulate_on_member(policy, environment, horizon, runs, seed, grid=grid)

    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", spy)
    claim = _conditioned_claim(0.5)
    claim = LowerBound(claim.statement, claim.parameters, claim.algorithm_class,
                       lambda p: [Member(0.5, 0), Member(0.25, 1)], claim.bound, claim.bound_text)
    one = LowerBoundSubject((Contender(LawPolicy("0"), "a", in_class=True),))
    found = LowerBoundAuditor().audit(one, claim, seed=np.random.SeedSequence(9))
    assert calls == [("0", 0, 100, 1000, [100], 1, (0,)), ("0", 1, 100, 1000, [100], 1, (1,))]
    assert found.parameters["runs"] == 1000 and found.samples == 2000 and found.confidence == 0.99
    assert found.parameters["level_per_algorithm"] == pytest.approx(0.01, rel=1e-12)
    calls.clear()
    two = LowerBoundSubject((Contender(LawPolicy("0"), "a", in_class=True),
                             Contender(LawPolicy("1"), "b", in_class=True, parameters={"T": 500})))
    found = LowerBoundAuditor().audit(two, claim, confidence=0.9, seed=np.random.SeedSequence(9), runs=30, workers=3)
    assert calls == [("0", 0, 100, 30, [100], 3, (0,)), ("0", 1, 100, 30, [100], 3, (1,)),
                     ("1", 0, 500, 30, [500], 3, (0,)), ("1", 1, 500, 30, [500], 3, (1,))]
    record = found.parameters["algorithms"][1]
    assert record["horizon"] == 500 and record["bound"] == pytest.approx(0.5 * GAP * 500)
    assert record["members"][0]["range"] == [0.0, pytest.approx(500 * GAP)]
    no_horizon = LowerBound("E[R] >= 1", {"eps": 0.5}, "the class", lambda p: [Member(0.5, 0)], lambda p: 1.0, "1")
    with pytest.raises(ValueError, match=r"^the claim names no horizon \(give horizon=\.\.\. or a parameter T\)$"):
        LowerBoundAuditor().audit(one, no_horizon, confidence=0.9, seed=1, runs=10)


def test_the_regret_range_is_the_largest_gap_of_any_runs_instance(monkeypatch):
    """Instances drawn per run: half the runs on means (0.75, 0.25) (gap 0.5), half on (0.2, 0.1) (gap 0.1). The
    pseudo-regret of every run lies in [0, T 0.5], the largest gap of any run's own instance (not the largest
    mean of one run less the smallest of another, 0.65), and the upper bound is the bounded-mean bound on that
    range: Hoeffding's and Maurer & Pontil's, written out (each at half the level)."""
    from regret_laws import law_result

    def mixed(policy, environment, horizon, runs, seed=None, grid=None, **_):
        result = simulate_on_member(policy, environment, horizon, runs, seed, grid=grid)
        means = np.where((np.arange(runs) % 2 == 0)[:, None], [0.75, 0.25], [0.2, 0.1])
        regret = result.pseudo_regret * np.where(np.arange(runs) % 2 == 0, 1.0, 0.2)[:, None]
        return dataclasses.replace(law_result(result.grid, regret), means=means)

    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", mixed)
    claim = LowerBound("E[R_T] >= 0.3 T", {"T": 1000}, "the class", lambda p: [Member(0.5, 0)],
                       lambda p: 0.3 * p["T"], "0.3 T")
    found = LowerBoundAuditor().audit(LowerBoundSubject((Contender(LawPolicy("0"), "a"),)), claim, confidence=0.9,
                                      seed=3, runs=200)
    member = found.parameters["algorithms"][0]["members"][0]
    assert member["range"] == [0.0, 500.0]
    values = coin(0.5, 0, 0)(np.array([1000.0]), 200, np.random.SeedSequence(3).spawn(1)[0].entropy)[:, -1]
    values = values * np.where(np.arange(200) % 2 == 0, 1.0, 0.2)
    z, n, log_half = values / 500.0, 200, math.log(2 / 0.1)
    hoeffding = z.mean() + math.sqrt(log_half / (2 * n))
    bernstein = z.mean() + math.sqrt(2 * z.var(ddof=1) * math.log(4 / 0.1) / n) + 7 * math.log(4 / 0.1) / (3 * (n - 1))
    assert member["upper"] == pytest.approx(500.0 * min(hoeffding, bernstein), rel=1e-12)


@pytest.mark.parametrize("relation, lhs, rhs, tolerance, status", [
    (">=", 1.0, 2.0, 0.5, "tight"),   # margin -1 = -slack (0.5 * 2): not a failure
    (">=", 2.0, 1.0, 0.5, "tight"),   # margin 1 = slack: still within rounding
    (">=", 2.0, 0.99, 0.5, "holds"),  # margin 1.01 > slack 1
    (">=", 0.99, 2.0, 0.5, "fails"),  # margin -1.01 < -slack
    ("==", 1.0, 2.0, 0.5, "tight"),   # |lhs - rhs| = slack
    ("==", 0.99, 2.0, 0.5, "fails"),
    (">=", 1.0, 1.0, 0.0, "tight"),   # no tolerance: only equality is tight
    ("==", 1.0, 1.0, 0.0, "tight"),
    ("<=", 1.0, 1.0 + 2**-52, 0.0, "holds"),
])
def test_a_proof_steps_tolerance_boundary_is_tight_on_both_sides(relation, lhs, rhs, tolerance, status):
    """The slack is tolerance times the larger side, and a margin exactly at +-slack is tight: it neither
    fails nor holds (sides and slack exact in binary, so the boundary is hit exactly)."""
    assert evaluate_step(_step(relation, lhs, rhs), {}, tolerance)["status"] == status


def test_a_proof_steps_worst_point_is_its_smallest_margin_among_the_failing_points():
    """A step that holds everywhere reports its smallest margin wherever on the grid it lies (here the middle
    point); a step that fails reports its failing point with the smallest margin, even where a point of
    larger sides has a smaller margin that its slack (1e-12 of 1e13, about 10) leaves tight."""
    where = {"n": np.array([1, 2, 3])}
    held = evaluate_step(_step(">=", np.array([3.0, 2.0, 5.0]), np.array([1.0, 1.0, 1.0]), where), {})
    assert (held["status"], held["margin"], held["lhs"], held["rhs"], held["at"]) == ("holds", 1.0, 2.0, 1.0,
                                                                                      {"n": 2})
    failed = evaluate_step(_step(">=", np.array([1e13, 0.0, 4.0]), np.array([1e13 + 5, 1.0, 1.0]), where), {})
    assert (failed["status"], failed["margin"], failed["lhs"], failed["rhs"], failed["at"]) == ("fails", -1.0, 0.0,
                                                                                                1.0, {"n": 2})
    assert failed["failing_points"] == 1 and failed["points"] == 3


def test_a_proof_step_computed_exactly_is_compared_in_floats():
    """Sides computed exactly, as proof steps are where the laws are finite: rationals (fractions.Fraction)
    and integers beyond 64 bits (binomial coefficients) are read as floats, and a grid coordinate that is
    not a number is reported as given."""
    from fractions import Fraction

    big = evaluate_step(_step(">=", math.comb(100, 50), 2**96), {})
    assert big["status"] == "holds" and big["lhs"] == float(math.comb(100, 50)) and big["rhs"] == 2.0**96
    assert big["margin"] == float(math.comb(100, 50)) - 2.0**96
    small = evaluate_step(_step("<=", 2**96, math.comb(100, 50)), {})
    assert small["status"] == "holds" and small["margin"] == float(math.comb(100, 50)) - 2.0**96
    exact = evaluate_step(_step(">=", Fraction(1, 2), Fraction(2, 3), {"x": Fraction(1, 3)}), {})
    assert exact["status"] == "fails" and exact["lhs"] == 0.5 and exact["rhs"] == 2 / 3
    assert exact["at"] == {"x": Fraction(1, 3)}
    other = evaluate_step(_step("==", Fraction(1, 3), 1 / 3, {"label": None}), {})
    assert other["status"] == "tight" and other["at"] == {"label": None}


def test_the_upper_bound_on_a_regret_in_a_narrow_range_is_still_a_bound():
    """mean_upper on ranges of width at most 1 (an instance of gap 0.001 at T = 1000, a quarter) and on
    single-precision values: the smaller of Hoeffding's mean + w sqrt(ln(2 / level) / (2 n)) and Maurer &
    Pontil's mean + w (sqrt(2 V ln(4 / level) / n) + 7 ln(4 / level) / (3 (n - 1))), V the sample variance of
    values / w, each at half the level, written out; a float32 regret gives its values' bound in double
    precision. Only a range of width 0 is a constant."""
    rng = np.random.default_rng(5)
    level = 0.05
    for width, values in ((1.0, 1.0 * (rng.random(300) < 0.3)), (0.25, rng.uniform(0, 0.25, 40)),
                          (0.5, np.full(10, 0.25))):
        z, n = values / width, values.size
        hoeffding = z.mean() + math.sqrt(math.log(2 / level) / (2 * n))
        bernstein = (z.mean() + math.sqrt(2 * z.var(ddof=1) * math.log(4 / level) / n)
                     + 7 * math.log(4 / level) / (3 * (n - 1)))
        upper, method = mean_upper(values, width, level)
        assert upper == pytest.approx(width * min(hoeffding, bernstein), rel=1e-12)
        assert method == ("empirical-bernstein" if bernstein < hoeffding else "hoeffding")
    single = rng.uniform(0, 3, 50).astype(np.float32)
    assert mean_upper(single, 3.0, level) == mean_upper(single.astype(float), 3.0, level)
    assert mean_upper(np.full(4, 0.5), 0.0, level) == (0.5, "constant")


def test_the_lower_bound_auditor_says_why_it_cannot_audit_a_claim():
    """The reasons an audit is refused, word for word: another kind of claim (its type named), a subject that
    is not the algorithms to run, algorithms to hold to a claim without a bound."""
    auditor = LowerBoundAuditor()
    one = LowerBoundSubject((Contender(LawPolicy("0"), "a"),))
    refusals = [auditor.supports(one, dpaudit.RegretRate(0.5)), auditor.supports("ftl", _claim(bound=1.0)),
                auditor.supports(one, _claim())]
    assert not any(refusals)
    assert [r.reason for r in refusals] == ["the lower-bound auditor audits LowerBound claims, not RegretRate",
                                            "the subject must be the algorithms to run (LowerBoundSubject)",
                                            "the claim has no bound to hold the algorithms to"]
    assert auditor.supports(one, _claim(bound=1.0)).decisive and auditor.supports(LowerBoundSubject(()), _claim())


def test_a_bound_without_proof_steps_or_algorithms_is_not_audited():
    """A claim with a bound and no proof steps, audited without algorithms, has nothing to check: it is
    refused (it was once reported verified, having checked nothing)."""
    claim = LowerBound("E[R_T] >= 1", {"T": 10}, "the class", lambda p: [Member(0.5, 0)], lambda p: 1.0, "1")
    support = LowerBoundAuditor().supports(LowerBoundSubject(()), claim)
    assert not support and support.reason == ("the claim has no proof steps to check and no algorithms are given "
                                              "to hold its bound to")
    with pytest.raises(UnsupportedAudit, match="no proof steps to check"):
        dpaudit.audit_lower_bound(claim, None)


def _held(share, members, group, runs, quantity="regret"):
    """One audit of a bound of ``share`` (of T gap for regret, a probability for the error) against one algorithm of
    the class whose regret on member j is coin(members[j]), the error being a run that committed to the worse arm."""
    subject = LowerBoundSubject((Contender(LawPolicy("0"), "algorithm 0", in_class=True, privacy="by construction"),))
    if quantity == "regret":
        claim = LowerBound("E[R_T] >= share T gap for some member", {"T": 1000}, "the algorithms of the class",
                           lambda p: [Member(q, j) for j, q in enumerate(members)], lambda p: share * GAP * p["T"],
                           f"{share} T gap")
    else:
        claim = _error_claim(share, lambda res, j: res.pseudo_regret[:, -1], members)
    return LowerBoundAuditor().audit(subject, claim, confidence=0.95, seed=np.random.SeedSequence(group), runs=runs)


@pytest.mark.parametrize("quantity, share, members, runs", [("regret", 0.5, (0.5, 0.5), 200),
                                                             ("error", 0.2, (0.2, 0.2), 300)])
def test_a_lower_bounds_stated_power_is_seen_as_often_as_it_says(monkeypatch, quantity, share, members, runs):
    """The power a not-refuted lower bound states (the shortfall s below the bound that an algorithm of the class
    would be seen beating it by with probability 0.9) is planted: an algorithm whose regret (error) on both members
    of the instance is (1 - s) times the bound (coin(q) with q = (1 - s) times the members' q, which meet the bound).
    Beaten in 181 (regret, s = 0.31) and 180 (error, s = 0.35) of 200 groups at confidence 0.95; a count outside
    Binomial(200, 0.9)'s 1e-4 quantiles [163, 194] fails, so an honest figure fails with probability below 2e-4.
    Measured on 400 groups: 359 and 362 at s, 241 and 275 at 0.8 s, 397 and 394 at 1.2 s (both of those would
    fail here); the regret's one-member instance, 367. Mutants: each member asked for 0.9 instead of 1 - 0.1 / 2
    (no union bound) gives 164 and 157 here, the regret without its z standard errors 52."""
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    first = _held(share, members, 10_000, runs, quantity)
    assert first.verdict == "not-refuted" and first.power["quantity"] == "shortfall below the bound"
    s = first.power["value"]
    assert 0 < s < 1 and f"{s:.3g} below the bound" in first.power["description"]
    planted = tuple(q * (1 - s) for q in members)
    beaten = sum(_held(share, planted, group, runs, quantity).verdict == "refuted" for group in range(200))
    assert (stats.binom.ppf(1e-4, 200, 0.9), stats.binom.isf(1e-4, 200, 0.9)) == (163, 194)
    assert 163 <= beaten <= 194, beaten


def test_a_lower_bound_no_algorithm_could_be_seen_beating_states_an_infinite_power(monkeypatch):
    """Five runs per member: even a regret of 0 on every run leaves Hoeffding's upper bound above the bound T gap /
    2 at confidence 0.95, so no algorithm would be seen beating it, and the power says so."""
    monkeypatch.setattr("dpaudit.bandits.simulation.simulate", simulate_on_member)
    found = _held(0.5, (0.5,), 0, 5)
    assert found.verdict == "not-refuted" and found.power["value"] == math.inf
    assert found.power["description"].startswith("no algorithm of the class, not even one of regret 0")
