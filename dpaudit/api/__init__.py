"""The audit API: one function per kind of claim, each checking its arguments, planning with the auditors'
own answers, running the driver and assembling the record.

- :mod:`~dpaudit.api.privacy`: :func:`audit_privacy`;
- :mod:`~dpaudit.api.tail`: :func:`audit_tail` and :func:`audit_sampler`;
- :mod:`~dpaudit.api.regret`: :func:`audit_regret` and :func:`audit_lower_bound`;
- :mod:`~dpaudit.api.dpsgd`: :func:`audit_dpsgd` and :func:`certify_dpsgd` (DP-SGD configurations, certified);
- :mod:`~dpaudit.api.families`: the audit families (each kind's exact and statistical auditor) and the
  argument checks they share;
- :mod:`~dpaudit.api.driver`: plan, conduct, fall back once; :mod:`~dpaudit.api.records`: the record.

May import the vocabulary, the exact engines, the auditors and the bandit wing; the suites, the runner, the
adapters and the CLI import it.
"""

from .dpsgd import audit_dpsgd, certify_dpsgd, dpsgd_audit
from .families import AUDITORS, CONFORMANCE, PRIVACY, REGRET_BOUND, REGRET_ORDER, REGRET_RATE, TAIL, check_numbers
from .privacy import audit_privacy, privacy_audit, privacy_plan
from .regret import (
    DEFAULT_HORIZON,
    DEFAULT_RUNS,
    audit_lower_bound,
    audit_regret,
    lower_bound_audit,
    order_subject,
    regret_audit,
    regret_subject,
)
from .tail import audit_sampler, audit_tail, sampler_audit, tail_audit, tail_subject

__all__ = [
    "AUDITORS", "CONFORMANCE", "DEFAULT_HORIZON", "DEFAULT_RUNS", "PRIVACY", "REGRET_BOUND", "REGRET_ORDER",
    "audit_dpsgd", "certify_dpsgd", "dpsgd_audit",
    "REGRET_RATE", "TAIL", "audit_lower_bound", "audit_privacy", "audit_regret", "audit_sampler", "audit_tail",
    "check_numbers", "lower_bound_audit", "order_subject", "privacy_audit", "privacy_plan", "regret_audit",
    "regret_subject", "sampler_audit", "tail_audit", "tail_subject",
]
