"""Online learning with full information (private-online): Follow-the-Noisy-Leader and its naive
variant, as policies (:mod:`dpaudit.policies`)."""

from .ftnl import VARIANTS, FollowTheNoisyLeader

__all__ = ["VARIANTS", "FollowTheNoisyLeader"]
