"""A suite: a named collection of entries, and the methods suite modules add them with."""

from __future__ import annotations

from typing import Any

from ..core.claim_ids import check_suite_key
from .canary import CanaryEntry
from .entries import AccountantEntry, ConformanceEntry, DPSGDEntry, Entry, LowerBoundEntry, PrivacyEntry, TailEntry
from .regret import OrderEntry, RegretEntry


class Suite:
    """A named collection of entries; ``key`` is the first part of every claim id in it."""

    def __init__(self, key: str, title: str, description: str = ""):
        check_suite_key(key)
        self.key = key
        self.title = title
        self.description = description
        self._entries: dict[str, Entry] = {}

    @property
    def entries(self) -> list[Entry]:
        return list(self._entries.values())

    def add(self, entry: Entry) -> Entry:
        if entry.claim_id.suite != self.key:
            raise ValueError(f"entry {entry.id} does not belong to suite {self.key!r}")
        key = entry.claim_id.key
        if key in self._entries:
            raise ValueError(f"suite {self.key!r} already has an entry {entry.id}")
        self._entries[key] = entry
        return entry

    def conformance(self, id: str, **kwargs: Any) -> ConformanceEntry:
        """Add a :class:`ConformanceEntry` (same arguments) and return it."""
        return self.add(ConformanceEntry(id, **kwargs))

    def tail(self, id: str, **kwargs: Any) -> TailEntry:
        """Add a :class:`TailEntry` (same arguments) and return it."""
        return self.add(TailEntry(id, **kwargs))

    def lower_bound(self, id: str, **kwargs: Any) -> LowerBoundEntry:
        """Add a :class:`LowerBoundEntry` (same arguments) and return it."""
        return self.add(LowerBoundEntry(id, **kwargs))

    def regret(self, id: str, **kwargs: Any) -> Entry:
        """Add a :class:`~dpaudit.suite.regret.RegretEntry` (a regret bound or rate; same arguments)."""
        return self.add(RegretEntry(id, **kwargs))

    def order(self, id: str, **kwargs: Any) -> Entry:
        """Add a :class:`~dpaudit.suite.regret.OrderEntry` (an ordering by regret; same arguments)."""
        return self.add(OrderEntry(id, **kwargs))

    def privacy(self, id: str, **kwargs: Any) -> PrivacyEntry:
        """Add a :class:`PrivacyEntry` (same arguments) and return it."""
        entry = PrivacyEntry(id, **kwargs)
        self.add(entry)
        return entry

    def dpsgd(self, id: str, **kwargs: Any) -> DPSGDEntry:
        """Add a :class:`DPSGDEntry` (a claim about a DP-SGD configuration; same arguments) and return it."""
        return self.add(DPSGDEntry(id, **kwargs))

    def accountant(self, id: str, **kwargs: Any) -> AccountantEntry:
        """Add an :class:`AccountantEntry` (an accountant's epsilon for a DP-SGD configuration, audited; same
        arguments) and return it."""
        return self.add(AccountantEntry(id, **kwargs))

    def canary(self, id: str, **kwargs: Any) -> CanaryEntry:
        """Add a :class:`~dpaudit.suite.canary.CanaryEntry` (a claim about a training loop, audited from its canaries'
        scores; same arguments) and return it."""
        return self.add(CanaryEntry(id, **kwargs))

    def __repr__(self) -> str:
        return f"Suite({self.key!r}, {len(self._entries)} entries)"


__all__ = ["Suite"]
