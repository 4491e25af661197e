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
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..core.claims import ApproxDP, Claim, PureDP
from ..core.dpsgd import ADD_REMOVE, ZERO_OUT, ComposedDPSGD, DPSGDConfig, PoissonBatches
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

    def audit(self, subject: Any, claim: Claim, *, knot: float | None = None, sweep: int = 0,
              accountants: Mapping[str, Accounting] | None = None, **_: Any) -> Finding:
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
        plot: dict[str, Any] = {"kind": "dpsgd-bracket", "eps": eps, "delta": delta, "delta_bracket": (d_lo, d_hi),
                                "eps_bracket": ((float(bracket.eps_lower), float(bracket.eps_upper))
                                                if delta > 0 else None), "tight": bracket.tight}
        if sweep and delta > 0:
            plot = noise_sweep(run, eps, delta, sweep, knot, accountants)
        return Finding(
            verdict, self.name, statistic, plot_data=plot,
            epsilon_lower=float(bracket.eps_lower) if delta > 0 else None,
            delta_lower=d_lo, confidence=1.0, witness=witness, notes=notes,
            parameters={"dpsgd": run.to_dict(), "delta_upper": d_hi,
                        "epsilon_upper": float(bracket.eps_upper) if delta > 0 else None,
                        "tight": bracket.tight, "threat_model": THREAT_MODEL,
                        **({"sweep": int(sweep)} if sweep and delta > 0 else {}),
                        "certification": _jsonable(bracket.details)},
        )


def scaled(run: DPSGDConfig | ComposedDPSGD, factor: float) -> DPSGDConfig | ComposedDPSGD:
    """``run`` with every noise multiplier times ``factor``."""
    if isinstance(run, DPSGDConfig):
        per_epoch = run.sampler.per_epoch
        return DPSGDConfig(run.sampler, run.noise_multiplier * factor, steps=None if per_epoch else run.steps,
                           epochs=run.epochs if per_epoch else None, relation=run.relation)
    return ComposedDPSGD(tuple(scaled(p, factor) for p in run.parts))


def as_poisson(run: DPSGDConfig | ComposedDPSGD) -> DPSGDConfig | ComposedDPSGD | None:
    """The run as a Poisson accountant models it (Poisson sampling at the nominal rate, the same steps, add-remove
    for a zero-out claim); None if it is Poisson already. A composition's Poisson parts stay as they are, but about
    add-remove where the composition is about zero-out, so that every part is about the same relation (under
    Poisson sampling the two relations give the same pair of output laws)."""
    if isinstance(run, ComposedDPSGD):
        if all(isinstance(p.sampler, PoissonBatches) for p in run.parts):
            return None
        return ComposedDPSGD(tuple(as_poisson(p) or _add_remove(p) for p in run.parts))
    s = run.sampler
    if isinstance(s, PoissonBatches):
        return None
    rate = s.batch / s.size if hasattr(s, "batch") else 1.0 / s.batches
    relation = ADD_REMOVE if run.relation == ZERO_OUT else run.relation
    return DPSGDConfig(PoissonBatches(min(rate, 1.0)), run.noise_multiplier, steps=run.steps, relation=relation)


def _add_remove(run: DPSGDConfig) -> DPSGDConfig:
    """A Poisson run about add-remove instead of zero-out (the same output laws); any other run as it is."""
    if run.relation != ZERO_OUT:
        return run
    return DPSGDConfig(run.sampler, run.noise_multiplier, steps=run.steps, relation=ADD_REMOVE)


