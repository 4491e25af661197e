"""Linear contextual bandits (shuffle-lcb Section 5 and App. G; the spec's 6.1-6.2), vectorised over
runs: arm a's mean location in run r is <x_{r,a}, theta_r>; rewards are Bernoulli with that mean
(the papers' experiments), or Gaussian N(<x, theta>, sigma^2) clipped to [0, 1] (``rewards="gaussian"``,
the sub-Gaussian noise of the theorems' model kept inside Assumption 3.1's |y| <= 1; the mean reward is
then the clipped Gaussian's mean, in closed form, which is increasing in <x, theta>, so the best arm
and the ordering of the arms are those of <x, theta>).

Each run draws its own instance (theta and the K arms' feature vectors) with one of two generators:

- ``"paper"`` (shuffle-lcb Sec. 5, "similar to Vaswani et al. 2020"): theta and every feature vector
  are a (d - 1)-dimensional vector of norm 1/sqrt 2, uniform on that sphere, with 1/sqrt 2 appended;
  all have unit norm and <x, theta> = 1/2 + <x', theta'> lies in [0, 1];
- ``"released-code"`` (the authors' code, the spec's 6.2): x' ~ N(0, I_{d-1}) scaled to unit norm with a
  1 appended (norm sqrt 2), the first d arms replaced by the basis rows e_i + e_d (i < d) and e_d,
  theta' ~ N(0, I_{d-1}) scaled to norm 1/2 with 1/2 appended (norm 1/sqrt 2); needs K >= d.

The features are fixed per instance (both papers' experiments: "a fixed set of K arm feature vectors")
unless ``fresh_contexts=True``, where every round draws new feature vectors with the paper's
generator (varying contexts, for the rate checks); theta stays fixed. Contexts come to a policy that
says ``contextual = True`` as ``choose(t, contexts)``, shape (runs, K, d).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.core.validation import choice, integer, positive

from .bandits import clipped_normal_mean

GENERATORS = ("paper", "released-code")
REWARDS = ("bernoulli", "gaussian")


def _sphere(rng: np.random.Generator, shape: tuple[int, ...], radius: float) -> np.ndarray:
    """Uniform on the sphere of ``radius`` in the last axis's dimension."""
    x = rng.standard_normal(shape)
    return radius * x / np.linalg.norm(x, axis=-1, keepdims=True)


