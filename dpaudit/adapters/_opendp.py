"""OpenDP measurements as dpaudit subjects (``pip install dpaudit[opendp]``).

The claim is the measurement's own: its output measure and its privacy map at ``d_in``
(``MaxDivergence`` -> ``PureDP(map(d_in))``; ``ZeroConcentratedDivergence`` -> ``ZCDP(map(d_in))``;
``Approximate(MaxDivergence)`` -> ``ApproxDP(*map(d_in))``; ``SmoothedMaxDivergence`` ->
``ApproxDP(map(d_in).epsilon(delta), delta)`` at the ``delta`` given). The relation is the one the
input metric implies at ``d_in``: ``AbsoluteDistance`` -> :class:`~dpaudit.QueryDistance` (``d_in``);
``L1Distance`` / ``L2Distance`` on vectors -> :class:`~dpaudit.QueryDistance` moving one coordinate by
``d_in`` (every such pair is a neighbour in either norm; the search misses spread-out moves);
``DiscreteDistance`` -> any two values; ``SymmetricDistance`` -> :class:`~dpaudit.AddRemoveOne` and
``ChangeOneDistance`` / ``HammingDistance`` -> :class:`~dpaudit.ReplaceOne` at ``d_in = 1``.

OpenDP draws from the operating system and cannot be seeded: the subject is
:func:`~dpaudit.unseeded`, and its measurements cannot be pickled, so the calls run in this process.
A measurement on a vector domain whose noise is coordinate-wise (``noise`` given) is batched: one call
on the input repeated many times gives many outputs.

OpenDP does not expose a measurement's noise: with ``noise`` (``"laplace"`` or ``"gaussian"``) and the
``scale`` the measurement was built with, the law is known (continuous Laplace or Gaussian on a float
domain; discrete Laplace or discrete Gaussian on an integer domain) and the audit is white-box. So it is
for randomized response (``make_randomized_response_bool(prob)``, ``make_randomized_response(categories,
prob)``) with ``noise="randomized-response"``, its ``prob`` and, for categories, their list: the true
value with probability ``prob``, each other category with (1 - prob) / (k - 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import stats

from ..core.claims import ZCDP, ApproxDP, PureDP
from ..core.distributions import GaussianDistribution, ProductDistribution
from ..core.neighbours import AddRemoveOne, QueryDistance, ReplaceOne
from ..core.samplers import ScalarSampler
from .base import Adapted, Reference

INSTALL = "OpenDP is not installed: pip install 'dpaudit[opendp]'"
NOISES = ("laplace", "gaussian", "randomized-response")
#: outputs per call of a batched (vector-domain, coordinate-wise) measurement
BATCH = 65_536


def _require() -> Any:
    try:
        import opendp.prelude as dp
    except ImportError as exc:
        raise ImportError(f"{INSTALL} ({exc})") from exc
    return dp


def _claim(measurement: Any, d_in: Any, delta: float | None) -> Any:
    measure = str(measurement.output_measure)
    value = measurement.map(d_in)
    if measure == "MaxDivergence":
        return PureDP(float(value))
    if measure == "ZeroConcentratedDivergence":
        return ZCDP(float(value))
    if measure.startswith("Approximate(MaxDivergence"):
        eps, dlt = value
        return ApproxDP(float(eps), float(dlt))
    if measure == "SmoothedMaxDivergence":
        if delta is None:
            raise ValueError("the measurement's privacy is a curve (SmoothedMaxDivergence): give delta= to audit "
                             "ApproxDP(epsilon(delta), delta)")
        return ApproxDP(float(value.epsilon(delta)), float(delta))
    raise ValueError(f"output measure {measure} is not supported (MaxDivergence, ZeroConcentratedDivergence, "
                     "Approximate(MaxDivergence), SmoothedMaxDivergence are)")


def _relation(measurement: Any, d_in: Any) -> tuple[Any, str]:
    metric = str(measurement.input_metric)
    if metric.startswith("AbsoluteDistance"):
        return QueryDistance(float(d_in)), f"{metric}: answers within {d_in}"
    if metric.startswith(("L1Distance", "L2Distance")):
        return QueryDistance(float(d_in), one_coordinate=True), f"{metric}: one coordinate moved by at most {d_in}"
    if metric.startswith("DiscreteDistance"):
        return None, f"{metric}: any two values"
    if metric.startswith(("SymmetricDistance", "InsertDeleteDistance")):
        _unit(metric, d_in)
        return AddRemoveOne(), f"{metric}: one record added or removed"
    if metric.startswith(("ChangeOneDistance", "HammingDistance")):
        _unit(metric, d_in)
        return ReplaceOne(), f"{metric}: one record replaced"
    raise ValueError(f"input metric {metric} is not supported (AbsoluteDistance, L1Distance, L2Distance, "
                     "DiscreteDistance, SymmetricDistance, ChangeOneDistance, HammingDistance are)")


def _unit(metric: str, d_in: Any) -> None:
    if d_in != 1:
        raise ValueError(f"{metric} at d_in={d_in}: dpaudit's dataset relations are at distance 1; give d_in=1")


class _Call:
    """One output of a measurement per call; built in each process from ``factory`` (OpenDP's
    measurements cannot be pickled, a function that builds one can), with the parent's OpenDP features."""

    def __init__(self, factory: Any, features: Sequence[str]):
        self.factory, self.features = factory, list(features)
        self._measurement: Any = None

    def __call__(self, data: Any) -> Any:
        if self._measurement is None:
            import opendp.prelude as dp

            dp.enable_features(*self.features)
            self._measurement = self.factory()
        return self._measurement(data)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_measurement": None}


