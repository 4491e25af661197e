"""Regret at a grid of horizons, read the way the claim means it.

A claim about E[R_T] of a policy that is started with the horizon T is a claim about runs of horizon
T. How the regret at the recorded rounds is obtained depends on the policy
(:func:`dpaudit.bandits.policies.horizon_use`):

- an *anytime* policy behaves in the first T rounds of any longer run as in a run of horizon T, so one
  run to the largest horizon gives every recorded round (:data:`~dpaudit.bandits.simulation.ONE_RUN`);
- a *horizon-aware* policy (DP-SE's beta = 1/T, explore-then-commit with m = T^(2/3), the batch
  schedules and noise calibrated to T) is run once per recorded round T, started with T
  (:data:`~dpaudit.bandits.simulation.PER_HORIZON`). Every run takes the same seed, so runs of different
  horizons face the same instances and draw from the same streams (common random numbers: run r of
  every horizon is the same draw of the environment, which keeps the runs paired across rounds for
  a bootstrap over runs). The runs of a geometric grid of ratio q cost 1/(1 - 1/q) times its largest
  horizon: twice for q = 2, 3.4 times for :func:`~dpaudit.bandits.simulation.horizon_grid`'s sqrt 2.

A paper's figure plots regret against t within one run of horizon T; a claim read off a figure is
audited on that one run whatever the policy (``reading="figure"``). Audits record the reading they
used (:func:`describe`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .policies import horizon_use
from .simulation import ONE_RUN, PER_HORIZON, SimulationResult

#: ``reading`` settings of the regret audits: the claim's E[R_T] of runs of horizon T ("horizon", the
#: default), or the regret at round t within one run of the largest horizon, as a figure plots it
READINGS = ("horizon", "figure")


def check_reading(reading: Any) -> str:
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {', '.join(READINGS)}, got {reading!r}")
    return reading


def reading_of(policy: Any, reading: str = "horizon") -> tuple[str, str]:
    """(:data:`ONE_RUN` or :data:`PER_HORIZON`, why) for ``policy`` under the audit's ``reading``."""
    if check_reading(reading) == "figure":
        return ONE_RUN, "read as a figure: regret at each recorded round of one run of the largest horizon"
    anytime, why = horizon_use(policy)
    return (ONE_RUN, why) if anytime else (PER_HORIZON, why)


def simulate_horizons(simulate_one: Callable[[int, np.ndarray], SimulationResult], policy: Any, horizons: Any,
                      reading: str = "horizon") -> SimulationResult:
    """The regret of ``policy`` at every round of ``horizons`` (module docstring).

    ``simulate_one(horizon, grid)`` simulates the policy for ``horizon`` rounds, recording ``grid``
    (always with the audit's seed). The result's ``grid`` is ``horizons`` and its ``reading`` says how
    its columns were made; ``pulls`` are those of the run of the largest horizon."""
    mode, _ = reading_of(policy, reading)
    grid = np.asarray(horizons, dtype=np.int64)
    if mode == ONE_RUN:
        return simulate_one(int(grid[-1]), grid)
    sims = [simulate_one(int(T), np.array([T], dtype=np.int64)) for T in grid]
    last = sims[-1]
    for sim in sims[:-1]:
        if not np.array_equal(sim.means, last.means, equal_nan=True):
            raise ValueError(f"{last.environment} gave other instances to runs of another horizon under one seed: "
                             "runs of different horizons cannot be paired")
    notes = list(dict.fromkeys(note for sim in sims for note in sim.notes))
    return SimulationResult(
        last.algorithm, last.environment, last.horizon, grid,
        np.stack([sim.pseudo_regret[:, -1] for sim in sims], axis=1),
        np.stack([sim.regret[:, -1] for sim in sims], axis=1),
        last.pulls, last.means, last.seed, last.path, float(sum(sim.seconds for sim in sims)), notes, PER_HORIZON)


def describe(policy: Any, sim: SimulationResult, reading: str = "horizon") -> dict[str, str]:
    """What an audit's record says of its reading: how the rounds were simulated, and why."""
    _, why = reading_of(policy, reading)
    if sim.reading == PER_HORIZON:
        rounds = f"one run per recorded round T, started with horizon T ({sim.grid.size} runs, common random numbers)"
    else:
        rounds = f"one run of horizon {int(sim.horizon)}, read at every recorded round"
    return {"rounds": rounds, "why": why}


__all__ = ["READINGS", "check_reading", "describe", "reading_of", "simulate_horizons"]
