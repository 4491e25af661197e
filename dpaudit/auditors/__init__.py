"""Auditors: each takes a checked mechanism, a claim and pairs of inputs, and returns an
:class:`~dpaudit.results.AuditResult`.

- :mod:`.exact` decides pure-DP claims from exact output distributions, rigorously;
- :mod:`.statistical` certifies lower bounds on epsilon, delta, Renyi divergence or rho from
  samples, with events proposed by :mod:`.events` and bounds from :mod:`.bounds`.
"""

from .exact import ExactUndecided, audit_exact
from .statistical import audit_statistical

__all__ = ["ExactUndecided", "audit_exact", "audit_statistical"]
