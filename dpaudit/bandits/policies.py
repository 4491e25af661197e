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
- ``feedback``: which feedback the policy takes, ``"bandit"`` or ``"full"``; a policy without the
  attribute takes bandit feedback (:func:`feedback_of`);
- ``anytime``: whether its decisions ignore the horizon it is started with, so that its regret at
  round T of a longer run is the regret of a run of horizon T (:func:`horizon_use`). Most algorithms
  of the papers are not: they are started with T and use it (DP-SE's beta = 1/T, explore-then-commit
  with m = T^(2/3), batch schedules calibrated to T). A claim about E[R_T] of a horizon-aware policy is
  audited on runs started with horizon T (:mod:`dpaudit.bandits.horizons`). A policy that does not declare it
  is anytime only if its ``start`` never reads the horizon.

A policy may offer a *fast path* that :func:`dpaudit.simulate` uses when present (the per-round
methods above stay the reference it is tested against):

- ``next_block(t)``: ``t`` is each run's next round, shape (runs,) (runs keep their own clocks);
  returns ``(arms, lengths)``, both shape (runs,): run r will play ``arms[r]`` for the next
  ``lengths[r]`` >= 1 rounds whatever it observes meanwhile. A run past the horizon is ignored;
- ``observe_block(t, arms, pulls)``: the engine played run r's arm for ``pulls.counts[r]`` rounds
  (possibly fewer than promised: blocks are cut at recorded rounds, the horizon and a memory bound; 0
  for a finished run); ``pulls`` (:class:`dpaudit.bandits.environments.Pulls`) gives their reward sums, or the
  rewards one by one (``pulls.values()``) when the policy needs more than the sums;
- optionally ``next_block(t, limit=...)``: a ``next_block`` with a keyword ``limit`` is told, as an integer
  array of shape (runs,) (entries >= 1), the most rounds of run r's block the engine will play; the policy
  may then return shorter blocks (at least 1 round, at most ``limit[r]``) and skip the work of certifying
  rounds the engine would cut anyway. :func:`dpaudit.bandits.table_blocks.run_decision_blocks` passes it
  (a decision audit records every round, so its blocks are cut to one round); :func:`takes_limit`.

A fast path may skip rounds only when the law of the trajectory stays exact: the block's arm must be
the one the per-round path would play at every round of the block given the same state.

