"""What changed between two runs: claims added and removed, verdicts and outcomes that moved, findings
gained and lost, claims that newly fail, and certified statistics that moved materially.

:func:`compare_runs` is pure: it takes two runs as :func:`load_run` reads them from their folders and
returns a :class:`Comparison`; :mod:`dpaudit.reports.compare_render` turns that into text, markdown
or JSON. Claims are matched by their full claim id (with its ``@params`` suffix), ignoring case, as
``results.json`` itself keys them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.claim_ids import current_id
from ..core.files import load_results
from ..core.results import (
    ERROR,
    EXPECTED_REFUTATION,
    HYPOTHESIS_NOT_MET,
    NOT_REPRODUCED,
    UNEXPECTED_REFUTATION,
    AuditResult,
)
from .frames import certified_value, results_frame
from .summary import counted

if TYPE_CHECKING:
    import pandas as pd

#: outcomes that make ``dpaudit run`` exit non-zero; a claim reaching one of them has newly failed
FAILING = (UNEXPECTED_REFUTATION, NOT_REPRODUCED, ERROR)

#: the run options whose difference makes verdicts move for reasons other than the code
RUN_SETTINGS = ("seed", "budget", "alpha")

#: a certified statistic has moved materially when it changed by more than this fraction of its size
DEFAULT_TOLERANCE = 0.1


@dataclass(frozen=True)
class Run:
    """One run's records by claim-id key, and the settings and version it was made with."""

    source: str
    records: dict[str, AuditResult]
    settings: dict[str, Any]
    version: str | None

    @classmethod
    def from_document(cls, document: dict[str, Any], source: str) -> Run:
        """The run of a results document (as :func:`dpaudit.core.files.load_results` returns it); a record
        that cannot be read, or two records of one claim, raise :class:`ValueError` naming ``source``."""
        records: dict[str, AuditResult] = {}
        for index, raw in enumerate(document.get("records", [])):
            name = raw.get("claim_id") if isinstance(raw, dict) else None
            try:
                record = AuditResult.from_dict(raw)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ValueError(f"{source}: record {name or f'number {index}'} cannot be read "
                                 f"({type(exc).__name__}: {exc}); the file was edited or written by another program"
                                 ) from None
            if not isinstance(record.claim_id, str) or not record.claim_id:
                raise ValueError(f"{source}: record number {index} has no claim id")
            # a run recorded before a claim was renamed is read under the claim's new id (core.claim_ids.RENAMED)
            record.claim_id = current_id(record.claim_id)
            key = record.claim_id.casefold()
            if key in records:
                raise ValueError(f"{source}: claim {record.claim_id} has two records")
            records[key] = record
        run = document.get("run") if isinstance(document.get("run"), dict) else {}
        settings = {name: run.get(name) for name in RUN_SETTINGS}
        return cls(source, records, settings, document.get("dpaudit_version"))


