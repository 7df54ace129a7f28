"""Grade a class: every submission in a folder, against one notebook's autograder.

Usage::

    python scripts/grade_class.py ASSIGNMENT SUBMISSIONS [--out grades/] [--time-limit S]
    make grade ASSIGNMENT=01_differencing_attacks SUBMISSIONS=path/to/folder [OUT=grades/]

ASSIGNMENT is a master notebook (``notebooks/01_differencing_attacks.ipynb``, or its name
``01_differencing_attacks``, or a prefix such as ``01``). SUBMISSIONS is a folder with one
file per student, named as they come (``alice.ipynb``, ``Bob Smith - RR (1).ipynb``).

1. The master's autograder zip is built (``otter assign``, into ``OUT/autograder/``) and the
   solutions it holds are graded first: they must score full marks, or nothing is graded
   (an autograder that fails its own solutions would grade the class wrongly).
2. Every file is checked before it is run: a file that is not a Jupyter notebook (not
   JSON, truncated, a PDF; the extension does not matter) is *not a notebook*; a notebook of
   another assignment (otter's ``assignment_name`` in its metadata, or the
   ``otter.Notebook("…")`` of its first cell) is *wrong assignment*.
3. Each remaining notebook is executed and scored by otter-grader with every test, public
   and hidden (``scripts/_grade_one.py``), in a subprocess of its own with a time limit
   (default: 5 times the solutions' grading time, at least 120 s): when it runs out the
   process and its kernel are killed and the submission is *timed out*. A grading that fails
   is an *error*; a cell that raises is not (otter grades the rest, as the student ran it),
   and the note names the exception. Two submissions are graded at a time (``--workers``).
4. ``OUT/grades.csv`` gets one row per submission: ``submission``, the score of each question
   (``q1``, ``q2``, …), ``total``, ``possible``, ``status`` (graded, timed out, not a
   notebook, wrong assignment, error), ``seconds`` and a ``note``. Scores are empty unless
   the status is graded. ``OUT/feedback/<submission>.txt`` says, question by question, which
   tests passed and what each failed one reported (hidden tests included: it is for the
   instructor; otter's messages never contain the answer, docs/exercises.md).

One bad submission never stops the batch. The exit status is 0 once the gradebook is
written, non-zero when nothing could be graded (bad arguments, an autograder that fails its
own solutions). Student code runs with your permissions, as with ``otter run`` (no container).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GRADE_ONE = HERE / "_grade_one.py"

GRADED, TIMED_OUT, NOT_A_NOTEBOOK, WRONG_ASSIGNMENT, ERROR = (
    "graded", "timed out", "not a notebook", "wrong assignment", "error")
STATUSES = (GRADED, TIMED_OUT, NOT_A_NOTEBOOK, WRONG_ASSIGNMENT, ERROR)

#: the default time limit is this many times the solutions' grading time, and at least
#: MIN_TIME_LIMIT seconds (two gradings share the cores, and the machine may be busy)
TIME_LIMIT_FACTOR = 5
MIN_TIME_LIMIT = 120.0

# otter's init cell in a student edition: grader = otter.Notebook("01_differencing_attacks.ipynb")
_INIT_CALL = re.compile(r"""otter\.Notebook\(\s*["']([^"']+?)(?:\.ipynb)?["']""")


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_student_editions",
                                                  HERE / "build_student_editions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Autograder:
    """One assignment's autograder: its zip, its name, and the solutions' notebook."""

    name: str
    zip: Path
    solutions: Path


@dataclass
class Row:
    """One submission's line in the gradebook, and its feedback."""

    submission: str
    status: str
    note: str = ""
    seconds: float | None = None
    result: dict | None = None           # _grade_one.py's JSON when graded


def resolve_assignment(spec: str) -> Path:
    """The master notebook named by ``spec``: a path, a name in notebooks/, or a prefix."""
    path = Path(spec)
    if path.is_file():
        return path.resolve()
    name = path.name.removesuffix(".ipynb")
    candidates = sorted((ROOT / "notebooks").glob(f"{name}*.ipynb"))
    exact = [c for c in candidates if c.stem == name]
    if exact or len(candidates) == 1:
        return (exact or candidates)[0]
    if candidates:
        raise SystemExit(f"ASSIGNMENT {spec!r} matches several notebooks: "
                         + ", ".join(c.name for c in candidates))
    raise SystemExit(f"ASSIGNMENT {spec!r}: no such notebook (a path, or a name in notebooks/)")


def build_autograder(master: Path, out: Path) -> Autograder:
    """Build ``master``'s autograder zip into ``out/autograder/<name>/`` (otter assign)."""
    builder = _load_builder()
    if not builder.has_assignment_config(json.loads(master.read_text(encoding="utf-8"))):
        raise SystemExit(f"{master.name} has no exercises in otter's format (no "
                         "'# ASSIGNMENT CONFIG' cell), so there is nothing to grade")
    with tempfile.TemporaryDirectory(prefix="grade-student-") as tmp:
        builder.assign(master, Path(tmp), autograder=out / "autograder")
    folder = out / "autograder" / master.stem
    (zip_path,) = folder.glob("*-autograder_*.zip")
    config = json.loads((folder / "otter_config.json").read_text(encoding="utf-8"))
    return Autograder(name=config.get("assignment_name", master.stem), zip=zip_path,
                      solutions=folder / master.name)


def assignment_of(nb) -> str | None:
    """The assignment a notebook belongs to: otter's metadata, else its init cell's file."""
    name = nb.get("metadata", {}).get("otter", {}).get("assignment_name")
    if name:
        return str(name)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            found = _INIT_CALL.search(cell.get("source", ""))
            if found:
                return Path(found.group(1)).name
    return None


def check_submission(path: Path, expected: str) -> tuple[str | None, str]:
    """(None, note) if ``path`` should be graded, else (status, why not)."""
    import nbformat

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return NOT_A_NOTEBOOK, "not text (binary file)"
    except OSError as err:
        return ERROR, f"cannot read: {err}"
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return NOT_A_NOTEBOOK, f"not JSON ({err.msg}: line {err.lineno}, column {err.colno})"
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as err:                      # nbformat raises several kinds
        return NOT_A_NOTEBOOK, f"JSON but not a notebook ({str(err).splitlines()[0][:160]})"
    found = assignment_of(nb)
    if found is not None and found != expected:
        return WRONG_ASSIGNMENT, f"this notebook is {found!r}, the assignment is {expected!r}"
    notes = []
    if found is None:
        notes.append("no assignment name in the notebook (graded anyway)")
    if path.suffix != ".ipynb":
        notes.append("a notebook, though its name " + (f"ends in {path.suffix!r}" if path.suffix
                                                        else "has no extension"))
    return None, "; ".join(notes)


# the grading subprocesses running now, so that Ctrl-C can stop them (they are in sessions of
# their own, which the terminal's interrupt does not reach)
_running: dict[subprocess.Popen, Path] = {}
_running_lock = threading.Lock()


def _kill(process: subprocess.Popen, kernel_pid_file: Path) -> None:
    """Kill a grading subprocess's process group and its kernel's (a session of its own)."""
    for pgid_of in (lambda: process.pid,
                    lambda: int(kernel_pid_file.read_text() or 0)):
        try:
            pgid = pgid_of()
            if pgid:
                os.killpg(pgid, signal.SIGKILL)
        except (OSError, ValueError):
            pass                                   # already gone, or no kernel yet
    process.wait()


def run_grading(autograder: Autograder, notebook: Path, work: Path,
                time_limit: float) -> tuple[str, str, float, dict | None]:
    """Grade one notebook in a subprocess: (status, note, seconds, result or None)."""
    result, pid_file, log = work / "result.json", work / "kernel.pgid", work / "grading.log"
    start = time.perf_counter()
    with open(log, "w", encoding="utf-8") as log_file:
        process = subprocess.Popen(
            [sys.executable, str(GRADE_ONE), str(autograder.zip), str(notebook), str(result),
             "--kernel-pid-file", str(pid_file)],
            stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=work, start_new_session=True)   # its own process group, killed as one
        with _running_lock:
            _running[process] = pid_file
        try:
            code = process.wait(timeout=time_limit)
        except subprocess.TimeoutExpired:
            _kill(process, pid_file)
            return (TIMED_OUT, f"still running after {time_limit:.0f} s (an endless loop?); "
                    "killed", time.perf_counter() - start, None)
        finally:
            with _running_lock:
                _running.pop(process, None)
    seconds = time.perf_counter() - start
    if code != 0 or not result.exists():
        lines = [ln for ln in log.read_text(encoding="utf-8", errors="replace").splitlines()
                 if ln.strip() and "Kernel is running over TCP" not in ln]
        last = lines[-1][:300] if lines else f"exit status {code}, no result"
        if "DeadKernelError" in last:
            last = "the kernel died while running it (a crash, os._exit, or out of memory)"
        return ERROR, f"grading failed: {last}", seconds, None
    data = json.loads(result.read_text(encoding="utf-8"))
    if data.get("catastrophic_error"):
        return ERROR, f"otter could not score it: {data['catastrophic_error'][:300]}", \
            seconds, data
    errors = data.get("cell_errors", [])
    note = ""
    if errors:
        note = (f"{len(errors)} cell{'s' if len(errors) > 1 else ''} raised: "
                + "; ".join(errors[:3]))
    return GRADED, note, seconds, data


def grade_one(path: Path, autograder: Autograder, time_limit: float, scratch: Path) -> Row:
    """Check, then grade one submission; never raises for a bad submission."""
    try:
        status, note = check_submission(path, autograder.name)
        if status is not None:
            return Row(path.name, status, note)
        work = Path(tempfile.mkdtemp(prefix="sub-", dir=scratch))
        # under the assignment's own name, whatever the student called it: the student
        # edition's first cell, otter.Notebook("<assignment>.ipynb"), reads that file
        notebook = work / f"{autograder.name}.ipynb"
        shutil.copyfile(path, notebook)
        status, grading_note, seconds, result = run_grading(autograder, notebook, work,
                                                            time_limit)
        return Row(path.name, status, "; ".join(n for n in (note, grading_note) if n),
                   round(seconds, 1), result)
    except Exception as err:                      # a bug here must not stop the batch
        return Row(path.name, ERROR, f"{type(err).__name__}: {err}")


def _number(x) -> str:
    return "" if x is None else f"{float(x):g}"


def write_gradebook(rows: list[Row], questions: list[str], out: Path) -> Path:
    """``out/grades.csv``: one row per submission."""
    path = out / "grades.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["submission", *questions, "total", "possible", "status", "seconds",
                         "note"])
        for row in rows:
            graded = row.status == GRADED and row.result is not None
            scores = row.result["questions"] if graded else {}
            writer.writerow([
                row.submission,
                *(_number(scores[q]["score"]) if q in scores else "" for q in questions),
                _number(row.result["total"]) if graded else "",
                _number(row.result["possible"]) if graded else "",
                row.status, _number(row.seconds), row.note])
    return path


