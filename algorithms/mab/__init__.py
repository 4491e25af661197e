"""Multi-armed bandits with bandit feedback: DP-SE (differentially private successive elimination) as
a policy (:mod:`dpaudit.policies`), and one epoch of it as an auditable release."""

from .dp_se import DPSEEpoch, DPSuccessiveElimination, epoch_length

__all__ = ["DPSEEpoch", "DPSuccessiveElimination", "epoch_length"]
