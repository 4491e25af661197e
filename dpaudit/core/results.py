"""Audit results: the record of one audited claim, its verdict, and their JSON form.

An auditor returns a :class:`Finding` (the verdict and its evidence); :func:`dpaudit.api.records.assemble_record`
turns it, once, into the :class:`AuditResult` users and reports read, adding the claim, the subject,
the seed, the timing and, in a suite run, the entry's fields.

The JSON form is versioned (``schema`` / ``schema_version``; the JSON Schema ships as
``dpaudit/schema/results-v2.json``; version 2 types the ``seed`` field, see
:class:`dpaudit.core.seeding.SeedRecord`, and files of version 1 are still read). JSON has no infinities,
so non-finite numbers are written as the strings ``"inf"``, ``"-inf"`` and ``"nan"``;
:meth:`AuditResult.from_dict` reads them back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from importlib.resources import files
from typing import Any

import numpy as np

SCHEMA = "dpaudit.results"
SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1 differs only in its untyped seed field

VERIFIED = "verified"
REFUTED = "refuted"
NOT_REFUTED = "not-refuted"
ERROR = "error"
VERDICTS = (VERIFIED, REFUTED, NOT_REFUTED, ERROR)

# How a verdict compares with the suite entry's expectation.
PASS = "pass"
EXPECTED_REFUTATION = "expected-refutation"
UNEXPECTED_REFUTATION = "unexpected-refutation"
NOT_REPRODUCED = "not-reproduced"
OUTCOMES = (PASS, EXPECTED_REFUTATION, UNEXPECTED_REFUTATION, NOT_REPRODUCED, ERROR)
#: the footing of an expected refutation on an instance outside its statement's hypotheses: the reports label it so,
#: apart from the findings (it refutes a paper's use of the statement, not the statement)
HYPOTHESIS_NOT_MET = "hypothesis not met"


def json_schema() -> dict[str, Any]:
    """The JSON Schema of results files of this :data:`SCHEMA_VERSION`."""
    return json.loads(files("dpaudit").joinpath(f"schema/results-v{SCHEMA_VERSION}.json").read_text("utf-8"))


def to_jsonable(value: Any) -> Any:
    """Turn numpy values, tuples and non-finite floats into plain JSON values."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if value is None or isinstance(value, str):
        return value
    return str(value)


def number_from_json(value: Any) -> float | None:
    """Inverse of :func:`to_jsonable` for one number."""
    if value is None:
        return None
    if isinstance(value, str):
        return float(value)  # "inf", "-inf", "nan"
    return float(value)


def warning_totals(records: Iterable[dict[str, Any]]) -> tuple[int, int, int]:
    """Over the records of a results document: how many warnings they raised, how many distinct (category,
    message) pairs, and how many records raised any."""
    total, distinct, claims = 0, set(), 0
    for r in records:
        kept = r.get("warnings") or []
        total += sum(int(w.get("count", 1)) for w in kept)
        distinct.update((w.get("category"), w.get("message")) for w in kept)
        claims += bool(kept)
    return total, len(distinct), claims


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.6g}"


@dataclass
class Statistic:
    """The quantity an auditor measured.

    ``kind`` says how to read ``interval``: ``exact`` (a rigorous enclosure of the true value),
    ``lower-bound`` (a one-sided bound at the record's confidence: [lower, inf]), ``upper-bound``
    (the same from above: [-inf, upper]) or ``two-sided`` (a confidence interval).
    """

    name: str
    value: float | None
    interval: tuple[float, float] | None = None
    kind: str = "exact"

    def describe(self) -> str:
        """E.g. ``epsilon >= 0.0981 (estimate 0.1003)`` or ``epsilon in [0.1, 0.1] (exact)``."""
        value = _fmt(self.value)
        if self.interval is None:
            return f"{self.name} = {value}"
        lo, hi = self.interval
        if self.kind == "lower-bound":
            return f"{self.name} >= {_fmt(lo)} (estimate {value})"
        if self.kind == "upper-bound":
            return f"{self.name} <= {_fmt(hi)} (estimate {value})"
        return f"{self.name} in [{_fmt(lo)}, {_fmt(hi)}] ({self.kind})"

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Statistic:
        interval = d.get("interval")
        return cls(
            name=d["name"],
            value=number_from_json(d.get("value")),
            interval=None if interval is None else (number_from_json(interval[0]), number_from_json(interval[1])),
            kind=d.get("kind", "exact"),
        )


@dataclass
class Finding:
    """What an auditor found: the verdict and its evidence, before the record adds the claim, the
    subject, the seed and the timing.

    ``statistic`` is the measured quantity; ``epsilon_lower`` / ``delta_lower`` the certified lower
    bounds where the claim is about epsilon or delta; ``confidence`` is 1 for exact verdicts;
    ``samples`` the outputs drawn; ``witness`` the inputs, event, counts or points behind the verdict;
    ``plot_data`` what the report plots (kept in memory, not in the record)."""

    verdict: str
    auditor: str
    statistic: Statistic | None = None
    epsilon_lower: float | None = None
    delta_lower: float | None = None
    confidence: float | None = None
    samples: int = 0
    witness: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    plot_data: Any = field(default=None, repr=False, compare=False)
    #: a statistical "not refuted"'s power (:func:`power`): the smallest violation the audit would have refuted
    #: with probability ``probability`` at the budget used; None where the auditor states none
    power: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    @property
    def estimate(self) -> float | None:
        """The point estimate of the measured quantity (``statistic.value``), or None without a statistic."""
        return None if self.statistic is None else self.statistic.value