def load_run(folder: Path) -> Run:
    """The run in ``folder`` (its ``results.json``); a missing or damaged file raises :class:`ValueError`
    in one line naming it."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder} is a file, not a run folder" if folder.exists()
                         else f"{folder}: no such run folder")
    path = folder / "results.json"
    if not path.is_file():
        raise ValueError(f"{path} does not exist; is {folder} the --out folder of a dpaudit run?")
    try:
        document = load_results(path)
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return Run.from_document(document, str(path))


@dataclass(frozen=True)
class Side:
    """A claim as one run recorded it: what the comparison shows of it."""

    verdict: str
    outcome: str
    statistic: str | None
    certified: float | None
    #: an expected refutation's footing (None for any other outcome): "hypothesis not met" is shown as such
    footing: str | None = None

    @property
    def label(self) -> str:
        """The outcome as the comparison prints it: an expected refutation outside its statement's hypotheses is
        ``hypothesis-not-met``, not a refutation of the statement."""
        if self.outcome == EXPECTED_REFUTATION and self.footing == HYPOTHESIS_NOT_MET:
            return "hypothesis-not-met"
        return self.outcome

    def to_dict(self) -> dict[str, Any]:
        certified = self.certified
        if certified is not None and not math.isfinite(certified):
            certified = str(certified)  # JSON has no infinities; results.json writes them the same way
        return {"verdict": self.verdict, "outcome": self.outcome, "statistic": self.statistic,
                "certified": certified, **({"footing": self.footing} if self.footing else {})}


@dataclass(frozen=True)
class Change:
    """One claim in the comparison: its id and how each run recorded it (``None``: not in that run)."""

    claim_id: str
    old: Side | None
    new: Side | None

    def to_dict(self) -> dict[str, Any]:
        return {"claim_id": self.claim_id, "old": self.old and self.old.to_dict(),
                "new": self.new and self.new.to_dict()}


@dataclass(frozen=True)
class SettingDifference:
    """A run setting (seed, budget, alpha) or the dpaudit version that differs between the runs."""

    name: str
    old: Any
    new: Any

    def describe(self) -> str:
        return f"the runs differ in {self.name}: {self.old!r} (old) vs {self.new!r} (new)"


@dataclass
class Comparison:
    """What changed from ``old`` to ``new``. Every list holds :class:`Change` objects sorted by claim id;
    a claim appears in every list it belongs to (a lost finding that is not reproduced has also newly
    failed, and its verdict has moved)."""

    old: Run
    new: Run
    compared: int = 0
    only_old: list[Change] = field(default_factory=list)
    only_new: list[Change] = field(default_factory=list)
    moved: list[Change] = field(default_factory=list)
    new_findings: list[Change] = field(default_factory=list)
    lost_findings: list[Change] = field(default_factory=list)
    newly_failing: list[Change] = field(default_factory=list)
    statistics_moved: list[Change] = field(default_factory=list)
    differences: list[SettingDifference] = field(default_factory=list)

    @property
    def got_worse(self) -> bool:
        """Whether some claim newly fails: the comparison's exit code is 1 then, 0 otherwise."""
        return bool(self.newly_failing)

    @property
    def exit_code(self) -> int:
        return 1 if self.got_worse else 0

    def headline(self) -> str:
        """E.g. ``3 verdicts moved, 1 new finding, 0 lost, 1 newly failing (40 claims in both runs)``."""
        text = (f"{counted(len(self.moved), 'verdict')} moved, {counted(len(self.new_findings), 'new finding')}, "
                f"{len(self.lost_findings)} lost, {len(self.newly_failing)} newly failing "
                f"({counted(self.compared, 'claim')} in both runs")
        if self.only_old:
            text += f", {len(self.only_old)} only in the old run"
        if self.only_new:
            text += f", {len(self.only_new)} only in the new run"
        return text + ")"

    def warnings(self) -> list[str]:
        """One line per setting that differs: the comparison is shown, but verdicts may move for it."""
        return [d.describe() + ("; verdicts may move for this reason alone" if d.name in RUN_SETTINGS else "")
                for d in self.differences]

    def to_dict(self) -> dict[str, Any]:
        def run(r: Run) -> dict[str, Any]:
            return {"source": r.source, **r.settings, "dpaudit_version": r.version}

        sections = ("newly_failing", "new_findings", "lost_findings", "moved", "statistics_moved", "only_old",
                    "only_new")
        return {"headline": self.headline(), "exit_code": self.exit_code, "old": run(self.old),
                "new": run(self.new), "warnings": self.warnings(), "compared": self.compared,
                **{name: [c.to_dict() for c in getattr(self, name)] for name in sections}}


def _claims_of(run: Run) -> str:
    """E.g. ``9 claims of testing-compare`` or ``no claims``: what a run holds, for a message."""
    if not run.records:
        return "no claims"
    suites = sorted({r.claim_id.split("/", 1)[0] for r in run.records.values()})
    named = ", ".join(suites[:3]) + (f" and {len(suites) - 3} more suites" if len(suites) > 3 else "")
    return f"{counted(len(run.records), 'claim')} of {named}"


def _side(record: AuditResult) -> Side:
    stat = record.statistic.describe() if record.statistic is not None else None
    footing = (record.expected or {}).get("footing") if record.outcome == EXPECTED_REFUTATION else None
    return Side(record.verdict, record.outcome, stat, certified_value(record), footing)


def moved_materially(old: float | None, new: float | None, tolerance: float = DEFAULT_TOLERANCE) -> bool:
    """Whether a certified value changed by more than ``tolerance`` of the larger magnitude; a value
    appearing, disappearing or becoming infinite (or NaN) always counts."""
    if old is None or new is None:
        return (old is None) != (new is None)
    if math.isnan(old) or math.isnan(new):
        return math.isnan(old) != math.isnan(new)
    if math.isinf(old) or math.isinf(new):
        return old != new
    return abs(new - old) > tolerance * max(abs(old), abs(new))


