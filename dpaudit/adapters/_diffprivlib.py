"""diffprivlib's mechanisms and tools as dpaudit subjects (``pip install dpaudit[diffprivlib]``).

The claim is read from the mechanism's parameters: ``PureDP(epsilon)``, or ``ApproxDP(epsilon, delta)``
when ``delta > 0``; never from ``effective_epsilon()``, which for ``LaplaceBoundedDomain`` reports the
epsilon of its widened scale, not the one the mechanism was asked for. Randomness: diffprivlib draws
from a ``numpy.random.RandomState``; the adapter gives each draw ``RandomState(rng.bit_generator)``,
a view on the audit's own generator, so the audit is reproducible from its seed (left alone,
diffprivlib would use the operating system's randomness).

Known laws (exact privacy plus a conformance audit of the samples):

==================  ==========================================================================
``Laplace``         input + Laplace(sensitivity / (epsilon - log(1 - delta))), as diffprivlib scales it
``LaplaceTruncated`` that, clamped to [lower, upper]: a density inside and atoms at the bounds
``LaplaceBoundedDomain`` the input clamped to [lower, upper], plus Laplace noise of the library's widened
                    scale (``_find_scale()``) conditioned on [lower, upper]: a density on the range
``LaplaceFolded``   input + Laplace noise scaled as ``Laplace``, folded (reflected) at the bounds until inside:
                    a sum of two exponentials on each side of the input (``FoldedLaplaceMechanism``)
``Staircase``       input + staircase noise of (epsilon, sensitivity, gamma): a piecewise-constant density
``Geometric``       input + discrete Laplace(sensitivity / epsilon) (two-sided geometric)
``GeometricTruncated`` that, clamped to [lower, upper]: a finite law
``GeometricFolded`` that, folded at the (integer or half-integer) bounds: a finite law in closed form
``GaussianDiscrete`` input + discrete Gaussian N_Z(0, sigma^2), sigma the library's calibration (``_scale``)
``Gaussian``,       input + Normal(0, sigma^2), sigma the library's calibration (``_scale``): the exact
``GaussianAnalytic`` audit decides whether that sigma gives (epsilon, delta)
``Binary``          keeps the label with probability (e^eps + delta) / (e^eps + 1); labels coded 0, 1
``Exponential``     candidate i with probability proportional to measure_i exp(eps u_i / (2 s))
                    (exp(eps u_i / s) when monotonic); the input is the utility vector
``PermuteAndFlip``  candidates visited in a uniformly random order, i kept with probability
                    p_i = exp(eps (u_i - max u) / (2 s)) (/ s when monotonic; the library applies no
                    measure): P(i) = p_i sum_k e_k(1 - p_j, j != i) / (n C(n-1, k))
==================  ==========================================================================

The clamped, bounded-domain and staircase laws are piecewise-exponential
(:mod:`dpaudit.core.piecewise_exponential`); for the first two the conformance audit tests the outputs
themselves against the law (its atoms make the Kolmogorov-Smirnov test conservative: its false-failure
rate stays below alpha). The folded Laplace law has its own exact analysis (:mod:`dpaudit.exact.folded`: pure
epsilon and delta(eps), not Renyi divergences); its conformance audit tests the outputs against the law too.
Other mechanisms (``Uniform``, ``Snapping``, ``Vector``, ``Bingham``, ...) are audited black-box.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats

from ..core.claims import ApproxDP, PureDP
from ..core.distributions import FiniteDistribution, GaussianDistribution
from ..core.neighbours import QueryDistance, ReplaceOne
from ..core.samplers import scalar
from .base import Adapted, Reference

INSTALL = "diffprivlib is not installed: pip install 'dpaudit[diffprivlib]'"


def _require() -> Any:
    try:
        import diffprivlib
    except ImportError as exc:
        raise ImportError(f"{INSTALL} ({exc})") from exc
    return diffprivlib


class _Draw:
    """One output of a diffprivlib mechanism per call, from the audit's generator (picklable, so the
    calls can run in other processes)."""

    def __init__(self, mech: Any, encode: Callable[[Any], Any] | None = None,
                 rebuild: Callable[[Any, Any], Any] | None = None):
        self.mech, self.encode, self.rebuild = copy.copy(mech), encode, rebuild
        self.mech._rng = None  # the user's generator (often the system's, which cannot be pickled) is not used
        self._rng: Any = None
        self._data: Any = None
        self._built: dict[str, Any] = {}

    def _mechanism(self, data: Any) -> Any:
        if self.rebuild is None:
            return self.mech
        key = repr(np.asarray(data).tolist())
        if key not in self._built:
            self._built[key] = self.rebuild(self.mech, data)
        return self._built[key]

    def __call__(self, data: Any, rng: np.random.Generator) -> Any:
        # a chunk's calls share data and rng: what depends on them is prepared once per chunk
        if rng is not self._rng or data is not self._data:
            self._rng, self._data = rng, data
            self._current = self._mechanism(data)
            # diffprivlib's mechanisms draw from their _rng (set from random_state): a view on the audit's generator
            self._current._rng = np.random.RandomState(rng.bit_generator)
            self._value = None if self.rebuild is not None else _plain(data)
        out = self._current.randomise(self._value)
        return out if self.encode is None else self.encode(out)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_rng": None, "_data": None, "_current": None, "_built": {}}


def _plain(data: Any) -> Any:
    arr = np.asarray(data)
    return arr.item() if arr.ndim == 0 and arr.dtype.kind in "biuf" else data


def _claim(mech: Any) -> Any:
    delta = float(getattr(mech, "delta", 0.0) or 0.0)
    return PureDP(float(mech.epsilon)) if delta == 0 else ApproxDP(float(mech.epsilon), delta)


def _noise_reference(law: Any) -> Callable[[Any], Reference]:
    def reference(data: Any) -> Reference:
        centre = float(np.asarray(data))
        return law, lambda out: np.asarray(out, dtype=float) - centre
    return reference


def _output_reference(mechanism: Any) -> Callable[[Any], Reference]:
    """The mechanism's exact output law itself (not a noise law: the output is not input plus noise)."""
    def reference(data: Any) -> Reference:
        return mechanism.distribution(data), lambda out: np.asarray(out, dtype=float)
    return reference


