"""Certified accounting of DP-SGD: rigorous epsilon(delta) and delta(epsilon) brackets for the configurations of
:mod:`dpaudit.core.dpsgd`, from dominating pairs and privacy-loss distributions composed on a grid.

- :mod:`.normal`: the normal distribution function with an error bound on every value;
- :mod:`.grid`: a step's privacy loss as a dominating ("connect the dots") and a dominated (garbled) law on the
  knots of a uniform grid, composed by FFT under exponential tilting with every error carried;
- :mod:`.mixtures`: one-dimensional Gaussian mixture pairs with a monotone loss, cut into enclosed cells;
- :mod:`.allocation`: the mixture-of-Gaussians lower bounds of samplers that put each example in one batch per
  epoch (shuffling, balls-and-bins);
- :mod:`.brackets`: the configurations' pairs and their composed brackets (:func:`certify`).

Imports only the vocabulary and the exact engines beside it (:mod:`dpaudit.exact.pld`'s FFT error bound).
"""

from .brackets import Bracket, certify

__all__ = ["Bracket", "certify"]
