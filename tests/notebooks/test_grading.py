"""Grading a class (``make grade``, scripts/grade_class.py) and the grading fix behind it.

The batch tests build, for notebooks 01 and 02 (02_what_dp_promises), a folder with one submission of every kind
students hand in (tests/_submissions.py: complete, partial, untouched, a cell that raises,
an endless loop, the commonest wrong answer, a renamed file, a corrupted file, a PDF,
another notebook, a kernel that dies), grade it as ``make grade`` does, and check every
status and every score in ``grades.csv`` and the feedback files.

Nothing here is decided by the wall clock: the only time that matters is the grader's own
per-submission limit (the feature under test), 180 s, which the endless loop reaches and
every other submission stays far below (10-25 s each, on a loaded 2-core machine).
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import _submissions

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
sys.path.insert(0, str(SCRIPTS))
import _grade_one  # noqa: E402  (scripts/_grade_one.py)
import _nbrun  # noqa: E402
import grade_class  # noqa: E402

NOTEBOOKS = ["01_differencing_attacks", "02_what_dp_promises"]
TIME_LIMIT = 180          # seconds per submission in the batch tests

# per notebook: its number of questions (one point each), and the question the commonest
# wrong answer (tests/_submissions.py) spoils, the score it keeps there, and a line of
# otter's message for it. otter splits a question's point evenly among its test cases:
# notebook 01's q1 has four (the function, public and hidden; the defence letter, public
# and hidden) and the wrong function keeps the defence's two, 0.5.
QUESTIONS = {"01_differencing_attacks": 4, "02_what_dp_promises": 3}
WRONG_ANSWER = {"01_differencing_attacks": ("q1", 0.5, "your function returned"),
                "02_what_dp_promises": ("q1", 0, "you multiplied the prior probability by e^ε")}


def _scores(kind: str, name: str) -> list[float]:
    """Each question's score for a submission of ``kind`` (tests/_submissions.py)."""
    n = QUESTIONS[name]
    full = [1] * n
    if kind in ("complete", "renamed"):
        return full
    if kind == "partial":                          # the first two answers only
        return [1, 1] + [0] * (n - 2)
    if kind == "untouched":
        return [0] * n
    if kind == "raises":                           # the second answer's cell raises
        return [1, 0] + [1] * (n - 2)
    if kind == "wrong_answer":
        question, kept, _ = WRONG_ANSWER[name]
        return [kept if q == int(question[1:]) - 1 else 1 for q in range(n)]
    raise ValueError(kind)


# the status of every kind of submission, and whether it has scores
EXPECTED = {
    "complete": "graded", "partial": "graded", "untouched": "graded", "raises": "graded",
    "endless_loop": "timed out", "wrong_answer": "graded", "renamed": "graded",
    "corrupted": "not a notebook", "not_a_notebook": "not a notebook",
    "other_notebook": "wrong assignment", "kernel_dies": "error",
}
assert set(EXPECTED) == set(_submissions.KINDS)


