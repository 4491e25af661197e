"""The environment protocol: what a stochastic bandit or experts environment exposes so that
:func:`dpaudit.simulate` can run a policy against it.

An *environment* describes a family of problem instances. The engine asks it for one instance per
run, then for rewards:

- ``arms``: the number of arms (actions) K;
- ``feedback``: ``"bandit"`` (a policy sees the played arm's reward; a full-information policy is
  refused) or ``"full"`` (the whole reward vector exists every round: experts / DTOL; a bandit policy
  may still be run on it and then sees only the played coordinate);
- ``instances(runs, rng) -> Instances``: draw the instances of ``runs`` independent runs (fixed
  means give the same instance to every run; the papers' random instances are drawn here).

:class:`Instances` is what the engine draws rewards from, vectorised over runs:

- ``means``: the expected rewards, shape (runs, K); the gaps and the pseudo-regret are computed from
  them, so they must be the means of the reward law actually drawn (after any clipping);
- ``rewards(rng)``: one round's reward vectors, shape (runs, K), rewards in [0, 1]; the per-round
  reference path draws every arm's reward every round from this, so two algorithms simulated with the
  same seed see the same reward table;
- ``sums(arms, counts, rng)``: for each run r the sum of ``counts[r]`` fresh rewards of arm
  ``arms[r]``, shape (runs,), drawn from the exact law of that sum (one Binomial draw for Bernoulli
  rewards);
- ``values(arms, counts, rng)``: the same fresh rewards one by one, concatenated in run order (shape
  (sum(counts),)), for policies that need more than their sum;
- ``vector_sums(counts, rng)``: for each run the sum of ``counts[r]`` fresh reward vectors, shape
  (runs, K) (full information);
- ``binary``: True when every reward is 0 or 1;
- optionally ``rounded_sums(arms, counts, g, rng) -> (sums, rounded)``: for each run r, the sum of
  ``counts[r]`` fresh rewards of arm ``arms[r]`` together with the sum of the same rewards after
  unbiased randomized rounding to precision ``g[r]`` (x_hat = floor(x g) + Bernoulli(x g - floor(x g)),
  an integer in {0, ..., g}), drawn from their joint law without drawing the rewards one by one, for
  policies whose private statistics read only rounded sums (dist-mab's protocols). An instance that
  cannot give the joint law exactly says in its docstring what it gives.

This module does not round: the rounding is the policy's (a randomizer in ``dpaudit.mechanisms``);
``rounded_sums`` only lets an environment that knows its reward law draw the rounded sum in one step.

A *contextual* environment also has ``dimension`` (d); its instances draw each round's contexts,
``contexts(rng)`` of shape (runs, K, d) (from a stream of their own), give the round's mean rewards
``expected(contexts)`` (runs, K), draw rewards with ``rewards(rng, contexts)``, and have ``means``
(runs, K) when the arms' features are fixed per instance (else None). The engine runs them round by
round, the regret against each round's best mean (:class:`dpaudit.algorithms.LinearBandit`).

:class:`Pulls` hands a block of pulls to a policy's fast path (:mod:`dpaudit.bandits.simulation`); it draws
what the policy asks for once and gives the engine the same draws for the regret.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from ..core.errors import UnsupportedAudit


@runtime_checkable
class Instances(Protocol):
    """The instances of a block of runs (module docstring)."""

    means: np.ndarray
    binary: bool

    def rewards(self, rng: np.random.Generator) -> np.ndarray: ...

    def sums(self, arms: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...

    def values(self, arms: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...

    def vector_sums(self, counts: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...


@runtime_checkable
class Environment(Protocol):
    """A family of stochastic instances (module docstring)."""

    arms: int
    feedback: Literal["bandit", "full"]

    def instances(self, runs: int, rng: np.random.Generator) -> Instances: ...


def check_environment(obj: Any) -> Any:
    """``obj`` if it follows the environment protocol, else a :class:`TypeError` naming what is missing."""
    missing = [name for name in ("arms", "feedback") if getattr(obj, name, None) is None]
    if not callable(getattr(obj, "instances", None)):
        missing.append("instances")
    if missing:
        raise TypeError(f"{type(obj).__name__} is not an environment: it has no {', '.join(missing)} (an environment "
                        "has arms, feedback = 'bandit' or 'full', and instances(runs, rng); see "
                        "dpaudit.algorithms.BernoulliBandit)")
    if obj.feedback not in ("bandit", "full"):
        raise TypeError(f"{type(obj).__name__}: feedback must be 'bandit' or 'full', got {obj.feedback!r}")
    return obj


class Pulls:
    """A block of pulls handed to a policy's ``observe_block``: run r pulled ``arms[r]`` for
    ``counts[r]`` consecutive rounds (0 for a run that has finished).

    ``sums`` is each run's reward sum over the block: shape (runs,) for bandit feedback, (runs, K) for
    full information (every arm's sum). ``values()`` gives the rewards one by one instead (bandit
    feedback), concatenated in run order, with ``offsets`` where each run's rewards start; once a
    policy has asked for them, ``sums`` are their sums, so the policy and the regret see the same
    draws. ``binary`` says that every reward is 0 or 1 (so a sum determines the rewards up to order).
    ``rounded_sums(g)`` gives the sums of the rewards randomized-rounded to precision g when
    ``roundable`` (binary rewards, or instances with ``rounded_sums``, for the blocks their optional
    ``rounds_in_one_step(counts)`` accepts); ``sums`` are then the sums drawn with them.
    """

    def __init__(self, instances: Instances, arms: np.ndarray, counts: np.ndarray, rng: np.random.Generator,
                 full: bool):
        self._instances, self._rng, self.full = instances, rng, full
        self.arms, self.counts = arms, counts
        self.binary = bool(getattr(instances, "binary", False))
        self._sums: np.ndarray | None = None
        self._values: np.ndarray | None = None
        self._rounded: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def offsets(self) -> np.ndarray:
        """Where each run's rewards start in :meth:`values` (shape (runs,))."""
        return np.concatenate([[0], np.cumsum(self.counts)[:-1]]).astype(np.int64)

    def values(self) -> np.ndarray:
        if self.full:
            raise TypeError("Pulls.values: a full-information block gives every arm's sum (Pulls.sums)")
        if self._values is None:
            if self._sums is not None:
                raise RuntimeError("Pulls.values: ask for the values before the sums (the sums were drawn alone)")
            self._values = np.asarray(self._instances.values(self.arms, self.counts, self._rng), dtype=float)
        return self._values

    @property
    def roundable(self) -> bool:
        """True when :meth:`rounded_sums` can give the rounded sums without the rewards one by one."""
        if self.full:
            return False
        if self.binary:
            return True
        if not callable(getattr(self._instances, "rounded_sums", None)):
            return False
        # instances may serve some blocks only (e.g. Gaussian rewards: the long ones)
        serves = getattr(self._instances, "rounds_in_one_step", None)
        return not callable(serves) or bool(serves(self.counts))

    def rounded_sums(self, g: Any) -> np.ndarray:
        """Each run's sum of x_hat = floor(x g) + Bernoulli(x g - floor(x g)) over its block, ``g`` the
        precision per run (shape (runs,), integers >= 1), as int64. Binary rewards lie on the grid
        (x_hat = g x), so this is g times the sums; otherwise the instances draw the sums and the rounded
        sums from their joint law, and :attr:`sums` gives those sums."""
        if not self.roundable:
            raise TypeError("Pulls.rounded_sums: these rewards give no rounded sums in one step (roundable is "
                            "False); round values() instead")
        g = np.broadcast_to(np.asarray(g, dtype=np.int64), self.counts.shape)
        if (g < 1).any():
            raise ValueError("Pulls.rounded_sums: the precision g must be an integer >= 1 for every run")
        if self.binary:
            return np.rint(self.sums).astype(np.int64) * g
        if self._rounded is not None:
            if not np.array_equal(self._rounded[0], g):
                raise RuntimeError("Pulls.rounded_sums: the block was rounded already at another precision")
            return self._rounded[1]
        if self._sums is not None or self._values is not None:
            raise RuntimeError("Pulls.rounded_sums: ask for the rounded sums before the sums or the values")
        sums, rounded = self._instances.rounded_sums(self.arms, self.counts, g, self._rng)
        self._sums = np.asarray(sums, dtype=float)
        self._rounded = (g.copy(), np.asarray(rounded, dtype=np.int64))
        return self._rounded[1]

    @property
    def sums(self) -> np.ndarray:
        if self._sums is None:
            if self.full:
                self._sums = np.asarray(self._instances.vector_sums(self.counts, self._rng), dtype=float)
            elif self._values is not None:
                self._sums = run_sums(self._values, self.counts)
            else:
                self._sums = np.asarray(self._instances.sums(self.arms, self.counts, self._rng), dtype=float)
        return self._sums


