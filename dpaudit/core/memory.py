"""Refusing, up front and with the figure, a sample count whose outputs cannot fit in this machine's memory
(rather than letting the allocation fail inside the user's mechanism, where it reads as the mechanism's
MemoryError).

The need is estimated as ``samples x width x 8`` bytes: one side's outputs as 8-byte numbers (the statistical
auditors hold their features as float64, always a copy). It is a lower bound on what an audit holds at its
peak, not an estimate of it: a fixed-size confirmation holds both sides of at least half the samples, and a
sequential one's last doubling batch about as much; so a count refused here could never have run, and one
accepted may still be too large. The memory it is held against is the machine's physical memory
(``os.sysconf``: pages x page size), not what is free now, nor a container's limit; where the system cannot
say (no ``sysconf`` names, e.g. on Windows) nothing is refused.
"""

from __future__ import annotations

import os

#: bytes of one output value as the auditors hold it (float64)
VALUE_BYTES = 8


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or None where the system does not say."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * size if pages > 0 and size > 0 else None


def size_text(n: float) -> str:
    """Bytes in decimal units with two significant digits: ``80 TB``, ``25 GB``, ``1.5 MB``."""
    for unit, scale in (("EB", 1e18), ("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2g} {unit}"
    return f"{n:.0f} B"


def check_sample_memory(samples: int, width: int = 1, *, name: str = "samples", available: int | None = None) -> None:
    """Raise a ValueError naming the figures when ``samples`` outputs of ``width`` numbers each need more
    bytes (module docstring) than the machine has; ``available`` overrides the machine's memory (tests)."""
    memory = physical_memory() if available is None else available
    if memory is None:
        return
    need = int(samples) * max(int(width), 1) * VALUE_BYTES
    if need > memory:
        columns = "one output column" if width <= 1 else f"{int(width)} output columns"
        raise ValueError(f"{name} {int(samples):,} needs about {size_text(need)} of memory for {columns} "
                         f"({VALUE_BYTES} bytes a value); this machine has {size_text(memory)}")


__all__ = ["VALUE_BYTES", "check_sample_memory", "physical_memory", "size_text"]
