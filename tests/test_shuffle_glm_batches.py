"""shuffle-glm Lemma E.8 (audits/shuffle_glm/batches.py): the batch count of eq. (7)'s schedule. Exact arithmetic on
fixed horizons: no false-failure rate to state."""

from __future__ import annotations

import math

import pytest

from dpaudit import audit_lower_bound
from dpaudit.audits.shuffle_glm import batches
from dpaudit.suite import find_entry


def test_the_schedule_covers_t_in_m_batches_and_not_fewer():
    # B_M = alpha^(2 - 2^-(M-2)) = T: M batches cover T, M - 1 do not (with B_1 = 1)
    for T in (10**3, 5000, 10**6, 10**9):
        for M in (2, 3, 4):
            assert batches.schedule_batches(T, M) == M
    # a first batch as long as the horizon covers it alone
    assert batches.schedule_batches(5000, 4, first=5000) == 1


def test_loglog_in_both_bases_and_the_grids_start_where_it_reaches_2():
    assert batches.loglog(2**16, "log2") == pytest.approx(4.0)
    assert batches.loglog(math.exp(math.e**2), "ln") == pytest.approx(2.0)
    for base in ("log2", "ln"):
        Ts = batches.horizons(base)
        assert batches.loglog(Ts[0], base) >= 2 and Ts[-1] == 10**12


@pytest.mark.parametrize("claim_id, verdict", [("shuffle-glm/lemE.8@log2", "verified"),
                                               ("shuffle-glm/lemE.8@ln", "verified"),
                                               ("shuffle-glm/lemE.8@implementation,T5000", "refuted")])
def test_the_entries_come_out_as_the_suite_says(claim_id, verdict):
    entry = find_entry(claim_id)
    finding = audit_lower_bound(entry.claim)
    assert finding.verdict == verdict
    if verdict == "refuted":
        assert entry.footing == "hypothesis not met" and "ceil(log2 log2 T)" in entry.hypothesis
        assert batches._implementation_count({"T": 5000}) == (4.0, pytest.approx(3.6191, abs=1e-4))


def test_one_batch_more_than_the_schedule_allows_is_caught():
    """Counting with M one above the largest the section allows exceeds log log T somewhere on the grid: the entry
    would refute a schedule that took one batch too many."""
    Ts = batches.horizons("log2")
    over = [T for T in Ts if batches.schedule_batches(int(T), math.floor(batches.loglog(T, "log2")) + 1)
            > batches.loglog(T, "log2")]
    assert len(over) == len(Ts)


def test_the_warm_up_covers_every_simulable_horizon_at_the_papers_settings():
    """Theorem 5.1's regret is left out because eq. (6)'s warm-up batch is longer than any simulable horizon; the
    entries check it, and the first batch the algorithm plans is the whole horizon."""
    from dpaudit.algorithms.environments import kappa_bounds
    from dpaudit.algorithms.glm.shuffle_glm import algorithm1_settings

    for T in (1000, 10**5):
        B1 = batches.first_batch(4.0, 3, T, 2.5, "probit")
        assert B1 > 1e4 * T
        kappa, kappa_star = kappa_bounds("probit", 2.5)
        assert algorithm1_settings(4.0, 0.02, 3, T, 2.5, kappa, kappa_star).batches == (T,)
    entries = [e for e in find_entry.__globals__["load_suites"]()["shuffle-glm"].entries
               if e.id.startswith("shuffle-glm/eq6@warm-up")]
    assert len(entries) == 3 and all(audit_lower_bound(e.claim).verdict == "verified" for e in entries)
    assert all("not an audit of the bound" in e.title for e in entries)
