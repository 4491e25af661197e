"""Assertions for audits in a user's own test suite (any test framework).

>>> from dpaudit.testing import assert_private
>>> assert_private(my_mech, dpaudit.PureDP(1.0), pairs=[(0, 1)], seed=0)   # doctest: +SKIP
"""

from __future__ import annotations

import json
from typing import Any

from .api.privacy import audit_privacy
from .bandits.reference import ExploreThenCommit, explore_then_commit_regret
from .core.claims import Claim
from .core.results import REFUTED, AuditResult


class ClaimRefuted(AssertionError):
    """An audited claim was refuted; the message carries the witness."""

    def __init__(self, result: AuditResult):
        self.result = result
        super().__init__(refutation_message(result))


def refutation_message(result: AuditResult) -> str:
    claim = " ".join(f"{k}={v}" for k, v in result.claim.items() if k != "kind")
    lines = [
        f"{result.subject}: claim {result.claim.get('kind')} {claim} refuted by {result.auditor}",
        f"  {result.summary()}",
        "  witness: " + json.dumps(result.to_dict()["witness"]),
    ]
    lines += [f"  note: {n}" for n in result.notes]
    return "\n".join(lines)


def assert_not_refuted(result: AuditResult) -> AuditResult:
    """Raise :class:`ClaimRefuted` (an ``AssertionError``) if ``result`` refutes its claim."""
    if result.verdict == REFUTED:
        raise ClaimRefuted(result)
    return result


def assert_private(mech: Any, claim: Claim, **kwargs: Any) -> AuditResult:
    """:func:`dpaudit.audit_privacy` followed by :func:`assert_not_refuted`."""
    return assert_not_refuted(audit_privacy(mech, claim, **kwargs))


__all__ = ["ClaimRefuted", "ExploreThenCommit", "assert_not_refuted", "assert_private", "explore_then_commit_regret",
           "refutation_message"]
