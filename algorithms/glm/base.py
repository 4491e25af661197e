"""What the GLM bandit policies share: the link, S, kappa (by default the bound every instance with
||theta*|| <= S and arms in the unit ball satisfies, :func:`dpaudit.algorithms.environments.glm.kappa_bounds`;
a kappa below 1/max mu' fits no instance: ValueError; one below the bound is the instance's own, e.g. the
repository's realised kappa, and is used as given), the failure probability delta, the horizon T (the
simulated one unless given), and the contextual protocol's bookkeeping (checked contexts, the dimension
fixed by the first round's contexts)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from dpaudit.algorithms.environments.glm import kappa_bounds
from dpaudit.bandits.policies import checked_contexts
from dpaudit.core.validation import choice, integer, positive, probability
from dpaudit.mechanisms.glm.glm_links import LINKS, Link
from dpaudit.mechanisms.glm.glm_links import link as glm_link


def curvature(owner: str, link: Any, S: float, kappa: float | None, kappa_star: float | None
              ) -> tuple[Link, float, float]:
    """The link and (kappa, kappa*) of the private GLM algorithms: as given, or the bounds of
    :func:`~dpaudit.algorithms.environments.glm.kappa_bounds` at S; kappa >= kappa* is checked."""
    link = glm_link(link)
    bound, bound_star = kappa_bounds(link, S)
    kappa = bound if kappa is None else positive(owner, "kappa", kappa)
    kappa_star = bound_star if kappa_star is None else positive(owner, "kappa_star", kappa_star)
    if kappa < kappa_star:
        raise ValueError(f"{owner}: kappa must be >= kappa_star (1/min mu' >= 1/max mu'), got kappa={kappa!r}, "
                         f"kappa_star={kappa_star!r}")
    return link, kappa, kappa_star


def planned_horizon(owner: str, T: int | None, horizon: int, floor: int) -> int:
    """The T an algorithm plans for: the given one (which must cover the simulated ``horizon``), or the
    horizon itself, at least ``floor``."""
    planned = T if T is not None else max(horizon, floor)
    if planned < horizon:
        raise ValueError(f"{owner}: T = {planned} is below the simulated horizon {horizon}")
    return planned


def play_round_by_round(policy: Any, t: int, contexts: Any, rewards: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rounds t .. t + count - 1 of every run through the policy's ``choose`` and ``observe``, one round at a time:
    ``simulate``'s fast path on a :class:`~dpaudit.algorithms.environments.GLMBandit` for a GLM policy without
    compiled rounds (the same decisions as the per-round path on the same rewards). ``contexts`` (count, runs, K,
    d); ``rewards`` every arm's (count, runs, K), or the played arm's from one uniform per round and run (an object
    with ``rewards(s, played)``, as :class:`~dpaudit.algorithms.environments.glm.PlayedGLMRewards`). Returns the
    arms played and the rewards collected, each (count, runs)."""
    table = isinstance(rewards, np.ndarray)
    count = len(contexts)
    if table and rewards.shape[:2] != (count, policy.runs):
        raise ValueError(f"{policy.owner}: a table of rewards must have shape ({count}, runs, K) with runs = "
                         f"{policy.runs}, got {rewards.shape}")
    played = np.empty((count, policy.runs), dtype=np.int64)
    collected = np.empty((count, policy.runs))
    rows = np.arange(policy.runs)
    for s in range(count):
        played[s] = policy.choose(t + s, contexts[s])
        collected[s] = rewards[s][rows, played[s]] if table else rewards.rewards(s, played[s])
        policy.observe(t + s, played[s], collected[s])
    return played, collected


def block_contexts(owner: str, contexts: Any, runs: int, dimension: int | None, t: int, rewards: Any) -> np.ndarray:
    """A block's contexts as a float array (count, runs, K, d): given so, or one arm set (runs, K, d) for every round
    of the block (a fixed arm set, as a contextual transcript hands it over), the count read from ``rewards`` (a table
    (count, runs, K), or the played arm's rewards with ``noise`` (count, runs)). Another shape, or a dimension other
    than ``dimension`` (None: not fixed yet): a ValueError naming ``owner``."""
    x = np.asarray(contexts, dtype=float)
    if x.ndim == 3:
        count = len(rewards) if isinstance(rewards, np.ndarray) else len(getattr(rewards, "noise", ()))
        x = np.broadcast_to(x, (count, *x.shape))
    if x.ndim != 4 or x.shape[1] != runs:
        raise ValueError(f"{owner}: a block of rounds needs contexts of shape (count, runs, K, d) or one arm set "
                         f"(runs, K, d) with runs = {runs}, got {np.shape(contexts)}")
    if dimension is not None and x.shape[3] != dimension:
        raise ValueError(f"{owner}: contexts changed dimension from {dimension} to {x.shape[3]} at round {t}")
    return x


