"""The Python entry points: :func:`audit_privacy`, :func:`audit_tail`, :func:`audit_sampler` and
:func:`audit_regret`.

Each one checks its arguments and prepares its family's subject (a checked mechanism and its pairs;
a law and a sampler), then runs the one driver (:mod:`dpaudit.driver`: plan with the auditors' own
``supports`` answers, conduct, fall back once) and assembles the record once
(:func:`dpaudit.records.assemble_record`). The ``*_audit`` functions stop before the record: a suite
entry calls them and the runner assembles the record with the entry's fields.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .auditors import (
    ConformanceAuditor,
    ExactPrivacyAuditor,
    ExactTailAuditor,
    ExactUndecided,
    StatisticalPrivacyAuditor,
    StatisticalTailAuditor,
    TailSubject,
)
from .auditors.base import RegretSubject
from .auditors.exact_privacy import DEFAULT_TOLERANCE
from .auditors.exact_regret import ExactRegretAuditor
from .auditors.regret_bound import REGRET_KINDS, RegretBoundAuditor
from .auditors.regret_order import Difference, OrderSubject, RegretOrderAuditor
from .auditors.regret_rate import RegretRateAuditor
from .claims import (
    REGRET_BOUND_PARAMETERS,
    Claim,
    Conforms,
    PrivacyClaim,
    RegretBound,
    RegretClaim,
    RegretOrder,
    TailClaim,
)
from .driver import MODES, AuditPlan, Family, conduct, plan_audit
from .errors import InvalidClaim
from .horizons import check_reading, reading_of
from .laws import as_law
from .neighbours import NeighbourRelation, NeighbourSearch
from .records import Audit, assemble_record
from .results import AuditResult
from .samplers import UNSEEDED_NOTE
from .seeding import as_seed_sequence
from .simulation import PER_HORIZON
from .subjects import LISTED_CATEGORIES, Mechanism, subject_name

AUDITORS = MODES
PRIVACY = Family("privacy", ExactPrivacyAuditor(), StatisticalPrivacyAuditor())
TAIL = Family("tail", ExactTailAuditor(), StatisticalTailAuditor())
CONFORMANCE = Family("conformance", None, ConformanceAuditor())
REGRET_BOUND = Family("regret-bound", ExactRegretAuditor(), RegretBoundAuditor())
REGRET_RATE = Family("regret-rate", None, RegretRateAuditor())
REGRET_ORDER = Family("regret-order", None, RegretOrderAuditor())


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


def check_numbers(confidence: float | None, samples: int, auditor: str) -> None:
    """The arguments every entry point shares; ``confidence`` None means "no statistical budget"."""
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, numbers.Real)
                                   or not 0 < confidence < 1):
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if isinstance(samples, bool) or not isinstance(samples, numbers.Integral) or samples <= 0:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    if auditor not in MODES:
        raise ValueError(f"auditor must be one of {', '.join(MODES)}, got {auditor!r}")


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
    for d0, d1 in checked_pairs:
        mechanism.probe(d0)
        mechanism.probe(d1)
    plan = plan or plan_audit(PRIVACY, mechanism, claim, auditor)
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
    return Audit(claim, mechanism.name, finding, seq, seconds, neighbours.to_dict() if neighbours is not None else None)


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
        Pairs ``(d0, d1)`` of neighbouring inputs. Both orders of every pair are audited.
    neighbours
        The neighbouring relation the claim is about; every pair is checked against it. Given as
        ``relation.over(domain)`` (a :class:`~dpaudit.neighbours.NeighbourSearch`), the relation's
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
    if confidence is None:
        raise ValueError("confidence must be in (0, 1), got None")
    return assemble_record(privacy_audit(
        mech, claim, pairs=pairs, neighbours=neighbours, confidence=confidence, samples=samples, seed=seed,
        auditor=auditor, statistic=statistic, events=events, sequential=sequential,
        selection_fraction=selection_fraction, tolerance=tolerance,
    ))


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
    return TailSubject(None, dist_or_sampler, subject_name(dist_or_sampler))


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
    confidence = None if confidence is None else float(confidence)
    subject = tail_subject(dist_or_sampler)
    seq = as_seed_sequence(seed)
    plan = plan or plan_audit(TAIL, subject, claim, auditor)
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


#: rounds of the default grid: log-spaced up to this horizon (dpaudit.simulation.regret_grid)
DEFAULT_HORIZON = 10_000
DEFAULT_RUNS = 200


def _registry_policy(name: str, params: dict[str, Any], value: tuple[str, float] | None = None) -> Any:
    """A built-in algorithm by registry name, constructed with the parameters its constructor takes."""
    import difflib
    import inspect

    from .algorithms.registry import ALGORITHMS

    if name not in ALGORITHMS:
        close = difflib.get_close_matches(name, list(ALGORITHMS), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else " (dpaudit list --algorithms lists them)"
        raise ValueError(f"unknown algorithm {name!r}: not in dpaudit.algorithms.ALGORITHMS{hint}")
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
    from .policies import check_policy

    if isinstance(policy, str):
        return _registry_policy(policy, params)
    return check_policy(policy)


def regret_subject(policy: Any, environment: Any, claim: Claim, params: Any = None,
                   cache_dir: Any = None) -> RegretSubject:
    """The subject of a regret audit (:class:`~dpaudit.auditors.base.RegretSubject`), its arguments checked.

    For a rate in T and for bounds, ``policy`` is a registry name (constructed with ``params``), a
    built-in algorithm or a user object of the policy protocol, and ``environment`` an environment. For
    a rate in another variable (eps, d, K, n), each is either fixed or made per value: ``policy`` a
    registry name (the value passed as the keyword named by the variable), or a callable value ->
    policy or value -> (policy, environment); ``environment`` an environment or a callable value ->
    environment.
    """
    from .environments import check_environment

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
        from .policies import check_policy

        return check_policy(pol), check_environment(env)

    name = f"{label} over {variable}" + (f" on {subject_name(environment)}" if environment is not None and
                                         not callable(environment) else "")
    return RegretSubject(None, environment, name, params, make, cache_dir)


def order_subject(algorithms: Any, environment: Any, params: Any = None, cache_dir: Any = None) -> OrderSubject:
    """The subject of an ordering audit: ``algorithms`` maps each label to a series, which is a policy,
    a registry name (constructed with ``params``), a (name, params) pair, or a
    :class:`~dpaudit.auditors.regret_order.Difference` of two of these; the same name and parameters
    make one policy, simulated once."""
    from .environments import check_environment
    from .policies import check_policy

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
    (:func:`dpaudit.simulation.horizon_grid`)."""
    from .simulation import horizon_grid, regret_grid

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
    ``cache_dir`` keeps the simulations on disk there, :mod:`dpaudit.simulation_cache`)."""
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
        algorithm, or a user object of the policy protocol (:mod:`dpaudit.policies`). For a rate in
        eps, d, K or n: a registry name (the value is passed as that keyword) or a callable value ->
        policy, or value -> (policy, environment). For an ordering: a dict label -> series, each a
        policy, a registry name, a (name, params) pair or a
        :class:`~dpaudit.auditors.regret_order.Difference` of two (all simulated with the same seed).
    environment
        The environment (:mod:`dpaudit.environments`); for a rate in a parameter it may be a callable
        value -> environment.
    claim
        ``RegretBound(f)`` (E[R_T] <= f(T) at every T of ``horizons``), ``RegretBound(f, probability=p)``,
        ``RegretRate(exponent, variable, log_power)`` or ``RegretOrder([[lowest], ..., [highest]])``.
    horizons
        The rounds T at which the claim about E[R_T] is tested: an increasing list, or one horizon
        (log-spaced rounds up to it); default rounds up to 10,000. An anytime policy (``anytime = True``,
        :func:`dpaudit.policies.horizon_use`) is simulated once, to the last of them; a policy started
        with its horizon and using it is simulated once per round T, started with T, with common random
        numbers (one horizon then gives rounds a factor sqrt 2 apart, costing about 3.4 times the
        horizon; :mod:`dpaudit.horizons`). For a rate in a parameter only the last is used (the horizon).
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
        rates: ``values`` (the grid of the variable, for eps, d, K, n), ``margin`` (default 0.1),
        ``asymptotic`` (the share of the log-range of T fitted, default 0.5), ``bootstrap`` (resamples,
        default 1000). See :mod:`dpaudit.auditors.regret_bound`, :mod:`dpaudit.auditors.regret_rate` and
        :mod:`dpaudit.auditors.regret_order`.
    """
    if confidence is None:
        raise ValueError("confidence must be in (0, 1), got None")
    return assemble_record(regret_audit(policy, environment, claim, horizons=horizons, runs=runs,
                                        confidence=confidence, seed=seed, params=params, **settings))


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
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    draw = getattr(sampler, "sample", sampler)
    if not callable(draw):
        raise TypeError(f"sampler must be f(size, rng) or have .sample(size, rng); got {sampler!r}")
    claim = claim if claim is not None else Conforms(law.name)
    # the record names the law the sampler is held to: the claim is about it
    subject = TailSubject(law, draw, law.name)
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
    from .auditors.lower_bound import LowerBoundAuditor, as_subject
    from .claims import LowerBound

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


__all__ = ["AUDITORS", "CONFORMANCE", "PRIVACY", "REGRET_BOUND", "REGRET_RATE", "TAIL", "ExactUndecided",
           "audit_lower_bound", "audit_privacy", "audit_regret", "audit_sampler", "audit_tail", "lower_bound_audit",
           "privacy_audit", "privacy_plan", "regret_audit", "regret_subject", "sampler_audit", "tail_audit"]
