"""private-online's algorithms as policies (:mod:`dpaudit.bandits.policies`): the bandit algorithms UCB1 (the
non-private reference), Anytime-Lazy-UCB (Algorithm 1) and Hybrid-UCB (Algorithm 4); the
full-information learners Follow-the-Noisy-Leader, naive FTNL and Follow-the-Leader; and Appendix
H's batch-to-online selector."""

from .batch_selector import BatchToOnlineSelector
from .ftl import FollowTheLeader
from .ftnl import SCALES, VARIANTS, FollowTheNoisyLeader
from .hybrid_ucb import HybridUCB
from .lazy_ucb import AnytimeLazyUCB
from .ucb import UCB1

__all__ = ["SCALES", "UCB1", "VARIANTS", "AnytimeLazyUCB", "BatchToOnlineSelector", "FollowTheLeader",
           "FollowTheNoisyLeader", "HybridUCB"]
