"""Noise distributions: vectorised seeded samplers with exact distributions."""

from .laplace import DiscreteLaplace, Laplace

__all__ = ["DiscreteLaplace", "Laplace"]
