"""An algorithm's decisions as an auditable subject: :class:`DecisionTranscript`.

Privacy claims about bandit and online-learning algorithms (joint or not) are claims about the
sequence of decisions the algorithm publishes. :class:`DecisionTranscript` turns any policy that
follows :mod:`dpaudit.bandits.policies`' protocol into a mechanism in dpaudit's sense: its input is a reward
table of shape (horizon, arms), rewards in [0, 1], row t the reward vector of round t + 1; neighbouring
tables differ in one round's reward vector (:class:`dpaudit.core.neighbours.ReplaceRewardVector`). Its
output is the decisions at the rounds ``rounds`` (1-based), shape (size, len(rounds)), of ``size``
independent runs of the policy on that table.

``sample`` runs the policy round by round, vectorised over the runs (one Python loop over rounds):
``choose(t)``, then ``observe(t, arms, feedback)`` with row t of the table broadcast to (size, arms)
for a full-information policy, or the played arms' entries of that row for bandit feedback. Optional
parts of the policy are used when present:

- ``decision_rounds(horizon)``: the rounds at which the policy's decision can change; they are the
  default ``rounds`` (the decisions at other rounds are a fixed function of those, so the two carry
  the same information);
- ``decisions(table, rounds, size, rng)``: a fast path with the same law as the per-round run, used by
  ``sample`` (the per-round run stays available as :meth:`DecisionTranscript.sample_per_round`);
- ``next_block``/``observe_block``, the fast path :func:`dpaudit.simulate` plays: without ``decisions``,
  ``sample`` plays those blocks over the table (:mod:`dpaudit.bandits.table_blocks`), so that an audit of the
  decisions samples the code a simulation runs, its draws included. When the recorded rounds are every round
  from the first on, every block is cut to one round and there is nothing to skip: ``sample`` then runs round
  by round, the reference itself (for the policies whose ``next_block`` takes the runner's ``limit`` the two
  paths read the same draws and play the same decisions, tests/test_table_blocks.py; the per-round loop has
  less to do per round: a third less time for a transcript of Hybrid-UCB over 12 rounds);
- ``decision_distribution(table, rounds)``: the exact law of the decisions. Only then does the
  transcript have a ``distribution`` method (it is an :class:`ExactDecisionTranscript`): the harness
  takes the method's presence to mean that the claim can be decided exactly;
- ``name_at(horizon)``: the readable name of the policy run over ``horizon`` rounds, the transcript's
  default name.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..core.names import subject_name
from ..core.validation import integer, sample_size
from .policies import check_policy, checked_decisions, run_decisions
from .table_blocks import run_decision_blocks


def checked_rounds(owner: str, rounds: Iterable[int], horizon: int) -> tuple[int, ...]:
    """Rounds to record (1-based), checked: at least one, integers, strictly increasing within 1..horizon."""
    values = list(rounds)
    if not values:
        raise ValueError(f"{owner}: rounds must name at least one round in 1..{horizon}")
    checked = tuple(integer(owner, "a round", t, 1) for t in values)
    if any(t > horizon for t in checked) or any(a >= b for a, b in zip(checked, checked[1:], strict=False)):
        raise ValueError(f"{owner}: rounds must increase strictly within 1..{horizon}, got {values!r}")
    return checked


class DecisionTranscript:
    """The decisions of ``policy`` at ``rounds`` over a reward table of ``horizon`` rounds and ``arms``
    arms (module docstring). ``DecisionTranscript(...)`` returns an :class:`ExactDecisionTranscript`
    when the policy supplies ``decision_distribution``."""

    owner = "DecisionTranscript"

    def __new__(cls, policy: Any = None, *args: Any, **kwargs: Any) -> DecisionTranscript:
        # the arguments are optional so that copies and unpickling (which call __new__ bare) work
        if cls is DecisionTranscript and callable(getattr(policy, "decision_distribution", None)):
            cls = ExactDecisionTranscript
        return super().__new__(cls)

    def __init__(self, policy: Any, arms: int, horizon: int, rounds: Iterable[int] | None = None,
                 name: str | None = None):
        self.policy = check_policy(policy)
        self.arms = integer(self.owner, "arms", arms, 1)
        self.horizon = integer(self.owner, "horizon", horizon, 1)
        declared = getattr(policy, "decision_rounds", None)
        default = rounds is None
        if default:
            rounds = declared(self.horizon) if callable(declared) else range(1, self.horizon + 1)
        self.rounds = self._rounds(rounds)
        self.name = name or self._default_name(default)

    def _rounds(self, rounds: Iterable[int]) -> tuple[int, ...]:
        return checked_rounds(self.owner, rounds, self.horizon)

    def _default_name(self, default_rounds: bool) -> str:
        name_at = getattr(self.policy, "name_at", None)
        if callable(name_at):
            name = name_at(self.horizon)
        else:
            name = f"{subject_name(self.policy)} over T={self.horizon} rounds, {self.arms} arms"
        return name if default_rounds else f"{name}, decisions at rounds {list(self.rounds)}"

    def __repr__(self) -> str:
        return self.name

    def table(self, data: Any) -> np.ndarray:
        """The reward table, checked: shape (horizon, arms), finite rewards in [0, 1]."""
        try:
            x = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{self.owner}: data must be a table of reward vectors (numbers), got {data!r}") from None
        shape = (self.horizon, self.arms)
        if x.shape != shape or not np.isfinite(x).all() or (x < 0).any() or (x > 1).any():
            raise ValueError(f"{self.owner}: data must be a table of {self.horizon} reward vectors in "
                             f"[0, 1]^{self.arms} (shape {shape}), got shape {x.shape}")
        return x

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """The decisions at ``rounds`` of ``size`` independent runs, shape (size, len(rounds)): the
        policy's fast path ``decisions`` if it has one, else its blocks (``next_block``/``observe_block``) if
        it has them and some round goes unrecorded (:attr:`skips_rounds`), else the per-round run."""
        table = self.table(data)
        size = sample_size(self.owner, size)
        fast = getattr(self.policy, "decisions", None)
        if callable(fast):
            return self._checked(fast(table, self.rounds, size, rng), (size, len(self.rounds)), "decisions")
        if self.plays_blocks and self.skips_rounds:
            return run_decision_blocks(self.policy, table, self.rounds, size, rng, self.owner)
        return self._run(table, size, rng)

    @property
    def skips_rounds(self) -> bool:
        """Whether a round before the last recorded one goes unrecorded: only then can a block hold more than one
        round (module docstring)."""
        return self.rounds != tuple(range(1, self.rounds[-1] + 1))

    @property
    def plays_blocks(self) -> bool:
        """Whether :meth:`sample` plays the policy's blocks (it has ``next_block`` and ``observe_block`` and
        no ``decisions`` of its own)."""
        policy = self.policy
        return (not callable(getattr(policy, "decisions", None)) and callable(getattr(policy, "next_block", None))
                and callable(getattr(policy, "observe_block", None)))

    def sample_per_round(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """The same as :meth:`sample` by the per-round run, whatever fast path the policy has."""
        table = self.table(data)
        return self._run(table, sample_size(self.owner, size), rng)

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)

    def _checked(self, played: Any, shape: tuple[int, ...], where: str) -> np.ndarray:
        return checked_decisions(self.owner, played, shape, self.arms, where)

    def _run(self, table: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return run_decisions(self.policy, table, self.rounds, size, rng, self.owner)


class ExactDecisionTranscript(DecisionTranscript):
    """A :class:`DecisionTranscript` whose policy supplies the exact law of its decisions."""

    def __init__(self, policy: Any, arms: int, horizon: int, rounds: Iterable[int] | None = None,
                 name: str | None = None):
        if not callable(getattr(policy, "decision_distribution", None)):
            raise TypeError(f"{self.owner}: {type(policy).__name__} supplies no decision_distribution, so its "
                            "decisions have no exact law here")
        super().__init__(policy, arms, horizon, rounds, name)

    def distribution(self, data: Any) -> Any:
        """The exact law of :meth:`sample`'s output, from the policy's ``decision_distribution``."""
        return self.policy.decision_distribution(self.table(data), self.rounds)


__all__ = ["DecisionTranscript", "ExactDecisionTranscript"]
