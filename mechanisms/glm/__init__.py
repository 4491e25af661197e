"""Generalised linear bandits in the shuffle model (shuffle-glm): the releases of Algorithms 1 and 2 and what
they are made of, as ``dpaudit.algorithms.glm`` holds the algorithms.

- :mod:`.private_gd`: P_GD, multi-round shuffle-private projected gradient descent (Algorithm 7), over the
  domains of :mod:`.geometry` (a ball, Algorithm 2's criterion-II ellipsoid);
- :mod:`.pgd_views`: the audited views of P_GD and of the releases that contain it, with their exact laws;
- :mod:`.exploration_set`: Algorithm 2's private design matrices (the trees B_V and B_H) and the privacy of its
  exploration set;
- :mod:`.glm_links`: the links (mean, slope, the logistic loss's gradients, probit), shared by the environments,
  the algorithms and the releases;
- :mod:`.glm_lower_bound`: the constants and exact laws of the lower bound's proof (Section 7, Appendix Q).

Why a family of its own and not :mod:`dpaudit.mechanisms.training`: P_GD is a training-time release, but it is
built from the shuffle protocols' vector sums (:mod:`dpaudit.mechanisms.shuffle.vector_summation`), the links and
the domains here, and its audited views combine it with Algorithm 2's trees; none of that is DP-SGD, and the
links, the trees and the lower bound are not training at all. Keeping the paper's releases together mirrors
``algorithms/glm/``.

May import: the shared floor at the top of ``dpaudit.mechanisms``, the noise laws, the textbook mechanisms, the
shuffle protocols (P_1, P_2) and the counters (the binary tree under B_V and B_H); of dpaudit, the vocabulary and
the bandit protocols, as every family. No other family imports it but the released-code variants.
``tests/test_layering.py`` holds these rules (``FAMILIES``).
"""
