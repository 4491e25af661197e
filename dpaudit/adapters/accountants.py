"""Other libraries' privacy accountants as audited subjects: a DP-SGD configuration in, the library's epsilon out.

An accountant is a claim generator: given a DP-SGD run (:class:`dpaudit.core.dpsgd.DPSGDConfig`) and a delta it
states an epsilon. These adapters put each library's accountant behind one small interface, so that its answers can
be held against the certified brackets of :func:`dpaudit.exact.accounting.certify` (``benchmarks/accountant_grid.py``
does so over a grid; the adapters themselves never certify anything):

>>> from dpaudit.core.dpsgd import DPSGDConfig, PoissonBatches
>>> run = DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000)
>>> DPAccountingPLD().epsilon(run, 1e-5)                                   # doctest: +SKIP
1.828243...

Every adapter has ``name``, ``bound`` (what its value claims: ``"upper"``, an epsilon at or above the true one;
``"lower"``, at or below it; ``"estimate"``, neither), ``supports(config) -> (bool, reason)``, ``epsilon(config,
delta)`` and, where the library offers it, ``delta(config, epsilon)``. A configuration an adapter cannot model raises
``ValueError`` with the reason ``supports`` gives. Each library is imported when first used; a missing one raises
``ImportError`` naming its pip package.

The configuration is passed **as each library documents its parameters**, never corrected for a convention the
library gets wrong internally (the audit is of the accountant as documented):

- dp-accounting (:class:`DPAccountingPLD`, :class:`DPAccountingRDP`): ``GaussianDpEvent(z)`` with z the run's noise
  multiplier, std / C, as ``GaussianDpEvent``'s docstring defines it; Poisson batches as ``PoissonSampledDpEvent``,
  fixed-size batches as ``SampledWithoutReplacementDpEvent``, batches with replacement as
  ``SampledWithReplacementDpEvent`` (the library's ``supports`` decides); the relation as its
  ``NeighboringRelation``: add-remove -> ADD_OR_REMOVE_ONE, zero-out -> REPLACE_SPECIAL, replace-one -> REPLACE_ONE.
  (Under REPLACE_ONE its RDP of sampling without replacement reads the multiplier as std / sensitivity, 2C for
  clipped sums: google/differential-privacy#378. Passing z as documented is what shows it.)
- prv-accountant (:class:`PRVAccountant`): ``PoissonSubsampledGaussianMechanism(q, z)``, composed ``steps`` times by
  ``PRVAccountant``; it returns (lower, estimate, upper) and ``report`` picks one (default the upper bound, as Opacus
  does). Poisson batches under add-remove or zero-out (the same pair for Poisson sampling) only.
- autodp (:class:`AutoDP`): its RDP accountant, ``GaussianMechanism``'s sigma being "the std of the noise divided by
  the l2 sensitivity": z for add-remove and zero-out, z / 2 for replace-one (sensitivity 2C). Poisson batches by
  ``NoisySGD_Mechanism`` (add-remove, zero-out); fixed-size batches by ``AmplificationBySampling(PoissonSampling=
  False)`` of a mechanism marked ``neighboring = "replace_one"``, as autodp requires for sampling without
  replacement (zero-out and replace-one).
- Opacus needs torch and runs under its own interpreter: ``benchmarks/opacus_driver.py``.

**Accounted as Poisson** (``assume_poisson=True`` on every adapter): a run with shuffled, balls-and-bins or
fixed-size batches is accounted as Poisson sampling at rate batch / size (1 / batches for balls-and-bins) for the
same number of steps, under the same relation: what TF-Privacy's ``compute_dp_sgd_privacy`` and Opacus's default do.
:func:`as_poisson` gives that configuration. Without the option a Poisson-only accountant refuses such runs.

May import the vocabulary (``dpaudit.core``); nothing else of dpaudit.
"""

from __future__ import annotations