def feedback_text(row: Row) -> str:
    """What one submission got, question by question (hidden tests marked)."""
    lines = [f"submission: {row.submission}", f"status: {row.status}"]
    if row.note:
        lines.append(f"note: {row.note}")
    if row.result is None or row.status != GRADED:
        return "\n".join(lines) + "\n"
    lines.append(f"score: {_number(row.result['total'])} / {_number(row.result['possible'])}")
    for name, q in row.result["questions"].items():
        lines.append("")
        lines.append(f"{name}: {_number(q['score'])} / {_number(q['possible'])}")
        for test in q["tests"]:
            kind = "hidden test" if test["hidden"] else "test"
            lines.append(f"  {kind} {test['name']}: {'passed' if test['passed'] else 'FAILED'}")
            if not test["passed"] and test["message"]:
                lines.extend("      " + ln for ln in test["message"].splitlines())
    return "\n".join(lines) + "\n"


def write_feedback(rows: list[Row], out: Path) -> Path:
    """``out/feedback/<submission>.txt`` for every submission (old ones removed)."""
    folder = out / "feedback"
    if folder.exists():
        for old in folder.glob("*.txt"):
            old.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    for row in rows:
        (folder / f"{row.submission}.txt").write_text(feedback_text(row), encoding="utf-8")
    return folder


