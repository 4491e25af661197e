"""Durable files: atomic replacement with the user's umask, and reading a results file back."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .results import READABLE_VERSIONS, SCHEMA, SCHEMA_VERSION

#: the fields every record of a results file has (schema versions 1 and 2); the reports rely on them
RECORD_FIELDS = ("claim_id", "verdict", "outcome", "claim", "auditor", "subject", "statistic", "epsilon_lower",
                 "delta_lower", "confidence", "alpha", "samples", "seed", "seconds", "witness", "notes",
                 "parameters", "relation", "title", "paper", "budget", "expected", "plots", "error")


def _umask() -> int:
    """The process's umask: from /proc where there is one, since ``os.umask`` can only be read by
    setting it, which races with other threads creating files."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` so that readers see the old or the new file, never a part:
    write a temporary sibling, fsync it, rename it over ``path``, fsync the directory.

    The file gets the mode a plain ``open`` would give it (0666 less the umask), not the 0600 of a
    temporary file: reports are read by CI artifact viewers and web servers running as other users."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), 0o666 & ~_umask())
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def load_results(path: Path) -> dict[str, Any]:
    """Read and check a results file; a damaged one raises :class:`ValueError` naming the file."""
    with open(path, encoding="utf-8") as fh:
        try:
            doc = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON (truncated or damaged?): {exc}") from None
        except UnicodeDecodeError:
            raise ValueError(f"{path} is not a text file; is it a dpaudit results file?") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ValueError(f"{path} is not a dpaudit results file")
    if doc.get("schema_version") not in READABLE_VERSIONS:
        raise ValueError(
            f"{path} has results schema version {doc.get('schema_version')}; this dpaudit reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))} and writes {SCHEMA_VERSION}"
        )
    check_records(path, doc)
    return doc


def check_records(path: Path, doc: dict[str, Any]) -> None:
    """Raise :class:`ValueError` naming the first record of ``doc`` that lacks a field."""
    records = doc.get("records")
    if not isinstance(records, list):
        raise ValueError(f"{path}: 'records' must be a list of records")
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise ValueError(f"{path}: record {index} is not a JSON object")
        missing = [name for name in RECORD_FIELDS if name not in record]
        if missing:
            name = record.get("claim_id", f"number {index}")
            raise ValueError(f"{path}: record {name} lacks the field(s) {', '.join(missing)}; "
                             "the file was edited or written by another program")
