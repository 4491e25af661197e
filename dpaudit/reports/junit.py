"""``junit.xml``: one test case per claim, so CI systems show audits like tests.

unexpected refutation or an expected refutation not reproduced -> failure; error -> error;
expected refutation -> skipped, with the accepted reason; otherwise passed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from ..core.results import ERROR, EXPECTED_REFUTATION, NOT_REPRODUCED, UNEXPECTED_REFUTATION
from .summary import by_paper, statistic_text, witness_text


def _testcase(r: dict[str, Any]) -> ET.Element:
    case = ET.Element(
        "testcase",
        classname=f"dpaudit.{r.get('paper') or 'claims'}",
        name=str(r["claim_id"]),
        time=f"{float(r.get('seconds') or 0):.3f}",
    )
    outcome = r.get("outcome")
    summary = f"{r['verdict']}: {statistic_text(r)}"
    if outcome == UNEXPECTED_REFUTATION:
        el = ET.SubElement(case, "failure", message=f"claim refuted: {summary}", type="refuted")
        el.text = witness_text(r)
    elif outcome == NOT_REPRODUCED:
        reason = (r.get("expected") or {}).get("reason") or ""
        el = ET.SubElement(case, "failure", message=f"expected refutation not reproduced: {summary}",
                           type="not-reproduced")
        el.text = f"expected refuted because: {reason}"
    elif outcome == ERROR:
        err = r.get("error") or {}
        el = ET.SubElement(case, "error", message=str(err.get("message", "")), type=str(err.get("type", "error")))
        el.text = err.get("traceback") or ""
    elif outcome == EXPECTED_REFUTATION:
        reason = (r.get("expected") or {}).get("reason") or ""
        ET.SubElement(case, "skipped", message=f"expected refutation: {reason}")
    out = ET.SubElement(case, "system-out")
    out.text = summary + ("\n" + "\n".join(r.get("notes") or []) if r.get("notes") else "")
    return case


def render_junit(document: dict[str, Any]) -> bytes:
    records = document.get("records", [])
    root = ET.Element("testsuites", name="dpaudit")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for paper, group in by_paper(records).items():
        suite = ET.SubElement(root, "testsuite", name=paper)
        counts = {
            "tests": len(group),
            "failures": sum(r.get("outcome") in (UNEXPECTED_REFUTATION, NOT_REPRODUCED) for r in group),
            "errors": sum(r.get("outcome") == ERROR for r in group),
            "skipped": sum(r.get("outcome") == EXPECTED_REFUTATION for r in group),
            "time": sum(float(r.get("seconds") or 0) for r in group),
        }
        for key, value in counts.items():
            suite.set(key, f"{value:.3f}" if key == "time" else str(value))
            totals[key] += value
        for r in group:
            suite.append(_testcase(r))
    for key, value in totals.items():
        root.set(key, f"{value:.3f}" if key == "time" else str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
