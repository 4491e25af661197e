"""concurrent-shuffle's regret and lower-bound entries (dpaudit.audits.concurrent_shuffle.regret and
.lower_bounds): they build, their ids parse, their quick and paper settings are what the module
docstrings say, every regret / lower-bound / empirical row of the spec's claims table is encoded or
listed as left out, the proof's quantities match the spec's numbers, Theorem C.2's bound follows its
formula, and the cheap entries' quick verdicts are the expected ones."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from regret_suites import PAPER, QUICK, as_expected, audit_in_a_run

import dpaudit.audits.concurrent_shuffle as package
from dpaudit.auditors.lower_bound import Contender
from dpaudit.audits.concurrent_shuffle import lower_bounds as lb
from dpaudit.audits.concurrent_shuffle import regret, suite
from dpaudit.audits.experiments.concurrent_shuffle import DELTA, EPS, HORIZON, LINUCB
from dpaudit.core.claim_ids import parse_claim_id
from dpaudit.core.claims import LowerBound, RegretBound, RegretClaim

# The spec's claims table, its id and type columns (the paper's claims as the specification lists them).
SPEC_TABLE = """
| concurrent-shuffle/def2.1 | definition |
| concurrent-shuffle/claimsec3a | privacy (approx) |
| concurrent-shuffle/claimsec3b | accuracy |
| concurrent-shuffle/claimsec3c | accuracy |
| concurrent-shuffle/thm3.2-privacy | privacy (approx), CSDP |
| concurrent-shuffle/thm3.2-tail | tail/concentration |
| concurrent-shuffle/thm3.2-accuracy | accuracy |
| concurrent-shuffle/cor3.3-privacy / -tail / -accuracy | as thm3.2 |
| concurrent-shuffle/thm3.4-privacy | privacy (approx), CSDP |
| concurrent-shuffle/thm3.4-tail | tail/concentration |
| concurrent-shuffle/thm3.4-accuracy | accuracy |
| concurrent-shuffle/cor3.5-privacy / -tail / -accuracy | as thm3.4 |
| concurrent-shuffle/claimsec3d | complexity |
| concurrent-shuffle/lemB.1 | structural (probability) |
| concurrent-shuffle/lemB.2 | privacy → likelihood |
| concurrent-shuffle/lemB.3 | privacy → likelihood |
| concurrent-shuffle/lemB.4 | tail (anti-concentration), external |
| concurrent-shuffle/lemB.5 | privacy (approx) |
| concurrent-shuffle/lemB.6 | lower bound (case) |
| concurrent-shuffle/thm4.1 | lower bound |
| concurrent-shuffle/thmC.2 | regret upper bound, external |
| concurrent-shuffle/thm5.1-privacy (alias thmC.3-privacy) | privacy (approx), CSDP |
| concurrent-shuffle/thm5.1-regret (alias thmC.3-regret) | regret upper bound |
| concurrent-shuffle/cor5.2-privacy / -regret | privacy (approx); regret |
| concurrent-shuffle/claimfn2 | external (composition) |
| concurrent-shuffle/claimfn8, claimfn9, claimfn10 | remarks |
"""
#: the kinds of row these modules encode: regret claims, lower bounds and empirical ones
KINDS = re.compile(r"regret|lower bound|empirical|\bfig\b|\btable\b")



def row_ids(cell: str) -> list[str]:
    """The ids of a row's first cell: "x/thm5.1-regret (alias thmC.3-regret)", "x/cor5.2-privacy / -regret",
    "x/claimfn8, claimfn9"."""
    key, _, rest = cell.partition("/")
    aliases = re.findall(r"\(alias ([^)]+)\)", rest)
    rest = re.sub(r"\(alias [^)]+\)", "", rest)
    names: list[str] = []
    for part in (p.strip() for p in re.split(r",|/", rest) if p.strip()):
        names.append(names[-1].split("-")[0] + part if part.startswith("-") else part)
    return [f"{key}/{n}" for n in names + aliases]


def spec_rows() -> list[tuple[list[str], str]]:
    rows = []
    for line in SPEC_TABLE.strip().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((row_ids(cells[0]), cells[1]))
    return rows


def entries() -> list:
    return [e for e in suite.entries if isinstance(e.claim, (RegretClaim, LowerBound))]


def by_id() -> dict:
    return {e.id: e for e in entries()}


def test_row_ids_expand_the_table_cells():
    assert row_ids("x/thm5.1-regret (alias thmC.3-regret)") == ["x/thm5.1-regret", "x/thmC.3-regret"]
    assert row_ids("x/cor5.2-privacy / -regret") == ["x/cor5.2-privacy", "x/cor5.2-regret"]
    assert row_ids("x/claimfn8, claimfn9, claimfn10") == ["x/claimfn8", "x/claimfn9", "x/claimfn10"]


def test_entries_build_and_ids_parse():
    found = entries()
    # + the likelihood-set lemmas (lemB.2, lemB.3; tests/test_concurrent_shuffle_lemmas.py), Figure 2's cover sets and
    # Lemma B.1 (tests/test_concurrent_shuffle_mechanisms.py, tests/test_concurrent_shuffle_side_information.py)
    assert len(found) == 13 + 9 + 2
    for entry in found:
        cid = parse_claim_id(entry.id)
        assert cid.suite == "concurrent-shuffle" and cid.point, entry.id
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            subject = entry.subject  # a lower bound builds its contenders here
        if isinstance(entry.claim, LowerBound) and entry.claim.bound is not None:
            assert entry.plan.statistical and all(isinstance(c, Contender) for c in subject.contenders)
            assert entry.runs["quick"] == 50 and entry.runs["paper"] == 1000
        elif isinstance(entry.claim, RegretClaim):
            for ctx in (QUICK, PAPER):
                assert entry.settings(ctx)["runs"] == 30


def test_every_regret_and_lower_bound_row_is_encoded_or_left_out():
    docs = " ".join(m.__doc__ for m in (package, regret, lb))
    encoded = {e.id.partition("@")[0] for e in entries()}
    rows = [cid for ids, kind in spec_rows() if KINDS.search(kind) for cid in ids if not cid.endswith("-privacy")]
    assert set(rows) == {"concurrent-shuffle/lemB.6", "concurrent-shuffle/thm4.1", "concurrent-shuffle/thmC.2",
                         "concurrent-shuffle/thm5.1-regret", "concurrent-shuffle/thmC.3-regret",
                         "concurrent-shuffle/cor5.2-regret"}
    missing = [cid for cid in rows if cid not in encoded and cid.partition("/")[2] not in docs]
    assert not missing, f"rows neither encoded nor listed in the module docstrings: {missing}"
    left_out = regret.__doc__.partition("Left out:")[2]
    assert "thmC.2" in left_out and "claimfn8" in left_out
    assert "thmC.3-regret" in regret.__doc__  # the alias: the thm5.1-regret entries are its entries


def test_regret_settings_are_the_docstrings():
    entries_ = by_id()
    quick_grid = np.unique(np.round(np.geomspace(256, 4096, 14)).astype(int))
    paper_grid = np.unique(np.round(np.geomspace(1024, HORIZON, 14)).astype(int))
    assert HORIZON == 2**14 and LINUCB.configurations[0].environment is regret.ENVIRONMENT
    for stem, k in [("thm5.1-regret@k1,", 1), ("thm5.1-regret@k2,", 2), ("cor5.2-regret@", "log n")]:
        bound = entries_[f"concurrent-shuffle/{stem}bound"]
        assert f"concurrent-shuffle/{stem}T" not in entries_  # pre-asymptotic: left out (module docstring)
        assert isinstance(bound.claim, RegretBound) and bound.claim.probability is None
        assert bound.params == {"eps": EPS, "delta": DELTA, "k": k, "d": 5}
        assert bound.subject == "cs-linucb" and bound.expected == "not-refuted"
        for ctx, grid in ((QUICK, quick_grid), (PAPER, paper_grid)):
            assert np.array_equal(bound.settings(ctx)["horizons"], grid)
        assert quick_grid.size == 14 and quick_grid[-1] == 4096 and paper_grid[-1] == HORIZON
        assert (np.log(quick_grid) >= np.log(quick_grid[[0, -1]]).mean()).sum() >= 6  # six rounds fitted
    eps = entries_["concurrent-shuffle/thm5.1-regret@k1,eps"]
    assert (eps.claim.exponent, eps.claim.variable) == (-0.5, "eps")
    quick = eps.settings(QUICK)
    assert quick["horizons"] == 1024 and eps.settings(PAPER)["horizons"] == HORIZON
    values = np.asarray(quick["values"])
    assert values.size == 6 and np.allclose(values, 0.9 / 2.0 ** np.arange(5, -1, -1)) and values.max() < 1
    policy = eps.subject(0.25)
    assert (policy.eps, policy.delta) == (0.25, DELTA)


def test_theorem_c2_bound_follows_its_formula_and_is_vacuous_here():
    T = np.array([100.0, 1000.0, 4096.0])
    lam = regret.lam_for(4096, EPS, DELTA, 1, 5)
    assert lam == pytest.approx(1.57e6, rel=0.01)  # the docstring's number
    beta = 0.5 * np.sqrt(2 * math.log(2 * 4096) + 5 * np.log(3 + 2 * T / (5 * lam))) + math.sqrt(1.5 * lam) \
        + math.sqrt(0.5 * lam)
    expected = np.sqrt(8 * T) * beta * np.sqrt(5 * np.log(1 + 2 * T / (5 * lam))) + 1
    f = regret.theorem_c2_bound(T, EPS, DELTA, 5, 1)
    assert f == pytest.approx(expected, rel=1e-9)
    assert (f / T > 7.6).all() and (f / T < 7.8).all()  # ~7.7 T: above the largest regret
    entry = by_id()["concurrent-shuffle/thm5.1-regret@k1,bound"]
    assert entry.claim.evaluate(T, {"eps": EPS, "delta": DELTA, "d": 5}) == pytest.approx(f)


@pytest.mark.parametrize("eps, c", [(0.1, 0.4975), (0.5, 0.4434), (1.0, 0.3240)])
def test_c_eps_is_the_specs(eps, c):
    assert lb.c_eps(eps) == pytest.approx(c, abs=6e-5)


def test_lower_bound_quantities_are_the_specs():
    # the spec's examples: n = 2^20, eps = 1: rep = 24.0, 3.25, 1.38, 0.86 for k = 1..4
    # (three significant digits)
    assert [lb.rep(2**20, k, 1.0) for k in (1, 2, 3, 4)] == pytest.approx([24.0, 3.25, 1.38, 0.86], rel=5e-3)
    # the size hypothesis in numbers: n > 4.1e7 (k = 1, eps = 0.5), 7.6e7 (k = 1, eps = 1), 8.3e12 (k = 2, eps = 0.5),
    # 1.7e18 (k = 3, eps = 0.5)
    for k, eps, n in [(1, 0.5, 4.1e7), (1, 1.0, 7.6e7), (2, 0.5, 8.3e12), (3, 0.5, 1.7e18)]:
        smallest = lb.smallest_n(k, eps)
        assert smallest == pytest.approx(n, rel=0.02)
        assert lb.size_ratio(smallest, k, eps) > 200**2 >= lb.size_ratio(smallest - 1, k, eps)
    p = {"n": 4096, "k": 1, "eps": 0.5, "delta": 1e-6, "beta0": 0.25}
    assert lb.big(4096, 1, 0.5) == pytest.approx(2 * lb.rep(4096, 1, 0.5))
    assert lb.probability(p) == pytest.approx(0.125 * (1 - 2 * 4096 * 1e-6 / 0.5))
    assert lb.chain({**p, "k": 2, "n": 3125}).tolist() == pytest.approx(
        [lb.big(lb.big(3125, 2, 0.5), 1, 0.5), lb.big(3125, 2, 0.5), 3125])
    # the lemma B.6 points sit at the boundary: smallest n of each hypothesis
    n = lb.smallest_supported_n(1, 1.0)
    assert lb._variance_step_as_printed({"n": n, "k": 1, "eps": 1.0})[0] > 200**2
    assert lb._variance_step_as_printed({"n": n - 1, "k": 1, "eps": 1.0})[0] <= 200**2


def test_hard_instance_and_contenders():
    p = {"n": 4096, "k": 1, "eps": 0.5, "delta": 1e-6, "beta0": 0.25}
    members = lb.hard_instance(p)
    r = lb.rep(4096, 1, 0.5)  # 4.65: copies 5, prefixes of at most 4 bits
    assert [m.copies for m in members] == [5, 5, 5]
    assert [m.prefix.tolist() for m in members] == [[], [1, 1, 1, 1], [0, 0]] and math.floor(r) == 4
    contenders = lb.thm41_contenders(p)
    assert [c.label for c in contenders] == ["Algorithm 3 (d = 256, d_low = 16)", "sequential, batches of 8",
                                              "sequential, batches of 64", "exact running sum"]
    assert [c.in_class for c in contenders] == [None, None, None, False]
    assert all(c.policy.threshold == pytest.approx(r) for c in contenders)
    alg3 = contenders[0].policy.counter
    assert (alg3.n, alg3.k, len(alg3.batches)) == (4096, 1, 256)
    assert {(b.epsilon, b.delta) for b in alg3.batches} == {(0.5, 1e-6)}  # k = 1: the whole budget per batch
    k2 = lb.thm41_contenders({**p, "k": 2, "n": 3125})
    assert [c.policy.counter.k for c in k2[:2]] == [2, 2] and k2[-1].in_class is False
    assert {(b.epsilon, b.delta) for b in k2[0].policy.counter.batches} == {(0.25, 5e-7)}
    claim = by_id()["concurrent-shuffle/thm4.1@k1,n4096,eps0.5,delta1e-6"].claim
    assert claim.horizon_at() == 4097 and claim.bound_at() == pytest.approx(lb.probability(p))


# entries that run in well under 5 s each at the quick budget (cpu seconds measured: 0.0-1.7)
CHEAP = ["concurrent-shuffle/thm4.1@k2,n3125,eps0.5,delta1e-6", "concurrent-shuffle/thm4.1@appendix,k1,n1.52e8,eps1",
         "concurrent-shuffle/thm4.1@appendix,k2,n1.66e13,eps0.5",
         "concurrent-shuffle/thm4.1@appendix,k3,n3.37e18,eps0.5", "concurrent-shuffle/lemB.6@as-printed,k1,eps1",
         "concurrent-shuffle/lemB.6@supported,k1,eps1", "concurrent-shuffle/lemB.6@as-printed,k2,eps0.5",
         "concurrent-shuffle/lemB.6@supported,k2,eps0.5", "concurrent-shuffle/thm5.1-regret@k2,bound",
         "concurrent-shuffle/thm5.1-regret@k1,eps"]


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", CHEAP)
def test_cheap_entries_give_their_expected_verdict(claim_id, tmp_path_factory):
    entry = by_id()[claim_id]
    finding = audit_in_a_run(entry, suite, tmp_path_factory.getbasetemp() / "simulations")
    assert as_expected(entry, finding.verdict), finding.notes
    if "lemB.6@as-printed" in claim_id:
        assert finding.witness["step"] == "variance > 200^2 (printed)"
