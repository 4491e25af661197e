"""Distributed sums: dist-mab's batch protocols (Chowdhury & Zhou, ICLR 2023), users' randomized rounding and
integer noise shares reduced modulo m and summed by secure aggregation, and the analysis beside them.

- :mod:`.distributed_sum`: the protocols (Algorithm 1 with Polya, Skellam or discrete Gaussian shares; the local
  randomizer of Algorithm 4; the central sum of Algorithms 2-3; Theorem 3's shuffled mod sum; the integer-query
  noises of Facts 2-3 and Lemmas 3-4), with their exact laws;
- :mod:`.distributed_sum_analysis`: the exact laws of the protocols' errors and the paper's privacy formulas;
- :mod:`.wrapped_sums`: the law mod m of many discrete Gaussian shares in log space, with a rigorous error (the
  discrete Gaussian protocol's exact law beyond the batches a table of doubles can hold).

May import: the shared floor at the top of ``dpaudit.mechanisms``, the noise laws (their lattice tables too) and
the textbook mechanisms; of dpaudit, the vocabulary and the bandit protocols, as every family. No other family
imports it (dist-mab's algorithms and suite do). ``tests/test_layering.py`` holds these rules (``FAMILIES``).
"""
