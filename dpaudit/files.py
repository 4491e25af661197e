"""Durable files: atomic replacement, and reading a results file back."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .results import READABLE_VERSIONS, SCHEMA, SCHEMA_VERSION


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` so that readers see the old or the new file, never a part:
    write a temporary sibling, fsync it, rename it over ``path``, fsync the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
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
    """Read and check a results file."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ValueError(f"{path} is not a dpaudit results file")
    if doc.get("schema_version") not in READABLE_VERSIONS:
        raise ValueError(
            f"{path} has results schema version {doc.get('schema_version')}; this dpaudit reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))} and writes {SCHEMA_VERSION}"
        )
    return doc