import functools
import logging
import math
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..core.dpsgd import (
    ADD_REMOVE,
    REPLACE_ONE,
    ZERO_OUT,
    BallsAndBins,
    BatchesWithReplacement,
    DPSGDConfig,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
)

UPPER, LOWER, ESTIMATE = "upper", "lower", "estimate"
BOUNDS = (UPPER, LOWER, ESTIMATE)

PIP = {"dp_accounting": "dp-accounting", "prv_accountant": "prv-accountant", "autodp": "autodp"}


def _library(module: str) -> Any:
    """Import ``module`` (a dotted name), or raise ImportError naming the pip package to install."""
    import importlib

    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{PIP.get(top, top)} is not installed: pip install {PIP.get(top, top)} ({exc})") from exc


def poisson_rate(config: DPSGDConfig) -> float:
    """The rate at which "accounted as Poisson" accounts a run: batch / size, 1 / batches for balls-and-bins."""
    s = config.sampler
    if isinstance(s, PoissonBatches):
        return s.rate
    if isinstance(s, (ShuffledBatches, FixedSizeBatches, BatchesWithReplacement)):
        return s.batch / s.size
    if isinstance(s, BallsAndBins):
        return 1.0 / s.batches
    raise TypeError(f"no Poisson rate for the sampler {s!r}")


def as_poisson(config: DPSGDConfig) -> DPSGDConfig:
    """``config`` accounted as Poisson sampling: rate :func:`poisson_rate`, the same steps, noise and relation."""
    if isinstance(config.sampler, PoissonBatches):
        return config
    if isinstance(config.sampler, BatchesWithReplacement):
        raise ValueError("batches drawn with replacement are not accounted as Poisson here (draws can repeat)")
    label = f"{config.label} as Poisson" if config.label else ""
    return DPSGDConfig(PoissonBatches(poisson_rate(config)), config.noise_multiplier, steps=config.steps,
                       relation=config.relation, label=label)


def _check_query(name: str, value: float, *, delta: bool) -> float:
    value = float(value)
    if delta and not 0 < value < 1:
        raise ValueError(f"delta must be in (0, 1), got {value!r}")
    if not delta and not (math.isfinite(value) and value >= 0):
        raise ValueError(f"epsilon must be finite and >= 0, got {value!r}")
    return value


