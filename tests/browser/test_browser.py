"""Real-browser tests: Debian's Chromium driven by Playwright.

(a) The Streamlit app: move the ε slider with the keyboard and check that the
    Laplace scale b and the charts (drawn by the browser) follow; then every page:
    its main slider moves its chart, with no error element, at a projector's and a
    laptop's screen size.
(b) JupyterLab: open notebook 01, run all cells, move its first widget slider
    with the keyboard and check that the plot below it is redrawn.

Servers listen on 127.0.0.1 on free ports, use private Jupyter config/runtime
directories, and are stopped in the fixtures' teardown. Without
/usr/bin/chromium the tests are skipped (and fail on CI, where ``make test``
installs it). All tests are in this one file so that they run on one worker,
one after the other (``make test`` schedules a file as one unit: tests/conftest.py).
"""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from _servers import (
    ROOT,
    Server,
    chromium_page,
    free_port,
    jupyter_env,
    jupyter_security_args,
    require_chromium,
    screenshot_on_failure,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "notebooks/01_differencing_attacks.ipynb"


@pytest.fixture(scope="module")
def streamlit_url(app_url):
    """The app server of this module (tests/browser/conftest.py)."""
    return app_url


def _metric(page, label: str):
    return (page.get_by_test_id("stMetric").filter(has_text=label)
            .get_by_test_id("stMetricValue"))


def _chart_title(page, i: int):
    """The title the browser drew on the i-th Vega-Lite chart (SVG text)."""
    return page.get_by_test_id("stVegaLiteChart").nth(i).locator(".role-title-text")


def test_app_epsilon_slider_with_keyboard(streamlit_url, tmp_path):
    from playwright.sync_api import expect

    with chromium_page() as page:
        page.goto(streamlit_url)
        b_value = _metric(page, "Laplace b = Δ/ε")
        expect(b_value).to_have_text("1", timeout=60_000)          # ε = 1, Δ = 1
        charts = page.get_by_test_id("stVegaLiteChart")           # drawn by the browser
        expect(charts).to_have_count(2)
        expect(_chart_title(page, 0)).to_contain_text("ε = 1")
        expect(_chart_title(page, 1)).to_contain_text("δ = 1e-05")

        thumb = page.get_by_role("slider", name="Privacy loss ε")
        thumb.focus()
        page.keyboard.press("ArrowRight")                          # ε: 1 → 1.5
        expect(b_value).to_have_text("0.6667", timeout=30_000)    # b = 1/1.5
        expect(_metric(page, "σ analytic")).not_to_have_text("3.731")
        for i in (0, 1):                                           # both charts follow ε
            expect(_chart_title(page, i)).to_contain_text("ε = 1.5", timeout=30_000)

        thumb.focus()
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")                           # ε: 1.5 → 1 → 0.7
        expect(b_value).to_have_text("1.429", timeout=30_000)     # b = 1/0.7
        # ε < 1: the classic Gaussian σ is shown again
        expect(_metric(page, "σ classic")).not_to_have_text("n/a")
        expect(_chart_title(page, 1)).to_contain_text("ε = 0.7", timeout=30_000)
        page.screenshot(path=tmp_path / "app.png", full_page=True)


# ---------------------------------------------------------------- JupyterLab
@pytest.fixture(scope="module")
def jupyterlab_url(tmp_path_factory):
    require_chromium()
    if not (ROOT / NOTEBOOK).exists():
        pytest.fail(f"{NOTEBOOK} is missing")
    tmp = tmp_path_factory.mktemp("jupyterlab")
    # Serve a copy: running the notebook in the browser must never write outputs or
    # checkpoints into the repository's notebooks/.
    work = tmp / "work"
    (work / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / NOTEBOOK, work / NOTEBOOK)
    env = jupyter_env(tmp)
    settings = tmp / "config" / "lab" / "user-settings" / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))   # no pop-ups
    port = free_port()
    server = Server([sys.executable, "-m", "jupyter", "lab", f"--port={port}",
                     f"--ServerApp.root_dir={work}", *jupyter_security_args()],
                    log=tmp / "jupyterlab.log", env=env, cwd=work)
    url = f"http://127.0.0.1:{port}/"
    try:
        server.wait_for(url + "api/status", timeout=90)
        yield url
    finally:
        server.stop()


# a collapsed cell (a check cell, docs/notebooks.md) shows a placeholder whose prompt,
# also a .jp-InputPrompt, never shows a count: only the prompts of visible inputs are read
ALL_CELLS_RUN = """() => {
    const ps = [...document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt:not(.jp-Placeholder-prompt)')];
    return ps.length > 0 && ps.every(p => /\\[\\d+\\]/.test(p.textContent));
}"""
FIRST_CELL_STARTED = """() => {
    const p = document.querySelector(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt');
    return p !== null && /\\[(\\*|\\d+)\\]/.test(p.textContent);
}"""


