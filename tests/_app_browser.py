"""Helpers of the app's browser tests: the pages of ``app.py`` and waiting for one to settle."""

from __future__ import annotations

import ast
import time

from _servers import ROOT

CHART = "[data-testid='stVegaLiteChart']"


def _pages() -> list[tuple[str, str, str]]:
    """(title, module, url path) of every page in app.py's PAGES; the first is at "/"."""
    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and [t.id for t in n.targets] == ["PAGES"])
    return [(title, module, "" if i == 0 else module.rsplit(".", 1)[-1].replace("_", "-"))
            for i, (title, module, _) in enumerate(pages)]


PAGES = _pages()
IDS = [p or "default" for _, _, p in PAGES]


SETTLED = """(sel) => {
    if (document.querySelector("[data-testid='stStatusWidget']")) return false;   // running
    if (document.querySelector("[data-testid='stSpinner']")) return false;
    const charts = [...document.querySelectorAll(sel)];   // every page draws charts: none
    return charts.length > 0 && charts.every(e => e.querySelector('canvas, svg'));  // = not yet
}"""


def settle(page, title: str, timeout_s: float = 90) -> None:
    """Until the page's heading is shown, its script has finished (for half a second) and
    every chart is drawn."""
    page.get_by_role("heading", name=title).first.wait_for(timeout=timeout_s * 1000)
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while True:
        if page.evaluate(SETTLED, CHART):
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= 0.5:
                return
        else:
            quiet_since = None
        assert time.monotonic() < deadline, f"{title}: the page did not settle"
        page.wait_for_timeout(100)
