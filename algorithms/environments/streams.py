"""Input streams for private summation under continual observation (binary PSCO, concurrent-shuffle
Section 2.1), as full-information environments of :func:`dpaudit.simulate`, so that a counter run as
a policy (:class:`dpaudit.algorithms.counting.ContinualCounter`) can be held to Theorem 4.1's lower
bound by the lower-bound auditor.

:class:`RepeatedBitStream` is one member of the hard family Delta_{n,k} of Theorem 4.1 (Sec. 4,
App. B): a fixed prefix of at most rep_{n,k} bits, then an alternation of one fresh Ber(1/2) bit (a
"single") and ``copies`` copies of another fresh Ber(1/2) bit (a "repeated segment"), until length n;
all fresh bits independent, and every run draws its own. ``copies`` is rep_{n,k} rounded (the paper
treats rep_{n,k} as a whole number; the rounding is the caller's choice, recorded in its name).

The game has two arms and full information: the row of round t is (b_t, 1 - b_t), b_t user t's bit
(0 after the n-th user, so that a counter can be read once more after the last user). The means are
the bits' marginal means, 1/2 (a prefix bit is a constant, but the regret of a counter means nothing:
the lower-bound auditor reads the counter's error events, not its regret).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dpaudit.core.validation import integer, sample_size


class _StreamInstances:
    """The bit streams of one block of runs: one round's bits per call of :meth:`rewards`, in order."""

    binary = True

    def __init__(self, n: int, copies: int, prefix: np.ndarray, runs: int):
        self.n, self.copies, self.prefix = n, copies, prefix
        self.means = np.full((runs, 2), 0.5)
        self.t = 0  # rounds drawn so far
        self._segment = np.zeros(runs)  # the current repeated segment's bit, per run

    def rewards(self, rng: np.random.Generator) -> np.ndarray:
        runs = self.means.shape[0]
        i, self.t = self.t, self.t + 1
        if i >= self.n:
            bits = np.zeros(runs)
        elif i < self.prefix.size:
            bits = np.full(runs, float(self.prefix[i]))
        else:
            phase = (i - self.prefix.size) % (self.copies + 1)
            if phase == 0:  # a single: a fresh bit used once
                bits = (rng.random(runs) < 0.5).astype(float)
            else:
                if phase == 1:  # a repeated segment starts: one fresh bit for its copies
                    self._segment = (rng.random(runs) < 0.5).astype(float)
                bits = self._segment
        return np.stack([bits, 1.0 - bits], axis=1)

    def _no_blocks(self, *_: Any) -> np.ndarray:
        raise NotImplementedError("RepeatedBitStream draws its bits round by round (the bits are not i.i.d.): a "
                                  "policy with a block fast path cannot run on it")

    sums = values = vector_sums = _no_blocks


class RepeatedBitStream:
    """One member of Theorem 4.1's hard family Delta_{n,k} (module docstring): ``prefix`` (a sequence
    of 0/1 bits), then single, ``copies`` copies, single, ``copies`` copies, ... up to n bits."""

    arms = 2
    feedback = "full"
    owner = "RepeatedBitStream"

    def __init__(self, n: int, copies: int, prefix: Sequence[int] = ()):
        self.n = integer(self.owner, "n", n, 1)
        self.copies = integer(self.owner, "copies", copies, 1)
        values = np.asarray(prefix, dtype=np.int64).ravel()
        if not np.isin(values, (0, 1)).all() or values.size > self.n:
            raise ValueError(f"{self.owner}: prefix must be at most n = {self.n} bits, each 0 or 1, got {prefix!r}")
        self.prefix = values
        shown = "".join(map(str, values.tolist())) or "empty"
        self.name = f"{self.owner}(n={self.n}, copies={self.copies}, prefix={shown})"

    def __repr__(self) -> str:
        return self.name

    def instances(self, runs: int, rng: np.random.Generator) -> _StreamInstances:
        # every bit is drawn round by round from the reward stream; nothing is drawn per instance
        return _StreamInstances(self.n, self.copies, self.prefix, sample_size(self.owner, runs))

    def bits(self, runs: int, rng: np.random.Generator) -> np.ndarray:
        """``runs`` streams of n bits at once (runs, n): the same law as the rounds' rows."""
        inst = self.instances(runs, rng)
        return np.stack([inst.rewards(rng)[:, 0] for _ in range(self.n)], axis=1).astype(np.int64)


__all__ = ["RepeatedBitStream"]
