"""Stochastic environments for :func:`dpaudit.simulate` (:mod:`dpaudit.bandits.environments`' protocol):
K-armed bandits with Bernoulli, clipped Gaussian and Beta rewards, and Bernoulli experts (full
information, the DTOL setting of private-online Section 5). Means are fixed, or drawn per run by an
instance sampler such as :class:`UniformMeans` (dist-mab's U[0.5 - gap/2, 0.5 + gap/2] per arm). And
linear contextual bandits (:class:`LinearBandit`, shuffle-lcb's instance generators), returning users
(:class:`ReturningUsers`, shuffle-lcb Sec. 4, each with her own arm set) and generalised linear bandits
(:class:`GLMBandit`, shuffle-glm's logistic and probit bandits), whose contexts reach a contextual
policy as ``choose(t, contexts)``. And :class:`RepeatedBitStream`, a member of concurrent-shuffle
Theorem 4.1's hard family of bit streams, for counters run as policies (:mod:`dpaudit.algorithms.counting`)."""

from .bandits import (
    BernoulliBandit,
    BernoulliExperts,
    BetaBandit,
    FixedMeans,
    GaussianBandit,
    UniformMeans,
)
from .glm import FixedArmsGLMBandit, GLMBandit, assouad_family, kappa_bounds
from .linear import GivenLinearBandit, LinearBandit, ReturningUsers
from .streams import RepeatedBitStream

__all__ = ["BernoulliBandit", "BernoulliExperts", "BetaBandit", "FixedArmsGLMBandit", "FixedMeans", "GLMBandit",
           "GaussianBandit", "GivenLinearBandit", "LinearBandit", "RepeatedBitStream", "ReturningUsers", "UniformMeans",
           "assouad_family", "kappa_bounds"]
