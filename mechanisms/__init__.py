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

The modules live in families, one subpackage each, as ``dpaudit.algorithms``' do:

- :mod:`.noise`: the noise laws, samplers with exact distributions;
- :mod:`.classic`: textbook mechanisms; :mod:`.shuffle`: shuffle-model protocols; :mod:`.counters`: trees and
  counters under continual observation; :mod:`.distributed`: dist-mab's distributed sums; :mod:`.training`:
  DP-SGD and training-time releases; :mod:`.glm`: shuffle-glm's releases (P_GD, its views, the trees, the links);
- :mod:`.released_code`: the authors' released code where it departs from the papers.

The shared floor stays here, at the top: :mod:`.base` (the release base classes), :mod:`.enclosures` and
:mod:`.piecewise` (exact finite laws from rigorous enclosures; exact piecewise-exponential integrals) and
:mod:`.accounting` (advanced composition). This module re-exports the public names above from their families;
the families' packages re-export nothing, except :mod:`.shuffle`, which keeps the names of the module whose path
it took.

Imports only dpaudit's vocabulary (:mod:`dpaudit.core`, :mod:`dpaudit.stats`) and the bandit protocols, never an
auditor, the engine, the suites or the runner (``tests/test_layering.py``); the algorithms and the suites import it.
Between the families: the floor imports no family; the noise laws the floor; the textbook mechanisms those two;
the shuffle protocols, the distributed sums and training those three; the counters those and the shuffle
protocols; shuffle-glm those and the counters; the released-code variants any family they vary, and no family
imports them (``FAMILIES`` in ``tests/test_layering.py``). The old flat paths (``dpaudit.mechanisms.tree``, ...)
still import, as the same modules (``dpaudit/_compat.py``).
"""

from .classic.additive import AdditiveNoiseMechanism, DiscreteLaplaceMechanism, LaplaceMechanism, StaircaseMechanism
from .classic.bounded_laplace import BoundedDomainLaplaceMechanism, ClampedLaplaceMechanism
from .classic.clipped_sum import ClippedSum
from .classic.composition import RepeatedRelease
from .classic.folded import FoldedGeometricMechanism, FoldedLaplaceMechanism
from .classic.gaussian import GaussianMechanism, ZCDPGaussianMechanism, analytic_gaussian_delta, classic_sigma
from .classic.geometric import TruncatedGeometric
from .classic.histogram import NoisyHistogram
from .classic.noisy_max import ExponentialMechanism, ReportNoisyMax, ReportNoisyMaxWithValue
from .classic.randomized_response import KaryRandomizedResponse, RandomizedResponse
from .classic.sparse_vector import SparseVector, above_threshold
from .counters.central_tree import CentralTreeMechanism, ReturningUserStream
from .counters.tree import BinaryTreeMechanism
from .distributed.distributed_sum import DistributedSum, LocalModularRandomizer
from .noise import DiscreteLaplace, Laplace
from .shuffle.shuffled_response import ShuffledRandomizedResponse, fmt_shuffle_epsilon

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
