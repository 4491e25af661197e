"""Bandit and online-learning algorithms, installed as ``dpaudit.algorithms``: their decision policies
(:mod:`dpaudit.policies`' protocol, vectorised over runs) and their parameters from the papers'
formulas. Their decisions are audited through :class:`dpaudit.transcripts.DecisionTranscript`; the
releases they rest on are in ``dpaudit.mechanisms``.

- :mod:`.online` (private-online): Follow-the-Noisy-Leader and naive FTNL, full information;
- :mod:`.mab`: DP-SE (differentially private successive elimination), bandit feedback, and one
  epoch's noisy means as a release;
- :mod:`.glm` (shuffle-glm): the parameters of Algorithms 1 and 2 and the private gradient-descent
  calls they make.

The simulation engine that runs policies against environments (and regret audits) is to come.
"""

from .mab import DPSEEpoch, DPSuccessiveElimination
from .online import FollowTheNoisyLeader

__all__ = ["DPSEEpoch", "DPSuccessiveElimination", "FollowTheNoisyLeader"]
