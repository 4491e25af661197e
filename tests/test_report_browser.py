"""report.html in a real browser: the distribution's headless Chromium, driven by selenium through the
packaged chromedriver. The page renders with no console error, its findings section lists what
results.json says, the filters and the search hide and show what they should, a 400 px window shows the
summary whole, no header or badge breaks mid-word at 400, 1366 or 1920 px, and screenshots at 1400 px and
400 px are kept (under the run's output folder, and copied to ``$DPAUDIT_ARTIFACTS`` when it is set, for CI to
keep). A report of a few hundred fabricated records opens short, its filters near the top and its closed cards'
plots not loaded until a card is opened.

Skipped, with the reason, when selenium, Chromium or chromedriver is missing (``.ci/run`` installs the
browser when it can). The run behind it has exact verdicts only: nothing here depends on a seed's luck.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from dpaudit.runner import RunOptions, run

SUITES = Path(__file__).parent / "suites"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Debian's chromium-driver puts chromedriver on PATH; some distributions keep it beside the browser
CHROMEDRIVER_PLACES = ("/usr/lib/chromium/chromedriver", "/usr/lib/chromium-browser/chromedriver")
WIDE, NARROW = 1400, 400
# a full-page screenshot taller than this is cut (a report of every paper is many screens long)
SCREENSHOT_MAX_HEIGHT = 12_000
# a report of LONG_CLAIMS claims, its cards closed, at LONG_WIDTH px: at most LONG_MAX_HEIGHT px tall (about
# 19,000; with every card open, as the report once was, about 240,000), its filters within FIRST_SCREENS px
# of the top (about 550; below the findings, as they once were, about 4,000)
LONG_CLAIMS, LONG_WIDTH, LONG_MAX_HEIGHT, FIRST_SCREENS = 300, 1280, 25_000, 1_500


def _browser_parts() -> tuple[str, str]:
    """Chromium's and chromedriver's paths, or a skip saying which is missing."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip("no Chromium: selenium is not installed (pip install -e '.[test]')")
    browser = next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)
    if browser is None:
        pytest.skip(f"no Chromium: none of {', '.join(CHROMIUM_NAMES)} is on PATH (apt-get install chromium)")
    driver = shutil.which("chromedriver") or next((p for p in CHROMEDRIVER_PLACES if os.access(p, os.X_OK)), None)
    if driver is None:
        pytest.skip("no Chromium: chromedriver is not on PATH (apt-get install chromium-driver)")
    return browser, driver


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A small run with a pass (classic's exact Laplace), a finding and an expected refutation that
    did not reproduce, in two papers."""
    _browser_parts()  # skip before the run when there is no browser
    out = tmp_path_factory.mktemp("browser")
    run(RunOptions(selectors=["testing-refutations", "classic/laplace-eps1"], out=out, workers=0,
                   suite_paths=[str(SUITES / "refutations.py")], progress_bar=False))
    return out


@pytest.fixture(scope="module")
def page(report):
    """Chromium with report.html open from file://; the same page serves every test of the small run."""
    yield from _chromium(report / "report.html")


def _chromium(html: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = _browser_parts()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    # --no-sandbox: CI containers run as root, where Chromium's sandbox refuses to start
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # an explicit driver path: selenium would otherwise try to download one
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        driver.set_window_size(WIDE, 900)
        driver.get(html.resolve().as_uri())
        yield driver
    finally:
        driver.quit()


def _records(report: Path) -> list[dict]:
    return json.loads((report / "results.json").read_text())["records"]


def _severe(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def _visible_cards(driver) -> list[str]:
    """The claim ids of the claim cards shown (not hidden by a filter)."""
    return sorted(driver.execute_script(
        "return [...document.querySelectorAll('section.claim')].filter(s => s.getClientRects().length)"
        ".map(s => s.querySelector('h3').textContent.split(' — ')[0])"))


def _visible_headings(driver) -> list[str]:
    return driver.execute_script(
        "return [...document.querySelectorAll('.group > :first-child')].filter(h => h.getClientRects().length)"
        ".map(h => h.textContent)")


def _filter(driver, paper: str = "", outcome: str = "", search: str = "") -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "f-paper")).select_by_value(paper)
    Select(driver.find_element(By.ID, "f-outcome")).select_by_value(outcome)
    box = driver.find_element(By.ID, "f-search")
    box.clear()
    if search:
        box.send_keys(search)
    else:  # clear() fires no input event: type and erase one character so the filter runs
        box.send_keys("x", "\b")


def test_the_page_renders_without_console_errors(page):
    assert page.title == "dpaudit report"
    assert page.execute_script("return typeof dpFilter") == "function"
    assert _severe(page) == []


def test_the_findings_section_lists_what_results_json_says(page, report):
    expected = sorted(r["claim_id"] for r in _records(report) if r["outcome"] == "expected-refutation")
    assert expected  # the run has a finding to show
    shown = page.execute_script(
        "var start=document.getElementById('findings'), end=document.querySelector('section.claim');"
        "return [...document.querySelectorAll('li.finding')].filter(li =>"
        " start.compareDocumentPosition(li) & Node.DOCUMENT_POSITION_FOLLOWING &&"
        " end.compareDocumentPosition(li) & Node.DOCUMENT_POSITION_PRECEDING)"
        ".map(li => li.querySelector('a').textContent)")
    assert sorted(shown) == expected


def test_filters_and_search_hide_and_show_claims(page, report):
    records = _records(report)
    every = sorted(r["claim_id"] for r in records)
    assert {r["outcome"] for r in records} == {"pass", "expected-refutation", "not-reproduced"}
    try:
        _filter(page, paper="classic")
        assert _visible_cards(page) == sorted(r["claim_id"] for r in records if r["paper"] == "classic")
        # no heading stands over an emptied list: the other paper's groups are gone
        assert [h.partition(" ")[0] for h in _visible_headings(page)] == ["classic"]
        _filter(page, outcome="not-reproduced")
        assert _visible_cards(page) == sorted(r["claim_id"] for r in records if r["outcome"] == "not-reproduced")
        # the findings group of testing-refutations empties and goes; its claims' group stays
        assert _visible_headings(page) == ["Needs attention (1)", "testing-refutations — expected refutations"]
        _filter(page, paper="testing-refutations", outcome="pass")
        assert _visible_cards(page) == []
        _filter(page, search="testing-refutations/reproduced")
        assert _visible_cards(page) == ["testing-refutations/reproduced"]
        # the search reads the paper's title too (the group's heading), case-insensitively
        _filter(page, search="EXPECTED REFUTATIONS")
        assert _visible_cards(page) == sorted(c for c in every if c.startswith("testing-refutations/"))
        _filter(page)
        assert _visible_cards(page) == every
    finally:
        _filter(page)
    assert _severe(page) == []


def _screenshot(driver, width: int, path: Path) -> None:
    """The whole page at ``width`` px (the window grown to the page's height, up to a cap)."""
    driver.set_window_size(width, 900)
    height = min(driver.execute_script("return document.documentElement.scrollHeight"), SCREENSHOT_MAX_HEIGHT)
    driver.set_window_size(width, height)
    # from the top, with no focus ring: the filter tests leave the search box focused and the page scrolled
    driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
    path.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(path))
    artifacts = os.environ.get("DPAUDIT_ARTIFACTS")
    if artifacts:
        target = Path(artifacts) / "browser"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target / path.name)


