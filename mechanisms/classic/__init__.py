"""Textbook mechanisms: the standard releases of the differential-privacy literature, correct and with their
classic bugs, each with its true privacy derived and, where it has one, its exact law.

- :mod:`.additive`: Laplace, discrete Laplace and staircase noise on a query answer;
- :mod:`.gaussian`: the Gaussian mechanism (classic and zCDP calibrations) and its exact privacy curve;
- :mod:`.bounded_laplace`, :mod:`.folded`: Laplace (and geometric) noise on a bounded output range;
- :mod:`.clipped_sum`, :mod:`.histogram`: a noisy clipped sum, a noisy histogram;
- :mod:`.composition`: double spending, independent repeats of one release;
- :mod:`.released_inputs`: a release next to the inputs it leaves out (Lemma B.5 of concurrent-shuffle);
- :mod:`.geometric`, :mod:`.randomized_response`: the truncated geometric mechanism, binary and k-ary
  randomized response;
- :mod:`.noisy_max`, :mod:`.sparse_vector`: report-noisy-max, the exponential mechanism, the sparse vector
  technique and its broken variants.

May import: the shared floor at the top of ``dpaudit.mechanisms`` (:mod:`~dpaudit.mechanisms.base`,
:mod:`~dpaudit.mechanisms.enclosures`, :mod:`~dpaudit.mechanisms.piecewise`, :mod:`~dpaudit.mechanisms.accounting`)
and the noise laws (:mod:`dpaudit.mechanisms.noise`), no other family; of dpaudit, the vocabulary
(:mod:`dpaudit.core`, :mod:`dpaudit.stats`) and the bandit protocols, as every family. Every family above the noise
laws may import it. ``tests/test_layering.py`` holds these rules (``FAMILIES``).
"""
