""":func:`audit_regret` (a regret bound, rate or ordering, on simulations at the claim's horizons) and
:func:`audit_lower_bound` (a lower-bound construction)."""

from __future__ import annotations

import numbers
import time
from typing import Any

import numpy as np

from ..auditors.base import RegretSubject
from ..auditors.regret_bound import REGRET_KINDS
from ..auditors.regret_order import Difference, OrderSubject
from ..bandits.horizons import check_reading, reading_of
from ..bandits.simulation import PER_HORIZON
from ..core.claims import (
    REGRET_BOUND_PARAMETERS,
    Claim,
    RegretBound,
    RegretClaim,
    RegretOrder,
)
from ..core.errors import InvalidClaim
from ..core.names import unknown_name
from ..core.results import AuditResult
from ..core.seeding import as_seed_sequence
from ..core.subjects import subject_name
from .driver import AuditPlan, conduct, plan_audit
from .families import REGRET_BOUND, REGRET_ORDER, REGRET_RATE, check_numbers
from .records import Audit, assemble_record

#: rounds of the default grid: log-spaced up to this horizon (dpaudit.bandits.simulation.regret_grid)
DEFAULT_HORIZON = 10_000
DEFAULT_RUNS = 200


def _registry_policy(name: str, params: dict[str, Any], value: tuple[str, float] | None = None) -> Any:
    """A built-in algorithm by registry name, constructed with the parameters its constructor takes."""
    import inspect

    from ..algorithms.registry import ALGORITHMS

    if name not in ALGORITHMS:  # one line naming every known algorithm (the registry's own KeyError's text)
        raise ValueError(f"{unknown_name('algorithm', name, ALGORITHMS)} (dpaudit list --algorithms describes them)")
    make = ALGORITHMS[name]
    kwargs = dict(params)
    if value is not None:
        kwargs[value[0]] = value[1]
    signature = inspect.signature(make)
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()):
        unknown = [k for k in kwargs if k not in signature.parameters and k not in REGRET_BOUND_PARAMETERS]
        if unknown:
            raise ValueError(f"algorithm {name!r} takes {', '.join(signature.parameters) or 'no parameters'}; got "
                             f"{', '.join(unknown)}")
        kwargs = {k: v for k, v in kwargs.items() if k in signature.parameters}
    return make(**kwargs)


def _policy(policy: Any, params: dict[str, Any]) -> Any:
    from ..bandits.policies import check_policy

    if isinstance(policy, str):
        return _registry_policy(policy, params)
    return check_policy(policy)


def regret_subject(policy: Any, environment: Any, claim: Claim, params: Any = None,
                   cache_dir: Any = None) -> RegretSubject:
    """The subject of a regret audit (:class:`~dpaudit.auditors.base.RegretSubject`), its arguments checked.

    For a rate in T and for bounds, ``policy`` is a registry name (constructed with ``params``), a
    built-in algorithm or a user object of the policy protocol, and ``environment`` an environment. For
    a rate in another variable (eps, d, K, n, B), each is either fixed or made per value: ``policy`` a
    registry name (the value passed as the keyword named by the variable), or a callable value ->
    policy or value -> (policy, environment); ``environment`` an environment or a callable value ->
    environment.
    """
    from ..bandits.environments import check_environment

    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params must be a dict of named parameters, got {params!r}")
    params = dict(params or {})
    variable = getattr(claim, "variable", "T")
    if variable == "T":
        checked = _policy(policy, params)
        if environment is None:
            raise ValueError("give the environment the policy is simulated on, e.g. BernoulliBandit([0.6, 0.5])")
        check_environment(environment)
        return RegretSubject(checked, environment, f"{subject_name(checked)} on {subject_name(environment)}", params,
                             cache_dir=cache_dir)
    if isinstance(policy, str):
        def policy_at(value: float) -> Any:
            return _registry_policy(policy, params, (variable, value))
        _registry_policy(policy, params, (variable, 1.0))  # an unknown name fails now, not per value
        label = policy
    elif callable(policy) and not callable(getattr(policy, "start", None)):
        policy_at, label = policy, subject_name(policy)
    else:
        raise TypeError(f"a rate in {variable} needs a policy per value: a registry name or a callable value -> "
                        f"policy (or -> (policy, environment)); got {policy!r}")
    if environment is not None and not callable(getattr(environment, "instances", None)) and not callable(environment):
        raise TypeError(f"environment must be an environment or a callable value -> environment, got {environment!r}")

    def make(value: float) -> tuple[Any, Any]:
        made = policy_at(value)
        pol, env = made if isinstance(made, tuple) else (made, environment)
        if env is not None and not callable(getattr(env, "instances", None)):
            env = env(value)
        if env is None:
            raise ValueError(f"no environment for {variable} = {value:g}: give environment= or return (policy, "
                             "environment) from the constructor")
        from ..bandits.policies import check_policy

        return check_policy(pol), check_environment(env)

    name = f"{label} over {variable}" + (f" on {subject_name(environment)}" if environment is not None and
                                         not callable(environment) else "")
    return RegretSubject(None, environment, name, params, make, cache_dir)


