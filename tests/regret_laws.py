"""Regret drawn from known laws, for the validity tests of the regret auditors.

The bound, rate, ordering and lower-bound auditors read nothing of a simulation but its per-run regret
at the recorded rounds (and the instance's means, for the regret's range). A validity test needs that
regret at the exact boundary of a claim's null, many times over: here it is drawn directly from a law
whose mean is known exactly, one group of runs per repetition, vectorised over runs and rounds.

A law is a function ``(points, runs, group) -> regret`` (runs x points; ``points`` the recorded rounds,
or values of a rate's parameter; ``group`` the repetition). It decides how the points of one run are
related: independent (as runs of several horizons on independent seeds: where a test at many rounds
pays most for its multiplicity) or through draws shared by every point of a run (one run read at many
rounds, or runs of several horizons or parameter values on common random numbers). The subjects and
policies below hand the draw to an auditor through its usual interface, so that the auditor's own code
(its horizon reading, range check and statistics) is what is tested.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.auditors import RegretSubject
from dpaudit.bandits.simulation import SimulationResult
from dpaudit.core.seeding import SeedRecord

#: a fixed two-armed instance whose gap, 0.5, is exact in binary: T * gap is exact, so a regret drawn as
#: a multiple of T * gap lands exactly on the ends of its range [0, T * gap]
MEANS = np.array([0.75, 0.25])
GAP = float(MEANS.max() - MEANS.min())

Law = Callable[[np.ndarray, int, int], np.ndarray]


def rng(group: int, *keys: float) -> np.random.Generator:
    """The generator of repetition ``group`` for ``keys`` (a series, a round, a parameter value)."""
    return np.random.default_rng([group, *(int(np.float64(k).view(np.int64)) for k in keys)])


def law_result(points: Any, regret: np.ndarray, name: str = "law") -> SimulationResult:
    """A :class:`SimulationResult` holding ``regret`` (runs x points) as the pseudo- and the realised
    regret of runs on :data:`MEANS`."""
    points = np.asarray(points)
    runs = regret.shape[0]
    return SimulationResult(name, "two arms, gap 0.5", int(points[-1]), points.astype(np.int64), regret, regret,
                            np.zeros((runs, 2), dtype=np.int64), np.tile(MEANS, (runs, 1)), SeedRecord(0, []),
                            "law", 0.0)


def group_of(seed: Any) -> int:
    """The repetition an auditor's seed stands for: the entropy of ``np.random.SeedSequence(group)`` (or
    of a sequence spawned from it)."""
    return int(seed.entropy) if isinstance(seed, np.random.SeedSequence) else int(seed)


@dataclasses.dataclass(frozen=True)
class LawPolicy:
    """The policy of regret drawn from ``law``: its name, and whether it is anytime (an auditor then
    reads every round from one run) or horizon-aware (one run per recorded horizon). It has the
    policy protocol's methods only so that it is accepted as one: its regret is never simulated."""

    name: str
    law: Law = None
    anytime: bool = True

    def start(self, runs, arms, horizon, rng):
        raise AssertionError("regret drawn from a law is not simulated")

    choose = observe = start


def simulate_law(policy: LawPolicy, environment: Any, horizon: int, runs: int, seed: Any = None, *, grid: Any = None,
                 **_: Any) -> SimulationResult:
    """What :func:`dpaudit.simulate` returns for a :class:`LawPolicy`: its law's draw at ``grid``."""
    points = np.asarray([horizon] if grid is None else grid)
    return law_result(points, policy.law(points.astype(float), runs, group_of(seed)), policy.name)


@dataclasses.dataclass(frozen=True)
class LawSubject(RegretSubject):
    """A regret subject whose runs are drawn from its policy's law; the repetition is the seed's entropy
    (audit it with ``seed=np.random.SeedSequence(group)``). A rate in a parameter draws each value's
    column the same way (the law's points are then the values)."""

    def simulate(self, horizon, runs, seed, grid=None, value=None, workers=1):
        if value is None:
            return simulate_law(self.policy, None, horizon, runs, seed, grid=grid)
        regret = self.policy.law(np.array([float(value)]), runs, group_of(seed))
        return law_result(np.asarray(grid), regret, self.policy.name)


