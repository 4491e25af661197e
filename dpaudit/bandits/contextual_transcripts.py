"""A contextual policy's published output on a fixed small set of users, as an auditable subject:
:class:`ContextualTranscript` (the contextual counterpart of :class:`dpaudit.bandits.transcripts.DecisionTranscript`).

**Data.** One user per round: round t's user brings the K arms' contexts (K, d) and her reward vector
(K,), rewards in [0, 1]. The data is one array holding both, the rewards as the last column of the
arms' rows: shape (T, K, d + 1), row t - 1 the user of round t (``data[t - 1, a, :d]`` arm a's feature
vector, ``data[t - 1, a, d]`` its reward). Neighbouring data replace one user's (one round's) contexts
and rewards: :class:`dpaudit.core.neighbours.ReplaceUser` with ``batch_size=T`` (the rounds are the users).

With ``users_per_batch=U`` (returning users, Assumption E.1 of shuffle-lcb: each of U users once in
every batch of U rounds) the data is user-major instead, shape (U, M, K, d + 1): user u's rows in
batches 1..M, user u the (u + 1)-th round of every batch (round m U + u + 1 in batch m + 1). Then
``ReplaceUser(batch_size=U)`` replaces one returning user in every batch she joins.

**Outputs** (``output``):

- ``"actions"``: the actions at ``rounds`` (1-based; all rounds by default), shape (size, len(rounds));
- ``"jdp"``: joint DP (shuffle-lcb Def. D.3, Kearns et al. 2014): every action except the protected
  user's own, i.e. the actions of all rounds but ``protected``, shape (size, T - 1). The output depends
  on which user changes, so a JDP transcript is built for one protected round and must be audited on
  pairs that differ in that round only (:meth:`ContextualTranscript.jdp_pair` builds one);
- ``"messages"``: the analyzer's view of every batch, in batch order and concatenated, shape
  (size, total): what the policy's view recorder recorded per batch (:func:`view_recorder`: the
  policy's ``statistics`` release, or the policy itself, with a ``record_views`` flag and a ``views``
  list; P_Vec's label counts are integers, P_Amp's released sums continuous). Runs to the horizon.

``sample(data, size, rng)`` runs ``size`` independent runs of the policy at once: by its compiled rounds
(``play_rounds``) when it has them (``compiled_rounds``: LinUCB and its Gaussian-release variants with numba
installed) and the output is not the messages, as a simulation on a linear bandit runs them; otherwise one
Python loop over rounds: ``choose(t, contexts)`` with the round's contexts broadcast to (size, K, d) (the same array
object as the previous round's when the arms are the same, as the simulation engine hands over a
fixed arm set), then ``observe(t,
arms, rewards)`` with the played arms' rewards (bandit feedback). The policy is started afresh at every
call, so the transcript can be sampled repeatedly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..core.names import subject_name
from ..core.validation import integer, sample_size
from .policies import check_policy, checked_decisions, feedback_of
from .transcripts import checked_rounds

OUTPUTS = ("actions", "jdp", "messages")


def view_recorder(policy: Any) -> Any:
    """What records ``policy``'s per-batch views for the messages output: its ``statistics`` release when
    that has a ``record_views`` flag (the private LinUCB variants), else the policy itself when it has one
    (a policy that calls its releases directly, e.g. ShuffleGLM); None if neither does."""
    statistics = getattr(policy, "statistics", None)
    if hasattr(statistics, "record_views"):
        return statistics
    if hasattr(policy, "record_views"):
        return policy
    return None


class ContextualTranscript:
    """The published output of the contextual ``policy`` on T users with K arms in dimension d
    (module docstring)."""

    owner = "ContextualTranscript"

    def __init__(self, policy: Any, arms: int, dimension: int, horizon: int, output: str = "actions",
                 protected: int | None = None, rounds: Iterable[int] | None = None,
                 users_per_batch: int | None = None, name: str | None = None):
        self.policy = check_policy(policy)
        if not getattr(policy, "contextual", False):
            raise TypeError(f"{self.owner}: {type(policy).__name__} is not a contextual policy (contextual = True)")
        if feedback_of(policy) != "bandit":
            raise ValueError(f"{self.owner}: only bandit feedback is supported, {type(policy).__name__} takes "
                             f"{feedback_of(policy)!r}")
        self.arms = integer(self.owner, "arms", arms, 1)
        self.dimension = integer(self.owner, "dimension", dimension, 1)
        self.horizon = integer(self.owner, "horizon", horizon, 1)
        if output not in OUTPUTS:
            raise ValueError(f"{self.owner}: output must be one of {', '.join(OUTPUTS)}, got {output!r}")
        self.output = output
        self.users_per_batch = None if users_per_batch is None else integer(self.owner, "users_per_batch",
                                                                            users_per_batch, 1)
        if self.users_per_batch is not None and self.horizon % self.users_per_batch:
            raise ValueError(f"{self.owner}: with returning users the horizon {self.horizon} must be a multiple of "
                             f"users_per_batch = {self.users_per_batch}")
        if output == "jdp":
            if protected is None or rounds is not None:
                raise ValueError(f"{self.owner}: a JDP transcript takes the protected round (and no rounds)")
            self.protected = self._round(protected)
            self.rounds = tuple(t for t in range(1, self.horizon + 1) if t != self.protected)
        else:
            if protected is not None:
                raise ValueError(f"{self.owner}: protected is for output='jdp' only")
            self.protected = None
            every = tuple(range(1, self.horizon + 1))
            self.rounds = every if rounds is None else checked_rounds(self.owner, rounds, self.horizon)
            if output == "messages" and rounds is not None:
                raise ValueError(f"{self.owner}: the messages output covers every batch; it takes no rounds")
            if output == "messages" and view_recorder(policy) is None:
                raise TypeError(f"{self.owner}: {type(policy).__name__} records no views (neither "
                                "statistics.record_views nor record_views)")
        self.name = name or self._default_name()

    def _round(self, t: Any) -> int:
        t = integer(self.owner, "a round", t, 1)
        if t > self.horizon:
            raise ValueError(f"{self.owner}: rounds must lie in 1..{self.horizon}, got {t}")
        return t

    def _default_name(self) -> str:
        users = "" if self.users_per_batch is None else f", {self.users_per_batch} returning users"
        what = {"actions": "actions", "messages": "analyzer's view of every batch",
                "jdp": f"actions of every round but {self.protected} (JDP)"}[self.output]
        return f"{subject_name(self.policy)}'s {what}, T={self.horizon}, K={self.arms}, d={self.dimension}{users}"

    def __repr__(self) -> str:
        return self.name

    # -- data ------------------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The data's shape (module docstring)."""
        row = (self.arms, self.dimension + 1)
        if self.users_per_batch is None:
            return (self.horizon, *row)
        return (self.users_per_batch, self.horizon // self.users_per_batch, *row)

    def table(self, data: Any) -> np.ndarray:
        """The users' rows in round order, checked: shape (T, K, d + 1), finite, rewards in [0, 1]."""
        try:
            x = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{self.owner}: data must be an array of contexts and rewards, got {data!r}") from None
        if x.shape != self.shape or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: data must be finite of shape {self.shape} (contexts and rewards), "
                             f"got shape {x.shape}")
        if self.users_per_batch is not None:  # user-major -> round order: round m U + u + 1 is user u
            x = np.swapaxes(x, 0, 1).reshape(self.horizon, self.arms, self.dimension + 1)
        rewards = x[..., self.dimension]
        if (rewards < 0).any() or (rewards > 1).any():
            raise ValueError(f"{self.owner}: rewards (the last column) must lie in [0, 1]")
        return x

    def jdp_pair(self, base: Any, row: Any) -> tuple[np.ndarray, np.ndarray]:
        """``base`` and the same data with the protected round's user replaced by ``row`` (K, d + 1):
        a pair this JDP transcript may be audited on."""
        if self.output != "jdp" or self.users_per_batch is not None:
            raise ValueError(f"{self.owner}: jdp_pair is for a JDP transcript of unique users")
        a = np.array(base, dtype=float)
        b = a.copy()
        b[self.protected - 1] = row
        return a, b

    # -- sampling --------------------------------------------------------------------------------

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent runs' outputs (module docstring)."""
        table = self.table(data)
        size = sample_size(self.owner, size)
        policy = self.policy
        messages = self.output == "messages"
        recorder = view_recorder(policy) if messages else None
        if messages:
            recorder.record_views = True
        try:
            actions = self._run(policy, table, size, rng, self._through())
        finally:
            if messages:
                recorder.record_views = False
        if messages:
            views = recorder.views
            if not views:
                raise ValueError(f"{self.owner}: no batch ended within the horizon {self.horizon}, so there is no "
                                 "message to publish")
            return np.concatenate([np.asarray(v).reshape(size, -1) for v in views], axis=1)
        return actions[:, np.asarray(self.rounds) - 1]

    def _through(self) -> int:
        """The last round a run needs: the horizon for the messages, else the last recorded round."""
        return self.horizon if self.output == "messages" else self.rounds[-1]

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)

    def _run(self, policy: Any, table: np.ndarray, size: int, rng: np.random.Generator, last: int) -> np.ndarray:
        policy.start(size, self.arms, self.horizon, rng)
        d = self.dimension
        played = np.zeros((size, self.horizon), dtype=np.int64)
        if self.output != "messages" and getattr(policy, "compiled_rounds", False):
            played[:, :last] = self._compiled(policy, table[:last], size).T
            return played
        contexts = None
        for t in range(1, last + 1):
            row = table[t - 1]
            if contexts is None or not np.array_equal(row[:, :d], contexts[0]):
                # a round with the previous round's arms hands over the same array, as the engine does
                # for a fixed arm set (policies may reuse what they computed from it)
                contexts = np.broadcast_to(row[:, :d], (size, self.arms, d))
            arms = checked_decisions(self.owner, policy.choose(t, contexts), (size,), self.arms, f"choice at round {t}")
            played[:, t - 1] = arms
            if t < last or self.output == "messages":
                policy.observe(t, arms, row[arms, d])
        return played

    def _compiled(self, policy: Any, table: np.ndarray, size: int) -> np.ndarray:
        """Rounds 1..len(table) by the policy's compiled ``play_rounds`` (as a simulation on a linear bandit runs
        them), given every round's contexts and every arm's reward, the same for every run: the same decisions as
        :meth:`_run`'s rounds. A policy whose ``choose`` continues from the state its blocks leave
        (``choose_after_blocks``, e.g. Algorithm 2's) makes the last round's choice by ``choose``, so that it draws
        what :meth:`_run` draws (no release after the last decision) and the next sample from the same generator is
        the per-round path's too; others play the last round in the block, whose release is then drawn after every
        decision is made (the sample's decisions are the same; the generator ends further on)."""
        d, rounds = self.dimension, len(table)
        fixed = bool((table[:, :, :d] == table[:1, :, :d]).all())  # one arm set throughout: handed over once
        contexts = (np.broadcast_to(table[0, :, :d], (size, self.arms, d)) if fixed
                    else np.broadcast_to(table[:, None, :, :d], (rounds, size, self.arms, d)))
        blocks = rounds - 1 if getattr(policy, "choose_after_blocks", False) else rounds
        played = np.empty((rounds, size), dtype=np.int64)
        if blocks:
            rewards = np.ascontiguousarray(np.broadcast_to(table[:blocks, None, :, d], (blocks, size, self.arms)))
            arms, _ = policy.play_rounds(1, contexts if fixed else contexts[:blocks], rewards)
            played[:blocks] = checked_decisions(self.owner, arms, (blocks, size), self.arms, "compiled rounds")
        if blocks < rounds:
            last = contexts if fixed else contexts[-1]
            played[-1] = checked_decisions(self.owner, policy.choose(rounds, last), (size,), self.arms,
                                           f"choice at round {rounds}")
        return played


