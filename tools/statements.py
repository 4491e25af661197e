"""Write docs/statements.md (every numbered statement of the five papers, and what audits it) and the counts in
docs/papers.md.

The page is rendered from the suites' tables (``audits/<paper>/statements.toml``); ``tests/test_statements.py``
fails when the pages and the tables differ, so rerun this script after changing a table.

    python tools/statements.py            # writes docs/statements.md and the counts in docs/papers.md
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "statements.md"
#: docs/papers.md carries the counts between these two lines
PAPERS_PAGE = ROOT / "docs" / "papers.md"
README = ROOT / "README.md"
COUNTS_START = "<!-- statements counts: written by tools/statements.py -->"
COUNTS_END = "<!-- end of statements counts -->"
#: docs/papers.md's table of the quick run's verdicts per suite, written from the quick run's snapshot
RUN_START = "<!-- quick-run counts: written by tools/statements.py -->"
RUN_END = "<!-- end of quick-run counts -->"
SNAPSHOT = ROOT / "tests" / "snapshots" / "quick-records.json.gz"
RUN_PAPERS = ("dist-mab", "private-online", "shuffle-lcb", "shuffle-glm", "concurrent-shuffle")
PRIVACY_KINDS = ("pure-dp", "approx-dp", "zcdp", "renyi-dp")
TAIL_KINDS = ("sub-gaussian", "sub-exponential", "tail-bound", "conformance")

HEADER = """# Every numbered statement, and what audits it

One row per numbered statement of the five papers (theorems, lemmas, corollaries, propositions, claims,
observations, facts, remarks with a quantity, figures, tables), in each paper's order. A statement's parts are
the kinds of thing it states (privacy, a tail or confidence bound, accuracy, regret, a lower bound, an
inequality, a communication count, what an experiment shows). A part is audited by the suite entries named
(`dpaudit list <paper>` lists them; `dpaudit run <paper>/<id>` runs them), or left out with the reason. A part
"with nothing to check" states no constant a number could refute (printed only as O(.), existential or unprinted
constants, lost in the text), and says so.

- **encoded**: every checkable part is audited;
- **partly**: some are;
- **left out**: none is, each with its reason;
- **nothing to check**: no part is checkable.

The tables live beside the suites (`audits/<paper>/statements.toml`), and the tests fail when a statement has
neither entries nor a reason, when a named entry does not exist, when a reason says a statement is audited
elsewhere without naming the entries, and when a suite entry belongs to no statement. The same counts, and
the statements partly audited or left out, are in every report of a run of a paper's suite.
"""


@functools.cache
def tables() -> dict:
    from dpaudit.core.claim_ids import PAPERS
    from dpaudit.suite.statements import as_record, load_table

    return {paper: as_record(load_table(paper)) for paper in PAPERS}


def _between(text: str, start_marker: str, end_marker: str, lines: list[str]) -> str:
    start, end = text.index(start_marker) + len(start_marker), text.index(end_marker)
    return text[:start] + "\n" + "\n".join(lines) + "\n" + text[end:]


def run_table() -> list[str]:
    """The quick run's tail, mechanism-privacy and algorithm-privacy verdicts per suite, from its snapshot (the
    records of ``dpaudit run --budget quick`` at seed 0, which tests/test_quick_run.py holds to a fresh run); an
    entry's group comes from its kind of claim and, for privacy, whether its subject is an algorithm's transcript."""
    import gzip
    import json

    from dpaudit.bandits.contextual_transcripts import ContextualTranscript
    from dpaudit.bandits.transcripts import DecisionTranscript
    from dpaudit.suite import load_suites
    from dpaudit.suite.entries import PrivacyEntry

    records = json.loads(gzip.decompress(SNAPSHOT.read_bytes()))["records"]
    privacy = {r["claim_id"] for r in records if r["claim"]["kind"] in PRIVACY_KINDS}
    suites = load_suites()
    transcripts = {str(entry.claim_id) for paper in RUN_PAPERS for entry in suites[paper].entries
                   # only these (DP-SGD entries, which are never transcripts, build their subjects slowly)
                   if isinstance(entry, PrivacyEntry) and str(entry.claim_id) in privacy
                   and isinstance(entry.subject, (DecisionTranscript, ContextualTranscript))}
    verdicts = ("verified", "not-refuted", "refuted")
    groups = ("tail / distributional", "mechanism privacy", "algorithms' outputs")
    header = "| suite | " + " | ".join(f"{g}: claims | verified | not refuted | refuted" for g in groups)
    lines = [header + " |", "|---" + "|---:" * 4 * len(groups) + "|"]

    def group_of(record: dict) -> str | None:
        kind = record["claim"]["kind"]
        if kind in TAIL_KINDS:
            return groups[0]
        if kind in PRIVACY_KINDS:
            return groups[2] if record["claim_id"] in transcripts else groups[1]
        return None

    total = 0
    for paper in RUN_PAPERS:
        cells = []
        for group in groups:
            chosen = [r for r in records if r["paper"] == paper and group_of(r) == group]
            total += len(chosen)
            cells += [len(chosen)] + [sum(r["verdict"] == v for r in chosen) for v in verdicts]
        lines.append(f"| `{paper}` | " + " | ".join(str(c) for c in cells) + " |")
    return lines + ["", f"{total} claims in these groups. A refutation is counted whatever its footing (as printed, "
                        "from damaged text, a proof step, an evident typo, or an instance outside the statement's "
                        "hypotheses); the findings below give each one's."]


def papers_page(text: str) -> str:
    """docs/papers.md's text with the statement counts and the quick run's table rewritten (from the tables and the
    quick run's snapshot)."""
    from dpaudit.reports.coverage import counts_table

    text = _between(text, COUNTS_START, COUNTS_END, counts_table(tables()))
    return _between(text, RUN_START, RUN_END, run_table())


#: the README's sentence with the totals, rewritten from the tables
README_TOTALS = re.compile(r"\(\d+ numbered statements; of the \d+ with something\s+a number could refute, \d+ "
                           r"have every such part audited\)")


def totals() -> tuple[int, int, int]:
    """(statements, statements with a checkable part, statements with every checkable part audited), all papers."""
    counts = [table["counts"] for table in tables().values()]
    statements = sum(c["statements"] for c in counts)
    checkable = statements - sum(c["nothing to check"] for c in counts)
    return statements, checkable, sum(c["encoded"] for c in counts)


def readme_page(text: str) -> str:
    """README.md's text with its totals sentence rewritten from the tables."""
    statements, checkable, encoded = totals()
    return README_TOTALS.sub(f"({statements} numbered statements; of the {checkable} with something\na number could "
                             f"refute, {encoded} have every such part audited)", text, count=1)


def render() -> str:
    from dpaudit.core.claim_ids import PAPERS
    from dpaudit.reports.coverage import counts_table, full_table

    found = tables()
    lines = [HEADER.rstrip("\n"), ""] + counts_table(found) + [""]
    for paper, table in found.items():
        lines += [f"## {paper}", "", PAPERS[paper], ""] + full_table(paper, table) + [""]
    return "\n".join(lines)


def main() -> int:
    PAGE.write_text(render(), encoding="utf-8")
    PAPERS_PAGE.write_text(papers_page(PAPERS_PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    README.write_text(readme_page(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)} and the counts in {PAPERS_PAGE.relative_to(ROOT)} and "
          f"{README.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