def order_subject(algorithms: Any, environment: Any, params: Any = None, cache_dir: Any = None) -> OrderSubject:
    """The subject of an ordering audit: ``algorithms`` maps each label to a series, which is a policy,
    a registry name (constructed with ``params``), a (name, params) pair, or a
    :class:`~dpaudit.auditors.regret_order.Difference` of two of these; the same name and parameters
    make one policy, simulated once."""
    from ..bandits.environments import check_environment
    from ..bandits.policies import check_policy

    if not isinstance(algorithms, dict) or not algorithms:
        raise TypeError("an ordering is audited on labelled algorithms: give a dict label -> policy, registry name, "
                        f"(name, params) or Difference(a, b); got {algorithms!r}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params must be a dict of named parameters, got {params!r}")
    if environment is None:
        raise ValueError("give the environment the algorithms are simulated on, e.g. BernoulliBandit([0.6, 0.5])")
    check_environment(environment)
    built: dict[Any, Any] = {}

    def policy(spec: Any) -> Any:
        if isinstance(spec, str):
            spec = (spec, {})
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict):
            key = (spec[0], tuple(sorted((k, repr(v)) for k, v in spec[1].items())))
            if key not in built:
                built[key] = _registry_policy(spec[0], {**(params or {}), **spec[1]})
            return built[key]
        return check_policy(spec)

    series = {}
    for label, spec in algorithms.items():
        if not isinstance(label, str) or not label:
            raise TypeError(f"series labels must be non-empty strings, got {label!r}")
        series[label] = (Difference(policy(spec.minuend), policy(spec.subtrahend)) if isinstance(spec, Difference)
                         else policy(spec))
    return OrderSubject(series, environment, f"{len(series)} series on {subject_name(environment)}", cache_dir)


def _horizons(horizons: Any, per_horizon: bool = False) -> np.ndarray:
    """The recorded rounds: as given, or for one horizon (or None: :data:`DEFAULT_HORIZON`) log-spaced
    rounds up to it, fewer where a horizon-aware policy is run once per round
    (:func:`dpaudit.bandits.simulation.horizon_grid`)."""
    from ..bandits.simulation import horizon_grid, regret_grid

    if horizons is None:
        horizons = DEFAULT_HORIZON
    if isinstance(horizons, numbers.Integral) and not isinstance(horizons, bool):
        return horizon_grid(int(horizons)) if per_horizon else regret_grid(int(horizons))
    values = np.asarray(horizons)
    if values.ndim != 1 or values.size == 0 or values.dtype.kind not in "iuf":
        raise ValueError(f"horizons must be an increasing list of rounds (or one horizon), got {horizons!r}")
    if values.dtype.kind == "f" and not np.all(values == np.round(values)):
        raise ValueError(f"horizons must be whole rounds, got {horizons!r}")
    values = values.astype(np.int64)
    if values[0] < 1 or (np.diff(values) <= 0).any():
        raise ValueError(f"horizons must be increasing rounds >= 1, got {horizons!r}")
    return values