class Accountant:
    """The interface (module docstring). Subclasses set ``name``, ``library`` and ``bound`` and implement
    :meth:`_model` (what the library sees, or ValueError) and :meth:`_epsilon`."""

    name: str = "accountant"
    library: str = ""
    bound: str = UPPER
    #: the relations the library can account for each sampler kind (PoissonBatches, FixedSizeBatches, ...)
    relations: dict[type, tuple[str, ...]] = {}

    #: composed models kept per adapter (a query at another delta or epsilon reuses the composition)
    CACHED = 8

    def __init__(self, *, assume_poisson: bool = False):
        if not isinstance(assume_poisson, bool):
            raise ValueError(f"assume_poisson must be True or False, got {assume_poisson!r}")
        self.assume_poisson = assume_poisson
        self._cache: OrderedDict[Any, Any] = OrderedDict()

    def _remembered(self, key: Any, build: Callable[[], Any]) -> Any:
        """``build()``, kept for the last CACHED keys."""
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        value = build()
        self._cache[key] = value
        while len(self._cache) > self.CACHED:
            self._cache.popitem(last=False)
        return value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}{', assume_poisson=True' if self.assume_poisson else ''})"

    # -- what the accountant sees --------------------------------------------------------------------------------

    def accounted(self, config: DPSGDConfig) -> DPSGDConfig:
        """The configuration the library accounts: ``config`` itself, or under ``assume_poisson`` a run with
        shuffled, balls-and-bins or fixed-size batches read as Poisson sampling (:func:`as_poisson`)."""
        if not isinstance(config, DPSGDConfig):
            raise TypeError(f"{self.name}: expected a DPSGDConfig, got {config!r}")
        if self.assume_poisson and isinstance(config.sampler, (ShuffledBatches, BallsAndBins, FixedSizeBatches)):
            return as_poisson(config)
        return config

    def supports(self, config: DPSGDConfig) -> tuple[bool, str]:
        """Whether this accountant can account ``config``, and why not when it cannot."""
        try:
            self._prepared(config)
        except ValueError as exc:
            return False, str(exc)
        return True, ""

    def _prepared(self, config: DPSGDConfig) -> Any:
        """What the library is asked (:meth:`_model` of the accounted configuration); its ValueError says when
        the configuration was read as Poisson sampling."""
        seen = self.accounted(config)
        try:
            return self._model(seen)
        except ValueError as exc:
            if seen is config:
                raise
            raise ValueError(f"{config.sampler.describe()} accounted as Poisson sampling at rate "
                             f"{seen.sampler.rate:g}: {exc}") from None

    def _native(self, config: DPSGDConfig) -> None:
        """ValueError unless the library models the sampler and relation of ``config``."""
        kinds = self.relations.get(type(config.sampler))
        if kinds is None:
            known = ", ".join(k.__name__ for k in self.relations)
            hint = "" if self.assume_poisson else "; assume_poisson=True accounts it as Poisson sampling"
            raise ValueError(f"{self.name} does not model {config.sampler.describe()} (it models {known}){hint}")
        if config.relation not in kinds:
            raise ValueError(f"{self.name} does not model {config.relation} neighbours with "
                             f"{type(config.sampler).__name__} (it models {', '.join(kinds)})")

    def _model(self, config: DPSGDConfig) -> Any:
        raise NotImplementedError

    # -- the answers ---------------------------------------------------------------------------------------------

    def epsilon(self, config: DPSGDConfig, delta: float) -> float:
        """The library's epsilon at ``delta`` for ``config`` (ValueError if it cannot model it)."""
        delta = _check_query(self.name, delta, delta=True)
        model = self._prepared(config)
        return float(self._epsilon(model, delta))

    def _epsilon(self, model: Any, delta: float) -> float:
        raise NotImplementedError

    def delta(self, config: DPSGDConfig, epsilon: float) -> float:
        """The library's delta at ``epsilon`` (where the library offers it)."""
        raise NotImplementedError(f"{self.name} offers no delta(epsilon)")


# -- dp-accounting -----------------------------------------------------------------------------------------------

_DP_RELATIONS = {ADD_REMOVE: "ADD_OR_REMOVE_ONE", ZERO_OUT: "REPLACE_SPECIAL", REPLACE_ONE: "REPLACE_ONE"}


def neighboring_relation(relation: str) -> Any:
    """dp_accounting's ``NeighboringRelation`` for a dpaudit relation (module docstring)."""
    if relation not in _DP_RELATIONS:
        raise ValueError(f"unknown relation {relation!r}; expected one of {', '.join(_DP_RELATIONS)}")
    return getattr(_library("dp_accounting").NeighboringRelation, _DP_RELATIONS[relation])


def dp_event(config: DPSGDConfig) -> Any:
    """The dp_accounting event of one step of ``config`` (the noise multiplier as GaussianDpEvent documents it)."""
    events = _library("dp_accounting.dp_event")
    gaussian = events.GaussianDpEvent(config.noise_multiplier)
    s = config.sampler
    if isinstance(s, PoissonBatches):
        return events.PoissonSampledDpEvent(s.rate, gaussian)
    if isinstance(s, FixedSizeBatches):
        return events.SampledWithoutReplacementDpEvent(s.size, s.batch, gaussian)
    if isinstance(s, BatchesWithReplacement):
        return events.SampledWithReplacementDpEvent(s.size, s.batch, gaussian)
    raise ValueError(f"dp_accounting has no event for {s.describe()}; assume_poisson=True accounts it as Poisson "
                     "sampling")


