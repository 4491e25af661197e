"""Training: DP-SGD and the other releases made while a model is trained (the noisy gradient steps, and the batch
samplers and accountants they run with).

- :mod:`.samplers`: the batch samplers of DP-SGD, runnable (Poisson, fixed-size, with replacement, shuffled with
  each way of treating a partial last batch, balls-and-bins), each drawing a step's batch for many runs at once;
  their descriptions, which the certified accounting reads, are :mod:`dpaudit.core.dpsgd`'s;
- :mod:`.dp_sgd`: DP-SGD as shuffle-glm's experiments run it (Private-GLM's optimizer): one step's noisy sum of
  clipped gradients is the release, the optimizer is built on it and on any sampler of the family, and the noise
  multiplier comes from RDP accounting (dp-accounting's, or the released code's). ``DPSGD.dpsgd_config()`` is the
  call as an accountant sees it: what :func:`dpaudit.audit_dpsgd` decides.

shuffle-glm's shuffle-private gradient descent P_GD is not here but in :mod:`dpaudit.mechanisms.glm`, with the
views of it the suite audits: it is made of shuffle-model vector sums, GLM links and domains, not of DP-SGD.

May import: the shared floor at the top of ``dpaudit.mechanisms``, the noise laws and the textbook mechanisms; of
dpaudit, the vocabulary and the bandit protocols, as every family. No other family imports it but the
released-code variants. ``tests/test_layering.py`` holds these rules (``FAMILIES``).
"""
