"""Bandit and online-learning algorithms, installed as ``dpaudit.algorithms``: their decision policies
(:mod:`dpaudit.bandits.policies`' protocol, vectorised over runs) and their parameters from the papers'
formulas. Their decisions are audited through :class:`dpaudit.bandits.transcripts.DecisionTranscript`; the
releases they rest on are in ``dpaudit.mechanisms``.

- :mod:`.online` (private-online): Follow-the-Noisy-Leader and naive FTNL, full information;
- :mod:`.mab` (dist-mab): Algorithm 1 (private batch-based successive elimination) over each of its
  batch protocols, and DP-SE (differentially private successive elimination), bandit feedback, with
  one DP-SE epoch's noisy means as a release;
- :mod:`.glm` (shuffle-glm): the parameters of Algorithms 1 and 2 and the private gradient-descent
  calls they make.

- :mod:`.counting` (concurrent-shuffle): private counters under continual observation run as
  policies on bit streams, with their error events read out, for Theorem 4.1's lower bound;

- :mod:`.environments`: the stochastic environments :func:`dpaudit.simulate` runs them against;
- :mod:`.registry`: :data:`ALGORITHMS`, every built-in algorithm by its stable name.

Imports only dpaudit's vocabulary (:mod:`dpaudit.core`, :mod:`dpaudit.stats`), the bandit protocols
(:mod:`dpaudit.bandits.policies`, :mod:`dpaudit.bandits.environments`) and ``dpaudit.mechanisms``, never the
engine, an auditor, the suites or the runner (``tests/test_layering.py``); the harness reaches it by registry
name.
"""

from .environments import (
    BernoulliBandit,
    BernoulliExperts,
    BetaBandit,
    GaussianBandit,
    GLMBandit,
    LinearBandit,
    ReturningUsers,
    UniformMeans,
)
from .linear import LinUCB
from .mab import BatchSuccessiveElimination, DPSEEpoch, DPSuccessiveElimination
from .online import FollowTheNoisyLeader
from .registry import ALGORITHMS

__all__ = ["ALGORITHMS", "BatchSuccessiveElimination",
           "BernoulliBandit", "BernoulliExperts", "BetaBandit", "DPSEEpoch", "DPSuccessiveElimination",
           "FollowTheNoisyLeader", "GLMBandit", "GaussianBandit", "LinUCB", "LinearBandit", "ReturningUsers",
           "UniformMeans"]