class _DPAccounting(Accountant):
    library = "dp-accounting"
    relations = {PoissonBatches: (ADD_REMOVE, ZERO_OUT, REPLACE_ONE),
                 FixedSizeBatches: (ZERO_OUT, REPLACE_ONE), BatchesWithReplacement: (ZERO_OUT, REPLACE_ONE)}

    def _new(self, relation: Any) -> Any:
        raise NotImplementedError

    def _model(self, config: DPSGDConfig) -> Any:
        self._native(config)
        event = dp_event(config)
        accountant = self._new(neighboring_relation(config.relation))
        if not accountant.supports(event):
            why = accountant._maybe_compose(event, 0, False)
            detail = getattr(why, "error_message", "") or "unsupported event"
            raise ValueError(f"{self.name} does not support {type(event).__name__} under "
                             f"{_DP_RELATIONS[config.relation]}: {detail}")
        return accountant, event, config.steps, config

    def _composed(self, model: Any) -> Any:
        """The accountant with the run composed (built once per configuration, queried at any delta)."""
        return self._remembered(model[3], lambda: self._compose(model))

    def _compose(self, model: Any) -> Any:
        accountant, event, steps, _ = model
        return accountant.compose(event, steps)

    def _epsilon(self, model: Any, delta: float) -> float:
        return self._composed(model).get_epsilon(delta)

    def delta(self, config: DPSGDConfig, epsilon: float) -> float:
        epsilon = _check_query(self.name, epsilon, delta=False)
        return float(self._composed(self._prepared(config)).get_delta(epsilon))


class DPAccountingRDP(_DPAccounting):
    """dp_accounting's ``RdpAccountant`` (its default orders unless ``orders`` is given): an upper bound."""

    name = "dp-accounting-rdp"

    def __init__(self, *, orders: Any = None, assume_poisson: bool = False):
        super().__init__(assume_poisson=assume_poisson)
        self.orders = orders

    def _new(self, relation: Any) -> Any:
        rdp = _library("dp_accounting.rdp.rdp_privacy_accountant")
        return rdp.RdpAccountant(orders=self.orders, neighboring_relation=relation)

    def _epsilon(self, model: Any, delta: float) -> float:
        absl = logging.getLogger("absl")  # orders whose series does not converge are logged and dropped
        level = absl.level
        absl.setLevel(logging.ERROR)
        try:
            return super()._epsilon(model, delta)
        finally:
            absl.setLevel(level)


class DPAccountingPLD(_DPAccounting):
    """dp_accounting's privacy-loss-distribution accountant at ``discretization`` (its value discretization
    interval). ``pessimistic=True`` is ``PLDAccountant`` (connect-the-dots, an upper bound); ``pessimistic=False``
    is the optimistic rounding (privacy buckets rounded down, ``from_gaussian_mechanism(pessimistic_estimate=False,
    use_connect_dots=False)``): a lower estimate, so its claim is a lower bound."""

    def __init__(self, *, pessimistic: bool = True, discretization: float = 1e-4, assume_poisson: bool = False):
        super().__init__(assume_poisson=assume_poisson)
        if not isinstance(pessimistic, bool):
            raise ValueError(f"pessimistic must be True or False, got {pessimistic!r}")
        if not (isinstance(discretization, (int, float)) and math.isfinite(discretization) and discretization > 0):
            raise ValueError(f"discretization must be a positive number, got {discretization!r}")
        self.pessimistic = pessimistic
        self.discretization = float(discretization)
        self.name = "dp-accounting-pld-" + ("pessimistic" if pessimistic else "optimistic")
        self.bound = UPPER if pessimistic else LOWER

    def _new(self, relation: Any) -> Any:
        pld = _library("dp_accounting.pld.pld_privacy_accountant")
        return pld.PLDAccountant(neighboring_relation=relation, value_discretization_interval=self.discretization)

    def _compose(self, model: Any) -> Any:
        if self.pessimistic:
            return _PLDQueries(super()._compose(model), "get_epsilon", "get_delta")
        accountant, event, steps, _ = model
        if not hasattr(event, "sampling_probability"):  # PLDAccountant refused the others already
            raise ValueError(f"{self.name} accounts Poisson sampling only")
        pld = _library("dp_accounting.pld.privacy_loss_distribution")
        one = pld.from_gaussian_mechanism(event.event.noise_multiplier, sampling_prob=event.sampling_probability,
                                          pessimistic_estimate=False, use_connect_dots=False,
                                          value_discretization_interval=self.discretization,
                                          neighboring_relation=accountant.neighboring_relation)
        return _PLDQueries(one.self_compose(steps), "get_epsilon_for_delta", "get_delta_for_epsilon")


