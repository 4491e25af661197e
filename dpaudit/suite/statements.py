"""Every numbered statement of a paper, and what audits it: the coverage table of a paper's suite.

Each paper's suite package keeps a ``statements.toml`` beside its modules. It lists every numbered statement
the paper prints (theorem, lemma, corollary, proposition, claim, observation, fact, remark with a quantity,
figure, table), and for each one the parts a reader could check (its privacy, tail, accuracy, regret,
lower-bound or experimental statement), each either audited by suite entries or left out with a reason::

    [[statement]]
    id = "thm3.2"                     # the stem the suite's ids use
    printed = "Theorem 3.2"           # the paper's own number
    says = "Algorithm 2 is (eps, delta)-CSDP and an (n, alpha, beta)-summation algorithm"

      [[statement.part]]
      part = "privacy"
      entries = ["thm3.2-privacy"]    # selectors, as on the command line: an id, an id without its point, a glob

      [[statement.part]]
      part = "accuracy"
      what = "alpha"                  # which of the statement's accuracy statements (needed when a kind repeats)
      checkable = false               # printed with no constant to hold it to
      reason = "alpha printed as O(.) only"
      see = ["thm3.2-accuracy@step*"] # entries the reason points to (required when it says "audited ...")

A part is checkable unless it says ``checkable = false``: printed only as O(.), with existential or unprinted
constants, or lost in the text, it states nothing a number could refute; it still gives its reason. A
checkable part left out (an exact law out of reach, a regime no simulable horizon reaches) gives its reason
too. A statement with no part at all (a definition, a pointer to another paper) carries ``reason`` itself.
A statement is *encoded* when every checkable part has entries, *partly* when some do, *left out* when it has
checkable parts and none does, and has *nothing to check* when no part is checkable.

:func:`problems` lists what makes a table wrong: a part with neither entries nor a reason, a selector that selects
nothing, a reason that says a statement is "audited with" or "audited as" something without naming
the entries that do it, an entry outside its statement's hypotheses (footing "hypothesis not met") listed as auditing
it, and a suite entry that no statement claims.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources

from ..core.claim_ids import PAPERS, selector_matches

#: what a statement part may be about: a privacy guarantee; a tail or concentration bound on a law; a confidence
#: statement about an estimator (a set or inequality that holds with a stated probability on the algorithm's runs);
#: an accuracy or error bound; a regret bound, rate or ordering; a lower bound; a deterministic inequality or
#: identity (a link's property, a conversion, budget arithmetic); a message or memory count; what an experiment
#: (a figure or table) shows
PART_KINDS = ("privacy", "tail", "confidence", "accuracy", "regret", "lower-bound", "inequality", "communication",
              "experiment")

#: the statuses of a statement, in the order the coverage tables list them
STATUSES = ("encoded", "partly", "left out", "nothing to check")

#: a reason that says the statement is audited elsewhere must name the entries that audit it
_POINTS_ELSEWHERE = re.compile(r"\baudited\s+(?:with|as|by|on|through|in)\b", re.IGNORECASE)

TABLE_NAME = "statements.toml"


@dataclass(frozen=True)
class Part:
    """One checkable part of a statement: audited by ``entries``, or left out for ``reason``."""

    part: str
    entries: tuple[str, ...] = ()
    reason: str = ""
    see: tuple[str, ...] = ()
    checkable: bool = True
    #: which of the statement's parts of this kind ("rate in T", "the eps-rate"): needed when a kind repeats
    what: str = ""

    @property
    def name(self) -> str:
        return f"{self.part} ({self.what})" if self.what else self.part

    @property
    def encoded(self) -> bool:
        return bool(self.entries)


@dataclass(frozen=True)
class Statement:
    """A numbered statement of a paper (``printed`` as the paper numbers it) and its parts."""

    id: str
    printed: str
    says: str
    parts: tuple[Part, ...] = ()
    reason: str = ""  # for a statement with nothing to check
    see: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        checkable = [p for p in self.parts if p.checkable]
        if not checkable:
            return "nothing to check"
        encoded = sum(p.encoded for p in checkable)
        if encoded == len(checkable):
            return "encoded"
        return "partly" if encoded else "left out"

    def selectors(self) -> tuple[str, ...]:
        """Every selector the statement names, in its parts' entries and in what its reasons point to."""
        return self.see + tuple(s for p in self.parts for s in p.entries + p.see)


@dataclass(frozen=True)
class StatementTable:
    paper: str
    statements: tuple[Statement, ...] = field(default=())

    def counts(self) -> dict[str, int]:
        """Statements per status (every status present, zeros included), and their total."""
        found = Counter(s.status for s in self.statements)
        return {"statements": len(self.statements), **{status: found[status] for status in STATUSES}}


class TableError(ValueError):
    """A statements table that cannot be read: a missing field, an unknown key, a wrong type."""


