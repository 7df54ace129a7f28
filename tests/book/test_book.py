"""The course book, read as a student reads it: Debian's Chromium (Playwright) opens the
landing page and every chapter of the built site, served over HTTP on 127.0.0.1, with every
request that leaves the machine refused (the book must read offline), and checks on each:

* a heading; at least one figure, loaded; typeset math (MathJax's output, no MathJax error);
* no error output (no stderr block, no traceback) and no ``assert`` in the code shown;
* no solution and no hidden test (otter's markers, its configuration, ``# HIDDEN``);
* every internal link answers 200; the launch buttons point where the README's Binder badges
  do (student edition, instructor master) and to the app page of app.py's PAGES;
* no error in the browser console, no page error, no failed request.

Which site: ``build/book`` (or the folder in ``DPTEACH_BOOK``) when ``make book`` has built
it; otherwise (CI, or ``DPTEACH_BUILD_BOOK=1``) the test builds three chapters into a
temporary folder (all 19 took 18 minutes on two busy cores, three take about 2; they are
picked by topic, so renumbering the notebooks does not break this); otherwise it skips,
saying how to build.

``test_checker_catches_*`` show that the checker fails on a page with a leaked solution, an
error output, an ``assert``, a broken link, a wrong launch link and a console error.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import sys
import urllib.parse
from pathlib import Path

import pytest
from _servers import (
    CHROMIUM_ARGS,
    ROOT,
    Server,
    free_port,
    http_get,
    require_chromium,
)

pytestmark = pytest.mark.browser


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


build_book = _load("build_book", ROOT / "scripts" / "build_book.py")

#: the chapters CI builds (by topic): converted to the check-cell convention, with math,
#: figures, exercises and, for two of them, an app page
CI_TOPICS = ("randomized_response", "composition_and_budget", "private_selection")

#: what must never be on a page: otter's solution and test markers, its configuration,
#: hidden tests
LEAKS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN TESTS", "# HIDDEN", "ASSIGNMENT CONFIG",
         "BEGIN QUESTION")
ASSERT = re.compile(r"^\s*assert\b", re.M)
TEX = re.compile(r"\$[^$\n]*[\\^_][^$\n]*\$")
ERROR_SELECTOR = ".output.stderr, .output.traceback, .output_stderr, .output-stderr"
NOT_CHAPTERS = {"index", "instructors", "search", "genindex"}


def _readme_badge(labpath_dir: str) -> str:
    """The README's Binder badge URL for ``labpath_dir`` with the file name cut off."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"\((https://mybinder\.org/v2/gh/[^)\s]+\?labpath=" + labpath_dir
                  + r"%2F)[^)\s]+\)", readme)
    assert m, f"no Binder badge for {labpath_dir}/ in README.md"
    return m.group(1)


def _app_paths() -> set[str]:
    return {build_book.app_page_path(module) for _, module in build_book.app_pages()}


# ---------------------------------------------------------------------------------------------
# the site

@pytest.fixture(scope="session")
def book_dir(tmp_path_factory) -> Path:
    built = Path(os.environ.get("DPTEACH_BOOK", ROOT / "build" / "book"))
    if (built / "index.html").exists() and os.environ.get("DPTEACH_BUILD_BOOK") != "1":
        return built
    if os.environ.get("CI") != "true" and os.environ.get("DPTEACH_BUILD_BOOK") != "1":
        pytest.skip("the course book is not built: run `make book` (or set DPTEACH_BUILD_BOOK=1 "
                    "to build three chapters here)")
    pytest.importorskip("myst_nb", reason="make book installs requirements-book.txt")
    names = [p.stem for p in build_book.masters() if build_book.topic(p.name) in CI_TOPICS]
    assert names, f"no notebook with a topic in {CI_TOPICS}"
    out = tmp_path_factory.mktemp("book") / "book"
    return build_book.build(names, out=out, jobs=2)


