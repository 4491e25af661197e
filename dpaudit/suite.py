"""Suites: named collections of audit entries, and their discovery and selection.

A suite module in ``dpaudit.audits`` (one per paper key, plus ``classic``) defines a module-level
``suite = Suite(key, title)`` and adds entries to it. Users can keep suites of their own in any
module or ``.py`` file and pass it with ``dpaudit run --suite PATH``.

An entry pairs a subject with a claim, says how to audit it at each budget, and states what is
expected: by default that the claim is not refuted; an entry whose refutation has been reviewed
and accepted as a finding says ``expected="refuted"`` with the reason (like pytest's xfail) and its
footing (:data:`FOOTINGS`): what text the refuted claim stands on.
Where the true value of the claimed parameter is known (the ``classic`` suite), ``truth`` records
it (epsilon for pure DP, delta at the claimed epsilon for approximate DP, D_alpha for Renyi DP,
rho for zCDP) so that reports and benchmarks can show the audit next to it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import pkgutil
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .auditors import TailSubject
from .claim_ids import CLASSIC, PAPERS, check_suite_key, parse_claim_id, selector_matches
from .claims import Claim, Conforms, TailClaim
from .driver import MODES, AuditPlan, plan_audit
from .errors import MechanismError, SelectionError
from .laws import as_law
from .neighbours import NeighbourRelation, NeighbourSearch
from .records import Audit
from .results import NOT_REFUTED, REFUTED
from .subjects import subject_name

#: ``paper`` runs the regret entries at the papers' horizons and run counts (and the others as ``standard``)
BUDGETS = ("quick", "standard", "thorough", "paper")
#: a budget an entry gives no value for takes the value of this one (``thorough`` and ``paper`` grow
#: ``standard``'s numbers only where an entry says how)
BUDGET_FALLBACK = {"standard": "quick", "thorough": "standard", "paper": "standard"}
# Samples per side of a pair for statistical privacy audits.
DEFAULT_SAMPLES = {"quick": 200_000, "standard": 2_000_000, "thorough": 20_000_000}
# Seconds an entry may run before it becomes an error record.
DEFAULT_TIMEOUTS = {"quick": 600.0, "standard": 3600.0, "thorough": 6 * 3600.0, "paper": 6 * 3600.0}


def at_budget(table: dict[str, Any], budget: str) -> Any:
    """``table[budget]``, or the value of the budget it falls back to (:data:`BUDGET_FALLBACK`)."""
    key: str | None = budget
    while key is not None and key not in table:
        key = BUDGET_FALLBACK.get(key)
    if key is None:
        raise KeyError(f"no value for budget {budget!r} (nor any it falls back to) in {sorted(table)}")
    return table[key]
EXPECTATIONS = (NOT_REFUTED, REFUTED)
#: what an expected refutation stands on, strongest first: the claim exactly as the paper (or the suite)
#: states it; a reading of text the source garbled (the reason says how the spec reads it, and an entry
#: beside it encodes the other reading); an intermediate step of a proof, not the result; a statement
#: whose slip the paper itself shows (its proof or another form has the intended expression)
FOOTINGS = ("as printed", "as reconstructed from damaged text", "proof step", "typo evident")
#: the package of ``dpaudit.audits`` that holds the experiment presets, skipped by suite discovery
PRESETS_PACKAGE = "experiments"


@dataclass(frozen=True)
class RunContext:
    """What an entry needs from the run: its seed, the budget, its share of alpha, and where the run
    keeps its simulations (None: in memory only)."""

    run_seed: int
    budget: str
    alpha: float
    seed_sequence: np.random.SeedSequence
    cache_dir: str | None = None


class Entry(ABC):
    """One audited claim of a suite.

    ``subject`` is the object audited (a mechanism, a law or a sampler) and :attr:`subject_name` its
    name in listings and records. :attr:`plan` is how it will be audited, asked of the auditors once
    (:func:`dpaudit.driver.plan_audit`); :attr:`statistical`, whether its verdict may be statistical,
    comes from that plan, and decides whether the entry takes a share of the run's alpha.
    ``budgets`` are the budgets it runs at (default all): a claim that only the papers' horizons can
    test says ``budgets=("paper",)``, and a run at another budget leaves it out (and says so).
    ``expected`` may differ by budget (``{"quick": "not-refuted", "paper": "refuted"}``) where only
    the paper's scale resolves a finding. An entry that expects a refutation gives its ``reason`` and
    its ``footing`` (one of :data:`FOOTINGS`), which the record and the report's findings show.
    """

    def __init__(
        self,
        id: str,
        *,
        claim: Claim,
        title: str = "",
        relation: NeighbourRelation | NeighbourSearch | None = None,
        expected: str | dict[str, str] = NOT_REFUTED,
        reason: str | None = None,
        footing: str | None = None,
        timeout: float | None = None,
        truth: float | None = None,
        budgets: Sequence[str] | None = None,
    ):
        self.claim_id = parse_claim_id(id)
        if budgets is not None and (isinstance(budgets, str) or not budgets or set(budgets) - set(BUDGETS)):
            raise ValueError(f"{id}: budgets must be a non-empty list of {BUDGETS}, got {budgets!r}")
        #: the budgets this entry runs at (a claim that only the papers' horizons can test runs at "paper")
        self.budgets = tuple(budgets) if budgets is not None else BUDGETS
        if not isinstance(claim, Claim):
            raise TypeError(f"{id}: claim must be a dpaudit claim, got {claim!r}")
        by_budget = expected if isinstance(expected, dict) else {"quick": expected}
        if not by_budget or "quick" not in by_budget or set(by_budget) - set(BUDGETS):
            raise ValueError(f"{id}: expected per budget needs the quick budget's and only budgets of {BUDGETS}, got "
                             f"{expected!r}")
        for value in by_budget.values():
            if value not in EXPECTATIONS:
                raise ValueError(f"{id}: expected must be one of {EXPECTATIONS}, got {value!r}")
        if REFUTED in by_budget.values() and not (isinstance(reason, str) and reason.strip()):
            raise ValueError(f"{id}: expected='refuted' needs a one-line reason saying why the refutation is accepted")
        if footing is not None and footing not in FOOTINGS:
            raise ValueError(f"{id}: footing must be one of {FOOTINGS}, got {footing!r}")
        if REFUTED in by_budget.values() and footing is None:
            raise ValueError(f"{id}: expected='refuted' needs a footing saying what the refuted claim stands on, one "
                             f"of {FOOTINGS}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"{id}: timeout must be > 0 seconds, got {timeout!r}")
        self.id = str(self.claim_id)
        self.claim = claim
        self.title = title
        self.relation = relation
        #: the expected verdict at the quick budget; :meth:`expected_at` gives any budget's
        self.expected = by_budget["quick"]
        self._expected = by_budget
        self.reason = reason
        #: what the refuted claim stands on (:data:`FOOTINGS`); None for an entry that expects no refutation
        self.footing = footing
        self.timeout = timeout
        self.truth = truth

    subject: Any

    def expected_at(self, budget: str) -> str:
        """The expected verdict at ``budget``: an entry may expect a refutation only where its budget
        resolves it (``expected={"quick": "not-refuted", "paper": "refuted"}``; others fall back)."""
        return at_budget(self._expected, budget)

    @property
    def subject_name(self) -> str:
        """What is audited, for listings and records."""
        return subject_name(self.subject)

    @abstractmethod
    def _plan(self) -> AuditPlan:
        """Ask the auditors how this entry will be audited."""

    @cached_property
    def plan(self) -> AuditPlan:
        return self._plan()

    @property
    def statistical(self) -> bool:
        """Whether the verdict may be statistical (and so the entry takes a share of the run's alpha)."""
        return self.plan.statistical

    @property
    def auditor(self) -> str:
        """The auditor family, for listings."""
        return "statistical" if self.statistical else "exact"

    def confidence(self, ctx: RunContext) -> float | None:
        """The confidence this entry may spend: 1 - its share of alpha, or None if it has no share."""
        return 1.0 - ctx.alpha if self.statistical else None

    @abstractmethod
    def audit(self, ctx: RunContext) -> Audit:
        """Run the audit (the runner assembles the record, with this entry's fields)."""

    def timeout_for(self, budget: str) -> float:
        return self.timeout if self.timeout is not None else DEFAULT_TIMEOUTS[budget]

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "subject": self.subject_name,
            "claim": self.claim.describe(),
            "auditor": self.auditor,
            "relation": self.relation.describe() if self.relation else "",
            "expected": (self.expected if len(set(self._expected.values())) == 1 else
                         ", ".join(f"{budget}: {value}" for budget, value in self._expected.items()))
            + ("" if self.budgets == BUDGETS else f" ({', '.join(self.budgets)} only)"),
            "reason": self.reason or "",
            "footing": self.footing or "",
            "truth": self.truth,
        }


