""":func:`audit_dpsgd`: a privacy claim about a DP-SGD configuration, decided by certified accounting; and
:func:`certify_dpsgd`, the certified bracket itself."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..auditors.dpsgd import Accounting, CertifiedAccountingAuditor, as_dpsgd_run, run_name
from ..core.claims import ApproxDP, Claim, PureDP
from ..core.dpsgd import ComposedDPSGD, DPSGDConfig
from ..core.errors import InvalidClaim
from ..core.results import AuditResult
from ..core.seeding import as_seed_sequence
from ..exact.accounting import Bracket, certify
from .records import Audit, assemble_record

RELATIONS = {
    "add-remove": "datasets differing by one example added or removed",
    "zero-out": "datasets of one size differing in one example whose clipped gradient is replaced by 0",
    "replace-one": "datasets of one size differing in one example, replaced by any other (its clipped gradient may "
                   "flip: a change of twice the clip norm)",
}


def _claim(claim: Any) -> ApproxDP | PureDP:
    if not isinstance(claim, Claim):
        raise InvalidClaim(f"claim must be a dpaudit claim such as dpaudit.ApproxDP(3.0, 1e-5), got {claim!r}")
    if not isinstance(claim, (ApproxDP, PureDP)):
        raise InvalidClaim(f"audit_dpsgd audits (epsilon, delta) and pure DP claims; {claim.kind} is not one")
    return claim


def dpsgd_audit(subject: Any, claim: Claim, *, knot: float | None = None, sweep: int = 0,
                accountants: Mapping[str, Accounting] | None = None) -> Audit:
    """:func:`audit_dpsgd` up to the record; ``sweep`` points of eps against the noise multiplier (with
    ``accountants``' curves) as the record's plot (:func:`dpaudit.auditors.dpsgd.noise_sweep`)."""
    claim = _claim(claim)
    run = as_dpsgd_run(subject)
    start = time.perf_counter()
    finding = CertifiedAccountingAuditor().audit(run, claim, knot=knot, sweep=sweep, accountants=accountants)
    relation = {"name": run.relation, "description": RELATIONS[run.relation]}
    # certified accounting draws nothing: the seed is recorded only for the record's shape
    return Audit(claim, run_name(run), finding, as_seed_sequence(0), time.perf_counter() - start, relation)


def audit_dpsgd(subject: DPSGDConfig | ComposedDPSGD | Any, claim: Claim, *, knot: float | None = None,
                ) -> AuditResult:
    """Audit an (epsilon, delta) or pure DP claim about a DP-SGD run by certified accounting.

    Parameters
    ----------
    subject
        A :class:`~dpaudit.DPSGDConfig` (a batch sampler, the noise multiplier, steps or epochs, the neighbouring
        relation), a :class:`~dpaudit.ComposedDPSGD` of several runs on one dataset, or an object with
        ``dpsgd_config()`` returning one (a :class:`~dpaudit.DPSGDTrace` of a training loop).
    claim
        :class:`~dpaudit.ApproxDP` (epsilon, delta) or :class:`~dpaudit.PureDP`.
    knot
        The privacy-loss grid's spacing (a power of two); by default fine enough for the steps' losses.

    Returns
    -------
    AuditResult
        ``verdict``: ``verified`` (the certified upper bound on delta(epsilon) is at most delta), ``refuted``
        (the certified lower bound exceeds it; ``witness`` names the neighbouring datasets and their order) or
        ``not-refuted`` (the bracket contains the claim). ``statistic`` is the certified bracket of eps(delta),
        ``epsilon_lower`` its lower end, ``delta_lower`` the certified lower bound on delta(epsilon);
        ``parameters["delta_upper"]`` and ``parameters["epsilon_upper"]`` the upper ends.
    """
    return assemble_record(dpsgd_audit(subject, claim, knot=knot))


def certify_dpsgd(subject: DPSGDConfig | ComposedDPSGD | Any, *, delta: float | None = None,
                  epsilon: float | None = None, knot: float | None = None) -> Bracket:
    """The certified bracket of a DP-SGD run: eps(delta) in [eps_lower, eps_upper] and/or delta(eps) in
    [delta_lower, delta_upper] (:func:`dpaudit.exact.accounting.certify`)."""
    return certify(as_dpsgd_run(subject), delta=delta, epsilon=epsilon, knot=knot)


__all__ = ["RELATIONS", "audit_dpsgd", "certify_dpsgd", "dpsgd_audit"]