A policy that says ``contextual = True`` is given the round's contexts on a contextual environment:
``choose(t, contexts)``, contexts of shape (runs, K, d) (K arms' feature vectors per run); other
policies are called ``choose(t)`` there too and play by arm index.

A policy may carry ``notes``, a list of sentences that every simulation of it reports (e.g. a
parameter outside the range its paper's theorem covers).

A policy may also say more about its decisions, which :class:`dpaudit.bandits.transcripts.DecisionTranscript`
uses when present: ``decision_rounds(horizon)`` (the rounds at which its decision can change),
``decisions(table, rounds, size, rng)`` (a fast path with the law of the per-round run),
``decision_distribution(table, rounds)`` (the exact law of the decisions) and ``name_at(horizon)``
(a readable name of the policy run over ``horizon`` rounds).

This module holds the contract only; the engine that runs policies against environments is
:mod:`dpaudit.bandits.simulation`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

FEEDBACKS = ("bandit", "full")


@runtime_checkable
class Policy(Protocol):
    """A vectorised decision policy (module docstring): the three methods below; ``feedback`` (default
    ``"bandit"``) and ``anytime`` are optional attributes."""

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
    if missing:
        raise TypeError(f"{type(obj).__name__} is not a policy: it has no {', '.join(missing)} "
                        "(a policy has start(runs, arms, horizon, rng), choose(t), observe(t, arms, rewards), "
                        "and optionally feedback = 'bandit' (the default) or 'full')")
    feedback_of(obj)
    anytime = getattr(obj, "anytime", None)
    if anytime is not None and not isinstance(anytime, (bool, np.bool_)):
        raise TypeError(f"{type(obj).__name__} is not a policy: anytime must be True or False, got {anytime!r}")
    return obj


def feedback_of(policy: Any) -> str:
    """The feedback ``policy`` takes: its ``feedback`` attribute, ``"bandit"`` where it has none."""
    feedback = getattr(policy, "feedback", None)
    if feedback is None:
        return "bandit"
    if feedback not in FEEDBACKS:
        raise TypeError(f"{type(policy).__name__} is not a policy: feedback must be 'bandit' or 'full', got "
                        f"{feedback!r}")
    return feedback


def horizon_use(policy: Any) -> tuple[bool, str]:
    """(anytime, why): whether ``policy``'s decisions ignore the horizon it is started with, and how that
    was decided.

    A declaration ``anytime = True/False`` (an attribute, or a property depending on the policy's
    parameters) counts when it is made by the class whose ``start`` runs, a subclass of it, or the
    instance: a declaration inherited from above an overriding ``start`` speaks of another ``start``.
    Without one, the policy is anytime only if the source of its ``start`` never reads the horizon
    parameter (so the horizon cannot reach its state); where that cannot be read (no source, ``*args``,
    ``locals()``) it is taken to be horizon-aware, which is always safe: its claims are then audited on
    one run per horizon."""
    name = type(policy).__name__
    declared = _declared_anytime(policy)
    if declared is not None:
        return bool(declared), f"{name} declares anytime = {bool(declared)}"
    reads = _start_reads_horizon(type(policy))
    if reads is None:
        return False, f"{name} does not declare anytime and its start() cannot be inspected: taken as horizon-aware"
    if reads:
        return False, f"{name} does not declare anytime and its start() reads the horizon: taken as horizon-aware"
    return True, f"{name} does not declare anytime, and its start() never reads the horizon"


def _declared_anytime(policy: Any) -> Any:
    if "anytime" in getattr(policy, "__dict__", {}):
        return policy.__dict__["anytime"]
    mro = type(policy).__mro__
    start_owner = next((i for i, cls in enumerate(mro) if "start" in cls.__dict__), len(mro))
    declarer = next((i for i, cls in enumerate(mro) if "anytime" in cls.__dict__), None)
    if declarer is None or declarer > start_owner:
        return None
    return policy.anytime


def _start_reads_horizon(cls: type) -> bool | None:
    """Whether ``cls.start`` reads its horizon parameter (the third after self), None if that cannot be
    told from its source."""
    import ast
    import inspect
    import textwrap

    start = getattr(cls, "start", None)
    try:
        source = textwrap.dedent(inspect.getsource(start))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    function = tree.body[0] if tree.body else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    arguments = function.args
    if arguments.vararg is not None or arguments.kwarg is not None:
        return None
    positional = [a.arg for a in arguments.posonlyargs + arguments.args]
    if len(positional) < 4:
        return None
    horizon = positional[3]
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in (horizon, "locals", "vars") and node is not function:
            if node.id == horizon and isinstance(node.ctx, ast.Store):
                continue  # overwritten before use would still be a read elsewhere; a store alone is not one
            return True
    return False


def takes_limit(policy: Any) -> bool:
    """Whether ``policy.next_block`` takes the protocol's optional keyword ``limit`` (module docstring)."""
    import inspect

    try:
        return "limit" in inspect.signature(policy.next_block).parameters
    except (AttributeError, TypeError, ValueError):  # no next_block, or a builtin without a signature
        return False


def checked_decisions(owner: str, played: Any, shape: tuple[int, ...], arms: int, where: str) -> np.ndarray:
    """Decisions as int64 arms of ``shape`` in [0, arms), or a ValueError naming ``owner`` and ``where``."""
    out = np.asarray(played)
    if out.shape != shape or out.dtype.kind not in "iu" or (out < 0).any() or (out >= arms).any():
        raise ValueError(f"{owner}: the policy's {where} must be arms in [0, {arms}) of shape {shape}, "
                         f"got dtype {out.dtype} and shape {out.shape}")
    return out.astype(np.int64, copy=False)


def run_decisions(policy: Any, table: np.ndarray, rounds: tuple[int, ...], size: int, rng: np.random.Generator,
                  owner: str = "DecisionTranscript") -> np.ndarray:
    """The arms ``policy`` plays at ``rounds`` (1-based, increasing) in ``size`` runs over a reward table of
    shape (horizon, arms), by the per-round protocol: the reference every fast path of the decisions is
    tested against, and the run :class:`dpaudit.bandits.transcripts.DecisionTranscript` and a policy's own
    ``decisions`` fall back to. Rounds after the last recorded one are not played (they cannot change it)."""
    horizon, arms = table.shape
    policy.start(size, arms, horizon, rng)
    out = np.empty((size, len(rounds)), dtype=np.int64)
    column = {t: j for j, t in enumerate(rounds)}
    full = feedback_of(policy) == "full"
    for t in range(1, rounds[-1] + 1):
        played = checked_decisions(owner, policy.choose(t), (size,), arms, f"choice at round {t}")
        if t in column:
            out[:, column[t]] = played
        if t == rounds[-1]:
            break
        row = table[t - 1]
        policy.observe(t, played, np.broadcast_to(row, (size, arms)) if full else row[played])
    return out


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


__all__ = ["FEEDBACKS", "Policy", "check_policy", "checked_contexts", "checked_decisions", "feedback_of", "horizon_use",
           "run_decisions", "takes_limit"]
