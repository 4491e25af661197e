"""A batched algorithm whose batch size is tuned to the horizon it is started with: B = rule(T).

shuffle-lcb's corollaries and remarks set B (or M) as a power of T (Remark F.4: B = sqrt T; Corollary 3.3: B = T^(3/5);
...). Their rates in T compare runs of different horizons, each with its own B, so the policy must read T when it
starts: :class:`TunedBatch` builds the registry's algorithm with ``B = rule(T)`` in ``start`` and passes every other
call through. It declares ``anytime = False``, so the harness audits its rates on runs of each recorded horizon
(:mod:`dpaudit.bandits.horizons`), never on prefixes of one long run, whose B would be the longest horizon's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.algorithms import ALGORITHMS


class TunedBatch:
    """The registry algorithm ``name`` with ``params`` and B = ``rule(T)`` at every start (module docstring)."""

    anytime = False  # B depends on the horizon: audited on runs of each horizon

    def __init__(self, name: str, rule: Callable[[int], int], label: str, **params: Any):
        if name not in ALGORITHMS:
            raise ValueError(f"TunedBatch: unknown algorithm {name!r}")
        if "B" in params:
            raise ValueError("TunedBatch: B is the rule's, not a parameter")
        self.algorithm, self.rule, self.label, self.params = name, rule, label, params
        self._inner = self._build(1)  # an instance to answer what the policy is before it starts
        self.name = f"{self._inner.name.split('(')[0]}({', '.join(f'{k}={v:g}' for k, v in params.items())}, B={label})"

    def _build(self, B: int) -> Any:
        with warnings.catch_warnings():  # out-of-range notes stay in the policy's notes (and the record)
            warnings.simplefilter("ignore")
            return ALGORITHMS[self.algorithm](B=int(B), **self.params)

    def __repr__(self) -> str:
        return self.name

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        self._inner = self._build(self.rule(int(horizon)))
        self._inner.start(runs, arms, horizon, rng)

    def choose(self, t: int, contexts: Any = None) -> np.ndarray:
        return self._inner.choose(t, contexts)

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        self._inner.observe(t, arms, rewards)

    @property
    def B(self) -> int:
        return self._inner.B

    def __getattr__(self, attribute: str) -> Any:
        # contextual, feedback, paper, notes, ...: the inner algorithm's (after start, the one that runs)
        if attribute.startswith("__") or attribute == "_inner":
            raise AttributeError(attribute)
        return getattr(self._inner, attribute)