def law_subject(law: Law, anytime: bool = True, name: str = "law") -> LawSubject:
    """The subject of regret drawn from ``law`` (``make`` is given only so that a rate in a parameter
    is accepted: the values' columns are drawn by :meth:`LawSubject.simulate`)."""
    return LawSubject(LawPolicy(name, law, anytime), None, name, {}, make=lambda value: None)


# --- laws ----------------------------------------------------------------------------------------

def coin(q: float, *series: float) -> Law:
    """R_T = T gap with probability q, else 0 (a run that commits at once, to the worse arm with
    probability q), independently at every round and in every ``series`` (numbers naming a stream of
    draws): E[R_T] = q T gap. At q = 1/2, R_T / (T gap) has the law on which Hoeffding's inequality is
    tightest; at q near 1 a group of runs often misses the rare low values entirely and looks constant."""

    def regret(points, runs, group):
        return (rng(group, *series, *points).random((runs, points.size)) < q) * (points * GAP)

    return regret


def mirror(law: Law) -> Law:
    """T gap - R_T for R_T drawn from ``law`` on the same draws (the run that commits to the other arm):
    equal in law to ``law``'s regret when that is symmetric, as coin(1/2) is, and paired with it run by
    run, their difference is +-T gap."""

    def regret(points, runs, group):
        return points * GAP - law(points, runs, group)

    return regret


def constant(share: float) -> Law:
    """R_T = share T gap in every run (pulling the worse arm in a fixed share of the rounds)."""

    def regret(points, runs, group):
        return np.broadcast_to(share * GAP * points, (runs, points.size)).copy()

    return regret


def at_the_bound(p: float) -> Law:
    """R_T = T gap / 2 (exactly the bound f(T) = T gap / 2) with probability 1 - p, else T gap,
    independently at every round: P(R_T > f(T)) = p, while R_T >= f(T) always."""

    def regret(points, runs, group):
        return (1 + (rng(group, *points).random((runs, points.size)) < p)) * (points * GAP / 2)

    return regret


def random_slope(exponent: float, low: float, high: float, scale: float = 0.01) -> Law:
    """R_v = scale v^exponent (1 + W / 2) (1 + Z u(v) / 2) with, for each run, W = +-1 (probability 1/2
    each) and Z uniform on [-1, 1], and u(v) the position of log v in [log low, log high], from -1 to 1:
    E[R_v] = scale v^exponent exactly. A run's exponent is off by about Z / (2 h), h half the log-range,
    the same at every point of the run: the points of a run are correlated (one run read at many rounds,
    or common random numbers over values), which a fit that takes the points as independent misses. W
    makes every point's spread across runs about the same, so that the fit's weights are stable."""
    middle, half = (np.log(low) + np.log(high)) / 2, (np.log(high) - np.log(low)) / 2

    def regret(points, runs, group):
        draws = rng(group)
        w, z = draws.choice([-1.0, 1.0], size=(runs, 1)), draws.uniform(-1.0, 1.0, size=(runs, 1))
        u = np.clip((np.log(points) - middle) / half, -1.0, 1.0)
        return scale * points**exponent * (1 + w / 2) * (1 + z * u / 2)

    return regret


def noisy_power(exponent: float, spread: float = 0.5, scale: float = 0.01) -> Law:
    """R_v = scale v^exponent (1 + spread E) with E = +-1 (probability 1/2 each) independently at every
    point and in every run: E[R_v] = scale v^exponent exactly, the points independent."""

    def regret(points, runs, group):
        return scale * points**exponent * (1 + spread * rng(group, *points).choice([-1.0, 1.0], (runs, points.size)))

    return regret


def kinked_power(low_exponent: float, high_exponent: float, kink: float, scale: float = 0.01) -> Law:
    """E[R_v] = scale v^low_exponent up to ``kink`` and scale kink^(low - high) v^high_exponent beyond (a
    regret still in its early regime below the kink), times 1 + W / 2 for each run's own W = +-1."""

    def regret(points, runs, group):
        mean = scale * np.where(points <= kink, points**low_exponent,
                                kink ** (low_exponent - high_exponent) * points**high_exponent)
        return mean * (1 + rng(group).choice([-1.0, 1.0], size=(runs, 1)) / 2)

    return regret
