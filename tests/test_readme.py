"""The marked examples of the README and the manual (docs/) run as printed and say what their comments say;
the links between the pages resolve."""

from __future__ import annotations

import contextlib
import io
import json
import linecache
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# The reading order: the quick start, then the manual's pages. Marked blocks run in this order in one
# namespace, so a later block may use the names an earlier one defines.
PAGES = [README] + [ROOT / "docs" / name for name in (
    "running.md", "own-mechanism.md", "suites.md", "tail-claims.md", "samplers.md", "simulation.md", "regret.md",
    "noise.md", "papers.md", "verdicts.md", "developing.md", "benchmarks.md", "dpsgd.md")]
MARKER = "<!-- checked by tests/test_readme.py -->"
SUITE_MARKER = "<!-- suite file, checked by tests/test_readme.py -->"
README_MAX_LINES = 450


def marked_blocks(marker: str = MARKER) -> list[tuple[Path, str]]:
    return [(page, block) for page in PAGES
            for block in re.findall(re.escape(marker) + r"\n```python\n(.*?)```", page.read_text(), flags=re.S)]


def compiled(page: Path, number: int, block: str):
    """The block compiled under a name of its own, with its source in linecache: dpaudit reads a policy's
    source (inspect.getsource, to tell whether its start reads the horizon), which must be the block's lines,
    not the lines of the page's markdown at the same numbers."""
    name = f"<{page.relative_to(ROOT)}, marked block {number}>"
    linecache.cache[name] = (len(block), None, block.splitlines(keepends=True), name)
    return compile(block, name, "exec")


def test_the_marked_examples_exist():
    pages = {page.name for page, _ in marked_blocks()}
    assert len(marked_blocks()) >= 2 and {"README.md", "simulation.md", "regret.md"} <= pages


def test_every_page_with_a_marked_block_is_read():
    """A page left out of PAGES would have its marked blocks silently unchecked."""
    for page in ROOT.glob("docs/**/*.md"):
        text = page.read_text()
        assert page in PAGES or "checked by tests/" not in text, f"{page.relative_to(ROOT)} is not in PAGES"


@pytest.mark.slow
def test_the_policy_examples_run_and_audit_as_documented(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for number, (page, block) in enumerate(marked_blocks(), 1):
            exec(compiled(page, number, block), namespace)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("20000 ")
    assert lines[-4].startswith("not-refuted") and lines[-3].startswith("refuted")
    assert lines[-2] == "refuted 0.66 one run per recorded round T"  # the horizon-aware policy, run per horizon
    assert lines[-1] == "refuted [['etc40', 'etc5', 100]]"


def test_the_suite_file_example_runs_as_documented(tmp_path):
    """The "Writing your own suite" example, saved as my_suites.py and run as docs/suites.md says: exit 0,
    two claims that hold and one expected refutation with its reason and footing in the record. The
    black-box privacy entries are seeded by the run seed (0): their verdicts are fixed; over seeds the
    not-refuted one would flip with probability at most its share of alpha (0.005)."""
    blocks = marked_blocks(SUITE_MARKER)
    assert len(blocks) == 1
    (tmp_path / "my_suites.py").write_text(blocks[0][1])
    command = [sys.executable, "-m", "dpaudit", "run", "--suite", "my_suites.py", "my-counts", "--budget", "quick",
               "--out", "out", "--workers", "0", "--no-progress"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    records = {r["claim_id"]: r for r in json.loads((tmp_path / "out" / "results.json").read_text())["records"]}
    assert {cid: r["outcome"] for cid, r in records.items()} == {
        "my-counts/noisy-count-eps0.5": "pass", "my-counts/noise-tail": "pass",
        "my-counts/noisy-count-eps0.25": "expected-refutation"}
    finding = records["my-counts/noisy-count-eps0.25"]["expected"]
    assert finding["footing"] == "as printed" and "epsilon 0.5" in finding["reason"]
    assert "[as printed] the report claims 0.25-DP" in (tmp_path / "out" / "report.md").read_text()


# -- links -------------------------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\]]|\](?!\())*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", flags=re.S | re.M)


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation but hyphens and underscores dropped,
    spaces turned into hyphens (inline markup counts by its text)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)     # a link reads as its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors a page defines: its headings' slugs (a repeated one numbered -1, -2, ...) and <a id>s."""
    text = FENCE.sub("", page.read_text())
    found: set[str] = set(re.findall(r'<a (?:id|name)="([^"]+)"', text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, flags=re.M):
        slug = github_slug(heading)
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def relative_links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text())
    text = re.sub(r"`[^`\n]*`", "", text)          # code spans are not links
    return [target for target in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def test_github_slugs():
    assert github_slug("The papers' tail and noise claims") == "the-papers-tail-and-noise-claims"
    assert github_slug("Simulate an algorithm, and validate your own") == "simulate-an-algorithm-and-validate-your-own"
    assert github_slug("Property tests and sensitivity (hypothesis)") == "property-tests-and-sensitivity-hypothesis"
    assert github_slug("Run on a `Dask` cluster") == "run-on-a-dask-cluster"
    assert github_slug("What the suites leave out, and why") == "what-the-suites-leave-out-and-why"


@pytest.mark.parametrize("page", sorted([README, *ROOT.glob("docs/**/*.md")]), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    """Each relative link names a file that exists and, after a #, an anchor that page defines."""
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no file {path}")
        elif anchor and (linked.suffix != ".md" or anchor not in anchors(linked)):
            broken.append(f"{target}: no anchor #{anchor} in {linked.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_pages_link_to_each_other():
    """The quick start links every page of the manual."""
    linked = {(README.parent / target.partition("#")[0]).resolve() for target in relative_links(README)}
    assert set(PAGES[1:]) <= linked


def test_the_readme_stays_a_quick_start():
    lines = len(README.read_text().splitlines())
    assert lines < README_MAX_LINES, f"README.md has {lines} lines: move the detail to a page under docs/"
