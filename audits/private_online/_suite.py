"""The private-online suite object, alone in its module so that the package and each of its submodules take
it from below them (no import circle); the package's entries are added in ``__init__``, then its
submodules', in the order ``__init__`` imports them."""

from dpaudit.suite import Suite

suite = Suite("private-online",
              "Hu, Huang, Mehta, Near-Optimal Algorithms for Private Online Learning in a Stochastic Environment")
