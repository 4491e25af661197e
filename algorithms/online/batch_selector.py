"""private-online A6: the batch-to-online selector of Appendix H (Step 3 of the lower bound): given
an eps-DP online learner and a batch of m reward vectors, run the learner on them in order and
output the action with the largest cumulative weight, argmax_j sum_{t <= m} a_{j,t}.

The learners here play one action per round (a point mass a_t = e_{J_t}), so an action's cumulative
weight is how often it was played; ties go to the lowest action (the paper: "breaking ties
arbitrarily"). The output is a post-processing of the learner's decisions, so it is eps-DP whenever
the learner is; Appendix H calls it correct when the best action's cumulative weight is at least
0.51 m.

Vectorised over runs: run r's batch is ``batches[r]`` (shape (m, K)), the learner is started once for
all runs and fed round by round (a full-information learner sees the whole vector, a bandit learner
the played action's reward).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from dpaudit.bandits.policies import check_policy, feedback_of


class BatchToOnlineSelector:
    """Appendix H's selector around ``learner`` (a policy, :mod:`dpaudit.bandits.policies`; copied per call)."""

    owner: ClassVar[str] = "BatchToOnlineSelector"
    paper: ClassVar[str] = "private-online"
    source: ClassVar[str] = "Appendix H, Step 3 (A6)"

    def __init__(self, learner: Any):
        self.learner = check_policy(learner)
        self.name = f"BatchToOnlineSelector({getattr(learner, 'name', type(learner).__name__)})"

    def __repr__(self) -> str:
        return self.name

    def weights(self, batches: Any, rng: np.random.Generator) -> np.ndarray:
        """Each run's cumulative weights sum_t a_{j,t}: how often the learner played each action on the
        run's batch, shape (R, K)."""
        import copy

        x = np.asarray(batches, dtype=float)
        if x.ndim != 3 or 0 in x.shape[1:] or not np.isfinite(x).all() or (x < 0).any() or (x > 1).any():
            raise ValueError(f"{self.owner}: batches must be R batches of m reward vectors in [0, 1]^K, "
                             f"shape (R, m, K), got shape {x.shape}")
        runs, m, K = x.shape
        learner = copy.deepcopy(self.learner)
        learner.start(runs, K, m, rng)
        rows = np.arange(runs)
        counts = np.zeros((runs, K), dtype=np.int64)
        full = feedback_of(learner) == "full"
        for t in range(1, m + 1):
            played = np.asarray(learner.choose(t), dtype=np.int64)
            counts[rows, played] += 1
            vectors = x[:, t - 1]
            learner.observe(t, played, vectors if full else vectors[rows, played])
        return counts

    def select(self, batches: Any, rng: np.random.Generator) -> np.ndarray:
        """argmax_j of the cumulative weights, one action per run, shape (R,)."""
        return np.argmax(self.weights(batches, rng), axis=1)


__all__ = ["BatchToOnlineSelector"]