def _broken_words(driver) -> list[str]:
    """The words of the summary tables' headers and cells and of the badges that are broken across lines (a word's
    range covers more than one line box; a hyphenated word may break after its hyphen, as text does)."""
    return driver.execute_script("""
        var out=[];
        var words=document.querySelectorAll('table.summary th, table.summary td, table.summary td *, .o, .v');
        words.forEach(function(el){
          el.childNodes.forEach(function(node){
            if(node.nodeType!==Node.TEXT_NODE) return;
            var re=/[^\\s-]+-?/g, m;
            while((m=re.exec(node.textContent))){
              var r=document.createRange(); r.setStart(node,m.index); r.setEnd(node,m.index+m[0].length);
              var lines=new Set([...r.getClientRects()].map(function(b){return Math.round(b.top);}));
              if(lines.size>1) out.push(m[0]);
            }});});
        return out;""")


def test_a_narrow_window_shows_the_summary_whole(page):
    page.set_window_size(NARROW, 900)
    try:
        assert page.execute_script("return window.innerWidth") == NARROW
        widths = page.execute_script(
            "var t=document.querySelector('table.summary'), d=document.documentElement;"
            "return [d.scrollWidth, d.clientWidth, Math.ceil(t.getBoundingClientRect().right), t.scrollWidth,"
            " t.clientWidth]")
        page_width, viewport, table_right, table_scroll, table_client = widths
        assert page_width <= viewport and table_right <= viewport and table_scroll <= table_client
        # no word of the summary or of a badge is broken across lines: each word's range is one box
        assert _broken_words(page) == []
        # the summary's cells name their columns once the header row is gone
        labels = page.execute_script(
            "return [...document.querySelectorAll('table.summary tbody tr:first-child td')].slice(1)"
            ".map(td => getComputedStyle(td, '::before').content)")
        assert labels[0] == '"claims"' and '"unexpected"' in labels
    finally:
        page.set_window_size(WIDE, 900)


