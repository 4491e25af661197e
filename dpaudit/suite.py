"""Suites: named collections of audit entries, and their discovery and selection.

A suite module in ``dpaudit.audits`` (one per paper key, plus ``classic``) defines a module-level
``suite = Suite(key, title)`` and adds entries to it. Users can keep suites of their own in any
module or ``.py`` file and pass it with ``dpaudit run --suite PATH``.

An entry pairs a subject with a claim, says how to audit it at each budget, and states what is
expected: by default that the claim is not refuted; an entry whose refutation has been reviewed
and accepted as a finding says ``expected="refuted"`` with the reason (like pytest's xfail).
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
from pathlib import Path
from typing import Any

import numpy as np

from .claim_ids import CLASSIC, PAPERS, check_suite_key, parse_claim_id, selector_matches
from .claims import Claim, PureDP
from .errors import SelectionError
from .neighbours import NeighbourRelation, NeighbourSearch
from .results import NOT_REFUTED, REFUTED, AuditResult
from .subjects import subject_name

BUDGETS = ("quick", "standard", "thorough")
# Samples per side of a pair for statistical privacy audits.
DEFAULT_SAMPLES = {"quick": 200_000, "standard": 2_000_000, "thorough": 20_000_000}
# Seconds an entry may run before it becomes an error record.
DEFAULT_TIMEOUTS = {"quick": 600.0, "standard": 3600.0, "thorough": 6 * 3600.0}
EXPECTATIONS = (NOT_REFUTED, REFUTED)


@dataclass(frozen=True)
class RunContext:
    """What an entry needs from the run: its seed, the budget, and its share of alpha."""

    run_seed: int
    budget: str
    alpha: float
    seed_sequence: np.random.SeedSequence


class Entry(ABC):
    """One audited claim of a suite."""

    def __init__(
        self,
        id: str,
        *,
        claim: Claim,
        title: str = "",
        relation: NeighbourRelation | NeighbourSearch | None = None,
        expected: str = NOT_REFUTED,
        reason: str | None = None,
        timeout: float | None = None,
        truth: float | None = None,
    ):
        self.claim_id = parse_claim_id(id)
        if not isinstance(claim, Claim):
            raise TypeError(f"{id}: claim must be a dpaudit claim, got {claim!r}")
        if expected not in EXPECTATIONS:
            raise ValueError(f"{id}: expected must be one of {EXPECTATIONS}, got {expected!r}")
        if expected == REFUTED and not (isinstance(reason, str) and reason.strip()):
            raise ValueError(f"{id}: expected='refuted' needs a one-line reason saying why the refutation is accepted")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"{id}: timeout must be > 0 seconds, got {timeout!r}")
        self.id = str(self.claim_id)
        self.claim = claim
        self.title = title
        self.relation = relation
        self.expected = expected
        self.reason = reason
        self.timeout = timeout
        self.truth = truth

    @property
    @abstractmethod
    def statistical(self) -> bool:
        """Whether the verdict is statistical (and so takes a share of the run's alpha)."""

    @property
    def auditor(self) -> str:
        """The auditor family, for listings."""
        return "statistical" if self.statistical else "exact"

    @property
    @abstractmethod
    def subject(self) -> str:
        """What is audited, for listings and records."""

    @abstractmethod
    def audit(self, ctx: RunContext) -> AuditResult:
        """Run the audit (the runner adds the entry's metadata to the record)."""

    def run(self, ctx: RunContext) -> AuditResult:
        result = self.audit(ctx)
        self.annotate(result, ctx)
        return result

    def annotate(self, result: AuditResult, ctx: RunContext) -> None:
        """Fill the record's entry-level fields."""
        result.claim_id = self.id
        result.title = self.title
        result.paper = self.claim_id.suite
        result.budget = ctx.budget
        result.expected = {"verdict": self.expected, "reason": self.reason}
        result.seed = {"run_seed": ctx.run_seed, "claim_id": self.id}
        result.alpha = ctx.alpha if self.statistical else None
        if self.truth is not None:
            result.parameters["documented_truth"] = self.truth
        if not result.subject:
            result.subject = self.subject
        if result.relation is None and self.relation is not None:
            result.relation = self.relation.to_dict()

    def timeout_for(self, budget: str) -> float:
        return self.timeout if self.timeout is not None else DEFAULT_TIMEOUTS[budget]

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "subject": self.subject,
            "claim": self.claim.describe(),
            "auditor": self.auditor,
            "relation": self.relation.describe() if self.relation else "",
            "expected": self.expected,
            "reason": self.reason or "",
            "truth": self.truth,
        }


def _check_auditor_and_samples(id: str, auditor: str, samples: dict[str, int] | None) -> None:
    from .api import AUDITORS  # local: the api module imports the auditors

    if auditor not in AUDITORS:
        raise ValueError(f"{id}: auditor must be one of {AUDITORS}, got {auditor!r}")
    unknown = set(samples or {}) - set(BUDGETS)
    if unknown:
        raise ValueError(f"{id}: samples has unknown budgets {sorted(unknown)}; budgets are {BUDGETS}")


