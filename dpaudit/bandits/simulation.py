"""The simulation engine: :func:`simulate` runs a policy (:mod:`dpaudit.bandits.policies`) against an
environment (:mod:`dpaudit.bandits.environments`) for R independent runs at once and records regret.

Runs are the leading array axis: the policy's state, the instances and the regret are arrays of
shape (runs, ...), and no Python loop runs over runs. Two paths give the same law of the trajectory:

- the *reference* path plays round by round: ``choose(t)``, then the round's reward vectors from the
  instances' ``rewards`` (every arm, every run, drawn every round), then ``observe``. Every policy
  has it; it is the definition the fast paths are tested against.
- the *fast* path, for policies that offer it, plays blocks: ``next_block(t)`` (``t`` the next round
  of each run, shape (runs,)) returns each run's arm and how many rounds it will keep playing it
  whatever it observes; the engine cuts the block at the next recorded round and at the horizon,
  draws the block's rewards from their exact law (:class:`~dpaudit.bandits.environments.Pulls`: a sum of l
  Bernoulli pulls is one Binomial(l, mu) draw) and calls ``observe_block(t, arms, pulls)``. Runs keep
  their own clocks, so a run never waits for another. Skipping rounds this way keeps the law of the
  trajectory exact: the policy commits to its arm before it sees the block, as it would round by
  round.

A contextual environment (one with ``dimension``) runs on the reference path: each round's contexts
come from their own stream, a policy with ``contextual = True`` chooses from them, and the regret is
against each round's best mean. Its fast path, for a policy with ``block_rounds`` (``play_rounds``, compiled
when numba is installed, else round by round on the same draws: the result does not depend on the extra) on an
environment with ``blocks_of_rounds``, hands the policy blocks of rounds that the instances draw at once
(``draw_rounds(count, rng, context_rng)``): the contexts as the per-round path draws them, and the rewards for the
played arm only, one number per round and run from the reward stream (the per-round path draws every arm's reward:
the same law of the trajectory, other values). The linear bandits and the GLM bandit
(:mod:`dpaudit.algorithms.environments`) have it.

Seeds: the runs are cut into blocks of :data:`RUN_BLOCK` (a fixed size, so results do not depend on
the number of workers); block b draws from the seed sequence ``SeedSequence(entropy,
spawn_key=root.spawn_key + (b,))``, which spawns four streams: the instances, the rewards, the
policy and the contexts. The environment never draws from the policy's stream, so two algorithms simulated with the
same seed face the same instances in every run, and on the reference path the same reward table;
fast paths draw the same law of rewards from the same reward stream.

Regret at the recorded rounds ``grid`` (log-spaced, always ending with the horizon):

- ``pseudo_regret``: sum over rounds of the gap mu* - mu_{a_t} of the arm played (for a full-information
  policy, the action played);
- ``regret``: the realised regret sum over rounds of mu* - r_t, r_t the reward collected (its expectation
  is the pseudo-regret; the papers' released code compares with the best arm's realised reward instead,
  which needs every arm's reward every round and has the same expectation).
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.seeding import SeedRecord, as_seed_sequence
from ..core.validation import integer
from .environments import Pulls, check_environment
from .policies import check_policy, feedback_of

#: runs per seed block: results depend on the seed and the number of runs, never on the workers
RUN_BLOCK = 50
#: rounds recorded by default: this many log-spaced rounds in [1, horizon], and the horizon
GRID_POINTS = 60
PATHS = ("auto", "fast", "reference")
#: most pulls handed to a policy in one block over all runs (so rewards drawn one by one fit in memory)
MAX_BLOCK_PULLS = 1 << 22
#: the readings of a SimulationResult's recorded rounds (its ``reading``)
ONE_RUN, PER_HORIZON = "one run", "per horizon"
#: ratio of consecutive rounds of :func:`horizon_grid`: a run per round costs about 3.4 times the horizon
HORIZON_GRID_RATIO = math.sqrt(2)


def regret_grid(horizon: int, points: int = GRID_POINTS) -> np.ndarray:
    """Log-spaced rounds in [1, horizon], distinct, always ending with ``horizon``."""
    horizon = integer("regret_grid", "horizon", horizon, 1)
    grid = np.unique(np.round(np.geomspace(1, horizon, max(2, points))).astype(np.int64))
    return np.union1d(grid, [horizon])


def horizon_grid(horizon: int) -> np.ndarray:
    """Rounds for a horizon-aware policy, which is simulated once per recorded round: the horizon and its
    successive divisions by :data:`HORIZON_GRID_RATIO` down to 2 (a policy started with horizon 1 is
    often undefined: beta = 1/T is no confidence level), so the runs together cost about 3.4 times the
    horizon (against :data:`GRID_POINTS` rounds of one run for an anytime policy), and the upper half of
    the grid's log-range, where a rate is fitted, holds about log2(horizon) rounds."""
    horizon = integer("horizon_grid", "horizon", horizon, 1)
    steps = int(math.floor(math.log(max(horizon, 2) / 2) / math.log(HORIZON_GRID_RATIO) + 1e-9))
    grid = np.round(horizon / HORIZON_GRID_RATIO ** np.arange(steps + 1)).astype(np.int64)
    return np.union1d(np.maximum(grid, min(horizon, 2)), [horizon])


