"""The suite runner (``dpaudit run``): parallel, seeded, durable, resumable: the alpha split, worker processes
or a Dask cluster, time limits, ``results.json`` and progress.

May import every wing below it (the suites, the API, the reports, the adapters, the bandit wing; the
algorithms and environments by registry name); the CLI and the public face import it.
"""

from .run import RunOptions, RunSummary, run

__all__ = ["RunOptions", "RunSummary", "run"]
