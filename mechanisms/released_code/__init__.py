"""Released-code variants: what the code the papers' authors released computes where it departs from the paper,
so that a preset run with ``constants="released-code"`` reproduces the authors' runs. None carries a privacy
guarantee of its paper; the suites audit the papers' releases, not these.

- :mod:`.linear_released_code`: the noise calibrations of shuffle-lcb's released code (R_Amp, P_Amp, P_Vec, the
  central tree), and its stand-in for the tree;
- :mod:`.glm_released_code`: shuffle-glm's released tree as it runs (its query is not a prefix sum).

The released code's DP-SGD accountant and schedule are not here: they are options of the optimizer itself,
:func:`dpaudit.mechanisms.training.dp_sgd.released_code_noise_multiplier` and
:func:`~dpaudit.mechanisms.training.dp_sgd.released_code_schedule`.

May import: every family it varies (the shared floor, the noise laws, the textbook mechanisms, the shuffle
protocols, the counters, the distributed sums, training and shuffle-glm); of dpaudit, the vocabulary and the
bandit protocols, as every family. No family imports it (the algorithms do, to run a variant); nor does the
package's public face. ``tests/test_layering.py`` holds these rules (``FAMILIES``).
"""
