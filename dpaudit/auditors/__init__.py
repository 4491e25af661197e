"""Auditors: each takes a checked mechanism, a claim and pairs of inputs, and returns an
:class:`~dpaudit.results.AuditResult`.

- :mod:`.exact` decides pure-DP claims from exact output distributions, rigorously;
- :mod:`.threshold` certifies lower bounds on epsilon (or delta) from samples.
"""

from .exact import ExactUndecided, audit_exact
from .threshold import audit_threshold

__all__ = ["ExactUndecided", "audit_exact", "audit_threshold"]
