"""Linear contextual bandits (shuffle-lcb and concurrent-shuffle): LinUCB as the batched framework of
shuffle-lcb's Algorithm 1, vectorised over runs."""

from .linucb import LinUCB

__all__ = ["LinUCB"]
