"""The Python entry point: :func:`audit_privacy`."""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .auditors import ExactUndecided, audit_exact, audit_statistical
from .auditors.exact import DEFAULT_TOLERANCE
from .claims import Claim, PrivacyClaim
from .errors import InvalidClaim, UnsupportedAudit
from .neighbours import NeighbourRelation, NeighbourSearch
from .results import AuditResult
from .seeding import as_seed_sequence, describe_seed
from .subjects import Mechanism

AUDITORS = ("auto", "exact", "statistical")


def _check_pairs(pairs: Any, relation: NeighbourRelation | None) -> list[tuple[Any, Any]]:
    if pairs is None:
        raise ValueError(
            "give pairs=[(d0, d1), ...], or neighbours=relation.over(domain) to search a domain for pairs"
        )
    try:
        pairs = list(pairs)
    except TypeError:
        raise TypeError(f"pairs must be a sequence of (d0, d1) tuples, got {type(pairs).__name__}") from None
    if not pairs:
        raise ValueError("pairs is empty; give at least one pair (d0, d1) of neighbouring inputs")
    checked = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"pairs[{i}] must be a pair (d0, d1), got {pair!r}")
        if relation is not None:
            relation.check(pair[0], pair[1])
        checked.append((pair[0], pair[1]))
    return checked


def _check_common(claim: Any, confidence: float, samples: int, auditor: str) -> None:
    if not isinstance(claim, Claim):
        raise InvalidClaim(f"claim must be a dpaudit claim such as dpaudit.PureDP(0.1), got {claim!r}")
    if not isinstance(claim, PrivacyClaim):
        raise InvalidClaim(f"audit_privacy audits privacy claims; {claim.kind} is not one")
    _check_common_numbers(confidence, samples, auditor)


def _check_common_numbers(confidence: float, samples: int, auditor: str) -> None:
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if isinstance(samples, bool) or not isinstance(samples, numbers.Integral) or samples <= 0:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    if auditor not in AUDITORS:
        raise ValueError(f"auditor must be one of {', '.join(AUDITORS)}, got {auditor!r}")