@pytest.fixture(scope="module")
def editions(tmp_path_factory):
    """Student and autograder editions of notebooks 01 and 02 (the build script)."""
    out = tmp_path_factory.mktemp("editions")
    run = subprocess.run([sys.executable, str(SCRIPTS / "build_student_editions.py"),
                          "--out", str(out / "student"), "--autograder", str(out / "ag"),
                          *(str(ROOT / "notebooks" / f"{n}.ipynb") for n in NOTEBOOKS)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    return {n: (out / "student" / f"{n}.ipynb", out / "ag" / n / f"{n}.ipynb")
            for n in NOTEBOOKS}


def _make_folder(editions, name: str, folder: Path) -> dict[str, str]:
    """One submission of every kind for notebook ``name``: {file name: kind}."""
    folder.mkdir(parents=True)
    other = NOTEBOOKS[1 - NOTEBOOKS.index(name)]
    other_complete = _submissions.make("complete", *editions[other], folder.parent,
                                       name=f"{other}-complete.ipynb")
    files = {}
    for kind in _submissions.KINDS:
        path = _submissions.make(kind, *editions[name], folder, other_complete=other_complete)
        files[path.name] = kind
    return files


@pytest.fixture(scope="module", params=NOTEBOOKS)
def batch(request, editions, tmp_path_factory):
    """The mixed folder of one notebook, graded the way `make grade` does."""
    name = request.param
    tmp = tmp_path_factory.mktemp(f"batch-{name[:2]}")
    files = _make_folder(editions, name, tmp / "submissions")
    # the endless loop writes its kernel's pid first, so we can see that it was killed
    loop_file = next(f for f, k in files.items() if k == "endless_loop")
    pid_file = tmp / "endless-loop-kernel.pid"
    nb = json.loads((tmp / "submissions" / loop_file).read_text(encoding="utf-8"))
    nb["cells"].insert(1, nbformat.v4.new_code_cell(
        f"import os\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))"))
    (tmp / "submissions" / loop_file).write_text(json.dumps(nb), encoding="utf-8")

    run = subprocess.run([sys.executable, str(SCRIPTS / "grade_class.py"), name,
                          str(tmp / "submissions"), "--out", str(tmp / "grades"),
                          "--time-limit", str(TIME_LIMIT)],
                         capture_output=True, text=True, timeout=3600, cwd=tmp)
    assert run.returncode == 0, run.stdout + run.stderr
    with open(tmp / "grades" / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    return dict(name=name, files=files, rows=rows, out=tmp / "grades", log=run.stdout,
                kernel_pid_file=pid_file)


@pytest.mark.slow
def test_every_submission_gets_its_status_and_score(batch):
    rows, name = batch["rows"], batch["name"]
    assert sorted(rows) == sorted(batch["files"]), batch["log"]
    wrong = []
    n = QUESTIONS[name]
    for file, kind in batch["files"].items():
        row = rows[file]
        status = EXPECTED[kind]
        scores = _scores(kind, name) if status == "graded" else None
        got = [row.get(f"q{q}") for q in range(1, n + 1)]
        want = ["" for _ in got] if scores is None else [f"{s:g}" for s in scores]
        total = "" if scores is None else f"{sum(scores):g}"
        if (row["status"], got, row["total"]) != (status, want, total):
            wrong.append(f"{kind} ({file}): got {row['status']} {got} total {row['total']!r} "
                         f"({row['note']}); expected {status} {want} total {total!r}")
        if row["status"] == "graded" and row["possible"] != str(n):
            wrong.append(f"{kind}: possible {row['possible']!r}, expected {n}")
    # exactly the notebook's questions are columns of the gradebook
    columns = list(next(iter(rows.values())))
    assert [c for c in columns if re.fullmatch(r"q\d+", c)] == [
        f"q{q}" for q in range(1, n + 1)], columns
    assert not wrong, "\n".join(wrong) + "\n" + batch["log"]


@pytest.mark.slow
def test_the_notes_say_why(batch):
    notes = {kind: batch["rows"][file]["note"] for file, kind in batch["files"].items()}
    assert "NameError: name 'totl' is not defined" in notes["raises"]
    assert f"after {TIME_LIMIT} s" in notes["endless_loop"]
    assert notes["corrupted"].startswith("not JSON")
    assert notes["not_a_notebook"] == "not text (binary file)"
    other = NOTEBOOKS[1 - NOTEBOOKS.index(batch["name"])]
    assert notes["other_notebook"] == (f"this notebook is {other!r}, the assignment is "
                                       f"{batch['name']!r}")
    assert "kernel died" in notes["kernel_dies"]
    assert "ends in '.json'" in notes["renamed"]
    for kind in ("complete", "partial", "untouched", "wrong_answer"):
        assert notes[kind] == "", (kind, notes[kind])   # the student edition runs clean


@pytest.mark.slow
def test_the_timed_out_kernel_is_killed(batch):
    pid = int(batch["kernel_pid_file"].read_text())
    status = Path(f"/proc/{pid}/status")
    if status.exists():                # Linux: a zombie waiting for its reaper is dead too
        state = next((ln for ln in status.read_text().splitlines()
                      if ln.startswith("State:")), "")
        assert "Z" in state.split()[1:2], f"the endless loop's kernel {pid} still runs: {state}"
    else:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.slow
def test_feedback_for_every_submission(batch):
    folder = batch["out"] / "feedback"
    assert sorted(p.name for p in folder.glob("*.txt")) == sorted(
        f"{f}.txt" for f in batch["files"])
    wrong = next(f for f, k in batch["files"].items() if k == "wrong_answer")
    text = (folder / f"{wrong}.txt").read_text(encoding="utf-8")
    n = QUESTIONS[batch["name"]]
    question, kept, message = WRONG_ANSWER[batch["name"]]
    assert "status: graded" in text and f"score: {n - 1 + kept:g} / {n}" in text, text
    assert "FAILED" in text and "hidden test" in text, text
    assert f"{question}: {kept:g} / 1" in text, text
    assert message in text, text
    corrupted = next(f for f, k in batch["files"].items() if k == "corrupted")
    assert "status: not a notebook" in (folder / f"{corrupted}.txt").read_text()


# ------------------------------------------------------------- the fix reaches otter's runner
def test_otter_grading_polls_in_slices(editions, monkeypatch):
    """otter builds nbconvert's ExecutePreprocessor itself; _grade_one swaps that name for a
    subclass whose kernel client polls in slices. If otter stopped importing it that way,
    grading would silently be able to stall again: this fails instead."""
    import nbconvert.preprocessors

    sliced = []
    real = _nbrun.poll_in_slices
    monkeypatch.setattr(_nbrun, "poll_in_slices", lambda kc: (sliced.append(kc), real(kc)))
    original = nbconvert.preprocessors.ExecutePreprocessor
    student, autograder = editions["01_differencing_attacks"]
    zip_path = next(autograder.parent.glob("*-autograder_*.zip"))
    result = _grade_one.grade(zip_path, student)
    assert len(sliced) == 1, "otter's kernel client was not made to poll in slices"
    assert sliced[0].shell_channel.get_msg._dpteach_sliced
    assert nbconvert.preprocessors.ExecutePreprocessor is original     # put back
    assert (result["total"], result["possible"]) == (0, 4), result


# ------------------------------------------------------------- checks before grading (fast)
def _notebook(tmp_path, metadata=None, first_cell=None, name="sub.ipynb") -> Path:
    nb = nbformat.v4.new_notebook(metadata=metadata or {})
    if first_cell is not None:
        nb.cells.append(nbformat.v4.new_code_cell(first_cell))
    path = tmp_path / name
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path


def test_check_submission_sorts_files_before_grading(tmp_path):
    check = grade_class.check_submission
    expected = "02_what_dp_promises"
    own = {"otter": {"assignment_name": expected}}
    assert check(_notebook(tmp_path, own), expected) == (None, "")
    # a notebook is a notebook whatever its extension
    status, note = check(_notebook(tmp_path, own, name="Dana (1).json"), expected)
    assert status is None and "ends in '.json'" in note
    status, note = check(_notebook(tmp_path, own, name="no_extension"), expected)
    assert status is None and "has no extension" in note
    # another assignment: by otter's metadata, else by the init cell's otter.Notebook(...)
    assert check(_notebook(tmp_path, {"otter": {"assignment_name": "01_differencing_attacks"}}),
                 expected)[0] == "wrong assignment"
    init = 'import otter\ngrader = otter.Notebook("01_differencing_attacks.ipynb")'
    assert check(_notebook(tmp_path, first_cell=init), expected)[0] == "wrong assignment"
    init_own = f'import otter\ngrader = otter.Notebook("{expected}.ipynb")'
    assert check(_notebook(tmp_path, first_cell=init_own), expected) == (None, "")
    # no name at all (answers pasted into a new notebook): graded, and said so
    status, note = check(_notebook(tmp_path, first_cell="x = 1"), expected)
    assert status is None and "no assignment name" in note
    # not notebooks
    cases = {"truncated.ipynb": ('{"cells": [', "not JSON"),
             "empty.ipynb": ("", "not JSON"),
             "list.ipynb": ("[1, 2]", "JSON but not a notebook"),
             "other.ipynb": ('{"name": "x"}', "JSON but not a notebook"),
             "notes.txt": ("my answers: 1/6", "not JSON")}
    for file, (text, why) in cases.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
        status, note = check(tmp_path / file, expected)
        assert (status, note.startswith(why)) == ("not a notebook", True), (file, note)
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4\n\xe2\xe3\xcf\xd3\x00")
    assert check(tmp_path / "scan.pdf", expected) == ("not a notebook", "not text (binary file)")


def test_resolve_assignment(tmp_path):
    master = ROOT / "notebooks" / "01_differencing_attacks.ipynb"
    for spec in ("01", "01_differencing_attacks", "01_differencing_attacks.ipynb",
                 str(master), "notebooks/01_differencing_attacks.ipynb"):
        assert grade_class.resolve_assignment(spec) == master, spec
    with pytest.raises(SystemExit, match="several notebooks"):
        grade_class.resolve_assignment("0")
    with pytest.raises(SystemExit, match="no such notebook"):
        grade_class.resolve_assignment("99")


def test_submissions_skip_hidden_files_and_folders(tmp_path):
    for name in ("b.ipynb", "A.ipynb", ".DS_Store"):
        (tmp_path / name).write_text("{}")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    assert [p.name for p in grade_class.submissions_in(tmp_path)] == ["A.ipynb", "b.ipynb"]
    with pytest.raises(SystemExit, match="not a folder"):
        grade_class.submissions_in(tmp_path / "missing")
