"""Every app page names the notebook it goes with, and that notebook names the page.

For every page of ``app.py``'s ``PAGES`` (issue 24, item 4):

* its module has ``NOTEBOOK``, the file stem of an existing ``notebooks/NN_topic.ipynb``;
* the classroom bar shows one caption line under it, "Goes with notebook NN, Title" (the
  title of the notebook's first heading, without its subtitle), and app.py passes it;
* the notebook's markdown names the page: "the app's page *<page title>*".
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpapp import frame

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120        # seconds per run: the machine is shared; a run normally takes < 2 s


def _pages() -> list[tuple[str, str]]:
    """(title, module) of every page in app.py's PAGES (read without running it)."""
    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and [t.id for t in n.targets] == ["PAGES"])
    return [(title, module) for title, module, _ in pages]


PAGES = _pages()
IDS = [module.rsplit(".", 1)[-1] for _, module in PAGES]


def _notebook(module: str) -> str | None:
    return getattr(importlib.import_module(module), "NOTEBOOK", None)


def _markdown(stem: str) -> str:
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def _expected_caption(stem: str) -> str:
    """The caption, from the notebook's first line ("# 04 · Title: subtitle") read here."""
    first = _markdown(stem).splitlines()[0]
    m = re.match(r"# (\d{2}) · (?:Going further: )?([^:]+)", first)
    assert m, first
    number, title = m.groups()
    if len(title) > frame.SHORT_TITLE:
        title = title.split(",")[0]
    return f"Goes with notebook {number}, {title[0].upper()}{title[1:].strip()}"


def _stub_page(title: str, notebook: str | None) -> None:
    """The classroom bar around a page that only draws its title (what app.py does, with
    the page's own body left out: the caption does not depend on it)."""
    import streamlit as st

    from dpapp.frame import classroom_frame

    classroom_frame(lambda: st.title(title), notebook=notebook)


@pytest.mark.parametrize("title,module", PAGES, ids=IDS)
def test_every_page_names_an_existing_notebook(title, module):
    stem = _notebook(module)
    assert isinstance(stem, str) and stem, f"{module} has no NOTEBOOK"
    assert (ROOT / "notebooks" / f"{stem}.ipynb").is_file(), f"{module}: no notebooks/{stem}.ipynb"


@pytest.mark.parametrize("title,module", PAGES, ids=IDS)
def test_the_notebook_names_the_page(title, module):
    stem = _notebook(module)
    assert f"the app's page *{title}*" in _markdown(stem), (
        f"notebooks/{stem}.ipynb does not name the page: add \"On a projector: the app's page "
        f"*{title}* shows this (`make app`).\" to the section it goes with")


@pytest.mark.parametrize("title,module", PAGES, ids=IDS)
def test_the_bar_shows_one_short_caption_line(title, module):
    stem = _notebook(module)
    for present in ("false", "true"):
        at = AppTest.from_function(_stub_page, kwargs={"title": title, "notebook": stem},
                                   default_timeout=TIMEOUT)
        at.query_params["present"] = present
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        captions = [c.value for c in at.caption if c.value.startswith("Goes with notebook")]
        assert captions == [_expected_caption(stem)], captions
        assert "\n" not in captions[0] and len(captions[0]) <= 80, captions[0]


def test_no_notebook_no_caption():
    at = AppTest.from_function(_stub_page, kwargs={"title": "x", "notebook": None},
                               default_timeout=TIMEOUT).run()
    assert not [c for c in at.caption if c.value.startswith("Goes with notebook")]


def test_a_missing_notebook_file_still_names_its_number():
    assert frame.notebook_caption("99_not_written_yet") == "Goes with notebook 99"


def test_app_py_passes_the_page_notebook():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    title, module = PAGES[0]
    assert at.title[0].value == title
    assert [c.value for c in at.caption if c.value.startswith("Goes with notebook")] == \
        [_expected_caption(_notebook(module))]
