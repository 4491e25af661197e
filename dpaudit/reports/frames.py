"""A run's records as a pandas DataFrame: one row per audited claim (:func:`results_frame`), and its CSV form
(:func:`results_csv`, what ``dpaudit report DIR --format csv`` writes).

The columns (:data:`RESULT_COLUMNS`):

- ``suite``: the suite (paper key, ``classic`` or a suite of your own) the claim belongs to: the record's
  ``paper``, else the part of its claim id before the first ``/``; ``id``: the claim id; ``title``;
- ``verdict``; ``expected``: the verdict the suite expects (``expected.verdict``); ``outcome``: how the two
  compare (``pass``, ``expected-refutation``, ...); ``footing``: the footing of an expected refutation;
- ``statistic``: the name of the measured quantity (``epsilon``, ``delta``, ...) and ``kind``: how its
  interval reads (``exact``, ``lower-bound``, ``upper-bound``, ``two-sided``); ``estimate``: its point
  value; ``bound``: the number the record certifies (the certified lower bound on epsilon of a privacy
  claim, else the end of the statistic's interval that its kind certifies, or the exact value), the number
  ``dpaudit report --compare`` compares (:func:`dpaudit.reports.compare.certified_value`);
- ``confidence`` (1 for an exact verdict), ``samples`` (per side of a pair), ``seconds``.

The brief asked for ``statistic`` and ``bound``; ``kind`` and ``estimate`` are added because a bound
cannot be read without knowing its side, nor a statistic's name and its value kept in one column.

dtypes: ``samples`` int64; ``estimate``, ``bound``, ``confidence`` and ``seconds`` float64 (a missing value
is NaN, an infinite bound ``inf``); the text columns are pandas' default for strings (``str`` in pandas 3,
``object`` in pandas 2), a missing value (no title, no footing, no statistic) NaN/None; an empty title or
footing counts as missing, so a frame and its CSV read back with ``pandas.read_csv`` agree (pass
``dtype=RESULT_DTYPES`` to keep a text column that is empty in every row text).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..core.results import AuditResult
from .compare import certified_value

if TYPE_CHECKING:
    import pandas as pd

RESULT_COLUMNS = ("suite", "id", "title", "verdict", "expected", "outcome", "footing", "statistic", "kind",
                  "estimate", "bound", "confidence", "samples", "seconds")
_FLOATS = ("estimate", "bound", "confidence", "seconds")
_TEXT = ("suite", "id", "title", "verdict", "expected", "outcome", "footing", "statistic", "kind")
#: the columns' types for ``pandas.read_csv(path, dtype=RESULT_DTYPES)``: without them a text column that is
#: empty in every row (no claim has a footing, say) reads back as float64 NaN
RESULT_DTYPES: dict[str, Any] = {**dict.fromkeys(_TEXT, str), "samples": "int64", **dict.fromkeys(_FLOATS, "float64")}


def _record(record: AuditResult | dict[str, Any]) -> AuditResult:
    return record if isinstance(record, AuditResult) else AuditResult.from_dict(record)


def _row(record: AuditResult) -> tuple[Any, ...]:
    stat = record.statistic
    claim_id = record.claim_id or None
    suite = record.paper or (claim_id.partition("/")[0] if claim_id else None)
    expected = record.expected or {}
    return (suite, claim_id, record.title or None, record.verdict, expected.get("verdict"), record.outcome,
            expected.get("footing") or None, stat.name if stat is not None else None,
            stat.kind if stat is not None else None, stat.value if stat is not None else None,
            certified_value(record), record.confidence, int(record.samples), float(record.seconds))


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


def results_csv(frame: pd.DataFrame) -> str:
    """The CSV text of a :func:`results_frame`: a header row, no index, floats written in full (``inf`` as
    ``inf``), missing values as empty fields; ``pandas.read_csv`` reads it back."""
    return str(frame.to_csv(index=False, lineterminator="\n"))


__all__ = ["RESULT_COLUMNS", "RESULT_DTYPES", "results_csv", "results_frame"]
