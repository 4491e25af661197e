"""A run's records as a pandas DataFrame: one row per audited claim (:func:`results_frame`), its CSV form
(:func:`results_csv`, what ``dpaudit report DIR --format csv`` writes), and the tables the reports show, computed
on it: the claims by suite (:func:`summary_frame`) and the count of each outcome (:func:`outcome_counts`).
``dpaudit report --compare`` matches two runs' frames (:mod:`dpaudit.reports.compare`).

The columns (:data:`RESULT_COLUMNS`):

- ``suite``: the suite (paper key, ``classic`` or a suite of your own) the claim belongs to: the record's
  ``paper``, else the part of its claim id before the first ``/``; ``id``: the claim id; ``title``;
- ``verdict``; ``expected``: the verdict the suite expects (``expected.verdict``); ``outcome``: how the two
  compare (``pass``, ``expected-refutation``, ...); ``footing``: the footing of an expected refutation;
- ``statistic``: the name of the measured quantity (``epsilon``, ``delta``, ...) and ``kind``: how its
  interval reads (``exact``, ``lower-bound``, ``upper-bound``, ``two-sided``); ``estimate``: its point
  value; ``bound``: the number the record certifies (the certified lower bound on epsilon of a privacy
  claim, else the end of the statistic's interval that its kind certifies, or the exact value), the number
  ``dpaudit report --compare`` compares (:func:`certified_value`);
- ``confidence`` (1 for an exact verdict), ``samples`` (per side of a pair), ``seconds``;
- ``power_quantity`` and ``power``: for a statistical "not refuted" whose auditor states it, the smallest
  violation (its quantity: "factor", "exceedance probability", ...; and its value) the audit would have refuted
  with probability 0.9 at the budget used (the record's ``power``); missing otherwise.

The brief asked for ``statistic`` and ``bound``; ``kind`` and ``estimate`` are added because a bound
cannot be read without knowing its side, nor a statistic's name and its value kept in one column.

dtypes: ``samples`` int64; ``estimate``, ``bound``, ``confidence``, ``seconds`` and ``power`` float64 (a missing value
is NaN, an infinite bound ``inf``); the text columns are pandas' default for strings (``str`` in pandas 3,
``object`` in pandas 2), a missing value (no title, no footing, no statistic) NaN/None; an empty title or
footing counts as missing, so a frame and its CSV read back with ``pandas.read_csv`` agree (pass
``dtype=RESULT_DTYPES`` to keep a text column that is empty in every row text).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..core.results import NOT_REPRODUCED, OUTCOMES, UNEXPECTED_REFUTATION, VERDICTS, AuditResult

if TYPE_CHECKING:
    import pandas as pd

RESULT_COLUMNS = ("suite", "id", "title", "verdict", "expected", "outcome", "footing", "statistic", "kind",
                  "estimate", "bound", "confidence", "samples", "seconds", "power_quantity", "power")
_FLOATS = ("estimate", "bound", "confidence", "seconds", "power")
_TEXT = ("suite", "id", "title", "verdict", "expected", "outcome", "footing", "statistic", "kind", "power_quantity")
#: the columns' types for ``pandas.read_csv(path, dtype=RESULT_DTYPES)``: without them a text column that is
#: empty in every row (no claim has a footing, say) reads back as float64 NaN
RESULT_DTYPES: dict[str, Any] = {**dict.fromkeys(_TEXT, str), "samples": "int64", **dict.fromkeys(_FLOATS, "float64")}


def certified_value(record: AuditResult) -> float | None:
    """The number a record certifies: the epsilon lower bound of a privacy claim, else its statistic's
    bound on the side its kind certifies (or the exact value)."""
    if record.epsilon_lower is not None:
        return record.epsilon_lower
    stat = record.statistic
    if stat is None:
        return None
    if stat.interval is not None and stat.kind == "lower-bound":
        return stat.interval[0]
    if stat.interval is not None and stat.kind == "upper-bound":
        return stat.interval[1]
    return stat.value


def _record(record: AuditResult | dict[str, Any]) -> AuditResult:
    return record if isinstance(record, AuditResult) else AuditResult.from_dict(record)


def _row(record: AuditResult) -> tuple[Any, ...]:
    stat = record.statistic
    claim_id = record.claim_id or None
    suite = record.paper or (claim_id.partition("/")[0] if claim_id else None)
    expected = record.expected or {}
    stated = record.power or {}
    return (suite, claim_id, record.title or None, record.verdict, expected.get("verdict"), record.outcome,
            expected.get("footing") or None, stat.name if stat is not None else None,
            stat.kind if stat is not None else None, stat.value if stat is not None else None,
            certified_value(record), record.confidence, int(record.samples), float(record.seconds),
            stated.get("quantity"), stated.get("value"))


def results_frame(records: Iterable[AuditResult | dict[str, Any]]) -> pd.DataFrame:
    """One row per record (an :class:`~dpaudit.core.results.AuditResult`, or a record of ``results.json`` as a
    dict), in the order given, with the columns :data:`RESULT_COLUMNS` (see the module's docstring)."""
    import pandas as pd

    rows = [_row(_record(r)) for r in records]
    frame = pd.DataFrame.from_records(rows, columns=list(RESULT_COLUMNS))
    for name in _FLOATS:
        frame[name] = pd.to_numeric(frame[name], errors="raise").astype("float64")
    frame["samples"] = frame["samples"].astype("int64")
    text = pd.Series([""]).dtype  # pandas' default for strings: str in pandas 3, object in pandas 2
    for name in _TEXT:  # a column missing in every row is inferred as object of None; keep it text
        frame[name] = frame[name].astype(text)
    return frame


#: the columns of :func:`summary_frame`: claims, then the count of each verdict, then the unexpected outcomes
SUMMARY_COLUMNS = ("claims", *VERDICTS, "unexpected")
#: the outcomes counted as unexpected in the summary (errors have a column of their own, as a verdict)
UNEXPECTED_OUTCOMES = (UNEXPECTED_REFUTATION, NOT_REPRODUCED)


def summary_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The claims of a :func:`results_frame` (or any frame with its ``suite``, ``verdict`` and ``outcome``
    columns) by suite: one row per suite (the index, sorted; a record without
    one counts under ""), the columns :data:`SUMMARY_COLUMNS` as int64: how many claims, how many of each
    verdict, and how many came out unexpectedly (an unexpected refutation or a refutation not reproduced).
    The reports' "claims by paper" table."""
    import pandas as pd

    suites = frame["suite"].fillna("").astype(str)
    counts = pd.crosstab(suites, pd.Categorical(frame["verdict"], categories=VERDICTS), dropna=False)
    table = pd.DataFrame({"claims": suites.value_counts()})
    table = table.join(counts.rename(columns=str)).join(
        frame["outcome"].isin(UNEXPECTED_OUTCOMES).groupby(suites).sum().rename("unexpected"))
    return table.sort_index().reindex(columns=list(SUMMARY_COLUMNS), fill_value=0).astype("int64")


def outcome_counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many claims of a :func:`results_frame` came out with each outcome, every outcome listed in the
    order of :data:`dpaudit.core.results.OUTCOMES` (0 where none did)."""
    counts = frame["outcome"].value_counts()
    return {outcome: int(counts.get(outcome, 0)) for outcome in OUTCOMES}


def results_csv(frame: pd.DataFrame) -> str:
    """The CSV text of a :func:`results_frame`: a header row, no index, floats written in full (``inf`` as
    ``inf``), missing values as empty fields; ``pandas.read_csv`` reads it back."""
    return str(frame.to_csv(index=False, lineterminator="\n"))


__all__ = ["RESULT_COLUMNS", "RESULT_DTYPES", "SUMMARY_COLUMNS", "UNEXPECTED_OUTCOMES", "certified_value",
           "outcome_counts", "results_csv", "results_frame", "summary_frame"]
