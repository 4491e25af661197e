"""Suites: named collections of audit entries, and their discovery and selection.

A suite module in ``dpaudit.audits`` (one per paper key, plus ``classic``) defines a module-level
``suite = Suite(key, title)`` and adds entries to it. Users can keep suites of their own in any module or
``.py`` file and pass it with ``dpaudit run --suite PATH``.

- :mod:`~dpaudit.suite.budgets`: the budgets and their defaults;
- :mod:`~dpaudit.suite.entries`: an entry (subject, claim, how to audit it per budget, what is expected)
  for privacy, tail, conformance and lower-bound claims;
- :mod:`~dpaudit.suite.regret`: entries for regret bounds, rates and orderings, simulated per budget;
- :mod:`~dpaudit.suite.canary`: entries for canary audits of training loops, run and scored per budget;
- :mod:`~dpaudit.suite.collection`: :class:`Suite`, the collection a suite module fills;
- :mod:`~dpaudit.suite.discovery`: the built-in and the user's suites found, entries selected.

May import the vocabulary (:mod:`dpaudit.core`), the auditors and exact engines, the bandit wing and the
audit API; the runner, the reports and the CLI import it. Only :mod:`~dpaudit.suite.discovery` names
``dpaudit.audits`` (by import path, at run time).
"""

from ..core.claim_ids import CLASSIC
from .budgets import BUDGET_FALLBACK, BUDGETS, DEFAULT_SAMPLES, DEFAULT_TIMEOUTS, at_budget
from .canary import CanaryEntry
from .collection import Suite
from .discovery import find_entry, load_suites, select
from .entries import (
    DEFAULT_RUNS,
    EXPECTATIONS,
    FOOTINGS,
    AccountantEntry,
    ConformanceEntry,
    DPSGDEntry,
    Entry,
    LowerBoundEntry,
    PrivacyEntry,
    RunContext,
    TailEntry,
)
from .regret import OrderEntry, RegretEntry

__all__ = [
    "BUDGETS", "BUDGET_FALLBACK", "CLASSIC", "DEFAULT_RUNS", "DEFAULT_SAMPLES", "DEFAULT_TIMEOUTS", "EXPECTATIONS",
    "FOOTINGS", "AccountantEntry", "CanaryEntry", "ConformanceEntry", "DPSGDEntry", "Entry", "LowerBoundEntry",
    "OrderEntry", "PrivacyEntry", "RegretEntry", "RunContext", "Suite", "TailEntry", "at_budget", "find_entry",
    "load_suites", "select",
]