@pytest.mark.parametrize("width", [WIDE, NARROW])
def test_screenshots_are_kept_under_the_output_folder(page, report, width):
    from PIL import Image

    path = report / "screenshots" / f"report-{width}.png"
    try:
        _screenshot(page, width, path)
    finally:
        page.set_window_size(WIDE, 900)
    with Image.open(path) as image:
        assert image.width == width and image.height > 900


def _long_document(out: Path) -> dict:
    """A results document of a few hundred claims in four papers, each with a plot beside the report:
    mostly passes, some findings, and a few claims needing attention (an error, unexpected refutations,
    a refutation not reproduced)."""
    from PIL import Image

    (out / "plots").mkdir(parents=True, exist_ok=True)
    plot = Image.new("P", (640, 360))
    attention = {5: ("unexpected-refutation", "refuted"), 6: ("not-reproduced", "not-refuted"), 7: ("error", "error")}
    records = []
    for paper in ("testing-a", "testing-b", "testing-c", "testing-d"):
        for i in range(LONG_CLAIMS // 4):
            outcome, verdict = ("expected-refutation", "refuted") if i % 9 == 0 else ("pass", "verified")
            outcome, verdict = attention.get(i, (outcome, verdict)) if paper == "testing-a" else (outcome, verdict)
            claim_id = f"{paper}/claim-{i:03d}"
            rel = f"plots/{paper}_claim-{i:03d}.png"
            plot.save(out / rel)
            records.append({
                "claim_id": claim_id, "paper": paper, "title": f"Laplace mechanism number {i} of {paper}",
                "verdict": verdict, "outcome": outcome, "claim": {"kind": "pure-dp", "epsilon": 1.0},
                "subject": f"LaplaceMechanism(scale={1 + i / 100:.2f}) subject-{paper}-{i:03d}",
                "relation": {"description": "query answers differing by at most 1"}, "auditor": "exact",
                "statistic": None if verdict == "error" else
                {"name": "epsilon", "value": 1.0, "interval": [1.0, 1.0], "kind": "exact"},
                "confidence": 1.0, "alpha": None, "samples": 0, "seed": None, "budget": "quick", "seconds": 0.1,
                "expected": {"verdict": "refuted" if outcome == "expected-refutation" else "verified",
                             "footing": "as printed" if outcome == "expected-refutation" else None,
                             "reason": "the stated scale gives epsilon 2" if outcome == "expected-refutation"
                             else None},
                "notes": ["a note"], "witness": {"pair": [0.0, 1.0], "output": 0},
                "error": {"type": "MechanismError", "message": "broken", "traceback": "Traceback: broken"}
                if verdict == "error" else None,
                "plots": [rel]})
    return {"dpaudit_version": "test", "records": records,
            "run": {"seed": 0, "budget": "quick", "alpha": 0.01, "statistical_claims": 0, "claims": len(records),
                    "suites": {p: f"synthetic paper {p[-1]}" for p in ("testing-a", "testing-b", "testing-c",
                                                                      "testing-d")}}}


@pytest.fixture(scope="module")
def long_page(tmp_path_factory):
    """Chromium with the report of :func:`_long_document` open, 1280 px wide."""
    from dpaudit.reports.html import render_html

    _browser_parts()
    out = tmp_path_factory.mktemp("long")
    (out / "report.html").write_text(render_html(_long_document(out), out), encoding="utf-8")
    for driver in _chromium(out / "report.html"):
        driver.set_window_size(LONG_WIDTH, 900)
        driver.refresh()
        _parsed(driver, LONG_CLAIMS)
        yield driver


def _parsed(driver, cards: int, timeout: float = 60.0) -> None:
    """Wait until the page is loaded and holds its ``cards`` claim cards: on a loaded machine (CI's two workers)
    Chromium was seen answering a script while a report of 300 cards was parsed to its 178th."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(lambda d: d.execute_script(
        "return document.readyState === 'complete' && document.querySelectorAll('section.claim').length") == cards)


@pytest.mark.parametrize("width", [1366, 1920])
def test_common_screens_break_no_header_or_badge_mid_word(tmp_path, width):
    """The papers' titles (long, in the summary's first column) once squeezed the count columns until their
    headers broke mid-word at 1366 px ("clai ms", "unexpec ted"); a report with the five papers' titles at the two
    commonest desktop widths breaks none, and shows on its first screen the picture of outcomes by paper, what needs
    attention and the findings' heading."""
    from dpaudit.core.claim_ids import PAPERS
    from dpaudit.reports.html import render_html

    _browser_parts()
    document = _long_document(tmp_path)
    titles = sorted(PAPERS.values(), key=len, reverse=True)
    document["run"]["suites"] = {p: titles[i % len(titles)] for i, p in enumerate(document["run"]["suites"])}
    (tmp_path / "report.html").write_text(render_html(document, tmp_path), encoding="utf-8")
    for driver in _chromium(tmp_path / "report.html"):
        driver.set_window_size(width, 900)
        driver.refresh()
        assert driver.execute_script("return window.innerWidth") == width
        assert _broken_words(driver) == []
        # the picture of outcomes by paper is on the first screen, above the table
        top, bottom, table_top = driver.execute_script(
            "var b=document.querySelector('svg.bars').getBoundingClientRect();"
            "return [b.top, b.bottom, document.querySelector('table.summary').getBoundingClientRect().top]")
        assert 0 < top < bottom <= min(900, table_top)
        # and what was refuted: Needs attention and the Findings' heading are on the first screen too
        attention, found, screen = driver.execute_script(
            "return [document.getElementById('attention').getBoundingClientRect().bottom,"
            " document.getElementById('findings').getBoundingClientRect().top, window.innerHeight]")
        assert bottom < attention and found < screen


