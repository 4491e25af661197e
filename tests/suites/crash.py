"""A mechanism that kills its worker process outright (as a segfault would)."""

import os

from dpaudit import PureDP
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.suite import Suite

suite = Suite("testing-crash", "worker death")


def dies(data, size, rng):
    if size > 100:
        os._exit(3)
    return data + rng.laplace(0, 1, size)


suite.privacy("testing-crash/dies", subject=dies, claim=PureDP(1.0), pairs=[(0, 1)], auditor="statistical")
suite.privacy("testing-crash/survives", subject=LaplaceMechanism(1.0), claim=PureDP(1.0), pairs=[(0, 1)])