def regret_audit(
    policy: Any,
    environment: Any,
    claim: Claim,
    *,
    horizons: Any = None,
    runs: int | None = None,
    confidence: float | None = 0.99,
    seed: int | np.random.SeedSequence | None = None,
    params: dict[str, Any] | None = None,
    plan: AuditPlan | None = None,
    cache_dir: Any = None,
    auditor: str = "auto",
    **settings: Any,
) -> Audit:
    """:func:`audit_regret` up to the record (``confidence`` and ``plan`` as for :func:`privacy_audit`;
    ``cache_dir`` keeps the simulations on disk there, :mod:`dpaudit.bandits.cache`)."""
    if not isinstance(claim, RegretClaim):
        raise InvalidClaim(f"audit_regret audits RegretBound, RegretRate and RegretOrder claims, got {claim!r}")
    runs = DEFAULT_RUNS if runs is None else runs
    if isinstance(runs, bool) or not isinstance(runs, numbers.Integral) or runs < 2:
        raise ValueError(f"runs must be an integer >= 2 (confidence bounds need a spread), got {runs!r}")
    check_numbers(confidence, int(runs), "statistical")
    confidence = None if confidence is None else float(confidence)
    if settings.get("regret", "pseudo") not in REGRET_KINDS:
        raise ValueError(f"regret must be one of {', '.join(REGRET_KINDS)}, got {settings['regret']!r}")
    reading = check_reading(settings.get("reading", "horizon"))
    if isinstance(claim, RegretOrder):
        subject: Any = order_subject(policy, environment, params, cache_dir)
        family = REGRET_ORDER
        per_horizon = claim.at == "grid" and any(reading_of(p, reading)[0] == PER_HORIZON for p in subject.policies())
    else:
        subject = regret_subject(policy, environment, claim, params, cache_dir)
        family = REGRET_BOUND if isinstance(claim, RegretBound) else REGRET_RATE
        per_horizon = subject.policy is not None and reading_of(subject.policy, reading)[0] == PER_HORIZON
    grid = _horizons(horizons, per_horizon)
    seq = as_seed_sequence(seed)
    plan = plan or plan_audit(family, subject, claim, auditor)
    finding, seconds = conduct(plan, subject, claim, confidence=confidence, seed=seq, horizons=grid, runs=int(runs),
                               **settings)
    return Audit(claim, subject.name, finding, seq, seconds)


def audit_regret(
    policy: Any,
    environment: Any,
    claim: Claim,
    horizons: Any = None,
    runs: int | None = None,
    confidence: float = 0.99,
    seed: int | np.random.SeedSequence | None = None,
    *,
    params: dict[str, Any] | None = None,
    **settings: Any,
) -> AuditResult:
    """Audit a regret claim (:class:`~dpaudit.RegretBound`, :class:`~dpaudit.RegretRate` or
    :class:`~dpaudit.RegretOrder`) about an algorithm, or several, by simulating them
    (:func:`dpaudit.simulate`).

    Parameters
    ----------
    policy
        A registry name (``dpaudit.algorithms.ALGORITHMS``, constructed with ``params``), a built-in
        algorithm, or a user object of the policy protocol (:mod:`dpaudit.bandits.policies`). For a rate in
        eps, d, K, n or B: a registry name (the value is passed as that keyword) or a callable value ->
        policy, or value -> (policy, environment). For an ordering: a dict label -> series, each a
        policy, a registry name, a (name, params) pair or a
        :class:`~dpaudit.auditors.regret_order.Difference` of two (all simulated with the same seed).
    environment
        The environment (:mod:`dpaudit.bandits.environments`); for a rate in a parameter it may be a callable
        value -> environment.
    claim
        ``RegretBound(f)`` (E[R_T] <= f(T) at every T of ``horizons``), ``RegretBound(f, probability=p)``,
        ``RegretRate(exponent, variable, log_power)`` or ``RegretOrder([[lowest], ..., [highest]])``.
    horizons
        The rounds T at which the claim about E[R_T] is tested: an increasing list, or one horizon
        (log-spaced rounds up to it); default rounds up to 10,000. An anytime policy (``anytime = True``,
        :func:`dpaudit.bandits.policies.horizon_use`) is simulated once, to the last of them; a policy started
        with its horizon and using it is simulated once per round T, started with T, with common random
        numbers (one horizon then gives rounds a factor sqrt 2 apart, costing about 3.4 times the
        horizon; :mod:`dpaudit.bandits.horizons`). For a rate in a parameter only the last is used (the horizon).
    runs
        Independent runs (default 200); at least 2.
    confidence
        Confidence of a refutation.
    seed
        Seed of the simulation (and of the bootstrap of a rate fit); ``None`` draws fresh entropy.
    params
        Named parameters: given to a registry algorithm's constructor, and to a bound's function
        (eps, delta, d, K, n, gaps; K and a fixed instance's gaps are supplied from the environment).
    settings
        ``regret="pseudo"`` (default) or ``"realised"``; ``reading="horizon"`` (default: E[R_T] of runs
        of horizon T) or ``"figure"`` (regret at round t of one run of the last horizon, as a paper's
        figure plots it; the record says which reading it used); ``workers`` (processes of the simulation);
        ``auditor``: ``"auto"`` (default: a bound is decided exactly where the policy computes its
        expected regret, ``exact_regret``, :mod:`dpaudit.auditors.exact_regret`; else by simulation),
        ``"exact"`` or ``"statistical"``;
        rates: ``values`` (the grid of the variable, for eps, d, K, n, B), ``margin`` (default 0.1),
        ``asymptotic`` (the share of the log-range of T fitted, default 0.5), ``bootstrap`` (resamples,
        default 1000). See :mod:`dpaudit.auditors.regret_bound`, :mod:`dpaudit.auditors.regret_rate` and
        :mod:`dpaudit.auditors.regret_order`.
    """
    if confidence is None:
        raise ValueError("confidence must be in (0, 1), got None")
    return assemble_record(regret_audit(policy, environment, claim, horizons=horizons, runs=runs,
                                        confidence=confidence, seed=seed, params=params, **settings))