@pytest.fixture(scope="session")
def site(book_dir, tmp_path_factory):
    require_chromium()
    port = free_port()
    log = tmp_path_factory.mktemp("book-server") / "http.log"
    server = Server([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                     "--directory", str(book_dir)], log=log)
    url = f"http://127.0.0.1:{port}/"
    try:
        server.wait_for(url + "index.html", timeout=30)
        yield url
    finally:
        server.stop()


# ---------------------------------------------------------------------------------------------
# the reader: what one page shows

class Reader:
    """A Chromium page that records console errors, page errors and failed requests, and
    refuses every request that does not go to the local server."""

    def __init__(self, page, base: str):
        self.page, self.base, self.events = page, base, []
        self._links: dict[str, int] = {}
        page.on("console", lambda m: m.type == "error" and self.events.append(
            f"console error: {m.text}"))
        page.on("pageerror", lambda e: self.events.append(f"page error: {e}"))
        host = urllib.parse.urlsplit(base).netloc
        page.on("requestfailed", lambda r: None if self._aborted_here(r, host)
                else self.events.append(f"request failed: {r.url} ({r.failure})"))
        page.route("**/*", lambda route: route.continue_()
                   if urllib.parse.urlsplit(route.request.url).netloc == host
                   else route.abort())

    @staticmethod
    def _aborted_here(request, host: str) -> bool:
        """A local request the browser itself gave up when the page was left (a prefetch
        of the next chapter): not a failure of the site."""
        return (urllib.parse.urlsplit(request.url).netloc == host
                and "ERR_ABORTED" in (request.failure or ""))

    def open(self, path: str) -> list[str]:
        self.events.clear()
        self.page.goto(self.base + path, wait_until="load")
        return []

    def link_status(self, url: str) -> int:
        url = url.split("#", 1)[0]
        if url not in self._links:
            self._links[url] = http_get(url)[0]
        return self._links[url]


def page_problems(reader: Reader, path: str, *, chapter: str | None = None,
                  math: bool = True) -> list[str]:
    """Everything wrong with one page, as a reader would notice it."""
    page = reader.page
    reader.open(path)
    problems = []
    if chapter is not None and math:
        with contextlib.suppress(Exception):
            page.wait_for_selector("mjx-container", timeout=20_000)
    html = page.content()
    h1 = page.locator("h1")
    if h1.count() == 0 or not h1.first.inner_text().strip():
        problems.append("no heading")
    if chapter is not None:
        imgs = page.locator("article img, main img, .bd-article img")
        if imgs.count() == 0:
            problems.append("no figure")
        broken = page.evaluate("() => [...document.images].filter(i => i.complete && "
                               "i.naturalWidth === 0).map(i => i.src)")
        if broken:
            problems.append(f"images that did not load: {broken[:3]}")
        if math and page.locator("mjx-container").count() == 0:
            problems.append("no typeset math (no MathJax output)")
    if page.locator("mjx-merror").count():
        problems.append("a MathJax error in the math")
    if page.locator(ERROR_SELECTOR).count():
        problems.append("an error output (stderr) on the page")
    text = page.locator("body").inner_text()
    if "Traceback (most recent call last)" in text or re.search(r"\w+Error: .*\n.*line \d", text):
        problems.append("a traceback on the page")
    code = "\n".join(page.locator("div.cell_input pre, div.highlight pre").all_inner_texts())
    if ASSERT.search(code):
        problems.append("an assert in the code shown")
    for leak in LEAKS:
        if leak.lower() in html.lower():
            problems.append(f"solution or hidden-test text on the page: {leak!r}")
    for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
        if href.startswith(reader.base) and reader.link_status(href) != 200:
            problems.append(f"internal link {href} answers {reader.link_status(href)}")
    if chapter is not None:
        problems += launch_problems(page, chapter)
    problems += reader.events
    return problems


