"""Suite entries for regret claims: a bound or a rate about one algorithm (:class:`RegretEntry`), and
an ordering of several (:class:`OrderEntry`), simulated at the budget's horizons and run counts.

Budgets: ``horizons`` and ``runs`` are given per budget (``{"quick": 2_000, "paper": 100_000}``); a
budget not given takes the value of the one it falls back to (:data:`dpaudit.suite.BUDGET_FALLBACK`:
paper and thorough -> standard -> quick). ``quick`` keeps a whole suite run within CI's time;
``paper`` is the papers' scale.

Seeds: a regret entry's simulations are seeded from the run seed and the content of the simulation
(the environment, the recorded rounds and the runs), not from the claim id, so that claims about the
same simulation share it (:mod:`dpaudit.bandits.cache` keeps it once per run) and algorithms
simulated on the same environment see the same rewards (common random numbers). The record keeps
the seed sequence used, so each audit reruns alone.
"""

from __future__ import annotations

import hashlib
import pickle
import warnings
from typing import Any

import numpy as np

from ..api.driver import AuditPlan, plan_audit
from ..api.records import Audit
from ..core.claims import Claim, RegretBound, RegretClaim, RegretOrder
from ..core.seeding import check_seed
from ..core.subjects import subject_name
from .budgets import BUDGETS, at_budget
from .entries import Entry, RunContext

#: the quick budget's defaults: short horizons, few runs
DEFAULT_HORIZONS = {"quick": 2_000, "standard": 20_000}
DEFAULT_REGRET_RUNS = {"quick": 100, "standard": 500}


def simulation_seed(run_seed: int, environment: Any, horizons: Any, runs: int,
                    fallback: np.random.SeedSequence) -> np.random.SeedSequence:
    """The seed of a regret entry's simulations: from the run seed and the environment, rounds and
    runs (module docstring); ``fallback`` (the claim's own seed) if the environment cannot be pickled."""
    try:
        blob = pickle.dumps(environment, protocol=4)
    except Exception:  # noqa: BLE001 - an unpicklable environment keeps the claim's seed
        return fallback
    rounds = np.asarray(horizons).ravel().tolist() if not np.isscalar(horizons) else [int(horizons)]
    digest = hashlib.sha256(blob + repr((rounds, int(runs))).encode()).digest()
    return np.random.SeedSequence([check_seed(run_seed), int.from_bytes(digest[:16], "little")])


def _per_budget(id: str, name: str, value: Any, default: dict[str, Any]) -> dict[str, Any]:
    if value is None:
        return dict(default)
    if not isinstance(value, dict):
        return {"quick": value}
    unknown = set(value) - set(BUDGETS)
    if unknown:
        raise ValueError(f"{id}: {name} has unknown budgets {sorted(unknown)}; budgets are {BUDGETS}")
    if "quick" not in value:
        raise ValueError(f"{id}: {name} needs a value for the quick budget (the others fall back to it)")
    return dict(value)


class _SimulatedEntry(Entry):
    """What regret and ordering entries share: horizons and runs per budget, the simulation seed, the
    audit's settings, and an alpha share (every regret verdict is statistical)."""

    def __init__(self, id: str, *, claim: Claim, environment: Any, horizons: Any = None, runs: Any = None,
                 params: dict[str, Any] | None = None, options: dict[str, Any] | None = None, **kwargs: Any):
        super().__init__(id, claim=claim, **kwargs)
        if not isinstance(claim, RegretClaim):
            raise TypeError(f"{id}: a regret entry needs a RegretBound, RegretRate or RegretOrder claim, got "
                            f"{claim!r}")
        if params is not None and not isinstance(params, dict):
            raise TypeError(f"{id}: params must be a dict of named parameters, got {params!r}")
        self._environment = environment
        self.horizons = _per_budget(id, "horizons", horizons, DEFAULT_HORIZONS)
        self.runs = _per_budget(id, "runs", runs, DEFAULT_REGRET_RUNS)
        self.params = dict(params or {})
        self.options = dict(options or {})

    @property
    def environment(self) -> Any:
        """The environment: one object, or for a rate in a parameter a callable value -> environment."""
        return self._environment

    def settings(self, ctx: RunContext) -> dict[str, Any]:
        """The audit's arguments at the run's budget."""
        horizons = at_budget(self.horizons, ctx.budget)
        runs = int(at_budget(self.runs, ctx.budget))
        options = {k: at_budget(v, ctx.budget) if isinstance(v, dict) and "quick" in v else v
                   for k, v in self.options.items()}
        seed = simulation_seed(ctx.run_seed, self.environment, horizons, runs, ctx.seed_sequence)
        return {"horizons": horizons, "runs": runs, "seed": seed, "confidence": self.confidence(ctx),
                "params": self.params, "cache_dir": ctx.cache_dir, **options}


