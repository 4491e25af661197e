"""The suite runner: parallel, seeded, durable, resumable."""

from .run import RunOptions, RunSummary, run

__all__ = ["RunOptions", "RunSummary", "run"]