def _finite_reference(probs: Callable[[Any], np.ndarray], name: str, offset: int = 0) -> Callable[[Any], Reference]:
    """The law of outputs ``offset + i`` with probabilities ``probs(data)[i]``, on the codes i."""
    def reference(data: Any) -> Reference:
        p = probs(data)
        law = stats.rv_discrete(values=(np.arange(len(p)), p), name=name)()
        return law, lambda out: np.asarray(out, dtype=np.int64) - offset
    return reference


def _truncated_geometric_law(mech: Any) -> tuple[Callable[[Any], FiniteDistribution], Callable[[Any], np.ndarray]]:
    """Discrete Laplace noise on an integer input, clamped to [lower, upper] (atoms at the bounds)."""
    lower, upper = int(mech.lower), int(mech.upper)
    q = math.exp(-mech.epsilon / mech.sensitivity)
    support = np.arange(lower, upper + 1)

    def probs(data: Any) -> np.ndarray:
        k = support - int(data)
        p = (1 - q) / (1 + q) * q ** np.abs(k).astype(float)
        # P[X <= lower] and P[X >= upper] of the unclamped law: geometric tail sums
        p[0] = _tail(lower - int(data), q, below=True)
        p[-1] = _tail(upper - int(data), q, below=False)
        return p

    def law(data: Any) -> FiniteDistribution:
        return FiniteDistribution.from_probs(support, probs(data), log_error=1e-12)

    return law, probs


def _tail(k: int, q: float, *, below: bool) -> float:
    """P[Z <= k] (below) or P[Z >= k] of the discrete Laplace law P[Z = j] = (1-q)/(1+q) q^|j|."""
    if not below:
        return _tail(-k, q, below=True)
    if k < 0:
        return q ** (-k) / (1 + q)
    return 1 - q ** (k + 1) / (1 + q)


def _relative_weights(mech: Any, utility: Any) -> np.ndarray:
    """exp(eps (u_i - max u) / ((2 - monotonic) s)) for diffprivlib's exponential family (Exponential,
    PermuteAndFlip): the exponential mechanism's weights before the measure, permute-and-flip's keep
    probabilities."""
    u = np.asarray(utility, dtype=float)
    scale = mech.epsilon / mech.sensitivity / (2 - bool(mech.monotonic))
    return np.exp(scale * (u - u.max()))


def _exponential_probs(mech: Any) -> Callable[[Any], np.ndarray]:
    def probs(utility: Any) -> np.ndarray:
        w = _relative_weights(mech, utility) * (np.asarray(mech.measure, dtype=float) if mech.measure else 1.0)
        return w / w.sum()
    return probs


