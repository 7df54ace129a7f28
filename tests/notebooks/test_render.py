"""`make render` (scripts/render_notebooks.py): notebooks executed headless into HTML pages
that hold their outputs and figures but not their check cells, and a failing cell fails it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "render_notebooks.py"
CHECK_TAG = "check"
CHECK_MARK = "check-cell-5f3a"


def _render(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


def _notebook(path: Path, *cells) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    nbformat.write(nb, path)
    return path


def _tiny(tmp_path: Path) -> Path:
    return _notebook(
        tmp_path / "tiny.ipynb",
        nbformat.v4.new_markdown_cell("# A tiny notebook"),
        nbformat.v4.new_code_cell("print('printed-' + str(6 * 7))"),
        nbformat.v4.new_code_cell(
            "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([0, 1], [1, 0])\n"
            "plt.show()"),
        nbformat.v4.new_code_cell(f"assert 6 * 7 == 42, '{CHECK_MARK}'",
                                  metadata={"tags": [CHECK_TAG]}),
    )


def test_page_holds_outputs_and_figure_but_no_check_cell(tmp_path):
    result = _render(_tiny(tmp_path), "--out", tmp_path / "out", "--timeout", "120")
    assert result.returncode == 0, result.stdout + result.stderr
    page = (tmp_path / "out" / "tiny.html").read_text(encoding="utf-8")
    assert "printed-42" in page                      # an executed output, not the source
    assert "data:image/png;base64," in page          # the figure, embedded
    assert CHECK_MARK not in page                    # the check cell removed


def test_a_failing_cell_fails_the_render(tmp_path):
    path = _notebook(tmp_path / "broken.ipynb",
                     nbformat.v4.new_code_cell("x = 1"),
                     nbformat.v4.new_code_cell("raise ValueError('render-must-fail')"),
                     nbformat.v4.new_code_cell("print('never-reached')"))
    result = _render(path, "--out", tmp_path / "out", "--timeout", "120")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "broken" in result.stderr and "render-must-fail" in result.stderr
    # the page is still written, up to the failing cell and its traceback
    page = (tmp_path / "out" / "broken.html").read_text(encoding="utf-8")
    assert "render-must-fail" in page


def test_a_master_renders(tmp_path):
    """Notebook 02 (about 10 s): its outputs and figures in the page, its check cells gone."""
    master = ROOT / "notebooks" / "02_what_dp_promises.ipynb"
    nb = nbformat.read(master, as_version=4)
    result = _render("02_what_dp_promises", "--out", tmp_path, "--timeout", "300")
    assert result.returncode == 0, result.stdout + result.stderr
    page = (tmp_path / "02_what_dp_promises.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in page
    assert 'class="jp-OutputArea-child' in page            # executed outputs
    # the page names each cell it shows by its id (nbconvert's lab template); raw cells
    # (otter's markers) are not shown
    shown = set(re.findall(r'id="cell-id=([^"]+)"', page))
    checks = {c.id for c in nb.cells if CHECK_TAG in c.metadata.get("tags", [])}
    lesson = {c.id for c in nb.cells if c.cell_type != "raw"} - checks
    assert checks, "notebook 02 has check cells to remove"
    assert not shown & checks
    assert shown == lesson


@pytest.mark.parametrize("name", ["no_such_notebook"])
def test_unknown_name_is_an_error(name):
    result = _render(name)
    assert result.returncode != 0 and name in result.stderr
