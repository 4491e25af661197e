"""Suite entries: a subject paired with a claim, how to audit it at each budget, and what is expected.

An entry says by default that its claim is not refuted; an entry whose refutation has been reviewed and
accepted as a finding says ``expected="refuted"`` with the reason (like pytest's xfail) and its footing
(:data:`FOOTINGS`): what text the refuted claim stands on. Where the true value of the claimed parameter
is known (the ``classic`` suite), ``truth`` records it (epsilon for pure DP, delta at the claimed
epsilon for approximate DP, D_alpha for Renyi DP, rho for zCDP) so that reports and benchmarks can show
the audit next to it. The regret entries are in :mod:`dpaudit.suite.regret`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..api.driver import MODES, AuditPlan, plan_audit
from ..api.records import Audit
from ..auditors import TailSubject
from ..core.claim_ids import parse_claim_id
from ..core.claims import Claim, Conforms, TailClaim
from ..core.errors import MechanismError
from ..core.laws import as_law
from ..core.neighbours import NeighbourRelation, NeighbourSearch
from ..core.results import HYPOTHESIS_NOT_MET, NOT_REFUTED, REFUTED
from ..core.subjects import subject_name
from .budgets import BUDGETS, DEFAULT_SAMPLES, DEFAULT_TIMEOUTS, at_budget

EXPECTATIONS = (NOT_REFUTED, REFUTED)
#: what an expected refutation stands on, strongest first: the claim exactly as the paper (or the suite)
#: states it; a reading of text the source garbled (the reason says how the spec reads it, and an entry
#: beside it encodes the other reading); an intermediate step of a proof, not the result; a statement
#: whose slip the paper itself shows (its proof or another form has the intended expression); an instance outside
#: the statement's hypotheses (a link that is not a canonical exponential family, the released code rather than the
#: algorithm as printed): it refutes the paper's use of the statement, never the statement, and the entry says in
#: ``hypothesis`` what the statement assumes and how the instance breaks it
FOOTINGS = ("as printed", "as reconstructed from damaged text", "proof step", "typo evident", HYPOTHESIS_NOT_MET)
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
    (:func:`dpaudit.api.driver.plan_audit`); :attr:`statistical`, whether its verdict may be statistical,
    comes from that plan, and decides whether the entry takes a share of the run's alpha.
    ``budgets`` are the budgets it runs at (default all): a claim that only the papers' horizons can
    test says ``budgets=("paper",)``, and a run at another budget leaves it out (and says so).
    ``expected`` may differ by budget (``{"quick": "not-refuted", "paper": "refuted"}``) where only
    the paper's scale resolves a finding. An entry that expects a refutation gives its ``reason`` and
    its ``footing`` (one of :data:`FOOTINGS`), which the record and the report's findings show. An instance
    outside the statement's hypotheses takes the footing ``"hypothesis not met"`` and says in ``hypothesis`` what
    the statement assumes and what in the instance breaks it; the reports list it apart from the findings.
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
        hypothesis: str | None = None,
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
        if footing == HYPOTHESIS_NOT_MET and not (isinstance(hypothesis, str) and hypothesis.strip()):
            raise ValueError(f"{id}: footing {HYPOTHESIS_NOT_MET!r} needs `hypothesis`: what the statement assumes and "
                             "what in the audited instance breaks it")
        if hypothesis is not None and footing != HYPOTHESIS_NOT_MET:
            raise ValueError(f"{id}: `hypothesis` goes with footing {HYPOTHESIS_NOT_MET!r} only, got footing "
                             f"{footing!r}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"{id}: timeout must be > 0 seconds, got {timeout!r}")
        self.id = str(self.claim_id)
        self._claim = claim
        self.title = title
        self.relation = relation
        #: the expected verdict at the quick budget; :meth:`expected_at` gives any budget's
        self.expected = by_budget["quick"]
        self._expected = by_budget
        self.reason = reason
        #: what the refuted claim stands on (:data:`FOOTINGS`); None for an entry that expects no refutation
        self.footing = footing
        #: for footing "hypothesis not met": what the statement assumes and how the audited instance breaks it
        self.hypothesis = hypothesis
        self.timeout = timeout
        self.truth = truth

    subject: Any

    @property
    def claim(self) -> Claim:
        """The audited claim (an entry whose claim is computed, :class:`AccountantEntry`, builds it here)."""
        return self._claim

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
            "hypothesis": self.hypothesis or "",
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
        from ..api.families import PRIVACY
        from ..api.privacy import privacy_plan

        try:
            return privacy_plan(self.subject, self.claim, self.mode)
        except MechanismError:  # not a mechanism: the audit reports it; until then, assume it samples
            return plan_audit(PRIVACY, None, self.claim, "statistical")

    def audit(self, ctx: RunContext) -> Audit:
        from ..api.privacy import privacy_audit

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
        from ..api.tail import tail_subject

        return tail_subject(self.subject)

    def _plan(self) -> AuditPlan:
        from ..api.families import TAIL

        # a fixed mode asks no auditor, so a lazily built law stays unbuilt until the audit
        return plan_audit(TAIL, self.prepared if self.mode == "auto" else None, self.claim, self.mode)

    def audit(self, ctx: RunContext) -> Audit:
        from ..api.tail import tail_audit

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
        from ..api.families import CONFORMANCE

        return plan_audit(CONFORMANCE, None, self.claim, "statistical")

    def audit(self, ctx: RunContext) -> Audit:
        from ..api.tail import sampler_audit

        return sampler_audit(self.subject, self.reference, samples=at_budget(self.samples, ctx.budget),
                             seed=ctx.seed_sequence,
                             alpha=min(ctx.alpha or 1e-6, 1e-6), claim=self.claim)


class DPSGDEntry(Entry):
    """An (epsilon, delta) or pure DP claim about a DP-SGD configuration, decided by certified accounting
    (:func:`dpaudit.audit_dpsgd`): never statistical, so no share of the run's alpha. ``subject`` is a
    :class:`~dpaudit.DPSGDConfig` or :class:`~dpaudit.ComposedDPSGD`, or a callable returning one, built when
    first needed (a configuration read off a simulated run, say, so that listing a suite simulates nothing).
    ``knot`` is the privacy-loss grid's spacing (default: chosen for the steps' losses); ``name`` names a subject
    built when first needed (listings then build nothing)."""

    def __init__(self, id: str, *, subject: Any, claim: Claim, knot: float | None = None, name: str | None = None,
                 sweep: int | dict[str, int] = 0, accountants: Any = None, **kwargs: Any):
        from ..core.claims import ApproxDP, PureDP

        super().__init__(id, claim=claim, **kwargs)
        if not isinstance(claim, (ApproxDP, PureDP)):
            raise TypeError(f"{id}: a DP-SGD entry needs an ApproxDP or PureDP claim, got {claim!r}")
        self._subject = subject
        self.knot = knot
        self._name = name
        #: points of eps against the noise multiplier drawn in the record (per budget; 0: none), with the curves of
        #: ``accountants`` (label -> function of (run, delta), or a callable returning that mapping)
        self.sweep = {"quick": 0, **sweep} if isinstance(sweep, dict) else {b: sweep for b in BUDGETS}
        self._accountants = accountants

    @cached_property
    def subject(self) -> Any:
        from ..auditors.dpsgd import as_dpsgd_run

        built = self._subject() if callable(self._subject) and not hasattr(self._subject, "dpsgd_config") \
            else self._subject
        return as_dpsgd_run(built)

    @property
    def subject_name(self) -> str:
        from ..auditors.dpsgd import run_name

        return self._name if self._name is not None else run_name(self.subject)

    def _plan(self) -> AuditPlan:
        from ..auditors.dpsgd import CertifiedAccountingAuditor

        return AuditPlan(CertifiedAccountingAuditor())

    @property
    def auditor(self) -> str:
        return "certified-accounting"

    def audit(self, ctx: RunContext) -> Audit:
        from ..api.dpsgd import dpsgd_audit

        points = at_budget(self.sweep, ctx.budget)
        accountants = self._accountants() if callable(self._accountants) else self._accountants
        return dpsgd_audit(self.subject, self.claim, knot=self.knot, sweep=points,
                           accountants=accountants if points else None)


class AccountantEntry(DPSGDEntry):
    """An accountant's own claim about a DP-SGD configuration: (its epsilon at ``delta``, ``delta``), asked of
    ``accountant`` (anything with ``name`` and ``epsilon(config, delta)``, e.g. :mod:`dpaudit.adapters.accountants`)
    when the claim is first needed (the entry listed or audited), so that loading the suites asks nothing and the
    installed version's answer is what is audited. An accountant that raises or answers NaN or a negative epsilon
    raises ValueError saying so (in a run, that entry's error; the others go on)."""

    def __init__(self, id: str, *, subject: Any, accountant: Any, delta: float, **kwargs: Any):
        from ..core.claims import ApproxDP

        if not 0 < delta < 1:
            raise ValueError(f"{id}: delta must be in (0, 1), got {delta!r}")
        self.accountant = accountant
        # a placeholder with the claim's kind and delta until the accountant is asked
        super().__init__(id, subject=subject, claim=ApproxDP(0.0, delta), **kwargs)

    @cached_property
    def claim(self) -> Claim:
        from ..core.claims import ApproxDP

        delta = self._claim.delta
        try:
            eps = float(self.accountant.epsilon(self.subject, delta))
        except Exception as exc:  # noqa: BLE001 - the accountant's own failure, reported as the entry's
            raise ValueError(f"{self.id}: {self.accountant.name} failed: {type(exc).__name__}: {exc}") from exc
        if not np.isfinite(eps) or eps < 0:
            raise ValueError(f"{self.id}: {self.accountant.name} answered epsilon = {eps!r} at delta = {delta:g}")
        return ApproxDP(eps, delta)


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
        from ..core.claims import LowerBound

        super().__init__(id, claim=claim, **kwargs)
        if not isinstance(claim, LowerBound):
            raise TypeError(f"{id}: a lower-bound entry needs a LowerBound claim, got {claim!r}")
        _check_auditor_and_samples(id, "auto", runs)
        self._algorithms = algorithms
        self.runs = {**DEFAULT_RUNS, **(runs or {})}

    @cached_property
    def subject(self) -> Any:
        from ..auditors.lower_bound import as_subject

        algorithms = self._algorithms() if callable(self._algorithms) else self._algorithms
        return as_subject(algorithms)

    @property
    def subject_name(self) -> str:
        return self.subject.name

    def _plan(self) -> AuditPlan:
        from ..auditors.lower_bound import LowerBoundAuditor

        return AuditPlan(LowerBoundAuditor(), statistical=bool(self.subject.contenders))

    def audit(self, ctx: RunContext) -> Audit:
        from ..api.regret import lower_bound_audit

        return lower_bound_audit(self.claim, self.subject, runs=at_budget(self.runs, ctx.budget),
                                 seed=ctx.seed_sequence,
                                 confidence=self.confidence(ctx))


__all__ = [
    "DEFAULT_RUNS", "EXPECTATIONS", "FOOTINGS", "PRESETS_PACKAGE", "AccountantEntry", "ConformanceEntry", "DPSGDEntry",
    "Entry",
    "LowerBoundEntry",
    "PrivacyEntry", "RunContext", "TailEntry"
]