class _PLDQueries:
    """An accountant or a PLD, asked through one pair of names."""

    def __init__(self, target: Any, eps_name: str, delta_name: str):
        self.get_epsilon: Callable[[float], float] = getattr(target, eps_name)
        self.get_delta: Callable[[float], float] = getattr(target, delta_name)


# -- prv-accountant ------------------------------------------------------------------------------------------------


class PRVAccountant(Accountant):
    """prv_accountant's ``PRVAccountant`` of ``PoissonSubsampledGaussianMechanism(q, z)`` composed ``steps`` times,
    at ``eps_error`` (default 0.01, Opacus's) and ``delta_error`` (default delta / 1000, Opacus's; for
    :meth:`delta`, 1e-10 unless given). ``report`` picks which of its (lower, estimate, upper) epsilon is
    returned: ``"upper"`` (default; its claim), ``"lower"`` or ``"estimate"``."""

    library = "prv-accountant"
    relations = {PoissonBatches: (ADD_REMOVE, ZERO_OUT)}
    REPORTS = {UPPER: 2, ESTIMATE: 1, LOWER: 0}

    def __init__(self, *, eps_error: float = 0.01, delta_error: float | None = None, report: str = UPPER,
                 assume_poisson: bool = False):
        super().__init__(assume_poisson=assume_poisson)
        if report not in self.REPORTS:
            raise ValueError(f"report must be one of {', '.join(self.REPORTS)}, got {report!r}")
        if not (math.isfinite(eps_error) and eps_error > 0):
            raise ValueError(f"eps_error must be a positive number, got {eps_error!r}")
        if delta_error is not None and not 0 < delta_error < 1:
            raise ValueError(f"delta_error must be in (0, 1), got {delta_error!r}")
        self.eps_error, self.delta_error, self.report = float(eps_error), delta_error, report
        self.bound = report
        self.name = "prv-accountant" + ("" if report == UPPER else f"-{report}")

    def _model(self, config: DPSGDConfig) -> Any:
        self._native(config)
        _library("prv_accountant")
        return config.sampler.rate, config.noise_multiplier, config.steps

    def _accountant(self, model: Any, delta_error: float) -> Any:
        prv = _library("prv_accountant")
        q, z, steps = model
        mechanism = prv.PoissonSubsampledGaussianMechanism(sampling_probability=q, noise_multiplier=z)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return prv.PRVAccountant(prvs=[mechanism], eps_error=self.eps_error, delta_error=delta_error,
                                     max_self_compositions=[steps])

    def bounds(self, config: DPSGDConfig, delta: float) -> tuple[float, float, float]:
        """All three of its values at ``delta``: (lower, estimate, upper)."""
        delta = _check_query(self.name, delta, delta=True)
        model = self._prepared(config)
        error = self.delta_error if self.delta_error is not None else delta / 1000
        return _prv_epsilons(*model, delta, self.eps_error, error)

    def epsilon(self, config: DPSGDConfig, delta: float) -> float:
        return self.bounds(config, delta)[self.REPORTS[self.report]]

    def delta(self, config: DPSGDConfig, epsilon: float) -> float:
        epsilon = _check_query(self.name, epsilon, delta=False)
        model = self._prepared(config)
        error = self.delta_error if self.delta_error is not None else 1e-10
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = self._accountant(model, error).compute_delta(epsilon, [model[2]])
        # compute_delta returns (lower, estimate, upper) too; an upper epsilon claim pairs with the upper delta
        return float(values[{UPPER: 2, ESTIMATE: 1, LOWER: 0}[self.report]])


