"""Noise distributions: vectorised seeded samplers with exact distributions.

Every law here has ``sample(size, rng)``, ``cdf``/``sf``, ``mean``/``var``, ``support``, ``lattice``,
``logpmf`` (integer laws) or ``logpdf`` (continuous ones), and its cumulant generating function
``cgf`` on ``cgf_domain``, so the tail and conformance auditors can use it exactly
(``dpaudit.audit_tail(law, ...)``, ``dpaudit.audit_sampler(law.sample, law)``). Integer laws also
give their pmf table (``table()``) and a ``FiniteDistribution`` for the exact privacy auditor
(``finite_distribution()``); :func:`convolve` and :func:`iid_sum` give exact laws of sums.

:mod:`~dpaudit.mechanisms.noise.constructions` holds plain samplers ``f(size, rng, ...)`` of the
constructions dist-mab prints (shares summed per user, Gamma-Poisson, differences of geometrics or
Poissons), to audit against these laws. Randomized response (binary and k-ary) lives in
:mod:`dpaudit.mechanisms.classic.randomized_response`.
"""

from ._lattice import FiniteIntegerLaw, IndependentSum, IntegerLaw, convolve, iid_sum
from .binomial import (
    BernoulliExp,
    Binomial,
    ModularReduction,
    RandomizedRounding,
    SymmetricBinomial,
)
from .constructions import (
    gamma_poisson,
    geometric_difference,
    poisson_difference,
    polya_shares_sum,
    skellam_shares_sum,
)
from .gaussian import DiscreteGaussian, Gaussian
from .laplace import DiscreteLaplace, Laplace, LaplaceSum
from .mixtures import IntegerPlusContinuous
from .polya import Geometric, Polya, PolyaDifference
from .skellam import Skellam
from .staircase import Staircase

__all__ = [
    "BernoulliExp", "Binomial", "DiscreteGaussian", "DiscreteLaplace", "FiniteIntegerLaw", "Gaussian", "IndependentSum",
    "IntegerPlusContinuous", "Geometric", "IntegerLaw", "Laplace", "LaplaceSum", "ModularReduction", "Polya",
    "PolyaDifference", "RandomizedRounding", "Skellam", "Staircase", "SymmetricBinomial", "convolve", "gamma_poisson",
    "geometric_difference", "iid_sum", "poisson_difference", "polya_shares_sum", "skellam_shares_sum",
]