def compare_runs(old: Run, new: Run, tolerance: float = DEFAULT_TOLERANCE) -> Comparison:
    """What changed from ``old`` to ``new`` (see :class:`Comparison`), read off the two runs' results frames
    (:func:`~dpaudit.reports.frames.results_frame`) joined on the claim id.

    A claim *newly fails* when its new outcome fails (unexpected refutation, not reproduced, error) and
    differs from its old one, including a claim only in the new run. A *new finding* is a claim refuted as
    expected now and not before (also a claim new to the run); a *lost finding* one refuted as expected
    before and not now; a refutation outside its statement's hypotheses (footing "hypothesis not met") is no
    finding, and a claim moving into or out of that label has moved. A claim only in the old run is listed, not
    counted as lost: a selection can leave
    it out. A certified statistic is compared only when the claim's verdict and statistic are the same kind
    in both runs (a certified value that is missing and one that is NaN read alike: the frame has NaN for both).
    Two runs that share no claim are not compared: :class:`ValueError`, naming both runs and their suites (every
    claim of the new run would otherwise count as newly failing or a new finding)."""
    if not old.records.keys() & new.records.keys():
        raise ValueError(f"{old.source} and {new.source} share no claim ({_claims_of(old)}; {_claims_of(new)}): "
                         "compare two runs of the same suites")
    comparison = Comparison(old, new)
    for name in RUN_SETTINGS:
        if old.settings.get(name) != new.settings.get(name):
            comparison.differences.append(SettingDifference(name, old.settings.get(name), new.settings.get(name)))
    if old.version != new.version:
        comparison.differences.append(SettingDifference("dpaudit version", old.version, new.version))

    import pandas as pd

    both = pd.merge(_frame(old), _frame(new), how="outer", left_index=True, right_index=True, sort=True,
                    suffixes=("_old", "_new"))
    in_old, in_new = both["verdict_old"].notna(), both["verdict_new"].notna()
    in_both = in_old & in_new
    outcome_old, outcome_new = both["outcome_old"], both["outcome_new"]
    # an expected refutation outside its statement's hypotheses is no finding; moving in or out of that label moves
    outside_old = (outcome_old == EXPECTED_REFUTATION) & (both["footing_old"] == HYPOTHESIS_NOT_MET)
    outside_new = (outcome_new == EXPECTED_REFUTATION) & (both["footing_new"] == HYPOTHESIS_NOT_MET)
    moved = in_both & ((both["verdict_old"] != both["verdict_new"]) | (outcome_old != outcome_new)
                       | (outside_old != outside_new))
    found_old = (outcome_old == EXPECTED_REFUTATION) & ~outside_old
    found_new = (outcome_new == EXPECTED_REFUTATION) & ~outside_new
    failing = outcome_new.isin(FAILING) & (outcome_new != outcome_old)  # a claim new to the run too
    same_kind = both["verdict_old"] == both["verdict_new"]  # False where either run lacks the claim
    for column in ("statistic", "kind"):  # equal, or missing in both
        a, b = both[f"{column}_old"], both[f"{column}_new"]
        same_kind &= (a == b) | (a.isna() & b.isna())
    statistic_moved = same_kind & np.array([moved_materially(_number(a), _number(b), tolerance)
                                            for a, b in zip(both["bound_old"], both["bound_new"], strict=True)],
                                           dtype=bool)
    sections = {"only_new": in_new & ~in_old, "only_old": in_old & ~in_new, "moved": moved,
                "new_findings": found_new & ~found_old, "lost_findings": in_both & found_old & ~found_new,
                "newly_failing": failing, "statistics_moved": statistic_moved}
    comparison.compared = int(in_both.sum())
    for name, mask in sections.items():
        getattr(comparison, name).extend(_change(old, new, key) for key in both.index[mask.to_numpy(dtype=bool)])
    return comparison


def _frame(run: Run) -> pd.DataFrame:
    """What the comparison reads of a run's records, indexed by the case-folded claim id."""
    import pandas as pd

    frame = results_frame(run.records.values())
    frame.index = pd.Index(list(run.records), name="claim")
    return frame[["verdict", "outcome", "statistic", "kind", "bound", "footing"]]


def _number(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _change(old: Run, new: Run, key: str) -> Change:
    before, after = old.records.get(key), new.records.get(key)
    claim_id = (after or before).claim_id  # type: ignore[union-attr]  # one of them exists
    return Change(claim_id, before and _side(before), after and _side(after))


__all__ = ["DEFAULT_TOLERANCE", "FAILING", "Change", "Comparison", "Run", "Side", "SettingDifference",
           "certified_value", "compare_runs", "load_run", "moved_materially"]
