"""What an adapter returns, and the audit it makes possible.

An :class:`Adapted` subject is a library's mechanism as dpaudit sees it: a sampler (the library's own
draws), the claim the library states, the neighbouring relation its sensitivity or metric implies,
default pairs of neighbouring inputs, and, where the mechanism's law is known from its parameters, the
exact output distribution (``.distribution(data)``) and the reference law its samples must follow.

:func:`audit` then makes two checks where a law is known: the exact privacy of that law (the
library's parameters, decided exactly: ApproxDP at delta = 1e-5 and zCDP included), and a conformance
audit that the library's samples follow the law (:func:`dpaudit.audit_sampler`), at each input of
the audited pairs. Together they say: the law the library's parameters define has the stated privacy,
and the library draws from that law. Without a known law it is the black-box audit of the samples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..api.privacy import audit_privacy
from ..api.tail import audit_sampler
from ..core.claims import Claim
from ..core.neighbours import NeighbourRelation
from ..core.results import ERROR, REFUTED, AuditResult
from ..core.seeding import as_seed_sequence

#: a reference for the conformance audit at one input: a law (with cdf, sf, mean, var) and the map
#: from the mechanism's outputs to that law's variable (the noise: output minus input; or codes)
Reference = tuple[Any, Callable[[np.ndarray], np.ndarray]]


class Adapted:
    """A library's mechanism with the claim, relation and (where known) law that its parameters state.

    Use it as a mechanism anywhere dpaudit takes one (it has ``.sample(data, size, rng)``, and
    ``.distribution(data)`` where the law is known), or audit it with :func:`audit`. ``notes`` say how
    the claim and law were read from the library.
    """

    def __init__(self, name: str, sampler: Any, claim: Claim, *, relation: NeighbourRelation | None = None,
                 pairs: Sequence[tuple[Any, Any]] | None = None, law: Callable[[Any], Any] | None = None,
                 reference: Callable[[Any], Reference] | None = None, notes: Sequence[str] = ()):
        self.name = name
        self.sampler = sampler
        self.claim = claim
        self.relation = relation
        self.pairs = None if pairs is None else [tuple(p) for p in pairs]
        self.reference = reference
        self.notes = list(notes)
        self.reproducible = getattr(sampler, "reproducible", True)
        if law is not None:  # only a known law makes the subject auditable exactly
            self.distribution = law

    @property
    def white_box(self) -> bool:
        """Whether the law is known (exact privacy and a conformance audit)."""
        return callable(getattr(self, "distribution", None)) and self.reference is not None

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sampler.sample(data, size, rng)

    def __repr__(self) -> str:
        return f"Adapted({self.name}, {self.claim}, {'white-box' if self.white_box else 'black-box'})"


@dataclass
class AdaptedAudit:
    """The audit of an :class:`Adapted` subject: the privacy record and, where the law is known, one
    conformance record per audited input. ``verdict`` is ``refuted`` if any check refutes (the claim
    about the law, or the samples' conformance to it), ``error`` if any errs, else the privacy verdict."""

    subject: str
    claim: Claim
    privacy: AuditResult
    conformance: list[AuditResult] = field(default_factory=list)
    inputs: list[Any] = field(default_factory=list)

    @property
    def records(self) -> list[AuditResult]:
        return [self.privacy, *self.conformance]

    @property
    def verdict(self) -> str:
        verdicts = [r.verdict for r in self.records]
        if ERROR in verdicts:
            return ERROR
        if REFUTED in verdicts:
            return REFUTED
        return self.privacy.verdict

    @property
    def estimate(self) -> float | None:
        return self.privacy.estimate

    @property
    def epsilon_lower(self) -> float | None:
        return self.privacy.epsilon_lower

    def summary(self) -> str:
        """The verdict, then one line per check."""
        lines = [f"{self.subject}: {self.verdict}",
                 f"  privacy, {self.claim} ({self.privacy.auditor}): {self.privacy.summary()}"]
        for data, r in zip(self.inputs, self.conformance):
            lines.append(f"  conformance of the samples at input {data!r}: {r.summary()}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _distinct(values: list[Any]) -> list[Any]:
    seen, out = set(), []
    for v in values:
        key = repr(np.asarray(v).tolist()) if not isinstance(v, str) else v
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def audit(subject: Adapted, *, pairs: Sequence[tuple[Any, Any]] | None = None, claim: Claim | None = None,
          neighbours: NeighbourRelation | None = None, confidence: float = 0.99, samples: int = 1_000_000,
          seed: int | np.random.SeedSequence | None = None,
          auditor: str = "auto", conformance_samples: int = 1_000_000, alpha: float = 1e-6,
          **settings: Any) -> AdaptedAudit:
    """Audit an adapted library mechanism: the claim it states (or ``claim``) on ``pairs`` (default:
    the adapter's) of the relation it implies (or ``neighbours``: the relation of the query the
    mechanism is really applied to, which catches a sensitivity set too low), exactly where its law is
    known, plus a conformance audit of its samples against that law at every input of the pairs.

    ``samples`` and ``confidence`` are the black-box privacy audit's (used when no law is known, or
    with ``auditor="statistical"``); ``conformance_samples`` and ``alpha`` the conformance audits'
    (``alpha`` is split evenly over the inputs: the chance that a library drawing exactly from the law
    fails any of them is at most ``alpha``). ``settings`` go to :func:`dpaudit.audit_privacy`.
    """
    if not isinstance(subject, Adapted):
        raise TypeError(f"audit takes what dpaudit.adapters.opendp or .diffprivlib returns, got {subject!r}")
    pairs = list(pairs) if pairs is not None else subject.pairs
    if not pairs:
        raise ValueError(f"{subject.name}: give pairs=[(d0, d1), ...] of neighbouring inputs to audit")
    privacy_seed, conformance_seed = as_seed_sequence(seed).spawn(2)
    claim = claim or subject.claim
    privacy = audit_privacy(subject, claim, pairs=pairs,
                            neighbours=neighbours if neighbours is not None else subject.relation,
                            confidence=confidence, samples=samples, seed=privacy_seed, auditor=auditor, **settings)
    result = AdaptedAudit(subject.name, claim, privacy)
    if subject.white_box and privacy.verdict != ERROR:
        inputs = _distinct([d for pair in pairs for d in pair])
        for data, child in zip(inputs, conformance_seed.spawn(len(inputs))):
            law, to_variable = subject.reference(data)

            def draws(size: int, rng: np.random.Generator, data: Any = data, to_variable=to_variable) -> np.ndarray:
                return to_variable(np.asarray(subject.sample(data, size, rng)))

            draws.__name__ = f"{subject.name} at {data!r}"
            result.conformance.append(audit_sampler(draws, law, samples=conformance_samples, seed=child,
                                                    alpha=alpha / len(inputs)))
            result.inputs.append(data)
    return result


__all__ = ["Adapted", "AdaptedAudit", "Reference", "audit"]
