"""The bandit wing: how policies run against environments, and what is recorded of them.

- the protocols: :mod:`~dpaudit.bandits.policies` (what an algorithm exposes, and the per-round run of its
  decisions) and :mod:`~dpaudit.bandits.environments` (what a reward source exposes);
- the engine: :mod:`~dpaudit.bandits.simulation` (R runs at once, fast paths where exact),
  :mod:`~dpaudit.bandits.horizons` (a claim about E[R_T] read off runs of horizon T),
  :mod:`~dpaudit.bandits.cache` (simulations kept by content);
- transcripts, a policy's decisions as a mechanism's output: :mod:`~dpaudit.bandits.transcripts` and
  :mod:`~dpaudit.bandits.contextual_transcripts`;
- the papers' experiments: :mod:`~dpaudit.bandits.experiments` (presets and their runs) and
  :mod:`~dpaudit.bandits.experiments.reports`;
- :mod:`~dpaudit.bandits.reference`: explore-then-commit, the reference policy with a closed-form regret.

The protocols import only the vocabulary (:mod:`dpaudit.core`); the engine imports the protocols; the
algorithms (``dpaudit.algorithms``) import the vocabulary, the protocols and the mechanisms, never the
engine above them. Nothing here imports an auditor, the suites or the runner; only the experiments name
``dpaudit.audits`` (where the presets live), by import path.
"""