def _check_auditor_and_samples(id: str, auditor: str, samples: dict[str, int] | None) -> None:
    if auditor not in MODES:
        raise ValueError(f"{id}: auditor must be one of {MODES}, got {auditor!r}")
    unknown = set(samples or {}) - set(BUDGETS)
    if unknown:
        raise ValueError(f"{id}: samples has unknown budgets {sorted(unknown)}; budgets are {BUDGETS}")


class PrivacyEntry(Entry):
    """A privacy claim about a mechanism, audited on given pairs of neighbouring inputs, on the pairs
    a relation searches over a domain (``relation=QueryDistance(1).over(Box(0, 10))``), or on both
    (the searched pairs, then the given ones: a search tries the structured and random pairs an
    adversary would, the given ones add what it cannot guess).

    ``auditor``: ``"exact"``, ``"statistical"`` or ``"auto"`` (see :func:`dpaudit.audit_privacy`).
    The run's alpha is shared among the entries whose plan may end in a statistical verdict: with
    ``"auto"``, a claim the exact auditor always decides (pure DP about a mechanism with
    ``.distribution``) takes no share, and never falls back to samples; a claim it may leave
    undecided (approximate, Renyi, zCDP) takes a share for the fallback; a mechanism without an exact
    distribution is audited from samples. ``samples`` overrides the samples per side for some
    budgets, e.g. ``{"quick": 10**6}``; ``options`` are further keyword arguments of
    :func:`dpaudit.audit_privacy` (``events``, ``sequential``, ``statistic``, ...).
    """

    def __init__(
        self,
        id: str,
        *,
        subject: Any,
        claim: Claim,
        pairs: Sequence[tuple[Any, Any]] | None = None,
        relation: NeighbourRelation | NeighbourSearch | None = None,
        auditor: str = "auto",
        samples: dict[str, int] | None = None,
        options: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        super().__init__(id, claim=claim, relation=relation, **kwargs)
        if pairs is None and not isinstance(relation, NeighbourSearch):
            raise ValueError(f"{id}: give pairs, or relation=relation.over(domain) to search for them (or both)")
        _check_auditor_and_samples(id, auditor, samples)
        self.subject = subject
        self.pairs = None if pairs is None else list(pairs)
        self.mode = auditor
        self.samples = {**DEFAULT_SAMPLES, **(samples or {})}
        self.options = dict(options or {})

    def _plan(self) -> AuditPlan:
        from .api import PRIVACY, privacy_plan

        try:
            return privacy_plan(self.subject, self.claim, self.mode)
        except MechanismError:  # not a mechanism: the audit reports it; until then, assume it samples
            return plan_audit(PRIVACY, None, self.claim, "statistical")

    def audit(self, ctx: RunContext) -> Audit:
        from .api import privacy_audit

        return privacy_audit(
            self.subject, self.claim, pairs=self.pairs, neighbours=self.relation, confidence=self.confidence(ctx),
            samples=at_budget(self.samples, ctx.budget), seed=ctx.seed_sequence, auditor=self.mode, plan=self.plan,
            **self.options,
        )


class TailEntry(Entry):
    """A sub-Gaussian, sub-exponential or tail-bound claim about a random variable.

    ``subject`` is a distribution with an exact law (exact tail audit, with ``auditor="exact"`` or
    ``"auto"``) or a sampler ``f(size, rng)`` (statistical only). With ``"auto"`` the entry takes a
    share of the run's alpha unless the exact tail auditor supports the claim (a tail bound about a
    law, or an MGF claim about a law with a cumulant generating function); see
    :func:`dpaudit.audit_tail`.
    """

    def __init__(self, id: str, *, subject: Any, claim: Claim, auditor: str = "auto",
                 samples: dict[str, int] | None = None, **kwargs: Any):
        super().__init__(id, claim=claim, **kwargs)
        if not isinstance(claim, TailClaim):
            raise TypeError(f"{id}: a tail entry needs a SubGaussian, SubExponential or TailBound claim, got {claim!r}")
        _check_auditor_and_samples(id, auditor, samples)
        self.subject = subject
        self.mode = auditor
        self.samples = {**DEFAULT_SAMPLES, **(samples or {})}

    @property
    def subject_name(self) -> str:
        law = as_law(self.subject)
        return law.name if law is not None else subject_name(self.subject)

    @cached_property
    def prepared(self) -> TailSubject:
        """The subject as the tail auditors see it, prepared once for the plan and the audit."""
        from .api import tail_subject

        return tail_subject(self.subject)

    def _plan(self) -> AuditPlan:
        from .api import TAIL

        # a fixed mode asks no auditor, so a lazily built law stays unbuilt until the audit
        return plan_audit(TAIL, self.prepared if self.mode == "auto" else None, self.claim, self.mode)

    def audit(self, ctx: RunContext) -> Audit:
        from .api import tail_audit

        return tail_audit(self.prepared, self.claim, confidence=self.confidence(ctx),
                          samples=at_budget(self.samples, ctx.budget),
                          seed=ctx.seed_sequence, auditor=self.mode, plan=self.plan)


class ConformanceEntry(Entry):
    """A sampler tested against its exact reference law (:func:`dpaudit.audit_sampler`), at a
    false-failure rate of at most 1e-6 or the entry's share of the run's alpha, whichever is smaller."""

    def __init__(self, id: str, *, sampler: Any, reference: Any, samples: dict[str, int] | None = None,
                 **kwargs: Any):
        law = as_law(reference)
        if law is None:
            raise TypeError(f"{id}: reference must be a law with cdf, sf, mean and var; got {reference!r}")
        super().__init__(id, claim=kwargs.pop("claim", Conforms(law.name)), **kwargs)
        _check_auditor_and_samples(id, "statistical", samples)
        self.subject = sampler
        self.reference = reference
        self.samples = {**DEFAULT_SAMPLES, **(samples or {})}

    def _plan(self) -> AuditPlan:
        from .api import CONFORMANCE

        return plan_audit(CONFORMANCE, None, self.claim, "statistical")

    def audit(self, ctx: RunContext) -> Audit:
        from .api import sampler_audit

        return sampler_audit(self.subject, self.reference, samples=at_budget(self.samples, ctx.budget),
                             seed=ctx.seed_sequence,
                             alpha=min(ctx.alpha or 1e-6, 1e-6), claim=self.claim)


#: runs per member of a lower bound's hard instance, per algorithm
DEFAULT_RUNS = {"quick": 2_000, "standard": 20_000, "thorough": 200_000}


class LowerBoundEntry(Entry):
    """A lower-bound theorem (:class:`~dpaudit.LowerBound`): its proof steps at the claim's point,
    computed exactly, and its bound held against ``algorithms`` on the hard instance
    (:func:`dpaudit.audit_lower_bound`). ``algorithms`` is a mapping label -> policy, a sequence of
    :class:`~dpaudit.auditors.lower_bound.Contender` objects, or a callable returning either (built
    when first needed, so listing a suite builds no policy); none: the proof steps only. ``runs``
    overrides the runs per member for some budgets. The entry takes a share of the run's alpha when it
    simulates algorithms."""

    def __init__(self, id: str, *, claim: Claim, algorithms: Any = None, runs: dict[str, int] | None = None,
                 **kwargs: Any):
        from .claims import LowerBound

        super().__init__(id, claim=claim, **kwargs)
        if not isinstance(claim, LowerBound):
            raise TypeError(f"{id}: a lower-bound entry needs a LowerBound claim, got {claim!r}")
        _check_auditor_and_samples(id, "auto", runs)
        self._algorithms = algorithms
        self.runs = {**DEFAULT_RUNS, **(runs or {})}

    @cached_property
    def subject(self) -> Any:
        from .auditors.lower_bound import as_subject

        algorithms = self._algorithms() if callable(self._algorithms) else self._algorithms
        return as_subject(algorithms)

    @property
    def subject_name(self) -> str:
        return self.subject.name

    def _plan(self) -> AuditPlan:
        from .auditors.lower_bound import LowerBoundAuditor

        return AuditPlan(LowerBoundAuditor(), statistical=bool(self.subject.contenders))

    def audit(self, ctx: RunContext) -> Audit:
        from .api import lower_bound_audit

        return lower_bound_audit(self.claim, self.subject, runs=at_budget(self.runs, ctx.budget),
                                 seed=ctx.seed_sequence,
                                 confidence=self.confidence(ctx))


class Suite:
    """A named collection of entries; ``key`` is the first part of every claim id in it."""

    def __init__(self, key: str, title: str, description: str = ""):
        check_suite_key(key)
        self.key = key
        self.title = title
        self.description = description
        self._entries: dict[str, Entry] = {}

    @property
    def entries(self) -> list[Entry]:
        return list(self._entries.values())

    def add(self, entry: Entry) -> Entry:
        if entry.claim_id.suite != self.key:
            raise ValueError(f"entry {entry.id} does not belong to suite {self.key!r}")
        key = entry.claim_id.key
        if key in self._entries:
            raise ValueError(f"suite {self.key!r} already has an entry {entry.id}")
        self._entries[key] = entry
        return entry

    def conformance(self, id: str, **kwargs: Any) -> ConformanceEntry:
        """Add a :class:`ConformanceEntry` (same arguments) and return it."""
        return self.add(ConformanceEntry(id, **kwargs))

    def tail(self, id: str, **kwargs: Any) -> TailEntry:
        """Add a :class:`TailEntry` (same arguments) and return it."""
        return self.add(TailEntry(id, **kwargs))

    def lower_bound(self, id: str, **kwargs: Any) -> LowerBoundEntry:
        """Add a :class:`LowerBoundEntry` (same arguments) and return it."""
        return self.add(LowerBoundEntry(id, **kwargs))

    def regret(self, id: str, **kwargs: Any) -> Entry:
        """Add a :class:`~dpaudit.regret_entries.RegretEntry` (a regret bound or rate; same arguments)."""
        from .regret_entries import RegretEntry

        return self.add(RegretEntry(id, **kwargs))

    def order(self, id: str, **kwargs: Any) -> Entry:
        """Add a :class:`~dpaudit.regret_entries.OrderEntry` (an ordering by regret; same arguments)."""
        from .regret_entries import OrderEntry

        return self.add(OrderEntry(id, **kwargs))

    def privacy(self, id: str, **kwargs: Any) -> PrivacyEntry:
        """Add a :class:`PrivacyEntry` (same arguments) and return it."""
        entry = PrivacyEntry(id, **kwargs)
        self.add(entry)
        return entry

    def __repr__(self) -> str:
        return f"Suite({self.key!r}, {len(self._entries)} entries)"


def _import_suite_module(spec: str):
    path = Path(spec)
    if spec.endswith(".py") or path.is_file():
        if not path.is_file():
            raise SelectionError(f"suite file {spec} does not exist")
        name = "_dpaudit_user_suite_" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
        if name in sys.modules:
            return sys.modules[name]
        mod_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(mod_spec)  # type: ignore[arg-type]
        sys.modules[name] = module
        try:
            mod_spec.loader.exec_module(module)  # type: ignore[union-attr]
        except Exception as exc:
            del sys.modules[name]
            raise SelectionError(f"could not load suite file {spec}: {type(exc).__name__}: {exc}") from exc
        return module
    try:
        return importlib.import_module(spec)
    except Exception as exc:
        raise SelectionError(f"could not import suite module {spec!r}: {type(exc).__name__}: {exc}") from exc


def load_suites(extra: Iterable[str] = ()) -> dict[str, Suite]:
    """The built-in suites (every module of ``dpaudit.audits``) plus ``extra`` modules or files."""
    from dpaudit import audits

    # the experiments package holds presets (dpaudit.experiments), not a suite
    # (what the user would call it, the module): a suite file is named by its path, not its internal module name
    modules = [(f"suite module {name}", importlib.import_module(name))
               for name in (f"{audits.__name__}.{m.name}" for m in pkgutil.iter_modules(audits.__path__)
                            if m.name != PRESETS_PACKAGE)]
    modules += [(_suite_label(spec), _import_suite_module(spec)) for spec in extra]
    suites: dict[str, Suite] = {}
    for label, module in modules:
        suite = getattr(module, "suite", None)
        if not isinstance(suite, Suite):
            found = "" if suite is None else f" (its `suite` is a {type(suite).__name__})"
            raise SelectionError(f"{label} defines no module-level `suite = Suite(key, title)`{found}")
        if suite.key in suites:
            raise SelectionError(f"two suite modules define the suite key {suite.key!r} (the second: {label})")
        suites[suite.key] = suite
    return suites


def _suite_label(spec: str) -> str:
    return f"suite file {spec}" if spec.endswith(".py") or Path(spec).is_file() else f"suite module {spec}"


def select(suites: dict[str, Suite], selectors: Sequence[str] = ()) -> list[Entry]:
    """Entries chosen by suite keys, claim ids or globs (all entries if none), in suite order."""
    every = [e for s in suites.values() for e in s.entries]
    if not selectors:
        return every
    chosen: dict[str, Entry] = {}
    for selector in selectors:
        hits = [e for e in every if selector_matches(selector, e.id)]
        if not hits:
            known = ", ".join(sorted(suites))
            hint = ""
            if selector.casefold() in PAPERS:
                hint = f" (paper {selector!r} has no encoded claims yet)"
            raise SelectionError(f"selector {selector!r} matches no claim{hint}; suites: {known}")
        for e in hits:
            chosen.setdefault(e.claim_id.key, e)
    return [e for e in every if e.claim_id.key in chosen]


def find_entry(claim_id: str, extra: Iterable[str] = ()) -> Entry:
    """The entry with this id (case-insensitive)."""
    key = claim_id.casefold()
    suite = load_suites(extra).get(key.partition("/")[0])
    for entry in suite.entries if suite else ():
        if entry.claim_id.key == key:
            return entry
    raise SelectionError(f"no entry {claim_id!r}")


__all__ = [
    "BUDGETS", "BUDGET_FALLBACK", "CLASSIC", "DEFAULT_RUNS", "DEFAULT_SAMPLES", "DEFAULT_TIMEOUTS", "Entry",
    "FOOTINGS",
    "LowerBoundEntry",
    "PrivacyEntry", "RunContext", "Suite",
    "at_budget", "find_entry", "load_suites", "select",
]
