"""The lesson on the surface, the proof behind it (docs/notebooks.md).

For every master in ``notebooks/``:

* no ``assert`` in a lesson cell: every check lives in a code cell tagged ``check`` (otter's
  exercise tests, between ``# BEGIN TESTS`` and ``# END TESTS``, are neither);
* every check cell is collapsed (JupyterLab's ``source_hidden`` and ``outputs_hidden``);
* a widget made in a lesson cell goes through ``show_with_sliders``, so its default figure
  is also a plain output (a headless run, a preview, a PDF and the book show it);
* one sitting: at most 2,600 lesson words and 40 lesson code cells; lesson cells of at most
  25 lines, with a median of at most 8;
* no plumbing in the lesson's prose or code: no script paths, BLAS, thread limits, timers,
  tolerances, seed restarts, builds;

and for every student edition (``make student``): no check cell and no ``assert`` at all.

Every master follows it (the last six were converted in issue 22's final round).
``test_the_checks_can_fail`` shows each check failing on a bad notebook.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MASTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))

_spec = importlib.util.spec_from_file_location("notebook_stats", ROOT / "scripts" / "notebook_stats.py")
stats_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(stats_module)


WORDS_MAX, CELLS_MAX, CELL_LINES_MAX, MEDIAN_MAX = 2600, 40, 25, 8
#: words that are plumbing, not lesson (in prose or in a lesson cell's code)
PLUMBING = re.compile(r"(scripts/|benchmarks/|\bBLAS\b|threadpool|perf_counter|tolerance|"
                      r"\bseeds? restart|\bbuild_info\b|same build|GRID_TOLERANCE)", re.I)
ASSERT = re.compile(r"^\s*assert\b", re.M)
#: a widget made in a lesson cell (its default figure must show as a plain output too)
WIDGET = re.compile(r"\binteract(?:ive)?\(|\bwidgets\.\w+\(")


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def problems(nb: dict) -> list[str]:
    """Everything in one master that breaks the convention."""
    found = []
    cells = stats_module.classify(nb)
    for i, (kind, cell) in enumerate(cells):
        src = stats_module.source(cell)
        if kind == "lesson" and ASSERT.search(src):
            found.append(f"cell {i}: assert in a lesson cell")
        if kind == "lesson" and WIDGET.search(src) and "show_with_sliders" not in src:
            found.append(f"cell {i}: a widget without its static figure (show_with_sliders)")
        if kind == "check":
            hidden = cell.get("metadata", {}).get("jupyter", {})
            if not (hidden.get("source_hidden") and hidden.get("outputs_hidden")):
                found.append(f"cell {i}: check cell not collapsed")
        if kind in ("lesson", "markdown"):
            for line in src.splitlines():
                if line.lstrip().startswith("#") and kind == "lesson":
                    continue                   # comments may explain; the test is for prose
                m = PLUMBING.search(line)
                if m:
                    found.append(f"cell {i}: plumbing in the lesson: {m.group(0)!r}")
    s = stats_module.stats(nb)
    if s["words"] > WORDS_MAX:
        found.append(f"{s['words']} lesson words (at most {WORDS_MAX})")
    if s["code_cells"] > CELLS_MAX:
        found.append(f"{s['code_cells']} lesson code cells (at most {CELLS_MAX})")
    if s["largest_cell"] > CELL_LINES_MAX:
        found.append(f"a lesson cell of {s['largest_cell']} lines (at most {CELL_LINES_MAX})")
    if s["median_cell"] > MEDIAN_MAX:
        found.append(f"median lesson cell {s['median_cell']} lines (at most {MEDIAN_MAX})")
    return found


@pytest.mark.parametrize("path", MASTERS, ids=lambda p: p.name)
def test_master_follows_the_convention(path):
    assert not problems(_load(path)), "\n".join(problems(_load(path)))


@pytest.fixture(scope="module")
def student_editions(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_student_editions.py"),
                          "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def test_student_editions_hold_no_check_cell_and_no_assert(student_editions):
    bad = []
    for path in sorted(student_editions.glob("*.ipynb")):
        for i, cell in enumerate(_load(path)["cells"]):
            if "check" in cell.get("metadata", {}).get("tags", []):
                bad.append(f"{path.name} cell {i}: a check cell")
            elif cell["cell_type"] == "code" and ASSERT.search(stats_module.source(cell)):
                bad.append(f"{path.name} cell {i}: an assert")
    assert not bad, "\n".join(bad)


def _nb(*cells):
    return {"cells": [dict(c, metadata=c.get("metadata", {})) for c in cells]}


def _code(src, **meta):
    return {"cell_type": "code", "source": src, "metadata": meta}


@pytest.mark.parametrize("bad, expect", [
    (_nb(_code("x = 1\nassert x == 1")), "assert in a lesson cell"),
    (_nb(_code("interact(draw, eps=widgets.FloatSlider(value=1.0))")), "static figure"),
    (_nb(_code("assert True", tags=["check"])), "not collapsed"),
    (_nb({"cell_type": "markdown", "source": "Run scripts/precompute.py first."}), "plumbing"),
    (_nb({"cell_type": "markdown", "source": "word " * 2601}), "lesson words"),
    (_nb(*[_code("x = 1")] * 41), "lesson code cells"),
    (_nb(_code("\n".join(["x = 1"] * 26))), "a lesson cell of 26 lines"),
    (_nb(*[_code("\n".join(["x = 1"] * 9))] * 3), "median lesson cell"),
])
def test_the_checks_can_fail(bad, expect):
    assert any(expect in p for p in problems(bad)), problems(bad)


def test_a_collapsed_check_cell_passes():
    good = _nb(_code("x = 1"), _code("assert x == 1", tags=["check"],
                                     jupyter={"source_hidden": True, "outputs_hidden": True}))
    assert problems(good) == []
