"""Durations as a progress line says them: the time a run has taken, and an estimate of the time left."""

from __future__ import annotations


def duration(seconds: float) -> str:
    """A duration as a person says it: ``42 s``, ``3 min 10 s``, ``1 h 05 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def time_left(seconds: float) -> str:
    """An estimate of the time left, no more precise than it is: ``under a minute``, ``about 7 min``,
    ``about 1 h 20 min``."""
    if seconds < 60:
        return "under a minute"
    minutes = round(seconds / 60)
    return f"about {minutes} min" if minutes < 60 else f"about {minutes // 60} h {minutes % 60:02d} min"


def timing(elapsed: float, finished: int, remaining: int) -> str:
    """``; 3 min 10 s in, about 7 min left``: ``elapsed`` seconds for ``finished`` units of work, ``remaining`` to
    go at that rate (no estimate before the first unit, none after the last)."""
    text = f"; {duration(elapsed)} in"
    if remaining > 0 and finished > 0:
        text += f", {time_left(elapsed / finished * remaining)} left"
    return text


__all__ = ["duration", "time_left", "timing"]
