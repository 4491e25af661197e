"""A mechanism that kills the first worker process it samples on (as a segfault would) and then works:
the cluster reruns its claim on another worker. The marker file is named by DPAUDIT_CRASH_ONCE_MARKER."""

import os
from pathlib import Path

from dpaudit import PureDP
from dpaudit.suite import Suite

suite = Suite("testing-crash-once", "one worker death")


def dies_once(data, size, rng):
    marker = Path(os.environ["DPAUDIT_CRASH_ONCE_MARKER"])
    if size > 100 and not marker.exists():
        marker.write_text("a worker died here\n")
        os._exit(3)
    return data + rng.laplace(0, 1, size)


suite.privacy("testing-crash-once/dies-once", subject=dies_once, claim=PureDP(1.0), pairs=[(0, 1)],
              auditor="statistical")
