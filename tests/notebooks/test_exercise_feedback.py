"""What a student reads when an exercise check fails (issue 22, item 6).

otter-grader (7.0.0) shows a failed test case as "Error at line N in test q1:", the test's
raw ``assert`` line (its message an f-string), and only then the message. The student
edition's first cell calls :func:`dpteach.exercises.show_feedback_first`, so a failed
``grader.check`` shows the readable message first, once, in both its plain-text and its
HTML form (JupyterLab shows the HTML one), and no ``assert`` line. Here notebook 03's
student edition is built and run headless with the commonest wrong answer to exercise 1
(the share of yes-reports instead of the estimate), then with an answer that raises.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import _nbrun  # noqa: E402  (scripts/_nbrun.py: nbclient without its stall after widget cells)

NAME = "03_randomized_response.ipynb"
WRONG = ("import numpy as np\n"
         "def estimate_rate(reports, gamma):\n"
         "    return float(np.mean(reports))    # the share of yes-reports: the coins not undone")
RAISES = ("def estimate_rate(reports, gamma):\n"
          "    return float(reports.mean()) - 'oops'\n"
          "_r = grader.check('q1')\n"
          "_r")


def _outputs(cell) -> tuple[str, str]:
    """(text/plain, text/html) of a cell's displayed result."""
    data = {}
    for out in cell.outputs:
        data.update(out.get("data", {}))
    return data.get("text/plain", ""), data.get("text/html", "")


def _html_lines(markup: str) -> list[str]:
    """The lines of text an HTML output shows (paragraphs and line breaks split lines)."""
    text = re.sub(r"</p>|<br\s*/?>", "\n", markup)
    return [line.strip() for line in html.unescape(re.sub(r"<[^>]+>", "", text)).split("\n")
            if line.strip()]


@pytest.fixture(scope="module")
def wrong_answer_run(tmp_path_factory):
    """Notebook 03's student edition, run with a wrong exercise 1: the q1 check cell, otter's
    own messages for it, and the check of an answer that raises."""
    tmp = tmp_path_factory.mktemp("feedback")
    build = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_student_editions.py"),
                            "--out", str(tmp), str(ROOT / "notebooks" / NAME)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    nb = nbformat.read(tmp / NAME, as_version=4)
    answer = [c for c in nb.cells if c.cell_type == "code"
              and c.source.startswith("def estimate_rate(")]
    check = [c for c in nb.cells if c.cell_type == "code"
             and c.source.strip() == 'grader.check("q1")']
    assert len(answer) == 1 and len(check) == 1
    answer[0].source = WRONG
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json as _json\n"
        "print('OTTER-MESSAGES', _json.dumps([t.message for t in "
        "grader.check('q1').test_case_results]))"))
    nb.cells.append(nbformat.v4.new_code_cell(RAISES))
    _nbrun.execute(NotebookClient(nb, timeout=300, kernel_name="python3",
                                  resources={"metadata": {"path": str(tmp)}}))
    printed = "".join(o.get("text", "") for o in nb.cells[-2].outputs
                      if o.output_type == "stream")
    messages = json.loads(printed.split("OTTER-MESSAGES ", 1)[1])
    return check[0], messages, nb.cells[-1]


def test_the_readable_message_comes_first_and_once(wrong_answer_run):
    check, messages, _ = wrong_answer_run
    assert len(messages) == 1 and "AssertionError: " in messages[0], messages
    # otter's own message (unchanged: grading reads it): the assert line first
    assert messages[0].splitlines()[2].strip().startswith("assert "), messages[0]
    readable = messages[0].rsplit("AssertionError: ", 1)[1].strip()
    assert "the share of yes-reports" in readable, readable
    text, markup = _outputs(check)
    for shown in (text.splitlines(), _html_lines(markup)):
        assert shown, (text, markup)
        assert shown[0] == f"❌ {readable}", shown          # the first line a student meets
        assert sum(readable in line for line in shown) == 1, shown        # once
        assert not any(line.strip().startswith("assert") for line in shown), shown
        assert not any("Error at line" in line or "{got" in line for line in shown), shown
        assert shown[-1] == "q1 results: 0 of 1 test passed", shown


def test_an_answer_that_raises_names_the_error_and_the_call(wrong_answer_run):
    _, _, raised = wrong_answer_run
    text, markup = _outputs(raised)
    for shown in (text.splitlines(), _html_lines(markup)):
        assert shown[0].startswith("❌ TypeError: unsupported operand"), shown
        assert "(raised by the test's line: first = estimate_rate(reports, 0.25))" in shown[1]
        assert not any(line.strip().startswith("assert") for line in shown), shown
        assert shown[-1] == "q1 results: 0 of 1 test passed", shown