@dataclass
class SimulationResult:
    """What :func:`simulate` returns: regret of every run at the recorded rounds, and how it was made."""

    algorithm: str
    environment: str
    horizon: int
    grid: np.ndarray  # (G,) recorded rounds
    pseudo_regret: np.ndarray  # (runs, G)
    regret: np.ndarray  # (runs, G)
    pulls: np.ndarray  # (runs, K) plays of each arm over the horizon
    means: np.ndarray  # (runs, K) each run's instance
    seed: SeedRecord
    path: str
    seconds: float
    notes: list[str] = field(default_factory=list)
    #: how the regret at the recorded rounds was read: ONE_RUN (every round of one run of ``horizon``
    #: rounds) or PER_HORIZON (round T from its own run of horizon T, :mod:`dpaudit.bandits.horizons`)
    reading: str = "one run"

    @property
    def runs(self) -> int:
        return int(self.pseudo_regret.shape[0])

    def mean(self, kind: str = "pseudo") -> np.ndarray:
        """The mean over runs at every recorded round (``kind`` "pseudo" or "realised")."""
        return self._values(kind).mean(axis=0)

    def stderr(self, kind: str = "pseudo") -> np.ndarray:
        """The standard error of :meth:`mean` (0 for a single run)."""
        values = self._values(kind)
        if self.runs < 2:
            return np.zeros(values.shape[1])
        return values.std(axis=0, ddof=1) / math.sqrt(self.runs)

    def _values(self, kind: str) -> np.ndarray:
        if kind not in ("pseudo", "realised"):
            raise ValueError(f"SimulationResult: kind must be 'pseudo' or 'realised', got {kind!r}")
        return self.pseudo_regret if kind == "pseudo" else self.regret

    def to_frame(self) -> Any:
        """The regret in tidy long form, a pandas DataFrame with one row per run and recorded round, run-major
        (run 0's rounds first): ``algorithm`` (str), ``run`` (int64, 0-based), ``round`` (int64, the recorded
        round of :attr:`grid`), ``pseudo_regret`` and ``regret`` (float64, cumulative at that round). With
        the ``per horizon`` reading (:attr:`reading`) round T's values come from its own runs of horizon T.
        Several algorithms' frames stack with ``pandas.concat`` (one ``algorithm`` column tells them apart)."""
        import pandas as pd

        runs, rounds = self.pseudo_regret.shape
        return pd.DataFrame({
            "algorithm": np.full(runs * rounds, self.algorithm, dtype=object),
            "run": np.repeat(np.arange(runs, dtype=np.int64), rounds),
            "round": np.tile(np.asarray(self.grid, dtype=np.int64), runs),
            "pseudo_regret": np.asarray(self.pseudo_regret, dtype=np.float64).reshape(-1),
            "regret": np.asarray(self.regret, dtype=np.float64).reshape(-1),
        })

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary: names, sizes, final regret mean and standard error, seconds."""
        return {"algorithm": self.algorithm, "environment": self.environment, "horizon": self.horizon,
                "runs": self.runs, "path": self.path, "seconds": self.seconds, "seed": self.seed.to_dict(),
                "final_pseudo_regret": float(self.mean()[-1]), "final_pseudo_regret_se": float(self.stderr()[-1]),
                "final_regret": float(self.mean("realised")[-1]), "reading": self.reading, "notes": list(self.notes)}

    def save(self, path: Any) -> None:
        """Write the arrays and the summary to one ``.npz`` file (:meth:`load` reads it back)."""
        import json

        np.savez_compressed(path, grid=self.grid, pseudo_regret=self.pseudo_regret, regret=self.regret,
                            pulls=self.pulls, means=self.means, summary=np.array(json.dumps(self.summary())))

    @classmethod
    def load(cls, path: Any) -> SimulationResult:
        import json

        with np.load(path) as data:
            info = json.loads(str(data["summary"]))
            seed = info["seed"]
            return cls(info["algorithm"], info["environment"], info["horizon"], data["grid"], data["pseudo_regret"],
                       data["regret"], data["pulls"], data["means"],
                       SeedRecord(seed["entropy"], seed["spawn_key"], seed["run_seed"], seed["claim_id"]),
                       info["path"], info["seconds"], info["notes"], info.get("reading", ONE_RUN))


def _name(obj: Any) -> str:
    name = getattr(obj, "name", None)
    return name if isinstance(name, str) else type(obj).__name__


def simulate(policy: Any, environment: Any, horizon: int, runs: int, seed: Any = None, *, grid: Any = None,
             path: str = "auto", workers: int = 1, progress: bool = False) -> SimulationResult:
    """Simulate ``runs`` independent runs of ``policy`` on ``environment`` over ``horizon`` rounds.

    ``policy`` follows :mod:`dpaudit.bandits.policies`' protocol (it is copied per block of runs, so the
    object passed in is left as it was); ``environment`` follows :mod:`dpaudit.bandits.environments`'. ``seed``
    is an int, a :class:`numpy.random.SeedSequence` or None (fresh entropy, recorded in the result).
    ``grid`` is the rounds to record (default :func:`regret_grid`; the horizon is always added).
    ``path``: "fast" (the policy's block path; refused if it has none), "reference" (round by round)
    or "auto" (fast when available). ``workers`` > 1 runs blocks of :data:`RUN_BLOCK` runs in parallel
    processes with the same result (the policy and the environment are pickled to them: classes
    defined in ``__main__`` travel by value, others must be importable there under their module's
    name). ``progress`` shows a bar over blocks.
    """
    check_policy(policy)
    check_environment(environment)
    owner = "simulate"
    horizon = integer(owner, "horizon", horizon, 1)
    runs = integer(owner, "runs", runs, 1)
    workers = integer(owner, "workers", workers, 1)
    if path not in PATHS:
        raise ValueError(f"{owner}: path must be one of {', '.join(PATHS)}, got {path!r}")
    contextual = getattr(environment, "dimension", None) is not None
    if getattr(policy, "contextual", False) and not contextual:
        raise ValueError(f"{owner}: {_name(policy)} chooses from contexts, but {_name(environment)} has none (use a "
                         "contextual environment such as LinearBandit)")
    if contextual:
        fast = (bool(getattr(policy, "block_rounds", False)) and callable(getattr(policy, "play_rounds", None))
                and bool(getattr(environment, "blocks_of_rounds", False)))
        if path == "fast" and not fast:
            raise ValueError(f"{owner}: {_name(policy)} on {_name(environment)} has no fast path (a contextual one "
                             "needs a policy that plays blocks of rounds, such as LinUCB, on an environment that "
                             "draws its rounds in blocks, such as LinearBandit)")
    else:
        fast = callable(getattr(policy, "next_block", None)) and callable(getattr(policy, "observe_block", None))
        if path == "fast" and not fast:
            raise ValueError(f"{owner}: {_name(policy)} has no fast path (next_block and observe_block)")
    use_fast = fast and path != "reference"
    if feedback_of(policy) == "full" and environment.feedback != "full":
        raise ValueError(f"{owner}: {_name(policy)} takes full-information feedback, but {_name(environment)} is a "
                         "bandit environment (use an experts environment such as BernoulliExperts)")
    rounds = _grid(grid, horizon)
    root = as_seed_sequence(seed)
    blocks = [(b * RUN_BLOCK, min(runs, (b + 1) * RUN_BLOCK)) for b in range(math.ceil(runs / RUN_BLOCK))]
    sequences = [np.random.SeedSequence(root.entropy, spawn_key=tuple(root.spawn_key) + (b,))
                 for b in range(len(blocks))]
    tasks = [(policy, environment, horizon, hi - lo, rounds, seq, use_fast) for (lo, hi), seq in zip(blocks, sequences)]
    start = time.perf_counter()
    parts = _map(_simulate_block, tasks, workers, progress, f"{_name(policy)} on {_name(environment)}")
    seconds = time.perf_counter() - start
    pseudo, real, pulls, means = (np.concatenate([p[i] for p in parts]) for i in range(4))
    # the policy's notes (e.g. a parameter its theorem does not cover), then what its copies noted while
    # they ran (e.g. a released matrix a private algorithm could not invert), each once
    notes = list(dict.fromkeys([str(note) for note in getattr(policy, "notes", ())]
                               + [note for part in parts for note in part[4]]))
    return SimulationResult(_name(policy), _name(environment), horizon, rounds, pseudo, real, pulls, means,
                            SeedRecord.of(root), "fast" if use_fast else "reference", seconds, notes)


def _grid(grid: Any, horizon: int) -> np.ndarray:
    if grid is None:
        return regret_grid(horizon)
    values = np.asarray(grid)
    if values.ndim != 1 or values.size == 0 or values.dtype.kind not in "iu":
        raise ValueError(f"simulate: grid must be a non-empty list of rounds (integers), got {grid!r}")
    if values.min() < 1 or values.max() > horizon:
        raise ValueError(f"simulate: grid rounds must lie in 1..{horizon}, got {values.min()}..{values.max()}")
    return np.union1d(values.astype(np.int64), [horizon])


def _map(fn: Any, tasks: list[tuple], workers: int, progress: bool, label: str) -> list[Any]:
    """``[fn(*task) for task in tasks]``, in parallel processes when ``workers`` > 1, in order."""
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc=label, unit="block")
    try:
        if workers == 1 or len(tasks) == 1:
            out = []
            for task in tasks:
                out.append(fn(*task))
                if bar is not None:
                    bar.update()
            return out
        from joblib import Parallel, delayed

        out = []
        for part in Parallel(n_jobs=min(workers, len(tasks)), return_as="generator")(delayed(fn)(*t) for t in tasks):
            out.append(part)
            if bar is not None:
                bar.update()
        return out
    finally:
        if bar is not None:
            bar.close()


def _simulate_block(policy: Any, environment: Any, horizon: int, runs: int, rounds: np.ndarray,
                    seq: np.random.SeedSequence, fast: bool) -> tuple[np.ndarray, ...]:
    # the fourth stream (contexts) comes after the other three, so adding it left their draws unchanged
    instance_rng, reward_rng, policy_rng, context_rng = (np.random.default_rng(s) for s in seq.spawn(4))
    instances = environment.instances(runs, instance_rng)
    means = np.asarray(instances.means if instances.means is not None else np.full((runs, environment.arms), np.nan),
                       dtype=float)
    if means.shape != (runs, environment.arms):
        raise ValueError(f"simulate: {_name(environment)} gave means of shape {means.shape}, expected "
                         f"{(runs, environment.arms)}")
    policy = copy.deepcopy(policy)
    policy.start(runs, environment.arms, horizon, policy_rng)
    if getattr(environment, "dimension", None) is not None:
        if fast:
            pseudo, real, pulls = _run_contextual_blocks(policy, instances, runs, environment.arms, horizon, rounds,
                                                         reward_rng, context_rng, environment.dimension)
        else:
            pseudo, real, pulls = _run_contextual(policy, instances, runs, environment.arms, horizon, rounds,
                                                  reward_rng, context_rng)
    else:
        run = _run_fast if fast else _run_reference
        pseudo, real, pulls = run(policy, instances, means, horizon, rounds, reward_rng)
    return pseudo, real, pulls, means, [str(note) for note in getattr(policy, "notes", ())]


def _checked_arms(played: Any, runs: int, arms: int, where: str, policy: Any, active: np.ndarray | None = None
                  ) -> np.ndarray:
    """The policy's arms, or an error naming the round and the run that went wrong. Called every round: the
    usual case (integer arms in range) costs two reductions, and the error's wording is built only on error."""
    out = np.asarray(played)
    if out.shape != (runs,):
        raise ValueError(f"simulate: {_name(policy)} returned arms of shape {out.shape} {where}, expected ({runs},)")
    if out.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(out) | (out != np.round(out)))
        if bad.size:
            raise ValueError(f"simulate: {_name(policy)} returned {out[bad[0]].item()!r} for run {bad[0]} {where}; "
                             f"arms are integers in [0, {arms})")
        out = out.astype(np.int64)
    elif out.dtype.kind not in "iu":
        raise ValueError(f"simulate: {_name(policy)} returned arms of dtype {out.dtype} {where}; arms are integers")
    check = out if active is None else np.where(active, out, 0)
    if runs and (check.min() < 0 or check.max() >= arms):
        bad = np.flatnonzero((check < 0) | (check >= arms))
        raise ValueError(f"simulate: {_name(policy)} played arm {out[bad[0]]} in run {bad[0]} {where}; arms are "
                         f"0..{arms - 1}")
    return out.astype(np.int64, copy=False)