def lower_bound_audit(
    claim: Claim,
    algorithms: Any = None,
    *,
    runs: int = 1000,
    seed: int | np.random.SeedSequence | None = None,
    confidence: float | None = 0.99,
    tolerance: float = 1e-12,
    workers: int = 1,
) -> Audit:
    """:func:`audit_lower_bound` up to the record (``confidence`` None: proof steps only)."""
    from ..auditors.lower_bound import LowerBoundAuditor, as_subject
    from ..core.claims import LowerBound

    if not isinstance(claim, LowerBound):
        raise InvalidClaim(f"audit_lower_bound audits LowerBound claims, got {claim!r}")
    subject = as_subject(algorithms)
    if subject.contenders:
        check_numbers(confidence, runs, "auto")
        if confidence is None:
            raise ValueError("simulating algorithms needs a confidence level in (0, 1)")
    seq = as_seed_sequence(seed)
    start = time.perf_counter()
    finding = LowerBoundAuditor().audit(subject, claim, confidence=confidence if subject.contenders else None,
                                        seed=seq, runs=runs, tolerance=tolerance, workers=workers)
    return Audit(claim, subject.name, finding, seq, time.perf_counter() - start)


def audit_lower_bound(
    claim: Claim,
    algorithms: Any = None,
    *,
    runs: int = 1000,
    seed: int | np.random.SeedSequence | None = None,
    confidence: float = 0.99,
    tolerance: float = 1e-12,
    workers: int = 1,
) -> AuditResult:
    """Audit a lower-bound theorem (:class:`~dpaudit.LowerBound`): its proof steps, computed exactly at
    the claim's parameters, and its bound against ``algorithms`` on the hard instance.

    ``algorithms`` is a mapping label -> policy, a sequence of policies, or
    :class:`dpaudit.auditors.lower_bound.Contender` objects (which say what was checked about each
    algorithm's privacy, and at which parameters it is held to the bound); None checks the proof
    steps only. Each algorithm runs ``runs`` times on every member of the instance. A refutation
    holds with probability at least ``confidence`` (exactly, for a failed proof step). See
    :mod:`dpaudit.auditors.lower_bound`.
    """
    if confidence is None:
        raise ValueError("confidence must be in (0, 1), got None")
    return assemble_record(lower_bound_audit(claim, algorithms, runs=runs, seed=seed, confidence=confidence,
                                             tolerance=tolerance, workers=workers))


__all__ = [
    "DEFAULT_HORIZON", "DEFAULT_RUNS", "audit_lower_bound", "audit_regret", "lower_bound_audit", "order_subject",
    "regret_audit", "regret_subject"
]
