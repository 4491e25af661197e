"""``results.json``: the run's records, rewritten atomically (:func:`dpaudit.core.files.atomic_write`)
after every finished claim, so a run killed at any moment leaves a complete, valid file holding
every claim that had finished. Records are kept sorted by claim id, so the file does not depend on the order in
which workers finish.
"""

from __future__ import annotations

import hashlib
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
#: fields left out of a record's digest: the digest itself, and the mark a later run sets when it reuses it
UNSEALED = ("digest", "reused")


def record_digest(record: dict[str, Any]) -> str:
    """SHA-256 of a record's content (its canonical JSON), :data:`UNSEALED` fields left out."""
    content = {k: v for k, v in record.items() if k not in UNSEALED}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def seal(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its :func:`record_digest` as ``digest`` (a copy)."""
    return {**record, "digest": record_digest(record)}


@dataclass
class Resumption:
    """What a run into a folder does with the records of the run before it: ``kept`` (by claim-id key), ``rerun``
    (claim id, why), ``untrusted`` (claim id, why: damaged, edited, or from before content keys; never reused)
    and ``dropped``: the ids of claims outside this run's selection."""

    kept: dict[str, dict[str, Any]] = field(default_factory=dict)
    rerun: list[tuple[str, str]] = field(default_factory=list)
    untrusted: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def describe(self, path: Path, to_run: int, resume: bool = False) -> str:
        """One line for the run's log: what is kept, what runs again and why, what is left out."""
        if resume:
            text = f"resuming: {len(self.kept)} claim(s) already finished in {path} are kept, {to_run} to run"
        else:
            text = (f"reusing {len(self.kept)} record(s) of {path} whose content key is unchanged; {to_run} claim(s) "
                    "to run (--fresh runs every claim)")
        reasons = Counter(reason for _, reason in self.rerun)
        if reasons:
            text += " (rerun: " + ", ".join(f"{n} with {reason}" for reason, n in sorted(reasons.items())) + ")"
        if self.dropped:
            text += (f"; {len(self.dropped)} record(s) of claims outside this selection are not carried over: "
                     + ", ".join(self.dropped[:5]) + (" ..." if len(self.dropped) > 5 else ""))
        return text

    def warning(self, path: Path) -> str | None:
        """One line naming the records that cannot be trusted (they are audited again), or None."""
        if not self.untrusted:
            return None
        reasons = Counter(reason for _, reason in self.untrusted)
        ids = [cid for cid, _ in self.untrusted]
        return (f"warning: ignored {len(ids)} record(s) of {path} that cannot be trusted ("
                + ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items())) + "), audited again: "
                + ", ".join(ids[:3]) + (" ..." if len(ids) > 3 else ""))


