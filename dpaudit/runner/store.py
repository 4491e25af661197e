"""``results.json``: the run's records, rewritten atomically (:func:`dpaudit.core.files.atomic_write`)
after every finished claim, so a run killed at any moment leaves a complete, valid file holding
every claim that had finished. Records are kept sorted by claim id, so the file does not depend on the order in
which workers finish.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..core.files import atomic_write, load_results
from ..core.results import ERROR, SCHEMA, SCHEMA_VERSION

#: the run options a resumed run must share with the run it resumes, with their command-line flags
RUN_OPTIONS = (("seed", "--seed"), ("budget", "--budget"), ("alpha", "--alpha"))


@dataclass
class Resumption:
    """What ``--resume`` does with the records of the previous run: ``kept`` (by claim-id key),
    ``rerun`` (claim id, why), and ``dropped``: the ids of claims outside this run's selection."""

    kept: dict[str, dict[str, Any]] = field(default_factory=dict)
    rerun: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def describe(self, path: Path, to_run: int) -> str:
        """One line for the run's log: what is kept, what runs again and why, what is left out."""
        text = f"resuming: {len(self.kept)} claim(s) already finished in {path} are kept, {to_run} to run"
        reasons = Counter(reason for _, reason in self.rerun)
        if reasons:
            text += " (rerun: " + ", ".join(f"{n} with {reason}" for reason, n in sorted(reasons.items())) + ")"
        if self.dropped:
            text += (f"; {len(self.dropped)} record(s) of claims outside this selection are not carried over: "
                     + ", ".join(self.dropped[:5]) + (" ..." if len(self.dropped) > 5 else ""))
        return text


class ResultsStore:
    """The records of one run, kept in ``results.json``."""

    def __init__(self, path: Path, run: dict[str, Any]):
        self.path = path
        self.run = run
        self.records: dict[str, dict[str, Any]] = {}

    def reusable(self, expected: dict[str, dict[str, Any]]) -> Resumption:
        """What ``--resume`` keeps of the previous run at ``path``: its finished records (not errors)
        with the same run seed, budget and alpha share as this run would use. ``expected`` maps
        claim-id keys to ``{"run_seed", "budget", "alpha"}``.

        A previous run made with another ``--seed``, ``--budget`` or ``--alpha`` raises
        :class:`ValueError` saying what differs: none of its records could be kept, and resuming
        would silently replace them all."""
        resumption = Resumption()
        if not self.path.exists():
            return resumption
        try:
            previous = load_results(self.path)
        except (ValueError, OSError) as exc:
            raise ValueError(f"--resume: cannot read {self.path}: {exc}") from exc
        before = previous.get("run") or {}
        differ = [f"{flag} {before[key]!r} there, {self.run[key]!r} now"
                  for key, flag in RUN_OPTIONS if key in before and before[key] != self.run[key]]
        if differ:
            raise ValueError(f"--resume: {self.path} was made with other options ({'; '.join(differ)}); rerun "
                             "with the same options, or start over without --resume or with another --out")
        if previous.get("schema_version") != SCHEMA_VERSION:
            # records of another schema version are audited again rather than mixed in
            resumption.rerun.extend((str(r.get("claim_id")), "another results schema version")
                                    for r in previous.get("records", []))
            return resumption
        for record in previous.get("records", []):
            key = str(record.get("claim_id", "")).casefold()
            want = expected.get(key)
            seed = record.get("seed") or {}
            if want is None:
                resumption.dropped.append(str(record.get("claim_id")))
            elif record.get("verdict") == ERROR:
                resumption.rerun.append((record["claim_id"], "an error"))
            elif seed.get("run_seed") != want["run_seed"] or record.get("budget") != want["budget"]:
                resumption.rerun.append((record["claim_id"], "another seed or budget"))
            elif record.get("alpha") != want["alpha"]:
                resumption.rerun.append((record["claim_id"], "another alpha share (the selection changed how "
                                                              "alpha is split)"))
            else:
                resumption.kept[key] = record
        return resumption

    def put(self, record: dict[str, Any]) -> None:
        self.records[str(record["claim_id"]).casefold()] = record

    def document(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "dpaudit_version": __version__,
            "run": self.run,
            "records": [self.records[k] for k in sorted(self.records)],
        }

    def write(self) -> None:
        text = json.dumps(self.document(), indent=1, sort_keys=False, allow_nan=False)
        atomic_write(self.path, text.encode("utf-8") + b"\n")