@functools.lru_cache(maxsize=64)
def _prv_epsilons(q: float, z: float, steps: int, delta: float, eps_error: float, delta_error: float,
                  ) -> tuple[float, float, float]:
    """prv_accountant's (lower, estimate, upper) epsilon, remembered (its upper and lower adapters share one
    computation); an error is raised again on every call."""
    prv = _library("prv_accountant")
    mechanism = prv.PoissonSubsampledGaussianMechanism(sampling_probability=q, noise_multiplier=z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        accountant = prv.PRVAccountant(prvs=[mechanism], eps_error=eps_error, delta_error=delta_error,
                                       max_self_compositions=[steps])
        values = accountant.compute_epsilon(delta, [steps])
    return tuple(float(v) for v in values)  # type: ignore[return-value]


# -- autodp ---------------------------------------------------------------------------------------------------------


class AutoDP(Accountant):
    """autodp's RDP accountant (the RDP of the subsampled Gaussian composed ``steps`` times, converted to
    (epsilon, delta) by its default conversion): an upper bound (module docstring for the parameters)."""

    name = "autodp-rdp"
    library = "autodp"
    relations = {PoissonBatches: (ADD_REMOVE, ZERO_OUT), FixedSizeBatches: (ZERO_OUT, REPLACE_ONE)}

    def _model(self, config: DPSGDConfig) -> Any:
        self._native(config)
        zoo = _library("autodp.mechanism_zoo")
        sigma = config.noise_multiplier / config.sensitivity  # std / l2 sensitivity, as autodp documents sigma
        s = config.sampler
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(s, PoissonBatches):
                return zoo.NoisySGD_Mechanism(s.rate, sigma, config.steps)
            transformers = _library("autodp.transformer_zoo")
            base = zoo.ExactGaussianMechanism(sigma=sigma)
            base.neighboring = "replace_one"  # autodp's sampling without replacement is about replace-one pairs
            sampled = transformers.AmplificationBySampling(PoissonSampling=False)(base, s.rate,
                                                                                  improved_bound_flag=True)
            return transformers.Composition()([sampled], [config.steps])

    def _epsilon(self, model: Any, delta: float) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return model.get_approxDP(delta)

    def delta(self, config: DPSGDConfig, epsilon: float) -> float:
        epsilon = _check_query(self.name, epsilon, delta=False)
        model = self._prepared(config)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(model.get_approx_delta(epsilon))


def accountants(*, assume_poisson: bool = False, discretization: float = 1e-4) -> list[Accountant]:
    """One of each adapter: dp-accounting's PLD (pessimistic and optimistic) and RDP, prv-accountant (its upper and
    lower values) and autodp."""
    return [DPAccountingPLD(pessimistic=True, discretization=discretization, assume_poisson=assume_poisson),
            DPAccountingPLD(pessimistic=False, discretization=discretization, assume_poisson=assume_poisson),
            DPAccountingRDP(assume_poisson=assume_poisson),
            PRVAccountant(assume_poisson=assume_poisson), PRVAccountant(report=LOWER, assume_poisson=assume_poisson),
            AutoDP(assume_poisson=assume_poisson)]


__all__ = ["BOUNDS", "ESTIMATE", "LOWER", "UPPER", "Accountant", "AutoDP", "DPAccountingPLD", "DPAccountingRDP",
           "PRVAccountant", "accountants", "as_poisson", "dp_event", "neighboring_relation", "poisson_rate"]