def launch_problems(page, name: str) -> list[str]:
    """The chapter's launch buttons: the student edition and the instructor master where the
    README's badges point, and the app page of its topic (one of app.py's pages)."""
    problems = []
    links = {kind: page.eval_on_selector_all(f'a[data-launch="{kind}"]',
                                             "els => els.map(e => e.href)")
             for kind in ("student", "instructor", "app")}
    expect = {"student": _readme_badge("student") + name,
              "instructor": _readme_badge("notebooks") + name}
    for kind, url in expect.items():
        if links[kind] != [url]:
            problems.append(f"{kind} launch link {links[kind]} is not [{url}]")
    wanted = len(build_book.APP_PAGES.get(build_book.topic(name), []))
    if len(links["app"]) != wanted:
        problems.append(f"{len(links['app'])} app launch links, expected {wanted}")
    binder = _readme_badge("student").split("?", 1)[0]
    for url in links["app"]:
        m = re.fullmatch(re.escape(binder) + r"\?urlpath=streamlit/([\w-]*)", url)
        if not m or m.group(1) not in _app_paths():
            problems.append(f"app launch link {url} is not an app page on Binder")
    return problems


@pytest.fixture(scope="module")
def browser():
    """One Chromium for every page of this file (Playwright's sync API allows one at a time
    per process, so it must be closed when this file is done: a session-long one made the
    next file's browser test in the same xdist worker fail with "Sync API inside the
    asyncio loop")."""
    path = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            yield chromium
        finally:
            chromium.close()


def _new_page(browser):
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.set_default_timeout(30_000)
    return page


@pytest.fixture(scope="module")
def reader(site, browser):
    page = _new_page(browser)
    yield Reader(page, site)
    page.close()


# ---------------------------------------------------------------------------------------------
# the book

def test_landing_page_is_the_start_here_with_syllabus_and_navigation(reader, book_dir):
    assert page_problems(reader, "index.html") == []
    page = reader.page
    assert "start here" in page.locator("h1").first.inner_text().lower()
    chapters = sorted(p.stem for p in book_dir.glob("*.html") if p.stem not in NOT_CHAPTERS)
    table = page.locator("table").first
    linked = {Path(urllib.parse.urlsplit(h).path).stem for h in table.locator(
        "a[href]").evaluate_all("els => els.map(e => e.href)")}
    assert set(chapters) <= linked, f"chapters missing from the syllabus: {set(chapters) - linked}"
    rows = table.locator("tbody tr").all_inner_texts()
    assert all(re.search(r"\bcore\b|going further", r) for r in rows), rows
    # the navigation lists the chapters in teaching order (the build's order of the masters)
    nav = [Path(urllib.parse.urlsplit(h).path).stem for h in page.eval_on_selector_all(
        "nav.bd-links a.reference.internal", "els => els.map(e => e.href)")]
    order = [p.stem for p in build_book.masters() if p.stem in chapters]
    assert [n for n in nav if n in chapters] == order
    assert "instructors" in nav


def test_instructor_page_pairs_sections_with_app_pages(reader):
    assert page_problems(reader, "instructors.html") == []
    hrefs = reader.page.eval_on_selector_all("table a[href*='urlpath=streamlit']",
                                             "els => els.map(e => e.href)")
    assert hrefs, "no app page in the lecture plan"
    assert {h.rsplit("streamlit/", 1)[1] for h in hrefs} <= _app_paths()


def test_search_finds_a_chapter(reader):
    reader.open("search.html?q=privacy")
    reader.page.wait_for_selector("#search-results li", timeout=30_000)
    assert reader.page.locator("#search-results li").count() >= 1
    assert reader.events == []