def rdp_epsilon(run: DPSGDConfig | ComposedDPSGD, delta: float) -> float | None:
    """dp-accounting's RDP epsilon of ``run`` accounted as Poisson sampling at its nominal rate (what most training
    code reports); None where dp-accounting is missing or raises."""
    try:
        from dp_accounting import NeighboringRelation, dp_event
        from dp_accounting.rdp import rdp_privacy_accountant
    except ImportError:  # pragma: no cover - a dependency of dpaudit
        return None
    poisson = as_poisson(run) or run
    try:
        relation = (NeighboringRelation.REPLACE_ONE if poisson.relation == "replace-one"
                    else NeighboringRelation.ADD_OR_REMOVE_ONE)
        accountant = rdp_privacy_accountant.RdpAccountant(neighboring_relation=relation)
        for part in (poisson.parts if isinstance(poisson, ComposedDPSGD) else (poisson,)):
            event = dp_event.GaussianDpEvent(part.noise_multiplier)
            if part.sampler.rate < 1:
                event = dp_event.PoissonSampledDpEvent(part.sampler.rate, event)
            accountant.compose(event, part.steps)
        return float(accountant.get_epsilon(delta))
    except Exception:  # noqa: BLE001 - an accountant's failure is not the audit's
        return None


#: the noise multipliers of a sweep, as factors of the run's
SWEEP_FACTORS = (0.5, 2.0)
#: an accountant as the sweep asks it: (run, delta) -> epsilon
Accounting = Callable[[Any, float], "float | None"]


def noise_sweep(run: DPSGDConfig | ComposedDPSGD, eps: float | None, delta: float, points: int,
                knot: float | None = None, accountants: Mapping[str, Accounting] | None = None) -> dict[str, Any]:
    """Plot data: eps(delta) against the noise multiplier (the run's times factors from 0.5 to 2), the certified
    band of the run's sampler, the certified band of Poisson sampling at its rate (where it is not Poisson), and
    each accountant's epsilon (``accountants``: label -> function of (run, delta) returning an epsilon, None or
    raising where it has none; by default dp-accounting's RDP as Poisson); the claim ``eps`` at the run's own multiplier
    (None: no claim, none drawn)."""
    factors = np.geomspace(*SWEEP_FACTORS, max(int(points), 2))
    base = run.noise_multiplier if isinstance(run, DPSGDConfig) else run.parts[0].noise_multiplier
    out: dict[str, Any] = {"kind": "dpsgd-sweep", "z": (base * factors).tolist(), "delta": delta,
                           "claim": None if eps is None else (base, eps), "sampler": run_name(run)[:80],
                           "bands": {}, "accountants": {}}
    poisson = as_poisson(run)
    for name, subject in (("certified, " + _sampler_label(run), run),
                          ("certified, Poisson at the same rate", poisson)):
        if subject is None:
            continue
        lo, hi = [], []
        for f in factors:
            b = certify(scaled(subject, float(f)), delta=delta, knot=knot)
            lo.append(float(b.eps_lower))
            hi.append(float(b.eps_upper))
        out["bands"][name] = (lo, hi)
    for label, account in (accountants or {"dp-accounting RDP (as Poisson)": rdp_epsilon}).items():
        out["accountants"][label] = [_accounted(account, scaled(run, float(f)), delta) for f in factors]
    return out


def _accounted(account: Accounting, run: DPSGDConfig | ComposedDPSGD, delta: float) -> float | None:
    """The accountant's epsilon, or None where it raises or returns NaN (its curve has a gap there)."""
    try:
        value = account(run, delta)
    except Exception:  # noqa: BLE001 - an accountant's failure is a gap in its curve, not the audit's
        return None
    return float(value) if value is not None and math.isfinite(float(value)) else None


def _sampler_label(run: DPSGDConfig | ComposedDPSGD) -> str:
    parts = run.parts if isinstance(run, ComposedDPSGD) else (run,)
    kinds = sorted({p.sampler.kind for p in parts})
    return " + ".join(kinds) + " batches"


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


__all__ = ["THREAT_MODEL", "Accounting", "CertifiedAccountingAuditor", "as_dpsgd_run", "as_poisson", "noise_sweep",
           "rdp_epsilon", "run_name", "scaled"]
