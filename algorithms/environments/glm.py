"""Generalised linear contextual bandits (shuffle-glm Sec. 8 and App. A; the spec's 1.1 and 5.1-5.5),
vectorised over runs: every round each run sees a fresh set of K arms x in the unit ball of R^d, and the
reward of arm x is Bernoulli with mean mu(<x, theta*>), mu the logistic or the probit link
(:data:`dpaudit.mechanisms.glm.glm_links.LINKS`). For probit the repository draws 1{N(<x, theta*>, 1) > 0},
which has this law; here both links draw 1{U < mu} with U uniform, one code path for both.

Two instance generators:

- ``"paper"`` (Sec. 8: "theta* sampled uniformly from a sphere of radius S", arms "drawn from the unit
  ball"): each run draws its own theta* (instance stream), and each round's arm sets, uniform in the unit
  ball, come from the engine's context stream, independently per run;
- ``"repository"`` (the authors' environment, the spec's 5.5): theta* = S u/||u||, u ~ U([-1, 1]^d), arms a
  Gaussian direction times a U^{1/d} radius (also uniform in the ball), all arm sets fixed once and the
  same in every run. They are the authors' draws exactly: numpy's ``default_rng(instance_seed)`` (default
  the repository's seed 109832) drawn in the repository's order (theta*'s u, then per round and arm a
  normal direction and a uniform radius), which reproduces the repository's kappa values (S = 2, 2.5, 3 at
  d = 3, K = 20, T = 5000: 18.39, 56.44, 222.15). Arm sets are generated lazily, in chunks of rounds, from
  the generator state saved at each chunk's start; the draws go arm by arm because that is the order the
  repository's stream has (a vectorised draw would give other arms): in Python, or with numba (the ``fast``
  extra) in one compiled loop on the same generator, the same numbers (:mod:`.arms_compiled`). One instance's chunks are
  kept, read-only, up to :data:`CHUNK_CACHE_BYTES`, and shared by every block of runs and every simulation
  in the process (an audit simulates the same instance at several horizons and for several algorithms);
  past that budget only the latest chunk is kept, so memory does not grow with the horizon or the runs.

The non-linearity parameters (shuffle-glm eq. (4)): kappa = 1/min mu'(<x, theta*>) and
kappa* = 1/max mu'(<x, theta*>) over the arms the instance uses. ``GLMBandit.kappa(horizon)`` gives them
over all T K arms of the repository's instance; the ``"paper"`` instances are random, so it gives the
bounds every instance satisfies, :func:`kappa_bounds` (kappa <= 1/mu'(S), kappa* >= 1/mu'(0)), which is
also what the GLM algorithms use by default. The realised values of the rounds drawn so far are kept per
run in ``instances.kappa`` and ``instances.kappa_star`` (updated as the engine draws contexts).

The engine's pseudo-regret is then max_x mu(<x, theta*>) - mu(<x_t, theta*>) per round, the repository's
metric.

:class:`FiniteSetsGLMBandit` draws each round's arm set from a finite family instead (a context distribution
D with finite support, the setting of Ruan et al.'s distributional optimal design, shuffle-glm Remark 4.4), one
theta* for every run; :func:`spike_bandit` is it on the spike family. :class:`FixedArmsGLMBandit` keeps one
public arm set (the lower bound's model).
"""

from __future__ import annotations

import functools
import itertools
import math
import threading

import numpy as np

from dpaudit.core.validation import choice, integer, positive
from dpaudit.mechanisms.glm.glm_links import LINKS, Link

try:  # the repository's arm draws compiled (an optional dependency: pip install dpaudit[fast])
    from .arms_compiled import draw_arms
except ImportError:  # numba missing: the Python loop
    draw_arms = None

GLM_GENERATORS = ("paper", "repository")
REPOSITORY_SEED = 109832
CHUNK_ROUNDS = 256
#: bytes of one repository instance's arm sets kept in memory (T = 5000, K = 20, d = 3 takes 2.4 MB)
CHUNK_CACHE_BYTES = 32 * 2**20