def paper_vectors(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Vectors of dimension shape[-1] + 1: uniform of norm 1/sqrt 2, then 1/sqrt 2 appended (unit norm)."""
    head = _sphere(rng, shape, 1 / np.sqrt(2))
    return np.concatenate([head, np.full(shape[:-1] + (1,), 1 / np.sqrt(2))], axis=-1)


class PlayedRewardDraws:
    """A block of rounds' rewards drawn for the played arm only (a contextual fast path, :meth:`_LinearInstances.
    draw_rounds`): the reward of round s in run r, arm features x, is 1{noise[s, r] < clip(<x, theta_r>, 0, 1)}
    (``law`` "bernoulli", noise uniform) or clip(<x, theta_r> + sigma noise[s, r], 0, 1) ("gaussian", noise
    standard normal). Each round's reward is then the played arm's law given the past, as the per-round path's
    table of every arm's reward gives it, from one draw per run instead of K."""

    def __init__(self, law: str, theta: np.ndarray, sigma: float | None, noise: np.ndarray):
        self.law, self.theta, self.sigma, self.noise = law, theta, sigma, noise

    def rewards(self, s: int, played_features: np.ndarray) -> np.ndarray:
        """Round s's rewards of every run, given the played arms' features (runs, d)."""
        location = (played_features * self.theta).sum(axis=1)
        if self.law == "bernoulli":
            return (self.noise[s] < np.clip(location, 0.0, 1.0)).astype(float)
        return np.clip(location + self.sigma * self.noise[s], 0.0, 1.0)


class _LinearInstances:
    def __init__(self, theta: np.ndarray, features: np.ndarray, fresh: bool, sigma: float | None = None):
        self.theta, self.features, self.fresh = theta, features, fresh
        self.sigma = sigma  # None: Bernoulli rewards
        self.binary = sigma is None
        self.arms = features.shape[1]
        self.means = None if fresh else self.expected(features)

    def contexts(self, rng: np.random.Generator) -> np.ndarray:
        if not self.fresh:
            return self.features
        runs, arms, d = self.features.shape
        return paper_vectors(rng, (runs, arms, d - 1))

    def expected(self, contexts: np.ndarray) -> np.ndarray:
        """Mean rewards, shape (runs, K): <x_a, theta> (clipped to [0, 1] against rounding) for Bernoulli
        rewards, the mean of clip(N(<x_a, theta>, sigma^2), 0, 1) for Gaussian ones."""
        if not self.fresh and contexts is self.features and getattr(self, "means", None) is not None:
            return self.means  # fixed arms: computed once
        loc = self._locations(contexts)
        if self.sigma is None:
            return np.clip(loc, 0.0, 1.0)
        return clipped_normal_mean(loc, self.sigma, 0.0, 1.0)

    def _locations(self, contexts: np.ndarray) -> np.ndarray:
        """<x_a, theta> per run and arm, as a batched matrix product (far faster than an einsum here)."""
        return np.matmul(contexts, self.theta[:, :, None])[..., 0]

    def rewards(self, rng: np.random.Generator, contexts: np.ndarray) -> np.ndarray:
        if self.sigma is None:
            mu = self.expected(contexts)
            return (rng.random(mu.shape) < mu).astype(float)
        loc = self._locations(contexts)
        return np.clip(loc + self.sigma * rng.standard_normal(loc.shape), 0.0, 1.0)

    def draw_rounds(self, count: int, rng: np.random.Generator, context_rng: np.random.Generator
                    ) -> tuple[np.ndarray, PlayedRewardDraws]:
        """``count`` rounds at once for a contextual fast path: the contexts, (runs, K, d) for a fixed arm set or
        (count, runs, K, d) drawn as ``count`` calls of :meth:`contexts` draw them (the same values), and the
        rewards as :class:`PlayedRewardDraws`, one uniform (Bernoulli) or standard normal (Gaussian) per round
        and run from the reward stream."""
        runs = self.theta.shape[0]
        if self.fresh:
            contexts = paper_vectors(context_rng, (count, runs, self.arms, self.features.shape[2] - 1))
        else:
            contexts = self.features
        if self.sigma is None:
            return contexts, PlayedRewardDraws("bernoulli", self.theta, None, rng.random((count, runs)))
        return contexts, PlayedRewardDraws("gaussian", self.theta, self.sigma, rng.standard_normal((count, runs)))


class LinearBandit:
    """A K-armed linear contextual bandit in dimension d with Bernoulli rewards, or Gaussian rewards of
    standard deviation ``sigma`` clipped to [0, 1] (module docstring)."""

    owner = "LinearBandit"
    feedback = "bandit"
    #: its instances draw blocks of rounds (``draw_rounds``), for a contextual fast path
    blocks_of_rounds = True

    def __init__(self, arms: int, dimension: int, generator: str = "paper", fresh_contexts: bool = False,
                 rewards: str = "bernoulli", sigma: float | None = None):
        self.arms = integer(self.owner, "arms", arms, 2)
        self.reward_law = choice(self.owner, "rewards", rewards, REWARDS)
        if self.reward_law == "gaussian":
            if sigma is None:
                raise ValueError(f"{self.owner}: Gaussian rewards need their standard deviation sigma")
            self.sigma: float | None = positive(self.owner, "sigma", sigma)
        elif sigma is not None:
            raise ValueError(f"{self.owner}: sigma is the Gaussian rewards' standard deviation; Bernoulli rewards "
                             "have none (pass rewards='gaussian')")
        else:
            self.sigma = None
        self.dimension = integer(self.owner, "dimension", dimension, 2)
        self.generator = choice(self.owner, "generator", generator, GENERATORS)
        if not isinstance(fresh_contexts, (bool, np.bool_)):
            raise ValueError(f"{self.owner}: fresh_contexts must be True or False, got {fresh_contexts!r}")
        self.fresh = bool(fresh_contexts)
        if self.generator == "released-code":
            if self.arms < self.dimension:
                raise ValueError(f"{self.owner}: the released code's generator puts d = {self.dimension} basis rows "
                                 f"among the arms, so it needs arms >= dimension, got arms = {self.arms}")
            if self.fresh:
                raise ValueError(f"{self.owner}: fresh contexts are drawn with the paper's generator; the released "
                                 "code's fixes its arms (basis rows included)")
        self.name = (f"{self.owner}(K={self.arms}, d={self.dimension}, {self.generator} generator"
                     + (", fresh contexts" if self.fresh else "")
                     + ("" if self.sigma is None else f", Gaussian rewards sigma={self.sigma:g}") + ")")

    def __repr__(self) -> str:
        return self.name

    def instances(self, runs: int, rng: np.random.Generator) -> _LinearInstances:
        runs, K, d = integer(self.owner, "runs", runs, 0), self.arms, self.dimension
        if self.generator == "paper":
            theta = paper_vectors(rng, (runs, d - 1))
            features = paper_vectors(rng, (runs, K, d - 1))
        else:
            head = rng.standard_normal((runs, K, d - 1))
            head /= np.linalg.norm(head, axis=-1, keepdims=True)
            features = np.concatenate([head, np.ones((runs, K, 1))], axis=-1)
            basis = np.eye(d)
            basis[:, -1] = 1.0  # rows e_i + e_d (i < d) and e_d
            features[:, :d] = basis
            theta_head = rng.standard_normal((runs, d - 1))
            theta_head *= 0.5 / np.linalg.norm(theta_head, axis=-1, keepdims=True)
            theta = np.concatenate([theta_head, np.full((runs, 1), 0.5)], axis=-1)
        return _LinearInstances(theta, features, self.fresh, self.sigma)


class GivenLinearBandit(LinearBandit):
    """A linear bandit whose R runs face given instances: run r has the fixed arm features ``features[r]``
    (shape (R, K, d)) and parameter ``theta[r]`` (shape (R, d)), Bernoulli rewards with means <x, theta>
    (clipped to [0, 1] against rounding; means outside [-1e-9, 1 + 1e-9] are refused). For running this
    package's algorithms on instances another program drew (e.g. a paper's released code, to compare
    the two run by run). A simulation must have exactly R runs, in one block of runs (R <= the engine's
    RUN_BLOCK), so that run r is instance r."""

    owner = "GivenLinearBandit"

    def __init__(self, features: Any, theta: Any, label: str = "given instances"):
        x, th = np.asarray(features, dtype=float), np.asarray(theta, dtype=float)
        if x.ndim != 3 or th.ndim != 2 or th.shape != (x.shape[0], x.shape[2]) or not np.isfinite(x).all():
            raise ValueError(f"{self.owner}: features must be (R, K, d) and theta (R, d), got {x.shape} and {th.shape}")
        means = np.matmul(x, th[:, :, None])[..., 0]
        if means.min() < -1e-9 or means.max() > 1 + 1e-9:
            raise ValueError(f"{self.owner}: Bernoulli rewards need means <x, theta> in [0, 1], got "
                             f"{means.min():.6g}..{means.max():.6g}")
        super().__init__(x.shape[1], x.shape[2])
        self.features, self.theta = x, th
        self.generator = label
        self.name = f"{self.owner}(R={x.shape[0]}, K={x.shape[1]}, d={x.shape[2]}, {label})"

    def instances(self, runs: int, rng: np.random.Generator) -> _LinearInstances:
        if integer(self.owner, "runs", runs, 1) != self.features.shape[0]:
            raise ValueError(f"{self.owner}: it holds {self.features.shape[0]} instances; simulate exactly that many "
                             f"runs (in one block of runs), got a block of {runs}")
        return _LinearInstances(self.theta.copy(), self.features.copy(), False, None)


SCHEDULES = ("cyclic", "random")


class _ReturningInstances(_LinearInstances):
    """U users per run with their own fixed arm sets; :meth:`contexts` is the arriving user's."""

    def __init__(self, theta: np.ndarray, user_features: np.ndarray, schedule: str, batch: int | None):
        self.theta, self.user_features = theta, user_features
        self.runs, self.users, self.arms = user_features.shape[:3]
        self.schedule, self.batch = schedule, batch
        self.fresh = True
        self.sigma, self.binary = None, True  # Bernoulli rewards
        self.means = None  # the round's means depend on who arrives
        self.round = 0
        self.user = np.zeros(self.runs, dtype=np.int64)  # each run's user of the last round
        self._order: np.ndarray | None = None

    def arrivals(self, rng: np.random.Generator) -> np.ndarray:
        """The next round's users, one per run (module docstring)."""
        t = self.round
        self.round += 1
        if self.schedule == "cyclic":
            return np.full(self.runs, t % self.users, dtype=np.int64)
        slot = t % self.batch
        if slot == 0:  # a new batch: B distinct users per run, in random order
            self._order = rng.permuted(np.tile(np.arange(self.users), (self.runs, 1)), axis=1)[:, : self.batch]
        return self._order[:, slot]

    def contexts(self, rng: np.random.Generator) -> np.ndarray:
        self.user = self.arrivals(rng)
        if self.schedule == "cyclic":
            return self.user_features[:, int(self.user[0])]
        return self.user_features[np.arange(self.runs), self.user]

    def draw_rounds(self, count: int, rng: np.random.Generator, context_rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray]:
        """``count`` rounds at once, drawn as ``count`` rounds of the per-round path draw them: the arriving users'
        contexts (count, runs, K, d), then every arm's reward of each round, a table (count, runs, K) (a Generator
        fills one array with the draws that consecutive calls would give, and the means are the same products
        round by round). The same draws and values as round after round, so a policy that plays the block as the
        per-round path would makes its decisions."""
        contexts = np.stack([self.contexts(context_rng) for _ in range(count)])
        return contexts, self.rewards(rng, contexts)


class ReturningUsers:
    """Returning users (shuffle-lcb Sec. 4 and App. E, Assumption 4.1 = E.1): a linear contextual bandit
    with ``users`` = U users per run, each with her own fixed set of K arm features (the paper's
    generator, unit norm) and one theta per run; at each round one user arrives and the round's
    contexts are her arms. Rewards are Bernoulli(<x, theta>), as in :class:`LinearBandit`.

    Schedules (each user takes part at most once per batch of B rounds, Assumption E.1):

    - ``"cyclic"``: user (t - 1) mod U at round t, the same in every run: any U consecutive rounds
      hold U distinct users, so E.1 holds for every B <= U, and each user takes part in at most
      ceil(T/U) rounds (M0 of the user-level central variant);
    - ``"random"`` (needs ``batch`` = B <= U): each batch of B rounds (1..B, B+1..2B, ...) is B distinct
      users drawn uniformly without replacement, in random order, per run (from the context stream).

    Memory: the arm sets take runs x U x K x d floats.
    """

    owner = "ReturningUsers"
    feedback = "bandit"
    #: its instances draw blocks of rounds (``draw_rounds``: every arm's reward of each round, as round by round)
    blocks_of_rounds = True

    def __init__(self, arms: int, dimension: int, users: int, schedule: str = "cyclic", batch: int | None = None):
        self.arms = integer(self.owner, "arms", arms, 2)
        self.dimension = integer(self.owner, "dimension", dimension, 2)
        self.users = integer(self.owner, "users", users, 1)
        self.schedule = choice(self.owner, "schedule", schedule, SCHEDULES)
        self.batch = None if batch is None else integer(self.owner, "batch", batch, 1)
        if self.schedule == "random":
            if self.batch is None:
                raise ValueError(f"{self.owner}: the 'random' schedule draws B distinct users per batch: give batch=B")
            if self.batch > self.users:
                raise ValueError(f"{self.owner}: batch = {self.batch} needs at least as many users (Assumption E.1: "
                                 f"a user at most once per batch), got users = {self.users}")
        self.generator = "paper"
        self.name = (f"{self.owner}(K={self.arms}, d={self.dimension}, U={self.users}, {self.schedule} schedule"
                     + (f", B={self.batch})" if self.batch else ")"))

    def __repr__(self) -> str:
        return self.name

    def rounds_per_user(self, horizon: int) -> int:
        """The most rounds any user takes part in over ``horizon`` rounds (M0): ceil(T/U) for the cyclic
        schedule, the number of batches for the random one (a user can be drawn in every batch)."""
        horizon = integer(self.owner, "horizon", horizon, 1)
        if self.schedule == "cyclic":
            return -(-horizon // self.users)
        return -(-horizon // self.batch)

    def instances(self, runs: int, rng: np.random.Generator) -> _ReturningInstances:
        runs, d = integer(self.owner, "runs", runs, 0), self.dimension
        theta = paper_vectors(rng, (runs, d - 1))
        features = paper_vectors(rng, (runs, self.users, self.arms, d - 1))
        return _ReturningInstances(theta, features, self.schedule, self.batch)


__all__ = ["GENERATORS", "REWARDS", "SCHEDULES", "GivenLinearBandit", "LinearBandit", "PlayedRewardDraws",
           "ReturningUsers", "paper_vectors"]