def test_every_chapter_reads_as_a_student_reads_it(reader, book_dir):
    chapters = sorted(p.stem for p in book_dir.glob("*.html") if p.stem not in NOT_CHAPTERS)
    assert chapters
    problems = {}
    for stem in chapters:
        # typeset math is expected where the chapter as published writes some (a $…$ span
        # with a TeX command, ^ or _ in a markdown cell; solution notes are not published)
        cells = json.loads((book_dir / "_sources" / f"{stem}.ipynb").read_text())["cells"]
        math = any(c["cell_type"] == "markdown" and TEX.search("".join(c["source"]))
                   for c in cells)
        found = page_problems(reader, stem + ".html", chapter=stem + ".ipynb", math=math)
        if found:
            problems[stem] = found
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


# ---------------------------------------------------------------------------------------------
# the checker fails where it should: a small fake site

GOOD = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body><main>
<h1>03 · A chapter</h1>
<div class="dpteach-launch-bar">
<a data-launch="student" href="{student}">s</a>
<a data-launch="instructor" href="{instructor}">i</a>
{app}
</div>
<p>The scale is <mjx-container>b = Δ/ε</mjx-container>.</p>
<img src="fig.png" alt="a figure">
<div class="cell_input"><pre>x = laplace_mechanism(3, 1.0, 0.5)</pre></div>
<a href="index.html">home</a>
{extra}
</main></body></html>"""

# a 1x1 PNG
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")

DEFECTS = {
    "leaked_solution": ('<div class="cell_input"><pre># BEGIN SOLUTION\ngamma = 1/6</pre></div>',
                        "solution or hidden-test text"),
    "hidden_test": ("<pre># HIDDEN\ngrader.check('q1')</pre>", "solution or hidden-test text"),
    "error_output": ('<div class="output stderr"><pre>ValueError: boom</pre></div>',
                     "an error output"),
    "traceback": ("<pre>Traceback (most recent call last):\n  File x</pre>", "a traceback"),
    "assert": ('<div class="cell_input"><pre>assert abs(x - 3) &lt; 1</pre></div>', "an assert"),
    "broken_link": ('<a href="no_such_chapter.html">next</a>', "answers 404"),
    "console_error": ("<script>console.error('widget manager not found')</script>",
                      "console error"),
    "page_error": ("<script>undefined_function()</script>", "page error"),
    "remote_asset": ('<script src="https://cdn.example.org/x.js"></script>', "request failed"),
}


@pytest.fixture(scope="module")
def fake_site(tmp_path_factory, browser):
    root = tmp_path_factory.mktemp("fake-book")
    name = "03_randomized_response.ipynb"
    app = build_book.launch_links(name)["app"]
    apps = "\n".join(f'<a data-launch="app" href="{url}">a</a>' for _, url in app)
    fill = dict(student=_readme_badge("student") + name,
                instructor=_readme_badge("notebooks") + name, app=apps)
    (root / "index.html").write_text(GOOD.format(extra="", **fill))
    (root / "fig.png").write_bytes(PNG)
    for defect, (extra, _) in DEFECTS.items():
        (root / f"{defect}.html").write_text(GOOD.format(extra=extra, **fill))
    (root / "wrong_launch.html").write_text(GOOD.format(extra="", **{
        **fill, "student": _readme_badge("notebooks") + name}))
    port = free_port()
    server = Server([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                     "--directory", str(root)], log=root.parent / "http.log")
    url = f"http://127.0.0.1:{port}/"
    try:
        server.wait_for(url + "index.html", timeout=30)
        page = _new_page(browser)
        yield Reader(page, url), name
        page.close()
    finally:
        server.stop()


def test_checker_passes_a_good_page(fake_site):
    reader, name = fake_site
    assert page_problems(reader, "index.html", chapter=name) == []


@pytest.mark.parametrize("defect", [*DEFECTS, "wrong_launch"])
def test_checker_catches_a_defect(fake_site, defect):
    reader, name = fake_site
    problems = page_problems(reader, f"{defect}.html", chapter=name)
    expected = DEFECTS[defect][1] if defect in DEFECTS else "student launch link"
    assert any(expected in p for p in problems), problems
