"""Auditors: each answers whether it supports a (subject, claim) and audits it into a finding
(:mod:`.base` has the protocol). By family:

- privacy: :class:`ExactPrivacyAuditor` decides claims from exact output distributions, rigorously;
  :class:`StatisticalPrivacyAuditor` certifies lower bounds on epsilon, delta, Renyi divergence or
  rho from samples (events proposed by :mod:`.events`, bounds from :mod:`.bounds`; Renyi and zCDP claims
  about scalar outputs from a binning of them, :mod:`.renyi`);
- tails: :class:`ExactTailAuditor` from a law's cdf/sf and cumulant generating function,
  :class:`StatisticalTailAuditor` from samples;
- conformance: :class:`ConformanceAuditor` tests a sampler against its exact law;
- DP-SGD: :class:`CertifiedAccountingAuditor` decides claims about DP-SGD configurations from certified brackets
  (:mod:`dpaudit.exact.accounting`);
- regret: :class:`RegretBoundAuditor` tests explicit bounds (rigorous lower confidence bounds on
  E[R_T], or Clopper-Pearson on exceedances), :class:`RegretRateAuditor` fits rates,
  :class:`RegretOrderAuditor` tests orderings of algorithms (pairwise at matched seeds, Holm).

May import the vocabulary (:mod:`dpaudit.core`, :mod:`dpaudit.stats`), the subject handles, the exact engines
(:mod:`dpaudit.exact`) and the bandit wing's protocols and engine; the API, the suites and the reports
import them.
"""

from .base import Auditor, Finding, RegretSubject, Support, TailSubject, Undecided
from .conformance import ConformanceAuditor
from .dpsgd import CertifiedAccountingAuditor
from .exact_privacy import ExactPrivacyAuditor, ExactUndecided
from .exact_tail import ExactTailAuditor
from .regret_bound import RegretBoundAuditor
from .regret_order import RegretOrderAuditor
from .regret_rate import RegretRateAuditor
from .statistical_privacy import StatisticalPrivacyAuditor
from .statistical_tail import StatisticalTailAuditor

__all__ = ["Auditor", "CertifiedAccountingAuditor",
           "ConformanceAuditor", "ExactPrivacyAuditor", "ExactTailAuditor", "ExactUndecided", "Finding",
           "RegretBoundAuditor", "RegretOrderAuditor", "RegretRateAuditor", "RegretSubject",
           "StatisticalPrivacyAuditor", "StatisticalTailAuditor", "Support", "TailSubject", "Undecided"]