def _plots_loaded(driver, claim_id: str) -> list:
    """For each plot of the claim's card: [its src attribute, whether it has been loaded and decoded]."""
    return driver.execute_script(
        "var card=document.getElementById(arguments[0]);"
        "return [...card.querySelectorAll('img')].map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])",
        "c-" + claim_id.replace("/", "_"))


def test_a_long_report_is_short_with_its_cards_closed(long_page):
    height, filters_top, cards, closed = long_page.execute_script(
        "return [document.documentElement.scrollHeight,"
        " document.getElementById('f-paper').getBoundingClientRect().top + window.scrollY,"
        " document.querySelectorAll('section.claim').length,"
        " document.querySelectorAll('section.claim > details:not([open])').length]")
    assert height < LONG_MAX_HEIGHT
    assert filters_top < FIRST_SCREENS
    assert cards == LONG_CLAIMS and closed == LONG_CLAIMS - 3  # the claims needing attention stay open
    # a closed card has not loaded its plot, linked (a pass) or embedded (a finding); an open one has
    for claim_id in ("testing-b/claim-001", "testing-b/claim-009"):
        assert _plots_loaded(long_page, claim_id) == [[None, False]]
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(long_page, 10).until(lambda d: _plots_loaded(d, "testing-a/claim-007")[0][1])
    assert _severe(long_page) == []


def test_opening_a_card_loads_its_plot(long_page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        for claim_id, source in (("testing-c/claim-001", "plots/testing-c_claim-001.png"),
                                 ("testing-c/claim-009", "data:image/png;base64,")):
            summary = long_page.find_element(By.CSS_SELECTOR, f"#c-{claim_id.replace('/', '_')} > details > summary")
            long_page.execute_script("arguments[0].scrollIntoView()", summary)
            summary.click()
            WebDriverWait(long_page, 10).until(lambda d, c=claim_id: _plots_loaded(d, c)[0][1])
            assert _plots_loaded(long_page, claim_id)[0][0].startswith(source)
        # a finding's link opens the card it points to
        link = long_page.find_element(By.CSS_SELECTOR, '#findings ~ .group a[href="#c-testing-d_claim-018"]')
        link.click()
        WebDriverWait(long_page, 10).until(lambda d: _plots_loaded(d, "testing-d/claim-018")[0][1])
    finally:
        long_page.execute_script("dpAll(false)")
    assert _severe(long_page) == []


def test_the_search_shows_a_closed_card_by_its_contents(long_page):
    """The subject is in the closed body only: the search finds the card and shows its summary line."""
    try:
        _filter(long_page, search="subject-testing-c-042")
        assert _visible_cards(long_page) == ["testing-c/claim-042"]
        opened, summary_height = long_page.execute_script(
            "var d=document.querySelector('#c-testing-c_claim-042 > details');"
            "return [d.open, d.querySelector('summary').getBoundingClientRect().height]")
        assert not opened and summary_height > 0
    finally:
        _filter(long_page)
    assert len(_visible_cards(long_page)) == LONG_CLAIMS
