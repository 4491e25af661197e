"""Subjects of audits: noise samplers with exact distributions and the mechanisms built on them.

Installed as ``dpaudit.mechanisms``. Every class documents the paper (or textbook) formula it
implements and any choice made where the source is silent.
"""

from .additive import AdditiveNoiseMechanism, DiscreteLaplaceMechanism, LaplaceMechanism
from .noise import DiscreteLaplace, Laplace

__all__ = ["AdditiveNoiseMechanism", "DiscreteLaplace", "DiscreteLaplaceMechanism", "Laplace", "LaplaceMechanism"]