def fixed_arms(features: Any, rewards: Any, horizon: int) -> np.ndarray:
    """The (horizon, K, d + 1) table of ``horizon`` users who all see the arms ``features`` (K, d) with
    the rewards ``rewards`` (K,): the base table of a small audit instance."""
    x = np.asarray(features, dtype=float)
    y = np.asarray(rewards, dtype=float).reshape(-1, 1)
    return np.broadcast_to(np.concatenate([x, y], axis=1), (horizon, x.shape[0], x.shape[1] + 1)).copy()



class FirstBatchView(ContextualTranscript):
    """The analyzer's view of the first batch alone, with its exact law when the policy's plays in
    the first batch are fixed (a deterministic initial model, as Algorithm 1's: the model changes only
    at a batch end) and its statistics release has an exact law (``statistics.mechanism.distribution``
    on the batch's rows (phi, y), e.g. P_Vec's label counts).

    For a user of the first batch this is the whole transcript's privacy, exactly: the later batches'
    views are drawn from a kernel of the first view and of the other users' data, the same on both
    sides of a pair, so every hockey-stick divergence of the whole sequence equals the first view's."""

    owner = "FirstBatchView"

    def __init__(self, policy: Any, arms: int, dimension: int, horizon: int, batch: int, name: str | None = None):
        super().__init__(policy, arms, dimension, horizon, output="messages", name=name)
        self.batch = integer(self.owner, "batch", batch, 1)
        if self.batch > self.horizon:
            raise ValueError(f"{self.owner}: the batch size {self.batch} exceeds the horizon {self.horizon}")
        self.name = name or f"{subject_name(self.policy)}'s first batch view, B={self.batch}, K={self.arms}, " \
                            f"d={self.dimension}"

    def _through(self) -> int:
        return self.batch  # the first batch's view is complete at its end

    def rows(self, data: Any) -> np.ndarray:
        """The first batch's randomizer inputs (B, d + 1): the played arms' features and rewards, from
        two runs on different streams, refused if they differ (the plays would not be fixed)."""
        table = self.table(data)
        runs = [self._run(self.policy, table, 2, np.random.default_rng(seed), self.batch) for seed in (1, 2)]
        played = np.concatenate(runs)[:, : self.batch]
        if (played != played[0]).any():
            raise ValueError(f"{self.owner}: the policy's plays in the first batch are random, so the batch's "
                             "inputs (and its view's law) are not fixed")
        chosen = table[np.arange(self.batch), played[0]]
        return chosen  # (B, d + 1): the played arm's features, then its reward

    def distribution(self, data: Any) -> Any:
        """The exact law of :meth:`sample`'s output: the release's law on the first batch's rows."""
        rows = self.rows(data)
        self.policy.statistics.prepare(self.dimension, self.horizon)
        return self.policy.statistics.mechanism.distribution(rows)


__all__ = ["OUTPUTS", "ContextualTranscript", "FirstBatchView", "fixed_arms", "view_recorder"]
