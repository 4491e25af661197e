"""What the papers' regret-suite tests share: run contexts at the quick and paper budgets, the rows of a
spec's claims table (carried by each test as text: the specs are not in the repository), and an
entry audited as a whole suite run would audit it."""

from __future__ import annotations

import re
import warnings

import numpy as np

from dpaudit.core.claims import RegretClaim
from dpaudit.core.seeding import claim_seed_sequence
from dpaudit.suite import RunContext

QUICK = RunContext(0, "quick", 0.01, np.random.SeedSequence(0))
PAPER = RunContext(0, "paper", 0.01, np.random.SeedSequence(0))
#: the kinds of claims-table row the regret suites encode: regret claims, lower bounds, empirical ones
KINDS = re.compile(r"regret|lower bound|empirical|\bfig\b|\btable\b")


def table_rows(table: str) -> list[tuple[str, str]]:
    """(first word of the id cell, kind cell) of every row of a markdown table (escaped pipes kept)."""
    rows = []
    for line in table.strip().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        rows.append((cells[0].split()[0], cells[1]))
    return rows


def unaccounted(rows: list[str], encoded: set[str], doc: str, marker: str = "Left out (with why):") -> list[str]:
    """The rows neither encoded nor named, with their reason, in the docstring's left-out list."""
    left_out = doc.partition(marker)[2]
    return [cid for cid in rows if cid not in encoded and cid.partition("/")[2] not in left_out]


def regret_entries(suite) -> list:
    return [e for e in suite.entries if isinstance(e.claim, RegretClaim)]


def audit_in_a_run(entry, suite, cache_dir=None):
    """The entry's finding at the quick budget with the alpha share a whole run of its suite gives it."""
    alpha = 0.01 / sum(e.statistical for e in suite.entries)
    ctx = RunContext(0, "quick", alpha, claim_seed_sequence(0, entry.id), None if cache_dir is None else str(cache_dir))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the algorithms' "outside the theorem's range" notes
        return entry.audit(ctx).finding


def as_expected(entry, verdict: str) -> bool:
    """A verdict the entry's expectation accepts (an exact "verified" is a not-refuted claim)."""
    return verdict == "refuted" if entry.expected == "refuted" else verdict in ("not-refuted", "verified")