class ResultsStore:
    """The records of one run, kept in ``results.json``."""

    def __init__(self, path: Path, run: dict[str, Any]):
        self.path = path
        self.run = run
        self.records: dict[str, dict[str, Any]] = {}
        #: each record's JSON text as it sits in the file, made once: the file is rewritten after every claim,
        #: and serialising every record each time made a run's writes quadratic (0.3 s per write at 500 claims)
        self._texts: dict[str, str] = {}

    def previous(self, strict: bool) -> dict[str, Any] | None:
        """The results file already at ``path`` (None if there is none). One that cannot be read raises
        :class:`ValueError` under ``strict`` (``--resume``); otherwise it is moved aside to
        ``results.json.unreadable`` (nothing is lost) and the :class:`UnreadableResults` says so."""
        if not self.path.exists():
            return None
        try:
            return load_results(self.path)
        except (ValueError, OSError) as exc:
            if strict:
                raise ValueError(f"--resume: cannot read {self.path}: {exc}") from exc
            aside = self.path.with_name(self.path.name + ".unreadable")
            self.path.replace(aside)
            raise UnreadableResults(f"warning: {exc}; moved aside to {aside}, every claim is audited") from None

    def reusable(self, expected: dict[str, dict[str, Any]], *, strict: bool = False) -> Resumption:
        """What this run keeps of the records already at ``path``: the finished ones (not errors) whose content
        key (:mod:`dpaudit.runner.keys`) equals the one this run computes for the claim, with an intact digest.
        ``expected`` maps claim-id keys to ``{"key", "run_seed", "budget", "alpha"}``.

        Under ``strict`` (``--resume``), a previous run made with another ``--seed``, ``--budget`` or ``--alpha``
        raises :class:`ValueError` saying what differs: none of its records could be kept, and resuming would
        silently replace them all."""
        resumption = Resumption()
        previous = self.previous(strict)
        if previous is None:
            return resumption
        before = previous.get("run") or {}
        differ = [f"{flag} {before[key]!r} there, {self.run[key]!r} now"
                  for key, flag in RUN_OPTIONS if key in before and before[key] != self.run[key]]
        if differ and strict:
            raise ValueError(f"--resume: {self.path} was made with other options ({'; '.join(differ)}); rerun "
                             "with the same options, or start over without --resume or with another --out")
        if previous.get("schema_version") != SCHEMA_VERSION:
            # records of another schema version are audited again rather than mixed in
            resumption.rerun.extend((str(r.get("claim_id")), "another results schema version")
                                    for r in previous.get("records", []))
            return resumption
        version = previous.get("dpaudit_version")
        for record in previous.get("records", []):
            claim_id = str(record.get("claim_id", ""))
            want = expected.get(claim_id.casefold())
            if want is None:
                resumption.dropped.append(claim_id)
            elif version != __version__:
                resumption.rerun.append((claim_id, f"dpaudit {version} (this is {__version__})"))
            elif not record.get("digest"):
                resumption.untrusted.append((claim_id, "without a digest (written before content keys)"))
            elif record.get("digest") != record_digest(record):
                resumption.untrusted.append((claim_id, "whose digest does not match (damaged or edited)"))
            elif record.get("verdict") == ERROR:
                resumption.rerun.append((claim_id, "an error"))
            elif want["key"] is None:
                resumption.rerun.append((claim_id, "no content key (audited every time)"))
            elif record.get("key") != want["key"]:
                resumption.rerun.append((claim_id, _why_changed(record, want)))
            else:
                resumption.kept[claim_id.casefold()] = {**record, "reused": True}
        return resumption

    def put(self, record: dict[str, Any]) -> None:
        """Keep ``record``, sealed with its digest (a reused one keeps its own)."""
        if record.get("digest") is None:
            record = seal(record)
        key = str(record["claim_id"]).casefold()
        self.records[key] = record
        self._texts.pop(key, None)

    def _head(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "dpaudit_version": __version__, "run": self.run}

    def document(self) -> dict[str, Any]:
        return {**self._head(), "records": [self.records[k] for k in sorted(self.records)]}

    def text(self) -> str:
        """The file's text: ``json.dumps(self.document(), indent=1)``, assembled from each record's text made
        once (a record's lines sit two levels deep in the file, hence the two spaces added to each)."""
        shell = json.dumps({**self._head(), "records": []}, indent=1, sort_keys=False, allow_nan=False)
        if not self.records:
            return shell
        for key in self.records.keys() - self._texts.keys():
            self._texts[key] = json.dumps(self.records[key], indent=1, sort_keys=False,
                                          allow_nan=False).replace("\n", "\n  ")
        items = ",\n  ".join(self._texts[k] for k in sorted(self.records))
        if not shell.endswith('"records": []\n}'):  # records is the document's last key; if that ever changes
            return json.dumps(self.document(), indent=1, sort_keys=False, allow_nan=False)
        return shell[: -len("[]\n}")] + "[\n  " + items + "\n ]\n}"

    def write(self) -> None:
        atomic_write(self.path, self.text().encode("utf-8") + b"\n")


class UnreadableResults(Exception):
    """The results file of the folder could not be read; it was moved aside (the message says where)."""


def _why_changed(record: dict[str, Any], want: dict[str, Any]) -> str:
    """Why a record's key differs from this run's, as far as the record tells: its options, else the code or
    the entry (the key does not say which part changed)."""
    seed = record.get("seed") or {}
    if seed.get("run_seed") != want["run_seed"] or record.get("budget") != want["budget"]:
        return "another seed or budget"
    if record.get("alpha") != want["alpha"]:
        return "another alpha share (the selection changed how alpha is split)"
    return "a changed content key (code, entry or versions)"
