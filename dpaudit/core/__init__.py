"""The shared vocabulary: what every other part of dpaudit speaks.

- claims (:mod:`~dpaudit.core.claims`) and claim ids (:mod:`~dpaudit.core.claim_ids`);
- laws and distributions (:mod:`~dpaudit.core.laws`, :mod:`~dpaudit.core.distributions`,
  :mod:`~dpaudit.core.piecewise_exponential`);
- neighbouring inputs and their domains (:mod:`~dpaudit.core.neighbours`, :mod:`~dpaudit.core.domains`);
- results and their files (:mod:`~dpaudit.core.results`, :mod:`~dpaudit.core.files`);
- errors, argument checks, seeds and names (:mod:`~dpaudit.core.errors`, :mod:`~dpaudit.core.validation`,
  :mod:`~dpaudit.core.seeding`, :mod:`~dpaudit.core.names`);
- the subject handles: a user's mechanism checked (:mod:`~dpaudit.core.subjects`) and samplers that are not
  dpaudit's vectorised form (:mod:`~dpaudit.core.samplers`).

The statistics every auditor shares are :mod:`dpaudit.stats`, beside this package.

Imports nothing of dpaudit's but itself and :mod:`dpaudit.stats`; everything else may import it.
"""