class _Regret:
    """Every run's cumulative pseudo-regret, realised regret and pulls, and their values at the
    recorded rounds."""

    def __init__(self, means: np.ndarray, rounds: np.ndarray):
        runs, arms = means.shape
        self.best = means.max(axis=1)
        self.gaps = self.best[:, None] - means
        self.index = np.arange(runs)
        self.pseudo, self.real = np.zeros((runs, rounds.size)), np.zeros((runs, rounds.size))
        self.pulls = np.zeros((runs, arms), dtype=np.int64)
        self.cum_pseudo, self.cum_real = np.zeros(runs), np.zeros(runs)

    def add(self, played: np.ndarray, counts: Any, collected: np.ndarray) -> None:
        """Run r played ``played[r]`` ``counts[r]`` times and collected ``collected[r]`` in rewards."""
        self.cum_pseudo += self.gaps[self.index, played] * counts
        self.cum_real += self.best * counts - collected
        self.pulls[self.index, played] += counts  # one row per run: no repeated index

    def add_round(self, played: np.ndarray, expected: np.ndarray, collected: np.ndarray) -> None:
        """One round of a contextual run: ``expected`` (runs, K) are this round's mean rewards."""
        best = expected.max(axis=1)
        self.cum_pseudo += best - expected[self.index, played]
        self.cum_real += best - collected
        self.pulls[self.index, played] += 1

    def add_rounds(self, t: int, played: np.ndarray, expected: np.ndarray, collected: np.ndarray,
                   rounds: np.ndarray, column: int) -> int:
        """Rounds t .. t + count - 1 of every contextual run at once, ``played`` and ``collected`` (count, runs),
        ``expected`` the rounds' mean rewards, (runs, K) for a fixed arm set or (count, runs, K): each round's gap
        added to the running totals in order, as :meth:`add_round` adds it (a cumulative sum down the block, the
        total first), and the recorded ``rounds`` from ``column`` on that fall in the block recorded. Returns the
        next column to record."""
        count, runs = played.shape
        arms = self.pulls.shape[1]
        if expected.ndim == 2:  # a fixed arm set: the same means every round
            best = expected.max(axis=1)
            gaps = best - expected[self.index, played]
        else:
            best = expected.max(axis=2)
            gaps = best - np.take_along_axis(expected, played[..., None], axis=2)[..., 0]
        losses = best - collected
        gaps[0] += self.cum_pseudo
        losses[0] += self.cum_real
        cum_pseudo, cum_real = np.cumsum(gaps, axis=0), np.cumsum(losses, axis=0)
        while column < rounds.size and rounds[column] < t + count:
            self.pseudo[:, column] = cum_pseudo[rounds[column] - t]
            self.real[:, column] = cum_real[rounds[column] - t]
            column += 1
        self.cum_pseudo, self.cum_real = cum_pseudo[-1].copy(), cum_real[-1].copy()
        self.pulls += np.bincount((self.index * arms + played).ravel(), minlength=runs * arms).reshape(runs, arms)
        return column

    def record(self, rows: Any, columns: Any) -> None:
        self.pseudo[rows, columns] = self.cum_pseudo[rows]
        self.real[rows, columns] = self.cum_real[rows]

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.pseudo, self.real, self.pulls


