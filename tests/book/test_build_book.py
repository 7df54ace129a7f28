"""scripts/build_book.py without a browser: what a chapter keeps and drops, the launch links,
the time estimates and the maps to the syllabus and the app (fast; no notebook is run)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from _servers import ROOT

spec = importlib.util.spec_from_file_location("build_book", ROOT / "scripts" / "build_book.py")
build_book = importlib.util.module_from_spec(spec)
sys.modules.setdefault("build_book", build_book)
spec.loader.exec_module(build_book)

BINDER = "https://mybinder.org/v2/gh/dpteach-course/dpteach/HEAD"


def _md(text, **meta):
    return {"cell_type": "markdown", "metadata": meta, "source": text}


def _code(text, outputs=(), tags=()):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": text,
            "outputs": list(outputs), "execution_count": 1}


def _stream(text, name="stdout"):
    return {"output_type": "stream", "name": name, "text": text}


WIDGET = {"output_type": "display_data",
          "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "x"},
                   "text/plain": "interactive(children=(FloatSlider(...)))"}, "metadata": {}}
ERROR = {"output_type": "error", "ename": "NameError", "evalue": "name 'x' is not defined",
         "traceback": ["Traceback"]}


def _executed_student_edition():
    return {"metadata": {"otter": {"tests": {"q1": "public test"}}, "widgets": {"state": {}}},
            "nbformat": 4, "nbformat_minor": 5, "cells": [
                _code('# Initialize Otter\nimport otter\ngrader = otter.Notebook("x.ipynb")'),
                _md("# 03 · A chapter\n\nThe introduction."),
                _code("x = 1\nprint(x)", [_stream("1\n")]),
                _code("show_with_sliders(draw, eps=slider)", [WIDGET]),
                _md("## Exercises"),
                _code("answer_q1 = ...", [_stream("Ellipsis\n")], tags=["otter_answer_cell"]),
                _code('grader.check("q1")', [_stream("q1 results: failed\n")]),
                _code("plot(answer_q1)", [ERROR]),
            ]}


def test_a_chapter_drops_otter_plumbing_prompt_outputs_and_widgets():
    chapter, problems = build_book.prepare_chapter(_executed_student_edition(), "03_x.ipynb")
    assert problems == []
    sources = [build_book._src(c) for c in chapter["cells"]]
    assert not any("otter" in s or "grader" in s for s in sources)
    assert sources[0] == "# 03 · A chapter"                    # the title, then the buttons
    assert 'data-launch="student"' in sources[1]
    assert sources[2] == "The introduction."
    cells = {build_book._src(c): c for c in chapter["cells"]}
    assert cells["x = 1\nprint(x)"]["outputs"] == [_stream("1\n")]
    assert cells["show_with_sliders(draw, eps=slider)"]["outputs"] == []
    assert build_book.WIDGET_NOTE in sources
    assert cells["answer_q1 = ..."]["outputs"] == []
    assert cells["plot(answer_q1)"]["outputs"] == []           # an unanswered prompt's error
    assert "otter" not in chapter["metadata"] and "widgets" not in chapter["metadata"]


def test_an_error_in_a_lesson_cell_fails_the_build():
    nb = _executed_student_edition()
    nb["cells"].insert(3, _code("1/0", [ERROR]))
    _, problems = build_book.prepare_chapter(nb, "03_x.ipynb")
    assert len(problems) == 1 and "NameError" in problems[0]


def test_launch_links_follow_the_readme_badges_and_the_app_urls():
    links = build_book.launch_links("03_randomized_response.ipynb")
    assert links["student"][0][1] == f"{BINDER}?labpath=student%2F03_randomized_response.ipynb"
    assert links["instructor"][0][1] == (
        f"{BINDER}?labpath=notebooks%2F03_randomized_response.ipynb")
    assert [u for _, u in links["app"]] == [f"{BINDER}?urlpath=streamlit/randomized-response"]
    # the app's first page is served at its root only (app.py)
    first = build_book.app_pages()[0][1]
    assert build_book.app_page_path(first) == ""
    assert build_book.launch_links("01_differencing_attacks.ipynb")["app"] == []


def test_every_app_page_in_the_map_is_a_page_of_the_app():
    modules = {m for _, m in build_book.app_pages()}
    assert len(modules) >= 10
    mapped = {m for pages in build_book.APP_PAGES.values() for m, _ in pages}
    assert mapped <= modules, mapped - modules
    assert set(build_book.APP_PAGES) <= set(build_book.SYLLABUS)


def test_minutes_follow_the_course_plan_formula():
    words = " ".join(["w"] * 300)                                   # 2 minutes of reading
    nb = {"cells": [_md("# T\n" + words), _code("x = 1"), _code("y = 2"),
                    {"cell_type": "raw", "metadata": {}, "source": "# BEGIN QUESTION\nname: q1"},
                    _md("## Going further: more\n" + words), _code("z = 3")]}
    s = build_book.notebook_stats.stats(nb)
    assert build_book.minutes(nb) == pytest.approx(s["words"] / 150 + 1.5 * 3 + 10 * 1)
    core = build_book.without_going_further(nb)
    assert [build_book._src(c) for c in core["cells"]][-1].startswith("# BEGIN QUESTION")
    assert build_book.notebook_stats.stats(core)["code_cells"] == 2


def test_chapters_are_every_notebook_in_teaching_order():
    paths = build_book.masters()
    assert {p.name for p in paths} == {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert [build_book.number(p.name) for p in paths] == sorted(
        build_book.number(p.name) for p in paths)


def test_an_interact_figure_is_shown_from_the_saved_widget_state():
    png = {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure>"},
           "metadata": {}}
    state = {"box": {"model_name": "VBoxModel",
                     "state": {"children": ["IPY_MODEL_slider", "IPY_MODEL_out"]}},
             "slider": {"model_name": "FloatSliderModel", "state": {}},
             "out": {"model_name": "OutputModel", "state": {"outputs": [png]}}}
    view = {"output_type": "display_data", "metadata": {},
            "data": {build_book.WIDGET_VIEW: {"model_id": "box"}, "text/plain": "VBox(...)"}}
    nb = {"metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": state}}},
          "cells": [_md("# T"), _code("interact(draw, eps=widgets.FloatSlider())", [view])]}
    chapter, _ = build_book.prepare_chapter(nb, "14_x.ipynb")
    cell = next(c for c in chapter["cells"] if c["cell_type"] == "code")
    assert cell["outputs"] == [png]
    assert build_book.WIDGET_NOTE in [build_book._src(c) for c in chapter["cells"]]
