""":func:`audit_tail` (a tail claim about a law or a sampler) and :func:`audit_sampler` (a sampler's
conformance to the law it claims to draw from)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..auditors import (
    TailSubject,
)
from ..core.claims import (
    Claim,
    Conforms,
    TailClaim,
)
from ..core.errors import AuditTimeout, InvalidClaim, MechanismError
from ..core.laws import as_law
from ..core.memory import check_sample_memory
from ..core.results import AuditResult
from ..core.seeding import as_seed_sequence
from ..core.subjects import subject_name
from ..core.validation import non_negative, probability
from .driver import AuditPlan, conduct, plan_audit
from .families import CONFORMANCE, TAIL, check_numbers
from .records import Audit, assemble_record


def reported(draw: Any, name: str) -> Any:
    """The user's sampler ``draw(size, rng)``, an exception it raises raised again as a
    :class:`~dpaudit.MechanismError` naming it (as a mechanism's are, so the command line and a run's record say
    where in the user's code it failed instead of showing a traceback)."""
    def sample(size: int, rng: np.random.Generator) -> Any:
        try:
            return draw(size, rng)
        except (AuditTimeout, MechanismError):  # a time limit's expiry is no failure of the user's code
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of the user's code is reported as theirs
            raise MechanismError(f"{name} raised {type(exc).__name__}: {exc}") from exc

    return sample


def tail_subject(dist_or_sampler: Any) -> TailSubject:
    """A random variable as the tail auditors see it: its law where it has one, and a sampler (a
    subject already prepared is returned as it is)."""
    if isinstance(dist_or_sampler, TailSubject):
        return dist_or_sampler
    law = as_law(dist_or_sampler)
    if law is None and not callable(dist_or_sampler):
        raise TypeError(
            f"give a distribution (with sample, cdf, sf, mean, var) or a sampler f(size, rng); got {dist_or_sampler!r}"
        )
    if law is not None:
        return TailSubject(law, law.sample, law.name)
    name = subject_name(dist_or_sampler)
    return TailSubject(None, reported(dist_or_sampler, name), name)


def tail_audit(
    dist_or_sampler: Any,
    claim: Claim,
    *,
    confidence: float | None = 0.99,
    samples: int = 1_000_000,
    seed: int | np.random.SeedSequence | None = None,
    auditor: str = "auto",
    tolerance: float = 1e-9,
    plan: AuditPlan | None = None,
) -> Audit:
    """:func:`audit_tail` up to the record (``confidence`` and ``plan`` as for :func:`privacy_audit`)."""
    if not isinstance(claim, TailClaim):
        raise InvalidClaim(f"audit_tail audits SubGaussian, SubExponential and TailBound claims, got {claim!r}")
    check_numbers(confidence, samples, auditor)
    non_negative("audit_tail", "tolerance", tolerance)
    confidence = None if confidence is None else float(confidence)
    subject = tail_subject(dist_or_sampler)
    seq = as_seed_sequence(seed)
    plan = plan or plan_audit(TAIL, subject, claim, auditor)
    if plan.statistical:  # a scalar variable: one column of samples
        check_sample_memory(samples)
    finding, seconds = conduct(plan, subject, claim, confidence=confidence, seed=seq, samples=samples,
                               tolerance=tolerance)
    return Audit(claim, subject.name, finding, seq, seconds)


def audit_tail(
    dist_or_sampler: Any,
    claim: Claim,
    *,
    confidence: float = 0.99,
    samples: int = 1_000_000,
    seed: int | np.random.SeedSequence | None = None,
    auditor: str = "auto",
    tolerance: float = 1e-9,
) -> AuditResult:
    """Audit a sub-Gaussian, sub-exponential or tail-bound claim about a random variable.

    ``dist_or_sampler`` is a distribution with exact cdf/sf (one of ``dpaudit.mechanisms.noise``,
    or a scipy.stats frozen distribution), which enables the exact path, or a sampler
    ``f(size, rng) -> ndarray``, which allows only the statistical one. ``auditor`` is ``"exact"``,
    ``"statistical"`` or ``"auto"`` (exact where the law supports the claim, else samples). See
    :mod:`dpaudit.auditors.exact_tail` and :mod:`dpaudit.auditors.statistical_tail` for what each
    path proves.
    """
    if confidence is None:
        raise ValueError("confidence must be in (0, 1), got None")
    return assemble_record(tail_audit(dist_or_sampler, claim, confidence=confidence, samples=samples, seed=seed,
                                      auditor=auditor, tolerance=tolerance))




def sampler_audit(
    sampler: Any,
    reference: Any,
    *,
    samples: int = 2_000_000,
    seed: int | np.random.SeedSequence | None = None,
    alpha: float = 1e-6,
    claim: Claim | None = None,
) -> Audit:
    """:func:`audit_sampler` up to the record; ``claim`` defaults to ``Conforms(reference's name)``."""
    law = as_law(reference)
    if law is None:
        raise TypeError(f"reference must be a law with cdf, sf, mean and var; got {reference!r}")
    check_numbers(None, samples, "statistical")
    check_sample_memory(samples)
    probability("audit_sampler", "alpha", alpha)
    draw = getattr(sampler, "sample", sampler)
    if not callable(draw):
        raise TypeError(f"sampler must be f(size, rng) or have .sample(size, rng); got {sampler!r}")
    claim = claim if claim is not None else Conforms(law.name)
    # the record names the law the sampler is held to: the claim is about it
    subject = TailSubject(law, reported(draw, subject_name(sampler)), law.name)
    seq = as_seed_sequence(seed)
    plan = plan_audit(CONFORMANCE, subject, claim, "statistical")
    finding, seconds = conduct(plan, subject, claim, confidence=1 - alpha, seed=seq, samples=samples, alpha=alpha)
    return Audit(claim, subject.name, finding, seq, seconds)


def audit_sampler(
    sampler: Any,
    reference: Any,
    *,
    samples: int = 2_000_000,
    seed: int | np.random.SeedSequence | None = None,
    alpha: float = 1e-6,
) -> AuditResult:
    """Test a sampler's outputs against an exact reference law (see :mod:`dpaudit.auditors.conformance`).

    ``sampler`` is ``f(size, rng)`` or an object with ``.sample(size, rng)``; ``reference`` a law
    (one of ``dpaudit.mechanisms.noise`` or a scipy.stats frozen distribution). The audit fails a
    correct sampler with probability at most ``alpha``.
    """
    return assemble_record(sampler_audit(sampler, reference, samples=samples, seed=seed, alpha=alpha))


__all__ = ["audit_sampler", "audit_tail", "sampler_audit", "tail_audit", "tail_subject"]