class PrivacyEntry(Entry):
    """A privacy claim about a mechanism, audited on given pairs of neighbouring inputs, or on the
    pairs a relation searches over a domain (``relation=QueryDistance(1).over(Box(0, 10))`` and no
    ``pairs``).

    ``auditor``: ``"exact"``, ``"statistical"`` or ``"auto"`` (see :func:`dpaudit.audit_privacy`).
    The run's alpha is shared among the entries that may need samples: with ``"auto"``, a pure-DP
    claim about a mechanism with ``.distribution`` is always decided exactly and takes no share (it
    never falls back to samples); other claims take a share, since the exact auditor may leave them
    undecided. Give ``auditor="exact"`` when you know the exact auditor decides the claim.
    ``samples`` overrides the samples per side for some budgets, e.g. ``{"quick": 10**6}``;
    ``options`` are further keyword arguments of :func:`dpaudit.audit_privacy` (``events``,
    ``sequential``, ``statistic``, ...).
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
            raise ValueError(f"{id}: give pairs, or relation=relation.over(domain) to search for them")
        _check_auditor_and_samples(id, auditor, samples)
        self.mechanism = subject
        self.pairs = None if pairs is None else list(pairs)
        self._auditor = auditor
        self.samples = {**DEFAULT_SAMPLES, **(samples or {})}
        self.options = dict(options or {})

    @property
    def statistical(self) -> bool:
        if self._auditor == "auto":
            exact_possible = callable(getattr(self.mechanism, "distribution", None))
            return not (exact_possible and isinstance(self.claim, PureDP))
        return self._auditor == "statistical"

    @property
    def subject(self) -> str:
        return subject_name(self.mechanism)

    def audit(self, ctx: RunContext) -> AuditResult:
        from .api import audit_privacy

        return audit_privacy(
            self.mechanism,
            self.claim,
            pairs=self.pairs,
            neighbours=self.relation,
            confidence=1.0 - ctx.alpha,
            samples=self.samples[ctx.budget],
            seed=ctx.seed_sequence,
            # an entry that took no share of alpha must not fall back to samples
            auditor=self._auditor if self.statistical else "exact",
            **self.options,
        )


class TailEntry(Entry):
    """A sub-Gaussian, sub-exponential or tail-bound claim about a random variable.

    ``subject`` is a distribution with an exact law (exact tail audit, with ``auditor="exact"`` or
    ``"auto"``) or a sampler ``f(size, rng)`` (statistical only). With ``"auto"`` the entry takes a
    share of the run's alpha unless the subject is a law and the claim a tail bound or an MGF claim
    its law can evaluate; see :func:`dpaudit.audit_tail`.
    """

    def __init__(self, id: str, *, subject: Any, claim: Claim, auditor: str = "auto",
                 samples: dict[str, int] | None = None, **kwargs: Any):
        from .claims import TailClaim

        super().__init__(id, claim=claim, **kwargs)
        if not isinstance(claim, TailClaim):
            raise TypeError(f"{id}: a tail entry needs a SubGaussian, SubExponential or TailBound claim, got {claim!r}")
        _check_auditor_and_samples(id, auditor, samples)
        self.subject_object = subject
        self._auditor = auditor
        self.samples = {**DEFAULT_SAMPLES, **(samples or {})}

    @property
    def statistical(self) -> bool:
        if self._auditor == "auto":
            from .claims import TailBound
            from .laws import as_law

            law = as_law(self.subject_object)
            return law is None or not (isinstance(self.claim, TailBound) or law.cgf is not None)
        return self._auditor == "statistical"

    @property
    def subject(self) -> str:
        from .laws import as_law

        law = as_law(self.subject_object)
        return law.name if law is not None else subject_name(self.subject_object)

    def audit(self, ctx: RunContext) -> AuditResult:
        from .api import audit_tail

        return audit_tail(
            self.subject_object, self.claim, confidence=1.0 - (ctx.alpha or 0.01), samples=self.samples[ctx.budget],
            seed=ctx.seed_sequence, auditor=self._auditor if self.statistical else "exact",
        )


class ConformanceEntry(Entry):
    """A sampler tested against its exact reference law (:func:`dpaudit.audit_sampler`), at a
    false-failure rate of at most 1e-6 or the entry's share of the run's alpha, whichever is smaller."""

    def __init__(self, id: str, *, sampler: Any, reference: Any, samples: dict[str, int] | None = None,
                 **kwargs: Any):
        from .claims import Conforms
        from .laws import as_law

        law = as_law(reference)
        if law is None:
            raise TypeError(f"{id}: reference must be a law with cdf, sf, mean and var; got {reference!r}")
        super().__init__(id, claim=kwargs.pop("claim", Conforms(law.name)), **kwargs)
        _check_auditor_and_samples(id, "statistical", samples)
        self.sampler = sampler
        self.reference = reference
        self.samples = {**DEFAULT_SAMPLES, **(samples or {})}

    @property
    def statistical(self) -> bool:
        return True

    @property
    def subject(self) -> str:
        return subject_name(self.sampler)

    def audit(self, ctx: RunContext) -> AuditResult:
        from .api import audit_sampler

        return audit_sampler(self.sampler, self.reference, samples=self.samples[ctx.budget], seed=ctx.seed_sequence,
                             alpha=min(ctx.alpha or 1e-6, 1e-6))


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

    modules = [importlib.import_module(f"{audits.__name__}.{m.name}") for m in pkgutil.iter_modules(audits.__path__)]
    modules += [_import_suite_module(spec) for spec in extra]
    suites: dict[str, Suite] = {}
    for module in modules:
        suite = getattr(module, "suite", None)
        if not isinstance(suite, Suite):
            raise SelectionError(f"suite module {module.__name__} defines no `suite = Suite(...)`")
        if suite.key in suites:
            raise SelectionError(f"two suite modules define the suite key {suite.key!r}")
        suites[suite.key] = suite
    return suites


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
    "BUDGETS", "CLASSIC", "DEFAULT_SAMPLES", "DEFAULT_TIMEOUTS", "Entry", "PrivacyEntry", "RunContext", "Suite",
    "find_entry", "load_suites", "select",
]
