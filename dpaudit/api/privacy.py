""":func:`audit_privacy`: a privacy claim about a mechanism, audited on neighbouring pairs (exactly where the
mechanism's output law can be computed, from samples otherwise)."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..auditors.exact_privacy import DEFAULT_TOLERANCE
from ..core.claims import (
    Claim,
    PrivacyClaim,
)
from ..core.errors import InvalidClaim
from ..core.memory import check_sample_memory
from ..core.neighbours import NeighbourRelation, NeighbourSearch
from ..core.results import AuditResult
from ..core.samplers import UNSEEDED_NOTE
from ..core.seeding import as_seed_sequence
from ..core.subjects import LISTED_CATEGORIES, Mechanism
from ..core.validation import probability
from .driver import AuditPlan, conduct, plan_audit
from .families import PRIVACY, check_numbers
from .records import Audit, assemble_record

#: the record's relation when pairs come without one: the verdict is about those pairs, taken as neighbours unchecked
UNCHECKED = {"name": "unchecked", "description": "none given: the pairs were taken as neighbours unchecked"}


def _check_pairs(pairs: Any, relation: NeighbourRelation | None) -> list[tuple[Any, Any]]:
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


def privacy_plan(mech: Any, claim: Claim, auditor: str) -> AuditPlan:
    """How :func:`privacy_audit` will audit ``claim`` about ``mech`` in mode ``auditor``."""
    return plan_audit(PRIVACY, Mechanism(mech), claim, auditor)


def privacy_audit(
    mech: Any,
    claim: Claim,
    *,
    pairs: Sequence[tuple[Any, Any]] | None = None,
    neighbours: NeighbourRelation | NeighbourSearch | None = None,
    confidence: float | None = 0.99,
    samples: int = 1_000_000,
    seed: int | np.random.SeedSequence | None = None,
    auditor: str = "auto",
    plan: AuditPlan | None = None,
    **settings: Any,
) -> Audit:
    """:func:`audit_privacy` up to the record (same arguments; ``confidence=None``: nothing to spend on
    samples, so an exact audit that cannot decide is an error rather than a fallback; ``plan``: the
    plan :func:`privacy_plan` gave, so that the auditors are asked once)."""
    if not isinstance(claim, Claim):
        raise InvalidClaim(f"claim must be a dpaudit claim such as dpaudit.PureDP(0.1), got {claim!r}")
    if not isinstance(claim, PrivacyClaim):
        raise InvalidClaim(f"audit_privacy audits privacy claims; {claim.kind} is not one")
    check_numbers(confidence, samples, auditor)
    _check_settings(settings)
    confidence = None if confidence is None else float(confidence)
    seq = as_seed_sequence(seed)
    relation = neighbours.relation if isinstance(neighbours, NeighbourSearch) else neighbours
    if relation is not None and not isinstance(relation, NeighbourRelation):
        raise TypeError(f"neighbours must be a relation or relation.over(domain), got {neighbours!r}")
    audit_seed = seq
    if isinstance(neighbours, NeighbourSearch):
        # the searched pairs (from the search's own stream), then any given ones
        search_seed, audit_seed = seq.spawn(2)
        pairs = neighbours.pairs(np.random.default_rng(search_seed)) + list(pairs or [])
    elif pairs is None:
        raise ValueError("give pairs=[(d0, d1), ...], or neighbours=relation.over(domain) to search a domain for pairs")
    checked_pairs = _check_pairs(pairs, relation)
    mechanism = Mechanism(mech)
    width = _probed_width(mechanism, checked_pairs)
    plan = plan or plan_audit(PRIVACY, mechanism, claim, auditor)
    if plan.statistical:  # samples will (or may) be drawn: refuse a count that cannot fit, with the figure
        check_sample_memory(samples, width)
    finding, seconds = conduct(plan, mechanism, claim, confidence=confidence, seed=audit_seed, pairs=checked_pairs,
                               samples=samples, **settings)
    if isinstance(neighbours, NeighbourSearch):
        finding.parameters["pairs_searched"] = len(checked_pairs)
    if not mechanism.reproducible:
        finding.notes.append(UNSEEDED_NOTE)
    if mechanism.categories:
        # the codes the auditor saw stand for these outputs (code i is categories[i])
        finding.parameters["categories"] = [str(c) if isinstance(c, str) else repr(c)
                                            for c in mechanism.categories[:LISTED_CATEGORIES]]
    return Audit(claim, mechanism.name, finding, seq, seconds,
                 neighbours.to_dict() if neighbours is not None else dict(UNCHECKED))


def _check_settings(settings: dict[str, Any]) -> None:
    """The statistical auditor's settings, checked for their kind before anything is drawn (their values, such as
    the event families' names, are the auditor's to check): one error naming the argument."""
    statistic, events = settings.get("statistic"), settings.get("events")
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be a function of the outputs (or None), got {statistic!r}")
    if events is not None and (isinstance(events, (str, bytes)) or not isinstance(events, Iterable)
                               or not all(isinstance(family, str) for family in events)):
        raise TypeError(f"events must be a list of event families such as ['threshold', 'cells'], got {events!r}")
    sequential = settings.get("sequential")
    if sequential is not None and not isinstance(sequential, (bool, np.bool_)):
        raise TypeError(f"sequential must be True, False or None, got {sequential!r}")
    tolerance = settings.get("tolerance", 0.0)
    if isinstance(tolerance, (bool, np.bool_)) or not isinstance(tolerance, numbers.Real) or not 0 <= tolerance < 1:
        raise ValueError(f"tolerance must be in [0, 1), got {tolerance!r}")  # the exact auditor's words
    if settings.get("selection_fraction") is not None:
        probability("audit_privacy", "selection_fraction", settings["selection_fraction"])


def _probed_width(mechanism: Mechanism, pairs: list) -> int:
    """Probe the mechanism on every input of the pairs (:meth:`Mechanism.probe`) and return the numbers per output,
    the widest the probes saw. An input equal to one probed before, as numbers, is not probed again: a search's
    pairs mostly share one side (Hybrid-UCB's decisions over 155 searched pairs: 620 probe calls, 2.5 s)."""
    width, seen = 1, set()
    for data in (data for pair in pairs for data in pair):
        key = _value_key(data)
        if key is not None and key in seen:
            continue
        seen.add(key)
        width = max(width, int(np.prod(mechanism.probe(data).shape[1:], dtype=np.int64)))
    return width


def _value_key(data: Any) -> tuple | None:
    """A key equal for inputs equal as numeric arrays (shape, type and values), None for any other input."""
    try:
        array = np.asarray(data)
    except Exception:  # noqa: BLE001 - an input numpy cannot read is simply probed
        return None
    if array.dtype.kind not in "biuf":
        return None
    return array.shape, array.dtype.str, array.tobytes()


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
    sequential: bool | None = None,
    selection_fraction: float | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
) -> AuditResult:
    """Audit a privacy claim about ``mech`` on pairs of neighbouring inputs.

    Parameters
    ----------
    mech
        ``mech(data, size, rng) -> ndarray`` (first axis ``size``) or an object with
        ``.sample(data, size, rng)``; with ``.distribution(data)`` it can be audited exactly. It must
        draw from ``rng`` only (checked), unless wrapped as :func:`dpaudit.unseeded` (it draws its own
        randomness: the check is skipped and the record says so). A function returning one output per
        call is wrapped by :func:`dpaudit.scalar`. Outputs are numbers, rows of numbers, or categories
        (strings, other hashables), which are mapped to integer codes (``parameters["categories"]``).
    claim
        :class:`~dpaudit.PureDP` (epsilon), :class:`~dpaudit.ApproxDP` (epsilon, delta),
        :class:`~dpaudit.RenyiDP` (order alpha, epsilon; one order or a curve) or :class:`~dpaudit.ZCDP`
        (rho).
    pairs
        Pairs ``(d0, d1)`` of neighbouring inputs. Both orders of every pair are audited. Without
        ``neighbours`` they are taken as neighbours unchecked, and the record's ``relation`` says so
        (``{"name": "unchecked", ...}``, shown in the report).
    neighbours
        The neighbouring relation the claim is about; every pair is checked against it. Given as
        ``relation.over(domain)`` (a :class:`~dpaudit.core.neighbours.NeighbourSearch`), the relation's
        candidate pairs over that domain are searched too, followed by any given ``pairs``: all of
        them exactly, or screened by successive halving on selection samples before the best is
        confirmed on fresh ones.
    confidence
        Confidence of a statistical verdict (exact verdicts hold with certainty).
    samples
        Outputs drawn per side of each pair (statistical auditor).
    seed
        Seed of the audit's randomness; ``None`` draws fresh entropy, recorded in ``res.seed``.
    auditor
        ``"exact"`` (needs ``mech.distribution``), ``"statistical"``, or ``"auto"``: exact when
        the mechanism exposes its distribution and the exact auditor supports the claim, falling back
        to samples if it cannot decide it; statistical otherwise.
    statistic
        Maps the array of outputs to features (one number or one row per output) for the
        statistical auditor; by default the outputs themselves.
    events
        Event families of the statistical auditor: any of ``"threshold"``, ``"cells"``, ``"rows"``,
        ``"classifier"``, ``"atoms"`` (default: thresholds and cells for scalar outputs, cells and a
        classifier for up to 3 coordinates, rows (exact cells over few distinct output rows) and a
        classifier beyond; atoms, outputs that repeat exactly, always).
    sequential
        Draw in growing batches, bet on each with an event chosen from the outputs before it, and stop
        as soon as the claim is refuted (``samples`` is then a maximum; ``parameters["samples_drawn"]``
        says how many were drawn). A tenth of the level goes to the bets, the rest to the fixed-size
        test of the confirmation outputs when the budget runs out. The default (``None``) for pure and
        approximate DP claims; ``False`` draws the whole budget and certifies the tightest bound it can
        (a sequential audit stops once the bound passes the claim). For Renyi and zCDP claims ``True``
        confirms in doubling batches with confidence sequences after a fixed selection.
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
    if confidence is None:
        raise ValueError("confidence must be in (0, 1), got None")
    return assemble_record(privacy_audit(
        mech, claim, pairs=pairs, neighbours=neighbours, confidence=confidence, samples=samples, seed=seed,
        auditor=auditor, statistic=statistic, events=events, sequential=sequential,
        selection_fraction=selection_fraction, tolerance=tolerance,
    ))


__all__ = ["audit_privacy", "privacy_audit", "privacy_plan"]