def block_arrays(owner: str, x: np.ndarray, rewards: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What a compiled loop over a block of rounds reads (contexts ``x`` (count, runs, K, d), rewards as
    :func:`play_round_by_round` takes them): the arm sets, (count, 1, K, d) when every run has the same ones (a
    broadcast view) else (count, runs, K, d); the reward table (count, runs, K), or an empty one and the played arm's
    rewards' ``means`` (count, runs, K) and uniforms ``noise`` (count, runs). A table of another shape: ValueError."""
    count, runs, K, _ = x.shape
    table = isinstance(rewards, np.ndarray)
    if table and rewards.shape != (count, runs, K):
        raise ValueError(f"{owner}: a table of rewards must have shape {(count, runs, K)}, got {rewards.shape}")
    shared = runs > 1 and x.strides[1] == 0
    empty = np.empty((0, 0, 0))
    return (np.ascontiguousarray(x[:, :1] if shared else x),
            np.ascontiguousarray(rewards, dtype=float) if table else empty,
            empty if table else np.ascontiguousarray(rewards.means, dtype=float),
            np.empty((0, 0)) if table else np.ascontiguousarray(rewards.noise, dtype=float))


class RoundByRound:
    """What a GLM policy adds to play ``simulate``'s blocks of rounds on a GLM bandit one round at a time
    (:func:`play_round_by_round`): the rewards drawn for the played arm only, from one uniform per round and run that
    every GLM policy on the same seed shares."""

    #: plays blocks of rounds
    block_rounds: ClassVar[bool] = True

    def play_rounds(self, t: int, contexts: Any, rewards: Any) -> tuple[np.ndarray, np.ndarray]:
        """Rounds t .. t + count - 1 of every run (:func:`play_round_by_round`)."""
        return play_round_by_round(self, t, contexts, rewards)


class GLMPolicy(RoundByRound):
    """Base of the GLM bandit policies (module docstring); subclasses implement ``_begin(d)``,
    ``_choose(t, x)`` and ``observe``."""

    owner: ClassVar[str] = "GLMPolicy"
    feedback: ClassVar[str] = "bandit"
    contextual: ClassVar[bool] = True
    paper: ClassVar[str] = "shuffle-glm"

    def __init__(self, link: str | Link = "logistic", S: float = 1.0, kappa: float | None = None,
                 delta: float = 0.02, T: int | None = None):
        self.link = link if isinstance(link, Link) else LINKS[choice(self.owner, "link", link, tuple(LINKS))]
        self.S = positive(self.owner, "S", S)
        bound, floor = kappa_bounds(self.link, self.S)
        self.notes: list[str] = []
        if kappa is None:
            self.kappa = bound
        else:
            self.kappa = positive(self.owner, "kappa", kappa)
            if self.kappa < floor * (1 - 1e-12):
                raise ValueError(f"{self.owner}: kappa must be >= 1/max mu' = {floor:.6g} for the {self.link.name} "
                                 f"link (no instance has a smaller one), got kappa={kappa!r}")
        self.delta = probability(self.owner, "delta", delta)
        self.T = None if T is None else integer(self.owner, "T", T, 1)

    def __repr__(self) -> str:
        return self.name

    @property
    def anytime(self) -> bool:
        """Whether its decisions ignore the horizon it is started with: a subclass's constants may use T,
        the horizon unless ``T`` is given (:func:`dpaudit.bandits.policies.horizon_use`); subclasses that never
        read T say so."""
        return self.T is not None

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        self.runs = integer(self.owner, "runs", runs, 0)
        self.arms = integer(self.owner, "arms", arms, 1)
        horizon = integer(self.owner, "horizon", horizon, 1)
        self._T = self.T if self.T is not None else horizon
        self._d: int | None = None
        self._rows = np.arange(self.runs)

    def choose(self, t: int, contexts: Any) -> np.ndarray:
        x = checked_contexts(self.owner, contexts, self.runs, self._d, t)
        if self._d is None:
            self._d = x.shape[2]
            self._begin(self._d)
        played = self._choose(t, x)
        self._x = x[self._rows, played]
        return played

    def _begin(self, d: int) -> None:
        raise NotImplementedError

    def _choose(self, t: int, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError


__all__ = ["GLMPolicy", "RoundByRound", "block_arrays", "block_contexts", "play_round_by_round"]
