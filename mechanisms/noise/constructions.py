"""Samplers of the noise constructions dist-mab prints (Chowdhury & Zhou, Distributed Differential
Privacy in Multi-Armed Bandits, ICLR 2023), drawn as printed, share by share.

Each is a plain sampler ``f(size, rng, **parameters)`` (bind the parameters with
:func:`functools.partial`), for conformance audits against the exact law the paper says it has:

- :func:`polya_shares_sum`: n users' Polya(1/n, beta) share differences, summing to Lap_Z (Fact 1);
- :func:`gamma_poisson`: footnote 3's Gamma-Poisson mixture, drawing Polya(r, beta);
- :func:`geometric_difference`: Remark 7's difference of two geometrics, Lap_Z(b) for beta = e^{-1/b};
- :func:`poisson_difference`: Definition 5's Skellam sampler N1 - N2;
- :func:`skellam_shares_sum`: n users' Skellam shares, summing to Sk(0, variance).

The exact laws are :class:`~dpaudit.mechanisms.noise.DiscreteLaplace`,
:class:`~dpaudit.mechanisms.noise.Polya` and :class:`~dpaudit.mechanisms.noise.Skellam`.
"""

from __future__ import annotations


def polya_shares_sum(size, rng, n: int, beta: float):
    """Sum over n users of gamma+ - gamma-, each Polya(1/n, beta) (Fact 1), drawn per user."""
    return (rng.negative_binomial(1 / n, 1 - beta, (size, n))
            - rng.negative_binomial(1 / n, 1 - beta, (size, n))).sum(1)


def gamma_poisson(size, rng, r: float, beta: float):
    """Footnote 3: lambda ~ Gamma(shape r, scale beta / (1 - beta)), then X ~ Poisson(lambda)."""
    return rng.poisson(rng.gamma(r, beta / (1 - beta), size))


def geometric_difference(size, rng, beta: float):
    """Remark 7: two i.i.d. Geometric(beta), P[N = k] = beta^k (1 - beta), subtracted."""
    return (rng.geometric(1 - beta, size) - 1) - (rng.geometric(1 - beta, size) - 1)


def poisson_difference(size, rng, variance: float):
    """Definition 5's sampler: N1 - N2, N_i i.i.d. Poisson(sigma^2 / 2)."""
    return rng.poisson(variance / 2, size) - rng.poisson(variance / 2, size)


def skellam_shares_sum(size, rng, n: int, variance: float):
    """Sum over n users of Sk(0, variance / n) shares, each drawn as Definition 5 prints."""
    share = variance / n / 2
    return (rng.poisson(share, (size, n)) - rng.poisson(share, (size, n))).sum(1)


__all__ = ["gamma_poisson", "geometric_difference", "poisson_difference", "polya_shares_sum", "skellam_shares_sum"]
