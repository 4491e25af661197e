"""Shuffle-model protocols: local randomizers whose messages a shuffler permutes, with the analyzers and the
amplification bounds the papers use.

- :mod:`.shuffled_response`: shuffled binary randomized response and the amplification-by-shuffling bound of
  Feldman, McMillan & Talwar (``fmt_shuffle_epsilon``);
- :mod:`.bit_summation`: the bit-based shuffled summation of Cheu, Joseph, Mao & Peng, on one entry per label;
- :mod:`.shuffle_vec`: shuffle-lcb's P_Vec on it (Appendix C); :mod:`.shuffle_amp`: shuffle-lcb's Gaussian
  protocol P_Amp and the local Gaussian randomizer (Appendix B);
- :mod:`.vector_summation`: shuffle-glm's P_1 and P_2, vector and matrix sums on it (Appendix S).

May import: the shared floor at the top of ``dpaudit.mechanisms``, the noise laws and the textbook mechanisms
(:mod:`dpaudit.mechanisms.classic`); of dpaudit, the vocabulary and the bandit protocols, as every family. The
counters (concurrent shufflers) and shuffle-glm's gradient descent build on it. ``tests/test_layering.py`` holds
these rules (``FAMILIES``).

``dpaudit.mechanisms.shuffle`` was the path of :mod:`.shuffled_response` before the families, and a package
cannot also be an alias of that module: the package re-exports its public names, so
``from dpaudit.mechanisms.shuffle import ShuffledRandomizedResponse, fmt_shuffle_epsilon`` still works.
"""

from .shuffled_response import ShuffledRandomizedResponse, fmt_shuffle_epsilon

__all__ = ["ShuffledRandomizedResponse", "fmt_shuffle_epsilon"]
