"""Real-browser tests of the app in a lecture hall (Debian's Chromium driven by Playwright).

For every page of ``app.py``'s ``PAGES`` (new pages are covered as soon as they are
listed):

(a) a shared link restores the view: choose a preset and move the first slider, check
    that the address bar holds the same view as "Share this view", open that link in a
    fresh browser (a new session, as a student would) and find the same page, the same
    control values and the same charts;
(b) presentation mode (``?present=true``) renders the page with larger text, its charts
    drawn and no error element (screenshots: set DPTEACH_SCREENSHOTS=<dir> to keep them);

and, once: presentation mode survives a page switch without carrying the previous
page's values along, and "Download this figure" delivers a PNG.

The server listens on 127.0.0.1 on a free port and is stopped in the fixture's teardown;
without /usr/bin/chromium the tests are skipped (and fail on CI).
"""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from _app_browser import CHART, IDS, PAGES, settle
from _servers import (
    chromium_page,
    screenshot_on_failure,
)

pytestmark = pytest.mark.browser

def assert_no_error_elements(page) -> None:
    assert page.get_by_test_id("stException").count() == 0, "an exception is shown"
    assert page.get_by_test_id("stAlertContentError").count() == 0, "an error box is shown"
    assert "Traceback" not in page.inner_text("body"), "a traceback is shown"


CONTROLS = """() => {
    const text = (el, sel) => {
        const x = el.querySelector(sel);
        return x ? x.innerText.trim() : '';
    };
    const out = [];
    for (const el of document.querySelectorAll("[data-testid='stSlider'] input[type='range']")) {
        out.push(['slider', el.getAttribute('aria-label'),
                  el.getAttribute('aria-valuetext') || el.value]);
    }
    for (const el of document.querySelectorAll("[data-testid='stRadio']")) {
        const on = el.querySelector("label[data-testid='stRadioOption'][data-selected='true']");
        out.push(['radio', text(el, "[data-testid='stWidgetLabel']"),
                  on ? on.innerText.trim() : null]);
    }
    for (const el of document.querySelectorAll("[data-testid='stSelectbox']")) {
        out.push(['select', text(el, "[data-testid='stWidgetLabel']"),
                  text(el, "[data-baseweb='select']")]);
    }
    for (const el of document.querySelectorAll("[data-testid='stCheckbox']")) {
        const input = el.querySelector('input');
        out.push(['toggle', el.innerText.trim(), input.checked]);
    }
    for (const el of document.querySelectorAll("[data-testid='stNumberInput']")) {
        out.push(['number', text(el, "[data-testid='stWidgetLabel']"),
                  el.querySelector('input').value]);
    }
    return out;
}"""


def controls(page) -> list:
    """Every control's label and shown value, in page order."""
    return page.evaluate(CONTROLS)


def chart_titles(page) -> list[str]:
    """The titles the browser drew on the charts (SVG text)."""
    return [t.strip() for t in page.locator(f"{CHART} .role-title-text").all_text_contents()]


def share_links(page) -> list[str]:
    """The links in "Share this view" (the full one first, the path last)."""
    page.get_by_role("button", name="Share this view").click()
    codes = page.get_by_test_id("stPopoverBody").get_by_test_id("stCode")
    codes.last.wait_for(timeout=30_000)
    links = [c.strip() for c in codes.all_inner_texts()]
    page.keyboard.press("Escape")
    return links


def eventually(read, expected, what: str, timeout_s: float = 45):
    """Poll ``read()`` until it returns ``expected`` (the browser draws asynchronously)."""
    deadline = time.monotonic() + timeout_s
    while (got := read()) != expected:
        assert time.monotonic() < deadline, f"{what}: {got!r} != {expected!r}"
        time.sleep(0.25)


