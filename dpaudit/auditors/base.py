"""The auditor protocol: what every auditor answers, and what it returns.

An auditor is asked two things, in this order, by :mod:`dpaudit.api.driver`:

- :meth:`Auditor.supports` (subject, claim) -> :class:`Support`: whether it can audit this claim
  about this subject, and whether it then always ends in a verdict. It is answered by the same code
  that does the work (each auditor looks its claim up in the table its :meth:`~Auditor.audit`
  dispatches on), as ``dp_accounting``'s ``PrivacyAccountant.supports`` is, so the answer cannot
  drift from what the audit does. The answer decides the ``auto`` path *and* whether a suite entry
  takes a share of the run's alpha.
- :meth:`Auditor.audit` (subject, claim, ...) -> :class:`Finding`: the verdict and its evidence.
  An auditor that supports a claim without deciding it for sure raises :class:`Undecided` when its
  computation cannot settle it; the driver then falls back to samples if the audit has a
  confidence to spend, and reports an error otherwise.

The subject an auditor sees is already checked by its family's entry point: a
:class:`~dpaudit.core.subjects.Mechanism` for privacy auditors, a :class:`TailSubject` for tail and
conformance auditors, a :class:`RegretSubject` for regret auditors.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.errors import UnsupportedAudit
from ..core.results import Finding

DECIDES, ATTEMPTS, NO = "decides", "attempts", "no"


@dataclass(frozen=True)
class Support:
    """An auditor's answer to "can you audit this claim about this subject?".

    ``level`` is ``"decides"`` (it always ends in a verdict), ``"attempts"`` (it may leave the claim
    undecided and raise :class:`Undecided`) or ``"no"``; ``reason`` says why not. ``noted`` is False
    where the subject offers nothing the auditor could use (a plain sampler has no exact law): falling
    back to samples is then the expected path, not a detour worth a note in the record."""

    level: str
    reason: str = ""
    noted: bool = True

    def __post_init__(self) -> None:
        if self.level not in (DECIDES, ATTEMPTS, NO):
            raise ValueError(f"Support level must be one of {DECIDES!r}, {ATTEMPTS!r}, {NO!r}, got {self.level!r}")

    def __bool__(self) -> bool:
        return self.level != NO

    @property
    def decisive(self) -> bool:
        return self.level == DECIDES

    @classmethod
    def decides(cls) -> Support:
        return cls(DECIDES)

    @classmethod
    def attempts(cls) -> Support:
        return cls(ATTEMPTS)

    @classmethod
    def no(cls, reason: str, noted: bool = True) -> Support:
        return cls(NO, reason, noted)


class Undecided(UnsupportedAudit):
    """A supporting auditor could not settle the claim (an enclosure straddles it, say)."""


class Auditor(ABC):
    """One way of deciding claims (module docstring). ``name`` is how records name it;
    ``statistical`` says whether its verdicts are statistical (they then need a confidence level,
    and in a suite run a share of the run's alpha)."""

    name: ClassVar[str]
    statistical: ClassVar[bool]

    @abstractmethod
    def supports(self, subject: Any, claim: Any) -> Support:
        """Whether this auditor can audit ``claim`` about ``subject`` (see :class:`Support`)."""

    @abstractmethod
    def audit(self, subject: Any, claim: Any, **settings: Any) -> Finding:
        """Audit ``claim`` about ``subject``; raises :class:`UnsupportedAudit` where
        :meth:`supports` says no, :class:`Undecided` where it could not settle the claim."""

    def require(self, subject: Any, claim: Any) -> Support:
        """:meth:`supports`' answer, or :class:`UnsupportedAudit` with its reason if it is no."""
        support = self.supports(subject, claim)
        if not support:
            raise UnsupportedAudit(support.reason)
        return support

    def __repr__(self) -> str:
        return f"<{self.name} auditor>"


@dataclass(frozen=True)
class TailSubject:
    """A random variable as the tail and conformance auditors see it: its exact law if it has one
    (:func:`dpaudit.core.laws.as_law`), and a sampler ``f(size, rng)``."""

    law: Any
    sampler: Any
    name: str


@dataclass(frozen=True)
class RegretSubject:
    """An algorithm as the regret auditors see it: a policy (:mod:`dpaudit.bandits.policies`) and an
    environment (:mod:`dpaudit.bandits.environments`), or, for a rate in a parameter (eps, d, K, n), ``make``:
    value -> (policy, environment), one pair per value of the parameter. ``params`` are the named
    parameters a :class:`~dpaudit.core.claims.RegretBound`'s function may take (eps, d, K, n, gaps);
    ``cache_dir`` where simulations are cached on disk (None: in memory only)."""

    policy: Any
    environment: Any
    name: str
    params: dict[str, Any]
    make: Any = None
    cache_dir: Any = None

    def at(self, value: float) -> tuple[Any, Any]:
        """The (policy, environment) at one value of the rate's variable."""
        if self.make is None:
            raise UnsupportedAudit(f"{self.name} is one algorithm; a rate in a parameter needs a constructor per value")
        return self.make(value)

    def simulate(self, horizon: int, runs: int, seed: Any, grid: Any = None, value: float | None = None,
                 workers: int = 1) -> Any:
        """:func:`dpaudit.simulate` of the subject (at ``value`` of the rate's variable if given), through
        the simulation cache (:mod:`dpaudit.bandits.cache`; on disk in ``cache_dir`` if set)."""
        from ..bandits.cache import cached_simulate

        policy, environment = (self.policy, self.environment) if value is None else self.at(value)
        return cached_simulate(policy, environment, horizon, runs, seed, grid=grid, workers=workers,
                               directory=self.cache_dir)

    def simulate_horizons(self, horizons: Any, runs: int, seed: Any, reading: str = "horizon",
                          workers: int = 1) -> Any:
        """The regret at every round of ``horizons`` read as the claim means it: from one run to the last
        of them for an anytime policy, else from one run of each horizon (:mod:`dpaudit.bandits.horizons`), each
        through :meth:`simulate`."""
        from ..bandits.horizons import simulate_horizons

        return simulate_horizons(lambda T, grid: self.simulate(T, runs, seed, grid=grid, workers=workers),
                                 self.policy, horizons, reading)


__all__ = ["ATTEMPTS", "DECIDES", "NO", "Auditor", "Finding", "RegretSubject", "Support", "TailSubject", "Undecided"]
