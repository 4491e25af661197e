"""Trees and counters under continual observation: releases of running sums over a stream, one release per
round, block or epoch.

- :mod:`.tree`: the binary (tree-based) mechanism's noisy dyadic p-sums, any noise law, scalar, vector or
  matrix streams;
- :mod:`.central_tree`: shuffle-lcb's central-model tree baselines (LinUCB-JDP, user level, Batched-Central);
- :mod:`.lazy_laplace`, :mod:`.hybrid_counter`: private-online's per-arm releases (M1, the lazy forgetful
  Laplace arrays; M2, Hybrid-UCB's arrays and trees); :mod:`.online_releases`: its per-epoch releases (M1, M3
  FTNL's epoch noisy max, M4, and M5 DP-SE's noisy arm sums);
- :mod:`.concurrent_tree`, :mod:`.concurrent_shuffle`: concurrent-shuffle's summation with k concurrent
  shufflers (CSTA, Algorithms 1-3, the vector instantiation on P_Vec blocks).

May import: the shared floor at the top of ``dpaudit.mechanisms``, the noise laws, the textbook mechanisms
(``central_tree``'s analytic Gaussian, ``online_releases``' report-noisy-max) and the shuffle protocols
(``concurrent_shuffle``'s P_Vec blocks); of dpaudit, the vocabulary and the bandit protocols, as every family.
shuffle-glm's trees (:mod:`dpaudit.mechanisms.glm`) build on :mod:`.tree`. ``tests/test_layering.py`` holds these
rules (``FAMILIES``).
"""