def submissions_in(folder: Path) -> list[Path]:
    """The files to grade: every file in ``folder`` (not recursive; hidden files skipped)."""
    if not folder.is_dir():
        raise SystemExit(f"SUBMISSIONS {str(folder)!r} is not a folder")
    return sorted((p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")),
                  key=lambda p: p.name.lower())


def grade_class(master: Path, folder: Path, out: Path, time_limit: float | None = None,
                workers: int = 2, log=print) -> list[Row]:
    """Grade every submission in ``folder`` against ``master``; write the gradebook to ``out``."""
    start = time.perf_counter()
    files = submissions_in(folder)
    out.mkdir(parents=True, exist_ok=True)
    autograder = build_autograder(master, out)
    log(f"autograder for {autograder.name}: {autograder.zip}")

    with tempfile.TemporaryDirectory(prefix="grade-class-") as tmp:
        scratch = Path(tmp)
        # the solutions first: they must get full marks, and their time sets the limit
        reference = grade_one(autograder.solutions, autograder, 30 * 60, scratch)
        result = reference.result
        if reference.status != GRADED or result["total"] != result["possible"]:
            raise SystemExit(f"the autograder does not give its own solutions full marks, "
                             f"so the class is not graded:\n{feedback_text(reference)}")
        questions = list(result["questions"])
        if time_limit is None:
            time_limit = max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR * reference.seconds)
        log(f"solutions: {_number(result['total'])} / {_number(result['possible'])} in "
            f"{reference.seconds:.1f} s; time limit per submission {time_limit:.0f} s; "
            f"{len(files)} submissions, {workers} at a time")

        rows: dict[str, Row] = {}
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers))
        try:
            futures = [pool.submit(grade_one, p, autograder, time_limit, scratch)
                       for p in files]
            for future in concurrent.futures.as_completed(futures):
                row = future.result()
                rows[row.submission] = row
                score = (f"{_number(row.result['total'])}/{_number(row.result['possible'])}"
                         if row.status == GRADED else "")
                log(f"  {row.submission}: {row.status} {score}"
                    + (f" ({row.seconds:.0f} s)" if row.seconds is not None else ""))
        except KeyboardInterrupt:                  # stop the running gradings, then give up
            pool.shutdown(wait=False, cancel_futures=True)
            with _running_lock:
                for process, pid_file in list(_running.items()):
                    _kill(process, pid_file)
            raise
        pool.shutdown()
    ordered = [rows[p.name] for p in files]
    book = write_gradebook(ordered, questions, out)
    write_feedback(ordered, out)
    counts = {s: sum(r.status == s for r in ordered) for s in STATUSES}
    log(f"{book}: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        + f" ({time.perf_counter() - start:.0f} s in all); feedback in {out / 'feedback'}")
    return ordered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("assignment", help="the master notebook: a path, a name in "
                        "notebooks/ (01_differencing_attacks) or a prefix (01)")
    parser.add_argument("submissions", type=Path, help="the folder of submitted files")
    parser.add_argument("--out", type=Path, default=Path("grades"),
                        help="where grades.csv, feedback/ and autograder/ go "
                             "(default: %(default)s)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                        help=f"per submission (default: {TIME_LIMIT_FACTOR} times the "
                             f"solutions' grading time, at least {MIN_TIME_LIMIT:.0f} s)")
    parser.add_argument("--workers", type=int, default=2,
                        help="submissions graded at a time (default: %(default)s)")
    args = parser.parse_args(argv)
    master = resolve_assignment(args.assignment)
    grade_class(master, args.submissions, args.out.resolve(), args.time_limit, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