def _permute_and_flip_probs(mech: Any) -> Callable[[Any], np.ndarray]:
    """The law of permute-and-flip's output (McKenna and Sheldon, 2020) as diffprivlib runs it: one pass over a
    uniformly random order of the candidates, keeping candidate j with probability p_j (the best one has
    p = 1, so the pass always ends). i is reached after exactly the k candidates before it, a uniformly random
    k-subset of the others for k uniform on 0..n-1, all rejected: P(i) = p_i sum_k e_k(q) / (n C(n-1, k)),
    e_k the elementary symmetric sums of q_j = 1 - p_j over j != i. Every term is nonnegative, so the sums
    keep their relative precision (no cancellation)."""
    from scipy.special import comb

    def probs(utility: Any) -> np.ndarray:
        keep = _relative_weights(mech, utility)
        n = keep.size
        weights = 1.0 / (n * comb(n - 1, np.arange(n)))
        out = np.empty(n)
        for i in range(n):  # n candidates, n^2 work: a utility vector, not a sample
            e = np.array([1.0])
            for q in np.delete(1.0 - keep, i):  # coefficients of prod_j (1 + q_j x)
                e = np.append(e, 0.0) + q * np.append(0.0, e)
            out[i] = keep[i] * float(weights @ e)
        return out / out.sum()  # sums to 1 up to rounding
    return probs