def _strings(value, where: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise TableError(f"{where} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _text(row: dict, key: str, where: str, required: bool = False) -> str:
    value = row.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise TableError(f"{where}: {key!r} must be a non-empty string" if required
                         else f"{where}: {key!r} must be a string")
    return value.strip()


def _part(row: dict, where: str) -> Part:
    unknown = set(row) - {"part", "what", "entries", "reason", "see", "checkable"}
    if unknown:
        raise TableError(f"{where}: unknown keys {sorted(unknown)}")
    kind = _text(row, "part", where, required=True)
    if kind not in PART_KINDS:
        raise TableError(f"{where}: part {kind!r} must be one of {', '.join(PART_KINDS)}")
    checkable = row.get("checkable", True)
    if not isinstance(checkable, bool):
        raise TableError(f"{where}: 'checkable' must be true or false, got {checkable!r}")
    return Part(kind, _strings(row.get("entries", []), f"{where} entries"), _text(row, "reason", where),
                _strings(row.get("see", []), f"{where} see"), checkable, _text(row, "what", where))


def parse_table(paper: str, text: str) -> StatementTable:
    """The table of ``paper`` from the text of its ``statements.toml``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"{paper}'s {TABLE_NAME} is not TOML: {exc}") from exc
    statements = []
    for i, row in enumerate(data.get("statement", [])):
        where = f"{paper} statement {row.get('id', i)!r}"
        unknown = set(row) - {"id", "printed", "says", "part", "reason", "see"}
        if unknown:
            raise TableError(f"{where}: unknown keys {sorted(unknown)}")
        parts = tuple(_part(p, f"{where} part {j}") for j, p in enumerate(row.get("part", [])))
        statements.append(Statement(_text(row, "id", where, True), _text(row, "printed", where, True),
                                    _text(row, "says", where, True), parts, _text(row, "reason", where),
                                    _strings(row.get("see", []), f"{where} see")))
    return StatementTable(paper, tuple(statements))


def load_table(paper: str) -> StatementTable:
    """The statements table of a paper's built-in suite."""
    from .discovery import SUITES_PACKAGE

    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
    source = resources.files(f"{SUITES_PACKAGE}.{paper.replace('-', '_')}") / TABLE_NAME
    return parse_table(paper, source.read_text(encoding="utf-8"))


def problems(table: StatementTable, claim_ids: list[str], outside_hypotheses: frozenset[str] | set[str] = frozenset()
             ) -> list[str]:
    """What is wrong with ``table`` against the ids of its suite's entries (none: the table holds). An entry in
    ``outside_hypotheses`` (footing "hypothesis not met") does not audit its statement: it may be pointed to
    (``see``), never listed among a part's ``entries``."""
    found: list[str] = []
    ids_seen = Counter(s.id for s in table.statements)
    found += [f"statement {sid!r} is listed {n} times" for sid, n in ids_seen.items() if n > 1]
    claimed: set[str] = set()
    for s in table.statements:
        if not s.parts and not s.reason:
            found.append(f"{s.printed} ({s.id}): no part to check and no reason why")
        if s.parts and s.reason:
            found.append(f"{s.printed} ({s.id}): a reason for the whole statement beside its parts (give it per part)")
        kinds = Counter(p.name for p in s.parts)
        found += [f"{s.printed} ({s.id}): part {k!r} listed {n} times (say `what` each one is)"
                  for k, n in kinds.items() if n > 1]
        for p in s.parts:
            where = f"{s.printed} ({s.id}) part {p.name!r}"
            if not p.entries and not p.reason:
                found.append(f"{where}: neither entries nor a reason")
            if p.entries and p.reason:
                found.append(f"{where}: both entries and a reason (a partial audit is two parts)")
            if not p.checkable and (p.entries or not p.reason):
                found.append(f"{where}: not checkable, so it takes a reason and no entries (`see` may point to steps)")
            if _POINTS_ELSEWHERE.search(p.reason) and not p.see:
                found.append(f"{where}: its reason says it is audited elsewhere but names no entry (`see`)")
        if _POINTS_ELSEWHERE.search(s.reason) and not s.see:
            found.append(f"{s.printed} ({s.id}): its reason says it is audited elsewhere but names no entry (`see`)")
        for selector in s.selectors():
            full = f"{table.paper}/{selector}"
            hits = {cid for cid in claim_ids if selector_matches(full, cid)}
            if not hits:
                found.append(f"{s.printed} ({s.id}): {selector!r} selects no entry of {table.paper}")
            claimed |= hits
        for p in s.parts:
            for selector in p.entries:
                full = f"{table.paper}/{selector}"
                outside = sorted(cid for cid in outside_hypotheses if selector_matches(full, cid))
                found += [f"{s.printed} ({s.id}) part {p.name!r}: {cid} is outside the statement's hypotheses: point "
                          "to it with `see`, it does not audit the statement" for cid in outside]
    unclaimed = sorted(set(claim_ids) - claimed)
    found += [f"entry {cid} belongs to no statement" for cid in unclaimed]
    return found


def as_record(table: StatementTable) -> dict:
    """The table as the run's header keeps it (``run["statements"][paper]``): its counts and every statement."""
    def part(p: Part) -> dict:
        return {"part": p.part, "what": p.what, "checkable": p.checkable, "entries": list(p.entries),
                "reason": p.reason, "see": list(p.see)}

    return {"counts": table.counts(),
            "statements": [{"id": s.id, "printed": s.printed, "says": s.says, "status": s.status, "reason": s.reason,
                            "see": list(s.see), "parts": [part(p) for p in s.parts]} for s in table.statements]}
