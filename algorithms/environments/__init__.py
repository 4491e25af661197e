"""Stochastic environments for :func:`dpaudit.simulate` (:mod:`dpaudit.environments`' protocol):
K-armed bandits with Bernoulli, clipped Gaussian and Beta rewards, and Bernoulli experts (full
information, the DTOL setting of private-online Section 5). Means are fixed, or drawn per run by an
instance sampler such as :class:`UniformMeans` (dist-mab's U[0.5 - gap/2, 0.5 + gap/2] per arm). And
linear contextual bandits (:class:`LinearBandit`, shuffle-lcb's instance generators) and generalised
linear ones (:class:`GLMBandit`, shuffle-glm's logistic and probit bandits), whose contexts reach a
contextual policy as ``choose(t, contexts)``."""

from .bandits import (
    BernoulliBandit,
    BernoulliExperts,
    BetaBandit,
    FixedMeans,
    GaussianBandit,
    UniformMeans,
)
from .glm import GLMBandit, kappa_bounds
from .linear import LinearBandit

__all__ = ["BernoulliBandit", "BernoulliExperts", "BetaBandit", "FixedMeans", "GLMBandit", "GaussianBandit",
           "LinearBandit", "UniformMeans", "kappa_bounds"]