def run_all_cells(page, attempts: int = 3) -> None:
    """Run → Run All Cells, then wait until every code cell shows an execution count.

    Right after the notebook opens, the kernel may report "idle" before the
    session is wired up, and JupyterLab then drops the request silently; so
    the command is repeated (at most ``attempts`` times) until the first cell
    has started.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(attempts):
        page.locator(".lm-MenuBar-item", has_text="Run").first.click()   # the Run menu
        page.locator("li[data-command='runmenu:run-all']").click()
        try:
            page.wait_for_function(FIRST_CELL_STARTED, timeout=20_000)
            break
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise
    page.wait_for_function(ALL_CELLS_RUN, timeout=150_000)


def test_notebook_widget_slider_with_keyboard(jupyterlab_url, tmp_path):
    from playwright.sync_api import expect

    with chromium_page() as page:
        with screenshot_on_failure(page, tmp_path / "failure.png"):
            page.goto(f"{jupyterlab_url}lab/tree/{NOTEBOOK}")
            notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
            expect(notebook).to_be_visible(timeout=90_000)
            status = page.locator(".jp-Notebook-ExecutionIndicator").first
            expect(page.locator("#jp-main-statusbar")).to_contain_text("Idle", timeout=90_000)
            run_all_cells(page)
            expect(status).to_have_attribute("data-status", "idle", timeout=60_000)
            errors = notebook.locator("[data-mime-type='application/vnd.jupyter.stderr']",
                                      has_text="Traceback")
            assert errors.count() == 0, errors.first.inner_text()

            interact = notebook.locator(".widget-interact").first
            interact.scroll_into_view_if_needed()
            image = interact.locator(".jp-OutputArea-output img").first
            expect(image).to_be_visible(timeout=60_000)
            before = image.get_attribute("src")
            readout = interact.locator(".widget-readout").first
            readout_before = readout.inner_text()

            handle = interact.locator(".noUi-handle").first
            handle.focus()
            page.keyboard.press("ArrowRight")
            expect(readout).not_to_have_text(readout_before, timeout=30_000)
            page.wait_for_function(
                """([el, old]) => { const img = el.querySelector('.jp-OutputArea-output img');
                                    return img !== null && img.getAttribute('src') !== old; }""",
                arg=[interact.element_handle(), before], timeout=60_000)
            page.screenshot(path=tmp_path / "lab.png")


# ----------------------------------------------------------------- every app page
def _app_pages() -> list[tuple[str, str]]:
    """(title, url path) of every page in app.py's PAGES (read without running the app).

    The first page is the default one, served at the app's root (its path is "").
    """
    import ast

    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and [t.id for t in n.targets] == ["PAGES"])
    return [(title, "" if i == 0 else module.rsplit(".", 1)[-1].replace("_", "-"))
            for i, (title, module, _) in enumerate(pages)]


CHART = "[data-testid='stVegaLiteChart']"


def _wait_for_charts(page, timeout_ms: int = 60_000) -> None:
    """Until the page's charts are drawn by the browser (a canvas or an SVG inside)."""
    page.wait_for_function(
        """(sel) => { const c = [...document.querySelectorAll(sel)];
                      return c.length > 0 && c.every(e => e.querySelector('canvas, svg')); }""",
        arg=CHART, timeout=timeout_ms)


def _charts_picture(page) -> str:
    """What the browser drew in every chart (their SVG/canvas markup), read atomically."""
    return page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].map(e => e.innerHTML).join('|')""",
        CHART)


def _assert_no_error_elements(page) -> None:
    assert page.get_by_test_id("stException").count() == 0, "an exception is shown"
    assert "Traceback" not in page.inner_text("body"), "a traceback is shown"


@pytest.mark.parametrize("title,path", _app_pages(), ids=[p or "default" for _, p in _app_pages()])
def test_every_page_follows_its_main_slider(streamlit_url, tmp_path, title, path):
    # Open the page, move its first slider one step with the keyboard (as an instructor
    # does on a projector), and check that the browser-drawn chart changes and that no
    # error element or traceback appears.
    import time

    with chromium_page(viewport=(1920, 1080)) as page, \
            screenshot_on_failure(page, tmp_path / f"{path or 'default'}-failure.png"):
        page.goto(streamlit_url + path)
        page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
        _wait_for_charts(page)
        _assert_no_error_elements(page)
        before = _charts_picture(page)
        thumb = page.get_by_role("slider").first
        thumb.focus()
        at_max = thumb.get_attribute("aria-valuenow") == thumb.get_attribute("aria-valuemax")
        page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
        deadline = time.monotonic() + 45
        while _charts_picture(page) == before:
            assert time.monotonic() < deadline, f"{title}: the chart did not change"
            page.wait_for_timeout(250)
        _wait_for_charts(page)
        _assert_no_error_elements(page)


@pytest.mark.parametrize("size", [(1920, 1080), (1366, 768)], ids=["projector", "laptop"])
def test_screenshots_of_every_page(streamlit_url, tmp_path, size):
    # Screenshots at a projector's and a laptop's resolution, for a person to look at:
    # set DPTEACH_SCREENSHOTS=<dir> to keep them. The test checks that every page
    # draws its charts without an error element at both sizes.
    import os
    from pathlib import Path

    out = Path(os.environ.get("DPTEACH_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    with chromium_page(viewport=size) as page:
        for title, path in _app_pages():
            with screenshot_on_failure(page, tmp_path / f"{path or 'default'}-failure.png"):
                page.goto(streamlit_url + path)
                page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
                _wait_for_charts(page)
                _assert_no_error_elements(page)
                page.screenshot(path=out / f"{path or 'default'}-{size[0]}x{size[1]}.png",
                                full_page=True)
