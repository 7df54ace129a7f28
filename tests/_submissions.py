"""Submissions as students hand them in, made from a notebook's two editions.

Used by tests/notebooks/test_grading.py and benchmarks/bench_grading.py. Every kind starts from the
student edition (what a student downloads) and fills in answers from the autograder edition
(the master's solution cells, matched by cell id):

========================  =============================================  ==================
kind                      what it is                                     graded as
========================  =============================================  ==================
complete                  every answer filled in                         full marks
partial                   the first two answers, the rest left ``...``    2 points
untouched                 the student edition as downloaded              0
raises                    complete, but the second answer's cell raises  one question lost
                          before it assigns (a typo: NameError)
endless_loop              complete, but a ``while True: pass`` cell      timed out
wrong_answer              complete except the commonest mistake (below)  its test cases lost
renamed                   complete, saved under another name and         full marks
                          extension (``Dana Lee - homework (1).json``)
corrupted                 complete, cut off after 60% of its bytes       not a notebook
not_a_notebook            a PDF                                          not a notebook
other_notebook            another notebook's complete submission         wrong assignment
kernel_dies               complete, but a cell ends the kernel           error
                          (``os._exit``: what a crash or the memory
                          killer does)
========================  =============================================  ==================
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

SOLUTION_TAG = "otter_assign_solution_cell"     # otter assign's tag on the solutions' cells

#: the commonest wrong answer of one exercise per notebook: (cell id, the student's code)
WRONG_ANSWERS = {
    # Exercise 1: the prior probability times e^ε, instead of the prior odds
    "02_what_dp_promises": ("ex-05", "posterior_q1 = math.exp(2) * 0.1\nposterior_q1\n"),
    # Exercise 1: the plain share of "yes" reports, forgetting to undo the coin flips
    "03_randomized_response": ("ex-27", (
        "def estimate_rate(reports, gamma):\n"
        "    return float(np.mean(reports))\n")),
    # Exercise 1: the same factor n for both means (the mean without person i is over n - 1)
    "01_differencing_attacks": ("ex-05", (
        "def bit_from_means(mean_all, mean_without, n):\n"
        "    return n * (mean_all - mean_without)\n\n\n"
        "defence_q1 = \"C\"\n")),
}

#: every kind of submission make() writes
KINDS = ("complete", "partial", "untouched", "raises", "endless_loop", "wrong_answer",
         "renamed", "corrupted", "not_a_notebook", "other_notebook", "kernel_dies")


def _source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def answer_cells(student: dict, autograder: dict) -> list[str]:
    """Ids of the student edition's answer cells, in order (one per question here)."""
    solutions = {c.get("id") for c in autograder["cells"]
                 if SOLUTION_TAG in c.get("metadata", {}).get("tags", [])}
    return [c["id"] for c in student["cells"] if c.get("id") in solutions]


def with_answers(student: dict, autograder: dict, ids: list[str] | None = None) -> dict:
    """The student edition with the solutions of the answer cells ``ids`` (default: all)."""
    nb = copy.deepcopy(student)
    solutions = {c.get("id"): _source(c) for c in autograder["cells"]
                 if SOLUTION_TAG in c.get("metadata", {}).get("tags", [])}
    for cell in nb["cells"]:
        if cell.get("id") in solutions and (ids is None or cell["id"] in ids):
            cell["source"] = solutions[cell["id"]]
    return nb


def _edit(nb: dict, cell_id: str, prefix: str = "", replace: str | None = None) -> dict:
    nb = copy.deepcopy(nb)
    (cell,) = [c for c in nb["cells"] if c.get("id") == cell_id]
    cell["source"] = prefix + (_source(cell) if replace is None else replace)
    return nb


def _dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def make(kind: str, student_path: Path, autograder_path: Path, folder: Path,
         other_complete: Path | None = None, name: str | None = None) -> Path:
    """Write one submission of ``kind`` into ``folder``; returns its path.

    ``student_path`` and ``autograder_path`` are the notebook's two editions (from
    ``scripts/build_student_editions.py --autograder``); ``other_complete`` is another
    notebook's complete submission (for ``other_notebook``); ``name`` is the file's name
    (default: ``<kind>.ipynb``).
    """
    student = json.loads(student_path.read_text(encoding="utf-8"))
    autograder = json.loads(autograder_path.read_text(encoding="utf-8"))
    answers = answer_cells(student, autograder)
    complete = with_answers(student, autograder)
    path = folder / (name or f"{kind}.ipynb")
    if kind == "complete":
        text = _dump(complete)
    elif kind == "partial":
        text = _dump(with_answers(student, autograder, answers[:2]))
    elif kind == "untouched":
        text = _dump(student)
    elif kind == "raises":
        text = _dump(_edit(complete, answers[1], prefix="total = totl + 1  # a typo\n"))
    elif kind == "endless_loop":
        text = _dump(_edit(complete, answers[2], prefix="while True:\n    pass\n"))
    elif kind == "wrong_answer":
        cell_id, code = WRONG_ANSWERS[student_path.stem]
        text = _dump(_edit(complete, cell_id, replace=code))
    elif kind == "renamed":
        path = folder / (name or "Dana Lee - homework (1).json")
        text = _dump(complete)
    elif kind == "corrupted":
        full = _dump(complete).encode("utf-8")
        path.write_bytes(full[: int(len(full) * 0.6)])
        return path
    elif kind == "not_a_notebook":
        path = folder / (name or "not_a_notebook.pdf")
        path.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")
        return path
    elif kind == "other_notebook":
        text = other_complete.read_text(encoding="utf-8")
    elif kind == "kernel_dies":
        text = _dump(_edit(complete, answers[1], prefix="import os\nos._exit(1)\n"))
    else:
        raise ValueError(f"unknown kind {kind!r}; kinds: {', '.join(KINDS)}")
    path.write_text(text, encoding="utf-8")
    return path