class _Invoke:
    """Outputs of an OpenDP measurement, one call each (over processes when it is given by a factory),
    or batched on a vector domain with coordinate-wise noise."""

    reproducible = False

    def __init__(self, measurement: Any, factory: Any, carrier: str, vector: bool, batched: bool, name: str,
                 n_jobs: int | None):
        self.measurement, self.carrier, self.vector, self.batched, self.name = (
            measurement, carrier, vector, batched, name)
        if factory is not None:
            from opendp.mod import GLOBAL_FEATURES

            self._calls = ScalarSampler(_Call(factory, GLOBAL_FEATURES), rng=False, n_jobs=n_jobs, name=name)
        else:  # a built measurement stays in this process
            self._calls = ScalarSampler(measurement, rng=False, n_jobs=1, name=name)

    def _argument(self, data: Any) -> Any:
        arr = np.asarray(data)
        if arr.dtype.kind in "biuf":
            kind = int if self.carrier.startswith(("i", "u")) else (bool if self.carrier == "bool" else float)
            return [kind(v) for v in arr.ravel()] if self.vector else kind(arr.item())
        return data if not isinstance(data, np.ndarray) else data.tolist()

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        arg = self._argument(data)
        if not self.batched:
            return self._calls.sample(arg, size, rng)
        width = len(arg)
        per_call = max(1, BATCH // max(width, 1))
        parts, left = [], size
        while left > 0:
            n = min(per_call, left)
            parts.append(np.asarray(self.measurement(arg * n)).reshape(n, width))
            left -= n
        return np.concatenate(parts)


def _law(noise: str, scale: float, integer: bool) -> tuple[Any, Any]:
    """The noise law (for the exact distribution) and its reference for the conformance audit."""
    from dpaudit.mechanisms.noise import DiscreteLaplace, Laplace
    from dpaudit.mechanisms.noise.gaussian import DiscreteGaussian

    if noise == "laplace":
        law = DiscreteLaplace(Fraction(scale)) if integer else Laplace(Fraction(scale))
        return law, law
    if integer:
        law = DiscreteGaussian(scale)
        return law, law
    return None, stats.norm(0.0, scale)


def opendp(measurement: Any, d_in: Any = 1, *, delta: float | None = None, noise: str | None = None,
           scale: float | None = None, prob: float | None = None, categories: Sequence[Any] | None = None,
           pairs: Sequence[tuple[Any, Any]] | None = None, n_jobs: int | None = None) -> Adapted:
    """An OpenDP measurement as a dpaudit subject, with the claim its privacy map gives at ``d_in``.

    ``measurement`` is a measurement, or a function of no arguments that builds it (say
    ``lambda: dp.m.make_laplace(...)``): then the calls run over ``n_jobs`` processes, each building its
    own copy (a measurement itself cannot be sent to another process).

    ``noise`` and ``scale`` (how it was built: ``make_laplace(..., scale=s)`` is ``noise="laplace"``,
    ``scale=s``; ``make_geometric`` is ``"laplace"`` too) make the audit white-box, as do
    ``noise="randomized-response"`` with ``prob`` (and ``categories``, unless the domain is boolean) for
    randomized response. Default pairs:
    ``(0, d_in)`` on numbers (the vector ``0`` against ``d_in`` in its first coordinate, for a vector
    domain of the length of the first pair given), and for booleans ``(False, True)``.
    """
    dp = _require()
    factory = None
    if not isinstance(measurement, dp.Measurement) and callable(measurement):
        factory, measurement = measurement, measurement()
    if not isinstance(measurement, dp.Measurement):
        raise TypeError(f"expected an OpenDP Measurement or a function that builds one, got {measurement!r}")
    if noise is not None and noise not in NOISES:
        raise ValueError(f"noise must be one of {', '.join(NOISES)}, got {noise!r}")
    if noise == "randomized-response":
        if prob is None or scale is not None:
            raise ValueError("randomized response is stated by noise='randomized-response' and prob= (its "
                             "probability of the true value), not scale=")
    elif (noise is None) != (scale is None) or prob is not None or categories is not None:
        raise ValueError("give noise= and scale= together (how the measurement was built), or neither; prob= and "
                         "categories= are for noise='randomized-response'")
    claim = _claim(measurement, d_in, delta)
    relation, relation_note = _relation(measurement, d_in)
    domain = str(measurement.input_domain)
    vector = domain.startswith("VectorDomain(")
    carrier = domain.split("T=")[-1].rstrip(")") if "T=" in domain else ""
    integer = carrier.startswith(("i", "u"))
    stated = f"prob={prob:g}" if noise == "randomized-response" else f"scale={scale:g}" if noise else ""
    name = f"opendp {domain} -> {measurement.output_measure}" + (f" ({noise}, {stated})" if noise else "")
    notes = [f"claim from the measurement's output measure {measurement.output_measure} and map({d_in!r})",
             f"relation from the input metric {relation_note}", "OpenDP cannot be seeded: the samples are the "
             "operating system's"]
    sampler = _Invoke(measurement, factory, carrier, vector, batched=vector and noise in ("laplace", "gaussian"),
                      name=name, n_jobs=n_jobs)
    law = reference = None
    if noise == "randomized-response":
        law, reference = _randomized_response(float(prob), carrier, categories)
        notes.append(f"law: the true value with probability {prob:g}, each other value with the rest shared evenly")
    elif noise is not None:
        noise_law, reference_law = _law(noise, float(scale), integer)

        def law(data: Any) -> Any:
            q = np.asarray(data, dtype=float)
            coordinates = [_shifted(noise, noise_law, float(scale), v, integer) for v in np.atleast_1d(q)]
            return coordinates[0] if q.ndim == 0 else ProductDistribution(tuple(coordinates))

        def reference(data: Any) -> Reference:
            centre = np.asarray(data, dtype=float)
            # the first coordinate's noise (the others are independent copies of the same law)
            return reference_law, lambda out: (np.asarray(out, dtype=float) - centre).reshape(len(out), -1)[:, 0]
    if pairs is None:
        if carrier == "bool":
            pairs = [(False, True)]
        elif carrier and not vector and relation is not None and isinstance(relation, QueryDistance):
            pairs = [(0, d_in)]
    return Adapted(name, sampler, claim, relation=relation, pairs=pairs, law=law, reference=reference,
                   notes=notes)


def _randomized_response(prob: float, carrier: str, categories: Sequence[Any] | None) -> tuple[Any, Any]:
    """The exact law on the categories' codes (their index in ``categories``; False, True for booleans)
    and its reference for the conformance audit."""
    from dpaudit.core.distributions import FiniteDistribution

    if categories is None:
        if carrier != "bool":
            raise ValueError("randomized response on a non-boolean domain: give categories=[...] as the "
                             "measurement was built with them")
        categories = [False, True]
    values = list(categories)
    if len(values) < 2 or not 0 < prob < 1:
        raise ValueError(f"randomized response needs two or more categories and 0 < prob < 1, got {prob!r}")

    def probs(data: Any) -> np.ndarray:
        p = np.full(len(values), (1 - prob) / (len(values) - 1))
        p[values.index(_plain(data))] = prob
        return p

    def law(data: Any) -> Any:
        return FiniteDistribution.from_probs(np.arange(len(values)), probs(data), log_error=1e-12)

    def reference(data: Any) -> Reference:
        codes = stats.rv_discrete(values=(np.arange(len(values)), probs(data)), name="randomized response")()
        return codes, lambda out: np.array([values.index(_plain(v)) for v in np.asarray(out).ravel()])

    return law, reference


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _shifted(noise: str, law: Any, scale: float, by: float, integer: bool) -> Any:
    if noise == "gaussian":
        return _discrete_gaussian(law, int(by)) if integer else GaussianDistribution(by, scale)
    return law.shifted(int(by) if integer else Fraction(by))


#: inputs of a discrete Gaussian measurement audited exactly lie within this distance of 0: the laws of
#: all of them live on one window, so a pair's two tables share their support (tables cut at different
#: places would have an infinite Renyi divergence)
DISCRETE_REACH = 1024


def _discrete_gaussian(law: Any, q: int) -> Any:
    """The exact law of q + N_Z(0, sigma^2) on the window shared by every input within the reach, from the
    closed-form log pmf (accurate in log space however far out)."""
    from dpaudit.core.distributions import FiniteDistribution
    from dpaudit.mechanisms.noise._lattice import TABLE_LOG_ERROR

    if abs(q) > DISCRETE_REACH:
        raise ValueError(f"a discrete Gaussian input must lie within {DISCRETE_REACH} of 0 to be audited exactly, "
                         f"got {q}")
    lo, hi = law.window()
    outcomes = np.arange(lo - DISCRETE_REACH, hi + DISCRETE_REACH + 1)
    logs = law.logpmf(outcomes - q)
    error = TABLE_LOG_ERROR + 4 * np.finfo(float).eps * (1 + float(np.abs(logs).max()))
    return FiniteDistribution(outcomes, logs, log_error=error)
