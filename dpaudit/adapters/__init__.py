"""Adapters: other libraries' mechanisms as dpaudit subjects, with the claims those libraries state.

>>> subject = dpaudit.adapters.diffprivlib(diffprivlib.mechanisms.Laplace(epsilon=1, sensitivity=1))
>>> dpaudit.adapters.audit(subject, seed=0).verdict                      # doctest: +SKIP
'verified'

- :func:`diffprivlib` (``pip install dpaudit[diffprivlib]``): a mechanism or a tool;
- :func:`opendp` (``pip install dpaudit[opendp]``): a measurement and its ``d_in``;
- :func:`audit`: the exact privacy of the law the parameters define, and a conformance audit that the
  library's samples follow it, where the law is known; a black-box audit of the samples otherwise;
- :mod:`.accountants`: privacy accountants (dp-accounting's PLD and RDP, prv-accountant, autodp) as audited
  subjects, a DP-SGD configuration in and the library's epsilon out (``benchmarks/accountant_grid.py`` holds them
  against the certified brackets of :mod:`dpaudit.exact.accounting`).

May import the vocabulary, the subject handles and the audit API, and ``dpaudit.mechanisms``' noise laws (by
name, when a library mechanism's known law is built); the runner and the public face import it.
"""

from ._diffprivlib import diffprivlib
from ._opendp import opendp
from .base import Adapted, AdaptedAudit, audit

__all__ = ["Adapted", "AdaptedAudit", "audit", "diffprivlib", "opendp"]