def _run_reference(policy: Any, instances: Any, means: np.ndarray, horizon: int, rounds: np.ndarray,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    runs, arms = means.shape
    full = feedback_of(policy) == "full"
    regret = _Regret(means, rounds)
    column = 0
    for t in range(1, horizon + 1):
        played = _checked_arms(policy.choose(t), runs, arms, f"at round {t}", policy)
        row = np.asarray(instances.rewards(rng), dtype=float)
        reward = row[regret.index, played]
        policy.observe(t, played, row if full else reward)
        regret.add(played, 1, reward)
        if t == rounds[column]:
            regret.record(slice(None), column)
            column += 1
    return regret.result()


def _run_contextual(policy: Any, instances: Any, runs: int, arms: int, horizon: int, rounds: np.ndarray,
                    rng: np.random.Generator, context_rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Round by round with contexts: the round's contexts (runs, K, d) from their own stream, the policy's
    choice (given the contexts if it says ``contextual = True``), the rewards, and the regret against
    this round's best mean."""
    regret = _Regret(np.zeros((runs, arms)), rounds)
    given = bool(getattr(policy, "contextual", False))
    column = 0
    for t in range(1, horizon + 1):
        contexts = instances.contexts(context_rng)
        chosen = policy.choose(t, contexts) if given else policy.choose(t)
        played = _checked_arms(chosen, runs, arms, f"at round {t}", policy)
        row = np.asarray(instances.rewards(rng, contexts), dtype=float)
        reward = row[regret.index, played]
        policy.observe(t, played, reward)
        regret.add_round(played, instances.expected(contexts), reward)
        if t == rounds[column]:
            regret.record(slice(None), column)
            column += 1
    return regret.result()


#: most context values (runs x arms x dimension per round) in one block of rounds of a contextual fast path
MAX_BLOCK_CONTEXTS = 1 << 22
#: most rounds in one block of a contextual fast path (bounds its per-round arrays)
MAX_BLOCK_ROUNDS = 4096


def _run_contextual_blocks(policy: Any, instances: Any, runs: int, arms: int, horizon: int, rounds: np.ndarray,
                           rng: np.random.Generator, context_rng: np.random.Generator, dimension: int
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The contextual fast path: blocks of rounds, each drawn at once by the instances (``draw_rounds``: the
    contexts as the per-round path draws them, the rewards for the played arms only) and played by the policy's
    ``play_rounds``; the regret of each round added as the per-round path adds it (:meth:`_Regret.add_rounds`)."""
    regret = _Regret(np.zeros((runs, arms)), rounds)
    per_round = max(1, runs * arms * int(dimension))
    t, column = 1, 0
    while t <= horizon:
        count = min(horizon - t + 1, MAX_BLOCK_ROUNDS, max(1, MAX_BLOCK_CONTEXTS // per_round))
        contexts, draws = instances.draw_rounds(count, rng, context_rng)
        played, collected = policy.play_rounds(t, contexts, draws)
        played = _checked_block_arms(played, count, runs, arms, t, policy)
        expected = np.asarray(instances.expected(contexts), dtype=float)
        column = regret.add_rounds(t, played, expected, np.asarray(collected, dtype=float), rounds, column)
        t += count
    return regret.result()


def _checked_block_arms(played: Any, count: int, runs: int, arms: int, t: int, policy: Any) -> np.ndarray:
    """A block's arms (count, runs) from ``play_rounds``, or the error :func:`_checked_arms` gives for the first
    round that went wrong."""
    out = np.asarray(played)
    if out.shape != (count, runs):
        raise ValueError(f"simulate: {_name(policy)} played arms of shape {out.shape} in the block of rounds {t}.."
                         f"{t + count - 1}, expected ({count}, {runs})")
    if out.dtype.kind in "iu" and (not out.size or (out.min() >= 0 and out.max() < arms)):
        return out.astype(np.int64, copy=False)
    for s in range(count):  # name the round
        _checked_arms(out[s], runs, arms, f"at round {t + s}", policy)
    return out.astype(np.int64)


def _run_fast(policy: Any, instances: Any, means: np.ndarray, horizon: int, rounds: np.ndarray,
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    runs, arms = means.shape
    full = feedback_of(policy) == "full"
    regret = _Regret(means, rounds)
    t = np.ones(runs, dtype=np.int64)  # each run's next round
    column = np.zeros(runs, dtype=np.int64)  # each run's next recorded round
    name = _name(policy)
    while True:
        active = t <= horizon
        if not active.any():
            break
        first = int(t[active].min())
        played, lengths = policy.next_block(t.copy())
        played = _checked_arms(played, runs, arms, f"in the block starting at round {first} (or later)", policy,
                               active)
        played = np.where(active, played, 0)  # a finished run's arm is never read
        lengths = np.asarray(lengths)
        if lengths.shape != (runs,) or lengths.dtype.kind not in "iu" or (lengths[active] < 1).any():
            raise ValueError(f"simulate: {name}.next_block must give block lengths >= 1 of shape ({runs},), got "
                             f"{lengths!r}")
        until = rounds[np.minimum(column, rounds.size - 1)]  # cut at the next recorded round
        counts = np.minimum(np.minimum(lengths, until - t + 1), max(1, MAX_BLOCK_PULLS // runs))
        counts = np.where(active, counts, 0).astype(np.int64)  # a finished run pulls nothing, collects 0
        block = Pulls(instances, played, counts, rng, full)
        policy.observe_block(t.copy(), played, block)
        sums = block.sums
        regret.add(played, counts, sums[regret.index, played] if full else sums)
        t += counts
        rows = np.flatnonzero(active & (t - 1 == until))
        regret.record(rows, column[rows])
        column[rows] += 1
    return regret.result()


__all__ = ["GRID_POINTS", "HORIZON_GRID_RATIO", "ONE_RUN", "PATHS", "PER_HORIZON", "RUN_BLOCK", "SimulationResult",
           "horizon_grid", "regret_grid", "simulate"]