def _mechanism_subject(mech: Any, n_jobs: int | None, pairs: Sequence[tuple[Any, Any]] | None) -> Adapted:
    import diffprivlib.mechanisms as M

    from dpaudit.mechanisms import (
        BoundedDomainLaplaceMechanism,
        ClampedLaplaceMechanism,
        DiscreteLaplaceMechanism,
        FoldedGeometricMechanism,
        FoldedLaplaceMechanism,
        LaplaceMechanism,
        StaircaseMechanism,
    )
    from dpaudit.mechanisms.noise import DiscreteGaussian, DiscreteLaplace, Laplace

    kind = type(mech)
    name = f"diffprivlib.{kind.__name__}({_parameters(mech)})"
    claim = _claim(mech)
    notes = [f"claim read from the mechanism's epsilon={mech.epsilon:g}"
             + (f", delta={mech.delta:g}" if getattr(mech, "delta", 0) else "")
             + (f" and sensitivity={mech.sensitivity:g}" if hasattr(mech, "sensitivity") else "")]
    law = reference = None
    encode = rebuild = None
    sensitivity = getattr(mech, "sensitivity", None)
    relation: Any = QueryDistance(float(sensitivity)) if sensitivity else None
    bounds = (getattr(mech, "lower", None), getattr(mech, "upper", None))
    default_pairs: list[tuple[Any, Any]] = []
    if sensitivity and bounds[0] is not None:
        lo, hi = bounds
        default_pairs = [(lo, min(lo + sensitivity, hi)), (max(hi - sensitivity, lo), hi)]
    elif sensitivity and kind is not M.Exponential:
        default_pairs = [(0, sensitivity)]

    if kind is M.Laplace:
        # diffprivlib scales by sensitivity / (epsilon - log(1 - delta)): pure DP at that epsilon
        eps = mech.epsilon - math.log1p(-mech.delta)
        exact = LaplaceMechanism(eps, mech.sensitivity)
        law, reference = exact.distribution, _noise_reference(Laplace(mech.sensitivity / eps))
    elif kind is M.LaplaceTruncated:
        eps = mech.epsilon - math.log1p(-mech.delta)  # scaled as Laplace is, then clamped
        exact = ClampedLaplaceMechanism(eps, mech.lower, mech.upper, mech.sensitivity)
        law, reference = exact.distribution, _output_reference(exact)
    elif kind is M.LaplaceFolded:
        eps = mech.epsilon - math.log1p(-mech.delta)  # scaled as Laplace is, then folded
        exact = FoldedLaplaceMechanism(eps, mech.lower, mech.upper, mech.sensitivity)
        law, reference = exact.distribution, _output_reference(exact)
    elif kind is M.LaplaceBoundedDomain:
        scale = float(mech._find_scale())  # the library's calibration, the number audited
        notes.append(f"law: input clamped to [{mech.lower:g}, {mech.upper:g}] plus Laplace({scale:.6g}) noise "
                     "conditioned on the range, the scale as the library calibrates it (its 'effective "
                     f"epsilon' {mech.sensitivity / scale:.6g} is sensitivity / scale, not the mechanism's epsilon)")
        exact = BoundedDomainLaplaceMechanism(scale, mech.lower, mech.upper)
        law, reference = exact.distribution, _output_reference(exact)
    elif kind is M.Staircase:
        exact = StaircaseMechanism(mech.epsilon, mech.sensitivity, mech.gamma)
        law, reference = exact.distribution, _noise_reference(exact.noise)
    elif kind is M.Geometric:
        exact = DiscreteLaplaceMechanism(mech.epsilon, int(mech.sensitivity))
        law = exact.distribution
        reference = _noise_reference(DiscreteLaplace(mech.sensitivity / mech.epsilon))
    elif kind is M.GeometricTruncated:
        law, probs = _truncated_geometric_law(mech)
        reference = _finite_reference(probs, name, offset=int(mech.lower))
    elif kind is M.GeometricFolded:
        folded = FoldedGeometricMechanism(mech.epsilon, mech.lower, mech.upper, int(mech.sensitivity))
        law = folded.distribution
        reference = _finite_reference(lambda data: np.exp(folded.distribution(data).log_probs), name,
                                      offset=int(folded.outputs[0]))
        lo, hi, step = int(folded.outputs[0]), int(folded.outputs[-1]), int(mech.sensitivity)
        default_pairs = [(lo, min(lo + step, hi)), (max(hi - step, lo), hi)]  # integer answers (half-integer bounds)
    elif kind is M.GaussianDiscrete:
        sigma = float(mech._scale)  # the library's calibration, the number audited
        notes.append(f"law: input + N_Z(0, {sigma:.6g}^2), sigma as the library calibrates it")
        law = _discrete_gaussian(sigma)
        reference = _noise_reference(DiscreteGaussian(sigma))
    elif kind in (M.Gaussian, M.GaussianAnalytic):
        sigma = float(mech._scale)  # the library's calibration, the number audited
        notes.append(f"law: input + Normal(0, {sigma:.6g}^2), sigma as the library calibrates it")
        law = _gaussian(sigma)
        reference = _noise_reference(stats.norm(0.0, sigma))
    elif kind is M.Binary:
        labels = [mech.value0, mech.value1]
        keep = (math.exp(mech.epsilon) + mech.delta) / (math.exp(mech.epsilon) + 1)
        encode = _Codes(labels)
        relation = None
        default_pairs = [(mech.value0, mech.value1)]

        def binary_probs(label: Any) -> np.ndarray:
            return np.array([keep, 1 - keep]) if label == mech.value0 else np.array([1 - keep, keep])

        law = _finite(binary_probs)
        reference = _finite_reference(binary_probs, name)
        notes.append(f"outputs coded {labels[0]!r} -> 0, {labels[1]!r} -> 1")
    elif issubclass(kind, M.Exponential):
        rebuild = _rebuild_exponential
        if mech.candidates:
            encode = _Codes(list(mech.candidates))
        default_pairs = _exponential_pairs(mech.utility, float(mech.sensitivity))
        notes.append("input: the utility vector (each utility moves by at most the sensitivity between "
                     "neighbours); output: the candidate's index")
        if kind in (M.Exponential, M.PermuteAndFlip):
            probs = _exponential_probs(mech) if kind is M.Exponential else _permute_and_flip_probs(mech)
            law = _finite(probs)
            reference = _finite_reference(probs, name)
    if law is None:
        notes.append(f"no exact law for {kind.__name__}: audited black-box from its samples")
    sampler = scalar(_Draw(mech, encode, rebuild), rng=True, n_jobs=n_jobs, name=name)
    return Adapted(name, sampler, claim, relation=relation, pairs=pairs or default_pairs or None, law=law,
                   reference=reference, notes=notes)


class _Codes:
    """Categorical outputs as their index in a fixed list (so codes match the exact law's outcomes)."""

    def __init__(self, values: list[Any]):
        self.values = values

    def __call__(self, out: Any) -> int:
        return self.values.index(out)


def _finite(probs: Callable[[Any], np.ndarray]) -> Callable[[Any], FiniteDistribution]:
    def law(data: Any) -> FiniteDistribution:
        p = probs(data)
        return FiniteDistribution.from_probs(np.arange(len(p)), p, log_error=1e-12)
    return law


def _discrete_gaussian(sigma: float) -> Callable[[Any], FiniteDistribution]:
    """q + N_Z(0, sigma^2) for an integer q: the noise law's pmf table over its window (every integer outside
    has probability below e^-750), shifted to q."""
    from dpaudit.mechanisms.noise import DiscreteGaussian

    def law(data: Any) -> FiniteDistribution:
        return DiscreteGaussian(sigma, loc=int(np.asarray(data))).finite_distribution()
    return law


def _gaussian(sigma: float) -> Callable[[Any], GaussianDistribution]:
    def law(data: Any) -> GaussianDistribution:
        return GaussianDistribution(float(np.asarray(data)), sigma)
    return law


