"""``results.json``: the run's records, rewritten atomically (:func:`dpaudit.files.atomic_write`)
after every finished claim, so a run killed at any moment leaves a complete, valid file holding
every claim that had finished. Records are kept sorted by claim id, so the file does not depend on the order in
which workers finish.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._version import __version__
from ..files import atomic_write, load_results
from ..results import ERROR, SCHEMA, SCHEMA_VERSION


class ResultsStore:
    """The records of one run, kept in ``results.json``."""

    def __init__(self, path: Path, run: dict[str, Any]):
        self.path = path
        self.run = run
        self.records: dict[str, dict[str, Any]] = {}

    def reusable(self, expected: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Records of a previous run at ``path`` that ``--resume`` may keep: finished (not
        errors) with the same run seed, budget and alpha share as this run would use.
        ``expected`` maps claim-id keys to ``{"run_seed", "budget", "alpha"}``."""
        if not self.path.exists():
            return {}
        try:
            previous = load_results(self.path)
        except (ValueError, OSError) as exc:
            raise ValueError(f"--resume: cannot read {self.path}: {exc}") from exc
        keep: dict[str, dict[str, Any]] = {}
        if previous.get("schema_version") != SCHEMA_VERSION:
            return keep  # records of another schema version are audited again rather than mixed in
        for record in previous.get("records", []):
            key = str(record.get("claim_id", "")).casefold()
            want = expected.get(key)
            if want is None or record.get("verdict") == ERROR:
                continue
            seed = record.get("seed") or {}
            if (
                seed.get("run_seed") == want["run_seed"]
                and record.get("budget") == want["budget"]
                and record.get("alpha") == want["alpha"]
            ):
                keep[key] = record
        return keep

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