def run_sums(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per-run sums of values concatenated in run order (``counts[r]`` values for run r)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(counts.shape, dtype=float)
    filled = counts > 0  # reduceat gives an empty segment the next value, not 0
    if filled.any():
        starts = (np.cumsum(counts) - counts)[filled]
        out[filled] = np.add.reduceat(values, starts)
    return out


def bernoulli_means(environment: Any, arms: int | None = None) -> np.ndarray:
    """The fixed means of a Bernoulli bandit (the same instance in every run: the environment's
    ``bernoulli_means()``), for an ``exact_regret`` (a policy's, or an auditor's);
    :class:`~dpaudit.core.errors.UnsupportedAudit` for any other environment (or another number of arms)."""
    means = getattr(environment, "bernoulli_means", None)
    means = means() if callable(means) else None
    if means is None:
        raise UnsupportedAudit(f"the exact regret is computed on a Bernoulli bandit with fixed means, not on "
                               f"{getattr(environment, 'name', environment)!r}")
    means = np.asarray(means, dtype=float)
    if arms is not None and means.size != arms:
        raise UnsupportedAudit(f"the exact regret is computed for {arms} arms, not {means.size}")
    return means


__all__ = ["Environment", "Instances", "Pulls", "bernoulli_means", "check_environment", "run_sums"]