def audit_privacy(
    mech: Any,
    claim: Claim,
    *,
    pairs: Sequence[tuple[Any, Any]] | None = None,
    neighbours: NeighbourRelation | NeighbourSearch | None = None,
    confidence: float = 0.99,
    samples: int = 1_000_000,
    seed: int | np.random.SeedSequence | None = None,
    auditor: str = "auto",
    statistic: Callable[[np.ndarray], Any] | None = None,
    events: Sequence[str] | None = None,
    sequential: bool = False,
    selection_fraction: float | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
) -> AuditResult:
    """Audit a privacy claim about ``mech`` on pairs of neighbouring inputs.

    Parameters
    ----------
    mech
        ``mech(data, size, rng) -> ndarray`` (first axis ``size``) or an object with
        ``.sample(data, size, rng)``; with ``.distribution(data)`` it can be audited exactly.
    claim
        :class:`~dpaudit.PureDP` or :class:`~dpaudit.ApproxDP`.
    pairs
        Pairs ``(d0, d1)`` of neighbouring inputs. Both orders of every pair are audited.
    neighbours
        The neighbouring relation the claim is about; every pair is checked against it. Given as
        ``relation.over(domain)`` (a :class:`~dpaudit.neighbours.NeighbourSearch`) and without
        ``pairs``, the relation's candidate pairs over that domain are searched: all of them
        exactly, or screened by successive halving on selection samples before the best is
        confirmed on fresh ones.
    confidence
        Confidence of a statistical verdict (exact verdicts hold with certainty).
    samples
        Outputs drawn per side of each pair (statistical auditor).
    seed
        Seed of the audit's randomness; ``None`` draws fresh entropy, recorded in ``res.seed``.
    auditor
        ``"exact"`` (needs ``mech.distribution``), ``"statistical"``, or ``"auto"``: exact when
        the mechanism exposes its distribution and the exact auditor can decide the claim,
        statistical otherwise.
    statistic
        Maps the array of outputs to features (one number or one row per output) for the
        statistical auditor; by default the outputs themselves.
    events
        Event families of the statistical auditor: any of ``"threshold"``, ``"cells"``,
        ``"classifier"`` (default: thresholds and cells for scalar outputs, cells and a classifier
        for up to 3 coordinates, a classifier beyond).
    sequential
        Confirm with anytime-valid confidence sequences in doubling batches, stopping as soon as
        the claim is refuted (``samples`` is then a maximum).
    selection_fraction
        Share of ``samples`` used to select the event (the rest confirms it); by default half on
        small budgets, falling to a tenth on large ones.

    Returns
    -------
    AuditResult
        ``verdict`` is ``verified`` (exact), ``refuted`` (with ``witness``) or ``not-refuted``;
        ``epsilon_lower`` is the certified lower bound on epsilon at ``confidence``.

    Raises
    ------
    DpauditError
        On invalid arguments or a misbehaving mechanism (a clear message, never a verdict).
    """
    _check_common(claim, confidence, samples, auditor)
    seq = as_seed_sequence(seed)
    relation = neighbours.relation if isinstance(neighbours, NeighbourSearch) else neighbours
    if relation is not None and not isinstance(relation, NeighbourRelation):
        raise TypeError(f"neighbours must be a relation or relation.over(domain), got {neighbours!r}")
    if pairs is None and isinstance(neighbours, NeighbourSearch):
        search_seed, seq = seq.spawn(2)
        pairs = neighbours.pairs(np.random.default_rng(search_seed))
    checked_pairs = _check_pairs(pairs, relation)
    mechanism = Mechanism(mech)
    for d0, d1 in checked_pairs:
        mechanism.probe(d0)
        mechanism.probe(d1)
    start = time.perf_counter()
    result: AuditResult | None = None
    notes: list[str] = []
    if auditor == "exact" or (auditor == "auto" and mechanism.has_distribution):
        try:
            result = audit_exact(mechanism, claim, checked_pairs, tolerance=tolerance)
        except UnsupportedAudit as exc:
            if auditor == "exact":
                raise
            notes.append(f"exact auditor could not decide ({exc}); audited from samples instead")
    if result is None:
        result = audit_statistical(
            mechanism, claim, checked_pairs, samples=samples, confidence=float(confidence), seed=seq,
            selection_fraction=selection_fraction, statistic=statistic, events=events, sequential=sequential,
        )
        result.seed = describe_seed(seq)
    result.seconds = time.perf_counter() - start
    result.subject = mechanism.name
    result.relation = neighbours.to_dict() if neighbours is not None else None
    if isinstance(neighbours, NeighbourSearch):
        result.parameters["pairs_searched"] = len(checked_pairs)
    result.notes[:0] = notes
    return result


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
    :mod:`dpaudit.auditors.tails` for what each path proves.
    """
    from .auditors.tails import audit_tail_exact, audit_tail_statistical
    from .claims import TailClaim
    from .laws import as_law

    if not isinstance(claim, TailClaim):
        raise InvalidClaim(f"audit_tail audits SubGaussian, SubExponential and TailBound claims, got {claim!r}")
    _check_common_numbers(confidence, samples, auditor)
    law = as_law(dist_or_sampler)
    if law is None and not callable(dist_or_sampler):
        raise TypeError(
            f"give a distribution (with sample, cdf, sf, mean, var) or a sampler f(size, rng); got {dist_or_sampler!r}"
        )
    start = time.perf_counter()
    notes: list[str] = []
    result = None
    if auditor == "exact" and law is None:
        raise UnsupportedAudit("a plain sampler has no exact law; use auditor='statistical' (or 'auto')")
    if law is not None and auditor in ("exact", "auto"):
        try:
            result = audit_tail_exact(law, claim, tolerance=tolerance)
        except UnsupportedAudit as exc:
            if auditor == "exact":
                raise
            notes.append(f"exact tail audit not possible ({exc}); audited from samples instead")
    if result is None:
        seq = as_seed_sequence(seed)
        sampler = law.sample if law is not None else dist_or_sampler
        result = audit_tail_statistical(sampler, claim, samples=samples, confidence=float(confidence), seed=seq)
        result.seed = describe_seed(seq)
        result.subject = law.name if law is not None else getattr(dist_or_sampler, "__name__", repr(dist_or_sampler))
    result.seconds = time.perf_counter() - start
    result.notes[:0] = notes
    return result


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
    from .auditors.conformance import audit_conformance
    from .claims import Conforms
    from .laws import as_law

    law = as_law(reference)
    if law is None:
        raise TypeError(f"reference must be a law with cdf, sf, mean and var; got {reference!r}")
    _check_common_numbers(0.5, samples, "auto")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    draw = getattr(sampler, "sample", sampler)
    if not callable(draw):
        raise TypeError(f"sampler must be f(size, rng) or have .sample(size, rng); got {sampler!r}")
    seq = as_seed_sequence(seed)
    start = time.perf_counter()
    result = audit_conformance(draw, law, Conforms(law.name), samples=samples, seed=seq, alpha=alpha)
    result.seed = describe_seed(seq)
    result.seconds = time.perf_counter() - start
    return result


__all__ = ["AUDITORS", "ExactUndecided", "audit_privacy", "audit_sampler", "audit_tail"]
