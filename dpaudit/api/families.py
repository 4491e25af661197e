"""The audit families (privacy, tail, conformance, regret bound, rate and order), each with its exact and its
statistical auditor, and the checks of the arguments every entry point shares."""

from __future__ import annotations

import numbers

from ..auditors import (
    ConformanceAuditor,
    ExactPrivacyAuditor,
    ExactTailAuditor,
    StatisticalPrivacyAuditor,
    StatisticalTailAuditor,
)
from ..auditors.exact_regret import ExactRegretAuditor
from ..auditors.regret_bound import RegretBoundAuditor
from ..auditors.regret_order import RegretOrderAuditor
from ..auditors.regret_rate import RegretRateAuditor
from .driver import MODES, Family

AUDITORS = MODES
PRIVACY = Family("privacy", ExactPrivacyAuditor(), StatisticalPrivacyAuditor())
TAIL = Family("tail", ExactTailAuditor(), StatisticalTailAuditor())
CONFORMANCE = Family("conformance", None, ConformanceAuditor())
REGRET_BOUND = Family("regret-bound", ExactRegretAuditor(), RegretBoundAuditor())
REGRET_RATE = Family("regret-rate", None, RegretRateAuditor())
REGRET_ORDER = Family("regret-order", None, RegretOrderAuditor())


def check_numbers(confidence: float | None, samples: int, auditor: str) -> None:
    """The arguments every entry point shares; ``confidence`` None means "no statistical budget"."""
    # 1 - confidence, the level a test spends, must be in (0, 1) in floating point too: 1 - 1e-300 is 1
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, numbers.Real)
                                   or not 0 < confidence < 1 or not 0 < 1 - float(confidence) < 1):
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if isinstance(samples, bool) or not isinstance(samples, numbers.Integral) or samples <= 0:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    if not isinstance(auditor, str) or auditor not in MODES:
        raise ValueError(f"auditor must be one of {', '.join(MODES)}, got {auditor!r}")


__all__ = [
    "AUDITORS", "CONFORMANCE", "PRIVACY", "REGRET_BOUND", "REGRET_ORDER", "REGRET_RATE", "TAIL", "check_numbers"
]
