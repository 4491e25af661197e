"""Entries that take a known time, for interrupting and resuming a run."""

import time

from dpaudit import PureDP
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.suite import Suite

suite = Suite("testing-slow", "slow entries")


class SlowLaplace(LaplaceMechanism):
    """A correct Laplace mechanism whose sampling takes ``delay`` seconds per call."""

    def __init__(self, epsilon, delay):
        super().__init__(epsilon)
        self.delay = delay
        self.name = f"SlowLaplace(eps={epsilon:g}, delay={delay:g})"

    def sample(self, data, size, rng):
        if size > 100:  # the 16-output probes stay fast
            time.sleep(self.delay)
        return super().sample(data, size, rng)


for i in range(6):
    suite.privacy(f"testing-slow/claim{i}", subject=SlowLaplace(1.0, 0.25), claim=PureDP(1.0), pairs=[(0, 1)],
                  auditor="statistical", samples={"quick": 2_000})
suite.privacy("testing-slow/sleeps-too-long", subject=SlowLaplace(1.0, 30.0), claim=PureDP(1.0), pairs=[(0, 1)],
              auditor="statistical", samples={"quick": 2_000}, timeout=1.0)