def kappa_bounds(link: str | Link, S: float) -> tuple[float, float]:
    """(an upper bound on kappa, a lower bound on kappa*) for any arms in the unit ball and ||theta*|| <= S:
    |<x, theta*>| <= S and mu' of both links is even and decreasing in |z|, so kappa <= 1/mu'(S) and
    kappa* >= 1/mu'(0) (logistic: 4; probit: sqrt(2 pi))."""
    owner = "kappa_bounds"
    link = _link(owner, link)
    S = positive(owner, "S", S)
    return float(1 / link.slope(S)), float(1 / link.slope(0.0))


def _link(owner: str, link: str | Link) -> Link:
    if isinstance(link, Link):
        return link
    return LINKS[choice(owner, "link", link, tuple(LINKS))]


def unit_ball(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform in the unit ball of dimension shape[-1]: a Gaussian direction times a U^{1/d} radius."""
    direction = rng.standard_normal(shape)
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    radius = rng.random(shape[:-1] + (1,)) ** (1.0 / shape[-1])
    return direction * radius


class RepositoryArms:
    """The repository's T arm sets of one instance, generated chunk by chunk (module docstring):
    ``theta`` (d,) and ``chunk(i)`` = the arm sets of rounds i C + 1 .. (i + 1) C, shape (C, K, d), read-only.
    Chunks are kept while they fit in ``cache_bytes``; thread-safe, so blocks of runs may share one. With numba (the
    ``fast`` extra) a chunk's draws run in one compiled loop (:mod:`.arms_compiled`), the same numbers; ``compiled``
    (a class attribute) switches it off."""

    #: whether a chunk's draws run compiled when numba is installed
    compiled = True

    def __init__(self, arms: int, dimension: int, S: float, seed: int, chunk_rounds: int = CHUNK_ROUNDS,
                 cache_bytes: int = CHUNK_CACHE_BYTES):
        self.arms, self.dimension, self.chunk_rounds = arms, dimension, chunk_rounds
        rng = np.random.default_rng(seed)
        u = rng.uniform(-1, 1, size=dimension)
        self.theta = S * u / np.linalg.norm(u)
        self.theta.flags.writeable = False
        self._starts = [rng.bit_generator.state]  # the generator state at the start of each chunk made so far
        self._kept: dict[int, np.ndarray] = {}
        self._keep = max(1, cache_bytes // (chunk_rounds * arms * dimension * 8))  # chunks that fit the budget
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_lock"]  # a lock does not pickle; a copy gets its own
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def chunk(self, index: int) -> np.ndarray:
        with self._lock:
            if index in self._kept:
                return self._kept[index]
            while len(self._starts) <= index:  # chunks are requested in order; an earlier one is replayed
                self._generate(len(self._starts) - 1)
            return self._generate(index)

    def _generate(self, index: int) -> np.ndarray:
        rng = np.random.default_rng()
        rng.bit_generator.state = self._starts[index]
        d = self.dimension
        directions = np.empty((self.chunk_rounds, self.arms, d))
        radii = np.empty((self.chunk_rounds, self.arms, 1))
        if draw_arms is not None and self.compiled:  # the same draws, the generator left in the same state
            draw_arms(rng, directions.reshape(-1, d), radii.reshape(-1))
        else:
            for direction, radius in zip(directions.reshape(-1, d), radii.reshape(-1, 1)):
                direction[:] = rng.normal(0.0, 1.0, size=(d,))  # the repository's order: a direction, then its radius
                radius[0] = rng.uniform(0.0, 1.0) ** (1.0 / d)
        # the repository's direction * radius / ||direction|| for all arms at once, bit for bit: its norm is
        # sqrt(x . x), a dot product per arm, which a stacked matmul computes in the same order (a sum of squares
        # along an axis does not)
        norms = np.sqrt(directions[..., None, :] @ directions[..., :, None])[..., 0]
        block = directions * radii / norms
        block.flags.writeable = False
        if len(self._starts) == index + 1:
            self._starts.append(rng.bit_generator.state)
        if len(self._kept) >= self._keep:  # over the budget: keep only the latest chunk
            self._kept.clear()
        self._kept[index] = block
        return block

    def rounds(self, horizon: int):
        """The arm sets of rounds 1..horizon, chunk by chunk (the last one cut to the horizon)."""
        for index in range(math.ceil(horizon / self.chunk_rounds)):
            yield self.chunk(index)[: horizon - index * self.chunk_rounds]


@functools.lru_cache(maxsize=4)
def _shared_arms(arms: int, dimension: int, S: float, seed: int) -> RepositoryArms:
    """The process's one :class:`RepositoryArms` of an instance (of the few most recently used ones)."""
    return RepositoryArms(arms, dimension, S, seed)


class PlayedGLMRewards:
    """A block of rounds' rewards drawn for the played arm only (a contextual fast path, :meth:`GLMInstances.
    draw_rounds`): the reward of arm a in round s of run r is 1{noise[s, r] < means[s, r, a]}, with ``means``
    (count, runs, K) the arms' mu(<x, theta*>) and ``noise`` (count, runs) uniform. Given the past, each round's
    reward then has the played arm's law, as the per-round path's 1{U_a < mu_a} over every arm gives it, from one
    uniform per round and run instead of K; every policy on the same seed reads the same uniforms."""

    def __init__(self, means: np.ndarray, noise: np.ndarray):
        self.means, self.noise = means, noise

    def rewards(self, s: int, played: np.ndarray) -> np.ndarray:
        """Round s's rewards of every run, given the arms played (runs,)."""
        mu = self.means[s, np.arange(self.noise.shape[1]), played]
        return (self.noise[s] < mu).astype(float)


class GLMInstances:
    """The instances of a block of runs: ``theta`` (runs, d), the link, the running realised
    ``kappa`` / ``kappa_star`` (runs,) over the arm sets drawn so far, and the engine's contextual
    protocol (``contexts``, ``expected``, ``rewards``; ``means`` is None, the arms change every round), with
    ``draw_rounds`` for its fast path."""

    binary = True
    means = None

    def __init__(self, theta: np.ndarray, link: Link, arms: int, repository: RepositoryArms | None = None):
        self.theta, self.link, self.arms = theta, link, arms
        self.runs, self.dimension = theta.shape
        self._repository = repository
        self.round = 0
        self.kappa = np.full(self.runs, np.nan)
        self.kappa_star = np.full(self.runs, np.nan)
        self._min_slope = np.full(self.runs, np.inf)
        self._max_slope = np.full(self.runs, -np.inf)
        self._block: tuple[np.ndarray, np.ndarray] | None = None  # the last drawn block's contexts and means

    def contexts(self, rng: np.random.Generator) -> np.ndarray:
        """The next round's arm sets, (runs, K, d): fresh per run from ``rng`` (paper), or the repository's
        arm set of this round, the same for every run (a read-only view)."""
        contexts, locations = self._arm_sets(1, rng)
        self._seen(locations)
        return contexts[0]

    def draw_rounds(self, count: int, rng: np.random.Generator, context_rng: np.random.Generator
                    ) -> tuple[np.ndarray, PlayedGLMRewards]:
        """``count`` rounds at once for a contextual fast path: the arm sets (count, runs, K, d), drawn as ``count``
        calls of :meth:`contexts` draw them (the same values, the same realised kappa; the repository's a
        read-only view shared by the runs), and the rewards as :class:`PlayedGLMRewards`, one uniform per round
        and run from the reward stream."""
        if type(self).contexts is not GLMInstances.contexts:  # a subclass's own arm sets: drawn round by round
            contexts = np.stack([self.contexts(context_rng) for _ in range(count)])
            locations = np.einsum("srkd,rd->srk", contexts, self.theta)
        else:
            contexts, locations = self._arm_sets(count, context_rng)
            self._seen(locations)
        means = np.ascontiguousarray(np.broadcast_to(self.link.mean(locations), (count, self.runs, self.arms)))
        self._block = (contexts, means)
        return contexts, PlayedGLMRewards(means, rng.random((count, self.runs)))

    def _arm_sets(self, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The arm sets of the next ``count`` rounds (count, runs, K, d), as round after round draws them, and their
        <x, theta*> (count, runs or 1, K)."""
        runs, K, d = self.runs, self.arms, self.dimension
        if self._repository is None:
            contexts = np.stack([unit_ball(rng, (runs, K, d)) for _ in range(count)])
            return contexts, np.einsum("srkd,rd->srk", contexts, self.theta)
        # one arm set and one theta* for every run: the link evaluated once, broadcast over the runs
        size = self._repository.chunk_rounds
        first, last = self.round // size, (self.round + count - 1) // size
        offset = self.round - first * size
        if first == last:  # a view of the chunk
            sets = self._repository.chunk(first)[offset: offset + count]
        else:
            sets = np.concatenate([self._repository.chunk(i) for i in range(first, last + 1)])[offset: offset + count]
        return np.broadcast_to(sets[:, None], (count, runs, K, d)), np.einsum("skd,d->sk", sets, self.theta[0])[:, None]

    def _seen(self, locations: np.ndarray) -> None:
        """The rounds of ``locations`` (<x, theta*>, (count, runs or 1, K)) drawn: ``round`` moves on and the
        realised kappa and kappa* take in their arms."""
        self.round += len(locations)
        slopes = self.link.slope(locations)
        self._min_slope = np.minimum(self._min_slope, slopes.min(axis=(0, 2)))
        self._max_slope = np.maximum(self._max_slope, slopes.max(axis=(0, 2)))
        self.kappa, self.kappa_star = 1 / self._min_slope, 1 / self._max_slope

    def expected(self, contexts: np.ndarray) -> np.ndarray:
        """Mean rewards mu(<x_a, theta*>), shape (runs, K), or (count, runs, K) for a block of rounds (those of
        the last :meth:`draw_rounds` are kept)."""
        if self._block is not None and contexts is self._block[0]:
            return self._block[1]
        if contexts.shape[-1] != self.dimension:
            raise ValueError(f"GLMInstances: contexts have dimension {contexts.shape[-1]}, theta* has {self.dimension}")
        return self.link.mean(np.einsum("rkd,rd->rk", contexts, self.theta))

    def rewards(self, rng: np.random.Generator, contexts: np.ndarray) -> np.ndarray:
        """Every arm's reward this round, 1{U < mu(<x, theta*>)}, shape (runs, K)."""
        mu = self.expected(contexts)
        return (rng.random(mu.shape) < mu).astype(float)


class GLMBandit:
    """A K-armed generalised linear contextual bandit in dimension d, ||theta*|| = S, a fresh arm set every
    round, Bernoulli rewards with mean mu(<x, theta*>) (module docstring)."""

    owner = "GLMBandit"
    feedback = "bandit"
    #: its instances draw blocks of rounds (``draw_rounds``), for a contextual fast path
    blocks_of_rounds = True

    def __init__(self, arms: int, dimension: int, S: float, link: str = "logistic", generator: str = "paper",
                 instance_seed: int | None = None):
        self.arms = integer(self.owner, "arms", arms, 2)
        self.dimension = integer(self.owner, "dimension", dimension, 2)
        self.S = positive(self.owner, "S", S)
        self.link = _link(self.owner, link)
        self.generator = choice(self.owner, "generator", generator, GLM_GENERATORS)
        if self.generator == "paper":
            if instance_seed is not None:
                raise ValueError(f"{self.owner}: instance_seed fixes the repository's single instance; the paper's "
                                 "generator draws each run's instance from the simulation's seed")
            self.instance_seed = None
        else:
            self.instance_seed = integer(self.owner, "instance_seed",
                                         REPOSITORY_SEED if instance_seed is None else instance_seed, 0)
        self._repository: RepositoryArms | None = None
        seed = "" if self.generator == "paper" else f", seed {self.instance_seed}"
        self.name = f"{self.owner}(K={self.arms}, d={self.dimension}, S={self.S:g}, {self.link.name}, " \
                    f"{self.generator} generator{seed})"

    def __repr__(self) -> str:
        return self.name

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        # rebuilt on demand; workers need not receive generated arms. The pickled bandit also seeds a regret entry's
        # simulations (dpaudit.suite.regret.simulation_seed): its fields, this one included, are part of the seed
        state["_repository"] = None
        return state

    def _repository_arms(self) -> RepositoryArms:
        if self._repository is None:
            self._repository = _shared_arms(self.arms, self.dimension, self.S, self.instance_seed)
        return self._repository

    @property
    def theta(self) -> np.ndarray | None:
        """The repository's theta* (d,), or None for the paper's generator (one per run)."""
        return None if self.generator == "paper" else self._repository_arms().theta.copy()

    def arm_sets(self, horizon: int) -> np.ndarray:
        """The repository's arm sets of rounds 1..horizon, (horizon, K, d) (materialised: for checks)."""
        self._need_repository("arm_sets")
        horizon = integer(self.owner, "horizon", horizon, 1)
        return np.concatenate(list(self._repository_arms().rounds(horizon)))

    def kappa(self, horizon: int) -> tuple[float, float]:
        """(kappa, kappa*) over all horizon K arms of the repository's instance; for the paper's generator
        (a random instance per run) the bounds of :func:`kappa_bounds`, which hold for every run."""
        horizon = integer(self.owner, "horizon", horizon, 1)
        if self.generator == "paper":
            return kappa_bounds(self.link, self.S)
        arms = self._repository_arms()
        low, high = np.inf, -np.inf
        for block in arms.rounds(horizon):
            slopes = self.link.slope(block @ arms.theta)
            low, high = min(low, float(slopes.min())), max(high, float(slopes.max()))
        return 1 / low, 1 / high

    def _need_repository(self, what: str) -> None:
        if self.generator != "repository":
            raise ValueError(f"{self.owner}.{what}: the paper's generator draws fresh arm sets per run; only the "
                             "repository's are fixed")

    def instances(self, runs: int, rng: np.random.Generator) -> GLMInstances:
        runs = integer(self.owner, "runs", runs, 0)
        if self.generator == "paper":
            direction = rng.standard_normal((runs, self.dimension))
            theta = self.S * direction / np.linalg.norm(direction, axis=-1, keepdims=True)
            return GLMInstances(theta, self.link, self.arms)
        # every block of runs (and every simulation of this instance in the process) reads the same arm sets
        arms = _shared_arms(self.arms, self.dimension, self.S, self.instance_seed)
        return GLMInstances(np.broadcast_to(arms.theta, (runs, self.dimension)).copy(), self.link, self.arms, arms)


class FixedArmInstances(GLMInstances):
    """The instances of a block of runs of a :class:`FixedArmsGLMBandit`: the same public arm set every round
    (a read-only view), so each run's ``means`` (runs, K) are fixed and the regret's range is known."""

    def __init__(self, theta: np.ndarray, link: Link, arm_set: np.ndarray):
        super().__init__(theta, link, len(arm_set))
        self._arm_set = arm_set
        self.means = link.mean(np.einsum("kd,rd->rk", arm_set, theta))

    def contexts(self, rng: np.random.Generator) -> np.ndarray:
        contexts = np.broadcast_to(self._arm_set, (self.runs, self.arms, self.dimension))
        self.round += 1
        if self.round == 1:  # the arms never change: kappa and kappa* are those of the first round
            slopes = self.link.slope(np.einsum("kd,rd->rk", self._arm_set, self.theta))
            self.kappa, self.kappa_star = 1 / slopes.min(axis=1), 1 / slopes.max(axis=1)
        return contexts


class FixedArmsGLMBandit:
    """A generalised linear bandit with a fixed, public arm set (the same K arms every round) and one theta*
    for every run, Bernoulli rewards with mean mu(<x, theta*>): the model of shuffle-glm's lower bound
    (Sec. 7, Lemma 7.1: "a fixed context set"). :func:`assouad_family` builds Appendix Q's hard instance."""

    owner = "FixedArmsGLMBandit"
    feedback = "bandit"

    def __init__(self, arm_set: np.ndarray, theta: np.ndarray, link: str = "logistic", label: str | None = None):
        arm_set = np.array(arm_set, dtype=float)
        theta = np.array(theta, dtype=float)
        if arm_set.ndim != 2 or arm_set.shape[0] < 2 or arm_set.shape[1] < 1:
            raise ValueError(f"{self.owner}: arm_set must have shape (K, d) with K >= 2, got {arm_set.shape}")
        if theta.shape != (arm_set.shape[1],) or not np.all(np.isfinite(theta)):
            raise ValueError(f"{self.owner}: theta must be a finite vector of dimension {arm_set.shape[1]}")
        if not np.all(np.isfinite(arm_set)) or np.linalg.norm(arm_set, axis=1).max() > 1 + 1e-12:
            raise ValueError(f"{self.owner}: arms must be finite and lie in the unit ball (Assumption 4.2)")
        arm_set.flags.writeable = theta.flags.writeable = False
        self.arm_set, self.theta = arm_set, theta
        self.arms, self.dimension = arm_set.shape
        self.link = _link(self.owner, link)
        self.name = label or (f"{self.owner}(K={self.arms}, d={self.dimension}, theta*={np.round(theta, 6).tolist()}, "
                              f"{self.link.name})")

    def __repr__(self) -> str:
        return self.name

    def instances(self, runs: int, rng: np.random.Generator) -> FixedArmInstances:
        runs = integer(self.owner, "runs", runs, 0)
        return FixedArmInstances(np.broadcast_to(self.theta, (runs, self.dimension)).copy(), self.link, self.arm_set)


class FiniteSetsInstances(GLMInstances):
    """The instances of a block of runs of a :class:`FiniteSetsGLMBandit`: each round every run draws the index
    of its context set from ``probabilities`` (inverse cdf of one uniform per run, from the context stream);
    ``last_index`` (runs,) is the index drawn at the latest round."""

    def __init__(self, theta: np.ndarray, link: Link, sets: np.ndarray, probabilities: np.ndarray):
        super().__init__(theta, link, sets.shape[1])
        self._sets, self._cumulative = sets, np.cumsum(probabilities)
        self.last_index = np.zeros(self.runs, dtype=np.int64)

    def _arm_sets(self, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The sets of ``count`` rounds at once: one uniform per round and run, in the per-round order."""
        u = rng.random((count, self.runs))
        index = np.minimum(np.searchsorted(self._cumulative, u * self._cumulative[-1], side="right"),
                           len(self._sets) - 1)
        self.last_index = index[-1]
        contexts = self._sets[index]
        return contexts, np.einsum("srkd,rd->srk", contexts, self.theta)


class FiniteSetsGLMBandit:
    """A generalised linear contextual bandit whose context sets are drawn from a finite family: every round
    each run draws X_i, i ~ ``probabilities`` (uniform unless given), from ``sets`` (n, K, d) (arms in the unit
    ball), and the reward of arm x is Bernoulli with mean mu(<x, theta*>), one theta* for every run. The finite
    context distribution D of Ruan et al.'s distributional optimal design (shuffle-glm Remark 4.4);
    :func:`spike_bandit` builds it on the spike family."""

    owner = "FiniteSetsGLMBandit"
    feedback = "bandit"
    #: its instances draw blocks of rounds (``draw_rounds``), for a contextual fast path
    blocks_of_rounds = True

    def __init__(self, sets: np.ndarray, theta: np.ndarray, link: str = "logistic",
                 probabilities: np.ndarray | None = None, label: str | None = None):
        sets = np.array(sets, dtype=float)
        theta = np.array(theta, dtype=float)
        if sets.ndim != 3 or sets.shape[0] < 1 or sets.shape[1] < 2 or sets.shape[2] < 1:
            raise ValueError(f"{self.owner}: sets must have shape (n, K, d) with n >= 1, K >= 2, got {sets.shape}")
        if not np.all(np.isfinite(sets)) or np.linalg.norm(sets, axis=2).max() > 1 + 1e-12:
            raise ValueError(f"{self.owner}: arms must be finite and lie in the unit ball (Assumption 4.2)")
        if theta.shape != (sets.shape[2],) or not np.all(np.isfinite(theta)):
            raise ValueError(f"{self.owner}: theta must be a finite vector of dimension {sets.shape[2]}")
        n = sets.shape[0]
        p = np.full(n, 1.0 / n) if probabilities is None else np.array(probabilities, dtype=float)
        if p.shape != (n,) or not np.all(np.isfinite(p)) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
            raise ValueError(f"{self.owner}: probabilities must be a distribution on the {n} sets")
        sets.flags.writeable = theta.flags.writeable = p.flags.writeable = False
        self.sets, self.theta, self.probabilities = sets, theta, p
        self.arms, self.dimension = sets.shape[1], sets.shape[2]
        self.link = _link(self.owner, link)
        self.name = label or (f"{self.owner}(n={n}, K={self.arms}, d={self.dimension}, "
                              f"theta*={np.round(theta, 6).tolist()}, {self.link.name})")

    def __repr__(self) -> str:
        return self.name

    def instances(self, runs: int, rng: np.random.Generator) -> FiniteSetsInstances:
        runs = integer(self.owner, "runs", runs, 0)
        return FiniteSetsInstances(np.broadcast_to(self.theta, (runs, self.dimension)).copy(), self.link, self.sets,
                                   self.probabilities)


def spike_bandit(d: int, s: float = 0.1, S: float = 1.0, link: str = "logistic") -> FiniteSetsGLMBandit:
    """The spike family X_j = {e_j} u {s e_k : k != j} (arm k of X_j is e_j if k = j, else s e_k; j uniform) with
    theta* = S e_1, a fixed unit vector times S (the choice: the first axis, so that on X_1 the unit arm is best
    by mu(S) - mu(0) and on every other set the spike s e_1 by mu(s S) - mu(0), and no design's favourite arm is
    the best one on every set)."""
    owner = "spike_bandit"
    d = integer(owner, "d", d, 2)
    s, S = positive(owner, "s", s), positive(owner, "S", S)
    if s > 1:
        raise ValueError(f"{owner}: the spikes s e_k must lie in the unit ball, got s={s!r}")
    sets = np.tile(s * np.eye(d), (d, 1, 1))
    sets[np.arange(d), np.arange(d), np.arange(d)] = 1.0
    theta = np.zeros(d)
    theta[0] = S
    return FiniteSetsGLMBandit(sets, theta, link, label=f"SpikeGLM(d={d}, s={s:g}, theta*={S:g} e_1, "
                                                        f"{_link(owner, link).name})")


def assouad_family(d: int, a: float, r: float, link: str = "logistic", theta0: np.ndarray | None = None
                   ) -> list[FixedArmsGLMBandit]:
    """shuffle-glm Appendix Q's hard instance: the public arm set {+r e_j, -r e_j : j in [d]} (arms ordered
    +r e_1, -r e_1, +r e_2, ...) and theta_V = theta_0 + a sum_j V_j e_j, one environment per V in {+1, -1}^d
    (V in lexicographic order with +1 first); theta_0 = 0 unless given (the spec's choice)."""
    owner = "assouad_family"
    d = integer(owner, "d", d, 1)
    a, r = positive(owner, "a", a), positive(owner, "r", r)
    if r > 1:
        raise ValueError(f"{owner}: the arms +-r e_j must lie in the unit ball, got r={r!r}")
    theta0 = np.zeros(d) if theta0 is None else np.asarray(theta0, dtype=float)
    arm_set = np.repeat(r * np.eye(d), 2, axis=0) * np.tile([1.0, -1.0], d)[:, None]
    out = []
    for signs in itertools.product((1, -1), repeat=d):
        V = np.array(signs, dtype=float)
        tag = "".join("+" if v > 0 else "-" for v in signs)
        out.append(FixedArmsGLMBandit(arm_set, theta0 + a * V, link,
                                      label=f"Assouad(d={d}, a={a:g}, r={r:g}, V={tag}, {_link(owner, link).name})"))
    return out


__all__ = ["FiniteSetsGLMBandit", "FiniteSetsInstances", "FixedArmInstances", "FixedArmsGLMBandit", "GLMBandit",
           "GLMInstances", "GLM_GENERATORS", "PlayedGLMRewards", "REPOSITORY_SEED", "RepositoryArms", "assouad_family",
           "kappa_bounds", "spike_bandit", "unit_ball"]
