"""Stochastic environments for :func:`dpaudit.simulate` (:mod:`dpaudit.environments`' protocol):
K-armed bandits with Bernoulli, clipped Gaussian and Beta rewards, and Bernoulli experts (full
information, the DTOL setting of private-online Section 5). Means are fixed, or drawn per run by an
instance sampler such as :class:`UniformMeans` (dist-mab's U[0.5 - gap/2, 0.5 + gap/2] per arm)."""

from .bandits import (
    BernoulliBandit,
    BernoulliExperts,
    BetaBandit,
    FixedMeans,
    GaussianBandit,
    UniformMeans,
)

__all__ = ["BernoulliBandit", "BernoulliExperts", "BetaBandit", "FixedMeans", "GaussianBandit", "UniformMeans"]
