"""Multi-armed bandits with bandit feedback: dist-mab's Algorithm 1 (private batch-based successive
elimination) over each of its batch protocols, and DP-SE (differentially private successive
elimination) as policies (:mod:`dpaudit.bandits.policies`), with one DP-SE epoch as an auditable release."""

from .batch_se import PROTOCOLS, BatchSuccessiveElimination, batch_size
from .dp_se import DPSEEpoch, DPSuccessiveElimination, epoch_length

__all__ = ["PROTOCOLS", "BatchSuccessiveElimination", "DPSEEpoch", "DPSuccessiveElimination", "batch_size",
           "epoch_length"]
