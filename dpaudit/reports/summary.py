"""What every report shows: counts by paper and the fields of a claim section."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from ..claim_ids import PAPERS
from ..results import OUTCOMES, VERDICTS, Statistic, number_from_json

SUMMARY_COLUMNS = ("claims", *VERDICTS, "unexpected")
UNEXPECTED = ("unexpected-refutation", "not-reproduced")


def by_paper(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[r.get("paper") or str(r.get("claim_id", "")).partition("/")[0]].append(r)
    return dict(sorted(groups.items()))


def summary_rows(records: list[dict[str, Any]]) -> list[tuple[str, dict[str, int]]]:
    rows = []
    for paper, group in by_paper(records).items():
        counts = Counter(r["verdict"] for r in group)
        row = {"claims": len(group), **{v: counts.get(v, 0) for v in VERDICTS}}
        row["unexpected"] = sum(r.get("outcome") in UNEXPECTED for r in group)
        rows.append((paper, row))
    return rows


def outcome_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    counts = Counter(r.get("outcome") for r in records)
    return {o: counts.get(o, 0) for o in OUTCOMES}


def paper_title(key: str) -> str:
    return PAPERS.get(key, "")


def fmt_number(value: Any) -> str:
    x = number_from_json(value) if value is not None else None
    if x is None:
        return "—"
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "∞" if x > 0 else "-∞"
    return f"{x:.6g}"


def statistic_text(record: dict[str, Any]) -> str:
    stat = record.get("statistic")
    return Statistic.from_dict(stat).describe() if stat else "—"


def claim_fields(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, text) rows of a claim section, in display order."""
    claim = record.get("claim") or {}
    claim_text = " ".join(f"{k}={v}" for k, v in claim.items() if k != "kind")
    expected = record.get("expected") or {}
    seed = record.get("seed")
    rows = [
        ("verdict", f"{record['verdict']} ({record.get('outcome')})"),
        ("claim", f"{claim.get('kind', '')} {claim_text}".strip() or "—"),
        ("subject", record.get("subject") or "—"),
        ("relation", (record.get("relation") or {}).get("description", "—")),
        ("auditor", record.get("auditor") or "—"),
        ("statistic", statistic_text(record)),
        ("confidence", fmt_number(record.get("confidence"))),
        ("alpha allotted", fmt_number(record.get("alpha"))),
        ("samples per side", str(record.get("samples", 0))),
        ("seed", json.dumps(seed) if seed is not None else "—"),
        ("budget", record.get("budget") or "—"),
        ("seconds", f"{record.get('seconds', 0):.2f}"),
        ("expected", expected.get("verdict", "") + (f" — {expected['reason']}" if expected.get("reason") else "")),
    ]
    return rows


def witness_text(record: dict[str, Any]) -> str:
    witness = record.get("witness")
    return json.dumps(witness, indent=1, ensure_ascii=False) if witness else ""
