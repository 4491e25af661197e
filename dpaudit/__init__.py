"""dpaudit: verification and statistical testing of differential-privacy claims.

>>> import dpaudit
>>> from dpaudit.mechanisms import LaplaceMechanism
>>> res = dpaudit.audit_privacy(LaplaceMechanism(0.5), dpaudit.PureDP(0.5), pairs=[(0, 1)])
>>> res.verdict
'verified'
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from . import _checkout, _compat, adapters  # noqa: F401 - _checkout: mechanisms/, algorithms/, audits/ from a checkout's root; _compat: the old module paths; dpaudit.adapters.opendp, .diffprivlib (the libraries are imported when used)
from ._version import __version__
from .api.canary import audit_canaries
from .api.dpsgd import audit_dpsgd, certify_dpsgd
from .api.privacy import audit_privacy
from .api.regret import audit_lower_bound, audit_regret
from .api.tail import audit_sampler, audit_tail
from .api.trace import DPSGDTrace
from .auditors.regret_order import Difference
from .bandits.experiments import run_preset
from .bandits.simulation import SimulationResult, simulate
from .core.claims import (
    ZCDP,
    Accuracy,
    ApproxDP,
    Claim,
    Conforms,
    LowerBound,
    ProofStep,
    PureDP,
    RegretBound,
    RegretOrder,
    RegretRate,
    RenyiDP,
    SubExponential,
    SubGaussian,
    TailBound,
    parse_claim,
)
from .core.dpsgd import (
    BallsAndBins,
    BatchesWithReplacement,
    ComposedDPSGD,
    DPSGDConfig,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
)
from .core.errors import (
    AuditTimeout,
    DpauditError,
    InvalidClaim,
    InvalidClaimId,
    MechanismError,
    NotNeighbours,
    SelectionError,
    UnknownName,
    UnsupportedAudit,
    UsageError,
)
from .core.neighbours import (
    AddRemoveOne,
    NeighbourRelation,
    QueryDistance,
    ReplaceOne,
    ReplaceRewardVector,
    ReplaceUser,
)
from .core.results import ERROR, NOT_REFUTED, REFUTED, VERDICTS, VERIFIED, AuditResult, Statistic
from .core.samplers import scalar, unseeded

if _TYPE_CHECKING:
    import os as _os

    from .runner.run import RunSummary as _RunSummary


def read_results(folder: "str | _os.PathLike[str]") -> "_RunSummary":
    """The run in ``folder`` (the ``--out`` of ``dpaudit run``) as a :class:`dpaudit.runner.RunSummary`:
    ``.records``, ``.exit_code`` and ``.to_frame()`` (a pandas DataFrame, one row per claim). Imports the
    runner only when called, so ``import dpaudit`` stays light."""
    from .runner.run import RunSummary

    return RunSummary.load(folder)


#: the subject packages, imported on first use (``import dpaudit; dpaudit.algorithms.ALGORITHMS``), so that
#: ``import dpaudit`` does not pay for them (algorithms: about 0.3 s more)
_LAZY_SUBPACKAGES = ("algorithms", "mechanisms")


def __getattr__(name: str):
    if name in _LAZY_SUBPACKAGES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")  # the import binds it as an attribute too
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ERROR", "NOT_REFUTED", "REFUTED", "VERDICTS", "VERIFIED", "ZCDP", "Accuracy", "AddRemoveOne", "ApproxDP",
    "AuditResult", "AuditTimeout", "Claim", "Conforms", "Difference", "DpauditError", "InvalidClaim", "InvalidClaimId",
    "LowerBound",
    "MechanismError", "NeighbourRelation", "NotNeighbours", "ProofStep", "PureDP", "QueryDistance", "RegretBound",
    "RegretOrder", "RegretRate", "RenyiDP",
    "ReplaceOne", "ReplaceRewardVector", "ReplaceUser", "SelectionError", "SimulationResult", "Statistic",
    "SubExponential", "SubGaussian", "TailBound", "UnknownName", "UnsupportedAudit", "UsageError",
    "__version__", "audit_privacy",
    "adapters", "audit_canaries", "audit_lower_bound", "audit_regret", "audit_sampler", "audit_dpsgd", "certify_dpsgd",
    "DPSGDTrace", "BallsAndBins", "BatchesWithReplacement", "ComposedDPSGD", "DPSGDConfig", "FixedSizeBatches",
    "PoissonBatches",
    "ShuffledBatches",
    "audit_tail", "parse_claim", "read_results", "run_preset", "scalar", "simulate", "unseeded",
]
