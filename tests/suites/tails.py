"""Tail claims in a suite: exact (scipy laws) and statistical (a plain sampler)."""

import math

import numpy as np
from scipy import stats

from dpaudit import SubGaussian, TailBound
from dpaudit.suite import Suite

suite = Suite("testing-tails", "tail claims")


def gaussian_sampler(size, rng):
    return rng.normal(0.0, 1.0, size)


def hoeffding(t):
    return 2 * np.exp(-2 * t**2 / 10)


suite.tail("testing-tails/binomial-hoeffding", subject=stats.binom(10, 0.5),
           claim=TailBound(hoeffding, "2 exp(-2 t^2 / 10)", centred=True))
suite.tail("testing-tails/binomial-subgaussian", subject=stats.binom(10, 0.5),
           claim=SubGaussian(1.01 * math.sqrt(10) / 2, centred=True))
suite.tail("testing-tails/binomial-too-small", subject=stats.binom(10, 0.5),
           claim=SubGaussian(0.9 * math.sqrt(10) / 2, centred=True), expected="refuted",
           reason="the variance proxy is below the variance 2.5", footing="as printed")
suite.tail("testing-tails/gaussian-sampler", subject=gaussian_sampler,
           claim=TailBound(lambda t: 2 * np.exp(-(t**2) / 2), "2 exp(-t^2 / 2)"))