#: the probability at which a "not refuted" states the violation its audit would have seen
POWER_PROBABILITY = 0.9


def power(quantity: str, value: float, description: str, probability: float = POWER_PROBABILITY) -> dict[str, Any]:
    """A not-refuted record's power: the smallest violation, measured as ``quantity`` (e.g. "factor", "exceedance
    probability", "exponent") with ``value``, that its audit would have refuted with probability ``probability``
    at the budget used; ``description`` says it in words."""
    return {"quantity": quantity, "value": float(value), "probability": float(probability),
            "description": description}


def describe_power(entry: dict[str, Any] | None) -> str:
    """E.g. "would refute a factor >= 1.31 with probability 0.9" (empty without a power)."""
    if not entry:
        return ""
    value = number_from_json(entry["value"])  # a record read from JSON writes an infinite value as "inf"
    return f"would refute {entry['quantity']} >= {_fmt(value)} with probability {float(entry['probability']):g}"


@dataclass
class AuditResult:
    """One audited claim.

    ``epsilon_lower`` is the certified lower bound on the privacy loss epsilon at ``confidence``
    (exact auditors: the lower end of a rigorous enclosure; may be ``inf``); ``witness`` holds the
    inputs, event, counts or points that exhibit it. ``alpha`` is the false-refutation
    probability a suite run allotted to this claim (statistical claims only). ``seed`` has the shape
    of :class:`dpaudit.core.seeding.SeedRecord`. ``warnings``: the Python warnings raised while a suite run
    found and audited the claim, one entry per category and message with its count. ``plot_data`` is kept
    in memory for plotting and is not part of the JSON record.
    """

    verdict: str
    claim: dict[str, Any]
    auditor: str
    subject: str = ""
    statistic: Statistic | None = None
    epsilon_lower: float | None = None
    delta_lower: float | None = None
    confidence: float | None = None
    alpha: float | None = None
    samples: int = 0
    seed: dict[str, Any] | None = None
    seconds: float = 0.0
    witness: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)
    relation: dict[str, Any] | None = None
    claim_id: str | None = None
    title: str = ""
    paper: str | None = None
    budget: str | None = None
    expected: dict[str, Any] = field(default_factory=lambda: {"verdict": NOT_REFUTED, "reason": None,
                                                               "footing": None})
    plots: list[str] = field(default_factory=list)
    error: dict[str, Any] | None = None
    #: what the audit warned, each ``{"category", "message", "count"}`` (records written before it: empty)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    #: the claim's content key (:mod:`dpaudit.runner.keys`): a run into the same folder reuses this record while
    #: the key is unchanged; None: audited every time (or a record from before keys)
    key: str | None = None
    #: when the audit finished (ISO 8601, UTC); a reused record keeps its own
    finished: str | None = None
    #: carried over from an earlier run in the same folder, its key unchanged
    reused: bool = False
    #: a statistical "not refuted"'s power (:func:`power`); None where the auditor states none (records written
    #: before it: absent)
    power: dict[str, Any] | None = None
    #: a checksum of the record's content (:func:`dpaudit.runner.store.seal`): a record that does not match it
    #: is damaged or edited and is never reused
    digest: str | None = None
    plot_data: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    @property
    def estimate(self) -> float | None:
        """The point estimate of the measured quantity (``statistic.value``), or None without a statistic."""
        return None if self.statistic is None else self.statistic.value

    @property
    def outcome(self) -> str:
        """How the verdict compares with the expectation (see :data:`OUTCOMES`)."""
        if self.verdict == ERROR:
            return ERROR
        expects_refutation = self.expected.get("verdict") == REFUTED
        if self.verdict == REFUTED:
            return EXPECTED_REFUTATION if expects_refutation else UNEXPECTED_REFUTATION
        return NOT_REPRODUCED if expects_refutation else PASS

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("plot_data")
        d["outcome"] = self.outcome
        return to_jsonable(d)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AuditResult:
        d = dict(d)
        d.pop("outcome", None)
        stat = d.pop("statistic", None)
        for key in ("epsilon_lower", "delta_lower", "confidence", "alpha"):
            d[key] = number_from_json(d.get(key))
        if d.get("power"):
            d["power"] = {**d["power"], "value": number_from_json(d["power"]["value"])}
        return cls(statistic=None if stat is None else Statistic.from_dict(stat), **d)

    def summary(self) -> str:
        """One line: verdict, statistic and confidence."""
        parts = [f"{self.verdict}"]
        if self.statistic is not None:
            parts.append(self.statistic.describe())
        if self.confidence is not None and self.confidence < 1:
            parts.append(f"at confidence {self.confidence:.6g}")
        if self.power and self.verdict == NOT_REFUTED:
            parts.append(describe_power(self.power))
        if self.error:
            parts.append(f"{self.error.get('type')}: {self.error.get('message')}")
        return ", ".join(parts)