def query(url: str) -> dict:
    return {k: v for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def wait_for_address(page, expected: str, timeout_s: float = 45) -> None:
    """Until the address bar holds the query of ``expected`` (the order may differ)."""
    deadline = time.monotonic() + timeout_s
    while query(page.url) != query(expected):
        assert time.monotonic() < deadline, (
            f"the address bar {page.url!r} does not hold the view {expected!r}")
        page.wait_for_timeout(250)


@pytest.mark.parametrize("title,module,path", PAGES, ids=IDS)
def test_a_shared_link_restores_the_page_and_its_values(app_url, tmp_path, title, module,
                                                        path):
    presets = list(getattr(importlib.import_module(module), "PRESETS", {}))
    with chromium_page(viewport=(1920, 1080)) as page, \
            screenshot_on_failure(page, tmp_path / f"{path or 'default'}-share.png"):
        page.goto(app_url + path)
        settle(page, title)
        assert_no_error_elements(page)
        if presets:                                   # the lesson's last prepared view
            page.get_by_role("radio", name=presets[-1], exact=True).click()
            page.wait_for_timeout(500)
            settle(page, title)
        thumb = page.get_by_role("slider").first      # and one step of the first slider
        thumb.focus()
        at_max = float(thumb.input_value()) >= float(thumb.get_attribute("max"))
        page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
        page.wait_for_timeout(500)
        settle(page, title)
        assert_no_error_elements(page)
        full, relative = share_links(page)[0], share_links(page)[-1]
        assert urlsplit(full).path == "/" + path and urlsplit(relative).path == "/" + path
        assert query(full) == query(relative) and query(full), full
        wait_for_address(page, full)                  # the address bar holds the view
        before, titles = controls(page), chart_titles(page)
        assert before and titles, "no controls or no charts"

    with chromium_page(viewport=(1920, 1080)) as fresh, \
            screenshot_on_failure(fresh, tmp_path / f"{path or 'default'}-opened.png"):
        fresh.goto(full)                              # a student opens the shared link
        settle(fresh, title)
        assert_no_error_elements(fresh)
        eventually(lambda: controls(fresh), before, "the controls")
        eventually(lambda: chart_titles(fresh), titles, "the chart titles")
        assert query(fresh.url) == query(full)


@pytest.mark.parametrize("title,module,path", PAGES, ids=IDS)
def test_presentation_mode_renders_every_page(app_url, tmp_path, title, module, path):
    out = Path(os.environ.get("DPTEACH_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    with chromium_page(viewport=(1920, 1080)) as page, \
            screenshot_on_failure(page, tmp_path / f"{path or 'default'}-present.png"):
        page.goto(f"{app_url}{path}?present=true")
        settle(page, title)
        assert_no_error_elements(page)
        assert page.get_by_role("switch", name="Presentation mode").is_checked()
        eventually(lambda: page.evaluate("getComputedStyle(document.documentElement).fontSize"),
                   "21px", "the page's font size")
        title_sizes = """(sel) => [...document.querySelectorAll(sel + ' .role-title-text')]
                       .map(t => parseFloat(t.getAttribute('font-size')
                                            || getComputedStyle(t).fontSize))"""
        deadline = time.monotonic() + 45              # Vega draws the titles asynchronously
        while not (sizes := page.evaluate(title_sizes, CHART)):
            assert time.monotonic() < deadline, "no chart title was drawn"
            page.wait_for_timeout(250)
        assert min(sizes) > 20, sizes                 # chart titles: 18 px → 24 px
        page.screenshot(path=out / f"{path or 'default'}-present-1920x1080.png", full_page=True)


def test_presentation_mode_follows_the_lecturer_to_the_next_page(app_url, tmp_path):
    (first, _, _), (second, _, second_path) = PAGES[0], PAGES[1]
    with chromium_page(viewport=(1920, 1080)) as page, \
            screenshot_on_failure(page, tmp_path / "switch.png"):
        page.goto(f"{app_url}?present=true&epsilon=0.1")
        settle(page, first)
        page.get_by_test_id("stPageLink").get_by_role("link", name=second).click()  # the menu
        settle(page, second)
        assert_no_error_elements(page)
        assert urlsplit(page.url).path == "/" + second_path
        assert page.get_by_role("switch", name="Presentation mode").is_checked()
        deadline = time.monotonic() + 30
        while query(page.url) != {"present": ["true"]}:   # the first page's ε stays behind
            assert time.monotonic() < deadline, page.url
            page.wait_for_timeout(250)


def test_download_this_figure_delivers_a_png(app_url, tmp_path):
    title = PAGES[0][0]
    with chromium_page(viewport=(1920, 1080)) as page, \
            screenshot_on_failure(page, tmp_path / "download.png"):
        page.goto(f"{app_url}?epsilon=0.1")
        settle(page, title)
        with page.expect_download(timeout=60_000) as download:
            page.get_by_role("button", name="Download this figure").first.click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        assert saved.suffix == ".png" and "epsilon-0.1" in saved.name
        assert saved.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert_no_error_elements(page)
