"""The policy protocol: what a bandit or online-learning algorithm exposes so that dpaudit can run it.

A *policy* makes one decision per round and learns from the round's feedback. It runs ``runs``
independent copies at once, so that every step is one vectorised operation over runs (its state
arrays are shaped ``(runs, ...)``), and it draws all its randomness from the generator it is started
with, so that its decisions are reproducible and auditable:

- ``start(runs, arms, horizon, rng)``: begin ``runs`` independent runs of ``horizon`` rounds over
  ``arms`` arms (actions); ``rng`` is a :class:`numpy.random.Generator`;
- ``choose(t)``: the arms played at round ``t`` (``t = 1 .. horizon``), an integer array of shape
  ``(runs,)`` with values in ``[0, arms)``;
- ``observe(t, arms, rewards)``: the feedback of round ``t``, after ``choose(t)``: ``arms`` are the
  arms played (shape ``(runs,)``) and ``rewards`` the played arms' rewards, shape ``(runs,)``
  (bandit feedback), or every arm's reward, shape ``(runs, arms)`` (full information);
- ``feedback``: which feedback the policy takes, ``"bandit"`` or ``"full"``.

A policy may offer a *fast path* that :func:`dpaudit.simulate` uses when present (the per-round
methods above stay the reference it is tested against):

- ``next_block(t)``: ``t`` is each run's next round, shape (runs,) (runs keep their own clocks);
  returns ``(arms, lengths)``, both shape (runs,): run r will play ``arms[r]`` for the next
  ``lengths[r]`` >= 1 rounds whatever it observes meanwhile. A run past the horizon is ignored;
- ``observe_block(t, arms, pulls)``: the engine played run r's arm for ``pulls.counts[r]`` rounds
  (possibly fewer than promised: blocks are cut at recorded rounds, the horizon and a memory bound; 0
  for a finished run); ``pulls`` (:class:`dpaudit.environments.Pulls`) gives their reward sums, or the
  rewards one by one (``pulls.values()``) when the policy needs more than the sums.

A fast path may skip rounds only when the law of the trajectory stays exact: the block's arm must be
the one the per-round path would play at every round of the block given the same state.

A policy that says ``contextual = True`` is given the round's contexts on a contextual environment:
``choose(t, contexts)``, contexts of shape (runs, K, d) (K arms' feature vectors per run); other
policies are called ``choose(t)`` there too and play by arm index.

A policy may carry ``notes``, a list of sentences that every simulation of it reports (e.g. a
parameter outside the range its paper's theorem covers).

A policy may also say more about its decisions, which :class:`dpaudit.transcripts.DecisionTranscript`
uses when present: ``decision_rounds(horizon)`` (the rounds at which its decision can change),
``decisions(table, rounds, size, rng)`` (a fast path with the law of the per-round run),
``decision_distribution(table, rounds)`` (the exact law of the decisions) and ``name_at(horizon)``
(a readable name of the policy run over ``horizon`` rounds).

This module holds the contract only; the engine that runs policies against environments is
:mod:`dpaudit.simulation`.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

FEEDBACKS = ("bandit", "full")


@runtime_checkable
class Policy(Protocol):
    """A vectorised decision policy (module docstring)."""

    feedback: Literal["bandit", "full"]

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        """Begin ``runs`` independent runs of ``horizon`` rounds over ``arms`` arms."""
        ...

    def choose(self, t: int) -> np.ndarray:
        """The arms played at round ``t`` (1-based): integers in [0, arms), shape (runs,)."""
        ...

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        """Round ``t``'s feedback: ``rewards`` of shape (runs,) (bandit) or (runs, arms) (full)."""
        ...


def check_policy(obj: Any) -> Any:
    """``obj`` if it follows the policy protocol, else a :class:`TypeError` naming what is missing."""
    missing = [name for name in ("start", "choose", "observe") if not callable(getattr(obj, name, None))]
    feedback = getattr(obj, "feedback", None)
    if feedback is None:
        missing.append("feedback")
    if missing:
        raise TypeError(f"{type(obj).__name__} is not a policy: it has no {', '.join(missing)} "
                        "(a policy has start(runs, arms, horizon, rng), choose(t), observe(t, arms, rewards) "
                        "and feedback = 'bandit' or 'full')")
    if feedback not in FEEDBACKS:
        raise TypeError(f"{type(obj).__name__} is not a policy: feedback must be 'bandit' or 'full', got {feedback!r}")
    return obj


def checked_contexts(owner: str, contexts: Any, runs: int, dimension: int | None, t: int) -> np.ndarray:
    """A contextual policy's check of ``choose(t, contexts)``: the contexts as a float array (runs, K, d),
    or a ValueError naming ``owner`` if the shape is wrong or d changed from ``dimension`` (None: the
    first round, any d)."""
    x = np.asarray(contexts, dtype=float)
    if x.ndim != 3 or x.shape[0] != runs:
        raise ValueError(f"{owner}: contexts must have shape (runs, K, d) with runs = {runs}, got {x.shape}")
    if dimension is not None and x.shape[2] != dimension:
        raise ValueError(f"{owner}: contexts changed dimension from {dimension} to {x.shape[2]} at round {t}")
    return x


__all__ = ["FEEDBACKS", "Policy", "check_policy", "checked_contexts"]