class RegretEntry(_SimulatedEntry):
    """A :class:`~dpaudit.RegretBound` or :class:`~dpaudit.RegretRate` about one algorithm
    (:func:`dpaudit.audit_regret`). ``policy``: a registry name (built with ``params``), a policy, or
    for a rate in a parameter a callable value -> policy; ``horizons`` / ``runs``: per budget (module
    docstring); ``options``: further keyword arguments of :func:`dpaudit.audit_regret` (``values``,
    ``margin``, ``asymptotic``, ``regret``), each optionally per budget."""

    def __init__(self, id: str, *, policy: Any, claim: Claim, environment: Any = None, **kwargs: Any):
        if isinstance(claim, RegretOrder):
            raise TypeError(f"{id}: an ordering is an order entry (suite.order), not a regret entry")
        super().__init__(id, claim=claim, environment=environment, **kwargs)
        self._policy = policy

    @property
    def subject(self) -> Any:
        return self._policy

    @property
    def subject_name(self) -> str:
        name = self._policy if isinstance(self._policy, str) else subject_name(self._policy)
        env = self._environment
        return f"{name} on {subject_name(env)}" if env is not None and not callable(env) else str(name)

    def _plan(self) -> AuditPlan:
        from ..api.families import REGRET_BOUND, REGRET_RATE
        from ..api.regret import regret_subject

        if not isinstance(self.claim, RegretBound):
            return plan_audit(REGRET_RATE, None, self.claim, "statistical")
        # a bound is decided exactly where the policy computes its expected regret
        with warnings.catch_warnings():
            # planning (`dpaudit list`, the run's alpha split) builds the policy only to ask the auditors;
            # a policy's out-of-range warnings reach the record through its notes when it is audited
            warnings.simplefilter("ignore")
            subject = regret_subject(self._policy, self.environment, self.claim, self.params)
        return plan_audit(REGRET_BOUND, subject, self.claim, self.options.get("auditor", "auto"))

    def audit(self, ctx: RunContext) -> Audit:
        from ..api.regret import regret_audit

        return regret_audit(self._policy, self.environment, self.claim, plan=self.plan, **self.settings(ctx))


class OrderEntry(_SimulatedEntry):
    """A :class:`~dpaudit.RegretOrder` about labelled algorithms on one environment
    (:func:`dpaudit.audit_regret` with a dict): ``algorithms`` maps each label of the claim to a
    registry name, (name, params), a policy or a :class:`~dpaudit.Difference` (or is a callable
    returning that mapping, built when first needed); ``options`` as for :class:`RegretEntry`
    (``test``, ``regret``)."""

    def __init__(self, id: str, *, algorithms: Any, claim: Claim, environment: Any, **kwargs: Any):
        if not isinstance(claim, RegretOrder):
            raise TypeError(f"{id}: an order entry needs a RegretOrder claim, got {claim!r}")
        super().__init__(id, claim=claim, environment=environment, **kwargs)
        if isinstance(algorithms, dict):
            missing = [label for label in claim.labels if label not in algorithms]
            if missing:
                raise ValueError(f"{id}: the ordering names labels with no algorithm: {', '.join(missing)}")
        elif not callable(algorithms):
            raise TypeError(f"{id}: algorithms must be a dict label -> algorithm (or a callable returning one)")
        self._algorithms = algorithms

    @property
    def subject(self) -> Any:
        if callable(self._algorithms):
            self._algorithms = self._algorithms()
        return self._algorithms

    @property
    def subject_name(self) -> str:
        env = self._environment
        where = f" on {subject_name(env)}" if env is not None and not callable(env) else ""
        return f"{len(self.claim.labels)} algorithms{where}"

    def _plan(self) -> AuditPlan:
        from ..api.families import REGRET_ORDER

        return plan_audit(REGRET_ORDER, None, self.claim, "statistical")

    def audit(self, ctx: RunContext) -> Audit:
        from ..api.regret import regret_audit

        return regret_audit(self.subject, self.environment, self.claim, plan=self.plan, **self.settings(ctx))


__all__ = ["DEFAULT_HORIZONS", "DEFAULT_REGRET_RUNS", "OrderEntry", "RegretEntry", "simulation_seed"]
