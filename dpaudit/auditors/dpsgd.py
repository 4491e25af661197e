"""Privacy claims about DP-SGD configurations, decided by certified accounting (:mod:`dpaudit.exact.accounting`).

The subject is a DP-SGD run as its accountant sees it (:class:`~dpaudit.core.dpsgd.DPSGDConfig`, a
:class:`~dpaudit.core.dpsgd.ComposedDPSGD`, or anything with ``dpsgd_config()`` returning one: a traced training loop,
an optimizer of ``dpaudit.mechanisms.training``). A claim (epsilon, delta) is

- ``verified`` when the certified upper bound on delta(epsilon) is at most delta: every neighbouring pair, every
  adaptive choice of gradients of norm at most the clip norm;
- ``refuted`` when the certified lower bound exceeds it: a realised pair of neighbouring datasets (the witness names
  it, and which dataset comes first) whose outputs' hockey-stick divergence at epsilon is above delta;
- ``not-refuted`` otherwise, with the bracket: no violation above the certified lower bound exists, and none was
  excluded above the upper one (the record says which bound is not tight and why).

Pure DP (delta = 0) is refuted whenever the lower bound on delta(epsilon) is positive (Gaussian noise never gives
pure DP). The threat model is the accountants': every noisy step released (a final model alone is a post-processing,
so a verified claim holds for it too; a refutation is about the released steps).
"""

from __future__ import annotations

import math
from typing import Any

from ..core.claims import ApproxDP, Claim, PureDP
from ..core.dpsgd import ComposedDPSGD, DPSGDConfig
from ..core.errors import UnsupportedAudit
from ..core.results import NOT_REFUTED, REFUTED, VERIFIED, Finding, Statistic
from ..exact.accounting import certify
from .base import Auditor, Support

THREAT_MODEL = "every noisy step released (the accountants' threat model)"


def as_dpsgd_run(subject: Any) -> DPSGDConfig | ComposedDPSGD:
    """The DP-SGD configuration ``subject`` is, or describes (``subject.dpsgd_config()``)."""
    if isinstance(subject, (DPSGDConfig, ComposedDPSGD)):
        return subject
    describe = getattr(subject, "dpsgd_config", None)
    if callable(describe):
        run = describe()
        if isinstance(run, (DPSGDConfig, ComposedDPSGD)):
            return run
        raise TypeError(f"{subject!r}.dpsgd_config() must return a DPSGDConfig or ComposedDPSGD, got {run!r}")
    raise TypeError("a DP-SGD audit needs a DPSGDConfig, a ComposedDPSGD, or an object with dpsgd_config() "
                    f"(a traced training loop); got {subject!r}")


def run_name(run: DPSGDConfig | ComposedDPSGD) -> str:
    return run.label or run.describe()


class CertifiedAccountingAuditor(Auditor):
    """Decides approximate and pure DP claims about DP-SGD configurations from certified brackets (module
    docstring). Exact: never statistical, never a confidence to spend."""

    name = "certified-accounting"
    statistical = False

    def supports(self, subject: Any, claim: Claim) -> Support:
        if not isinstance(claim, (ApproxDP, PureDP)):
            return Support.no(f"certified accounting decides (epsilon, delta) and pure DP claims; got a {claim.kind} "
                              "claim")
        try:
            as_dpsgd_run(subject)
        except TypeError as exc:
            return Support.no(str(exc), noted=False)
        return Support.attempts()  # a bracket may contain the claim

    def audit(self, subject: Any, claim: Claim, *, knot: float | None = None, **_: Any) -> Finding:
        support = self.supports(subject, claim)
        if not support:
            raise UnsupportedAudit(support.reason)
        run = as_dpsgd_run(subject)
        eps = float(claim.epsilon)
        delta = float(claim.delta) if isinstance(claim, ApproxDP) else 0.0
        bracket = certify(run, delta=delta if delta > 0 else None, epsilon=eps, knot=knot)
        d_lo, d_hi = float(bracket.delta_lower), float(bracket.delta_upper)
        if d_lo > delta:
            verdict = REFUTED
        elif d_hi <= delta and delta > 0:
            verdict = VERIFIED
        else:
            verdict = NOT_REFUTED
        notes = [f"threat model: {THREAT_MODEL}",
                 f"upper bound: {bracket.upper_footing}" + ("" if bracket.tight else " (the bracket is not tight)")]
        if verdict == NOT_REFUTED:
            notes.append(f"undecided: the certified bracket delta({eps:g}) in [{d_lo:.6g}, {d_hi:.6g}] contains the "
                         f"claimed delta {delta:g}; a claim below the lower bound would be refuted")
        if delta > 0:
            statistic = Statistic(f"epsilon at delta={delta:g}", None,
                                  (float(bracket.eps_lower), float(bracket.eps_upper)), "exact")
        else:
            statistic = Statistic(f"delta at epsilon={eps:g}", None, (d_lo, d_hi), "exact")
        witness: dict[str, Any] = {}
        if verdict == REFUTED:
            witness = {"order": bracket.witness.get("order"), "pairs": bracket.witness.get("pairs"),
                       "epsilon": eps, "delta_lower": d_lo, "claimed_delta": delta,
                       "datasets": _datasets(run), **({"thresholds": bracket.witness["thresholds"]}
                                                       if "thresholds" in bracket.witness else {})}
        return Finding(
            verdict, self.name, statistic,
            epsilon_lower=float(bracket.eps_lower) if delta > 0 else None,
            delta_lower=d_lo, confidence=1.0, witness=witness, notes=notes,
            parameters={"dpsgd": run.to_dict(), "delta_upper": d_hi,
                        "epsilon_upper": float(bracket.eps_upper) if delta > 0 else None,
                        "tight": bracket.tight, "threat_model": THREAT_MODEL,
                        "certification": _jsonable(bracket.details)},
        )


def _datasets(run: DPSGDConfig | ComposedDPSGD) -> str:
    """The neighbouring datasets behind the lower bounds, in words."""
    relation = run.relation
    change = {"add-remove": "one has an example the other lacks",
              "zero-out": "one example's clipped gradient is replaced by 0",
              "replace-one": "one example's clipped gradient is replaced by its negative"}[relation]
    return (f"two datasets of which {change}; the query each step (any function of norm at most the clip norm, "
            "chosen adaptively, as DP-SGD's gradients may be) gives every other example the same value, named in "
            "the pair")


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    return x


__all__ = ["THREAT_MODEL", "CertifiedAccountingAuditor", "as_dpsgd_run", "run_name"]
