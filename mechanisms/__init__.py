"""Subjects of audits: noise samplers with exact distributions and the mechanisms built on them.

Installed as ``dpaudit.mechanisms``. Every class documents the paper (or textbook) formula it
implements and any choice made where the source is silent, and derives its true privacy.

- additive noise: :class:`LaplaceMechanism`, :class:`DiscreteLaplaceMechanism`, :class:`StaircaseMechanism`,
  :class:`GaussianMechanism` (classic calibration), :class:`ZCDPGaussianMechanism`, :class:`ClippedSum`,
  :class:`NoisyHistogram`, :class:`RepeatedRelease` (double spending);
- bounded outputs: :class:`ClampedLaplaceMechanism`, :class:`BoundedDomainLaplaceMechanism`,
  :class:`FoldedLaplaceMechanism`, :class:`FoldedGeometricMechanism`;
- selection: :class:`ReportNoisyMax`, :class:`ReportNoisyMaxWithValue`,
  :class:`ExponentialMechanism`, :class:`SparseVector`;
- continual release: :class:`BinaryTreeMechanism` (the binary mechanism's noisy dyadic p-sums);
  :class:`CentralTreeMechanism`, :class:`ReturningUserStream` (shuffle-lcb's central JDP tree baselines);
- finite outputs: :class:`TruncatedGeometric`, :class:`RandomizedResponse`,
  :class:`KaryRandomizedResponse`, :class:`ShuffledRandomizedResponse`.

Imports only dpaudit's vocabulary (:mod:`dpaudit.core`, :mod:`dpaudit.stats`) and the bandit protocols, never an
auditor, the engine, the suites or the runner (``tests/test_layering.py``); the algorithms and the suites import it.
"""

from .additive import AdditiveNoiseMechanism, DiscreteLaplaceMechanism, LaplaceMechanism, StaircaseMechanism
from .bounded_laplace import BoundedDomainLaplaceMechanism, ClampedLaplaceMechanism
from .central_tree import CentralTreeMechanism, ReturningUserStream
from .clipped_sum import ClippedSum
from .composition import RepeatedRelease
from .distributed_sum import DistributedSum, LocalModularRandomizer
from .folded import FoldedGeometricMechanism, FoldedLaplaceMechanism
from .gaussian import GaussianMechanism, ZCDPGaussianMechanism, analytic_gaussian_delta, classic_sigma
from .geometric import TruncatedGeometric
from .histogram import NoisyHistogram
from .noise import DiscreteLaplace, Laplace
from .noisy_max import ExponentialMechanism, ReportNoisyMax, ReportNoisyMaxWithValue
from .randomized_response import KaryRandomizedResponse, RandomizedResponse
from .shuffle import ShuffledRandomizedResponse, fmt_shuffle_epsilon
from .sparse_vector import SparseVector, above_threshold
from .tree import BinaryTreeMechanism

__all__ = [
    "BinaryTreeMechanism",
    "CentralTreeMechanism", "ReturningUserStream",
    "DistributedSum",
    "LocalModularRandomizer",
    "AdditiveNoiseMechanism", "BoundedDomainLaplaceMechanism", "ClampedLaplaceMechanism", "ClippedSum",
    "DiscreteLaplace", "DiscreteLaplaceMechanism", "ExponentialMechanism", "FoldedGeometricMechanism",
    "FoldedLaplaceMechanism",
    "GaussianMechanism", "KaryRandomizedResponse", "Laplace", "LaplaceMechanism", "NoisyHistogram",
    "RandomizedResponse", "RepeatedRelease", "ReportNoisyMax", "ReportNoisyMaxWithValue", "ShuffledRandomizedResponse",
    "SparseVector", "StaircaseMechanism", "TruncatedGeometric",
    "ZCDPGaussianMechanism", "above_threshold", "analytic_gaussian_delta",
    "classic_sigma", "fmt_shuffle_epsilon",
]
