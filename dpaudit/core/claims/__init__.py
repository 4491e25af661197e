"""Claims: small immutable statements to audit, validated when they are made.

Privacy claims (:class:`PureDP`, :class:`ApproxDP`, :class:`RenyiDP`, :class:`ZCDP`) are about a
mechanism under a neighbouring relation; tail claims (:class:`SubGaussian`,
:class:`SubExponential`, :class:`TailBound`) about a random variable; :class:`Accuracy`,
:class:`RegretBound`, :class:`RegretRate` and :class:`LowerBound` about an estimator or an algorithm.
A suite entry adds the claim id, the relation and the parameter point; the claim itself is only the
mathematics.

Every constructor rejects parameters outside the claim's domain with an :class:`InvalidClaim`
that names the parameter, e.g. ``PureDP(-1)`` -> "PureDP: epsilon must be >= 0, got -1".
:func:`parse_claim` reads the command line's claim strings (``"pure-dp eps=0.1"``).

One module per family: :mod:`~dpaudit.core.claims.base` (:class:`Claim`), :mod:`~dpaudit.core.claims.privacy`,
:mod:`~dpaudit.core.claims.tail`, :mod:`~dpaudit.core.claims.regret`, :mod:`~dpaudit.core.claims.lower_bound`
and :mod:`~dpaudit.core.claims.parse`. Part of the vocabulary: imports only :mod:`dpaudit.core`.
"""

from .base import Claim, describe_function
from .lower_bound import LowerBound, ProofStep
from .parse import parse_claim
from .privacy import ZCDP, ApproxDP, PrivacyClaim, PureDP, RenyiDP
from .regret import (
    ORDER_POINTS,
    RATE_VARIABLES,
    REGRET_BOUND_PARAMETERS,
    RegretBound,
    RegretClaim,
    RegretOrder,
    RegretRate,
)
from .tail import Accuracy, Conforms, SubExponential, SubGaussian, TailBound, TailClaim

__all__ = [
    "Accuracy", "ApproxDP", "Claim", "Conforms", "LowerBound", "ORDER_POINTS", "PrivacyClaim", "ProofStep",
    "PureDP", "RATE_VARIABLES", "REGRET_BOUND_PARAMETERS", "RegretBound", "RegretClaim", "RegretOrder",
    "RegretRate", "RenyiDP", "SubExponential", "SubGaussian", "TailBound", "TailClaim", "ZCDP", "describe_function",
    "parse_claim"
]