def _rebuild_exponential(mech: Any, utility: Any) -> Any:
    fresh = copy.copy(mech)
    fresh._rng = None
    fresh.utility = [float(u) for u in np.asarray(utility, dtype=float)]
    fresh._probabilities = fresh._find_probabilities(fresh.epsilon, fresh.sensitivity, fresh.utility,
                                                     fresh.monotonic, fresh.measure)
    return fresh


def _exponential_pairs(utility: Sequence[float], sensitivity: float) -> list[tuple[Any, Any]]:
    """One utility up by the sensitivity and the others down (the exponential mechanism's worst change),
    for the first few candidates, from the mechanism's own utilities."""
    u = np.asarray(utility, dtype=float)
    pairs = []
    for i in range(min(len(u), 4)):
        moved = u - sensitivity
        moved[i] = u[i] + sensitivity
        pairs.append((u.tolist(), moved.tolist()))
    return pairs


def _parameters(mech: Any) -> str:
    shown = [f"epsilon={mech.epsilon!r}"]
    shown += [f"{n}={getattr(mech, n)!r}" for n in ("delta", "sensitivity") if getattr(mech, n, 0)]
    shown += [f"{n}={getattr(mech, n)!r}" for n in ("lower", "upper", "value0", "value1")
              if getattr(mech, n, None) is not None]
    return ", ".join(shown)


def diffprivlib(mechanism_or_function: Any, *, epsilon: float | None = None, delta: float = 0.0,
                n_jobs: int | None = None, pairs: Sequence[tuple[Any, Any]] | None = None,
                **kwargs: Any) -> Adapted:
    """A diffprivlib mechanism (an instance from ``diffprivlib.mechanisms``) or tool (a function from
    ``diffprivlib.tools``, with its ``epsilon`` and other keyword arguments) as a dpaudit subject.

    A mechanism's input is the value it randomises (for ``Exponential``, the utility vector); its
    relation is :class:`~dpaudit.QueryDistance` at its sensitivity, and its default pairs are
    ``(0, sensitivity)`` or, with bounds, the pairs at both bounds. A tool's input is a dataset
    (array), its relation :class:`~dpaudit.ReplaceOne` (diffprivlib's tools are bounded-DP), its claim
    ``PureDP(epsilon)`` (or ``ApproxDP`` with ``delta``), and it is audited black-box. Calls run over
    ``n_jobs`` processes (:func:`dpaudit.scalar`).
    """
    lib = _require()
    from diffprivlib.mechanisms.base import DPMechanism

    if isinstance(mechanism_or_function, DPMechanism):
        if epsilon is not None or kwargs:
            raise TypeError("a diffprivlib mechanism carries its own parameters; epsilon and keyword arguments "
                            "are for tools (functions of diffprivlib.tools)")
        return _mechanism_subject(mechanism_or_function, n_jobs, pairs)
    if callable(mechanism_or_function):
        if epsilon is None:
            raise TypeError("a diffprivlib tool needs its epsilon: diffprivlib(tools.mean, epsilon=1.0, bounds=...)")
        fn = mechanism_or_function
        tool = _Tool(fn, dict(kwargs, epsilon=epsilon))
        name = f"diffprivlib.tools.{getattr(fn, '__name__', 'tool')}(epsilon={epsilon:g}" + "".join(
            f", {k}={v!r}" for k, v in kwargs.items()) + ")"
        claim = PureDP(float(epsilon)) if not delta else ApproxDP(float(epsilon), float(delta))
        return Adapted(name, scalar(tool, rng=True, n_jobs=n_jobs, name=name), claim, relation=ReplaceOne(),
                       pairs=pairs, notes=[f"claim from the tool's epsilon={epsilon:g} (diffprivlib "
                                           f"{lib.__version__}); audited black-box"])
    raise TypeError(f"expected a diffprivlib mechanism or tool, got {mechanism_or_function!r}")


class _Tool:
    """One call of a diffprivlib tool on a dataset, from the audit's generator."""

    def __init__(self, fn: Callable[..., Any], kwargs: dict[str, Any]):
        self.fn, self.kwargs = fn, kwargs
        self._rng: Any = None

    def __call__(self, data: Any, rng: np.random.Generator) -> Any:
        if rng is not self._rng:
            self._rng, self._state = rng, np.random.RandomState(rng.bit_generator)
        return self.fn(np.asarray(data), random_state=self._state, **self.kwargs)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_rng": None, "_state": None}
